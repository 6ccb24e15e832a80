"""pytest plugin: send {nodeid: outcome} JSON, one line, to the supervisor when the session ends.

Loaded with `-p sebgen_report_plugin` from a root-owned directory outside the task tree, before
any code of the task is imported. It must stay importable with nothing but the standard
library and pytest: it runs inside task environments. The report goes to the pipe whose
descriptor is in $SEBGEN_REPORT_FD (taken out of the environment at import), never to a file
the tests could rewrite. Setup/call/teardown are folded into one outcome per test: a failing
setup or teardown makes the test an `error`; a collection failure is recorded as `error` under
the collector's nodeid. A test whose call raised counts as failed whatever its report says
(a patched TestReport cannot turn an exception into a pass).
$SEBGEN_CANARY names a module of two tests with random names, one that must fail and one that
must pass; they are added to every session so that blanket tampering with outcomes shows.
"""

import json
import os

import pytest

_RANK = {"passed": 0, "skipped": 1, "failed": 2, "error": 3}
_outcomes = {}
_collect_errors = []
_raised = set()
_fd = os.environ.pop("SEBGEN_REPORT_FD", "")
_canary = os.environ.pop("SEBGEN_CANARY", "")


def _merge(nodeid, outcome):
    old = _outcomes.get(nodeid)
    if old is None or _RANK[outcome] > _RANK[old]:
        _outcomes[nodeid] = outcome


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_runtest_makereport(item, call):
    if call.when == "call" and call.excinfo is not None:
        skip = getattr(pytest.skip, "Exception", None)
        xfailed = getattr(pytest.xfail, "Exception", None)
        expected = item.get_closest_marker("xfail") is not None
        if (
            not (skip and call.excinfo.errisinstance(skip))
            and not (xfailed and call.excinfo.errisinstance(xfailed))
            and not expected
        ):
            _raised.add(item.nodeid)
    yield


def pytest_collection_modifyitems(session, config, items):
    if not _canary:
        return
    from pathlib import Path

    from _pytest.python import Module

    # first: a bug that breaks the process for the tests after it (closes pytest's capture
    # files, say) must not take the canaries down with it
    items[:0] = Module.from_parent(session, path=Path(_canary)).collect()


def pytest_runtest_logreport(report):
    if report.when == "call":
        if report.nodeid in _raised:
            outcome = "failed"
        elif report.passed:
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
    if not _fd:
        return
    line = json.dumps({"outcomes": _outcomes, "collect_errors": _collect_errors, "exitstatus": int(exitstatus)}) + "\n"
    data = line.encode("utf-8")
    fd = int(_fd)
    try:
        while data:
            data = data[os.write(fd, data) :]
    finally:
        os.close(fd)
