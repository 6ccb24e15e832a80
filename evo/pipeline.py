"""Pipeline mode: tasks from one repository, no evolution; and re-validation.

Two ways to pick commits:

- named commits (`--commit`): every one is tried, in the order given, whatever the classifier
  calls it. Its strategy type comes from the classifier (bug_fix, feature_add, refactor;
  anything else is written as a bug fix) unless a type is given, and a given type decides how
  the statement is written, never whether the commit is tried. `n` does not apply. The
  bottom-quartile filter is off unless asked for.
- the whole repository: the history is mined, the strategy takes the commits of its kinds in
  the seed's order, oversampled, and stops at `n` kept. The filter is on.

Every attempt has one `Outcome`: kept, or rejected with the layer, category and reason that
stopped it (commits that cannot become a task at all stop at `mining`). An outcome is decided
before it is reported and never changes afterwards: the quartile filter decides each task as it
arrives, against the judged tasks before it (`fitness.OnlineFilter`).
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from evo.config import Config
from evo.runtime import Workbench, make_llm, mine_repo
from fitness import EvalSettings, OnlineFilter, apply_dataset_filter, commit_order, evaluate_strategy
from records import Task, UserError
from tasks import (
    SEED_PROMPTS,
    Candidate,
    MiningError,
    Strategy,
    StrategyType,
    ablation,
    generate_synthetic,
    mine_named,
    run_layers,
)

KIND_STRATEGY = {  # the classifier's kind -> the strategy that writes its statement
    "bug_fix": StrategyType.BUG_FIX,
    "feature_add": StrategyType.FEATURE_ADD,
    "refactor": StrategyType.REFACTOR,
}
KEPT, REJECTED = "kept", "rejected"


@dataclass
class Outcome:
    """What became of one attempt: kept, or rejected at a layer with its category and reason."""

    status: str  # kept | rejected
    commit: str  # the commit's sha ("" for a synthetic bug)
    instance_id: str = ""
    layer: str = ""  # mining | schema | compile | functional | quality | semantic
    category: str = ""  # the layer's failure category; bottom_quartile for a dataset-filter drop
    reason: str = ""
    kind: str = ""  # the classifier's kind of the commit
    strategy_type: str = ""
    task: Task | None = None

    @classmethod
    def of(cls, task: Task, kind: str = "") -> Outcome:
        base = dict(commit=task.base_commit, instance_id=task.instance_id, kind=kind, task=task)
        base["strategy_type"] = task.strategy_type
        if task.passed:
            return cls(KEPT, **base)
        failed = task.failed_layer()
        if failed is None:  # no layer ran (an empty layer list)
            return cls(REJECTED, layer="none", category="not_validated", reason="no layer ran", **base)
        layer, result = failed
        filtered = "dataset_filter" in result.details
        category = "bottom_quartile" if filtered else (result.category or "other")
        return cls(REJECTED, layer=layer, category=category, reason=result.reason, **base)

    @property
    def kept(self) -> bool:
        return self.status == KEPT

    def line(self) -> str:
        what = self.commit[:12] or self.instance_id
        if self.kept:
            t = self.task
            text = f"  kept {what}: {t.instance_id} ({t.difficulty_level}, {t.domain}, {len(t.FAIL_TO_PASS)} F2P)"
        else:
            name = f" ({self.instance_id})" if self.instance_id else ""
            text = f"  rejected {what}{name} at {self.layer} [{self.category}]: {self.reason}"
        return text + self.type_note()

    def type_note(self) -> str:
        """Said when the type that wrote the statement is not the one the classifier's kind gives."""
        if (
            not self.kind
            or not self.strategy_type
            or KIND_STRATEGY.get(self.kind, StrategyType.BUG_FIX).value == (self.strategy_type)
        ):
            return ""
        return f" [classified {self.kind}, tried as {self.strategy_type}]"

    def record(self) -> dict:
        """One line of the rejects file: the outcome, then the task with its layer results."""
        return {
            "commit": self.commit,
            "instance_id": self.instance_id,
            "outcome": self.status,
            "layer": self.layer,
            "category": self.category,
            "reason": self.reason,
            "kind": self.kind,
            "strategy_type": self.strategy_type,
            "validation": {layer: r.to_dict() for layer, r in self.task.validation.items()} if self.task else {},
            "task": self.task.to_dict() if self.task else None,
        }


@dataclass
class GenerationResult:
    kept: list[Task]
    attempts: int
    outcomes: list[Outcome] = field(default_factory=list)  # one per attempt (and per unminable named commit)
    not_tried: dict[str, int] = field(default_factory=dict)  # reason -> commits the run did not try
    named: bool = False

    @property
    def rejected(self) -> list[Outcome]:
        return [o for o in self.outcomes if not o.kept]

    def summary(self) -> str:
        """`N kept, M rejected (by reason), K not tried (by reason)`."""
        reasons = Counter(f"{o.layer}/{o.category}" for o in self.rejected)
        rejected = f"{len(self.rejected)} rejected" + _by(reasons)
        not_tried = f"{sum(self.not_tried.values())} not tried" + _by(Counter(self.not_tried))
        return f"{len(self.kept)} kept, {rejected}, {not_tried}"


