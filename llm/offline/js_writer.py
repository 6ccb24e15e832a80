"""The offline writer for JavaScript/TypeScript tasks: an issue-style statement from the executed
failure of each failing test (`records.FailureEvidence` from `tasks/evidence/js.py`): a
reproduction in a ```js block when the test allows one, else the failing check as the test
writes it, and the value the current code gives against the one the test requires. Test names
never appear (the solver does not see the tests), except in a TEST_DRIVEN statement, whose
contract is to list them.

The context says its language (`"language": "javascript"`); Python contexts never reach this
module (`llm.offline.writer` writes them, unchanged). Directives are read as for Python
(`directives.parse_directives`); draws come from the same seeded generator."""

from __future__ import annotations

import dataclasses
import random
import re

from records import FailureEvidence, file_of_test

from ..leakage import leak_report
from .directives import _ACTUAL, _EXPECTED, parse_directives
from .evidence import failures_of
from .subject import _request, _symptom, body_sentences, clean_subject, is_vague, split_subject
from .text import _cap_words, _capitalize, _fmt, _Phraser, _strip_leaks, _word_count, and_listed, fitted, seeded_rng

LANGUAGE = "javascript"
WORDS_PER_TOKEN = 0.75
JSON_OVERHEAD_WORDS = 6
SHORT = 60

_TITLES = {
    "BUG_FIX": ["{Symptom}", "Bug: {symptom}", "Unexpected behaviour: {symptom}"],
    "FEATURE_ADD": ["Feature request: {request}", "Please add {request}", "Missing capability: {request}"],
    "REFACTOR": ["Refactor request: {request}", "API change: {request}"],
    "TEST_DRIVEN": ["Specification: {request}", "Implement: {request}"],
    "HYBRID": ["Bug and enhancement: {symptom}", "Fix and extend: {request}"],
    "SYNTHETIC": ["Regression: {symptom}", "Broken behaviour: {symptom}"],
}
_OPENINGS = {
    "BUG_FIX": [
        "The current code of {repo} gets the case below wrong.",
        "In {repo}, the code below does not do what it should.",
        "The example below goes wrong on the current code of {repo}.",
    ],
    "FEATURE_ADD": [
        "{Repo} does not offer {request} yet, and I would like to use it.",
        "Currently there is no way to get {request} from {repo}.",
    ],
    "REFACTOR": ["To keep {repo} maintainable, {request} is needed."],
    "TEST_DRIVEN": ["Implement the behaviour specified below so that the listed tests pass."],
    "HYBRID": ["In {repo}, the problem in the title needs both a fix and a small extension."],
    "SYNTHETIC": ["After a recent change, {repo} shows the problem described below."],
}
_REPRO_HEADS = ["To reproduce:", "Reproduction:", "This shows it:"]
_CHECK_HEADS = ["The failing check:", "This check fails:"]


_THROWING = {"throws", "toThrow", "toThrowError", "rejects", "rejectedWith"}


def normalized(f: FailureEvidence) -> FailureEvidence:
    """A throw check whose error did not match (`assert.throws(fn, /re/)` compared) is a throw
    check: it threw the observed error (or nothing) where another is required; the function of
    `fn.bind(...)` is `fn`."""
    changes: dict = {}
    if f.kind == "compare" and f.op in _THROWING:
        observed = (f.observed or "").strip()
        changes.update(kind="raises", observed=None if observed in ("", "undefined", '""') else f.observed)
    if f.function and re.search(r"\.(bind|call|apply)$", f.function):
        changes["function"] = f.function.rsplit(".", 1)[0]
    return dataclasses.replace(f, **changes) if changes else f


_MISSING = [  # an error that says a name does not exist, and what kind of thing the name is
    (re.compile(r"([A-Za-z_$][\w$]*) is not a function"), "function"),
    (re.compile(r"([A-Za-z_$][\w$]*) is not a constructor"), "class"),
    (re.compile(r"does not provide an export named '([\w$]+)'"), "export"),
    (re.compile(r"ReferenceError: ([A-Za-z_$][\w$]*) is not defined"), "export"),
]


def missing_api(failures: list[FailureEvidence], added: list[str]) -> tuple[str, str, FailureEvidence] | None:
    """(name, kind, failure) when a test fails because a name the fix defines does not exist
    yet (`x.allowExcessArguments is not a function` and the fix adds `allowExcessArguments(...) {`):
    the change adds behaviour, and the statement asks for it instead of reporting a crash."""
    fix = "\n".join(added)
    for pattern, kind in _MISSING:
        for f in failures:
            match = pattern.search(f"{f.error or ''}\n{f.observed or ''}")
            if not match:
                continue
            name = re.escape(match.group(1))
            defines = (
                rf"(?:function\*?\s+|class\s+|(?:const|let|var)\s+){name}\b"
                rf"|^\s*(?:async\s+|static\s+|get\s+|set\s+)*{name}\s*\([^)]*\)\s*(?::[^{{]+)?\{{"
                rf"|(?:exports|this|prototype)\.{name}\s*="
                rf"|export\s*\{{[^}}]*\b{name}\b"
            )
            if re.search(defines, fix, flags=re.M):
                return match.group(1), kind, f
    return None


