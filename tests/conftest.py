"""Two speeds of tests: `pytest -m "not slow"` for development, the whole suite in CI.

A test is slow when it runs SEBGen end to end (an evolution run, `sebgen generate` of a task
panel). Files mark themselves with `pytest.mark.slow`; tests that reach such a run through a
shared module fixture are marked here, by the fixture's name, so the fixture's file needs no
per-test marks.
"""
import pytest

# (test module, module fixture) pairs whose fixture runs the CLI end to end
SLOW_FIXTURES = {("test_agents_eval", "panel"), ("test_export", "panel"), ("test_report", "report"),
                 ("test_evolution_e2e", "reference"), ("test_generate_cli", "generated")}


def pytest_collection_modifyitems(config, items):
    for item in items:
        module = item.module.__name__.rsplit(".", 1)[-1] if getattr(item, "module", None) else ""
        if any((module, name) in SLOW_FIXTURES for name in getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.slow)
