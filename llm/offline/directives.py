"""Writer directives: which instructions the offline writer obeys, read by meaning.

How instructions are read (``parse_directives``)
------------------------------------------------
1. Data is not instructions: fenced code blocks, unified-diff hunks, markdown headings,
   ``<context>``-style tags, quoted text and backticked or snake_case identifiers
   (``hints_text``) are removed first.
2. The text is cut into clauses: sentences, then at contrast words (but, however, except,
   whereas, although, though, yet, instead), semicolons and at "and"/"," followed by a
   new imperative verb ("Include steps and name the tests" is two clauses).
3. Scope: a clause counts only when it is addressed to the writer -- it starts with an
   imperative verb (after "please", "always", ...), speaks to "you" or about the output ("the
   statement must ..."), or is a short fragment ("No hints.") -- and when it is unconditional:
   a rule that holds "only when asked", "unless ..." or "if requested" has no effect, as the
   writer is never asked. Sentences about other people ("The maintainers never quote the
   code") are descriptions, not instructions.
4. Negation: a negation cue (not, never, no, don't, avoid, without, refrain from, omit, skip,
   under no circumstances, ...) negates the rest of its clause; the words before it are read
   as asked for ("Describe the bug without revealing the fix" asks for a description and
   forbids the fix).
5. Meaning: each piece, without its negation cue, is embedded (all-MiniLM-L6-v2) and
   compared with short descriptions of every directive (``DESCRIPTIONS``); a directive is
   mentioned when its best cosine similarity is at least ``THRESHOLD``.
6. Effect: a mentioned directive is switched on unless negated. ``no_leak`` is described
   by what it forbids (reveal the fix, quote the patch): negating it switches ``no_leak``
   on, and "keep the solution secret" switches it on directly. A negated length directive
   asks for the other length ("don't be verbose" = concise). When a directive is both
   asked for and negated, asking wins, except that any request to hide the fix wins over a
   request to show it. Concise and detailed together cancel out.

Effects on the writer
---------------------
===================  ===========================================================================
directive            effect
===================  ===========================================================================
reproduce            "Steps to reproduce" from the failing tests' assertions
expected_actual      "Expected behaviour / Actual behaviour" lines
no_leak              no added line of the gold patch (nor code equal to it) appears; WITHOUT it
                     the writer appends a "Suggested fix" quoting added lines
name_tests           list of failing test ids
name_function        "Affected code" with names and signatures
test_behaviour       what each failing test checks
different_angle      user's-eye framing, other phrasings, checks in reverse order
concise / detailed   short summary / extra context (both present: default length)
hint                 non-empty ``hints_text``
===================  ===========================================================================
"""

from __future__ import annotations

import re
from functools import lru_cache

from .meaning import embed, embed_fixed

# Short descriptions of what each directive asks for. "leak" describes the forbidden act:
# negated, it switches no_leak on.
DESCRIPTIONS: dict[str, tuple[str, ...]] = {
    "reproduce": (
        "include reproduction steps",
        "include steps to reproduce the bug",
        "show how to reproduce the problem",
        "give a minimal example that triggers the failure",
    ),
    "expected_actual": (
        "state the expected behaviour and the actual behaviour",
        "say what should happen and what happens instead",
        "contrast the intended result with the observed result",
    ),
    "name_tests": ("name the failing tests", "list the tests that fail", "mention the failing test cases by name"),
    "name_function": (
        "mention the affected function by name",
        "name the function where the problem is",
        "say which function or method is affected",
        "give the affected function and its signature",
    ),
    "test_behaviour": (
        "describe the behaviour the failing tests check",
        "explain what the tests verify",
        "state what each failing test checks",
    ),
    "different_angle": (
        "describe the problem from a different angle",
        "take another perspective than the examples",
        "phrase it differently from the similar tasks",
    ),
    "concise": ("keep the statement concise", "be brief", "keep it short", "write only a few sentences"),
    "detailed": (
        "write a detailed statement",
        "be thorough and give plenty of detail",
        "explain at length with full context",
        "be verbose",
    ),
    "hint": (
        "add a hint pointing to the relevant code",
        "give a hint about where to look",
        "provide a clue for the solver",
    ),
    "no_leak": (
        "keep the fix secret",
        "keep the solution confidential",
        "hide the patch from the reader",
        "withhold the code change",
    ),
    "leak": (
        "reveal the fix",
        "leak the solution",
        "quote the changed code",
        "include the patch in the statement",
        "show the solution code",
        "paste the diff",
        "explain how to fix it",
        "describe how the bug was fixed",
        "give away the solution",
    ),
    # Generic instructions that ask for none of the above: a piece closest to one of these is no directive.
    "neutral": (
        "write a GitHub issue",
        "write a bug report for the project",
        "write a feature request",
        "describe the problem",
        "describe the bug",
        "return a JSON object",
        "use plain English",
        "write a specification",
        "be polite",
        "write in English",
        "the statement",
        "the user",
    ),
}
_GROUP = {"leak": "secrecy", "no_leak": "secrecy"}
THRESHOLD = 0.5
MARGIN = 0.06  # other directives this close to the best one are mentioned too
_OPPOSITE = {"concise": "detailed", "detailed": "concise"}

