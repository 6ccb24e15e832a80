"""JS/TS recipe detection: the dev set's verified commits (runner, package manager, a Node line
compatible with the checker's, the build the compiled tests need), then one small snapshot per
rule, and which languages a snapshot holds."""

import json
import os
import subprocess
from datetime import date
from pathlib import Path

import pytest

from environment import detect_js_recipe, languages_of
from environment.js_detect import era_node_line, node_line_for, satisfies
from sandbox import JsRecipe

ROOT = Path(__file__).resolve().parents[2]
DEV_SET = ROOT.parent / "shared" / "real-repos-js"
DEV_COMMITS = json.loads((DEV_SET / "commits.json").read_text()) if (DEV_SET / "commits.json").exists() else []


def make_snapshot(root: Path, files: dict[str, str], day: str = "2024-03-01") -> Path:
    """A one-commit git repository holding `files`, committed on `day`."""
    root.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    env = {**os.environ, "GIT_AUTHOR_DATE": f"{day}T12:00:00", "GIT_COMMITTER_DATE": f"{day}T12:00:00"}
    for args in (["init", "-q"], ["add", "-A"], ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "s"]):
        subprocess.run(["git", "-C", str(root), *args], check=True, env=env, capture_output=True)
    return root


def package(**fields) -> str:
    return json.dumps({"name": "demo", "version": "1.0.0", **fields})


def recipe_of(tmp_path, files, day="2024-03-01") -> JsRecipe:
    return detect_js_recipe(make_snapshot(tmp_path / "repo", files, day), "HEAD")


# -- the dev set ----------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def dev_clones(tmp_path_factory):
    if not DEV_COMMITS:
        pytest.skip(f"the JS/TS dev set is not at {DEV_SET}")
    root = tmp_path_factory.mktemp("real-repos-js")
    clones = {}
    for repo in sorted({c["repo"] for c in DEV_COMMITS}):
        bundle = DEV_SET / f"{repo.replace('/', '__')}.bundle"
        clones[repo] = root / bundle.stem
        subprocess.run(["git", "clone", "-q", "--bare", str(bundle), str(clones[repo])], check=True)
    return clones


def compatible_node(detected: int, listed: int, engines: str | None, day: date) -> bool:
    """The checker's line, or a newer LTS line the project's range allows and its era had."""
    if detected == listed:
        return True
    allowed = engines is None or satisfies(engines, (detected, 10**6, 10**6))
    return allowed and detected % 2 == 0 and listed < detected <= era_node_line(day)


@pytest.mark.parametrize("entry", DEV_COMMITS, ids=[f"{c['repo']}@{c['commit'][:8]}" for c in DEV_COMMITS])
def test_dev_set_commit_recipe_agrees_with_the_checker(dev_clones, entry):
    clone = dev_clones[entry["repo"]]
    recipe = detect_js_recipe(clone, entry["commit"])
    assert languages_of(clone, entry["commit"]) == ("javascript",)
    assert recipe.runner == entry["runner"]
    assert recipe.package_manager == entry["package_manager"]
    listed_pin = entry["install"].split("@", 1)[1].split()[0] if "npx -y pnpm@" in entry["install"] else ""
    if listed_pin:  # the checker's pnpm (moved up where the pin fails on Node 20)
        assert recipe.package_manager_version == listed_pin
    if entry["package_manager"] == "npm":
        assert recipe.install.startswith("npm ci") == entry["install"].startswith("npm ci")
    package_json = json.loads(
        subprocess.run(
            ["git", "-C", str(clone), "show", f"{entry['commit']}:package.json"], capture_output=True, check=True
        ).stdout
    )
    engines = (package_json.get("engines") or {}).get("node")
    day = date.fromisoformat(entry["date"][:10])
    assert compatible_node(int(recipe.node), int(entry["node"]), engines, day), (recipe.node, recipe.sources)
    assert bool(recipe.build) == bool(entry["build"]), recipe.sources


def test_dev_set_commits_sharing_a_lockfile_share_an_install_key(dev_clones):
    # ufo 7959de5b and 4d024df0 hold the same pnpm-lock.yaml; eb299454 a newer one
    by_prefix = {c["commit"][:8]: c["commit"] for c in DEV_COMMITS if c["repo"] == "unjs/ufo"}
    key = {
        p: detect_js_recipe(dev_clones["unjs/ufo"], by_prefix[p]).key() for p in ("7959de5b", "4d024df0", "eb299454")
    }
    assert key["7959de5b"] == key["4d024df0"] != key["eb299454"]


