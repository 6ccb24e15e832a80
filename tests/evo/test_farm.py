"""`sebgen farm`: units (commits, merged and squash-merged pull requests), bad input, and, end to
end in the local sandbox on the bundled corpus: resume after kill -9, 2 Dask workers == serial,
incremental versions, dedup across forks."""

from __future__ import annotations

import json
import random
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

from corpus.builder import ensure_corpus
from evo.config import Config, farm_settings
from evo.dataset import DatasetFolder
from evo.farm import (
    COMMIT,
    PR,
    Farm,
    FarmResult,
    failure_cause,
    farm_strategy,
    fingerprints,
    mine_history,
    plan,
    repo_units,
    settled,
)
from evo.runfolder import RunFolder
from records import UserError
from tasks import Strategy, StrategyType
from tests.bench_modules import load_bench
from tests.e2e import popen, sebgen
from tests.evo.outcome_repo import BASE, FIXES, git
from tests.marks import require_mark

LOCAL = ["--set", "sandbox.backend=local", "--set", "sandbox.reruns=1"]


def _edit(repo: Path, path: str, old: str, new: str) -> None:
    text = (repo / path).read_text()
    assert old in text
    (repo / path).write_text(text.replace(old, new))


def _commit(repo: Path, message: str, day: int) -> str:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message, day=day)
    return git(repo, "rev-parse", "HEAD")


def build_merges(repo: Path) -> dict[str, str]:
    """A project whose history has a merged pull request (source and tests in separate commits of
    its branch, so only the merge as a whole changes both), a squash merge and a plain commit."""
    repo.mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main")
    for name, text in BASE.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text)
    shas = {"root": _commit(repo, "Initial version of shelf with its helpers and tests", 1)}
    git(repo, "checkout", "-q", "-b", "clamp")
    subject, (path, old, new), tests = FIXES[0]
    _edit(repo, path, old, new)
    shas["inner_source"] = _commit(repo, "Make clamp respect the upper bound it is given", 2)
    with open(repo / "tests" / "test_calc.py", "a") as fh:
        fh.write(tests)
    shas["inner_tests"] = _commit(repo, "Test that clamp caps values at the upper bound", 3)
    git(repo, "checkout", "-q", "main")
    message = f"Merge pull request #3 from dev/clamp\n\n{subject}\n\nclamp returned values above hi."
    git(repo, "merge", "-q", "--no-ff", "clamp", "-m", message, day=4)
    shas["merge"] = git(repo, "rev-parse", "HEAD")
    for label, (subject, (path, old, new), tests), day in (("squash", FIXES[1], 5), ("plain", FIXES[2], 6)):
        _edit(repo, path, old, new)
        with open(repo / "tests" / "test_calc.py", "a") as fh:
            fh.write(tests)
        shas[label] = _commit(repo, subject + (" (#4)" if label == "squash" else ""), day)
    return shas


@pytest.fixture(scope="module")
def merges(tmp_path_factory) -> tuple[Path, dict[str, str]]:
    repo = tmp_path_factory.mktemp("farm") / "shelf"
    return repo, build_merges(repo)


def _kinds(repo: Path, **options) -> dict[str, str]:
    return {u.candidate.sha: u.kind for u in repo_units(Config(), repo, farm_settings(**options))}


def test_a_merge_and_a_squash_merge_are_pr_units_a_plain_commit_is_a_commit_unit(merges):
    repo, shas = merges
    kinds = _kinds(repo)
    assert kinds == {shas["merge"]: PR, shas["squash"]: PR, shas["plain"]: COMMIT}
    assert _kinds(repo, unit="pr") == {shas["merge"]: PR, shas["squash"]: PR}
    assert _kinds(repo, unit="commit") == {shas["plain"]: COMMIT}


def test_the_merge_unit_is_its_change_against_its_first_parent(merges):
    repo, shas = merges
    unit = next(u for u in repo_units(Config(), repo, farm_settings()) if u.candidate.sha == shas["merge"])
    assert unit.candidate.parent == shas["root"]
    assert unit.candidate.source_files == ["shelf/calc.py"] and unit.candidate.test_files == ["tests/test_calc.py"]
    assert unit.candidate.subject == "Fix clamp ignoring the upper bound" and unit.candidate.pr_number == "3"
    assert unit.id == f"{unit.repo}@{shas['merge']}:pr"


