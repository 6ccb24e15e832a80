"""A static HTML report of a run folder: PNG plots, tables, hall of fame, leaderboard. No network."""
from __future__ import annotations

import html
import json
from collections import Counter, defaultdict
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # headless: files only, never a display
import matplotlib.pyplot as plt  # noqa: E402

from evo.checkpoint import load_latest  # noqa: E402
from fitness.task import LAYERS  # noqa: E402

DIMENSIONS = ("quality", "novelty", "difficulty_coverage", "skill_diversity", "evolution_potential")
LEVELS = ("easy", "medium", "hard")


class ReportError(ValueError):
    pass


# ------------------------------------------------------------------ data

def read_evaluations(run_dir: Path) -> list[dict]:
    path = Path(run_dir) / "evaluations.jsonl"
    if not path.is_file():
        return []
    records = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError:
            continue  # a torn last line after a crash
    return records


def _passed(task: dict) -> bool:
    return bool(task.get("validation")) and all(v.get("passed") for v in task["validation"].values())


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
        points = [(r["gen"], float(r[name].get("avg", 0.0)), float(r[name].get("max", 0.0)))
                  for r in logbook if isinstance(r.get(name), dict)]
        if not points:
            for gen, records in sorted(by_gen.items()):
                values = [float(r["exploration_value"] if name == "exploration_value"
                                else r.get("dimensions", {}).get(name, 0.0)) for r in records]
                points.append((gen, sum(values) / len(values), max(values)))
        series[name] = points
    return series


def novelty_vs_archive(evaluations: list[dict]) -> list[tuple[int, int, float]]:
    """Per generation: (generation, tasks archived before it, mean novelty of its kept tasks)."""
    by_gen: dict[int, list[dict]] = defaultdict(list)
    for record in evaluations:
        by_gen[int(record.get("generation", 0))].extend(t for t in record.get("tasks", []) if _passed(t))
    rows, archived = [], 0
    for gen in sorted(by_gen):
        novelties = [t.get("generation", {}).get("novelty") for t in by_gen[gen]]
        novelties = [n for n in novelties if n is not None]
        rows.append((gen, archived, sum(novelties) / len(novelties) if novelties else float("nan")))
        archived += len(by_gen[gen])
    return rows


def strategy_mix(evaluations: list[dict]) -> dict[int, Counter]:
    mix: dict[int, Counter] = defaultdict(Counter)
    for record in evaluations:
        tasks = record.get("tasks") or [{}]
        mix[int(record.get("generation", 0))][tasks[0].get("strategy_type", "unknown")] += 1
    return dict(sorted(mix.items()))


def all_tasks(evaluations: list[dict]) -> list[dict]:
    return [t for record in evaluations for t in record.get("tasks", [])]


def funnel(tasks: list[dict]) -> dict[str, int]:
    """How many tasks stopped at each layer, and how many passed every one."""
    counts = {layer: 0 for layer in LAYERS}
    counts["kept"] = 0
    for task in tasks:
        stopped = next((layer for layer in LAYERS if layer in task.get("validation", {})
                        and not task["validation"][layer].get("passed")), None)
        counts[stopped or "kept"] += 1
    return counts


def usage_per_generation(evaluations: list[dict]) -> list[tuple[int, int, float]]:
    tokens: dict[int, int] = defaultdict(int)
    cost: dict[int, float] = defaultdict(float)
    for record in evaluations:
        gen, usage = int(record.get("generation", 0)), record.get("usage", {})
        tokens[gen] += int(usage.get("prompt_tokens", 0)) + int(usage.get("completion_tokens", 0))
        cost[gen] += float(usage.get("cost_usd", 0.0))
    return [(g, tokens[g], round(cost[g], 6)) for g in sorted(tokens)]


def read_results(run_dir: Path) -> list[dict]:
    folder = Path(run_dir) / "results"
    documents = []
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError:
            continue
        if isinstance(data, dict) and "summary" in data:
            documents.append({**data, "model": data.get("model") or path.stem})
    return documents


