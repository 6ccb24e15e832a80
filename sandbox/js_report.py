"""JavaScript/TypeScript test runners: the command that runs a set of test files with a
machine-readable reporter, and that report turned into per-test outcomes and failure evidence.

A test id is `FILE::describe > ... > title`: FILE relative to the repository root (POSIX), then the
describe path and the test's title, empty describe titles left out (vitest before 1.0 puts the
file's own suite, titled "", first). Outcomes are passed, failed, skipped (skip, todo, pending) or
error (the test never ran its body: a hook before it failed). A test file that failed to load has
no tests in any report; `JsReport.load_errors` names it, and `outcome` answers "error" for every
id in it. A report that does not parse, or has an unknown shape, raises `RunnerReportError`: an
empty run is never read as "no tests".

Every runner runs with SEBGen's reporter (`_jest_reporter.cjs`, `_vitest_reporter.mjs`,
`_mocha_reporter.cjs`, `_node_test_reporter.mjs`), which signs what it writes: jest's writes
jest's own `--json` document (a file jest wrote itself is read the same); vitest's own json
report keeps no expected/actual values (its jest-shaped file is still read, as others write it);
mocha's own `json` reporter joins the describe path and title with spaces and leaves out the
tests a failing hook kept from running; node:test has no JSON reporter.
"""

from __future__ import annotations

import json
import posixpath
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from records import FailureEvidence, file_of_test

from .errors import SandboxError

RUNNERS = ("jest", "vitest", "mocha", "node-test")
OUTCOMES = ("passed", "failed", "skipped", "error")

VITEST_REPORTER = Path(__file__).with_name("_vitest_reporter.mjs")
MOCHA_REPORTER = Path(__file__).with_name("_mocha_reporter.cjs")
NODE_TEST_REPORTER = Path(__file__).with_name("_node_test_reporter.mjs")
JEST_REPORTER = Path(__file__).with_name("_jest_reporter.cjs")
# the reporters and the signing module they load from beside them
REPORTERS = (
    VITEST_REPORTER,
    MOCHA_REPORTER,
    NODE_TEST_REPORTER,
    JEST_REPORTER,
    Path(__file__).with_name("_reporter_signing.cjs"),
)

PATH_SEPARATOR = " > "
MESSAGE_LIMIT = 1500
VALUE_LIMIT = 1000

# Which outcome an id keeps when a file reports two tests under the same id (a title repeated
# in one describe): the worst, so a failing twin is never hidden by a passing one.
_SEVERITY = {"skipped": 0, "passed": 1, "failed": 2, "error": 3}
_JEST_STATUS = {
    "passed": "passed",
    "failed": "failed",
    "pending": "skipped",
    "skipped": "skipped",
    "todo": "skipped",
    "disabled": "skipped",
}
# node:test failure types that mean the test body never ran
_NODE_TEST_NOT_RUN = {"hookFailed", "cancelledByParent"}
_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_FRAME = re.compile(r"^\s*at (?:.*? \()?(?:file://)?(?P<path>[^()\s]+?):(?P<line>\d+):\d+\)?\s*$")
_ERROR_HEAD = re.compile(r"^(?P<type>[A-Za-z_$][\w$.]*): ")
# jest before 27 writes no failureDetails; its matcher message is then the only place the values
# are: "expect(received).toBe(expected)" then one "Expected: ..." and one "Received: ..." line
_MATCHER_CALL = re.compile(r"^expect\(received\)\.(?:not\.)?(?:resolves\.|rejects\.)?(?P<name>\w+)\(")
_MATCHER_VALUE = re.compile(r"^(?P<side>Expected|Received): (?P<value>.*)$", re.MULTILINE)


class RunnerReportError(SandboxError):
    """The runner's report is missing, does not parse, or is not the shape its runner writes."""


