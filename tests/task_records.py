"""Task records for tests that need one without a repository behind it."""

from records import Task

JUDGED_CRITERIA = ("task_correctness", "test_correctness", "test_completeness")  # what the quartile filter reads


def task_record(instance_id: str, **fields) -> Task:
    """A BUG_FIX task of repo `r` with empty patches and the statement `s`; `fields` set the rest."""
    placeholders = {
        "repo": "r",
        "base_commit": "b",
        "patch": "",
        "test_patch": "",
        "problem_statement": "s",
        "bug_patch": "",
        "strategy_type": "BUG_FIX",
        "strategy_id": "x",
    }
    return Task(instance_id=instance_id, **{**placeholders, **fields})


def judge_criteria(scores: dict[str, float]) -> dict[str, dict]:
    """The judge's criteria as the quality layer's details hold them, each scored at full confidence."""
    return {c: {"score": s, "confidence": 1.0, "reasoning": ""} for c, s in scores.items()}
