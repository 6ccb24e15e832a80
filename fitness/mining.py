"""Mining candidate commits with GitPython, with SWE-MERA's filters and a funnel count.

A candidate is a commit that changes source *and* tests, touches fewer than
`max_source_files` source files, has a message of at least `min_message_chars`, and falls in
an optional date window (contamination control: keep only commits after a model's cutoff).
"""
from __future__ import annotations

import ast
import hashlib
import re
from dataclasses import asdict, dataclass, field
from datetime import date, datetime, timezone
from pathlib import Path

import git

TEST_PATH = re.compile(r"(^|/)(tests?|testing)/|(^|/)test_[^/]*\.py$|_test\.py$|(^|/)conftest\.py$")
DOC_SUFFIXES = (".md", ".rst", ".txt", ".cfg", ".toml", ".ini", ".yaml", ".yml", ".json")


class MiningError(ValueError):
    """A repository that cannot be mined (not a git repo, no history, no tests)."""


@dataclass
class Candidate:
    repo: str
    repo_path: str
    sha: str
    parent: str
    subject: str
    body: str
    created_at: str
    source_files: list[str]
    test_files: list[str]
    kind: str  # bug_fix | feature_add | refactor | other (a guess from message and diff)
    added_functions: list[str] = field(default_factory=list)
    touched_functions: list[str] = field(default_factory=list)

    @property
    def message(self) -> str:
        return (self.subject + "\n\n" + self.body).strip()

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class MiningResult:
    repo: str
    funnel: dict[str, int]
    candidates: list[Candidate]

    def to_dict(self) -> dict:
        return {"repo": self.repo, "funnel": self.funnel,
                "candidates": [c.to_dict() for c in self.candidates]}


def is_test_path(path: str) -> bool:
    return bool(TEST_PATH.search(path))


def is_source_path(path: str) -> bool:
    return path.endswith(".py") and not is_test_path(path) and not path.startswith(("docs/", "doc/"))


def open_repo(path: str | Path) -> git.Repo:
    path = Path(path)
    if not path.exists():
        raise MiningError(f"{path} does not exist")
    try:
        repo = git.Repo(path)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError):
        raise MiningError(f"{path} is not a git repository") from None
    try:
        repo.head.commit
    except ValueError:
        raise MiningError(f"{path} is a git repository with no commits") from None
    return repo


def repo_name(repo: git.Repo) -> str:
    return Path(repo.working_tree_dir or repo.git_dir).name


def _commit_date(commit: git.Commit) -> datetime:
    return datetime.fromtimestamp(commit.committed_date, tz=timezone.utc)


def _parse_day(value: str | date | None) -> date | None:
    if value is None or isinstance(value, date):
        return value
    try:
        return date.fromisoformat(str(value))
    except ValueError:
        raise MiningError(f"date {value!r} is not in YYYY-MM-DD form") from None


DEF_LINE = re.compile(r"^[+-]\s*(?:async\s+)?def\s+([A-Za-z_]\w*)|^[+-]\s*class\s+([A-Za-z_]\w*)")
HUNK_FUNC = re.compile(r"^@@ .* @@\s*(?:async\s+)?(?:def|class)\s+([A-Za-z_]\w*)")


def _functions_in_diff(diff_text: str) -> tuple[list[str], list[str]]:
    """Names of functions added by the diff, and of functions it touches (hunk headers + defs)."""
    added, removed, touched = [], set(), []
    for line in diff_text.splitlines():
        m = DEF_LINE.match(line)
        if m and not line.startswith(("+++", "---")):
            name = m.group(1) or m.group(2)
            if line.startswith("+"):
                added.append(name)
            else:
                removed.add(name)
            if name not in touched:
                touched.append(name)
        h = HUNK_FUNC.match(line)
        if h and h.group(1) not in touched:
            touched.append(h.group(1))
    new = [n for n in added if n not in removed]
    return new, touched


REFACTOR_WORDS = ("refactor", "rename", "extract", "restructure", "reorganis", "reorganiz")
REFACTOR_VERBS = ("move", "split", "introduce", "inline")
FEATURE_VERBS = ("add", "adds", "implement", "support", "provide", "expose", "allow", "offer")


