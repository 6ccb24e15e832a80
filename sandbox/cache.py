"""Where SEBGen keeps what it builds (environments, build logs, learned recipes), and the lock
that lets one thread or process build a thing while the others wait for it."""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


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
