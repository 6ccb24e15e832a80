"""Turning one candidate commit into one validated task with one strategy.

SWE-gen's reversed baseline: `base_commit` is the fixing commit (its tests pass), `patch` is
its source change (the gold fix), `bug_patch` is that change reversed (what the agent sees),
and `test_patch` is its test change (withheld until verification). Execution comes first
(compile, functional), so no LLM call is paid for a commit whose tests prove nothing; then
the strategy's prompt asks the LLM for the problem statement, and the judges look at it.
"""
from __future__ import annotations

import ast
import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path

import git
from unidiff import PatchSet, UnidiffParseError

from fitness.difficulty import DifficultyInput, difficulty
from fitness.hybrid import hybrid_partner, hybrid_skeleton, merge_candidates
from llm import LLMClient, LLMError, patch_added_lines, patch_sections
from fitness.mining import Candidate, diff_text, instance_prefix, mine
from fitness.prompt import generation_prompt, render_instructions
from fitness.skills import tag
from fitness.strategy import Strategy, StrategyType
from fitness.task import LayerResult, Task
from fitness.validate import Validator, check_compile, check_functional_layer, check_quality, check_schema, check_semantic

# Which mined commits each strategy takes (its contract's first clause).
KINDS_FOR: dict[StrategyType, tuple[str, ...]] = {
    StrategyType.BUG_FIX: ("bug_fix",),
    StrategyType.FEATURE_ADD: ("feature_add",),
    StrategyType.REFACTOR: ("refactor",),
    StrategyType.TEST_DRIVEN: ("bug_fix", "feature_add"),
    StrategyType.HYBRID: ("bug_fix", "feature_add", "refactor"),
}


@dataclass
class Generator:
    llm: LLMClient
    validator: Validator
    archive: object | None = None
    layers: tuple[str, ...] = ("schema", "compile", "functional", "quality", "semantic")
    mined: dict = field(default_factory=dict, repr=False)  # repo path -> candidates, for HYBRID partners

    def generate(self, candidate: Candidate, strategy: Strategy) -> Task:
        if strategy.strategy_type == StrategyType.HYBRID:
            partner = hybrid_partner(candidate, self._candidates_of(candidate.repo_path))
            if partner is not None:
                merged = merge_candidates(candidate, partner)
                return self.complete(hybrid_skeleton(candidate, partner, merged, strategy), merged, strategy)
        # every other strategy, and HYBRID without a clean partner: one commit (its prompt
        # then asks for a statement combining a bug report and a specification)
        return self.complete(skeleton(candidate, strategy), candidate, strategy)

    def _candidates_of(self, repo_path: str) -> list[Candidate]:
        if repo_path not in self.mined:
            self.mined[repo_path] = mine(repo_path).candidates
        return self.mined[repo_path]

    def complete(self, task: Task, candidate: Candidate, strategy: Strategy) -> Task:
        """Validate a task skeleton by execution, write its statement, then judge it."""
        repo_path = Path(candidate.repo_path)
        for name, step in (("schema", lambda: check_schema(task, require_f2p=False, require_statement=False)),
                           ("compile", lambda: check_compile(task, repo_path)),
                           ("functional", lambda: check_functional_layer(task, self.validator, repo_path))):
            if name in self.layers and not self._record(task, name, step()):
                return task
        try:
            self.write_statement(task, candidate, strategy)
        except LLMError as exc:
            task.record("schema", LayerResult(False, 0.0, f"writer failed: {exc}", exc.category))
            return task
        score_difficulty(task, candidate)
        steps = (("schema", lambda: check_schema(task, require_f2p="functional" in self.layers)),
                 ("quality", lambda: check_quality(task, self.validator)),
                 ("semantic", lambda: check_semantic(task, self.validator)))
        for name, step in steps:
            if name in self.layers and not self._record(task, name, step()):
                return task
        return task

    @staticmethod
    def _record(task: Task, name: str, result: LayerResult) -> bool:
        task.record(name, result)
        return result.passed

    def write_statement(self, task: Task, candidate: Candidate, strategy: Strategy) -> None:
        context = statement_context(task, candidate, strategy)
        examples = []
        if self.archive is not None:
            query = f"{candidate.subject}\n{candidate.body}"
            examples = [t["problem_statement"] for t in self.archive.similar_successes(
                query, k=3, strategy_type=strategy.strategy_type.value)]
        context["examples"] = examples
        prompt = generation_prompt(
            instructions=strategy_instructions(strategy, candidate.repo), context=context,
            repo_context=repo_context(candidate), diff=task.patch, examples=examples)
        data, completion = self.llm.complete_json(prompt, required_keys=("problem_statement",), **strategy.params)
        task.problem_statement = str(data.get("problem_statement", "")).strip()
        task.hints_text = str(data.get("hints_text", "") or "").strip()
        task.generation.update({
            "model": completion.model, "prompt_hash": hashlib.sha256(prompt.encode()).hexdigest()[:16],
            "prompt_tokens": completion.prompt_tokens, "completion_tokens": completion.completion_tokens,
            "cost_usd": completion.cost_usd, "examples": len(examples)})


