"""The `sebgen` command line. The only module that knows about the CLI.

User mistakes (bad config, not a repo, unparsable model output, ...) end with one sentence on
stderr and exit code 2; no traceback.
"""
from __future__ import annotations

import json
import os
import sys
import time
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import List, Optional

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
# Idle OpenMP threads sleep instead of spinning (torch and llama.cpp share one libgomp, which
# reads this once, when the first of them loads): on a shared machine spinning costs 10x.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import typer
from rich.console import Console
from rich.table import Table

from evo.checkpoint import CheckpointError, load_latest
from evo.config import Config, ConfigError, load_config

app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False,
                  help="SEBGen: mine repos, generate verified SWE-bench-style tasks, evolve the generator.")
out = Console(highlight=False, soft_wrap=True, width=None if sys.stdout.isatty() else 160)
err = Console(stderr=True, highlight=False, soft_wrap=True)

ConfigOpt = typer.Option(None, "--config", help="YAML config (same schema as `run`).")
SetOpt = typer.Option(None, "--set", help="Override a config key: a.b=value (repeatable).")


class UserError(Exception):
    pass


def _user_errors() -> tuple[type[BaseException], ...]:
    """Exception classes that mean "the user asked for something that cannot be done"."""
    from archive import ArchiveError
    from evo.loop import RunError
    from evo.report import ReportError
    from harness import AgentError, PredictionsError
    from corpus import CorpusError
    from harness import CurriculumError
    from harness import ExportError
    from llm import LLMError
    from fitness.mining import MiningError
    from fitness.task import TaskFileError
    from sandbox import SandboxError
    return (UserError, ConfigError, CheckpointError, MiningError, LLMError, TaskFileError, RunError, SandboxError,
            ArchiveError, AgentError, PredictionsError, CurriculumError, ExportError, ReportError, CorpusError)


@contextmanager
def friendly_errors():
    try:
        yield
    except typer.Exit:
        raise
    except _user_errors() as exc:
        message = str(exc).strip().splitlines()[0] if str(exc).strip() else exc.__class__.__name__
        err.print(f"sebgen: {message}", markup=False)
        raise typer.Exit(2)


def _config(path: Optional[Path], overrides: Optional[List[str]]) -> Config:
    return load_config(path, overrides or [])


def _log(message: str) -> None:
    err.print(message, markup=False)


# ------------------------------------------------------------------ evolution

class ProgressView:
    """Per-generation progress: a live bar on a terminal, plain lines always (logs, CI)."""

    def __init__(self):
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
        self.bar = None
        if err.is_terminal:
            self.bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                                TimeElapsedColumn(), TextColumn("{task.fields[status]}"), console=err, transient=True)
            self.bar.start()
        self.task_id = None
        self.tasks = 0

    def __call__(self, event: dict) -> None:
        kind = event["event"]
        if kind == "generation_start":
            self.tasks = 0
            err.print(f"[bold]generation {event['generation']}[/]: {event['total']} strategies "
                      f"({event['cached']} already evaluated)")
            if self.bar:
                self.task_id = self.bar.add_task(f"generation {event['generation']}",
                                                 total=event["total"] - event["cached"], status="")
        elif kind == "evaluated":
            usage = event["usage"]
            self.tasks += event["tasks"]
            tokens = usage["prompt_tokens"] + usage["completion_tokens"]
            err.print(f"  evaluated {event['strategy']}: EV {event['exploration_value']:.3f}, "
                      f"{event['passed']}/{event['tasks']} tasks kept | {self.tasks} tasks validated this "
                      f"generation | tokens {tokens:,}, cost ${usage['cost_usd']:.4f}")
            if self.bar and self.task_id is not None:
                self.bar.update(self.task_id, advance=1,
                                status=f"{self.tasks} tasks, {tokens:,} tokens, ${usage['cost_usd']:.4f}")
        elif kind == "generation_end":
            if self.bar and self.task_id is not None:
                self.bar.remove_task(self.task_id)
            err.print(f"generation {event['generation']} done in {event['seconds']:.1f}s, "
                      f"population mean EV {event['mean']:.3f}, best EV so far {event['best']:.3f}")

    def close(self) -> None:
        if self.bar:
            self.bar.stop()


