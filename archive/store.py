"""SQLite rows of the archive: tasks (with their embeddings), failures, strategies, generations.

WAL journal, synchronous=FULL, one transaction per write call: a write that returned is on disk.
The four lookups of SEBGen §3.7 are the FAISS vectors plus the SQL indexes on strategy type,
difficulty level and domain.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from .errors import ArchiveError

SCHEMA_VERSION = "1"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS tasks (
    id INTEGER PRIMARY KEY AUTOINCREMENT,  -- never reused, so a stale vector id cannot alias a new row
    instance_id TEXT NOT NULL UNIQUE,
    generation INTEGER NOT NULL,
    strategy_id TEXT,
    strategy_type TEXT,
    difficulty REAL,
    difficulty_level TEXT,
    domain TEXT,
    passed INTEGER NOT NULL,
    text_hash TEXT NOT NULL,
    embedding BLOB NOT NULL,
    record TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS tasks_strategy_type ON tasks(strategy_type);
CREATE INDEX IF NOT EXISTS tasks_difficulty_level ON tasks(difficulty_level);
CREATE INDEX IF NOT EXISTS tasks_domain ON tasks(domain);
CREATE INDEX IF NOT EXISTS tasks_passed ON tasks(passed);
CREATE INDEX IF NOT EXISTS tasks_generation ON tasks(generation);
CREATE INDEX IF NOT EXISTS tasks_text_hash ON tasks(text_hash);
CREATE TABLE IF NOT EXISTS failures (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    generation INTEGER NOT NULL,
    strategy_id TEXT,
    strategy_type TEXT,
    category TEXT,
    record TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS failures_strategy_id ON failures(strategy_id);
CREATE INDEX IF NOT EXISTS failures_strategy_type ON failures(strategy_type);
-- one row per strategy per generation, so truncating a later generation restores the earlier version
CREATE TABLE IF NOT EXISTS strategies (
    id TEXT NOT NULL,
    generation INTEGER NOT NULL,
    strategy_type TEXT,
    record TEXT NOT NULL,
    PRIMARY KEY (id, generation)
);
CREATE TABLE IF NOT EXISTS generations (generation INTEGER PRIMARY KEY, stats TEXT NOT NULL);
"""

TASK_FILTERS = ("strategy_type", "strategy_id", "difficulty_level", "domain", "passed")
FETCH_IDS = 500  # ids per SQL IN list when reading stored embeddings


def _encode_vector(vector: np.ndarray) -> bytes:
    return np.ascontiguousarray(vector, dtype="<f4").tobytes()


def _decode_vector(blob: bytes) -> np.ndarray:
    return np.frombuffer(blob, dtype="<f4").astype(np.float32)


def _level(value) -> str | None:
    return None if value is None else str(value)