def classify(subject: str, added_functions: list[str], shape: str = "") -> str:
    """A guess at the commit's kind from its subject's wording, its added functions and its
    diff shape (see `diff_shape`): a change that only renames or re-signs existing functions
    is a refactor whatever its wording says."""
    text = subject.lower()
    first = text.split()[0] if text.split() else ""
    if any(w in text for w in REFACTOR_WORDS) or (first in REFACTOR_VERBS and "bug" not in text):
        return "refactor"
    if shape == "restructure":
        return "refactor"
    if added_functions and first in FEATURE_VERBS:
        return "feature_add"
    return "bug_fix"


def _functions_of(source: str) -> dict[str, ast.AST]:
    """Qualified name -> def node, for top-level functions and methods."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return {}
    found: dict[str, ast.AST] = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            found[node.name] = node
        elif isinstance(node, ast.ClassDef):
            for inner in node.body:
                if isinstance(inner, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    found[f"{node.name}.{inner.name}"] = inner
    return found


class _EraseNames(ast.NodeTransformer):
    """Replace every identifier by one placeholder, so renames compare equal."""

    def visit_Name(self, node: ast.Name) -> ast.AST:
        return ast.copy_location(ast.Name(id="_", ctx=node.ctx), node)

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        self.generic_visit(node)
        node.attr = "_"
        return node

    def visit_arg(self, node: ast.arg) -> ast.AST:
        node.arg, node.annotation = "_", None
        return node


def _body(node: ast.AST, erase: bool = False) -> str:
    statements = list(node.body)
    if statements and isinstance(statements[0], ast.Expr) and isinstance(getattr(statements[0], "value", None), ast.Constant):
        statements = statements[1:]  # a docstring edit changes no behaviour
    module = ast.Module(body=statements, type_ignores=[])
    if erase:
        module = _EraseNames().visit(ast.parse(ast.unparse(module)))
    return ast.dump(module)


def _identifiers(node: ast.AST) -> list[str]:
    """Identifiers in a fixed walk order, so two same-shape bodies pair up name by name."""
    out = []
    for inner in ast.walk(node):
        if isinstance(inner, ast.Name):
            out.append(inner.id)
        elif isinstance(inner, ast.Attribute):
            out.append(inner.attr)
        elif isinstance(inner, ast.arg):
            out.append(inner.arg)
    return out


def defined_names(source: str) -> set[str]:
    """Names the file itself defines (assigned, parameters, defs, classes); imports excluded,
    so switching to another library call is never mistaken for a rename."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set()
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Name, ast.Attribute)) and isinstance(node.ctx, ast.Store):
            names.add(node.id if isinstance(node, ast.Name) else node.attr)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
    return names


def _is_consistent_rename(old: ast.AST, new: ast.AST, old_defined: set[str], new_defined: set[str]) -> bool:
    mapping: dict[str, str] = {}
    for a, b in zip(_identifiers(old), _identifiers(new)):
        if a == b:
            continue
        if a not in old_defined or b not in new_defined or mapping.setdefault(a, b) != b:
            return False
    return bool(mapping)


def function_change(old: ast.AST, new: ast.AST, old_defined: set[str] = frozenset(),
                    new_defined: set[str] = frozenset()) -> str:
    """unchanged | signature (same body, other parameters) | rename (same shape, names of the
    file's own definitions renamed consistently) | behaviour."""
    if _body(old) == _body(new):
        return "unchanged" if ast.dump(old.args) == ast.dump(new.args) else "signature"
    if _body(old, erase=True) == _body(new, erase=True) and _is_consistent_rename(
            ast.parse(_body_source(old)), ast.parse(_body_source(new)), old_defined, new_defined):
        return "rename"
    return "behaviour"


def _body_source(node: ast.AST) -> str:
    statements = list(node.body)
    if statements and isinstance(statements[0], ast.Expr) and isinstance(getattr(statements[0], "value", None), ast.Constant):
        statements = statements[1:]
    return ast.unparse(ast.Module(body=statements, type_ignores=[]))