# -- Node line --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("wanted", "day", "line"),
    [
        (">=18", "2024-03-01", 20),  # 22 was not LTS yet: the era's newest
        (">=18", "2025-01-10", 22),
        (">=18", "2026-12-01", 26),
        (">= 10", "2021-02-06", 20),  # the era's LTS (14) is older than the default
        ("^12.20.0 || >=14", "2022-09-06", 20),
        (">=22.12.0", "2024-03-01", 22),  # the range demands a line newer than its era
        ("^16", "2025-01-10", 16),
        ("^21.0.0", "2024-03-01", 21),  # only an odd line satisfies
        ("<=14", "2024-03-01", 16),  # nothing available satisfies: the nearest line
        ("^20.19.0 || ^22.12.0 || >=23", "2025-08-01", 22),
    ],
)
def test_node_line_for_an_engines_range(wanted, day, line):
    assert node_line_for(wanted, date.fromisoformat(day)) == line


@pytest.mark.parametrize(
    ("wanted", "version", "holds"),
    [
        ("^12.20.0 || >=14", (13, 0, 0), False),
        ("^12.20.0 || >=14", (12, 22, 0), True),
        ("18.x", (18, 5, 0), True),
        ("18.x", (19, 0, 0), False),
        ("16 - 20", (20, 9, 0), True),
        ("16 - 20", (21, 0, 0), False),
        ("~18.2", (18, 3, 0), False),
        (">18", (18, 9, 9), False),
        ("<=20", (20, 9, 9), True),
        ("*", (26, 0, 0), True),
    ],
)
def test_satisfies_reads_npm_ranges(wanted, version, holds):
    assert satisfies(wanted, version) is holds


def test_an_unparseable_engines_range_gets_the_default(tmp_path):
    recipe = recipe_of(tmp_path, {"package.json": package(engines={"node": "newest please"})})
    assert recipe.node == "20"
    assert any("does not parse" in s for s in recipe.sources)


@pytest.mark.parametrize(
    ("files", "line"),
    [
        ({".nvmrc": "v18.17.0\n"}, "18"),  # a pin beats the engines range
        ({".node-version": "lts/hydrogen"}, "18"),
        ({".nvmrc": "14"}, "16"),  # older than any line the registry holds: the oldest there
    ],
)
def test_a_version_file_pins_the_node_line(tmp_path, files, line):
    recipe = recipe_of(tmp_path, {"package.json": package(engines={"node": ">=16"}), **files})
    assert recipe.node == line


def test_volta_pins_the_node_line(tmp_path):
    assert recipe_of(tmp_path, {"package.json": package(volta={"node": "16.20.2"})}).node == "16"


def test_nothing_declared_gets_the_default_line(tmp_path):
    assert recipe_of(tmp_path, {"package.json": package()}, day="2026-06-01").node == "20"


# -- package manager and install ------------------------------------------------------------------


def test_package_manager_pin_wins_and_old_pnpm_moves_up_on_node_20(tmp_path):
    recipe = recipe_of(
        tmp_path,
        {"package.json": package(packageManager="pnpm@8.2.0+sha512.abc"), "pnpm-lock.yaml": "lockfileVersion: '6.0'\n"},
    )
    assert (recipe.package_manager, recipe.package_manager_version) == ("pnpm", "8.15.9")
    assert recipe.install == "npx -y pnpm@8.15.9 install --frozen-lockfile"


@pytest.mark.parametrize(
    ("lock_version", "pnpm"), [("'9.0'", "9"), ("'6.0'", "8"), ("5.4", "7.33.7"), ("5.3", "7.33.7")]
)
def test_pnpm_major_from_the_lockfile_version(tmp_path, lock_version, pnpm):
    recipe = recipe_of(tmp_path, {"package.json": package(), "pnpm-lock.yaml": f"lockfileVersion: {lock_version}\n"})
    assert recipe.package_manager_version == pnpm


def test_yarn_classic_from_a_v1_lockfile(tmp_path):
    recipe = recipe_of(tmp_path, {"package.json": package(), "yarn.lock": "# yarn lockfile v1\n"})
    assert (recipe.package_manager, recipe.package_manager_version, recipe.yarn_berry) == ("yarn", "1", False)
    assert recipe.install == "npx -y yarn@1 install --non-interactive --frozen-lockfile"


