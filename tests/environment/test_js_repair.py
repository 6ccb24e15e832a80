"""The JS/TS repair rules on real logs: each log in tests/data/js/repair-logs was captured from a
real failing npm 11 / pnpm 9 / yarn 1 / Node 20 run on a small fixture (the log's name says
which), and each rule must fire on its own logs and on no other log ("a repair that changes
nothing is not a repair"). `with_override` is checked by running its package.json edit with the
host's Node when there is one."""

from __future__ import annotations

import json
import shutil
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest

from environment.js_detect import build_script_steps, detect_js_recipe
from environment.js_repair import diagnose_js, nearest_version, with_override
from environment.js_setup import JsRecipeBook, run_text
from sandbox import JsRecipe, TestRun
from tests.sandbox_fixtures import make_repo

LOGS = Path(__file__).resolve().parents[1] / "data" / "js" / "repair-logs"
# the registry's lists, captured
VERSIONS = {name: json.loads((LOGS / f"{name}-versions.json").read_text()) for name in ("is-number", "time-require")}
IS_NUMBER = VERSIONS["is-number"]
NPM = JsRecipe(node="20", package_manager="npm", lockfile="package-lock.json", install="npm ci --no-audit --no-fund")
PNPM = JsRecipe(
    node="20", package_manager="pnpm", package_manager_version="9", install="npx -y pnpm@9 install --frozen-lockfile"
)
YARN = JsRecipe(
    node="20", package_manager="yarn", package_manager_version="1", install="npx -y yarn@1 install --frozen-lockfile"
)
PACKAGE = {
    "name": "p",
    "devDependencies": {
        "is-number": "7.0.99",
        "top-sites": "1.1.225",
        "time-require": "github:jonschlinkert/time-require",  # micromatch/picomatch at 9caca07
    },
}
BUILD = ["npm run build"]
# tree of the missing-build log (a node --test run in /tmp/jsenv-logs/build)
BUILD_TREE = {"package.json", "src/index.js", "test/add.test.js"}

# log -> (the recipe it came from, the rule that must fire on it, what the fix must say)
EXPECTED = {
    "etarget.log": (NPM, "build", "no-such-version", {"packages": ["is-number@7.0.0"]}),
    "pnpm-notarget.log": (PNPM, "build", "no-such-version", {"packages": ["is-number@7.0.0"]}),
    "yarn-notarget.log": (YARN, "build", "no-such-version", {"packages": ["is-number@7.0.0"]}),
    "eresolve.log": (NPM, "build", "peer-conflict", {"env": {"npm_config_legacy_peer_deps": "true"}}),
    "pnpm-peer.log": (PNPM, "build", "peer-conflict", {"env": {"npm_config_strict_peer_dependencies": "false"}}),
    "ebadengine.log": (NPM, "build", "node-engine", {"node": "22"}),
    "pnpm-engine.log": (PNPM, "build", "node-engine", {"node": "22"}),  # >=22.12.0: 22's newest release
    "yarn-engine.log": (YARN, "build", "node-engine", {"node": "22"}),
    "npm-ci-drift.log": (NPM, "build", "lockfile-drift", {"drop": ["frozen-lockfile"]}),
    "pnpm-frozen-drift.log": (PNPM, "build", "lockfile-drift", {"drop": ["frozen-lockfile"]}),
    "yarn-frozen-drift.log": (YARN, "build", "lockfile-drift", {"drop": ["frozen-lockfile"]}),
    "node-require-esm.log": (NPM, "collection", "node-too-old", {"node": "22"}),
    "node-bad-option.log": (NPM, "collection", "node-too-old", {"node": "22"}),
    "node-unknown-builtin.log": (NPM, "collection", "node-too-old", {"node": "22"}),  # node:sqlite
    "node-test-missing-build.log": (NPM, "collection", "missing-build", {"build": BUILD}),
    # the image build log of micromatch/picomatch 9caca07 (2019) in SEBGen's sandbox: no ssh for git
    "picomatch-9caca07-git-dependency.log": (NPM, "build", "git-dependency", {"packages": ["time-require@0.1.2"]}),
    # uuidjs/uuid 8d6e6a5 (2020): fibers (under @wdio) runs node-gyp, which fetches Node's headers
    "uuid-8d6e6a5-install-script-offline.log": (NPM, "build", "install-script-offline", {"drop": ["install-scripts"]}),
}


