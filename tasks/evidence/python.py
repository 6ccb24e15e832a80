"""The Python producer of failure evidence: pytest's report of each failing test, read against
the test's own source at the task's commit (never the gold patch).

From the report it keeps what any runner can say (the error type, the message, the phase, the
line, the case's inputs); what only pytest knows (the compared values, the test frame's locals,
parametrize indices) is read here and not stored. From the test's file and its conftests it
derives the failing check, the observed and expected values, a self-contained reproduction
(imports, module constants, helpers and fixtures it needs, parametrized values substituted,
the setup lines up to the failing check, which ends it as a plain `assert` or
`with pytest.raises`), the checks that passed before, what the test requires after, and the
project's callable the check exercises."""

from __future__ import annotations

import ast
import builtins
import copy
import dataclasses
import functools
import importlib.util
import itertools
import keyword
import re
import sys
import textwrap
from dataclasses import dataclass, replace
from pathlib import Path

import git

from llm import unparse
from records import (
    FailureEvidence,
    file_of_test,
    function_of_test,
    node_names,
    parameter_id,
    without_parameters,
)
from tasks.evidence.names import (
    FUNCTIONS,
    is_postponing,
    local_names,
    names_bound,
    names_read,
    names_unbound,
)
from tasks.evidence.outcome import (
    AST_OPS,
    UNITTEST_OPS,
    callee,
    check_outcome,
    is_check_context,
    no_address,
    without_test_folder,
)

from .repo import file_at

EVIDENCE_TESTS = 64  # as many as the sandbox reports (`sandbox.report.EVIDENCE_TESTS`): every case gets stated
SOURCE_LINES = 40
SNIPPET_LINES = 80
HELPER_LINES = 30  # a helper of the tests' own package is written into a snippet up to this size
REST_LINES = 40  # the checks after the failing one are part of the requirement: all of them, up to this
_BUILTIN_FIXTURES = {
    "tmp_path": (["import pathlib", "import tempfile"], "tmp_path = pathlib.Path(tempfile.mkdtemp())"),
    "monkeypatch": (["import pytest"], "monkeypatch = pytest.MonkeyPatch()"),
    # pytest's `tmpdir` is a `py.path.local`; pytest itself provides the `py` module it comes from
    "tmpdir": (["import py", "import tempfile"], "tmpdir = py.path.local(tempfile.mkdtemp())"),
    # the warnings recorded from here on, every one (pytest's recorder is a list of them too)
    "recwarn": (
        ["import warnings"],
        "recwarn = warnings.catch_warnings(record=True).__enter__()\nwarnings.simplefilter('always')",
    ),
}
# fixtures of the anyio pytest plugin, which every test that takes `anyio_backend` runs under: their
# values follow from the case's `anyio_backend` (a backend name; its options are then the defaults)
_ANYIO_FIXTURES = {"anyio_backend_name": "{backend}", "anyio_backend_options": "{{}}"}


def failure_evidence(repo_path, commit: str, failures: dict, tests) -> dict[str, FailureEvidence]:
    """Per test of `tests` that pytest reported a failure for (`failures`: nodeid -> its report,
    `sandbox.clean_failures`): the report's words and what `explain_failure` derives from the
    test's file (and its conftests) at `commit`."""
    sources: dict[str, str] = {}
    modules = repo_modules(str(repo_path), commit)
    out: dict[str, FailureEvidence] = {}
    helper_sources: dict[str, dict[str, str]] = {}  # test file -> the tests' own modules it imports
    base_sources: dict[str, dict[str, str]] = {}  # test file -> the modules its test classes' bases come from
    conftests: dict[str, list[str]] = {}  # test file -> its conftests' texts, nearest first
    exported: dict[str, dict[str, str]] = {}  # test file -> the names its star imports bind
    for test_id in list(tests)[:EVIDENCE_TESTS]:
        path = file_of_test(test_id)
        report = failures.get(test_id) if isinstance(failures, dict) else None
        if report is None and isinstance(failures, dict) and isinstance(failures.get(path), dict):
            # its file did not load: the file's collection error is what the test would have said
            # with the ids of its test's other cases, which place the case a value cannot name
            siblings = [t for t in tests if t != test_id and without_parameters(t) == without_parameters(test_id)]
            report = (
                {**failures[path], "id": test_id, "siblings": siblings}
                if failures[path].get("when") == "collect"
                else None
            )
        if not isinstance(report, dict):
            continue
        if path not in sources:
            sources[path] = file_at(str(repo_path), commit, path)
            read = functools.partial(file_at, str(repo_path), commit)
            helper_sources[path] = {
                module: text
                for module in own_test_modules(sources[path], path, modules)
                if (text := own_module_text(module, path, read))
            }
            base_sources[path] = base_module_sources(sources[path], path, read)
            conftests[path] = [read(c) for c in _conftest_paths(path)]
            exported[path] = star_exports(sources[path], path, modules, read)
        try:
            out[test_id] = explain_failure(
                sources[path],
                test_id,
                report,
                conftests=conftests[path],
                repo_modules=modules,
                test_helpers=helper_sources[path],
                star_names=exported[path],
                base_sources=base_sources[path],
            )
        except (SyntaxError, ValueError, RecursionError, AttributeError, TypeError, IndexError):
            out[test_id] = FailureEvidence.from_dict(report, test_id=test_id)  # a file this code cannot read
    return out


def star_exports(source: str, test_path: str, project: set[str], read) -> dict[str, str]:
    """Name -> the project module a `from module import *` of the test file takes it from (`read`:
    a repository path -> its text, "" when absent): the module's literal `__all__`, else its
    public top-level names. A snippet imports each such name by itself: a star import says
    nothing to a reader, and a name it hides is unbound."""
    out: dict[str, str] = {}
    for stmt in _safe_parse(source).body:
        if not (isinstance(stmt, ast.ImportFrom) and any(a.name == "*" for a in stmt.names)):
            continue
        home = _absolute_module(stmt, test_path)
        if home and home.split(".")[0] in sys.stdlib_module_names:  # `from typing import *`
            text = _stdlib_source(home)
        elif home and home.split(".")[0] in project:
            path = home.replace(".", "/")
            candidates = [f"{path}.py", f"{path}/__init__.py", f"src/{path}.py", f"src/{path}/__init__.py"]
            text = next((t for c in candidates if (t := read(c))), "")
        else:
            continue
        tree = _safe_parse(text) if text else ast.Module(body=[], type_ignores=[])
        for name in [*_public_names(tree), *_runtime_names(tree)]:
            out.setdefault(name, home)
    return out


@functools.lru_cache(maxsize=64)
def _stdlib_source(module: str) -> str:
    """The source of a standard library module, read, never imported (one the interpreter
    builds in, or cannot find, has none: its names stay unknown)."""
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return ""
    origin = getattr(spec, "origin", None) or ""
    if not origin.endswith(".py"):
        return ""
    try:
        return Path(origin).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return ""


def _runtime_names(module: ast.Module) -> list[str]:
    """Names a module may bind at run time and export, when it builds its namespace in code
    (`globals()[token] = ...` over `"CLIENT SERVER".split()`, an `__all__ +=`): the identifiers its
    string constants spell, docstrings aside. A name the test reads is bound by nothing else."""
    if not any(_builds_namespace(n) for n in ast.walk(module)):
        return []
    docstrings = {
        id(n.value) for n in ast.walk(module) if isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant)
    }
    words = [
        word
        for n in ast.walk(module)
        if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docstrings
        for word in re.findall(r"[A-Za-z_]\w*", n.value)
    ]
    return [w for w in dict.fromkeys(words) if not w.startswith("_") and not keyword.iskeyword(w)]


def _builds_namespace(node: ast.AST) -> bool:
    """`globals()[...] = ...`, `globals().update(...)`, `__all__ += ...` or `__all__.extend(...)`."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("globals", "vars"):
        return True
    if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
        return node.target.id == "__all__"
    func = node.func if isinstance(node, ast.Call) else None
    return (
        isinstance(func, ast.Attribute)
        and isinstance(func.value, ast.Name)
        and func.value.id == "__all__"
        and func.attr in ("extend", "append")
    )


def _importable_imports(code: list[ast.stmt], test_path: str) -> list[ast.stmt]:
    """`code` with the test's own relative imports (`from ..prop import X` inside the test) as a
    user writes them: a snippet runs as no module of the test's package."""
    return [
        ast.copy_location(ast.ImportFrom(module=_importable(_absolute_module(s, test_path)), names=s.names, level=0), s)
        if isinstance(s, ast.ImportFrom) and s.level
        else s
        for s in code
    ]


def _absolute_module(stmt: ast.ImportFrom, test_path: str) -> str:
    """The dotted module a `from ... import` statement of the file at `test_path` reads."""
    base = stmt.module or ""
    if not stmt.level:
        return base
    parts = test_path.split("/")[:-1]
    parts = parts[: len(parts) - (stmt.level - 1)] if stmt.level > 1 else parts
    return ".".join([*parts, *([base] if base else [])])


def _importable(module: str) -> str:
    """The name a user imports `module` by: in a src layout (`src/pkg/...`, `src` no package of
    its own) a relative import of a test under src/ resolves to `src.pkg`, and `pkg` is the name."""
    return module.removeprefix("src.") if module.startswith("src.") else module


def _public_names(module: ast.Module) -> list[str]:
    """What `from module import *` binds: its `__all__` when one literal assignment gives it,
    else every top-level name not starting with `_`."""
    alls = [
        s
        for s in module.body
        if isinstance(s, (ast.Assign, ast.AugAssign, ast.AnnAssign))
        and "__all__"
        in {
            n.id
            for t in (s.targets if isinstance(s, ast.Assign) else [s.target])
            for n in ast.walk(t)
            if isinstance(n, ast.Name)
        }
    ]
    if len(alls) == 1 and isinstance(alls[0], ast.Assign) and isinstance(alls[0].value, (ast.List, ast.Tuple)):
        values = alls[0].value.elts
        if all(isinstance(v, ast.Constant) and isinstance(v.value, str) for v in values):
            return [v.value for v in values]
    names = []
    for node in module.body:
        if isinstance(node, (*FUNCTIONS, ast.ClassDef)):
            names.append(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names += [(a.asname or a.name).split(".")[0] for a in node.names if a.name != "*"]
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            names += sorted(names_bound([node]))
    return [n for n in dict.fromkeys(names) if not n.startswith("_")]


def own_test_modules(source: str, test_path: str, project: set[str]) -> list[str]:
    """The dotted modules outside the project (`project`: its importable names) that the test
    file imports from, and those it imports as names of such a module (`from tests import
    test_x`): the tests' own helpers (`from tests.utils import x`, `from .helpers import y`). A
    snippet may not import them (the solver has no tests): what it takes from them is written in."""
    out: list[str] = []
    for stmt in _module_definitions(_safe_parse(source), test_path).values():
        if isinstance(stmt, ast.ImportFrom) and stmt.module and stmt.module.split(".")[0] not in project:
            out += [m for m in (stmt.module, f"{stmt.module}.{stmt.names[0].name}") if m not in out]
    return out


def imported_bases(source: str, test_path: str) -> list[str]:
    """The dotted modules the test file imports a class from that one of its classes derives
    from (`from pkg.testing import TestCase`; `class T(TestCase)`, or `class T(helper.TestCase)`
    after `from pkg import helper`): such a base often holds the helper whose check fails
    (`self.check(src, want)`)."""
    tree = _safe_parse(source)
    imported = _imported_modules(tree, test_path)
    out: list[str] = []
    for cls in (n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)):
        for base in cls.bases:
            dotted, _ = _imported_base(base, imported)
            if dotted and dotted not in out:
                out.append(dotted)
    return out


BASE_DEPTH = 3  # modules of base classes read beyond the test file (elementpath: test -> test_xpath1 -> test class)


def base_module_sources(source: str, test_path: str, read) -> dict[str, str]:
    """Dotted module -> source of the tests' own modules the test file's classes derive from,
    and of those their classes derive from in turn, up to `BASE_DEPTH` steps (`read`: a
    repository path -> its text, "" when absent)."""
    out: dict[str, str] = {}
    todo = [(source, test_path, 0)]
    while todo:
        text, path, depth = todo.pop(0)
        if depth >= BASE_DEPTH:
            continue
        for module in imported_bases(text, path):
            if module not in out and (found := own_module_text(module, test_path, read)):
                out[module] = found
                todo.append((found, module.replace(".", "/") + ".py", depth + 1))
    return out


def _imported_base(base: ast.expr, imported: dict[str, str]) -> tuple[str, str]:
    """(dotted module, class name) of a base class the file imports (`imported`:
    `_imported_modules`); ("", "") for any other base, and for one imported under another name
    (its class is found by the name it is read by)."""
    if isinstance(base, ast.Name) and "." in imported.get(base.id, ""):
        dotted, _, name = imported[base.id].rpartition(".")
        return (dotted, name) if name == base.id else ("", "")
    if isinstance(base, ast.Attribute) and isinstance(base.value, ast.Name) and base.value.id in imported:
        return imported[base.value.id], base.attr
    return "", ""


def _imported_modules(tree: ast.Module, test_path: str) -> dict[str, str]:
    """The names the file binds to modules it imports -> their dotted names (`import a.b as h`,
    `from yapftests import yapf_test_helper`: a name from a package may be a module)."""
    out: dict[str, str] = {}
    for node in _top_level_imports(tree):
        if isinstance(node, ast.Import):
            names = {a.asname: a.name for a in node.names if a.asname}
        else:
            package = _absolute_module(node, test_path)
            names = {a.asname or a.name: f"{package}.{a.name}" if package else a.name for a in node.names}
        for name, dotted in names.items():
            out.setdefault(name, dotted)  # `try: from tests import x` / `except: import x`: the first says where
    return out


def _top_level_imports(tree: ast.Module) -> list[ast.Import | ast.ImportFrom]:
    """The module's own imports, those of its top-level `try` blocks and their handlers included."""
    out: list[ast.Import | ast.ImportFrom] = []
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            out.append(node)
        elif isinstance(node, ast.Try):
            nested = [*node.body, *(s for h in node.handlers for s in h.body)]
            out += [s for s in nested if isinstance(s, (ast.Import, ast.ImportFrom))]
    return out


def own_module_text(module: str, test_path: str, read) -> str:
    """The source of the tests' own `module` (`read`: a repository path -> its text, "" when
    absent): from the repository's root, else from the test file's folder (pytest puts that
    folder on the path, so `from common import check` is `test/common.py`)."""
    path = module.replace(".", "/")
    folder = test_path.rsplit("/", 1)[0] + "/" if "/" in test_path else ""
    candidates = [f"{path}.py", f"{path}/__init__.py"]
    if folder:
        candidates += [f"{folder}{path}.py", f"{folder}{path}/__init__.py"]
    return next((text for c in candidates if (text := read(c))), "")


def _conftest_paths(test_path: str) -> list[str]:
    parts = test_path.split("/")[:-1]
    return ["/".join([*parts[:i], "conftest.py"]) for i in range(len(parts), -1, -1)]


def repo_modules(repo_path: str, commit: str) -> set[str]:
    """Top-level importable names of the project: packages and modules at the root or in src/."""
    try:
        files = git.Repo(repo_path).git.ls_tree("-r", "--name-only", commit).splitlines()
    except (git.GitCommandError, git.InvalidGitRepositoryError, git.NoSuchPathError):
        return set()
    names = set()
    for f in files:
        parts = f.split("/")
        if parts[0] == "src":
            parts = parts[1:]
        if not parts or not f.endswith(".py"):
            continue
        top = parts[0][:-3] if len(parts) == 1 else parts[0]
        if top not in ("setup", "conftest", "tests", "test", "docs", "noxfile", "tasks") and top.isidentifier():
            names.add(top)
    return names


def _find_test(tree: ast.Module, test_id: str) -> tuple[ast.ClassDef | None, ast.AST | None]:
    parts = node_names(test_id)
    if not parts:
        return None, None
    name = parts[-1]
    scope, cls = tree.body, None
    # the last definition of a name is the one that runs: a test defined twice runs its second body
    for part in parts[:-1]:
        cls = next((n for n in reversed(scope) if isinstance(n, ast.ClassDef) and n.name == part), None)
        if cls is None:
            break
        scope = cls.body
    fn = next((n for n in reversed(scope) if isinstance(n, FUNCTIONS) and n.name == name), None)
    if fn is None and (cls is not None or len(parts) == 1):
        fn = _expanded_test(scope, name)
    if fn is None and cls is not None:  # inherited: from a class of this module, else of another (`_inherited_test`)
        fn = _method_of_local_bases(tree, cls, name)
    return cls, fn


def _expanded_test(scope: list[ast.stmt], name: str) -> ast.AST | None:
    """The function `@parameterized.expand([...])` made the test `name` from: the library names
    each case `<function>_<index>` (and the first value's safe text: dateparser's
    `test_use_given_language_order_setting_0_11_12_2020`). The case's index is kept on it
    (`sebgen_expand_index`) for `_parametrize_values`."""
    for match in re.finditer(r"_(\d+)(?=_|$)", name):
        base = name[: match.start()]
        fn = next((n for n in reversed(scope) if isinstance(n, FUNCTIONS) and n.name == base), None)
        if fn is not None and _expand_decorator(fn) is not None:
            found = copy.deepcopy(fn)
            found.sebgen_expand_index = int(match.group(1))
            return found
    return None


def _expand_decorator(fn: ast.AST) -> ast.Call | None:
    return next(
        (
            d
            for d in getattr(fn, "decorator_list", [])
            if isinstance(d, ast.Call) and callee(d).split(".")[-1] in ("expand", "parameterized_expand") and d.args
        ),
        None,
    )


def _described_test(tree: ast.Module, test_id: str) -> tuple[ast.Module, ast.AST | None]:
    """A test nested in `describe_...` functions (pytest-describe: graphql-core's
    `describe_validate_input_value::describe_for_one_of::returns_error_for_a_misspelled_field`),
    and the module with what its enclosing functions define before it (their `_test` helper,
    `TestInputObject = ...`) as top-level statements, so the snippet reads them as module set-up.
    The enclosing functions' other public functions are tests or blocks of their own: left out.
    (tree, None) when the id does not lead through functions to one."""
    parts = node_names(test_id)
    scope, prelude = tree.body, []
    for depth, part in enumerate(parts):
        node = next((n for n in reversed(scope) if isinstance(n, FUNCTIONS) and n.name == part), None)
        if node is None or (depth < len(parts) - 1 and not node.body):
            return tree, None
        if depth == len(parts) - 1:
            if depth == 0:
                return tree, None  # a plain module-level test: not described
            module = ast.Module(body=[*tree.body, *prelude, node], type_ignores=[])
            return module, node
        prelude += [
            copy.deepcopy(s)
            for s in node.body
            if not (isinstance(s, FUNCTIONS) and not s.name.startswith("_")) and not _is_docstring(s)
        ]
        scope = node.body
    return tree, None


def _method_of_local_bases(tree: ast.Module, cls: ast.ClassDef, name: str) -> ast.AST | None:
    """The method `name` that `cls` inherits from a base class its own module defines."""
    classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
    todo, seen = [cls], {cls.name}
    while todo:
        current = todo.pop(0)
        for base in current.bases:
            found = classes.get(base.id) if isinstance(base, ast.Name) and base.id not in seen else None
            if found is None:
                continue
            seen.add(found.name)
            fn = next((n for n in reversed(found.body) if isinstance(n, FUNCTIONS) and n.name == name), None)
            if fn is not None:
                return fn
            todo.append(found)
    return None


def _defined_anywhere(tree: ast.Module, name: str) -> ast.AST | None:
    """The first function named `name` anywhere in the module: a last resort for a test id
    whose class this reading did not find."""
    return next((n for n in ast.walk(tree) if isinstance(n, FUNCTIONS) and n.name == name), None)


def _asserting_helpers(tree: ast.Module) -> set[str]:
    """Module-level functions whose body asserts (`check(a, b)`, `assert_roundtrip(x)`)."""
    out = set()
    for node in tree.body:
        if isinstance(node, FUNCTIONS) and not node.name.startswith("test"):
            if any(isinstance(n, ast.Assert) for n in ast.walk(node)):
                out.add(node.name)
    return out


def own_nodes(function: ast.AST):
    """The nodes of a function's body, not of the helpers it defines (whose asserts speak of
    their parameters, not of the test's values)."""
    todo = list(ast.iter_child_nodes(function))
    while todo:
        node = todo.pop(0)
        yield node
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            todo.extend(ast.iter_child_nodes(node))


def is_check(stmt: ast.stmt, helpers: set[str] = frozenset()) -> bool:
    """An assert, a unittest `self.assert*(...)`, a `with pytest.raises/warns(...)` block
    that binds nothing, or a call of a helper that asserts."""
    if isinstance(stmt, ast.Assert):
        return True
    if isinstance(stmt, (ast.With, ast.AsyncWith)):
        return any(is_check_context(i) for i in stmt.items) and all(i.optional_vars is None for i in stmt.items)
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
        path = callee(stmt.value)
        name = path.split(".")[-1]
        # a test class's own checking method (elementpath's `self.check_tokenizer(...)`, defined in
        # a base class of another module): a check, not an action the snippet must repeat
        own_check = path.startswith("self.") and name.lstrip("_").startswith(("check", "verify"))
        return name.lstrip("_").startswith("assert") or name in helpers or own_check
    return False


_DOCSTRING = re.compile(r"^\s*(?:async\s+)?def\s[^\n]*:[ \t]*\n\s*[rRuU]?(\"{3}|'{3})(.*?)\1", re.S | re.M)
_UNREADABLE_REFERENCE = re.compile(r"#\d|\bgh-\d|https?://|\b(?:issue|PR|pull request|bug)\s*\d", re.I)
_REMARK = re.compile(r"(?:note\b|nb\b|n\.b\.|todo\b|fixme\b|xxx\b|hack\b|warning\b)", re.I)
TEST_INTENT = 300  # characters: a test's description longer than this is a story, not a requirement


def test_intent(lines: list[str]) -> str:
    """The failing test's own description of what it requires: the first paragraph of the
    docstring of the function the test's `lines` define, else the comment its body opens with,
    on one line; "" when it has none, it is long or short, or it points at what a solver cannot
    read (an issue, a URL)."""
    m = _DOCSTRING.search("\n".join(lines))
    paragraph = re.split(r"\n\s*\n", m.group(2).strip())[0] if m else _opening_comment(lines)
    text = " ".join(paragraph.split())
    if not m and len(text.split()) < 8:  # `# setup`, `# arrange`: a label, not a requirement
        return ""
    if not text or len(text) > TEST_INTENT or _UNREADABLE_REFERENCE.search(text) or '"' in text:
        return ""
    if _REMARK.match(text):  # a caveat or a to-do about the test, not what it requires
        return ""
    return text if text.endswith((".", "!", "?")) else f"{text}."


def _opening_comment(lines: list[str]) -> str:
    """The comment lines right after the signature of the function `lines` define, joined."""
    try:
        node = ast.parse(textwrap.dedent("\n".join(lines))).body[0]
    except (SyntaxError, IndexError):
        return ""
    if not isinstance(node, FUNCTIONS) or not node.body:
        return ""
    signature_end = max([node.lineno, *(getattr(n, "end_lineno", 0) or 0 for n in ast.walk(node.args))])
    signature_end = max(signature_end, getattr(node.returns, "end_lineno", 0) or 0)
    comment = []
    for line in lines[signature_end : node.body[0].lineno - 1]:
        stripped = line.strip()
        if not stripped.startswith("#"):
            return ""
        comment.append(stripped.lstrip("#").strip())
    return " ".join(comment)


def _is_docstring(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str)


def _leaves_early(stmt: ast.stmt) -> bool:
    """An `if` with no `else` whose block ends by leaving (`return`, `raise`, `continue`, `break`):
    bitstring's `if stop < start: return` guard in a Hypothesis test, a `return` no snippet can hold."""
    return (
        isinstance(stmt, ast.If)
        and not stmt.orelse
        and isinstance(stmt.body[-1], (ast.Return, ast.Raise, ast.Continue, ast.Break))
    )


def _trim(body: list[ast.stmt], line: int, helpers: set[str], chain: list[ast.stmt]) -> list[ast.stmt]:
    """`body` up to the statement holding `line`: earlier checks (they passed) and docstrings
    left out, compound statements entered down to the failing statement (`chain` gets the
    statements entered, the failing one last)."""
    out: list[ast.stmt] = []
    holding = next((s for s in body if s.lineno <= line <= (s.end_lineno or s.lineno)), None)
    for stmt in body:
        end = stmt.end_lineno or stmt.lineno
        if end < line:
            repeated = holding is not None and is_check(stmt, helpers) and unparse(stmt) == unparse(holding)
            # the same check fails when repeated, or the failing one reads the state its call set: keep the call
            sets_state = holding is not None and is_check(stmt, helpers) and _state_read_by(stmt, holding)
            if (repeated or sets_state) and (first_run := _checked_call(stmt)) is not None:
                out.append(first_run)
            elif _leaves_early(stmt):
                continue  # the failing line was reached, so this way out was not taken
            elif not _is_docstring(stmt) and not is_check(stmt, helpers):
                kept = _without_checks(copy.deepcopy(stmt), helpers)
                if kept is not None:
                    out.append(kept)
            continue
        if min([stmt.lineno, *(d.lineno for d in getattr(stmt, "decorator_list", []))]) > line:
            break  # a decorated class or function fails at its decorator's line
        chain.append(stmt)
        if isinstance(stmt, ast.Try) or type(stmt).__name__ == "TryStar":
            shell = copy.deepcopy(stmt)  # the block holding the line is cut at it, the others stay
            for field in ("body", "orelse", "finalbody"):
                block = getattr(stmt, field)
                if block and block[0].lineno <= line <= (block[-1].end_lineno or block[-1].lineno):
                    setattr(shell, field, _trim(block, line, helpers, chain) or [ast.Pass()])
                    if field == "body":
                        shell.orelse, shell.finalbody = [], []
                    break
            else:
                for i, handler in enumerate(stmt.handlers):
                    if handler.lineno <= line <= (handler.end_lineno or handler.lineno):
                        shell.handlers[i].body = _trim(handler.body, line, helpers, chain) or [ast.Pass()]
            if not shell.handlers and not shell.finalbody:
                out += shell.body  # `try: ... finally: <teardown>` cut in its body: a bare `try:` would not compile
            else:
                out.append(shell)
            break
        inner = getattr(stmt, "body", None)
        enterable = isinstance(stmt, (ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.If))
        if enterable and inner and inner[0].lineno <= line <= (inner[-1].end_lineno or inner[-1].lineno):
            shell = copy.copy(stmt)
            shell.body = _trim(inner, line, helpers, chain) or [ast.Pass()]
            if hasattr(shell, "orelse"):
                shell.orelse = []
            out.append(shell)
        else:
            failing = copy.deepcopy(stmt)
            failing.sebgen_failing = True  # the check that failed (ast.unparse ignores it)
            out.append(failing)
        break
    return out


