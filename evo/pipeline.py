"""Pipeline mode: tasks from one repository with one strategy, no evolution; and re-validation."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from evo.config import Config
from evo.runtime import Workbench, make_llm, mine_repo
from fitness import EvalSettings, evaluate_strategy, surviving_batch_filter
from tasks import (
    SEED_PROMPTS,
    Strategy,
    StrategyType,
    Task,
    ablation,
    bottom_quartile_filter,
    generate_synthetic,
    mine_commits,
    run_layers,
)

SYNTHETIC = "SYNTHETIC"


@dataclass
class GenerationResult:
    kept: list[Task]
    attempts: int


def check_llm(config: Config) -> None:
    """Fail fast when the model cannot answer JSON at all (LLMError names the model)."""
    make_llm(config).complete_json(
        'Return a JSON object {"ok": true}.\n<context>{"task": "ping"}</context>', temperature=0.0, max_tokens=32
    )


def generate_tasks(
    config: Config,
    repo: Path,
    strategy_type: str,
    n: int,
    commits: Sequence[str] = (),
    progress: Callable[[Task], None] | None = None,
    log=print,
) -> GenerationResult:
    m = config.mining
    if commits:  # named commits skip the history filters; one that cannot be a task says why
        candidates = mine_commits(repo, commits, max_source_files=m.max_source_files).candidates
    else:
        candidates = mine_repo(config, repo).candidates
    check_llm(config)
    bench = Workbench.build(config, None, log=log, candidates=candidates)
    try:
        if strategy_type == SYNTHETIC:  # procedural bugs: no history needed, the writer still writes
            writer = Strategy(StrategyType.BUG_FIX, SEED_PROMPTS[StrategyType.BUG_FIX][-1])
            tried = generate_synthetic(repo, bench.generator, writer, n, config.seed)
            for task in tried:
                if progress:
                    progress(task)
            return GenerationResult([t for t in tried if t.passed][:n], len(tried))
        stype = StrategyType(strategy_type)
        settings = EvalSettings(
            tasks_per_strategy=n,
            oversample=config.fitness.oversample,
            seed=config.seed,
            weights=dict(config.fitness.weights),
        )
        # go on until N survive the batch filter below (within the oversample budget)
        evaluation = evaluate_strategy(
            Strategy(stype, SEED_PROMPTS[stype][-1]),
            candidates,
            bench.generator,
            settings,
            progress=progress,
            kept=surviving_batch_filter,
        )
        tried = [Task.from_dict(t) for t in evaluation.tasks]
        bottom_quartile_filter(tried)  # SWE-MERA's filter over this call's judged batch
        return GenerationResult([t for t in tried if t.passed][:n], evaluation.attempts)
    finally:
        bench.close()


def revalidate(config: Config, tasks: list[Task], layers: Sequence[str], log=print) -> list[Task]:
    bench = Workbench.build(config, None, log=log, candidates=[])
    try:
        for task in tasks:
            task.validation = {}
            run_layers(task, bench.generator.validator, Path(task.repo_path), layers)
    finally:
        bench.close()
    if "quality" in layers:
        bottom_quartile_filter(tasks)
    return tasks


def run_ablation(config: Config, tasks: list[Task], layer_sets: Sequence[Sequence[str]], log=print) -> list[dict]:
    bench = Workbench.build(config, None, log=log, candidates=[])
    try:
        return ablation(tasks, bench.generator.validator, layer_sets)
    finally:
        bench.close()