def diagnose(name: str, recipe: JsRecipe, stage: str):
    return diagnose_js(
        (LOGS / name).read_text(),
        recipe,
        PACKAGE,
        stage,
        tree_files=BUILD_TREE,
        tree_root="/tmp/jsenv-logs/build",
        build_steps=lambda: list(BUILD),
        versions_of=lambda name: VERSIONS.get(name, []),
    )


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_real_log_gets_its_rule(name):
    recipe, stage, rule, wanted = EXPECTED[name]
    fix = diagnose(name, recipe, stage)
    assert fix is not None and fix.rule == rule, (name, fix)
    for key, value in wanted.items():
        assert getattr(fix, key) == value, (name, key, fix)
    assert fix.changes({}) and fix.reason


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_no_rule_fires_on_a_log_of_another_failure(name):
    """Every other log, read with every recipe and stage, never yields this log's rule's fix."""
    rule = EXPECTED[name][2]
    for other, (_, _, other_rule, _) in EXPECTED.items():
        if other_rule == rule:
            continue
        for manager in (NPM, PNPM, YARN):
            for where in ("build", "collection"):
                fix = diagnose(other, manager, where)
                assert fix is None or fix.rule != rule, (other, manager.package_manager, where, fix)


def test_a_failed_install_script_that_did_not_need_the_network_is_no_diagnosis():
    log = (LOGS / "uuid-8d6e6a5-install-script-offline.log").read_text().replace("ENOTFOUND", "EACCES")
    assert diagnose_js(log, NPM, PACKAGE, "build") is None
    ignoring = replace(NPM, ignore_scripts=True)  # scripts already ignored: nothing to change
    assert diagnose_js((LOGS / "uuid-8d6e6a5-install-script-offline.log").read_text(), ignoring, {}, "build") is None


def test_a_fix_that_would_change_nothing_does_not_fire():
    unfrozen = replace(NPM, install="npm install --no-audit --no-fund")
    assert diagnose("npm-ci-drift.log", unfrozen, "build") is None  # the install is not frozen: nothing to drop
    assert diagnose("ebadengine.log", replace(NPM, node="22"), "build") is None  # already the Node asked for
    assert diagnose("node-require-esm.log", replace(NPM, node="24"), "collection") is None  # the newest LTS
    assert diagnose("node-test-missing-build.log", replace(NPM, build=tuple(BUILD)), "collection") is None
    # a peer conflict of npm's is not pnpm's, and the reverse
    assert diagnose("eresolve.log", PNPM, "build") is None and diagnose("pnpm-peer.log", NPM, "build") is None
    # install failures are not read in a test run, nor a missing build in an install
    assert diagnose("etarget.log", NPM, "collection") is None
    assert diagnose("node-test-missing-build.log", NPM, "build") is None


def test_npm_warns_of_an_engine_without_failing_and_that_is_no_diagnosis():
    warned = 'npm warn EBADENGINE Unsupported engine {\nnpm warn EBADENGINE   required: { node: ">=22" },\n'
    assert diagnose_js(warned, NPM, {}, "build") is None


def test_a_module_missing_from_a_folder_the_tree_holds_is_not_a_missing_build():
    log = (LOGS / "node-test-missing-build.log").read_text()
    root = "/tmp/jsenv-logs/build"
    held = diagnose_js(log, NPM, {}, "collection", BUILD_TREE | {"dist/other.js"}, root, lambda: BUILD)
    assert held is None  # dist/ is in the tree: the import's target is the code's own business
    assert diagnose_js(log, NPM, {}, "collection", BUILD_TREE, root, lambda: []) is None  # nothing builds
    esm = (
        "Error [ERR_MODULE_NOT_FOUND]: Cannot find module '/work/tree/lib/index.mjs' "
        "imported from /work/tree/test/a.mjs"
    )
    fix = diagnose_js(esm, NPM, {}, "collection", {"src/index.ts"}, build_steps=lambda: ["npm run compile"])
    assert fix.build == ["npm run compile"] and "lib/index.mjs" in fix.reason
    # a folder no build writes (a fixture the patch adds) is the code's business; one main names is a build's
    other = esm.replace("/lib/", "/fixtures/")
    assert diagnose_js(other, NPM, {}, "collection", {"src/a.ts"}, build_steps=lambda: ["tsc"]) is None
    named = esm.replace("/lib/", "/target/")
    main = {"main": "./target/index.mjs"}
    assert diagnose_js(named, NPM, main, "collection", {"src/a.ts"}, build_steps=lambda: ["tsc"]).build == ["tsc"]


