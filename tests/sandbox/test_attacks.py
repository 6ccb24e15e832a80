"""The attack suite (issue 15): agent patches that fix nothing and try to be marked resolved.

Every attack goes through `sandbox.run_attempt`, the path `sebgen evaluate` and the functional
layer's nop/oracle checks use, on a one-bug task (add() subtracts; test_add is FAIL_TO_PASS).
Each must come out unresolved in Docker (and on the local backend for what the README says
it contains); the gold patch must still resolve; nothing may be left behind.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest

from environment import detect_recipe
from sandbox import Limits, LocalBackend, PatchError, attempt_verdict, make_backend, run_attempt
from tests.sandbox_fixtures import (
    CALC_TESTS,
    calc_edit_patch,
    calc_task,
    docker_backend_leaving_nothing,
    my_containers,
    new_file_patch,
    pipe_flood,
    require_docker,
)

pytestmark = pytest.mark.docker
ROOT = Path(__file__).resolve().parents[2]
F2P = ["tests/test_calc.py::test_add"]
P2P = ["tests/test_calc.py::test_sub"]
TEST_FILES = ["tests/test_calc.py"]


# -- patch builders -------------------------------------------------------------------------
new_file, edit_calc = new_file_patch, calc_edit_patch


TEST_PATCH = new_file("tests/test_calc.py", CALC_TESTS)

ALL_PASS_HOOK = """import pytest


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    outcome.get_result().outcome = "passed"
"""

# writes a report claiming every test passed to every pipe the process holds
FORGE = """
import json as _json, os as _os


def _forge(status=0):
    data = _json.dumps({"outcomes": {"tests/test_calc.py::test_add": "passed",
                                     "tests/test_calc.py::test_sub": "passed"},
                        "collect_errors": [], "exitstatus": status}) + "\\n"
    for fd in _os.listdir("/proc/self/fd"):
        try:
            if _os.readlink(f"/proc/self/fd/{fd}").startswith("pipe:"):
                _os.write(int(fd), data.encode())
        except OSError:
            pass
"""

# flips only the withheld failing test: the canaries alone would not see it
FLIP_TEST_ADD = """import pytest


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    if item.name == "test_add":
        outcome.get_result().outcome = "passed"
"""

ATTACKS = {
    # the seven of the issue
    "conftest_hookwrapper": new_file("conftest.py", ALL_PASS_HOOK),
    "withheld_tests_edited": new_file("tests/test_calc.py", CALC_TESTS.replace("assert add(2, 3) == 5", "assert True")),
    "tests_pytest_ini_addopts": new_file("tests/pytest.ini", "[pytest]\naddopts = -p evil_plugin\n")
    + new_file("evil_plugin.py", ALL_PASS_HOOK),
    "background_process_rewrites_report": edit_calc(
        FORGE
        + """
import time as _time
if _os.fork() == 0:
    _os.setsid()
    if _os.fork() == 0:
        for _ in range(40):
            _time.sleep(0.25)
            _forge()
    _os._exit(0)
"""
    ),
    "atexit_rewrites_report": edit_calc(FORGE + "import atexit\natexit.register(_forge, 1)\n"),
    "atexit_rewrites_report_and_exits_0": edit_calc(
        FORGE + "import atexit\natexit.register(lambda: (_forge(0), _os._exit(0)))\n"
    ),
    "testreport_monkeypatched_at_import": edit_calc("""
import _pytest.reports as _reports
_original = _reports.TestReport.from_item_and_call.__func__


def _always_passed(cls, item, call):
    report = _original(cls, item, call)
    report.outcome = "passed"
    return report


