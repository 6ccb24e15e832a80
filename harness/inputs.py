"""What `sebgen evaluate` and `sebgen export` read: tasks from a task JSONL file or from a
SWE-bench JSONL file that `sebgen export` wrote, and an agent's predictions file.

    tasks = read_tasks(path, source_repos)     # source_repos: where export rows' repositories may be
    predictions = load_predictions(path, warn)

Only the records load here, so a malformed file is reported before git, the sandbox or the LLM
client are imported.

An export row has SWE-bench's shape: FAIL_TO_PASS and PASS_TO_PASS are JSON strings, `repo` is
`owner/name`, `base_commit` may be a mirror's buggy commit, and no path of this machine is in it.
SEBGen's own columns carry the rest: `sebgen_fixed_commit` and `bug_patch` make the agent's state
again, `difficulty` and `difficulty_level` the breakdown. The source repository is the one among
`source_repos` that holds the fixed commit (one named like the row's repository is tried first).
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable, Iterable
from pathlib import Path

from records import Task, TaskFileError, UserError, read_jsonl

# the columns that make an export row a task again (swebench_record writes them)
EXPORT_COLUMNS = (
    "instance_id",
    "repo",
    "patch",
    "test_patch",
    "problem_statement",
    "FAIL_TO_PASS",
    "PASS_TO_PASS",
    "bug_patch",
    "sebgen_fixed_commit",
)
OPTIONAL_COLUMNS = ("hints_text", "created_at", "version", "difficulty", "difficulty_level")


class PredictionsError(UserError):
    pass


def read_tasks(source: Path, source_repos: Callable[[], Iterable[Path]]) -> list[Task]:
    """The tasks of a task JSONL file, or of a SWE-bench JSONL file `sebgen export` wrote (told
    apart by its first row); `source_repos` is called only for an export."""
    source = Path(source)
    first = _first_row(source)
    if isinstance(first, dict) and _is_export_row(first):
        return _export_tasks(source, _RepoFinder(source_repos))
    return list(read_jsonl(source))


def _first_row(path: Path):
    """The first non-empty line parsed, or None (read_jsonl then says what is wrong)."""
    if not path.is_file():
        return None
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                try:
                    return json.loads(line)
                except json.JSONDecodeError:
                    return None
    return None


def _is_export_row(row: dict) -> bool:
    # SWE-bench ships the test lists as JSON strings; SEBGen's task records hold lists
    return isinstance(row.get("FAIL_TO_PASS"), str)


def _export_tasks(path: Path, repos: _RepoFinder) -> list[Task]:
    tasks = []
    with open(path, encoding="utf-8") as fh:
        for number, line in enumerate(fh, 1):
            if not line.strip():
                continue
            where = f"{path} line {number}"
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                raise TaskFileError(f"{where} is not JSON: {exc}") from None
            missing = [name for name in EXPORT_COLUMNS if not isinstance(row, dict) or name not in row]
            if missing:
                raise TaskFileError(
                    f"{where} is a SWE-bench row without {', '.join(missing)}; only rows `sebgen export` "
                    "wrote can be evaluated"
                )
            try:
                fail_to_pass, pass_to_pass = json.loads(row["FAIL_TO_PASS"]), json.loads(row["PASS_TO_PASS"])
            except (TypeError, json.JSONDecodeError):
                raise TaskFileError(f"{where}: FAIL_TO_PASS and PASS_TO_PASS must be JSON lists") from None
            tasks.append(
                Task(
                    instance_id=row["instance_id"],
                    repo=row["repo"],
                    base_commit=row["sebgen_fixed_commit"],
                    patch=row["patch"],
                    test_patch=row["test_patch"],
                    problem_statement=row["problem_statement"],
                    bug_patch=row["bug_patch"],
                    strategy_type="",  # an export does not say which strategy made the task
                    strategy_id="",
                    FAIL_TO_PASS=fail_to_pass,
                    PASS_TO_PASS=pass_to_pass,
                    repo_path=str(repos.holding(row["repo"], row["sebgen_fixed_commit"], where)),
                    **{name: row[name] for name in OPTIONAL_COLUMNS if row.get(name) is not None},
                )
            )
    return tasks


class _RepoFinder:
    """Finds the local repository that holds a commit among the candidates (listed once, on first use)."""

    def __init__(self, candidates: Callable[[], Iterable[Path]]):
        self._candidates = candidates
        self._repos: list[Path] | None = None

    def holding(self, repo: str, commit: str, where: str) -> Path:
        if self._repos is None:
            self._repos = [Path(p) for p in self._candidates()]
        name = repo.rstrip("/").split("/")[-1].removesuffix(".git")
        for path in sorted(self._repos, key=lambda p: p.name != name):  # the same name first
            if _holds_commit(path, commit):
                return path
        looked = ", ".join(str(p) for p in self._repos) or "none"
        raise TaskFileError(
            f"{where}: no repository on this machine holds {repo}'s commit {commit[:12]} (looked in {looked}); "
            "name the repositories the tasks came from with --config (its `repos`)"
        )


def _holds_commit(repo: Path, commit: str) -> bool:
    if not repo.is_dir() or not commit:
        return False
    proc = subprocess.run(
        ["git", "-C", str(repo), "cat-file", "-e", f"{commit}^{{commit}}"], capture_output=True, check=False
    )
    return proc.returncode == 0


def load_predictions(path: Path, warn: Callable[[str], None] | None = None) -> dict[str, list[str | None]]:
    """SWE-bench predictions (JSONL, a JSON list, or a dict keyed by instance_id); repeated ids = attempts.

    Types are checked (instance_id a non-empty string, model_patch a string or null); an empty
    file, a missing model_patch and repeated instance ids are said through `warn`.
    """
    path = Path(path)
    warn = warn or (lambda message: None)
    if not path.is_file():
        raise PredictionsError(f"predictions file {path} does not exist")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise PredictionsError(f"predictions file {path} is not UTF-8 text") from None
    if not text.strip():
        warn(f"warning: predictions file {path} is empty; every task gets no patch")
        return {}
    try:
        data = json.loads(text)
        rows = (
            list(data.values())
            if isinstance(data, dict) and "instance_id" not in data
            else (data if isinstance(data, list) else [data])
        )
    except json.JSONDecodeError:
        try:
            rows = [json.loads(line) for line in text.splitlines() if line.strip()]
        except json.JSONDecodeError as exc:
            raise PredictionsError(f"{path} is neither JSON nor JSONL: {exc}") from None
    predictions: dict[str, list[str | None]] = {}
    missing_patch = 0
    for number, row in enumerate(rows, 1):
        if not isinstance(row, dict) or "instance_id" not in row:
            raise PredictionsError(f"{path} prediction {number} has no instance_id")
        instance_id = row["instance_id"]
        if not isinstance(instance_id, str) or not instance_id.strip():
            raise PredictionsError(
                f"{path} prediction {number}: instance_id must be a non-empty string, not {type(instance_id).__name__}"
            )
        if "model_patch" not in row:
            missing_patch += 1
        patch = row.get("model_patch")
        if patch is not None and not isinstance(patch, str):
            raise PredictionsError(
                f"{path} prediction {number} ({instance_id}): model_patch must be a string "
                f"or null, not {type(patch).__name__}"
            )
        predictions.setdefault(instance_id, []).append(patch)
    if missing_patch:
        warn(f"warning: {missing_patch} prediction(s) in {path} have no model_patch; they count as no patch")
    repeated = sorted(i for i, patches in predictions.items() if len(patches) > 1)
    if repeated:
        warn(
            f"warning: {len(repeated)} instance id(s) appear more than once in {path} (e.g. {repeated[0]}); "
            "each line counts as one more attempt"
        )
    return predictions
