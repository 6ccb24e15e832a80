"""What the statement writer is told about a task: the commit's text, the touched functions'
signatures as the solver reads them, the failing tests and their checks, the fix's added lines.

The same context goes to the offline writer and to a real model (`tasks.prompt` renders it).
"""

from __future__ import annotations

import ast
import re

import git
from unidiff import PatchSet, UnidiffParseError

from llm import patch_added_lines, patch_sections
from records import Task
from tasks.mining import Candidate
from tasks.strategy import Strategy


def defined_functions(source: str) -> set[str]:
    """Every def/class name in `source` (methods included)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set()
    return {n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}


def file_at(repo_path: str, sha: str, path: str) -> str:
    try:
        return git.Repo(repo_path).git.show(f"{sha}:{path}")
    except git.GitCommandError:
        return ""


def touched_signatures(candidate: Candidate) -> list[dict]:
    """Signatures as the solver will read them: from the buggy state (the parent), since the
    fixed line may be part of the fix; a function the change adds, from the fixed state."""

    def at(sha: str) -> dict[str, str]:
        return {p: file_at(candidate.repo_path, sha, p) for p in candidate.source_files}

    found = signatures(at(candidate.parent), candidate.touched_functions) if candidate.parent else []
    missing = [n for n in candidate.touched_functions if n not in {f["name"] for f in found}]
    return found + (signatures(at(candidate.sha), missing) if missing else [])


def statement_context(task: Task, candidate: Candidate, strategy: Strategy) -> dict:
    """The one context the statement writer gets (the offline writer reads it; `tasks.prompt`
    renders it for a real model). Keys, each of which may be trimmed away:

    - "task", "strategy_type", "repo": what to write, for which strategy and project;
    - "commit_subject", "commit_body", "pr_title", "pr_body", "issues", "created_at": the
      change's own text (PR title and body when a pull request brought it in; issue numbers
      it cites, which the solver cannot read);
    - "touched_functions": [{"file", "name", "signature"}] of the functions the fix touches,
      signatures as the buggy state has them;
    - "failing_tests": [{"id", "assertion", "added_lines"}]: each FAIL_TO_PASS test, its
      checks that the change added (`failing_tests`) and its lines the change added;
    - "failures": [{"id", "kind", "check", "call", "op", "observed", "expected", "exact",
      "match", "warns", "error", "message", "params", "reproduction", "unbound", "function",
      "passed_checks"}]: per FAIL_TO_PASS test, how it fails on the buggy state, from the
      functional layer's run (`failure_evidence`); empty before that layer ran;
    - "added_lines": the gold patch's added Python lines (for the leak filter; never shown).
    """
    return {
        "task": "write_statement",
        "strategy_type": strategy.strategy_type.value,
        "repo": candidate.repo,
        "commit_subject": candidate.subject,
        "commit_body": candidate.body,
        "pr_title": candidate.pr_title,  # the pull request that brought the commit in, if any
        "pr_body": candidate.pr_body,
        "issues": candidate.issues,
        "created_at": candidate.created_at,
        "touched_functions": touched_signatures(candidate),
        "failing_tests": failing_tests(candidate, task.FAIL_TO_PASS, test_patch=task.test_patch),
        "failures": writer_failures(task),
        "added_lines": [line for line in patch_added_lines(python_part(task.patch)) if line.strip()],
    }


WRITER_KEYS = (
    "id",
    "kind",
    "check",
    "call",
    "op",
    "observed",
    "expected",
    "exact",
    "match",
    "warns",
    "error",
    "message",
    "params",
    "reproduction",
    "unbound",
    "function",
    "passed_checks",
    "then",
    "rest",
    "loop_value",
    "long",
)


def writer_failures(task: Task) -> list[dict]:
    """The functional layer's failure evidence of each FAIL_TO_PASS test, as the writer reads it."""
    functional = (getattr(task, "validation", None) or {}).get("functional")
    details = functional.details if functional else {}
    recorded = details.get("failures") if isinstance(details.get("failures"), dict) else {}
    out = []
    for test_id in task.FAIL_TO_PASS:
        record = recorded.get(test_id)
        if isinstance(record, dict) and record.get("kind"):
            item = {k: record[k] for k in WRITER_KEYS if k in record}
            item["id"] = test_id
            item["message"] = str(item.get("message", ""))[:400]
            out.append(item)
    return out


def python_part(patch: str) -> str:
    """The file sections of a git diff that change Python files (the code a statement is about;
    a changelog or data file in the gold patch is not)."""
    return patch_sections(patch, lambda path: path.endswith(".py")) if "diff --git " in patch else ""


def signatures(sources: dict[str, str], names: list[str]) -> list[dict]:
    found = []
    for path, text in sorted(sources.items()):
        try:
            tree = ast.parse(text)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name in names:
                line = text.splitlines()[node.lineno - 1].strip().rstrip(":")
                found.append({"file": path, "name": node.name, "signature": line})
    return found


def failing_tests(candidate: Candidate, test_ids: list[str], per_test: int = 2, test_patch: str = "") -> list[dict]:
    """Each failing test with its most telling checks (those on lines `test_patch` adds: the
    assertions the change made fail; all of them for a test it does not touch) and the lines
    the change adds to it."""
    added = added_line_numbers(test_patch)
    out = []
    for test_id in test_ids:
        path, _, rest = test_id.partition("::")
        name = rest.split("::")[-1].split("[")[0]
        source = file_at(candidate.repo_path, candidate.sha, path)
        found = assertions(source, name, lines=True)
        new_lines = added_test_lines(source, name, added.get(path, set()))
        if new_lines:  # the change's own checks; an older assert of the test also passed before it
            found = [item for item in found if item[0] & added.get(path, set())]
        found.sort(key=lambda item: (not (item[0] & added.get(path, set())), min(item[0], default=0)))
        out.append(
            {"id": test_id, "assertion": " | ".join(text for _, text in found[:per_test]), "added_lines": new_lines}
        )
    return out


