"""Docker backend: one environment image per repo snapshot, a fresh locked-down container per run.

Each container's PID 1 is the supervisor (sandbox/_supervisor.py, root): it takes one job over
the attach connection, runs pytest as the unprivileged sandbox user and answers with the
verdict on its own stdout. Every step has a deadline: the send, the acknowledgement, the
verdict (timeout_s plus a margin), every other engine call. A container that does not take or
acknowledge its job is discarded and the run retried once on a fresh one. The attach
connection is the lease: when the owning process dies the engine closes the container's stdin
and the supervisor ends the run and itself.

Warm pool: one started container is kept waiting for the image's next run; when a run takes it,
the next one starts while the tests run, so back-to-back runs (a validation's states and reruns)
find theirs ready. At most `warm_spares_total` of them across all images, the least recently
used image's spare removed first (before the next one starts, so the cap also holds while it
starts); the cap holds across the processes of one machine too (sandbox/warm_ledger.py: a farm's
Dask workers). A used container is removed in the background after a clean run (at once when
unwinding).
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import io
import json
import re
import secrets
import tarfile
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import Any

from . import containers
from ._supervisor import MAX_REPORT_LIMIT, REPORT_LIMIT, canary_source
from .cache import default_cache_dir, file_lock
from .errors import BuildError, SandboxError
from .images import (
    BUILDER_VERSION,
    ENV_REPO,
    SANDBOX_UID,
    build_env_image,
    docker_client,
    dockerfile,
    image_exists,
    js_dockerfile,
    pip_passthrough,
    resolve_base_image,
)
from .js_dist import node_tarball, npm_tarball
from .js_recipe import JsRecipe
from .js_run import js_job, js_test_run
from .recipe import InstallRecipe, RecipeFor, add_version_files, no_recipe, sandbox_pytest_version
from .repo_id import repo_name
from .report import PLUGIN_MODULE, PLUGIN_SOURCE, POLICY_ARGS, new_canaries, parse_report, pytest_args, tail
from .tree import archive_bytes, run_on_fresh_tree, submodule_shown
from .types import Limits, TestRun
from .warm_ledger import SpareLedger

WORK = "/work"  # a size-limited tmpfs, root-owned: the tree is the sandbox user's, the rest is not
TREE = f"{WORK}/tree"
PRIVATE = f"{WORK}/sebgen"  # root-owned, read-only for the tests: the reporter and the canaries
SUPERVISOR_SOURCE = Path(__file__).with_name("_supervisor.py")
SEND_TIMEOUT_S = 30  # to hand the job to a waiting container
ACK_TIMEOUT_S = 20  # for the container to say it has the whole job
RESULT_MARGIN_S = 30  # beyond timeout_s for the verdict to arrive
ENGINE_TIMEOUT_S = 120  # every other call to the engine
LOG_OPTS = {"max-size": "10m", "max-file": "1"}  # the container's log on the host's disk
MAX_VERDICT_BYTES = 8 * REPORT_LIMIT  # what is read of the supervisor's output (escaping included)
MAX_JS_VERDICT_BYTES = 3 * MAX_REPORT_LIMIT  # a JS job may raise its report limit (escaping included)
CAPABILITIES = ["CHOWN", "SETUID", "SETGID"]  # the supervisor hands the tree over and drops to the user


OFFLINE_INTERPRETERS = {"sebgen-base:bookworm": "3.11"}  # Debian bookworm's python3
JS_BUILDER_VERSION = "1"  # bump when images.js_dockerfile changes meaning


class _Wedged(Exception):
    """The container did not take or acknowledge the job in time."""


class _Laps:
    """Seconds by step of one run (TestRun.phases): each lap is the time since the previous one."""

    def __init__(self) -> None:
        self.phases: dict[str, float] = {}
        self._last = time.monotonic()

    def lap(self, name: str) -> None:
        now = time.monotonic()
        self.phases[name] = round(self.phases.get(name, 0.0) + now - self._last, 4)
        self._last = now


def _oom_note(memory_mb: int, container: bool = False) -> str:
    if container:
        return f"the container ran out of memory (limit {memory_mb} MB) and was killed"
    return f"the tests ran out of memory (limit {memory_mb} MB) and were killed"


class _Warm:
    """A started container whose supervisor waits for its job; the open attach socket is its lease."""

    def __init__(self, cid: str, sock: Any, memory_mb: int):
        self.cid, self.sock, self.memory_mb = cid, sock, memory_mb
        self.raw = getattr(sock, "_sock", sock)

    def close(self) -> None:
        try:
            self.sock.close()
        except Exception:
            pass
        try:
            self.raw.close()
        except Exception:
            pass


class _Frames:
    """The supervisor's stdout lines out of the engine's multiplexed attach stream, bounded."""

    def __init__(self, raw: Any, limit: int):
        self.raw, self.limit = raw, limit
        self.out, self.err, self.total = bytearray(), bytearray(), 0

    def _recv(self, n: int, deadline: float) -> bytes | None:
        data = bytearray()
        while len(data) < n:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError
            self.raw.settimeout(remaining)
            try:
                chunk = self.raw.recv(min(n - len(data), 1 << 16))
            except TimeoutError:
                raise TimeoutError from None
            if not chunk:
                return None
            data += chunk
        return bytes(data)

    def line(self, deadline: float) -> bytes | None:
        """The next stdout line, None at end of stream; TimeoutError past the deadline."""
        while b"\n" not in self.out:
            header = self._recv(8, deadline)
            if header is None:
                return None
            kind, size = header[0], int.from_bytes(header[4:8], "big")
            self.total += size
            if self.total > self.limit:
                raise ValueError(f"the container sent over {self.limit // 2**20} MiB")
            payload = self._recv(size, deadline) or b""
            if kind == 2:
                self.err = (self.err + payload)[-4000:]
            else:
                self.out += payload
        line, _, rest = bytes(self.out).partition(b"\n")
        self.out = bytearray(rest)
        return line


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


class DockerBackend:
    name = "docker"
    runs_untrusted = True  # without network, bounded, as non-root

    def __init__(
        self,
        limits: Limits = Limits(),
        cache_dir: Path | None = None,
        base_image: str = "python:3.11-slim",
        offline_base_image: str = "sebgen-base:bookworm",
        recipe_for: RecipeFor = no_recipe,
        log: Callable[[str], None] = print,
        warm_spares: int = 2,
        warm_spares_total: int = 4,
    ):
        self.limits = limits
        self.cache_dir = Path(cache_dir) if cache_dir else default_cache_dir()
        self.base_image = base_image
        self.offline_base_image = offline_base_image
        self.recipe_for = recipe_for  # what to install comes from outside (the environment package)
        self.log = log
        self.builds: list[str] = []  # env image tags this backend built (not found ready)
        self._local = threading.local()  # one docker client per thread
        self._lock = threading.Lock()
        self._base_cache: dict[str, str] = {}
        self._ready: set[str] = set()
        self.warm_spares = warm_spares  # started containers kept waiting per image (one use each)
        self.warm_spares_total = max(0, warm_spares_total)  # across all images; the least recently used go
        self._spares: dict[str, list[_Warm]] = {}
        self._used: dict[str, int] = {}  # image tag -> when a run last used it (a counter: LRU order)
        self._clock = 0
        self._pending: dict[str, Any] = {}  # image tag -> future of the spare being started
        self._needs_more_memory: set[str] = set()  # image tags whose tests passed only at memory_max_mb
        self._closed = False
        self._refiller = ThreadPoolExecutor(max_workers=1, thread_name_prefix="sebgen-warm")
        self._ledger = SpareLedger(self.cache_dir / "warm-pool", self.warm_spares_total)  # the cap across processes
        self._remover = ThreadPoolExecutor(max_workers=1, thread_name_prefix="sebgen-remove")
        self._removing: set = set()  # futures of used containers being removed
        for pool in (self._refiller, self._remover):
            # their threads start now: a Ctrl-C that lands in a thread's start during a run leaves the
            # thread unknown to the executor's exit hook, and the interpreter then waits for it forever
            pool.submit(int).result()
        self._pytest_spec = _pytest_spec()
        client = docker_client(timeout=ENGINE_TIMEOUT_S)  # fail now, with one sentence, when no engine answers
        try:
            parent = containers.fair_cgroup_parent(limits.cgroup_parent, client.info())
            self.limits = replace(limits, cgroup_parent=parent)
            reaped = containers.reap_dead_owners(client)
            if reaped:
                self.log(f"sandbox: removed {reaped} container(s) left by SEBGen processes that are gone")
        finally:
            client.close()

    # -- clients and images ------------------------------------------------------------
    @property
    def client(self) -> Any:
        client = getattr(self._local, "client", None)
        if client is None:
            client = self._local.client = docker_client(timeout=ENGINE_TIMEOUT_S)
        return client

    def _recipe(self, repo: Path, commit: str) -> InstallRecipe | JsRecipe:
        """The snapshot's recipe: an InstallRecipe (Python) or a JsRecipe (JavaScript/TypeScript)."""
        return self.recipe_for(Path(repo), commit)

    def python_version(self) -> str:
        """The Python (major.minor) of the base image when it can be told from its name."""
        m = re.match(r"python:(\d+\.\d+)", self.base_image)
        return m.group(1) if m else OFFLINE_INTERPRETERS.get(self.offline_base_image, "")

    def _base_for(self, recipe: InstallRecipe | JsRecipe) -> str:
        wanted = self.base_image
        if isinstance(recipe, InstallRecipe) and recipe.python and wanted.startswith("python:"):
            wanted = f"python:{recipe.python}-slim"
        with self._lock:
            if wanted not in self._base_cache:
                self._base_cache[wanted] = resolve_base_image(self.client, wanted, self.offline_base_image, self.log)
            return self._base_cache[wanted]

    def environment_id(self, repo: Path, commit: str) -> str:
        recipe = self._recipe(repo, commit)
        base = self._base_for(recipe)
        base_id = self.client.api.inspect_image(base)["Id"]
        if isinstance(recipe, JsRecipe):  # keyed by what the install reads: commits sharing a lockfile share it
            blob = json.dumps(["javascript", recipe.key(), base_id, JS_BUILDER_VERSION])
            return f"{ENV_REPO}:js-{hashlib.sha256(blob.encode()).hexdigest()[:16]}"
        # the reporter and the supervisor travel with each job: they are not part of the image
        key = recipe.key(base_id, self._pytest_spec, BUILDER_VERSION, repr(sorted(pip_passthrough())))
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
        if isinstance(recipe, JsRecipe):
            self._build_js(repo, commit, tag, recipe, base)
            return
        passthrough = pip_passthrough()
        text = dockerfile(base, recipe, self._pytest_spec, sorted(passthrough), tag.split(":")[1])
        src = archive_bytes(repo, commit) if recipe.needs_install else None
        log_path = self.cache_dir / "build-logs" / f"{tag.replace(':', '-')}.log"
        self.log(f"sandbox: building environment image {tag} for {repo_name(repo)}@{commit[:10]} on {base}")
        start = time.monotonic()
        with _submodule_named_on_failure(repo, commit, log_path):
            build_env_image(self.client, tag, text, src, log_path, passthrough)
        with self._lock:
            self.builds.append(tag)
        self.log(f"sandbox: built {tag} in {time.monotonic() - start:.1f} s (log {log_path})")
        if recipe.python and base == self.offline_base_image:
            self.log(
                f"sandbox: WARNING: {repo_name(repo)} asks for Python {recipe.python}; the offline base "
                "image has Debian bookworm's python3 (3.11)"
            )

    def _build_js(self, repo: Path, commit: str, tag: str, recipe: JsRecipe, base: str) -> None:
        """A JS image: Node and npm fetched on the host (cached), the install run in the build."""
        node, npm = node_tarball(recipe.node), npm_tarball(recipe.node)
        text = js_dockerfile(base, recipe, tag.split(":")[1], node.version, npm.version)
        log_path = self.cache_dir / "build-logs" / f"{tag.replace(':', '-')}.log"
        self.log(
            f"sandbox: building environment image {tag} for {repo_name(repo)}@{commit[:10]} on {base} "
            f"(node {node.version}, {recipe.package_manager} {recipe.package_manager_version or npm.version})"
        )
        start = time.monotonic()
        extra = {"node.tgz": node.path, "npm.tgz": npm.path}
        with _submodule_named_on_failure(repo, commit, log_path):
            build_env_image(self.client, tag, text, archive_bytes(repo, commit), log_path, {}, extra)
        with self._lock:
            self.builds.append(tag)
        self.log(f"sandbox: built {tag} in {time.monotonic() - start:.1f} s (log {log_path})")

    # -- running -----------------------------------------------------------------------
    def _isolation_kwargs(self, memory_mb: int) -> dict:
        """Limits and isolation shared by every validation container (host config)."""
        from docker.types import LogConfig

        lim = self.limits
        parent = {"cgroup_parent": lim.cgroup_parent} if lim.cgroup_parent else {}
        return dict(
            **parent,
            network_mode="none",
            mem_limit=f"{memory_mb}m",
            memswap_limit=f"{memory_mb}m",  # no swap beyond the memory limit
            nano_cpus=int(lim.cpus * 1e9),
            pids_limit=lim.pids,
            cap_drop=["ALL"],
            cap_add=CAPABILITIES,
            security_opt=["no-new-privileges"],
            read_only=True,
            # tmpfs pages count against the memory limit: nothing a test writes reaches the host's disk
            tmpfs={
                "/tmp": f"rw,exec,nosuid,nodev,size={lim.tmp_mb}m",
                WORK: f"rw,exec,nosuid,nodev,size={lim.work_mb}m,mode=755",
            },
            log_config=LogConfig(type="json-file", config=dict(LOG_OPTS)),
        )

    def _js_job(self, test_files: Sequence[str] | None, recipe: JsRecipe) -> dict:
        """The supervisor's job for a JS run: its own command, no pytest and no canaries."""
        js = js_job(recipe, test_files, TREE, PRIVATE)
        return {
            "nonce": secrets.token_hex(16),
            "work": WORK,
            "private": PRIVATE,
            "cwd": TREE,
            "path": [],
            "timeout_s": self.limits.timeout_s,
            "args": [],
            "cmd": js["cmd"],
            "report_limit": js["report_limit"],
            "policy": {},
            "files": js["files"],
            "env": js["env"],
            "key": js["key"],
            "canary": js["canary"],
        }

    def _job(
        self, test_files: Sequence[str] | None, tree: Path, recipe: InstallRecipe, canaries: tuple[str, str]
    ) -> dict:
        python_path = [PRIVATE, TREE] + ([f"{TREE}/src"] if (tree / "src").is_dir() else [])
        canary_module = f"test_sebgen_{secrets.token_hex(6)}"
        args = pytest_args(test_files, TREE, canary_module)
        return {
            "nonce": secrets.token_hex(16),
            "work": WORK,
            "private": PRIVATE,
            "cwd": TREE,
            "path": python_path,
            "timeout_s": self.limits.timeout_s,
            "args": args,
            "cmd": recipe.test_cmd.split() + args if recipe.test_cmd else None,  # None: the waiting pytest
            "policy": {module: list(extra) for module, extra in POLICY_ARGS.items()},  # the zygote checks the plugins
            "files": {
                f"{PLUGIN_MODULE}.py": PLUGIN_SOURCE.read_text(),
                f"{canary_module}.py": canary_source(*canaries),
            },
            "env": {
                "PYTHONPATH": ":".join(python_path),
                "HOME": "/tmp",
                "PYTHONDONTWRITEBYTECODE": "1",
                "LANG": "C.UTF-8",
                "PATH": "/opt/venv/bin:/usr/local/bin:/usr/bin:/bin",
                "VIRTUAL_ENV": "/opt/venv",
                # the report plugin loads the plugins: no distribution-wide assertion rewriting
                "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
                "SEBGEN_LOAD_ENTRY_POINTS": "1",
            },
        }

    def run_tests(
        self, repo: Path, commit: str, patches: Sequence[str] = (), test_files: Sequence[str] | None = None
    ) -> TestRun:
        return run_on_fresh_tree(self, repo, commit, patches, test_files)

    def run_tree(
        self,
        repo: Path,
        commit: str,
        tree: Path,
        test_files: Sequence[str] | None = None,
        untrusted: bool = False,
        runner: str = "",
    ) -> TestRun:
        """pytest on a prepared tree in the snapshot's environment; the verdict comes from the supervisor.
        Untrusted code runs like any other here: the container holds it. `runner` (JS only): run
        `test_files` with that runner instead of the project's (SEBGen's own node:test files)."""
        repo = Path(repo)
        laps = _Laps()
        tag = self._ensure_image(repo, commit)
        recipe = self._recipe(repo, commit)
        if runner and isinstance(recipe, JsRecipe):
            recipe = dataclasses.replace(recipe, runner=runner, runner_options=(), test_paths=())
        if isinstance(recipe, InstallRecipe):
            add_version_files(Path(tree), recipe)
        laps.lap("image")
        payload = run_archive(Path(tree))
        laps.lap("tar")
        start = time.monotonic()
        if len(payload) > self.limits.work_mb * 2**20:
            return _rejected(
                tag,
                start,
                f"the tree is {len(payload) / 2**20:.0f} MiB, over the {self.limits.work_mb} MiB work volume",
            )
        canaries = new_canaries()
        if isinstance(recipe, JsRecipe):
            try:
                job = self._js_job(test_files, recipe)
            except SandboxError as exc:
                return _rejected(tag, start, str(exc))
        else:
            job = self._job(test_files, Path(tree), recipe, canaries)
        self._touch(tag)
        # an environment whose tests once needed more memory gets the most allowed from then on
        memory = self.limits.memory_max_mb if tag in self._needs_more_memory else self.limits.memory_mb
        run = self._run_job(tag, job, payload, test_files, canaries, start, recipe, laps, memory)
        if run.out_of_memory and self.limits.memory_max_mb > memory:
            # a suite that needs more than the default (jwcrypto's peaks at 2.4 GB): once more, with the most allowed
            self.log(f"sandbox: {run.note}; running them again with {self.limits.memory_max_mb} MB")
            run = self._run_job(tag, job, payload, test_files, canaries, start, recipe, laps, self.limits.memory_max_mb)
            if not run.out_of_memory:
                with self._lock:
                    self._needs_more_memory.add(tag)
        return run

    def _run_job(
        self,
        tag: str,
        job: dict,
        payload: bytes,
        test_files: Sequence[str] | None,
        canaries: tuple[str, str],
        start: float,
        recipe: InstallRecipe | JsRecipe | None,
        laps: _Laps,
        memory_mb: int,
    ) -> TestRun:
        """The job on a started container with `memory_mb` (a spare when it has the default), and
        on a fresh one when the first is wedged."""
        client = self.client
        why = ""
        for attempt in range(2):
            spare = attempt == 0 and memory_mb == self.limits.memory_mb
            warm = self._take_warm(client, tag) if spare else self._new_warm(client, tag, memory_mb)
            if spare:
                self._schedule_refill(tag)  # the next spare starts while these tests run (on one core)
            laps.lap("container")
            try:
                run = self._exchange(client, warm, job, payload, tag, test_files, canaries, start, recipe, laps)
            except BaseException as exc:
                warm.close()
                containers.remove(warm.cid)  # at once: nothing is left behind while unwinding
                if not isinstance(exc, _Wedged):
                    raise
                why = str(exc)
                self.log(
                    f"sandbox: container {warm.cid[:12]} {why}; discarding it"
                    + ("; retrying on a fresh one" if attempt == 0 else "")
                )
                continue
            warm.close()
            self._discard(warm.cid)
            laps.lap("remove")
            run.phases = laps.phases
            return run
        return _rejected(
            tag, start, f"the sandbox could not run the tests: a container {why}, twice (the second one fresh)"
        )

    def _exchange(
        self,
        client: Any,
        warm: _Warm,
        job: dict,
        payload: bytes,
        tag: str,
        test_files: Sequence[str] | None,
        canaries: tuple[str, str],
        start: float,
        recipe: InstallRecipe | JsRecipe | None = None,
        laps: _Laps | None = None,
    ) -> TestRun:
        """Send the job, wait for the acknowledgement and the verdict, each with its deadline."""
        laps = laps or _Laps()
        warm.raw.settimeout(SEND_TIMEOUT_S)
        try:
            warm.raw.sendall((json.dumps({**job, "tar_size": len(payload)}) + "\n").encode() + payload)
        except OSError as exc:  # socket.timeout included
            raise _Wedged(f"did not take the job within {SEND_TIMEOUT_S} s ({type(exc).__name__})") from None
        frames = _Frames(warm.raw, MAX_JS_VERDICT_BYTES if job.get("report_limit") else MAX_VERDICT_BYTES)
        try:
            ack = frames.line(time.monotonic() + ACK_TIMEOUT_S)
        except (TimeoutError, ValueError, OSError):
            ack = None
        if ack is None or _json(ack).get("ack") != job["nonce"]:
            raise _Wedged(f"did not acknowledge the job within {ACK_TIMEOUT_S} s")
        laps.lap("send")
        timeout_s = self.limits.timeout_s
        verdict, problem, timed_out = None, "", False
        try:
            line = frames.line(time.monotonic() + timeout_s + RESULT_MARGIN_S)
            verdict = _json(line) if line is not None else None
        except TimeoutError:
            timed_out, problem = True, f"timed out after {timeout_s:g} s (no verdict from the container)"
        except (ValueError, OSError) as exc:
            problem = f"the container's answer was unreadable: {exc}"
        laps.lap("in_container")
        _split_in_container(laps.phases, verdict)
        duration = time.monotonic() - start
        if verdict is None or verdict.get("result") != job["nonce"]:
            oom = not problem and self._killed_for_memory(client, warm)
            if not problem:
                problem = _oom_note(warm.memory_mb, container=True) if oom else "the container ended without a verdict"
            log = frames.err.decode(errors="replace")
            return TestRun(
                outcomes={},
                exit_code=-9,
                timed_out=timed_out,
                duration_s=duration,
                log_tail=tail(log),
                image=tag,
                broken=not timed_out,
                note=problem,
                out_of_memory=oom,
            )
        if isinstance(recipe, JsRecipe):
            return self._js_verdict(client, warm, recipe, verdict, test_files, tag, duration, job["key"], job["canary"])
        exit_code, timed_out = int(verdict.get("exit_code", -9)), bool(verdict.get("timed_out"))
        parsed = parse_report(
            verdict.get("report"), exit_code, test_files, timed_out, canaries, str(verdict.get("log_tail", ""))
        )
        broken, note, oom = parsed.broken, parsed.note, False
        exit_code = parsed.exit_code if parsed.exit_code is not None else exit_code
        if timed_out:
            note = f"timed out after {timeout_s:g} s"
        elif verdict.get("report_overflow"):
            broken, note = True, f"the report is over {REPORT_LIMIT // 2**20} MiB"
        elif verdict.get("stopped"):
            broken, note = True, "the run was stopped"
        elif int(verdict.get("oom_kills", 0)) > 0:
            broken, note, oom = True, _oom_note(warm.memory_mb), True
        elif exit_code < 0:
            oom = self._killed_for_memory(client, warm)
            note = _oom_note(warm.memory_mb, container=True) if oom else f"pytest was killed by signal {-exit_code}"
            broken = True
        full = [str(p) for p in verdict.get("full") or []]
        if full and not note:
            limit = {WORK: f"{self.limits.work_mb} MiB", "/tmp": f"{self.limits.tmp_mb} MiB"}
            note = "the tests filled " + ", ".join(f"{p} (limit {limit.get(p, '?')})" for p in full)
        return TestRun(
            outcomes=parsed.outcomes,
            exit_code=exit_code,
            timed_out=timed_out,
            duration_s=duration,
            log_tail=tail(str(verdict.get("log_tail", ""))),
            image=tag,
            broken=broken,
            note=note,
            collect_errors=parsed.collect_errors,
            out_of_memory=oom,
        )

    def _js_verdict(
        self,
        client: Any,
        warm: _Warm,
        recipe: JsRecipe,
        verdict: dict,
        test_files: Sequence[str] | None,
        tag: str,
        duration: float,
        key: str | None,
        canary: dict | None,
    ) -> TestRun:
        run = js_test_run(recipe, verdict, test_files, TREE, tag, duration, self.limits.timeout_s, key, canary)
        if int(verdict.get("oom_kills", 0)) > 0 and not run.timed_out:
            run.note = _oom_note(warm.memory_mb)
            run.broken, run.outcomes, run.out_of_memory = True, {}, True
        elif int(verdict.get("exit_code", 0)) < 0 and not run.timed_out:  # the run script itself was killed
            run.out_of_memory = self._killed_for_memory(client, warm)
            run.note = _oom_note(warm.memory_mb, container=True) if run.out_of_memory else run.note
        full = [str(p) for p in verdict.get("full") or []]
        if full and not run.note:
            limit = {WORK: f"{self.limits.work_mb} MiB", "/tmp": f"{self.limits.tmp_mb} MiB"}
            run.note = "the tests filled " + ", ".join(f"{p} (limit {limit.get(p, '?')})" for p in full)
        return run

    def _killed_for_memory(self, client: Any, warm: _Warm) -> bool:
        """The engine killed the container for memory (what else killed it, it does not say)."""
        try:
            return bool(client.api.inspect_container(warm.cid)["State"].get("OOMKilled"))
        except Exception:
            return False

    # -- containers --------------------------------------------------------------------
    def _create(self, client: Any, tag: str, memory_mb: int) -> str:
        config = client.api.create_container_config(
            tag,
            command=["python", "-I", "-S", "-c", SUPERVISOR_SOURCE.read_text(), str(SANDBOX_UID)],
            user="0:0",
            working_dir="/",
            labels=containers.run_labels(env=tag, mode="warm"),
            stdin_open=True,
            environment={"PYTHONDONTWRITEBYTECODE": "1", "LANG": "C.UTF-8"},
            host_config=client.api.create_host_config(**self._isolation_kwargs(memory_mb)),
        )
        config["StdinOnce"] = True  # the engine closes stdin when the owner's connection ends: the lease
        containers.creating(client)
        cid = client.api.create_container_from_config(config)["Id"]
        containers.register(cid, client)
        return cid

    def _new_warm(self, client: Any, tag: str, memory_mb: int | None = None) -> _Warm:
        memory_mb = memory_mb or self.limits.memory_mb
        cid = self._create(client, tag, memory_mb)
        try:
            sock = client.api.attach_socket(cid, params={"stdin": 1, "stdout": 1, "stderr": 1, "stream": 1})
            client.api.start(cid)
        except BaseException:
            containers.remove(cid)
            raise
        return _Warm(cid, sock, memory_mb)

    def _take_warm(self, client: Any, tag: str) -> _Warm:
        """A started container waiting for its job: a spare when one is ready or starting."""
        with self._lock:
            pending = None if self._spares.get(tag) else self._pending.get(tag)
        if pending is not None:
            pending.result()  # none is ready and one is being started: cheaper to wait than to start another
        with self._lock:
            spares = self._spares.setdefault(tag, [])
            candidate = spares.pop(0) if spares else None  # the oldest: started longest ago
            if candidate is not None:
                self._ledger.publish(self._held())
        if candidate is not None and _running(client, candidate.cid):
            return candidate
        if candidate is not None:
            candidate.close()
            containers.remove(candidate.cid)
        return self._new_warm(client, tag)

    def _touch(self, tag: str) -> None:
        with self._lock:
            self._clock += 1
            self._used[tag] = self._clock

    def _discard(self, cid: str) -> None:
        """Remove a used container off the run's critical path (idle_spares and close wait for it)."""
        with self._lock:
            try:
                future = None if self._closed else self._remover.submit(containers.remove, cid)
            except RuntimeError:  # interpreter shutting down
                future = None
            if future is not None:
                self._removing.add(future)
                future.add_done_callback(self._removing.discard)
        if future is None:
            containers.remove(cid)

    def _schedule_refill(self, tag: str) -> None:
        """Start the image's next spare (when it has none ready or starting)."""
        if self.warm_spares <= 0 or self.warm_spares_total <= 0:
            return
        with self._lock:
            if self._closed or tag in self._pending or len(self._spares.get(tag, [])) >= self.warm_spares:
                return
            self._submit_refill(tag)

    def _submit_refill(self, tag: str) -> None:
        """(with the lock held)"""
        try:
            self._pending[tag] = self._refiller.submit(self._refill, tag)
        except RuntimeError:  # interpreter or backend shutting down
            pass

    def _refill(self, tag: str) -> None:
        with self._lock:
            evicted = self._over_cap(room=1)  # make room first: the cap holds while the spare starts
            room = self._ledger.claim(self._held())  # and across this machine's processes
        for spare in evicted:
            spare.close()
            containers.remove(spare.cid)
        try:
            warm = self._new_warm(self.client, tag) if room else None
        except Exception:  # the next run simply starts its own container
            warm = None
        with self._lock:
            self._pending.pop(tag, None)
            if warm is None:
                self._ledger.publish(self._held())
                return
            if self._closed:
                evicted = [warm]
            else:
                self._spares.setdefault(tag, []).append(warm)
                evicted = self._over_cap()
            self._ledger.publish(self._held())
            wants_more = warm not in evicted and len(self._spares[tag]) < self.warm_spares
            if wants_more and self._held() < self.warm_spares_total:  # never by evicting a spare of its own
                self._submit_refill(tag)  # the next one, until the image has its spares
        for spare in evicted:
            spare.close()
            containers.remove(spare.cid)

    def _held(self) -> int:
        return sum(len(ws) for ws in self._spares.values())

    def _over_cap(self, room: int = 0) -> list[_Warm]:
        """Spares beyond `warm_spares_total - room`, taken out of the pool, least recently used
        image first (called with the lock held; the caller removes them)."""
        evicted = []
        while sum(len(ws) for ws in self._spares.values()) + room > self.warm_spares_total:
            held = [t for t, ws in self._spares.items() if ws]
            if not held:
                break
            oldest = min(held, key=lambda t: self._used.get(t, 0))
            evicted.append(self._spares[oldest].pop(0))
        return evicted

    def prepare(self, repo: Path, commit: str) -> str:
        """Build the snapshot's image if needed and have a spare container ready; returns the tag."""
        tag = self._ensure_image(Path(repo), commit)
        self._touch(tag)
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
        while True:  # a spare that comes up may start the image's next one
            with self._lock:
                pending = list(self._pending.values()) + list(self._removing)
                if not pending:
                    return [w.cid for ws in self._spares.values() for w in ws]
            for future in pending:
                future.result()

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        """Remove the spare containers (and any live one of this process) and the clients."""
        with self._lock:
            self._closed = True
            spares = [w for ws in self._spares.values() for w in ws]
            self._spares.clear()
        self._refiller.shutdown(wait=True)
        self._ledger.close()
        self._remover.shutdown(wait=True)
        for warm in spares:
            warm.close()
            containers.remove(warm.cid)
        client = getattr(self._local, "client", None)
        if client is not None:
            client.close()
            self._local.client = None


