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
from typing import TYPE_CHECKING, Optional

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
# Idle OpenMP threads sleep instead of spinning (torch and llama.cpp share one libgomp, which
# reads this once, when the first of them loads): on a shared machine spinning costs 10x.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import typer
from rich.console import Console
from rich.table import Table
from typer.core import TyperCommand

from evo.runfolder import ExperimentFolder, RunFolder
from records import UserError

if TYPE_CHECKING:
    from evo.config import Config

# Heavy modules (litellm, torch, sentence-transformers, docker, matplotlib, dask, even pydantic)
# are imported inside the commands that use them: help and user errors answer in well under a
# second (bench/cli_startup.py).

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    help="SEBGen: mine repos, generate verified SWE-bench-style tasks, evolve the generator.",
)
out = Console(highlight=False, soft_wrap=True, width=None if sys.stdout.isatty() else 160)
err = Console(stderr=True, highlight=False, soft_wrap=True)

ConfigOpt = typer.Option(None, "--config", help="YAML config (same schema as `run`).")
SetOpt = typer.Option(None, "--set", help="Override a config key: a.b=value (repeatable).")


class ReadmeUsage(TyperCommand):
    """A usage line written as the README writes it: `sebgen run CONFIG [--run-dir DIR] ...`."""

    def collect_usage_pieces(self, ctx) -> list[str]:
        return [self.options_metavar]


def usage(line: str) -> dict:
    """Keyword arguments for `app.command` that make its usage line `sebgen NAME <line>`."""
    return {"cls": ReadmeUsage, "options_metavar": line}


@contextmanager
def friendly_errors():
    try:
        yield
    except UserError as exc:
        message = str(exc).strip().splitlines()[0] if str(exc).strip() else exc.__class__.__name__
        err.print(f"sebgen: {message}", markup=False)
        raise typer.Exit(2)


def _config(path: Optional[Path], overrides: Optional[list[str]]) -> Config:
    from evo.config import load_config

    return load_config(path, overrides or [])


_said: set[str] = set()


def _log(message: str) -> None:
    """A progress or fallback message, each said once per process (backends repeat their fallbacks)."""
    if message in _said:
        return
    _said.add(message)
    err.print(message, markup=False)


def _existing(path: Path, what: str) -> Path:
    if not path.exists():
        raise UserError(f"{what} {path} does not exist")
    return path


# ------------------------------------------------------------------ evolution


class ProgressView:
    """Per-generation progress: a live bar on a terminal, plain lines always (logs, CI)."""

    def __init__(self):
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        self.bar = None
        if err.is_terminal:
            self.bar = Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                TextColumn("{task.fields[status]}"),
                console=err,
                transient=True,
            )
            self.bar.start()
        self.task_id = None
        self.tasks = 0

    def __call__(self, event: dict) -> None:
        kind = event["event"]
        if kind == "generation_start":
            self.tasks = 0
            err.print(
                f"[bold]generation {event['generation']}[/]: {event['total']} strategies "
                f"({event['cached']} already evaluated)"
            )
            if self.bar:
                self.task_id = self.bar.add_task(
                    f"generation {event['generation']}", total=event["total"] - event["cached"], status=""
                )
        elif kind == "evaluated":
            usage = event["usage"]
            self.tasks += event["tasks"]
            tokens = usage["prompt_tokens"] + usage["completion_tokens"]
            err.print(
                f"  evaluated {event['strategy']}: "
                f"{event['passed']}/{event['tasks']} tasks kept | {self.tasks} tasks validated this "
                f"generation | tokens {tokens:,}, cost ${usage['cost_usd']:.4f}"
            )
            if self.bar and self.task_id is not None:
                self.bar.update(
                    self.task_id, advance=1, status=f"{self.tasks} tasks, {tokens:,} tokens, ${usage['cost_usd']:.4f}"
                )
        elif kind == "scored":
            for row in event["strategies"]:
                d = row["dimensions"]
                err.print(
                    f"  scored {row['strategy']}: EV {row['exploration_value']:.3f} "
                    f"(Q {d['quality']:.2f}, N {d['novelty']:.2f}, E {d['evolution_potential']:.2f}), "
                    f"{row['passed']}/{row['attempts']} kept after the batch filter; novelty vs "
                    f"{event['archive_tasks']} archived tasks"
                )
        elif kind == "generation_end":
            if self.bar and self.task_id is not None:
                self.bar.remove_task(self.task_id)
            err.print(
                f"generation {event['generation']} done in {event['seconds']:.1f}s, "
                f"population mean EV {event['mean']:.3f}, hall-of-fame best EV {event['best']:.3f}"
            )

    def close(self) -> None:
        if self.bar:
            self.bar.stop()


def _preflight(config: Config) -> None:
    """Fail before creating anything when the repos or the model cannot work."""
    from evo.pipeline import check_llm
    from evo.runtime import mine_all, resolve_repos

    mine_all(config, resolve_repos(config))
    check_llm(config)


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _run(config: Config, run_dir: Path, generations: int, resumed_from: Optional[int] = None) -> None:
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
    if resumed_from is None:
        err.print(
            f"run finished: {_count(outcome.generation, 'generation')}, "
            f"{_count(outcome.evaluations_performed, 'evaluation')} in {elapsed:.0f}s; run folder {run_dir}"
        )
    else:
        err.print(
            f"run finished: {_count(outcome.generation - resumed_from, 'generation')} and "
            f"{_count(outcome.evaluations_performed, 'evaluation')} since resume in {elapsed:.0f}s "
            f"({_count(outcome.generation, 'generation')} and "
            f"{_count(len(RunFolder(run_dir).evaluations()), 'evaluation')} "
            f"in all); run folder {run_dir}"
        )
    if best:
        out.print(f"best strategy {best.id} ({best.strategy_type}) EV {best.exploration_value:.3f}")
    out.print(f"inspect: sebgen hof {run_dir}")


