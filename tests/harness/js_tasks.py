"""JavaScript tasks for the export tests, from tests/data/js/tiny-node-test (node:test, no npm
dependency): a repository whose commits each fix one bug of lib/math.js and add its test."""

from __future__ import annotations

from pathlib import Path

from records import Task
from sandbox import JsRecipe
from tests.sandbox_fixtures import git, make_repo, write

PROJECT = Path(__file__).resolve().parents[1] / "data" / "js" / "tiny-node-test"
MATH_TEST = "test/math.test.js"
MATH = "lib/math.js"
# the bug each commit fixes: (what the fixed line reads, what the buggy one read, the test's title)
FIXES = (
    ("exports.sub = (a, b) => a - b;", "exports.sub = (a, b) => b - a;", "subtracts"),
    ("exports.add = (a, b) => a + b;", "exports.add = (a, b) => a * b;", "adds"),
)


def _files() -> dict[str, str]:
    return {str(p.relative_to(PROJECT)): p.read_text() for p in PROJECT.rglob("*") if p.is_file()}


def _math_test(titles: list[str]) -> str:
    """test/math.test.js with only the tests titled `titles`."""
    text = _files()[MATH_TEST]
    head, _, body = text.partition('describe("math", () => {\n')
    cases = body.rsplit("});", 1)[0].split("  it(")[1:]
    kept = [c for c in cases if any(c.startswith(f'"{t}"') for t in titles)]
    return head + 'describe("math", () => {\n' + "".join("  it(" + c for c in kept) + "});\n"


def fix_history(root: Path) -> Path:
    """A repository whose first commit has both bugs and tests for neither, and whose next
    commits each fix one bug and add its test (FIXES order)."""
    files = _files()
    math = files[MATH]
    for fixed, buggy, _ in FIXES:
        math = math.replace(fixed, buggy)
    repo, _ = make_repo(root, {"package.json": files["package.json"], MATH: math, MATH_TEST: _math_test([])})
    titles: list[str] = []
    for fixed, buggy, title in FIXES:
        math = math.replace(buggy, fixed)
        titles.append(title)
        write(repo, {MATH: math, MATH_TEST: _math_test(titles)})
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", f"Fix the function the test '{title}' checks")
    return repo


def js_task(repo: Path, index: int) -> Task:
    """The task of FIXES[index]'s commit, written by hand as generation would record it."""
    fix = git(repo, "rev-list", "--reverse", "HEAD").split()[index + 1]
    source = git(repo, "diff", f"{fix}~1", fix, "--", MATH) + "\n"
    tests = git(repo, "diff", f"{fix}~1", fix, "--", MATH_TEST) + "\n"
    bug = git(repo, "diff", fix, f"{fix}~1", "--", MATH) + "\n"
    titles = [t for _, _, t in FIXES[: index + 1]]
    recipe = JsRecipe(node="20", package_manager="npm", runner="node-test", sources=("tests",))
    return Task(
        instance_id=f"tiny-node-test__{FIXES[index][2]}",
        repo="tiny-node-test",
        base_commit=fix,
        patch=source,
        test_patch=tests,
        problem_statement=f"The math function behind '{FIXES[index][2]}' gives wrong results.",
        bug_patch=bug,
        strategy_type="BUG_FIX",
        strategy_id="hand",
        FAIL_TO_PASS=[f"{MATH_TEST}::math > {FIXES[index][2]}"],
        PASS_TO_PASS=[f"{MATH_TEST}::math > {t}" for t in titles[:-1]],
        repo_path=str(repo),
        environment_setup={"language": "javascript", "recipe": recipe.to_dict()},
    )