@pytest.mark.parametrize(
    ("wanted", "expected"),
    [("7.0.99", "7.0.0"), ("^6.9.0", "6.0.0"), ("3.1.0", "3.0.0"), ("0.0.1", "0.1.0"), ("99.0.0", "7.0.0")],
)
def test_the_nearest_published_version(wanted, expected):
    assert nearest_version(wanted, IS_NUMBER) == expected
    assert nearest_version(wanted, []) == ""


def test_a_git_dependency_the_registry_does_not_have_is_dropped():
    log = (LOGS / "picomatch-9caca07-git-dependency.log").read_text()
    fix = diagnose_js(log, NPM, PACKAGE, "build", versions_of=lambda name: [])
    assert fix.rule == "git-dependency" and fix.drop == ["devDependencies:time-require"]
    other = {"devDependencies": {"time-require": "github:someone-else/time-require"}}
    assert diagnose_js(log, NPM, other, "build", versions_of=lambda name: []) is None  # not that repository


def test_an_unpublished_version_with_nothing_published_gets_no_fix():
    assert diagnose_js((LOGS / "etarget.log").read_text(), NPM, PACKAGE, "build", versions_of=lambda n: []) is None


def test_with_override_changes_node_env_build_and_the_frozen_install():
    over = {"node": "22", "env": {"npm_config_legacy_peer_deps": "true"}, "build": ["npm run build"]}
    out = with_override(NPM, over, {}, ["because"])
    assert (out.node, dict(out.env), out.build) == ("22", {"npm_config_legacy_peer_deps": "true"}, ("npm run build",))
    assert out.install == NPM.install and out.sources == ("repair: because",)
    assert out.key() != NPM.key()  # a new image
    plain = {"drop": ["frozen-lockfile"]}
    assert with_override(NPM, plain, {}).install == "npm install --no-audit --no-fund"
    # pnpm and yarn berry freeze by default under CI: the opposite switch is spelled out
    assert with_override(PNPM, plain, {}).install == "npx -y pnpm@9 install --no-frozen-lockfile"
    berry = JsRecipe(node="20", package_manager="yarn", yarn_berry=True, install="yarn install --immutable")
    assert with_override(berry, plain, {}).install == "yarn install --no-immutable"
    assert with_override(YARN, plain, {}).install == "npx -y yarn@1 install"
    scripts = with_override(NPM, {"drop": ["install-scripts"]}, {})
    assert scripts.install == "npm ci --no-audit --no-fund --ignore-scripts" and scripts.ignore_scripts
    berry = with_override(berry, {"drop": ["install-scripts"]}, {})
    assert dict(berry.env)["YARN_ENABLE_SCRIPTS"] == "false" and "--ignore-scripts" not in berry.install
    # only the build changed: the same image (build steps run in each run's tree)
    assert with_override(NPM, {"build": ["tsc"]}, {}).key() == NPM.key()


@pytest.mark.skipif(
    shutil.which("node") is None or shutil.which("npm") is None, reason="no host Node and npm to run the edits with"
)
def test_the_package_json_edit_runs_and_edits_what_the_fix_says(tmp_path):
    package = {
        "name": "p",
        "dependencies": {"lodash.merge": "4.6.99"},
        "devDependencies": {"top-sites": "1", "gulp.spritesmith": "6"},
    }
    (tmp_path / "package.json").write_text(json.dumps(package))
    over = {
        "packages": ["lodash.merge@4.6.2", "@scope/deep@1.0.0"],
        "drop": ["devDependencies:top-sites", "devDependencies:gulp.spritesmith"],
    }
    out = with_override(NPM, over, package)
    *edits, install = out.install.split(" && ")
    assert install == "npm install --no-audit --no-fund"  # an edited package.json unfreezes
    subprocess.run(["/bin/sh", "-c", " && ".join(edits)], cwd=tmp_path, check=True)
    assert json.loads((tmp_path / "package.json").read_text()) == {
        "name": "p",
        "dependencies": {"lodash.merge": "4.6.2"},  # a dotted name stays one key
        "devDependencies": {},
        "overrides": {"@scope/deep": "1.0.0"},  # not named by package.json: npm's overrides
    }
    pnpm = with_override(PNPM, {"packages": ["x@1.0.0"]}, {})
    assert '["pnpm", "overrides", "x"]' in pnpm.install and "--no-frozen-lockfile" in pnpm.install


