"""The statement's reproductions run on both states in the Docker sandbox (tasks.reproduction).

One statement holds a block of each kind; its check runs once per module (two container runs).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from environment import detect_recipe, make_sandbox
from llm.client import LLMClient
from records import FailureEvidence, LayerResult, Task
from sandbox import Limits, make_backend
from tasks.generate import Generator
from tasks.reproduction import check_reproductions, mark_held_tests, python_blocks
from tasks.strategy import SEED_PROMPTS, Strategy, StrategyType
from tasks.validate import Validator
from tests.fitness_fixtures import candidate_for, corpus_dir
from tests.sandbox_fixtures import calc_task, require_docker

pytestmark = pytest.mark.docker
F = "```python\n"
KEPT = "from calc import add\nassert add(2, 3) == 5\n"
REST = "assert add(0, 0) == 0\n"
SAME_SETUP = "assert add(3, 3) == 6\n"  # runs after KEPT's lines but its last, which import `add`
PASSES = "from calc import sub\nassert sub(5, 3) == 2\n"
BROKEN = "try:\n    add(1, 2)\n"
NETWORK = "import urllib.request\nurllib.request.urlopen('http://example.com', timeout=3)\n"
LOOP = "while True:\n    pass\n"
SETUP = "from calc import add\nctx = None\nctx.close()\nassert add(2, 3) == 5\n"
STATEMENT = (
    f"add gives a wrong sum\n\nSteps to reproduce:\n\n{F}{KEPT}```\n\n"
    "On the current code `add(2, 3)` is `-1`; it should be `5`.\n\n"
    f"Once that works, the rest of the test must hold as well:\n\n{F}{REST}```\n\n"
    f"It also fails with the same setup as above:\n\n{F}{SAME_SETUP}```\n\nOn the current code the check fails.\n\n"
    f"Subtraction:\n\n{F}{PASSES}```\n\nOn the current code it raises `ValueError`.\n\n"
    f"Broken:\n\n{F}{BROKEN}```\n\n"
    f"Network:\n\n{F}{NETWORK}```\n\n"
    f"Loop:\n\n{F}{LOOP}```\n\n"
    f"Setup:\n\n{F}{SETUP}```\n\nOn the current code the check fails.\n\n"
    f"Again:\n\n{F}{KEPT}```\n\n"
    "The same check fails for other inputs:\n"
    "- `add(1, 1)` is `0`; expected `2`\n"
    "- `add(2, 2)` is `5`; expected `4`\n"
    "- `sub(1, 0)` raises `TypeError`\n"
    "- `mul(2, 3)` is `5`; expected `6`\n\n"
    "Expected behaviour: `add(2, 3)` returns `5`.\n"
)
F2P = "tests/test_calc.py::test_add"


def calc_statement_task(root: Path) -> tuple[Task, Path]:
    repo, sha, bug, gold = calc_task(root)
    evidence = FailureEvidence(
        F2P, kind="compare", call="add(2, 3)", op="==", observed="-1", expected="5", reproduction=KEPT
    )
    task = Task(
        "calc-1", "calc", sha, gold, "", STATEMENT, bug, "BUG_FIX", "s", FAIL_TO_PASS=[F2P], repo_path=str(repo)
    )
    task.record("functional", LayerResult(True, 1.0, "ok", details={"failures": {F2P: evidence.to_dict()}}))
    return task, repo


@pytest.fixture(scope="module")
def backend(tmp_path_factory):
    require_docker()
    b = make_backend(
        "docker",
        limits=Limits(timeout_s=90, memory_mb=512, pids=64),
        cache_dir=tmp_path_factory.mktemp("cache"),
        log=lambda m: None,
        recipe_for=detect_recipe,
    )
    yield b
    b.close()


@pytest.fixture(scope="module")
def checked(backend, tmp_path_factory):
    task, repo = calc_statement_task(tmp_path_factory.mktemp("calc") / "repo")
    report = check_reproductions(task, backend, repo, timeout_s=4)
    return task, report, repo


def check_of(report, code: str):
    return next(c for c in report.checks if c.code == code)


def shown(task: Task) -> list[str]:
    return [b.code for b in python_blocks(task.problem_statement)]


def test_a_block_that_fails_as_stated_is_kept(checked):
    task, report, _ = checked
    check = check_of(report, KEPT)
    assert check.verdict == "kept" and check.claim == "the final check sees -1"
    assert "compares -1 with 5" in check.buggy and check.fixed == "ran without an exception"
    assert shown(task)[0] == KEPT and "is `-1`; it should be `5`" in task.problem_statement


def test_the_rest_of_a_test_runs_after_its_block(checked):
    task, report, _ = checked
    assert check_of(report, REST).verdict == "kept" and REST in shown(task)


def test_a_block_on_the_same_setup_as_above_runs_after_that_setup(checked):
    task, report, _ = checked  # alone, `add` would be unbound on both states: dropped
    check = check_of(report, SAME_SETUP)
    assert check.verdict == "kept" and check.claim == "fails (no exception or value stated)"
    assert "compares 0 with 6" in check.buggy and SAME_SETUP in shown(task)


def test_a_block_that_passes_on_the_buggy_state_is_dropped_with_its_claim(checked):
    task, report, _ = checked
    check = check_of(report, PASSES)
    assert check.verdict == "dropped" and "on the buggy state it ran without an exception" in check.reason
    assert PASSES not in shown(task)
    assert "`ValueError`" not in task.problem_statement and "Subtraction:" not in task.problem_statement


def test_a_block_with_a_syntax_error_is_dropped_unrun(checked):
    task, report, _ = checked
    check = check_of(report, BROKEN)
    assert check.verdict == "dropped" and check.reason.startswith("does not parse") and not check.buggy
    assert "try:" not in task.problem_statement


def test_network_and_endless_loops_are_bounded_and_dropped(checked):
    task, report, _ = checked
    network, loop = check_of(report, NETWORK), check_of(report, LOOP)
    assert network.verdict == "dropped" and "on the fixed state it raised URLError" in network.reason
    assert loop.verdict == "dropped" and "did not finish within 4 s" in loop.fixed
    assert "urlopen" not in task.problem_statement and "while True" not in task.problem_statement


def test_a_crashing_setup_line_is_left_out(checked):
    task, report, _ = checked
    check = check_of(report, SETUP)
    assert check.verdict == "rewritten" and "AttributeError" in check.fixed
    assert check.shown == "from calc import add\nctx = None\nassert add(2, 3) == 5\n"
    assert "ctx.close()" not in task.problem_statement and check.shown in shown(task)


def test_a_call_in_the_prose_is_kept_only_when_the_current_code_answers_as_stated(checked):
    task, report, _ = checked
    inline = {c.code: c for c in report.checks if c.kind == "inline"}
    # the outcome sentence after the first block, the list of cases; the expected behaviour is no claim
    assert set(inline) == {"add(2, 3)", "add(1, 1)", "add(2, 2)", "sub(1, 0)", "mul(2, 3)"}
    assert inline["add(2, 3)"].verdict == "kept" and inline["add(2, 3)"].fixed == "ran without an exception"
    assert inline["add(1, 1)"].verdict == "kept" and "compares 0 with 2" in inline["add(1, 1)"].buggy
    assert inline["add(2, 2)"].verdict == "dropped" and "`add(2, 2)` is `5`" not in task.problem_statement
    assert inline["sub(1, 0)"].verdict == "dropped" and "on the buggy state it ran" in inline["sub(1, 0)"].reason
    assert "`sub(1, 0)`" not in task.problem_statement
    assert inline["mul(2, 3)"].reason == "not run: it reads names no block binds (mul)"
    assert "- `add(1, 1)` is `0`; expected `2`\n" in task.problem_statement
    assert "Expected behaviour: `add(2, 3)` returns `5`." in task.problem_statement


def test_a_repeated_block_is_dropped_and_the_record_survives_json(checked):
    task, report, _ = checked
    blocks = [c for c in report.checks if c.kind == "block"]
    assert [c.verdict for c in blocks].count("kept") == 3 and [c.verdict for c in blocks].count("dropped") == 5
    assert blocks[-1].reason == "repeats block 1" and shown(task).count(KEPT) == 1
    task.reproduction = report
    again = Task.from_dict(task.to_dict())
    assert again.reproduction == report and report.seconds > 0


def test_the_same_task_gives_the_same_statement(checked, backend, tmp_path):
    task, report, _ = checked
    again, repo = calc_statement_task(tmp_path / "repo")
    second = check_reproductions(again, backend, repo, timeout_s=4)
    assert again.problem_statement == task.problem_statement
    assert [(c.verdict, c.reason, c.buggy, c.fixed) for c in second.checks] == [
        (c.verdict, c.reason, c.buggy, c.fixed) for c in report.checks
    ]


def test_generate_checks_the_writers_blocks(tmp_path_factory):
    require_docker()
    root = corpus_dir(tmp_path_factory)
    llm = LLMClient()
    backend = make_sandbox("docker", limits=Limits(timeout_s=120), log=lambda m: None)
    try:
        generator = Generator(llm, Validator(backend=backend, llm=llm, reruns=1), check_reproductions=True)
        strategy = Strategy(StrategyType.BUG_FIX, SEED_PROMPTS[StrategyType.BUG_FIX][-1] + " Never reveal the fix.")
        task = generator.generate(candidate_for(root, "Fix binary_search missing"), strategy)
    finally:
        backend.close()
    assert task.passed, task.failed_layer()
    report = task.reproduction
    assert report is not None and report.checks and not report.note
    kept = [c.shown or c.code for c in report.checks if c.verdict != "dropped" and c.kind == "block"]
    assert sorted(shown(task)) == sorted(kept)
    assert all(c.buggy and c.fixed == "ran without an exception" for c in report.checks if c.verdict != "dropped")


def test_a_block_the_check_could_not_run_is_dropped_and_the_record_says_why(backend, tmp_path):
    repo, sha, _, gold = calc_task(tmp_path / "repo")
    broken = "--- a/calc.py\n+++ b/calc.py\n@@ -1,1 +1,1 @@\n-no such line\n+def add(a, b): ...\n"
    task = Task("calc-2", "calc", sha, gold, "", f"T\n\n{F}{PASSES}```\n", broken, "BUG_FIX", "s", repo_path=str(repo))
    report = check_reproductions(task, backend, repo, timeout_s=4)
    assert report.note.startswith("not executed:")
    assert [c.verdict for c in report.checks] == ["dropped"] and report.checks[0].reason == report.note
    assert PASSES not in task.problem_statement


def test_the_projects_pytest_settings_do_not_reach_the_probe(backend, tmp_path):
    """bidict's addopts name a hypothesis profile its tests' conftest registers: the probe,
    outside the tests, ended in an INTERNALERROR and every block was dropped unrun. Settings
    that would not collect the probe (`python_functions`) do not reach it either."""
    extra = {
        "pytest.ini": "[pytest]\naddopts = --calc-level=2\npython_functions = check_*\n",
        "tests/conftest.py": "def pytest_addoption(parser):\n    parser.addoption('--calc-level')\n",
    }
    repo, sha, bug, gold = calc_task(tmp_path / "repo", extra=extra)
    statement = f"T\n\n{F}{KEPT}```\n\nOn the current code `add(2, 3)` is `-1`; it should be `5`.\n"
    task = Task("calc-3", "calc", sha, gold, "", statement, bug, "BUG_FIX", "s", repo_path=str(repo))
    report = check_reproductions(task, backend, repo, timeout_s=4)
    assert not report.note and [c.verdict for c in report.checks if c.kind == "block"] == ["kept"]
    assert KEPT in shown(task)


def test_a_block_runs_as_a_script_at_the_checkouts_root(backend, tmp_path):
    repo, sha, bug, gold = calc_task(tmp_path / "repo")
    code = (
        "import os\nfrom calc import add\nassert os.path.isfile(os.path.join(os.path.dirname(__file__), 'calc.py'))\n"
    )
    code += "assert add(2, 3) == 5\n"
    task = Task("calc-3", "calc", sha, gold, "", f"T\n\n{F}{code}```\n", bug, "BUG_FIX", "s", repo_path=str(repo))
    report = check_reproductions(task, backend, repo, timeout_s=10)
    assert [c.verdict for c in report.checks] == ["kept"], report.checks


def test_every_kept_claim_of_a_long_statement_records_what_each_state_did(backend, tmp_path):
    """termcolor: a statement with 35 claims kept 14 prose calls with no record of what either
    state did. Each run reported the other state's side as failures too, and the report keeps
    evidence of 64 failing tests only: the last claims' records were cut."""
    repo, sha, bug, gold = calc_task(tmp_path / "repo")
    lines = "".join(f"- `add({i}, {i})` is `0`; expected `{2 * i}`\n" for i in range(1, 41))
    statement = f"T\n\n{F}{KEPT}```\n\nOn the current code `add(2, 3)` is `-1`; it should be `5`.\n\n{lines}"
    task = Task("calc-4", "calc", sha, gold, "", statement, bug, "BUG_FIX", "s", repo_path=str(repo))
    report = check_reproductions(task, backend, repo, timeout_s=10)
    kept = [c for c in report.checks if c.verdict == "kept"]
    assert len(kept) == 42, [(c.code, c.verdict, c.reason) for c in report.checks]
    assert [c.code for c in kept if not (c.buggy and c.fixed)] == []


