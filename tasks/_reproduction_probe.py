"""The test file that runs a statement's reproductions in the sandbox (`tasks.reproduction`).

It is copied into the tree as a test file and run by the backend like any test, its verdicts
coming back through the normal report. Each reproduction runs in its own Python process,
bounded in time, so it cannot see state another test left, cannot hang the run, and cannot
touch this process. Per reproduction (and variant) two tests:

- `...-buggy` passes when the run behaves as the statement says it does on the current code
  (the stated exception type; the stated value on one side of the final assert's comparison,
  or of a final bare expression that must then run without error; else any exception);
- `...-fixed` passes when the run finishes without an exception;
- `...-seen` (for the cases the spec marks "seen") always fails, its message saying what the run did: the
  report carries it back as the record of what happened on each state.

A spec that names its run's `state` gets that side's tests only (and the seen ones, first).

Runs on the project's own Python: only the standard library, no syntax past Python 3.7.
"""

import json
import os
import re
import subprocess
import sys
import tempfile

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "sebgen_reproductions.json"), encoding="utf-8") as _fh:
    SPEC = json.load(_fh)

# Runs in the child: the code, with both sides of a final `assert a <op> b` kept, so the
# value the current code gives can be compared with the stated one.
RUNNER = r"""
import ast, json, os, reprlib, sys, types
code_path, result_path = sys.argv[1], sys.argv[2]
source = open(code_path, encoding="utf-8").read()
out = {"status": "ok"}
# as a script saved at the checkout's root and run from there: its globals are the module
# `__main__` (a library that resolves names through sys.modules[cls.__module__] finds them)
main = types.ModuleType("__main__")
main.__file__ = os.path.join(os.getcwd(), "reproduction.py")
sys.modules["__main__"] = main
namespace = main.__dict__
try:
    tree = ast.parse(source)
    last = tree.body[-1] if tree.body else None
    if isinstance(last, ast.Assert) and isinstance(last.test, ast.Compare) and len(last.test.ops) == 1:
        keep = ast.Assign(targets=[ast.Name(id="_sebgen_left", ctx=ast.Store())], value=last.test.left)
        keep_right = ast.Assign(
            targets=[ast.Name(id="_sebgen_right", ctx=ast.Store())], value=last.test.comparators[0]
        )
        last.test.left = ast.Name(id="_sebgen_left", ctx=ast.Load())
        last.test.comparators[0] = ast.Name(id="_sebgen_right", ctx=ast.Load())
        tree.body[-1:] = [ast.copy_location(keep, last), ast.copy_location(keep_right, last), last]
    elif isinstance(last, ast.Expr):  # a bare expression: its value, as an interpreter shows it
        keep = ast.Assign(targets=[ast.Name(id="_sebgen_left", ctx=ast.Store())], value=last.value)
        tree.body[-1:] = [ast.copy_location(keep, last)]
        out["shows"] = True
    ast.fix_missing_locations(tree)
    compiled = compile(tree, "<reproduction>", "exec")
except (SyntaxError, ValueError) as exc:
    out = {"status": "syntax", "type": type(exc).__name__, "message": str(exc)}
else:
    try:
        exec(compiled, namespace)
    except SystemExit as exc:
        # a subclass is the library's own error (docopt's DocoptExit), whatever its code
        if exc.code not in (None, 0) or type(exc) is not SystemExit:
            out.update({"status": "raised", "type": type(exc).__name__, "message": str(exc.code)})
    except BaseException as exc:
        out.update({"status": "raised", "type": type(exc).__name__, "message": str(exc)[:1000]})
        # pytest.warns turns an exception its body raised into DID NOT WARN; the traceback shows both
        if str(exc).startswith("DID NOT WARN") and exc.__context__ is not None:
            out["masked"] = type(exc.__context__).__name__
    short = reprlib.Repr()
    short.maxstring = short.maxother = 240
    short.maxlist = short.maxtuple = short.maxset = short.maxdict = 12
    for side in ("left", "right"):
        if "_sebgen_" + side not in namespace:
            continue
        value = namespace["_sebgen_" + side]
        try:
            big = isinstance(value, (str, bytes, list, tuple, set, frozenset, dict)) and len(value) > 1000
            out[side] = short.repr(value) if big else repr(value)
            if isinstance(value, (set, frozenset)) and not big:  # in the order the evidence gives (sorted)
                items = ", ".join(sorted(repr(v) for v in value))
                out[side] = ("{%s}" % items if items else "set()") if type(value) is set else "frozenset({%s})" % items
        except Exception as exc:
            out[side] = "<repr failed: %s>" % type(exc).__name__
with open(result_path, "w", encoding="utf-8") as fh:
    json.dump(out, fh)
"""

_runs = {}


