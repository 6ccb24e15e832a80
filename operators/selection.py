"""Parent selection (SEBGen eq. 3): combined = alpha * sigmoid(z(performance)) + (1 - alpha) * novelty."""

from __future__ import annotations

import math
import random
import statistics
from collections.abc import Sequence


def sigmoid_z(performances: Sequence[float]) -> list[float]:
    """Sigmoid of z-scored performance; 0.5 for everyone when all perform the same."""
    if not performances:
        return []
    std = statistics.pstdev(performances)
    if std == 0:
        return [0.5] * len(performances)
    mean = statistics.fmean(performances)
    return [1.0 / (1.0 + math.exp(-(p - mean) / std)) for p in performances]


def combined_scores(performances: Sequence[float], novelties: Sequence[float], alpha: float = 0.7) -> list[float]:
    return [alpha * s + (1 - alpha) * n for s, n in zip(sigmoid_z(performances), novelties)]


def select_parents(
    individuals: Sequence,
    k: int,
    rng: random.Random,
    *,
    alpha: float = 0.7,
    performance=lambda ind: ind.fitness.values[0],
    novelty=lambda ind: ind.novelty,
) -> list:
    """Roulette over the combined score: exploitation weighted by alpha, novelty the rest."""
    scores = combined_scores([performance(i) for i in individuals], [novelty(i) for i in individuals], alpha)
    total = sum(scores)
    if total <= 0:
        return [individuals[rng.randrange(len(individuals))] for _ in range(k)]
    return rng.choices(list(individuals), weights=scores, k=k)