def _root_name(node: ast.expr) -> str:
    """The name an attribute, item or call chain starts from (`f` of `f.retry.statistics[0]`)."""
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Call, ast.Await)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else ""


def _state_read_by(earlier: ast.stmt, failing: ast.stmt) -> bool:
    """The failing statement reads an attribute of a name (`f.retry.statistics`) that the check
    before it called (`assert await f(thing)`): that call set the state read, and the snippet
    without it reads a fresh one (tenacity's statistics, a mock's call count)."""
    called = {_root_name(n.func) for n in ast.walk(earlier) if isinstance(n, ast.Call)} - {"self", ""}
    targets = {id(n.func) for n in ast.walk(failing) if isinstance(n, ast.Call)}
    read = {
        _root_name(n)
        for n in ast.walk(failing)
        if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Load) and id(n) not in targets
    }
    return bool(called & read)


def _checked_call(check: ast.stmt) -> ast.stmt | None:
    """What a check that passed evaluates, without the check: `len(f(x))` of `assert len(f(x)) == 0`;
    None when that calls nothing (reading a value twice changes no state)."""
    plain = _plain_assert(copy.deepcopy(check))
    if getattr(plain, "sebgen_unittest", "") in ("assertAlmostEqual", "assertNotAlmostEqual"):
        plain = check  # its plain test wraps the value in `round(abs(...))`: the value is what ran
    if not isinstance(plain, ast.Assert):
        if isinstance(plain, ast.Expr) and isinstance(plain.value, ast.Call) and plain.value.args:
            # an assertion with no plain form (`self.assertAlmostEqual(token.evaluate(), math.pi)`):
            # what it evaluates, without `self`
            value = plain.value.args[0]
            return (
                ast.copy_location(ast.Expr(value), check)
                if any(isinstance(n, ast.Call) for n in ast.walk(value))
                else None
            )
        return plain
    value = plain.test.left if isinstance(plain.test, ast.Compare) else plain.test
    if not any(isinstance(n, ast.Call) for n in ast.walk(value)):
        return None
    return ast.copy_location(ast.Expr(value), check)


def _without_checks(stmt: ast.stmt, helpers: set[str]) -> ast.stmt | None:
    """A statement that ran and passed, without the checks inside it (a loop of asserts that
    passed is no part of the reproduction); None when nothing else is left."""
    if isinstance(stmt, (*FUNCTIONS, ast.ClassDef, ast.Lambda)):
        return stmt  # a definition: its checks run where it is called
    changed = False
    for field in ("body", "orelse", "finalbody"):
        block = getattr(stmt, field, None)
        if not isinstance(block, list) or not block:
            continue
        kept = [k for k in (_without_checks(s, helpers) for s in block if not is_check(s, helpers)) if k is not None]
        changed |= len(kept) != len(block)
        setattr(stmt, field, kept)
    for handler in getattr(stmt, "handlers", []) or []:
        handler.body = [
            k for k in (_without_checks(s, helpers) for s in handler.body if not is_check(s, helpers)) if k is not None
        ] or [ast.Pass()]
    if not changed:
        return stmt
    if isinstance(stmt, (ast.With, ast.AsyncWith)) and not stmt.body:
        stmt.body = [ast.Pass()]  # entering and leaving the context is the setup that matters
    calls = any(isinstance(n, ast.Call) for n in ast.walk(getattr(stmt, "iter", None) or ast.Pass()))
    if isinstance(stmt, (ast.For, ast.AsyncFor)) and not stmt.body and calls:
        stmt.body = [ast.Pass()]  # an iterator that is called may do the work
    if isinstance(stmt, (ast.For, ast.AsyncFor, ast.While, ast.If)) and not stmt.body:
        if not getattr(stmt, "orelse", None):
            return None
        stmt.body = [ast.Pass()]
    if isinstance(stmt, ast.Try) and not stmt.body:
        stmt.body = [ast.Pass()]
    return stmt


def _without_dead_stores(code: list[ast.stmt]) -> list[ast.stmt]:
    """Top-level `x = ...` that the next statements overwrite before reading `x` go (what a
    test checked and then replaced), and so do `x = <value>` (no call but a literal's method:
    setUp's `self.kind = text_type`) and a helper or fixture definition that nothing reads.
    Until none is left: a store that only a dropped store read is dead too."""
    while True:
        kept = _without_dead_stores_once(code)
        if len(kept) == len(code):
            return kept
        code = kept


def _without_dead_stores_once(code: list[ast.stmt]) -> list[ast.stmt]:
    out = []
    for i, stmt in enumerate(code):
        if isinstance(stmt, (*FUNCTIONS, ast.ClassDef)) and all(_names_a_fixture(d) for d in stmt.decorator_list):
            if not any(stmt.name in names_read([other]) for j, other in enumerate(code) if j != i):
                continue  # a helper nothing calls any more (its calls were checks that passed), an inlined fixture
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            name = stmt.targets[0].id
            # a definition before it reads it when it is called, later
            readers = [*code[i + 1 :], *(d for d in code[:i] if isinstance(d, (*FUNCTIONS, ast.ClassDef)))]
            if _pure(stmt.value) and not any(name in names_read([reader]) for reader in readers):
                continue
            if _overwritten_before_read(name, code[i + 1 :]) and not _calls_on_kept_object(
                stmt.value, code[:i], code[i + 1 :]
            ):
                continue
        if _loop_of_dead_stores(stmt, code[i + 1 :]):
            continue  # `for args in cases: result = invoke(args)`, its checks passed, then `result = ...`
        out.append(stmt)
    return out


def _calls_on_kept_object(value: ast.expr, before: list[ast.stmt], later: list[ast.stmt]) -> bool:
    """`value` calls a method of an object the code made itself and reads again later
    (`client.get(...)`): the call may change that object, so the store is no dead one even
    when its name is overwritten (starlette: a first request changed what the second got)."""
    made = {
        n.id
        for stmt in before
        if not isinstance(stmt, (ast.Import, ast.ImportFrom, *FUNCTIONS, ast.ClassDef))
        for n in ast.walk(stmt)
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
    }
    receivers = set()
    for node in ast.walk(value):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            root = node.func.value
            while isinstance(root, (ast.Attribute, ast.Subscript, ast.Call)):
                root = root.func if isinstance(root, ast.Call) else root.value
            if isinstance(root, ast.Name):
                receivers.add(root.id)
    # an object made from one read later is part of it (bigtree's `child = rich_root.add('Child')`,
    # then `_ = child.add('Grandchild')`, and the test reads `rich_root`)
    kept = set(names_read(later))
    while True:  # a part of a part, at any depth (`e = b.add('e')`, `b = rich_root.add('b')`)
        parts = {
            target.id
            for stmt in before
            if isinstance(stmt, ast.Assign) and names_read([stmt.value]) & kept
            for target in stmt.targets
            if isinstance(target, ast.Name)
        }
        if parts <= kept:
            return bool(receivers & made & kept)
        kept |= parts


def _overwritten_before_read(name: str, later: list[ast.stmt]) -> bool:
    for stmt in later:
        if name in names_read([stmt]):
            return False
        if isinstance(stmt, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in stmt.targets):
            return name not in names_read([stmt.value])
    return False


def _loop_of_dead_stores(stmt: ast.stmt, later: list[ast.stmt]) -> bool:
    """A `for` over a value whose body only stores names that `later` overwrites before reading
    (its loop variable too, unless nothing reads it)."""
    if not isinstance(stmt, ast.For) or stmt.orelse or not _pure(stmt.iter) or not stmt.body:
        return False
    stored = []
    for inner in stmt.body:
        if not (isinstance(inner, ast.Assign) and len(inner.targets) == 1 and isinstance(inner.targets[0], ast.Name)):
            return False
        stored.append(inner.targets[0].id)
    loop_names = names_bound([stmt.target])
    return all(_overwritten_before_read(n, later) for n in stored) and not any(
        n in names_read(later) and not _overwritten_before_read(n, later) for n in loop_names
    )


def _pure(value: ast.expr) -> bool:
    """An expression that only computes a value: no call but a literal's own method
    (`'a{}'.format(x).encode()`), no await, yield or walrus."""
    for node in ast.walk(value):
        if isinstance(node, (ast.Await, ast.Yield, ast.YieldFrom, ast.NamedExpr)):
            return False
        if isinstance(node, ast.Call):
            receiver = node.func
            while isinstance(receiver, (ast.Attribute, ast.Call)):
                receiver = receiver.value if isinstance(receiver, ast.Attribute) else receiver.func
            if not (isinstance(node.func, ast.Attribute) and isinstance(receiver, ast.Constant)):
                return False
    return True


def _parametrize_values(fn: ast.AST, cls: ast.ClassDef | None, module: ast.Module, report: dict) -> dict[str, ast.expr]:
    """param name -> the source expression of its value: the parametrize decorator's element
    at the collected index, else the plugin's repr when it parses."""
    indices = report.get("indices") or {}
    out: dict[str, ast.expr] = {}
    decorated_at: dict[str, int] = {}  # name -> the line of the decorator that gives it
    decorators = [*getattr(fn, "decorator_list", []), *(cls.decorator_list if cls is not None else [])]
    for deco in decorators:
        if not (isinstance(deco, ast.Call) and callee(deco).endswith("parametrize") and len(deco.args) >= 2):
            continue
        names_node, values = deco.args[0], deco.args[1]
        # names as a tuple or list: each element is a tuple of values, even for one name
        packed = isinstance(names_node, (ast.Tuple, ast.List))
        if isinstance(names_node, ast.Constant) and isinstance(names_node.value, str):
            names = [n.strip() for n in names_node.value.split(",") if n.strip()]
        elif packed:
            names = [e.value for e in names_node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
        else:
            continue
        decorated_at.update(dict.fromkeys(names, deco.lineno))
        if isinstance(values, ast.Name):
            values = _module_value(module, values.id)
        reported = report.get("params") or {}
        if not isinstance(values, (ast.List, ast.Tuple)) or not names or not values.elts:
            continue
        if names[0] not in indices:
            # no index recorded (evidence derived again from a stored report): the one element
            # whose values all are the reported ones, when exactly one is
            if not all(n in reported for n in names):
                # a test that never ran (its file failed to load) has no values: its id's index
                index = _collected_index(str(report.get("id") or ""), names, deco, values, packed, report)
                if index is not None and index < len(values.elts):
                    out.update(_case_values(values.elts[index], names, packed))
                continue
            matching = [c for e in values.elts if (c := _case_values(e, names, packed)) and _reported_case(c, reported)]
            index = _index_in_id(str(report.get("id") or ""), names, deco)
            if len(matching) == 1:
                out.update(matching[0])
            elif index is not None and index < len(values.elts):
                out.update(_case_values(values.elts[index], names, packed))
            continue
        index = indices[names[0]]
        index = index if 0 <= index < len(values.elts) else 0
        # stacked decorators: some pytest versions count the index over the product of the
        # decorators; the element whose values are the reported ones is the case's own
        candidates = [values.elts[index], *(e for i, e in enumerate(values.elts) if i != index)]
        for element in candidates:
            case = _case_values(element, names, packed)
            if case and all(_same_value(case[n], reported.get(n)) for n in names):
                out.update(case)
                break
        else:
            out.update(_case_values(values.elts[index], names, packed))
    expanded = _expand_decorator(fn)
    if expanded is not None and isinstance(getattr(fn, "sebgen_expand_index", None), int):
        out.update(_expanded_case(fn, expanded, module))
    rebound = _rebound(module)
    for name, line in decorated_at.items():
        value = out.get(name)
        if isinstance(value, ast.Name) and value.id in rebound:
            # fastjsonschema binds `exc` before each test: the decorator took the one bound above it
            above = [s for s in rebound[value.id] if s.lineno < line and isinstance(s, ast.Assign)]
            if above and len(above[-1].targets) == 1 and isinstance(above[-1].targets[0], ast.Name):
                out[name] = copy.deepcopy(above[-1].value)
    for name, text in (report.get("params") or {}).items():
        if name in out and not _is_literal(out[name]) and (literal := _short_literal(str(text))) is not None:
            # `ONE_DAY - MILLISECONDS_1_337` as the value it is (`86398.663`): no module constant
            # for a reader to look up in tests they cannot see; `9 * 60 * 60 - 1` as `32399`, the
            # value the case's id and the runner's report give
            out[name] = literal
        if name not in out:
            try:
                out[name] = ast.parse(str(text), mode="eval").body
            except SyntaxError:
                imported = _imported_by_repr(module, str(text))
                if imported is not None:
                    out[name] = imported
    for name, value in list(out.items()):
        if isinstance(value, ast.Name) and cls is not None and (bound := _class_value(cls, value.id)) is not None:
            # `(X, "x", True)` in a class body's decorator: `X` is the class's attribute, which no
            # snippet at module level can read; the value it is bound to instead
            out[name] = bound
    for name, value in _given_example(fn, report).items():
        out.setdefault(name, value)
    return out


def _class_value(cls: ast.ClassDef, name: str) -> ast.expr | None:
    """The value a class body binds `name` to, once, at its top level; None otherwise."""
    binds = [
        s
        for s in cls.body
        if isinstance(s, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in s.targets)
    ]
    if len(binds) != 1 or len(binds[0].targets) != 1:
        return None
    return copy.deepcopy(binds[0].value)


def _given_example(fn: ast.AST, report: dict) -> dict[str, ast.expr]:
    """The arguments a Hypothesis `@given` draws -> the falsifying example's values (the test
    frame's locals), those that are literals: the case that failed, as a parametrized one's.
    Positional strategies fill the rightmost arguments, as Hypothesis binds them."""
    decorators = getattr(fn, "decorator_list", [])
    given = next((d for d in decorators if isinstance(d, ast.Call) and callee(d).split(".")[-1] == "given"), None)
    if given is None or not isinstance(fn, FUNCTIONS):
        return {}
    params = [a.arg for a in fn.args.args if a.arg not in ("self", "cls")]
    names = params[len(params) - len(given.args) :] if given.args else []
    names += [k.arg for k in given.keywords if k.arg]
    # the drawn values, as Hypothesis reports them: the frame's locals are those at the failure,
    # after the test may have rebound them (bitstring's `if start is None: start = 0`)
    local_values = {**(report.get("locals") or {}), **_falsifying_example(str(report.get("notes") or ""))}
    out: dict[str, ast.expr] = {}
    for name in names:
        text = str(local_values.get(name, ""))
        try:
            node = ast.parse(text, mode="eval").body
            ast.literal_eval(node)
        except (SyntaxError, ValueError, TypeError, MemoryError, RecursionError):
            continue
        if len(text) <= WRITTEN_VALUE:
            out[name] = node
    return out


def _falsifying_example(notes: str) -> dict[str, str]:
    """Argument -> its value's source in Hypothesis's "Falsifying example: test(start=None, ...)"."""
    found = re.search(r"Falsifying example: (\w+\(.*?(?:\n\)|\)$))", notes, re.S | re.M)
    if found is None:
        return {}
    # one argument a line (`    start=None,`) when the call is long: a value with no Python repr
    # (`self=<tests.T object at 0x...>`) spoils only its own line
    lines = dict(re.findall(r"^ {4}(\w+)=(.*),$", found.group(1), re.M))
    try:
        call = ast.parse(found.group(1), mode="eval").body
    except SyntaxError:
        return lines
    if not isinstance(call, ast.Call):
        return lines
    return {k.arg: ast.get_source_segment(found.group(1), k.value) or "" for k in call.keywords if k.arg}


def _is_literal(node: ast.expr) -> bool:
    try:
        ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False
    return True


def _short_literal(text: str, limit: int = 60) -> ast.expr | None:
    """The runner's repr of a value as an expression, when it is a short number or string literal."""
    if len(text) > limit or "..." in text:
        return None
    try:
        node = ast.parse(text, mode="eval").body
        value = ast.literal_eval(node)
    except (SyntaxError, ValueError, TypeError, MemoryError, RecursionError):
        return None
    return node if isinstance(value, (int, float, str, bytes)) and not isinstance(value, bool) else None


def _imported_by_repr(module: ast.Module, text: str) -> ast.Name | None:
    """A class or function value the runner reported by its repr (`<class 'pkg.mod.Klass'>`, a
    parametrize list the test imports from elsewhere) as the name the test module imports it
    by, from the same package; None when the module imports no such name."""
    named = re.fullmatch(r"<(?:class|function) '?([\w.]+?)'?(?: at [^>]*)?>", text)
    if named is None or "." not in named.group(1):
        return None
    package, _, name = named.group(1).rpartition(".")
    for node in module.body:
        if isinstance(node, ast.ImportFrom) and not node.level and node.module:
            same_package = node.module.split(".")[0] == package.split(".")[0]
            if same_package and any((a.asname or a.name) == name and a.name == name for a in node.names):
                return ast.Name(id=name, ctx=ast.Load())
    return None


def _collected_index(
    test_id: str, names: list[str], deco: ast.Call, values: ast.List | ast.Tuple, packed: bool, report: dict
) -> int | None:
    """The element of a test that never ran (its file failed to load: no values reported), by its
    id: the id the test gives it, `argname<N>`, or the id pytest makes of plain values (`None-1`)."""
    if report.get("when") != "collect":
        return None
    index = _index_in_id(test_id, names, deco)
    if index is not None:
        return index
    made = [_made_id(element, names, packed) for element in values.elts]
    if parameter_id(test_id) in made:
        return made.index(parameter_id(test_id))
    # charset_normalizer's `b64decode("R0lG...")`, whose id is its value: when every other case
    # of the test failed too and each is placed by its id, this one is the element left over
    siblings = [str(s) for s in report.get("siblings") or []]
    if len(siblings) + 1 != len(values.elts):
        return None
    placed = set()
    for sibling in siblings:
        n = _index_in_id(sibling, names, deco)
        n = made.index(parameter_id(sibling)) if n is None and parameter_id(sibling) in made else n
        if n is None:
            return None
        placed.add(n)
    left = [n for n, made_id in enumerate(made) if n not in placed and made_id is None]
    return left[0] if len(left) == 1 and len(placed) == len(siblings) else None


def _made_id(element: ast.expr, names: list[str], packed: bool) -> str | None:
    """The id pytest makes of a parametrize element from its values, None when a value is one
    pytest numbers or names by what it evaluates to."""
    case = _case_values(element, names, packed)
    parts = [_id_part(case.get(name)) for name in names]
    return "-".join(parts) if all(part is not None for part in parts) else None


def _id_part(value: ast.expr | None) -> str | None:
    """The id pytest makes of one parametrize value it can name: a plain literal's text, or the
    `__name__` of a class or function given by name (`OrderedBidict`, `mod.Klass`); None for
    others (pytest numbers those: `argname<N>`)."""
    folded = _folded_text(value) if isinstance(value, ast.BinOp) else None
    if folded is not None:  # `b'\x00\x5f\x2f\xff' * 50`: pytest names the value it makes
        return _ascii_escaped(folded)
    if isinstance(value, ast.Constant) and isinstance(value.value, (str, bytes)):
        return _ascii_escaped(value.value)
    if isinstance(value, ast.Constant):
        return str(value.value)
    if isinstance(value, ast.Name):
        return value.id
    if isinstance(value, ast.Attribute):
        return value.attr
    return None


FOLDED_CHARS = 100_000  # a repeated text folded to its value up to this size


def _folded_text(node: ast.expr) -> str | bytes | None:
    """The text or bytes a `+` / `*` of literals makes (`b'ab' * 50`, `'a' + 'b'`), None for any
    other expression or a value past `FOLDED_CHARS`."""
    if (
        isinstance(node, ast.Constant)
        and isinstance(node.value, (str, bytes, int))
        and not isinstance(node.value, bool)
    ):
        return node.value
    if not (isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Mult))):
        return None
    left, right = _folded_text(node.left), _folded_text(node.right)
    if left is None or right is None:
        return None
    if isinstance(node.op, ast.Mult) and isinstance(right, int) and isinstance(left, int):
        return None  # a number is no text
    count = right if isinstance(right, int) else left if isinstance(left, int) else None
    text = left if isinstance(right, int) else right
    if isinstance(node.op, ast.Mult) and count is not None and not isinstance(text, int):
        return text * count if 0 <= count and len(text) * count <= FOLDED_CHARS else None
    if isinstance(node.op, ast.Add) and type(left) is type(right) and not isinstance(left, int):
        return left + right if len(left) + len(right) <= FOLDED_CHARS else None
    return None


# pytest's escapes in an id: control characters as `\xNN` (tab, newline, return as `\t`, `\n`, `\r`)
_NON_PRINTABLE = {i: f"\\x{i:02x}" for i in range(128) if i not in range(32, 127)} | {9: "\\t", 10: "\\n", 13: "\\r"}


def _ascii_escaped(value: str | bytes) -> str:
    """The id pytest makes of a string or bytes value (`_pytest.compat.ascii_escaped`): charset
    normalizer's `b"GIF89a\x01..."` is `GIF89a\x01...`, not a value pytest numbers."""
    text = (
        value.decode("ascii", "backslashreplace")
        if isinstance(value, bytes)
        else value.encode("unicode_escape").decode("ascii")
    )
    return text.translate(_NON_PRINTABLE)


def _index_in_id(test_id: str, names: list[str], deco: ast.Call) -> int | None:
    """The index of the case's element by its id: the id the test gives it (`pytest.param(...,
    id="big")`, `ids=[...]`), or the index pytest wrote for a value it cannot name (`annot4`: the
    fifth element of `annot`'s list); None when the id says neither."""
    bracket = parameter_id(test_id)
    values = deco.args[1] if len(deco.args) > 1 and isinstance(deco.args[1], (ast.List, ast.Tuple)) else None
    given: list[str | None] = []  # per element, the id the test gives it
    for element in values.elts if values is not None else []:
        own = None
        if isinstance(element, ast.Call) and callee(element).endswith("param"):
            own = next(
                (k.value.value for k in element.keywords if k.arg == "id" and isinstance(k.value, ast.Constant)), None
            )
        given.append(own)
    ids = next((k.value for k in deco.keywords if k.arg == "ids" and isinstance(k.value, (ast.List, ast.Tuple))), None)
    if ids is not None:  # `ids=[...]` names the elements a `pytest.param(id=...)` does not
        named = []
        for n, listed in enumerate(ids.elts):
            own = given[n] if n < len(given) else None
            named.append(own or (listed.value if isinstance(listed, ast.Constant) else None))
        given = named
    if bracket and given.count(bracket) == 1:
        return given.index(bracket)
    for part in bracket.split("-"):
        for name in names:
            found = re.fullmatch(rf"{re.escape(name)}(\d+)", part)
            if found:
                return int(found.group(1))
    return None


def _expanded_case(fn: ast.AST, decorator: ast.Call, module: ast.Module) -> dict[str, ast.expr]:
    """name -> expression of the `@parameterized.expand` case the test runs: its element (a tuple,
    a `param(...)` with keywords too, or one value) bound to the function's arguments in order."""
    values = decorator.args[0]
    if isinstance(values, ast.Name):
        values = _module_value(module, values.id)
    index = fn.sebgen_expand_index
    if not isinstance(values, (ast.List, ast.Tuple)) or not 0 <= index < len(values.elts):
        return {}
    names = [a for a in _arg_names(fn) if a not in ("self", "cls")]
    element = values.elts[index]
    keywords: dict[str, ast.expr] = {}
    if isinstance(element, ast.Call) and callee(element).split(".")[-1] == "param":
        keywords = {k.arg: k.value for k in element.keywords if k.arg and k.arg in names}
        element = ast.Tuple(elts=list(element.args), ctx=ast.Load())
    positional = element.elts if isinstance(element, (ast.Tuple, ast.List)) else [element]
    if len(positional) > len(names):
        return {}
    return {**dict(zip(names, positional)), **keywords}


def _case_values(element: ast.expr, names: list[str], packed: bool = False) -> dict[str, ast.expr]:
    """name -> expression of one parametrize element (a `pytest.param(...)` unwrapped); `packed`:
    the names were given as a tuple or list, so a single name's element is a 1-tuple too."""
    if isinstance(element, ast.Call) and callee(element).endswith("param"):
        element = ast.Tuple(elts=list(element.args), ctx=ast.Load()) if len(names) > 1 or packed else element.args[0]
    if len(names) == 1 and not (packed and isinstance(element, (ast.Tuple, ast.List)) and len(element.elts) == 1):
        return {names[0]: element}
    if isinstance(element, (ast.Tuple, ast.List)) and len(element.elts) == len(names):
        return dict(zip(names, element.elts))
    return {}


