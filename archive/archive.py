"""The experience store of a run: task rows in SQLite, their embeddings in a FAISS index.

Consistency rule: rows are committed first, then the index file is rewritten atomically. A
kill between the two leaves an index that lags the rows; `Archive.open` compares the id sets
and repairs the index from the embeddings stored with the rows whenever they differ: an exact
index is rebuilt, an approximate (IVF) one gets the missing vectors added and the vectors of
deleted rows removed, so a resume never pays for a full rebuild. For the same reason a large
approximate index file is rewritten only once 5% of it changed (and on close), not after
every generation.
"""

from __future__ import annotations

import fcntl
import logging
import sqlite3
import threading
import time
from pathlib import Path

import numpy as np

from .embedder import DEFAULT_MODEL, Embedder, get_embedder, resolve_model
from .errors import ArchiveError
from .index import CHUNK, IVF_PROBES, VectorIndex, in_sorted
from .store import TASK_FILTERS, Store
from .text import task_text, text_hash

log = logging.getLogger("archive")

DB_FILE = "archive.sqlite"
INDEX_FILE = "index.faiss"
LOCK_FILE = "archive.lock"
RECALL_K = 10
RECALL_SAMPLE = 200
# Exhaustive search of one query passes 2 ms near here (bench/archive_novelty.py measured 18.6k
# vectors on a busy 2-core machine, 31k on a quieter one); above it the IVF index takes over.
APPROXIMATE_ABOVE = 20000
EXCLUDE_LIMIT = 1024  # up to this many left-out ids are dropped from an over-fetch, not filtered


