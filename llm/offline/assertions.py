"""Failing-test assertions reduced to a :class:`Check` (a call and an expectation) and phrased as sentences."""

from __future__ import annotations

import ast
import re
import textwrap
from dataclasses import dataclass

from records import function_of_test

from ..python_source import unparse


@dataclass(frozen=True)
class Check:
    """What one failing test asserts, reduced to a call and an expectation."""

    test_id: str
    kind: str  # "compare" | "raises" | "truthy" | "raw"
    call: str
    expected: str = ""
    op: str = ""
    message: str = ""  # the assertion's own message, or the `match=` of an expected exception

    @property
    def test_name(self) -> str:
        return function_of_test(self.test_id)


_OPS = {
    ast.Eq: "==",
    ast.NotEq: "!=",
    ast.Is: "is",
    ast.IsNot: "is not",
    ast.In: "in",
    ast.NotIn: "not in",
    ast.Lt: "<",
    ast.LtE: "<=",
    ast.Gt: ">",
    ast.GtE: ">=",
}
_OP_PHRASE = {
    "==": "return",
    "!=": "not return",
    "is": "be",
    "is not": "not be",
    "in": "be contained in",
    "not in": "not be contained in",
    "<": "be less than",
    "<=": "be at most",
    ">": "be greater than",
    ">=": "be at least",
}
_RAISES_WITH = re.compile(r"with\s+(?:pytest\.raises|self\.assertRaises)\(\s*([\w.]+)[^)]*\)\s*:\s*(.+)$", re.S)


def parse_assertion(test_id: str, text: str) -> Check:
    """Reduce an assert line (pytest or unittest style) to a :class:`Check`."""
    src = textwrap.dedent(str(text or "")).strip().rstrip(";")
    m = _RAISES_WITH.match(src)
    if m:
        match = _MATCH_ARG.search(m.group(0).split(":", 1)[0])
        return Check(test_id, "raises", m.group(2).strip(), m.group(1), message=match.group(2) if match else "")
    try:
        node = ast.parse(src).body[0]
    except (SyntaxError, IndexError, ValueError):
        return Check(test_id, "raw", src)
    if isinstance(node, ast.Assert):
        test, message = node.test, _message(node.msg)
        if isinstance(test, ast.Compare) and len(test.ops) == 1:
            op = _OPS.get(type(test.ops[0]), "==")
            return _compare(test_id, unparse(test.left), unparse(test.comparators[0]), op, message)
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            return Check(test_id, "truthy", unparse(test.operand), "false", message=message)
        return Check(test_id, "truthy", unparse(test), "true", message=message)
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
        return _unittest_check(test_id, node.value, src)
    return Check(test_id, "raw", src)


def _is_literal(source: str) -> bool:
    try:
        ast.literal_eval(source)
        return True
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return False


def _compare(test_id: str, left: str, right: str, op: str, message: str = "") -> Check:
    """An (in)equality reads call-first: `assert 3 == f()` and `assertEqual(3, f())` both
    expect f() to give 3."""
    if op in ("==", "!=") and _is_literal(left) and not _is_literal(right):
        left, right = right, left
    return Check(test_id, "compare", left, right, op, message)


_MATCH_ARG = re.compile(r"match\s*=\s*r?(['\"])(.+?)\1")


def _message(node: ast.AST | None) -> str:
    if node is None:
        return ""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return unparse(node)


def best_check(test_id: str, text: str, separator: str = " | ") -> Check:
    """The most telling of several checks joined by `separator`: the first that reduces to a
    call and an expectation, else the first one."""
    checks = [parse_assertion(test_id, part) for part in str(text or "").split(separator) if part.strip()]
    return next((c for c in checks if c.kind != "raw"), checks[0] if checks else Check(test_id, "raw", ""))


def _unittest_check(test_id: str, call: ast.Call, src: str) -> Check:
    func = call.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    args = [unparse(a) for a in call.args]
    if name in ("assertEqual", "assertEquals") and len(args) >= 2:
        return _compare(test_id, args[0], args[1], "==")
    if name == "assertNotEqual" and len(args) >= 2:
        return _compare(test_id, args[0], args[1], "!=")
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
