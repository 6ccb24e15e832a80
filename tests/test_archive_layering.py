"""The archive package must import nothing of evo, operators, fitness or sandbox."""
import ast
from pathlib import Path

import archive

FORBIDDEN = {"evo", "operators", "fitness", "sandbox"}


def _imported_roots(source: str) -> set[str]:
    roots = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            roots.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            roots.add(node.module.split(".")[0])
    return roots


def test_archive_imports_no_higher_package():
    files = sorted(Path(archive.__file__).parent.rglob("*.py"))
    assert files, "archive package has no modules"
    for path in files:
        bad = _imported_roots(path.read_text()) & FORBIDDEN
        assert not bad, f"{path.name} imports {sorted(bad)}"
