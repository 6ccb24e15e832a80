"""The added and removed lines of a unified diff: the one home of this small parse, shared by
the offline judges (which read patches out of prompts) and fitness's leakage check."""

from __future__ import annotations

import re


def patch_added_lines(patch: str) -> list[str]:
    return [ln[1:] for ln in patch.splitlines() if ln.startswith("+") and not ln.startswith("+++")]


def patch_removed_lines(patch: str) -> list[str]:
    return [ln[1:] for ln in patch.splitlines() if ln.startswith("-") and not ln.startswith("---")]


# Prose about the project rather than part of it: documentation folders, changelog and
# release-note fragments, top-level text files (README, CHANGES, HISTORY, ...). A changelog entry
# restates the commit's subject: counted as the fix, it would make every statement a leak.
PROSE_PATH = re.compile(
    r"^(?:docs?|documentation|changelog\.d|changes|news|newsfragments|releasenotes)/|"
    r"^[^/]+\.(?:md|rst|txt|adoc)$|^(?:CHANGE|HISTORY|NEWS|AUTHORS|RELEASE)[^/]*$",
    re.I,
)


def is_prose_file(path: str) -> bool:
    """Documentation, changelog and release-note files (see PROSE_PATH), not code or data."""
    return PROSE_PATH.search(path) is not None


def patch_sections(patch: str, keep) -> str:
    """The file sections of a git diff whose path (the `b/` side) `keep` accepts; a diff
    without `diff --git` headers is taken whole."""
    if "diff --git " not in patch:
        return patch
    sections = re.split(r"(?m)^(?=diff --git )", patch)
    return "".join(
        s for s in sections if not s.startswith("diff --git ") or keep(s.split("\n", 1)[0].split(" b/", 1)[-1])
    )


def code_patch(patch: str) -> str:
    """The diff without its prose files (see `is_prose_file`)."""
    return patch_sections(patch, lambda path: not is_prose_file(path))