API_CALLS_LISTED = 12


def api_calls(name: str, failures: list[FailureEvidence]) -> list[str]:
    """The calls of the missing `name` that threw in the failing tests, each once, as the tests
    make them (`program.error('Goodbye', { exitCode: 2 })`): its signature by example."""
    calls = [
        f.call
        for f in failures
        if f.call and f.function and f.function.rsplit(".", 1)[-1] == name and len(f.call) <= 120
    ]
    return list(dict.fromkeys(calls))[:API_CALLS_LISTED]


_STRING = re.compile(r"'[^'\n]*'|\"[^\"\n]*\"")


def by_new_values(failures: list[FailureEvidence]) -> list[FailureEvidence]:
    """The failures reordered so that each next one brings the most string values (an error
    message, a code) that none before it holds: the examples a cap lets through state every
    distinct value the tests require before they repeat one."""
    rest, ordered, seen = list(failures), [], set()
    while rest:
        best = max(rest, key=lambda f: len(set(_STRING.findall(f.reproduction or "")) - seen))
        ordered.append(best)
        seen |= set(_STRING.findall(best.reproduction or ""))
        rest.remove(best)
    return ordered


def is_js_context(context: dict) -> bool:
    return context.get("language") == LANGUAGE


def _span(text: str) -> str:
    return f"`{_value(str(text)).replace('`', chr(39))}`"


def _value(text: str) -> str:
    """A value as a statement quotes it: an error's first line, never its stack."""
    return text.split("\n")[0].rstrip() if re.search(r"\n\s+at ", text) else text


def _short(text: str | None, limit: int = SHORT) -> bool:
    return bool(text) and len(_value(str(text))) <= limit and "\n" not in _value(str(text))


def _subject_of(f: FailureEvidence) -> str:
    """What the statement calls the code under test: the call when it stands alone, else the function."""
    if f.call and not f.unbound and _short(f.call, 48) and "=>" not in f.call and "function" not in f.call:
        if _reads_project(f.call, f.entry_point):
            return _span(f.call)
    if f.function:
        return _span(f.function)
    return "the checked value"


def _reads_project(call: str, entry_point: str | None) -> bool:
    """A call, or a property read from the project's own name; a property of a test's local
    (`caughtErr.code`) names nothing a solver finds in the repository, so no title names it."""
    if "(" in call:
        return True
    root, entry_root = (re.match(r"[\w$]*", text or "").group(0) for text in (call, entry_point))
    return bool(root) and root == entry_root


# a check's operator or matcher -> how a sentence says the value fails it ("gives X {relation} Y")
_RELATIONS = {
    "!=": "which should differ from",
    "toContain": "which does not contain",
    "include": "which does not include",
    "includes": "which does not include",
    "toMatch": "which does not match",
    "match": "which does not match",
    "toMatchObject": "which does not match",
    "toBeInstanceOf": "which is not an instance of",
    "instanceOf": "which is not an instance of",
    "instanceof": "which is not an instance of",
    "toHaveProperty": "which lacks the property",
    "<": "which should be below",
    "<=": "which should be at most",
    ">": "which should be above",
    ">=": "which should be at least",
}


def _relation(op: str | None) -> str:
    """How a sentence puts a value against the required one; a matcher the table does not know
    is an equality (the runner compares the two values it printed)."""
    return _RELATIONS.get(op or "", "where the check requires")


def symptom(f: FailureEvidence, fallback: str) -> str:
    """A title from the executed failure: the call and the value it gives against the one required."""
    name = _subject_of(f)
    # the commit's words only when the evidence bears them out: they name the checked function or value
    confirmed = bool(fallback) and _confirms(f, fallback)
    if name == "the checked value":
        if f.error and f.kind != "compare" and _short(f.error, 100):
            return f"The code below throws {_span(f.error)}"
        if confirmed:
            return fallback
        entry = f.entry_point or ""  # read from the reproduction's parsed imports (tasks/evidence/js.py)
        if f.kind == "compare" and _short(f.observed, 40) and _short(f.expected, 40):
            where = f" from {_span(entry)}" if entry else ""
            return f"The result{where} is {_span(f.observed)} where {_span(f.expected)} is expected"
        if entry:
            return f"{_span(entry)} gives a result that differs from the expected one"
        return "The result differs from what is expected"
    if f.kind == "raises":
        wanted = f" {_span(f.expected)}" if _short(f.expected) else ""
        if f.observed and _short(f.observed):
            return f"{name} throws {_span(f.observed)} instead of{wanted or ' the required error'}"
        return f"{name} does not throw{wanted}" if not f.observed else f"{name} throws the wrong error"
    if f.kind == "compare" and _short(f.observed, 40) and _short(f.expected, 40):
        if (f.op or "==") in _RELATIONS:
            return f"{name} gives {_span(f.observed)}, {_relation(f.op)} {_span(f.expected)}"
        return f"{name} gives {_span(f.observed)} where {_span(f.expected)} is expected"
    if f.error and not f.kind == "compare":
        return f"{name} throws {_span(f.error.split(':')[0])}"
    if confirmed:
        return fallback
    return f"{name} gives a wrong result"