def _by(counts: Counter) -> str:
    if not counts:
        return ""
    return (
        " (" + ", ".join(f"{n} {reason}" for reason, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))) + ")"
    )


def check_llm(config: Config) -> None:
    """Fail fast when the model cannot answer JSON at all (LLMError names the model)."""
    make_llm(config).complete_json(
        'Return a JSON object {"ok": true}.\n<context>{"task": "ping"}</context>', temperature=0.0, max_tokens=32
    )


def rejects_path(out: Path) -> Path:
    """`OUT.rejected.jsonl` beside the output (`tasks.jsonl` -> `tasks.rejected.jsonl`)."""
    out = Path(out)
    stem = out.name[: -len(".jsonl")] if out.name.endswith(".jsonl") else out.name
    return out.with_name(stem + ".rejected.jsonl")


class OutcomeFiles:
    """Kept tasks appended to `out`, every other outcome to `rejects`, each line flushed and
    fsynced as its outcome is final: a stopped call keeps the work done. With `resume`, the files
    are continued and `done` holds the commits they already have (a rerun does not try them
    again); without it they start empty. Nothing is written before the first outcome (a call that
    fails first leaves the files as they were); `finish` makes sure both exist."""

    def __init__(self, out: Path, rejects: Path, resume: bool = True):
        self.paths = (Path(out), Path(rejects))
        self.resume = resume
        self.done: set[str] = set()
        self.kept_before = 0
        self._started = False
        for path in self.paths if resume else ():
            if not path.is_file():
                continue
            kept = path == self.paths[0]
            for line in _whole_lines(path):
                row = json.loads(line)
                commit = row.get("base_commit") if kept else row.get("commit")
                if commit:
                    self.done.add(commit)
                self.kept_before += kept

    @property
    def started(self) -> bool:
        """Whether an outcome (or `finish`) has touched the files."""
        return self._started

    def write(self, outcome: Outcome) -> None:
        self.finish()
        path, row = (self.paths[0], outcome.task.to_dict()) if outcome.kept else (self.paths[1], outcome.record())
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(json.dumps(row, sort_keys=True) + "\n")
            fh.flush()
            os.fsync(fh.fileno())

    def finish(self) -> None:
        """Both files exist (emptied first when not resuming)."""
        if self._started:
            return
        self._started = True
        for path in self.paths:
            path.parent.mkdir(parents=True, exist_ok=True)
            if not self.resume or not path.is_file():
                path.write_text("", encoding="utf-8")


def _whole_lines(path: Path) -> list[str]:
    """The file's complete JSON lines; a line a kill cut short is dropped from the file."""
    data = path.read_bytes()
    end = data.rfind(b"\n") + 1
    lines = []
    for raw in data[:end].splitlines():
        try:
            json.loads(raw)
        except ValueError:
            raise OutputFileError(f"{path} has a line that is not JSON; remove the file to start over") from None
        if raw.strip():
            lines.append(raw.decode("utf-8"))
    if end < len(data):
        with open(path, "r+b") as fh:
            fh.truncate(end)
    return lines


class OutputFileError(UserError):
    pass


def generate_tasks(
    config: Config,
    repo: Path,
    strategy_type: str | None,
    n: int,
    commits: Sequence[str] = (),
    progress: Callable[[Task], None] | None = None,
    log=print,
    *,
    on_outcome: Callable[[Outcome], None] | None = None,
    quartile_filter: bool | None = None,
    done: Collection[str] = (),
) -> GenerationResult:
    """Tasks from `repo`: from the named `commits` (every one tried) or from its mined history
    (until `n` are kept). `strategy_type` None: each named commit's kind decides its type
    (BUG_FIX for a whole-repository run). `quartile_filter` None: on for a whole-repository
    run, off for named commits. `progress` gets each attempted task, `on_outcome` each outcome,
    both once its outcome is final. Commits in `done` (a previous call's outcomes) are not tried
    again (`n` then counts the tasks still to keep)."""
    enabled = (not commits) if quartile_filter is None else quartile_filter
    online = OnlineFilter(min_judged=config.fitness.quartile_min_judged, enabled=enabled)
    outcomes: list[Outcome] = []

    def report(outcome: Outcome) -> None:
        outcomes.append(outcome)
        if outcome.task is not None and progress:
            progress(outcome.task)
        if on_outcome:
            on_outcome(outcome)

    def finish(task: Task, kind: str = "") -> None:
        online.decide(task)  # before anything is reported: a kept line is final
        report(Outcome.of(task, kind))

    if commits:
        if strategy_type == StrategyType.SYNTHETIC:
            raise MiningError("--commit does not apply to SYNTHETIC tasks (their bugs are made, not mined)")
        return _named_commits(config, repo, strategy_type, commits, finish, report, outcomes, log, done)
    candidates = mine_repo(config, repo).candidates
    if done and strategy_type != StrategyType.SYNTHETIC:
        candidates = [c for c in candidates if c.sha not in done]
    check_llm(config)
    bench = Workbench.build(config, None, log=log, candidates=candidates)
    try:
        if strategy_type == StrategyType.SYNTHETIC:  # procedural bugs: no history needed, the writer still writes
            writer = Strategy(StrategyType.BUG_FIX, SEED_PROMPTS[StrategyType.BUG_FIX][-1])
            tried = generate_synthetic(repo, bench.generator, writer, n, config.seed)
            for task in tried:
                finish(task)
            return GenerationResult([t for t in tried if t.passed][:n], len(tried), outcomes)
        stype = StrategyType(strategy_type or StrategyType.BUG_FIX)
        strategy = Strategy(stype, SEED_PROMPTS[stype][-1])
        settings = EvalSettings(
            tasks_per_strategy=n,
            oversample=config.fitness.oversample,
            seed=config.seed,
            weights=dict(config.fitness.weights),
        )
        kinds = {c.sha: c.kind for c in candidates}
        evaluation = evaluate_strategy(
            strategy, candidates, bench.generator, settings, progress=lambda t: finish(t, kinds.get(t.base_commit, ""))
        )
        tried = [o.task for o in outcomes]
        kept = [t for t in tried if t.passed]
        return GenerationResult(
            kept, evaluation.attempts, outcomes, _not_tried(strategy, candidates, settings, len(tried), len(kept))
        )
    finally:
        bench.close()


