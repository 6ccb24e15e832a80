"""Statements a solver can act on: the failure evidence of the buggy state's run, and what the
writer makes of it.

One repository, built here, holds six kinds of failing test (a lambda of the test in the
failing line, a parametrized test, an exact-string check, a test whose first assert already
passes on the buggy code, an exception instead of a failed assert, a unittest method) fixed by
one commit titled like a squashed pull request ("Misc fixes (#123)") with a garbled body. The
buggy state's tests run once in the local sandbox (module fixture); each test then writes the
statement of one failing test and checks what it contains.
"""

from __future__ import annotations

import ast
import builtins
import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from environment import make_sandbox
from llm.offline import judge_quality, judge_semantic, write_statement
from records import LayerResult
from sandbox import Limits
from sandbox.report import clean_failures, parse_report
from tasks.evidence import failure_evidence
from tasks.evidence.python import explain_failure, own_test_modules, star_exports
from tasks.generate import skeleton, strategy_instructions
from tasks.mining import mine_commits
from tasks.prompt import context_json
from tasks.statement import statement_context
from tasks.strategy import SEED_PROMPTS, Strategy, StrategyType
from tasks.validate import judge_context, judge_evidence

BEFORE = {
    "shop/__init__.py": "",
    "shop/text.py": "def slug(text):\n    return text.lower().replace(' ', '_')\n",
    "shop/money.py": "def money(amount):\n    return f'{amount:.2f}'\n",
    "shop/sizes.py": "def naturalsize(n):\n    return f'{n} Bytes'\n",
    "shop/cache.py": (
        "class Cache:\n    def __init__(self, ttl):\n        self.ttl = ttl\n        self.data = {}\n\n"
        "    def put(self, key, value):\n        self.data[key] = value\n\n"
        "    def get(self, key):\n        return self.data.get(key.upper())\n"
    ),
    "shop/prices.py": "def parse_price(text):\n    return int(text)\n",
    "shop/units.py": "def to_grams(kilos):\n    return kilos * 100\n",
    "tests/__init__.py": "",
    "tests/test_sizes.py": (
        "from shop.sizes import naturalsize\n\n\ndef test_many():\n    assert naturalsize(2) == '2 Bytes'\n"
    ),
}
AFTER = {
    **BEFORE,
    "shop/text.py": "def slug(text):\n    return text.lower().replace(' ', '-')\n",
    "shop/money.py": (
        "def money(amount):\n    if amount < 0:\n        raise ValueError('negative amount')\n"
        "    return f'{amount:,.2f}'\n"
    ),
    "shop/sizes.py": "def naturalsize(n):\n    unit = 'Byte' if n == 1 else 'Bytes'\n    return f'{n} {unit}'\n",
    "shop/cache.py": BEFORE["shop/cache.py"].replace("key.upper()", "key"),
    "shop/prices.py": "def parse_price(text):\n    return int(text.lstrip('$'))\n",
    "shop/units.py": "def to_grams(kilos):\n    return kilos * 1000\n",
    "tests/test_text.py": (
        "from shop.text import slug\n\n\ndef test_slug_of_a_title():\n"
        "    f = lambda s: slug(s.strip())\n    assert f('  Hello World ') == 'hello-world'\n"
    ),
    "tests/test_money.py": (
        "import pytest\n\nfrom shop.money import money\n\n\n"
        "@pytest.mark.parametrize('amount, expected', [(0, '0.00'), (1234.5, '1,234.50')])\n"
        "def test_money(amount, expected):\n    assert money(amount) == expected\n"
    ),
    "tests/test_sizes.py": BEFORE["tests/test_sizes.py"]
    + "\n\ndef test_one_byte():\n    assert naturalsize(1) == '1 Byte'\n",
    "tests/test_cache.py": (
        "from shop.cache import Cache\n\nTTL = 2\n\n\ndef test_get_after_put():\n    cache = Cache(ttl=TTL)\n"
        "    assert cache.ttl == 2\n    cache.put('k', 1)\n    assert cache.get('k') == 1\n"
    ),
    "tests/test_prices.py": (
        "from shop.prices import parse_price\n\n\ndef test_dollar_sign():\n    assert parse_price('$3') == 3\n"
        "    assert parse_price('$10') == 10\n"
    ),
    "tests/test_more.py": (
        "import functools\n\nfrom shop.cache import Cache\nfrom shop.money import money\n\n\n"
        "def logged(test):\n    @functools.wraps(test)\n    def wrapper(*args, **kwargs):\n"
        "        return test(*args, **kwargs)\n\n    return wrapper\n\n\n"
        "@logged\ndef test_counted_puts():\n    hits = 0\n    cache = Cache(ttl=1)\n"
        "    for key in ['a', 'b']:\n        cache.put(key, 1)\n        hits += 1\n"
        "    assert hits == 2\n    assert cache.get('a') == 1\n\n\n"
        "def test_negative_amount():\n    try:\n        money(-1)\n    except ValueError:\n        pass\n"
        "    else:\n        assert False, 'no error for a negative amount'\n"
    ),
    "tests/test_units.py": (
        "import unittest\n\nfrom shop.units import to_grams\n\n\nclass TestUnits(unittest.TestCase):\n"
        "    kilos = 2\n\n    def setUp(self):\n        self.factor = 1\n\n"
        "    def test_grams(self):\n        self.assertEqual(to_grams(self.kilos * self.factor), 2000)\n"
    ),
}
MESSAGE = (
    "Misc fixes (#123)\n\nfixes #123. The problem: total '?' when unknown 2.\n\n* wip\n* Fix unit\n"
    "* Fix escaping of backslashes\n\nSee https://example.com/acme/shop/pull/123 for details."
)
TESTS = {
    "lambda": "tests/test_text.py::test_slug_of_a_title",
    "param": "tests/test_money.py::test_money[1234.5-1,234.50]",
    "exact": "tests/test_sizes.py::test_one_byte",
    "first_passes": "tests/test_cache.py::test_get_after_put",
    "error": "tests/test_prices.py::test_dollar_sign",
    "unittest": "tests/test_units.py::TestUnits::test_grams",
    "decorated": "tests/test_more.py::test_counted_puts",
    "try_else": "tests/test_more.py::test_negative_amount",
}
BUG_FIX = Strategy(StrategyType.BUG_FIX, SEED_PROMPTS[StrategyType.BUG_FIX][-1])  # steps, expected/actual, no leak


def git(repo: Path, *args: str) -> str:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "dev",
        "GIT_AUTHOR_EMAIL": "dev@example.com",
        "GIT_COMMITTER_NAME": "dev",
        "GIT_COMMITTER_EMAIL": "dev@example.com",
        "GIT_AUTHOR_DATE": "2024-03-01T12:00:00+00:00",
        "GIT_COMMITTER_DATE": "2024-03-01T12:00:00+00:00",
    }
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True, env=env).stdout


def commit(repo: Path, files: dict[str, str], message: str) -> str:
    for name, text in files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)
    return git(repo, "rev-parse", "HEAD").strip()


@pytest.fixture(scope="module")
def shop(tmp_path_factory):
    """(repo, fix commit, candidate, per-test failure evidence of one run of the buggy state)."""
    repo = tmp_path_factory.mktemp("shop")
    git(repo, "init", "-q")
    commit(repo, BEFORE, "Initial shop")
    sha = commit(repo, AFTER, MESSAGE)
    [candidate] = mine_commits(repo, [sha]).candidates
    task = skeleton(candidate, BUG_FIX)
    files = sorted({t.split("::")[0] for t in TESTS.values()})
    backend = make_sandbox("local", limits=Limits(timeout_s=120), log=lambda m: None)
    run = backend.run_tests(repo, sha, [task.bug_patch], files)
    assert not run.broken, run.note
    evidence = failure_evidence(repo, sha, run.failures, list(TESTS.values()))
    return repo, sha, candidate, run, evidence


def statement(shop, key: str, strategy: Strategy = BUG_FIX) -> str:
    repo, sha, candidate, run, evidence = shop
    task = skeleton(candidate, strategy)
    task.FAIL_TO_PASS = [TESTS[key]]
    failures = {"failures": {TESTS[key]: evidence[TESTS[key]].to_dict()}}
    task.validation["functional"] = LayerResult(True, 1.0, "", details=failures)
    context = as_sent(statement_context(task, candidate, strategy))
    return write_statement(context, strategy_instructions(strategy, candidate.repo))["problem_statement"]


def test_the_statement_calls_a_local_repository_by_its_folder_name(shop):
    """A repository without an owner/name remote has an id with its root commit (`shop0-1a2b...`),
    which keeps ids apart; the statement's prose and prompt say just the folder's name."""
    repo, sha, candidate, run, evidence = shop
    assert re.fullmatch(r"shop\d*-[0-9a-f]{12}", candidate.repo), candidate.repo
    context = statement_context(skeleton(candidate, BUG_FIX), candidate, BUG_FIX)
    assert context["repo"] == candidate.repo.rsplit("-", 1)[0]
    assert candidate.repo not in strategy_instructions(BUG_FIX, candidate.repo)


def as_sent(context: dict) -> dict:
    """The context as a model receives it: the prompt's JSON."""
    return json.loads(context_json(context))


def code_block(text: str) -> str:
    found = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    assert found, text
    return found[0]


def runs_to_the_failing_check(block: str) -> None:
    """The reproduction is self-contained Python: it compiles and binds every name it uses."""
    tree = ast.parse(block)
    bound = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    bound |= {
        (a.asname or a.name).split(".")[0]
        for n in ast.walk(tree)
        if isinstance(n, ast.ImportFrom | ast.Import)
        for a in n.names
    }
    bound |= {a.arg for n in ast.walk(tree) if isinstance(n, ast.Lambda) for a in n.args.args}
    used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    bound |= {
        a.arg for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) for a in n.args.args
    }
    bound |= {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)}
    assert used - bound - set(dir(builtins)) == set(), block


# ---------------------------------------------------------------- the evidence of the run


def test_the_buggy_run_records_each_failure_with_its_values(shop):
    _, _, _, run, evidence = shop
    assert {t: run.outcomes[t] for t in TESTS.values()} == dict.fromkeys(TESTS.values(), "failed")
    exact = run.failures[TESTS["exact"]]
    assert exact["compare"] == {"op": "==", "left": "'1 Bytes'", "right": "'1 Byte'"}
    assert exact["message"].startswith("assert '1 Bytes' == '1 Byte'")
    assert exact["line"] == 9  # the failing assert's line in tests/test_sizes.py
    param = run.failures[TESTS["param"]]
    assert param["params"] == {"amount": "1234.5", "expected": "'1,234.50'"} and param["indices"] == {
        "amount": 1,
        "expected": 1,
    }
    error = run.failures[TESTS["error"]]
    assert error["type"] == "ValueError" and "'$3'" in error["message"] and error["raised_in"] == "parse_price"
    assert "tests/test_sizes.py::test_many" not in run.failures  # a passing test has no evidence
    first = evidence[TESTS["first_passes"]]
    assert first.passed_checks == ["assert cache.ttl == 2"]  # it ran and passed before the failing one
    assert first.source[0] == "def test_get_after_put():" and first.source[-1] == "    assert cache.get('k') == 1"


def test_evidence_from_the_report_is_checked_and_bounded():
    report = {
        "outcomes": {"t.py::test_a": "failed", "t.py::test_b": "passed"},
        "collect_errors": [],
        "exitstatus": 1,
        "failures": {
            "t.py::test_a": {"type": "X" * 500, "message": "m" * 10_000, "line": "7", "locals": {"a": "1" * 900}},
            "t.py::test_b": {"type": "AssertionError"},  # passed: its evidence is dropped
            "t.py::test_c": {"type": "AssertionError"},  # not a reported test
        },
    }
    parsed = parse_report(json.dumps(report), 1, None, False)
    assert parsed.outcomes == {"t.py::test_a": "failed", "t.py::test_b": "passed"}  # outcomes unchanged
    [(nodeid, record)] = parsed.failures.items()
    assert nodeid == "t.py::test_a" and "line" not in record  # not an int: left out
    assert len(record["type"]) == 120 and len(record["message"]) == 1500 and len(record["locals"]["a"]) == 300
    assert clean_failures(["not", "a", "dict"], {"x": "failed"}) == {}


# ---------------------------------------------------------------- what the statement says


def test_a_lambda_of_the_test_is_defined_in_the_reproduction(shop):
    text = statement(shop, "lambda")
    block = code_block(text)
    assert "f = lambda s: slug(s.strip())" in block and "assert f('  Hello World ') == 'hello-world'" in block
    assert "from shop.text import slug" in block
    runs_to_the_failing_check(block)
    assert "`'hello_world'`" in text and "`'hello-world'`" in text  # observed on the buggy code, and expected


def test_parametrized_values_are_substituted(shop):
    text = statement(shop, "param")
    block = code_block(text)
    assert "assert money(1234.5) == '1,234.50'" in block
    assert "amount" not in block and "expected" not in block  # no test variables left
    runs_to_the_failing_check(block)
    assert "`'1234.50'`" in text and "exactly `'1,234.50'`" in text
    assert "money(0)" not in text  # the case that passes on the buggy code is not quoted


def test_an_exact_string_is_stated_exactly(shop):
    text = statement(shop, "exact")
    assert "should be exactly `'1 Byte'`" in text
    assert "character for character" not in text  # "exactly" says it; the boilerplate sentence is gone
    assert "pytest reports `assert '1 Bytes' == '1 Byte'`" in text
    assert "`naturalsize(1)` returns `'1 Bytes'` where `'1 Byte'` is expected" in text.splitlines()[0]
    assert "naturalsize(2)" not in text  # the older test's check passes on the buggy code


def test_the_check_that_fails_is_quoted_never_the_one_that_passes(shop):
    text = statement(shop, "first_passes")
    block = code_block(text)
    assert block.strip().splitlines()[-1] == "assert cache.get('k') == 1"
    assert "cache = Cache(ttl=TTL)" in block and "TTL = 2" in block and "cache.put('k', 1)" in block
    assert "cache.ttl" not in text  # `assert cache.ttl == 2` already passes on the buggy code
    runs_to_the_failing_check(block)
    assert "`None`" in text and "`1`" in text


def test_a_pull_request_title_and_a_garbled_body_stay_out(shop):
    for key in TESTS:
        text = statement(shop, key)
        title = text.splitlines()[0]
        assert not re.search(r"#\d|Misc|fixes #|See also|https?://|The problem:|wip", text, re.I), text
        assert "`" in title, title  # the title names the project's function and what goes wrong
    assert "`parse_price('$3')` raises `ValueError`" in statement(shop, "error").splitlines()[0]


def test_an_exception_is_reported_with_its_type_and_message(shop):
    text = statement(shop, "error")
    assert "raises `ValueError: invalid literal for int() with base 10: '$3'`" in text
    assert "it should be `3`" in text
    block = code_block(text)
    assert block.strip().splitlines()[-1] == "assert parse_price('$3') == 3"
    # what the test requires after that line (it never ran on the buggy code) is stated too
    assert ":\n\n```python\nassert parse_price('$10') == 10\n```" in text
    assert "Once that works, the rest of the test must hold" not in text  # no fixed boilerplate line


def test_a_unittest_method_becomes_plain_python(shop):
    text = statement(shop, "unittest")
    block = code_block(text)
    assert "self" not in block and "kilos = 2" in block and "factor = 1" in block
    assert block.strip().splitlines()[-1] == "assert to_grams(kilos * factor) == 2000"
    runs_to_the_failing_check(block)
    assert "`200`" in text and "`2000`" in text  # from unittest's "200 != 2000"


def test_a_decorated_test_is_read_from_its_own_frame_and_keeps_what_it_counts(shop):
    _, _, _, run, evidence = shop
    assert run.failures[TESTS["decorated"]]["line"] == 23  # the test's line, not its wrapper's
    block = code_block(statement(shop, "decorated"))
    assert "hits = 0" in block and "hits += 1" in block  # what `+=` reads stays defined
    assert "assert hits == 2" not in block and block.strip().splitlines()[-1] == "assert cache.get('a') == 1"
    runs_to_the_failing_check(block)


def test_a_failure_in_the_else_of_a_try_is_the_tests_own_message(shop):
    text = statement(shop, "try_else")
    block = code_block(text)
    assert "try:\n    money(-1)\nexcept ValueError:\n    pass\nelse:\n    assert False" in block
    assert 'the message "no error for a negative amount"' in text  # the test's own words, quoted as prose


def test_the_judges_read_the_evidence_and_accept_these_statements(shop):
    repo, sha, candidate, run, evidence = shop
    for key, test_id in TESTS.items():
        task = skeleton(candidate, BUG_FIX)
        task.FAIL_TO_PASS = [test_id]
        failures = {"failures": {test_id: evidence[test_id].to_dict()}}
        task.validation["functional"] = LayerResult(True, 1.0, "", details=failures)
        context = as_sent(statement_context(task, candidate, BUG_FIX))
        task.problem_statement = write_statement(context, strategy_instructions(BUG_FIX, candidate.repo))[
            "problem_statement"
        ]
        assert judge_evidence(task)["known_names"] == ["shop"]
        quality = judge_quality(as_sent(judge_context(task)))
        semantic = judge_semantic(
            as_sent({"problem_statement": task.problem_statement, "patch": task.patch, **judge_evidence(task)})
        )
        assert "with 0 asserts" not in quality["test_completeness"]["reasoning"], key
        assert min(semantic["clarity"]["score"], semantic["solvability"]["score"]) >= 5, (key, semantic)
        assert "never defines" not in semantic["solvability"]["reasoning"], (key, semantic)


def test_explain_failure_resolves_fixtures_and_loops():
    source = (
        "import pytest\n\nfrom pkg import total\n\n\n@pytest.fixture\ndef items():\n    return [1, 2]\n\n\n"
        "def test_total(items):\n    for extra in [0, 5]:\n        assert total(items + [extra]) == 3 + extra\n"
    )
    evidence = {
        "type": "AssertionError",
        "line": 13,
        "locals": {"items": "[1, 2]", "extra": "5"},
        "compare": {"op": "==", "left": "7", "right": "8"},
        "message": "assert 7 == 8",
    }
    found = explain_failure(source, "tests/test_t.py::test_total", evidence, repo_modules={"pkg"})
    # the second pass fails: the first one stays in the reproduction, the failing pass is named
    assert found.reproduction.splitlines() == [
        "from pkg import total",
        "items = [1, 2]",
        "for extra in [0, 5]:",
        "    assert total(items + [extra]) == 3 + extra",
    ]
    assert found.loop_value == "extra = 5" and found.unbound == [] and found.function == "total"
    assert (found.observed, found.expected) == ("7", "8")  # `3 + extra` is computed: its value
    first_pass = {
        **evidence,
        "locals": {"items": "[1, 2]", "extra": "0"},
        "compare": {"op": "==", "left": "2", "right": "3"},
    }
    found = explain_failure(source, "tests/test_t.py::test_total", first_pass, repo_modules={"pkg"})
    assert found.reproduction.splitlines()[2:] == ["extra = 0", "assert total(items + [extra]) == 3 + extra"]
    # the first pass fails: the snippet shows it alone, and the evidence keeps the loop's passes (astroid's
    # `for ext in ("pyc", "pyo", *modutils.PY_COMPILED_EXTS)` lost the suffixes after the first)
    assert found.loop_over == "extra in [0, 5]"


def test_a_test_nested_in_describe_blocks_reads_what_its_blocks_define():
    """pytest-describe (graphql-core): the test is a function inside `describe_...` functions, its
    helper `_test` and its input type defined there. The id's first name, `describe_literal`, must
    lead to its own `_test`, not the other block's, and to the one-of block's misspelled-field
    test, not the first of that name; the blocks' other tests stay out."""
    source = (
        "from pkg import check, check_literal\n\n\n"
        "def describe_value():\n    def _test(value, want):\n        assert check(value) == want\n\n"
        "    def misspelled():\n        _test('x', 1)\n\n\n"
        "def describe_literal():\n    def _test(text, want):\n        assert check_literal(text) == want\n\n"
        "    def describe_plain():\n        def misspelled():\n            _test('a', 0)\n\n"
        "    def describe_one_of():\n        Kind = 'one_of'\n\n        def valid():\n            _test(Kind, 0)\n\n"
        "        def misspelled():\n            _test(Kind + 'x', 2)\n"
    )
    line = source.splitlines().index("            _test(Kind + 'x', 2)") + 1
    evidence = {
        "type": "AssertionError",
        "line": line,
        "compare": {"op": "==", "left": "3", "right": "2"},
        "message": "assert 3 == 2",
    }
    test_id = "tests/test_t.py::describe_literal::describe_one_of::misspelled"
    found = explain_failure(source, test_id, evidence, repo_modules={"pkg"})
    assert found.reproduction.splitlines() == [  # the helper's one check, written with the test's values
        "from pkg import check_literal",
        "Kind = 'one_of'",
        "assert check_literal(Kind + 'x') == 2",
    ], found.reproduction
    assert found.unbound == []


def test_a_loop_over_a_case_table_names_every_value_of_its_failing_pass():
    source = (
        "from pkg import render\n\nCASES = [('a', 'A'), ('b', 'B')]\n\n\n"
        "def test_cases():\n    for raw, want in CASES:\n        assert render(raw) == want\n"
    )
    evidence = {
        "type": "AssertionError",
        "line": 8,
        "locals": {"raw": "'b'", "want": "'B'"},
        "compare": {"op": "==", "left": "'b'", "right": "'B'"},
        "message": "assert 'b' == 'B'",
    }
    found = explain_failure(source, "tests/test_t.py::test_cases", evidence, repo_modules={"pkg"})
    assert found.loop_value == "raw, want = 'b', 'B'" and found.call == "render(raw)"


def test_an_async_test_runs_in_an_event_loop_that_the_reproduction_imports():
    """tenacity's async tests: the reproduction wraps the awaits in `asyncio.run` and imports
    asyncio (a blind rater once got no reproduction at all: `asyncio` was left unbound)."""
    source = (
        "from pkg import retrying\n\n\nclass TestLoop:\n    async def test_result(self):\n"
        "        async def attempt():\n            return 1\n\n"
        "        result = await retrying(attempt)\n        assert result == 3\n"
    )
    evidence = {"type": "TypeError", "line": 9, "message": "'int' object is not callable", "locals": {}}
    found = explain_failure(source, "tests/test_t.py::TestLoop::test_result", evidence, repo_modules={"pkg"})
    lines = found.reproduction.splitlines()
    assert "import asyncio" in lines and lines[-1] == "asyncio.run(main())" and found.unbound == []
    runs_to_the_failing_check(found.reproduction)
    assert found.rest == "assert result == 3"
    # what the later checks read is main's global, so they see it; annotated, it could not be
    # (statemachine's `enters: list = []`: a SyntaxError, and the statement showed no block)
    assert "    global result" in lines
    annotated = source.replace("result = await", "result: int = await")
    found = explain_failure(annotated, "tests/test_t.py::TestLoop::test_result", evidence, repo_modules={"pkg"})
    compile(found.reproduction, "<snippet>", "exec")
    assert "    result = await retrying(attempt)" in found.reproduction.splitlines()


