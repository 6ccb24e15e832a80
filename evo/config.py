"""The run configuration: YAML validated in one place.

Every section is a pydantic model that forbids unknown keys, so a typo is an error naming the
key, not a silently ignored setting. `--set a.b=v` overrides are applied to the raw data before
validation, so they are checked exactly like the file.
"""

from __future__ import annotations

import difflib
import re
from datetime import date
from pathlib import Path
from typing import Any, Literal, Optional, get_args, get_origin

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from fitness import DEFAULT_WEIGHTS
from records import LAYERS, UserError
from tasks import StrategyType


class ConfigError(UserError):
    """A configuration a user wrote that cannot be used; the message is one sentence."""


class Section(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)


class MiningConfig(Section):
    since: Optional[str] = None
    until: Optional[str] = None
    max_source_files: int = Field(15, ge=1)
    min_message_chars: int = Field(25, ge=0)
    max_commits: int = Field(2000, ge=1)


class LocalModelConfig(Section):
    """How ``local/...`` models (GGUF files run in-process by llama.cpp) run."""

    models: dict[str, str] = Field(default_factory=dict)  # name -> GGUF path, for model: local/NAME
    threads: int = Field(0, ge=0)  # 0: every core
    context: int = Field(8192, ge=512)  # tokens of prompt + answer
    seed: int = 0
    strip_context_block: bool = True


class LLMConfig(Section):
    model: str = "offline/sebgen"
    timeout_s: float = Field(60.0, gt=0)
    retries: int = Field(2, ge=0)
    backoff_s: float = Field(1.0, ge=0)
    mock_response: Optional[str] = None
    local: LocalModelConfig = Field(default_factory=LocalModelConfig)


class EvolutionConfig(Section):
    population: int = Field(4, ge=2)
    generations: int = Field(2, ge=1)
    offspring: Optional[int] = Field(None, ge=1)
    elitism: int = Field(1, ge=0)
    alpha: float = Field(0.7, ge=0, le=1)
    epsilon: float = Field(0.1, ge=0, le=1)
    p_prompt_mutation: float = Field(0.4, ge=0)
    p_param_mutation: float = Field(0.3, ge=0)
    p_crossover: float = Field(0.3, ge=0)
    sigma: float = Field(0.1, ge=0)
    strategy_types: list[StrategyType] = Field(default_factory=lambda: [StrategyType.BUG_FIX, StrategyType.FEATURE_ADD])
    hof_size: int = Field(5, ge=1)

    @model_validator(mode="after")
    def _elites_fit(self) -> EvolutionConfig:
        if self.elitism >= self.population:
            raise ValueError("evolution.elitism must be smaller than evolution.population")
        if self.p_prompt_mutation + self.p_param_mutation + self.p_crossover <= 0:
            raise ValueError("at least one of the operator probabilities must be positive")
        return self


class FitnessConfig(Section):
    tasks_per_strategy: int = Field(3, ge=1)
    oversample: int = Field(3, ge=1)
    layers: list[str] = Field(default_factory=lambda: list(LAYERS))
    weights: dict[str, float] = Field(default_factory=lambda: dict(DEFAULT_WEIGHTS))
    difficulty_bins: int = Field(5, ge=1)
    skill_norm: int = Field(10, ge=1)
    judge_threshold: float = Field(5.0, ge=1, le=10)
    semantic_threshold: float = Field(5.0, ge=1, le=10)
    leakage_threshold: float = Field(0.5, gt=0, le=1)
    # SWE-MERA's bottom-quartile filter is a dataset filter: below this many judged tasks in the
    # run so far it has no cutoffs and the absolute thresholds above decide alone
    quartile_min_judged: int = Field(20, ge=4)
    reuse_functional_results: bool = True
    # run every code block of a statement on both states; keep only those that behave as stated
    check_reproductions: bool = True
    # fitness = (1 - cost_weight) x EV + cost_weight x kept tasks per container validation
    cost_weight: float = Field(0.3, ge=0, le=1)

    @field_validator("layers")
    @classmethod
    def _known_layers(cls, value: list[str]) -> list[str]:
        unknown = [v for v in value if v not in LAYERS]
        if unknown:
            raise ValueError(f"unknown layer {unknown[0]!r}; layers are {', '.join(LAYERS)}")
        return value

    @field_validator("weights")
    @classmethod
    def _five_weights(cls, value: dict[str, float]) -> dict[str, float]:
        if set(value) != set(DEFAULT_WEIGHTS):
            raise ValueError(f"weights must name exactly {', '.join(DEFAULT_WEIGHTS)}")
        return value