_EXPECTED = re.compile(r"\bexpected\b", re.I)
_ACTUAL = re.compile(r"\bactual\b", re.I)

_NEGATION = re.compile(
    r"\b(?:under no circumstances?|in no case|at no (?:point|time)|by no means|no matter what,? never|"
    r"do not|does not|don't|dont|doesn't|must not|mustn't|should not|shouldn't|may not|cannot|can't|"
    r"never|not|no|avoid(?:ing)?|without|refrain from|omit(?:ting)?|skip(?:ping)?|leave out|nothing|none)\b",
    re.I,
)
_CONDITION = re.compile(
    r"(?<!even )\b(?:only (?:when|if)|unless|(?:if|when) (?:asked|requested|prompted|told|"
    r"the user asks|someone asks|explicitly asked))\b",
    re.I,
)
_IMPERATIVE = set(
    """
add address avoid be begin build call check cite clarify combine copy cover describe detail do don't dont
emphasise emphasize end ensure explain express focus frame give hide highlight identify illustrate include
adopt approach choose consider contrast demonstrate disclose document draw expose go let look pick prefer
provide put share stress take treat walk
indicate keep leave limit list make mention name never note offer omit outline paraphrase paste phrase point
provide quote reference refrain remember report reproduce restrict return reveal say show skip spell start
state stay stick summarise summarize suggest supply tell try use withhold word write
""".split()
)
_LEADS = re.compile(
    r"^(?:(?:please|always|also|then|first|finally|just|simply|now|additionally|and|so|in addition|"
    r"in the statement|in your answer|in the issue|make sure(?: that)?|be sure to|remember to|"
    r"try to|it is (?:important|essential|crucial|vital) to|(?:you|the \w+(?: \w+)?) "
    r"(?:must|should|shall|need to|needs to|have to|has to|are to|is to|will|can|may))\b[,\s]*)+",
    re.I,
)
_ADDRESSED = re.compile(
    r"\b(?:you|your)\b|^(?:the|your|this|each|every) (?:statement|issue|report|description|text|output|answer|"
    r"problem statement|bug report|feature request|specification|request|summary)\b"
    r"|\b(?:is|are) (?:required|needed|welcome|mandatory|expected|essential|important|forbidden|"
    r"not allowed|prohibited|optional)\b|^(?:make sure|be sure|it is (?:important|essential|crucial|vital))|"
    r"^(?:under no|in no case|at no|by no means|no|never|not)\b",
    re.I,
)
_SPLIT = re.compile(r";|\s*\b(?:but|however|except|whereas|although|though|yet)\b[,]?\s*", re.I)


def instruction_text(text: str) -> str:
    """``text`` without code: fenced blocks and unified-diff hunks are data, not instructions."""
    text = re.sub(r"```.*?(?:```|$)", " ", text, flags=re.S)
    kept: list[str] = []
    in_hunk = False
    for line in text.splitlines():
        if line.startswith(("diff --git", "index ", "--- a/", "+++ b/", "--- /dev/null", "+++ /dev/null", "@@")):
            in_hunk = line.startswith("@@") or in_hunk
            continue
        if in_hunk and line[:1] in (" ", "+", "-", "\\"):
            continue
        in_hunk = False
        kept.append(line)
    return "\n".join(kept)


def _prose(text: str) -> str:
    """Instruction prose: no code, headings, tags, quotations or identifiers."""
    text = instruction_text(text)
    text = "\n".join(ln for ln in text.splitlines() if not ln.lstrip().startswith("#"))
    text = re.sub(r"<[^<>\n]{1,40}>", " ", text)
    text = re.sub(r"`[^`\n]*`", " ", text)
    text = re.sub(r"\"[^\"\n]*\"|“[^”\n]*”", " ", text)
    text = re.sub(r"\{[^{}\n]*\}", " ", text)  # {placeholders} and inline JSON
    text = re.sub(r"\b\w+_\w+\b", " ", text)
    return text


