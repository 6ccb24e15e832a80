"""Small CLI commands: corpus, mine --json, doctor."""

import json
import os

import pytest

from tests.e2e import sebgen


def test_corpus_prints_one_repo_per_line_and_is_repeatable(tmp_path):
    first = sebgen("corpus", tmp_path / "c", check=True).stdout.split()
    again = sebgen("corpus", tmp_path / "c", check=True).stdout.split()
    assert first == again and len(first) >= 3
    assert all((tmp_path / "c" / os.path.basename(p) / ".git").is_dir() for p in first)


def test_corpus_builds_the_javascript_corpus_on_request(tmp_path):
    paths = sebgen("corpus", tmp_path / "js", "--language", "javascript", check=True).stdout.split()
    assert [os.path.basename(p) for p in paths] == ["jskit"]
    proc = sebgen("corpus", tmp_path / "x", "--language", "cobol")
    assert proc.returncode != 0 and "no bundled corpus for 'cobol'" in proc.stderr and "Traceback" not in proc.stderr


@pytest.mark.slow  # runs the CLI in a subprocess (or builds an environment): seconds each
def test_mine_json_has_the_funnel_and_dated_candidates(tmp_path):
    repo = sebgen("corpus", tmp_path / "c", check=True).stdout.split()[0]
    data = json.loads(sebgen("mine", repo, "--json", check=True).stdout)
    funnel = data["funnel"]
    counts = list(funnel.values())
    assert counts == sorted(counts, reverse=True)  # each filter only removes
    assert funnel["date_window"] == len(data["candidates"]) > 0
    cut = json.loads(sebgen("mine", repo, "--json", "--since", "2026-01-01", check=True).stdout)
    assert 0 < len(cut["candidates"]) < len(data["candidates"])
    assert all(c["created_at"] >= "2026-01-01" for c in cut["candidates"])


@pytest.mark.slow  # runs the CLI in a subprocess (or builds an environment): seconds each
def test_mine_rejects_a_malformed_date(tmp_path):
    repo = sebgen("corpus", tmp_path / "c", check=True).stdout.split()[0]
    proc = sebgen("mine", repo, "--since", "last tuesday")
    assert proc.returncode == 2 and "YYYY-MM-DD" in proc.stderr and "Traceback" not in proc.stderr


@pytest.mark.slow  # runs the CLI in a subprocess (or builds an environment): seconds each
def test_doctor_reports_every_part():
    proc = sebgen("doctor", check=True)
    for check in ("docker engine", "embedding model", "llm model"):
        assert check in proc.stdout
    assert "offline provider" in proc.stdout
    if os.environ.get("SEBGEN_REQUIRE_DOCKER") == "1":
        assert "base image" in proc.stdout and "missing" not in proc.stdout