def _preflight(config: Config) -> None:
    """Fail before creating anything when the repos or the model cannot work."""
    from evo.pipeline import check_llm
    from evo.runtime import mine_all, resolve_repos
    mine_all(config, resolve_repos(config))
    check_llm(config)


def _run(config: Config, run_dir: Path, generations: int) -> None:
    from evo.loop import Evolution
    started = time.monotonic()
    view = ProgressView()
    try:
        outcome = Evolution(config, run_dir, log=_log, on_progress=view).run(generations)
    finally:
        view.close()
    elapsed = time.monotonic() - started
    if outcome.stopped and not outcome.finished:
        err.print(f"stopped after generation {outcome.generation}; resume with: sebgen resume {run_dir}")
        return
    best = outcome.hall_of_fame[0] if outcome.hall_of_fame else None
    err.print(f"run finished: {outcome.generation} generations, {outcome.evaluations_performed} evaluations "
              f"in {elapsed:.0f}s; run folder {run_dir}")
    if best:
        out.print(f"best strategy {best['id']} ({best['strategy_type']}) EV {best['exploration_value']:.3f}")
    out.print(f"inspect: sebgen hof {run_dir}")


@app.command()
def run(config: Path = typer.Argument(..., help="YAML config, e.g. configs/quickstart.yaml"),
        run_dir: Optional[Path] = typer.Option(None, "--run-dir", help="Run folder (default runs/NAME-TIME)."),
        set_: Optional[List[str]] = SetOpt):
    """Start an evolution run; writes the resolved config into the run folder."""
    with friendly_errors():
        cfg = _config(config, set_)
        run_dir = run_dir or Path("runs") / f"{config.stem}-{datetime.now():%Y%m%d-%H%M%S}"
        if (run_dir / "config.yaml").exists():
            raise UserError(f"run folder {run_dir} already holds a run; continue it with: sebgen resume {run_dir}")
        _preflight(cfg)
        run_dir.mkdir(parents=True, exist_ok=True)
        (run_dir / "config.yaml").write_text(cfg.to_yaml(), encoding="utf-8")
        err.print(f"run folder {run_dir}: population {cfg.evolution.population}, "
                  f"{cfg.evolution.generations} generations, model {cfg.llm.model}")
        _run(cfg, run_dir, cfg.evolution.generations)


@app.command()
def resume(run_dir: Path = typer.Argument(..., help="Run folder to continue."),
           generations: Optional[int] = typer.Option(None, "--generations", help="Extend the run to N generations."),
           set_: Optional[List[str]] = SetOpt):
    """Continue a run from its last complete checkpoint."""
    with friendly_errors():
        if not (run_dir / "config.yaml").is_file():
            raise UserError(f"{run_dir} is not a SEBGen run folder (no config.yaml)")
        cfg = _config(run_dir / "config.yaml", set_)
        if generations is not None:
            cfg.evolution.generations = generations
            (run_dir / "config.yaml").write_text(cfg.to_yaml(), encoding="utf-8")
        (run_dir / "STOP").unlink(missing_ok=True)
        _run(cfg, run_dir, cfg.evolution.generations)


