"""Tiny git repos for the sandbox tests, and the Docker availability gate."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

GIT_ENV = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.com",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.com",
    "GIT_AUTHOR_DATE": "2024-01-01T00:00:00Z",
    "GIT_COMMITTER_DATE": "2024-01-01T00:00:00Z",
}


def git(repo: Path, *args: str) -> str:
    out = subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, text=True, env={**os.environ, **GIT_ENV}, check=True
    )
    return out.stdout.strip()


def make_repo(root: Path, files: dict[str, str]) -> tuple[Path, str]:
    """A one-commit git repo holding `files`; returns (repo, sha)."""
    root.mkdir(parents=True, exist_ok=True)
    git(root, "init", "-q")
    write(root, files)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "fixed state with tests")
    return root, git(root, "rev-parse", "HEAD")


def write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def diff_for(repo: Path, changes: dict[str, str]) -> str:
    """The unified diff that turns HEAD's files into `changes` (the repo is left at HEAD)."""
    write(repo, changes)
    diff = git(repo, "diff") + "\n"
    git(repo, "reset", "-q", "--hard")
    return diff


CALC_FIXED = "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n"
CALC_BUGGY = "def add(a, b):\n    return a - b\n\n\ndef sub(a, b):\n    return a - b\n"
CALC_TESTS = (
    "from calc import add, sub\n\n\n"
    "def test_add():\n    assert add(2, 3) == 5\n\n\n"
    "def test_sub():\n    assert sub(5, 3) == 2\n"
)


def bug_task(root: Path, fixed: dict[str, str], buggy: dict[str, str]) -> tuple[Path, str, str, str]:
    """(repo, base_commit, bug_patch, gold_patch): `fixed` committed, `buggy` the bug's changes."""
    repo, sha = make_repo(root, fixed)
    return (repo, sha, *bug_and_gold(repo, sha, {k: fixed[k] for k in buggy}, buggy))


def bug_and_gold(repo: Path, sha: str, fixed: dict[str, str], buggy: dict[str, str]) -> tuple[str, str]:
    """(bug_patch, gold_patch) of one more bug on the snapshot `sha` (the repo is left at sha)."""
    bug = diff_for(repo, buggy)
    write(repo, buggy)  # a scratch commit of the buggy state gives the gold diff
    git(repo, "commit", "-q", "-am", "scratch buggy state")
    gold = diff_for(repo, fixed)
    git(repo, "reset", "-q", "--hard", sha)
    return bug, gold


def calc_task(root: Path, tests: str = CALC_TESTS, extra: dict[str, str] | None = None) -> tuple[Path, str, str, str]:
    """A one-bug task: add() subtracts; test_add is the FAIL_TO_PASS test."""
    return bug_task(
        root, {"calc.py": CALC_FIXED, "tests/test_calc.py": tests, **(extra or {})}, {"calc.py": CALC_BUGGY}
    )


def docker_available() -> bool:
    from sandbox import docker_engine_version

    return docker_engine_version() is not None


def require_docker() -> None:
    """Skip with a reason when no engine answers, or fail when SEBGEN_REQUIRE_DOCKER=1."""
    from tests.marks import require_mark

    require_mark("docker", "uses Docker")
    if docker_available():
        return
    message = "no Docker engine answers (start dockerd or run .ci/provision_docker.sh)"
    if os.environ.get("SEBGEN_REQUIRE_DOCKER") == "1":
        pytest.fail(message + " and SEBGEN_REQUIRE_DOCKER=1")
    pytest.skip(message)


def require_node20():
    """Docker, and Node 20 and its npm for the JS images (-> their tarballs): a clear skip without
    them, a failure when SEBGEN_REQUIRE_DOCKER=1 (CI caches them: .ci/provision_docker.sh)."""
    from sandbox import BuildError
    from sandbox.js_dist import node_tarball, npm_tarball

    require_docker()
    try:
        return node_tarball(20), npm_tarball(20)
    except BuildError as exc:
        message = f"the Docker backend cannot run JS here: Node 20 is neither reachable nor cached ({exc})"
        if os.environ.get("SEBGEN_REQUIRE_DOCKER") == "1":
            pytest.fail(message + "; .ci/provision_docker.sh caches it")
        pytest.skip(message)


def my_containers(client, pid: int | None = None) -> list[dict]:
    """The containers (any state) that the SEBGen process `pid` (default: this one) labelled."""
    return client.api.containers(all=True, filters={"label": f"sebgen.pid={pid or os.getpid()}"})


def docker_backend_leaving_nothing(cache_dir: Path, recipe_for):
    """A module fixture's body: a Docker backend under tight limits (60 s, 512 MB, once more with
    1024 MB after an out-of-memory kill, 128 processes);
    once closed, no container of this process may be left."""
    from sandbox import Limits, docker_client, make_backend

    client = docker_client()
    backend = make_backend(
        "docker",
        limits=Limits(timeout_s=60, memory_mb=512, memory_max_mb=1024, pids=128),
        cache_dir=cache_dir,
        log=lambda m: None,
        recipe_for=recipe_for,
    )
    yield backend
    backend.close()
    mine = my_containers(client)
    client.close()
    assert mine == [], [c["Id"][:12] for c in mine]


def run_with_repairs(
    repo: Path, sha: str, test_file: str, cache_dir: Path, kind: str = "local", timeout_s: int = 300, attempts: int = 3
):
    """Runs `test_file` in a `kind` sandbox that may repair the snapshot's environment `attempts`
    times; (the run, the environment setup record)."""
    from environment import make_sandbox
    from sandbox import Limits

    backend = make_sandbox(
        kind, limits=Limits(timeout_s=timeout_s), cache_dir=cache_dir, log=lambda m: None, setup_attempts=attempts
    )
    try:
        return backend.run_tests(repo, sha, [], [test_file]), backend.environment_setup(repo, sha)
    finally:
        backend.close()


def new_file_patch(path: str, text: str, mode: str = "100644") -> str:
    """A git diff that adds `path` with `text` (mode 120000: a symlink to `text`)."""
    lines = text.splitlines(keepends=True)
    body = "".join("+" + ln for ln in lines)
    if not text.endswith("\n"):
        body += "\n\\ No newline at end of file\n"
    return (
        f"diff --git a/{path} b/{path}\nnew file mode {mode}\n--- /dev/null\n+++ b/{path}\n"
        f"@@ -0,0 +1,{len(lines)} @@\n{body}"
    )


def calc_edit_patch(extra: str) -> str:
    """An agent patch appending module-level code to the buggy calc.py (runs when tests import it)."""
    import difflib

    after = CALC_BUGGY + "\n\n" + extra.strip("\n") + "\n"
    return "".join(
        difflib.unified_diff(
            CALC_BUGGY.splitlines(keepends=True),
            after.splitlines(keepends=True),
            fromfile="a/calc.py",
            tofile="b/calc.py",
        )
    )


def pipe_flood(mib: int) -> str:
    """Module code writing `mib` MiB into every pipe the test process holds (the report's included)."""
    return f"""
import os as _os
_junk = b'x' * (1 << 20)
for _fd in _os.listdir('/proc/self/fd'):
    try:
        if _os.readlink(f'/proc/self/fd/{{_fd}}').startswith('pipe:'):
            for _ in range({mib}):
                _os.write(int(_fd), _junk)
    except OSError:
        pass
"""
