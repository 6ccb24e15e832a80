"""Mutation sites of a JavaScript or TypeScript file, read with tree-sitter: the JS/TS half of
procedural synthesis.

The operators match the Python ones (flip a comparison, off-by-one on an integer literal,
drop an `if` guard, swap a call's first two arguments) plus one of JS's own: `flip_logical`
turns `&&` into `||`, `||` into `&&` and `??` into `||` (a falsy 0 or "" then takes the
default). Sites lie inside a function body (declarations, expressions, arrows, methods,
generators), never in a comment, a string, a template literal, a regex or a type; each is
owned by its innermost function. A replacement rewrites the node's own source text, so the
rest of the file stays byte-identical.
"""

from __future__ import annotations

import re
from functools import cache

from tree_sitter import Language, Node, Parser

from tasks.mutation import Mutation

FUNCTIONS = frozenset(
    {
        "function_declaration",
        "function_expression",
        "function",  # older grammars' name of function_expression
        "arrow_function",
        "method_definition",
        "generator_function_declaration",
        "generator_function",
    }
)
# subtrees that hold no code to mutate (a template's ${...} is code, but a bug there reads as a typo)
OPAQUE = frozenset({"comment", "string", "template_string", "regex", "html_comment"})
TYPE_CONTEXTS = frozenset(
    {
        "type_annotation",
        "type_arguments",
        "type_parameters",
        "type_alias_declaration",
        "interface_declaration",
        "abstract_class_declaration",
        "ambient_declaration",
        "literal_type",
        "enum_declaration",
        "asserts_annotation",
    }
)
FLIPPED_COMPARISON = {"<": "<=", "<=": "<", ">": ">=", ">=": ">", "===": "!==", "!==": "===", "==": "!=", "!=": "=="}
FLIPPED_LOGICAL = {"&&": "||", "||": "&&", "??": "||"}
BRANCHES = frozenset(
    {
        "if_statement",
        "for_statement",
        "for_in_statement",
        "while_statement",
        "do_statement",
        "switch_case",
        "catch_clause",
        "ternary_expression",
    }
)
DECIMAL_INTEGER = re.compile(r"^(0|[1-9][0-9]*)$")
GRAMMARS = {  # extension -> tree-sitter grammar
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".jsx": "javascript",
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".tsx": "tsx",
}


@cache
def _language(grammar: str) -> Language:
    if grammar == "javascript":
        import tree_sitter_javascript

        return Language(tree_sitter_javascript.language())
    import tree_sitter_typescript

    return Language(
        tree_sitter_typescript.language_tsx() if grammar == "tsx" else tree_sitter_typescript.language_typescript()
    )


def grammar_of(path: str) -> str | None:
    """The grammar that reads `path` (by its extension), or None for a file that is not JS/TS."""
    return next((g for ext, g in GRAMMARS.items() if path.endswith(ext)), None)


def _parse(path: str, source: str):
    return Parser(_language(grammar_of(path) or "javascript")).parse(source.encode("utf-8"))


def parses(path: str, source: str) -> bool:
    """True when the file's grammar reads `source` without an error or a missing node."""
    return not _parse(path, source).root_node.has_error


def mutation_sites(path: str, source: str) -> list[Mutation]:
    """Every mutation of every function in `source` (a JS/TS file), in source order; none for a
    file its grammar cannot read cleanly."""
    if grammar_of(path) is None:
        return []
    tree = _parse(path, source)
    if tree.root_node.has_error:
        return []
    data = source.encode("utf-8")
    chars = _CharOffsets(data)
    found: list[Mutation] = []
    stack: list[tuple[Node, Node | None]] = [(tree.root_node, None)]
    while stack:
        node, func = stack.pop()
        if node.type in OPAQUE or node.type in TYPE_CONTEXTS or node.type.endswith("_type"):
            continue
        if node.type in FUNCTIONS and node.child_by_field_name("body") is not None:
            func = node
        elif func is not None:
            for operator, segment, replacement in _mutations(node, data):
                start, end = chars.of(segment.start_byte), chars.of(segment.end_byte)
                found.append(
                    Mutation(
                        path,
                        _function_name(func),
                        operator,
                        start,
                        end,
                        segment.start_point[0] + 1,
                        segment.end_point[0] + 1,
                        replacement,
                        _complexity(func),
                        (func.start_point[0] + 1,),
                    )
                )
        stack.extend((child, func) for child in reversed(node.children))
    return sorted(found, key=lambda m: (m.start, m.operator))


