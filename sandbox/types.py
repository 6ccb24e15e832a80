"""The shared value types and the backend protocol."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol, runtime_checkable

OUTCOMES = ("passed", "failed", "error", "skipped")


@dataclass(frozen=True)
class Limits:
    timeout_s: float = 300
    memory_mb: int = 2048
    # a run killed for memory runs once more with this much (jwcrypto's suite peaks at 2.4 GB)
    memory_max_mb: int = 6144
    cpus: float = 1.0
    pids: int = 512
    user: str = "sebgen"
    work_mb: int = 1024  # the tree's tmpfs in a container (counts against memory_mb)
    tmp_mb: int = 512  # /tmp's tmpfs in a container
    # the engine's cgroup parent for validation containers: "auto" lets the Docker backend choose one
    # that gives each container one host process's CPU share (sandbox.containers.fair_cgroup_parent),
    # "" keeps the engine's own (e.g. /docker, where on a busy machine with the cgroupfs driver every
    # container together gets one process's share), any other value is used as given (`/sebgen` with
    # the cgroupfs driver, `sebgen.slice` with systemd's)
    cgroup_parent: str = "auto"


@dataclass
class TestRun:
    """One pytest run of one tree state."""

    __test__ = False  # not a pytest test class

    outcomes: dict[str, str]  # pytest nodeid -> "passed"|"failed"|"error"|"skipped"
    exit_code: int
    timed_out: bool
    duration_s: float
    log_tail: str
    image: str
    broken: bool = False  # report and exit code disagree: outcomes are not trustworthy
    note: str = ""  # one sentence on what went wrong (timeout, out of memory, missing report)
    out_of_memory: bool = False  # the tests were killed for memory (the note says at which limit)
    collect_errors: list[str] = field(default_factory=list)  # nodeid prefixes that failed to collect
    reverted: list[str] = field(default_factory=list)  # protected files put back before verification
    removed: list[str] = field(default_factory=list)  # auto-loaded / protected files the patch added
    # nodeid -> evidence of its failure (sandbox.report.clean_failures); information, never a verdict
    failures: dict[str, dict] = field(default_factory=dict)
    # seconds by step of the run ("pytest", "extract", "remove", ...): where a run's time went, for
    # benches and logs; never part of a verdict
    phases: dict[str, float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        # a backend hands over `outcomes=parsed.outcomes`: the report's evidence rides on it
        if not self.failures:
            self.failures = dict(getattr(self.outcomes, "failures", None) or {})
        if type(self.outcomes) is not dict:
            self.outcomes = dict(self.outcomes)


@runtime_checkable
class Backend(Protocol):
    """What every backend offers. Environments are built from the recipe the backend was given
    (`recipe_for`); `prepare` builds one ahead of a run, so a wrapper can repair a failed build."""

    name: str
    limits: Limits
    builds: list  # environment ids this backend built (not found ready)

    def prepare(self, repo: Path, commit: str) -> str: ...

    def python_version(self) -> str: ...

    def run_tests(
        self,
        repo: Path,
        commit: str,
        patches: Sequence[str] = (),
        test_files: Sequence[str] | None = None,
    ) -> TestRun: ...

    def run_tree(
        self, repo: Path, commit: str, tree: Path, test_files: Sequence[str] | None = None, untrusted: bool = False
    ) -> TestRun: ...

    def environment_id(self, repo: Path, commit: str) -> str: ...

    def close(self) -> None: ...
