"""Statements a solver can act on: tasks for the verified real commits, and their defects counted.

Reads `../shared/real-repos/commits.json` (with `--dev-set js`, `../shared/real-repos-js/`, where
shares 1 and 2 read the statements' JS with tree-sitter: `js_unbound_names`, `js_passing_quotes`),
clones each bundle into a temp folder and runs ONE
`sebgen generate REPO --commit ... --commit ...` per repository (Docker backend, a fresh
SEBGEN_CACHE, the execution layers only, so that every task that executes gets its statement
written). The tasks go to `--out` (a JSONL file for a blind rating). Then, per task:

- the quality and semantic layers, exactly as the pipeline runs them (`tasks.check_quality`,
  `tasks.check_semantic`); every rejection is listed with its reason;
- an evidence run: the FAIL_TO_PASS tests on the buggy state (base_commit + bug_patch, the
  test files of the task), which says which assert fails in each test; the asserts before it
  executed and passed.

Seven shares of statements, each with its target:

1. unbound names: a reproduction (a fenced code block, or an inline code span holding a call or
   an operator) uses an identifier that the statement's code does not define and that is no
   builtin, no public name of the repository at the buggy state (a module, or a top-level
   def / class / assignment not starting with `_`), and no imported module. Target 0.
2. quoting a check that passes on the buggy state: the statement quotes an assert of a
   FAIL_TO_PASS test (its expression, or its left side and its expected value in one
   paragraph) that ran before the failing line of that test. Target 0.
3. referring to an invisible issue or PR: `#123`, `gh-123`, "issue 12", "PR 3", a URL, a commit
   sha. Target 0.
4. flagged by the leak check (`tasks.validate.task_leak_report(...).leaks(0.5)`, the semantic layer's rule).
   Target at most 2%.
5. a failing test or case not mentioned: a FAIL_TO_PASS test (each parametrized case is one)
   whose input (its parameter values; else its call and the reproduction's lines that bind
   the names the call reads) or whose expected value (or the code the check builds it with,
   and the lines that code reads) is not in the text verbatim, up to whitespace and quote
   style (`unmentioned_cases`). Past a cap the rest may be counted: a statement that spells out
   `SPELLED_OUT_CAP` failing tests and counts all the others ("71 more failing tests are not
   spelled out here") mentions them all. Target 0.
6. a test name or placeholder in the text: a FAIL_TO_PASS test's function name, a parametrize
   id or argument name, a bare `expected` / `actual` used as a value, an `if False:` block
   (`test_internals`). Target 0.
7. a title off the call path: the title names a function (`name(` or `` `name` ``) that is in
   none of the failing checks' `call`, `check`, `function`, `reproduction` (`off_path_title`).
   Target 0.

Shares 5-7 read the evidence recorded in the task (the derived evidence the writer was given).

Then the reproduction check (`tasks.reproduction`, recorded in each task's `reproduction`): the
blocks the writer showed, how many ran on both states, how many behaved as stated there (the
target: every block the final statements show), and how many were dropped or rewritten, per
repository and in all, with the check's seconds.

    python bench/statements.py --out FILE [--dev-set js] [--repos attrs,click] [--limit N] [--from FILE [--rewrite]]

`--from FILE` analyses tasks generated earlier (FILE is copied to `--out`) instead of generating;
with `--rewrite` their statements are written again first, by the generator's own
`Generator.write_statement` on the stored task and its evidence (the commit mined again, the
seed strategy of the task's type, the default config's model): minutes instead of the
Docker run, for a change to the writer; with `--rederive` too, the evidence is first derived
again by today's producer from a fresh run of the buggy state (the runner's own words; the
recorded evidence keeps only what was derived from them) and the test's source.
Long (image builds, 40 commits): run it in the background with a log.
"""

from __future__ import annotations

import argparse
import ast
import atexit
import builtins
import functools
import json
import keyword
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from corpus import dev_set  # noqa: E402
from llm import is_path  # noqa: E402
from llm.offline.judge import printed_names  # noqa: E402
from llm.offline.writer import fence_safe, nonfinite_written, snippet_local, stated_call, stated_raising_call  # noqa: E402
from records import FailureEvidence, Task, file_of_test, function_of_test, parameter_id, without_parameters  # noqa: E402

DEV_SETS = {"python": "python", "js": "javascript"}  # --dev-set -> corpus.dev_set language
EXECUTION_LAYERS = "[schema,compile,functional]"


def cli(args: list[str], env: dict, timeout: float) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "evo.cli", *args],
        capture_output=True,
        text=True,
        env={**env, "PYTHONPATH": str(ROOT)},
        cwd=str(ROOT),
        timeout=timeout,
        check=False,
    )


def clone(bundle: Path, dest: Path) -> Path:
    if not dest.exists():
        subprocess.run(["git", "clone", "-q", str(bundle), str(dest)], check=True, capture_output=True)
        # a bundle whose HEAD names a branch it lacks clones with nothing checked out: take its first branch
        head = subprocess.run(["git", "-C", str(dest), "rev-parse", "-q", "--verify", "HEAD"], capture_output=True)
        if head.returncode:
            refs = subprocess.run(
                ["git", "-C", str(dest), "for-each-ref", "--format=%(refname:short)", "refs/remotes/origin"],
                capture_output=True,
                text=True,
                check=True,
            ).stdout.split()
            branch = next(r for r in refs if r != "origin/HEAD")
            local = branch.split("/", 1)[1]
            subprocess.run(["git", "-C", str(dest), "checkout", "-q", "-b", local, branch], check=True)
    return dest


def generate(
    repo: Path, records: list[dict], out: Path, env: dict, log_dir: Path, strategy: str = "BUG_FIX"
) -> list[dict]:
    """One `sebgen generate` for all the repository's commits; the tasks it wrote."""
    args = ["generate", str(repo), *[a for r in records for a in ("--commit", r["commit"])]]
    args += ["--n", str(len(records)), "--out", str(out), "--strategy", strategy]
    args += ["--set", "sandbox.backend=docker", "--set", f"fitness.layers={EXECUTION_LAYERS}"]
    start = time.monotonic()
    try:
        proc = cli(args, env, timeout=6 * 3600)
        stderr = proc.stderr
    except subprocess.TimeoutExpired as exc:
        stderr = f"generate did not finish in 6 h\n{exc.stderr or ''}"
    (log_dir / f"{repo.name}-{strategy.lower()}.stderr.log").write_text(stderr)
    print(
        f"{repo.name}: generate ({strategy}, {len(records)} commits) took {time.monotonic() - start:.0f} s", flush=True
    )
    for line in stderr.splitlines():
        if "rejected" in line:
            print(f"  {line.strip()}", flush=True)
    return [json.loads(ln) for ln in out.read_text().splitlines() if ln.strip()] if out.exists() else []


