"""The Docker backend: one image per snapshot, hostile task code contained, no stragglers.

Marked `docker`: skipped with a reason when no engine answers, failed instead when
SEBGEN_REQUIRE_DOCKER=1 (CI provisions the engine with .ci/provision_docker.sh).
"""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from environment import RecipeBook, detect_recipe
from sandbox import Limits, check_functional, make_backend, run_parallel
from tests.sandbox_fixtures import (
    CALC_BUGGY,
    CALC_FIXED,
    CALC_TESTS,
    bug_and_gold,
    bug_task,
    calc_task,
    make_repo,
    my_containers,
    require_docker,
)

pytestmark = pytest.mark.docker
ROOT = Path(__file__).resolve().parents[2]
F2P = "tests/test_calc.py::test_add"
P2P = "tests/test_calc.py::test_sub"
LIMITS = Limits(timeout_s=30, memory_mb=256, memory_max_mb=512, cpus=1.0, pids=64)


@pytest.fixture(scope="module")
def client():
    require_docker()
    from sandbox import docker_client

    c = docker_client()
    yield c
    c.close()


@pytest.fixture(scope="module")
def backend(client, tmp_path_factory):
    b = make_backend(
        "docker",
        limits=LIMITS,
        cache_dir=tmp_path_factory.mktemp("cache"),
        log=lambda m: None,
        recipe_for=detect_recipe,
    )
    yield b
    b.close()


def used_containers(client, *backends) -> list[dict]:
    """This process's containers other than the idle, never used spares of `backends`."""
    spares = {cid for b in backends for cid in b.idle_spares()}
    return [c for c in my_containers(client) if c["Id"] not in spares]


def hostile_task(root: Path, body: str, tests: str = CALC_TESTS):
    """A task whose gold (fixed) add() runs `body` first; the bug state does not run it."""
    fixed = (
        "def add(a, b):\n" + textwrap.indent(textwrap.dedent(body), "    ") + "\n    return a + b\n\n\n"
        "def sub(a, b):\n    return a - b\n"
    )
    return bug_task(root, {"calc.py": fixed, "tests/test_calc.py": tests}, {"calc.py": CALC_BUGGY})


# -- the basics ---------------------------------------------------------------------------
def test_make_backend_auto_picks_docker_and_says_so(client, tmp_path):
    logs: list[str] = []
    b = make_backend("auto", cache_dir=tmp_path, log=logs.append, recipe_for=detect_recipe)
    assert b.name == "docker"
    assert any(m.startswith("sandbox: using Docker engine (") for m in logs)


def test_back_to_back_runs_each_take_a_spare_started_before_them(tmp_path):
    """Two spares per image: a validation's bug-state and gold-state runs follow each other faster
    than a container starts, so both find one ready, and the pool is full again afterwards."""
    b = make_backend(
        "docker", limits=LIMITS, cache_dir=tmp_path / "cache", log=lambda m: None, recipe_for=detect_recipe
    )
    try:
        repo, sha, bug, _ = calc_task(tmp_path / "repo")
        b.prepare(repo, sha)
        ready = b.idle_spares()
        assert len(ready) == 2
        taken = []
        for _ in range(2):
            with b._lock:  # what the run is about to take: the spares ready now
                before = {w.cid for ws in b._spares.values() for w in ws}
            run = b.run_tests(repo, sha, [bug], ["tests/test_calc.py"])
            assert run.outcomes == {F2P: "failed", P2P: "passed"}, run.note
            with b._lock:
                after = {w.cid for ws in b._spares.values() for w in ws}
            taken += sorted(before - after)
        assert len(taken) == 2 and set(taken) == set(ready)  # each run took a spare that was ready
        assert len(b.idle_spares()) == 2 and not set(b.idle_spares()) & set(ready)
    finally:
        b.close()


def test_a_run_says_where_its_time_went(backend, tmp_path):
    repo, sha, bug, _ = calc_task(tmp_path / "repo")
    backend.run_tests(repo, sha, [bug], ["tests/test_calc.py"])  # the next run finds a spare ready
    run = backend.run_tests(repo, sha, [bug], ["tests/test_calc.py"])
    assert run.outcomes == {F2P: "failed", P2P: "passed"}
    steps = {"image", "tar", "container", "send", "extract", "pytest", "cleanup", "in_container", "remove"}
    assert set(run.phases) == steps | {"pytest_cpu"}
    assert all(v >= 0 for v in run.phases.values()) and run.phases["pytest_cpu"] > 0
    assert sum(run.phases[k] for k in steps) <= run.duration_s + run.phases["image"] + run.phases["tar"] + 1


