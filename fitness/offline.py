"""The offline LLM provider: a deterministic, rule-based writer, judge and prompt mutator.

No network, no model weights. It answers litellm calls to ``offline/<name>`` (default
``offline/sebgen``) so CI, the quickstart and tests can run the whole pipeline, and it reacts
to the prompt and the sampling parameters so evolution has something to act on offline.

Protocol
--------
The prompt (the last user message that holds one; the system message is instructions too)
contains free-text instructions and ONE structured block ``<context>{json}</context>``.
The context's ``"task"`` selects the role:

========================  ===================================================================
``write_statement``       issue-style ``{"problem_statement", "hints_text"}`` from commit facts
``judge_quality``         SWE-MERA's four criteria, each ``{"score", "confidence", "reasoning"}``
``judge_semantic``        ``{"clarity", "solvability"}`` in the same shape
``mutate_prompt``         ``{"prompt", "rationale"}``: the strategy prompt rewritten from failures
========================  ===================================================================

An unknown or missing task gives ``{"error": "..."}``; a prompt without a context block gets
a short plain-text summary back, so a plain completion still works.

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

Examples: when at least half of ``examples`` (similar successful statements) carry a
reproduction or an expected/actual section, the writer imitates that structure.

Sampling: ``max_tokens`` caps the whole answer at about 0.75 words per token (a tiny cap
truncates the statement to a vague title); ``temperature`` above 1.0 drops each directive with
probability ``min(0.9, 0.6 * (T - 1))``; ``top_p`` widens the set of phrasings drawn from
(``ceil(top_p * n)`` of ``n``; temperature below 0.05 is greedy). All draws come from
``random.Random(sha256(context, instructions, sampling))``.

Quality judge rubric (``judge_quality``; scores clamped to 1..10, rounded half up)
---------------------------------------------------------------------------------
* task_correctness = 2 + 2 specificity + 1.5 expected/actual + 1.5 reproduction
  + 1.5 test relation + length (0..1.5) - leak penalty (3 + 4 x share of the gold patch's
  non-trivial added lines found in the statement, 0 without overlap).
  specificity: 1 a touched function is named, 0.5 only its file/module; reproduction: 1 for
  "reproduc"/``>>>``/numbered steps with a call, 0.5 for an inline call; test relation: 0.5 a
  failing test's name, 0.5 a function the tests call; length: <8 words 0, <20 0.5, <40 1,
  <=400 1.5, <=800 1, longer 0.5.
* test_correctness = 1 without FAIL_TO_PASS, else 4 + 2 asserts in the test patch + 2 the
  tests call a touched function + 2 the statement relates to the tests.
* test_completeness = 1 without FAIL_TO_PASS, else 1 + min(4, 2 x #F2P) + min(5, #asserts).
* complexity = 1 + min(5, floor(1.5 log2(1 + changed lines))) + min(2, hunks - 1)
  + min(2, files - 1).

Semantic judge (``judge_semantic``)
-----------------------------------
* clarity = 2 + 2 title line + 2 sentence length 6..30 words + 2 expected/actual
  + 1 two or more paragraphs + 1 not cut off; at most 3 below 8 words.
* solvability = 1 + 3 symptom described + 3 affected function named + 2 reproduction
  + 1 length 20..800 words.

Prompt mutation rules (``mutate_prompt``)
-----------------------------------------
Dominant failure categories (count >= half the top count, at most three) add rules:
leakage -> no_leak; vague_statement / judge_reject -> reproduce, expected_actual,
name_function; duplicate -> different_angle; no_f2p / flaky -> test_behaviour, name_tests;
schema / llm_error -> "Return only the JSON object"; timeout, build_error, patch_error,
compile_error -> nothing (not caused by the prompt). Without failures, structure shared by
most successes is reinforced, else the next missing improvement is added, else the length
rule is toggled. A rule whose directive the prompt already triggers is never added again;
rules are appended, so ``{placeholders}`` are kept.
"""
from __future__ import annotations

import ast
import hashlib
import json
import math
import os
import random
import re
import textwrap
from collections import Counter
from dataclasses import dataclass
from typing import Any, Sequence

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # before litellm: no cost-map fetch

import litellm  # noqa: E402
from litellm.types.utils import Usage as LiteLLMUsage  # noqa: E402

TASKS = ("write_statement", "judge_quality", "judge_semantic", "mutate_prompt")
WORDS_PER_TOKEN = 0.75
JSON_OVERHEAD_WORDS = 6  # keys and quoting of the answer object

# --------------------------------------------------------------------------- directives

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


# --------------------------------------------------------------------------- small helpers


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
    return text[:1].upper() + text[1:] if text else text


def _cap_words(text: str, limit: int) -> str:
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


def patch_added_lines(patch: str) -> list[str]:
    return [ln[1:] for ln in patch.splitlines() if ln.startswith("+") and not ln.startswith("+++")]


def patch_removed_lines(patch: str) -> list[str]:
    return [ln[1:] for ln in patch.splitlines() if ln.startswith("-") and not ln.startswith("---")]


