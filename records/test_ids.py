"""A test's id, read one way everywhere.

A test id is `FILE::rest` in every language: pytest's node id (`tests/t.py::TestX::test_y[case]`)
and a JS/TS runner's `FILE::describe > title`. Only pytest's ids have the structure read below.
Their parametrize part is free text and may hold "::" or "[" itself (an IPv6 URL:
`test_url[http://[::1]:80/]`), so it is cut off at the first "[" of the node names (class and
function names are identifiers) before those are split at "::"."""

from __future__ import annotations


def file_of_test(test_id: str) -> str:
    """The file a test id names (its text before the first "::"), in every language."""
    return test_id.partition("::")[0]


def _split(test_id: str) -> tuple[str, str]:
    """The node names after the file ("TestX::test_y") and the parametrize part ("[case]" or "")."""
    rest = test_id.partition("::")[2]
    bracket = rest.find("[")
    return (rest, "") if bracket < 0 else (rest[:bracket], rest[bracket:])


def node_names(test_id: str) -> list[str]:
    """The class and function names of a pytest id, outermost first (["TestX", "test_y"]); []
    for an id that names only a file."""
    return [name for name in _split(test_id)[0].split("::") if name]


def function_of_test(test_id: str) -> str:
    """The test function's name ("test_y"), or "" for an id that names only a file."""
    names = node_names(test_id)
    return names[-1] if names else ""


def parameter_id(test_id: str) -> str:
    """The parametrize id inside the trailing brackets ("case"), or "" for a plain test."""
    bracket = _split(test_id)[1]
    return bracket[1:-1] if bracket.endswith("]") else ""


def without_parameters(test_id: str) -> str:
    """The id of the test function all of its cases share (`tests/t.py::TestX::test_y`)."""
    return test_id[: len(test_id) - len(_split(test_id)[1])]
