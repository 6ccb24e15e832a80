"""Mining candidate commits with GitPython, with SWE-MERA's filters and a funnel count.

A candidate is a commit that changes source *and* tests, touches fewer than
`max_source_files` source files, has a message of at least `min_message_chars`, and falls in
an optional date window (contamination control: keep only commits after a model's cutoff).
"""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from datetime import date, datetime, timezone
from pathlib import Path

import git
from unidiff import PatchSet, UnidiffParseError

from environment import (
    LANGUAGE_NAMES,
    LANGUAGE_OF,
    PYTHON_LANGUAGE,
    Language,
    common_extensions,
    language_markers,
    snapshot_files,
)
from llm import is_prose_file
from records import UserError
from sandbox import repo_name
from tasks.evidence import js as js_syntax
from tasks.history import (
    CommitRecord,
    History,
    PullRequest,
    first_parent_chain,
    pull_request_of,
    referenced_issues,
    trailing_number,
    walk,
)

TEST_PATH = PYTHON_LANGUAGE.test_path  # Python's; every language's file roles are in `environment.Language`


class MiningError(UserError):
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
    fix_files: list[str] = field(default_factory=list)  # every non-test file it changes (the gold patch)
    pr_number: str = ""  # the pull request that brought it in, when a merge message names one
    pr_title: str = ""  # its title and description, when they differ from the commit's own
    pr_body: str = ""
    merge: str = ""  # sha of that merge commit
    issues: list[str] = field(default_factory=list)  # "#12" references in the messages
    first_parent: bool = True  # on the branch's first-parent chain (False: from a merged branch)
    language: str = "python"  # the language whose source and tests it changes (environment.LANGUAGE_OF)

    @property
    def message(self) -> str:
        return (self.subject + "\n\n" + self.body).strip()

    @property
    def fix_paths(self) -> list[str]:
        """What the gold patch and its reversal (bug_patch) cover: every non-test change,
        whatever the file type (data files, templates, extensions, config), documentation aside."""
        return self.fix_files or self.source_files

    @property
    def description(self) -> str:
        """Everything written about the change: the commit message and its pull request's."""
        return "\n\n".join(t for t in (self.message, self.pr_title, self.pr_body) if t)

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class MiningResult:
    repo: str
    funnel: dict[str, int]
    candidates: list[Candidate]

    def to_dict(self) -> dict:
        return {"repo": self.repo, "funnel": self.funnel, "candidates": [c.to_dict() for c in self.candidates]}


def is_test_path(path: str) -> bool:
    """Where Python keeps its tests (any file type); `environment.Language` for every language."""
    return PYTHON_LANGUAGE.in_test_tree(path)


def is_source_path(path: str) -> bool:
    """A Python source module (synthetic bugs target these)."""
    return PYTHON_LANGUAGE.is_source_path(path)


def open_repo(path: str | Path) -> git.Repo:
    path = Path(path)
    if not path.exists():
        raise MiningError(f"{path} does not exist")
    try:
        repo = git.Repo(path)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError):
        raise MiningError(f"{path} is not a git repository") from None
    try:
        _ = repo.head.commit  # raises ValueError when there is none
    except ValueError:
        raise MiningError(f"{path} is a git repository with no commits") from None
    return repo


MINED_LANGUAGES = ("python", "javascript")  # the languages whose commits become tasks


def require_mined_language(path: str | Path) -> tuple[Language, ...]:
    """The languages mining reads that the repository's HEAD holds; MiningError with one
    sentence when it holds none of them: what it holds instead, and which languages SEBGen knows."""
    files = snapshot_files(Path(path), "HEAD")
    markers = language_markers(files)
    found = tuple(LANGUAGE_OF[language] for language in MINED_LANGUAGES if language in markers)
    if found:
        return found
    mined = " and ".join(LANGUAGE_NAMES[lang] for lang in MINED_LANGUAGES)
    today = f"SEBGen makes tasks from {mined} repositories"
    name = repo_name(path)
    if markers:
        found_names = " and ".join(LANGUAGE_NAMES[lang] for lang in markers)
        shown = ", ".join(f for lang in markers for f in markers[lang])
        raise MiningError(f"{name} is a {found_names} repository ({shown}); {today}")
    extensions = common_extensions(files)
    holds = f"its files are mostly {', '.join(extensions)}" if extensions else "it holds no files with an extension"
    raise MiningError(
        f"{name} is in none of the languages SEBGen knows ({', '.join(LANGUAGE_NAMES.values())}): "
        f"no Python packaging file or Python test, no package.json; {holds}. {today}"
    )


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


