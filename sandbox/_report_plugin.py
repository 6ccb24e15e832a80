"""pytest plugin: send {nodeid: outcome} JSON, one line, to the supervisor when the session ends.

Loaded with `-p sebgen_report_plugin` from a root-owned directory outside the task tree, before
any code of the task is imported. It must stay importable with nothing but the standard
library and pytest: it runs inside task environments. The report goes to the pipe whose
descriptor is in $SEBGEN_REPORT_FD (taken out of the environment at import), never to a file
the tests could rewrite. Setup/call/teardown are folded into one outcome per test: a failing
setup or teardown makes the test an `error`; a collection failure is recorded as `error` under
the collector's nodeid. A test whose call raised counts as failed whatever its report says
(a patched TestReport cannot turn an exception into a pass).
The canary tests (one must fail, one must pass; random names) come from their own plugin
module (`sandbox.report.pytest_args`), so blanket tampering with outcomes shows.

Evidence: for each test whose call (or setup) raised, the report's "failures" maps its nodeid
to what a reader of the failure needs, all strings repr'd and cut (`_cut`): "when", "type" (the
exception's class name), "message" (its text as pytest's assertion rewriting made it, e.g.
"assert '1 Bytes' == '1 Byte'"), "compare" ({"op", "left", "right"} of the failing comparison,
from `pytest_assertrepr_compare`), "line" (1-based line of the test function's frame when it
failed), "frames" ([line, function] of the frames in the test's own file below the test: the
helpers that asserted), "raised_in" (function where the exception was raised), "params" and
"indices" (parametrize values and their positions) and "locals" (the test frame's names).
At most EVIDENCE_TESTS tests get evidence, each at most about 6 KB. Evidence is information for
the statement writer only: outcomes never depend on it, and a failure to gather it is ignored.
"""

import inspect
import json
import os
import re
import reprlib
import sys

import pytest

_RANK = {"passed": 0, "skipped": 1, "failed": 2, "error": 3}
_outcomes = {}
_collect_errors = []
_raised = set()
# a node id longer than this is counted, not reported: a suite's ids made of its 5 MB inputs
# (`test_preamble[\r\n\r\n...]`) filled the report past its limit and voided every run
ID_CHARS = 2000
_unreported = set()
_fd = os.environ.pop("SEBGEN_REPORT_FD", "")
# Set by the container's job (sandbox.docker_backend), with PYTEST_DISABLE_PLUGIN_AUTOLOAD=1: pytest
# then does not mark every module of each plugin's distribution for assertion rewriting (all of
# hypothesis, compiled anew on every run: about 1.5x the tests' CPU on attrs), which the native
# run, whose plugins are named with -p, does not do either. The environment's plugins are loaded
# here instead, as autoloading loads them (by entry point, after the `-p no:NAME` blocks of the
# ini's addopts), and the variable is taken back, so the tests see the environment they would.
_load_entry_points = os.environ.pop("SEBGEN_LOAD_ENTRY_POINTS", "") == "1"
_failures = {}
_compares = []  # (op, left, right) of the comparisons that failed in the running test
EVIDENCE_TESTS = 64
VALUE_CHARS = 240
# a case's parameter is an input the statement has to give whole (attrs' 370-character pickles)
PARAM_CHARS = 1000
MESSAGE_CHARS = 1200
NOTES_CHARS = 600
NAMES = 16


# What changes from one run of the same test to the next: object addresses and thread idents
# (`<Job object at 0x7f...>`, `<Thread(..., stopped 1403...)>`), and the tree's own folder (a new
# temporary folder on every local run): paths are kept relative to the tree. Evidence feeds the
# statement, which must be the same on every run of a seed.
_VOLATILE = re.compile(r"\b0x[0-9a-fA-F]{8,}\b|\b\d{9,}(?=\)>|'\)?>)")
_tree_prefix = []  # "<the folder pytest was started in>/", set when the session is configured


def pytest_addhooks(pluginmanager):
    if _load_entry_points:
        pluginmanager.load_setuptools_entrypoints("pytest11")
        os.environ.pop("PYTEST_DISABLE_PLUGIN_AUTOLOAD", None)


def pytest_configure(config):
    _tree_prefix[:] = [str(config.invocation_params.dir).rstrip("/") + "/"]


def _stable(text):
    for prefix in _tree_prefix:
        text = text.replace(prefix, "")
    return _VOLATILE.sub("…", text)


def _cut(text, limit=VALUE_CHARS):
    text = _stable(str(text))
    if len(text) <= limit:
        return text
    head = (limit - 5) * 2 // 3
    return text[:head] + " ... " + text[len(text) - (limit - 5 - head) :]


