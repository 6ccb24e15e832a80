"""Reading a failed JavaScript/TypeScript install or test run and deciding the recipe change that
fixes it: the same `Fix` as Python's rules (`repair.py`), applied to a `JsRecipe` by `with_override`.

Rules, each on what npm, pnpm, yarn and Node themselves print:

- **registry-gone**: a dev dependency's pinned tarball is gone (404) -> drop it from package.json;
- **no-such-version**: a pinned version the registry never published (npm `ETARGET`, pnpm
  `ERR_PNPM_NO_MATCHING_VERSION`, yarn "Couldn't find any versions") -> the nearest published one;
- **peer-conflict**: npm `ERESOLVE` -> `legacy-peer-deps`; pnpm `ERR_PNPM_PEER_DEP_ISSUES` ->
  `strict-peer-dependencies=false` (yarn only warns);
- **node-engine**: a package's `engines.node` refuses this Node (npm `EBADENGINE` as an error,
  pnpm `ERR_PNPM_UNSUPPORTED_ENGINE`, yarn "The engine \"node\" is incompatible") -> the Node line
  the range asks for; **node-too-old** (`ERR_REQUIRE_ESM`, `node: bad option`, a built-in module it
  lacks, a syntax error on newer syntax) -> the next LTS line; **node-too-new** (OpenSSL 3's
  `ERR_OSSL_EVP_UNSUPPORTED` in an old webpack) -> the LTS line before it;
- **install-script-offline**: a dependency's install script failed for want of the network
  (node-gyp fetching Node's headers for `fibers`) -> install with scripts ignored;
- **lockfile-drift**: a frozen install refusing a lockfile that package.json no longer matches
  (`npm ci`'s "in sync", `ERR_PNPM_OUTDATED_LOCKFILE`, yarn's `--frozen-lockfile`, berry's YN0028)
  -> the non-frozen install;
- **missing-build**: a test imports a file of a folder the tree does not hold (`dist/`, `lib/`)
  and a package.json script builds -> run that script before the tests.

A rule fires only when its change alters the recipe ("a repair that changes nothing is not a
repair"); the version a `no-such-version` fix picks comes from the registry's list
(`published_versions`).
"""

from __future__ import annotations

import json
import posixpath
import re
import shlex
import urllib.parse
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import replace

from sandbox import JsRecipe, host_ca_bundle

from .js_detect import NODE_LINES, satisfies
from .repair import Fix

FROZEN_SWITCHES = (" --frozen-lockfile", " --immutable")
UNFROZEN = "frozen-lockfile"  # the `drop` entry that turns the frozen install into the plain one
INSTALL_SCRIPTS = "install-scripts"  # the `drop` entry that installs with dependencies' scripts ignored
DEV_DEPENDENCY = "devDependencies:"  # `drop` entries: a dev dependency taken out of package.json
DEPENDENCY_KEYS = ("devDependencies", "dependencies", "optionalDependencies")
# where a package manager takes a version for a package that no field of package.json names
OVERRIDE_FIELD = {"npm": ("overrides",), "pnpm": ("pnpm", "overrides"), "yarn": ("resolutions",)}
# folders a build writes by convention (a test importing one the tree lacks wants the build)
OUTPUT_FOLDERS = frozenset({"dist", "lib", "build", "out", "es", "esm", "cjs", "types", "compiled"})
NEWEST_LTS = max(m for m in NODE_LINES if m % 2 == 0 and m < NODE_LINES[-1])  # 24 of 16..26

