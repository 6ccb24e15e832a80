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
from tests.e2e import FAST, ROOT, sebgen


@pytest.hookimpl(tryfirst=True)  # before fixtures are set up: module fixtures check the marker too
def pytest_runtest_setup(item):
    marks.CURRENT[:] = [item]


@pytest.hookimpl(trylast=True)
def pytest_runtest_teardown(item):
    marks.CURRENT[:] = []


@pytest.fixture(scope="session")
def quickstart_run(tmp_path_factory):
    """The quickstart config's evolution run with the `FAST` settings, made once per session: it is
    deterministic, so every module that needs it reads the same folder (a test that writes into a
    run works on its own copy)."""
    marks.require_mark("slow", "runs an evolution end to end")
    run_dir = tmp_path_factory.mktemp("quickstart") / "run"
    sebgen("run", ROOT / "configs" / "quickstart.yaml", "--run-dir", run_dir, *FAST, check=True, timeout=1800)
    return run_dir
