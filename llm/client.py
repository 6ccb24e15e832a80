"""LLM access: one thin client over litellm with retries, JSON answers and usage accounting.

Importing this module registers the offline provider (``offline/<name>`` models, see
:mod:`llm.offline`) with litellm, so ``LLMClient("offline/sebgen")`` works without network,
and the local provider (``local/PATH.gguf`` or ``local/NAME``, see :mod:`llm.local`).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import socket
import time
import traceback
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # before litellm: no cost-map fetch

import litellm  # noqa: E402
import openai  # noqa: E402  (litellm's exceptions subclass openai's)

from llm.in_process import encodable  # noqa: E402
from llm.local import LOCAL_PROVIDER, LocalLLM, LocalModelError, is_local_model, json_response_format, load_local_model  # noqa: E402
from llm.offline import OfflineLLM  # noqa: E402
from records import UserError

litellm.suppress_debug_info = True  # no "Provider List" banners on stdout for unknown models

DEFAULT_MODEL = "offline/sebgen"
OFFLINE_PROVIDER = "offline"


class LLMError(UserError):
    """An LLM call that failed for good: timeout, API error, or an answer that is not the JSON asked for."""

    category = "llm_error"  # the failure category a task rejected for this error gets


class BadJSONError(LLMError):
    """The model answered, but not with the JSON asked for, even after one repair round-trip."""

    category = "bad_json"


@dataclass
class Completion:
    text: str
    model: str
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float


@dataclass
class Usage:
    """Running totals over the answers a client received."""

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0

    def add(self, completion: Completion) -> None:
        self.calls += 1
        self.prompt_tokens += completion.prompt_tokens
        self.completion_tokens += completion.completion_tokens
        self.cost_usd += completion.cost_usd

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Usage:
        return cls(
            calls=int(data.get("calls", 0)),
            prompt_tokens=int(data.get("prompt_tokens", 0)),
            completion_tokens=int(data.get("completion_tokens", 0)),
            cost_usd=float(data.get("cost_usd", 0.0)),
        )


def _register(provider: str, handler: type) -> None:
    """Add a provider to ``litellm.custom_provider_map`` once, keeping other entries."""
    current = list(litellm.custom_provider_map or [])
    if any(e.get("provider") == provider and isinstance(e.get("custom_handler"), handler) for e in current):
        return
    others = [e for e in current if e.get("provider") != provider]
    litellm.custom_provider_map = [*others, {"provider": provider, "custom_handler": handler()}]


def register_offline_provider() -> None:
    _register(OFFLINE_PROVIDER, OfflineLLM)


def register_local_provider() -> None:
    _register(LOCAL_PROVIDER, LocalLLM)


register_offline_provider()
register_local_provider()


# Transient failures worth another try; 4xx errors (auth, bad request, not found) are not.
_TRANSIENT = (
    openai.APITimeoutError,
    openai.APIConnectionError,
    litellm.RateLimitError,
    litellm.InternalServerError,
    litellm.ServiceUnavailableError,
    litellm.BadGatewayError,
)


def is_transient(error: BaseException) -> bool:
    if isinstance(error, _TRANSIENT):
        return True
    status = getattr(error, "status_code", None)
    return isinstance(status, int) and status >= 500


_PROJECT_ROOT = Path(__file__).resolve().parents[1]  # a crash is reported at its last frame in SEBGen's code


def in_process_crash(error: BaseException) -> str | None:
    """What crashed, when `error` is litellm's wrapping of an exception raised by an in-process
    provider (offline, local): its type, message and innermost frame. litellm calls every such
    crash an APIConnectionError, which would read as transient and be retried to the same end."""
    crash = error.__context__
    if getattr(error, "llm_provider", None) not in (OFFLINE_PROVIDER, LOCAL_PROVIDER) or crash is None:
        return None
    if isinstance(crash, openai.OpenAIError):  # litellm's own error, not the provider's code
        return None
    frames = traceback.extract_tb(crash.__traceback__)
    ours = [f for f in frames if Path(f.filename).resolve().is_relative_to(_PROJECT_ROOT)] or frames
    places = [f"{Path(f.filename).name}:{f.lineno} in {f.name}" for f in (ours[-1], frames[-1])]
    where = ", ".join(dict.fromkeys(places))
    return f"{_describe(crash)} (at {where})" if frames else _describe(crash)


def parse_json_object(text: str, required_keys: Sequence[str] = ()) -> dict:
    """The JSON object in ``text``: raw JSON, a ```json fenced block, or the first {...} in it.

    Raises ValueError saying what is wrong (no object found, or which required keys are missing).
    """
    obj = _find_object(text)
    if obj is None:
        raise ValueError("no JSON object found")
    missing = [k for k in required_keys if k not in obj]
    if missing:
        raise ValueError(f"missing required keys: {', '.join(missing)}")
    return obj


def _find_object(text: str) -> dict | None:
    stripped = (text or "").strip()
    candidates = [stripped] + re.findall(r"```(?:json|JSON)?\s*\n?(.*?)```", stripped, re.S)
    for candidate in candidates:
        try:
            value = json.loads(candidate)
        except json.JSONDecodeError:
            continue
        if isinstance(value, dict):
            return value
    decoder = json.JSONDecoder()
    for match in re.finditer(r"\{", stripped):
        try:
            value, _ = decoder.raw_decode(stripped, match.start())
        except json.JSONDecodeError:
            continue
        if isinstance(value, dict):
            return value
    return None


class ReplayLog:
    """Answers already paid for, on disk and keyed by the exact request.

    A run asks each distinct request once: after a kill, the resumed run replays the answers
    of the killed one instead of paying again (and gets the same answers, so it ends where an
    uninterrupted run would). Each process appends to its own file, so parallel workers never
    interleave lines; a line torn by a kill is skipped.
    """

    def __init__(self, directory: Path):
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.path = self.directory / f"{socket.gethostname()}-{os.getpid()}.jsonl"
        self.entries: dict[str, dict] = {}
        for path in sorted(self.directory.glob("*.jsonl")):
            for line in path.read_text(encoding="utf-8").splitlines():
                try:
                    record = json.loads(line)
                    self.entries.setdefault(record["key"], record["completion"])
                except (json.JSONDecodeError, KeyError, TypeError):
                    continue

    @staticmethod
    def key(request: dict) -> str:
        wanted = {k: request[k] for k in ("model", "messages", "temperature", "top_p", "max_tokens")}
        return hashlib.sha256(json.dumps(wanted, sort_keys=True).encode()).hexdigest()

    def get(self, key: str) -> Completion | None:
        found = self.entries.get(key)
        return Completion(**found) if found else None

    def put(self, key: str, completion: Completion) -> None:
        record = {"key": key, "completion": asdict(completion)}
        self.entries[key] = record["completion"]
        with open(self.path, "a", encoding="utf-8") as fh:
            fh.write(json.dumps(record) + "\n")
            fh.flush()
            os.fsync(fh.fileno())


class LLMClient:
    """Calls one model through litellm; sums tokens and cost of every answer in ``usage``."""

    def __init__(
        self,
        model: str = DEFAULT_MODEL,
        *,
        timeout_s: float = 60,
        retries: int = 2,
        backoff_s: float = 1.0,
        mock_response: str | Exception | None = None,
        replay_dir: Path | None = None,
        local: dict | None = None,
    ):
        self.replay = ReplayLog(replay_dir) if replay_dir is not None else None
        self.replayed = 0
        self.model = model
        self.timeout_s = float(timeout_s)
        self.retries = max(0, int(retries))
        self.backoff_s = max(0.0, float(backoff_s))
        self.mock_response = mock_response
        self.usage = Usage()
        self._credentials_checked = False
        register_offline_provider()  # in case someone replaced the provider map since import
        self.local_model = None
        if is_local_model(model):
            register_local_provider()
        if is_local_model(model) and mock_response is None:
            try:  # load now: a missing, foreign or oversized file is one sentence, not a failed call later
                self.local_model = load_local_model(model, local)
            except LocalModelError as exc:
                raise LLMError(str(exc)) from None

    def complete(
        self,
        prompt: str,
        *,
        system: str | None = None,
        temperature: float = 0.7,
        top_p: float = 1.0,
        max_tokens: int = 1024,
    ) -> Completion:
        messages = ([{"role": "system", "content": system}] if system else []) + [{"role": "user", "content": prompt}]
        return self._complete_messages(messages, temperature=temperature, top_p=top_p, max_tokens=max_tokens)

    def complete_json(
        self, prompt: str, *, required_keys: Sequence[str] = (), system: str | None = None, **sampling: Any
    ) -> tuple[dict, Completion]:
        """A JSON object answer; one repair round-trip when the first answer does not parse."""
        messages = ([{"role": "system", "content": system}] if system else []) + [{"role": "user", "content": prompt}]
        if self.local_model is not None:  # llama.cpp's grammar keeps a small model to a JSON object
            sampling = {
                **sampling,
                "response_format": json_response_format(tuple(required_keys), int(sampling.get("max_tokens", 1024))),
            }
        first = self._complete_messages(messages, **sampling)
        try:
            return parse_json_object(first.text, required_keys), first
        except ValueError as error:
            problem = str(error)
        keys = f" with the keys {', '.join(required_keys)}" if required_keys else ""
        repair = (
            f"Your previous answer was not valid JSON: {problem}.\n"
            f"Your previous answer was:\n{first.text[:2000]}\n"
            f"Return only the JSON object{keys}, with no text around it."
        )
        messages = messages + [{"role": "assistant", "content": first.text}, {"role": "user", "content": repair}]
        second = self._complete_messages(messages, **sampling)
        try:
            return parse_json_object(second.text, required_keys), second
        except ValueError as error:
            raise BadJSONError(f"{self.model} returned unparsable JSON after one repair attempt ({error}).") from None

    def _complete_messages(
        self,
        messages: list[dict],
        *,
        temperature: float = 0.7,
        top_p: float = 1.0,
        max_tokens: int = 1024,
        response_format: dict | None = None,
    ) -> Completion:
        kwargs: dict[str, Any] = dict(
            model=self.model,
            messages=[{**message, "content": encodable(message["content"])} for message in messages],
            temperature=temperature,
            top_p=top_p,
            max_tokens=int(max_tokens),
            timeout=self.timeout_s,
            drop_params=True,
        )
        if response_format is not None:
            kwargs["response_format"] = response_format
        if self.mock_response is not None:
            kwargs["mock_response"] = self.mock_response
        key = ReplayLog.key(kwargs) if self.replay is not None else ""
        if self.replay is not None and (known := self.replay.get(key)) is not None:
            self.replayed += 1
            self.usage.add(known)  # usage counts what the run consumed, paid once
            return known
        if not self._credentials_checked and self.mock_response is None:
            check_credentials(self.model)
            self._credentials_checked = True
        attempts = self.retries + 1
        for attempt in range(attempts):
            try:
                response = litellm.completion(**kwargs)
                break
            except Exception as error:  # litellm maps provider errors onto its own classes
                if (crash := in_process_crash(error)) is not None:  # a bug here, not the network: no retry
                    raise LLMError(f"{self.model} crashed in SEBGen's in-process provider: {crash}.") from error
                if not is_transient(error):
                    raise LLMError(f"{self.model} failed with an API error: {_describe(error)}.") from error
                if attempt + 1 == attempts:
                    raise LLMError(
                        f"{self.model} failed after {attempts} attempts: {_transient_reason(error, self.timeout_s)}."
                    ) from error
                time.sleep(self.backoff_s * (2**attempt))  # exponential backoff before the next try
        completion = self._to_completion(response)
        self.usage.add(completion)
        if self.replay is not None:
            self.replay.put(key, completion)
        return completion

    def _to_completion(self, response: Any) -> Completion:
        text = response.choices[0].message.content or ""
        usage = getattr(response, "usage", None)
        return Completion(
            text=text,
            model=self.model,
            prompt_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
            completion_tokens=int(getattr(usage, "completion_tokens", 0) or 0),
            cost_usd=self._cost(response),
        )

    def _cost(self, response: Any) -> float:
        if self.model.startswith(f"{OFFLINE_PROVIDER}/") or is_local_model(self.model):
            return 0.0
        try:
            return float(litellm.completion_cost(completion_response=response) or 0.0)
        except Exception:  # unknown model in the cost map: cost is unknown, count it as zero
            return 0.0


def check_credentials(model: str) -> None:
    """A missing API key is one sentence naming the variable, before any request (no retries)."""
    try:
        missing = litellm.validate_environment(model).get("missing_keys") or []
    except Exception:  # a provider litellm cannot introspect: let the request say what is wrong
        return
    keys = [k for k in missing if k.endswith("_API_KEY")]  # base URLs etc. have working defaults
    if keys:
        raise LLMError(f"{model} needs an API key: set the environment variable {' or '.join(keys)}.")


def _describe(error: BaseException) -> str:
    message = " ".join(str(getattr(error, "message", "") or error).split())
    return f"{type(error).__name__}: {message[:300]}"


def _transient_reason(error: BaseException, timeout_s: float) -> str:
    if isinstance(error, openai.APITimeoutError):
        return f"timeout after {timeout_s:g}s"
    return f"transient API error ({_describe(error)})"