def leaked_share(statement: str, added_lines: Sequence[str]) -> float:
    """Share of the non-trivial added lines that appear (whitespace-normalised) in the statement."""
    lines = {_normalize_code(ln) for ln in added_lines if _nontrivial(ln)}
    if not lines:
        return 0.0
    haystack = _normalize_code(statement)
    return sum(1 for ln in lines if ln in haystack) / len(lines)


def _strip_leaks(statement: str, added_lines: Sequence[str]) -> str:
    """Drop every statement line that contains a non-trivial added line of the gold patch."""
    needles = [_normalize_code(ln) for ln in added_lines if _nontrivial(ln)]
    kept = [ln for ln in statement.splitlines() if not any(n in _normalize_code(ln) for n in needles)]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(kept)).strip()


# --------------------------------------------------------------------------- assertions


@dataclass(frozen=True)
class Check:
    """What one failing test asserts, reduced to a call and an expectation."""

    test_id: str
    kind: str  # "compare" | "raises" | "truthy" | "raw"
    call: str
    expected: str = ""
    op: str = ""

    @property
    def test_name(self) -> str:
        return self.test_id.split("::")[-1].split("[")[0]


_OPS = {ast.Eq: "==", ast.NotEq: "!=", ast.Is: "is", ast.IsNot: "is not", ast.In: "in",
        ast.NotIn: "not in", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">="}
_OP_PHRASE = {"==": "return", "!=": "not return", "is": "be", "is not": "not be",
              "in": "be contained in", "not in": "not be contained in", "<": "be less than",
              "<=": "be at most", ">": "be greater than", ">=": "be at least"}
_RAISES_WITH = re.compile(r"with\s+(?:pytest\.raises|self\.assertRaises)\(\s*([\w.]+)[^)]*\)\s*:\s*(.+)$", re.S)


def parse_assertion(test_id: str, text: str) -> Check:
    """Reduce an assert line (pytest or unittest style) to a :class:`Check`."""
    src = textwrap.dedent(str(text or "")).strip().rstrip(";")
    m = _RAISES_WITH.match(src)
    if m:
        return Check(test_id, "raises", m.group(2).strip(), m.group(1))
    try:
        node = ast.parse(src).body[0]
    except (SyntaxError, IndexError, ValueError):
        return Check(test_id, "raw", src)
    if isinstance(node, ast.Assert):
        test = node.test
        if isinstance(test, ast.Compare) and len(test.ops) == 1:
            return Check(test_id, "compare", ast.unparse(test.left), ast.unparse(test.comparators[0]),
                         _OPS.get(type(test.ops[0]), "=="))
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            return Check(test_id, "truthy", ast.unparse(test.operand), "false")
        return Check(test_id, "truthy", ast.unparse(test), "true")
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
        return _unittest_check(test_id, node.value, src)
    return Check(test_id, "raw", src)


def _unittest_check(test_id: str, call: ast.Call, src: str) -> Check:
    func = call.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    args = [ast.unparse(a) for a in call.args]
    if name in ("assertEqual", "assertEquals") and len(args) >= 2:
        return Check(test_id, "compare", args[0], args[1], "==")
    if name == "assertNotEqual" and len(args) >= 2:
        return Check(test_id, "compare", args[0], args[1], "!=")
    if name == "assertIn" and len(args) >= 2:
        return Check(test_id, "compare", args[0], args[1], "in")
    if name == "assertIsNone" and args:
        return Check(test_id, "compare", args[0], "None", "is")
    if name in ("assertTrue", "assertFalse") and args:
        return Check(test_id, "truthy", args[0], "true" if name == "assertTrue" else "false")
    if name == "assertRaises" and len(args) >= 2:
        return Check(test_id, "raises", f"{args[1]}({', '.join(args[2:])})", args[0])
    if name == "raises" and len(args) >= 2:  # pytest.raises(Exc, func, *args)
        return Check(test_id, "raises", f"{args[1]}({', '.join(args[2:])})", args[0])
    return Check(test_id, "raw", src)


def _check_sentence(check: Check) -> str:
    """One sentence saying what a check expects."""
    if check.kind == "compare":
        return f"`{check.call}` should {_OP_PHRASE.get(check.op, 'return')} `{check.expected}`"
    if check.kind == "raises":
        return f"`{check.call}` should raise `{check.expected}`"
    if check.kind == "truthy":
        return f"`{check.call}` should be {check.expected}"
    return f"the check `{check.call}` should hold" if check.call else f"`{check.test_id}` should pass"


def _actual_sentence(check: Check, strategy: str) -> str:
    if strategy in ("FEATURE_ADD", "TEST_DRIVEN"):
        return f"`{check.call}` is not supported yet (it fails or gives another result)."
    if strategy == "REFACTOR":
        return "the code does not offer this structure yet, so the call fails."
    if check.kind == "raises":
        return f"no `{check.expected}` is raised."
    if check.kind == "compare":
        return f"`{check.call}` gives a different result."
    if check.kind == "truthy":
        return f"`{check.call}` is {'true' if check.expected == 'false' else 'false'}."
    return "the check fails."


