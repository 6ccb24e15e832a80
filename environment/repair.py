"""Reading a failed install or test-collection log and deciding the recipe change that fixes it.

Rules first (missing module -> its package; unknown pytest option or ini key -> the plugin that
defines it; VCS version -> pretend version; a pytest too new for the suite (the environment's
pytest, read from the logs, at least the release the log blames; or pytest's own error that a
PytestRemovedInNWarning the suite names is gone) -> pin below it; a nose-era suite (yield tests,
a collection error from pytest 8.4; or failing tests whose nose-style setup pytest 8 no longer
calls, `nose_setup_fix`) -> pytest<8; two of the
recipe's pins the resolver cannot satisfy together -> the one depended on relaxed to the range
the other accepts; a release the recipe pins exactly that does not build here -> a later release
of it; a source that replaced a dependency of the test runner (pytest no longer
imports) -> the runner's own requirement installed after it, or that source dropped; a
pytest plugin whose code the failure's traceback ends in (an internal error, a usage error, an
error at collection or setup) -> that plugin and pytest at the releases contemporary with the
commit, within the suite's own pins (`environment.versions`); a plugin pytest cannot load because
a library below it imports the project and gets the tree's own -> that plugin uninstalled
(`shadowed-plugin`); a failing optional dependency
source -> drop it; tests of the commit failing on the API of a package newer than the commit ->
that package at the commit's release, `outdated_dependency`; so is a test module or conftest that
no longer imports because a package lacks a name, at the collection stage). When no rule applies and a model is
configured, `advice_prompt` / `parse_advice` turn the log into a question and the answer into
the same kind of change. JavaScript/TypeScript's rules (`js_repair.py`) answer with this `Fix` too.
"""

from __future__ import annotations

import ast
import json
import re
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from packaging.version import InvalidVersion, Version

from records import file_of_test, node_names
from sandbox import BUILD_SOURCE, STEP_MARK, InstallRecipe, lacked_names, sandbox_pytest_version, skip_reasons

from .recipe_sources import KNOWN, PLUGIN_FLAGS, PLUGIN_INI_KEYS
from .versions import Snapshot, installed_versions, installs_on, normalize, pytest_floor

MODULE_PACKAGES: dict[str, str] = KNOWN["module_packages"]  # import name -> distribution, where they differ
FIXTURE_PLUGINS: dict[str, str] = KNOWN["fixture_plugins"]  # fixture -> the plugin that provides it
_PY2_STDLIB = set(KNOWN["python2_stdlib"])  # missing because the code is Python 2 era, not a package
_VCS_FAILURE = re.compile(
    r"setuptools-scm was unable to detect version|unable to detect version|LookupError:.*setuptools.scm|"
    r"Versioning for this project requires either an sdist|Error getting the version from source .vcs.|"
    r"PBR_VERSION|could not determine .*version from git|fatal: not a git repository",
    re.I,
)
# pytest's own account of a class the suite names that this pytest no longer has, e.g. a warning
# filter "ignore::pytest.PytestRemovedIn8Warning" under pytest 9
_MISSING_PYTEST_CLASS = re.compile(r"module 'pytest' has no attribute '(?P<name>PytestRemovedIn(?P<major>\d+)Warning)'")
# pip could not even read the project's own metadata (the source it was given, not a dependency)
_OWN_METADATA_FAILED = re.compile(
    rf"Encountered error while generating package metadata\.\s*\n\S*\s*from file://{re.escape(BUILD_SOURCE)}\b|"
    # an old build backend writes metadata today's pip rejects (parsita's poetry-core: `>=0.20,<0.21 || ...`)
    rf"Requested \S+ from file://{re.escape(BUILD_SOURCE)}\S* has invalid metadata"
)
_PIP_FAILURE = re.compile(
    r"ResolutionImpossible|Could not find a version that satisfies|No matching distribution found|"
    r"subprocess-exited-with-error|Failed building wheel|requires a different Python|"
    r"Could not open requirements file|Invalid requirement|error: metadata-generation-failed",
    re.I,
)
# pytest 8.4+ on a nose-style test generator (`def test_x(): yield check, a`)
_YIELD_TESTS = re.compile(r"'yield' keyword is allowed in fixtures, but not in tests")
PRETEND_VARS = ("SETUPTOOLS_SCM_PRETEND_VERSION", "PBR_VERSION", "PDM_BUILD_SCM_VERSION")


def install_failure(log: str) -> str:
    """What a failed install's log says went wrong, in a few words ('' when it does not tell):
    the cause a farm's summary counts."""
    if re.search(r"ResolutionImpossible|conflicting dependencies", log):
        return "pin conflict"
    if re.search(r"requires a different Python", log):
        return "Python version"
    if re.search(r"Could not find a version that satisfies|No matching distribution found", log):
        return "no matching distribution"
    if failed_step(log) == "check":
        return "test runner does not import"
    if re.search(r"Failed building wheel|subprocess-exited-with-error|metadata-generation-failed", log, re.I):
        return "package build failed"
    return ""


