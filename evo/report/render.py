"""Drawing a run's report: PNG plots, tables, hall of fame with lineage, leaderboard, and a task
browser (one page per kept task under `report/tasks/`). No network, no script but the
leaderboard's month filter. What it shows comes from `evo.report.data`."""

from __future__ import annotations

import html
import json
import re
from collections import Counter
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # headless: files only, never a display
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import MaxNLocator  # noqa: E402

from evo.lineage import ancestry  # noqa: E402
from evo.report.data import LEVELS, ReportError, RunData, read_run  # noqa: E402
from evo.runfolder import ExperimentFolder, RunFolder  # noqa: E402
from records import LAYERS  # noqa: E402

# ------------------------------------------------------------------ plots


def _save(fig, path: Path) -> str:
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return path.name


def plot_dimensions(series: dict, best: list[tuple[int, float]], out: Path) -> str:
    fig, ax = plt.subplots(figsize=(7, 4))
    if best:
        ax.plot(
            [p[0] for p in best],
            [p[1] for p in best],
            color="black",
            linestyle="--",
            linewidth=2.5,
            label="hall-of-fame best EV",
        )
    for name, points in series.items():
        if points:
            ax.plot(
                [p[0] for p in points],
                [p[1] for p in points],
                marker="o",
                label="mean EV" if name == "exploration_value" else f"{name} (mean)",
                linewidth=2.5 if name == "exploration_value" else 1.0,
                alpha=1.0 if name == "exploration_value" else 0.6,
            )
    ax.set(xlabel="generation", ylabel="value", title="Exploration value and dimensions per generation", ylim=(0, 1.05))
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))  # generations are whole numbers
    if any(series.values()):
        ax.legend(fontsize=7)
    return _save(fig, out / "dimensions.png")


def plot_novelty(rows: list, out: Path) -> str:
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.plot([r[1] for r in rows], [r[2] for r in rows], marker="o")
    for gen, size, value in rows:
        ax.annotate(f"g{gen}", (size, value), fontsize=7)
    ax.set(
        xlabel="tasks archived before the generation",
        ylabel="mean novelty of kept tasks",
        title="Novelty against archive size",
    )
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
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
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    if types:
        ax.legend(fontsize=7)
    return _save(fig, out / "strategy_mix.png")


def plot_difficulty(tasks: list[dict], out: Path) -> str:
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.hist([t.get("difficulty", 0.0) for t in tasks], bins=10, range=(0, 1))
    ax.set(xlabel="difficulty", ylabel="kept tasks", title="Difficulty of kept tasks")
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    return _save(fig, out / "difficulty.png")


def plot_funnel(counts: dict, reasons: list[tuple[str, str, int]], out: Path) -> str:
    """Tasks stopped per layer, each bar split by the reason the layer gave."""
    fig, ax = plt.subplots(figsize=(7, 4))
    names = list(counts)
    bottom = [0] * len(names)
    for reason in sorted({r for _, r, _ in reasons}):
        values = [sum(n for layer, r, n in reasons if layer == name and r == reason) for name in names]
        ax.bar(names, values, bottom=bottom, label=reason)
        bottom = [b + v for b, v in zip(bottom, values)]
    ax.bar(
        names, [counts["kept"] if name == "kept" else 0 for name in names], bottom=bottom, color="#4a4", label="kept"
    )
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set(ylabel="tasks", title="Where generated tasks stopped, and why")
    ax.legend(fontsize=7)
    return _save(fig, out / "funnel.png")


def plot_usage(rows: list, out: Path) -> str:
    """Tokens per generation; the cost line only when the model cost something (not the offline provider)."""
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.bar([str(r[0]) for r in rows], [r[1] for r in rows])
    has_cost = any(r[2] > 0 for r in rows)
    ax.set(
        xlabel="generation",
        ylabel="LLM tokens",
        title="LLM tokens (bars) and cost (line) per generation" if has_cost else "LLM tokens per generation",
    )
    if has_cost:
        twin = ax.twinx()
        twin.plot([str(r[0]) for r in rows], [r[2] for r in rows], color="black", marker="o")
        twin.set_ylabel("cost (USD)")
    return _save(fig, out / "usage.png")


