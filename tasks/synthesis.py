"""Procedural bug synthesis in the manner of SWE-smith: no LLM creates the bug.

A syntax-tree walk over the source files of a repository's HEAD finds mutation sites inside
functions (a comparison, an integer constant, an `if` guard, a call with two positional
arguments; in JS/TS also `&&`/`||`/`??`): Python files are read by `synthesis_python` (`ast`),
JavaScript/TypeScript files by `synthesis_js` (tree-sitter), in snapshots that hold that
language. A mutation rewrites exactly one expression's source segment, so the rest of the
file keeps its formatting and the diff stays one hunk. Everything after the sites (applying,
ordering, grouping, the task record) is this module's, the same for every language. The task is SWE-gen's shape:
`base_commit` = HEAD (the correct code), `bug_patch` = the mutation, `patch` = its reverse,
`test_patch` empty (the repository's own tests catch the bug); FAIL_TO_PASS comes from
running them (tests that pass at HEAD and fail with the mutation), in the functional layer.

A strategy's synthesis genes steer which bugs are made (`synthesize(..., strategy=...)`):

- targets are only functions the suite executes, when coverage is known: the whole suite
  runs once per snapshot with a tracing plugin (`executed_functions`, cached on disk); a
  mutation in code no test runs can never fail a test;
- a complexity band: functions whose cyclomatic complexity lies in
  [`complexity_low`, `complexity_high`] come first;
- a weight per operator: sites are drawn by weighted sampling without replacement
  (Efraimidis-Spirakis keys u^(1/w) over one uniform u per site, drawn from the seed: every
  strategy of a generation sees the same u, so weights alone make the difference); a weight
  of 0 leaves an operator out;
- `mutations` (1 to 3): further sites in the same file, not overlapping, join one task.
"""

from __future__ import annotations

import hashlib
import json
import random
import tempfile
from pathlib import Path

import git

from environment import JAVASCRIPT, is_js_source_path, language_markers, languages_of
from records import Task
from sandbox import default_cache_dir, export_tree, file_lock, repo_name
from tasks import synthesis_js, synthesis_python
from tasks.mining import Candidate, instance_prefix, is_source_path, open_repo
from tasks.mutation import Mutation, unified_diff
from tasks.mutation import apply_mutations as _apply_spans
from tasks.strategy import OPERATOR_GENES, Strategy

STRATEGY_TYPE = "SYNTHETIC"
# an operator of one language only draws on the gene of the operator it resembles (one genome
# for every language: a new gene would change every strategy's draws)
OPERATOR_GENE = {"flip_logical": "flip_comparison"}


def mutation_sites(path: str, source: str) -> list[Mutation]:
    """Every mutation of every function in `source`, in source order, read by the parser of the
    file's language (by extension: Python's `ast`, tree-sitter for JS/TS; none for others)."""
    if path.endswith(".py"):
        return synthesis_python.mutation_sites(path, source)
    return synthesis_js.mutation_sites(path, source)


def parses(path: str, source: str) -> bool:
    """True when the file's own parser reads `source`."""
    if path.endswith(".py"):
        return synthesis_python.parses(source)
    return synthesis_js.parses(path, source)


def apply_mutation(source: str, mutation: Mutation) -> str | None:
    """The source with the mutation's segment replaced, or None when it would not parse or not change."""
    return apply_mutations(source, [mutation])


def apply_mutations(source: str, mutations: list[Mutation]) -> str | None:
    """The source with every mutation's segment replaced (the segments must not overlap), or
    None when the result would not parse, would not change, or two segments overlap."""
    path = mutations[0].path if mutations else ""
    return _apply_spans(source, mutations, lambda text: parses(path, text))


def is_target_path(path: str, javascript: bool) -> bool:
    """A file SYNTHETIC may mutate: a Python source file, or (in a snapshot that holds
    JavaScript/TypeScript) a JS/TS source file."""
    return is_source_path(path) or (javascript and is_js_source_path(path))


def _target_paths(head: git.Commit) -> list[str]:
    paths = [b.path for b in head.tree.traverse() if b.type == "blob"]
    javascript = JAVASCRIPT in language_markers(paths)
    return sorted(p for p in paths if is_target_path(p, javascript))


