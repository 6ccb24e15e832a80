"""A zone-of-proximal-development curriculum from an agent's results.

Ability is the difficulty-weighted resolved rate; the ZPD is [ability, ability + width], the
width widening after recent success and narrowing after recent failure.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from records import Task, UserError

BASE_WIDTH = 0.3
RECENT = 10  # how many of the latest results count as "recent"
PATTERN = ("easy", "medium", "easy", "medium", "hard")  # hard tasks stay sparse


class CurriculumError(UserError):
    pass


@dataclass
class Profile:
    ability: float
    recent_success: float
    width: float
    low: float
    high: float
    by_level: dict

    def to_dict(self) -> dict:
        return asdict(self)


def zpd_width(recent_success: float, base: float = BASE_WIDTH) -> float:
    if recent_success > 0.8:
        return base * 1.5
    if recent_success < 0.3:
        return base * 0.5
    return base


def capability_profile(results: dict, tasks: list[Task], base_width: float = BASE_WIDTH) -> Profile:
    """`results` is an `sebgen evaluate` document; harder solved tasks count for more."""
    reports = results.get("tasks") or {}
    by_id = {t.instance_id: t for t in tasks}
    scored = [(by_id[i], bool(r.get("resolved"))) for i, r in reports.items() if i in by_id]
    if not scored:
        raise CurriculumError("the results file shares no task with the task file")
    weights = [max(t.difficulty, 0.05) for t, _ in scored]  # a zero difficulty still counts a little
    ability = sum(w for w, (_, ok) in zip(weights, scored) if ok) / sum(weights)
    recent = [ok for t, ok in sorted(scored, key=lambda s: s[0].created_at)[-RECENT:]]
    recent_success = sum(recent) / len(recent)
    width = zpd_width(recent_success, base_width)
    levels: dict[str, list[bool]] = {}
    for task, ok in scored:
        levels.setdefault(task.difficulty_level or "unknown", []).append(ok)
    return Profile(
        round(ability, 6),
        round(recent_success, 6),
        round(width, 6),
        round(ability, 6),
        round(min(1.0, ability + width), 6),
        {lvl: round(sum(v) / len(v), 6) for lvl, v in sorted(levels.items())},
    )


def zone_counts(tasks: list[Task], profile: Profile) -> dict[str, int]:
    below = sum(t.difficulty < profile.low for t in tasks)
    above = sum(t.difficulty > profile.high for t in tasks)
    return {"below": below, "within": len(tasks) - below - above, "above": above}


def interleave(tasks: list[Task]) -> list[Task]:
    """Order easy-medium-easy-medium-hard repeatedly; a level that runs out is skipped in the cycle."""
    queues = {
        lvl: sorted(
            (t for t in tasks if (t.difficulty_level or "medium") == lvl), key=lambda t: (t.difficulty, t.instance_id)
        )
        for lvl in set(PATTERN)
    }
    others = sorted(
        (t for t in tasks if (t.difficulty_level or "medium") not in queues),
        key=lambda t: (t.difficulty, t.instance_id),
    )
    order: list[Task] = []
    while any(queues.values()):
        for lvl in PATTERN:
            if queues[lvl]:
                order.append(queues[lvl].pop(0))
    return order + others


def curriculum(tasks: list[Task], profile: Profile) -> list[Task]:
    """The ZPD tasks first in interleaved order, then the rest (easier before harder), interleaved too."""
    within = [t for t in tasks if profile.low <= t.difficulty <= profile.high]
    rest = [t for t in tasks if t not in within]
    return interleave(within) + interleave(rest)