def generate_repo(
    repo: Path, records: list[dict], tmp: Path, env: dict, log_dir: Path, strategy: str = "BUG_FIX"
) -> list[dict]:
    """The repository's tasks: one BUG_FIX call for all its commits; a named commit that call
    did not attempt (the miner calls it a feature, and BUG_FIX takes bug fixes when there are
    any) gets one FEATURE_ADD call for all such commits."""
    tasks = generate(repo, records, tmp / f"{repo.name}.jsonl", env, log_dir, strategy)
    attempted = {t["base_commit"] for t in tasks}
    log = (log_dir / f"{repo.name}-{strategy.lower()}.stderr.log").read_text()
    left = [r for r in records if r["commit"] not in attempted and r["commit"][:8] not in log]
    if left and strategy == "BUG_FIX":
        print(f"  {len(left)} commit(s) not attempted as bug fixes: {', '.join(r['commit'][:10] for r in left)}")
        tasks += generate(repo, left, tmp / f"{repo.name}-features.jsonl", env, log_dir, "FEATURE_ADD")
    return tasks


# ---------------------------------------------------------------- analysis


def code_spans(statement: str) -> list[tuple[str, str]]:
    """(kind, code) of the statement's fenced blocks ("block") and inline spans ("inline")."""
    spans = []
    for lang, body in re.findall(r"```([\w+-]*)[^\n]*\n(.*?)```", statement, flags=re.S):
        if lang.lower() in ("", "python", "py", "pycon", "python3"):
            spans.append(("block", body))
    prose = re.sub(r"```.*?(?:```|$)", " ", statement, flags=re.S)
    spans += [("inline", s) for s in re.findall(r"`([^`\n]+)`", prose) if not is_path(s)]
    return spans


def _parse(code: str) -> ast.AST | None:
    code = "\n".join(ln[4:] if ln.startswith((">>> ", "... ")) else ln for ln in code.splitlines())
    for mode in ("exec", "eval"):
        try:
            return ast.parse(code.strip() if mode == "eval" else _dedent(code), mode=mode)
        except (SyntaxError, ValueError):
            continue
    return None


def _dedent(code: str) -> str:
    import textwrap

    return textwrap.dedent(code)


def bound_names(tree: ast.AST) -> set[str]:
    """The names a snippet binds: the evidence producer's own rule (one home)."""
    from tasks.evidence.names import names_bound

    return names_bound([tree])


def used_names(tree: ast.AST) -> set[str]:
    loads = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    augmented = {n.target.id for n in ast.walk(tree) if isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name)}
    return loads | augmented  # `x += 1` reads x


def is_reproduction(kind: str, tree: ast.AST) -> bool:
    """A fenced block, or an inline span that computes something (a call, an operator, a
    subscript): a bare `name` or `mod.attr` names API, it reproduces nothing, and neither does
    an exception as the runner shows it (`NotImplementedError: BinOp(...)` parses as an annotation)."""
    if kind == "block":
        return True
    body = tree.body if isinstance(tree, ast.Expression) else None
    if body is None:
        stmts = getattr(tree, "body", [])
        if len(stmts) == 1 and isinstance(stmts[0], ast.AnnAssign) and stmts[0].value is None:
            return False
        if len(stmts) != 1 or not isinstance(stmts[0], ast.Expr):
            return True
        body = stmts[0].value
    return not isinstance(body, (ast.Name, ast.Attribute, ast.Constant)) and not _is_path(body)


def _is_path(node: ast.expr) -> bool:
    """A file path the span names (`tests/test_data/broken/etc/conf.d/clock` parses as a division
    of names): `/` over bare names and dotted names only."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
        return all(isinstance(side, (ast.Name, ast.Attribute)) or _is_path(side) for side in (node.left, node.right))
    return False


def repo_public_names(repo: Path, commit: str) -> set[str]:
    """Modules and top-level public names of every non-test Python file at `commit`."""
    files = subprocess.run(
        ["git", "-C", str(repo), "ls-tree", "-r", "--name-only", commit], capture_output=True, text=True, check=True
    ).stdout.split()
    names: set[str] = set()
    for path in files:
        if not path.endswith(".py"):
            continue
        parts = Path(path).with_suffix("").parts
        names |= {p for p in parts if p not in ("src", "__init__")}
        if re.search(r"(^|/)(tests?|testing)/|(^|/)test_[^/]*$|_test\.py$|conftest\.py$", path):
            continue
        text = subprocess.run(
            ["git", "-C", str(repo), "show", f"{commit}:{path}"], capture_output=True, text=True, errors="replace"
        )
        try:
            tree = ast.parse(text.stdout)
        except (SyntaxError, ValueError):
            continue
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(node.name)
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                names |= {t.id for t in targets if isinstance(t, ast.Name)}
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                names |= {(a.asname or a.name).split(".")[0] for a in node.names if a.name != "*"}
    return {n for n in names if not n.startswith("_")}


# the reprs of builtin types that have no global name: `dict_keys(['a'])` in a stated value is a value
BUILTIN_REPRS = {"dict_keys", "dict_values", "dict_items", "odict_keys", "odict_values", "odict_items", "mappingproxy"}


def unbound_names(statement: str, public: set[str]) -> list[str]:
    spans = [(kind, tree) for kind, code in code_spans(statement) if (tree := _parse(code)) is not None]
    defined = set(dir(builtins)) | public | {"__file__"} | BUILTIN_REPRS
    for kind, tree in spans:
        if kind == "block":
            defined |= bound_names(tree)
    missing: list[str] = []
    for kind, tree in spans:
        if not is_reproduction(kind, tree):
            continue
        local = defined | bound_names(tree)
        missing += sorted(n for n in used_names(tree) - local if n not in missing)
    return missing


JS_FENCES = ("js", "javascript", "mjs", "cjs", "ts", "typescript", "jsx", "tsx")


def js_public_names(repo: Path, commit: str) -> set[str]:
    """The package's name (and its last part, camel-cased) and every named definition of its
    non-test JS/TS files at `commit`: what a statement's JS may call without defining it."""
    from tasks.evidence.js import definitions, package_name

    files = subprocess.run(
        ["git", "-C", str(repo), "ls-tree", "-r", "--name-only", commit], capture_output=True, text=True, check=True
    ).stdout.split()
    package = package_name(str(repo), commit)
    last = package.rsplit("/", 1)[-1]
    names = {re.sub(r"[-.](\w)", lambda m: m.group(1).upper(), last), last.replace("-", "_")} if package else set()
    for path in files:
        if not re.search(r"\.(?:[cm]?[jt]s|[jt]sx)$", path) or re.search(
            r"(^|/)(tests?|__tests__|spec|fixtures?|node_modules|dist|examples?)/|\.(test|spec)\.|\.d\.ts$", path
        ):
            continue
        text = subprocess.run(
            ["git", "-C", str(repo), "show", f"{commit}:{path}"], capture_output=True, text=True, errors="replace"
        )
        names |= {name for name, *_ in definitions(text.stdout, path)}
    return names


