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


class ExplorationFitness(base.Fitness):
    weights = (1.0,)


class Individual:
    def __init__(self, strategy: Strategy):
        self.strategy = strategy
        self.fitness = ExplorationFitness()
        self.dimensions: dict[str, float] = {}
        self.novelty: float = 0.0
        self.score: Score | None = None  # the newest score; None until evaluated
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
        return self.score.validations_per_kept if self.score else None

    def assign(self, score: Score) -> None:
        """Take a score: its EV, fitness, dimensions, counts and where its novelty was measured."""
        self.ev = score.exploration_value
        self.fitness.values = (score.fitness,)
        self.dimensions = dict(score.dimensions)
        self.novelty = self.dimensions.get("novelty", 0.0)
        self.score = score

    def to_dict(self) -> dict:
        return {
            "strategy": self.strategy.to_dict(),
            "exploration_value": self.exploration_value if self.fitness.valid else None,
            "fitness": self.fitness_value if self.fitness.valid else None,
            "dimensions": self.dimensions,
            "score": self.score.to_dict() if self.score else None,
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
        ind.score = _stored_score(data)
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
            tasks_passed=self.score.passed if self.score else 0,
            tasks_attempted=self.score.attempts if self.score else 0,
            validations=self.score.validations if self.score else None,
            validations_per_kept=self.validations_per_kept,
            novelty_generation=self.score.scored_at_generation if self.score else None,
            novelty_archive_tasks=self.score.archive_tasks if self.score else None,
        )


def _stored_score(data: dict) -> Score | None:
    """The score a checkpoint holds; checkpoints written before individuals kept their `Score`
    hold its counts as a "summary" beside the EV and dimensions."""
    if data.get("score"):
        return Score.from_dict(data["score"])
    summary = data.get("summary")
    if not summary or data.get("exploration_value") is None:
        return None
    fitness = data.get("fitness")
    return Score.from_dict(
        {
            "exploration_value": data["exploration_value"],
            "dimensions": dict(data.get("dimensions", {})),
            "novelties": {},
            "fitness": fitness if fitness is not None else data["exploration_value"],
            "failure_categories": [],
            "attempts": 0,
            "passed": 0,
            **summary,
        }
    )


def same_genome(a: Individual, b: Individual) -> bool:
    return a.strategy.genome_hash() == b.strategy.genome_hash()
