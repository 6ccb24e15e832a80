"""Docker backend: one environment image per repo snapshot, a fresh locked-down container per run."""
from __future__ import annotations

import hashlib
import io
import json
import tarfile
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Callable, Sequence

from . import containers
from .errors import SandboxError
from .images import (BUILDER_VERSION, ENV_REPO, SANDBOX_UID, build_env_image, docker_client, dockerfile,
                     image_exists, pip_passthrough, resolve_base_image)
from .local import default_cache_dir, file_lock
from .recipe import InstallRecipe, detect_recipe, repo_name
from .report import PLUGIN_SOURCE, parse_report, pytest_args, tail
from .tree import archive_bytes, prepare_tree, resolve_commit
from .types import Limits, TestRun

WORK = "/work"  # an anonymous volume seeded from the image: the only writable place besides /tmp
TREE = f"{WORK}/tree"
PLUGIN_DIR = "/opt/sebgen"  # baked into the image, root-owned: the task cannot replace the reporter
REPORT = f"{WORK}/out/report.json"

# PID 1 of a warm container: pytest is imported while the container waits for its job on
# stdin: one JSON line (sys.path entries, env, pytest args, size of the tree's tar), then the
# tar. The launcher unpacks the tree into /work/tree and runs pytest in-process; its exit
# status is the container's. Nothing of the task exists in the container before the job.
LAUNCHER = """
import io, json, os, sys, tarfile
import pytest
stdin = sys.stdin.buffer
line = stdin.readline()
if not line:
    sys.exit(97)
job = json.loads(line)
data = stdin.read(job["tar_size"])
with tarfile.open(fileobj=io.BytesIO(data)) as tar:
    if hasattr(tarfile, "data_filter"):
        tar.extractall("/work", filter="data")
    else:
        tar.extractall("/work")
os.environ.update(job["env"])
sys.path[:0] = job["path"]
os.chdir(job["cwd"])
sys.argv = ["pytest", *job["args"]]
sys.exit(int(pytest.main(job["args"])))
"""


def run_archive(tree: Path) -> bytes:
    """The tar of the tree as `tree/` (extracted into /work), owned by the sandbox user."""
    buf = io.BytesIO()

    def owned(info: tarfile.TarInfo) -> tarfile.TarInfo:
        info.uid = info.gid = SANDBOX_UID
        info.uname = info.gname = ""
        return info

    with tarfile.open(fileobj=buf, mode="w") as tar:
        tar.add(str(tree), arcname="tree", filter=owned)
    return buf.getvalue()


def _read_file_from(client: Any, container_id: str, path: str) -> bytes | None:
    try:
        stream, _ = client.api.get_archive(container_id, path)
    except Exception:
        return None
    with tarfile.open(fileobj=io.BytesIO(b"".join(stream))) as tar:
        member = tar.next()
        if member is None or not member.isfile():
            return None
        return tar.extractfile(member).read()


