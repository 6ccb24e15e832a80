"""Turning a plugin report plus an exit code into trustworthy per-test outcomes."""

from __future__ import annotations

import json
import re
import secrets
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

PLUGIN_MODULE = "sebgen_report_plugin"
PLUGIN_SOURCE = Path(__file__).with_name("_report_plugin.py")

# pytest exit codes: 0 all passed, 1 some failed, 2 interrupted, 3 internal error,
# 4 usage error, 5 no tests collected
_EXIT_OK, _EXIT_TESTS_FAILED, _EXIT_NO_TESTS = 0, 1, 5


class Outcomes(dict):
    """nodeid -> outcome, carrying `failures` (nodeid -> evidence of its failure, see
    `clean_failures`) so that a backend handing `outcomes=parsed.outcomes` to its TestRun hands
    the evidence over too (`TestRun.failures` takes it)."""

    failures: dict[str, dict]

    def __init__(self, outcomes: dict[str, str], failures: dict[str, dict] | None = None):
        super().__init__(outcomes)
        self.failures = failures or {}


@dataclass
class ParsedReport:
    outcomes: dict[str, str]
    broken: bool
    note: str
    collect_errors: list[str] = field(default_factory=list)
    exit_code: int | None = None  # pytest's status for the task's own tests (canaries left out)

    @property
    def failures(self) -> dict[str, dict]:
        return getattr(self.outcomes, "failures", {})


EVIDENCE_TESTS = 64
ID_CHARS = 2000  # as in _report_plugin.py, which runs inside environments and imports nothing of SEBGen
_TEXT_LIMITS = {"when": 16, "type": 120, "message": 1500, "raised_in": 120, "notes": 700}
# a map's values: a case's parameter is an input the statement gives whole (PARAM_CHARS there)
_MAP_LIMITS = {"params": 1000, "locals": 300}


def clean_failures(raw, outcomes: dict[str, str]) -> dict[str, dict]:
    """The plugin's failure evidence, kept only for reported tests that did not pass, with
    known keys, plain types and bounded sizes (the pytest process that wrote it also ran the
    task's code, so its shape is checked, never trusted; outcomes never depend on it)."""
    if not isinstance(raw, dict):
        return {}
    out: dict[str, dict] = {}
    for nodeid, record in raw.items():
        if len(out) >= EVIDENCE_TESTS:
            break
        if outcomes.get(nodeid) not in ("failed", "error") or not isinstance(record, dict):
            continue
        clean: dict = {k: str(record[k])[:n] for k, n in _TEXT_LIMITS.items() if isinstance(record.get(k), str)}
        compare = record.get("compare")
        if isinstance(compare, dict):
            clean["compare"] = {k: str(compare.get(k, ""))[:300] for k in ("op", "left", "right")}
        if isinstance(record.get("line"), int) and not isinstance(record["line"], bool):
            clean["line"] = record["line"]
        frames = record.get("frames")
        if isinstance(frames, list):
            clean["frames"] = [
                [f[0], str(f[1])[:80]]
                for f in frames[:4]
                if isinstance(f, list) and len(f) == 2 and isinstance(f[0], int) and not isinstance(f[0], bool)
            ]
        for key, limit in _MAP_LIMITS.items():
            if isinstance(record.get(key), dict):
                clean[key] = {str(k)[:60]: str(v)[:limit] for k, v in list(record[key].items())[:16]}
        if isinstance(record.get("indices"), dict):
            clean["indices"] = {str(k)[:60]: v for k, v in list(record["indices"].items())[:16] if isinstance(v, int)}
        out[str(nodeid)] = clean
    return out


def pytest_args(test_files: Sequence[str] | None, rootdir: str, canary_module: str = "") -> list[str]:
    """The pytest command-line arguments shared by every backend (after `python -m pytest`).

    `canary_module` (see `_supervisor.canary_source`) is loaded as a plugin that adds the canary
    tests itself, so the suite's own ini filters and testpaths cannot leave them out.
    `--maxfail=0` undoes an `-x` / `--maxfail` of the suite's addopts (given before these
    arguments): the must-fail canary runs first and would otherwise end the session."""
    return [
        "-p",
        PLUGIN_MODULE,
        *(["-p", canary_module] if canary_module else []),
        "-p",
        "no:cacheprovider",
        "--rootdir",
        rootdir,  # nodeids relative to the tree root, whatever test files are given
        "--continue-on-collection-errors",
        "--maxfail=0",
        "-q",
        "-rs",  # the short summary names each skip's reason: a task lost to skips says why
        "--color=no",
        *(test_files or []),
    ]