HELPER_PATCH = (
    "diff --git a/tests/expected.py b/tests/expected.py\nnew file mode 100644\n"
    "--- /dev/null\n+++ b/tests/expected.py\n@@ -0,0 +1 @@\n+SUM = 5\n"
)
LEANS_ON_HIDDEN = "from calc import add\nfrom tests.expected import SUM\nassert add(2, 3) == SUM\n"


def test_a_block_that_leans_on_a_withheld_test_file_is_dropped_unless_the_statement_gives_it(backend, tmp_path):
    """python-json-logger: a snippet resolved `ext://tests.test_dictconfig.EXT_VAL`, a module the
    withheld tests add. It behaved in the check's tree, which held the hidden tests, and fails in
    the solver's; the check runs without them, save the files the statement gives in full."""
    repo, sha, bug, gold = calc_task(tmp_path / "repo", extra={"tests/expected.py": "SUM = 5\n"})
    claim = "On the current code `add(2, 3)` is `-1`; it should be `5`.\n"
    leaning = f"T\n\n{F}{LEANS_ON_HIDDEN}```\n\n{claim}"
    task = Task("calc-5", "calc", sha, gold, HELPER_PATCH, leaning, bug, "BUG_FIX", "s", repo_path=str(repo))
    report = check_reproductions(task, backend, repo, timeout_s=10)
    block = next(c for c in report.checks if c.kind == "block")
    assert block.verdict == "dropped" and "ModuleNotFoundError" in block.reason, block
    given = f"{leaning}\nThe failing tests read `tests/expected.py`; apply this:\n\n`tests/expected.py`:\n\n"
    given += "```diff\n@@ -0,0 +1 @@\n+SUM = 5\n```\n"
    task = Task("calc-6", "calc", sha, gold, HELPER_PATCH, given, bug, "BUG_FIX", "s", repo_path=str(repo))
    report = check_reproductions(task, backend, repo, timeout_s=10)
    assert [c.verdict for c in report.checks if c.kind == "block"] == ["kept"], report.checks


