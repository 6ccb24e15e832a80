"""Fitness counts what a dataset builder pays: container validations per kept task, recorded
per evaluation, folded into fitness with `fitness.cost_weight`; EV's five dimensions unchanged."""

from __future__ import annotations

import os

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import pytest

from evo import loop as loop_module
from evo.config import Config
from evo.individual import Individual
from evo.loop import Evolution
from fitness.strategy_eval import EvalSettings, Evaluation, evaluate_strategy, fitness_of, score_tasks, validations_of
from llm import LLMClient
from records import LayerResult, Score
from tasks import Strategy, StrategyType
from tasks.strategy import SEED_PROMPTS
from tests.fitness.test_strategy_scoring import CannedRun, candidates, failed_attempt, task
from tests.loop_fixtures import use_canned_execution


def test_validations_are_the_attempts_that_reached_the_functional_layer():
    s = Strategy(StrategyType.BUG_FIX, "p")
    tasks = [task(s, 0, kept=True), task(s, 1, kept=False), task(s, 2, kept=False)]
    tasks[0].validation["functional"] = LayerResult(True, 1.0, "")
    compile_error = task(s, 3, kept=False)
    compile_error.validation = {"compile": LayerResult(False, 0.0, "", "compile_error")}
    assert validations_of(tasks + [compile_error]) == 3
    assert fitness_of(0.5, kept=1, validations=4, cost_weight=0.0) == 0.5
    assert fitness_of(0.5, kept=1, validations=4, cost_weight=0.4) == pytest.approx(0.6 * 0.5 + 0.4 * 0.25)
    assert fitness_of(0.5, kept=0, validations=0, cost_weight=0.4) == pytest.approx(0.3)
    score = score_tasks(tasks, EvalSettings(cost_weight=0.4), novelty=lambda kept: [0.5] * len(kept))
    assert (score.validations, score.passed, score.kept_per_validation, score.validations_per_kept) == (
        3,
        1,
        0.3333,
        3.0,
    )
    assert score.fitness == fitness_of(score.exploration_value, 1, 3, 0.4)
    assert set(score.dimensions) == {
        "quality",
        "novelty",
        "difficulty_coverage",
        "skill_diversity",
        "evolution_potential",
    }


class Generator:
    """Attempts that fail before or at the functional layer, by commit index."""

    def __init__(self, reaches_functional):
        self.llm = LLMClient()
        self.reaches = reaches_functional
        self.seen = 0

    def generate(self, candidate, strategy):
        self.seen += 1
        return failed_attempt(candidate, strategy, "functional" if self.reaches(self.seen) else "compile")


def test_an_evaluation_spends_a_budget_of_validations_and_records_it():
    strategy = Strategy(StrategyType.BUG_FIX, SEED_PROMPTS[StrategyType.BUG_FIX][1])
    settings = EvalSettings(tasks_per_strategy=2, oversample=2, seed=5)  # 4 validations
    every = evaluate_strategy(strategy, candidates(12), Generator(lambda n: True), settings)
    assert (every.attempts, every.validations) == (4, 4)
    half = evaluate_strategy(strategy, candidates(12), Generator(lambda n: n % 2 == 0), settings)
    assert (half.attempts, half.validations) == (8, 4)  # compile failures cost no container run
    none = evaluate_strategy(strategy, candidates(12), Generator(lambda n: False), settings)
    assert (none.attempts, none.validations) == (8, 0)  # at most twice the budget of them
    assert Evaluation.from_dict({k: v for k, v in half.to_dict().items() if k != "validations"}).validations == 4


@pytest.fixture
def costly_run(tmp_path, monkeypatch):
    """Two seeds with the same tasks kept; one paid five validations for them, one two."""

    def run(cost_weight: float, name: str):
        config = Config.model_validate(
            {"seed": 3, "evolution": {"population": 2, "generations": 1}, "fitness": {"cost_weight": cost_weight}}
        )
        seeds = loop_module.seed_strategies(list(config.evolution.strategy_types), 2, generation=1)
        canned = CannedRun()
        for i, seed in enumerate(seeds):
            kept = [task(seed, n, kept=True, judge=0.8) for n in (1, 2)]
            for t in kept:
                t.validation["functional"] = LayerResult(True, 1.0, "")
            failed = [task(seed, n, kept=False) for n in range(3, 6)] if i == 0 else []
            canned.plans[seed.genome_hash()] = kept + failed

        use_canned_execution(monkeypatch, canned.evaluate)
        outcome = Evolution(config, tmp_path / name, log=lambda *_: None).run(1)
        return seeds, [entry.to_dict() for entry in outcome.hall_of_fame]  # as `sebgen hof --json` shows it

    return run


