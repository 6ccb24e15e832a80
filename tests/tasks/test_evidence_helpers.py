"""The failing check runs inside a helper the test suite defines: the snippet writes the
helper's one check with the test's arguments in place, and binds what it reads."""

from __future__ import annotations

from tasks.evidence.python import explain_failure, own_module_text

COMMON = (
    "import pytest\n\n\n"
    "def assert_equal(expected, result):\n"
    '    print("Expected:\\n%s\\n" % expected)\n'
    '    print("Got:\\n%s\\n" % result)\n'
    "    assert expected == result\n\n\n"
    "def assert_twice(expected, result):\n"
    "    assert expected == result\n"
    "    assert result == expected\n"
)
OUTPUT_TEST = (
    "from pkg import render\nfrom common import assert_equal, assert_twice\n\n\n"
    "def test_render():\n"
    "    expected = '|a|'\n"
    "    result = render(['a'])\n"
    "    assert_equal(expected, result)\n\n\n"
    "def test_raises_first():\n"
    "    result = render([])\n"
    "    expected = ''\n"
    "    assert_equal(expected, result)\n\n\n"
    "def test_two_checks():\n"
    "    result = render(['b'])\n"
    "    assert_twice('|b|', result)\n"
)


def test_a_helper_module_next_to_the_test_file_is_read_from_its_folder():
    files = {"test/common.py": COMMON}
    assert own_module_text("common", "test/test_output.py", lambda p: files.get(p, "")) == COMMON
    assert own_module_text("common", "test_output.py", lambda p: files.get(p, "")) == ""


def test_an_assert_helper_of_the_tests_package_is_written_as_its_comparison():
    found = explain_failure(
        OUTPUT_TEST,
        "test/test_output.py::test_render",
        {"type": "AssertionError", "line": 8, "message": ""},
        repo_modules={"pkg"},
        test_helpers={"common": COMMON},
    )
    lines = found.reproduction.splitlines()
    assert lines == [
        "from pkg import render",
        "expected = '|a|'",
        "result = render(['a'])",
        "assert expected == result",
    ]
    assert (found.kind, found.call, found.op, found.unbound) == ("compare", "result", "==", [])


def test_the_checks_after_a_raising_line_are_the_helpers_comparisons():
    found = explain_failure(
        OUTPUT_TEST,
        "test/test_output.py::test_raises_first",
        {"type": "IndexError", "line": 12, "message": "list index out of range"},
        repo_modules={"pkg"},
        test_helpers={"common": COMMON},
    )
    assert "assert_equal" not in found.reproduction and found.kind == "error"
    assert found.rest == "expected = ''\nassert expected == result"


def test_a_helper_with_more_than_one_check_stays_a_call():
    found = explain_failure(
        OUTPUT_TEST,
        "test/test_output.py::test_two_checks",
        {"type": "AssertionError", "line": 19, "message": ""},
        repo_modules={"pkg"},
        test_helpers={"common": COMMON},
    )
    assert found.reproduction.splitlines()[-1] == "assert_twice('|b|', result)"
    assert "def assert_twice(expected, result):" in found.reproduction


BASE_CLASS_TEST = (
    "import unittest\nfrom pkg import Evaluator, NotAllowed\n\n\n"
    "class Base(unittest.TestCase):\n"
    "    def setUp(self):\n"
    "        self.s = Evaluator()\n"
    "        self.spare = Evaluator()\n\n"
    "    def t(self, expr, shouldbe):\n"
    '        """check one expression"""\n'
    "        return self.assertEqual(self.s.eval(expr), shouldbe)\n\n\n"
    "class TestEval(Base):\n"
    "    def test_sum(self):\n"
    "        self.t('1 + 1', 2)\n\n"
    "    def test_blocked(self):\n"
    "        self.s.names['b'] = int\n"
    "        with self.assertRaises(NotAllowed):\n"
    "            self.t('b.mro()', None)\n"
)