@dataclass
class Fix:
    """A change to a repo's install override, and the sentence saying why."""

    reason: str
    packages: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    drop: list[str] = field(default_factory=list)
    build_packages: list[str] = field(default_factory=list)
    extras: list[str] = field(default_factory=list)  # the project's extras to install as well
    unpin: list[str] = field(default_factory=list)  # the override's packages this fix takes out (relaxed pins)
    rule: str = ""
    node: str = ""  # JS: the Node major to install instead
    uninstall: list[str] = field(default_factory=list)  # plugins to remove after the install
    build: list[str] = field(default_factory=list)  # JS: commands the tests need first (a missing build)

    def apply(self, override: dict) -> dict:
        """`override` with this fix merged in (a new dict)."""
        out = dict(override)
        for key in ("packages", "drop", "build_packages", "extras", "build", "uninstall"):
            merged = [p for p in out.get(key) or [] if key != "packages" or p not in self.unpin]
            merged += [p for p in getattr(self, key) if p not in merged]
            if merged:
                out[key] = merged
            else:
                out.pop(key, None)
        if self.env:
            out["env"] = {**(out.get("env") or {}), **self.env}
        if self.node:
            out["node"] = self.node
        return out

    def changes(self, override: dict) -> bool:
        return self.apply(override) != dict(override)


def failed_step(log: str) -> str:
    """The install step a build log stopped in (the last step marker), or ''."""
    marks = re.findall(rf"^{re.escape(STEP_MARK)} (\S+)\s*$", log, flags=re.M)  # echoed lines, not the command
    return marks[-1] if marks else ""


def step_outputs(log: str) -> dict[str, str]:
    """Each install step's part of a build log, by step name."""
    parts = re.split(rf"^{re.escape(STEP_MARK)} (\S+)\s*$", log, flags=re.M)
    return {parts[i]: parts[i + 1] for i in range(1, len(parts) - 1, 2)}


# a library's own word on what to install when an import fails (lxml 5.2: "ImportError:
# lxml.html.clean module is now a separate project lxml_html_clean. / Install lxml[html_clean] or
# lxml_html_clean directly."): within the error's next lines, its first suggestion
_INSTALL_ADVICE = re.compile(
    r"(?:ImportError|ModuleNotFoundError)\b[^\n]*(?:\n[^\n]*){0,2}?\b(?:[Pp]ip install|Install)\s+[`'\"]?"
    r"(?P<package>[A-Za-z][\w.-]*(?:\[[\w,-]+\])?)"
)


def _package_for(module: str) -> str:
    top = module.split(".")[0]
    return MODULE_PACKAGES.get(top, top.replace("_", "-"))


def installed_pytest(log: str, recipe: InstallRecipe, snapshot: Snapshot | None) -> Version | None:
    """The pytest the failing environment has: the log's word first, then the environment's own
    build log (`snapshot.installed`), then an exact pin of the recipe, then the sandbox's own
    pytest (what runs when no source installs one); None when nothing tells."""
    told = installed_versions(log).get("pytest") or (snapshot.installed.get("pytest") if snapshot else "")
    if not told:
        told = next((p.split("==", 1)[1] for p in recipe.packages if re.fullmatch(r"pytest==[\w.]+", p)), "")
    told = told or sandbox_pytest_version() or ""
    try:
        return Version(told) if told else None
    except InvalidVersion:
        return None


