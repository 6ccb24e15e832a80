"""What the reproduction check reads from a statement, without running anything (tasks.reproduction).

The execution itself is in test_reproduction_docker.py."""

from __future__ import annotations

import json
import re
from dataclasses import replace

import pytest

from evo.config import ConfigError, load_config
from llm import without_dangling_heads
from records import FailureEvidence, LayerResult, ReproductionCheck, ReproductionReport, Task
from sandbox import SandboxError
from tasks.reproduction import (
    _evidence_imports,
    check_reproductions,
    inline_claims,
    python_blocks,
    setup_variants,
    stated_claim,
)

F = "```python\n"


def task_with(statement: str, evidence: list[FailureEvidence] = ()) -> Task:
    task = Task("t-1", "r", "abc", "", "", statement, "", "BUG_FIX", "s", FAIL_TO_PASS=[e.test_id for e in evidence])
    details = {"failures": {e.test_id: e.to_dict() for e in evidence}}
    task.record("functional", LayerResult(True, 1.0, "ok", details=details))
    return task


def test_python_fences_count_and_others_do_not():
    statement = f"T\n\n{F}a = 1\n```\n\n```\nb = 2\n```\n\n```console\n$ ls\n```\n\n```pycon\n>>> c = 3\n3\n```\n"
    assert [b.code for b in python_blocks(statement)] == ["a = 1\n", "b = 2\n", "c = 3\n"]


@pytest.mark.parametrize(
    "after,expected",
    [
        ("On the current code it raises `TypeError: bad`; it should raise `ValueError`.", "raises TypeError"),
        ("On the current code the last line raises `pkg.errors.ParseError`.", "raises ParseError"),
        ("It should raise `ValueError`.", "fails (no exception or value stated)"),
        ("On the current code the block finishes without raising; it should raise `X`.", "the checked call"),
    ],
)
def test_the_claim_comes_from_the_text_after_the_block(after, expected):
    statement = f"T\n\n{F}x = f()\n```\n\n{after}\n"
    block = python_blocks(statement)[0]
    claim, _ = stated_claim(statement, block, {}, [])
    assert claim.describe().startswith(expected)


def test_an_observed_value_is_claimed_when_the_text_states_the_evidence():
    code = "from m import f\nassert f(1) == 2"
    evidence = FailureEvidence("t::a", kind="compare", call="f(1)", op="==", observed="'x'", expected="2")
    statement = f'T\n\n{F}{code}\n```\n\nOn the current code `f(1)` is `"x"`; it should be `2`.\n'
    claim, _ = stated_claim(statement, python_blocks(statement)[0], {}, [evidence])
    assert claim.observed == "'x'"
    silent = f"T\n\n{F}{code}\n```\n\nIt is wrong.\n"
    assert stated_claim(silent, python_blocks(silent)[0], {}, [evidence])[0].observed is None


def test_a_block_reading_an_earlier_blocks_names_runs_after_it():
    statement = f"T\n\n{F}from m import f\nr = f()\n```\n\nThen:\n\n{F}assert r.ok\n```\n"
    first, second = python_blocks(statement)
    first.run = first.code
    claim, run = stated_claim(statement, second, {0: first}, [])
    assert claim.continuation and claim.after == 0 and run == "from m import f\nr = f()\nassert r.ok\n"


def test_a_block_on_the_same_setup_as_above_runs_after_that_blocks_lines_but_its_last():
    statement = (
        f"T\n\n{F}from m import f\nr = f()\nassert r.ok\n```\n\nThen:\n\n{F}assert r.size == 2\n```\n\n"
        f"Also, with the same setup as above (every line through `r = f()`):\n\n{F}assert r.name == 'x'\n```\n"
    )
    first, rest, other = python_blocks(statement)
    first.run = first.code
    rest.claim, rest.run = stated_claim(statement, rest, {0: first}, [])
    # the nearest block that is no continuation gives the setup, and the block keeps its own claim
    claim, run = stated_claim(statement, other, {0: first, 1: rest}, [])
    assert not claim.continuation and claim.after == 0
    assert run == "from m import f\nr = f()\nassert r.name == 'x'\n"
    plain = statement.replace("with the same setup as above (every line through `r = f()`)", "this")
    claim, run = stated_claim(plain, python_blocks(plain)[2], {0: first}, [])
    assert claim.continuation and run == "from m import f\nr = f()\nassert r.ok\nassert r.name == 'x'\n"


def test_a_block_on_the_same_setup_through_a_named_line_runs_none_of_the_lines_after_it():
    """pydantic-settings d2fdeda9: "every line through `monkeypatch.setattr(...)`", and the check
    ran the first test's own secrets file too, so the second test's load saw two files and its
    block was dropped."""
    statement = (
        f"T\n\n{F}from m import f, load\nr = f()\nr.write('foo')\nassert load(r) == {{'foo': 1}}\n```\n\n"
        f"Also, with the same setup as above (every line through `r = f()`):\n\n"
        f"{F}r.write('token')\nassert load(r) == {{'token': 1}}\n```\n"
    )
    first, other = python_blocks(statement)
    first.run = first.code
    claim, run = stated_claim(statement, other, {0: first}, [])
    assert run == "from m import f, load\nr = f()\nr.write('token')\nassert load(r) == {'token': 1}\n", run


def test_the_rest_after_a_block_on_the_same_setup_goes_on_from_that_block():
    """argh a620f2ba: the `always_flush=True` case's rest went on from the `False` case's block (the
    one whose shown lines bind `out`), so it counted that run's flushes and was dropped."""
    statement = (
        f"T\n\n{F}from m import f\nout = f()\nout.run(False)\n```\n\nIt raises `TypeError`.\n\n"
        f"Also, with the same setup as above:\n\n{F}out.run(True)\n```\n\nIt raises `TypeError`.\n\n"
        f"Then:\n\n{F}assert out.count == 2\n```\n"
    )
    first, same, rest = python_blocks(statement)
    first.claim, first.run = stated_claim(statement, first, {}, [])
    same.claim, same.run = stated_claim(statement, same, {0: first}, [])
    claim, run = stated_claim(statement, rest, {0: first, 1: same}, [])
    assert claim.continuation and claim.after == 1
    assert run == "from m import f\nout = f()\nout.run(True)\nassert out.count == 2\n"