def test_a_base_class_helper_check_is_written_with_the_tests_arguments():
    found = explain_failure(
        BASE_CLASS_TEST,
        "test_eval.py::TestEval::test_sum",
        {"type": "AssertionError", "line": 17, "message": "3 != 2"},
        repo_modules={"pkg"},
    )
    assert found.reproduction.splitlines()[-2:] == ["s = Evaluator()", "assert s.eval('1 + 1') == 2"]
    assert (found.kind, found.call, found.expected, found.observed) == ("compare", "s.eval('1 + 1')", "2", "3")
    assert "spare" not in found.reproduction and "def t(" not in found.reproduction and not found.unbound


def test_a_helper_check_inside_a_raises_block_is_the_value_that_must_raise():
    """The helper's own assert failed inside `assertRaises`: the call returned where it had to
    raise, so the block is the failing check and its body the value the helper computes."""
    found = explain_failure(
        BASE_CLASS_TEST,
        "test_eval.py::TestEval::test_blocked",
        {"type": "AssertionError", "line": 22, "message": "[<class 'int'>, <class 'object'>] != None"},
        repo_modules={"pkg"},
    )
    assert found.reproduction.splitlines()[-4:] == [
        "s = Evaluator()",
        "s.names['b'] = int",
        "with pytest.raises(NotAllowed):",
        "    s.eval('b.mro()')",
    ]
    assert (found.kind, found.call, found.expected) == ("raises", "s.eval('b.mro()')", "NotAllowed")
    assert not found.unbound


JOINED_TEST = (
    "from pkg import render\n\n\n"
    "def test_joined():\n"
    "    expected = '\\n'.join(['+-+', '|a|', '+-+'])\n"
    "    result = render(['a'])\n"
    "    assert expected == result\n\n\n"
    "def test_computed():\n"
    "    expected = '-'.join([str(1), 'b'])\n"
    "    result = render(['a', 'b'])\n"
    "    assert expected == result\n"
)


def test_an_expected_variable_bound_to_joined_literals_is_written_as_its_value():
    found = explain_failure(
        JOINED_TEST,
        "tests/test_r.py::test_joined",
        {"type": "AssertionError", "line": 7, "message": ""},
        repo_modules={"pkg"},
    )
    assert (found.call, found.expected, found.exact) == ("result", repr("+-+\n|a|\n+-+"), True)
    computed = explain_failure(
        JOINED_TEST,
        "tests/test_r.py::test_computed",
        {"type": "AssertionError", "line": 13, "message": ""},
        repo_modules={"pkg"},
    )
    assert computed.expected == "expected"  # a value the code computes stays the snippet's name


WARNS_TEST = (
    "import unittest\nimport pkg\n\n\n"
    "class TestWait(unittest.TestCase):\n"
    "    def test_deprecated(self):\n"
    "        with self.assertWarns(DeprecationWarning):\n"
    "            fn = pkg.wait(initial=10)\n"
    "        self.assertEqual(fn(1), 10)\n\n"
    "    def test_called(self):\n"
    "        self.assertWarns(DeprecationWarning, pkg.wait, 10, 5)\n"
)


def test_a_testcase_warning_check_is_written_with_pytest_warns():
    """tenacity: `with self.assertWarns(DeprecationWarning):` kept `self`, so the snippet had an
    unbound name and neither test was stated; pytest's `warns` needs no TestCase."""
    found = explain_failure(
        WARNS_TEST,
        "test_wait.py::TestWait::test_deprecated",
        {"type": "AssertionError", "line": 7, "message": "DeprecationWarning not triggered"},
        repo_modules={"pkg"},
    )
    assert "with pytest.warns(DeprecationWarning):\n    fn = pkg.wait(initial=10)" in found.reproduction
    assert "self" not in found.reproduction and not found.unbound, found.reproduction
    called = explain_failure(
        WARNS_TEST,
        "test_wait.py::TestWait::test_called",
        {"type": "AssertionError", "line": 12, "message": "DeprecationWarning not triggered"},
        repo_modules={"pkg"},
    )
    assert called.reproduction.splitlines()[-2:] == ["with pytest.warns(DeprecationWarning):", "    pkg.wait(10, 5)"]
    assert not called.unbound