@app.command(**usage("CONFIG [--run-dir DIR] [--set a.b=v]..."))
def run(
    config: Path = typer.Argument(..., help="YAML config, e.g. configs/quickstart.yaml"),
    run_dir: Optional[Path] = typer.Option(None, "--run-dir", help="Run folder (default runs/NAME-TIME)."),
    set_: Optional[list[str]] = SetOpt,
):
    """Start an evolution run; writes the resolved config into the run folder."""
    with friendly_errors():
        cfg = _config(config, set_)
        run_dir = run_dir or Path("runs") / f"{config.stem}-{datetime.now():%Y%m%d-%H%M%S}"
        folder = RunFolder(run_dir)
        if folder.config_path.exists():
            raise UserError(f"run folder {run_dir} already holds a run; continue it with: sebgen resume {run_dir}")
        _preflight(cfg)
        folder.write_config(cfg.to_yaml())
        err.print(
            f"run folder {run_dir}: population {cfg.evolution.population}, "
            f"{cfg.evolution.generations} generations, model {cfg.llm.model}"
        )
        _run(cfg, run_dir, cfg.evolution.generations)


@app.command(**usage("RUN_DIR [--generations N]"))
def resume(
    run_dir: Path = typer.Argument(..., help="Run folder to continue."),
    generations: Optional[int] = typer.Option(None, "--generations", help="Extend the run to N generations."),
    set_: Optional[list[str]] = SetOpt,
):
    """Continue a run from its last complete checkpoint."""
    with friendly_errors():
        folder = RunFolder(_existing(run_dir, "run folder"))
        if not folder.config_path.is_file():
            raise UserError(f"{run_dir} is not a SEBGen run folder (no {folder.config_path.name})")
        cfg = _config(folder.config_path, set_)
        if generations is not None:
            cfg.evolution.generations = generations
            folder.write_config(cfg.to_yaml())
        folder.clear_stop()
        _run(cfg, run_dir, cfg.evolution.generations, resumed_from=folder.generation())


@app.command(**usage("RUN_DIR [--gen N] [--json] [--lineage ID]"))
def hof(
    run_dir: Path = typer.Argument(...),
    gen: Optional[int] = typer.Option(None, "--gen"),
    as_json: bool = typer.Option(False, "--json"),
    lineage: Optional[str] = typer.Option(
        None, "--lineage", metavar="ID", help="Follow strategy ID (or an id prefix) back to its seeds."
    ),
):
    """Hall of fame as of generation N (default: the last)."""
    with friendly_errors():
        by_generation = RunFolder(_existing(run_dir, "run folder")).hall_of_fame_by_generation()
        if not by_generation:
            raise UserError(f"{run_dir} has no checkpoint yet (is it a SEBGen run folder?)")
        if lineage is not None:
            _print_lineage(run_dir, lineage)
            return
        last = max(by_generation)
        gen = gen or last
        entries = by_generation.get(gen)
        if entries is None:
            raise UserError(f"generation {gen} is not in {run_dir}; it has generations 1..{last}")
        if as_json:
            sys.stdout.write(json.dumps(entries, indent=2, sort_keys=True) + "\n")
            return
        sizes = sorted({(e.get("novelty_reference") or {}).get("archive_tasks") for e in entries} - {None})
        table = Table(
            title=f"Hall of fame, generation {gen}",
            caption=(
                f"novelty (N) measured against {', '.join(map(str, sizes))} archived tasks, leave-one-out"
                if sizes
                else None
            ),
        )
        for col in ("rank", "id", "type", "fitness", "EV", "Q", "N", "D", "S", "E", "val/kept", "genes", "operator"):
            table.add_column(col)
        for rank, e in enumerate(entries, 1):
            d = e["dimensions"]
            per_kept = e.get("validations_per_kept")
            table.add_row(
                str(rank),
                e["id"],
                e["strategy_type"],
                f"{e.get('fitness', e['exploration_value']):.3f}",
                f"{e['exploration_value']:.3f}",
                *(
                    f"{d.get(k, 0):.2f}"
                    for k in ("quality", "novelty", "difficulty_coverage", "skill_diversity", "evolution_potential")
                ),
                "-" if per_kept is None else f"{per_kept:.2f}",
                genes_text(e.get("genes"), e["strategy_type"]),
                e["operator"] + (f" of {','.join(e['parents'])}" if e["parents"] else ""),
            )
        out.print(table)
        out.print(
            "fitness = (1 - cost_weight) EV + cost_weight x kept per validation; val/kept = container "
            "validations per kept task; genes: those not at their neutral default (none: a seed's)",
            markup=False,
        )


def genes_text(genes: dict | None, strategy_type: str) -> str:
    """The genes of a hall-of-fame entry that are not at their neutral default, compactly."""
    from tasks import Strategy, StrategyType

    if not genes:
        return "-"
    neutral = Strategy(StrategyType(strategy_type), "").shown_genes()
    short = {"statement_words": "words", "evidence_tests": "tests shown", "evidence_code": "code shown"}
    parts = []
    for name, value in genes.items():
        if value == neutral.get(name):
            continue
        label = short.get(name, name.removeprefix("sel_"))
        if isinstance(value, list):
            parts.append(f"{label} {value[0]:.2f}-{value[1]:.2f}")
        elif isinstance(value, dict):
            parts.append(f"{label} " + "/".join(f"{v:.2f}" for v in value.values()))
        elif isinstance(value, float):
            parts.append(f"{label} {value:+.2f}" if name.startswith("sel_") else f"{label} {value:.2f}")
        else:
            parts.append(f"{label} {value}")
    return ", ".join(parts) or "-"


def _print_lineage(run_dir: Path, wanted: str) -> None:
    from rich.tree import Tree

    from evo.lineage import ancestry, describe, family, resolve

    nodes = family(run_dir)
    sid = resolve(nodes, wanted)
    branches: dict[int, Tree] = {}
    root = None
    for depth, node, seen in ancestry(nodes, sid):
        label = describe(node) + (" (shown above)" if seen else "")
        if depth == 0:
            root = branches[0] = Tree(label, highlight=False)
        else:
            branches[depth] = branches[depth - 1].add(label, highlight=False)
    out.print(f"Lineage of {sid}, back to its seeds (each line's parents are indented below it):")
    out.print(root)


