"""The quartile filter of an evolution takes its cutoffs from the archive (kept tasks and the
judged rejects its failure rows hold) plus the generation's batch, never from rows of the
generation being decided, and says which task it dropped and why."""

import numpy as np

from archive import Archive
from evo.config import load_config
from evo.loop import Evolution, failure_row
from fitness import batch_filter
from records import Evaluation, LayerResult, Task
from tests.task_records import judge_criteria, task_record


def judged(name: str, completeness: float, semantic: bool = True) -> Task:
    task = task_record(name, problem_statement=f"statement of {name}", strategy_id="s")
    criteria = judge_criteria({"task_correctness": 9.0, "test_correctness": 9.0, "test_completeness": completeness})
    task.record("quality", LayerResult(True, 0.9, "ok", details={"criteria": criteria}))
    task.record("semantic", LayerResult(semantic, 0.9, "ok" if semantic else "vague", "" if semantic else "vague"))
    return task


def vectors(n: int, seed: int) -> np.ndarray:
    v = np.random.default_rng(seed).normal(size=(n, 8)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def test_the_cutoff_of_a_generation_comes_from_the_archive_plus_its_batch(tmp_path):
    config = load_config(None, ["fitness.quartile_min_judged=20"])
    lines: list[str] = []
    evolution = Evolution(config, tmp_path / "run", log=lines.append)
    archive = evolution.archive = Archive.open(tmp_path / "run" / "archive", model=config.archive.model)
    try:
        # generation 1 of the run: 16 kept tasks and 4 judged rejects (their failure rows keep the scores)
        kept = [judged(f"kept{i}", c).to_dict() for i, c in enumerate([7, 8, 8, 9] * 4)]
        archive.add_tasks(kept, generation=1, vectors=vectors(len(kept), 1))
        rejects = [judged(f"vague{i}", 7, semantic=False) for i in range(4)]
        archive.add_failures([failure_row(t, t.failed_layer()) for t in rejects], generation=1)
        # rows of generation 2 itself never count towards its own cutoffs
        late = [judged(f"late{i}", 10, semantic=False) for i in range(30)]
        archive.add_failures([failure_row(t, t.failed_layer()) for t in late], generation=2)

        batch = {"a": [judged("weak", 6), judged("fine", 8)], "b": [judged("good", 9)]}
        evolution.cache = {
            key: Evaluation(key, key, 2, len(tasks), len(tasks), [], tasks, {}, generation=2)
            for key, tasks in batch.items()
        }
        assert len(evolution._judged_before(2)) == 20
        after = {key: evolution._tasks_of(key) for key in batch}
        weak, fine = after["a"]
        assert not weak.validation["quality"].passed
        assert weak.validation["quality"].reason == (
            "bottom quartile of the 23 judged tasks of the run on test_completeness (6 < cutoff 7)"
        )
        assert fine.validation["quality"].passed and after["b"][0].validation["quality"].passed
        assert batch["a"][0].validation["quality"].passed  # the evaluation's own tasks are untouched
        # the batch alone (3 judged tasks) has no cutoffs: the drop came from the archive
        alone = batch_filter(batch, min_judged=20)
        assert all(t.validation["quality"].passed for items in alone.values() for t in items)

        archived: list[dict] = []  # what the generation archives (no embedding model needed to see it)
        archive.add_tasks = lambda tasks, generation: archived.extend(tasks)
        evolution._filtered.clear()
        evolution._fresh = lambda generation, offspring: list(batch)
        evolution._archive_generation(2, [])
        assert "generation 2: weak not kept: bottom quartile of the 23 judged tasks of the run" in "\n".join(lines)
        assert {t["instance_id"] for t in archived} == {"fine", "good"}
        [row] = [r for r in archive.recent_failures(n=100) if r["instance_id"] == "weak"]
        assert row["category"] == "judge_reject" and row["judged"]["test_completeness"] == 6.0
    finally:
        archive.close()