def test_after_a_statement_that_raised_the_rest_of_the_test_is_required_too():
    """attrs' frozen exceptions: the first assignment raises, and every later one must work as
    well (a blind rater found a fix of the first alone would still fail the hidden test)."""
    source = (
        "from pkg import Frozen\n\n\ndef test_set():\n    e = Frozen()\n    e.cause = 1\n"
        "    e.context = 2\n    del e.context\n"
    )
    evidence = {"type": "FrozenInstanceError", "line": 6, "message": "", "locals": {}}
    found = explain_failure(source, "tests/test_t.py::test_set", evidence, repo_modules={"pkg"})
    assert found.reproduction.splitlines()[-1] == "e.cause = 1"
    assert found.rest == "e.context = 2\ndel e.context"
    failed_check = {"type": "AssertionError", "line": 6, "message": "assert 1 == 2", "locals": {}}
    plain = explain_failure(
        source.replace("e.cause = 1", "assert e.cause == 2"), "tests/test_t.py::test_set", failed_check
    )
    assert plain.rest is None  # after a failed check, only later checks are requirements, and there are none


def test_code_that_never_runs_is_left_out_of_the_reproduction():
    """tenacity's typing checks: an `if False:` block spliced from the test told a blind rater
    nothing and read as machine-made; what runs stays, and an emptied body still parses."""
    source = (
        "from pkg import total\n\n\ndef test_total():\n    def helper():\n        if False:\n"
        "            return 0\n    if False:\n        reveal_type(total)\n    x = total([helper()])\n"
        "    assert x == 3\n"
    )
    evidence = {"type": "AssertionError", "line": 11, "compare": {"op": "==", "left": "2", "right": "3"}}
    found = explain_failure(source, "tests/test_t.py::test_total", evidence, repo_modules={"pkg"})
    assert "if False" not in found.reproduction and "reveal_type" not in found.reproduction
    assert "def helper():\n    pass" in found.reproduction and found.reproduction.endswith("assert x == 3")
    compile(found.reproduction, "<snippet>", "exec")


def test_a_case_string_in_an_f_string_is_joined_into_the_literal():
    """python-json-logger: `f"{code};print('OK')"` became `f"{'import x'};print('OK')"`."""
    source = (
        "import pytest\nimport subprocess\nimport sys\n\n\n"
        "@pytest.mark.parametrize('code', ['import pkg.old'])\n"
        "def test_import(code):\n"
        "    out = subprocess.check_output([sys.executable, '-c', f\"{code};print('OK')\"])\n"
        "    assert out.strip() == b'OK'\n"
    )
    report = {
        "type": "CalledProcessError",
        "line": 8,
        "message": "exit status 1",
        "params": {"code": "'import pkg.old'"},
    }
    found = explain_failure(source, "tests/t.py::test_import[import pkg.old]", report, repo_modules={"pkg"})
    assert "[sys.executable, '-c', \"import pkg.old;print('OK')\"]" in found.reproduction, found.reproduction


def test_a_conditional_expression_on_the_cases_value_is_the_branch_it_takes():
    """pydoclint's `expected = expected1 if skipCheckingRaises else expected0`: with the case's
    `False` written in, the snippet read `expected1 if False else expected0`, a test's internals."""
    source = (
        "import pytest\nfrom pkg import check\n\n\n@pytest.mark.parametrize('skip', [False])\n"
        "def test_check(skip):\n    found = check(flag=skip)\n    expected0 = ['DOC501']\n    expected1 = []\n"
        "    expected = expected1 if skip else expected0\n    assert found == expected\n"
    )
    report = {"type": "AssertionError", "line": 11, "compare": {"op": "==", "left": "[]", "right": "['DOC501']"}}
    report["params"] = {"skip": "False"}
    found = explain_failure(source, "tests/t.py::test_check[False]", report, repo_modules={"pkg"})
    assert "expected = expected0" in found.reproduction and " if " not in found.reproduction, found.reproduction


def test_stacked_parametrize_decorators_give_each_name_its_own_value():
    """click's colour validation: two stacked `parametrize` decorators; each name takes the value
    at its own decorator's index."""
    source = (
        "import pytest\nimport click\n\n\n@pytest.mark.parametrize('param', ['fg', 'bg'])\n"
        "@pytest.mark.parametrize('value', ['', 'banana', 256])\n"
        "def test_invalid(param, value):\n    with pytest.raises(ValueError):\n"
        "        click.style('x', **{param: value})\n"
    )
    evidence = {"type": "Failed", "line": 8, "message": "DID NOT RAISE", "indices": {"value": 2, "param": 1}}
    found = explain_failure(source, "tests/t.py::test_invalid[256-bg]", evidence, repo_modules={"click"})
    assert "click.style('x', **{'bg': 256})" in found.reproduction
    falsy = {**evidence, "indices": {"value": 1, "param": 0}, "params": {"value": "0.0", "param": "'fg'"}}
    source_with_false = source.replace("256]", "False, 0.0]")
    found = explain_failure(source_with_false, "tests/t.py::test_invalid[0.0-fg]", falsy, repo_modules={"click"})
    assert "click.style('x', **{'fg': 0.0})" in found.reproduction  # 0.0 == False, yet not the same value
    # pytest 8 counts stacked decorators' indices over their product: the reported values decide
    product = {**evidence, "indices": {"value": 1, "param": 1}, "params": {"value": "256", "param": "'bg'"}}
    found = explain_failure(source, "tests/t.py::test_invalid[256-bg]", product, repo_modules={"click"})
    assert "click.style('x', **{'bg': 256})" in found.reproduction


def test_a_case_whose_id_holds_the_separator_gets_its_evidence():
    """An IPv6 URL in a parametrize id (`[http://[::1]:8080/]`): the id was split at its "::",
    the test function was not found, and the case got no evidence."""
    source = (
        "import pytest\nfrom pkg import safe_url\n\n\nclass TestSafe:\n"
        "    @pytest.mark.parametrize('url, want', [('http://[::1]:8080/a b', 'http://[::1]:8080/a%20b')])\n"
        "    def test_safe(self, url, want):\n        assert safe_url(url) == want\n"
    )
    evidence = {
        "type": "AssertionError",
        "line": 8,
        "indices": {"url": 0},
        "params": {"url": "'http://[::1]:8080/a b'", "want": "'http://[::1]:8080/a%20b'"},
        "compare": {"op": "==", "left": "'http://[::1]:8080/a b'", "right": "'http://[::1]:8080/a%20b'"},
        "message": "assert 'http://[::1]:8080/a b' == 'http://[::1]:8080/a%20b'",
    }
    test_id = "tests/t.py::TestSafe::test_safe[http://[::1]:8080/a b-http://[::1]:8080/a%20b]"
    found = explain_failure(source, test_id, evidence, repo_modules={"pkg"})
    assert found.derived and found.call == "safe_url('http://[::1]:8080/a b')"


def test_every_check_after_the_failing_one_is_kept_up_to_forty_lines():
    """w3lib: nineteen checks of quoted and malformed charsets followed the first failing one;
    over the old cap of 16 lines they were all left out, and a rater found them unstated."""
    later = "".join(f"    assert parse('v{n}') == {n}\n" for n in range(20))
    source = f"from pkg import parse\n\n\ndef test_parse():\n    assert parse('x') == 1\n{later}"
    report = {"type": "AssertionError", "line": 5, "compare": {"op": "==", "left": "None", "right": "1"}}
    found = explain_failure(source, "tests/t.py::test_parse", report, repo_modules={"pkg"})
    assert found.rest is not None and found.rest.count("assert parse(") == 20


def test_what_capsys_captured_is_read_from_redirected_streams():
    """loguru: `out, err = capsys.readouterr()` left `capsys` unbound, so the case had no block;
    the snippet redirects stdout and stderr around the test's lines instead."""
    source = (
        "import sys\nfrom pkg import shout\n\n\ndef test_shout(capsys):\n    handler = sys.stdout\n"
        "    shout(handler, 'hi')\n    out, err = capsys.readouterr()\n    assert out == 'HI\\n'\n"
    )
    report = {"type": "AssertionError", "line": 9, "compare": {"op": "==", "left": "'hi\\n'", "right": "'HI\\n'"}}
    found = explain_failure(source, "tests/t.py::test_shout", report, repo_modules={"pkg"})
    assert found.unbound == [] and "capsys" not in found.reproduction
    assert "with contextlib.redirect_stdout(captured_out), contextlib.redirect_stderr(captured_err):\n" in (
        found.reproduction
    )
    read = "    shout(handler, 'hi')\nout, err = (captured_out.getvalue(), captured_err.getvalue())"
    assert read in found.reproduction
    namespace: dict = {}
    shouted = found.reproduction.replace("from pkg import shout", "shout = lambda h, t: h.write(t.upper() + '\\n')")
    exec(compile(shouted, "<snippet>", "exec"), namespace)  # runs, and reads what it printed
    assert namespace["out"] == "HI\n"


def test_a_stream_read_inline_from_capsys_is_read_from_the_redirected_buffer():
    """numpydoc: `err = capsys.readouterr().err.strip()` and `assert capsys.readouterr().err ==
    expected` left `capsys` unbound, so no case of the CLI's tests had a block (the statement
    was rated garbled)."""
    source = (
        "import sys\nfrom pkg import shout\n\n\ndef test_shout(capsys):\n"
        "    shout(sys.stderr, 'hi')\n    err = capsys.readouterr().err.strip()\n    assert err == 'HI'\n"
    )
    report = {"type": "AssertionError", "line": 8, "compare": {"op": "==", "left": "'hi'", "right": "'HI'"}}
    found = explain_failure(source, "tests/t.py::test_shout", report, repo_modules={"pkg"})
    assert found.unbound == [] and "capsys" not in found.reproduction, found.reproduction
    assert "err = captured_err.getvalue().strip()" in found.reproduction
    namespace: dict = {}
    shouted = found.reproduction.replace("from pkg import shout", "shout = lambda h, t: h.write(t.upper() + '\\n')")
    exec(compile(shouted, "<snippet>", "exec"), namespace)  # runs, and reads what it printed
    assert namespace["err"] == "HI"
    inline = source.replace(
        "    err = capsys.readouterr().err.strip()\n    assert err ==", "    assert capsys.readouterr().err.strip() =="
    )
    found = explain_failure(inline, "tests/t.py::test_shout", {**report, "line": 7}, repo_modules={"pkg"})
    assert found.unbound == [] and "assert captured_err.getvalue().strip() == 'HI'" in found.reproduction
    assert found.call == "captured_err.getvalue().strip()"  # the prose's call is the snippet's, no `capsys`


def test_what_capfd_captured_is_read_from_redirected_streams_too():
    """click: `capfd` (the descriptors) was left unbound; what Python code writes reaches the
    redirected streams as well (output that does not is caught by the reproduction check)."""
    source = (
        "import sys\nfrom pkg import shout\n\n\ndef test_shout(capfd):\n"
        "    shout(sys.stderr, 'hi')\n    out, err = capfd.readouterr()\n    assert err == 'HI\\n'\n"
    )
    report = {"type": "AssertionError", "line": 8, "compare": {"op": "==", "left": "'hi\\n'", "right": "'HI\\n'"}}
    found = explain_failure(source, "tests/t.py::test_shout", report, repo_modules={"pkg"})
    assert found.unbound == [] and "capfd" not in found.reproduction, found.reproduction
    namespace: dict = {}
    shouted = found.reproduction.replace("from pkg import shout", "shout = lambda h, t: h.write(t.upper() + '\\n')")
    shouted = shouted.replace("shout(sys.stderr", "shout(__import__('sys').stderr")
    exec(compile(shouted, "<snippet>", "exec"), namespace)
    assert namespace["err"] == "HI\n"
    # two reads: each takes what was written since the one before (click's stdout, then stderr)
    twice = source.replace(
        "    shout(sys.stderr, 'hi')\n",
        "    shout(sys.stdout, 'lo')\n    out, err = capfd.readouterr()\n    shout(sys.stderr, 'hi')\n",
    )
    report = {**report, "line": 10}
    found = explain_failure(twice, "tests/t.py::test_shout", report, repo_modules={"pkg"})
    assert found.unbound == [] and "capfd" not in found.reproduction, found.reproduction
    namespace = {}
    exec(
        compile(
            found.reproduction.replace("from pkg import shout", "shout = lambda h, t: h.write(t.upper() + '\\n')"),
            "<s>",
            "exec",
        ),
        namespace,
    )
    assert (namespace["out"], namespace["err"]) == ("", "HI\n")


def test_a_decorator_call_that_fails_is_shown_decorating_the_tests_body():
    """freezegun: `@freeze_time(..., as_kwarg='hello')` raised TypeError while the test class
    was built (a collection error at the class line), or its wrapper called the test without the
    argument; the tests got no evidence. The snippet decorates the test's body and calls it."""
    source = (
        "import datetime\nimport unittest\nfrom freezegun import freeze_time\n\n\n"
        "class TestDecorator(unittest.TestCase):\n"
        "    @freeze_time('2013-04-09', as_kwarg='hello')\n"
        "    def test_kwarg(self, **kwargs):\n"
        "        self.assertEqual(datetime.date(2013, 4, 9), kwargs.get('hello').time_to_freeze.today())\n"
    )
    loading = {
        "when": "collect",
        "type": "TypeError",
        "line": 6,
        "message": "freeze_time() got an unexpected keyword argument 'as_kwarg'",
    }
    test_id = "tests/t.py::TestDecorator::test_kwarg"
    found = explain_failure(source, test_id, loading, repo_modules={"freezegun"})
    assert found.unbound == [] and "test_kwarg" not in found.reproduction and "self" not in found.reproduction
    assert "@freeze_time('2013-04-09', as_kwarg='hello')\ndef decorated(**kwargs):\n" in found.reproduction
    assert found.reproduction.endswith("\ndecorated()")
    calling = {
        "when": "call",
        "type": "TypeError",
        "message": "TestDecorator.test_kwarg() missing 1 required positional argument: 'frozen_time'",
    }
    found = explain_failure(source, test_id, calling, repo_modules={"freezegun"})
    assert found.reproduction.endswith("\ndecorated()") and "test_kwarg" not in (found.error or "")
    assert found.error == "TypeError: decorated() missing 1 required positional argument: 'frozen_time'"
    # a failure inside the body is the body's, not the decorator's
    inside = {"when": "call", "type": "AssertionError", "line": 9, "message": "assert 1 == 2"}
    assert "decorated" not in (explain_failure(source, test_id, inside, repo_modules={"freezegun"}).reproduction or "")


def test_a_fixture_the_test_imports_from_its_own_package_is_built():
    """vulture: `from . import check, v` takes the fixture `v` from `tests/__init__.py`; the
    snippet used `v` unbound."""
    helpers = (
        "import pytest\nfrom pkg import core\n\n\n"
        "def check(found, names):\n    assert sorted(found) == sorted(names)\n\n\n"
        "@pytest.fixture\ndef v():\n    return core.Scanner(verbose=True)\n"
    )
    source = (
        "from . import check, v\n\nassert v\n\n\ndef test_scan(v):\n    v.scan('x = 1')\n    check(v.unused, ['x'])\n"
    )
    report = {"type": "AssertionError", "line": 8, "message": "assert [] == ['x']"}
    test_id = "tests/test_scan.py::test_scan"
    found = explain_failure(source, test_id, report, repo_modules={"pkg"}, test_helpers={"tests": helpers})
    assert found.unbound == [] and "v = core.Scanner(verbose=True)" in found.reproduction


def test_a_check_helper_keeps_its_parameters_and_each_call_gets_its_own_values():
    """pyjson5: `self.check(s, obj)` wraps `self.assertEqual(obj, loads(s))`; inlining the failing
    call rewrote the helper's own body, so its definition and every later call read
    `assert -15 == loads('-0xf')`."""
    source = (
        "import unittest\nfrom pkg import loads\n\n\nclass TestLoads(unittest.TestCase):\n"
        "    def check(self, s, obj):\n        self.assertEqual(obj, loads(s))\n\n"
        "    def test_numbers(self):\n        self.check('1', 1)\n        self.check('-0xf', -15)\n"
        "        self.check('-0x0', 0)\n        self.check('2', 2)\n"
    )
    report = {"type": "ValueError", "line": 11, "message": "invalid literal for int() with base 10: '-0xf'"}
    found = explain_failure(source, "tests/t.py::TestLoads::test_numbers", report, repo_modules={"pkg"})
    # the earlier `self.check('1', 1)` passed: a check, so the snippet needs no helper definition
    assert "def check" not in found.reproduction and "self" not in found.reproduction
    assert found.reproduction.endswith("assert -15 == loads('-0xf')") and found.unbound == []
    assert found.rest.splitlines() == ["assert 0 == loads('-0x0')", "assert 2 == loads('2')"]


def test_a_checking_method_of_an_unread_base_class_and_an_assertion_with_no_plain_form_passed():
    """elementpath: `self.check_tokenizer(...)` (a base class's method, in another module) and
    `self.assertAlmostEqual(token.evaluate(), math.pi)` came before the failing check, both passed;
    kept as they were, `self` was unbound and the statement showed no example."""
    source = (
        "import math\nfrom pkg import Parser\nfrom tests import base\n\n\nclass T(base.ParserTest):\n"
        "    def test_uri(self):\n        parser = Parser()\n"
        "        self.check_tokenizer('Q{a}b', ['Q{', 'a', '}', 'b'])\n"
        "        token = parser.parse('Q{x}pi()')\n        self.assertAlmostEqual(token.evaluate(), math.pi)\n"
        "        token = parser.parse('Q{}foo')\n        self.assertEqual(token.value, 'foo')\n"
    )
    report = {"type": "AssertionError", "line": 13, "message": "'' != 'foo'"}
    found = explain_failure(source, "tests/t.py::T::test_uri", report, repo_modules={"pkg"})
    assert "self" not in found.reproduction and found.unbound == [], found.reproduction
    assert "token.evaluate()" in found.reproduction and found.reproduction.endswith("assert token.value == 'foo'")


def test_a_coroutine_the_test_runs_itself_is_not_wrapped_in_another_event_loop():
    """python-jsonpath: a sync test defines `async def coro()` and calls `asyncio.run(coro())`;
    the snippet wrapped it all in `async def main()`, where `asyncio.run` cannot run."""
    source = (
        "import asyncio\nfrom pkg import compile_path\n\n\ndef test_find_async():\n"
        "    path = compile_path('$.a')\n\n    async def coro():\n        return await path.findall_async({'a': 1})\n\n"
        "    assert asyncio.run(coro()) == [1]\n"
    )
    report = {"type": "AssertionError", "line": 11, "compare": {"op": "==", "left": "[]", "right": "[1]"}}
    found = explain_failure(source, "tests/t.py::test_find_async", report, repo_modules={"pkg"})
    assert "async def main" not in found.reproduction and found.unbound == []
    assert found.reproduction.endswith("assert asyncio.run(coro()) == [1]")


def test_the_checks_after_the_failing_one_that_await_run_in_an_event_loop_of_their_own():
    """tenacity: an async test failed at a plain check; the checks after it awaited at the top of
    their block, a SyntaxError on both states, so the reproduction check dropped the block."""
    source = (
        "from pkg import retrying\n\n\nasync def test_stats():\n"
        "    assert retrying.stats == {}\n    result = await retrying.go()\n    assert result == 3\n"
    )
    report = {"type": "AssertionError", "line": 5, "compare": {"op": "==", "left": "None", "right": "{}"}}
    found = explain_failure(source, "tests/t.py::test_stats", report, repo_modules={"pkg"})
    assert "async def main" not in found.reproduction and found.reproduction.endswith("assert retrying.stats == {}")
    assert found.rest.splitlines()[0] == "async def main():" and found.rest.splitlines()[-1] == "asyncio.run(main())"
    assert "import asyncio" in found.reproduction.splitlines()
    compile(found.reproduction + "\n" + found.rest, "<snippet>", "exec")  # one program, no await outside a function


def test_an_earlier_check_whose_call_sets_the_state_the_failing_check_reads_keeps_its_call():
    """tenacity: `self.assertTrue(await f(thing))` passed, then `f.retry.statistics` was wrong;
    dropped as a passed check, the call went with it, and the snippet read fresh statistics that
    pass on the buggy state. A check that only calls again (`f(2)` after `f(1)`) is still left out."""
    source = (
        "import unittest\nfrom pkg import f, Thing\n\n\nclass T(unittest.TestCase):\n"
        "    def test_stats(self):\n        self.assertTrue(f(Thing(1)))\n"
        "        self.assertEqual(f.retry.statistics, {})\n\n"
        "    def test_again(self):\n        self.assertEqual(f(1), 2)\n        self.assertEqual(f(2), 3)\n"
    )
    report = {"type": "AssertionError", "line": 8, "message": "{'n': 1} != {}"}
    found = explain_failure(source, "tests/t.py::T::test_stats", report, repo_modules={"pkg"})
    assert found.reproduction.splitlines()[-2:] == ["f(Thing(1))", "assert f.retry.statistics == {}"]
    report = {"type": "AssertionError", "line": 12, "message": "4 != 3"}
    found = explain_failure(source, "tests/t.py::T::test_again", report, repo_modules={"pkg"})
    assert "f(1)" not in found.reproduction and found.reproduction.endswith("assert f(2) == 3")


def test_pytest_mocks_patches_are_started_unittest_mock_patches():
    """platformdirs: `mocker.patch(...)` left `mocker` unbound, so neither case had a block and
    the judges found the statement vague; `mock.patch(...).start()` holds for the rest of the
    snippet as the fixture's patch holds for the rest of the test. `mocker.spy` has no such form."""
    source = (
        "from pkg import Dirs\n\n\ndef test_dirs(mocker):\n"
        "    mocker.patch('pkg.getuid', return_value=0)\n    fake = mocker.MagicMock()\n"
        "    assert Dirs(fake).all() == ['/x']\n"
    )
    report = {"type": "AssertionError", "line": 7, "compare": {"op": "==", "left": "['/x', '/x']", "right": "['/x']"}}
    found = explain_failure(source, "tests/t.py::test_dirs", report, repo_modules={"pkg"})
    assert found.unbound == [] and "mocker" not in found.reproduction, found.reproduction
    assert "from unittest import mock" in found.reproduction.splitlines()
    assert "mock.patch('pkg.getuid', return_value=0).start()\nfake = mock.MagicMock()" in found.reproduction
    spied = source.replace("fake = mocker.MagicMock()", "fake = mocker.spy(Dirs, 'all')")
    found = explain_failure(spied, "tests/t.py::test_dirs", report, repo_modules={"pkg"})
    assert found.unbound == ["mocker"]


def test_a_helper_the_test_hands_mocker_patches_through_unittest_mock_and_takes_no_mocker():
    """filelock: `_open_raising_for(claim, OSError(ESTALE, ...), mocker)` left `mocker` unbound, and
    the case was counted, never stated. A helper that uses `mocker` otherwise keeps it."""
    source = (
        "from pkg import Lock\n\n\ndef _raising(path, exc, mocker, quiet=True):\n"
        "    mocker.patch('pkg.os.open', side_effect=exc)\n\n\n"
        "def test_stale(mocker):\n    _raising('c', OSError(116, 'Stale'), mocker)\n"
        "    assert Lock('c').claims == ()\n"
    )
    report = {"type": "AssertionError", "line": 10, "compare": {"op": "==", "left": "None", "right": "()"}}
    found = explain_failure(source, "tests/t.py::test_stale", report, repo_modules={"pkg"})
    assert found.unbound == [] and "mocker" not in found.reproduction, found.reproduction
    assert "def _raising(path, exc, quiet=True):" in found.reproduction
    assert "    mock.patch('pkg.os.open', side_effect=exc).start()" in found.reproduction
    assert "_raising('c', OSError(116, 'Stale'))" in found.reproduction
    spying = source.replace("mocker.patch('pkg.os.open', side_effect=exc)", "mocker.spy(Lock, 'claims')")
    assert explain_failure(spying, "tests/t.py::test_stale", report, repo_modules={"pkg"}).unbound == ["mocker"]


