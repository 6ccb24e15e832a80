"""The offline judges: rule-based scores for a problem statement and its task.

Quality judge rubric (``judge_quality``; scores clamped to 1..10, rounded half up)
---------------------------------------------------------------------------------
* task_correctness = 1.5 + 2 specificity + 1.5 expected/actual + 1.5 reproduction
  + 1.5 test relation + length (0..1.5) + 1.5 concreteness - 4 boilerplate - leak penalty
  (3 + 4 x the leak score of :func:`llm.leakage.leak_report`, 0 without a leak).
  boilerplate (0..1) = 0.4 per template phrase ("does not behave as expected", "observe the
  wrong result", "works as described", placeholders, "this PR", ...) + 0.5 per empty code span
  (`````` or ``f(, )``) + 0.6 when the title is restated (as expected/actual, or expected and
  actual saying the same, or a body sentence repeating it); concreteness (0..1) = (code spans
  holding a literal or arguments + 2 per code block with a value + distinct error names) / 3.
  An expected/actual pair that restates the title or holds nothing concrete counts 0.5; steps
  without anything concrete count as no reproduction.
  specificity: 1 a touched function is named, 0.5 only its file/module; reproduction: 1 for
  "reproduc"/``>>>``/numbered steps with a call, 0.5 for an inline call; test relation: 0.5 a
  failing test's name, 0.5 a function the tests call; length: <8 words 0, <20 0.5, <40 1,
  <=400 1.5, <=800 1, longer 0.5.
* checks (``count_checks``): the checks the test patch adds -- ``assert``, ``with
  pytest.raises/warns(...)`` and ``pytest.deprecated_call``, unittest ``self.assert*`` and
  ``self.fail``, ``pytest.fail``, calls of the helpers the test patch defines that assert, and,
  without any of those, bare calls of plain-named helpers (``ck(a, b)``); with the failure
  evidence of the functional layer (``failures``), at least the failing check of each test and
  the checks that passed before it (a test whose changed lines hold no assert still checks).
* test_correctness = 1 without FAIL_TO_PASS, else 4 + 2 checks in the test patch + 2 the
  tests call a touched function + 2 the statement relates to the tests.
* test_completeness = 1 without FAIL_TO_PASS, else 1 + min(4, 2 x #F2P) + min(5, #checks).
* complexity = 1 + min(5, floor(1.5 log2(1 + changed lines))) + min(2, hunks - 1)
  + min(2, files - 1).

Semantic judge (``judge_semantic``)
-----------------------------------
* clarity = 2 + 2 title line + 2 sentence length 6..30 words + 1 expected/actual
  + 1 concreteness + 1 two or more paragraphs + 1 not cut off - 5 boilerplate; at most 3
  below 8 words.
* solvability = 1 + 2 symptom described + 2 concreteness + 2 affected function named
  + 2 reproduction + 1 length 20..800 words - 3 boilerplate, then, with the failure evidence
  (``failures``: per failing test its failing check, expected value and the checks that passed
  before it), minus 4 when a reproduction uses names it never defines (not builtins, not
  imported or defined in the statement's code, not in ``known_names``), minus 4 when the
  statement quotes a check that passes on the buggy code, minus 3 when it omits the value the
  failing assertion requires.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass

from records import FailureEvidence, function_of_test

from ..leakage import leak_report
from ..markdown import is_path
from ..python_source import unparse
from .directives import _EXPECTED
from .evidence import failures_of
from .text import _word_count, patch_added_lines, patch_removed_lines


def _criterion(score: float, confidence: float, reasoning: str) -> dict:
    return {
        "score": int(min(10, max(1, math.floor(score + 0.5)))),
        "confidence": round(min(1.0, max(0.0, confidence)), 2),
        "reasoning": reasoning,
    }


_CALL_NAME = re.compile(r"\b([A-Za-z_]\w*)\s*\(")
_SYMPTOM = re.compile(
    r"\b(?:error|exception|raises?|returns?|wrong|incorrect|crash\w*|fails?|instead|"
    r"should|missing|not supported|cannot|broken|unexpected)\b",
    re.I,
)


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
    boilerplate: float = 0.0  # template filler, empty code spans, the title restated
    concreteness: float = 0.0  # concrete inputs, outputs and errors
    boilerplate_kinds: tuple[str, ...] = ()


# Phrases that fill a statement without saying anything about this task.
_TEMPLATE = re.compile(
    r"does not behave as expected|the behaviou?r is wrong|observe the wrong result|as described above|"
    r"works as described|is not handled correctly|please (?:look into it|fix)|\bthis (?:pr|commit|change|patch)\b|"
    r"signed-off-by|\btodo\b|\bn/a\b|<[a-z][^<>\n]{0,30}>|\{[a-z_]+\}|\(#\d+\)|has a problem with|"
    r"\bthe code does not\b|\bis needed\.|doesn'?t work right|\bsomething is (?:wrong|broken)\b",
    re.I,
)
_EMPTY_CODE = re.compile(r"``|`[ \t]+`|\(\s*,[\s,]*\)")
_EXPECTED_LINE = re.compile(r"^\s*expected(?: behaviou?r)?\s*:\s*(.*)$", re.I | re.M)
_ACTUAL_LINE = re.compile(r"^\s*actual(?: behaviou?r)?\s*:\s*(.*)$", re.I | re.M)
_CONCRETE_SPAN = re.compile(r"`[^`\n]*(?:\d|'|\"|\[|\w\([^)`]+\)|\b(?:True|False|None)\b)[^`\n]*`")
_ERROR_NAME = re.compile(r"\b[A-Z]\w*(?:Error|Exception|Warning)\b")


def _words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9]+", text.lower()) if len(w) > 2}


def _overlap(a: str, b: str) -> float:
    wa, wb = _words(a), _words(b)
    return len(wa & wb) / len(wa | wb) if wa and wb else 0.0


def _boilerplate(statement: str) -> tuple[float, tuple[str, ...]]:
    """How much of the statement is filler (0..1) and which kinds were found."""
    prose = re.sub(r"```.*?(?:```|$)", " ", statement, flags=re.S)
    kinds: list[str] = []
    templates = len(_TEMPLATE.findall(re.sub(r"`[^`\n]+`", " ", prose)))  # code may hold <tags> or {braces}
    empty = len(_EMPTY_CODE.findall(prose))
    lines = [ln for ln in statement.splitlines() if ln.strip()]
    title = lines[0] if lines else ""
    expected = [m.group(1) for m in _EXPECTED_LINE.finditer(statement)]
    actual = [m.group(1) for m in _ACTUAL_LINE.finditer(statement)]
    # whole sentences: the part after a colon is no sentence of its own (quoting the failure the
    # title names, "... ends in the test's own failure: `X`", restates nothing)
    sentences = [x for x in re.split(r"(?<=[.!?])\s+|\n+", "\n".join(lines[1:])) if x.strip()]
    restated = (
        any(_overlap(e, a) >= 0.5 for e in expected for a in actual)
        or any(_overlap(x, title) >= 0.6 for x in expected + actual)
        or sum(_overlap(x, title) >= 0.6 for x in sentences) >= 1
    )
    if templates:
        kinds.append(f"{templates} template phrase{'s' if templates > 1 else ''}")
    if empty:
        kinds.append(f"{empty} empty code span{'s' if empty > 1 else ''}")
    if restated:
        kinds.append("title restated")
    return min(1.0, 0.4 * templates + 0.5 * empty + 0.6 * restated), tuple(kinds)


def _concreteness(statement: str) -> float:
    """Concrete inputs, outputs and errors: code spans with literals or arguments, error names."""
    spans = len(_CONCRETE_SPAN.findall(statement))
    blocks = len(re.findall(r"```[^\n]*\n(?:(?!```).)*?(?:\d|\w\()(?:(?!```).)*?```", statement, flags=re.S))
    errors = len(set(_ERROR_NAME.findall(statement)))
    return min(1.0, (spans + 2 * blocks + errors) / 3)


def _mentions(text: str, name: str) -> bool:
    return bool(name) and re.search(rf"(?<![\w]){re.escape(name)}(?![\w])", text) is not None


def statement_signals(
    statement: str,
    touched_functions: Sequence[dict],
    fail_to_pass: Sequence[str],
    patch: str,
    test_patch: str,
    tests_code: Sequence[str] = (),
) -> StatementSignals:
    statement = str(statement or "")
    names = [str(f.get("name")) for f in touched_functions if isinstance(f, dict) and f.get("name")]
    modules = {
        os.path.splitext(os.path.basename(str(f.get("file", ""))))[0]
        for f in touched_functions
        if isinstance(f, dict) and f.get("file")
    } - {""}
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
    filler, filler_kinds = _boilerplate(statement)
    concrete = _concreteness(statement)
    ea = (
        1.0
        if (_EXPECTED.search(statement) and re.search(r"\bactual\b|\binstead\b|\bbut (?:got|it)\b", lower))
        else 0.5
        if "should" in lower
        else 0.0
    )
    if "title restated" in filler_kinds or concrete == 0:
        ea = min(ea, 0.5)  # an expected/actual pair that says nothing concrete is a form, not content
    if concrete == 0:
        repro = 0.0  # steps without a concrete call or value reproduce nothing
    elif "reproduc" in lower or ">>>" in statement or re.search(r"^\s*\d+\.\s.*\w\(", statement, re.M):
        repro = 1.0
    elif re.search(r"`[^`]*\w\([^`]*`", statement):
        repro = 0.5
    else:
        repro = 0.0
    test_names = [function_of_test(t) for t in fail_to_pass]
    tests_mentioned = [t for t, n in zip(fail_to_pass, test_names) if t in statement or _mentions(statement, n)]
    called = set(_CALL_NAME.findall("\n".join(patch_added_lines(test_patch))))
    tested = [n for n in names if n in called]
    relation = (0.5 if tests_mentioned else 0.0) + (0.5 if any(n in named for n in tested) else 0.0)
    return StatementSignals(
        _word_count(statement),
        specificity,
        ea,
        repro,
        relation,
        leak_report(statement, patch, test_patch, tests_code).score,
        named,
        tests_mentioned,
        filler,
        concrete,
        filler_kinds,
    )


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


_ASSERT = re.compile(
    r"^\s*assert\b|\bpytest\.(?:raises|warns|deprecated_call|fail|approx)\b|\.assert\w*\(|\bself\.fail\(|"
    r"\bassert_\w+\(|^\s*(?:async\s+)?with\s+(?:self\.)?assert(?:Raises|Warns|Logs)\w*\("
)
_HELPER_CALL = re.compile(r"^\s*([A-Za-z_]\w*)\(.*\)\s*$")  # a bare call of a plain name: ck(a, b)
_DEF = re.compile(r"^(\s*)(?:async\s+)?def\s+(\w+)\s*\(")


def _asserting_helpers(test_lines: Sequence[str]) -> set[str]:
    """Functions defined in the lines whose own body asserts (not tests)."""
    helpers, current, indent = set(), "", -1
    for ln in test_lines:
        m = _DEF.match(ln)
        if m:
            current, indent = m.group(2), len(m.group(1))
            continue
        if current and ln.strip() and len(ln) - len(ln.lstrip()) <= indent:
            current = ""
        if current and not current.startswith("test") and _ASSERT.search(ln):
            helpers.add(current)
    return helpers


def count_checks(test_lines: Sequence[str], failures: Sequence[FailureEvidence] = ()) -> int:
    """The checks in the lines (see the module docstring); with failure evidence, at least the
    failing check of each failing test and the checks that passed before it."""
    helpers = _asserting_helpers(test_lines)
    calls = re.compile(rf"\b(?:self\.)?(?:{'|'.join(map(re.escape, sorted(helpers)))})\(") if helpers else None
    in_helper, indent = False, -1
    asserts = 0
    for ln in test_lines:
        m = _DEF.match(ln)
        if m:
            in_helper, indent = m.group(2) in helpers, len(m.group(1))
            continue
        if in_helper and ln.strip() and len(ln) - len(ln.lstrip()) <= indent:
            in_helper = False
        if in_helper:
            continue  # a helper's own asserts count where it is called
        if _ASSERT.search(ln) or (calls is not None and calls.search(ln)):
            asserts += 1
    if not asserts:
        asserts = sum(
            1 for ln in test_lines if (m := _HELPER_CALL.match(ln)) and m.group(1) not in ("print", "breakpoint")
        )
    evident = sum(
        (1 if f.kind in ("compare", "truthy", "raises") or f.check else 0) + len(f.passed_checks or [])
        for f in failures
    )
    return max(asserts, evident)


def touched_functions(context: dict) -> list[dict]:
    """The context's touched functions as dicts: a writer's context gives signatures
    ({"name", "file", "signature"}), a validator's the bare names."""
    items = context.get("touched_functions") or []
    return [f if isinstance(f, dict) else {"name": f} for f in items if isinstance(f, (dict, str)) and f]