# ------------------------------------------------------------------ pipeline mode


def _local_repo(repo: str) -> Path:
    """The git repository a command works on: a path, or a URL cloned once into the cache."""
    if "://" in repo or repo.startswith("git@"):
        import git

        dest = _clones_dir() / repo.rstrip("/").split("/")[-1].removesuffix(".git")
        if not dest.exists():
            _log(f"cloning {repo} into {dest}")
            try:
                git.Repo.clone_from(repo, dest)
            except git.GitCommandError as exc:
                raise UserError(f"could not clone {repo}: {exc.stderr.strip().splitlines()[-1] if exc.stderr else exc}")
        return dest
    path = _existing(Path(repo).expanduser().resolve(), "repository")
    if not (path / ".git").exists() and not (path / "HEAD").exists():
        raise UserError(f"{path} is not a git repository")
    return path


def _clones_dir() -> Path:
    from sandbox import default_cache_dir

    return default_cache_dir() / "clones"


@app.command(**usage("REPO [--commit SHA]... [--strategy TYPE] [--n N] [--out FILE]"))
def generate(
    repo: str = typer.Argument(..., help="Repo path or URL."),
    commit: Optional[list[str]] = typer.Option(
        None, "--commit", help="Only these commits (repeatable); every one is tried and gets one outcome line."
    ),
    strategy: Optional[str] = typer.Option(
        None,
        "--strategy",
        help="BUG_FIX, FEATURE_ADD, REFACTOR, TEST_DRIVEN, HYBRID or SYNTHETIC: how statements are written "
        "(default: each named commit's classified kind; BUG_FIX for a whole repository).",
    ),
    n: int = typer.Option(5, "--n", min=1, help="Tasks to keep from a whole repository (named commits: all tried)."),
    out_file: Path = typer.Option(
        Path("tasks.jsonl"),
        "--out",
        help="Kept tasks, appended as each is kept; a rerun continues the file and skips its commits "
        "(remove it to start over).",
    ),
    rejects: Optional[Path] = typer.Option(
        None, "--rejects", help="Where every attempt that is not kept goes (default: OUT.rejected.jsonl beside --out)."
    ),
    quartile_filter: Optional[bool] = typer.Option(
        None,
        "--quartile-filter/--no-quartile-filter",
        help="SWE-MERA's bottom-quartile dataset filter (default: on for a whole repository, off for named commits).",
    ),
    config: Optional[Path] = ConfigOpt,
    set_: Optional[list[str]] = SetOpt,
):
    """Pipeline mode, no evolution: validated tasks from a repo into JSONL, the rest into a rejects file."""
    from tasks import StrategyType

    with friendly_errors():
        cfg = _config(config, set_)
        choices = [t.value for t in StrategyType]
        if strategy is not None and strategy.upper() not in choices:
            from evo.config import did_you_mean

            raise UserError(
                f"unknown strategy {strategy!r}{did_you_mean(strategy.upper(), choices)}; "
                f"choose one of {', '.join(choices)}"
            )
        repo_path = _local_repo(repo)
        from evo.pipeline import OutcomeFiles, generate_tasks, rejects_path

        rejects_file = rejects or rejects_path(out_file)
        synthetic = bool(strategy) and strategy.upper() == StrategyType.SYNTHETIC.value
        files = OutcomeFiles(out_file, rejects_file, resume=not synthetic)  # made bugs: a rerun starts over
        if files.done:
            err.print(
                f"continuing {out_file}: {_count(len(files.done), 'commit')} with an outcome already "
                f"({files.kept_before} kept) are not tried again",
                markup=False,
            )
        todo = n - files.kept_before
        if not commit and todo <= 0:
            err.print(f"{out_file} has {files.kept_before} kept tasks already (--n {n}): nothing to do", markup=False)
            return

        # Named commits refused before any attempt wait here: a call whose every named commit is
        # refused outright is a user error and writes nothing (bad input loses nothing).
        refused_first: list = []

        def on_outcome(outcome) -> None:
            if outcome.task is None and (refused_first or not files.started):
                refused_first.append(outcome)
            else:
                write_refused_first()
                files.write(outcome)
            status(outcome)

        def write_refused_first() -> None:
            for early in refused_first:
                files.write(early)
            refused_first.clear()

        from evo.stopping import sigterm_as_interrupt

        try:
            with (
                sigterm_as_interrupt(),
                _GenerateStatus(len(dict.fromkeys(commit)) if commit else todo, bool(commit)) as status,
            ):
                result = generate_tasks(
                    cfg,
                    repo_path,
                    strategy.upper() if strategy else None,
                    todo if not commit else n,
                    commit or (),
                    log=_log,
                    on_outcome=on_outcome,
                    quartile_filter=quartile_filter,
                    done=files.done,
                )
        except KeyboardInterrupt:
            err.print(
                f"stopped: the outcomes written so far stay in {out_file} and {rejects_file}; "
                + (
                    "a rerun starts over (made bugs are not resumed)"
                    if synthetic
                    else "the same command continues from them"
                ),
                markup=False,
            )
            raise typer.Exit(130) from None
        if result.named and not result.attempts and result.rejected:  # not one named commit can become a task
            raise UserError(
                result.rejected[0].reason
                if len(result.rejected) == 1
                else f"none of the {len(result.rejected)} named commits can become a task "
                f"(reasons above; written to {rejects_file})"
            )
        write_refused_first()
        files.finish()
        err.print(
            f"wrote {_count(len(result.kept), 'task')} to {out_file} and "
            f"{_count(len(result.rejected), 'rejected attempt')} to {rejects_file}",
            markup=False,
        )
        if not result.named and len(result.kept) < todo:
            kept = files.kept_before + len(result.kept)
            err.print(f"warning: asked for {n} tasks, only {kept} kept (tried {result.attempts})")
        err.print(result.summary(), markup=False)


