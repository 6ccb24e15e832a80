"""Operators over the genes: Gaussian mutation and crossover of the genes, random exploration
of them, selection repair, and the routing of `no_f2p` failures to selection repair."""

from __future__ import annotations

import os
import random
from types import SimpleNamespace

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from evo.config import Config
from evo.individual import Individual
from evo.loop import build_toolbox, route_of, vary
from fitness import gene_for
from operators import crossover, mutate_params, random_strategy, repair_selection
from records import LayerResult, Score, Task
from tasks import GENES, Strategy, StrategyType
from tasks.strategy import GENE_DEFAULTS, relevant_genes
from tests.evo.test_archive_in_evolution import RecordingClient
from tests.tasks.test_genes import PROMPT, three_commits  # noqa: F401 - a fixture

COMMIT_GENES = set(relevant_genes(StrategyType.BUG_FIX))
SYNTHESIS_GENES = set(GENES) - COMMIT_GENES | {"evidence_tests", "evidence_code", "statement_words"}


def test_param_mutation_moves_the_genes_of_the_type_within_their_ranges():
    parent = Strategy(StrategyType.BUG_FIX, PROMPT)
    child = mutate_params(parent, random.Random(4), generation=2, sigma=0.3)
    moved = {k for k in GENES if child.genes[k] != parent.genes[k]}
    assert moved and moved <= COMMIT_GENES  # a commit strategy's synthesis genes stay put
    assert all(GENES[k].low <= v <= GENES[k].high for k, v in child.genes.items())
    assert child.genome_hash() != parent.genome_hash() and child.parents == (parent.id,)
    again = mutate_params(parent, random.Random(4), generation=2, sigma=0.3)
    assert again == child  # seeded
    synthetic = mutate_params(Strategy(StrategyType.SYNTHETIC, PROMPT), random.Random(4), generation=2, sigma=0.3)
    assert {k for k in GENES if synthetic.genes[k] != GENE_DEFAULTS[k]} <= SYNTHESIS_GENES
    steps = {
        mutate_params(Strategy(StrategyType.SYNTHETIC, PROMPT), random.Random(n), 2).genes["mutations"]
        for n in range(20)
    }
    assert 2.0 in steps  # the integer gene reaches a neighbour


def test_crossover_averages_the_genes():
    a = Strategy(StrategyType.BUG_FIX, PROMPT, genes={"sel_link": 0.8, "band_low": 0.2})
    b = Strategy(StrategyType.BUG_FIX, "other", genes={"sel_link": 0.0, "band_low": 0.6})
    child = crossover(a, b, generation=3)
    assert child.genes["sel_link"] == 0.4 and child.genes["band_low"] == 0.4 and child.prompt == PROMPT


def test_random_exploration_draws_genes():
    one = random_strategy(random.Random(9), 2, [StrategyType.BUG_FIX])
    assert one == random_strategy(random.Random(9), 2, [StrategyType.BUG_FIX])
    assert any(one.genes[k] != GENE_DEFAULTS[k] for k in COMMIT_GENES)


def record(validation: dict[str, LayerResult], **generation) -> Task:
    return Task("t", "r", "b", "", "", "s", "", "BUG_FIX", "x", validation=validation, generation=generation)


def attempt(kept: bool, category: str = "no_f2p", judge: float = 0.8, **generation) -> Task:
    validation = {"functional": LayerResult(kept, 1.0, "", None if kept else category)}
    if kept:
        validation["quality"] = LayerResult(True, judge, "")
    return record(validation, **generation)


def test_selection_repair_moves_weights_towards_what_yielded(three_commits):  # noqa: F811
    fix, docs, rework = three_commits  # the fix has the link, test and fix-cue features
    tried = [(fix, attempt(True)), (docs, attempt(False)), (rework, attempt(False)), (fix, attempt(True, judge=0.9))]
    parent = Strategy(StrategyType.BUG_FIX, PROMPT)
    child = repair_selection(parent, tried, random.Random(0), generation=2, noise=0.0)
    assert child.operator == "selection_repair" and child.parents == (parent.id,)
    g = child.genes
    assert g["sel_cue"] == 0.5  # the feature that separates best moves a full step
    assert g["sel_link"] > 0.2 and g["sel_tests"] > 0.05  # what the fix's test shows gains weight
    assert g["sel_size"] < 0 and g["sel_age"] < 0  # the big, newest change did not yield
    noisy = repair_selection(parent, tried, random.Random(0), generation=2)
    assert noisy.genes != g and abs(noisy.genes["sel_cue"] - 0.5) < 0.4
    # the repaired order tries the commit like the ones that yielded first
    from tasks import order_candidates

    assert order_candidates([rework, docs, fix], child)[0] is fix


