"""The offline LLM provider: a deterministic, rule-based writer, judge and prompt mutator.

No network; the only model is the local sentence embedder that reads instructions by
meaning. It answers litellm calls to ``offline/<name>`` (default
``offline/sebgen``) so CI, the quickstart and tests can run the whole pipeline, and it reacts
to the prompt and the sampling parameters so evolution has something to act on offline.

The package has one module per job, and the rules live in their docstrings:

* :mod:`~llm.offline.provider` -- the protocol (``<context>{json}</context>`` and its ``"task"``),
  dispatch (:func:`respond`) and the litellm provider :class:`OfflineLLM`;
* :mod:`~llm.offline.directives` -- the writer directives and how instructions are read by meaning;
* :mod:`~llm.offline.meaning` -- the sentence-embedding model (lazy, local, cached);
* :mod:`~llm.offline.writer` -- :func:`write_statement`, with examples and sampling behaviour;
* :mod:`~llm.offline.judge` -- the quality and semantic judge rubrics;
* :mod:`~llm.offline.mutator` -- the prompt mutation rules;
* :mod:`~llm.offline.assertions`, :mod:`~llm.offline.subject`, :mod:`~llm.offline.text` --
  failing-test assertions, commit subjects and small text helpers.
"""

from __future__ import annotations

from .assertions import Check, parse_assertion
from .directives import DESCRIPTIONS, instruction_text, parse_directives, read_directives
from .judge import StatementSignals, judge_quality, judge_semantic, statement_signals
from .mutator import CATEGORY_RULES, PHRASINGS, RULES, dominant_categories, mutate_prompt
from .provider import TASKS, OfflineLLM, respond, split_prompt
from .subject import body_sentences, split_subject
from .text import leaked_share, patch_added_lines, patch_removed_lines, seeded_rng
from .writer import JSON_OVERHEAD_WORDS, WORDS_PER_TOKEN, write_statement

__all__ = [
    "CATEGORY_RULES",
    "DESCRIPTIONS",
    "JSON_OVERHEAD_WORDS",
    "PHRASINGS",
    "RULES",
    "TASKS",
    "WORDS_PER_TOKEN",
    "Check",
    "OfflineLLM",
    "StatementSignals",
    "body_sentences",
    "dominant_categories",
    "instruction_text",
    "judge_quality",
    "judge_semantic",
    "leaked_share",
    "mutate_prompt",
    "parse_assertion",
    "parse_directives",
    "read_directives",
    "patch_added_lines",
    "patch_removed_lines",
    "respond",
    "seeded_rng",
    "split_prompt",
    "split_subject",
    "statement_signals",
    "write_statement",
]