@app.command()
def hof(run_dir: Path = typer.Argument(...), gen: Optional[int] = typer.Option(None, "--gen"),
        as_json: bool = typer.Option(False, "--json")):
    """Hall of fame as of generation N (default: the last)."""
    with friendly_errors():
        state = load_latest(run_dir, log=lambda _m: None) if run_dir.is_dir() else None
        if state is None:
            raise UserError(f"{run_dir} has no checkpoint yet (is it a SEBGen run folder?)")
        gen = gen or state["generation"]
        entries = state["hof_by_generation"].get(str(gen))
        if entries is None:
            raise UserError(f"generation {gen} is not in {run_dir}; it has generations 1..{state['generation']}")
        if as_json:
            sys.stdout.write(json.dumps(entries, indent=2, sort_keys=True) + "\n")
            return
        table = Table(title=f"Hall of fame, generation {gen}")
        for col in ("rank", "id", "type", "EV", "Q", "N", "D", "S", "E", "operator", "parents"):
            table.add_column(col)
        for rank, e in enumerate(entries, 1):
            d = e["dimensions"]
            table.add_row(str(rank), e["id"], e["strategy_type"], f"{e['exploration_value']:.3f}",
                          *(f"{d.get(k, 0):.2f}" for k in ("quality", "novelty", "difficulty_coverage",
                                                             "skill_diversity", "evolution_potential")),
                          e["operator"], ",".join(e["parents"]) or "-")
        out.print(table)


# ------------------------------------------------------------------ pipeline mode

def _resolve_repo(repo: str) -> Path:
    if "://" in repo or repo.startswith("git@"):
        import git
        from sandbox import default_cache_dir
        dest = default_cache_dir() / "clones" / repo.rstrip("/").split("/")[-1].removesuffix(".git")
        if not dest.exists():
            _log(f"cloning {repo} into {dest}")
            try:
                git.Repo.clone_from(repo, dest)
            except git.GitCommandError as exc:
                raise UserError(f"could not clone {repo}: {exc.stderr.strip().splitlines()[-1] if exc.stderr else exc}")
        return dest
    return Path(repo).expanduser().resolve()


@app.command()
def generate(repo: str = typer.Argument(..., help="Repo path or URL."),
             commit: Optional[List[str]] = typer.Option(None, "--commit", help="Only these commits (repeatable)."),
             strategy: str = typer.Option("BUG_FIX", "--strategy",
                                          help="BUG_FIX, FEATURE_ADD, REFACTOR, TEST_DRIVEN, HYBRID or SYNTHETIC"),
             n: int = typer.Option(5, "--n", min=1, help="Tasks to keep."),
             out_file: Path = typer.Option(Path("tasks.jsonl"), "--out"),
             config: Optional[Path] = ConfigOpt, set_: Optional[List[str]] = SetOpt):
    """Pipeline mode, no evolution: validated tasks from a repo into JSONL."""
    from evo.pipeline import SYNTHETIC, generate_tasks
    from fitness.strategy import StrategyType
    from fitness.task import write_jsonl
    with friendly_errors():
        cfg = _config(config, set_)
        choices = [t.value for t in StrategyType] + [SYNTHETIC]
        if strategy.upper() not in choices:
            raise UserError(f"unknown strategy {strategy!r}; choose one of {', '.join(choices)}")
        result = generate_tasks(cfg, _resolve_repo(repo), strategy.upper(), n, commit or (),
                                progress=_report_task, log=_log)
        write_jsonl(result.kept, out_file)
        err.print(f"{len(result.kept)} of {result.attempts} generated tasks passed every layer; wrote {out_file}")
        if len(result.kept) < n:
            err.print(f"warning: asked for {n} tasks, only {len(result.kept)} passed (tried {result.attempts})")


def _report_task(task) -> None:
    failed = task.failed_layer()
    if failed:
        err.print(f"  rejected {task.instance_id} at {failed[0]}: {failed[1]['reason']}", markup=False)
    else:
        err.print(f"  kept {task.instance_id} ({task.difficulty_level}, {task.domain}, "
                  f"{len(task.FAIL_TO_PASS)} F2P)", markup=False)


def _layer_list(text: str) -> list[str]:
    from fitness.task import LAYERS
    chosen = [name.strip() for name in text.split(",") if name.strip()]
    unknown = [name for name in chosen if name not in LAYERS]
    if unknown or not chosen:
        raise UserError(f"unknown layer {(unknown or [text])[0]!r}; layers are {', '.join(LAYERS)}")
    return chosen


