"""The failure evidence in a context the offline model reads: its "failures", each turned into
a `records.FailureEvidence` once, where the context's JSON arrives."""

from __future__ import annotations

from records import FailureEvidence


def failures_of(context: dict) -> list[FailureEvidence]:
    return [FailureEvidence.from_dict(f) for f in (context.get("failures") or []) if isinstance(f, dict)]