def diagnose(
    log: str, recipe: InstallRecipe, tree_names: set[str], stage: str, snapshot: Snapshot | None = None
) -> Fix | None:
    """The rule-based fix for a failed `stage` ("build" or "collection"), or None.

    `tree_names` are the module names the snapshot itself provides (top-level packages and
    every file stem): a missing one of those is the code's own problem, not the environment's.
    `snapshot` (the commit's date, the suite's pins, the package index) lets the version rule
    pick releases contemporary with the commit.
    """
    step = failed_step(log) if stage == "build" else ""
    if stage == "build" and _VCS_FAILURE.search(log) and not all(k in dict(recipe.build_env) for k in PRETEND_VARS):
        from .detect import pretend_version_env

        return Fix(
            "the version comes from VCS and the tree has no tags: set pretend-version variables",
            env=dict(pretend_version_env(PRETEND_VARS)),
            rule="vcs-version",
        )
    if stage == "build" and step == "packages":
        fix = _pin_conflict_fix(log, recipe) or _unbuildable_pin_fix(log, recipe, snapshot)
        if fix is not None:
            return fix
    if stage == "build" and step == "check":
        pinned = [
            s
            for s, out in step_outputs(log).items()
            if re.search(r"Successfully installed .*\bpytest-\d", out) and s not in ("check", "packages")
        ]
        if pinned:
            return Fix(
                f"{pinned[-1]} installs a pytest that does not run on this interpreter: drop that source",
                drop=[pinned[-1]],
                rule="drop-source",
            )
        fix = _runner_dependency_fix(log, recipe)
        if fix is not None:
            return fix
    for module in re.findall(r"No module named '?([\w.]+)'?", log):
        top = module.split(".")[0]
        if (
            top in tree_names
            or top in getattr(sys, "stdlib_module_names", ())
            or top in _PY2_STDLIB
            or top in ("__main__", "tests")
            or top in _RUNNER  # a part of pytest a plugin expects: the version rule's case
        ):
            continue
        pkg = _package_for(module)
        if stage == "build" and step == "project":
            if pkg not in recipe.packages:
                return Fix(
                    f"the build imports {top}, which build isolation hides: install {pkg} first and "
                    "build without isolation",
                    build_packages=[pkg, "setuptools", "wheel"],
                    rule="missing-build-module",
                )
        elif pkg not in recipe.packages:
            return Fix(f"module {top} is missing: install {pkg}", packages=[pkg], rule="missing-module")
    for m in _INSTALL_ADVICE.finditer(log):
        pkg = m.group("package")
        if pkg.split("[")[0] not in tree_names and pkg not in recipe.packages:
            return Fix(
                f"an import failed, and its message says to install {pkg}: install it",
                packages=[pkg],
                rule="install-advice",
            )
    m = re.search(r"unrecognized arguments: (.+)", log)
    if m:
        for token in m.group(1).split():
            flag = token.split("=")[0]
            plugin = next(
                (
                    p
                    for f, p in PLUGIN_FLAGS.items()
                    if flag == f or flag.startswith(f + "-") or (f == "-n" and re.fullmatch(r"-n\d*|-nauto", flag))
                ),
                None,
            )
            if plugin and plugin not in recipe.packages:
                return Fix(
                    f"pytest option {flag} is unknown: install {plugin}, which defines it",
                    packages=[plugin],
                    rule="unknown-option",
                )
    for key in re.findall(r"Unknown config option: ([\w\-]+)", log):
        plugin = PLUGIN_INI_KEYS.get(key)
        if plugin and plugin not in recipe.packages:
            return Fix(
                f"pytest config key {key} is unknown: install {plugin}", packages=[plugin], rule="unknown-ini-key"
            )
    for fixture in re.findall(r"fixture '(\w+)' not found", log):
        plugin = FIXTURE_PLUGINS.get(fixture)
        if plugin and plugin not in recipe.packages:
            return Fix(f"fixture {fixture} is missing: install {plugin}", packages=[plugin], rule="missing-fixture")
    gone = _MISSING_PYTEST_CLASS.search(log)
    if gone:
        # pytest itself says the class is gone (a warning filter or a conftest names it): that is the
        # diagnosis; the installed version only rules out a pytest too old to have it yet
        installed = installed_pytest(log, recipe, snapshot)
        major = int(gone.group("major"))
        pin = f"pytest<{major}"
        if (installed is None or installed.major >= major) and pin not in recipe.packages:
            return Fix(
                f"the suite names pytest.{gone.group('name')}, which pytest "
                f"{installed or f'{major} and later'} no longer has: pin {pin}, the newest releases that have it",
                packages=[pin],
                rule="pytest-too-new",
            )
    removed = re.search(r"PytestRemovedIn(\d+)Warning", log)
    if removed or re.search(
        r"PluginValidationError|unknown hook|has no argument named|"
        r"\bhook\b.*\bargument\b.*\b(removed|unknown)",
        log,
    ):
        # the diagnosis holds only when the environment's pytest is at least the release blamed:
        # a PytestRemovedIn10Warning under pytest 9 is a deprecation, and pinning below 10 changes nothing
        installed = installed_pytest(log, recipe, snapshot)
        major = int(removed.group(1)) if removed else (installed.major if installed else 0)
        pin = f"pytest<{major}"
        if installed is not None and installed.major >= major and pin not in recipe.packages:
            return Fix(
                f"the suite uses pytest features removed in pytest {major} and the environment has pytest "
                f"{installed}: pin {pin}",
                packages=[pin],
                rule="pytest-too-new",
            )
    if _YIELD_TESTS.search(log):
        # a nose-era suite: its yield tests are a collection error from pytest 8.4 on, which takes
        # every test of the file with it; pytest 7 skips them and still runs nose's setup/teardown
        installed = installed_pytest(log, recipe, snapshot)
        if (installed is None or installed >= Version("8.4")) and "pytest<8" not in recipe.packages:
            return Fix(
                f"the suite is nose-era: its yield tests are a collection error under pytest {installed or '8.4+'}, "
                "and pytest 8 dropped nose's setup/teardown: pin pytest<8, the last releases that run nose-style tests",
                packages=["pytest<8"],
                rule="nose-era-suite",
            )
    if (
        re.search(r"(?:site|dist)-packages/nose/", log)
        and re.search(r"module 'collections' has no attribute|cannot import name '\w+' from 'collections'", log)
        and "pynose" not in recipe.packages
    ):
        return Fix(
            "nose does not import on this Python (collections.Callable is gone since 3.10): install pynose, "
            "its maintained fork",
            packages=["pynose"],
            rule="nose-on-new-python",
        )
    if stage == "collection":
        fix = _shadowed_plugin_fix(log, recipe, tree_names)
        if fix is not None:
            return fix
    if stage == "collection" and snapshot is not None:
        fix = _contemporary_fix(log, recipe, tree_names, snapshot)
        if fix is None and lacking_modules(log):  # a conftest or test module that no longer imports
            fix = outdated_dependency(log, "", recipe, tree_names, snapshot)
        if fix is not None:
            return fix
    if re.search(r"async def functions are not natively supported", log) and "pytest-asyncio" not in recipe.packages:
        return Fix("async tests need a plugin: install pytest-asyncio", packages=["pytest-asyncio"], rule="async-tests")
    if stage == "build":
        if step.startswith("requirements:") or step == "dev_packages":  # optional sources: any failure drops them
            return Fix(f"installing {step} failed: drop that source", drop=[step], rule="drop-source")
        if step == "project" and _OWN_METADATA_FAILED.search(log):
            # its own build backend fails (a hook that runs `git`, with no `.git` here): no
            # pretend version or fewer extras gets past it
            return Fix(
                "the project itself does not build: run the tests from the tree without installing it",
                drop=["project"],
                rule="drop-source",
            )
        if step == "project" and recipe.extras and _PIP_FAILURE.search(log):
            return Fix(
                f"installing the project with extras {', '.join(recipe.extras)} failed: drop the extras",
                drop=["extras"],
                rule="drop-source",
            )
        if step == "project" and _PIP_FAILURE.search(log):
            return Fix(
                "the project itself does not build: run the tests from the tree without installing it",
                drop=["project"],
                rule="drop-source",
            )
    return None