def added_test_lines(source: str, function: str, added: set[int], limit: int = 12) -> list[str]:
    """The statements of test `function` that the change adds to (whole, dedented, without its
    docstring, up to `limit` lines): what the test now does, a reproduction when its assertions
    alone say little."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    lines = source.splitlines()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == function:
            out: list[str] = []
            for stmt in node.body:
                span = range(stmt.lineno, (stmt.end_lineno or stmt.lineno) + 1)
                docstring = isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)
                if docstring or not added.intersection(span):
                    continue
                text = [lines[n - 1] for n in span if n - 1 < len(lines) and lines[n - 1].strip()]
                if out and len(out) + len(text) > limit:
                    break
                out += text
            if not out:
                return []
            indent = min(len(ln) - len(ln.lstrip()) for ln in out)
            return [ln[indent:] for ln in out]
    return []


def added_line_numbers(patch: str) -> dict[str, set[int]]:
    """File -> line numbers (in the new file) that a diff adds."""
    out: dict[str, set[int]] = {}
    try:
        files = PatchSet(patch) if patch.strip() else []
    except UnidiffParseError:
        return out
    for patched in files:
        out[patched.path] = {line.target_line_no for hunk in patched for line in hunk if line.is_added}
    return out


def assertions(source: str, function: str, limit: int = 240, lines: bool = False) -> list:
    """The checks of test `function`, each on one line: `assert ...` (its message included),
    `with pytest.raises(...): <first statement>`, or a unittest `self.assert...(...)` call.
    With `lines`, (set of source line numbers, text) pairs."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == function:
            found = [
                (set(range(inner.lineno, (inner.end_lineno or inner.lineno) + 1)), _one_line(inner))
                for inner in _own_nodes(node)
                if _is_check(inner)
            ]
            found = [(span, text) for span, text in found if text and len(text) <= limit]
            return found if lines else [text for _, text in found]
    return []


def _own_nodes(function: ast.AST):
    """The nodes of a function's body, not of the helpers it defines (whose asserts speak of
    their parameters, not of the test's values)."""
    todo = list(ast.iter_child_nodes(function))
    while todo:
        node = todo.pop(0)
        yield node
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            todo.extend(ast.iter_child_nodes(node))


def _is_check(node: ast.AST) -> bool:
    if isinstance(node, ast.Assert):
        return True
    if isinstance(node, ast.With):
        return any(
            isinstance(i.context_expr, ast.Call) and _callee(i.context_expr).endswith(("raises", "Raises"))
            for i in node.items
        )
    return (
        isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Call)
        and _callee(node.value).split(".")[-1].lstrip("_").startswith("assert")
    )


def _callee(call: ast.Call) -> str:
    try:
        return ast.unparse(call.func)
    except Exception:  # noqa: BLE001 - an exotic callee is simply not a check
        return ""


def _one_line(node: ast.AST) -> str:
    if isinstance(node, ast.With):
        head = ", ".join(ast.unparse(i.context_expr) for i in node.items)
        first = ast.unparse(node.body[0]).splitlines()[0] if node.body else "pass"
        return f"with {head}: {first}"
    return " ".join(ast.unparse(node).split())


def repo_context(candidate: Candidate) -> str:
    readme = file_at(candidate.repo_path, candidate.sha, "README.md")[:400]
    files = git.Repo(candidate.repo_path).git.ls_tree("-r", "--name-only", candidate.sha).splitlines()
    python_files = [f for f in files if f.endswith(".py")][:30]
    return f"Repository {candidate.repo}.\n{readme}\nPython files: {', '.join(python_files)}"


# ---------------------------------------------------------------- failure evidence
#
# What the functional layer records per FAIL_TO_PASS test (`validation.functional.details.
# failures[test_id]`): the report plugin's evidence of the failure on the buggy state
# (sandbox.report.clean_failures: "type", "message", "compare", "line", "params", "indices",
# "locals", "frames", "raised_in", "when") and, read from the test's own file at base_commit
# (never from the gold patch), what `explain_failure` derives from it:
#   "check"          the failing statement of the test, as written (one line)
#   "kind"           "compare" | "truthy" | "raises" | "error"
#   "call"           the computed side of the failing check (params substituted)
#   "op"             the comparison (==, in, is, ...) when kind is "compare"
#   "observed"       the value the buggy code gave (repr), or the exception it raised
#   "expected"       the value (repr or source) or the exception the check requires
#   "exact"          the expected value is a string compared exactly
#   "error"          "Type: message" when an exception other than the check's escaped
#   "reproduction"   a self-contained snippet: imports, module constants, helper definitions
#                    and fixtures it needs, parametrized values substituted, the setup lines
#                    of the test up to the failing check (passed checks left out), ending with
#                    the failing check as a plain `assert` or `with pytest.raises`
#   "unbound"        names the reproduction still uses without defining them
#   "passed_checks"  the test's checks that ran and passed before the failing one
#   "function"       the project's public callable the failing check exercises
#   "source"         the test's own lines from its def to the failing line (cut)

EVIDENCE_TESTS = 20
PLUGIN_KEYS = ("when", "type", "message", "compare", "line", "frames", "raised_in", "params", "indices", "locals")
SOURCE_LINES = 40
HELPER_LINES = 40
SNIPPET_LINES = 80
_CHECK_CONTEXTS = ("raises", "Raises", "warns", "Warns", "deprecated_call", "assertRaisesRegex", "assertWarns")
_UNITTEST_OPS = {
    "assertEqual": "==",
    "assertEquals": "==",
    "assertNotEqual": "!=",
    "assertIs": "is",
    "assertIsNot": "is not",
    "assertIn": "in",
    "assertNotIn": "not in",
    "assertGreater": ">",
    "assertGreaterEqual": ">=",
    "assertLess": "<",
    "assertLessEqual": "<=",
    "assertListEqual": "==",
    "assertDictEqual": "==",
    "assertTupleEqual": "==",
    "assertSetEqual": "==",
    "assertSequenceEqual": "==",
    "assertMultiLineEqual": "==",
    "assertCountEqual": "==",
}
_AST_OPS = {
    "==": ast.Eq,
    "!=": ast.NotEq,
    "is": ast.Is,
    "is not": ast.IsNot,
    "in": ast.In,
    "not in": ast.NotIn,
    ">": ast.Gt,
    ">=": ast.GtE,
    "<": ast.Lt,
    "<=": ast.LtE,
}
_OP_TEXT = {v: k for k, v in _AST_OPS.items()}
_BUILTIN_FIXTURES = {
    "tmp_path": (["import pathlib", "import tempfile"], "tmp_path = pathlib.Path(tempfile.mkdtemp())"),
    "monkeypatch": (["import pytest"], "monkeypatch = pytest.MonkeyPatch()"),
}
_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)