def plot_lineage(nodes: dict[str, dict], hof_ids: list[str], out: Path) -> str:
    """Every hall-of-fame strategy and all its ancestors: one column per generation, arrows from
    parent to child; hall-of-fame entries in gold, seeds as squares."""
    shown = {node["id"]: node for sid in hof_ids for _, node, _ in ancestry(nodes, sid)}
    # one row per strategy, in walk order (ancestors right under their descendant), so no arrow
    # runs through another strategy's marker
    where = {sid: (node["generation"], -row) for row, (sid, node) in enumerate(shown.items())}
    columns = {node["generation"] for node in shown.values()}
    height = max(len(shown), 1)
    fig, ax = plt.subplots(figsize=(max(5, 2.2 * len(columns)), min(12, max(2.5, 0.55 * height + 1.2))))
    for sid, node in shown.items():
        for parent in node["parents"]:
            if parent in where:
                ax.annotate(
                    "",
                    xy=where[sid],
                    xytext=where[parent],
                    arrowprops={"arrowstyle": "->", "color": "#888", "shrinkA": 9, "shrinkB": 9},
                )
    for sid, (x, y) in where.items():
        node = shown[sid]
        ax.scatter(
            [x],
            [y],
            s=140,
            marker="s" if not node["parents"] else "o",
            zorder=3,
            color="#e0a800" if sid in hof_ids else "#bbb",
            edgecolors="black",
        )
        ev = node.get("exploration_value")
        ax.annotate(
            f"{sid[:8]} {node['operator']}" + (f", EV {ev:.2f}" if isinstance(ev, (int, float)) else ""),
            (x, y),
            xytext=(10, 0),
            textcoords="offset points",
            va="center",
            fontsize=7,
        )
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_yticks([])
    ax.set_ylim(-height + 0.4, 0.6)
    if columns:
        ax.set_xlim(min(columns) - 0.3, max(columns) + 0.9)  # room for the labels right of the markers
    ax.set(xlabel="generation", title="Lineage of the hall of fame (gold), back to the seeds (squares)")
    return _save(fig, out / "lineage.png")


# ------------------------------------------------------------------ HTML