TEST_DRIVEN_RULE = "List the failing tests by name."


def strategy_instructions(strategy: Strategy, repo: str) -> str:
    """The strategy's prompt, plus the clause its contract needs when an evolved prompt lost it:
    a TEST_DRIVEN statement must name the failing tests (docs/strategies.md)."""
    text = render_instructions(strategy.prompt, repo)
    if strategy.strategy_type == StrategyType.TEST_DRIVEN and "failing test" not in text.lower():
        text = text.rstrip() + " " + TEST_DRIVEN_RULE
    return text


def defined_functions(source: str) -> set[str]:
    """Every def/class name in `source` (methods included)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set()
    return {n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}


def pick_candidates(candidates: list[Candidate], strategy_type: StrategyType) -> list[Candidate]:
    kinds = KINDS_FOR[StrategyType(strategy_type)]
    chosen = [c for c in candidates if c.kind in kinds]
    return chosen or list(candidates)


def skeleton(candidate: Candidate, strategy: Strategy) -> Task:
    repo = git.Repo(candidate.repo_path)
    patch = diff_text(repo, candidate.parent, candidate.sha, candidate.fix_paths)
    return Task(
        instance_id=f"{instance_prefix(candidate.repo)}__{strategy.strategy_type.value.lower()}-{candidate.sha[:8]}-{strategy.id[:6]}",
        repo=candidate.repo, base_commit=candidate.sha, patch=patch,
        test_patch=diff_text(repo, candidate.parent, candidate.sha, candidate.test_files),
        bug_patch=diff_text(repo, candidate.sha, candidate.parent, candidate.fix_paths),
        problem_statement="", strategy_type=strategy.strategy_type.value, strategy_id=strategy.id,
        created_at=candidate.created_at, repo_path=candidate.repo_path,
        generation={"touched_functions": candidate.touched_functions, "source_commit_subject": candidate.subject})


# ---------------------------------------------------------------- HYBRID: two commits, one task

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
        "added_lines": [line for line in patch_added_lines(python_part(task.patch)) if line.strip()],
    }


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
        out.append({"id": test_id, "assertion": " | ".join(text for _, text in found[:per_test]),
                    "added_lines": new_lines})
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
            found = [(set(range(inner.lineno, (inner.end_lineno or inner.lineno) + 1)), _one_line(inner))
                     for inner in _own_nodes(node) if _is_check(inner)]
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
        return any(isinstance(i.context_expr, ast.Call) and _callee(i.context_expr).endswith(("raises", "Raises"))
                   for i in node.items)
    return (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)
            and _callee(node.value).split(".")[-1].lstrip("_").startswith("assert"))


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


def score_difficulty(task: Task, candidate: Candidate) -> None:
    sources = {p: file_at(candidate.repo_path, candidate.sha, p) for p in candidate.source_files}
    task.difficulty, task.difficulty_level, metrics = difficulty(DifficultyInput(
        patch=task.patch, touched_sources=sources, touched_functions=candidate.touched_functions,
        f2p_count=len(task.FAIL_TO_PASS), statement=task.problem_statement))
    task.domain, task.skills = tag(candidate.message, task.patch, candidate.touched_functions)
    task.generation["difficulty_metrics"] = metrics
