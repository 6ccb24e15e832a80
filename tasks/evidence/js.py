"""The JavaScript/TypeScript producer of failure evidence: the runner's report of each failing
test (`sandbox.js_report`: the error, the expected and received values, the matcher, the failing
line) read against the test's own source at the task's commit, parsed with tree-sitter's JS and
TS grammars (never the gold patch).

From the source it derives the failing check as the test writes it, the call under test, the
checks that passed before it, the test's own lines up to it, the project's callable the check
exercises, and a self-contained reproduction where the test allows one: the test file's imports
(the project's own modules rewritten to the package's entry point, its name from package.json),
the test's setup lines, and the failing check as a `node:assert` call (a jest/vitest `expect`
only runs inside its runner; chai and `assert` checks stay as written). A test whose lines use a
name neither they nor the imports define (a loop variable of a generated test, a fixture of a
hook) gets no reproduction: `unbound` lists those names."""

from __future__ import annotations

import json
import posixpath
import re
from dataclasses import dataclass
from functools import cache

import tree_sitter
import tree_sitter_javascript
import tree_sitter_typescript

from records import FailureEvidence, file_of_test

from .repo import file_at

EVIDENCE_TESTS = 64  # as many as the Python producer's: every failing case gets stated
SOURCE_LINES = 40
CHECK_CHARS = 240
PATH_SEPARATOR = " > "  # sandbox.js_report's, between describe titles and the test's title
TEST_CALLS = {"it", "test", "specify"}
SUITE_CALLS = {"describe", "suite", "context"}
_MODIFIERS = {"only", "skip", "concurrent", "sequential", "todo", "failing"}
# jest/vitest matchers -> the node:assert call a reproduction ends with ({x}: received, {y}: expected)
_ASSERT_FOR = {
    "toBe": "assert.strictEqual({x}, {y});",
    "toEqual": "assert.deepEqual({x}, {y});",
    "toStrictEqual": "assert.deepStrictEqual({x}, {y});",
    "toBeTruthy": "assert.ok({x});",
    "toBeFalsy": "assert.ok(!{x});",
    "toBeUndefined": "assert.strictEqual({x}, undefined);",
    "toBeNull": "assert.strictEqual({x}, null);",
    "toBeDefined": "assert.notStrictEqual({x}, undefined);",
    "toContain": "assert.ok({x}.includes({y}));",
    "toHaveLength": "assert.strictEqual({x}.length, {y});",
    "toBeInstanceOf": "assert.ok({x} instanceof {y});",
    "toThrow": "assert.throws({x}, {y});",
    "toThrowError": "assert.throws({x}, {y});",
    "toBeNaN": "assert.ok(Number.isNaN({x}));",
    "toBeGreaterThan": "assert.ok({x} > {y});",
    "toBeGreaterThanOrEqual": "assert.ok({x} >= {y});",
    "toBeLessThan": "assert.ok({x} < {y});",
    "toBeLessThanOrEqual": "assert.ok({x} <= {y});",
    # a spy's checks read the calls the stand-in of jest.fn()/vi.fn() records ({y}: every argument)
    "toHaveBeenCalled": "assert.ok({x}.mock.calls.length > 0);",
    "toBeCalled": "assert.ok({x}.mock.calls.length > 0);",
    "toHaveBeenCalledTimes": "assert.strictEqual({x}.mock.calls.length, {y});",
    "toBeCalledTimes": "assert.strictEqual({x}.mock.calls.length, {y});",
    "toHaveBeenCalledWith": "assert.ok({x}.mock.calls.some((args) => isDeepStrictEqual(args, [{y}])));",
    "toBeCalledWith": "assert.ok({x}.mock.calls.some((args) => isDeepStrictEqual(args, [{y}])));",
    "toHaveBeenLastCalledWith": "assert.deepStrictEqual({x}.mock.calls.slice(-1)[0], [{y}]);",
    "lastCalledWith": "assert.deepStrictEqual({x}.mock.calls.slice(-1)[0], [{y}]);",
}
_NEGATED = {
    "toBe": "assert.notStrictEqual({x}, {y});",
    "toEqual": "assert.notDeepEqual({x}, {y});",
    "toStrictEqual": "assert.notDeepStrictEqual({x}, {y});",
    "toBeTruthy": "assert.ok(!{x});",
    "toBeFalsy": "assert.ok({x});",
    "toContain": "assert.ok(!{x}.includes({y}));",
    "toThrow": "assert.doesNotThrow({x});",
    "toHaveBeenCalled": "assert.strictEqual({x}.mock.calls.length, 0);",
    "toBeCalled": "assert.strictEqual({x}.mock.calls.length, 0);",
    "toHaveBeenCalledWith": "assert.ok(!{x}.mock.calls.some((args) => isDeepStrictEqual(args, [{y}])));",
    "toBeCalledWith": "assert.ok(!{x}.mock.calls.some((args) => isDeepStrictEqual(args, [{y}])));",
}
_ALL_ARGUMENTS = {"toHaveBeenCalledWith", "toBeCalledWith", "toHaveBeenLastCalledWith", "lastCalledWith"}
# jest's and vitest's spy factories (`jest.fn()`, `vi.spyOn(obj, "m")`): a reproduction defines a
# stand-in of that name with SPY_STAND_IN, so the test's own lines run under plain node
SPY_OBJECTS = ("jest", "vi")
SPY_FACTORIES = {"fn", "spyOn"}
SPY_STAND_IN = """// {name}.fn() and {name}.spyOn() in plain Node: functions that record their calls
const {name} = {{
  fn(impl) {{
    const spy = (...args) => (spy.mock.calls.push(args), impl && impl(...args));
    spy.mock = {{ calls: [] }};
    spy.mockImplementation = (next) => ((impl = next), spy);
    spy.mockReturnValue = (value) => ((impl = () => value), spy);
    return spy;
  }},
  spyOn(object, method) {{
    const original = object[method];
    const spy = (object[method] = this.fn(original.bind(object)));
    spy.mockRestore = () => (object[method] = original);
    return spy;
  }},
}};"""
# matcher or node:assert/chai operator -> the comparison it makes, in records.FailureEvidence's words
_EQUALITY = {
    "toBe",
    "toEqual",
    "toStrictEqual",
    "equal",
    "equals",
    "eql",
    "strictEqual",
    "deepEqual",
    "deepStrictEqual",
    "==",
    "===",
    "is",
}
_INEQUALITY = {"notEqual", "notStrictEqual", "notDeepEqual", "notDeepStrictEqual", "!=", "!=="}
GLOBALS = set(
    "undefined NaN Infinity globalThis Object Array JSON String Number Boolean Math Date RegExp Error TypeError "
    "RangeError SyntaxError Promise Map Set WeakMap WeakSet Symbol BigInt console process Buffer URL URLSearchParams "
    "encodeURIComponent decodeURIComponent encodeURI decodeURI parseInt parseFloat isNaN isFinite setTimeout "
    "clearTimeout setImmediate queueMicrotask require module exports __dirname __filename arguments this "
    "TextEncoder TextDecoder structuredClone Uint8Array ArrayBuffer Reflect Proxy".split()
)
_REQUIRE = re.compile(r"""require\(\s*(['"])(?P<spec>[^'"]+)\1\s*\)""")


# ---------------------------------------------------------------- parsing


@cache
def _parser(grammar: str) -> tree_sitter.Parser:
    language = {
        "javascript": tree_sitter_javascript.language,
        "typescript": tree_sitter_typescript.language_typescript,
        "tsx": tree_sitter_typescript.language_tsx,
    }[grammar]()
    return tree_sitter.Parser(tree_sitter.Language(language))


def grammar_of(path: str) -> str:
    if path.endswith(".tsx"):
        return "tsx"
    if path.endswith((".ts", ".mts", ".cts")):
        return "typescript"
    return "javascript"


def parse(text: str, path: str) -> tree_sitter.Tree:
    """The file's syntax tree with the grammar its extension names (JSX is in the JS grammar)."""
    return _parser(grammar_of(path)).parse(text.encode("utf-8"))