def test_a_block_on_the_same_setup_with_its_own_import_is_the_failure_whose_reproduction_ends_so():
    statement = (
        f"T\n\n{F}from m import f\nr = f()\nassert r.ok\n```\n\n"
        "Also, with the same setup as above (every line through `r = f()`):\n\n"
        f"{F}import os\nassert r.size == os.sep\n```\n\nIt gives 3.\n"
    )
    first, other = python_blocks(statement)
    first.run = first.code
    one = FailureEvidence(
        "t.py::test_one", kind="compare", call="r.ok", reproduction="from m import f\nr = f()\nassert r.ok"
    )
    two = FailureEvidence(
        "t.py::test_two",
        kind="compare",
        call="size_of(r)",  # no call the block shows: only its reproduction's end names it
        observed="3",
        op="==",
        reproduction="from m import f\nimport os\nr = f()\nassert r.size == os.sep",
    )
    claim, run = stated_claim(statement, other, {0: first}, [one, two])
    assert claim.after == 0 and claim.observed == "3"  # two's: its import is there, its end is the block's
    assert run == "from m import f\nr = f()\nimport os\nassert r.size == os.sep\n"


def test_a_block_using_helpers_defined_above_runs_them_after_its_imports_and_is_the_failure_they_make():
    """bigtree e305dc6c: each of 15 failing tests' snippets defined the module's 20-line check
    helpers again, and 4 tests no longer fitted the statement; a helper is now shown once."""
    helpers = (
        "def shape(t):\n    return check(t.kids)\ndef check(kids):\n    assert kids == ['b']\nclass Leaf:\n    pass\n"
    )
    first_code = f"from m import make\n{helpers}t = make('a')\nshape(t)\n"
    statement = (
        f"T\n\n{F}{first_code}```\n\nOn the current code it raises `KeyError`.\n\n"
        "It also fails here, with `shape` and `check` as defined above:\n\n"
        f"{F}from m import make\nt = make('z')\nshape(t)\n```\n\n"
        "On the current code it raises `ValueError`.\n"
    )
    first, second = python_blocks(statement)
    first.run = first.code
    reproduction = f"from m import make\n{helpers}t = make('z')\nshape(t)"
    other = FailureEvidence(
        "t.py::test_z", kind="raises", call="make('z')", error="ValueError: z", reproduction=reproduction
    )
    claim, run = stated_claim(statement, second, {0: first}, [other])
    # `check` is read by `shape` only; `Leaf` by nothing: it is left out
    assert not claim.continuation and claim.after == 0 and claim.error == "ValueError"
    assert run == (
        "from m import make\ndef shape(t):\n    return check(t.kids)\ndef check(kids):\n    assert kids == ['b']\n"
        "from m import make\nt = make('z')\nshape(t)\n"
    )
    plain = statement.replace(", with `shape` and `check` as defined above", "")
    claim, _ = stated_claim(plain, python_blocks(plain)[1], {0: first}, [other])
    assert claim.continuation  # without the heading it goes on from the block that binds what it reads


def test_a_block_showing_a_snippet_with_a_primed_way_is_tried_that_way_too_and_says_why_it_changed():
    from tasks.reproduction import _primed_variant, _verdict

    code = "from m import f\nassert not f(2)\n"
    primed = "from m import f\nf(1)\nassert not f(2)"
    f = FailureEvidence("t.py::test_f", kind="truthy", call="f(2)", reproduction=code.strip(), primed=primed)
    statement = f"T\n\n{F}{code}```\n\nOn the current code the check fails.\n"
    block = python_blocks(statement)[0]
    block.claim, block.run = stated_claim(statement, block, {}, [f])
    assert _primed_variant(block, [f]) == primed + "\n"
    assert _primed_variant(block, [replace(f, primed=None)]) == ""
    block.variants = [code, primed + "\n"]
    results = {"b0v0": {"buggy": ("failed", ""), "fixed": ("passed", "")}}
    results["b0v1"] = {"buggy": ("passed", ""), "fixed": ("passed", "")}
    check = _verdict(block, 0, results)
    assert check.verdict == "rewritten" and check.shown == primed + "\n"
    assert check.reason.startswith("the calls the test makes first on the checked function put back")


def test_variants_leave_out_one_setup_line_never_one_a_later_line_reads():
    code = "import m\nctx = None\nctx.close()\nunused = m.g()\nassert m.f() == 1\n"
    assert setup_variants(code) == [
        code,
        "import m\nctx = None\nunused = m.g()\nassert m.f() == 1\n",
        "import m\nctx = None\nctx.close()\nassert m.f() == 1\n",
    ]


def test_a_call_of_the_blocks_own_check_helper_is_never_left_out_as_setup():
    """nameparser 19e18930: `m(hn.initials(), 'J. A. K.', hn)` calls the test's check helper; a
    rewrite left it out as if it were a setup line, and the statement lost that requirement."""
    code = "def m(a, b):\n    assert a == b\nlog()\nm(f(), 1)\nassert g() == 2\n"
    assert setup_variants(code) == [code, "def m(a, b):\n    assert a == b\nm(f(), 1)\nassert g() == 2\n"]


class BuildFails:
    """A backend that may run snippets, on a snapshot whose environment cannot be built."""

    runs_untrusted = True

    def run_tree(self, *args, **kwargs):
        raise SandboxError("installing the snapshot failed after 1 attempt")


BLOCKS_STATEMENT = (
    f"T\n\nA short snippet follows. It breaks.\n\nSteps:\n\n{F}x = 1\nassert x == 2\n```\n\n"
    f"On the current code it fails.\n\n{F}try:\n    x\n```\n\n"
    "Expected behaviour: The snippet should pass.\nActual behaviour: The snippet fails.\n\nSee `x`."
)


def test_blocks_the_task_gave_no_run_for_are_dropped_and_the_record_says_why(tmp_path):
    task = task_with(BLOCKS_STATEMENT)
    report = check_reproductions(task, BuildFails(), tmp_path / "not-a-checkout")
    assert report.note.startswith("not executed: ")
    assert [c.verdict for c in report.checks] == ["dropped", "dropped"]  # nothing observed, nothing claimed
    assert report.checks[0].reason == report.note
    assert report.checks[1].reason.startswith("does not parse")
    # no block is left, so no sentence speaks of one
    # and the failing cases they stated are counted, not lost
    assert task.problem_statement == "T\n\nIt breaks.\n\n2 failing tests are not spelled out here.\n\nSee `x`."


