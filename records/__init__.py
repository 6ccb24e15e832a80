"""The typed records every package reads: the task and its layer results, the failure evidence of
a failing test, a strategy's evaluation and score, a hall-of-fame entry, the user-error base, and
the one reader of test ids.

A leaf: it imports no other package of SEBGen, and every package may import it. A record owns
its JSON conversion; inside the process records travel as objects, JSON exists only where a
record meets the disk (the run folder, the archive, exports)."""

from .errors import UserError
from .evidence import ADDRESS, MIRRORED_ORDERINGS, FailureEvidence
from .scores import Evaluation, HofEntry, Score, validations_of
from .task import (
    FAILURE_CATEGORIES,
    LAYERS,
    LayerResult,
    ReproductionCheck,
    ReproductionReport,
    Task,
    TaskFileError,
    first_failure,
    read_jsonl,
    write_jsonl,
)
from .test_ids import file_of_test, function_of_test, node_names, parameter_id, without_parameters

__all__ = [
    "ADDRESS",
    "MIRRORED_ORDERINGS",
    "Evaluation",
    "FAILURE_CATEGORIES",
    "FailureEvidence",
    "HofEntry",
    "LAYERS",
    "LayerResult",
    "ReproductionCheck",
    "ReproductionReport",
    "Score",
    "Task",
    "TaskFileError",
    "UserError",
    "first_failure",
    "node_names",
    "parameter_id",
    "read_jsonl",
    "file_of_test",
    "function_of_test",
    "validations_of",
    "without_parameters",
    "write_jsonl",
]
