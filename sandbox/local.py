"""Local backend: pytest in a per-snapshot virtualenv on the host, with a wall-clock timeout.

Task code runs unisolated here (the README says what that leaves open); what it does enforce:
the timeout, killing the run's process group, session and every process carrying the run's
token; the report over a pipe with canaries (as in Docker); venvs made read-only and checked
against a manifest after every run; a check that no .pth or site customisation appeared in
the interpreter's site folders; and no agent patch run as root (`run_tree(untrusted=True)`).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from ._supervisor import REPORT_LIMIT, canary_source, run_child
from .cache import default_cache_dir, file_lock
from .errors import BuildError, SandboxError
from .recipe import InstallRecipe, RecipeFor, add_version_files, install_commands, no_recipe
from .repo_id import repo_name
from .report import PLUGIN_MODULE, PLUGIN_SOURCE, new_canaries, parse_report, policy_args, pytest_args, tail
from .tree import prepare_tree, run_on_fresh_tree, submodule_shown
from .types import Limits, TestRun

VENV_LAYOUT = "3"  # bump when the venv's making changes (2: SEBGen's site folders by .pth, read-only;
# 3: the plugins of requirements found in those folders are loaded)


def run_group(cmd: list[str], cwd: Path, env: dict, timeout_s: float, log_path: Path) -> tuple[int, bool]:
    """Run `cmd` in its own process group; kill the whole group on timeout -> (exit code, timed out)."""
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(
            cmd,
            cwd=str(cwd),
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
        try:
            return proc.wait(timeout=timeout_s), False
        except subprocess.TimeoutExpired:
            return -9, True
        finally:
            try:
                os.killpg(proc.pid, signal.SIGKILL)  # also reaps stray children of the tests
            except ProcessLookupError:
                pass
            proc.wait()


def host_site_dirs() -> list[str]:
    """The site folders of the interpreter running SEBGen (a venv's own, not its base's)."""
    import site

    dirs = list(site.getsitepackages())
    if site.ENABLE_USER_SITE and os.path.isdir(site.getusersitepackages()):
        dirs.append(site.getusersitepackages())
    return [d for d in dict.fromkeys(dirs) if os.path.isdir(d)]


def site_hooks() -> dict[str, int]:
    """The .pth and site customisation files of SEBGen's interpreter, with their mtimes."""
    found = {}
    for folder in host_site_dirs() + [p for p in sys.path if p and os.path.isdir(p) and "site-packages" not in p]:
        try:
            entries = os.scandir(folder)
        except OSError:
            continue
        with entries:
            for entry in entries:
                if entry.name.endswith(".pth") or entry.name in ("sitecustomize.py", "usercustomize.py"):
                    try:
                        found[entry.path] = entry.stat(follow_symlinks=False).st_mtime_ns
                    except OSError:
                        pass
    return found


def tree_manifest(root: Path) -> str:
    """A hash of every path, size and mtime under root (what a run must leave unchanged)."""
    digest = hashlib.sha256()
    prefix = os.path.join(str(root), "")  # every walked path starts with it: slicing is relpath, minus its cost
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for name in sorted(filenames + [d for d in dirnames if os.path.islink(os.path.join(dirpath, d))]):
            path = os.path.join(dirpath, name)
            try:
                st = os.lstat(path)
            except OSError:
                continue
            digest.update(f"{path[len(prefix) :]}\0{st.st_size}\0{st.st_mtime_ns}\0{st.st_mode}\n".encode())
    return digest.hexdigest()


def _read_only(root: Path) -> None:
    for dirpath, dirnames, filenames in os.walk(root):
        for name in filenames + dirnames:
            path = os.path.join(dirpath, name)
            if not os.path.islink(path):
                os.chmod(path, os.lstat(path).st_mode & ~0o222)
    os.chmod(root, os.lstat(root).st_mode & ~0o222)


def _writable(root: Path) -> None:
    for dirpath, dirnames, filenames in os.walk(root):
        os.chmod(dirpath, os.lstat(dirpath).st_mode | 0o200)


def _remove_venv(venv: Path) -> None:
    if venv.exists():
        _writable(venv)
        shutil.rmtree(venv, ignore_errors=True)


