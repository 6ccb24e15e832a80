"""The failure-evidence record: its JSON holds exactly what a producer stated, and reads back the same."""

from __future__ import annotations

import json

from records import FailureEvidence, LayerResult, Task


def test_stated_empty_values_are_kept_and_unstated_ones_left_out():
    record = FailureEvidence("t.py::test_a", kind="compare", call="f(1)", op="==", error="", exact=False, unbound=[])
    data = record.to_dict()
    assert data == {"id": "t.py::test_a", "kind": "compare", "call": "f(1)", "op": "==", "error": "", "exact": False,
                    "unbound": []}  # fmt: skip
    again = FailureEvidence.from_dict(json.loads(json.dumps(data)))
    assert again == record and json.dumps(again.to_dict()) == json.dumps(data)


def test_a_runner_report_gives_its_own_words_and_nothing_else():
    report = {"type": "ValueError", "when": "call", "line": 7, "message": "bad", "frames": [[3, "f"]], "locals": {}}
    record = FailureEvidence.from_dict(report, test_id="t.py::test_b")
    assert (record.error_type, record.phase, record.line, record.message) == ("ValueError", "call", 7, "bad")
    assert not record.derived and record.to_dict() == {"id": "t.py::test_b", "type": "ValueError", "when": "call",
                                                        "line": 7, "message": "bad"}  # fmt: skip


def test_ill_typed_values_are_dropped_and_values_made_plain():
    record = FailureEvidence.from_dict({"id": "x", "line": True, "params": {"n": 1}, "unbound": "a", "long": 1})
    assert record.line is None and record.unbound is None and record.params == {"n": "1"} and record.long is True


def test_a_task_reads_the_evidence_of_its_fail_to_pass_tests_in_order():
    stored = {"b": {"id": "b", "kind": "truthy"}, "a": {"kind": "raises"}, "gone": {"kind": "error"}}
    task = Task("i", "r", "c", "", "", "", "", "BUG_FIX", "s", FAIL_TO_PASS=["a", "b", "c"])
    task.validation["functional"] = LayerResult(True, 1.0, "", details={"failures": stored})
    assert [(f.test_id, f.kind) for f in task.failure_evidence()] == [("a", "raises"), ("b", "truthy")]
