"""The evidence engine: how each FAIL_TO_PASS test fails on the buggy state, as
`records.FailureEvidence`.

A producer per language reads its test runner's report of each failure and the test's own
source at the task's commit; what only its runner knows stays inside it. `failure_evidence` is
the entry point the functional layer calls: it hands each test to the producer of the language
its file is written in (`environment.language_of_test`): Python (pytest) and JavaScript/TypeScript
(jest, vitest, mocha, node:test; `js.py`)."""

from __future__ import annotations

from environment import language_of_test
from records import FailureEvidence

from . import js, python
from .python import repo_modules
from .repo import file_at

_PRODUCERS = {"python": python.failure_evidence, "js": js.failure_evidence}


def failure_evidence(repo_path, commit: str, failures: dict, tests) -> dict[str, FailureEvidence]:
    """Per test of `tests` with a reported failure, its evidence from its language's producer
    (a test in no known language goes to Python's, as before languages were told apart)."""
    tests = list(tests)
    by_producer: dict[str, list[str]] = {}
    for test_id in tests:
        language = language_of_test(test_id)
        by_producer.setdefault(language.evidence if language else "python", []).append(test_id)
    found: dict[str, FailureEvidence] = {}
    for producer, ids in by_producer.items():
        found.update(_PRODUCERS[producer](repo_path, commit, failures, ids))
    return {test_id: found[test_id] for test_id in tests if test_id in found}


__all__ = ["failure_evidence", "file_at", "repo_modules"]