def _confirms(f: FailureEvidence, text: str) -> bool:
    """`text` (a commit's subject) names the checked function, or one of the checked values."""
    if f.function and re.search(rf"\b{re.escape(f.function.split('.')[-1])}\b", text):
        return True
    values = [v.strip("'\"`") for v in (f.expected, f.observed) if v and _short(v, 40)]
    return any(len(v) >= 3 and v in text for v in values)


def outcome(f: FailureEvidence) -> str:
    """What the failing check sees on the current code and what it requires."""
    subject = _checked(f)
    if f.kind == "raises":
        wanted = _span(f.expected) if f.expected else "an error"
        if f.observed:
            return f"On the current code it throws {_span(f.observed)}; it should throw {wanted}."
        return f"On the current code nothing is thrown; it should throw {wanted}."
    if f.kind == "compare":
        if f.op in _RELATIONS and f.op != "!=" and not f.observed:  # the runner printed no value
            required = f"{subject} {_REQUIRED[f.op]} {_span(f.expected or '')}"
            return f"On the current code this check fails; it requires that {required}."
        if f.op in _RELATIONS and f.op != "!=":
            return f"On the current code {subject} is {_span(f.observed)}, {_relation(f.op)} {_span(f.expected)}."
        if f.op not in (None, "", "==", "!="):
            return f"On the current code {subject} is {_span(f.observed)}; it should be {_span(f.expected)}."
        want = "differ from" if f.op == "!=" else "be"
        exact = " exactly" if f.exact and f.op != "!=" else ""
        seen, wanted = _span(f.observed or ""), _span(f.expected or "")
        if not f.observed:  # the runner printed no value
            return f"On the current code this check fails; {subject} should {want}{exact} {wanted}."
        return f"On the current code {subject} is {seen}; it should {want}{exact} {wanted}."
    if f.error:
        return f"On the current code it throws {_span(f.error)}."
    return "On the current code the check fails."


def _checked(f: FailureEvidence) -> str:
    """The checked expression, or the result of the function it calls when it uses names the
    reader cannot see (a loop variable of a generated test)."""
    if f.call and not f.unbound and _short(f.call, 120):
        return _span(f.call)
    return f"the result of {_span(f.function)}" if f.function else "the checked value"


_REQUIRED = {
    "!=": "differs from",
    "toContain": "contains",
    "include": "includes",
    "includes": "includes",
    "toMatch": "matches",
    "match": "matches",
    "toMatchObject": "matches",
    "toBeInstanceOf": "is an instance of",
    "instanceOf": "is an instance of",
    "instanceof": "is an instance of",
    "toHaveProperty": "has the property",
    "<": "is below",
    "<=": "is at most",
    ">": "is above",
    ">=": "is at least",
}


def requirement(f: FailureEvidence) -> str:
    subject = _checked(f)
    if f.kind not in ("raises", "compare", "error") and f.check and len(f.check) <= 200:
        # the check as the reproduction runs it (a jest matcher only runs in its runner)
        check = _last_statement(f.reproduction) if not f.unbound else ""
        return f"{_code(check or ' '.join(f.check.split()))} holds"
    if subject == "the checked value" and f.kind not in ("raises", "compare"):
        return "the code runs without throwing"
    if f.kind == "raises":
        return f"{subject} throws {_span(f.expected) if f.expected else 'an error'}"
    if f.kind == "compare" and f.expected:
        relation = _REQUIRED.get(f.op or "", "is")
        return f"{subject} {relation} {_span(f.expected)}"
    return f"{subject} does not throw"


EXAMPLES_SHOWN = 8  # the tests' own examples a feature request shows
CASES_LISTED = 20  # the failing cases a statement lists one by one; the rest are counted
_CASES_HEADS = [
    "Every one of these cases fails on the current code:",
    "The cases that have to work, with what each gives today:",
    "All the failing cases:",
]


def _now(f: FailureEvidence) -> str:
    """What the case gives on the current code, as a clause."""
    if f.kind == "compare" and f.observed and _short(f.observed, 80):
        return f"today it is {_span(f.observed)}"
    if f.kind == "raises":
        if f.observed and _short(f.observed, 100):
            return f"today it throws {_span(f.observed)}"
        return "today it does not throw"
    if f.error and _short(f.error, 120):
        return f"today it throws {_span(f.error)}"
    return ""


INPUT_CHARS = 400  # the longest case, with its input, that a line of the list states


