"""The generation strategy: the genome that evolution varies and fitness evaluates.

A strategy is a prompt template, a strategy type and three sampling parameters. Its id is a
content hash, so two identical genomes share an id (and an evaluation-cache entry).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field, replace
from enum import Enum


class StrategyType(str, Enum):
    BUG_FIX = "BUG_FIX"
    FEATURE_ADD = "FEATURE_ADD"
    REFACTOR = "REFACTOR"
    TEST_DRIVEN = "TEST_DRIVEN"
    HYBRID = "HYBRID"


# Valid ranges of the sampling parameters; Gaussian mutation clamps into these.
PARAM_RANGES: dict[str, tuple[float, float]] = {
    "temperature": (0.0, 2.0),
    "top_p": (0.05, 1.0),
    "max_tokens": (64, 4096),
}

# Seed prompts. Deliberately uneven: some omit rules a good statement needs, so the first
# generations have identifiable failure patterns for prompt mutation to fix.
SEED_PROMPTS: dict[StrategyType, list[str]] = {
    StrategyType.BUG_FIX: [
        "You write a GitHub issue for a bug in {repo}. Describe the wrong behaviour a user "
        "would observe when calling the affected code.",
        "Write a bug report for {repo}. Include reproduction steps and state the expected "
        "and actual behaviour. Never reveal the fix.",
    ],
    StrategyType.FEATURE_ADD: [
        "Write a feature request for {repo} asking for the capability the commit adds.",
        "Write a feature request for {repo}. Name the function the user needs and its "
        "signature, and give expected behaviour with examples. Do not reveal the solution.",
    ],
    StrategyType.REFACTOR: [
        "Write an issue asking the maintainers of {repo} to restructure the code as the commit does.",
        "Write an issue for {repo} asking for the new structure or API the tests expect. Name "
        "the affected function and its signature. Never reveal the fix.",
    ],
    StrategyType.TEST_DRIVEN: [
        "Write a specification for {repo}: list the failing tests and the behaviour they require.",
        "Write a specification for {repo}. List the failing tests by name and state the "
        "expected and actual behaviour each one checks. Never reveal the fix.",
    ],
    StrategyType.HYBRID: [
        "Write an issue for {repo} that combines a bug report and the request for the fix the tests describe.",
        "Write an issue for {repo} that combines a bug report with a feature request. Include "
        "reproduction steps and name the affected functions. Never reveal the fix.",
    ],
}


def _clamp(name: str, value: float) -> float:
    low, high = PARAM_RANGES[name]
    return min(max(value, low), high)


@dataclass(frozen=True)
class Strategy:
    strategy_type: StrategyType
    prompt: str
    temperature: float = 0.7
    top_p: float = 0.95
    max_tokens: int = 1024
    parents: tuple[str, ...] = ()
    operator: str = "seed"
    generation: int = 0
    id: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "strategy_type", StrategyType(self.strategy_type))
        object.__setattr__(self, "temperature", round(_clamp("temperature", self.temperature), 4))
        object.__setattr__(self, "top_p", round(_clamp("top_p", self.top_p), 4))
        object.__setattr__(self, "max_tokens", int(round(_clamp("max_tokens", self.max_tokens))))
        object.__setattr__(self, "parents", tuple(self.parents))
        if not self.id:
            object.__setattr__(self, "id", self.genome_hash()[:12])

    def genome(self) -> dict:
        """What the strategy *is*: lineage and birth generation excluded."""
        return {
            "strategy_type": self.strategy_type.value,
            "prompt": self.prompt,
            "temperature": self.temperature,
            "top_p": self.top_p,
            "max_tokens": self.max_tokens,
        }

    def genome_hash(self) -> str:
        blob = json.dumps(self.genome(), sort_keys=True).encode()
        return hashlib.sha256(blob).hexdigest()

    @property
    def params(self) -> dict:
        return {"temperature": self.temperature, "top_p": self.top_p, "max_tokens": self.max_tokens}

    def child(self, *, operator: str, parents: tuple[str, ...], generation: int, **changes) -> Strategy:
        return replace(self, operator=operator, parents=parents, generation=generation, id="", **changes)

    def to_dict(self) -> dict:
        data = asdict(self)
        data["strategy_type"] = self.strategy_type.value
        data["parents"] = list(self.parents)
        return data

    @classmethod
    def from_dict(cls, data: dict) -> Strategy:
        fields = {k: data[k] for k in cls.__dataclass_fields__ if k in data}
        return cls(**fields)


def seed_strategies(
    types: list[StrategyType], size: int, base: dict | None = None, generation: int = 0
) -> list[Strategy]:
    """The initial population: cycle through types and their seed prompts, deterministically."""
    base = base or {}
    pool = [(t, p) for t in types for p in SEED_PROMPTS[t]]
    by_round = sorted(range(len(pool)), key=lambda i: (SEED_PROMPTS[pool[i][0]].index(pool[i][1]), i))
    out: list[Strategy] = []
    for n in range(size):
        stype, prompt = pool[by_round[n % len(pool)]]
        temperature = base.get("temperature", 0.7) + 0.1 * (n // len(pool))
        out.append(
            Strategy(
                stype,
                prompt,
                temperature=temperature,
                top_p=base.get("top_p", 0.95),
                max_tokens=base.get("max_tokens", 1024),
                generation=generation,
            )
        )
    return out
