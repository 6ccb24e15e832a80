"""A statement that asks for a new name or argument states its signature (`new_interfaces`).

Check set 28's raters discarded parsita's request for `ParserContext(whitespace=...)` and
SimpleParsing's for `add_config_path_arg`: the tests showed one call each, and the rest of the
design (the parameters, their order and defaults) had to be guessed."""

from __future__ import annotations

from llm.offline import write_statement
from tasks.mining import Candidate
from tasks.statement import new_interfaces
from tests.sandbox_fixtures import git, make_repo, write

BEFORE = """class Parser:
    def parse(self, text):
        return text

    def _helper(self):
        return 1


def run(text):
    return text
"""
AFTER = """class Parser:
    def parse(self, text, *, whitespace=None):
        return text

    def _helper(self, extra=0):
        return 1


class ParserContext:
    def __init__(self, whitespace: str | None = None):
        self.whitespace = whitespace


def run(text):
    return text


def _private(x):
    return x


@dataclass
class Variable:
    name: str
    start: int = 0


class Plus:
    pass
"""


def _candidate(tmp_path) -> Candidate:
    repo, parent = make_repo(tmp_path / "repo", {"pkg/core.py": BEFORE})
    write(repo, {"pkg/core.py": AFTER})
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "Add ParserContext")
    sha = git(repo, "rev-parse", "HEAD")
    return Candidate("acme/p", str(repo), sha, parent, "Add ParserContext", "", "", ["pkg/core.py"], [], "feature_add")


def test_the_callables_a_change_adds_or_extends_are_read_with_their_signatures(tmp_path):
    """A private one too: pydoclint's tests call `_checkFile` with its new `typeHintsInDocstring`."""
    found = {i["name"]: (i["signature"], i["new_parameters"]) for i in new_interfaces(_candidate(tmp_path))}
    assert found == {
        "Parser.parse": ("Parser.parse(text, *, whitespace=None)", {"whitespace": "whitespace=None"}),
        "Parser._helper": ("Parser._helper(extra=0)", {"extra": "extra=0"}),
        "Variable": ("Variable(name: str, start: int = 0)", {}),  # a dataclass is called with its fields
        "Plus": ("class Plus", {}),
        "ParserContext": ("ParserContext(whitespace: str | None = None)", {}),
        "_private": ("_private(x)", {}),
    }  # the unchanged `run` is no interface


CONTEXT = {
    "task": "write_statement",
    "strategy_type": "FEATURE_ADD",
    "repo": "acme/p",
    "commit_subject": "Add ParserContext",
    "failing_tests": [{"id": "tests/test_p.py::test_ctx", "assertion": "assert ctx.whitespace == ' '"}],
    "failures": [
        {
            "id": "tests/test_p.py::test_ctx",
            "kind": "compare",
            "phase": "collect",
            "error": "ImportError: cannot import name 'ParserContext' from 'pkg.core' (pkg/core.py)",
            "reproduction": (
                "from pkg.core import ParserContext\nctx = ParserContext(' ')\nassert ctx.whitespace == ' '\n"
            ),
            "call": "ctx.whitespace",
            "check": "ctx.whitespace == ' '",
            "expected": "' '",
            "derived": True,
        }
    ],
    "added_lines": ["class ParserContext:", "    def __init__(self, whitespace: str | None = None):"],
}


def test_a_request_for_a_new_class_states_its_signature_and_nothing_else_of_the_change(tmp_path):
    interfaces = new_interfaces(_candidate(tmp_path))
    text = write_statement({**CONTEXT, "new_interfaces": interfaces}, "Write an issue. no_leak")["problem_statement"]
    assert "`ParserContext(whitespace: str | None = None)` in `pkg/core.py`" in text, text
    assert "parse(text" not in text and "_private" not in text  # asked for by no test
    without = write_statement(CONTEXT, "Write an issue. no_leak")["problem_statement"]
    assert "ParserContext(whitespace: str" not in without