# ------------------------------------------------------------------ plots

def _save(fig, path: Path) -> str:
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return path.name


def plot_dimensions(series: dict, out: Path) -> str:
    fig, ax = plt.subplots(figsize=(7, 4))
    for name, points in series.items():
        if points:
            ax.plot([p[0] for p in points], [p[1] for p in points], marker="o", label=f"{name} (avg)",
                    linewidth=2.5 if name == "exploration_value" else 1.2)
    ax.set(xlabel="generation", ylabel="value", title="Exploration value and dimensions per generation", ylim=(0, 1.05))
    if any(series.values()):
        ax.legend(fontsize=7)
    return _save(fig, out / "dimensions.png")


def plot_novelty(rows: list, out: Path) -> str:
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.plot([r[1] for r in rows], [r[2] for r in rows], marker="o")
    for gen, size, value in rows:
        ax.annotate(f"g{gen}", (size, value), fontsize=7)
    ax.set(xlabel="tasks archived before the generation", ylabel="mean novelty of kept tasks",
           title="Novelty against archive size")
    return _save(fig, out / "novelty.png")


def plot_strategy_mix(mix: dict, out: Path) -> str:
    fig, ax = plt.subplots(figsize=(6, 4))
    types = sorted({t for counter in mix.values() for t in counter})
    gens = list(mix)
    bottom = [0] * len(gens)
    for stype in types:
        values = [mix[g][stype] for g in gens]
        ax.bar([str(g) for g in gens], values, bottom=bottom, label=stype)
        bottom = [b + v for b, v in zip(bottom, values)]
    ax.set(xlabel="generation", ylabel="strategies evaluated", title="Strategy types per generation")
    if types:
        ax.legend(fontsize=7)
    return _save(fig, out / "strategy_mix.png")


def plot_difficulty(tasks: list[dict], out: Path) -> str:
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.hist([t.get("difficulty", 0.0) for t in tasks if _passed(t)], bins=10, range=(0, 1))
    ax.set(xlabel="difficulty", ylabel="kept tasks", title="Difficulty of kept tasks")
    return _save(fig, out / "difficulty.png")


def plot_funnel(counts: dict, out: Path) -> str:
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.bar(list(counts), list(counts.values()))
    ax.set(ylabel="tasks", title="Where generated tasks stopped")
    return _save(fig, out / "funnel.png")


def plot_usage(rows: list, out: Path) -> str:
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.bar([str(r[0]) for r in rows], [r[1] for r in rows])
    ax.set(xlabel="generation", ylabel="LLM tokens", title="LLM tokens (bars) and cost (line) per generation")
    twin = ax.twinx()
    twin.plot([str(r[0]) for r in rows], [r[2] for r in rows], color="black", marker="o")
    twin.set_ylabel("cost (USD)")
    return _save(fig, out / "usage.png")


# ------------------------------------------------------------------ HTML

def _table(headers: list[str], rows: list[list], row_attrs: list[str] | None = None) -> str:
    head = "".join(f"<th>{html.escape(str(h))}</th>" for h in headers)
    body = "".join(f"<tr{(' ' + row_attrs[i]) if row_attrs else ''}>"
                   + "".join(f"<td>{html.escape(str(c))}</td>" for c in row) + "</tr>" for i, row in enumerate(rows))
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _hof_html(entries: list[dict]) -> str:
    parts = []
    for rank, e in enumerate(entries, 1):
        lineage = " &larr; ".join(html.escape(p) for p in e.get("parents", [])) or "seed"
        parts.append(f"<details><summary>#{rank} {html.escape(e['id'])} ({html.escape(e['strategy_type'])}) "
                     f"EV {e['exploration_value']:.3f}, generation {e.get('generation', '?')}, "
                     f"operator {html.escape(str(e.get('operator', '')))}, parents: {lineage}</summary>"
                     f"<pre>{html.escape(e.get('prompt', ''))}</pre></details>")
    return "\n".join(parts) or "<p>No hall of fame yet.</p>"