# --------------------------------------------------------------------------- commit subject


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


# --------------------------------------------------------------------------- writer


@dataclass
class _Facts:
    strategy: str
    repo: str
    subject: str
    kind: str
    verb: str
    rest: str
    functions: list[dict]
    checks: list[Check]
    added_lines: list[str]
    examples: list[str]


def _facts(context: dict) -> _Facts:
    strategy = str(context.get("strategy_type") or "BUG_FIX").upper()
    subject = str(context.get("commit_subject") or "")
    kind, verb, rest = split_subject(subject)
    functions = [f for f in (context.get("touched_functions") or []) if isinstance(f, dict) and f.get("name")]
    checks = [parse_assertion(str(t.get("id", "")), str(t.get("assertion", "")))
              for t in (context.get("failing_tests") or []) if isinstance(t, dict)]
    added = [str(x) for x in (context.get("added_lines") or [])]
    examples = [str(x) for x in (context.get("examples") or [])]
    return _Facts(strategy, str(context.get("repo") or "the project"), subject, kind, verb, rest,
                  functions, checks, added, examples)


_TITLES = {
    "BUG_FIX": ["{Symptom}", "Bug: {symptom}", "Unexpected behaviour: {symptom}", "{Symptom} in {repo}"],
    "FEATURE_ADD": ["Feature request: {request}", "Please add {request}", "Request: {request}",
                    "Missing capability: {request}"],
    "REFACTOR": ["Refactor request: {request}", "API change: {request}", "Restructure: {request}"],
    "TEST_DRIVEN": ["Specification: {request}", "Implement: {request}", "Make the specification pass: {request}"],
    "HYBRID": ["Bug and enhancement: {symptom}", "Fix and extend: {request}",
               "{Symptom} (needs a fix and an extension)"],
    "SYNTHETIC": ["Regression: {symptom}", "Broken behaviour: {symptom}", "{Symptom} after recent changes"],
}
_OPENINGS = {
    "BUG_FIX": ["I ran into a problem in {repo}: {symptom}.", "When using {repo}, I hit this: {symptom}.",
                "There is a bug in {repo}: {symptom}.", "Users report a problem in {repo}: {symptom}."],
    "FEATURE_ADD": ["{Repo} does not offer {request} yet, and I would like to use it.",
                    "It would be useful if {repo} provided {request}; at the moment it is not available.",
                    "Currently there is no way to get {request} from {repo}."],
    "REFACTOR": ["The current structure of {repo} makes this awkward; please {request}.",
                 "To keep {repo} maintainable, {request} is needed.",
                 "I would like {repo} to {request}, exposing the API described below."],
    "TEST_DRIVEN": ["Implement the behaviour specified below so that the listed tests pass.",
                    "{Repo} must meet the following specification; the tests below describe it.",
                    "The following specification is not met yet by {repo}."],
    "HYBRID": ["In {repo}, {symptom}; this needs both a fix and a small extension.",
               "Two related problems in {repo}: the current behaviour is wrong, and {request} is not available."],
    "SYNTHETIC": ["After a recent change, {repo} shows this problem: {symptom}.", "{Repo} regressed: {symptom}."],
}
_FUNCTION_LINES = ["The problem is in `{name}` (`{signature}`) in `{file}`.",
                   "Affected function: `{name}` in `{file}`, signature `{signature}`.",
                   "It concerns `{signature}` defined in `{file}`."]
_REPRO_HEADS = ["Steps to reproduce:", "How to reproduce:", "Reproduction steps:"]
_HINTS = ["Look at `{name}` in `{file}`.", "The behaviour comes from `{name}` (`{file}`).",
          "Start from `{file}`, function `{name}`."]
_FIX_INTROS = ["Suggested fix:", "A possible fix:", "The fix is probably something like:"]


def _fmt(template: str, values: dict[str, str]) -> str:
    values = dict(values)
    for key in list(values):
        values[key.capitalize()] = _capitalize(values[key])
    return template.format(**values)


def _signature(fn: dict) -> str:
    sig = str(fn.get("signature") or fn["name"]).strip()
    sig = re.sub(r"^\s*(?:async\s+)?def\s+", "", sig).rstrip(":").strip()  # not a line of the patch
    return sig or str(fn["name"])


def _effective_directives(facts: _Facts, instructions: str, temperature: float,
                          rng: random.Random) -> set[str]:
    directives = parse_directives(instructions)
    if facts.examples:  # imitate the structure of most similar successes
        half = len(facts.examples) / 2
        if sum("reproduc" in e.lower() for e in facts.examples) >= half:
            directives.add("reproduce")
        if sum(bool(_EXPECTED.search(e) and _ACTUAL.search(e)) for e in facts.examples) >= half:
            directives.add("expected_actual")
    drop_p = min(0.9, max(0.0, 0.6 * (temperature - 1.0)))
    for name in sorted(directives):
        if rng.random() < drop_p:  # a hot sampler forgets instructions
            directives.discard(name)
    return directives