def test_where_no_backend_may_run_a_snippet_the_blocks_stay_marked_not_executed():
    """The setup, not the task, is at fault (no backend, or the local one as root)."""
    task = task_with(BLOCKS_STATEMENT)
    report = check_reproductions(task, None, "/nonexistent")
    assert report.note == "not executed: no sandbox backend"
    assert [c.verdict for c in report.checks] == ["kept", "dropped"]
    assert report.checks[0].reason == "not executed: no sandbox backend"
    assert "x = 1\nassert x == 2" in task.problem_statement


def test_a_statement_without_blocks_is_left_as_is():
    task = task_with("Title\n\nNothing to run: `f(1)` is wrong.")
    report = check_reproductions(task, None, "/nonexistent")
    assert report.checks == [] and report.note == "the statement shows no Python block"
    assert task.problem_statement == "Title\n\nNothing to run: `f(1)` is wrong."


def test_the_record_round_trips_and_old_task_files_still_load():
    task = task_with("T")
    task.reproduction = ReproductionReport(
        [ReproductionCheck("a = 1\n", "dropped", "why", "raises X", "ran", "ran")], seconds=1.5
    )
    data = json.loads(json.dumps(task.to_dict()))
    assert Task.from_dict(data).reproduction == task.reproduction
    del data["reproduction"]
    assert Task.from_dict(data).reproduction is None


def test_the_config_switch_is_on_by_default_and_validated():
    assert load_config().fitness.check_reproductions is True
    assert load_config(overrides=["fitness.check_reproductions=false"]).fitness.check_reproductions is False
    with pytest.raises(ConfigError, match="check_reproductions"):
        load_config(overrides=["fitness.check_reproductions=maybe"])


def test_the_statements_bench_counts_the_checks_per_repository():
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "bench" / "statements.py"
    spec = importlib.util.spec_from_file_location("bench_statements_repro", path)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    checked = task_with(f"T\n\n{F}b = 2\n```\n\nAnd:\n\n{F}extra = 3\n```\n")
    checked.reproduction = ReproductionReport(
        [
            ReproductionCheck("a = 1\n", "rewritten", "", "fails", "raised X", "ran", shown="b = 2\n"),
            ReproductionCheck("c = 1\n", "dropped", "why", "fails", "ran", "ran"),
            ReproductionCheck("try:\n", "dropped", "does not parse"),
            ReproductionCheck("f(1)", "kept", "not run: it reads names no block binds (f)", kind="inline"),
        ],
        seconds=2.0,
    )
    unchecked = task_with("T")
    counts = bench.reproduction_counts([checked.to_dict(), unchecked.to_dict()])
    assert counts["all"] == {
        "shown": 4,
        "executed": 2,
        "kept": 2,
        "behaved": 1,  # of 2 kept: the prose call never ran
        "dropped": 2,
        "rewritten": 1,
        "inline": 1,
        "not_run": 1,
        "unchecked": 1,  # `extra = 3` is in the final statement, and no check covers it
        "tasks": 1,
        "seconds": 2.0,
    }
    assert counts["r"] == counts["all"]


def test_prose_calls_are_claims_only_where_the_text_speaks_of_the_current_code():
    statement = (
        f"T\n\n{F}from calc import add, sub\nx = 2\n```\n\n"
        "On the current code `add(x, 3)` is `-1`; it should be `5`.\n\n"
        "Expected behaviour: `add(2, 3)` returns `5`.\n\n"
        "Specification:\n- `sub(1, 1)` is `0`.\n\n"
        "The same check fails for other inputs:\n- `sub(3, 1)` raises `TypeError: no`\n- `mul(2)` gives `3`\n"
    )
    claims = inline_claims(statement, python_blocks(statement))
    assert [(b.code, b.claim.describe()) for b in claims] == [
        ("add(x, 3)", "the final check sees -1"),
        ("sub(3, 1)", "raises TypeError"),
        ("mul(2)", "gives 3"),
    ]
    assert claims[0].run == "from calc import add, sub\nx = 2\nassert (add(x, 3)) == (5)\n"
    assert claims[1].run == "from calc import add, sub\nsub(3, 1)\n"
    assert claims[2].run == "" and claims[2].note == "not run: it reads names no block binds (mul)"
    assert claims[2].claim.bare and statement[claims[2].start : claims[2].end] == "- `mul(2)` gives `3`\n"


def test_a_prose_call_about_a_case_no_block_shows_runs_after_the_tests_own_imports():
    """bidict: a listed case's class was imported only by its own test, not by the one block
    shown; its line was dropped unrun, and the case went unmentioned."""
    statement = (
        f"T\n\n{F}from pkg import Base, Kept\nassert issubclass(Kept, Base)\n```\n\n"
        "Other inputs fail the same way:\n- `issubclass(Other, Base)` raises `ImportError`\n- `mul(2)` gives `3`\n"
    )
    evidence = [FailureEvidence("t.py::test_a[Other]", reproduction="from pkg import Base, Other\nimport os\nx = 1\n")]
    claims = inline_claims(statement, python_blocks(statement), _evidence_imports(evidence))
    # the block's binding is the nearest for `Base`; the tests' import binds `Other`
    assert claims[0].run == "from pkg import Base, Other\nfrom pkg import Base, Kept\nissubclass(Other, Base)\n"
    assert claims[1].run == "" and claims[1].note == "not run: it reads names no block binds (mul)"


def test_a_prose_call_is_set_up_by_the_blocks_before_it_only():
    statement = (
        f"T\n\n{F}from m import f\nx = 1\n```\n\nOn the current code `f(x)` raises `KeyError`.\n\n{F}x = 2\n```\n"
    )
    (claim,) = inline_claims(statement, python_blocks(statement))
    assert claim.run == "from m import f\nx = 1\nf(x)\n"


def test_a_listed_case_runs_on_the_lead_setup_with_its_own_values_in_place():
    """bigtree 73975536: the case `- with `A([1, [2, 3]])` in place of `A([1, 2])`: `get(n, ...)` gives
    ...` ran on the lead's `n`, gave another value on the fixed code, and was dropped."""
    statement = (
        f"T\n\n{F}from m import A, get\nn = A([1, 2])\nassert get(n, 'x[1]') == 2\n```\n\n"
        "The same check fails for other inputs:\n"
        "- with `[1, [2, 3]]` in place of `[1, 2]`: `get(n, 'x[1][1]')` gives `None`; it should be exactly `3`\n"
    )
    (claim,) = inline_claims(statement, python_blocks(statement))
    assert claim.run.startswith("from m import A, get\nn = A([1, [2, 3]])\n"), claim.run


