"""What a failing check observed and required: the comparison, the exception or the truth
value a failed assert, `pytest.raises` block or unittest assertion reports, read from the
failing statement and the runner's report."""

from __future__ import annotations

import ast
import re

from llm import unparse
from records import ADDRESS, MIRRORED_ORDERINGS
from tasks.evidence.names import names_read

_CHECK_CONTEXTS = ("raises", "Raises", "warns", "Warns", "deprecated_call", "assertRaisesRegex", "assertWarns")

UNITTEST_OPS = {
    "assertEqual": "==",
    "assertEquals": "==",
    "assertNotEqual": "!=",
    "assertIs": "is",
    "assertIsNot": "is not",
    "assertIn": "in",
    "assertNotIn": "not in",
    "assertGreater": ">",
    "assertGreaterEqual": ">=",
    "assertLess": "<",
    "assertLessEqual": "<=",
    "assertListEqual": "==",
    "assertDictEqual": "==",
    "assertTupleEqual": "==",
    "assertSetEqual": "==",
    "assertSequenceEqual": "==",
    "assertMultiLineEqual": "==",
    "assertCountEqual": "==",
}

AST_OPS = {
    "==": ast.Eq,
    "!=": ast.NotEq,
    "is": ast.Is,
    "is not": ast.IsNot,
    "in": ast.In,
    "not in": ast.NotIn,
    ">": ast.Gt,
    ">=": ast.GtE,
    "<": ast.Lt,
    "<=": ast.LtE,
}

_OP_TEXT = {v: k for k, v in AST_OPS.items()}

_UNITTEST_MESSAGES = {  # assertion -> (op of the plain assert, how unittest's message joins the two values)
    "assertEqual": ("==", " != "),
    "assertEquals": ("==", " != "),
    "assertListEqual": ("==", " != "),
    "assertDictEqual": ("==", " != "),
    "assertTupleEqual": ("==", " != "),
    "assertNotEqual": ("!=", " == "),
    "assertIs": ("is", " is not "),
    "assertIsNot": ("is not", " is "),
    "assertIn": ("in", " not found in "),
    "assertNotIn": ("not in", " unexpectedly found in "),
}


def callee(call: ast.Call) -> str:
    try:
        return unparse(call.func)
    except Exception:  # noqa: BLE001 - an exotic callee is simply not a check
        return ""


def is_check_context(item: ast.withitem) -> bool:
    expr = item.context_expr
    return isinstance(expr, ast.Call) and callee(expr).split(".")[-1].endswith(_CHECK_CONTEXTS)


def _literal(node: ast.expr) -> bool:
    try:
        ast.literal_eval(node)
        return True
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return False


def _first_line(text: str, limit: int = 200) -> str:
    first = next((ln.strip() for ln in str(text).splitlines() if ln.strip()), "")
    return first if len(first) <= limit else first[: limit - 4] + " ..."


# pytest's temporary folder of a test (`/tmp/pytest-of-root/pytest-0/test_quiet0`): it names the
# hidden test, and a reproduction's own temporary folder differs
_PYTEST_TMP = re.compile(
    r"(?:/private)?/(?:tmp|var/folders/[^/\s'\"]+/[^/\s'\"]+/T)/pytest-of-[^/\s'\"]+/pytest-\d+/[^/\s'\"]+"
)


def without_test_folder(text: str) -> str:
    return _PYTEST_TMP.sub("<tmp>", str(text))


def no_address(text: str) -> str:
    """A repr without its memory address (`<Future at 0x7f...>`) or pytest's temporary folder:
    they differ on every run."""
    return without_test_folder(re.sub(ADDRESS, "", str(text)))


def check_outcome(
    stmt: ast.stmt,
    report: dict,
    local_names: set[str] = frozenset(),
    project_made: set[str] = frozenset(),
    project: set[str] = frozenset(),
) -> dict:
    """The FailureEvidence fields of the failing check `stmt` (kind, call, op, observed,
    expected, exact, match, warns, error), from pytest's `report` of its failure; `project`:
    the snippet's names of the project's code (`_project_names`)."""
    etype = str(report.get("type") or "")
    message = no_address(report.get("message") or "")
    compare = _compared(stmt, report, message)
    escaped = etype not in ("AssertionError", "Failed", "") and not etype.endswith("AssertionError")
    error = f"{etype}: {_first_line(message)}".rstrip(": ") if escaped else ""
    if isinstance(stmt, (ast.With, ast.AsyncWith)) and any(is_check_context(i) for i in stmt.items):
        return _raises_outcome(stmt, error, message)
    if isinstance(stmt, ast.Assert):
        raised_in = str(report.get("raised_in") or "") if error else ""
        return _assert_outcome(stmt, compare, error, message, local_names, project_made, project, raised_in)
    return _statement_outcome(stmt, compare, error, message)


