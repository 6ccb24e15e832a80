"""Where the dev set lies: real repositories as git bundles with their verified fail-to-pass
commits (`commits.json`), kept beside the checkout rather than in it. Benches and tests that
measure SEBGen on real projects find the folder here and nowhere else."""

from __future__ import annotations

import os
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parents[1]
# language -> (the variable that points elsewhere, the folder's name beside the checkout)
DEV_SET_FOLDERS = {
    "python": ("SEBGEN_REAL_REPOS", "real-repos"),
    "javascript": ("SEBGEN_REAL_REPOS_JS", "real-repos-js"),
    "typescript": ("SEBGEN_REAL_REPOS_JS", "real-repos-js"),  # one dev set for JS and TS
}


def dev_set(language: str = "python") -> Path:
    """The dev-set folder of a language: `$SEBGEN_REAL_REPOS` (Python) or `$SEBGEN_REAL_REPOS_JS`
    (JavaScript, TypeScript) when set, else `<checkout>/../shared/real-repos[-js]`. The folder may
    not exist; callers decide whether that skips or fails."""
    try:
        variable, name = DEV_SET_FOLDERS[language]
    except KeyError:
        raise ValueError(f"no dev set for language {language!r}; known: {', '.join(DEV_SET_FOLDERS)}") from None
    return Path(os.environ.get(variable) or CHECKOUT.parent / "shared" / name)