def test_a_unittest_check_in_a_loop_of_a_test_that_never_ran_is_a_plain_assert():
    """parsel: the file failed to import a name the fix adds; the whole test became the snippet,
    but the `self.assertEqual` calls inside its loop kept `self`, so no block was shown."""
    source = (
        "import unittest\nfrom pkg import Selector, NEW\n\n\nclass T(unittest.TestCase):\n"
        "    def test_types(self):\n        for text, root in (('{}', {}), ('[]', [])):\n"
        "            selector = Selector(text=text, root=NEW)\n            self.assertEqual(selector.root, root)\n"
    )
    report = {"when": "collect", "type": "ImportError", "line": 2, "message": "cannot import name 'NEW'"}
    found = explain_failure(source, "tests/t.py::T::test_types", report, repo_modules={"pkg"})
    assert found.unbound == [] and "    assert selector.root == root" in found.reproduction


def test_a_class_the_test_defines_keeps_its_own_self():
    """parsimonious c42ee4ee: the test's `class Smoo(Quantifier)` sets `self.smoo` in its own
    `__init__`; that `self` was taken for the TestCase's, the line became `smoo = 'smoo'`, and
    the snippet's rest failed on the fixed state. The check that never ran was quoted with `self`."""
    source = (
        "import unittest\nfrom pkg import Quantifier\n\n\nclass T(unittest.TestCase):\n"
        "    def test_subclassing(self):\n        class Smoo(Quantifier):\n            __slots__ = ['smoo']\n\n"
        "            def __init__(self):\n                self.smoo = 'smoo'\n\n"
        "        smoo = Smoo()\n        self.assertEqual(smoo.__dict__, {})\n"
        "        self.assertEqual(smoo.smoo, 'smoo')\n"
    )
    report = {"when": "collect", "type": "ImportError", "line": 2, "message": "cannot import name 'Quantifier'"}
    found = explain_failure(source, "tests/t.py::T::test_subclassing", report, repo_modules={"pkg"})
    assert "        self.smoo = 'smoo'" in found.reproduction, found.reproduction
    assert found.reproduction.endswith("assert smoo.__dict__ == {}") and found.rest == "assert smoo.smoo == 'smoo'"
    assert found.call == "smoo.__dict__ == {}"  # the check as shown, not `self.assertEqual(...)`


def test_a_helper_method_only_the_rest_calls_is_defined_so_the_rest_is_told():
    """nameparser 19e18930 (discarded on check set 24): the constructor raised on the new
    `initials_delimiter=`, and the check after it, `self.m(hn.initials(), 'J; A;', hn)`, was left
    out because `m` was not defined in the snippet; the statement asked only that the argument exist."""
    source = (
        "import unittest\nfrom pkg import Name\n\n\nclass Base(unittest.TestCase):\n"
        "    def m(self, actual, expected):\n        assert actual == expected\n\n\n"
        "class T(Base):\n    def test_delimiter(self):\n"
        "        hn = Name('John Doe', delimiter=';')\n        self.m(hn.initials(), 'J; D;')\n"
    )
    report = {"type": "TypeError", "line": 12, "message": "Name() got an unexpected keyword argument 'delimiter'"}
    found = explain_failure(source, "tests/t.py::T::test_delimiter", report, repo_modules={"pkg"})
    assert found.rest == "assert hn.initials() == 'J; D;'", found.rest  # the one-assert helper, inlined


def test_a_test_that_never_ran_fails_at_its_first_check_and_requires_the_rest():
    """bleach: the file imports a module the change adds; the snippet ended with the test's last
    check (`.fragment`) and left out the five before it as if they had passed."""
    source = (
        "import pytest\nfrom pkg.shim import urlparse\n\n\n"
        "@pytest.mark.parametrize('uri, scheme, path', [('a:b', 'a', 'b')])\n"
        "def test_urlparse(uri, scheme, path):\n    parsed = urlparse(uri)\n"
        "    assert parsed.scheme == scheme\n    assert parsed.path == path\n    assert parsed.query == ''\n"
    )
    report = {"when": "collect", "type": "ModuleNotFoundError", "line": 2, "message": "No module named 'pkg.shim'"}
    found = explain_failure(source, "tests/t.py::test_urlparse[a:b-a-b]", report, repo_modules={"pkg"})
    assert found.reproduction.endswith("parsed = urlparse('a:b')\nassert parsed.scheme == 'a'"), found.reproduction
    assert found.rest == "assert parsed.path == 'b'\nassert parsed.query == ''", found.rest


LONG_RESULT = "Result(scheme='http', netloc='f:00000000000000000000080', path='/c', query='', fragment='')"


def test_a_wanted_value_read_from_a_case_parameter_is_written_with_the_cases_value():
    """bleach: a case whose `expected` stayed a name in the snippet (`expected = ParseResult(...)`)
    was listed as "it should be `expected.fragment`"."""
    source = (
        "import pytest\nfrom pkg.shim import urlparse, Result\n\n\n"
        f"@pytest.mark.parametrize('uri, expected', [('a:b', {LONG_RESULT})])\n"
        "def test_urlparse(uri, expected):\n    parsed = urlparse(uri)\n"
        "    assert parsed.fragment == expected.fragment\n"
    )
    report = {
        "type": "AssertionError",
        "line": 8,
        "message": "assert 'x' == ''",
        "params": {"uri": "'a:b'", "expected": LONG_RESULT},
    }
    found = explain_failure(source, "tests/t.py::test_urlparse[a:b-expected0]", report, repo_modules={"pkg"})
    assert f"expected = {LONG_RESULT}" in found.reproduction  # too long to write into the check
    assert found.expected == f"{LONG_RESULT}.fragment", found.expected


def test_a_message_pytest_shows_as_a_diff_is_a_raised_exception_with_another_message():
    """attrs on pytest 9: `pytest.raises(AttributeError, match='^I am a property$')` failed with
    the diff "- 'A' object has no attribute 'p'" / "+ I am a property"; the statement said the
    snippet "does not raise", where it raises with another message."""
    source = (
        "import pytest\nfrom pkg import A\n\n\ndef test_p():\n    a = A(1)\n"
        "    with pytest.raises(AttributeError, match='^I am a property$'):\n        a.p\n"
    )
    report = {"type": "AssertionError", "line": 7, "message": "\n- 'A' object has no attribute 'p'\n+ I am a property"}
    found = explain_failure(source, "tests/t.py::test_p", report, repo_modules={"pkg"})
    assert found.observed.startswith("Regex pattern did not match"), found.observed
    assert "Actual message: 'A' object has no attribute 'p'" in found.message
    from llm.offline.writer import evidence_symptom

    assert "with the wrong message" in evidence_symptom(found), evidence_symptom(found)


def test_a_bytes_case_of_a_test_that_never_ran_is_found_by_pytests_escaped_id():
    """charset_normalizer: `is_binary` is new, the file never loaded, and its bytes cases
    (`test_isbinary[GIF89a\\x01\\x00-True]`) got no values: they were counted, never listed."""
    source = (
        "import pytest\nfrom pkg import is_binary\n\n\n"
        "@pytest.mark.parametrize('raw, expected', [(b'GIF89a\\x01\\x00', True), ('caf\\xe9', False)])\n"
        "def test_isbinary(raw, expected):\n    assert is_binary(raw) is expected\n"
    )
    report = {"when": "collect", "type": "ImportError", "line": 2, "message": "cannot import name 'is_binary'"}
    found = explain_failure(source, "tests/t.py::test_isbinary[GIF89a\\x01\\x00-True]", report, repo_modules={"pkg"})
    assert "is_binary(b'GIF89a\\x01\\x00') is True" in found.reproduction, found.reproduction
    found = explain_failure(source, "tests/t.py::test_isbinary[caf\\xe9-False]", report, repo_modules={"pkg"})
    assert "is_binary('café') is False" in found.reproduction, found.reproduction


def test_cases_whose_values_are_expressions_are_placed_by_their_value_or_as_the_one_left():
    """charset_normalizer again: the real cases are `b'\\x00\\x5f\\x2f\\xff' * 50` and
    `b64decode("R0lG...")`, whose ids are the values they make: both were counted, never listed.
    The product is folded; the call is the one element no other case's id places."""
    source = (
        "import pytest\nfrom base64 import b64decode\nfrom io import BytesIO\nfrom pkg import is_binary\n\n\n"
        "@pytest.mark.parametrize('raw, expected', [(b'\\x00\\x5f' * 3, True), (b64decode('R0lG'), True),"
        " (BytesIO(b'x'), True), ('a.txt', False)])\n"
        "def test_isbinary(raw, expected):\n    assert is_binary(raw) is expected\n"
    )
    ids = [
        f"tests/t.py::test_isbinary[{case}]"
        for case in ("\\x00_\\x00_\\x00_-True", "GIF-True", "raw2-True", "a.txt-False")
    ]
    report = {"when": "collect", "type": "ImportError", "line": 4, "message": "cannot import name 'is_binary'"}

    def found(test_id, siblings):
        others = [i for i in siblings if i != test_id]
        return explain_failure(source, test_id, {**report, "siblings": others}, repo_modules={"pkg"}).reproduction

    assert "is_binary(b'\\x00_' * 3) is True" in found(ids[0], []), found(ids[0], [])
    assert "is_binary(b64decode('R0lG')) is True" in found(ids[1], ids)
    # a case of the test that did not fail could be the one: nothing is guessed
    assert "b64decode('R0lG')" not in found(ids[1], ids[1:])


def test_an_if_chain_over_a_cases_literal_is_only_the_branch_it_takes():
    """email-validator: `if status == 'ISEMAIL_VALID': ... elif status == '...TOOLONG': ...` over
    the case's `status`; the snippet showed all six branches."""
    source = (
        "import pytest\nfrom pkg import validate, Bad\n\n\n"
        "@pytest.mark.parametrize('email, status', [('a' * 3 + '@x', 'TOOLONG')])\n"
        "def test_cases(email, status):\n"
        "    if status == 'VALID':\n        validate(email)\n"
        "    elif status == 'TOOLONG' or '_ERR_' in status:\n"
        "        with pytest.raises(Bad):\n            validate(email, strict=True)\n"
        "    else:\n        validate(email, loose=True)\n"
    )
    report = {"type": "Failed", "line": 11, "message": "DID NOT RAISE"}
    report["params"] = {"email": "'aaa@x'", "status": "'TOOLONG'"}
    found = explain_failure(source, "tests/t.py::test_cases[aaa@x-TOOLONG]", report, repo_modules={"pkg"})
    assert "if " not in found.reproduction and "loose" not in found.reproduction, found.reproduction
    assert "with pytest.raises(Bad):\n    validate(email, strict=True)" in found.reproduction, found.reproduction


def test_a_case_of_a_test_that_never_ran_is_found_by_its_class_name():
    """bidict: a file that fails to import a name the fix adds; its parametrize list is a module
    constant of classes, and pytest names each case by the class (`[Fancy]`), not `cls1`."""
    source = (
        "import pytest\nfrom pkg import Plain, Fancy, NewThing\n\nTYPES = (Plain, Fancy)\n\n\n"
        "@pytest.mark.parametrize('cls', TYPES)\ndef test_sub(cls):\n    assert issubclass(cls, NewThing)\n"
    )
    report = {"when": "collect", "type": "ImportError", "line": 2, "message": "cannot import name 'NewThing'"}
    found = explain_failure(source, "tests/t.py::test_sub[Fancy]", report, repo_modules={"pkg"})
    assert "issubclass(Fancy, NewThing)" in found.reproduction and found.unbound == []


def test_a_class_the_runner_reports_by_its_repr_is_the_name_the_test_imports():
    """A parametrize list imported from a fixtures module: the runner's `<class 'pkg.Fancy'>`
    is no expression; the test module's own import of `Fancy` binds it."""
    source = (
        "import pytest\nfrom pkg import Fancy\nfrom fixtures import TYPES\n\n\n"
        "@pytest.mark.parametrize('cls', TYPES)\ndef test_size(cls):\n    obj = cls()\n    assert obj.size == 2\n"
    )
    report = {
        "type": "AssertionError",
        "line": 9,
        "params": {"cls": "<class 'pkg.Fancy'>"},
        "compare": {"op": "==", "left": "1", "right": "2"},
        "message": "assert 1 == 2",
    }
    found = explain_failure(source, "tests/t.py::test_size[Fancy]", report, repo_modules={"pkg"})
    assert "obj = Fancy()" in found.reproduction and found.unbound == []
    other = {**report, "params": {"cls": "<class 'fixtures.Local'>"}}  # not imported by the test module
    unknown = explain_failure(source, "tests/t.py::test_size[Local]", other, repo_modules={"pkg"})
    assert "Local" not in unknown.reproduction and unknown.unbound == ["cls"]


@pytest.mark.docker
def test_the_evidence_comes_through_the_containers_verdict_channel_too(shop, tmp_path):
    from tests.sandbox_fixtures import require_docker

    require_docker()
    repo, sha, candidate, local_run, _ = shop
    task = skeleton(candidate, BUG_FIX)
    backend = make_sandbox("docker", limits=Limits(timeout_s=120), cache_dir=tmp_path / "cache", log=lambda m: None)
    try:
        run = backend.run_tests(repo, sha, [task.bug_patch], sorted({t.split("::")[0] for t in TESTS.values()}))
    finally:
        backend.close()
    assert not run.broken, run.note
    for test_id in TESTS.values():  # the same evidence as the local run's, from inside the container
        for key in ("type", "line", "compare", "params"):
            assert run.failures[test_id].get(key) == local_run.failures[test_id].get(key), (test_id, key)


def test_a_parametrized_argument_named_cls_is_a_value_like_any_other():
    """click's `path_type`: `cls` is a parameter of a plain test function, not a class method's
    first argument, so the snippet gets its value."""
    source = (
        "import pathlib\nimport pytest\nimport click\n\n\n"
        "@pytest.mark.parametrize(('cls', 'expect'), [(str, 'a'), (pathlib.Path, pathlib.Path('a'))])\n"
        "def test_path_type(cls, expect):\n    assert click.Path(path_type=cls).convert('a', None, None) == expect\n"
    )
    evidence = {"type": "AssertionError", "line": 8, "message": "assert 'a' == PosixPath('a')", "indices": {"cls": 1}}
    found = explain_failure(source, "tests/t.py::test_path_type[Path-expect1]", evidence, repo_modules={"click"})
    assert "path_type=pathlib.Path" in found.reproduction and not found.unbound
    # a stored report keeps no index: the element whose values are the reported ones is found
    stored = {**evidence, "indices": None, "params": {"cls": "<class 'pathlib.Path'>", "expect": "PosixPath('a')"}}
    found = explain_failure(source, "tests/t.py::test_path_type[Path-expect1]", stored, repo_modules={"click"})
    assert "path_type=pathlib.Path" in found.reproduction and "== pathlib.Path('a')" in found.reproduction
    assert not found.unbound


def test_a_unittest_subtest_block_becomes_its_body():
    """`with self.subTest():` only labels a failure: the snippet has no `self` to call it on."""
    source = (
        "import unittest\nimport tenacity\n\n\nclass T(unittest.TestCase):\n"
        "    def test_stop(self):\n        for delay in (1, 2):\n            with self.subTest():\n"
        "                r = tenacity.Retrying(stop=tenacity.stop_after_delay(delay))\n"
        "                self.assertFalse(r.stop(None))\n"
    )
    evidence = {"type": "AssertionError", "line": 10, "message": "True is not false", "locals": {"delay": "1"}}
    found = explain_failure(source, "tests/t.py::T::test_stop", evidence, repo_modules={"tenacity"})
    assert "subTest" not in found.reproduction and "self" not in found.reproduction and not found.unbound
    assert "assert not r.stop(None)" in found.reproduction


def test_a_pytest_subtests_block_becomes_its_body():
    """jsonargparse: `with subtests.test("one extra positional"):` left the fixture `subtests`
    unbound in the snippet."""
    source = (
        "from pkg import Parser\n\n\ndef test_parse(subtests):\n    parser = Parser()\n"
        "    with subtests.test('help'):\n        assert parser.help()\n"
        "    with subtests.test('extra'):\n        cfg = parser.parse(['p1', '2'])\n        assert cfg == {'o1': 2}\n"
    )
    evidence = {"type": "AssertionError", "line": 10, "compare": {"op": "==", "left": "{}", "right": "{'o1': 2}"}}
    found = explain_failure(source, "tests/t.py::test_parse", evidence, repo_modules={"pkg"})
    assert "subtests" not in found.reproduction and not found.unbound, found.reproduction
    assert found.reproduction.splitlines()[-2:] == ["cfg = parser.parse(['p1', '2'])", "assert cfg == {'o1': 2}"]


def test_an_error_inside_a_comparison_blames_the_side_that_raised_not_the_tests_own_class():
    """attrs' evolve: `assert Local(...) == lib.evolve(...)` raised inside evolve; the statement
    had blamed the test's own class (the left side) and asked evolve's result as its value."""
    source = (
        "import pkg\n\n\ndef test_evolve():\n    @pkg.s\n    class Local:\n        x = pkg.ib()\n\n"
        "    old = Local(x=1)\n    assert Local(x={'a': 1}) == pkg.evolve(\n        old, x={'a': 1}\n    )\n"
    )
    evidence = {"type": "TypeError", "line": 10, "message": "got an unexpected keyword 'a'", "raised_in": "evolve"}
    found = explain_failure(source, "tests/t.py::test_evolve", evidence, repo_modules={"pkg"})
    assert (found.call, found.expected) == ("pkg.evolve(old, x={'a': 1})", "Local(x={'a': 1})")
    assert found.function == "pkg.evolve" and found.observed.startswith("TypeError")
    # the check spread over three lines is quoted whole
    assert found.check == "assert Local(x={'a': 1}) == pkg.evolve(old, x={'a': 1})"
    # no function named by the runner: the side that calls the project is the one computed
    unnamed = explain_failure(source, "tests/t.py::test_evolve", {**evidence, "raised_in": ""}, repo_modules={"pkg"})
    assert unnamed.call == "pkg.evolve(old, x={'a': 1})"
    # the side that raised wins over the project's side: here the test's class raised
    local = {**evidence, "raised_in": "Local"}
    assert explain_failure(source, "tests/t.py::test_evolve", local, repo_modules={"pkg"}).call == "Local(x={'a': 1})"


def test_a_setup_value_nothing_reads_and_its_unbound_module_name_stay_out():
    """boltons' setUp stored `self.data_type = binary_type` (a name bound in a module-level
    try/except) that the test never reads: the snippet was unrunnable and the statement empty."""
    source = (
        "from unittest import TestCase\nfrom pkg import Flo\n\ntry:\n    kind = unicode\nexcept NameError:\n"
        "    kind = str\n\n\nclass T(TestCase):\n    def setUp(self):\n        self.flo = Flo()\n"
        "        self.kind = kind\n        self.text = 'a{}'.format('b').encode('ascii')\n\n"
        "    def test_write(self):\n        self.flo.writelines([b'1'])\n"
    )
    evidence = {"type": "AttributeError", "line": 17, "message": "'Flo' object has no attribute 'writelines'"}
    found = explain_failure(source, "tests/t.py::T::test_write", evidence, repo_modules={"pkg"})
    assert found.reproduction.splitlines() == ["from pkg import Flo", "flo = Flo()", "flo.writelines([b'1'])"]
    assert found.unbound == []


def test_a_mapping_a_patch_dict_decorator_changes_is_changed_first_in_the_snippet():
    """pyhocon's test set an environment variable through `@mock.patch.dict(os.environ, ...)`:
    a snippet without it raised on the fixed code too, and was dropped."""
    source = (
        "import os\nfrom unittest import mock\nfrom pkg import parse\n\n\n"
        "class T:\n    @mock.patch.dict(os.environ, STRING_VAR='from_env')\n"
        "    def test_env(self):\n        assert parse('a = ${STRING_VAR}')['a'] == 'from_env'\n\n"
        "    @mock.patch.dict('os.environ', {'A': '1'}, clear=True)\n"
        "    def test_clear(self):\n        assert parse('a = ${A}')['a'] == '1'\n"
    )
    evidence = {"type": "AssertionError", "line": 9, "compare": {"op": "==", "left": "None", "right": "'from_env'"}}
    found = explain_failure(source, "tests/t.py::T::test_env", evidence, repo_modules={"pkg"})
    lines = found.reproduction.splitlines()
    assert "os.environ.update(STRING_VAR='from_env')" in lines, lines
    assert lines.index("os.environ.update(STRING_VAR='from_env')") < lines.index(
        "assert parse('a = ${STRING_VAR}')['a'] == 'from_env'"
    )
    assert "import os" in lines and found.unbound == []
    evidence = {**evidence, "line": 13, "compare": {"op": "==", "left": "None", "right": "'1'"}}
    found = explain_failure(source, "tests/t.py::T::test_clear", evidence, repo_modules={"pkg"})
    lines = found.reproduction.splitlines()
    assert lines.index("os.environ.clear()") < lines.index("os.environ.update({'A': '1'})"), lines
    assert "import os" in lines and found.unbound == []


def test_stores_read_only_by_dropped_stores_go_too():
    """furl: three `url = ...` lines that nothing read stayed, each read by the next dead one."""
    source = (
        "from pkg import Url\n\n\ndef test_join():\n    base = 'http://a/'\n    url = Url(base)\n"
        "    other = url\n    url = Url('http://b/')\n    other = url\n    assert Url('x').join('y') == 'x/y'\n"
    )
    evidence = {"type": "AssertionError", "line": 10, "compare": {"op": "==", "left": "'y'", "right": "'x/y'"}}
    found = explain_failure(source, "tests/t.py::test_join", evidence, repo_modules={"pkg"})
    # the last store is a call nothing overwrites: it stays as setup
    assert found.reproduction.splitlines() == [
        "from pkg import Url",
        "url = Url('http://b/')",
        "assert Url('x').join('y') == 'x/y'",
    ]


def test_a_call_on_an_object_the_test_reads_again_stays_though_its_result_is_overwritten():
    """starlette: the first request (a Range request) changed the response object the second
    request got; without it the snippet passed on the buggy code."""
    source = (
        "from pkg import App, Client\n\n\ndef test_calls():\n    client = Client(App())\n"
        "    response = client.get('/', headers={'Range': 'bytes=0-1'})\n    assert response.status == 206\n"
        "    response = client.get('/')\n    assert 'range' not in response.headers\n"
        "    result = App().render('a')\n    result = App().render('b')\n    assert result == 'b'\n"
    )
    evidence = {"type": "AssertionError", "line": 9, "message": "assert 'range' not in {'range': '0-1'}"}
    found = explain_failure(source, "tests/t.py::test_calls", evidence, repo_modules={"pkg"})
    assert "response = client.get('/', headers={'Range': 'bytes=0-1'})" in found.reproduction.splitlines()
    evidence = {"type": "AssertionError", "line": 12, "compare": {"op": "==", "left": "'a'", "right": "'b'"}}
    found = explain_failure(source, "tests/t.py::test_calls", evidence, repo_modules={"pkg"})
    assert "result = App().render('a')" not in found.reproduction  # a new object's call changes nothing read later


