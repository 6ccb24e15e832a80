"""Domain and skill tags for a task, from its commit message, patch and touched names.

Keyword rules, not a model: cheap, deterministic and explainable. The domains are the seven
of the SEBGen paper; a task gets the domain with the most keyword hits (ties by the order
below) and every skill whose keywords appear.
"""

from __future__ import annotations

import re

DOMAINS: dict[str, tuple[str, ...]] = {
    "security": (
        "secur",
        "escape",
        "sanitiz",
        "inject",
        "traversal",
        "password",
        "token",
        "secret",
        "unsafe",
        "xss",
        "html",
        "permission",
        "hash",
        "auth",
    ),
    "concurrency": (
        "thread",
        "lock",
        "concurren",
        "race",
        "async",
        "queue",
        "worker",
        "atomic",
        "parallel",
        "deadlock",
    ),
    "memory": ("memory", "cache", "leak", "evict", "capacity", "buffer", "unbounded", "size limit", "weakref", "lru"),
    "error_handling": ("error", "exception", "raise", "retry", "fail", "traceback", "except"),
    "validation": ("valid", "invalid", "check", "reject", "negative", "empty", "range", "parse", "format", "schema"),
    "math": (
        "round",
        "math",
        "sum",
        "average",
        "divid",
        "precision",
        "overflow",
        "float",
        "decimal",
        "interest",
        "percent",
        "ratio",
        "arithmetic",
    ),
    "algorithm": (
        "sort",
        "search",
        "binary",
        "graph",
        "path",
        "order",
        "merge",
        "index",
        "algorithm",
        "off-by-one",
        "boundary",
        "loop",
    ),
}

SKILLS: dict[str, tuple[str, ...]] = {
    "exception handling": ("raise", "except", "error"),
    "input validation": ("valid", "invalid", "reject", "isinstance"),
    "synchronisation": ("lock", "thread", "atomic"),
    "resource management": ("cache", "evict", "close", "capacity", "memory"),
    "numeric precision": ("round", "decimal", "float", "precision"),
    "boundary conditions": ("<=", ">=", "off-by-one", "boundary", "len(", "range("),
    "string processing": ("strip", "split", "replace", "encode", "escape", "format"),
    "data structures": ("dict", "list", "heap", "queue", "set("),
    "api design": ("keyword", "signature", "rename", "class ", "def "),
    "security hardening": ("escape", "sanitiz", "traversal", "secret", "hash"),
    "searching and sorting": ("sort", "bisect", "search", "sorted("),
}


def _hits(text: str, words: tuple[str, ...]) -> int:
    return sum(text.count(w) for w in words)


def tag(message: str, patch: str, functions: list[str]) -> tuple[str, list[str]]:
    added = "\n".join(line[1:] for line in patch.splitlines() if line[:1] in "+-" and line[:3] not in ("+++", "---"))
    text = (message + "\n" + " ".join(functions)).lower()
    code = added.lower()
    scores = {d: 3 * _hits(text, words) + _hits(code, words) for d, words in DOMAINS.items()}
    domain = max(DOMAINS, key=lambda d: (scores[d], -list(DOMAINS).index(d)))
    if scores[domain] == 0:
        domain = "algorithm"
    skills = sorted(s for s, words in SKILLS.items() if _hits(text + "\n" + code, words))
    return domain, skills


def words(text: str) -> list[str]:
    return re.findall(r"[a-z_][a-z0-9_]+", text.lower())