# pip's account of a conflict between requested pins: "The user requested pytest==8.0.0" and
# "pytest-asyncio 0.23.4 depends on pytest<8 and >=7.0.0"
_REQUESTED = re.compile(r"The user requested (?P<req>[A-Za-z0-9][\w.\-]*\s*(?:[<>=!~]=?|===)\s*[\w.*+!\-]+[^\n]*)")
_DEPENDS = re.compile(r"^\s*(?P<who>[A-Za-z0-9][\w.\-]*) (?P<version>[\w.+!]+) depends on (?P<req>[^\n]+)$", re.M)
# pip's warning after a source replaced a dependency of something already installed:
# "pytest 9.2.0 requires pluggy<2,>=1.5, but you have pluggy 0.13.1 which is incompatible."
_BROKEN = re.compile(r"^(?P<who>[\w.\-]+) [\w.+!]+ requires (?P<req>[^\n]+?), but you have (?P<dep>[\w.\-]+) ", re.M)


def _requirement(text: str):
    """`text` ("pytest<8 and >=7.0.0", "pytest==8.0.0") as a packaging Requirement, or None."""
    from packaging.requirements import InvalidRequirement, Requirement

    try:
        return Requirement(re.sub(r"\s+and\s+", ",", text.strip()))
    except InvalidRequirement:
        return None


def _pin_conflict_fix(log: str, recipe: InstallRecipe) -> Fix | None:
    """Two pins of the recipe's own packages the resolver cannot satisfy together -> the pin the
    other one depends on is relaxed to the range that one accepts (pytest==8.0.0 -> pytest<8,>=7.0.0
    for pytest-asyncio 0.23.4); None when the conflict is not between the recipe's packages."""
    if not re.search(r"ResolutionImpossible|conflicting dependencies", log):
        return None
    requested = {}
    for m in _REQUESTED.finditer(log):
        req = _requirement(m.group("req"))
        pin = next((p for p in recipe.packages if (r := _requirement(p)) and str(r) == str(req)), None)
        if req is not None and pin is not None:
            requested[normalize(req.name)] = pin
    for m in _DEPENDS.finditer(log):
        needed = _requirement(m.group("req"))
        if (
            needed is None
            or normalize(needed.name) not in requested
            or normalize(m.group("who")) == normalize(needed.name)
        ):
            continue
        pin = requested[normalize(needed.name)]
        relaxed = f"{needed.name}{needed.specifier}"
        if relaxed in recipe.packages:
            continue
        return Fix(
            f"the pins conflict: {m.group('who')} {m.group('version')} depends on {relaxed}, and the recipe pins "
            f"{pin}: relax it to {relaxed}",
            packages=[relaxed],
            unpin=[pin],
            rule="pin-conflict",
        )
    return None