def _statements_of(body: str) -> list[str]:
    """The top-level statements of a reproduction's body, each on one line: a statement starts
    at the left margin (the body is dedented) and its continuation lines do not."""
    statements: list[str] = []
    for line in body.splitlines():
        line = _TRAILING_COMMENT.sub("", line)  # on one line, a comment would hide the rest
        if not line.strip():
            continue
        text = line.strip()
        if statements and (line[0].isspace() or text.startswith(("}", ")", "]", "."))):
            # a chained call continues its line as written on one (`program.exitOverride()`); a
            # statement of a function's body that ended its line ends with a `;` on one line
            joint = "" if text.startswith(".") else "; " if _ends_a_statement(statements[-1], text) else " "
            statements[-1] += joint + text
        else:
            statements.append(text)
    return [" ".join(s.split()).rstrip(";") for s in statements]


_SPY_STAND_IN = re.compile(r"(?:const|let|var) [\w$]+ = \{ fn\(impl\) \{")
_TRAILING_COMMENT = re.compile(r"\s+//[^'\"`]*$")


def _ends_a_statement(before: str, line: str) -> bool:
    """A line break between `before` and `line` ends a statement (JS inserts a `;` there): a value
    ends one line and a word starts the next (`val.bar += 'x'` / `return val`)."""
    return bool(re.search(r"[\w$'\"`)\]]$", before) and re.match(r"[A-Za-z_$]", line))


def _one_line(statements: list[str]) -> str:
    """Statements joined on a line: a `;` after each, except after a block statement's brace."""
    block = re.compile(r"^(?:try|if|for|while|do|switch|function|async function|class|\{)\b|^\{")
    ends = [s if s.endswith("}") and block.match(s) else f"{s};" for s in statements[:-1]]
    return " ".join([*ends, statements[-1]])


def body_line(f: FailureEvidence) -> str:
    """The reproduction's statements after its imports on one line, up to its failing check;
    "" when it cannot be read alone (a name it does not bind, a recording stand-in), is a single
    statement, or is longer than a line of the list states."""
    if f.unbound or f.long or not f.reproduction:
        return ""
    _, _, body = f.reproduction.partition("\n\n")
    # the recording stand-in for `jest.fn()` (tasks/evidence/js.py's SPY_STAND_IN) is no input:
    # the line calls `jest.fn()` as the test does
    statements = [s for s in _statements_of(body) if not s.startswith("//") and not _SPY_STAND_IN.match(s)]
    if len(statements) < 2:
        return ""
    line = _one_line(statements)
    return line if len(line) <= INPUT_CHARS else ""


IMPORTS_NAMED = 4


def _imports_of(failures: list[FailureEvidence]) -> list[str]:
    """The import lines (and chai's `should()`) of the failures' reproductions, each once."""
    lines = [
        line.strip().rstrip(";")
        for f in failures
        for line in (f.reproduction or "").partition("\n\n")[0].splitlines()
        if line.strip()
    ]
    return list(dict.fromkeys(lines))[:IMPORTS_NAMED]


def with_input(f: FailureEvidence) -> str:
    """The failing check with the statements before it that give its input (the call and its
    options, as the test makes them), when the check itself calls nothing (`argv.foo.should.eql(1)`)."""
    return "" if f.call and "(" in f.call else body_line(f)


def _checked_against(code: str, value: str) -> bool:
    """`code` ends with a check whose last argument is `value`, up to spaces and quote style."""

    def flat(text: str) -> str:
        return re.sub(r"\s+", "", text).replace('"', "'").rstrip(";")

    return bool(value) and flat(code).endswith(f"({flat(value)})")


def case_line(f: FailureEvidence) -> str:
    """One failing case: its input (the call, or the statement that throws; the statements
    before a check that calls nothing), what it must give and what it gives today."""
    if f.kind is None and not f.error:  # the run said nothing of it: the test's own lines say what it requires
        lines = _statements_of(test_lines(f))
        own = _one_line(lines) if len(lines) > 1 else ""
        return f"- {_code(own)} should pass." if own and len(own) <= INPUT_CHARS else ""
    given = with_input(f)
    if given:
        now = _now(f)
        equality = f.kind == "compare" and f.op in (None, "", "==")
        # a missing property is reported as an `undefined` expected value, which the check never says
        vacuous = f.expected == "undefined" and "undefined" not in given
        # a value the check's own call already spells out (`argv.f.foo.should.eql(99)`) is not said twice
        spelled = _checked_against(given, f.expected or "")
        wanted = f"it should be {_span(f.expected)}" if equality and _short(f.expected, 120) and not vacuous else ""
        wanted = "" if spelled else wanted
        said = "; ".join(part for part in (wanted, now) if part)
        return f"- {_code(given)} should pass" + (f" ({said})." if said else ".")
    if f.kind not in ("compare", "raises") and f.error:
        if f.check:  # the check itself threw: the assert form of it says what it requires
            check = _last_statement(f.reproduction) if not f.unbound else ""
            check = check or " ".join(f.check.split())
            if len(check) <= 240:
                return f"- {_code(check)} should pass; {_now(f)}."
        then = " ".join((f.rest or "").split())
        if then and len(then) <= 240:
            return f"- {_code(then)} should hold; {_now(f)} before getting there."
        # the test's own lines, that end with the checks it makes once the statement runs
        example = body_line(f)
        return f"- {_code(example)} should run as written; {_now(f)}." if example else ""
    now = _now(f)
    return f"- {requirement(f)}" + (f"; {now}." if now else ".")