@app.command()
def validate(tasks: Path = typer.Argument(..., help="Tasks JSONL."),
             out_file: Optional[Path] = typer.Option(None, "--out"),
             layers: str = typer.Option("schema,compile,functional,quality,semantic", "--layers"),
             ablation: Optional[str] = typer.Option(None, "--ablation",
                                                    help="Layer sets separated by ';' (SEBGen Table 9), "
                                                         "e.g. 'schema,compile;schema,compile,functional'."),
             config: Optional[Path] = ConfigOpt, set_: Optional[List[str]] = SetOpt):
    """Re-run the validation layers on tasks; reports pass count and average score."""
    from evo.pipeline import revalidate, run_ablation
    from fitness.task import read_jsonl, write_jsonl
    with friendly_errors():
        cfg = _config(config, set_)
        records = list(read_jsonl(tasks))
        for task in records:
            if not task.repo_path or not Path(task.repo_path).is_dir():
                raise UserError(f"task {task.instance_id}: its repo_path {task.repo_path!r} is not on this machine")
        if ablation:
            rows = run_ablation(cfg, records, [_layer_list(part) for part in ablation.split(";")], log=_log)
            table = Table(title="Layer ablation (SEBGen Table 9)")
            for col in ("layers", "tasks", "passed", "pass rate", "mean score"):
                table.add_column(col)
            for row in rows:
                table.add_row("+".join(row["layers"]), str(row["tasks"]), str(row["passed"]),
                              f"{row['pass_rate']:.2f}", f"{row['mean_score']:.3f}")
            err.print(table)
            sys.stdout.write(json.dumps(rows, sort_keys=True) + "\n")
            return
        chosen = _layer_list(layers)
        records = revalidate(cfg, records, chosen, log=_log)
        passed = [t for t in records if t.passed]
        scores = [sum(v["score"] for v in t.validation.values()) / len(t.validation) for t in records if t.validation]
        summary = {"layers": chosen, "tasks": len(records), "passed": len(passed),
                   "average_score": round(sum(scores) / len(scores), 4) if scores else 0.0}
        if out_file:
            write_jsonl(records, out_file)
        sys.stdout.write(json.dumps(summary, sort_keys=True) + "\n")


@app.command("mine")
def mine_cmd(repo: str = typer.Argument(...), since: Optional[str] = typer.Option(None, "--since"),
             until: Optional[str] = typer.Option(None, "--until"), as_json: bool = typer.Option(False, "--json"),
             config: Optional[Path] = ConfigOpt, set_: Optional[List[str]] = SetOpt):
    """Candidate commits and the filter funnel counts."""
    from fitness.mining import mine
    with friendly_errors():
        cfg = _config(config, set_)
        m = cfg.mining
        result = mine(_resolve_repo(repo), since=since or m.since, until=until or m.until,
                      max_source_files=m.max_source_files, min_message_chars=m.min_message_chars)
        if as_json:
            sys.stdout.write(json.dumps(result.to_dict(), indent=2) + "\n")
            return
        for stage, count in result.funnel.items():
            out.print(f"{stage:>26}: {count}")
        for c in result.candidates:
            out.print(f"{c.sha[:10]} {c.created_at[:10]} {c.kind:<11} {c.subject}")


@app.command()
def corpus(directory: Path = typer.Argument(..., help="Where to build the demo repositories.")):
    """Build the bundled demo corpus (git repos) and print one repo path per line."""
    from corpus import build_corpus
    with friendly_errors():
        try:
            paths = build_corpus(directory)
        except ValueError as exc:
            raise UserError(str(exc))
        for path in paths:
            sys.stdout.write(f"{path}\n")


