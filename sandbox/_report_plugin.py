"""pytest plugin: write {nodeid: outcome} JSON to $SEBGEN_REPORT when the session ends.

Loaded with `-p sebgen_report_plugin` from a directory outside the task tree. It must stay
importable with nothing but the standard library and pytest: it runs inside task environments.
Setup/call/teardown are folded into one outcome per test: a failing setup or teardown makes
the test an `error`; a collection failure is recorded as `error` under the collector's nodeid.
"""
import json
import os

_RANK = {"passed": 0, "skipped": 1, "failed": 2, "error": 3}
_outcomes = {}
_collect_errors = []


def _merge(nodeid, outcome):
    old = _outcomes.get(nodeid)
    if old is None or _RANK[outcome] > _RANK[old]:
        _outcomes[nodeid] = outcome


def pytest_runtest_logreport(report):
    if report.when == "call":
        if report.passed:
            outcome = "passed"
        elif report.skipped:
            outcome = "skipped"  # includes xfail
        else:
            outcome = "failed"
        _merge(report.nodeid, outcome)
    elif report.failed:  # setup or teardown broke
        _merge(report.nodeid, "error")
    elif report.when == "setup" and report.skipped:
        _merge(report.nodeid, "skipped")


def pytest_collectreport(report):
    if report.failed:
        _collect_errors.append(report.nodeid)
        _outcomes[report.nodeid or "<session>"] = "error"


def pytest_sessionfinish(session, exitstatus):
    path = os.environ.get("SEBGEN_REPORT")
    if not path:
        return
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(
            {"outcomes": _outcomes, "collect_errors": _collect_errors, "exitstatus": int(exitstatus)},
            fh,
        )
    os.replace(tmp, path)
