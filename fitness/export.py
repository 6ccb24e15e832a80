"""Exporting tasks: SWE-bench JSONL and Harbor task folders.

A SEBGen task's agent state is base_commit + bug_patch. SWE-bench consumers check out
base_commit, so the export keeps bug_patch as an extra field; Harbor folders bake the bug in.
"""
from __future__ import annotations

import json
import shlex
import shutil
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


def swebench_record(task: Task) -> dict:
    record = {name: getattr(task, name) for name in SWEBENCH_FIELDS}
    # SWE-bench ships the test lists as JSON-encoded strings
    record.update(FAIL_TO_PASS=json.dumps(task.FAIL_TO_PASS), PASS_TO_PASS=json.dumps(task.PASS_TO_PASS),
                  environment_setup_commit=task.base_commit, bug_patch=task.bug_patch,
                  difficulty_level=task.difficulty_level)
    return record


def export_swebench(tasks: list[Task], out: Path) -> int:
    return write_jsonl([swebench_record(t) for t in tasks], out)


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
        from sandbox.images import host_ca_bundle
        return host_ca_bundle()
    except Exception:  # no docker SDK or no bundle: an empty file keeps the COPY valid
        return b""


def export_harbor_task(task: Task, dest: Path, base_image: str = DEFAULT_BASE_IMAGE, timeout_s: int = 600,
                       cpus: float = 1, memory_mb: int = 2048) -> Path:
    """One Harbor task folder; the snapshot holds base_commit without the withheld test files."""
    from sandbox.tree import export_tree
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