def test_a_deprecated_call_without_arguments_waits_for_a_deprecation_warning():
    """python-json-logger: `with pytest.deprecated_call(): import pkg.old` was stated as "it should
    warn with `an exception`"; pytest's `deprecated_call()` waits for a DeprecationWarning."""
    found = explain_failure(
        "import pytest\n\n\ndef test_old_module():\n    with pytest.deprecated_call():\n        import pkg.old\n",
        "test_old.py::test_old_module",
        {"type": "Failed", "line": 5, "message": "DID NOT WARN. No warnings of type (<class 'DeprecationWarning'>,)"},
        repo_modules={"pkg"},
    )
    assert found.kind == "raises" and found.warns, found
    assert found.expected == "DeprecationWarning", found.expected


def test_a_hypothesis_tests_drawn_arguments_are_the_falsifying_examples_values():
    """attrs' `@given(booleans(), booleans()) def test_programmatic(self, slots, frozen)`: the
    snippet binds what the failing example drew; positional strategies fill the last arguments."""
    source = (
        "import attr\nfrom hypothesis import given\nfrom hypothesis.strategies import booleans\n\n\n"
        "class TestMake:\n    @given(booleans(), booleans())\n    def test_make(self, slots, frozen):\n"
        "        C = attr.make_class('C', ['a'], slots=slots, frozen=frozen)\n"
        "        assert attr.fields(C).a.alias_is_default\n"
    )
    report = {
        "when": "call",
        "type": "AttributeError",
        "message": "'Attribute' object has no attribute 'alias_is_default'",
        "line": 10,
        "locals": {"self": "<TestMake object>", "slots": "False", "frozen": "True", "C": "<class 'C'>"},
    }
    f = explain_failure(source, "tests/test_make.py::TestMake::test_make", report)
    assert "slots=False, frozen=True" in f.reproduction and not f.unbound
    assert f.reproduction.rstrip().endswith("assert attr.fields(C).a.alias_is_default")


def test_a_case_value_named_by_a_class_attribute_is_the_value_the_class_binds():
    """attrs' `(X, "x", True)` in a test class's parametrize: `X` is the class's attribute, so a
    module-level snippet read an unbound `X` and the case was never stated."""
    source = (
        "import pickle\nimport pytest\n\n\nclass TestPickle:\n    X = b'\\x80\\x05K\\x01.'\n\n"
        "    @pytest.mark.parametrize(('data', 'want'), [(X, 2)])\n    def test_load(self, data, want):\n"
        "        assert pickle.loads(data) == want\n"
    )
    report = {
        "when": "call",
        "type": "AssertionError",
        "message": "assert 1 == 2",
        "line": 10,
        "params": {"data": "b'\\x80\\x05K\\x01.' (long)", "want": "2"},
        "indices": {"data": 0, "want": 0},
    }
    f = explain_failure(source, "tests/test_p.py::TestPickle::test_load[data0-2]", report)
    assert "b'\\x80\\x05K\\x01.'" in f.reproduction and not f.unbound and "X" not in f.reproduction.split()


def test_a_helpers_own_locals_are_its_scopes_not_its_nested_functions_or_its_globals():
    """A helper's locals hide the test's case values inside it (`_Rewrite`): only the names its
    own scope binds, not those a nested function or a comprehension binds for itself, nor those
    it declares global."""
    import ast

    from tasks.evidence.names import local_names

    helper = ast.parse(
        "def check(value):\n    global seen\n    seen = value\n    total = sum(x for x in value)\n"
        "    def inner():\n        expected = 1\n    import json\n    return total\n"
    ).body[0]
    assert local_names(helper.body) == {"total", "inner", "json"}