_SHORT = reprlib.Repr()
_SHORT.maxstring = _SHORT.maxother = VALUE_CHARS
_SHORT.maxlist = _SHORT.maxtuple = _SHORT.maxset = _SHORT.maxdict = 12


def _repr(value, limit=VALUE_CHARS):
    try:
        if isinstance(value, (set, frozenset)) and len(value) <= 1000:  # in an order every run gives
            items = ", ".join(sorted(repr(v) for v in value))
            text = (f"{{{items}}}" if items else "set()") if type(value) is set else f"frozenset({{{items}}})"
            return _cut(text, limit)
        # a huge container is never rendered whole; a text is, so that its cut is `_cut`'s marked one
        big = isinstance(value, (list, tuple, set, frozenset, dict)) and len(value) > 1000
        return _cut(_SHORT.repr(value) if big else repr(value), limit)
    except Exception as exc:  # a broken __repr__ is evidence too
        return f"<repr failed: {type(exc).__name__}>"


def _names(mapping, limit=VALUE_CHARS):
    out = {}
    for name, value in list(mapping.items()):
        if len(out) >= NAMES:
            break
        if not isinstance(name, str) or name.startswith(("@", "__")) or name == "self":
            continue
        out[name] = _repr(value, limit)
    return out


def _evidence(item, call):
    exc = call.excinfo
    record = {"when": call.when, "type": exc.type.__name__, "message": _cut(_text(exc.value), MESSAGE_CHARS)}
    notes = getattr(exc.value, "__notes__", None)
    if isinstance(notes, list) and notes:  # Hypothesis's "Falsifying example: test(start=None, ...)"
        record["notes"] = _cut("\n".join(str(n) for n in notes), NOTES_CHARS)
    compared = _compares[-1] if _compares else _unittest_compared(list(exc.traceback))
    if compared:
        op, left, right = compared
        record["compare"] = {"op": op, "left": left, "right": right}
    spec = getattr(item, "callspec", None)
    if spec is not None:
        record["params"] = _names(getattr(spec, "params", {}) or {}, PARAM_CHARS)
        record["indices"] = {str(k): int(v) for k, v in (getattr(spec, "indices", {}) or {}).items()}
    obj = getattr(item, "obj", None)
    try:  # a decorated test (functools.wraps): its own function, not the wrapper's
        obj = inspect.unwrap(getattr(obj, "__func__", obj))
    except Exception:
        pass
    code = getattr(getattr(obj, "__func__", obj), "__code__", None)
    path = str(getattr(item, "path", None) or getattr(item, "fspath", ""))
    entries = list(exc.traceback)
    mine = [i for i, e in enumerate(entries) if code is not None and e.frame.code.raw is code]
    name = getattr(item, "originalname", None) or item.name.split("[")[0]
    named = [i for i, e in enumerate(entries) if str(e.path) == path and e.frame.code.name == name]
    if not mine or (named and named[-1] > mine[-1]):
        # a decorated test: its own frame is the last of its name in its file (Hypothesis's
        # `given` runs it from a wrapper that has the test's name, file and first line)
        mine = named
    if mine:
        at = mine[-1]
        if str(entries[at].path) != path:
            # a wrapper of another module (parameterized.expand's `standalone_func`): the test's
            # own code is the first frame it calls in the test's file
            at = next((i for i in range(at + 1, len(entries)) if str(entries[i].path) == path), at)
        test_entry = entries[at]
        record["line"] = test_entry.lineno + 1
        record["locals"] = _names(test_entry.locals)
        record["frames"] = [[e.lineno + 1, e.frame.code.name] for e in entries[at + 1 :] if str(e.path) == path][-4:]
    elif code is not None and (running := _running_frame(code)) is not None:
        # a unittest subTest in a helper: the exception's traceback starts at the helper's `with`,
        # and unittest reports the subtest from inside the test, whose frame is still running
        record["line"] = running.f_lineno
        record["locals"] = _names(running.f_locals)
        record["frames"] = [[e.lineno + 1, e.frame.code.name] for e in entries if str(e.path) == path][-4:]
    if entries:
        record["raised_in"] = _cut(entries[-1].frame.code.name, 80)
    return record


# the comparison each unittest assert method makes (`tasks.evidence`'s UNITTEST_OPS, restated: this
# plugin runs in task environments and imports nothing of SEBGen)
_UNITTEST_OPS = {
    "assertNotEqual": "!=",
    "assertIs": "is",
    "assertIsNot": "is not",
    "assertIn": "in",
    "assertNotIn": "not in",
    "assertGreater": ">",
    "assertGreaterEqual": ">=",
    "assertLess": "<",
    "assertLessEqual": "<=",
}


