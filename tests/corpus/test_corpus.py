"""The bundled demo corpus: deterministic, counted as promised, and every F2P claim true."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import xml.etree.ElementTree as ET
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from pathlib import Path

import pytest

from corpus import builder as corpus
from corpus.repos import all_repos

VERIFIED_KINDS = ("bug_fix", "feature_add", "refactor")
# The HEAD of every repository per CORPUS_VERSION: identical on any machine and git version.
PINNED_HEADS = {
    "1": {
        "algos": "be8133fe3b7cd13040da39a732b2d59a0dbe6fc9",
        "pyledger": "0b4b7887f2426b0e240de2b2948a96e7c035c9ff",
        "safetext": "4af9e0feb984ee5270783dbea88725311b1622ae",
        "taskq": "3221ed9f5ea5d3b9208d4ae1c4d3d02a4d659e16",
    },
}


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    dest = tmp_path_factory.mktemp("corpus") / "corpus"
    corpus.build_corpus(dest)
    return dest


@pytest.fixture(scope="module")
def manifest(built) -> dict:
    return corpus.load_manifest(built)


def all_commits(manifest: dict) -> list[tuple[str, dict]]:
    return [(name, c) for name, repo in sorted(manifest["repos"].items()) for c in repo["commits"]]


def _clean_env() -> dict[str, str]:
    """No GIT_* variable of the caller (a hook's GIT_DIR, say) and no user git config."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_NOSYSTEM="1")
    return env


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, env=_clean_env(), check=True, capture_output=True, text=True).stdout


# ---------------------------------------------------------------- build and cache behaviour


def test_build_returns_sorted_repo_paths_and_writes_manifest(built, manifest):
    paths = corpus.build_corpus(built)  # already built: returned as is
    assert paths == sorted(paths)
    assert [p.name for p in paths] == sorted(manifest["repos"])
    assert len(paths) in (3, 4)
    assert manifest["version"] == corpus.CORPUS_VERSION
    for path in paths:
        assert (path / ".git").is_dir()
        assert (path / "pyproject.toml").is_file() and (path / "conftest.py").is_file()


def test_two_builds_give_identical_shas(built, manifest, tmp_path):
    again = tmp_path / "again"
    corpus.build_corpus(again)
    for name in manifest["repos"]:
        first = git(built / name, "rev-parse", "HEAD").strip()
        second = git(again / name, "rev-parse", "HEAD").strip()
        assert first == second == manifest["repos"][name]["head"], name
    assert corpus.load_manifest(again) == manifest


def test_heads_are_pinned_for_this_corpus_version(manifest):
    heads = {name: repo["head"] for name, repo in manifest["repos"].items()}
    assert heads == PINNED_HEADS.get(corpus.CORPUS_VERSION), (
        "the corpus content changed: bump CORPUS_VERSION and pin the new heads here"
    )


def test_git_history_matches_manifest(built, manifest):
    for name, repo in manifest["repos"].items():
        log = git(built / name, "log", "--reverse", "--format=%H %P|%an <%ae>|%aI|%cI|%s")
        rows = [line.split("|") for line in log.splitlines()]
        assert len(rows) == len(repo["commits"])
        for row, commit in zip(rows, repo["commits"]):
            shas, author, authored, committed, subject = row
            assert shas.split() == [commit["sha"]] + ([commit["parent"]] if commit["parent"] else [])
            assert author == f"{corpus.AUTHOR_NAME} <{corpus.AUTHOR_EMAIL}>"
            assert datetime.fromisoformat(authored) == datetime.fromisoformat(commit["date"])
            assert authored == committed
            assert subject == commit["subject"]
        assert git(built / name, "branch", "--show-current").strip() == "main"
        assert git(built / name, "status", "--porcelain") == ""


