"""A real repository through `sebgen generate` in Docker: one verified commit of one bundle from
../shared/real-repos becomes a task whose FAIL_TO_PASS holds the verified test."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from corpus import dev_set
from tests.e2e import sebgen
from tests.sandbox_fixtures import require_docker

pytestmark = [pytest.mark.docker, pytest.mark.slow]
REAL = dev_set("python")
BUNDLE = "mahmoud__boltons.bundle"
COMMIT = "ec1ff9f672"  # first-parent bug fix; flit_core build, no dependencies: a quick image


def verified_record() -> dict:
    if not (REAL / "commits.json").exists():
        message = f"the real-repository bundles are not at {REAL}"
        if os.environ.get("SEBGEN_REQUIRE_DOCKER") == "1":
            pytest.fail(message)
        pytest.skip(message)
    return next(r for r in json.loads((REAL / "commits.json").read_text()) if r["commit"].startswith(COMMIT))


def test_a_verified_commit_of_a_real_repo_becomes_a_task(tmp_path):
    require_docker()
    record = verified_record()
    repo = tmp_path / "mahmoud__boltons"
    subprocess.run(["git", "clone", "-q", str(REAL / BUNDLE), str(repo)], check=True)
    out = tmp_path / "tasks.jsonl"
    proc = sebgen(
        "generate",
        repo,
        "--commit",
        record["commit"],
        "--n",
        "1",
        "--out",
        out,
        "--set",
        "sandbox.backend=docker",
        timeout=1500,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    tasks = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(tasks) == 1, proc.stderr[-3000:]
    assert set(record["tests"]) <= set(tasks[0]["FAIL_TO_PASS"])
    assert tasks[0]["environment_setup"]["recipe"]["install_project"] is True
