"""The validation layers on a JS/TS commit through the language seam: the compile layer parses
changed JS/TS files with tree-sitter in both states, the functional layer is given the changed
files that declare tests (not helpers or fixtures), and the statement context reads JS."""

import subprocess
from pathlib import Path

from tasks.generate import skeleton
from tasks.mining import mine
from tasks.statement import js_failing_tests, repo_context, touched_signatures
from tasks.strategy import SEED_PROMPTS, Strategy, StrategyType
from tasks.validate import check_compile
from tasks.validate import test_files_of as files_to_run  # a test_* name would be collected

PARSE_OLD = "export function parse(text: string): string[] {\n  return text.split(',');\n}\n"
PARSE_NEW = "export function parse(text: string): string[] {\n  return text.split(',').map((s) => s.trim());\n}\n"
TEST_OLD = (
    'import { parse } from "../src/index";\n\ndescribe("parse", () => {\n'
    '  it("splits", () => {\n    expect(parse("a,b")).toEqual(["a", "b"]);\n  });\n});\n'
)
TEST_NEW = TEST_OLD.replace(
    "  });\n});\n",
    '  });\n\n  it("trims", () => {\n    expect(parse("a, b")).toEqual(["a", "b"]);\n  });\n});\n',
)


def commit(repo: Path, files: dict[str, str], message: str) -> None:
    for name, text in files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text)
    subprocess.run(["git", "-C", str(repo), "add", "-A"], check=True)
    subprocess.run(
        ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", message], check=True
    )


def js_task(tmp_path, source_new: str = PARSE_NEW):
    repo = tmp_path / "tsrepo"
    repo.mkdir()
    subprocess.run(["git", "-C", str(repo), "init", "-q"], check=True)
    commit(
        repo,
        {"package.json": '{"name": "splitter"}', "src/index.ts": PARSE_OLD, "test/parse.test.ts": TEST_OLD},
        "init",
    )
    helper = "export const fixture = 'a, b';\n"
    commit(
        repo,
        {"src/index.ts": source_new, "test/parse.test.ts": TEST_NEW, "test/helpers/fixture.ts": helper},
        "Fix parse so that it trims the spaces around each item",
    )
    [candidate] = mine(repo).candidates
    strategy = Strategy(strategy_type=StrategyType.BUG_FIX, prompt=SEED_PROMPTS[StrategyType.BUG_FIX])
    return repo, candidate, skeleton(candidate, strategy)


def test_a_typescript_commit_parses_in_both_states(tmp_path):
    repo, _, task = js_task(tmp_path)
    result = check_compile(task, repo)
    assert result.passed and result.reason == "3 changed JS/TS files parse in both states"


def test_a_bug_patch_that_breaks_the_syntax_is_a_compile_error(tmp_path):
    repo, _, task = js_task(tmp_path)
    task.bug_patch = task.bug_patch.replace(
        "-  return text.split(',').map((s) => s.trim());",
        "-  return text.split(',').map((s) => s.trim());\n+  return (",
        1,
    )
    task.bug_patch = task.bug_patch.replace("@@ -1,3 +1,3 @@", "@@ -1,3 +1,4 @@", 1)
    result = check_compile(task, repo)
    assert not result.passed and result.category == "compile_error"
    assert result.reason.startswith("buggy state does not compile: src/index.ts line")


def test_the_functional_layer_runs_only_files_that_declare_tests(tmp_path):
    repo, candidate, task = js_task(tmp_path)
    assert candidate.test_files == ["test/helpers/fixture.ts", "test/parse.test.ts"]
    assert files_to_run(task.test_patch, repo, task.base_commit) == ["test/parse.test.ts"]
    assert files_to_run(task.test_patch) == ["test/parse.test.ts"]  # by name, without the repository


def test_the_statement_context_reads_javascript(tmp_path):
    repo, candidate, task = js_task(tmp_path)
    assert candidate.touched_functions == ["parse"]
    assert touched_signatures(candidate) == [
        {"file": "src/index.ts", "name": "parse", "signature": "export function parse(text: string): string[]"}
    ]
    [failing] = js_failing_tests(candidate, ["test/parse.test.ts::parse > trims"], test_patch=task.test_patch)
    assert failing["assertion"] == 'expect(parse("a, b")).toEqual(["a", "b"]);'
    assert failing["added_lines"] == ['expect(parse("a, b")).toEqual(["a", "b"]);']
    assert repo_context(candidate).endswith("JavaScript/TypeScript files: src/index.ts")
