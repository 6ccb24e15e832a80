"""Versions contemporary with a commit: what a suite ran with when it was written.

A commit's suite was written against the pytest and plugins of its day. When a plugin the
environment installed does not fit it (an internal error, a hook or attribute that no longer
exists), the repair pins the plugin and pytest to the releases that were current at the
commit's date, within the suite's own pins: the latest release uploaded on or before that date
that fits the interpreter and the specifier the suite gives (an exact pin of the suite's is
taken as is). A release must also install on the interpreter in use: one that ships compiled
wheels, none of them for this Python and platform, would have to be compiled from its sdist
(numpy of 2018 on Python 3.11), so it is passed over for the oldest release after the commit's
date that has a fitting wheel (or, when none has, the newest before it). Release dates and
files come from the package index's JSON API (`https://pypi.org/pypi/NAME/json`, or
`$SEBGEN_PYPI_JSON` with `{name}`), cached on disk for a day; when the index cannot be reached,
only the suite's exact pins are used.
"""

from __future__ import annotations

import json
import os
import platform
import re
import subprocess
import time
import urllib.request
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.utils import InvalidWheelFilename, parse_wheel_filename
from packaging.version import InvalidVersion, Version

from sandbox import default_cache_dir

from .recipe_sources import KNOWN

INDEX_URL = "https://pypi.org/pypi/{name}/json"
CACHE_SECONDS = 24 * 3600
TIMEOUT_S = 20
# the oldest pytest SEBGen's reporter and canaries run on, per interpreter (older ones lack APIs
# the reporter uses or do not run on that Python)
PYTEST_FLOOR: dict[str, str] = {str(k): str(v) for k, v in KNOWN["pytest_floor"].items()}


@dataclass(frozen=True)
class Release:
    version: str
    uploaded: datetime
    requires_python: str = ""
    wheels: tuple[str, ...] | None = None  # the wheels' file names; None: the index did not list files
    sdist: bool = False


def installs_on(release: Release, python: str, machine: str = "") -> bool:
    """Whether pip can install `release` on CPython `python` (major.minor) on Linux `machine`
    without a compiler: a fitting wheel, or only pure ones and an sdist (a pure-Python project).
    A release that ships compiled Linux wheels, none for this interpreter and machine, needs its
    extension built from the sdist: not installable (compiled wheels for other systems only say
    nothing: such an sdist often has a pure fallback). True when the index did not list the
    files."""
    if release.wheels is None or not python:
        return True
    machine = machine or _MACHINE
    compiled = False
    for name in release.wheels:
        try:
            tags = parse_wheel_filename(name)[3]
        except InvalidWheelFilename:
            continue
        for tag in tags:
            if _tag_fits(tag.interpreter, tag.abi, tag.platform, python, machine):
                return True
            compiled = compiled or (tag.abi != "none" and tag.platform.startswith(("manylinux", "linux_")))
    return release.sdist and not compiled


_MACHINE = platform.machine() or "x86_64"  # the sandbox's containers run on the engine's own architecture


def _linux(plat: str, machine: str) -> bool:
    """A glibc Linux platform tag for `machine` (the sandbox's images are Debian)."""
    return plat.endswith(f"_{machine}") and plat.startswith(("manylinux", "linux_"))


def _tag_fits(interpreter: str, abi: str, plat: str, python: str, machine: str) -> bool:
    try:
        major, minor = (int(p) for p in python.split(".")[:2])
    except ValueError:
        return True
    if plat != "any" and not _linux(plat, machine):
        return False
    found = re.fullmatch(r"(cp|py)(\d)(\d*)", interpreter)
    if not found or int(found.group(2)) != major:
        return False
    wanted = int(found.group(3)) if found.group(3) else None
    if abi == "none":  # pure: py3 anywhere, py3X / cp3X from that minor on
        return (found.group(1) == "py" and (wanted is None or wanted <= minor)) or wanted == minor
    if abi == "abi3":  # the stable ABI: built for cp3X, runs on every later CPython
        return found.group(1) == "cp" and wanted is not None and wanted <= minor
    return found.group(1) == "cp" and wanted == minor and abi in (f"cp{major}{minor}", f"cp{major}{minor}m")