def _named_commits(config, repo, strategy_type, commits, finish, report, outcomes, log, done) -> GenerationResult:
    named = mine_named(repo, list(dict.fromkeys(commits)), max_source_files=config.mining.max_source_files)
    unknown = [e for e in named if e.category == "unknown_commit"]
    if unknown:  # a typo: say so before any work is paid for
        raise MiningError(unknown[0].reason)
    seen: set[str] = set()
    todo: list[Candidate] = []
    for entry in named:
        if entry.sha in seen:
            log(f"commit {entry.given} names {entry.sha[:12]} again: tried once")
            continue
        seen.add(entry.sha)
        if entry.sha in done:
            log(f"commit {entry.given} has an outcome in the output already: not tried again")
            continue
        if entry.candidate is None:
            report(Outcome(REJECTED, entry.sha, layer="mining", category=entry.category, reason=entry.reason))
        else:
            todo.append(entry.candidate)
    if not todo:
        return GenerationResult([], 0, outcomes, _already(named, done), named=True)
    check_llm(config)
    bench = Workbench.build(config, None, log=log, candidates=todo)
    try:
        for candidate in todo:
            stype = StrategyType(strategy_type) if strategy_type else KIND_STRATEGY.get(candidate.kind, "BUG_FIX")
            strategy = Strategy(StrategyType(stype), SEED_PROMPTS[StrategyType(stype)][-1])
            finish(bench.generator.generate(candidate, strategy), candidate.kind)
    finally:
        bench.close()
    tried = [o.task for o in outcomes if o.task is not None]
    return GenerationResult([t for t in tried if t.passed], len(tried), outcomes, _already(named, done), named=True)


def _already(named, done) -> dict[str, int]:
    skipped = len({e.sha for e in named if e.sha in done})
    return {"an outcome in the output already": skipped} if skipped else {}


def _not_tried(strategy: Strategy, candidates: list[Candidate], settings: EvalSettings, tried: int, kept: int) -> dict:
    """Why the mined commits a whole-repository run did not try were not tried, with counts."""
    order = commit_order(strategy, candidates, settings.seed)
    taken = {c.sha for c in order}
    reasons: Counter = Counter()
    for c in candidates:
        if c.sha not in taken:
            reasons[f"classified {c.kind or 'other'}, not a {strategy.strategy_type.value} commit"] += 1
    rest = len(order) - tried
    if rest > 0:
        n, budget = settings.tasks_per_strategy, settings.tasks_per_strategy * settings.oversample
        if kept >= n:
            reasons[f"stopped at --n {n}"] += rest
        else:
            reasons[f"beyond the budget of {budget} attempts ({settings.oversample} x --n {n})"] += rest
    return dict(reasons)


def revalidate(config: Config, tasks: list[Task], layers: Sequence[str], log=print) -> list[Task]:
    bench = Workbench.build(config, None, log=log, candidates=[])
    try:
        for task in tasks:
            task.validation = {}
            run_layers(task, bench.generator.validator, Path(task.repo_path), layers)
    finally:
        bench.close()
    if "quality" in layers:  # the file is the dataset: its judged tasks give the cutoffs
        for drop in apply_dataset_filter(tasks, min_judged=config.fitness.quartile_min_judged):
            log(f"{drop.instance_id}: dropped by the quartile filter: {drop.reason}")
    return tasks


def run_ablation(config: Config, tasks: list[Task], layer_sets: Sequence[Sequence[str]], log=print) -> list[dict]:
    bench = Workbench.build(config, None, log=log, candidates=[])
    try:
        return ablation(tasks, bench.generator.validator, layer_sets)
    finally:
        bench.close()
