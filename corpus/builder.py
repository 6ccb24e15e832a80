"""The bundled demo corpus: small git repositories whose history is known commit by commit.

`build_corpus` writes each repository described in `corpus/repos/` as a real git
history (plain `git` with a fixed identity, fixed dates and no user config, so every build
gives the same SHAs) and a `manifest.json` saying, for every commit, what kind it is, which
domain a bug fix belongs to and which tests it turns from failing to passing. The miner,
the generator and their tests use it as ground truth; `sebgen corpus DIR` exposes it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

from corpus.repos import KINDS, LANGUAGES, Append, Replace, RepoSpec, Step, Write, all_repos
from records import UserError

CORPUS_VERSION = "1"
DOMAINS: tuple[str, ...] = ("error_handling", "concurrency", "memory", "math", "validation", "security", "algorithm")

MANIFEST_NAME = "manifest.json"
STALE_STAGING_S = 3600  # a build takes seconds; older staging folders belong to killed builds
AUTHOR_NAME = "Corpus Builder"
AUTHOR_EMAIL = "corpus@sebgen.invalid"
# Histories are spread over this window so date filters have something to cut.
HISTORY_START = datetime(2025, 1, 6, 9, 0, tzinfo=timezone.utc)
HISTORY_END = datetime(2026, 10, 20, 17, 0, tzinfo=timezone.utc)


class CorpusError(UserError):
    """The corpus cannot be built or read where it was asked for."""


def default_corpus_dir(language: str = "python") -> Path:
    """$SEBGEN_CACHE (or ~/.cache/sebgen) / corpus-<CORPUS_VERSION> (corpus-js-<CORPUS_VERSION> for the
    JavaScript corpus): the cache root is the sandbox's too."""
    root = os.environ.get("SEBGEN_CACHE") or str(Path.home() / ".cache" / "sebgen")
    prefix = "corpus" if language == "python" else "corpus-js"
    return Path(root) / f"{prefix}-{CORPUS_VERSION}"


def load_manifest(corpus_dir: Path) -> dict:
    """The manifest of a built corpus; CorpusError when there is none."""
    path = Path(corpus_dir) / MANIFEST_NAME
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (FileNotFoundError, NotADirectoryError):
        raise CorpusError(f"{corpus_dir} holds no built corpus ({MANIFEST_NAME} is missing).") from None
    except json.JSONDecodeError as exc:
        raise CorpusError(f"{path} is not valid JSON: {exc}.") from None


def build_corpus(dest: Path, language: str = "python") -> list[Path]:
    """Create dest/<repo> for every repository of `language`'s corpus (the Python one by
    default; "javascript" builds the JS corpus on its own) and dest/manifest.json; return the
    repo paths.

    A folder that already holds that corpus at this version is returned as it is; any other
    non-empty folder is refused.
    """
    dest = Path(dest)
    specs = _specs(language)
    if _is_built(dest, language):
        return _repo_paths(dest, load_manifest(dest))
    if dest.exists() and (not dest.is_dir() or any(dest.iterdir())):
        raise CorpusError(
            f"{dest} is not empty and holds no corpus of version {CORPUS_VERSION}; choose an empty or new folder."
        )
    existed = dest.exists()
    try:
        dest.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise CorpusError(f"cannot create the folder {dest}: {exc.strerror}.") from None
    repos = {}
    try:
        for spec in specs:
            repos[spec.name] = _build_repo(spec, dest / spec.name, _date_index(spec))
        manifest = {
            "version": CORPUS_VERSION,
            "language": language,
            "domains": list(DOMAINS),
            "counts": _counts(repos),
            "repos": repos,
        }
        # Written last and renamed into place: its presence marks a complete corpus.
        partial = dest / (MANIFEST_NAME + ".partial")
        partial.write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
        os.replace(partial, dest / MANIFEST_NAME)
    except BaseException:  # interrupted or failed: leave the folder as we found it
        if existed:
            for child in list(dest.iterdir()):
                if child.is_dir():
                    shutil.rmtree(child, ignore_errors=True)
                else:
                    child.unlink()
        else:
            shutil.rmtree(dest, ignore_errors=True)
        raise
    return _repo_paths(dest, manifest)


