"""Local backend: pytest in a per-snapshot virtualenv on the host, with a wall-clock timeout.

Task code runs unisolated here; only the timeout is enforced (Docker enforces the rest).
"""
from __future__ import annotations

import fcntl
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator, Sequence

from .errors import BuildError
from .recipe import InstallRecipe, detect_recipe, install_commands, repo_name
from .report import PLUGIN_MODULE, PLUGIN_SOURCE, parse_report, pytest_args, tail
from .tree import prepare_tree
from .types import Limits, TestRun


def default_cache_dir() -> Path:
    return Path(os.environ.get("SEBGEN_CACHE") or Path.home() / ".cache" / "sebgen")


@contextmanager
def file_lock(path: Path) -> Iterator[None]:
    """An exclusive lock between threads and processes (flock on a fresh descriptor)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def run_group(cmd: list[str], cwd: Path, env: dict, timeout_s: float, log_path: Path) -> tuple[int, bool]:
    """Run `cmd` in its own process group; kill the whole group on timeout -> (exit code, timed out)."""
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(
            cmd, cwd=str(cwd), env=env, stdout=log, stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL, start_new_session=True,
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


def _venv_pytest_plugins(venv: Path) -> list[str]:
    """Modules of the pytest11 entry points installed into the venv itself (not the host's)."""
    from importlib.metadata import distributions

    site = list(venv.glob("lib/python*/site-packages"))
    modules = {ep.value.split(":")[0] for dist in distributions(path=[str(p) for p in site])
               for ep in dist.entry_points if ep.group == "pytest11"}
    return sorted(modules)


class LocalBackend:
    name = "local"

    def __init__(self, limits: Limits = Limits(), cache_dir: Path | None = None,
                 install: dict | None = None, log: Callable[[str], None] = print):
        self.limits = limits
        self.cache_dir = Path(cache_dir) if cache_dir else default_cache_dir()
        self.install = install or {}
        self.log = log
        self.builds: list[str] = []  # environment ids built by this backend (for tests and logs)

    # -- environment -------------------------------------------------------------------
    def _recipe(self, repo: Path, commit: str) -> InstallRecipe:
        return detect_recipe(repo, commit, self.install.get(repo_name(repo)))

    def environment_id(self, repo: Path, commit: str) -> str:
        recipe = self._recipe(repo, commit)
        return "venv-" + recipe.key(sys.executable, f"{sys.version_info[:3]}")

    def _ensure_venv(self, repo: Path, commit: str) -> Path:
        env_id = self.environment_id(repo, commit)
        venv = self.cache_dir / "envs" / env_id
        if (venv / ".ready").exists():
            return venv
        with file_lock(self.cache_dir / "envs" / f"{env_id}.lock"):
            if (venv / ".ready").exists():
                return venv
            shutil.rmtree(venv, ignore_errors=True)
            self._build_venv(repo, commit, venv)
            (venv / ".plugins.json").write_text(json.dumps(_venv_pytest_plugins(venv)))
            (venv / ".ready").write_text(env_id)
            self.builds.append(env_id)
        return venv

    def _build_venv(self, repo: Path, commit: str, venv: Path) -> None:
        recipe = self._recipe(repo, commit)
        log_path = self.cache_dir / "build-logs" / f"{venv.name}.log"
        log_path.parent.mkdir(parents=True, exist_ok=True)
        # --system-site-packages: pytest (and the host's test tools) come from the host
        cmd = [sys.executable, "-m", "venv", "--system-site-packages"]
        if not recipe.needs_install:
            cmd.append("--without-pip")
        steps = [" ".join(cmd + [str(venv)])]
        if recipe.needs_install:
            steps += install_commands(recipe, f"'{venv}/bin/python' -m pip")
        with tempfile.TemporaryDirectory(prefix="sebgen-build-") as tmp:
            tree = prepare_tree(repo, commit, (), Path(tmp) / "tree")
            env = {**os.environ, "VIRTUAL_ENV": str(venv), "PATH": f"{venv}/bin:{os.environ.get('PATH', '')}"}
            for step in steps:
                with open(log_path, "ab") as log:
                    log.write(f"$ {step}\n".encode())
                code, timed_out = run_group(["sh", "-c", f"{step} >> '{log_path}' 2>&1"], tree, env, 3600, Path(os.devnull))
                if code != 0 or timed_out:
                    shutil.rmtree(venv, ignore_errors=True)
                    raise BuildError(
                        f"installing {repo_name(repo)}@{commit[:10]} failed at `{step}`; log {log_path}:\n"
                        + tail(log_path.read_text(errors="replace"), 2000)
                    )
        if recipe.python and not sys.version.startswith(recipe.python):
            self.log(f"sandbox: WARNING: {repo_name(repo)} asks for Python {recipe.python}; "
                     f"the local backend runs {sys.version.split()[0]}")

    def prepare(self, repo: Path, commit: str) -> str:
        """Create the snapshot's virtualenv if needed; returns its environment id."""
        return self._ensure_venv(Path(repo), commit).name

    # -- running -----------------------------------------------------------------------
    def run_tests(self, repo: Path, commit: str, patches: Sequence[str] = (),
                  test_files: Sequence[str] | None = None) -> TestRun:
        repo = Path(repo)
        venv = self._ensure_venv(repo, commit)
        env_id = venv.name
        recipe = self._recipe(repo, commit)
        with tempfile.TemporaryDirectory(prefix="sebgen-run-") as tmp:
            tmp_path = Path(tmp)
            tree = prepare_tree(repo, commit, patches, tmp_path / "tree")
            plugin_dir = tmp_path / "plugin"  # outside the tree: the task cannot shadow it
            plugin_dir.mkdir()
            shutil.copy(PLUGIN_SOURCE, plugin_dir / f"{PLUGIN_MODULE}.py")
            report_path = tmp_path / "report.json"
            python_path = [str(plugin_dir), str(tree)] + ([str(tree / "src")] if (tree / "src").is_dir() else [])
            env = {
                **{k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")},
                "SEBGEN_REPORT": str(report_path),
                "PYTHONPATH": os.pathsep.join(python_path),
                "PYTHONDONTWRITEBYTECODE": "1",
                "VIRTUAL_ENV": str(venv),
                "PATH": f"{venv}/bin:{os.environ.get('PATH', '')}",
            }
            # host-wide pytest plugins stay out (as in the Docker image); plugins the repo's
            # own dependencies installed into the venv are loaded explicitly
            env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
            plugins = json.loads((venv / ".plugins.json").read_text()) if (venv / ".plugins.json").exists() else []
            base = recipe.test_cmd.split() if recipe.test_cmd else [str(venv / "bin" / "python"), "-m", "pytest"]
            cmd = base + [a for p in plugins for a in ("-p", p)] + pytest_args(test_files, str(tree))
            start = time.monotonic()
            exit_code, timed_out = run_group(cmd, tree, env, self.limits.timeout_s, tmp_path / "log.txt")
            duration = time.monotonic() - start
            raw = report_path.read_bytes() if report_path.exists() else None
            parsed = parse_report(raw, exit_code, test_files, timed_out)
            note = f"timed out after {self.limits.timeout_s:g} s" if timed_out else parsed.note
            return TestRun(
                outcomes=parsed.outcomes, exit_code=exit_code, timed_out=timed_out,
                duration_s=duration, log_tail=tail((tmp_path / "log.txt").read_text(errors="replace")),
                image=env_id, broken=parsed.broken, note=note, collect_errors=parsed.collect_errors,
            )

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        pass
