"""The packages' dependency direction (docs/architecture.md):
evo -> harness, operators -> fitness -> tasks -> environment -> sandbox; tasks also uses
archive, llm and corpus, which import none of the others but `records`, the typed records
that every package may import and that imports none. Every package uses another only
through the names its `__init__` exports (`__all__`), never a module inside it."""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LEAVES = ("sandbox", "archive", "llm", "corpus")
PACKAGES = ("evo", "harness", "operators", "fitness", "tasks", "environment", "records") + LEAVES
BELOW_TASKS = {"environment", "records", *LEAVES}
ALLOWED = {
    "evo": {"harness", "operators", "fitness", "tasks", *BELOW_TASKS},
    "harness": {"tasks", *BELOW_TASKS},
    "operators": {"fitness", "tasks", *BELOW_TASKS},
    "fitness": {"tasks", *BELOW_TASKS},
    "tasks": BELOW_TASKS,
    "environment": {"sandbox", "records"},
    **{leaf: {"records"} for leaf in LEAVES},
    "records": set(),
}


def imports_of(path: Path) -> list[tuple[str, list[str], int]]:
    """(absolute module, names, line) for each import of a file (`import a.b` gives names [])."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(a.name, [], node.lineno) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.module, [a.name for a in node.names], node.lineno))
    return found


def package_files(package: str):
    return (ROOT / package).rglob("*.py")


def public_names(package: str) -> set[str]:
    """The package's `__all__`, read from its `__init__.py` without importing it."""
    tree = ast.parse((ROOT / package / "__init__.py").read_text(encoding="utf-8"))
    for node in tree.body:
        targets = (
            node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        )
        if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
            value = ast.literal_eval(node.value)
            return set(value)
    raise AssertionError(f"{package}/__init__.py has no literal __all__")


@pytest.mark.parametrize("package", PACKAGES)
def test_imports_follow_the_dependency_direction(package):
    for path in package_files(package):
        used = {m.split(".")[0] for m, _, _ in imports_of(path)} & set(PACKAGES)
        illegal = used - ALLOWED[package] - {package}
        assert not illegal, f"{path.relative_to(ROOT)} imports {sorted(illegal)}"


def private_uses(path: Path, package: str) -> list[str]:
    """Imports in `path` (of `package`) that reach inside another package or take a name it does not export."""
    out = []
    for module, names, line in imports_of(path):
        other = module.split(".")[0]
        if other not in PACKAGES or other == package:
            continue
        if module != other:
            out.append(f"{path.name}:{line} reaches into {module}")
        elif set(names) - public_names(other):
            out.append(
                f"{path.name}:{line} imports {sorted(set(names) - public_names(other))}, not exported by {other}"
            )
    return out


@pytest.mark.parametrize("package", PACKAGES)
def test_other_packages_are_used_through_their_public_names(package):
    found = [use for path in package_files(package) for use in private_uses(path, package)]
    assert not found, "\n".join(found)


@pytest.mark.parametrize("package", PACKAGES)
def test_every_exported_name_exists(package):
    """`__all__` is the contract: each name in it must resolve."""
    import importlib

    module = importlib.import_module(package)
    missing = [name for name in public_names(package) if not hasattr(module, name)]
    assert not missing, f"{package} exports names it does not define: {missing}"


def test_the_rule_itself_catches_a_reach_inside(tmp_path):
    """The public-only check flags both kinds of private use (guards the test against a vacuous pass)."""
    fake = tmp_path / "mod.py"
    fake.write_text(
        "from tasks.mining import Candidate\nfrom sandbox import not_exported_name\nfrom tasks import Strategy\n"
    )
    found = private_uses(fake, "harness")
    assert len(found) == 2 and "reaches into tasks.mining" in found[0] and "not_exported_name" in found[1]


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
