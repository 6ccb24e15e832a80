"""Exporting tasks: SWE-bench JSONL and Harbor task folders.

A SEBGen task's agent state is base_commit + bug_patch. A stock SWE-bench harness checks out
base_commit as-is, so `materialize` publishes, as SWE-smith does, one branch per task in a
mirror repo whose commit IS the buggy state (tests reverted); records then point at it.
Without a mirror the export keeps bug_patch as an extra field; Harbor folders bake the bug in.
"""
from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import tempfile
from datetime import datetime, timezone
from pathlib import Path

from fitness.task import Task, read_jsonl, write_jsonl
from fitness.validate import test_files_of

DEFAULT_BASE_IMAGE = "sebgen-base:bookworm"
SWEBENCH_FIELDS = ("instance_id", "repo", "base_commit", "patch", "test_patch", "problem_statement",
                   "hints_text", "created_at", "version")


class ExportError(ValueError):
    pass


def load_tasks(source: Path) -> list[Task]:
    """Tasks from a JSONL file, or the kept tasks of a run folder (evaluations.jsonl), first seen wins."""
    source = Path(source)
    if source.is_file():
        return list(read_jsonl(source))
    journal = source / "evaluations.jsonl"
    if not journal.is_file():
        raise ExportError(f"{source} is neither a tasks JSONL file nor a run folder with evaluations.jsonl")
    tasks: dict[str, Task] = {}
    for line in journal.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        for data in json.loads(line).get("tasks", []):
            task = Task.from_dict(data)
            if task.passed and task.instance_id not in tasks:
                tasks[task.instance_id] = task
    return list(tasks.values())


BRANCH_PREFIX = "sebgen/"
SEBGEN_IDENTITY = ("SEBGen", "sebgen@localhost")


def _git(repo: Path, *args: str, env: dict | None = None, stdin: str | None = None) -> str:
    proc = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, input=stdin,
                          env={**os.environ, **(env or {})})
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or ["no message"])[-1]
        raise ExportError(f"git {args[0]} failed in {repo}: {last}")
    return proc.stdout


def _with_newline(text: str) -> str:
    return text if text.endswith("\n") else text + "\n"


def mirror_path(task: Task, mirror_dir: Path) -> Path:
    return Path(mirror_dir).resolve() / task.repo.replace("/", "__")


def ensure_mirror(task: Task, mirror_dir: Path) -> Path:
    """The mirror repo for the task's source repo, cloned once and holding task.base_commit."""
    if not task.repo_path or not Path(task.repo_path).is_dir():
        raise ExportError(f"task {task.instance_id}: its repo_path {task.repo_path!r} is not on this machine")
    mirror = mirror_path(task, mirror_dir)
    if not (mirror / ".git").exists() and not (mirror / "HEAD").exists():
        mirror.parent.mkdir(parents=True, exist_ok=True)
        proc = subprocess.run(["git", "clone", "-q", "--no-hardlinks", "--bare", str(task.repo_path), str(mirror)],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            raise ExportError(f"cannot clone {task.repo_path} into {mirror}: {proc.stderr.strip()}")
    has_commit = subprocess.run(["git", "-C", str(mirror), "cat-file", "-e", f"{task.base_commit}^{{commit}}"],
                                capture_output=True).returncode == 0
    if not has_commit:  # a commit off the cloned branches: fetch it by id
        _git(mirror, "fetch", "-q", "--no-tags", str(Path(task.repo_path).resolve()), task.base_commit)
    return mirror


def _commit_date(task: Task, mirror: Path) -> str:
    """The task's created_at as git's raw date; the base commit's date when created_at is empty."""
    if task.created_at:
        try:
            moment = datetime.fromisoformat(task.created_at.replace("Z", "+00:00"))
        except ValueError:
            raise ExportError(f"task {task.instance_id}: created_at {task.created_at!r} is not an ISO date") from None
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=timezone.utc)
        return f"{int(moment.timestamp())} +0000"
    return _git(mirror, "show", "-s", "--format=%ct", task.base_commit).strip() + " +0000"


