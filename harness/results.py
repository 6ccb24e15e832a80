"""The results file of one agent on one tasks file (what `sebgen evaluate` writes, what the
report's leaderboard and `sebgen curriculum` read):

    {"model": label, "tasks_file": path, "summary": summarize(...), "tasks": {instance_id: TaskResult}}
"""

from __future__ import annotations

import json
from pathlib import Path

from .metrics import TaskResult


def results_document(label: str, tasks_file: Path, summary: dict, results: list[TaskResult]) -> dict:
    return {
        "model": label,
        "tasks_file": str(tasks_file),
        "summary": summary,
        "tasks": {r.instance_id: r.to_dict() for r in results},
    }


def write_results(path: Path, document: dict) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return path


def read_results(folder: Path) -> list[dict]:
    """Every results document in `folder`, by file name; a file that is not one is skipped."""
    folder = Path(folder)
    documents = []
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (json.JSONDecodeError, UnicodeDecodeError):
            continue
        if isinstance(data, dict) and "summary" in data:
            documents.append({**data, "model": data.get("model") or path.stem})
    return documents
