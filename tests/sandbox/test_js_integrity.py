"""What a JS/TS agent patch may not touch: the test files and everything that decides how the
tests are installed, collected or run are put back to the fixed state before verification
(sandbox.integrity; the attacks themselves run in Docker in test_js_attacks.py)."""

from __future__ import annotations

import pytest

from sandbox import is_protected, restore_for_verification


@pytest.mark.parametrize(
    "path",
    [
        "package.json",
        "packages/core/package.json",
        ".npmrc",
        ".yarnrc.yml",
        "jest.config.js",
        "jest.config.ts",
        "vitest.config.mts",
        "vite.config.ts",
        "vitest.workspace.ts",
        ".mocharc.yml",
        ".mocharc.cjs",
        ".mocharc.json",
        "ava.config.js",
        "babel.config.js",
        ".babelrc",
        "tsconfig.json",
        "tsconfig.build.json",
        "jest.setup.js",
        "src/setupTests.ts",
        "src/parse.test.ts",
        "lib/util.spec.mjs",
        "typings/index.test-d.ts",
        "src/__tests__/util.js",
        "spec/util.js",
        "test/helpers.js",
    ],
)
def test_js_test_and_config_files_are_protected(path):
    assert is_protected(path)


@pytest.mark.parametrize(
    "path", ["src/index.js", "lib/math.cjs", "src/config.ts", "src/setup.js", "spec/models.py", "src/spec.py"]
)
def test_js_sources_and_python_files_elsewhere_are_not(path):
    assert not is_protected(path)


def test_added_runner_configs_are_removed_and_package_json_reverted(tmp_path):
    fixed, tree = tmp_path / "fixed", tmp_path / "tree"
    for root in (fixed, tree):
        (root / "lib").mkdir(parents=True)
        (root / "package.json").write_text('{"scripts": {"test": "mocha"}}\n')
        (root / "lib" / "math.js").write_text("exports.add = (a, b) => a - b;\n")
    (tree / "package.json").write_text('{"scripts": {"test": "exit 0"}, "mocha": {"require": "./evil.cjs"}}\n')
    (tree / ".mocharc.yml").write_text("require: ./evil.cjs\n")
    (tree / "jest.config.js").write_text("module.exports = {};\n")
    (tree / "evil.cjs").write_text("require('node:assert').strictEqual = () => {};\n")
    (tree / "lib" / "math.js").write_text("exports.add = (a, b) => a + b;\n")  # the fix itself stays
    result = restore_for_verification(tree, fixed, set())
    assert result.reverted == ["package.json"] and result.removed == [".mocharc.yml", "jest.config.js"]
    assert (tree / "package.json").read_text() == '{"scripts": {"test": "mocha"}}\n'
    assert (tree / "lib" / "math.js").read_text() == "exports.add = (a, b) => a + b;\n"
    assert (tree / "evil.cjs").exists()  # inert once nothing loads it