def test_a_call_on_a_part_of_an_object_read_later_stays_though_its_result_is_overwritten():
    """bigtree 5e57623e: the `rich_root` fixture adds a grandchild through `child`
    (`_ = child.add(...)`) and then `_ = rich_root.add(...)`; the first store was taken for a dead
    one, the snippet's tree lost its grandchild, and the checks after it failed on the fixed code."""
    source = (
        "from pkg import Tree, convert\n\n\ndef test_convert():\n    root = Tree('a')\n"
        "    child = root.add('b')\n    grandchild = child.add('c')\n    _ = grandchild.add('x')\n"
        "    _ = child.add('e')\n    _ = root.add('d')\n    assert convert(root) == 'a(b(c(x),e),d)'\n"
    )
    evidence = {
        "type": "AssertionError",
        "line": 11,
        "compare": {"op": "==", "left": "''", "right": "'a(b(c(x),e),d)'"},
    }
    found = explain_failure(source, "tests/t.py::test_convert", evidence, repo_modules={"pkg"})
    lines = found.reproduction.splitlines()
    assert "_ = grandchild.add('x')" in lines and "_ = child.add('e')" in lines, found.reproduction


def test_a_fixture_yielding_inside_a_with_is_entered_before_the_test():
    """starlette: `with test_client_factory(app) as client: yield client` stayed a fixture
    definition, and the snippet called `client.get` on a function."""
    source = (
        "import pytest\nfrom pkg import App, Client\n\n\n@pytest.fixture\ndef client():\n    app = App()\n"
        "    with Client(app) as client:\n        yield client\n    app.close()\n\n\n"
        "def test_get(client):\n    assert client.get('/') == 200\n"
    )
    evidence = {"type": "AssertionError", "line": 14, "compare": {"op": "==", "left": "404", "right": "200"}}
    found = explain_failure(source, "tests/t.py::test_get", evidence, repo_modules={"pkg"})
    assert found.reproduction.splitlines() == [
        "from pkg import App, Client",
        "app = App()",
        "client = Client(app).__enter__()",
        "assert client.get('/') == 200",
    ]
    assert found.unbound == []


def test_hasattr_of_self_for_an_attribute_the_class_has_is_true_in_the_snippet():
    """traitlets' shared test base asks `if hasattr(self, '_good_values'):`; the class's attribute
    is a plain name in the snippet, and `self` was left unbound, so no case of the test was shown."""
    source = (
        "from pkg import Trait\n\n\nclass Base:\n    def test_good(self):\n"
        "        if hasattr(self, '_good_values'):\n            for value in self._good_values:\n"
        "                assert Trait(value).ok\n\n\nclass TestSet(Base):\n    _good_values = ['ab']\n"
    )
    report = {"type": "AssertionError", "line": 8, "message": "assert False"}
    found = explain_failure(source, "tests/t.py::TestSet::test_good", report, repo_modules={"pkg"})
    assert found.unbound == [] and "hasattr" not in found.reproduction, found.reproduction
    assert "_good_values = ['ab']" in found.reproduction.splitlines()
    # each `hasattr` of an `and` now `True`: the condition is what is left (`if True and True and ...`)
    both = source.replace(
        "if hasattr(self, '_good_values'):", "if hasattr(self, '_good_values') and 'ab' in self._good_values:"
    )
    found = explain_failure(both, "tests/t.py::TestSet::test_good", report, repo_modules={"pkg"})
    assert "if 'ab' in _good_values:" in found.reproduction and "True" not in found.reproduction, found.reproduction


def test_a_failure_inside_a_try_finally_is_a_snippet_without_the_try():
    """yapf: `try: SetGlobalStyle(...) ... finally: SetGlobalStyle(default)` was cut at the failing
    line into a `try:` with no `except` or `finally`, a SyntaxError, and no case was shown."""
    source = (
        "from pkg import style\n\n\ndef test_it():\n    try:\n        style.Set('a')\n"
        "        assert style.get() == 1\n    finally:\n        style.Set('b')\n"
    )
    report = {"type": "AssertionError", "line": 7, "compare": {"op": "==", "left": "2", "right": "1"}}
    found = explain_failure(source, "tests/t.py::test_it", report, repo_modules={"pkg"})
    assert found.reproduction.splitlines() == ["from pkg import style", "style.Set('a')", "assert style.get() == 1"]
    caught = source.replace("    finally:\n        style.Set('b')\n", "    except KeyError:\n        pass\n")
    found = explain_failure(caught, "tests/t.py::test_it", report, repo_modules={"pkg"})
    assert "try:" in found.reproduction and "except KeyError:" in found.reproduction  # a handler keeps it whole


def test_a_method_a_helper_assigns_to_a_local_of_its_own_name_gets_another_name():
    """autoflake: `effective_path = self.effective_path(path)` became `effective_path =
    effective_path(path)`, an UnboundLocalError on both states, and the only block was dropped."""
    source = (
        "import os\nfrom pkg import merge\n\n\nclass T:\n    def effective_path(self, path):\n"
        "        return os.path.join('/tmp', path)\n\n    def create_file(self, path):\n"
        "        effective_path = self.effective_path(path)\n        open(effective_path, 'w').close()\n\n"
        "    def test_merge(self):\n        self.create_file('a.py')\n"
        "        assert merge([self.effective_path('a.py')]) is True\n"
    )
    report = {"type": "AssertionError", "line": 15, "compare": {"op": "is", "left": "False", "right": "True"}}
    found = explain_failure(source, "tests/t.py::T::test_merge", report, repo_modules={"pkg"})
    lines = found.reproduction.splitlines()
    assert "    effective_path = effective_path_(path)" in lines and "def effective_path_(path):" in lines
    assert lines[-1] == "assert merge([effective_path_('a.py')]) is True"
    assert found.unbound == []


def test_a_base_class_named_through_its_module_lends_its_helper_methods():
    """yapf: `class BasicReformatterTest(yapf_test_helper.YAPFTest)` after `from yapftests import
    yapf_test_helper`; `self.assertCodeEqual` stayed unbound, and no case of the tests was shown."""
    from tasks.evidence.python import imported_bases

    helper = (
        "import unittest\n\n\nclass YAPFTest(unittest.TestCase):\n    def assertCodeEqual(self, expected, code):\n"
        "        if code != expected:\n            self.fail('Code format mismatch')\n"
    )
    source = (
        "from yapf import reformatter\nfrom yapftests import yapf_test_helper\n\n\n"
        "class T(yapf_test_helper.YAPFTest):\n    def test_split(self):\n"
        "        self.assertCodeEqual('a = 1\\n', reformatter.Reformat('a=1'))\n"
    )
    test_id = "yapftests/t_test.py::T::test_split"
    assert imported_bases(source, "yapftests/t_test.py") == ["yapftests.yapf_test_helper"]
    report = {"type": "AssertionError", "line": 7, "message": "Code format mismatch"}
    found = explain_failure(
        source, test_id, report, repo_modules={"yapf", "yapftests"}, base_sources={"yapftests.yapf_test_helper": helper}
    )
    assert found.unbound == [] and "def assertCodeEqual(expected, code):" in found.reproduction.splitlines()
    assert found.reproduction.endswith("assertCodeEqual('a = 1\\n', reformatter.Reformat('a=1'))")


def test_a_local_the_test_binds_to_a_written_value_is_the_side_the_check_wants():
    """autoflake: `assert text == out.getvalue()` with `text = '...'` was read the wrong way round:
    the statement said the text "gives" itself and "should be" the buggy output."""
    source = (
        "import io\nfrom pkg import run\n\n\ndef test_skip():\n    text = '# skip\\nimport re\\n'\n"
        "    out = io.StringIO()\n    run(text, out)\n    assert text == out.getvalue()\n"
    )
    report = {
        "type": "AssertionError",
        "line": 9,
        "compare": {"op": "==", "left": "'# skip\\nimport re\\n'", "right": "''"},
    }
    found = explain_failure(source, "tests/t.py::test_skip", report, repo_modules={"pkg"})
    assert (found.call, found.observed, found.checked_side) == ("out.getvalue()", "''", "right")
    assert found.expected == "'# skip\\nimport re\\n'"
    # a list the test changes in place is no written value: its side is the computed one
    sorted_in_place = "from pkg import order\n\n\ndef test_order():\n    items = [3, 1]\n" + (
        "    order(items)\n    assert [1, 3] == items\n"
    )
    report = {"type": "AssertionError", "line": 7, "compare": {"op": "==", "left": "[1, 3]", "right": "[3, 1]"}}
    found = explain_failure(sorted_in_place, "tests/t.py::test_order", report, repo_modules={"pkg"})
    assert (found.call, found.expected) == ("items", "[1, 3]")


def test_checks_after_the_failing_line_that_read_capsys_read_what_the_snippet_printed():
    """isort: after `main.main([...])` raised, the test reads `capsys.readouterr()` and wants the
    input echoed; `capsys` stayed unbound in those checks, so they were never stated."""
    source = (
        "from pkg import main\n\n\ndef test_skip(capsys):\n    main(['-', '--skip'])\n"
        "    out, error = capsys.readouterr()\n    assert out == 'b'\n    assert not error\n"
    )
    report = {"type": "FileSkipped", "line": 5, "message": "x.py was skipped"}
    found = explain_failure(source, "tests/t.py::test_skip", report, repo_modules={"pkg"})
    assert found.reproduction.endswith(
        "with contextlib.redirect_stdout(captured_out), contextlib.redirect_stderr(captured_err):\n"
        "    main(['-', '--skip'])"
    )
    assert found.rest.splitlines() == [
        "out, error = (captured_out.getvalue(), captured_err.getvalue())",
        "assert out == 'b'",
        "assert not error",
    ]


def test_a_test_method_another_test_calls_is_a_helper_without_a_test_name():
    """traitlets: `test_allow_none` calls `self.test_good_values()`; `self` stayed unbound and
    four failing tests were only counted."""
    source = (
        "from pkg import Trait\n\n\nclass Base:\n    def test_good(self):\n        for v in self._good:\n"
        "            Trait(v)\n\n    def test_none(self):\n        Trait.allow_none = True\n"
        "        self.test_good()\n\n\n"
        "class TestInt(Base):\n    _good = [10, 10.0]\n"
    )
    report = {"type": "TraitError", "line": 11, "message": "expected an int, not the float 10.0"}
    found = explain_failure(source, "tests/t.py::TestInt::test_none", report, repo_modules={"pkg"})
    assert found.unbound == [] and "test_good" not in found.reproduction, found.reproduction
    assert "def check_good():" in found.reproduction and found.reproduction.endswith("check_good()")


def test_a_raise_under_an_if_is_the_check_of_its_condition():
    source = (
        "import io\nfrom pkg import Flo\n\n\ndef test_base():\n    flo = Flo()\n"
        "    if not isinstance(flo, io.IOBase):\n        raise AssertionError('not an IOBase')\n"
    )
    evidence = {"type": "AssertionError", "line": 8, "message": "not an IOBase"}
    found = explain_failure(source, "tests/t.py::test_base", evidence, repo_modules={"pkg"})
    assert (found.kind, found.call, found.observed, found.expected) == (
        "truthy",
        "isinstance(flo, io.IOBase)",
        "False",
        "true",
    )


def test_a_name_the_module_binds_twice_comes_with_every_binding_in_order():
    """attrs' generated filenames: `C`, `Copy = C`, then another `C`; the snippet had only the
    first `C`, so `Copy` and `C` were one class and the later checks read the wrong one."""
    source = (
        "from pkg import make\n\n\n@make\nclass C:\n    pass\n\n\nCopy = C\n\n\n@make\nclass C:\n    a = 1\n\n\n"
        "def test_names():\n    assert Copy.name == 'C'\n    assert C.name == 'C-1'\n"
    )
    evidence = {"type": "AssertionError", "line": 18, "compare": {"op": "==", "left": "'C-2'", "right": "'C'"}}
    found = explain_failure(source, "tests/t.py::test_names", evidence, repo_modules={"pkg"})
    code = found.reproduction
    assert code.index("    pass") < code.index("Copy = C") < code.index("    a = 1") < code.index("assert Copy.name")
    assert found.rest == "assert C.name == 'C-1'" and found.unbound == []


def test_the_test_modules_path_binds_file_and_a_helpers_project_call_is_the_function():
    """boltons' reverse_iter_lines: the helper reads a data file beside the test module
    (`__file__`), and the project callable is the one the test's helper calls."""
    source = (
        "import os\nfrom pkg import reverse_lines\n\nHERE = os.path.dirname(os.path.abspath(__file__))\n\n\n"
        "def _check(path):\n    with open(path) as fo:\n        lines = list(reverse_lines(fo))\n"
        "    assert lines\n\n\ndef test_reverse():\n    _check(HERE + '/data.txt')\n"
    )
    evidence = {"type": "TypeError", "line": 14, "message": "can't concat str to bytes"}
    found = explain_failure(source, "tests/test_r.py::test_reverse", evidence, repo_modules={"pkg"})
    lines = found.reproduction.splitlines()
    assert lines.count("import os") == 1  # the test's own import serves the path too
    assert lines.index("__file__ = os.path.abspath('tests/test_r.py')") < lines.index(
        "HERE = os.path.dirname(os.path.abspath(__file__))"
    )
    assert found.function == "reverse_lines"


def test_an_import_the_fixtures_and_the_module_both_need_is_written_once():
    source = (
        "import time\nimport pytest\nfrom pkg import bar\n\n\ndef test_bar(monkeypatch):\n"
        "    monkeypatch.setattr(time, 'time', lambda: 0)\n    assert bar() == 'x'\n"
    )
    evidence = {"type": "AssertionError", "line": 8, "compare": {"op": "==", "left": "''", "right": "'x'"}}
    found = explain_failure(source, "tests/t.py::test_bar", evidence, repo_modules={"pkg"})
    assert found.reproduction.splitlines().count("import pytest") == 1 and "monkeypatch = " in found.reproduction


def test_a_return_ends_what_the_test_requires_after_a_raising_line():
    """boltons' wraps: the rest of a test after a raising line was quoted as ```return```."""
    source = (
        "import sys\nfrom pkg import wraps\n\n\ndef test_kwonly():\n    assert wraps(f)(3) == 30\n"
        "    if sys.version_info < (3,):\n        pass\n    return\n    assert wraps(g)(1) == 1\n"
    )
    evidence = {"type": "TypeError", "line": 6, "message": "f() takes 1 positional argument but 2 were given"}
    found = explain_failure(source, "tests/t.py::test_kwonly", evidence, repo_modules={"pkg"})
    assert "return" not in (found.rest or "") and "wraps(g)" not in (found.rest or "")


def test_a_pickle_stream_naming_the_test_module_unpickles_the_snippets_class(tmp_path):
    """attrs: the test builds a pickle stream from `a.__module__` (`tests.test_slots`); run as a
    script the snippet's class was `__main__.A`, the stream did not load on either state and the
    block was dropped. The snippet is that module, and pickle finds it under that name."""
    import subprocess
    import sys

    source = (
        "import pickle\n\n\nclass A:\n    def __init__(self, x):\n        self.x = x\n\n"
        "    def __eq__(self, other):\n        return type(other) is A and other.x == self.x\n\n\n"
        "def test_old_stream():\n    a = A(1)\n"
        "    stream = b'ccopy_reg\\n_reconstructor\\n(c' + a.__module__.encode() + "
        "b'\\nA\\nc__builtin__\\nobject\\nNtR(dVx\\nI1\\nsb.'\n"
        "    assert pickle.loads(stream) != a\n"
    )
    evidence = {"type": "AssertionError", "line": 15, "compare": {"op": "!=", "left": "<A>", "right": "<A>"}}
    found = explain_failure(source, "tests/test_slots.py::test_old_stream", evidence)
    lines = found.reproduction.splitlines()
    assert "__name__ = 'tests.test_slots'" in lines and "import sys" in lines, lines
    assert "sys.modules[__name__] = sys.modules['__main__']" in lines and found.unbound == []
    (tmp_path / "tests").mkdir()  # run as a user runs it, from the repository's root: the snippet is __main__
    script = tmp_path / "reproduction.py"
    script.write_text(
        found.reproduction.replace("assert pickle.loads(stream) != a", "assert pickle.loads(stream) == a")
    )
    subprocess.run([sys.executable, str(script)], check=True, cwd=tmp_path, timeout=60)


def test_values_naming_the_test_module_make_the_snippet_that_module():
    """attrs' generated filenames name the defining module (`tests.test_d.C`): run as a script
    the snippet's classes were `__main__.C`, so the check could not behave as stated."""
    source = "from pkg import make\n\n\n@make\nclass C:\n    pass\n\n\ndef test_names():\n    assert C.name == 'x'\n"
    evidence = {
        "type": "AssertionError",
        "line": 10,
        "compare": {"op": "==", "left": "'<made tests.test_d.C-1>'", "right": "'<made tests.test_d.C>'"},
    }
    found = explain_failure(source, "tests/test_d.py::test_names", evidence, repo_modules={"pkg"})
    assert found.reproduction.splitlines()[:2] == ["from pkg import make", "__name__ = 'tests.test_d'"]
    plain = {**evidence, "compare": {"op": "==", "left": "'<made C-1>'", "right": "'<made C>'"}}
    assert "__name__" not in explain_failure(source, "tests/test_d.py::test_names", plain).reproduction
    # attrs: only pytest's explanation of a value names the module (`+  where ... <class
    # 'tests.test_d.C'>`); the statement quotes none of it, and the line named the hidden test file
    explained = {
        "type": "AssertionError",
        "line": 10,
        "message": "assert 'y' == 'x'\n +  where 'y' = <class 'tests.test_d.C'>.name",
    }
    assert "__name__" not in explain_failure(source, "tests/test_d.py::test_names", explained).reproduction


HELPERS = (
    "from pkg import Attribute\nfrom pkg._impl import NOTHING\n\n\n"
    'def simple_attr(name, default=NOTHING):\n    """A bare attribute."""\n'
    "    return Attribute(name=name, default=default, alias=name)\n\n\n"
    "def big_helper():\n" + "".join(f"    x{i} = {i}\n" for i in range(40)) + "    return x0\n"
)
HELPER_TEST = (
    "from pkg._impl import Attribute, make\n\nfrom tests.utils import big_helper, simple_attr\n"
    "from tests import utils\n\n\n"
    "def test_make():\n    assert (simple_attr('x'),) == make('x')\n\n\n"
    "def test_module():\n    assert utils.simple_attr('y') == make('y')\n\n\n"
    "def test_big():\n    assert big_helper() == make('z')\n"
)


@pytest.mark.parametrize("test", ["test_make", "test_module"])
def test_a_small_helper_of_the_tests_package_is_written_into_the_snippet(test):
    """The solver has no tests: a snippet never imports them; a small self-contained helper is
    written in (its imports too, an import of the same name the test module has written once)."""
    evidence = {"type": "AssertionError", "line": 8 if test == "test_make" else 12, "message": "assert False"}
    found = explain_failure(
        HELPER_TEST,
        f"tests/test_t.py::{test}",
        evidence,
        repo_modules={"pkg"},
        test_helpers={"tests.utils": HELPERS},
    )
    code = found.reproduction
    assert "tests" not in code and "utils." not in code and not found.unbound
    assert "def simple_attr(name, default=NOTHING):" in code and "A bare attribute" not in code
    # each name imported once, one statement per module (the helper's and the test's imports merged)
    imported = [a.name for n in ast.parse(code).body if isinstance(n, ast.ImportFrom) for a in n.names]
    assert sorted(imported) == ["Attribute", "NOTHING", "make"], code
    assert code.splitlines()[0] == "from pkg._impl import make, Attribute, NOTHING"
    assert code.splitlines()[-1] in ("assert (simple_attr('x'),) == make('x')", "assert simple_attr('y') == make('y')")


def test_a_long_helper_of_the_tests_package_stays_an_import():
    found = explain_failure(
        HELPER_TEST,
        "tests/test_t.py::test_big",
        {"type": "AssertionError", "line": 16, "message": "assert False"},
        repo_modules={"pkg"},
        test_helpers={"tests.utils": HELPERS},
    )
    assert "from tests.utils import big_helper" in found.reproduction and "def big_helper" not in found.reproduction


def test_the_test_package_imports_are_the_modules_outside_the_project():
    source = "import os\nfrom pkg import f\nfrom tests.utils import h\nfrom . import helpers\nfrom .conf import c\n"
    found = own_test_modules(source, "tests/test_t.py", {"pkg"})
    assert {"tests.utils", "tests.helpers", "tests.conf"} <= set(found) and not any(m.startswith("pkg") for m in found)


@pytest.mark.parametrize("line", [8, 6])  # the decorator's line (Python 3.11), the nested function's line
def test_a_decorated_class_fails_at_its_decorator_or_in_the_function_it_hands_over(line):
    source = (
        "from pkg import define\n\n\ndef test_hook():\n    seen = []\n"
        "    def hook(cls, fields):\n        seen[:] = [f.is_default for f in fields]\n"
        "    @define(transformer=hook)\n    class C:\n        x: int\n\n    assert seen == [True]\n"
    )
    evidence = {"type": "AttributeError", "line": line, "message": "'Field' object has no attribute 'is_default'"}
    found = explain_failure(source, "tests/t.py::test_hook", evidence, repo_modules={"pkg"})
    assert found.kind == "error" and found.reproduction.splitlines()[-3:] == [
        "@define(transformer=hook)",
        "class C:",
        "    x: int",
    ]
    assert found.rest == "assert seen == [True]"


def test_a_stored_case_without_its_index_is_found_by_its_id_or_by_the_class_a_call_makes():
    """Evidence derived again from a stored report has no parametrize index: the id's
    `annot1` names the element, and `make_class("Too", ...)` is the reported `<class 't.Too'>`."""
    source = (
        "import typing\nimport pytest\nfrom pkg import is_var, make_class\n\n\n"
        "@pytest.mark.parametrize('annot', ['x', typing.ForwardRef('V[str]')])\n"
        "def test_var(annot):\n    assert is_var(annot)\n\n\n"
        "@pytest.mark.parametrize('cls', [int, make_class('Too', ['x'])])\n"
        "def test_make(cls):\n    assert is_var(cls)\n"
    )
    stored = {"type": "AssertionError", "line": 8, "params": {"annot": "ForwardRef('V[str]')"}}
    found = explain_failure(source, "tests/t.py::test_var[annot1]", stored, repo_modules={"pkg"})
    assert "import typing" in found.reproduction and not found.unbound
    assert found.reproduction.splitlines()[-1] == "assert is_var(typing.ForwardRef('V[str]'))"
    made = {"type": "AssertionError", "line": 13, "params": {"cls": "<class 'tests.t.Too'>"}}
    found = explain_failure(source, "tests/t.py::test_make[Too]", made, repo_modules={"pkg"})
    assert "make_class('Too', ['x'])" in found.reproduction and not found.unbound


def test_a_stored_case_is_found_by_the_id_the_test_gives_it():
    source = (
        "import pytest\nfrom pkg import Option\n\n\n"
        "@pytest.mark.parametrize(('option', 'want'), [\n"
        "    pytest.param(Option(type=int), False, id='int [x]'),\n"
        "    pytest.param(Option(default=True), False, id='flag [True]'),\n])\n"
        "def test_flag(option, want):\n    assert option.is_flag is want\n"
    )
    stored = {"type": "AssertionError", "line": 10, "params": {"option": "<Option a>", "want": "False"}}
    found = explain_failure(source, "tests/t.py::test_flag[flag [True]]", stored, repo_modules={"pkg"})
    assert found.reproduction.splitlines()[-1] == "assert Option(default=True).is_flag is False"


