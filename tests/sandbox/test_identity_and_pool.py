"""Repository identity (the recipe cache, instance ids, `repo`) and the Docker backend's warm pool.

Identity: `owner/name` from the remote, else the folder name with the root commit, so two
clones whose folders share a name are two repositories unless they share their history.
The warm-pool tests (marked `docker`) run one test on each of three tiny snapshots, and on two
snapshots in two Dask workers (the cap holds across the machine's processes).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from environment import Fix, RecipeBook
from sandbox import Limits, repo_name, shown_name
from tests.sandbox_fixtures import git, make_repo, my_containers, require_docker

LIB = "def f():\n    return 1\n"
TEST = "from lib import f\n\n\ndef test_f():\n    assert f() == 1\n"


def two_repos_named_repo(tmp_path):
    """Two different repositories (their own root commits), both in a folder called `repo`."""
    a, _ = make_repo(tmp_path / "a" / "repo", {"lib.py": LIB, "tests/test_lib.py": TEST})
    b, _ = make_repo(tmp_path / "b" / "repo", {"lib.py": LIB.replace("1", "2"), "tests/test_lib.py": TEST})
    return a, b


def test_two_same_named_clones_have_their_own_identity_and_recipe_cache(tmp_path):
    a, b = two_repos_named_repo(tmp_path)
    root_a = git(a, "rev-list", "--max-parents=0", "HEAD")
    assert repo_name(a) == f"repo-{root_a[:12]}" and repo_name(b).startswith("repo-")
    assert repo_name(a) != repo_name(b)
    # the prose calls both by their folder's name: the root commit only keeps their ids apart
    assert shown_name(repo_name(a)) == shown_name(repo_name(b)) == "repo"
    assert shown_name("acme/widgets-1") == "acme/widgets-1"
    logs: list[str] = []
    book = RecipeBook({}, tmp_path / "cache", log=logs.append)
    book.learn(a, Fix("module yaml is missing: install PyYAML", packages=["PyYAML"], rule="missing-module"), "HEAD")
    # a later run over the same cache: the fix comes back for `a` only
    later = RecipeBook({}, tmp_path / "cache", log=logs.append)
    assert later.override(b) == {}
    assert later.recipe_for(b, "HEAD").packages == ()
    assert later.override(a) == {"packages": ["PyYAML"]}
    assert [m for m in logs if "reusing" in m] == [
        f"sandbox: reusing the environment fixes learned for {repo_name(a)} "
        f"({tmp_path / 'cache' / 'recipes' / (repo_name(a) + '.json')})"
    ]
    # a config entry may still name a repository by its folder name
    configured = RecipeBook({"repo": {"packages": ["six"]}}, tmp_path / "cache2", log=logs.append)
    assert configured.override(a) == configured.override(b) == {"packages": ["six"]}


def test_clones_of_one_history_share_it_and_local_remotes_lead_to_owner_name(tmp_path):
    a, b = two_repos_named_repo(tmp_path)
    # two mirrors called `repo` of two different projects: their clones keep the projects apart
    clone_a, clone_b = tmp_path / "c1" / "repo", tmp_path / "c2" / "repo"
    git(tmp_path, "clone", "-q", str(a), str(clone_a))
    git(tmp_path, "clone", "-q", str(b), str(clone_b))
    assert repo_name(clone_a) == repo_name(a) and repo_name(clone_b) == repo_name(b)
    assert repo_name(clone_a) != repo_name(clone_b)
    # a mirror whose own remote names the project gives its clones that owner/name
    git(a, "remote", "add", "origin", "https://github.com/acme/widgets.git")
    clone = tmp_path / "c3" / "repo"
    git(tmp_path, "clone", "-q", str(a), str(clone))
    assert repo_name(clone) == "acme/widgets"


def test_instance_ids_and_repo_use_the_identity(tmp_path):
    from tasks.mining import instance_prefix, mine_commits

    candidates = []
    for where in ("a", "b"):
        repo, _ = make_repo(tmp_path / where / "repo", {"lib.py": LIB, "tests/test_lib.py": TEST, "README": where})
        (repo / "lib.py").write_text(LIB + "\n\ndef g():\n    return 2\n")
        (repo / "tests" / "test_lib.py").write_text(
            TEST + "\n\ndef test_g():\n    from lib import g\n\n    assert g() == 2\n"
        )
        git(repo, "commit", "-q", "-am", f"Fix g missing from lib in the {where} project")
        [candidate] = mine_commits(repo, [git(repo, "rev-parse", "HEAD")]).candidates
        candidates.append(candidate)
    first, second = candidates
    assert first.repo == repo_name(tmp_path / "a" / "repo") and first.repo.startswith("repo-")
    assert first.repo != second.repo
    # the task's instance id starts with instance_prefix(candidate.repo) (tasks.generate.skeleton)
    assert instance_prefix(first.repo) != instance_prefix(second.repo)
    assert instance_prefix("acme/widgets") == "acme__widgets"


# -- the warm pool, in Docker ----------------------------------------------------------------
@pytest.mark.docker
def test_warm_pool_keeps_at_most_the_total_across_images_evicting_the_least_recently_used(tmp_path):
    require_docker()
    from environment import make_sandbox
    from sandbox import docker_client

    repos = []
    for number in range(3):  # three snapshots, three environment images (their setup.cfg differs)
        extra = {"setup.cfg": f"# pool snapshot {number} {tmp_path.name}\n"}
        repos.append(make_repo(tmp_path / f"r{number}", {"lib.py": LIB, "tests/test_lib.py": TEST, **extra}))
    backend = make_sandbox(
        "docker",
        limits=Limits(timeout_s=60, memory_mb=256),
        cache_dir=tmp_path / "cache",
        log=lambda m: None,
        warm_spares_total=2,
        warm_spares=1,  # one per image: the cap across images decides which keep theirs
    )
    client = docker_client()

    def idle_images() -> list[str]:
        spares = set(backend.inner.idle_spares())
        mine = my_containers(client)
        assert {c["Id"] for c in mine} == spares  # nothing else of this process is left running
        return sorted(c["Labels"]["sebgen.env"] for c in mine)

    try:
        tags = []
        for repo, sha in repos:
            run = backend.run_tests(repo, sha, [], ["tests/test_lib.py"])
            assert run.outcomes == {"tests/test_lib.py::test_f": "passed"}, run.note
            tags.append(run.image)
        assert len(set(tags)) == 3
        assert idle_images() == sorted(tags[1:])  # the first image, least recently used, lost its spare
        repo, sha = repos[0]
        backend.run_tests(repo, sha, [], ["tests/test_lib.py"])
        assert idle_images() == sorted([tags[2], tags[0]])  # now the second one is the oldest
    finally:
        backend.close()
        left = my_containers(client)
        client.close()
    assert left == []


def test_the_spare_ledger_counts_the_live_processes_of_the_machine(tmp_path):
    from sandbox.warm_ledger import SpareLedger

    ledger = SpareLedger(tmp_path, total=2)
    (tmp_path / "1.count").write_text("1")  # pid 1 lives (init): its spare counts
    dead = subprocess.Popen(["true"])
    dead.wait()
    (tmp_path / f"{dead.pid}.count").write_text("5")  # a process that is gone holds nothing
    assert ledger.held_by_others() == 1 and not (tmp_path / f"{dead.pid}.count").exists()
    assert ledger.claim(held=0) is True  # 1 + 0 + 1 <= 2
    assert ledger.claim(held=1) is False  # 1 + 1 + 1 > 2: the machine holds the cap
    assert ledger.mine.read_text() == "1"
    ledger.close()
    assert not ledger.mine.exists()


_WORKER_BACKEND: dict = {}


def _worker_run(repo: str, sha: str, cache_dir: str) -> str:
    """In a Dask worker: the farm's way, one backend per worker process, kept between units."""
    from environment import make_sandbox

    if "backend" not in _WORKER_BACKEND:
        _WORKER_BACKEND["backend"] = make_sandbox(
            "docker",
            limits=Limits(timeout_s=60, memory_mb=256),
            cache_dir=Path(cache_dir),
            log=lambda m: None,
            warm_spares_total=1,
        )
    run = _WORKER_BACKEND["backend"].run_tests(Path(repo), sha, [], ["tests/test_lib.py"])
    return run.image if run.outcomes == {"tests/test_lib.py::test_f": "passed"} else f"failed: {run.note}"