def test_a_fixture_that_takes_the_anyio_plugins_fixtures_is_built_for_the_cases_backend():
    """starlette's `test_client_factory` takes anyio's `anyio_backend_name` and
    `anyio_backend_options`: no snippet could build it, so every block called the conftest's
    fixture function itself and was dropped."""
    conftest = (
        "import functools\nimport pytest\nfrom app.testclient import Client\n\n\n@pytest.fixture\n"
        "def client_factory(anyio_backend_name, anyio_backend_options):\n"
        "    return functools.partial(Client, backend=anyio_backend_name, options=anyio_backend_options)\n"
    )
    source = "def test_get(client_factory):\n    client = client_factory('app')\n    assert client.get('/') == 404\n"
    report = {"when": "call", "type": "AssertionError", "message": "assert 500 == 404", "line": 3}
    report["params"] = {"anyio_backend": "'trio'"}
    f = explain_failure(source, "tests/test_app.py::test_get[trio]", report, conftests=[conftest])
    assert "anyio_backend_name = 'trio'\nanyio_backend_options = {}\n" in f.reproduction
    assert "client_factory = functools.partial(Client, backend=anyio_backend_name" in f.reproduction
    assert "def client_factory" not in f.reproduction and not f.unbound


def test_a_conftest_fixture_the_snippet_cannot_build_is_unbound_never_its_function():
    """pytest refuses a direct call of a fixture function: a snippet that defined the conftest's
    fixture and called it raised on both states."""
    conftest = "import pytest\n\n\n@pytest.fixture\ndef make_client(plugin_value):\n    return plugin_value\n"
    source = "def test_get(make_client):\n    client = make_client('app')\n    assert client.get('/') == 404\n"
    report = {"when": "call", "type": "AssertionError", "message": "assert 500 == 404", "line": 3}
    f = explain_failure(source, "tests/test_app.py::test_get", report, conftests=[conftest])
    assert "def make_client" not in (f.reproduction or "") and "make_client" in f.unbound


def test_a_helper_that_sets_a_renamed_attribute_declares_the_new_name_global():
    """dateparser's `given_parser` sets `self.date_parser` beside the module's `date_parser`: the
    attribute became `date_parser_`, but the helper declared `global date_parser`, so its first
    read of the module's name was unbound."""
    source = (
        "import unittest\nfrom pkg import value\n\n\n"
        "class TestValue(unittest.TestCase):\n"
        "    def given_value(self):\n        self.value = value(1)\n\n"
        "    def test_value(self):\n        self.given_value()\n        self.assertEqual(self.value, 3)\n"
    )
    found = explain_failure(
        source,
        "tests/test_value.py::TestValue::test_value",
        {"type": "AssertionError", "line": 11, "message": "2 != 3", "compare": {"op": "==", "left": "2", "right": "3"}},
        repo_modules={"pkg"},
    )
    assert "global value_" in found.reproduction and "global value\n" not in found.reproduction, found.reproduction
    assert not found.unbound, found.reproduction


def test_a_parametrized_function_the_runner_names_bare_is_imported_as_a_helper_module_imports_it():
    """pyserde 0cb6cad1: `@pytest.mark.parametrize("se,de", format_json + format_yaml)` with the
    lists in the tests' helper module; the runner reports `<function from_json at …>`, which is
    no expression, so `se` and `de` stayed unbound and the tests were never spelled out."""
    common = "from serde.json import from_json, to_json\n\nformat_json = [(to_json, from_json)]\n"
    test = (
        "import pytest\nfrom pkg import C\nfrom common import format_json\n\n\n"
        "@pytest.mark.parametrize('se,de', format_json)\n"
        "def test_round_trip(se, de):\n"
        "    assert de(C, se(C(1))) == C(1)\n"
    )
    report = {
        "type": "AssertionError",
        "line": 8,
        "message": "",
        "params": {"se": "<function to_json at …>", "de": "<function from_json at …>"},
    }
    found = explain_failure(
        test, "tests/test_b.py::test_round_trip[se0-de0]", report, repo_modules={"pkg"}, test_helpers={"common": common}
    )
    assert found.unbound == [], found.reproduction
    assert found.reproduction.splitlines()[0] == "from serde.json import to_json, from_json"
    assert found.reproduction.splitlines()[-1] == "assert from_json(C, to_json(C(1))) == C(1)", found.reproduction