def test_a_check_of_a_caught_exceptions_message_carries_the_call_that_raised_it():
    """attrs' `pytest.raises(...) as e` then `e.value.args`, and unittest's `assertRaises(...) as
    cm` then `str(cm.exception)`: the evidence names the exception and the raising call, and the
    unittest block becomes plain pytest (`cm.value`) so the snippet runs without a TestCase."""
    source = (
        "import unittest\nimport pytest\nfrom pkg import parse\n\n\n"
        "class T(unittest.TestCase):\n    def test_msg(self):\n        with self.assertRaises(ValueError) as cm:\n"
        "            parse('x y')\n        self.assertEqual(str(cm.exception), 'bad input: x y')\n\n\n"
        "def test_args():\n    with pytest.raises(ValueError) as e:\n        parse('a', strict=True)\n"
        "    assert e.value.args == ('bad a',)\n"
    )
    report = {"type": "AssertionError", "line": 10, "message": "'bad' != 'bad input: x y'", "locals": {}}
    found = explain_failure(source, "tests/test_t.py::T::test_msg", report, repo_modules={"pkg"})
    assert (found.raised, found.raised_by, found.call) == ("ValueError", "parse('x y')", "str(cm.value)")
    assert found.reproduction.splitlines()[-3:] == [
        "with pytest.raises(ValueError) as cm:",
        "    parse('x y')",
        "assert str(cm.value) == 'bad input: x y'",
    ]
    assert found.unbound == [] and "import pytest" in found.reproduction
    compared = {"op": "==", "left": "('bad',)", "right": "('bad a',)"}
    report = {"type": "AssertionError", "line": 16, "message": "assert", "compare": compared, "locals": {}}
    found = explain_failure(source, "tests/test_t.py::test_args", report, repo_modules={"pkg"})
    assert (found.raised, found.raised_by, found.expected) == ("ValueError", "parse('a', strict=True)", "('bad a',)")
    assigned = source.replace("        parse('a', strict=True)", "        result = parse('a', strict=True)")
    found = explain_failure(assigned, "tests/test_t.py::test_args", report, repo_modules={"pkg"})
    assert found.raised_by == "parse('a', strict=True)"
    plain = source.replace("e.value.args == ('bad a',)", "parse('b') == 1")
    found = explain_failure(plain, "tests/test_t.py::test_args", report, repo_modules={"pkg"})
    assert found.raised is None and found.raised_by is None  # a later check of another call


def test_the_rest_after_a_unittest_raises_block_that_failed_reads_the_caught_exception_plainly():
    """typed-argument-parser d08ff5a1: `with self.assertRaises(ValueError) as context:` did not
    raise; the checks after it read `context.exception`. The block became `pytest.raises`, and
    the rest kept `.exception`, which pytest's `ExceptionInfo` lacks: the reproduction check
    dropped it, and the statement never said the message must name `TapIgnore`."""
    source = (
        "import unittest\nfrom pkg import Args\n\n\n"
        "class T(unittest.TestCase):\n    def test_conflict(self):\n"
        "        with self.assertRaises(ValueError) as context:\n            Args()\n"
        "        self.assertIn('TapIgnore', str(context.exception))\n"
    )
    report = {"type": "AssertionError", "line": 7, "message": "ValueError not raised", "locals": {}}
    found = explain_failure(source, "tests/test_t.py::T::test_conflict", report, repo_modules={"pkg"})
    assert found.rest == "assert 'TapIgnore' in str(context.value)", found.rest


def test_a_failing_tests_own_description_is_read_from_its_function():
    """`function_lines` gives the test function from its `def` (a decorator, a neighbour left
    out), so `test_intent` reads its docstring's first paragraph."""
    from tasks.evidence.python import test_intent
    from tasks.statement import function_lines

    source = (
        "import pytest\n\n\ndef test_a():\n    '''Not this one.'''\n\n\n@pytest.mark.parametrize('x', [1])\n"
        "def test_b(x):\n    '''\n    Loads old data.\n\n    Details.\n    '''\n    assert x\n"
    )
    assert function_lines(source, "test_b")[0] == "def test_b(x):"
    assert test_intent(function_lines(source, "test_b")) == "Loads old data."
    assert function_lines(source, "test_c") == []


def test_a_test_without_a_docstring_describes_itself_by_the_comment_its_body_opens_with():
    """filelock: "An NFS peer that unlinks its own claim ... is a vanished claim, not an unreadable
    one" opened the test's body; a label (`# arrange`), a reference or a later comment is none."""
    from tasks.evidence.python import test_intent

    lines = [
        "def test_stale(",
        "    tmp_path: Path,",
        ") -> None:",
        "    # A stale handle that outlives revalidation",
        "    # is a vanished claim, not an unreadable one.",
        "    lock = Lock(tmp_path)",
    ]
    assert test_intent(lines) == "A stale handle that outlives revalidation is a vanished claim, not an unreadable one."
    assert test_intent(["def test_a(x):", "    # arrange", "    x = 1"]) == ""
    assert test_intent(["def test_a(x):", "    # Regression test for #1304, seen on Windows only", "    x = 1"]) == ""
    assert (
        test_intent(["def test_a(x):", "    x = 1", "    # a later comment says nothing of the test as a whole"]) == ""
    )


def test_a_message_check_in_an_except_block_carries_the_call_that_raised_it():
    """`try: parse(x)` / `except E as e: assert e.args[0] == 'msg'`: the check reads the
    exception that call raised, as after `pytest.raises(E) as e`; the prose states the call."""
    from llm.offline.writer import write_statement

    source = (
        "from pkg import parse, ParseError\n\n\n"
        "def test_msg():\n    try:\n        parse('x y')\n    except ParseError as e:\n"
        "        assert e.args[0] == 'bad input: x y'\n"
    )
    compared = {"op": "==", "left": "'bad'", "right": "'bad input: x y'"}
    report = {"type": "AssertionError", "line": 8, "message": "assert", "compare": compared, "locals": {}}
    found = explain_failure(source, "tests/test_t.py::test_msg", report, repo_modules={"pkg"})
    assert (found.raised, found.raised_by, found.call) == ("ParseError", "parse('x y')", "e.args[0]")
    context = {
        "task": "write_statement",
        "strategy_type": "BUG_FIX",
        "repo": "acme/pkg",
        "commit_subject": "Fix parse messages",
        "failing_tests": [{"id": found.test_id, "assertion": ""}],
        "failures": [found.to_dict()],
    }
    text = write_statement(context, "Write a bug report.")["problem_statement"]
    assert "it should raise `ParseError` with the message `'bad input: x y'`" in text
    assert "`e.args[0]`" not in text


def test_a_parametrized_value_reported_as_a_standard_library_repr_is_imported():
    """pytest reports a `pathlib` value as `PosixPath('a.toml')`: the snippet imports the class
    (the test module never needed to), so it names nothing unbound."""
    source = (
        "import pytest\nfrom pkg import loads\nfrom tests.paths import FILES\n\n\n"
        "@pytest.mark.parametrize('path', FILES)\ndef test_invalid(path):\n"
        "    with pytest.raises(ValueError):\n        loads(path.read_text())\n"
    )
    report = {
        "type": "Failed",
        "line": 8,
        "message": "DID NOT RAISE <class 'ValueError'>",
        "params": {"path": "PosixPath('tests/data/a.toml')"},
        "locals": {},
    }
    found = explain_failure(source, "tests/test_t.py::test_invalid[a]", report, repo_modules={"pkg"})
    assert found.unbound == [] and "from pathlib import PosixPath" in found.reproduction
    assert "loads(PosixPath('tests/data/a.toml').read_text())" in found.reproduction


def test_a_testcase_check_in_a_function_the_test_defines_becomes_a_plain_assert():
    """A generator the test feeds the code under test checks with `self.assertLessEqual`: the
    snippet has no `self`, so that check is a plain assert and nothing is left unbound."""
    source = (
        "import unittest\nfrom pkg import g\n\n\nclass T(unittest.TestCase):\n    def test_it(self):\n"
        "        def gen():\n            for i in range(3):\n                self.assertLessEqual(i, 5)\n"
        "                yield i\n        for n in range(2):\n            self.assertEqual(g(gen()), [0, 1, 2])\n"
    )
    report = {"type": "AssertionError", "line": 12, "message": "[0] != [0, 1, 2]", "locals": {}}
    found = explain_failure(source, "tests/test_t.py::T::test_it", report, repo_modules={"pkg"})
    assert found.unbound == [] and "        assert i <= 5" in found.reproduction
    assert found.reproduction.splitlines()[-1] == "    assert g(gen()) == [0, 1, 2]"


def test_a_test_arguments_default_value_is_bound_in_the_reproduction():
    """pytest passes no fixture for an argument with a default: the test runs with the default,
    so the snippet binds it (else the argument is unbound and no snippet is shown)."""
    source = (
        "import pkg.keys\n\n\nclass T:\n    def test_key(self, key=pkg.keys.hashkey):\n"
        "        for k in [key(), key('a')]:\n            assert len(k.__dict__) == 0\n"
    )
    evidence = {"type": "AssertionError", "line": 7, "locals": {"k": "()"}, "message": "assert 1 == 0"}
    found = explain_failure(source, "tests/t.py::T::test_key", evidence, repo_modules={"pkg"})
    assert found.unbound == []
    assert found.reproduction.splitlines()[:2] == ["import pkg.keys", "key = pkg.keys.hashkey"]


def test_a_name_from_a_star_import_of_the_project_is_imported_by_itself():
    """`from ..mod import *` binds names the test module never spells: the snippet imports each
    name it reads from the module that exports it (its literal `__all__`, else its public names)."""
    source = "import pytest\n\nfrom .._mod import *\n\n\ndef test_norm():\n    assert norm([1, 1]) == [1]\n"
    exported = star_exports(
        source,
        "pkg/tests/test_mod.py",
        {"pkg"},
        lambda path: (
            "from ._util import Error\n__all__ = ['norm']\ndef norm(x):\n    return x\n"
            if path == "pkg/_mod.py"
            else ""
        ),
    )
    assert exported == {"norm": "pkg._mod"}
    evidence = {"type": "AssertionError", "line": 7, "message": "assert [1, 1] == [1]"}
    found = explain_failure(source, "pkg/tests/test_mod.py::test_norm", evidence, {"pkg"}, star_names=exported)
    assert found.unbound == []
    assert found.reproduction.splitlines()[0] == "from pkg._mod import norm"
    without_all = star_exports(source, "pkg/tests/test_mod.py", {"pkg"}, lambda p: "from ._u import E\ndef f(): ...\n")
    assert without_all == {"E": "pkg._mod", "f": "pkg._mod"}


def test_a_name_from_a_star_import_of_the_standard_library_is_imported_by_itself():
    """dataclasses-json's tests open with `from typing import *`: `Union` in a copied class was
    unbound, the snippet raised NameError on both states and was dropped."""
    source = (
        "from typing import *\nfrom dataclasses import dataclass\n\n\n@dataclass\nclass C:\n"
        "    event: Union[int, str]\n\n\ndef test_c():\n    assert C(1).event == 2\n"
    )
    exported = star_exports(source, "tests/test_union.py", {"pkg"}, lambda path: "")
    assert exported["Union"] == "typing" and "Optional" in exported and "_SpecialForm" not in exported
    evidence = {"type": "AssertionError", "line": 11, "message": "assert 1 == 2"}
    found = explain_failure(source, "tests/test_union.py::test_c", evidence, {"pkg"}, star_names=exported)
    assert found.unbound == []
    assert "from typing import Union" in found.reproduction.splitlines()
    assert "import *" not in found.reproduction


def test_a_mixins_helper_reads_the_attribute_its_test_class_sets():
    """A test written once in a mixin and run by each subclass: `self.make(...)` is the mixin's
    helper, which calls the subclass's `MAKE` (a staticmethod): both are written in."""
    source = (
        "import pkg\n\n\nclass Mixin:\n    def make(self, n):\n        return self.MAKE(n)\n\n"
        "    def test_make(self):\n        assert self.make(1) == 2\n\n\n"
        "class TestA(Mixin):\n    MAKE = staticmethod(pkg.make_a)\n"
    )
    evidence = {"type": "AssertionError", "line": 9, "message": "assert 1 == 2"}
    found = explain_failure(source, "tests/t.py::TestA::test_make", evidence, repo_modules={"pkg"})
    assert found.unbound == []
    code = found.reproduction
    assert "MAKE = pkg.make_a" in code and "def make(n):" in code and code.endswith("assert make(1) == 2")


def test_a_classmethod_helper_reads_its_class_attributes_through_cls():
    """wcmatch's tests check each case with a classmethod `evaluate(cls, case)` that reads
    `cls.flags`: `cls` was left unbound, no block was shown, and two statements were rated
    unusable ("Comparison between objects yielded False" and nothing else)."""
    source = (
        "import pytest\nimport pkg\n\n\nclass TestGlob:\n    flags = pkg.F\n\n    @classmethod\n"
        "    def evaluate(cls, case):\n        pattern, name, goal = case\n"
        "        assert pkg.match(name, pattern, flags=cls.flags) == goal, 'Comparison yielded False.'\n\n"
        "    @pytest.mark.parametrize('case', [('a*', 'ab', True)])\n"
        "    def test_match(self, case):\n        self.evaluate(case)\n"
    )
    evidence = {"type": "AssertionError", "line": 15, "message": "Comparison yielded False.\nassert False == True"}
    evidence |= {"params": {"case": "('a*', 'ab', True)"}, "indices": {"case": 0}}
    found = explain_failure(source, "tests/t.py::TestGlob::test_match[case0]", evidence, repo_modules={"pkg"})
    assert found.unbound == []
    code = found.reproduction
    assert "cls" not in code and "flags = pkg.F" in code and "flags=flags" in code
    assert code.endswith("evaluate(('a*', 'ab', True))")


def test_a_subtest_in_a_check_helper_becomes_a_plain_loop_of_checks():
    """A unittest table test whose helper wraps each case in `self.subTest`: the runner's
    evidence gives the test's line and the helper's frame; the snippet runs the helper with the
    test's table, the subTest gone (it needs a TestCase)."""
    source = (
        "import unittest\n\nfrom pkg import double\n\n\nclass T(unittest.TestCase):\n"
        "    def check_all(self, cases):\n        for x, want in cases:\n"
        "            with self.subTest(x=x):\n                self.assertEqual(double(x), want)\n\n"
        "    def test_double(self):\n        self.check_all([(1, 2), (3, 6)])\n"
    )
    evidence = {"type": "AssertionError", "message": "7 != 6", "line": 13, "frames": [[10, "check_all"]]}
    found = explain_failure(source, "tests/t.py::T::test_double", evidence, repo_modules={"pkg"})
    assert found.unbound == []
    code = found.reproduction
    assert "subTest" not in code and "self" not in code
    assert "assert double(x) == want" in code and code.endswith("check_all([(1, 2), (3, 6)])")


def test_a_loop_whose_checks_passed_and_whose_result_is_replaced_is_left_out():
    """click: `for args in [...]: result = runner.invoke(cli, args)` stayed in the snippet once its
    passing checks were dropped, though the next line replaced `result`: noise before the failing
    call. A loop whose value a later line reads stays."""
    source = (
        "from pkg import run\n\n\ndef test_order():\n"
        "    for args in [['-a'], ['-b']]:\n        result = run(args)\n        assert result.ok\n"
        "    result = run(['-c'])\n    assert result.ok\n"
    )
    evidence = {"type": "AssertionError", "line": 9, "message": "assert False"}
    code = explain_failure(source, "tests/t.py::test_order", evidence, repo_modules={"pkg"}).reproduction
    assert "for args" not in code and code.endswith("result = run(['-c'])\nassert result.ok")
    read = source.replace("    result = run(['-c'])\n", "    result = run(['-c'] + args)\n")
    code = explain_failure(read, "tests/t.py::test_order", evidence, repo_modules={"pkg"}).reproduction
    assert "for args in [['-a'], ['-b']]:" in code


def test_a_class_fixture_that_sets_an_attribute_on_the_test_class_binds_it():
    """arrow's locale tests read `self.locale`, which a class-scoped fixture named in
    `@pytest.mark.usefixtures` sets from the class's name (`request.cls.locale = ...`): `self`
    was unbound, no example was shown, and the judges rejected 8 of 10 tasks."""
    conftest = (
        "import pytest\nfrom arrow import locales\n\n\n@pytest.fixture(scope='class')\ndef lang_locale(request):\n"
        "    name = request.cls.__name__[4:]\n    if name == 'Locale':\n"
        "        request.cls.locale = locales.get_locale_by_class_name('EnglishLocale')\n"
        "    else:\n        request.cls.locale = locales.get_locale_by_class_name(name)\n"
    )
    source = (
        "import pytest\n\n\n@pytest.mark.usefixtures('lang_locale')\nclass TestSwedishLocale:\n"
        "    def test_plurals(self):\n        assert self.locale._format_timeframe('seconds', 30) == '30 sekunder'\n"
    )
    evidence = {"type": "AssertionError", "line": 7, "compare": {"op": "==", "left": "'30'", "right": "'30 sekunder'"}}
    test_id = "tests/test_locales.py::TestSwedishLocale::test_plurals"
    found = explain_failure(source, test_id, evidence, conftests=[conftest], repo_modules={"arrow"})
    assert found.unbound == []
    assert found.reproduction.splitlines() == [
        "from arrow import locales",
        "locale = locales.get_locale_by_class_name('SwedishLocale')",
        "assert locale._format_timeframe('seconds', 30) == '30 sekunder'",
    ]
    # a fixture that reads the request for more than its class is no line of the snippet
    other = conftest.replace("name = request.cls.__name__[4:]", "name = request.param")
    found = explain_failure(source, test_id, evidence, conftests=[other], repo_modules={"arrow"})
    assert found.unbound == ["self"]


def test_a_class_fixtures_attribute_is_kept_only_when_read_and_never_hides_a_module_name():
    """arrow's `time_2013_01_01` sets `request.cls.arrow = arrow.Arrow(2013, 1, 1)`: written as
    `arrow = ...` it replaced the module `arrow` the test reads, and the snippet raised NameError
    on both states and was dropped. The attributes the test never reads are left out."""
    conftest = (
        "import pytest\nimport arrow\nfrom datetime import datetime\n\n\n@pytest.fixture(scope='class')\n"
        "def time_2013_01_01(request):\n    request.cls.now = arrow.Arrow.utcnow()\n"
        "    request.cls.arrow = arrow.Arrow(2013, 1, 1)\n    request.cls.datetime = datetime(2013, 1, 1)\n"
    )
    source = (
        "import pytest\nimport arrow\n\n\n@pytest.mark.usefixtures('time_2013_01_01')\nclass TestHumanize:\n"
        "    def test_empty(self):\n        later = arrow.Arrow(2013, 1, 2)\n"
        "        with pytest.raises(ValueError):\n            self.arrow.humanize(later, granularity=[])\n"
    )
    evidence = {"type": "IndexError", "line": 10, "message": "IndexError: list index out of range"}
    test_id = "tests/test_arrow.py::TestHumanize::test_empty"
    found = explain_failure(source, test_id, evidence, conftests=[conftest], repo_modules={"arrow"})
    assert found.unbound == []
    assert found.reproduction.splitlines() == [
        "import arrow",
        "import pytest",
        "arrow_ = arrow.Arrow(2013, 1, 1)",
        "later = arrow.Arrow(2013, 1, 2)",
        "with pytest.raises(ValueError):",
        "    arrow_.humanize(later, granularity=[])",
    ]
    # the name the fixture's own value reads (`request.cls.factory = factory.ArrowFactory()`)
    conftest = conftest.replace(
        "request.cls.now = arrow.Arrow.utcnow()", "request.cls.factory = factory.ArrowFactory()"
    )
    conftest = conftest.replace("import arrow\n", "import arrow\nfrom arrow import factory\n")
    source = source.replace("self.arrow.humanize(later, granularity=[])", "self.factory.get(later, tzinfo=[])")
    found = explain_failure(source, test_id, evidence, conftests=[conftest], repo_modules={"arrow"})
    assert found.unbound == [] and "factory_ = factory.ArrowFactory()" in found.reproduction


def test_names_imported_only_for_type_checking_are_not_imported_by_the_snippet():
    """python-multipart's tests import `FieldProtocol` under `if TYPE_CHECKING:` and postpone
    their annotations: the snippet imported it, which fails at run time (the name exists only
    for the type checker), and was dropped on both states."""
    source = (
        "from __future__ import annotations\n\nfrom typing import TYPE_CHECKING\nimport unittest\n"
        "from pkg import Parser, File\n\nif TYPE_CHECKING:\n    from pkg import FieldProtocol\n\n\n"
        "class TestParser(unittest.TestCase):\n"
        "    def make(self, boundary: str | bytes) -> None:\n"
        "        self.files: list[File] = []\n\n"
        "        def on_field(f: FieldProtocol) -> None:\n            self.files.append(f)\n\n"
        "        self.f = Parser(on_field, boundary=boundary)\n\n"
        "    def test_bad(self) -> None:\n        self.make('b')\n"
        "        self.assertEqual(self.f.write(b'x'), 0)\n"
    )
    evidence = {"type": "AssertionError", "line": 22, "compare": {"op": "==", "left": "1", "right": "0"}}
    found = explain_failure(source, "tests/test_p.py::TestParser::test_bad", evidence, repo_modules={"pkg"})
    code = found.reproduction
    assert found.unbound == []
    assert "FieldProtocol" not in code and "TYPE_CHECKING" not in code
    assert code.startswith("from __future__ import annotations\n")
    assert "def on_field(f) -> None:" in code and "boundary: str | bytes" in code
    assert "\n    files = []\n" in code  # `self.files: list[File] = []`, the helper's global
    compile(code, "<snippet>", "exec")
    # a dataclass's field keeps its annotation (the class reads it), a string nothing evaluates
    # (packaging's `environment: Environment`): no unbound name, so the snippet is shown
    dataclass = (
        "from __future__ import annotations\n\nimport dataclasses\nfrom typing import TYPE_CHECKING\n"
        "from pkg import f\n\nif TYPE_CHECKING:\n    from pkg import Environment\n\n\n"
        "@dataclasses.dataclass\nclass Platform:\n    environment: Environment\n\n\n"
        "def test_it() -> None:\n    assert f(Platform({})) == 1\n"
    )
    evidence = {"type": "AssertionError", "line": 17, "compare": {"op": "==", "left": "0", "right": "1"}}
    found = explain_failure(dataclass, "tests/test_p.py::test_it", evidence, repo_modules={"pkg"})
    assert found.unbound == [] and "    environment: Environment\n" in found.reproduction
    assert found.reproduction.startswith("from __future__ import annotations\n")


def test_a_frozen_clock_on_the_test_is_started_first_in_the_snippet():
    """humanize's `@freeze_time('2023-10-15 23:00:00+00:00')` test compares dates relative to that
    moment: the snippet ran at today's date, gave another value on both states and was dropped,
    and the statement named `aedt` and `future` without a block that binds them."""
    source = (
        "import datetime as dt\nimport pytest\nfrom freezegun import freeze_time\nimport humanize\n\n\n"
        "@freeze_time('2023-10-15 23:00:00+00:00')\ndef test_tz() -> None:\n"
        "    aedt = dt.timezone(dt.timedelta(hours=11))\n    future = dt.datetime(2023, 10, 16, hour=6)\n"
        "    assert humanize.naturaldate(future.astimezone(aedt)) == 'today'\n\n\n"
        "@pytest.mark.freeze_time('2020-01-01')\ndef test_mark() -> None:\n"
        "    assert humanize.naturalday(dt.date(2020, 1, 2)) == 'tomorrow'\n"
    )
    evidence = {"type": "AssertionError", "line": 11, "compare": {"op": "==", "left": "'tomorrow'", "right": "'today'"}}
    found = explain_failure(source, "tests/test_time.py::test_tz", evidence, repo_modules={"humanize"})
    assert found.unbound == []
    lines = found.reproduction.splitlines()
    assert "from freezegun import freeze_time" in lines
    assert lines.index("freeze_time('2023-10-15 23:00:00+00:00').start()") < lines.index(
        "future = dt.datetime(2023, 10, 16, hour=6)"
    )
    evidence = {
        "type": "AssertionError",
        "line": 16,
        "compare": {"op": "==", "left": "'Jan 02'", "right": "'tomorrow'"},
    }
    found = explain_failure(source, "tests/test_time.py::test_mark", evidence, repo_modules={"humanize"})
    assert "from freezegun import freeze_time" in found.reproduction
    assert "freeze_time('2020-01-01').start()" in found.reproduction and "pytest.mark" not in found.reproduction