class Archive:
    """Tasks, failures, strategies and generation stats of one run, with vector search over tasks.

    Novelty, duplicates and similar successes are computed against successful tasks
    (`passed` true) only; `nearest` searches every task unless filtered.
    """

    def __init__(
        self,
        folder: Path,
        store: Store,
        index: VectorIndex,
        *,
        model: str,
        k: int,
        duplicate_threshold: float,
        embedder: Embedder | None,
        read_only: bool,
        lock_handle=None,
    ):
        self.folder = folder
        self.model = model
        self.k = k
        self.duplicate_threshold = duplicate_threshold
        self.read_only = read_only
        self._store = store
        self._index = index
        self._embedder = embedder
        self._lock_handle = lock_handle
        self._mutex = threading.RLock()
        self._passed_ids = store.task_ids(passed=True)
        self._failed_ids = store.task_ids(passed=False)

    # -- opening and closing --------------------------------------------------------------
    @classmethod
    def open(
        cls,
        path: Path,
        *,
        model: str = DEFAULT_MODEL,
        k: int = 5,
        duplicate_threshold: float = 0.95,
        approximate_above: int = APPROXIMATE_ABOVE,
        embedder: Embedder | None = None,
        read_only: bool = False,
    ) -> Archive:
        """Open (creating unless read_only) the archive folder `path`; repairs a stale index."""
        folder = Path(path)
        if k < 1:
            raise ArchiveError(f"The novelty neighbour count k must be at least 1, got {k}.")
        if embedder is not None:
            model = embedder.model_name
        lock_handle = None
        if read_only:
            if not (folder / DB_FILE).is_file():
                raise ArchiveError(f"No archive at {folder} to open read-only.")
        else:
            try:
                folder.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise ArchiveError(f"Cannot create the archive folder {folder}: {exc.strerror}.") from exc
            lock_handle = _lock_for_writing(folder)
        try:
            try:
                store = Store(folder / DB_FILE, read_only=read_only)
            except sqlite3.DatabaseError as exc:
                raise ArchiveError(f"{folder / DB_FILE} is not a usable archive database: {exc}.") from exc
            _check_model(store, model, folder)
            index = VectorIndex(approximate_above)
            archive = cls(
                folder,
                store,
                index,
                model=model,
                k=k,
                duplicate_threshold=duplicate_threshold,
                embedder=embedder,
                read_only=read_only,
                lock_handle=lock_handle,
            )
            archive._load_or_rebuild_index()
        except BaseException:
            if lock_handle is not None:
                lock_handle.close()
            raise
        return archive

    def close(self) -> None:
        with self._mutex:
            if not self.read_only and self._lock_handle is not None and self._index.unsaved:
                self._index.save(self.folder / INDEX_FILE)  # what the deferred saves left out
            self._store.close()
            if self._lock_handle is not None:
                self._lock_handle.close()
                self._lock_handle = None

    def __enter__(self) -> Archive:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    def _load_or_rebuild_index(self) -> None:
        """Load the index file if it holds exactly the ids of the rows; otherwise repair it
        (approximate index: add and remove the difference) or rebuild it (exact index)."""
        row_ids = self._store.task_ids()
        index_file = self.folder / INDEX_FILE
        if not index_file.is_file():
            if len(row_ids):
                self._rebuild_index(f"index diverged from rows (0 vs {len(row_ids)})", row_ids)
            return
        try:
            self._index.load(index_file)
        except Exception as exc:  # faiss raises RuntimeError for a truncated or foreign file
            self._rebuild_index(f"index file unreadable ({exc})", row_ids)
            return
        held = self._index.ids()
        if not np.array_equal(held, row_ids):
            if self._index.approximate:
                self._catch_up(held, row_ids)
            else:
                self._rebuild_index(f"index diverged from rows ({len(held)} vs {len(row_ids)})", row_ids)
                return
        reason = self._index.rebuild_reason()
        if reason:  # approximate_above changed since the file was written, or the rows grew past it
            self._rebuild_index(reason, row_ids, warn=False)
        elif self._index.needs_save and not self.read_only:
            self._index.save(index_file)

    def _catch_up(self, held: np.ndarray, row_ids: np.ndarray) -> None:
        """Bring an approximate index to the rows: add the missing vectors, drop deleted ones."""
        missing = np.setdiff1d(row_ids, held, assume_unique=True)
        deleted = np.setdiff1d(held, row_ids, assume_unique=True)
        log.info(  # the normal state after deferred saves (or a kill): nothing is rebuilt
            "archive: index lags rows (%d vs %d): adding %d missing vectors, removing %d",
            len(held),
            len(row_ids),
            len(missing),
            len(deleted),
        )
        started = time.perf_counter()
        self._index.remove(deleted)
        for start in range(0, len(missing), CHUNK):
            chunk = missing[start : start + CHUNK]
            self._index.add(chunk, self._fetch_embeddings(chunk), fetch=self._fetch_embeddings)
        log.info("archive: index repaired in %.1f s", time.perf_counter() - started)

    def _rebuild_index(self, reason: str | None, row_ids: np.ndarray | None = None, warn: bool = True) -> None:
        if reason:
            (log.warning if warn else log.info)("archive: %s, rebuilt from stored embeddings", reason)
        row_ids = self._store.task_ids() if row_ids is None else row_ids
        self._index.rebuild(row_ids, fetch=self._fetch_embeddings)
        if not self.read_only:
            self._index.save(self.folder / INDEX_FILE)

    def _fetch_embeddings(self, ids: np.ndarray) -> np.ndarray:
        """Stored embeddings of row ids (sorted), in that order, read in bounded chunks."""
        return self._store.embeddings_of(ids)

    # -- embedding ------------------------------------------------------------------------
    @property
    def embedder(self) -> Embedder:
        """The embedding model, loaded on first use (listing rows never needs it)."""
        if self._embedder is None:
            self._embedder = get_embedder(self.model)
        return self._embedder

    def embed(self, texts: list[str]) -> np.ndarray:
        return self.embedder.encode(list(texts))

    # -- writing --------------------------------------------------------------------------
    def add_tasks(self, tasks: list[dict], generation: int, vectors: np.ndarray | None = None) -> list[int]:
        """Store tasks (rows and vectors); returns row ids in input order.

        Re-adding an instance_id returns its existing id and changes nothing. `vectors`
        (one L2-normalised row per task) skips the embedding model, for imports and benchmarks.
        """
        self._require_writable("add tasks")
        for position, task in enumerate(tasks):
            _check_task(task, position)
        if vectors is not None and len(vectors) != len(tasks):
            raise ArchiveError(f"Got {len(vectors)} vectors for {len(tasks)} tasks; give one per task.")
        with self._mutex:
            known = self._store.task_ids_by_instance(str(t["instance_id"]) for t in tasks)
            fresh = _first_new_positions(tasks, known)
            if fresh:
                given = None if vectors is None else _normalised(np.asarray(vectors, dtype=np.float32)[fresh])
                known.update(self._insert_tasks([tasks[i] for i in fresh], generation, given))
            return [known[str(t["instance_id"])] for t in tasks]

    def _insert_tasks(self, tasks: list[dict], generation: int, vectors: np.ndarray | None) -> dict[str, int]:
        """Commit new rows with their embeddings, then add the vectors; {instance_id: row id}."""
        texts = [task_text(t) for t in tasks]
        hashes = [text_hash(t) for t in texts]
        if vectors is None:
            vectors = self._vectors_for(texts, hashes)
        self._check_dim(vectors)
        ids: dict[str, int] = {}
        with self._store.transaction() as db:
            self._store.set_meta(db, "model", self.model)
            for task, digest, vector in zip(tasks, hashes, vectors):
                ids[str(task["instance_id"])] = self._store.insert_task(
                    db, task, generation, _passed(task), digest, vector
                )
        new_ids = np.asarray(list(ids.values()), dtype=np.int64)
        passed = np.concatenate(
            [self._passed_ids, np.asarray([ids[str(t["instance_id"])] for t in tasks if _passed(t)], dtype=np.int64)]
        )
        failed = np.concatenate(
            [
                self._failed_ids,
                np.asarray([ids[str(t["instance_id"])] for t in tasks if not _passed(t)], dtype=np.int64),
            ]
        )
        self._after_rows_changed(
            lambda: self._index.add(new_ids, vectors, fetch=self._fetch_embeddings), passed, failed
        )
        return ids

    def add_failures(self, failures: list[dict], generation: int) -> None:
        """Record why tasks of a strategy failed (strategy_id, strategy_type, category, detail, ...)."""
        self._require_writable("add failures")
        for position, failure in enumerate(failures):
            if not isinstance(failure, dict) or not failure.get("category"):
                raise ArchiveError(f"Failure #{position} needs a dict with a non-empty 'category'.")
        with self._mutex, self._store.transaction() as db:
            for failure in failures:
                self._store.insert_failure(db, failure, generation)

    def add_strategy(self, strategy: dict, generation: int) -> None:
        """Insert or update a strategy genome (by its id) as of `generation`."""
        self._require_writable("add a strategy")
        if not isinstance(strategy, dict) or strategy.get("id") in (None, ""):
            raise ArchiveError("A strategy needs a dict with a non-empty 'id'.")
        with self._mutex, self._store.transaction() as db:
            self._store.upsert_strategy(db, strategy, generation)

    def add_generation(self, generation: int, stats: dict) -> None:
        self._require_writable("add generation stats")
        with self._mutex, self._store.transaction() as db:
            self._store.upsert_generation(db, generation, stats)

    def truncate_after(self, generation: int) -> int:
        """Delete every row (tasks, failures, strategy versions, stats) newer than `generation`
        and their vectors; returns the number of rows removed across the tables."""
        self._require_writable("truncate")
        with self._mutex:
            with self._store.transaction() as db:
                removed = self._store.delete_after(db, generation)
            if removed:
                self._after_rows_changed(
                    self._drop_deleted_vectors, self._store.task_ids(passed=True), self._store.task_ids(passed=False)
                )
            return removed

    def _drop_deleted_vectors(self) -> None:
        """Remove the vectors of deleted rows; rebuild only if the size now calls for the other kind."""
        row_ids = self._store.task_ids()
        self._index.remove(np.setdiff1d(self._index.ids(), row_ids, assume_unique=True))
        reason = self._index.rebuild_reason()
        if reason:
            log.info("archive: %s", reason)
            self._index.rebuild(row_ids, fetch=self._fetch_embeddings)

    def _after_rows_changed(self, update_index, passed_ids: np.ndarray, failed_ids: np.ndarray) -> None:
        """Bring the in-memory index and caches up to the committed rows, then persist the index
        (an approximate index only after a rebuild or once enough of it changed)."""
        was_approximate = self._index.approximate
        update_index()
        self._passed_ids = passed_ids  # ids only grow (AUTOINCREMENT), so these stay sorted
        self._failed_ids = failed_ids
        if self._index.approximate and not was_approximate:
            log.info(
                "archive: switched to an approximate IVF index at %d vectors (%s; recall@%d %.3f vs exact)",
                len(self._index),
                self._index.describe(short=True),
                RECALL_K,
                self.measure_recall(),
            )
        if self._index.needs_save:
            self._index.save(self.folder / INDEX_FILE)

    def _vectors_for(self, texts: list[str], hashes: list[str]) -> np.ndarray:
        """Embeddings, reusing those already stored for the same text before asking the model."""
        stored = self._store.embeddings_by_hash(hashes)
        missing = [i for i, digest in enumerate(hashes) if digest not in stored]
        computed = dict(zip(missing, self.embed([texts[i] for i in missing]))) if missing else {}
        return np.vstack([computed[i] if i in computed else stored[digest] for i, digest in enumerate(hashes)])

    def _check_dim(self, vectors: np.ndarray) -> None:
        dim = self._index.dim
        if dim is not None and vectors.shape[1] != dim:
            raise ArchiveError(f"Vectors of dimension {vectors.shape[1]} do not fit this archive's {dim}.")

    def _require_writable(self, action: str) -> None:
        if self.read_only:
            raise ArchiveError(f"Cannot {action}: the archive at {self.folder} was opened read-only.")

    # -- vector queries -------------------------------------------------------------------
    def novelty(self, texts: list[str], k: int | None = None) -> list[float]:
        """1 - mean cosine similarity to the k nearest successful tasks, per text, in [0, 1]."""
        if not texts:
            return []
        if len(self._passed_ids) == 0:
            return [1.0] * len(texts)
        return self.novelty_vectors(self.embed(list(texts)), k)

    def novelty_vectors(
        self, vectors: np.ndarray, k: int | None = None, exclude: np.ndarray | None = None
    ) -> list[float]:
        """Novelty of already-embedded queries; `exclude` drops those row ids from the neighbours."""
        vectors = np.atleast_2d(vectors)
        with self._mutex:
            hits = self._search_successes(vectors, k or self.k, exclude)
        return [float(np.clip(1.0 - np.mean([s for _, s in row]), 0.0, 1.0)) if row else 1.0 for row in hits]

    def _search_successes(self, vectors: np.ndarray, k: int, exclude: np.ndarray | None = None) -> list[list]:
        """The k nearest successful tasks of each vector, leaving out the row ids `exclude`.

        A few left-out ids (failed tasks, the queried tasks' own rows) are dropped from a
        slightly longer unfiltered search, which costs nothing at a million vectors; many go
        through an id filter.
        """
        exclude = np.empty(0, dtype=np.int64) if exclude is None else np.asarray(exclude, dtype=np.int64)
        blocked = np.union1d(self._failed_ids, exclude)
        if len(blocked) <= EXCLUDE_LIMIT:
            return self._index.search(vectors, k, exclude=blocked)
        allowed = np.setdiff1d(self._passed_ids, exclude, assume_unique=True) if len(exclude) else self._passed_ids
        return self._index.search(vectors, k, allowed=allowed)

    def task_novelty(self, task: dict) -> float:
        """Novelty of a task record (statement + patch summary), ignoring the task itself if archived."""
        if not isinstance(task, dict) or not str(task.get("problem_statement") or "").strip():
            raise ArchiveError("task_novelty needs a task record with a problem_statement.")
        own = self._store.task_ids_by_instance([str(task["instance_id"])]) if "instance_id" in task else {}
        vector = self.embed([task_text(task)])
        return self.novelty_vectors(vector, exclude=np.asarray(list(own.values()), dtype=np.int64))[0]

    def novelty_of_tasks(self, tasks: list[dict], peers: bool = False, k: int | None = None) -> list[float]:
        """Novelty of each task record against the successful archived tasks, leave-one-out.

        A task's own archived row (same instance_id) is never its neighbour. With `peers`, the
        other tasks of the list count as neighbours too (a generation scored against the
        archive *and* itself), and archived rows of listed instance_ids are left out so
        nothing counts twice. Stored embeddings are reused for texts already archived.
        """
        if not tasks:
            return []
        for position, task in enumerate(tasks):
            _check_task(task, position)
        texts = [task_text(t) for t in tasks]
        vectors = self._vectors_for(texts, [text_hash(t) for t in texts]).astype(np.float32)
        k = k or self.k
        with self._mutex:
            own = self._store.task_ids_by_instance(str(t["instance_id"]) for t in tasks)
            own_ids = np.unique(np.asarray(list(own.values()), dtype=np.int64))
            archived_ids = set(own_ids[in_sorted(own_ids, self._passed_ids)].tolist())
            archived = self._search_successes(vectors, k, own_ids)
        # the listed tasks themselves: all of them with `peers`, else those archived as successes
        in_reference = [peers or own.get(str(t["instance_id"])) in archived_ids for t in tasks]
        peer_scores = vectors @ vectors.T
        values = []
        for i, hits in enumerate(archived):
            scores = [s for _, s in hits]
            scores += [
                float(s)
                for j, s in enumerate(peer_scores[i])
                if in_reference[j] and tasks[j]["instance_id"] != tasks[i]["instance_id"]
            ]
            nearest = sorted(scores, reverse=True)[:k]
            values.append(float(np.clip(1.0 - np.mean(nearest), 0.0, 1.0)) if nearest else 1.0)
        return values

    def nearest(self, text: str, k: int = 5, **filters) -> list[tuple[dict, float]]:
        """The k most similar tasks with their cosine similarity, optionally filtered by
        strategy_type, strategy_id, difficulty_level, domain or passed."""
        unknown = sorted(set(filters) - set(TASK_FILTERS))
        if unknown:
            raise ArchiveError(f"Unknown filter {unknown[0]!r}; use one of {', '.join(TASK_FILTERS)}.")
        vector = self.embed([text])
        with self._mutex:
            allowed = self._allowed_ids(filters)
            hits = self._index.search(vector, k, allowed=allowed)[0]
            records = self._store.records(i for i, _ in hits)
        return [(records[i], score) for i, score in hits]

    def _allowed_ids(self, filters: dict) -> np.ndarray | None:
        active = {name: value for name, value in filters.items() if value is not None}
        if not active:
            return None
        if active == {"passed": True}:
            return self._passed_ids  # the hot path of novelty and retrieval, kept in memory
        # a read-only reader may see rows a writer added after its index snapshot: keep held ids only
        return np.intersect1d(self._store.task_ids(**active), self._index.ids(), assume_unique=True)

    def similar_successes(self, text: str, k: int = 3, strategy_type: str | None = None) -> list[dict]:
        """The k successful tasks most similar to `text` (examples for a generation prompt)."""
        return [record for record, _ in self.nearest(text, k, passed=True, strategy_type=strategy_type)]

    def is_duplicate(self, text: str) -> tuple[bool, float]:
        """(similarity >= duplicate_threshold, highest cosine similarity to a successful task)."""
        hits = self.nearest(text, 1, passed=True)
        best = hits[0][1] if hits else 0.0
        return best >= self.duplicate_threshold, best

    def measure_recall(
        self, queries: np.ndarray | None = None, k: int = RECALL_K, sample: int = RECALL_SAMPLE, seed: int = 0
    ) -> float:
        """Share of the exact top-k that the index returns (1.0 for the exact index)."""
        with self._mutex:
            if len(self._index) == 0:
                return 1.0
            if queries is None:
                ids = self._index.ids()
                chosen = np.random.default_rng(seed).choice(ids, size=min(sample, len(ids)), replace=False)
                queries = self._index.vectors(np.sort(chosen))
            got = self._index.search(queries, k)
            truth = self._index.exact_search(queries, k)
        overlaps = [len({i for i, _ in g} & {i for i, _ in t}) / max(1, len(t)) for g, t in zip(got, truth)]
        return float(np.mean(overlaps))

    def index_ids(self) -> list[int]:
        """Row ids held by the vector index (equal to `row_ids()` in a consistent archive)."""
        with self._mutex:
            return [int(i) for i in self._index.ids()]

    def row_ids(self) -> list[int]:
        with self._mutex:
            return [int(i) for i in self._store.task_ids()]

    def index_info(self) -> dict:
        """The vector index: kind ("exact" or "ivf"), vectors, cells and cells scanned per query."""
        with self._mutex:
            index = self._index
            cells = index.lists
            return {
                "kind": "ivf" if index.approximate else "exact",
                "vectors": len(index),
                "cells": cells,
                "probes": min(IVF_PROBES, cells),
            }

    @property
    def approximate(self) -> bool:
        """Whether the vector index is the approximate (IVF) one."""
        return self._index.approximate

    # -- row queries ----------------------------------------------------------------------
    def recent_failures(
        self, strategy_id: str | None = None, strategy_type: str | None = None, n: int = 10, categories=None
    ) -> list[dict]:
        """Newest failures first (by generation, then insertion), each with its category;
        `categories` keeps only those categories."""
        with self._mutex:
            return self._store.recent_failures(strategy_id, strategy_type, n, categories)

    def query(self, *, strategy_type=None, difficulty_level=None, domain=None, passed=None, limit=None) -> list[dict]:
        """Task records matching every given field (SQL indexes), ordered by id."""
        with self._mutex:
            return self._store.query_tasks(
                limit=limit,
                strategy_type=strategy_type,
                difficulty_level=difficulty_level,
                domain=domain,
                passed=passed,
            )

    def tasks(self, max_generation: int | None = None) -> list[dict]:
        with self._mutex:
            return self._store.query_tasks(max_generation=max_generation)

    def strategies(self, max_generation: int | None = None) -> list[dict]:
        """Latest stored version of each strategy as of `max_generation`, ordered by id."""
        with self._mutex:
            return self._store.strategies(max_generation)

    def generations(self) -> list[tuple[int, dict]]:
        with self._mutex:
            return self._store.generations()

    def count(self) -> int:
        with self._mutex:
            return self._store.task_count()

    def count_passed(self) -> int:
        """Successful tasks: the reference that novelty is measured against."""
        with self._mutex:
            return len(self._passed_ids)