def failure_evidence(repo_path, commit: str, failures: dict, tests) -> dict[str, dict]:
    """Per test of `tests` that has plugin evidence: that evidence plus what
    `explain_failure` derives from the test's file (and its conftests) at `commit`."""
    sources: dict[str, str] = {}
    modules = repo_modules(str(repo_path), commit)
    out: dict[str, dict] = {}
    for test_id in list(tests)[:EVIDENCE_TESTS]:
        raw = failures.get(test_id) if isinstance(failures, dict) else None
        if not isinstance(raw, dict):
            continue
        path = test_id.split("::")[0]
        if path not in sources:
            sources[path] = file_at(str(repo_path), commit, path)
        conftests = [file_at(str(repo_path), commit, c) for c in _conftest_paths(path)]
        record = {k: v for k, v in raw.items() if k in PLUGIN_KEYS}  # the run's own evidence, nothing derived
        try:
            record.update(explain_failure(sources[path], test_id, raw, conftests=conftests, repo_modules=modules))
        except (SyntaxError, ValueError, RecursionError, AttributeError, TypeError, IndexError):
            pass  # a file this code cannot read keeps the plugin's evidence alone
        out[test_id] = record
    return out


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
    parts = test_id.split("::")[1:]
    if not parts:
        return None, None
    name = parts[-1].split("[")[0]
    scope, cls = tree.body, None
    for part in parts[:-1]:
        cls = next((n for n in scope if isinstance(n, ast.ClassDef) and n.name == part), None)
        if cls is None:
            break
        scope = cls.body
    fn = next((n for n in scope if isinstance(n, _FUNCS) and n.name == name), None)
    if fn is None:
        fn = next((n for n in ast.walk(tree) if isinstance(n, _FUNCS) and n.name == name), None)
    return cls, fn


def _callee(call: ast.Call) -> str:
    try:
        return ast.unparse(call.func)
    except Exception:  # noqa: BLE001 - an exotic callee is simply not a check
        return ""


def _is_check_context(item: ast.withitem) -> bool:
    expr = item.context_expr
    return isinstance(expr, ast.Call) and _callee(expr).split(".")[-1].endswith(_CHECK_CONTEXTS)


def _asserting_helpers(tree: ast.Module) -> set[str]:
    """Module-level functions whose body asserts (`check(a, b)`, `assert_roundtrip(x)`)."""
    out = set()
    for node in tree.body:
        if isinstance(node, _FUNCS) and not node.name.startswith("test"):
            if any(isinstance(n, ast.Assert) for n in ast.walk(node)):
                out.add(node.name)
    return out


def _is_check(stmt: ast.stmt, helpers: set[str] = frozenset()) -> bool:
    """An assert, a unittest `self.assert*(...)`, a `with pytest.raises/warns(...)` block
    that binds nothing, or a call of a helper that asserts."""
    if isinstance(stmt, ast.Assert):
        return True
    if isinstance(stmt, (ast.With, ast.AsyncWith)):
        return any(_is_check_context(i) for i in stmt.items) and all(i.optional_vars is None for i in stmt.items)
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
        name = _callee(stmt.value).split(".")[-1]
        return name.lstrip("_").startswith("assert") or name in helpers
    return False


def _is_docstring(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str)


def _trim(body: list[ast.stmt], line: int, helpers: set[str], chain: list[ast.stmt]) -> list[ast.stmt]:
    """`body` up to the statement holding `line`: earlier checks (they passed) and docstrings
    left out, compound statements entered down to the failing statement (`chain` gets the
    statements entered, the failing one last)."""
    import copy

    out: list[ast.stmt] = []
    for stmt in body:
        end = stmt.end_lineno or stmt.lineno
        if end < line:
            if not _is_docstring(stmt) and not _is_check(stmt, helpers):
                kept = _without_checks(copy.deepcopy(stmt), helpers)
                if kept is not None:
                    out.append(kept)
            continue
        if stmt.lineno > line:
            break
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