def syntax_error(text: str, path: str) -> str | None:
    """ "line N: ..." at the file's first syntax error, or None when it parses."""
    root = parse(text, path).root_node
    if not root.has_error:
        return None
    stack = [root]
    while stack:
        node = stack.pop(0)
        if node.type == "ERROR" or node.is_missing:
            what = f"missing {node.type}" if node.is_missing else f"unexpected {node_text(node)[:40]!r}"
            return f"line {node.start_point.row + 1}: {what}"
        stack = [c for c in node.children if c.has_error or c.is_missing] + stack
    return "the file does not parse"


def node_text(node) -> str:
    return node.text.decode("utf-8", errors="replace")


def _one_line(node) -> str:
    return " ".join(node_text(node).split())


# ---------------------------------------------------------------- the test in its file


@dataclass
class _TestCall:
    title: str | None  # None: not a plain string (a template with substitutions, a variable)
    path: list[str | None]  # enclosing suite titles, then the title
    node: object  # the call expression
    body: object | None  # the callback's statement block (or expression)
    each: bool = False  # it.each(table)(title, fn): the title is a printf template
    params: list[str] | None = None  # the callback's parameter names (None: not plain identifiers)


def _called_name(call) -> str:
    """`it` for it(...), it.only(...), it.each(...)(...) and test.skip(...)."""
    function = call.child_by_field_name("function")
    while function is not None:
        if function.type == "identifier":
            return node_text(function)
        if function.type == "member_expression":
            prop = function.child_by_field_name("property")
            if prop is not None and node_text(prop) not in _MODIFIERS and node_text(prop) != "each":
                return ""
            function = function.child_by_field_name("object")
        elif function.type == "call_expression":  # test.each(table)(title, fn)
            function = function.child_by_field_name("function")
        else:
            return ""
    return ""


def _string_value(node) -> str | None:
    if node is None:
        return None
    if node.type == "string":
        try:
            return json.loads('"' + node_text(node)[1:-1].replace('"', '\\"').replace("\\'", "'") + '"')
        except ValueError:
            return node_text(node)[1:-1]
    if node.type == "template_string" and not any(c.type == "template_substitution" for c in node.children):
        return node_text(node)[1:-1]
    return None


def _callback(arguments) -> object | None:
    function = _callback_function(arguments)
    return function.child_by_field_name("body") if function is not None else None


def _callback_function(arguments):
    return next(
        (a for a in arguments.named_children if a.type in ("arrow_function", "function_expression", "function")),
        None,
    )


def _parameter_names(function) -> list[str] | None:
    """The callback's parameters when each is a plain identifier (`(name, value) =>`, `name =>`)."""
    if function is None:
        return None
    single = function.child_by_field_name("parameter")
    if single is not None:
        return [node_text(single)] if single.type == "identifier" else None
    params = function.child_by_field_name("parameters")
    names = []
    for param in params.named_children if params is not None else []:
        inner = (
            param.child_by_field_name("pattern")
            if param.type in ("required_parameter", "optional_parameter")
            else param
        )
        if inner is None or inner.type != "identifier":
            return None
        names.append(node_text(inner))
    return names


def _is_each(call) -> bool:
    function = call.child_by_field_name("function")
    if function is None or function.type != "call_expression":
        return False
    inner = function.child_by_field_name("function")
    return (
        inner is not None
        and inner.type == "member_expression"
        and node_text(inner.child_by_field_name("property")) == "each"
    )


_PRINTF = re.compile(r"%[sdifjopP#%]")


def each_params(test: _TestCall, test_id: str) -> dict[str, str]:
    """name -> JS literal of each callback parameter of an `it.each` test whose title template
    prints every parameter once with %s/%d/%i/%f (read back from the test id's own title)."""
    if not test.each or not test.title or not test.params:
        return {}
    placeholders = [p for p in _PRINTF.findall(test.title) if p != "%%"]
    if len(placeholders) != len(test.params) or any(p not in ("%s", "%d", "%i", "%f") for p in placeholders):
        return {}
    title = test_id.partition("::")[2].split(PATH_SEPARATOR)[-1]
    pattern = "".join(
        "(.*?)" if piece in ("%s", "%d", "%i", "%f") else re.escape("%" if piece == "%%" else piece)
        for piece in re.split(r"(%[sdifjopP#%])", test.title)
    )
    match = re.fullmatch(pattern, title, flags=re.S)
    if not match:
        return {}
    out = {}
    for name, kind, value in zip(test.params, placeholders, match.groups()):
        if kind == "%s":
            out[name] = json.dumps(value, ensure_ascii=False)
        elif re.fullmatch(r"-?\d+(\.\d+)?(e[+-]?\d+)?|NaN|-?Infinity", value):
            out[name] = value
        else:
            return {}
    return out


def _title(node) -> str | None:
    """A test's title when the file spells it out: a string, or an expression of literals only
    (`JSON.stringify("/a") + " + " + JSON.stringify("/b")`, once a loop's case is written in)."""
    value = _string_value(node)
    if value is not None or node.type in ("string", "identifier"):
        return value
    try:
        value = _evaluate(node, {})
    except (_Unknown, RecursionError, TypeError, ValueError):
        return None
    return value if isinstance(value, str) else None


def test_calls(root) -> list[_TestCall]:
    """Every it/test call of a file with its enclosing describe titles. A qunit-style
    `suite('x')` statement (no callback) titles the tests after it."""
    found: list[_TestCall] = []

    def visit(node, suites: list[str | None]) -> None:
        flat_suite: list[str | None] = []
        for child in node.named_children:
            call = child.named_children[0] if child.type == "expression_statement" and child.named_children else child
            if call.type == "await_expression" and call.named_children:
                call = call.named_children[0]
            if call.type != "call_expression":
                visit(child, suites + flat_suite)
                continue
            name, arguments = _called_name(call), call.child_by_field_name("arguments")
            args = arguments.named_children if arguments is not None else []
            title = _title(args[0]) if args else None
            body = _callback(arguments) if arguments is not None else None
            if name in SUITE_CALLS and body is None:
                flat_suite = [title]
            elif name in SUITE_CALLS:
                visit(body, [*suites, *flat_suite, title])
            elif name in TEST_CALLS and args:
                params = _parameter_names(_callback_function(arguments))
                found.append(_TestCall(title, [*suites, *flat_suite, title], call, body, _is_each(call), params))
            else:
                visit(child, suites + flat_suite)

    visit(root, [])
    return found


def find_test(root, test_id: str, line: int | None) -> _TestCall | None:
    """The test a test id names: by its titles; a generated title (a template, a loop) by the
    failing line inside it."""
    wanted = [t for t in test_id.partition("::")[2].split(PATH_SEPARATOR) if t]
    calls = test_calls(root)
    # compared as `sandbox.comparable_id` spells them (titles joined by spaces), so mocha's
    # `fullTitle` spelling of an id finds its test too
    spelled = " ".join(wanted)
    exact = [c for c in calls if None not in c.path and " ".join(t for t in c.path if t) == spelled]
    if exact:
        return exact[0]
    titled = [c for c in calls if c.title and (spelled == c.title or spelled.endswith(" " + c.title))]
    if len(titled) == 1:
        return titled[0]
    if line is not None:
        spanning = [c for c in calls if c.node.start_point.row + 1 <= line <= c.node.end_point.row + 1]
        if spanning:
            return max(spanning, key=lambda c: c.node.start_point.row)
    return None


# ---------------------------------------------------------------- tests generated by a loop


class _Unknown(Exception):
    """An expression this reader does not evaluate."""


_UNDEFINED = object()


def _js_string(value) -> str:
    """`String(value)` as JS spells it."""
    if value is _UNDEFINED:
        return "undefined"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, list):
        return ",".join("" if v is None or v is _UNDEFINED else _js_string(v) for v in value)
    if isinstance(value, dict):
        return "[object Object]"
    return str(value)


def _key(node) -> str:
    if node.type in ("string", "template_string"):
        value = _string_value(node)
        if value is None:
            raise _Unknown(node_text(node))
        return value
    if node.type in ("property_identifier", "number", "identifier"):
        return node_text(node)
    raise _Unknown(node_text(node))


