"""Sandboxed test execution: per-snapshot environments, per-test outcomes, functional checks.

    backend = make_backend("auto" | "local" | "docker", limits=Limits(...), cache_dir=..., recipe_for=...)
    run = backend.run_tests(repo, commit, patches, test_files)      # -> TestRun
    run = run_attempt(backend, repo, commit, bug_patch, test_patch, agent_patch, test_files)
    resolved, why = attempt_verdict(run, fail_to_pass, pass_to_pass)   # the one rule for "resolved"
    result = check_functional(backend, repo, base_commit, bug_patch, gold_patch, test_files)
    backend.close()                                                  # or `with make_backend(...) as b:`

A backend executes an `InstallRecipe` it is handed (`recipe_for(repo, commit)`); deciding what
a snapshot needs is the `environment` package's job. The Docker backend also runs a `JsRecipe`
(JavaScript/TypeScript: Node image keyed by the lockfile, the runner's reporter read back;
sandbox/js_run.py), with the same `run_tests`/`run_tree` and `TestRun`. Backends are safe to call from several
threads (`run_parallel(fn, items, workers)`). The Docker backend builds one environment image
per recipe key and runs every test run in a fresh, locked-down container whose root
supervisor owns the verdict; it keeps started, never used containers ready for the next run
(removed by close(), atexit and SIGTERM; ended by the engine when the owner dies). Agent
patches go through run_attempt (sandbox.integrity: what is restored or removed first). Docker
helpers for the CLI: build_offline_base_image, base_image_status, clean_stragglers,
disk_report, prune_images, docker_client (loaded lazily: the docker SDK is only imported then).

Imports nothing of SEBGen's other packages.
"""

from .cache import default_cache_dir, file_lock
from .errors import BuildError, PatchError, SandboxError
from .factory import docker_engine_version, make_backend
from .functional import ABSENT, FunctionalResult, attempt_verdict, check_functional, run_attempt
from .integrity import (
    AUTOLOAD_NAMES,
    AUTOLOAD_SUFFIXES,
    CONFIG_NAMES,
    MAX_BINARY_BYTES,
    MAX_PATCH_BYTES,
    PROTECTED_DIRS,
    PROTECTED_NAMES,
    RUNNER_MODULES,
    TEST_MODULE_NAME,
    Restoration,
    check_patch_limits,
    is_autoload,
    is_protected,
    restore_for_verification,
    shadowed_module,
)
from .js_recipe import JsRecipe
from .js_report import PATH_SEPARATOR as JS_PATH_SEPARATOR
from .js_report import mocha_options_from_script, mocha_spec_from_script
from .js_run import JS_APP, NODE_HOME, js_verifier_files
from .js_run import RUN_ENV as JS_RUN_ENV
from .local import LocalBackend
from .parallel import run_parallel
from .recipe import (
    BUILD_SOURCE,
    PRETEND_VERSION,
    STEP_MARK,
    InstallRecipe,
    RecipeFor,
    add_version_files,
    install_commands,
    no_recipe,
    sandbox_pytest_version,
)
from .repo_id import repo_name, shown_name
from .report import EVIDENCE_TESTS, lacked_names, skip_reasons
from .tree import (
    apply_patch,
    attempt_tree,
    export_tree,
    list_files_at,
    patch_files,
    prepare_tree,
    read_file_at,
    resolve_commit,
    safe_extract,
)
from .types import Backend, Limits, TestRun

_DOCKER_NAMES = {
    "DockerBackend",
    "build_offline_base_image",
    "base_image_status",
    "clean_stragglers",
    "disk_report",
    "prune_images",
    "docker_client",
    "host_ca_bundle",
    "js_install_command",
    "node_tarball",
    "node_toolchain_lines",
    "npm_tarball",
}


def __getattr__(name: str):
    # Docker helpers load the docker SDK only when asked for
    if name in _DOCKER_NAMES:
        from . import containers, docker_backend, images

        for mod in (docker_backend, images, containers):
            if hasattr(mod, name):
                return getattr(mod, name)
    raise AttributeError(f"module 'sandbox' has no attribute {name!r}")


__all__ = [
    "ABSENT",
    "EVIDENCE_TESTS",
    "AUTOLOAD_NAMES",
    "AUTOLOAD_SUFFIXES",
    "Backend",
    "BuildError",
    "CONFIG_NAMES",
    "DockerBackend",
    "FunctionalResult",
    "InstallRecipe",
    "sandbox_pytest_version",
    "JS_APP",
    "NODE_HOME",
    "JS_PATH_SEPARATOR",
    "JS_RUN_ENV",
    "JsRecipe",
    "Limits",
    "LocalBackend",
    "MAX_BINARY_BYTES",
    "MAX_PATCH_BYTES",
    "PRETEND_VERSION",
    "PROTECTED_DIRS",
    "PROTECTED_NAMES",
    "TEST_MODULE_NAME",
    "PatchError",
    "RUNNER_MODULES",
    "RecipeFor",
    "Restoration",
    "STEP_MARK",
    "BUILD_SOURCE",
    "SandboxError",
    "TestRun",
    "add_version_files",
    "apply_patch",
    "attempt_tree",
    "attempt_verdict",
    "base_image_status",
    "build_offline_base_image",
    "check_functional",
    "check_patch_limits",
    "clean_stragglers",
    "default_cache_dir",
    "disk_report",
    "docker_client",
    "docker_engine_version",
    "export_tree",
    "file_lock",
    "host_ca_bundle",
    "install_commands",
    "is_autoload",
    "js_install_command",
    "js_verifier_files",
    "is_protected",
    "lacked_names",
    "list_files_at",
    "make_backend",
    "mocha_options_from_script",
    "node_tarball",
    "node_toolchain_lines",
    "npm_tarball",
    "mocha_spec_from_script",
    "no_recipe",
    "patch_files",
    "prepare_tree",
    "prune_images",
    "read_file_at",
    "repo_name",
    "shown_name",
    "skip_reasons",
    "resolve_commit",
    "restore_for_verification",
    "run_attempt",
    "run_parallel",
    "safe_extract",
    "shadowed_module",
]
