"""Reading a run for its report: the series, funnels and tables the pages show, all from the
run folder's one reader (`evo.runfolder`). Nothing here draws."""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from evo.lineage import family
from evo.runfolder import RunFolder
from fitness import DIMENSIONS
from records import LAYERS, Evaluation, Task, UserError

LEVELS = ("easy", "medium", "hard")


class ReportError(UserError):
    pass


@dataclass
class RunData:
    """Everything the report of one run shows."""

    name: str
    generation: int
    evaluations: int
    attempted: list[dict]  # every generated task, once per instance id (before the batch filter)
    kept: list[dict]  # the run's dataset: what the archive holds
    series: dict
    hof_best: list  # (generation, the best EV of its hall of fame)
    novelty_rows: list
    mix: dict
    funnel: dict
    reasons: list
    usage: list
    hof: list
    nodes: dict
    results: list = field(default_factory=list)
    cost: list = field(default_factory=list)  # (generation, validations, kept, validations per kept)


def read_run(run_dir: Path) -> RunData:
    run = RunFolder(run_dir)
    if not run.path.exists():
        raise ReportError(f"run folder {run.path} does not exist")
    state = run.checkpoint()
    if state is None:
        raise ReportError(f"{run.path} has no checkpoint yet (is it a SEBGen run folder?)")
    evaluations = run.evaluations()
    attempted = list({t.get("instance_id", ""): t for t in reversed(run.attempted_tasks())}.values())[::-1]
    kept = run.kept_tasks()
    kept_ids = {t.get("instance_id", "") for t in kept}
    attempted_tasks = [Task.from_dict(t) for t in attempted]
    return RunData(
        name=run.path.name,
        generation=int(state["generation"]),
        evaluations=len(evaluations),
        attempted=attempted,
        kept=kept,
        series=dimension_series(state.get("logbook", []), evaluations),
        hof_best=hof_best(state.get("hof_by_generation", {})),
        novelty_rows=novelty_vs_archive(run.scores()),
        mix=strategy_mix(evaluations),
        funnel=funnel(attempted_tasks, kept_ids),
        reasons=funnel_by_reason(attempted_tasks, kept_ids),
        usage=usage_per_generation(evaluations),
        hof=state.get("hof_by_generation", {}).get(str(state["generation"]), []),
        nodes=family(run.path),
        results=run.results(),
        cost=cost_per_generation(evaluations),
    )


def dimension_series(logbook: list[dict], evaluations: list[dict]) -> dict[str, list[tuple[int, float, float]]]:
    """Per statistic (EV + five dimensions): (generation, avg, max).

    From the logbook's per-statistic chapters when the checkpoint holds them, else from the
    strategies evaluated in each generation (evaluations.jsonl).
    """
    series: dict[str, list[tuple[int, float, float]]] = {}
    by_gen: dict[int, list[dict]] = defaultdict(list)
    for record in evaluations:
        by_gen[int(record.get("generation", 0))].append(record)
    for name in ("exploration_value",) + DIMENSIONS:
        points = [
            (r["gen"], float(r[name].get("avg", 0.0)), float(r[name].get("max", 0.0)))
            for r in logbook
            if isinstance(r.get(name), dict)
        ]
        if not points:
            for gen, records in sorted(by_gen.items()):
                values = [
                    float(
                        r["exploration_value"]
                        if name == "exploration_value"
                        else r.get("dimensions", {}).get(name, 0.0)
                    )
                    for r in records
                ]
                points.append((gen, sum(values) / len(values), max(values)))
        series[name] = points
    return series


def cost_per_generation(evaluations: list[dict]) -> list[tuple[int, int, int, float | None]]:
    """Per generation: (generation, container validations its evaluations spent, tasks they
    kept before the batch filter, validations per kept task or None when none was kept)."""
    spent: dict[int, int] = defaultdict(int)
    kept: dict[int, int] = defaultdict(int)
    for record in evaluations:
        gen = int(record.get("generation", 0))
        spent[gen] += Evaluation.from_dict(record).validations
        kept[gen] += int(record.get("passed", 0))
    return [(g, spent[g], kept[g], round(spent[g] / kept[g], 3) if kept[g] else None) for g in sorted(spent)]