def js_repo(tmp_path: Path, package: dict, files: dict | None = None) -> Path:
    lock = json.dumps({"name": "p", "lockfileVersion": 3, "packages": {}})
    files = {"package.json": json.dumps(package), "package-lock.json": lock, **(files or {})}
    root, _ = make_repo(tmp_path / "p", files)
    return root


def test_the_book_learns_each_repair_once_and_keeps_it_for_later_processes(tmp_path):
    package = {"name": "p", "scripts": {"test": "node --test"}, "devDependencies": {"is-number": "7.0.99"}}
    root = js_repo(tmp_path, package)
    book = JsRecipeBook(tmp_path / "cache", versions_of=lambda name: IS_NUMBER)
    fix = book.repair(root, "HEAD", (LOGS / "etarget.log").read_text())
    assert fix.rule == "no-such-version" and fix.packages == ["is-number@7.0.0"]
    assert book.repair(root, "HEAD", (LOGS / "etarget.log").read_text()) is None  # learned: nothing changes
    assert book.repair(root, "HEAD", (LOGS / "ebadengine.log").read_text()).node == "22"
    later = JsRecipeBook(tmp_path / "cache").recipe_for(root, "HEAD")
    assert later.node == "22" and later.install.startswith("node -e ") and " npm install " in later.install
    assert any("is-number@7.0.99 was never published" in s for s in later.sources)
    assert JsRecipeBook(tmp_path / "other").recipe_for(root, "HEAD") == detect_js_recipe(root, "HEAD")


def test_a_cache_of_the_first_format_still_drops_its_dev_dependencies(tmp_path):
    root = js_repo(tmp_path, {"name": "p", "scripts": {"test": "node --test"}, "devDependencies": {"top-sites": "1"}})
    from sandbox import repo_name

    path = tmp_path / "cache" / "recipes" / f"{repo_name(root)}.js.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"dropped_dev_dependencies": ["top-sites"], "fixes": []}))
    recipe = JsRecipeBook(tmp_path / "cache").recipe_for(root, "HEAD")
    assert recipe.install.startswith("npm pkg delete devDependencies.top-sites && npm install ")


def test_the_build_a_missing_build_gets_is_the_script_that_compiles(tmp_path):
    package = {"name": "p", "scripts": {"test": "node --test", "prepare": "husky install", "build": "tsc -p ."}}
    root = js_repo(tmp_path, package)
    assert build_script_steps(root, "HEAD") == ["npm run build"]  # prepare runs husky: not a build
    plain = js_repo(tmp_path / "b", {"name": "p", "scripts": {"test": "node --test", "build": "node make.js"}})
    assert build_script_steps(plain, "HEAD") == ["npm run build"]
    none = js_repo(tmp_path / "c", {"name": "p", "scripts": {"test": "node --test"}})
    assert build_script_steps(none, "HEAD") == []


def test_a_run_s_text_holds_its_note_its_failures_and_its_log():
    run = TestRun(
        outcomes={"a": "error"},
        exit_code=1,
        timed_out=False,
        duration_s=1.0,
        image="",
        note="the build step `tsc` failed",
        log_tail="tail",
        failures={"a": {"error": "Error: Cannot find module '../dist/x.js'", "message": "m"}},
    )
    text = run_text(run)
    assert "tsc" in text and "dist/x.js" in text and "tail" in text


def test_a_missing_build_in_a_sandbox_run_s_own_log():
    """The log of a real Docker run (tests/data/js/drift-build before its build): the file that did
    not load and why, as `js_test_run` puts it in the log."""
    log = (LOGS / "docker-node-test-missing-build.log").read_text()
    tree = {"package.json", "package-lock.json", "make.js", "src/index.js", "test/add.test.js"}
    fix = diagnose_js(log, NPM, {"main": "dist/index.js"}, "collection", tree, build_steps=lambda: BUILD)
    assert fix.rule == "missing-build" and fix.build == BUILD and "dist/index.js" in fix.reason
    assert diagnose_js(log, NPM, {}, "build", tree, build_steps=lambda: BUILD) is None