def test_a_prose_call_runs_after_its_whole_block_but_the_failing_line():
    code = "import io\nimport click\n@click.command()\ndef cli():\n    pass\nf = io.StringIO()\nf.write('x')\n"
    statement = f"T\n\n{F}{code}assert f.getvalue() == ''\n```\n\nOn the current code `f.getvalue()` is `'x'`.\n"
    (claim,) = inline_claims(statement, python_blocks(statement))
    assert claim.run == code + "f.getvalue()\n"  # the decorator and the write that fills f are kept


def test_a_required_repr_is_evaluated_with_the_modules_it_names():
    """boltons: `from datetime import datetime` binds the class, and the required value is the
    repr `datetime.datetime(2020, 1, 2, 0, 0, 51000)`: evaluated after the block, it raised
    AttributeError, and the true claim was dropped with its line."""
    code = "from datetime import datetime\nfrom m import parse\ndt = datetime(2020, 1, 2)\n"
    statement = (
        f"T\n\n{F}{code}assert parse(dt.isoformat()) == dt\n```\n\n"
        "On the current code `parse(datetime(2020, 1, 2).isoformat())` is `datetime.datetime(2020, 1, 1)`; "
        "expected `datetime.datetime(2020, 1, 2)`.\n"
    )
    (claim,) = inline_claims(statement, python_blocks(statement))
    last = claim.run.splitlines()[-1]
    assert last.startswith("assert (parse(datetime(2020, 1, 2).isoformat())) == (eval(")
    namespace = {"parse": lambda text: __import__("datetime").datetime.fromisoformat(text)}
    exec(claim.run.replace("from m import parse\n", ""), namespace)  # holds where the value is the required one
    assert claim.claim.observed == "datetime.datetime(2020, 1, 1)"


def test_a_prose_call_with_a_comprehension_runs_after_the_block_that_binds_its_free_names():
    code = "import attr\n@attr.s\nclass Base:\n    x = attr.ib()\nassert ['x'] == [a.name for a in attr.fields(Base)]\n"
    statement = f"T\n\n{F}{code}```\n\nCurrently `[a.name for a in attr.fields(Base)]` gives `[]`.\n"
    (claim,) = inline_claims(statement, python_blocks(statement))
    assert claim.note == "" and claim.run.startswith("import attr\n@attr.s\nclass Base:")
    assert claim.run.endswith("[a.name for a in attr.fields(Base)]\n")


def test_a_prose_call_that_repeats_a_blocks_outcome_shares_that_blocks_verdict():
    code = (
        "import asyncio\nasync def main():\n    async def test():\n        return 1\n"
        "    await test()\nasyncio.run(main())\n"
    )
    statement = (
        f"T\n\n{F}{code}```\n\nRight now the last line raises `TypeError: no`.\n\n"
        "Actual behaviour: `await test()` raises `TypeError`.\n"
        "Actual behaviour: `await other()` raises `KeyError`.\n"
    )
    blocks = python_blocks(statement)
    blocks[0].claim, blocks[0].run = stated_claim(statement, blocks[0], {}, [])
    covered, unrelated = inline_claims(statement, blocks)
    assert covered.seen_in == 0 and covered.note == ""
    assert unrelated.seen_in == -1 and unrelated.note.startswith("not run")

    task = task_with(statement)
    report = check_reproductions(task, BuildFails(), "/nonexistent")  # no run: the block is dropped unexecuted
    inline = [c for c in report.checks if c.kind == "inline"]
    assert inline[0].verdict == "dropped" and inline[0].reason.startswith("block 1 runs this call")
    assert inline[1].verdict == "dropped" and "`await other()`" not in task.problem_statement
    assert "`await test()` raises `TypeError`" not in task.problem_statement  # it goes with its block


def run_by_probe(folder, code: str) -> dict:
    """What the probe's child runner records for `code` run as a script in `folder`."""
    import subprocess
    import sys

    from tasks.reproduction import PROBE

    runner = PROBE.read_text().split('RUNNER = r"""', 1)[1].split('"""', 1)[0]
    script, result = folder / "code.py", folder / "result.json"
    script.write_text(code)
    subprocess.run([sys.executable, "-c", runner, str(script), str(result)], check=True, cwd=folder, timeout=60)
    return json.loads(result.read_text())


def test_a_snippets_globals_are_the_main_module_a_library_can_look_up(tmp_path):
    """attrs resolves a string annotation in sys.modules[cls.__module__]: a snippet's names must
    be there, as when it runs as `python reproduction.py` (the probe had them in a bare dict,
    so a fixed state raised NameError and the block was dropped)."""
    assert run_by_probe(tmp_path, "import sys\nLIMIT = 3\nassert sys.modules[__name__].LIMIT == 3\n")["status"] == "ok"


def test_a_heading_whose_block_or_list_was_dropped_goes_too():
    statement = (
        "Title\n\nHere is the case.\n\nOther inputs fail the same way:\n\n"
        "Expected behaviour: `f(1)` should be `2`.\n\nTo reproduce:\n\n```python\ntry:\n\n    f(1)\n"
        "except ValueError:\n    pass\n```\n\nThe cases:\n- `f(2)` should be `3`.\n\nAlso:"
    )
    kept = without_dangling_heads(statement)
    assert "Other inputs fail the same way:" not in kept and not kept.rstrip().endswith("Also:")
    # a heading over a block or a list stays, and a `try:` inside the block is code, not a heading
    assert "To reproduce:\n\n```python\ntry:\n\n    f(1)" in kept and "The cases:\n- `f(2)`" in kept