def _table(headers: list[str], rows: list[list], row_attrs: list[str] | None = None) -> str:
    head = "".join(f"<th>{html.escape(str(h))}</th>" for h in headers)
    body = "".join(
        f"<tr{(' ' + row_attrs[i]) if row_attrs else ''}>"
        + "".join(f"<td>{html.escape(str(c))}</td>" for c in row)
        + "</tr>"
        for i, row in enumerate(rows)
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _lineage_html(nodes: dict[str, dict], sid: str) -> str:
    """The ancestry of one strategy as nested lists: each node's parents under it, down to the seeds."""
    parts, depth_open = [], -1
    for depth, node, seen in ancestry(nodes, sid):
        while depth_open >= depth:
            parts.append("</li></ul>")
            depth_open -= 1
        ev = node.get("exploration_value")
        parts.append(
            f'<ul class="lineage"><li><code>{html.escape(node["id"])}</code> generation {node["generation"]}, '
            f"{html.escape(node['operator'] or 'unknown')}"
            + (f", EV {ev:.3f}" if isinstance(ev, (int, float)) else "")
            + (" (shown above)" if seen else "")
            + ("" if node["parents"] or seen else " &mdash; a seed")
        )
        depth_open = depth
    parts.extend("</li></ul>" for _ in range(depth_open + 1))
    return "".join(parts)


def _hof_html(entries: list[dict], nodes: dict[str, dict]) -> str:
    parts = []
    for rank, e in enumerate(entries, 1):
        per_kept = e.get("validations_per_kept")
        genes = e.get("genes") or {}
        parts.append(
            f"<details><summary>#{rank} {html.escape(e['id'])} ({html.escape(e['strategy_type'])}) "
            f"fitness {e.get('fitness', e['exploration_value']):.3f}, "
            f"EV {e['exploration_value']:.3f}, "
            f"{'-' if per_kept is None else f'{per_kept:.2f}'} validations per kept task, "
            f"generation {e.get('generation', '?')}, "
            f"operator {html.escape(str(e.get('operator', '')))}</summary>"
            f"<pre>{html.escape(e.get('prompt', ''))}</pre>"
            + (f"<p>Genes: {html.escape(json.dumps(genes, sort_keys=True))}</p>" if genes else "")
            + f"<p>Lineage, back to the seeds:</p>{_lineage_html(nodes, e['id'])}</details>"
        )
    return "\n".join(parts) or "<p>No hall of fame yet.</p>"


def task_page_name(instance_id: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]", "_", instance_id) + ".html"


def _diff_html(patch: str) -> str:
    lines = []
    for line in (patch or "").splitlines():
        kind = (
            "file"
            if line.startswith(("diff --git", "+++", "---"))
            else "add"
            if line.startswith("+")
            else "del"
            if line.startswith("-")
            else "hunk"
            if line.startswith("@@")
            else ""
        )
        lines.append(f'<span class="{kind}">{html.escape(line)}</span>' if kind else html.escape(line))
    return '<pre class="diff">' + "\n".join(lines) + "</pre>" if lines else "<p>(empty)</p>"


def _tests_html(tests: list[str]) -> str:
    return (
        "<ul>" + "".join(f"<li><code>{html.escape(t)}</code></li>" for t in tests) + "</ul>" if tests else "<p>none</p>"
    )


def task_page(task: dict, run_name: str) -> str:
    """One kept task: its statement, patches, tests and every layer's verdict with its reason."""
    tid = task.get("instance_id", "")
    validation = task.get("validation", {})
    verdicts = [
        [
            layer,
            "passed" if validation[layer].get("passed") else "rejected",
            f"{float(validation[layer].get('score', 0.0)):.2f}",
            validation[layer].get("reason", ""),
        ]
        for layer in LAYERS
        if layer in validation
    ]
    gen = task.get("generation") or {}
    facts = [
        ["repo", task.get("repo", "")],
        ["base commit (fixed state)", task.get("base_commit", "")],
        ["created at", task.get("created_at", "")],
        ["strategy", f"{task.get('strategy_id', '')} ({task.get('strategy_type', '')})"],
        ["difficulty", f"{float(task.get('difficulty', 0.0)):.2f} ({task.get('difficulty_level', '')})"],
        ["domain", task.get("domain", "")],
        ["skills", ", ".join(task.get("skills") or [])],
        ["model", gen.get("model", "")],
        ["environment", task.get("image", "")],
    ]
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{html.escape(tid)}</title>
<style>{STYLE}</style></head><body>
<p><a href="../index.html#tasks">&larr; all kept tasks of run {html.escape(run_name)}</a></p>
<h1>{html.escape(tid)}</h1>
{_table(["", ""], facts)}
<h2>Problem statement</h2><pre class="statement">{html.escape(task.get("problem_statement", ""))}</pre>
<h2>Validation</h2>{_table(["layer", "verdict", "score", "reason"], verdicts)}
<h2>FAIL_TO_PASS ({len(task.get("FAIL_TO_PASS") or [])})</h2>{_tests_html(task.get("FAIL_TO_PASS") or [])}
<h2>PASS_TO_PASS ({len(task.get("PASS_TO_PASS") or [])})</h2>{_tests_html(task.get("PASS_TO_PASS") or [])}
<h2>Bug patch (turns the fixed state into the one the agent sees)</h2>{_diff_html(task.get("bug_patch", ""))}
<h2>Gold patch</h2>{_diff_html(task.get("patch", ""))}
<h2>Test patch (withheld from the agent)</h2>{_diff_html(task.get("test_patch", ""))}
</body></html>
"""


def write_task_pages(kept: list[dict], out: Path, run_name: str) -> dict[str, str]:
    """report/tasks/<id>.html per kept task; returns instance_id -> page path relative to the report."""
    folder = out / "tasks"
    folder.mkdir(parents=True, exist_ok=True)
    for stale in folder.glob("*.html"):
        stale.unlink()
    pages: dict[str, str] = {}
    for task in kept:
        name = task_page_name(task.get("instance_id", ""))
        (folder / name).write_text(task_page(task, run_name), encoding="utf-8")
        pages[task.get("instance_id", "")] = f"tasks/{name}"
    return pages


def _task_index_html(kept: list[dict], pages: dict[str, str]) -> str:
    if not kept:
        return "<p>No task passed every layer yet.</p>"
    rows = "".join(
        f'<tr><td><a href="{html.escape(pages[t.get("instance_id", "")])}">'
        f"{html.escape(t.get('instance_id', ''))}</a></td>"
        f"<td>{html.escape(t.get('repo', ''))}</td><td>{html.escape(t.get('strategy_type', ''))}</td>"
        f"<td>{html.escape(t.get('difficulty_level', ''))}</td><td>{len(t.get('FAIL_TO_PASS') or [])}</td>"
        f"<td>{len(t.get('PASS_TO_PASS') or [])}</td>"
        f"<td>{html.escape((t.get('problem_statement', '').strip().splitlines() or [''])[0][:90])}</td></tr>"
        for t in kept
    )
    return (
        "<table><thead><tr><th>task</th><th>repo</th><th>type</th><th>difficulty</th><th>F2P</th><th>P2P</th>"
        f"<th>statement</th></tr></thead><tbody>{rows}</tbody></table>"
    )


def _leaderboard_html(documents: list[dict]) -> str:
    if not documents:
        return "<p>No results yet: put <code>sebgen evaluate ... --out RUN_DIR/results/NAME.json</code> files here.</p>"
    months = sorted({m for d in documents for m in d["summary"].get("by_month", {})})
    rows, attrs = [], []
    for doc in documents:
        k = doc["summary"].get("k", 1)
        slices = [("all", doc["summary"]["overall"])] + sorted(doc["summary"].get("by_month", {}).items())
        for month, agg in slices:
            rows.append(
                [
                    doc["model"],
                    month,
                    agg["tasks"],
                    f"{agg['resolved_rate']:.3f}",
                    f"{agg['pass@1']:.3f}",
                    f"{agg.get(f'pass@{k}', 0.0):.3f} (k={k})",
                ]
            )
            attrs.append(f'data-month="{html.escape(month)}"' + ("" if month == "all" else ' style="display:none"'))
    options = "".join(f'<option value="{html.escape(m)}">{html.escape(m)}</option>' for m in ["all"] + months)
    script = (
        "<script>function filterMonth(v){document.querySelectorAll('#leaderboard tbody tr').forEach("
        "function(r){r.style.display=(r.dataset.month===v)?'':'none';});}</script>"
    )
    return (
        f'<label>month <select id="month" onchange="filterMonth(this.value)">{options}</select></label>'
        f'<div id="leaderboard">{_table(["model", "month", "tasks", "resolved", "pass@1", "pass@k"], rows, attrs)}'
        f"</div>{script}"
    )


STYLE = (
    "body{font-family:sans-serif;max-width:1000px;margin:2em auto;padding:0 1em}"
    "table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:3px 8px;font-size:90%}"
    "img{max-width:100%;border:1px solid #eee}pre{white-space:pre-wrap;background:#f6f6f6;padding:.5em}"
    "pre.diff .add{color:#064;background:#e6ffec}pre.diff .del{color:#900;background:#ffebe9}"
    "pre.diff .hunk{color:#555}pre.diff .file{font-weight:bold}ul.lineage{margin:0 0 0 1.2em;padding:0}"
)


def build_report(run_dir: Path) -> Path:
    """Write RUN_DIR/report/index.html and its PNGs; returns the HTML path."""
    run_dir = Path(run_dir)
    if not run_dir.exists():
        raise ReportError(f"run folder {run_dir} does not exist")
    if ExperimentFolder(run_dir).is_experiment():
        return build_experiment_report(run_dir)
    data = read_run(run_dir)
    out = RunFolder(run_dir).report_dir
    out.mkdir(parents=True, exist_ok=True)
    index = out / "index.html"
    index.write_text(run_page(data, out), encoding="utf-8")
    return index


def run_page(d: RunData, out: Path) -> str:
    series = d.series
    images = {
        "dimensions": plot_dimensions(series, d.hof_best, out),
        "novelty": plot_novelty(d.novelty_rows, out),
        "strategy_mix": plot_strategy_mix(d.mix, out),
        "difficulty": plot_difficulty(d.kept, out),
        "funnel": plot_funnel(d.funnel, d.reasons, out),
        "usage": plot_usage(d.usage, out),
        "lineage": plot_lineage(d.nodes, [e["id"] for e in d.hof], out),
    }
    gens = sorted({g for points in series.values() for g, _, _ in points})
    dim_rows = [[g] + [f"{dict((p[0], p[1]) for p in series[n]).get(g, 0.0):.3f}" for n in series] for g in gens]
    pages = write_task_pages(d.kept, out, d.name)
    level_counts = Counter(t.get("difficulty_level", "") or "unknown" for t in d.kept)
    best = d.hof_best
    img = lambda key, alt: f'<img src="{images[key]}" alt="{html.escape(alt)}">'
    novelty_table = [[g, s, "n/a" if v != v else f"{v:.3f}"] for g, s, v in d.novelty_rows]
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>SEBGen run {html.escape(d.name)}</title>
<style>{STYLE}</style></head><body>
<h1>SEBGen run {html.escape(d.name)}</h1>
<p>{d.generation} generations, {d.evaluations} evaluations, {len(d.attempted)} generated tasks,
<a href="#tasks">{len(d.kept)} kept</a> (the archive's dataset, after the batch filter).</p>
<h2>Exploration value and dimensions</h2>{img("dimensions", "EV and dimensions per generation")}
{
        _table(
            ["generation", "hall-of-fame best EV"] + list(series),
            [[row[0], f"{dict(best).get(row[0], 0.0):.3f}"] + row[1:] for row in dim_rows],
        )
    }
<h2>Novelty against archive size</h2>{img("novelty", "novelty against archive size")}
{_table(["generation", "archived tasks scored against", "mean novelty"], novelty_table)}
<h2>Strategy types per generation</h2>{img("strategy_mix", "strategy type mix")}
{_table(["generation", "mix"], [[g, ", ".join(f"{k}: {v}" for k, v in sorted(c.items()))] for g, c in d.mix.items()])}
<h2>Difficulty of kept tasks</h2>{img("difficulty", "difficulty histogram")}
{_table(["level", "kept tasks"], [[lvl, level_counts.get(lvl, 0)] for lvl in LEVELS])}
<h2>Validation funnel</h2>{img("funnel", "validation funnel")}
{_table(["stopped at", "tasks"], [[k, v] for k, v in d.funnel.items()])}
{_table(["stopped at", "reason", "tasks"], [list(row) for row in d.reasons])}
<h2>Container validations per kept task</h2>
{
        _table(
            ["generation", "validations", "kept (before the batch filter)", "validations per kept task"],
            [[g, v, k, "-" if per is None else f"{per:.2f}"] for g, v, k, per in d.cost],
        )
    }
<h2>LLM tokens and cost</h2>{img("usage", "LLM usage per generation")}
{_table(["generation", "tokens", "cost (USD)"], [[g, t, f"{c:.4f}"] for g, t, c in d.usage])}
<h2>Hall of fame</h2>{_hof_html(d.hof, d.nodes)}
<h2>Lineage</h2>{img("lineage", "lineage of the hall of fame back to the seeds")}
<h2 id="tasks">Kept tasks</h2>{_task_index_html(d.kept, pages)}
<h2>Leaderboard</h2>{_leaderboard_html(d.results)}
</body></html>
"""


def _mean_curve(per_seed: list[dict], run: str, key: str) -> list[tuple[int, float]]:
    by_gen: dict[int, list[float]] = {}
    for seed in per_seed:
        for point in (seed.get("curves") or {}).get(run, []):
            by_gen.setdefault(point["generation"], []).append(point[key])
    return [(g, sum(v) / len(v)) for g, v in sorted(by_gen.items())]


def plot_experiment_curves(per_seed: list[dict], out: Path) -> str | None:
    """Best and mean EV per generation of the training runs (evolution, random search): one
    faint line per seed, the mean over seeds bold."""
    if not any(seed.get("curves") for seed in per_seed):
        return None
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.4), sharey=True)
    colors = {"evolved": "#2a7", "random_search": "#58c"}
    for ax, key, title in ((axes[0], "best_ev", "best EV"), (axes[1], "mean_ev", "mean EV")):
        for run, color in colors.items():
            for seed in per_seed:
                points = (seed.get("curves") or {}).get(run, [])
                ax.plot([p["generation"] for p in points], [p[key] for p in points], color=color, alpha=0.25)
            mean = _mean_curve(per_seed, run, key)
            ax.plot([g for g, _ in mean], [v for _, v in mean], color=color, lw=2.2, label=run.replace("_", " "))
        ax.set_title(f"{title} per generation (training)", fontsize=9)
        ax.set_xlabel("generation")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    axes[0].legend(fontsize=8)
    return _save(fig, out / "experiment-curves.png")