class _GenerateStatus:
    """A live status line on a terminal while tasks are generated and validated, and one plain
    line per outcome always (printed once the outcome is final)."""

    def __init__(self, wanted: int, named: bool):
        self.wanted, self.named, self.kept, self.tried = wanted, named, 0, 0
        self.status = err.status(self._text()) if err.is_terminal else None

    def _text(self) -> str:
        if self.named:
            return f"generating: {self.tried} of {self.wanted} named commits done, {self.kept} kept"
        return f"generating: {self.kept} of {self.wanted} tasks kept, {self.tried} tried"

    def __enter__(self):
        if self.status:
            self.status.start()
        return self

    def __exit__(self, *exc) -> None:
        if self.status:
            self.status.stop()

    def __call__(self, outcome) -> None:
        self.tried += 1
        self.kept += outcome.kept
        err.print(outcome.line(), markup=False)
        if self.status:
            self.status.update(self._text())


def _repo_list(given: list[str]) -> list[str]:
    """REPOS as given: paths and URLs, and `@FILE` for a file with one per line (# comments)."""
    repos: list[str] = []
    for item in given:
        if item.startswith("@"):
            listing = Path(item[1:])
            if not listing.is_file():
                raise UserError(f"repository list {listing} does not exist")
            lines = listing.read_text(encoding="utf-8").splitlines()
            repos += [line.split("#")[0].strip() for line in lines if line.split("#")[0].strip()]
        else:
            repos.append(item)
    if not repos:
        raise UserError("no repository given")
    return list(dict.fromkeys(repos))


@app.command(
    **usage(
        "REPOS... --out DATASET_DIR [--since D] [--until D] [--strategy TYPE | --strategy-from RUN_DIR "
        "[--strategy-pick best|best-seed|best-evolved]] [--random-strategy SEED] "
        "[--unit commit|pr|both] [--min-source-files N] [--min-lines N] [--min-hunks N] [--workers N] "
        "[--scheduler ADDRESS] [--seed S] [--limit N]"
    )
)
def farm(
    repos: list[str] = typer.Argument(..., help="Repository paths or URLs, or @FILE with one per line."),
    out_dir: Path = typer.Option(..., "--out", help="The dataset folder (created, continued, or extended)."),
    since: Optional[str] = typer.Option(None, "--since", help="Only commits on or after this day (YYYY-MM-DD)."),
    until: Optional[str] = typer.Option(None, "--until", help="Only commits on or before this day (YYYY-MM-DD)."),
    strategy: Optional[str] = typer.Option(None, "--strategy", help="BUG_FIX (default), FEATURE_ADD, REFACTOR, ..."),
    strategy_from: Optional[Path] = typer.Option(
        None, "--strategy-from", help="An evolution run folder: farm with one of its strategies (--strategy-pick)."
    ),
    strategy_pick: str = typer.Option(
        "best",
        "--strategy-pick",
        help="With --strategy-from: best (hall-of-fame leader), best-seed (its best generation-1 strategy) "
        "or best-evolved (the best strategy evolution made).",
    ),
    random_strategy: Optional[int] = typer.Option(
        None,
        "--random-strategy",
        help="Farm with a random strategy drawn with this seed (of --strategy's type, else any): a baseline.",
    ),
    unit: str = typer.Option("both", "--unit", help="commit, pr (merged pull requests) or both."),
    min_source_files: int = typer.Option(0, "--min-source-files", help="Units changing at least N source files."),
    min_lines: int = typer.Option(0, "--min-lines", help="Units whose gold patch changes at least N lines."),
    min_hunks: int = typer.Option(0, "--min-hunks", help="Units whose gold patch has at least N hunks."),
    workers: int = typer.Option(1, "--workers", help="Dask workers (1: serial, in this process)."),
    scheduler: Optional[str] = typer.Option(None, "--scheduler", help="A Dask scheduler's address."),
    seed: Optional[int] = typer.Option(None, "--seed", help="Default: the config's seed."),
    limit: Optional[int] = typer.Option(None, "--limit", help="Units this version tries at most."),
    config: Optional[Path] = ConfigOpt,
    set_: Optional[list[str]] = SetOpt,
):
    """Build or extend a dataset from many repositories: resumable (rerun after a kill), incremental
    (a rerun tries only new units and releases a new version), on Dask with --workers/--scheduler."""
    with friendly_errors():
        from evo.config import farm_settings

        settings = farm_settings(
            since=since,
            until=until,
            strategy=strategy,
            strategy_from=str(strategy_from) if strategy_from else None,
            strategy_pick=strategy_pick,
            random_strategy=random_strategy,
            unit=unit,
            min_source_files=min_source_files,
            min_lines=min_lines,
            min_hunks=min_hunks,
            workers=workers,
            scheduler=scheduler,
            seed=0 if seed is None else seed,
            limit=limit,
        )
        cfg = _config(config, set_)
        if seed is None:
            settings.seed = cfg.seed
        from evo.dataset import DatasetFolder

        folder = DatasetFolder(out_dir)
        folder.check_usable()
        paths = [_local_repo(r) for r in _repo_list(repos)]
        from evo.farm import Farm

        with _FarmProgress() as progress:
            result = Farm(cfg, paths, folder, settings, log=_log, on_event=progress).run()
        _farm_summary(result, out_dir)
        if not result.finished:
            raise typer.Exit(130)


