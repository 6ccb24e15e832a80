"""Using the benchmark: agents attempt tasks and are scored (resolved, pass@1, pass@k), tasks
are exported to SWE-bench and Harbor, and ordered into a ZPD curriculum for one agent.

    tasks = read_tasks(path, source_repos)                      # a task JSONL or a `sebgen export` file
    predictions = load_predictions(path)                       # or agent_predictions(make_agent("oracle"), ...)
    results = evaluate_predictions(tasks, predictions, backend)
    summary = summarize(results, k)

Scoring a *strategy* is fitness's job (`fitness.strategy_eval`); this package scores agents.
"""

from __future__ import annotations

import importlib

_HOMES = {  # public name -> the module that defines it (loaded on first use: reading a file or
    # naming an agent answers before the export and agent machinery load git, the sandbox and
    # the LLM client)
    "AgentError": "agents",
    "CurriculumError": "curriculum",
    "ExportError": "export_errors",
    "PredictionsError": "inputs",
    "TaskResult": "metrics",
    "agent_predictions": "agents",
    "attempt_report": "metrics",
    "capability_profile": "curriculum",
    "curriculum": "curriculum",
    "evaluate_predictions": "agents",
    "export_harbor": "export",
    "export_swebench": "export",
    "extract_diff": "agents",
    "interleave": "curriculum",
    "load_predictions": "inputs",
    "make_agent": "agents",
    "materialize": "export",
    "pass_at_k": "metrics",
    "read_results": "results",
    "read_tasks": "inputs",
    "results_document": "results",
    "summarize": "metrics",
    "wilson_interval": "metrics",
    "write_results": "results",
    "zone_counts": "curriculum",
}


def __getattr__(name: str):
    if name in _HOMES:
        home = _HOMES[name]
        module = importlib.import_module(f".{home}", __name__)
        # importing `harness.curriculum` binds the module to the package's name `curriculum`, which
        # is also a public function: bind every public name of that module, so the function wins
        for public in [n for n, h in _HOMES.items() if h == home]:
            globals()[public] = getattr(module, public)
        return globals()[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "AgentError",
    "CurriculumError",
    "ExportError",
    "PredictionsError",
    "TaskResult",
    "agent_predictions",
    "attempt_report",
    "capability_profile",
    "curriculum",
    "evaluate_predictions",
    "export_harbor",
    "export_swebench",
    "extract_diff",
    "interleave",
    "load_predictions",
    "make_agent",
    "materialize",
    "pass_at_k",
    "read_results",
    "read_tasks",
    "results_document",
    "summarize",
    "wilson_interval",
    "write_results",
    "zone_counts",
]
