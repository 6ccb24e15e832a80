"""The one owner of a farmed dataset folder's layout (`sebgen farm`), for reading and writing:
no other module names a file in it.

    dataset.json          the versions: each one's settings, its planned units (fixed when it
                          starts, so a resumed version tries exactly what it planned), the heads it
                          saw, and when it finished (written atomically)
    state.jsonl           one row per unit attempted, appended and fsynced as the unit ends:
                          kept / rejected (layer, category, reason) / error / duplicate, with the
                          task of a kept unit (a torn last line, from a kill, is skipped)
    releases/vNNNN.jsonl  the tasks a finished version added, ordered by unit id; written once
                          when the version ends and never rewritten
    CARD.md, card.json    the dataset card, rewritten when a version ends
    mined/KEY.json        a repository's mined history (`evo.farm.MinedHistory`) at the HEAD it
                          names, keyed by what else it depends on (`evo.farm.mined_key`): a
                          resumed or repeated farm reads it instead of mining again
    results/AGENT.json    `sebgen evaluate` documents on the dataset

The dataset is the releases, oldest first.
"""

from __future__ import annotations

import json
from pathlib import Path

from evo.checkpoint import Journal, atomic_write_text
from records import Task, UserError

DOCUMENT = "dataset.json"
STATE = "state.jsonl"
RELEASES = "releases"
RESULTS = "results"
MINED = "mined"
CARD_MD = "CARD.md"
CARD_JSON = "card.json"
FORMAT = 1


class DatasetFolderError(UserError):
    pass


class DatasetFolder:
    def __init__(self, path: Path):
        self.path = Path(path)
        self._journal = Journal(self.path / STATE)

    # -- the layout --------------------------------------------------------------------------
    @property
    def document_path(self) -> Path:
        return self.path / DOCUMENT

    @property
    def card_md_path(self) -> Path:
        return self.path / CARD_MD

    @property
    def card_json_path(self) -> Path:
        return self.path / CARD_JSON

    def release_path(self, version: int) -> Path:
        return self.path / RELEASES / f"v{version:04d}.jsonl"

    def results_path(self, label: str) -> Path:
        """Where `sebgen evaluate` writes an agent's results on this dataset."""
        return self.path / RESULTS / f"{label}.json"

    def is_dataset(self) -> bool:
        return self.document_path.is_file()

    def check_usable(self) -> None:
        """A folder `farm` may write into: a dataset, an empty folder, or none yet."""
        if self.path.exists() and not self.path.is_dir():
            raise DatasetFolderError(f"{self.path} is a file, not a dataset folder")
        # a run killed before its first version was written leaves only the mined histories
        if self.path.is_dir() and not self.is_dataset() and any(p.name != MINED for p in self.path.iterdir()):
            raise DatasetFolderError(
                f"{self.path} is not empty and holds no {DOCUMENT}: give a new folder or a farmed dataset"
            )

    # -- versions ------------------------------------------------------------------------------
    def versions(self) -> list[dict]:
        if not self.is_dataset():
            return []
        try:
            document = json.loads(self.document_path.read_text(encoding="utf-8"))
        except json.JSONDecodeError:
            raise DatasetFolderError(f"{self.document_path} is not JSON (it is written atomically: edited by hand?)")
        return list(document.get("versions", []))

    def write_versions(self, versions: list[dict]) -> None:
        self.path.mkdir(parents=True, exist_ok=True)
        document = {"format": FORMAT, "versions": versions}
        atomic_write_text(self.document_path, json.dumps(document, indent=1, sort_keys=True) + "\n")

    def open_version(self) -> dict | None:
        """The version a killed or stopped run left unfinished, if any."""
        versions = self.versions()
        return versions[-1] if versions and not versions[-1].get("finished_at") else None

    # -- state ----------------------------------------------------------------------------------
    def append_row(self, row: dict) -> None:
        state = self.path / STATE
        if state.is_file() and state.stat().st_size:
            with open(state, "rb+") as fh:  # a line torn by a kill is closed, so this row stands alone
                fh.seek(-1, 2)
                if fh.read(1) != b"\n":
                    fh.write(b"\n")
        self._journal.append(row)

    def rows(self) -> list[dict]:
        """Every state row, in the order written (the last row of a unit is its outcome)."""
        return self._journal.read()

    # -- mined histories --------------------------------------------------------------------
    def mined_path(self, key: str) -> Path:
        return self.path / MINED / f"{key}.json"

    def read_mined(self, key: str) -> dict | None:
        """The saved mined history under `key`, or None (none saved, or unreadable: mined again)."""
        try:
            data = json.loads(self.mined_path(key).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return data if isinstance(data, dict) else None

    def write_mined(self, key: str, history: dict) -> None:
        self.mined_path(key).parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(self.mined_path(key), json.dumps(history, sort_keys=True) + "\n")

    # -- releases -------------------------------------------------------------------------------
    def write_release(self, version: int, tasks: list[dict]) -> None:
        path = self.release_path(version)
        if path.exists():
            raise DatasetFolderError(f"{path} is released already: released tasks are never rewritten")
        text = "".join(json.dumps(t, sort_keys=True) + "\n" for t in tasks)
        atomic_write_text(path, text)

    def released(self, version: int) -> list[dict]:
        path = self.release_path(version)
        if not path.is_file():
            return []
        return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]

    def tasks(self) -> list[Task]:
        """The dataset: every released task, oldest version first."""
        return [Task.from_dict(t) for v in self.versions() for t in self.released(int(v["version"]))]

    def write_card(self, card: dict, markdown: str) -> None:
        atomic_write_text(self.card_json_path, json.dumps(card, indent=1, sort_keys=True) + "\n")
        atomic_write_text(self.card_md_path, markdown)