class _FarmProgress:
    """A live line on a terminal (units done of planned, kept, rejected by reason, time left) and
    one plain line per unit always."""

    def __init__(self):
        self.done = self.todo = self.kept = 0
        self.reasons: dict[str, int] = {}
        self.started = time.monotonic()
        self.status = err.status("farm: planning units") if err.is_terminal else None

    def _text(self) -> str:
        rejected = sum(self.reasons.values())
        top = ", ".join(f"{n} {r}" for r, n in sorted(self.reasons.items(), key=lambda kv: -kv[1])[:3])
        left = ""
        if self.done:
            seconds = (time.monotonic() - self.started) / self.done * (self.todo - self.done)
            left = f", about {int(seconds // 60)} min {int(seconds % 60)} s left"
        return (
            f"farm: {self.done}/{self.todo} units done, {self.kept} kept, {rejected} rejected"
            + (f" ({top})" if top else "")
            + left
        )

    def __enter__(self):
        if self.status:
            self.status.start()
        return self

    def __exit__(self, *exc) -> None:
        if self.status:
            self.status.stop()

    def __call__(self, event: dict) -> None:
        if event["event"] == "start":
            self.todo, self.started = event["todo"], time.monotonic()
            already = event["planned"] - event["todo"]
            err.print(
                f"farm: version {event['version']}: {event['planned']} units planned"
                + (f", {already} done before, {event['todo']} to do" if already else ""),
                markup=False,
            )
        else:
            row = event["row"]
            self.done += 1
            if row["outcome"] == "kept":
                self.kept += 1
                what = f"kept as {row['task']['instance_id']}"
            else:
                reason = f"{row['layer']}/{row['category']}" if row["layer"] else f"error/{row['category']}"
                self.reasons[reason] = self.reasons.get(reason, 0) + 1
                what = (
                    f"{row['outcome']} at {reason}: {str(row['reason']).splitlines()[0][:160] if row['reason'] else ''}"
                )
            err.print(f"  [{self.done}/{self.todo}] {row['unit']}: {what}", markup=False)
        if self.status:
            self.status.update(self._text())


def _farm_summary(result, out_dir: Path) -> None:
    table = Table(title=f"version {result.version} of {out_dir}")
    columns = ["repository", "tried", "kept", "PR kept", "commit kept", "kept/attempt", "validations/kept"]
    for col in columns + ["duplicates", "errors", "lost by cause"]:
        table.add_column(col)
    for repo, e in sorted(result.per_repo().items()):
        top = ", ".join(f"{n} {cause}" for cause, n in sorted(e["causes"].items(), key=lambda kv: (-kv[1], kv[0])))
        table.add_row(
            repo,
            str(e["tried"]),
            str(e["kept"]),
            str(e["kept_pr"]),
            str(e["kept_commit"]),
            f"{e['kept'] / e['tried']:.2f}" if e["tried"] else "-",
            f"{e['validations'] / e['kept']:.1f}" if e["kept"] else "-",
            str(e["duplicates"]),
            str(e["errors"]),
            top,
        )
    out.print(table)
    for repo, why in result.skipped_repos.items():
        err.print(f"farm: {repo} gave no units: {why}", markup=False)
    if result.finished and result.planned:
        err.print(f"farm: version {result.version} released {result.released} tasks into {out_dir}", markup=False)
    else:
        err.print(
            f"farm: version {result.version} stopped before its end: run the same command to continue", markup=False
        )


def _layer_list(text: str) -> list[str]:
    from records import LAYERS

    chosen = [name.strip() for name in text.split(",") if name.strip()]
    unknown = [name for name in chosen if name not in LAYERS]
    if unknown or not chosen:
        raise UserError(f"unknown layer {(unknown or [text])[0]!r}; layers are {', '.join(LAYERS)}")
    return chosen


@app.command(**usage("TASKS.jsonl [--layers schema,compile,...] [--ablation 'a,b;a,b,c'] [--out FILE]"))
def validate(
    tasks: Path = typer.Argument(..., help="Tasks JSONL."),
    out_file: Optional[Path] = typer.Option(None, "--out"),
    layers: str = typer.Option("schema,compile,functional,quality,semantic", "--layers"),
    ablation: Optional[str] = typer.Option(
        None,
        "--ablation",
        help="Layer sets separated by ';' (SEBGen Table 9), e.g. 'schema,compile;schema,compile,functional'.",
    ),
    config: Optional[Path] = ConfigOpt,
    set_: Optional[list[str]] = SetOpt,
):
    """Re-run the validation layers on tasks; reports pass count and average score."""
    from records import read_jsonl, write_jsonl

    with friendly_errors():
        cfg = _config(config, set_)
        layer_sets = [_layer_list(part) for part in ablation.split(";")] if ablation else None
        chosen = None if ablation else _layer_list(layers)
        records = list(read_jsonl(tasks))
        for task in records:
            if not task.repo_path or not Path(task.repo_path).is_dir():
                raise UserError(f"task {task.instance_id}: its repo_path {task.repo_path!r} is not on this machine")
        from evo.pipeline import revalidate, run_ablation

        if layer_sets:
            rows = run_ablation(cfg, records, layer_sets, log=_log)
            table = Table(title="Layer ablation (SEBGen Table 9)")
            for col in ("layers", "tasks", "passed", "pass rate", "mean score"):
                table.add_column(col)
            for row in rows:
                table.add_row(
                    "+".join(row["layers"]),
                    str(row["tasks"]),
                    str(row["passed"]),
                    f"{row['pass_rate']:.2f}",
                    f"{row['mean_score']:.3f}",
                )
            err.print(table)
            sys.stdout.write(json.dumps(rows, sort_keys=True) + "\n")
            return
        records = revalidate(cfg, records, chosen, log=_log)
        passed = [t for t in records if t.passed]
        scores = [sum(v.score for v in t.validation.values()) / len(t.validation) for t in records if t.validation]
        summary = {
            "layers": chosen,
            "tasks": len(records),
            "passed": len(passed),
            "average_score": round(sum(scores) / len(scores), 4) if scores else 0.0,
        }
        if out_file:
            write_jsonl(records, out_file)
        sys.stdout.write(json.dumps(summary, sort_keys=True) + "\n")


@app.command("mine", **usage("REPO [--since D] [--until D] [--json]"))
def mine_cmd(
    repo: str = typer.Argument(...),
    since: Optional[str] = typer.Option(None, "--since"),
    until: Optional[str] = typer.Option(None, "--until"),
    as_json: bool = typer.Option(False, "--json"),
    config: Optional[Path] = ConfigOpt,
    set_: Optional[list[str]] = SetOpt,
):
    """Candidate commits and the filter funnel counts."""
    with friendly_errors():
        cfg = _config(config, set_)
        path = _local_repo(repo)
        from evo.runtime import mine_repo

        result = mine_repo(cfg, path, since=since, until=until)
        if as_json:
            sys.stdout.write(json.dumps(result.to_dict(), indent=2) + "\n")
            return
        for stage, count in result.funnel.items():
            out.print(f"{stage:>26}: {count}")
        for c in result.candidates:
            out.print(f"{c.sha[:10]} {c.created_at[:10]} {c.kind:<11} {c.subject}")