def _last_statement(code: str | None) -> str:
    """The reproduction's last statement (its check) on one line: from the last line that starts
    at the left margin (the reproduction's statements do) to the end; "" when it does not end one."""
    lines = [ln for ln in (code or "").splitlines() if ln.strip()]
    starts = [i for i, ln in enumerate(lines) if not ln[0].isspace() and not ln.startswith(("}", ")", "]"))]
    if not starts:
        return ""
    last = " ".join(" ".join(lines[starts[-1] :]).split())
    return last if last.endswith(";") else ""


def _code(text: str) -> str:
    """An inline code span of `text`, fenced with two backticks when it holds one."""
    return f"`` {text} ``" if "`" in text else f"`{text}`"


_BINDING = re.compile(
    r"^\s*(?:(?:const|let|var)\s+(?P<declared>\{[^}]*\}|[\w$]+)\s*=|import\s+(?P<imported>.+?)\s+from\b)"
)


def _bound_case_line(f: FailureEvidence, given: set[str]) -> str:
    """The case's line, its code led by the import lines of its reproduction that bind a name it
    reads and that no block shown above holds (`const path = require('path'); ...`): inline
    code that reads a name must say where the name comes from."""
    line = case_line(f)
    if not line.startswith("- `") or line.startswith("- ``"):
        return line
    code = line[3:].partition("`")[0]
    read = set(re.findall(r"(?<![\w$.])[A-Za-z_$][\w$]*", code))
    needed = []
    for imported in (f.reproduction or "").partition("\n\n")[0].splitlines():
        binding = _BINDING.match(imported)
        if not binding or imported.strip() in given:
            continue
        names = set(re.findall(r"[A-Za-z_$][\w$]*", binding["declared"] or binding["imported"])) - {"as"}
        if names & read:
            needed.append(imported.strip().rstrip(";"))
    return f"- `{'; '.join([*needed, code])}`{line[3 + len(code) + 1 :]}" if needed else line


def evidence_section(
    failures: list[FailureEvidence],
    phr: _Phraser,
    limit: int,
    every_example: bool = False,
    shown_before: frozenset[str] = frozenset(),
    blocks_at_most: int | None = None,
    cases_at_most: int = CASES_LISTED,
) -> str:
    """Up to `limit` code blocks (one per function under test; with `every_example`, one per
    test), then, when several tests fail, every failing case on a line of its own: a solver must
    see all that the tests require. A test that threw before its checks and whose lines are
    shown is not listed again (its lines are the example). `blocks_at_most` and `cases_at_most`
    bound the blocks and the listed lines (the rest of the cases counted) to fit a word budget."""
    parts = []
    shown: set[str] = set(shown_before)
    functions: set[str] = set()
    examples: set[str] = set()
    # cases a line cannot tell apart (the same call for a different setup) each need their own example
    said = [case_line(f) for f in failures]
    if len(set(said)) < len(said):
        every_example, limit = True, max(limit, EXAMPLES_SHOWN)
    limit = limit if blocks_at_most is None else min(limit, blocks_at_most)
    for f in failures:
        if len(parts) >= limit:
            break
        code = (f.reproduction or "").strip() if not f.unbound and not f.long else ""
        block = code or test_lines(f) or (f.check or "").strip()
        if not block or block in shown:
            continue
        if not every_example and len(failures) > 1 and f.function and f.function in functions:
            continue
        shown.add(block)
        functions.add(f.function or "")
        examples.add(f.test_id)
        head = phr.pick(_REPRO_HEADS if code else _CHECK_HEADS)
        parts.append(f"{head}\n\n```js\n{block}\n```\n\n{outcome(f)}" + rest_section(f, phr))
    repeated = {line for line in said if said.count(line) > 1}
    listed_failures = [
        f
        for f, line in zip(failures, said)
        if f.test_id not in examples or ((f.kind in ("compare", "raises") or f.check) and line not in repeated)
    ]
    if len(failures) > 1 or not parts:
        given = {ln.strip() for block in shown for ln in block.partition("\n\n")[0].splitlines() if ln.strip()}
        lines = [line for line in dict.fromkeys(_bound_case_line(f, given) for f in listed_failures) if line]
        if len(lines) > cases_at_most:  # the lines a cap lets through state the most distinct values first
            lines = [
                line
                for line in dict.fromkeys(_bound_case_line(f, given) for f in by_new_values(listed_failures))
                if line
            ]
        if (len(lines) > 1 or not parts or len(failures) > 1) and lines:
            listed = lines[:cases_at_most]
            if len(lines) > cases_at_most:
                listed.append(f"- and {len(lines) - cases_at_most} more cases of the same kind.")
            parts.append("\n".join([phr.pick(_CASES_HEADS), *listed]))
            imports = _imports_of([f for f in listed_failures if body_line(f)])
            if imports:  # the lines read the package's names: say where they come from, once
                parts[-1] = f"The cases below start from {and_listed([_code(i) for i in imports])}.\n\n" + parts[-1]
    return "\n\n".join(parts)


