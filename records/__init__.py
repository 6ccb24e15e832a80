"""The typed records every package reads: the task and its layer results, the failure evidence of
a failing test, the user-error base.

A leaf: it imports no other package of SEBGen, and every package may import it. A record owns
its JSON conversion; inside the process records travel as objects, JSON exists only where a
record meets the disk (the run folder, the archive, exports)."""

from .errors import UserError
from .evidence import FailureEvidence
from .task import (
    FAILURE_CATEGORIES,
    LAYERS,
    LayerResult,
    Task,
    TaskFileError,
    first_failure,
    read_jsonl,
    write_jsonl,
)

__all__ = [
    "FAILURE_CATEGORIES",
    "FailureEvidence",
    "LAYERS",
    "LayerResult",
    "Task",
    "TaskFileError",
    "UserError",
    "first_failure",
    "read_jsonl",
    "write_jsonl",
]
