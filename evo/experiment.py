"""Does evolution earn its gains? Best seed vs evolved vs random search on held-out commits.

The candidate commits are split by date: the older ones are the training set, the newest
`experiment.holdout_fraction` are held out. When SYNTHETIC is among the strategy types, the
repositories' source modules are split too (by a hash of their path, the same share): the
training runs synthesize bugs in the training modules only, the held-out arms in the others.

For each seed, evolution runs on the training commits twice with the same budget (the same
population, generations and per-evaluation validation cap): as configured, and as random
search (epsilon = 1: every child a fresh random strategy, its genes drawn uniformly). Three
strategies are then applied to the held-out commits, each with the same budget of container
validations (`experiment.heldout_validations`) on the same commit sample:

(a) best seed    the best generation-1 strategy (what you get without evolving),
(b) evolved      the best strategy evolution *made* (born in generation 2 or later, not a seed's genome),
(c) random       the best strategy random search made the same way.

"Best" is the highest fitness as last scored in the run (EV with the yield per validation
folded in, `fitness.cost_weight`). Each arm tries held-out commits in its own order (its
selection genes) until it has spent its validations; attempts that fail before a container
runs cost none (at most `experiment.heldout_attempts`, default twice the validations, are
tried).

Per arm and seed: kept per validation, kept rate, leak rate, judge quality, difficulty
coverage, EV and its five dimensions, and the difficulty histogram of the kept tasks. Across
seeds: the mean with a 95% t-interval, and the paired differences evolved - seed and evolved
- random (same seed, same held-out commits) with theirs. The training runs' best and mean EV
per generation are kept for the report's curves.

Verdicts of identical code states are shared across the arms and seeds of one experiment
(`fitness.reuse_functional_results`): a commit two arms try runs its containers once. Every
arm is still charged the validations it would have paid alone.
"""

from __future__ import annotations

import hashlib
import math
import statistics
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from evo.config import Config
from evo.loop import Evolution, RunError
from evo.runfolder import ExperimentFolder, RunFolder
from evo.runtime import Workbench, eval_settings, mine_all, resolve_repos
from fitness import (
    DIMENSIONS,
    attempts_of,
    batch_filter,
    difficulty_coverage,
    failure_categories,
    kept_tasks,
    score_tasks,
)
from records import Evaluation, Task
from tasks import MODULE_KIND, Candidate, MiningError, Strategy, StrategyType, source_modules

ARMS = ("best_seed", "evolved", "random_search")
METRICS = (
    "kept_per_validation",
    "kept_rate",
    "leak_rate",
    "judge_quality",
    "difficulty_coverage",
    "exploration_value",
)
ALL_METRICS = (*METRICS, *(d for d in DIMENSIONS if d not in METRICS))
HELDOUT_SAMPLE = 0  # the held-out commit order is its own sample, never one a training generation used


def split_by_date(candidates: list[Candidate], holdout_fraction: float) -> tuple[list[Candidate], list[Candidate]]:
    """(train, held-out): the newest share of commits is held out; ties broken by repo and sha."""
    ordered = sorted(candidates, key=lambda c: (c.created_at, c.repo, c.sha))
    held = max(1, round(len(ordered) * holdout_fraction))
    if held >= len(ordered):
        raise MiningError(
            f"{len(ordered)} candidate commits are too few to hold out {holdout_fraction:.0%} and "
            "still train on the rest"
        )
    return ordered[:-held], ordered[-held:]


def module_split(repos: list[Path], holdout_fraction: float) -> tuple[list[Candidate], list[Candidate]]:
    """Module stand-in candidates for SYNTHETIC: (training modules, held-out modules) of every
    repository's HEAD, a module held out when a hash of its path falls below the fraction."""
    train, held = [], []
    for repo_path in repos:
        head, paths = source_modules(repo_path)
        for path in paths:
            share = int(hashlib.sha256(path.encode()).hexdigest()[:8], 16) / 16**8
            stand_in = Candidate(
                repo=str(Path(repo_path).name),
                repo_path=str(Path(repo_path).resolve()),
                sha=head.hexsha,
                parent=head.hexsha,
                subject=f"module {path}",
                body="",
                created_at=head.committed_datetime.isoformat(),
                source_files=[path],
                test_files=[],
                kind=MODULE_KIND,
            )
            (held if share < holdout_fraction else train).append(stand_in)
    return train, held