def judge_quality(context: dict) -> dict:
    """SWE-MERA's four criteria scored by the rubric in the module docstring."""
    statement = str(context.get("problem_statement") or "")
    patch, test_patch = str(context.get("patch") or ""), str(context.get("test_patch") or "")
    f2p = [str(t) for t in (context.get("fail_to_pass") or [])]
    fns = touched_functions(context)
    tests_code = [code for f in failures_of(context) for code in (f.reproduction, f.rest) if code]
    sig = statement_signals(statement, fns, f2p, patch, test_patch, tests_code)
    leak_penalty = 3 + 4 * sig.leak if sig.leak > 0 else 0.0
    task = (
        1.5
        + 2 * sig.specificity
        + 1.5 * sig.expected_actual
        + 1.5 * sig.reproduction
        + 1.5 * sig.test_relation
        + _length_score(sig.words)
        + 1.5 * sig.concreteness
        - 4 * sig.boilerplate
        - leak_penalty
    )
    task_reason = (
        f"names {len(sig.names_mentioned)} of {len(fns)} touched functions; "
        f"expected/actual {sig.expected_actual:g}; reproduction {sig.reproduction:g}; "
        f"relation to tests {sig.test_relation:g}; concreteness {sig.concreteness:.2f}; "
        + (f"boilerplate: {', '.join(sig.boilerplate_kinds)}; " if sig.boilerplate_kinds else "")
        + f"{sig.words} words; "
        + (
            f"quotes {sig.leak:.0%} of the gold patch's added lines (leak)"
            if sig.leak
            else "no overlap with the gold patch"
        )
    )
    test_added = patch_added_lines(test_patch)
    asserts = count_checks(test_added, failures_of(context))
    calls_touched = any(f.get("name") in set(_CALL_NAME.findall("\n".join(test_added))) for f in fns)
    relates = sig.test_relation > 0 or sig.reproduction > 0
    if f2p:
        test_corr = 4 + 2 * (asserts > 0) + 2 * calls_touched + 2 * relates
        test_comp = 1 + min(4, 2 * len(f2p)) + min(5, asserts)
    else:
        test_corr = test_comp = 1
    test_reason = (
        f"{len(f2p)} FAIL_TO_PASS tests, {asserts} asserts; tests "
        f"{'call' if calls_touched else 'do not call'} a touched function; statement "
        f"{'relates' if relates else 'does not relate'} to the tests"
    )
    lines, hunks, files = _patch_shape(patch)
    complexity = 1 + min(5, int(1.5 * math.log2(1 + lines))) + min(2, max(0, hunks - 1)) + min(2, max(0, files - 1))
    test_conf = 0.85 if test_patch else 0.5
    return {
        "task_correctness": _criterion(task, 0.9 if sig.words >= 20 else 0.6, task_reason),
        "test_correctness": _criterion(test_corr, test_conf, test_reason),
        "test_completeness": _criterion(test_comp, test_conf, f"{len(f2p)} failing tests with {asserts} asserts"),
        "complexity": _criterion(
            complexity, 0.9 if patch else 0.3, f"{lines} changed lines in {hunks} hunks over {files} files"
        ),
    }