def test_a_parametrized_fixture_is_built_from_the_cases_request_param():
    """statemachine's `sm_runner` fixture has `params=['sync', 'async']` and returns
    `SMRunner(is_async=request.param == 'async')`: the snippet bound `sm_runner = 'async'` and
    raised AttributeError on both states."""
    conftest = (
        "import pytest\n\n\nclass Runner:\n    def __init__(self, is_async):\n        self.is_async = is_async\n\n"
        "    def start(self, n):\n        return n\n\n\n"
        "@pytest.fixture(params=['sync', 'async'])\ndef runner(request):\n"
        "    return Runner(is_async=request.param == 'async')\n"
    )
    source = "from pkg import f\n\n\ndef test_it(runner):\n    assert f(runner.start(1)) == 2\n"
    evidence = {"type": "AssertionError", "line": 5, "params": {"runner": "'async'"}}
    found = explain_failure(
        source, "tests/test_r.py::test_it[async]", evidence, conftests=[conftest], repo_modules={"pkg"}
    )
    assert found.unbound == []
    assert "runner = Runner(is_async=True)" in found.reproduction and "runner = 'async'" not in found.reproduction
    assert found.params == {"runner": "Runner(is_async=True)"}  # the case, as the snippet builds it
    # a test that parametrizes the name itself gives it that value, as pytest does
    direct = (
        "import pytest\nfrom pkg import f\n\n\n@pytest.mark.parametrize('runner', ['async'])\n"
        + source.split("\n\n\n")[1]
    )
    evidence = {**evidence, "line": 7}
    found = explain_failure(
        direct, "tests/test_r.py::test_it[async]", evidence, conftests=[conftest], repo_modules={"pkg"}
    )
    assert "Runner(" not in found.reproduction


def test_a_case_value_computed_from_module_constants_is_written_as_the_value_it_is():
    """humanize's case `ONE_DAY - MILLISECONDS_1_337` was listed as that expression, whose
    constants no statement defines; the runner reported the value, `86398.663`."""
    source = (
        "import pytest\nimport humanize\n\nONE_HOUR = 3600\nONE_DAY = 24 * ONE_HOUR\nMS = 1337 / 1000\n\n\n"
        "@pytest.mark.parametrize('val, fmt', [(ONE_DAY - MS, '%.1f'), (ONE_HOUR, '%d')])\n"
        "def test_fmt(val, fmt):\n    assert humanize.precisedelta(val, format=fmt) == '23 hours'\n"
    )
    evidence = {
        "type": "AssertionError",
        "line": 11,
        "compare": {"op": "==", "left": "'x'", "right": "'23 hours'"},
        "params": {"val": "86398.663", "fmt": "'%.1f'"},
        "indices": {"val": 0, "fmt": 0},
    }
    found = explain_failure(source, "tests/test_t.py::test_fmt[86398.663-%.1f]", evidence, repo_modules={"humanize"})
    assert found.reproduction.splitlines()[-1] == "assert humanize.precisedelta(86398.663, format='%.1f') == '23 hours'"
    assert "ONE_DAY" not in found.reproduction
    # arithmetic of literals is the value too, as the case's id and the report give it
    source = source.replace("(ONE_DAY - MS, '%.1f')", "(9 * 60 * 60 - 1, '%.1f')")
    evidence = {**evidence, "params": {"val": "32399", "fmt": "'%.1f'"}}
    found = explain_failure(source, "tests/test_t.py::test_fmt[32399-%.1f]", evidence, repo_modules={"humanize"})
    assert "humanize.precisedelta(32399, format='%.1f')" in found.reproduction


def test_a_case_value_named_by_a_module_name_bound_again_later_is_the_one_bound_above_the_test():
    """fastjsonschema binds `exc` before each test's parametrize list: the snippet took every
    binding, so its `exc` was the last one (another format's message), and the block failed on
    the fixed state too."""
    source = (
        "import pytest\nfrom pkg import E, check\n\nexc = E('date')\n\n\n"
        "@pytest.mark.parametrize('value, expected', [('', exc), ('a', 'a')])\n"
        "def test_date(value, expected):\n    check(value, expected)\n\n\nexc = E('host')\n"
    )
    evidence = {
        "type": "TypeError",
        "line": 9,
        "message": "TypeError: x",
        "params": {"value": "''", "expected": "E('date')"},
    }
    found = explain_failure(source, "tests/test_f.py::test_date[-expected0]", evidence, repo_modules={"pkg"})
    assert found.reproduction.splitlines() == ["from pkg import E, check", "check('', E('date'))"]


def test_a_builtins_name_a_conftest_imports_is_imported_by_the_snippet():
    """fastjsonschema's conftest imports `compile` from the package, and its `asserter` fixture
    calls it: the snippet ran the builtin `compile` instead, failed on both states and was dropped,
    leaving a statement with no example."""
    conftest = (
        "import pytest\nfrom pkg import compile\n\n\n@pytest.fixture\ndef asserter():\n"
        "    def f(definition, value, expected):\n        assert compile(definition)(value) == expected\n"
        "    return f\n"
    )
    source = "def test_const(asserter):\n    asserter({'const': 'x'}, 'x', 'x')\n"
    evidence = {"type": "SyntaxError", "line": 2, "message": "unterminated string literal"}
    test_id = "tests/test_const.py::test_const"
    found = explain_failure(source, test_id, evidence, conftests=[conftest], repo_modules={"pkg"})
    assert found.reproduction.splitlines()[0] == "from pkg import compile", found.reproduction
    plain = "def test_src():\n    assert compile('1', 's', 'eval') == 2\n"  # nothing binds it: the builtin
    found = explain_failure(plain, "tests/test_src.py::test_src", {"type": "AssertionError", "line": 2})
    assert "import" not in found.reproduction
    # the conftest's import is the conftest's: the test's own `compile(code, ...)` is the builtin
    # (fastjsonschema's test of generated code raised AttributeError on both states)
    found = explain_failure(
        plain, "tests/test_src.py::test_src", {"type": "AssertionError", "line": 2}, conftests=[conftest]
    )
    assert "import" not in found.reproduction


def test_of_two_computed_sides_the_left_that_asks_the_tests_object_is_the_observed_one():
    """`assert cached.key(42) == lib.key(cached, 42)`: the left asks an object the test holds, as
    written; the right calls the project for the value it must equal. The statement had the
    sides swapped ("`lib.key(cached, 42)` gives `(42,)`; it should be `()`")."""
    source = (
        "from pkg import keys, Cached\n\n\ndef test_key():\n    cached = Cached()\n"
        "    assert cached.get.key(42) == keys.methodkey(cached, 42)\n"
    )
    evidence = {
        "type": "AssertionError",
        "line": 6,
        "locals": {"cached": "<Cached>"},
        "compare": {"op": "==", "left": "()", "right": "(42,)"},
        "message": "assert () == (42,)",
    }
    found = explain_failure(source, "tests/t.py::test_key", evidence, repo_modules={"pkg"})
    assert (found.call, found.observed, found.expected) == ("cached.get.key(42)", "()", "(42,)")
    assert found.checked_side == "left"  # the writer reads pytest's "Left"/"Right" diff by it
    # a slice of the test's object, against a value the project builds: the slice is checked
    sliced = source.replace("cached.get.key(42) == keys.methodkey(cached, 42)", "cached[:] == Cached()")
    found = explain_failure(sliced, "tests/t.py::test_key", evidence, repo_modules={"pkg"})
    assert found.call == "cached[:]"


def test_an_ordering_read_from_its_right_side_is_mirrored():
    """`assert cab <= complement('a')`: the right side calls the project and is the call, so the
    statement must say `complement('a') >= ...`; it had said `complement('a') <= ...` should hold."""
    source = (
        "from pkg import complement\n\n\ndef test_order():\n    cab = complement('ab')\n"
        "    assert cab <= complement('a')\n"
    )
    evidence = {
        "type": "AttributeError",
        "line": 6,
        "locals": {"cab": "complement(set(['a', 'b']))"},
        "message": "AttributeError: 'set' object has no attribute 'issupserset'",
    }
    found = explain_failure(source, "tests/t.py::test_order", evidence, repo_modules={"pkg"})
    assert (found.call, found.op, found.checked_side) == ("complement('a')", ">=", "right")


def test_the_side_a_test_names_expected_is_the_wanted_one():
    """cssutils: `assert expected == actual` over a table of tokens; the title read "`tokenize`
    returns `('IDENT', '--a', 1, 1)` where `('CHAR', '-', 1, 1)` is expected", the other way round."""
    source = (
        "from pkg import tokenize\n\n\ndef test_tokens():\n    tests = {'--a': [('IDENT', '--a', 1, 1)]}\n"
        "    for css in tests:\n        for i, actual in enumerate(tokenize(css)):\n"
        "            expected = tests[css][i]\n            assert expected == actual\n"
    )
    evidence = {
        "type": "AssertionError",
        "line": 9,
        "locals": {"css": "'--a'", "i": "0", "actual": "('CHAR', '-', 1, 1)", "expected": "('IDENT', '--a', 1, 1)"},
        "compare": {"op": "==", "left": "('IDENT', '--a', 1, 1)", "right": "('CHAR', '-', 1, 1)"},
        "message": "assert ('IDENT', '--a', 1, 1) == ('CHAR', '-', 1, 1)",
    }
    found = explain_failure(source, "tests/t.py::test_tokens", evidence, repo_modules={"pkg"})
    assert (found.observed, found.expected) == ("('CHAR', '-', 1, 1)", "('IDENT', '--a', 1, 1)"), found
    assert found.checked_side == "right"


def test_a_display_of_values_is_the_wanted_side_of_an_equality():
    """`assert [Child] == Base.__subclasses__()`: the list written out is what the call must give.
    The title had read "`[Child]` returns a wrong value"."""
    source = (
        "import pkg\n\n\ndef test_subclasses():\n    class Base(pkg.Model):\n        pass\n\n"
        "    class Child(Base):\n        pass\n\n    assert [Child] == Base.__subclasses__()\n"
    )
    evidence = {
        "type": "AssertionError",
        "line": 11,
        "locals": {"Base": "<class Base>", "Child": "<class Child>"},
        "compare": {"op": "==", "left": "[<class Child>]", "right": "[]"},
        "message": "assert [<class Child>] == []",
    }
    found = explain_failure(source, "tests/t.py::test_subclasses", evidence, repo_modules={"pkg"})
    assert (found.call, found.observed, found.expected) == ("Base.__subclasses__()", "[]", "[Child]")
    assert found.checked_side == "right"


def test_a_relative_import_in_a_src_layout_is_the_packages_own_name():
    """A test under `src/pkg/test/` imports `from .. import URL`: the snippet imports it from `pkg`,
    and `result`, which calls it, is the computed side. With `src.pkg` the class was no project name,
    and the statement read "`'a+b'` gives `'a+b'`; it should be `'a%2Bb'`" (sides swapped)."""
    source = (
        "from .. import URL\n\nCASES = ('a+b', 'c')\n\n\ndef test_roundtrip():\n"
        "    for text in CASES:\n        result = URL.from_text(text).to_text()\n        assert text == result\n"
    )
    evidence = {
        "type": "AssertionError",
        "line": 9,
        "locals": {"text": "'a+b'", "result": "'a%2Bb'"},
        "compare": {"op": "==", "left": "'a+b'", "right": "'a%2Bb'"},
        "message": "assert 'a+b' == 'a%2Bb'",
    }
    found = explain_failure(source, "src/pkg/test/test_url.py::test_roundtrip", evidence, repo_modules={"pkg"})
    assert found.reproduction.startswith("from pkg import URL\n")
    assert (found.call, found.observed, found.expected) == ("result", "'a%2Bb'", "'a+b'")


def test_a_single_parametrize_name_given_as_a_tuple_takes_its_cases_value_out_of_the_tuple():
    """`parametrize(('value',), [(UUID('...'),)])`: pytest unpacks each 1-tuple; the snippet had
    called `uuid((UUID('...'),))`, a call no test makes."""
    source = (
        "import pytest\nfrom pkg import check\n\n\n"
        "@pytest.mark.parametrize(('value',), [\n    (1.5,),\n    (2.5,),\n])\n"
        "def test_check(value):\n    assert check(value)\n"
    )
    evidence = {"type": "AssertionError", "line": 10, "indices": {"value": 1}, "message": "assert False"}
    found = explain_failure(source, "tests/t.py::test_check[value1]", evidence, repo_modules={"pkg"})
    assert found.reproduction.splitlines()[-1] == "assert check(2.5)"
    plain = source.replace("(('value',), [\n    (1.5,),\n    (2.5,),\n])", "('value', [(1.5,), (2.5,)])")
    found = explain_failure(plain, "tests/t.py::test_check[value1]", {**evidence, "line": 7}, repo_modules={"pkg"})
    assert found.reproduction.splitlines()[-1] == "assert check((2.5,))"  # a name as a string: the tuple is the value


def test_a_test_inherited_from_a_mixin_in_the_tests_package_is_read_from_there():
    """`class TestThing(TestCase, Mixin)` runs a test written once in the tests' `__init__.py`:
    its evidence comes from there (the report's line is in it), with the subclass's attributes."""
    source = "from pkg import Thing\n\nfrom . import Mixin\n\n\nclass TestThing(Mixin):\n    Kind = Thing\n"
    helper = (
        "class Mixin:\n    Kind = None\n\n    def test_size(self):\n"
        "        thing = self.Kind(2)\n        assert thing.size() == 2\n"
    )
    evidence = {"type": "AssertionError", "line": 6, "compare": {"op": "==", "left": "1", "right": "2"}}
    test_id = "tests/test_a.py::TestThing::test_size"
    found = explain_failure(source, test_id, evidence, repo_modules={"pkg"}, test_helpers={"tests": helper})
    assert found.reproduction.splitlines() == [
        "from pkg import Thing",
        "Kind = Thing",
        "thing = Kind(2)",
        "assert thing.size() == 2",
    ]
    assert (found.call, found.observed, found.expected) == ("thing.size()", "1", "2")
    assert explain_failure(source, test_id, evidence, repo_modules={"pkg"}).reproduction is None  # no helper source


def test_a_test_class_imported_from_another_test_module_is_read_from_its_own_module():
    """Python-Markdown's `test_md_in_html.py` imports `TestHTMLBlocks` from another test module
    and subclasses it; pytest runs its tests in both files. The same file has another class
    with a test of the same name, which was read instead: no evidence for either id."""
    source = (
        "from pkg import render\nfrom ..blocks.test_html import TestHTMLBlocks\n\n\n"
        "class TestWithExtension(TestHTMLBlocks):\n    pass\n\n\n"
        "class TestOther:\n    def test_noname_tag(self):\n        assert render('<a>') == '<a>'\n"
    )
    helper = (
        "from pkg import render\n\n\nclass TestHTMLBlocks:\n    def test_noname_tag(self):\n"
        "        assert render('</>') == '<p>&lt;/&gt;</p>'\n"
    )
    evidence = {"type": "AssertionError", "line": 6, "compare": {"op": "==", "left": "''", "right": "'x'"}}
    helpers = {"tests.blocks.test_html": helper}
    for cls in ("TestWithExtension", "TestHTMLBlocks"):
        test_id = f"tests/extensions/test_md.py::{cls}::test_noname_tag"
        found = explain_failure(source, test_id, evidence, repo_modules={"pkg"}, test_helpers=helpers)
        assert found.call == "render('</>')", (cls, found)
    own = {**evidence, "line": 11}
    found = explain_failure(source, "tests/extensions/test_md.py::TestOther::test_noname_tag", own, {"pkg"})
    assert found.call == "render('<a>')"


def test_a_check_that_raised_keeps_the_lookups_the_earlier_checks_made_on_its_object():
    """`assertEqual(3, cache[3])` passed and stored through `__missing__`; the later `cache[1]`
    raised on that state. Without the earlier lookups the snippet passes on the buggy code."""
    source = (
        "from pkg import Cache\n\n\ndef test_missing():\n    cache = Cache()\n"
        "    assert cache[3] == 3\n    assert len(cache) == 1\n    assert cache[1] == 1\n"
    )
    raised = {"type": "KeyError", "line": 8, "message": "3"}
    found = explain_failure(source, "tests/t.py::test_missing", raised, repo_modules={"pkg"})
    assert found.reproduction.splitlines()[2:] == ["cache[3]", "assert cache[1] == 1"]
    # a check that compared wrongly meets no state of the earlier ones: they stay out
    compared = {"type": "AssertionError", "line": 8, "compare": {"op": "==", "left": "2", "right": "1"}}
    found = explain_failure(source, "tests/t.py::test_missing", compared, repo_modules={"pkg"})
    assert found.reproduction.splitlines()[2:] == ["assert cache[1] == 1"]


def test_lookups_on_a_class_the_earlier_checks_made_stay_out():
    """`Version.parse(...)` in an earlier check reads a class, not an object with state."""
    source = (
        "from pkg import Version\n\n\ndef test_eq():\n    class Sub(Version):\n        pass\n\n"
        "    assert Version.parse('1') == Sub.parse('1')\n    assert Sub.parse('1').__eq__(Version.parse('1'))\n"
    )
    raised = {"type": "TypeError", "line": 9, "message": "bad operand"}
    found = explain_failure(source, "tests/t.py::test_eq", raised, repo_modules={"pkg"})
    assert found.reproduction.splitlines()[-1] == "assert Sub.parse('1').__eq__(Version.parse('1'))"
    assert "Version.parse('1')\n" not in found.reproduction


def test_a_name_a_star_imported_module_binds_at_run_time_is_imported_from_it():
    """A module that builds its namespace in code (`globals()[token] = ...` over a string of
    names, `__all__ +=`) exports names no top-level statement spells: the snippet imports the
    ones the test reads from it (they were left unbound, and the test's snippet was not shown)."""
    source = "from .._state import *\n\n\ndef test_state():\n    assert READERS[CLIENT] == 1\n"
    state = (
        '"""States: the docstring names Nothing."""\n__all__ = []\nnames = "CLIENT SERVER"\n'
        "for token in names.split():\n    globals()[token] = object()\n__all__ += names.split()\nREADERS = {}\n"
    )
    exported = star_exports(source, "pkg/tests/test_s.py", {"pkg"}, lambda p: state if p == "pkg/_state.py" else "")
    assert exported["CLIENT"] == exported["SERVER"] == exported["READERS"] == "pkg._state"
    assert "Nothing" not in exported and "names" in exported  # docstrings aside; `names` is a top-level name
    evidence = {"type": "AssertionError", "line": 5, "message": "assert None == 1"}
    found = explain_failure(source, "pkg/tests/test_s.py::test_state", evidence, {"pkg"}, star_names=exported)
    assert found.unbound == []
    assert "from pkg._state import CLIENT, READERS" in found.reproduction.splitlines()
    static = star_exports(source, "pkg/tests/test_s.py", {"pkg"}, lambda p: "X = 'CLIENT'\n" if "_state" in p else "")
    assert static == {"X": "pkg._state"}  # a module that binds nothing in code exports no word of its strings


def test_a_submodule_import_beside_its_package_import_is_kept():
    """`import unittest` and `import unittest.mock`: both bind `unittest`; the snippet needs the
    submodule loaded (`unittest.mock.create_autospec(...)` raised AttributeError as given)."""
    source = "import pkg\nimport pkg.sub\n\n\ndef test_sub():\n    assert pkg.sub.f() == 1\n"
    evidence = {"type": "AssertionError", "line": 6, "message": "assert 0 == 1"}
    found = explain_failure(source, "tests/test_p.py::test_sub", evidence, repo_modules={"pkg"})
    assert found.reproduction.splitlines()[0] == "import pkg.sub" and found.unbound == []
    aliased = "import pkg as p\nimport pkg.sub\n\n\ndef test_sub():\n    assert p.g() == 1\n"
    found = explain_failure(aliased, "tests/test_p.py::test_sub", evidence, repo_modules={"pkg"})
    assert found.reproduction.splitlines()[0] == "import pkg as p"


def test_a_test_whose_file_failed_to_load_gets_the_files_import_error_and_its_own_case(tmp_path):
    """The buggy state lacks a name the test file imports: pytest collects nothing, so no test
    has a report of its own. The file's collection error is each test's evidence: the import as
    the failing line, and the test's own case (its values found by its id) as the snippet."""
    from tests.sandbox_fixtures import make_repo

    files = {
        "pkg/__init__.py": "",
        "pkg/parse.py": "def parse_or_none(text):\n    return None if text is None else int(text)\n",
        "tests/test_parse.py": (
            "import pytest\n\nfrom pkg.parse import parse_or_none\n\n\n"
            "@pytest.mark.parametrize('text, result', [('1', 1), (None, None)])\n"
            "def test_parse(text, result):\n    assert parse_or_none(text) == result\n"
        ),
    }
    repo, sha = make_repo(tmp_path / "repo", files)
    collect = {
        "when": "collect",
        "type": "ImportError",
        "message": "cannot import name 'parse_or_none' from 'pkg.parse' (pkg/parse.py)",
        "line": 3,
    }
    ids = ["tests/test_parse.py::test_parse[1-1]", "tests/test_parse.py::test_parse[None-None]"]
    found = failure_evidence(repo, sha, {"tests/test_parse.py": collect}, ids)
    assert list(found) == ids
    second = found[ids[1]]
    assert second.check == "from pkg.parse import parse_or_none"
    assert second.error.startswith("ImportError: cannot import name 'parse_or_none'")
    assert second.reproduction.splitlines() == [
        "from pkg.parse import parse_or_none",
        "assert parse_or_none(None) == None",
    ]
    assert second.params == {"text": "None", "result": "None"}
    # a report of the file that is no collection error stays the file's
    assert failure_evidence(repo, sha, {"tests/test_parse.py": {**collect, "when": "call"}}, ids) == {}


def test_a_unittest_assert_raises_before_the_failing_check_leaves_the_evidence_derived():
    """A TestCase's `self.assertRaises(E, f, x)` ran before the failing check: the snippet's
    `with pytest.raises(E):` had no line, `ast.unparse` failed and the test got no evidence."""
    source = (
        "import unittest\n\n\nclass T(unittest.TestCase):\n    def test_it(self):\n"
        "        from ..pkg import parse\n        self.assertRaises(ValueError, parse, 'x')\n"
        "        self.assertEqual(parse('1'), 2)\n"
    )
    evidence = {"type": "AssertionError", "line": 8, "message": "1 != 2"}
    found = explain_failure(source, "src/pkg/tests/test_t.py::T::test_it", evidence, repo_modules={"pkg"})
    # the test's own relative import as a user writes it: the snippet is no module of the tests' package
    assert found.reproduction.splitlines() == ["from pkg.pkg import parse", "assert parse('1') == 2"]
    assert found.call == "parse('1')" and found.unbound == []