def test_a_test_helper_modules_constant_is_written_as_its_value():
    """bigtree 23797ea1: the required message was `Constants.ERROR_RENAME.format(name='c')`, a
    constant the withheld test patch adds to `tests/test_constants.py`; the statement asked for
    that name, which the solver's tree lacks, and the check reading it failed on both states."""
    constants = (
        "from dataclasses import dataclass\n\n\n@dataclass\nclass Constants:\n"
        '    LOCAL = False\n    ERROR_RENAME = (\n        "Cannot rename `{name}`: "\n        "it exists"\n    )\n'
        "    PATH = make_path()\n"
    )
    test = (
        "import pytest\nfrom pkg import Node\nfrom tests.test_constants import Constants\n\n\n"
        "def test_rename():\n"
        "    with pytest.raises(ValueError) as exc_info:\n"
        "        Node('a').rename('c')\n"
        "    assert str(exc_info.value) == Constants.ERROR_RENAME.format(name='c')\n"
        "    assert Constants.PATH\n"
    )
    report = {
        "type": "AssertionError",
        "line": 9,
        "message": "",
        "compare": {"op": "==", "left": "'x'", "right": "'y'"},
    }
    found = explain_failure(
        test,
        "tests/test_node.py::test_rename",
        report,
        repo_modules={"pkg"},
        test_helpers={"tests.test_constants": constants},
    )
    assert found.expected == "'Cannot rename `c`: it exists'", found
    assert "Constants.ERROR_RENAME" not in found.reproduction
    assert found.rest == "assert Constants.PATH"  # no literal: the name stays, and so does its import
    assert "from tests.test_constants import Constants" in found.reproduction


def test_the_calls_of_earlier_checks_on_the_checked_function_make_a_second_way_to_show_the_snippet():
    """pyserde 73140dbd: `assert is_opt_dataclass(Optional[Foo])` passed and filled a cache that
    made `assert not is_opt_dataclass(Union[None, Foo])` fail; the snippet left the first check
    out, passed on the buggy state and was dropped."""
    test = (
        "from typing import Optional, Union\nfrom pkg import is_opt, other\n\n\n"
        "def test_order():\n"
        "    assert other(1)\n"
        "    assert is_opt(Optional[int])\n"
        "    assert len(str(2)) == 1\n"
        "    assert not is_opt(Union[None, int])\n"
    )
    report = {"type": "AssertionError", "line": 9, "message": "assert not True"}
    found = explain_failure(test, "tests/test_c.py::test_order", report, repo_modules={"pkg"})
    assert found.reproduction.splitlines()[-1] == "assert not is_opt(Union[None, int])"
    assert "is_opt(Optional[int])" not in found.reproduction and "Optional" not in found.reproduction
    assert found.primed.splitlines()[-2:] == ["is_opt(Optional[int])", "assert not is_opt(Union[None, int])"]
    assert "from typing import Optional, Union" in found.primed and "other(1)" not in found.primed, found.primed
    alone = test.replace("    assert is_opt(Optional[int])\n", "    assert other(Optional[int])\n")
    report = {"type": "AssertionError", "line": 9, "message": "assert not True"}
    assert explain_failure(alone, "tests/test_c.py::test_order", report, repo_modules={"pkg"}).primed is None


def test_a_local_compared_with_a_value_the_projects_class_builds_is_the_checked_side():
    """argh 6992b311: `assert attrs == [ParserAddArgumentSpec(func_arg_name='foo', ...)]` was read
    as checking the list (it calls the project's class), so the buggy value and the wanted one
    were swapped in the statement."""
    test = (
        "from pkg import Spec, specs_of\n\n\n"
        "def test_specs():\n"
        "    attrs = specs_of('f')\n"
        "    assert attrs == [Spec(name='foo', names=['foo'])]\n"
    )
    report = {
        "type": "AssertionError",
        "line": 6,
        "message": "",
        "compare": {
            "op": "==",
            "left": "[Spec(name='foo', names=('foo',))]",
            "right": "[Spec(name='foo', names=['foo'])]",
        },
    }
    found = explain_failure(test, "tests/test_s.py::test_specs", report, repo_modules={"pkg"})
    assert (found.call, found.checked_side) == ("attrs", "left")
    assert found.observed == "[Spec(name='foo', names=('foo',))]"
    assert found.expected == "[Spec(name='foo', names=['foo'])]"


