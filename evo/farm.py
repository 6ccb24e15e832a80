"""Farming a dataset from many repositories (`sebgen farm`): resumable, incremental, on Dask.

A unit is one commit, or one merged pull request (a merge commit's change against its first
parent; a squash-merge commit, "Title (#12)", is a pull request too). Its id is stable: the
repository, the sha and the kind. Every unit runs the same layers as `sebgen generate`.

A run is a dataset version. When it starts, it plans its units (those of the repositories'
histories no earlier version finished, ordered by the strategy's selection genes, repositories
interleaved, cut to `--limit`) and writes the plan down; each unit's outcome is appended to the
state file as it ends. A killed run, given the same command, finds its version open and tries
only the planned units that have no outcome yet. When every planned unit has one, the version is
released: its kept tasks, ordered by unit id, minus duplicates of tasks already in the dataset
(same normalised gold patch or FAIL_TO_PASS set), are written once and never rewritten. So the
release depends on the outcomes, never on the order in which the units ended: with one worker
or many, interrupted or not, the same seed gives the same dataset. (SWE-MERA's online quartile
filter is order-dependent, so a farm does not apply it.)
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from evo.config import Config, FarmSettings
from evo.dataset import DatasetFolder, DatasetFolderError
from evo.pipeline import Outcome
from evo.runfolder import RunFolder
from evo.stopping import Stopper
from records import Task, UserError
from tasks import (
    SEED_PROMPTS,
    Candidate,
    MiningError,
    Strategy,
    StrategyType,
    mine_pull_requests,
    mining_digest,
    pick_candidates,
)

COMMIT, PR = "commit", "pr"
KEPT, REJECTED, ERROR, DUPLICATE = "kept", "rejected", "error", "duplicate"
# losses that tell of the machine more than of the unit (a load spike past the time limit, an engine
# that could not run a container): a later version tries the unit again, as it does an error
TRANSIENT_CAUSES = ("timeout", "sandbox failed")


class FarmError(UserError):
    pass


# ------------------------------------------------------------------ units


def unit_kind(candidate: Candidate) -> str:
    """pr for a merge commit or a squash merge ("Title (#12)" with no merge above it), else commit."""
    if candidate.merge == candidate.sha or (candidate.pr_number and not candidate.merge):
        return PR
    return COMMIT


def unit_id(repo: str, sha: str, kind: str) -> str:
    return f"{repo}@{sha}:{kind}"


@dataclass
class Unit:
    id: str
    repo: str
    kind: str
    candidate: Candidate


def change_size(candidate: Candidate) -> tuple[int, int]:
    """(changed lines, hunks) of the gold patch (every non-test change)."""
    import git

    paths = candidate.fix_paths
    if not paths:
        return 0, 0
    diff = git.Repo(candidate.repo_path).git.diff("-U0", "--no-color", candidate.parent, candidate.sha, "--", *paths)
    lines = hunks = 0
    for line in diff.splitlines():
        if line.startswith("@@"):
            hunks += 1
        elif line[:1] in "+-" and not line.startswith(("+++", "---")):
            lines += 1
    return lines, hunks


@dataclass
class MinedHistory:
    """What mining one repository's history found for a farm, before the unit filters: saved in
    the dataset folder (`DatasetFolder.write_mined`) under `mined_key`, so a resumed or repeated
    farm of the same HEAD reads it instead of mining again, and an incremental one classifies
    only the commits it has not seen (`tasks.mining.reuse_or_classify`)."""

    head: str
    language: str  # the language HEAD's tree holds ("unknown" when none)
    commits: list[Candidate]  # `mine`'s candidates
    pulls: list[Candidate]  # `mine_pull_requests`' (empty unless PR units are asked for)
    sizes: dict[str, list[int]] = field(default_factory=dict)  # sha -> [changed lines, hunks], as filters ask

    def to_dict(self) -> dict:
        return {
            "head": self.head,
            "language": self.language,
            "commits": [c.to_dict() for c in self.commits],
            "pulls": [c.to_dict() for c in self.pulls],
            "sizes": self.sizes,
        }

    @classmethod
    def from_dict(cls, data: dict) -> MinedHistory:
        return cls(
            str(data["head"]),
            str(data["language"]),
            [Candidate(**c) for c in data["commits"]],
            [Candidate(**c) for c in data["pulls"]],
            {k: list(v) for k, v in (data.get("sizes") or {}).items()},
        )


def mined_key(config: Config, path: Path, settings: FarmSettings) -> str:
    """What a mined history depends on besides HEAD: the repository, the window, the unit kinds,
    the mining filters and the mining code itself (a new SEBGen version mines again)."""
    parts = {
        "path": str(Path(path).resolve()),
        "since": settings.since,
        "until": settings.until,
        "pulls": settings.unit in (PR, "both"),
        "mining": config.mining.model_dump(mode="json"),
        "code": mining_digest(),
    }
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()[:20]


def mine_history(
    config: Config, path: Path, settings: FarmSettings, earlier: MinedHistory | None = None
) -> MinedHistory:
    """Mine the history at HEAD; `earlier` (the saved mining of an older HEAD) lends the
    classification of the commits both have."""
    import git

    from environment import language_markers, snapshot_files
    from evo.runtime import mine_repo

    head = git.Repo(path).head.commit.hexsha
    known = {c.sha: c for c in earlier.commits} if earlier else None
    commits = mine_repo(config, path, settings.since, settings.until, known=known).candidates
    pulls = []
    if settings.unit in (PR, "both"):
        m = config.mining
        pulls = mine_pull_requests(
            path,
            since=settings.since or m.since,
            until=settings.until or m.until,
            max_source_files=m.max_source_files,
            min_message_chars=m.min_message_chars,
            max_commits=m.max_commits,
            known={c.sha: c for c in earlier.pulls} if earlier else None,
        )
    languages = sorted(language_markers(snapshot_files(path, "HEAD")))
    language = languages[0] if languages else "unknown"
    return MinedHistory(head, language, commits, pulls, dict(earlier.sizes) if earlier else {})


def repo_units(config: Config, path: Path, settings: FarmSettings, mined: MinedHistory | None = None) -> list[Unit]:
    """The units of one repository's history (in the date window, of the kinds asked for, passing
    the size filters), oldest first; from `mined` when given (its `sizes` filled as needed)."""
    mined = mined or mine_history(config, path, settings)
    found: dict[str, Candidate] = {c.sha: c for c in mined.commits}
    found.update({c.sha: c for c in mined.pulls})
    units = []
    for c in found.values():
        kind = unit_kind(c)
        if settings.unit != "both" and kind != settings.unit:
            continue
        if len(c.source_files) < settings.min_source_files:
            continue
        if settings.min_lines or settings.min_hunks:
            if c.sha not in mined.sizes:
                mined.sizes[c.sha] = list(change_size(c))
            lines, hunks = mined.sizes[c.sha]
            if lines < settings.min_lines or hunks < settings.min_hunks:
                continue
        units.append(Unit(unit_id(c.repo, c.sha, kind), c.repo, kind, c))
    return sorted(units, key=lambda u: u.candidate.created_at)


def farm_strategy(settings: FarmSettings) -> Strategy:
    """The strategy every unit is tried with: a type's seed strategy, one of an evolution run's
    (`--strategy-pick`), or a random one drawn with `--random-strategy SEED` (of --strategy's type,
    else of any commit type)."""
    if settings.strategy_from:
        path = Path(settings.strategy_from)
        if not path.is_dir():
            raise FarmError(f"--strategy-from: run folder {path} does not exist")
        if settings.strategy_pick == "best":
            return Strategy.from_dict(RunFolder(path).best_strategy())
        return _picked_from_run(RunFolder(path), settings.strategy_pick)
    if settings.random_strategy is not None:
        import random

        from operators import random_strategy

        types = [StrategyType(settings.strategy)] if settings.strategy else FARM_TYPES
        return random_strategy(random.Random(settings.random_strategy), 0, types)
    stype = StrategyType(settings.strategy or StrategyType.BUG_FIX.value)
    return Strategy(stype, SEED_PROMPTS[stype][-1])


FARM_TYPES = [t for t in StrategyType if t != StrategyType.SYNTHETIC]  # a farm tries commits


def _picked_from_run(run: RunFolder, pick: str) -> Strategy:
    """The run's best seed or best evolved strategy, as the evolution-gain experiment picks them."""
    from evo.experiment import pick_arms

    if not run.is_run():
        raise FarmError(f"--strategy-from: {run.path} is not a SEBGen run folder (no config.yaml or no checkpoint)")
    if not run.offspring() or not set(run.offspring()) <= set(run.scores()):
        raise FarmError(f"--strategy-from: {run.path} has an unscored generation or none, so no {pick} yet")
    best_seed, best_evolved, _ = pick_arms(run)
    if pick == "best-seed":
        return best_seed
    if best_evolved is None:
        raise FarmError(f"--strategy-from: {run.path} made no strategy beyond its seeds: it has no best-evolved")
    return best_evolved


