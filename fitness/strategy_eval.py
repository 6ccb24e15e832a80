"""Evaluating strategies: execute one (pick commits, generate and validate tasks), score a batch.

Execution and scoring are separate on purpose. Executing a strategy depends only on its
genome, the run's seed and the generation's commit sample (common random numbers: every
strategy of a generation draws from the same sample, so fitness differences come from the
strategies, not from the commits they happened to get). Its result is what the evaluation
cache keeps. Scoring depends on the batch and the archive: SWE-MERA's bottom-quartile filter
(fitness/dataset_filter.py) decides the generation's batch against the run's judged tasks, and
novelty is measured against the archive as it stands, leave-one-out, so it is recomputed
whenever a score is shown and never cached.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable
from dataclasses import dataclass, field

from fitness.exploration import dimensions_of, exploration_value, gene_for_rejection
from records import Evaluation, Score, Task, validations_of
from tasks import (
    MODULE_KIND,
    Candidate,
    Generator,
    Strategy,
    StrategyType,
    pick_candidates,
    synthetic_attempts,
)


@dataclass(frozen=True)
class EvalSettings:
    tasks_per_strategy: int = 3
    oversample: int = 3
    seed: int = 0
    difficulty_bins: int = 5
    skill_norm: int = 10
    weights: dict = field(default_factory=dict)
    cost_weight: float = 0.0  # fitness = (1 - w) EV + w x kept per container validation
    skip_harvested: bool = True  # commits the archive already holds a kept task of are not tried again


def kept_tasks(tasks: list[Task]) -> list[Task]:
    return [t for t in tasks if t.passed]


def fitness_of(exploration: float, kept: int, validations: int, cost_weight: float) -> float:
    """(1 - w) EV + w x kept per validation (0 when nothing was validated; at most 1)."""
    yield_ = min(kept / validations, 1.0) if validations else 0.0
    return round((1 - cost_weight) * exploration + cost_weight * yield_, 6)


def failure_routes(tasks: list[Task]) -> list[str]:
    """Per rejected task, the part of the genome that can fix it ("prompt", "selection" or
    "environment"): its category's gene, a quality rejection decided on a test criterion
    (the judge's weakest, or the dataset filter's) going to selection."""
    out = []
    for t in tasks:
        failed = t.failed_layer()
        if not failed:
            continue
        layer, result = failed
        criterion = (result.details.get("dataset_filter") or {}).get("criterion")
        criteria = result.details.get("criteria") or {}
        if criterion is None and layer == "quality" and criteria:
            judged = {c: v.get("score", 10) for c, v in criteria.items() if c != "complexity" and isinstance(v, dict)}
            criterion = min(judged, key=judged.get) if judged else None
        out.append(gene_for_rejection(result.category or "other", criterion))
    return out


def failure_categories(tasks: list[Task]) -> list[str]:
    return [failed[1].category or "other" for t in tasks if (failed := t.failed_layer())]


def commit_sample(candidates: list[Candidate], seed: int, sample: int) -> list[Candidate]:
    """The generation's commit order, drawn from the run's seed and the generation number only."""
    rng = random.Random(int(hashlib.sha256(f"{seed}:sample:{sample}".encode()).hexdigest(), 16))
    pool = sorted(candidates, key=lambda c: (c.repo, c.sha))
    rng.shuffle(pool)
    return pool


def commit_order(strategy: Strategy, candidates: list[Candidate], seed: int, sample: int = 1) -> list[Candidate]:
    """The commits a strategy tries, in order: the sample's commits of its kinds, ordered by
    its selection genes (stable: ties keep the sample's order). Strategies of one type with the
    same selection genes get the same list whatever their prompt, parameters or other genes."""
    return pick_candidates(commit_sample(candidates, seed, sample), strategy)


def synthetic_targets(candidates: list[Candidate]) -> dict[str, set[str] | None]:
    """Repository path -> the modules SYNTHETIC may mutate there: those named by module
    stand-in candidates (an experiment's split), else every module (None)."""
    targets: dict[str, set[str] | None] = {}
    for c in candidates:
        if c.kind == MODULE_KIND:
            found = targets.get(c.repo_path) or set()
            targets[c.repo_path] = found | set(c.source_files)
        else:
            targets.setdefault(c.repo_path, None)
    return targets


def attempts_of(
    strategy: Strategy,
    candidates: list[Candidate],
    generator: Generator,
    seed: int,
    sample: int,
    limit: int,
    skip: set[tuple[str, str]] = frozenset(),
):
    """The tasks a strategy tries, lazily, in its order: commits for commit-based types (those
    in `skip`, (repo, sha) pairs, left out after ordering, so the others keep their order), bugs
    synthesized at HEAD for SYNTHETIC (drawn from the sample's seed: common random numbers)."""
    if strategy.strategy_type == StrategyType.SYNTHETIC:
        draw = int(hashlib.sha256(f"{seed}:synthetic:{sample}".encode()).hexdigest()[:8], 16)
        return synthetic_attempts(strategy, synthetic_targets(candidates), generator, draw, limit)
    order = [c for c in commit_order(strategy, candidates, seed, sample) if (c.repo, c.sha) not in skip]
    return (generator.generate(c, strategy) for c in order[:limit])


def harvested_commits(archive) -> set[tuple[str, str]]:
    """(repo, base_commit) of every kept task the archive holds: a dataset builder does not pay
    validations for a commit it already has a task of (the archive is frozen during a
    generation, so every strategy of it sees the same set)."""
    if archive is None:
        return set()
    return {(t.get("repo", ""), t.get("base_commit", "")) for t in archive.query(passed=True)}


def evaluate_strategy(
    strategy: Strategy,
    candidates: list[Candidate],
    generator: Generator,
    settings: EvalSettings,
    progress=None,
    sample: int = 1,
    kept: Callable[[list[Task]], int] | None = None,
) -> Evaluation:
    """Spend up to `oversample x N` container validations on the strategy's attempts and stop
    at N kept tasks: N that pass every layer, or N by the `kept` count (e.g. those that survive
    the batch filter). Attempts that fail before the functional layer cost no validation; at
    most twice the budget of them are tried."""
    usage_before = generator.llm.usage.to_dict()
    budget = settings.tasks_per_strategy * settings.oversample
    count = kept or (lambda items: sum(t.passed for t in items))
    tasks = []
    spent = 0
    done = harvested_commits(getattr(generator, "archive", None)) if settings.skip_harvested else set()
    for task in attempts_of(strategy, candidates, generator, settings.seed, sample, 2 * budget, done):
        tasks.append(task)
        spent += "functional" in task.validation
        if progress:
            progress(task)
        if count(tasks) >= settings.tasks_per_strategy or spent >= budget:
            break
    usage_after = generator.llm.usage.to_dict()
    return Evaluation(
        strategy_id=strategy.id,
        genome_hash=strategy.genome_hash(),
        sample=sample,
        attempts=len(tasks),
        passed=len(kept_tasks(tasks)),
        failure_categories=failure_categories(tasks),
        tasks=tasks,
        usage={k: round(usage_after[k] - usage_before[k], 6) for k in usage_after},
        validations=validations_of(tasks),
    )


def score_tasks(tasks: list[Task], settings: EvalSettings, novelty: Callable[[list[Task]], list[float]]) -> Score:
    """Exploration value of a strategy's tasks; `novelty` measures kept tasks against a reference
    (the archive as it stands, leave-one-out)."""
    kept = kept_tasks(tasks)
    novelties = [round(v, 6) for v in novelty(kept)] if kept else []
    categories = failure_categories(tasks)
    dims = dimensions_of(
        attempts=len(tasks),
        passed_tasks=kept,
        failure_categories=categories,
        novelties=novelties,
        bins=settings.difficulty_bins,
        skill_norm=settings.skill_norm,
    )
    ev = exploration_value(dims, settings.weights or None)
    validations = validations_of(tasks)
    return Score(
        exploration_value=ev,
        dimensions=dims.to_dict(),
        attempts=len(tasks),
        passed=len(kept),
        failure_categories=categories,
        novelties={t.instance_id: v for t, v in zip(kept, novelties)},
        validations=validations,
        kept_per_validation=round(len(kept) / validations, 4) if validations else 0.0,
        failure_routes=failure_routes(tasks),
        fitness=fitness_of(ev, len(kept), validations, settings.cost_weight),
    )
