"""Running a JavaScript/TypeScript recipe's tests in a container, and reading the run back.

    job = js_job(recipe, test_files, tree="/work/tree", private="/work/sebgen")  # files + argv for the supervisor
    run = js_test_run(recipe, verdict, test_files, tree="/work/tree", image=tag, key=job["key"])  # -> TestRun

The supervisor (root) writes `job.files` into its root-owned private folder and starts `job.cmd`
as the sandbox user: `_js_run.py` replaces whatever the tree holds at `node_modules` with a
symlink to the image's installed one (read-only: the root filesystem is), runs the recipe's build
steps in the tree (they compile sources, which differ between a task's states), then the runner
straight from `node_modules/.bin` (`js_report.runner_command`) with SEBGen's reporter from the
private folder, and sends the reporter's file back over the report pipe. Outcomes come only from
that file (`js_report.parse_report`); no report, a report that does not parse or a failed build
makes every requested test file an error, with the reason in `note`.

The tests run as the user the reporter runs as, so its file proves nothing by itself: SEBGen's
reporters sign it (HMAC-SHA256) with the run's `key`, which the supervisor hands over through a
root-made pipe that the reporter drains when it loads, before any test code (`signed_text` checks
it). Every Node process of the run preloads `_js_guard.cjs`, which freezes `node:assert`.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import posixpath
import secrets
from collections.abc import Sequence
from pathlib import Path

from .images import JS_APP, NODE_HOME
from .js_recipe import JsRecipe
from .js_report import REPORTERS, RunnerReportError, exit_failures, parse_report, runner_command
from .report import tail
from .types import TestRun

RUN_SCRIPT = Path(__file__).with_name("_js_run.py")
# preloaded in every Node process of a run: node:assert cannot be reassigned by the code under test
ASSERT_GUARD = Path(__file__).with_name("_js_guard.cjs")
# runners whose report SEBGen's own reporter writes, signed with the run's key
SIGNED_RUNNERS = frozenset({"node-test", "mocha", "vitest", "jest"})
MAC_PREFIX = "sebgen-mac "
# what a reporter that found no key (where the run handed one over) writes instead, with why
NO_KEY_PREFIX = "sebgen-nokey "
# what the mocha reporter writes instead when the run reassigned mocha's own methods
TAMPERED_PREFIX = "sebgen-tampered "
JOB_NAME = "sebgen_js_job.json"
# Variables every run gets: no colour codes in messages, runners in their non-interactive mode
JS_REPORT_LIMIT = 48 * 2**20  # a reporter file of a suite of 60,000 parametrized tests is 13 MB
RUN_ENV = {"CI": "1", "NO_COLOR": "1", "FORCE_COLOR": "0", "LANG": "C.UTF-8", "HOME": "/tmp"}


def js_verifier_files() -> dict[str, Path]:
    """The sources a standalone JS verifier (the Harbor export's) runs, by their path in a folder
    it puts on sys.path: SEBGen's integrity rules and report reader as they are (with the modules
    they import) and the runners' reporters, so an exported verdict is read as SEBGen reads it."""
    import records

    here, records_dir = Path(__file__).parent, Path(records.__file__).parent
    files = {f"sandbox/{name}": here / name for name in ("errors.py", "integrity.py", "js_report.py", "_js_run.py")}
    files.update({f"records/{name}": records_dir / name for name in ("errors.py", "evidence.py", "test_ids.py")})
    files.update({f"reporters/{path.name}": path for path in REPORTERS})
    return files


