"""The evolution controller: DEAP toolbox, generational loop, hall of fame, checkpoints, stopping.

Generation 1 evaluates the seed population; every later generation selects parents (SEBGen
eq. 3), varies them with the four operators, evaluates the offspring and keeps the elites
plus the best offspring. The archive is frozen while a generation is evaluated and updated
after it, in population order, so results never depend on evaluation order or parallelism.

Scoring happens after the generation's tasks are archived: the bottom-quartile filter decides
the generation's batch against the judged tasks of the run so far (the archive plus the batch;
below `fitness.quartile_min_judged` of them it drops nothing), and every individual shown or
compared (offspring, population, hall of fame) is re-scored against the archive as it now
stands, leave-one-out.
So generation 1 gets no free novelty, a genome met again gets fresh novelty, and hall of fame
scores all refer to the same archive (each entry says which).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
from deap import base, tools

from evo import checkpoint as ckpt
from evo.config import Config
from evo.faults import crash_point
from evo.individual import Individual, same_genome
from evo.parallel import make_runner
from evo.runfolder import RunFolder
from evo.runtime import Workbench, eval_settings, open_archive
from evo.stopping import Stopper
from fitness import (
    DIMENSIONS,
    PROMPT_FIXABLE,
    SELECTION_FIXABLE,
    batch_filter,
    distribution_of,
    evaluate_strategy,
    gene_for,
    judged_scores,
    route_failures,
    score_tasks,
)
from operators import crossover, mutate_params, mutate_prompt, random_strategy, repair_selection, select_parents
from records import Evaluation, HofEntry, LayerResult, Score, Task, UserError
from tasks import Strategy, seed_strategies


class RunError(UserError):
    pass


@dataclass
class RunOutcome:
    generation: int
    finished: bool
    stopped: bool
    evaluations_performed: int
    hall_of_fame: list[HofEntry] = field(default_factory=list)


def build_toolbox(config: Config, rng: random.Random, bench: Workbench, tried: Callable | None = None) -> base.Toolbox:
    """`tried(generation)` gives every attempt of the run before that generation as (candidate or
    None, task record): what selection repair learns from."""
    e = config.evolution
    toolbox = base.Toolbox()
    toolbox.register("select", select_parents, rng=rng, alpha=e.alpha)
    toolbox.register("mutate_params", mutate_params, rng=rng, sigma=e.sigma)
    toolbox.register("mate", crossover)
    toolbox.register("explore", random_strategy, rng, types=list(e.strategy_types))

    def prompt_mutation(strategy: Strategy, generation: int) -> Strategy:
        archive = bench.archive
        # only failures a prompt can fix: environment, build, no-F2P, flaky and timeout are not the prompt's
        failures = archive.recent_failures(strategy_id=strategy.id, n=10, categories=PROMPT_FIXABLE) if archive else []
        if archive and not failures:
            failures = archive.recent_failures(
                strategy_type=strategy.strategy_type.value, n=10, categories=PROMPT_FIXABLE
            )
        successes = (
            [
                t["problem_statement"]
                for t in archive.query(strategy_type=strategy.strategy_type.value, passed=True, limit=3)
            ]
            if archive
            else []
        )
        return mutate_prompt(strategy, bench.llm, failures, successes, generation)

    toolbox.register("mutate_prompt", prompt_mutation)
    toolbox.register(
        "repair_selection",
        lambda strategy, generation: repair_selection(strategy, tried(generation) if tried else [], rng, generation),
    )
    return toolbox


def route_of(parent: Individual) -> str:
    """Which operator a parent's failures call for when prompt mutation is drawn: "selection"
    when more of its rejections are selection-fixable (no_f2p, or a judge's rejection on a test
    criterion) than prompt-fixable, else "prompt" (also when it has no failures: the
    configured operator)."""
    score = parent.score
    routes = score.failure_routes if score else []
    if score and not routes:  # scored before routes were recorded
        routes = [gene_for(c) for c in score.failure_categories]
    return "selection" if routes.count("selection") > routes.count("prompt") else "prompt"


# A variation that repeats a known genome is retried as a parameter mutation of its parent at
# most this many times (a Gaussian step on every sampling parameter practically always moves),
# then dropped: a copy would take an evaluation slot and explore nothing.
COPY_RETRIES = 3


def vary(
    toolbox: base.Toolbox,
    config: Config,
    rng: random.Random,
    population: list[Individual],
    generation: int,
    *,
    evaluated: dict[str, str] | None = None,
    log: Callable[[str], None] = print,
) -> list[Strategy]:
    """Make the offspring strategies: epsilon-greedy exploration, else one of three operators.
    A drawn prompt mutation goes to selection repair instead when the parent's failures are
    mostly ones selection can fix (no_f2p: a prompt cannot make a commit's tests fail).

    No child repeats a known genome: its parents', the population's, an earlier child's or one
    in `evaluated` (genome hash -> strategy id of the run's earlier evaluations). Such a child
    is retried as a parameter mutation of its parent, up to COPY_RETRIES times, then dropped;
    each retry and drop is logged. Every draw comes from `rng`, so a seed gives one offspring."""
    size = config.evolution.offspring or config.evolution.population
    parents = toolbox.select(population, size)
    known = dict(evaluated or {})
    known.update((ind.strategy.genome_hash(), ind.strategy.id) for ind in population)
    children = []
    for parent in parents:
        child, made = draw_variation(toolbox, config, rng, population, parent, generation)
        for retry in range(COPY_RETRIES + 1):
            repeated = known.get(child.genome_hash())
            if repeated is None:
                known[child.genome_hash()] = child.id
                children.append(child)
                break
            outcome = f"generation {generation}: {made} {why_a_copy(child, repeated)}"
            if retry == COPY_RETRIES:
                log(f"{outcome}; dropped after {COPY_RETRIES} retries")
                break
            log(f"{outcome}; retried as parameter mutation")
            child = toolbox.mutate_params(parent.strategy, generation=generation)
            made = f"parameter mutation of {parent.strategy.id}"
    return children


def draw_variation(
    toolbox: base.Toolbox,
    config: Config,
    rng: random.Random,
    population: list[Individual],
    parent: Individual,
    generation: int,
) -> tuple[Strategy, str]:
    """One child of `parent` by a drawn operator, and what made it (for the log). Crossover
    pairs the parent with a partner of another genome: a strategy crossed with itself is itself."""
    e = config.evolution
    name = parent.strategy.id
    if rng.random() < e.epsilon:
        return toolbox.explore(generation), "random exploration"
    roll = rng.random() * (e.p_prompt_mutation + e.p_param_mutation + e.p_crossover)
    if roll < e.p_prompt_mutation:
        if route_of(parent) == "selection":
            return toolbox.repair_selection(parent.strategy, generation), f"selection repair of {name}"
        return toolbox.mutate_prompt(parent.strategy, generation), f"prompt mutation of {name}"
    partners = [ind for ind in population if not same_genome(ind, parent)]
    if roll < e.p_prompt_mutation + e.p_param_mutation or not partners:
        return toolbox.mutate_params(parent.strategy, generation=generation), f"parameter mutation of {name}"
    better, worse = sorted([parent, rng.choice(partners)], key=lambda i: -i.fitness_value)
    return (
        toolbox.mate(better.strategy, worse.strategy, generation),
        f"crossover of {better.strategy.id} and {worse.strategy.id}",
    )


def why_a_copy(child: Strategy, repeated: str) -> str:
    if child.operator == "prompt_mutation_failed":
        return "got no answer from the LLM"
    if repeated in child.parents:
        return "changed nothing"
    return f"repeats strategy {repeated}"


def next_population(
    population: list[Individual], offspring: list[Individual], elitism: int, size: int
) -> list[Individual]:
    def rank(items):  # stable: ties keep their order
        return sorted(items, key=lambda i: -i.fitness_value)

    elites = rank(population)[:elitism]
    chosen = list(elites)
    for ind in rank(offspring):
        if len(chosen) == size:
            break
        if not any(same_genome(ind, c) for c in chosen):
            chosen.append(ind)
    for ind in rank(population)[elitism:]:  # too few distinct offspring: keep older ones
        if len(chosen) == size:
            break
        if not any(same_genome(ind, c) for c in chosen):
            chosen.append(ind)
    return chosen


def make_stats() -> tools.MultiStatistics:
    stats = {
        "exploration_value": tools.Statistics(lambda ind: ind.exploration_value),
        "fitness": tools.Statistics(lambda ind: ind.fitness_value),
        "kept_per_validation": tools.Statistics(lambda ind: ind.score.kept_per_validation if ind.score else 0.0),
    }
    for name in DIMENSIONS:
        stats[name] = tools.Statistics(lambda ind, n=name: ind.dimensions.get(n, 0.0))
    multi = tools.MultiStatistics(**stats)
    for fn, name in ((np.mean, "avg"), (np.std, "std"), (np.min, "min"), (np.max, "max")):
        multi.register(name, lambda xs, f=fn: round(float(f(xs)), 6))
    return multi


class Evolution:
    def __init__(
        self,
        config: Config,
        run_dir: Path,
        *,
        log: Callable[[str], None] = print,
        on_progress: Callable[[dict], None] | None = None,
        candidates: list | None = None,
        functional_cache: dict | None = None,
    ):
        self.config, self.run_dir, self.log = config, Path(run_dir), log
        self.folder = RunFolder(self.run_dir)
        self.candidates = candidates  # None: mine the config's repos (workers do the same)
        # verdicts of identical code states shared with other runs in this process (an experiment's
        # arms); the validations they stand for are still counted (fitness.reuse_functional_results)
        self.functional_cache = functional_cache
        self.on_progress = on_progress or (lambda event: None)
        self.rng = random.Random(config.seed)
        np.random.seed(config.seed % (2**32))
        self.journal = self.folder.journal
        self.cache: dict[str, Evaluation] = {}  # genome hash -> execution result (never novelty)
        self._filtered: dict[int, dict[str, list[Task]]] = {}  # generation -> tasks after its batch filter
        self.population: list[Individual] = []
        self.hof = tools.HallOfFame(config.evolution.hof_size, similar=same_genome)
        self.hof_by_generation: dict[str, list[HofEntry]] = {}
        self.logbook = tools.Logbook()
        self.history: list[dict] = []  # the logbook as plain records (DEAP files stats into chapters)
        self.generation = 0
        self.performed = 0
        self.usage = {"calls": 0, "prompt_tokens": 0, "completion_tokens": 0, "cost_usd": 0.0}
        self.stopper = Stopper(
            self.log, "evaluations", f"the evaluations in flight are dropped (sebgen resume {self.run_dir} redoes them)"
        )

    # ------------------------------------------------------------ state

    def restore(self) -> None:
        state = self.folder.checkpoint(log=self.log)
        for record in self.journal.read():
            evaluation = Evaluation.from_dict(record)
            self.cache[evaluation.genome_hash] = evaluation
        if state is None:
            return
        self.generation = state["generation"]
        self.population = [Individual.from_dict(d) for d in state["population"]]
        for entry in reversed(state["hall_of_fame"]):  # DEAP puts a tie first: insert worst first
            self.hof.insert(Individual.from_dict(entry))
        self.hof_by_generation = {
            generation: [HofEntry.from_dict(e) for e in entries]
            for generation, entries in state["hof_by_generation"].items()
        }
        for record in state["logbook"]:
            self.logbook.record(**record)
            self.history.append(record)
        for key, record in state["evaluation_cache"].items():  # summaries without tasks
            self.cache.setdefault(key, Evaluation.from_dict(record))
        self.usage = state["usage"]
        ckpt.restore_rng(self.rng, state["rng"])

    def snapshot(self) -> dict:
        summary = {
            k: {
                f: getattr(v, f)
                for f in (
                    "strategy_id",
                    "genome_hash",
                    "generation",
                    "sample",
                    "attempts",
                    "passed",
                    "failure_categories",
                    "usage",
                )
            }
            for k, v in self.cache.items()
        }
        return {
            "generation": self.generation,
            "population": [i.to_dict() for i in self.population],
            "hall_of_fame": [i.to_dict() for i in self.hof],
            "hof_by_generation": {g: [e.to_dict() for e in entries] for g, entries in self.hof_by_generation.items()},
            "logbook": self.history,
            "evaluation_cache": summary,  # full records (with tasks) are in evaluations.jsonl
            "archive": {
                "path": self.folder.archive_dir.name,
                "generation": self.generation,
                "tasks": self.archive.count(),
            },
            "rng": ckpt.rng_state(self.rng),
            "usage": self.usage,
        }

    # ------------------------------------------------------------ stopping

    @property
    def stop_reason(self) -> str | None:
        return self.stopper.reason

    def should_stop(self) -> bool:
        if self.stopper.reason is None and self.folder.stop_requested():
            self.stopper.request("STOP file", "STOP file found")
        return self.stopper()

    # ------------------------------------------------------------ main loop

    def run(self, generations: int) -> RunOutcome:
        self.restore()
        self.bench = Workbench.build(self.config, self.run_dir, log=self.log, archive=None, candidates=self.candidates)
        self.archive = open_archive(self.config, self.run_dir)
        removed = self.archive.truncate_after(self.generation)
        if removed:
            self.log(f"archive: dropped {removed} rows newer than checkpointed generation {self.generation}")
        self.bench.use_archive(self.archive)
        if self.functional_cache is not None:
            self.bench.generator.validator.functional_cache = self.functional_cache
        self.toolbox = build_toolbox(self.config, self.rng, self.bench, tried=self._tried)
        runner = make_runner(self.config, self._evaluate_local, log=self.log)
        restore_signals = self.stopper.install()
        interrupted = False
        try:
            while self.generation < generations and not self.should_stop():
                if not self._generation(self.generation + 1, runner):
                    break
        except KeyboardInterrupt:
            interrupted = True
            raise
        finally:
            restore_signals()
            runner.close(now=interrupted)
            self.bench.close()
            self.archive.close()
        finished = self.generation >= generations
        return RunOutcome(
            self.generation, finished, self.stop_reason is not None, self.performed, [i.hof_entry() for i in self.hof]
        )

    def _evaluate_local(self, job: dict) -> Evaluation:
        return evaluate_strategy(
            Strategy.from_dict(job["strategy"]),
            self.bench.candidates,
            self.bench.generator,
            eval_settings(self.config),
            sample=job["generation"],
        )

    def _offspring(self, generation: int) -> list[Strategy]:
        """Variation, journaled: a resumed run reuses the offspring (and their paid prompt
        mutations) instead of asking the LLM again."""
        data = self.folder.offspring_record(generation)
        if data is not None:
            ckpt.restore_rng(self.rng, data["rng"])
            self._add_usage(data.get("usage", {}))
            return [Strategy.from_dict(s) for s in data["offspring"]]
        before = self.bench.llm.usage.to_dict()
        if generation == 1:
            e = self.config.evolution
            children = seed_strategies(list(e.strategy_types), e.population, generation=1)
        else:
            evaluated = {key: evaluation.strategy_id for key, evaluation in self.cache.items()}
            children = vary(
                self.toolbox, self.config, self.rng, self.population, generation, evaluated=evaluated, log=self.log
            )
        after = self.bench.llm.usage.to_dict()
        usage = {k: round(after[k] - before[k], 6) for k in self.usage if k in after}  # prompt-mutation calls
        self.folder.write_offspring(
            generation,
            {"offspring": [c.to_dict() for c in children], "rng": ckpt.rng_state(self.rng), "usage": usage},
        )
        self._add_usage(usage)
        return children

    def _add_usage(self, usage: dict) -> None:
        for key in self.usage:
            self.usage[key] = round(self.usage[key] + usage.get(key, 0), 6)

    def _generation(self, generation: int, runner) -> bool:
        started = time.monotonic()
        children = self._offspring(generation)
        offspring = [Individual(s) for s in children]
        todo = [i for i, ind in enumerate(offspring) if ind.strategy.genome_hash() not in self.cache]
        self.on_progress(
            {
                "event": "generation_start",
                "generation": generation,
                "total": len(offspring),
                "cached": len(offspring) - len(todo),
            }
        )
        jobs = [
            {
                "config": self.config.model_dump(mode="json"),
                "run_dir": str(self.run_dir),
                "generation": generation,
                "strategy": offspring[i].strategy.to_dict(),
            }
            for i in todo
        ]
        for n, result in runner.run(jobs, self.should_stop):
            result.generation = generation
            self.cache[result.genome_hash] = result
            self.journal.append(result.to_dict())
            self.performed += 1
            self._add_usage(result.usage)
            self.on_progress(
                {
                    "event": "evaluated",
                    "generation": generation,
                    "strategy": result.strategy_id,
                    "tasks": result.attempts,
                    "passed": result.passed,
                    "usage": dict(self.usage),
                }
            )
        if any(ind.strategy.genome_hash() not in self.cache for ind in offspring):
            self.log(f"stopped during generation {generation}; finished evaluations are journaled")
            return False
        self._archive_generation(generation, offspring)
        crash_point("after_archive", generation)
        fixable, elsewhere = self._rescore(generation, offspring)
        self._archive_strategies(generation, offspring)
        e = self.config.evolution
        self.population = (
            offspring if generation == 1 else next_population(self.population, offspring, e.elitism, e.population)
        )
        candidates = list(self.hof) + offspring  # re-scored: rank them all against today's archive
        self.hof.clear()
        self.hof.update(candidates)
        self.hof_by_generation[str(generation)] = [i.hof_entry() for i in self.hof]
        if elsewhere:
            selection = {c: n for c, n in elsewhere.items() if c in SELECTION_FIXABLE}
            self.log(
                f"generation {generation}: {sum(elsewhere.values())} rejections a prompt cannot fix ("
                + ", ".join(f"{c} x{n}" for c, n in sorted(elsewhere.items()))
                + "): reported here, not fed to prompt mutation"
                + (
                    "; "
                    + ", ".join(sorted(selection))
                    + " go to selection repair (the commits or synthetic targets a strategy tries)"
                    if selection
                    else ""
                )
            )
        record = {
            "gen": generation,
            "evals": len(todo),
            "seconds": round(time.monotonic() - started, 2),
            "tasks": sum(self.cache[i.strategy.genome_hash()].attempts for i in offspring),
            "failures": {
                "prompt_fixable": fixable,
                "not_prompt_fixable": elsewhere,
                "selection_fixable": {c: n for c, n in elsewhere.items() if c in SELECTION_FIXABLE},
            },
            "usage": dict(self.usage),
            **make_stats().compile(self.population),
        }
        self.logbook.record(**record)
        self.history.append(record)
        self.generation = generation
        self.folder.save_checkpoint(self.snapshot(), keep=self.config.checkpoint.keep)
        crash_point("between_generations", generation)
        self.on_progress(
            {
                "event": "generation_end",
                "generation": generation,
                "best": max((ind.exploration_value for ind in self.hof), default=0.0),  # as the report draws it
                "mean": record["exploration_value"]["avg"],
                "seconds": time.monotonic() - started,
                "usage": dict(self.usage),
            }
        )
        return True

    def _fresh(self, generation: int, offspring: list[Individual]) -> list[str]:
        """Genome hashes evaluated in this generation (not met before), in population order."""
        fresh = []
        for ind in offspring:
            key = ind.strategy.genome_hash()
            if key not in fresh and self.cache[key].generation == generation:
                fresh.append(key)
        return fresh

    def _tasks_of(self, key: str) -> list[Task]:
        """A genome's tasks after the quartile filter of the generation that executed it: that
        generation's whole batch, decided against the judged tasks archived before it."""
        generation = self.cache[key].generation
        if generation not in self._filtered:
            batch = {k: e.tasks for k, e in self.cache.items() if e.generation == generation}
            reference = self._judged_before(generation)
            self._filtered[generation] = batch_filter(batch, reference, self.config.fitness.quartile_min_judged)
        return self._filtered[generation][key]

    def _judged_before(self, generation: int) -> list[dict]:
        """The judge's scores of every task of the run archived before `generation`: the kept
        tasks, and the rejected ones the judge scored (their failure rows carry the scores). The
        archive never holds rows newer than the checkpoint, so a resumed run sees the same."""
        kept = distribution_of(Task.from_dict(row) for row in self.archive.tasks(max_generation=generation - 1))
        rejected = [
            row["judged"]
            for row in self.archive.recent_failures(n=2**62)
            if row.get("judged") and row.get("archive_generation", generation) < generation
        ]
        return kept + rejected

    def _archive_generation(self, generation: int, offspring: list[Individual]) -> None:
        self._filtered.pop(generation, None)  # the batch is complete only now
        for key in self._fresh(generation, offspring):
            tasks = self._tasks_of(key)
            passed = [t.to_dict() for t in tasks if t.passed]  # the archive's border: JSON rows
            failures = [failure_row(t, layer) for t in tasks if (layer := t.failed_layer())]
            for t in tasks:
                quality = t.validation.get("quality")
                dropped = quality.details.get("dataset_filter") if quality else None
                if dropped:
                    self.log(f"generation {generation}: {t.instance_id} not kept: {dropped['reason']}")
            if passed:
                self.archive.add_tasks(passed, generation=generation)
            if failures:
                self.archive.add_failures(failures, generation=generation)

    def _rescore(self, generation: int, offspring: list[Individual]) -> tuple[dict, dict]:
        """Score offspring, population and hall of fame against the archive as it stands now;
        returns this generation's rejection counts, prompt-fixable and not."""
        settings = replace(eval_settings(self.config), cost_weight=self.config.fitness.cost_weight)
        archive_tasks = self.archive.count_passed()

        def novelty(kept: list[Task]) -> list[float]:
            return self.archive.novelty_of_tasks([t.to_dict() for t in kept])  # the archive reads JSON rows

        scores: dict[str, Score] = {}
        for ind in [*offspring, *self.population, *self.hof]:
            key = ind.strategy.genome_hash()
            if key not in scores:
                score = score_tasks(self._tasks_of(key), settings, novelty)
                scores[key] = replace(score, scored_at_generation=generation, archive_tasks=archive_tasks)
            ind.assign(scores[key])
        self.folder.write_scores(generation, scores)
        self.on_progress(
            {
                "event": "scored",
                "generation": generation,
                "archive_tasks": archive_tasks,
                "strategies": [
                    {"strategy": ind.strategy.id, **scores[ind.strategy.genome_hash()].to_dict()} for ind in offspring
                ],
            }
        )
        fixable: dict[str, int] = {}
        elsewhere: dict[str, int] = {}
        for key in self._fresh(generation, offspring):
            ok, other = route_failures(scores[key].failure_categories)
            for category in ok:
                fixable[category] = fixable.get(category, 0) + 1
            for category in other:
                elsewhere[category] = elsewhere.get(category, 0) + 1
        return fixable, elsewhere

    def _tried(self, generation: int) -> list[tuple[object, Task]]:
        """Every attempt of the run's generations before `generation`, as (its candidate commit,
        or None for a synthetic task, its record), in journal order: what selection repair learns
        from (in generation and genome-hash order). An attempt whose commit is not among the
        candidates is left out."""
        by_sha = {(c.repo_path, c.sha): c for c in self.bench.candidates}
        out = []
        # a fixed order whatever order the evaluations finished in (pool and Dask runners)
        for _, evaluation in sorted(self.cache.items(), key=lambda kv: (kv[1].generation or 0, kv[0])):
            if not (evaluation.generation or 0) < generation:
                continue
            for task in evaluation.tasks:
                if task.strategy_type == "SYNTHETIC":
                    out.append((None, task))
                elif (task.repo_path, task.base_commit) in by_sha:
                    out.append((by_sha[(task.repo_path, task.base_commit)], task))
        return out

    def _archive_strategies(self, generation: int, offspring: list[Individual]) -> None:
        fresh = set(self._fresh(generation, offspring))
        done = set()
        for ind in offspring:
            key = ind.strategy.genome_hash()
            if key in fresh and key not in done:
                done.add(key)
                self.archive.add_strategy(
                    {
                        **ind.strategy.to_dict(),
                        "exploration_value": ind.exploration_value,
                        "dimensions": ind.dimensions,
                    },
                    generation=generation,
                )
        self.archive.add_generation(generation, {"population": [i.strategy.id for i in offspring]})


def failure_row(task: Task, failed: tuple[str, LayerResult]) -> dict:
    """What prompt mutation later reads back about a rejected task (an archive row)."""
    _, result = failed
    return {
        "strategy_id": task.strategy_id,
        "strategy_type": task.strategy_type,
        "category": result.category or "other",
        "detail": result.reason,
        "instance_id": task.instance_id,
        "problem_statement": task.problem_statement,
        "judged": judged_scores(task),  # the quartile filter's distribution counts judged rejects too
    }
