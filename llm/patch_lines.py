"""The added and removed lines of a unified diff: the one home of this small parse, shared by
the offline judges (which read patches out of prompts) and fitness's leakage check."""
from __future__ import annotations


def patch_added_lines(patch: str) -> list[str]:
    return [ln[1:] for ln in patch.splitlines() if ln.startswith("+") and not ln.startswith("+++")]


def patch_removed_lines(patch: str) -> list[str]:
    return [ln[1:] for ln in patch.splitlines() if ln.startswith("-") and not ln.startswith("---")]