def _fewer_blocks_then_cases(text: str) -> list[tuple[int, int]]:
    """The JavaScript evidence's shorter forms, each saying less: fewer code blocks (down to
    one), then fewer listed cases (the rest counted)."""
    blocks = text.count("```") // 2
    return [(b, CASES_LISTED) for b in range(blocks - 1, 0, -1)] + [(1, c) for c in range(CASES_LISTED - 1, 0, -1)]


# a check of state every call shares: a fresh object's or array's inherited members, a builtin's
# prototype, the global object (`{}.polluted`, `Object.keys({}.__proto__)`, `globalThis.flag`)
_SHARED_STATE = re.compile(
    r"(?:^|[^\w$.\])])(?:\{\s*\}|\[\s*\])\s*\.|\b(?:Object|Array|Function)\.prototype\b|\bglobalThis\."
)
# input that writes through an object's prototype chain, so that the change outlives the call
_THROUGH_PROTOTYPE = re.compile(r"__proto__|\bprototype\b|\bconstructor\b")
_LITERAL = re.compile(r"'([^'\n]*)'|\"([^\"\n]*)\"|(?<![\w$.])(-?\d+(?:\.\d+)?)(?![\w$.])")


def _runnable(f: FailureEvidence) -> bool:
    return bool(f.reproduction) and not f.unbound and not f.long


def _setup_and_check(f: FailureEvidence) -> tuple[str, list[str], str]:
    """(the reproduction's import lines, its statements before its check, its check: the last
    statement, from the last line that starts at the left margin)."""
    head, _, body = (f.reproduction or "").partition("\n\n")
    lines = body.rstrip().splitlines()
    starts = [
        i
        for i, ln in enumerate(lines)
        if ln.strip() and not ln[0].isspace() and not ln.startswith(("}", ")", "]", "."))
    ]
    at = starts[-1] if starts else len(lines)
    return head, lines[:at], "\n".join(lines[at:])


def shared_state_root(failures: list[FailureEvidence]) -> tuple[FailureEvidence, FailureEvidence | None] | None:
    """(the failure that shows a change to shared state, a later failure its change explains), or
    None. The root's check reads shared state and its own input writes through a prototype; it
    comes first in the test file's order (the runner's). The later one is the first other failure
    whose value holds a literal of the root's input (the planted value), when both reproductions
    run alone: one snippet that makes the root's call and then the later check shows the cause."""
    rooted = [
        f
        for f in failures
        if _runnable(f)
        and _SHARED_STATE.search(" ".join((f.check or "").split()))
        and _THROUGH_PROTOTYPE.search("\n".join(_setup_and_check(f)[1]))
    ]
    if not rooted:
        return None
    root = min(rooted, key=lambda f: (file_of_test(f.test_id), f.line or 0))
    literals = [
        next(v for v in m.groups() if v is not None) for m in _LITERAL.finditer("\n".join(_setup_and_check(root)[1]))
    ]
    planted = {v for v in literals if len(v) >= 2 and not _THROUGH_PROTOTYPE.search(v)}
    later = [
        f
        for f in failures
        if f is not root
        and _runnable(f)
        and f.kind == "compare"
        and f.observed
        and any(re.search(rf"(?<![\w.]){re.escape(v)}(?![\w.])", f.observed) for v in planted)
        and not _SHARED_STATE.search(" ".join((f.check or "").split()))
    ]
    return root, min(later, key=lambda f: len(f.reproduction or ""), default=None)


_SHARED_HEADS = [
    "The call below changes state that every later call shares (its input writes through `__proto__` or a prototype):",
    "This call leaves a change behind in state shared by the whole process:",
]
# self-contained: the reproduction check may drop the root's own block above it
_AFTER_HEADS = [
    "In one process, the first call below leaves a change behind, and the call after it then goes wrong:",
    "The first call below writes through a prototype; run in the same process, the next call goes wrong:",
]


def shared_state_section(root: FailureEvidence, later: FailureEvidence | None, phr: _Phraser) -> str:
    """The root's reproduction first (its own check shows the shared change), then, when a later
    failure holds the value it plants, one snippet that makes the root's call and then the later
    check: the cases after it read as its consequences. The reproduction check runs both."""
    parts = [f"{phr.pick(_SHARED_HEADS)}\n\n```js\n{root.reproduction.strip()}\n```\n\n{outcome(root)}"]
    if later is not None:
        head, setup, _ = _setup_and_check(root)
        later_head, later_setup, later_check = _setup_and_check(later)
        imports = list(dict.fromkeys(ln for ln in [*head.splitlines(), *later_head.splitlines()] if ln.strip()))
        code = "\n".join([*imports, "", *setup, *later_setup, later_check]).strip()
        parts.append(f"{phr.pick(_AFTER_HEADS)}\n\n```js\n{code}\n```\n\n{outcome(later)}")
    return "\n\n".join(parts)