# npm, pnpm and yarn name a tarball the registry no longer serves: `404 Not Found - GET
# https://registry.npmjs.org/top-sites/-/top-sites-1.1.225.tgz`
_GONE_TARBALL = re.compile(r"404[^\n]*?/((?:@[^/\s]+/)?[^/\s]+)/-/[^/\s]+\.tgz")
_NO_VERSION = re.compile(
    r"No matching version found for (?P<a>(?:@[^/\s]+/)?[^@\s]+)@(?P<aspec>[^\s]+?)\.?$|"
    r"Couldn't find any versions for \"(?P<b>[^\"]+)\" that matches \"(?P<bspec>[^\"]+)\"",
    re.M,
)
# a git command the install ran for a dependency and that failed: npm's `command git ... ls-remote
# ssh://git@github.com/owner/name.git`, yarn's `Arguments: ls-remote --tags --heads ssh://...`
_GIT_FETCH = re.compile(
    r"(?:ls-remote|clone)\b[^\n]*?(?:ssh://git@|git\+ssh://git@|https://|git://|git@)"
    r"(?:github\.com|gitlab\.com|bitbucket\.org)[/:](?P<path>[\w.-]+/[\w.-]+)"
)
# a dependency's install script that failed: npm's `error path .../node_modules/fibers` then
# `command failed`; yarn's `error .../node_modules/fibers: Command failed.`; pnpm's
# `.../node_modules/fibers postinstall: ...` / `install: ... Failed`
_SCRIPT_FAILED = re.compile(
    r"node_modules/(?:\.pnpm/[^/\s]+/node_modules/)?(?P<pkg>(?:@[^/\s]+/)?[^/\s:]+)"
    r"(?:\s*\n[^\n]*command failed|: Command failed| (?:pre|post)?install(?:\$|:)[^\n]*)",
    re.I,
)
# what a script that needed the network says
_OFFLINE = re.compile(r"\b(?:ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENETUNREACH)\b|getaddrinfo")
_NPM_PEER = re.compile(r"\bERESOLVE\b (?:unable to resolve dependency tree|could not resolve)")
_PNPM_PEER = re.compile(r"ERR_PNPM_PEER_DEP_ISSUES")
# the range an engines.node refused this Node with: npm's `notsup Required: {"node":">=22"}` (an
# error only: npm's warn EBADENGINE installs anyway), yarn's `Expected version ">=22.12.0". Got`,
# pnpm's `Expected version: >=22.12.0`
_ENGINE_RANGE = re.compile(
    r"npm (?:error|ERR!) notsup Required: \{[^}\n]*\"node\":\"(?P<npm>[^\"]+)\"|"
    r"error \S+: The engine \"node\" is incompatible with this module\. Expected version \"(?P<yarn>[^\"]+)\"|"
    r"^Expected version: (?P<pnpm>.+)$",
    re.M,
)
_PNPM_ENGINE = re.compile(r"ERR_PNPM_UNSUPPORTED_ENGINE")
_NODE_TOO_OLD = re.compile(
    r"\bERR_REQUIRE_ESM\b|^node: bad option: \S+|\bERR_UNKNOWN_BUILTIN_MODULE\b|"
    r"SyntaxError: Unexpected token '(?:\?\?=?|\?\.|\|\|=|&&=|#\w*)'|SyntaxError: Invalid regular expression flags",
    re.M,
)
_NODE_TOO_NEW = re.compile(r"ERR_OSSL_EVP_UNSUPPORTED|digital envelope routines::unsupported")
_DRIFT = re.compile(
    r"`npm ci` can only install packages when your package\.json and package-lock\.json|"
    r"ERR_PNPM_OUTDATED_LOCKFILE|Your lockfile needs to be updated, but yarn was run with `--frozen-lockfile`|"
    r"YN0028: .*lockfile would have been modified"
)
# a module a test could not load: `Cannot find module '../dist/index.js'` (CommonJS) or
# `Cannot find module '/work/tree/dist/index.js' imported from ...` (ESM)
_MISSING_MODULE = re.compile(r"Cannot find module '(?P<path>\.{1,2}/[^']+|/[^']+)'(?: imported from (?P<by>\S+))?")
_REQUIRE_STACK = re.compile(r"Require stack:\s*\n[#\s]*- (?P<by>\S+)")


def published_versions(name: str) -> list[str]:
    """The versions the npm registry lists for `name` (its abbreviated packument); [] when it
    cannot be reached."""
    import os
    import ssl

    registry = (os.environ.get("npm_config_registry") or "https://registry.npmjs.org").rstrip("/")
    url = f"{registry}/{urllib.parse.quote(name, safe='@')}"
    context = ssl.create_default_context()
    bundle = host_ca_bundle()
    if bundle:
        context.load_verify_locations(cadata=bundle.decode("ascii", errors="ignore"))
    request = urllib.request.Request(url, headers={"Accept": "application/vnd.npm.install-v1+json"})
    try:
        with urllib.request.urlopen(request, timeout=60, context=context) as response:
            return list(json.loads(response.read()).get("versions") or {})
    except (OSError, ValueError):
        return []


