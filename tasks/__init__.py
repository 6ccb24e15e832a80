"""Making tasks: the strategy genome, mining and history, candidate selection, synthetic bugs,
the statement context, the five validation layers, difficulty and skill labels (the task record
itself is `records.Task`).

    candidates = mine(repo).candidates                       # or mine_commits(repo, [sha, ...])
    generator = Generator(llm=client, validator=Validator(backend=...), archive=archive)
    task = generator.generate(candidate, strategy)           # a Task with every layer's verdict

Scoring a strategy by its tasks is `fitness`'s job; this package makes and checks one task.
"""

from __future__ import annotations

import importlib

_HOMES = {  # public name -> the module that defines it (loaded on first use: git, unidiff and
    # the LLM client stay out of a CLI start that does not need them)
    "Candidate": "mining",
    "FILTERED_CRITERIA": "validate",
    "Generator": "generate",
    "MUTATION_INSTRUCTIONS": "prompt",
    "MiningError": "mining",
    "NamedCommit": "mining",
    "PARAM_RANGES": "strategy",
    "SEED_PROMPTS": "strategy",
    "Strategy": "strategy",
    "StrategyType": "strategy",
    "Validator": "validate",
    "ablation": "validate",
    "bottom_quartile_filter": "validate",
    "changed_python_files": "changed_files",
    "generate_synthetic": "synthesis",
    "judge_prompt": "prompt",
    "mine": "mining",
    "mine_commits": "mining",
    "mine_named": "mining",
    "mine_pull_requests": "mining",
    "mining_digest": "mining",
    "pick_candidates": "generate",
    "run_layers": "validate",
    "seed_strategies": "strategy",
    "test_files_of": "changed_files",
    "GENES": "strategy",
    "GENE_GROUPS": "strategy",
    "MODULE_KIND": "generate",
    "FEATURES": "selection",
    "commit_features": "selection",
    "executed_functions": "synthesis",
    "feature_vectors": "selection",
    "order_candidates": "selection",
    "synthetic_attempts": "synthesis",
    "writer_context": "generate",
    "relevant_genes": "strategy",
    "OPERATOR_GENES": "strategy",
    "synthesize": "synthesis",
    "source_modules": "synthesis",
}


def __getattr__(name: str):
    if name in _HOMES:
        return getattr(importlib.import_module(f".{_HOMES[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "Candidate",
    "FILTERED_CRITERIA",
    "Generator",
    "MUTATION_INSTRUCTIONS",
    "MiningError",
    "NamedCommit",
    "PARAM_RANGES",
    "SEED_PROMPTS",
    "Strategy",
    "StrategyType",
    "Validator",
    "ablation",
    "bottom_quartile_filter",
    "changed_python_files",
    "generate_synthetic",
    "judge_prompt",
    "mine",
    "mine_commits",
    "mine_named",
    "mine_pull_requests",
    "mining_digest",
    "pick_candidates",
    "run_layers",
    "seed_strategies",
    "test_files_of",
    "GENES",
    "GENE_GROUPS",
    "MODULE_KIND",
    "FEATURES",
    "commit_features",
    "executed_functions",
    "feature_vectors",
    "order_candidates",
    "synthetic_attempts",
    "writer_context",
    "relevant_genes",
    "OPERATOR_GENES",
    "synthesize",
    "source_modules",
]
