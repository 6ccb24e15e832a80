"""The packages' dependency direction (DESIGN §2):
evo -> harness, operators -> fitness -> sandbox, archive, llm, corpus; the leaves import none of
the others, and every package uses the others' public names (their `__init__`), never a private module."""
import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LEAVES = ("sandbox", "archive", "llm", "corpus")
PACKAGES = ("evo", "harness", "operators", "fitness") + LEAVES
ALLOWED = {
    "evo": {"harness", "operators", "fitness", *LEAVES},
    "harness": {"fitness", *LEAVES},
    "operators": {"fitness", *LEAVES},
    "fitness": set(LEAVES),
    **{leaf: set() for leaf in LEAVES},
}


def imports_of(path: Path) -> list[str]:
    """Absolute module names a file imports (`from a.b import c` gives `a.b`)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append(node.module)
    return found


def package_files(package: str):
    return (ROOT / package).rglob("*.py")


@pytest.mark.parametrize("package", PACKAGES)
def test_imports_follow_the_dependency_direction(package):
    for path in package_files(package):
        used = {m.split(".")[0] for m in imports_of(path)} & set(PACKAGES)
        illegal = used - ALLOWED[package] - {package}
        assert not illegal, f"{path.relative_to(ROOT)} imports {sorted(illegal)}"


@pytest.mark.parametrize("package", PACKAGES)
def test_other_packages_are_used_through_their_public_names(package):
    for path in package_files(package):
        private = [m for m in imports_of(path) if "." in m and m.split(".")[0] in LEAVES + ("harness",)
                   and m.split(".")[0] != package]
        assert not private, f"{path.relative_to(ROOT)} reaches into {private}"


def test_every_package_is_listed_and_installed():
    """A new top-level package must join the rules above and pyproject's package list."""
    on_disk = {p.parent.name for p in ROOT.glob("*/__init__.py")} - {"tests"}
    assert on_disk == set(PACKAGES)
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    for package in PACKAGES:
        assert f'"{package}*"' in pyproject, f"{package} missing from pyproject's packages"


def test_only_the_cli_knows_the_cli():
    for package in PACKAGES:
        for path in package_files(package):
            if path.name == "cli.py":
                continue
            text = path.read_text(encoding="utf-8")
            assert "import typer" not in text and "evo.cli" not in text, path
