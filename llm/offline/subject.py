"""Commit subjects and bodies turned into user-facing symptoms, requests and sentences."""

from __future__ import annotations

import re

_CC_PREFIX = re.compile(
    r"^\s*(?:\[[^\]]*\]\s*)?(?:(?:fix|feat|feature|refactor|tests?|chore|perf|bug|bugfix|docs|style|build|ci)(?:\([^)]*\))?!?:\s*)?",
    re.I,
)
_VERB_KIND = {}
for _kind, _verbs in {
    "fix": "fix fixes fixed fixing correct corrects corrected resolve resolves resolved repair repairs",
    "handle": "handle handles handled",
    "prevent": "prevent prevents prevented avoid avoids avoided stop stops",
    "respect": "respect respects respected honor honors honour honours preserve preserves keep keeps retain retains",
    "add": "add adds added implement implements implemented introduce introduces introduced support supports "
    "allow allows enable enables provide provides",
    "refactor": "refactor refactors refactored restructure restructures extract extracts move moves rename renames "
    "split splits simplify simplifies reorganize reorganise",
    "change": "make makes update updates improve improves change changes use uses ensure ensures",
}.items():
    for _verb in _verbs.split():
        _VERB_KIND[_verb] = _kind


_PARTICIPLE = {
    "respect": "respected",
    "honor": "honored",
    "honour": "honoured",
    "preserve": "preserved",
    "keep": "kept",
    "retain": "retained",
}
_NEGATED = re.compile(r"^(?:do not|don't|dont|never|no longer)\s+(.+)$", re.I)
_SCOPE = re.compile(r"^[\w.]+:\s+(?=\w)")  # "jsonutils: fix ..." (a module named first)


def split_subject(subject: str) -> tuple[str, str, str]:
    """(verb kind, verb, rest) of a commit subject, without a conventional-commit prefix, a
    leading module scope or trailing pull-request numbers. "Do not X" and "Never X" are kind
    "negated" with `rest` X."""
    s = _CC_PREFIX.sub("", str(subject or "")).strip()
    s = _SCOPE.sub("", s)
    s = re.sub(r"(?:\s*\(#\d+\))+\s*$", "", s).rstrip(". ")
    negated = _NEGATED.match(s)
    if negated:
        return "negated", "not", negated.group(1)
    m = re.match(r"(\w+)\s+(.+)", s)
    if m and m.group(1).lower() in _VERB_KIND:
        return _VERB_KIND[m.group(1).lower()], m.group(1).lower(), m.group(2)
    return "", "", s


def _symptom(kind: str, verb: str, rest: str, fallback: str) -> str:
    if not rest:
        return fallback
    if kind == "handle":
        return f"{rest} is not handled correctly"
    if kind == "respect":
        base = verb[:-1] if verb.endswith("s") and verb[:-1] in _PARTICIPLE else verb
        return f"{rest} is not {_PARTICIPLE.get(base, base + 'ed')}"
    if kind == "negated":
        return f"the code should not {rest}, but it does"
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
    if kind == "negated":
        return f"not to {rest}"
    return (f"{verb} {rest}" if verb else rest) or subject.strip().rstrip(".")


_VAGUE = re.compile(
    r"^(?:update|wip|tweak|cleanup|clean up|address|review|changes?|minor|misc|more|tests?|lint|"
    r"fixup|squash|merge|bump|try|oops|apply|get away)\b",
    re.I,
)


def is_vague(subject: str) -> bool:
    """A subject that says nothing about the behaviour: too short, a file name, or a chore
    ("Update foo.py", "address review", "wip"). A pull-request title then speaks instead."""
    s = _CC_PREFIX.sub("", str(subject or "")).strip()
    s = re.sub(r"(?:\s*\(#\d+\))+\s*$", "", s)
    words = s.split()
    if re.fullmatch(
        r"(?:(?:fix|fixes|fixed|close|closes|closed|resolve|resolves|resolved)\s+)?(?:issue\s+|bug\s+)?#\d+\W*", s, re.I
    ):
        return True  # only a reference: "Fixes issue #1427"
    return (
        len(words) < 3 or bool(_VAGUE.match(s)) or any(re.search(r"\w\.(?:py|txt|md|rst|cfg|toml)\b", w) for w in words)
    )


_TRAILER = re.compile(r"^\s*(?:signed-off-by|co-authored-by|reviewed-by|fixes|closes|refs?)\b.*$", re.I | re.M)


def body_sentences(body: str, no_leak: bool, skip: tuple[str, ...] = ()) -> list[str]:
    """User-facing sentences from a commit or pull-request body: trailers, fences, HTML
    comments, the bullet lists of squashed commit subjects, sentences naming files, repeats
    (of each other and of the texts in `skip`) and, when asked, code are dropped."""
    text = _TRAILER.sub("", str(body or ""))
    text = re.sub(r"```.*?```", " ", text, flags=re.S)
    text = re.sub(r"<!--.*?-->", " ", text, flags=re.S)
    text = re.sub(r"^\s*[-*]\s+", "\n\n", text, flags=re.M)  # every bullet is a sentence of its own
    seen = {_norm(t) for t in skip}
    out = []
    for raw in re.split(r"(?<!e\.g\.)(?<!i\.e\.)(?<=[.!?])\s+|\n\s*\n|^#+\s.*$", text, flags=re.M):
        s = " ".join((raw or "").split())
        if (
            len(s.split()) < 3
            or is_vague(s)
            or _norm(s) in seen
            or s.startswith(("#", "["))
            or s.endswith(":")
            or re.search(r"https?://", s)
        ):
            continue  # headings, bot lines ("[pre-commit.ci] ..."), list intros, links
        seen.add(_norm(s))
        if no_leak and re.search(r"`[^`]*`|[=(){}\[\]]", s):
            continue  # code in prose can give the fix away
        kind, verb, rest = split_subject(s)
        if kind == "fix":
            s = f"The problem: {rest.rstrip('.')}."
        elif re.match(r"this (?:commit|pr|patch|change)\b", s, re.I):
            continue  # developer voice, not a symptom
        out.append(s if s.endswith((".", "!", "?")) else s + ".")
    return out


def _norm(text: str) -> str:
    text = re.sub(r"(?:\s*\(#\d+\))+\s*$", "", _CC_PREFIX.sub("", text).strip())
    return re.sub(r"[^a-z0-9]+", " ", text.lower()).strip()
