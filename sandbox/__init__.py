"""Sandboxed test execution: per-snapshot environments, per-test outcomes, functional checks.

    backend = make_backend("auto" | "local" | "docker", limits=Limits(...), cache_dir=..., install={...})
    run = backend.run_tests(repo, commit, patches, test_files)      # -> TestRun
    run = run_attempt(backend, repo, commit, bug_patch, test_patch, agent_patch, test_files)
    resolved, why = attempt_verdict(run, fail_to_pass, pass_to_pass)   # the one rule for "resolved"
    result = check_functional(backend, repo, base_commit, bug_patch, gold_patch, test_files)
    backend.close()                                                  # or `with make_backend(...) as b:`

Backends are safe to call from several threads (`run_parallel(fn, items, workers)`). The Docker
backend builds one environment image per snapshot key (dependency files + install recipe) and
runs every test run in a fresh, locked-down container whose root supervisor owns the verdict;
it keeps one started, never used container per image ready for the next run (removed by
close(), atexit and SIGTERM; ended by the engine when the owner dies, see docker_backend).
Agent patches go through run_attempt (sandbox.integrity: what is restored or removed first).
Docker helpers for the CLI: build_offline_base_image, base_image_status, clean_stragglers,
disk_report, prune_images, docker_client (loaded lazily: the docker SDK is only imported then).

Imports nothing of evo, operators, fitness or archive.
"""
from .errors import BuildError, PatchError, SandboxError
from .factory import docker_engine_version, make_backend
from .functional import FunctionalResult, attempt_verdict, check_functional, run_attempt
from .integrity import (AUTOLOAD_NAMES, AUTOLOAD_SUFFIXES, CONFIG_NAMES, MAX_BINARY_BYTES, MAX_PATCH_BYTES,
                        PROTECTED_DIRS, PROTECTED_NAMES, RUNNER_MODULES, Restoration, check_patch_limits, is_autoload,
                        is_protected, restore_for_verification, shadowed_module)
from .local import LocalBackend, default_cache_dir
from .parallel import run_parallel
from .recipe import InstallRecipe, detect_recipe, install_commands
from .repo_id import repo_name
from .setup import SetupBackend, SetupError
from .tree import apply_patch, attempt_tree, export_tree, patch_files, prepare_tree, safe_extract
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


__all__ = sorted([
    "apply_patch", "attempt_tree", "attempt_verdict", "AUTOLOAD_NAMES", "AUTOLOAD_SUFFIXES", "Backend",
    "base_image_status", "build_offline_base_image", "BuildError", "check_functional", "check_patch_limits",
    "clean_stragglers", "CONFIG_NAMES", "default_cache_dir", "detect_recipe", "disk_report", "docker_client",
    "docker_engine_version", "DockerBackend", "export_tree", "FunctionalResult", "host_ca_bundle",
    "install_commands", "InstallRecipe", "is_autoload", "is_protected", "Limits", "LocalBackend",
    "make_backend", "MAX_BINARY_BYTES", "MAX_PATCH_BYTES", "patch_files", "PatchError", "prepare_tree",
    "PROTECTED_DIRS", "PROTECTED_NAMES", "prune_images", "repo_name", "Restoration",
    "restore_for_verification", "run_attempt", "run_parallel", "RUNNER_MODULES", "safe_extract",
    "SandboxError", "SetupBackend", "SetupError", "shadowed_module", "TestRun",
])