def test_a_new_keyword_is_stated_for_the_callable_that_refuses_it_by_the_parameter_it_gains():
    """pydoclint: the tests pass `style=` to `_checkFile` (a signature over 400 characters, whose
    other parameters the solver reads in the buggy code); `Visitor` gains `style` too, but no
    test is refused by it."""
    long = "_checkFile(filename: Path, " + ", ".join(f"option{i}: bool = False" for i in range(12)) + ", style='numpy')"
    interfaces = [
        {
            "file": "pkg/v.py",
            "name": "Visitor",
            "signature": "Visitor(style='numpy')",
            "new_parameters": {"style": "style='numpy'"},
        },
        {"file": "pkg/main.py", "name": "_checkFile", "signature": long, "new_parameters": {"style": "style='numpy'"}},
    ]
    failure = {
        "id": "tests/test_p.py::test_style",
        "kind": "error",
        "error": "TypeError: _checkFile() got an unexpected keyword argument 'style'",
        "reproduction": "from pkg.main import _checkFile\n_checkFile('a.py', style='google')\n",
        "call": "_checkFile('a.py', style='google')",
        "derived": True,
    }
    context = {
        **CONTEXT,
        "commit_subject": "Add a style option",
        "failing_tests": [{"id": "tests/test_p.py::test_style", "assertion": ""}],
        "failures": [failure],
        "added_lines": ["    style='numpy',"],
        "new_interfaces": interfaces,
    }
    text = write_statement(context, "Write an issue. no_leak")["problem_statement"]
    assert "- `_checkFile` gains `style='numpy'`" in text, text
    assert "Visitor" not in text and "option0" not in text


def test_a_statement_told_to_name_the_function_names_the_one_asked_for_not_the_touched_ones(tmp_path):
    """pydoclint's feature requests, told to "name the function the user needs and its
    signature", listed the first touched functions (`Plugin`, `main`): where the fix goes."""
    touched = [{"file": "pkg/plugin.py", "name": "Plugin", "signature": "class Plugin"}]
    context = {**CONTEXT, "touched_functions": touched}
    told = "Write a feature request. Name the function the user needs and its signature. Do not reveal the solution."
    without = write_statement(context, told)["problem_statement"]
    assert "`Plugin`" in without  # the directive holds: the touched function is named
    text = write_statement({**context, "new_interfaces": new_interfaces(_candidate(tmp_path))}, told)
    assert "`Plugin`" not in text["problem_statement"] and "ParserContext(whitespace" in text["problem_statement"]


def test_a_touched_signature_over_several_lines_is_given_whole():
    """pydoclint's `generateBaseline(` was a touched function's whole signature."""
    from tasks.statement import signatures

    source = "def generateBaseline(\n    violations: dict,\n    path: Path = None,\n) -> None:\n    pass\n"
    assert signatures({"b.py": source}, ["generateBaseline"]) == [
        {
            "file": "b.py",
            "name": "generateBaseline",
            "signature": "def generateBaseline(violations: dict, path: Path = None) -> None",
        }
    ]


def test_told_to_name_the_function_the_statement_names_first_those_the_tests_call_and_no_bare_dunder():
    """parsita 1980364a: "It concerns `class Parser(...)`. ... It concerns `__init__(self)`": the
    first touched functions, one a dunder that names no class, none the function the tests call."""
    touched = [
        {"file": "pkg/p.py", "name": "Parser", "signature": "class Parser(Generic[Input, Output])"},
        {"file": "pkg/p.py", "name": "__init__", "signature": "def __init__(self)"},
        {"file": "pkg/p.py", "name": "Helper", "signature": "class Helper"},
        {"file": "pkg/p.py", "name": "Other", "signature": "class Other"},
        {"file": "pkg/core.py", "name": "ParserContext", "signature": "class ParserContext"},
    ]
    told = "Write a bug report. Name the function that misbehaves and its signature. Never reveal the fix."
    text = write_statement({**CONTEXT, "touched_functions": touched}, told)["problem_statement"]
    assert "`ParserContext`" in text and "__init__" not in text, text