def _compared(stmt: ast.stmt, report: dict, message: str) -> dict | None:
    """{op, left, right} of the failed comparison: pytest's (memory addresses out), else read
    from the message of a unittest assertion."""
    if isinstance(report.get("compare"), dict):
        return {k: no_address(v) for k, v in report["compare"].items()}
    if getattr(stmt, "sebgen_unittest", None):
        return _unittest_compare(stmt.sebgen_unittest, message)
    return None


# what a check context without an argument waits for: `pytest.deprecated_call()` a deprecation,
# `pytest.warns()` any warning
_DEFAULT_EXPECTED = {"deprecated_call": "DeprecationWarning", "warns": "Warning"}


def _raises_outcome(stmt: ast.With | ast.AsyncWith, error: str, message: str) -> dict:
    """A `with pytest.raises/warns(...)` block: the exception it expected, and what came instead."""
    item = next(i for i in stmt.items if is_check_context(i))
    call = item.context_expr
    match = next((k.value for k in call.keywords if k.arg == "match"), None)
    inner = stmt.body[-1] if stmt.body else None
    worded = _as_regex_mismatch(message)  # one form of the runner's words, read once
    return dict(
        **({"message": worded} if worded != message else {}),
        error=error,
        kind="raises",
        call=unparse(inner.value if isinstance(inner, ast.Expr) else inner) if inner is not None else "",
        expected=unparse(call.args[0])
        if call.args
        else _DEFAULT_EXPECTED.get(callee(call).split(".")[-1], "an exception"),
        match=ast.literal_eval(match) if match is not None and _literal(match) else "",
        warns="warn" in callee(call).lower() or "deprecated" in callee(call).lower(),
        observed=error or ("no exception" if "DID NOT" in message else _first_line(worded)),
    )


# pytest 9 shows a `match=` that is a plain string as a diff of the message it got ("- got",
# "+ wanted") instead of "Regex pattern did not match. ... Actual message: got"
_MESSAGE_DIFF = re.compile(r"\A\s*- (?P<got>[^\n]*)\n\+ (?P<wanted>[^\n]*)\s*\Z")


def _as_regex_mismatch(message: str) -> str:
    """The runner's words for a raised exception whose message did not match, in one form."""
    diff = _MESSAGE_DIFF.match(message or "")
    if diff is None:
        return message
    return f"Regex pattern did not match.\n Expected regex: {diff['wanted']!r}\n Actual message: {diff['got']}"


def _assert_outcome(
    stmt: ast.Assert,
    compare: dict | None,
    error: str,
    message: str,
    local_names: set[str],
    project_made: set[str],
    project: set[str] = frozenset(),
    raised_in: str = "",
) -> dict:
    test = stmt.test
    if isinstance(test, ast.Compare):
        return _compare_outcome(test, compare, error, local_names, project_made, project, raised_in)
    if isinstance(test, ast.Constant) and not test.value and not error:  # `assert False, "..."`
        note = _message_text(stmt.msg) or _first_line(message)
        return dict(error=error, kind="fail", call="", observed=note, expected="")
    negated = isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not)
    return dict(
        error=error,
        kind="truthy",
        call=unparse(test.operand if negated else test),
        expected="false" if negated else "true",
        observed=error or _truthy_value(message),
    )


