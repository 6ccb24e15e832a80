"""The packages' dependency direction (DESIGN §2): evo -> operators -> fitness -> archive, sandbox."""
import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("evo", "operators", "fitness", "archive", "sandbox")
ALLOWED = {
    "evo": {"operators", "fitness", "archive", "sandbox"},
    "operators": {"fitness"},
    "fitness": {"archive", "sandbox"},
    "archive": set(),
    "sandbox": set(),
}


def imported_packages(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module.split(".")[0])
    return found & set(PACKAGES)


@pytest.mark.parametrize("package", PACKAGES)
def test_imports_follow_the_dependency_direction(package):
    for path in (ROOT / package).rglob("*.py"):
        illegal = imported_packages(path) - ALLOWED[package] - {package}
        assert not illegal, f"{path.relative_to(ROOT)} imports {sorted(illegal)}"


def test_only_the_cli_knows_the_cli():
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            if path.name == "cli.py":
                continue
            text = path.read_text(encoding="utf-8")
            assert "import typer" not in text and "evo.cli" not in text, path