def judge_semantic(context: dict) -> dict:
    """Clarity and solvability-from-the-statement-alone (rubric in the module docstring)."""
    statement = str(context.get("problem_statement") or "").strip()
    patch = str(context.get("patch") or "")
    f2p = [str(t) for t in (context.get("fail_to_pass") or [])]
    fns = touched_functions(context)
    sig = statement_signals(statement, fns, f2p, patch, "")
    lines = statement.splitlines()
    has_title = len(lines) > 1 and 0 < _word_count(lines[0]) <= 15
    prose = re.sub(r"```.*?(?:```|$)", " ", statement, flags=re.S)  # a reproduction is no sentence
    sentences = [s for s in re.split(r"(?<=[.!?])\s+", prose) if s.strip()]
    mean_len = _word_count(prose) / max(1, len(sentences))
    paragraphs = len([p for p in re.split(r"\n\s*\n", statement) if p.strip()])
    finished = statement.endswith((".", "!", "?", "`", ")", "```"))
    clarity = (
        2
        + 2 * has_title
        + 2 * (6 <= mean_len <= 30)
        + 1 * sig.expected_actual
        + 1 * sig.concreteness
        + (paragraphs >= 2)
        + finished
        - 5 * sig.boilerplate
    )
    if sig.words < 8:
        clarity = min(clarity, 3)
    symptom = sig.expected_actual > 0 or bool(_SYMPTOM.search(statement))
    function_named = sig.specificity >= 1.0 or (not fns and sig.specificity > 0)
    solvability = (
        1
        + 2 * symptom
        + 2 * sig.concreteness
        + 2 * function_named
        + 2 * sig.reproduction
        + (20 <= sig.words <= 800)
        - 3 * sig.boilerplate
    )
    failures = failures_of(context)
    known = {str(n) for n in (context.get("known_names") or [])} | {str(f.get("name")) for f in fns}
    defects = evidence_defects(statement, failures, known) if failures else {}
    solvability -= (
        4 * bool(defects.get("unbound")) + 4 * bool(defects.get("passing")) + 3 * bool(defects.get("omitted"))
    )
    return {
        "clarity": _criterion(
            clarity,
            0.8 if sig.words >= 20 else 0.6,
            f"title line {'present' if has_title else 'missing'}; {len(sentences)} sentences "
            f"averaging {mean_len:.0f} words; {paragraphs} paragraphs; "
            f"{'complete' if finished else 'looks cut off'}"
            + (f"; boilerplate: {', '.join(sig.boilerplate_kinds)}" if sig.boilerplate_kinds else ""),
        ),
        "solvability": _criterion(
            solvability,
            0.8 if sig.words >= 20 else 0.6,
            f"symptom {'described' if symptom else 'missing'}; affected function "
            f"{'named' if function_named else 'not named'}; reproduction "
            f"{sig.reproduction:g}; concreteness {sig.concreteness:.2f}; {sig.words} words"
            + "".join(f"; {_DEFECT_TEXT[k]}: {', '.join(v[:3])}" for k, v in defects.items() if v),
        ),
    }