def _json(line: bytes | None) -> dict:
    try:
        data = json.loads(line or b"")
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def _rejected(tag: str, start: float, note: str) -> TestRun:
    """A run that never reached pytest: broken, with the reason (never resolves anything)."""
    return TestRun(
        outcomes={},
        exit_code=-1,
        timed_out=False,
        duration_s=time.monotonic() - start,
        log_tail="",
        image=tag,
        broken=True,
        note=note,
    )


def _split_in_container(phases: dict[str, float], verdict: dict | None) -> None:
    """Split the wait for the verdict into the supervisor's own steps (what it measured: the tree's
    unpacking, the tests, the cleanup); the rest stays "in_container" (the report's way back).
    "pytest_cpu" is the test process's CPU time, beside its wall time "pytest"."""
    seconds = (verdict or {}).get("seconds")
    if not isinstance(seconds, dict):
        return
    for name in ("extract", "run", "cleanup"):
        value = seconds.get(name)
        if isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0:
            # the unpacking starts as the acknowledgement leaves, before it reaches us: it may overlap
            # the "send" lap a little, so what is left is what is cut, never below nothing
            value = min(float(value), phases["in_container"])
            phases["pytest" if name == "run" else name] = round(value, 4)
            phases["in_container"] = round(phases["in_container"] - value, 4)
    cpu = seconds.get("cpu")
    if isinstance(cpu, (int, float)) and not isinstance(cpu, bool) and cpu >= 0:
        phases["pytest_cpu"] = round(float(cpu), 4)  # not wall time: not a step of its own


def _running(client: Any, cid: str) -> bool:
    try:
        return bool(client.api.inspect_container(cid)["State"].get("Running"))
    except Exception:
        return False


def _pytest_spec() -> str:
    """pytest pinned to the host's version, so both backends run the same test runner."""
    version = sandbox_pytest_version()
    return f"pytest=={version}" if version else "pytest"


@contextlib.contextmanager
def _submodule_named_on_failure(repo: Path, commit: str, log_path: Path):
    """A failed build whose log reads a submodule the clone lacks says so instead."""
    try:
        yield
    except BuildError as exc:
        text = log_path.read_text(errors="replace") if log_path.is_file() else str(exc)
        needed = submodule_shown(repo, commit, text)
        if needed is not None:
            raise needed from exc
        raise
