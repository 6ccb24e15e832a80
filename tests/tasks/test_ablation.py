"""Layer ablation: dropping a layer can only keep more tasks, never fewer."""

import json

import pytest

from llm.client import LLMClient
from records import Task
from tasks.generate import skeleton
from tasks.strategy import SEED_PROMPTS, Strategy, StrategyType
from tasks.validate import Validator, ablation
from tests.fitness_fixtures import candidate_for, corpus_dir

STRATEGY = Strategy(StrategyType.BUG_FIX, SEED_PROMPTS[StrategyType.BUG_FIX][1])
SCORES = {
    c: {"score": 8, "confidence": 1.0, "reasoning": ""}
    for c in ("task_correctness", "test_correctness", "test_completeness", "complexity")
}


@pytest.fixture(scope="module")
def tasks(tmp_path_factory):
    root = corpus_dir(tmp_path_factory)
    task = skeleton(candidate_for(root, "Fix binary_search missing"), STRATEGY)
    good = Task.from_dict(
        {
            **task.to_dict(),
            "problem_statement": "Searching misses the last element.",
            "FAIL_TO_PASS": ["tests/test_search.py::test_finds_every_element"],
        }
    )
    broken = Task.from_dict({**good.to_dict(), "instance_id": "broken", "bug_patch": "not a diff"})
    return [good, broken]


def test_ablation_counts_passes_per_layer_configuration(tasks):
    validator = Validator(llm=LLMClient(mock_response=json.dumps(SCORES)))
    rows = ablation(tasks, validator, [("quality",), ("schema", "quality")])
    assert [r["layers"] for r in rows] == [["quality"], ["schema", "quality"]]
    assert [r["passed"] for r in rows] == [2, 1]  # only the schema layer sees the broken bug_patch
    assert rows[0]["pass_rate"] == 1.0 and rows[1]["pass_rate"] == 0.5
    assert rows[1]["mean_score"] == pytest.approx((1.0 + 0.8) / 2)
    assert all(not t.validation for t in tasks)  # the inputs are left untouched