def test_refuses_a_foreign_non_empty_folder(tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(corpus.CorpusError, match="not empty"):
        corpus.build_corpus(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]


def test_rebuilding_a_built_folder_changes_nothing(built):
    before = (built / "manifest.json").stat().st_mtime_ns
    heads = {p.name: git(p, "rev-parse", "HEAD") for p in corpus.build_corpus(built)}
    assert (built / "manifest.json").stat().st_mtime_ns == before
    assert all(heads.values())


def test_load_manifest_of_a_folder_without_corpus(tmp_path):
    with pytest.raises(corpus.CorpusError, match="no built corpus"):
        corpus.load_manifest(tmp_path)


def test_default_corpus_dir_follows_sebgen_cache(monkeypatch, tmp_path):
    monkeypatch.setenv("SEBGEN_CACHE", str(tmp_path))
    assert corpus.default_corpus_dir() == tmp_path / f"corpus-{corpus.CORPUS_VERSION}"
    monkeypatch.delenv("SEBGEN_CACHE")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert corpus.default_corpus_dir() == tmp_path / "home" / ".cache" / "sebgen" / f"corpus-{corpus.CORPUS_VERSION}"


def test_ensure_corpus_builds_once_into_the_cache(monkeypatch, tmp_path, manifest):
    monkeypatch.setenv("SEBGEN_CACHE", str(tmp_path))
    paths = corpus.ensure_corpus()
    target = corpus.default_corpus_dir()
    assert paths == [target / name for name in sorted(manifest["repos"])]
    stamp = (target / "manifest.json").stat().st_mtime_ns
    assert corpus.ensure_corpus(target) == paths
    assert (target / "manifest.json").stat().st_mtime_ns == stamp
    assert sorted(p.name for p in tmp_path.iterdir()) == [target.name], "staging folder left behind"
    assert corpus.load_manifest(target) == manifest


def test_a_failed_build_leaves_no_half_corpus(monkeypatch, tmp_path):
    real = corpus._build_repo
    built_repos = []

    def build_then_die(spec, root, index):
        if built_repos:
            raise KeyboardInterrupt("killed mid-build")
        built_repos.append(spec.name)
        return real(spec, root, index)

    monkeypatch.setattr(corpus, "_build_repo", build_then_die)
    target = tmp_path / "cache" / "corpus"
    with pytest.raises(KeyboardInterrupt):
        corpus.ensure_corpus(target)
    assert built_repos, "the first repository should have been built before the kill"
    assert not target.exists()
    assert list((tmp_path / "cache").iterdir()) == []


def _copying_build(built: Path):
    """A stand-in for build_corpus that copies the module's corpus (a real build is tested above)."""

    def build(dest: Path, language: str = "python") -> list[Path]:
        shutil.copytree(built, dest, dirs_exist_ok=True)
        return corpus._repo_paths(Path(dest), corpus.load_manifest(dest))

    return build


def test_ensure_corpus_removes_only_stale_staging_folders(monkeypatch, built, tmp_path):
    monkeypatch.setattr(corpus, "build_corpus", _copying_build(built))
    target = tmp_path / "corpus"
    stale, fresh = tmp_path / ".corpus.building-old", tmp_path / ".corpus.building-new"
    for folder in (stale, fresh):
        folder.mkdir()
        (folder / "half").write_text("x")
    hours_ago = corpus.time.time() - 2 * corpus.STALE_STAGING_S
    os.utime(stale, (hours_ago, hours_ago))
    corpus.ensure_corpus(target)
    assert not stale.exists(), "a staging folder from a build killed long ago should be removed"
    assert fresh.exists(), "a recent staging folder may belong to a build still running"


def test_ensure_corpus_accepts_a_corpus_another_process_finished_first(monkeypatch, built, tmp_path):
    target = tmp_path / "corpus"
    copy = _copying_build(built)

    def build_while_another_process_wins(dest, language="python"):
        paths = copy(dest)
        copy(target)  # the other process renames its complete corpus into place first
        return paths

    monkeypatch.setattr(corpus, "build_corpus", build_while_another_process_wins)
    paths = corpus.ensure_corpus(target)
    assert paths == [target / p.name for p in paths]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["corpus"]


def test_an_interrupted_build_corpus_leaves_the_folder_empty(monkeypatch, tmp_path):
    real = corpus._build_repo
    calls = []

    def build_then_die(spec, root, index):
        calls.append(spec.name)
        if len(calls) == 2:
            raise KeyboardInterrupt("killed mid-build")
        return real(spec, root, index)

    monkeypatch.setattr(corpus, "_build_repo", build_then_die)
    (tmp_path / "empty").mkdir()
    for dest in (tmp_path / "empty", tmp_path / "new"):
        calls.clear()
        with pytest.raises(KeyboardInterrupt):
            corpus.build_corpus(dest)
    assert list((tmp_path / "empty").iterdir()) == []
    assert not (tmp_path / "new").exists()


def test_ensure_corpus_refuses_a_foreign_cache_folder(tmp_path):
    target = tmp_path / "corpus"
    target.mkdir()
    (target / "other.txt").write_text("x")
    with pytest.raises(corpus.CorpusError, match="holds no corpus"):
        corpus.ensure_corpus(target)
    assert [p.name for p in tmp_path.iterdir()] == ["corpus"]


# ------------------------------------------------------------------- what the history holds


def test_counts_of_commit_kinds_and_domains(manifest):
    kinds: dict[str, int] = {}
    domains: dict[str, int] = {}
    for _, commit in all_commits(manifest):
        kinds[commit["kind"]] = kinds.get(commit["kind"], 0) + 1
        if commit["kind"] == "bug_fix":
            domains[commit["domain"]] = domains.get(commit["domain"], 0) + 1
    assert kinds["initial"] == len(manifest["repos"])
    assert kinds["bug_fix"] >= 24
    assert sorted(domains) == sorted(corpus.DOMAINS) and min(domains.values()) >= 2, domains
    assert kinds["feature_add"] >= 6
    assert kinds["refactor"] >= 4
    assert kinds["source_only"] >= 2 and kinds["tests_only"] >= 2 and kinds["docs"] >= 1
    assert kinds["short_message"] >= 2 and kinds["large"] >= 1
    assert set(manifest["domains"]) == set(corpus.DOMAINS)
    assert manifest["counts"]["kinds"] == {k: kinds.get(k, 0) for k in manifest["counts"]["kinds"]}
    assert manifest["counts"]["bug_fix_domains"] == domains


def test_each_kind_has_the_shape_the_miner_filters_on(manifest):
    for name, c in all_commits(manifest):
        where = f"{name} {c['sha'][:8]} {c['subject']!r}"
        src, tests = c["source_files"], c["test_files"]
        if c["kind"] in ("bug_fix", "feature_add", "refactor"):
            assert src and tests and len(src) < 15, where
            assert len(c["message"]) >= 25 and "\n\n" in c["message"], where
            assert c["fail_to_pass"] and c["functions"], where
            assert all(t.split("::")[0] in tests or t.startswith("tests/") for t in c["fail_to_pass"]), where
        elif c["kind"] == "source_only":
            assert src and not tests, where
        elif c["kind"] == "tests_only":
            assert tests and not src, where
        elif c["kind"] == "docs":
            assert c["files"] and all(f.endswith(".md") for f in c["files"]), where
        elif c["kind"] == "short_message":
            assert len(c["message"]) < 25 and src and tests, where
        elif c["kind"] == "large":
            assert len(src) >= 15 and tests, where
        assert (c["domain"] in corpus.DOMAINS) == (c["kind"] == "bug_fix"), where


def test_dates_are_spread_over_the_window_and_increase(manifest):
    all_dates = []
    for repo in manifest["repos"].values():
        dates = [datetime.fromisoformat(c["date"]) for c in repo["commits"]]
        assert dates == sorted(dates) and len(set(dates)) == len(dates)
        all_dates += dates
    assert min(all_dates).strftime("%Y-%m") == "2025-01"
    assert max(all_dates).strftime("%Y-%m") == "2026-10"


def test_no_commit_message_contains_code_of_the_fix(manifest):
    for _, c in all_commits(manifest):
        assert "```" not in c["message"] and "def " not in c["message"], c["subject"]


# --------------------------------------------------- every fail-to-pass claim, by running it


def _export(repo: Path, sha: str, dest: Path) -> None:
    tar = subprocess.run(
        ["git", "archive", "--format=tar", sha], cwd=repo, env=_clean_env(), check=True, capture_output=True
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(tar)) as archive:
        if hasattr(tarfile, "data_filter"):  # Python versions with extraction filters
            archive.extractall(dest, filter="data")
        else:
            archive.extractall(dest)


def _prepare_states(repo: Path, commit: dict, work: Path) -> tuple[Path, Path]:
    """(before, after): the commit's tree, and the same tree with its non-test files at the parent."""
    after, before = work / "after", work / "before"
    _export(repo, commit["sha"], after)
    shutil.copytree(after, before)
    in_parent = set(git(repo, "ls-tree", "-r", "--name-only", commit["parent"]).split("\n"))
    for path in commit["files"]:
        if path in commit["test_files"]:
            continue
        target = before / path
        if path in in_parent:
            target.write_bytes(
                subprocess.run(
                    ["git", "show", f"{commit['parent']}:{path}"],
                    cwd=repo,
                    env=_clean_env(),
                    check=True,
                    capture_output=True,
                ).stdout
            )
        else:
            target.unlink()
    return before, after


def run_pytest(tree: Path) -> dict[str, str]:
    """Outcome per test id in `tree`, read from JUnit XML (never from printed text)."""
    report = tree / "junit.xml"
    env = {k: v for k, v in os.environ.items() if k not in ("PYTEST_ADDOPTS", "PYTHONPATH")}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"  # the corpus needs bare pytest; plugins cost ~1 s a run
    subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--junitxml={report}", "tests"],
        cwd=tree,
        env=env,
        capture_output=True,
        timeout=300,
    )
    outcomes: dict[str, str] = {}
    for case in ET.parse(report).getroot().iter("testcase"):
        classname = case.get("classname", "")
        nodeid = classname.replace(".", "/") + ".py::" + case.get("name", "")
        failed = case.find("failure") is not None or case.find("error") is not None
        skipped = case.find("skipped") is not None
        outcomes[nodeid] = "failed" if failed else "skipped" if skipped else "passed"
    return outcomes


