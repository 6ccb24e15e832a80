"""Epsilon-greedy random exploration: a fresh strategy unrelated to any parent, its sampling
parameters and the genes of its type drawn uniformly from their ranges."""

from __future__ import annotations

import random

from tasks import GENES, PARAM_RANGES, SEED_PROMPTS, Strategy, StrategyType, relevant_genes


def random_strategy(rng: random.Random, generation: int, types: list[StrategyType]) -> Strategy:
    stype = rng.choice(sorted(types, key=lambda t: t.value))
    prompt = rng.choice(SEED_PROMPTS[stype])
    params = {name: rng.uniform(low, high) for name, (low, high) in PARAM_RANGES.items()}
    params["temperature"] = rng.uniform(0.2, 1.2)  # the full range mostly yields noise
    params["max_tokens"] = rng.uniform(256, 2048)
    genes = {name: rng.uniform(GENES[name].low, GENES[name].high) for name in relevant_genes(stype)}
    return Strategy(stype, prompt, operator="random_exploration", generation=generation, genes=genes, **params)