def _without_checks(stmt: ast.stmt, helpers: set[str]) -> ast.stmt | None:
    """A statement that ran and passed, without the checks inside it (a loop of asserts that
    passed is no part of the reproduction); None when nothing else is left."""
    if isinstance(stmt, (*_FUNCS, ast.ClassDef, ast.Lambda)):
        return stmt  # a definition: its checks run where it is called
    changed = False
    for field in ("body", "orelse", "finalbody"):
        block = getattr(stmt, field, None)
        if not isinstance(block, list) or not block:
            continue
        kept = [k for k in (_without_checks(s, helpers) for s in block if not _is_check(s, helpers)) if k is not None]
        changed |= len(kept) != len(block)
        setattr(stmt, field, kept)
    for handler in getattr(stmt, "handlers", []) or []:
        handler.body = [
            k for k in (_without_checks(s, helpers) for s in handler.body if not _is_check(s, helpers)) if k is not None
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
    test checked and then replaced), and so do `x = <literal>` and an undecorated helper
    definition that nothing reads."""
    out = []
    for i, stmt in enumerate(code):
        if isinstance(stmt, (*_FUNCS, ast.ClassDef)) and not stmt.decorator_list:
            if not any(stmt.name in _used([other]) for j, other in enumerate(code) if j != i):
                continue  # a helper nothing calls any more (its calls were checks that passed)
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            name = stmt.targets[0].id
            if _literal(stmt.value) and not any(name in _used([later]) for later in code[i + 1 :]):
                continue
            dead = False
            for later in code[i + 1 :]:
                if name in _used([later]):
                    break
                if isinstance(later, ast.Assign) and any(
                    isinstance(t, ast.Name) and t.id == name for t in later.targets
                ):
                    dead = name not in _used([later.value])
                    break
            if dead:
                continue
        out.append(stmt)
    return out


def _parametrize_values(
    fn: ast.AST, cls: ast.ClassDef | None, module: ast.Module, evidence: dict
) -> dict[str, ast.expr]:
    """param name -> the source expression of its value: the parametrize decorator's element
    at the collected index, else the plugin's repr when it parses."""
    indices = evidence.get("indices") or {}
    out: dict[str, ast.expr] = {}
    decorators = [*getattr(fn, "decorator_list", []), *(cls.decorator_list if cls is not None else [])]
    for deco in decorators:
        if not (isinstance(deco, ast.Call) and _callee(deco).endswith("parametrize") and len(deco.args) >= 2):
            continue
        names_node, values = deco.args[0], deco.args[1]
        if isinstance(names_node, ast.Constant) and isinstance(names_node.value, str):
            names = [n.strip() for n in names_node.value.split(",") if n.strip()]
        elif isinstance(names_node, (ast.Tuple, ast.List)):
            names = [e.value for e in names_node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
        else:
            continue
        if isinstance(values, ast.Name):
            values = _module_value(module, values.id)
        if not isinstance(values, (ast.List, ast.Tuple)) or not names or names[0] not in indices:
            continue
        index = indices[names[0]]
        if not 0 <= index < len(values.elts):
            continue
        element = values.elts[index]
        if isinstance(element, ast.Call) and _callee(element).endswith("param"):
            element = ast.Tuple(elts=list(element.args), ctx=ast.Load()) if len(names) > 1 else element.args[0]
        if len(names) == 1:
            out[names[0]] = element
        elif isinstance(element, (ast.Tuple, ast.List)) and len(element.elts) == len(names):
            out.update(zip(names, element.elts))
    for name, text in (evidence.get("params") or {}).items():
        if name not in out:
            try:
                out[name] = ast.parse(str(text), mode="eval").body
            except SyntaxError:
                continue
    return out


def _module_value(module: ast.Module, name: str) -> ast.expr | None:
    for node in module.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            return node.value
    return None


class _Rewrite(ast.NodeTransformer):
    """Substitute names by expressions and `self.attr` by `attr` (attributes set in setUp)."""

    def __init__(self, values: dict[str, ast.expr], self_attrs: set[str]):
        self.values, self.self_attrs = values, self_attrs
        self.renamed: set[str] = set()

    def visit_Name(self, node: ast.Name):
        if isinstance(node.ctx, ast.Load) and node.id in self.values:
            import copy

            return copy.deepcopy(self.values[node.id])
        return node

    def visit_Attribute(self, node: ast.Attribute):
        if isinstance(node.value, ast.Name) and node.value.id == "self" and node.attr in self.self_attrs:
            self.renamed.add(node.attr)
            return ast.copy_location(ast.Name(id=node.attr, ctx=node.ctx), node)
        return self.generic_visit(node)


def _plain_assert(stmt: ast.stmt) -> ast.stmt:
    """A unittest `self.assertX(...)` (statement or context manager) as plain Python."""
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
        call = stmt.value
        name = _callee(call).split(".")[-1]
        args = call.args
        test: ast.expr | None = None
        if name in _UNITTEST_OPS and len(args) >= 2:
            test = ast.Compare(left=args[0], ops=[_AST_OPS[_UNITTEST_OPS[name]]()], comparators=[args[1]])
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
        elif name == "assertRaises" and len(args) >= 2:
            body = ast.Expr(ast.Call(func=args[1], args=args[2:], keywords=call.keywords))
            return _raises_block(args[0], [body])
        if test is not None:
            plain = ast.Assert(test=test, msg=None)
            plain.sebgen_unittest = name  # how its failure message reads (`_unittest_compare`)
            return plain
    if isinstance(stmt, (ast.With, ast.AsyncWith)):
        items = []
        for item in stmt.items:
            expr = item.context_expr
            if isinstance(expr, ast.Call) and _callee(expr).split(".")[-1] in ("assertRaises", "assertRaisesRegex"):
                keywords = []
                if _callee(expr).endswith("Regex") and len(expr.args) >= 2:
                    keywords = [ast.keyword(arg="match", value=expr.args[1])]
                expr = ast.Call(
                    func=ast.Attribute(ast.Name("pytest", ast.Load()), "raises", ast.Load()),
                    args=expr.args[:1],
                    keywords=keywords,
                )
            items.append(ast.withitem(context_expr=expr, optional_vars=item.optional_vars))
        stmt.items = items
    return stmt


def _raises_block(exc: ast.expr, body: list[ast.stmt]) -> ast.With:
    func = ast.Attribute(ast.Name("pytest", ast.Load()), "raises", ast.Load())
    return ast.With(items=[ast.withitem(ast.Call(func=func, args=[exc], keywords=[]), None)], body=body)


def _fixture_defs(sources: list[ast.Module]) -> dict[str, ast.AST]:
    """name -> fixture function, nearest source first (the test module, then conftests)."""
    out: dict[str, ast.AST] = {}
    for tree in sources:
        for node in ast.walk(tree):
            if isinstance(node, _FUNCS) and node.name not in out:
                for deco in node.decorator_list:
                    target = deco.func if isinstance(deco, ast.Call) else deco
                    try:
                        text = ast.unparse(target)
                    except Exception:  # noqa: BLE001
                        continue
                    if text.endswith("fixture") and not _fixture_is_parametrized(deco):
                        out[node.name] = node
    return out


def _fixture_is_parametrized(deco: ast.expr) -> bool:
    return isinstance(deco, ast.Call) and any(k.arg == "params" for k in deco.keywords)


def _inline_fixture(name: str, fixture: ast.AST) -> list[ast.stmt] | None:
    """The fixture's statements with its `return x` / first `yield x` as `name = x`, or None
    for a fixture that needs `request` or ends without a value."""
    import copy

    args = [a.arg for a in fixture.args.args]
    if "request" in args and "request" in _used(fixture.body):
        return None
    out: list[ast.stmt] = []
    for stmt in fixture.body:
        if _is_docstring(stmt):
            continue
        value = None
        if isinstance(stmt, ast.Return):
            value = stmt.value
        elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, (ast.Yield, ast.YieldFrom)):
            value = stmt.value.value
        if value is not None or isinstance(stmt, ast.Return):
            out.append(
                ast.Assign(targets=[ast.Name(name, ast.Store())], value=copy.deepcopy(value or ast.Constant(None)))
            )
            return out
        out.append(copy.deepcopy(stmt))
    return None


def _bound(nodes) -> set[str]:
    out: set[str] = set()
    augmented = {id(n.target) for root in nodes for n in ast.walk(root) if isinstance(n, ast.AugAssign)}
    for root in nodes:
        for node in ast.walk(root):
            if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)) and id(node) not in augmented:
                out.add(node.id)
            elif isinstance(node, (*_FUNCS, ast.ClassDef)):
                out.add(node.name)
            if isinstance(node, (*_FUNCS, ast.Lambda)):
                a = node.args
                out |= {x.arg for x in [*a.posonlyargs, *a.args, *a.kwonlyargs]}
                out |= {x.arg for x in (a.vararg, a.kwarg) if x is not None}
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                out |= {(al.asname or al.name).split(".")[0] for al in node.names}
            elif isinstance(node, ast.ExceptHandler) and node.name:
                out.add(node.name)
            elif isinstance(node, (ast.Global, ast.Nonlocal)):
                out |= set(node.names)
    return out


def _used(nodes) -> set[str]:
    """Names read: loads, and the targets of `x += 1` (it reads x first)."""
    found = {n.id for root in nodes for n in ast.walk(root) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    found |= {
        n.target.id
        for root in nodes
        for n in ast.walk(root)
        if isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name)
    }
    return found


def _unbound(nodes) -> set[str]:
    import builtins

    return _used(nodes) - _bound(nodes) - set(dir(builtins)) - {"__file__"}