def test_containers_go_under_the_configured_cgroup_parent(client, tmp_path):
    from dataclasses import replace

    limits = replace(LIMITS, cgroup_parent="/sebgen-test")
    b = make_backend(
        "docker", limits=limits, cache_dir=tmp_path / "cache", log=lambda m: None, recipe_for=detect_recipe
    )
    try:
        repo, sha, bug, _ = calc_task(tmp_path / "repo")
        run = b.run_tests(repo, sha, [bug], ["tests/test_calc.py"])
        assert run.outcomes == {F2P: "failed", P2P: "passed"}, run.note
        spares = b.idle_spares()  # started like the run's container
        assert spares
        assert all(client.api.inspect_container(c)["HostConfig"]["CgroupParent"] == "/sebgen-test" for c in spares)
    finally:
        b.close()


def test_by_default_containers_go_where_the_engines_driver_gives_them_a_fair_cpu_share(backend, client, tmp_path):
    from sandbox.containers import fair_cgroup_parent

    info = client.info()
    expected = fair_cgroup_parent("auto", info)
    assert backend.limits.cgroup_parent == expected
    repo, sha, bug, _ = calc_task(tmp_path / "repo")
    run = backend.run_tests(repo, sha, [bug], ["tests/test_calc.py"])
    assert run.outcomes == {F2P: "failed", P2P: "passed"}, run.note
    spares = backend.idle_spares()
    assert spares
    for cid in spares:
        assert client.api.inspect_container(cid)["HostConfig"]["CgroupParent"] == expected
        if expected == "/":  # a group of its own right under the root, not the engine's one group
            read = client.api.exec_create(cid, ["cat", "/proc/1/cgroup"], user="sebgen")
            groups = client.api.exec_start(read).decode()
            cpu = next(g for g in groups.splitlines() if "cpu" in g.split(":")[1].split(",") or g.startswith("0::"))
            assert cpu.split(":", 2)[2] in (f"/{cid}", "/"), groups  # "/": a private cgroup namespace


def test_docker_functional_check_matches_the_local_semantics(backend, client, tmp_path):
    repo, sha, bug, gold = calc_task(tmp_path / "repo")
    res = check_functional(backend, repo, sha, bug, gold, ["tests/test_calc.py"], reruns=1)
    assert res.passed, res.reason
    assert (res.fail_to_pass, res.pass_to_pass) == ([F2P], [P2P])
    assert res.image.startswith("sebgen-env:")
    assert used_containers(client, backend) == []


def test_n_tasks_of_one_snapshot_cause_one_image_build(client, tmp_path):
    from sandbox import disk_report, prune_images

    # a unique setup.cfg gives this snapshot its own environment key (and nothing to install)
    extra = {"setup.cfg": f"# snapshot {tmp_path.name} {time.time_ns()}\n[metadata]\nname = calc\n"}
    repo, sha, bug, gold = calc_task(tmp_path / "repo", extra=extra)
    b = make_backend(
        "docker", limits=LIMITS, cache_dir=tmp_path / "cache", log=lambda m: None, recipe_for=detect_recipe
    )
    try:
        tag = b.environment_id(repo, sha)
        tasks = [(bug, gold)] + [
            bug_and_gold(repo, sha, {"calc.py": CALC_FIXED}, {"calc.py": CALC_FIXED.replace(old, new)})
            for old, new in (("return a + b", "return a * b"), ("return a - b", "return a + b"))
        ]
        results = run_parallel(
            lambda t: check_functional(b, repo, sha, t[0], t[1], ["tests/test_calc.py"], reruns=1), tasks, workers=2
        )
        assert [r.fail_to_pass for r in results] == [[F2P], [F2P], [P2P]]
        assert b.builds == [tag]
        disk = disk_report(client)
        assert tag in [t for img in disk["items"] for t in img["tags"]]
        assert disk["images"] == len(disk["items"]) and disk["size_mb"] > 0
    finally:
        b.close()
        kept = prune_images(client, keep={tag}, only={tag})
        removed = prune_images(client, keep=set(), only={tag})
    assert kept == [] and removed == [tag]
    assert client.api.images(name=tag) == []


