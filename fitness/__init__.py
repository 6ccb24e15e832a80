"""Scoring one strategy: evaluate it on a commit sample (`evaluate_strategy`, tasks and
verdicts only), then its exploration value over five dimensions (`score_tasks`), with the
dataset-level bottom-quartile filter and the routing of failures to the gene that can fix them.
"""

from __future__ import annotations

import importlib

_HOMES = {  # public name -> the module that defines it (loaded on first use: git, unidiff and
    # the LLM client stay out of a CLI start that does not need them)
    "DEFAULT_WEIGHTS": "exploration",
    "DIMENSIONS": "exploration",
    "EvalSettings": "strategy_eval",
    "PROMPT_FIXABLE": "exploration",
    "batch_filter": "strategy_eval",
    "commit_order": "strategy_eval",
    "difficulty_coverage": "exploration",
    "evaluate_strategy": "strategy_eval",
    "failure_categories": "strategy_eval",
    "kept_tasks": "strategy_eval",
    "route_failures": "exploration",
    "score_tasks": "strategy_eval",
    "surviving_batch_filter": "strategy_eval",
}


def __getattr__(name: str):
    if name in _HOMES:
        return getattr(importlib.import_module(f".{_HOMES[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "DEFAULT_WEIGHTS",
    "DIMENSIONS",
    "EvalSettings",
    "PROMPT_FIXABLE",
    "batch_filter",
    "commit_order",
    "difficulty_coverage",
    "evaluate_strategy",
    "failure_categories",
    "kept_tasks",
    "route_failures",
    "score_tasks",
    "surviving_batch_filter",
]
