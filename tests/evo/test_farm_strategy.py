"""Which strategy a farm tries its units with: an evolution run's best, best seed or best evolved
strategy (`--strategy-from RUN_DIR --strategy-pick ...`), or a random one (`--random-strategy SEED`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from evo.config import Config, farm_settings
from evo.farm import farm_strategy
from evo.runfolder import RunFolder
from records import Score, UserError
from tasks import Strategy, StrategyType
from tests.e2e import sebgen
from tests.marks import require_mark

SEED_A = Strategy(StrategyType.BUG_FIX, "Report the bug.")
SEED_B = Strategy(StrategyType.FEATURE_ADD, "Request the feature.")
MADE = SEED_B.child(operator="mutate_genes", parents=(SEED_B.id,), generation=2, genes={"sel_size": 0.7})
MADE_WORSE = SEED_A.child(operator="mutate_genes", parents=(SEED_A.id,), generation=2, genes={"sel_age": 0.3})


def _score(fitness: float) -> Score:
    return Score(
        exploration_value=fitness,
        dimensions={},
        attempts=2,
        passed=1,
        failure_categories=[],
        novelties={},
        fitness=fitness,
    )


def _run(path: Path, generations: list[dict[Strategy, float]]) -> Path:
    """A run folder whose generation N (from 1) offspring are the keys, scored with the values."""
    folder = RunFolder(path)
    folder.write_config(Config().to_yaml())
    leader = max((s for g in generations for s in g), key=lambda s: max(g.get(s, -1) for g in generations))
    folder.save_checkpoint({"generation": len(generations), "hall_of_fame": [{"strategy": leader.to_dict()}]}, keep=1)
    for number, offspring in enumerate(generations, start=1):
        folder.write_offspring(number, {"offspring": [s.to_dict() for s in offspring]})
        folder.write_scores(number, {s.genome_hash(): _score(f) for s, f in offspring.items()})
    return path


def test_a_run_gives_its_best_seed_and_its_best_evolved_strategy(tmp_path):
    # the seed B scores best in generation 1; a later re-score makes A the better seed
    run = _run(tmp_path / "run", [{SEED_B: 0.5, SEED_A: 0.2}, {SEED_A: 0.6, MADE_WORSE: 0.1, MADE: 0.4}])
    best_seed = farm_strategy(farm_settings(strategy_from=str(run), strategy_pick="best-seed"))
    assert best_seed.to_dict() == SEED_A.to_dict()  # ranked by the fitness last scored
    best_evolved = farm_strategy(farm_settings(strategy_from=str(run), strategy_pick="best-evolved"))
    assert best_evolved.to_dict() == MADE.to_dict()
    assert farm_strategy(farm_settings(strategy_from=str(run))).to_dict() == SEED_A.to_dict()  # the leader


def test_a_run_that_made_nothing_or_scored_nothing_says_so(tmp_path):
    seeds_only = _run(tmp_path / "seeds", [{SEED_A: 0.2, SEED_B: 0.5}])
    with pytest.raises(UserError, match="made no strategy beyond its seeds"):
        farm_strategy(farm_settings(strategy_from=str(seeds_only), strategy_pick="best-evolved"))
    assert farm_strategy(farm_settings(strategy_from=str(seeds_only), strategy_pick="best-seed")) == SEED_B
    unscored = RunFolder(tmp_path / "unscored")
    unscored.write_config(Config().to_yaml())
    unscored.save_checkpoint({"generation": 0, "hall_of_fame": []}, keep=1)
    unscored.write_offspring(1, {"offspring": [SEED_A.to_dict()]})
    with pytest.raises(UserError, match="unscored generation"):
        farm_strategy(farm_settings(strategy_from=str(unscored.path), strategy_pick="best-seed"))
    with pytest.raises(UserError, match="is not a SEBGen run folder"):
        farm_strategy(farm_settings(strategy_from=str(tmp_path), strategy_pick="best-evolved"))


def test_a_random_strategy_with_a_fixed_seed_is_the_same_twice_and_another_seed_differs():
    first = farm_strategy(farm_settings(random_strategy=3))
    assert first.to_dict() == farm_strategy(farm_settings(random_strategy=3)).to_dict()
    assert first.operator == "random_exploration" and first.strategy_type != StrategyType.SYNTHETIC
    assert first.genes != Strategy(first.strategy_type, first.prompt).genes  # its genes are drawn
    others = {farm_strategy(farm_settings(random_strategy=s)).genome_hash() for s in range(4, 8)}
    assert first.genome_hash() not in others and len(others) == 4
    typed = farm_strategy(farm_settings(random_strategy=3, strategy="refactor"))
    assert typed.strategy_type == StrategyType.REFACTOR


def test_the_new_options_keep_an_older_versions_plan_key():
    assert farm_settings().plan_key() == farm_settings(strategy_pick="best").plan_key()
    assert "strategy_pick" not in farm_settings().plan_key() and "random_strategy" not in farm_settings().plan_key()
    assert farm_settings(random_strategy=0).plan_key() != farm_settings().plan_key()
    assert farm_settings(random_strategy=0).plan_key() != farm_settings(random_strategy=1).plan_key()


@pytest.mark.parametrize(
    "values, message",
    [
        ({"strategy_pick": "best-seed"}, "--strategy-pick best-seed picks from a run: give --strategy-from RUN_DIR"),
        ({"strategy_from": "x", "strategy_pick": "best_seed"}, "--strategy-pick: unknown pick 'best_seed'"),
        ({"strategy_from": "x", "random_strategy": 1}, "give --strategy-from RUN_DIR or --random-strategy SEED"),
        ({"random_strategy": -1}, "--random-strategy: Input should be greater than or equal to 0"),
    ],
)
def test_bad_strategy_options_are_one_clear_line(values, message):
    with pytest.raises(UserError) as caught:
        farm_settings(**values)
    assert message in str(caught.value) and "\n" not in str(caught.value)


@pytest.mark.slow
def test_the_cli_refuses_a_pick_without_a_run_in_one_line_and_writes_nothing(tmp_path):
    require_mark("slow", "runs the CLI")
    proc = sebgen("farm", tmp_path, "--out", tmp_path / "ds", "--strategy-pick", "best-evolved")
    assert proc.returncode == 2, proc.stderr
    assert "give --strategy-from RUN_DIR" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert not (tmp_path / "ds").exists()
