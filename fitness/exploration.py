"""The exploration value of a strategy (SEBGen paper §3.5; docs/contracts.md, exploration value).

EV = wQ*Q + wN*N + wD*D + wS*S + wE*E with default weights 0.30/0.20/0.15/0.15/0.20.

Q  validation pass rate x mean judge score (0..1) of the tasks that passed.
N  mean novelty of the passed tasks against the archive (1.0 = unlike anything archived).
D  share of the difficulty bins (equal-width over 0..1) hit by the passed tasks.
S  skill diversity: half the share of the seven domains covered, half the number of distinct
   skills over `skill_norm`, capped at 1.
E  evolution potential: 0.20 when the pass rate exceeds 90% (little headroom); otherwise
   0.20 + 0.60 x the share of attempts that failed in the dominant *prompt-fixable* category,
   so a strategy whose attempts all fail one way a prompt can fix (say, leakage) scores 0.80,
   a strategy that mostly succeeds or fails for reasons outside the prompt (environment,
   build, no fail-to-pass test, flaky, timeout) scores near 0.20. No attempts scores 0.20.

Failure routing: each rejection category goes to the gene that can fix it (`gene_for`).
Prompt-fixable ones count for E and are shown to prompt mutation. `no_f2p` (the tests already
pass without the fix, or a synthetic bug no test catches) is not the prompt's: which commits
(or which functions) a strategy spends validations on decides it, so it goes to selection
(selection repair: `operators.repair_selection`). The rest (schema, compile, patch, build,
flaky, timeout) are reported per generation and are the environment repair's job.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict, dataclass

from records import Task

DEFAULT_WEIGHTS = {
    "quality": 0.30,
    "novelty": 0.20,
    "difficulty_coverage": 0.15,
    "skill_diversity": 0.15,
    "evolution_potential": 0.20,
}
DIMENSIONS = tuple(DEFAULT_WEIGHTS)
N_DOMAINS = 7

# What a better prompt can fix: the statement leaks, is judged poor or vague, repeats an
# archived task, or the answer was not the JSON asked for (llm_error, schema after writing).
PROMPT_FIXABLE = frozenset({"leakage", "judge_reject", "vague_statement", "duplicate", "llm_error"})
# What no prompt can fix: the commit, its environment or its tests.
ENVIRONMENT = frozenset(
    {"schema", "compile_error", "patch_error", "build_error", "no_f2p", "narrow_tests", "flaky", "timeout"}
)
# Of those, what the choice of commits (or synthetic targets) can fix.
SELECTION_FIXABLE = frozenset({"no_f2p", "narrow_tests"})
# Judge criteria about the task's tests, not its statement: a rejection on one of them is the
# commit's (selection's) to fix, though its category (judge_reject) counts as prompt-fixable for E.
TEST_CRITERIA = frozenset({"test_correctness", "test_completeness"})


def prompt_fixable(category: str) -> bool:
    return category in PROMPT_FIXABLE


def gene_for(category: str) -> str:
    """Which part of the genome can fix a rejection: "prompt", "selection" or "environment"
    (no gene: the environment repair's job)."""
    if category in PROMPT_FIXABLE:
        return "prompt"
    return "selection" if category in SELECTION_FIXABLE else "environment"


def gene_for_rejection(category: str, criterion: str | None = None) -> str:
    """`gene_for`, refined by the judge criterion a quality rejection was decided on: one about
    the tests (`TEST_CRITERIA`) goes to selection, not to the prompt."""
    if category == "judge_reject" and criterion in TEST_CRITERIA:
        return "selection"
    return gene_for(category)


def routed(categories: list[str]) -> dict[str, list[str]]:
    """Categories by the gene that can fix them, order kept."""
    out: dict[str, list[str]] = {"prompt": [], "selection": [], "environment": []}
    for c in categories:
        out[gene_for(c)].append(c)
    return out


def route_failures(categories: list[str]) -> tuple[list[str], list[str]]:
    """(prompt-fixable, everything else), order kept."""
    return [c for c in categories if prompt_fixable(c)], [c for c in categories if not prompt_fixable(c)]


@dataclass
class Dimensions:
    quality: float
    novelty: float
    difficulty_coverage: float
    skill_diversity: float
    evolution_potential: float

    def to_dict(self) -> dict:
        return {k: round(v, 6) for k, v in asdict(self).items()}


def quality(pass_rate: float, judge_scores: list[float]) -> float:
    return pass_rate * (sum(judge_scores) / len(judge_scores)) if judge_scores else 0.0


def novelty(novelties: list[float]) -> float:
    return sum(novelties) / len(novelties) if novelties else 0.0


def difficulty_coverage(difficulties: list[float], bins: int = 5) -> float:
    hit = {min(int(d * bins), bins - 1) for d in difficulties}
    return len(hit) / bins


def skill_diversity(domains: list[str], skills: list[list[str]], skill_norm: int = 10) -> float:
    distinct_skills = {s for group in skills for s in group}
    return 0.5 * min(len(set(domains)) / N_DOMAINS, 1.0) + 0.5 * min(len(distinct_skills) / skill_norm, 1.0)


def evolution_potential(attempts: int, passed: int, failure_categories: list[str]) -> float:
    if attempts == 0:
        return 0.20
    fixable, _ = route_failures(failure_categories)
    if passed / attempts > 0.9 or not fixable:
        return 0.20
    dominant = Counter(fixable).most_common(1)[0][1] / attempts
    return 0.20 + 0.60 * dominant


def exploration_value(dims: Dimensions, weights: dict[str, float] | None = None) -> float:
    weights = weights or DEFAULT_WEIGHTS
    return round(sum(weights[name] * getattr(dims, name) for name in DIMENSIONS), 6)


def dimensions_of(
    *,
    attempts: int,
    passed_tasks: list[Task],
    failure_categories: list[str],
    novelties: list[float],
    bins: int = 5,
    skill_norm: int = 10,
) -> Dimensions:
    judge = [t.validation["quality"].score for t in passed_tasks if "quality" in t.validation]
    return Dimensions(
        quality=quality(len(passed_tasks) / attempts if attempts else 0.0, judge),
        novelty=novelty(novelties),
        difficulty_coverage=difficulty_coverage([t.difficulty for t in passed_tasks], bins),
        skill_diversity=skill_diversity([t.domain for t in passed_tasks], [t.skills for t in passed_tasks], skill_norm),
        evolution_potential=evolution_potential(attempts, len(passed_tasks), failure_categories),
    )