def _evaluate(node, env: dict):
    """The value of a literal-only expression (strings, numbers, object and array literals, the
    loop variable, `+`, `JSON.stringify`, `String`, `.toString()`), as the test runner computes a
    generated test's title; `_Unknown` for anything else."""
    kind = node.type
    if kind in ("string", "template_string") and not any(c.type == "template_substitution" for c in node.children):
        value = _string_value(node)
        if value is None:
            raise _Unknown(node_text(node))
        return value
    if kind == "template_string":
        out = []
        for child in node.children:
            if child.type == "template_substitution":
                out.append(_js_string(_evaluate(child.named_children[0], env)))
            elif child.type in ("string_fragment", "escape_sequence"):
                out.append(_string_value_of_fragment(child))
        return "".join(out)
    if kind == "number":
        text = node_text(node)
        try:
            return int(text) if re.fullmatch(r"\d+", text) else float(text)
        except ValueError:
            raise _Unknown(text) from None
    if kind in ("true", "false"):
        return kind == "true"
    if kind == "null":
        return None
    if kind == "undefined":
        return _UNDEFINED
    if kind == "identifier":
        if node_text(node) in env:
            return env[node_text(node)]
        if node_text(node) == "undefined":
            return _UNDEFINED
        raise _Unknown(node_text(node))
    if kind == "parenthesized_expression":
        return _evaluate(node.named_children[0], env)
    if kind == "unary_expression" and node_text(node).startswith("-"):
        value = _evaluate(node.named_children[0], env)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return -value
        raise _Unknown(node_text(node))
    if kind == "object":
        out = {}
        for pair in node.named_children:
            if pair.type == "pair":
                out[_key(pair.child_by_field_name("key"))] = _evaluate(pair.child_by_field_name("value"), env)
            elif pair.type == "shorthand_property_identifier":
                out[node_text(pair)] = _evaluate(pair, env) if node_text(pair) in env else _raise(pair)
            elif pair.type != "comment":
                raise _Unknown(node_text(pair))
        return out
    if kind == "array":
        return [_evaluate(e, env) for e in node.named_children if e.type != "comment"]
    if kind in ("member_expression", "subscript_expression"):
        obj = _evaluate(node.child_by_field_name("object"), env)
        if kind == "member_expression":
            name = node_text(node.child_by_field_name("property"))
        else:
            name = _evaluate(node.child_by_field_name("index"), env)
        if name == "length" and isinstance(obj, (str, list)):
            return len(obj)
        if isinstance(obj, dict):
            return obj.get(_js_string(name), _UNDEFINED)
        if isinstance(obj, list) and isinstance(name, int) and 0 <= name < len(obj):
            return obj[name]
        raise _Unknown(node_text(node))
    if kind == "binary_expression":
        left = _evaluate(node.child_by_field_name("left"), env)
        right = _evaluate(node.child_by_field_name("right"), env)
        if node_text(node.child_by_field_name("operator")) != "+":
            raise _Unknown(node_text(node))
        if isinstance(left, str) or isinstance(right, str):
            return _js_string(left) + _js_string(right)
        if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (left, right)):
            return left + right
        raise _Unknown(node_text(node))
    if kind == "call_expression":
        function = node_text(node.child_by_field_name("function"))
        arguments = node.child_by_field_name("arguments")
        args = [a for a in arguments.named_children if a.type != "comment"] if arguments is not None else []
        if function == "JSON.stringify" and len(args) == 1:
            value = _evaluate(args[0], env)
            if value is _UNDEFINED:
                return _UNDEFINED
            return json.dumps(_json_ready(value), ensure_ascii=False, separators=(",", ":"))
        if function == "String" and len(args) == 1:
            return _js_string(_evaluate(args[0], env))
        if function.endswith(".toString") and not args:
            return _js_string(_evaluate(node.child_by_field_name("function").child_by_field_name("object"), env))
    raise _Unknown(node_text(node))


def _json_ready(value):
    """The value as JSON.stringify sees it: undefined properties left out, undefined items null."""
    if isinstance(value, dict):
        return {k: _json_ready(v) for k, v in value.items() if v is not _UNDEFINED}
    if isinstance(value, list):
        return [None if v is _UNDEFINED else _json_ready(v) for v in value]
    return value


def _raise(node):
    raise _Unknown(node_text(node))


def _string_value_of_fragment(node) -> str:
    if node.type == "escape_sequence":
        try:
            return json.loads('"' + node_text(node).replace("\\'", "'") + '"')
        except ValueError:
            return node_text(node)[1:]
    return node_text(node)


def _loop_around(node):
    """(variable, kind, iterated identifier) of the `for (const v of xs)`, `for (const k in
    table)` or `xs.forEach((v) => ...)` that generates the test `node`, or None."""
    inner, current = node, node.parent
    while current is not None:
        if current.type == "for_in_statement":
            left, right = current.child_by_field_name("left"), current.child_by_field_name("right")
            operator = current.child_by_field_name("operator")
            kind = node_text(operator) if operator is not None else ("of" if " of " in node_text(current) else "in")
            if left is not None and left.type == "identifier" and right is not None and right.type == "identifier":
                return node_text(left), kind, right
            return None
        if current.type == "call_expression" and inner.type == "arguments":
            function = current.child_by_field_name("function")
            if function is not None and function.type == "member_expression":
                if node_text(function.child_by_field_name("property")) == "forEach":
                    callback = _callback_function(inner)
                    params = _parameter_names(callback) if callback is not None else None
                    target = function.child_by_field_name("object")
                    if params and target is not None and target.type == "identifier":
                        return params[0], "of", target
                    return None
        inner, current = current, current.parent
    return None


def _declaration(root, name: str, before_row: int):
    """The literal value of the nearest `const name = [...]` / `{...}` above `before_row`."""
    best = None
    for node in walk_nodes(root):
        if node.type != "variable_declarator" or node.start_point.row >= before_row:
            continue
        target, value = node.child_by_field_name("name"), node.child_by_field_name("value")
        if target is None or node_text(target) != name or value is None or value.type not in ("array", "object"):
            continue
        if best is None or node.start_point.row > best.start_point.row:
            best = value
    return best


def _one_line_literal(node) -> str | None:
    """The literal's text on one line, or None when a string in it spans lines."""
    if any(n.type in ("string", "template_string") and n.start_point.row != n.end_point.row for n in walk_nodes(node)):
        return None
    return re.sub(r"\s*\n\s*", " ", node_text(node)).replace("{ }", "{}")


def resolve_loop(source: str, path: str, test_id: str, line: int | None) -> str:
    """The file with a loop-generated test's variable replaced by the literal of the case the
    test id names (`t.input` -> `"/admin-dashboard"`, `tests[input]` -> its value): the case is
    the element whose title, computed as the runner does, is the test id's title. Line numbers
    are kept (every replacement is one line). The file unchanged when it is not such a test."""
    root = parse(source, path).root_node
    test = find_test(root, test_id, line)
    if test is not None:
        return _resolved(source, root, test, test_id)
    for call in test_calls(root):  # no line to find it by: the loop whose case has this title
        if call.title is None and (resolved := _resolved(source, root, call, test_id)) != source:
            return resolved
    return source


def _resolved(source: str, root, test: _TestCall, test_id: str) -> str:
    if test.each:  # it.each(table)(title, (a, b) => ...): the case's values from its title
        params = each_params(test, test_id)
        if not params or test.body is None:
            return source
        replacements = [
            _replacement(node, params[node_text(node)])
            for node in walk_nodes(test.body)
            if node.type in ("identifier", "shorthand_property_identifier") and node_text(node) in params
        ]
        return _replace(source, replacements)
    loop = _loop_around(test.node)
    if loop is None:
        return source
    variable, kind, iterated = loop
    table = _declaration(root, node_text(iterated), iterated.start_point.row + 1)
    if table is None:
        return source
    title = test_id.partition("::")[2].split(PATH_SEPARATOR)[-1]
    arguments = test.node.child_by_field_name("arguments")
    title_node = arguments.named_children[0] if arguments is not None and arguments.named_children else None
    if title_node is None:
        return source
    if kind == "of" and table.type == "array":
        cases = [(e, None) for e in table.named_children if e.type != "comment"]
    elif kind == "in" and table.type == "object":
        pairs = [p for p in table.named_children if p.type == "pair"]
        cases = [(p.child_by_field_name("key"), p.child_by_field_name("value")) for p in pairs]
    else:
        return source
    chosen = None
    for element, value in cases:
        try:
            bound = _key(element) if kind == "in" else _evaluate(element, {})
            if _js_string(_evaluate(title_node, {variable: bound})) == title:
                chosen = (element, value, bound)
                break
        except (_Unknown, RecursionError, TypeError, ValueError):
            continue
    if chosen is None:
        return source
    element, value, bound = chosen
    replacements = []  # (start byte, end byte, text)
    for node in walk_nodes(test.node):
        if node.type == "member_expression" and kind == "of" and element.type == "object":
            obj = node.child_by_field_name("object")
            if obj.type == "identifier" and node_text(obj) == variable:
                prop = node_text(node.child_by_field_name("property"))
                pair = next((p for p in element.named_children if p.type == "pair" and _safe_key(p) == prop), None)
                text = _one_line_literal(pair.child_by_field_name("value")) if pair is not None else "undefined"
                if text is None:
                    return source
                replacements.append((node.start_byte, node.end_byte, text))
        elif node.type == "subscript_expression" and kind == "in":
            obj, index = node.child_by_field_name("object"), node.child_by_field_name("index")
            if node_text(obj) == node_text(iterated) and index is not None and node_text(index) == variable:
                text = _one_line_literal(value)
                if text is None:
                    return source
                replacements.append((node.start_byte, node.end_byte, text))
        elif node.type in ("identifier", "shorthand_property_identifier") and node_text(node) == variable:
            text = json.dumps(bound, ensure_ascii=False) if kind == "in" else _one_line_literal(element)
            if text is None:
                return source
            replacements.append(_replacement(node, text))
    return _replace(source, replacements)