def test_install_override_and_test_command_are_used(client, tmp_path):
    from sandbox import prune_images

    name = f"custom{time.time_ns()}"  # a fresh recipe: its own image
    tests = "import os\n\n\ndef test_installed():\n    assert os.path.exists('/opt/venv/custom-marker')\n"
    repo, sha = make_repo(tmp_path / name, {"tests/test_it.py": tests})
    install = {
        name: {"install": "touch /opt/venv/custom-marker", "test_cmd": "python -m pytest", "packages": ["iniconfig"]}
    }
    b = make_backend(
        "docker",
        limits=LIMITS,
        cache_dir=tmp_path / "cache",
        recipe_for=RecipeBook(install, tmp_path / "cache").recipe_for,
        log=lambda m: None,
    )
    try:
        run = b.run_tests(repo, sha, (), None)
        assert run.outcomes == {"tests/test_it.py::test_installed": "passed"}, run.log_tail
        assert b.builds == [run.image]
    finally:
        b.close()
        prune_images(client, keep=set(), only={run.image})


def test_failing_install_raises_build_error_with_the_log_tail(client, tmp_path):
    from sandbox import BuildError

    name = f"broken{time.time_ns()}"
    repo, sha = make_repo(tmp_path / name, {"tests/test_it.py": "def test_x():\n    pass\n"})
    install = {name: {"install": "echo install-went-wrong-here; exit 3"}}
    b = make_backend(
        "docker",
        limits=LIMITS,
        cache_dir=tmp_path / "cache",
        recipe_for=RecipeBook(install, tmp_path / "cache").recipe_for,
        log=lambda m: None,
    )
    with pytest.raises(BuildError, match="install-went-wrong-here") as err:
        b.run_tests(repo, sha, (), None)
    b.close()
    assert "build-logs" in str(err.value)
    assert list((tmp_path / "cache" / "build-logs").iterdir())


# -- hostile task code --------------------------------------------------------------------
def test_infinite_loop_is_stopped_by_the_timeout(backend, client, tmp_path):
    b = make_backend(
        "docker",
        limits=Limits(timeout_s=10, memory_mb=256, memory_max_mb=256, pids=64),
        cache_dir=tmp_path,
        log=lambda m: None,
        recipe_for=detect_recipe,
    )
    repo, sha, bug, gold = hostile_task(tmp_path / "repo", "while True:\n    pass")
    res = check_functional(b, repo, sha, bug, gold, ["tests/test_calc.py"], reruns=1)
    assert not res.passed
    assert res.reason == "the gold state timed out: timed out after 10 s"
    assert used_containers(client, b, backend) == []
    b.close()


def test_fork_bomb_hits_the_pid_limit(backend, tmp_path):
    body = """
    import os, time
    forks = 0
    while True:
        try:
            pid = os.fork()
        except OSError:
            break
        if pid == 0:
            time.sleep(60)
            os._exit(0)
        forks += 1
    raise RuntimeError(f"fork limit hit after {forks} forks")
    """
    repo, sha, bug, gold = hostile_task(tmp_path / "repo", body)
    run = backend.run_tests(repo, sha, [], ["tests/test_calc.py"])
    forks = int(re.search(r"fork limit hit after (\d+) forks", run.log_tail).group(1))
    assert 0 < forks < LIMITS.pids
    res = check_functional(backend, repo, sha, bug, gold, ["tests/test_calc.py"], reruns=1)
    assert not res.passed and res.reason.startswith("no FAIL_TO_PASS test: 1 test(s) fail in the gold state")


def test_allocating_4_gib_is_stopped_by_the_memory_limit(backend, tmp_path):
    repo, sha, bug, gold = hostile_task(tmp_path / "repo", "blob = b'x' * (4 * 1024 ** 3)")
    run = backend.run_tests(repo, sha, [], ["tests/test_calc.py"])
    assert run.outcomes.get(F2P) != "passed"
    assert "out of memory" in run.note or "MemoryError" in run.log_tail
    res = check_functional(backend, repo, sha, bug, gold, ["tests/test_calc.py"], reruns=1)
    assert not res.passed
    assert "gold state" in res.reason and ("out of memory" in res.reason or F2P in res.reason)