@dataclass
class JsReport:
    runner: str
    outcomes: dict[str, str] = field(default_factory=dict)  # test id -> one of OUTCOMES
    failures: dict[str, FailureEvidence] = field(default_factory=dict)  # test id -> how it failed
    load_errors: dict[str, str] = field(default_factory=dict)  # test file -> why it did not load
    duplicates: set[str] = field(default_factory=set)  # ids two tests of one file share

    def outcome(self, test_id: str) -> str | None:
        """The id's outcome; "error" when its file failed to load; None when the run never saw it."""
        if test_id in self.outcomes:
            return self.outcomes[test_id]
        return "error" if file_of_test(test_id) in self.load_errors else None


def js_test_id(file: str, path: Iterable[str]) -> str:
    return f"{file}::{PATH_SEPARATOR.join(t for t in path if t)}"


def comparable_id(test_id: str) -> str:
    """The id with its describe path and title joined by single spaces, as mocha's `fullTitle`,
    jest's `fullName` and `--testNamePattern` spell a test: two spellings of one test agree here."""
    file, _, path = test_id.partition("::")
    return f"{file}::{' '.join(t for t in path.split(PATH_SEPARATOR) if t)}"


def runner_command(
    runner: str,
    test_files: Sequence[str],
    report_path: str,
    *,
    options: Sequence[str] = (),
    reporters_dir: str | None = None,
) -> list[str]:
    """argv that runs `test_files` (relative to the repository root, the working directory) with
    the runner installed in `node_modules` and writes its machine-readable report to
    `report_path`. The runner is called directly, never through `npm test`, so the lint, type
    checks and coverage thresholds a test script chains never decide a verdict. `options` are
    the project's own runner options that tests need to load (mocha's `--ui qunit`,
    `--require`; see `mocha_options_from_script`). `reporters_dir`: where SEBGen's reporter files
    are for the runner (a container's private folder; `REPORTERS` names them), default here."""
    files = list(test_files)
    here = {path.name: str(path) for path in REPORTERS}
    if reporters_dir is not None:
        here = {name: posixpath.join(reporters_dir, name) for name in here}
    vitest_reporter, mocha_reporter = here[VITEST_REPORTER.name], here[MOCHA_REPORTER.name]
    node_test_reporter, jest_reporter = here[NODE_TEST_REPORTER.name], here[JEST_REPORTER.name]
    if runner == "jest":
        # SEBGen's reporter writes the `--json` document to --outputFile, signed (jest's own
        # `--json` would write it unsigned); the default reporter's output goes to the log
        return [
            "node_modules/.bin/jest",
            *options,
            "--ci",
            "--reporters=default",
            f"--reporters={jest_reporter}",
            f"--outputFile={report_path}",
            "--coverage=false",
            "--testLocationInResults",
            "--watchman=false",
            "--forceExit",
            "--runTestsByPath",
            *files,
        ]
    if runner == "vitest":
        # no --coverage.enabled=false: vitest 0.x then demands a coverage provider; a coverage
        # threshold only changes the exit code, and verdicts read the report
        return [
            "node_modules/.bin/vitest",
            "run",
            *options,
            f"--reporter={vitest_reporter}",
            f"--outputFile={report_path}",
            *files,
        ]
    if runner == "mocha":
        return [
            "node_modules/.bin/mocha",
            *options,
            "--reporter",
            mocha_reporter,
            "--reporter-options",
            f"output={report_path}",
            "--exit",
            *files,
        ]
    if runner == "node-test":
        return [
            "node",
            *options,
            "--test",
            f"--test-reporter={node_test_reporter}",
            f"--test-reporter-destination={report_path}",
            *files,
        ]
    raise ValueError(f"unknown JavaScript test runner {runner!r} (known: {', '.join(RUNNERS)})")


# mocha options a test script may carry that decide how the tests load or run; the rest
# (reporters, --bail, --watch, coverage wrappers, spec paths) stay out of a verdict's run
_MOCHA_VALUE_OPTIONS = {"--ui", "-u", "--require", "-r", "--timeout", "-t", "--file", "--extension", "--slow", "-s"}
_MOCHA_FLAG_OPTIONS = {"--check-leaks", "--recursive", "--async-only", "-A", "--full-trace", "--allow-uncaught"}


