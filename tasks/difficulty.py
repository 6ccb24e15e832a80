"""Task difficulty in 0..1 from weighted code metrics, and its level.

Each metric is squashed to 0..1 by `x / (x + half)`: `half` is the value that counts as
"medium" (0.5). The weighted sum of the squashed metrics is the difficulty; levels cut it at
0.35 and 0.6. Weights favour what makes a fix hard to find (lines, complexity of the touched
code) over what only makes it long (statement length).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from unidiff import PatchSet

# metric -> (weight, value that scores 0.5)
METRICS: dict[str, tuple[float, float]] = {
    "lines_changed": (0.30, 12.0),
    "hunks": (0.15, 3.0),
    "files": (0.15, 2.0),
    "complexity": (0.20, 6.0),
    "f2p_tests": (0.10, 3.0),
    "statement_words": (0.10, 120.0),
}
LEVELS = ((0.35, "easy"), (0.6, "medium"), (1.01, "hard"))


@dataclass
class DifficultyInput:
    patch: str
    touched_sources: dict[str, str]  # path -> file content at the fixed state
    touched_functions: list[str]
    f2p_count: int
    statement: str


def patch_metrics(patch: str) -> dict[str, int]:
    try:
        patch_set = PatchSet(patch)
    except Exception:  # unparsable patches are the schema layer's business
        return {"lines_changed": 0, "hunks": 0, "files": 0}
    return {
        "lines_changed": sum(f.added + f.removed for f in patch_set),
        "hunks": sum(len(f) for f in patch_set),
        "files": len(patch_set),
    }


BRANCHES = (
    ast.If,
    ast.For,
    ast.While,
    ast.Try,
    ast.With,
    ast.BoolOp,
    ast.IfExp,
    ast.comprehension,
    ast.ExceptHandler,
    ast.Match if hasattr(ast, "Match") else ast.If,
)


def cyclomatic(sources: dict[str, str], functions: list[str]) -> int:
    """McCabe-style count (1 + branch points) summed over the touched functions."""
    total = 0
    wanted = set(functions)
    for text in sources.values():
        try:
            tree = ast.parse(text)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in wanted:
                total += 1 + sum(isinstance(n, BRANCHES) for n in ast.walk(node))
    return total


def squash(value: float, half: float) -> float:
    return value / (value + half) if value > 0 else 0.0


def difficulty(data: DifficultyInput) -> tuple[float, str, dict]:
    raw = dict(patch_metrics(data.patch))
    raw["complexity"] = cyclomatic(data.touched_sources, data.touched_functions)
    raw["f2p_tests"] = data.f2p_count
    raw["statement_words"] = len(data.statement.split())
    score = sum(w * squash(raw[m], half) for m, (w, half) in METRICS.items())
    score = round(min(max(score, 0.0), 1.0), 4)
    return score, level_of(score), raw


def level_of(score: float) -> str:
    return next(name for cut, name in LEVELS if score < cut)