def plan(units_by_repo: dict[str, list[Unit]], strategy: Strategy, done: set[str], limit: int | None) -> list[Unit]:
    """The units a new version tries: per repository the untried ones the strategy takes, in the
    order its selection genes prefer; repositories interleaved one unit at a time; cut to `limit`."""
    queues = []
    for units in units_by_repo.values():
        # the strategy picks from the whole history, then the tried units drop out: which kinds it
        # takes never depends on what earlier versions left
        by_sha = {u.candidate.sha: u for u in units}
        picked = [by_sha[c.sha] for c in pick_candidates([u.candidate for u in units], strategy)]
        queues.append([u for u in picked if u.id not in done])
    planned: list[Unit] = []
    for i in range(max((len(q) for q in queues), default=0)):
        planned += [q[i] for q in queues if i < len(q)]
    return planned[:limit] if limit else planned


# ------------------------------------------------------------------ one unit, in any process

_WORKER: dict = {}


def farm_unit(job: dict) -> dict:
    """Try one unit; its state row (the task of a kept unit included). Runs in the farm's process
    or a Dask worker, which builds its workbench once per config."""
    from evo.runtime import Workbench

    key = json.dumps(job["config"], sort_keys=True)
    if _WORKER.get("key") != key:
        if _WORKER.get("bench") is not None:
            _WORKER["bench"].close()
        config = Config.model_validate(job["config"])
        _WORKER.update(key=key, bench=Workbench.build(config, None, log=lambda *_: None, candidates=[]))
    bench = _WORKER["bench"]
    candidate = Candidate(**job["candidate"])
    row = {"unit": job["unit"], "repo": candidate.repo, "sha": candidate.sha, "kind": job["kind"]}
    started = time.monotonic()
    try:
        task = bench.generator.generate(candidate, Strategy.from_dict(job["strategy"]))
    except Exception as exc:  # one unit's failure (an environment, a tool) must not end the farm
        row.update(outcome=ERROR, layer="", category=type(exc).__name__, reason=str(exc).strip()[:500])
        row.update(seconds=round(time.monotonic() - started, 1), validations=0, task=None)
        return row
    outcome = Outcome.of(task, candidate.kind)
    row.update(
        outcome=outcome.status,
        layer=outcome.layer,
        category=outcome.category,
        reason=outcome.reason,
        classified=candidate.kind,
        created_at=candidate.created_at,
        seconds=round(time.monotonic() - started, 1),
        validations=int("functional" in task.validation),
        task=task.to_dict() if outcome.kept else None,
    )
    return row


