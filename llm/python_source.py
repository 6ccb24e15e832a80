"""Python source written back from a tree that SEBGen changed, on every Python it runs on."""

from __future__ import annotations

import ast
import copy

_CONVERSIONS = {ord("s"): "str", ord("r"): "repr", ord("a"): "ascii"}


def first_line(node: ast.stmt) -> int:
    """A statement's first line, its decorators included."""
    return min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", None) or [])])


def helper_definitions(code: str) -> dict[str, str]:
    """The functions and classes a snippet defines at its top level, by name, as it writes them
    (decorators included); {} when it does not parse."""
    try:
        body = ast.parse(code).body
    except SyntaxError:
        return {}
    lines = code.splitlines()
    return {
        node.name: "\n".join(lines[first_line(node) - 1 : node.end_lineno])
        for node in body
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
    }


def unparse(node: ast.AST) -> str:
    """`ast.unparse`, also when a value substituted into an f-string holds a backslash or every
    quote: Python before 3.12 cannot write that inside an f-string, so such an f-string is
    written as the `format()` calls it stands for, joined by `+`."""
    try:
        return ast.unparse(node)
    except ValueError:
        return ast.unparse(ast.fix_missing_locations(_UnwritableFStrings().visit(copy.deepcopy(node))))


class _UnwritableFStrings(ast.NodeTransformer):
    def visit_JoinedStr(self, node: ast.JoinedStr) -> ast.expr:
        try:
            ast.unparse(node)
            return node
        except ValueError:
            return _as_format_calls(node)


def _as_format_calls(node: ast.JoinedStr) -> ast.expr:
    parts: list[ast.expr] = []
    for value in node.values:
        if _plain_text(value) is not None and parts and _plain_text(parts[-1]) is not None:
            parts[-1] = ast.Constant(_plain_text(parts[-1]) + _plain_text(value))  # one literal reads best
        elif _plain_text(value) is not None:
            parts.append(ast.Constant(_plain_text(value)))
        elif isinstance(value, ast.FormattedValue):
            shown = value.value
            if value.conversion in _CONVERSIONS:
                shown = ast.Call(ast.Name(_CONVERSIONS[value.conversion], ast.Load()), [shown], [])
            spec = [_as_format_calls(value.format_spec)] if isinstance(value.format_spec, ast.JoinedStr) else []
            parts.append(ast.Call(ast.Name("format", ast.Load()), [shown, *spec], []))
        else:
            parts.append(value)
    if not parts:
        return ast.Constant("")
    joined = parts[0]  # format() gives a str, so the sum is one whatever comes first
    for part in parts[1:]:
        joined = ast.BinOp(joined, ast.Add(), part)
    return joined


def _plain_text(value: ast.expr) -> str | None:
    """The text of an f-string part that is a literal string, shown as it is."""
    if isinstance(value, ast.FormattedValue) and value.conversion == -1 and value.format_spec is None:
        value = value.value
    return value.value if isinstance(value, ast.Constant) and isinstance(value.value, str) else None