def _module_definitions(module: ast.Module, test_path: str) -> dict[str, ast.stmt]:
    """Top-level name -> the statement of the test module that defines it (one alias per import)."""
    package = ".".join(test_path.split("/")[:-1])
    out: dict[str, ast.stmt] = {}
    for node in module.body:
        if isinstance(node, ast.Import):
            for alias in node.names:
                out.setdefault((alias.asname or alias.name).split(".")[0], ast.Import(names=[alias]))
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".") if package else []
                parts = parts[: len(parts) - (node.level - 1)] if node.level > 1 else parts
                base = ".".join([*parts, *([base] if base else [])])
            for alias in node.names:
                if alias.name != "*":
                    out.setdefault(alias.asname or alias.name, ast.ImportFrom(module=base, names=[alias], level=0))
        elif isinstance(node, (*_FUNCS, ast.ClassDef)):
            out.setdefault(node.name, node)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                for n in ast.walk(t):
                    if isinstance(n, ast.Name):
                        out.setdefault(n.id, node)
        elif isinstance(node, ast.If):  # `if sys.version_info...: import x` / `try: import x`
            continue
    return out


def _lines(node: ast.AST) -> int:
    return (getattr(node, "end_lineno", None) or 0) - (getattr(node, "lineno", None) or 0) + 1


def explain_failure(
    source: str, test_id: str, evidence: dict, conftests: list[str] = (), repo_modules: set[str] = frozenset()
) -> dict:
    """What the statement writer needs from one failing test (the keys in the comment above)."""
    import copy

    module = ast.parse(source)
    cls, fn = _find_test(module, test_id)
    if fn is None:
        return {}
    lines = source.splitlines()
    line = evidence.get("line") if isinstance(evidence.get("line"), int) else None
    out: dict = {}
    if line is None or not (fn.lineno <= line <= (fn.end_lineno or fn.lineno)):
        line = None
    out["source"] = _source_lines(lines, fn.lineno, line or fn.end_lineno or fn.lineno)
    helpers = _asserting_helpers(module) | {  # and the test's own helpers that assert (`def ck(val, inv): assert ...`)
        n.name
        for n in ast.walk(fn)
        if isinstance(n, _FUNCS) and n is not fn and any(isinstance(x, ast.Assert) for x in ast.walk(n))
    }
    chain: list[ast.stmt] = []
    body = _trim(fn.body, line, helpers, chain) if line else []
    failing = chain[-1] if chain else None
    message = str(evidence.get("message") or "")
    etype = str(evidence.get("type") or "")
    escaped = etype not in ("", "AssertionError", "Failed") and not etype.endswith("AssertionError")
    if failing is not None and (message.startswith(("DID NOT RAISE", "DID NOT WARN")) or escaped):
        raising = [
            s for s in chain if isinstance(s, (ast.With, ast.AsyncWith)) and any(_is_check_context(i) for i in s.items)
        ]
        if raising:  # the check is the block that expected the exception (none came, or another one)
            failing = raising[-1]
            body = _trim(fn.body, failing.lineno, helpers, [])
    if failing is None:
        return out
    out["check"] = " ".join(lines[failing.lineno - 1].split()) if failing.lineno <= len(lines) else ""
    out["passed_checks"] = _passed_checks(fn, failing.lineno, helpers)[-6:]
    # the failing check as plain Python, the last statement of the snippet
    body = _replace_last(body, failing.lineno, _plain_assert)
    # parametrized values, fixtures, setUp attributes, module-level helpers
    values = _parametrize_values(fn, cls, module, evidence)
    args = [a.arg for a in [*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs]]
    fixtures = _fixture_defs([module, *[_safe_parse(c) for c in conftests]])
    prelude: list[ast.stmt] = []
    imports: list[str] = []
    self_attrs: set[str] = set()
    if cls is not None and "self" in args:
        setup = next((n for n in cls.body if isinstance(n, _FUNCS) and n.name in ("setUp", "setup_method")), None)
        if setup is not None:
            steps = [copy.deepcopy(s) for s in setup.body if not _is_docstring(s) and not _is_super_call(s)]
            self_attrs = {
                t.attr
                for s in steps
                for t in ast.walk(s)
                if isinstance(t, ast.Attribute)
                and isinstance(t.value, ast.Name)
                and t.value.id == "self"
                and isinstance(t.ctx, ast.Store)
            }
            prelude += steps
    substitute: dict[str, ast.expr] = {}
    assign: list[ast.stmt] = []
    for name in args:
        if name in ("self", "cls", "request"):
            continue
        if name in values:
            uses = sum(isinstance(n, ast.Name) and n.id == name for s in body for n in ast.walk(s))
            text = ast.unparse(values[name])
            if uses <= 1 and len(text) <= 60:
                substitute[name] = values[name]
            else:
                assign.append(ast.Assign(targets=[ast.Name(name, ast.Store())], value=copy.deepcopy(values[name])))
            continue
        if name in _BUILTIN_FIXTURES:
            extra, stmt_text = _BUILTIN_FIXTURES[name]
            imports += extra
            prelude += ast.parse(stmt_text).body
            continue
        fixture = fixtures.get(name)
        inlined = _inline_fixture_tree(name, fixture, fixtures, imports) if fixture is not None else None
        if inlined:
            prelude += inlined
    members = _class_members(cls) if cls is not None and "self" in args else {}
    rewrite = _Rewrite(substitute, self_attrs | set(members))
    code = [rewrite.visit(s) for s in [*prelude, *assign, *body]]
    # class attributes and helper methods the test reaches through `self`
    added: list[ast.stmt] = []
    for _ in range(3):
        todo = sorted(
            n for n in rewrite.renamed if n in members and n not in self_attrs and n not in _added_names(added)
        )
        if not todo:
            break
        for name in todo:
            member = copy.deepcopy(members[name])
            if isinstance(member, _FUNCS):
                member.args.args = [a for a in member.args.args if a.arg not in ("self", "cls")]
                member.decorator_list = []
                member = _PlainAsserts().visit(member)
            added.append(rewrite.visit(member))
    code = [*added, *code]
    # a `for` around the failing check: its variables at the failure instead of the loop
    code = _unroll_loops(code, evidence.get("locals") or {})
    code = [ast.fix_missing_locations(s) for s in _without_dead_stores(code)]
    definitions = _module_definitions(module, test_id.split("::")[0])
    for path, text in zip(_conftest_paths(test_id.split("::")[0]), conftests):  # what inlined fixtures use
        for name, stmt in _module_definitions(_safe_parse(text), path).items():
            definitions.setdefault(name, stmt)
    # what the test requires after the failing line: its checks; after a statement that raised
    # (not a failed check), every statement, since each must run without raising too
    raised = str(evidence.get("type") or "") not in ("", "AssertionError")
    rest = _rest_of_test(fn, failing, rewrite, statements=raised)
    passed = {
        " ".join(ast.unparse(_plain_assert(n)).split())
        for n in _own_nodes(fn)
        if isinstance(n, ast.stmt) and (n.end_lineno or n.lineno) < failing.lineno and _is_check(n, helpers)
    }
    rest = [
        r for r in rest if " ".join(ast.unparse(r).split()) not in passed
    ]  # a check that already passed: not repeated
    if not raised and not any(isinstance(n, ast.Assert) or _is_check(n) for r in rest for n in ast.walk(r)):
        rest = []
    head: list[ast.stmt] = []
    for _ in range(4):  # names the snippet (and the rest) use: imports, constants, helpers of the test's module
        missing = _unbound([*head, *code, *rest]) - {n for s in head for n in _bound([s])}
        new = [definitions[n] for n in sorted(missing) if n in definitions and definitions[n] not in head]
        if not new:
            break
        head += new
    head.sort(key=lambda s: (not isinstance(s, (ast.Import, ast.ImportFrom)), getattr(s, "lineno", 0)))
    if "pytest" in _unbound([*head, *code, *rest]) and not any("import pytest" == i for i in imports):
        imports.append("import pytest")
    if any(isinstance(n, (ast.Await, ast.AsyncFor, ast.AsyncWith)) for s in code for n in _own_walk(s)):
        code = _in_event_loop(code)  # top-level awaits: run them in an event loop
        if "asyncio" not in _bound(head) and "import asyncio" not in imports:
            imports.append("import asyncio")
    text_parts = [*dict.fromkeys(imports)]
    for stmt in head:  # comments and docstrings out: shorter, still whole
        text_parts.append(ast.unparse(_without_docstrings(stmt)))
    snippet_body = "\n".join(ast.unparse(s) for s in code)
    snippet = "\n".join(p for p in [*text_parts, snippet_body] if p.strip())
    out["reproduction"] = snippet
    out["long"] = len(snippet.splitlines()) > SNIPPET_LINES  # too long to quote: the writer describes it
    if isinstance(evidence.get("params"), dict):
        out["params"] = {k: _no_address(v) for k, v in evidence["params"].items()}
    try:
        out["unbound"] = sorted(_unbound([ast.parse(snippet)]))
    except SyntaxError:
        out["unbound"] = []
    last = next((n for s in code for n in ast.walk(s) if getattr(n, "sebgen_failing", False)), failing)
    out.update(_outcome(last, evidence, _bound(code) - _bound(head), _project_made(code, definitions, repo_modules)))
    if "\n" in str(out.get("call", "")):
        out["call"] = ""  # a block is no call to quote
    loop = [s for s in code for s in ast.walk(s) if isinstance(s, ast.For) and any(n is last for n in ast.walk(s))]
    target = loop[-1].target if loop else None
    if isinstance(target, ast.Name) and target.id != "_" and target.id in (evidence.get("locals") or {}):
        out["loop_value"] = f"{loop[-1].target.id} = {_no_address(evidence['locals'][loop[-1].target.id])}"
    then = _next_check(fn, failing, helpers)
    if then is not None and out.get("kind") == "error":  # what the test checks once the line runs
        then = ast.fix_missing_locations(rewrite.visit(_plain_assert(then)))
        if not _unbound([*head, *code, then]) - _unbound([*head, *code]):  # only with names the snippet binds
            out["then"] = ast.unparse(then)
    bound_by_imports = {i.split()[-1].split(".")[0] for i in imports}
    if rest and not _unbound([*head, *code, *rest]) - _unbound([*head, *code]) - bound_by_imports:
        text = "\n".join(ast.unparse(s) for s in rest)
        if text.count("\n") < REST_LINES:
            out["rest"] = text
    out["function"] = _public_function(code, last, definitions, repo_modules)
    return out