REFACTOR_WORDS = re.compile(r"\b(refactor\w*|renam\w*|extract\w*|restructur\w*|reorgani[sz]\w*)\b")
REFACTOR_VERBS = ("move", "split", "introduce", "inline")
FEATURE_VERBS = (
    "add",
    "adds",
    "added",
    "implement",
    "implements",
    "support",
    "supports",
    "provide",
    "expose",
    "allow",
    "allows",
    "offer",
    "enable",
    "enables",
    "new",
)
FIX_WORDS = re.compile(r"\b(fix(es|ed)?|bugs?|bugfix|hotfix|regression|crash(es)?|broken|wrong|incorrect(ly)?|typo)\b")
MERGE_SUBJECT = re.compile(r"^merge\b")
CODE_SPAN = re.compile(r"`[^`]*`|\b\w*[_.]\w*\b|\b\w+\(\)")  # `code`, snake_case, dotted.names, calls()


def wording(subject: str) -> str:
    """A subject's prose: code spans and identifiers taken out, so a function named
    `extract_keys` or `fix_path` says nothing about the kind of change."""
    return CODE_SPAN.sub(" ", subject).lower()


def classify(subject: str, added_functions: list[str], shape: str = "") -> str:
    """A guess at the commit's kind from its subject's wording, its added functions and its
    diff shape (see `diff_shape`). A subject that speaks of a fix is a fix: its tests show
    behaviour that changed, whatever else the diff moves or renames. Otherwise a change that
    only renames or re-signs existing functions is a refactor whatever its wording says; an
    "Add ..." commit is a feature; a subject that is still a bare merge line says nothing
    (other). A behaviour change with silent wording is taken for a fix: its tests prove that
    existing code behaved differently.

    The kind decides which commits a strategy picks from a mined history; a commit a user
    names is tried whatever its kind."""
    text = subject.lower()
    if MERGE_SUBJECT.match(text):
        return "other"
    prose = wording(subject)
    words = re.findall(r"[a-z]+", prose)
    first = words[0] if words else ""
    if FIX_WORDS.search(prose):
        return "bug_fix"
    if REFACTOR_WORDS.search(prose) or first in REFACTOR_VERBS:
        return "refactor"
    if shape == "restructure":
        return "refactor"
    if first in FEATURE_VERBS:
        return "feature_add"
    if shape == "additive" and added_functions:
        return "feature_add"
    return "bug_fix"


_JS_NAME = r"[A-Za-z_$][\w$]*"
_JS_DEFINITIONS = (
    re.compile(rf"\bfunction\s*\*?\s*({_JS_NAME})\s*[(<]"),
    re.compile(rf"\bclass\s+({_JS_NAME})"),
    re.compile(
        rf"\b(?:const|let|var)\s+({_JS_NAME})\s*(?::[^=]+)?=\s*(?:async\s*)?(?:function\b|\([^)]*\)\s*(?::[^=]+)?=>|{_JS_NAME}\s*=>)"
    ),
    # a method: `name(args) {`, maybe static/async/get/set/access modifiers first
    re.compile(
        rf"^\s*(?:(?:static|async|get|set|public|private|protected|override)\s+)*\*?({_JS_NAME})\s*(?:<[^>]*>)?\([^)]*\)\s*(?::[^{{]+)?\{{\s*$"
    ),
)
_JS_KEYWORDS = {"if", "for", "while", "switch", "catch", "function", "return", "with", "else", "do", "try"}


def _js_definition(text: str) -> str | None:
    for pattern in _JS_DEFINITIONS:
        match = pattern.search(text)
        if match and match.group(1) not in _JS_KEYWORDS:
            return match.group(1)
    return None


