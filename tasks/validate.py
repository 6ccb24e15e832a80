"""The five validation layers (docs/contracts.md, validation layers), each a separate step, run as a cascade.

1 schema, 2 compile, 3 functional (sandbox), 4 quality (LLM judge, SWE-MERA criteria),
5 semantic (LLM judge + the leak check, `llm.leak_report` + duplicate check). A task stops at
its first failed layer with the reason recorded. Execution results are authoritative: the judges can
only reject a task that executed correctly, never rescue one that did not.
"""

from __future__ import annotations

import ast
import math
import re
import statistics
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from unidiff import PatchSet

from environment import JS_LANGUAGE, PYTHON_LANGUAGE, language_of_test
from llm import LeakReport, LLMClient, LLMError, leak_report
from records import LAYERS, FailureEvidence, LayerResult, Task, file_of_test, function_of_test, node_names
from sandbox import (
    ABSENT,
    PatchError,
    SandboxError,
    apply_patch,
    attempt_verdict,
    check_functional,
    export_tree,
    run_attempt,
)
from tasks.changed_files import changed_js_files, changed_python_files, test_files_of
from tasks.evidence import failure_evidence, file_at, repo_modules
from tasks.evidence import js as js_evidence
from tasks.evidence.js import syntax_error
from tasks.prompt import QUALITY_INSTRUCTIONS, SEMANTIC_INSTRUCTIONS, judge_prompt
from tasks.reproduction import unstated_after_drops
from tasks.statement import writer_failures

QUALITY_CRITERIA = ("task_correctness", "test_correctness", "test_completeness", "complexity")
FILTERED_CRITERIA = QUALITY_CRITERIA[:3]  # complexity is kept as information only
STRING_FIELDS = (
    "instance_id",
    "repo",
    "base_commit",
    "patch",
    "test_patch",
    "problem_statement",
    "bug_patch",
    "strategy_type",
    "strategy_id",
    "created_at",
)
LIST_FIELDS = ("FAIL_TO_PASS", "PASS_TO_PASS")
EXISTING_TESTS_TYPES = ("SYNTHETIC",)  # task kinds whose test_patch may be empty


@dataclass
class Validator:
    """What the layers need: a sandbox backend, an LLM client, an optional archive."""

    backend: Any = None
    llm: LLMClient | None = None
    archive: Any = None
    reruns: int = 2
    judge_threshold: float = 5.0
    semantic_threshold: float = 5.0
    leakage_threshold: float = 0.5
    duplicate_threshold: float = 0.95
    functional_cache: dict = field(default_factory=dict)
    reuse_functional: bool = True  # identical code state + tests: reuse the result (recorded)


# ---------------------------------------------------------------- layer 1: schema


def check_schema(task: Task, *, require_f2p: bool = True, require_statement: bool = True) -> LayerResult:
    data = task.to_dict()
    for name in STRING_FIELDS:
        if not isinstance(data.get(name), str):
            return _fail(f"field {name} is missing or not a string", "schema")
        optional = (name == "problem_statement" and not require_statement) or (
            name == "test_patch" and data["strategy_type"] in EXISTING_TESTS_TYPES
        )
        if not data[name].strip() and not optional:
            return _fail(f"field {name} is empty", "schema")
    for name in LIST_FIELDS:
        if not isinstance(data.get(name), list) or not all(isinstance(t, str) for t in data[name]):
            return _fail(f"field {name} must be a list of test ids", "schema")
    for name in ("patch", "test_patch", "bug_patch"):
        if name == "test_patch" and not data[name].strip() and data["strategy_type"] in EXISTING_TESTS_TYPES:
            continue  # synthetic bugs are caught by the repository's own tests
        try:
            if not PatchSet(data[name]):
                return _fail(f"{name} holds no file changes", "schema")
        except Exception as exc:
            return _fail(f"{name} does not parse as a unified diff: {exc}", "schema")
    if require_f2p and not data["FAIL_TO_PASS"]:
        return _fail("FAIL_TO_PASS is empty", "no_f2p")
    return LayerResult(True, 1.0, "all fields present and typed; patches parse")


# ---------------------------------------------------------------- layer 2: compile


