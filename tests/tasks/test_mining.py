"""Mining: the funnel matches the manifest's ground truth; dates cut; kinds are guessed right."""

from datetime import date, datetime

import pytest

from corpus.builder import load_manifest
from tasks.mining import classify, diff_shape, mine
from tests.fitness_fixtures import corpus_dir

MINED_KINDS = ("bug_fix", "feature_add", "refactor")


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    return corpus_dir(tmp_path_factory)


def expected_funnel(commits: list[dict], max_source_files: int = 15, min_message_chars: int = 25) -> dict:
    """The funnel derived from the manifest alone (initial commit excluded)."""
    later = [c for c in commits if c["parent"]]
    both = [c for c in later if c["source_files"] and any(f.endswith(".py") for f in c["test_files"])]
    small = [c for c in both if len(c["source_files"]) < max_source_files]
    worded = [c for c in small if len(c["message"].strip()) >= min_message_chars]
    return {
        "commits": len(later),
        "distinct_changes": len(later),
        "changes_source_and_tests": len(both),
        "small_enough": len(small),
        "message_length": len(worded),
        "date_window": len(worded),
    }


def test_funnel_matches_the_manifest_for_every_repo(root):
    manifest = load_manifest(root)
    for name, repo in manifest["repos"].items():
        result = mine(root / name)
        assert result.funnel == expected_funnel(repo["commits"]), name
        # every bug fix, feature and refactor survives; source-only, tests-only, docs, short, large do not
        kept = {c.sha for c in result.candidates}
        assert kept == {c["sha"] for c in repo["commits"] if c["kind"] in MINED_KINDS}, name


def test_classify_matches_the_manifest_kind_of_every_candidate(root):
    manifest = load_manifest(root)
    for name, repo in manifest["repos"].items():
        truth = {c["sha"]: c["kind"] for c in repo["commits"]}
        for candidate in mine(root / name).candidates:
            assert candidate.kind == truth[candidate.sha], candidate.subject


def test_since_and_until_cut_by_date_and_candidates_keep_their_dates(root):
    manifest = load_manifest(root)
    name, repo = sorted(manifest["repos"].items())[0]
    dates = sorted(datetime.fromisoformat(c["date"]).date() for c in repo["commits"] if c["kind"] in MINED_KINDS)
    since, until = dates[2], dates[-3]
    result = mine(root / name, since=since.isoformat(), until=until.isoformat())
    inside = [d for d in dates if since <= d <= until]
    assert result.funnel["date_window"] == len(inside) < result.funnel["message_length"]
    assert len(result.candidates) == len(inside)
    truth = {c["sha"]: c["date"] for c in repo["commits"]}
    for candidate in result.candidates:
        assert since <= date.fromisoformat(candidate.created_at[:10]) <= until
        assert datetime.fromisoformat(candidate.created_at) == datetime.fromisoformat(truth[candidate.sha])


OLD = """
class Counter:
    def __init__(self):
        self.hits = 0

    def hit(self, n):
        self.hits += n
        return self.hits
"""


def test_diff_shape_tells_renames_and_signature_changes_from_behaviour():
    renamed = OLD.replace("self.hits", "self._hits")
    resigned = OLD.replace("def hit(self, n)", "def hit(self, *, n)")
    changed = OLD.replace("self.hits += n", "self.hits += n + 1")
    library = OLD.replace("return self.hits", "return max(self.hits)")
    assert diff_shape({"a.py": OLD}, {"a.py": renamed}) == "restructure"
    assert diff_shape({"a.py": OLD}, {"a.py": resigned}) == "restructure"
    assert diff_shape({"a.py": OLD}, {"a.py": changed}) == "behaviour"
    assert diff_shape({"a.py": OLD}, {"a.py": library}) == "behaviour"
    assert diff_shape({"a.py": OLD}, {"a.py": OLD + "\ndef extra():\n    return 1\n"}) == "additive"


def test_classify_uses_the_shape_only_when_the_wording_is_silent():
    assert classify("Report statistics through a method", ["stats"], "restructure") == "refactor"
    assert classify("Add a stats method", ["stats"], "additive") == "feature_add"
    assert classify("Handle empty input", [], "behaviour") == "bug_fix"