REST_LINES = 16


def _rest_of_test(fn: ast.AST, failing: ast.stmt, rewrite: _Rewrite, statements: bool = False) -> list[ast.stmt]:
    """What the test does after the failing statement (it never ran on the buggy code): the
    statements that follow it in its block and in each enclosing block, as plain Python. The
    checks among them are requirements too; none when there is no check among them (unless
    `statements`: then running them is the requirement)."""
    import copy

    end = failing.end_lineno or failing.lineno
    after: list[ast.stmt] = []
    for block in _blocks_holding(fn, failing):
        after += [s for s in block if s.lineno > end and not _is_docstring(s)]
        end = max([end, *[s.end_lineno or s.lineno for s in block if s.lineno <= end]])
    after.sort(key=lambda s: s.lineno)
    if not after or (
        not statements and not any(_is_check(n) or isinstance(n, ast.Assert) for s in after for n in ast.walk(s))
    ):
        return []
    converted = [_PlainAsserts().visit(ast.Module(body=[copy.deepcopy(s) for s in after], type_ignores=[])).body]
    return [ast.fix_missing_locations(rewrite.visit(_plain_assert(s))) for s in converted[0]]


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
        if isinstance(stmt, (*_FUNCS, ast.ClassDef)):
            out.add(stmt.name)
        elif isinstance(stmt, ast.Assign):
            out |= {t.id for t in stmt.targets if isinstance(t, ast.Name)}
    return out


def _class_members(cls: ast.ClassDef) -> dict[str, ast.stmt]:
    """Class attributes (as `name = value`) and helper methods of a test class, by name."""
    out: dict[str, ast.stmt] = {}
    for node in cls.body:
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    out[target.id] = ast.Assign(targets=[ast.Name(target.id, ast.Store())], value=node.value)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
            out[node.target.id] = ast.Assign(targets=[ast.Name(node.target.id, ast.Store())], value=node.value)
        elif isinstance(node, _FUNCS) and not node.name.startswith("test") and node.name not in _LIFECYCLE:
            if not any(_callee_text(d).endswith("fixture") for d in node.decorator_list):
                out[node.name] = node
    return out


_LIFECYCLE = ("setUp", "tearDown", "setup_method", "teardown_method", "setUpClass", "tearDownClass")


def _callee_text(node: ast.expr) -> str:
    try:
        return ast.unparse(node.func if isinstance(node, ast.Call) else node)
    except Exception:  # noqa: BLE001
        return ""


class _PlainAsserts(ast.NodeTransformer):
    """unittest `self.assertX(...)` statements of a helper as plain asserts."""

    def generic_visit(self, node):
        super().generic_visit(node)
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            if isinstance(block, list):
                setattr(node, field, [_plain_assert(s) if isinstance(s, (ast.Expr, ast.With)) else s for s in block])
        return node