def check_compile(task: Task, repo_path: Path) -> LayerResult:
    """The changed files parse in both states: Python's with `compile`; JS/TS files with
    tree-sitter's JS/TS grammars (no Node on the host needed, and TypeScript is read without
    type-checking: its type errors are the tests' business). A JS/TS file the grammar cannot read
    in the fixed state, which its own tests ran, is left unchecked in both states: the grammar,
    not the file, is wrong there."""
    files = changed_python_files(task.patch) + changed_python_files(task.test_patch)
    js_files = changed_js_files(task.patch) + changed_js_files(task.test_patch)
    with tempfile.TemporaryDirectory(prefix="sebgen-compile-") as tmp:
        tree = Path(tmp) / "tree"
        export_tree(repo_path, task.base_commit, tree)
        error = _compile_all(tree, files)
        unreadable = {rel for rel in set(js_files) if _parse_error(tree, rel)}
        if error:
            return _fail(f"fixed state does not compile: {error}", "compile_error")
        try:
            apply_patch(tree, task.bug_patch)
        except PatchError as exc:
            return _fail(f"bug_patch does not apply to base_commit: {exc}", "patch_error")
        error = _compile_all(tree, changed_python_files(task.bug_patch) + files)
        if not error:
            js_checked = set(changed_js_files(task.bug_patch) + js_files) - unreadable
            error = next((e for rel in sorted(js_checked) if (e := _parse_error(tree, rel))), None)
        if error:
            return _fail(f"buggy state does not compile: {error}", "compile_error")
    if not js_files:
        return LayerResult(True, 1.0, f"{len(set(files))} changed Python files compile in both states")
    said = f"{len(set(js_files)) - len(unreadable)} changed JS/TS files parse in both states"
    if unreadable:
        said += f" ({len(unreadable)} the grammar cannot read left unchecked: {', '.join(sorted(unreadable)[:3])})"
    return LayerResult(True, 1.0, f"{len(set(files))} changed Python files compile; {said}" if files else said)


def _compile_all(tree: Path, files: Sequence[str]) -> str | None:
    for rel in sorted(set(files)):
        path = tree / rel
        if not path.is_file():
            continue
        try:
            compile(path.read_text(encoding="utf-8"), rel, "exec")
        except SyntaxError as exc:
            return f"{rel} line {exc.lineno}: {exc.msg}"
    return None


def _parse_error(tree: Path, rel: str) -> str | None:
    path = tree / rel
    if not path.is_file():
        return None
    error = syntax_error(path.read_text(encoding="utf-8", errors="replace"), rel)
    return f"{rel} {error}" if error else None


# ---------------------------------------------------------------- layer 3: functional


def check_functional_layer(task: Task, validator: Validator, repo_path: Path) -> LayerResult:
    key = (
        str(repo_path),
        task.base_commit,
        hash(task.bug_patch),
        hash(task.patch),
        hash(task.test_patch),
        validator.reruns,
    )
    reused = validator.reuse_functional and key in validator.functional_cache
    if not reused:
        try:
            result = check_functional(
                validator.backend,
                repo_path,
                task.base_commit,
                task.bug_patch,
                task.patch,
                test_files_of(task.test_patch, repo_path, task.base_commit) or None,
                reruns=validator.reruns,
            )
            if result.passed:
                keep_own_failures(result, task, repo_path)
            if result.passed:
                leave_out_static_checks(result)
            if result.passed:
                _nop_and_oracle(result, task, validator.backend, repo_path)
            validator.functional_cache[key] = result
        except PatchError as exc:
            return _fail(f"patch does not apply in the sandbox: {exc}", "patch_error")
        except SandboxError as exc:
            return _fail(f"sandbox failed: {exc}", "build_error")
    result = validator.functional_cache[key]
    task.FAIL_TO_PASS = list(result.fail_to_pass)
    task.PASS_TO_PASS = list(result.pass_to_pass)
    task.image = result.image
    if hasattr(validator.backend, "environment_setup"):
        task.environment_setup = validator.backend.environment_setup(repo_path, task.base_commit)
    details = {
        "flaky": list(result.flaky),
        "nop_resolved": result.nop_resolved,
        "oracle_resolved": result.oracle_resolved,
        "duration_s": round(result.duration_s, 3),
        "reused_result_of_identical_state": reused,
        # per FAIL_TO_PASS test, how it fails on the buggy state (tasks.evidence; Task.failure_evidence reads it)
        "failures": {
            test_id: evidence.to_dict()
            for test_id, evidence in failure_evidence(
                repo_path, task.base_commit, result.failures, result.fail_to_pass
            ).items()
        },
    }
    if not result.passed:
        return _fail(result.reason, _functional_category(result), details)
    failures = [FailureEvidence.from_dict(f, test_id=t) for t, f in details["failures"].items()]
    narrow = last_digits_only(failures) or names_the_test(failures)
    if narrow:
        return _fail(f"tests too narrow: {narrow}", "narrow_tests", details)
    return LayerResult(True, 1.0, result.reason, details=details)


