"""Fitness that means what it says: novelty with a reference, common random numbers, failure routing.

The run test drives the real evolution loop (archive, MiniLM embeddings, hall of fame,
checkpoints) with canned execution results in place of the sandbox, so it is fast and its
numbers are known.
"""

import json
import os
import random
from types import SimpleNamespace

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import pytest

from archive import Archive
from evo import loop as loop_module
from evo.config import Config
from evo.loop import Evolution, build_toolbox
from fitness.exploration import ENVIRONMENT, PROMPT_FIXABLE, Dimensions, exploration_value
from fitness.strategy_eval import EvalSettings, Evaluation, commit_order, evaluate_strategy
from llm import LLMClient
from records import LayerResult, Task
from tasks.mining import Candidate
from tasks.strategy import SEED_PROMPTS, Strategy, StrategyType
from tests.evo.test_archive_in_evolution import RecordingClient
from tests.loop_fixtures import use_canned_execution

TOPICS = [
    "the page count of a paginated list",
    "the total of an invoice with discounts",
    "parsing an ISO date with a timezone",
    "retrying a failed HTTP request",
    "sorting records by two keys",
    "escaping HTML in a template",
    "rounding currency amounts",
    "merging two configuration files",
]


def task(
    strategy: Strategy, n: int, *, kept: bool, judge: float = 0.8, category: str = "no_f2p", topic: str | None = None
) -> Task:
    subject = topic or TOPICS[n % len(TOPICS)]
    validation = {"schema": {"passed": True, "score": 1.0, "reason": "", "category": None, "details": {}}}
    if kept:
        criteria = {
            c: {"score": judge * 10, "confidence": 0.9, "reasoning": ""}
            for c in ("task_correctness", "test_correctness", "test_completeness", "complexity")
        }
        validation["quality"] = {
            "passed": True,
            "score": judge,
            "reason": "",
            "category": None,
            "details": {"criteria": criteria, "mean": judge * 10},
        }
        validation["semantic"] = {"passed": True, "score": 0.8, "reason": "", "category": None, "details": {}}
    else:
        validation["functional"] = {
            "passed": False,
            "score": 0.0,
            "reason": "rejected",
            "category": category,
            "details": {},
        }
    return Task(
        instance_id=f"demo__{strategy.id}-{n}",
        repo="demo/lib",
        base_commit=f"{n:040d}",
        patch="",
        test_patch="",
        problem_statement=f"Wrong result for {subject}: the function returns a value "
        f"that is off by one when the input is at its boundary (case {n}).",
        bug_patch="",
        strategy_type=strategy.strategy_type.value,
        strategy_id=strategy.id,
        difficulty=0.1 + 0.2 * (n % 4),
        domain="math",
        skills=[f"skill-{n % 3}"],
        validation={layer: LayerResult.from_dict(result) for layer, result in validation.items()},
    )


class CannedRun:
    """Stands in for the sandbox and the writer: per genome, a fixed list of tasks."""

    def __init__(self):
        self.plans: dict[str, list[dict]] = {}
        self.executed: list[str] = []

    def evaluate(self, strategy, candidates, generator, settings, progress=None, sample=1):
        self.executed.append(strategy.genome_hash())
        tasks = self.plans[strategy.genome_hash()]
        return Evaluation(
            strategy_id=strategy.id,
            genome_hash=strategy.genome_hash(),
            sample=sample,
            attempts=len(tasks),
            passed=sum(t.passed for t in tasks),
            failure_categories=[],
            tasks=tasks,
            usage={"calls": len(tasks), "prompt_tokens": 0, "completion_tokens": 0, "cost_usd": 0.0},
        )


@pytest.fixture
def canned_run(tmp_path, monkeypatch):
    config = Config.model_validate(
        {"seed": 3, "evolution": {"population": 3, "generations": 2, "elitism": 1, "hof_size": 5}}
    )
    seeds = loop_module.seed_strategies(list(config.evolution.strategy_types), 3, generation=1)
    weak_seed = seeds[0]
    run = CannedRun()
    # The weak seed: 1 of 6 kept (quality 0.13), five environment failures (what the issue measured).
    run.plans[weak_seed.genome_hash()] = [task(weak_seed, 0, kept=True, judge=0.8)] + [
        task(weak_seed, n, kept=False, category="no_f2p") for n in range(1, 6)
    ]
    for seed in seeds[1:]:
        run.plans[seed.genome_hash()] = [task(seed, n, kept=True, judge=0.8) for n in (1, 2)]
    children = [weak_seed.child(operator="param_mutation", parents=(weak_seed.id,), generation=2)]  # same genome
    for i, parent in enumerate(seeds[1:]):
        child = parent.child(
            operator="prompt_mutation",
            parents=(parent.id,),
            generation=2,
            prompt=parent.prompt + " State the expected and the actual behaviour.",
        )
        # common random numbers: the children describe the commits their parents described
        run.plans[child.genome_hash()] = [task(child, n, kept=True, judge=(0.83, 0.75)[i]) for n in (1, 2)]
        children.append(child)

    use_canned_execution(monkeypatch, run.evaluate)
    monkeypatch.setattr(loop_module, "vary", lambda toolbox, config, rng, population, generation, **_: list(children))
    run_dir = tmp_path / "run"
    outcome = Evolution(config, run_dir, log=lambda *_: None).run(2)
    return SimpleNamespace(
        run=run, run_dir=run_dir, outcome=outcome, weak=weak_seed, seeds=seeds, children=children, config=config
    )


