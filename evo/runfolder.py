"""The one owner of a run folder's layout, for reading and for writing: no other module names a
file in it. `sebgen run` and `resume`, the loop, the runtime, export, report, hof, lineage,
doctor and the experiment all ask here.

    config.yaml                      the resolved config
    checkpoints/gen-NNNN.json        atomic checkpoints (`evo.checkpoint` writes what it is given)
    evaluations.jsonl                every evaluation as it finished, tasks and verdicts, before
                                     the generation's batch filter (a torn last line is skipped)
    generations/gen-N.offspring.json each generation's offspring
    generations/gen-N.scores.json    every strategy's score against the archive of that generation
    archive/                         the kept tasks (after the batch filter) and their embeddings
    llm_replay/                      every LLM answer the run paid for, replayed on resume
    results/AGENT.json               `sebgen evaluate` documents (the leaderboard)
    report/                          `sebgen report`'s pages
    STOP                             asks a running loop to stop after the evaluations in flight

A folder given to another package (archive/, llm_replay/, report/) is that package's inside.

The run's dataset is what the archive holds as of the newest checkpoint: tasks a batch filter
dropped are in the journal, never in the dataset.

An experiment folder (`ExperimentFolder`, below) holds run folders, one per seed and training run.
"""

from __future__ import annotations

import json
from pathlib import Path

from evo.checkpoint import Journal, atomic_write_text, load_latest, save
from records import Score, Task, UserError

CONFIG = "config.yaml"
CHECKPOINTS = "checkpoints"
JOURNAL = "evaluations.jsonl"
GENERATIONS = "generations"
ARCHIVE = "archive"
LLM_REPLAY = "llm_replay"
RESULTS = "results"
REPORT = "report"
STOP = "STOP"


class RunFolderError(UserError):
    pass


def _silent(_message: str) -> None:
    pass


class RunFolder:
    def __init__(self, path: Path):
        self.path = Path(path)

    # -- the layout --------------------------------------------------------------------------
    @property
    def config_path(self) -> Path:
        return self.path / CONFIG

    @property
    def checkpoints_dir(self) -> Path:
        return self.path / CHECKPOINTS

    @property
    def archive_dir(self) -> Path:
        return self.path / ARCHIVE

    @property
    def llm_replay_dir(self) -> Path:
        return self.path / LLM_REPLAY

    @property
    def report_dir(self) -> Path:
        return self.path / REPORT

    def results_path(self, label: str) -> Path:
        return self.path / RESULTS / f"{label}.json"

    def _generation_path(self, generation: int, kind: str) -> Path:
        return self.path / GENERATIONS / f"gen-{generation:04d}.{kind}.json"

    # -- what is there ---------------------------------------------------------------------
    @property
    def journal(self) -> Journal:
        return Journal(self.path / JOURNAL)

    def is_run(self) -> bool:
        return self.config_path.is_file() and self.checkpoints_dir.is_dir()

    @staticmethod
    def enclosing(path: Path) -> RunFolder | None:
        """The run folder that holds `path` (a tasks file written inside a run), if any."""
        for folder in Path(path).resolve().parents:
            if RunFolder(folder).is_run():
                return RunFolder(folder)
        return None

    def stop_requested(self) -> bool:
        return (self.path / STOP).exists()

    # -- writing -----------------------------------------------------------------------------
    def write_config(self, config_yaml: str) -> None:
        self.path.mkdir(parents=True, exist_ok=True)
        self.config_path.write_text(config_yaml, encoding="utf-8")

    def clear_stop(self) -> None:
        """A resumed run starts without the STOP that ended it."""
        (self.path / STOP).unlink(missing_ok=True)

    def save_checkpoint(self, state: dict, keep: int) -> None:
        """The generation's checkpoint; only the newest `keep` stay."""
        save(self.checkpoints_dir / f"gen-{state['generation']:04d}.json", state)
        for old in self._checkpoints()[:-keep]:
            old.unlink(missing_ok=True)

    def write_offspring(self, generation: int, record: dict) -> None:
        atomic_write_text(self._generation_path(generation, "offspring"), json.dumps(record, sort_keys=True))

    def write_scores(self, generation: int, scores: dict[str, Score]) -> None:
        as_json = {key: score.to_dict() for key, score in scores.items()}
        atomic_write_text(self._generation_path(generation, "scores"), json.dumps(as_json, sort_keys=True))

    # -- checkpoints -------------------------------------------------------------------------
    def _checkpoints(self) -> list[Path]:
        """Oldest first."""
        return sorted(self.checkpoints_dir.glob("gen-*.json"))

    def checkpoint(self, log=_silent) -> dict | None:
        """The newest checkpoint that parses (earlier ones are the fallback for a corrupt newest)."""
        return load_latest(reversed(self._checkpoints()), log=log)

    def generation(self) -> int:
        state = self.checkpoint()
        return int(state["generation"]) if state else 0

    def hall_of_fame_by_generation(self) -> dict[int, list[dict]]:
        """generation -> its hall of fame, as of the newest checkpoint (empty before one)."""
        state = self.checkpoint()
        return {int(g): entries for g, entries in state["hof_by_generation"].items()} if state else {}

    def best_strategy(self) -> dict:
        """The newest checkpoint's hall-of-fame leader, as a strategy record (`Strategy.to_dict`)."""
        if not self.is_run():
            raise RunFolderError(f"{self.path} is not a SEBGen run folder: it has no config.yaml or no checkpoint yet")
        fame = (self.checkpoint() or {}).get("hall_of_fame") or []
        if not fame:
            raise RunFolderError(f"run folder {self.path} has no hall of fame yet (no generation finished)")
        return dict(fame[0]["strategy"])

    # -- evaluations and their tasks -------------------------------------------------------
    def evaluations(self) -> list[dict]:
        return self.journal.read()

    def attempted_tasks(self) -> list[dict]:
        """Every task any evaluation produced, kept or not (before the batch filter)."""
        return [t for record in self.evaluations() for t in record.get("tasks", [])]

    def kept_tasks(self) -> list[dict]:
        """The run's dataset: the archive's tasks as of the newest checkpoint, in archive order."""
        if not self.archive_dir.is_dir():
            raise RunFolderError(f"{self.path} has no {ARCHIVE}/ folder (is it a SEBGen run folder?)")
        from archive import Archive

        with Archive.open(self.archive_dir, model=self._archive_model(), read_only=True) as arc:
            return [t for t in arc.tasks(max_generation=self.generation()) if t.get("passed", True)]

    def _archive_model(self) -> str:
        from evo.config import load_config

        return load_config(self.config_path).archive.model

    def images(self) -> set[str]:
        """Environment images that tasks of this run name."""
        return {t["image"] for t in self.attempted_tasks() if t.get("image")}

    # -- per generation ----------------------------------------------------------------------
    def offspring_record(self, generation: int) -> dict | None:
        """The generation's journaled variation (offspring, RNG after it, its LLM usage), if made."""
        path = self._generation_path(generation, "offspring")
        return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None

    def scores(self) -> dict[int, dict]:
        """generation -> {genome hash: score} from generations/gen-N.scores.json."""
        return {gen: data for gen, data in self._per_generation("scores").items() if isinstance(data, dict)}

    def offspring(self) -> dict[int, list[dict]]:
        return {gen: data.get("offspring", []) for gen, data in self._per_generation("offspring").items()}

    def _per_generation(self, kind: str) -> dict[int, dict]:
        found = {}
        for path in sorted((self.path / GENERATIONS).glob(f"gen-*.{kind}.json")):
            try:
                found[int(path.name.split(".")[0].split("-")[1])] = json.loads(path.read_text(encoding="utf-8"))
            except (ValueError, IndexError):
                continue  # written atomically; a torn or foreign file is not ours
        return found

    # -- agents --------------------------------------------------------------------------------
    def results(self) -> list[dict]:
        from harness import read_results  # the harness loads the task machinery: only when asked

        return read_results(self.path / RESULTS)