def test_the_same_lines_going_on_from_another_tests_setup_are_no_repeat(backend, tmp_path):
    """tenacity: two tests, each a snippet and then the same `assert ...` lines going on from it.
    The second rest was dropped as a repeat of the first, and the statement then said "1 more
    failing test is not spelled out" of a test it showed; a true repeat tells no case less."""
    repo, sha, bug, gold = calc_task(tmp_path / "repo")
    rest = "assert add(x, x) == 2 * x\n"
    statement = (
        f"T\n\n{F}from calc import add\nx = 2\nassert add(x, 3) == 5\n```\n\n"
        "On the current code `add(x, 3)` is `-1`; it should be `5`.\n\n"
        f"The snippet goes on; the following must also hold:\n\n{F}{rest}```\n\n"
        f"This one fails too:\n\n{F}from calc import add\nx = 1\nassert add(x, 3) == 4\n```\n\n"
        "On the current code `add(x, 3)` is `-2`; it should be `4`.\n\n"
        f"The snippet goes on; the following must also hold:\n\n{F}{rest}```\n\n"
        f"Once more:\n\n{F}from calc import add\nx = 1\nassert add(x, 3) == 4\n```\n\n"
        "On the current code `add(x, 3)` is `-2`; it should be `4`.\n"
    )
    task = Task("calc-7", "calc", sha, gold, "", statement, bug, "BUG_FIX", "s", repo_path=str(repo))
    report = check_reproductions(task, backend, repo, timeout_s=10)
    blocks = [c for c in report.checks if c.kind == "block"]
    assert [c.verdict for c in blocks] == ["kept", "kept", "kept", "kept", "dropped"], blocks
    assert blocks[-1].reason == "repeats block 3" and shown(task).count(rest) == 2
    assert "not spelled out" not in task.problem_statement, task.problem_statement


