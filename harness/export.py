"""Exporting tasks: what `sebgen export` reads, and where each format is written.

    tasks = load_tasks(run_dir_or_jsonl)
    export_swebench(tasks, out_jsonl, mirror_dir=..., build=...)   # harness/swebench.py
    export_harbor(tasks, out_dir, base_image=..., network=...)       # harness/harbor.py
    materialize(tasks, mirror_dir)                                   # harness/mirror.py

No export holds a file of the host's (paths, CA bundle) or a git object that leads to the fix.
"""
from __future__ import annotations

import json
from pathlib import Path

from tasks.task import Task, read_jsonl

from .export_errors import ExportError
from .harbor import export_harbor
from .mirror import materialize
from .swebench import export_swebench

__all__ = ["ExportError", "export_harbor", "export_swebench", "load_tasks", "materialize"]


def load_tasks(source: Path) -> list[Task]:
    """Tasks from a JSONL file, or the kept tasks of a run folder (evaluations.jsonl), first seen wins."""
    source = Path(source)
    if source.is_file():
        return list(read_jsonl(source))
    journal = source / "evaluations.jsonl"
    if not journal.is_file():
        raise ExportError(f"{source} is neither a tasks JSONL file nor a run folder with evaluations.jsonl")
    tasks: dict[str, Task] = {}
    for line in journal.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        for data in json.loads(line).get("tasks", []):
            task = Task.from_dict(data)
            if task.passed and task.instance_id not in tasks:
                tasks[task.instance_id] = task
    return list(tasks.values())
