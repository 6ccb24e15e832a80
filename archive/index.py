"""FAISS vectors keyed by archive row id: exact inner product, HNSW above a size.

Vectors are L2-normalised, so the inner product is the cosine similarity. The index is an
`IndexIDMap2` (an `IndexIDMap` that can also give a vector back by id) over `IndexFlatIP`,
or over `IndexHNSWFlat` once it holds more than `approximate_above` vectors.
"""
from __future__ import annotations

import os
from pathlib import Path

import faiss
import numpy as np

HNSW_NEIGHBOURS = 32  # M: links per node
HNSW_EF_CONSTRUCTION = 40
HNSW_EF_SEARCH = 128
TIE_SLACK = 8  # extra hits fetched so equal scores at the cut are ordered by id, not by FAISS
SCORE_DECIMALS = 6  # scores this close count as a tie
BRUTE_FORCE_LIMIT = 4096  # filtered HNSW queries over fewer candidates are scanned exactly

Hit = tuple[int, float]


class VectorIndex:
    """Cosine-similarity search over (id, vector) pairs with optional id filters."""

    def __init__(self, approximate_above: int):
        self.approximate_above = approximate_above
        self._index: faiss.IndexIDMap2 | None = None
        self._ids: np.ndarray | None = None  # cached id list; None when stale

    # -- state ---------------------------------------------------------------------------
    def __len__(self) -> int:
        return 0 if self._index is None else int(self._index.ntotal)

    @property
    def dim(self) -> int | None:
        return None if self._index is None else int(self._index.d)

    @property
    def approximate(self) -> bool:
        return self._index is not None and isinstance(faiss.downcast_index(self._index.index), faiss.IndexHNSW)

    def ids(self) -> np.ndarray:
        """Ids held, sorted."""
        if self._ids is None:
            raw = np.empty(0, dtype=np.int64) if self._index is None else faiss.vector_to_array(self._index.id_map)
            self._ids = np.sort(raw.astype(np.int64))
        return self._ids

    def vectors(self, ids: np.ndarray) -> np.ndarray:
        """The stored vectors of `ids` (which must all be present)."""
        if len(ids) == 0:
            return np.empty((0, self.dim or 0), dtype=np.float32)
        return self._index.reconstruct_batch(np.ascontiguousarray(ids, dtype=np.int64))

    # -- building ------------------------------------------------------------------------
    def rebuild(self, ids: np.ndarray, vectors: np.ndarray) -> None:
        """Replace the contents; the kind (exact or HNSW) follows the size."""
        self._index = None
        self._ids = None
        if len(ids):
            self._index = self._new_index(vectors.shape[1], approximate=len(ids) > self.approximate_above)
            self._add(ids, vectors)

    def add(self, ids: np.ndarray, vectors: np.ndarray) -> None:
        """Add vectors; switches to HNSW (rebuilding from the held vectors) when crossing the size."""
        if len(ids) == 0:
            return
        if self._index is None:
            self.rebuild(ids, vectors)
            return
        if not self.approximate and len(self) + len(ids) > self.approximate_above:
            held = self.ids()
            self.rebuild(np.concatenate([held, ids]), np.vstack([self.vectors(held), vectors]))
            return
        self._add(ids, vectors)

    def _new_index(self, dim: int, approximate: bool) -> faiss.IndexIDMap2:
        if approximate:
            inner = faiss.IndexHNSWFlat(dim, HNSW_NEIGHBOURS, faiss.METRIC_INNER_PRODUCT)
            inner.hnsw.efConstruction = HNSW_EF_CONSTRUCTION
            inner.hnsw.efSearch = HNSW_EF_SEARCH
        else:
            inner = faiss.IndexFlatIP(dim)
        return faiss.IndexIDMap2(inner)  # the faiss wrapper keeps `inner` referenced

    def _add(self, ids: np.ndarray, vectors: np.ndarray) -> None:
        vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        ids = np.ascontiguousarray(ids, dtype=np.int64)
        if self.approximate:
            # HNSW insertion order depends on thread timing; one thread keeps the graph reproducible.
            threads = faiss.omp_get_max_threads()
            faiss.omp_set_num_threads(1)
            try:
                self._index.add_with_ids(vectors, ids)
            finally:
                faiss.omp_set_num_threads(threads)
        else:
            self._index.add_with_ids(vectors, ids)
        self._ids = None

    # -- persistence ---------------------------------------------------------------------
    def save(self, path: Path) -> None:
        """Write atomically: a temp file, fsync, rename, fsync the folder. Empty index -> no file."""
        if self._index is None:
            path.unlink(missing_ok=True)
            _fsync_dir(path.parent)
            return
        tmp = path.with_name(path.name + ".tmp")
        faiss.write_index(self._index, str(tmp))
        with open(tmp, "rb") as handle:
            os.fsync(handle.fileno())
        os.replace(tmp, path)
        _fsync_dir(path.parent)

    def load(self, path: Path) -> None:
        """Read an index file; raises on a missing or unreadable file."""
        index = faiss.read_index(str(path))
        if not isinstance(index, faiss.IndexIDMap2):
            raise ValueError(f"{path} holds a {type(index).__name__}, not an IndexIDMap2")
        inner = faiss.downcast_index(index.index)
        if isinstance(inner, faiss.IndexHNSW):
            inner.hnsw.efSearch = HNSW_EF_SEARCH
        self._index = index
        self._ids = None

    # -- search --------------------------------------------------------------------------
    def search(self, queries: np.ndarray, k: int, allowed: np.ndarray | None = None) -> list[list[Hit]]:
        """Top-k (id, cosine) per query, best first, ties by id.

        `allowed` (unique ids, all held by the index) restricts the search to those ids.
        """
        queries = np.ascontiguousarray(np.atleast_2d(queries), dtype=np.float32)
        if self._index is None or k <= 0:
            return [[] for _ in queries]
        if allowed is not None:
            if len(allowed) >= len(self):
                allowed = None  # the filter keeps everything: plain search is faster
            elif len(allowed) == 0:
                return [[] for _ in queries]
        pool = len(self) if allowed is None else len(allowed)
        want = min(k, pool)
        if allowed is not None and self.approximate and len(allowed) <= BRUTE_FORCE_LIMIT:
            return self._scan(queries, want, allowed)
        fetch = min(pool, want + TIE_SLACK)
        params, _keep_alive = self._search_params(allowed)
        scores, labels = self._index.search(queries, fetch, params=params)
        results = [_ordered(lab, sc, want) for lab, sc in zip(labels, scores)]
        if allowed is not None and any(len(r) < want for r in results):
            return self._scan(queries, want, allowed)  # HNSW can strand a narrow filter
        return results

    def exact_search(self, queries: np.ndarray, k: int) -> list[list[Hit]]:
        """Exhaustive search over every held vector, whatever the index kind (for recall)."""
        return self._scan(np.atleast_2d(queries).astype(np.float32), min(k, len(self)), self.ids())

    def _scan(self, queries: np.ndarray, k: int, ids: np.ndarray) -> list[list[Hit]]:
        scores = queries @ self.vectors(ids).T
        fetch = min(len(ids), k + TIE_SLACK)
        results = []
        for row in scores:
            top = np.argpartition(-row, fetch - 1)[:fetch] if fetch < len(ids) else slice(None)
            results.append(_ordered(ids[top], row[top], k))
        return results

    def _search_params(self, allowed: np.ndarray | None):
        if allowed is None:
            return None, None
        # A bitmap over ids is built in microseconds with numpy, unlike a hash set of 100k ids.
        bits = np.zeros(int(allowed.max()) + 1, dtype=bool)
        bits[allowed] = True
        bitmap = np.packbits(bits, bitorder="little")
        selector = faiss.IDSelectorBitmap(len(bitmap), faiss.swig_ptr(bitmap))
        if self.approximate:
            params = faiss.SearchParametersHNSW()
            params.efSearch = max(HNSW_EF_SEARCH, 2 * len(self) // max(1, len(allowed)))
        else:
            params = faiss.SearchParameters()
        params.sel = selector
        return params, (selector, bitmap)  # faiss keeps pointers only: the caller holds these alive


def _ordered(labels: np.ndarray, scores: np.ndarray, k: int) -> list[Hit]:
    """Best-first (id, score) pairs; equal (rounded) scores ordered by id; FAISS -1 padding dropped."""
    pairs = [(int(i), min(1.0, float(s))) for i, s in zip(labels, scores) if i >= 0]  # 1.0000001 is rounding
    pairs.sort(key=lambda p: (-round(p[1], SCORE_DECIMALS), p[0]))
    return pairs[:k]


def _fsync_dir(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
