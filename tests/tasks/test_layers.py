"""Each validation layer rejects what it exists for, with the reason and category recorded."""

import difflib
import json
from pathlib import Path

import pytest

from environment import make_sandbox
from llm.client import LLMClient
from records import LayerResult, Task
from sandbox import Limits
from tasks.generate import skeleton
from tasks.statement import file_at
from tasks.strategy import SEED_PROMPTS, Strategy, StrategyType
from tasks.validate import (
    Validator,
    bottom_quartile_filter,
    check_compile,
    check_functional_layer,
    check_quality,
    check_schema,
    check_semantic,
    run_layers,
)
from tests.fitness_fixtures import candidate_for, corpus_dir
from tests.task_records import JUDGED_CRITERIA, judge_criteria, task_record

STRATEGY = Strategy(StrategyType.BUG_FIX, SEED_PROMPTS[StrategyType.BUG_FIX][1])


def make_diff(path: str, old: str, new: str) -> str:
    lines = difflib.unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True), f"a/{path}", f"b/{path}")
    return "".join(lines)


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    return corpus_dir(tmp_path_factory)


@pytest.fixture(scope="module")
def binary_search_task(root):
    candidate = candidate_for(root, "Fix binary_search missing")
    return candidate, skeleton(candidate, STRATEGY)


def test_schema_rejects_a_missing_field(binary_search_task):
    _, task = binary_search_task
    broken = Task.from_dict({**task.to_dict(), "repo": None})
    result = check_schema(broken, require_f2p=False, require_statement=False)
    assert not result.passed and result.category == "schema"
    assert "repo" in result.reason


def test_schema_rejects_an_empty_f2p_list_when_required(binary_search_task):
    _, task = binary_search_task
    result = check_schema(Task.from_dict({**task.to_dict(), "problem_statement": "x"}), require_f2p=True)
    assert not result.passed and result.category == "no_f2p"


def test_compile_rejects_a_bug_patch_that_does_not_compile(root, binary_search_task):
    candidate, task = binary_search_task
    path = candidate.source_files[0]
    text = file_at(candidate.repo_path, candidate.sha, path) + "\n"  # git show drops the last newline
    broken = Task.from_dict({**task.to_dict(), "bug_patch": make_diff(path, text, text + "\ndef broken(:\n")})
    result = check_compile(broken, Path(candidate.repo_path))
    assert not result.passed and result.category == "compile_error"
    assert "buggy state does not compile" in result.reason
    assert check_compile(task, Path(candidate.repo_path)).passed  # the real task compiles


def test_functional_rejects_a_task_whose_tests_already_pass_before_the_fix(root, binary_search_task):
    candidate, task = binary_search_task
    path = candidate.source_files[0]
    text = file_at(candidate.repo_path, candidate.sha, path) + "\n"  # git show drops the last newline
    harmless = text + "\n# a comment changes no behaviour\n"
    noop = Task.from_dict(
        {**task.to_dict(), "bug_patch": make_diff(path, text, harmless), "patch": make_diff(path, harmless, text)}
    )
    validator = Validator(backend=make_sandbox("local", limits=Limits(timeout_s=60)), reruns=1)
    result = check_functional_layer(noop, validator, Path(candidate.repo_path))
    assert not result.passed and result.category == "no_f2p"
    assert noop.FAIL_TO_PASS == []


def judged(name: str, scores: tuple[float, float, float]) -> Task:
    task = task_record(name)
    criteria = judge_criteria(dict(zip(JUDGED_CRITERIA, scores)))
    task.record("quality", LayerResult(True, 0.8, "ok", details={"criteria": criteria}))
    return task


def test_quality_drops_the_bottom_quartile_of_a_batch():
    batch = [judged(f"t{i}", (8, 8, 8)) for i in range(6)] + [judged("weak", (8, 3, 8))]
    rejected = bottom_quartile_filter(batch)
    assert [t.instance_id for t in rejected] == ["weak"]
    weak = batch[-1].validation["quality"]
    assert not weak.passed and weak.category == "judge_reject"
    assert "test_correctness" in weak.reason
    assert all(t.passed for t in batch[:-1])


def test_quality_judge_rejects_low_mocked_scores(binary_search_task):
    _, task = binary_search_task
    low = {
        c: {"score": 2, "confidence": 0.9, "reasoning": "weak"}
        for c in ("task_correctness", "test_correctness", "test_completeness", "complexity")
    }
    validator = Validator(llm=LLMClient(mock_response=json.dumps(low)))
    result = check_quality(task, validator)
    assert not result.passed and result.category == "judge_reject"
    assert result.details["mean"] == 2.0


def test_quality_rejection_of_a_leaking_statement_is_filed_as_leakage(binary_search_task):
    """The root cause, found mechanically, is what prompt mutation needs to learn from."""
    _, task = binary_search_task
    added = [ln[1:] for ln in task.patch.splitlines() if ln.startswith("+") and not ln.startswith("+++")]
    low = {
        c: {"score": 2, "confidence": 0.9, "reasoning": "quotes the patch"}
        for c in ("task_correctness", "test_correctness", "test_completeness", "complexity")
    }
    validator = Validator(llm=LLMClient(mock_response=json.dumps(low)))
    leaky = Task.from_dict({**task.to_dict(), "problem_statement": "Broken. Fix:\n" + "\n".join(added)})
    clean = Task.from_dict({**task.to_dict(), "problem_statement": "binary_search misses the last element."})
    assert check_quality(leaky, validator).category == "leakage"
    assert check_quality(clean, validator).category == "judge_reject"
    assert "weakest: task_correctness 2: quotes the patch" in check_quality(clean, validator).reason


def test_semantic_rejects_a_statement_that_contains_the_fix(binary_search_task):
    _, task = binary_search_task
    added = [ln[1:] for ln in task.patch.splitlines() if ln.startswith("+") and not ln.startswith("+++")]
    leaky = Task.from_dict({**task.to_dict(), "problem_statement": "Please change it to:\n" + "\n".join(added)})
    high = {"clarity": {"score": 9}, "solvability": {"score": 9}}
    result = check_semantic(leaky, Validator(llm=LLMClient(mock_response=json.dumps(high))))
    assert not result.passed and result.category == "leakage"


def test_run_layers_stops_at_the_first_failed_layer(root, binary_search_task):
    candidate, task = binary_search_task
    broken = Task.from_dict({**task.to_dict(), "repo": None})
    run_layers(broken, Validator(), Path(candidate.repo_path))
    assert list(broken.validation) == ["schema"] and broken.failed_layer()[0] == "schema"