def js_unbound_names(statement: str, public: set[str]) -> list[str]:
    """`unbound_names` for JS/TS statements: the identifiers a ```js block, or an inline span
    that computes something (a call, an operator), reads that no block of the statement binds
    (a declaration, a parameter, an import) and that are neither JS globals nor public names of
    the package. Parsed with tree-sitter's TS grammar (a superset of what the blocks hold)."""
    from tasks.evidence.js import GLOBALS, _defined, _used, parse, walk_nodes

    fence = "|".join(JS_FENCES)
    blocks = re.findall(rf"```(?:{fence})[^\n]*\n(.*?)```", statement, flags=re.S)
    prose = re.sub(r"```.*?(?:```|$)", " ", statement, flags=re.S)
    inline = re.findall(r"``\s?(.+?)\s?``|`([^`\n]+)`", prose)
    trees = [parse(code, "statement.ts").root_node for code in blocks]
    defined = set(GLOBALS) | public | {"assert", "require", "module", "exports"}
    for root in trees:
        defined |= _defined(list(root.named_children))
        defined |= {
            n.text.decode()
            for node in walk_nodes(root)
            if node.type in ("import_statement", "catch_clause")
            for n in walk_nodes(node)
            if n.type == "identifier"
        }
    spans = []
    for double, single in inline:
        root = parse(double or single, "statement.ts").root_node
        computes = ("call_expression", "binary_expression", "new_expression")
        nodes = [n.type for n in walk_nodes(root)]
        # a path or a value the run printed (`/admin-dashboard`) reads as a regex: it is no code
        if root.has_error or "regex" in nodes or not any(kind in computes for kind in nodes):
            continue
        spans.append(root)
    missing: list[str] = []
    for root in [*trees, *spans]:
        local = defined | _defined(list(root.named_children))
        missing += sorted(n for n in _used([root]) - local if n not in missing)
    return missing


def js_passing_quotes(statement: str, failures: dict[str, FailureEvidence]) -> list[str]:
    """`passing_quotes` for JS/TS: a check the evidence says ran and passed before the failing
    one (`passed_checks`), quoted verbatim (up to whitespace) in the statement."""
    text = " ".join(statement.split())
    return [
        f"{test_id.split('::')[-1]}: `{check[:80]}`"
        for test_id, f in failures.items()
        for check in f.passed_checks or []
        if len(check) > 12 and " ".join(check.split()) in text
    ]


_INVISIBLE = re.compile(
    r"(?<![\w&])#\d+\b|\bgh-\d+\b|\b(?:issue|pr|pull request|pull)\s*(?:no\.?\s*)?#?\d+\b|https?://|www\.|"
    r"\bcommit\s+[0-9a-f]{7,40}\b|\bsee also\b",
    re.I,
)
_LINK = re.compile(r"https?://|www\.", re.I)


def invisible_references(statement: str) -> list[str]:
    prose = re.sub(r"```.*?(?:```|$)", " ", statement, flags=re.S)
    prose = re.sub(r"`[^`\n]+`", " ", prose)
    # a URL inside a quoted message is a value the code handled (a test's input), not a link
    quoted = {m.start() for q in re.finditer(r'"[^"\n]*"', prose) for m in _LINK.finditer(prose, q.start(), q.end())}
    return [m.group(0) for m in _INVISIBLE.finditer(prose) if m.start() not in quoted]


def _norm(code: str) -> str:
    try:
        return ast.unparse(ast.parse(code.strip(), mode="eval"))
    except (SyntaxError, ValueError):
        return " ".join(code.split())


def other_branch(fn: ast.AST, node: ast.AST, line: int) -> bool:
    """`node` sits in another branch (if/else, except/else) than `line` of a statement: it did
    not run on the way to the failing line."""
    for branchy in ast.walk(fn):
        if not isinstance(branchy, (ast.If, ast.Try)):
            continue
        blocks = [branchy.body, branchy.orelse] + (
            [h.body for h in branchy.handlers] if isinstance(branchy, ast.Try) else []
        )

        def index(pred, blocks=blocks):
            return next((i for i, b in enumerate(blocks) if any(pred(s) for s in b)), None)

        at_line = index(lambda s: s.lineno <= line <= (s.end_lineno or s.lineno))
        at_node = index(lambda s: any(n is node for n in ast.walk(s)))
        if at_line is not None and at_node is not None and at_line != at_node:
            if not (isinstance(branchy, ast.Try) and 0 in (at_line, at_node)):
                return True
    return False


def test_asserts(source: str, test_id: str, line: int = 0) -> list[tuple[int, str, str, str]]:
    """(line, whole expression, left side, right side) of each check in the test's function
    (with `line`, the checks in branches that did not run on the way to it left out, and a check
    written over several lines that holds `line` is at `line`: the runner reports the line of
    the call inside it that failed)."""
    name = function_of_test(test_id)

    def at(node: ast.AST) -> int:
        return line if line and node.lineno <= line <= (node.end_lineno or node.lineno) else node.lineno

    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    out = []
    named = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == name]
    # one name in several test classes (packaging's `test_empty_platforms`): the one holding the failing line
    holding = [n for n in named if line and n.lineno <= line <= (n.end_lineno or n.lineno)]
    for node in (holding or named)[:1]:
        nested = [
            n
            for n in ast.walk(node)
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) and n is not node
        ]
        inside = {id(x) for n in nested for x in ast.walk(n) if x is not n}
        local_helpers = {
            n.name
            for n in nested
            if not isinstance(n, ast.Lambda) and any(isinstance(x, ast.Assert) for x in ast.walk(n))
        }
        for inner in ast.walk(node):
            if id(inner) in inside:
                continue  # a helper's own asserts: the test's checks are its calls of the helper
            if line and other_branch(node, inner, line):
                continue
            if isinstance(inner, ast.Expr) and isinstance(inner.value, ast.Call):
                callee = inner.value.func
                if isinstance(callee, ast.Name) and callee.id in local_helpers:
                    out.append((at(inner), ast.unparse(inner.value), ast.unparse(inner.value), ""))
                    continue
            if isinstance(inner, ast.Assert):
                test = inner.test
                if isinstance(test, ast.Compare) and len(test.ops) == 1:
                    left, right = ast.unparse(test.left), ast.unparse(test.comparators[0])
                else:
                    left, right = ast.unparse(test), ""
                out.append((at(inner), ast.unparse(test), left, right))
            elif isinstance(inner, ast.Call) and ast.unparse(inner.func).split(".")[-1] in (
                "assertEqual",
                "assertEquals",
                "assertIs",
                "assertIn",
            ):
                if len(inner.args) >= 2:
                    left, right = ast.unparse(inner.args[0]), ast.unparse(inner.args[1])
                    out.append((at(inner), f"{left} == {right}", left, right))
    return out


def quotes_check(statement: str, expression: str, left: str, right: str) -> bool:
    """The statement quotes this check: the expression in a code span, or the left side and
    the expected value as code spans of one paragraph."""
    for paragraph in re.split(r"\n\s*\n", statement):
        spans = {_norm(s) for s in re.findall(r"`([^`\n]+)`", paragraph)}
        blocks = re.findall(r"```[^\n]*\n(.*?)```", paragraph, flags=re.S)
        lines = {_norm(re.sub(r"^\s*assert\s+", "", ln)) for b in blocks for ln in b.splitlines() if ln.strip()}
        if _norm(expression) in spans | lines or _norm(f"assert {expression}") in spans:
            return True
        if right and _norm(left) in spans and _norm(right) in spans and _norm(left) != _norm(right):
            return True
    return False


