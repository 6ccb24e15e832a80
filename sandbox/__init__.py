"""Sandboxed test execution: per-snapshot environments, per-test outcomes, functional checks.

Imports nothing of evo, operators, fitness or archive.
"""
from .errors import BuildError, PatchError, SandboxError
from .factory import docker_engine_version, make_backend
from .functional import FunctionalResult, check_functional
from .local import LocalBackend
from .parallel import run_parallel
from .tree import apply_patch, export_tree
from .types import Backend, Limits, TestRun


def __getattr__(name: str):
    # Docker helpers load the docker SDK only when asked for
    if name in {"DockerBackend", "build_offline_base_image", "base_image_status", "clean_stragglers",
                "disk_report", "prune_images", "docker_client"}:
        from . import docker_backend, images, containers

        for mod in (docker_backend, images, containers):
            if hasattr(mod, name):
                return getattr(mod, name)
    raise AttributeError(f"module 'sandbox' has no attribute {name!r}")


__all__ = [
    "Backend", "BuildError", "DockerBackend", "FunctionalResult", "Limits", "LocalBackend",
    "PatchError", "SandboxError", "TestRun", "apply_patch", "base_image_status",
    "build_offline_base_image", "check_functional", "clean_stragglers", "disk_report",
    "docker_client", "docker_engine_version", "export_tree", "make_backend", "prune_images",
    "run_parallel",
]