def _reported_case(case: dict[str, ast.expr], reported: dict) -> bool:
    """Each value of the case is the reported one: a literal by its repr, a class or function
    by its name (`pathlib.Path` for `<class 'pathlib.Path'>`, `make_class("C", ...)` for `<class
    'tests.C'>`); at least one of them decides."""
    decided = False
    for name, node in case.items():
        text = str(reported.get(name))
        named = re.fullmatch(r"<(?:class|function) '?([\w.]+?)'?(?: at [^>]*)?>", text)
        if named:
            made = node.args[0] if isinstance(node, ast.Call) and node.args else None  # `make_class("C", ...)`
            own = made.value if isinstance(made, ast.Constant) and isinstance(made.value, str) else ""
            if named.group(1).split(".")[-1] not in (unparse(node).split(".")[-1], own):
                return False
            decided = True
            continue
        try:
            if repr(ast.literal_eval(node)) != repr(ast.literal_eval(text)):
                return False
            decided = True
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue  # not a literal on one side: nothing to compare
    return decided


def _same_value(node: ast.expr, reported) -> bool:
    """The expression is the reported value (its repr), or either is not a literal (nothing
    to compare: the decorator's element is taken as it is)."""
    if reported is None:
        return True
    try:
        return repr(ast.literal_eval(node)) == repr(ast.literal_eval(str(reported)))  # 0.0 == False: not the same
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return True


def _module_value(module: ast.Module, name: str) -> ast.expr | None:
    for node in module.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            return node.value
    return None


class _Rewrite(ast.NodeTransformer):
    """Substitute names by expressions and `self.attr` by `attr` (attributes set in setUp), or
    by the name `names` gives it (`arrow_` where the module imports `arrow`)."""

    def __init__(self, values: dict[str, ast.expr], self_attrs: set[str], names: dict[str, str] | None = None):
        self.values, self.self_attrs, self.names = values, self_attrs, names or {}
        self.renamed: set[str] = set()

    def visit_Name(self, node: ast.Name):
        if isinstance(node.ctx, ast.Load) and node.id in self.values:
            return copy.deepcopy(self.values[node.id])
        return node

    def visit_Attribute(self, node: ast.Attribute):
        if isinstance(node.value, ast.Name) and node.value.id == "self" and node.attr in self.self_attrs:
            self.renamed.add(node.attr)
            return ast.copy_location(ast.Name(id=self.names.get(node.attr, node.attr), ctx=node.ctx), node)
        return self.generic_visit(node)

    def visit_Call(self, node: ast.Call):
        """`hasattr(self, '_good_values')` for an attribute the class has (now a plain name) is
        `True`: the snippet has no `self` to ask (traitlets' shared test base)."""
        args = node.args
        if (
            isinstance(node.func, ast.Name)
            and node.func.id == "hasattr"
            and len(args) == 2
            and isinstance(args[0], ast.Name)
            and args[0].id == "self"
            and isinstance(args[1], ast.Constant)
            and args[1].value in self.self_attrs
        ):
            self.renamed.add(args[1].value)
            return ast.copy_location(ast.Constant(True), node)
        return self.generic_visit(node)

    def visit_JoinedStr(self, node: ast.JoinedStr):
        """`f"{code};print('OK')"` with the case's string in place of `code` is that string
        joined in (`"import x;print('OK')"`), not an f-string of a literal."""
        node = self.generic_visit(node)
        parts: list[ast.expr] = []
        for value in node.values:
            plain = (
                isinstance(value, ast.FormattedValue)
                and value.conversion == -1
                and value.format_spec is None
                and isinstance(value.value, ast.Constant)
                and isinstance(value.value.value, str)
            )
            text = value.value.value if plain else value.value if isinstance(value, ast.Constant) else None
            if isinstance(text, str) and parts and isinstance(parts[-1], ast.Constant):
                parts[-1] = ast.Constant(parts[-1].value + text)
            else:
                parts.append(ast.Constant(text) if isinstance(text, str) else value)
        if all(isinstance(p, ast.Constant) for p in parts):
            return ast.copy_location(ast.Constant("".join(p.value for p in parts)), node)
        node.values = parts
        return node

    def visit_BoolOp(self, node: ast.BoolOp):
        """`hasattr(self, 'a') and hasattr(self, 'b') and None in bad`, each `hasattr` now `True`,
        reads `None in bad`: a `True` in an `and` says nothing."""
        node = self.generic_visit(node)
        if not isinstance(node.op, ast.And):
            return node
        kept = [v for v in node.values if not (isinstance(v, ast.Constant) and v.value is True)]
        if len(kept) == len(node.values):
            return node
        if not kept:
            return ast.copy_location(ast.Constant(True), node)
        return kept[0] if len(kept) == 1 else ast.copy_location(ast.BoolOp(op=ast.And(), values=kept), node)

    def _scope(self, node):
        """A function's own parameters and locals hide the test's names inside it (fastjsonschema's
        `asserter` helper takes `value` and `expected`, as the test's parametrize arguments are named).
        A method the test defines binds its own `self` (parsimonious' `class Smoo(Quantifier)` sets
        `self.smoo` in its `__init__`): its attributes are not the test case's.
        (A helper method of the test's class comes here without its `self`: `_members_reached`.)"""
        a = node.args
        params = {x.arg for x in [*a.posonlyargs, *a.args, *a.kwonlyargs, *(x for x in (a.vararg, a.kwarg) if x)]}
        body = node.body if isinstance(node.body, list) else [node.body]
        hidden = (params | local_names(body)) & self.values.keys()
        if not hidden and "self" not in params:
            return self.generic_visit(node)
        values, self_attrs = self.values, self.self_attrs
        self.values = {k: v for k, v in values.items() if k not in hidden}
        self.self_attrs = set() if "self" in params else self_attrs
        try:
            return self.generic_visit(node)
        finally:
            self.values, self.self_attrs = values, self_attrs

    visit_FunctionDef = visit_AsyncFunctionDef = visit_Lambda = _scope

    def visit_AnnAssign(self, node: ast.AnnAssign):
        """`self.files: list[File] = []` as `files = []`: an annotated name could not be the
        global a helper method's stores become, and `(files): list[File]` reads oddly."""
        was_attribute = isinstance(node.target, ast.Attribute)
        node = self.generic_visit(node)
        if was_attribute and isinstance(node.target, ast.Name) and node.value is not None:
            return ast.copy_location(ast.Assign(targets=[node.target], value=node.value), node)
        return node


def _almost_equal(first: ast.expr, second: ast.expr, rest: list[ast.expr], keywords: list[ast.keyword]) -> ast.expr:
    """unittest's `assertAlmostEqual(first, second[, places], delta=...)` test, written plainly:
    `abs(first - second) <= delta`, else `round(abs(first - second), places) == 0` (7 places)."""
    given = {k.arg: k.value for k in keywords if k.arg}
    difference = ast.Call(ast.Name("abs", ast.Load()), [ast.BinOp(first, ast.Sub(), second)], [])
    if "delta" in given:
        return ast.Compare(left=difference, ops=[ast.LtE()], comparators=[given["delta"]])
    places = rest[0] if rest else given.get("places", ast.Constant(7))
    rounded = ast.Call(ast.Name("round", ast.Load()), [difference, places], [])
    return ast.Compare(left=rounded, ops=[ast.Eq()], comparators=[ast.Constant(0)])


def _plain_assert(stmt: ast.stmt) -> ast.stmt:
    """A unittest `self.assertX(...)` (statement or context manager) as plain Python."""
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
        call = stmt.value
        name = callee(call).split(".")[-1]
        args = call.args
        test: ast.expr | None = None
        if name in UNITTEST_OPS and len(args) >= 2:
            test = ast.Compare(left=args[0], ops=[AST_OPS[UNITTEST_OPS[name]]()], comparators=[args[1]])
        elif name in ("assertTrue", "assert_") and args:
            test = args[0]
        elif name == "assertFalse" and args:
            test = ast.UnaryOp(op=ast.Not(), operand=args[0])
        elif name in ("assertIsNone", "assertIsNotNone") and args:
            op = ast.Is() if name == "assertIsNone" else ast.IsNot()
            test = ast.Compare(left=args[0], ops=[op], comparators=[ast.Constant(None)])
        elif name in ("assertIsInstance", "assertNotIsInstance") and len(args) >= 2:
            test = ast.Call(func=ast.Name("isinstance", ast.Load()), args=args[:2], keywords=[])
            if name == "assertNotIsInstance":
                test = ast.UnaryOp(op=ast.Not(), operand=test)
        elif name in ("assertAlmostEqual", "assertNotAlmostEqual") and len(args) >= 2:
            test = _almost_equal(args[0], args[1], args[2:], call.keywords)
            if name == "assertNotAlmostEqual":
                test = ast.UnaryOp(op=ast.Not(), operand=test)
        elif name == "fail":  # unittest's explicit failure: what it raises, written plainly
            return ast.copy_location(ast.Raise(exc=ast.Call(ast.Name("AssertionError", ast.Load()), args, [])), stmt)
        elif name in ("assertRaises", "assertWarns") and len(args) >= 2:
            body = ast.Expr(ast.Call(func=args[1], args=args[2:], keywords=call.keywords))
            # at the call's place: `ast.unparse` reads a `with`'s line for its type comment
            return ast.copy_location(_raises_block(args[0], [body], _PYTEST_CONTEXTS[name]), stmt)
        if test is not None:
            plain = ast.Assert(test=test, msg=None)
            plain.sebgen_unittest = name  # how its failure message reads (`unittest_compare`)
            return plain
    if isinstance(stmt, (ast.With, ast.AsyncWith)):
        items = []
        for item in stmt.items:
            expr = item.context_expr
            if _is_assert_raises(item):
                keywords = []
                if callee(expr).endswith("Regex") and len(expr.args) >= 2:
                    keywords = [ast.keyword(arg="match", value=expr.args[1])]
                expr = ast.Call(
                    func=ast.Attribute(
                        ast.Name("pytest", ast.Load()), _PYTEST_CONTEXTS[callee(expr).split(".")[-1]], ast.Load()
                    ),
                    args=expr.args[:1],
                    keywords=keywords,
                )
            items.append(ast.withitem(context_expr=expr, optional_vars=item.optional_vars))
        stmt.items = items
    return stmt


class _CaughtPlainly(ast.NodeTransformer):
    """`with self.assertRaises(E) as cm:` as `with pytest.raises(E) as cm:`, and the test's later
    `cm.exception` as `cm.value`: the exception a check reads, caught without a TestCase."""

    def __init__(self, test: ast.AST | None = None) -> None:
        # the names the test's own `assertRaises` blocks bind: its rest reads them after the block
        self.caught: set[str] = {
            item.optional_vars.id
            for node in (ast.walk(test) if test is not None else ())
            if isinstance(node, ast.With)
            for item in node.items
            if _is_assert_raises(item) and isinstance(item.optional_vars, ast.Name)
        }

    def visit_With(self, node: ast.With) -> ast.With:
        unittest = [i for i in node.items if _is_assert_raises(i)]
        if unittest:
            self.caught |= {i.optional_vars.id for i in unittest if isinstance(i.optional_vars, ast.Name)}
            node = _plain_assert(node)
        return self.generic_visit(node)

    def visit_Attribute(self, node: ast.Attribute) -> ast.expr:
        if node.attr == "exception" and isinstance(node.value, ast.Name) and node.value.id in self.caught:
            return ast.copy_location(ast.Attribute(value=node.value, attr="value", ctx=node.ctx), node)
        return self.generic_visit(node)


class _PlainNestedChecks(ast.NodeTransformer):
    """A TestCase's `self.assertX(...)` in a function the test defines (a generator it feeds the
    code under test) as a plain assert: the snippet has no `self`."""

    def visit_FunctionDef(self, node: ast.AST) -> ast.AST:
        return _PlainSelfChecks().visit(node)

    visit_AsyncFunctionDef = visit_FunctionDef


class _PlainSelfChecks(ast.NodeTransformer):
    def visit_Expr(self, node: ast.Expr) -> ast.stmt:
        return _plain_assert(node) if _is_self_check(node) else node


def _is_self_check(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Call)
        and (callee(node.value).startswith("self.assert") or callee(node.value) == "self.fail")
    )


def _nested_self_check(stmt: ast.stmt) -> bool:
    """`stmt` defines a function (at any depth) that calls a TestCase's `self.assertX(...)`."""
    return any(isinstance(d, FUNCTIONS) and any(_is_self_check(n) for n in ast.walk(d)) for d in ast.walk(stmt))


# a TestCase's context check -> pytest's own, which needs no TestCase
_PYTEST_CONTEXTS = {
    "assertRaises": "raises",
    "assertRaisesRegex": "raises",
    "assertWarns": "warns",
    "assertWarnsRegex": "warns",
}


def _is_assert_raises(item: ast.withitem) -> bool:
    """`with self.assertRaises(E)` (or a warning's `assertWarns`, either with `Regex`)."""
    expr = item.context_expr
    return isinstance(expr, ast.Call) and callee(expr).split(".")[-1] in _PYTEST_CONTEXTS


def _caught(code: list[ast.stmt], check: ast.stmt) -> tuple[str, str]:
    """(the exception, the one-line call that raised it) when `check` reads what a
    `with pytest.raises(E) as e:` block of `code` caught (`str(e.value) == 'msg'`), or what the
    `except E as e:` it sits in caught (`e.args[0] == 'msg'`): the check is on that call's
    exception. ("", "") otherwise; the call is "" when the block is no one line."""
    read = {n.id for n in ast.walk(check) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    for stmt in reversed(code):
        if not isinstance(stmt, (ast.With, ast.AsyncWith)):
            continue
        for item in stmt.items:
            caught = item.optional_vars
            if not (is_check_context(item) and isinstance(caught, ast.Name) and caught.id in read):
                continue
            args = item.context_expr.args
            if not args or "warn" in callee(item.context_expr).lower():
                return "", ""
            return unparse(args[0]), _raising_line(stmt.body)
    for stmt in reversed(code):  # `try: parse(x)` / `except E as e: assert e.args[0] == 'msg'`
        for node in ast.walk(stmt):
            for handler in node.handlers if isinstance(node, ast.Try) else []:
                inside = any(n is check for s in handler.body for n in ast.walk(s))
                if inside and handler.type is not None and handler.name in read:
                    return unparse(handler.type), _raising_line(node.body)
    return "", ""


def _raising_line(body: list[ast.stmt]) -> str:
    """The call of the last statement of a block that raises: `parse(x)` or `result = parse(x)`,
    "" when it is no one line."""
    inner = body[-1] if body else None
    text = unparse(inner.value) if isinstance(inner, (ast.Expr, ast.Assign)) else ""
    return text if "\n" not in text else ""


def _raises_block(exc: ast.expr, body: list[ast.stmt], context: str = "raises") -> ast.With:
    func = ast.Attribute(ast.Name("pytest", ast.Load()), context, ast.Load())
    return ast.With(items=[ast.withitem(ast.Call(func=func, args=[exc], keywords=[]), None)], body=body)


def _fixture_defs(sources: list[ast.AST], parametrized: bool = False) -> dict[str, ast.AST]:
    """name -> fixture function, nearest source first (the test's class, the test module, then
    conftests). A source's own definitions only: another test class's fixture is not the test's.
    Those with `params=` (the case's value is their `request.param`) only when `parametrized`."""
    out: dict[str, ast.AST] = {}
    for tree in sources:
        for node in _own_definitions(tree):
            for deco in node.decorator_list:
                if _names_a_fixture(deco) and _fixture_is_parametrized(deco) == parametrized:
                    out.setdefault(_fixture_name(node, deco), node)
    return out


def _class_and_bases(cls: ast.ClassDef | None, module: ast.Module, depth: int = 0) -> list[ast.ClassDef]:
    """The test's class, then the classes of its module it derives from, nearest first."""
    if cls is None or depth > 4:
        return []
    classes = {n.name: n for n in module.body if isinstance(n, ast.ClassDef)}
    bases = [classes[b.id] for b in cls.bases if isinstance(b, ast.Name) and b.id in classes and b.id != cls.name]
    return [cls, *[c for base in bases for c in _class_and_bases(base, module, depth + 1)]]


def _own_definitions(tree: ast.AST) -> list[ast.AST]:
    """The functions `tree` (a module or a class) defines itself, also under `if`/`try`/`with`;
    not those of the classes and functions inside it."""
    found, todo = [], list(getattr(tree, "body", []))
    while todo:
        node = todo.pop(0)
        if isinstance(node, FUNCTIONS):
            found.append(node)
        elif isinstance(node, (ast.If, ast.Try, ast.With)):
            todo += [*node.body, *getattr(node, "orelse", []), *getattr(node, "finalbody", [])]
            todo += [s for h in getattr(node, "handlers", []) for s in h.body]
    return found


def _fixture_name(fn: ast.AST, deco: ast.expr) -> str:
    """The name tests ask for a fixture by: `@pytest.fixture(name="event_dict")` on `def _event_dict()`
    registers `event_dict`; else the function's own name."""
    for given in deco.keywords if isinstance(deco, ast.Call) else []:
        if given.arg == "name" and isinstance(given.value, ast.Constant) and isinstance(given.value.value, str):
            return given.value.value
    return fn.name


def _names_a_fixture(deco: ast.expr) -> bool:
    """`@pytest.fixture`, `@fixture(scope=...)`, `@pytest.yield_fixture`: a decorator that only
    registers a fixture."""
    target = deco.func if isinstance(deco, ast.Call) else deco
    return unparse(target).endswith("fixture")


def _fixture_is_parametrized(deco: ast.expr) -> bool:
    return isinstance(deco, ast.Call) and any(k.arg == "params" for k in deco.keywords)


def _parametrized_names(fn: ast.AST, cls: ast.ClassDef | None, indirect: bool = False) -> set[str]:
    """The argument names the test's (or its class's) `@pytest.mark.parametrize` decorators give
    values; with `indirect`, those it hands to their fixtures instead (`indirect=True`, or
    `indirect=['parser']`), which the fixture reads as `request.param`."""
    names: set[str] = set()
    for deco in [*getattr(fn, "decorator_list", []), *(cls.decorator_list if cls is not None else [])]:
        if isinstance(deco, ast.Call) and callee(deco).endswith("parametrize") and deco.args:
            first = deco.args[0]
            given = set()
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                given = {n.strip() for n in first.value.split(",")}
            elif isinstance(first, (ast.Tuple, ast.List)):
                given = {e.value for e in first.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)}
            handed = next((k.value for k in deco.keywords if k.arg == "indirect"), None)
            if _is_true(handed):
                handed_names = given
            elif isinstance(handed, (ast.List, ast.Tuple)):
                handed_names = {e.value for e in handed.elts if isinstance(e, ast.Constant)} & given
            else:
                handed_names = set()
            names |= handed_names if indirect else given - handed_names
    return names


def _with_request_param(fixture: ast.AST, value: ast.expr) -> ast.AST:
    """The fixture with `request.param` as the case's value (statemachine's `sm_runner`:
    `SMRunner(is_async=request.param == 'async')`)."""

    class Param(ast.NodeTransformer):
        def visit_Attribute(self, node: ast.Attribute):
            if node.attr == "param" and isinstance(node.value, ast.Name) and node.value.id == "request":
                return ast.copy_location(copy.deepcopy(value), node)
            return self.generic_visit(node)

        def visit_Call(self, node: ast.Call):
            if _asks_request_param(node, "getattr"):  # `getattr(request, 'param', None)`: the case's value
                return ast.copy_location(copy.deepcopy(value), node)
            return self.generic_visit(node)

        def generic_visit(self, node):  # what the value decides, folded: `is_async=True`, the branch taken
            node = super().generic_visit(node)
            if isinstance(node, (ast.Compare, ast.BoolOp, ast.UnaryOp)):
                folded = _constant_value(node)
                if folded is not _UNKNOWN:
                    return ast.copy_location(ast.Constant(folded), node)
            return node

    written = Param().visit(copy.deepcopy(fixture))
    written.body = _folded_constants(written.body)
    return ast.fix_missing_locations(written)


def _asks_request_param(node: ast.AST, how: str) -> bool:
    """`getattr(request, 'param'[, default])` (`how` "getattr") or `hasattr(request, 'param')`."""
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == how
        and len(node.args) >= 2
        and isinstance(node.args[0], ast.Name)
        and node.args[0].id == "request"
        and isinstance(node.args[1], ast.Constant)
        and node.args[1].value == "param"
    )


class _NoRequestParam(ast.NodeTransformer):
    """A fixture the test requests with no case of its own: `request` has no `param`, so
    `getattr(request, 'param', d)` is `d` and `hasattr(request, 'param')` is False
    (jsonargparse's `parser` fixture reads an optional parser mode that way)."""

    def visit_Call(self, node: ast.Call):
        if _asks_request_param(node, "getattr") and len(node.args) == 3:
            return ast.copy_location(copy.deepcopy(node.args[2]), node)
        if _asks_request_param(node, "hasattr"):
            return ast.copy_location(ast.Constant(False), node)
        return self.generic_visit(node)


def _inline_fixture(name: str, fixture: ast.AST) -> list[ast.stmt] | None:
    """The fixture's statements with its `return x` / first `yield x` as `name = x`, or None
    for a fixture that needs `request` or ends without a value."""
    args = [a.arg for a in fixture.args.args]
    if "request" in args and "request" in names_read(fixture.body):
        fixture = _NoRequestParam().visit(copy.deepcopy(fixture))
        fixture.body = _folded_constants(fixture.body)
        if "request" in names_read(fixture.body):
            return None
    out: list[ast.stmt] = []
    body = list(fixture.body)
    while body:
        stmt = body.pop(0)
        if _is_docstring(stmt):
            continue
        value = None
        if isinstance(stmt, ast.Return):
            value = stmt.value
        elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, (ast.Yield, ast.YieldFrom)):
            value = stmt.value.value
        if value is not None or isinstance(stmt, ast.Return):
            if not (
                isinstance(value, ast.Name) and value.id == name and name in names_bound(out)
            ):  # no `client = client`
                out.append(
                    ast.Assign(targets=[ast.Name(name, ast.Store())], value=copy.deepcopy(value or ast.Constant(None)))
                )
            for step in out:
                step.sebgen_conftest = getattr(fixture, "sebgen_conftest", False)
            return out
        if isinstance(stmt, ast.With) and _yields_in(stmt.body):
            # `with make() as client: yield client`: the test runs inside the context, entered here
            out += [_entered(item) for item in stmt.items]
            body = list(stmt.body)  # what follows the `with` runs after the test: not set-up
            continue
        if isinstance(stmt, ast.Try) and _yields_in(stmt.body):
            # `os.chdir(tmp); try: yield tmp finally: os.chdir(prev)`: the `finally` is the teardown
            body = list(stmt.body)
            continue
        out.append(copy.deepcopy(stmt))
    return None


def _yields_in(body: list[ast.stmt]) -> bool:
    """A `yield` statement among `body`'s own statements or those of its nested `with`s."""
    for stmt in body:
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, (ast.Yield, ast.YieldFrom)):
            return True
        if isinstance(stmt, (ast.With, ast.Try)) and _yields_in(stmt.body):
            return True
    return False


def _entered(item: ast.withitem) -> ast.stmt:
    """`target = expr.__enter__()` for `with expr as target:` (the context is left after the test)."""
    enter = ast.Call(ast.Attribute(copy.deepcopy(item.context_expr), "__enter__", ast.Load()), [], [])
    if item.optional_vars is None:
        return ast.Expr(enter)
    return ast.Assign(targets=[copy.deepcopy(item.optional_vars)], value=enter)


def _plain_import_of(node: ast.stmt | None, name: str) -> bool:
    """`node` is `import name` or `import name.sub`, without an alias."""
    return isinstance(node, ast.Import) and all(a.asname is None and a.name.split(".")[0] == name for a in node.names)


def _with_guarded_imports(body: list[ast.stmt]) -> list[ast.stmt]:
    """`body` with the imports of each top-level `if` right after it, those of its body before
    those of its `else` (`if has_crypto: from jwt.algorithms import RSAAlgorithm`), and its
    assignments of names only one branch binds (distro's `if IS_LINUX: RELATIVE_UNIXCONFDIR =
    distro._UNIXCONFDIR[1:]`): a test that ran and read such a name had it bound, and the
    snippet's own run checks the branch. An `if TYPE_CHECKING:` body never runs: its imports
    bind nothing a test can read."""
    out: list[ast.stmt] = []
    for node in body:
        out.append(node)
        if isinstance(node, ast.If):
            ran = node.orelse if _is_type_checking(node.test) else [*node.body, *node.orelse]
            out += [s for s in ran if isinstance(s, (ast.Import, ast.ImportFrom))]
            both = names_bound(node.body) & names_bound(node.orelse)  # which one ran is not known
            assigned = [s for s in ran if isinstance(s, (ast.Assign, ast.AnnAssign))]
            out += [s for s in assigned if not names_bound([s]) & both]
    return out


def _is_type_checking(test: ast.expr) -> bool:
    return _callee_text(test).split(".")[-1] == "TYPE_CHECKING"


def _module_definitions(module: ast.Module, test_path: str) -> dict[str, ast.stmt]:
    """Top-level name -> the statement of the test module that defines it (one alias per import)."""
    out: dict[str, ast.stmt] = {}
    for node in _with_guarded_imports(module.body):
        if isinstance(node, ast.Import):
            for alias in node.names:
                key = (alias.asname or alias.name).split(".")[0]
                known = out.get(key)
                if alias.asname is None and "." in alias.name and _plain_import_of(known, key):
                    # `import a.b` beside `import a`: `a.b.f()` needs the submodule loaded, and it binds `a` too
                    out[key] = ast.Import(names=[*(a for a in known.names if a.name != key), alias])
                else:
                    out.setdefault(key, ast.Import(names=[alias]))
        elif isinstance(node, ast.ImportFrom):
            base = _importable(_absolute_module(node, test_path))
            for alias in node.names:
                if alias.name != "*":
                    out.setdefault(alias.asname or alias.name, ast.ImportFrom(module=base, names=[alias], level=0))
        elif isinstance(node, (*FUNCTIONS, ast.ClassDef)):
            out.setdefault(node.name, node)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                for n in ast.walk(t):
                    if isinstance(n, ast.Name):
                        out.setdefault(n.id, node)
        elif isinstance(node, ast.Try):  # `try: import numpy as np` / `except ImportError: ...`: the whole guard
            for name in names_bound(node.body):
                out.setdefault(name, node)
    return out


