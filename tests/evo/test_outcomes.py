"""`sebgen generate` with named commits: every commit is tried and gets exactly one line (kept,
or rejected with layer, category and reason), every attempt that is not kept has a record in
the rejects file, a classified feature named with `--strategy BUG_FIX` is tried and the line
says so, the quartile filter is off for named commits unless `--quartile-filter`, and a drop
is reported with its criterion, score and cutoff, never after a "kept" line for the task."""

from __future__ import annotations

import json
import re

import pytest

from evo.pipeline import GenerationResult, Outcome, _not_tried, rejects_path
from fitness import EvalSettings, OnlineFilter
from records import LayerResult, Task
from tasks import Candidate, Strategy, StrategyType
from tests.e2e import sebgen
from tests.evo.outcome_repo import build
from tests.marks import require_mark
from tests.task_records import task_record

LOCAL = ["--set", "sandbox.backend=local", "--set", "sandbox.reruns=1", "--set", "fitness.quartile_min_judged=4"]
# the weak fix comes last: when it is decided, four judged tasks precede it
NAMED = ("fix1", "fix2", "fix3", "feature", "weak", "tests_only")


def outcome_lines(stderr: str) -> list[str]:
    return [line.strip() for line in stderr.splitlines() if re.match(r"\s+(kept|rejected) [0-9a-f]{12}", line)]


def sha_of(line: str) -> str:
    """The 12-character commit an outcome line is about."""
    return line.split()[1].rstrip(":")