def test_a_local_compared_with_a_display_that_reads_the_tests_own_value_is_the_checked_side():
    """werkzeug 1049dd6b: `assert events == [Preamble(...), Data(data=expected)]`, the display
    reading the test's `expected`, was read as the computed side: the statement said the buggy
    events were wanted."""
    test = (
        "import pytest\nfrom pkg import Data, Decoder, Preamble\n\n\n"
        "@pytest.mark.parametrize('start', [b'A\\n\\r'])\n"
        "def test_events(start):\n"
        "    decoder = Decoder(start)\n"
        "    events = [decoder.next_event()]\n"
        "    while not isinstance(events[-1], Data):\n"
        "        events.append(decoder.next_event())\n"
        "    expected = start\n"
        "    assert events == [Preamble(data=b''), Data(data=expected)]\n"
    )
    report = {
        "type": "AssertionError",
        "line": 12,
        "message": "",
        "params": {"start": "b'A\\n\\r'"},
        "compare": {
            "op": "==",
            "left": "[Preamble(data=b''), Data(data=b'A\\n')]",
            "right": "[Preamble(data=b''), Data(data=b'A\\n\\r')]",
        },
    }
    found = explain_failure(test, "tests/test_m.py::test_events[A]", report, repo_modules={"pkg"})
    assert (found.call, found.checked_side) == ("events", "left")
    assert found.observed == "[Preamble(data=b''), Data(data=b'A\\n')]"


DISTRO_TEST = (
    "import os\nimport sys\nfrom types import FunctionType\n\n"
    "BASE = os.path.abspath(os.path.dirname(__file__))\n"
    "DISTROS_DIR = os.path.join(BASE, 'resources', 'distros')\n"
    "IS_LINUX = sys.platform.startswith('linux')\n"
    "if IS_LINUX:\n"
    "    from distro import distro\n\n"
    "    RELATIVE_CONFDIR = distro._CONFDIR[1:]\n\n\n"
    "class TestRelease:\n"
    "    def setup_method(self, test_method: FunctionType) -> None:\n"
    "        dist = test_method.__name__.split('_')[1]\n"
    "        root = os.path.join(DISTROS_DIR, dist)\n"
    "        distro._CONFDIR = os.path.join(root, RELATIVE_CONFDIR)\n"
    "        self.distro = distro.LinuxDistribution(root_dir=root)\n\n"
    "    def test_debian10_release(self) -> None:\n"
    "        assert self.distro.version(best=True) == '10.11'\n"
)


def test_a_setup_method_reading_the_tests_name_and_a_constant_bound_under_an_if_give_a_snippet_that_runs():
    """distro: every test's `setup_method(self, test_method)` picked its fixture folder by the test's
    name, and the module bound its constants under `if IS_LINUX:`; the snippets read an unbound
    `test_method` and `RELATIVE_CONFDIR`, and no statement showed one."""
    found = explain_failure(
        DISTRO_TEST,
        "tests/test_distro.py::TestRelease::test_debian10_release",
        {"type": "AssertionError", "line": 22, "message": "assert '10' == '10.11'"},
        repo_modules={"distro"},
    )
    assert not found.unbound, found.reproduction
    assert (
        "root = os.path.join(DISTROS_DIR, 'debian10')" in found.reproduction and "test_method" not in found.reproduction
    )
    assert "RELATIVE_CONFDIR = distro._CONFDIR[1:]" in found.reproduction
    assert found.reproduction.splitlines()[-1] == "assert distro_.version(best=True) == '10.11'", found.reproduction


