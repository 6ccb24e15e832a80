"""Exploration value and its dimensions against hand-computed values."""
import pytest

from fitness import exploration as ex


def test_weighted_sum_with_default_weights():
    dims = ex.Dimensions(quality=0.5, novelty=0.4, difficulty_coverage=0.6, skill_diversity=0.2, evolution_potential=0.8)
    # 0.3*0.5 + 0.2*0.4 + 0.15*0.6 + 0.15*0.2 + 0.2*0.8 = 0.15 + 0.08 + 0.09 + 0.03 + 0.16
    assert ex.exploration_value(dims) == pytest.approx(0.51)


def test_custom_weights_change_the_value():
    dims = ex.Dimensions(1.0, 0.0, 0.0, 0.0, 0.0)
    weights = dict(ex.DEFAULT_WEIGHTS, quality=0.5)
    assert ex.exploration_value(dims, weights) == pytest.approx(0.5)


def test_quality_is_pass_rate_times_mean_judge():
    assert ex.quality(0.5, [0.8, 0.6]) == pytest.approx(0.35)
    assert ex.quality(1.0, []) == 0.0


def test_difficulty_coverage_counts_bins():
    assert ex.difficulty_coverage([0.05, 0.1, 0.5, 0.99], bins=5) == pytest.approx(3 / 5)
    assert ex.difficulty_coverage([1.0], bins=4) == pytest.approx(1 / 4)


def test_skill_diversity():
    # 2 of 7 domains, 5 distinct skills over a norm of 10
    value = ex.skill_diversity(["math", "memory", "math"], [["a", "b"], ["b", "c"], ["d", "e"]], skill_norm=10)
    assert value == pytest.approx(0.5 * 2 / 7 + 0.5 * 0.5)


@pytest.mark.parametrize("attempts, passed, categories, expected", [
    (10, 10, [], 0.20),                         # > 90% pass: little headroom
    (4, 0, ["leakage"] * 4, 0.80),              # one clear failure pattern
    (4, 0, ["leakage", "leakage", "no_f2p", "flaky"], 0.20 + 0.6 * 0.5),
    (0, 0, [], 0.20),
])
def test_evolution_potential(attempts, passed, categories, expected):
    assert ex.evolution_potential(attempts, passed, categories) == pytest.approx(expected)


def test_dimensions_of_a_batch():
    tasks = [
        {"validation": {"quality": {"score": 0.8}}, "difficulty": 0.1, "domain": "math", "skills": ["x"]},
        {"validation": {"quality": {"score": 0.6}}, "difficulty": 0.7, "domain": "security", "skills": ["y"]},
    ]
    dims = ex.dimensions_of(attempts=4, passed_tasks=tasks, failure_categories=["leakage", "leakage"],
                            novelties=[0.3, 0.5], bins=5, skill_norm=10)
    assert dims.quality == pytest.approx(0.5 * 0.7)
    assert dims.novelty == pytest.approx(0.4)
    assert dims.difficulty_coverage == pytest.approx(2 / 5)
    assert dims.skill_diversity == pytest.approx(0.5 * 2 / 7 + 0.5 * 0.2)
    assert dims.evolution_potential == pytest.approx(0.8)