def close_worker() -> None:
    bench = _WORKER.pop("bench", None)
    _WORKER.pop("key", None)
    if bench is not None:
        bench.close()


def run_units(
    jobs: list[dict], workers: int, scheduler: str | None, should_stop: Callable[[], bool], log=print
) -> Iterator[dict]:
    """State rows of `jobs` as they end: in this process (1 worker, no scheduler), else on a
    Dask LocalCluster of `workers` processes or the cluster at `scheduler`, `workers` in flight.
    After `should_stop()` nothing new starts; the units in flight finish."""
    if workers == 1 and not scheduler:
        try:
            for job in jobs:
                if should_stop():
                    return
                yield farm_unit(job)
        finally:
            close_worker()
        return
    from dask.distributed import Client, as_completed

    from evo.parallel import local_cluster

    cluster = None
    if scheduler:
        client = Client(scheduler)
        log(f"farm: Dask scheduler at {scheduler}")
    else:
        cluster = local_cluster(workers)
        client = Client(cluster)
        log(f"farm: local Dask cluster with {workers} workers")
    try:
        queue = list(jobs)
        running = as_completed()
        for _ in range(min(workers, len(queue))):
            running.add(client.submit(farm_unit, queue.pop(0), pure=False))
        for future in running:
            try:
                row = future.result()
            except Exception as exc:  # a worker lost (killed, Ctrl-C): the unit has no outcome, a rerun tries it
                log(f"farm: a unit was lost with its worker ({type(exc).__name__}); the next run tries it again")
                row = None
            if row is not None:
                yield row
            if queue and not should_stop():
                running.add(client.submit(farm_unit, queue.pop(0), pure=False))
    finally:
        if not scheduler:
            client.run(close_worker)  # each worker removes its containers
        client.close()
        if cluster is not None:
            cluster.close()