def js_job(recipe: JsRecipe, test_files: Sequence[str] | None, tree: str, private: str) -> dict:
    """What the supervisor needs to run `test_files` (all of the runner's own when None) of a JS
    tree: `cmd`, `env`, the private `files` (the run script, its job, the reporters, the assert
    guard) and `key`: the run's secret for SEBGen's reporter to sign its report with (None for a
    runner that writes its own), which the supervisor hands over through a pipe of its own."""
    if not recipe.runner:
        raise RunnerReportError("the recipe names no test runner: there is nothing to run the tests with")
    report = f"/tmp/sebgen-report-{secrets.token_hex(8)}.json"
    files_to_run = list(test_files or recipe.test_paths)
    # a run of the runner's own default files gets none: a positional file would replace that
    # default (and a spec in package.json's "mocha" would add to whatever default were spelled out)
    canary = run_canary(recipe.runner, private) if files_to_run else None
    if canary is not None:
        files_to_run = [canary["file"], *files_to_run]  # first: a crash in a later file cannot take it down
    argv = runner_command(recipe.runner, files_to_run, report, options=recipe.runner_options, reporters_dir=private)
    job = {
        "tree": tree,
        "node_modules": f"{JS_APP}/node_modules",
        "build": list(recipe.build),
        "argv": argv,
        "report": report,
        "report_limit": JS_REPORT_LIMIT,
        "runner": recipe.runner,
    }
    files = {RUN_SCRIPT.name: RUN_SCRIPT.read_text(), JOB_NAME: json.dumps(job)}
    files.update({path.name: path.read_text() for path in (*REPORTERS, ASSERT_GUARD)})
    if canary is not None:
        files[posixpath.basename(canary["file"])] = canary.pop("source")
    env = dict(RUN_ENV)
    env.update(dict(recipe.env))
    env.update(dict(recipe.test_env))
    if recipe.runner == "mocha":  # where the reporter writes under a mocha without --reporter-options (before 2.2)
        env["SEBGEN_MOCHA_REPORT"] = report
    guard = f"--require {posixpath.join(private, ASSERT_GUARD.name)}"
    env["NODE_OPTIONS"] = f"{env.get('NODE_OPTIONS', '')} {guard}".strip()
    # node_modules/.bin first, as package.json scripts see it; NODE_OPTIONS and npm config from the
    # host never reach a run (the supervisor starts from a clean environment)
    env["PATH"] = f"{tree}/node_modules/.bin:{NODE_HOME}/bin:/usr/local/bin:/usr/bin:/bin"
    return {
        "cmd": ["python3", "-I", "-S", posixpath.join(private, RUN_SCRIPT.name), posixpath.join(private, JOB_NAME)],
        "env": env,
        "files": files,
        "report_limit": JS_REPORT_LIMIT + 4096,  # the run script's header line and the signature too
        "key": secrets.token_hex(32) if recipe.runner in SIGNED_RUNNERS else None,
        "canary": canary,
    }


def js_test_run(
    recipe: JsRecipe,
    verdict: dict,
    test_files: Sequence[str] | None,
    tree: str,
    image: str,
    duration_s: float,
    timeout_s: float,
    key: str | None = None,
    canary: dict | None = None,
) -> TestRun:
    """The TestRun of a finished JS run from the supervisor's verdict (its `report` is what
    `_js_run.py` sent: a JSON line with the runner's exit code, then the reporter's file). With
    the run's `key`, a report whose signature does not check is no report; with its `canary`
    (mocha, node:test), neither is one where the canaries did not come out as planted."""
    exit_code, timed_out = int(verdict.get("exit_code", -9)), bool(verdict.get("timed_out"))
    log = tail(str(verdict.get("log_tail", "")))
    requested = list(test_files) if test_files else ["<session>"]

    # a test that called process.exit ended its file's run: the log's trace of it is its evidence,
    # under its file's name (the evidence producer finds the test by the trace's line)
    exits = {file: e.to_dict() for file, e in exit_failures(log, requested).items()}

    def lost(note: str, broken: bool = False) -> TestRun:
        return TestRun(
            outcomes={} if broken else {t: "error" for t in requested},
            exit_code=exit_code,
            timed_out=timed_out,
            duration_s=duration_s,
            log_tail=log,
            image=image,
            broken=broken,
            note=note,
            failures={} if broken else exits,
        )

    if timed_out:
        return lost(f"timed out after {timeout_s:g} s")
    if verdict.get("report_overflow"):
        return lost("the report is over the size limit", broken=True)
    if verdict.get("stopped"):
        return lost("the run was stopped", broken=True)
    header, _, text = (verdict.get("report") or "").partition("\n")
    try:
        sent = json.loads(header)
    except ValueError:
        sent = None
    if isinstance(sent, dict) and sent.get("report") is True:
        sent["report"] = text
    if not isinstance(sent, dict):
        return lost(f"the run script sent no result (exit code {exit_code})")
    if sent.get("build_failed"):
        return lost(f"the build step `{sent['build_failed']}` failed with exit code {sent.get('exit_code')}")
    runner_exit = int(sent.get("exit_code", exit_code))
    if sent.get("report") is None:
        why = sent.get("why") or "no report"
        said = last_said(log)
        said = f"; its output ended: {said}" if said else ""
        return lost(f"the {recipe.runner} run (exit code {runner_exit}) wrote no report: {why}{said}")
    try:
        text = sent["report"] if key is None else signed_text(sent["report"], key)
        if canary is not None:
            text = without_canaries(text, canary)
        report = parse_report(recipe.runner, text, tree)
    except RunnerReportError as exc:
        return lost(f"{exc} (exit code {runner_exit})")
    outcomes = dict(report.outcomes)
    # a test file that did not load has no test ids: the file itself stands as an error
    outcomes.update({file: "error" for file in report.load_errors})
    if not outcomes:
        return lost(f"the {recipe.runner} run (exit code {runner_exit}) reported no tests")
    if canary is not None and recipe.runner == "mocha" and 0 < runner_exit < 255:
        runner_exit -= 1  # mocha exits with its failure count (at most 255): the must-fail canary is one
    elif canary is not None and runner_exit == 1 and not set(outcomes.values()) & {"failed", "error"}:
        runner_exit = 0  # node --test exits 1 on any failure: the must-fail canary was the only one
    # why a file did not load joins the log: what the environment's repair rules read (a missing build)
    loads = "".join(f"\nsebgen: {file} did not load: {why}" for file, why in sorted(report.load_errors.items()))
    return TestRun(
        outcomes=outcomes,
        exit_code=runner_exit,
        timed_out=False,
        duration_s=duration_s,
        log_tail=tail(log + loads) if loads else log,
        image=image,
        collect_errors=sorted(report.load_errors),
        failures={
            **{file: said for file, said in exits.items() if file in report.load_errors},
            **{tid: evidence.to_dict() for tid, evidence in report.failures.items()},
        },
    )