def scores(run_dir, generation):
    return json.loads((run_dir / "generations" / f"gen-{generation:04d}.scores.json").read_text())


def old_exploration_value(entry: dict, novelty: float) -> float:
    """The pre-#13 rules: generation 1 novelty 1.0 against an empty archive, E 0.80 for any failure."""
    dims = dict(entry["dimensions"], novelty=novelty)
    if entry["tasks_attempted"] and entry["tasks_passed"] / entry["tasks_attempted"] <= 0.9:
        dims["evolution_potential"] = 0.80
    return exploration_value(Dimensions(**dims))


def test_a_weak_generation_1_seed_no_longer_tops_the_hall_of_fame(canned_run):
    hof = [entry.to_dict() for entry in canned_run.outcome.hall_of_fame]  # as `sebgen hof --json` shows it
    weak = next(e for e in hof if e["id"] == canned_run.weak.id)
    best_child = max((e for e in hof if e["generation"] == 2), key=lambda e: e["exploration_value"])
    weak_at_gen1 = scores(canned_run.run_dir, 1)[canned_run.weak.genome_hash()]
    # under the old rules the weak seed (quality 0.08) would rank first ...
    old_weak = old_exploration_value(weak, novelty=1.0)
    old_child = old_exploration_value(best_child, novelty=best_child["dimensions"]["novelty"])
    assert old_weak > old_child, (old_weak, old_child, weak, best_child)
    # ... now it does not: no free novelty, and environment failures are no evolution potential
    assert hof[0]["id"] != canned_run.weak.id
    assert weak["exploration_value"] < best_child["exploration_value"]
    assert weak["dimensions"]["evolution_potential"] == pytest.approx(0.20)
    assert weak_at_gen1["dimensions"]["novelty"] < 1.0
    # every hall of fame score refers to the archive as it stands now, and says so
    assert {e["novelty_reference"]["generation"] for e in hof} == {2}
    archive_size = {e["novelty_reference"]["archive_tasks"] for e in hof}
    assert len(archive_size) == 1 and archive_size.pop() > 0


def test_a_genome_met_again_reuses_execution_but_gets_fresh_novelty(canned_run):
    weak = canned_run.weak.genome_hash()
    assert canned_run.run.executed.count(weak) == 1  # execution came from the cache ...
    first, again = scores(canned_run.run_dir, 1)[weak], scores(canned_run.run_dir, 2)[weak]
    assert again["archive_tasks"] > first["archive_tasks"]  # ... novelty did not
    assert again["dimensions"]["novelty"] != first["dimensions"]["novelty"]
    journal = (canned_run.run_dir / "evaluations.jsonl").read_text()
    assert "novelty" not in journal and "exploration_value" not in journal


def test_novelty_of_a_generation_counts_its_other_tasks(tmp_path):
    with Archive.open(tmp_path / "a") as archive:
        s = Strategy(StrategyType.BUG_FIX, "p")
        same = [task(s, n, kept=True, topic=TOPICS[0]).to_dict() for n in range(3)]  # the archive's JSON rows
        alone = archive.novelty_of_tasks(same[:1], peers=True)
        together = archive.novelty_of_tasks(same, peers=True)
        assert alone == [1.0]  # nothing to compare with
        assert max(together) < 0.2  # near-identical siblings are not novel
        archive.add_tasks(same, generation=1)
        # archived: each task is left out of its own reference, the others count
        assert archive.novelty_of_tasks(same) == pytest.approx(together, abs=1e-4)


def candidates(n: int = 12) -> list[Candidate]:
    return [
        Candidate(
            repo="demo/lib",
            repo_path="/nowhere",
            sha=f"{i:040x}",
            parent=f"{i + 100:040x}",
            subject=f"fix {i}",
            body="",
            created_at=f"2024-01-{i + 1:02d}T00:00:00",
            source_files=["lib.py"],
            test_files=["test_lib.py"],
            kind="bug_fix" if i % 3 else "feature_add",
        )
        for i in range(n)
    ]


def failed_attempt(candidate, strategy, layer: str = "functional") -> Task:
    """`strategy`'s attempt at `candidate`, rejected at `layer` (no fail-to-pass test)."""
    return Task(
        instance_id=candidate.sha,
        repo="demo/lib",
        base_commit=candidate.sha,
        patch="",
        test_patch="",
        problem_statement="",
        bug_patch="",
        strategy_type=strategy.strategy_type.value,
        strategy_id=strategy.id,
        validation={layer: LayerResult(False, 0, "", "no_f2p")},
    )


class RecordingGenerator:
    def __init__(self):
        self.llm = LLMClient()
        self.seen: list[str] = []

    def generate(self, candidate, strategy):
        self.seen.append(candidate.sha)
        return failed_attempt(candidate, strategy)