def _compare_outcome(
    test: ast.Compare,
    compare: dict | None,
    error: str,
    local_names: set[str],
    project_made: set[str],
    project: set[str] = frozenset(),
    raised_in: str = "",
) -> dict:
    """An `assert a <op> b`: which side the code computed (the call) and which it must equal
    (expected); the values pytest reported for them. Of two computed sides, the one that
    raised (it calls `raised_in`), else the one that calls the project's code (`project`), is
    the call: `assert Local(2) == lib.evolve(x)` exercises `evolve`, not the test's class."""
    left, op, right = _failing_pair(test, compare)

    def constant(node: ast.expr) -> bool:  # a literal, or a name the test does not compute (`int`, `ValueError`)
        return _literal(node) or (
            isinstance(node, (ast.Name, ast.Attribute)) and not (names_read([node]) & local_names)
        )

    def exercises(node: ast.expr) -> tuple[bool, bool]:
        calls = [n.func for n in ast.walk(node) if isinstance(n, ast.Call)]
        named = [f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "") for f in calls]
        return bool(raised_in) and raised_in in named, bool(names_read(calls) & project)

    def reads_state(node: ast.expr) -> bool:  # `cached.get.key(42)`, `interval[:]`: asks an object the test holds
        asked = False  # an attribute or an item of it (a call of a local class only builds a value)
        while isinstance(node, (ast.Call, ast.Attribute, ast.Subscript)):
            asked |= not isinstance(node, ast.Call)
            node = node.func if isinstance(node, ast.Call) else node.value
        return asked and isinstance(node, ast.Name) and node.id in local_names

    def displays_values(node: ast.expr) -> bool:  # `[C2]`, `(a, 1)`: values written out, nothing computed
        return isinstance(node, (ast.List, ast.Tuple, ast.Set, ast.Dict)) and not any(
            isinstance(n, (ast.Call, ast.Attribute, ast.Subscript, ast.BinOp)) for n in ast.walk(node)
        )

    def written_out(node: ast.expr) -> bool:  # `[Spec(name='foo', nargs='+')]`: a value built of literals
        allowed = (ast.List, ast.Tuple, ast.Set, ast.Dict, ast.Call, ast.keyword, ast.Constant, ast.Name, ast.Attribute)
        return (
            isinstance(node, (ast.List, ast.Tuple, ast.Set, ast.Dict, ast.Call))
            and all(isinstance(n, (*allowed, ast.expr_context, ast.UnaryOp, ast.unaryop)) for n in ast.walk(node))
            and not (names_read([node]) & local_names)
        )

    def local(node: ast.expr) -> bool:  # a name the test computed (`attrs = getattr(func, ...)`)
        return isinstance(node, ast.Name) and node.id in local_names

    def display(node: ast.expr) -> bool:  # `[Preamble(data=b''), Data(data=expected)]`: a value spelled out
        return isinstance(node, (ast.List, ast.Tuple, ast.Set, ast.Dict))

    # `x in container` checks the container, unless the test computed the element and the
    # container is fixed: faker 0ecfc2e4 `surname in RuProvider.last_names` checks `surname`
    swap = op in ("in", "not in") and (constant(left) or not constant(right))
    swap = swap or (op not in ("in", "not in") and constant(left) and not constant(right))
    if not swap and op in ("==", "!=") and local(left) and not local(right) and display(right):
        # werkzeug 1049dd6b: `events == [Preamble(...), Data(data=expected, ...)]` spells out the
        # events wanted, with the test's own `expected` in it; `events` is what the code gave
        swap = False
    elif not swap and op in ("==", "!=") and local(left) != local(right) and written_out(right) != written_out(left):
        # argh 6992b311: `attrs == [ParserAddArgumentSpec(...)]`, the project's class building the
        # wanted value, is checked on `attrs`, which the test computed
        swap = local(right) and written_out(left)
    elif not swap and not constant(left) and not constant(right):
        ranks = exercises(left), exercises(right)
        if ranks[0][0] != ranks[1][0]:
            swap = ranks[1] > ranks[0]  # the side that raised
        elif ranks[0] != ranks[1]:
            # the side that calls the project is computed, unless the left asks the test's own
            # object (`assert obj.key(1) == lib.key(obj, 1)`: the left is checked, as written)
            swap = ranks[1] > ranks[0] and not reads_state(left)
        elif op in ("==", "!=") and _named_wanted(left) != _named_wanted(right):
            swap = _named_wanted(left)  # `assert expected == actual`: the test names what it wants
        elif op in ("==", "!=") and displays_values(left) != displays_values(right):
            swap = displays_values(left)  # `[C2] == C.__subclasses__()`: the display is what is wanted
        elif op in ("==", "!="):
            swap = bool(names_read([right]) & project_made) and not (names_read([left]) & project_made)
    computed, wanted = (right, left) if swap else (left, right)
    reported = bool(compare) and compare.get("op") == op
    observed = compare.get("right" if swap else "left", "") if reported else ""
    wanted_text = unparse(wanted)
    # a test variable stands for its value; a display of the snippet's names reads as written
    computed_value = not _literal(wanted) and not displays_values(wanted) and bool(names_read([wanted]) & local_names)
    if computed_value and reported:
        wanted_text = compare.get("left" if swap else "right", wanted_text)
    return dict(
        error=error,
        kind="compare",
        call=unparse(computed),
        op=MIRRORED_ORDERINGS.get(op, op) if swap else op,  # `cab <= comp('a')` read from the right: `comp('a') >= cab`
        checked_side="right" if swap else "left",
        observed=error or observed,
        expected=wanted_text,
        exact=isinstance(wanted, ast.Constant) and isinstance(wanted.value, str) and op in ("==", "in"),
    )