# pip's words for a distribution it could not build from its sdist (new and old pips)
_UNBUILT = re.compile(
    r"Failed to build '?(?P<a>[A-Za-z0-9][\w.\-]*)'? when|Failed building wheel for (?P<b>[A-Za-z0-9][\w.\-]*)|"
    r"Could not build wheels for (?P<c>[A-Za-z0-9][\w.\-]*)",
    re.I,
)


def _unbuildable_pin_fix(log: str, recipe: InstallRecipe, snapshot: Snapshot | None = None) -> Fix | None:
    """A release the recipe pins exactly that does not build here (an sdist-only release whose
    build script needs files the sdist lacks, or a compiler) -> the earliest later release with a
    wheel for this interpreter, the closest to the pinned API that pip installs without building
    (`snapshot`'s index); any later release when the index does not tell. None when the package
    that failed is not pinned so."""
    for m in _UNBUILT.finditer(log):
        name = normalize(m.group("a") or m.group("b") or m.group("c"))
        for pin in recipe.packages:
            req = _requirement(pin)
            exact = [s.version for s in req.specifier if s.operator == "=="] if req is not None else []
            if req is None or normalize(req.name) != name or not exact:
                continue
            wheel = _first_wheel_after(req.name, exact[0], snapshot)
            later = f"{req.name}=={wheel}" if wheel else f"{req.name}>{exact[0]}"
            if later in recipe.packages:
                return None
            return Fix(
                f"the pinned release {pin} does not build on this interpreter: install {later}, "
                + ("the earliest later release with a wheel for it" if wheel else "a later release"),
                packages=[later],
                unpin=[pin],
                rule="unbuildable-pin",
            )
    return None


def _first_wheel_after(name: str, version: str, snapshot: Snapshot | None) -> str:
    """The earliest final release of `name` after `version` that ships a wheel the environment's
    Python installs; '' when the index does not tell."""
    if snapshot is None or snapshot.index is None:
        return ""
    try:
        floor = Version(version)
        releases = snapshot.index.releases(name) or []
    except (InvalidVersion, OSError, ValueError):
        return ""
    found = []
    for release in releases:
        try:
            number = Version(release.version)
        except InvalidVersion:
            continue
        if number <= floor or number.is_prerelease or number.is_devrelease or not release.wheels:
            continue
        if installs_on(replace(release, sdist=False), snapshot.python, snapshot.machine):
            found.append(number)
    return str(min(found)) if found else ""


def _runner_dependency_fix(log: str, recipe: InstallRecipe) -> Fix | None:
    """A source replaced a dependency of the test runner (an old tox bringing pluggy 0.13.1 under
    pytest 9) and pytest no longer imports -> install the range the runner requires, last, so
    it wins over that source's pin."""
    outputs = step_outputs(log)
    if not re.search(r"ImportError|ModuleNotFoundError|AttributeError", outputs.get("check", "")):
        return None
    for m in _BROKEN.finditer(log):
        needed = _requirement(m.group("req"))
        if needed is None or normalize(m.group("who")) not in ("pytest", *_KNOWN_PLUGINS):
            continue
        wanted = f"{needed.name}{needed.specifier}"
        if wanted not in recipe.packages:
            return Fix(
                f"a source installs a {m.group('dep')} that {m.group('who')} does not run with: install {wanted} "
                "after it",
                packages=[wanted],
                rule="runner-dependency",
            )
    # no word from pip on what the runner requires: drop the optional source that replaced the module
    missing = re.search(r"cannot import name '\w+' from '(\w+)'", outputs["check"])
    if missing is None or missing.group(1) not in _RUNNER:
        return None
    dist = re.escape(_package_for(missing.group(1)))
    for source, out in reversed(outputs.items()):
        optional = source.startswith("requirements:") or source == "dev_packages"
        if optional and re.search(rf"Successfully installed .*\b{dist}-\d", out, flags=re.I):
            return Fix(
                f"{source} installs a {missing.group(1)} the test runner does not import with: drop that source",
                drop=[source],
                rule="drop-source",
            )
    return None


_RUNNER = {"_pytest", "pytest", "pluggy", "py", "_py"}
# a frame of the traceback: `File "PATH", line N` (internal errors, import errors) or pytest's
# `PATH:N: ExceptionType` (the innermost frame of an error's long traceback)
_FRAME = re.compile(r'File "(?P<a>[^"]+\.py)", line \d+|^(?:INTERNALERROR>\s*)?(?P<b>\S+\.py):\d+: \w+', re.M)
_SITE = re.compile(r"(?:site|dist)-packages/(?P<module>[A-Za-z_]\w*)(?:/|\.py$)")
_KNOWN_PLUGINS = {
    normalize(p) for table in (PLUGIN_FLAGS, PLUGIN_INI_KEYS, FIXTURE_PLUGINS) for p in table.values() if "[" not in p
}