def diff_shape(old_sources: dict[str, str], new_sources: dict[str, str]) -> str:
    """restructure: existing functions change only in signature or names (no behaviour);
    behaviour: some existing function's logic changes; additive: only new code."""
    changes = []
    for path in sorted(set(old_sources) & set(new_sources)):
        old, new = _functions_of(old_sources[path]), _functions_of(new_sources[path])
        old_defined, new_defined = defined_names(old_sources[path]), defined_names(new_sources[path])
        changes += [function_change(old[n], new[n], old_defined, new_defined) for n in sorted(set(old) & set(new))]
    changed = [c for c in changes if c != "unchanged"]
    if not changed:
        return "additive"
    return "behaviour" if "behaviour" in changed else "restructure"


def _sources_at(repo: git.Repo, sha: str, paths: list[str]) -> dict[str, str]:
    out = {}
    for path in paths:
        try:
            out[path] = repo.git.show(f"{sha}:{path}")
        except git.GitCommandError:  # file added or deleted by the commit
            continue
    return out


def diff_text(repo: git.Repo, old: str, new: str, paths: list[str]) -> str:
    """A `git apply`-able unified diff from `old` to `new`, limited to `paths`."""
    if not paths:
        return ""
    out = repo.git.diff(old, new, "--no-color", "--no-ext-diff", "--full-index", "--binary", "--", *paths)
    return out + "\n" if out and not out.endswith("\n") else out


def mine(path: str | Path, *, since: str | date | None = None, until: str | date | None = None,
         max_source_files: int = 15, min_message_chars: int = 25, max_commits: int = 2000) -> MiningResult:
    """Walk the history of HEAD (oldest first) and apply the filters, counting survivors."""
    repo = open_repo(path)
    since_day, until_day = _parse_day(since), _parse_day(until)
    name = repo_name(repo)
    funnel = {"commits": 0, "changes_source_and_tests": 0, "small_enough": 0,
              "message_length": 0, "date_window": 0}
    candidates: list[Candidate] = []
    commits = list(repo.iter_commits("HEAD", max_count=max_commits, first_parent=True))[::-1]
    saw_tests = False
    for commit in commits:
        if not commit.parents:
            saw_tests |= any(is_test_path(p) for p in _tree_paths(commit))
            continue
        funnel["commits"] += 1
        parent = commit.parents[0]
        changed = sorted(commit.stats.files.keys())
        source = [p for p in changed if is_source_path(p)]
        tests = [p for p in changed if is_test_path(p) and p.endswith(".py")]
        saw_tests |= bool(tests)
        if not source or not tests:
            continue
        funnel["changes_source_and_tests"] += 1
        if len(source) >= max_source_files:
            continue
        funnel["small_enough"] += 1
        if len(commit.message.strip()) < min_message_chars:
            continue
        funnel["message_length"] += 1
        day = _commit_date(commit).date()
        if (since_day and day < since_day) or (until_day and day > until_day):
            continue
        funnel["date_window"] += 1
        src_diff = diff_text(repo, parent.hexsha, commit.hexsha, source)
        added, touched = _functions_in_diff(src_diff)
        subject, _, body = commit.message.strip().partition("\n")
        candidates.append(Candidate(
            repo=name, repo_path=str(Path(repo.working_tree_dir).resolve()), sha=commit.hexsha,
            parent=parent.hexsha, subject=subject.strip(), body=body.strip(),
            created_at=_commit_date(commit).isoformat(), source_files=source, test_files=tests,
            kind=classify(subject, added, _shape_of(repo, parent.hexsha, commit.hexsha, source)),
            added_functions=added, touched_functions=touched))
    if not saw_tests:
        raise MiningError(f"{path} has no tests: no commit touches a test file (tests/ or test_*.py)")
    return MiningResult(repo=name, funnel=funnel, candidates=candidates)


def _shape_of(repo: git.Repo, old: str, new: str, paths: list[str]) -> str:
    return diff_shape(_sources_at(repo, old, paths), _sources_at(repo, new, paths))


def _tree_paths(commit: git.Commit) -> list[str]:
    return [b.path for b in commit.tree.traverse() if b.type == "blob"]


def candidate_key(candidate: Candidate) -> str:
    return hashlib.sha256(f"{candidate.repo}:{candidate.sha}".encode()).hexdigest()[:10]