def _js_functions_in_diff(diff_text: str) -> tuple[list[str], list[str]]:
    """`_functions_in_diff` for JS/TS: functions, classes and methods the diff adds, and those
    it touches (its definition lines and git's hunk headers)."""
    added, removed, touched = [], set(), []
    for line in diff_text.splitlines():
        if line.startswith(("+++", "---")):
            continue
        if line.startswith(("+", "-")):
            name = _js_definition(line[1:])
            if name:
                (added.append(name) if line.startswith("+") else removed.add(name))
                if name not in touched:
                    touched.append(name)
        elif line.startswith("@@"):
            name = _js_definition(line.split("@@")[-1]) if line.count("@@") >= 2 else None
            if name and name not in touched:
                touched.append(name)
    return [n for n in added if n not in removed], touched


def _js_functions_changed(repo: git.Repo, candidate: Candidate, src_diff: str) -> tuple[list[str], list[str]]:
    """The functions, classes and methods around the lines a JS/TS change removes (in the parent)
    and adds (in the commit), read with tree-sitter; added: those only the commit defines. The
    diff's own lines are the fallback for a file the grammar cannot read."""
    old_lines, new_lines = _changed_lines(src_diff)
    old_sources = _sources_at(repo, candidate.parent, candidate.source_files)
    new_sources = _sources_at(repo, candidate.sha, candidate.source_files)
    touched: list[str] = []
    added: list[str] = []
    try:
        for path in candidate.source_files:
            old, new = old_sources.get(path, ""), new_sources.get(path, "")
            for name in [
                *js_syntax.enclosing_definitions(old, path, old_lines.get(path, set())),
                *js_syntax.enclosing_definitions(new, path, new_lines.get(path, set())),
            ]:
                if name not in touched:
                    touched.append(name)
            before = {d[0] for d in js_syntax.definitions(old, path)} if old else set()
            added += [d[0] for d in js_syntax.definitions(new, path) if d[0] not in before and d[0] not in added]
    except (ValueError, RecursionError):
        return _js_functions_in_diff(src_diff)
    return added, touched


def _changed_lines(diff: str) -> tuple[dict[str, set[int]], dict[str, set[int]]]:
    """Per file, the old file's removed line numbers and the new file's added ones."""
    old: dict[str, set[int]] = {}
    new: dict[str, set[int]] = {}
    try:
        patched = PatchSet(diff) if diff.strip() else []
    except UnidiffParseError:
        return old, new
    for f in patched:
        old[f.path] = {ln.source_line_no for h in f for ln in h if ln.is_removed}
        new[f.path] = {ln.target_line_no for h in f for ln in h if ln.is_added}
    return old, new


def _parse(source: str) -> ast.Module | None:
    try:
        return ast.parse(source)
    except (SyntaxError, ValueError):
        return None


def _functions_of(source: str | ast.Module | None) -> dict[str, ast.AST]:
    """Qualified name -> def node, for top-level functions and methods."""
    tree = _parse(source) if isinstance(source, str) else source
    if tree is None:
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
    if (
        statements
        and isinstance(statements[0], ast.Expr)
        and isinstance(getattr(statements[0], "value", None), ast.Constant)
    ):
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


def defined_names(source: str | ast.Module | None) -> set[str]:
    """Names the file itself defines (assigned, parameters, defs, classes); imports excluded,
    so switching to another library call is never mistaken for a rename."""
    tree = _parse(source) if isinstance(source, str) else source
    if tree is None:
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


def function_change(
    old: ast.AST, new: ast.AST, old_defined: set[str] = frozenset(), new_defined: set[str] = frozenset()
) -> str:
    """unchanged | signature (same body, other parameters) | rename (same shape, names of the
    file's own definitions renamed consistently) | behaviour."""
    if _body(old) == _body(new):
        if ast.dump(old.args) == ast.dump(new.args):
            return "unchanged"
        # another default value is another behaviour for every call that omits the argument
        return "signature" if _defaults(old.args) == _defaults(new.args) else "behaviour"
    if _body(old, erase=True) == _body(new, erase=True) and _is_consistent_rename(
        ast.parse(_body_source(old)), ast.parse(_body_source(new)), old_defined, new_defined
    ):
        return "rename"
    return "behaviour"