def write_statement(context: dict, instructions: str, temperature: float = 0.7, top_p: float = 1.0,
                    max_tokens: int = 1024) -> dict:
    """An issue-style ``{"problem_statement", "hints_text"}`` following the instruction directives."""
    rng = seeded_rng("write_statement", context, instructions, temperature, top_p, max_tokens)
    facts = _facts(context)
    directives = _effective_directives(facts, instructions, temperature, rng)
    angle = "different_angle" in directives
    phr = _Phraser(rng, temperature, top_p, reverse=angle)
    checks = facts.checks[::-1] if angle else facts.checks
    fn0 = facts.functions[0]["name"] if facts.functions else ""
    fallback = f"`{fn0}` does not behave as expected" if fn0 else "the behaviour is wrong"
    values = {
        "repo": facts.repo,
        "symptom": _symptom(facts.kind, facts.verb, facts.rest, fallback),
        "request": _request(facts.kind, facts.verb, facts.rest, facts.subject) or fallback,
    }
    strategy = facts.strategy if facts.strategy in _TITLES else "BUG_FIX"
    concise, detailed = "concise" in directives, "detailed" in directives

    sections = [_fmt(phr.pick(_TITLES[strategy]), values)]
    opening = _fmt(phr.pick(_OPENINGS[strategy]), values)
    if angle and fn0:
        opening = f"From the point of view of code calling `{fn0}`: {opening[:1].lower()}{opening[1:]}"
    body = body_sentences(str(context.get("commit_body") or ""), "no_leak" in directives)
    body = body[: 0 if concise else 5 if detailed else 2]
    sections.append(" ".join([opening, *body]))

    if "name_function" in directives or strategy == "REFACTOR":
        sections.append(_functions_section(facts, phr, api=strategy == "REFACTOR"))
    if strategy == "TEST_DRIVEN":
        sections.append(_spec_section(facts, checks))
    if "reproduce" in directives:
        sections.append(_repro_section(checks, phr, facts, limit=1 if concise else 3))
    if "expected_actual" in directives:
        sections.append(_expected_actual_section(checks, strategy, values))
    if "test_behaviour" in directives and checks and strategy != "TEST_DRIVEN":
        sections.append("The failing tests check that:\n" + "\n".join(
            f"- {c.test_name}: {_check_sentence(c)}." for c in checks[:5]))
    if "name_tests" in directives and checks and strategy != "TEST_DRIVEN":
        sections.append("Failing tests:\n" + "\n".join(f"- `{c.test_id}`" for c in checks[:3 if concise else 10]))
    if detailed:
        files = sorted({str(f.get("file")) for f in facts.functions if f.get("file")})
        where = f" The code involved lives in {', '.join(f'`{f}`' for f in files)}." if files else ""
        sections.append(f"Additional context: this affects {facts.repo}.{where} "
                        "Anyone relying on this behaviour gets wrong results until it is fixed.")
    if "no_leak" not in directives:
        sections.append(_suggested_fix(facts.added_lines, phr, rng))

    statement = "\n\n".join(s for s in sections if s)
    if "no_leak" in directives:
        statement = _strip_leaks(statement, facts.added_lines)
    budget = max(4, int(max_tokens * WORDS_PER_TOKEN) - JSON_OVERHEAD_WORDS)
    statement = _cap_words(statement, budget)
    hints = ""
    left = budget - _word_count(statement)
    if "hint" in directives and left >= 5:
        hints = _cap_words(_hints(facts, checks, phr), min(40, left))
    return {"problem_statement": statement, "hints_text": hints}


def _functions_section(facts: _Facts, phr: _Phraser, api: bool) -> str:
    if not facts.functions:
        return ""
    fns = facts.functions[:3]
    if api:
        return "The new API should provide:\n" + "\n".join(
            f"- `{_signature(f)}` in `{f.get('file', '?')}`" for f in fns)
    template = phr.pick(_FUNCTION_LINES)
    return " ".join(template.format(name=f["name"], signature=_signature(f), file=f.get("file", "?"))
                    for f in fns)


def _spec_section(facts: _Facts, checks: list[Check]) -> str:
    if not checks:
        return ""
    spec = [f"- {_check_sentence(c)}." for c in checks[:6] if c.kind != "raw"]
    tests = [f"- `{c.test_id}`" for c in checks]
    head = ["Specification:", *spec, ""] if spec else []
    return "\n".join([*head, "Tests that must pass:", *tests])


