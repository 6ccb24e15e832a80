"""Commit subjects and bodies turned into user-facing symptoms, requests and sentences."""
from __future__ import annotations

import re


_CC_PREFIX = re.compile(r"^\s*(?:\[[^\]]*\]\s*)?(?:(?:fix|feat|feature|refactor|tests?|chore|perf|bug|bugfix|docs|style|build|ci)(?:\([^)]*\))?!?:\s*)?", re.I)
_VERB_KIND = {}
for _kind, _verbs in {
    "fix": "fix fixes fixed fixing correct corrects corrected resolve resolves resolved repair repairs",
    "handle": "handle handles handled",
    "prevent": "prevent prevents prevented avoid avoids avoided stop stops",
    "add": "add adds added implement implements implemented introduce introduces introduced support supports allow allows enable enables provide provides",
    "refactor": "refactor refactors refactored restructure restructures extract extracts move moves rename renames split splits simplify simplifies reorganize reorganise",
    "change": "make makes update updates improve improves change changes use uses ensure ensures",
}.items():
    for _verb in _verbs.split():
        _VERB_KIND[_verb] = _kind


def split_subject(subject: str) -> tuple[str, str, str]:
    """(verb kind, verb, rest) of a commit subject, without a conventional-commit prefix."""
    s = _CC_PREFIX.sub("", str(subject or "")).strip()
    s = re.sub(r"\s*\(#\d+\)\s*$", "", s).rstrip(". ")
    m = re.match(r"(\w+)\s+(.+)", s)
    if m and m.group(1).lower() in _VERB_KIND:
        return _VERB_KIND[m.group(1).lower()], m.group(1).lower(), m.group(2)
    return "", "", s


def _symptom(kind: str, verb: str, rest: str, fallback: str) -> str:
    if not rest:
        return fallback
    if kind == "handle":
        return f"{rest} is not handled correctly"
    if kind == "add":
        return rest if rest.lower().startswith("missing") else f"{rest} is missing"
    if kind in ("change", "refactor"):
        return f"the code does not {verb} {rest}"
    return rest


def _request(kind: str, verb: str, rest: str, subject: str) -> str:
    if kind == "add":
        return rest
    if kind == "refactor":
        return f"{verb} {rest}"
    return subject.strip().rstrip(".") or rest


_TRAILER = re.compile(r"^\s*(?:signed-off-by|co-authored-by|reviewed-by|fixes|closes|refs?)\b.*$", re.I | re.M)


def body_sentences(body: str, no_leak: bool) -> list[str]:
    """User-facing sentences from a commit body (trailers, fences and, when asked, code dropped)."""
    text = _TRAILER.sub("", str(body or ""))
    text = re.sub(r"```.*?```", " ", text, flags=re.S)
    text = re.sub(r"^\s*[-*]\s+", "", text, flags=re.M)
    out = []
    for raw in re.split(r"(?<=[.!?])\s+|\n\s*\n", text):
        s = " ".join(raw.split())
        if len(s.split()) < 3:
            continue
        if no_leak and re.search(r"`[^`]*`|[=(){}\[\]]", s):
            continue  # code in prose can give the fix away
        kind, verb, rest = split_subject(s)
        if kind == "fix":
            s = f"The problem: {rest.rstrip('.')}."
        elif re.match(r"this (?:commit|pr|patch|change)\b", s, re.I):
            continue  # developer voice, not a symptom
        out.append(s if s.endswith((".", "!", "?")) else s + ".")
    return out
