"""Detecting how a repo snapshot is installed: its `InstallRecipe`.

Detection (the readers are in `environment.recipe_sources`) reads, at the snapshot: PEP 621
extras and setup.cfg / setup.py extras whose names suggest tests (dev otherwise),
`tests_require`, PEP 735 `[dependency-groups]`, hatch / pdm / poetry dev dependencies, tox
`[testenv] deps`, requirement files (`*requirements*.txt` and `requirements*/` folders,
test-like names only), pytest plugins implied by the pytest config, VCS-derived versions
(pretend-version variables) and `requires-python`. An override (config
`sandbox.install.<repo>` or what the repair loop learned) adds packages, environment
variables, extras and sources to drop, or replaces everything with one `install` command.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
from pathlib import Path

from sandbox import PRETEND_VERSION, InstallRecipe, list_files_at, read_file_at

from .recipe_sources import (
    Found,
    candidate_requirement_files,
    extra_requirements,
    ini,
    project_extras,
    project_requirements,
    read_pyproject,
    read_pytest_options,
    read_setup_cfg,
    read_setup_py,
    read_tox,
    requirement_files,
)
from .versions import PYTEST_FLOOR

DEP_FILES = ("pyproject.toml", "setup.py", "setup.cfg", "tox.ini", "pytest.ini")


_SHA_RE = re.compile(r"^[0-9a-f]{40}$")


def detect_recipe(repo: Path, commit: str, override: dict | None = None) -> InstallRecipe:
    """The install recipe of `commit`: detected from its dependency files unless overridden.

    Cached when `commit` is a full sha (its files cannot change); a branch name is re-read.
    """
    if _SHA_RE.match(commit):
        return _detect_cached(str(Path(repo).resolve()), commit, json.dumps(override or {}, sort_keys=True))
    return _detect(repo, commit, override)


@functools.lru_cache(maxsize=256)
def _detect_cached(repo: str, commit: str, override_json: str) -> InstallRecipe:
    return _detect(Path(repo), commit, json.loads(override_json))


def extras_at(repo: Path, commit: str) -> dict[str, list[str]]:
    """Every extra the snapshot's project declares -> its requirement strings."""
    names = [n for n in ("pyproject.toml", "setup.cfg", "setup.py") if n in list_files_at(repo, commit)]
    return project_extras({n: (read_file_at(repo, commit, n) or b"").decode(errors="replace") for n in names})


def suite_requirements(repo: Path, commit: str, recipe: InstallRecipe) -> list[str]:
    """Every requirement string the snapshot's test sources give (its extras, dev and test
    groups, tox deps, requirement files, pytest plugins), and the project's own dependencies:
    where a suite pins its versions, and what a version chosen for it must meet."""
    names = [n for n in ("pyproject.toml", "setup.cfg", "setup.py") if n in list_files_at(repo, commit)]
    text = {n: (read_file_at(repo, commit, n) or b"").decode(errors="replace") for n in names}
    lines = list(extra_requirements(text, recipe.extras)) + list(recipe.dev_packages) + list(recipe.plugins)
    lines += project_requirements(text) if recipe.install_project else []
    for name in recipe.requirements:
        for line in (read_file_at(repo, commit, name) or b"").decode(errors="replace").splitlines():
            lines.append(line)
    return lines


def pretend_version_env(variables, dist_name: str = "") -> tuple[tuple[str, str], ...]:
    """Pretend-version variables (and setuptools-scm's per-distribution one) for a tree without tags."""
    env = {}
    for var in variables:
        env[var] = "1" if var.endswith("_BYPASS") else PRETEND_VERSION
        if var == "SETUPTOOLS_SCM_PRETEND_VERSION" and dist_name:
            env[f"{var}_FOR_{re.sub(r'[-_.]+', '_', dist_name).upper()}"] = PRETEND_VERSION
    if "POETRY_DYNAMIC_VERSIONING_BYPASS" in env:
        env["POETRY_DYNAMIC_VERSIONING_BYPASS"] = PRETEND_VERSION
    if "UV_DYNAMIC_VERSIONING_BYPASS" in env:
        env["UV_DYNAMIC_VERSIONING_BYPASS"] = PRETEND_VERSION
    return tuple(sorted(env.items()))


def _detect(repo: Path, commit: str, override: dict | None) -> InstallRecipe:
    override = dict(override or {})
    top = list_files_at(repo, commit)
    req_candidates = candidate_requirement_files(repo, commit, top)
    names = sorted({n for n in top if n in DEP_FILES} | set(req_candidates))
    contents = {n: read_file_at(repo, commit, n) or b"" for n in names}
    digests = {n: hashlib.sha256(b).hexdigest() for n, b in contents.items()}
    text = {n: b.decode(errors="replace") for n, b in contents.items()}
    found = Found()
    tox_files: list[str] = []
    if "pyproject.toml" in text:
        read_pyproject(text["pyproject.toml"], found)
    if "setup.cfg" in text:
        read_setup_cfg(text["setup.cfg"], found)
    if "setup.py" in text:
        found.declares = True
        read_setup_py(text["setup.py"], found)
    if "tox.ini" in text:
        read_tox(text["tox.ini"], found, "tox.ini", tox_files)
    if "pytest.ini" in text:
        parser = ini(text["pytest.ini"])
        if parser.has_section("pytest"):
            read_pytest_options(dict(parser.items("pytest")), found, "pytest.ini")
    drop = set(override.get("drop", ()) or ())
    requirements = [
        r
        for r in requirement_files(req_candidates) + [f for f in tox_files if f in contents]
        if text.get(r, "").strip()
    ]
    requirements = [r for r in dict.fromkeys(requirements) if f"requirements:{r}" not in drop]
    if requirements:
        found.sources.append(f"requirement files: {', '.join(requirements)}")
    env = dict(pretend_version_env(found.vcs_vars, found.dist_name))
    env.update({str(k): str(v) for k, v in (override.get("env", {}) or {}).items()})
    return InstallRecipe(
        install=str(override.get("install", "") or ""),
        test_cmd=str(override.get("test_cmd", "") or ""),
        packages=tuple(override.get("packages", ()) or ()),
        python=str(override.get("python", "") or ""),
        install_project=found.declares and "project" not in drop,
        # the override's extras (a repair's, for tests that skip without one) join the detected ones
        extras=tuple(dict.fromkeys(found.extras + list(override.get("extras", ()) or ())))
        if "extras" not in drop
        else (),
        requirements=tuple(requirements),
        dep_files=digests,
        dev_packages=tuple(found.test_requirements()) if "dev_packages" not in drop else (),
        plugins=tuple(found.plugins),
        build_env=tuple(sorted(env.items())),
        requires_python=found.requires_python,
        sources=tuple(found.sources),
        build_packages=tuple(override.get("build_packages", ()) or ()),
        dropped=tuple(sorted(drop)),
        uninstall=tuple(override.get("uninstall", ()) or ()),
        version_files=tuple(found.version_files),
        pytest_floors=tuple(sorted(PYTEST_FLOOR.items())),
    )