def _repro_section(checks: list[Check], phr: _Phraser, facts: _Facts, limit: int) -> str:
    head = phr.pick(_REPRO_HEADS)
    steps: list[str] = []
    for check in checks[:limit]:
        if check.kind == "compare":
            steps += [f"Call `{check.call}`.", f"It should {_OP_PHRASE.get(check.op, 'return')} `{check.expected}`."]
        elif check.kind == "raises":
            steps += [f"Call `{check.call}`.", f"It should raise `{check.expected}`."]
        elif check.kind == "truthy":
            steps += [f"Evaluate `{check.call}`.", f"It should be {check.expected}."]
        else:
            steps.append(f"Run `{check.test_id}`; it checks `{check.call}`.")
    if not steps:
        fn = facts.functions[0]["name"] if facts.functions else facts.repo
        steps = [f"Use `{fn}` as described above.", "Observe the wrong result."]
    return head + "\n" + "\n".join(f"{i}. {s}" for i, s in enumerate(steps, 1))


def _expected_actual_section(checks: list[Check], strategy: str, values: dict[str, str]) -> str:
    usable = [c for c in checks if c.kind != "raw"]
    if usable:
        c = usable[0]
        expected = _capitalize(_check_sentence(c)) + "."
        actual = _capitalize(_actual_sentence(c, strategy))
    else:
        expected = f"{_capitalize(values['request'])} works as described."
        actual = _capitalize(values["symptom"]) + "."
    return f"Expected behaviour: {expected}\nActual behaviour: {actual}"


def _suggested_fix(added_lines: list[str], phr: _Phraser, rng: random.Random) -> str:
    """What a careless writer adds when nobody forbade it: a few lines of the gold patch."""
    candidates = [i for i, ln in enumerate(added_lines) if _nontrivial(ln)]
    if not candidates:
        return ""
    start = candidates[int(rng.random() * len(candidates))]
    picked = [added_lines[i] for i in candidates if i >= start][:3]
    if len(picked) < 3:
        picked = [added_lines[i] for i in candidates][-3:]
    code = textwrap.dedent("\n".join(ln.rstrip() for ln in picked))
    return f"{phr.pick(_FIX_INTROS)}\n```python\n{code}\n```"


def _hints(facts: _Facts, checks: list[Check], phr: _Phraser) -> str:
    parts = []
    if facts.functions:
        f = facts.functions[0]
        parts.append(phr.pick(_HINTS).format(name=f["name"], file=f.get("file", "?")))
    if checks:
        parts.append(f"The behaviour is exercised by `{checks[0].test_id}`.")
    return " ".join(parts) or "Start from the failing tests and the code they call."


# --------------------------------------------------------------------------- judges


def _criterion(score: float, confidence: float, reasoning: str) -> dict:
    return {"score": int(min(10, max(1, math.floor(score + 0.5)))),
            "confidence": round(min(1.0, max(0.0, confidence)), 2), "reasoning": reasoning}


_CALL_NAME = re.compile(r"\b([A-Za-z_]\w*)\s*\(")
_SYMPTOM = re.compile(r"\b(?:error|exception|raises?|returns?|wrong|incorrect|crash\w*|fails?|instead|"
                      r"should|missing|not supported|cannot|broken|unexpected)\b", re.I)


@dataclass
class StatementSignals:
    """What the judges look at in a statement, each a number in 0..1 unless counted."""

    words: int
    specificity: float
    expected_actual: float
    reproduction: float
    test_relation: float
    leak: float
    names_mentioned: list[str]
    tests_mentioned: list[str]


def _mentions(text: str, name: str) -> bool:
    return bool(name) and re.search(rf"(?<![\w]){re.escape(name)}(?![\w])", text) is not None


def statement_signals(statement: str, touched_functions: Sequence[dict], fail_to_pass: Sequence[str],
                      patch: str, test_patch: str) -> StatementSignals:
    statement = str(statement or "")
    names = [str(f.get("name")) for f in touched_functions if isinstance(f, dict) and f.get("name")]
    modules = {os.path.splitext(os.path.basename(str(f.get("file", ""))))[0]
               for f in touched_functions if isinstance(f, dict) and f.get("file")} - {""}
    named = [n for n in names if _mentions(statement, n)]
    if named:
        specificity = 1.0
    elif any(_mentions(statement, m) for m in modules):
        specificity = 0.5
    elif not names and re.search(r"`[A-Za-z_][\w.]*(?:\(|`)", statement):
        specificity = 0.5
    else:
        specificity = 0.0
    lower = statement.lower()
    ea = 1.0 if (_EXPECTED.search(statement) and re.search(r"\bactual\b|\binstead\b|\bbut (?:got|it)\b", lower)) \
        else 0.5 if "should" in lower else 0.0
    if "reproduc" in lower or ">>>" in statement or re.search(r"^\s*\d+\.\s.*\w\(", statement, re.M):
        repro = 1.0
    elif re.search(r"`[^`]*\w\([^`]*`", statement):
        repro = 0.5
    else:
        repro = 0.0
    test_names = [t.split("::")[-1].split("[")[0] for t in fail_to_pass]
    tests_mentioned = [t for t, n in zip(fail_to_pass, test_names) if t in statement or _mentions(statement, n)]
    called = set(_CALL_NAME.findall("\n".join(patch_added_lines(test_patch))))
    tested = [n for n in names if n in called]
    relation = (0.5 if tests_mentioned else 0.0) + (0.5 if any(n in named for n in tested) else 0.0)
    return StatementSignals(_word_count(statement), specificity, ea, repro, relation,
                            leaked_share(statement, patch_added_lines(patch)), named, tests_mentioned)