def _leaderboard_html(documents: list[dict]) -> str:
    if not documents:
        return "<p>No results yet: put <code>sebgen evaluate ... --out RUN_DIR/results/NAME.json</code> files here.</p>"
    months = sorted({m for d in documents for m in d["summary"].get("by_month", {})})
    rows, attrs = [], []
    for doc in documents:
        k = doc["summary"].get("k", 1)
        slices = [("all", doc["summary"]["overall"])] + sorted(doc["summary"].get("by_month", {}).items())
        for month, agg in slices:
            rows.append([doc["model"], month, agg["tasks"], f"{agg['resolved_rate']:.3f}", f"{agg['pass@1']:.3f}",
                         f"{agg.get(f'pass@{k}', 0.0):.3f} (k={k})"])
            attrs.append(f'data-month="{html.escape(month)}"' + ("" if month == "all" else ' style="display:none"'))
    options = "".join(f'<option value="{html.escape(m)}">{html.escape(m)}</option>' for m in ["all"] + months)
    script = ("<script>function filterMonth(v){document.querySelectorAll('#leaderboard tbody tr').forEach("
              "function(r){r.style.display=(r.dataset.month===v)?'':'none';});}</script>")
    return (f'<label>month <select id="month" onchange="filterMonth(this.value)">{options}</select></label>'
            f'<div id="leaderboard">{_table(["model", "month", "tasks", "resolved", "pass@1", "pass@k"], rows, attrs)}'
            f"</div>{script}")


STYLE = ("body{font-family:sans-serif;max-width:1000px;margin:2em auto;padding:0 1em}"
         "table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:3px 8px;font-size:90%}"
         "img{max-width:100%;border:1px solid #eee}pre{white-space:pre-wrap;background:#f6f6f6;padding:.5em}")


def build_report(run_dir: Path) -> Path:
    """Write RUN_DIR/report/index.html and its PNGs; returns the HTML path."""
    run_dir = Path(run_dir)
    state = load_latest(run_dir, log=lambda _m: None) if run_dir.is_dir() else None
    if state is None and (run_dir / "experiment.json").is_file():
        return build_experiment_report(run_dir)
    if state is None:
        raise ReportError(f"{run_dir} has no checkpoint yet (is it a SEBGen run folder?)")
    out = run_dir / "report"
    out.mkdir(parents=True, exist_ok=True)
    evaluations = read_evaluations(run_dir)
    tasks = all_tasks(evaluations)
    series = dimension_series(state.get("logbook", []), evaluations)
    novelty_rows = novelty_vs_archive(evaluations)
    mix = strategy_mix(evaluations)
    counts = funnel(tasks)
    usage = usage_per_generation(evaluations)
    images = {"dimensions": plot_dimensions(series, out), "novelty": plot_novelty(novelty_rows, out),
              "strategy_mix": plot_strategy_mix(mix, out), "difficulty": plot_difficulty(tasks, out),
              "funnel": plot_funnel(counts, out), "usage": plot_usage(usage, out)}
    gens = sorted({g for points in series.values() for g, _, _ in points})
    dim_rows = [[g] + [f"{dict((p[0], p[1]) for p in series[n]).get(g, 0.0):.3f}" for n in series] for g in gens]
    kept = [t for t in tasks if _passed(t)]
    level_counts = Counter(t.get("difficulty_level", "") or "unknown" for t in kept)
    hof = state.get("hof_by_generation", {}).get(str(state["generation"]), [])
    img = (lambda key, alt: f'<img src="{images[key]}" alt="{html.escape(alt)}">')
    page = f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>SEBGen run {html.escape(run_dir.name)}</title>
