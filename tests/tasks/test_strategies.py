"""Strategy contracts (docs/strategies.md), each shown on one bundled task, and the yield."""

import tempfile
from pathlib import Path

import pytest

from corpus.builder import load_manifest
from environment import make_sandbox
from llm.client import LLMClient
from sandbox import Limits, apply_patch, export_tree
from tasks.generate import TEST_DRIVEN_RULE, Generator, pick_candidates, strategy_instructions
from tasks.mining import mine
from tasks.statement import defined_functions, file_at
from tasks.strategy import SEED_PROMPTS, Strategy, StrategyType
from tasks.synthesis import generate_synthetic, synthesize
from tasks.validate import Validator
from tests.fitness_fixtures import candidate_for, corpus_dir, manifest_commit

NEVER_REVEAL = "Never reveal the fix."


def strategy(stype: StrategyType, prompt: str | None = None) -> Strategy:
    text = prompt or SEED_PROMPTS[stype][-1]
    return Strategy(stype, text if "Never reveal the fix" in text else f"{text} {NEVER_REVEAL}")


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    return corpus_dir(tmp_path_factory)


@pytest.fixture(scope="module")
def generator():
    llm = LLMClient()
    backend = make_sandbox("local", limits=Limits(timeout_s=60))
    return Generator(llm, Validator(backend=backend, llm=llm, reruns=1))


def buggy_file(task, path: str) -> str:
    with tempfile.TemporaryDirectory() as tmp:
        tree = export_tree(Path(task.repo_path), task.base_commit, Path(tmp) / "t")
        apply_patch(tree, task.bug_patch)
        return (tree / path).read_text(encoding="utf-8")


def test_bug_fix_reverses_the_fixing_commit(root, generator):
    candidate = candidate_for(root, "Fix binary_search missing")
    task = generator.generate(candidate, strategy(StrategyType.BUG_FIX))
    assert task.passed, task.failed_layer()
    assert task.base_commit == candidate.sha
    path = candidate.source_files[0]
    assert buggy_file(task, path).rstrip("\n") == file_at(candidate.repo_path, candidate.parent, path)
    _, commit = manifest_commit(load_manifest(root), "Fix binary_search missing")
    assert set(commit["fail_to_pass"]) <= set(task.FAIL_TO_PASS)


def test_feature_add_buggy_state_lacks_the_feature_function(root, generator):
    candidate = candidate_for(root, "Add lower_bound")
    task = generator.generate(candidate, strategy(StrategyType.FEATURE_ADD))
    assert task.passed, task.failed_layer()
    assert candidate.added_functions == ["lower_bound"]
    buggy = defined_functions(buggy_file(task, candidate.source_files[0]))
    fixed = defined_functions(file_at(candidate.repo_path, candidate.sha, candidate.source_files[0]))
    assert "lower_bound" in fixed and "lower_bound" not in buggy


def test_refactor_tests_pin_the_new_api(root, generator):
    candidate = candidate_for(root, "Make periods_per_year keyword-only")
    assert candidate.kind == "refactor"
    task = generator.generate(candidate, strategy(StrategyType.REFACTOR))
    assert task.passed, task.failed_layer()
    assert "tests/test_interest.py::test_compound_frequency_is_keyword_only" in task.FAIL_TO_PASS


def test_test_driven_statement_names_every_failing_test(root, generator):
    terse = Strategy(StrategyType.TEST_DRIVEN, "Write a specification for {repo}. Never reveal the fix.")
    assert strategy_instructions(terse, "algos").endswith(TEST_DRIVEN_RULE)
    candidate = candidate_for(root, "Validate job priorities")
    task = generator.generate(candidate, terse)
    assert task.FAIL_TO_PASS and task.problem_statement
    for test_id in task.FAIL_TO_PASS:
        assert test_id.split("::")[-1].split("[")[0] in task.problem_statement, test_id


def test_hybrid_merges_a_bug_fix_and_a_feature_of_the_same_repo(root, generator):
    candidate = candidate_for(root, "Fix binary_search missing")
    task = generator.generate(candidate, strategy(StrategyType.HYBRID))
    first, later = task.generation["combined_commits"]
    truth = {c["sha"]: c for c in load_manifest(root)["repos"]["algos"]["commits"]}
    assert {truth[first]["kind"], truth[later]["kind"]} == {"bug_fix", "feature_add"}
    assert task.base_commit == later and candidate.sha in (first, later)
    assert not set(truth[first]["source_files"]) & set(truth[later]["source_files"])
    assert task.passed, task.failed_layer()
    assert set(truth[first]["fail_to_pass"]) | set(truth[later]["fail_to_pass"]) <= set(task.FAIL_TO_PASS)


def test_synthesis_is_seeded_and_its_tasks_are_caught_by_existing_tests(root, generator):
    first, again, other = (synthesize(root / "algos", 4, s) for s in (7, 7, 8))
    assert [t.bug_patch for t in first] == [t.bug_patch for t in again]
    assert [t.bug_patch for t in first] != [t.bug_patch for t in other]
    for task in first:
        assert task.test_patch == "" and task.strategy_type == "SYNTHETIC"
        assert task.generation["mutation"] in ("flip_comparison", "off_by_one", "drop_guard", "swap_arguments")
    tasks = generate_synthetic(root / "algos", generator, strategy(StrategyType.BUG_FIX), n=1, seed=7)
    kept = [t for t in tasks if t.passed]
    assert len(kept) == 1 and kept[0].FAIL_TO_PASS


@pytest.mark.slow
def test_every_strategy_yields_three_tasks_passing_all_five_layers(root, generator):
    candidates = [c for name in sorted(load_manifest(root)["repos"]) for c in mine(root / name).candidates]
    yields = {}
    for stype in StrategyType:
        tried = kept = 0
        for candidate in pick_candidates(candidates, stype):
            task = generator.generate(candidate, strategy(stype))
            tried, kept = tried + 1, kept + task.passed
            if kept >= 3:
                break
        yields[stype.value] = (kept, tried)
    tried = kept = 0
    for name in sorted(load_manifest(root)["repos"]):
        tasks = generate_synthetic(root / name, generator, strategy(StrategyType.BUG_FIX), n=1, seed=0)
        tried, kept = tried + len(tasks), kept + sum(t.passed for t in tasks)
    yields["SYNTHETIC"] = (kept, tried)
    print("yield (kept, tried):", yields)
    assert all(k >= 3 for k, _ in yields.values()), yields
