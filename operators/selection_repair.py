"""Selection repair: the operator that `no_f2p` failures are routed to.

"The new tests already pass without the fix" is not something a prompt can fix: the commit
was a bad choice. What can fix it is the order in which a strategy tries commits. Selection
repair reads every attempt the run has made so far (the commits tried by any strategy and
what became of them) and moves the strategy's selection weights along the covariance between
each commit feature and the attempt's value:

    value = 0 for a rejected attempt, 0.5 + 0.5 x judge score (0..1) for a kept task
    w_j  <- w_j + step x cov(feature_j, value) / max_k |cov(feature_k, value)|  (+ a small Gaussian)

so features that go with kept, well-judged tasks gain weight and those that go with
rejections lose it. With fewer than `MIN_ATTEMPTS` attempts, or no spread in value, it falls
back to a Gaussian step on the selection genes.

For SYNTHETIC (a synthetic bug no test catches is `no_f2p` too) it moves the operator weights
the same way (value per operator) and the complexity band towards the complexities of the
kept tasks.
"""

from __future__ import annotations

import random
import statistics

from records import Task
from tasks import GENES, OPERATOR_GENES, Candidate, Strategy, StrategyType, feature_vectors

FEATURE_GENES = {"size": "sel_size", "tests": "sel_tests", "link": "sel_link", "cue": "sel_cue", "age": "sel_age"}
MIN_ATTEMPTS = 4
STEP = 0.5
NOISE = 0.05


def attempt_value(task: Task) -> float:
    if not task.passed:
        return 0.0
    quality = task.validation.get("quality")
    return 0.5 + 0.5 * float(quality.score if quality else 0.5)


def _covariances(rows: list[dict[str, float]], values: list[float], names) -> dict[str, float]:
    mean_v = statistics.fmean(values)
    out = {}
    for name in names:
        xs = [r[name] for r in rows]
        mean_x = statistics.fmean(xs)
        out[name] = statistics.fmean((x - mean_x) * (v - mean_v) for x, v in zip(xs, values))
    return out


def _clamp(name: str, value: float) -> float:
    g = GENES[name]
    return min(max(value, g.low), g.high)


def repair_selection(
    strategy: Strategy,
    tried: list[tuple[Candidate | None, Task]],
    rng: random.Random,
    generation: int,
    step: float = STEP,
    noise: float = NOISE,
) -> Strategy:
    """A child whose selection (or, for SYNTHETIC, synthesis) genes move towards what yielded.
    `tried`: (the candidate commit or None for a synthetic task, its task record) for every
    attempt of the run so far, in a fixed order."""
    genes = dict(strategy.genes)
    if strategy.strategy_type == StrategyType.SYNTHETIC:
        moved = _repair_synthesis(genes, [t for c, t in tried if c is None], step)
    else:
        pairs = [(c, t) for c, t in tried if c is not None]
        moved = _repair_commits(genes, pairs, step)
    names = (
        [*OPERATOR_GENES, "complexity_low", "complexity_high"]
        if strategy.strategy_type == StrategyType.SYNTHETIC
        else [*FEATURE_GENES.values(), "band_low", "band_high"]
    )
    for name in names:
        g = GENES[name]
        sd = (noise if moved else 2 * noise) * (g.high - g.low)
        genes[name] = _clamp(name, genes[name] + rng.gauss(0.0, sd))
    return strategy.child(operator="selection_repair", parents=(strategy.id,), generation=generation, genes=genes)


def _repair_commits(genes: dict, pairs: list[tuple[Candidate, Task]], step: float) -> bool:
    if len(pairs) < MIN_ATTEMPTS:
        return False
    values = [attempt_value(t) for _, t in pairs]
    if max(values) == min(values):
        return False
    rows = feature_vectors([c for c, _ in pairs])
    cov = _covariances(rows, values, FEATURE_GENES)
    scale = max(abs(v) for v in cov.values())
    if scale <= 0:
        return False
    for feature, gene in FEATURE_GENES.items():
        genes[gene] = _clamp(gene, genes[gene] + step * cov[feature] / scale)
    return True


def _repair_synthesis(genes: dict, tasks: list[Task], step: float) -> bool:
    if len(tasks) < MIN_ATTEMPTS:
        return False
    values = [attempt_value(t) for t in tasks]
    if max(values) == min(values):
        return False
    ops = [str(t.generation.get("mutation", "")) for t in tasks]
    rows = [{gene: float(op == gene.removeprefix("op_")) for gene in OPERATOR_GENES} for op in ops]
    cov = _covariances(rows, values, OPERATOR_GENES)
    scale = max(abs(v) for v in cov.values())
    if scale > 0:
        for gene in OPERATOR_GENES:
            genes[gene] = _clamp(gene, genes[gene] + step * cov[gene] / scale)
    kept = [int(t.generation.get("complexity", 0)) for t, v in zip(tasks, values) if v > 0]
    if kept:
        low, high = min(kept), max(kept)
        genes["complexity_low"] = _clamp(
            "complexity_low", genes["complexity_low"] + step * (low - genes["complexity_low"])
        )
        genes["complexity_high"] = _clamp(
            "complexity_high", genes["complexity_high"] + step * (high - genes["complexity_high"])
        )
    return True