SAME_TO_DIGITS = 1e-9  # relative: numbers this close differ in rounding, not in what the code computes


def last_digits_only(failures: Sequence[FailureEvidence]) -> str:
    """Why a failing check asks for no behaviour but the reference's rounding, or "": it compares
    numbers (a float, or a structure of them) that its required value matches to `SAME_TO_DIGITS`
    (coloraide's wavelength `[0.6697060045245519, ...]` where `[0.6697060045245415, ...]` is
    required): only a fix that repeats the reference's arithmetic step for step passes it."""
    for f in failures:
        if f.kind != "compare" or f.op != "==" or not f.observed or not f.expected:
            continue
        observed, expected = _numbers(f.observed), _numbers(f.expected)
        if observed and len(observed) == len(expected) and observed != expected:
            if any(isinstance(x, float) for x in observed + expected) and all(
                math.isclose(a, b, rel_tol=SAME_TO_DIGITS) for a, b in zip(observed, expected)
            ):
                return f"{f.test_id} requires {f.expected[:80]} where the buggy state gives {f.observed[:80]}"
    return ""


def names_the_test(failures: Sequence[FailureEvidence]) -> str:
    """Why a failing check asks for a value made of the test's own name, or "": mashumaro's
    `'#/$defs/test_jsonschema_for_dataclass__locals__DataClass'` comes from the qualname of a
    class the test defines. A solver never sees that name, and a snippet outside the test
    cannot give it."""
    for f in failures:
        name = function_of_test(f.test_id)
        if f.kind == "compare" and len(name) > 5 and name in (f.expected or "") and name not in (f.observed or ""):
            return f"{f.test_id} requires {f.expected[:80]}, a value made of the test's own name"
    return ""


def _numbers(text: str) -> list[float]:
    """The numbers of a literal of numbers (a number, or lists, tuples, dict values of them), in
    order; [] for anything else."""
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return []
    out: list[float] = []
    todo = [value]
    while todo:
        item = todo.pop(0)
        if isinstance(item, bool):
            return []
        if isinstance(item, (int, float)):
            out.append(item)
        elif isinstance(item, (list, tuple)):
            todo = [*item, *todo]
        elif isinstance(item, dict):
            todo = [*item.values(), *todo]
        else:
            return []
    return out


NO_OWN_FAILURE = "no test fails for the change's own reason"


def keep_own_failures(result, task: Task, repo_path: Path) -> None:
    """FAIL_TO_PASS keeps only the tests that fail for the change's own reason (updates `result`).

    A test that never ran with bug_patch applied (its file, a conftest or a setup file failed to
    load, so the runner reported nothing for it) is no evidence of its own: when a conftest
    imports a name the fix adds, every test of the suite "fails" on the buggy state, and a task
    with a thousand FAIL_TO_PASS tests that an agent resolves by adding one name is not the task
    its statement describes. Such a test counts only when the test patch adds or changes it (a
    new test module that imports the new name: SWE-bench's usual shape), or changes its file when
    its definition cannot be found (a generated test). The others are left
    out of FAIL_TO_PASS (not PASS_TO_PASS either: they never passed on the buggy state); when
    none is left, the task is rejected and says why."""
    never_ran = [t for t in result.fail_to_pass if result.before.get(t) == ABSENT]
    if not never_ran:
        return
    touched = _added_lines(task.test_patch)
    sources: dict[str, str] = {}
    dropped = []
    for test_id in never_ran:
        path = file_of_test(test_id)
        if path not in touched:
            dropped.append(test_id)
            continue
        if path not in sources:
            sources[path] = file_at(str(repo_path), task.base_commit, path)
        span = definition_lines(sources[path], test_id)
        if span is not None and not any(span[0] <= line <= span[1] for line in touched[path]):
            dropped.append(test_id)
    if dropped:
        said = (
            f"{len(dropped)} test(s) never ran with bug_patch applied (their file, a conftest or a setup file "
            f"failed to load) and the test patch neither adds nor changes them ({_short(dropped)})"
        )
        _leave_out(result, dropped, said)


