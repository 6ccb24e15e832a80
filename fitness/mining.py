"""Mining candidate commits with GitPython, with SWE-MERA's filters and a funnel count.

A candidate is a commit that changes source *and* tests, touches fewer than
`max_source_files` source files, has a message of at least `min_message_chars`, and falls in
an optional date window (contamination control: keep only commits after a model's cutoff).
"""
from __future__ import annotations

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


def classify(subject: str, added_functions: list[str]) -> str:
    """A guess at the commit's kind from its subject's wording and whether it adds functions."""
    text = subject.lower()
    first = text.split()[0] if text.split() else ""
    if any(w in text for w in REFACTOR_WORDS) or (first in REFACTOR_VERBS and "bug" not in text):
        return "refactor"
    if added_functions and first in FEATURE_VERBS:
        return "feature_add"
    return "bug_fix"


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
            kind=classify(subject, added), added_functions=added, touched_functions=touched))
    if not saw_tests:
        raise MiningError(f"{path} has no tests: no commit touches a test file (tests/ or test_*.py)")
    return MiningResult(repo=name, funnel=funnel, candidates=candidates)


def _tree_paths(commit: git.Commit) -> list[str]:
    return [b.path for b in commit.tree.traverse() if b.type == "blob"]


def candidate_key(candidate: Candidate) -> str:
    return hashlib.sha256(f"{candidate.repo}:{candidate.sha}".encode()).hexdigest()[:10]