def _ci(c: dict) -> str:
    return f"{c['mean']:.3f} [{c['low']:.3f}, {c['high']:.3f}]"


def build_experiment_report(exp_dir: Path) -> Path:
    """EXP_DIR/report/index.html for `sebgen experiment`: per arm and metric, mean with 95% CI;
    the paired differences; the difficulty histograms; the training runs' best and mean EV per
    generation; validations per kept task and each arm's genes."""
    experiment = ExperimentFolder(exp_dir)
    doc = experiment.read_document()
    arms, metrics = list(doc["arms"]), list(next(iter(doc["arms"].values())))
    # the bars: the headline metrics (the EV's other dimensions are in the table)
    shown = [m for m in metrics if m not in ("quality", "novelty", "skill_diversity", "evolution_potential")]
    out = experiment.report_dir
    out.mkdir(parents=True, exist_ok=True)
    fig, axes = plt.subplots(1, len(shown), figsize=(3 * len(shown), 3.4))
    for ax, metric in zip(axes if len(shown) > 1 else [axes], shown):
        cis = [doc["arms"][arm][metric] for arm in arms]
        ax.bar(
            range(len(arms)),
            [c["mean"] for c in cis],
            color=["#999", "#2a7", "#58c"][: len(arms)],
            yerr=[[c["mean"] - c["low"] for c in cis], [c["high"] - c["mean"] for c in cis]],
            capsize=4,
        )
        ax.set_xticks(range(len(arms)), [a.replace("_", "\n") for a in arms], fontsize=7)
        ax.set_title(metric.replace("_", " "), fontsize=9)
    image = _save(fig, out / "experiment.png")
    curves = plot_experiment_curves(doc.get("per_seed", []), out)
    rows = [[arm] + [_ci(doc["arms"][arm][m]) for m in metrics] for arm in arms]
    differences = doc.get("differences", {})
    diff_rows = [[name.replace("_", " ")] + [_ci(d[m]) for m in metrics if m in d] for name, d in differences.items()]
    histograms = doc.get("difficulty_histograms", {})
    bins = max((len(h) for h in histograms.values()), default=0)
    hist_rows = [[arm] + list(histograms.get(arm, [])) for arm in arms if histograms.get(arm)]
    cost_rows = []
    for arm in arms:
        results = [s["arms"][arm] for s in doc.get("per_seed", [])]
        kept, spent = sum(r.get("kept", 0) for r in results), sum(r.get("validations", 0) for r in results)
        cost_rows.append([arm, spent, kept, f"{spent / kept:.2f}" if kept else "-"])
    gene_rows = [
        [
            s["seed"],
            arm,
            s["arms"][arm].get("strategy", {}).get("id", ""),
            json.dumps(s["arms"][arm].get("strategy", {}).get("genes", {})),
        ]
        for s in doc.get("per_seed", [])
        for arm in arms
    ]
    budget = doc.get("heldout_validations_per_arm", doc.get("heldout_calls_per_arm"))
    unit = "container validations" if "heldout_validations_per_arm" in doc else "generation calls"
    curve_html = (
        f'<h2>Training runs: EV per generation</h2><img src="{curves}" alt="best and mean EV per generation">'
        if curves
        else ""
    )
    page = f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>SEBGen experiment {html.escape(experiment.path.name)}</title>
