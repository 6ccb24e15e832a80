"""Task difficulty in 0..1 from weighted code metrics and execution, and its level.

Each metric is squashed to 0..1 by `x / (x + half)`: `half` is the value that counts as
"medium" (0.5). The weighted sum of the squashed metrics is the difficulty; levels cut it at
0.35 and 0.6. Weights favour what makes a fix hard to find (lines, complexity of the touched
code) over what only makes it long (statement length).

Beside the patch, execution says how much the bug breaks: `f2p_tests` (how many tests fail
on the buggy state and pass on the fixed one) and `broken_share` (those failing tests as a
share of the tests that ran: F2P / (F2P + P2P); for a synthetic bug, the whole suite). When
the run is not known yet (a prediction before any container run, as candidate selection
makes), `broken_share` is left out and the other weights are scaled up to sum to 1.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from unidiff import PatchSet

# metric -> (weight, value that scores 0.5)
METRICS: dict[str, tuple[float, float]] = {
    "lines_changed": (0.25, 12.0),
    "hunks": (0.10, 3.0),
    "files": (0.15, 2.0),
    "complexity": (0.20, 6.0),
    "f2p_tests": (0.10, 3.0),
    "broken_share": (0.10, 0.25),
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
    p2p_count: int | None = None  # tests that ran and pass in both states; None: not run yet


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
    used = dict(METRICS)
    if data.p2p_count is None:
        used.pop("broken_share")
    else:
        ran = data.f2p_count + data.p2p_count
        raw["broken_share"] = round(data.f2p_count / ran, 4) if ran else 0.0
    total = sum(w for w, _ in used.values())
    score = sum(w * squash(raw[m], half) for m, (w, half) in used.items()) / total
    score = round(min(max(score, 0.0), 1.0), 4)
    return score, level_of(score), raw


def level_of(score: float) -> str:
    return next(name for cut, name in LEVELS if score < cut)
