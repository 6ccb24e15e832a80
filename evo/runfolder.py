"""One reader of a run folder: everything `export`, `report`, `hof`, lineage, `doctor` and the
CLI know about a run comes from here.

    config.yaml                      the resolved config
    checkpoints/gen-NNNN.json        atomic checkpoints (`evo.checkpoint` writes them)
    evaluations.jsonl                every evaluation as it finished, tasks and verdicts, before
                                     the generation's batch filter (a torn last line is skipped)
    generations/gen-N.offspring.json each generation's offspring
    generations/gen-N.scores.json    every strategy's score against the archive of that generation
    archive/                         the kept tasks (after the batch filter) and their embeddings
    results/AGENT.json               `sebgen evaluate` documents (the leaderboard)

The run's dataset is what the archive holds as of the newest checkpoint: tasks a batch filter
dropped are in the journal, never in the dataset.
"""

from __future__ import annotations

import json
from pathlib import Path

from evo.checkpoint import Journal, load_latest
from records import UserError

ARCHIVE = "archive"
JOURNAL = "evaluations.jsonl"


class RunFolderError(UserError):
    pass


class RunFolder:
    def __init__(self, path: Path):
        self.path = Path(path)

    # -- what is there ---------------------------------------------------------------------
    @property
    def journal(self) -> Journal:
        return Journal(self.path / JOURNAL)

    def is_run(self) -> bool:
        return (self.path / "config.yaml").is_file() and (self.path / "checkpoints").is_dir()

    @staticmethod
    def enclosing(path: Path) -> RunFolder | None:
        """The run folder that holds `path` (a tasks file written inside a run), if any."""
        for folder in Path(path).resolve().parents:
            if RunFolder(folder).is_run():
                return RunFolder(folder)
        return None

    def checkpoint(self) -> dict | None:
        return load_latest(self.path, log=lambda _m: None) if self.path.is_dir() else None

    def generation(self) -> int:
        state = self.checkpoint()
        return int(state["generation"]) if state else 0

    # -- evaluations and their tasks -------------------------------------------------------
    def evaluations(self) -> list[dict]:
        return self.journal.read()

    def attempted_tasks(self) -> list[dict]:
        """Every task any evaluation produced, kept or not (before the batch filter)."""
        return [t for record in self.evaluations() for t in record.get("tasks", [])]

    def kept_tasks(self) -> list[dict]:
        """The run's dataset: the archive's tasks as of the newest checkpoint, in archive order."""
        folder = self.path / ARCHIVE
        if not folder.is_dir():
            raise RunFolderError(f"{self.path} has no archive/ folder (is it a SEBGen run folder?)")
        from archive import Archive

        with Archive.open(folder, model=self._archive_model(), read_only=True) as arc:
            return [t for t in arc.tasks(max_generation=self.generation()) if t.get("passed", True)]

    def _archive_model(self) -> str:
        from evo.config import load_config

        return load_config(self.path / "config.yaml").archive.model

    def images(self) -> set[str]:
        """Environment images that tasks of this run name."""
        return {t["image"] for t in self.attempted_tasks() if t.get("image")}

    # -- per generation ----------------------------------------------------------------------
    def scores(self) -> dict[int, dict]:
        """generation -> {genome hash: score} from generations/gen-N.scores.json."""
        return {gen: data for gen, data in self._per_generation("scores").items() if isinstance(data, dict)}

    def offspring(self) -> dict[int, list[dict]]:
        return {gen: data.get("offspring", []) for gen, data in self._per_generation("offspring").items()}

    def _per_generation(self, kind: str) -> dict[int, dict]:
        found = {}
        for path in sorted((self.path / "generations").glob(f"gen-*.{kind}.json")):
            try:
                found[int(path.name.split(".")[0].split("-")[1])] = json.loads(path.read_text(encoding="utf-8"))
            except (ValueError, IndexError):
                continue  # written atomically; a torn or foreign file is not ours
        return found

    # -- agents --------------------------------------------------------------------------------
    def results(self) -> list[dict]:
        from harness import read_results  # the harness loads the task machinery: only when asked

        return read_results(self.path / "results")