def normalize(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def commit_date(repo: Path, commit: str) -> datetime | None:
    """The commit's committer date (when it entered the history), or None."""
    proc = subprocess.run(
        ["git", "-C", str(repo), "show", "-s", "--format=%cI", commit], capture_output=True, text=True, check=False
    )
    try:
        return datetime.fromisoformat(proc.stdout.strip()) if proc.returncode == 0 else None
    except ValueError:
        return None


def parse_releases(data: dict) -> list[Release]:
    """Releases from the index's JSON answer: non-yanked, dated by their first upload."""
    out = []
    for version, files in (data.get("releases") or {}).items():
        files = [f for f in files or [] if not f.get("yanked")]
        if not files:
            continue
        stamps = [f.get("upload_time_iso_8601") or f.get("upload_time") for f in files]
        try:
            uploaded = min(_when(s) for s in stamps if s)
        except ValueError:  # no stamp
            continue
        requires = next((f.get("requires_python") for f in files if f.get("requires_python")), "") or ""
        names = [str(f.get("filename") or "") for f in files]
        listed = any(names)  # an index that names no file tells nothing about what installs
        wheels = tuple(n for n in names if n.endswith(".whl")) if listed else None
        sdist = any(f.get("packagetype") == "sdist" or n.endswith((".tar.gz", ".zip")) for f, n in zip(files, names))
        out.append(Release(version, uploaded, requires, wheels, sdist))
    return out


def _when(stamp: str) -> datetime:
    moment = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


class Index:
    """Release dates of packages, from the index's JSON API with a day-long disk cache."""

    def __init__(self, cache_dir: Path | None = None, url: str | None = None, log: Callable[[str], None] = print):
        self.cache_dir = Path(cache_dir or default_cache_dir()) / "index"
        self.url = url or os.environ.get("SEBGEN_PYPI_JSON") or INDEX_URL
        self.log = log
        self._memory: dict[str, list[Release] | None] = {}

    def releases(self, name: str) -> list[Release] | None:
        """Every release of `name`, or None when the index cannot say."""
        key = normalize(name)
        if key not in self._memory:
            self._memory[key] = self._fetch(key)
        return self._memory[key]

    def _fetch(self, name: str) -> list[Release] | None:
        path = self.cache_dir / f"{name}.json"
        try:
            if time.time() - path.stat().st_mtime < CACHE_SECONDS:
                return parse_releases(json.loads(path.read_text()))
        except (OSError, ValueError):
            pass
        try:
            with urllib.request.urlopen(self.url.format(name=name), timeout=TIMEOUT_S) as answer:
                raw = answer.read()
            data = json.loads(raw)
        except Exception as exc:  # unreachable, unknown package, not JSON: the suite's pins still work
            self.log(f"sandbox: the package index did not tell the releases of {name} ({type(exc).__name__})")
            return None
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_bytes(raw)
            tmp.replace(path)
        except OSError:
            pass
        return parse_releases(data)


@dataclass
class Snapshot:
    """What a version rule needs to know about the commit whose suite it repairs."""

    date: datetime | None
    python: str = ""  # major.minor of the environment's interpreter
    pins: dict[str, str] = field(default_factory=dict)  # normalized name -> the suite's specifier
    index: Index | None = None
    installed: dict[str, str] = field(default_factory=dict)  # normalized name -> version in the environment
    machine: str = ""  # the environment's architecture (x86_64, aarch64); '' -> this machine's

    def version_of(self, name: str, floor: str = "", wheels: bool = True) -> str:
        """The version of `name` contemporary with the commit, within the suite's specifier; ''
        when none can be told. An exact pin of the suite's is its version. `wheels=False`: the
        release of the commit's day even when it does not install here."""
        spec = self.pins.get(normalize(name), "")
        exact = re.fullmatch(r"===?\s*([\w.+!-]+)", spec.strip())
        if exact:
            return exact.group(1)
        if self.date is None or self.index is None:
            return ""
        releases = self.index.releases(name)
        if not releases:
            return ""
        return contemporary(releases, self.date, self.python, spec, floor, self.machine, wheels)


def contemporary(
    releases: Iterable[Release],
    when: datetime,
    python: str = "",
    spec: str = "",
    floor: str = "",
    machine: str = "",
    wheels: bool = True,
) -> str:
    """The latest final release uploaded on or before `when` that fits `python` and `spec` (the
    earliest fitting one when none is that old); with `floor`, the earliest release at or above
    it when the contemporary one is older. A release that does not install on `python`
    (`installs_on`) is never chosen: in its place the earliest installable release after
    `when`, else the latest installable one before it; '' when none installs (`wheels=False`:
    every release counts as installable)."""
    when = when if when.tzinfo else when.replace(tzinfo=timezone.utc)
    try:
        wanted = SpecifierSet(spec or "")
    except InvalidSpecifier:
        wanted = SpecifierSet("")
    fitting = []
    for release in releases:
        try:
            version = Version(release.version)
        except InvalidVersion:
            continue
        if version.is_prerelease or version.is_devrelease or version not in wanted:
            continue
        if python and release.requires_python and not _fits(release.requires_python, python):
            continue
        fitting.append((version, release))
    if not fitting:
        return ""
    fitting.sort(key=lambda pair: pair[0])
    ok = {v for v, r in fitting if not wheels or installs_on(r, python, machine)}
    then = [v for v, r in fitting if r.uploaded <= when]
    chosen: Version | None = then[-1] if then else fitting[0][0]  # none that old: the closest after it
    if chosen not in ok:
        after = [v for v, r in fitting if r.uploaded > when and v in ok]
        before = [v for v in then if v in ok]
        chosen = after[0] if after else (before[-1] if before else None)
    if floor:
        least = Version(floor)
        if chosen is None or chosen < least:
            chosen = next((v for v, _ in fitting if v >= least and v in ok), None)
    return str(chosen) if chosen is not None else ""


def _fits(requires_python: str, python: str) -> bool:
    try:
        return SpecifierSet(requires_python).contains(f"{python}.0", prereleases=True)
    except InvalidSpecifier:
        return True


def pytest_floor(python: str) -> str:
    return PYTEST_FLOOR.get(python, PYTEST_FLOOR["default"])


# pip's "Successfully installed a-1.0 b-2.0"; pytest's header "platform linux -- Python 3.11.9, pytest-9.2.0, ..."
_INSTALLED_LINE = re.compile(r"^.*?(?:Successfully installed|platform \S+ -- Python [\d.]+,)\s+(.+)$", re.M)


# an exact pin a build step installs ("RUN ... pip install 'pytest==9.0.3'"): the only word on a
# version when the step came from the build cache and pip said nothing
_PINNED_INSTALL = re.compile(r"\bpip install\b([^\n&;|]*)")
_EXACT_PIN = re.compile(r"(?<![\w.\-])['\"]?([A-Za-z0-9][\w.\-]*)==(\d+(?:\.\w+)*)['\"]?(?=[\s'\"]|$)")


def installed_versions(log: str) -> dict[str, str]:
    """normalized name -> version of what a build or test log says is installed (later lines win)."""
    said: list[tuple[int, str, str]] = []
    for line in _INSTALLED_LINE.finditer(log):
        for item in re.split(r"[\s,]+", line.group(1)):
            name, _, version = item.rpartition("-")
            if name and re.fullmatch(r"\d+(?:\.\w+)*", version):
                said.append((line.start(), name, version))
    for command in _PINNED_INSTALL.finditer(log):
        said += [(command.start(), m.group(1), m.group(2)) for m in _EXACT_PIN.finditer(command.group(1))]
    return {normalize(name): version for _, name, version in sorted(said, key=lambda s: s[0])}


def suite_pins(requirements: Iterable[str]) -> dict[str, str]:
    """normalized name -> specifier of the requirement strings that name a version."""
    from packaging.requirements import InvalidRequirement, Requirement

    pins: dict[str, str] = {}
    for line in requirements:
        line = str(line).split(" #")[0].strip()
        if not line or line.startswith(("#", "-")):
            continue
        try:
            req = Requirement(line)
        except InvalidRequirement:
            continue
        if str(req.specifier):
            pins.setdefault(normalize(req.name), str(req.specifier))
    return pins