_DEFECT_TEXT = {
    "unbound": "the reproduction uses names it never defines",
    "passing": "it quotes a check that passes on the buggy code",
    "omitted": "it omits the value the failing check requires",
}


def _code_spans(statement: str) -> list[tuple[str, str]]:
    """(kind, code) of the statement's Python blocks ("block") and inline spans ("inline")."""
    spans = [
        ("block", body)
        for lang, body in re.findall(r"```([\w+-]*)[^\n]*\n(.*?)```", statement, flags=re.S)
        if lang.lower() in ("", "python", "py", "pycon", "python3")
    ]
    prose = re.sub(r"```.*?(?:```|$)", " ", statement, flags=re.S)
    return spans + [("inline", s) for s in re.findall(r"`([^`\n]+)`", prose) if not is_path(s)]


def _parsed(code: str):
    import ast
    import textwrap

    code = "\n".join(ln[4:] if ln.startswith((">>> ", "... ")) else ln for ln in code.splitlines())
    try:
        return ast.parse(textwrap.dedent(code))
    except (SyntaxError, ValueError):
        return None


def _names(tree) -> tuple[set[str], set[str]]:
    """(bound, used) names of a parsed snippet."""
    import ast

    bound, used = set(), set()
    augmented = {id(n.target) for n in ast.walk(tree) if isinstance(n, ast.AugAssign)}  # `x += 1` binds nothing new
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and id(node) not in augmented:
            (used if isinstance(node.ctx, ast.Load) else bound).add(node.id)
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            used.add(node.target.id)  # `x += 1` reads x
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            a = node.args
            bound |= {x.arg for x in [*a.posonlyargs, *a.args, *a.kwonlyargs]}
            bound |= {x.arg for x in (a.vararg, a.kwarg) if x is not None}
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            bound |= {(al.asname or al.name).split(".")[0] for al in node.names}
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
    return bound, used


