"""Building the runtime parts a config describes: LLM client, sandbox, archive, candidates.

Workers (a process pool or Dask) rebuild the same parts from the same plain config data, so
only data crosses process and machine boundaries.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from evo.config import Config
from evo.runfolder import RunFolder
from tasks import Candidate, MiningError, mine

if TYPE_CHECKING:  # loaded where they are built: `sebgen mine` and `setup` need no LLM client (litellm)
    from fitness import EvalSettings
    from llm import LLMClient
    from tasks import Generator

os.environ.setdefault("HF_HUB_OFFLINE", "1")


def resolve_repos(config: Config) -> list[Path]:
    if config.repos:
        return [Path(r).expanduser().resolve() for r in config.repos]
    from corpus import ensure_corpus

    return ensure_corpus()


def mine_repo(config: Config, repo: Path | str, since: str | None = None, until: str | None = None, known=None):
    """`mine` with the config's mining filters (the one place they are passed on); `since` and
    `until` given here win over the config's window; `known`: `mine`'s earlier candidates."""
    settings = config.mining.model_dump()
    settings.update({k: v for k, v in (("since", since), ("until", until)) if v})
    return mine(repo, **settings, known=known)


def mine_all(config: Config, repos: list[Path]) -> list[Candidate]:
    candidates: list[Candidate] = []
    for repo in repos:
        candidates += mine_repo(config, repo).candidates
    if not candidates:
        raise MiningError("no candidate commits survive the mining filters in " + ", ".join(str(r) for r in repos))
    return candidates


def make_llm(config: Config, run_dir: Path | None = None) -> LLMClient:
    """A client; inside a run folder it replays answers the run already paid for."""
    from llm import LLMClient

    c = config.llm
    return LLMClient(
        c.model,
        timeout_s=c.timeout_s,
        retries=c.retries,
        backoff_s=c.backoff_s,
        mock_response=c.mock_response,
        local=c.local.model_dump(),
        replay_dir=RunFolder(run_dir).llm_replay_dir if run_dir is not None else None,
    )


def make_sandbox(config: Config, log=print):
    from environment import make_sandbox as make_environment_backend
    from sandbox import Limits

    s = config.sandbox
    limits = Limits(
        timeout_s=s.timeout_s,
        memory_mb=s.memory_mb,
        memory_max_mb=s.memory_max_mb,
        cpus=s.cpus,
        pids=s.pids,
        cgroup_parent=s.cgroup_parent,
    )
    install = {name: recipe.model_dump(exclude_none=True) for name, recipe in s.install.items()}
    return make_environment_backend(
        s.backend,
        limits=limits,
        base_image=s.base_image,
        offline_base_image=s.offline_base_image,
        install=install,
        log=log,
        setup_attempts=s.setup_attempts,
        warm_spares_total=s.warm_spares_total,
        warm_spares=s.warm_spares,
        advisor=recipe_advisor(config),
    )


def recipe_advisor(config: Config):
    """Asks the configured model for an install recipe from a log; None with the offline model
    (its answers are canned, so the repair loop keeps to its rules)."""
    if config.llm.model.startswith("offline/") or config.llm.mock_response is not None:
        return None
    client = make_llm(config)
    return lambda prompt: client.complete_json(prompt, temperature=0.0, max_tokens=400)[0]


def open_archive(config: Config, run_dir: Path | None, read_only: bool = False):
    if run_dir is None:
        return None
    from archive import Archive

    a = config.archive
    return Archive.open(
        RunFolder(run_dir).archive_dir,
        model=a.model,
        k=a.k,
        duplicate_threshold=a.duplicate_threshold,
        approximate_above=a.approximate_above,
        read_only=read_only,
    )


def eval_settings(config: Config) -> EvalSettings:
    from fitness import EvalSettings

    f = config.fitness
    return EvalSettings(
        tasks_per_strategy=f.tasks_per_strategy,
        oversample=f.oversample,
        seed=config.seed,
        difficulty_bins=f.difficulty_bins,
        skill_norm=f.skill_norm,
        weights=dict(f.weights),
    )


@dataclass
class Workbench:
    config: Config
    llm: LLMClient
    backend: object
    archive: object | None
    candidates: list[Candidate]
    generator: Generator

    @classmethod
    def build(
        cls, config: Config, run_dir: Path | None, *, log=print, archive=None, candidates: list[Candidate] | None = None
    ) -> Workbench:
        from tasks import Generator, Validator

        llm = make_llm(config, run_dir)
        backend = make_sandbox(config, log=log)
        f = config.fitness
        validator = Validator(
            backend=backend,
            llm=llm,
            archive=archive,
            reruns=config.sandbox.reruns,
            judge_threshold=f.judge_threshold,
            semantic_threshold=f.semantic_threshold,
            leakage_threshold=f.leakage_threshold,
            duplicate_threshold=config.archive.duplicate_threshold,
            reuse_functional=f.reuse_functional_results,
        )
        if candidates is None:
            candidates = mine_all(config, resolve_repos(config))
        generator = Generator(
            llm=llm,
            validator=validator,
            archive=archive,
            layers=tuple(f.layers),
            check_reproductions=f.check_reproductions,
        )
        return cls(config, llm, backend, archive, candidates, generator)

    def use_archive(self, archive) -> None:
        self.archive = archive
        self.generator.archive = archive
        self.generator.validator.archive = archive

    def close(self) -> None:
        close = getattr(self.backend, "close", None)
        if close:
            close()