# Session-level policies of plugins are not verdicts on the tests SEBGen runs: a run of a few
# tests that all pass must not fail on a coverage threshold (pytest-cov's --cov-fail-under in
# addopts, coverage's fail_under; no coverage is measured at all, which also keeps its table out
# of the log the repair loop reads), and the tests run in the one supervised process (xdist's
# `-n` in addopts would run them, and make their reports, in worker processes). Each entry: a
# plugin's top-level module -> the arguments that neutralise it, given only when the environment
# has the plugin (the option is unknown otherwise).
POLICY_ARGS: dict[str, tuple[str, ...]] = {"pytest_cov": ("--no-cov",), "xdist": ("-n", "0")}


def policy_args(plugin_modules: Sequence[str]) -> list[str]:
    """The POLICY_ARGS of the plugins among `plugin_modules` (dotted module names)."""
    tops = {m.split(":")[0].split(".")[0] for m in plugin_modules}
    return [a for module, extra in sorted(POLICY_ARGS.items()) if module in tops for a in extra]


def new_canaries() -> tuple[str, str]:
    """Random names of this run's canary tests: (must fail, must pass)."""
    return f"test_{secrets.token_hex(8)}", f"test_{secrets.token_hex(8)}"


def parse_report(
    raw: bytes | str | None,
    exit_code: int,
    test_files: Sequence[str] | None,
    timed_out: bool,
    canaries: tuple[str, str] | None = None,
    log: str = "",
) -> ParsedReport:
    """Read the plugin's JSON and cross-check it with pytest's exit code (and the canaries).

    `log` (pytest's output) only explains a session pytest gave up on: the note quotes its error.

    With canaries the run is trusted only when there is exactly one report, the must-fail
    canary failed, the must-pass canary passed, and pytest exited 1 (a failing test) with the
    same status the report names; anything else marks the run broken, which never resolves.
    """
    if timed_out:
        return ParsedReport({}, False, "")
    text = raw.decode("utf-8", errors="replace") if isinstance(raw, bytes) else (raw or "")
    lines = [ln for ln in text.splitlines() if ln.strip()]
    data = None
    if len(lines) == 1 or (lines and canaries is None):
        try:
            data = json.loads(lines[-1])
        except ValueError:
            data = None
    if not isinstance(data, dict):
        data = None
    if canaries is not None and len(lines) > 1:
        return ParsedReport(
            {}, True, f"the run sent {len(lines)} reports instead of one: its reporting was tampered with"
        )
    if data is None:
        if canaries is not None and lines:
            return ParsedReport({}, True, "the run's report is not valid JSON: its reporting was tampered with")
        if exit_code == _EXIT_OK:
            return ParsedReport({}, True, "pytest exited 0 but wrote no report")
        # the process died before reporting: every requested test counts as an error
        requested = list(test_files) if test_files else ["<session>"]
        return ParsedReport(
            {t: "error" for t in requested},
            False,  # nothing passes: safe to keep as errors (a crash in the bug state may be the bug)
            f"pytest exited with code {exit_code} and wrote no report" + _because(exit_code, log),
        )
    outcomes = {str(k): str(v) for k, v in dict(data.get("outcomes") or {}).items()}
    collect_errors = [str(c) for c in data.get("collect_errors") or []]
    unreported = _unreported_note(data.get("unreported_long_ids"))
    if canaries is not None:
        stopped = _stopped_before_tests(outcomes, canaries, exit_code, data.get("exitstatus"))
        if stopped:  # pytest itself gave up (an internal or usage error): not a verdict, not tampering
            requested = list(test_files) if test_files else ["<session>"]
            stopped += _because(exit_code, log)
            return ParsedReport({t: "error" for t in requested}, False, stopped, collect_errors, exit_code)
        problem = _canary_problem(outcomes, canaries, exit_code, data.get("exitstatus"))
        outcomes = {k: v for k, v in outcomes.items() if not k.endswith(tuple(f"::{c}" for c in canaries))}
        if problem:
            return ParsedReport(outcomes, True, problem, collect_errors)
        outcomes = Outcomes(outcomes, clean_failures(data.get("failures"), outcomes))  # evidence rides along
        bad = [k for k, v in outcomes.items() if v in ("failed", "error")]
        status = _EXIT_TESTS_FAILED if bad else (_EXIT_OK if outcomes else _EXIT_NO_TESTS)
        return ParsedReport(outcomes, False, unreported, collect_errors, status)
    outcomes = Outcomes(outcomes, clean_failures(data.get("failures"), outcomes))
    bad = sorted(k for k, v in outcomes.items() if v in ("failed", "error"))
    if exit_code == _EXIT_OK and bad:
        return ParsedReport(outcomes, True, f"pytest exited 0 although {len(bad)} test(s) failed", collect_errors)
    if exit_code == _EXIT_TESTS_FAILED and not bad and canaries is None and not unreported:
        return ParsedReport(outcomes, True, "pytest exited 1 although the report shows no failure", collect_errors)
    if exit_code not in (_EXIT_OK, _EXIT_TESTS_FAILED, _EXIT_NO_TESTS):
        return ParsedReport(outcomes, False, f"pytest exited with code {exit_code}", collect_errors)
    return ParsedReport(outcomes, False, unreported, collect_errors)


