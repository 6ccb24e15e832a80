"""Does evolution earn its gains? Best seed vs evolved vs random search on held-out commits.

The candidate commits are split by date: the older ones are the training set, the newest
`experiment.holdout_fraction` are held out. For each seed, evolution runs on the training
commits twice with the same budget: as configured, and as random search (epsilon = 1: every
child a fresh random strategy). Three strategies are then applied to the held-out commits,
each with the same budget of generation calls on the same commit sample:

(a) best seed    the best generation-1 strategy (what you get without evolving),
(b) evolved      the best strategy evolution *made* (born in generation 2 or later, not a seed's genome),
(c) random       the best strategy random search made the same way.

"Best" is the highest EV as last scored in the run (hall of fame and population are re-scored
every generation against the archive as it stands). Whether a made strategy topped the run on
the training commits is reported too (`evolved_tops_training`).

Per arm and seed: kept rate, leak rate, judge quality, difficulty coverage and EV on the
held-out batch. Across seeds: the mean with a 95% t-interval, and the paired differences
evolved - seed and evolved - random (same seed, same held-out commits) with theirs.
"""

from __future__ import annotations

import json
import math
import statistics
from collections.abc import Callable
from pathlib import Path

from evo import checkpoint as ckpt
from evo.config import Config
from evo.loop import Evolution, RunError
from evo.runtime import Workbench, eval_settings, mine_all, resolve_repos
from fitness import batch_filter, commit_order, difficulty_coverage, failure_categories, kept_tasks, score_tasks
from tasks import Candidate, MiningError, Strategy

ARMS = ("best_seed", "evolved", "random_search")
METRICS = ("kept_rate", "leak_rate", "judge_quality", "difficulty_coverage", "exploration_value")
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


def training_scores(run_dir: Path) -> tuple[list[list[Strategy]], dict[str, float]]:
    """(offspring per generation, each genome's EV as last scored in the run)."""
    folder = Path(run_dir) / "generations"
    offspring, latest = [], {}
    for path in sorted(folder.glob("gen-*.offspring.json")):
        offspring.append([Strategy.from_dict(s) for s in json.loads(path.read_text(encoding="utf-8"))["offspring"]])
        scores = path.with_name(path.name.replace(".offspring.", ".scores."))
        for key, score in json.loads(scores.read_text(encoding="utf-8")).items():
            latest[key] = score["exploration_value"]
    return offspring, latest


def pick_arms(run_dir: Path) -> tuple[Strategy, Strategy | None, bool]:
    """(best seed, best strategy made by the run or None, whether a made one tops the run).
    Ties go to the earlier generation and population order."""
    offspring, latest = training_scores(run_dir)
    seeds = offspring[0]
    seed_hashes = {s.genome_hash() for s in seeds}
    made = [s for generation in offspring[1:] for s in generation if s.genome_hash() not in seed_hashes]
    rank = lambda s: latest.get(s.genome_hash(), 0.0)  # noqa: E731
    best_seed = max(seeds, key=rank)
    best_made = max(made, key=rank) if made else None
    return best_seed, best_made, best_made is not None and rank(best_made) > rank(best_seed)


def apply_heldout(
    strategy: Strategy, bench: Workbench, heldout: list[Candidate], config: Config, calls: int, novelty
) -> dict:
    """Generate and validate on the first `calls` held-out commits of the strategy's kinds."""
    tried = [
        bench.generator.generate(c, strategy).to_dict()
        for c in commit_order(strategy, heldout, config.seed, HELDOUT_SAMPLE)[:calls]
    ]
    tasks = batch_filter({"arm": tried})["arm"]  # SWE-MERA's filter over the arm's judged batch
    kept = kept_tasks(tasks)
    categories = failure_categories(tasks)
    judged = [t["validation"]["quality"]["score"] for t in tasks if "quality" in t["validation"]]
    score = score_tasks(tasks, eval_settings(config), novelty)
    attempts = len(tasks)
    return {
        "strategy": strategy.to_dict(),
        "attempts": attempts,
        "kept": len(kept),
        "kept_rate": round(len(kept) / attempts, 4) if attempts else 0.0,
        "leak_rate": round(categories.count("leakage") / attempts, 4) if attempts else 0.0,
        "judge_quality": round(statistics.fmean(judged), 4) if judged else 0.0,
        "difficulty_coverage": round(
            difficulty_coverage([t["difficulty"] for t in kept], config.fitness.difficulty_bins), 4
        ),
        "exploration_value": score.exploration_value,
        "dimensions": score.dimensions,
        "failure_categories": categories,
    }