@app.command("setup", **usage("REPO [--commit SHA] [--timeout S] [--json]"))
def setup_cmd(
    repo: str = typer.Argument(..., help="Repo path or URL."),
    commit: str = typer.Option("HEAD", "--commit", help="The snapshot to set up (default HEAD)."),
    timeout: float = typer.Option(900.0, "--timeout", help="Seconds allowed for the suite run."),
    as_json: bool = typer.Option(False, "--json"),
    config: Optional[Path] = ConfigOpt,
    set_: Optional[list[str]] = SetOpt,
):
    """Build a commit's test environment (repairing it from its logs), run the suite there, and
    print passed / failed / errored counts, the install recipe and the attempts."""
    with friendly_errors():
        cfg = _config(config, [f"sandbox.timeout_s={timeout}", *(set_ or [])])
        path = _local_repo(repo)
        from evo.runtime import make_sandbox

        backend = make_sandbox(cfg, log=_log)
        try:
            report = backend.setup(path, commit)
        finally:
            backend.close()
        if as_json:
            sys.stdout.write(json.dumps({k: v for k, v in report.items() if k != "log_tail"}, indent=2) + "\n")
            return
        c = report["counts"]
        out.print(f"{report['repo']}@{report['commit'][:12]}: environment {report['environment']}", markup=False)
        out.print(
            f"tests: {c['passed']} passed, {c['failed']} failed, {c['errored']} errored, {c['skipped']} skipped "
            f"({report.get('runner', 'pytest')} exit code {report['exit_code']}, {report['seconds']:.1f} s)"
            + (f"; {report['note']}" if report["note"] else ""),
            markup=False,
        )
        out.print("recipe:")
        for key, value in report["recipe"].items():
            if key == "sources":
                continue
            shown = (
                ", ".join(f"{k}={v}" for k, v in value.items())
                if isinstance(value, dict)
                else ", ".join("=".join(map(str, v)) if isinstance(v, (list, tuple)) else str(v) for v in value)
                if isinstance(value, (list, tuple))  # pairs (build_env, pytest_floors) as name=value
                else value
            )
            out.print(f"  {key}: {shown}", markup=False)
        for source in report["recipe"].get("sources", []):
            out.print(f"  detected from {source}", markup=False)
        out.print("attempts:")
        for i, a in enumerate(report["attempts"], 1):
            line = f"  {i}. {a['stage']} {'ok' if a['ok'] else 'failed'} ({a['seconds']:.1f} s)"
            if a["log"]:
                line += f", log {a['log']}"
            if a["fix"]:
                line += f" -> repaired: {a['fix']}"
            out.print(line, markup=False)
        if not report["attempts"]:
            out.print("  environment already built and verified earlier (reused)")
        if not [k for k in report["recipe"] if k not in ("sources", "requires_python")]:
            out.print("  (nothing to install: the tests run from the tree)")


@app.command(**usage("DIR [--language javascript]"))
def corpus(
    directory: Path = typer.Argument(..., help="Where to build the demo repositories."),
    language: str = typer.Option(
        "python", "--language", help="Which corpus: python (the default one) or javascript (jskit, node:test)."
    ),
):
    """Build the bundled demo corpus (git repos) and print one repo path per line."""
    from corpus import build_corpus

    with friendly_errors():
        paths = build_corpus(directory, language)
        for path in paths:
            sys.stdout.write(f"{path}\n")


@app.command(**usage("[--clean] [--prune-images] [--build-base-image]"))
def doctor(
    clean: bool = typer.Option(False, "--clean", help="Remove SEBGen containers left by a crash."),
    prune: bool = typer.Option(False, "--prune-images", help="Remove SEBGen images no run references."),
    build_base: bool = typer.Option(
        False, "--build-base-image", help="Build the offline base image with debootstrap (needs root)."
    ),
    config: Optional[Path] = ConfigOpt,
    set_: Optional[list[str]] = SetOpt,
):
    """What is available: Docker engine, base image, embedding model, LLM model."""
    with friendly_errors():
        cfg = _config(config, set_)
        from evo.doctor import run_checks

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


