"""The functional validation layer: FAIL_TO_PASS / PASS_TO_PASS from real test runs.

SWE-gen's reversed baseline: `base_commit` is the fixed state with the new tests. The
"before" state (what a nop agent leaves) is base_commit + bug_patch; the "after" state (the
oracle) is base_commit + bug_patch + gold_patch, really applied. Each state runs `reruns`
times; a test whose outcome changes across the reruns of one state is flaky and is never
counted as FAIL_TO_PASS or PASS_TO_PASS.
"""

from __future__ import annotations

import re
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from records import file_of_test

from .errors import PatchError
from .report import lacked_names, load_errors, skip_reasons
from .tree import attempt_tree, raise_if_submodule_needed
from .types import Backend, TestRun

_FLAKY = "flaky"
ABSENT = "absent"  # not reported: its file (or a conftest, a setup file, the session) failed to load, or the run died


@dataclass
class FunctionalResult:
    passed: bool
    reason: str
    fail_to_pass: list[str] = field(default_factory=list)
    pass_to_pass: list[str] = field(default_factory=list)
    flaky: list[str] = field(default_factory=list)
    nop_resolved: bool = False
    oracle_resolved: bool = False
    duration_s: float = 0.0
    image: str = ""
    before: dict[str, str] = field(default_factory=dict)
    after: dict[str, str] = field(default_factory=dict)
    # FAIL_TO_PASS test -> the evidence of its failure in the bug state's first run (TestRun.failures)
    failures: dict[str, dict] = field(default_factory=dict)

    def to_dict(self) -> dict:
        return asdict(self)


def _short(names: Sequence[str], limit: int = 3) -> str:
    shown = ", ".join(names[:limit])
    return shown + (f" and {len(names) - limit} more" if len(names) > limit else "")


def _tests_of(runs: Sequence[TestRun]) -> set[str]:
    # only real test ids; file-level entries are collection errors
    return {t for r in runs for t in r.outcomes if "::" in t}


def _summary(runs: Sequence[TestRun], tests: set[str]) -> dict[str, str]:
    """One outcome per test over the reruns of a state, or 'flaky' when they disagree."""
    merged = {}
    for t in sorted(tests):
        seen = {r.outcomes.get(t, ABSENT) for r in runs}
        merged[t] = seen.pop() if len(seen) == 1 else _FLAKY
    return merged


def _run_state(
    backend: Backend, repo: Path, commit: str, patches: list[str], test_files: Sequence[str] | None, reruns: int
) -> list[TestRun]:
    runs = []
    for _ in range(reruns):
        run = backend.run_tests(repo, commit, patches, test_files)
        runs.append(run)
        if run.timed_out or run.broken:
            break  # no point repeating a state that cannot give outcomes
    return runs


def _images(runs: Sequence[TestRun]) -> set[str]:
    """The environments a state's runs ran in (an empty name is no environment's)."""
    return {run.image for run in runs if run.image}


def _state_problem(runs: Sequence[TestRun], label: str) -> str:
    for run in runs:
        if run.timed_out:
            return f"the {label} state timed out: {run.note}"
        if run.broken:
            return f"the test run of the {label} state is inconsistent: {run.note}"
    return ""