def _mocha_arguments(script: str, value_options: set[str]) -> Iterator[tuple[str, str | None]]:
    """(word, the next word as its value or None) for each word of the `mocha` call in a test
    script, up to a shell separator; an option of `value_options` written without `=` takes the
    next word as its value."""
    words = script.split()
    if "mocha" not in words:
        return
    words = words[words.index("mocha") + 1 :]
    i = 0
    while i < len(words):
        word = words[i]
        if word in ("&&", "||", ";", "|"):
            return
        name, eq, _ = word.partition("=")
        if name in value_options and not eq and i + 1 < len(words):
            yield word, words[i + 1]
            i += 1
        else:
            yield word, None
        i += 1


def mocha_options_from_script(script: str) -> list[str]:
    """The options of the `mocha` call in a package.json test script that tests need to load and
    run as the project runs them (`--ui qunit`, `--require ts-node/register`, `--check-leaks`).
    Reporters, `--bail` and wrappers such as `c8`/`nyc` are dropped."""
    out: list[str] = []
    for word, value in _mocha_arguments(script, _MOCHA_VALUE_OPTIONS):
        name, eq, _ = word.partition("=")
        if name in _MOCHA_VALUE_OPTIONS:
            if eq:
                out.append(word)
            elif value is not None:
                out += [word, value]
        elif word in _MOCHA_FLAG_OPTIONS:
            out.append(word)
    return out


# mocha options that take a value but choose no test file (so their value is no spec either)
_MOCHA_OTHER_VALUE_OPTIONS = {
    "--reporter",
    "-R",
    "--reporter-options",
    "-O",
    "--reporter-option",
    "--config",
    "--package",
    "--ignore",
    "--exclude",
    "--grep",
    "-g",
    "--fgrep",
    "-f",
    "--retries",
    "--jobs",
    "-j",
    "--node-option",
    "-n",
    "--watch-files",
    "--watch-ignore",
}


def mocha_spec_from_script(script: str) -> list[str]:
    """The test files or globs the `mocha` call in a test script runs (its positional words and
    `--spec` values): a whole-suite run passes them, as mocha's default (`./test`) may differ."""
    takes_value = {"--spec"} | _MOCHA_VALUE_OPTIONS | _MOCHA_OTHER_VALUE_OPTIONS
    out: list[str] = []
    for word, value in _mocha_arguments(script, takes_value):
        name, eq, inline = word.partition("=")
        if name == "--spec":
            if eq:
                out.append(inline)
            elif value is not None:
                out.append(value)
        elif name not in takes_value and not word.startswith("-"):
            out.append(word.strip("'\""))
    return out


def read_report(runner: str, report_path: Path, root: str) -> JsReport:
    """`parse_report` over the file the run wrote. No file is an error too: mocha writes none
    when a test file fails to load, jest none when the code under test calls process.exit,
    node:test none when a test file does not exist."""
    try:
        text = report_path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise RunnerReportError(f"the {runner} run wrote no report at {report_path}: {exc.strerror}") from exc
    return parse_report(runner, text, root)


def parse_report(runner: str, text: str, root: str) -> JsReport:
    """Per-test outcomes from `runner`'s report (the file's text); `root` is the repository root
    as the runner saw it (absolute), to make its absolute test paths relative."""
    try:
        document = json.loads(text)
    except (TypeError, ValueError) as exc:
        raise RunnerReportError(f"the {runner} report does not parse as JSON: {exc}") from exc
    if not isinstance(document, dict):
        raise RunnerReportError(f"the {runner} report is not a JSON object")
    if runner == "jest" or (runner == "vitest" and "testResults" in document):
        return _parse_jest_shape(runner, document, root)
    if runner in ("vitest", "mocha"):
        return _parse_sebgen_tests(runner, document, root)
    if runner == "node-test":
        return _parse_node_test(document, root)
    raise ValueError(f"unknown JavaScript test runner {runner!r} (known: {', '.join(RUNNERS)})")


