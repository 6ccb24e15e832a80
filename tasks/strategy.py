"""The generation strategy: the genome that evolution varies and fitness evaluates.

A strategy is a strategy type, a prompt template, three sampling parameters and twelve genes
that reach how tasks are made (`GENES`):

- selection (commit-based types): weights over cheap features of a candidate commit
  (`tasks.selection.FEATURES`) and a band of predicted difficulty; they order the commits a
  strategy spends validations on;
- synthesis (SYNTHETIC): a weight per mutation operator, a band of cyclomatic complexity for
  the target function, and how many mutations a task carries (1 to 3);
- evidence: how much of the failing tests' evidence and of the code the writer is given, and
  the statement's length in words.

Every gene has a range (values are clamped into it), a neutral default (a seed's value: the
behaviour before the gene existed), mutates and crosses like the sampling parameters, and is
part of the genome hash when it differs from its default (so a seed's id is what it was
before genes existed). Its id is a content hash, so two identical genomes share an id (and an
evaluation-cache entry).
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
    SYNTHETIC = "SYNTHETIC"


# Valid ranges of the sampling parameters; Gaussian mutation clamps into these.
PARAM_RANGES: dict[str, tuple[float, float]] = {
    "temperature": (0.0, 2.0),
    "top_p": (0.05, 1.0),
    "max_tokens": (64, 4096),
}


@dataclass(frozen=True)
class Gene:
    low: float
    high: float
    default: float
    group: str  # selection | synthesis | evidence
    help: str
    integer: bool = False


# The genes beside the prompt and the sampling parameters. A band is one gene with two ends
# (`*_low`, `*_high`, put in order when a mutation crosses them); the operator mix is one
# gene with a weight per operator. Twelve genes, seventeen numbers.
GENES: dict[str, Gene] = {
    "sel_size": Gene(
        -1.0, 1.0, 0.0, "selection", "weight on the size of the source change (lines, files, hunks, functions)"
    ),
    "sel_tests": Gene(-1.0, 1.0, 0.0, "selection", "weight on the test change: new test functions and asserts added"),
    "sel_link": Gene(
        -1.0, 1.0, 0.0, "selection", "weight on a changed test calling a function the source diff changes"
    ),
    "sel_cue": Gene(-1.0, 1.0, 0.0, "selection", "weight on message cues (+1 fix words, -1 docs/typing/style words)"),
    "sel_age": Gene(-1.0, 1.0, 0.0, "selection", "weight on recency (1 the newest candidate, 0 the oldest)"),
    "band_low": Gene(0.0, 1.0, 0.0, "selection", "predicted difficulty band, low end"),
    "band_high": Gene(0.0, 1.0, 1.0, "selection", "predicted difficulty band, high end"),
    "op_flip_comparison": Gene(0.0, 1.0, 1.0, "synthesis", "weight of the flip_comparison operator"),
    "op_off_by_one": Gene(0.0, 1.0, 1.0, "synthesis", "weight of the off_by_one operator"),
    "op_drop_guard": Gene(0.0, 1.0, 1.0, "synthesis", "weight of the drop_guard operator"),
    "op_swap_arguments": Gene(0.0, 1.0, 1.0, "synthesis", "weight of the swap_arguments operator"),
    "complexity_low": Gene(1.0, 30.0, 1.0, "synthesis", "target function's cyclomatic complexity, low end"),
    "complexity_high": Gene(1.0, 30.0, 30.0, "synthesis", "target function's cyclomatic complexity, high end"),
    "mutations": Gene(1.0, 3.0, 1.0, "synthesis", "mutations per synthetic task", integer=True),
    "evidence_tests": Gene(
        0.0, 1.0, 1.0, "evidence", "share of the failing tests (with their evidence) the writer sees"
    ),
    "evidence_code": Gene(
        0.0,
        1.0,
        1.0,
        "evidence",
        "code the writer sees: <1/3 names only, <2/3 signatures and test source, else also the fix",
    ),
    "statement_words": Gene(40.0, 400.0, 400.0, "evidence", "statement length in words (400: no limit)", integer=True),
}
BANDS = (("band_low", "band_high"), ("complexity_low", "complexity_high"))
OPERATOR_GENES = ("op_flip_comparison", "op_off_by_one", "op_drop_guard", "op_swap_arguments")
GENE_DEFAULTS: dict[str, float] = {name: g.default for name, g in GENES.items()}
# The twelve genes as shown (a band or the operator mix is one gene).
GENE_GROUPS: dict[str, tuple[str, ...]] = {
    "selection": ("sel_size", "sel_tests", "sel_link", "sel_cue", "sel_age", "difficulty_band"),
    "synthesis": ("operator_weights", "complexity_band", "mutations"),
    "evidence": ("evidence_tests", "evidence_code", "statement_words"),
}


def relevant_genes(strategy_type: StrategyType | str) -> tuple[str, ...]:
    """The genes that act on a strategy of this type (operators vary only these): selection
    and evidence for commit-based types, synthesis and evidence for SYNTHETIC."""
    groups = (
        ("synthesis", "evidence")
        if StrategyType(strategy_type) == StrategyType.SYNTHETIC
        else ("selection", "evidence")
    )
    return tuple(name for name, g in GENES.items() if g.group in groups)


def normalise_genes(genes: dict | None) -> dict[str, float]:
    """Every gene, clamped into its range and rounded; band ends in order; unknown names dropped."""
    out = dict(GENE_DEFAULTS)
    for name, value in (genes or {}).items():
        if name in GENES and value is not None:
            g = GENES[name]
            v = min(max(float(value), g.low), g.high)
            out[name] = float(int(round(v))) if g.integer else round(v, 4)
    for low, high in BANDS:
        if out[low] > out[high]:
            out[low], out[high] = out[high], out[low]
    return out


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


SEED_PROMPTS[StrategyType.SYNTHETIC] = [
    "Write a bug report for {repo} describing the symptom the failing tests show.",
    "Write a bug report for {repo}. Describe the symptom the failing tests show, state the "
    "expected and actual behaviour and name the affected function. Never reveal the fix.",
]


def _clamp(name: str, value: float) -> float:
    low, high = PARAM_RANGES[name]
    return min(max(value, low), high)


@dataclass(frozen=True)
class Strategy:
    strategy_type: StrategyType
    prompt: str
    temperature: float = 0.7
    top_p: float = 0.95
    # a statement states every failing test and case: 1024 tokens (about 740 words) cut attrs'
    # 17 tests of one new attribute, whose snippets alone take 620 words
    max_tokens: int = 2048
    parents: tuple[str, ...] = ()
    operator: str = "seed"
    generation: int = 0
    genes: dict = field(default_factory=dict, hash=False)
    id: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "strategy_type", StrategyType(self.strategy_type))
        object.__setattr__(self, "temperature", round(_clamp("temperature", self.temperature), 4))
        object.__setattr__(self, "top_p", round(_clamp("top_p", self.top_p), 4))
        object.__setattr__(self, "max_tokens", int(round(_clamp("max_tokens", self.max_tokens))))
        object.__setattr__(self, "parents", tuple(self.parents))
        object.__setattr__(self, "genes", normalise_genes(self.genes))
        if not self.id:
            object.__setattr__(self, "id", self.genome_hash()[:12])

    def genome(self) -> dict:
        """What the strategy *is*: lineage and birth generation excluded. Genes at their
        default are left out, so a genome without changed genes hashes as it did before genes."""
        genome = {
            "strategy_type": self.strategy_type.value,
            "prompt": self.prompt,
            "temperature": self.temperature,
            "top_p": self.top_p,
            "max_tokens": self.max_tokens,
        }
        changed = {k: v for k, v in sorted(self.genes.items()) if v != GENE_DEFAULTS[k]}
        if changed:
            genome["genes"] = changed
        return genome

    def gene(self, name: str) -> float:
        return self.genes[name]

    def shown_genes(self) -> dict:
        """The twelve genes as `sebgen hof` and the report show them (bands as [low, high],
        the operator mix as a mapping)."""
        g = self.genes
        return {
            **{k: g[k] for k in ("sel_size", "sel_tests", "sel_link", "sel_cue", "sel_age")},
            "difficulty_band": [g["band_low"], g["band_high"]],
            "operator_weights": {k.removeprefix("op_"): g[k] for k in OPERATOR_GENES},
            "complexity_band": [g["complexity_low"], g["complexity_high"]],
            "mutations": int(g["mutations"]),
            "evidence_tests": g["evidence_tests"],
            "evidence_code": g["evidence_code"],
            "statement_words": int(g["statement_words"]),
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
        data["genes"] = dict(self.genes)
        return data

    @classmethod
    def from_dict(cls, data: dict) -> Strategy:
        """From `to_dict`; a record written before genes existed gets the defaults."""
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
                max_tokens=base.get("max_tokens", 2048),
                generation=generation,
            )
        )
    return out
