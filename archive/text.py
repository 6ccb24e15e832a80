"""What text of a task gets embedded: its problem statement plus a short summary of its patch.

The summary names the files touched (with added/removed line counts) and the functions the
hunks sit in, so two tasks with similar statements but fixes in different places still differ.
"""

from __future__ import annotations

import hashlib
import re

_FILE_HEADER = re.compile(r"^diff --git a/(\S+) b/(\S+)", re.MULTILINE)
_PLUS_FILE = re.compile(r"^\+\+\+ (?:b/)?(\S+)", re.MULTILINE)
_HUNK_CONTEXT = re.compile(r"^@@[^@]*@@\s*(?:async\s+)?(?:def|class)\s+(\w+)", re.MULTILINE)
MAX_FILES_IN_SUMMARY = 8
MAX_FUNCTIONS_IN_SUMMARY = 8


def text_hash(text: str) -> str:
    """Stable key for caching an embedding of `text`."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _split_by_file(patch: str) -> list[tuple[str, str]]:
    """(path, body) per file of a unified diff; tolerates diffs without `diff --git` lines."""
    headers = list(_FILE_HEADER.finditer(patch))
    if not headers:
        headers = list(_PLUS_FILE.finditer(patch))
    pieces = []
    for i, match in enumerate(headers):
        end = headers[i + 1].start() if i + 1 < len(headers) else len(patch)
        pieces.append((match.group(match.lastindex or 1), patch[match.end() : end]))
    return pieces


def _line_counts(body: str) -> tuple[int, int]:
    added = removed = 0
    for line in body.splitlines():
        if line.startswith("+") and not line.startswith("+++"):
            added += 1
        elif line.startswith("-") and not line.startswith("---"):
            removed += 1
    return added, removed


def patch_summary(patch: str) -> str:
    """One or two lines naming the files and functions a diff touches; '' for no diff."""
    if not patch or not patch.strip():
        return ""
    files = []
    for path, body in _split_by_file(patch)[:MAX_FILES_IN_SUMMARY]:
        added, removed = _line_counts(body)
        files.append(f"{path} (+{added} -{removed})")
    functions = list(dict.fromkeys(_HUNK_CONTEXT.findall(patch)))[:MAX_FUNCTIONS_IN_SUMMARY]
    parts = []
    if files:
        parts.append("Files: " + ", ".join(files))
    if functions:
        parts.append("Functions: " + ", ".join(functions))
    return "\n".join(parts)


def task_text(task: dict) -> str:
    """The text embedded for a task record (SEBGen task: problem statement + gold patch summary)."""
    statement = str(task.get("problem_statement") or "").strip()
    patch = task.get("patch") or task.get("bug_patch") or ""
    summary = patch_summary(str(patch))
    return f"{statement}\n\n{summary}" if summary else statement