def _own_walk(node: ast.AST):
    """ast.walk without descending into nested functions (their awaits are their own)."""
    todo = [node]
    while todo:
        current = todo.pop()
        yield current
        for child in ast.iter_child_nodes(current):
            if not isinstance(child, (*_FUNCS, ast.Lambda, ast.ClassDef)):
                todo.append(child)


def _in_event_loop(code: list[ast.stmt]) -> list[ast.stmt]:
    main = ast.AsyncFunctionDef(
        name="main", args=ast.arguments([], [], None, [], [], None, []), body=code, decorator_list=[], returns=None
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
    import copy

    end = failing.end_lineno or failing.lineno
    later = [n for n in ast.walk(fn) if isinstance(n, ast.stmt) and n.lineno > end and _is_check(n, helpers)]
    return copy.deepcopy(min(later, key=lambda n: n.lineno)) if later else None


def _without_docstrings(node: ast.AST) -> ast.AST:
    import copy

    node = copy.deepcopy(node)
    for inner in ast.walk(node):
        body = getattr(inner, "body", None)
        if isinstance(inner, (*_FUNCS, ast.ClassDef)) and isinstance(body, list) and body and _is_docstring(body[0]):
            inner.body = body[1:] or [ast.Pass()]
    return node


def _safe_parse(text: str) -> ast.Module:
    try:
        return ast.parse(text)
    except (SyntaxError, ValueError):
        return ast.Module(body=[], type_ignores=[])


def _is_super_call(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and "super(" in ast.unparse(stmt.value)


def _inline_fixture_tree(name: str, fixture: ast.AST, fixtures: dict, imports: list[str], depth: int = 0):
    if depth > 3:
        return None
    steps: list[ast.stmt] = []
    for arg in [a.arg for a in fixture.args.args]:
        if arg in _BUILTIN_FIXTURES:
            extra, stmt_text = _BUILTIN_FIXTURES[arg]
            imports += extra
            steps += ast.parse(stmt_text).body
        elif arg in fixtures and arg != name:
            inner = _inline_fixture_tree(arg, fixtures[arg], fixtures, imports, depth + 1)
            if inner is None:
                return None
            steps += inner
        elif arg not in ("self", "cls", "request"):
            return None
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


def _unroll_loops(code: list[ast.stmt], local_values: dict) -> list[ast.stmt]:
    """A `for x in ...:` holding the failing check becomes `x = <its value at the failure>`
    followed by the loop body, when the value's repr is Python."""
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
        if first is None or ast.unparse(first) != ast.unparse(target_value):
            return code  # a later pass fails: the earlier ones matter, the loop stays
        if isinstance(last.target, ast.Name):
            assigns = [ast.Assign(targets=[ast.Name(names[0], ast.Store())], value=values[names[0]])]
        else:
            assigns = [ast.Assign(targets=[ast.Name(n, ast.Store())], value=values[n]) for n in names]
        return [*code[:-1], *assigns, *_unroll_loops(last.body, local_values)]
    if isinstance(last, (ast.With, ast.AsyncWith, ast.If, ast.While)) and isinstance(getattr(last, "body", None), list):
        last.body = _unroll_loops(last.body, local_values)
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
    for node in _own_nodes(fn):
        if isinstance(node, ast.stmt) and (node.end_lineno or node.lineno) < line:
            if isinstance(node, (ast.With, ast.AsyncWith)) and any(i.optional_vars is not None for i in node.items):
                continue
            if not on_the_path(fn, node, line):
                continue  # a branch the run did not take (the `except` of a `try` whose `else` failed)
            if _is_check(node, helpers):
                text = ast.unparse(node).splitlines()[0] if not isinstance(node, ast.Assert) else ast.unparse(node)
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


def _literal(node: ast.expr) -> bool:
    try:
        ast.literal_eval(node)
        return True
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return False


def _first_line(text: str, limit: int = 200) -> str:
    first = next((ln.strip() for ln in str(text).splitlines() if ln.strip()), "")
    return first if len(first) <= limit else first[: limit - 4] + " ..."


_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


def _no_address(text: str) -> str:
    """A repr without its memory address (`<Future at 0x7f...>`): it differs on every run."""
    return _ADDRESS.sub("", str(text))


def _outcome(
    stmt: ast.stmt, evidence: dict, local_names: set[str] = frozenset(), project_made: set[str] = frozenset()
) -> dict:
    """kind, call, op, observed, expected, exact and error of the failing check."""
    etype = str(evidence.get("type") or "")
    message = _no_address(evidence.get("message") or "")
    if isinstance(evidence.get("compare"), dict):
        evidence = {**evidence, "compare": {k: _no_address(v) for k, v in evidence["compare"].items()}}
    elif getattr(stmt, "sebgen_unittest", None):
        found = _unittest_compare(stmt.sebgen_unittest, message)
        if found:
            evidence = {**evidence, "compare": found}
    compare = evidence.get("compare") if isinstance(evidence.get("compare"), dict) else None
    escaped = etype not in ("AssertionError", "Failed", "") and not etype.endswith("AssertionError")
    out: dict = {"error": f"{etype}: {_first_line(message)}".rstrip(": ") if escaped else ""}
    if isinstance(stmt, (ast.With, ast.AsyncWith)) and any(_is_check_context(i) for i in stmt.items):
        item = next(i for i in stmt.items if _is_check_context(i))
        call = item.context_expr
        expected = ast.unparse(call.args[0]) if call.args else "an exception"
        match = next((k.value for k in call.keywords if k.arg == "match"), None)
        inner = stmt.body[-1] if stmt.body else None
        out.update(
            kind="raises",
            call=ast.unparse(inner.value if isinstance(inner, ast.Expr) else inner) if inner is not None else "",
            expected=expected,
            match=ast.literal_eval(match) if match is not None and _literal(match) else "",
            warns="warn" in _callee(call).lower() or "deprecated" in _callee(call).lower(),
            observed=out["error"] or ("no exception" if "DID NOT" in message else _first_line(message)),
        )
        return out
    if isinstance(stmt, ast.Assert):
        test = stmt.test
        if isinstance(test, ast.Compare):
            left, op, right = _failing_pair(test, compare)

            def constant(
                node: ast.expr,
            ) -> bool:  # a literal, or a name the test does not compute (`int`, `ValueError`)
                return _literal(node) or (
                    isinstance(node, (ast.Name, ast.Attribute)) and not (_used([node]) & local_names)
                )

            swap = op in ("in", "not in") or (constant(left) and not constant(right))
            if not swap and op in ("==", "!=") and not constant(left) and not constant(right):
                swap = bool(_used([right]) & project_made) and not (_used([left]) & project_made)
            computed, wanted = (right, left) if swap else (left, right)
            observed = ""
            if compare and compare.get("op") == op:
                observed = compare.get("right" if swap else "left", "")
            wanted_text = ast.unparse(wanted)
            computed_value = not _literal(wanted) and bool(_used([wanted]) & local_names)  # a test variable
            if computed_value and compare and compare.get("op") == op:
                wanted_text = compare.get("left" if swap else "right", wanted_text)
            exact = isinstance(wanted, ast.Constant) and isinstance(wanted.value, str) and op in ("==", "in")
            out.update(kind="compare", call=ast.unparse(computed), op=op, observed=observed, expected=wanted_text)
            out["exact"] = exact
            if out["error"]:
                out["observed"] = out["error"]
            return out
        if isinstance(test, ast.Constant) and not test.value and not out["error"]:  # `assert False, "..."`
            note = _message_text(stmt.msg) or _first_line(message)
            out.update(kind="fail", call="", observed=note, expected="")
            return out
        negated = isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not)
        target = test.operand if negated else test
        observed = out["error"] or _truthy_value(message)
        out.update(kind="truthy", call=ast.unparse(target), expected="false" if negated else "true", observed=observed)
        return out
    call = stmt.value if isinstance(stmt, (ast.Expr, ast.Assign, ast.AnnAssign, ast.AugAssign)) else stmt
    if isinstance(stmt, (ast.Assign, ast.AugAssign)) and not all(
        isinstance(t, ast.Name) for t in (stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target])
    ):
        call = stmt  # setting an attribute or an item is the action that fails
    text = ast.unparse(call) if call is not None else ast.unparse(stmt)
    if compare and isinstance(call, ast.Call):  # a helper's assert: its computed argument
        computed = [a for a in call.args if not _literal(a)]
        text = ast.unparse(computed[0]) if computed else text
    if compare:  # a helper that asserted: its comparison
        out.update(
            kind="compare",
            call=text,
            op=compare.get("op", "=="),
            observed=compare.get("left", ""),
            expected=compare.get("right", ""),
            exact=str(compare.get("right", "")).startswith(("'", '"')),
        )
        return out
    if not out["error"] and isinstance(call, ast.Call):  # a helper that asserted: its own message
        out.update(kind="helper", call=text, observed=_first_line(_no_address(message)), expected="")
        return out
    out.update(
        kind="error" if out["error"] else "truthy",
        call=text,
        observed=out["error"] or _first_line(message),
        expected="",
    )
    return out


