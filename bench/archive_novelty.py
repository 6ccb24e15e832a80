"""Novelty-query latency of the archive (FAISS) against the paper's Jaccard scan, 1k-100k tasks.

    python bench/archive_novelty.py [--sizes 1000,10000,100000] [--k 5]

Archive vectors are synthetic: random unit vectors scattered around the real embeddings of
~1000 template problem statements (embedding 100k texts would take an hour here). Each
archived task's text (for the Jaccard scan) is its template statement plus random tokens.
Query texts are real problem statements, embedded with the real model once; the timed FAISS
query is `Archive.novelty_vectors` on one embedded query, the timed Jaccard query is
`1 - mean Jaccard of the k nearest` over token sets of all archived texts. Above 50k tasks
the archive uses its approximate (HNSW) index; recall against the exact index is printed.
Last line: the FAISS / Jaccard speed ratio (p50) at the largest size.
"""
from __future__ import annotations

import argparse
import heapq
import os
import re
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import faiss  # noqa: E402
import numpy as np  # noqa: E402

from archive import Archive, get_embedder  # noqa: E402

SEED = 20250101
CENTRES = 1000
NOISE = 0.035  # per dimension: a copy keeps cosine ~0.82 with its centre
FAISS_QUERIES = 300

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
               "retry policy", "matrix library", "slug generator", "scheduler"]
_FAULTS = ["raises KeyError on empty input", "leaks file handles when an exception is raised",
           "returns stale results after the configuration changes", "hangs when the remote side closes",
           "rounds values in the wrong direction", "ignores the timeout argument",
           "corrupts data when two threads write at once", "drops the last element",
           "accepts malformed input without an error", "double-counts entries after a retry"]
_CONTEXTS = ["on Windows paths", "under heavy load", "with unicode input", "after a restart", "in strict mode"]


def template_statements(n: int, rng: np.random.Generator) -> list[str]:
    combos = [f"The {c} {f} {x}." for c in _COMPONENTS for f in _FAULTS for x in _CONTEXTS]
    return [combos[i] for i in rng.choice(len(combos), size=min(n, len(combos)), replace=False)]


def tokens(text: str) -> frozenset[str]:
    return frozenset(re.findall(r"\w+", text.lower()))


def synthetic_archive(size: int, centre_texts: list[str], centre_vectors: np.ndarray,
                      rng: np.random.Generator) -> tuple[list[str], np.ndarray]:
    """`size` (text, unit vector) pairs: each a noisy copy of a template statement's embedding."""
    owner = rng.integers(0, len(centre_texts), size=size)
    vectors = centre_vectors[owner] + NOISE * rng.standard_normal((size, centre_vectors.shape[1]), dtype=np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    filler = [f"tok{i}" for i in range(5000)]
    texts = []
    for i in range(size):
        extra = rng.choice(len(filler), size=int(rng.integers(20, 60)))
        texts.append(centre_texts[owner[i]] + " " + " ".join(filler[j] for j in extra))
    return texts, vectors.astype(np.float32)


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


def run_size(size: int, k: int, centre_texts, centre_vectors, query_vectors, rng, workdir: Path) -> dict:
    texts, vectors = synthetic_archive(size, centre_texts, centre_vectors, rng)
    tasks = [{"instance_id": f"syn-{i}", "problem_statement": t} for i, t in enumerate(texts)]
    start = time.perf_counter()
    arc = Archive.open(workdir / f"archive-{size}", k=k, embedder=get_embedder())
    arc.add_tasks(tasks, generation=0, vectors=vectors)
    build_s = time.perf_counter() - start

    queries = [(query_vectors[i % len(query_vectors)][None, :],) for i in range(FAISS_QUERIES)]
    arc.novelty_vectors(queries[0][0])  # warm-up
    faiss_lat = time_calls(arc.novelty_vectors, queries)

    flat = faiss.IndexFlatIP(vectors.shape[1])
    flat.add(vectors)
    exact_lat = time_calls(lambda q: flat.search(q, k), queries[:100])
    exact_scores, _ = flat.search(query_vectors, k)
    exact_novelty = 1 - exact_scores.mean(axis=1)
    got_novelty = np.asarray(arc.novelty_vectors(query_vectors))

    sets = [tokens(t) for t in texts]
    n_jaccard = 48 if size <= 10_000 else 16
    jaccard_lat = time_calls(jaccard_novelty, [(QUERY_TEXTS[i % len(QUERY_TEXTS)], sets, k) for i in range(n_jaccard)])
    result = {
        "size": size, "index": "HNSW" if arc.approximate else "exact", "build_s": build_s,
        "faiss_p50": percentile_ms(faiss_lat, 50), "faiss_p95": percentile_ms(faiss_lat, 95),
        "flat_p50": percentile_ms(exact_lat, 50),
        "jaccard_p50": percentile_ms(jaccard_lat, 50), "jaccard_p95": percentile_ms(jaccard_lat, 95),
        "recall_queries": arc.measure_recall(query_vectors, k=k),
        "recall_stored": arc.measure_recall(k=10),
        "novelty_err": float(np.abs(got_novelty - exact_novelty).max()),
    }
    arc.close()
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--k", type=int, default=5)
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    rng = np.random.default_rng(SEED)
    faiss.omp_set_num_threads(1)  # single-query latency, no thread start-up noise

    embedder = get_embedder()
    centre_texts = template_statements(CENTRES, rng)
    centre_vectors = embedder.encode(centre_texts)
    query_vectors = embedder.encode(QUERY_TEXTS)
    embed_lat = time_calls(lambda t: embedder.encode([t]), [(f"{t} (variant {i})",) for i, t in enumerate(QUERY_TEXTS)])
    print(f"embedding one query text (not in the latencies below): p50 {percentile_ms(embed_lat, 50):.1f} ms")

    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-archive-") as tmp:
        for size in sizes:
            rows.append(run_size(size, args.k, centre_texts, centre_vectors, query_vectors, rng, Path(tmp)))
            r = rows[-1]
            print(f"size {r['size']:>7} built in {r['build_s']:.1f}s ({r['index']}); "
                  f"recall@{args.k} real queries {r['recall_queries']:.3f}, recall@10 stored {r['recall_stored']:.3f}, "
                  f"max novelty error {r['novelty_err']:.4f}", flush=True)

    print()
    print(f"{'tasks':>8} {'index':>6} {'faiss p50':>10} {'faiss p95':>10} {'flat p50':>9} "
          f"{'jaccard p50':>12} {'jaccard p95':>12} {'speedup':>8}")
    for r in rows:
        print(f"{r['size']:>8} {r['index']:>6} {r['faiss_p50']:>8.3f}ms {r['faiss_p95']:>8.3f}ms {r['flat_p50']:>7.2f}ms "
              f"{r['jaccard_p50']:>10.1f}ms {r['jaccard_p95']:>10.1f}ms {r['jaccard_p50'] / r['faiss_p50']:>7.0f}x")
    last = rows[-1]
    print(f"faiss_vs_jaccard_speedup_{last['size'] // 1000}k: {last['jaccard_p50'] / last['faiss_p50']:.1f}")


if __name__ == "__main__":
    main()