def passing_quotes(task: dict, repo: Path, failures: dict[str, FailureEvidence]) -> list[str]:
    """The checks the statement quotes that ran and passed on the buggy state (asserts on a
    line before the failing line of their test)."""
    out = []
    tests = []
    for test_id in task.get("FAIL_TO_PASS", []):
        evidence = failures.get(test_id)
        line = evidence.line if evidence is not None else None
        if not line:
            continue
        path = file_of_test(test_id)
        source = subprocess.run(
            ["git", "-C", str(repo), "show", f"{task['base_commit']}:{path}"], capture_output=True, text=True
        ).stdout
        tests.append((test_id, line, test_asserts(source, test_id, line)))
    # a check another failing test requires (at or after its failing line) is its to quote, in the same words
    required = {_norm(expression) for _, line, checks in tests for lineno, expression, _, _ in checks if lineno >= line}
    for test_id, line, checks in tests:
        failing = {_norm(side) for lineno, _, left, right in checks if lineno == line for side in (left, right) if side}
        failing_text = {_norm(expression) for lineno, expression, _, _ in checks if lineno == line}
        for lineno, expression, left, right in checks:
            if lineno >= line or _norm(expression) in failing_text | required:
                continue  # after the failure (never ran), or the text of a check a failing test requires
            if {_norm(left), _norm(right)} & failing and _norm(expression) not in {
                _norm(s) for s in re.findall(r"`([^`\n]+)`", task["problem_statement"])
            }:
                continue  # its sides are the failing check's own values: quoting those is not quoting this check
            if quotes_check(task["problem_statement"], expression, left, right):
                out.append(f"{test_id.split('::')[-1]}: `{expression[:80]}` (line {lineno}, fails at {line})")
    return out


def _flat(text: str) -> str:
    return " ".join(str(text).split())


def states(text: str, value: str) -> bool:
    """`value` appears in `text` (whitespace collapsed, either quote style); a literal also by
    what it holds: a string's own text (a long expected text shown whole in a block), a
    structure's repr; a repr holding `nan` / `inf` or a backtick in a string also as the writer
    spells it (`float('nan')`, `'\\x60'`)."""
    forms = [_flat(value), _flat(nonfinite_written(value)), _flat(fence_safe(value, "`"))]
    try:
        literal = ast.literal_eval(value)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        literal = None
    if isinstance(literal, str) and "\n" in literal.strip():  # a one-line string is matched by its quotes
        forms.append(_flat(literal))
    elif isinstance(literal, (list, tuple, dict, set)):
        forms.append(_flat(repr(literal)))
    if " ... " in value.strip(" ."):  # a value the runner cut in the middle: what it kept, in order
        return _states_in_order(text, [_flat(piece) for piece in value.split(" ... ")])
    return any(
        v and any(w in text for w in (v, v.replace("'", '"'), v.replace('"', "'"))) for v in dict.fromkeys(forms)
    )


def _states_in_order(text: str, pieces: list[str]) -> bool:
    """Each piece appears in `text` after the one before it (either quote style)."""
    for quoted in (lambda p: p, lambda p: p.replace("'", '"'), lambda p: p.replace('"', "'")):
        at = 0
        for piece in pieces:
            at = text.find(quoted(piece), at)
            if at < 0:
                break
            at += len(piece)
        else:
            return True
    return False


def states_value(text: str, f: FailureEvidence) -> bool:
    """The statement gives the value the check requires: as the test writes it, or with the
    snippet's local names written in, as the writer states it (`stated_call`), or by the code
    that builds it in the check, with the lines that bind what that code reads (flake8-bugbear's
    `errors == errors_(*expected)` after `expected = [B038(11, 8), ...]`: the value pytest
    printed is its evaluation, in no statement)."""
    assert f.expected is not None
    written_in = stated_call(f.expected, f.reproduction or "", f.loop_value or "")
    if states(text, f.expected) or (written_in != f.expected and states(text, written_in)):
        return True
    code = f.reproduction or ""
    if _shown_helper_check(text, code):
        return True
    built = _expected_expression(_last_statement(code)) or _expected_expression(f.check or "")
    return bool(built) and any(
        all(states(text, piece) for piece in way)
        for way in _call_ways(built, code, stated_call(built, code, f.loop_value or ""))
    )


def _shown_helper_check(text: str, code: str) -> bool:
    """The snippet ends with a call of a check helper it defines (marshmallow_dataclass's
    `assertFieldsEqual(field_for_schema(...), union_field.Union(...))`), and the statement shows
    that call and the helper: the required value is the code that builds it, the comparison the
    helper's (the values pytest printed are cut)."""
    tree = _parse(code)
    body = getattr(tree, "body", None) or []
    last = body[-1] if body else None
    if not (isinstance(last, ast.Expr) and isinstance(last.value, ast.Call) and isinstance(last.value.func, ast.Name)):
        return False
    helper = next((n for n in body if isinstance(n, ast.FunctionDef) and n.name == last.value.func.id), None)
    return helper is not None and states(text, ast.unparse(last)) and states(text, ast.unparse(helper))


def _last_statement(code: str) -> str:
    """The reproduction's last statement: its failing check as the snippet writes it
    (`errors_(*expected)` where the test reads `self.errors(*expected)`), the last one inside a
    closing `for` / `with` / `if` (python-hcl2 checks each suite's file in a loop)."""
    tree = _parse(code)
    body = getattr(tree, "body", None)
    last = body[-1] if isinstance(body, list) and body else None
    while isinstance(last, (ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.If)) and last.body:
        last = last.body[-1]
    return ast.unparse(last) if last is not None else ""


def _expected_expression(check: str) -> str:
    """The right side of the check's one comparison as the test writes it (`errors_(*expected)`),
    "" for any other check and for a literal (its value is what `states` looks for)."""
    tree = _parse(check.strip())
    test = tree.body[0].test if tree and tree.body and isinstance(tree.body[0], ast.Assert) else None
    if not (isinstance(test, ast.Compare) and len(test.comparators) == 1):
        return ""
    right = test.comparators[0]
    try:
        ast.literal_eval(right)
        return ""
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return ast.unparse(right)


def case_inputs(f: FailureEvidence) -> list[list[str]]:
    """The ways a statement can state the case's input, each a list of texts that must all
    appear: its parameter values; its call (case values substituted) with the first line of
    each statement of its reproduction that binds a name the call reads (`t.to_text()` says
    nothing without `t = Table(...)`), or the call with the inputs it reads through local names
    written in (`stated_call`); the same for the call that raised the exception the check reads
    (`raised_by`: `e.value.args` is stated by the call in `with pytest.raises(E) as e:`);
    without a call, the last line of its reproduction (a bare `assert False` test)."""
    ways = [list(f.params.values())] if f.params else []
    code = f.reproduction or ""
    if not f.call:
        last = [ln for ln in code.splitlines() if ln.strip()][-1:]
        return ways + ([last] if last else [])
    ways += _call_ways(f.call, code, stated_call(f.call, code, f.loop_value or ""))
    if f.raised_by:
        ways += _call_ways(f.raised_by, code, stated_raising_call(f.raised_by, code, f.loop_value or ""))
    return ways