class ArchiveConfig(Section):
    model: str = "all-MiniLM-L6-v2"
    k: int = Field(5, ge=1)
    duplicate_threshold: float = Field(0.95, gt=0, le=1)
    approximate_above: int = Field(20000, ge=1)  # archive.APPROXIMATE_ABOVE (not imported: faiss loads with it)


class RepoInstall(Section):
    install: Optional[str] = None
    test_cmd: Optional[str] = None
    packages: list[str] = Field(default_factory=list)
    python: Optional[str] = None
    env: dict[str, str] = Field(default_factory=dict)  # set while installing (e.g. a pretend version)
    drop: list[str] = Field(
        default_factory=list
    )  # detected sources to skip: project, extras, dev_packages, requirements:<file>


class SandboxConfig(Section):
    backend: Literal["auto", "docker", "local"] = "auto"
    reruns: int = Field(2, ge=1)
    workers: int = Field(1, ge=1)
    timeout_s: float = Field(120.0, gt=0)
    memory_mb: int = Field(2048, ge=64)
    memory_max_mb: int = Field(6144, ge=64)  # a run killed for memory runs once more with this much
    cpus: float = Field(1.0, gt=0)
    pids: int = Field(512, ge=16)
    base_image: str = "python:3.11-slim"
    offline_base_image: str = "sebgen-base:bookworm"
    install: dict[str, RepoInstall] = Field(default_factory=dict)
    setup_attempts: int = Field(3, ge=1)  # environment builds/repairs per snapshot before giving up
    warm_spares_total: int = Field(4, ge=0)  # idle started containers kept across all images and processes (LRU)
    # started containers kept ready per image: two, as a validation's bug-state and gold-state runs
    # follow each other faster than a container starts
    warm_spares: int = Field(2, ge=0)
    # validation containers' cgroup parent: "auto" (one host process's CPU share each, decided from the
    # engine's cgroup driver), "" (the engine's default) or a path; see sandbox.Limits.cgroup_parent
    cgroup_parent: str = "auto"

    @model_validator(mode="after")
    def _memory_fits(self) -> SandboxConfig:
        if self.memory_max_mb < self.memory_mb:
            raise ValueError(
                f"sandbox.memory_max_mb ({self.memory_max_mb}) must be at least sandbox.memory_mb ({self.memory_mb})"
            )
        return self

    @field_validator("cgroup_parent")
    @classmethod
    def _cgroup_parent(cls, v: str) -> str:
        parts = v[1:].split("/") if v.startswith("/") else v.split("/")
        if v and any(not re.fullmatch(r"[A-Za-z0-9_.-]+", p) or p in (".", "..") for p in parts):
            raise ValueError(f"must be a cgroup path such as /sebgen or a slice such as sebgen.slice, got {v!r}")
        return v


class ParallelConfig(Section):
    backend: Literal["serial", "pool", "dask"] = "serial"
    workers: int = Field(2, ge=1)
    address: Optional[str] = None


class CheckpointConfig(Section):
    keep: int = Field(3, ge=1)


class ExperimentConfig(Section):
    """`sebgen experiment`: evolution gain on held-out commits (see evo/experiment.py)."""

    seeds: list[int] = Field(default_factory=lambda: [1, 2, 3], min_length=1)
    holdout_fraction: float = Field(0.4, gt=0, lt=1)
    heldout_validations: int = Field(8, ge=1)  # container validations per arm and seed on held-out commits
    heldout_attempts: Optional[int] = Field(None, ge=1)  # cap on attempts per arm (default: 2 x validations)