def _replacement(node, literal: str) -> tuple[int, int, str]:
    """The replacement of a name by a JS literal: `${name}` in a template by the string's own
    text, `{ name }` by `{ name: literal }`."""
    parent = node.parent
    if parent is not None and parent.type == "template_substitution" and literal.startswith('"'):
        try:
            raw = json.loads(literal)
        except ValueError:
            raw = None
        if isinstance(raw, str):
            text = raw.replace("\\", "\\\\").replace("`", "\\`").replace("${", "\\${")
            return parent.start_byte, parent.end_byte, text
    if node.type == "shorthand_property_identifier":
        return node.start_byte, node.end_byte, f"{node_text(node)}: {literal}"
    return node.start_byte, node.end_byte, literal


def _replace(source: str, replacements: list[tuple[int, int, str]]) -> str:
    # an outer replacement (a member or subscript) wins over the identifier inside it
    replacements = sorted(replacements, key=lambda r: (r[0], -r[1]))
    data, out, at = source.encode("utf-8"), [], 0
    for start, end, text in replacements:
        if start < at:
            continue
        out += [data[at:start], text.encode("utf-8")]
        at = end
    out.append(data[at:])
    return b"".join(out).decode("utf-8", errors="replace")


def _safe_key(pair) -> str | None:
    try:
        return _key(pair.child_by_field_name("key"))
    except _Unknown:
        return None


def test_statements(body) -> list:
    if body is None:
        return []
    return list(body.named_children) if body.type == "statement_block" else [body]


def _statement_at(statements: list, line: int):
    return next((s for s in statements if s.start_point.row + 1 <= line <= s.end_point.row + 1), None)


def _into_bare_blocks(statements: list, failing, line: int) -> tuple[list, object]:
    """For a failing line inside a bare `{ ... }` block of the test (a test that scopes each of
    its cases in one): the statements that line sees (the test's before the block, then the
    block's own) and the block's statement at that line. An earlier sibling block is another
    case, in its own scope: its lines are left out."""
    while failing is not None and failing.type == "statement_block":
        before = [s for s in statements if s.end_point.row < failing.start_point.row and s.type != "statement_block"]
        statements = before + test_statements(failing)
        failing = _statement_at(statements, line)
    return statements, failing


def _innermost_statement(root, line: int):
    """The smallest statement of the file that holds `line` (a helper's check)."""
    best = None
    stack = [root]
    while stack:
        node = stack.pop()
        if not node.start_point.row + 1 <= line <= node.end_point.row + 1:
            continue
        if node.type.endswith("statement") and node.type != "statement_block":
            best = node
        stack.extend(node.named_children)
    return best


# ---------------------------------------------------------------- checks


@dataclass
class _Check:
    text: str
    subject: str | None = None  # what is checked (expect's argument, assert's first)
    expected: str | None = None  # the expectation's source text
    matcher: str = ""
    negated: bool = False
    style: str = ""  # expect | assert | chai-should | other
    arguments: tuple[str, ...] = ()  # every argument of the matcher (a spy's toHaveBeenCalledWith(a, b))


def _outer_call(statement):
    node = statement.named_children[0] if statement.named_children else None
    if node is not None and node.type == "await_expression" and node.named_children:
        node = node.named_children[0]
    return node if node is not None and node.type == "call_expression" else None


def read_check(statement) -> _Check | None:
    """The check a statement makes, or None when it is not one."""
    if statement is None or statement.type != "expression_statement":
        return None
    text = _one_line(statement)
    call = _outer_call(statement)
    if call is None:
        return _Check(text, style="chai-should") if ".should." in text else None
    function = call.child_by_field_name("function")
    args = call.child_by_field_name("arguments")
    arg_texts = [node_text(a) for a in args.named_children] if args is not None else []
    # assert(x), assert.equal(a, b), t.is(a, b) (ava)
    if function.type == "identifier" and node_text(function) == "assert":
        return _Check(text, arg_texts[0] if arg_texts else None, None, "ok", style="assert")
    if function.type == "member_expression":
        obj, prop = function.child_by_field_name("object"), node_text(function.child_by_field_name("property"))
        if obj.type == "identifier" and node_text(obj) in ("assert", "t", "expect"):
            if node_text(obj) != "expect":
                nodes = args.named_children if args is not None else []
                # assert.equal('expected', actual()): the literal is the expected side, whichever comes first
                if len(nodes) > 1 and _is_literal(nodes[0]) and not _is_literal(nodes[1]):
                    arg_texts[0], arg_texts[1] = arg_texts[1], arg_texts[0]
                return _Check(
                    text,
                    arg_texts[0] if arg_texts else None,
                    arg_texts[1] if len(arg_texts) > 1 else None,
                    prop,
                    style="assert",
                )
        # expect(x)[.not][.resolves].matcher(y), or chai's expect(x).to.be.equal(y)
        chain, node = [prop], obj
        while node is not None and node.type == "member_expression":
            chain.append(node_text(node.child_by_field_name("property")))
            node = node.child_by_field_name("object")
        if node is not None and node.type == "call_expression" and _called_identifier(node) == "expect":
            inner = node.child_by_field_name("arguments")
            subject = node_text(inner.named_children[0]) if inner is not None and inner.named_children else None
            modifiers = chain[1:]
            style = "expect" if set(modifiers) <= {"not", "resolves", "rejects"} else "chai-expect"
            return _Check(
                text,
                subject,
                arg_texts[0] if arg_texts else None,
                prop,
                negated="not" in modifiers,
                style=style if not {"resolves", "rejects"} & set(modifiers) else "async",
                arguments=tuple(arg_texts),
            )
        if ".should" in text:
            return _Check(text, style="chai-should")
    return None


def _is_literal(node) -> bool:
    if node.type in ("string", "number", "regex", "true", "false", "null", "undefined"):
        return True
    return node.type == "template_string" and not any(c.type == "template_substitution" for c in node.children)


def _called_identifier(call) -> str:
    function = call.child_by_field_name("function")
    return node_text(function) if function is not None and function.type == "identifier" else ""


def _op(matcher: str | None) -> str | None:
    if not matcher:
        return None
    if matcher in _EQUALITY:
        return "=="
    if matcher in _INEQUALITY:
        return "!="
    return matcher


# ---------------------------------------------------------------- imports and names