<style>{STYLE}</style></head><body>
<h1>SEBGen run {html.escape(run_dir.name)}</h1>
<p>{state['generation']} generations, {len(evaluations)} evaluations, {len(tasks)} generated tasks, {len(kept)} kept.</p>
<h2>Exploration value and dimensions</h2>{img('dimensions', 'EV and dimensions per generation')}
{_table(['generation'] + list(series), dim_rows)}
<h2>Novelty against archive size</h2>{img('novelty', 'novelty against archive size')}
{_table(['generation', 'archived before', 'mean novelty'], [[g, s, f'{v:.3f}'] for g, s, v in novelty_rows])}
<h2>Strategy types per generation</h2>{img('strategy_mix', 'strategy type mix')}
{_table(['generation', 'mix'], [[g, ', '.join(f'{k}: {v}' for k, v in sorted(c.items()))] for g, c in mix.items()])}
<h2>Difficulty of kept tasks</h2>{img('difficulty', 'difficulty histogram')}
{_table(['level', 'kept tasks'], [[lvl, level_counts.get(lvl, 0)] for lvl in LEVELS])}
<h2>Validation funnel</h2>{img('funnel', 'validation funnel')}
{_table(['stopped at', 'tasks'], [[k, v] for k, v in counts.items()])}
<h2>LLM tokens and cost</h2>{img('usage', 'LLM usage per generation')}
{_table(['generation', 'tokens', 'cost (USD)'], [[g, t, f'{c:.4f}'] for g, t, c in usage])}
<h2>Hall of fame</h2>{_hof_html(hof)}
<h2>Leaderboard</h2>{_leaderboard_html(read_results(run_dir))}
</body></html>
"""
    index = out / "index.html"
    index.write_text(page, encoding="utf-8")
    return index


def build_experiment_report(exp_dir: Path) -> Path:
    """EXP_DIR/report/index.html for `sebgen experiment`: per arm and metric, mean with 95% CI."""
    exp_dir = Path(exp_dir)
    doc = json.loads((exp_dir / "experiment.json").read_text(encoding="utf-8"))
    arms, metrics = list(doc["arms"]), list(next(iter(doc["arms"].values())))
    out = exp_dir / "report"
    out.mkdir(parents=True, exist_ok=True)
    fig, axes = plt.subplots(1, len(metrics), figsize=(3 * len(metrics), 3.4))
    for ax, metric in zip(axes, metrics):
        cis = [doc["arms"][arm][metric] for arm in arms]
        ax.bar(range(len(arms)), [c["mean"] for c in cis], color=["#999", "#2a7", "#58c"][:len(arms)],
               yerr=[[c["mean"] - c["low"] for c in cis], [c["high"] - c["mean"] for c in cis]], capsize=4)
        ax.set_xticks(range(len(arms)), [a.replace("_", "\n") for a in arms], fontsize=7)
        ax.set_title(metric.replace("_", " "), fontsize=9)
    image = _save(fig, out / "experiment.png")
    rows = [[arm] + [f"{doc['arms'][arm][m]['mean']:.3f} [{doc['arms'][arm][m]['low']:.3f}, "
                     f"{doc['arms'][arm][m]['high']:.3f}]" for m in metrics] for arm in arms]
    page = f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>SEBGen experiment {html.escape(exp_dir.name)}</title>
<style>{STYLE}</style></head><body>
<h1>Evolution gain on held-out commits</h1>
<p>{doc['split']['train']} training commits, {doc['split']['heldout']} held-out; {doc['heldout_calls_per_arm']}
generation calls per arm; {len(doc['per_seed'])} seeds. Bars: mean, whiskers: 95% t-interval over seeds.</p>
<img src="{image}" alt="per arm: kept rate, leak rate, judge quality, difficulty coverage, EV">
{_table(['arm'] + metrics, rows)}
<p>{html.escape(doc['verdict'])}</p>
</body></html>
"""
    index = out / "index.html"
    index.write_text(page, encoding="utf-8")
    return index
