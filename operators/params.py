"""Gaussian parameter mutation and parameter averaging over the sampling parameters and the
genes, clamped to the valid ranges.

Only the genes that act on a strategy's type are varied (`tasks.relevant_genes`): a commit
strategy's synthesis genes do nothing, and changing them would only make a new genome that
behaves like its parent. The sampling parameters all move; each gene moves with probability
`GENE_INDPB` (at least one does), so a mutation does not undo every gene a parent got right.
"""

from __future__ import annotations

import random

from tasks import GENES, PARAM_RANGES, Strategy, relevant_genes

# Standard deviation of the Gaussian step as a share of each parameter's range.
DEFAULT_SIGMA = 0.1
# Integer genes with a short range (mutations: 1..3) need a step that can reach a neighbour.
MIN_INTEGER_SIGMA = 0.6
# Probability that a mutation moves each gene (DEAP's indpb).
GENE_INDPB = 0.3


def _gauss(rng: random.Random, value: float, low: float, high: float, sigma: float, integer: bool = False) -> float:
    scale = sigma * (high - low)
    if integer:
        scale = max(scale, MIN_INTEGER_SIGMA)
    return min(max(value + rng.gauss(0.0, scale), low), high)


def mutate_params(strategy: Strategy, rng: random.Random, generation: int, sigma: float = DEFAULT_SIGMA) -> Strategy:
    changes = {}
    for name, (low, high) in PARAM_RANGES.items():
        changes[name] = _gauss(rng, getattr(strategy, name), low, high, sigma)
    genes = dict(strategy.genes)
    names = relevant_genes(strategy.strategy_type)
    chosen = [name for name in names if rng.random() < GENE_INDPB] or [rng.choice(names)]
    for name in chosen:
        g = GENES[name]
        genes[name] = _gauss(rng, genes[name], g.low, g.high, sigma, g.integer)
    return strategy.child(
        operator="param_mutation", parents=(strategy.id,), generation=generation, genes=genes, **changes
    )


def crossover(better: Strategy, other: Strategy, generation: int) -> Strategy:
    """The better parent's prompt and type, the parents' parameters and genes averaged (the
    genes of the better parent's type; the other parent's count only when of the same type)."""
    averaged = {name: (getattr(better, name) + getattr(other, name)) / 2 for name in PARAM_RANGES}
    genes = dict(better.genes)
    shared = set(relevant_genes(other.strategy_type))
    for name in relevant_genes(better.strategy_type):
        if name in shared:
            genes[name] = (better.genes[name] + other.genes[name]) / 2
    return better.child(
        operator="crossover", parents=(better.id, other.id), generation=generation, genes=genes, **averaged
    )
