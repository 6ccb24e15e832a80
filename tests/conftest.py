"""Test tiers by explicit markers (pyproject's `--strict-markers` refuses unknown ones):

- `docker`: needs a Docker engine (required in CI, skipped with a reason elsewhere);
- `slow`: runs SEBGen end to end (an evolution run, `sebgen generate` of a panel), a browser or
  a second Python;
- `interop`: runs the real Harbor / SWE-bench clients.

The fast tier is `python -m pytest -m "not docker and not slow"`. Helpers that reach Docker or
run SEBGen end to end check that the calling test carries the marker (`tests/marks.py`).
"""

import pytest

from tests import marks


@pytest.hookimpl(tryfirst=True)  # before fixtures are set up: module fixtures check the marker too
def pytest_runtest_setup(item):
    marks.CURRENT[:] = [item]


@pytest.hookimpl(trylast=True)
def pytest_runtest_teardown(item):
    marks.CURRENT[:] = []