def _computes(tree) -> bool:
    """An inline span that computes (a call, an operator): not a bare name or a literal."""
    import ast

    body = tree.body
    if len(body) != 1 or not isinstance(body[0], ast.Expr):
        return True
    return not isinstance(body[0].value, (ast.Name, ast.Attribute, ast.Constant))


def _normal(code: str) -> str:
    import ast

    code = re.sub(r"^\s*assert\s+", "", str(code).strip())
    try:
        return unparse(ast.parse(code, mode="eval"))
    except (SyntaxError, ValueError):
        return " ".join(code.split())


def printed_names(failures: Sequence[FailureEvidence]) -> set[str]:
    """The names in the values the test run printed (`OrderedMultiDict([...])`, `tzutc()`): a
    statement quoting such a value as a repr reads names of the project, not unbound ones."""
    return {
        name
        for f in failures
        for name in re.findall(r"[A-Za-z_]\w*", " ".join(v or "" for v in (f.observed, f.expected, f.error)))
    }


def evidence_defects(statement: str, failures: Sequence[FailureEvidence], known: set[str]) -> dict[str, list[str]]:
    """What the failure evidence shows wrong in a statement: names its reproduction never
    defines, checks it quotes that pass on the buggy code, expected values it omits."""
    import builtins

    parsed = [(kind, tree) for kind, code in _code_spans(statement) if (tree := _parsed(code)) is not None]
    defined = set(dir(builtins)) | set(known) | {"__file__"} | printed_names(failures)
    for kind, tree in parsed:
        if kind == "block":
            defined |= _names(tree)[0]
    unbound: list[str] = []
    for kind, tree in parsed:
        if kind == "inline" and not _computes(tree):
            continue
        bound, used = _names(tree)
        unbound += sorted(n for n in used - bound - defined if n not in unbound)
    quoted = {_normal(code) for _, code in _code_spans(statement)}
    quoted |= {_normal(ln) for kind, code in _code_spans(statement) if kind == "block" for ln in code.splitlines()}
    failing = {_normal(f.check or "") for f in failures}
    passing = sorted(
        {
            check
            for f in failures
            for check in (f.passed_checks or [])
            if _normal(check) not in failing and _quotes(check, quoted, statement, _normal(f.call or ""))
        }
    )
    flat = " ".join(statement.split())

    def said(expected: str) -> bool:
        inner = expected[1:-1] if expected[:1] in "'\"" and expected[-1:] == expected[:1] else ""
        return expected in flat or bool(inner and inner in flat)

    # the value a quoted failing check requires must be there; and at least one such value at all
    compared = [f for f in failures if f.kind == "compare" and 0 < len(f.expected or "") <= 80]
    omitted = [f.expected for f in compared if f.call and _normal(f.call) in quoted and not said(f.expected)]
    if compared and not any(said(f.expected) for f in compared):
        omitted = omitted or [compared[0].expected]
    return {"unbound": unbound, "passing": passing, "omitted": sorted(set(omitted))}


def _quotes(check: str, quoted: set[str], statement: str, failing_call: str = "") -> bool:
    """The statement quotes `check`: its expression as code, or its two sides as code spans
    of one paragraph ("`f(2)` ... should return `3`") -- unless a side is the very value the
    failing check observes (its values are then the failing check's, not this one's)."""
    import ast

    if _normal(check) in quoted:
        return True
    tree = _parsed(re.sub(r"^\s*assert\s+", "", check.strip()))
    test = tree.body[0].value if tree is not None and tree.body and isinstance(tree.body[0], ast.Expr) else None
    if not isinstance(test, ast.Compare) or len(test.ops) != 1:
        return False
    left, right = _normal(unparse(test.left)), _normal(unparse(test.comparators[0]))
    if failing_call and failing_call in (left, right):
        return False
    for paragraph in re.split(r"\n\s*\n", statement):
        spans = {_normal(x) for x in re.findall(r"`([^`\n]+)`", paragraph)}
        if left in spans and right in spans and left != right:
            return True
    return False
