"""What the statement writer is told about a task: the commit's text, the touched functions'
signatures as the solver reads them, the failing tests and their checks, the fix's added lines.

The same context goes to the offline writer and to a real model (`tasks.prompt` renders it).
"""

from __future__ import annotations

import ast
import re
from dataclasses import replace

import git
from unidiff import PatchSet, UnidiffParseError

from environment import JS_LANGUAGE, language_named, language_of_test
from llm import patch_added_lines, patch_removed_lines, patch_sections, unparse
from records import FailureEvidence, Task, file_of_test, function_of_test, parameter_id
from sandbox import shown_name
from tasks.evidence import js as js_evidence
from tasks.evidence.python import is_check, own_nodes, test_intent
from tasks.evidence.repo import file_at
from tasks.mining import Candidate
from tasks.strategy import Strategy

MESSAGE_CHARS = 400  # of the runner's failure message, in the writer's evidence


def defined_functions(source: str) -> set[str]:
    """Every def/class name in `source` (methods included)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set()
    return {n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}


def touched_signatures(candidate: Candidate) -> list[dict]:
    """Signatures as the solver will read them: from the buggy state (the parent), since the
    fixed line may be part of the fix; a function the change adds, from the fixed state."""

    def at(sha: str) -> dict[str, str]:
        return {p: file_at(candidate.repo_path, sha, p) for p in candidate.source_files}

    read = js_signatures if candidate.language == JS_LANGUAGE.name else signatures
    found = read(at(candidate.parent), candidate.touched_functions) if candidate.parent else []
    missing = [n for n in candidate.touched_functions if n not in {f["name"] for f in found}]
    return found + (read(at(candidate.sha), missing) if missing else [])


def moved_out(added: list[str], patch: str) -> list[str]:
    """The added lines that carry something: not blank, and not a line the change also removes
    (a definition it only moves to another module is nothing the fix adds)."""
    removed = {" ".join(line.split()) for line in patch_removed_lines(patch)}
    return [line for line in added if line.strip() and " ".join(line.split()) not in removed]


def new_interfaces(candidate: Candidate) -> list[dict]:
    """The callables the change adds, and those whose parameters it extends, as the fixed
    state defines them: [{"file", "name", "kind", "signature", "new_parameters"}] (`name` a
    qualified name, `Class.method`; `kind` "class" or "function"; a class by its constructor's
    parameters; `new_parameters` the added
    parameters' texts by name, `{"style": "style: str = 'numpy'"}`). What a request for a new name
    or argument specifies beyond the tests' examples: how to call it."""
    if candidate.language != "python" or not candidate.parent:
        return []
    out = []
    # what any changed file had before: a class moved to another module (dirty-equals' `IsInstance`
    # into `_inspection.py`) is not new
    before: dict[str, tuple[str, dict[str, str]]] = {}
    for path in candidate.source_files:
        before.update(_callables(file_at(candidate.repo_path, candidate.parent, path) or ""))
    for path in candidate.source_files:
        kinds = _kinds(file_at(candidate.repo_path, candidate.sha, path) or "")
        for name, (signature, parameters) in _callables(
            file_at(candidate.repo_path, candidate.sha, path) or ""
        ).items():
            added = {} if name not in before else {p: t for p, t in parameters.items() if p not in before[name][1]}
            if name not in before or added:
                kind = "class" if kinds.get(name) == "class" else "function"
                out.append({"file": path, "name": name, "kind": kind, "signature": signature, "new_parameters": added})
    return out


def _parameter(arg: ast.arg, default: ast.expr | None) -> str:
    """A parameter as PEP 8 writes it: `x`, `x=1`, `x: int`, `x: int = 1`."""
    text = arg.arg + (f": {ast.unparse(arg.annotation)}" if arg.annotation is not None else "")
    if default is None:
        return text
    return text + (" = " if arg.annotation is not None else "=") + ast.unparse(default)


def _call_signature(name: str, fn: ast.FunctionDef | ast.AsyncFunctionDef, bound: bool) -> tuple[str, dict[str, str]]:
    """`name(params)` as a caller writes the call (no `self` when `bound`), and each parameter's text by name."""
    args = fn.args
    positional = [*args.posonlyargs, *args.args]
    defaults = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
    parts: list[tuple[str, str]] = [(a.arg, _parameter(a, d)) for a, d in zip(positional, defaults)]
    if args.posonlyargs:
        parts.insert(len(args.posonlyargs), ("", "/"))
    if bound and positional:  # `self` / `cls` is not passed by a caller
        parts.pop(0)
    if args.vararg is not None:
        parts.append(("", "*" + _parameter(args.vararg, None)))
    elif args.kwonlyargs:
        parts.append(("", "*"))
    parts += [(a.arg, _parameter(a, d)) for a, d in zip(args.kwonlyargs, args.kw_defaults)]
    if args.kwarg is not None:
        parts.append(("", "**" + _parameter(args.kwarg, None)))
    return f"{name}({', '.join(text for _, text in parts)})", {n: text for n, text in parts if n}


def _kinds(source: str) -> dict[str, str]:
    """Top-level name -> "class" or "function" of a module's definitions."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return {}
    return {
        n.name: "class" if isinstance(n, ast.ClassDef) else "function"
        for n in tree.body
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
    }


def _is_dataclass(node: ast.ClassDef) -> bool:
    """Decorated `@dataclass` / `@dataclasses.dataclass(...)` / attrs' `@define` / `@attr.s(auto_attribs=True)`."""
    for deco in node.decorator_list:
        name = ast.unparse(deco.func if isinstance(deco, ast.Call) else deco)
        if name.split(".")[-1] in ("dataclass", "define", "frozen", "mutable", "s", "attrs"):
            return True
    return False


def _callables(source: str) -> dict[str, tuple[str, dict[str, str]]]:
    """Qualified name -> (its call signature, its parameters' texts by name) of the module's top-level
    functions and classes and the classes' methods; a class is called as its `__init__`."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return {}
    out: dict[str, tuple[str, dict[str, str]]] = {}

    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            out[node.name] = _call_signature(node.name, node, bound=False)
        elif isinstance(node, ast.ClassDef):
            methods = [n for n in node.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
            init = next((m for m in methods if m.name == "__init__"), None)
            if init is not None:
                out[node.name] = _call_signature(node.name, init, bound=True)
            elif _is_dataclass(node):  # called with its fields
                fields = [s for s in node.body if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)]
                texts = {f.target.id: _parameter(ast.arg(f.target.id, f.annotation), f.value) for f in fields}
                out[node.name] = (f"{node.name}({', '.join(texts.values())})", texts)
            else:
                bases = ", ".join(ast.unparse(b) for b in node.bases)
                out[node.name] = (f"class {node.name}({bases})" if bases else f"class {node.name}", {})
            for method in methods:
                if method.name != "__init__":
                    static = any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in method.decorator_list)
                    qualname = f"{node.name}.{method.name}"  # `Result.or_die()`: whose method it is
                    out[qualname] = _call_signature(qualname, method, bound=not static)
    return out


def statement_context(task: Task, candidate: Candidate, strategy: Strategy) -> dict:
    """The one context the statement writer gets (the offline writer reads it; `tasks.prompt`
    renders it for a real model). Keys, each of which may be trimmed away:

    - "task", "strategy_type", "repo": what to write, for which strategy and project;
    - "commit_subject", "commit_body", "pr_title", "pr_body", "issues", "created_at": the
      change's own text (PR title and body when a pull request brought it in; issue numbers
      it cites, which the solver cannot read);
    - "touched_functions": [{"file", "name", "signature"}] of the functions the fix touches,
      signatures as the buggy state has them;
    - "new_interfaces": [{"file", "name", "signature", "new_parameters"}] of the callables
      the fix adds or gives new parameters, as the fixed state has them (`new_interfaces`);
    - "failing_tests": [{"id", "assertion", "added_lines", "intent"?}]: each FAIL_TO_PASS test, its
      checks that the change added (`failing_tests`) and its lines the change added;
    - "failures": [records.FailureEvidence] per FAIL_TO_PASS test, how it fails on the buggy
      state, from the functional layer's run (`tasks.evidence`; `writer_failures`); empty
      before that layer ran;
    - "added_lines": the gold patch's added Python lines (for the leak filter; never shown);
    - "test_inputs": [{"path", "diff", "omitted"}] of the files the failing tests read that change
      with them (`changed_test_inputs`); "test_data": the paths of those the solver's tree already
      has (`data_files_in_tree`);
    - "language": "javascript" for a JS/TS task (its writer quotes JS); absent for Python, whose
      context stays as it was before languages were told apart.
    """
    read = _read_by_failing_tests(candidate, task)  # the tests' files, read once for both
    context = {
        "task": "write_statement",
        "strategy_type": strategy.strategy_type.value,
        "repo": shown_name(candidate.repo),  # the prose's name for it; ids keep the root commit
        "commit_subject": candidate.subject,
        "commit_body": candidate.body,
        "pr_title": candidate.pr_title,  # the pull request that brought the commit in, if any
        "pr_body": candidate.pr_body,
        "issues": candidate.issues,
        "created_at": candidate.created_at,
        "touched_functions": touched_signatures(candidate),
        "new_interfaces": new_interfaces(candidate),
        "failing_tests": (js_failing_tests if candidate.language == JS_LANGUAGE.name else failing_tests)(
            candidate, task.FAIL_TO_PASS, test_patch=task.test_patch
        ),
        "failures": writer_failures(task),
        "added_lines": moved_out(patch_added_lines(code_part(task.patch, candidate.language)), task.patch),
        "test_inputs": changed_test_inputs(candidate, task, read),
        "test_data": data_files_in_tree(candidate, task, read),
    }
    if candidate.language != "python":
        context["language"] = candidate.language
    return context


TEST_INPUT_LINES = 80  # diff lines of the tests' input files a statement shows, at most
# a module of tests by its name (a snapshot or a data file named after its test is input)
_TEST_MODULE_NAME = re.compile(r"^(?:test_.*|.*_test|.*\.(?:test|spec))\.(?:py|[cm]?js|jsx|ts|tsx)$")


def changed_test_inputs(candidate: Candidate, task: Task, read=None) -> list[dict]:
    """The files the failing tests read that change with them: flake8-bugbear's
    `tests/eval_files/b902.py` (the code its checker must report on, with the expected codes in
    comments). They are in the withheld test patch, so the solver's tree has their old content
    and a snippet reading them passes there. Their hunks, at most TEST_INPUT_LINES lines in all;
    `omitted` counts the lines left out."""
    try:
        files = [f for f in PatchSet(task.test_patch or "") if not f.is_removed_file]
    except UnidiffParseError:
        return []
    read = read or _read_by_failing_tests(candidate, task)
    out, room = [], TEST_INPUT_LINES
    for patched in files:
        if not read(patched.path):
            continue
        lines = "".join(str(hunk) for hunk in patched).splitlines()
        shown = lines[: max(room, 0)]
        room -= len(shown)
        if shown:
            out.append({"path": patched.path, "diff": "\n".join(shown), "omitted": len(lines) - len(shown)})
    return out


def data_files_in_tree(candidate: Candidate, task: Task, read=None) -> list[str]:
    """The files the failing tests read that the change adds or edits outside both patches:
    mdit-py-plugins' `tests/fixtures/subscript.md` (the cases a new plugin must render) and a
    recorded `tests/test_attrs/test_attrs_allowed.yml`. The solver's tree has them at the fixed
    state, so a statement can point at them: they say what the tests expect."""
    if not candidate.parent:
        return []
    try:
        changed = git.Repo(candidate.repo_path).git.diff("--name-only", candidate.parent, candidate.sha).splitlines()
    except git.GitCommandError:
        return []
    patched = set(re.findall(r"^diff --git a/\S+ b/(\S+)", f"{task.patch}\n{task.test_patch}", re.M))
    read = read or _read_by_failing_tests(candidate, task)
    return [path for path in changed if path not in patched and read(path)]


def _read_by_failing_tests(candidate: Candidate, task: Task):
    """A predicate: the path is a file the failing tests read, by its name: a failing test's id
    names its stem (`test_eval[B902]` -> `b902.py`, a snapshot named after its test) or a failing
    test's file its whole name (`FIXTURE_PATH.joinpath("subscript.md")`), and it is no test
    module, conftest or package marker (set-up, not input)."""
    own = {file_of_test(t) for t in task.FAIL_TO_PASS}
    # what an id names: its test, its case and the case's pieces (dateparser's `docs/settings.rst`
    # is no input of `test_check_settings_17_...`, though "settings" is in that id)
    ids = {
        name.lower()
        for t in task.FAIL_TO_PASS
        for name in (function_of_test(t), function_of_test(t).removeprefix("test_"), *_case_names(t))
        if name
    }
    sources = " ".join(file_at(candidate.repo_path, candidate.sha, f) for f in own)

    def read(path: str) -> bool:
        name = path.rsplit("/", 1)[-1]
        stem = name.rsplit(".", 1)[0].lower()
        if path in own or name in ("conftest.py", "__init__.py") or _TEST_MODULE_NAME.match(name):
            return False
        return (len(stem) >= 3 and stem in ids) or (len(name) >= 5 and name in sources)

    return read


def _case_names(test_id: str) -> list[str]:
    """A parametrize id and its `-`-joined pieces (`B902`, `py-3` -> `py`, `3`)."""
    case = parameter_id(test_id)
    return [case, *case.split("-")] if case else []


def writer_failures(task: Task) -> list[FailureEvidence]:
    """The derived failure evidence of each FAIL_TO_PASS test, as the writer reads it: the
    runner's message cut; the runner's error type, phase and line and the test's own source
    lines, which the reproduction and the check already say, left out, and so is the snippet's
    primed way (the reproduction check's to try). A JS/TS test keeps its
    lines when it has no reproduction: they are what shows the failing check's context (a check
    in a helper, a value set up by the test)."""
    return [
        replace(
            f,
            message=(f.message or "")[:MESSAGE_CHARS],
            error_type=None,
            phase=None,
            line=None,
            primed=None,
            source=f.source if _keeps_source(f) else None,
        )
        for f in task.failure_evidence()
        if f.derived
    ]


def _keeps_source(f: FailureEvidence) -> bool:
    language = language_of_test(f.test_id)
    return language is not None and language.name == JS_LANGUAGE.name and not f.reproduction


def code_part(patch: str, language: str = "python") -> str:
    """The file sections of a git diff that change the language's code files."""
    owns = language_named(language).owns
    return patch_sections(patch, owns) if "diff --git " in patch else ""


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
                if not isinstance(node, ast.ClassDef) and line.count("(") > line.count(")"):
                    # parameters over several lines: the whole signature, not `def generateBaseline(`
                    returns = f" -> {ast.unparse(node.returns)}" if node.returns is not None else ""
                    line = f"def {_call_signature(node.name, node, bound=False)[0]}{returns}"
                found.append({"file": path, "name": node.name, "signature": line})
    return found


