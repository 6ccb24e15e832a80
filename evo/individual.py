"""DEAP's individual and fitness for SEBGen, as module-level classes.

Module level (not `creator`) so they pickle under spawn, Dask and in checkpoints. The fitness
is single-valued and holds what evolution ranks by: the exploration value with the yield per
container validation folded in (`fitness.cost_weight`; with weight 0 it is the EV). DEAP
compares multi-objective weights lexicographically, so the EV itself, its five dimensions and
the cost (validations per kept task) live on the individual instead.
"""

from __future__ import annotations

from deap import base

from records import HofEntry, Score
from tasks import Strategy

# What the individual keeps of its score besides EV, fitness and dimensions (the checkpoint's "summary")
SUMMARY_FIELDS = (
    "attempts",
    "passed",
    "failure_categories",
    "failure_routes",
    "validations",
    "kept_per_validation",
    "scored_at_generation",
    "archive_tasks",
)


class ExplorationFitness(base.Fitness):
    weights = (1.0,)


class Individual:
    def __init__(self, strategy: Strategy):
        self.strategy = strategy
        self.fitness = ExplorationFitness()
        self.dimensions: dict[str, float] = {}
        self.novelty: float = 0.0
        self.summary: dict = {}
        self.ev: float | None = None

    @property
    def fitness_value(self) -> float:
        """What evolution ranks by (EV when cost_weight is 0)."""
        return self.fitness.values[0] if self.fitness.valid else 0.0

    @property
    def exploration_value(self) -> float:
        if self.ev is not None:
            return self.ev
        return self.fitness_value

    @property
    def validations_per_kept(self) -> float | None:
        passed, validations = self.summary.get("passed", 0), self.summary.get("validations")
        return round(validations / passed, 4) if passed and validations is not None else None

    def assign(self, score: Score) -> None:
        """Take a score: its EV, fitness, dimensions, counts and where its novelty was measured."""
        self.ev = score.exploration_value
        self.fitness.values = (score.fitness,)
        self.dimensions = dict(score.dimensions)
        self.novelty = self.dimensions.get("novelty", 0.0)
        self.summary = {name: getattr(score, name) for name in SUMMARY_FIELDS}

    def to_dict(self) -> dict:
        return {
            "strategy": self.strategy.to_dict(),
            "exploration_value": self.exploration_value if self.fitness.valid else None,
            "fitness": self.fitness_value if self.fitness.valid else None,
            "dimensions": self.dimensions,
            "summary": self.summary,
        }

    @classmethod
    def from_dict(cls, data: dict) -> Individual:
        ind = cls(Strategy.from_dict(data["strategy"]))
        if data.get("exploration_value") is not None:
            ind.ev = data["exploration_value"]
            fitness = data.get("fitness")
            ind.fitness.values = (fitness if fitness is not None else data["exploration_value"],)
        ind.dimensions = dict(data.get("dimensions", {}))
        ind.novelty = ind.dimensions.get("novelty", 0.0)
        ind.summary = dict(data.get("summary", {}))
        return ind

    def hof_entry(self) -> HofEntry:
        s = self.strategy
        return HofEntry(
            id=s.id,
            generation=s.generation,
            exploration_value=self.exploration_value,
            fitness=self.fitness_value,
            dimensions=self.dimensions,
            strategy_type=s.strategy_type.value,
            params=s.params,
            genes=s.shown_genes(),
            prompt=s.prompt,
            parents=list(s.parents),
            operator=s.operator,
            tasks_passed=self.summary.get("passed", 0),
            tasks_attempted=self.summary.get("attempts", 0),
            validations=self.summary.get("validations"),
            validations_per_kept=self.validations_per_kept,
            novelty_generation=self.summary.get("scored_at_generation"),
            novelty_archive_tasks=self.summary.get("archive_tasks"),
        )


def same_genome(a: Individual, b: Individual) -> bool:
    return a.strategy.genome_hash() == b.strategy.genome_hash()
