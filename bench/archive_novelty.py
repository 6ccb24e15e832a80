"""Novelty at scale: the archive's approximate (IVF) index against exact search, 1k-1M tasks.

    python bench/archive_novelty.py [--sizes 100000,1000000] [--k 5] [--budget-ms 2]
                                    [--approximate-above N] [--no-jaccard] [--no-subprocess]

Archive vectors are synthetic: random unit vectors scattered around the real embeddings of
1000 template problem statements (embedding a million texts would take days here). Each
archived task's text (for the Jaccard scan) is its template statement plus random tokens.

Queries are *new tasks*, none of them in the archive: 16 hand-written problem statements and
the 250 template statements that are not among the archive's 1000 centres, embedded with the
real model (266 queries). For each size the script prints:

- accuracy against exact (exhaustive) search: recall@k of the archive's neighbours on those
  queries, the share of queries whose novelty (1 - mean cosine of the k nearest) is within
  0.01 of the exact value, and the largest error; recall@10 on stored vectors;
- latency of one novelty query (`Archive.novelty_vectors`, one thread, one embedded query),
  also with five rows left out (the leave-one-out of `novelty_of_tasks`), beside exhaustive
  search and the paper's Jaccard scan;
- build time (rows + index in one `add_tasks`), the time to add one more generation of 1000
  tasks (no rebuild) and to write the index file;
- in fresh processes: reopening the archive (RSS with the index loaded, after 200 queries)
  and rebuilding the index from the stored rows, as after copying an archive without its
  index file (time and peak RSS, progress lines on stderr).

First it measures where exhaustive search stops being fast enough: its p50 at growing sizes
and the size at which it crosses `--budget-ms` (the approximate index's latency target),
which is the measured value for `archive.approximate_above`.

Timings are wall-clock on a shared 2-core machine: read them as orders of magnitude.
Last line: the share of novelty values within 0.01 of exact at the largest size.
"""

from __future__ import annotations

import argparse
import heapq
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import faiss  # noqa: E402
import numpy as np  # noqa: E402

from archive import Archive, get_embedder  # noqa: E402
from archive.index import VectorIndex  # noqa: E402

SEED = 20250101
CENTRES = 1000
NOISE = 0.035  # per dimension: a copy keeps cosine ~0.82 with its centre
LATENCY_QUERIES = 300
TOLERANCE = 0.01
LADDER = [2_000, 5_000, 10_000, 20_000, 50_000, 100_000, 200_000]
GENERATION = 1000  # tasks added to the built archive, timed

QUERY_TEXTS = [
    "Parsing an ISO 8601 date string with a timezone offset raises ValueError instead of returning an aware datetime.",
    "The HTTP client gives up when the server resets the connection; it should retry idempotent requests.",
    "Multiplying two empty matrices returns an array of the wrong shape.",
    "Reading a CSV file whose quoted fields contain newlines splits one record into several rows.",
    "The LRU cache evicts the most recently used entry instead of the least recently used one.",
    "Running the CLI with an unknown flag prints a traceback instead of a usage message.",
    "Slugify drops non-ASCII letters, so titles with umlauts produce empty slugs.",
    "Environment variables do not override values from the YAML configuration file.",
    "The task queue runs a job twice when a worker crashes after acknowledging it.",
    "Interest is rounded half-down, so ledger balances drift by a cent each month.",
    "HTML escaping misses single quotes, allowing attribute injection in templates.",
    "Binary search returns the wrong index when the target is the last element.",
    "The thread pool deadlocks when a task submits another task and waits for it.",
    "Decoding a truncated UTF-8 byte sequence loops forever instead of raising an error.",
    "The rate limiter lets a burst of requests through right after the window resets.",
    "Sorting records with None keys raises TypeError instead of placing them last.",
]
_COMPONENTS = ["date parser", "HTTP client", "CSV reader", "LRU cache", "argument parser", "YAML loader",
               "thread pool", "JSON encoder", "path resolver", "template engine", "rate limiter",
               "logging handler", "zip extractor", "image resizer", "SQL query builder", "task queue",
               "ledger", "HTML sanitiser", "binary search", "unicode decoder", "config merger",
               "retry policy", "matrix library", "slug generator", "scheduler"]  # fmt: skip
