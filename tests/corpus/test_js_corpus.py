"""The bundled JavaScript corpus (jskit): built on its own, outside the default (quickstart)
corpus, with a real bug-fix history whose fail-to-pass claims hold under Node's own runner."""

from __future__ import annotations

import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

import corpus
from corpus.repos import all_repos
from sandbox.js_report import NODE_TEST_REPORTER, parse_report
from tests.corpus.test_corpus import _export, git

CLAIMING_KINDS = ("bug_fix", "feature_add", "refactor")


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    dest = tmp_path_factory.mktemp("jscorpus") / "c"
    corpus.build_corpus(dest, "javascript")
    return dest


@pytest.fixture(scope="module")
def commits(built) -> list[dict]:
    manifest = corpus.load_manifest(built)
    assert manifest["language"] == "javascript" and list(manifest["repos"]) == ["jskit"]
    return manifest["repos"]["jskit"]["commits"]


def test_the_js_corpus_stays_out_of_the_default_corpus():
    assert [spec.name for spec in all_repos()] == ["algos", "pyledger", "safetext", "taskq"]
    assert [spec.name for spec in all_repos("javascript")] == ["jskit"]


def test_an_unknown_corpus_language_is_one_clear_error(tmp_path):
    with pytest.raises(corpus.CorpusError, match="no bundled corpus for 'cobol'; known: python, javascript"):
        corpus.build_corpus(tmp_path / "x", "cobol")
    assert not (tmp_path / "x").exists()


def test_ensure_corpus_keeps_each_language_in_its_own_folder(monkeypatch, tmp_path):
    monkeypatch.setenv("SEBGEN_CACHE", str(tmp_path))
    paths = corpus.ensure_corpus(language="javascript")
    assert paths == [tmp_path / "corpus-js-1" / "jskit"]
    assert corpus.ensure_corpus(language="javascript") == paths  # built once
    assert not (tmp_path / "corpus-1").exists()


def test_history_has_the_intended_kinds(built, commits):
    kinds = [c["kind"] for c in commits]
    assert kinds[0] == "initial" and 8 <= len(kinds) - 1 <= 12
    assert kinds.count("bug_fix") >= 5
    assert {"feature_add", "refactor", "docs", "tests_only"} <= set(kinds)
    for c in commits:
        where = f"{c['sha'][:8]} {c['subject']!r}"
        if c["kind"] in CLAIMING_KINDS:
            assert c["source_files"] and c["test_files"] and c["functions"], where
            assert all(t.split("::")[0] in c["test_files"] for t in c["fail_to_pass"]) and c["fail_to_pass"], where
        elif c["kind"] == "tests_only":
            assert c["test_files"] and not c["source_files"], where
        elif c["kind"] == "docs":
            assert all(f.endswith(".md") for f in c["files"]), where
    tree = git(built / "jskit", "ls-tree", "-r", "--name-only", "HEAD").split("\n")
    assert "package.json" in tree and not any(p.startswith("node_modules/") for p in tree)
    package = (built / "jskit" / "package.json").read_text()
    assert '"type": "module"' in package and '"test": "node --test"' in package and '"engines"' in package


# --------------------------------------------------- every claim, run natively by Node's runner


def node_outcomes(tree: Path, work: Path) -> dict[str, str]:
    """Outcome per test id, read from SEBGen's node:test reporter (never from printed text)."""
    report = work / f"{tree.name}-report.json"
    files = sorted(str(p.relative_to(tree)) for p in (tree / "test").glob("*.test.js"))
    subprocess.run(
        [
            "node",
            "--test",
            f"--test-reporter={NODE_TEST_REPORTER}",
            f"--test-reporter-destination={report}",
            *files,
        ],
        cwd=tree,
        capture_output=True,
        timeout=120,
    )
    parsed = parse_report("node-test", report.read_text(encoding="utf-8"), str(tree))
    assert not parsed.load_errors, parsed.load_errors
    return parsed.outcomes


def states(repo: Path, commit: dict, work: Path) -> tuple[Path, Path]:
    """(before, after): the commit's tree, and the same tree with its source files at the parent."""
    after, before = work / "after", work / "before"
    _export(repo, commit["sha"], after)
    shutil.copytree(after, before)
    for path in commit["source_files"]:
        old = subprocess.run(["git", "show", f"{commit['parent']}:{path}"], cwd=repo, capture_output=True)
        if old.returncode == 0:
            (before / path).write_bytes(old.stdout)
        else:
            (before / path).unlink()
    return before, after


def problems_of(repo: Path, commit: dict, work: Path) -> list[str]:
    work.mkdir(parents=True)
    before, after = states(repo, commit, work)
    post = node_outcomes(after, work)
    problems = [f"not green after: {t} {o}" for t, o in post.items() if o != "passed"] if post else ["no tests"]
    if commit["kind"] not in CLAIMING_KINDS:
        return problems
    pre = node_outcomes(before, work)
    for test in commit["fail_to_pass"]:
        if pre.get(test) != "failed":
            problems.append(f"{test} should fail before, was {pre.get(test, 'missing')}")
        if post.get(test) != "passed":
            problems.append(f"{test} should pass after, was {post.get(test, 'missing')}")
    problems += [
        f"fails before, not claimed: {t}" for t, o in pre.items() if o != "passed" and t not in commit["fail_to_pass"]
    ]
    return problems


@pytest.mark.slow  # twenty runs of node --test
@pytest.mark.skipif(shutil.which("node") is None, reason="no node binary on PATH to run jskit's tests")
def test_every_claim_holds_under_node_test(built, commits, tmp_path):
    repo = built / "jskit"
    jobs = {f"{i:02d}-{c['kind']}": c for i, c in enumerate(commits) if c["kind"] != "initial"}
    with ThreadPoolExecutor(max_workers=2) as pool:
        found = dict(zip(jobs, pool.map(lambda key: problems_of(repo, jobs[key], tmp_path / key), jobs)))
    assert found == {key: [] for key in jobs}
