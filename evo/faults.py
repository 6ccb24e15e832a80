"""Named crash points, so tests can SIGKILL a run at an exact moment.

`SEBGEN_CRASH_AT=checkpoint_write:2` kills the process while generation 2's checkpoint is
half-written (temporary file on disk, not yet renamed). Unset, a crash point costs one dict
lookup.
"""

from __future__ import annotations

import os
import signal


def crash_point(name: str, generation: int) -> None:
    if os.environ.get("SEBGEN_CRASH_AT") == f"{name}:{generation}":
        os.kill(os.getpid(), signal.SIGKILL)