def _defaults(args: ast.arguments) -> dict[str, str]:
    """Parameter name -> its default value (dumped), wherever the parameter sits."""
    positional = [*args.posonlyargs, *args.args]
    found = {a.arg: ast.dump(d) for a, d in zip(positional[len(positional) - len(args.defaults) :], args.defaults)}
    found.update({a.arg: ast.dump(d) for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None})
    return found


def _body_source(node: ast.AST) -> str:
    statements = list(node.body)
    if (
        statements
        and isinstance(statements[0], ast.Expr)
        and isinstance(getattr(statements[0], "value", None), ast.Constant)
    ):
        statements = statements[1:]
    return ast.unparse(ast.Module(body=statements, type_ignores=[]))


def diff_shape(old_sources: dict[str, str], new_sources: dict[str, str]) -> str:
    """restructure: existing functions change only in signature or names (no behaviour);
    behaviour: some existing function's logic changes; additive: only new code."""
    changes = []
    for path in sorted(set(old_sources) & set(new_sources)):
        old_text, new_text = old_sources[path], new_sources[path]
        old_tree, new_tree = _parse(old_text), _parse(new_text)
        old, new = _functions_of(old_tree), _functions_of(new_tree)
        # a function whose source text is the same is unchanged: only the others need the AST
        # comparison, and the names a file defines are read only when one does
        old_lines, new_lines = old_text.splitlines(), new_text.splitlines()
        edited = [
            n
            for n in sorted(set(old) & set(new))
            if old_lines[old[n].lineno - 1 : old[n].end_lineno] != new_lines[new[n].lineno - 1 : new[n].end_lineno]
        ]
        if edited:
            old_defined, new_defined = defined_names(old_tree), defined_names(new_tree)
            changes += [function_change(old[n], new[n], old_defined, new_defined) for n in edited]
    changed = [c for c in changes if c != "unchanged"]
    if not changed:
        return "additive"
    return "behaviour" if "behaviour" in changed else "restructure"


def _sources_at(repo: git.Repo, sha: str, paths: list[str]) -> dict[str, str]:
    out = {}
    tree = repo.commit(sha).tree  # read through GitPython's long-running cat-file: no process per file
    for path in paths:
        try:
            out[path] = tree[path].data_stream.read().decode("utf-8", errors="replace")
        except KeyError:  # file added or deleted by the commit
            continue
    return out


def diff_text(repo: git.Repo, old: str, new: str, paths: list[str]) -> str:
    """A `git apply`-able unified diff from `old` to `new`, limited to `paths`."""
    if not paths:
        return ""
    out = repo.git.diff(old, new, "--no-color", "--no-ext-diff", "--full-index", "--binary", "--", *paths)
    return out + "\n" if out and not out.endswith("\n") else out


FUNNEL_STAGES = (
    "commits",
    "distinct_changes",
    "changes_source_and_tests",
    "small_enough",
    "message_length",
    "date_window",
)


def mine(
    path: str | Path,
    *,
    since: str | date | None = None,
    until: str | date | None = None,
    max_source_files: int = 15,
    min_message_chars: int = 25,
    max_commits: int = 2000,
    known: Mapping[str, Candidate] | None = None,
) -> MiningResult:
    """Apply the filters to every commit reachable from HEAD (the newest `max_commits`, merged
    pull-request branches included), oldest first, counting survivors.

    A merge is a change of its own only when none of the commits it brought in changes source
    and tests and its message describes a pull request (`distinct_changes`); otherwise its
    change is already counted through those commits, which carry its title and description.

    `known`: candidates an earlier mining of this repository found, by sha (a farm's saved list):
    one that this history describes the same way keeps its classification, the costly part
    (`reuse_or_classify`)."""
    repo = open_repo(path)
    languages = require_mined_language(path)
    since_day, until_day = _parse_day(since), _parse_day(until)
    records = walk(repo, max_count=max_commits)
    history, on_chain = History(records), first_parent_chain(repo)
    pulls = history.merged_by()
    funnel = dict.fromkeys(FUNNEL_STAGES, 0)
    candidates: list[Candidate] = []
    saw_tests = False
    for record in records:
        if not record.parents:
            paths = _tree_paths(repo.commit(record.sha))
            saw_tests |= any(lang.is_test_path(p) for lang in languages for p in paths)
            continue
        funnel["commits"] += 1
        language = _language_of_change(record.files, languages)
        saw_tests |= any(lang.is_test_path(p) for lang in languages for p in record.files)
        if record.is_merge and not _merge_is_own_change(record, history, languages):
            continue
        funnel["distinct_changes"] += 1
        if language is None or (record.sha not in (known or {}) and not _snapshot_holds(repo, record.sha, language)):
            continue
        source, _ = _split_files(record.files, language)
        funnel["changes_source_and_tests"] += 1
        if len(source) >= max_source_files:
            continue
        funnel["small_enough"] += 1
        candidate = _candidate(repo, record, pulls.get(record.sha), record.sha in on_chain, language)
        if len(candidate.description) < min_message_chars:
            continue
        funnel["message_length"] += 1
        day = datetime.fromtimestamp(record.committed, tz=timezone.utc).date()
        if (since_day and day < since_day) or (until_day and day > until_day):
            continue
        funnel["date_window"] += 1
        candidates.append(reuse_or_classify(repo, candidate, known))
    if not saw_tests:
        where = "; ".join(_TEST_PLACES[lang.name] for lang in languages)
        raise MiningError(f"{path} has no tests: no commit touches a test file ({where})")
    return MiningResult(
        repo=candidates[0].repo if candidates else repo_name(path), funnel=funnel, candidates=candidates
    )


