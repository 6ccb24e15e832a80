"""Variation never hands a copy to evaluation: a child that repeats a known genome is retried as
a parameter mutation or dropped, with a line that says so, and crossover never pairs a strategy
with itself."""

from __future__ import annotations

import os
import random
from types import SimpleNamespace

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from evo.config import Config
from evo.individual import Individual
from evo.loop import COPY_RETRIES, build_toolbox, vary
from llm import LLMError
from records import Score
from tasks import Strategy, StrategyType

PROMPT = "Write a bug report for {repo}: the symptom, the expected and the actual behaviour."
OTHER = "Describe the feature for {repo}."


class ScriptedLLM:
    """Answers every prompt-mutation request with `rewrite(the strategy's prompt)`, or fails."""

    def __init__(self, rewrite=lambda prompt: prompt, fail: bool = False):
        self.rewrite, self.fail, self.calls = rewrite, fail, 0

    def complete_json(self, prompt, **kwargs):
        self.calls += 1
        if self.fail:
            raise LLMError("the model is unreachable")
        return {"prompt": self.rewrite(self.prompt_of(prompt))}, None

    @staticmethod
    def prompt_of(request: str) -> str:
        return next(p for p in (PROMPT, OTHER) if p in request)


def config(**evolution) -> Config:
    base = {"population": 2, "epsilon": 0.0, "p_prompt_mutation": 0.0, "p_param_mutation": 0.0, "p_crossover": 0.0}
    return Config.model_validate({"evolution": {**base, **evolution}})


def scored(strategy: Strategy, ev: float = 0.4) -> Individual:
    ind = Individual(strategy)
    ind.assign(
        Score(
            exploration_value=ev,
            dimensions={"novelty": 0.5},
            attempts=0,
            passed=0,
            failure_categories=[],
            novelties={},
            fitness=ev,
        )
    )
    return ind


def offspring(cfg: Config, population: list[Individual], llm=None, seed: int = 3, mutate_params=None, **kwargs):
    """The children of generation 2 and the lines the variation logged."""
    lines: list[str] = []
    bench = SimpleNamespace(archive=None, llm=llm or ScriptedLLM())
    rng = random.Random(seed)
    toolbox = build_toolbox(cfg, rng, bench)
    if mutate_params:
        toolbox.register("mutate_params", mutate_params)
    children = vary(toolbox, cfg, rng, population, 2, log=lines.append, **kwargs)
    return children, lines


def genomes(strategies) -> set[str]:
    return {s.genome_hash() for s in strategies}


def test_a_prompt_mutation_that_changes_nothing_is_retried_as_a_parameter_mutation():
    parent = scored(Strategy(StrategyType.BUG_FIX, PROMPT))
    other = scored(Strategy(StrategyType.FEATURE_ADD, OTHER))
    llm = ScriptedLLM()  # the "rewritten" prompt is the prompt it was given
    children, lines = offspring(config(p_prompt_mutation=1.0), [parent, other], llm)
    assert llm.calls == 2 and len(children) == 2
    assert [c.operator for c in children] == ["param_mutation", "param_mutation"]
    assert not genomes(children) & genomes([parent.strategy, other.strategy])
    assert all(c.prompt in (parent.strategy.prompt, other.strategy.prompt) for c in children)
    assert len(lines) == 2 and all("changed nothing; retried as parameter mutation" in line for line in lines)
    assert any(f"prompt mutation of {parent.strategy.id} changed nothing" in line for line in lines)


def test_a_failed_prompt_mutation_says_so_and_is_retried():
    parent = scored(Strategy(StrategyType.BUG_FIX, PROMPT))
    other = scored(Strategy(StrategyType.FEATURE_ADD, OTHER))
    children, lines = offspring(config(p_prompt_mutation=1.0), [parent, other], ScriptedLLM(fail=True))
    assert [c.operator for c in children] == ["param_mutation", "param_mutation"]
    assert all("got no answer from the LLM; retried as parameter mutation" in line for line in lines)


def test_a_child_equal_to_a_sibling_or_an_earlier_evaluation_is_retried():
    parent = scored(Strategy(StrategyType.BUG_FIX, PROMPT))
    other = scored(Strategy(StrategyType.FEATURE_ADD, OTHER))
    # the model always answers with the same new prompt: the second child of the parent repeats the first
    llm = ScriptedLLM(rewrite=lambda prompt: PROMPT + " Name the failing tests." if prompt == PROMPT else prompt)
    cfg = config(p_prompt_mutation=1.0, offspring=6)
    children, lines = offspring(cfg, [parent, other], llm)
    assert len(genomes(children)) == len(children) == 6
    first = next(c for c in children if c.operator == "prompt_mutation")
    assert any(f"repeats strategy {first.id}; retried" in line for line in lines)
    # a genome evaluated in an earlier generation (no longer in the population) is known too
    again, lines = offspring(cfg, [parent, other], llm, evaluated={first.genome_hash(): first.id})
    assert first.genome_hash() not in genomes(again)
    assert any(f"prompt mutation of {parent.strategy.id} repeats strategy {first.id}" in line for line in lines)


def test_a_variation_that_never_changes_anything_is_dropped_with_a_line():
    parent = scored(Strategy(StrategyType.BUG_FIX, PROMPT))
    other = scored(Strategy(StrategyType.FEATURE_ADD, OTHER))
    cfg = config(p_param_mutation=1.0)
    unchanged = lambda strategy, generation: strategy.child(  # noqa: E731
        operator="param_mutation", parents=(strategy.id,), generation=generation
    )
    children, lines = offspring(cfg, [parent, other], mutate_params=unchanged)
    assert children == []
    dropped = [line for line in lines if line.endswith(f"changed nothing; dropped after {COPY_RETRIES} retries")]
    assert len(dropped) == 2 and len(lines) == 2 * (COPY_RETRIES + 1)
    assert all(line.startswith("generation 2: parameter mutation of ") for line in lines)


def test_crossover_never_pairs_a_strategy_with_itself():
    a = scored(Strategy(StrategyType.BUG_FIX, PROMPT, temperature=0.3), ev=0.6)
    b = scored(Strategy(StrategyType.BUG_FIX, "Write an issue for {repo}.", temperature=0.9), ev=0.2)
    cfg = config(p_crossover=1.0, offspring=8)
    children, lines = offspring(cfg, [a, b], seed=5)
    crossed = [c for c in children if c.operator == "crossover"]
    assert crossed and all(c.parents == (a.strategy.id, b.strategy.id) for c in crossed)
    assert all(c.temperature == 0.6 for c in crossed)
    # the same two parents give the same child: the second crossover of the pair is retried
    assert len(crossed) == 1 and lines and all("repeats strategy" in line for line in lines)
    assert len(genomes(children)) == len(children) == 8


def test_a_population_of_one_genome_gets_parameter_mutations_not_self_crossover():
    a = scored(Strategy(StrategyType.BUG_FIX, PROMPT))
    children, lines = offspring(config(p_crossover=1.0), [a, scored(a.strategy)])
    assert [c.operator for c in children] == ["param_mutation", "param_mutation"] and lines == []
    assert a.strategy.genome_hash() not in genomes(children)


def test_retries_are_drawn_from_the_run_rng():
    parent = scored(Strategy(StrategyType.BUG_FIX, PROMPT))
    other = scored(Strategy(StrategyType.FEATURE_ADD, OTHER))
    cfg = config(p_prompt_mutation=1.0)
    first, _ = offspring(cfg, [parent, other], seed=11)
    assert offspring(cfg, [parent, other], seed=11)[0] == first
    assert offspring(cfg, [parent, other], seed=12)[0] != first
