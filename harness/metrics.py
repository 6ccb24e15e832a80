"""Scoring agent attempts: SWE-bench's per-task report, pass@k and breakdowns with 95% intervals."""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import asdict, dataclass, field

Z95 = 1.959963984540054  # two-sided 95% normal quantile


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased estimator 1 - C(n-c, k) / C(n, k) (Chen et al. 2021) over n attempts, c correct."""
    if n <= 0 or k <= 0:
        return 0.0
    k = min(k, n)
    if n - c < k:
        return 1.0
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


def wilson_interval(successes: float, total: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of a binomial proportion; (0, 0) when there is nothing to measure."""
    if total <= 0:
        return 0.0, 0.0
    p = successes / total
    denom = 1 + z * z / total
    centre = (p + z * z / (2 * total)) / denom
    half = z * math.sqrt(p * (1 - p) / total + z * z / (4 * total * total)) / denom
    return round(max(0.0, centre - half), 6), round(min(1.0, centre + half), 6)


def _split(expected: list[str], outcomes: dict[str, str]) -> dict[str, list[str]]:
    success = [t for t in expected if outcomes.get(t) == "passed"]
    return {"success": success, "failure": [t for t in expected if outcomes.get(t) != "passed"]}


def attempt_report(
    f2p: list[str],
    p2p: list[str],
    patch: str | None,
    applied: bool,
    outcomes: dict[str, str] | None,
    *,
    run=None,
    apply_error: str = "",
) -> dict:
    """One attempt in SWE-bench's report shape; resolved = every F2P and every P2P test passes
    in a run that is neither broken nor timed out (sandbox.attempt_verdict, given the run).

    Beyond SWE-bench's keys: why the patch did not apply, what the verifier reverted or
    removed before running the tests, and why the run does not count.
    """
    outcomes = outcomes or {}
    status = {"FAIL_TO_PASS": _split(f2p, outcomes), "PASS_TO_PASS": _split(p2p, outcomes)}
    resolved = bool(
        applied and patch and f2p and not status["FAIL_TO_PASS"]["failure"] and not status["PASS_TO_PASS"]["failure"]
    )
    report = {
        "patch_is_None": patch is None,
        "patch_exists": bool(patch),
        "patch_successfully_applied": applied,
        "resolved": resolved,
        "tests_status": status,
    }
    if apply_error:
        report["apply_error"] = apply_error
    if run is not None:
        from sandbox import attempt_verdict

        trusted, why = attempt_verdict(run, f2p, p2p)
        report["resolved"] = bool(resolved and trusted)
        report.update(
            reverted=list(run.reverted),
            removed=list(run.removed),
            run_broken=bool(run.broken),
            timed_out=bool(run.timed_out),
            run_note=run.note if (run.broken or run.timed_out) else "",
        )
        if patch and applied and not report["resolved"]:
            report["why"] = why
    return report


@dataclass
class TaskResult:
    instance_id: str
    month: str
    difficulty: float
    difficulty_level: str
    attempts: list[dict] = field(default_factory=list)  # attempt_report dicts

    @property
    def n(self) -> int:
        return len(self.attempts)

    @property
    def correct(self) -> int:
        return sum(a["resolved"] for a in self.attempts)

    @property
    def resolved(self) -> bool:
        """Resolved when the first attempt resolves (pass@1 for a single attempt, SWE-bench's rule)."""
        return bool(self.attempts) and self.attempts[0]["resolved"]

    def to_dict(self) -> dict:
        data = asdict(self)
        data.update(self.attempts[0] if self.attempts else attempt_report([], [], None, False, None))
        data.update(resolved=self.resolved, n=self.n, correct=self.correct)
        return data


def aggregate(results: list[TaskResult], k: int) -> dict:
    """Resolved rate, pass@1 and pass@k (mean over tasks) with Wilson 95% intervals."""
    total = len(results)
    resolved = sum(r.resolved for r in results)
    p1 = [pass_at_k(r.n, r.correct, 1) for r in results]
    pk = [pass_at_k(r.n, r.correct, k) for r in results]
    mean = lambda xs: round(sum(xs) / len(xs), 6) if xs else 0.0
    return {
        "tasks": total,
        "resolved": resolved,
        "resolved_rate": round(resolved / total, 6) if total else 0.0,
        "resolved_rate_ci95": wilson_interval(resolved, total),
        "pass@1": mean(p1),
        "pass@1_ci95": wilson_interval(sum(p1), total),
        f"pass@{k}": mean(pk),
        f"pass@{k}_ci95": wilson_interval(sum(pk), total),
    }


def summarize(results: list[TaskResult], k: int) -> dict:
    """Overall aggregates plus breakdowns by task month (created_at[:7]) and difficulty level."""
    by_month: dict[str, list[TaskResult]] = defaultdict(list)
    by_level: dict[str, list[TaskResult]] = defaultdict(list)
    for r in results:
        by_month[r.month or "unknown"].append(r)
        by_level[r.difficulty_level or "unknown"].append(r)
    return {
        "k": k,
        "overall": aggregate(results, k),
        "by_month": {m: aggregate(rs, k) for m, rs in sorted(by_month.items())},
        "by_difficulty": {d: aggregate(rs, k) for d, rs in sorted(by_level.items())},
    }