@app.command()
def doctor(clean: bool = typer.Option(False, "--clean", help="Remove SEBGen containers left by a crash."),
           prune: bool = typer.Option(False, "--prune-images", help="Remove SEBGen images no run references."),
           build_base: bool = typer.Option(False, "--build-base-image",
                                           help="Build the offline base image with debootstrap (needs root)."),
           config: Optional[Path] = ConfigOpt, set_: Optional[List[str]] = SetOpt):
    """What is available: Docker engine, base image, embedding model, LLM model."""
    from evo.doctor import run_checks
    with friendly_errors():
        cfg = _config(config, set_)
        if build_base:
            from sandbox import build_offline_base_image
            build_offline_base_image(cfg.sandbox.offline_base_image, log=_log)
        table = Table(title="sebgen doctor")
        table.add_column("check")
        table.add_column("status")
        table.add_column("detail")
        for name, ok, detail in run_checks(cfg, clean=clean, prune=prune, runs_dir=Path("runs")):
            table.add_row(name, "[green]ok[/]" if ok else "[yellow]missing[/]", detail)
        out.print(table)


# ------------------------------------------------------------------ benchmark use

def _fmt_rate(agg: dict, key: str) -> str:
    low, high = agg[f"{key}_ci95"]
    return f"{agg[key]:.3f} [{low:.2f}, {high:.2f}]"


@app.command("evaluate")
def evaluate_cmd(tasks: Path = typer.Argument(..., help="Tasks JSONL."),
                 predictions: Optional[Path] = typer.Option(None, "--predictions", help="SWE-bench predictions JSONL."),
                 agent: Optional[str] = typer.Option(None, "--agent", help="nop, oracle, random or llm:<model>."),
                 attempts: int = typer.Option(1, "--attempts", min=1, help="Attempts per task (built-in agents)."),
                 k: int = typer.Option(1, "--k", min=1, help="k of pass@k."),
                 out_file: Path = typer.Option(Path("results.json"), "--out"),
                 config: Optional[Path] = ConfigOpt, set_: Optional[List[str]] = SetOpt):
    """Score an agent or a predictions file on tasks: resolved rate, pass@1, pass@k with 95% intervals."""
    from harness import agent_predictions, evaluate_predictions, load_predictions, make_agent
    from harness import summarize
    from fitness.task import read_jsonl
    from evo.runtime import make_sandbox
    with friendly_errors():
        if (predictions is None) == (agent is None):
            raise UserError("give exactly one of --predictions FILE or --agent NAME")
        cfg = _config(config, set_)
        records = list(read_jsonl(tasks))
        if predictions is not None:
            preds, label = load_predictions(predictions), predictions.stem
            unknown = sorted(set(preds) - {t.instance_id for t in records})
            if unknown:
                _log(f"warning: {len(unknown)} predictions name no task in {tasks} (e.g. {unknown[0]})")
        else:
            chosen = make_agent(agent, seed=cfg.seed)
            preds, label = agent_predictions(chosen, records, attempts), chosen.name
        backend = make_sandbox(cfg, log=_log)
        try:
            results = evaluate_predictions(records, preds, backend)
        finally:
            backend.close()
        summary = summarize(results, k)
        document = {"model": label, "tasks_file": str(tasks), "summary": summary,
                    "tasks": {r.instance_id: r.to_dict() for r in results}}
        out_file.parent.mkdir(parents=True, exist_ok=True)
        out_file.write_text(json.dumps(document, indent=2, sort_keys=True) + "\n", encoding="utf-8")
        table = Table(title=f"{label} on {tasks} ({len(results)} tasks)")
        keys = ["resolved_rate", "pass@1"] + ([f"pass@{k}"] if k > 1 else [])
        for col in ["slice", "tasks", "resolved"] + [f"{key.replace('_', ' ')} [95% CI]" for key in keys]:
            table.add_column(col)
        rows = [("overall", summary["overall"])] + [(f"month {m}", a) for m, a in summary["by_month"].items()] \
            + [(f"difficulty {d}", a) for d, a in summary["by_difficulty"].items()]
        for name, agg in rows:
            table.add_row(name, str(agg["tasks"]), str(agg["resolved"]), *(_fmt_rate(agg, key) for key in keys))
        out.print(table)
        err.print(f"wrote {out_file}")


