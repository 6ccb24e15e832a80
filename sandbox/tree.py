"""Exporting a commit's tree without .git and applying patches to it."""

from __future__ import annotations

import functools
import io
import json
import os
import re
import shutil
import subprocess
import tarfile
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from .errors import PatchError, SandboxError
from .integrity import Restoration, check_patch_limits, guarded_digests, restore_for_verification


def _git(repo: Path, *args: str, input: bytes | None = None) -> bytes:
    proc = subprocess.run(["git", "-C", str(repo), *args], input=input, capture_output=True, check=False)
    if proc.returncode != 0:
        first = (proc.stderr.decode(errors="replace").strip().splitlines() or ["unknown error"])[0]
        raise SandboxError(f"git {args[0]} failed in {repo}: {first}")
    return proc.stdout


def archive_bytes(repo: Path, commit: str) -> bytes:
    """The tar of `commit`'s tree (git archive: no .git, no untracked files), with each git
    submodule the clone has at the commit the tree pins (a missing one stays an empty folder: the
    commit is tried, and `submodule_shown` names it when the run shows the tests need it)."""
    main = _git(Path(repo), "archive", "--format=tar", commit)
    present = [(path, git_dir, sha) for path, git_dir, sha in _submodules(repo, commit) if git_dir]
    if not present:
        return main
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as out:
        parts = [("", main)] + [
            (path, _git_at(git_dir, "archive", "--format=tar", sha)) for path, git_dir, sha in present
        ]
        for prefix, data in parts:
            if data is None:
                continue
            with tarfile.open(fileobj=io.BytesIO(data)) as part:
                for member in part.getmembers():
                    if prefix:
                        member.name = f"{prefix}/{member.name}"
                    out.addfile(member, part.extractfile(member) if member.isfile() else None)
    return buf.getvalue()


@dataclass(frozen=True)
class Submodule:
    path: str  # in the superproject's tree
    sha: str  # the commit the tree pins
    git_dir: str  # where the clone has it ("" when it does not have that commit)


def submodules_at(repo: Path, commit: str) -> list[Submodule]:
    """The git submodules of `commit`'s tree (nested ones with their full paths)."""
    return [Submodule(p, sha, d) for p, d, sha in _submodules(repo, commit)]


def missing_submodules(repo: Path, commit: str) -> list[Submodule]:
    """The submodules of `commit`'s tree the clone does not have at their pinned commits."""
    return [sub for sub in submodules_at(repo, commit) if not sub.git_dir]


def submodule_shown(repo: Path, commit: str, evidence: str) -> SandboxError | None:
    """The one-sentence error naming a submodule the clone lacks when `evidence` (a failed run's
    or build's log) shows it was needed: a path under it, or an import of it, in the log. A commit
    whose tests never read the submodule runs as any other (None)."""
    for sub in missing_submodules(repo, commit):
        line = _mention(sub.path, evidence)
        if line:
            return SandboxError(
                f"commit {commit[:10]} needs the submodule {sub.path} at {sub.sha[:10]}, which the clone "
                f"{Path(repo).resolve()} does not have (run `git submodule update --init --recursive` there); "
                f"the run shows it: {line[:200]}"
            )
    return None


def _mention(path: str, text: str) -> str:
    """The first log line that reads a file under `path` or imports it as a module ("" if none)."""
    dotted = path.replace("/", ".")
    name = path.rsplit("/", 1)[-1]
    file_pattern = re.compile(rf"(?<![\w.-]){re.escape(path)}(?:/|['\"\s:]|$)")
    module_pattern = re.compile(rf"No module named '({re.escape(dotted)}|{re.escape(name)})(?:\.[\w.]+)?'")
    for line in text.splitlines():
        if file_pattern.search(line) or module_pattern.search(line):
            return line.strip()
    return ""


def run_evidence(run) -> str:
    """What a run that did not pass cleanly says about why ("" for a run where every test passed)."""
    outcomes = run.outcomes.values()
    if outcomes and all(o in ("passed", "skipped") for o in outcomes) and not run.collect_errors:
        return ""
    failures = "\n".join(json.dumps(f, default=str) for f in run.failures.values())
    return "\n".join([*run.collect_errors, failures, run.log_tail, run.note])