_reports.TestReport.from_item_and_call = classmethod(_always_passed)
"""),
    # auto-loaded files
    "sitecustomize": new_file("sitecustomize.py", FORGE + "import atexit\natexit.register(_forge, 1)\n"),
    "usercustomize": new_file("usercustomize.py", FORGE + "import atexit\natexit.register(_forge, 1)\n"),
    "pth_file": new_file("evil.pth", "import atexit, os; atexit.register(os._exit, 0)\n"),
    # a distribution's metadata at the tree root: pytest loads its pytest11 entry point by itself
    "dist_info_entry_point": new_file(
        "evil-1.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: evil\nVersion: 1.0\n"
    )
    + new_file("evil-1.0.dist-info/entry_points.txt", "[pytest11]\nevil = evil_plugin\n")
    + new_file("evil_plugin.py", FLIP_TEST_ADD),
    "egg_info_entry_point": new_file("evil.egg-info/PKG-INFO", "Metadata-Version: 1.0\nName: evil\nVersion: 1.0\n")
    + new_file("evil.egg-info/entry_points.txt", "[pytest11]\nevil = evil_plugin\n")
    + new_file("evil_plugin.py", FLIP_TEST_ADD),
    # the next ones a careful attacker tries
    "root_pytest_ini": new_file("pytest.ini", "[pytest]\naddopts = -p evil_plugin\n")
    + new_file("evil_plugin.py", ALL_PASS_HOOK),
    "setup_cfg_addopts": new_file("setup.cfg", "[tool:pytest]\naddopts = -p evil_plugin\n")
    + new_file("evil_plugin.py", ALL_PASS_HOOK),
    "pyproject_addopts": new_file("pyproject.toml", "[tool.pytest.ini_options]\naddopts = '-p evil_plugin'\n")
    + new_file("evil_plugin.py", ALL_PASS_HOOK),
    "conftest_in_tests_dir": new_file("tests/conftest.py", ALL_PASS_HOOK),
    "symlinked_tests_dir": new_file("tests", "fake_tests", mode="120000")
    + new_file("fake_tests/test_calc.py", "def test_add():\n    pass\n\n\ndef test_sub():\n    pass\n"),
    "shadow_pytest": new_file("pytest.py", "import sys\nsys.exit(0)\n"),
    "shadow_pytest_package": new_file("_pytest/__init__.py", "raise SystemExit(0)\n"),
    "shadow_stdlib_json": new_file("json.py", "dumps = lambda *a, **k: '{}'\n"),
    "shadow_reporter": new_file("sebgen_report_plugin.py", "def pytest_sessionfinish():\n    pass\n"),
    "callinfo_swallows_exceptions": edit_calc("""
import _pytest.runner as _runner
_from_call = _runner.CallInfo.from_call.__func__


def _no_raise(cls, func, when, reraise=None):
    info = _from_call(cls, func, when, reraise)
    info.excinfo = None
    return info


_runner.CallInfo.from_call = classmethod(_no_raise)
"""),
    "exit_0_at_import": edit_calc("import os as _os\n_os._exit(0)\n"),
    "overwrite_reporter_and_canaries": edit_calc("""
import glob as _glob
for _path in _glob.glob('/work/sebgen/*') + _glob.glob('/tmp/sebgen-report-*/*'):
    try:
        open(_path, 'w').write('def pytest_configure(config):\\n    pass\\n')
    except OSError:
        pass