def _text(node: Node, data: bytes) -> str:
    return data[node.start_byte : node.end_byte].decode("utf-8")


def _with_operator(node: Node, op: Node, new: str, data: bytes) -> str:
    """The node's text with its operator token replaced."""
    return (data[node.start_byte : op.start_byte] + new.encode() + data[op.end_byte : node.end_byte]).decode("utf-8")


def _mutations(node: Node, data: bytes) -> list[tuple[str, Node, str]]:
    """(operator, the segment it rewrites, the segment's new text) for each mutation of `node`."""
    if node.type == "binary_expression":
        op = node.child_by_field_name("operator")
        if op is None:
            return []
        token = op.type
        if token in FLIPPED_COMPARISON:
            return [("flip_comparison", node, _with_operator(node, op, FLIPPED_COMPARISON[token], data))]
        if token in FLIPPED_LOGICAL:
            return [("flip_logical", node, _with_operator(node, op, FLIPPED_LOGICAL[token], data))]
        return []
    if node.type == "number" and node.is_named and DECIMAL_INTEGER.match(_text(node, data)):
        return [("off_by_one", node, str(int(_text(node, data)) + 1))]
    if node.type == "if_statement":
        condition = node.child_by_field_name("condition")
        # the guard's test becomes false: its branch never runs (its else, if any, always does)
        return [("drop_guard", condition, "(false)")] if condition is not None else []
    if node.type == "call_expression":
        arguments = node.child_by_field_name("arguments")
        if arguments is None or arguments.type != "arguments":  # a tagged template has no argument list
            return []
        args = [a for a in arguments.named_children if a.type != "comment"]
        if len(args) >= 2 and "spread_element" not in (args[0].type, args[1].type):
            first, second = _text(args[0], data), _text(args[1], data)
            if first != second:
                between = data[args[0].end_byte : args[1].start_byte].decode("utf-8")
                return [("swap_arguments", node, _segment(node, args[0], args[1], second + between + first, data))]
    return []


def _segment(node: Node, a: Node, b: Node, new: str, data: bytes) -> str:
    """The node's text with the bytes from `a`'s start to `b`'s end replaced by `new`."""
    return (data[node.start_byte : a.start_byte] + new.encode() + data[b.end_byte : node.end_byte]).decode("utf-8")


def _function_name(func: Node) -> str:
    name = func.child_by_field_name("name")
    if name is not None:
        return name.text.decode("utf-8")
    parent = func.parent  # an anonymous function takes the name it is bound to
    if parent is not None:
        for field in ("name", "key", "left"):
            bound = parent.child_by_field_name(field)
            if (
                bound is not None
                and bound != func
                and bound.type
                in (
                    "identifier",
                    "property_identifier",
                    "member_expression",
                    "string",
                )
            ):
                return bound.text.decode("utf-8").strip("'\"")
    return "<anonymous>"


def _complexity(func: Node) -> int:
    """1 + the branches of the function's own body (nested functions count for themselves)."""
    count, stack = 1, list(func.children)
    while stack:
        node = stack.pop()
        if node.type in FUNCTIONS:
            continue
        if node.type in BRANCHES:
            count += 1
        elif node.type == "binary_expression":
            op = node.child_by_field_name("operator")
            count += op is not None and op.type in FLIPPED_LOGICAL
        stack.extend(node.children)
    return count


class _CharOffsets:
    """Character offsets of tree-sitter's byte offsets (they differ only past non-ASCII text)."""

    def __init__(self, data: bytes):
        self.data = data
        self.ascii = data.isascii()

    def of(self, byte_offset: int) -> int:
        if self.ascii:
            return byte_offset
        return len(self.data[:byte_offset].decode("utf-8", errors="ignore"))
