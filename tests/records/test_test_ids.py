"""The one reader of test ids: a parametrize id may hold "::" and "[" (an IPv6 URL)."""

from records import file_of_test, function_of_test, node_names, parameter_id, without_parameters

IPV6 = "tests/test_url.py::TestSafeUrl::test_safe[http://[::1]:8080/a b-http://[::1]:8080/a%20b]"


def test_an_ipv6_case_id_keeps_its_class_and_function():
    assert file_of_test(IPV6) == "tests/test_url.py"
    assert node_names(IPV6) == ["TestSafeUrl", "test_safe"]
    assert function_of_test(IPV6) == "test_safe"
    assert parameter_id(IPV6) == "http://[::1]:8080/a b-http://[::1]:8080/a%20b"
    assert without_parameters(IPV6) == "tests/test_url.py::TestSafeUrl::test_safe"


def test_plain_ids_and_file_ids():
    assert node_names("tests/t.py::test_a") == ["test_a"] and parameter_id("tests/t.py::test_a") == ""
    assert without_parameters("tests/t.py::test_a") == "tests/t.py::test_a"
    # a file that failed to load is reported by its path alone
    assert (
        file_of_test("tests/t.py") == "tests/t.py"
        and node_names("tests/t.py") == []
        and function_of_test("tests/t.py") == ""
    )
    assert parameter_id("t.py::test_b[1-2]") == "1-2" and function_of_test("t.py::test_b[1-2]") == "test_b"


def test_a_js_id_names_its_file_before_the_first_separator():
    assert file_of_test("test/parse.test.ts::parse > handles a::b") == "test/parse.test.ts"
