"""Exploration value and its dimensions against hand-computed values."""

import pytest

from fitness import exploration as ex
from records import LayerResult, Task
from tests.task_records import task_record


def kept_task(judge: float, difficulty: float, domain: str, skills: list[str]) -> Task:
    return task_record(
        f"{domain}-{difficulty}",
        difficulty=difficulty,
        domain=domain,
        skills=skills,
        validation={"quality": LayerResult(True, judge, "")},
    )


def test_weighted_sum_with_default_weights():
    dims = ex.Dimensions(
        quality=0.5, novelty=0.4, difficulty_coverage=0.6, skill_diversity=0.2, evolution_potential=0.8
    )
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


@pytest.mark.parametrize(
    "attempts, passed, categories, expected",
    [
        (10, 10, [], 0.20),  # > 90% pass: little headroom
        (4, 0, ["leakage"] * 4, 0.80),  # one clear failure pattern
        (4, 0, ["leakage", "leakage", "no_f2p", "flaky"], 0.20 + 0.6 * 0.5),
        (0, 0, [], 0.20),
        (4, 0, ["no_f2p", "flaky", "build_error", "timeout"], 0.20),  # nothing a prompt can fix
        (3, 2, ["duplicate"], 0.20 + 0.6 / 3),  # one rejection of three is not a clear pattern
    ],
)
def test_evolution_potential(attempts, passed, categories, expected):
    assert ex.evolution_potential(attempts, passed, categories) == pytest.approx(expected)


def test_dimensions_of_a_batch():
    tasks = [kept_task(0.8, 0.1, "math", ["x"]), kept_task(0.6, 0.7, "security", ["y"])]
    dims = ex.dimensions_of(
        attempts=4,
        passed_tasks=tasks,
        failure_categories=["leakage", "leakage"],
        novelties=[0.3, 0.5],
        bins=5,
        skill_norm=10,
    )
    assert dims.quality == pytest.approx(0.5 * 0.7)
    assert dims.novelty == pytest.approx(0.4)
    assert dims.difficulty_coverage == pytest.approx(2 / 5)
    assert dims.skill_diversity == pytest.approx(0.5 * 2 / 7 + 0.5 * 0.2)
    assert dims.evolution_potential == pytest.approx(0.2 + 0.6 * 2 / 4)  # 2 of 4 attempts leaked


def test_failure_routing_splits_prompt_fixable_from_environment():
    fixable, other = ex.route_failures(
        [
            "leakage",
            "no_f2p",
            "judge_reject",
            "build_error",
            "vague_statement",
            "duplicate",
            "flaky",
            "timeout",
            "llm_error",
            "compile_error",
        ]
    )
    assert fixable == ["leakage", "judge_reject", "vague_statement", "duplicate", "llm_error"]
    assert other == ["no_f2p", "build_error", "flaky", "timeout", "compile_error"]
    assert not ex.PROMPT_FIXABLE & ex.ENVIRONMENT


def test_two_of_two_kept_beats_two_of_three_with_a_duplicate():
    """The quickstart's old oddity: a rejection used to buy 0.6 of E and outrank a clean sibling."""
    task = kept_task(0.8, 0.3, "math", ["x"])
    clean = ex.dimensions_of(attempts=2, passed_tasks=[task, task], failure_categories=[], novelties=[0.3, 0.3])
    one_dup = ex.dimensions_of(
        attempts=3, passed_tasks=[task, task], failure_categories=["duplicate"], novelties=[0.3, 0.3]
    )
    assert ex.exploration_value(clean) > ex.exploration_value(one_dup)