def test_yarn_berry_runs_its_checked_in_release_with_node_modules(tmp_path):
    recipe = recipe_of(
        tmp_path,
        {
            "package.json": package(),
            "yarn.lock": "__metadata:\n  version: 6\n",
            ".yarnrc.yml": "yarnPath: .yarn/releases/yarn-3.6.1.cjs\n",
            ".yarn/releases/yarn-3.6.1.cjs": "// yarn\n",
        },
    )
    assert (recipe.yarn_berry, recipe.package_manager_version) == (True, "3.6.1")
    assert recipe.install == "node .yarn/releases/yarn-3.6.1.cjs install --immutable"
    assert dict(recipe.env)["YARN_NODE_LINKER"] == "node-modules"


def test_yarn_berry_from_a_metadata_lockfile_alone(tmp_path):
    recipe = recipe_of(tmp_path, {"package.json": package(), "yarn.lock": "__metadata:\n  version: 8\n"})
    assert recipe.yarn_berry
    assert recipe.install == "npx -y -p @yarnpkg/cli-dist@4 yarn install --immutable"


def test_no_lockfile_installs_plainly_and_keys_on_the_dependencies(tmp_path):
    deps = {"devDependencies": {"mocha": "^10.0.0"}}
    first = recipe_of(tmp_path / "a", {"package.json": package(scripts={"test": "mocha"}, **deps)})
    rescripted = recipe_of(tmp_path / "b", {"package.json": package(scripts={"test": "mocha test/"}, **deps)})
    bumped = recipe_of(tmp_path / "c", {"package.json": package(devDependencies={"mocha": "^11.0.0"})})
    assert (first.lockfile, first.install) == ("", "npm install --no-audit --no-fund")
    assert first.key() == rescripted.key() != bumped.key()


def test_a_lockfile_keys_the_install_whatever_the_scripts(tmp_path):
    lock = '{"lockfileVersion": 3}'
    a = recipe_of(tmp_path / "a", {"package.json": package(scripts={"test": "jest"}), "package-lock.json": lock})
    b = recipe_of(tmp_path / "b", {"package.json": package(scripts={"test": "jest -i"}), "package-lock.json": lock})
    assert a.install == "npm ci --no-audit --no-fund"
    assert a.lockfile_hash == b.lockfile_hash and a.key() == b.key()


def test_a_dependency_whose_install_script_needs_the_network_turns_scripts_off(tmp_path):
    recipe = recipe_of(tmp_path, {"package.json": package(devDependencies={"top-sites": "1.1.225"})})
    assert recipe.ignore_scripts and recipe.install.endswith("--ignore-scripts")
    assert dict(recipe.env)["PUPPETEER_SKIP_DOWNLOAD"] == "1"


# -- runner ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fields", "extra", "runner", "options"),
    [
        ({"scripts": {"test": "ava"}, "devDependencies": {"ava": "^6.0.0"}}, {}, "ava", ()),
        ({"scripts": {"test": "node --test test/"}}, {}, "node-test", ()),
        ({}, {"test/a.test.mjs": "import test from 'node:test'\n"}, "node-test", ()),
        (
            {"scripts": {"test": "eslint . && npm run unit", "unit": "jest --coverage"}},
            {},
            "jest",
            (),
        ),
        (
            {"scripts": {"test": "nyc mocha --ui tdd --require ts-node/register --bail --reporter dot test/"}},
            {},
            "mocha",
            ("--ui", "tdd", "--require", "ts-node/register"),
        ),
        (  # several runners installed: the one with a config file
            {"scripts": {"test": "tool test"}, "devDependencies": {"jest": "^29", "vitest": "^2"}},
            {"jest.config.js": "module.exports = {}\n"},
            "jest",
            (),
        ),
    ],
)
def test_runner_detection(tmp_path, fields, extra, runner, options):
    recipe = recipe_of(tmp_path, {"package.json": package(**fields), **extra})
    assert (recipe.runner, recipe.runner_options) == (runner, options)


# -- build ----------------------------------------------------------------------------------------


def test_tests_importing_compiled_output_get_the_build_script(tmp_path):
    files = {
        "package.json": package(scripts={"pretest": "npm run lint", "lint": "eslint .", "build": "tsc"}),
        "src/index.ts": "export const a = 1\n",
        "test/a.test.js": "const { a } = require('../dist/index.js')\n",
    }
    assert recipe_of(tmp_path, files).build == ("npm run build",)