@app.command("curriculum")
def curriculum_cmd(tasks: Path = typer.Argument(..., help="Tasks JSONL."),
                   results: Path = typer.Option(..., "--results", help="Results JSON of `sebgen evaluate`."),
                   width: float = typer.Option(0.3, "--width", min=0.0, help="Base ZPD width."),
                   out_file: Optional[Path] = typer.Option(None, "--out", help="Write the ordered tasks here (JSONL).")):
    """Order tasks for an agent: its ZPD from its results, easy-medium-easy-medium-hard interleaving."""
    from harness import capability_profile, curriculum, zone_counts
    from fitness.task import read_jsonl, write_jsonl
    with friendly_errors():
        if not results.is_file():
            raise UserError(f"results file {results} does not exist")
        try:
            document = json.loads(results.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise UserError(f"results file {results} is not JSON: {exc}")
        records = list(read_jsonl(tasks))
        profile = capability_profile(document, records, base_width=width)
        order = curriculum(records, profile)
        counts = zone_counts(records, profile)
        out.print(f"ability {profile.ability:.3f}, recent success {profile.recent_success:.2f}, "
                  f"ZPD [{profile.low:.3f}, {profile.high:.3f}] (width {profile.width:.3f})")
        out.print(f"below {counts['below']}, within {counts['within']}, above {counts['above']}")
        if out_file:
            write_jsonl(order, out_file)
            err.print(f"wrote {len(order)} tasks in curriculum order to {out_file}")
        else:
            for task in order:
                out.print(f"{task.instance_id} {task.difficulty_level} {task.difficulty:.3f}")


@app.command("export")
def export_cmd(source: Path = typer.Argument(..., help="Run folder or tasks JSONL."),
               format_: str = typer.Option(..., "--format", help="swebench or harbor."),
               out_path: Path = typer.Option(..., "--out", help="JSONL file (swebench) or folder (harbor)."),
               base_image: str = typer.Option("sebgen-base:bookworm", "--base-image",
                                              help="Harbor: base image when a task has no Docker env image."),
               mirror: Optional[Path] = typer.Option(None, "--mirror",
                                                     help="SWE-bench: git mirror folder; publishes one branch "
                                                          "sebgen/<instance_id> per task holding the buggy state.")):
    """Export tasks as SWE-bench JSONL or Harbor task folders."""
    from harness import export_harbor, export_swebench, load_tasks
    with friendly_errors():
        if format_ not in ("swebench", "harbor"):
            raise UserError(f"unknown format {format_!r}; choose swebench or harbor")
        if mirror is not None and format_ != "swebench":
            raise UserError("--mirror applies only to --format swebench")
        records = load_tasks(source)
        if not records:
            raise UserError(f"{source} holds no task that passed validation")
        if format_ == "swebench":
            if mirror is None:
                err.print("sebgen: warning: base_commit is the fixed state; a stock SWE-bench harness needs "
                          "--mirror DIR to get the buggy state", markup=False)
            count = export_swebench(records, out_path, mirror_dir=mirror)
        else:
            count = len(export_harbor(records, out_path, base_image=base_image))
        err.print(f"exported {count} tasks ({format_}) to {out_path}")


@app.command("report")
def report_cmd(run_dir: Path = typer.Argument(..., help="Run folder.")):
    """Static HTML report with plots: RUN_DIR/report/index.html (leaderboard from RUN_DIR/results/*.json)."""
    from evo.report import build_report
    with friendly_errors():
        index = build_report(run_dir)
        out.print(f"report: {index}")


def main() -> None:
    app()


if __name__ == "__main__":
    main()