def _call_ways(call: str, code: str, stated: str) -> list[list[str]]:
    """`call` with the snippet's lines that bind what it reads; `stated`, the call with those
    inputs written in (the writer's own)."""
    call_tree, tree = _parse(call), _parse(code)
    reads, lines = (used_names(call_tree) if call_tree else set()), code.splitlines()
    setup = [
        lines[node.lineno - 1]
        for node in (ast.walk(tree) if tree else [])
        if isinstance(node, ast.stmt)
        and not isinstance(node, (ast.Import, ast.ImportFrom))
        and node.lineno <= len(lines)
        and reads & binds(node)
    ]
    return [[call, *dict.fromkeys(setup)], *([[stated]] if stated != call else [])]


def binds(statement: ast.stmt) -> set[str]:
    """The names one statement binds itself (not those of the statements nested in it)."""
    if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {statement.name}
    targets = {
        ast.Assign: lambda s: s.targets,
        ast.AnnAssign: lambda s: [s.target],
        ast.AugAssign: lambda s: [s.target],
        ast.For: lambda s: [s.target],
        ast.AsyncFor: lambda s: [s.target],
        ast.With: lambda s: [i.optional_vars for i in s.items if i.optional_vars is not None],
        ast.AsyncWith: lambda s: [i.optional_vars for i in s.items if i.optional_vars is not None],
    }.get(type(statement), lambda s: [])(statement)
    return {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}


SPELLED_OUT_CAP = 48  # failing tests spelled out before the rest may be counted (the writer's 16 snippets, 32 lines)
_COUNTED = re.compile(r"\b(\d+) (?:more )?(?:inputs?|failing tests?)\b[^.]*?\bnot spelled out here\.")


def unmentioned_cases(
    statement: str, test_ids: list[str], failures: dict[str, FailureEvidence], held: frozenset[str] = frozenset()
) -> list[str]:
    """The FAIL_TO_PASS tests (each parametrized case is one) whose input or required value the
    statement does not state. Mentioned means, verbatim up to whitespace and quote style: every
    piece of one way of stating its input (`case_inputs`) appears in the text, and so does its expected value when
    the check compares with one or expects an exception. A test without evidence is not mentioned,
    unless the statement spells out `SPELLED_OUT_CAP` tests and its counts of the rest cover it.
    A test of `held` (`held_tests`: its own lines hold on the buggy state) is mentioned by the
    name its module failed to import."""
    text = _flat(statement)
    out = []
    # a way several cases share while the checks after it read other values (DataProperty's dequote
    # cases all fail at `Preprocessor(dequote=True)`) tells none of them: their values must be stated
    rests_by_way: dict[tuple[str, ...], set[str]] = {}
    rests_of_test: dict[str, set[str]] = {}  # a parametrized test -> the shapes of its cases' later checks
    # (test, shape) of the later checks some case has stated line for line
    told = {
        (without_parameters(t), f.rest_shape())
        for t in test_ids
        if (f := failures.get(t)) is not None and f.rest and _line_for_line(text, f.rest)
    }
    for test_id in test_ids:
        f = failures.get(test_id)
        for way in case_inputs(f) if f is not None and f.derived and f.params else []:
            rests_by_way.setdefault(tuple(way), set()).add(" ".join((f.rest or "").split()))
        if f is not None and f.derived and f.params:
            rests_of_test.setdefault(without_parameters(test_id), set()).add(f.rest_shape())
    for test_id in test_ids:
        f = failures.get(test_id)
        name = test_id.partition("::")[2] or test_id  # the node names and the case, for a reader
        if f is None or not f.derived:
            out.append(f"{name} (no evidence)")
            continue
        if test_id in held:
            lacked = _LACKED.search(f.message or "")
            if lacked and re.search(rf"`[\w.]*\b{re.escape(lacked.group(1))}\b", statement):
                continue
        ways = case_inputs(f)
        own = [w for w in ways if not (f.params and len(rests_by_way.get(tuple(w), ())) > 1)]
        gaps = [[piece for piece in way if not states(text, piece)] for way in own or ways]
        missing = [f"input {piece!r}" for piece in min(reversed(gaps), key=len)] if gaps else ["no input known"]
        if f.kind in ("compare", "raises") and f.expected and not states_value(text, f):
            missing.append(f"expected {f.expected!r}")
        if f.params and len(rests_of_test.get(without_parameters(test_id), ())) > 1 and not _rest_told(text, f, told):
            # its checks after the failing one are its own (argh's `always_flush=True` case counts
            # the flushes where another case asserts none): each must be stated
            missing += [f"later check {line!r}" for line in (f.rest or "").splitlines() if not states(text, line)]
        if missing:
            out.append(f"{name} ({'; '.join(m[:70] for m in missing)})")
    counted = sum(int(n) for n in _COUNTED.findall(statement))
    if len(test_ids) - len(out) >= SPELLED_OUT_CAP and counted >= len(out):
        return []  # the cap reached, the rest counted: every test is mentioned
    return out


def _rest_told(text: str, f: FailureEvidence, told: set[tuple[str, str]]) -> bool:
    """The case's later checks are stated: line for line, or as another case's that are (the same
    shape) with the case's own values named (click's `'[FLOAT]'` in place of `'[BOOLEAN]'` in
    the check that follows)."""
    rest = f.rest or ""
    if _line_for_line(text, rest):
        return True
    values = [v for v in (f.params or {}).values() if v and _flat(v) in _flat(rest)]
    return (without_parameters(f.test_id), f.rest_shape()) in told and all(states(text, v) for v in values)


def _line_for_line(text: str, code: str) -> bool:
    return all(states(text, line) for line in code.splitlines())


_LACKED = re.compile(r"(?:cannot import name|No module named) '([\w.]+)'")


def held_tests(task: dict, failures: dict[str, FailureEvidence]) -> frozenset[str]:
    """The tests that never ran (their module failed to import a name the fix adds) whose own
    lines, run by the reproduction check, raised nothing on either state: such a test fails only
    through its module's import, which the statement states by asking for the name."""
    ran_clean = {
        " ".join(str(c.get("code", "")).split())
        for c in ((task.get("reproduction") or {}).get("checks") or [])
        if all(str(c.get(state, "")).startswith("ran without an exception") for state in ("buggy", "fixed"))
    }
    # the tests the statement counts as needing only the import, whose unshown lines the check ran
    probed = {str(t) for t in (task.get("reproduction") or {}).get("held") or []}
    return frozenset(
        test_id
        for test_id, f in failures.items()
        if f.phase == "collect"
        and (test_id in probed or (f.reproduction and " ".join(f.reproduction.split()) in ran_clean))
    )


PLACEHOLDER = re.compile(r"(?:expected|actual)(?:_\w+)?")
# a bare name as what the code gives (`` `x` gives ``) or as the value it should give (`should be `x``)
LOCAL_AS_VALUE = re.compile(
    r"`([A-Za-z_]\w*)`\s+(?:gives|is|returns|raises|should|lacks|contains)\b"
    r"|\b(?:should (?:be|contain|equal)|expected|be exactly)\s+`([A-Za-z_]\w*)`"
)


