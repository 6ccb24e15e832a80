import random

import pytest

from evo.individual import Individual
from operators.explore import random_strategy
from operators.params import crossover, mutate_params
from operators.selection import combined_scores, select_parents, sigmoid_z
from tasks.strategy import PARAM_RANGES, Strategy, StrategyType


def strat(prompt="p", **kw):
    return Strategy(StrategyType.BUG_FIX, prompt, **kw)


def test_sigmoid_is_half_when_all_equal():
    assert sigmoid_z([0.4, 0.4, 0.4]) == [0.5, 0.5, 0.5]


def test_sigmoid_orders_by_performance():
    values = sigmoid_z([0.1, 0.5, 0.9])
    assert values[0] < values[1] < values[2]
    assert values[1] == pytest.approx(0.5)


def test_alpha_weights_performance_against_novelty():
    # equal performance: sigmoid part is 0.5 for all, so only novelty separates them
    assert combined_scores([1, 1], [0.0, 1.0], alpha=0.7) == pytest.approx([0.35, 0.65])
    assert combined_scores([1, 1], [0.0, 1.0], alpha=1.0) == pytest.approx([0.5, 0.5])


def test_selection_prefers_high_combined_score():
    good, bad = Individual(strat("good")), Individual(strat("bad"))
    good.fitness.values, bad.fitness.values = (0.9,), (0.1,)
    good.novelty = bad.novelty = 0.0
    picks = select_parents([good, bad], 400, random.Random(1), alpha=1.0)
    assert sum(p is good for p in picks) > 250


def test_param_mutation_clamps_and_records_lineage():
    parent = strat(temperature=2.0, top_p=1.0, max_tokens=4096)
    for seed in range(20):
        child = mutate_params(parent, random.Random(seed), generation=3, sigma=2.0)
        for name, (low, high) in PARAM_RANGES.items():
            assert low <= getattr(child, name) <= high
        assert child.parents == (parent.id,)
        assert child.operator == "param_mutation" and child.generation == 3


def test_crossover_takes_the_better_prompt_and_averages():
    better = strat("better prompt", temperature=0.2, top_p=0.6, max_tokens=1000)
    worse = Strategy(StrategyType.FEATURE_ADD, "worse prompt", temperature=0.8, top_p=1.0, max_tokens=2000)
    child = crossover(better, worse, generation=2)
    assert child.prompt == "better prompt" and child.strategy_type == StrategyType.BUG_FIX
    assert (child.temperature, child.top_p, child.max_tokens) == (0.5, 0.8, 1500)
    assert child.parents == (better.id, worse.id) and child.operator == "crossover"


def test_random_exploration_is_seeded_and_parentless():
    a = random_strategy(random.Random(5), 2, [StrategyType.BUG_FIX, StrategyType.REFACTOR])
    b = random_strategy(random.Random(5), 2, [StrategyType.BUG_FIX, StrategyType.REFACTOR])
    assert a == b and a.parents == () and a.operator == "random_exploration"


def test_genome_id_ignores_lineage():
    a = strat("x").child(operator="crossover", parents=("a", "b"), generation=4)
    assert a.id == strat("x").id