_TEST_PLACES = {"python": "tests/ or test_*.py", "javascript": "test/, tests/, __tests__/ or *.test.*, *.spec.*"}


def _merge_is_own_change(record: CommitRecord, history: History, languages: Sequence[Language]) -> bool:
    if pull_request_of(record) is None:  # "Merge branch 'x'": nothing to say about its change
        return False
    inner = (history.records[history.index[sha]] for sha in history.brought_in(record.sha))
    return not any(_language_of_change(r.files, languages) for r in inner if not r.is_merge)


def _language_of_change(files: list[str], languages: Sequence[Language]) -> Language | None:
    """The first of `languages` in which the change touches both source and tests, or None."""
    return next((lang for lang in languages if all(_split_files(files, lang))), None)


def _snapshot_holds(repo: git.Repo, sha: str, language: Language) -> bool:
    """The commit's own tree holds the language (a JS/TS change needs the package.json its
    install starts from). A Python change always does: a changed Python test file is itself
    one of Python's markers, so its tree is not read."""
    if language is PYTHON_LANGUAGE:
        return True
    return language.name in language_markers(snapshot_files(Path(repo.git_dir).parent, sha))


@dataclass
class NamedCommit:
    """What mining made of one commit a user named: a candidate, or why it cannot be a task."""

    given: str
    sha: str = ""
    candidate: Candidate | None = None
    reason: str = ""
    category: str = ""  # unknown_commit | root_commit | no_test_change | no_source_change | too_large


def mine_named(path: str | Path, shas: Sequence[str], *, max_source_files: int = 15) -> list[NamedCommit]:
    """One entry per commit a user named, in the order given: a candidate when the commit is in
    the repository, has a parent and changes source and tests in fewer than `max_source_files`
    source files (the message length, the date window and the history window do not apply),
    else one sentence saying why it cannot become a task. Its kind is classified but never
    decides whether it is tried."""
    repo = open_repo(path)
    languages = require_mined_language(path)
    on_chain = first_parent_chain(repo)
    return [_named(repo, path, given, on_chain, max_source_files, languages) for given in shas]


