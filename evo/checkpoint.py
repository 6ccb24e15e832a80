"""Run state on disk: JSON checkpoints written atomically, and an append-only evaluation journal.

A checkpoint is data, not code (no pickle). It is written to a temporary file, fsynced and
renamed, so a kill leaves either the old or the new file, never a torn one; a torn or corrupt
file (a disk, not us) is detected on load and the previous checkpoint is used instead.
The journal records each evaluation the moment it finishes, so a kill mid-generation loses
no paid evaluation.
"""

from __future__ import annotations

import json
import os
import random
from collections.abc import Iterable
from pathlib import Path

from evo.faults import crash_point
from records import UserError

FORMAT = 1


class CheckpointError(UserError):
    pass


def atomic_write_text(path: Path, text: str, before_rename=lambda: None) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    with open(tmp, "w", encoding="utf-8") as fh:
        fh.write(text)
        fh.flush()
        os.fsync(fh.fileno())
    before_rename()
    os.replace(tmp, path)
    dir_fd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


def rng_state(rng: random.Random) -> dict:
    version, internal, gauss = rng.getstate()
    import numpy as np  # imported here: numpy costs 0.3 s at CLI startup

    state = np.random.get_state()
    return {
        "random": [version, list(internal), gauss],
        "numpy": [state[0], state[1].tolist(), int(state[2]), int(state[3]), float(state[4])],
    }


def restore_rng(rng: random.Random, data: dict) -> None:
    version, internal, gauss = data["random"]
    rng.setstate((version, tuple(internal), gauss))
    import numpy as np

    name, keys, pos, has_gauss, cached = data["numpy"]
    np.random.set_state((name, np.array(keys, dtype=np.uint32), pos, has_gauss, cached))


def save(path: Path, state: dict) -> None:
    """Write a generation's state to `path` (the run folder names it), stamped with the format."""
    state = {"format": FORMAT, **state}
    atomic_write_text(
        path,
        json.dumps(state, sort_keys=True),
        before_rename=lambda: crash_point("checkpoint_write", state["generation"]),
    )


def load_latest(paths: Iterable[Path], log) -> dict | None:
    """The first of `paths` (newest first) that parses; the later ones are the fallback for a
    corrupt newest."""
    for path in paths:
        try:
            state = json.loads(path.read_text(encoding="utf-8"))
            if state.get("format") != FORMAT or "generation" not in state:
                raise CheckpointError("unknown checkpoint format")
        except (json.JSONDecodeError, UnicodeDecodeError, CheckpointError) as exc:
            log(
                f"checkpoint {path.name} is corrupt or truncated ({exc.__class__.__name__}); "
                "falling back to the previous one"
            )
            continue
        log(f"resuming from checkpoint {path.name} (generation {state['generation']})")
        return state
    return None


class Journal:
    """Append-only JSONL of finished evaluations, fsynced per line."""

    def __init__(self, path: Path):
        self.path = Path(path)

    def append(self, record: dict) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.path, "a", encoding="utf-8") as fh:
            fh.write(json.dumps(record, sort_keys=True) + "\n")
            fh.flush()
            os.fsync(fh.fileno())

    def read(self) -> list[dict]:
        if not self.path.is_file():
            return []
        records = []
        for line in self.path.read_text(encoding="utf-8").splitlines():
            try:
                records.append(json.loads(line))
            except json.JSONDecodeError:
                continue  # a line torn by a kill: that evaluation was never reported as done
        return records