def test_internals(
    statement: str,
    test_ids: list[str],
    failures: dict[str, FailureEvidence],
    public: frozenset[str] = frozenset(),
    subject: str = "",
) -> list[str]:
    """Test internals in the text: a FAIL_TO_PASS test's function name, a parametrize id (the
    case's whole id unless it is part of a parameter's value, `EOFError` of `<class 'EOFError'>`,
    or a public name of the repository (`public`: the solver finds `MARKDOWN` there), or
    pytest's generated `argname<N>` piece of it), a parametrize argument
    name listed as `name=value`, a bare `expected` / `actual` used as a value (an inline span of
    that word, or a name the statement's code reads but never binds), a name a block of the
    statement assigns named in prose as what a call gives or should be (`omd` gives ..., "it
    should be `expected`": `snippet_local`, the writer's own), an `if False:` block."""
    found: list[str] = []

    def add(kind: str, what: str) -> None:
        if f"{kind} {what}" not in found:
            found.append(f"{kind} {what}")

    spans = code_spans(statement)
    trees = [(kind, tree) for kind, code in spans if (tree := _parse(code)) is not None]
    # a keyword a snippet's call passes is the API's own parameter (argh's `always_flush`, which the
    # fix adds), though the test also names a local or a parametrize argument after it
    keywords = {k.arg for _, tree in trees for n in ast.walk(tree) if isinstance(n, ast.Call) for k in n.keywords}
    for test_id in test_ids:
        function, case = function_of_test(test_id), parameter_id(test_id)
        # a file the repository has (`tests/test_style.py`) is no test name, though its stem may be one
        if re.search(rf"(?<![\w./]){re.escape(function)}\b(?!\.py\b)", statement):
            add("test name", function)
        params = (failures.get(test_id) or FailureEvidence(test_id)).params or {}
        # an id that is a plain word (wheel's `single`) names the case only where it reads as a name
        plain_word = re.fullmatch(r"[a-z]+", case)
        where = " ".join(code for kind, code in code_spans(statement) if kind == "inline") if plain_word else statement
        if (
            case
            and case not in public
            and not (
                " " in case and case.lower() in subject.lower()
            )  # the change's own words ("sequence without braces")
            and not any(case in value for value in params.values())
            and re.search(rf"(?<![\w/.-]){re.escape(case)}(?![\w/.-])", where)
        ):
            add("parametrize id", case)
        for piece in case.split("-"):
            if re.fullmatch(r"[A-Za-z_]\w*?\d+", piece) and re.sub(r"\d+$", "", piece) in params:
                if re.search(rf"(?<![\w/.-]){re.escape(piece)}\b", statement):
                    add("parametrize id", piece)
        for span in re.findall(r"`([^`\n]+)`", statement):
            if re.match(r"\s*\w+=(?!=)", span):  # `base='x', paths=(1, 2)`: the case listed by argument name
                for name in re.findall(r"(?:^|,)\s*(\w+)=(?!=)", span):
                    if name in params and name not in keywords:
                        add("parametrize argument", name)
    bound = set().union(*[bound_names(tree) for kind, tree in trees if kind == "block"])
    for kind, code in spans:
        if kind == "inline" and PLACEHOLDER.fullmatch(code.strip()):
            add("placeholder", code.strip())
    blocks = [code for kind, code in spans if kind == "block"]
    prose = re.sub(r"```.*?(?:```|$)", " ", statement, flags=re.S)
    for match in LOCAL_AS_VALUE.finditer(prose):
        name = match.group(1) or match.group(2)
        if name not in public and name not in keywords and any(snippet_local(name, code) for code in blocks):
            add("snippet local", name)
    for _, tree in trees:
        for name in sorted(used_names(tree) - bound - bound_names(tree)):
            if PLACEHOLDER.fullmatch(name):
                add("placeholder", name)
        for node in ast.walk(tree):
            if isinstance(node, ast.If) and isinstance(node.test, ast.Constant) and not node.test.value:
                add("dead block", f"if {node.test.value!r}:")
    return found


def title_names(title: str) -> list[str]:
    """The functions a title names: `name(` anywhere, and inline spans holding a dotted name or a call."""
    names = re.findall(r"([A-Za-z_][\w.]*)\(", title)
    for span in re.findall(r"`([^`\n]+)`", title):
        callee = re.match(r"\s*([A-Za-z_][\w.]*)\s*(?:\(|$)", span)
        if callee:
            names.append(callee.group(1))
    names = [n.strip(".") for n in names if not keyword.iskeyword(n)]  # `None` names no function
    return list(dict.fromkeys(n for n in names if n))


def _subject(task: dict) -> str:
    """The source commit's subject, as the task records it."""
    return str((task.get("generation") or {}).get("source_commit_subject") or "")


def off_path_title(statement: str, failures: list[FailureEvidence]) -> list[str]:
    """The names of the title (its first line) that appear in none of the failing checks'
    `call`, `check`, `function`, `reproduction`: the title blames code the checks do not run. A
    name found only in a check's values (`expected`, `observed`, `error`: an exception type, a
    returned class) names no function and is left out. A dotted name counts when its last part
    appears. Without evidence there is nothing to compare with: nothing is counted."""
    if not failures:
        return []
    title = statement.strip().splitlines()[0] if statement.strip() else ""
    path = "\n".join(filter(None, (x for f in failures for x in (f.call, f.check, f.function, f.reproduction))))
    values = "\n".join(filter(None, (x for f in failures for x in (f.expected, f.observed, f.error))))

    def appears(name: str, text: str) -> bool:
        return bool(re.search(rf"(?<![\w]){re.escape(name.split('.')[-1])}\b", text))

    return [n for n in title_names(title) if not appears(n, path) and not appears(n, values)]


def rewrite(
    tasks: list[dict], repos: dict[str, Path], reproductions: bool = False, reports: dict | None = None
) -> None:
    """Each task's statement and hints written again in place, through the path `generate`
    takes (`Generator.write_statement`) with the recorded failure evidence; with `reports` (a
    fresh run's own words per task, `runner_reports`), that evidence is first derived again by
    today's producer (`tasks.evidence.failure_evidence`, as the functional layer calls it; the
    recorded evidence keeps only what it derived, so deriving from it loses the comparison's
    sides, the frames and the locals); with `reproductions`, then the reproduction check
    `generate` runs after the writer (Docker)."""
    from evo.config import load_config
    from evo.runtime import make_llm
    from tasks import SEED_PROMPTS, Strategy, StrategyType, Validator
    from tasks.evidence import failure_evidence
    from tasks.generate import Generator
    from tasks.mining import mine_named
    from tasks.reproduction import check_reproductions, mark_held_tests

    llm = make_llm(load_config(None, []))
    generator = Generator(llm=llm, validator=Validator(llm=llm))
    for data in tasks:
        task = Task.from_dict(data)
        entry = mine_named(repos[task.repo], [task.base_commit])[0]
        if entry.candidate is None:
            print(f"  {task.instance_id}: not rewritten: {entry.reason}", flush=True)
            continue
        functional = task.validation.get("functional")
        if reports is not None and functional is not None and isinstance(functional.details.get("failures"), dict):
            if task.instance_id not in reports:
                print(f"  {task.instance_id}: not derived again: its evidence run failed", flush=True)
                continue
            found = failure_evidence(repos[task.repo], task.base_commit, reports[task.instance_id], task.FAIL_TO_PASS)
            functional.details["failures"] = {test_id: e.to_dict() for test_id, e in found.items()}
            data["validation"] = task.to_dict()["validation"]
        stype = StrategyType(task.strategy_type)
        if reproductions:  # as `Generator.complete` does before its writer
            mark_held_tests(task, reproduction_backend(), repos[task.repo])
            data["validation"] = task.to_dict()["validation"]
        generator.write_statement(task, entry.candidate, Strategy(stype, SEED_PROMPTS[stype][-1]))
        if reproductions:
            task.reproduction = check_reproductions(task, reproduction_backend(), repos[task.repo])
            data["reproduction"] = task.to_dict().get("reproduction")
        data.update(problem_statement=task.problem_statement, hints_text=task.hints_text, generation=task.generation)


