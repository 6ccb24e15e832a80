"""Turning a plugin report plus an exit code into trustworthy per-test outcomes."""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

PLUGIN_MODULE = "sebgen_report_plugin"
PLUGIN_SOURCE = Path(__file__).with_name("_report_plugin.py")

# pytest exit codes: 0 all passed, 1 some failed, 2 interrupted, 3 internal error,
# 4 usage error, 5 no tests collected
_EXIT_OK, _EXIT_TESTS_FAILED, _EXIT_NO_TESTS = 0, 1, 5


@dataclass
class ParsedReport:
    outcomes: dict[str, str]
    broken: bool
    note: str
    collect_errors: list[str] = field(default_factory=list)


def pytest_args(test_files: Sequence[str] | None, rootdir: str) -> list[str]:
    """The pytest command-line arguments shared by every backend (after `python -m pytest`)."""
    return [
        "-p", PLUGIN_MODULE,
        "-p", "no:cacheprovider",
        "--rootdir", rootdir,  # nodeids relative to the tree root, whatever test files are given
        "--continue-on-collection-errors",
        "-q", "-rN", "--color=no",
        *(test_files or []),
    ]


def parse_report(
    raw: bytes | None, exit_code: int, test_files: Sequence[str] | None, timed_out: bool
) -> ParsedReport:
    """Read the plugin's JSON and cross-check it with pytest's exit code."""
    if timed_out:
        return ParsedReport({}, False, "")
    data = None
    if raw:
        try:
            data = json.loads(raw)
        except ValueError:
            data = None
    if data is None:
        if exit_code == _EXIT_OK:
            return ParsedReport({}, True, "pytest exited 0 but wrote no report")
        # the process died before reporting: every requested test counts as an error
        requested = list(test_files) if test_files else ["<session>"]
        return ParsedReport(
            {t: "error" for t in requested},
            False,
            f"pytest exited with code {exit_code} and wrote no report",
        )
    outcomes = {str(k): str(v) for k, v in data.get("outcomes", {}).items()}
    collect_errors = [str(c) for c in data.get("collect_errors", [])]
    bad = sorted(k for k, v in outcomes.items() if v in ("failed", "error"))
    if exit_code == _EXIT_OK and bad:
        return ParsedReport(outcomes, True, f"pytest exited 0 although {len(bad)} test(s) failed", collect_errors)
    if exit_code == _EXIT_TESTS_FAILED and not bad:
        return ParsedReport(outcomes, True, "pytest exited 1 although the report shows no failure", collect_errors)
    if exit_code not in (_EXIT_OK, _EXIT_TESTS_FAILED, _EXIT_NO_TESTS):
        return ParsedReport(outcomes, False, f"pytest exited with code {exit_code}", collect_errors)
    return ParsedReport(outcomes, False, "", collect_errors)


def tail(text: str, limit: int = 4000) -> str:
    return text if len(text) <= limit else text[-limit:]
