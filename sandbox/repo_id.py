"""The one name of a repository: `owner/name` from its remote, else its folder name with its
root commit, so that two different repositories never share a name (nor a recipe cache entry,
nor instance ids) because their folders happen to be called alike."""

from __future__ import annotations

import functools
import re
import subprocess
from pathlib import Path

_SUFFIXES = (".git", ".bundle")
_SCP_LIKE = re.compile(r"^[\w.-]+@[\w.-]+:(?P<path>.+)$")  # git@github.com:owner/name.git
_URL = re.compile(r"^[a-z][a-z0-9+.-]*://[^/]*/(?P<path>.+)$", re.I)  # https://host/owner/name
_INSTANCE_STYLE = re.compile(r"^(?P<owner>[\w.-]+?)__(?P<name>[\w.-]+)$")  # SWE-bench's owner__name
_ROOT_CHARS = 12  # of the root commit's sha in a name without owner
_FOLLOW = 3  # local remotes followed (a clone of a clone of a mirror) before giving up on owner/name


def repo_name(repo: Path | str) -> str:
    """`owner/name` of the repository at `repo` when its remote (origin first) says so, else
    `<folder>-<root commit>`: the folder name with the first 12 hex digits of the root commit
    (the folder name alone when there is no commit).

    A URL gives its last two path parts. A remote that is a local path (a clone of a clone, of
    a mirror or of a bundle) gives `owner/name` when its base name follows SWE-bench's
    `owner__name` convention or when that repository's own remote does; a bare local base
    name (`/mirrors/x/repo`) is not an owner/name."""
    return _repo_name(Path(repo).resolve())


def shown_name(repo_name: str) -> str:
    """What a reader calls the repository `repo_name` names: `owner/name` as it is, and a folder's
    name without the root commit that only keeps ids apart (`pydoclint`, not `pydoclint-6e5d819a488a`)."""
    return re.sub(rf"-[0-9a-f]{{{_ROOT_CHARS}}}$", "", repo_name)


@functools.lru_cache(maxsize=256)
def _repo_name(path: Path) -> str:
    owner_name = _owner_name(path, _FOLLOW)
    if owner_name:
        return owner_name
    root = _root_commit(path)
    return f"{path.name}-{root[:_ROOT_CHARS]}" if root else path.name


def _owner_name(path: Path, follow: int) -> str:
    url = _remote_url(path)
    if not url:
        return ""
    name = name_from_url(url)
    if "/" in name:
        return name
    local = _local_path(url)
    if local is not None and not local.is_absolute():
        local = path / local  # git keeps a relative remote relative to the repository
    if local is not None and follow > 0 and local.is_dir():
        return _owner_name(local.resolve(), follow - 1)
    return ""


def _local_path(url: str) -> Path | None:
    url = url.strip()
    if url.lower().startswith("file://"):
        return Path(url[len("file://") :])
    if _URL.match(url) or _SCP_LIKE.match(url):
        return None
    return Path(url)


def name_from_url(url: str) -> str:
    """`owner/name` from a remote URL (a local path's base name when it has no owner), or ""."""
    url = url.strip().rstrip("/")
    for suffix in _SUFFIXES:
        if url.endswith(suffix):
            url = url[: -len(suffix)]
    if url.lower().startswith("file://"):
        url = url[len("file://") :]
    match = _URL.match(url) or _SCP_LIKE.match(url)
    if match:
        parts = [p for p in match.group("path").split("/") if p]
        return "/".join(parts[-2:]) if len(parts) >= 2 else ""
    base = re.split(r"[\\/]", url)[-1]
    local = _INSTANCE_STYLE.match(base)
    return f"{local.group('owner')}/{local.group('name')}" if local else base


def _git(path: Path, *args: str) -> str:
    proc = subprocess.run(["git", "-C", str(path), *args], capture_output=True, text=True, check=False)
    return proc.stdout.strip() if proc.returncode == 0 else ""


def _remote_url(path: Path) -> str:
    """The URL of `origin`, else of the first remote; "" when there is none or no repository."""
    remotes = _git(path, "remote").split()
    if not remotes:
        return ""
    chosen = "origin" if "origin" in remotes else remotes[0]
    return _git(path, "config", "--get", f"remote.{chosen}.url")


def _root_commit(path: Path) -> str:
    """The root commit of HEAD's history (the smallest sha when it has several); "" without one."""
    roots = _git(path, "rev-list", "--max-parents=0", "HEAD").split()
    return min(roots) if roots else ""