def buggy_commit(task: Task, mirror: Path) -> str:
    """Commit (parent base_commit) holding base_commit + bug_patch with test_patch reverted; deterministic."""
    with tempfile.TemporaryDirectory(prefix="sebgen-index-") as tmp:
        index = {"GIT_INDEX_FILE": str(Path(tmp) / "index")}
        _git(mirror, "read-tree", task.base_commit, env=index)
        try:
            _git(mirror, "apply", "--cached", "--whitespace=nowarn", "-", env=index,
                 stdin=_with_newline(task.bug_patch))
            if task.test_patch.strip():
                _git(mirror, "apply", "--cached", "-R", "--whitespace=nowarn", "-", env=index,
                     stdin=_with_newline(task.test_patch))
        except ExportError as exc:
            raise ExportError(f"task {task.instance_id}: its patches do not apply to {task.base_commit}: {exc}") from None
        tree = _git(mirror, "write-tree", env=index).strip()
    name, email = SEBGEN_IDENTITY
    date = _commit_date(task, mirror)
    identity = {"GIT_AUTHOR_NAME": name, "GIT_AUTHOR_EMAIL": email, "GIT_AUTHOR_DATE": date,
                "GIT_COMMITTER_NAME": name, "GIT_COMMITTER_EMAIL": email, "GIT_COMMITTER_DATE": date}
    message = f"SEBGen task {task.instance_id}: buggy state, withheld tests reverted\n"
    return _git(mirror, "commit-tree", "--no-gpg-sign", tree, "-p", task.base_commit, env=identity,
                stdin=message).strip()


def materialize(tasks: list[Task], mirror_dir: Path) -> dict[str, str]:
    """Branch sebgen/<instance_id> per task in mirror_dir/<repo>; returns the buggy commit per task."""
    commits: dict[str, str] = {}
    for task in tasks:
        mirror = ensure_mirror(task, mirror_dir)
        sha = buggy_commit(task, mirror)
        _git(mirror, "update-ref", f"refs/heads/{BRANCH_PREFIX}{task.instance_id}", sha)
        commits[task.instance_id] = sha
    return commits


def swebench_record(task: Task, buggy_commit: str | None = None, mirror: Path | None = None) -> dict:
    """One SWE-bench row; with buggy_commit it starts from the published buggy state (see materialize)."""
    record = {name: getattr(task, name) for name in SWEBENCH_FIELDS}
    # SWE-bench ships the test lists as JSON-encoded strings
    record.update(FAIL_TO_PASS=json.dumps(task.FAIL_TO_PASS), PASS_TO_PASS=json.dumps(task.PASS_TO_PASS),
                  environment_setup_commit=task.base_commit, bug_patch=task.bug_patch,
                  difficulty_level=task.difficulty_level, sebgen_fixed_commit=task.base_commit)
    if buggy_commit:
        # patch still applies (only tests differ from base + bug) and test_patch applies since tests were reverted
        record.update(base_commit=buggy_commit, environment_setup_commit=buggy_commit)
        if mirror is not None:
            record["repo"] = str(mirror)
    return record


def export_swebench(tasks: list[Task], out: Path, mirror_dir: Path | None = None) -> int:
    """SWE-bench JSONL; with mirror_dir the records point at materialized buggy commits there."""
    if mirror_dir is None:
        return write_jsonl([swebench_record(t) for t in tasks], out)
    commits = materialize(tasks, mirror_dir)
    return write_jsonl([swebench_record(t, commits[t.instance_id], mirror_path(t, mirror_dir)) for t in tasks], out)


def task_toml(timeout_s: int, cpus: float, memory_mb: int) -> str:
    return (f'version = "1.0"\n\n[metadata]\nauthor_name = "sebgen"\n\n'
            f"[verifier]\ntimeout_sec = {float(timeout_s)}\n\n[agent]\ntimeout_sec = {float(timeout_s * 3)}\n\n"
            f"[environment]\nbuild_timeout_sec = {float(timeout_s * 2)}\ncpus = {int(cpus)}\n"
            f"memory_mb = {int(memory_mb)}\nallow_internet = false\n")