def explain_failure(
    source: str,
    test_id: str,
    report: dict,
    conftests: list[str] = (),
    repo_modules: set[str] = frozenset(),
    test_helpers: dict[str, str] | None = None,
    star_names: dict[str, str] | None = None,
    base_sources: dict[str, str] | None = None,
) -> FailureEvidence:
    """What the statement writer needs from one failing test: pytest's `report` of the failure
    (the runner's words are kept) and what reading the test's `source` derives from it
    (`test_helpers`: dotted module -> source, the modules of the tests' own package it imports;
    `star_names`: name -> the project module the file's star imports take it from)."""
    if isinstance(report.get("message"), str):
        report = {**report, "message": without_test_folder(report["message"])}
    record = FailureEvidence.from_dict(report, test_id=test_id)
    module = ast.parse(source)
    cls, fn = _find_test(module, test_id)
    if fn is None and cls is None:
        module, fn = _described_test(module, test_id)
    if fn is None and test_helpers:
        module, source, fn = _inherited_test(module, cls, test_id, test_helpers, source)
    if fn is None and cls is None:
        fn = _defined_anywhere(module, function_of_test(test_id))
    if fn is None:
        return record
    _CalledRaises().visit(fn)
    # setUp of the test's own file, before its bases in other modules join it: its lines are the report's
    set_up = _set_up_method(cls, module) if cls is not None else None
    if cls is not None and base_sources:
        module = _with_imported_bases(module, cls, file_of_test(test_id), base_sources)
    lines = source.splitlines()
    line = report.get("line") if isinstance(report.get("line"), int) else None
    if line is None or not (fn.lineno <= line <= (fn.end_lineno or fn.lineno)):
        line = None
    record.source = _source_lines(lines, fn.lineno, line or fn.end_lineno or fn.lineno)
    helpers = _asserting_helpers(module) | _own_asserting_helpers(fn)
    failing, body = _failing_statement(fn, line, helpers, report)
    loading = _failed_import(module, report)
    if failing is None and loading is not None:
        failing, body = _whole_test(fn, helpers)
    if failing is None and _failed_in_set_up(report, fn):
        failing, body = _first_use_of_fixtures(fn, helpers, _requested(fn))
    elif failing is None and line is None and _raised_in(set_up, report):
        failing, body = _first_use_of_fixtures(fn, helpers, {"self"})
    decorator = _failed_decorator(fn, report, line) if failing is None else None
    if decorator is not None:
        failing, body = _decorated_and_called(fn, decorator)
        # the runner's words name the test; the snippet's function is `decorated`
        test_name = re.compile(rf"\b(?:\w+\.)?{re.escape(fn.name)}\b")
        report = {**report, "message": test_name.sub("decorated", str(report.get("message") or ""))}
        record.message = report["message"]
    if failing is None:
        return record
    record.check = _check_text(lines, loading or failing)
    record.passed_checks = _passed_checks(fn, failing.lineno, helpers)[-6:]
    repro = _reproduction(
        module, cls, fn, failing, body, helpers, report, test_id, conftests, test_helpers, star_names or {}
    )
    snippet = repro.text()
    record.reproduction = snippet
    primed = _with_earlier_calls(fn, failing, body, helpers)
    if primed is not body:  # derived on a copy of what it reads: the derivation changes the trees it is given
        parts = copy.deepcopy((module, cls, fn, failing, primed, helpers, report))
        record.primed = _reproduction(*parts, test_id, conftests, test_helpers, star_names or {}).text()
    record.long = len(snippet.splitlines()) > SNIPPET_LINES  # too long to quote: the writer describes it
    if isinstance(report.get("params"), dict):
        record.params = {k: repro.built.get(k) or no_address(v) for k, v in report["params"].items()}
    elif loading is not None or hasattr(fn, "sebgen_expand_index"):
        # never ran (no runner's values), or a `parameterized.expand` case (no pytest parameters):
        # the case's own values, as its test writes them
        values = _parametrize_values(fn, cls, module, report)
        record.params = {k: unparse(v) for k, v in values.items()} or None
    try:
        record.unbound = sorted(names_unbound([ast.parse(snippet)]))
    except SyntaxError:
        record.unbound = []
    record = _with_case_values(_with_check_outcome(record, repro, fn, failing, helpers, report, repo_modules))
    return _with_branches_taken(_with_test_constants(record, test_helpers or {}))


def _with_test_constants(record: FailureEvidence, test_helpers: dict[str, str]) -> FailureEvidence:
    """The snippet, the rest and the wanted value with each literal constant a test helper module
    defines (bigtree's `Constants.ERROR_RENAME`, in `tests/test_constants.py`) written as its
    value, and a literal's `format(...)` of literals as the text it gives: the withheld test
    patch adds such constants, so the solver's tree lacks them, and the value is the requirement
    (the import goes once nothing reads it)."""
    try:
        snippet = ast.parse(record.reproduction or "")
    except SyntaxError:
        return record
    values: dict[str, ast.expr] = {}
    for node in snippet.body:
        source = test_helpers.get(node.module or "") if isinstance(node, ast.ImportFrom) and not node.level else None
        if source is None:
            continue
        helper = ast.parse(source)
        defined = {d.name: d for d in helper.body if isinstance(d, ast.ClassDef)}
        for alias in node.names:
            name = alias.asname or alias.name
            if (value := _module_value(helper, alias.name)) is not None and _is_literal(value):
                values[name] = value
            for stmt in defined[alias.name].body if alias.name in defined else []:
                if isinstance(stmt, ast.Assign | ast.AnnAssign) and stmt.value is not None and _is_literal(stmt.value):
                    for target in stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]:
                        if isinstance(target, ast.Name):
                            values[f"{name}.{target.id}"] = stmt.value
    if not values:
        return record

    def written(code: str | None, mode: str = "exec") -> str | None:
        try:
            tree = ast.parse(code or "", mode=mode)
        except SyntaxError:
            return code
        new = _ConstantsWritten(values).visit(copy.deepcopy(tree))
        return code if ast.dump(new) == ast.dump(tree) else unparse(ast.fix_missing_locations(new))

    reproduction = written(record.reproduction)
    rest = written(record.rest) if record.rest else record.rest
    if reproduction != record.reproduction:
        tree = ast.parse(reproduction)
        try:  # the rest goes on from the snippet: what it reads stays imported
            read = {n.id for part in (tree, ast.parse(rest or "")) for n in ast.walk(part) if isinstance(n, ast.Name)}
            tree.body = [n for n in tree.body if not _imports_only_unread(n, test_helpers, read)]
        except SyntaxError:
            pass
        reproduction = unparse(tree)
    expected = written(record.expected, "eval") if record.expected else record.expected
    return replace(record, reproduction=reproduction, rest=rest, expected=expected)


def _imports_only_unread(node: ast.stmt, test_helpers: dict[str, str], read: set[str]) -> bool:
    return (
        isinstance(node, ast.ImportFrom)
        and node.module in test_helpers
        and not any((a.asname or a.name) in read for a in node.names)
    )


class _ConstantsWritten(ast.NodeTransformer):
    """Test helper constants (`Constants.X`, `X`) as their literal values; `'...{n}'.format(n=2)`
    of literals as the text it gives."""

    def __init__(self, values: dict[str, ast.expr]):
        self.values = values

    def visit_Attribute(self, node: ast.Attribute) -> ast.expr:
        if isinstance(node.value, ast.Name) and f"{node.value.id}.{node.attr}" in self.values:
            return copy.deepcopy(self.values[f"{node.value.id}.{node.attr}"])
        return self.generic_visit(node)

    def visit_Name(self, node: ast.Name) -> ast.expr:
        if isinstance(node.ctx, ast.Load) and node.id in self.values:
            return copy.deepcopy(self.values[node.id])
        return node

    def visit_Call(self, node: ast.Call) -> ast.expr:
        self.generic_visit(node)
        func = node.func
        if not (
            isinstance(func, ast.Attribute)
            and func.attr == "format"
            and isinstance(func.value, ast.Constant)
            and isinstance(func.value.value, str)
        ):
            return node
        try:
            args = [ast.literal_eval(a) for a in node.args]
            kwargs = {k.arg: ast.literal_eval(k.value) for k in node.keywords if k.arg}
            if len(kwargs) != len(node.keywords):
                return node
            return ast.Constant(func.value.value.format(*args, **kwargs))
        except (ValueError, TypeError, KeyError, IndexError, SyntaxError, AttributeError):
            return node


def _with_case_values(record: FailureEvidence) -> FailureEvidence:
    """The wanted value with the case's own values in place of its parameters: bleach's
    `expected.fragment`, where the snippet binds `expected = ParseResult(...)`, is
    `ParseResult(...).fragment` (a listed case's "it should be `expected.fragment`" named a
    placeholder)."""
    params = record.params or {}
    try:
        wanted = ast.parse(record.expected or "", mode="eval").body
    except SyntaxError:
        return record
    names = {n.id for n in ast.walk(wanted) if isinstance(n, ast.Name)} & set(params)
    values = {}
    for name in names:
        if str(params[name]).endswith("(long)"):
            return record  # cut by the runner: no whole expression
        try:
            values[name] = ast.parse(params[name], mode="eval").body
        except SyntaxError:
            return record  # a runner's repr, no expression
    if not values:
        return record
    record.expected = unparse(_Rewrite(values, set()).visit(wanted))
    return record


def _failed_in_set_up(report: dict, fn: ast.AST) -> bool:
    """A fixture the test requests raised before the test ran (prompt-toolkit's `default_attrs`
    fixture builds `Attrs(..., dim=False)`, a field the buggy state lacks): the snippet writes
    the fixture in, and running it meets the error."""
    return report.get("when") == "setup" and not isinstance(report.get("line"), int) and bool(_requested(fn))


def _requested(fn: ast.AST) -> set[str]:
    """The fixtures a test function asks for by its parameters."""
    return {a.arg for a in getattr(getattr(fn, "args", None), "args", [])} - {"self", "cls"}


def _raised_in(set_up: ast.AST | None, report: dict) -> bool:
    """The test class's setUp raised (pymdown's `self.config['b']`, a key the buggy state's
    defaults lack): the report's line is one of setUp's, not of the test."""
    line = report.get("line")
    return set_up is not None and isinstance(line, int) and set_up.lineno <= line <= (set_up.end_lineno or 0)


def _first_use_of_fixtures(
    fn: ast.AST, helpers: set[str], requested: set[str]
) -> tuple[ast.stmt | None, list[ast.stmt]]:
    """A test whose fixture (or setUp, `requested` {"self"}) raised: its first statement that
    reads one of `requested`, where the snippet (the set-up written in before it) meets the
    error; the checks after it are the rest the test requires."""
    first = next((s for s in fn.body if not _is_docstring(s) and requested & names_read([s])), None)
    if first is None:
        return _whole_test(fn, helpers)
    return first, _trim(fn.body, first.lineno, helpers, [])


def _failed_import(module: ast.Module, report: dict) -> ast.stmt | None:
    """The file's import that failed to load it (the runner's collection error: a name the buggy
    state lacks), when the report is one; None otherwise."""
    if report.get("when") != "collect" or not isinstance(report.get("line"), int):
        return None
    return next(
        (
            s
            for s in module.body
            if isinstance(s, (ast.Import, ast.ImportFrom)) and s.lineno <= report["line"] <= (s.end_lineno or s.lineno)
        ),
        None,
    )


def _failed_decorator(fn: ast.AST, report: dict, line: int | None) -> ast.Call | None:
    """The test's own decorator call at fault, None otherwise: the one that failed to load the
    file (`@freeze_time(..., as_kwarg='x')`: "freeze_time() got an unexpected keyword
    argument"), by the callee the runner's message names; or, when calling the test itself
    failed before any line of it ran ("test_x() missing 1 required positional argument"), its
    one decorator call that is no pytest mark or mock patch (the wrapper it makes called it)."""
    calls = [d for d in getattr(fn, "decorator_list", []) if isinstance(d, ast.Call)]
    message = str(report.get("message") or "")
    if report.get("when") == "collect":
        return next((d for d in calls if f"{callee(d).split('.')[-1]}()" in message), None)
    own = [d for d in calls if not re.match(r"(pytest\.)?mark\.|(mock\.|unittest\.mock\.)?patch\b", callee(d))]
    if report.get("when") == "call" and line is None and f"{fn.name}()" in message and len(own) == 1:
        return own[0]
    return None


def _decorated_and_called(fn: ast.AST, decorator: ast.Call) -> tuple[ast.stmt, list[ast.stmt]]:
    """A test whose decorator call failed: the test's body as a function under that decorator
    alone (no `self`, a plain name), then its call, which the snippet ends with; the call is
    what the decorator must make work."""
    defined = copy.deepcopy(fn)
    defined.name, defined.decorator_list = "decorated", [copy.deepcopy(decorator)]
    defined.body = [s for s in defined.body if not _is_docstring(s)] or [ast.Pass()]
    positional = defined.args.args
    if positional and positional[0].arg in ("self", "cls"):
        defined.args.args = positional[1:]
    after = (fn.end_lineno or fn.lineno) + 1
    call = ast.Expr(ast.Call(ast.Name("decorated", ast.Load()), [], []), lineno=after, col_offset=0)
    call.end_lineno, call.end_col_offset = after, len("decorated()")
    return call, [defined, call]


def _whole_test(fn: ast.AST, helpers: set[str]) -> tuple[ast.stmt | None, list[ast.stmt]]:
    """A test that never ran (its file failed to load): its body up to its first check, which the
    snippet ends with (the checks after it are the rest it requires: none of them passed), else
    up to its last statement; what it runs is what the missing name must make work."""
    statements = [s for s in fn.body if not _is_docstring(s)]
    if not statements:
        return None, []
    first_check = next((s for s in statements if is_check(s, helpers)), statements[-1])
    body = _trim(fn.body, first_check.lineno, helpers, [])
    # every unittest check of it (in a loop too) as a plain assert: the snippet has no `self`
    return first_check, [_PlainSelfChecks().visit(copy.deepcopy(s)) for s in body]


def _inherited_test(
    module: ast.Module, cls: ast.ClassDef | None, test_id: str, test_helpers: dict[str, str], source: str
) -> tuple[ast.Module, str, ast.AST | None]:
    """A test the class inherits from a base in the tests' own modules (`class T(TestCase,
    Mixin)`, the test written once in `Mixin`), or a test class the file imports from one
    (pytest collects it in each file that imports it; `cls` is None): the two modules as one
    (every import made absolute, the test module's definitions first), the base's source (the
    report's line is in it) and its test function; `module`, `source` and None when none has it."""
    name = function_of_test(test_id)
    test_path = file_of_test(test_id)
    classes = node_names(test_id)[:-1]
    bases = {b.id for b in cls.bases if isinstance(b, ast.Name)} if cls is not None else set(classes[-1:])
    for dotted, text in test_helpers.items():
        path = dotted.replace(".", "/")
        # a package the test file is in (`from . import Mixin`) is its `__init__.py`
        path = f"{path}/__init__.py" if test_path.startswith(f"{path}/") else f"{path}.py"
        helper = _safe_parse(text)
        for node in helper.body:
            if isinstance(node, ast.ClassDef) and node.name in bases:
                fn = next((n for n in node.body if isinstance(n, FUNCTIONS) and n.name == name), None)
                if fn is not None:
                    body = [*_absolute_imports(module.body, test_path), *_absolute_imports(helper.body, path)]
                    return ast.Module(body=body, type_ignores=[]), text, fn
    return module, source, None


def _with_imported_bases(module: ast.Module, cls: ast.ClassDef, test_path: str, sources: dict[str, str]) -> ast.Module:
    """The test module with the module of each class the test class derives from that the file
    imports appended (`sources`: dotted module -> source; its imports made absolute), so that
    the base's helper methods, and the names they read, are found like the module's own: the
    test module's own definitions come first and win."""
    body, seen = list(module.body), set()
    # each class with the classes and imports of the module that defines it: a base's own base
    # is read by that module's names (`xpath_test_class.XPathTestCase` in test_xpath1_parser)
    todo = [(cls, module, test_path)]
    while todo:
        current, home, home_path = todo.pop()
        classes = {n.name: n for n in home.body if isinstance(n, ast.ClassDef)}
        imported = _imported_modules(home, home_path)
        for base in current.bases:
            local = base.id if isinstance(base, ast.Name) else ""
            if local in classes and classes[local] is not current:
                if (home_path, local) not in seen:
                    seen.add((home_path, local))
                    todo.append((classes[local], home, home_path))
                continue
            dotted, name = _imported_base(base, imported)
            if dotted not in sources or name in seen:
                continue
            seen.add(name)
            helper = _safe_parse(sources[dotted])
            found = next((n for n in helper.body if isinstance(n, ast.ClassDef) and n.name == name), None)
            if found is not None:
                helper_path = dotted.replace(".", "/") + ".py"
                body += _absolute_imports(helper.body, helper_path)
                todo.append((found, helper, helper_path))
    return ast.Module(body=body, type_ignores=[]) if len(body) > len(module.body) else module


def _absolute_imports(body: list[ast.stmt], path: str) -> list[ast.stmt]:
    """`body` with each relative `from ... import` of the file at `path` made absolute."""
    out = []
    for stmt in body:
        if isinstance(stmt, ast.ImportFrom) and stmt.level:
            stmt = ast.copy_location(
                ast.ImportFrom(module=_absolute_module(stmt, path), names=stmt.names, level=0), stmt
            )
        out.append(stmt)
    return out


def _check_text(lines: list[str], failing: ast.stmt) -> str:
    """The failing check's source on one line: a simple statement whole (an assert spread over
    lines, cut after its first line, read `assert a == f(`), a block its first line."""
    end = failing.lineno if hasattr(failing, "body") else failing.end_lineno or failing.lineno
    text = ""
    for line in (ln.strip() for ln in lines[failing.lineno - 1 : end]):
        joint = "" if not text or text.endswith(("(", "[", "{")) or line.startswith((")", "]", "}")) else " "
        text += joint + line
    return " ".join(text.split())


def _own_asserting_helpers(fn: ast.AST) -> set[str]:
    """The functions a test defines that assert (`def ck(val, inv): assert ...`)."""
    return {
        n.name
        for n in ast.walk(fn)
        if isinstance(n, FUNCTIONS) and n is not fn and any(isinstance(x, ast.Assert) for x in ast.walk(n))
    }


def _failing_statement(
    fn: ast.AST, line: int | None, helpers: set[str], report: dict
) -> tuple[ast.stmt | None, list[ast.stmt]]:
    """The statement of the test that failed and the test's body trimmed to it (`_trim`). When
    an exception escaped, or none came, inside a `with pytest.raises(...)` block, that block is
    the failing check (it expected the exception)."""
    chain: list[ast.stmt] = []
    body = _trim(fn.body, line, helpers, chain) if line else []
    failing = chain[-1] if chain else None
    runner = _runs_it(fn, failing) if isinstance(failing, FUNCTIONS) else None
    if runner is not None:  # the line is in a function the test defines: the statement that runs it failed
        chain = []
        body = _trim(fn.body, runner.lineno, helpers, chain)
        failing = chain[-1] if chain else None
    message = str(report.get("message") or "")
    etype = str(report.get("type") or "")
    escaped = etype not in ("", "AssertionError", "Failed") and not etype.endswith("AssertionError")
    if failing is not None and (message.startswith(("DID NOT RAISE", "DID NOT WARN")) or escaped):
        raising = [
            s for s in chain if isinstance(s, (ast.With, ast.AsyncWith)) and any(is_check_context(i) for i in s.items)
        ]
        if raising:
            failing = raising[-1]
            body = _trim(fn.body, failing.lineno, helpers, [])
        elif failing in fn.body and is_check(failing, helpers):
            body = _with_earlier_lookups(fn, failing, body, helpers)
    return failing, body


def _with_earlier_lookups(fn: ast.AST, failing: ast.stmt, body: list[ast.stmt], helpers: set[str]) -> list[ast.stmt]:
    """A check that raised (not one that compared wrongly) may meet the state the earlier checks
    left: their lookups on an object it reads (`cache[3]` runs a `__missing__` that stores,
    `stack.pop()`) stay, as plain statements, in their places."""
    # the objects the test assigns (a class, or a module, keeps no state a check left)
    made = {n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    objects = {
        n.value.id
        for n in ast.walk(failing)
        if isinstance(n, (ast.Subscript, ast.Attribute)) and isinstance(n.value, ast.Name) and n.value.id in made
    }
    lookups: list[ast.stmt] = []
    for stmt in fn.body:
        if stmt.lineno >= failing.lineno:
            break
        if not is_check(stmt, helpers):
            continue
        for node in ast.walk(stmt):
            looked = isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load)
            called = isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            target = node.value if looked else node.func.value if called else None
            if isinstance(target, ast.Name) and target.id in objects:
                lookups.append(ast.copy_location(ast.Expr(copy.deepcopy(node)), stmt))
    return sorted([*body, *lookups], key=lambda s: s.lineno) if lookups else body


_STATELESS_CALLS = {"len", "str", "repr", "type", "isinstance", "list", "tuple", "set", "dict", "sorted", "bool", "int"}


def _with_earlier_calls(fn: ast.AST, failing: ast.stmt, body: list[ast.stmt], helpers: set[str]) -> list[ast.stmt]:
    """`body` with the calls of the test's earlier checks on a function the failing statement
    calls, as plain statements right before it (pyserde 73140dbd: `is_opt_dataclass(Optional[Foo])`
    filled a cache, and `is_opt_dataclass(Union[None, Foo])` after it read the wrong entry); `body`
    itself when there is none. The snippet without them is the first way shown: most earlier
    checks leave no state."""
    if failing not in fn.body:
        return body
    called = {unparse(n.func) for n in ast.walk(failing) if isinstance(n, ast.Call)} - _STATELESS_CALLS
    calls: list[ast.stmt] = []
    kept = {getattr(s, "lineno", None) for s in body}  # a call `_trim` kept already (a repeated check) is there
    for stmt in fn.body:
        if stmt.lineno >= failing.lineno:
            break
        if stmt.lineno in kept or not is_check(stmt, helpers) or (first_run := _checked_call(stmt)) is None:
            continue
        if any(isinstance(n, ast.Call) and unparse(n.func) in called for n in ast.walk(first_run)):
            calls.append(first_run)
    if not calls or not body:
        return body
    return [*copy.deepcopy(body[:-1]), *calls, copy.deepcopy(body[-1])]  # right before the failing check


def _runs_it(fn: ast.AST, nested: ast.AST) -> ast.stmt | None:
    """The first statement of the test after its function `nested` that reads that function's
    name (calls it, or hands it to the project: `@define(field_transformer=hook)`), the
    innermost one; None when none does."""
    after = nested.end_lineno or nested.lineno
    uses = [
        stmt
        for stmt in own_nodes(fn)
        if isinstance(stmt, ast.stmt)
        and stmt.lineno > after
        and any(
            isinstance(n, ast.Name) and n.id == nested.name and isinstance(n.ctx, ast.Load)
            for n in _statement_own_parts(stmt)
        )
    ]
    return min(uses, key=lambda s: s.lineno, default=None)


def _statement_own_parts(stmt: ast.stmt):
    """The nodes of `stmt` itself, not of the statements nested in its body (a class's
    decorators and bases are its own; its methods are not)."""
    for field, value in ast.iter_fields(stmt):
        if field in ("body", "orelse", "finalbody", "handlers"):
            continue
        for node in value if isinstance(value, list) else [value]:
            if isinstance(node, ast.AST):
                yield from ast.walk(node)


@dataclass
class _Setup:
    """What runs before the test's own statements: setUp's steps and the inlined fixtures
    (`prelude`), parametrized values bound by name (`assign`) or substituted where they are
    used once (`substitute`), the imports these need, and the attributes setUp sets on self."""

    prelude: list[ast.stmt] = dataclasses.field(default_factory=list)
    assign: list[ast.stmt] = dataclasses.field(default_factory=list)
    substitute: dict[str, ast.expr] = dataclasses.field(default_factory=dict)
    imports: list[str] = dataclasses.field(default_factory=list)
    self_attrs: set[str] = dataclasses.field(default_factory=set)
    attr_names: dict[str, str] = dataclasses.field(default_factory=dict)  # `self.arrow` -> `arrow_`
    built: dict[str, str] = dataclasses.field(default_factory=dict)  # a fixture's case -> the value built from it


