"""Running independent sandbox jobs on a few threads (backends are thread-safe)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from . import containers

T = TypeVar("T")
R = TypeVar("R")


def run_parallel(fn: Callable[[T], R], items: Iterable[T], workers: int = 2) -> list[R]:
    """fn over items on `workers` threads, results in input order; the first exception propagates."""
    items = list(items)
    if workers <= 1 or len(items) <= 1:
        return [fn(item) for item in items]
    pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="sebgen-sandbox")
    try:
        return list(pool.map(fn, items))
    except (KeyboardInterrupt, SystemExit):
        # Ctrl-C: stop queued work and kill running containers so the workers return now
        # instead of at their timeout
        pool.shutdown(wait=False, cancel_futures=True)
        containers.remove_all()
        raise
    except BaseException:
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    finally:
        pool.shutdown(wait=True)