def test_a_repeat_does_not_count_toward_the_blocks_run(backend, tmp_path):
    """attrs 862696af: once repeats were told by what they run, they counted toward the cap of
    blocks run, and a case's own block further down was cut instead."""
    repo, sha, bug, gold = calc_task(tmp_path / "repo")
    claim = "On the current code `add(2, 3)` is `-1`; it should be `5`.\n\n"
    statement = (
        f"T\n\n{F}{KEPT}```\n\n{claim}Again:\n\n{F}{KEPT}```\n\n{claim}More:\n\n{F}{SAME_SETUP}```\n\nIt fails.\n"
    )
    task = Task("calc-8", "calc", sha, gold, "", statement, bug, "BUG_FIX", "s", repo_path=str(repo))
    report = check_reproductions(task, backend, repo, timeout_s=10, max_blocks=2)
    blocks = [c for c in report.checks if c.kind == "block"]
    assert [(c.verdict, c.reason) for c in blocks][1:] == [("dropped", "repeats block 1"), ("kept", blocks[2].reason)]


def test_a_block_going_on_with_a_test_is_part_of_it_for_the_cap(backend, tmp_path):
    """attrs 862696af: two tests' snippets went on in blocks of their own ("The snippet goes
    on"), those counted toward the cap of tests told, and the 17th test's block was cut, though
    the writer had shown only its 16 tests."""
    repo, sha, bug, gold = calc_task(tmp_path / "repo")
    statement = (
        f"T\n\n{F}from calc import add\nx = 2\nassert add(x, 3) == 5\n```\n\n"
        "On the current code `add(x, 3)` is `-1`; it should be `5`.\n\n"
        f"The snippet goes on; the following must also hold:\n\n{F}assert add(x, x) == 2 * x\n```\n\n"
        f"This one fails too:\n\n{F}from calc import add\nassert add(1, 3) == 4\n```\n\n"
        "On the current code `add(1, 3)` is `-2`; it should be `4`.\n"
    )
    task = Task("calc-9", "calc", sha, gold, "", statement, bug, "BUG_FIX", "s", repo_path=str(repo))
    report = check_reproductions(task, backend, repo, timeout_s=10, max_blocks=2)
    assert [c.verdict for c in report.checks if c.kind == "block"] == ["kept", "kept", "kept"], report.checks
    assert "add(1, 3) == 4" in task.problem_statement and "not spelled out" not in task.problem_statement