def ensure_corpus(cache_dir: Path | None = None, language: str = "python") -> list[Path]:
    """`language`'s corpus in `cache_dir` (default: default_corpus_dir(language)), built there on
    first use.

    The build goes to a temporary sibling folder that is renamed into place when complete,
    so a killed build never leaves a half corpus behind.
    """
    _specs(language)
    target = Path(cache_dir) if cache_dir is not None else default_corpus_dir(language)
    if _is_built(target, language):
        return _repo_paths(target, load_manifest(target))
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise CorpusError(
            f"{target} exists and holds no corpus of version {CORPUS_VERSION}; "
            "remove it or choose another cache folder."
        )
    target.parent.mkdir(parents=True, exist_ok=True)
    _remove_stale_staging(target)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.building-", dir=target.parent))
    os.chmod(staging, 0o755)  # mkdtemp makes it private; the cache is an ordinary folder
    try:
        build_corpus(staging, language)
        try:
            os.rename(staging, target)  # atomic; replaces an empty folder
        except OSError:
            if not _is_built(target, language):  # another process did not win the race: a real clash
                raise CorpusError(
                    f"{target} exists and holds no corpus of version "
                    f"{CORPUS_VERSION}; remove it or choose another cache folder."
                ) from None
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)
    return _repo_paths(target, load_manifest(target))


def _remove_stale_staging(target: Path) -> None:
    """Delete staging folders that builds killed over an hour ago left next to `target`."""
    cutoff = time.time() - STALE_STAGING_S
    for leftover in target.parent.glob(f".{target.name}.building-*"):
        try:
            if leftover.stat().st_mtime < cutoff:
                shutil.rmtree(leftover, ignore_errors=True)
        except OSError:  # removed meanwhile by another process
            pass


def commit_dates(count: int, repo_index: int) -> list[datetime]:
    """`count` increasing dates spread over the history window, staggered per repository."""
    start = HISTORY_START + timedelta(days=2 * repo_index, minutes=53 * repo_index)
    end = HISTORY_END - timedelta(days=5 * repo_index)
    step = (end - start) / max(count - 1, 1)
    dates = []
    for i in range(count):
        jitter = timedelta(minutes=(i * 97 + repo_index * 31) % 420)  # less than a step
        moment = start + step * i + (jitter if 0 < i < count - 1 else timedelta(0))
        dates.append(moment.replace(second=0, microsecond=0))
    return dates


def _counts(repos: dict) -> dict:
    """Commits per kind and bug fixes per domain, over the whole corpus."""
    commits = [c for repo in repos.values() for c in repo["commits"]]
    kinds = {kind: sum(c["kind"] == kind for c in commits) for kind in KINDS}
    domains = {d: sum(c["kind"] == "bug_fix" and c["domain"] == d for c in commits) for d in DOMAINS}
    return {"commits": len(commits), "kinds": kinds, "bug_fix_domains": domains}


def _specs(language: str) -> list[RepoSpec]:
    if language not in LANGUAGES:
        raise CorpusError(f"there is no bundled corpus for {language!r}; known: {', '.join(LANGUAGES)}.")
    return all_repos(language)


def _date_index(spec: RepoSpec) -> int:
    """The repository's place in every corpus (Python first): it staggers its commit dates."""
    return [s.name for language in LANGUAGES for s in all_repos(language)].index(spec.name)


def _is_built(dest: Path, language: str = "python") -> bool:
    try:
        manifest = load_manifest(dest)
    except CorpusError:
        return False
    names = [spec.name for spec in all_repos(language)]
    return (
        manifest.get("version") == CORPUS_VERSION
        and sorted(manifest.get("repos", {})) == sorted(names)
        and all((dest / name / ".git").is_dir() for name in names)
    )


def _repo_paths(dest: Path, manifest: dict) -> list[Path]:
    return [dest / name for name in sorted(manifest["repos"])]