_REST_HEADS = [
    "The same test goes on to check these, and they must hold too:",
    "After that check, the test also requires:",
]


def rest_section(f: FailureEvidence, phr: _Phraser) -> str:
    """The checks the failing test makes after the failing one, each on a line: the hidden
    test requires them too (other inputs, an error for a bad value)."""
    checks = [line.strip() for line in (f.rest or "").splitlines() if line.strip()]
    if not checks:
        return ""
    # in the outcome's paragraph: a reproduction check that drops the block drops them with it
    return "\n" + "\n".join([phr.pick(_REST_HEADS), *(f"- {_code(c)}" for c in checks)])


_CALLBACK_START = re.compile(r"=>\s*\{?\s*$|function\s*[\w$]*\s*\([^)]*\)\s*\{\s*$")


def test_lines(f: FailureEvidence, limit: int = 25) -> str:
    """The test's own lines up to its failing check, without the line that opens the test (it
    holds the test's name) and a closing line, dedented: the check with what sets it up."""
    source = list(f.source or [])
    # the lines that open the test (its title, an it.each table) end where its callback starts
    opener = next((i for i, ln in enumerate(source) if _CALLBACK_START.search(ln)), 0)
    # the test's own comments speak to its authors (and may tell the fix): not a solver's business
    lines = [ln for ln in source[opener + 1 :] if ln.strip() and not ln.strip().startswith("//")]
    if lines and lines[-1].strip() in ("});", "})", "});\n", "}"):
        lines = lines[:-1]
    if not lines or len(lines) > limit:
        return ""
    indent = min(len(ln) - len(ln.lstrip()) for ln in lines)
    return "\n".join(ln[indent:] for ln in lines)


def _test_code_section(context: dict) -> str:
    """With no failure evidence (the run gave none): the lines the change adds to a failing test."""
    for test in context.get("failing_tests") or []:
        lines = [str(x) for x in (test.get("added_lines") or [])] if isinstance(test, dict) else []
        if lines:
            return "This should work, and does not on the current code:\n\n```js\n" + "\n".join(lines[:20]) + "\n```"
    return ""


def _directives(context: dict, instructions: str, temperature: float, rng: random.Random) -> set[str]:
    directives = parse_directives(instructions)
    examples = [str(x) for x in (context.get("examples") or [])]
    if examples:  # imitate the structure of most similar successes
        half = len(examples) / 2
        if sum("reproduc" in e.lower() for e in examples) >= half:
            directives.add("reproduce")
        if sum(bool(_EXPECTED.search(e) and _ACTUAL.search(e)) for e in examples) >= half:
            directives.add("expected_actual")
    drop_p = min(0.9, max(0.0, 0.6 * (temperature - 1.0)))
    for name in sorted(directives):
        if rng.random() < drop_p:
            directives.discard(name)
    return directives


# what names a task: its project, strategy and change; never its evidence, whose fields and words change
_TASK_NAMING = ("repo", "strategy_type", "commit_subject", "created_at")


def wording_rng(context: dict, instructions: str, temperature: float, top_p: float, max_tokens: int) -> random.Random:
    """The writer's draws (phrasings, directives dropped), seeded by the task's name (the fields of
    `_TASK_NAMING` and its failing tests' ids) and the request: a field the evidence record gains,
    or a value the runner words otherwise, leaves every statement's wording as it was."""
    naming = {key: context.get(key) for key in _TASK_NAMING}
    tests = [str(t.get("id")) for t in context.get("failing_tests") or [] if isinstance(t, dict)]
    tests = tests or [f.test_id for f in failures_of(context)]
    return seeded_rng("write_statement", naming, sorted(tests), instructions, temperature, top_p, max_tokens)


