"""What a snapshot needs to run its tests: install recipe detection from its packaging files,
the config's overrides, the repair loop that reads build and collection logs, and `sebgen setup`.

    backend = make_sandbox("auto", limits=Limits(...), install={...}, setup_attempts=3)
    recipe = detect_recipe(repo, commit)            # what an export installs
    report = backend.setup(repo, "HEAD")            # build, repair, run the suite

Uses `sandbox` to try a recipe (the backends receive `RecipeBook.recipe_for`); the sandbox
never imports this package.
"""

from .detect import DEP_FILES, detect_recipe, pretend_version_env
from .recipes import RecipeBook
from .repair import Fix, diagnose
from .setup import SetupBackend, SetupError, make_sandbox

__all__ = [
    "DEP_FILES",
    "Fix",
    "RecipeBook",
    "SetupBackend",
    "SetupError",
    "detect_recipe",
    "diagnose",
    "make_sandbox",
    "pretend_version_env",
]
