"""The call forms the failing tests use that the touched functions do not offer yet (issue 30, item 5)."""

from llm.offline.call_forms import CallForm, bare_decorator_form
from records import FailureEvidence

MEMO = {"file": "memo.py", "name": "memo", "signature": "def memo(maxsize=128, typed=False)"}


def failure(reproduction: str, expected: str = "(0, 128)") -> FailureEvidence:
    return FailureEvidence("tests/test_memo.py::test_f", kind="compare", expected=expected, reproduction=reproduction)


def test_a_lambda_given_through_a_helper_and_an_alias_is_the_functions_own_call():
    code = (
        "import memo\ndef decorator(maxsize, **kwargs):\n    return DECORATOR(maxsize, **kwargs)\n"
        "DECORATOR = memo.memo\ncached = decorator(lambda n: n)\nassert cached.info() == (0, 128)"
    )
    assert bare_decorator_form(failure(code), [MEMO]) == CallForm("memo", "maxsize", "128", "memo(lambda n: n)")


def test_a_bare_decorator_line_over_a_def_is_the_form():
    code = "from memo import memo\n@memo\ndef f(n):\n    return n\nassert f.info() == (0, 0)"
    assert bare_decorator_form(failure(code, "(0, 0)"), [MEMO]) == CallForm("memo", "maxsize", "", "@memo")


def test_a_function_the_snippet_defines_passed_directly_is_the_form():
    code = "from memo import memo\ndef f(n):\n    return n\ncached = memo(f)\nassert cached.info() == (0, 128)"
    assert bare_decorator_form(failure(code), [MEMO]).example == "memo(f)"


def test_the_usual_call_forms_are_none():
    called = "from memo import memo\n@memo(2)\ndef f(n):\n    return n\nassert f.info() == (0, 128)"
    value = "from memo import memo\ncached = memo(2)(lambda n: n)\nassert cached.info() == (0, 128)"
    assert bare_decorator_form(failure(called), [MEMO]) is None
    assert bare_decorator_form(failure(value), [MEMO]) is None


def test_a_callable_or_flag_default_is_no_plain_parameter():
    code = "from memo import memo\ncached = memo(lambda n: n)\nassert cached.info() == (0, 128)"
    for signature in ("def memo(key=None)", "def memo(strict=False)", "def memo(func)", "def memo(*, maxsize=1)"):
        assert bare_decorator_form(failure(code), [{"name": "memo", "signature": signature}]) is None


def test_a_snippet_that_does_not_parse_has_no_form():
    assert bare_decorator_form(failure("cached = memo(lambda n: n"), [MEMO]) is None