@functools.cache
def reproduction_backend():
    """The Docker backend the reproduction check runs in (one per bench run, closed at exit)."""
    from environment import make_sandbox
    from sandbox import Limits

    backend = make_sandbox("docker", limits=Limits(timeout_s=900), log=lambda m: None, setup_attempts=3)
    atexit.register(backend.close)
    return backend


def runner_reports(tasks: list[dict], repo: Path) -> dict[str, dict[str, dict]]:
    """instance_id -> {test id -> the runner's own words on its failure (its report: the
    comparison's sides, frames, locals, parametrize indices)} from one run of the buggy state."""
    from environment import make_sandbox
    from sandbox import Limits
    from tasks import test_files_of

    backend = make_sandbox("docker", limits=Limits(timeout_s=900), log=lambda m: None, setup_attempts=3)
    out: dict[str, dict[str, dict]] = {}
    try:
        for task in tasks:
            try:
                run = backend.run_tests(
                    repo, task["base_commit"], [task["bug_patch"]], test_files_of(task["test_patch"]) or None
                )
                out[task["instance_id"]] = dict(getattr(run, "failures", {}))
            except Exception as exc:  # noqa: BLE001 - the share then says the evidence is missing
                print(f"  evidence run of {task['instance_id']} failed: {type(exc).__name__}: {exc}", flush=True)
    finally:
        backend.close()
    return out


def as_evidence(reports: dict[str, dict[str, dict]]) -> dict[str, dict[str, FailureEvidence]]:
    """`runner_reports` as records (the runner's words only: what the shares compare against)."""
    return {
        iid: {t: FailureEvidence.from_dict(e, test_id=t) for t, e in tests.items()} for iid, tests in reports.items()
    }


def judge(tasks: list[dict]) -> list[str]:
    """The quality and semantic layers on each task, as the pipeline runs them; their verdicts
    are recorded in the task; the rejections come back as lines."""
    from llm import LLMClient
    from tasks import Validator
    from tasks.validate import check_quality, check_semantic

    validator = Validator(llm=LLMClient("offline/sebgen"))
    rejections = []
    for data in tasks:
        task = Task.from_dict(data)
        for name, step in (("quality", check_quality), ("semantic", check_semantic)):
            result = step(task, validator)
            task.record(name, result)
            if not result.passed:
                rejections.append(f"{task.instance_id} at {name} [{result.category}]: {result.reason}")
                break
        data["validation"] = {layer: result.to_dict() for layer, result in task.validation.items()}
    return rejections


def analyse(tasks: list[dict], repos: dict[str, Path], evidence: dict[str, dict[str, FailureEvidence]]) -> dict:
    from tasks.validate import task_leak_report

    rows = {"unbound": [], "passing": [], "invisible": [], "leak": [], "unmentioned": [], "internals": [], "title": []}
    public_cache: dict[tuple[str, str], set[str]] = {}
    for task in tasks:
        repo = repos[task["repo"]]
        statement = task.get("problem_statement", "")
        parent = subprocess.run(
            ["git", "-C", str(repo), "rev-parse", f"{task['base_commit']}^"], capture_output=True, text=True
        ).stdout.strip()
        js = _is_js(task)
        key = (str(repo), parent, js)
        if key not in public_cache:
            public_cache[key] = (js_public_names if js else repo_public_names)(repo, parent)
        iid = task["instance_id"]
        # like the judge: a name in a value the run printed is the project's, quoted as a repr
        known = public_cache[key] | printed_names(list((evidence.get(iid) or _recorded(task)).values()))
        missing = (js_unbound_names if js else unbound_names)(statement, known)
        if missing:
            rows["unbound"].append(f"{iid}: {', '.join(missing[:8])}")
        if js:
            quoted = js_passing_quotes(statement, _recorded(task))
        else:
            quoted = passing_quotes(task, repo, evidence.get(iid) or _recorded(task))
        if quoted:
            rows["passing"].append(f"{iid}: {'; '.join(quoted[:3])}")
        refs = invisible_references(statement)
        if refs:
            rows["invisible"].append(f"{iid}: {', '.join(refs[:5])}")
        leak = task_leak_report(Task.from_dict(task))
        if leak.leaks(0.5):
            rows["leak"].append(f"{iid}: {', '.join(leak.kinds)} ({leak.evidence[:80]!r})")
        # the derived evidence the writer read: the evidence run holds the runner's words only
        recorded = _recorded(task)
        public = frozenset(public_cache[key])
        for share, found in (
            ("unmentioned", unmentioned_cases(statement, task["FAIL_TO_PASS"], recorded, held_tests(task, recorded))),
            ("internals", test_internals(statement, task["FAIL_TO_PASS"], recorded, public, _subject(task))),
            ("title", off_path_title(statement, list(recorded.values()))),
        ):
            if found:
                rows[share].append(f"{iid}: {', '.join(found)}")
    return rows


def reproduction_counts(tasks: list[dict]) -> dict[str, dict[str, float]]:
    """Per repository and "all": the reproductions the writer showed (fenced blocks, and calls
    of the prose the text says the current code answers), how many ran on both states, how
    many the final statements keep and were seen behaving as stated on both states, dropped,
    rewritten; of those, the prose calls and the prose calls that could not run; fenced blocks
    the final statements show that no check covers; tasks checked; the check's seconds."""
    from tasks.reproduction import python_blocks

    keys = ("shown", "executed", "kept", "behaved", "dropped", "rewritten", "inline", "not_run", "unchecked")
    out: dict[str, dict[str, float]] = {}
    for data in tasks:
        report = Task.from_dict(data).reproduction
        rows = [
            out.setdefault(name, dict.fromkeys((*keys, "tasks", "seconds"), 0))
            for name in (data.get("repo", "?"), "all")
        ]
        checks = report.checks if report is not None else []
        final = [b.code for b in python_blocks(data.get("problem_statement", ""))]
        left = [c.shown or c.code for c in checks if c.verdict != "dropped" and c.kind == "block"]
        for row in rows:
            row["tasks"] += report is not None
            row["seconds"] += report.seconds if report is not None else 0.0
            row["shown"] += len(checks)
            row["executed"] += sum(bool(c.buggy and c.fixed) for c in checks)
            row["kept"] += sum(c.verdict != "dropped" for c in checks)
            row["behaved"] += sum(bool(c.buggy and c.fixed) for c in checks if c.verdict in ("kept", "rewritten"))
            row["dropped"] += sum(c.verdict == "dropped" for c in checks)
            row["rewritten"] += sum(c.verdict == "rewritten" for c in checks)
            row["inline"] += sum(c.kind == "inline" for c in checks)
            row["not_run"] += sum(c.kind == "inline" and c.reason.startswith("not run") for c in checks)
            row["unchecked"] += sum(1 for code in final if code not in left)
    return out