def test_tests_importing_the_package_whose_main_is_built(tmp_path):
    files = {
        "package.json": package(main="./lib/index.js", scripts={"compile": "babel src -d lib"}),
        "src/index.js": "module.exports = 1\n",
        "test/index.js": "const a = require('..')\n",
    }
    assert recipe_of(tmp_path, files).build == ("npm run compile",)


def test_a_pretest_that_compiles_beside_a_lint_keeps_only_the_compile(tmp_path):
    files = {
        "package.json": package(scripts={"pretest": "eslint . && rimraf build && tsc -p tsconfig.test.json"}),
        "test/a.spec.ts": "import { a } from '../src/a'\n",
    }
    assert recipe_of(tmp_path, files).build == ("rimraf build", "tsc -p tsconfig.test.json")


def test_tests_importing_sources_need_no_build(tmp_path):
    files = {
        "package.json": package(scripts={"build": "tsc"}, main="./dist/index.js"),
        "src/a.ts": "export const a = 1\n",
        "test/a.test.ts": "import { a } from '../src/a'\n",
    }
    assert recipe_of(tmp_path, files).build == ()


# -- the record and languages -----------------------------------------------------------------------


def test_js_recipe_round_trips_and_refuses_unknown_fields(tmp_path):
    recipe = recipe_of(tmp_path, {"package.json": package(scripts={"test": "mocha --ui qunit"})})
    assert JsRecipe.from_dict(json.loads(json.dumps(recipe.to_dict()))) == recipe
    with pytest.raises(ValueError, match="unknown JsRecipe fields: colour"):
        JsRecipe.from_dict({**recipe.to_dict(), "colour": "blue"})


@pytest.mark.parametrize(
    ("files", "languages"),
    [
        ({"pyproject.toml": "[project]\nname='a'\n", "a.py": ""}, ("python",)),
        ({"pkg/mod.py": "", "tests/test_mod.py": ""}, ("python",)),
        ({"package.json": "{}", "pnpm-lock.yaml": "", "test/a.test.js": ""}, ("javascript",)),
        ({"setup.py": "", "package.json": "{}"}, ("python", "javascript")),
        ({"Makefile": "all:\n", "main.c": "", "scripts/gen.py": ""}, ()),
    ],
)
def test_languages_of_a_snapshot(tmp_path, files, languages):
    assert languages_of(make_snapshot(tmp_path / "repo", files), "HEAD") == languages


def test_the_test_script_s_own_variables_reach_the_tests_and_never_the_install(tmp_path):
    """uuidjs/uuid 8d6e6a5: `BABEL_ENV=commonjs node --throw-deprecation node_modules/.bin/jest`;
    its babel config turns ESM into CommonJS only under that variable."""
    from sandbox.js_run import js_job

    script = "BABEL_ENV=commonjs PATH=/evil node --throw-deprecation node_modules/.bin/jest test/unit/"
    package = {"name": "p", "scripts": {"test": script}, "devDependencies": {"jest": "25"}}
    recipe = detect_js_recipe(make_snapshot(tmp_path / "a", {"package.json": json.dumps(package)}), "HEAD")
    assert recipe.runner == "jest" and recipe.test_env == (("BABEL_ENV", "commonjs"),)  # PATH is the run's own
    assert "BABEL_ENV" not in dict(recipe.env)  # not the install's (nor the image key's)
    plain = dict(package, scripts={"test": "node --throw-deprecation node_modules/.bin/jest test/unit/"})
    other = detect_js_recipe(make_snapshot(tmp_path / "b", {"package.json": json.dumps(plain)}), "HEAD")
    assert other.test_env == () and other.key() == recipe.key()
    job = js_job(recipe, ["test/unit/v4.test.js"], "/work/tree", "/work/sebgen")
    assert job["env"]["BABEL_ENV"] == "commonjs" and job["env"]["PATH"].startswith("/work/tree/node_modules/.bin")
    cross = dict(package, scripts={"test": "cross-env NODE_ENV=test mocha"}, devDependencies={"mocha": "10"})
    assert detect_js_recipe(make_snapshot(tmp_path / "c", {"package.json": json.dumps(cross)}), "HEAD").test_env == (
        ("NODE_ENV", "test"),
    )
    assert JsRecipe.from_dict(recipe.to_dict()) == recipe
