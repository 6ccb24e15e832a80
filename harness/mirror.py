"""Publishing each task's buggy state as a git repository that holds nothing else.

`materialize` writes MIRROR/<instance_id>.git (bare), whose only branch `main` (HEAD) points at
one parentless commit: base_commit + bug_patch with test_patch reverted. The repository holds
only that commit's objects, so no git command run in a clone (log --all, diff HEAD HEAD^,
reflog, the object store) reaches the fixed code, later history or another task's state, and a
plain `git clone --single-branch` gets it. Commits are deterministic (fixed identity, the
task's date), so re-running gives the same shas.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from datetime import datetime, timezone
from pathlib import Path

from records import Task

from .export_errors import ExportError

SEBGEN_IDENTITY = ("SEBGen", "sebgen@localhost")
MIRROR_BRANCH = "main"


def git(repo: Path, *args: str, env: dict | None = None, stdin: str | bytes | None = None) -> str:
    """git -C repo ARGS; ExportError with git's last line when it fails."""
    binary = isinstance(stdin, bytes)
    proc = subprocess.run(
        ["git", "-C", str(repo), *args],
        capture_output=True,
        text=not binary,
        input=stdin,
        env={**os.environ, **(env or {})},
    )
    if proc.returncode != 0:
        stderr = proc.stderr.decode(errors="replace") if binary else proc.stderr
        last = (stderr.strip().splitlines() or ["no message"])[-1]
        raise ExportError(f"git {args[0]} failed in {repo}: {last}")
    return proc.stdout.decode(errors="replace") if binary else proc.stdout


def _with_newline(text: str) -> str:
    return text if text.endswith("\n") else text + "\n"


def task_mirror(task: Task, mirror_dir: Path) -> Path:
    return Path(mirror_dir).resolve() / f"{task.instance_id}.git"


def commit_date(task: Task, source: Path) -> str:
    """The task's created_at as git's raw date; the base commit's date when created_at is empty."""
    if task.created_at:
        try:
            moment = datetime.fromisoformat(task.created_at.replace("Z", "+00:00"))
        except ValueError:
            raise ExportError(f"task {task.instance_id}: created_at {task.created_at!r} is not an ISO date") from None
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=timezone.utc)
        return f"{int(moment.timestamp())} +0000"
    return git(source, "show", "-s", "--format=%ct", task.base_commit).strip() + " +0000"


def _scratch_clone(task: Task, into: Path) -> Path:
    """A bare clone sharing the source's objects (new objects stay in the scratch, not the user's repo)."""
    if not task.repo_path or not Path(task.repo_path).is_dir():
        raise ExportError(f"task {task.instance_id}: its repo_path {task.repo_path!r} is not on this machine")
    scratch = into / "scratch.git"
    proc = subprocess.run(
        ["git", "clone", "-q", "--bare", "--shared", str(Path(task.repo_path).resolve()), str(scratch)],
        capture_output=True,
        text=True,
    )
    if proc.returncode != 0:
        raise ExportError(f"cannot read {task.repo_path}: {proc.stderr.strip()}")
    if (
        subprocess.run(
            ["git", "-C", str(scratch), "cat-file", "-e", f"{task.base_commit}^{{commit}}"], capture_output=True
        ).returncode
        != 0
    ):  # off every branch: fetch it by id
        git(scratch, "fetch", "-q", "--no-tags", str(Path(task.repo_path).resolve()), task.base_commit)
    return scratch


def buggy_tree(task: Task, scratch: Path, workdir: Path) -> str:
    """The tree of base_commit + bug_patch with test_patch reverted, written in `scratch`."""
    index = {"GIT_INDEX_FILE": str(workdir / "index")}
    git(scratch, "read-tree", task.base_commit, env=index)
    try:
        git(scratch, "apply", "--cached", "--whitespace=nowarn", "-", env=index, stdin=_with_newline(task.bug_patch))
        if task.test_patch.strip():
            git(
                scratch,
                "apply",
                "--cached",
                "-R",
                "--whitespace=nowarn",
                "-",
                env=index,
                stdin=_with_newline(task.test_patch),
            )
    except ExportError as exc:
        raise ExportError(f"task {task.instance_id}: its patches do not apply to {task.base_commit}: {exc}") from None
    return git(scratch, "write-tree", env=index).strip()


def _copy_tree_objects(scratch: Path, tree: str, target: Path) -> None:
    """Exactly the tree's own objects (trees and blobs; no gitlinks) into `target`."""
    names = [tree]
    for line in git(scratch, "ls-tree", "-r", "-t", "--full-tree", tree).splitlines():
        meta, _, _path = line.partition("\t")
        _mode, kind, sha = meta.split()
        if kind in ("tree", "blob"):
            names.append(sha)
    proc = subprocess.run(
        ["git", "-C", str(scratch), "pack-objects", "--stdout"],
        input=("\n".join(names) + "\n").encode(),
        capture_output=True,
    )
    if proc.returncode != 0:
        raise ExportError(f"git pack-objects failed: {proc.stderr.decode(errors='replace').strip()}")
    git(target, "index-pack", "--stdin", "--fix-thin", stdin=proc.stdout)


def publish_task(task: Task, mirror_dir: Path) -> str:
    """MIRROR/<instance_id>.git with one parentless commit on `main`; returns its sha."""
    target = task_mirror(task, mirror_dir)
    with tempfile.TemporaryDirectory(prefix="sebgen-mirror-") as tmp:
        workdir = Path(tmp)
        scratch = _scratch_clone(task, workdir)
        tree = buggy_tree(task, scratch, workdir)
        if not target.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            proc = subprocess.run(["git", "init", "-q", "--bare", str(target)], capture_output=True, text=True)
            if proc.returncode != 0:
                raise ExportError(f"cannot create {target}: {proc.stderr.strip()}")
        _copy_tree_objects(scratch, tree, target)
        date = commit_date(task, scratch)
    name, email = SEBGEN_IDENTITY
    identity = {
        "GIT_AUTHOR_NAME": name,
        "GIT_AUTHOR_EMAIL": email,
        "GIT_AUTHOR_DATE": date,
        "GIT_COMMITTER_NAME": name,
        "GIT_COMMITTER_EMAIL": email,
        "GIT_COMMITTER_DATE": date,
    }
    message = f"SEBGen task {task.instance_id}: buggy state, withheld tests reverted\n"
    sha = git(target, "commit-tree", "--no-gpg-sign", tree, env=identity, stdin=message).strip()
    git(target, "update-ref", f"refs/heads/{MIRROR_BRANCH}", sha)
    git(target, "symbolic-ref", "HEAD", f"refs/heads/{MIRROR_BRANCH}")
    # objects of an earlier publication of a different state must not linger
    git(target, "reflog", "expire", "--expire=now", "--all")
    git(target, "gc", "-q", "--prune=now")
    return sha


def materialize(tasks: list[Task], mirror_dir: Path) -> dict[str, str]:
    """One repository per task in mirror_dir; returns the buggy commit per task."""
    return {task.instance_id: publish_task(task, mirror_dir) for task in tasks}
