"""The generation prompt: SEBGen's five sources joined around the strategy's own instructions.

1. repository context, 2. commit metadata, 3. the diff cut at 3000 chars, 4. the top-3
similar successful tasks from the archive, 5. the JSON output schema. A machine-readable
`<context>` block repeats the structured facts so any model, including the offline provider,
can use them. Instructions are short and show one JSON example, so small local models can
follow them; judge prompts show their facts as readable sections too (a local model does not
see the `<context>` block).
"""

from __future__ import annotations

import json

from records import FailureEvidence

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
OUTPUT_EXAMPLE = {
    "problem_statement": "<the issue: what a user does, what happens, what was expected>",
    "hints_text": "",
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


def generation_prompt(*, instructions: str, context: dict, repo_context: str, diff: str, examples: list[str]) -> str:
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
        *(
            [fenced("How the failing tests fail on the current code", evidence_block(context["failures"]))]
            if context.get("failures")
            else []
        ),
        "## Output\nReturn only a JSON object like this example (hints_text may be empty):\n```json\n"
        + json.dumps(OUTPUT_EXAMPLE)
        + "\n```",
        "<context>" + context_json(context) + "</context>",
    ]
    return "\n\n".join(sections) + "\n"


def context_json(context: dict, **options) -> str:
    """The context as JSON, the records in it (`records.FailureEvidence`) as their own JSON."""
    return json.dumps(context, default=_record_json, **({"sort_keys": True} | options))


def _record_json(value):
    if isinstance(value, FailureEvidence):
        return value.to_dict()
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


EVIDENCE_LIMIT = 2500


def evidence_block(failures: list[FailureEvidence], limit: int = EVIDENCE_LIMIT) -> str:
    """The failure evidence, compact: per failing test the check that fails, what pytest
    reported, the value observed and the one required, and a self-contained reproduction."""
    parts = []
    for f in failures:
        lines = [f"- {f.test_id}"]
        if f.check:
            lines.append(f"  failing check: {f.check}")
        first = next((ln.strip() for ln in (f.message or "").splitlines() if ln.strip()), "")
        if first:
            lines.append(f"  pytest reports: {first[:200]}")
        if f.error:
            lines.append(f"  raises: {f.error}")
        if f.observed and f.observed != f.error:
            lines.append(f"  observed on the current code: {f.call} -> {f.observed}")
        if f.expected:
            exact = " (exact string)" if f.exact else ""
            lines.append(f"  required: {f.call or ''} {f.op or 'gives'} {f.expected}{exact}")
        if f.params:
            lines.append("  parameters: " + ", ".join(f"{k}={v}" for k, v in f.params.items()))
        if f.reproduction and not f.unbound:
            lines.append("  reproduction:")
            lines += [f"    {ln}" for ln in f.reproduction.splitlines()]
        parts.append("\n".join(lines))
    text = "\n".join(parts)
    return text if len(text) <= limit else text[:limit] + f"\n... [evidence cut at {limit} of {len(text)} chars]"


def judge_prompt(task: str, context: dict, instructions: str) -> str:
    sections = [
        fenced(
            key.replace("_", " ").capitalize(),
            cut(value if isinstance(value, str) else context_json(value, indent=1, sort_keys=False)),
        )
        for key, value in context.items()
    ]
    return (
        "\n\n".join([instructions.strip(), *sections])
        + "\n\n<context>"
        + context_json({"task": task, **context})
        + "</context>\n"
    )


QUALITY_INSTRUCTIONS = (
    "You are a strict reviewer of software-engineering benchmark tasks. Score the task below "
    "from 1 (bad) to 10 (good) on: task_correctness (the problem statement describes what the "
    "patch fixes), test_correctness (the tests check that behaviour), test_completeness (the "
    "tests cover the statement) and complexity (how hard the fix is). Give each a confidence "
    "from 0 to 1 and one sentence of reasoning. Return only a JSON object like this example:\n"
    '{"task_correctness": {"score": 6, "confidence": 0.7, "reasoning": "..."}, '
    '"test_correctness": {"score": 8, "confidence": 0.9, "reasoning": "..."}, '
    '"test_completeness": {"score": 5, "confidence": 0.6, "reasoning": "..."}, '
    '"complexity": {"score": 3, "confidence": 0.8, "reasoning": "..."}}'
)
SEMANTIC_INSTRUCTIONS = (
    "Judge the problem statement of this benchmark task from 1 (bad) to 10 (good) on clarity "
    "and on solvability (can a developer fix it from the statement alone?). Give each a "
    "confidence from 0 to 1 and one sentence of reasoning. Return only a JSON object like this "
    'example:\n{"clarity": {"score": 7, "confidence": 0.8, "reasoning": "..."}, '
    '"solvability": {"score": 4, "confidence": 0.6, "reasoning": "..."}}'
)
MUTATION_INSTRUCTIONS = (
    "You improve prompts that generate benchmark tasks. Given the current prompt, the recent "
    "failures (with categories) and successes of tasks it produced, rewrite the prompt to fix "
    "the dominant failure pattern. Keep placeholders such as {repo}. Return only a JSON object "
    'like this example:\n{"prompt": "Write a bug report for {repo}. ...", "rationale": "..."}'
)