def test_tests_killed_for_memory_run_once_more_with_the_most_allowed(client, backend, tmp_path):
    """jwcrypto's suite peaks at 2.4 GB: at the default limit every state was "inconsistent" and
    none of its commits became a task. A run killed for memory runs again at `memory_max_mb`."""
    logs: list[str] = []
    b = make_backend("docker", limits=LIMITS, cache_dir=tmp_path / "cache", log=logs.append, recipe_for=detect_recipe)
    try:
        repo, sha, bug, gold = hostile_task(tmp_path / "repo", "blob = b'x' * (320 * 1024 ** 2)\ndel blob")
        run = b.run_tests(repo, sha, [], ["tests/test_calc.py"])  # the fixed state: it allocates
        assert run.outcomes.get(F2P) == "passed" and not run.out_of_memory, (run.note, run.log_tail[-300:])
        assert any("ran out of memory (limit 256 MB)" in m and "again with 512 MB" in m for m in logs), logs
        logs.clear()  # the same environment's next run starts with the most allowed: no second kill
        run = b.run_tests(repo, sha, [], ["tests/test_calc.py"])
        assert run.outcomes.get(F2P) == "passed" and not any("ran out of memory" in m for m in logs), logs
        greedy, sha2, _, _ = hostile_task(tmp_path / "greedy", "blob = b'x' * (900 * 1024 ** 2)")
        run = b.run_tests(greedy, sha2, [], ["tests/test_calc.py"])
        assert run.out_of_memory and run.broken and "(limit 512 MB)" in run.note, run.note
    finally:
        b.close()
    assert used_containers(client, b, backend) == []  # the module's backend keeps its spares


def test_outside_connection_finds_no_network(backend, tmp_path):
    body = """
    import socket
    try:
        socket.create_connection(("203.0.113.1", 80), timeout=2).close()
    except OSError as exc:
        raise RuntimeError(f"connect failed errno={exc.errno}")
    """
    repo, sha, bug, gold = hostile_task(tmp_path / "repo", body)
    run = backend.run_tests(repo, sha, [], ["tests/test_calc.py"])
    assert run.outcomes[F2P] == "failed"
    assert "connect failed errno=101" in run.log_tail  # ENETUNREACH: no interface but loopback
    res = check_functional(backend, repo, sha, bug, gold, ["tests/test_calc.py"], reruns=1)
    assert not res.passed and F2P in res.reason


def test_nothing_of_the_host_is_writable(backend, tmp_path):
    host_marker = tmp_path / "escaped.txt"
    body = f"""
    blocked = []
    for path in ({str(host_marker)!r}, "/etc/escaped", "/usr/lib/escaped", "/opt/venv/escaped"):
        try:
            open(path, "w").write("x")
        except OSError as exc:
            blocked.append(f"{{path}}: {{exc.strerror}}")
    raise RuntimeError("blocked writes: " + "; ".join(blocked))
    """
    repo, sha, bug, gold = hostile_task(tmp_path / "repo", body)
    run = backend.run_tests(repo, sha, [], ["tests/test_calc.py"])
    assert not host_marker.exists()
    assert "/etc/escaped: Read-only file system" in run.log_tail
    assert "/opt/venv/escaped: Read-only file system" in run.log_tail
    assert run.outcomes[F2P] == "failed"
    res = check_functional(backend, repo, sha, bug, gold, ["tests/test_calc.py"], reruns=1)
    assert not res.passed and not host_marker.exists()


def test_failing_test_that_prints_passed_is_not_counted(backend, tmp_path):
    tests = CALC_TESTS + (
        "\n\ndef test_liar():\n    import os\n"
        "    os.write(1, b'tests/test_calc.py::test_liar PASSED\\n')\n    assert False\n"
    )
    repo, sha, bug, gold = calc_task(tmp_path / "repo", tests=tests)
    run = backend.run_tests(repo, sha, [], ["tests/test_calc.py"])
    assert "test_liar PASSED" in run.log_tail
    assert run.outcomes["tests/test_calc.py::test_liar"] == "failed"
    res = check_functional(backend, repo, sha, bug, gold, ["tests/test_calc.py"], reruns=1)
    assert res.passed and "tests/test_calc.py::test_liar" not in res.fail_to_pass + res.pass_to_pass


def test_random_test_never_lands_in_f2p_or_p2p(backend, tmp_path):
    # 7 reruns per state: a coin-flip test looks stable in the F2P or P2P pattern with p = 2/2**14
    tests = CALC_TESTS + "\n\ndef test_coin():\n    import os\n    assert os.urandom(1)[0] < 128\n"
    repo, sha, bug, gold = calc_task(tmp_path / "repo", tests=tests)
    res = check_functional(backend, repo, sha, bug, gold, ["tests/test_calc.py"], reruns=7)
    assert "tests/test_calc.py::test_coin" not in res.fail_to_pass + res.pass_to_pass
    assert res.fail_to_pass == [F2P]