def _length_score(words: int) -> float:
    if words < 8:
        return 0.0
    if words < 20:
        return 0.5
    if words < 40:
        return 1.0
    if words <= 400:
        return 1.5
    return 1.0 if words <= 800 else 0.5


def _patch_shape(patch: str) -> tuple[int, int, int]:
    """(changed lines, hunks, files) of a unified diff."""
    lines = len(patch_added_lines(patch)) + len(patch_removed_lines(patch))
    hunks = sum(1 for ln in patch.splitlines() if ln.startswith("@@"))
    files = sum(1 for ln in patch.splitlines() if ln.startswith("+++ ")) or (1 if lines else 0)
    return lines, hunks, files


def judge_quality(context: dict) -> dict:
    """SWE-MERA's four criteria scored by the rubric in the module docstring."""
    statement = str(context.get("problem_statement") or "")
    patch, test_patch = str(context.get("patch") or ""), str(context.get("test_patch") or "")
    f2p = [str(t) for t in (context.get("fail_to_pass") or [])]
    fns = [f for f in (context.get("touched_functions") or []) if isinstance(f, dict)]
    sig = statement_signals(statement, fns, f2p, patch, test_patch)
    leak_penalty = 3 + 4 * sig.leak if sig.leak > 0 else 0.0
    task = (2 + 2 * sig.specificity + 1.5 * sig.expected_actual + 1.5 * sig.reproduction
            + 1.5 * sig.test_relation + _length_score(sig.words) - leak_penalty)
    task_reason = (f"names {len(sig.names_mentioned)} of {len(fns)} touched functions; "
                   f"expected/actual {sig.expected_actual:g}; reproduction {sig.reproduction:g}; "
                   f"relation to tests {sig.test_relation:g}; {sig.words} words; "
                   + (f"quotes {sig.leak:.0%} of the gold patch's added lines (leak)" if sig.leak
                      else "no overlap with the gold patch"))
    test_added = patch_added_lines(test_patch)
    asserts = sum(1 for ln in test_added if re.search(r"\bassert|pytest\.raises|\.assert\w+\(", ln))
    calls_touched = any(f.get("name") in set(_CALL_NAME.findall("\n".join(test_added))) for f in fns)
    relates = sig.test_relation > 0 or sig.reproduction > 0
    if f2p:
        test_corr = 4 + 2 * (asserts > 0) + 2 * calls_touched + 2 * relates
        test_comp = 1 + min(4, 2 * len(f2p)) + min(5, asserts)
    else:
        test_corr = test_comp = 1
    test_reason = (f"{len(f2p)} FAIL_TO_PASS tests, {asserts} asserts; tests "
                   f"{'call' if calls_touched else 'do not call'} a touched function; statement "
                   f"{'relates' if relates else 'does not relate'} to the tests")
    lines, hunks, files = _patch_shape(patch)
    complexity = 1 + min(5, int(1.5 * math.log2(1 + lines))) + min(2, max(0, hunks - 1)) + min(2, max(0, files - 1))
    test_conf = 0.85 if test_patch else 0.5
    return {
        "task_correctness": _criterion(task, 0.9 if sig.words >= 20 else 0.6, task_reason),
        "test_correctness": _criterion(test_corr, test_conf, test_reason),
        "test_completeness": _criterion(test_comp, test_conf,
                                        f"{len(f2p)} failing tests with {asserts} asserts"),
        "complexity": _criterion(complexity, 0.9 if patch else 0.3,
                                 f"{lines} changed lines in {hunks} hunks over {files} files"),
    }