class DockerBackend:
    name = "docker"

    def __init__(self, limits: Limits = Limits(), cache_dir: Path | None = None,
                 base_image: str = "python:3.11-slim", offline_base_image: str = "sebgen-base:bookworm",
                 install: dict | None = None, log: Callable[[str], None] = print, warm_spares: int = 1):
        self.limits = limits
        self.cache_dir = Path(cache_dir) if cache_dir else default_cache_dir()
        self.base_image = base_image
        self.offline_base_image = offline_base_image
        self.install = install or {}
        self.log = log
        self.builds: list[str] = []  # env image tags this backend built (not found ready)
        self._local = threading.local()  # one docker client per thread
        self._lock = threading.Lock()
        self._base_cache: dict[str, str] = {}
        self._ready: set[str] = set()
        self.warm_spares = warm_spares  # started containers kept waiting per image (one use each)
        self._spares: dict[str, list[str]] = {}
        self._pending: dict[str, Any] = {}  # image tag -> future of the spare being started
        self._closed = False
        self._refiller = ThreadPoolExecutor(max_workers=1, thread_name_prefix="sebgen-warm")
        self._pytest_spec = _pytest_spec()
        docker_client().close()  # fail now, with one sentence, when no engine answers

    # -- clients and images ------------------------------------------------------------
    @property
    def client(self) -> Any:
        client = getattr(self._local, "client", None)
        if client is None:
            client = self._local.client = docker_client()
        return client

    def _recipe(self, repo: Path, commit: str) -> InstallRecipe:
        return detect_recipe(repo, commit, self.install.get(repo_name(repo)))

    def _base_for(self, recipe: InstallRecipe) -> str:
        wanted = self.base_image
        if recipe.python and wanted.startswith("python:"):
            wanted = f"python:{recipe.python}-slim"
        with self._lock:
            if wanted not in self._base_cache:
                self._base_cache[wanted] = resolve_base_image(self.client, wanted, self.offline_base_image, self.log)
            return self._base_cache[wanted]

    def environment_id(self, repo: Path, commit: str) -> str:
        recipe = self._recipe(repo, commit)
        base = self._base_for(recipe)
        base_id = self.client.api.inspect_image(base)["Id"]
        key = recipe.key(base_id, self._pytest_spec, BUILDER_VERSION, repr(sorted(pip_passthrough())),
                         hashlib.sha256(PLUGIN_SOURCE.read_bytes()).hexdigest())
        return f"{ENV_REPO}:{key}"

    def _ensure_image(self, repo: Path, commit: str) -> str:
        tag = self.environment_id(repo, commit)
        if tag in self._ready:
            return tag
        with file_lock(self.cache_dir / "locks" / f"{tag.replace(':', '-')}.lock"):
            if not image_exists(self.client, tag):
                self._build(repo, commit, tag)
        with self._lock:
            self._ready.add(tag)
        return tag

    def _build(self, repo: Path, commit: str, tag: str) -> None:
        recipe = self._recipe(repo, commit)
        base = self._base_for(recipe)
        passthrough = pip_passthrough()
        text = dockerfile(base, recipe, self._pytest_spec, sorted(passthrough), tag.split(":")[1])
        src = archive_bytes(repo, commit) if recipe.needs_install else None
        log_path = self.cache_dir / "build-logs" / f"{tag.replace(':', '-')}.log"
        self.log(f"sandbox: building environment image {tag} for {repo_name(repo)}@{commit[:10]} on {base}")
        start = time.monotonic()
        build_env_image(self.client, tag, text, src, log_path, passthrough)
        with self._lock:
            self.builds.append(tag)
        self.log(f"sandbox: built {tag} in {time.monotonic() - start:.1f} s (log {log_path})")
        if recipe.python and base == self.offline_base_image:
            self.log(f"sandbox: WARNING: {repo_name(repo)} asks for Python {recipe.python}; the offline base "
                     "image has Debian bookworm's python3 (3.11)")

    # -- running -----------------------------------------------------------------------
    def _isolation_kwargs(self) -> dict:
        """Limits and isolation shared by every validation container."""
        from docker.types import Mount

        lim = self.limits
        return dict(
            user=lim.user,
            environment={"SEBGEN_REPORT": REPORT, "HOME": "/tmp", "PYTHONDONTWRITEBYTECODE": "1"},
            network_mode="none",
            mem_limit=f"{lim.memory_mb}m",
            memswap_limit=f"{lim.memory_mb}m",  # no swap beyond the memory limit
            nano_cpus=int(lim.cpus * 1e9),
            pids_limit=lim.pids,
            cap_drop=["ALL"],
            security_opt=["no-new-privileges"],
            read_only=True,
            tmpfs={"/tmp": "rw,exec,nosuid,nodev,size=512m"},
            mounts=[Mount(target=WORK, source=None, type="volume")],
        )

    @staticmethod
    def _job(test_files: Sequence[str] | None, tree: Path) -> dict:
        python_path = [PLUGIN_DIR, TREE] + ([f"{TREE}/src"] if (tree / "src").is_dir() else [])
        return {"cwd": TREE, "path": python_path, "env": {"PYTHONPATH": ":".join(python_path)},
                "args": pytest_args(test_files, TREE)}

    def run_tests(self, repo: Path, commit: str, patches: Sequence[str] = (),
                  test_files: Sequence[str] | None = None) -> TestRun:
        repo = Path(repo)
        tag = self._ensure_image(repo, commit)
        recipe = self._recipe(repo, commit)
        with tempfile.TemporaryDirectory(prefix="sebgen-run-") as tmp:
            tree = prepare_tree(repo, commit, patches, Path(tmp) / "tree")
            payload = run_archive(tree)
            job = self._job(test_files, tree)
        info = {"repo": repo_name(repo), "commit": resolve_commit(repo, commit)[:12]}
        client = self.client
        start = time.monotonic()
        if recipe.test_cmd:  # a custom test command cannot use the warm launcher
            cid = self._create(client, tag, recipe.test_cmd.split() + job["args"], job, info)
        else:
            cid = self._take_warm(client, tag)
        try:
            if recipe.test_cmd:
                if not client.api.put_archive(cid, WORK, payload):
                    raise SandboxError(f"copying the tree into container {cid[:12]} failed")
                client.api.start(cid)
            else:
                _send_job(client, cid, job, payload)
            run = self._finish(client, cid, tag, test_files, start)
        finally:
            containers.remove(cid)
        if not recipe.test_cmd:
            self._schedule_refill(tag)  # only after a clean run: never while unwinding
        return run

    # -- containers --------------------------------------------------------------------
    def _create(self, client: Any, tag: str, command: list[str], job: dict | None, info: dict,
                warm: bool = False) -> str:
        kwargs = self._isolation_kwargs()
        if job is not None:
            kwargs["environment"] = {**kwargs["environment"], **job["env"]}
        labels = containers.run_labels(env=tag, mode="warm" if warm else "cold", **info)
        cid = client.api.create_container(
            tag, command=command, working_dir=(job or {}).get("cwd", WORK) if not warm else WORK,
            labels=labels, stdin_open=warm, host_config=client.api.create_host_config(
                **{k: v for k, v in kwargs.items() if k not in ("user", "environment")}),
            user=kwargs["user"], environment=kwargs["environment"],
        )["Id"]
        containers.register(cid, client)
        return cid

    def _new_warm(self, client: Any, tag: str) -> str:
        cid = self._create(client, tag, ["python", "-c", LAUNCHER], None, {}, warm=True)
        try:
            client.api.start(cid)
        except BaseException:
            containers.remove(cid)
            raise
        return cid

    def _take_warm(self, client: Any, tag: str) -> str:
        """A started container waiting for its job: a spare when one is ready or starting."""
        with self._lock:
            pending = self._pending.get(tag)
        if pending is not None:
            pending.result()  # a spare is being started: cheaper to wait than to start another
        with self._lock:
            spares = self._spares.setdefault(tag, [])
            candidate = spares.pop() if spares else None
        if candidate is not None and _running(client, candidate):
            return candidate
        if candidate is not None:
            containers.remove(candidate)
        return self._new_warm(client, tag)

    def _schedule_refill(self, tag: str) -> None:
        """Start the next spare after a run (not during it: starts compete with the run for CPU)."""
        if self.warm_spares <= 0:
            return
        with self._lock:
            if self._closed or tag in self._pending or len(self._spares.get(tag, [])) >= self.warm_spares:
                return
            try:
                self._pending[tag] = self._refiller.submit(self._refill, tag)
            except RuntimeError:  # interpreter or backend shutting down
                pass

    def _refill(self, tag: str) -> None:
        try:
            cid = self._new_warm(self.client, tag)
        except Exception:  # the next run simply starts its own container
            cid = None
        with self._lock:
            self._pending.pop(tag, None)
            if cid is None:
                return
            if self._closed:
                containers.remove(cid)
            else:
                self._spares.setdefault(tag, []).append(cid)

    def _finish(self, client: Any, cid: str, tag: str, test_files: Sequence[str] | None,
                start: float) -> TestRun:
        timed_out = False
        try:
            exit_code = int(client.api.wait(cid, timeout=self.limits.timeout_s)["StatusCode"])
        except Exception as exc:
            if not _is_timeout(exc):
                raise
            timed_out, exit_code = True, -9
            client.api.kill(cid)
        duration = time.monotonic() - start
        oom = bool(client.api.inspect_container(cid)["State"].get("OOMKilled"))
        raw = None if timed_out else _read_file_from(client, cid, REPORT)
        log = client.api.logs(cid, stdout=True, stderr=True, tail=200).decode(errors="replace")
        parsed = parse_report(raw, exit_code, test_files, timed_out)
        note = parsed.note
        if timed_out:
            note = f"timed out after {self.limits.timeout_s:g} s"
        elif oom:
            note = f"the container ran out of memory (limit {self.limits.memory_mb} MB) and was killed"
        return TestRun(outcomes=parsed.outcomes, exit_code=exit_code, timed_out=timed_out, duration_s=duration,
                       log_tail=tail(log), image=tag, broken=parsed.broken, note=note,
                       collect_errors=parsed.collect_errors)

    def prepare(self, repo: Path, commit: str) -> str:
        """Build the snapshot's image if needed and have a spare container ready; returns the tag."""
        tag = self._ensure_image(Path(repo), commit)
        if self.warm_spares > 0:
            self._schedule_refill(tag)
            with self._lock:
                pending = self._pending.get(tag)
            if pending is not None:
                pending.result()
        return tag

    def idle_spares(self) -> list[str]:
        """Ids of the started, never used containers kept for the next runs (removed by close).

        Waits for spares still being started, so the answer covers every container of this
        backend that is not running a test.
        """
        with self._lock:
            pending = list(self._pending.values())
        for future in pending:
            future.result()
        with self._lock:
            return [cid for ids in self._spares.values() for cid in ids]

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        """Remove the spare containers (and any live one of this process) and the clients."""
        with self._lock:
            self._closed = True
            spares = [cid for ids in self._spares.values() for cid in ids]
            self._spares.clear()
        self._refiller.shutdown(wait=True)
        for cid in spares:
            containers.remove(cid)
        client = getattr(self._local, "client", None)
        if client is not None:
            client.close()
            self._local.client = None


def _send_job(client: Any, cid: str, job: dict, payload: bytes) -> None:
    """Write the job line and the tree's tar to the waiting launcher's stdin."""
    sock = client.api.attach_socket(cid, params={"stdin": 1, "stream": 1})
    raw = getattr(sock, "_sock", sock)
    try:
        raw.sendall((json.dumps({**job, "tar_size": len(payload)}) + "\n").encode() + payload)
    finally:
        sock.close()


def _running(client: Any, cid: str) -> bool:
    try:
        return bool(client.api.inspect_container(cid)["State"].get("Running"))
    except Exception:
        return False


def _is_timeout(exc: Exception) -> bool:
    import requests

    return isinstance(exc, (requests.exceptions.ReadTimeout, requests.exceptions.ConnectionError)) \
        or "timed out" in str(exc).lower()


def _pytest_spec() -> str:
    """pytest pinned to the host's version, so both backends run the same test runner."""
    try:
        import pytest

        return f"pytest=={pytest.__version__}"
    except ImportError:
        return "pytest"
