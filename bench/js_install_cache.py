"""JS image builds with and without the previous image's download caches (sandbox/images.py).

Takes the last `--commits` commits of a repository that changed its lockfile (oldest first; the
JS dev set's commander by default, whose history changes package-lock.json every other commit)
and builds each commit's environment image twice, one after the other: `cold` (the install
downloads everything, as before the caches were kept) and `chained` (the install starts from the
download caches of the chained image of the commit before). Both run the recipe's own install.
Prints the seconds of each build and npm's own `added N packages in T` line, then the medians;
every image it built is removed. Wall times on a shared machine are loaded figures.

    python bench/js_install_cache.py [--bundle ../shared/real-repos-js/tj__commander.js.bundle] [--commits 4]
"""

from __future__ import annotations

import argparse
import re
import secrets
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from corpus import dev_set  # noqa: E402
from environment import detect_js_recipe  # noqa: E402
from sandbox import BuildError, docker_client, node_tarball, npm_tarball, repo_name  # noqa: E402
from sandbox.images import build_env_image, js_cache_key, js_dockerfile  # noqa: E402
from sandbox.tree import archive_bytes  # noqa: E402

BASE = "sebgen-base:bookworm"
LOCKFILES = ("package-lock.json", "pnpm-lock.yaml", "yarn.lock")


def lockfile_commits(repo: Path, count: int) -> list[str]:
    out = subprocess.run(
        ["git", "-C", str(repo), "log", "--format=%H", f"-{count}", "--", *LOCKFILES],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    return list(reversed(out))


def build(client, repo: Path, commit: str, tag: str, logs: Path, cache_key: str = "", donor: str = "") -> dict:
    recipe = detect_js_recipe(repo, commit)
    node, npm = node_tarball(recipe.node), npm_tarball(recipe.node)
    text = js_dockerfile(BASE, recipe, tag.split(":")[1], node.version, npm.version, cache_key, donor)
    log = logs / f"{tag.replace(':', '-')}.log"
    start = time.monotonic()
    try:
        build_env_image(
            client, tag, text, archive_bytes(repo, commit), log, {}, {"node.tgz": node.path, "npm.tgz": npm.path}
        )
    except BuildError as exc:
        return {"seconds": time.monotonic() - start, "npm": f"failed: {str(exc).splitlines()[0][:120]}"}
    said = re.findall(r"added \d+ packages?[^\n\\]*? in [\d.]+m?s", log.read_text(errors="replace"))
    return {"seconds": time.monotonic() - start, "npm": said[-1] if said else "?"}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--bundle", default=str(dev_set("javascript") / "tj__commander.js.bundle"))
    ap.add_argument("--commits", type=int, default=4)
    args = ap.parse_args()
    client = docker_client()
    token = secrets.token_hex(3)
    built: list[str] = []
    with tempfile.TemporaryDirectory(prefix="sebgen-cachebench-") as tmp:
        repo = Path(tmp) / "repo"
        subprocess.run(["git", "clone", "-q", args.bundle, str(repo)], check=True)
        logs = Path(tmp) / "logs"
        cache_key = f"bench-{token}-{js_cache_key(repo_name(repo), detect_js_recipe(repo, 'HEAD'))}"
        rows, donor = [], ""
        try:
            for i, commit in enumerate(lockfile_commits(repo, args.commits)):
                cold_tag, chained_tag = f"sebgen-bench:cold-{token}-{i}", f"sebgen-bench:chained-{token}-{i}"
                cold = build(client, repo, commit, cold_tag, logs)
                built.append(cold_tag)
                chained = build(client, repo, commit, chained_tag, logs, cache_key, donor)
                built.append(chained_tag)
                donor = chained_tag
                rows.append((commit, cold, chained))
                print(
                    f"{commit[:10]}: cold {cold['seconds']:.1f} s ({cold['npm']}); "
                    f"chained {chained['seconds']:.1f} s ({chained['npm']}){'' if i else ' [no donor yet]'}",
                    flush=True,
                )
        finally:
            for tag in built:
                try:
                    client.images.remove(tag, force=True)
                except Exception:
                    pass
    with_donor = rows[1:]
    if with_donor:
        cold_s = statistics.median(r[1]["seconds"] for r in with_donor)
        chained_s = statistics.median(r[2]["seconds"] for r in with_donor)
        print(
            f"median build over the {len(with_donor)} commits with a donor: "
            f"cold {cold_s:.1f} s, chained {chained_s:.1f} s"
        )
        print(f"js_install_cache_speedup: {cold_s / chained_s:.2f}")


if __name__ == "__main__":
    main()