class Config(Section):
    seed: int = 0
    repos: list[str] = Field(default_factory=list)
    mining: MiningConfig = Field(default_factory=MiningConfig)
    llm: LLMConfig = Field(default_factory=LLMConfig)
    evolution: EvolutionConfig = Field(default_factory=EvolutionConfig)
    fitness: FitnessConfig = Field(default_factory=FitnessConfig)
    archive: ArchiveConfig = Field(default_factory=ArchiveConfig)
    sandbox: SandboxConfig = Field(default_factory=SandboxConfig)
    parallel: ParallelConfig = Field(default_factory=ParallelConfig)
    checkpoint: CheckpointConfig = Field(default_factory=CheckpointConfig)
    experiment: ExperimentConfig = Field(default_factory=ExperimentConfig)

    def to_yaml(self) -> str:
        return yaml.safe_dump(self.model_dump(mode="json"), sort_keys=False)


TYPE_NAMES = {
    "int_parsing": "an integer",
    "int_type": "an integer",
    "float_parsing": "a number",
    "float_type": "a number",
    "bool_parsing": "true or false",
    "bool_type": "true or false",
    "string_type": "a string",
    "list_type": "a list",
    "dict_type": "a mapping",
    "model_type": "a mapping",
    "literal_error": None,
    "enum": None,
}