def _test_setup(
    module: ast.Module, cls: ast.ClassDef | None, fn: ast.AST, body: list[ast.stmt], report: dict, conftests
) -> _Setup:
    setup = _Setup()
    setup.prelude += _patched_mappings(fn, cls, setup.imports) + _frozen_clock(fn, cls, setup.imports)
    setup.prelude += _patched_objects(fn, cls)
    values = _parametrize_values(fn, cls, module, report)
    args = _arg_names(fn)
    elsewhere = [_safe_parse(c) for c in conftests]
    for name, text in (report.get("params") or {}).items():
        # a function the runner names bare (`<function from_json at …>`: pyserde's parametrize list
        # comes from its tests' helper module): as the name the test module or a helper imports it by
        bare = re.fullmatch(r"<function (\w+) at [^>]*>", str(text))
        line = _import_of(bare.group(1), [module, *elsewhere]) if bare and name not in values else ""
        if line:
            values[name] = ast.Name(bare.group(1), ast.Load())
            setup.imports.append(line)
    for node in (n for tree in elsewhere for n in ast.walk(tree) if isinstance(n, FUNCTIONS)):
        node.sebgen_conftest = True  # its names are its file's: `_head`
    sources = [*_class_and_bases(cls, module), module, *elsewhere]
    fixtures = _fixture_defs(sources)
    # a fixture with `params=` whose case the test runs: built from its `request.param`, not that value
    # and one the test's parametrize hands its case (`indirect=`)
    handed = _parametrized_names(fn, cls, indirect=True)
    candidates = {**_fixture_defs(sources, parametrized=True), **{n: f for n, f in fixtures.items() if n in handed}}
    built = {
        name: steps
        for name, fixture in candidates.items()
        if name in values
        and name in args
        and name not in _parametrized_names(fn, cls)
        and (steps := _inline_fixture(name, _with_request_param(fixture, values[name])))
    }
    if cls is not None and "self" in args:
        set_up = _set_up_method(cls, module)
        set_up_steps = _class_set_up_steps(cls, module) + _set_up_steps_for(set_up, fn.name)
        set_up_steps += _autouse_method_steps(cls, module, fixtures, setup.imports, values)
        # `self.arrow` as the name `arrow` would hide the module's `import arrow` from the test,
        # `self.factory = factory.ArrowFactory()` the conftest's `factory` from itself
        written = _class_fixtures(cls, module, fixtures, {})
        # and `self.md` (setUp's Markdown) as `md` would be the test's own `md = '=== ""...'` (pymdown)
        taken = (
            _top_level_names(module)
            | names_read(set_up_steps)
            | names_read([s for body, _ in written for s in body])
            | local_names(fn.body)
        )
        attrs = {a for _, w in written for a in w.stored} | _self_stores(set_up_steps)
        setup.attr_names = {a: f"{a}_" for a in sorted(attrs & taken)}
        # a class-scoped fixture runs before setUp: what it sets on the class, setUp reads
        steps = _class_fixture_steps(cls, module, fixtures, setup.attr_names)
        for step in [*steps, *set_up_steps]:
            step.sebgen_set_up = True  # `_without_unread_set_up`
        setup.self_attrs |= attrs
        setup.prelude += [*steps, *set_up_steps]
    # pytest passes no fixture for an argument with a default: the test runs with the default
    values = {**_argument_defaults(fn), **values}
    for name in args:
        if name in ("self", "request") or (name == "cls" and name not in values):
            continue  # a parametrized argument named `cls` is a value like any other
        if name in built:
            setup.prelude += built[name]
            if isinstance(built[name][-1], ast.Assign):  # `sm_runner = SMRunner(is_async=True)`, not 'async'
                setup.built[name] = unparse(built[name][-1].value)
            continue
        if name in values:
            uses = sum(isinstance(n, ast.Name) and n.id == name for s in body for n in ast.walk(s))
            if uses <= 1 and len(unparse(values[name])) <= 60:
                setup.substitute[name] = values[name]
            else:
                setup.assign.append(
                    ast.Assign(targets=[ast.Name(name, ast.Store())], value=copy.deepcopy(values[name]))
                )
            continue
        if name in _BUILTIN_FIXTURES:
            extra, stmt_text = _BUILTIN_FIXTURES[name]
            setup.imports += extra
            setup.prelude += ast.parse(stmt_text).body
            continue
        fixture = fixtures.get(name)
        inlined = _inline_fixture_tree(name, fixture, fixtures, setup.imports, values) if fixture is not None else None
        if inlined:
            setup.prelude += inlined
    moved = _autouse_working_directory([module, *elsewhere])
    if moved and moved in args:
        # the test runs in that temporary folder, the one it gets when it asks for the fixture; a
        # test that never asks for it uses no file there (no snippet of every test moves)
        setup.imports.append("import os")
        setup.prelude += ast.parse(f"os.chdir({moved})").body
    return setup


def _import_of(name: str, trees: list[ast.AST]) -> str:
    """The line importing `name` from a module by its own name (`from serde.json import from_json`)
    in the first of `trees` that has one, else ""."""
    for tree in trees:
        for node in getattr(tree, "body", []):
            if isinstance(node, ast.ImportFrom) and not node.level and node.module:
                if any(a.name == name and a.asname in (None, name) for a in node.names):
                    return f"from {node.module} import {name}"
    return ""


def _autouse_working_directory(sources: list[ast.AST]) -> str:
    """The temporary-folder fixture (`tmpdir`, `tmp_path`) an autouse fixture of the test module
    or a conftest makes every test's working directory (dynaconf's `go_to_tmpdir`: `tmpdir =
    request.getfixturevalue("tmpdir")`, `with tmpdir.as_cwd(): yield`), or "". The test's files
    written there were not found from the snippet's folder."""
    for tree in sources:
        for node in _own_definitions(tree):
            if not _is_autouse(node):
                continue
            temporary = {a for a in _arg_names(node) if a in ("tmpdir", "tmp_path")}
            temporary |= {  # `tmpdir = request.getfixturevalue("tmpdir")`
                step.value.args[0].value
                for step in ast.walk(node)
                if isinstance(step, ast.Assign)
                and isinstance(step.value, ast.Call)
                and callee(step.value).endswith("getfixturevalue")
                and [unparse(a) for a in step.value.args] in (["'tmpdir'"], ["'tmp_path'"])
                and [unparse(t) for t in step.targets] == [step.value.args[0].value]
            }
            for call in (n for n in ast.walk(node) if isinstance(n, ast.Call)):
                name = callee(call)
                moved_to = call.args[0] if name.endswith(".chdir") and call.args else None
                if name.split(".")[-1] == "as_cwd" and isinstance(call.func, ast.Attribute):
                    moved_to = call.func.value
                if isinstance(moved_to, ast.Name) and moved_to.id in temporary:
                    return moved_to.id
    return ""


def _autouse_method_steps(
    cls: ast.ClassDef, module: ast.Module, fixtures: dict, imports: list[str], values: dict
) -> list[ast.stmt]:
    """The test class's autouse fixture methods that set attributes on `self` (jaraco/path's
    `testing_structure(self, tmp_path)` makes `self.root` and its files), up to their `yield`,
    after the fixtures they take: pytest runs them before every test of the class, and without
    them `self` was unbound in each snippet."""
    steps: list[ast.stmt] = []
    for klass in reversed(_class_and_bases(cls, module)):  # a base's first, as pytest orders them
        for method in _own_definitions(klass):
            if not _is_autouse(method) or not _self_stores(method.body):
                continue
            ending = copy.deepcopy(method)
            # what runs before the test: up to a bare `yield`; one that ends without a value still sets up
            before = list(itertools.takewhile(lambda s: not _is_bare_yield(s), ending.body))
            ending.body = [*before, ast.Return(None)]
            inlined = _inline_fixture_tree(method.name, ending, fixtures, imports, values)
            if inlined is None:
                continue
            last = inlined[-1]
            # the fixture's own value (`name = None` of its bare `yield`) is nothing a test reads
            if isinstance(last, ast.Assign) and unparse(last.targets[0]) == method.name:
                inlined = inlined[:-1]
            steps += inlined
    return steps


def _is_bare_yield(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Yield) and stmt.value.value is None


def _is_autouse(fn: ast.AST) -> bool:
    """A fixture pytest runs for every test in its scope (`@pytest.fixture(autouse=True)`)."""
    return any(
        _names_a_fixture(d)
        and isinstance(d, ast.Call)
        and any(k.arg == "autouse" and _is_true(k.value) for k in d.keywords)
        for d in getattr(fn, "decorator_list", [])
    )


def _is_true(node: ast.expr | None) -> bool:
    return isinstance(node, ast.Constant) and node.value is True


def _top_level_names(module: ast.Module) -> set[str]:
    """The names the module's own top level binds: its imports (guarded ones too), defs, classes, constants."""
    kinds = (ast.Import, ast.ImportFrom, ast.Assign, ast.AnnAssign)
    tops = [s for s in _with_guarded_imports(module.body) if isinstance(s, kinds)]
    return names_bound(tops) | {s.name for s in module.body if isinstance(s, (*FUNCTIONS, ast.ClassDef))}


def _class_fixture_steps(
    cls: ast.ClassDef, module: ast.Module, fixtures: dict, attr_names: dict[str, str]
) -> list[ast.stmt]:
    """The fixtures a test class names in `@pytest.mark.usefixtures(...)` that set attributes on
    it (arrow: `request.cls.locale = get_locale_by_class_name(request.cls.__name__[4:])`), as
    lines of the snippet: the class's name written in, each attribute a name (`self.locale` reads
    it; `attr_names` renames one), what the name decides folded (`name = 'SwedishLocale'`, the
    branch it takes). Without them `self` was unbound in every locale test, and no statement
    showed an example."""
    return [s for body, _ in _class_fixtures(cls, module, fixtures, attr_names) for s in _folded_constants(body)]


def _class_fixtures(
    cls: ast.ClassDef, module: ast.Module, fixtures: dict, attr_names: dict[str, str]
) -> list[tuple[list[ast.stmt], _ClassWrittenIn]]:
    """Each such fixture's set-up, written in, with what wrote it (the attributes it stored)."""
    names = [
        arg.value
        for klass in _class_and_bases(cls, module)
        for deco in klass.decorator_list
        if isinstance(deco, ast.Call) and callee(deco).endswith("usefixtures")
        for arg in deco.args
        if isinstance(arg, ast.Constant) and isinstance(arg.value, str)
    ]
    out = []
    for name in dict.fromkeys(names):
        fixture = fixtures.get(name)
        if fixture is None or _arg_names(fixture) != ["request"]:
            continue
        written = _ClassWrittenIn(cls.name, attr_names)
        body = [written.visit(copy.deepcopy(s)) for s in _before_yield(fixture.body) if not _is_docstring(s)]
        if written.stored and "request" not in names_read(body):  # else it reads the request for more than its class
            out.append((body, written))
    return out


def _before_yield(body: list[ast.stmt]) -> list[ast.stmt]:
    """A fixture's statements up to its first `yield` or `return` (its set-up)."""
    out = []
    for stmt in body:
        if isinstance(stmt, ast.Return) or (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Yield)):
            break
        out.append(stmt)
    return out


class _ClassWrittenIn(ast.NodeTransformer):
    """`request.cls.__name__` as the class's name, `request.cls.attr` as the name `attr` (or
    the one `attr_names` gives it)."""

    def __init__(self, class_name: str, attr_names: dict[str, str]):
        self.class_name, self.attr_names, self.stored = class_name, attr_names, set()

    def visit_Attribute(self, node: ast.Attribute):
        if _is_request_cls(node.value):
            if node.attr == "__name__":
                return ast.copy_location(ast.Constant(self.class_name), node)
            if isinstance(node.ctx, ast.Store):
                self.stored.add(node.attr)
            return ast.copy_location(ast.Name(self.attr_names.get(node.attr, node.attr), node.ctx), node)
        return self.generic_visit(node)


def _is_request_cls(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Attribute)
        and node.attr == "cls"
        and isinstance(node.value, ast.Name)
        and node.value.id == "request"
    )


_UNKNOWN = object()
# a string's own methods a constant expression may call: none grows its value without bound
_STR_METHODS = frozenset(
    "split rsplit partition rpartition lower upper strip lstrip rstrip replace title capitalize "
    "removeprefix removesuffix startswith endswith".split()
)
_FOLDABLE = (
    ast.Expression, ast.Constant, ast.Subscript, ast.Slice, ast.Compare, ast.BoolOp, ast.UnaryOp, ast.BinOp,
    ast.Load, ast.Add, ast.Sub, ast.Not, ast.USub, ast.And, ast.Or, ast.cmpop,
)  # fmt: skip


def _constant_value(expr: ast.expr):
    """The value of an expression of constants only (no name, call, or growth by `*`), else _UNKNOWN."""
    tree = ast.Expression(body=copy.deepcopy(expr))
    # `'test_debian10_os_release'.split('_')[1]`: a string method called with constants
    methods = {
        id(n.func)
        for n in ast.walk(tree)
        if isinstance(n, ast.Call)
        and isinstance(n.func, ast.Attribute)
        and n.func.attr in _STR_METHODS
        and isinstance(n.func.value, (ast.Constant, ast.Call, ast.Subscript))
        and not n.keywords
    }
    calls = {id(n) for n in ast.walk(tree) if isinstance(n, ast.Call) and id(n.func) in methods}
    if not all(isinstance(n, _FOLDABLE) or id(n) in methods | calls for n in ast.walk(tree)):
        return _UNKNOWN
    try:
        value = eval(compile(ast.fix_missing_locations(tree), "<fold>", "eval"), {"__builtins__": {}})  # noqa: S307
    except Exception:  # noqa: BLE001 - a constant expression that raises is not folded
        return _UNKNOWN
    return value if isinstance(value, (str, bytes, int, float, bool, type(None))) else _UNKNOWN


class _KnownWrittenIn(ast.NodeTransformer):
    def __init__(self, known: dict):
        self.known = known

    def visit_Name(self, node: ast.Name):
        if isinstance(node.ctx, ast.Load) and node.id in self.known:
            return ast.copy_location(ast.Constant(self.known[node.id]), node)
        return node


class _TakenBranches(ast.NodeTransformer):
    """`a if False else b` -> `b`: a conditional expression on constants (or on names `known` to
    be bound to constants) is the branch it takes (pydoclint's `expected1 if skipCheckingRaises
    else expected0`, whose case binds `skipCheckingRaises = False`)."""

    def __init__(self, known: dict | None = None):
        self.known, self.taken = known if known is not None else {}, False

    def visit_IfExp(self, node: ast.IfExp):
        node = self.generic_visit(node)
        taken = _constant_value(_KnownWrittenIn(self.known).visit(copy.deepcopy(node.test)))
        if taken is _UNKNOWN:
            return node
        self.taken = True
        return node.body if taken else node.orelse


def _with_branches_taken(record: FailureEvidence) -> FailureEvidence:
    """The snippet and the rest with each conditional expression on the case's constants written
    as the branch it takes: a reader sees the value the check wants, not the test's plumbing."""
    known: dict = {}

    def taken(code: str | None) -> str | None:
        try:
            tree = ast.parse(code or "")
        except SyntaxError:
            return code
        folder = _TakenBranches(known)
        for i, stmt in enumerate(tree.body):
            tree.body[i] = folder.visit(stmt)
            value = _constant_value(stmt.value) if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 else _UNKNOWN
            if value is not _UNKNOWN and isinstance(stmt.targets[0], ast.Name):
                known[stmt.targets[0].id] = value
            else:
                for bound in names_bound([stmt]):
                    known.pop(bound, None)
        return unparse(ast.fix_missing_locations(tree)) if folder.taken else code

    reproduction = taken(record.reproduction) if record.reproduction else record.reproduction
    rest = taken(record.rest) if record.rest else record.rest
    return replace(record, reproduction=reproduction, rest=rest)


def _folded_constants(stmts: list[ast.stmt], known: dict | None = None) -> list[ast.stmt]:
    """`stmts` with the names bound to constant expressions written in where they are read and
    an `if` (or a conditional expression) on constants replaced by the branch it takes."""
    known = {} if known is None else known
    out: list[ast.stmt] = []
    for stmt in stmts:
        stmt = _TakenBranches().visit(_KnownWrittenIn(known).visit(copy.deepcopy(stmt)))
        if isinstance(stmt, ast.If) and (taken := _constant_value(stmt.test)) is not _UNKNOWN:
            out += _folded_constants(stmt.body if taken else stmt.orelse, known)
            continue
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            value = _constant_value(stmt.value)
            if value is not _UNKNOWN:
                known[stmt.targets[0].id] = value
                out.append(ast.copy_location(ast.Assign(targets=stmt.targets, value=ast.Constant(value)), stmt))
                continue
        for bound in names_bound([stmt]):
            known.pop(bound, None)
        out.append(stmt)
    return out


def _patched_mappings(fn: ast.AST, cls: ast.ClassDef | None, imports: list[str]) -> list[ast.stmt]:
    """`@mock.patch.dict(os.environ, KEY='v')` on the test or its class, as the lines that make
    the change first (`os.environ.update(KEY='v')`): the test runs with the mapping changed, and
    a snippet without it fails another way on the fixed code too."""
    steps: list[ast.stmt] = []
    decorators = [*(cls.decorator_list if cls is not None else []), *getattr(fn, "decorator_list", [])]
    for deco in decorators:
        if not (isinstance(deco, ast.Call) and callee(deco).endswith("patch.dict") and deco.args):
            continue
        target = deco.args[0]
        if isinstance(target, ast.Constant) and isinstance(target.value, str):  # 'os.environ': a dotted path
            try:
                target = ast.parse(target.value, mode="eval").body
            except SyntaxError:
                continue
            root = target
            while isinstance(root, ast.Attribute):
                root = root.value
            if not isinstance(root, ast.Name) or target is root:
                continue
            imports.append(f"import {unparse(target.value)}")
        clear = next((k.value for k in deco.keywords if k.arg == "clear"), None)
        if isinstance(clear, ast.Constant) and clear.value:
            steps.append(ast.Expr(ast.Call(ast.Attribute(copy.deepcopy(target), "clear", ast.Load()), [], [])))
        values = [k for k in deco.keywords if k.arg not in (None, "clear")]
        args = [copy.deepcopy(a) for a in deco.args[1:2]]
        if args or values:
            update = ast.Call(ast.Attribute(copy.deepcopy(target), "update", ast.Load()), args, values)
            steps.append(ast.Expr(update))
    return [ast.fix_missing_locations(s) for s in steps]


class _UnnamedMessages(ast.NodeTransformer):
    """Asserts without a message that names the test function."""

    def __init__(self, test_name: str):
        self.test_name = test_name

    def visit_Assert(self, node: ast.Assert):
        if node.msg is not None and self.test_name in unparse(node.msg):
            node = copy.deepcopy(node)
            node.msg = None
        return node


def _is_test_case(cls: ast.ClassDef | None, module: ast.Module) -> bool:
    """`cls` derives from unittest's TestCase, by name, itself or through the module's classes."""
    return any(_base_name(b) == "TestCase" for c in _class_and_bases(cls, module) for b in c.bases)


class _FreeSelf(ast.NodeTransformer):
    """`self` as `case`, outside the functions and classes that bind their own."""

    def visit_Name(self, node: ast.Name):
        return ast.copy_location(ast.Name("case", node.ctx), node) if node.id == "self" else node

    def visit_FunctionDef(self, node):
        return node

    visit_AsyncFunctionDef = visit_Lambda = visit_ClassDef = visit_FunctionDef


class _ThisFile(ast.NodeTransformer):
    """`inspect.getfile(inspect.currentframe())` (configupdater's way to find its data files) as
    `__file__`: in a snippet the frame is the snippet's, not the test module's."""

    def visit_Call(self, node: ast.Call):
        if callee(node) == "inspect.getfile" and len(node.args) == 1 and isinstance(node.args[0], ast.Call):
            if callee(node.args[0]) == "inspect.currentframe" and not node.args[0].args:
                return ast.copy_location(ast.Name("__file__", ast.Load()), node)
        return self.generic_visit(node)


def _patched_objects(fn: ast.AST, cls: ast.ClassDef | None) -> list[ast.stmt]:
    """`@patch('pkg.urlopen')` / `@patch.object(Obj, 'attr')` on the test (then on its class) as
    the lines that start each patch first, the mock each one passes bound to the test's parameter
    it fills (`mock_urlopen = patch('pkg.urlopen').start()`): the decorator nearest the test fills
    the first parameter after `self`; a patch given its replacement (`new`) passes none."""
    params = [a for a in _arg_names(fn) if a not in ("self", "cls")]
    decorators = [*reversed(getattr(fn, "decorator_list", [])), *reversed(cls.decorator_list if cls else [])]
    steps: list[ast.stmt] = []
    for deco in decorators:
        if not isinstance(deco, ast.Call) or callee(deco).split(".")[-1] not in ("patch", "object"):
            continue
        if not re.fullmatch(r"(?:(?:unittest\.)?mock\.)?patch(?:\.object)?", callee(deco)):
            continue
        given = len(deco.args) > (2 if callee(deco).endswith("object") else 1) or any(
            k.arg == "new" for k in deco.keywords
        )
        started = ast.Call(ast.Attribute(copy.deepcopy(deco), "start", ast.Load()), [], [])
        if given or not params:
            steps.append(ast.Expr(started))
        else:
            steps.append(ast.Assign(targets=[ast.Name(params.pop(0), ast.Store())], value=started))
    return [ast.fix_missing_locations(s) for s in steps]


_CLOCK_FREEZERS = ("freeze_time", "travel")  # freezegun's (and pytest-freezer's mark), time-machine's


def _frozen_clock(fn: ast.AST, cls: ast.ClassDef | None, imports: list[str]) -> list[ast.stmt]:
    """`@freeze_time('2023-10-15 23:00')` (or `@time_machine.travel(...)`) on the test or its
    class, as the line that stops the clock first (`freeze_time('2023-10-15 23:00').start()`):
    the test's dates are relative to that moment, and a snippet run at today's date fails
    another way on the fixed code too."""
    steps: list[ast.stmt] = []
    decorators = [*(cls.decorator_list if cls is not None else []), *getattr(fn, "decorator_list", [])]
    for deco in decorators:
        if not (isinstance(deco, ast.Call) and callee(deco).split(".")[-1] in _CLOCK_FREEZERS and deco.args):
            continue
        freezer = copy.deepcopy(deco)
        if callee(deco) == "pytest.mark.freeze_time":  # pytest-freezer's mark runs freezegun's
            freezer.func = ast.Name("freeze_time", ast.Load())
            imports.append("from freezegun import freeze_time")
        steps.append(ast.Expr(ast.Call(ast.Attribute(freezer, "start", ast.Load()), [], [])))
    return [ast.fix_missing_locations(s) for s in steps]


class _CalledRaises(ast.NodeTransformer):
    """`pytest.raises(E, f, x)` as the `with pytest.raises(E): f(x)` it stands for (its `match`
    stays with the check, other keywords go to the call): the failure is the call's, stated as
    "`f(x)` does not raise `E`", not as a helper's "DID NOT RAISE" message (networkx's tests)."""

    def visit_Expr(self, node: ast.Expr):
        call = node.value
        if not (
            isinstance(call, ast.Call)
            and callee(call) in ("raises", "warns", "pytest.raises", "pytest.warns")
            and len(call.args) >= 2
            and not any(isinstance(a, ast.Starred) for a in call.args[:2])
        ):
            return node
        check = ast.Call(call.func, [call.args[0]], [k for k in call.keywords if k.arg == "match"])
        called = ast.Call(call.args[1], call.args[2:], [k for k in call.keywords if k.arg != "match"])
        with_ = ast.With(items=[ast.withitem(check)], body=[ast.Expr(called)])
        for new in ast.walk(with_):
            if isinstance(new, (ast.stmt, ast.expr)) and not hasattr(new, "lineno"):
                ast.copy_location(new, node)
        return with_


def _set_up_method(
    cls: ast.ClassDef, module: ast.Module, depth: int = 0, names: tuple[str, ...] = ("setUp", "setup_method")
) -> ast.AST | None:
    """The class's `setUp` / `setup_method` (or another of `names`), else the one it inherits
    from the first of its bases the test module defines that has one (a shared base sets `self.s`
    for every test)."""
    own = next((n for n in cls.body if isinstance(n, FUNCTIONS) and n.name in names), None)
    if own is not None or depth >= 4:
        return own
    classes = {n.name: n for n in module.body if isinstance(n, ast.ClassDef)}
    for base in cls.bases:
        named = _base_name(base)
        if named in classes and named != cls.name:
            found = _set_up_method(classes[named], module, depth + 1, names)
            if found is not None:
                return found
    return None


def _class_set_up_steps(cls: ast.ClassDef, module: ast.Module) -> list[ast.stmt]:
    """The body of the class's `setup_class` / `setUpClass`, its `cls.x` written `self.x`: it runs
    once before the tests, and the tests read what it set as `self.x` (networkx's `self.Gi`)."""
    method = _set_up_method(cls, module, names=("setup_class", "setUpClass"))
    params = _arg_names(method) if method is not None else []
    if not params:
        return []
    steps = [copy.deepcopy(s) for s in method.body if not _is_docstring(s) and not _is_super_call(s)]
    return [_RenamedName(params[0], "self").visit(s) for s in steps]


def _set_up_steps_for(set_up: ast.AST | None, test_name: str) -> list[ast.stmt]:
    """The body of the class's `setUp` / `setup_method` as it runs before the test `test_name`:
    the test's own name written in where it reads it (`setup_method(self, test_method)`'s
    `test_method.__name__`, unittest's `self._testMethodName`), and what that decides folded
    (distro's `dist = test_method.__name__.split('_')[1]` is `dist = 'debian10'`)."""
    if set_up is None:
        return []
    steps = [copy.deepcopy(s) for s in set_up.body if not _is_docstring(s) and not _is_super_call(s)]
    method = _arg_names(set_up)[1:2]  # pytest hands `setup_method` the test function
    writer = _TestNameWrittenIn(test_name, method[0] if method else "")
    steps = [writer.visit(s) for s in steps]
    return _folded_constants(steps) if writer.written else steps


class _TestNameWrittenIn(ast.NodeTransformer):
    def __init__(self, test_name: str, method: str):
        self.test_name, self.method, self.written = test_name, method, False

    def visit_Attribute(self, node: ast.Attribute):
        reads_method = isinstance(node.value, ast.Name) and node.value.id == self.method and node.attr == "__name__"
        reads_self = isinstance(node.value, ast.Name) and node.value.id == "self" and node.attr == "_testMethodName"
        if (reads_method and self.method) or reads_self:
            self.written = True
            return ast.copy_location(ast.Constant(self.test_name), node)
        return self.generic_visit(node)


class _RenamedName(ast.NodeTransformer):
    def __init__(self, old: str, new: str):
        self.old, self.new = old, new

    def visit_Name(self, node: ast.Name):
        return ast.copy_location(ast.Name(self.new, node.ctx), node) if node.id == self.old else node


