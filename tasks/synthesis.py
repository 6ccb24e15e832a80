"""Procedural bug synthesis in the manner of SWE-smith: no LLM creates the bug.

An AST walk over the source files of a repository's HEAD finds mutation sites inside
functions (a comparison, an integer constant, an `if` guard, a call with two positional
arguments). A mutation rewrites exactly one expression's source segment, so the rest of the
file keeps its formatting and the diff stays one hunk. The task is SWE-gen's shape:
`base_commit` = HEAD (the correct code), `bug_patch` = the mutation, `patch` = its reverse,
`test_patch` empty (the repository's own tests catch the bug); FAIL_TO_PASS comes from
running them (tests that pass at HEAD and fail with the mutation), in the functional layer.
"""

from __future__ import annotations

import ast
import difflib
import hashlib
import random
from dataclasses import dataclass
from pathlib import Path

import git

from sandbox import repo_name
from tasks.mining import Candidate, instance_prefix, is_source_path, open_repo
from tasks.task import Task

STRATEGY_TYPE = "SYNTHETIC"
FLIPPED: dict[type, type] = {
    ast.Lt: ast.LtE,
    ast.LtE: ast.Lt,
    ast.Gt: ast.GtE,
    ast.GtE: ast.Gt,
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
    ast.Is: ast.IsNot,
    ast.IsNot: ast.Is,
    ast.In: ast.NotIn,
    ast.NotIn: ast.In,
}


@dataclass(frozen=True)
class Mutation:
    path: str
    function: str
    operator: str  # flip_comparison | off_by_one | drop_guard | swap_arguments
    node: ast.AST
    replacement: str  # new source text of the node's segment


def _flip_comparison(node: ast.AST) -> str | None:
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in FLIPPED:
        return ast.unparse(ast.Compare(node.left, [FLIPPED[type(node.ops[0])]()], node.comparators))
    return None


def _off_by_one(node: ast.AST) -> str | None:
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return str(node.value + 1)
    return None


def _drop_guard(node: ast.AST) -> str | None:
    # The guard's test becomes False: its branch never runs (its else, if any, always does).
    return "False" if isinstance(node, ast.If) else None


def _swap_arguments(node: ast.AST) -> str | None:
    if (
        isinstance(node, ast.Call)
        and len(node.args) >= 2
        and not any(isinstance(a, ast.Starred) for a in node.args[:2])
    ):
        if ast.dump(node.args[0]) != ast.dump(node.args[1]):
            args = [node.args[1], node.args[0], *node.args[2:]]
            return ast.unparse(ast.Call(node.func, args, node.keywords))
    return None


OPERATORS = {
    "flip_comparison": _flip_comparison,
    "off_by_one": _off_by_one,
    "drop_guard": _drop_guard,
    "swap_arguments": _swap_arguments,
}


def mutation_sites(path: str, source: str) -> list[Mutation]:
    """Every mutation of every function in `source`, in source order."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    found = []
    for func in (n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))):
        for node in ast.walk(func):
            if node is func or _in_docstring(func, node):
                continue
            for name, operator in OPERATORS.items():
                replacement = operator(node)
                if replacement is not None:
                    target = node.test if isinstance(node, ast.If) else node
                    found.append(Mutation(path, func.name, name, target, replacement))
    return sorted(found, key=lambda m: (m.node.lineno, m.node.col_offset, m.operator))


def _in_docstring(func: ast.AST, node: ast.AST) -> bool:
    first = func.body[0] if func.body else None
    return isinstance(first, ast.Expr) and node is first.value


def apply_mutation(source: str, mutation: Mutation) -> str | None:
    """The source with the node's segment replaced, or None when it would not parse or not change."""
    lines = source.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))
    node = mutation.node
    begin = starts[node.lineno - 1] + _char_offset(lines[node.lineno - 1], node.col_offset)
    end = starts[node.end_lineno - 1] + _char_offset(lines[node.end_lineno - 1], node.end_col_offset)
    mutated = source[:begin] + mutation.replacement + source[end:]
    if mutated == source:
        return None
    try:
        ast.parse(mutated)
    except SyntaxError:
        return None
    return mutated