def t_interval(values: list[float], confidence: float = 0.95, bounds: tuple[float, float] = (-1.0, 1.0)) -> dict:
    """Mean and a Student-t interval over seeds (a point when there is one value), clipped to
    the range the metric can take."""
    from scipy import stats

    n = len(values)
    mean = statistics.fmean(values)
    if n < 2:
        return {"mean": round(mean, 4), "low": round(mean, 4), "high": round(mean, 4), "n": n}
    half = stats.t.ppf(0.5 + confidence / 2, n - 1) * statistics.stdev(values) / math.sqrt(n)
    low, high = max(mean - half, bounds[0]), min(mean + half, bounds[1])
    return {"mean": round(mean, 4), "low": round(low, 4), "high": round(high, 4), "n": n}


def training_scores(run: RunFolder) -> tuple[list[list[Strategy]], dict[str, float]]:
    """(offspring per generation, each genome's fitness as last scored in the run; EV for runs
    scored before fitness existed)."""
    scores = run.scores()
    offspring, latest = [], {}
    for generation, children in sorted(run.offspring().items()):
        offspring.append([Strategy.from_dict(s) for s in children])
        for key, score in scores[generation].items():
            latest[key] = score.get("fitness", score["exploration_value"])
    return offspring, latest


def generation_curve(run: RunFolder) -> list[dict]:
    """Per generation of a training run: best and mean EV (and fitness) of its offspring as
    scored that generation, and the container validations its fresh evaluations spent."""
    spent: dict[int, int] = {}
    for record in run.evaluations():
        g = record.get("generation", 0)
        spent[g] = spent.get(g, 0) + Evaluation.from_dict(record).validations
    scored = run.scores()
    curve = []
    for generation, offspring in sorted(run.offspring().items()):
        children = [Strategy.from_dict(s) for s in offspring]
        scores = scored[generation]
        evs = [scores[c.genome_hash()]["exploration_value"] for c in children if c.genome_hash() in scores]
        fits = [scores[c.genome_hash()].get("fitness", 0.0) for c in children if c.genome_hash() in scores]
        curve.append(
            {
                "generation": generation,
                "best_ev": round(max(evs), 4) if evs else 0.0,
                "mean_ev": round(statistics.fmean(evs), 4) if evs else 0.0,
                "best_fitness": round(max(fits), 4) if fits else 0.0,
                "mean_fitness": round(statistics.fmean(fits), 4) if fits else 0.0,
                "validations": spent.get(generation, 0),
            }
        )
    return curve


def pick_arms(run: RunFolder) -> tuple[Strategy, Strategy | None, bool]:
    """(best seed, best strategy made by the run or None, whether a made one tops the run).
    Ties go to the earlier generation and population order."""
    offspring, latest = training_scores(run)
    seeds = offspring[0]
    seed_hashes = {s.genome_hash() for s in seeds}
    made = [s for generation in offspring[1:] for s in generation if s.genome_hash() not in seed_hashes]
    rank = lambda s: latest.get(s.genome_hash(), 0.0)  # noqa: E731
    best_seed = max(seeds, key=rank)
    best_made = max(made, key=rank) if made else None
    return best_seed, best_made, best_made is not None and rank(best_made) > rank(best_seed)


def difficulty_histogram(tasks: list[Task], bins: int) -> list[int]:
    counts = [0] * bins
    for t in tasks:
        counts[min(int(float(t.difficulty) * bins), bins - 1)] += 1
    return counts


def apply_heldout(
    strategy: Strategy, bench: Workbench, heldout: list[Candidate], config: Config, validations: int, novelty
) -> dict:
    """Try held-out attempts in the strategy's order until `validations` container validations
    are spent (attempts that fail before a container runs cost none; at most
    `experiment.heldout_attempts` are tried), then score the batch."""
    cap = config.experiment.heldout_attempts or 2 * validations
    tried, spent = [], 0
    for task in attempts_of(strategy, heldout, bench.generator, config.seed, HELDOUT_SAMPLE, cap):
        tried.append(task)
        spent += "functional" in task.validation
        if spent >= validations:
            break
    tasks = batch_filter({"arm": tried})["arm"]  # SWE-MERA's filter over the arm's judged batch
    kept = kept_tasks(tasks)
    categories = failure_categories(tasks)
    judged = [t.validation["quality"].score for t in tasks if "quality" in t.validation]
    settings = replace(eval_settings(config), cost_weight=config.fitness.cost_weight)
    score = score_tasks(tasks, settings, novelty)
    attempts = len(tasks)
    bins = config.fitness.difficulty_bins
    return {
        "strategy": strategy.to_dict(),
        "attempts": attempts,
        "validations": score.validations,
        "kept": len(kept),
        "kept_per_validation": score.kept_per_validation,
        "validations_per_kept": score.validations_per_kept,
        "kept_rate": round(len(kept) / attempts, 4) if attempts else 0.0,
        "leak_rate": round(categories.count("leakage") / attempts, 4) if attempts else 0.0,
        "judge_quality": round(statistics.fmean(judged), 4) if judged else 0.0,
        "difficulty_coverage": round(difficulty_coverage([t.difficulty for t in kept], bins), 4),
        "difficulty_histogram": difficulty_histogram(kept, bins),
        "exploration_value": score.exploration_value,
        "fitness": score.fitness,
        "dimensions": score.dimensions,
        "failure_categories": categories,
        "tasks": tasks,
    }