def delivered(task: dict) -> bool:
    """Every validation layer the task went through passed: the task reaches a dataset."""
    layers = task.get("validation") or {}
    return bool(layers) and all(isinstance(v, dict) and v.get("passed") for v in layers.values())


def _is_js(task: dict) -> bool:
    from environment import language_of_test

    language = language_of_test((task.get("FAIL_TO_PASS") or [""])[0])
    return language is not None and language.name != "python"


def _recorded(task: dict) -> dict[str, FailureEvidence]:
    return {f.test_id: f for f in Task.from_dict(task).failure_evidence()}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True, type=Path, help="JSONL file the generated tasks are written to")
    ap.add_argument("--repos", default="", help="comma-separated substrings of repo names to keep")
    ap.add_argument("--limit", type=int, default=0, help="commits per repo (0: all)")
    ap.add_argument("--only", default="", help="comma-separated commit prefixes to keep")
    ap.add_argument("--strategy", default="BUG_FIX", help="strategy of the first generate call per repository")
    ap.add_argument("--from", dest="source", type=Path, help="analyse this task file instead of generating")
    ap.add_argument("--rewrite", action="store_true", help="with --from: write the statements again first")
    ap.add_argument(
        "--reproductions", action="store_true", help="with --rewrite: then run the reproduction check, as generate does"
    )
    ap.add_argument(
        "--rederive", action="store_true", help="with --rewrite: derive the recorded failure evidence again first"
    )
    ap.add_argument("--cache", type=Path, help="SEBGEN_CACHE to use (default: a fresh temp folder)")
    ap.add_argument("--no-evidence-run", action="store_true", help="use the evidence recorded in the tasks")
    ap.add_argument("--dev-set", choices=sorted(DEV_SETS), default="python", help="the dev set whose commits to use")
    args = ap.parse_args()
    real = dev_set(DEV_SETS[args.dev_set])
    records = json.loads((real / "commits.json").read_text())
    by_repo: dict[str, list[dict]] = {}
    for rec in records:
        if args.repos and not any(s in rec["repo"] for s in args.repos.split(",")):
            continue
        if args.only and not any(rec["commit"].startswith(c) for c in args.only.split(",")):
            continue
        by_repo.setdefault(rec["repo"], []).append(rec)
    if args.limit:
        by_repo = {k: v[: args.limit] for k, v in by_repo.items()}
    with tempfile.TemporaryDirectory(prefix="sebgen-statements-") as tmp:
        cache = args.cache or Path(tmp) / "cache"
        env = {**os.environ, "SEBGEN_CACHE": str(cache)}
        os.environ["SEBGEN_CACHE"] = str(cache)
        log_dir = args.out.with_name(args.out.stem + ".logs")
        log_dir.mkdir(parents=True, exist_ok=True)
        repos = {
            name: clone(real / f"{name.replace('/', '__')}.bundle", Path(tmp) / name.replace("/", "__"))
            for name in by_repo
        }
        tasks: list[dict] = []
        reports: dict[str, dict[str, dict]] = {}  # the buggy state's own words, one run per task
        if args.source:
            tasks = [json.loads(ln) for ln in args.source.read_text().splitlines() if ln.strip()]
            tasks = [t for t in tasks if t.get("repo") in repos]
            if args.rewrite and args.rederive:
                for name, repo in repos.items():
                    reports.update(runner_reports([t for t in tasks if t["repo"] == name], repo))
            if args.rewrite:
                rewrite(tasks, repos, args.reproductions, reports if args.rederive else None)
        else:
            for name, recs in by_repo.items():
                tasks += generate_repo(repos[name], recs, Path(tmp), env, log_dir, args.strategy)
        for task in tasks:
            task["repo_path"] = str(repos[task["repo"]])
        verified = {r["commit"] for recs in by_repo.values() for r in recs}
        print(f"tasks: {len(tasks)} for {len(verified)} verified commits", flush=True)
        if not args.no_evidence_run and not reports:
            for name, repo in repos.items():
                reports.update(runner_reports([t for t in tasks if t["repo"] == name], repo))
        evidence = as_evidence(reports)
        rejections = judge(tasks)
        if args.source is None or args.out.resolve() != args.source.resolve():
            args.out.parent.mkdir(parents=True, exist_ok=True)
            args.out.write_text("".join(json.dumps(t, sort_keys=True) + "\n" for t in tasks))
        rows = analyse(tasks, repos, evidence)
        if cache != args.cache:
            shutil.rmtree(cache, ignore_errors=True)
    n = max(1, len(tasks))
    print(f"\nwrote {len(tasks)} tasks to {args.out}")
    print(f"judge rejections ({len(rejections)}):")
    for line in rejections:
        print(f"  {line}")
    labels = {
        "unbound": ("reproduction with unbound names", "0"),
        "passing": ("quoting a check that passes on the buggy state", "0"),
        "invisible": ("referring to an invisible issue or PR", "0"),
        "leak": ("flagged by the leak check", "<= 2%"),
        "unmentioned": ("a failing test or case not mentioned", "0"),
        "internals": ("a test name or placeholder in the text", "0"),
        "title": ("a title naming a function off the failing checks' call path", "0"),
    }
    # a task a layer rejected never reaches a solver: the shares among the delivered ones are what users read
    rejected = {t["instance_id"] for t in tasks if not delivered(t)}
    kept = max(1, len(tasks) - len(rejected))
    for key, (label, target) in labels.items():
        among = [line for line in rows[key] if line.split(":")[0] not in rejected]
        print(
            f"{label}: {len(rows[key])}/{len(tasks)} = {len(rows[key]) / n:.1%}; delivered "
            f"{len(among)}/{len(tasks) - len(rejected)} = {len(among) / kept:.1%} (target {target})"
        )
        for line in rows[key]:
            print(f"    {line}{'  [rejected by a layer]' if line.split(':')[0] in rejected else ''}")
    defects = len(set().union(*[{r.split(":")[0] for r in rows[k]} for k in rows]))
    print(f"statements_with_a_defect: {defects / n:.3f}")
    print("reproductions (blocks the writer showed; behaved: ran as stated on both states, target = kept):")
    for name, row in sorted(reproduction_counts(tasks).items(), key=lambda kv: (kv[0] == "all", kv[0])):
        share = f"{row['behaved'] / row['kept']:.0%}" if row["kept"] else "-"
        print(
            f"  {name}: shown {row['shown']}, executed {row['executed']}, kept {row['kept']}, "
            f"behaved as stated {row['behaved']}/{row['kept']} ({share}), dropped {row['dropped']}, "
            f"rewritten {row['rewritten']} (calls in prose: {row['inline']}, not runnable {row['not_run']}), "
            f"blocks shown but unchecked {row['unchecked']}; "
            f"{row['tasks']} tasks checked in {row['seconds']:.0f} s"
        )


if __name__ == "__main__":
    main()