"""),
    "unregister_reporter": new_file(
        "conftest.py",
        "def pytest_configure(config):\n    config.pluginmanager.unregister(name='sebgen_report_plugin')\n",
    ),
}


# -- fixtures ---------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def task(tmp_path_factory):
    repo, sha, bug, gold = calc_task(tmp_path_factory.mktemp("attacks") / "repo")
    return repo, sha, bug, gold


@pytest.fixture(scope="module", autouse=True)
def private_tmp(tmp_path_factory):
    """This module's temporary files go to a folder of their own (the machine's /tmp is shared)."""
    folder = tmp_path_factory.mktemp("tmp")
    saved, tempfile.tempdir = tempfile.tempdir, str(folder)
    yield folder
    tempfile.tempdir = saved
    assert sorted(p.name for p in folder.iterdir()) == []  # no tree, report or run folder left behind


@pytest.fixture(scope="module")
def docker(tmp_path_factory, private_tmp):
    require_docker()
    # nothing left behind: no container of this process (here), no temporary tree (private_tmp)
    yield from docker_backend_leaving_nothing(tmp_path_factory.mktemp("cache"), detect_recipe)


@pytest.fixture(scope="module")
def local(tmp_path_factory):
    backend = LocalBackend(
        limits=Limits(timeout_s=60),
        cache_dir=tmp_path_factory.mktemp("lcache"),
        recipe_for=detect_recipe,
        log=lambda m: None,
    )
    yield backend


def attempt(backend, task, patch, untrusted=True):
    repo, sha, bug, _ = task
    return run_attempt(backend, repo, sha, bug, TEST_PATCH, patch, TEST_FILES, untrusted=untrusted)


# -- the suite --------------------------------------------------------------------------------
def test_gold_resolves_and_nop_does_not(docker, task):
    gold = attempt(docker, task, task[3])
    assert attempt_verdict(gold, F2P, P2P)[0], (gold.note, gold.outcomes, gold.log_tail)
    nop = attempt(docker, task, "")
    assert not attempt_verdict(nop, F2P, P2P)[0]


@pytest.mark.parametrize("name", sorted(ATTACKS))
def test_attack_is_unresolved_in_docker(docker, task, name):
    run = attempt(docker, task, ATTACKS[name])
    resolved, why = attempt_verdict(run, F2P, P2P)
    assert not resolved, (name, run.outcomes, run.note, run.log_tail[-1500:])
    assert why


@pytest.mark.parametrize("name", sorted(ATTACKS))
def test_attack_is_unresolved_on_local(local, task, name):
    # SEBGen's own (trusted) path: as root the local backend refuses untrusted patches outright
    run = attempt(local, task, ATTACKS[name], untrusted=False)
    assert not attempt_verdict(run, F2P, P2P)[0], (name, run.outcomes, run.note, run.log_tail[-1500:])


def test_gold_resolves_on_local(local, task):
    assert attempt_verdict(attempt(local, task, task[3], untrusted=False), F2P, P2P)[0]


def test_the_report_says_what_was_reverted_and_removed(docker, task):
    run = attempt(
        docker,
        task,
        ATTACKS["tests_pytest_ini_addopts"] + ATTACKS["conftest_hookwrapper"] + new_file("usercustomize.py", "x = 1\n"),
    )
    assert "tests/pytest.ini" in run.removed and "conftest.py" in run.removed and "usercustomize.py" in run.removed
    edited = attempt(docker, task, ATTACKS["withheld_tests_edited"])
    assert edited.reverted == ["tests/test_calc.py"]


def test_shadowing_module_voids_the_attempt_with_the_reason(docker, task):
    run = attempt(docker, task, ATTACKS["shadow_pytest"])
    assert run.broken and "shadow the module 'pytest'" in run.note


def test_tampered_reporting_is_named(docker, task):
    run = attempt(docker, task, ATTACKS["atexit_rewrites_report_and_exits_0"])
    assert run.broken and "tampered" in run.note
    run = attempt(docker, task, ATTACKS["callinfo_swallows_exceptions"])
    assert run.broken and "canary" in run.note


def test_local_backend_refuses_agent_patches_as_root(local, task):
    from sandbox import SandboxError

    if os.geteuid() != 0:
        pytest.skip("the refusal concerns root; this test runs as an unprivileged user")
    with pytest.raises(SandboxError, match="does not run agent patches as root"):
        attempt(local, task, task[3], untrusted=True)


# -- resources --------------------------------------------------------------------------------
def test_binary_bomb_is_rejected_before_git_apply(docker, task):
    bomb = (
        "diff --git a/blob.bin b/blob.bin\nnew file mode 100644\nGIT binary patch\nliteral 536870912\n"
        "zcmeIuF#!Mo0K%a4Pi+o2h(KfM#Dd+00000\n\nliteral 0\nHcmV?d00001\n\n"
    )
    with pytest.raises(PatchError, match="inflate to 512.0 MiB"):
        attempt(docker, task, bomb)
    assert not any(Path(tempfile.gettempdir()).glob("sebgen-attempt-*/tree/blob.bin"))


def test_oversized_patch_is_rejected_before_git_apply(docker, task):
    with pytest.raises(PatchError, match="over the 2 MiB limit"):
        attempt(docker, task, new_file("big.txt", "x" * 100 + "\n") * 30000)


def test_filling_the_work_volume_stops_at_its_limit(task, tmp_path):
    require_docker()
    backend = make_backend(
        "docker",
        limits=Limits(timeout_s=60, memory_mb=512, memory_max_mb=512, work_mb=64),
        cache_dir=tmp_path / "cache",
        log=lambda m: None,
        recipe_for=detect_recipe,
    )
    try:
        run = attempt(
            backend,
            task,
            edit_calc("""
import os as _os
try:
    with open(_os.path.join(_os.path.dirname(__file__), 'fill.bin'), 'wb') as _fh:
        for _ in range(5 * 1024):
            _fh.write(b'x' * 2 ** 20)
except OSError as _exc:
    raise RuntimeError(f'fill stopped: errno {_exc.errno}')