def failing_plugin(log: str, tree_names: set[str]) -> str:
    """The pytest plugin (its distribution) whose code the last traceback of `log` ends in (or,
    while pytest loads the plugins, the one whose import failed below it): 'pytest' when an
    internal error ends in the suite's own conftest with only pytest below it; '' when the
    failure is the code's own, or no plugin's."""
    text = (
        "\n".join(ln for ln in log.splitlines() if ln.startswith("INTERNALERROR>")) if "INTERNALERROR>" in log else log
    )
    frames = [m.group("a") or m.group("b") for m in _FRAME.finditer(text)]
    # pytest loading the environment's plugins: a library failing below one is that plugin's
    # failure (pytest-md-report -> pytablewriter -> tabledata importing the tree's `dataproperty`)
    loading = "load_setuptools_entrypoints" in text
    for path in reversed(frames):
        if path.startswith("<"):
            continue
        site = _SITE.search(path)
        if site is None:  # the tree's own code (or the standard library)
            if "INTERNALERROR>" in log and Path(path).name == "conftest.py":
                return "pytest"
            return ""
        module = site.group("module")
        if module in _RUNNER or module in ("importlib_metadata", "typing_extensions"):
            continue
        if module in tree_names:  # the project itself, installed
            return ""
        dist = _package_for(module)
        plugin = (
            module.startswith("pytest_") or normalize(dist).startswith("pytest-") or normalize(dist) in _KNOWN_PLUGINS
        )
        if plugin or not loading:
            return dist if plugin else ""
    return ""


# an import of the tree's own package that fails (a name it lacks, a module it does not have)
_TREE_IMPORT = re.compile(
    r"(?:ImportError: cannot import name '\w+' from '(?P<module>[\w.]+)'|"
    r"ModuleNotFoundError: No module named '(?P<missing>[\w.]+)')"
)


def _shadowed_plugin_fix(log: str, recipe: InstallRecipe, tree_names: set[str]) -> Fix | None:
    """A plugin that pytest cannot load because a library below it imports the project itself,
    and gets the tree's version (pytest-md-report -> pytablewriter -> tabledata wants a
    `dataproperty` newer than DataProperty's own tree): no release of the plugin helps, since
    the tree always comes first, so the plugin is uninstalled; the tests never ran with it."""
    if "load_setuptools_entrypoints" not in log:
        return None
    imports = list(_TREE_IMPORT.finditer(log))
    module = (imports[-1].group("module") or imports[-1].group("missing")) if imports else ""
    if not module or module.split(".")[0] not in tree_names:
        return None
    dist = failing_plugin(log, tree_names)
    if not dist or dist == "pytest" or dist in recipe.uninstall:
        return None
    return Fix(
        f"the plugin {dist} does not load: a library it uses imports `{module}` and gets the tree's own, "
        "which lacks what it needs; uninstall the plugin",
        uninstall=[dist],
        rule="shadowed-plugin",
    )


def _contemporary_fix(log: str, recipe: InstallRecipe, tree_names: set[str], snapshot: Snapshot) -> Fix | None:
    """A failing plugin -> it and pytest pinned to the releases of the commit's day (the suite's
    own pins first); None when the log names no plugin or the pins are already there."""
    dist = failing_plugin(log, tree_names)
    if not dist:
        return None
    pins = []
    if dist != "pytest":
        version = snapshot.version_of(dist)
        if version:
            pins.append(f"{dist}=={version}")
    pytest_version = snapshot.version_of("pytest", pytest_floor(snapshot.python))
    if pytest_version:
        pins.append(f"pytest=={pytest_version}")
    new = [p for p in pins if p not in recipe.packages]
    if not new:
        return None
    when = snapshot.date.date().isoformat() if snapshot.date else "the suite's pins"
    return Fix(
        f"{'pytest' if dist == 'pytest' else 'the plugin ' + dist} does not fit this suite: "
        f"install {' and '.join(pins)}, the releases of {when}",
        packages=new,
        rule="contemporary-versions",
    )


# a test failing on a third-party API: a function called with its older signature, or a name
# its module no longer has
_API_CALL = re.compile(
    r"^E\s+TypeError: (?P<func>\w+)\(\) (?:takes \d+|got an unexpected keyword argument|missing \d+ required)", re.M
)


def lacking_modules(log: str) -> list[str]:
    """The modules pytest's errors in `log` say lack a name (an attribute, an import, a name the
    package says it removed: `sandbox.lacked_names`)."""
    return list(dict.fromkeys(module for module, _ in lacked_names(log, marked=True)))


def api_modules(log: str, test_sources: str) -> list[str]:
    """The modules whose API the failures of `log` blame: named by the error, or (a function's
    signature) the module the tests import that function from."""
    modules = lacking_modules(log)
    for m in _API_CALL.finditer(log):
        imported = re.search(rf"^\s*from ([\w.]+) import [^\n]*\b{m.group('func')}\b", test_sources, re.M)
        if imported:
            modules.append(imported.group(1))
    return list(dict.fromkeys(modules))


