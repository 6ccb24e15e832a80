"""The bottom-quartile filter as a dataset filter: cutoffs from the run's judged tasks, none
below the minimum, drops only of tasks that passed every layer, each with its criterion,
score and cutoff; decided once, never taken back."""

from fitness import (
    OnlineFilter,
    apply_dataset_filter,
    batch_filter,
    distribution_of,
    quartile_cutoffs,
    surviving_batch_filter,
)
from records import LayerResult, Task
from tests.task_records import JUDGED_CRITERIA, judge_criteria, task_record


def judged(name: str, scores: tuple[float, float, float], semantic: bool = True) -> Task:
    task = task_record(name)
    criteria = judge_criteria({**dict(zip(JUDGED_CRITERIA, scores)), "complexity": 1.0})  # complexity: information only
    task.record("functional", LayerResult(True, 1.0, "ok"))
    task.record("quality", LayerResult(True, 0.8, "ok", details={"criteria": criteria}))
    task.record("semantic", LayerResult(semantic, 0.8, "ok" if semantic else "vague", "" if semantic else "vague"))
    return task


def scores(completeness: float) -> dict[str, float]:
    return {"task_correctness": 9.0, "test_correctness": 9.0, "test_completeness": completeness}


def test_below_the_minimum_the_absolute_thresholds_decide_alone():
    batch = [judged(f"t{i}", (9, 9, 9)) for i in range(7)] + [judged("weak", (9, 9, 5))]
    assert apply_dataset_filter(batch, min_judged=20) == []
    assert all(t.passed for t in batch)
    # the old per-batch behaviour dropped it: 8 judged tasks are not a dataset
    assert quartile_cutoffs(distribution_of(batch), min_judged=4).values["test_completeness"] == 9


def test_cutoffs_come_from_the_reference_plus_the_batch():
    reference = [scores(c) for c in (6, 7, 7, 8, 8, 8, 9, 9, 9, 9) * 2]  # 20 judged tasks of the run
    batch = [judged("low", (9, 9, 6)), judged("mid", (9, 9, 7)), judged("high", (9, 9, 9))]
    drops = apply_dataset_filter(batch, reference, min_judged=20)
    cutoff = quartile_cutoffs([*reference, *distribution_of(batch)], 20).values["test_completeness"]
    assert cutoff == 7.0
    assert [(d.instance_id, d.criterion, d.score, d.cutoff, d.judged) for d in drops] == [
        ("low", "test_completeness", 6.0, 7.0, 23)
    ]
    low = batch[0].validation["quality"]
    assert not low.passed and low.category == "judge_reject"
    assert low.reason == "bottom quartile of the 23 judged tasks of the run on test_completeness (6 < cutoff 7)"
    assert low.details["dataset_filter"]["cutoffs"]["test_completeness"] == 7.0
    assert low.details["criteria"]["test_completeness"]["score"] == 6  # the judge's scores stay
    assert batch[1].passed and batch[2].passed
    # the same batch alone is too small to have cutoffs
    assert apply_dataset_filter([judged("low", (9, 9, 6))], min_judged=20) == []


def test_a_rejected_task_keeps_its_own_reason_but_counts_in_the_distribution():
    reference = [scores(9) for _ in range(20)]
    vague = judged("vague", (9, 9, 3), semantic=False)
    weak = judged("weak", (9, 9, 8))
    drops = apply_dataset_filter([vague, weak], reference, min_judged=20)
    assert [d.instance_id for d in drops] == ["weak"]  # cutoff 9 over 22 tasks, vague among them
    assert vague.validation["quality"].passed and vague.failed_layer()[0] == "semantic"


def test_the_online_filter_decides_each_task_once():
    online = OnlineFilter(min_judged=4)
    first = [judged(f"t{i}", (9, 9, 5)) for i in range(3)]
    assert [online.decide(t) for t in first] == [None, None, None]  # fewer than 4 judged so far
    later = [judged("a", (9, 9, 9)), judged("b", (9, 9, 9)), judged("c", (9, 9, 4))]
    decided = [online.decide(t) for t in later]
    assert decided[0] is None and decided[1] is None
    assert decided[2] is not None and decided[2].instance_id == "c" and decided[2].judged == 6
    assert all(t.passed for t in first)  # what was decided before stays decided
    assert not OnlineFilter(min_judged=4, enabled=False).decide(judged("x", (1, 1, 1)))


def test_batch_filter_works_on_copies_across_strategies():
    batch = {
        "s1": [judged(f"a{i}", (9, 9, 9)) for i in range(10)],
        "s2": [judged(f"b{i}", (9, 9, 9)) for i in range(9)] + [judged("weak", (9, 9, 2))],
    }
    filtered = batch_filter(batch, min_judged=20)
    weak = next(t for t in filtered["s2"] if t.instance_id == "weak")
    assert not weak.validation["quality"].passed
    assert batch["s2"][-1].validation["quality"].passed  # the input is untouched
    tasks = batch["s1"] + batch["s2"]
    assert surviving_batch_filter(tasks, min_judged=20) == 19
    assert surviving_batch_filter(tasks, min_judged=21) == 20