"""),
        )
    finally:
        backend.close()
    assert not attempt_verdict(run, F2P, P2P)[0]
    assert "fill stopped: errno 28" in run.log_tail  # ENOSPC at the tmpfs limit, nothing on the host's disk
    assert "the tests filled /work (limit 64 MiB)" in attempt_verdict(run, F2P, P2P)[1]


def test_report_flood_is_cut_at_the_limit(docker, task):
    run = attempt(docker, task, edit_calc(pipe_flood(16)))
    assert run.broken and "over 4 MiB" in run.note


def test_output_flood_does_not_reach_the_container_log(docker, task, monkeypatch):
    from sandbox import containers, docker_client

    client = docker_client()
    log_sizes = []
    remove = containers.remove

    def measured_remove(cid):
        # what the engine kept as the container's log, read through its API (host paths may be invisible)
        try:
            log_sizes.append(len(client.api.logs(cid, stdout=True, stderr=True)))
        finally:
            remove(cid)

    monkeypatch.setattr(containers, "remove", measured_remove)
    run = attempt(
        docker, task, edit_calc("import sys as _sys\nfor _ in range(300):\n    _sys.stdout.write('y' * 2 ** 20)\n")
    )
    docker.idle_spares()  # used containers are removed in the background: wait for them
    client.close()
    assert not attempt_verdict(run, F2P, P2P)[0]
    assert len(run.log_tail) <= 16 * 1024
    assert log_sizes and max(log_sizes) < 2**20, log_sizes  # 300 MiB printed, under 1 MiB logged


def test_memory_bomb_ends_with_a_clear_reason(docker, task):
    run = attempt(docker, task, edit_calc("_blob = b'x' * (4 * 1024 ** 3)\n"))
    assert not attempt_verdict(run, F2P, P2P)[0]
    assert "out of memory" in run.note or "MemoryError" in run.log_tail, (run.note, run.log_tail[-500:])


def test_hang_is_cut_at_the_timeout(task, tmp_path):
    require_docker()
    backend = make_backend(
        "docker", limits=Limits(timeout_s=5), cache_dir=tmp_path / "cache", log=lambda m: None, recipe_for=detect_recipe
    )
    try:
        run = attempt(backend, task, edit_calc("import time as _t\n_t.sleep(3600)\n"))
    finally:
        backend.close()
    assert run.timed_out and not attempt_verdict(run, F2P, P2P)[0] and run.note == "timed out after 5 s"


# -- leases, deadlines, leftovers -------------------------------------------------------------
RUN_CHILD = """
import sys
sys.path.insert(0, {root!r})
from pathlib import Path
from sandbox import Limits
from environment import detect_recipe
from sandbox import make_backend
b = make_backend("docker", limits=Limits(timeout_s=600), cache_dir=Path({cache!r}), log=lambda m: None,
                 recipe_for=detect_recipe)
