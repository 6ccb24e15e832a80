"""Variation and selection of strategies: LLM prompt mutation, Gaussian parameter mutation
(sampling parameters and genes), crossover, epsilon-random exploration, selection repair (where
`no_f2p` failures go), and sigmoid+novelty parent selection."""

from .explore import random_strategy
from .params import crossover, mutate_params
from .prompt_mutation import mutate_prompt
from .selection import select_parents
from .selection_repair import attempt_value, repair_selection

__all__ = [
    "attempt_value",
    "crossover",
    "mutate_params",
    "mutate_prompt",
    "random_strategy",
    "repair_selection",
    "select_parents",
]
