"""Gaussian parameter mutation and parameter averaging, clamped to the valid ranges."""

from __future__ import annotations

import random

from tasks import PARAM_RANGES, Strategy

# Standard deviation of the Gaussian step as a share of each parameter's range.
DEFAULT_SIGMA = 0.1


def mutate_params(strategy: Strategy, rng: random.Random, generation: int, sigma: float = DEFAULT_SIGMA) -> Strategy:
    changes = {}
    for name, (low, high) in PARAM_RANGES.items():
        value = getattr(strategy, name) + rng.gauss(0.0, sigma * (high - low))
        changes[name] = min(max(value, low), high)
    return strategy.child(operator="param_mutation", parents=(strategy.id,), generation=generation, **changes)


def crossover(better: Strategy, other: Strategy, generation: int) -> Strategy:
    """The better parent's prompt and type, the parents' parameters averaged."""
    averaged = {name: (getattr(better, name) + getattr(other, name)) / 2 for name in PARAM_RANGES}
    return better.child(operator="crossover", parents=(better.id, other.id), generation=generation, **averaged)