@app.command(
    "evaluate",
    **usage(
        "(RUN_DIR | DATASET_DIR | TASKS.jsonl) (--predictions P.jsonl | --agent nop|oracle|random|llm:MODEL) "
        "[--attempts N] [--k K] [--out FILE]"
    ),
)
def evaluate_cmd(
    tasks: Path = typer.Argument(
        ...,
        help="Run folder (its kept tasks), dataset folder (`sebgen farm`), tasks JSONL, or the SWE-bench JSONL "
        "of `sebgen export`.",
    ),
    predictions: Optional[Path] = typer.Option(None, "--predictions", help="SWE-bench predictions JSONL."),
    agent: Optional[str] = typer.Option(None, "--agent", help="nop, oracle, random or llm:<model>."),
    attempts: int = typer.Option(1, "--attempts", min=1, help="Attempts per task (built-in agents)."),
    k: int = typer.Option(1, "--k", min=1, help="k of pass@k."),
    out_file: Optional[Path] = typer.Option(
        None, "--out", help="Default: RUN_DIR/results/AGENT.json when the tasks are in a run folder, else beside them."
    ),
    config: Optional[Path] = ConfigOpt,
    set_: Optional[list[str]] = SetOpt,
):
    """Score an agent or a predictions file on tasks: resolved rate, pass@1, pass@k with 95% intervals.
    The source repositories of an export's rows are looked up among the config's `repos`."""
    with friendly_errors():
        if (predictions is None) == (agent is None):
            raise UserError("give exactly one of --predictions FILE or --agent NAME")
        if predictions is not None:  # a malformed file is told before the config loads
            from harness import load_predictions

            preds, label = load_predictions(predictions, warn=_log), predictions.stem
        cfg = _config(config, set_)
        chosen = _agent(agent, cfg.seed) if agent is not None else None
        records = _dataset(_existing(tasks, "run folder or tasks file"), lambda: _source_repos(cfg))
        if predictions is not None:
            unknown = sorted(set(preds) - {t.instance_id for t in records})
            if unknown:
                _log(f"warning: {len(unknown)} predictions name no task in {tasks} (e.g. {unknown[0]})")
        else:
            from harness import agent_predictions

            preds, label = agent_predictions(chosen, records, attempts), chosen.name
        from evo.runtime import make_sandbox
        from harness import evaluate_predictions, results_document, summarize, write_results

        backend = make_sandbox(cfg, log=_log)
        try:
            # patches from a file or a model are an adversary's; SEBGen's own agents are not
            untrusted = predictions is not None or not getattr(chosen, "trusted", False)
            results = evaluate_predictions(records, preds, backend, untrusted=untrusted)
        finally:
            backend.close()
        summary = summarize(results, k)
        out_file = write_results(
            out_file or _results_path(tasks, label), results_document(label, tasks, summary, results)
        )
        table = Table(title=f"{label} on {tasks} ({len(results)} tasks)")
        keys = ["resolved_rate", "pass@1"] + ([f"pass@{k}"] if k > 1 else [])
        for col in ["slice", "tasks", "resolved"] + [f"{key.replace('_', ' ')} [95% CI]" for key in keys]:
            table.add_column(col)
        rows = (
            [("overall", summary["overall"])]
            + [(f"month {m}", a) for m, a in summary["by_month"].items()]
            + [(f"difficulty {d}", a) for d, a in summary["by_difficulty"].items()]
        )
        for name, agg in rows:
            table.add_row(name, str(agg["tasks"]), str(agg["resolved"]), *(_fmt_rate(agg, key) for key in keys))
        out.print(table)
        err.print(f"wrote {out_file}")


def _agent(name: str, seed: int):
    from harness import AgentError, make_agent

    try:
        return make_agent(name, seed=seed)
    except AgentError as exc:
        from evo.config import did_you_mean

        raise UserError(f"{exc}{did_you_mean(name, ('nop', 'oracle', 'random'))}") from None


def _results_path(tasks: Path, label: str) -> Path:
    """Where `evaluate` writes without --out: the run folder's results/ (the report's leaderboard
    reads it) when the tasks are a run folder's or a file in one, else beside the tasks file."""
    from evo.dataset import DatasetFolder

    if DatasetFolder(tasks).is_dataset():
        return DatasetFolder(tasks).results_path(label)
    run = RunFolder(tasks) if RunFolder(tasks).is_run() else RunFolder.enclosing(tasks)
    if run is not None:
        return run.results_path(label)
    return tasks.with_name(f"{tasks.stem}.{label}.results.json")