def test_selection_repair_of_synthetic_moves_operator_weights_and_band():
    tried = [(None, attempt(True, mutation="off_by_one", complexity=4)) for _ in range(3)]
    tried += [(None, attempt(False, mutation="drop_guard", complexity=12)) for _ in range(3)]
    child = repair_selection(Strategy(StrategyType.SYNTHETIC, PROMPT), tried, random.Random(0), generation=2)
    assert child.genes["op_off_by_one"] > child.genes["op_drop_guard"]
    assert child.genes["complexity_high"] < 30 and child.genes["complexity_low"] > 1


def individual(strategy: Strategy, categories: list[str]) -> Individual:
    ind = Individual(strategy)
    ind.assign(
        Score(
            exploration_value=0.4,
            fitness=0.4,
            dimensions={"novelty": 0.5},
            attempts=4,
            passed=4 - len(categories),
            failure_categories=categories,
            novelties={},
            failure_routes=[gene_for(c) for c in categories],
        )
    )
    return ind


def test_no_f2p_failures_reach_selection_repair_not_prompt_mutation(three_commits):  # noqa: F811
    config = Config.model_validate(
        {
            "evolution": {
                "population": 2,
                "epsilon": 0.0,
                "p_prompt_mutation": 1.0,
                "p_param_mutation": 0.0,
                "p_crossover": 0.0,
            }
        }
    )
    llm = RecordingClient()
    bench = SimpleNamespace(archive=None, llm=llm)
    tried = [(three_commits[0], attempt(True)), (three_commits[1], attempt(False))] * 2
    toolbox = build_toolbox(config, random.Random(1), bench, tried=lambda generation: tried)
    stuck = individual(Strategy(StrategyType.BUG_FIX, PROMPT), ["no_f2p", "no_f2p", "no_f2p"])
    assert route_of(stuck) == "selection"
    children = vary(toolbox, config, random.Random(2), [stuck, stuck], generation=2)
    assert [c.operator for c in children] == ["selection_repair", "selection_repair"]
    assert llm.prompts == []  # no prompt mutation was asked for
    assert all(c.prompt == PROMPT and c.genes["sel_link"] > 0 for c in children)
    # a strategy whose failures a prompt can fix still goes to prompt mutation
    leaky = individual(Strategy(StrategyType.BUG_FIX, "Write a bug report for {repo}."), ["leakage", "leakage"])
    assert route_of(leaky) == "prompt"
    children = vary(toolbox, config, random.Random(2), [leaky, leaky], generation=2)
    # the second parent's rewrite is the first one's again: that copy is retried as a parameter mutation
    assert [c.operator for c in children] == ["prompt_mutation", "param_mutation"] and llm.prompts


def judged_reject(criterion: str, by_filter: bool) -> Task:
    criteria = {c: {"score": 9} for c in ("task_correctness", "test_correctness", "test_completeness", "complexity")}
    criteria[criterion] = {"score": 3}
    details = {"criteria": criteria}
    if by_filter:
        details["dataset_filter"] = {"criterion": criterion}
    quality = LayerResult(False, 0.5, "", "judge_reject", details)
    return record({"functional": LayerResult(True, 1.0, ""), "quality": quality})


def test_a_judge_rejection_on_the_tests_is_selections_on_the_statement_the_prompts():
    from fitness import failure_routes

    tasks = [
        judged_reject("test_correctness", by_filter=True),
        judged_reject("test_completeness", by_filter=False),
        judged_reject("task_correctness", by_filter=True),
        attempt(False, "no_f2p"),
        attempt(False, "leakage"),
        attempt(False, "build_error"),
    ]
    assert failure_routes(tasks) == ["selection", "selection", "prompt", "selection", "prompt", "environment"]
    ind = individual(Strategy(StrategyType.BUG_FIX, PROMPT), ["judge_reject", "judge_reject"])
    ind.score.failure_routes = ["selection", "selection"]
    assert route_of(ind) == "selection"