def test_size_filters_drop_small_units(merges):
    repo, _ = merges
    assert len(_kinds(repo)) == 3
    assert _kinds(repo, min_lines=3) == {}  # each change is one line out, one in
    assert len(_kinds(repo, min_lines=2, min_hunks=1)) == 3
    assert _kinds(repo, min_source_files=2) == {}


def test_mining_again_after_new_commits_classifies_only_the_new_ones(tmp_path, merges, monkeypatch):
    import tasks.mining

    repo = tmp_path / "shelf"
    subprocess.run(["git", "clone", "-q", str(merges[0]), str(repo)], check=True)
    settings = farm_settings()
    first = mine_history(Config(), repo, settings)
    _edit(repo, "shelf/calc.py", "def clamp", "# clamp: lo and hi are inclusive\ndef clamp")
    with open(repo / "tests" / "test_calc.py", "a") as fh:
        fh.write("\n\ndef test_clamp_keeps_a_value_inside():\n    assert True\n")
    new = _commit(repo, "Document that clamp's bounds are inclusive, and test a value inside them", 9)
    classified = []
    real = tasks.mining._classified
    monkeypatch.setattr(tasks.mining, "_classified", lambda r, c: classified.append(c.sha) or real(r, c))
    again = mine_history(Config(), repo, settings, first)
    assert classified == [new]  # the commits mined before keep their classification
    fresh = mine_history(Config(), repo, settings)
    assert again.to_dict() == fresh.to_dict() and again.head == new


def test_fingerprints_match_a_fork_of_the_same_change():
    patch = "--- a/x.py\n+++ b/x.py\n@@ -1,3 +1,3 @@\n ctx\n-old  \n+new\n"
    fork = "--- a/x.py\n+++ b/x.py\n@@ -8,3 +8,3 @@ def f\n other\n-old\n+new\n"
    assert fingerprints({"patch": patch})[0] == fingerprints({"patch": fork})[0]
    assert fingerprints({"patch": patch})[0] != fingerprints({"patch": patch.replace("+new", "+newer")})[0]
    a = fingerprints({"patch": "", "FAIL_TO_PASS": ["t.py::a", "t.py::b"]})
    assert a[1] == fingerprints({"patch": "x", "FAIL_TO_PASS": ["t.py::b", " t.py::a"]})[1]