def kill_run(token: str):
    """A cleanup that kills the run's process group and session, and every process whose
    environment carries the run's token (what a double fork with setsid still inherits)."""

    def cleanup(proc):
        for _ in range(3):
            victims = set()
            for entry in os.listdir("/proc"):
                if not entry.isdigit() or int(entry) == os.getpid():
                    continue
                try:
                    if os.getsid(int(entry)) == proc.pid:
                        victims.add(int(entry))
                        continue
                    with open(f"/proc/{entry}/environ", "rb") as fh:
                        if token.encode() in fh.read():
                            victims.add(int(entry))
                except OSError:
                    continue
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            for pid in victims:
                try:
                    os.kill(pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass
            if not victims:
                break
            _await_exit(victims)  # a loaded machine runs a killed process a while longer: the next scan must not see it

    return cleanup


def _await_exit(pids: set[int], timeout: float = 5.0) -> None:
    """Until each of `pids` has exited (gone, or a zombie waiting for its reaper), at most `timeout` s."""
    deadline = time.monotonic() + timeout
    left = set(pids)
    while left and time.monotonic() < deadline:
        for pid in list(left):
            try:
                with open(f"/proc/{pid}/stat") as fh:
                    if fh.read().rsplit(")", 1)[1].split()[0] in ("Z", "X"):
                        left.discard(pid)
            except (OSError, IndexError):
                left.discard(pid)
        if left:
            time.sleep(0.02)


# pip's line for a requirement it found installed (here: in SEBGen's site folders, joined by .pth)
_SATISFIED = re.compile(r"^Requirement already satisfied: ([A-Za-z0-9][A-Za-z0-9._-]*)", re.MULTILINE)


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _venv_pytest_plugins(venv: Path, install_log: str = "", host_dirs: Sequence[str] | None = None) -> list[str]:
    """Modules of the pytest11 entry points of what the snapshot's install asked for: the
    distributions installed into the venv itself, and those pip found already installed in
    SEBGen's site folders (named in `install_log`), as the Docker image installs and autoloads
    them all (a repository's tests needing hypothesis load its plugin in both). The host's other
    plugins stay out, as they are not in the image."""
    from importlib.metadata import distributions

    site = [str(p) for p in venv.glob("lib/python*/site-packages")]
    asked = {_canonical(name) for name in _SATISFIED.findall(install_log)}
    host = [
        dist
        for dist in distributions(path=list(host_site_dirs() if host_dirs is None else host_dirs))
        if _canonical(dist.metadata["Name"] or "") in asked
    ]
    modules = {
        ep.value.split(":")[0]
        for dist in [*distributions(path=site), *host]
        for ep in dist.entry_points
        if ep.group == "pytest11"
    }
    return sorted(modules)


class LocalBackend:
    name = "local"

    @property
    def runs_untrusted(self) -> bool:
        """Whether it may run untrusted code (an agent's patch, a statement's snippet): never as root."""
        return os.geteuid() != 0

    def __init__(
        self,
        limits: Limits = Limits(),
        cache_dir: Path | None = None,
        recipe_for: RecipeFor = no_recipe,
        log: Callable[[str], None] = print,
    ):
        self.limits = limits
        self.cache_dir = Path(cache_dir) if cache_dir else default_cache_dir()
        self.recipe_for = recipe_for  # what to install comes from outside (the environment package)
        self.log = log
        self.builds: list[str] = []  # environment ids built by this backend (for tests and logs)

    # -- environment -------------------------------------------------------------------
    def _recipe(self, repo: Path, commit: str) -> InstallRecipe:
        recipe = self.recipe_for(Path(repo), commit)
        if not isinstance(recipe, InstallRecipe):  # a JsRecipe: Node runs are the Docker backend's
            raise SandboxError(
                f"{repo_name(repo)}@{commit[:10]} is a JavaScript/TypeScript snapshot; its tests run only "
                "in the Docker backend (start Docker, sandbox.backend: docker)"
            )
        return recipe

    def python_version(self) -> str:
        """The Python (major.minor) this backend's environments run."""
        return f"{sys.version_info[0]}.{sys.version_info[1]}"

    def environment_id(self, repo: Path, commit: str) -> str:
        recipe = self._recipe(repo, commit)
        return "venv-" + recipe.key(sys.executable, f"{sys.version_info[:3]}", VENV_LAYOUT)

    def _ensure_venv(self, repo: Path, commit: str) -> Path:
        env_id = self.environment_id(repo, commit)
        venv = self.cache_dir / "envs" / env_id
        if self._intact(venv):
            return venv
        with file_lock(self.cache_dir / "envs" / f"{env_id}.lock"):
            if self._intact(venv):
                return venv
            if venv.exists():
                self.log(f"sandbox: the environment {env_id} was modified or is incomplete; rebuilding it")
            _remove_venv(venv)
            self._build_venv(repo, commit, venv)
            install_log = self.cache_dir / "build-logs" / f"{venv.name}.log"
            asked = install_log.read_text(errors="replace") if install_log.is_file() else ""
            (venv / ".plugins.json").write_text(json.dumps(_venv_pytest_plugins(venv, asked)))
            _read_only(venv)  # task code running as this user could undo it; the manifest tells
            manifest = venv.with_name(venv.name + ".manifest")
            manifest.write_text(tree_manifest(venv))
            self.builds.append(env_id)
        return venv

    @staticmethod
    def _intact(venv: Path) -> bool:
        manifest = venv.with_name(venv.name + ".manifest")
        return venv.is_dir() and manifest.is_file() and manifest.read_text() == tree_manifest(venv)

    def _build_venv(self, repo: Path, commit: str, venv: Path) -> None:
        recipe = self._recipe(repo, commit)
        log_path = self.cache_dir / "build-logs" / f"{venv.name}.log"
        log_path.parent.mkdir(parents=True, exist_ok=True)
        # no --system-site-packages (that would be the *base* interpreter's): SEBGen's own site
        # folders come in by a .pth, after the venv's own, so pytest is the one SEBGen runs with
        cmd = [sys.executable, "-m", "venv"]
        if not recipe.needs_install:
            cmd.append("--without-pip")
        steps = [" ".join(cmd + [str(venv)])]
        if recipe.needs_install:
            steps += install_commands(recipe, f"'{venv}/bin/python' -m pip")
        with tempfile.TemporaryDirectory(prefix="sebgen-build-") as tmp:
            tree = prepare_tree(repo, commit, (), Path(tmp) / "tree")
            env = {**os.environ, "VIRTUAL_ENV": str(venv), "PATH": f"{venv}/bin:{os.environ.get('PATH', '')}"}
            for index, step in enumerate(steps):
                if index == 1:  # the venv exists: SEBGen's site folders join before any install step runs
                    _link_host_site(venv)
                with open(log_path, "ab") as log:
                    log.write(f"$ {step}\n".encode())
                code, timed_out = run_group(
                    ["sh", "-c", f"{step} >> '{log_path}' 2>&1"], tree, env, 3600, Path(os.devnull)
                )
                if code != 0 or timed_out:
                    shutil.rmtree(venv, ignore_errors=True)
                    needed = submodule_shown(repo, commit, log_path.read_text(errors="replace"))
                    if needed is not None:
                        raise needed
                    raise BuildError(
                        f"installing {repo_name(repo)}@{commit[:10]} failed at `{step}`; log {log_path}:\n"
                        + tail(log_path.read_text(errors="replace"), 2000)
                    )
        _link_host_site(venv)
        if recipe.python and not sys.version.startswith(recipe.python):
            self.log(
                f"sandbox: WARNING: {repo_name(repo)} asks for Python {recipe.python}; "
                f"the local backend runs {sys.version.split()[0]}"
            )

    def prepare(self, repo: Path, commit: str) -> str:
        """Create the snapshot's virtualenv if needed; returns its environment id."""
        return self._ensure_venv(Path(repo), commit).name

    # -- running -----------------------------------------------------------------------
    def run_tests(
        self, repo: Path, commit: str, patches: Sequence[str] = (), test_files: Sequence[str] | None = None
    ) -> TestRun:
        return run_on_fresh_tree(self, repo, commit, patches, test_files)

    def run_tree(
        self, repo: Path, commit: str, tree: Path, test_files: Sequence[str] | None = None, untrusted: bool = False
    ) -> TestRun:
        """pytest on a prepared tree; `untrusted` (an agent's patch) is refused when running as root."""
        if untrusted and not self.runs_untrusted:
            raise SandboxError(
                "the local backend does not run agent patches as root; use the docker backend "
                "(--set sandbox.backend=docker) or run SEBGen as an unprivileged user"
            )
        repo, tree = Path(repo), Path(tree)
        began = time.monotonic()
        venv = self._ensure_venv(repo, commit)
        env_id = venv.name
        recipe = self._recipe(repo, commit)
        add_version_files(tree, recipe)
        with tempfile.TemporaryDirectory(prefix="sebgen-report-") as tmp:
            private = Path(tmp)  # outside the tree: the task cannot shadow the reporter
            shutil.copy(PLUGIN_SOURCE, private / f"{PLUGIN_MODULE}.py")
            canaries = new_canaries()
            canary = private / f"test_sebgen_{secrets.token_hex(6)}.py"  # a plugin: pytest_args loads it
            canary.write_text(canary_source(*canaries))
            python_path = [str(private), str(tree)] + ([str(tree / "src")] if (tree / "src").is_dir() else [])
            token = secrets.token_hex(16)
            env = {
                **{k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "SEBGEN_"))},
                "PYTHONPATH": os.pathsep.join(python_path),
                "PYTHONDONTWRITEBYTECODE": "1",
                "VIRTUAL_ENV": str(venv),
                "PATH": f"{venv}/bin:{os.environ.get('PATH', '')}",
                "SEBGEN_RUN_TOKEN": token,
                # host-wide pytest plugins stay out (as in the Docker image); plugins the repo's
                # own dependencies installed into the venv are loaded explicitly
                "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
            }
            plugins = json.loads((venv / ".plugins.json").read_text()) if (venv / ".plugins.json").exists() else []
            base = recipe.test_cmd.split() if recipe.test_cmd else [str(venv / "bin" / "python"), "-m", "pytest"]
            cmd = (
                base
                + [a for p in plugins for a in ("-p", p)]
                + policy_args(plugins)
                + pytest_args(test_files, str(tree), canary.stem)
            )
            hooks = site_hooks()
            start = time.monotonic()
            result = run_child(cmd, str(tree), env, self.limits.timeout_s, kill_run(token))
            duration = time.monotonic() - start
        checking = time.monotonic()
        timed_out, exit_code = result["timed_out"], result["exit_code"]
        parsed = parse_report(result["report"], exit_code, test_files, timed_out, canaries, str(result["log_tail"]))
        broken, note = parsed.broken, parsed.note
        exit_code = parsed.exit_code if parsed.exit_code is not None else exit_code
        if timed_out:
            note = f"timed out after {self.limits.timeout_s:g} s"
        elif result["report_overflow"]:
            broken, note = True, f"the report is over {REPORT_LIMIT // 2**20} MiB"
        if not self._intact(venv):
            broken, note = True, f"the run modified its environment {env_id} (it will be rebuilt)"
        added = sorted(set(site_hooks()) - set(hooks)) + sorted(p for p, m in hooks.items() if site_hooks().get(p) != m)
        if added:
            broken, note = True, f"the run changed the interpreter's start-up files: {', '.join(added[:3])}"
            self.log(f"sandbox: WARNING: a test run changed {', '.join(added)}; check them before trusting later runs")
        return TestRun(
            outcomes=parsed.outcomes,
            exit_code=exit_code,
            timed_out=timed_out,
            duration_s=duration,
            log_tail=tail(result["log_tail"]),
            image=env_id,
            broken=broken,
            note=note,
            collect_errors=parsed.collect_errors,
            phases={
                "venv": round(start - began, 4),
                "pytest": result["seconds"]["run"],
                "cleanup": result["seconds"]["cleanup"],
                "pytest_cpu": result["seconds"]["cpu"],
                "checks": round(time.monotonic() - checking, 4),
            },
        )

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        pass


def _link_host_site(venv: Path) -> None:
    """SEBGen's own site folders, after the venv's own, through a .pth (idempotent)."""
    site_dirs = list(venv.glob("lib/python*/site-packages"))
    if site_dirs:
        (site_dirs[0] / "_sebgen_host.pth").write_text("".join(f"{d}\n" for d in host_site_dirs()))