def _unreported_note(count) -> str:
    """Why some tests have no outcome: their node ids are too long to report (never a pass)."""
    try:
        n = int(count or 0)
    except (TypeError, ValueError):
        return ""
    return f"{n} test(s) with node ids over {ID_CHARS:,} characters are not reported" if n > 0 else ""


# pytest's first word on why it gave up: "ERROR: usage: ...", "ERROR: while parsing ...", "ImportError
# while loading conftest ...", "INTERNALERROR> ..."; then the line naming the cause, if one follows
_FIRST_ERROR = re.compile(r"^(?:ERROR: .+|INTERNALERROR> .+|\S.* while loading conftest .+)$", re.M)
_CAUSE = re.compile(r"^(?:E\s+)?(?:[\w.]+: error: .+|(?:[A-Za-z_][\w.]*)?(?:Error|Exception): .+)$", re.M)
_ERROR_TEXT_LIMIT = 300


def pytest_error(log: str) -> str:
    """pytest's first error line in `log` and the cause that follows it, on one line; '' if none.
    The tail after the error is searched only for the cause (an exception or argparse's message)."""
    first = _FIRST_ERROR.search(log or "")
    if first is None:
        return ""
    text = first.group(0).strip()
    cause = _CAUSE.search(log, first.end())
    if cause is not None and cause.group(0).strip() != text:
        text += " ... " + re.sub(r"^E\s+", "", cause.group(0).strip())
    return text if len(text) <= _ERROR_TEXT_LIMIT else text[: _ERROR_TEXT_LIMIT - 3] + "..."


def _because(exit_code: int, log: str) -> str:
    """': <pytest's error>' for a session pytest gave up on (exit 2, 3 or 4), else ''."""
    error = pytest_error(log) if exit_code in _STOPPED else ""
    return f": {error}" if error else ""


_STOPPED = {2: "was interrupted", 3: "stopped with an internal error", 4: "stopped with a usage error"}


def _stopped_before_tests(outcomes: dict[str, str], canaries: tuple[str, str], exit_code: int, status) -> str:
    """The sentence for a session pytest ended (exit 2, 3 or 4, the report agreeing) before any
    test ran, the canaries included; "" otherwise. Such a run has no outcome to trust or doubt:
    every requested test counts as an error and the log goes to the environment repair."""
    if exit_code not in _STOPPED or status != exit_code:
        return ""
    if any(k.endswith(f"::{c}") for k in outcomes for c in canaries) or any("::" in k for k in outcomes):
        return ""
    return f"pytest {_STOPPED[exit_code]} (exit {exit_code}) before any test ran"