@pytest.mark.slow
@pytest.mark.parametrize(
    "args, message",
    [
        (["/nonexistent/repo"], "does not exist"),
        (["{tmp}"], "is not a git repository"),
        (["{repo}", "--min-lines", "-1"], "--min-lines: Input should be greater than or equal to 0"),
        (["{repo}", "--strategy", "BUG_FIXX"], "--strategy: unknown strategy 'BUG_FIXX' (did you mean 'BUG_FIX'?)"),
        (["{repo}", "--strategy", "BUG_FIX", "--strategy-from", "{tmp}"], "not both"),
        (["{repo}", "--unit", "merge"], "--unit: Input should be 'commit', 'pr' or 'both'"),
        (["{repo}", "--since", "2024-02-30"], "--since: '2024-02-30' is not a date"),
        (["@{tmp}/missing.txt"], "repository list"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(tmp_path, merges, args, message):
    require_mark("slow", "runs the CLI")
    repo, _ = merges
    args = [a.format(tmp=tmp_path, repo=repo) for a in args]
    proc = sebgen("farm", *args, "--out", tmp_path / "ds")
    assert proc.returncode == 2, proc.stderr
    assert message in proc.stderr and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert not (tmp_path / "ds").exists()


@pytest.mark.slow
def test_a_folder_that_is_not_a_dataset_is_refused(tmp_path, merges):
    require_mark("slow", "runs the CLI")
    repo, _ = merges
    (tmp_path / "ds").mkdir()
    (tmp_path / "ds" / "notes.txt").write_text("mine")
    proc = sebgen("farm", repo, "--out", tmp_path / "ds")
    assert proc.returncode == 2 and "holds no dataset.json" in proc.stderr, proc.stderr
    assert (tmp_path / "ds" / "notes.txt").read_text() == "mine"


def _row(repo: str, outcome: str, layer: str = "", category: str = "", reason: str = "") -> dict:
    sha = f"{random.Random(reason + repo).getrandbits(64):016x}"
    return {"unit": f"{repo}@{sha}:commit", "repo": repo, "sha": sha, "kind": COMMIT, "outcome": outcome} | {
        "layer": layer,
        "category": category,
        "reason": reason,
        "validations": 1,
        "seconds": 1.0,
    }


LOST = [  # (row, the cause the summary counts it under): reasons as the layers word them
    (
        _row(
            "a/env",
            "rejected",
            "functional",
            "build_error",
            "sandbox failed: installing a-env@0123456789 failed "
            "after 1 attempt (pin conflict); see the log /c/build-logs/x.log",
        ),
        "pin conflict",
    ),
    (
        _row(
            "a/env",
            "rejected",
            "functional",
            "build_error",
            "sandbox failed: installing a-env@0123456789 failed after 3 attempts; see the log /c/build-logs/y.log",
        ),
        "install failed",
    ),
    (
        _row(
            "a/env",
            "rejected",
            "functional",
            "build_error",
            "sandbox failed: commit 0123456789 needs the submodule "
            "vendor/data at 89abcdef01, which the clone /r does not have (...); the run shows it: ...",
        ),
        "missing submodule",
    ),
    (
        _row("a/env", "rejected", "functional", "no_f2p", "no test ran in tests/test_a.py: pytest exited with code 2"),
        "no test ran",
    ),
    (
        _row(
            "a/env",
            "rejected",
            "functional",
            "no_f2p",
            "no FAIL_TO_PASS test: 3 test(s) of tests/test_b.py skipped in both states (...): numpy is not installed",
        ),
        "tests skipped",
    ),
    (  # click 3f44bac (a style-only commit): its Windows-only tests skip, the other 178 already pass
        _row(
            "b/ok",
            "rejected",
            "functional",
            "no_f2p",
            "no FAIL_TO_PASS test: 21 test(s) of tests/test_termui.py skipped in both states (...): Tests user-input "
            "using the msvcrt module.; the other 178 already pass with bug_patch applied",
        ),
        "no FAIL_TO_PASS",
    ),
    (
        _row("b/ok", "rejected", "functional", "no_f2p", "no FAIL_TO_PASS test: all 4 already pass with bug_patch"),
        "no FAIL_TO_PASS",
    ),
    (  # attrs 6731eea0: the conftest imports the name the fix adds, so no test ran on the buggy state
        _row(
            "b/ok",
            "rejected",
            "functional",
            "no_f2p",
            "no test fails for the change's own reason: 1089 test(s) never ran with bug_patch applied (...)",
        ),
        "suite does not load on the buggy state",
    ),
    (_row("b/ok", "rejected", "quality", "vague", "the statement does not say what fails"), "judge"),
    (_row("b/ok", "error", "", "TimeoutError", "the engine did not answer"), "error (TimeoutError)"),
]


def test_the_summary_counts_lost_units_by_cause_per_repository():
    assert [failure_cause(row) for row, _ in LOST] == [cause for _, cause in LOST]
    kept = _row("b/ok", "kept", reason="")
    assert failure_cause(kept) == ""
    table = FarmResult(1, True, [row for row, _ in LOST] + [kept], len(LOST) + 1).per_repo()
    assert table["a/env"]["causes"] == {
        "pin conflict": 1,
        "install failed": 1,
        "missing submodule": 1,
        "no test ran": 1,
        "tests skipped": 1,
    }
    assert table["b/ok"]["causes"] == {
        "no FAIL_TO_PASS": 2,
        "suite does not load on the buggy state": 1,
        "judge": 1,
        "error (TimeoutError)": 1,
    }
    assert table["b/ok"]["kept"] == 1 and sum(table["b/ok"]["causes"].values()) == 5


def test_a_later_version_tries_again_a_unit_lost_to_the_machine_not_one_lost_for_its_own_reason():
    timed_out = _row("b/ok", "rejected", "functional", "timeout", "the tests ran past the 300 s limit")
    no_engine = _row("b/ok", "rejected", "functional", "build_error", "sandbox failed: the container did not start")
    retried = [timed_out, no_engine, _row("b/ok", "error", "", "TimeoutError", "the engine did not answer")]
    assert [settled(row) for row in retried] == [False, False, False]
    assert all(settled(row) for row, cause in LOST if row["outcome"] == "rejected" and cause != "sandbox failed")
    assert settled(_row("b/ok", "kept"))


# ------------------------------------------------------------------ end to end (local sandbox)


def _algos() -> Path:
    return next(p for p in ensure_corpus() if p.name == "algos")


# what must equal between two farms (the released tasks' content, every unit's outcome): the
# resume bench's own comparison
_dataset = load_bench("farm_resume").dataset


FARM_ARGS = ["--limit", "4", "--seed", "3", *LOCAL]


@pytest.fixture(scope="module")
def serial(tmp_path_factory):
    require_mark("slow", "farms end to end")
    out = tmp_path_factory.mktemp("serial") / "ds"
    sebgen("farm", _algos(), "--out", out, *FARM_ARGS, check=True)
    return out


@pytest.mark.slow
def test_an_uninterrupted_farm_releases_its_kept_tasks_and_a_card(serial):
    folder = DatasetFolder(serial)
    rows = folder.rows()
    assert len(rows) == 4 and len({r["unit"] for r in rows}) == 4
    kept = [r for r in rows if r["outcome"] == "kept"]
    by_unit = sorted(kept, key=lambda r: r["unit"])
    assert kept and [t.instance_id for t in folder.tasks()] == [r["task"]["instance_id"] for r in by_unit]
    card = json.loads(folder.card_json_path.read_text())
    assert card["tasks"] == len(kept) and len(card["versions"]) == 1
    assert sum(card["per_month"].values()) == len(kept) and card["per_language"] == {"python": len(kept)}


@pytest.mark.slow
def test_kill_9_three_times_then_finish_gives_the_uninterrupted_dataset(tmp_path, serial):
    out = tmp_path / "ds"
    state = out / "state.jsonl"
    rng = random.Random(11)

    def rows_now() -> int:
        return len(state.read_text().splitlines()) if state.exists() else 0

    def finished() -> bool:  # the version ended before a kill landed: the same command would start a new one
        versions = DatasetFolder(out).versions()
        return bool(versions and versions[-1].get("finished_at"))

    kills = 0
    for target in (1, 2, 3):
        if finished():
            break
        proc = popen("farm", _algos(), "--out", out, *FARM_ARGS)
        deadline = time.monotonic() + 300
        while proc.poll() is None and time.monotonic() < deadline and rows_now() < target:
            time.sleep(0.05)
        # somewhere in the next unit (or the release): a random moment, at the latest when that unit ends
        until = time.monotonic() + rng.uniform(0.0, 4.0)
        while proc.poll() is None and time.monotonic() < until and rows_now() <= target:
            time.sleep(0.05)
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
            kills += 1
        proc.communicate()
    assert kills >= 1, "no run was killed mid-version"
    before = {r["unit"] for r in DatasetFolder(out).rows()}
    if not finished():
        proc = sebgen("farm", _algos(), "--out", out, *FARM_ARGS, check=True)
        assert f"{len(before)} done before" in proc.stderr or len(before) == 4
    rows = DatasetFolder(out).rows()
    assert len(rows) == len({r["unit"] for r in rows}) == 4, "a unit was validated twice"
    assert _dataset(out) == _dataset(serial)


@pytest.mark.slow
def test_two_dask_workers_give_the_serial_dataset(tmp_path, serial):
    out = tmp_path / "ds"
    proc = sebgen("farm", _algos(), "--out", out, *FARM_ARGS, "--workers", "2", check=True)
    assert "local Dask cluster with 2 workers" in proc.stderr
    assert _dataset(out) == _dataset(serial)


@pytest.mark.slow
def test_a_rerun_after_new_commits_tries_only_them_and_adds_a_version(tmp_path):
    require_mark("slow", "farms end to end")
    clone = tmp_path / "algos"
    subprocess.run(["git", "clone", "-q", str(_algos()), str(clone)], check=True)
    head = subprocess.run(["git", "-C", clone, "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    subprocess.run(["git", "-C", clone, "reset", "-q", "--hard", "HEAD~2"], check=True)
    since = subprocess.run(
        ["git", "-C", clone, "log", "-1", "--format=%cs", "HEAD~1"], capture_output=True, text=True
    ).stdout.strip()
    out = tmp_path / "ds"
    sebgen("farm", clone, "--out", out, "--since", since, *LOCAL, check=True)
    folder = DatasetFolder(out)
    first_rows = folder.rows()
    first_release = folder.release_path(1).read_bytes()
    assert first_rows
    subprocess.run(["git", "-C", clone, "reset", "-q", "--hard", head], check=True)
    new = set(
        subprocess.run(["git", "-C", clone, "rev-list", "HEAD~2..HEAD"], capture_output=True, text=True).stdout.split()
    )
    sebgen("farm", clone, "--out", out, "--since", since, *LOCAL, check=True)
    second = [r for r in folder.rows() if r["version"] == 2 and r["outcome"] != "duplicate"]
    assert second and {r["sha"] for r in second} <= new
    assert {r["unit"] for r in second}.isdisjoint({r["unit"] for r in first_rows})
    assert folder.release_path(1).read_bytes() == first_release  # released tasks are never rewritten
    card = json.loads(folder.card_json_path.read_text())
    assert [v["version"] for v in card["versions"]] == [1, 2]
    assert "| 2 |" in folder.card_md_path.read_text()
    rows = folder.rows()
    proc = sebgen("farm", clone, "--out", out, "--since", since, *LOCAL, check=True)
    assert "nothing to do" in proc.stderr and folder.rows() == rows
    assert [v["version"] for v in json.loads(folder.card_json_path.read_text())["versions"]] == [1, 2]


@pytest.mark.slow
def test_a_fork_farmed_beside_its_origin_adds_no_duplicate(tmp_path):
    require_mark("slow", "farms end to end")
    origin, fork = tmp_path / "algos", tmp_path / "algos-fork"
    subprocess.run(["git", "clone", "-q", str(_algos()), str(origin)], check=True)
    shutil.copytree(origin, fork)
    out = tmp_path / "ds"
    since = subprocess.run(
        ["git", "-C", origin, "log", "-1", "--format=%cs", "HEAD~1"], capture_output=True, text=True
    ).stdout.strip()
    sebgen("farm", origin, fork, "--out", out, "--since", since, *LOCAL, check=True)
    rows = DatasetFolder(out).rows()
    kept = [r for r in rows if r["outcome"] == "kept"]
    duplicates = [r for r in rows if r["outcome"] == "duplicate"]
    assert kept and len(duplicates) == len(kept) // 2
    assert all("same gold patch or FAIL_TO_PASS set as" in d["reason"] for d in duplicates)
    released = DatasetFolder(out).tasks()
    assert len(released) == len(kept) - len(duplicates)
    assert len({fingerprints(t.to_dict())[0] for t in released}) == len(released)


@pytest.mark.slow
def test_pr_units_pass_the_layers_and_are_released(tmp_path, merges):
    require_mark("slow", "farms end to end")
    repo, shas = merges
    out = tmp_path / "ds"
    sebgen("farm", repo, "--out", out, "--unit", "pr", *LOCAL, check=True)
    rows = {r["sha"]: r for r in DatasetFolder(out).rows()}
    assert set(rows) == {shas["merge"], shas["squash"]}
    assert rows[shas["merge"]]["outcome"] == "kept", rows[shas["merge"]]
    card = json.loads((out / "card.json").read_text())
    assert card["per_unit_kind"].get("pr", 0) >= 1


@pytest.mark.slow
def test_a_dataset_exports_and_evaluates(tmp_path, serial):
    tasks = DatasetFolder(serial).tasks()
    sebgen("export", serial, "--format", "swebench", "--out", tmp_path / "sb" / "data.jsonl", check=True)
    rows = [json.loads(line) for line in (tmp_path / "sb" / "data.jsonl").read_text().splitlines()]
    assert [r["instance_id"] for r in rows] == [t.instance_id for t in tasks]
    assert json.loads((tmp_path / "sb" / "card.json").read_text())["tasks"] == len(tasks)
    sebgen("export", serial, "--format", "harbor", "--out", tmp_path / "harbor", check=True)
    assert sorted(p.name for p in (tmp_path / "harbor").iterdir()) == sorted(t.instance_id for t in tasks)
    sebgen("evaluate", serial, "--agent", "oracle", *LOCAL, check=True)
    document = json.loads((serial / "results" / "oracle.json").read_text())
    assert document["summary"]["overall"]["resolved"] == len(tasks)


def test_the_local_clusters_workers_outlive_a_terminals_ctrl_c():
    """A terminal's Ctrl-C reaches the whole process group: the farm's Dask workers died with
    KeyboardInterrupt, their units were lost and the farm waited for them until a second Ctrl-C.
    The workers ignore SIGINT; the controller's own handler is unchanged."""
    import os

    from dask.distributed import Client

    from evo.parallel import local_cluster

    before = signal.getsignal(signal.SIGINT)
    cluster = local_cluster(1)
    client = Client(cluster)
    try:
        assert signal.getsignal(signal.SIGINT) is before
        (pid,) = client.run(os.getpid).values()
        os.kill(pid, signal.SIGINT)
        time.sleep(2)
        assert list(client.run(os.getpid).values()) == [pid]
        assert client.submit(sum, [40, 2], pure=False).result(timeout=30) == 42
    finally:
        client.close()
        cluster.close()


@pytest.mark.slow
def test_ctrl_c_finishes_the_unit_in_flight_and_the_same_command_continues(tmp_path, serial):
    out = tmp_path / "ds"
    state = out / "state.jsonl"
    proc = popen("farm", _algos(), "--out", out, *FARM_ARGS)
    deadline = time.monotonic() + 300
    while proc.poll() is None and time.monotonic() < deadline and not state.exists():
        time.sleep(0.2)
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=300)
    assert proc.returncode == 130, stderr
    assert "finishing the units in flight" in stderr and "run the same command to continue" in stderr
    rows = DatasetFolder(out).rows()
    assert 1 <= len(rows) < 4 and not DatasetFolder(out).release_path(1).exists()
    sebgen("farm", _algos(), "--out", out, *FARM_ARGS, check=True)
    assert _dataset(out) == _dataset(serial)


def _run_folder(path: Path, hall_of_fame: list[dict]) -> Path:
    folder = RunFolder(path)
    folder.write_config(Config().to_yaml())
    folder.save_checkpoint({"generation": 1, "hall_of_fame": hall_of_fame}, keep=1)
    return path


def test_strategy_from_a_run_is_its_hall_of_fame_leader(tmp_path):
    best = Strategy(StrategyType.FEATURE_ADD, "Describe the new behaviour.", genes={"sel_size": 0.8, "sel_age": -0.5})
    other = Strategy(StrategyType.BUG_FIX, "Report the bug.")
    run = _run_folder(tmp_path / "run", [{"strategy": best.to_dict()}, {"strategy": other.to_dict()}])
    chosen = farm_strategy(farm_settings(strategy_from=str(run)))
    assert chosen.to_dict() == best.to_dict()
    assert farm_strategy(farm_settings(strategy="refactor")).strategy_type == StrategyType.REFACTOR


def test_strategy_from_a_run_without_a_hall_of_fame_is_one_sentence(tmp_path):
    run = _run_folder(tmp_path / "run", [])
    with pytest.raises(UserError, match="has no hall of fame yet"):
        farm_strategy(farm_settings(strategy_from=str(run)))
    with pytest.raises(UserError, match="does not exist"):
        farm_strategy(farm_settings(strategy_from=str(tmp_path / "nowhere")))


def test_a_plan_takes_the_strategys_kinds_of_the_whole_history_whatever_is_left(merges):
    repo, shas = merges
    units = repo_units(Config(), repo, farm_settings())
    for u in units:
        u.candidate.kind = "feature_add" if u.candidate.sha == shas["plain"] else "bug_fix"
    strategy = farm_strategy(farm_settings())  # BUG_FIX
    first = plan({"shelf": units}, strategy, set(), None)
    assert {u.candidate.sha for u in first} == {shas["merge"], shas["squash"]}
    # once its bug fixes are tried, BUG_FIX plans nothing: the feature is not a fallback
    assert plan({"shelf": units}, strategy, {u.id for u in first}, None) == []
    assert [u.id for u in plan({"shelf": units}, strategy, set(), 1)] == [first[0].id]


@pytest.mark.slow
def test_a_resumed_farm_reads_the_mined_history_instead_of_mining_again(tmp_path, merges, monkeypatch):
    require_mark("slow", "farms end to end")
    repo, _ = merges
    config = Config.model_validate({"sandbox": {"backend": "local", "reruns": 1}})
    settings = farm_settings(seed=3)
    straight = DatasetFolder(tmp_path / "straight")
    Farm(config, [repo], straight, settings, log=lambda *_: None).run()
    resumed = DatasetFolder(tmp_path / "resumed")
    ended = []
    first = Farm(config, [repo], resumed, settings, log=lambda *_: None, on_event=ended.append)
    assert not first.run(should_stop=lambda: any(e["event"] == "unit" for e in ended)).finished

    def mined_again(*args, **kwargs):
        raise AssertionError("a resumed farm mined the history again")

    monkeypatch.setattr("evo.farm.mine_history", mined_again)
    said = []
    assert Farm(config, [repo], resumed, settings, log=said.append).run().finished
    assert any("mined before: not mined again" in line for line in said)
    assert _dataset(resumed.path) == _dataset(straight.path)
