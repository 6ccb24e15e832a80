"""`sebgen generate` validating in real containers: tasks name their environment image."""

import json
import subprocess
import time
from pathlib import Path

import pytest

from corpus.builder import ensure_corpus
from tests.e2e import sebgen
from tests.sandbox_fixtures import require_docker

pytestmark = pytest.mark.docker


def _sebgen_containers() -> dict[str, str]:
    """SEBGen's containers on this engine: id -> the pid of the process that owns it."""
    listed = subprocess.run(
        ["docker", "ps", "-a", "--filter", "label=sebgen=1", "--format", '{{.ID}} {{.Label "sebgen.pid"}}'],
        capture_output=True,
        text=True,
    ).stdout.split("\n")
    return dict(line.split(" ", 1) for line in listed if " " in line)


def _left_by_exited_owners(before: dict[str, str]) -> set[str]:
    """Containers created since `before` whose owning process has exited (other live runs may share the engine)."""
    return {cid for cid, pid in _sebgen_containers().items() if cid not in before and not Path(f"/proc/{pid}").exists()}


def test_generate_validates_in_containers_and_names_the_image(tmp_path):
    require_docker()
    repo = next(p for p in ensure_corpus() if p.name == "taskq")
    out = tmp_path / "t.jsonl"
    before = _sebgen_containers()
    proc = sebgen(
        "generate",
        repo,
        "--strategy",
        "BUG_FIX",
        "--n",
        "2",
        "--out",
        out,
        "--set",
        "sandbox.backend=docker",
        "--set",
        "sandbox.reruns=1",
        check=True,
    )
    assert "using Docker engine" in proc.stderr
    tasks = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(tasks) == 2
    images = {t["image"] for t in tasks}
    assert len(images) == 1, images  # one environment image for the snapshot, shared by its tasks
    image = images.pop()
    assert image.startswith("sebgen-env:")
    assert subprocess.run(["docker", "image", "inspect", image], capture_output=True).returncode == 0
    # warm containers end with their owner (a lease, not a cleanup in the owner): allow the engine
    # a bounded while to remove them after the process exits
    deadline = time.monotonic() + 90
    while (left := _left_by_exited_owners(before)) and time.monotonic() < deadline:
        time.sleep(1)
    assert left == set()


def test_auto_without_a_usable_base_image_falls_back_to_local_and_says_how_to_fix_it():
    require_docker()
    from environment import make_sandbox

    messages = []
    backend = make_sandbox(
        "auto", base_image="sebgen-absent:1", offline_base_image="sebgen-absent:2", log=messages.append
    )
    try:
        assert backend.name == "local"
        assert any("sebgen doctor --build-base-image" in m for m in messages), messages
    finally:
        backend.close()
