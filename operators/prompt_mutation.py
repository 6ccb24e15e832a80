"""LLM prompt mutation: show the model the strategy's recent failures and successes from the
archive and ask for an improved prompt."""

from __future__ import annotations

from llm import LLMClient, LLMError
from tasks import MUTATION_INSTRUCTIONS, Strategy, judge_prompt


def mutation_context(strategy: Strategy, failures: list[dict], successes: list[str]) -> dict:
    return {
        "prompt": strategy.prompt,
        "strategy_type": strategy.strategy_type.value,
        "failures": [{"category": f.get("category", ""), "detail": f.get("detail", "")} for f in failures],
        "successes": successes[:3],
    }


def mutate_prompt(
    strategy: Strategy, llm: LLMClient, failures: list[dict], successes: list[str], generation: int
) -> Strategy:
    """A child with a rewritten prompt; on an LLM failure the child keeps the parent's prompt
    (and says so in its operator name) rather than losing the generation."""
    prompt = judge_prompt("mutate_prompt", mutation_context(strategy, failures, successes), MUTATION_INSTRUCTIONS)
    try:
        data, _ = llm.complete_json(prompt, required_keys=("prompt",), temperature=0.7, top_p=1.0, max_tokens=1200)
        new_prompt = str(data["prompt"]).strip() or strategy.prompt
        operator = "prompt_mutation"
    except LLMError:
        new_prompt, operator = strategy.prompt, "prompt_mutation_failed"
    return strategy.child(operator=operator, parents=(strategy.id,), generation=generation, prompt=new_prompt)
