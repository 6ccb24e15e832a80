"""Evaluating one strategy: pick commits, generate and validate tasks, score the batch.

The result depends only on the genome, the seed and the archive as it stood at the start of
the generation, never on evaluation order: this is what makes parallel evaluation, caching
and resume give the same answer as a plain serial run.
"""
from __future__ import annotations

import hashlib
import random
from dataclasses import asdict, dataclass, field

from fitness.exploration import dimensions_of, exploration_value
from fitness.generate import Generator, pick_candidates
from fitness.mining import Candidate
from fitness.strategy import Strategy
from fitness.validate import bottom_quartile_filter


@dataclass(frozen=True)
class EvalSettings:
    tasks_per_strategy: int = 3
    oversample: int = 3
    seed: int = 0
    difficulty_bins: int = 5
    skill_norm: int = 10
    weights: dict = field(default_factory=dict)


@dataclass
class Evaluation:
    strategy_id: str
    genome_hash: str
    exploration_value: float
    dimensions: dict
    attempts: int
    passed: int
    failure_categories: list[str]
    tasks: list[dict]
    usage: dict

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> "Evaluation":
        return cls(**data)

    @property
    def passed_tasks(self) -> list[dict]:
        return [t for t in self.tasks if all(v.get("passed") for v in t["validation"].values())]


def commit_order(strategy: Strategy, candidates: list[Candidate], seed: int) -> list[Candidate]:
    rng = random.Random(int(hashlib.sha256(f"{seed}:{strategy.genome_hash()}".encode()).hexdigest(), 16))
    pool = sorted(pick_candidates(candidates, strategy.strategy_type), key=lambda c: (c.repo, c.sha))
    rng.shuffle(pool)
    return pool


def evaluate_strategy(strategy: Strategy, candidates: list[Candidate], generator: Generator,
                      settings: EvalSettings, progress=None) -> Evaluation:
    """Try up to `oversample x N` commits and keep the first N that pass every layer."""
    usage_before = generator.llm.usage.to_dict()
    budget = settings.tasks_per_strategy * settings.oversample
    tasks = []
    for candidate in commit_order(strategy, candidates, settings.seed)[:budget]:
        task = generator.generate(candidate, strategy)
        tasks.append(task)
        if progress:
            progress(task)
        if sum(t.passed for t in tasks) >= settings.tasks_per_strategy:
            break
    bottom_quartile_filter(tasks)
    passed = [t for t in tasks if t.passed]
    novelties = [generator.archive.task_novelty(t.to_dict()) if generator.archive is not None else 1.0
                 for t in passed]
    for task, value in zip(passed, novelties):
        task.generation["novelty"] = round(value, 6)
    categories = [failed[1].get("category") or "other" for t in tasks if (failed := t.failed_layer())]
    dims = dimensions_of(attempts=len(tasks), passed_tasks=[t.to_dict() for t in passed],
                         failure_categories=categories, novelties=novelties,
                         bins=settings.difficulty_bins, skill_norm=settings.skill_norm)
    usage_after = generator.llm.usage.to_dict()
    return Evaluation(
        strategy_id=strategy.id, genome_hash=strategy.genome_hash(),
        exploration_value=exploration_value(dims, settings.weights or None),
        dimensions=dims.to_dict(), attempts=len(tasks), passed=len(passed),
        failure_categories=categories, tasks=[t.to_dict() for t in tasks],
        usage={k: round(usage_after[k] - usage_before[k], 6) for k in usage_after})
