"""The structure of a statement's markdown: fenced code blocks, paragraphs and headings.

The writer cuts a long statement along it, and the reproduction check drops what a removed block
leaves behind; both must agree on what a block and a heading are."""

from __future__ import annotations

import re

FENCE = "```"
# a block whose heading says this runs after the nearest earlier block's lines but its last (its
# failing check): the writer shows a shared setup once, and the reproduction check runs it so
SAME_SETUP = "the same setup as above"


def code_block_lines(lines: list[str]) -> list[bool]:
    """For each line, whether it is part of a fenced code block, its fences included."""
    flags, fenced = [], False
    for line in lines:
        fence = line.lstrip().startswith(FENCE)
        flags.append(fenced or fence)
        fenced = fenced != fence
    return flags


def paragraphs(text: str) -> list[str]:
    """The paragraphs of ``text`` (blank-line separated); a fenced code block is never split."""
    lines = text.strip().split("\n")
    found: list[list[str]] = [[]]
    for line, in_block in zip(lines, code_block_lines(lines)):
        if not line.strip() and not in_block:
            if found[-1]:
                found.append([])
            continue
        found[-1].append(line)
    return ["\n".join(para) for para in found if para]


def is_path(span: str) -> bool:
    """An inline span that names a file or folder (`pkg/mod.py`, `tests/`), not code that divides."""
    return bool(re.fullmatch(r"[\w.-]+(?:/[\w.-]+)+/?|[\w.-]+/", span.strip())) and bool(
        re.search(r"\.\w+$|/$", span.strip())
    )


def is_heading(text: str) -> bool:
    """A line or paragraph that announces what follows it (a block, a list of cases): it ends in ':'."""
    return text.rstrip().endswith(":")
