"""Exporting tasks: what `sebgen export` reads, and where each format is written.

    tasks = load_tasks(run_dir_or_jsonl)
    export_swebench(tasks, out_jsonl, mirror_dir=..., build=...)   # harness/swebench.py
    export_harbor(tasks, out_dir, base_image=..., network=...)       # harness/harbor.py
    materialize(tasks, mirror_dir)                                   # harness/mirror.py

No export holds a file of the host's (paths, CA bundle) or a git object that leads to the fix.
"""

from __future__ import annotations

from pathlib import Path

from records import Task, read_jsonl

from .export_errors import ExportError
from .harbor import export_harbor
from .mirror import materialize
from .swebench import export_swebench

__all__ = ["ExportError", "export_harbor", "export_swebench", "load_tasks", "materialize"]


def load_tasks(source: Path) -> list[Task]:
    """Tasks from a JSONL file (a run folder's dataset comes from the run folder's reader)."""
    source = Path(source)
    if not source.is_file():
        raise ExportError(f"{source} is not a tasks JSONL file")
    return list(read_jsonl(source))
