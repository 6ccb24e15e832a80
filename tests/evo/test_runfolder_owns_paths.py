"""Only `evo/runfolder.py` names a file of a run folder (or of an experiment folder): every
other module asks `RunFolder` or `ExperimentFolder` for the path, or for the record itself.

The rule, read from the syntax tree of every `.py` file of every package (tests are not
walked; docstrings are prose and are skipped):

- A string constant names a run-folder file when it, or one of its `/`-separated parts, is a
  run-folder name. An f-string is read with each placeholder as `*` (`f"gen-{g:04d}.json"`
  reads `gen-*.json`).
- Distinctive names count wherever they stand: `config.yaml`, `evaluations.jsonl`,
  `checkpoints`, `llm_replay`, `STOP`, `experiment.json`, `result.json`, `heldout-novelty`,
  and the patterns `gen-*.json`, `*.offspring.*`, `*.scores.*`, `seed-*`, `heldout-*`.
- Ordinary words that also name run-folder folders (`archive`, `generations`, `results`,
  `report`) count only where they build a path: an operand of `/`, or an argument of `Path()`,
  `os.path.join()` or `.joinpath()`. As a dict key, a logger name, a table name or a git
  subcommand they are not the run folder's.

What lies inside a folder that RunFolder hands to another package (archive/, llm_replay/,
report/) is that package's own business and is not checked here. `ALLOWED` lists the
unrelated uses of a run-folder name, each with its reason.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
OWNER = Path("evo/runfolder.py")
DISTINCTIVE = {
    "config.yaml",
    "evaluations.jsonl",
    "checkpoints",
    "llm_replay",
    "STOP",
    "experiment.json",
    "result.json",
    "heldout-novelty",
}
PATTERNS = (
    re.compile(r"^gen-.*\.json$"),
    re.compile(r"\.(offspring|scores)\."),
    re.compile(r"^seed-"),
    re.compile(r"^heldout-"),
)
ORDINARY = {"archive", "generations", "results", "report"}
PATH_BUILDERS = {"Path", "join", "joinpath"}
# (file, name): why that file's use of the name is not the run folder's
ALLOWED: dict[tuple[str, str], str] = {}


def packages() -> list[Path]:
    return sorted(p for p in ROOT.iterdir() if (p / "__init__.py").is_file() and p.name != "tests")


def run_folder_name(text: str, ordinary: bool) -> str | None:
    """The run-folder name `text` spells (itself or one of its path parts), if any."""
    for part in text.split("/"):
        if part in DISTINCTIVE or (ordinary and part in ORDINARY) or any(p.search(part) for p in PATTERNS):
            return part
    return None


def _docstrings(tree: ast.AST) -> set[int]:
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                ids.add(id(first.value))
    return ids


def _builds_a_path(node: ast.AST, parents: dict[int, ast.AST]) -> bool:
    parent = parents.get(id(node))
    if isinstance(parent, ast.JoinedStr):
        parent = parents.get(id(parent))
    if isinstance(parent, ast.BinOp) and isinstance(parent.op, ast.Div):
        return True
    if isinstance(parent, ast.Call) and node in parent.args:
        func = parent.func
        return (func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)) in PATH_BUILDERS
    return False


def _text(node: ast.AST) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else "*" for v in node.values)
    return None


def names_in(source: str) -> list[tuple[int, str]]:
    """(line, run-folder name) for every place `source` names a run-folder file."""
    tree = ast.parse(source)
    parents = {id(child): node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    skip = _docstrings(tree)
    found = []
    for node in ast.walk(tree):
        if id(node) in skip or isinstance(parents.get(id(node)), ast.JoinedStr):
            continue  # a docstring, or a piece of an f-string (read whole, below)
        text = _text(node)
        if text is None:
            continue
        name = run_folder_name(text, ordinary=_builds_a_path(node, parents))
        if name is not None:
            found.append((node.lineno, name))
    return found


def test_only_the_run_folder_names_its_files():
    offenders = []
    for package in packages():
        for path in sorted(package.rglob("*.py")):
            relative = path.relative_to(ROOT)
            if relative == OWNER:
                continue
            for line, name in names_in(path.read_text(encoding="utf-8")):
                if (relative.as_posix(), name) not in ALLOWED:
                    offenders.append(f"{relative}:{line} names {name!r}")
    assert not offenders, "ask evo.runfolder.RunFolder instead:\n" + "\n".join(offenders)


def test_the_walk_covers_the_packages():
    names = {p.name for p in packages()}
    assert {"evo", "harness", "fitness", "tasks", "archive", "llm", "sandbox", "records"} <= names
    assert "tests" not in names


def test_the_owner_names_every_file_it_owns():
    """The detector sees the layout where it is meant to be: in `evo/runfolder.py`."""
    named = {name for _, name in names_in((ROOT / OWNER).read_text(encoding="utf-8"))}
    assert DISTINCTIVE <= named
    assert {"gen-*.json", "gen-*.*.json", "seed-*", "heldout-*.jsonl"} <= named


@pytest.mark.parametrize(
    "source",
    [
        'path = run_dir / "checkpoints" / "gen-0001.json"',
        'Path(run_dir, "archive")',
        'os.path.join(run_dir, "results")',
        'run_dir.joinpath("report")',
        'done = out / f"seed-{seed}" / "result.json"',
        'path.name.replace(".offspring.", ".scores.")',
        'stop = "STOP"',
        'load_config("runs/x/config.yaml")',
        'run_dir / f"generations/gen-{g:04d}.offspring.json"',
    ],
)
def test_a_run_folder_name_is_found(source):
    assert names_in(source), source


@pytest.mark.parametrize(
    "source",
    [
        'log = logging.getLogger("archive")',
        'state = {"archive": {"tasks": 3}, "report": None, "results": []}',
        'git("archive", "--format=tar", sha)',
        'store.execute("DROP TABLE generations")',
        'def f():\n    """Writes checkpoints/gen-NNNN.json and config.yaml."""',
        'message = f"{run_dir} has no checkpoint yet"',
    ],
)
def test_an_unrelated_use_is_not_a_run_folder_name(source):
    assert names_in(source) == [], source