def _named(
    repo: git.Repo, path, given: str, on_chain, max_source_files: int, languages: Sequence[Language]
) -> NamedCommit:
    try:
        sha = _resolve(repo, given, path)
    except MiningError as exc:
        return NamedCommit(given, reason=str(exc), category="unknown_commit")
    record = walk(repo, "-1", sha)[0]
    language = _language_of_change(record.files, languages)
    if language is not None:
        source, tests = _split_files(record.files, language)
    else:  # no language has both: say which of the two the change lacks
        split = [_split_files(record.files, lang) for lang in languages]
        source, tests = [p for s, _ in split for p in s], [p for _, t in split for p in t]
    why = ""
    if not record.parents:
        why, category = f"commit {given} is the first commit of {path}: it has no parent to compare with", "root_commit"
    elif not tests:
        why, category = f"commit {given} changes no test file, so no test can show what it fixes", "no_test_change"
    elif not source:
        why, category = f"commit {given} changes no source file (only tests or other files)", "no_source_change"
    elif language is None:
        why, category = (
            f"commit {given} changes source and tests in different languages, so no test can show what it fixes",
            "no_test_change",
        )
    elif len(source) >= max_source_files:
        why, category = (
            f"commit {given} is too large: it changes {len(source)} source files "
            f"(the limit is mining.max_source_files = {max_source_files})",
            "too_large",
        )
    if why:
        return NamedCommit(given, sha, reason=why, category=category)
    records = walk(repo, "--ancestry-path", f"{sha}..HEAD") if _is_ancestor(repo, sha, "HEAD") else []
    # within the commits descending from it, a merge brought it in when its second parent
    # descends from it (or is it) and its first parent does not
    pulls = History([record, *records]).merged_by()
    candidate = _candidate(repo, record, pulls.get(sha), sha in on_chain, language)
    return NamedCommit(given, sha, candidate=_classified(repo, candidate))


def mine_commits(path: str | Path, shas: Sequence[str], *, max_source_files: int = 15) -> MiningResult:
    """Candidates for commits a user named (see `mine_named`); the first commit that cannot
    become a task raises MiningError with one sentence saying why."""
    named = mine_named(path, shas, max_source_files=max_source_files)
    for entry in named:
        if entry.candidate is None:
            raise MiningError(entry.reason)
    candidates = [entry.candidate for entry in named]
    return MiningResult(repo=repo_name(path), funnel={"commits": len(candidates)}, candidates=candidates)


def _resolve(repo: git.Repo, given: str, path) -> str:
    try:
        return repo.git.rev_parse("--verify", "--quiet", f"{given}^{{commit}}")
    except git.GitCommandError:
        raise MiningError(f"commit {given} is not in the repository {path}") from None


def _is_ancestor(repo: git.Repo, sha: str, of: str) -> bool:
    try:
        repo.git.merge_base("--is-ancestor", sha, of)
    except git.GitCommandError:
        return False
    return True


def _split_files(files: list[str], language: Language = PYTHON_LANGUAGE) -> tuple[list[str], list[str]]:
    """(source files, test files) of `language` among changed paths."""
    return [p for p in files if language.is_source_path(p)], [p for p in files if language.is_test_path(p)]


def _test_patch_files(files: list[str], language: Language) -> list[str]:
    """What the test patch holds: the language's test files; for JS/TS also the fixtures and
    snapshots beside them (`__snapshots__/*.snap`, `test/fixtures/*.json`), which its tests read.
    Python's stays its test modules, as before the seam."""
    if language is PYTHON_LANGUAGE:
        return _split_files(files, language)[1]
    return [p for p in files if language.in_test_tree(p) and not language.is_generated(p) and not is_prose_file(p)]


def _fix_files(files: list[str], language: Language) -> list[str]:
    """Every non-test change but prose and what the install or the build generates."""
    return [
        p
        for p in files
        if not is_test_path(p)
        and not language.in_test_tree(p)
        and not is_prose_file(p)
        and not language.is_generated(p)
    ]


def _candidate(
    repo: git.Repo,
    record: CommitRecord,
    pull: PullRequest | None,
    first_parent: bool,
    language: Language = PYTHON_LANGUAGE,
) -> Candidate:
    source, _ = _split_files(record.files, language)
    tests = _test_patch_files(record.files, language)
    subject, body = record.subject, record.body
    if record.is_merge:
        pull = pull_request_of(record) or pull
    if record.is_merge and pull is not None:  # the pull request as a whole: its title is the subject
        subject, body = pull.title, pull.body
    pr_title = pull.title if pull and pull.title != subject else ""
    pr_body = pull.body if pull and pull.body != body else ""
    pr_number = pull.number if pull else trailing_number(record.subject)  # "Title (#12)": a squash merge
    issues = referenced_issues(subject, body, pr_title, pr_body, exclude=pr_number)
    return Candidate(
        repo=repo_name(repo.working_tree_dir),
        repo_path=str(Path(repo.working_tree_dir).resolve()),
        sha=record.sha,
        parent=record.parents[0],
        subject=subject,
        body=body,
        created_at=datetime.fromtimestamp(record.committed, tz=timezone.utc).isoformat(),
        source_files=source,
        test_files=tests,
        kind="",
        fix_files=_fix_files(record.files, language),
        pr_number=pr_number,
        pr_title=pr_title,
        pr_body=pr_body,
        merge=pull.merge if pull else "",
        issues=issues,
        first_parent=first_parent,
        language=language.name,
    )