def _imports(root, test_path: str, package: str) -> tuple[list[str], list[set[str]], set[str], set[str]]:
    """(the file's import lines, rewritten for a reproduction; the names each binds; the names
    bound by imports that a reproduction cannot use: test helpers beside the test, test runners;
    the names bound by imports of the project itself: its package, its own source files)."""
    lines, bound, unusable, project = [], [], set(), set()
    for node in root.named_children:
        spec, names = None, set()
        if node.type == "import_statement":
            source = node.child_by_field_name("source")
            spec = _string_value(source) if source is not None else None
            names = {node_text(n) for n in walk_nodes(node) if n.type == "identifier"}
        elif node.type in ("lexical_declaration", "variable_declaration") and "require(" in node_text(node):
            match = _REQUIRE.search(node_text(node))
            spec = match["spec"] if match else None
            for declarator in node.named_children:
                name = declarator.child_by_field_name("name")
                if name is not None:
                    names |= {
                        node_text(n)
                        for n in walk_nodes(name)
                        if n.type in ("identifier", "shorthand_property_identifier_pattern")
                    }
        if spec is None:
            continue
        text = node_text(node)
        if spec in ("vitest", "@jest/globals", "mocha", "node:test", "ava", "tap", "uvu"):
            unusable |= names - {"assert"}
            continue
        if spec.startswith("."):
            target = posixpath.normpath(posixpath.join(posixpath.dirname(test_path), spec))
            if _in_tests(target) or not package:
                unusable |= names
                continue
            text = text.replace(f"'{spec}'", f"'{package}'").replace(f'"{spec}"', f'"{package}"')
            project |= names
        elif package and (spec == package or spec.startswith(f"{package}/")):
            project |= names
        lines.append(" ".join(text.split()) if len(text) > 200 else text)
        bound.append(names)
    return lines, bound, unusable, project


_ENABLING = re.compile(r"""^(?:(?:chai|require\(\s*['"]chai['"]\s*\))\.)?should\(\)|^chai\.use\(""")


_NAMED_IMPORT = re.compile(r"^import\s*\{(?P<names>[^}]*)\}\s*from\s*(?P<source>.+)$", re.S)


def _only_used(line: str, used: set[str]) -> str:
    """`import { a, b } from "x"` keeping only the names the reproduction uses."""
    match = _NAMED_IMPORT.match(line)
    if not match:
        return line
    names = [n.strip() for n in match["names"].split(",") if n.strip()]
    kept = [n for n in names if n.split(" as ")[-1].strip() in used]
    return f"import {{ {', '.join(kept)} }} from {match['source'].strip()}" if kept else line


def _enabling_calls(root) -> list:
    """Top-level statements that make chai's `.should` work (`should()`, `chai.use(...)`)."""
    return [n for n in root.named_children if n.type == "expression_statement" and _ENABLING.match(node_text(n))]


def _in_tests(path: str) -> bool:
    return bool(re.search(r"(^|/)(tests?|__tests__|spec|fixtures?)(/|$)|\.(test|spec)\.", path))


def walk_nodes(node):
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(current.children)


def _defined(statements: list) -> set[str]:
    names = set()
    for statement in statements:
        for node in walk_nodes(statement):
            if node.type == "variable_declarator":
                name = node.child_by_field_name("name")
                names |= {
                    node_text(n)
                    for n in walk_nodes(name)
                    if n.type in ("identifier", "shorthand_property_identifier_pattern")
                }
            elif node.type in ("function_declaration", "class_declaration"):
                name = node.child_by_field_name("name")
                if name is not None:
                    names.add(node_text(name))
            elif node.type in ("formal_parameters",):
                names |= {node_text(n) for n in walk_nodes(node) if n.type == "identifier"}
            elif node.type == "arrow_function":
                param = node.child_by_field_name("parameter")
                if param is not None:
                    names.add(node_text(param))
            elif node.type == "catch_clause":
                param = node.child_by_field_name("parameter")
                if param is not None:
                    names |= {node_text(n) for n in walk_nodes(param) if n.type == "identifier"}
    return names


def _used(nodes: list) -> set[str]:
    return {
        node_text(n)
        for node in nodes
        for n in walk_nodes(node)
        if n.type in ("identifier", "shorthand_property_identifier")
        and (n.parent is None or n.parent.type != "member_expression" or n.parent.child_by_field_name("object") == n)
    }


def package_name(repo_path: str, commit: str) -> str:
    try:
        data = json.loads(file_at(repo_path, commit, "package.json") or "{}")
    except ValueError:
        return ""
    name = data.get("name") if isinstance(data, dict) else None
    return name if isinstance(name, str) else ""


# ---------------------------------------------------------------- the producer


def failure_evidence(repo_path, commit: str, failures: dict, tests) -> dict[str, FailureEvidence]:
    """Per test of `tests` that the runner reported a failure for (`failures`: test id -> the
    report's `FailureEvidence` or its JSON): the report's words and what `explain_failure`
    derives from the test's file at `commit`."""
    sources: dict[str, str] = {}
    package = package_name(str(repo_path), commit)
    out: dict[str, FailureEvidence] = {}
    for test_id in list(tests)[:EVIDENCE_TESTS]:
        path = file_of_test(test_id)
        if path not in sources:
            sources[path] = file_at(str(repo_path), commit, path)
        report = _report_of(failures, test_id, sources[path])
        try:
            found = explain_failure(sources[path], test_id, report, package)
        except (ValueError, RecursionError, AttributeError, TypeError, IndexError):
            found = FailureEvidence.from_dict(report, test_id=test_id)  # a file this code cannot read
        if report or found.derived:
            out[test_id] = found
    return out


def _as_dict(report) -> dict | None:
    if isinstance(report, FailureEvidence):
        return report.to_dict()
    return report if isinstance(report, dict) else None


def _report_of(failures, test_id: str, source: str) -> dict:
    """The runner's report of the test; for a test it has none of, its file's (a trace the run's
    log holds under the file's name, `sandbox.js_report.exit_failures`) when that trace's line
    is inside the test; else {}: the test's source may still say what it requires."""
    failures = failures if isinstance(failures, dict) else {}
    own = _as_dict(failures.get(test_id))
    if own is not None:
        return own
    path = file_of_test(test_id)
    traced = _as_dict(failures.get(path))
    line = traced.get("line") if traced else None
    if not isinstance(line, int) or not source:
        return {}
    try:
        test = find_test(parse(source, path).root_node, test_id, None)
    except (ValueError, RecursionError):
        return {}
    if test is None or not test.node.start_point.row + 1 <= line <= test.node.end_point.row + 1:
        return {}
    return {**traced, "id": test_id}


_DERIVED = (
    "check",
    "call",
    "passed_checks",
    "reproduction",
    "long",
    "unbound",
    "function",
    "entry_point",
    "rest",
    "source",
    "params",
)


# a value the runner printed over several lines (pretty-format's `Object {` / `Array [`, one
# member a line, each with a trailing comma)
_PRINTED_CONTAINER = re.compile(r"^(?:[A-Z][\w$]* )?[{\[].*[}\]]$", re.S)
_CONTAINER_NAME = re.compile(r"(?<![\w$])(?:Object|Array) (?=[{\[])")


def one_line_value(value: str | None) -> str | None:
    """A value the runner printed over several lines, on one (`{ "toString": "foo" }` for
    pretty-format's `Object {\n  "toString": "foo",\n}`): a statement quotes it in a sentence, and
    a check that it is said reads the sentence's words. Anything else as it is (a stack, a
    string that holds line breaks)."""
    if not value or "\n" not in value or not _PRINTED_CONTAINER.match(value.strip()):
        return value
    if any(line.strip() and not line[:1].isspace() and line.strip()[:1] not in "}]" for line in value.split("\n")[1:]):
        return value  # a line at the left margin inside it: a string's own line break
    flat = re.sub(r",\s*([}\]])", r" \1", " ".join(value.split()))
    return _CONTAINER_NAME.sub("", flat)