def _leave_out(result, dropped: list[str], said: str) -> None:
    """Takes `dropped` out of FAIL_TO_PASS and its failure evidence, saying why in the reason; a
    result left with no FAIL_TO_PASS test fails with that reason."""
    result.fail_to_pass = [t for t in result.fail_to_pass if t not in set(dropped)]
    kept = {*result.fail_to_pass, *(file_of_test(t) for t in result.fail_to_pass)}  # file keys: _failures_of
    result.failures = {t: f for t, f in result.failures.items() if t in kept}
    if not result.fail_to_pass:
        result.passed = False
        result.reason = f"{NO_OWN_FAILURE}: {said}"
    else:
        result.reason += f"; {said}: left out of FAIL_TO_PASS"


# The item names of pytest plugins that run a linter or type checker over each file as a test
# (pytest-mypy's `tests/test_x.py::mypy` and session-wide `::mypy-status`, pytest-flake8,
# pytest-black, pytest-isort, pytest-pylint, pytest-ruff, ...).
STATIC_CHECK_ITEMS = frozenset(
    {
        "mypy", "mypy-status", "flake8", "flake8-check", "FLAKE8", "black", "BLACK", "isort", "ISORT",
        "pylint", "PYLINT", "ruff", "ruff::format", "mccabe", "pycodestyle", "PEP8-check", "codestyle",
        "pydocstyle",
    }
)  # fmt: skip


def is_static_check(test_id: str) -> bool:
    """A linter's item, not a test: its name is not a test function's (no `test` prefix)."""
    return test_id.partition("::")[2] in STATIC_CHECK_ITEMS


def leave_out_static_checks(result) -> None:
    """FAIL_TO_PASS keeps no linter item (updates `result`). Such an item fails on the buggy state
    only because the hidden tests use what the fix adds (docopt-ng's `::mypy` over a test module
    importing a new function): it states no behaviour a statement could describe, and a fix that
    passes the tests passes it too. It stays in PASS_TO_PASS where it passed on both states."""
    dropped = [t for t in result.fail_to_pass if is_static_check(t)]
    if dropped:
        _leave_out(result, dropped, f"{len(dropped)} linter item(s) failed on the buggy state ({_short(dropped)})")


def _short(names: Sequence[str], limit: int = 3) -> str:
    shown = ", ".join(names[:limit])
    return shown + (f" and {len(names) - limit} more" if len(names) > limit else "")


def _added_lines(patch: str) -> dict[str, set[int]]:
    """Per file of `patch`: the line numbers its change adds or rewrites, in the patched file."""
    try:
        files = PatchSet(patch)
    except Exception:
        return {}
    return {f.path: {line.target_line_no for hunk in f for line in hunk if line.is_added} for f in files}


def definition_lines(source: str, test_id: str) -> tuple[int, int] | None:
    """The first and last line (decorators included) of the test `test_id` names in `source`,
    or None when it cannot be found (a generated test, a file that does not parse)."""
    path = file_of_test(test_id)
    if path.endswith(PYTHON_LANGUAGE.extensions):
        return _python_span(source, node_names(test_id))
    if path.endswith(JS_LANGUAGE.extensions):
        try:
            found = js_evidence.find_test(js_evidence.parse(source, path).root_node, test_id, None)
        except (ValueError, RecursionError):
            return None
        return (found.node.start_point.row + 1, found.node.end_point.row + 1) if found else None
    return None


