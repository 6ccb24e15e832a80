"""Where the real clients (Harbor, the SWE-bench harness) and the export base image are, and the gate:
skip with a reason, or fail when SEBGEN_REQUIRE_INTEROP=1 (CI provisions them with
.ci/provision_interop.sh, which also prints the variables read here)."""

from __future__ import annotations

import atexit
import functools
import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from corpus import dev_set
from sandbox import file_lock
from tests.sandbox_fixtures import require_docker

CACHE = Path.home() / ".cache" / "sebgen" / "interop-venvs"
HINT = "run `bash .ci/provision_interop.sh` (CI does)"
REAL_REPOS = dev_set("python")


def _missing(what: str) -> None:
    if os.environ.get("SEBGEN_REQUIRE_INTEROP") == "1":
        pytest.fail(f"SEBGEN_REQUIRE_INTEROP=1 but {what}")
    pytest.skip(f"{what}; {HINT}")


def export_base_image() -> str:
    """The base image exported Dockerfiles start from on this machine (pip here needs the host's CA)."""
    require_docker()
    name = os.environ.get("SEBGEN_INTEROP_BASE_IMAGE", "sebgen-interop-base:bookworm")
    if subprocess.run(["docker", "image", "inspect", name], capture_output=True).returncode != 0:
        _missing(f"the export base image {name} does not exist")
    return name


def _tool(variable: str, default: Path, what: str) -> str:
    """The path in `variable` (or `default`) when it exists; else skip or fail with `what`."""
    path = Path(os.environ.get(variable, str(default)))
    if not path.exists():
        _missing(f"{what} is not at {path}")
    return str(path)


def harbor_bin() -> str:
    return _tool("SEBGEN_HARBOR_BIN", CACHE / "harbor" / "bin" / "harbor", "Harbor")


def docker_config() -> str:
    """A DOCKER_CONFIG whose cli-plugins hold Docker Compose v2 (Harbor's docker backend runs it)."""
    plugin = _tool("DOCKER_CONFIG", CACHE / "docker-config", "a DOCKER_CONFIG") + "/cli-plugins/docker-compose"
    return str(Path(_tool("SEBGEN_COMPOSE_PLUGIN", Path(plugin), "the docker-compose plugin")).parents[1])


def harbor(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    """The real Harbor CLI, with Docker Compose v2 in reach."""
    env = {**os.environ, "DOCKER_CONFIG": docker_config(), "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    return subprocess.run(
        [harbor_bin(), *map(str, args)], cwd=cwd, env=env, capture_output=True, text=True, timeout=1800
    )


def harbor_run_rewards(dataset: Path, agent: str, work: Path) -> tuple[dict[str, float], str]:
    """Run `agent` over every task folder of `dataset` in Harbor; its reward per task, and its output."""
    proc = harbor(
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
        work / "jobs",
        "--job-name",
        agent,
        "-q",
        cwd=work,
    )
    output = (proc.stdout + proc.stderr)[-3000:]
    assert proc.returncode == 0, output
    rewards = {}
    for result in (work / "jobs" / agent).glob("*/result.json"):
        data = json.loads(result.read_text())
        rewards[data["task_name"]] = (data.get("verifier_result") or {}).get("rewards", {}).get("reward")
    return rewards, output


def swebench_python() -> str:
    return _tool("SEBGEN_SWEBENCH_PYTHON", CACHE / "swebench" / "bin" / "python", "the swebench venv")


@functools.cache
def _generated(kind: str) -> Path:
    """Tasks generated once per test session and shared by the interop modules (they are read-only).

    Under pytest-xdist the workers of one run share them too: the first worker generates them
    under a lock in a folder named by the run's id, the others wait and read."""
    from tests.e2e import generated_tasks

    run_id = os.environ.get("PYTEST_XDIST_TESTRUNUID")
    if run_id is None:
        work = Path(tempfile.mkdtemp(prefix=f"sebgen-interop-{kind}-"))
        atexit.register(shutil.rmtree, work, True)
        return generated_tasks(work, 1) if kind == "bundled" else _real_repo_task(work)
    shared = Path(tempfile.gettempdir()) / f"sebgen-interop-{run_id}" / kind
    shared.mkdir(parents=True, exist_ok=True)
    with file_lock(shared / ".lock"):
        done = shared / "tasks.path"
        if not done.is_file():
            done.write_text(str(generated_tasks(shared, 1) if kind == "bundled" else _real_repo_task(shared)))
        return Path(done.read_text())


def bundled_task() -> Path:
    """One task from the bundled corpus (pyledger)."""
    return _generated("bundled")


def real_repo_task() -> Path:
    """One task from a real repository of ../shared/real-repos (mahmoud/boltons)."""
    if not REAL_REPOS.is_dir():
        _missing(f"{REAL_REPOS} does not exist")
    return _generated("real")


def _real_repo_task(directory: Path, repo: str = "mahmoud/boltons", commit_prefix: str = "c2b04b4cb1") -> Path:
    from tests.e2e import generate_kept

    record = next(
        c
        for c in json.loads((REAL_REPOS / "commits.json").read_text())
        if c["repo"] == repo and c["commit"].startswith(commit_prefix)
    )
    clone = Path(directory) / repo.split("/")[1]
    subprocess.run(
        ["git", "clone", "-q", str(REAL_REPOS / f"{repo.replace('/', '__')}.bundle"), str(clone)], check=True
    )
    out = Path(directory) / "real-tasks.jsonl"
    return generate_kept(
        out,
        clone,
        "--commit",
        record["commit"],
        "--n",
        "1",
        "--set",
        "sandbox.backend=local",
        "--set",
        "sandbox.reruns=1",
    )