def explain_failure(source: str, test_id: str, report: dict, package: str = "") -> FailureEvidence:
    """The runner's evidence of one failure completed from the test's source: the failing check,
    the call under test, the checks before it, the test's lines, a reproduction."""
    evidence = FailureEvidence.from_dict(report, test_id=test_id)
    evidence.expected, evidence.observed = one_line_value(evidence.expected), one_line_value(evidence.observed)
    # what this producer derives is never taken from its input (a stored record read again)
    for name in _DERIVED:
        setattr(evidence, name, None)
    if not source:
        return evidence
    path = file_of_test(test_id)
    source = resolve_loop(source, path, test_id, evidence.line)
    root = parse(source, path).root_node
    test = find_test(root, test_id, evidence.line)
    if test is None:
        return evidence
    statements = test_statements(test.body)
    lines = source.splitlines()
    failing = _statement_at(statements, evidence.line) if evidence.line else None
    if failing is not None:
        statements, failing = _into_bare_blocks(statements, failing, evidence.line)
    # the runner said nothing of this failure: what the check requires is inferred from it
    inferred = evidence.kind is None and not evidence.line
    # no failing line known (a runner that gives none; a record read again, its kind inferred
    # before): a test with a single check failed at that check
    # with no word from the runner at all, a test of several checks requires every one: the
    # reproduction runs them all and ends with the last (which of them fails is not known)
    every_check = False
    if not evidence.line:
        checks = [s for s in statements if read_check(s) is not None]
        failing = checks[0] if len(checks) == 1 else None
        unsaid = not (evidence.observed or evidence.error or evidence.message)  # (a re-read record has its expected)
        if len(checks) > 1 and unsaid and evidence.kind in (None, "compare", "truthy"):
            failing, every_check = checks[-1], True
    helper = None
    if failing is None and evidence.line:  # the check sits in a helper the test calls
        helper = _innermost_statement(root, evidence.line)
    check = read_check(helper if helper is not None else failing)
    # before a helper's check, which of the test's own checks ran is not known
    checks_before = [
        c for s in statements if failing and s.end_point.row < failing.start_point.row if (c := read_check(s))
    ]
    if check is not None and check.style == "expect":
        _matcher_failure(evidence, check)
        _unwanted_throw(evidence, check)
    if check is not None:
        evidence.check = check.text[:CHECK_CHARS]
        typed = check.subject and grammar_of(path) != "javascript"
        evidence.call = without_types(check.subject) if typed else check.subject
        if evidence.kind == "compare" or evidence.kind is None:
            evidence.op = evidence.op and _op(evidence.op) or _op(check.matcher)
        # it threw where nothing may be thrown: an error, never a missing throw
        unwanted_throw = check.negated and check.matcher.startswith("toThrow")
        if not unwanted_throw and (check.matcher.startswith("toThrow") or check.matcher in ("throws", "rejects")):
            evidence.kind = "raises" if evidence.kind != "compare" else evidence.kind
        elif (inferred or every_check) and not unwanted_throw:  # required: the check's; given: not known
            evidence.kind = "compare" if check.expected is not None else "truthy"
            evidence.expected = check.expected
        evidence.function = _callee_name(check.subject)
    elif evidence.kind == "compare" and evidence.op:
        evidence.op = _op(evidence.op)
    elif evidence.kind == "error" and failing is not None and helper is None:
        # a statement that threw before any check: the call that threw is the one the error names
        thrown = _thrown_call(failing, evidence.error or "")
        function = thrown.child_by_field_name("function") if thrown is not None else None
        if thrown is not None:
            evidence.call = _compact(thrown)
            evidence.function = _compact(function) if function is not None else _callee_name(evidence.call)
    if evidence.expected is not None and evidence.exact is None:
        evidence.exact = evidence.expected.startswith('"')
    if failing is not None:  # (with every_check, whether the checks before the last passed is not known)
        evidence.passed_checks = [] if every_check else [c.text[:CHECK_CHARS] for c in checks_before]
    start = test.node.start_point.row
    # a test that throws before its checks (a name it calls is missing) shows its checks too: they say what is wanted
    stops = failing is not None and (check is not None or helper is not None)
    end = (failing.end_point.row if stops else test.node.end_point.row) + 1
    evidence.source = lines[start:end][:SOURCE_LINES]
    if failing is not None:
        rest = [read_check(s) for s in statements if s.start_point.row > failing.end_point.row]
        evidence.rest = _rest_of([" ".join(c.text.split()) for c in rest if c]) or None
    params = each_params(test, test_id)
    if params:
        evidence.params = params
    if helper is None:
        _reproduce(evidence, root, path, package, statements, failing, check, params, every_check=every_check)
    elif (inlined := _inline_helper(root, statements, evidence.line)) is not None:
        call, asserts, values = inlined  # the helper's checks, with the test's arguments, end the reproduction
        _reproduce(evidence, root, path, package, statements, call, _Check(asserts, style="expect"), inlined=asserts)
        # the check and its subject in the test's own names (`caughtErr.message`, not the helper's `err.message`)
        evidence.call = _written_in(evidence.call, values)
        evidence.check = _written_in(evidence.check, values)
        evidence.function = _callee_name(evidence.call) or evidence.function
    return evidence


_NOT_A_FUNCTION = re.compile(r"([A-Za-z_$][\w$.]*) is not a (?:function|constructor)")


def _thrown_call(statement, error: str):
    """The call of `statement` that `error` says has no function to call (`x.run is not a
    function`: the call of `.run`), else the statement's own call; None when it makes none."""
    named = _NOT_A_FUNCTION.search(error)
    wanted = named.group(1).rsplit(".", 1)[-1] if named else None
    calls = [n for n in walk_nodes(statement) if n.type in ("call_expression", "new_expression")]
    for call in calls:
        function = call.child_by_field_name("function") or call.child_by_field_name("constructor")
        if function is not None and wanted and node_text(function).rsplit(".", 1)[-1].strip() == wanted:
            return call
    return _outer_call(statement)


def _compact(node) -> str:
    """An expression on one line, a call chain written without the line breaks around its dots
    (`program.exitOverride().run(1)`)."""
    if node.type in ("call_expression", "new_expression"):
        function = node.child_by_field_name("function") or node.child_by_field_name("constructor")
        arguments = node.child_by_field_name("arguments")
        if function is not None and arguments is not None:
            head = "new " if node.type == "new_expression" else ""
            return head + _compact(function) + _one_line(arguments)
    if node.type == "member_expression":
        obj, prop = node.child_by_field_name("object"), node.child_by_field_name("property")
        if obj is not None and prop is not None:
            return f"{_compact(obj)}.{node_text(prop)}"
    return _one_line(node)


_CALLEE = re.compile(r"(?<![\w$.])([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)\s*\(")
_NOT_CALLEES = {"function", "if", "for", "while", "switch", "catch", "return", "typeof", "async", "await", "new"}


_MATCHER_LINE = re.compile(r"^(?P<side>Expected|Received)(?: [a-z]+)*: (?P<value>.+)$", re.MULTILINE)
_IMPLIED = {"toBeUndefined": "undefined", "toBeNull": "null", "toBeDefined": "defined", "toBeTruthy": "truthy",
            "toBeFalsy": "falsy", "toBeNaN": "NaN"}  # fmt: skip


def _matcher_failure(evidence: FailureEvidence, check: _Check) -> None:
    """A jest/vitest matcher that failed without values in the report (`Error: expect(received)
    .toBeUndefined()`) is a failed check, not a throw: its values come from the matcher's
    message, or the matcher itself says what it requires."""
    if evidence.kind != "error" or not (evidence.error or "").startswith(("Error: expect(", "JestAssertionError")):
        return
    sides = {m["side"]: m["value"].strip() for m in _MATCHER_LINE.finditer(evidence.message or "")}
    evidence.kind, evidence.error = "compare", ""
    evidence.observed = sides.get("Received", "")
    evidence.expected = sides.get("Expected") or _IMPLIED.get(check.matcher) or (check.expected or "")
    evidence.op = _op(check.matcher)


_THROWN = re.compile(r'Error name:\s*"(?P<name>[^"\n]+)"\s*\n\s*Error message:\s*"(?P<message>[^\n]*)"')


def _unwanted_throw(evidence: FailureEvidence, check: _Check) -> None:
    """`expect(fn).not.toThrow()` failed: fn threw, and what it threw (jest/vitest name it in
    the message) is the error of the current code; nothing is required to be thrown."""
    if not (check.negated and check.matcher.startswith("toThrow")):
        return
    thrown = _THROWN.search(evidence.message or "")
    said = f"{thrown['name']}: {thrown['message']}" if thrown else (evidence.error or "").split("\n")[0]
    if not said or said.startswith("Error: expect("):
        said = "an error"
    evidence.kind, evidence.error, evidence.op, evidence.expected, evidence.observed = "error", said, None, None, None


def _callee_name(subject: str | None) -> str | None:
    """`parseQuery` of `parseQuery("a=b")`, `cookie.parse` of `cookie.parse(x, y)` and of
    `function () { cookie.parse(x) }`: the first call the checked expression makes."""
    for match in _CALLEE.finditer(subject or ""):
        if match.group(1) not in _NOT_CALLEES:
            return match.group(1)
    return None