def judge_semantic(context: dict) -> dict:
    """Clarity and solvability-from-the-statement-alone (rubric in the module docstring)."""
    statement = str(context.get("problem_statement") or "").strip()
    patch = str(context.get("patch") or "")
    f2p = [str(t) for t in (context.get("fail_to_pass") or [])]
    fns = [f for f in (context.get("touched_functions") or []) if isinstance(f, dict)]
    sig = statement_signals(statement, fns, f2p, patch, "")
    lines = statement.splitlines()
    has_title = len(lines) > 1 and 0 < _word_count(lines[0]) <= 15
    sentences = [s for s in re.split(r"(?<=[.!?])\s+", statement) if s.strip()]
    mean_len = sig.words / max(1, len(sentences))
    paragraphs = len([p for p in re.split(r"\n\s*\n", statement) if p.strip()])
    finished = statement.endswith((".", "!", "?", "`", ")", "```"))
    clarity = 2 + 2 * has_title + 2 * (6 <= mean_len <= 30) + 2 * sig.expected_actual + (paragraphs >= 2) + finished
    if sig.words < 8:
        clarity = min(clarity, 3)
    symptom = sig.expected_actual > 0 or bool(_SYMPTOM.search(statement))
    function_named = sig.specificity >= 1.0 or (not fns and sig.specificity > 0)
    solvability = 1 + 3 * symptom + 3 * function_named + 2 * sig.reproduction + (20 <= sig.words <= 800)
    return {
        "clarity": _criterion(clarity, 0.8 if sig.words >= 20 else 0.6,
                              f"title line {'present' if has_title else 'missing'}; {len(sentences)} sentences "
                              f"averaging {mean_len:.0f} words; {paragraphs} paragraphs; "
                              f"{'complete' if finished else 'looks cut off'}"),
        "solvability": _criterion(solvability, 0.8 if sig.words >= 20 else 0.6,
                                  f"symptom {'described' if symptom else 'missing'}; affected function "
                                  f"{'named' if function_named else 'not named'}; reproduction "
                                  f"{sig.reproduction:g}; {sig.words} words"),
    }


# --------------------------------------------------------------------------- prompt mutation

RULES: dict[str, str] = {
    "no_leak": "Never reveal the fix or quote the changed code.",
    "reproduce": "Include reproduction steps built from the failing tests.",
    "expected_actual": "State the expected behaviour and the actual behaviour.",
    "name_function": "Mention the affected function by name.",
    "different_angle": "Describe the problem from a different angle than the examples.",
    "test_behaviour": "Describe the behaviour the failing tests check.",
    "name_tests": "Name the failing tests.",
    "hint": "Add a short hint pointing to the relevant code.",
    "concise": "Keep the statement concise.",
    "detailed": "Write a detailed statement.",
    "json_only": "Return only the JSON object, with no text around it.",
}
CATEGORY_RULES: dict[str, tuple[str, ...]] = {
    "leakage": ("no_leak",),
    "vague_statement": ("reproduce", "expected_actual", "name_function"),
    "judge_reject": ("reproduce", "expected_actual", "name_function"),
    "duplicate": ("different_angle",),
    "no_f2p": ("test_behaviour", "name_tests"),
    "flaky": ("test_behaviour", "name_tests"),
    "schema": ("json_only",),
    "llm_error": ("json_only",),
    "timeout": (),
    "build_error": (),
    "patch_error": (),
    "compile_error": (),
}
_IMPROVEMENTS = ("name_function", "reproduce", "expected_actual", "hint", "name_tests", "test_behaviour")
_SUCCESS_FEATURES = {
    "reproduce": lambda s: "reproduc" in s.lower(),
    "expected_actual": lambda s: bool(_EXPECTED.search(s) and _ACTUAL.search(s)),
    "name_tests": lambda s: "failing tests:" in s.lower(),
}


def _present(prompt: str, rule: str) -> bool:
    if rule == "json_only":
        return "return only the json" in prompt.lower()
    return rule in parse_directives(prompt) or RULES[rule] in prompt


def dominant_categories(failures: Sequence[dict]) -> list[tuple[str, int]]:
    """Known categories with at least half the top count, most frequent first (at most three)."""
    order = list(CATEGORY_RULES)
    counts = Counter(str(f.get("category", "")) for f in failures if isinstance(f, dict))
    known = sorted(((c, n) for c, n in counts.items() if c in CATEGORY_RULES), key=lambda cn: (-cn[1], order.index(cn[0])))
    if not known:
        return []
    top = known[0][1]
    return [(c, n) for c, n in known if n * 2 >= top][:3]


def mutate_prompt(context: dict) -> dict:
    """Rewrite a strategy prompt by the rules for its dominant failure categories."""
    prompt = str(context.get("prompt") or "")
    failures = [f for f in (context.get("failures") or []) if isinstance(f, dict)]
    successes = [str(s) for s in (context.get("successes") or [])]
    dominant = dominant_categories(failures)
    wanted: list[str] = []
    reasons: list[str] = []
    for category, count in dominant:
        rules = CATEGORY_RULES[category]
        reasons.append(f"{category} x{count}" + ("" if rules else " (not caused by the prompt; no rule)"))
        wanted += [r for r in rules if r not in wanted]
    if not dominant:
        wanted, reason = _rules_without_failures(prompt, successes)
        reasons.append(reason)
    added = [r for r in wanted if not _present(prompt, r)]
    new_prompt = prompt
    if "concise" in added and RULES["detailed"] in new_prompt:
        new_prompt = new_prompt.replace(RULES["detailed"], "").rstrip()
    if "detailed" in added and RULES["concise"] in new_prompt:
        new_prompt = new_prompt.replace(RULES["concise"], "").rstrip()
    if added:
        new_prompt = new_prompt.rstrip() + "\n" + "\n".join(RULES[r] for r in added)
    skipped = [r for r in wanted if r not in added]
    rationale = "; ".join(reasons)
    rationale += f". Added: {', '.join(added) or 'nothing'}"
    if skipped:
        rationale += f". Already present: {', '.join(skipped)}"
    return {"prompt": new_prompt, "rationale": rationale + "."}


