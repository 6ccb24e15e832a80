"""The records of scoring a strategy: what executing it produced (`Evaluation`), its exploration
value against one archive state (`Score`), and a hall-of-fame entry (`HofEntry`), as the
checkpoint and `sebgen hof --json` hold it."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from .task import Task


def validations_of(tasks: list[Task]) -> int:
    """Container validations a list of tasks cost: each task that reached the functional layer
    ran its states in containers once (a verdict reused from an identical state counts too:
    it is what a dataset builder without that cache would pay)."""
    return sum(1 for t in tasks if "functional" in t.validation)


@dataclass
class Evaluation:
    """What executing a strategy produced: tasks and their validation, no novelty, no EV."""

    strategy_id: str
    genome_hash: str
    sample: int  # the generation whose commit sample was used
    attempts: int
    passed: int
    failure_categories: list[str]
    tasks: list[Task]
    usage: dict
    validations: int = 0  # container validations spent (functional-layer runs, reused verdicts too)
    generation: int | None = None  # the generation of a run that executed it (set by the evolution loop)

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> Evaluation:
        """From JSON: the journal's full records, or the checkpoint's summaries (no tasks)."""
        values = {k: data[k] for k in cls.__dataclass_fields__ if k in data}
        values["tasks"] = [Task.from_dict(t) for t in data.get("tasks", [])]
        values.setdefault("validations", validations_of(values["tasks"]))
        return cls(**values)


@dataclass
class Score:
    """A strategy's exploration value as of one archive state."""

    exploration_value: float
    dimensions: dict[str, float]
    attempts: int
    passed: int
    failure_categories: list[str]
    novelties: dict[str, float]  # instance_id -> novelty of each kept task
    validations: int = 0  # container validations the tasks cost
    kept_per_validation: float = 0.0
    failure_routes: list[str] = field(default_factory=list)  # per rejection, the gene that can fix it
    fitness: float = 0.0  # what evolution ranks by: EV with the yield per validation folded in
    # where the novelty was measured: the generation after which it was scored, and the archive's size then
    scored_at_generation: int | None = None
    archive_tasks: int | None = None

    @property
    def validations_per_kept(self) -> float | None:
        return round(self.validations / self.passed, 4) if self.passed else None

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> Score:
        return cls(**{k: data[k] for k in cls.__dataclass_fields__ if k in data})


@dataclass
class HofEntry:
    """A strategy in the hall of fame as of one generation, with the score it had then."""

    id: str
    generation: int  # the generation that created the strategy
    exploration_value: float
    fitness: float
    dimensions: dict[str, float]
    strategy_type: str
    params: dict
    genes: dict
    prompt: str
    parents: list[str]
    operator: str
    tasks_passed: int = 0
    tasks_attempted: int = 0
    validations: int | None = None
    validations_per_kept: float | None = None
    # novelty (and so EV) is as of this archive: re-scored each generation, never cached
    novelty_generation: int | None = None
    novelty_archive_tasks: int | None = None

    def to_dict(self) -> dict:
        out = asdict(self)
        out["novelty_reference"] = {
            "generation": out.pop("novelty_generation"),
            "archive_tasks": out.pop("novelty_archive_tasks"),
        }
        return out

    @classmethod
    def from_dict(cls, data: dict) -> HofEntry:
        reference = data.get("novelty_reference") or {}
        values = {k: data[k] for k in cls.__dataclass_fields__ if k in data}
        values.setdefault("fitness", data["exploration_value"])
        values.setdefault("genes", {})
        values.setdefault("operator", "seed")
        return cls(
            **values,
            novelty_generation=reference.get("generation"),
            novelty_archive_tasks=reference.get("archive_tasks"),
        )
