"""The generation prompt: SEBGen's five sources joined around the strategy's own instructions.

1. repository context, 2. commit metadata, 3. the diff cut at 3000 chars, 4. the top-3
similar successful tasks from the archive, 5. the JSON output schema. A machine-readable
`<context>` block repeats the structured facts so any model, including the offline provider,
can use them.
"""
from __future__ import annotations

import json

DIFF_LIMIT = 3000
FENCE = "```"
OUTPUT_SCHEMA = {
    "type": "object",
    "required": ["problem_statement", "hints_text"],
    "properties": {
        "problem_statement": {"type": "string", "description": "issue text the agent sees"},
        "hints_text": {"type": "string", "description": "optional hints; may be empty"},
    },
}


def cut(text: str, limit: int = DIFF_LIMIT) -> str:
    if len(text) <= limit:
        return text
    return text[:limit] + f"\n... [diff cut at {limit} of {len(text)} chars]"


def render_instructions(template: str, repo: str) -> str:
    # Templates may use {repo}; anything else in braces is kept verbatim.
    return template.replace("{repo}", repo)


def fenced(title: str, body: str) -> str:
    # Data goes in fences: a model reads it as material, not as instructions to follow.
    return f"## {title}\n```text\n{body.strip().replace(FENCE, '~~~')}\n{FENCE}"


def generation_prompt(*, instructions: str, context: dict, repo_context: str, diff: str,
                      examples: list[str]) -> str:
    example_text = "\n\n".join(f"Example {i + 1}:\n{e}" for i, e in enumerate(examples)) or "(none yet)"
    commit = f"{context['commit_subject']}\n\n{context.get('commit_body', '')}".strip()
    if context.get("pr_title"):  # the pull request that merged it says what the change is for
        commit += f"\n\nPull request: {context['pr_title']}\n{context.get('pr_body', '')}".rstrip()
    if context.get("issues"):
        commit += "\nReferences: " + ", ".join(context["issues"])
    sections = [
        instructions.strip(),
        fenced("Repository context", repo_context),
        fenced("Commit", commit + f"\nDate: {context.get('created_at', '')}"),
        fenced("Diff of the change", cut(diff)),
        fenced("Similar successful tasks from the archive", example_text),
        fenced("Failing tests", "\n".join(f"- {t['id']}: {t['assertion']}" for t in context["failing_tests"])),
        "## Output\nReturn only a JSON object matching this schema:\n```json\n" + json.dumps(OUTPUT_SCHEMA) + "\n```",
        "<context>" + json.dumps(context, sort_keys=True) + "</context>",
    ]
    return "\n\n".join(sections) + "\n"


def judge_prompt(task: str, context: dict, instructions: str) -> str:
    return f"{instructions.strip()}\n\n<context>" + json.dumps({"task": task, **context}, sort_keys=True) + "</context>\n"


QUALITY_INSTRUCTIONS = (
    "You are a strict reviewer of software-engineering benchmark tasks. Score the task on "
    "task_correctness, test_correctness, test_completeness and complexity, each 1-10 with a "
    "confidence in [0,1] and a short reasoning. Return only JSON: {criterion: {score, "
    "confidence, reasoning}}."
)
SEMANTIC_INSTRUCTIONS = (
    "Judge the problem statement of this benchmark task for clarity and for whether it is "
    "solvable from the statement alone. Return only JSON: {clarity: {score, confidence, "
    "reasoning}, solvability: {score, confidence, reasoning}} with scores 1-10."
)
MUTATION_INSTRUCTIONS = (
    "You improve prompts that generate benchmark tasks. Given the current prompt, the recent "
    "failures (with categories) and successes of tasks it produced, rewrite the prompt to fix "
    "the dominant failure pattern. Keep placeholders such as {repo}. Return only JSON: "
    "{\"prompt\": str, \"rationale\": str}."
)