# a test's name for the value it wants (`expected`, `want`, `expected_tokens`, `exp_out`)
_WANTED_NAME = re.compile(
    r"(?:expected|expect|exp|want|wanted|desired|golden)(?:_\w+)?|\w+_(?:expected|wanted|want|exp)"
)


def _named_wanted(node: ast.expr) -> bool:
    return isinstance(node, ast.Name) and bool(_WANTED_NAME.fullmatch(node.id))


def _statement_outcome(stmt: ast.stmt, compare: dict | None, error: str, message: str) -> dict:
    """A statement that is no assert: a helper that asserted (its comparison or its message),
    or a line that raised."""
    call = stmt.value if isinstance(stmt, (ast.Expr, ast.Assign, ast.AnnAssign, ast.AugAssign)) else stmt
    if isinstance(stmt, (ast.Assign, ast.AugAssign)) and not all(
        isinstance(t, ast.Name) for t in (stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target])
    ):
        call = stmt  # setting an attribute or an item is the action that fails
    text = unparse(call) if call is not None else unparse(stmt)
    if not compare and not error and isinstance(call, ast.Call) and len(call.args) == 2:
        compare = _equality_helper_compare(callee(call), message)
    if compare and isinstance(call, ast.Call):  # a helper's assert: its computed argument
        computed = [a for a in call.args if not _literal(a)]
        text = unparse(computed[0]) if computed else text
    if compare:  # a helper that asserted: its comparison
        return dict(
            error=error,
            kind="compare",
            call=text,
            op=compare.get("op", "=="),
            observed=compare.get("left", ""),
            expected=compare.get("right", ""),
            exact=str(compare.get("right", "")).startswith(("'", '"')),
        )
    if not error and isinstance(call, ast.Call):  # a helper that asserted: its own message
        return dict(error=error, kind="helper", call=text, observed=_first_line(no_address(message)), expected="")
    return dict(
        error=error,
        kind="error" if error else "truthy",
        call=text,
        observed=error or _first_line(message),
        expected="",
    )


# nose-style equality helpers (`eq_(a, b)` fails with "a != b"), kept by many older projects
_EQUALITY_HELPERS = {"eq_", "eq", "assert_equal", "assert_equals", "equal_", "equals"}


def _equality_helper_compare(name: str, message: str) -> dict | None:
    """{op, left, right} of an equality helper's failure ("{'x'} != {'y'}"), else None."""
    if name.split(".")[-1] not in _EQUALITY_HELPERS:
        return None
    first = next((ln for ln in message.splitlines() if ln.strip()), "")
    if first.count(" != ") != 1:
        return None
    left, right = first.split(" != ")
    return {"op": "==", "left": left.strip(), "right": right.strip()}


def _unittest_compare(name: str, message: str) -> dict | None:
    """{op, left, right} from a unittest failure message ("(1,) != None")."""
    op, joint = _UNITTEST_MESSAGES.get(name, ("", ""))
    first = next((ln for ln in message.splitlines() if ln.strip()), "")
    first = first.split(" : ")[0]  # unittest appends the custom message after " : "
    first = re.sub(r"^\w+ differ: ", "", first)  # "Lists differ: [1] != [2]"
    if not joint or first.count(joint) != 1:
        return None
    left, right = first.split(joint)
    return {"op": op, "left": left.strip(), "right": right.strip()}


def _message_text(node: ast.expr | None) -> str:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return unparse(node) if node is not None else ""


def _truthy_value(message: str) -> str:
    """`False`, or `False (where False = isinstance(None, EOFError))` from pytest's explanation."""
    value, where = "", ""
    for ln in message.splitlines():
        ln = ln.strip()
        if not value and ln.startswith("assert "):
            value = ln[len("assert ") :][:120]
        elif value and not where and ln.startswith("+") and "where" in ln:
            where = ln.lstrip("+ ").strip()[:160]
    return f"{value} ({where})" if where else value


def _failing_pair(test: ast.Compare, compare: dict | None) -> tuple[ast.expr, str, ast.expr]:
    """The (left, op, right) of a (chained) comparison that failed: the pair whose literal
    matches what pytest reported, else the first."""
    operands = [test.left, *test.comparators]
    pairs = [(operands[i], _OP_TEXT.get(type(op), "=="), operands[i + 1]) for i, op in enumerate(test.ops)]
    if compare and len(pairs) > 1:
        for left, op, right in pairs:
            if op != compare.get("op"):
                continue
            for node, side in ((left, "left"), (right, "right")):
                if _literal(node) and unparse(node) == str(compare.get(side, "")):
                    return left, op, right
    return next((p for p in pairs if _literal(p[0]) or _literal(p[2])), pairs[0])