def test_a_set_the_final_check_sees_is_compared_in_the_evidences_order(backend, tmp_path):
    """apispec: the evidence gives a set sorted (`{'brian', 'freddie', 'john'}`), the snippet's
    process printed it in hash order, and a block that behaved as stated was dropped."""
    repo, sha, bug, gold = calc_task(tmp_path / "repo")
    letters = ", ".join(f"'{c}'" for c in "abcdefghijkl")
    statement = (
        f"T\n\n{F}from calc import add\nletters = set('abcdefghijkl')\n"
        "assert letters | {add(2, 3)} == letters | {5}\n```\n\n"
        f"On the current code `letters | {{add(2, 3)}}` is `{{{letters}, -1}}`; it should be `{{{letters}, 5}}`.\n"
    )
    task = Task("calc-10", "calc", sha, gold, "", statement, bug, "BUG_FIX", "s", repo_path=str(repo))
    report = check_reproductions(task, backend, repo, timeout_s=10)
    assert [(c.kind, c.verdict) for c in report.checks] == [("block", "kept"), ("inline", "kept")], report.checks


def test_a_path_in_the_tree_is_compared_relative_to_it_as_the_evidence_gives_it(backend, tmp_path):
    """tzlocal: the evidence gives `'tests/test_data/Africa/Harare'` (the runner's report leaves
    out the tree's folder); the snippet's process saw the absolute path, and the block was dropped."""
    repo, sha, bug, gold = calc_task(tmp_path / "repo")
    call = "str(add(2, 3)) + ('' if add(2, 3) == 5 else os.path.abspath('x'))"
    statement = (
        f"T\n\n{F}import os\nfrom calc import add\nassert {call} == '5'\n```\n\n"
        f"On the current code `{call}` is `'-1x'`; it should be `'5'`.\n"
    )
    task = Task("calc-11", "calc", sha, gold, "", statement, bug, "BUG_FIX", "s", repo_path=str(repo))
    report = check_reproductions(task, backend, repo, timeout_s=10)
    inline = [c for c in report.checks if c.kind == "inline"]
    assert [c.verdict for c in inline] == ["kept"], report.checks