_FAULTS = ["raises KeyError on empty input", "leaks file handles when an exception is raised",
           "returns stale results after the configuration changes", "hangs when the remote side closes",
           "rounds values in the wrong direction", "ignores the timeout argument",
           "corrupts data when two threads write at once", "drops the last element",
           "accepts malformed input without an error", "double-counts entries after a retry"]  # fmt: skip
_CONTEXTS = ["on Windows paths", "under heavy load", "with unicode input", "after a restart", "in strict mode"]

CHILD = r"""
import json, logging, os, sys, time
sys.path.insert(0, sys.argv[1])
handler = logging.StreamHandler(sys.stderr)
handler.setFormatter(logging.Formatter("    [child] %(message)s"))
logging.getLogger("archive").addHandler(handler)
logging.getLogger("archive").setLevel(logging.INFO)
import faiss, numpy as np
from archive import Archive
folder, mode, above = sys.argv[2], sys.argv[3], int(sys.argv[4])
faiss.omp_set_num_threads(2)
if mode == "rebuild":
    os.remove(os.path.join(folder, "index.faiss"))
start = time.perf_counter()
arc = Archive.open(folder, approximate_above=above, read_only=(mode == "reopen"))
opened = time.perf_counter() - start
queries = np.load(os.path.join(folder, "queries.npy"))
faiss.omp_set_num_threads(1)
for i in range(200):
    arc.novelty_vectors(queries[i % len(queries)][None, :])
status = dict(line.split(":", 1) for line in open("/proc/self/status") if line.startswith(("VmRSS", "VmHWM")))
print(json.dumps({"open_s": opened, "rss_mb": int(status["VmRSS"].split()[0]) / 1024,
                  "peak_mb": int(status["VmHWM"].split()[0]) / 1024, **arc.index_info()}))
arc.close()
"""

EMBEDDER_CHILD = r"""
import sys
sys.path.insert(0, sys.argv[1])
def rss():
    return next(int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmRSS")) / 1024
import archive
before = rss()
archive.get_embedder().encode(["one sentence to load the model"])
print(rss() - before)
"""


def template_statements(rng: np.random.Generator) -> tuple[list[str], list[str]]:
    """(CENTRES template statements for the archive, the other templates: new-task queries)."""
    combos = [f"The {c} {f} {x}." for c in _COMPONENTS for f in _FAULTS for x in _CONTEXTS]
    chosen = rng.choice(len(combos), size=CENTRES, replace=False)
    unused = sorted(set(range(len(combos))) - set(chosen.tolist()))
    return [combos[i] for i in chosen], [combos[i] for i in unused]


def tokens(text: str) -> frozenset[str]:
    return frozenset(re.findall(r"\w+", text.lower()))