def _semver(text: str) -> tuple[int, int, int] | None:
    match = re.match(r"^[\^~=v>< ]*(\d+)(?:\.(\d+))?(?:\.(\d+))?$", text.strip())
    return tuple(int(g or 0) for g in match.groups()) if match else None  # type: ignore[return-value]


def nearest_version(wanted: str, versions: Sequence[str]) -> str:
    """The published release nearest to `wanted` ("7.0.99", "^2.4.9"): the newest at or below it in
    its major, else the oldest above it in its major, else the newest below it, else the oldest;
    "" when nothing is published (prereleases count only when nothing else is)."""
    releases = sorted((v, text) for text in versions if re.fullmatch(r"\d+\.\d+\.\d+", text) for v in [_semver(text)])
    target = _semver(wanted)
    if not releases or target is None:
        return ""
    same = [r for r in releases if r[0][0] == target[0]]
    below = [r for r in same if r[0] <= target] or [r for r in releases if r[0] <= target]
    if below:
        return below[-1][1]
    above = [r for r in same if r[0] > target]
    return (above or releases)[0][1]


def diagnose_js(
    log: str,
    recipe: JsRecipe,
    package: dict,
    stage: str,
    tree_files: set[str] = frozenset(),
    tree_root: str = "/work/tree",
    build_steps: Callable[[], list[str]] = lambda: [],
    versions_of: Callable[[str], list[str]] = published_versions,
) -> Fix | None:
    """The rule-based fix for a failed `stage` ("build": the install; "collection": a test run)
    of a snapshot with `package` (its package.json) and `tree_files` (checked out at `tree_root` in
    the run), or None. `build_steps` gives
    the commands that build the package (asked only when a test misses a built file);
    `versions_of` lists a package's published versions."""
    if stage == "build":
        fix = _install_fix(log, recipe, package, versions_of)
        if fix is not None:
            return fix
    node = _node_fix(log, recipe)
    if node is not None:
        return node
    if stage == "collection":
        return _missing_build_fix(log, recipe, package, tree_files, tree_root, build_steps)
    return None


def _install_fix(log: str, recipe: JsRecipe, package: dict, versions_of: Callable[[str], list[str]]) -> Fix | None:
    dev = set(package.get("devDependencies") or {})
    gone = sorted({name for name in _GONE_TARBALL.findall(log) if name in dev})
    if gone:
        return Fix(
            f"dropped the dev dependency {', '.join(gone)}: the registry no longer has its pinned tarball (404)",
            drop=[f"{DEV_DEPENDENCY}{name}" for name in gone],
            rule="registry-gone",
        )
    fix = _git_dependency_fix(log, package, versions_of)
    if fix is not None:
        return fix
    missing = _NO_VERSION.search(log)
    if missing:
        name, spec = missing.group("a") or missing.group("b"), missing.group("aspec") or missing.group("bspec")
        version = nearest_version(spec, versions_of(name))
        if version and version != spec:
            return Fix(
                f"{name}@{spec} was never published: take {version}, the nearest published release",
                packages=[f"{name}@{version}"],
                rule="no-such-version",
            )
    script = _SCRIPT_FAILED.search(log)
    if script and _OFFLINE.search(log[script.start() :]) and not recipe.ignore_scripts:
        return Fix(
            f"the install script of {script.group('pkg')} needs the network (it fetches what the install "
            "cannot reach): install with scripts ignored",
            drop=[INSTALL_SCRIPTS],
            rule="install-script-offline",
        )
    if recipe.package_manager == "npm" and _NPM_PEER.search(log):
        return Fix(
            "npm refuses the peer dependencies (ERESOLVE): install with legacy-peer-deps, as npm 6 did",
            env={"npm_config_legacy_peer_deps": "true"},
            rule="peer-conflict",
        )
    if recipe.package_manager == "pnpm" and _PNPM_PEER.search(log):
        return Fix(
            "pnpm refuses unmet peer dependencies (strict-peer-dependencies): install without that check",
            env={"npm_config_strict_peer_dependencies": "false"},
            rule="peer-conflict",
        )
    frozen = any(s in recipe.install for s in FROZEN_SWITCHES) or re.search(r"\bnpm(@\S+)? ci\b", recipe.install)
    if frozen and _DRIFT.search(log):
        return Fix(
            "the lockfile no longer matches package.json and the frozen install refuses it: "
            "install without freezing the lockfile (versions the lockfile does not pin are resolved anew)",
            drop=[UNFROZEN],
            rule="lockfile-drift",
        )
    return None


