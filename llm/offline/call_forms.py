"""New call forms the failing tests use: a request for what should be accepted, never a crash story.

A test that passes a function (a lambda, or a function the test defines) as the first positional
argument of a project function whose first parameter defaults to a plain value (`maxsize=128`),
or that applies that function as a decorator without parentheses, uses a call form the project
does not offer yet: the function as a bare decorator. The statement then asks for that form, with
the test's own call as the example.

Only the public surface is read: the touched function's signature (its parameter and default)
and the test's code; never the fix's body.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from records import FailureEvidence

from ..python_source import unparse

_PLAIN = (int, float, str, bytes)  # a default no one would call; None often stands for "a callable or none"


@dataclass(frozen=True)
class CallForm:
    """`function` applied to a function directly, where its first parameter `parameter` takes a
    plain value; `default` is that parameter's default when the tests' own values state it
    (else ""); `example` is the test's call or decorator line that shows the form."""

    function: str
    parameter: str
    default: str
    example: str


def bare_decorator_form(f: FailureEvidence, functions: list[dict]) -> CallForm | None:
    """The call form the failing test uses that no touched function accepts by its signature:
    a function in place of a plain first parameter (see the module docstring); None when the
    test uses none, or its code does not parse."""
    try:
        tree = ast.parse(f.reproduction or "")
    except SyntaxError:
        return None
    for fn in functions:
        name = str(fn.get("name") or "").split(".")[-1]
        first = _plain_first_parameter(str(fn.get("signature") or ""))
        if not name or first is None:
            continue
        example = _applied_to_a_function(tree, name)
        if example:
            parameter, default = first
            stated = default if _token_in(default, f"{f.expected or ''}\n{f.rest or ''}") else ""
            return CallForm(name, parameter, stated, example)
    return None


def _plain_first_parameter(signature: str) -> tuple[str, str] | None:
    """(name, default source) of the signature's first parameter (after `self` / `cls`) when its
    default is a plain literal; None otherwise."""
    text = signature.strip().rstrip(":")
    if not text.startswith(("def ", "async def ")):
        return None
    try:
        node = ast.parse(text + ": pass").body[0]
    except SyntaxError:
        return None
    if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        return None
    positional = [*node.args.posonlyargs, *node.args.args]
    defaults = [None] * (len(positional) - len(node.args.defaults)) + list(node.args.defaults)
    pairs = [(a, d) for a, d in zip(positional, defaults, strict=True) if a.arg not in ("self", "cls")]
    if not pairs:
        return None
    arg, default = pairs[0]
    if isinstance(default, ast.Constant) and isinstance(default.value, _PLAIN) and not isinstance(default.value, bool):
        return arg.arg, unparse(default)
    return None


def _applied_to_a_function(tree: ast.Module, name: str) -> str:
    """The line of the snippet that applies `name` (or a name bound to it, or a helper the
    snippet defines that passes its first argument on to it) to a function, as `name` itself
    would be: `name(lambda ...)`, `name(f)` for a function `f` the snippet defines, or `@name`
    over a def. "" when none."""
    defs = {n.name for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)}
    aliases = {name}
    for _ in range(3):  # `D = mod.name`, then `def helper(x): return D(x)`: chains are short
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign) and _refers(node.value, aliases):
                aliases |= {t.id for t in node.targets if isinstance(t, ast.Name)}
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and _forwards(node, aliases):
                aliases.add(node.name)
    wrappers = aliases - {name}
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            if any(_refers(d, aliases) for d in node.decorator_list):
                return f"@{name}"
        if isinstance(node, ast.Call) and _refers(node.func, aliases) and node.args:
            arg = node.args[0]
            named = isinstance(arg, ast.Name) and arg.id in defs - wrappers
            if isinstance(arg, ast.Lambda) or named:  # through a helper, the project's own call
                return f"{name}({unparse(arg)})"
    return ""


def _refers(node: ast.expr, names: set[str]) -> bool:
    """`node` is one of `names`, an attribute of that name (`mod.name`), or `staticmethod(name)`."""
    if isinstance(node, ast.Name):
        return node.id in names
    if isinstance(node, ast.Attribute):
        return node.attr in names
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "staticmethod":
        return len(node.args) == 1 and _refers(node.args[0], names)
    return False


def _forwards(fn: ast.FunctionDef | ast.AsyncFunctionDef, names: set[str]) -> bool:
    """`fn` passes its first parameter on as the first argument of one of `names`."""
    params = [a.arg for a in [*fn.args.posonlyargs, *fn.args.args] if a.arg not in ("self", "cls")]
    if not params:
        return False
    return any(
        isinstance(n, ast.Call)
        and _refers(n.func, names)
        and n.args
        and isinstance(n.args[0], ast.Name)
        and n.args[0].id == params[0]
        for n in ast.walk(fn)
    )


def _token_in(value: str, text: str) -> bool:
    """`value` occurs in `text` as a whole token (`128` in `(0, 0, 128, 0)`, not in `1280`)."""
    return bool(value) and bool(re.search(rf"(?<![\w.]){re.escape(value)}(?![\w.])", text))