def test_an_exception_subclassing_system_exit_is_told_by_its_own_name(backend, tmp_path):
    """docopt-ng: `DocoptExit` subclasses `SystemExit`; the snippet's process reported every such
    exit as `SystemExit`, and a block that raised `DocoptExit` as stated was dropped."""
    repo, sha, bug, gold = calc_task(tmp_path / "repo")
    statement = (
        f"T\n\n{F}from calc import add\nclass UsageExit(SystemExit):\n    pass\n"
        "if add(2, 3) != 5:\n    raise UsageExit('bad sum')\n```\n\n"
        "Right now the last line raises `UsageExit: bad sum`; it should not raise.\n"
    )
    task = Task("calc-12", "calc", sha, gold, "", statement, bug, "BUG_FIX", "s", repo_path=str(repo))
    report = check_reproductions(task, backend, repo, timeout_s=10)
    assert [c.verdict for c in report.checks if c.kind == "block"] == ["kept"], report.checks


def test_a_block_that_holds_keeps_its_lines_and_loses_its_claim_when_its_rest_fails(backend, tmp_path):
    """parsimonious c42ee4ee: a test that never ran (its module imports a new name) was claimed to
    raise the ImportError; its first lines hold on both states and the failure comes further down.
    The block and its rest stay, without the false claim; before, both went and the case was untold."""
    repo, sha, bug, gold = calc_task(tmp_path / "repo")
    claim = "On the current code it raises `ImportError`; it should run without an error."
    statement = (
        f"T\n\nThis one fails:\n\n{F}from calc import add\nassert add(0, 0) == 0\n```\n\n{claim}\n\n"
        f"The snippet goes on; the following must also hold:\n\n{F}assert add(2, 3) == 5\n```\n\n"
        f"Another:\n\n{F}from calc import add\nassert add(1, 1) == 0\n```\n\n{claim}\n"
    )
    task = Task("calc-10", "calc", sha, gold, "", statement, bug, "BUG_FIX", "s", repo_path=str(repo))
    report = check_reproductions(task, backend, repo, timeout_s=10)
    blocks = [c for c in report.checks if c.kind == "block"]
    assert [c.verdict for c in blocks] == ["kept", "kept", "dropped"], blocks
    assert blocks[0].reason.endswith("it fails in block 2")
    text = task.problem_statement
    assert text.count("ImportError") == 0 and "assert add(0, 0) == 0" in text and "assert add(2, 3) == 5" in text, text
    assert "holds on both" not in text and "add(1, 1)" not in text
    assert "the following must also hold:\n\n```python\nassert add(2, 3) == 5" in text, text


def test_a_block_using_helpers_defined_above_runs_them_and_goes_when_their_block_goes(backend, tmp_path):
    """bigtree e305dc6c: a test module's helpers are shown once; a later block that uses them runs
    with their definitions, and when the block that shows them is dropped, so is the one using them."""
    repo, sha, bug, gold = calc_task(tmp_path / "repo")
    total = "from calc import add\ndef total(a, b):\n    return add(a, b)\nassert total(2, 3) == 5\n"
    uses_total = "from calc import add\nassert total(3, 3) == 6\n"
    diff = "from calc import sub\ndef diff(a, b):\n    return sub(a, b)\nassert diff(5, 3) == 2\n"
    uses_diff = "from calc import add\nassert diff(add(1, 1), 0) == 2\n"  # would behave alone: add is wrong
    fails = "On the current code the check fails.\n\n"
    statement = (
        f"T\n\nSteps to reproduce:\n\n{F}{total}```\n\n{fails}"
        f"It also fails here, with `total` as defined above:\n\n{F}{uses_total}```\n\n{fails}"
        f"This one fails too:\n\n{F}{diff}```\n\n{fails}"
        f"Another failing case, with `diff` as defined above:\n\n{F}{uses_diff}```\n\n{fails}"
    )
    task = Task("calc-12", "calc", sha, gold, "", statement, bug, "BUG_FIX", "s", repo_path=str(repo))
    report = check_reproductions(task, backend, repo, timeout_s=10)
    verdicts = [(c.verdict, c.reason) for c in report.checks if c.kind == "block"]
    assert [v for v, _ in verdicts] == ["kept", "kept", "dropped", "dropped"], verdicts
    assert verdicts[3][1] == "continues block 3, which was dropped"
    assert uses_total in shown(task) and "`total` as defined above" in task.problem_statement
    assert "`diff` as defined above" not in task.problem_statement