def nearest_node_line(wanted: str, current: int) -> int | None:
    """The Node line nearest to `current` whose newest release satisfies `wanted` (an engines.node
    range), LTS lines first: the next one up when `current` is too old, the next one down when it
    is too new; None when no line does. Raises ValueError when the range does not parse."""
    fits = [m for m in NODE_LINES if satisfies(wanted, (m, 10**6, 10**6))]
    for lines in ([m for m in fits if m % 2 == 0], fits):
        above, below = [m for m in lines if m > current], [m for m in lines if m < current]
        if current in lines or above or below:
            return current if current in lines else min(above) if above else max(below)
    return None


def _git_dependency_fix(log: str, package: dict, versions_of: Callable[[str], list[str]]) -> Fix | None:
    """A dev dependency installed from a git host the install cannot reach (no ssh, no account)
    -> the registry's newest release of the same name when there is one, else dropped."""
    dev = {name: str(spec) for name, spec in (package.get("devDependencies") or {}).items()}
    for m in _GIT_FETCH.finditer(log):
        where = m.group("path").removesuffix(".git").lower()
        for name, spec in sorted(dev.items()):
            if not re.search(rf"(?:^|[:/]){re.escape(where)}(?:\.git)?(?:#.*)?$", spec.lower()):
                continue
            newest = nearest_version(f"{10**9}.0.0", versions_of(name))
            if newest:
                return Fix(
                    f"the dev dependency {name} comes from git ({spec}), which the install cannot fetch: "
                    f"take the registry's {name}@{newest}",
                    packages=[f"{name}@{newest}"],
                    rule="git-dependency",
                )
            return Fix(
                f"the dev dependency {name} comes from git ({spec}), which the install cannot fetch "
                "and the registry does not have: drop it",
                drop=[f"{DEV_DEPENDENCY}{name}"],
                rule="git-dependency",
            )
    return None


def _node_fix(log: str, recipe: JsRecipe) -> Fix | None:
    current = int(recipe.node)
    for m in _ENGINE_RANGE.finditer(log):
        wanted = (m.group("npm") or m.group("yarn") or m.group("pnpm") or "").strip()
        if m.group("pnpm") and not _PNPM_ENGINE.search(log):
            continue
        try:
            line = nearest_node_line(wanted, current)
        except ValueError:
            continue
        if line is not None and line != current:
            return Fix(
                f"a package's engines.node {wanted!r} refuses Node {current}: install Node {line}",
                node=str(line),
                rule="node-engine",
            )
    old = _NODE_TOO_OLD.search(log)
    if old and current < NEWEST_LTS:
        newer = next(m for m in NODE_LINES if m > current and m % 2 == 0)
        return Fix(
            f"Node {current} is too old for the code ({old.group(0).strip()}): install Node {newer}",
            node=str(newer),
            rule="node-too-old",
        )
    new = _NODE_TOO_NEW.search(log)
    if new and current > NODE_LINES[0]:
        older = max(m for m in NODE_LINES if m < current and m % 2 == 0)
        return Fix(
            f"Node {current} is too new for the code ({new.group(0).strip()}): install Node {older}",
            node=str(older),
            rule="node-too-new",
        )
    return None


def _missing_build_fix(
    log: str,
    recipe: JsRecipe,
    package: dict,
    tree_files: set[str],
    tree_root: str,
    build_steps: Callable[[], list[str]],
) -> Fix | None:
    """A test imports a file of an output folder the tree does not hold (a conventional one, or
    one package.json's entry points name) -> the package's build."""
    top = {f.split("/")[0] for f in tree_files}
    entries = json.dumps([package.get(k) for k in ("main", "module", "exports", "types", "typings", "bin", "files")])
    for m in _MISSING_MODULE.finditer(log):
        path = m.group("path")
        if path.startswith("."):
            stack = _REQUIRE_STACK.search(log, m.end())
            by = m.group("by") or (stack.group("by") if stack else "")
            if not by:
                continue
            path = posixpath.normpath(posixpath.join(posixpath.dirname(by), path))
        relative = _in_tree(path, tree_root)
        folder = relative.split("/")[0] if "/" in relative else ""
        if (
            not folder
            or folder in top
            or not (folder in OUTPUT_FOLDERS or re.search(rf'"(?:\./)?{re.escape(folder)}/', entries))
        ):
            continue
        steps = [s for s in build_steps() if s not in recipe.build]
        if steps:
            return Fix(
                f"the tests import {relative}, which the tree does not hold: run {'; '.join(steps)} first",
                build=steps,
                rule="missing-build",
            )
        return None
    return None


