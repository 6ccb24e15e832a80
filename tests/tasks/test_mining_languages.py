"""Mining reads each of SEBGen's languages through `environment.Language`: Python and
JavaScript/TypeScript commits become candidates (a repository holding both yields both), and a
repository in neither ends with one sentence that says what it holds, instead of an empty funnel."""

import subprocess
from pathlib import Path

import pytest

from sandbox import repo_name
from tasks.mining import MiningError, mine, mine_named


def git_repo(root: Path, commits: list[dict[str, str]]) -> Path:
    """A repository with one commit per dict of files (each adds or replaces those files)."""
    root.mkdir()
    subprocess.run(["git", "-C", str(root), "init", "-q"], check=True)
    for i, files in enumerate(commits):
        for name, text in files.items():
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            (root / name).write_text(text)
        subprocess.run(["git", "-C", str(root), "add", "-A"], check=True)
        message = f"Fix the parser so that commit {i} changes behaviour"
        subprocess.run(
            ["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", message], check=True
        )
    return root


@pytest.fixture
def js_repo(tmp_path):
    return git_repo(
        tmp_path / "jsonly",
        [
            {"package.json": '{"name": "x", "scripts": {"test": "mocha"}}', "index.js": "module.exports = 1\n"},
            {"index.js": "module.exports = 2\n", "test/index.test.js": "require('..')\n"},
        ],
    )


@pytest.fixture
def c_repo(tmp_path):
    return git_repo(
        tmp_path / "conly",
        [
            {"Makefile": "all:\n\tcc main.c\n", "main.c": "int main(){return 0;}\n", "util.h": ""},
            {"main.c": "int main(){return 1;}\n", "tests/check.c": "int t;\n"},
        ],
    )


def test_a_javascript_repository_is_mined(js_repo):
    result = mine(js_repo)
    assert result.funnel["changes_source_and_tests"] == 1
    [candidate] = result.candidates
    assert (candidate.language, candidate.source_files, candidate.test_files) == (
        "javascript",
        ["index.js"],
        ["test/index.test.js"],
    )
    assert candidate.fix_files == ["index.js"]


def test_a_repository_in_no_known_language_names_the_known_ones(c_repo):
    with pytest.raises(MiningError) as raised:
        mine(c_repo)
    message = str(raised.value)
    assert "\n" not in message
    assert message.startswith(
        f"{repo_name(c_repo)} is in none of the languages SEBGen knows (Python, JavaScript/TypeScript)"
    )
    assert "its files are mostly .c, .h" in message
    assert message.endswith("SEBGen makes tasks from Python and JavaScript/TypeScript repositories")


def test_named_commits_of_a_repository_in_no_known_language_get_the_same_sentence(c_repo):
    head = subprocess.run(["git", "-C", str(c_repo), "rev-parse", "HEAD"], capture_output=True, text=True).stdout
    with pytest.raises(MiningError, match="is in none of the languages SEBGen knows"):
        mine_named(c_repo, [head.strip()])


def test_named_javascript_commits_become_candidates(js_repo):
    head = subprocess.run(["git", "-C", str(js_repo), "rev-parse", "HEAD"], capture_output=True, text=True).stdout
    [named] = mine_named(js_repo, [head.strip()])
    assert named.candidate is not None and named.candidate.language == "javascript"


def test_a_repository_holding_python_beside_javascript_is_mined(tmp_path):
    repo = git_repo(
        tmp_path / "both",
        [
            {"package.json": "{}", "pkg/mod.py": "def f():\n    return 1\n", "setup.py": ""},
            {"pkg/mod.py": "def f():\n    return 2\n", "tests/test_mod.py": "def test_f():\n    pass\n"},
        ],
    )
    assert [(c.language, c.test_files) for c in mine(repo).candidates] == [("python", ["tests/test_mod.py"])]


