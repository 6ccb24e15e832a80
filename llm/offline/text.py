"""Small text helpers of the offline model: seeded draws, phrasing picks, word caps, leak stripping."""

from __future__ import annotations

import hashlib
import json
import math
import random
import re
from collections.abc import Callable, Sequence
from typing import Any

from ..leakage import TOKEN as _TOKEN
from ..leakage import leaked_share  # noqa: F401  (re-exported: the leak check's home is llm.leakage)
from ..markdown import is_heading, paragraphs
from ..patch_lines import patch_added_lines, patch_removed_lines  # noqa: F401  (re-exported)


def seeded_rng(*parts: Any) -> random.Random:
    """A Random seeded by the sha256 of the JSON of ``parts`` (stable across runs and hosts)."""
    blob = json.dumps(parts, sort_keys=True, default=str, ensure_ascii=False)
    return random.Random(int.from_bytes(hashlib.sha256(blob.encode()).digest()[:8], "big"))


class _Phraser:
    """Picks phrasings: greedy at low temperature, from the top ``ceil(top_p * n)`` otherwise."""

    def __init__(self, rng: random.Random, temperature: float, top_p: float, reverse: bool = False):
        self.rng, self.temperature, self.top_p, self.reverse = rng, temperature, top_p, reverse

    def pick(self, options: Sequence[str]) -> str:
        ordered = list(options)[::-1] if self.reverse else list(options)
        draw = self.rng.random()  # always drawn so later choices do not shift with top_p
        if self.temperature < 0.05:
            return ordered[0]
        k = max(1, min(len(ordered), math.ceil(max(0.0, self.top_p) * len(ordered))))
        return ordered[int(draw * k)]


def _capitalize(text: str) -> str:
    """``text`` opening a sentence. A first word that is a path, a repository name
    (``owner/name``) or an identifier of code (``strip_sequences()``, ``os.path``, ``camelCase``)
    keeps its case: it is a name, and "Tj/commander.js" or "Strip_sequences()" names nothing."""
    if not text or re.match(r"[^\s/]*/|[a-z]\w*(?:[_(.]|[a-z0-9][A-Z])", text.split(maxsplit=1)[0]):
        return text
    return text[:1].upper() + text[1:]


def and_listed(items: Sequence[str]) -> str:
    """`a`, `a and b`, `a, b and c`."""
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def _fmt(template: str, values: dict[str, str]) -> str:
    """``template`` filled from ``values``; ``{Key}`` is ``{key}`` opening a sentence."""
    values = dict(values)
    for key in list(values):
        values[key.capitalize()] = _capitalize(values[key])
    return template.format(**values)


def fitted(section: Callable[..., str], phr: _Phraser, words: int, fewer: Callable[[str], list[tuple]]) -> str:
    """`section()` within `words` words when it can be: else `section(*args)` for each of
    `fewer(text)` in turn (each says less than the one before: fewer blocks, fewer listed cases,
    the rest counted) until one fits, else the last. A word cap then never cuts a list of cases
    off unsaid. Every try draws the same phrasings."""
    state = phr.rng.getstate()
    text = section()
    if _word_count(text) <= words:
        return text
    for args in fewer(text):
        phr.rng.setstate(state)
        text = section(*args)
        if _word_count(text) <= words:
            break
    return text


def _cap_words(text: str, limit: int) -> str:
    """At most ``limit`` words of ``text``, cut where a paragraph or a list item ends: half a code
    block runs nowhere and half a case states nothing. A heading (a line ending in ':') whose
    content is cut goes with it. A first paragraph longer than ``limit`` is cut at a word."""
    if _word_count(text) <= limit:
        return text.strip()
    kept: list[str] = []
    words = 0
    for paragraph in paragraphs(text):
        size = _word_count(paragraph)
        if words + size > limit:
            items = _whole_items(paragraph, limit - words)
            if items:
                kept.append(items)
            break
        kept.append(paragraph)
        words += size
    while kept and is_heading(kept[-1]):
        kept.pop()
    return "\n\n".join(kept) if kept else _cut_at_word(text, limit)


def _whole_items(paragraph: str, limit: int) -> str:
    """The head of a list paragraph with the whole items (`- ...` lines) that fit in ``limit``
    words; "" for any other paragraph, or when not one item fits."""
    lines = paragraph.split("\n")
    if "```" in paragraph or not any(line.startswith("- ") for line in lines[1:]):
        return ""
    kept, words = [], 0
    for line in lines:
        if words + _word_count(line) > limit:
            break
        kept.append(line)
        words += _word_count(line)
    return "\n".join(kept) if any(line.startswith("- ") for line in kept) else ""


def _cut_at_word(text: str, limit: int) -> str:
    """The first ``limit`` words of ``text``, keeping its line breaks."""
    pieces = re.split(r"(\s+)", text.strip())
    out: list[str] = []
    words = 0
    for piece in pieces:
        if piece and not piece.isspace():
            if words >= limit:
                break
            words += 1
        out.append(piece)
    return "".join(out).rstrip()


def _word_count(text: str) -> int:
    return len(text.split())


def _normalize_code(line: str) -> str:
    return re.sub(r"\s+", " ", line.strip())


def _nontrivial(line: str) -> bool:
    """A code line worth counting as part of a fix (not blank, a bracket, or a bare keyword)."""
    s = _normalize_code(line)
    return len(s) >= 6 and any(c.isalnum() for c in s) and not s.startswith("#")


def _strip_leaks(statement: str, added_lines: Sequence[str], own: Sequence[str] = ()) -> str:
    """Drop every statement line that contains a non-trivial added line of the gold patch, token
    for token (a bare `return` or `else:` of the fix is no reason to drop a line), outside the
    texts of `own` (the failing tests' own calls, which a line may repeat)."""
    needles = [toks for ln in added_lines if _nontrivial(ln) and len(toks := _TOKEN.findall(ln)) >= 3]
    kept = []
    for line in statement.splitlines():
        told = line
        for text in sorted(own, key=len, reverse=True):
            told = told.replace(text, " ")
        flat = " " + " ".join(_TOKEN.findall(told)) + " "
        if not any(f" {' '.join(n)} " in flat for n in needles):
            kept.append(line)
    return re.sub(r"\n{3,}", "\n\n", "\n".join(kept)).strip()
