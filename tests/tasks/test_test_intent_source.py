"""A failing test's own words are quoted only when the change wrote them (tasks.statement.failing_tests)."""

from __future__ import annotations

from tasks.mining import Candidate
from tasks.statement import failing_tests
from tests.sandbox_fixtures import diff_for, git, make_repo, write

OLD = (
    "def test_combination():\n"
    '    """Given that the style for a b is defined at the end, that one is used."""\n'
    "    assert style('a b') == 'red'\n"
)
NEW_TEST = (
    "\n\ndef test_dim():\n"
    '    """An ANSI dim sequence gives the dim attribute to each character."""\n'
    "    assert parse('x') == 'dim'\n"
)


def test_only_a_description_the_change_wrote_is_the_tests_requirement(tmp_path):
    repo, _ = make_repo(tmp_path / "repo", {"tests/test_style.py": OLD})
    changed = {"tests/test_style.py": OLD + "    assert style('a b', dim=True) == 'red dim'\n" + NEW_TEST}
    test_patch = diff_for(repo, changed)
    write(repo, changed)
    git(repo, "commit", "-qam", "dim")
    sha = git(repo, "rev-parse", "HEAD")
    candidate = Candidate("acme/style", str(repo), sha, "", "Add dim", "", "", ["style.py"], [], "feature_add")
    ids = ["tests/test_style.py::test_combination", "tests/test_style.py::test_dim"]
    intents = {t["id"]: t.get("intent") for t in failing_tests(candidate, ids, test_patch=test_patch)}
    assert intents == {ids[0]: None, ids[1]: "An ANSI dim sequence gives the dim attribute to each character."}