def harbor_dockerfile(base_image: str, has_pytest: bool) -> str:
    lines = [f"ARG BASE_IMAGE={base_image}", "FROM ${BASE_IMAGE}", "USER root"]
    if not has_pytest:
        # the only networked step: pytest from the index, trusting the host's CA bundle
        lines += ["COPY ca.pem /etc/sebgen/ca.pem",
                  "ENV PIP_CERT=/etc/sebgen/ca.pem SSL_CERT_FILE=/etc/sebgen/ca.pem PIP_DISABLE_PIP_VERSION_CHECK=1",
                  "ARG PIP_INDEX_URL", "ARG PIP_EXTRA_INDEX_URL",
                  "RUN python3 -m venv /opt/venv && /opt/venv/bin/pip install --no-cache-dir pytest"]
    lines += ["ENV PATH=/opt/venv/bin:$PATH PYTHONDONTWRITEBYTECODE=1",
              "COPY repo /app", "COPY bug.patch /tmp/bug.patch",
              "RUN cd /app && git apply --whitespace=nowarn /tmp/bug.patch && rm /tmp/bug.patch",
              "WORKDIR /app"]
    return "\n".join(lines) + "\n"


def test_script(test_ids: list[str]) -> str:
    ids = " ".join(shlex.quote(t) for t in test_ids)
    return ("#!/bin/bash\n# Copies the withheld tests into /app, runs F2P + P2P, writes the reward.\n"
            'HERE="$(cd "$(dirname "$0")" && pwd)"\nmkdir -p /logs/verifier\ncd /app\n'
            'cp -r "$HERE/files/." /app/\n'
            f"python3 -m pytest -q -p no:cacheprovider {ids}\n"
            'if [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi\n')


SOLVE_SCRIPT = ('#!/bin/bash\nset -e\nHERE="$(cd "$(dirname "$0")" && pwd)"\n'
                'cd /app\ngit apply --whitespace=nowarn "$HERE/fix.patch"\n')


def _ca_bundle() -> bytes:
    try:
        from sandbox import host_ca_bundle
        return host_ca_bundle()
    except Exception:  # no docker SDK or no bundle: an empty file keeps the COPY valid
        return b""


def export_harbor_task(task: Task, dest: Path, base_image: str = DEFAULT_BASE_IMAGE, timeout_s: int = 600,
                       cpus: float = 1, memory_mb: int = 2048) -> Path:
    """One Harbor task folder; the snapshot holds base_commit without the withheld test files."""
    from sandbox import export_tree
    if not task.repo_path or not Path(task.repo_path).is_dir():
        raise ExportError(f"task {task.instance_id}: its repo_path {task.repo_path!r} is not on this machine")
    folder = Path(dest) / task.instance_id
    if folder.exists():
        shutil.rmtree(folder)
    env = folder / "environment"
    repo = export_tree(Path(task.repo_path), task.base_commit, env / "repo")
    withheld = folder / "tests" / "files"
    for rel in test_files_of(task.test_patch):
        if (repo / rel).is_file():
            (withheld / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.move(str(repo / rel), withheld / rel)
    withheld.mkdir(parents=True, exist_ok=True)
    docker_image = task.image if task.image.startswith("sebgen-env:") else ""
    (env / "Dockerfile").write_text(harbor_dockerfile(docker_image or base_image, bool(docker_image)))
    (env / "bug.patch").write_text(task.bug_patch if task.bug_patch.endswith("\n") else task.bug_patch + "\n")
    (env / "ca.pem").write_bytes(_ca_bundle())
    (folder / "task.toml").write_text(task_toml(timeout_s, cpus, memory_mb))
    (folder / "instruction.md").write_text(task.problem_statement.rstrip() + "\n")
    (folder / "tests" / "test.sh").write_text(test_script(task.FAIL_TO_PASS + task.PASS_TO_PASS))
    (folder / "solution").mkdir(parents=True, exist_ok=True)
    (folder / "solution" / "solve.sh").write_text(SOLVE_SCRIPT)
    (folder / "solution" / "fix.patch").write_text(task.patch if task.patch.endswith("\n") else task.patch + "\n")
    for script in (folder / "tests" / "test.sh", folder / "solution" / "solve.sh"):
        script.chmod(0o755)
    return folder


def export_harbor(tasks: list[Task], dest: Path, **options) -> list[Path]:
    Path(dest).mkdir(parents=True, exist_ok=True)
    return [export_harbor_task(t, dest, **options) for t in tasks]