def head_sources(repo: git.Repo) -> dict[str, str]:
    head = repo.head.commit
    targets = set(_target_paths(head))
    return {
        blob.path: blob.data_stream.read().decode("utf-8", errors="replace")
        for blob in head.tree.traverse()
        if blob.type == "blob" and blob.path in targets
    }


def source_modules(repo_path: str | Path) -> tuple[git.Commit, list[str]]:
    """(HEAD, the paths of its source modules in order): what SYNTHETIC can target."""
    head = open_repo(repo_path).head.commit
    return head, _target_paths(head)


def synthesize(
    repo_path: str | Path,
    n: int,
    seed: int,
    strategy: Strategy | None = None,
    modules: set[str] | None = None,
    executed: set[tuple[str, int]] | None = None,
) -> list[Task]:
    """Up to `n` task skeletons, each one to three mutations of a function at HEAD.

    Deterministic: the sites are listed in path and source order. Without a strategy they are
    shuffled by `seed`, one mutation per task. With one, its synthesis genes order them (see
    the module's docstring): only sites in `executed` functions ((path, def line) pairs, from
    `executed_functions`; None: coverage unknown, every function), of `modules` when given
    (paths: the experiment holds some modules out), complexity band first, operators by weight.
    FAIL_TO_PASS is empty until the functional layer runs the tests.
    """
    repo = open_repo(repo_path)
    name, head = repo_name(repo_path), repo.head.commit
    sources = head_sources(repo)
    if modules is not None:
        sources = {p: text for p, text in sources.items() if p in modules}
    sites = [m for path in sorted(sources) for m in mutation_sites(path, sources[path])]
    if strategy is None:
        random.Random(seed).shuffle(sites)
        groups = [[m] for m in sites]
    else:
        if executed is not None:  # measured for the Python functions only (the coverage run is pytest's)
            sites = [
                m
                for m in sites
                if not m.path.endswith(".py") or any((m.path, line) in executed for line in m.def_lines)
            ]
        groups = _groups(order_sites(sites, strategy, seed), int(strategy.genes["mutations"]))
    tasks, seen = [], set()
    for group in groups:
        if len(tasks) >= n:
            break
        mutated = apply_mutations(sources[group[0].path], group)
        if mutated is not None and mutated not in seen:
            seen.add(mutated)
            tasks.append(_task(name, str(Path(repo_path).resolve()), head, group, sources[group[0].path], mutated))
    return tasks


def order_sites(sites: list[Mutation], strategy: Strategy, seed: int) -> list[Mutation]:
    """Sites in the order the strategy's synthesis genes draw them: inside the complexity band
    first, then by the weighted-sampling key of each site's operator (weight 0: left out)."""
    g = strategy.genes
    weights = {gene.removeprefix("op_"): g[gene] for gene in OPERATOR_GENES}
    if not any(weights.values()):
        weights = dict.fromkeys(weights, 1.0)
    rng = random.Random(seed)
    keyed = []
    for index, site in enumerate(sites):
        u = rng.random()
        w = weights[OPERATOR_GENE.get(site.operator, site.operator)]
        if w <= 0:
            continue
        inside = g["complexity_low"] <= site.complexity <= g["complexity_high"]
        keyed.append((not inside, -(u ** (1.0 / w)), index, site))
    keyed.sort(key=lambda k: k[:3])
    return [k[3] for k in keyed]


def _groups(sites: list[Mutation], size: int) -> list[list[Mutation]]:
    """Each site, in order, with up to `size - 1` later sites of its own file whose lines it
    does not share; every site is used once."""
    used: set[int] = set()
    groups = []
    for i, site in enumerate(sites):
        if i in used:
            continue
        used.add(i)
        group = [site]
        lines = set(range(site.line, site.end_line + 1))
        for j in range(i + 1, len(sites)):
            if len(group) >= size:
                break
            other = sites[j]
            span = set(range(other.line, other.end_line + 1))
            if j not in used and other.path == site.path and not span & lines:
                used.add(j)
                group.append(other)
                lines |= span
        groups.append(group)
    return groups