def failing_tests(candidate: Candidate, test_ids: list[str], per_test: int = 2, test_patch: str = "") -> list[dict]:
    """Each failing test with its most telling checks (those on lines `test_patch` adds: the
    assertions the change made fail; all of them for a test it does not touch) and the lines
    the change adds to it."""
    added = added_line_numbers(test_patch)
    out = []
    for test_id in test_ids:
        path, name = file_of_test(test_id), function_of_test(test_id)
        source = file_at(candidate.repo_path, candidate.sha, path)
        found = assertions(source, name, lines=True)
        new_lines = added_test_lines(source, name, added.get(path, set()))
        if new_lines:  # the change's own checks; an older assert of the test also passed before it
            found = [item for item in found if item[0] & added.get(path, set())]
        found.sort(key=lambda item: (not (item[0] & added.get(path, set())), min(item[0], default=0)))
        entry = {"id": test_id, "assertion": " | ".join(text for _, text in found[:per_test]), "added_lines": new_lines}
        intent = test_intent(function_lines(source, name))
        if intent and _described_by_change(source, name, added.get(path, set())):
            entry["intent"] = intent  # the test's own words on what it requires
        out.append(entry)
    return out


def function_lines(source: str, function: str) -> list[str]:
    """The lines of test `function` in `source` (from its `def`), [] when it is not there."""
    node = _function_node(source, function)
    return source.splitlines()[node.lineno - 1 : node.end_lineno or node.lineno] if node else []


