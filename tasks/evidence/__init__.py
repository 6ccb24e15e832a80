"""The evidence engine: how each FAIL_TO_PASS test fails on the buggy state, as
`records.FailureEvidence`.

A producer per language reads its test runner's report of each failure and the test's own
source at the task's commit; what only its runner knows stays inside it. `failure_evidence` is
the entry point the functional layer calls; Python (pytest) is the one producer so far."""

from .python import failure_evidence, repo_modules
from .repo import file_at

__all__ = ["failure_evidence", "file_at", "repo_modules"]
