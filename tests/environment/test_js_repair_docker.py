"""An install that fails, is repaired from its log, and then runs its tests, for real in Docker:
tests/data/js/drift-build holds a package-lock.json that package.json no longer matches (`npm ci`
refuses it) and a test that imports dist/, which only the package's `build` script writes (a
script the detection does not take for a compiler). Two repairs, then 2 passed tests.

Marked `docker`; the install needs the npm registry at image build, and Node 20 from the registry
or the cache (.ci/provision_docker.sh caches it): without them the test skips outside CI.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from environment.js_detect import detect_js_recipe
from environment.js_setup import JsRecipeBook, js_setup
from sandbox import Limits, make_backend
from tests.sandbox_fixtures import make_repo, require_node20

pytestmark = pytest.mark.docker
PROJECT = Path(__file__).resolve().parents[1] / "data" / "js" / "drift-build"


def test_lockfile_drift_and_a_missing_build_are_repaired_and_the_suite_runs(tmp_path):
    require_node20()
    files = {str(p.relative_to(PROJECT)): p.read_text() for p in PROJECT.rglob("*") if p.is_file()}
    repo, sha = make_repo(tmp_path / "drift-build", files)
    detected = detect_js_recipe(repo, sha)
    assert detected.install.startswith("npm ci") and detected.build == ()  # what fails without repair
    book = JsRecipeBook(tmp_path / "cache")
    backend = make_backend(
        "docker",
        limits=Limits(timeout_s=60, memory_mb=512, cpus=1.0, pids=128),
        cache_dir=tmp_path / "cache",
        log=lambda m: None,
        recipe_for=book.recipe_for,
    )
    try:
        report = js_setup(backend, repo, sha, book=book, attempts=3)
        assert report["counts"] == {"passed": 2, "failed": 0, "errored": 0, "skipped": 0}, report
        repairs = [(a["stage"], a["rule"]) for a in report["attempts"] if not a["ok"]]
        assert repairs == [("build", "lockfile-drift"), ("collection", "missing-build")], report["attempts"]
        assert report["recipe"]["install"].startswith("npm install") and report["recipe"]["build"] == ["npm run build"]
        assert any(s.startswith("repair: the lockfile no longer matches") for s in report["recipe"]["sources"])
    finally:
        for tag in backend.builds:  # the images this test built
            try:
                backend.client.images.remove(tag, force=True)
            except Exception:
                pass
        backend.close()
