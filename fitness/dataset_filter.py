"""SWE-MERA's bottom-quartile filter, applied as a dataset filter.

SWE-MERA drops a task that lies in the bottom quartile of any of three judge criteria (task
correctness, test correctness, test completeness; complexity is information only) of the
whole dataset. Quartiles of one small batch are noise: the union of three bottom quartiles of
8 tasks removes up to half of them. So here:

- the cutoffs come from the judged distribution of the run so far: every task the quality
  judge scored, kept or not, from the archive (`reference`), plus the tasks being decided;
- below `min_judged` judged tasks there are no cutoffs, and the absolute judge thresholds
  (`fitness.judge_threshold`, `fitness.semantic_threshold`) decide alone;
- only a task that passed every layer can be dropped (a rejected one keeps its own reason),
  and a drop fails its quality layer with the criterion, the score, the cutoff and the size
  of the distribution (`Drop`), which callers print and write to the rejects file;
- `OnlineFilter` decides each task as it arrives (pipeline mode prints a task's outcome once
  and never takes it back); `apply_dataset_filter` decides a batch at once (a generation,
  whose tasks must not depend on the order evaluations finished in).

Commits a user names are not filtered unless asked (`sebgen generate --quartile-filter`).
"""

from __future__ import annotations

import copy
import statistics
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass

from records import LayerResult, Task
from tasks import FILTERED_CRITERIA

CRITERIA = tuple(FILTERED_CRITERIA)
DEFAULT_MIN_JUDGED = 20  # fitness.quartile_min_judged


def judged_scores(task: Task) -> dict[str, float] | None:
    """The filtered criteria's scores of a task the quality judge scored (passed or not)."""
    quality = task.validation.get("quality")
    criteria = (quality.details.get("criteria") if quality else None) or {}
    try:
        return {c: float(criteria[c]["score"]) for c in CRITERIA}
    except (KeyError, TypeError, ValueError):
        return None


def distribution_of(tasks: Iterable[Task]) -> list[dict[str, float]]:
    """The judged scores of those tasks that have them."""
    return [scores for t in tasks if (scores := judged_scores(t)) is not None]


@dataclass(frozen=True)
class Cutoffs:
    values: dict[str, float]  # criterion -> first quartile of the distribution
    judged: int  # how many judged tasks the quartiles come from


def quartile_cutoffs(distribution: Sequence[dict[str, float]], min_judged: int = DEFAULT_MIN_JUDGED) -> Cutoffs | None:
    """First quartiles of each criterion, or None below `min_judged` judged tasks (and below 4,
    where quartiles mean nothing)."""
    if len(distribution) < max(min_judged, 4):
        return None
    values = {c: statistics.quantiles(sorted(s[c] for s in distribution), n=4, method="inclusive")[0] for c in CRITERIA}
    return Cutoffs(values, len(distribution))


@dataclass(frozen=True)
class Drop:
    """A task that passed every layer and was dropped by the quartile filter."""

    instance_id: str
    criterion: str
    score: float
    cutoff: float
    judged: int

    @property
    def reason(self) -> str:
        return (
            f"bottom quartile of the {self.judged} judged tasks of the run on {self.criterion} "
            f"({self.score:g} < cutoff {self.cutoff:g})"
        )

    def to_dict(self) -> dict:
        return {**asdict(self), "reason": self.reason}


def _below(task: Task, cutoffs: Cutoffs) -> Drop | None:
    scores = judged_scores(task)
    if scores is None:
        return None
    for criterion in CRITERIA:
        if scores[criterion] < cutoffs.values[criterion]:
            return Drop(task.instance_id, criterion, scores[criterion], cutoffs.values[criterion], cutoffs.judged)
    return None


def _mark(task: Task, drop: Drop, cutoffs: Cutoffs) -> None:
    quality = task.validation["quality"]
    details = {**quality.details, "dataset_filter": {**drop.to_dict(), "cutoffs": dict(cutoffs.values)}}
    task.record("quality", LayerResult(False, quality.score, drop.reason, "judge_reject", details))


def apply_dataset_filter(
    tasks: Sequence[Task], reference: Sequence[dict[str, float]] = (), min_judged: int = DEFAULT_MIN_JUDGED
) -> list[Drop]:
    """Decide a batch at once against the run so far: cutoffs over `reference` (the judged
    scores of earlier tasks, e.g. the archive's) plus the batch's judged tasks. Drops are
    recorded on the tasks (their quality layer fails) and returned in batch order."""
    cutoffs = quartile_cutoffs([*reference, *distribution_of(tasks)], min_judged)
    if cutoffs is None:
        return []
    drops = []
    for task in tasks:
        if task.passed and (drop := _below(task, cutoffs)):
            _mark(task, drop, cutoffs)
            drops.append(drop)
    return drops


class OnlineFilter:
    """Decide each task as it arrives, against the judged distribution up to and including it
    (`reference` first): a decision is final, so an outcome printed for a task stands."""

    def __init__(
        self, reference: Sequence[dict[str, float]] = (), min_judged: int = DEFAULT_MIN_JUDGED, enabled: bool = True
    ):
        self.distribution = list(reference)
        self.min_judged, self.enabled = min_judged, enabled
        self.drops: list[Drop] = []

    def decide(self, task: Task) -> Drop | None:
        scores = judged_scores(task)
        if scores is not None:
            self.distribution.append(scores)
        if not self.enabled or not task.passed:
            return None
        cutoffs = quartile_cutoffs(self.distribution, self.min_judged)
        drop = _below(task, cutoffs) if cutoffs else None
        if drop:
            _mark(task, drop, cutoffs)
            self.drops.append(drop)
        return drop


# -- the batch filter of a generation (evolution and experiment arms) ------------------------------


def batch_filter(
    task_lists: dict[str, list[Task]],
    reference: Sequence[dict[str, float]] = (),
    min_judged: int = DEFAULT_MIN_JUDGED,
) -> dict[str, list[Task]]:
    """Copies of each strategy's tasks after the dataset filter, decided once over the judged
    tasks of the whole batch (a generation, not one strategy) plus `reference`."""
    tasks = copy.deepcopy(task_lists)
    apply_dataset_filter([t for key in sorted(tasks) for t in tasks[key]], reference, min_judged)
    return tasks


def surviving_batch_filter(
    tasks: list[Task], reference: Sequence[dict[str, float]] = (), min_judged: int = DEFAULT_MIN_JUDGED
) -> int:
    """How many of these tasks the dataset filter would keep (decided on copies)."""
    copies = copy.deepcopy(tasks)
    apply_dataset_filter(copies, reference, min_judged)
    return sum(t.passed for t in copies)
