"""The warm-pool cap across processes: each SEBGen process on this machine (a farm's Dask
workers, parallel CLI calls) writes how many idle spare containers it holds into the cache dir;
a process starts one more only while the machine's total stays within the cap. Files of
processes that are gone do not count (and are removed)."""

from __future__ import annotations

import os
from pathlib import Path

from .cache import file_lock


class SpareLedger:
    def __init__(self, folder: Path, total: int):
        self.folder = Path(folder)
        self.total = total
        self.mine = self.folder / f"{os.getpid()}.count"

    def claim(self, held: int) -> bool:
        """Room for one more spare beside this process's `held` ones: recorded (held + 1) and
        True, or False when the processes on this machine hold the cap already."""
        with file_lock(self.folder / "ledger.lock"):
            if self._others() + held + 1 > self.total:
                self._write(held)
                return False
            self._write(held + 1)
            return True

    def publish(self, held: int) -> None:
        """This process now holds `held` spares."""
        with file_lock(self.folder / "ledger.lock"):
            self._write(held)

    def held_by_others(self) -> int:
        with file_lock(self.folder / "ledger.lock"):
            return self._others()

    def close(self) -> None:
        with file_lock(self.folder / "ledger.lock"):
            self.mine.unlink(missing_ok=True)

    def _write(self, held: int) -> None:
        tmp = self.mine.with_suffix(".tmp")
        tmp.write_text(str(held))
        tmp.replace(self.mine)

    def _others(self) -> int:
        count = 0
        for path in self.folder.glob("*.count"):
            if path == self.mine:
                continue
            try:
                pid, held = int(path.stem), int(path.read_text() or 0)
            except (ValueError, OSError):
                continue
            if _alive(pid):
                count += held
            else:
                path.unlink(missing_ok=True)
        return count


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: alive
        return True
    return True
