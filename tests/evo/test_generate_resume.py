"""`sebgen generate` writes as it goes: each outcome is appended (and fsynced) once final, so a
killed call keeps the work done, and the same call run again tries only the commits that have
no outcome in the files yet."""

from __future__ import annotations

import json
import signal
import time

import pytest

from evo.pipeline import REJECTED, Outcome, OutcomeFiles, OutputFileError, rejects_path
from records import Task
from tests.e2e import popen, sebgen
from tests.evo.outcome_repo import build
from tests.marks import require_mark

LOCAL = ["--set", "sandbox.backend=local", "--set", "sandbox.reruns=1"]
NAMED = ("tests_only", "fix1", "fix2", "fix3")


def rows(path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_outcome_files_append_each_outcome_and_a_rerun_knows_the_commits_done(tmp_path):
    out = tmp_path / "t.jsonl"
    files = OutcomeFiles(out, rejects_path(out))
    assert not out.exists()  # nothing is written before the first outcome: a call failing first leaves no file
    kept = Task("x__y-1", "x/y", "a" * 40, "", "", "s", "", "BUG_FIX", "seed")
    files.write(Outcome("kept", kept.base_commit, task=kept))
    files.write(Outcome(REJECTED, "b" * 40, layer="mining", category="no_source_change", reason="tests only"))
    assert [r["base_commit"] for r in rows(out)] == ["a" * 40]
    assert [r["commit"] for r in rows(rejects_path(out))] == ["b" * 40]
    with open(out, "a") as fh:
        fh.write('{"base_commit": "cut sh')  # a kill in the middle of a line
    again = OutcomeFiles(out, rejects_path(out))
    assert again.done == {"a" * 40, "b" * 40} and again.kept_before == 1
    assert out.read_text().endswith("}\n")  # the cut line is gone: the next append starts a whole line
    fresh = OutcomeFiles(out, rejects_path(out), resume=False)
    assert fresh.done == set() and out.read_text().endswith("}\n")  # emptied only when its run writes
    fresh.finish()
    assert out.read_text() == "" and rejects_path(out).read_text() == ""


def test_a_line_that_is_not_json_is_one_clear_error_and_the_file_is_kept(tmp_path):
    out = tmp_path / "t.jsonl"
    out.write_text("not json\n")
    with pytest.raises(OutputFileError, match="not JSON; remove the file to start over"):
        OutcomeFiles(out, rejects_path(out))
    assert out.read_text() == "not json\n"


@pytest.mark.slow
def test_a_killed_generate_keeps_its_outcomes_and_the_rerun_tries_only_the_rest(tmp_path):
    require_mark("slow", "runs sebgen generate end to end, killed")
    repo = tmp_path / "shelf"
    shas = build(repo)
    out = tmp_path / "tasks.jsonl"
    args = [a for label in NAMED for a in ("--commit", shas[label])]
    command = ("generate", repo, *args, "--strategy", "BUG_FIX", "--out", out, *LOCAL)
    proc = popen(*command)
    deadline = time.monotonic() + 900
    # the tests-only commit is rejected at mining at once; wait for one validated outcome more
    while proc.poll() is None and time.monotonic() < deadline:
        if out.exists() and len(rows(out)) + len(rows(rejects_path(out))) >= 2:
            break
        time.sleep(0.5)
    assert proc.poll() is None, "the call ended before it could be killed"
    proc.send_signal(signal.SIGKILL)
    proc.communicate()
    first = {t["base_commit"] for t in rows(out)} | {r["commit"] for r in rows(rejects_path(out))}
    assert shas["tests_only"] in first and 2 <= len(first) < len(NAMED)
    again = sebgen(*command, check=True, timeout=1500)
    assert f"continuing {out}: {len(first)} commits with an outcome already" in again.stderr
    for sha in first:  # not tried again: no outcome line for it in the rerun
        assert f"kept {sha[:12]}" not in again.stderr and f"rejected {sha[:12]}" not in again.stderr
    seen = [t["base_commit"] for t in rows(out)] + [r["commit"] for r in rows(rejects_path(out))]
    assert sorted(seen) == sorted(shas[label] for label in NAMED)  # every commit once, none twice


@pytest.mark.slow
@pytest.mark.docker
def test_sigterm_stops_generate_at_once_and_leaves_no_container(tmp_path):
    from sandbox import docker_client
    from tests.sandbox_fixtures import my_containers, require_docker

    require_docker()
    require_mark("slow", "runs sebgen generate end to end, stopped")
    repo = tmp_path / "shelf"
    shas = build(repo)
    out = tmp_path / "tasks.jsonl"
    args = [a for label in NAMED[1:] for a in ("--commit", shas[label])]
    client = docker_client()
    since = int(time.time()) - 1
    proc = popen("generate", repo, *args, "--strategy", "BUG_FIX", "--out", out, "--set", "sandbox.reruns=1")
    try:
        # block until the call's first sandbox container starts (engine events, no polling)
        events = client.events(
            since=since, decode=True, filters={"label": f"sebgen.pid={proc.pid}", "event": "start", "type": "container"}
        )
        next(iter(events))
        events.close()
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=120)
    finally:
        proc.kill()
    assert proc.returncode == 130, err[-2000:]
    assert f"stopped: the outcomes written so far stay in {out}" in err
    assert my_containers(client, proc.pid) == []  # removed as the call unwound, as on Ctrl-C
    written = rows(out) if out.exists() else []
    assert len(written) < len(NAMED) - 1  # it stopped before the end; what it wrote is whole JSON lines
    client.close()
