"""Harbor itself (0.25, its own venv, Docker Compose v2) on SEBGen's Harbor export: `harbor lint` with its
default rules passes and `harbor run` gives the oracle 1 and nop 0 on a bundled-corpus task and on a
task from a real repository. Exported with --network public: Harbor's docker backend enforces
no-network with egress-control images pulled from a registry, and none answers here."""

from __future__ import annotations

from pathlib import Path

import pytest

from records import read_jsonl, write_jsonl
from tests.e2e import sebgen
from tests.interop_fixtures import (
    bundled_task,
    docker_config,
    export_base_image,
    harbor,
    harbor_bin,
    harbor_run_rewards,
    real_repo_task,
)

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


def test_harbor_lint_passes_with_its_default_rules(exported):
    dataset, ids = exported
    proc = harbor("lint", *(dataset / i for i in ids), cwd=dataset)
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.parametrize("agent, expected", [("oracle", 1.0), ("nop", 0.0)])
def test_harbor_run_rewards_the_oracle_and_not_nop(exported, agent, expected, tmp_path):
    dataset, ids = exported
    rewards, output = harbor_run_rewards(dataset, agent, tmp_path)
    assert rewards == {i: expected for i in ids}, output
