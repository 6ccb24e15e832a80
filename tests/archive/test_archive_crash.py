"""Crash safety: a process SIGKILLed while writing leaves an archive that reopens consistent.

Each child is a real Python process with the real embedding model; it prints
`<instance_id> <row id>` only after add_tasks returned, so every printed task counts as added.
"""

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import logging
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from archive import Archive, get_embedder
from tests.archive.test_archive_support import many_statements

REPO = Path(__file__).resolve().parents[2]

CHILD = r"""
import os, signal, sys
from pathlib import Path
import archive.index
from archive import Archive

folder, mode, start = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
texts = sys.stdin.read().split("\n")

def die_on_call(n):
    # Fault injection: SIGKILL ourselves on the n-th call of the wrapped step.
    calls = [0]
    def wrap(real):
        def step(*args, **kwargs):
            calls[0] += 1
            if calls[0] == n:
                os.kill(os.getpid(), signal.SIGKILL)
            return real(*args, **kwargs)
        return step
    return wrap

if mode == "kill-before-index-save":   # rows committed, index file not yet rewritten
    archive.index.VectorIndex.save = die_on_call(3)(archive.index.VectorIndex.save)
if mode == "kill-before-rename":       # temp index written, rename not done
    archive.index.os.replace = die_on_call(3)(archive.index.os.replace)

arc = Archive.open(folder, approximate_above=int(os.environ.get("APPROX_ABOVE", "50000")))
if mode == "truncate":
    archive.index.VectorIndex.save = die_on_call(1)(archive.index.VectorIndex.save)
    arc.truncate_after(int(sys.argv[3]))
for batch in range(start, 10_000):
    chunk = texts[(batch * 2) % len(texts):(batch * 2) % len(texts) + 2] or texts[:2]
    tasks = [{"instance_id": f"t-{batch}-{j}", "problem_statement": text, "passed": (batch + j) % 3 != 0}
             for j, text in enumerate(chunk)]
    ids = arc.add_tasks(tasks, generation=batch)
    for t, i in zip(tasks, ids):
        print(t["instance_id"], i, flush=True)
"""


def run_child(
    folder: Path, mode: str, start: int = 0, kill_after_lines: int | None = None, env_extra: dict | None = None
) -> dict[str, int]:
    """Run the child; SIGKILL it after `kill_after_lines` lines (or let it kill itself).
    Returns {instance_id: row id} of every task it reported as added."""
    env = {**os.environ, "PYTHONPATH": str(REPO), "HF_HUB_OFFLINE": "1", **(env_extra or {})}
    stderr = open(folder.parent / f"child-{mode}-{start}.log", "w")  # a file, so a chatty child never blocks
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(folder), mode, str(start)],
        cwd=REPO,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=stderr,
        text=True,
    )
    child.stdin.write("\n".join(many_statements(60)))
    child.stdin.close()
    reported = {}
    for line in child.stdout:
        instance_id, row_id = line.split()
        reported[instance_id] = int(row_id)
        if kill_after_lines is not None and len(reported) >= kill_after_lines:
            child.send_signal(signal.SIGKILL)  # lands wherever the next add_tasks is
            break
    reported.update({ln.split()[0]: int(ln.split()[1]) for ln in child.stdout.read().splitlines() if ln.strip()})
    child.wait(timeout=120)
    stderr.close()
    assert child.returncode == -signal.SIGKILL, Path(stderr.name).read_text()[-2000:]
    return reported


def assert_consistent(folder: Path, reported: dict[str, int]) -> Archive:
    arc = Archive.open(folder, embedder=get_embedder())
    assert arc.index_ids() == arc.row_ids(), "every vector id has its row and every row its vector"
    stored = {t["instance_id"] for t in arc.tasks()}
    assert set(reported) <= stored, f"lost reported tasks: {sorted(set(reported) - stored)[:5]}"
    for instance_id, row_id in reported.items():
        hits = arc.nearest(next(t["problem_statement"] for t in arc.tasks() if t["instance_id"] == instance_id), k=60)
        assert instance_id in {h[0]["instance_id"] for h in hits}
    return arc


