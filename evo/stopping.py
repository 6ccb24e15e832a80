"""Stopping a long command cleanly: the first Ctrl-C (or SIGTERM) lets the work in flight finish,
a second Ctrl-C stops at once. Shared by evolution runs and the farm. `generate`, whose output is
resumable line by line, stops at once on either (`sigterm_as_interrupt`)."""

from __future__ import annotations

import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager


class Stopper:
    """Ctrl-C (or SIGTERM) once: `reason` is set and the caller finishes its `work` in flight, then
    stops with its state intact; Ctrl-C again: KeyboardInterrupt now (it unwinds, and the
    sandboxes remove their containers), and `dropped` says what becomes of the work in flight.

    Calling the stopper asks whether to stop: a signal came, `request` was called, or `also` says so.
    """

    def __init__(self, log: Callable[[str], None], work: str, dropped: str, prefix: str = "", also=lambda: False):
        self.log, self.work, self.dropped, self.prefix, self.also = log, work, dropped, prefix, also
        self.reason: str | None = None

    def request(self, reason: str, said: str = "", hint: str = "") -> None:
        """Stop after the work in flight (the first request's reason is kept); `said` names the
        cause in the log line (the reason by default), `hint` ends it."""
        if self.reason is None:
            self.reason = reason
            self.log(f"{self.prefix}{said or reason}: finishing the {self.work} in flight, then stopping{hint}")

    def install(self) -> Callable[[], None]:
        """Handle SIGINT and SIGTERM; returns what puts the previous handlers back."""

        def handler(signum, _frame):
            if self.reason is not None and signum == signal.SIGINT:  # Ctrl-C twice: now
                self.log(f"{self.prefix}SIGINT again: stopping now; {self.dropped}")
                raise KeyboardInterrupt
            name = signal.Signals(signum).name
            self.request(name, f"{name} received", " (Ctrl-C again to stop now)" if signum == signal.SIGINT else "")

        previous = {s: signal.signal(s, handler) for s in (signal.SIGINT, signal.SIGTERM)}
        return lambda: [signal.signal(s, h) for s, h in previous.items()]

    def __call__(self) -> bool:
        return self.reason is not None or bool(self.also())


@contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """SIGTERM (a scheduler's or `kill`'s stop) unwinds as Ctrl-C does: KeyboardInterrupt, so the
    sandboxes remove their containers on the way out. Without it Python dies at once and leaves them."""

    def handler(_signum, _frame):
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
