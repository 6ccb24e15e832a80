"""`sebgen setup`: the environment of one commit, its suite's counts, the recipe and the attempts;
an install that fails after every attempt ends with one sentence naming the log (exit 2)."""

from __future__ import annotations

import json

import pytest

from tests.e2e import sebgen
from tests.sandbox_fixtures import CALC_FIXED, CALC_TESTS, make_repo

pytestmark = pytest.mark.slow
LOCAL = ["--set", "sandbox.backend=local"]


def test_setup_prints_counts_recipe_and_attempts(tmp_path):
    repo, sha = make_repo(
        tmp_path / "calcrepo",
        {"calc.py": CALC_FIXED, "tests/test_calc.py": CALC_TESTS, "pytest.ini": "[pytest]\nxfail_strict = true\n"},
    )
    proc = sebgen("setup", repo, *LOCAL, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert f"calcrepo-{sha[:12]}@{sha[:12]}" in proc.stdout  # no remote: the folder name with the root commit
    assert "tests: 2 passed, 0 failed, 0 errored" in proc.stdout
    assert "recipe:" in proc.stdout and "attempts:" in proc.stdout and "1. build ok" in proc.stdout
    report = json.loads(sebgen("setup", repo, "--commit", sha, "--json", *LOCAL, timeout=300).stdout)
    assert report["commit"] == sha and report["counts"]["passed"] == 2


def test_install_failing_after_every_attempt_is_one_sentence_naming_the_log(tmp_path):
    repo, _ = make_repo(tmp_path / "brokenrepo", {"calc.py": CALC_FIXED, "tests/test_calc.py": CALC_TESTS})
    cfg = tmp_path / "c.yaml"
    cfg.write_text(
        "sandbox:\n  backend: local\n  setup_attempts: 2\n  install:\n"
        "    brokenrepo:\n      install: 'echo no-rule-explains-this; exit 3'\n"
    )
    proc = sebgen("setup", repo, "--config", cfg, timeout=300)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    lines = [ln for ln in proc.stderr.strip().splitlines() if ln.startswith("sebgen:")]
    assert len(lines) == 1, proc.stderr
    assert "installing brokenrepo-" in lines[0] and "failed after 1 attempt; see the log /" in lines[0]
    log = lines[0].split("see the log ")[1].strip()
    assert "no-rule-explains-this" in open(log).read()


def test_setup_of_a_commit_not_in_the_repo(tmp_path):
    repo, _ = make_repo(tmp_path / "r", {"calc.py": CALC_FIXED})
    proc = sebgen("setup", repo, "--commit", "0" * 40, *LOCAL, timeout=120)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert len([ln for ln in proc.stderr.splitlines() if ln.startswith("sebgen:")]) == 1
