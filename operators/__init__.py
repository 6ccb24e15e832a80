"""Variation and selection of strategies: LLM prompt mutation, Gaussian parameter mutation,
crossover, epsilon-random exploration, and sigmoid+novelty parent selection."""

from .explore import random_strategy
from .params import crossover, mutate_params
from .prompt_mutation import mutate_prompt
from .selection import select_parents

__all__ = ["crossover", "mutate_params", "mutate_prompt", "random_strategy", "select_parents"]