def records(path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    require_mark("slow", "runs sebgen generate end to end")
    repo = tmp_path_factory.mktemp("outcomes") / "shelf"
    return repo, build(repo)


@pytest.fixture(scope="module")
def named_run(project, tmp_path_factory):
    """All six commits named, BUG_FIX asked, the filter left at its default (off)."""
    repo, shas = project
    out = tmp_path_factory.mktemp("named") / "tasks.jsonl"
    args = [a for label in NAMED for a in ("--commit", shas[label])]
    proc = sebgen("generate", repo, *args, "--strategy", "BUG_FIX", "--out", out, *LOCAL, check=True, timeout=1500)
    return proc, records(out), records(rejects_path(out)), shas


@pytest.mark.slow
def test_every_named_commit_gets_one_line_and_kept_plus_rejects_cover_them_all(named_run):
    proc, kept, rejected, shas = named_run
    lines = outcome_lines(proc.stderr)
    for label in NAMED:
        mine = [line for line in lines if sha_of(line) == shas[label][:12]]
        assert len(mine) == 1, (label, proc.stderr[-3000:])
    assert len(lines) == len(NAMED)
    seen = [t["base_commit"] for t in kept] + [r["commit"] for r in rejected]
    assert sorted(seen) == sorted(shas[label] for label in NAMED)  # each in OUT or in the rejects file, once
    for record in rejected:
        assert record["outcome"] == "rejected" and record["layer"] and record["category"] and record["reason"]
    [tests_only] = [r for r in rejected if r["commit"] == shas["tests_only"]]
    assert (tests_only["layer"], tests_only["category"]) == ("mining", "no_source_change")
    last = proc.stderr.strip().splitlines()[-1]
    assert re.fullmatch(r"\d+ kept, \d+ rejected \(.*\), 0 not tried", last), last
    assert last.startswith(f"{len(kept)} kept, {len(rejected)} rejected (")
    assert "mining/no_source_change" in last


@pytest.mark.slow
def test_a_named_feature_commit_with_strategy_bug_fix_is_tried_and_said(named_run):
    proc, kept, rejected, shas = named_run
    [line] = [ln for ln in outcome_lines(proc.stderr) if sha_of(ln) == shas["feature"][:12]]
    assert line.endswith("[classified feature_add, tried as BUG_FIX]"), line
    attempt = [t for t in kept if t["base_commit"] == shas["feature"]] or [
        r["task"] for r in rejected if r["commit"] == shas["feature"]
    ]
    assert attempt and attempt[0]["strategy_type"] == "BUG_FIX"  # the type wrote the statement
    assert attempt[0]["validation"].get("functional"), "the feature commit was validated, not skipped"


@pytest.mark.slow
def test_the_quartile_filter_is_off_for_named_commits(named_run):
    proc, kept, _, shas = named_run
    weak = [t for t in kept if t["base_commit"] == shas["weak"]]
    assert weak, proc.stderr[-3000:]
    assert "bottom_quartile" not in proc.stderr and "bottom quartile" not in proc.stderr
    # the same tasks, in the same order, through the filter with the run's minimum: it would drop it
    online = OnlineFilter(min_judged=4)
    decided = {t["base_commit"]: online.decide(Task.from_dict(t)) for t in kept}
    assert decided[shas["weak"]] is not None


@pytest.mark.slow
def test_with_quartile_filter_a_drop_is_one_line_with_its_cutoff_and_a_rejects_record(project, tmp_path):
    repo, shas = project
    out, rejects = tmp_path / "tasks.jsonl", tmp_path / "elsewhere" / "dropped.jsonl"
    args = [a for label in NAMED[:-1] for a in ("--commit", shas[label])]
    proc = sebgen(
        "generate", repo, *args, "--strategy", "BUG_FIX", "--quartile-filter", "--out", out, "--rejects", rejects,
        *LOCAL, check=True, timeout=1500,
    )  # fmt: skip
    kept, dropped = records(out), records(rejects)
    assert not rejects_path(out).exists()
    [line] = [ln for ln in outcome_lines(proc.stderr) if sha_of(ln) == shas["weak"][:12]]
    assert not line.startswith("kept"), line  # decided before it was printed: no kept line to take back
    match = re.search(r"at quality \[bottom_quartile\]: bottom quartile of the (\d+) judged tasks of the run on (\w+) "
                      r"\(([\d.]+) < cutoff ([\d.]+)\)", line)  # fmt: skip
    assert match and int(match[1]) >= 4 and float(match[3]) < float(match[4]), line
    [record] = [r for r in dropped if r["commit"] == shas["weak"]]
    assert record["category"] == "bottom_quartile" and record["layer"] == "quality"
    drop = record["validation"]["quality"]["details"]["dataset_filter"]
    assert (drop["criterion"], drop["score"], drop["cutoff"]) == (match[2], float(match[3]), float(match[4]))
    assert record["validation"]["semantic"]["passed"]  # it had passed every layer: the filter alone dropped it
    assert shas["weak"] not in {t["base_commit"] for t in kept}
    # acceptance: no task that passed every layer disappears without a line saying why
    passed_everything = [r for r in dropped if all(v["passed"] for k, v in r["validation"].items() if k != "quality")]
    for r in passed_everything:
        assert any(sha_of(ln) == r["commit"][:12] and "bottom quartile" in ln for ln in outcome_lines(proc.stderr))
    assert len(kept) + len(dropped) == len(NAMED) - 1


# -- fast: the outcome model and the not-tried count, without a sandbox ------------------------------


def bare_task(name: str, sha: str, passed_layers: dict[str, bool]) -> Task:
    task = task_record(name, base_commit=sha)
    for layer, ok in passed_layers.items():
        task.record(layer, LayerResult(ok, 1.0 if ok else 0.0, "fine" if ok else "F2P empty", "" if ok else "no_f2p"))
    return task


def test_outcomes_say_layer_category_and_reason_and_the_summary_counts_them():
    kept = Outcome.of(bare_task("k", "a" * 40, {"functional": True}), kind="bug_fix")
    rejected = Outcome.of(bare_task("r", "b" * 40, {"functional": False}), kind="feature_add")
    unminable = Outcome("rejected", "c" * 40, layer="mining", category="no_test_change", reason="changes no test file")
    assert kept.kept and kept.line().startswith(f"  kept {'a' * 12}: k (") and "classified" not in kept.line()
    assert rejected.line() == f"  rejected {'b' * 12} (r) at functional [no_f2p]: F2P empty " + (
        "[classified feature_add, tried as BUG_FIX]"
    )
    assert rejected.record()["task"]["instance_id"] == "r" and rejected.record()["validation"]["functional"]
    result = GenerationResult([kept.task], 2, [kept, rejected, unminable], named=True)
    assert result.summary() == "1 kept, 2 rejected (1 functional/no_f2p, 1 mining/no_test_change), 0 not tried"


def candidate(sha: str, kind: str) -> Candidate:
    return Candidate("r", "/r", sha, "p", "s", "", "2024-01-01", ["a.py"], ["tests/test_a.py"], kind)


def test_a_whole_repository_run_says_why_each_commit_was_not_tried():
    candidates = [candidate(f"{i:040d}", "bug_fix") for i in range(10)] + [candidate("f" * 40, "feature_add")]
    settings = EvalSettings(tasks_per_strategy=2, oversample=3)
    strategy = Strategy(StrategyType.BUG_FIX, "p")
    assert _not_tried(strategy, candidates, settings, tried=3, kept=2) == {
        "classified feature_add, not a BUG_FIX commit": 1,
        "stopped at --n 2": 7,
    }
    assert _not_tried(strategy, candidates, settings, tried=6, kept=1) == {
        "classified feature_add, not a BUG_FIX commit": 1,
        "beyond the budget of 6 attempts (3 x --n 2)": 4,
    }