def test_a_title_ending_in_a_colon_stays_when_the_block_under_it_is_dropped():
    """yapf 51da81c0's title ended in the error's own "Code format mismatch:"; its lead block was
    dropped and the title went with it, as a heading over nothing."""
    from tasks.reproduction import _rewrite

    title = "Unexpected behaviour: `f`: Code format mismatch:"
    statement = f"{title}\n\n```python\nassert f(1) == 2\n```\n\nAlso:\n\n```python\nassert f(3) == 4\n```"
    blocks = python_blocks(statement)
    checks = [
        ReproductionCheck(blocks[0].code, "dropped", "raised on both states"),
        ReproductionCheck(blocks[1].code, "kept", "behaves as stated on both states"),
    ]
    text = _rewrite(statement, blocks, checks)
    assert text.startswith(title + "\n") and "assert f(1)" not in text and "assert f(3) == 4" in text
    assert without_dangling_heads(f"{title}\n\nIt fails.") == f"{title}\n\nIt fails."


def test_a_heading_over_cases_that_spoke_of_a_dropped_snippet_goes_with_them():
    from tasks.reproduction import _rewrite

    statement = (
        "Title\n\nHow to reproduce:\n\n```python\nx = f(1)\nassert x == 2\n```\n\n"
        "Currently `x` is `1`; it should be `2`.\n\nOther inputs fail the same way:\n"
        "- with input `True`: the snippet gives `1`; it should be `2`\n\nExpected behaviour: `x` should be `2`."
    )
    blocks = python_blocks(statement)
    text = _rewrite(statement, blocks, [ReproductionCheck(blocks[0].code, "dropped", "raised on both states")])
    assert "```" not in text and "snippet" not in text and "Other inputs fail the same way:" not in text


def test_the_block_after_a_dropped_first_one_is_introduced_as_the_first():
    """pyserde 73140dbd: the first block was dropped and the next began with "Also:", pointing
    back at a snippet no reader could see."""
    from tasks.reproduction import _rewrite

    statement = (
        "Title\n\nHow to reproduce:\n\n```python\nassert not f(1)\n```\n\n"
        "Currently `f(1)` is true; it should not be.\n\nAlso:\n\n```python\nassert g(2) == 3\n```\n\n"
        "Currently `g(2)` gives `1`; it should be `3`."
    )
    blocks = python_blocks(statement)
    checks = [
        ReproductionCheck(blocks[0].code, "dropped", "ran without an exception on the buggy state"),
        ReproductionCheck(blocks[1].code, "kept", "behaves as stated on both states"),
    ]
    text = _rewrite(statement, blocks, checks)
    assert "Also:" not in text and "How to reproduce:\n\n```python\nassert g(2) == 3" in text, text


def test_a_right_now_outcome_of_a_dropped_block_goes_with_it():
    """pyhocon: the block was dropped and "Right now the last line raises ..." stayed, speaking of
    a line no reader could see."""
    from tasks.reproduction import _rewrite

    statement = (
        "Title\n\nTo reproduce:\n\n```python\nfrom cfg import parse\nparse('a = ${X}')\n```\n\n"
        "Right now the last line raises `KeyError: 'X'`; it should not raise.\n\n"
        "Expected behaviour: the value of `X` from the environment is used."
    )
    blocks = python_blocks(statement)
    text = _rewrite(statement, blocks, [ReproductionCheck(blocks[0].code, "dropped", "raised on both states")])
    assert "```" not in text and "last line" not in text and "Right now" not in text, text
    assert "Expected behaviour: the value of `X`" in text


def test_a_request_under_a_dropped_block_goes_with_it():
    """pyprobables f3b5e228: a dropped block's "`SimilarityError` does not exist yet; the snippet
    shows how it should work, and it should raise `TypeError`." stayed, under no snippet, and the
    closing lines that speak of the snippets stayed too."""
    from tasks.reproduction import _rewrite

    statement = (
        f"Title\n\nHow to reproduce:\n\n{F}from p import f\nf(1)\n```\n\n"
        "`E` does not exist yet; the snippet shows how it should work, and it should raise `TypeError`.\n\n"
        f"It also fails here:\n\n{F}from p import E, g\ng(E)\n```\n\n"
        "There is no `E` yet. With it, the snippet above should run without an error.\n\n"
        "Expected behaviour: `E` exists, and the snippet should not raise."
    )
    blocks = python_blocks(statement)
    checks = [
        ReproductionCheck(blocks[0].code, "dropped", "on the buggy state it ran without an exception"),
        ReproductionCheck(blocks[1].code, "kept", "behaves as stated on both states"),
    ]
    text = _rewrite(statement, blocks, checks)
    assert "f(1)" not in text and "`TypeError`" not in text, text
    assert "How to reproduce:\n\n```python\nfrom p import E, g" in text
    assert "There is no `E` yet." in text
    assert text.endswith("Expected behaviour: `E` exists, and the snippet should not raise.")


def test_a_dropped_blocks_whole_value_goes_with_it_and_the_next_tests_block_stays():
    """attrs: a dropped block's "The code in the snippet's `with` block ..." outcome and the value
    given in full under it stayed, read as if they were the previous block's."""
    from tasks.reproduction import _rewrite

    statement = (
        "Title\n\nTo reproduce:\n\n```python\nfrom cfg import a\nassert a() == 1\n```\n\n"
        "Currently `a()` gives `2`; it should be `1`.\n\nThis one fails too:\n\n"
        "```python\nimport pytest\nfrom cfg import b\nwith pytest.raises(ValueError) as e:\n    b()\n"
        "assert e.value.args == ('long',)\n```\n\n"
        "The code in the snippet's `with` block gives a `ValueError` with other arguments at the moment; "
        "it should raise `ValueError` with the arguments given in full below.\n\n"
        "The code in the snippet's `with` block should raise `ValueError` with exactly this arguments:\n\n"
        "```text\n('long',)\n```\n\nAlso:\n\n```python\nfrom cfg import c\nassert c() == 3\n```\n\n"
        "Currently `c()` gives `4`; it should be `3`."
    )
    blocks = python_blocks(statement)
    checks = [
        ReproductionCheck(blocks[0].code, "behaved", ""),
        ReproductionCheck(blocks[1].code, "dropped", "raised on both states"),
        ReproductionCheck(blocks[2].code, "behaved", ""),
    ]
    text = _rewrite(statement, blocks, checks)
    assert "with` block" not in text and "```text" not in text and "pytest.raises" not in text, text
    assert "assert a() == 1" in text and "Currently `a()` gives `2`" in text
    assert "assert c() == 3" in text and "Currently `c()` gives `4`" in text