def _function_node(source: str, function: str) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The first `def function` in `source`, None when it is not there or the source does not parse."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == function:
            return node
    return None


def _described_by_change(source: str, function: str, added: set[int]) -> bool:
    """The change wrote test `function`'s description (its docstring, else the comment its body
    opens with): an older test's words describe what it checked before (prompt-toolkit's class
    combination test, which the change extended with a `dim` attribute, is "about class 'a' and 'b'")."""
    node = _function_node(source, function)
    if node is None or not node.body:
        return False
    first = node.body[0]
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
        lines = range(first.lineno, (first.end_lineno or first.lineno) + 1)
    else:  # the opening comment: between the signature and the first statement
        lines = range(node.lineno + 1, first.lineno)
    return bool(added.intersection(lines))


def added_test_lines(source: str, function: str, added: set[int], limit: int = 12) -> list[str]:
    """The statements of test `function` that the change adds to (whole, dedented, without its
    docstring, up to `limit` lines): what the test now does, a reproduction when its assertions
    alone say little."""
    node = _function_node(source, function)
    if node is None:
        return []
    lines = source.splitlines()
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
                for inner in own_nodes(node)
                if is_check(inner)
            ]
            found = [(span, text) for span, text in found if text and len(text) <= limit]
            return found if lines else [text for _, text in found]
    return []


