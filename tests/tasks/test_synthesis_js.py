"""SYNTHETIC bugs in JavaScript and TypeScript: tree-sitter sites, the shared task shaping."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tasks.strategy import Strategy, StrategyType
from tasks.synthesis import apply_mutation, mutation_sites, parses, source_modules, synthesize

JS = """// a < b in a comment is no site
import { helper } from './helper.js';

const LIMIT = 10;

export function clamp(value, low, high) {
  if (value < low) {
    return low;
  }
  return Math.min(value, high);
}

export const pick = (options, key) => options[key] ?? options.default;

export class Pager {
  constructor(size) {
    this.size = size || 20;
  }

  pages(total) {
    const label = `pages < ${total}`;
    return total === 0 ? 0 : Math.ceil(total / this.size) + 0 * label.length;
  }
}

const pattern = /x<y/;
"""

TS = """interface Range { low: number; high: 1 | 2 }

type Small = 0 | 1;

export function within(r: Range, x: number): boolean {
  return x >= r.low && x <= r.high;
}

export const slice = <T,>(items: T[], start: number): T[] => items.slice(start, start + 1);

export class Counter {
  private count = 0;

  bump(by: number = 1): number {
    if (by !== 0) {
      this.count += by;
    }
    return Math.max(this.count, 0);
  }
}
"""


def operators(sites) -> set[str]:
    return {m.operator for m in sites}


def test_sites_are_found_in_javascript():
    sites = mutation_sites("src/lib.js", JS)
    assert operators(sites) == {"flip_comparison", "off_by_one", "drop_guard", "swap_arguments", "flip_logical"}
    assert {m.function for m in sites} == {"clamp", "pick", "constructor", "pages"}
    by_text = {(m.operator, JS[m.start : m.end]) for m in sites}
    assert ("flip_comparison", "value < low") in by_text
    assert ("drop_guard", "(value < low)") in by_text
    assert ("swap_arguments", "Math.min(value, high)") in by_text
    assert ("flip_logical", "options[key] ?? options.default") in by_text
    assert ("flip_logical", "size || 20") in by_text
    assert ("off_by_one", "0") in by_text


def test_sites_are_found_in_typescript():
    sites = mutation_sites("src/range.ts", TS)
    assert operators(sites) == {"flip_comparison", "off_by_one", "drop_guard", "swap_arguments", "flip_logical"}
    assert {m.function for m in sites} == {"within", "slice", "bump"}
    texts = {TS[m.start : m.end] for m in sites}
    assert {"x >= r.low", "by !== 0", "items.slice(start, start + 1)", "Math.max(this.count, 0)"} <= texts


def test_nothing_outside_functions_in_comments_strings_regexes_or_types():
    for path, source in (("src/lib.js", JS), ("src/range.ts", TS)):
        for m in mutation_sites(path, source):
            line = source.splitlines()[m.line - 1]
            assert not line.lstrip().startswith(("//", "const LIMIT", "const pattern", "interface", "type ")), line
            assert "`" not in source[m.start : m.end] and "/x<y/" not in source[m.start : m.end]
    # the literal types 1 | 2 and 0 | 1 and the class field's `= 0` are no sites
    ts_numbers = [TS[m.start : m.end] for m in mutation_sites("src/range.ts", TS) if m.operator == "off_by_one"]
    assert ts_numbers == ["1", "1", "0", "0"]  # start + 1, the default `by = 1`, `by !== 0`, Math.max(..., 0)


@pytest.mark.parametrize(("path", "source"), [("src/lib.js", JS), ("src/range.ts", TS), ("src/view.tsx", TS)])
def test_every_mutation_parses_and_changes_only_its_segment(path, source):
    sites = mutation_sites(path, source)
    assert sites
    for m in sites:
        mutated = apply_mutation(source, m)
        assert mutated is not None, (m.operator, source[m.start : m.end])
        assert parses(path, mutated)
        assert mutated[: m.start] == source[: m.start]
        assert mutated[m.start + len(m.replacement) :] == source[m.end :]


def test_a_file_the_grammar_cannot_read_has_no_sites():
    assert mutation_sites("src/broken.js", "function f( { return 1 < 2 }\n") == []
    assert not parses("src/broken.js", "function f( {")


def test_non_ascii_text_keeps_the_offsets_right():
    source = "export function greet(name) {\n  const s = 'héllo ✓';\n  return name.length > 3 ? s : '';\n}\n"
    (flip,) = [m for m in mutation_sites("a.js", source) if m.operator == "flip_comparison"]
    assert source[flip.start : flip.end] == "name.length > 3"
    assert apply_mutation(source, flip) == source.replace("name.length > 3", "name.length >= 3")


# ---------------------------------------------------------------- a JS repository at HEAD


def git(repo: Path, *args: str) -> None:
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@e", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@e"}
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, env={"PATH": "/usr/bin", **env})


@pytest.fixture(scope="module")
def js_repo(tmp_path_factory) -> Path:
    repo = tmp_path_factory.mktemp("jsrepo") / "jslib"
    files = {
        "package.json": '{"name": "jslib", "type": "module", "scripts": {"test": "node --test"}}\n',
        "src/lib.js": JS,
        "src/range.ts": TS,
        "test/lib.test.js": "import { clamp } from '../src/lib.js';\nif (clamp(1, 2, 3) < 2) throw new Error();\n",
        "src/lib.spec.js": "export function check(a) { return a < 1; }\n",
        "jest.config.js": "export default function config() { return { bail: 1 < 2 }; }\n",
        "dist/lib.js": "export function built(a) { return a < 1; }\n",
        "types/lib.d.ts": "export declare function clamp(v: number): number;\n",
    }
    for rel, text in files.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text, encoding="utf-8")
    git(repo.parent, "init", "-q", str(repo))
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "initial")
    return repo


def test_only_source_files_are_targets(js_repo):
    _, paths = source_modules(js_repo)
    assert paths == ["src/lib.js", "src/range.ts"]


def test_synthesized_tasks_are_one_hunk_js_bugs(js_repo):
    tasks = synthesize(js_repo, 50, seed=3)
    assert len(tasks) >= 20
    for task in tasks:
        assert task.generation["language"] == "javascript"
        assert task.bug_patch.count("@@ -") == 1 and task.patch.count("@@ -") == 1
        path = task.bug_patch.splitlines()[0].removeprefix("--- a/")
        assert path in ("src/lib.js", "src/range.ts")
    assert {t.generation["mutation"] for t in tasks} >= {"flip_comparison", "off_by_one", "flip_logical"}


def test_synthesis_is_deterministic_with_a_seed(js_repo):
    def ids(seed, strategy=None):
        return [t.instance_id for t in synthesize(js_repo, 15, seed, strategy=strategy)]

    assert ids(5) == ids(5)
    assert ids(5) != ids(6)
    steer = Strategy(StrategyType.SYNTHETIC, "x", genes={"mutations": 2})
    assert ids(5, steer) == ids(5, steer)


def test_strategy_genes_steer_js_operators(js_repo):
    # flip_logical draws on flip_comparison's weight: one genome for every language
    only_flips = Strategy(
        StrategyType.SYNTHETIC, "x", genes={"op_off_by_one": 0, "op_drop_guard": 0, "op_swap_arguments": 0}
    )
    tasks = synthesize(js_repo, 50, 1, strategy=only_flips)
    assert tasks and {t.generation["mutation"] for t in tasks} == {"flip_comparison", "flip_logical"}
    three = synthesize(js_repo, 3, 1, strategy=Strategy(StrategyType.SYNTHETIC, "x", genes={"mutations": 3}))
    assert all(len(t.generation["mutations"]) == 3 for t in three)


@pytest.mark.parametrize(
    ("path", "source"),
    [
        ("src/index.ts", True),
        ("lib/util.mjs", True),
        ("index.js", True),
        ("src/index.test.ts", False),
        ("__tests__/a.js", False),
        ("test/helpers.js", False),
        ("dist/index.js", False),
        ("node_modules/x/index.js", False),
        ("src/types.d.ts", False),
        ("vitest.config.ts", False),
        (".eslintrc.cjs", False),
        ("scripts/release.js", False),
        ("src/parse.bench.ts", False),
        ("typings/index.test-d.ts", False),
        ("src/index.py", False),
    ],
)
def test_which_js_files_are_source(path, source):
    from environment import is_js_source_path

    assert is_js_source_path(path) is source


# ---------------------------------------------------------------- the bugs, caught by real tests


@pytest.mark.skipif(shutil.which("node") is None, reason="no node binary on PATH to run jskit's tests")
def test_synthetic_bugs_in_the_js_corpus_fail_its_own_tests(tmp_path):
    """jskit (the bundled JS corpus) at HEAD: most synthetic bugs turn passing node:test tests
    into failing ones (the functional layer's FAIL_TO_PASS), natively with the host's Node."""
    import corpus
    from tests.corpus.test_corpus import _export
    from tests.corpus.test_js_corpus import node_outcomes

    (repo,) = corpus.build_corpus(tmp_path / "c", "javascript")
    tasks = synthesize(repo, 6, seed=0)
    head = tmp_path / "head"
    _export(repo, tasks[0].base_commit, head)
    base = node_outcomes(head, tmp_path)
    assert base and set(base.values()) == {"passed"}
    caught = 0
    for index, task in enumerate(tasks):
        tree = tmp_path / f"bug{index}"
        shutil.copytree(head, tree)
        subprocess.run(["git", "apply", "-"], cwd=tree, input=task.bug_patch.encode(), check=True)
        outcomes = node_outcomes(tree, tmp_path)
        caught += any(outcomes.get(test) != "passed" for test in base)
    assert caught >= len(tasks) // 2, caught