def test_a_dropped_python_blocks_outcome_stays_when_its_call_reads_only_what_the_imports_bind():
    """A block the check dropped took its outcome paragraph with it, and with it the only place
    the case was stated; a call with its inputs written in needs no block."""
    from tasks.reproduction import _python_value_stands_alone, _rewrite

    statement = (
        f"Title\n\nTo reproduce:\n\n{F}from tbl import render\nassert render('b') == 'B'\n```\n\n"
        "On the current code `render('b')` gives `'b'`, but it should be `'B'`.\n\n"
        f"Also:\n\n{F}from tbl import Table\nt = Table()\nassert t.render() == 'x'\n```\n\n"
        "Currently `t.render()` gives `''`; it should be `'x'`."
    )
    blocks = python_blocks(statement)
    dropped = [ReproductionCheck(b.code, "dropped", "raised on both states") for b in blocks]
    text = _rewrite(statement, blocks, dropped, stands_alone=_python_value_stands_alone)
    # the project's call and its values stand alone; a call on the block's own object does not
    assert text == (
        "Title\n\nOn the current code `render('b')` gives `'b'`, but it should be `'B'`.\n\n"
        "1 more failing test is not spelled out here."  # the second block's case, counted
    )


def test_a_python_statement_whose_blocks_were_all_dropped_and_that_states_no_case_is_vague():
    from tasks.reproduction import unstated_after_drops
    from tasks.validate import Validator, check_semantic

    failure = FailureEvidence(
        "tests/test_t.py::test_render", kind="compare", call="render('b')", expected="'B'", observed="'b'"
    )
    task = task_with("Bug: render keeps the case\n\nThe current code gets the case below wrong.", [failure])
    task.reproduction = ReproductionReport([ReproductionCheck("render('b')\n", "dropped", "raised on both states")])
    result = check_semantic(task, Validator())
    assert (result.passed, result.category) == (False, "vague_statement")
    task.problem_statement += "\n\nOn the current code `render('b')` gives `'b'`, but it should be `'B'`."
    assert unstated_after_drops(task) == ""


def test_a_statement_that_shows_no_block_and_states_no_case_is_vague():
    """ "The call raises `ParseError`" with no call, no input and no block was delivered: a solver
    cannot tell what to parse. A call stated in the text, or no evidence to judge by, passes."""
    from tasks.reproduction import unstated_after_drops
    from tasks.validate import Validator, check_semantic

    failure = FailureEvidence(
        "tests/test_t.py::T::test_dialect", kind="error", call="validate('SELECT 1 AS grant')", error="ParseError: x"
    )
    task = task_with("The call raises `ParseError`\n\nOn the current code the call raises `ParseError`.", [failure])
    assert unstated_after_drops(task).startswith("the statement shows no example")
    assert (check_semantic(task, Validator()).category) == "vague_statement"
    task.problem_statement += "\n\n`validate('SELECT 1 AS grant')` raises `ParseError`; it should not raise."
    assert unstated_after_drops(task) == ""
    bare = task_with("The call raises `ParseError`\n\nOn the current code the call raises `ParseError`.", [])
    assert unstated_after_drops(bare) == ""


def test_a_call_on_a_value_the_test_made_states_no_case_without_its_block():
    """pre-commit-hooks 25cdd545 (discarded on check set 24): its one block was dropped, and the
    statement was left with "`main([str(srcfile2)])` returns `1` where `0` is expected", where
    the test's own `srcfile2` is a file no reader can know."""
    from tasks.reproduction import unstated_after_drops

    code = (
        "from hooks.pretty_format_json import main\nsrcfile2 = tmpdir.join('b.json')\nassert main([str(srcfile2)]) == 0"
    )
    failure = FailureEvidence(
        "tests/t_test.py::test_invalid_main",
        kind="compare",
        call="main([str(srcfile2)])",
        expected="0",
        observed="1",
        reproduction=code,
    )
    stated = "Bug\n\nExpected behaviour: `main([str(srcfile2)])` should be `0`, not `1`."
    task = task_with(stated, [failure])
    task.reproduction = ReproductionReport([ReproductionCheck(code + "\n", "dropped", "failed on the fixed state")])
    assert unstated_after_drops(task).startswith("the reproduction check dropped every example")
    # the same call on values written in is a case stated
    told = replace(failure, call="main([str('b.json')])")
    task = task_with(stated.replace("srcfile2", "'b.json'"), [told])
    task.reproduction = ReproductionReport([ReproductionCheck(code + "\n", "dropped", "failed on the fixed state")])
    assert unstated_after_drops(task) == ""


def test_a_message_check_after_a_raising_call_is_claimed_as_its_final_comparison():
    """ "`parse('x y')` gives a `ValueError` whose message is ..." claims what the snippet's last
    check sees; the exception is caught inside the snippet, so no escaping `ValueError` is claimed."""
    from llm.offline.writer import write_statement

    code = "from pkg import parse\nimport pytest\nwith pytest.raises(ValueError) as e:\n    parse('x y')\n"
    evidence = FailureEvidence(
        "tests/test_t.py::test_bad",
        kind="compare",
        call="str(e.value)",
        op="==",
        expected="'bad input'",
        observed="'bad'",
        reproduction=code + "assert str(e.value) == 'bad input'",
        function="parse",
        raised="ValueError",
        raised_by="parse('x y')",
    )
    context = {
        "task": "write_statement",
        "strategy_type": "BUG_FIX",
        "repo": "acme/pkg",
        "commit_subject": "Fix parse messages",
        "failing_tests": [{"id": evidence.test_id, "assertion": ""}],
        "failures": [evidence.to_dict()],
    }
    statement = write_statement(context, "Write a bug report.")["problem_statement"]
    claim, _ = stated_claim(statement, python_blocks(statement)[0], {}, [evidence])
    assert claim.error == "" and claim.observed == "'bad'"


def test_a_statement_whose_blocks_were_dropped_but_that_quotes_the_tests_own_description_is_not_vague():
    """The test's docstring, quoted in the statement, states what it requires without a block."""
    from tasks.reproduction import unstated_after_drops

    failure = FailureEvidence(
        "tests/test_t.py::test_old",
        kind="compare",
        call="loaded",
        expected="a",
        source=["def test_old():", '    """Old pickles still load."""', "    a = A(1)"],
    )
    task = task_with("Bug: loading fails\n\nHere is a small case where acme/pkg misbehaves.", [failure])
    task.reproduction = ReproductionReport([ReproductionCheck("loaded == a\n", "dropped", "raised on both states")])
    assert unstated_after_drops(task)
    task.problem_statement += ' What the failing test requires, in its own words: "Old pickles still load."'
    assert unstated_after_drops(task) == ""