def _one_line(node: ast.AST) -> str:
    if isinstance(node, ast.With):
        head = ", ".join(unparse(i.context_expr) for i in node.items)
        first = unparse(node.body[0]).splitlines()[0] if node.body else "pass"
        return f"with {head}: {first}"
    return " ".join(unparse(node).split())


def repo_context(candidate: Candidate) -> str:
    readme = file_at(candidate.repo_path, candidate.sha, "README.md")[:400]
    files = git.Repo(candidate.repo_path).git.ls_tree("-r", "--name-only", candidate.sha).splitlines()
    if candidate.language == JS_LANGUAGE.name:
        sources = [f for f in files if JS_LANGUAGE.is_source_path(f)][:30]
        return f"Repository {candidate.repo}.\n{readme}\nJavaScript/TypeScript files: {', '.join(sources)}"
    python_files = [f for f in files if f.endswith(".py")][:30]
    return f"Repository {candidate.repo}.\n{readme}\nPython files: {', '.join(python_files)}"


# ---------------------------------------------------------------- JavaScript/TypeScript

_JS_DEFINITIONS = ("function_declaration", "generator_function_declaration", "class_declaration", "method_definition")


def js_signatures(sources: dict[str, str], names: list[str]) -> list[dict]:
    """`signatures` for JS/TS: the first line of each function, class, method or function-valued
    `const` named in `names`, up to its body."""
    found = []
    for path, text in sorted(sources.items()):
        if not text:
            continue
        lines = text.splitlines()
        for node in js_evidence.walk_nodes(js_evidence.parse(text, path).root_node):
            name = None
            if node.type in _JS_DEFINITIONS:
                name = node.child_by_field_name("name")
            elif node.type == "variable_declarator":
                value = node.child_by_field_name("value")
                if value is not None and value.type in ("arrow_function", "function_expression", "function"):
                    name = node.child_by_field_name("name")
            if name is None or js_evidence.node_text(name) not in names:
                continue
            line = lines[node.start_point.row].strip() if node.type != "variable_declarator" else ""
            line = line or lines[node.parent.start_point.row].strip()
            signature = line.split(" {")[0].rstrip("{").strip() if "{" in line else line
            found.append({"file": path, "name": js_evidence.node_text(name), "signature": signature})
    found.sort(key=lambda f: (f["file"], names.index(f["name"])))
    seen, unique = set(), []
    for f in found:
        if (f["file"], f["name"]) not in seen:
            seen.add((f["file"], f["name"]))
            unique.append(f)
    return unique