def test_a_fixture_that_only_orders_an_unbuildable_fixture_is_still_inlined():
    """A conftest's `def data(provider): return Source(FOLDER)` never reads `provider` (a
    parametrized fixture no snippet builds): the test's `data` was left unbound."""
    conftest = (
        "import pytest\nfrom pkg import Source, use\n\nFOLDER = 'data'\n\n\n"
        "@pytest.fixture(params=['a', 'b'])\ndef provider_name(request):\n    return request.param\n\n\n"
        "@pytest.fixture\ndef provider(provider_name):\n    yield use(provider_name)\n\n\n"
        "@pytest.fixture(scope='module')\ndef data(provider):\n    return Source(FOLDER)\n\n\n"
        "@pytest.fixture\ndef named(provider):\n    return Source(provider)\n"
    )
    source = (
        "def test_read(data):\n    assert data.read() == 1\n\n\ndef test_named(named):\n    assert named.read() == 1\n"
    )
    evidence = {"type": "AssertionError", "line": 2, "compare": {"op": "==", "left": "0", "right": "1"}}
    found = explain_failure(source, "tests/test_t.py::test_read", evidence, conftests=[conftest], repo_modules={"pkg"})
    assert "data = Source(FOLDER)" in found.reproduction.splitlines() and found.unbound == []
    assert "provider" not in found.reproduction
    # a fixture whose body reads the fixture that cannot be built stays out (no half binding)
    evidence = {**evidence, "line": 6}
    found = explain_failure(source, "tests/test_t.py::test_named", evidence, conftests=[conftest], repo_modules={"pkg"})
    assert "named = " not in found.reproduction


def test_a_fixture_registered_under_another_name_is_inlined_by_that_name():
    """structlog: `@pytest.fixture(name="event_dict")` on `def _event_dict()`; the fixture was
    looked up by its function's name, `event_dict` stayed unbound and the case had no block."""
    conftest = (
        "import pytest\n\n\n@pytest.fixture(name='event_dict')\ndef _event_dict():\n    return {'a': 1, 'b': 2}\n"
    )
    source = (
        "from pkg import render\n\n\ndef test_render(event_dict):\n    del event_dict['a']\n"
        "    assert render(event_dict) == 'b=2'\n"
    )
    evidence = {"type": "AssertionError", "line": 6, "compare": {"op": "==", "left": "''", "right": "'b=2'"}}
    found = explain_failure(source, "tests/t.py::test_render", evidence, conftests=[conftest], repo_modules={"pkg"})
    assert "event_dict = {'a': 1, 'b': 2}" in found.reproduction.splitlines() and found.unbound == []


def test_a_test_classs_own_fixture_wins_over_the_modules_and_another_classs_is_not_used():
    """environs: `TestExpandVars` defines `env` as `Env(expand_vars=True)`; the module's `env`
    (a plain `Env()`) was taken, and the snippet failed on the fixed state too."""
    source = (
        "import pytest\nfrom pkg import Env\n\n\n@pytest.fixture\ndef env():\n    return Env()\n\n\n"
        "class Base:\n    @pytest.fixture\n    def env(self):\n        return Env(expand=True)\n\n\n"
        "class TestExpand(Base):\n    def test_b(self, env):\n        assert env.str('B') == 'a;b'\n\n\n"
        "class TestOther:\n    @pytest.fixture\n    def other(self):\n        return Env(strict=True)\n\n"
        "    def test_c(self, other):\n        assert other.str('C') == 'c'\n\n\n"
        "def test_d(other):\n    assert other.str('D') == 'd'\n"
    )
    evidence = {"type": "AssertionError", "line": 18, "compare": {"op": "==", "left": "'${a};b'", "right": "'a;b'"}}
    found = explain_failure(source, "tests/t.py::TestExpand::test_b", evidence, repo_modules={"pkg"})
    assert "env = Env(expand=True)" in found.reproduction.splitlines(), found.reproduction
    evidence = {**evidence, "line": 31}
    found = explain_failure(source, "tests/t.py::test_d", evidence, repo_modules={"pkg"})
    assert "Env(strict=True)" not in found.reproduction and found.unbound == ["other"]


def test_an_inlined_fixtures_definition_stays_out_of_the_snippet():
    """glom's CLI test reads its file fixtures only after the failing check: their inlined
    values were dropped as unread, so the fixtures' `@pytest.fixture` definitions were pasted
    in to bind the names the later checks read."""
    source = (
        "import pytest\nfrom pkg import cli\n\nSPEC = 'a.b'\n\n\n"
        "@pytest.fixture\ndef spec_path(tmp_path):\n    path = str(tmp_path) + '/spec.txt'\n"
        "    with open(path, 'w') as f:\n        f.write(SPEC)\n    return path\n\n\n"
        "def test_usage(spec_path):\n    res = cli.run(['--format', 'toml', SPEC])\n"
        "    assert 'bad target' in res\n    res = cli.run(['--spec-file', spec_path, SPEC])\n"
        "    assert 'not both' in res\n"
    )
    lines = source.splitlines()
    evidence = {"type": "AssertionError", "line": lines.index("    assert 'bad target' in res") + 1}
    evidence["compare"] = {"op": "in", "left": "'bad target'", "right": "'usage error'"}
    found = explain_failure(source, "tests/test_t.py::test_usage", evidence, repo_modules={"pkg"})
    assert found.unbound == []
    assert "def spec_path" not in found.reproduction and "@pytest.fixture" not in found.reproduction
    assert "res = cli.run(['--format', 'toml', SPEC])" in found.reproduction
    assert "spec_path = path" in found.reproduction.splitlines()


def test_pytest_tmpdir_is_bound_as_the_local_path_pytest_gives():
    source = "from pkg import Store\n\n\ndef test_reopen(tmpdir):\n    path = str(tmpdir.join('x'))\n"
    source += "    assert len(Store(path)) == 0\n"
    evidence = {"type": "AssertionError", "line": 6, "compare": {"op": "==", "left": "1", "right": "0"}}
    found = explain_failure(source, "tests/test_t.py::test_reopen", evidence, repo_modules={"pkg"})
    assert "tmpdir = py.path.local(tempfile.mkdtemp())" in found.reproduction.splitlines()
    assert {"import py", "import tempfile"} <= set(found.reproduction.splitlines()) and found.unbound == []


def test_a_check_that_fails_when_repeated_keeps_its_first_run():
    """`assert len(db.search(q)) == 0` twice, the second fails (a cache the first run filled):
    the snippet without the first run passed on the buggy code and the check dropped it."""
    source = (
        "from pkg import where\n\n\ndef test_twice(db):\n    assert db.count() == 3\n"
        "    assert len(db.search(where('x'))) == 0\n    assert len(db.search(where('x'))) == 0\n"
    )
    evidence = {"type": "TypeError", "line": 7, "message": "'NoneType' object is not subscriptable"}
    found = explain_failure(source, "tests/test_t.py::test_twice", evidence, repo_modules={"pkg"})
    lines = found.reproduction.splitlines()
    assert lines[-2:] == ["len(db.search(where('x')))", "assert len(db.search(where('x'))) == 0"]
    assert "db.count()" not in found.reproduction  # a different check that passed stays out
    # a repeated check that calls nothing (`x in result.output`) changes no state: its first run stays out
    source = (
        "def test_out(result):\n    assert 'v' in result.output\n    result.more()\n    assert 'v' in result.output\n"
    )
    evidence = {"type": "AssertionError", "line": 4, "message": "assert 'v' in ''"}
    found = explain_failure(source, "tests/test_t.py::test_out", evidence, repo_modules={"pkg"})
    assert found.reproduction.splitlines()[-2:] == ["result.more()", "assert 'v' in result.output"]


def test_a_name_imported_under_a_module_level_if_is_imported_by_the_snippet():
    """pyjwt's tests import `RSAAlgorithm` under `if has_crypto:`; the snippet left it unbound,
    so no block was shown and the statement said nothing of the case."""
    source = (
        "import pytest\nfrom pkg.algorithms import has_crypto\nfrom pkg.exceptions import InvalidKeyError\n\n"
        "if has_crypto:\n    from pkg.algorithms import RSAAlgorithm\n"
        "else:\n    from pkg.fallback import RSAAlgorithm\n\n\n"
        "def test_invalid_pem():\n    algo = RSAAlgorithm(RSAAlgorithm.SHA256)\n"
        "    with pytest.raises(InvalidKeyError):\n        algo.prepare_key('invalid key')\n"
    )
    lines = source.splitlines()
    evidence = {"type": "ValueError", "line": lines.index("        algo.prepare_key('invalid key')") + 1}
    evidence["message"] = "ValueError: Unable to load PEM file"
    found = explain_failure(source, "tests/test_t.py::test_invalid_pem", evidence, repo_modules={"pkg"})
    assert found.unbound == [], found.unbound
    assert "from pkg.algorithms import RSAAlgorithm\n" in found.reproduction
    assert "pkg.fallback" not in found.reproduction and "if has_crypto" not in found.reproduction


def test_a_test_class_helper_method_runs_as_a_function_of_the_snippet():
    """A TestCase's setUp calls `self.redirect()`, which sets `self.out` and reads `self.interp`;
    its check helper returns `self.assertTrue(...)` and reads a module-level optional import:
    `self`, the setUp value and the optional import were left unbound."""
    source = (
        "import unittest\nfrom io import StringIO\nfrom pkg import Interp\n\nHAS_NP = False\n"
        "try:\n    import numpy as np\n    HAS_NP = True\nexcept ImportError:\n    HAS_NP = False\n\n\n"
        "class T(unittest.TestCase):\n    def setUp(self):\n        self.interp = Interp()\n        self.redirect()\n\n"
        "    def redirect(self):\n        self.out = StringIO()\n        self.interp.writer = self.out\n\n"
        "    def istrue(self, expr):\n        val = self.interp(expr)\n"
        "        if HAS_NP and isinstance(val, np.ndarray):\n            val = np.all(val)\n"
        "        return self.assertTrue(val)\n\n"
        "    def printed(self):\n        return self.out.getvalue()\n\n"
        "    def test_index(self):\n        self.istrue('a[0] == 1')\n\n"
        "    def test_print(self):\n        self.interp('print(1)')\n        assert self.printed() == '1'\n"
    )
    lines = source.splitlines()
    evidence = {"type": "AssertionError", "line": lines.index("        assert self.printed() == '1'") + 1}
    evidence["compare"] = {"op": "==", "left": "''", "right": "'1'"}
    found = explain_failure(source, "tests/test_t.py::T::test_print", evidence, repo_modules={"pkg"})
    snippet = found.reproduction
    assert found.unbound == [] and "self" not in snippet
    assert "def redirect():\n    global out\n    out = StringIO()\n    interp.writer = out" in snippet
    assert "interp = Interp()\nredirect()" in snippet  # the setUp value the helper reads stays
    # a test that never reads what the helper made: the hand-off is noise and stays out
    evidence = {"type": "AssertionError", "line": lines.index("        self.istrue('a[0] == 1')") + 1}
    evidence["message"] = "False is not true"
    found = explain_failure(source, "tests/test_t.py::T::test_index", evidence, repo_modules={"pkg"})
    snippet = found.reproduction
    assert found.unbound == [] and "self" not in snippet and "redirect" not in snippet and "StringIO" not in snippet
    assert "    assert val" in snippet and "try:\n    import numpy as np" in snippet


def test_file_of_a_conftest_definition_is_the_conftests_path_not_the_test_modules():
    """A conftest's `HERE = Path(__file__).parent` under an inlined fixture: `__file__` was the
    test module's path, which named the hidden test's file in the statement."""
    conftest = (
        "import pytest\nfrom pathlib import Path\nfrom pkg import load\n\nHERE = Path(__file__).parent\n\n\n"
        "@pytest.fixture\ndef data():\n    return load(HERE / 'data')\n"
    )
    source = "def test_bom_files(data):\n    assert data.first() == 1\n"
    evidence = {"type": "AssertionError", "line": 2, "compare": {"op": "==", "left": "0", "right": "1"}}
    found = explain_failure(
        source, "src/pkg/tests/test_bom_files.py::test_bom_files", evidence, conftests=[conftest], repo_modules={"pkg"}
    )
    assert "__file__ = os.path.abspath('src/pkg/tests/conftest.py')" in found.reproduction.splitlines()
    assert "import os" in found.reproduction.splitlines()
    assert "test_bom_files" not in found.reproduction and found.unbound == []


HARNESS = (
    "import textwrap\nimport unittest\n\nfrom pkg import checker\n\n\nclass TestCase(unittest.TestCase):\n"
    '    withDoctest = False\n\n    def flakes(self, input, *expected, **kw):\n        """Check the messages."""\n'
    "        w = checker.Checker(textwrap.dedent(input), withDoctest=self.withDoctest, **kw)\n"
    "        outputs = sorted(type(o).__name__ for o in w.messages)\n"
    "        self.assertEqual(outputs, sorted(e.__name__ for e in expected))\n        return w\n"
)
FLAKES_TEST = (
    "from pkg import messages as m\nfrom pkg.test.harness import TestCase\n\n\nclass Test(TestCase):\n"
    "    def test_unused(self):\n        self.flakes('import os', m.UnusedImport)\n"
)


