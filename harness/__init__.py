"""Using the benchmark: agents attempt tasks and are scored (resolved, pass@1, pass@k), tasks
are exported to SWE-bench and Harbor, and ordered into a ZPD curriculum for one agent.

    predictions = load_predictions(path)                       # or agent_predictions(make_agent("oracle"), ...)
    results = evaluate_predictions(tasks, predictions, backend)
    summary = summarize(results, k)

Scoring a *strategy* is fitness's job (`fitness.strategy_eval`); this package scores agents.
"""

from .agents import (
    AgentError,
    PredictionsError,
    agent_predictions,
    evaluate_predictions,
    extract_diff,
    load_predictions,
    make_agent,
)
from .curriculum import CurriculumError, capability_profile, curriculum, interleave, zone_counts
from .export import ExportError, export_harbor, export_swebench, load_tasks, materialize
from .metrics import TaskResult, attempt_report, pass_at_k, summarize, wilson_interval
from .results import read_results, results_document, write_results

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
    "load_tasks",
    "make_agent",
    "materialize",
    "pass_at_k",
    "read_results",
    "results_document",
    "summarize",
    "wilson_interval",
    "write_results",
    "zone_counts",
]