def _reproduce(
    evidence,
    root,
    path: str,
    package: str,
    statements: list,
    failing,
    check: _Check | None,
    params: dict | None = None,
    inlined: str | None = None,
    every_check: bool = False,
) -> None:
    """A snippet that runs on its own with the package installed and ends with the failing check
    (or, for a check inside a helper of the file, with the helper's checks written in; for a
    statement that threw where no check stands, with that statement and the rest of the test)."""
    if failing is None or (check is not None and check.style in ("async", "other")):
        return
    expect_checks = check is not None and check.style == "expect"
    after: list[tuple[object, str]] = []  # the statements after the failing one that the snippet runs
    if check is None:
        # it threw before any check (a name the fix adds is missing): the snippet runs that
        # statement and the rest of the test, whose checks say what the fixed code must do
        if evidence.kind != "error":
            return
        last = node_text(failing)
        for statement in statements:
            if statement.start_point.row <= failing.end_point.row or statement.type == "comment":
                continue
            text = _plain(statement)
            if text is not None and not _SPY_CLEANUP.fullmatch(text):
                after.append((statement, text))
                expect_checks = expect_checks or text != node_text(statement)
    elif inlined is not None:
        last = inlined
    elif check.style == "expect":
        last = _assert_form(check)
        if last is None:
            return
    else:
        last = node_text(failing)
    # the checks before the failing one passed on the buggy state and are left out, except one that
    # runs code for its effects (a callback that must throw): as a node:assert call it runs
    setup = []
    for statement in statements:
        if statement.end_point.row >= failing.start_point.row:
            break
        if statement.type == "comment":
            continue  # the test's comments speak to its authors (and may tell the fix)
        earlier = read_check(statement)
        if earlier is None:
            setup.append((statement, node_text(statement)))
        elif every_check:  # each check is required, none known to pass: as plain node runs it
            if (written := _plain(statement)) is None:
                return
            setup.append((statement, written))
            expect_checks = expect_checks or written != node_text(statement)
        elif earlier.style == "expect" and earlier.matcher.startswith("toThrow") and not earlier.negated:
            if (written := _assert_form(earlier)) is not None:
                setup.append((statement, written))
                expect_checks = True
    imports, bound, unusable, project = _imports(root, path, package)
    checked = [parse(inlined, "inlined.js").root_node] if inlined is not None else [failing]
    checked += [node for node, _ in after]
    chai = any(c is not None and c.style == "chai-should" for c in [check, *(read_check(n) for n, _ in after)])
    enabling = _enabling_calls(root) if chai else []
    support: list[tuple[object, str]] = []  # what the test file sets up for the test outside it
    while True:
        setup_nodes = [node for node, _ in [*support, *setup]]
        nodes = [*setup_nodes, *checked]
        expect_checks = expect_checks or any(text != node_text(node) for node, text in support)
        used = _used(nodes) - ({"assert", "expect"} if expect_checks else set())
        used |= _used(enabling)
        spies = _spy_objects(nodes)
        imported = {name for names in bound for name in names} - spies
        # node:assert is imported for a rewritten expect, and for a bare `assert` the file gets from elsewhere
        needs_assert = expect_checks or ("assert" in used and "assert" not in imported)
        cases = {name: value for name, value in (params or {}).items() if name in used}
        defined = _defined([*setup_nodes, failing, *checked]) | GLOBALS | imported | set(cases) | spies
        defined |= {"assert"} if needs_assert else set()
        unbound = sorted(used - defined)
        body = statements[0].parent if statements else None
        more = _file_support(root, body, set(unbound), support) if unbound and body is not None else []
        if not more:
            break
        support = more + support
    unusable -= spies
    if unbound or used & unusable:
        evidence.unbound = sorted(set(unbound) | (used & unusable))
        return
    header = [
        _only_used(line, used)
        for line, names in zip(imports, bound)
        if (not names or names & used) and not (names and names <= spies)
    ]
    header += [node_text(node) for node in enabling]
    body_text = "\n".join([last, *(text for _, text in [*support, *setup, *after])])
    module = any(line.startswith("import ") for line in header) or path.endswith((".mjs", ".mts", ".ts", ".tsx"))
    if "isDeepStrictEqual(" in body_text:
        header.insert(0, _import_line("{ isDeepStrictEqual }", "node:util", module))
    if needs_assert:
        header.insert(0, _import_line("assert", "node:assert", module))
    body = [
        *(f"const {name} = {value};" for name, value in cases.items()),
        *(SPY_STAND_IN.format(name=name) for name in sorted(spies)),
        *(_dedent(text, node.start_point.column) for node, text in [*support, *setup]),
        _dedent(last, failing.start_point.column),
        *(_dedent(text, node.start_point.column) for node, text in after),
    ]
    evidence.reproduction = "\n".join([*header, "", *body])
    evidence.entry_point = _entry_point("\n".join(body), project & used) or None
    if after:  # the rest of the test is in the snippet: listing its checks again says nothing new
        evidence.rest = None
    if grammar_of(path) != "javascript":  # a ```js block runs in plain node: no type syntax
        evidence.reproduction = without_types(evidence.reproduction)
    evidence.long = len(evidence.reproduction.splitlines()) > SOURCE_LINES or None


def _entry_point(body: str, project: set[str]) -> str:
    """The first call in `body` of a name the project's imports bind, as written up to its
    arguments (`parser`, `commander.Command`): the public entry point a reproduction calls."""
    callees = []  # (where the call starts, its callee)
    for node in walk_nodes(parse(body, "reproduction.js").root_node):
        if node.type not in ("call_expression", "new_expression"):
            continue
        callee = node.child_by_field_name("function") or node.child_by_field_name("constructor")
        if callee is not None and callee.type in ("identifier", "member_expression"):
            if node_text(callee).split(".")[0] in project:
                callees.append((node.start_byte, callee))
    if not callees:
        return ""
    _, first = min(callees, key=lambda found: found[0])
    return "".join(node_text(first).split())


def _assert_form(check: _Check) -> str | None:
    """A jest/vitest `expect` check as the node:assert call that checks the same (None when the
    matcher has no such form here)."""
    if check.matcher == "toMatchObject" and not check.negated:
        return _match_object(check.subject, check.expected)
    template = (_NEGATED if check.negated else _ASSERT_FOR).get(check.matcher)
    expected = ", ".join(check.arguments) if check.matcher in _ALL_ARGUMENTS else check.expected
    if template is not None and check.matcher.startswith("toThrow") and not check.negated:
        if expected is None:
            template = "assert.throws({x});"
        elif expected[:1] in "'\"`":
            # jest's toThrow("text") wants the message to hold the text; node's assert.throws(fn,
            # "text") would take the text as its own message and accept any error
            template = "assert.throws({x}, (error) => error.message.includes({y}));"
    if template is None or check.subject is None or ("{y}" in template and expected is None):
        return None
    return template.format(x=check.subject, y=expected)


_SPY_CLEANUP = re.compile(r"[\w$.]+\.mock(?:Restore|Clear|Reset)\(\);?")  # a spy put back: nothing to check


HOOKS = {"beforeAll", "beforeEach", "before"}  # what runs before each test of a suite (jest, vitest, mocha)


def _file_support(root, test_body, needed: set[str], have: list) -> list[tuple[object, str]]:
    """What the test file gives a test outside its body, for the `needed` names: a suite's
    `let spy;` (and the hooks before each test that set it) and the file's helper functions (their
    jest checks as node:assert calls), outer scopes first; [] when nothing new binds one."""
    taken = {id(node) for node, _ in have}
    found: list[tuple[object, str]] = []
    scope = test_body.parent
    scopes = []
    while scope is not None:
        if scope.type in ("statement_block", "program"):
            scopes.append(scope)
        scope = scope.parent
    inside = (test_body.start_byte, test_body.end_byte)
    for block in reversed(scopes):
        for child in block.named_children:
            if child.type == "comment" or id(child) in taken:
                continue
            if child.start_byte <= inside[0] and inside[1] <= child.end_byte:
                continue  # the suite or test call that holds the test
            if child.type in ("lexical_declaration", "variable_declaration", "function_declaration"):
                if not _defined([child]) & needed or "require(" in node_text(child):
                    continue
                text = _with_asserts(child) if child.type == "function_declaration" else node_text(child)
                if text is not None:
                    found.append((child, text))
            elif (call := _outer_call(child)) is not None and _called_identifier(call) in HOOKS:
                body = _callback(call.child_by_field_name("arguments"))
                statements = test_statements(body)
                assigned = {
                    node_text(n.child_by_field_name("left"))
                    for statement in statements
                    for n in walk_nodes(statement)
                    if n.type == "assignment_expression"
                }
                if assigned & needed:
                    found += [(s, text) for s in statements if s.type != "comment" and (text := _plain(s)) is not None]
    return found


