"""Candidate selection: cheap features of a candidate commit, and the order a strategy's
selection genes put the commits in.

A failed attempt costs container runs, and on real repositories most candidate commits do not
yield (their new tests already pass without the fix). The features below need no run, only
the commit's diff and files, so a strategy can spend its validations on the commits most
likely to yield, or to be hard, before the others:

=========  ==================================================================================
feature    value (each in 0..1, `cue` in -1..1)
=========  ==================================================================================
size       mean of the squashed source lines changed, files, hunks and functions touched
tests      half the share of changed test functions that are new, half the squashed count of
           asserts (and `pytest.raises` / `self.assert...`) the test diff adds
link       1 when a test function the diff adds or changes calls a function the source diff
           changes (by name), else 0
cue        +1 for fix wording in the message (fix, bug, regression, crash, wrong, ...), -1 for
           wording of changes that rarely break a test (docs, typing, lint, style, deprecate,
           refactor, ...), 0 for both or neither
age        recency within the pool: 1 the newest candidate, 0 the oldest
=========  ==================================================================================

`predicted_difficulty` is `tasks.difficulty` on the source diff and the touched functions'
complexity, with the number of changed test functions for the FAIL_TO_PASS count: the
difficulty band genes prefer candidates inside the band.

Order: score = sum of weight x feature, minus 2 x the distance of the predicted difficulty to
the band. A stable sort by descending score, so ties (and a strategy whose selection genes are
all neutral) keep the order they came in: the generation's common random sample.
"""

from __future__ import annotations

import ast
import re
from dataclasses import asdict, dataclass
from datetime import datetime
from functools import lru_cache

import git

from tasks.difficulty import DifficultyInput, difficulty, patch_metrics, squash
from tasks.mining import Candidate, diff_text
from tasks.strategy import GENE_DEFAULTS, Strategy

FEATURES = ("size", "tests", "link", "cue", "age")
WEIGHT_GENES = {f"sel_{name}": name for name in FEATURES}
SELECTION_GENES = (*WEIGHT_GENES, "band_low", "band_high")
BAND_PENALTY = 2.0

FIX_CUES = re.compile(
    r"\b(fix(e[sd])?|bugs?|bugfix|regression|crash(es|ed)?|broken|wrong|incorrect(ly)?|"
    r"error|fail(s|ed|ure)?|handle|correct(ly)?|prevent|respect|preserve|avoid)\b"
)
QUIET_CUES = re.compile(
    r"\b(docs?|documentation|docstrings?|typos?|typing|type hints?|annotations?|mypy|lint|flake8|ruff|"
    r"pylint|style|format(ting)?|black|isort|cleanup|clean up|refactor(ing)?|deprecat\w*|ci|coverage|"
    r"changelog|readme|tests? only|pre-commit|bump|release)\b"
)
ASSERT_LINE = re.compile(
    r"^\+\s*(assert\b|self\.assert|with\s+pytest\.raises|pytest\.raises|with\s+self\.assertRaises)"
)


@dataclass(frozen=True)
class CommitFeatures:
    size: float
    tests: float
    link: float
    cue: float
    timestamp: float
    predicted_difficulty: float
    raw: dict

    def to_dict(self) -> dict:
        return asdict(self)


def selection_is_neutral(strategy: Strategy) -> bool:
    return all(strategy.genes[name] == GENE_DEFAULTS[name] for name in SELECTION_GENES)


@lru_cache(maxsize=16)
def _repo(path: str) -> git.Repo:
    return git.Repo(path)


def _source_at(repo: git.Repo, sha: str, path: str) -> str:
    try:
        return repo.commit(sha).tree[path].data_stream.read().decode("utf-8", errors="replace")
    except (KeyError, ValueError):
        return ""


