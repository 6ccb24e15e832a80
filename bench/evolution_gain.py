"""Evolution gain on held-out commits: `sebgen experiment` on the bundled corpus and on dev-set
repositories, one table per config, and the headline figure last.

    python bench/evolution_gain.py                                  # configs/experiment.yaml
    python bench/evolution_gain.py configs/experiment-boltons.yaml configs/experiment-tenacity.yaml

A config whose `repos` entry is missing and names a dev-set repository (runs/repos/NAME) is
cloned from the dev set first (`corpus.dev_set`: $SEBGEN_REAL_REPOS, else ../shared/real-repos).
Results go to runs/bench-NAME/ (a re-run continues).
The last line is `evolution_gain_kept_per_validation: D`: the mean over configs of the paired
difference evolved - best seed in held-out kept tasks per container validation.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from corpus import dev_set  # noqa: E402

BUNDLES = dev_set("python")
DEV_REPOS = {
    "boltons": "mahmoud__boltons",
    "tenacity": "jd__tenacity",
    "click": "pallets__click",
    "attrs": "python-attrs__attrs",
}


def ensure_repos(config) -> None:
    for repo in config.repos:
        path = Path(repo)
        if not path.is_absolute():
            path = ROOT / path
        bundle = BUNDLES / f"{DEV_REPOS.get(path.name, '')}.bundle"
        if not path.exists() and bundle.is_file():
            path.parent.mkdir(parents=True, exist_ok=True)
            subprocess.run(["git", "clone", "-q", str(bundle), str(path)], check=True)


def main(argv: list[str]) -> None:
    import os

    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.chdir(ROOT)
    from evo.config import load_config
    from evo.experiment import ARMS, METRICS, run_experiment

    configs = argv or ["configs/experiment.yaml"]
    gains = []
    for name in configs:
        config = load_config(name)
        ensure_repos(config)
        out = ROOT / "runs" / f"bench-{Path(name).stem}"
        started = time.monotonic()
        doc = run_experiment(config, out, log=lambda m: print(m, file=sys.stderr))
        minutes = (time.monotonic() - started) / 60
        print(
            f"\n{name}: {doc['split']['heldout']} held-out commits, "
            f"{doc['heldout_validations_per_arm']} validations per arm, {len(doc['per_seed'])} seeds, {minutes:.1f} min"
        )
        print("arm".ljust(14) + "".join(m[:18].rjust(26) for m in METRICS))
        for arm in ARMS:
            cells = [doc["arms"][arm][m] for m in METRICS]
            print(arm.ljust(14) + "".join(f"{c['mean']:.3f} [{c['low']:.3f},{c['high']:.3f}]".rjust(26) for c in cells))
        for other in ("best_seed", "random_search"):
            d = doc["differences"][f"evolved_minus_{other}"]
            print(
                f"evolved - {other}: "
                + ", ".join(f"{m} {d[m]['mean']:+.3f} [{d[m]['low']:+.3f},{d[m]['high']:+.3f}]" for m in METRICS)
            )
        print(doc["verdict"])
        gains.append(doc["differences"]["evolved_minus_best_seed"]["kept_per_validation"]["mean"])
    print(f"evolution_gain_kept_per_validation: {sum(gains) / len(gains):+.4f}")


if __name__ == "__main__":
    main(sys.argv[1:])
