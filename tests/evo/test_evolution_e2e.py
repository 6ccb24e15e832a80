"""Whole runs of the CLI: determinism, SIGKILL + resume, STOP file, extension."""

import json
import signal
import time

import pytest

from evo.runfolder import RunFolder
from tasks import Strategy
from tests.e2e import FAST, ROOT, hof_all, journal_lines, paid_llm_calls, popen, sebgen

QUICKSTART = ROOT / "configs" / "quickstart.yaml"
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def reference(quickstart_run):
    """The FAST quickstart run (tests/conftest.py); the tests here only read it."""
    return quickstart_run


def test_hof_json_has_the_design_fields(reference):
    for generation in (1, 2):
        entries = json.loads(sebgen("hof", reference, "--gen", generation, "--json", check=True).stdout)
        assert isinstance(entries, list) and entries
        for e in entries:
            assert {
                "id",
                "generation",
                "exploration_value",
                "dimensions",
                "strategy_type",
                "params",
                "prompt",
                "parents",
            } <= set(e)
            assert set(e["dimensions"]) == {
                "quality",
                "novelty",
                "difficulty_coverage",
                "skill_diversity",
                "evolution_potential",
            }
            assert set(e["params"]) == {"temperature", "top_p", "max_tokens"}
            # the genes that reach task making, and what the strategy's tasks cost
            assert set(e["genes"]) == {
                "sel_size",
                "sel_tests",
                "sel_link",
                "sel_cue",
                "sel_age",
                "difficulty_band",
                "operator_weights",
                "complexity_band",
                "mutations",
                "evidence_tests",
                "evidence_code",
                "statement_words",
            }
            assert "fitness" in e and "validations_per_kept" in e
    # the run varies genes, so the equality and resume tests below cover them
    last = json.loads(sebgen("hof", reference, "--gen", 2, "--json", check=True).stdout)
    assert any(e["genes"]["sel_link"] != 0.0 or e["genes"]["statement_words"] != 400 for e in last)
    assert (reference / "config.yaml").is_file()


def test_no_child_repeats_a_parent_or_an_earlier_strategy(reference):
    """Variation retries or drops a child whose genome is already known (evo.loop.vary), so
    every evaluation slot goes to a new strategy."""
    seen: set[str] = set()
    for generation, offspring in sorted(RunFolder(reference).offspring().items()):
        for child in map(Strategy.from_dict, offspring):
            genome = child.genome_hash()
            assert genome[:12] not in child.parents, f"generation {generation}: {child.id} copies its parent"
            assert genome not in seen, f"generation {generation}: {child.id} was met before"
            seen.add(genome)
    assert len(seen) > 3  # the seeds and their offspring


def test_same_seed_gives_the_same_hall_of_fame(reference, tmp_path):
    again = tmp_path / "again"
    sebgen("run", QUICKSTART, "--run-dir", again, *FAST, check=True)
    assert hof_all(again, 2) == hof_all(reference, 2)


def wait_for(proc, predicate, timeout=600):
    """Read stderr lines until predicate(line) holds; returns the lines read."""
    seen = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = proc.stderr.readline()
        if not line:
            break
        seen.append(line)
        if predicate(line, seen):
            return seen
    raise AssertionError("condition never met:\n" + "".join(seen[-30:]))


def test_sigkill_during_generation_2_then_resume_matches(reference, tmp_path):
    run_dir = tmp_path / "killed"
    proc = popen("run", QUICKSTART, "--run-dir", run_dir, *FAST)
    in_gen2 = lambda line, seen: "evaluated" in line and any(s.startswith("generation 2:") for s in seen)
    wait_for(proc, in_gen2)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert not (run_dir / "checkpoints" / "gen-0002.json").exists()
    resumed = sebgen("resume", run_dir, check=True)
    assert "resuming from checkpoint gen-0001.json" in resumed.stderr
    assert hof_all(run_dir, 2) == hof_all(reference, 2)
    # every evaluation was paid for once: the killed run's finished ones were reused,
    # and the LLM answers of the one cut short were replayed, not bought again
    assert journal_lines(run_dir) == journal_lines(reference)
    assert paid_llm_calls(run_dir) == paid_llm_calls(reference)