def mining_digest() -> str:
    """A digest of the code that decides what mining finds (this module and `tasks.history`): a
    saved mining is stale when it changes."""
    import hashlib
    import inspect

    from tasks import history

    return hashlib.sha256((inspect.getsource(sys.modules[__name__]) + inspect.getsource(history)).encode()).hexdigest()


_CLASSIFICATION = ("kind", "added_functions", "touched_functions")


def reuse_or_classify(repo: git.Repo, candidate: Candidate, known: Mapping[str, Candidate] | None) -> Candidate:
    """`candidate` classified: by `known`'s candidate of the same sha when everything the
    classification reads from (its commits, files, subject, language) is the same, else anew."""
    old = (known or {}).get(candidate.sha)
    if old is None:
        return _classified(repo, candidate)
    mine, theirs = candidate.to_dict(), old.to_dict()
    if any(mine[k] != theirs[k] for k in mine if k not in _CLASSIFICATION):
        return _classified(repo, candidate)
    for name in _CLASSIFICATION:
        setattr(candidate, name, theirs[name])
    return candidate


def _classified(repo: git.Repo, candidate: Candidate) -> Candidate:
    src_diff = diff_text(repo, candidate.parent, candidate.sha, candidate.source_files)
    if candidate.language == PYTHON_LANGUAGE.name:
        candidate.added_functions, candidate.touched_functions = _functions_in_diff(src_diff)
        shape = _shape_of(repo, candidate.parent, candidate.sha, candidate.source_files)
    else:  # the diff's shape needs Python's AST; the wording and the added functions still tell
        candidate.added_functions, candidate.touched_functions = _js_functions_changed(repo, candidate, src_diff)
        shape = ""
    candidate.kind = classify(candidate.subject, candidate.added_functions, shape)
    return candidate


def _shape_of(repo: git.Repo, old: str, new: str, paths: list[str]) -> str:
    return diff_shape(_sources_at(repo, old, paths), _sources_at(repo, new, paths))


def _tree_paths(commit: git.Commit) -> list[str]:
    return [b.path for b in commit.tree.traverse() if b.type == "blob"]


def instance_prefix(repo: str) -> str:
    """A repo name as it starts a task id: `owner/name` becomes SWE-bench's `owner__name`."""
    return repo.replace("/", "__")


def mine_pull_requests(
    path: str | Path,
    *,
    since: str | date | None = None,
    until: str | date | None = None,
    max_source_files: int = 15,
    min_message_chars: int = 25,
    max_commits: int = 2000,
    known: Mapping[str, Candidate] | None = None,
) -> list[Candidate]:
    """Every merged pull request as one candidate, oldest first: a merge commit on the
    first-parent chain whose change against its first parent touches source and tests, in
    fewer than `max_source_files` source files, described by its message (the PR's title and
    body, see `pull_request_of`). SWE-bench's unit: `mine` takes the commits inside it instead."""
    repo = open_repo(path)
    require_mined_language(path)
    since_day, until_day = _parse_day(since), _parse_day(until)
    on_chain = first_parent_chain(repo)
    found = []
    for record in walk(repo, max_count=max_commits):
        if not record.is_merge or record.sha not in on_chain:
            continue
        source, tests = _split_files(record.files)
        if not source or not tests or len(source) >= max_source_files:
            continue
        day = datetime.fromtimestamp(record.committed, tz=timezone.utc).date()
        if (since_day and day < since_day) or (until_day and day > until_day):
            continue
        candidate = _candidate(repo, record, pull_request_of(record), True)
        if len(candidate.description) >= min_message_chars:
            found.append(reuse_or_classify(repo, candidate, known))
    return found
