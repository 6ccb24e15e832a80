"""FAISS vectors keyed by archive row id: exact inner product, an inverted-file index above a size.

Vectors are L2-normalised, so the inner product is the cosine similarity. Up to
`approximate_above` vectors the index is exact: an `IndexIDMap2` (an `IndexIDMap` that can
also give a vector back by id) over `IndexFlatIP`. Above it, it is an inverted-file index
(`IndexIVFScalarQuantizer`): k-means cells over the vectors, each query scanning the
`IVF_PROBES` cells nearest to it. The cells hold the vectors as 16-bit floats, so a
similarity it returns is off by about 1e-4 at most; a larger error can only come from a
true neighbour in a cell that was not scanned. `bench/archive_novelty.py` measures how often
that moves novelty, on new tasks (queries that are not in the archive). Half-precision
halves the memory a query reads (12 MB at a million vectors instead of 24 MB), which is what
a query costs on a busy machine, and the RSS (0.8 GB instead of 1.5 GB).

Why IVF and not HNSW (bench/archive_novelty.py, a million synthetic tasks, 266 new-task
queries): the HNSW graph this replaced (M 32, efConstruction 40, efSearch 128) found 58-65%
of the true 5 nearest neighbours and moved novelty by up to 0.076, and took 11 minutes to
build; this index finds all of them (every novelty within 0.01 of exact), answers in 1.4 ms
(p50, one thread, busy 2-core machine) and builds in 2 minutes. Task embeddings fall into
clusters (one per kind of problem), which is what IVF cells capture; a graph walk meets many
near-equidistant copies and stops early.

Growth: new vectors go into the existing cells (no rebuild per generation). The cells are
re-trained, a logged rebuild, only once they average 4x the vectors they were trained for
(512) and more cells are allowed, never once there are `IVF_MAX_LISTS` of them: a run that
grows to a million tasks rebuilds a few times, the last time at 262,144 vectors. Training,
cell assignment and list order depend only on the vectors and their ids (checked with one
and two threads), so two builds of the same rows agree.
"""

from __future__ import annotations

import logging
import math
import os
import time
from collections.abc import Callable
from pathlib import Path

import faiss
import numpy as np

log = logging.getLogger("archive")

IVF_LIST_TARGET = 128  # vectors per cell when the cells are trained
IVF_MAX_LISTS = 2048  # more cells cost more to train and assign than they save a query at 1M
IVF_PROBES = 32  # cells scanned per query
IVF_RETRAIN_GROWTH = 4  # re-train once the cells average this many times IVF_LIST_TARGET
IVF_TRAIN_PER_LIST = 40  # training sample: vectors per cell (faiss asks for at least 39)
IVF_TRAIN_ITERATIONS = 10
TRAIN_SEED = 20250101
CHUNK = 65536  # vectors per add call (bounded memory, progress lines)
SAVE_GROWTH = 0.05  # an approximate index is rewritten once this share of it changed since the last save
TIE_SLACK = 8  # extra hits fetched so equal scores at the cut are ordered by id, not by FAISS
SCORE_DECIMALS = 6  # scores this close count as a tie
BRUTE_FORCE_LIMIT = 4096  # filtered approximate queries over fewer candidates are scanned exactly
PROGRESS_EVERY_S = 10.0

Hit = tuple[int, float]
Fetch = Callable[[np.ndarray], np.ndarray]  # sorted ids -> their vectors, in that order


def lists_for(size: int) -> int:
    """Cells an approximate index of `size` vectors is trained with: a power of two, about
    IVF_LIST_TARGET vectors each, at most IVF_MAX_LISTS."""
    wanted = size // IVF_LIST_TARGET
    return 1 if wanted < 2 else min(IVF_MAX_LISTS, 1 << int(math.log2(wanted)))


