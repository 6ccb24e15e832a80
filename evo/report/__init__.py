"""The HTML report of a run (or an experiment folder): `data` reads, `render` draws."""

from .data import ReportError, funnel, funnel_by_reason, hof_best, novelty_vs_archive, read_run
from .render import build_experiment_report, build_report

__all__ = [
    "ReportError",
    "hof_best",
    "build_experiment_report",
    "build_report",
    "funnel",
    "funnel_by_reason",
    "novelty_vs_archive",
    "read_run",
]
