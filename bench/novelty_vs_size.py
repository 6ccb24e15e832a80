"""SEBGen Table 8 reproduced: mean novelty of new tasks as a function of archive size.

    python bench/novelty_vs_size.py [REPO ...] [--trials N] [--k 5]

Texts are problem-statement-like commit messages (subject + body): those of the bundled demo
corpus (`corpus.builder`), or, when repositories are given or the corpus is unavailable, the
git log messages of those repositories. Each trial holds one text out as the new task,
shuffles the rest (seeded) and grows an archive through 0, 5, 10, 20, 30 and 50 of them,
taking the new task's novelty at each size; the table averages over the held-out texts
(every text once by default). The table shows our embedding novelty
(`1 - mean cosine of the k nearest`), the paper's Jaccard novelty on the same texts, and the
paper's reported figures. Last line: the embedding novelty at the largest size.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

from archive import Archive, get_embedder  # noqa: E402

SIZES = (0, 5, 10, 20, 30, 50)
PAPER_TABLE_8 = {0: 1.000, 5: 0.950, 10: 0.932, 20: 0.904, 30: 0.897, 50: 0.882}
SEED = 8
MIN_MESSAGE_CHARS = 25  # the SWE-MERA filter for a usable statement


def corpus_messages() -> list[str]:
    """Commit messages of the bundled corpus; [] when corpus.builder is missing or fails."""
    try:
        from corpus.builder import ensure_corpus, load_manifest

        with tempfile.TemporaryDirectory(prefix="bench-corpus-") as tmp:
            # a fresh build, not the shared cache, so the texts are those of this checkout
            repos = ensure_corpus(Path(tmp) / "corpus")
            manifest = load_manifest(repos[0].parent)
    except Exception as exc:  # the corpus belongs to another package: fall back, say why
        print(f"bundled corpus unavailable ({exc}); give repositories on the command line", file=sys.stderr)
        return []
    return [c["message"] for repo in manifest["repos"].values() for c in repo["commits"] if c["kind"] != "initial"]


def git_log_messages(repo: Path) -> list[str]:
    out = subprocess.run(
        ["git", "-C", str(repo), "log", "--no-merges", "--format=%B%x00"], capture_output=True, text=True, check=True
    ).stdout
    return [m.strip() for m in out.split("\x00") if m.strip()]


def jaccard_novelty(query: str, archived: list[str], k: int) -> float:
    if not archived:
        return 1.0
    q = set(re.findall(r"\w+", query.lower()))
    sims = sorted(
        (len(q & s) / max(1, len(q | s)) for s in (set(re.findall(r"\w+", a.lower())) for a in archived)), reverse=True
    )
    top = sims[:k]
    return 1.0 - sum(top) / len(top)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repos", nargs="*", type=Path, help="git repositories whose log messages to use")
    parser.add_argument("--trials", type=int, default=0, help="held-out texts to average over (0: every text once)")
    parser.add_argument("--k", type=int, default=5)
    args = parser.parse_args()

    texts = [m for repo in args.repos for m in git_log_messages(repo)] if args.repos else corpus_messages()
    texts = list(dict.fromkeys(t for t in texts if len(t) >= MIN_MESSAGE_CHARS))
    if len(texts) < max(SIZES) + 1:
        sys.exit(
            f"need at least {max(SIZES) + 1} distinct commit messages of >= {MIN_MESSAGE_CHARS} chars, "
            f"found {len(texts)}"
        )
    trials = min(args.trials or len(texts), len(texts))
    source = ", ".join(str(r) for r in args.repos) if args.repos else "the bundled corpus"
    print(f"{len(texts)} commit messages from {source}; {trials} held-out new tasks, k={args.k}")

    embedder = get_embedder()
    embedder.encode(texts)  # one batched pass; every later lookup hits the cache
    rng = np.random.default_rng(SEED)
    ours = {size: [] for size in SIZES}
    jaccard = {size: [] for size in SIZES}
    with tempfile.TemporaryDirectory(prefix="bench-novelty-") as tmp:
        for trial, held_out in enumerate(rng.permutation(len(texts))[:trials]):
            new = texts[held_out]
            others = [t for i, t in enumerate(texts) if i != held_out]
            pool = [others[i] for i in rng.permutation(len(others))]
            with Archive.open(Path(tmp) / f"trial-{trial}", k=args.k, embedder=embedder) as arc:
                for size in SIZES:  # the archive grows through the sizes, as in a run
                    arc.add_tasks(
                        [{"instance_id": f"a{i}", "problem_statement": t} for i, t in enumerate(pool[:size])], 0
                    )
                    ours[size].append(arc.novelty([new])[0])
                    jaccard[size].append(jaccard_novelty(new, pool[:size], args.k))

    print()
    print(f"{'archive size':<28}" + "".join(f"{s:>8}" for s in SIZES))
    print(f"{'embedding novelty (ours)':<28}" + "".join(f"{np.mean(ours[s]):>8.3f}" for s in SIZES))
    print(f"{'  std over trials':<28}" + "".join(f"{np.std(ours[s]):>8.3f}" for s in SIZES))
    print(f"{'Jaccard novelty (same texts)':<28}" + "".join(f"{np.mean(jaccard[s]):>8.3f}" for s in SIZES))
    print(f"{'SEBGen Table 8 (reported)':<28}" + "".join(f"{PAPER_TABLE_8[s]:>8.3f}" for s in SIZES))
    means = [np.mean(ours[s]) for s in SIZES]
    print(f"monotone decrease: {all(a >= b for a, b in zip(means, means[1:]))}")
    print(f"novelty_at_{max(SIZES)}_tasks: {means[-1]:.3f}")


if __name__ == "__main__":
    main()
