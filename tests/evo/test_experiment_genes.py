"""`sebgen experiment` with the cost and the genes: kept per validation, dimensions and
difficulty histograms with paired differences, the SYNTHETIC module split, the EV curves per
generation in the report, and a small real run on the bundled corpus (slow)."""

from __future__ import annotations

import json

import pytest

from evo.experiment import ARMS, METRICS, module_split, summarise, verdict
from evo.report import build_experiment_report
from fitness import DIMENSIONS
from tasks import MODULE_KIND
from tests.e2e import ROOT, sebgen


def arm(kept: int, validations: int, ev: float, histogram: list[int]) -> dict:
    return {
        "strategy": {"id": "abc", "strategy_type": "BUG_FIX", "genes": {"sel_link": 0.4}},
        "attempts": validations,
        "validations": validations,
        "kept": kept,
        "kept_per_validation": kept / validations,
        "kept_rate": kept / validations,
        "leak_rate": 0.0,
        "judge_quality": 0.7,
        "difficulty_coverage": sum(1 for h in histogram if h) / len(histogram),
        "difficulty_histogram": histogram,
        "exploration_value": ev,
        "dimensions": {d: ev for d in DIMENSIONS},
    }


def per_seed() -> list[dict]:
    rows = []
    for n, (evolved, seed, random_) in enumerate([(6, 3, 4), (7, 2, 3), (6, 3, 3)]):
        curve = [
            {"generation": g, "best_ev": 0.4 + 0.05 * g, "mean_ev": 0.3 + 0.04 * g, "validations": 8} for g in (1, 2, 3)
        ]
        rows.append(
            {
                "seed": n + 1,
                "arms": {
                    "best_seed": arm(seed, 8, 0.45, [seed, 0, 0, 0, 0]),
                    "evolved": arm(evolved, 8, 0.5, [2, evolved - 2, 0, 0, 0]),
                    "random_search": arm(random_, 8, 0.46, [random_, 0, 0, 0, 0]),
                },
                "curves": {"evolved": curve, "random_search": [dict(p, best_ev=0.4) for p in curve]},
                "evolved_is_a_seed": False,
            }
        )
    return rows


def test_summary_has_cost_dimensions_histograms_and_paired_differences():
    rows = per_seed()
    summary = summarise(rows)
    for name in ARMS:
        assert set(METRICS) | set(DIMENSIONS) <= set(summary["arms"][name])
    assert summary["arms"]["evolved"]["kept_per_validation"]["mean"] == pytest.approx(19 / 24, abs=1e-4)
    diff = summary["differences"]["evolved_minus_best_seed"]["kept_per_validation"]
    assert diff["low"] > 0  # (6-3, 7-2, 6-3) / 8: above 0 in every seed
    assert summary["difficulty_histograms"]["evolved"] == [6, 13, 0, 0, 0]
    text = verdict(summary, rows)
    assert "on held-out kept_per_validation, evolved beats the best seed" in text


def test_report_plots_ev_per_generation_and_shows_cost_and_genes(tmp_path):
    rows = per_seed()
    doc = {
        **summarise(rows),
        "per_seed": rows,
        "verdict": verdict(summarise(rows), rows),
        "split": {"train": 27, "heldout": 18},
        "heldout_validations_per_arm": 8,
    }
    (tmp_path / "experiment.json").write_text(json.dumps(doc))
    page = build_experiment_report(tmp_path).read_text()
    assert (tmp_path / "report" / "experiment-curves.png").stat().st_size > 1000
    assert "EV per generation" in page and "container validations per arm" in page
    assert "Paired differences" in page and "sel_link" in page
    assert "<td>evolved</td><td>24</td><td>19</td><td>1.26</td>" in page  # validations per kept task


def test_synthetic_modules_are_split_by_path(tmp_path):
    from tests.tasks.test_genes import commit, git

    repo = tmp_path / "r"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "user.email", "t@example.com")
    git(repo, "config", "user.name", "t")
    modules = {f"pkg/m{i}.py": f"def f{i}():\n    return {i}\n" for i in range(12)}
    commit(
        repo,
        {**modules, "tests/test_m.py": "def test_x():\n    assert True\n"},
        "Initial modules",
        "2024-01-01T00:00:00",
    )
    train, held = module_split([repo], 0.4)
    names = lambda cs: {c.source_files[0] for c in cs}  # noqa: E731
    assert names(train) | names(held) == set(modules) and not names(train) & names(held)
    assert held and train and all(c.kind == MODULE_KIND for c in train + held)
    assert module_split([repo], 0.4)[1] == held  # deterministic


@pytest.mark.slow
def test_a_small_experiment_on_the_bundled_corpus_counts_validations_and_curves(tmp_path):
    out = tmp_path / "exp"
    proc = sebgen(
        "experiment",
        ROOT / "configs" / "experiment.yaml",
        "--out",
        out,
        "--set",
        "experiment.seeds=[1]",
        "--set",
        "experiment.heldout_validations=2",
        "--set",
        "evolution.population=2",
        "--set",
        "evolution.generations=2",
        "--set",
        "fitness.tasks_per_strategy=1",
        "--set",
        "fitness.oversample=1",
        check=True,
    )
    doc = json.loads((out / "experiment.json").read_text())
    result = doc["per_seed"][0]
    for name in ARMS:
        assert result["arms"][name]["validations"] == 2  # the same budget, in container validations
        assert set(METRICS) <= set(doc["arms"][name])
    assert [p["generation"] for p in result["curves"]["evolved"]] == [1, 2]
    assert result["training_validations"]["evolved"] >= 2
    assert "validations/kept" in proc.stdout and "genes:" in proc.stdout
    assert (out / "report" / "experiment-curves.png").is_file() and (out / "report" / "index.html").is_file()
    assert (out / "seed-1" / "heldout-evolved.jsonl").is_file()  # the arms' held-out tasks, for inspection
