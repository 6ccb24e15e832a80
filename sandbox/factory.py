"""Choosing a backend: Docker when an engine answers, else the local one (with a warning).

A backend runs tests; it does not decide what to install. Whoever builds it passes
`recipe_for(repo, commit)` (the `environment` package does, with detection and repairs).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from .errors import SandboxError
from .local import LocalBackend
from .recipe import RecipeFor, no_recipe
from .types import Backend, Limits

_KINDS = ("auto", "local", "docker")


def docker_engine_version() -> str | None:
    """The engine's version when one answers, else None (the docker SDK may be missing too)."""
    try:
        import docker  # noqa: F401  (optional at import time of sandbox)

        client = docker.from_env(timeout=10)
        try:
            return str(client.version().get("Version", "unknown"))
        finally:
            client.close()
    except Exception:
        return None


def make_backend(
    kind: str = "auto",
    *,
    limits: Limits = Limits(),
    cache_dir: Path | None = None,
    base_image: str = "python:3.11-slim",
    offline_base_image: str = "sebgen-base:bookworm",
    recipe_for: RecipeFor = no_recipe,
    log: Callable[[str], None] = print,
    warm_spares_total: int = 4,
    warm_spares: int = 2,
) -> Backend:
    """A backend of `kind`; the Docker one keeps `warm_spares` started containers ready per
    image, at most `warm_spares_total` across all images (the least recently used image's go first)."""
    if kind not in _KINDS:
        raise SandboxError(f"unknown sandbox backend {kind!r}; choose one of {', '.join(_KINDS)}")
    if kind in ("auto", "docker"):
        version = docker_engine_version()
        if version is not None and (kind == "docker" or _base_image_usable(base_image, offline_base_image, log)):
            from .docker_backend import DockerBackend

            log(f"sandbox: using Docker engine ({version})")
            return DockerBackend(
                limits=limits,
                cache_dir=cache_dir,
                base_image=base_image,
                offline_base_image=offline_base_image,
                recipe_for=recipe_for,
                log=log,
                warm_spares_total=warm_spares_total,
                warm_spares=warm_spares,
            )
        if kind == "docker":
            raise SandboxError(
                "the docker backend was requested but no Docker engine answers "
                "(start dockerd or run .ci/provision_docker.sh)"
            )
        if version is None:
            log("sandbox: no Docker engine answers; falling back to the local backend")
    log("sandbox: WARNING: the local backend runs task code unisolated on this host (only the timeout is enforced)")
    return LocalBackend(limits=limits, cache_dir=cache_dir, recipe_for=recipe_for, log=log)


def _base_image_usable(base_image: str, offline_base_image: str, log: Callable[[str], None]) -> bool:
    """In auto mode an engine without a usable base image means local, said plainly, rather
    than a failure in the middle of a run."""
    from .images import docker_client, resolve_base_image

    client = docker_client()
    try:
        resolve_base_image(client, base_image, offline_base_image, log)
        return True
    except SandboxError:
        log(
            f"sandbox: Docker answers but neither {base_image} nor {offline_base_image} is available "
            "(build one with `sebgen doctor --build-base-image`); falling back to the local backend"
        )
        return False
    finally:
        client.close()
