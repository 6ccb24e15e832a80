"""Epsilon-greedy random exploration: a fresh strategy unrelated to any parent."""

from __future__ import annotations

import random

from tasks import PARAM_RANGES, SEED_PROMPTS, Strategy, StrategyType


def random_strategy(rng: random.Random, generation: int, types: list[StrategyType]) -> Strategy:
    stype = rng.choice(sorted(types, key=lambda t: t.value))
    prompt = rng.choice(SEED_PROMPTS[stype])
    params = {name: rng.uniform(low, high) for name, (low, high) in PARAM_RANGES.items()}
    params["temperature"] = rng.uniform(0.2, 1.2)  # the full range mostly yields noise
    params["max_tokens"] = rng.uniform(256, 2048)
    return Strategy(stype, prompt, operator="random_exploration", generation=generation, **params)
