"""Mutation sites of a Python file, read with `ast`: the Python half of procedural synthesis.

Every function's comparisons, integer constants, `if` guards and calls with two positional
arguments; a site's replacement is the unparsed mutated node, written over that node's
source segment (see `tasks.mutation`).
"""

from __future__ import annotations

import ast

from tasks.difficulty import BRANCHES
from tasks.mutation import Mutation

FLIPPED: dict[type, type] = {
    ast.Lt: ast.LtE,
    ast.LtE: ast.Lt,
    ast.Gt: ast.GtE,
    ast.GtE: ast.Gt,
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
    ast.Is: ast.IsNot,
    ast.IsNot: ast.Is,
    ast.In: ast.NotIn,
    ast.NotIn: ast.In,
}


def _flip_comparison(node: ast.AST) -> str | None:
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in FLIPPED:
        return ast.unparse(ast.Compare(node.left, [FLIPPED[type(node.ops[0])]()], node.comparators))
    return None


def _off_by_one(node: ast.AST) -> str | None:
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return str(node.value + 1)
    return None


def _drop_guard(node: ast.AST) -> str | None:
    # The guard's test becomes False: its branch never runs (its else, if any, always does).
    return "False" if isinstance(node, ast.If) else None


def _swap_arguments(node: ast.AST) -> str | None:
    if (
        isinstance(node, ast.Call)
        and len(node.args) >= 2
        and not any(isinstance(a, ast.Starred) for a in node.args[:2])
    ):
        if ast.dump(node.args[0]) != ast.dump(node.args[1]):
            args = [node.args[1], node.args[0], *node.args[2:]]
            return ast.unparse(ast.Call(node.func, args, node.keywords))
    return None


OPERATORS = {
    "flip_comparison": _flip_comparison,
    "off_by_one": _off_by_one,
    "drop_guard": _drop_guard,
    "swap_arguments": _swap_arguments,
}


def parses(source: str) -> bool:
    try:
        ast.parse(source)
    except SyntaxError:
        return False
    return True


def mutation_sites(path: str, source: str) -> list[Mutation]:
    """Every mutation of every function in `source`, in source order."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    offsets = _LineOffsets(source)
    found = []
    for func in (n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))):
        complexity = 1 + sum(isinstance(n, BRANCHES) for n in ast.walk(func))
        lines = (func.lineno, *(d.lineno for d in func.decorator_list))
        for node in ast.walk(func):
            if node is func or _in_docstring(func, node):
                continue
            for name, operator in OPERATORS.items():
                replacement = operator(node)
                if replacement is not None:
                    target = node.test if isinstance(node, ast.If) else node
                    start, end = offsets.span(target)
                    found.append(
                        Mutation(
                            path,
                            func.name,
                            name,
                            start,
                            end,
                            target.lineno,
                            target.end_lineno,
                            replacement,
                            complexity,
                            lines,
                        )
                    )
    return sorted(found, key=lambda m: (m.start, m.operator))


def _in_docstring(func: ast.AST, node: ast.AST) -> bool:
    first = func.body[0] if func.body else None
    return isinstance(first, ast.Expr) and node is first.value


class _LineOffsets:
    """Character offsets of an `ast` node's segment (ast counts columns in UTF-8 bytes)."""

    def __init__(self, source: str):
        self.lines = source.splitlines(keepends=True)
        self.starts = [0]
        for line in self.lines:
            self.starts.append(self.starts[-1] + len(line))

    def span(self, node: ast.AST) -> tuple[int, int]:
        begin = self.starts[node.lineno - 1] + _char_offset(self.lines[node.lineno - 1], node.col_offset)
        end = self.starts[node.end_lineno - 1] + _char_offset(self.lines[node.end_lineno - 1], node.end_col_offset)
        return begin, end


def _char_offset(line: str, byte_offset: int) -> int:
    return len(line.encode("utf-8")[:byte_offset].decode("utf-8", errors="ignore"))