def test_a_label_or_a_remark_of_the_test_and_a_bare_local_state_no_case():
    """cssutils: a statement with no block and only a title, "`Tokenizer.tokenize` returns ...",
    passed: the check's call was the local `expected`, "said" by the word "expected" in the text.
    recurring-ical-events: a quoted remark ("The pagination id is passed from outside to this.")
    passed as what the test requires. A docstring that asks for something still does."""
    from tasks.reproduction import unstated_after_drops

    failure = FailureEvidence(
        "tests/test_t.py::test_tokens",
        kind="compare",
        call="expected",
        expected="('CHAR', '-', 1, 1)",
        source=["def test_tokens():", '    """The pagination id is passed from outside to this."""'],
    )
    statement = "Bug: `tokenize` returns `('IDENT', '--a', 1, 1)` where `('CHAR', '-', 1, 1)` is expected"
    statement += (
        '\n\nWhat the failing test requires, in its own words: "The pagination id is passed from outside to this."'
    )
    task = task_with(statement, [failure])
    assert unstated_after_drops(task).startswith("the statement shows no example")
    asks = replace(failure, source=["def test_tokens():", '    """A double dash must start an identifier."""'])
    task = task_with(
        statement.replace("The pagination id is passed from outside to this.", asks.source[1][7:-3]), [asks]
    )
    assert unstated_after_drops(task) == ""


def test_a_dropped_message_check_stated_by_the_call_that_raised_is_not_vague():
    """`e.args[0]` names nothing: the case is stated by the raising call and the message."""
    from tasks.reproduction import unstated_after_drops

    failure = FailureEvidence(
        "tests/test_t.py::test_msg",
        kind="compare",
        call="e.args[0]",
        expected="'Missing key: 1'",
        raised="KeyMissing",
        raised_by="validate({})",
    )
    task = task_with("Bug: wrong message\n\nHere is a small case where acme/pkg misbehaves.", [failure])
    task.reproduction = ReproductionReport([ReproductionCheck("validate({})\n", "dropped", "raised on both states")])
    assert unstated_after_drops(task)
    task.problem_statement += "\n\n`validate({})` should raise `KeyMissing` with the message `'Missing key: 1'`."
    assert unstated_after_drops(task) == ""


def test_an_expected_value_holding_a_fence_keeps_the_block_whole_and_the_value_the_same():
    """markdownify's `'\\n```\\nx\\n```\\n'`: the value's own backticks closed the writer's
    ```python block (a snippet that did not parse, dropped) and became quotes in a code span
    (a different value)."""
    import ast

    from llm.offline.writer import fence_safe, write_statement

    # one backtick ends no block: a test's line shown in one stays as written
    assert fence_safe('"""Run `f`."""') == '"""Run `f`."""'
    want = "'\\n```\\nx\\n```\\n'"
    evidence = FailureEvidence(
        "tests/test_t.py::test_pre",
        kind="compare",
        call="md('<pre>x</pre>')",
        op="==",
        expected=want,
        observed="'\\n    x\\n'",
        reproduction=f"from pkg import md\nassert md('<pre>x</pre>') == {want}",
        function="md",
    )
    context = {
        "task": "write_statement",
        "strategy_type": "BUG_FIX",
        "repo": "acme/pkg",
        "commit_subject": "Fix pre blocks",
        "failing_tests": [{"id": evidence.test_id, "assertion": ""}],
        "failures": [evidence.to_dict()],
    }
    statement = write_statement(context, "Write a bug report.")["problem_statement"]
    blocks = python_blocks(statement)
    assert len(blocks) == 1
    check = ast.parse(blocks[0].code).body[-1]
    assert ast.literal_eval(check.test.comparators[0]) == ast.literal_eval(want)
    spans = {ast.literal_eval(s) for s in re.findall(r"`('[^`\n]+')`", statement)}
    assert ast.literal_eval(want) in spans and "\n'''\nx\n'''\n" not in spans


def loaded_probe(folder, spec: dict):
    """The probe module, imported from a copy beside the spec it reads when imported."""
    import importlib.util

    from tasks.reproduction import PROBE

    (folder / "sebgen_reproductions.json").write_text(json.dumps(spec))
    (folder / "probe.py").write_text(PROBE.read_text())
    found = importlib.util.spec_from_file_location(f"sebgen_probe_{folder.name}", folder / "probe.py")
    module = importlib.util.module_from_spec(found)
    found.loader.exec_module(module)
    return module


def test_the_probe_reads_a_value_up_to_the_addresses_the_evidence_left_out(tmp_path):
    """packaging's `Tag` repr holds `id(self)` (`<cp3-none-any @ 139623247828736>`): the stated
    value differed from the run's on every run, and the block was dropped on both states."""
    from records import ADDRESS
    from tasks.evidence.outcome import no_address

    probe = loaded_probe(tmp_path, {"address": ADDRESS, "cases": []})
    seen = "[<cp3-none-any @ 139623247828736>, <Future at 0x7f3a2b1c0d90>]"
    stated = no_address(seen)
    assert stated == "[<cp3-none-any>, <Future>]"
    assert probe.shows(stated, seen.replace("139623247828736", "139647993183040"))
    assert not probe.shows(stated, "[<py3-none-any @ 139623247828736>, <Future at 0x7f3a2b1c0d90>]")
    # astroid: the report plugin writes the address it leaves out as `…`; the run's repr has it whole
    reported = "<Instance of __astroid_synthetic.1 at \u2026>"
    assert probe.shows(reported, "<Instance of __astroid_synthetic.1 at 0x7f3a2b1c0d90>")
    assert probe.shows(reported, reported) and not probe.shows(reported, "<Instance of other at 0x7f3a2b1c0d90>")