def _with_asserts(function) -> str | None:
    """A helper function's text with each jest/vitest check in it as its node:assert call; None
    when one has no such form."""
    start, replacements = function.start_byte, []
    for node in walk_nodes(function):
        check = read_check(node) if node.type == "expression_statement" else None
        if check is None or check.style != "expect":
            continue
        written = _assert_form(check)
        if written is None:
            return None
        replacements.append((node.start_byte - start, node.end_byte - start, written))
    return _replace(node_text(function), replacements)


def _plain(statement) -> str | None:
    """A statement of a test as plain node runs it: a jest/vitest check as its node:assert call
    (None when it has none), anything else as written."""
    check = read_check(statement)
    if check is None or check.style != "expect":
        return node_text(statement)
    return _assert_form(check)


def _import_line(names: str, module_name: str, module: bool) -> str:
    if module:
        return f"import {names} from '{module_name}';"
    return f"const {names} = require('{module_name}');"


def _spy_objects(nodes: list) -> set[str]:
    """The spy factories (`jest`, `vi`) the nodes use only as `jest.fn(...)` / `vi.spyOn(...)`:
    a reproduction defines a stand-in for them."""
    uses: dict[str, bool] = {}
    for node in nodes:
        for n in walk_nodes(node):
            if n.type != "identifier" or node_text(n) not in SPY_OBJECTS:
                continue
            parent = n.parent
            factory = (
                parent is not None
                and parent.type == "member_expression"
                and parent.child_by_field_name("object") == n
                and node_text(parent.child_by_field_name("property")) in SPY_FACTORIES
            )
            uses[node_text(n)] = uses.get(node_text(n), True) and factory
    return {name for name, only_factories in uses.items() if only_factories}


REST_CHECKS = 12  # the checks after the failing one that the record keeps, one a line


def _rest_of(checks: list[str]) -> str:
    """The test's checks after the failing one, one a line, whole: up to REST_CHECKS, each at
    most CHECK_CHARS long (a longer one ends the list: a cut check would state a wrong requirement)."""
    kept = []
    for check in checks[:REST_CHECKS]:
        if len(check) > CHECK_CHARS:
            break
        kept.append(check)
    return "\n".join(kept)


def without_types(code: str) -> str:
    """TypeScript code as plain JS, for what a reproduction holds: `x as T`, `x satisfies T`
    and `x!` become `x`; type annotations and type arguments go."""
    data = code.encode("utf-8")

    def plain(node) -> bytes:
        if node.type in ("as_expression", "satisfies_expression", "non_null_expression") and node.named_children:
            return plain(node.named_children[0])
        if node.type in ("type_annotation", "type_arguments") and node.parent is not None:
            return b""
        out, at = [], node.start_byte
        for child in node.children:
            out += [data[at : child.start_byte], plain(child)]
            at = child.end_byte
        out.append(data[at : node.end_byte])
        return b"".join(out)

    root = parse(code, "snippet.ts").root_node
    return (data[: root.start_byte] + plain(root) + data[root.end_byte :]).decode("utf-8", errors="replace")


_SIMPLE_ARGUMENTS = ("identifier", "string", "number", "member_expression", "true", "false", "null", "template_string")


def _written_in(text: str | None, values: dict[str, str]) -> str | None:
    """`text` with each identifier that `values` names replaced by its value."""
    if not text:
        return text
    names = [n for n in walk_nodes(parse(text, "text.js").root_node) if n.type == "identifier"]
    return _replace(text, [(n.start_byte, n.end_byte, values[node_text(n)]) for n in names if node_text(n) in values])


def _inline_helper(root, statements: list, line: int | None) -> tuple[object, str, dict[str, str]] | None:
    """(the test's call of the file's helper function that holds `line`, the helper's checks as
    node:assert calls with the call's arguments written in) when the helper is only jest/vitest
    checks the assert table knows and the test calls it once; else None."""
    helper = next(
        (
            n
            for n in root.named_children
            if n.type == "function_declaration" and line and n.start_point.row + 1 <= line <= n.end_point.row + 1
        ),
        None,
    )
    params = _parameter_names(helper) if helper is not None else None
    if helper is None or not params:
        return None
    name = node_text(helper.child_by_field_name("name"))
    calls = [s for s in statements if (c := _outer_call(s)) is not None and _called_identifier(c) == name]
    if len(calls) != 1:
        return None
    arguments = _outer_call(calls[0]).child_by_field_name("arguments")
    args = [a for a in arguments.named_children if a.type != "comment"]
    if len(args) != len(params):
        return None
    values = {p: node_text(a) if a.type in _SIMPLE_ARGUMENTS else f"({node_text(a)})" for p, a in zip(params, args)}
    lines = []
    for statement in test_statements(helper.child_by_field_name("body")):
        check = read_check(statement)
        template = _ASSERT_FOR.get(check.matcher) if check is not None and check.style == "expect" else None
        if template is None or check.negated or check.subject is None or check.matcher.startswith("toThrow"):
            return None
        if "{y}" in template and check.expected is None:
            return None
        lines.append(_written_in(template.format(x=check.subject, y=check.expected), values))
    return (calls[0], "\n".join(lines), values) if lines else None


def _match_object(subject: str | None, expected: str | None) -> str | None:
    """`expect(x).toMatchObject({ a: 1, "b-c": [2] })` as node:assert calls: each property the
    object literal names is compared (`result.a`, `result["b-c"]`); None for any other form."""
    if not subject or not expected:
        return None
    root = parse(f"({expected})", "expected.js").root_node
    node = root.named_children[0] if root.named_children else None
    node = node.named_children[0] if node is not None and node.named_children else None
    while node is not None and node.type == "parenthesized_expression" and node.named_children:
        node = node.named_children[0]
    if root.has_error or node is None or node.type != "object":
        return None
    lines = [f"const result = {subject};"]
    for pair in node.named_children:
        if pair.type == "comment":
            continue
        if pair.type != "pair":
            return None
        try:
            key = _key(pair.child_by_field_name("key"))
        except _Unknown:
            return None
        access = f".{key}" if re.fullmatch(r"[A-Za-z_$][\w$]*", key) else f"[{json.dumps(key)}]"
        lines.append(f"assert.deepEqual(result{access}, {node_text(pair.child_by_field_name('value'))});")
    return "\n".join(lines) if len(lines) > 1 else None


def _dedent(text: str, column: int) -> str:
    lines = text.split("\n")
    return "\n".join([lines[0], *(ln[column:] if ln[:column].strip() == "" else ln for ln in lines[1:])])


# ---------------------------------------------------------------- definitions (mining, statements)

_DEFINITION_TYPES = (
    "function_declaration",
    "generator_function_declaration",
    "class_declaration",
    "method_definition",
)


def definitions(text: str, path: str) -> list[tuple[str, int, int, object]]:
    """(name, first line, last line, node) of each named function, class, method and
    function-valued variable of a JS/TS file (lines 1-based)."""
    found = []
    for node in walk_nodes(parse(text, path).root_node):
        name = None
        if node.type in _DEFINITION_TYPES:
            name = node.child_by_field_name("name")
        elif node.type == "variable_declarator":
            value = node.child_by_field_name("value")
            if value is not None and value.type in ("arrow_function", "function_expression", "function"):
                name = node.child_by_field_name("name")
        if name is not None and name.type in ("identifier", "property_identifier", "type_identifier"):
            found.append((node_text(name), node.start_point.row + 1, node.end_point.row + 1, node))
    return found


def enclosing_definitions(text: str, path: str, lines: set[int]) -> list[str]:
    """The innermost definition around each of `lines`, in line order, each name once."""
    spans = definitions(text, path)
    out: list[str] = []
    for line in sorted(lines):
        around = [d for d in spans if d[1] <= line <= d[2]]
        if around:
            name = min(around, key=lambda d: d[2] - d[1])[0]
            if name not in out:
                out.append(name)
    return out