def test_a_computed_element_checked_against_a_fixed_container_is_the_checked_side():
    """faker 0ecfc2e4: `assert surname in RuProvider.last_names` was read as the constant
    container lacking the element; the statement then asked a class constant to change."""
    test = (
        "from pkg import Faker\nfrom pkg.ru import Provider as RuProvider\n\n\n"
        "def test_owner():\n"
        "    surname, given_name = Faker('ru').passport_owner()\n"
        "    assert surname in RuProvider.last_names\n"
    )
    report = {
        "type": "AssertionError",
        "line": 7,
        "message": "assert 'Nikandr' in ('Smirnov', 'Ivanov')",
        "compare": {"op": "in", "left": "'Nikandr'", "right": "('Smirnov', 'Ivanov')"},
    }
    found = explain_failure(test, "tests/test_m.py::test_owner", report, repo_modules={"pkg"})
    assert (found.call, found.checked_side, found.op) == ("surname", "left", "in")
    assert (found.observed, found.expected) == ("'Nikandr'", "RuProvider.last_names")
    computed = test.replace("assert surname in RuProvider.last_names", "assert 'Ivanov' in surname")
    found = explain_failure(computed, "tests/test_m.py::test_owner", report, repo_modules={"pkg"})
    assert (found.call, found.checked_side) == ("surname", "right")


def test_an_assertion_helper_of_the_projects_testing_package_is_not_the_function_at_fault():
    """mako f37777c1: `eq_` from `mako.testing.assertions` was taken for the code at fault, and
    the title read "`eq_` fails"."""
    test = (
        "from mako import ast\nfrom mako.testing.assertions import eq_\n\n\n"
        "def test_args():\n"
        "    parsed = ast.ArgumentList('x-2, other')\n"
        "    eq_(parsed.undeclared_identifiers, {'__DEFAULT_ESCAPE_x', 'other'})\n"
    )
    report = {"type": "AssertionError", "line": 7, "message": "{'x', 'other'} != {'__DEFAULT_ESCAPE_x', 'other'}"}
    found = explain_failure(test, "test/test_ast.py::test_args", report, repo_modules={"mako"})
    assert found.function == "ast.ArgumentList", found.function
    # nose-style `eq_` fails with "a != b": that is its comparison, on its first argument
    assert (found.kind, found.call, found.op) == ("compare", "parsed.undeclared_identifiers", "=="), found
    assert (found.observed, found.expected) == ("{'x', 'other'}", "{'__DEFAULT_ESCAPE_x', 'other'}")


def test_pytests_temporary_folder_is_not_quoted_from_a_failure():
    """isort 35baed2f: the observed output named pytest's folder for the hidden test
    (`/tmp/pytest-of-root/pytest-0/test_isort_respects_quiet_from0/file.py`)."""
    test = "import pkg\n\n\ndef test_quiet(tmp_path):\n    out = pkg.run(tmp_path)\n    assert not out\n"
    printed = "'Fixing /tmp/pytest-of-root/pytest-0/test_quiet0/file.py\\n'"
    report = {"type": "AssertionError", "line": 6, "message": f"assert not {printed}"}
    found = explain_failure(test, "tests/test_m.py::test_quiet", report, repo_modules={"pkg"})
    assert "test_quiet" not in f"{found.observed} {found.message}", found
    assert "<tmp>/file.py" in found.observed, found


def test_a_fixture_that_yields_inside_try_finally_is_set_up_up_to_its_yield():
    """pydantic-settings 55e9a4dc: `cd_tmp_path` changes into `tmp_path` and yields inside a
    `try:` whose `finally` changes back; its 9 tests were unbound, and none was shown."""
    conftest = (
        "import os\nfrom pathlib import Path\nimport pytest\n\n\n"
        "@pytest.fixture\ndef cd_tmp_path(tmp_path):\n"
        "    prev_dir = Path.cwd()\n    os.chdir(tmp_path)\n"
        "    try:\n        yield tmp_path\n    finally:\n        os.chdir(prev_dir)\n"
    )
    source = (
        "from pkg import Settings\n\n\n"
        "def test_depth(cd_tmp_path):\n"
        "    (cd_tmp_path / '.env').write_text('a=1')\n"
        "    assert Settings().a == '1'\n"
    )
    report = {"when": "call", "type": "AssertionError", "message": "assert None == '1'", "line": 6}
    f = explain_failure(source, "tests/test_s.py::test_depth", report, conftests=[conftest], repo_modules={"pkg"})
    assert not f.unbound, (f.unbound, f.reproduction)
    code = f.reproduction
    assert "os.chdir(tmp_path)" in code and "cd_tmp_path = tmp_path" in code and "finally" not in code, code