def run_seed(
    config: Config,
    seed: int,
    experiment: ExperimentFolder,
    train: list[Candidate],
    heldout: list[Candidate],
    log: Callable[[str], None],
    verdicts: dict | None = None,
) -> dict:
    seeded = config.model_copy(deep=True)
    seeded.seed = seed
    random_search = seeded.model_copy(deep=True)
    random_search.evolution.epsilon = 1.0
    generations = seeded.evolution.generations
    runs = {name: experiment.training_run(seed, name) for name in ("evolved", "random_search")}
    for name, cfg in (("evolved", seeded), ("random_search", random_search)):
        run = runs[name]
        run.write_config(cfg.to_yaml())
        log(f"seed {seed}: {name} run on {len(train)} training candidates ({generations} generations) in {run.path}")
        outcome = Evolution(cfg, run.path, log=log, candidates=train, functional_cache=verdicts).run(generations)
        if not outcome.finished:
            raise RunError(f"experiment stopped during {run.path}; run the same command again to continue")
    seed_strategy, evolved, evolved_tops = pick_arms(runs["evolved"])
    _, random_made, random_tops = pick_arms(runs["random_search"])
    strategies = {
        "best_seed": seed_strategy,
        "evolved": evolved or seed_strategy,
        "random_search": random_made or seed_strategy,
    }
    trained = {name: training_scores(run)[1] for name, run in runs.items()}
    training_fitness = {
        arm: trained["random_search" if arm == "random_search" else "evolved"].get(strategies[arm].genome_hash())
        for arm in ARMS
    }
    curves = {name: generation_curve(run) for name, run in runs.items()}
    from archive import Archive

    bench = Workbench.build(seeded, None, log=log, candidates=heldout)
    if verdicts is not None:
        bench.generator.validator.functional_cache = verdicts
    validations = config.experiment.heldout_validations
    try:
        with Archive.open(
            experiment.heldout_novelty_dir(seed), model=config.archive.model, k=config.archive.k
        ) as reference:
            # novelty on held-out: against the arm's other held-out tasks (leave-one-out)
            novelty = lambda tasks: reference.novelty_of_tasks([t.to_dict() for t in tasks], peers=True)  # noqa: E731
            arms = {}
            for arm in ARMS:
                arms[arm] = apply_heldout(strategies[arm], bench, heldout, seeded, validations, novelty)
                tried = arms[arm].pop("tasks")
                experiment.write_heldout_tasks(seed, arm, tried)  # for inspection
                arms[arm]["training_fitness"] = training_fitness[arm]
                a = arms[arm]
                log(
                    f"seed {seed}: {arm} ({strategies[arm].id}, generation {strategies[arm].generation}, "
                    f"{strategies[arm].operator}; training fitness {training_fitness[arm] or 0:.3f}) kept "
                    f"{a['kept']}/{a['attempts']} held-out tasks for {a['validations']} validations "
                    f"({a['kept_per_validation']:.3f} per validation), EV {a['exploration_value']:.3f}"
                )
    finally:
        bench.close()
    usage = {name: dict(run.checkpoint()["usage"]) for name, run in runs.items()}
    return {
        "seed": seed,
        "arms": arms,
        "curves": curves,
        "training_validations": {name: sum(g["validations"] for g in curves[name]) for name in runs},
        "evolved_is_a_seed": evolved is None,
        "evolved_tops_training": evolved_tops,
        "random_tops_training": random_tops,
        "training_usage": usage,
    }