# -- no stragglers ------------------------------------------------------------------------
def test_no_container_is_left_when_the_worker_raises(backend, client, tmp_path, monkeypatch):
    import sandbox.docker_backend as db

    b = make_backend(
        "docker", limits=LIMITS, cache_dir=tmp_path / "cache", log=lambda m: None, recipe_for=detect_recipe
    )
    repo, sha, bug, _ = calc_task(tmp_path / "repo")
    b.prepare(repo, sha)  # two started spares wait for the next runs
    assert len(b.idle_spares()) == 2

    def explode(*a, **k):
        raise RuntimeError("worker exploded mid-run")

    monkeypatch.setattr(db, "parse_report", explode)
    with pytest.raises(RuntimeError, match="worker exploded"):
        run_parallel(lambda _: b.run_tests(repo, sha, [bug], None), [1, 2], workers=2)
    assert used_containers(client, b, backend) == []
    spares = b.idle_spares()
    b.close()
    assert all(client.api.containers(all=True, filters={"id": cid}) == [] for cid in spares)


# The child takes Ctrl-C as a terminal's foreground process does, however the suite was started:
# a shell without job control starts a background job (CI's `.ci/run ... &`) with SIGINT ignored,
# the child inherits that, and Python then never raises KeyboardInterrupt (the run went on to its
# own timeout). Its run timeout is far beyond the test's wait, so an interrupt not acted on fails fast.
SIGINT_CHILD = """
import signal
signal.signal(signal.SIGINT, signal.default_int_handler)
import sys
sys.path.insert(0, {root!r})
from pathlib import Path
from sandbox import Limits
from environment import detect_recipe
from sandbox import make_backend
b = make_backend("docker", limits=Limits(timeout_s=900), cache_dir=Path({cache!r}), log=lambda m: None,
                 recipe_for=detect_recipe)
b.run_tests(Path({repo!r}), {sha!r}, [], None)
"""


def test_no_container_is_left_after_sigint(client, tmp_path):
    repo, sha, _, _ = hostile_task(tmp_path / "repo", "while True:\n    pass")
    script = SIGINT_CHILD.format(root=str(ROOT), cache=str(tmp_path / "cache"), repo=str(repo), sha=sha)
    since = int(time.time()) - 1
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        # block until the child's container starts (engine events, no polling)
        events = client.events(
            since=since, decode=True, filters={"label": f"sebgen.pid={proc.pid}", "event": "start", "type": "container"}
        )
        next(iter(events))
        events.close()
        assert len(my_containers(client, proc.pid)) >= 1  # the run's container (a warm spare may join it)
        proc.send_signal(signal.SIGINT)
        out, _ = proc.communicate(timeout=60)  # about 2 s on a quiet machine; the bound is for a loaded CI box
    finally:
        proc.kill()
    assert proc.returncode != 0 and b"KeyboardInterrupt" in out
    # removed before the child exits: the run's container as it unwinds, a spare and anything still
    # being created by the exit hook (containers.remove_all), so nothing is left to wait for
    assert my_containers(client, proc.pid) == []


def test_normal_runs_leave_no_container(backend, client, tmp_path):
    b = make_backend(
        "docker", limits=LIMITS, cache_dir=tmp_path / "cache", log=lambda m: None, recipe_for=detect_recipe
    )
    repo, sha, bug, gold = calc_task(tmp_path / "repo")
    check_functional(b, repo, sha, bug, gold, None, reruns=1)
    assert used_containers(client, b, backend) == []
    spares = b.idle_spares()
    b.close()
    assert spares and all(client.api.containers(all=True, filters={"id": cid}) == [] for cid in spares)


# -- maintenance helpers ------------------------------------------------------------------
def test_clean_stragglers_removes_containers_of_dead_owners(client):
    from sandbox import clean_stragglers
    from sandbox.containers import run_labels

    dead = client.containers.create(
        "sebgen-base:bookworm", ["true"], labels={**run_labels(), "sebgen.pid": "999999999"}
    )
    elsewhere = client.containers.create(
        "sebgen-base:bookworm",
        ["true"],  # another machine's: not judged
        labels={**run_labels(), "sebgen.pid": "999999999", "sebgen.host": "x-other"},
    )
    try:
        assert clean_stragglers(client, only_dead_owners=True) >= 1
        assert client.api.containers(all=True, filters={"id": dead.id}) == []
        assert client.api.containers(all=True, filters={"id": elsewhere.id}) != []
    finally:
        elsewhere.remove(force=True)


def test_base_image_status_names_a_usable_base(client):
    from sandbox import base_image_status

    status = base_image_status(client)
    assert status["usable"] in (status["base_image"], status["offline_base_image"])
    assert status["available"] is True and status["detail"].startswith(f"using {status['usable']}")