@app.command("curriculum", **usage("TASKS.jsonl --results R.json [--width W] [--out FILE]"))
def curriculum_cmd(
    tasks: Path = typer.Argument(..., help="Tasks JSONL."),
    results: Path = typer.Option(..., "--results", help="Results JSON of `sebgen evaluate`."),
    width: float = typer.Option(0.3, "--width", min=0.0, help="Base ZPD width."),
    out_file: Optional[Path] = typer.Option(None, "--out", help="Write the ordered tasks here (JSONL)."),
):
    """Order tasks for an agent: its ZPD from its results, easy-medium-easy-medium-hard interleaving."""
    from records import read_jsonl, write_jsonl

    with friendly_errors():
        if not results.is_file():
            raise UserError(f"results file {results} does not exist")
        try:
            document = json.loads(results.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise UserError(f"results file {results} is not JSON: {exc}")
        records = list(read_jsonl(tasks))
        from harness import capability_profile, curriculum, zone_counts

        profile = capability_profile(document, records, base_width=width)
        order = curriculum(records, profile)
        counts = zone_counts(records, profile)
        out.print(
            f"ability {profile.ability:.3f}, recent success {profile.recent_success:.2f}, "
            f"ZPD [{profile.low:.3f}, {profile.high:.3f}] (width {profile.width:.3f})"
        )
        out.print(f"below {counts['below']}, within {counts['within']}, above {counts['above']}")
        if out_file:
            write_jsonl(order, out_file)
            err.print(f"wrote {len(order)} tasks in curriculum order to {out_file}")
        else:
            for task in order:
                out.print(f"{task.instance_id} {task.difficulty_level} {task.difficulty:.3f}")


@app.command(
    "export",
    **usage(
        "(RUN_DIR | DATASET_DIR | TASKS.jsonl) --format swebench|harbor --out PATH [--mirror DIR] [--build-images] "
        "[--network none|public] [--base-image IMAGE]"
    ),
)
def export_cmd(
    source: Path = typer.Argument(..., help="Run folder, dataset folder (`sebgen farm`) or tasks JSONL."),
    format_: str = typer.Option(..., "--format", help="swebench or harbor."),
    out_path: Path = typer.Option(..., "--out", help="JSONL file (swebench) or folder (harbor)."),
    base_image: Optional[str] = typer.Option(
        None,
        "--base-image",
        help="Base image of the exported Dockerfiles (default: "
        "python:3.11-slim, or sebgen-base:bookworm when no "
        "registry answers).",
    ),
    mirror: Optional[Path] = typer.Option(
        None,
        "--mirror",
        help="SWE-bench: folder of git repositories, one per task "
        "(<instance_id>.git), each holding only the buggy state.",
    ),
    build_images: bool = typer.Option(
        False,
        "--build-images",
        help="SWE-bench: build each row's Docker image (the buggy state "
        "at /testbed) for the SWE-bench harness; implies a mirror.",
    ),
    network: str = typer.Option("none", "--network", help="Harbor: the agent's network, none (default) or public."),
):
    """Export tasks as SWE-bench JSONL (with a dataset card) or Harbor task folders."""
    with friendly_errors():
        if format_ not in ("swebench", "harbor"):
            raise UserError(f"unknown format {format_!r}; choose swebench or harbor")
        if mirror is not None and format_ != "swebench":
            raise UserError("--mirror applies only to --format swebench")
        if build_images and format_ != "swebench":
            raise UserError("--build-images applies only to --format swebench (Harbor builds its own)")
        if network not in ("none", "public"):
            raise UserError(f"unknown --network {network!r}; choose none or public")
        records = _dataset(_existing(source, "run folder or tasks file"), lambda: _source_repos(_config(None, None)))
        from harness import export_harbor, export_swebench

        if format_ == "swebench":
            if mirror is None and not build_images:
                err.print(
                    "sebgen: warning: base_commit is the fixed state; a stock SWE-bench harness needs "
                    "--mirror DIR to get the buggy state",
                    markup=False,
                )
            count = export_swebench(
                records,
                out_path,
                mirror_dir=mirror,
                build=build_images,
                base_image=base_image,
                log=lambda line: err.print(line, markup=False),
            )
            from evo.dataset import DatasetFolder

            farmed = DatasetFolder(source)
            if farmed.is_dataset() and farmed.card_json_path.is_file():  # the farm's card: versions, window
                import shutil

                shutil.copyfile(farmed.card_json_path, out_path.parent / farmed.card_json_path.name)
        else:
            count = len(export_harbor(records, out_path, base_image=base_image, network=network))
        err.print(f"exported {count} tasks ({format_}) to {out_path}")


def _dataset(source: Path, source_repos) -> list:
    """The tasks `evaluate` and `export` work on: a run folder's dataset (what its archive kept),
    a tasks JSONL file's, or the rows of a SWE-bench JSONL `sebgen export` wrote, whose source
    repositories are found among `source_repos()`."""
    from evo.dataset import DatasetFolder

    if DatasetFolder(source).is_dataset():  # a farmed dataset: its released tasks
        records = DatasetFolder(source).tasks()
        if not records:
            raise UserError(f"dataset {source} has released no task yet")
        return records
    if source.is_dir():
        from records import Task

        records = [Task.from_dict(t) for t in _run_folder(source).kept_tasks()]
        if not records:
            raise UserError(f"run folder {source} holds no kept task yet")
        return records
    from harness import read_tasks

    records = read_tasks(source, source_repos)
    if not records:
        raise UserError(f"{source} holds no task")
    return records


def _run_folder(path: Path):
    """The run folder at `path`, or one sentence saying why it is not one."""
    run = RunFolder(_existing(path, "run folder"))
    if not run.is_run():
        raise UserError(f"{path} is not a SEBGen run folder: it has no config.yaml or no checkpoint yet")
    return run


def _source_repos(cfg: Config) -> list[Path]:
    """Where the repositories of exported tasks may be on this machine: the config's repos (the
    bundled corpus when it names none) and the clones of `generate` and `mine`."""
    from evo.runtime import resolve_repos

    clones = _clones_dir()
    return [*resolve_repos(cfg), *(sorted(clones.iterdir()) if clones.is_dir() else [])]


@app.command("report", **usage("RUN_DIR"))
def report_cmd(run_dir: Path = typer.Argument(..., help="Run folder.")):
    """Static HTML report with plots: RUN_DIR/report/index.html (leaderboard from RUN_DIR/results/*.json)."""
    with friendly_errors():
        _run_folder(run_dir)
        from evo.report import build_report

        index = build_report(run_dir)
        out.print(f"report: {index}")


@app.command("experiment", **usage("CONFIG [--out DIR]"))
def experiment_cmd(
    config: Path = typer.Argument(..., help="YAML config; its `experiment` section sets seeds and split."),
    out_dir: Optional[Path] = typer.Option(None, "--out", help="Experiment folder (default runs/NAME-experiment)."),
    set_: Optional[list[str]] = SetOpt,
):
    """Evolution gain on held-out commits: best seed vs evolved vs random search, with 95% intervals."""
    with friendly_errors():
        cfg = _config(config, set_)
        from evo.experiment import ARMS, METRICS, run_experiment
        from evo.report import build_experiment_report

        _preflight(cfg)
        out_dir = out_dir or Path("runs") / f"{config.stem}-experiment"
        document = run_experiment(cfg, out_dir, log=_log)
        table = Table(
            title=f"Held-out commits ({document['split']['heldout']})"
            + (
                f" and modules ({document['split']['heldout_modules']})"
                if document["split"].get("heldout_modules")
                else ""
            )
            + f", {document['heldout_validations_per_arm']} "
            f"container validations per arm, {len(document['per_seed'])} seeds: mean [95% CI]"
        )
        table.add_column("arm")
        for metric in METRICS:
            table.add_column(metric)
        table.add_column("validations/kept")
        for arm in ARMS:
            results = [s["arms"][arm] for s in document["per_seed"]]
            kept, spent = sum(r["kept"] for r in results), sum(r.get("validations", 0) for r in results)
            table.add_row(
                arm,
                *(
                    f"{c['mean']:.3f} [{c['low']:.3f}, {c['high']:.3f}]"
                    for c in (document["arms"][arm][m] for m in METRICS if m in document["arms"][arm])
                ),
                f"{spent / kept:.2f}" if kept else "-",
            )
        out.print(table)
        for arm in ARMS:
            strategy = document["per_seed"][-1]["arms"][arm]["strategy"]
            out.print(
                f"{arm} (seed {document['per_seed'][-1]['seed']}): {strategy['strategy_type']} {strategy['id']}, "
                f"genes: {genes_text(_shown_genes(strategy), strategy['strategy_type'])}",
                markup=False,
            )
        out.print(document["verdict"], markup=False)
        out.print(f"results: {ExperimentFolder(out_dir).document_path}; plot: {build_experiment_report(out_dir)}")


def _shown_genes(strategy: dict) -> dict:
    from tasks import Strategy

    return Strategy.from_dict(strategy).shown_genes()


def main() -> None:
    app(prog_name="sebgen")


if __name__ == "__main__":
    main()