def test_cost_weight_ranks_the_cheaper_of_two_equal_strategies_first(costly_run):
    seeds, free = costly_run(0.0, "free")
    _, paid = costly_run(0.5, "paid")
    by_id = {e["id"]: e for e in paid}
    costly, cheap = by_id[seeds[0].id], by_id[seeds[1].id]
    assert (costly["validations_per_kept"], cheap["validations_per_kept"]) == (2.5, 1.0)
    assert cheap["fitness"] > costly["fitness"] and paid[0]["id"] == seeds[1].id
    # EV keeps the paper's five dimensions: the cost enters fitness only
    free_by_id = {e["id"]: e for e in free}
    assert free_by_id[seeds[0].id]["exploration_value"] == costly["exploration_value"]
    assert free_by_id[seeds[0].id]["fitness"] == costly["exploration_value"] != costly["fitness"]
    assert {"genes", "validations", "validations_per_kept", "fitness"} <= set(paid[0])


def test_an_individual_keeps_ev_and_fitness_apart_through_a_checkpoint():
    ind = Individual(Strategy(StrategyType.BUG_FIX, "p", genes={"sel_link": 0.5}))
    ind.assign(Score(0.5, {}, attempts=4, passed=2, failure_categories=[], novelties={}, validations=4, fitness=0.42))
    again = Individual.from_dict(ind.to_dict())
    assert (again.exploration_value, again.fitness_value, again.validations_per_kept) == (0.5, 0.42, 2.0)
    assert again.strategy.genes["sel_link"] == 0.5 and again.hof_entry().genes["sel_link"] == 0.5


def test_an_individual_keeps_its_score_and_reads_checkpoints_that_held_a_summary():
    ind = Individual(Strategy(StrategyType.BUG_FIX, "p"))
    score = Score(0.5, {"novelty": 0.3}, 4, 2, ["no_f2p"], {"t1": 0.3}, validations=4, failure_routes=["selection"])
    ind.assign(score)
    assert Individual.from_dict(ind.to_dict()).score == score
    # a checkpoint written when individuals kept a summary dict instead of their Score
    old = {
        "strategy": ind.strategy.to_dict(),
        "exploration_value": 0.5,
        "fitness": 0.45,
        "dimensions": {"novelty": 0.3},
        "summary": {
            "attempts": 4,
            "passed": 2,
            "failure_categories": ["no_f2p"],
            "validations": 4,
            "kept_per_validation": 0.5,
            "scored_at_generation": 1,
            "archive_tasks": 7,
        },
    }
    again = Individual.from_dict(old)
    assert (again.score.passed, again.score.validations, again.validations_per_kept) == (2, 4, 2.0)
    assert (again.hof_entry().novelty_generation, again.hof_entry().novelty_archive_tasks) == (1, 7)
    assert again.fitness_value == 0.45 and again.score.failure_categories == ["no_f2p"]


def test_commits_the_archive_already_holds_a_task_of_are_not_paid_for_again(tmp_path):
    from archive import Archive

    strategy = Strategy(StrategyType.BUG_FIX, SEED_PROMPTS[StrategyType.BUG_FIX][1])
    pool = candidates(12)
    settings = EvalSettings(tasks_per_strategy=2, oversample=2, seed=5)
    generator = Generator(lambda n: True)
    first = [t.base_commit for t in evaluate_strategy(strategy, pool, generator, settings).tasks]
    with Archive.open(tmp_path / "archive") as archive:
        kept = task(strategy, 0, kept=True)
        archive.add_tasks([{**kept.to_dict(), "repo": "demo/lib", "base_commit": first[0]}], generation=1)
        generator.archive = archive
        again = [t.base_commit for t in evaluate_strategy(strategy, pool, generator, settings).tasks]
    assert first[0] not in again and again[: len(first) - 1] == first[1:]  # the rest keeps its order