# ------------------------------------------------------------------ the farm


def _normalised_patch(patch: str) -> str:
    """The changed lines and the files they are in: context, hunk positions and blob ids differ
    between forks and rebases of one change."""
    kept = []
    for line in patch.splitlines():
        if line.startswith(("+++", "---")):
            kept.append(line.split("\t")[0])
        elif line[:1] in "+-":
            kept.append(line[0] + line[1:].strip())
    return "\n".join(kept)


def fingerprints(task: dict) -> list[str]:
    keys = ["patch:" + _normalised_patch(task.get("patch", ""))]
    f2p = sorted({t.strip() for t in task.get("FAIL_TO_PASS") or []})
    if f2p:
        keys.append("f2p:" + "\n".join(f2p))
    return keys


# a SetupError's "installing R@C failed after N attempts (pin conflict)": environment.install_failure's words
_INSTALL_CAUSE = re.compile(r"installing \S+ failed after \d+ attempts? \((?P<cause>[^)]+)\)")
_FUNCTIONAL_CAUSES = {  # the functional layer's categories that say why on their own
    "timeout": "timeout",
    "flaky": "flaky tests",
    "patch_error": "patch does not apply",
    "compile_error": "does not compile",
}


def failure_cause(row: dict) -> str:
    """Why a unit was lost, in the words a person filing an environment bug would use (missing
    submodule, pin conflict, install failed, no test ran, tests skipped, judge, ...): the farm
    summary counts these per repository. A kept unit or a duplicate has no cause ("")."""
    if row["outcome"] not in (REJECTED, ERROR):
        return ""
    reason, layer, category = str(row.get("reason") or ""), row.get("layer") or "", row.get("category") or ""
    if row["outcome"] == ERROR:
        return "gone from history" if category == "gone" else f"error ({category})"
    if "needs the submodule" in reason:
        return "missing submodule"
    installing = _INSTALL_CAUSE.search(reason)
    if installing:
        return installing.group("cause")
    if re.search(r"installing \S+ failed|requires Python", reason):
        return "install failed"
    if layer in ("quality", "semantic"):
        return "judge"
    if layer == "schema" and "writer failed" in reason:
        return "statement writer"
    if layer == "mining":
        return f"not a candidate ({category})"
    if "no test ran" in reason:
        return "no test ran"
    if "fails for the change's own reason" in reason:
        return "suite does not load on the buggy state"  # tasks.validate.keep_own_failures
    if re.search(r"skipped (in both states|with bug_patch applied)", reason) and "already pass" not in reason:
        return "tests skipped"  # every test skipped; with others passing, the skips are rarely the cause
    if "fail in the gold state" in reason or "gold patch breaks" in reason:
        return "tests fail with the fix"
    if category in _FUNCTIONAL_CAUSES:
        return _FUNCTIONAL_CAUSES[category]
    if category == "build_error":
        return "sandbox failed"
    if category == "no_f2p":
        return "no FAIL_TO_PASS"
    return f"{layer}/{category}"


def settled(row: dict) -> bool:
    """Whether a later version leaves the row's unit alone: it was kept, or lost for a reason of
    its own. An error or a transient cause (`TRANSIENT_CAUSES`) is tried again."""
    return row["outcome"] == KEPT or (row["outcome"] == REJECTED and failure_cause(row) not in TRANSIENT_CAUSES)