def run(case):
    """The child's result for one reproduction, run once per session."""
    key = case["id"]
    if key not in _runs:
        with tempfile.TemporaryDirectory(prefix="sebgen-repro-") as tmp:
            code_path, result_path = os.path.join(tmp, "code.py"), os.path.join(tmp, "outcome.json")
            with open(code_path, "w", encoding="utf-8") as fh:
                fh.write(case["code"])
            try:
                subprocess.run(
                    [sys.executable, "-c", RUNNER, code_path, result_path],
                    cwd=os.path.dirname(HERE),
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                    timeout=SPEC["timeout_s"],
                )
                with open(result_path, encoding="utf-8") as fh:
                    result = json.load(fh)
            except subprocess.TimeoutExpired:
                result = {"status": "timeout", "type": "", "message": "ran over %s s" % SPEC["timeout_s"]}
            except (OSError, ValueError):
                result = {"status": "died", "type": "", "message": "the process ended without a result"}
        _runs[key] = result if isinstance(result, dict) else {"status": "died", "type": "", "message": ""}
    return _runs[key]


_VOLATILE = re.compile(r"\b0x[0-9a-fA-F]{8,}\b|\b\d{9,}(?=\)>|'\)?>)")
_ELIDED_ADDRESS = re.compile(r" (?:at|@) \u2026(?=\)?>)")


TREE = os.path.dirname(HERE) + os.sep  # where the snippets run: the evidence gives paths relative to it


def _norm(text):
    text = _VOLATILE.sub("\u2026", re.sub(SPEC.get("address") or "$^", "", str(text)))  # as the evidence left it out
    text = str(text).replace(TREE, "")
    text = _ELIDED_ADDRESS.sub("", text)  # the report writes `<X at \u2026>` for `<X at 0x7f..>`, gone above
    return " ".join(text.replace('"', "'").split())


def shows(stated, actual):
    """`actual` is the stated value: equal up to addresses, whitespace and quote style; a
    stated value cut with ' ... ' (the report's cut of a long value) matches its two ends."""
    stated, actual = _norm(stated), _norm(actual)
    stated = re.sub(r" \(where .*\)$", "", stated)  # pytest's explanation after a value (`False (where ...)`)
    if " ... " in stated:
        head, _, tail = stated.partition(" ... ")
        return actual.startswith(head) and actual.endswith(tail)
    return stated == actual


def happened(result):
    if result.get("status") == "ok":
        shown = "; its last line gives %s" % result["left"][:200] if result.get("shows") and "left" in result else ""
        return "ran without an exception" + shown
    if result.get("status") == "timeout":
        return "did not finish within %s s" % SPEC["timeout_s"]
    text = "raised %s: %s" % (result.get("type"), result.get("message", ""))
    if "right" in result:
        text += " (the final check compares %s with %s)" % (result["left"][:200], result["right"][:200])
    elif "left" in result and result.get("shows"):
        text += " (the last line gives %s)" % result["left"][:200]
    elif "left" in result:
        text += " (the final check's left side is %s)" % result["left"][:200]
    return text[:600]


def behaves_as_stated(claim, result):
    if result.get("status") in ("syntax", "timeout", "died"):
        return False
    kind = result.get("type", "")
    if claim.get("error"):
        return result.get("status") == "raised" and claim["error"] in (kind, result.get("masked"))
    if claim.get("no_raise"):  # the checked call raised nothing: the check itself failed
        failed = kind in ("AssertionError", "Failed") or str(result.get("message", "")).startswith("DID NOT")
        return result.get("status") == "raised" and failed
    if claim.get("observed") is not None:
        # the check's computed side is either one (`assert f(x) == 3`, `assertEqual(want, f(x))`)
        if not any(shows(claim["observed"], result[side]) for side in ("left", "right") if side in result):
            return False
        return result.get("status") == "ok" if claim.get("bare") else kind == "AssertionError"
    return result.get("status") == "raised"


# the run's own state only (the other side's test would fail here, and every failure takes one of
# the report's evidence places), and the seen tests first: a long statement's records all come back
_SIDES = [SPEC["state"]] if SPEC.get("state") in ("buggy", "fixed") else ["buggy", "fixed"]
CASES = [(case, "seen") for case in SPEC["cases"] if case.get("seen")]
CASES += [(case, side) for case in SPEC["cases"] for side in _SIDES]


@pytest.mark.parametrize("case,side", CASES, ids=["%s-%s" % (c["id"], s) for c, s in CASES])
def test_reproduction(case, side):
    result = run(case)
    if side == "buggy":
        assert behaves_as_stated(case["claim"], result), happened(result)
    elif side == "fixed":
        assert result.get("status") == "ok", happened(result)
    else:
        pytest.fail(happened(result), pytrace=False)
