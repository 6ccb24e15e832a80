"""A local GGUF model writing and judging tasks: speed and kept rate against the offline provider.

    python bench/local_llm.py MODEL.gguf [--repo pyledger] [--n 2] [--threads 2]

Runs what `sebgen generate` runs (the same pipeline function, every layer, local sandbox) on
one bundled repo with `llm.model=local/MODEL.gguf`, then the offline provider on the same
commits. Prints llama.cpp's own token counts and times, seconds per attempted task, both kept
rates and the machine's load average (the cores are shared: read tokens/s against it).
Last line: `local_llm_tokens_per_s: X` (generated tokens per second of generation time).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # before torch or llama.cpp loads libgomp
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpus.builder import ensure_corpus  # noqa: E402
from evo.config import load_config  # noqa: E402
from evo.pipeline import generate_tasks  # noqa: E402
from llm import load_local_model  # noqa: E402


def run(model: str, repo: Path, n: int, strategy: str, threads: int, commits: tuple[str, ...] = ()) -> dict:
    config = load_config(
        None, [f"llm.model={model}", f"llm.local.threads={threads}", "sandbox.backend=local", "sandbox.reruns=1"]
    )
    tried = []
    started = time.monotonic()
    result = generate_tasks(config, repo, strategy, n, commits, progress=tried.append, log=lambda _m: None)
    return {
        "seconds": time.monotonic() - started,
        "tried": tried,
        "kept": len(result.kept),
        "attempts": result.attempts,
    }


def rate(kept: int, attempts: int) -> str:
    return f"{kept}/{attempts} = {kept / attempts:.2f}" if attempts else "0/0"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model", help="a .gguf file, or a name such as smollm2")
    parser.add_argument("--repo", default="pyledger", help="bundled corpus repository")
    parser.add_argument("--n", type=int, default=2, help="tasks to keep (commits are oversampled 3x)")
    parser.add_argument("--strategy", default="BUG_FIX")
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    spec = f"local/{Path(args.model).expanduser().resolve() if args.model.endswith('.gguf') else args.model}"
    repo = next(p for p in ensure_corpus() if p.name == args.repo)

    load_before = os.getloadavg()
    model = load_local_model(spec, {"threads": args.threads})  # the run below shares this instance
    print(
        f"model: {model.path} ({model.size_bytes / 2**20:.0f} MiB), loaded in {model.load_s:.1f}s, "
        f"{args.threads} threads, OMP_WAIT_POLICY={os.environ['OMP_WAIT_POLICY']}, {os.cpu_count()} cores"
    )
    local = run(spec, repo, args.n, args.strategy, args.threads)
    load_after = os.getloadavg()
    s = model.stats
    tokens_per_s = s["generated_tokens"] / (s["generation_ms"] / 1000) if s["generation_ms"] else 0.0
    prompt_per_s = s["prompt_tokens"] / (s["prompt_ms"] / 1000) if s["prompt_ms"] else 0.0
    llm_tasks = [t for t in local["tried"] if t.generation.get("model")]
    print(f"machine load average (1 min) before/after the local run: {load_before[0]:.1f} / {load_after[0]:.1f}")
    print(
        f"local {args.repo} {args.strategy}: {local['attempts']} attempts ({len(llm_tasks)} reached the writer) "
        f"in {local['seconds']:.0f}s = {local['seconds'] / max(local['attempts'], 1):.1f} s per task"
    )
    print(
        f"local llama.cpp: {s['requests']} requests, {s['prompt_tokens']} prompt tokens at {prompt_per_s:.1f}/s, "
        f"{s['generated_tokens']} generated tokens at {tokens_per_s:.1f}/s"
    )
    for task in local["tried"]:
        failed = task.failed_layer()
        verdict = f"rejected at {failed[0]} ({failed[1].category})" if failed else "kept"
        print(f"  {task.base_commit[:8]} {verdict}: {task.problem_statement[:100]!r}")
    print(f"local kept rate: {rate(local['kept'], local['attempts'])}")

    commits = tuple(dict.fromkeys(t.base_commit for t in local["tried"]))
    offline = run("offline/sebgen", repo, args.n, args.strategy, args.threads, commits)
    print(
        f"offline kept rate on the same {len(commits)} commits: {rate(offline['kept'], offline['attempts'])} "
        f"({offline['seconds']:.0f}s)"
    )
    print(f"local_llm_tokens_per_s: {tokens_per_s:.1f}")


if __name__ == "__main__":
    main()