def test_a_repository_holding_both_languages_yields_tasks_in_both(tmp_path):
    repo = git_repo(
        tmp_path / "both",
        [
            {"package.json": "{}", "setup.py": "", "pkg/mod.py": "X = 1\n", "web/app.js": "exports.x = 1\n"},
            {"pkg/mod.py": "X = 2\n", "tests/test_mod.py": "def test_x():\n    pass\n"},
            {"web/app.js": "exports.x = 2\n", "web/app.test.js": "test('x', () => {})\n"},
        ],
    )
    found = [(c.language, c.source_files, c.test_files) for c in mine(repo).candidates]
    assert found == [
        ("python", ["pkg/mod.py"], ["tests/test_mod.py"]),
        ("javascript", ["web/app.js"], ["web/app.test.js"]),
    ]


def test_javascript_file_roles(tmp_path):
    """Tests by name or folder, in every JS/TS extension; build output, tool configs, docs and
    lockfiles are never source; lockfile and build output never enter the gold patch; fixtures
    beside the tests go with the test patch."""
    repo = git_repo(
        tmp_path / "roles",
        [
            {"package.json": "{}", "src/a.ts": "export const a = 1\n"},
            {
                "src/a.ts": "export const a = 2\n",
                "src/b.mts": "export const b = 2\n",
                "dist/a.js": "exports.a = 2\n",
                "vitest.config.ts": "export default {}\n",
                "docs/guide.js": "x\n",
                "package-lock.json": "{}",
                "package.json": '{"version": "2"}',
                "src/__tests__/a.tsx": "it('a', () => {})\n",
                "test/fixtures/a.json": "{}",
                "spec/b.spec.cjs": "describe('b', () => {})\n",
            },
        ],
    )
    [candidate] = mine(repo).candidates
    assert candidate.source_files == ["src/a.ts", "src/b.mts"]
    assert candidate.test_files == ["spec/b.spec.cjs", "src/__tests__/a.tsx", "test/fixtures/a.json"]
    assert "package-lock.json" not in candidate.fix_files and "dist/a.js" not in candidate.fix_files
    assert {"package.json", "src/a.ts", "src/b.mts", "vitest.config.ts"} <= set(candidate.fix_files)


def test_a_javascript_change_of_only_a_lockfile_and_tests_is_no_candidate(tmp_path):
    repo = git_repo(
        tmp_path / "lock",
        [
            {"package.json": "{}", "index.js": "module.exports = 1\n"},
            {"package-lock.json": "{}", "test/index.test.js": "test('x', () => {})\n"},
        ],
    )
    assert mine(repo).funnel["changes_source_and_tests"] == 0


def test_python_sources_without_packaging_or_tests_are_python(tmp_path):
    """A folder of .py files is a Python project (mining then says it has no tests), while .py
    scripts beside a package.json do not make a JS project a Python one."""
    from environment import language_markers

    assert "python" in language_markers(["lib.py", "util.py", "README.md"])
    assert "python" not in language_markers(["package.json", "scripts/release.py", "index.js"])
    assert "python" not in language_markers(["Makefile", "main.c", "util.c", "scripts/gen.py"])


def test_a_flat_tests_module_is_a_test_file_and_protected(tmp_path):
    """vobject and nameparser keep their whole suite in one `tests.py`: it was taken for source,
    so every fix commit went with its tests in the gold patch and no task was made."""
    from sandbox import is_protected

    repo = git_repo(
        tmp_path / "flat",
        [
            {"setup.py": "", "nameparser.py": "def f():\n    return 1\n", "tests.py": "def test_f():\n    pass\n"},
            {"nameparser.py": "def f():\n    return 2\n", "tests.py": "def test_f():\n    assert 1\n"},
        ],
    )
    [candidate] = mine(repo).candidates
    assert (candidate.source_files, candidate.test_files) == (["nameparser.py"], ["tests.py"])
    assert is_protected("tests.py") and is_protected("app/tests.py") and not is_protected("app/contests.py")
