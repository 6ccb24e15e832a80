"""The added and removed lines of a unified diff: the one home of this small parse, shared by
the offline judges (which read patches out of prompts) and fitness's leakage check."""
from __future__ import annotations


def patch_added_lines(patch: str) -> list[str]:
    return [ln[1:] for ln in patch.splitlines() if ln.startswith("+") and not ln.startswith("+++")]


def patch_removed_lines(patch: str) -> list[str]:
    return [ln[1:] for ln in patch.splitlines() if ln.startswith("-") and not ln.startswith("---")]


_DOC_SUFFIXES = (".rst", ".md", ".txt", ".adoc", ".asciidoc")
_DOC_DIRS = {"doc", "docs", "documentation", "changelog.d", "changes", "news", "newsfragments", "releasenotes"}
_DOC_NAMES = ("changelog", "changes", "history", "news", "release", "authors", "contributors")


def is_prose_file(path: str) -> bool:
    """Documentation, changelog and release-note files: prose that describes a change (and that
    a statement may well echo), not the code of the fix."""
    parts = path.lower().split("/")
    name = parts[-1]
    return (name.endswith(_DOC_SUFFIXES) or any(p in _DOC_DIRS for p in parts[:-1])
            or name.startswith(_DOC_NAMES))


def code_patch(patch: str) -> str:
    """The diff without its prose files (see `is_prose_file`); a diff without `diff --git`
    headers is taken whole."""
    if "diff --git " not in patch:
        return patch
    kept, keep = [], True
    for line in patch.splitlines(keepends=True):
        if line.startswith("diff --git "):
            path = line.rstrip("\n").split(" b/", 1)[-1]
            keep = not is_prose_file(path)
        if keep:
            kept.append(line)
    return "".join(kept)