def _python_span(source: str, names: list[str]) -> tuple[int, int] | None:
    try:
        scope: list = ast.parse(source).body
    except (SyntaxError, ValueError):
        return None
    node = None
    for name in names:
        defined = (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
        node = next((n for n in scope if isinstance(n, defined) and n.name == name), None)
        if node is None:
            return None
        scope = node.body
    first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
    return first, node.end_lineno or node.lineno


def _nop_and_oracle(result, task: Task, backend, repo_path: Path) -> None:
    """The empty patch and the gold patch through the path `evaluate` uses (agent state, tests
    and config restored, supervised run): a nop that resolves or an oracle that does not
    rejects the task. Updates `result` in place."""
    test_files = test_files_of(task.test_patch, repo_path, task.base_commit) or None
    verdicts = {}
    for label, patch in (("nop", ""), ("oracle", task.patch)):
        try:
            run = run_attempt(
                backend,
                repo_path,
                task.base_commit,
                task.bug_patch,
                task.test_patch,
                patch,
                test_files,
                untrusted=False,
            )
        except PatchError as exc:
            verdicts[label] = (False, f"does not apply to the agent state: {exc}")
            continue
        verdicts[label] = attempt_verdict(run, result.fail_to_pass, result.pass_to_pass)
    result.nop_resolved, result.oracle_resolved = verdicts["nop"][0], verdicts["oracle"][0]
    if result.nop_resolved:
        result.passed, result.reason = False, "a nop agent (empty patch) resolves the task through evaluate's path"
    elif not result.oracle_resolved:
        result.passed, result.reason = (
            False,
            f"the gold patch does not resolve the task through evaluate's path: {verdicts['oracle'][1]}",
        )


def _functional_category(result) -> str:
    reason = result.reason.lower()
    if "timed out" in reason:
        return "timeout"
    if result.flaky and not result.fail_to_pass and not reason.startswith(NO_OWN_FAILURE):
        return "flaky"
    if "evaluate's path" in reason:  # the task's tests cannot tell the fix from no fix
        return "no_f2p"
    if reason.startswith("no test ran"):  # what follows quotes the suite's own error, whatever its words
        return "no_f2p"
    if "apply" in reason:
        return "patch_error"
    if "build" in reason:
        return "build_error"
    return "no_f2p"


# ---------------------------------------------------------------- layer 4: quality


def judge_evidence(task: Task) -> dict:
    """What the judges read of the functional layer's failure evidence (tasks.evidence): per
    FAIL_TO_PASS test its failing check, values and the checks that passed before it; and the
    names a reproduction may use without defining them (the project's modules)."""
    failures = [_judged(f) for f in writer_failures(task)]
    if not failures:
        return {}
    repo_path = getattr(task, "repo_path", "")
    modules = sorted(repo_modules(repo_path, task.base_commit)) if repo_path else []
    return {"failures": failures, "known_names": sorted({*modules, *js_known_names(writer_failures(task))})}


_JS_NAME = re.compile(r"[A-Za-z_$][\w$]*")
_JS_LITERALS = ("true", "false", "null", "undefined", "NaN", "Infinity")


def js_known_names(failures: Sequence[FailureEvidence]) -> set[str]:
    """The names a JS/TS reproduction may use: every identifier of a reproduction the JS
    producer found self-contained (it checked each name's binding with the JS parser; the judges
    read code as Python, where `{ partitioned: true }` holds two unbound names), JS's literals
    and its globals (`Array.isArray(...)` in a check the test makes after the failing one).
    Empty for Python tests."""
    names: set[str] = set()
    for f in failures:
        language = language_of_test(f.test_id)
        if language is None or language.name != JS_LANGUAGE.name:
            continue
        names.update(_JS_LITERALS, js_evidence.GLOBALS)
        if f.reproduction and not f.unbound:
            names.update(_JS_NAME.findall(f.reproduction))
    return names


def _judged(f: FailureEvidence) -> FailureEvidence:
    """The part of a failure a judge weighs a statement against: the failing check, what the
    code computed and gave, what the check requires, the error, the checks that passed."""
    return FailureEvidence(
        f.test_id,
        kind=f.kind,
        check=f.check,
        call=f.call,
        op=f.op,
        observed=f.observed,
        expected=f.expected,
        exact=f.exact,
        error=f.error,
        passed_checks=f.passed_checks,
    )


def judge_context(task: Task) -> dict:
    return {
        "problem_statement": task.problem_statement,
        "patch": task.patch,
        "test_patch": task.test_patch,
        "fail_to_pass": task.FAIL_TO_PASS,
        "touched_functions": task.generation.get("touched_functions", []),
        **judge_evidence(task),
    }


def check_quality(task: Task, validator: Validator) -> LayerResult:
    try:
        scores, _ = validator.llm.complete_json(
            judge_prompt("judge_quality", judge_context(task), QUALITY_INSTRUCTIONS),
            required_keys=QUALITY_CRITERIA,
            temperature=0.0,
            top_p=1.0,
            max_tokens=800,
        )
    except LLMError as exc:
        return _fail(f"quality judge failed: {exc}", exc.category)
    criteria = {c: _criterion(scores.get(c)) for c in QUALITY_CRITERIA}
    mean = statistics.fmean(criteria[c]["score"] for c in FILTERED_CRITERIA)
    details = {"criteria": criteria, "mean": round(mean, 3)}
    if mean < validator.judge_threshold:
        weakest = min(FILTERED_CRITERIA, key=lambda c: criteria[c]["score"])
        reason = (
            f"quality judge mean {mean:.1f} below {validator.judge_threshold} "
            f"(weakest: {weakest} {criteria[weakest]['score']:g}: {criteria[weakest]['reasoning'][:160]})"
        )
        return _fail(reason, _judge_root_cause(task, validator), details)
    return LayerResult(True, round(mean / 10, 4), f"quality judge mean {mean:.1f}/10", details=details)


def _judge_root_cause(task: Task, validator: Validator) -> str:
    """A rejected statement that quotes the fix fails *because* it leaks: say so, so prompt
    mutation learns the rule that fixes it rather than a generic one."""
    leaks = task_leak_report(task).leaks(validator.leakage_threshold)
    return "leakage" if leaks else "judge_reject"


def _criterion(value: Any) -> dict:
    value = value if isinstance(value, dict) else {}
    try:
        score = min(max(float(value.get("score", 1)), 1.0), 10.0)
    except (TypeError, ValueError):
        score = 1.0
    try:
        confidence = min(max(float(value.get("confidence", 0.5)), 0.0), 1.0)
    except (TypeError, ValueError):
        confidence = 0.5
    return {"score": score, "confidence": confidence, "reasoning": str(value.get("reasoning", ""))}


def bottom_quartile_filter(tasks: list[Task]) -> list[Task]:
    """SWE-MERA: in a batch, drop tasks in the bottom quartile of any of the first three criteria."""
    judged = [t for t in tasks if "quality" in t.validation and t.validation["quality"].passed]
    if len(judged) < 4:
        return []
    rejected = []
    for criterion in FILTERED_CRITERIA:
        values = sorted(t.validation["quality"].details["criteria"][criterion]["score"] for t in judged)
        cutoff = statistics.quantiles(values, n=4, method="inclusive")[0]
        for t in judged:
            score = t.validation["quality"].details["criteria"][criterion]["score"]
            if score < cutoff and t not in rejected:
                t.record(
                    "quality",
                    LayerResult(
                        False,
                        t.validation["quality"].score,
                        f"bottom quartile of the batch on {criterion} ({score:g} < {cutoff:g})",
                        "judge_reject",
                        t.validation["quality"].details,
                    ),
                )
                rejected.append(t)
    return rejected


# ---------------------------------------------------------------- layer 5: semantic


def task_leak_report(task: Task) -> LeakReport:
    """The leak check of the task's statement against its fix; the code derived from its tests
    (the failure evidence's snippets) is the tests', known like the test patch."""
    tests_code = [code for f in task.failure_evidence() for code in (f.reproduction, f.rest) if code]
    return leak_report(task.problem_statement, task.patch, task.test_patch, tests_code)


def _nothing_observed(task: Task) -> str:
    """Why nothing the statement says about the failing tests was observed, or "": the functional
    run recorded no failure of any of them (deepdiff's security tests overwrite `int` in the
    test process, and its report was lost), so the statement could only restate assertions of
    the test source, and claimed that a check which passes fails."""
    functional = task.validation.get("functional")
    recorded = functional.details.get("failures") if functional else None
    if not task.FAIL_TO_PASS or not isinstance(recorded, dict) or recorded:
        return ""
    return "the run recorded no failure of any FAIL_TO_PASS test, so no stated case was observed"


def check_semantic(task: Task, validator: Validator) -> LayerResult:
    leak = task_leak_report(task)
    share = leak.verbatim_share
    if leak.leaks(validator.leakage_threshold):
        return _fail(
            f"statement leaks the fix ({', '.join(leak.kinds)}; {leak.verbatim_share:.0%} of added lines "
            f"verbatim; e.g. {leak.evidence[:120]!r})",
            "leakage",
            {"leaked_share": round(leak.verbatim_share, 3), "leak_score": leak.score, "leak_kinds": list(leak.kinds)},
        )
    thin = unstated_after_drops(task) or _nothing_observed(task)
    if thin:
        return _fail(f"statement is vague: {thin}", "vague_statement")
    if validator.archive is not None and validator.archive.count():
        duplicate, similarity = validator.archive.is_duplicate(task.problem_statement)
        if duplicate:
            return _fail(f"near duplicate of an archived task (cosine {similarity:.2f})", "duplicate")
    try:
        scores, _ = validator.llm.complete_json(
            judge_prompt(
                "judge_semantic",
                {
                    "problem_statement": task.problem_statement,
                    "patch": task.patch,
                    "fail_to_pass": task.FAIL_TO_PASS,
                    **judge_evidence(task),
                },
                SEMANTIC_INSTRUCTIONS,
            ),
            required_keys=("clarity", "solvability"),
            temperature=0.0,
            top_p=1.0,
            max_tokens=600,
        )
    except LLMError as exc:
        return _fail(f"semantic judge failed: {exc}", exc.category)
    clarity, solvability = _criterion(scores.get("clarity")), _criterion(scores.get("solvability"))
    details = {"clarity": clarity, "solvability": solvability, "leaked_share": round(share, 3)}
    low = min(clarity["score"], solvability["score"])
    if low < validator.semantic_threshold:
        return _fail(
            f"statement is vague: clarity {clarity['score']:g}, solvability {solvability['score']:g}",
            "vague_statement",
            details,
        )
    return LayerResult(
        True,
        round((clarity["score"] + solvability["score"]) / 20, 4),
        f"clear and solvable, no leakage ({share:.0%} overlap)",
        details=details,
    )


# ---------------------------------------------------------------- cascade


def run_layers(task: Task, validator: Validator, repo_path: Path, layers: Sequence[str] = LAYERS) -> Task:
    steps: dict[str, Callable[[], LayerResult]] = {
        "schema": lambda: check_schema(task, require_f2p="functional" not in layers),
        "compile": lambda: check_compile(task, repo_path),
        "functional": lambda: check_functional_layer(task, validator, repo_path),
        "quality": lambda: check_quality(task, validator),
        "semantic": lambda: check_semantic(task, validator),
    }
    for name in LAYERS:
        if name not in layers:
            continue
        result = steps[name]()
        task.record(name, result)
        if not result.passed:
            break
    return task


def _fail(reason: str, category: str, details: dict | None = None) -> LayerResult:
    return LayerResult(False, 0.0, reason, category, details or {})


# ---------------------------------------------------------------- ablation (SEBGen Table 9)


def ablation(
    tasks: Sequence[Task], validator: Validator, layer_sets: Sequence[Sequence[str]], repo_path: Path | None = None
) -> list[dict]:
    """Re-validate copies of `tasks` under each layer configuration: how many pass, and their
    mean layer score. Copies, so one configuration's verdicts never leak into the next."""
    rows = []
    for layers in layer_sets:
        checked = [
            run_layers(
                Task.from_dict({**t.to_dict(), "validation": {}}),
                validator,
                Path(repo_path or t.repo_path),
                tuple(layers),
            )
            for t in tasks
        ]
        kept = [t for t in checked if t.passed]
        scores = [statistics.fmean(v.score for v in t.validation.values()) for t in kept]
        rows.append(
            {
                "layers": list(layers),
                "tasks": len(checked),
                "passed": len(kept),
                "pass_rate": round(len(kept) / len(checked), 4) if checked else 0.0,
                "mean_score": round(statistics.fmean(scores), 4) if scores else 0.0,
            }
        )
    return rows
