"""What the in-process litellm providers (``offline/``, ``local/``) share: litellm's completion
call, the response they fill, the text of a chat message, and text every provider can encode."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # before litellm: no cost-map fetch

import litellm  # noqa: E402
from litellm.types.utils import Usage as LiteLLMUsage  # noqa: E402

_SURROGATE = re.compile("[\ud800-\udfff]")


def encodable(text: str) -> str:
    """`text` as valid UTF-8. Bytes that were not UTF-8 reach a prompt as lone surrogates (a test's
    output or a file read with surrogateescape); no provider can encode those, so each is written
    as its escape: the byte it stood for (`\\xff`), else its code point (`\\ud800`)."""
    return _SURROGATE.sub(_escaped, text)


def _escaped(match: re.Match) -> str:
    code = ord(match.group(0))
    return f"\\x{code - 0xDC00:02x}" if 0xDC80 <= code <= 0xDCFF else f"\\u{code:04x}"


def encodable_strings(value: Any) -> Any:
    """`value` (decoded JSON) with every string `encodable`: a context sent with ASCII escapes
    (`\\udcff`) decodes back to lone surrogates, which the answer could not carry."""
    if isinstance(value, str):
        return encodable(value)
    if isinstance(value, list):
        return [encodable_strings(v) for v in value]
    if isinstance(value, dict):
        return {encodable(k) if isinstance(k, str) else k: encodable_strings(v) for k, v in value.items()}
    return value


def message_text(message: Any) -> str:
    """A chat message's text, from a dict or an object, its content parts joined by lines."""
    content = message.get("content") if isinstance(message, dict) else getattr(message, "content", "")
    if isinstance(content, list):  # content parts
        return "\n".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return str(content or "")


@dataclass(frozen=True)
class Answer:
    text: str
    finish_reason: str
    prompt_tokens: int
    completion_tokens: int


class InProcessProvider(litellm.CustomLLM):
    """A litellm provider that answers in this process, at zero cost. A subclass sets `provider`
    (the model prefix) and defines `answer(model, messages, params) -> Answer`."""

    provider: str

    def completion(
        self,
        model: str,
        messages: list,
        api_base: str,
        custom_prompt_dict: dict,
        model_response: litellm.ModelResponse,
        print_verbose: Any,
        encoding: Any,
        api_key: Any,
        logging_obj: Any,
        optional_params: dict,
        *args: Any,
        **kwargs: Any,
    ) -> litellm.ModelResponse:
        answer = self.answer(model, messages, dict(optional_params or {}))
        model_response.choices[0].message.content = answer.text  # type: ignore[union-attr]
        model_response.choices[0].finish_reason = answer.finish_reason
        model_response.model = f"{self.provider}/{model}"
        model_response.usage = LiteLLMUsage(
            prompt_tokens=answer.prompt_tokens,
            completion_tokens=answer.completion_tokens,
            total_tokens=answer.prompt_tokens + answer.completion_tokens,
        )
        return model_response

    async def acompletion(self, *args: Any, **kwargs: Any) -> litellm.ModelResponse:  # type: ignore[override]
        return self.completion(*args, **kwargs)
