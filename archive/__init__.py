"""The experience store: SQLite rows + a FAISS index of task embeddings, novelty and retrieval.

Imports nothing of evo, operators, fitness or sandbox.
"""

from .archive import Archive
from .embedder import DEFAULT_MODEL, Embedder, get_embedder
from .errors import ArchiveError
from .text import patch_summary, task_text

__all__ = ["Archive", "ArchiveError", "DEFAULT_MODEL", "Embedder", "get_embedder", "patch_summary", "task_text"]