def outdated_dependency(
    log: str, test_sources: str, recipe: InstallRecipe, tree_names: set[str], snapshot: Snapshot
) -> Fix | None:
    """Tests failing on the API of a package newer than the commit (typeguard 4's check_type(value,
    type) under a 2021 suite that calls check_type(name, value, type)), or a test module or
    conftest that does not import because a package lacks a name it had then -> that package at
    the release contemporary with the commit. When the environment's version is known, only if
    it is newer than that release (otherwise the pin changes nothing); an unknown version is
    enough when the error says the module lacks a name (a signature alone is not)."""
    lacking = {m.split(".")[0] for m in lacking_modules(log)}
    for module in api_modules(log, test_sources):
        top = module.split(".")[0]
        if top in tree_names or top in getattr(sys, "stdlib_module_names", ()) or top in _RUNNER:
            continue
        dist = _package_for(top)
        installed, version = snapshot.installed.get(normalize(dist)), snapshot.version_of(dist)
        try:
            newer = bool(installed and version) and Version(installed) > Version(version)
        except InvalidVersion:
            newer = False
        newer = newer or (not installed and bool(version) and top in lacking)
        pin = f"{dist}=={version}"
        if newer and pin not in recipe.packages and not _excluded_by(recipe, dist, version):
            when = snapshot.date.date().isoformat() if snapshot.date else "the suite's pins"
            of_day = version == snapshot.version_of(dist, wheels=False)
            why = (
                f"the tests fail on the API of {dist} {installed}, newer than the commit"
                if installed
                else f"the tests need a name the environment's {dist} (version not told) lacks"
            )
            return Fix(
                f"{why}: install {pin}, the release "
                + (f"of {when}" if of_day else f"closest to {when} that installs on Python {snapshot.python}"),
                packages=[pin],
                rule="contemporary-dependency",
            )
    return None


def _excluded_by(recipe: InstallRecipe, dist: str, version: str) -> bool:
    """A requirement of the recipe's own on `dist` excludes `version`: an earlier repair moved
    off that release (it did not build), and going back would undo it."""
    for package in recipe.packages:
        req = _requirement(package)
        if req is not None and normalize(req.name) == normalize(dist) and str(req.specifier):
            try:
                if not req.specifier.contains(version, prereleases=True):
                    return True
            except InvalidVersion:
                continue
    return False


def unmet_dependency(log: str, recipe: InstallRecipe, tree_names: set[str], snapshot: Snapshot) -> str:
    """Why a name a package lacks cannot be had here, when the recipe already pins the release
    closest to the commit that installs on this interpreter and that release lacks it too (numpy
    of 2019 has no wheel for Python 3.11; the first that has one dropped `np.alen`): a sentence
    saying the code needs an older Python; '' otherwise."""
    for module in lacking_modules(log):
        top = module.split(".")[0]
        if top in tree_names or top in getattr(sys, "stdlib_module_names", ()) or top in _RUNNER:
            continue
        dist = _package_for(top)
        version = snapshot.version_of(dist)
        of_day = snapshot.version_of(dist, wheels=False)
        if version and of_day and version != of_day and f"{dist}=={version}" in recipe.packages:
            when = snapshot.date.date().isoformat() if snapshot.date else "the commit's day"
            return (
                f"{dist} {version}, the release closest to {when} that installs on Python {snapshot.python}, "
                f"lacks the name too ({dist} {of_day} of that day does not install on it): "
                "the code needs an older Python"
            )
    return ""


# a skip reason naming a missing module: importorskip's "could not import 'numpy': No module named
# 'numpy'", or a suite's own "numpy is not installed" / "requires numpy"; never the opposite, a test
# that runs only without a package ("requires numpy not to be installed", "requires numpy to be absent")
_SKIPPED_FOR = re.compile(
    r"No module named '?(?P<a>[\w.]+)'?|could not import '(?P<b>[\w.]+)'|"
    r"(?<![\w.])(?<!requires )(?<!require )(?P<c>[A-Za-z_][\w.]*) (?:is )?not (?:installed|available)|"
    r"requires? (?P<d>[A-Za-z_][\w.]*)(?![\w.])(?!\s+(?:(?:to\s+)?not|to\s+be\s+(?:absent|missing|uninstalled))\b)",
    re.I,
)


# what nose called around a test and pytest 8 no longer does: a module's setup()/teardown() (pytest's
# own names, setup_module and setUpModule, still run), a plain test class's setup(self)/teardown(self)
# (setup_method still runs), and a function's @with_setup(...)
_NOSE_MODULE_HOOKS, _PYTEST_MODULE_HOOKS = {"setup", "teardown", "setUp", "tearDown"}, {"setup_module", "setUpModule"}
_NOSE_CLASS_HOOKS, _PYTEST_CLASS_HOOKS = {"setup", "teardown"}, {"setup_method", "teardown_method"}