class VectorIndex:
    """Cosine-similarity search over (id, vector) pairs with optional id filters."""

    def __init__(self, approximate_above: int):
        self.approximate_above = approximate_above
        self._index: faiss.Index | None = None
        self._ids: np.ndarray | None = None  # cached id list; None when stale
        self._changed = 0  # vectors added or removed since the file was written or read
        self._rebuilt = False  # rebuilt since the file was written or read

    # -- state ---------------------------------------------------------------------------
    def __len__(self) -> int:
        return 0 if self._index is None else int(self._index.ntotal)

    @property
    def dim(self) -> int | None:
        return None if self._index is None else int(self._index.d)

    @property
    def approximate(self) -> bool:
        return isinstance(self._index, faiss.IndexIVF)

    @property
    def lists(self) -> int:
        """Cells of the approximate index (0 for the exact one)."""
        return int(self._index.nlist) if self.approximate else 0

    def describe(self, short: bool = False) -> str:
        """`IVF index (2048 cells, 32 scanned per query)`; with `short`, the parenthesis only."""
        if self._index is None:
            return "empty" if short else "empty index"
        if not self.approximate:
            return "exhaustive" if short else "exact index"
        cells = f"{self.lists} cells, {min(IVF_PROBES, self.lists)} scanned per query, fp16 vectors"
        return cells if short else f"IVF index ({cells})"

    def ids(self) -> np.ndarray:
        """Ids held, sorted."""
        if self._ids is None:
            if self._index is None:
                raw = np.empty(0, dtype=np.int64)
            elif self.approximate:
                lists = self._index.invlists
                parts = [
                    faiss.rev_swig_ptr(lists.get_ids(i), lists.list_size(i)).copy()
                    for i in range(self._index.nlist)
                    if lists.list_size(i)
                ]
                raw = np.concatenate(parts) if parts else np.empty(0, dtype=np.int64)
            else:
                raw = faiss.vector_to_array(self._index.id_map)
            self._ids = np.sort(raw.astype(np.int64))
        return self._ids

    def vectors(self, ids: np.ndarray) -> np.ndarray:
        """The stored vectors of `ids` (which must all be present)."""
        if len(ids) == 0:
            return np.empty((0, self.dim or 0), dtype=np.float32)
        return self._index.reconstruct_batch(np.ascontiguousarray(ids, dtype=np.int64))

    def rebuild_reason(self, size: int | None = None) -> str | None:
        """Why an index of `size` vectors (default: as held) needs rebuilding, or None."""
        size = len(self) if size is None else size
        if self._index is None or size == 0:
            return None
        if not self.approximate and size > self.approximate_above:
            return f"{size} vectors exceed approximate_above={self.approximate_above}: switching to an IVF index"
        if self.approximate and size <= self.approximate_above:
            return f"{size} vectors are within approximate_above={self.approximate_above}: back to the exact index"
        if (
            self.approximate
            and size >= IVF_RETRAIN_GROWTH * IVF_LIST_TARGET * self.lists
            and lists_for(size) > self.lists
        ):
            return f"{size} vectors outgrew the {self.lists} cells of the IVF index: re-training"
        return None

    @property
    def needs_save(self) -> bool:
        """Whether the file should be rewritten now: an exact index after any change, an
        approximate one after a rebuild or once SAVE_GROWTH of it changed (the archive
        adds what the file lacks from its rows when it opens)."""
        if not self.approximate:
            return self._changed > 0 or self._rebuilt
        return self._rebuilt or self._changed >= max(1, SAVE_GROWTH * len(self))

    @property
    def unsaved(self) -> bool:
        return self._changed > 0 or self._rebuilt

    # -- building ------------------------------------------------------------------------
    def rebuild(self, ids: np.ndarray, vectors: np.ndarray | None = None, *, fetch: Fetch | None = None) -> None:
        """Replace the contents with `ids` (sorted) and their vectors, given as an array or
        read in chunks through `fetch`; the kind (exact or IVF) follows the size."""
        ids = np.ascontiguousarray(ids, dtype=np.int64)
        if vectors is not None:
            held = np.ascontiguousarray(vectors, dtype=np.float32)
            if len(ids) > 1 and not np.all(ids[1:] > ids[:-1]):
                order = np.argsort(ids, kind="stable")
                ids, held = ids[order], held[order]

            def fetch(wanted: np.ndarray) -> np.ndarray:
                return held[np.searchsorted(ids, wanted)]

        self._index = None
        self._ids = None
        self._rebuilt = True
        self._changed = 0
        if not len(ids):
            return
        started = time.perf_counter()
        approximate = len(ids) > self.approximate_above
        if approximate:
            index = self._trained_ivf(ids, fetch)
            if len(ids) > CHUNK:
                log.info(
                    "archive: IVF cells trained (%d cells from %d vectors) in %.1f s; adding %d vectors",
                    index.nlist,
                    min(len(ids), IVF_TRAIN_PER_LIST * index.nlist),
                    time.perf_counter() - started,
                    len(ids),
                )
        else:
            index = None
        last_report = time.perf_counter()
        for start in range(0, len(ids), CHUNK):
            chunk = ids[start : start + CHUNK]
            block = np.ascontiguousarray(fetch(chunk), dtype=np.float32)
            if index is None:
                index = faiss.IndexIDMap2(faiss.IndexFlatIP(block.shape[1]))
            index.add_with_ids(block, chunk)
            if approximate and time.perf_counter() - last_report >= PROGRESS_EVERY_S and start + CHUNK < len(ids):
                last_report = time.perf_counter()
                done = start + len(chunk)
                log.info(
                    "archive: building the IVF index: %d of %d vectors (%.0f%%), %.0f s",
                    done,
                    len(ids),
                    100 * done / len(ids),
                    last_report - started,
                )
        self._index = index
        if approximate:
            log.info(
                "archive: built an %s over %d vectors in %.1f s",
                self.describe(),
                len(ids),
                time.perf_counter() - started,
            )

    def _trained_ivf(self, ids: np.ndarray, fetch: Fetch) -> faiss.IndexIVF:
        """An empty IVF index with cells trained on a fixed-seed sample of the vectors."""
        nlist = lists_for(len(ids))
        size = min(len(ids), IVF_TRAIN_PER_LIST * nlist)
        picked = np.sort(np.random.default_rng(TRAIN_SEED).choice(len(ids), size=size, replace=False))
        sample = np.vstack([fetch(ids[picked[s : s + CHUNK]]) for s in range(0, len(picked), CHUNK)]).astype(np.float32)
        dim = sample.shape[1]
        index = faiss.IndexIVFScalarQuantizer(
            faiss.IndexFlatIP(dim), dim, nlist, faiss.ScalarQuantizer.QT_fp16, faiss.METRIC_INNER_PRODUCT, False
        )  # by_residual False: a cell holds fp16 copies of its vectors, nothing relative to its centroid
        index.cp.niter = IVF_TRAIN_ITERATIONS
        index.cp.seed = TRAIN_SEED
        index.cp.spherical = True  # unit centroids: cells by angle, like the vectors
        index.cp.min_points_per_centroid = 1  # small indexes train on few points, quietly
        index.train(sample)
        index.set_direct_map_type(faiss.DirectMap.Hashtable)  # vectors back by id, removal by id
        index.nprobe = min(IVF_PROBES, nlist)
        return index

    def add(self, ids: np.ndarray, vectors: np.ndarray, *, fetch: Fetch | None = None) -> None:
        """Add vectors (ids above or beside those held). Rebuilds when the size calls for
        another kind or more cells, reading every vector through `fetch` (which must know
        the new ones too) or, without it, from the index itself."""
        if len(ids) == 0:
            return
        ids = np.ascontiguousarray(ids, dtype=np.int64)
        vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        reason = self.rebuild_reason(len(self) + len(ids)) if self._index is not None else None
        if self._index is None or reason:
            if reason:
                log.info("archive: %s", reason)
            held = self.ids()
            if len(held) == 0:
                self.rebuild(ids, vectors)  # everything is at hand
            elif fetch is not None:
                self.rebuild(np.union1d(held, ids), fetch=fetch)
            else:
                everything = np.concatenate([held, ids])
                order = np.argsort(everything, kind="stable")
                self.rebuild(everything[order], np.vstack([self.vectors(held), vectors])[order])
            return
        self._index.add_with_ids(vectors, ids)
        self._ids = None
        self._changed += len(ids)

    def remove(self, ids: np.ndarray) -> int:
        """Drop the vectors of `ids` (absent ones are ignored); returns how many were held."""
        ids = np.intersect1d(np.asarray(ids, dtype=np.int64), self.ids())
        if len(ids) == 0:
            return 0
        ids = np.ascontiguousarray(ids)
        removed = int(self._index.remove_ids(faiss.IDSelectorArray(len(ids), faiss.swig_ptr(ids))))
        self._ids = None
        self._changed += removed
        if len(self) == 0:
            self._index = None
        return removed

    # -- persistence ---------------------------------------------------------------------
    def save(self, path: Path) -> None:
        """Write atomically: a temp file, fsync, rename, fsync the folder. Empty index -> no file."""
        if self._index is None:
            path.unlink(missing_ok=True)
            _fsync_dir(path.parent)
        else:
            tmp = path.with_name(path.name + ".tmp")
            faiss.write_index(self._index, str(tmp))
            with open(tmp, "rb") as handle:
                os.fsync(handle.fileno())
            os.replace(tmp, path)
            _fsync_dir(path.parent)
        self._changed = 0
        self._rebuilt = False

    def load(self, path: Path) -> None:
        """Read an index file; raises on a missing, unreadable or foreign file."""
        index = faiss.read_index(str(path))
        if isinstance(index, faiss.IndexIDMap2):
            inner = faiss.downcast_index(index.index)
            if not isinstance(inner, faiss.IndexFlat):
                raise ValueError(f"{path.name} holds an IDMap over {type(inner).__name__} (an older archive's index)")
        elif isinstance(index, (faiss.IndexIVFScalarQuantizer, faiss.IndexIVFFlat)):
            if index.direct_map.type != faiss.DirectMap.Hashtable:
                index.set_direct_map_type(faiss.DirectMap.Hashtable)
            index.nprobe = min(IVF_PROBES, index.nlist)
        else:
            raise ValueError(f"{path.name} holds a {type(index).__name__}, not an archive index")
        self._index = index
        self._ids = None
        self._changed = 0
        self._rebuilt = False

    # -- search --------------------------------------------------------------------------
    def search(
        self,
        queries: np.ndarray,
        k: int,
        allowed: np.ndarray | None = None,
        exclude: np.ndarray | None = None,
        exact: bool = False,
    ) -> list[list[Hit]]:
        """Top-k (id, cosine) per query, best first, ties by id.

        `allowed` (unique ids, all held by the index) restricts the search to those ids;
        `exclude` (a few ids) leaves those out, by fetching that many more neighbours.
        `exact` scans every cell of an approximate index.
        """
        queries = np.ascontiguousarray(np.atleast_2d(queries), dtype=np.float32)
        if self._index is None or k <= 0:
            return [[] for _ in queries]
        if allowed is not None:
            if len(allowed) >= len(self):
                allowed = None  # the filter keeps everything: plain search is faster
            elif len(allowed) == 0:
                return [[] for _ in queries]
        blocked = self._held(exclude)
        if allowed is not None and len(blocked):
            allowed, blocked = allowed[~in_sorted(allowed, blocked)], blocked[:0]
        pool = len(allowed) if allowed is not None else len(self) - len(blocked)
        want = min(k, pool)
        if want <= 0:
            return [[] for _ in queries]
        if allowed is not None and self.approximate and len(allowed) <= BRUTE_FORCE_LIMIT:
            return self._scan(queries, want, allowed)
        fetch = min(len(self), want + TIE_SLACK + len(blocked))
        params, _keep_alive = self._search_params(allowed, exact)
        scores, labels = self._index.search(queries, fetch, params=params)
        results = [_ordered(lab, sc, want, blocked) for lab, sc in zip(labels, scores)]
        if self.approximate and not exact and any(len(r) < want for r in results):
            # the scanned cells held too few (allowed) vectors: scan them all
            return self.search(queries, k, allowed=allowed, exclude=blocked, exact=True)
        return results

    def exact_search(self, queries: np.ndarray, k: int) -> list[list[Hit]]:
        """Exhaustive search over every held vector, whatever the index kind (for recall)."""
        return self.search(queries, k, exact=True)

    def _held(self, exclude: np.ndarray | None) -> np.ndarray:
        if exclude is None or len(exclude) == 0 or self._index is None:
            return np.empty(0, dtype=np.int64)
        exclude = np.unique(np.asarray(exclude, dtype=np.int64))
        return exclude[in_sorted(exclude, self.ids())]

    def _scan(self, queries: np.ndarray, k: int, ids: np.ndarray) -> list[list[Hit]]:
        scores = queries @ self.vectors(ids).T
        fetch = min(len(ids), k + TIE_SLACK)
        results = []
        for row in scores:
            top = np.argpartition(-row, fetch - 1)[:fetch] if fetch < len(ids) else slice(None)
            results.append(_ordered(ids[top], row[top], k))
        return results

    def _search_params(self, allowed: np.ndarray | None, exact: bool):
        if self.approximate:
            params = faiss.SearchParametersIVF()
            probes = IVF_PROBES
            if allowed is not None:  # as many allowed vectors scanned as an unfiltered query sees
                probes = math.ceil(IVF_PROBES * len(self) / len(allowed))
            params.nprobe = self.lists if exact else min(self.lists, probes)
        elif allowed is None:
            return None, None
        else:
            params = faiss.SearchParameters()
        if allowed is None:
            return params, None
        # A bitmap over ids is built in microseconds with numpy, unlike a hash set of 100k ids.
        bits = np.zeros(int(allowed.max()) + 1, dtype=bool)
        bits[allowed] = True
        bitmap = np.packbits(bits, bitorder="little")
        selector = faiss.IDSelectorBitmap(len(bitmap), faiss.swig_ptr(bitmap))
        params.sel = selector
        return params, (selector, bitmap)  # faiss keeps pointers only: the caller holds these alive


def in_sorted(values: np.ndarray, sorted_ids: np.ndarray) -> np.ndarray:
    """Boolean mask: which of `values` are in `sorted_ids` (sorted, unique)."""
    if len(sorted_ids) == 0:
        return np.zeros(len(values), dtype=bool)
    positions = np.minimum(np.searchsorted(sorted_ids, values), len(sorted_ids) - 1)
    return sorted_ids[positions] == values


def _ordered(labels: np.ndarray, scores: np.ndarray, k: int, blocked: np.ndarray | None = None) -> list[Hit]:
    """Best-first (id, score) pairs; equal (rounded) scores ordered by id; FAISS -1 padding
    and `blocked` ids (sorted) dropped."""
    keep = labels >= 0
    if blocked is not None and len(blocked):
        keep &= ~in_sorted(labels, blocked)
    pairs = [(int(i), min(1.0, float(s))) for i, s in zip(labels[keep], scores[keep])]  # 1.0000001 is rounding
    pairs.sort(key=lambda p: (-round(p[1], SCORE_DECIMALS), p[0]))
    return pairs[:k]


def _fsync_dir(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