def _rules_without_failures(prompt: str, successes: list[str]) -> tuple[list[str], str]:
    if successes:
        shared = [r for r, has in _SUCCESS_FEATURES.items()
                  if sum(has(s) for s in successes) * 2 >= len(successes) and not _present(prompt, r)]
        if shared:
            return shared, "no failures; reinforcing structure shared by most successes"
    missing = [r for r in _IMPROVEMENTS if not _present(prompt, r)]
    if missing:
        pick = seeded_rng("improve", prompt).randrange(len(missing))
        return [missing[pick]], "no failures; adding one missing improvement"
    toggle = "detailed" if "concise" in parse_directives(prompt) else "concise"
    return [toggle], "no failures and every improvement present; varying the length"


# --------------------------------------------------------------------------- dispatch

_CONTEXT = re.compile(r"<context>(.*?)</context>", re.S)


def _text_of(message: Any) -> str:
    content = message.get("content") if isinstance(message, dict) else getattr(message, "content", "")
    if isinstance(content, list):  # content parts
        return "\n".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return str(content or "")


def split_prompt(messages: Sequence[Any]) -> tuple[str | None, str]:
    """(context JSON text or None, instruction text) of a chat.

    The context comes from the last user message that holds a block; the instructions are the
    system messages plus that message and any later user messages, without the block.
    """
    role = lambda m: m.get("role") if isinstance(m, dict) else getattr(m, "role", "")  # noqa: E731
    system = [_text_of(m) for m in messages if role(m) == "system"]
    users = [_text_of(m) for m in messages if role(m) == "user"]
    for i in range(len(users) - 1, -1, -1):
        blocks = _CONTEXT.findall(users[i])
        if blocks:
            rest = [_CONTEXT.sub(" ", users[i]), *users[i + 1:]]
            return blocks[-1], "\n".join([*system, *rest])
    return None, "\n".join([*system, *users])


def respond(messages: Sequence[Any], temperature: float = 0.7, top_p: float = 1.0,
            max_tokens: int = 1024) -> str:
    """The offline model's answer text to a chat."""
    context_text, instructions = split_prompt(messages)
    if context_text is None:
        digest = hashlib.sha256(instructions.encode()).hexdigest()[:12]
        first = next((ln.strip() for ln in instructions.splitlines() if ln.strip()), "")
        n = _word_count(instructions)
        return (f"offline model: received {n} word{'' if n == 1 else 's'} (sha256 {digest}); "
                f"no <context> block, so no task to perform. First line: {first[:80]}")
    try:
        context = json.loads(context_text)
    except json.JSONDecodeError as exc:
        return json.dumps({"error": f"the <context> block is not valid JSON: {exc}"})
    if not isinstance(context, dict):
        return json.dumps({"error": "the <context> block must hold a JSON object"})
    task = context.get("task")
    if task == "write_statement":
        result = write_statement(context, instructions, temperature, top_p, max_tokens)
    elif task == "judge_quality":
        result = judge_quality(context)
    elif task == "judge_semantic":
        result = judge_semantic(context)
    elif task == "mutate_prompt":
        result = mutate_prompt(context)
    else:
        result = {"error": f"unknown task {task!r}; expected one of {', '.join(TASKS)}"}
    return json.dumps(result, ensure_ascii=False)


def _number(params: dict, key: str, default: float) -> float:
    value = params.get(key)
    return default if value is None else float(value)


class OfflineLLM(litellm.CustomLLM):
    """litellm provider for ``offline/<name>`` models: answers with :func:`respond`, zero cost."""

    def completion(self, model: str, messages: list, api_base: str, custom_prompt_dict: dict,
                   model_response: litellm.ModelResponse, print_verbose: Any, encoding: Any, api_key: Any,
                   logging_obj: Any, optional_params: dict, *args: Any, **kwargs: Any) -> litellm.ModelResponse:
        params = optional_params or {}
        text = respond(messages, temperature=_number(params, "temperature", 0.7),
                       top_p=_number(params, "top_p", 1.0), max_tokens=int(_number(params, "max_tokens", 1024)))
        prompt_chars = sum(len(_text_of(m)) for m in messages)
        model_response.choices[0].message.content = text  # type: ignore[union-attr]
        model_response.choices[0].finish_reason = "stop"
        model_response.model = f"offline/{model}"
        prompt_tokens, completion_tokens = max(1, prompt_chars // 4), max(1, len(text) // 4)
        setattr(model_response, "usage", LiteLLMUsage(prompt_tokens=prompt_tokens, completion_tokens=completion_tokens,
                                                      total_tokens=prompt_tokens + completion_tokens))
        return model_response

    async def acompletion(self, *args: Any, **kwargs: Any) -> litellm.ModelResponse:  # type: ignore[override]
        return self.completion(*args, **kwargs)