def _base_name(base: ast.expr) -> str:
    """A base class's own name: `TestCase` of `TestCase` and of `helper.TestCase` (whose module
    `_with_imported_bases` appended to the test module)."""
    if isinstance(base, ast.Name):
        return base.id
    if isinstance(base, ast.Attribute) and isinstance(base.value, ast.Name):
        return base.attr
    return ""


def _argument_defaults(fn: ast.AST) -> dict[str, ast.expr]:
    """Argument name -> its default value (`def test_x(self, key=module.f)`)."""
    a = fn.args
    positional = [*a.posonlyargs, *a.args]
    out = {arg.arg: value for arg, value in zip(positional[len(positional) - len(a.defaults) :], a.defaults)}
    out.update({arg.arg: value for arg, value in zip(a.kwonlyargs, a.kw_defaults) if value is not None})
    return out


def _arg_names(fn: ast.AST) -> list[str]:
    return [a.arg for a in [*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs]]


@dataclass
class _Reproduction:
    """The failing check's reproduction: `imports` and `head` (the test module's definitions it
    uses), then `code` (setup and the test up to the failing check, the check last); `rest` is
    what the test requires after it. `rewrite` turned the test's names into the snippet's."""

    imports: list[str]
    head: list[ast.stmt]
    code: list[ast.stmt]
    rest: list[ast.stmt]
    rewrite: _Rewrite
    definitions: dict[str, ast.stmt]
    built: dict[str, str] = dataclasses.field(default_factory=dict)  # `_Setup.built`
    loop_over: str = ""  # `x in <iterable>` of the loop unrolled to its failing first pass

    def reads_output_after(self) -> bool:
        """The checks after the failing one read what it printed (`capsys.readouterr()`), and
        it is no assert (a redirected assert would hide the comparison the claim reads)."""
        reads = any("readouterr" in unparse(s) for s in self.rest)
        return reads and bool(self.code) and not isinstance(self.code[-1], ast.Assert)

    def text(self) -> str:
        code, capture_imports = _captured_output(self.code, read_after=self.reads_output_after())
        code, log_imports = _captured_logs(code)
        capture_imports += log_imports
        parts = [*dict.fromkeys([*capture_imports, *self.imports])]
        parts.sort(key=lambda p: not p.startswith("from __future__"))  # a future import must come first
        for stmt in self.head:  # comments and docstrings out: shorter, still whole
            text = unparse(_without_docstrings(stmt))
            if text not in parts:  # `import pytest` for a fixture and from the module: once
                parts.append(text)
        body = "\n".join(unparse(s) for s in code)
        return "\n".join(p for p in [*_merged_imports(parts), body] if p.strip())


def _captured_output(
    code: list[ast.stmt], continuing: bool = False, read_after: bool = False
) -> tuple[list[ast.stmt], list[str]]:
    """pytest's `capsys` (or `capfd`) in a snippet, which cannot take the fixture: the lines
    before each `out, err = capsys.readouterr()` (since the previous one) run with stdout and
    stderr redirected to fresh buffers (the fixture captures from the test's start, and each
    read empties it), and that line reads what they wrote. `capfd` reads the descriptors, so a
    child process's output escapes the redirect: the reproduction check drops such a snippet.
    `code` and no imports when the fixture is used any other way. `read_after`: what `code`
    ends with runs redirected too (the checks after the failing one read it); `continuing`:
    `code` goes on from such an end, its first lines writing to the buffers it left."""
    fixture = next((f for f in ("capsys", "capfd") if f in names_read(code)), "")
    if read_after and not fixture:
        return _redirected(code, fresh=True), ["import contextlib", "import io"]
    # a line that reads `.out` or `.err` of a read (`err = capsys.readouterr().err.strip()`, an
    # assert on `capsys.readouterr().out`) reads the buffer itself
    by_stream = {i: _ReadStreams(fixture).visit(copy.deepcopy(s)) for i, s in enumerate(code)}
    by_stream = {i: s for i, s in by_stream.items() if unparse(s) != unparse(code[i])}
    reads = [
        i
        for i, s in enumerate(code)
        if i in by_stream
        or isinstance(s, ast.Assign)
        and len(s.targets) == 1
        and isinstance(s.value, ast.Call)
        and unparse(s.value) == f"{fixture}.readouterr()"
    ]
    others = [s for i, s in enumerate(code) if i not in reads] + list(by_stream.values())
    if not reads or fixture in names_read(others):
        return code, []
    imports = ["import contextlib", "import io"]
    out: list[ast.stmt] = []
    start = 0
    for at in reads:
        if at in by_stream:
            segment = list(code[start:at])
            fresh = not (continuing and start == 0)
            out += [
                *(_redirected(segment, fresh) if segment or fresh else []),
                ast.fix_missing_locations(by_stream[at]),
            ]
            start = at + 1
            continue
        target = code[at].targets[0]
        if isinstance(target, ast.Tuple) and len(target.elts) == 2:
            value = "captured_out.getvalue(), captured_err.getvalue()"
        elif isinstance(target, ast.Name):  # `captured.out`, `captured.err`
            value = "types.SimpleNamespace(out=captured_out.getvalue(), err=captured_err.getvalue())"
            imports += [] if "import types" in imports else ["import types"]
        else:
            return code, []
        fresh = not (continuing and start == 0)
        read = ast.Assign(targets=[target], value=ast.parse(value, mode="eval").body)
        segment = list(code[start:at])
        out += [*(_redirected(segment, fresh) if segment or fresh else []), ast.fix_missing_locations(read)]
        start = at + 1
    if read_after and code[start:]:
        return [*out, *_redirected(list(code[start:]), fresh=True)], imports
    return [*out, *code[start:]], imports


# pytest's `caplog` read as the records a plain handler on the root logger collects
_CAPLOG_READS = {
    "records": "log_records",
    "messages": "[r.getMessage() for r in log_records]",
    "record_tuples": "[(r.name, r.levelno, r.getMessage()) for r in log_records]",
    # the fixture's own line format
    "text": "''.join(f'{r.levelname:<8} {r.name}:{r.filename}:{r.lineno} {r.getMessage()}\\n' for r in log_records)",
}


def _captured_logs(code: list[ast.stmt]) -> tuple[list[ast.stmt], list[str]]:
    """pytest's `caplog` in a snippet, which cannot take the fixture: a handler on the root
    logger collects the records from the snippet's start, `caplog.at_level(...)` /
    `set_level(...)` set the logger's level, and the reads become reads of the records. `code`
    and no imports when the fixture is used any other way."""
    if "caplog" not in names_read(code):
        return code, []
    plain = [_PlainCaplog().visit(copy.deepcopy(s)) for s in code]
    plain = [s for stmt in plain for s in (stmt if isinstance(stmt, list) else [stmt])]
    if "caplog" in names_read(plain):
        return code, []
    handler = ast.parse(
        "log_records = []\nlog_handler = logging.Handler()\nlog_handler.emit = log_records.append\n"
        "logging.getLogger().addHandler(log_handler)"
    ).body
    return [ast.fix_missing_locations(s) for s in [*handler, *plain]], ["import logging"]


class _PlainCaplog(ast.NodeTransformer):
    @staticmethod
    def _leveled(call: ast.Call) -> ast.stmt | None:
        """`caplog.set_level(logging.INFO, logger='pkg')` as the line that sets that level."""
        logger = next(
            (k.value for k in call.keywords if k.arg == "logger"), call.args[1] if len(call.args) > 1 else None
        )
        level = next((k.value for k in call.keywords if k.arg == "level"), call.args[0] if call.args else None)
        if level is None:
            return None
        target = unparse(logger) if logger is not None else ""
        return ast.parse(f"logging.getLogger({target}).setLevel({unparse(level)})").body[0]

    def visit_With(self, node: ast.With):
        item = node.items[0] if len(node.items) == 1 else None
        call = item.context_expr if item is not None else None
        if isinstance(call, ast.Call) and unparse(call.func) == "caplog.at_level" and item.optional_vars is None:
            leveled = self._leveled(call)
            if leveled is not None:
                return [leveled, *(self.visit(s) for s in node.body)]
        return self.generic_visit(node)

    def visit_Expr(self, node: ast.Expr):
        call = node.value
        if isinstance(call, ast.Call) and unparse(call.func) == "caplog.set_level":
            return self._leveled(call) or node
        if isinstance(call, ast.Call) and unparse(call.func) == "caplog.clear" and not call.args:
            return ast.parse("log_records.clear()").body[0]
        return self.generic_visit(node)

    def visit_Attribute(self, node: ast.Attribute):
        if isinstance(node.value, ast.Name) and node.value.id == "caplog" and node.attr in _CAPLOG_READS:
            return ast.copy_location(ast.parse(_CAPLOG_READS[node.attr], mode="eval").body, node)
        return self.generic_visit(node)


class _ReadStreams(ast.NodeTransformer):
    """`capsys.readouterr().out` (or `.err`) as `captured_out.getvalue()`: what the redirect wrote."""

    def __init__(self, fixture: str):
        self.fixture = fixture

    def visit_Attribute(self, node: ast.Attribute):
        read = node.value
        if (
            node.attr in ("out", "err")
            and isinstance(read, ast.Call)
            and not read.args
            and unparse(read.func) == f"{self.fixture}.readouterr"
        ):
            return ast.copy_location(ast.parse(f"captured_{node.attr}.getvalue()", mode="eval").body, node)
        return self.generic_visit(node)


def _redirected(stmts: list[ast.stmt], fresh: bool) -> list[ast.stmt]:
    """`stmts` run with stdout and stderr written to the buffers `captured_out` and
    `captured_err` (new ones when `fresh`)."""
    buffers, redirected = ast.parse(
        "captured_out, captured_err = io.StringIO(), io.StringIO()\n"
        "with contextlib.redirect_stdout(captured_out), contextlib.redirect_stderr(captured_err):\n    pass"
    ).body
    redirected.body = stmts or [ast.Pass()]
    return [ast.fix_missing_locations(s) for s in ([buffers, redirected] if fresh else [redirected])]


_FROM_IMPORT = re.compile(r"from ([\w.]+) import ([^()\n]+)")


def _merged_imports(parts: list[str]) -> list[str]:
    """`parts` with the one-name imports of a module (`from m import A`, `from m import B`, one
    per name the snippet reads) as one statement where the first stood, wrapped when long."""
    names: dict[str, list[str]] = {}
    for part in parts:
        if match := _FROM_IMPORT.fullmatch(part):
            names.setdefault(match[1], []).extend(n.strip() for n in match[2].split(","))
    out = []
    for part in parts:
        match = _FROM_IMPORT.fullmatch(part)
        if match is None:
            out.append(part)
        elif match[1] in names:
            imported = list(dict.fromkeys(names.pop(match[1])))
            line = f"from {match[1]} import {', '.join(imported)}"
            if len(line) > 100:
                wrapped = textwrap.wrap(", ".join(imported) + ",", 92, break_long_words=False)
                line = f"from {match[1]} import (\n" + "".join(f"    {w}\n" for w in wrapped) + ")"
            out.append(line)
    return out


def _reproduction(
    module: ast.Module,
    cls: ast.ClassDef | None,
    fn: ast.AST,
    failing: ast.stmt,
    body: list[ast.stmt],
    helpers: set[str],
    report: dict,
    test_id: str,
    conftests,
    test_helpers: dict[str, str] | None = None,
    star_names: dict[str, str] | None = None,
) -> _Reproduction:
    body = _replace_last(body, failing.lineno, _plain_assert)  # the failing check as plain Python, last
    body = [_PlainNestedChecks().visit(copy.deepcopy(s)) if _nested_self_check(s) else s for s in body]
    if any(isinstance(n, ast.withitem) and _is_assert_raises(n) for s in body for n in ast.walk(s)):
        caught = _CaughtPlainly()  # one for the body: the block's name, then the later checks that read it
        body = [caught.visit(copy.deepcopy(s)) for s in body]
    # a fixture the test module imports from its own package (`from . import v`) is one too
    fixture_sources = [*conftests, *(test_helpers or {}).values()]
    setup = _test_setup(module, cls, fn, body, {**report, "id": test_id}, fixture_sources)
    members = _class_members(cls, module) if cls is not None and "self" in _arg_names(fn) else {}
    # `effective_path = self.effective_path(path)` in a method: the method as the name `effective_path`
    # would be the local it is assigned to (UnboundLocalError), so it gets another name; so does
    # one a parameter hides (pymdown's `check_markdown(self, text, expected, dedent=False)` calls
    # `self.dedent(text)`: as `dedent(text)` it called the bool)
    scopes = [fn, *(m for m in members.values() if isinstance(m, FUNCTIONS))]
    clashing = {m for m in members if any(m in {*local_names(scope.body), *_arg_names(scope)} for scope in scopes)}
    # an attribute a helper sets (`self.date_parser = Mock(wraps=date_parser)`) beside the module's
    # name: as a plain name it would hide the one its own value is made from
    clashing |= _self_stores(scopes) & local_names(module.body)
    attr_names = {**{m: f"{m}_" for m in sorted(clashing)}, **setup.attr_names}
    # a test method another test calls is a helper to a reader: no test name in the snippet
    attr_names |= {m: f"check_{m.removeprefix('test_').removeprefix('test')}" for m in members if m.startswith("test")}
    rewrite = _Rewrite(setup.substitute, setup.self_attrs | set(members) | _self_stores(members.values()), attr_names)
    code = [rewrite.visit(s) for s in [*setup.prelude, *setup.assign, *body]]
    code = [*_members_reached(rewrite, members, setup.self_attrs), *code]
    # a `for` around the failing check: its variables at the failure instead of the loop
    unrolled: list[str] = []
    code = _unroll_loops(code, report.get("locals") or {}, unrolled)
    # the test's `global data` says nothing at a snippet's top level, where its names are globals
    code = [s for s in code if not isinstance(s, ast.Global)]
    raised = str(report.get("type") or "") not in ("", "AssertionError")
    rest = _without_dead_branches(_required_after(fn, failing, rewrite, helpers, raised))
    # the helper methods only the rest reaches (nameparser's `self.m(hn.initials(), ...)` after
    # the constructor that raised): defined too, or the rest cannot be told
    defined = _added_names(code)
    code = [
        *(m for m in _members_reached(rewrite, members, setup.self_attrs) if not _added_names([m]) & defined),
        *code,
    ]
    # a store that only the checks after the failing one read is live (a fixture's value they use)
    live = {id(s) for s in _without_dead_stores([*code, *rest])}
    code = [ast.fix_missing_locations(s) for s in _without_dead_branches([s for s in code if id(s) in live])]
    code = _importable_imports(code, file_of_test(test_id))
    definitions = _definitions(module, file_of_test(test_id), conftests, star_names or {})
    if test_helpers:
        code, rest = _with_test_helpers_written_in(definitions, code, rest, test_helpers)
    code, rest = _check_helpers_inlined(code, rest, definitions)
    code = _without_unread_set_up(_without_unread_hand_offs(code, rest), rest)
    head = _without_dead_branches(_head(definitions, [*code, *rest], _rebound(module)))
    head, code, rest = ([_ThisFile().visit(s) for s in part] for part in (head, code, rest))
    test_path = file_of_test(test_id)
    at = sum(isinstance(s, (ast.Import, ast.ImportFrom)) for s in head)
    readers = {getattr(s, "sebgen_path", test_path) for s in [*head, *code, *rest] if "__file__" in names_read([s])}
    if readers:  # the path of the file whose definitions read it (a conftest's), from the repository's root
        path = readers.pop() if len(readers) == 1 else test_path
        # absolute, as pytest's module has it (`Path(__file__).as_uri()` fails on a relative path)
        given = ast.parse(f"import os\n__file__ = os.path.abspath({path!r})").body
        if any(isinstance(s, ast.Import) and any(a.name == "os" and not a.asname for a in s.names) for s in head):
            given = given[1:]  # the snippet imports `os` already
        head = [*head[:at], *given, *head[at:]]
    dotted = test_path.removesuffix(".py").replace("/", ".")
    imports = setup.imports
    reads_module = any(isinstance(n, ast.Attribute) and n.attr == "__module__" for s in code for n in ast.walk(s))
    # pytest's `+  where ...` lines explain the failing values; the statement never quotes them
    stated = [ln for ln in str(report.get("message") or "").splitlines() if not ln.lstrip().startswith("+")]
    if reads_module or dotted in f"{' '.join(stated)} {report.get('compare') or ''}":
        # the values name the test module (`<generated init tests.test_x.C>`, a pickle stream of
        # `a.__module__`): the snippet's classes are its
        named = ast.parse(f"__name__ = {dotted!r}").body
        if "pickle" in names_read([*head, *code, *rest]):  # pickle imports a class's module by that name
            named += ast.parse("sys.modules[__name__] = sys.modules['__main__']").body
            if "import sys" not in imports:
                imports.append("import sys")
        head = [*head[:at], *named, *head[at:]]
    if "mocker" in names_unbound([*head, *code, *rest]):  # pytest-mock's fixture, which no snippet can take
        plain_head, dropped = _helpers_without_mocker(head)
        plain = [_PlainMocker(dropped).visit(copy.deepcopy(s)) for s in code]
        plain_rest = [_PlainMocker(dropped).visit(copy.deepcopy(s)) for s in rest]
        if "mocker" not in names_unbound([*plain_head, *plain, *plain_rest]):
            head = [ast.fix_missing_locations(s) for s in plain_head]
            code = [ast.fix_missing_locations(s) for s in plain]
            rest = [ast.fix_missing_locations(s) for s in plain_rest]
            if "mock" not in names_bound(head) and "from unittest import mock" not in imports:
                imports.append("from unittest import mock")
    if "self" in names_unbound([*head, *code, *rest]) and _is_test_case(cls, module):
        # the test hands itself to a helper (yamllint's `with RunContext(self) as cm:`, which
        # calls `case.assertRaises`): any TestCase serves, as `case`
        code = [_FreeSelf().visit(copy.deepcopy(s)) for s in code]
        rest = [_FreeSelf().visit(copy.deepcopy(s)) for s in rest]
        code = [*ast.parse("case = unittest.TestCase()").body, *code]
        if "import unittest" not in imports:
            imports.append("import unittest")
    if "pytest" in names_unbound([*head, *code, *rest]) and not any("import pytest" == i for i in imports):
        imports.append("import pytest")
    # top-level awaits only: a coroutine the test defines and runs itself (`asyncio.run(coro())`) has its own
    if _awaits_at_top(code):  # top-level awaits: run them in an event loop
        code = _in_event_loop(code, shared=names_read(rest) & names_bound(code))
    elif _awaits_at_top(rest):  # the checks after the failing one await: they run in a loop of their own
        rest = _in_event_loop(rest)
    if (_awaits_at_top(code) or _awaits_at_top(rest) or "asyncio" in names_unbound([*head, *code, *rest])) and (
        "asyncio" not in names_bound(head) and "import asyncio" not in imports
    ):
        imports.append("import asyncio")
    # an assert's message that names the test (deepdiff's f"test_json_dumps_and_loads test #{10} failed")
    # says nothing a reader can act on, and the test's name is hidden
    unnamed = _UnnamedMessages(fn.name)
    code, rest = [unnamed.visit(s) for s in code], [unnamed.visit(s) for s in rest]
    if _postpones_annotations(module):
        head, code, rest = _without_unbound_annotations(head, code, rest)
        if any(_annotations(s) for s in [*head, *code, *rest]):  # as strings, as the test module has them
            imports.insert(0, "from __future__ import annotations")
    return _Reproduction(imports, head, code, rest, rewrite, definitions, setup.built, unrolled[0] if unrolled else "")


def _postpones_annotations(module: ast.Module) -> bool:
    return any(is_postponing(s) for s in module.body)


def _annotations(stmt: ast.stmt) -> list[ast.expr]:
    """The annotations of the functions in `stmt` and of its annotated assignments."""
    found = []
    for node in ast.walk(stmt):
        if isinstance(node, FUNCTIONS):
            a = node.args
            args = [*a.posonlyargs, *a.args, *a.kwonlyargs, *(x for x in (a.vararg, a.kwarg) if x)]
            found += [x.annotation for x in args if x.annotation is not None]
            found += [node.returns] if node.returns is not None else []
        elif isinstance(node, ast.AnnAssign):
            found.append(node.annotation)
    return found


class _UnboundAnnotationsDropped(ast.NodeTransformer):
    """Annotations that read a name the snippet cannot bind (one the test module imports only
    under `if TYPE_CHECKING:`) left out of functions, and of assignments in them: postponed,
    they never ran, and a reader would look for the name in vain. A class body's keep theirs
    (a dataclass reads them)."""

    def __init__(self, unbound: set[str]):
        self.unbound = unbound

    def _reads_unbound(self, annotation: ast.expr | None) -> bool:
        return annotation is not None and bool(names_read([annotation]) & self.unbound)

    def visit_arg(self, node: ast.arg):
        if self._reads_unbound(node.annotation):
            node.annotation = None
        return node

    def _function(self, node):
        if self._reads_unbound(node.returns):
            node.returns = None
        self.generic_visit(node)
        node.body = [self._plain_assignment(s) for s in node.body]
        return node

    visit_FunctionDef = visit_AsyncFunctionDef = _function

    def _plain_assignment(self, stmt: ast.stmt) -> ast.stmt:
        if isinstance(stmt, ast.AnnAssign) and stmt.value is not None and self._reads_unbound(stmt.annotation):
            return ast.copy_location(ast.Assign(targets=[stmt.target], value=stmt.value), stmt)
        return stmt


def _without_unbound_annotations(*parts: list[ast.stmt]) -> tuple[list[ast.stmt], ...]:
    unbound = names_unbound([s for part in parts for s in part]) & {
        n for part in parts for s in part for a in _annotations(s) for n in names_read([a])
    }
    if not unbound:
        return parts
    dropped = _UnboundAnnotationsDropped(unbound)
    return tuple([ast.fix_missing_locations(dropped.visit(copy.deepcopy(s))) for s in part] for part in parts)


# pytest-mock's `mocker`: its patchers (undone when the test ends) and the names it re-exports from unittest.mock
_MOCKER_PATCHERS = ("mocker.patch", "mocker.patch.object", "mocker.patch.dict", "mocker.patch.multiple")
_MOCKER_NAMES = {"Mock", "MagicMock", "AsyncMock", "PropertyMock", "NonCallableMock", "ANY", "call", "sentinel"}
_MOCKER_NAMES |= {"DEFAULT", "mock_open", "create_autospec"}


class _PlainMocker(ast.NodeTransformer):
    """`mocker.patch(...)` (and `.object`, `.dict`, `.multiple`) as `mock.patch(...).start()`,
    `mocker.Mock` and the like as `mock.Mock`: the patch holds for the rest of the snippet, as
    the fixture's holds for the rest of the test. Any other use (`mocker.spy`) stays, unbound.
    `dropped`: helper name -> the position of the `mocker` parameter it no longer takes; its
    calls leave that argument out."""

    def __init__(self, dropped: dict[str, int] | None = None):
        self.dropped = dropped or {}

    def visit_Call(self, node: ast.Call) -> ast.expr:
        node = self.generic_visit(node)
        if isinstance(node.func, ast.Name) and node.func.id in self.dropped:
            at = self.dropped[node.func.id]
            node.args = [a for i, a in enumerate(node.args) if not (i == at and _names_mocker(a))]
            node.keywords = [k for k in node.keywords if k.arg != "mocker"]
            return node
        path = unparse(node.func)
        if path not in _MOCKER_PATCHERS:
            return node
        node.func = ast.parse("mock" + path[len("mocker") :], mode="eval").body
        return ast.copy_location(ast.Call(func=ast.Attribute(node, "start", ast.Load()), args=[], keywords=[]), node)

    def visit_Attribute(self, node: ast.Attribute) -> ast.expr:
        if isinstance(node.value, ast.Name) and node.value.id == "mocker" and node.attr in _MOCKER_NAMES:
            return ast.copy_location(ast.Attribute(ast.Name("mock", ast.Load()), node.attr, node.ctx), node)
        return self.generic_visit(node)


def _names_mocker(node: ast.expr) -> bool:
    return isinstance(node, ast.Name) and node.id == "mocker"


def _helpers_without_mocker(head: list[ast.stmt]) -> tuple[list[ast.stmt], dict[str, int]]:
    """`head` with each helper that takes pytest-mock's `mocker` (`def _open_raising(path, exc,
    mocker)`) patching through `unittest.mock` instead, its `mocker` parameter gone once nothing
    else reads it; and those helpers' names -> where that parameter was (their calls drop it)."""
    out: list[ast.stmt] = []
    dropped: dict[str, int] = {}
    for stmt in head:
        params = [a.arg for a in stmt.args.args] if isinstance(stmt, FUNCTIONS) else []
        if "mocker" not in params:
            out.append(stmt)
            continue
        plain = _PlainMocker().visit(copy.deepcopy(stmt))
        if "mocker" in names_read(plain.body):
            out.append(stmt)
            continue
        at = params.index("mocker")
        plain.args.args.pop(at)
        if plain.args.defaults and at >= len(params) - len(plain.args.defaults):
            plain.args.defaults.pop(at - (len(params) - len(plain.args.defaults)))
        dropped[stmt.name] = at
        out.append(plain)
    return [_PlainMocker(dropped).visit(s) if dropped else s for s in out], dropped


def _awaits_at_top(code: list[ast.stmt]) -> bool:
    """`code` awaits outside any function it defines (a coroutine the test defines and runs
    itself, `asyncio.run(coro())`, has its own awaits)."""
    top_level = [s for s in code if not isinstance(s, (*FUNCTIONS, ast.ClassDef))]
    return any(isinstance(n, (ast.Await, ast.AsyncFor, ast.AsyncWith)) for s in top_level for n in _own_walk(s))