def test_stop_file_checkpoints_and_resume_extends(reference, tmp_path):
    run_dir = tmp_path / "stopped"
    proc = popen("run", QUICKSTART, "--run-dir", run_dir, *FAST)
    wait_for(proc, lambda line, seen: line.startswith("generation 1 done"))
    (run_dir / "STOP").write_text("")
    _, err = proc.communicate(timeout=600)
    assert proc.returncode == 0
    assert f"sebgen resume {run_dir}" in err
    assert (run_dir / "checkpoints" / "gen-0001.json").exists()
    sebgen("resume", run_dir, check=True)
    assert hof_all(run_dir, 2) == hof_all(reference, 2)
    extended = sebgen("resume", run_dir, "--generations", "3", check=True)
    assert "3 generations" in extended.stderr
    # a resumed run counts what it did since the resume apart from the run's totals
    assert "1 generation and " in extended.stderr and "since resume" in extended.stderr
    assert f"(3 generations and {journal_lines(run_dir)} evaluations in all)" in extended.stderr
    assert len(hof_all(run_dir, 3)) == 3


def test_truncated_newest_checkpoint_falls_back(reference, tmp_path):
    import shutil

    run_dir = tmp_path / "torn"
    shutil.copytree(reference, run_dir)
    newest = run_dir / "checkpoints" / "gen-0002.json"
    newest.write_text(newest.read_text()[:200])
    proc = sebgen("resume", run_dir, check=True)
    assert "gen-0002.json is corrupt or truncated" in proc.stderr
    assert "resuming from checkpoint gen-0001.json" in proc.stderr
    assert hof_all(run_dir, 2) == hof_all(reference, 2)


@pytest.mark.parametrize("backend", ["dask", "pool"])
def test_parallel_backends_match_the_serial_run(reference, tmp_path, backend):
    run_dir = tmp_path / backend
    proc = sebgen(
        "run",
        QUICKSTART,
        "--run-dir",
        run_dir,
        *FAST,
        "--set",
        f"parallel.backend={backend}",
        "--set",
        "parallel.workers=2",
        check=True,
    )
    assert ("local Dask cluster" if backend == "dask" else "process pool") in proc.stderr
    assert hof_all(run_dir, 2) == hof_all(reference, 2)


@pytest.mark.parametrize("moment", ["checkpoint_write:2", "after_archive:2", "between_generations:1"])
def test_sigkill_at_exact_moments_then_resume_matches(reference, tmp_path, moment, monkeypatch):
    run_dir = tmp_path / moment.replace(":", "-")
    monkeypatch.setenv("SEBGEN_CRASH_AT", moment)
    killed = sebgen("run", QUICKSTART, "--run-dir", run_dir, *FAST)
    assert killed.returncode == -signal.SIGKILL
    monkeypatch.delenv("SEBGEN_CRASH_AT")
    sebgen("resume", run_dir, check=True)
    assert hof_all(run_dir, 2) == hof_all(reference, 2)
    assert journal_lines(run_dir) == journal_lines(reference)
    assert paid_llm_calls(run_dir) == paid_llm_calls(reference)


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_signal_finishes_in_flight_work_and_exits_zero(reference, tmp_path, signum):
    run_dir = tmp_path / signal.Signals(signum).name
    proc = popen("run", QUICKSTART, "--run-dir", run_dir, *FAST)
    wait_for(proc, lambda line, seen: line.startswith("  evaluated "))  # the next one is running
    proc.send_signal(signum)
    _, err = proc.communicate(timeout=600)
    assert proc.returncode == 0, err
    assert f"sebgen resume {run_dir}" in err
    assert journal_lines(run_dir) >= 1  # the evaluation that finished before the signal was kept
    sebgen("resume", run_dir, check=True)
    assert hof_all(run_dir, 2) == hof_all(reference, 2)


def test_a_second_ctrl_c_stops_now_and_names_the_resume(reference, tmp_path):
    run_dir = tmp_path / "twice"
    proc = popen("run", QUICKSTART, "--run-dir", run_dir, *FAST)
    wait_for(proc, lambda line, seen: line.startswith("  evaluated "))  # the next one is running
    proc.send_signal(signal.SIGINT)
    wait_for(proc, lambda line, seen: "Ctrl-C again to stop now" in line)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode != 0 and "SIGINT again: stopping now" in err, err[-2000:]
    assert f"sebgen resume {run_dir}" in err  # what resume then redoes is what SIGKILL leaves (tests above)