def _git_env(when: datetime) -> dict[str, str]:
    """An environment that makes git independent of the user's config and clock."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    stamp = f"@{int(when.timestamp())} +0000"
    env.update(
        {
            "GIT_CONFIG_GLOBAL": os.devnull,
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_AUTHOR_NAME": AUTHOR_NAME,
            "GIT_AUTHOR_EMAIL": AUTHOR_EMAIL,
            "GIT_COMMITTER_NAME": AUTHOR_NAME,
            "GIT_COMMITTER_EMAIL": AUTHOR_EMAIL,
            "GIT_AUTHOR_DATE": stamp,
            "GIT_COMMITTER_DATE": stamp,
            "LC_ALL": "C",
            "TZ": "UTC",
        }
    )
    return env


_GIT_FLAGS = (
    "-c",
    "commit.gpgsign=false",
    "-c",
    "core.autocrlf=false",
    "-c",
    "core.hooksPath=/dev/null",
    "-c",
    "init.defaultBranch=main",
    "-c",
    f"user.name={AUTHOR_NAME}",
    "-c",
    f"user.email={AUTHOR_EMAIL}",
)


def _git(repo: Path, env: dict[str, str], *args: str, stdin: str | None = None) -> str:
    proc = subprocess.run(["git", *_GIT_FLAGS, *args], cwd=repo, env=env, input=stdin, capture_output=True, text=True)
    if proc.returncode != 0:
        raise CorpusError(f"git {' '.join(args)} failed in {repo}: {proc.stderr.strip()}")
    return proc.stdout.strip()


def _apply(root: Path, edit: Write | Replace | Append) -> None:
    path = root / edit.path
    if isinstance(edit, Write):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(edit.content.encode("utf-8"))
        return
    text = path.read_text(encoding="utf-8")
    if isinstance(edit, Append):
        text = text.rstrip("\n") + "\n" + "\n" * edit.gap + edit.text
    else:
        count = text.count(edit.old)
        if count != 1:  # a data error in corpus_data: say exactly where
            raise CorpusError(f"{edit.path}: snippet to replace found {count} times: {edit.old[:60]!r}")
        text = text.replace(edit.old, edit.new)
    path.write_bytes(text.encode("utf-8"))


JS_SOURCE_SUFFIXES = (".js", ".mjs", ".cjs", ".ts")


def _is_test_file(path: str) -> bool:
    return path.startswith(("tests/", "test/")) or path.rsplit("/", 1)[-1] == "conftest.py"


def _is_source_file(path: str, language: str) -> bool:
    suffixes = (".py",) if language == "python" else JS_SOURCE_SUFFIXES
    return path.endswith(suffixes) and not _is_test_file(path)


def _record(step: Step, sha: str, parent: str | None, when: datetime, files: list[str], language: str) -> dict:
    subject, _, body = step.message.partition("\n")
    if step.kind not in KINDS:
        raise CorpusError(f"unknown commit kind {step.kind!r} in corpus data")
    if step.kind == "bug_fix" and step.domain not in DOMAINS:
        raise CorpusError(f"bug fix {subject!r} has no valid domain")
    return {
        "sha": sha,
        "parent": parent,
        "subject": subject,
        "message": step.message,
        "kind": step.kind,
        "domain": step.domain,
        "date": when.isoformat(),
        "fail_to_pass": list(step.fail_to_pass),
        "functions": list(step.functions),
        "files": files,
        "source_files": [f for f in files if _is_source_file(f, language)],
        "test_files": [f for f in files if _is_test_file(f)],
    }


def _build_repo(spec: RepoSpec, root: Path, index: int) -> dict:
    """Write one repository commit by commit; return its manifest entry."""
    initial = Step(
        kind="initial", message=spec.initial_message, edits=tuple(Write(p, c) for p, c in sorted(spec.files.items()))
    )
    steps = (initial, *spec.steps)
    dates = commit_dates(len(steps), index)
    root.mkdir(parents=True)
    _git(root, _git_env(dates[0]), "init", "-q")
    commits: list[dict] = []
    parent = None
    for step, when in zip(steps, dates):
        env = _git_env(when)
        for edit in step.edits:
            _apply(root, edit)
        _git(root, env, "add", "-A")
        _git(root, env, "commit", "-q", "--no-verify", "--cleanup=strip", "-F", "-", stdin=step.message + "\n")
        sha = _git(root, env, "rev-parse", "HEAD")
        files = sorted({edit.path for edit in step.edits})
        commits.append(_record(step, sha, parent, when, files, spec.language))
        parent = sha
    return {
        "path": spec.name,
        "description": spec.description,
        "language": spec.language,
        "head": parent,
        "commits": commits,
    }