def verify_commit(repo: Path, commit: dict, work: Path) -> list[str]:
    """Problems with the commit's F2P claim (empty when it holds)."""
    before, after = _prepare_states(repo, commit, work)
    pre, post = run_pytest(before), run_pytest(after)
    problems = []
    for test in commit["fail_to_pass"]:
        if pre.get(test) != "failed":
            problems.append(f"{test} should fail before the change, was {pre.get(test, 'missing')}")
        if post.get(test) != "passed":
            problems.append(f"{test} should pass after the change, was {post.get(test, 'missing')}")
    broken_before = sorted(t for t, o in pre.items() if o != "passed" and t not in commit["fail_to_pass"])
    if broken_before:
        problems.append(f"tests other than the F2P ones fail before the change: {broken_before}")
    broken_after = sorted(t for t, o in post.items() if o != "passed")
    if broken_after or not post:
        problems.append(f"suite not green after the change: {broken_after or 'no tests ran'}")
    return problems


def verify_green(repo: Path, commit: dict, work: Path) -> list[str]:
    """Problems with a commit that makes no F2P claim: its whole suite must pass."""
    outcomes = run_pytest_at(repo, commit["sha"], work)
    broken = sorted(t for t, o in outcomes.items() if o != "passed")
    return [f"suite not green: {broken or 'no tests ran'}"] if broken or not outcomes else []