def did_you_mean(word: str, choices) -> str:
    """` (did you mean 'x'?)` for the closest choice, or nothing when none is close."""
    close = difflib.get_close_matches(str(word), [str(c) for c in choices], n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


def _section_at(loc: tuple) -> type[BaseModel] | None:
    """The config model that holds the last key of `loc`, following sections and per-repo mappings."""
    model: Any = Config
    for part in loc[:-1]:
        field = model.model_fields.get(str(part)) if isinstance(model, type) and issubclass(model, BaseModel) else None
        if field is not None:
            model = field.annotation
        elif get_origin(model) is dict:
            model = get_args(model)[1]  # a mapping's key (e.g. a repo name under sandbox.install)
        else:
            return None
    return model if isinstance(model, type) and issubclass(model, BaseModel) else None


def describe(error: ValidationError) -> str:
    first = error.errors()[0]
    key = ".".join(str(p) for p in first["loc"]) or "(top level)"
    kind = first["type"]
    if kind == "extra_forbidden":
        section = _section_at(first["loc"])
        hint = did_you_mean(first["loc"][-1], section.model_fields) if section else ""
        if hint:
            prefix = ".".join(str(p) for p in first["loc"][:-1])
            hint = hint.replace("'", f"'{prefix}." if prefix else "'", 1)
        return f"config key '{key}' is not a known setting{hint}"
    if kind in ("enum", "literal_error"):
        choices = re.findall(r"'([^']*)'", first.get("ctx", {}).get("expected", ""))
        if choices:
            return (
                f"config key '{key}' must be one of {', '.join(choices)}, got {first.get('input')!r}"
                f"{did_you_mean(first.get('input'), choices)}"
            )
    expected = TYPE_NAMES.get(kind)
    if expected:
        return f"config key '{key}' must be {expected}, got {first.get('input')!r}"
    message = first["msg"].removeprefix("Value error, ")
    return f"config key '{key}': {message}" if first["loc"] else f"config: {message}"


def set_override(data: dict, assignment: str) -> None:
    """Apply `a.b=v` to raw config data; v is parsed as YAML (numbers, booleans, lists)."""
    if "=" not in assignment:
        raise ConfigError(f"--set expects KEY=VALUE, got {assignment!r}")
    dotted, raw = assignment.split("=", 1)
    keys = dotted.strip().split(".")
    if not all(keys):
        raise ConfigError(f"--set key {dotted!r} is not a dotted name")
    target = data
    for key in keys[:-1]:
        node = target.setdefault(key, {})
        if not isinstance(node, dict):
            raise ConfigError(f"--set {dotted}: '{key}' is not a section")
        target = node
    try:
        target[keys[-1]] = yaml.safe_load(raw) if raw.strip() else ""
    except yaml.YAMLError:
        target[keys[-1]] = raw


def load_config(path: str | Path | None = None, overrides: list[str] | tuple[str, ...] = ()) -> Config:
    data: Any = {}
    if path is not None:
        path = Path(path)
        if not path.is_file():
            raise ConfigError(f"config file {path} does not exist")
        try:
            data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            where = f" at line {mark.line + 1}" if mark else ""
            raise ConfigError(f"config file {path} is not valid YAML{where}") from None
        if not isinstance(data, dict):
            raise ConfigError(f"config file {path} must hold a mapping of settings")
    for assignment in overrides:
        set_override(data, assignment)
    try:
        return Config.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(describe(exc)) from None


# `--strategy-pick`: best, the run's hall-of-fame leader; best-seed, its best generation-1
# strategy (what farming gives without evolving); best-evolved, the best strategy evolution made
# (born later, not a seed's genome). best-seed and best-evolved are `evo.experiment.pick_arms`'.
STRATEGY_PICKS = ("best", "best-seed", "best-evolved")


class FarmSettings(Section):
    """`sebgen farm`'s choices (repositories and folder aside): what a dataset version plans.
    Validated here, named by their CLI options in errors (`farm_error`)."""

    since: Optional[str] = None
    until: Optional[str] = None
    strategy: Optional[str] = None  # a StrategyType; default BUG_FIX
    strategy_from: Optional[str] = None  # an evolution run folder: its best strategy
    strategy_pick: str = "best"  # which of strategy_from's strategies (STRATEGY_PICKS)
    random_strategy: Optional[int] = Field(None, ge=0)  # a random strategy drawn with this seed
    unit: Literal["commit", "pr", "both"] = "both"
    min_source_files: int = Field(0, ge=0)
    min_lines: int = Field(0, ge=0)
    min_hunks: int = Field(0, ge=0)
    workers: int = Field(1, ge=1)
    scheduler: Optional[str] = None
    seed: int = 0
    limit: Optional[int] = Field(None, ge=1)

    @field_validator("since", "until")
    @classmethod
    def _day(cls, value: Optional[str]) -> Optional[str]:
        if value is not None:
            try:
                date.fromisoformat(value)
            except ValueError:
                raise ValueError(f"{value!r} is not a date in YYYY-MM-DD form") from None
        return value

    @field_validator("strategy")
    @classmethod
    def _strategy(cls, value: Optional[str]) -> Optional[str]:
        if value is None:
            return value
        choices = [t.value for t in StrategyType if t != StrategyType.SYNTHETIC]
        if value.upper() not in choices:
            raise ValueError(
                f"unknown strategy {value!r}{did_you_mean(value.upper(), choices)}; choose one of {', '.join(choices)}"
            )
        return value.upper()

    @field_validator("strategy_pick")
    @classmethod
    def _pick(cls, value: str) -> str:
        if value not in STRATEGY_PICKS:
            raise ValueError(
                f"unknown pick {value!r}{did_you_mean(value, list(STRATEGY_PICKS))}; choose one of "
                + ", ".join(STRATEGY_PICKS)
            )
        return value

    @model_validator(mode="after")
    def _consistent(self) -> FarmSettings:
        if self.strategy and self.strategy_from:
            raise ValueError("give --strategy TYPE or --strategy-from RUN_DIR, not both")
        if self.random_strategy is not None and self.strategy_from:
            raise ValueError("give --strategy-from RUN_DIR or --random-strategy SEED, not both")
        if self.strategy_pick != "best" and not self.strategy_from:
            raise ValueError(f"--strategy-pick {self.strategy_pick} picks from a run: give --strategy-from RUN_DIR")
        if self.since and self.until and self.since > self.until:
            raise ValueError(f"--since {self.since} is after --until {self.until}")
        return self

    def plan_key(self) -> dict:
        """The settings that decide which units a version plans and how they are tried (the
        workers and the scheduler only decide where)."""
        key = self.model_dump(exclude={"workers", "scheduler"})
        # the strategy choices added later are left out at their defaults: a version opened before
        # they existed still matches its command
        for name, default in (("strategy_pick", "best"), ("random_strategy", None)):
            if key[name] == default:
                del key[name]
        return key


def farm_settings(**values: Any) -> FarmSettings:
    """FarmSettings from CLI values, or ConfigError naming the option (`--min-lines: ...`)."""
    try:
        return FarmSettings.model_validate(values)
    except ValidationError as exc:
        first = exc.errors()[0]
        message = first["msg"].removeprefix("Value error, ")
        if first["loc"]:
            return_key = "--" + str(first["loc"][0]).replace("_", "-")
            raise ConfigError(f"{return_key}: {message}") from None
        raise ConfigError(message) from None
