"""JS/TS setup without an engine: the repair of a dev dependency whose pinned tarball is gone
(the other repairs: test_js_repair.py)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from environment.js_detect import detect_js_recipe
from environment.js_repair import with_override
from environment.js_setup import JsRecipeBook
from tests.sandbox_fixtures import make_repo

PACKAGE = {
    "name": "p",
    "version": "1.0.0",
    "scripts": {"test": "node --test"},
    "devDependencies": {"top-sites": "1.1.225", "@scope/bench": "1.0.0"},
}
LOCK = json.dumps({"name": "p", "lockfileVersion": 3, "packages": {}})
GONE = (
    "npm error code E404\n"
    "npm error 404 Not Found - GET https://registry.npmjs.org/top-sites/-/top-sites-1.1.225.tgz\n"
    "npm error 404  The requested resource 'top-sites@https://registry.npmjs.org/top-sites/-/top-sites-1.1.225.tgz'\n"
)


def repo(tmp_path: Path) -> Path:
    root, _ = make_repo(tmp_path / "p", {"package.json": json.dumps(PACKAGE), "package-lock.json": LOCK})
    return root


def test_a_gone_dev_dependency_is_dropped_and_the_install_may_update_the_lockfile(tmp_path):
    root = repo(tmp_path)
    book = JsRecipeBook(tmp_path / "cache")
    assert detect_js_recipe(root, "HEAD").install.startswith("npm ci ")
    fix = book.repair(root, "HEAD", GONE)
    assert fix.rule == "registry-gone" and "top-sites" in fix.reason
    recipe = book.recipe_for(root, "HEAD")
    # top-sites is one of the known packages whose install script needs the network: scripts stay off
    # the form the images of such repositories were first keyed by: their images stay
    assert recipe.install == (
        "npm pkg delete devDependencies.top-sites && npm install --no-audit --no-fund --ignore-scripts"
    )
    assert recipe.key() != detect_js_recipe(root, "HEAD").key()  # a new image
    assert book.repair(root, "HEAD", GONE) is None  # nothing new to learn: the loop stops


def test_a_gone_scoped_package_and_a_gone_package_that_is_no_dev_dependency(tmp_path):
    root = repo(tmp_path)
    log = "404 Not Found - GET https://registry.npmjs.org/@scope/bench/-/bench-1.0.0.tgz\n"
    assert "@scope/bench" in JsRecipeBook(tmp_path / "cache").repair(root, "HEAD", log).reason
    other = "404 Not Found - GET https://registry.npmjs.org/left-pad/-/left-pad-1.0.0.tgz\n"
    assert JsRecipeBook(tmp_path / "cache2").repair(root, "HEAD", other) is None  # a runtime dependency stays


def test_frozen_switches_go_with_a_dropped_dependency(tmp_path):
    recipe = detect_js_recipe(repo(tmp_path), "HEAD")
    pnpm = replace(recipe, package_manager="pnpm", install="pnpm install --frozen-lockfile")
    out = with_override(pnpm, {"drop": ["devDependencies:x"]}, {})
    assert out.install.endswith(" && pnpm install --no-frozen-lockfile")


def test_what_was_learned_serves_a_later_process(tmp_path):
    root = repo(tmp_path)
    JsRecipeBook(tmp_path / "cache").repair(root, "HEAD", GONE)
    later = JsRecipeBook(tmp_path / "cache").recipe_for(root, "HEAD")
    assert later.install.startswith("npm pkg delete devDependencies.top-sites && ")
    assert JsRecipeBook(tmp_path / "other").recipe_for(root, "HEAD").install.startswith("npm ci ")


def test_only_a_javascript_only_snapshot_takes_the_js_path(tmp_path):
    from environment.setup import SetupBackend

    backend = SetupBackend(inner=None, book=None, log=lambda m: None)
    js = repo(tmp_path)
    both, _ = make_repo(tmp_path / "both", {"package.json": "{}", "pyproject.toml": "[project]\nname = 'x'\n"})
    assert backend.is_javascript(js, "HEAD") is True
    assert backend.is_javascript(both, "HEAD") is False  # set up as Python, as before
    assert backend.is_javascript(js, "no-such-commit") is False  # the Python path reports it