def synthetic_vectors(size: int, centre_vectors: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """(owner centre of each vector, `size` unit vectors: noisy copies of the centres)."""
    owner = rng.integers(0, len(centre_vectors), size=size)
    vectors = np.empty((size, centre_vectors.shape[1]), dtype=np.float32)
    for start in range(0, size, 100_000):
        part = owner[start : start + 100_000]
        block = centre_vectors[part] + NOISE * rng.standard_normal(
            (len(part), centre_vectors.shape[1]), dtype=np.float32
        )
        vectors[start : start + len(part)] = block / np.linalg.norm(block, axis=1, keepdims=True)
    return owner, vectors


def synthetic_texts(owner: np.ndarray, centre_texts: list[str], rng: np.random.Generator) -> list[str]:
    filler = [f"tok{i}" for i in range(5000)]
    texts = []
    for centre in owner:
        extra = rng.choice(len(filler), size=int(rng.integers(20, 60)))
        texts.append(centre_texts[centre] + " " + " ".join(filler[j] for j in extra))
    return texts


def jaccard_novelty(query: str, archive_sets: list[frozenset[str]], k: int) -> float:
    """The paper's novelty: 1 - mean Jaccard similarity of the k most similar archived texts."""
    q = tokens(query)
    scores = (len(q & s) / len(q | s) for s in archive_sets)
    return 1.0 - sum(heapq.nlargest(k, scores)) / k


def percentile_ms(samples: list[float], q: float) -> float:
    return float(np.percentile(samples, q) * 1e3)


def time_calls(fn, args_list) -> list[float]:
    samples = []
    for args in args_list:
        start = time.perf_counter()
        fn(*args)
        samples.append(time.perf_counter() - start)
    return samples


def one_thread(fn):
    threads = faiss.omp_get_max_threads()
    faiss.omp_set_num_threads(1)  # single-query latency, no thread start-up noise
    try:
        return fn()
    finally:
        faiss.omp_set_num_threads(threads)


def measure_threshold(centre_vectors, query_vectors, k, budget_ms, max_size, rng) -> tuple[list, int | None]:
    """p50 of exhaustive search (the archive's exact index) per size, and the size where it
    crosses the budget. Each size is timed in three interleaved rounds and keeps its lowest
    p50: other work on the machine only ever adds latency."""
    sizes = [s for s in LADDER if s <= max(max_size, LADDER[3])]
    _, vectors = synthetic_vectors(sizes[-1], centre_vectors, rng)
    indexes = {}
    for size in sizes:
        indexes[size] = VectorIndex(approximate_above=10**12)
        indexes[size].rebuild(np.arange(1, size + 1), vectors[:size])
    queries = [(query_vectors[i % len(query_vectors)][None, :], k) for i in range(200)]
    best = {size: float("inf") for size in sizes}
    for _ in range(3):
        for size, index in indexes.items():
            index.search(*queries[0])
            lat = one_thread(lambda index=index: time_calls(index.search, queries))
            best[size] = min(best[size], percentile_ms(lat, 50))
    rows = sorted(best.items())
    crossing = None
    for (s0, t0), (s1, t1) in zip(rows, rows[1:]):
        if t0 <= budget_ms < t1:
            crossing = int(s0 + (budget_ms - t0) * (s1 - s0) / (t1 - t0))
            break
    return rows, crossing


def time_index_adds():
    """Time spent inside VectorIndex.add from now on; call the result to read it."""
    spent = [0.0]
    real = VectorIndex.add

    def timed(self, *args, **kwargs):
        start = time.perf_counter()
        try:
            return real(self, *args, **kwargs)
        finally:
            spent[0] += time.perf_counter() - start

    VectorIndex.add = timed

    def read() -> float:
        VectorIndex.add = real
        return spent[0]

    return read


def run_child(folder: Path, mode: str, above: int) -> dict:
    out = subprocess.run([sys.executable, "-c", CHILD, str(ROOT), str(folder), mode, str(above)],
                         stdout=subprocess.PIPE, text=True, check=True)  # fmt: skip
    return json.loads(out.stdout.strip().splitlines()[-1])


def run_size(size, args, centre_texts, centre_vectors, query_vectors, rng, workdir: Path) -> dict:
    k = args.k
    owner, vectors = synthetic_vectors(size, centre_vectors, rng)
    texts = synthetic_texts(owner, centre_texts, rng)
    tasks = [{"instance_id": f"syn-{i}", "problem_statement": t} for i, t in enumerate(texts)]
    folder = workdir / f"archive-{size}"
    index_s = time_index_adds()
    start = time.perf_counter()
    arc = Archive.open(folder, k=k, embedder=get_embedder(), approximate_above=args.approximate_above)
    arc.add_tasks(tasks, generation=0, vectors=vectors)
    build_s = time.perf_counter() - start
    index_s = index_s()
    info = arc.index_info()
    print(f"  size {size}: built in {build_s:.1f}s: {info}", flush=True)

    # latency: one embedded query per call; leave-one-out drops five archived rows
    queries = [(query_vectors[i % len(query_vectors)][None, :],) for i in range(LATENCY_QUERIES)]
    picks = np.random.default_rng(1).choice(size, size=(LATENCY_QUERIES, 5)) + 1
    loo = [(q, None, picks[i]) for i, (q,) in enumerate(queries)]
    arc.novelty_vectors(*queries[0])
    lat = one_thread(lambda: time_calls(arc.novelty_vectors, queries))
    loo_lat = one_thread(lambda: time_calls(arc.novelty_vectors, loo))

    # exact truth: exhaustive inner product over every vector
    flat = faiss.IndexFlatIP(vectors.shape[1])
    flat.add(vectors)
    flat_lat = one_thread(lambda: time_calls(lambda q: flat.search(q, k), queries[:100]))
    exact_scores, _ = flat.search(query_vectors, k)
    exact_novelty = np.clip(1 - exact_scores.mean(axis=1), 0, 1)
    got_novelty = np.asarray(arc.novelty_vectors(query_vectors))
    errors = np.abs(got_novelty - exact_novelty)
    flat.reset()  # free its copy of the vectors

    jaccard_lat = []
    if args.jaccard:
        sets = [tokens(t) for t in texts]
        n_jaccard = 48 if size <= 10_000 else 16
        jaccard_args = [(QUERY_TEXTS[i % len(QUERY_TEXTS)], sets, k) for i in range(n_jaccard)]
        jaccard_lat = time_calls(jaccard_novelty, jaccard_args)
        del sets

    # one more generation: incremental, no rebuild
    extra_owner, extra_vectors = synthetic_vectors(GENERATION, centre_vectors, rng)
    extra = [{"instance_id": f"new-{i}", "problem_statement": f"{centre_texts[c]} new {i}"}
             for i, c in enumerate(extra_owner)]  # fmt: skip
    start = time.perf_counter()
    arc.add_tasks(extra, generation=1, vectors=extra_vectors)
    extend_s = time.perf_counter() - start
    rebuilt = arc.index_info()["cells"] != info["cells"] or arc.index_info()["kind"] != info["kind"]
    result = {
        "size": size, "index": info["kind"], "cells": info["cells"], "probes": info["probes"],
        "build_s": build_s, "index_s": index_s,
        "p50": percentile_ms(lat, 50), "p95": percentile_ms(lat, 95),
        "loo_p50": percentile_ms(loo_lat, 50), "loo_p95": percentile_ms(loo_lat, 95),
        "flat_p50": percentile_ms(flat_lat, 50),
        "jaccard_p50": percentile_ms(jaccard_lat, 50) if jaccard_lat else float("nan"),
        "recall_queries": arc.measure_recall(query_vectors, k=k),
        "recall_stored": arc.measure_recall(k=10),
        "within": float(np.mean(errors <= TOLERANCE)), "max_err": float(errors.max()),
        "extend_s": extend_s, "extend_rebuilt": rebuilt,
    }  # fmt: skip
    start = time.perf_counter()
    arc.close()  # writes what the deferred saves left out
    result["save_s"] = time.perf_counter() - start
    result["index_mb"] = (folder / "index.faiss").stat().st_size / 2**20
    result["sqlite_mb"] = sum(f.stat().st_size for f in folder.glob("archive.sqlite*")) / 2**20
    if args.subprocess:
        np.save(folder / "queries.npy", query_vectors)
        reopen = run_child(folder, "reopen", args.approximate_above)
        rebuild = run_child(folder, "rebuild", args.approximate_above)
        result.update(open_s=reopen["open_s"], rss_mb=reopen["rss_mb"], rebuild_s=rebuild["open_s"],
                      rebuild_peak_mb=rebuild["peak_mb"])  # fmt: skip
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--k", type=int, default=5)
    parser.add_argument("--budget-ms", type=float, default=2.0, help="latency budget of one novelty query")
    parser.add_argument("--approximate-above", type=int, default=None,
                        help="the archive's switch size (default: Archive.open's)")  # fmt: skip
    parser.add_argument("--no-jaccard", dest="jaccard", action="store_false", help="skip the Jaccard scan")
    parser.add_argument("--no-subprocess", dest="subprocess", action="store_false",
                        help="skip the reopen/rebuild processes (RSS)")  # fmt: skip
    args = parser.parse_args()
    if args.approximate_above is None:
        import inspect

        args.approximate_above = inspect.signature(Archive.open).parameters["approximate_above"].default
    sizes = [int(s) for s in args.sizes.split(",")]
    rng = np.random.default_rng(SEED)

    embedder = get_embedder()
    centre_texts, unused_templates = template_statements(rng)
    centre_vectors = embedder.encode(centre_texts)
    query_vectors = embedder.encode(QUERY_TEXTS + unused_templates)
    embed_lat = time_calls(lambda t: embedder.encode([t]), [(f"{t} (variant {i})",) for i, t in enumerate(QUERY_TEXTS)])
    print(f"embedding one query text (not in the latencies below): p50 {percentile_ms(embed_lat, 50):.1f} ms")
    print(
        f"queries: {len(query_vectors)} new tasks (none archived); archive: approximate_above={args.approximate_above}"
    )

    ladder, crossing = measure_threshold(centre_vectors, query_vectors, args.k, args.budget_ms, max(sizes), rng)
    print("exhaustive search p50 (best of 3 rounds): " + ", ".join(f"{s // 1000}k {t:.2f} ms" for s, t in ladder))
    if crossing:
        print(f"exhaustive search crosses the {args.budget_ms:g} ms budget at ~{crossing} vectors "
              f"(measured archive.approximate_above)")  # fmt: skip
    else:
        print(f"exhaustive search does not cross {args.budget_ms:g} ms within the ladder")
    if args.subprocess:
        model_mb = float(subprocess.run([sys.executable, "-c", EMBEDDER_CHILD, str(ROOT)], stdout=subprocess.PIPE,
                                        text=True, check=True).stdout.strip().splitlines()[-1])  # fmt: skip
        print(f"the embedding model adds {model_mb:.0f} MB RSS to a process (not in the RSS below)")

    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-archive-") as tmp:
        for size in sizes:
            rows.append(run_size(size, args, centre_texts, centre_vectors, query_vectors, rng, Path(tmp)))
            r = rows[-1]
            line = (f"size {r['size']:>7} ({r['index']}, {r['cells']} cells, {r['probes']} scanned): "
                    f"recall@{args.k} new tasks {r['recall_queries']:.3f}, novelty within {TOLERANCE} of exact "
                    f"{r['within']:.3f} (max error {r['max_err']:.4f}), recall@10 stored {r['recall_stored']:.3f}; "
                    f"p50/p95 {r['p50']:.2f}/{r['p95']:.2f} ms (leave-one-out {r['loo_p50']:.2f}/{r['loo_p95']:.2f}); "
                    f"built in {r['build_s']:.1f}s (index {r['index_s']:.1f}s), "
                    f"+{GENERATION} tasks {r['extend_s']:.2f}s "
                    f"({'rebuilt' if r['extend_rebuilt'] else 'no rebuild'}), index file {r['index_mb']:.0f} MB "
                    f"written in {r['save_s']:.1f}s, SQLite {r['sqlite_mb']:.0f} MB")  # fmt: skip
            if "rss_mb" in r:
                line += (f"; reopened in {r['open_s']:.1f}s, RSS {r['rss_mb']:.0f} MB; rebuilt from rows in "
                         f"{r['rebuild_s']:.1f}s, peak RSS {r['rebuild_peak_mb']:.0f} MB")  # fmt: skip
            print(line, flush=True)

    print()
    print(f"{'tasks':>8} {'index':>5} {'recall@' + str(args.k):>9} {'<=0.01':>7} {'max err':>8} {'p50':>8} {'p95':>8} "
          f"{'exact p50':>10} {'jaccard':>9} {'build':>7} {'of it ivf':>9} {'rebuild':>8} {'RSS':>8}")  # fmt: skip
    for r in rows:
        rss = f"{r['rss_mb']:.0f}MB" if "rss_mb" in r else "-"
        rebuild = f"{r['rebuild_s']:.0f}s" if "rebuild_s" in r else "-"
        print(f"{r['size']:>8} {r['index']:>5} {r['recall_queries']:>9.3f} {r['within']:>7.3f} {r['max_err']:>8.4f} "
              f"{r['p50']:>6.2f}ms {r['p95']:>6.2f}ms {r['flat_p50']:>8.2f}ms {r['jaccard_p50']:>7.0f}ms "
              f"{r['build_s']:>6.0f}s {r['index_s']:>8.0f}s {rebuild:>8} {rss:>8}")  # fmt: skip
    last = rows[-1]
    print(f"novelty_within_{TOLERANCE}_share_{last['size'] // 1000}k: {last['within']:.3f}")


if __name__ == "__main__":
    main()