def _in_tree(path: str, root: str) -> str:
    """`path` relative to the run's tree (`/work/tree/dist/x.js` -> `dist/x.js`), or ''."""
    path, root = path.removeprefix("file://"), root.rstrip("/") + "/"
    return path[len(root) :] if path.startswith(root) else ""


def with_override(recipe: JsRecipe, override: dict, package: dict, reasons: Sequence[str] = ()) -> JsRecipe:
    """`recipe` with a learned override applied: another Node, package.json edits (dropped dev
    dependencies, versions set) before the install, the frozen install made plain (which any
    package.json edit needs), install env, build steps; `reasons` join its sources."""
    if not override:
        return recipe
    edits: list[list] = []  # [key path, value or None to delete]
    deletes: list[str] = []  # `npm pkg delete` paths (a name with no dot: the form images were first keyed by)
    for entry in override.get("drop") or []:
        if entry.startswith(DEV_DEPENDENCY):
            name = entry[len(DEV_DEPENDENCY) :]
            if re.fullmatch(r"(?:@[\w-]+/)?[\w-]+", name):
                deletes.append(f"devDependencies.{name}")
            else:
                edits.append([["devDependencies", name], None])
    for spec in override.get("packages") or []:
        name, _, version = spec.rpartition("@")
        field = next((k for k in DEPENDENCY_KEYS if name in (package.get(k) or {})), None)
        path = [field] if field else list(OVERRIDE_FIELD.get(recipe.package_manager, ("overrides",)))
        edits.append([[*path, name], version])
    install = recipe.install
    if edits or deletes or UNFROZEN in (override.get("drop") or []):
        install = _unfrozen(install, recipe)
    if edits:
        install = f"node -e {shlex.quote(_EDIT_SCRIPT)} {shlex.quote(json.dumps(edits))} && {install}"
    if deletes:
        install = f"npm pkg delete {' '.join(deletes)} && {install}"
    env = dict(recipe.env)
    ignore_scripts = recipe.ignore_scripts or INSTALL_SCRIPTS in (override.get("drop") or [])
    if ignore_scripts and not recipe.ignore_scripts:  # as detection spells it for a known package
        if recipe.yarn_berry:
            env["YARN_ENABLE_SCRIPTS"] = "false"
        else:
            install += " --ignore-scripts"
    env.update({str(k): str(v) for k, v in (override.get("env") or {}).items()})
    build = tuple(dict.fromkeys([*recipe.build, *(override.get("build") or [])]))
    return replace(
        recipe,
        node=str(override.get("node") or recipe.node),
        install=install,
        ignore_scripts=ignore_scripts,
        env=tuple(sorted(env.items())),
        build=build,
        sources=(*recipe.sources, *(f"repair: {r}" for r in reasons)),
    )


# edits package.json in place: argv[1] is a JSON list of [key path, value (null: delete)]
_EDIT_SCRIPT = (
    'const fs=require("fs"),p=JSON.parse(fs.readFileSync("package.json","utf8"));'
    "for(const[path,v]of JSON.parse(process.argv[1])){let o=p;"
    "for(const k of path.slice(0,-1))o=o[k]=o[k]&&typeof o[k]==='object'?o[k]:{};"
    "const last=path[path.length-1];if(v===null)delete o[last];else o[last]=v}"
    'fs.writeFileSync("package.json",JSON.stringify(p,null,2)+"\\n")'
)


def _unfrozen(install: str, recipe: JsRecipe) -> str:
    """The install without freezing the lockfile: `npm ci` -> `npm install`; pnpm and yarn berry
    freeze by default under CI, so they get the explicit opposite switch."""
    for switch in FROZEN_SWITCHES:
        install = install.replace(switch, "")
    install = re.sub(r"\bnpm(@\S+)? ci\b", r"npm\1 install", install)
    if recipe.package_manager == "pnpm" and "--no-frozen-lockfile" not in install:
        install = re.sub(r"\binstall\b", "install --no-frozen-lockfile", install, count=1)
    elif recipe.yarn_berry and "--no-immutable" not in install:
        install = re.sub(r"\binstall\b", "install --no-immutable", install, count=1)
    return install
