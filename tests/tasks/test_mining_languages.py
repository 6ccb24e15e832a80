"""Mining a repository in a language it does not read ends with one sentence that says what the
repository holds, instead of an empty funnel."""

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


def test_a_javascript_repository_is_named_as_such(js_repo):
    with pytest.raises(MiningError) as raised:
        mine(js_repo)
    assert str(raised.value) == (
        f"{repo_name(js_repo)} is a JavaScript/TypeScript repository (package.json); "
        "SEBGen makes tasks from Python repositories today, and JavaScript/TypeScript is being added"
    )


def test_a_repository_in_no_known_language_names_the_known_ones(c_repo):
    with pytest.raises(MiningError) as raised:
        mine(c_repo)
    message = str(raised.value)
    assert "\n" not in message
    assert message.startswith(
        f"{repo_name(c_repo)} is in none of the languages SEBGen knows (Python, JavaScript/TypeScript)"
    )
    assert "its files are mostly .c, .h" in message
    assert message.endswith(
        "SEBGen makes tasks from Python repositories today, and JavaScript/TypeScript is being added"
    )


def test_named_commits_of_a_javascript_repository_get_the_same_sentence(js_repo):
    head = subprocess.run(["git", "-C", str(js_repo), "rev-parse", "HEAD"], capture_output=True, text=True).stdout
    with pytest.raises(MiningError, match="is a JavaScript/TypeScript repository"):
        mine_named(js_repo, [head.strip()])


def test_a_repository_holding_python_beside_javascript_is_mined(tmp_path):
    repo = git_repo(
        tmp_path / "both",
        [
            {"package.json": "{}", "pkg/mod.py": "def f():\n    return 1\n", "setup.py": ""},
            {"pkg/mod.py": "def f():\n    return 2\n", "tests/test_mod.py": "def test_f():\n    pass\n"},
        ],
    )
    assert [c.test_files for c in mine(repo).candidates] == [["tests/test_mod.py"]]


def test_python_sources_without_packaging_or_tests_are_python(tmp_path):
    """A folder of .py files is a Python project (mining then says it has no tests), while .py
    scripts beside a package.json do not make a JS project a Python one."""
    from environment import language_markers

    assert "python" in language_markers(["lib.py", "util.py", "README.md"])
    assert "python" not in language_markers(["package.json", "scripts/release.py", "index.js"])
    assert "python" not in language_markers(["Makefile", "main.c", "util.c", "scripts/gen.py"])