class _DeadBranches(ast.NodeTransformer):
    """`if False:` / `if 0:` / `if TYPE_CHECKING:` blocks (code that never runs) replaced by
    their `else`, `if True:` by its body: a reader sees only what runs. A unittest
    `with self.subTest(...):` becomes its body too: it only labels a failure, and `self` is no
    name a snippet has; so does pytest-subtests' `with subtests.test(...):` (its fixture is none)."""

    def visit_Expr(self, node: ast.Expr):
        """`self.addCleanup(renderer.__exit__, ...)` (mistletoe's setUp): it runs after the test,
        past the snippet's end, and `self` is no name a snippet has."""
        if isinstance(node.value, ast.Call) and _callee_text(node.value) in ("self.addCleanup", "cls.addClassCleanup"):
            return None
        return self.generic_visit(node)

    def visit_With(self, node: ast.With):
        self.generic_visit(node)
        labels = ("self.subTest", "subtests.test")
        if all(_callee_text(i.context_expr) in labels and i.optional_vars is None for i in node.items):
            return node.body
        return node

    def __init__(self, constants: dict[str, object] | None = None):
        self.constants = constants or {}

    def visit_If(self, node: ast.If):
        self.generic_visit(node)
        test = node.test
        known = _constant_truth(test, self.constants)
        never = (isinstance(test, ast.Constant) and not test.value) or _is_type_checking(test) or known is False
        # a parameter the case filled with a function (deepdiff's `if deserializer:` as `if lambda x: ...:`)
        always = (isinstance(test, ast.Constant) and bool(test.value)) or isinstance(test, ast.Lambda) or known is True
        if never:
            return node.orelse or None
        if always:
            return node.body
        return node


def _constant_truth(test: ast.expr, constants: dict[str, object]) -> bool | None:
    """The truth of a condition over literals and names bound once to one (email-validator's
    `if status == 'ISEMAIL_VALID': ... elif '_TOOLONG' in status: ...` for the case's `status`);
    None when it reads anything else."""

    def value(node: ast.expr):
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name) and node.id in constants:
            return constants[node.id]
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            return not value(node.operand)
        if isinstance(node, ast.BoolOp):
            values = [value(v) for v in node.values]
            return all(values) if isinstance(node.op, ast.And) else any(values)
        if isinstance(node, ast.Compare) and len(node.ops) == 1:
            left, right = value(node.left), value(node.comparators[0])
            compare = {
                ast.Eq: lambda a, b: a == b,
                ast.NotEq: lambda a, b: a != b,
                ast.In: lambda a, b: a in b,
                ast.NotIn: lambda a, b: a not in b,
                ast.Is: lambda a, b: a is b,
                ast.IsNot: lambda a, b: a is not b,
            }.get(type(node.ops[0]))
            if compare is not None:
                return compare(left, right)
        raise ValueError("not a condition over constants")

    if not constants:
        return None
    try:
        return bool(value(test))
    except (ValueError, TypeError):
        return None


def _bound_to_literals(stmts: list[ast.stmt]) -> dict[str, object]:
    """The names the snippet binds once, at its top level, to a plain literal (a case's values
    written in as `status = '...'`), and never binds again."""
    stores: dict[str, int] = {}
    for stmt in stmts:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
                stores[node.id] = stores.get(node.id, 0) + 1
    out: dict[str, object] = {}
    for stmt in stmts:
        if (
            isinstance(stmt, ast.Assign)
            and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Name)
            and stores.get(stmt.targets[0].id) == 1
            and isinstance(stmt.value, ast.Constant)
            and isinstance(stmt.value.value, (str, int, float, bool, type(None)))
        ):
            out[stmt.targets[0].id] = stmt.value.value
    return out


def _without_dead_branches(stmts: list[ast.stmt]) -> list[ast.stmt]:
    out: list[ast.stmt] = []
    constants = _bound_to_literals(stmts)
    for stmt in stmts:
        kept = _DeadBranches(constants).visit(copy.deepcopy(stmt))
        for one in kept if isinstance(kept, list) else [kept] if kept is not None else []:
            for node in ast.walk(one):  # a body the dead branches emptied still has to parse
                if isinstance(getattr(node, "body", None), list) and not node.body:
                    node.body = [ast.Pass()]
            out.append(ast.fix_missing_locations(one))
    return out


def _members_reached(rewrite: _Rewrite, members: dict[str, ast.stmt], self_attrs: set[str]) -> list[ast.stmt]:
    """The class attributes and helper methods the test reaches through `self` (and those they
    reach), as module-level definitions."""
    added: list[ast.stmt] = []
    for _ in range(3):
        todo = sorted(
            n
            for n in rewrite.renamed
            if n in members and n not in self_attrs and rewrite.names.get(n, n) not in _added_names(added)
        )
        if not todo:
            break
        for name in todo:
            member = copy.deepcopy(members[name])
            if name in rewrite.names:  # defined under the name its reads were given
                if isinstance(member, FUNCTIONS):
                    member.name = rewrite.names[name]
                elif isinstance(member, ast.Assign):
                    member.targets = [ast.Name(rewrite.names[name], ast.Store())]
            if isinstance(member, FUNCTIONS):
                if member.args.args and member.args.args[0].arg == "cls":
                    # a classmethod reads the class's attributes through `cls` as a method does through `self`
                    for node in ast.walk(member):
                        if isinstance(node, ast.Name) and node.id == "cls":
                            node.id = "self"
                member.args.args = [a for a in member.args.args if a.arg not in ("self", "cls")]
                member.decorator_list = []
                member = _PlainAsserts().visit(_without_docstrings(member))  # shorter, still whole
                stored = _self_stores([member])
                member = rewrite.visit(member)
                if stored:  # `self.out = ...` in a method is a module name the function sets
                    at = 1 if member.body and _is_docstring(member.body[0]) else 0
                    # under the names the reads were given (`date_parser_` beside the module's `date_parser`)
                    member.body.insert(at, ast.Global(names=sorted({rewrite.names.get(n, n) for n in stored})))
                added.append(member)
            else:
                added.append(rewrite.visit(member))
    return added


def _self_stores(nodes) -> set[str]:
    """The attributes `nodes` set on `self` (`self.out = ...`)."""
    return {
        n.attr
        for node in nodes
        for n in ast.walk(node)
        if isinstance(n, ast.Attribute)
        and isinstance(n.value, ast.Name)
        and n.value.id == "self"
        and isinstance(n.ctx, ast.Store)
    }


def _with_test_helpers_written_in(
    definitions: dict[str, ast.stmt], code: list[ast.stmt], rest: list[ast.stmt], sources: dict[str, str]
) -> tuple[list[ast.stmt], list[ast.stmt]]:
    """`definitions` (changed in place) with each name the test takes from its own package's
    modules (`sources`: dotted module -> source) bound to the helper's definition instead of
    the import, when the helper is small and self-contained (`_helper_definitions`); a module
    of helpers used by attribute (`test_x.make_state(...)`) is written out of `code` and `rest`
    (`make_state(...)`) when every attribute the snippet reads of it can be written in."""
    modules: dict[str, str] = {}  # local name -> the helper module it is
    for name, stmt in list(definitions.items()):
        if not isinstance(stmt, ast.ImportFrom) or not stmt.module:
            continue
        alias = stmt.names[0]
        if f"{stmt.module}.{alias.name}" in sources:
            modules[name] = f"{stmt.module}.{alias.name}"
        elif stmt.module in sources and (alias.asname or alias.name) == alias.name:
            written = _helper_definitions(alias.name, stmt.module, sources, definitions)
            if written:
                definitions[name] = written.pop(name)
                for other, definition in written.items():
                    definitions.setdefault(other, definition)
    stmts = [*code, *rest]
    for local, module in modules.items():
        read = {
            n.attr
            for s in stmts
            for n in ast.walk(s)
            if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == local
        }
        bases = {id(n.value) for s in stmts for n in ast.walk(s) if isinstance(n, ast.Attribute)}
        bare = any(isinstance(n, ast.Name) and n.id == local and id(n) not in bases for s in stmts for n in ast.walk(s))
        written = {a: _helper_definitions(a, module, sources, definitions) for a in sorted(read)}
        if not read or bare or not all(written.values()) or read & names_bound(stmts):
            continue
        taken = {
            a: definitions[a]
            for a in read
            if a in definitions and not (isinstance(definitions[a], ast.ImportFrom) and definitions[a].module == module)
        }
        if any(not _same_binding(stmt, written[a][a]) for a, stmt in taken.items()):
            continue  # the test module binds one of these names to something else
        for attr, found in written.items():
            definitions[attr] = found.pop(attr)
            for other, definition in found.items():
                definitions.setdefault(other, definition)
        flatten = _ModuleAttributes(local)
        code, rest = [flatten.visit(s) for s in code], [flatten.visit(s) for s in rest]
    return code, rest


def _without_unread_hand_offs(code: list[ast.stmt], rest: list[ast.stmt]) -> list[ast.stmt]:
    """`code` without setUp's calls of a test-class helper that only makes objects and hands
    them to others (`out = TemporaryFile(); interp.writer = out`: output sent to a file) when
    nothing else reads what it made, and without that helper once nothing calls it: noise
    repeated in every snippet of the class."""
    helpers = {s.name: s for s in code if isinstance(s, FUNCTIONS) and not s.decorator_list}
    dropped: set[str] = set()
    for name, helper in helpers.items():
        made = {n for s in helper.body if isinstance(s, ast.Global) for n in s.names}
        if not made or not all(_hands_off(s, made) for s in helper.body):
            continue
        others = [s for s in [*code, *rest] if s is not helper]
        calls = [s for s in code if getattr(s, "sebgen_set_up", False) and _bare_call_of(s, name)]
        rest_reads = names_read([s for s in others if not any(s is c for c in calls)])
        if calls and not (made & rest_reads) and name not in rest_reads:
            dropped.add(name)
    return [
        s
        for s in code
        if not (isinstance(s, FUNCTIONS) and s.name in dropped)
        and not (getattr(s, "sebgen_set_up", False) and any(_bare_call_of(s, n) for n in dropped))
    ]


def _hands_off(stmt: ast.stmt, made: set[str]) -> bool:
    """`global x`, `x = ...` for a name of `made`, or `other.attr = x` handing one over."""
    if isinstance(stmt, ast.Global) or _is_docstring(stmt):
        return True
    if not isinstance(stmt, ast.Assign) or len(stmt.targets) != 1:
        return False
    target = stmt.targets[0]
    if isinstance(target, ast.Name):
        return target.id in made
    return isinstance(target, ast.Attribute) and isinstance(stmt.value, ast.Name) and stmt.value.id in made


def _bare_call_of(stmt: ast.stmt, name: str) -> bool:
    return (
        isinstance(stmt, ast.Expr)
        and isinstance(stmt.value, ast.Call)
        and isinstance(stmt.value.func, ast.Name)
        and stmt.value.func.id == name
    )


def _without_unread_set_up(code: list[ast.stmt], rest: list[ast.stmt]) -> list[ast.stmt]:
    """`code` without setUp's `x = ...` (its `self.x`) that nothing after it reads: a base
    class's setUp prepares what some of its tests use, not what this one does."""
    out = []
    for i, stmt in enumerate(code):
        if getattr(stmt, "sebgen_set_up", False) and isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
            target = stmt.targets[0]
            # a helper defined before it reads it when it is called, later
            readers = [*code[i + 1 :], *rest, *(d for d in code[:i] if isinstance(d, (*FUNCTIONS, ast.ClassDef)))]
            if isinstance(target, ast.Name) and not any(target.id in names_read([s]) for s in readers):
                continue
        out.append(stmt)
    return out


def _check_helpers_inlined(
    code: list[ast.stmt], rest: list[ast.stmt], definitions: dict[str, ast.stmt]
) -> tuple[list[ast.stmt], list[ast.stmt]]:
    """`code` with the failing check, and `rest` with each check, written as the check of the
    helper it calls, when that helper's body is one check of its parameters (`def t(expr,
    want): assert s.eval(expr) == want`, its prints and docstring aside): the check with the
    call's arguments in place of the parameters, so the case reads as what is computed and
    what it must be. In a `pytest.raises` block the call becomes the value the helper computes
    (what must raise), and the block is the failing check. A helper no longer called leaves
    the snippet."""
    helpers = {
        d.name: d
        for d in [*definitions.values(), *code]
        if isinstance(d, FUNCTIONS) and not d.decorator_list and _helper_check(d) is not None
    }
    if not helpers:
        return code, rest
    code = [_InlineCheckHelper(helpers, failing_only=True).visit(s) for s in code]
    rest = [_InlineCheckHelper(helpers, failing_only=False).visit(s) for s in rest]
    kept = [
        s
        for s in code
        if not (isinstance(s, FUNCTIONS) and s.name in helpers)
        or any(s.name in names_read([o]) for o in [*code, *rest] if o is not s)
    ]
    return kept, rest


def _helper_check(helper: ast.AST) -> ast.Assert | None:
    """The one check a helper's body makes (an assert, or a unittest `self.assertX(...)`, maybe
    returned), its prints and docstring aside; None for any other body or signature."""
    a = helper.args
    if a.vararg or a.kwarg or a.kwonlyargs or a.posonlyargs:
        return None
    body = [
        s
        for s in helper.body
        if not _is_docstring(s)
        and not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Call) and callee(s.value) == "print")
    ]
    if len(body) != 1:
        return None
    stmt = body[0]
    if isinstance(stmt, ast.Return) and isinstance(stmt.value, ast.Call):
        stmt = ast.Expr(stmt.value)
    # a copy: each call's arguments are written into its own (the helper's body stays as it is)
    check = _plain_assert(copy.deepcopy(stmt)) if isinstance(stmt, ast.Expr) else copy.deepcopy(stmt)
    return check if isinstance(check, ast.Assert) and check.msg is None else None


class _InlineCheckHelper(ast.NodeTransformer):
    def __init__(self, helpers: dict[str, ast.AST], failing_only: bool):
        self.helpers, self.failing_only = helpers, failing_only

    def _check_of(self, stmt: ast.stmt) -> ast.Assert | None:
        """The check `stmt` (a call of a helper) makes, its arguments in place; None when it
        calls no such helper or its arguments do not match the parameters one to one."""
        if not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)):
            return None
        call = stmt.value
        helper = self.helpers.get(call.func.id) if isinstance(call.func, ast.Name) else None
        if (
            helper is None
            or any(isinstance(x, ast.Starred) for x in call.args)
            or any(k.arg is None for k in call.keywords)
        ):
            return None
        params = [p.arg for p in helper.args.args if p.arg not in ("self", "cls")]
        defaults = dict(zip(params[len(params) - len(helper.args.defaults) :], helper.args.defaults))
        given = {**defaults, **dict(zip(params, call.args)), **{k.arg: k.value for k in call.keywords}}
        if len(call.args) > len(params) or set(given) != set(params):
            return None
        check = _helper_check(helper)
        uses = [n.id for n in ast.walk(check) if isinstance(n, ast.Name) and n.id in given]
        if any(uses.count(p) > 1 and not isinstance(given[p], (ast.Name, ast.Constant)) for p in params):
            return None  # an argument computed twice would not be the test's call
        inlined = _Rewrite(given, set()).visit(check)
        inlined.sebgen_unittest = getattr(check, "sebgen_unittest", None)
        return ast.copy_location(inlined, stmt)

    def visit_Expr(self, node: ast.Expr) -> ast.stmt:
        failing = getattr(node, "sebgen_failing", False)
        check = self._check_of(node) if failing or not self.failing_only else None
        if check is None:
            return node
        check.sebgen_failing = failing
        return check

    def visit_With(self, node: ast.With) -> ast.stmt:
        if not any(is_check_context(i) for i in node.items) or not node.body:
            return self.generic_visit(node)
        last = node.body[-1]
        check = self._check_of(last)
        if check is None:
            return self.generic_visit(node)
        test = check.test
        sides = [test.left, *test.comparators] if isinstance(test, ast.Compare) else [test]
        computed = next((side for side in sides if any(isinstance(n, ast.Call) for n in ast.walk(side))), None)
        if computed is None:
            return node
        node.body[-1] = ast.copy_location(ast.Expr(computed), last)
        if getattr(last, "sebgen_failing", False) or getattr(node, "sebgen_failing", False):
            node.sebgen_failing = True  # the helper's own check failed inside: the raise was missing
        return node

    visit_AsyncWith = visit_With


class _ModuleAttributes(ast.NodeTransformer):
    """`mod.f` becomes `f`: the helper module's names are written into the snippet."""

    def __init__(self, local: str):
        self.local = local

    def visit_Attribute(self, node: ast.Attribute):
        if isinstance(node.value, ast.Name) and node.value.id == self.local:
            return ast.copy_location(ast.Name(id=node.attr, ctx=node.ctx), node)
        return self.generic_visit(node)


def _helper_definitions(
    name: str, module: str, sources: dict[str, str], definitions: dict[str, ast.stmt]
) -> dict[str, ast.stmt] | None:
    """Name -> definition of the helper `name` of the tests' module `module` and of what it
    needs from that module (its imports, constants, other helpers), when all of it is at most
    `HELPER_LINES` lines, needs nothing else of the tests' package, leaves no name unbound and
    binds no name the test module binds otherwise; else None (the import stays)."""
    helper_definitions = _module_definitions(_safe_parse(sources[module]), module.replace(".", "/") + ".py")
    target = helper_definitions.get(name)
    if not isinstance(target, (*FUNCTIONS, ast.ClassDef, ast.Assign, ast.AnnAssign)):
        return None
    needed = [*_head(helper_definitions, [target]), target]
    package = module.split(".")[0]
    if names_unbound(needed) or any(
        isinstance(s, ast.ImportFrom) and (s.module or "").split(".")[0] == package for s in needed
    ):
        return None
    if sum(len(unparse(_without_docstrings(s)).splitlines()) for s in needed) > HELPER_LINES:
        return None
    found = {n: s for n, s in helper_definitions.items() if any(s is x for x in needed)}
    clash = any(n != name and n in definitions and not _same_binding(definitions[n], s) for n, s in found.items())
    return None if clash else found


def _same_binding(one: ast.stmt, other: ast.stmt) -> bool:
    """Two definitions of a name bind the same thing: the same statement, or imports of the same
    name (`from pkg import Cls` and `from pkg._impl import Cls`: a package re-exports its own)."""
    if isinstance(one, ast.ImportFrom) and isinstance(other, ast.ImportFrom):
        return one.names[0].name == other.names[0].name
    return unparse(one) == unparse(other)


# standard-library classes whose repr is a call of their own name (`PosixPath('a.toml')`,
# `Decimal('1.5')`): a parametrized value the runner reports that way reads a name the test
# module need not import (pytest made the value), so the snippet imports it
_REPR_CLASSES = {
    "PosixPath": "pathlib",
    "WindowsPath": "pathlib",
    "PurePosixPath": "pathlib",
    "PureWindowsPath": "pathlib",
    "Decimal": "decimal",
    "Fraction": "fractions",
    "OrderedDict": "collections",
    "Counter": "collections",
    "deque": "collections",
    "UUID": "uuid",
}


def _definitions(
    module: ast.Module, test_path: str, conftests, star_names: dict[str, str] | None = None
) -> dict[str, ast.stmt]:
    """Top-level name -> its defining statement: the test module's, then each name its star
    imports bind (`star_names`: name -> module), then its conftests' (what inlined fixtures
    use), then the standard library's classes a reported value's repr calls."""
    definitions = _module_definitions(module, test_path)
    for name, home in (star_names or {}).items():
        definitions.setdefault(name, _implied_import(home, name))
    for path, text in zip(_conftest_paths(test_path), conftests):
        for name, stmt in _module_definitions(_safe_parse(text), path).items():
            if any(_names_a_fixture(d) for d in getattr(stmt, "decorator_list", [])):
                continue  # pytest refuses a direct call of a fixture: its name stays unbound
            stmt.sebgen_path = path  # the file it comes from (what its `__file__` is)
            definitions.setdefault(name, stmt)
    for name, home in _REPR_CLASSES.items():
        definitions.setdefault(name, _implied_import(home, name))
    return definitions


def _implied_import(module: str, name: str) -> ast.ImportFrom:
    """An import no source writes (a star import's name, a repr's class): it never shadows a builtin."""
    stmt = ast.ImportFrom(module=module, names=[ast.alias(name)], level=0)
    stmt.sebgen_implied = True
    return stmt


def _required_after(
    fn: ast.AST, failing: ast.stmt, rewrite: _Rewrite, helpers: set[str], raised: bool
) -> list[ast.stmt]:
    """What the test requires after the failing line: its checks; after a statement that
    raised (not a failed check), every statement, since each must run without raising too. A
    check that already passed is not repeated."""
    rest = _rest_of_test(fn, failing, rewrite, statements=raised)
    passed = {
        " ".join(unparse(_plain_assert(n)).split())
        for n in own_nodes(fn)
        if isinstance(n, ast.stmt) and (n.end_lineno or n.lineno) < failing.lineno and is_check(n, helpers)
    }
    rest = [r for r in rest if " ".join(unparse(r).split()) not in passed]
    if not raised and not any(isinstance(n, ast.Assert) or is_check(n) for r in rest for n in ast.walk(r)):
        return []
    return rest


@functools.lru_cache(maxsize=4)  # asked for each parametrized case and each head: one module's answer, once
def _rebound(module: ast.Module) -> dict[str, list[ast.stmt]]:
    """Names the test module defines more than once at its top level -> every such statement
    (read only: the answer is shared)."""
    found: dict[str, list[ast.stmt]] = {}
    for node in module.body:
        if isinstance(node, (*FUNCTIONS, ast.ClassDef, ast.Assign, ast.AnnAssign)):
            for name in names_bound([node]) if not isinstance(node, (*FUNCTIONS, ast.ClassDef)) else {node.name}:
                found.setdefault(name, []).append(node)
    return {name: stmts for name, stmts in found.items() if len(stmts) > 1}


def _head(
    definitions: dict[str, ast.stmt], stmts: list[ast.stmt], rebound: dict[str, list[ast.stmt]] | None = None
) -> list[ast.stmt]:
    """The definitions of the test's module that `stmts` use (imports, constants, helpers, and
    what those use in turn), imports first. A name the module binds more than once comes with
    every binding, in the module's order: the test sees the last one, and the earlier ones can
    count (`C`, then `Copy = C`, then another `C`)."""
    head: list[ast.stmt] = []
    # a builtin's name the module binds is its binding; one a conftest binds (`from fastjsonschema
    # import compile`) only for the code that comes from that conftest (its fixture's helper):
    # the snippet ran the builtin `compile` and failed otherwise
    shadowed = {n for n in set(dir(builtins)) & set(definitions) if not getattr(definitions[n], "sebgen_implied", 0)}
    conftest_only = {n for n in shadowed if getattr(definitions[n], "sebgen_path", None)}
    for _ in range(4):
        nodes = [*head, *stmts]
        theirs = [s for s in nodes if getattr(s, "sebgen_conftest", False) or getattr(s, "sebgen_path", None)]
        reads = (names_read(nodes) & (shadowed - conftest_only)) | (names_read(theirs) & conftest_only)
        missing = names_unbound(nodes) | (reads - names_bound(nodes))
        missing -= {n for s in head for n in names_bound([s])}
        new = [definitions[n] for n in sorted(missing) if n in definitions and definitions[n] not in head]
        again = [s for n in sorted(missing) for s in (rebound or {}).get(n, [])]
        new += [s for s in again if not any(s is other for other in [*head, *new])]
        new += [s for s in _registered_on(definitions, nodes) if not any(s is other for other in [*head, *new])]
        if not new:
            break
        head += new
    head.sort(key=lambda s: (not isinstance(s, (ast.Import, ast.ImportFrom)), getattr(s, "lineno", 0)))
    return head


def _registered_on(definitions: dict[str, ast.stmt], nodes: list[ast.stmt]) -> list[ast.stmt]:
    """The module's functions and classes a decorator registers on an object `nodes` assign
    (typer's `@app.command()` on the module's `app = typer.Typer()`): the object is incomplete
    without them, though no line names them (typer: "Could not get a command for this Typer
    instance" on both states)."""
    assigned = {t.id for s in nodes if isinstance(s, ast.Assign) for t in s.targets if isinstance(t, ast.Name)}
    found = []
    for name, node in definitions.items():
        if not isinstance(node, (*FUNCTIONS, ast.ClassDef)) or name.startswith("test"):
            continue
        for deco in node.decorator_list:
            target = deco.func if isinstance(deco, ast.Call) else deco
            root = target
            while isinstance(root, ast.Attribute):
                root = root.value
            if isinstance(target, ast.Attribute) and isinstance(root, ast.Name) and root.id in assigned:
                found.append(node)
                break
    return found


_PER_RUN = re.compile(
    r"hash|id|os\.getpid|os\.urandom|time\.(?:time|monotonic|perf_counter)(?:_ns)?|uuid\.uuid[14]"
    r"|random\.\w+|secrets\.\w+"
)  # a frozen clock's `datetime.now()` is the same on every run: not listed


def _varies_per_run(check: ast.AST) -> bool:
    """The check compares what a call gives differently on each run: `hash(C('1'))` (str hashes
    are salted per process), `id(x)`, the clock, a random draw. attrs' `hash(C('1')) == hash(C(1))`
    was stated with two numbers that no other run prints."""
    return any(isinstance(n, ast.Call) and _PER_RUN.fullmatch(callee(n)) for n in ast.walk(check))