@dataclass
class FarmResult:
    version: int
    finished: bool
    rows: list[dict]  # this version's rows (attempts and duplicates)
    planned: int
    skipped_repos: dict[str, str] = field(default_factory=dict)  # repository -> why it gave no units
    released: int = 0

    def per_repo(self) -> dict[str, dict]:
        """repository -> units tried, kept (pr/commit), rejections by reason (layer/category) and
        losses by cause (`failure_cause`), duplicates, errors, validations and seconds, for this version."""
        table: dict[str, dict] = {}
        for row in self.rows:
            entry = table.setdefault(
                row["repo"],
                {"tried": 0, "kept": 0, "kept_pr": 0, "kept_commit": 0, "rejected": 0, "duplicates": 0, "errors": 0}
                | {"validations": 0, "seconds": 0.0, "reasons": Counter(), "causes": Counter()},
            )
            if row["outcome"] == DUPLICATE:
                entry["duplicates"] += 1
                entry["kept"] -= 1
                entry[f"kept_{row['kind']}"] -= 1
                continue
            entry["tried"] += 1
            entry["validations"] += row.get("validations", 0)
            entry["seconds"] += row.get("seconds", 0.0)
            if row["outcome"] == KEPT:
                entry["kept"] += 1
                entry[f"kept_{row['kind']}"] += 1
            elif row["outcome"] == ERROR:
                entry["errors"] += 1
                entry["reasons"][f"error/{row['category']}"] += 1
            else:
                entry["rejected"] += 1
                entry["reasons"][f"{row['layer']}/{row['category']}"] += 1
            if row["outcome"] != KEPT:
                entry["causes"][failure_cause(row)] += 1
        return table