def _relative(path: str, root: str) -> str:
    path = path.removeprefix("file://")
    if not posixpath.isabs(path):
        return posixpath.normpath(path)
    root = posixpath.normpath(root)
    if path.startswith(root + "/"):
        return path[len(root) + 1 :]
    raise RunnerReportError(f"the report names a test file outside the repository root {root}: {path}")


def _record(report: JsReport, file: str, path: Sequence[str], outcome: str, evidence: FailureEvidence | None):
    tid = js_test_id(file, path)
    previous = report.outcomes.get(tid)
    if previous is not None:
        report.duplicates.add(tid)
        if _SEVERITY[previous] >= _SEVERITY[outcome]:
            return
    report.outcomes[tid] = outcome
    if evidence is not None:
        evidence.test_id = tid
        report.failures[tid] = evidence
    else:
        report.failures.pop(tid, None)


def _clean(text: str, limit: int = MESSAGE_LIMIT) -> str:
    return _ANSI.sub("", text)[:limit]


def _split_stack(stack: str) -> tuple[str, list[str]]:
    """(the error's head: "Type: message", the `at ...` frames) of a JS stack string."""
    lines = _ANSI.sub("", stack).split("\n")
    first_frame = next((i for i, line in enumerate(lines) if _FRAME.match(line)), len(lines))
    return "\n".join(lines[:first_frame]).strip(), lines[first_frame:]


def _line_in(frames: Iterable[str], file: str) -> int | None:
    """The innermost stack frame in the test's own file: where its failing check sits (a helper
    of the test file counts, as its check is what failed)."""
    for frame in frames:
        match = _FRAME.match(frame)
        if match and (match["path"] == file or match["path"].endswith("/" + file)):
            return int(match["line"])
    return None


def _js_value(value) -> str:
    """A JSON value as JS would spell it: strings double-quoted, objects as JSON."""
    return json.dumps(value, ensure_ascii=False)[:VALUE_LIMIT]


def _reported_value(value) -> str | None:
    """A value from SEBGen's reporters: {"json": v} or {"inspect": text}."""
    if not isinstance(value, dict):
        return None
    if "json" in value:
        return _js_value(value["json"])
    if isinstance(value.get("inspect"), str):
        return value["inspect"][:VALUE_LIMIT]
    return None


def _evidence_from_stack(stack: str, file: str, phase: str = "call") -> FailureEvidence:
    head, frames = _split_stack(stack)
    match = _ERROR_HEAD.match(head)
    return FailureEvidence(
        test_id="",
        kind="error",
        error=head.split("\n", 1)[0][:MESSAGE_LIMIT],
        error_type=match["type"] if match else "",
        message=_clean(head[match.end() :] if match else head),
        phase=phase,
        line=_line_in(frames, file),
    )


def _with_values(
    evidence: FailureEvidence, expected: str | None, observed: str | None, op: str, error_type: str = ""
) -> FailureEvidence:
    """The evidence of a failed comparison: the check's two sides, as the runner reported them."""
    if expected is None and observed is None:
        return evidence
    evidence.kind = "compare"
    evidence.expected = expected or ""
    evidence.observed = observed or ""
    evidence.op = op
    evidence.error = ""
    if error_type:
        evidence.error_type = error_type
    return evidence


# jest's own line when the code under test calls process.exit in a test: the process ends there and
# no report entry names the test; the stack under it names the test file's line that made the call
_EXIT_CALLED = re.compile(r"process\.exit (?:unexpectedly )?called with (?P<args>\"[^\"\n]*\"|\S+)")


