"""Source written back from a changed tree: an f-string given a value it cannot hold on 3.10/3.11."""

import ast
import sys

from llm import unparse


class _Substitute(ast.NodeTransformer):
    def __init__(self, values):
        self.values = values

    def visit_Name(self, node):
        return ast.Constant(self.values[node.id]) if node.id in self.values else node


def _substituted(source, values):
    return _Substitute(values).visit(ast.parse(source))


def test_an_f_string_given_a_backslash_and_both_quotes_is_written_as_the_same_value():
    values = {"escape": "\x1bc\\", "quotes": "'\""}
    source = 'shown = f"<{escape!r:>{width}}|{quotes}|{escape}>"'
    written = unparse(_substituted(source, values))
    scope = {"width": 12}
    exec(written, scope)
    expected = {"width": 12, **values}
    exec(source, expected)
    assert scope["shown"] == expected["shown"]
    assert ("format(" in written) == (sys.version_info < (3, 12))  # 3.12 writes any value inside


def test_an_f_string_that_can_be_written_stays_one():
    written = unparse(_substituted('shown = f"{a} and {b!r}"', {"a": "plain"}))
    assert written == "shown = f\"{'plain'} and {b!r}\""
    assert unparse(ast.parse("f'{x:>4}'")) == "f'{x:>4}'"


def test_literal_text_substituted_into_an_f_string_is_one_string_literal():
    written = unparse(_substituted("shown = wrap(f'{start}link{end}more', 5)", {"start": "\x1b]8;;", "end": "\x1b\\"}))
    assert written == "shown = wrap('\\x1b]8;;link\\x1b\\\\more', 5)"