def test_tests_counted_as_needing_only_an_import_are_run_and_stay_counted_only_when_they_hold(backend, tmp_path):
    """pyprobables f3b5e228: the statement counts the tests that fail only because their module
    imports a new name. Each one's own lines run unshown on both states; one that fails on its own
    is no longer counted so, but among the tests not spelled out."""
    repo, sha, bug, gold = calc_task(tmp_path / "repo")
    error = "ImportError: cannot import name 'Ratio' from 'calc' (calc.py)"
    holds = FailureEvidence(
        "tests/test_calc.py::test_sub", kind="compare", error=error, phase="collect",
        reproduction="from calc import sub\nassert sub(5, 3) == 2\n",
    )  # fmt: skip
    fails = FailureEvidence(
        "tests/test_calc.py::test_add", kind="compare", error=error, phase="collect",
        reproduction="from calc import add\nassert add(1, 1) == 2\n",
    )  # fmt: skip
    statement = (
        f"T\n\nSteps to reproduce:\n\n{F}{KEPT}```\n\nOn the current code `add(2, 3)` is `-1`; it should be `5`.\n\n"
        "2 more failing tests fail today only because `Ratio` cannot be imported from `calc`; they need nothing else."
    )
    tests = [F2P, holds.test_id, fails.test_id]
    task = Task(
        "calc-13", "calc", sha, gold, "", statement, bug, "BUG_FIX", "s", FAIL_TO_PASS=tests, repo_path=str(repo)
    )
    failures = {f.test_id: f.to_dict() for f in (holds, fails)}
    task.record("functional", LayerResult(True, 1.0, "ok", details={"failures": failures}))
    mark_held_tests(task, backend, repo, timeout_s=10)  # before the writer: what each one's lines do
    assert {f.test_id: f.held for f in task.failure_evidence()} == {holds.test_id: True, fails.test_id: False}
    report = check_reproductions(task, backend, repo, timeout_s=10)
    assert report.held == [holds.test_id]
    assert [c.kind for c in report.checks] == ["block", "inline"]  # the probes are no checks of the statement
    text = task.problem_statement
    assert "1 more failing test fails today only because `Ratio` cannot be imported from `calc`" in text, text
    assert text.endswith("1 more failing test is not spelled out here."), text
    task.reproduction = report  # as the generator records it
    again = Task.from_dict(task.to_dict()).reproduction
    assert again is not None and again.held == [holds.test_id]


def test_a_test_probed_before_the_writer_is_not_run_again_and_one_never_probed_is(backend, tmp_path):
    """`mark_held_tests` already ran a counted test's lines on both states: the check reads that
    outcome (here recorded as held, though its lines would fail) instead of running them again; a
    counted test with no recorded outcome is still run."""
    repo, sha, bug, gold = calc_task(tmp_path / "repo")
    error = "ImportError: cannot import name 'Ratio' from 'calc' (calc.py)"
    unprobed = FailureEvidence(
        "tests/test_calc.py::test_sub", kind="compare", error=error, phase="collect",
        reproduction="from calc import sub\nassert sub(5, 3) == 2\n",
    )  # fmt: skip
    recorded = FailureEvidence(
        "tests/test_calc.py::test_add_twice", kind="compare", error=error, phase="collect",
        reproduction="from calc import add\nassert add(1, 1) == 2\n", held=True,
    )  # fmt: skip
    statement = (
        f"T\n\nSteps to reproduce:\n\n{F}{KEPT}```\n\nOn the current code `add(2, 3)` is `-1`; it should be `5`.\n\n"
        "2 more failing tests fail today only because `Ratio` cannot be imported from `calc`; they need nothing else."
    )
    tests = [F2P, unprobed.test_id, recorded.test_id]
    task = Task(
        "calc-14", "calc", sha, gold, "", statement, bug, "BUG_FIX", "s", FAIL_TO_PASS=tests, repo_path=str(repo)
    )
    failures = {f.test_id: f.to_dict() for f in (unprobed, recorded)}
    task.record("functional", LayerResult(True, 1.0, "ok", details={"failures": failures}))
    report = check_reproductions(task, backend, repo, timeout_s=10)
    assert report.held == sorted([unprobed.test_id, recorded.test_id])
    assert "2 more failing tests fail today only because `Ratio`" in task.problem_statement