def _committed_repo(tmp_path, files: dict[str, str]) -> str:
    import subprocess

    for path, text in files.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text)
    git = ["git", "-C", str(tmp_path), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "c"], check=True)
    return subprocess.run([*git, "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()


def test_a_helper_method_of_a_base_class_the_test_file_imports_is_written_into_the_snippet(tmp_path):
    """A suite whose checks run in `self.flakes(src, *messages)`, a method of a TestCase base in
    another module: the snippet called `self.flakes` with `self` unbound and no input a reader
    could run. The base's helper and the names it reads come with it."""
    from tasks.evidence.python import failure_evidence, imported_bases

    assert imported_bases(FLAKES_TEST, "pkg/test/test_imports.py") == ["pkg.test.harness"]
    files = {
        "pkg/__init__.py": "",
        "pkg/test/__init__.py": "",
        "pkg/test/harness.py": HARNESS,
        "pkg/test/test_imports.py": FLAKES_TEST,
    }
    commit = _committed_repo(tmp_path, files)
    test_id = "pkg/test/test_imports.py::Test::test_unused"
    report = {"type": "AssertionError", "line": 7, "message": "Lists differ: [] != ['UnusedImport']"}
    found = failure_evidence(tmp_path, commit, {test_id: report}, [test_id])[test_id]
    lines = found.reproduction.splitlines()
    assert found.unbound == [] and found.call == "flakes('import os', m.UnusedImport)", found.reproduction
    assert "def flakes(input, *expected, **kw):" in lines and "withDoctest = False" in lines
    assert (
        "from pkg import checker, messages as m" in lines
        and "import textwrap" in lines
        and "self" not in found.reproduction
    )
    assert lines[-1] == "flakes('import os', m.UnusedImport)"
    assert "Check the messages" not in found.reproduction  # the helper's docstring: shorter, still whole


def test_a_helper_of_a_base_of_a_base_in_a_third_module_is_written_into_the_snippet(tmp_path):
    """elementpath: `class XPath2ParserTest(test_xpath1_parser.XPath1ParserTest)`, imported in a
    `try:` block, whose base `xpath_test_class.XPathTestCase` (imported by that module, not by
    the test's) holds `check_value` and sets `self.parser` in setUp: `self` was unbound and the
    statement showed no call. The helper's `assertAlmostEqual` reads plainly too."""
    from tasks.evidence.python import failure_evidence

    case = (
        "import math\nimport unittest\nfrom pkg import Parser\n\n\nclass XPathTestCase(unittest.TestCase):\n"
        "    namespaces = {'xs': 'x'}\n\n    def setUp(self):\n        self.parser = Parser(self.namespaces)\n\n"
        "    def check_value(self, path, expected=None):\n        value = self.parser.parse(path).evaluate()\n"
        "        if isinstance(expected, float):\n            self.assertAlmostEqual(value, expected, places=3)\n"
        "        else:\n            self.assertEqual(value, expected)\n"
    )
    first = (
        "import unittest\nfrom tests import xpath_test_class\n\n\n"
        "class XPath1ParserTest(xpath_test_class.XPathTestCase):\n    pass\n"
    )
    second = (
        "import unittest\ntry:\n    from tests import test_xpath1_parser\n"
        "except ImportError:\n    import test_xpath1_parser\n\n\n"
        "class XPath2ParserTest(test_xpath1_parser.XPath1ParserTest):\n"
        "    def test_as(self):\n        self.check_value('as', None)\n"
    )
    files = {
        "pkg/__init__.py": "class Parser:\n    pass\n",
        "tests/__init__.py": "",
        "tests/xpath_test_class.py": case,
        "tests/test_xpath1_parser.py": first,
        "tests/test_xpath2_parser.py": second,
    }
    commit = _committed_repo(tmp_path, files)
    test_id = "tests/test_xpath2_parser.py::XPath2ParserTest::test_as"
    report = {"type": "ValueError", "line": 10, "message": "ValueError: bad 'as'"}
    found = failure_evidence(tmp_path, commit, {test_id: report}, [test_id])[test_id]
    lines = found.reproduction.splitlines()
    assert found.unbound == [] and "self" not in found.reproduction, found.reproduction
    assert "def check_value(path, expected=None):" in lines and "parser = Parser(namespaces)" in lines, "\n".join(lines)
    assert "        assert round(abs(value - expected), 3) == 0" in lines
    assert lines[-1] == "check_value('as', None)"


def test_assert_almost_equal_reads_as_a_rounded_difference_and_a_passing_one_keeps_its_value():
    source = (
        "import math\nimport unittest\nfrom pkg import parse\n\n\nclass T(unittest.TestCase):\n"
        "    def test_pi(self):\n        token = parse('pi')\n"
        "        self.assertAlmostEqual(token.evaluate(), math.pi)\n"
        "        self.assertAlmostEqual(parse('e').evaluate(), math.e, delta=0.01)\n"
    )
    evidence = {"type": "AssertionError", "line": 10, "message": "2.0 != 2.718 within 0.01 delta (0.7 difference)"}
    found = explain_failure(source, "tests/test_t.py::T::test_pi", evidence, repo_modules={"pkg"})
    lines = found.reproduction.splitlines()
    assert not any("round(" in line for line in lines)  # the check that passed is no rounded difference
    assert lines[-1] == "assert abs(parse('e').evaluate() - math.e) <= 0.01", found.reproduction


def test_a_test_defined_twice_in_its_class_is_explained_by_the_body_that_runs():
    """pypika's `test__between_datetime` is defined twice in one class; the second replaces the
    first, and the failing line is in it. Reading the first body gave no evidence at all."""
    source = (
        "import unittest\nfrom pkg import between\n\n\nclass T(unittest.TestCase):\n"
        "    def test_between(self):\n        self.assertEqual('a', between(1, 2))\n\n"
        "    def test_between(self):\n        self.assertEqual('b', between(3, 4))\n"
    )
    evidence = {"type": "AssertionError", "line": 10, "message": "'b' != 'B'"}
    found = explain_failure(source, "tests/test_t.py::T::test_between", evidence, repo_modules={"pkg"})
    assert found.call == "between(3, 4)" and found.expected == "'b'", found


def test_a_callback_method_that_calls_self_fail_raises_assertion_error_in_the_snippet():
    """pycparser's lexer tests hand `self.error_func` to the lexer, and it calls `self.fail`:
    `self` stayed unbound in the snippet, so no block was shown."""
    source = (
        "import unittest\nfrom pkg import Lexer\n\n\nclass T(unittest.TestCase):\n"
        "    def error_func(self, msg):\n        self.fail(msg)\n\n"
        "    def setUp(self):\n        self.lex = Lexer(self.error_func)\n\n"
        "    def test_char(self):\n        self.assertEqual(self.lex.types(\"'12'\"), ['CHAR'])\n"
    )
    evidence = {"type": "AssertionError", "line": 13, "message": "Invalid char constant '12'"}
    found = explain_failure(source, "tests/test_t.py::T::test_char", evidence, repo_modules={"pkg"})
    assert found.unbound == [], found.unbound
    assert "def error_func(msg):\n    raise AssertionError(msg)" in found.reproduction


def test_a_snippets_imports_of_one_module_are_one_statement_wrapped_when_long():
    """pycparser's snippets opened with 22 lines of `from pycparser.c_ast import X`, one per
    name, which pushed them past the length a statement quotes."""
    from tasks.evidence.python import _merged_imports

    names = [f"Node{i}" for i in range(22)]
    parts = [f"from pkg.ast import {n}" for n in names[:11]] + ["import os"]
    parts += [f"from pkg.ast import {n}" for n in names[11:]] + ["from pkg.ast import Node0", "from pkg import parse"]
    merged = _merged_imports(parts)
    assert merged[1:] == ["import os", "from pkg import parse"]
    assert merged[0].startswith("from pkg.ast import (\n    Node0, Node1,") and merged[0].endswith("Node21,\n)")
    assert all(len(line) <= 100 for line in merged[0].splitlines())
    assert [a.name for a in ast.parse(merged[0]).body[0].names] == names


def test_what_setup_class_sets_on_the_class_is_set_up_in_the_snippet():
    """networkx's TestLayout builds `cls.Gi` in `setup_class`: the tests read `self.Gi`, left
    unbound, so two tasks had no block and the judges rejected them as vague."""
    source = (
        "import networkx as nx\n\n\nclass TestLayout:\n    @classmethod\n    def setup_class(cls):\n"
        "        cls.Gi = nx.grid_2d_graph(5, 5)\n\n    def test_x(self):\n        assert nx.f(self.Gi) == 1\n"
    )
    report = {"type": "AssertionError", "line": 10, "compare": {"op": "==", "left": "2", "right": "1"}}
    found = explain_failure(source, "tests/t.py::TestLayout::test_x", report, repo_modules={"networkx"})
    assert found.unbound == [], found.reproduction
    assert found.reproduction.splitlines()[1:] == ["Gi = nx.grid_2d_graph(5, 5)", "assert nx.f(Gi) == 1"]
    unittest_style = source.replace("setup_class(cls)", "setUpClass(klass)").replace("cls.Gi", "klass.Gi")
    found = explain_failure(unittest_style, "tests/t.py::TestLayout::test_x", report, repo_modules={"networkx"})
    assert "Gi = nx.grid_2d_graph(5, 5)" in found.reproduction and found.unbound == []


def test_pytest_raises_called_with_the_function_is_the_with_block_it_stands_for():
    """networkx: `pytest.raises(nx.NetworkXUnbounded, nx.floyd_warshall_tree, G)` was a helper
    whose message "DID NOT RAISE ..." became the title; it is the call `nx.floyd_warshall_tree(G)`
    that does not raise."""
    source = (
        "import pkg\nimport pytest\n\n\ndef test_neg():\n    g = pkg.Graph()\n"
        "    pytest.raises(pkg.Unbounded, pkg.floyd, g, weight='w')\n"
        "    pytest.raises(pkg.Unbounded, pkg.floyd, g, match='cycle')\n"
    )
    report = {"type": "Failed", "line": 7, "message": "DID NOT RAISE <class 'pkg.Unbounded'>"}
    found = explain_failure(source, "tests/t.py::test_neg", report, repo_modules={"pkg"})
    assert (found.kind, found.call, found.expected, found.observed) == (
        "raises",
        "pkg.floyd(g, weight='w')",
        "pkg.Unbounded",
        "no exception",
    )
    assert found.reproduction.endswith("with pytest.raises(pkg.Unbounded):\n    pkg.floyd(g, weight='w')")
    assert "with pytest.raises(pkg.Unbounded, match='cycle'):\n    pkg.floyd(g)" in (found.rest or "")


def test_a_global_statement_of_the_test_is_left_out_of_the_snippet():
    """tablib's test opens with `global data, book`, shown at the top of the snippet."""
    source = (
        "import pkg\n\ndata = None\n\n\ndef test_it():\n    global data\n    data = pkg.Dataset()\n"
        "    assert data.size == 1\n"
    )
    report = {"type": "AssertionError", "line": 9, "compare": {"op": "==", "left": "0", "right": "1"}}
    found = explain_failure(source, "tests/t.py::test_it", report, repo_modules={"pkg"})
    assert found.reproduction.splitlines() == ["import pkg", "data = pkg.Dataset()", "assert data.size == 1"]


def test_a_test_whose_fixture_raised_is_stated_from_its_first_use_of_the_fixture():
    """prompt-toolkit c53e20c8: the `default_attrs` fixture builds `Attrs(..., dim=False)`, a field
    the buggy state lacks, so the test errored in setup with no line of its own: it got no
    evidence and the statement never mentioned it."""
    source = (
        "import pytest\nfrom pkg import Attrs, Brightness\n\n\n@pytest.fixture\ndef default_attrs():\n"
        "    return Attrs(color='', dim=False)\n\n\ndef test_brightness(default_attrs):\n"
        "    tr = Brightness(0.5)\n    attrs = tr.transform(default_attrs._replace(color='ff0000'))\n"
        "    assert attrs.color == 'ff7f7f'\n"
    )
    report = {
        "type": "TypeError",
        "when": "setup",
        "message": "Attrs.__new__() got an unexpected keyword argument 'dim'",
    }
    found = explain_failure(source, "tests/test_t.py::test_brightness", report, repo_modules={"pkg"})
    lines = found.reproduction.splitlines()
    assert found.unbound == [] and found.kind == "error", found
    assert lines[-3:] == [
        "default_attrs = Attrs(color='', dim=False)",
        "tr = Brightness(0.5)",
        "attrs = tr.transform(default_attrs._replace(color='ff0000'))",
    ], found.reproduction
    assert found.rest == "assert attrs.color == 'ff7f7f'"


def test_a_helper_method_a_parameter_of_another_method_hides_gets_its_own_name():
    """pymdown-extensions' `check_markdown(self, text, expected, dedent=False)` calls
    `self.dedent(text)`; written as functions, `dedent(text)` called the bool parameter, and
    every snippet raised TypeError on both states (six tasks had no example)."""
    source = (
        "import textwrap\nimport unittest\nfrom pkg import convert\n\n\nclass T(unittest.TestCase):\n"
        "    def dedent(self, text):\n        return textwrap.dedent(text).strip()\n\n"
        "    def check(self, text, expected, dedent=False):\n        if dedent:\n            text = self.dedent(text)\n"
        "        self.assertEqual(convert(text), expected)\n\n"
        "    def test_it(self):\n        self.check('  a', 'A', True)\n"
    )
    evidence = {"type": "AssertionError", "line": 16, "message": "'a' != 'A'"}
    found = explain_failure(source, "tests/test_t.py::T::test_it", evidence, repo_modules={"pkg"})
    lines = found.reproduction.splitlines()
    assert found.unbound == [] and "def dedent_(text):" in lines, found.reproduction
    assert "        text = dedent_(text)" in lines and "def check(text, expected, dedent=False):" in lines


def test_a_fixture_that_reads_an_optional_request_param_is_written_in_without_it():
    """jsonargparse's `parser` fixture reads `getattr(request, 'param', None)` (a parser mode a
    few tests parametrize indirectly): for a test that does not, `request` left the fixture out,
    and 12 of 13 tests of a task had `parser` unbound and no snippet."""
    conftest = (
        "import pytest\nfrom pkg import ArgumentParser\n\n\n@pytest.fixture\ndef parser(request):\n"
        "    kwargs = {}\n    if getattr(request, 'param', None):\n        kwargs['mode'] = request.param\n"
        "    return ArgumentParser(exit_on_error=False, **kwargs)\n"
    )
    source = "def test_required(parser):\n    parser.add('--a', required=True)\n    parser.parse([])\n"
    evidence = {"type": "ArgumentError", "line": 3, "message": "missing required options: a"}
    test_id = "tests/test_t.py::test_required"
    found = explain_failure(source, test_id, evidence, conftests=[conftest], repo_modules={"pkg"})
    lines = found.reproduction.splitlines()
    assert found.unbound == [] and "request" not in found.reproduction, found.reproduction
    assert "parser = ArgumentParser(exit_on_error=False, **kwargs)" in lines and "kwargs = {}" in lines


def test_a_fixtures_getattr_of_request_param_is_the_cases_value():
    from tasks.evidence.python import _with_request_param

    fixture = ast.parse("def parser(request):\n    return Parser(mode=getattr(request, 'param', None))\n").body[0]
    written = _with_request_param(fixture, ast.Constant("omegaconf"))
    assert ast.unparse(written.body[0]) == "return Parser(mode='omegaconf')"


def test_a_way_out_before_the_failing_line_is_left_out_of_the_snippet():
    """bitstring's Hypothesis test opens with `if stop < start: return`: the snippet held a
    top-level `return` and did not compile, so the test was only counted. The failing line was
    reached, so that way out was not taken."""
    source = (
        "from pkg import offset\n\n\ndef test_slicing():\n    start, stop = 1, 3\n"
        "    if stop < start:\n        return\n    for step in (1, 2):\n"
        "        if step == 3:\n            continue\n        assert offset(start, stop, step) == []\n"
    )
    evidence = {"type": "AssertionError", "line": 11, "compare": {"op": "==", "left": "[0]", "right": "[]"}}
    evidence["locals"] = {"step": "1", "start": "1", "stop": "3"}
    found = explain_failure(source, "tests/t.py::test_slicing", evidence, repo_modules={"pkg"})
    assert found.unbound == [] and "return" not in found.reproduction and "continue" not in found.reproduction
    assert found.reproduction.splitlines()[-1] == "assert offset(start, stop, step) == []", found.reproduction


def test_a_patch_decorator_starts_its_patch_and_binds_the_mock_it_passes():
    """pymdown-extensions' retry tests: `@patch('urllib.request.urlopen')` passes `mock_urlopen`,
    which the snippet left unbound, so no retry case was shown. The nearest decorator fills the
    first parameter; one given its replacement passes none."""
    source = (
        "import unittest\nfrom unittest.mock import patch\nfrom pkg import fetch\n\n\nclass T(unittest.TestCase):\n"
        "    @patch('pkg.sleep')\n    @patch('pkg.LIMIT', 3)\n    @patch('urllib.request.urlopen')\n"
        "    def test_retry(self, mock_urlopen, mock_sleep):\n        mock_urlopen.side_effect = [OSError(), b'ok']\n"
        "        self.assertEqual(fetch('http://x'), b'ok')\n"
    )
    evidence = {"type": "OSError", "line": 12, "message": "OSError"}
    found = explain_failure(source, "tests/test_t.py::T::test_retry", evidence, repo_modules={"pkg"})
    lines = found.reproduction.splitlines()
    assert found.unbound == [], found.reproduction
    assert lines.index("mock_urlopen = patch('urllib.request.urlopen').start()") < lines.index(
        "mock_urlopen.side_effect = [OSError(), b'ok']"
    )
    assert "patch('pkg.LIMIT', 3).start()" in lines and "from unittest.mock import patch" in lines


def test_a_cleanup_the_set_up_registers_is_left_out_of_the_snippet():
    """mistletoe's renderer tests: setUp calls `self.addCleanup(renderer.__exit__, None, None,
    None)`; `self` stayed in the snippet, unbound, and the statement showed no example."""
    source = (
        "import unittest\nfrom pkg import Renderer\n\n\nclass T(unittest.TestCase):\n    def setUp(self):\n"
        "        self.renderer = Renderer()\n        self.renderer.__enter__()\n"
        "        self.addCleanup(self.renderer.__exit__, None, None, None)\n\n"
        "    def test_break(self):\n        self.assertEqual(self.renderer.render('---'), '<hr>')\n"
    )
    evidence = {"type": "AssertionError", "line": 12, "message": "'' != '<hr>'"}
    found = explain_failure(source, "tests/test_t.py::T::test_break", evidence, repo_modules={"pkg"})
    assert found.unbound == [] and "addCleanup" not in found.reproduction, found.reproduction
    assert "renderer.__enter__()" in found.reproduction.splitlines()


def test_a_set_up_attribute_named_like_a_local_of_the_test_gets_its_own_name():
    """pymdown-extensions' tabbed tests bind `md = '=== ""...'` while setUp made `self.md`, the
    Markdown instance the helper converts with: as one name `md`, the helper called `.convert`
    on the test's text (AttributeError on both states), and the statement showed no example."""
    source = (
        "import unittest\nfrom pkg import Markdown\n\n\nclass T(unittest.TestCase):\n    def setUp(self):\n"
        "        self.md = Markdown()\n\n    def check(self, text, expected):\n"
        "        self.assertEqual(self.md.convert(text), expected)\n\n"
        "    def test_empty_title(self):\n        md = '=== \"\"'\n        self.check(md, '<div></div>')\n"
    )
    evidence = {"type": "IndexError", "line": 14, "message": "no such group"}
    found = explain_failure(source, "tests/test_t.py::T::test_empty_title", evidence, repo_modules={"pkg"})
    lines = found.reproduction.splitlines()
    assert lines[-3:] == ["md_ = Markdown()", "md = '=== \"\"'", "assert md_.convert(md) == '<div></div>'"], lines


def test_the_test_modules_frame_file_is_its_path():
    """configupdater: `filepath = inspect.getfile(inspect.currentframe())` named the snippet's own
    frame, so the data file beside the test module was not found on either state."""
    source = (
        "import inspect\nimport os.path\nfrom pkg import read\n\n"
        "filepath = inspect.getfile(inspect.currentframe())\nfiledir = os.path.dirname(os.path.abspath(filepath))\n\n\n"
        "def test_read():\n    assert read(os.path.join(filedir, 'setup.cfg')) == 9\n"
    )
    evidence = {"type": "AssertionError", "line": 10, "compare": {"op": "==", "left": "12", "right": "9"}}
    found = explain_failure(source, "tests/test_cfg.py::test_read", evidence, repo_modules={"pkg"})
    lines = found.reproduction.splitlines()
    assert "filepath = __file__" in lines and "currentframe" not in found.reproduction, found.reproduction
    assert lines.index("__file__ = os.path.abspath('tests/test_cfg.py')") < lines.index("filepath = __file__")


def test_what_a_class_autouse_fixture_sets_on_self_is_set_up_in_the_snippet():
    """jaraco/path's tests: the class's `@pytest.fixture(autouse=True) def testing_structure(self,
    tmp_path)` makes `self.root`; `self` stayed unbound and no statement showed an example."""
    source = (
        "import pytest\nfrom pkg import Path\n\n\nclass TestScratch:\n    @pytest.fixture(autouse=True)\n"
        "    def testing_structure(self, tmp_path):\n        self.root = Path(tmp_path)\n        yield\n\n"
        "    def test_home(self):\n        assert self.root.home() == self.root / 'h'\n"
    )
    evidence = {"type": "AttributeError", "line": 12, "message": "'Path' object has no attribute 'home'"}
    found = explain_failure(source, "tests/test_p.py::TestScratch::test_home", evidence, repo_modules={"pkg"})
    lines = found.reproduction.splitlines()
    assert found.unbound == [], found.reproduction
    assert lines[-3:] == [
        "tmp_path = pathlib.Path(tempfile.mkdtemp())",
        "root = Path(tmp_path)",
        "assert root.home() == root / 'h'",
    ]


def test_a_set_up_that_raises_is_stated_from_the_tests_first_use_of_it():
    """pymdown-extensions: setUp builds the Markdown with a config key the buggy state lacks, so
    the KeyError's line is setUp's; the test had no failing statement and got no snippet."""
    source = (
        "import unittest\nfrom pkg import Markdown\n\n\nclass T(unittest.TestCase):\n    def setUp(self):\n"
        "        self.md = Markdown(configs={'x': CONFIGS['b']})\n\n"
        "    def test_custom(self):\n        self.assertEqual(self.md.convert('hi'), '<p>hi</p>')\n"
    )
    evidence = {"type": "KeyError", "line": 7, "message": "'b'"}
    found = explain_failure(source, "tests/test_p.py::T::test_custom", evidence, repo_modules={"pkg"})
    assert found.reproduction.splitlines()[-2:] == [
        "md = Markdown(configs={'x': CONFIGS['b']})",
        "assert md.convert('hi') == '<p>hi</p>'",
    ], found.reproduction


def test_a_test_case_handed_to_a_helper_is_a_plain_test_case():
    """yamllint's CLI tests: `with RunContext(self) as cm:` hands the TestCase to a helper that
    calls `case.assertRaises(SystemExit)`; `self` stayed unbound and no statement showed an example."""
    source = (
        "import unittest\nfrom pkg import cli\n\n\nclass RunContext:\n    def __init__(self, case):\n"
        "        self.ctx = case.assertRaises(SystemExit)\n\n    def __enter__(self):\n        self.ctx.__enter__()\n"
        "        return self\n\n    def __exit__(self, *exc_info):\n        self.code = self.ctx.exception.code\n"
        "        return self.ctx.__exit__(*exc_info)\n\n\nclass CLITest(unittest.TestCase):\n"
        "    def test_bad_config(self):\n        with RunContext(self) as cm:\n            cli.run(('-d', 'x'))\n"
        "        self.assertEqual(cm.code, -1)\n"
    )
    evidence = {
        "type": "AssertionError",
        "line": 22,
        "message": "1 != -1",
        "compare": {"op": "==", "left": "1", "right": "-1"},
    }
    found = explain_failure(source, "tests/test_cli.py::CLITest::test_bad_config", evidence, repo_modules={"pkg"})
    lines = found.reproduction.splitlines()
    assert found.unbound == [] and "import unittest" in lines, found.reproduction
    assert lines[-4:] == [
        "case = unittest.TestCase()",
        "with RunContext(case) as cm:",
        "    cli.run(('-d', 'x'))",
        "assert cm.code == -1",
    ]
    assert "        self.ctx = case.assertRaises(SystemExit)" in lines  # the helper's own `self` kept


def test_caplog_is_a_handler_on_the_root_logger_in_the_snippet(tmp_path):
    """A test reading `caplog.text` after `with caplog.at_level(...)`: `caplog` stayed unbound
    and no statement showed an example. The snippet collects the records itself and runs."""
    source = (
        "import logging\nfrom pkg import run\n\n\ndef test_warns(caplog):\n"
        "    with caplog.at_level(logging.INFO, logger='pkg'):\n        run('x')\n"
        "    assert caplog.record_tuples == [('pkg', logging.INFO, 'ran x')]\n    assert 'ran x' in caplog.text\n"
    )
    evidence = {"type": "AssertionError", "line": 8, "compare": {"op": "==", "left": "[]", "right": "[...]"}}
    found = explain_failure(source, "tests/test_log.py::test_warns", evidence, repo_modules={"pkg"})
    assert found.unbound == [] and "caplog" not in found.reproduction, found.reproduction
    (tmp_path / "pkg").mkdir()
    logged = "import logging\n\ndef run(x):\n    logging.getLogger('pkg').info('ran %s', x)\n"
    for body, passes in ((logged, True), ("def run(x):\n    pass\n", False)):
        (tmp_path / "pkg" / "__init__.py").write_text(body)
        run = subprocess.run(["python", "-c", found.reproduction], cwd=tmp_path, capture_output=True, text=True)
        assert (run.returncode == 0) == passes, run.stderr


def test_a_case_handed_to_its_fixture_builds_the_fixture():
    """`@pytest.mark.parametrize('parser', [True], indirect=True)`: the case is the fixture's
    `request.param`, not the test's `parser`; the snippet called `.parse` on `True`."""
    source = (
        "import pytest\nfrom pkg import Parser\n\n\n@pytest.fixture\ndef parser(request):\n"
        "    return Parser(strict=request.param)\n\n\n@pytest.mark.parametrize('parser', [True], indirect=True)\n"
        "def test_strict(parser):\n    assert parser.parse('x') == 1\n"
    )
    evidence = {"type": "AssertionError", "line": 12, "params": {"parser": "True"}}
    found = explain_failure(source, "tests/test_p.py::test_strict[True]", evidence, repo_modules={"pkg"})
    assert found.reproduction.splitlines()[-2:] == ["parser = Parser(strict=True)", "assert parser.parse('x') == 1"]


def test_recwarn_records_every_warning_in_the_snippet(tmp_path):
    source = "from pkg import run\n\n\ndef test_w(recwarn):\n    run('x')\n    assert len(recwarn) == 1\n"
    evidence = {"type": "AssertionError", "line": 6, "compare": {"op": "==", "left": "0", "right": "1"}}
    found = explain_failure(source, "tests/test_w.py::test_w", evidence, repo_modules={"pkg"})
    assert found.unbound == [], found.reproduction
    (tmp_path / "pkg.py").write_text("import warnings\n\ndef run(x):\n    warnings.warn('old', DeprecationWarning)\n")
    run = subprocess.run(["python", "-c", found.reproduction], cwd=tmp_path, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    (tmp_path / "pkg.py").write_text("def run(x):\n    pass\n")
    run = subprocess.run(["python", "-c", found.reproduction], cwd=tmp_path, capture_output=True, text=True)
    assert run.returncode == 1 and "AssertionError" in run.stderr


def test_a_parameterized_expand_case_is_its_function_with_the_cases_values():
    """dateparser's tests are `@parameterized.expand([...])` cases named `<function>_<index>_<first
    value>`: no function had that name, so every such test had no evidence and went unstated."""
    source = (
        "import unittest\nfrom parameterized import parameterized, param\nfrom pkg import parse\n\n\n"
        "class T(unittest.TestCase):\n    @parameterized.expand([\n"
        "        param('11/12/2020', languages=['en'], expected='2020-11-12'),\n"
        "        param('11/12/2020', languages=['es'], expected='2020-12-11'),\n    ])\n"
        "    def test_order(self, date_string, languages, expected):\n"
        "        self.assertEqual(expected, parse(date_string, languages=languages))\n\n"
        "    @parameterized.expand([('1 decade', 10), ('2 decades', 20)])\n"
        "    def test_years(self, text, years):\n        self.assertEqual(years, parse(text))\n"
    )
    evidence = {"type": "AssertionError", "line": 12, "message": "'2020-12-11' != '2020-11-12'"}
    found = explain_failure(source, "tests/test_p.py::T::test_order_1_11_12_2020", evidence, repo_modules={"pkg"})
    assert found.reproduction.splitlines()[-1] == "assert '2020-12-11' == parse('11/12/2020', languages=['es'])"
    assert found.params == {"date_string": "'11/12/2020'", "languages": "['es']", "expected": "'2020-12-11'"}
    evidence = {"type": "AssertionError", "line": 16, "message": "10 != 20"}
    found = explain_failure(source, "tests/test_p.py::T::test_years_1__2_decades", evidence, repo_modules={"pkg"})
    assert found.reproduction.splitlines()[-1] == "assert 20 == parse('2 decades')"


def test_a_function_case_makes_its_if_always_true_and_a_message_naming_the_test_goes():
    """deepdiff: `if deserializer:` with the case's lambda read `if lambda x: ...:`, and the
    assert's message f'test_json_dumps_and_loads test #{idx} failed' put the test's name in the text."""
    source = (
        "import pytest\nfrom pkg import dumps, loads\n\n\n"
        "@pytest.mark.parametrize('idx, value, deserializer', [(10, b'x', lambda x: x.encode())])\n"
        "def test_round(idx, value, deserializer):\n    back = loads(dumps(value))\n    if deserializer:\n"
        "        back = deserializer(back)\n    assert value == back, f'test_round test #{idx} failed'\n"
    )
    params = {"idx": "10", "value": "b'x'", "deserializer": "<function <lambda>>"}
    evidence = {"type": "TypeError", "line": 7, "message": "cannot dump", "params": params, "indices": {"idx": 0}}
    found = explain_failure(source, "tests/test_r.py::test_round[10-x-<lambda>]", evidence, repo_modules={"pkg"})
    assert "if lambda" not in str(found.rest) and "test_round" not in str(found.rest), found.rest
    assert "assert b'x' == back" in str(found.rest), found.rest


def test_what_a_decorator_registers_on_an_object_the_snippet_uses_comes_with_it():
    """typer's tests invoke the module's `app`, whose commands `@app.command()` registers: no
    line names them, so the snippet's app had none ("Could not get a command for this Typer
    instance" on both states) and every block was dropped. A fixture's decorator is no such."""
    source = (
        "import pytest\nimport typer\nfrom typer.testing import CliRunner\n\napp = typer.Typer()\n\n\n"
        "@app.command()\ndef hello(names: list[str] = typer.Argument(['World'])) -> None:\n"
        "    for name in names:\n        print(f'Hello {name}!')\n\n\n"
        "@pytest.fixture\ndef unused():\n    return 1\n\n\n"
        "runner = CliRunner()\n\n\ndef test_empty():\n    result = runner.invoke(app, ['hello'])\n"
        "    assert 'Hello World!' in result.output\n"
    )
    evidence = {"type": "AssertionError", "line": 24, "compare": {"op": "in", "left": "'Hello World!'", "right": "''"}}
    found = explain_failure(source, "tests/test_t.py::test_empty", evidence, repo_modules={"typer"})
    lines = found.reproduction.splitlines()
    assert lines.index("@app.command()") > lines.index("app = typer.Typer()"), found.reproduction
    assert (
        "def hello(names: list[str]=typer.Argument(['World'])) -> None:" in lines and "unused" not in found.reproduction
    )


def test_a_conftests_autouse_fixture_that_moves_into_the_temporary_folder_moves_the_snippet_too():
    """dynaconf's conftest runs every test in its `tmpdir` (`with tmpdir.as_cwd(): yield`): the
    test writes `settings.toml` there and loads it by a relative name, which the snippet, run from
    the checkout, did not find; its block was dropped and the case went unstated."""
    conftest = (
        "import pytest\n\n\n@pytest.fixture(autouse=True)\ndef go_to_tmpdir(request):\n"
        "    tmpdir = request.getfixturevalue('tmpdir')\n    with tmpdir.as_cwd():\n        yield\n"
    )
    source = (
        "from pkg import Settings, write\n\n\ndef test_fresh(tmpdir):\n"
        "    write(str(tmpdir.join('settings.toml')), {'a': 1})\n"
        "    assert Settings('settings.toml').get('a') == 1\n"
    )
    evidence = {"type": "AssertionError", "line": 6, "compare": {"op": "==", "left": "None", "right": "1"}}
    found = explain_failure(source, "tests/test_s.py::test_fresh", evidence, [conftest], repo_modules={"pkg"})
    lines = found.reproduction.splitlines()
    assert lines.index("os.chdir(tmpdir)") == lines.index("tmpdir = py.path.local(tempfile.mkdtemp())") + 1
    plain = explain_failure(source, "tests/test_s.py::test_fresh", evidence, [], repo_modules={"pkg"})
    assert "chdir" not in plain.reproduction
    # a test that does not ask for the folder uses no file in it: its snippet stays where it is
    merged = "from pkg import merge\n\n\ndef test_merge():\n    assert merge({}, {'a': 1}) == {'a': 1}\n"
    evidence = {"type": "AssertionError", "line": 5, "compare": {"op": "==", "left": "{}", "right": "{'a': 1}"}}
    found = explain_failure(merged, "tests/test_m.py::test_merge", evidence, [conftest], repo_modules={"pkg"})
    assert "chdir" not in found.reproduction and "tmpdir" not in found.reproduction, found.reproduction