def test_an_error_that_pytest_warns_turns_into_did_not_warn_is_the_one_the_block_raises(tmp_path):
    """typing_extensions' `@deprecated` metaclass raised TypeError inside `pytest.warns`, which
    pytest 8 reports as "DID NOT WARN" with the TypeError chained: the block stated as raising
    TypeError was dropped on the buggy state."""
    warned = "import pytest\nwith pytest.warns(DeprecationWarning):\n    raise TypeError('boom')\n"
    outcome = run_by_probe(tmp_path, warned)
    assert outcome["status"] == "raised" and outcome["masked"] == "TypeError"
    module = loaded_probe(tmp_path, {"cases": []})
    assert module.behaves_as_stated({"error": "TypeError"}, outcome)
    assert not module.behaves_as_stated({"error": "ValueError"}, outcome)


def test_the_cases_of_dropped_blocks_add_to_the_writers_own_count():
    """configupdater e2c96ce0: two of three tests' blocks read a data file by a path the snippet
    could not rebuild and were dropped; the statement then stated one test and never said that
    two more fail."""
    from llm import with_more_untold
    from tasks.reproduction import _rewrite

    statement = (
        f"Title\n\nTo reproduce:\n\n{F}from cfg import read\nassert read('a') == 1\n```\n\n"
        "On the current code `read('a')` gives `0`; it should be `1`.\n\n"
        f"This one fails too:\n\n{F}from cfg import read\nassert read('b') == 2\n```\n\n"
        "Currently `x` is wrong.\n\n1 more failing test is not spelled out here.\n\n"
        "Expected behaviour: `read('a')` should be `1`."
    )
    blocks = python_blocks(statement)
    checks = [ReproductionCheck(blocks[0].code, "kept", "ok"), ReproductionCheck(blocks[1].code, "dropped", "raised")]
    text = _rewrite(statement, blocks, checks)
    assert "2 more failing tests are not spelled out here." in text and "1 more failing" not in text, text
    assert with_more_untold("T\n\nIt fails.\n\nExpected behaviour: x.", 1) == (
        "T\n\nIt fails.\n\n1 failing test is not spelled out here.\n\nExpected behaviour: x."
    )


def test_a_statement_whose_failing_tests_left_no_failure_on_record_is_vague():
    """deepdiff's security tests overwrite `int` in the test process; its report of the failures
    was lost, and the statement, written from the tests' assertions alone, told a solver that
    `isinstance(pollute_int, bytes)` is false on the current code. It is true."""
    from tasks.validate import Validator, check_semantic

    statement = "Delta must not reach globals\n\n1. Evaluate `isinstance(data, bytes)`.\n2. It should be true."
    task = Task("t-2", "r", "abc", "", "", statement, "", "BUG_FIX", "s", FAIL_TO_PASS=["tests/test_s.py::test_int"])
    task.record("functional", LayerResult(True, 1.0, "ok", details={"failures": {}}))
    result = check_semantic(task, Validator())
    assert (result.passed, result.category) == (False, "vague_statement")
    assert "no failure of any FAIL_TO_PASS test" in result.reason


def test_an_import_only_count_keeps_the_tests_that_held_and_counts_the_others_as_not_spelled_out():
    from tasks.reproduction import _import_only_probes, _with_import_only_confirmed

    error = "ImportError: cannot import name 'S' from 'p.e' (p/e.py)"
    evidence = [
        FailureEvidence(f"t.py::test_{n}", kind="compare", error=error, phase="collect", reproduction=f"f({n})")
        for n in range(3)
    ]
    uses = FailureEvidence(
        "t.py::test_s", kind="compare", error=error, phase="collect", reproduction="from p.e import S"
    )
    sentence = "3 more failing tests fail today only because `S` cannot be imported from `p.e`; they need nothing else."
    statement = f"T\n\nShown: `g(1)` is `2`.\n\n{sentence}"
    probes = _import_only_probes(statement, [*evidence, uses], first_id=5)
    assert [(p.test_id, p.index, p.block.code) for p in probes] == [
        (f"t.py::test_{n}", 5 + n, f"f({n})\n") for n in range(3)
    ]
    # a test's later checks are part of what must hold: the probe runs them too
    later = _import_only_probes(statement, [replace(evidence[0], rest="assert g(0) == 1")], first_id=0)
    assert later[0].block.code == "f(0)\nassert g(0) == 1\n"
    text = _with_import_only_confirmed(statement, probes, {"t.py::test_0", "t.py::test_2"})
    assert text == (
        "T\n\nShown: `g(1)` is `2`.\n\n2 more failing tests fail today only because `S` cannot be imported from `p.e`; "
        "they need nothing else.\n\n1 more failing test is not spelled out here."
    )
    none_held = _with_import_only_confirmed(statement, probes, set())
    assert none_held == "T\n\nShown: `g(1)` is `2`.\n\n3 more failing tests are not spelled out here.", none_held
    assert _import_only_probes("T\n\nNo count.", evidence, first_id=0) == []


class RecordsCases:
    """A backend that may run snippets and keeps the cases it was given, then gives up."""

    runs_untrusted = True

    def __init__(self):
        self.cases: list[dict] = []

    def run_tree(self, repo, commit, tree, *args, **kwargs):
        from tasks.reproduction import SPEC_FILE

        self.cases = json.loads((tree / SPEC_FILE).read_text(encoding="utf-8"))["cases"]
        raise SandboxError("stop after the first state")


def test_a_block_run_after_an_earlier_ones_lines_gets_its_future_import_first(tmp_path):
    """h2 0d72e342: a block with `from __future__ import annotations`, run after the lines of the
    block above it, had the import mid-file: a SyntaxError on both states, and two stated tests
    were dropped."""
    import subprocess

    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "m.py").write_text("x = 1\n", encoding="utf-8")
    for args in (["init", "-q"], ["add", "."], ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "c"]):
        subprocess.run(["git", "-C", str(repo), *args], check=True)
    sha = subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    statement = (
        f"T\n\nSteps:\n\n{F}from __future__ import annotations\nimport m\nconn = m.x\nassert conn == 2\n```\n\n"
        "It fails.\n\nIt also fails with the same setup as above (every line through `conn = m.x`):\n\n"
        f"{F}from __future__ import annotations\nassert conn + 1 == 3\n```\n\nIt fails too."
    )
    task = replace(task_with(statement), base_commit=sha)
    backend = RecordsCases()
    check_reproductions(task, backend, repo)
    assert len(backend.cases) >= 2, backend.cases
    for case in backend.cases:
        code = case["code"]
        assert code.count("from __future__ import annotations") == 1 and code.startswith("from __future__"), code
        compile(code, "<case>", "exec")