def test_strategies_differing_only_in_prompt_are_scored_on_the_same_commits():
    pool = candidates()
    a = Strategy(StrategyType.BUG_FIX, SEED_PROMPTS[StrategyType.BUG_FIX][0])
    b = Strategy(StrategyType.BUG_FIX, SEED_PROMPTS[StrategyType.BUG_FIX][1], temperature=1.3)
    settings = EvalSettings(tasks_per_strategy=2, oversample=2, seed=5)
    seen = []
    for strategy in (a, b):
        generator = RecordingGenerator()
        evaluate_strategy(strategy, pool, generator, settings, sample=4)
        seen.append(generator.seen)
    assert seen[0] == seen[1] and len(seen[0]) == 4
    # the sample is the generation's, drawn from the run's seed: another generation, another order
    assert [c.sha for c in commit_order(a, pool, 5, 5)] != [c.sha for c in commit_order(a, pool, 5, 4)]
    assert commit_order(a, pool, 5, 4) == commit_order(b, list(reversed(pool)), 5, 4)


def test_environment_failures_never_reach_prompt_mutation(tmp_path):
    strategy = Strategy(StrategyType.BUG_FIX, SEED_PROMPTS[StrategyType.BUG_FIX][0])
    with Archive.open(tmp_path / "a") as archive:
        archive.add_failures(
            [
                {"strategy_id": strategy.id, "strategy_type": "BUG_FIX", "category": c, "detail": f"detail of {c}"}
                for c in sorted(ENVIRONMENT)
            ],
            generation=1,
        )
        llm = RecordingClient()
        bench = SimpleNamespace(archive=archive, llm=llm)
        toolbox = build_toolbox(Config(), random.Random(0), bench)
        child = toolbox.mutate_prompt(strategy, 2)
        sent = "\n".join(llm.prompts)
        assert all(f"detail of {c}" not in sent for c in ENVIRONMENT)
        # a prompt-fixable failure of the same strategy does reach it, and only that one
        archive.add_failures(
            [
                {
                    "strategy_id": strategy.id,
                    "strategy_type": "BUG_FIX",
                    "category": "leakage",
                    "detail": "detail of leakage",
                }
            ],
            generation=2,
        )
        llm.prompts.clear()
        child = toolbox.mutate_prompt(strategy, 3)
        sent = "\n".join(llm.prompts)
        assert "detail of leakage" in sent
        assert all(f"detail of {c}" not in sent for c in ENVIRONMENT)
        assert "Never reveal the fix" in child.prompt
    assert "leakage" in PROMPT_FIXABLE


class GeneRun:
    """Canned execution for any genome: how many of its tasks are kept depends on its genes
    (a positive link weight keeps one more, a short statement loses one), the rest fail no_f2p."""

    def evaluate(self, strategy, candidates, generator, settings, progress=None, sample=1):
        g = strategy.genes
        kept = 1 + (g["sel_link"] > 0) - (g["statement_words"] < 200)
        tasks = [task(strategy, n, kept=n < kept, judge=0.7 + 0.1 * (g["sel_tests"] > 0)) for n in range(3)]
        for t in tasks:
            t.validation.setdefault("functional", LayerResult(True, 1.0, ""))
        return Evaluation(
            strategy_id=strategy.id,
            genome_hash=strategy.genome_hash(),
            sample=sample,
            attempts=3,
            passed=max(kept, 0),
            failure_categories=[],
            tasks=tasks,
            usage={"calls": 3, "prompt_tokens": 0, "completion_tokens": 0, "cost_usd": 0.0},
            validations=3,
        )


@pytest.fixture
def gene_runs(tmp_path, monkeypatch):
    """Runs of the real loop (real variation over the genes, selection repair for no_f2p) on
    canned execution; returns a function running a folder to N generations."""

    use_canned_execution(monkeypatch, GeneRun().evaluate)
    config = Config.model_validate(
        {
            "seed": 11,
            "evolution": {"population": 3, "epsilon": 0.2, "p_prompt_mutation": 0.5, "strategy_types": ["BUG_FIX"]},
            "fitness": {"cost_weight": 0.3},
        }
    )

    def run(name: str, generations: int):
        Evolution(config, tmp_path / name, log=lambda *_: None).run(generations)
        return tmp_path / name

    return run


def hof_of(run_dir):
    state = json.loads(sorted((run_dir / "checkpoints").glob("gen-*.json"))[-1].read_text())
    return state["hof_by_generation"]


def test_evolving_genes_is_deterministic_and_a_resumed_run_matches(gene_runs):
    straight = hof_of(gene_runs("a", 4))
    assert hof_of(gene_runs("b", 4)) == straight  # same seed, same hall of fame, genes included
    gene_runs("c", 2)
    assert hof_of(gene_runs("c", 4)) == straight  # resumed from generation 2
    entries = [e for gen in straight.values() for e in gen]
    assert any(e["operator"] == "selection_repair" for e in entries)  # no_f2p went to selection
    assert any(e["genes"]["sel_link"] != 0.0 for e in entries)
    assert all(e["validations_per_kept"] in (None, 1.0, 1.5, 3.0) for e in entries)