class Farm:
    def __init__(
        self,
        config: Config,
        repos: list[Path],
        folder: DatasetFolder,
        settings: FarmSettings,
        *,
        log=print,
        on_event: Callable[[dict], None] = lambda _event: None,
    ):
        self.config = config.model_copy(update={"seed": settings.seed})
        self.repos, self.folder, self.settings = repos, folder, settings
        self.log, self.on_event = log, on_event

    def run(self, should_stop: Callable[[], bool] = lambda: False) -> FarmResult:
        self.folder.check_usable()
        strategy = farm_strategy(self.settings)
        units_by_repo, skipped, repos = self._units()
        by_id = {u.id: u for units in units_by_repo.values() for u in units}
        version = self._version(units_by_repo, strategy, repos)
        if not version:
            self.log(f"farm: no new unit since version {len(self.folder.versions())}: nothing to do")
            return FarmResult(len(self.folder.versions()), True, [], 0, skipped)
        number = int(version["version"])
        strategy = Strategy.from_dict(version["strategy"])  # a resumed version keeps the strategy it began with
        rows = self.folder.rows()
        ended = {r["unit"] for r in rows if r.get("version") == number and r["outcome"] != DUPLICATE}
        todo = [u for u in version["plan"] if u not in ended]
        missing = [u for u in todo if u not in by_id]
        for unit in missing:  # history rewritten since the plan was made
            sha, kind = unit.rsplit("@", 1)[1].split(":")
            row = {"unit": unit, "repo": unit.rsplit("@", 1)[0], "sha": sha, "kind": kind, "outcome": ERROR}
            row.update(layer="", category="gone", reason="no longer in the repository's history", task=None)
            self._append(row, number)
        todo = [u for u in todo if u in by_id]
        self.on_event({"event": "start", "version": number, "planned": len(version["plan"]), "todo": len(todo)})
        jobs = [self._job(by_id[u], strategy) for u in todo]
        stop = Stopper(
            self.log, "units", "the units in flight are tried again by the next run", prefix="farm: ", also=should_stop
        )
        restore = stop.install()
        try:
            for row in run_units(jobs, self.settings.workers, self.settings.scheduler, stop, log=self.log):
                self._append(row, number)
                self.on_event({"event": "unit", "row": row})
        finally:
            restore()
        rows = [r for r in self.folder.rows() if r.get("version") == number]
        finished = {r["unit"] for r in rows if r["outcome"] != DUPLICATE} >= set(version["plan"])
        result = FarmResult(number, False, rows, len(version["plan"]), skipped)
        if not finished:
            return result
        result.released = self._release(version)
        result.finished = True
        result.rows = [r for r in self.folder.rows() if r.get("version") == number]
        return result

    def _append(self, row: dict, version: int) -> None:
        row["version"] = version
        self.folder.append_row(row)

    def _job(self, unit: Unit, strategy: Strategy) -> dict:
        return {
            "config": self.config.model_dump(mode="json"),
            "strategy": strategy.to_dict(),
            "candidate": unit.candidate.to_dict(),
            "unit": unit.id,
            "kind": unit.kind,
        }

    def _units(self) -> tuple[dict[str, list[Unit]], dict[str, str], dict[str, dict]]:
        from sandbox import repo_name

        units_by_repo, skipped, repos = {}, {}, {}
        for path in self.repos:
            name = repo_name(path)
            try:
                mined = self._mined(name, path)
                units_by_repo[name] = repo_units(self.config, path, self.settings, mined)
            except MiningError as exc:
                skipped[name] = str(exc)
                self.log(f"farm: {name}: {exc}")
                continue
            self.folder.write_mined(mined_key(self.config, path, self.settings), mined.to_dict())
            repos[name] = {"path": str(path), "head": mined.head, "language": mined.language}
        if not units_by_repo:
            raise FarmError("no repository can be farmed: " + "; ".join(skipped.values()))
        return units_by_repo, skipped, repos

    def _mined(self, name: str, path: Path) -> MinedHistory:
        """The repository's mined history: the saved one when HEAD has not moved, else mined
        again with the saved one's classifications (and saved)."""
        import git

        saved = self.folder.read_mined(mined_key(self.config, path, self.settings))
        try:
            earlier = MinedHistory.from_dict(saved) if saved else None
        except (KeyError, TypeError, ValueError):  # written by hand or another format: mined again
            earlier = None
        head = git.Repo(path).head.commit.hexsha
        if earlier is not None and earlier.head == head:
            self.log(f"farm: {name}: history at {head[:10]} mined before: not mined again")
            return earlier
        return mine_history(self.config, path, self.settings, earlier)

    def _version(self, units_by_repo: dict[str, list[Unit]], strategy: Strategy, repos: dict) -> dict:
        """The open version to continue, or a new one with its plan written down ({} when an
        earlier version exists and no unit is new)."""
        versions = self.folder.versions()
        key = self.settings.plan_key()
        if versions and not versions[-1].get("finished_at"):
            open_version = versions[-1]
            if open_version["settings"] != key or sorted(open_version["repos"]) != sorted(repos):
                raise FarmError(
                    f"{self.folder.path} has an unfinished version {open_version['version']} started with other "
                    f"repositories or options ({_options(open_version['settings'])}): rerun that command to finish it"
                )
            return open_version
        done = {r["unit"] for r in self.folder.rows() if settled(r)}
        planned = plan(units_by_repo, strategy, done, self.settings.limit)
        if not planned and versions:
            return {}  # nothing new since the last version: no empty version
        version = {
            "version": len(versions) + 1,
            "started_at": _now(),
            "finished_at": None,
            "settings": key,
            "strategy": strategy.to_dict(),
            "repos": repos,
            "plan": [u.id for u in planned],
        }
        self.folder.write_versions([*versions, version])
        return version

    def _release(self, version: dict) -> int:
        """Write the version's tasks (kept, not duplicates, by unit id) once; mark it finished; card."""
        number = int(version["version"])
        rows = self.folder.rows()
        seen: dict[str, str] = {}
        for v in self.folder.versions():
            if int(v["version"]) < number:
                for task in self.folder.released(int(v["version"])):
                    for key in fingerprints(task):
                        seen.setdefault(key, task["instance_id"])
        latest = {r["unit"]: r for r in rows if r.get("version") == number}
        kept = sorted((r for r in latest.values() if r["outcome"] in (KEPT, DUPLICATE)), key=lambda r: r["unit"])
        tasks = []
        for row in kept:
            task = row["task"]
            same = next((seen[k] for k in fingerprints(task) if k in seen), None)
            if same is not None:
                if row["outcome"] != DUPLICATE:
                    dup = {k: row[k] for k in ("unit", "repo", "sha", "kind")}
                    dup.update(outcome=DUPLICATE, layer="dedup", category="duplicate", task=task)
                    dup["reason"] = f"same gold patch or FAIL_TO_PASS set as {same}"
                    self._append(dup, number)
                continue
            for key in fingerprints(task):
                seen.setdefault(key, task["instance_id"])
            tasks.append(task)
        if not self.folder.release_path(number).exists():
            self.folder.write_release(number, tasks)
        versions = self.folder.versions()
        versions[-1]["finished_at"] = _now()
        versions[-1]["released"] = len(self.folder.released(number))
        self.folder.write_versions(versions)
        card = dataset_card(self.folder)
        self.folder.write_card(card, card_markdown(card))
        return versions[-1]["released"]


