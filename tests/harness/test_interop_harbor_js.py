"""Harbor itself (0.25, .ci/provision_interop.sh) on SEBGen's Harbor export of JavaScript tasks:
`harbor lint` passes and `harbor run` gives the oracle 1 and nop 0 on two tasks that the
production path made (mining, the Generator with the offline model, the Validator on
`make_sandbox("docker")`) from tests/data/js/tiny-node-test with one fix commit per bug.
Exported with --network public, as tests/harness/test_interop_harbor.py explains."""

from __future__ import annotations

from pathlib import Path

import pytest

from records import write_jsonl
from tests.e2e import sebgen
from tests.harness.js_tasks import MATH_TEST, fix_history
from tests.interop_fixtures import docker_config, export_base_image, harbor, harbor_bin, harbor_run_rewards

pytestmark = [pytest.mark.interop, pytest.mark.docker, pytest.mark.slow, pytest.mark.timeout(2400)]


def _generated_js_tasks(work: Path) -> list:
    from environment import make_sandbox
    from llm.client import LLMClient
    from sandbox import BuildError, Limits
    from tasks.generate import Generator
    from tasks.mining import mine
    from tasks.strategy import SEED_PROMPTS, Strategy, StrategyType
    from tasks.validate import Validator

    repo = fix_history(work / "tiny-node-test")
    candidates = mine(repo).candidates
    assert [c.language for c in candidates] == ["javascript", "javascript"]
    backend = make_sandbox("docker", limits=Limits(timeout_s=60), cache_dir=work / "cache", log=lambda m: None)
    try:
        llm = LLMClient()
        generator = Generator(llm=llm, validator=Validator(backend=backend, llm=llm))
        strategy = Strategy(strategy_type=StrategyType.BUG_FIX, prompt=SEED_PROMPTS[StrategyType.BUG_FIX][0])
        tasks = [generator.generate(candidate, strategy) for candidate in candidates]
    except BuildError as exc:
        pytest.skip(f"the JS environment does not build here: {exc}")
    finally:
        backend.close()
    for task in tasks:
        assert task.failed_layer() is None, task.failed_layer()
    return tasks


@pytest.fixture(scope="module")
def exported(tmp_path_factory) -> tuple[Path, list[str]]:
    harbor_bin(), docker_config()
    base = export_base_image()
    work = tmp_path_factory.mktemp("harbor-js")
    tasks = _generated_js_tasks(work)
    assert sorted(t.FAIL_TO_PASS[0] for t in tasks) == [f"{MATH_TEST}::math > adds", f"{MATH_TEST}::math > subtracts"]
    write_jsonl(tasks, work / "tasks.jsonl")
    proc = sebgen(
        "export",
        work / "tasks.jsonl",
        "--format",
        "harbor",
        "--out",
        work / "dataset",
        "--network",
        "public",
        "--base-image",
        base,
    )
    assert proc.returncode == 0, proc.stderr
    return work / "dataset", [t.instance_id for t in tasks]


def test_harbor_lint_passes_on_js_tasks(exported):
    dataset, ids = exported
    proc = harbor("lint", *(dataset / i for i in ids), cwd=dataset)
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.parametrize("agent, expected", [("oracle", 1.0), ("nop", 0.0)])
def test_harbor_run_rewards_the_oracle_and_not_nop_on_js_tasks(exported, agent, expected, tmp_path):
    dataset, ids = exported
    rewards, output = harbor_run_rewards(dataset, agent, tmp_path)
    assert rewards == {i: expected for i in ids}, output
