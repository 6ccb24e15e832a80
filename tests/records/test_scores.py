"""Records own their JSON: what the run folder held before they were typed (layer results as
dicts, journal lines, checkpoint summaries, hall-of-fame entries) loads into records and writes
back unchanged."""

import json

from records import Evaluation, HofEntry, LayerResult, Score, Task

FUNCTIONAL = {
    "passed": True,
    "score": 1.0,
    "reason": "",
    "category": None,
    "details": {"failures": {"tests/test_a.py::test_a": {"id": "tests/test_a.py::test_a", "kind": "compare"}}},
}
QUALITY = {"passed": False, "score": 0.4, "reason": "weak tests", "category": "judge_reject", "details": {}}


def task_json(instance_id: str = "demo__a-1") -> dict:
    """A task line as `Task.to_dict` wrote it when `validation` was a dict of dicts."""
    task = Task(instance_id, "demo/lib", "b" * 40, "", "", "statement", "", "BUG_FIX", "s1")
    task.FAIL_TO_PASS = ["tests/test_a.py::test_a"]
    data = task.to_dict()
    data["validation"] = {"functional": FUNCTIONAL, "quality": QUALITY}
    return json.loads(json.dumps(data))


def test_a_task_from_old_json_has_typed_layer_results_and_writes_the_same_json():
    data = task_json()
    task = Task.from_dict(data)
    functional = task.validation["functional"]
    assert isinstance(functional, LayerResult) and functional.passed and functional.details == FUNCTIONAL["details"]
    assert not task.passed and task.failed_layer() == ("quality", LayerResult(**QUALITY))
    assert [e.test_id for e in task.failure_evidence()] == ["tests/test_a.py::test_a"]
    assert task.to_dict() == data


def test_record_keeps_a_copy_of_the_layer_result():
    task = Task.from_dict(task_json())
    result = LayerResult(True, 0.9, "ok", details={"criteria": {"task_correctness": {"score": 9}}})
    task.record("quality", result)
    result.details["criteria"]["task_correctness"]["score"] = 1
    assert task.validation["quality"].details["criteria"]["task_correctness"]["score"] == 9


def test_an_old_journal_line_loads_with_task_objects_and_its_validations_counted():
    line = {
        "strategy_id": "s1",
        "genome_hash": "h1",
        "sample": 2,
        "generation": 2,
        "attempts": 2,
        "passed": 0,
        "failure_categories": ["judge_reject"],
        "tasks": [task_json("a"), {**task_json("b"), "validation": {"compile": {**QUALITY, "category": "x"}}}],
        "usage": {"calls": 2},
    }  # written before evaluations recorded their validations
    evaluation = Evaluation.from_dict(line)
    assert all(isinstance(t, Task) for t in evaluation.tasks) and evaluation.generation == 2
    assert evaluation.validations == 1  # only the first task reached the functional layer
    assert evaluation.to_dict() == {**line, "validations": 1}


def test_a_checkpoint_summary_without_tasks_loads():
    summary = {"strategy_id": "s1", "genome_hash": "h1", "generation": 1, "sample": 1, "attempts": 3, "passed": 1,
               "failure_categories": ["no_f2p"], "usage": {}}  # fmt: skip
    evaluation = Evaluation.from_dict(summary)
    assert evaluation.tasks == [] and evaluation.attempts == 3 and evaluation.validations == 0


def test_a_score_writes_the_scores_file_entry():
    entry = {"exploration_value": 0.5, "dimensions": {"quality": 0.6}, "attempts": 3, "passed": 2,
             "failure_categories": ["leakage"], "novelties": {"a": 0.3, "b": 0.7}, "validations": 3,
             "kept_per_validation": 0.6667, "failure_routes": ["prompt"], "fitness": 0.5,
             "scored_at_generation": 2, "archive_tasks": 9}  # fmt: skip
    score = Score.from_dict(entry)
    assert score.to_dict() == entry and score.validations_per_kept == 1.5


def test_a_hall_of_fame_entry_round_trips_and_old_entries_load():
    entry = {"id": "abc", "generation": 2, "exploration_value": 0.52, "fitness": 0.52,
             "dimensions": {"quality": 0.8}, "strategy_type": "BUG_FIX",
             "params": {"temperature": 0.7, "top_p": 0.9, "max_tokens": 800}, "genes": {"sel_link": 0.1},
             "prompt": "p", "parents": ["x", "y"], "operator": "crossover", "tasks_passed": 2,
             "tasks_attempted": 3, "validations": 3, "validations_per_kept": 1.5,
             "novelty_reference": {"generation": 3, "archive_tasks": 9}}  # fmt: skip
    hof = HofEntry.from_dict(entry)
    assert (hof.novelty_generation, hof.novelty_archive_tasks) == (3, 9)
    assert hof.to_dict() == entry
    older = {k: v for k, v in entry.items() if k not in ("fitness", "genes", "operator", "novelty_reference")}
    loaded = HofEntry.from_dict(older)
    assert (loaded.fitness, loaded.genes, loaded.operator, loaded.novelty_generation) == (0.52, {}, "seed", None)