def _options(settings: dict) -> str:
    return ", ".join(f"{k}={v}" for k, v in sorted(settings.items()) if v not in (None, 0, "both"))


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


# ------------------------------------------------------------------ the card


def dataset_card(folder: DatasetFolder) -> dict:
    """Counts per repository, month, language, kind, difficulty; the decontamination window; versions."""
    versions = folder.versions()
    language = {name: r["language"] for v in versions for name, r in v["repos"].items()}
    tasks = [(int(v["version"]), t) for v in versions for t in folder.released(int(v["version"]))]
    kinds = {r["task"]["instance_id"]: r["kind"] for r in folder.rows() if r.get("task")}
    histogram = Counter()
    for _, t in tasks:
        value = float(t.get("difficulty") or 0.0)
        low = min(int(value * 5), 4) / 5
        histogram[f"{low:.1f}-{low + 0.2:.1f}"] += 1
    created = sorted(t.get("created_at", "")[:10] for _, t in tasks if t.get("created_at"))
    return {
        "tasks": len(tasks),
        "per_repository": dict(sorted(Counter(t["repo"] for _, t in tasks).items())),
        "per_month": dict(sorted(Counter((t.get("created_at") or "unknown")[:7] for _, t in tasks).items())),
        "per_language": dict(sorted(Counter(language.get(t["repo"], "unknown") for _, t in tasks).items())),
        "per_unit_kind": dict(sorted(Counter(kinds.get(t["instance_id"], COMMIT) for _, t in tasks).items())),
        "per_difficulty_level": dict(sorted(Counter(t.get("difficulty_level") or "unrated" for _, t in tasks).items())),
        "difficulty_histogram": dict(sorted(histogram.items())),
        "decontamination_window": {
            "since": _window(versions, "since", min),
            "until": _window(versions, "until", max),
            "oldest_task": created[0] if created else None,
            "newest_task": created[-1] if created else None,
        },
        "versions": [
            {
                "version": int(v["version"]),
                "started_at": v["started_at"],
                "finished_at": v.get("finished_at"),
                "tasks": sum(1 for n, _ in tasks if n == int(v["version"])),
                "units_planned": len(v["plan"]),
                "strategy": {"id": v["strategy"]["id"], "type": v["strategy"]["strategy_type"]},
                "since": v["settings"].get("since"),
                "until": v["settings"].get("until"),
            }
            for v in versions
        ],
    }


def _window(versions: list[dict], key: str, pick) -> str | None:
    values = [v["settings"].get(key) for v in versions]
    if any(value is None for value in values):
        return None  # some version took the whole history on that side
    return pick(values) if values else None


def card_markdown(card: dict) -> str:
    def table(title: str, counts: dict) -> list[str]:
        lines = [f"## {title}", "", "| | tasks |", "|---|---|"]
        return lines + [f"| {k} | {v} |" for k, v in counts.items()] + [""]

    window = card["decontamination_window"]
    lines = [
        "# Dataset card",
        "",
        f"{card['tasks']} tasks in {len(card['versions'])} versions.",
        "",
        f"Decontamination window: commits since {window['since'] or 'the start of history'} "
        f"until {window['until'] or 'the newest commit'} (tasks dated {window['oldest_task']} to "
        f"{window['newest_task']}).",
        "",
        "## Versions",
        "",
        "| version | started | finished | units planned | tasks | strategy |",
        "|---|---|---|---|---|---|",
    ]
    for v in card["versions"]:
        strategy = (v.get("strategy") or {}).get("type", "")
        lines.append(
            f"| {v['version']} | {v['started_at']} | {v['finished_at'] or 'open'} | {v['units_planned']} | "
            f"{v['tasks']} | {strategy} |"
        )
    lines.append("")
    lines += table("Per repository", card["per_repository"])
    lines += table("Per month", card["per_month"])
    lines += table("Per language", card["per_language"])
    lines += table("Per unit kind", card["per_unit_kind"])
    lines += table("Per difficulty level", card["per_difficulty_level"])
    lines += table("Difficulty histogram", card["difficulty_histogram"])
    return "\n".join(lines)


def dataset_tasks(path: Path) -> list[Task]:
    """The released tasks of a farmed dataset folder (what `export` and `evaluate` read)."""
    folder = DatasetFolder(path)
    if not folder.is_dataset():
        raise DatasetFolderError(f"{path} is not a farmed dataset folder")
    return folder.tasks()
