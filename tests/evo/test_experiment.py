"""`sebgen experiment`: the date split, the intervals, the verdict, the report page, one tiny real run."""

import json

import pytest

from evo.experiment import ARMS, METRICS, split_by_date, summarise, t_interval, verdict
from evo.report import build_experiment_report
from tasks.mining import Candidate, MiningError
from tests.e2e import ROOT, sebgen


def candidate(i: int, day: str) -> Candidate:
    return Candidate(
        repo="demo/lib",
        repo_path="/nowhere",
        sha=f"{i:040x}",
        parent=f"{i + 50:040x}",
        subject=f"fix {i}",
        body="",
        created_at=day,
        source_files=["a.py"],
        test_files=["test_a.py"],
        kind="bug_fix",
    )


def test_the_newest_commits_are_held_out():
    days = ["2024-03-01", "2024-01-01", "2024-05-01", "2024-02-01", "2024-04-01"]
    train, held = split_by_date([candidate(i, d) for i, d in enumerate(days)], 0.4)
    assert [c.created_at for c in train] == ["2024-01-01", "2024-02-01", "2024-03-01"]
    assert [c.created_at for c in held] == ["2024-04-01", "2024-05-01"]
    with pytest.raises(MiningError, match="too few"):
        split_by_date([candidate(0, "2024-01-01")], 0.5)


def test_t_interval_over_seeds():
    ci = t_interval([0.2, 0.4, 0.6])
    # mean 0.4, sd 0.2, t(0.975, 2) = 4.303: half-width 4.303 * 0.2 / sqrt(3) = 0.4969
    assert ci["mean"] == pytest.approx(0.4)
    assert ci["low"] == pytest.approx(0.4 - 0.4969, abs=1e-3) and ci["high"] == pytest.approx(0.8969, abs=1e-3)
    assert t_interval([0.3]) == {"mean": 0.3, "low": 0.3, "high": 0.3, "n": 1}
    assert t_interval([0.0, 1.0, 1.0], bounds=(0.0, 1.0))["high"] == 1.0  # a rate stays a rate


def per_seed(evolved_ev: list[float], seed_ev: list[float]) -> list[dict]:
    rows = []
    for n, (e, s) in enumerate(zip(evolved_ev, seed_ev)):
        arms = {arm: {m: 0.5 for m in METRICS} for arm in ARMS}
        arms["evolved"]["exploration_value"], arms["best_seed"]["exploration_value"] = e, s
        rows.append({"seed": n, "arms": arms, "evolved_is_a_seed": e == s})
    return rows


def test_verdict_says_when_evolution_does_not_beat_the_best_seed():
    tie = per_seed([0.4, 0.5, 0.45], [0.4, 0.5, 0.45])
    text = verdict(summarise(tie), tie)
    assert "evolved is not distinguishable from the best seed" in text
    assert "in 3 of 3 seeds the evolved arm's strategy is itself a generation-1 seed" in text
    win = per_seed([0.6, 0.62, 0.61], [0.4, 0.41, 0.42])
    assert "on held-out exploration_value, evolved beats the best seed" in verdict(summarise(win), win)


def test_report_page_plots_the_arms(tmp_path):
    rows = per_seed([0.6, 0.62, 0.61], [0.4, 0.41, 0.42])
    doc = {
        **summarise(rows),
        "per_seed": rows,
        "verdict": verdict(summarise(rows), rows),
        "split": {"train": 27, "heldout": 18},
        "heldout_calls_per_arm": 6,
    }
    (tmp_path / "experiment.json").write_text(json.dumps(doc))
    index = build_experiment_report(tmp_path)
    page = index.read_text()
    assert (tmp_path / "report" / "experiment.png").stat().st_size > 1000
    assert all(arm in page for arm in ARMS) and "0.610 [" in page


@pytest.mark.slow  # runs the CLI in a subprocess (or builds an environment): seconds each
def test_bad_experiment_setting_is_one_sentence_and_exit_2(tmp_path):
    proc = sebgen(
        "experiment",
        ROOT / "configs" / "experiment.yaml",
        "--out",
        tmp_path / "x",
        "--set",
        "experiment.holdout_fraction=1.5",
    )
    assert proc.returncode == 2
    assert proc.stderr.strip().startswith("sebgen: config key 'experiment.holdout_fraction'")
    assert "Traceback" not in proc.stderr and not (tmp_path / "x").exists()


# A small real run on the bundled corpus: tests/evo/test_experiment_genes.py (slow).