_UNITTEST_MESSAGES = {  # assertion -> (op of the plain assert, how unittest's message joins the two values)
    "assertEqual": ("==", " != "),
    "assertEquals": ("==", " != "),
    "assertListEqual": ("==", " != "),
    "assertDictEqual": ("==", " != "),
    "assertTupleEqual": ("==", " != "),
    "assertNotEqual": ("!=", " == "),
    "assertIs": ("is", " is not "),
    "assertIsNot": ("is not", " is "),
    "assertIn": ("in", " not found in "),
    "assertNotIn": ("not in", " unexpectedly found in "),
}


def _unittest_compare(name: str, message: str) -> dict | None:
    """{op, left, right} from a unittest failure message ("(1,) != None")."""
    op, joint = _UNITTEST_MESSAGES.get(name, ("", ""))
    first = next((ln for ln in message.splitlines() if ln.strip()), "")
    first = first.split(" : ")[0]  # unittest appends the custom message after " : "
    first = re.sub(r"^\w+ differ: ", "", first)  # "Lists differ: [1] != [2]"
    if not joint or first.count(joint) != 1:
        return None
    left, right = first.split(joint)
    return {"op": op, "left": left.strip(), "right": right.strip()}


def _message_text(node: ast.expr | None) -> str:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return ast.unparse(node) if node is not None else ""


def _truthy_value(message: str) -> str:
    """`False`, or `False (where False = isinstance(None, EOFError))` from pytest's explanation."""
    value, where = "", ""
    for ln in message.splitlines():
        ln = ln.strip()
        if not value and ln.startswith("assert "):
            value = ln[len("assert ") :][:120]
        elif value and not where and ln.startswith("+") and "where" in ln:
            where = ln.lstrip("+ ").strip()[:160]
    return f"{value} ({where})" if where else value


def _failing_pair(test: ast.Compare, compare: dict | None) -> tuple[ast.expr, str, ast.expr]:
    """The (left, op, right) of a (chained) comparison that failed: the pair whose literal
    matches what pytest reported, else the first."""
    operands = [test.left, *test.comparators]
    pairs = [(operands[i], _OP_TEXT.get(type(op), "=="), operands[i + 1]) for i, op in enumerate(test.ops)]
    if compare and len(pairs) > 1:
        for left, op, right in pairs:
            if op != compare.get("op"):
                continue
            for node, side in ((left, "left"), (right, "right")):
                if _literal(node) and ast.unparse(node) == str(compare.get(side, "")):
                    return left, op, right
    return next((p for p in pairs if _literal(p[0]) or _literal(p[2])), pairs[0])


def _project_made(code: list[ast.stmt], definitions: dict, repo_modules: set[str]) -> set[str]:
    """Snippet names whose value comes from the project's code (assigned from an expression
    that uses a project name or another such name)."""
    project = {
        name
        for name, stmt in definitions.items()
        if isinstance(stmt, (ast.Import, ast.ImportFrom))
        and ((getattr(stmt, "module", None) or stmt.names[0].name).split(".")[0] in repo_modules)
    } | set(repo_modules)
    made = set(project)
    for _ in range(3):
        for stmt in code:
            for node in ast.walk(stmt):
                if isinstance(node, ast.Assign) and _used([node.value]) & made:
                    made |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    return made - project


def _public_function(code: list[ast.stmt], last: ast.stmt, definitions: dict, repo_modules: set[str]) -> str:
    """The project callable the failing check exercises: the outermost call in it that reaches
    the project (a name the test imports from the project, a project module, or a method of a
    value the snippet built with the project's code); else the last such call before it."""

    def project(root: str) -> bool:
        stmt = definitions.get(root)
        if root in repo_modules:
            return True
        if isinstance(stmt, ast.ImportFrom):
            return (stmt.module or "").split(".")[0] in repo_modules
        if isinstance(stmt, ast.Import):
            return stmt.names[0].name.split(".")[0] in repo_modules
        return False

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
            elif isinstance(node, (*_FUNCS, ast.ClassDef)) and any(project(root_of(d)) for d in node.decorator_list):
                built[node.name] = ""

    def name_of(call: ast.Call) -> str:
        func = call.func
        while isinstance(func, ast.Call):  # `f(x)()`: the call that makes the callable
            func = func.func
        root = root_of(func)
        if project(root):
            return ast.unparse(func)
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