def _lock_for_writing(folder: Path):
    handle = open(folder / LOCK_FILE, "a")
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.close()
        raise ArchiveError(
            f"The archive at {folder} is already open for writing; close it first or open it read_only=True."
        ) from None
    return handle


def _check_model(store: Store, model: str, folder: Path) -> None:
    try:
        stored = store.meta("model")
    except sqlite3.DatabaseError as exc:
        raise ArchiveError(f"{folder / DB_FILE} is not a readable archive database: {exc}.") from exc
    if stored is not None and not _same_model(stored, model):
        raise ArchiveError(
            f"The archive at {folder} holds embeddings of model {stored!r}, not {model!r}; open it with that model."
        )


def _same_model(a: str, b: str) -> bool:
    """Names or paths that load the same model folder count as the same model."""
    if a == b:
        return True
    try:
        return resolve_model(a) == resolve_model(b)
    except ArchiveError:
        return False


def _check_task(task: dict, position: int) -> None:
    if not isinstance(task, dict):
        raise ArchiveError(f"Task #{position} is a {type(task).__name__}, not a task record dict.")
    if task.get("instance_id") in (None, ""):
        raise ArchiveError(f"Task #{position} has no instance_id.")
    if not str(task.get("problem_statement") or "").strip():
        raise ArchiveError(f"Task {task['instance_id']} has no problem_statement to embed.")


def _first_new_positions(tasks: list[dict], known: dict[str, int]) -> list[int]:
    """Positions of the first occurrence of each instance_id not yet stored."""
    fresh, seen = [], set()
    for position, task in enumerate(tasks):
        key = str(task["instance_id"])
        if key not in known and key not in seen:
            seen.add(key)
            fresh.append(position)
    return fresh


def _passed(task: dict) -> bool:
    return bool(task.get("passed", True))


def _normalised(vectors: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return (vectors / np.where(norms == 0, 1, norms)).astype(np.float32)
