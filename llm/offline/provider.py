"""The offline model's dispatch: a chat split into context and instructions, answered by task,
and the litellm provider for ``offline/<name>`` models.

Protocol
--------
The prompt (the last user message that holds one; the system message is instructions too)
contains free-text instructions and ONE structured block ``<context>{json}</context>``.
The context's ``"task"`` selects the role:

========================  ===================================================================
``write_statement``       issue-style ``{"problem_statement", "hints_text"}`` from commit facts
``judge_quality``         SWE-MERA's four criteria, each ``{"score", "confidence", "reasoning"}``
``judge_semantic``        ``{"clarity", "solvability"}`` in the same shape
``mutate_prompt``         ``{"prompt", "rationale"}``: the strategy prompt rewritten from failures
========================  ===================================================================

An unknown or missing task gives ``{"error": "..."}``; a prompt without a context block gets
a short plain-text summary back, so a plain completion still works.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Sequence
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # before litellm: no cost-map fetch

from ..in_process import Answer, InProcessProvider, encodable_strings, message_text  # noqa: E402
from .js_writer import is_js_context, write_js_statement  # noqa: E402
from .judge import judge_quality, judge_semantic  # noqa: E402
from .mutator import mutate_prompt  # noqa: E402
from .text import _word_count  # noqa: E402
from .writer import write_statement  # noqa: E402

TASKS = ("write_statement", "judge_quality", "judge_semantic", "mutate_prompt")

_CONTEXT = re.compile(r"<context>(.*?)</context>", re.S)


def split_prompt(messages: Sequence[Any]) -> tuple[str | None, str]:
    """(context JSON text or None, instruction text) of a chat.

    The context comes from the last user message that holds a block; the instructions are the
    system messages plus that message and any later user messages, without the block.
    """
    role = lambda m: m.get("role") if isinstance(m, dict) else getattr(m, "role", "")  # noqa: E731
    system = [message_text(m) for m in messages if role(m) == "system"]
    users = [message_text(m) for m in messages if role(m) == "user"]
    for i in range(len(users) - 1, -1, -1):
        blocks = _CONTEXT.findall(users[i])
        if blocks:
            rest = [_CONTEXT.sub(" ", users[i]), *users[i + 1 :]]
            return blocks[-1], "\n".join([*system, *rest])
    return None, "\n".join([*system, *users])


def respond(messages: Sequence[Any], temperature: float = 0.7, top_p: float = 1.0, max_tokens: int = 1024) -> str:
    """The offline model's answer text to a chat."""
    context_text, instructions = split_prompt(messages)
    if context_text is None:
        digest = hashlib.sha256(instructions.encode()).hexdigest()[:12]
        first = next((ln.strip() for ln in instructions.splitlines() if ln.strip()), "")
        n = _word_count(instructions)
        return (
            f"offline model: received {n} word{'' if n == 1 else 's'} (sha256 {digest}); "
            f"no <context> block, so no task to perform. First line: {first[:80]}"
        )
    try:
        context = encodable_strings(json.loads(context_text))
    except json.JSONDecodeError as exc:
        return json.dumps({"error": f"the <context> block is not valid JSON: {exc}"})
    if not isinstance(context, dict):
        return json.dumps({"error": "the <context> block must hold a JSON object"})
    task = context.get("task")
    if task == "write_statement":
        writer = write_js_statement if is_js_context(context) else write_statement
        result = writer(context, instructions, temperature, top_p, max_tokens)
    elif task == "judge_quality":
        result = judge_quality(context)
    elif task == "judge_semantic":
        result = judge_semantic(context)
    elif task == "mutate_prompt":
        result = mutate_prompt(context)
    else:
        result = {"error": f"unknown task {task!r}; expected one of {', '.join(TASKS)}"}
    return json.dumps(result, ensure_ascii=False)


def _number(params: dict, key: str, default: float) -> float:
    value = params.get(key)
    return default if value is None else float(value)


class OfflineLLM(InProcessProvider):
    """litellm provider for ``offline/<name>`` models: answers with :func:`respond`, zero cost."""

    provider = "offline"

    def answer(self, model: str, messages: list, params: dict) -> Answer:
        text = respond(
            messages,
            temperature=_number(params, "temperature", 0.7),
            top_p=_number(params, "top_p", 1.0),
            max_tokens=int(_number(params, "max_tokens", 1024)),
        )
        prompt_chars = sum(len(message_text(m)) for m in messages)
        return Answer(text, "stop", prompt_tokens=max(1, prompt_chars // 4), completion_tokens=max(1, len(text) // 4))
