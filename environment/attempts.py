"""What a snapshot's environment setup tried: its attempts, its record, and the error when every
attempt failed. Shared by the Python setup (`setup`) and the JavaScript one (`js_setup`), which is
why it lives apart from both."""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field

from sandbox import InstallRecipe, SandboxError

FIRST_FAILURE_CHARS = 3000


class SetupError(SandboxError):
    """The environment could not be set up after every attempt (one sentence naming the log)."""


@dataclass
class Attempt:
    stage: str  # "build", "collection", "skip" (tests skipped for a missing extra) or "tests" (an API gone)
    ok: bool
    fix: str = ""  # the change made after this attempt
    rule: str = ""
    log: str = ""
    seconds: float = 0.0
    note: str = ""  # why a proposed repair was not applied


@dataclass
class SetupRecord:
    repo: str
    commit: str
    environment: str = ""
    attempts: list[Attempt] = field(default_factory=list)
    first_failure: str = ""  # the tail of the first failed attempt's log: what really went wrong

    def failed(self, attempt: Attempt, log: str) -> Attempt:
        """Record a failed attempt; the first failure's log tail is kept."""
        self.attempts.append(attempt)
        if not self.first_failure:
            self.first_failure = log[-FIRST_FAILURE_CHARS:]
        return attempt

    def to_dict(self, recipe: InstallRecipe) -> dict:
        return {
            "environment": self.environment,
            "recipe": recipe.to_dict(),
            "attempts": [asdict(a) for a in self.attempts],
            "fixes": [a.fix for a in self.attempts if a.fix],
            "first_failure": self.first_failure,
        }


def log_path_of(message: str) -> str:
    """The build-log path a BuildError message names ('' when none)."""
    m = re.search(r"\blog (/\S+?\.log)\b", message)
    return m.group(1) if m else ""