def exit_failures(log: str, files: Iterable[str]) -> dict[str, FailureEvidence]:
    """Test file -> the evidence of the process.exit its test called, read from the run's log: the
    error as jest words it and the innermost stack frame in that file (the test's line). The
    evidence producer gives it to the test that holds that line (it has no report entry of its own)."""
    found: dict[str, FailureEvidence] = {}
    lines = _ANSI.sub("", log).split("\n")
    for at, line in enumerate(lines):
        said = _EXIT_CALLED.search(line)
        if not said:
            continue
        frames = []
        for later in lines[at + 1 :]:
            if _EXIT_CALLED.search(later):
                break
            frames.append(later)
        for file in files:
            where = _line_in(frames, file)
            if where is not None and file not in found:
                error = said.group(0)
                found[file] = FailureEvidence(
                    test_id=file, kind="error", error=error, error_type="", message=error, phase="call", line=where
                )
    return found


def _parse_jest_shape(runner: str, document: dict, root: str) -> JsReport:
    files = document.get("testResults")
    if not isinstance(files, list):
        raise RunnerReportError(f"the {runner} report has no testResults list")
    report = JsReport(runner)
    for result in files:
        if not isinstance(result, dict) or not isinstance(result.get("name"), str):
            raise RunnerReportError(f"the {runner} report has a test file entry without a name")
        file = _relative(result["name"], root)
        tests = result.get("assertionResults")
        if not isinstance(tests, list):
            raise RunnerReportError(f"the {runner} report has no assertionResults for {file}")
        # a file whose suite failed to run (syntax error, missing module, a throw at the top of
        # the file or of a describe) reports no tests and says why in its message; vitest 0.x
        # marks such a file "passed"
        exec_error = result.get("testExecError")
        message = result.get("message") or (exec_error.get("message") if isinstance(exec_error, dict) else "")
        if not tests and message:
            report.load_errors[file] = _clean(str(message))
            continue
        for test in tests:
            status = _JEST_STATUS.get(test.get("status"))
            if status is None:
                raise RunnerReportError(f"the {runner} report has an unknown test status {test.get('status')!r}")
            path = [*test.get("ancestorTitles", []), test.get("title", "")]
            evidence = _jest_failure(test, file) if status == "failed" else None
            _record(report, file, path, status, evidence)
    return report


def _jest_failure(test: dict, file: str) -> FailureEvidence:
    messages = [m for m in test.get("failureMessages") or [] if isinstance(m, str)]
    evidence = _evidence_from_stack(messages[0] if messages else "", file)
    location = test.get("location")
    if evidence.line is None and isinstance(location, dict) and isinstance(location.get("line"), int):
        evidence.line = location["line"]  # where the test starts, when no frame is in its file
    for detail in test.get("failureDetails") or []:
        matcher = detail.get("matcherResult") if isinstance(detail, dict) else None
        if isinstance(matcher, dict) and not matcher.get("pass", False):
            expected = _js_value(matcher["expected"]) if "expected" in matcher else None
            actual = _js_value(matcher["actual"]) if "actual" in matcher else None
            evidence.message = _clean(str(matcher.get("message", evidence.message)))
            return _with_values(evidence, expected, actual, str(matcher.get("name", "")), "AssertionError")
    call = _MATCHER_CALL.match(evidence.message)
    values = [(m["side"], m["value"]) for m in _MATCHER_VALUE.finditer(evidence.message)]
    if call and [side for side, _ in values] == ["Expected", "Received"]:
        (_, expected), (_, received) = values
        return _with_values(evidence, expected[:VALUE_LIMIT], received[:VALUE_LIMIT], call["name"], "AssertionError")
    return evidence


