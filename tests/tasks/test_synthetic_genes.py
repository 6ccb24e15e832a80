"""SYNTHETIC as an evolvable type: coverage measured once per snapshot through the sandbox, only
executed functions targeted, held-out modules kept out, and the strategy's id on its tasks.
Runs the tiny repository's suite in the local sandbox."""

from __future__ import annotations

import os

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import git
import pytest

from environment import make_sandbox
from fitness.strategy_eval import EvalSettings, evaluate_strategy, synthetic_targets
from llm import LLMClient
from sandbox import Limits
from tasks import MODULE_KIND, Candidate, Strategy, StrategyType, Validator
from tasks.generate import Generator
from tasks.synthesis import executed_functions, mutation_sites
from tests.tasks.test_genes import PROMPT, SYN, synthetic_repo  # noqa: F401 - a fixture


@pytest.fixture
def backend(tmp_path, monkeypatch):
    monkeypatch.setenv("SEBGEN_CACHE", str(tmp_path / "cache"))  # a cold coverage cache
    with make_sandbox("local", limits=Limits(timeout_s=120)) as b:
        yield b


def test_coverage_is_measured_once_and_names_only_the_functions_the_suite_runs(synthetic_repo, backend):  # noqa: F811
    head = git.Repo(synthetic_repo).head.commit.hexsha
    executed = executed_functions(backend, synthetic_repo, head)
    lines = {m.function: m.def_lines[0] for m in mutation_sites("synlib/core.py", SYN)}
    assert executed == {("synlib/core.py", lines["simple"])}  # the suite never calls branchy
    calls = []
    original = backend.run_tree
    backend.run_tree = lambda *a, **k: calls.append(a) or original(*a, **k)
    assert executed_functions(backend, synthetic_repo, head) == executed and calls == []  # cached per snapshot


@pytest.mark.slow  # the whole cascade: sandbox runs, the offline writer and judges
def test_a_synthetic_strategy_spends_its_validations_on_executed_functions(synthetic_repo, backend):  # noqa: F811
    llm = LLMClient()
    generator = Generator(llm=llm, validator=Validator(backend=backend, llm=llm, reruns=1))
    strategy = Strategy(StrategyType.SYNTHETIC, PROMPT)
    repo = Candidate(
        repo="synlib",
        repo_path=str(synthetic_repo),
        sha="",
        parent="",
        subject="module",
        body="",
        created_at="",
        source_files=["synlib/core.py"],
        test_files=[],
        kind=MODULE_KIND,
    )
    evaluation = evaluate_strategy(
        strategy, [repo], generator, EvalSettings(tasks_per_strategy=1, oversample=2, seed=1)
    )
    assert evaluation.attempts >= 1 and evaluation.validations >= 1
    for t in evaluation.tasks:
        assert t.generation["touched_functions"] == ["simple"]  # branchy is never executed
        assert t.strategy_id == strategy.id and t.instance_id.endswith(strategy.id[:6])
    assert evaluation.passed >= 1  # a mutation of `simple` fails test_simple
    held_out = Candidate(**{**repo.__dict__, "source_files": ["synlib/__init__.py"]})
    assert synthetic_targets([held_out]) == {str(synthetic_repo): {"synlib/__init__.py"}}
    nothing = evaluate_strategy(strategy, [held_out], generator, EvalSettings(tasks_per_strategy=1, oversample=2))
    assert nothing.attempts == 0  # the module split keeps the other modules out