<style>{STYLE}</style></head><body>
<h1>Evolution gain on held-out commits</h1>
<p>{doc["split"]["train"]} training commits, {doc["split"]["heldout"]} held-out; {budget}
{unit} per arm; {len(doc["per_seed"])} seeds. Bars: mean, whiskers: 95% t-interval over seeds.</p>
<img src="{image}" alt="per arm: kept per validation, kept rate, leak rate, judge quality, difficulty coverage, EV">
{_table(["arm"] + metrics, rows)}
<h2>Paired differences (same seed, same held-out commits)</h2>
{_table(["difference"] + metrics, diff_rows) if diff_rows else ""}
<h2>Container validations per kept task (held-out, all seeds)</h2>
{_table(["arm", "validations", "kept", "validations per kept task"], cost_rows)}
<h2>Difficulty of the kept held-out tasks (all seeds)</h2>
{_table(["arm"] + [f"{i / bins:.1f}-{(i + 1) / bins:.1f}" for i in range(bins)], hist_rows) if hist_rows else ""}
{curve_html}
<h2>The arms' genes</h2>
{_table(["seed", "arm", "strategy", "genes"], gene_rows)}
<p>{html.escape(doc["verdict"])}</p>
</body></html>
"""
    index = out / "index.html"
    index.write_text(page, encoding="utf-8")
    return index