def write_js_statement(
    context: dict, instructions: str, temperature: float = 0.7, top_p: float = 1.0, max_tokens: int = 1024
) -> dict:
    """An issue-style ``{"problem_statement", "hints_text"}`` for a JS/TS task."""
    rng = wording_rng(context, instructions, temperature, top_p, max_tokens)
    directives = _directives(context, instructions, temperature, rng)
    phr = _Phraser(rng, temperature, top_p, reverse="different_angle" in directives)
    strategy = str(context.get("strategy_type") or "BUG_FIX").upper()
    strategy = strategy if strategy in _TITLES else "BUG_FIX"
    subject = str(context.get("commit_subject") or "")
    pr_title = str(context.get("pr_title") or "")
    bodies = [str(context.get("commit_body") or ""), pr_title, str(context.get("pr_body") or "")]
    if pr_title and is_vague(subject) and not is_vague(pr_title):
        subject = pr_title
    subject = clean_subject(subject) or subject
    kind, verb, rest = split_subject(subject)
    functions = [f for f in (context.get("touched_functions") or []) if isinstance(f, dict) and f.get("name")]
    fn0 = str(functions[0]["name"]) if functions else ""
    fallback = f"`{fn0}` does not behave as expected" if fn0 else "the behaviour is wrong"
    failures = [normalized(f) for f in failures_of(context) if f.derived]
    failures.sort(key=lambda f: not (f.reproduction and not f.unbound and not f.long))
    lead = failures[0] if failures else None
    said = _symptom(kind, verb, rest, fallback)
    request = _request(kind, verb, rest, subject) or fallback
    values = {
        "repo": str(context.get("repo") or "the project"),
        "symptom": symptom(lead, said) if lead else said,
        "request": request,
    }
    added = [str(x) for x in (context.get("added_lines") or [])]
    no_leak = "no_leak" in directives
    concise, detailed = "concise" in directives, "detailed" in directives
    # a test that fails because the name it calls does not exist yet asks for that name: a request, never a crash
    missing = missing_api(failures, added) if strategy not in ("TEST_DRIVEN", "REFACTOR") else None

    if missing is not None:
        name, what, failure = missing
        # the examples are the new API's specification: those that check the most (its error
        # codes and messages) first, so that the shown ones hold them
        failures.sort(key=lambda f: -(f.reproduction or "").count("assert."))
        failures = by_new_values(failures)
        if failure in failures:
            failures.remove(failure)
            failures.insert(0, failure)
        # named, never called: a call of a name that does not exist yet reproduces nothing
        spelled = {"function": f"the `{name}` method", "class": f"the `{name}` class"}.get(what, f"`{name}`")
        if what == "function" and not re.search(rf"\.{re.escape(name)} is not a function", failure.error or ""):
            spelled = f"the `{name}` function"
        title = phr.pick(["Feature request: {api}", "Please add {api}", "Support {api}"])
        sections = [title.format(api=spelled)]
        opening = phr.pick(
            [
                "{Repo} has no `{name}` yet: the code below throws {error} today. It should exist, and behave as "
                "the examples below show.",
                "There is no `{name}` in {repo} yet (the code below throws {error}). Please add it, so that the "
                "examples below work as shown.",
            ]
        )
        error = _span((failure.error or failure.observed or "").split("\n")[0])
        sections.append(_fmt(opening, {**values, "name": name, "error": error}))
        calls = api_calls(name, failures)
        if calls:
            sections.append(f"Usage: {and_listed([_code(c) for c in calls])}.")
    else:
        sections = [_fmt(phr.pick(_TITLES[strategy]), values)]
    body = body_sentences("\n\n".join(bodies), no_leak, skip=(subject,))
    if no_leak:
        fix = "".join(f"+{line}\n" for line in added)
        body = [s for s in body if not leak_report(s, fix).score]
    body = body[: 0 if concise else 4 if detailed else 2]
    if missing is None:
        sections.append(" ".join([_fmt(phr.pick(_OPENINGS[strategy]), values), *body]))
    elif body:
        sections.append(" ".join(body))
    if ("name_function" in directives or strategy == "REFACTOR") and functions:
        named = ", ".join(f"`{f.get('signature') or f['name']}` in `{f.get('file')}`" for f in functions[:3])
        sections.append(f"The code involved: {named}.")
    if strategy == "TEST_DRIVEN" and failures:
        spec = [f"- {_capitalize(requirement(f))}." for f in failures[:6]]
        tests = [f"- `{f.test_id}`" for f in failures]
        sections.append("\n".join(["Specification:", *spec, "", "Tests that must pass:", *tests]))
    budget = max(4, int(max_tokens * WORDS_PER_TOKEN) - JSON_OVERHEAD_WORDS)
    if failures:
        limit = 1 if concise else 5 if detailed else 3
        if missing is not None:  # the examples are the specification: each test's, up to a cap
            limit = max(limit, EXAMPLES_SHOWN)
        # a failure that comes from state an earlier call changed: that call and its effect first
        shared = shared_state_root(failures) if missing is None else None
        if shared is not None:
            sections.append(shared_state_section(*shared, phr))
            failures = [f for f in failures if f not in shared]
        before = frozenset((f.reproduction or "").strip() for f in shared or ())
        head = _word_count("\n\n".join(part for part in sections if part))
        sections.append(
            fitted(
                lambda blocks=None, cases=CASES_LISTED: evidence_section(
                    failures, phr, limit, missing is not None, before, blocks_at_most=blocks, cases_at_most=cases
                ),
                phr,
                budget - head,
                _fewer_blocks_then_cases,
            )
        )
    else:
        sections.append(_test_code_section(context))
        if "expected_actual" in directives and lead is not None:
            sections.append(f"Expected behaviour: {_capitalize(requirement(lead))}.\nActual behaviour: {outcome(lead)}")
    statement = "\n\n".join(s for s in sections if s)
    if no_leak:
        statement = _strip_leaks(statement, added)
    statement = _cap_words(statement, budget)
    hints = ""
    if "hint" in directives and fn0 and budget - _word_count(statement) >= 5:
        where = functions[0].get("file")
        hints = f"Look at `{fn0}`" + (f" in `{where}`." if where else ".")
    return {"problem_statement": statement, "hints_text": hints}
