"""The task record: SWE-bench fields plus SEBGen's own, one JSON object per line (docs/contracts.md)."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path

from .errors import UserError
from .evidence import FailureEvidence

# Failure categories shared by validation, the exploration value and prompt mutation.
FAILURE_CATEGORIES = (
    "schema",
    "compile_error",
    "patch_error",
    "build_error",
    "no_f2p",
    "narrow_tests",
    "flaky",
    "timeout",
    "judge_reject",
    "vague_statement",
    "leakage",
    "duplicate",
    "llm_error",
    "bad_json",
)

LAYERS = ("schema", "compile", "functional", "quality", "semantic")


@dataclass
class LayerResult:
    """What one validation layer decided about a task."""

    passed: bool
    score: float
    reason: str
    category: str | None = None  # failure category when not passed
    details: dict = field(default_factory=dict)  # the layer's own findings (judge criteria, F2P evidence, ...)

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> LayerResult:
        return cls(
            passed=bool(data.get("passed")),
            score=data.get("score", 0.0),
            reason=data.get("reason", ""),
            category=data.get("category"),
            details=data.get("details") or {},
        )


@dataclass
class ReproductionCheck:
    """What the execution check (`tasks.reproduction`) found for one code block a statement
    showed: the claim read from the text and the evidence, what the block did on each state,
    and what became of it ("kept", "rewritten", "dropped")."""

    code: str  # the block as the writer showed it
    verdict: str  # kept | rewritten | dropped
    reason: str = ""
    claim: str = ""  # what the statement says the block does on the current code
    buggy: str = ""  # what it did on base_commit + bug_patch
    fixed: str = ""  # what it did on base_commit
    shown: str = ""  # the code the statement shows now (a rewritten block), "" when dropped
    kind: str = "block"  # a fenced block, or "inline": a call in a line of prose (its line is dropped)

    @classmethod
    def from_dict(cls, data: dict) -> ReproductionCheck:
        return cls(**{k: str(v) for k, v in (data or {}).items() if k in cls.__dataclass_fields__})


@dataclass
class ReproductionReport:
    """The execution check of a statement's reproductions: one check per block, its cost."""

    checks: list[ReproductionCheck] = field(default_factory=list)
    seconds: float = 0.0
    note: str = ""  # why nothing was executed (no backend, no block, a sandbox failure)
    # the failing tests whose own lines ran without an error on both states: their module's
    # import of a name the change adds is all they need (the statement counts them so)
    held: list[str] = field(default_factory=list)

    def count(self, verdict: str) -> int:
        return sum(c.verdict == verdict for c in self.checks)

    @classmethod
    def from_dict(cls, data: dict) -> ReproductionReport:
        data = data or {}
        return cls(
            checks=[ReproductionCheck.from_dict(c) for c in data.get("checks") or [] if isinstance(c, dict)],
            seconds=float(data.get("seconds") or 0.0),
            note=str(data.get("note") or ""),
            held=[str(t) for t in data.get("held") or []],
        )


def first_failure(validation: dict[str, LayerResult]) -> tuple[str, LayerResult] | None:
    """The first layer (in layer order) of a task's `validation` that did not pass, with its result."""
    for name in LAYERS:
        result = validation.get(name)
        if result is not None and not result.passed:
            return name, result
    return None


@dataclass
class Task:
    instance_id: str
    repo: str
    base_commit: str
    patch: str
    test_patch: str
    problem_statement: str
    bug_patch: str
    strategy_type: str
    strategy_id: str
    hints_text: str = ""
    created_at: str = ""
    version: str = "0.1"
    FAIL_TO_PASS: list[str] = field(default_factory=list)
    PASS_TO_PASS: list[str] = field(default_factory=list)
    difficulty: float = 0.0
    difficulty_level: str = ""
    domain: str = ""
    skills: list[str] = field(default_factory=list)
    validation: dict[str, LayerResult] = field(default_factory=dict)  # layer name -> its result
    image: str = ""
    generation: dict = field(default_factory=dict)
    repo_path: str = ""  # where the source repo lives on this machine (not part of SWE-bench)
    environment_setup: dict = field(default_factory=dict)  # the install recipe and attempts that built `image`
    reproduction: ReproductionReport | None = None  # the statement's blocks executed on both states

    @property
    def passed(self) -> bool:
        return bool(self.validation) and all(v.passed for v in self.validation.values())

    def failed_layer(self) -> tuple[str, LayerResult] | None:
        return first_failure(self.validation)

    def failure_evidence(self) -> list[FailureEvidence]:
        """The functional layer's evidence of each FAIL_TO_PASS test that has some, in F2P order."""
        functional = self.validation.get("functional")
        details = functional.details if functional else {}
        recorded = details.get("failures") if isinstance(details.get("failures"), dict) else {}
        return [
            FailureEvidence.from_dict(recorded[test_id], test_id=test_id)
            for test_id in self.FAIL_TO_PASS
            if isinstance(recorded.get(test_id), dict)
        ]

    def record(self, layer: str, result: LayerResult) -> None:
        """Keep a copy: the task's result never changes with the caller's object."""
        self.validation[layer] = copy.deepcopy(result)

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> Task:
        known = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        known["validation"] = {
            layer: LayerResult.from_dict(result) for layer, result in (known.get("validation") or {}).items()
        }
        if isinstance(known.get("reproduction"), dict):
            known["reproduction"] = ReproductionReport.from_dict(known["reproduction"])
        return cls(**known)


class TaskFileError(UserError, ValueError):
    pass


def write_jsonl(tasks: Iterable[Task | dict], path: Path) -> int:
    """Write atomically: a crash never leaves a half-written task file."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    count = 0
    with open(tmp, "w", encoding="utf-8") as fh:
        for task in tasks:
            data = task.to_dict() if isinstance(task, Task) else task
            fh.write(json.dumps(data, sort_keys=True) + "\n")
            count += 1
    tmp.replace(path)
    return count


def read_jsonl(path: Path) -> Iterator[Task]:
    path = Path(path)
    if not path.is_file():
        raise TaskFileError(f"task file {path} does not exist")
    with open(path, encoding="utf-8") as fh:
        for number, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                yield Task.from_dict(json.loads(line))
            except (json.JSONDecodeError, TypeError) as exc:
                raise TaskFileError(f"{path} line {number} is not a task record: {exc}") from None