def check_functional(
    backend: Backend,
    repo: Path,
    base_commit: str,
    bug_patch: str,
    gold_patch: str,
    test_files: Sequence[str] | None,
    reruns: int = 2,
) -> FunctionalResult:
    """Run both states `reruns` times and judge the task (see the module docstring)."""
    start = time.monotonic()
    reruns = max(1, int(reruns))
    image = ""
    try:
        image = backend.environment_id(repo, base_commit)
    except Exception:  # the result still needs a reason, not an image name
        pass

    def result(passed: bool, reason: str, **kw) -> FunctionalResult:
        return FunctionalResult(passed=passed, reason=reason, duration_s=time.monotonic() - start, image=image, **kw)

    try:
        before_runs = _run_state(backend, repo, base_commit, [bug_patch], test_files, reruns)
    except PatchError as exc:
        return result(False, f"bug patch does not apply to {base_commit[:10]}: {exc}")
    before_problem = _state_problem(before_runs, "bug")
    if before_problem:  # no per-test outcomes to compare against: the task is rejected as is
        return result(False, before_problem, before=_summary(before_runs, _tests_of(before_runs)))
    try:
        after_runs = _run_state(backend, repo, base_commit, [bug_patch, gold_patch], test_files, reruns)
    except PatchError as exc:
        return result(False, f"gold patch does not apply on top of the bug patch: {exc}")
    if _images(after_runs) != _images(before_runs):
        # the environment was repaired while the gold state ran (tzlocal's tests wanted pytest-mock's
        # `mocker`, which the bug state's runs lacked): both states are judged in the same one
        before_runs = _run_state(backend, repo, base_commit, [bug_patch], test_files, reruns)
        before_problem = _state_problem(before_runs, "bug")
        if before_problem:
            return result(False, before_problem, before=_summary(before_runs, _tests_of(before_runs)))
        if _images(after_runs) != _images(before_runs):
            return result(
                False,
                f"the environment changed between the states' runs ({', '.join(sorted(_images(before_runs)))} "
                f"for the bug state, {', '.join(sorted(_images(after_runs)))} for the gold state)",
            )
    image = after_runs[0].image or image

    tests = _tests_of(before_runs) | _tests_of(after_runs)
    before, after = _summary(before_runs, tests), _summary(after_runs, tests)
    flaky = sorted(t for t in tests if before[t] == _FLAKY or after[t] == _FLAKY)
    stable = sorted(t for t in tests if t not in flaky)
    f2p = [t for t in stable if before[t] != "passed" and before[t] != "skipped" and after[t] == "passed"]
    p2p = [t for t in stable if before[t] == "passed" and after[t] == "passed"]
    broken_by_gold = [t for t in stable if before[t] == "passed" and after[t] != "passed"]
    after_problem = _state_problem(after_runs, "gold")

    nop_resolved = all(before[t] == "passed" for t in f2p + p2p)
    oracle_resolved = not after_problem and all(after[t] == "passed" for t in f2p + p2p) and not broken_by_gold
    common = dict(
        fail_to_pass=f2p,
        pass_to_pass=p2p,
        flaky=flaky,
        nop_resolved=nop_resolved,
        oracle_resolved=oracle_resolved,
        before=before,
        after=after,
        failures=_failures_of(before_runs, f2p),
    )

    if after_problem:
        return result(False, after_problem, **common)
    gold_note = next((r.note for r in after_runs if r.note), "")
    why = f" (gold state: {gold_note})" if gold_note else ""
    if broken_by_gold:
        return result(
            False,
            f"the gold patch breaks {len(broken_by_gold)} test(s) that pass with "
            f"bug_patch applied: {_short(broken_by_gold)}{why}",
            **common,
        )
    if not f2p:
        return result(False, _no_f2p_reason(tests, flaky, before, after, before_runs, after_runs, test_files), **common)
    if nop_resolved:  # cannot happen with a non-empty F2P, kept as a guard
        return result(False, "a nop agent resolves the task", **common)
    reason = f"{len(f2p)} FAIL_TO_PASS and {len(p2p)} PASS_TO_PASS test(s)"
    if flaky:
        reason += f"; {len(flaky)} flaky test(s) dropped ({_short(flaky)})"
    return result(True, reason, **common)


def _failures_of(runs: Sequence[TestRun], tests: Sequence[str]) -> dict[str, dict]:
    """Each test's failure evidence from the first run of the state that has it; for a test that
    has none, its file's when a run has one (a trace in its log: a test ended the file's run),
    under the file's name: the evidence producer tells which test it belongs to."""
    out: dict[str, dict] = {}
    for test in tests:
        for key in (test, file_of_test(test)):
            found = next((r.failures[key] for r in runs if key in getattr(r, "failures", {})), None)
            if found is not None:
                out[key] = found
                break
    return out


def _no_f2p_reason(
    tests: set[str],
    flaky: list[str],
    before: dict,
    after: dict,
    before_runs: Sequence[TestRun],
    after_runs: Sequence[TestRun],
    test_files: Sequence[str] | None,
) -> str:
    where = ", ".join(test_files) if test_files else "the suite"
    if not tests:
        note = after_runs[-1].note or before_runs[-1].note
        load = _load_error([*before_runs, *after_runs])
        if load and note and load.partition(" does not load: ")[2][:60] not in note:
            note = f"{load}; {note}"
        note = note or load
        return f"no test ran in {where}" + (f": {note}" if note else "")
    if flaky:
        return f"{len(flaky)} flaky test(s) dropped ({_short(flaky)}); no FAIL_TO_PASS left"
    failing_after = sorted(t for t in tests if after[t] not in ("passed", "skipped"))
    if failing_after:
        note = next((r.note for r in after_runs if r.note), "")
        return (
            f"no FAIL_TO_PASS test: {len(failing_after)} test(s) fail in the gold state "
            f"({_short(failing_after)})" + (f"; {note}" if note else "")
        )
    skipped = sorted(t for t in tests if before[t] == "skipped")
    if skipped:  # a skipped test proves nothing: "already passes" would hide why the task was lost
        when = "in both states" if all(after[t] == "skipped" for t in skipped) else "with bug_patch applied"
        rest = len(tests) - len(skipped)
        files = {file_of_test(t) for t in skipped}
        reasons = [r for run in before_runs for f, rs in skip_reasons(run.log_tail).items() if f in files for r in rs]
        because = f": {'; '.join(dict.fromkeys(reasons))}" if reasons else ""
        return (
            f"no FAIL_TO_PASS test: {len(skipped)} test(s) of {where} skipped {when} ({_short(skipped)}){because}"
            + (f"; the other {rest} already pass with bug_patch applied" if rest else "")
        )
    return f"no FAIL_TO_PASS test: every test of {where} already passes with bug_patch applied"


