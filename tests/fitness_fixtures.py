"""Shared helpers for the fitness tests: the bundled corpus built once per session."""

import os

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from pathlib import Path  # noqa: E402

from corpus.builder import ensure_corpus, load_manifest  # noqa: E402
from tasks.mining import Candidate, mine  # noqa: E402

_BUILT: dict = {}


def corpus_dir(tmp_path_factory) -> Path:
    """A corpus built into a session temp folder (never the user's cache)."""
    if "dir" not in _BUILT:
        target = tmp_path_factory.getbasetemp() / "fitness-corpus"
        ensure_corpus(target)
        _BUILT["dir"] = target
    return _BUILT["dir"]


def manifest_commit(manifest: dict, subject_start: str) -> tuple[str, dict]:
    for name, repo in sorted(manifest["repos"].items()):
        for commit in repo["commits"]:
            if commit["subject"].startswith(subject_start):
                return name, commit
    raise KeyError(subject_start)


def candidate_for(root: Path, subject_start: str) -> Candidate:
    name, commit = manifest_commit(load_manifest(root), subject_start)
    return next(c for c in mine(root / name).candidates if c.sha == commit["sha"])