class ExperimentFolder:
    """The folder of `sebgen experiment`:

    experiment.json              the document: arms, intervals, paired differences, verdict
    seed-N/evolved/              the seed's training runs (run folders)
    seed-N/random_search/
    seed-N/result.json           a finished seed (a re-run of the experiment skips it)
    seed-N/heldout-novelty/      the archive the held-out arms' novelty is measured against
    seed-N/heldout-ARM.jsonl     each arm's held-out tasks, for inspection
    report/                      `sebgen report`'s page of the experiment
    """

    def __init__(self, path: Path):
        self.path = Path(path)

    @property
    def document_path(self) -> Path:
        return self.path / "experiment.json"

    @property
    def report_dir(self) -> Path:
        return self.path / REPORT

    def is_experiment(self) -> bool:
        return self.document_path.is_file()

    def read_document(self) -> dict:
        return json.loads(self.document_path.read_text(encoding="utf-8"))

    def write_document(self, document: dict) -> None:
        atomic_write_text(self.document_path, json.dumps(document, sort_keys=True, indent=1))

    def _seed_dir(self, seed: int) -> Path:
        return self.path / f"seed-{seed}"

    def training_run(self, seed: int, name: str) -> RunFolder:
        return RunFolder(self._seed_dir(seed) / name)

    def seed_result(self, seed: int) -> dict | None:
        path = self._seed_dir(seed) / "result.json"
        return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None

    def write_seed_result(self, seed: int, result: dict) -> None:
        atomic_write_text(self._seed_dir(seed) / "result.json", json.dumps(result, sort_keys=True, indent=1))

    def heldout_novelty_dir(self, seed: int) -> Path:
        return self._seed_dir(seed) / "heldout-novelty"

    def write_heldout_tasks(self, seed: int, arm: str, tasks: list[Task]) -> None:
        lines = "".join(json.dumps(t.to_dict()) + "\n" for t in tasks)
        atomic_write_text(self._seed_dir(seed) / f"heldout-{arm}.jsonl", lines)