def last_said(log: str, limit: int = 300) -> str:
    """The last line the run printed that is not SEBGen's own: why a runner that wrote no report
    stopped (an unknown option, a file that did not load), as it said it."""
    for line in reversed(log.splitlines()):
        line = line.strip()
        if line and not line.startswith("sebgen: "):
            return line[:limit]
    return ""


def signed_text(report: str, key: str) -> str:
    """The report SEBGen's reporter signed with `key` (its first line is the HMAC-SHA256 of the
    rest); anything else, a report the tests' processes wrote or changed, is refused."""
    first, _, text = report.partition("\n")
    if first.startswith(NO_KEY_PREFIX):
        raise RunnerReportError(f"SEBGen's reporter got no key to sign the report with: {first[len(NO_KEY_PREFIX) :]}")
    if first.startswith(TAMPERED_PREFIX):
        raise RunnerReportError(
            f"the code under test reassigned the test runner's own methods: {first[len(TAMPERED_PREFIX) :]}"
        )
    mac = hmac.new(key.encode(), text.encode(), hashlib.sha256).hexdigest()
    if not first.startswith(MAC_PREFIX) or not hmac.compare_digest(first[len(MAC_PREFIX) :], mac):
        raise RunnerReportError("the report is not the one SEBGen's reporter wrote: its signature does not check")
    return text


def run_canary(runner: str, private: str) -> dict | None:
    """The canary tests of a run of `runner` whose files SEBGen names (see `mocha_canary`), or
    None for a runner that only runs test files inside the project's own roots and patterns (jest,
    vitest): a canary file there would have to be written into the tree the tests can change."""
    if runner == "mocha":
        return mocha_canary(private)
    if runner == "node-test":
        return node_test_canary(private)
    return None


def mocha_canary(private: str) -> dict:
    """Two canary tests for a mocha run: one must fail, one must pass, under random names. Mocha
    runs the code under test in its own process, so a hook or wrapper that code installs
    (swallowing what tests throw) reaches the canaries too, and the run is refused. The file
    finds the run's interface when it loads (bdd, tdd, qunit: the globals mocha set for it; else
    `exports`), wherever it was chosen: the command line, a .mocharc, test/mocha.opts.
    -> `file`, `fail`/`pass` (title paths), `source`."""
    return _canary(
        private,
        body="""\
function mustFail() {
  throw new Error("sebgen canary: this test must fail");
}
function mustPass() {}
if (typeof describe === "function" && typeof it === "function") {
  describe(names.suite, function () {
    it(names.fail, mustFail);
    it(names.pass, mustPass);
  });
} else if (typeof suiteSetup === "function" && typeof suite === "function") {
  suite(names.suite, function () {
    test(names.fail, mustFail);
    test(names.pass, mustPass);
  });
} else if (typeof suite === "function" && typeof test === "function") {
  suite(names.suite);
  test(names.fail, mustFail);
  test(names.pass, mustPass);
} else {
  module.exports = { [names.suite]: { [names.fail]: mustFail, [names.pass]: mustPass } };
}
""",
    )