def _test_functions(source: str) -> dict[str, tuple[int, int, ast.AST]]:
    """Test function name (Class.name for methods) -> (first line, last line, node)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return {}
    out = {}
    for node in tree.body:
        items = [(None, node)] if not isinstance(node, ast.ClassDef) else [(node.name, n) for n in node.body]
        for owner, fn in items:
            if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) and fn.name.startswith("test"):
                name = f"{owner}.{fn.name}" if owner else fn.name
                out[name] = (fn.lineno, fn.end_lineno or fn.lineno, fn)
    return out


def _called_names(node: ast.AST) -> set[str]:
    names = set()
    for inner in ast.walk(node):
        if isinstance(inner, ast.Call):
            func = inner.func
            if isinstance(func, ast.Name):
                names.add(func.id)
            elif isinstance(func, ast.Attribute):
                names.add(func.attr)
        elif isinstance(inner, ast.Attribute):  # a property or method handed on as a value
            names.add(inner.attr)
    return names


def _changed_lines(patch: str) -> tuple[dict[str, set[int]], dict[str, set[int]]]:
    """(file -> lines the diff adds, numbered in the new file; file -> lines it removes,
    numbered in the old one)."""
    added: dict[str, set[int]] = {}
    removed: dict[str, set[int]] = {}
    old_path = path = None
    old = new = 0
    for text in patch.splitlines():
        if text.startswith("--- "):
            old_path = text[6:] if text.startswith("--- a/") else None
            continue
        if text.startswith("+++ "):
            path = text[6:] if text.startswith("+++ b/") else None
            continue
        if text.startswith("@@"):
            m = re.match(r"@@ -(\d+)(?:,\d+)? \+(\d+)", text)
            old, new = (int(m.group(1)), int(m.group(2))) if m else (0, 0)
            continue
        if text.startswith("+"):
            if path:
                added.setdefault(path, set()).add(new)
            new += 1
        elif text.startswith("-"):
            if old_path:
                removed.setdefault(old_path, set()).add(old)
            old += 1
        elif not text.startswith("\\"):
            old += 1
            new += 1
    return added, removed


def _added_lines_by_file(patch: str) -> dict[str, set[int]]:
    return _changed_lines(patch)[0]


def _functions_touching(source: str, lines: set[int]) -> set[str]:
    """Names of the functions (methods included) whose body holds one of `lines`."""
    if not lines:
        return set()
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return set()
    return {
        node.name
        for node in ast.walk(tree)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        and lines & set(range(node.lineno, (node.end_lineno or node.lineno) + 1))
    }


def cue_of(message: str) -> float:
    text = message.lower()
    fix, quiet = bool(FIX_CUES.search(text)), bool(QUIET_CUES.search(text))
    return 1.0 if fix and not quiet else -1.0 if quiet and not fix else 0.0


@lru_cache(maxsize=65536)
def _features(repo_path: str, sha: str, parent: str, sources: tuple, tests: tuple, touched: tuple):
    repo = _repo(repo_path)
    source_patch = diff_text(repo, parent, sha, list(sources))
    test_patch = diff_text(repo, parent, sha, list(tests))
    metrics = patch_metrics(source_patch)
    functions = len(touched)
    added = _added_lines_by_file(test_patch)
    new = modified = 0
    called: set[str] = set()
    for path in tests:
        after = _test_functions(_source_at(repo, sha, path))
        before = _test_functions(_source_at(repo, parent, path))
        lines = added.get(path, set())
        for name, (first, last, node) in after.items():
            if name not in before:
                new += 1
            elif lines & set(range(first, last + 1)):
                modified += 1
            else:
                continue
            called |= _called_names(node)
    asserts = sum(1 for line in test_patch.splitlines() if ASSERT_LINE.match(line))
    changed_tests = new + modified
    share_new = new / changed_tests if changed_tests else 0.0
    # the functions the source diff changes: those mining named, and those whose body holds a
    # changed line (a hunk that starts above its def names none in its header)
    touched_names = {name.split(".")[-1] for name in touched}
    source_added, source_removed = _changed_lines(source_patch)
    for path in sources:
        touched_names |= _functions_touching(_source_at(repo, sha, path), source_added.get(path, set()))
        touched_names |= _functions_touching(_source_at(repo, parent, path), source_removed.get(path, set()))
    functions = max(functions, len(touched_names))
    size = (
        squash(metrics["lines_changed"], 12.0)
        + squash(metrics["files"], 2.0)
        + squash(metrics["hunks"], 3.0)
        + squash(functions, 3.0)
    ) / 4
    link = 1.0 if touched_names & called else 0.0
    predicted, _, _ = difficulty(
        DifficultyInput(
            patch=source_patch,
            touched_sources={p: _source_at(repo, sha, p) for p in sources},
            touched_functions=sorted(set(touched) | touched_names),
            f2p_count=changed_tests,
            statement="",
        )
    )
    raw = {
        **metrics,
        "functions": functions,
        "new_tests": new,
        "modified_tests": modified,
        "asserts_added": asserts,
        "linked": sorted(touched_names & called),
    }
    return size, 0.5 * share_new + 0.5 * squash(asserts, 4.0), link, predicted, raw


def commit_features(candidate: Candidate) -> CommitFeatures:
    """The candidate's features (cached per commit for the life of the process)."""
    size, tests, link, predicted, raw = _features(
        str(candidate.repo_path),
        candidate.sha,
        candidate.parent,
        tuple(candidate.source_files),
        tuple(candidate.test_files),
        tuple(candidate.touched_functions),
    )
    return CommitFeatures(
        size=round(size, 4),
        tests=round(tests, 4),
        link=link,
        cue=cue_of(candidate.description),
        timestamp=_timestamp(candidate.created_at),
        predicted_difficulty=predicted,
        raw=dict(raw),
    )


def _timestamp(created_at: str) -> float:
    try:
        return datetime.fromisoformat(created_at).timestamp()
    except (TypeError, ValueError):
        return 0.0


def feature_vectors(candidates: list[Candidate]) -> list[dict[str, float]]:
    """Per candidate, the five features (age relative to this pool) and the predicted difficulty."""
    feats = [commit_features(c) for c in candidates]
    stamps = [f.timestamp for f in feats]
    low, high = (min(stamps), max(stamps)) if stamps else (0.0, 0.0)
    out = []
    for f in feats:
        age = (f.timestamp - low) / (high - low) if high > low else 0.5
        out.append(
            {
                "size": f.size,
                "tests": f.tests,
                "link": f.link,
                "cue": f.cue,
                "age": round(age, 4),
                "predicted_difficulty": f.predicted_difficulty,
            }
        )
    return out


def selection_score(strategy: Strategy, vector: dict[str, float]) -> float:
    g = strategy.genes
    score = sum(g[gene] * vector[name] for gene, name in WEIGHT_GENES.items())
    d = vector["predicted_difficulty"]
    distance = max(g["band_low"] - d, 0.0, d - g["band_high"])
    return score - BAND_PENALTY * distance


def order_candidates(candidates: list[Candidate], strategy: Strategy) -> list[Candidate]:
    """The candidates in the order the strategy's selection genes prefer (stable: ties keep
    the order given). Neutral genes return the list as given, without reading any commit."""
    if selection_is_neutral(strategy) or len(candidates) < 2:
        return list(candidates)
    scores = [selection_score(strategy, v) for v in feature_vectors(candidates)]
    ranked = sorted(range(len(candidates)), key=lambda i: (-round(scores[i], 9), i))
    return [candidates[i] for i in ranked]