@pytest.mark.slow  # kills a writer process at a chosen point, then reopens: seconds each
def test_sigkill_at_arbitrary_points_of_adding_loses_no_reported_task(tmp_path):
    folder = tmp_path / "archive"
    reported = run_child(folder, "plain", kill_after_lines=9)
    arc = assert_consistent(folder, reported)
    arc.close()
    more = run_child(folder, "plain", start=100, kill_after_lines=5)  # resume writing, killed again
    arc = assert_consistent(folder, {**reported, **more})
    assert arc.count() >= len(reported) + len(more)
    arc.close()


@pytest.mark.slow  # kills a writer process at a chosen point, then reopens: seconds each
def test_kill_between_row_commit_and_index_save_is_repaired(tmp_path, caplog):
    folder = tmp_path / "archive"
    reported = run_child(folder, "kill-before-index-save")
    assert len(reported) == 4  # two batches returned; the third died after its commit
    with caplog.at_level(logging.WARNING, logger="archive"):
        arc = assert_consistent(folder, reported)
    assert "archive: index diverged from rows (4 vs 6), rebuilt from stored embeddings" in caplog.text
    assert arc.count() == 6  # the committed but unreported batch is kept whole, with vectors
    arc.close()
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="archive"):
        Archive.open(folder, embedder=get_embedder()).close()
    assert "diverged" not in caplog.text  # the rebuilt index was saved


@pytest.mark.slow  # kills a writer process at a chosen point, then reopens: seconds each
def test_kill_before_index_rename_is_repaired(tmp_path, caplog):
    folder = tmp_path / "archive"
    reported = run_child(folder, "kill-before-rename")
    assert (folder / "index.faiss.tmp").exists()
    with caplog.at_level(logging.WARNING, logger="archive"):
        assert_consistent(folder, reported).close()
    assert "index diverged from rows (4 vs 6)" in caplog.text


@pytest.mark.slow  # kills a writer process at a chosen point, then reopens: seconds each
def test_kill_during_truncate_drops_vectors_of_deleted_rows(tmp_path, caplog):
    folder = tmp_path / "archive"
    reported = run_child(folder, "plain", kill_after_lines=8)
    run_child(folder, "truncate", start=1)  # truncate_after(1) commits, then dies before saving the index
    with caplog.at_level(logging.WARNING, logger="archive"):
        arc = assert_consistent(folder, {k: v for k, v in reported.items() if int(k.split("-")[1]) <= 1})
    assert "index diverged from rows" in caplog.text
    assert {t["instance_id"] for t in arc.tasks()} == {"t-0-0", "t-0-1", "t-1-0", "t-1-1"}
    assert all(h[0]["instance_id"] in {"t-0-0", "t-0-1", "t-1-0", "t-1-1"} for h in arc.nearest("anything", k=10))
    arc.close()


@pytest.mark.slow  # kills a writer process at a chosen point, then reopens: seconds each
def test_sigkill_with_approximate_index_reopens_consistent(tmp_path):
    folder = tmp_path / "archive"
    reported = run_child(folder, "plain", kill_after_lines=12, env_extra={"APPROX_ABOVE": "6"})
    arc = Archive.open(folder, embedder=get_embedder(), approximate_above=6)
    assert arc.approximate and arc.index_ids() == arc.row_ids()
    assert set(reported) <= {t["instance_id"] for t in arc.tasks()}
    arc.close()


def test_corrupt_or_missing_index_file_is_rebuilt(tmp_path, caplog):
    folder = tmp_path / "archive"
    with Archive.open(folder, embedder=get_embedder()) as arc:
        arc.add_tasks([{"instance_id": f"x{i}", "problem_statement": t} for i, t in enumerate(many_statements(5))], 0)
        before = arc.nearest("The HTTP client raises KeyError", k=3)
    (folder / "index.faiss").write_bytes(b"not an index")
    with caplog.at_level(logging.WARNING, logger="archive"):
        with Archive.open(folder, embedder=get_embedder()) as arc:
            assert arc.nearest("The HTTP client raises KeyError", k=3) == before
    assert "index file unreadable" in caplog.text
    caplog.clear()
    (folder / "index.faiss").unlink()
    with caplog.at_level(logging.WARNING, logger="archive"):
        with Archive.open(folder, embedder=get_embedder(), read_only=True) as arc:
            assert arc.nearest("The HTTP client raises KeyError", k=3) == before
    assert "archive: index diverged from rows (0 vs 5), rebuilt from stored embeddings" in caplog.text
    assert not (folder / "index.faiss").exists()  # read-only rebuilds in memory only