def _char_offset(line: str, byte_offset: int) -> int:
    # ast offsets count UTF-8 bytes
    return len(line.encode("utf-8")[:byte_offset].decode("utf-8", errors="ignore"))


def unified_diff(path: str, old: str, new: str) -> str:
    return "".join(
        difflib.unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True), f"a/{path}", f"b/{path}")
    )


def head_sources(repo: git.Repo) -> dict[str, str]:
    head = repo.head.commit
    out = {}
    for blob in head.tree.traverse():
        if blob.type == "blob" and is_source_path(blob.path):
            out[blob.path] = blob.data_stream.read().decode("utf-8", errors="replace")
    return out


def synthesize(repo_path: str | Path, n: int, seed: int) -> list[Task]:
    """Up to `n` task skeletons, each one mutation of a function at HEAD, chosen by `seed`.

    Deterministic: the sites are listed in path and source order, then shuffled by `seed`.
    FAIL_TO_PASS is empty until the functional layer runs the tests.
    """
    repo = open_repo(repo_path)
    name, head = repo_name(repo_path), repo.head.commit
    sources = head_sources(repo)
    sites = [m for path in sorted(sources) for m in mutation_sites(path, sources[path])]
    random.Random(seed).shuffle(sites)
    tasks = []
    for mutation in sites:
        if len(tasks) >= n:
            break
        mutated = apply_mutation(sources[mutation.path], mutation)
        if mutated is not None:
            tasks.append(_task(name, str(Path(repo_path).resolve()), head, mutation, sources[mutation.path], mutated))
    return tasks


def _task(name: str, repo_path: str, head: git.Commit, mutation: Mutation, source: str, mutated: str) -> Task:
    bug_patch = unified_diff(mutation.path, source, mutated)
    key = hashlib.sha256(bug_patch.encode()).hexdigest()[:8]
    created = head.committed_datetime.isoformat()
    return Task(
        instance_id=f"{instance_prefix(name)}__synthetic-{mutation.operator}-{key}",
        repo=name,
        base_commit=head.hexsha,
        patch=unified_diff(mutation.path, mutated, source),
        test_patch="",
        problem_statement="",
        bug_patch=bug_patch,
        strategy_type=STRATEGY_TYPE,
        strategy_id=f"synthetic-{mutation.operator}",
        created_at=created,
        repo_path=repo_path,
        generation={
            "touched_functions": [mutation.function],
            "mutation": mutation.operator,
            "source_commit_subject": f"{mutation.function} behaves incorrectly",
        },
    )


def candidate_of(task: Task) -> Candidate:
    """A stand-in candidate so the generator's statement and difficulty steps can run on a
    synthetic task: the fixed state is HEAD and the touched function is the mutated one."""
    function = task.generation["touched_functions"][0]
    files = sorted({line[6:] for line in task.patch.splitlines() if line.startswith("+++ b/")})
    return Candidate(
        repo=task.repo,
        repo_path=task.repo_path,
        sha=task.base_commit,
        parent=task.base_commit,
        subject=f"{function} behaves incorrectly",
        body="",
        created_at=task.created_at,
        source_files=files,
        test_files=[],
        kind="bug_fix",
        touched_functions=[function],
    )


def generate_synthetic(
    repo_path: str | Path, generator, strategy, n: int, seed: int, max_tries: int | None = None
) -> list[Task]:
    """Synthesize bugs and run each through the generator's cascade (execution first, then
    the statement written with `strategy`'s prompt, then the judges). Returns every tried
    task, kept or not; at most `max_tries` (default 3n) are tried, stopping at n kept."""
    tasks = []
    for task in synthesize(repo_path, max_tries or 3 * n, seed):
        tasks.append(generator.complete(task, candidate_of(task), strategy))
        if sum(t.passed for t in tasks) >= n:
            break
    return tasks