def raise_if_submodule_needed(repo: Path, commit: str, run) -> None:
    """After a run: SandboxError when it failed for want of a submodule the clone lacks."""
    evidence = run_evidence(run)
    error = submodule_shown(repo, commit, evidence) if evidence else None
    if error is not None:
        raise error


def _git_at(git_dir: str, *args: str) -> bytes | None:
    if not git_dir:
        return None
    proc = subprocess.run(["git", "--git-dir", git_dir, *args], capture_output=True, check=False)
    return proc.stdout if proc.returncode == 0 else None


def _submodules(repo: Path, commit: str) -> tuple[tuple[str, str, str], ...]:
    root = Path(repo).resolve()
    sha = _git(root, "rev-parse", "--verify", f"{commit}^{{commit}}").decode().strip()
    return _submodules_cached(str(root), sha)


@functools.lru_cache(maxsize=512)
def _submodules_cached(root: str, sha: str) -> tuple[tuple[str, str, str], ...]:
    git_dir = _git(Path(root), "rev-parse", "--absolute-git-dir").decode().strip()
    return _submodules_in(git_dir, root, sha, "")


def _submodules_in(git_dir: str, work_tree: str, commit: str, prefix: str) -> tuple[tuple[str, str, str], ...]:
    """(path, git dir or "", pinned sha) of each gitlink of `commit`, recursively."""
    listing = _git_at(git_dir, "ls-tree", "-r", "-z", commit) or b""
    links = []
    for entry in listing.split(b"\0"):
        meta, _, path = entry.partition(b"\t")
        fields = meta.split()
        if len(fields) == 3 and fields[0] == b"160000":
            links.append((path.decode(errors="replace"), fields[2].decode()))
    if not links:
        return ()
    names = {}
    config = subprocess.run(
        [
            "git",
            "--git-dir",
            git_dir,
            "config",
            "--blob",
            f"{commit}:.gitmodules",
            "--get-regexp",
            r"^submodule\..*\.path$",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    for line in config.stdout.splitlines():
        key, _, path = line.partition(" ")
        names[path.strip()] = key[len("submodule.") : -len(".path")]
    found = []
    for path, sha in links:
        name = names.get(path, path)
        candidates = [os.path.join(git_dir, "modules", name)]
        if work_tree:
            candidates.append(os.path.join(work_tree, path, ".git"))
        sub_dir = ""
        for candidate in candidates:
            resolved = _resolve_git_dir(candidate)
            if resolved and _git_at(resolved, "cat-file", "-e", f"{sha}^{{commit}}") is not None:
                sub_dir = resolved
                break
        full = f"{prefix}{path}"
        found.append((full, sub_dir, sha))
        if sub_dir:  # its own submodules live in its git dir's modules/ (a checkout's work tree may have them too)
            nested_tree = os.path.join(work_tree, path) if work_tree else ""
            found += _submodules_in(sub_dir, nested_tree, sha, f"{full}/")
    return tuple(found)


def _resolve_git_dir(path: str) -> str:
    """A git dir from a folder or a `.git` file (`gitdir: ...`); "" when there is none."""
    if os.path.isfile(path):
        try:
            text = Path(path).read_text().strip()
        except OSError:
            return ""
        if text.startswith("gitdir:"):
            target = text[len("gitdir:") :].strip()
            path = target if os.path.isabs(target) else os.path.join(os.path.dirname(path), target)
    return os.path.realpath(path) if os.path.isdir(path) and os.path.exists(os.path.join(path, "HEAD")) else ""


def export_tree(repo: Path, commit: str, dest: Path) -> Path:
    """Write `commit`'s tree into `dest` (created if needed), with no .git directory."""
    dest = Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    with tarfile.open(fileobj=io.BytesIO(archive_bytes(repo, commit))) as tar:
        safe_extract(tar, dest)
    return dest


def safe_extract(tar: tarfile.TarFile, dest: Path) -> None:
    """extractall with the "tar" filter's guarantees, also on Pythons without filters (3.11.2)."""
    if hasattr(tarfile, "tar_filter"):
        tar.extractall(dest, filter="tar")
        return
    root = os.path.realpath(dest)
    for member in tar.getmembers():
        target = os.path.realpath(os.path.join(root, member.name.lstrip("/")))
        if os.path.commonpath([root, target]) != root:
            raise SandboxError(f"archive member {member.name!r} would land outside {dest}")
        if not (member.isfile() or member.isdir() or member.issym() or member.islnk()):
            continue  # devices and fifos have no place in a source tree
        if member.mode is not None:
            member.mode &= 0o755  # as the "tar" filter: no setuid/setgid/sticky, no group/other write
        tar.extract(member, root, set_attrs=not member.issym())


def apply_patch(tree: Path, diff: str, reverse: bool = False) -> None:
    """Apply (or reverse) a unified diff to a plain directory; an empty diff is a no-op."""
    if not diff or not diff.strip():
        return
    if not diff.endswith("\n"):
        diff += "\n"
    proc = subprocess.run(
        ["git", "apply", "--whitespace=nowarn", *(["-R"] if reverse else []), "-"],
        cwd=str(tree),
        input=diff.encode(),
        capture_output=True,
        check=False,
        # outside any repo git apply works on the cwd; keep a parent repo from interfering
        env={**os.environ, "GIT_CEILING_DIRECTORIES": str(Path(tree).resolve().parent)},
    )
    if proc.returncode != 0:
        lines = proc.stderr.decode(errors="replace").strip().splitlines()
        first = next((ln for ln in lines if ln.startswith("error")), lines[0] if lines else "git apply failed")
        raise PatchError(f"patch does not apply: {first}")


def attempt_tree(
    repo: Path, commit: str, bug_patch: str, test_patch: str, agent_patch: str | None, dest: Path
) -> Restoration:
    """The tree an agent patch is verified in (see sandbox.integrity): agent state, patch, restore.

    PatchError when the agent patch is over the limits or does not apply (git's reason kept).
    """
    dest = Path(dest)
    check_patch_limits(agent_patch)
    fixed = prepare_tree(repo, commit, (), dest.with_name(dest.name + "-fixed"))
    try:
        prepare_tree(repo, commit, [bug_patch], dest)
        if test_patch and test_patch.strip():
            apply_patch(dest, test_patch, reverse=True)  # the withheld tests are absent
        withheld = set(patch_files(test_patch))
        agent_state = guarded_digests(dest, withheld)
        apply_patch(dest, agent_patch or "")
        return restore_for_verification(dest, fixed, withheld, agent_state)
    finally:
        shutil.rmtree(fixed, ignore_errors=True)


def patch_files(diff: str) -> list[str]:
    """Paths a unified diff touches (both sides, without a/ b/ prefixes)."""
    names = set()
    for line in (diff or "").splitlines():
        if line.startswith(("--- ", "+++ ")):
            name = line[4:].split("\t")[0].strip()
            if name != "/dev/null":
                names.add(name[2:] if name[:2] in ("a/", "b/") else name)
    return sorted(names)


def prepare_tree(repo: Path, commit: str, patches: Sequence[str], dest: Path) -> Path:
    """Export `commit` into `dest` and apply `patches` in order."""
    export_tree(repo, commit, dest)
    for diff in patches:
        apply_patch(dest, diff)
    return dest


def read_file_at(repo: Path, commit: str, path: str) -> bytes | None:
    """A file's bytes at `commit`, or None when it does not exist there."""
    proc = subprocess.run(["git", "-C", str(repo), "show", f"{commit}:{path}"], capture_output=True, check=False)
    return proc.stdout if proc.returncode == 0 else None


def list_files_at(repo: Path, commit: str) -> list[str]:
    """Top-level file names of `commit`'s tree."""
    out = _git(Path(repo), "ls-tree", "--name-only", commit)
    return out.decode().splitlines()


def resolve_commit(repo: Path, commit: str) -> str:
    """The full sha of `commit` (raises SandboxError with git's sentence when unknown)."""
    return _git(Path(repo), "rev-parse", "--verify", f"{commit}^{{commit}}").decode().strip()


def run_on_fresh_tree(
    backend, repo: Path, commit: str, patches: Sequence[str] = (), test_files: Sequence[str] | None = None
):
    """`backend.run_tests` for every backend: a temporary tree of `commit` with `patches`, run once."""
    with tempfile.TemporaryDirectory(prefix="sebgen-run-") as tmp:
        tree = prepare_tree(Path(repo), commit, patches, Path(tmp) / "tree")
        run = backend.run_tree(repo, commit, tree, test_files)
    raise_if_submodule_needed(Path(repo), commit, run)
    return run