def node_test_canary(private: str) -> dict:
    """Two canary tests for a node:test run, as `mocha_canary`'s: one must fail, one must pass,
    under random names, in a file of SEBGen's private folder that the run names first. node:test
    runs each file in a process of its own (unless the run isolates none), so the canaries prove
    that the report is the run's own: a failing test came out failed, a passing one passed, both
    through the same stream and reporter as the project's tests. -> `file`, `fail`/`pass`
    (title paths), `source`, `runner`."""
    canary = _canary(
        private,
        imports='const { describe, it } = require("node:test");\n',
        body="""\
describe(names.suite, () => {
  it(names.fail, () => {
    throw new Error("sebgen canary: this test must fail");
  });
  it(names.pass, () => {});
});
""",
    )
    return {**canary, "runner": "node-test"}


def _canary(private: str, body: str, imports: str = "") -> dict:
    """A canary file's record: random suite and test names, and the source: `imports`, the names
    as `const names`, then `body`, which plants the tests. -> `file`, `fail`/`pass` (title
    paths), `source`."""
    token = secrets.token_hex(6)
    suite, fail, ok = f"sebgen canary {token}", f"must fail {secrets.token_hex(6)}", f"must pass {secrets.token_hex(6)}"
    return {
        "file": posixpath.join(private, f"_sebgen_canary_{token}.cjs"),
        "fail": [suite, fail],
        "pass": [suite, ok],
        "source": (
            '"use strict";\n// SEBGen\'s canary tests: the first must fail, the second must pass\n'
            f"{imports}const names = {json.dumps({'suite': suite, 'fail': fail, 'pass': ok})};\n{body}"
        ),
    }


def without_canaries(text: str, canary: dict) -> str:
    """The report without the canaries, once they came out as planted (else refused)."""
    if canary.get("runner") == "node-test":
        return _without_node_test_canaries(text, canary)
    try:
        doc = json.loads(text)
        tests = list(doc["tests"])
    except (ValueError, TypeError, KeyError) as exc:
        raise RunnerReportError(f"the mocha report does not parse: {exc}") from None
    mine = {tuple(t.get("path") or ()): t.get("outcome") for t in tests if t.get("file") == canary["file"]}
    planted = {tuple(canary["fail"]): "failed", tuple(canary["pass"]): "passed"}
    if mine != planted:
        raise RunnerReportError(
            "the canary tests did not come out as planted (one must fail, one must pass): "
            "the code under test changed how tests run"
        )
    doc["tests"] = [t for t in tests if t.get("file") != canary["file"]]
    return json.dumps(doc)


def _without_node_test_canaries(text: str, canary: dict) -> str:
    """The node:test report without the canary file's events, once its two tests came out as
    planted: the must-fail test failed and the must-pass one passed, each reported once."""
    try:
        doc = json.loads(text)
        events = list(doc["events"])
        mine = [e for e in events if e.get("file") == canary["file"]]
    except (ValueError, TypeError, KeyError, AttributeError) as exc:
        raise RunnerReportError(f"the node:test report does not parse: {exc}") from None
    names = {canary["fail"][-1]: "failed", canary["pass"][-1]: "passed"}
    seen = [(e.get("name"), e.get("outcome")) for e in mine if not e.get("suite") and e.get("name") in names]
    if sorted(seen) != sorted(names.items()):
        raise RunnerReportError(
            "the canary tests did not come out as planted (one must fail, one must pass): "
            "the code under test changed how tests run"
        )
    doc["events"] = [e for e in events if e.get("file") != canary["file"]]
    if isinstance(doc.get("stderr"), dict):
        doc["stderr"].pop(canary["file"], None)
    return json.dumps(doc)
