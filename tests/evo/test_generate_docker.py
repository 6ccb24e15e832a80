"""`sebgen generate` validating in real containers: tasks name their environment image."""

import json
import subprocess
import time

import pytest

from corpus.builder import ensure_corpus
from tests.e2e import sebgen
from tests.sandbox_fixtures import require_docker

pytestmark = pytest.mark.docker


def test_generate_validates_in_containers_and_names_the_image(tmp_path):
    require_docker()
    repo = next(p for p in ensure_corpus() if p.name == "taskq")
    out = tmp_path / "t.jsonl"
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
    while True:
        left = subprocess.run(["docker", "ps", "-aq", "--filter", "label=sebgen=1"], capture_output=True, text=True)
        if not left.stdout.strip() or time.monotonic() > deadline:
            break
        time.sleep(1)
    assert left.stdout.strip() == ""


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