def _clauses(text: str) -> list[str]:
    out: list[str] = []
    for sentence in re.split(r"(?<=[.!?])\s+|\n+|(?<=\w)[.!?]$", _prose(text)):
        for part in _SPLIT.split(sentence):
            # "..., and name the tests" / "... and give ...": a new imperative starts a new clause
            pieces = re.split(r"(?:,?\s*\band\b)\s+(?=(?:" + "|".join(sorted(_IMPERATIVE)) + r")\b)", part, flags=re.I)
            out += [" ".join(p.strip(" .!?:-*").split()) for p in pieces if p and p.strip(" .!?:-*")]
    return out


def _addressed(clause: str) -> bool:
    lead = _LEADS.sub("", clause.lower()).strip()
    first = lead.split(" ", 1)[0] if lead else ""
    return first in _IMPERATIVE or bool(_ADDRESSED.search(lead)) or len(lead.split()) <= 4


def _pieces(clause: str) -> list[tuple[str, bool]]:
    """(text, negated) pieces of a clause: a negation cue negates the rest of the clause."""
    cues = list(_NEGATION.finditer(clause))
    if not cues:
        return [(clause, False)]
    pieces = [(clause[: cues[0].start()], False)]
    rest = _NEGATION.sub(" ", clause[cues[0].start() :])
    pieces.append((rest, True))
    out = []
    for text, negated in pieces:
        text = " ".join(_LEADS.sub("", _FILLER.sub(" ", text).strip(" ,")).split())
        if re.search(r"[A-Za-z]{2,}", text):
            out.append((text, negated))
    return out


_FILLER = re.compile(
    r"\b(?:under any circumstances?|at all|ever|whatsoever|in any way|in any form|"
    r"of any kind)\b",
    re.I,
)


@lru_cache(maxsize=4096)
def _mentions(piece: str) -> tuple[tuple[str, float], ...]:
    """Directives whose description is closest in meaning to ``piece`` (see the module docstring)."""
    names = list(DESCRIPTIONS)
    flat = tuple(d for n in names for d in DESCRIPTIONS[n])
    owner = [n for n in names for _ in DESCRIPTIONS[n]]
    sims = embed_fixed(flat) @ embed([piece.lower()])[0]
    best: dict[str, float] = {}
    for name, sim in zip(owner, sims.tolist()):
        best[name] = max(best.get(name, -1.0), round(float(sim), 4))
    ranked = sorted(best.items(), key=lambda ns: (-ns[1], ns[0]))
    top_name, top = ranked[0]
    if top_name == "neutral" or top < THRESHOLD:
        return ()
    chosen = [(top_name, top)]
    for name, sim in ranked[1:]:
        if name == "neutral" or sim < max(THRESHOLD, top - MARGIN):
            break
        if _GROUP.get(name, name) not in {_GROUP.get(n, n) for n, _ in chosen}:
            chosen.append((name, sim))
    return tuple(chosen)


def read_directives(instructions: str) -> tuple[set[str], set[str]]:
    """(asked, forbidden) directives of the instruction text, before conflicts are settled."""
    asked: set[str] = set()
    forbidden: set[str] = set()
    for clause in _clauses(instructions):
        if _CONDITION.search(clause) or not _addressed(clause):
            continue
        for piece, negated in _pieces(clause):
            for name, _sim in _mentions(piece):
                if name == "leak":
                    (asked if negated else forbidden).add("no_leak")
                elif name == "no_leak":
                    (forbidden if negated else asked).add("no_leak")
                elif negated and name in _OPPOSITE:
                    asked.add(_OPPOSITE[name])
                    forbidden.add(name)
                else:
                    (forbidden if negated else asked).add(name)
    return asked, forbidden


def parse_directives(instructions: str) -> set[str]:
    """The writer directives that the instruction text switches on (see the module docstring)."""
    asked, _forbidden = read_directives(instructions)
    if {"concise", "detailed"} <= asked:
        asked -= {"concise", "detailed"}
    return asked


__all__ = ["DESCRIPTIONS", "THRESHOLD", "instruction_text", "parse_directives", "read_directives"]
