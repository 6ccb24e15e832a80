"""Markers are explicit: a test that reaches Docker or runs SEBGen end to end must say so.

`require_mark` is called by the helpers that do those things (`require_docker`, the end-to-end
runners in `tests/e2e.py`). A test that calls one without the marker fails with one sentence,
so a renamed fixture can never slip a Docker or end-to-end test into the fast tier.
"""

from __future__ import annotations

import pytest

CURRENT: list = []  # the test item being set up or run (conftest's pytest_runtest_setup fills it)


def require_mark(name: str, why: str) -> None:
    if not CURRENT:
        return  # called outside pytest (a benchmark reusing the helper)
    item = CURRENT[-1]
    if item.get_closest_marker(name) is None:
        pytest.fail(f"{item.nodeid} {why} but is not marked @pytest.mark.{name}", pytrace=False)