def summarise(per_seed: list[dict]) -> dict:
    def value(arm_result: dict, metric: str) -> float:
        if metric in DIMENSIONS:
            return float(arm_result.get("dimensions", {}).get(metric, 0.0))
        return float(arm_result.get(metric, 0.0))

    metrics = [m for m in ALL_METRICS if all(m in s["arms"]["evolved"] or m in DIMENSIONS for s in per_seed)]
    arms = {
        arm: {m: t_interval([value(s["arms"][arm], m) for s in per_seed], bounds=(0.0, 1.0)) for m in metrics}
        for arm in ARMS
    }
    differences = {}
    for other in ("best_seed", "random_search"):
        differences[f"evolved_minus_{other}"] = {
            m: t_interval([value(s["arms"]["evolved"], m) - value(s["arms"][other], m) for s in per_seed])
            for m in metrics
        }
    histograms = {
        arm: [sum(col) for col in zip(*(s["arms"][arm].get("difficulty_histogram", []) for s in per_seed))]
        for arm in ARMS
    }
    return {"arms": arms, "differences": differences, "difficulty_histograms": histograms}


def verdict(summary: dict, per_seed: list[dict]) -> str:
    """One honest sentence: does the evolved arm beat the best seed and random search on
    held-out kept per validation, EV and kept rate?"""
    lines = []
    for other, label in (("best_seed", "the best seed"), ("random_search", "random search")):
        d = summary["differences"][f"evolved_minus_{other}"]
        for metric in ("kept_per_validation", "exploration_value", "kept_rate"):
            if metric not in d:
                continue
            ci = d[metric]
            if ci["low"] > 0:
                word = "beats"
            elif ci["high"] < 0:
                word = "is worse than"
            else:
                word = "is not distinguishable from"
            lines.append(
                f"on held-out {metric}, evolved {word} {label} "
                f"(difference {ci['mean']:+.3f}, 95% CI {ci['low']:+.3f}..{ci['high']:+.3f})"
            )
    same = sum(s["evolved_is_a_seed"] for s in per_seed)
    if same:
        lines.append(
            f"in {same} of {len(per_seed)} seeds the evolved arm's strategy is itself a generation-1 seed "
            "(evolution made no new strategy)"
        )
    tops = sum(s.get("evolved_tops_training", False) for s in per_seed)
    lines.append(f"a strategy made by evolution topped the training run in {tops} of {len(per_seed)} seeds")
    return "; ".join(lines) + "."


def run_experiment(config: Config, out: Path, log: Callable[[str], None] = print) -> dict:
    folder = ExperimentFolder(out)
    folder.path.mkdir(parents=True, exist_ok=True)
    if config.parallel.backend != "serial":
        log("experiment: evaluating serially (the training runs use a commit subset that workers would not see)")
        config = config.model_copy(deep=True)
        config.parallel.backend = "serial"
    e = config.experiment
    repos = resolve_repos(config)
    train, heldout = split_by_date(mine_all(config, repos), e.holdout_fraction)
    synthetic = ""
    if StrategyType.SYNTHETIC in config.evolution.strategy_types:
        train_modules, held_modules = module_split(repos, e.holdout_fraction)
        train, heldout = train + train_modules, heldout + held_modules
        synthetic = f"; SYNTHETIC: {len(train_modules)} training modules, {len(held_modules)} held-out modules"
    commits = [c for c in train if c.kind != MODULE_KIND], [c for c in heldout if c.kind != MODULE_KIND]
    log(
        f"experiment: {len(commits[0])} training commits up to {commits[0][-1].created_at[:10]}, "
        f"{len(commits[1])} held-out commits from {commits[1][0].created_at[:10]}{synthetic}; "
        f"{e.heldout_validations} container validations per arm; seeds {', '.join(map(str, e.seeds))}"
    )
    verdicts: dict | None = {} if config.fitness.reuse_functional_results else None
    per_seed = []
    for seed in e.seeds:
        result = folder.seed_result(seed)  # a re-run continues: finished seeds are not paid for twice
        if result is None:
            result = run_seed(config, seed, folder, train, heldout, log, verdicts)
            folder.write_seed_result(seed, result)
        per_seed.append(result)
    summary = summarise(per_seed)
    document = {
        "config": config.model_dump(mode="json"),
        "split": {
            "train": len(commits[0]),
            "heldout": len(commits[1]),
            "train_until": commits[0][-1].created_at,
            "heldout_from": commits[1][0].created_at,
            "train_modules": len(train) - len(commits[0]),
            "heldout_modules": len(heldout) - len(commits[1]),
        },
        "heldout_validations_per_arm": e.heldout_validations,
        **summary,
        "per_seed": per_seed,
        "verdict": verdict(summary, per_seed),
    }
    folder.write_document(document)
    return document
