"""Scoring one strategy: evaluate it on a commit sample (`evaluate_strategy`, tasks and
verdicts only), then its exploration value over five dimensions (`score_tasks`), with the
dataset-level bottom-quartile filter (`dataset_filter`) and the routing of failures to the gene
that can fix them.
"""

from __future__ import annotations

import importlib

_HOMES = {  # public name -> the module that defines it (loaded on first use: git, unidiff and
    # the LLM client stay out of a CLI start that does not need them)
    "CRITERIA": "dataset_filter",
    "DEFAULT_MIN_JUDGED": "dataset_filter",
    "DEFAULT_WEIGHTS": "exploration",
    "DIMENSIONS": "exploration",
    "Drop": "dataset_filter",
    "EvalSettings": "strategy_eval",
    "OnlineFilter": "dataset_filter",
    "PROMPT_FIXABLE": "exploration",
    "apply_dataset_filter": "dataset_filter",
    "batch_filter": "dataset_filter",
    "commit_order": "strategy_eval",
    "difficulty_coverage": "exploration",
    "distribution_of": "dataset_filter",
    "evaluate_strategy": "strategy_eval",
    "failure_categories": "strategy_eval",
    "judged_scores": "dataset_filter",
    "kept_tasks": "strategy_eval",
    "quartile_cutoffs": "dataset_filter",
    "route_failures": "exploration",
    "SELECTION_FIXABLE": "exploration",
    "fitness_of": "strategy_eval",
    "gene_for": "exploration",
    "routed": "exploration",
    "validations_of": "strategy_eval",
    "attempts_of": "strategy_eval",
    "failure_routes": "strategy_eval",
    "gene_for_rejection": "exploration",
    "score_tasks": "strategy_eval",
    "surviving_batch_filter": "dataset_filter",
}


def __getattr__(name: str):
    if name in _HOMES:
        return getattr(importlib.import_module(f".{_HOMES[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "CRITERIA",
    "DEFAULT_MIN_JUDGED",
    "DEFAULT_WEIGHTS",
    "DIMENSIONS",
    "Drop",
    "EvalSettings",
    "OnlineFilter",
    "PROMPT_FIXABLE",
    "apply_dataset_filter",
    "batch_filter",
    "commit_order",
    "difficulty_coverage",
    "distribution_of",
    "evaluate_strategy",
    "failure_categories",
    "judged_scores",
    "kept_tasks",
    "quartile_cutoffs",
    "route_failures",
    "SELECTION_FIXABLE",
    "fitness_of",
    "gene_for",
    "routed",
    "validations_of",
    "attempts_of",
    "failure_routes",
    "gene_for_rejection",
    "score_tasks",
    "surviving_batch_filter",
]
