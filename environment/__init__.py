"""What a snapshot needs to run its tests: install recipe detection from its packaging files,
the config's overrides, the repair loop that reads build and collection logs, and `sebgen setup`.

    backend = make_sandbox("auto", limits=Limits(...), install={...}, setup_attempts=3)
    recipe = detect_recipe(repo, commit)            # what an export installs
    languages_of(repo, commit)                      # ("python",), ("javascript",), both or ()
    language_named("javascript").is_test_path(p)   # the language seam: file roles, test ids, producers
    js_recipe = detect_js_recipe(repo, commit)      # a JS/TS snapshot's node, package manager, build, runner
    report = backend.setup(repo, "HEAD")            # build, repair, run the suite

Uses `sandbox` to try a recipe (the backends receive `RecipeBook.recipe_for`); the sandbox
never imports this package.
"""

from .attempts import SetupError
from .detect import DEP_FILES, detect_recipe, pretend_version_env
from .js_detect import detect_js_recipe
from .languages import (
    JAVASCRIPT,
    JS_LANGUAGE,
    LANGUAGE_NAMES,
    LANGUAGE_OF,
    PYTHON_LANGUAGE,
    Language,
    common_extensions,
    is_js_source_path,
    language_markers,
    language_named,
    language_of_test,
    languages_of,
    snapshot_files,
)
from .recipes import RecipeBook
from .repair import Fix, diagnose
from .setup import SetupBackend, make_sandbox

__all__ = [
    "DEP_FILES",
    "Fix",
    "JAVASCRIPT",
    "JS_LANGUAGE",
    "LANGUAGE_NAMES",
    "LANGUAGE_OF",
    "Language",
    "PYTHON_LANGUAGE",
    "RecipeBook",
    "SetupBackend",
    "SetupError",
    "common_extensions",
    "detect_js_recipe",
    "detect_recipe",
    "diagnose",
    "is_js_source_path",
    "language_markers",
    "language_named",
    "language_of_test",
    "languages_of",
    "make_sandbox",
    "pretend_version_env",
    "snapshot_files",
]
