"""A synthetic bug's mutation, whatever the language: which source segment it rewrites and how.

A language's site finder (`synthesis_python`, `synthesis_js`) reads a file with its own parser
and returns `Mutation`s; everything after that (applying them, grouping, ordering, task
shaping in `synthesis`) sees only character spans and lines, so it is written once.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Mutation:
    path: str
    function: str
    operator: str  # flip_comparison | off_by_one | drop_guard | swap_arguments | flip_logical
    start: int  # character offsets of the rewritten segment in the file's text
    end: int
    line: int  # its first and last line (1-based): mutations of one task share no line
    end_line: int
    replacement: str  # new text of the segment
    complexity: int = 1  # cyclomatic complexity of the function it is in
    def_lines: tuple[int, ...] = ()  # the function's def line (and its decorators' lines)


def apply_mutations(source: str, mutations: list[Mutation], parses: Callable[[str], bool]) -> str | None:
    """The source with every mutation's segment replaced, or None when two segments overlap, the
    text would not change, or `parses` (the language's parser) rejects the result."""
    spans = sorted(mutations, key=lambda m: (m.start, m.end))
    for a, b in zip(spans, spans[1:]):
        if b.start < a.end:
            return None
    mutated = source
    for mutation in reversed(spans):
        mutated = mutated[: mutation.start] + mutation.replacement + mutated[mutation.end :]
    if mutated == source or not parses(mutated):
        return None
    return mutated


def unified_diff(path: str, old: str, new: str) -> str:
    return "".join(
        difflib.unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True), f"a/{path}", f"b/{path}")
    )