def strategy_mix(evaluations: list[dict]) -> dict[int, Counter]:
    mix: dict[int, Counter] = defaultdict(Counter)
    for record in evaluations:
        tasks = record.get("tasks") or [{}]
        mix[int(record.get("generation", 0))][tasks[0].get("strategy_type", "unknown")] += 1
    return dict(sorted(mix.items()))


def hof_best(hof_by_generation: dict) -> list[tuple[int, float]]:
    """Per generation: the best EV in its hall of fame, every entry re-scored against that
    generation's archive. `sebgen run` prints the same figure at the end of each generation and
    `sebgen hof --gen N` lists it; it can fall as the archive fills (novelty is re-measured)."""
    return [
        (int(g), max((float(e.get("exploration_value") or 0.0) for e in entries), default=0.0))
        for g, entries in sorted(hof_by_generation.items(), key=lambda item: int(item[0]))
    ]


def usage_per_generation(evaluations: list[dict]) -> list[tuple[int, int, float]]:
    tokens: dict[int, int] = defaultdict(int)
    cost: dict[int, float] = defaultdict(float)
    for record in evaluations:
        gen, usage = int(record.get("generation", 0)), record.get("usage", {})
        tokens[gen] += int(usage.get("prompt_tokens", 0)) + int(usage.get("completion_tokens", 0))
        cost[gen] += float(usage.get("cost_usd", 0.0))
    return [(g, tokens[g], round(cost[g], 6)) for g in sorted(tokens)]


BATCH_FILTER = "batch filter"  # passed every layer, then dropped by the dataset's bottom-quartile filter


def stopping_layer(task: Task, kept_ids: set[str] | None = None) -> str | None:
    """The layer that rejected the task; the batch filter for one that passed them all but is not kept."""
    failed = task.failed_layer()
    if failed:
        return failed[0]
    if kept_ids is not None and task.instance_id not in kept_ids:
        return BATCH_FILTER
    return None


def funnel(tasks: list[Task], kept_ids: set[str] | None = None) -> dict[str, int]:
    """How many tasks stopped at each layer (and at the batch filter), and how many were kept."""
    counts = {layer: 0 for layer in LAYERS}
    counts[BATCH_FILTER] = 0
    counts["kept"] = 0
    for task in tasks:
        counts[stopping_layer(task, kept_ids) or "kept"] += 1
    return counts


def funnel_by_reason(tasks: list[Task], kept_ids: set[str] | None = None) -> list[tuple[str, str, int]]:
    """(layer, reason, tasks) for every rejected task, in layer order, most frequent reason first.

    The reason is the layer's failure category (leakage, quality, flaky, ...), so a layer that
    rejects for several reasons shows each one."""
    counts: Counter = Counter()
    for task in tasks:
        layer = stopping_layer(task, kept_ids)
        if layer == BATCH_FILTER:
            counts[(layer, "bottom quartile")] += 1
        elif layer:
            counts[(layer, task.validation[layer].category or "other")] += 1
    order = list(LAYERS) + [BATCH_FILTER]
    return sorted(
        ((layer, reason, n) for (layer, reason), n in counts.items()),
        key=lambda row: (order.index(row[0]), -row[2], row[1]),
    )


def novelty_vs_archive(scores: dict[int, dict]) -> list[tuple[int, int, float]]:
    """Per generation: (generation, archived tasks it was scored against, mean novelty of the kept
    tasks of the strategies scored then), from the per-generation scores files."""
    rows = []
    for gen in sorted(scores):
        entries = [s for s in scores[gen].values() if isinstance(s, dict)]
        values = [float(n) for s in entries for n in dict(s.get("novelties") or {}).values()]
        archived = max((int(s.get("archive_tasks", 0)) for s in entries), default=0)
        rows.append((gen, archived, sum(values) / len(values) if values else float("nan")))
    return rows