def _unittest_op(name):
    """The comparison a unittest assert method makes, "" for one that is no plain comparison
    (`assertAlmostEqual`, `assertCountEqual`)."""
    plain_equal = name.endswith(("Equal", "Equals")) and not any(w in name for w in ("Not", "Almost", "Count"))
    return _UNITTEST_OPS.get(name) or ("==" if plain_equal else "")


def _unittest_compared(entries):
    """(op, left, right) of a failed unittest assertion, from the two values in the frame of its
    outermost assert method: its message gives none for sets ("Items in the first set but not
    the second: ...") and only a diff for long texts, lists and dicts."""
    for entry in entries:
        code = entry.frame.code.raw
        if not code.co_filename.endswith(os.path.join("unittest", "case.py")) or not code.co_name.startswith("assert"):
            continue
        op = _unittest_op(code.co_name)
        if not op or code.co_argcount < 3:
            return None
        first, second = code.co_varnames[1:3]
        values = entry.frame.f_locals
        if first not in values or second not in values:
            return None
        return op, _repr(values[first]), _repr(values[second])
    return None


def _running_frame(code):
    frame = sys._getframe()
    while frame is not None and frame.f_code is not code:
        frame = frame.f_back
    return frame


def _text(value):
    try:
        return str(value)
    except Exception as exc:
        return f"<str failed: {type(exc).__name__}>"


def pytest_assertrepr_compare(config, op, left, right):
    try:
        _compares.append((str(op), _repr(left), _repr(right)))
        del _compares[:-4]
    except Exception:
        pass
    return None


def pytest_runtest_setup(item):
    del _compares[:]


def _merge(nodeid, outcome):
    if len(nodeid) > ID_CHARS:
        _unreported.add(nodeid)
        return
    old = _outcomes.get(nodeid)
    if old is None or _RANK[outcome] > _RANK[old]:
        _outcomes[nodeid] = outcome


def _unexpected(item, call):
    """The call raised, and not as a skip or an expected failure (an xfail marker, `pytest.xfail`)."""
    skip = getattr(pytest.skip, "Exception", None)
    xfailed = getattr(pytest.xfail, "Exception", None)
    return (
        call.excinfo is not None
        and not (skip and call.excinfo.errisinstance(skip))
        and not (xfailed and call.excinfo.errisinstance(xfailed))
        and item.get_closest_marker("xfail") is None
    )


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_runtest_makereport(item, call):
    if call.when == "call" and _unexpected(item, call):
        _raised.add(item.nodeid)
    yield
    # after the other implementations: unittest's sets call.excinfo only then; an expected
    # failure gets none (a suite's 76 xfail cases had used up every slot before the real failure)
    if call.when in ("setup", "call") and len(_failures) < EVIDENCE_TESTS and _unexpected(item, call):
        if item.nodeid not in _failures and len(item.nodeid) <= ID_CHARS:
            try:
                _failures[item.nodeid] = _evidence(item, call)
            except Exception:  # evidence is optional; outcomes are not
                pass


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
        if report.nodeid and report.nodeid not in _failures and len(_failures) < EVIDENCE_TESTS:
            try:
                _failures[report.nodeid] = _collect_evidence(report)
            except Exception:  # evidence is optional; outcomes are not
                pass


def _collect_evidence(report):
    """A test file that failed to load (an import of a name the buggy state lacks): its tests
    never ran, and this is what they would have said. The exception's last `E` line of pytest's
    text, and the line of the file's own frame (`tests/test_x.py:7: in <module>`)."""
    text = _text(report.longrepr)
    errors = [ln[1:].strip() for ln in text.splitlines() if ln.startswith("E ") and ln[1:].strip()]
    kind, _, message = (errors[-1] if errors else "").partition(": ")
    record = {"when": "collect", "type": _cut(kind, 120), "message": _cut(_stable(message), MESSAGE_CHARS)}
    lines = re.findall(r"^" + re.escape(report.nodeid) + r":(\d+): in <module>", text, re.M)
    if lines:
        record["line"] = int(lines[-1])
    return record


def pytest_sessionfinish(session, exitstatus):
    if not _fd:
        return
    report = {"outcomes": _outcomes, "collect_errors": _collect_errors, "exitstatus": int(exitstatus)}
    if _unreported:
        report["unreported_long_ids"] = len(_unreported)
    try:
        report["failures"] = json.loads(json.dumps(_failures))  # only what serialises
    except Exception:
        pass
    line = json.dumps(report) + "\n"
    data = line.encode("utf-8")
    fd = int(_fd)
    try:
        while data:
            data = data[os.write(fd, data) :]
    finally:
        os.close(fd)
