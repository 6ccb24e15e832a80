"""Writer directives: which instructions the offline writer obeys, read from the instruction text.

Writer directives (case-insensitive, read from the instruction text only, never the context)
-------------------------------------------------------------------------------------------
Fenced code blocks and unified-diff hunks in the instructions are data and are ignored.
A directive is switched off when a negation (not, never, no, don't, avoid, without) appears
within the four words before its keyword and no other sentence asks for it positively.

===================  =============================================  =================================
directive            keywords                                       effect
===================  =============================================  =================================
reproduce            ``reproduc``                                   "Steps to reproduce" from the
                                                                    failing tests' assertions
expected_actual      ``expected`` AND ``actual``                    "Expected behaviour / Actual
                                                                    behaviour" lines
no_leak              ``never reveal``, ``do not reveal``,           no added line of the gold patch
                     ``do not include the solution/fix``,           (nor code equal to it) appears;
                     ``never/do not quote``, ``without revealing``, WITHOUT it the writer appends a
                     ``do not paste/copy the patch/diff/code``      "Suggested fix" quoting added lines
name_tests           ``name/list/mention/include the failing test`` list of failing test ids
name_function        ``mention/name/reference the (affected)        "Affected code" with names and
                     function``, ``affected function``              signatures
test_behaviour       ``behaviour the (failing) tests check/verify``  what each failing test checks
different_angle      ``different angle/perspective/aspect``         user's-eye framing, other phrasings,
                                                                    checks in reverse order
concise / detailed   ``concise``, ``brief(ly)``, ``keep it short``  short summary / extra context
                     / ``detailed``, ``thorough``, ``in detail``    (both present: default length)
hint                 the word ``hint``/``hints`` (``hints_text``    non-empty ``hints_text``
                     as an identifier does not count)
===================  =============================================  =================================
"""
from __future__ import annotations

import re

_NEGATION = re.compile(r"\b(?:not|never|no|don't|dont|avoid|without)\b", re.I)
_DIRECTIVE_PATTERNS: dict[str, tuple[re.Pattern[str], ...]] = {
    "reproduce": (re.compile(r"reproduc", re.I),),
    "name_tests": (re.compile(r"\b(?:name|list|mention|include)\s+the\s+failing\s+tests?\b", re.I),),
    "name_function": (
        re.compile(r"\b(?:mention|name|reference)\s+the\s+(?:affected\s+)?functions?\b", re.I),
        re.compile(r"\baffected\s+functions?\b", re.I),
    ),
    "test_behaviour": (
        re.compile(r"behaviou?rs?\s+(?:that\s+)?the\s+(?:failing\s+)?tests?\s+(?:check|verify|exercise)", re.I),
    ),
    "different_angle": (re.compile(r"\bdifferent\s+(?:angle|perspective|aspect)", re.I),),
    "concise": (re.compile(r"\bconcise\b|\bbrief(?:ly)?\b|\bkeep\s+it\s+short\b", re.I),),
    "detailed": (re.compile(r"\bdetailed\b|\bthorough(?:ly)?\b|\bin\s+detail\b", re.I),),
    "hint": (re.compile(r"\bhints?\b", re.I),),
}
# These phrases are themselves negative ("never reveal ..."), so negation does not cancel them.
_NO_LEAK = re.compile(
    r"never\s+reveal|do\s+not\s+reveal|don't\s+reveal|without\s+revealing"
    r"|(?:do\s+not|never)\s+include\s+the\s+(?:solution|fix)"
    r"|(?:never|do\s+not|don't)\s+quote"
    r"|(?:do\s+not|don't|never)\s+(?:paste|copy)\s+(?:the\s+)?(?:patch|diff|fix|solution|changed\s+code|code)",
    re.I,
)
_EXPECTED = re.compile(r"\bexpected\b", re.I)
_ACTUAL = re.compile(r"\bactual\b", re.I)


def _sentences(text: str) -> list[str]:
    return [s for s in re.split(r"[.;!?\n]+", text) if s.strip()]


def _asked(sentence: str, match: re.Match[str]) -> bool:
    """True when the keyword is not negated by one of the four words before it."""
    before = sentence[: match.start()].split()[-4:]
    return not _NEGATION.search(" ".join(before))


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


def parse_directives(instructions: str) -> set[str]:
    """The writer directives that the instruction text switches on (see the module table)."""
    found: set[str] = set()
    instructions = instruction_text(instructions)
    sentences = _sentences(instructions)
    for name, patterns in _DIRECTIVE_PATTERNS.items():
        for sentence in sentences:
            if any(_asked(sentence, m) for p in patterns for m in p.finditer(sentence)):
                found.add(name)
                break
    if _NO_LEAK.search(instructions):
        found.add("no_leak")
    for sentence in sentences:
        e, a = _EXPECTED.search(sentence), _ACTUAL.search(sentence)
        if e and a and _asked(sentence, e):
            found.add("expected_actual")
    if not any(_EXPECTED.search(s) and _ACTUAL.search(s) for s in sentences):
        # "expected" and "actual" in different sentences still count
        if _EXPECTED.search(instructions) and _ACTUAL.search(instructions):
            found.add("expected_actual")
    if {"concise", "detailed"} <= found:
        found -= {"concise", "detailed"}
    return found
