"""LLM access over litellm: the client (retries, JSON answers, usage, replay log) and the
offline provider that answers ``offline/<name>`` models without network or weights, and local
GGUF models (``local/PATH.gguf``) run in-process by llama.cpp.

    client = LLMClient("offline/sebgen")          # or any litellm model name, or local/PATH.gguf
    completion = client.complete(messages, temperature=0.7, top_p=0.9, max_tokens=800)

litellm is heavy to import, so the client module loads on first use of one of its names.
Imports nothing of evo, operators, fitness, harness, sandbox, archive or corpus.
"""

from __future__ import annotations

from .leakage import LeakReport, leak_report, leaked_share
from .markdown import (
    DEFINED_ABOVE,
    FENCE,
    IMPORT_ONLY,
    SAME_SETUP,
    code_block_lines,
    import_only,
    import_only_sentence,
    is_heading,
    is_path,
    paragraphs,
    test_inputs_given_in_full,
    with_first_block_led,
    with_import_only_count,
    with_more_untold,
    without_dangling_heads,
    without_snippet_talk,
)
from .patch_lines import is_prose_file, patch_added_lines, patch_removed_lines, patch_sections
from .python_source import first_line, helper_definitions, unparse

_CLIENT_NAMES = {
    "BadJSONError",
    "Completion",
    "DEFAULT_MODEL",
    "LLMClient",
    "LLMError",
    "ReplayLog",
    "Usage",
    "is_transient",
    "parse_json_object",
    "register_offline_provider",
}
_LOCAL_NAMES = {"LocalModelError", "LocalSettings", "is_local_model", "load_local_model"}


def __getattr__(name: str):
    if name in _CLIENT_NAMES:
        from . import client

        return getattr(client, name)
    if name in _LOCAL_NAMES:
        from . import local

        return getattr(local, name)
    raise AttributeError(f"module 'llm' has no attribute {name!r}")


__all__ = [
    "BadJSONError",
    "Completion",
    "DEFAULT_MODEL",
    "FENCE",
    "IMPORT_ONLY",
    "LLMClient",
    "LLMError",
    "LeakReport",
    "LocalModelError",
    "LocalSettings",
    "ReplayLog",
    "DEFINED_ABOVE",
    "SAME_SETUP",
    "Usage",
    "code_block_lines",
    "import_only",
    "import_only_sentence",
    "first_line",
    "helper_definitions",
    "is_heading",
    "is_path",
    "is_local_model",
    "is_prose_file",
    "is_transient",
    "leak_report",
    "leaked_share",
    "load_local_model",
    "paragraphs",
    "test_inputs_given_in_full",
    "with_first_block_led",
    "with_import_only_count",
    "with_more_untold",
    "without_dangling_heads",
    "without_snippet_talk",
    "parse_json_object",
    "patch_added_lines",
    "patch_removed_lines",
    "patch_sections",
    "register_offline_provider",
    "unparse",
]