def test_a_class_the_change_only_moves_to_another_module_is_no_new_interface(tmp_path):
    """dirty-equals ae3881c6 moved `IsInstance` into `_inspection.py`: the statement said the
    module "does not have it yet" and stated it as a new interface."""
    from tasks.statement import moved_out

    moved = "class IsInstance:\n    def __init__(self, expected_type):\n        self.t = expected_type\n"
    repo, parent = make_repo(tmp_path / "repo", {"pkg/a.py": moved, "pkg/b.py": "X = 1\n"})
    write(repo, {"pkg/a.py": "", "pkg/b.py": "X = 1\n\n\n" + moved + "\n\nclass HasAttributes:\n    pass\n"})
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "Move IsInstance, add HasAttributes")
    sha = git(repo, "rev-parse", "HEAD")
    candidate = Candidate("acme/p", str(repo), sha, parent, "Add", "", "", ["pkg/a.py", "pkg/b.py"], [], "feature_add")
    assert [i["name"] for i in new_interfaces(candidate)] == ["HasAttributes"]
    patch = git(repo, "diff", parent, sha)
    assert moved_out(
        [line[1:] for line in patch.splitlines() if line.startswith("+") and not line.startswith("+++")], patch
    ) == [
        "class HasAttributes:",
        "    pass",
    ]


def test_a_failing_test_whose_setup_cannot_be_quoted_is_still_stated_by_its_call_and_outcome():
    """lark fadf3f8f: a test of a factory-made class read `_Lark` and `LEXER`, so it was only
    counted ("1 more failing test is not spelled out here"); a blind rater found it wanted
    `ConfigurationError`, which nothing asked for."""
    quoted = {
        "id": "tests/test_scan.py::test_scan",
        "kind": "raises",
        "expected": "ConfigurationError",
        "observed": "ConfigurationError not raised",
        "reproduction": "from lark import Lark\nparser = Lark('start: A')\nparser.scan('a')\n",
        "call": "parser.scan('a')",
        "derived": True,
    }
    unquotable = {
        "id": "tests/test_parser.py::TestLalrCustom::test_scan_lexer_support",
        "kind": "raises",
        "expected": "ConfigurationError",
        "error": "TypeError: This lexer cannot be used for searching in text",
        "observed": "TypeError: This lexer cannot be used for searching in text",
        "reproduction": "parser = _Lark('start: \"a\"+')\nlist(parser.scan('aa'))\n",
        "call": "list(parser.scan('aa'))",
        "unbound": ["_Lark"],
        "derived": True,
    }
    context = {
        "task": "write_statement",
        "strategy_type": "BUG_FIX",
        "repo": "acme/lark",
        "commit_subject": "Validate scan eagerly",
        "failing_tests": [{"id": quoted["id"], "assertion": ""}, {"id": unquotable["id"], "assertion": ""}],
        "failures": [quoted, unquotable],
    }
    text = write_statement(context, "Write a bug report. Include a reproduction. Never reveal the fix.")[
        "problem_statement"
    ]
    assert (
        "`list(parser.scan('aa'))`" in text and "`TypeError: This lexer cannot be used for searching in text`" in text
    ), text
    assert "not spelled out" not in text


def test_a_signature_is_stated_as_a_declaration_not_as_a_call_reading_names_the_reader_lacks():
    """more-itertools 16c856a8: `iter_index(iterable, value, start=0)` read as a call of unbound
    `iterable` and `value` (the bench's unbound share counted three such statements)."""
    from tests.bench_modules import load_bench

    interfaces = [
        {
            "file": "mi/recipes.py",
            "name": "iter_index",
            "kind": "function",
            "signature": "iter_index(iterable, value, start=0)",
        },
        {"file": "pkg/core.py", "name": "ParserContext", "kind": "class", "signature": "ParserContext(text, start=0)"},
    ]
    failure = {**CONTEXT["failures"][0], "reproduction": "from pkg.core import ParserContext, iter_index\n"}
    failure["error"] = "ImportError: cannot import name 'iter_index' from 'pkg.core' (pkg/core.py)"
    context = {**CONTEXT, "failures": [failure], "new_interfaces": interfaces}
    text = write_statement(context, "Write an issue. no_leak")["problem_statement"]
    assert "`def iter_index(iterable, value, start=0)`" in text, text
    assert load_bench("statements").unbound_names(text, {"iter_index", "ParserContext", "pkg"}) == []