class Store:
    """The SQLite half of the archive."""

    def __init__(self, path: Path, read_only: bool = False):
        self.path = path
        self.read_only = read_only
        if read_only:
            uri = Path(path).resolve().as_uri() + "?mode=ro"  # as_uri escapes spaces, '?' and '#'
            self._db = sqlite3.connect(uri, uri=True, check_same_thread=False)
        else:
            self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.executescript(_SCHEMA)
            self._db.execute("INSERT OR IGNORE INTO meta VALUES ('schema_version', ?)", (SCHEMA_VERSION,))
        self._db.execute("PRAGMA busy_timeout=10000")

    def close(self) -> None:
        self._db.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """BEGIN IMMEDIATE ... COMMIT, rolled back on any exception."""
        self._db.execute("BEGIN IMMEDIATE")
        try:
            yield self._db
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        self._db.execute("COMMIT")

    # -- meta ----------------------------------------------------------------------------
    def meta(self, key: str) -> str | None:
        row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else row[0]

    def set_meta(self, db: sqlite3.Connection, key: str, value: str) -> None:
        db.execute("INSERT INTO meta VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value", (key, value))

    # -- tasks ---------------------------------------------------------------------------
    def task_ids_by_instance(self, instance_ids: Iterable[str]) -> dict[str, int]:
        found = {}
        for chunk in _chunks(list(instance_ids), 500):
            marks = ",".join("?" * len(chunk))
            for instance_id, row_id in self._db.execute(
                f"SELECT instance_id, id FROM tasks WHERE instance_id IN ({marks})", chunk
            ):
                found[instance_id] = row_id
        return found

    def embeddings_by_hash(self, hashes: Iterable[str]) -> dict[str, np.ndarray]:
        """Stored embeddings of texts already archived (a persistent cache across processes)."""
        found = {}
        for chunk in _chunks(list(set(hashes)), 500):
            marks = ",".join("?" * len(chunk))
            for text_hash, blob in self._db.execute(
                f"SELECT text_hash, embedding FROM tasks WHERE text_hash IN ({marks})", chunk
            ):
                found[text_hash] = _decode_vector(blob)
        return found

    def insert_task(
        self, db: sqlite3.Connection, task: dict, generation: int, passed: bool, text_hash: str, embedding: np.ndarray
    ) -> int:
        cursor = db.execute(
            "INSERT INTO tasks (instance_id, generation, strategy_id, strategy_type, difficulty,"
            " difficulty_level, domain, passed, text_hash, embedding, record)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                str(task["instance_id"]),
                generation,
                _level(task.get("strategy_id")),
                _level(task.get("strategy_type")),
                _float_or_none(task.get("difficulty")),
                _level(task.get("difficulty_level")),
                _level(task.get("domain")),
                int(passed),
                text_hash,
                _encode_vector(embedding),
                json.dumps(task, sort_keys=True, default=str),
            ),
        )
        return int(cursor.lastrowid)

    def all_embeddings(self) -> tuple[np.ndarray, np.ndarray]:
        """(ids, vectors) of every task, ordered by id."""
        ids, vectors = [], []
        for row_id, blob in self._db.execute("SELECT id, embedding FROM tasks ORDER BY id"):
            ids.append(row_id)
            vectors.append(_decode_vector(blob))
        if not ids:
            return np.empty(0, dtype=np.int64), np.empty((0, 0), dtype=np.float32)
        return np.asarray(ids, dtype=np.int64), np.vstack(vectors)

    def embeddings_of(self, ids: np.ndarray) -> np.ndarray:
        """Stored embeddings of the row ids `ids` (sorted, all present), in that order.

        A dense run of ids is read as one id range, scattered ids as IN lists; either way in
        chunks, so a million rows never sit in memory twice.
        """
        ids = np.asarray(ids, dtype=np.int64)
        if len(ids) == 0:
            return np.empty((0, 0), dtype=np.float32)
        found: dict[int, bytes] = {}
        if int(ids[-1] - ids[0]) < 2 * len(ids):
            query = "SELECT id, embedding FROM tasks WHERE id BETWEEN ? AND ?"
            found = dict(self._db.execute(query, (int(ids[0]), int(ids[-1]))))
        else:
            for start in range(0, len(ids), FETCH_IDS):
                chunk = [int(i) for i in ids[start : start + FETCH_IDS]]
                query = f"SELECT id, embedding FROM tasks WHERE id IN ({','.join('?' * len(chunk))})"
                found.update(self._db.execute(query, chunk))
        missing = [int(i) for i in ids if int(i) not in found]
        if missing:
            raise ArchiveError(f"Rows {missing[:5]} have no stored embedding; the archive changed while reading it.")
        blob = b"".join(found[int(i)] for i in ids)
        return np.frombuffer(blob, dtype="<f4").reshape(len(ids), -1).astype(np.float32)

    def task_ids(self, **filters) -> np.ndarray:
        """Ids of tasks matching equality filters (see TASK_FILTERS), sorted."""
        where, args = _where(filters)
        rows = self._db.execute(f"SELECT id FROM tasks{where} ORDER BY id", args).fetchall()
        return np.asarray([r[0] for r in rows], dtype=np.int64)

    def task_count(self) -> int:
        return int(self._db.execute("SELECT COUNT(*) FROM tasks").fetchone()[0])

    def records(self, ids: Iterable[int]) -> dict[int, dict]:
        found = {}
        for chunk in _chunks(list(ids), 500):
            marks = ",".join("?" * len(chunk))
            for row_id, record, passed in self._db.execute(
                f"SELECT id, record, passed FROM tasks WHERE id IN ({marks})", chunk
            ):
                found[row_id] = _with_passed(record, passed)
        return found

    def query_tasks(self, limit: int | None = None, max_generation: int | None = None, **filters) -> list[dict]:
        where, args = _where(filters)
        if max_generation is not None:
            where += (" AND" if where else " WHERE") + " generation <= ?"
            args.append(max_generation)
        sql = f"SELECT record, passed FROM tasks{where} ORDER BY id"
        if limit is not None:
            sql += " LIMIT ?"
            args.append(int(limit))
        return [_with_passed(record, passed) for record, passed in self._db.execute(sql, args)]

    # -- failures, strategies, generations ------------------------------------------------
    def insert_failure(self, db: sqlite3.Connection, failure: dict, generation: int) -> None:
        db.execute(
            "INSERT INTO failures (generation, strategy_id, strategy_type, category, record) VALUES (?, ?, ?, ?, ?)",
            (
                generation,
                _level(failure.get("strategy_id")),
                _level(failure.get("strategy_type")),
                _level(failure.get("category")),
                json.dumps(failure, sort_keys=True, default=str),
            ),
        )

    def recent_failures(
        self, strategy_id: str | None, strategy_type: str | None, n: int, categories: Iterable[str] | None = None
    ) -> list[dict]:
        where, args = _where({"strategy_id": strategy_id, "strategy_type": strategy_type})
        if categories is not None:
            wanted = sorted(set(categories))
            where += (" AND " if where else " WHERE ") + f"category IN ({','.join('?' * len(wanted))})"
            args += wanted
        rows = self._db.execute(
            f"SELECT record, generation FROM failures{where} ORDER BY generation DESC, id DESC LIMIT ?",
            [*args, int(n)],
        )
        return [{**json.loads(record), "archive_generation": generation} for record, generation in rows]

    def upsert_strategy(self, db: sqlite3.Connection, strategy: dict, generation: int) -> None:
        db.execute(
            "INSERT INTO strategies VALUES (?, ?, ?, ?) ON CONFLICT(id, generation)"
            " DO UPDATE SET strategy_type = excluded.strategy_type, record = excluded.record",
            (
                str(strategy["id"]),
                generation,
                _level(strategy.get("strategy_type")),
                json.dumps(strategy, sort_keys=True, default=str),
            ),
        )

    def strategies(self, max_generation: int | None = None) -> list[dict]:
        """Latest version of each strategy (as of `max_generation`), ordered by id."""
        bound = "" if max_generation is None else " WHERE generation <= ?"
        args = [] if max_generation is None else [max_generation]
        rows = self._db.execute(
            f"SELECT s.record FROM strategies s JOIN (SELECT id, MAX(generation) AS g FROM strategies{bound}"
            " GROUP BY id) latest ON s.id = latest.id AND s.generation = latest.g ORDER BY s.id",
            args,
        )
        return [json.loads(record) for (record,) in rows]

    def upsert_generation(self, db: sqlite3.Connection, generation: int, stats: dict) -> None:
        db.execute(
            "INSERT INTO generations VALUES (?, ?) ON CONFLICT(generation) DO UPDATE SET stats = excluded.stats",
            (generation, json.dumps(stats, sort_keys=True, default=str)),
        )

    def generations(self) -> list[tuple[int, dict]]:
        rows = self._db.execute("SELECT generation, stats FROM generations ORDER BY generation")
        return [(g, json.loads(stats)) for g, stats in rows]

    def delete_after(self, db: sqlite3.Connection, generation: int) -> int:
        """Delete rows of every table newer than `generation`; returns how many."""
        removed = 0
        for table in ("tasks", "failures", "strategies", "generations"):
            removed += db.execute(f"DELETE FROM {table} WHERE generation > ?", (generation,)).rowcount
        return removed


def _where(filters: dict) -> tuple[str, list]:
    clauses, args = [], []
    for name, value in sorted(filters.items()):
        if value is None:
            continue
        if name not in TASK_FILTERS:
            raise KeyError(name)
        clauses.append(f"{name} = ?")
        args.append(int(bool(value)) if name == "passed" else _level(value))
    return (" WHERE " + " AND ".join(clauses) if clauses else ""), args


def _with_passed(record: str, passed: int) -> dict:
    task = json.loads(record)
    task["passed"] = bool(passed)
    return task


def _float_or_none(value) -> float | None:
    try:
        return None if value is None else float(value)
    except (TypeError, ValueError):
        return None


def _chunks(items: list, size: int) -> Iterator[list]:
    for start in range(0, len(items), size):
        yield items[start : start + size]