def _with_check_outcome(
    record: FailureEvidence,
    repro: _Reproduction,
    fn: ast.AST,
    failing: ast.stmt,
    helpers: set[str],
    report: dict,
    repo_modules: set[str],
) -> FailureEvidence:
    """`record` with what the failing check observed and required, the loop pass it failed in,
    the check that follows a raising line, the test's requirements after it, and the project
    callable it exercises."""
    head, code, rest, rewrite = repro.head, repro.code, repro.rest, repro.rewrite
    last = next((n for s in code for n in ast.walk(s) if getattr(n, "sebgen_failing", False)), failing)
    project = _project_names(repro.definitions, repo_modules)
    project_made = _project_made(code, project)
    # a local the test binds once to a written value (`text = '...'`) is what the check wants, as the literal
    computed_locals = names_bound(code) - names_bound(head) - _written_locals(code)
    record = replace(record, **check_outcome(last, report, computed_locals, project_made, project))
    if _is_self_check(last) and record.call == unparse(last.value):
        # a test that never ran: its unittest check as the snippet shows it (`smoo.__dict__ == {}`)
        plain = _plain_assert(copy.deepcopy(last))
        record.call = unparse(plain.test) if isinstance(plain, ast.Assert) else record.call
    if record.kind == "compare" and _varies_per_run(last):  # another run prints other values: quote none
        record.observed, record.expected, record.exact = "", "", False
    if record.kind == "compare" and (written := _written_value(code, record.expected)):
        record.expected, record.exact = written, written.startswith(("'", '"')) and record.op in ("==", "in")
    guard = next((n for s in code for n in ast.walk(s) if isinstance(n, ast.If) and _raises_only(n, last)), None)
    if guard is not None and not record.error:  # `if not ok: raise AssertionError(...)` is `assert ok`
        negated = isinstance(guard.test, ast.UnaryOp) and isinstance(guard.test.op, ast.Not)
        held = guard.test.operand if negated else guard.test
        record = replace(
            record,
            kind="truthy",
            call=unparse(held),
            expected="true" if negated else "false",
            observed="False" if negated else "True",
        )
    if "\n" in record.call:
        record.call = ""  # a block is no call to quote
    reading = [side for side in ("call", "expected") if ".readouterr()." in (getattr(record, side) or "")]
    if reading and "captured_" in repro.text():  # what the snippet reads in place of `capsys.readouterr().err`
        for side in reading:
            tree = ast.parse(getattr(record, side), mode="eval")
            for fixture in ("capsys", "capfd"):
                tree = _ReadStreams(fixture).visit(tree)
            setattr(record, side, unparse(tree))
    if record.kind in ("compare", "truthy"):  # a check of the message of an exception caught before it
        record.raised, record.raised_by = _caught(code, last)
        record.raised, record.raised_by = record.raised or None, record.raised_by or None
    loop = [s for s in code for s in ast.walk(s) if isinstance(s, ast.For) and any(n is last for n in ast.walk(s))]
    target = loop[-1].target if loop else None
    local_values = report.get("locals") or {}
    if isinstance(target, ast.Name) and target.id != "_" and target.id in local_values:
        record.loop_value = f"{target.id} = {no_address(local_values[target.id])}"
    elif isinstance(target, ast.Tuple) and all(isinstance(t, ast.Name) and t.id in local_values for t in target.elts):
        # `for raw, want in CASES`: the pass's values of every name the loop unpacks
        names = [t.id for t in target.elts]
        record.loop_value = f"{', '.join(names)} = {', '.join(no_address(local_values[n]) for n in names)}"
    then = _next_check(fn, failing, helpers)
    if then is not None and record.kind == "error":  # what the test checks once the line runs
        then = ast.fix_missing_locations(rewrite.visit(_plain_assert(then)))
        if not names_unbound([*head, *code, then]) - names_unbound([*head, *code]):  # only with names the snippet binds
            record.then = unparse(then)
    bound_by_imports = {i.split()[-1].split(".")[0] for i in repro.imports}
    if repro.loop_over and not names_unbound([*head, *code, *ast.parse(repro.loop_over.split(" in ", 1)[1]).body]) - (
        names_unbound([*head, *code])
    ):  # the other passes, with names the snippet binds (`modutils.PY_COMPILED_EXTS`)
        record.loop_over = repro.loop_over
    if repro.reads_output_after():  # `capsys.readouterr()` after the failing line: read from the snippet's buffers
        rest = _captured_output(rest, continuing=True)[0]
        bound_by_imports |= {"captured_out", "captured_err", "io", "contextlib"}
    if rest and not names_unbound([*head, *code, *rest]) - names_unbound([*head, *code]) - bound_by_imports:
        text = "\n".join(unparse(s) for s in rest)
        if text.count("\n") < REST_LINES:
            record.rest = text
    helpers = _test_helpers([*repro.imports, *(unparse(s) for s in head if isinstance(s, ast.ImportFrom))])
    record.function = _public_function(code, last, project, helpers)
    called = {n.func.id for n in ast.walk(last) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
    for helper in [s for s in head if isinstance(s, FUNCTIONS) and s.name in called and s.body]:
        # a check the test delegates to its module's helper: the project callable that helper calls
        record.function = record.function or _public_function(helper.body, helper.body[-1], project, helpers)
    return record


_TEST_MODULE_PART = re.compile(r"^from\s+(?:[\w.]*\.)?(?:tests?|testing)(?:\.[\w.]*)?\s+import\s+(.+)$")


def _test_helpers(imports: list[str]) -> frozenset[str]:
    """Names the snippet imports from a test or testing module (`from mako.testing.assertions
    import eq_`): they check the code, they are not the code at fault."""
    names = set()
    for line in imports:
        found = _TEST_MODULE_PART.match(line.strip())
        if found:
            names |= {n.split(" as ")[-1].strip(" ()") for n in found.group(1).split(",")}
    return frozenset(n for n in names if n)


WRITTEN_VALUE = 400  # characters: a longer value stays the variable the snippet binds


def _written_locals(code: list[ast.stmt]) -> set[str]:
    """The names the snippet binds exactly once, at its top level, to a value written out (a
    literal, or a display of literals): values the test states, not ones it computes."""
    stores: dict[str, int] = {}
    for node in ast.walk(ast.Module(body=list(code), type_ignores=[])):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            stores[node.id] = stores.get(node.id, 0) + 1
    written = set()
    for i, stmt in enumerate(code):
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            try:
                value = _literal_value(stmt.value)
            except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                continue
            name = stmt.targets[0].id
            # a list, dict or set another statement reads may have been changed in place since
            if isinstance(value, (list, dict, set)) and name in names_read(code[i + 1 : -1]):
                continue
            written.add(name)
    return {name for name in written if stores.get(name) == 1}


def _written_value(code: list[ast.stmt], name: str) -> str:
    """The value of the expected side `name` when the snippet binds it once, at its top level,
    to literals only, joined or added (`'\\n'.join(['a', 'b'])`, `'a' + 'b'`): the solver reads
    the value the code must produce, not the test's variable. "" otherwise."""
    binds = [
        s
        for s in code
        if isinstance(s, (ast.Assign, ast.AugAssign, ast.AnnAssign))
        and name in names_bound([s])
        and name.isidentifier()
    ]
    if len(binds) != 1 or not isinstance(binds[0], ast.Assign) or len(binds[0].targets) != 1:
        return ""
    try:
        text = repr(_literal_value(binds[0].value))
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return ""
    return text if len(text) <= WRITTEN_VALUE else ""


def _literal_value(node: ast.expr):
    """A literal's value, with `+` of two such values and `'sep'.join([...])` of strings."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _literal_value(node.left), _literal_value(node.right)
        if type(left) is not type(right) or not isinstance(left, (str, bytes, list, tuple)):
            raise ValueError("no sum of two literals of one sequence type")
        return left + right
    call = node if isinstance(node, ast.Call) else None
    if call is not None and isinstance(call.func, ast.Attribute) and call.func.attr == "join":
        sep = call.func.value
        if not (isinstance(sep, ast.Constant) and isinstance(sep.value, str) and len(call.args) == 1):
            raise ValueError("no join of strings")
        if call.keywords or not isinstance(call.args[0], (ast.List, ast.Tuple)):
            raise ValueError("no join of a written list")
        parts = [_literal_value(e) for e in call.args[0].elts]
        if not all(isinstance(p, str) for p in parts):
            raise ValueError("no join of strings")
        return sep.value.join(parts)
    return ast.literal_eval(node)


def _raises_only(guard: ast.If, failing: ast.stmt) -> bool:
    """`guard` is `if <cond>: raise AssertionError(...)` around the failing `raise`: a check."""
    body = guard.body
    if len(body) != 1 or not isinstance(body[0], ast.Raise) or guard.orelse:
        return False
    raised = body[0].exc.func if isinstance(body[0].exc, ast.Call) else body[0].exc
    named = raised.id if isinstance(raised, ast.Name) else getattr(raised, "attr", "")
    return body[0].lineno == failing.lineno and named.endswith("AssertionError")


def _rest_of_test(fn: ast.AST, failing: ast.stmt, rewrite: _Rewrite, statements: bool = False) -> list[ast.stmt]:
    """What the test does after the failing statement (it never ran on the buggy code): the
    statements that follow it in its block and in each enclosing block, as plain Python. The
    checks among them are requirements too; none when there is no check among them (unless
    `statements`: then running them is the requirement)."""
    end = failing.end_lineno or failing.lineno
    after: list[ast.stmt] = []
    for block in _blocks_holding(fn, failing):
        after += [s for s in block if s.lineno > end and not _is_docstring(s)]
        end = max([end, *[s.end_lineno or s.lineno for s in block if s.lineno <= end]])
    after.sort(key=lambda s: s.lineno)
    ends = [i for i, s in enumerate(after) if isinstance(s, ast.Return)]  # the test ends there: no snippet line
    after = [s for s in after[: ends[0] if ends else None] if not isinstance(s, ast.Pass)]
    if not after or (
        not statements and not any(is_check(n) or isinstance(n, ast.Assert) for s in after for n in ast.walk(s))
    ):
        return []
    converted = [_PlainAsserts().visit(ast.Module(body=[copy.deepcopy(s) for s in after], type_ignores=[])).body]
    # the snippet caught the exception with `pytest.raises(E) as cm`: a later `cm.exception` is `cm.value`
    caught = _CaughtPlainly(fn)
    return [ast.fix_missing_locations(rewrite.visit(caught.visit(_plain_assert(s)))) for s in converted[0]]


def _blocks_holding(fn: ast.AST, target: ast.stmt) -> list[list[ast.stmt]]:
    """The statement lists that hold `target`, innermost first (up to the function's body)."""
    found: list[list[ast.stmt]] = []

    def visit(node: ast.AST) -> bool:
        for field in ("body", "orelse", "finalbody", "handlers"):
            block = getattr(node, field, None)
            if not isinstance(block, list):
                continue
            for stmt in block:
                if stmt is target or (stmt.lineno == target.lineno and type(stmt) is type(target)):
                    found.append(block)
                    return True
                if visit(stmt):
                    if field != "handlers":
                        found.append(block)
                    return True
        return False

    visit(fn)
    return found


def _added_names(stmts: list[ast.stmt]) -> set[str]:
    out: set[str] = set()
    for stmt in stmts:
        if isinstance(stmt, (*FUNCTIONS, ast.ClassDef)):
            out.add(stmt.name)
        elif isinstance(stmt, ast.Assign):
            out |= {t.id for t in stmt.targets if isinstance(t, ast.Name)}
    return out


def _class_members(cls: ast.ClassDef, module: ast.Module | None = None, depth: int = 0) -> dict[str, ast.stmt]:
    """Class attributes (as `name = value`) and helper methods of a test class, by name, with
    those it inherits from the classes of `module` it derives from (a mixin's helper that reads
    an attribute each subclass sets): its own win, then its bases' in their order."""
    inherited: dict[str, ast.stmt] = {}
    classes = {n.name: n for n in module.body if isinstance(n, ast.ClassDef)} if module is not None else {}
    for base in cls.bases if depth < 4 else ():
        named = _base_name(base)
        if named in classes and named != cls.name:
            for name, stmt in _class_members(classes[named], module, depth + 1).items():
                inherited.setdefault(name, stmt)
    own: dict[str, ast.stmt] = {}
    for node in cls.body:
        if isinstance(node, ast.Assign):
            value = node.value
            if isinstance(value, ast.Call) and _callee_text(value) == "staticmethod" and len(value.args) == 1:
                value = value.args[0]  # out of the class, the function itself is what `self.X(...)` calls
            for target in node.targets:
                if isinstance(target, ast.Name):
                    own[target.id] = ast.Assign(targets=[ast.Name(target.id, ast.Store())], value=value)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
            own[node.target.id] = ast.Assign(targets=[ast.Name(node.target.id, ast.Store())], value=node.value)
        elif isinstance(node, FUNCTIONS) and node.name not in _LIFECYCLE:
            # a test method is one too: another test may call it (`self.test_good_values()`)
            if not any(_callee_text(d).endswith("fixture") for d in node.decorator_list):
                own[node.name] = node
    return {**inherited, **own}


_LIFECYCLE = ("setUp", "tearDown", "setup_method", "teardown_method", "setUpClass", "tearDownClass")


def _callee_text(node: ast.expr) -> str:
    try:
        return unparse(node.func if isinstance(node, ast.Call) else node)
    except Exception:  # noqa: BLE001
        return ""


class _PlainAsserts(ast.NodeTransformer):
    """unittest `self.assertX(...)` statements of a helper as plain asserts."""

    def generic_visit(self, node):
        super().generic_visit(node)
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            if isinstance(block, list):
                setattr(node, field, [_plain_assert(_returned_check(s)) for s in block])
        return node


def _returned_check(stmt: ast.stmt) -> ast.stmt:
    """`return self.assertTrue(x)` (the check's None returned) as the check's statement."""
    if isinstance(stmt, ast.Return) and _is_self_check(ast.Expr(stmt.value)):
        return ast.copy_location(ast.Expr(stmt.value), stmt)
    return stmt


def _own_walk(node: ast.AST):
    """ast.walk without descending into nested functions (their awaits are their own)."""
    todo = [node]
    while todo:
        current = todo.pop()
        yield current
        for child in ast.iter_child_nodes(current):
            if not isinstance(child, (*FUNCTIONS, ast.Lambda, ast.ClassDef)):
                todo.append(child)


class _SharedUnannotated(ast.NodeTransformer):
    """`enters: list = []` as `enters = []` for a name `main` declares global (an annotated
    global is a SyntaxError); nested functions and classes keep their own."""

    def __init__(self, shared: set[str]):
        self.shared = shared

    def visit_AnnAssign(self, node: ast.AnnAssign):
        if isinstance(node.target, ast.Name) and node.target.id in self.shared:
            if node.value is None:
                return ast.copy_location(ast.Pass(), node)
            return ast.copy_location(ast.Assign(targets=[node.target], value=node.value), node)
        return node

    def _own_scope(self, node):
        return node

    visit_FunctionDef = visit_AsyncFunctionDef = visit_ClassDef = visit_Lambda = _own_scope


def _in_event_loop(code: list[ast.stmt], shared: set[str] = frozenset()) -> list[ast.stmt]:
    """`code` as the body of `async def main()`, run by `asyncio.run(main())`; the names it binds
    that the checks after it read (`shared`) are globals, so those checks see them."""
    declared = [ast.Global(names=sorted(shared))] if shared else []
    code = [_SharedUnannotated(shared).visit(copy.deepcopy(s)) for s in code] if shared else code
    main = ast.AsyncFunctionDef(
        name="main",
        args=ast.arguments([], [], None, [], [], None, []),
        body=[*declared, *code],
        decorator_list=[],
        returns=None,
    )
    if hasattr(main, "type_params"):
        main.type_params = []
    run = ast.Expr(
        ast.Call(
            func=ast.Attribute(ast.Name("asyncio", ast.Load()), "run", ast.Load()),
            args=[ast.Call(func=ast.Name("main", ast.Load()), args=[], keywords=[])],
            keywords=[],
        )
    )
    return [ast.fix_missing_locations(main), ast.fix_missing_locations(run)]


def _next_check(fn: ast.AST, failing: ast.stmt, helpers: set[str]) -> ast.stmt | None:
    """The first check of the test after the failing statement (it never ran)."""
    end = failing.end_lineno or failing.lineno
    later = [n for n in ast.walk(fn) if isinstance(n, ast.stmt) and n.lineno > end and is_check(n, helpers)]
    return copy.deepcopy(min(later, key=lambda n: n.lineno)) if later else None


def _without_docstrings(node: ast.AST) -> ast.AST:
    node = copy.deepcopy(node)
    for inner in ast.walk(node):
        body = getattr(inner, "body", None)
        if isinstance(inner, (*FUNCTIONS, ast.ClassDef)) and isinstance(body, list) and body and _is_docstring(body[0]):
            inner.body = body[1:] or [ast.Pass()]
    return node


def _safe_parse(text: str) -> ast.Module:
    try:
        return ast.parse(text)
    except (SyntaxError, ValueError):
        return ast.Module(body=[], type_ignores=[])


def _is_super_call(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and "super(" in unparse(stmt.value)


def _inline_fixture_tree(
    name: str, fixture: ast.AST, fixtures: dict, imports: list[str], values: dict | None = None, depth: int = 0
):
    """A fixture's body as snippet lines, after those of the fixtures it takes (pytest's own, the
    project's, the anyio plugin's from the case's backend); None when one cannot be built."""
    if depth > 3:
        return None
    values = values or {}
    steps: list[ast.stmt] = []
    read = names_read(fixture.body)
    backend = values.get("anyio_backend")
    for arg in [a.arg for a in fixture.args.args]:
        if arg in _BUILTIN_FIXTURES:
            extra, stmt_text = _BUILTIN_FIXTURES[arg]
            imports += extra
            steps += ast.parse(stmt_text).body
        elif arg in _ANYIO_FIXTURES and isinstance(backend, ast.Constant) and isinstance(backend.value, str):
            value = _ANYIO_FIXTURES[arg].format(backend=repr(backend.value))
            steps += ast.parse(f"{arg} = {value}").body
        elif arg in values and arg not in fixtures:
            steps.append(ast.Assign(targets=[ast.Name(arg, ast.Store())], value=copy.deepcopy(values[arg])))
        elif arg in fixtures and arg != name:
            inner = _inline_fixture_tree(arg, fixtures[arg], fixtures, imports, values, depth + 1)
            if inner is None and arg in read:
                return None
            steps += inner or []  # one the body never reads only orders the fixtures: left out
        elif arg not in ("self", "cls", "request") and arg in read:
            return None  # a fixture this code cannot build, and the body needs its value
    own = _inline_fixture(name, fixture)
    return None if own is None else steps + own


def _replace_last(body: list[ast.stmt], lineno: int, change) -> list[ast.stmt]:
    """`body` with the statement at `lineno` (the last one, possibly nested) changed."""
    if not body:
        return body
    last = body[-1]
    if getattr(last, "lineno", None) == lineno:
        body[-1] = change(last)
        body[-1].sebgen_failing = True
    elif hasattr(last, "body") and isinstance(last.body, list):
        last.body = _replace_last(last.body, lineno, change)
    return body


def _unroll_loops(code: list[ast.stmt], local_values: dict, unrolled: list[str] | None = None) -> list[ast.stmt]:
    """A `for x in ...:` holding the failing check becomes `x = <its value at the failure>`
    followed by the loop body, when the value's repr is Python and the failing pass is the
    first; `unrolled` gets `x in <iterable>` of each loop of more than one pass so unrolled
    (every pass is still required)."""
    if not code:
        return code
    last = code[-1]
    if isinstance(last, ast.For):
        names = [n.id for n in ast.walk(last.target) if isinstance(n, ast.Name)]
        values = {}
        for name in names:
            try:
                values[name] = ast.parse(str(local_values[name]), mode="eval").body
            except (KeyError, SyntaxError):
                return code
        first = last.iter.elts[0] if isinstance(last.iter, (ast.List, ast.Tuple)) and last.iter.elts else None
        target_value = (
            values[names[0]]
            if isinstance(last.target, ast.Name)
            else ast.Tuple(elts=[values[n] for n in names], ctx=ast.Load())
        )
        if first is None or unparse(first) != unparse(target_value):
            return code  # a later pass fails: the earlier ones matter, the loop stays
        if isinstance(last.target, ast.Name):
            assigns = [ast.Assign(targets=[ast.Name(names[0], ast.Store())], value=values[names[0]])]
        else:
            assigns = [ast.Assign(targets=[ast.Name(n, ast.Store())], value=values[n]) for n in names]
        single = isinstance(last.iter, (ast.List, ast.Tuple)) and len(last.iter.elts) == 1
        if unrolled is not None and not single:
            unrolled.append(f"{unparse(last.target)} in {unparse(last.iter)}")
        return [*code[:-1], *assigns, *_unroll_loops(last.body, local_values, unrolled)]
    if isinstance(last, (ast.With, ast.AsyncWith, ast.If, ast.While)) and isinstance(getattr(last, "body", None), list):
        last.body = _unroll_loops(last.body, local_values, unrolled)
    return code


def _source_lines(lines: list[str], start: int, end: int) -> list[str]:
    chunk = lines[start - 1 : end]
    if len(chunk) > SOURCE_LINES:
        chunk = chunk[:5] + ["    ..."] + chunk[-(SOURCE_LINES - 6) :]
    indent = min((len(ln) - len(ln.lstrip()) for ln in chunk if ln.strip()), default=0)
    return [ln[indent:] for ln in chunk]


def _passed_checks(fn: ast.AST, line: int, helpers: set[str]) -> list[str]:
    """The test's own checks that ended before `line` (they ran and passed), one line each:
    not those of the helpers it defines, nor a `with pytest.raises(...) as e:` whose value the
    test goes on to use (setup, not a check)."""
    found = []
    for node in own_nodes(fn):
        if isinstance(node, ast.stmt) and (node.end_lineno or node.lineno) < line:
            if isinstance(node, (ast.With, ast.AsyncWith)) and any(i.optional_vars is not None for i in node.items):
                continue
            if not on_the_path(fn, node, line):
                continue  # a branch the run did not take (the `except` of a `try` whose `else` failed)
            if is_check(node, helpers):
                text = unparse(node).splitlines()[0] if not isinstance(node, ast.Assert) else unparse(node)
                found.append((node.lineno, " ".join(text.split())[:200]))
    return [text for _, text in sorted(found)]


def on_the_path(fn: ast.AST, node: ast.AST, line: int) -> bool:
    """False when `node` sits in another branch (if/else, try/except/else) of a statement whose
    branch holding `line` is the one the run took."""

    def holds(block, target_line=None, target=None) -> bool:
        for stmt in block or []:
            if target is not None and any(n is target for n in ast.walk(stmt)):
                return True
            if target_line is not None and stmt.lineno <= target_line <= (stmt.end_lineno or stmt.lineno):
                return True
        return False

    for branchy in ast.walk(fn):
        if not isinstance(branchy, (ast.If, ast.Try)) or branchy is node:
            continue
        blocks = [
            branchy.body,
            branchy.orelse,
            *([h.body for h in branchy.handlers] if isinstance(branchy, ast.Try) else []),
        ]
        if isinstance(branchy, ast.Try):
            blocks.append(branchy.finalbody)
        where_line = [i for i, b in enumerate(blocks) if holds(b, target_line=line)]
        where_node = [i for i, b in enumerate(blocks) if holds(b, target=node)]
        if where_line and where_node and where_line[0] != where_node[0]:
            if isinstance(branchy, ast.Try) and {where_line[0], where_node[0]} & {0, len(blocks) - 1}:
                continue  # the try body and the finally run on every path
            return False
    return True


def _project_names(definitions: dict, repo_modules: set[str]) -> set[str]:
    """The names that are the project's code: its modules, and what the test imports from them."""
    return {
        name
        for name, stmt in definitions.items()
        if isinstance(stmt, (ast.Import, ast.ImportFrom))
        and ((getattr(stmt, "module", None) or stmt.names[0].name).split(".")[0] in repo_modules)
    } | set(repo_modules)


def _project_made(code: list[ast.stmt], project: set[str]) -> set[str]:
    """Snippet names whose value comes from the project's code (assigned from an expression
    that uses a `project` name or another such name)."""
    made = set(project)
    for _ in range(3):
        for stmt in code:
            for node in ast.walk(stmt):
                if isinstance(node, ast.Assign) and names_read([node.value]) & made:
                    made |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    return made - project


def _public_function(
    code: list[ast.stmt], last: ast.stmt, project_names: set[str], test_helpers: frozenset[str] = frozenset()
) -> str:
    """The project callable the failing check exercises: the outermost call in it that reaches
    the project (a name the test imports from the project, a project module, or a method of a
    value the snippet built with the project's code); else the last such call before it. A
    call of a test helper (`eq_`) is never it."""

    def project(root: str) -> bool:
        return root in project_names

    def root_of(node: ast.expr) -> str:
        while isinstance(node, (ast.Attribute, ast.Call, ast.Subscript)):
            node = node.func if isinstance(node, ast.Call) else node.value
        return node.id if isinstance(node, ast.Name) else ""

    built: dict[str, str] = {}  # snippet names holding project objects -> the class that made them, if one
    for stmt in code:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and project(root_of(node.value)):
                maker = node.value.func
                name = maker.attr if isinstance(maker, ast.Attribute) else getattr(maker, "id", "")
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        built[target.id] = name if name[:1].isupper() else ""
            elif isinstance(node, (*FUNCTIONS, ast.ClassDef)) and any(project(root_of(d)) for d in node.decorator_list):
                built[node.name] = ""

    def name_of(call: ast.Call) -> str:
        func = call.func
        while isinstance(func, ast.Call):  # `f(x)()`: the call that makes the callable
            func = func.func
        root = root_of(func)
        if root in test_helpers:
            return ""
        if project(root):
            return unparse(func)
        if root in built and isinstance(func, ast.Attribute):
            return f"{built[root]}.{func.attr}" if built[root] else func.attr
        return ""

    for scope in ([last], code[::-1]):
        for stmt in scope:
            todo = [stmt]
            while todo:  # outermost calls first
                node = todo.pop(0)
                if isinstance(node, ast.Call):
                    found = name_of(node)
                    if found:
                        return found
                todo.extend(ast.iter_child_nodes(node))
    return ""