def _commit_ids(kinds: tuple[str, ...]) -> list[str]:
    ids = []
    for spec in all_repos():
        for number, step in enumerate(spec.steps, start=1):
            if step.kind in kinds:
                ids.append(f"{spec.name}-{number:02d}-{step.kind}")
    return ids


OTHER_KINDS = ("source_only", "tests_only", "docs", "short_message", "large")


@pytest.fixture(scope="module")
def verification(built, manifest, tmp_path_factory) -> dict[str, list[str]]:
    """Runs every claim once, two commits at a time, so the whole check stays fast."""
    jobs = {}
    for name, repo in sorted(manifest["repos"].items()):
        for number, commit in enumerate(repo["commits"]):
            check = verify_commit if commit["kind"] in VERIFIED_KINDS else verify_green
            if commit["kind"] != "initial":
                jobs[f"{name}-{number:02d}-{commit['kind']}"] = (check, built / name, commit)
    root = tmp_path_factory.mktemp("verify")
    with ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2)) as pool:
        futures = {key: pool.submit(check, path, commit, root / key) for key, (check, path, commit) in jobs.items()}
        return {key: future.result() for key, future in futures.items()}


@pytest.mark.slow  # builds and runs each corpus task in a fresh environment
@pytest.mark.parametrize("commit_id", _commit_ids(VERIFIED_KINDS))
def test_fail_to_pass_claim_holds(verification, commit_id):
    assert commit_id in verification
    assert verification[commit_id] == []


@pytest.mark.slow  # shares the verification of every corpus commit above
@pytest.mark.parametrize("commit_id", _commit_ids(OTHER_KINDS))
def test_filtered_commit_keeps_the_suite_green(verification, commit_id):
    assert commit_id in verification
    assert verification[commit_id] == []


def test_every_initial_commit_is_green(built, manifest, tmp_path):
    for name, repo in manifest["repos"].items():
        _export(built / name, repo["commits"][0]["sha"], tmp_path / name)
        outcomes = run_pytest(tmp_path / name)
        assert outcomes and set(outcomes.values()) == {"passed"}, (name, outcomes)


def run_pytest_at(repo: Path, sha: str, dest: Path) -> dict[str, str]:
    _export(repo, sha, dest)
    return run_pytest(dest)


def test_manifest_is_plain_json(built):
    text = (built / "manifest.json").read_text()
    assert json.loads(text)["version"] == corpus.CORPUS_VERSION
    assert str(built) not in text, "the manifest must not hold absolute paths (the corpus is moved)"