def nose_setups(failing: Sequence[str], sources: Mapping[str, str]) -> list[str]:
    """The failing tests (ids) whose nose-style setup or teardown pytest 8 no longer calls:
    the module's, the test's class's or the test's own (`@with_setup`). `sources`: each test
    file's text."""
    found = []
    for test_id in failing:
        path = file_of_test(test_id)
        try:
            scope = ast.parse(sources.get(path) or "").body
        except (SyntaxError, ValueError):
            continue
        names = node_names(test_id)
        module = {n.name for n in scope if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
        module |= {t.id for n in scope if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)}
        if module & _NOSE_MODULE_HOOKS and not module & _PYTEST_MODULE_HOOKS:
            found.append(test_id)
            continue
        cls = next((n for n in scope if isinstance(n, ast.ClassDef) and n.name == names[0]), None) if names else None
        if cls is not None and not any("TestCase" in ast.unparse(b) for b in cls.bases):
            methods = {n.name for n in cls.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
            if methods & _NOSE_CLASS_HOOKS and not methods & _PYTEST_CLASS_HOOKS:
                found.append(test_id)
                continue
        body = cls.body if cls is not None else scope
        func = next((n for n in body if isinstance(n, ast.FunctionDef) and names and n.name == names[-1]), None)
        if func is not None and any("with_setup" in ast.unparse(d) for d in func.decorator_list):
            found.append(test_id)
    return found


def nose_setup_fix(
    log: str, failing: Sequence[str], sources: Mapping[str, str], recipe: InstallRecipe, snapshot: Snapshot | None
) -> Fix | None:
    """pytest<8 when tests fail whose nose-style setup pytest 8 dropped (`nose_setups`), checked
    against the environment: its pytest is 8 or later (under 7 the setup ran, so it is not the
    cause), and the recipe does not pin pytest<8 already."""
    skipped = nose_setups(failing, sources)
    if not skipped or "pytest<8" in recipe.packages:
        return None
    installed = installed_pytest(log, recipe, snapshot)
    if installed is None or installed.major < 8:
        return None
    return Fix(
        f"the suite is nose-era: {len(skipped)} failing test(s) ({', '.join(skipped[:2])}) rely on a nose-style "
        f"setup or teardown that pytest {installed} no longer calls: pin pytest<8, the last releases that call it",
        packages=["pytest<8"],
        rule="nose-setup",
    )


def missing_extra(log: str, recipe: InstallRecipe, extras: dict[str, list[str]]) -> Fix | None:
    """Tests skipped because a module is missing that an extra of the project provides -> that
    extra (or its requirements, when the project itself is not installed); None otherwise."""
    provides = {}
    for name, reqs in extras.items():
        for req in reqs:
            parsed = _requirement(req.split(";")[0])
            if parsed is not None and name not in recipe.extras:
                provides.setdefault(normalize(parsed.name), (name, req))
    for reason in (r for reasons in skip_reasons(log).values() for r in reasons):
        for m in _SKIPPED_FOR.finditer(reason):
            module = next(g for g in m.groups() if g)
            found = provides.get(normalize(_package_for(module)))
            if found is None:
                continue
            extra, req = found
            if recipe.install_project:
                return Fix(
                    f"tests skip because {module} is missing ({reason}); the extra [{extra}] provides it: install it",
                    extras=[extra],
                    rule="missing-extra",
                )
            if req not in recipe.packages:
                return Fix(
                    f"tests skip because {module} is missing ({reason}); the extra [{extra}] lists {req}: install it",
                    packages=[req],
                    rule="missing-extra",
                )
    return None


def advice_prompt(log: str, recipe: InstallRecipe, stage: str) -> str:
    """The question put to a model when no rule explains the log (as SWE-rebench asks for recipes)."""
    return (
        "A Python repository's test environment failed to "
        + ("build" if stage == "build" else "collect its tests")
        + ". From the log, say what to change. Answer a JSON object with keys "
        '"packages" (pip requirement strings to add), "env" (environment variables for the install), '
        '"drop" (install sources to skip, from: project, extras, dev_packages, requirements:<file>) '
        'and "reason" (one sentence).\n'
        f"<context>{json.dumps({'recipe': recipe.to_dict(), 'log_tail': log[-3000:]})}</context>"
    )


def parse_advice(answer: dict) -> Fix | None:
    """A model's answer as a Fix; None when it proposes nothing usable."""
    if not isinstance(answer, dict):
        return None
    packages = [
        str(p)
        for p in answer.get("packages") or []
        if isinstance(p, str) and p.strip() and not p.strip().startswith("-")
    ]
    env = {str(k): str(v) for k, v in (answer.get("env") or {}).items()} if isinstance(answer.get("env"), dict) else {}
    drop = [str(d) for d in answer.get("drop") or [] if isinstance(d, str)]
    if not (packages or env or drop):
        return None
    return Fix(
        str(answer.get("reason") or "recipe proposed by the model"), packages=packages, env=env, drop=drop, rule="llm"
    )