def _canary_problem(outcomes: dict[str, str], canaries: tuple[str, str], exit_code: int, status) -> str:
    def outcome(name: str) -> str:
        return next((v for k, v in outcomes.items() if k.endswith(f"::{name}")), "missing")

    must_fail, must_pass = outcome(canaries[0]), outcome(canaries[1])
    if must_fail != "failed" or must_pass != "passed":
        return (
            f"the canary tests came out wrong (must-fail {must_fail}, must-pass {must_pass}): "
            "the run's outcomes were tampered with"
        )
    if exit_code in (2, 3) and status == exit_code:  # pytest or a plugin gave up mid-session: untrusted, not tampered
        return f"pytest {_STOPPED[exit_code]} (exit {exit_code}) after its tests began"
    if exit_code != _EXIT_TESTS_FAILED:
        return f"pytest exited {exit_code} although the must-fail canary failed: its exit was tampered with"
    if status != exit_code:
        return f"the report names exit status {status} but pytest exited {exit_code}"
    return ""


# pytest's short summary of a skip: "SKIPPED [1] tests/test_np.py:3: could not import 'numpy': ..."
_SKIP_LINE = re.compile(r"^SKIPPED \[\d+\] (?P<path>[^\s:]+):\d+: (?P<reason>.+)$", re.M)


def skip_reasons(log: str) -> dict[str, list[str]]:
    """Test file -> the distinct reasons pytest's short summary gives for its skips."""
    reasons: dict[str, list[str]] = {}
    for m in _SKIP_LINE.finditer(log):
        found = reasons.setdefault(m.group("path"), [])
        if m.group("reason") not in found:
            found.append(m.group("reason"))
    return reasons


# pytest's section for a file that failed to load ("____ ERROR collecting tests/test_x.py ____"), and
# its short summary line ("ERROR tests/test_x.py - AttributeError: module 'numpy' has no a...")
_COLLECT_SECTION = re.compile(r"^_+ ERROR collecting (?P<path>\S+) _+$", re.M)
_SECTION_END = re.compile(r"^(?:_{3,} |={3,} )", re.M)
_SUMMARY_ERROR = re.compile(r"^ERROR (?P<path>[^\s:]+) - (?P<error>.+)$", re.M)
_ERROR_LINE = re.compile(r"^E\s+(?P<line>\S.*)$", re.M)


# an exception saying a module lacks a name: "AttributeError: module 'M' has no attribute 'X'",
# "ImportError: cannot import name 'X' from 'M'", or a package's own word that it removed the name
# ("AttributeError: `np.float_` was removed in the NumPy 2.0 release": the package, not the alias)
_LACKS_NAME = re.compile(
    r"^(?P<mark>E\s+)?(?:AttributeError: module '(?P<a>[\w.]+)' has no attribute '(?P<an>\w+)'|"
    r"ImportError: cannot import name '(?P<bn>\w+)' from '(?P<b>[\w.]+)'|"
    r"AttributeError: `(?:\w+\.)*(?P<cn>\w+)` was removed in the (?P<c>[A-Za-z][\w.-]*) v?\d[\w.]* release)",
    re.M,
)


def lacked_names(text: str, marked: bool = False) -> list[tuple[str, str]]:
    """(module, name) of each error in `text` that says a module lacks a name, in order, once
    each; a package that says it removed the name gives its own name in lower case. `marked`:
    only pytest's exception lines (`E   ...`), not source lines of a traceback."""
    found = []
    for m in _LACKS_NAME.finditer(text or ""):
        if marked and not m.group("mark"):
            continue
        module = m.group("a") or m.group("b") or m.group("c").lower()
        found.append((module, m.group("an") or m.group("bn") or m.group("cn")))
    return list(dict.fromkeys(found))


def load_errors(log: str) -> dict[str, str]:
    """Test file -> the error that kept it from loading, as pytest's log gives it: the exception
    line of its collection section (the last one, the error that ended a chain), else its short
    summary line. Files the log does not show are absent."""
    errors: dict[str, str] = {}
    for section in _COLLECT_SECTION.finditer(log or ""):
        end = _SECTION_END.search(log, section.end())
        lines = _ERROR_LINE.findall(log[section.end() : end.start() if end else len(log)])
        if lines:
            errors.setdefault(section.group("path"), lines[-1].strip())
    for summary in _SUMMARY_ERROR.finditer(log or ""):
        errors.setdefault(summary.group("path"), summary.group("error").strip())
    return errors


def tail(text: str, limit: int = 4000) -> str:
    return text if len(text) <= limit else text[-limit:]
