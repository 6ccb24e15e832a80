"""Harbor itself (0.25, its own venv, Docker Compose v2) on SEBGen's Harbor export: `harbor lint` with its
default rules passes and `harbor run` gives the oracle 1 and nop 0 on a bundled-corpus task and on a
task from a real repository. Exported with --network public: Harbor's docker backend enforces
no-network with egress-control images pulled from a registry, and none answers here."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from records import read_jsonl, write_jsonl
from tests.e2e import sebgen
from tests.interop_fixtures import bundled_task, docker_config, export_base_image, harbor_bin, real_repo_task

pytestmark = [
    pytest.mark.interop,
    pytest.mark.docker,
    pytest.mark.slow,
    pytest.mark.timeout(2400),
]  # generation, image builds and the client runs: minutes each on 2 cores


@pytest.fixture(scope="module")
def exported(tmp_path_factory) -> tuple[Path, list[str]]:
    """One bundled-corpus task and one real-repository task, exported as one Harbor dataset folder."""
    harbor_bin(), docker_config()
    base = export_base_image()
    work = tmp_path_factory.mktemp("harbor")
    bundled = next(iter(read_jsonl(bundled_task())))
    real = next(iter(read_jsonl(real_repo_task())))
    tasks = work / "tasks.jsonl"
    write_jsonl([bundled, real], tasks)
    proc = sebgen(
        "export", tasks, "--format", "harbor", "--out", work / "dataset", "--network", "public", "--base-image", base
    )
    assert proc.returncode == 0, proc.stderr
    return work / "dataset", [bundled.instance_id, real.instance_id]


def _harbor(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "DOCKER_CONFIG": docker_config(), "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    return subprocess.run(
        [harbor_bin(), *map(str, args)], cwd=cwd, env=env, capture_output=True, text=True, timeout=1800
    )


def _rewards(jobs: Path, job: str) -> dict[str, float]:
    """Reward per task from the job's trial results."""
    rewards = {}
    for result in (jobs / job).glob("*/result.json"):
        data = json.loads(result.read_text())
        rewards[data["task_name"]] = (data.get("verifier_result") or {}).get("rewards", {}).get("reward")
    return rewards


def test_harbor_lint_passes_with_its_default_rules(exported):
    dataset, ids = exported
    proc = _harbor("lint", *(dataset / i for i in ids), cwd=dataset)
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.parametrize("agent, expected", [("oracle", 1.0), ("nop", 0.0)])
def test_harbor_run_rewards_the_oracle_and_not_nop(exported, agent, expected, tmp_path):
    dataset, ids = exported
    proc = _harbor(
        "run",
        "-p",
        dataset,
        "-a",
        agent,
        "-e",
        "docker",
        "-n",
        "2",
        "-o",
        tmp_path / "jobs",
        "--job-name",
        agent,
        "-q",
        cwd=tmp_path,
    )
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-3000:]
    rewards = _rewards(tmp_path / "jobs", agent)
    assert rewards == {i: expected for i in ids}, (proc.stdout + proc.stderr)[-3000:]
