"""The one name of a repository: `owner/name` from its remote URL, its folder name otherwise."""

from __future__ import annotations

import functools
import re
import subprocess
from pathlib import Path

_SUFFIXES = (".git", ".bundle")
_SCP_LIKE = re.compile(r"^[\w.-]+@[\w.-]+:(?P<path>.+)$")  # git@github.com:owner/name.git
_URL = re.compile(r"^[a-z][a-z0-9+.-]*://[^/]*/(?P<path>.+)$", re.I)  # https://host/owner/name
_INSTANCE_STYLE = re.compile(r"^(?P<owner>[\w.-]+?)__(?P<name>[\w.-]+)$")  # SWE-bench's owner__name


def repo_name(repo: Path | str) -> str:
    """`owner/name` of the repository at `repo` when its remote (origin first) says so; the
    folder name otherwise. A URL gives its last two path parts; a remote that is a local path
    (a clone of a clone or of a bundle) gives its base name without `.git`/`.bundle`, read as
    `owner/name` when it follows SWE-bench's `owner__name` convention."""
    path = Path(repo).resolve()
    url = _remote_url(path)
    return (name_from_url(url) if url else "") or path.name


def name_from_url(url: str) -> str:
    """`owner/name` from a remote URL, or "" when the URL does not name a repository."""
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


@functools.lru_cache(maxsize=256)
def _remote_url(path: Path) -> str:
    """The URL of `origin`, else of the first remote; "" when there is none or no repository."""

    def git(*args: str) -> str:
        proc = subprocess.run(["git", "-C", str(path), *args], capture_output=True, text=True, check=False)
        return proc.stdout.strip() if proc.returncode == 0 else ""

    remotes = git("remote").split()
    if not remotes:
        return ""
    chosen = "origin" if "origin" in remotes else remotes[0]
    return git("config", "--get", f"remote.{chosen}.url")