def _task(name: str, repo_path: str, head: git.Commit, group: list[Mutation], source: str, mutated: str) -> Task:
    first = group[0]
    path = first.path
    bug_patch = unified_diff(path, source, mutated)
    key = hashlib.sha256(bug_patch.encode()).hexdigest()[:8]
    created = head.committed_datetime.isoformat()
    functions = list(dict.fromkeys(m.function for m in group))
    operators = [m.operator for m in group]
    label = first.operator if len(group) == 1 else f"{first.operator}-x{len(group)}"
    generation = {
        "touched_functions": functions,
        "mutation": first.operator,
        "mutations": operators,
        "complexity": first.complexity,
        "source_commit_subject": f"{first.function} behaves incorrectly",
    }
    if not path.endswith(".py"):  # Python tasks keep the record they always had
        generation["language"] = JAVASCRIPT
    return Task(
        instance_id=f"{instance_prefix(name)}__synthetic-{label}-{key}",
        repo=name,
        base_commit=head.hexsha,
        patch=unified_diff(path, mutated, source),
        test_patch="",
        problem_statement="",
        bug_patch=bug_patch,
        strategy_type=STRATEGY_TYPE,
        strategy_id=f"synthetic-{first.operator}",
        created_at=created,
        repo_path=repo_path,
        generation=generation,
    )


# ---------------------------------------------------------------- coverage, once per snapshot

COVERAGE_PLUGIN = "sebgen_coverage_plugin"
COVERAGE_PREFIX = "sebgen-coverage::"
COVERAGE_SOURCE = r'''"""SEBGen's coverage run: which functions of the project the suite executes.

A profile hook records the (file, first line) of every code object called under this tree.
After the suite, one extra item per function of the project's source reports it: passed when
it ran, skipped when not. Standard library and pytest only.
"""
import ast
import os
import sys
import threading

import pytest

_ROOT = os.path.dirname(os.path.abspath(__file__))
_SEEN = set()
_FUNCTIONS = []


def _profile(frame, event, arg):
    if event == "call":
        code = frame.f_code
        _SEEN.add((code.co_filename, code.co_firstlineno))


def pytest_configure(config):
    for dirpath, dirnames, filenames in os.walk(_ROOT):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d not in ("tests", "test", "docs"))
        for filename in sorted(filenames):
            rel = os.path.relpath(os.path.join(dirpath, filename), _ROOT).replace(os.sep, "/")
            if not filename.endswith(".py") or filename.startswith("test_") or filename.endswith("_test.py"):
                continue
            if filename in ("conftest.py", "setup.py", "sebgen_coverage_plugin.py"):
                continue
            try:
                with open(os.path.join(dirpath, filename), encoding="utf-8") as fh:
                    tree = ast.parse(fh.read())
            except (SyntaxError, ValueError, OSError):
                continue
            for node in ast.walk(tree):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    lines = [node.lineno] + [d.lineno for d in node.decorator_list]
                    _FUNCTIONS.append((rel, node.lineno, min(lines)))
    sys.setprofile(_profile)
    threading.setprofile(_profile)


def pytest_unconfigure(config):
    sys.setprofile(None)
    threading.setprofile(None)


class _Covered(pytest.Item):
    def __init__(self, *, rel, line, first, **kw):
        super().__init__(**kw)
        self.rel, self.line, self.first = rel, line, first

    def runtest(self):
        path = os.path.join(_ROOT, self.rel)
        if not any((f, n) in _SEEN for f in (path, os.path.realpath(path)) for n in (self.line, self.first)):
            pytest.skip("not executed")

    def reportinfo(self):
        return self.rel, self.line, self.name


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(session, config, items):
    for rel, line, first in _FUNCTIONS:
        name = "sebgen-coverage::%s::%d" % (rel, line)
        items.append(_Covered.from_parent(session, name=name, rel=rel, line=line, first=first))
'''


def executed_functions(backend, repo_path: str | Path, commit: str, log=None) -> set[tuple[str, int]] | None:
    """(path, def line) of every function of the project that the suite executes at `commit`:
    the whole suite runs once through `backend` with the coverage plugin; the answer is cached
    on disk per repository and commit. None when it cannot be measured (no backend, the run
    broke or reported no function)."""
    if backend is None or not hasattr(backend, "run_tree"):
        return None
    languages = languages_of(Path(repo_path), commit)
    if JAVASCRIPT in languages and len(languages) == 1:  # the coverage run is a pytest plugin
        return None
    repo_path = Path(repo_path).resolve()
    key = hashlib.sha256(f"{repo_path}:{commit}".encode()).hexdigest()[:16]
    cache = default_cache_dir() / "coverage" / f"{key}.json"
    with file_lock(cache.with_suffix(".lock")):
        if cache.is_file():
            data = json.loads(cache.read_text(encoding="utf-8"))
            return {(p, int(n)) for p, n in data["executed"]} if data.get("measured") else None
        executed = _measure(backend, repo_path, commit)
        data = {"measured": executed is not None, "executed": sorted(executed or [])}
        cache.write_text(json.dumps(data), encoding="utf-8")
    if log and executed is not None:
        log(f"coverage: the suite of {repo_name(repo_path)} at {commit[:10]} executes {len(executed)} functions")
    return executed