def js_failing_tests(candidate: Candidate, test_ids: list[str], per_test: int = 2, test_patch: str = "") -> list[dict]:
    """`failing_tests` for JS/TS: each failing test with its checks on lines the change adds
    (all of them for a test it does not touch) and the lines it adds to the test."""
    added = added_line_numbers(test_patch)
    out, sources = [], {}
    for test_id in test_ids:
        path = file_of_test(test_id)
        if path not in sources:
            sources[path] = file_at(candidate.repo_path, candidate.sha, path)
        source, new = sources[path], added.get(path, set())
        test = js_evidence.find_test(js_evidence.parse(source, path).root_node, test_id, None) if source else None
        if test is None:
            out.append({"id": test_id, "assertion": "", "added_lines": []})
            continue
        statements = js_evidence.test_statements(test.body)
        spans = [(set(range(s.start_point.row + 1, s.end_point.row + 2)), s) for s in statements]
        checks = [(span, c.text) for span, s in spans if (c := js_evidence.read_check(s)) and len(c.text) <= 240]
        touched = [(span, s) for span, s in spans if span & new]
        if touched:
            checks = [item for item in checks if item[0] & new]
        lines = source.splitlines()
        new_lines = [ln for span, _ in touched for n in sorted(span) if (ln := lines[n - 1]).strip()][:12]
        if new_lines:
            indent = min(len(ln) - len(ln.lstrip()) for ln in new_lines)
            new_lines = [ln[indent:] for ln in new_lines]
        out.append(
            {"id": test_id, "assertion": " | ".join(text for _, text in checks[:per_test]), "added_lines": new_lines}
        )
    return out
