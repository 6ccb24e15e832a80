"""Sandboxed test execution: per-snapshot environments, per-test outcomes, functional checks.

    backend = make_backend("auto" | "local" | "docker", limits=Limits(...), cache_dir=..., install={...})
    run = backend.run_tests(repo, commit, patches, test_files)      # -> TestRun
    result = check_functional(backend, repo, base_commit, bug_patch, gold_patch, test_files)
    backend.close()                                                  # or `with make_backend(...) as b:`

Backends are safe to call from several threads (`run_parallel(fn, items, workers)`). The Docker
backend builds one environment image per snapshot key (dependency files + install recipe) and
runs every test run in a fresh, locked-down container; it keeps one started, never used
container per image ready for the next run (removed by close(), atexit and SIGTERM).
Docker helpers for the CLI: build_offline_base_image, base_image_status, clean_stragglers,
disk_report, prune_images, docker_client (loaded lazily: the docker SDK is only imported then).

Imports nothing of evo, operators, fitness or archive.
"""
from .errors import BuildError, PatchError, SandboxError
from .factory import docker_engine_version, make_backend
from .functional import FunctionalResult, check_functional
from .local import LocalBackend, default_cache_dir
from .parallel import run_parallel
from .recipe import InstallRecipe, detect_recipe
from .repo_id import repo_name
from .setup import SetupBackend, SetupError
from .tree import apply_patch, export_tree, prepare_tree
from .types import Backend, Limits, TestRun


def __getattr__(name: str):
    # Docker helpers load the docker SDK only when asked for
    if name in {"DockerBackend", "build_offline_base_image", "base_image_status", "clean_stragglers",
                "disk_report", "prune_images", "docker_client", "host_ca_bundle"}:
        from . import docker_backend, images, containers

        for mod in (docker_backend, images, containers):
            if hasattr(mod, name):
                return getattr(mod, name)
    raise AttributeError(f"module 'sandbox' has no attribute {name!r}")


__all__ = [
    "Backend", "BuildError", "InstallRecipe", "SetupBackend", "SetupError", "detect_recipe", "DockerBackend", "FunctionalResult", "Limits", "LocalBackend",
    "PatchError", "SandboxError", "TestRun", "apply_patch", "base_image_status",
    "build_offline_base_image", "check_functional", "clean_stragglers", "disk_report",
    "default_cache_dir", "docker_client", "docker_engine_version", "export_tree", "host_ca_bundle", "make_backend",
    "prepare_tree", "prune_images", "repo_name", "run_parallel",
]