b.prepare(Path({repo!r}), {sha!r})
print("ready", flush=True)
b.run_tests(Path({repo!r}), {sha!r}, [{patch!r}], None)
"""


def running_of(client, pid: int) -> list[dict]:
    return client.api.containers(filters={"label": f"sebgen.pid={pid}", "status": "running"})


def wait_until_none_running(client, pid: int, deadline_s: float = 60.0) -> list[dict]:
    """Poll until the dead process has no running container, or the deadline passes."""
    end = time.monotonic() + deadline_s
    while True:
        left = running_of(client, pid)
        if not left or time.monotonic() > end:
            return left
        time.sleep(1)


def test_sigkill_of_a_run_leaves_no_running_container(task, tmp_path):
    require_docker()
    from sandbox import clean_stragglers, docker_client

    repo, sha, _, _ = task
    hang = edit_calc("import time as _t\n_t.sleep(3600)\n")
    script = RUN_CHILD.format(root=str(ROOT), cache=str(tmp_path / "cache"), repo=str(repo), sha=sha, patch=hang)
    client = docker_client()
    proc = subprocess.Popen(
        [sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
    )
    try:
        assert proc.stdout.readline().strip() == "ready"
        end = time.monotonic() + 120  # the run's container is up (a refill comes only after a run ends)
        while not running_of(client, proc.pid) and time.monotonic() < end and proc.poll() is None:
            time.sleep(0.5)
        assert running_of(client, proc.pid), "the run never started a container"
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        assert wait_until_none_running(client, proc.pid) == []
    finally:
        proc.kill()
        clean_stragglers(client, only_dead_owners=True)  # the stopped ones: any SEBGen start does this
        assert my_containers(client, proc.pid) == []
        client.close()


def test_sigkill_of_evaluate_leaves_no_running_container(task, tmp_path):
    require_docker()
    from sandbox import clean_stragglers, docker_client
    from tests.e2e import env

    gold = task[3]
    record = calc_record(task, gold, FAIL_TO_PASS=F2P, PASS_TO_PASS=P2P)
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text(json.dumps(record.to_dict()) + "\n")
    preds = tmp_path / "preds.jsonl"
    preds.write_text(
        json.dumps(
            {
                "instance_id": "calc-1",
                "model_name_or_path": "hang",
                "model_patch": edit_calc("import time as _t\n_t.sleep(3600)\n"),
            }
        )
        + "\n"
    )
    client = docker_client()
    since = int(time.time()) - 1
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "evo.cli",
            "evaluate",
            str(tasks),
            "--predictions",
            str(preds),
            "--out",
            str(tmp_path / "r.json"),
            "--set",
            "sandbox.backend=docker",
            "--set",
            "sandbox.timeout_s=600",
        ],
        cwd=ROOT,
        env=env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        events = client.events(
            since=since, decode=True, filters={"label": f"sebgen.pid={proc.pid}", "event": "start", "type": "container"}
        )
        next(iter(events))  # the attempt's container started
        events.close()
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        assert wait_until_none_running(client, proc.pid) == []
    finally:
        proc.kill()
        clean_stragglers(client, only_dead_owners=True)
        client.close()


def test_wedged_warm_container_is_replaced_and_the_run_ends_in_time(task, tmp_path, monkeypatch):
    require_docker()
    import sandbox.docker_backend as db
    from sandbox import docker_client

    monkeypatch.setattr(db, "ACK_TIMEOUT_S", 5)
    real_supervisor = db.SUPERVISOR_SOURCE
    deaf = tmp_path / "deaf_supervisor.py"  # a PID 1 that never reads its job: a wedged launcher
    deaf.write_text("import time\ntime.sleep(3600)\n")
    repo, sha, bug, gold = task
    timeout_s = 30
    client = docker_client()
    backend = make_backend(
        "docker",
        limits=Limits(timeout_s=timeout_s),
        cache_dir=tmp_path / "cache",
        log=lambda m: None,
        recipe_for=detect_recipe,
        warm_spares=1,  # the one wedged spare the run takes
    )
    try:
        monkeypatch.setattr(db, "SUPERVISOR_SOURCE", deaf)
        backend.prepare(repo, sha)
        wedged = backend.idle_spares()
        assert len(wedged) == 1
        monkeypatch.setattr(db, "SUPERVISOR_SOURCE", real_supervisor)  # the fresh container is healthy
        result: list = []
        worker = threading.Thread(
            target=lambda: result.append(backend.run_tests(repo, sha, [bug], TEST_FILES)), daemon=True
        )
        worker.start()
        worker.join(timeout=timeout_s + 60)  # the deadline: timeout_s plus a margin
        assert result, "the run did not end within timeout_s plus a margin"
        assert result[0].outcomes == {F2P[0]: "failed", P2P[0]: "passed"}, result[0].note
        assert client.api.containers(all=True, filters={"id": wedged[0]}) == []

        monkeypatch.setattr(db, "SUPERVISOR_SOURCE", deaf)  # every container from now on is wedged
        backend.close()
        backend = make_backend(
            "docker",
            limits=Limits(timeout_s=timeout_s),
            cache_dir=tmp_path / "cache",
            log=lambda m: None,
            recipe_for=detect_recipe,
        )
        backend.warm_spares = 0
        run = backend.run_tests(repo, sha, [bug], TEST_FILES)
        assert run.broken and "twice" in run.note and "did not acknowledge" in run.note
    finally:
        backend.close()
        client.close()


# -- nop and oracle for real (the functional layer) ---------------------------------------------
def calc_record(task, gold: str, **fields):
    """The calc task's record with `gold` as its fix (and any further `fields`)."""
    from records import Task

    repo, sha, bug, _ = task
    return Task(
        instance_id="calc-1",
        repo="calc",
        base_commit=sha,
        patch=gold,
        test_patch=TEST_PATCH,
        problem_statement="add() subtracts instead of adding its arguments.",
        bug_patch=bug,
        strategy_type="BUG_FIX",
        strategy_id="s",
        repo_path=str(repo),
        **fields,
    )


def test_functional_layer_rejects_a_task_whose_oracle_fails_through_evaluates_path(local, task):
    from tasks.validate import Validator, check_functional_layer

    validator = Validator(backend=local, reruns=1)
    good = check_functional_layer(calc_record(task, task[3]), validator, task[0])
    assert good.passed and good.details["oracle_resolved"] and not good.details["nop_resolved"], good.reason
    # a "fix" that lives in a conftest.py: the plain before/after runs see F2P pass, but the
    # verifier removes a conftest.py the patch adds, so the oracle cannot pass through evaluate
    via_conftest = new_file("conftest.py", "import calc\n\ncalc.add = lambda a, b: a + b\n")
    bad = check_functional_layer(calc_record(task, via_conftest), validator, task[0])
    assert not bad.passed and not bad.details["oracle_resolved"]
    assert "gold patch does not resolve the task through evaluate's path" in bad.reason