def run_seed(
    config: Config, seed: int, out: Path, train: list[Candidate], heldout: list[Candidate], log: Callable[[str], None]
) -> dict:
    seeded = config.model_copy(deep=True)
    seeded.seed = seed
    random_search = seeded.model_copy(deep=True)
    random_search.evolution.epsilon = 1.0
    generations = seeded.evolution.generations
    runs = {}
    for name, cfg in (("evolved", seeded), ("random_search", random_search)):
        run_dir = out / f"seed-{seed}" / name
        run_dir.mkdir(parents=True, exist_ok=True)
        (run_dir / "config.yaml").write_text(cfg.to_yaml(), encoding="utf-8")
        log(f"seed {seed}: {name} run on {len(train)} training commits ({generations} generations) in {run_dir}")
        runs[name] = Evolution(cfg, run_dir, log=log, candidates=train).run(generations)
        if not runs[name].finished:
            raise RunError(f"experiment stopped during {run_dir}; run the same command again to continue")
    seed_strategy, evolved, evolved_tops = pick_arms(out / f"seed-{seed}" / "evolved")
    _, random_made, random_tops = pick_arms(out / f"seed-{seed}" / "random_search")
    strategies = {
        "best_seed": seed_strategy,
        "evolved": evolved or seed_strategy,
        "random_search": random_made or seed_strategy,
    }
    trained = {name: training_scores(out / f"seed-{seed}" / name)[1] for name in runs}
    training_ev = {
        arm: trained["random_search" if arm == "random_search" else "evolved"].get(strategies[arm].genome_hash())
        for arm in ARMS
    }
    from archive import Archive

    bench = Workbench.build(seeded, None, log=log, candidates=heldout)
    try:
        with Archive.open(
            out / f"seed-{seed}" / "heldout-novelty", model=config.archive.model, k=config.archive.k
        ) as reference:
            # novelty on held-out: against the arm's other held-out tasks (leave-one-out)
            novelty = lambda tasks: reference.novelty_of_tasks(tasks, peers=True)  # noqa: E731
            arms = {}
            for arm in ARMS:
                arms[arm] = apply_heldout(
                    strategies[arm], bench, heldout, seeded, config.experiment.heldout_calls, novelty
                )
                arms[arm]["training_ev"] = training_ev[arm]
                log(
                    f"seed {seed}: {arm} ({strategies[arm].id}, generation {strategies[arm].generation}, "
                    f"{strategies[arm].operator}; training EV {training_ev[arm] or 0:.3f}) kept "
                    f"{arms[arm]['kept']}/{arms[arm]['attempts']} held-out tasks, "
                    f"EV {arms[arm]['exploration_value']:.3f}"
                )
    finally:
        bench.close()
    usage = {name: dict(ckpt.load_latest(out / f"seed-{seed}" / name, log=lambda _m: None)["usage"]) for name in runs}
    return {
        "seed": seed,
        "arms": arms,
        "evolved_is_a_seed": evolved is None,
        "evolved_tops_training": evolved_tops,
        "random_tops_training": random_tops,
        "training_usage": usage,
    }


def summarise(per_seed: list[dict]) -> dict:
    arms = {
        arm: {m: t_interval([s["arms"][arm][m] for s in per_seed], bounds=(0.0, 1.0)) for m in METRICS} for arm in ARMS
    }
    differences = {}
    for other in ("best_seed", "random_search"):
        differences[f"evolved_minus_{other}"] = {
            m: t_interval([s["arms"]["evolved"][m] - s["arms"][other][m] for s in per_seed]) for m in METRICS
        }
    return {"arms": arms, "differences": differences}


def verdict(summary: dict, per_seed: list[dict]) -> str:
    """One honest sentence: does the evolved arm beat the best seed on held-out EV and kept rate?"""
    lines = []
    for other, label in (("best_seed", "the best seed"), ("random_search", "random search")):
        d = summary["differences"][f"evolved_minus_{other}"]
        for metric in ("exploration_value", "kept_rate"):
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


def heldout_budget(heldout: list[Candidate], config: Config) -> int:
    """Generation calls per arm: the configured number, capped so that every strategy type the
    run may pick has that many held-out commits of its kinds (the same budget for every arm)."""
    from tasks import pick_candidates

    available = min(len(pick_candidates(heldout, t)) for t in config.evolution.strategy_types)
    return min(config.experiment.heldout_calls, available)


def run_experiment(config: Config, out: Path, log: Callable[[str], None] = print) -> dict:
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    if config.parallel.backend != "serial":
        log("experiment: evaluating serially (the training runs use a commit subset that workers would not see)")
        config = config.model_copy(deep=True)
        config.parallel.backend = "serial"
    e = config.experiment
    train, heldout = split_by_date(mine_all(config, resolve_repos(config)), e.holdout_fraction)
    calls = heldout_budget(heldout, config)
    if calls < e.heldout_calls:
        log(
            f"experiment: {calls} generation calls per arm, not {e.heldout_calls}: a strategy type has only "
            f"{calls} held-out commits of its kinds"
        )
        config = config.model_copy(deep=True)
        config.experiment.heldout_calls = calls
    log(
        f"experiment: {len(train)} training commits up to {train[-1].created_at[:10]}, {len(heldout)} held-out "
        f"commits from {heldout[0].created_at[:10]}; seeds {', '.join(map(str, e.seeds))}"
    )
    per_seed = []
    for seed in e.seeds:
        done = out / f"seed-{seed}" / "result.json"
        if done.is_file():  # a re-run continues: finished seeds are not paid for twice
            per_seed.append(json.loads(done.read_text(encoding="utf-8")))
            continue
        result = run_seed(config, seed, out, train, heldout, log)
        ckpt.atomic_write_text(done, json.dumps(result, sort_keys=True, indent=1))
        per_seed.append(result)
    summary = summarise(per_seed)
    document = {
        "config": config.model_dump(mode="json"),
        "split": {
            "train": len(train),
            "heldout": len(heldout),
            "train_until": train[-1].created_at,
            "heldout_from": heldout[0].created_at,
        },
        "heldout_calls_per_arm": config.experiment.heldout_calls,
        **summary,
        "per_seed": per_seed,
        "verdict": verdict(summary, per_seed),
    }
    ckpt.atomic_write_text(out / "experiment.json", json.dumps(document, sort_keys=True, indent=1))
    return document