def _parse_sebgen_tests(runner: str, document: dict, root: str) -> JsReport:
    """SEBGen's vitest and mocha reporters: a list of tests, each with its file, title path,
    outcome and error; vitest's also names the files that failed to load (mocha stops at one and
    writes no report)."""
    if document.get("reporter") != f"sebgen-{runner}" or not isinstance(document.get("tests"), list):
        raise RunnerReportError(f"the {runner} report is not SEBGen's {runner} reporter's")
    report = JsReport(runner)
    for test in document["tests"]:
        outcome, path, file = test.get("outcome"), test.get("path"), test.get("file")
        if outcome not in _SEVERITY or not isinstance(path, list) or not isinstance(file, str):
            raise RunnerReportError(f"the {runner} report has a malformed test entry: {str(test)[:200]}")
        file = _relative(file, root)
        evidence = None
        error = test.get("error")
        if outcome in ("failed", "error") and isinstance(error, dict):
            evidence = _reported_failure(error, file, "setup" if outcome == "error" else "call")
        _record(report, file, [str(t) for t in path], outcome, evidence)
    for file, error in (document.get("load_errors") or {}).items():
        said = error.get("message", "") if isinstance(error, dict) else error
        report.load_errors[_relative(file, root)] = _clean(str(said) or "the file did not load")
    return report


def _reported_failure(error: dict, file: str, phase: str) -> FailureEvidence:
    """Evidence from an error as SEBGen's reporters write it."""
    stack = str(error.get("stack") or "")
    name, message = str(error.get("name", "")), str(error.get("message", ""))
    evidence = _evidence_from_stack(stack or f"{name}: {message}", file, phase)
    evidence.error_type = name or evidence.error_type
    evidence.message = _clean(message)
    evidence.error = f"{name}: {message}".split("\n", 1)[0][:MESSAGE_LIMIT]
    if "expected" in error or "actual" in error:
        expected, actual = _reported_value(error.get("expected")), _reported_value(error.get("actual"))
        return _with_values(evidence, expected, actual, str(error.get("operator", "")))
    return evidence


def _parse_node_test(document: dict, root: str) -> JsReport:
    """node:test reports a test when it ends, children before their parent, each with its
    nesting depth: a suite adopts the finished entries one level below it."""
    events = document.get("events")
    if document.get("reporter") != "sebgen-node-test" or not isinstance(events, list):
        raise RunnerReportError("the node:test report is not SEBGen's node:test reporter's")
    report = JsReport("node-test")
    stderr = document.get("stderr") or {}
    finished: dict[tuple[str, int], list[tuple[list[str], dict]]] = {}  # (file, depth) -> (path, event)
    for event in events:
        if not isinstance(event, dict) or not isinstance(event.get("nesting"), int) or "outcome" not in event:
            raise RunnerReportError(f"the node:test report has a malformed event: {str(event)[:200]}")
        file, depth = event.get("file") or "", event["nesting"]
        children = finished.pop((file, depth + 1), [])
        name = str(event.get("name", ""))
        if depth == 0 and not children and not event.get("suite") and _names_file(name, file, root):
            # the test node:test wraps a whole file in: it fails alone when the file did not load
            if event["outcome"] == "failed":
                said = stderr.get(file) or stderr.get(name)  # Node 22 keys stderr by the relative name
                report.load_errors[_relative(file, root)] = _clean(str(said or "the file did not load"))
            continue
        if children or event.get("suite"):
            entry = [([name, *path], child) for path, child in children]
        else:
            entry = [([name], event)]
        finished.setdefault((file, depth), []).extend(entry)
    for (file, _depth), entries in finished.items():
        for path, event in entries:
            _record_node_test(report, _relative(file, root), path, event)
    return report


def _names_file(name: str, file: str, root: str) -> bool:
    return bool(file) and (name == file or posixpath.join(posixpath.normpath(root), name) == file)


def _record_node_test(report: JsReport, file: str, path: list[str], event: dict) -> None:
    error = event.get("error") if isinstance(event.get("error"), dict) else None
    if event.get("skip") or event.get("todo"):
        outcome = "skipped"
    elif event["outcome"] == "passed":
        outcome = "passed"
    else:
        outcome = "error" if error and error.get("failure_type") in _NODE_TEST_NOT_RUN else "failed"
    evidence = None
    if outcome in ("failed", "error") and error:
        evidence = _reported_failure(error, file, "setup" if outcome == "error" else "call")
    _record(report, file, path, outcome, evidence)