def _worker_idle() -> list[str]:
    backend = _WORKER_BACKEND.get("backend")
    return backend.inner.idle_spares() if backend is not None else []


def _worker_close() -> None:
    backend = _WORKER_BACKEND.pop("backend", None)
    if backend is not None:
        backend.close()


@pytest.mark.docker
def test_the_warm_pool_cap_holds_across_two_dask_workers(tmp_path):
    require_docker()
    from dask.distributed import Client, LocalCluster

    repos = []
    for number in range(2):  # two snapshots, two images: each worker keeps a spare of its own image
        extra = {"setup.cfg": f"# ledger snapshot {number} {tmp_path.name}\n"}
        repos.append(make_repo(tmp_path / f"r{number}", {"lib.py": LIB, "tests/test_lib.py": TEST, **extra}))
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
    client = Client(cluster)
    try:
        workers = sorted(client.scheduler_info()["workers"])
        images = []
        for (repo, sha), worker in zip(repos, workers):  # one after the other: the first holds its spare
            image = client.submit(_worker_run, str(repo), sha, str(tmp_path / "cache"), workers=[worker]).result()
            assert not image.startswith("failed"), image
            images.append(image)
        idle = client.run(_worker_idle)
        assert len(images) == 2 and images[0] != images[1]
        # one cap (1) for the machine: without the ledger each worker would keep one (2 in all)
        assert sum(len(cids) for cids in idle.values()) == 1, idle
        assert idle[workers[0]] and not idle[workers[1]]
    finally:
        client.run(_worker_close)
        client.close()
        cluster.close()


@pytest.mark.docker
def test_the_exit_hook_removes_a_container_whose_id_never_reached_the_registry():
    """An interrupt during the engine's create call leaves a container nobody registered: the exit
    hook finds it by this process's labels; another process's container is not touched."""
    require_docker()
    from sandbox import containers, docker_client

    client = docker_client()
    unregistered = client.api.create_container("sebgen-base:bookworm", ["true"], labels=containers.run_labels())["Id"]
    other = client.api.create_container(
        "sebgen-base:bookworm", ["true"], labels={**containers.run_labels(), "sebgen.pid": "999999999"}
    )["Id"]
    try:
        containers.creating(client)
        containers.remove_all()
        assert client.api.containers(all=True, filters={"id": unregistered}) == []
        assert client.api.containers(all=True, filters={"id": other}) != []
    finally:
        for cid in (unregistered, other):
            try:
                client.api.remove_container(cid, force=True)
            except Exception:
                pass
        client.close()