_LOAD_ERROR_CHARS = 300


def _load_error(runs: Sequence[TestRun]) -> str:
    """Why no test ran when a test file (or the conftest it needs) did not load: '<file> does not
    load: <exception>', from the first run whose report or log gives one; '' when none does. A name
    the standard library no longer has says the code needs an older Python."""
    found = next(
        (
            (key, f"{record['type']}: {record.get('message') or ''}".strip().rstrip(":"))
            for run in runs
            for key, record in run.failures.items()
            if record.get("when") == "collect" and record.get("type")
        ),
        None,
    )
    if found is None:
        found = next((item for run in runs for item in load_errors(run.log_tail).items()), None)
    if found is None:
        return ""
    key, error = found
    # its first lines, less the path of the module an ImportError names ("(/usr/lib/python3.11/...)")
    lines = [re.sub(r" \(/[^()]*\)$", "", ln.strip()) for ln in error.splitlines() if ln.strip()]
    text = " ".join(lines[:2])
    text = text if len(text) <= _LOAD_ERROR_CHARS else text[: _LOAD_ERROR_CHARS - 3] + "..."
    stdlib = [(m, n) for m, n in lacked_names(error) if m.split(".")[0] in getattr(sys, "stdlib_module_names", ())]
    if stdlib:
        module, name = stdlib[0]
        text += f" ({module}.{name} is not in this Python's standard library: the code needs an older Python)"
    return f"{key or 'the session'} does not load: {text}"


# ---------------------------------------------------------------- one path for every attempt


def run_attempt(
    backend: Backend,
    repo: Path,
    commit: str,
    bug_patch: str,
    test_patch: str,
    agent_patch: str | None,
    test_files: Sequence[str] | None,
    untrusted: bool = True,
) -> TestRun:
    """Verify one patch the way `evaluate` does (see sandbox.integrity): agent state + patch,
    protected files restored, auto-loaded files removed, the supervised run with canaries.

    PatchError (with git's reason, or the limit exceeded) when the patch cannot be applied.
    A void attempt (a module shadowing the verifier) comes back as a broken run with the reason.
    `untrusted` marks patches from outside SEBGen (a predictions file, a model): the local
    backend refuses to run those as root.
    """
    with tempfile.TemporaryDirectory(prefix="sebgen-attempt-") as tmp:
        tree = Path(tmp) / "tree"
        restoration = attempt_tree(Path(repo), commit, bug_patch, test_patch, agent_patch, tree)
        if restoration.void:
            return TestRun(
                outcomes={},
                exit_code=-1,
                timed_out=False,
                duration_s=0.0,
                log_tail="",
                image="",
                broken=True,
                note=f"attempt void: {restoration.void}",
                reverted=restoration.reverted,
                removed=restoration.removed,
            )
        run = backend.run_tree(Path(repo), commit, tree, test_files, untrusted=untrusted)
    raise_if_submodule_needed(Path(repo), commit, run)
    run.reverted, run.removed = restoration.reverted, restoration.removed
    return run


def attempt_verdict(run: TestRun | None, fail_to_pass: Sequence[str], pass_to_pass: Sequence[str]) -> tuple[bool, str]:
    """(resolved, why): every FAIL_TO_PASS and PASS_TO_PASS test passed in a run that is
    neither broken nor timed out. A broken, timed-out or inconsistent run never resolves."""
    if run is None:
        return False, "no run"
    if run.timed_out:
        return False, run.note or "the run timed out"
    if run.broken:
        return False, run.note or "the run is inconsistent"
    if not fail_to_pass:
        return False, "the task has no FAIL_TO_PASS test"
    failing = [t for t in [*fail_to_pass, *pass_to_pass] if run.outcomes.get(t) != "passed"]
    if failing:
        return False, f"{len(failing)} required test(s) do not pass ({_short(failing)})" + (
            f"; {run.note}" if run.note else ""
        )
    return True, f"all {len(fail_to_pass)} FAIL_TO_PASS and {len(pass_to_pass)} PASS_TO_PASS test(s) pass"