def _measure(backend, repo_path: Path, commit: str) -> set[tuple[str, int]] | None:
    with tempfile.TemporaryDirectory(prefix="sebgen-coverage-") as tmp:
        tree = export_tree(repo_path, commit, Path(tmp) / "tree")
        (tree / f"{COVERAGE_PLUGIN}.py").write_text(COVERAGE_SOURCE, encoding="utf-8")
        conftest = tree / "conftest.py"
        text = conftest.read_text(encoding="utf-8") if conftest.is_file() else ""
        conftest.write_text(
            text
            + "\n\n# SEBGen's coverage run\n"
            + "_sebgen_plugins = globals().get('pytest_plugins', [])\n"
            + "pytest_plugins = [*([_sebgen_plugins] if isinstance(_sebgen_plugins, str) else _sebgen_plugins),"
            + f" {COVERAGE_PLUGIN!r}]\n",
            encoding="utf-8",
        )
        try:
            run = backend.run_tree(repo_path, commit, tree, None)
        except Exception:  # noqa: BLE001 - coverage is an optimisation: without it every function is a target
            return None
    if run.timed_out:
        return None
    # the items hang off the session: their node ids are "::sebgen-coverage::..." or without the "::"
    reported = {t.lstrip(":"): o for t, o in run.outcomes.items() if t.lstrip(":").startswith(COVERAGE_PREFIX)}
    if not reported:
        return None
    out = set()
    for test_id, outcome in reported.items():
        if outcome == "passed":
            path, _, line = test_id[len(COVERAGE_PREFIX) :].rpartition("::")
            out.add((path, int(line)))
    return out


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


def synthetic_attempts(strategy: Strategy, targets: dict, generator, seed: int, limit: int):
    """Lazily, up to `limit` synthetic tasks of a SYNTHETIC strategy run through the generator's
    cascade: the repositories' bugs interleaved (repository path order), each repository's
    coverage measured first (once per snapshot, cached). `targets` maps a repository path to
    the modules it may mutate (None: all). Task ids carry the strategy's id."""
    backend = getattr(getattr(generator, "validator", None), "backend", None)
    streams = []
    for repo_path in sorted(targets):
        head = open_repo(repo_path).head.commit.hexsha
        executed = executed_functions(backend, repo_path, head)
        streams.append(iter(synthesize(repo_path, limit, seed, strategy, targets[repo_path], executed)))
    made = 0
    while streams and made < limit:
        for stream in list(streams):
            task = next(stream, None)
            if task is None:
                streams.remove(stream)
                continue
            task.strategy_id = strategy.id
            task.instance_id = f"{task.instance_id}-{strategy.id[:6]}"
            made += 1
            yield generator.complete(task, candidate_of(task), strategy)
            if made >= limit:
                return


def generate_synthetic(
    repo_path: str | Path, generator, strategy, n: int, seed: int, max_tries: int | None = None
) -> list[Task]:
    """Synthesize bugs and run each through the generator's cascade (execution first, then
    the statement written with `strategy`'s prompt, then the judges). Returns every tried
    task, kept or not; at most `max_tries` (default 3n) are tried, stopping at n kept.
    A SYNTHETIC strategy's genes choose the bugs (and coverage is measured first); any other
    strategy only writes the statements of bugs drawn by `seed`."""
    steer = strategy if getattr(strategy, "strategy_type", None) == STRATEGY_TYPE else None
    executed = None
    if steer is not None:
        backend = getattr(getattr(generator, "validator", None), "backend", None)
        executed = executed_functions(backend, repo_path, open_repo(repo_path).head.commit.hexsha)
    tasks = []
    for task in synthesize(repo_path, max_tries or 3 * n, seed, strategy=steer, executed=executed):
        tasks.append(generator.complete(task, candidate_of(task), strategy))
        if sum(t.passed for t in tasks) >= n:
            break
    return tasks
