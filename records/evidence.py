"""How one FAIL_TO_PASS test fails on the buggy state: the record the statement writer, the
judges and the benches read, whatever the language and the test runner.

A language's evidence producer fills it from its runner's structured report and the test's own
source. What only one runner knows (pytest's frames and locals, parametrize indices) stays in
that producer; this record holds what any runner can say: the check, its values, the error, a
reproduction, the checks that passed before, the test's source."""

from __future__ import annotations

from dataclasses import dataclass, field, fields

KINDS = ("compare", "truthy", "raises", "error")


@dataclass
class FailureEvidence:
    test_id: str
    kind: str = ""  # one of KINDS; "" when only the runner's own words are known
    check: str = ""  # the failing check as the test writes it (one line)
    call: str = ""  # the computed side of the check, case values substituted
    op: str = ""  # the comparison ("==", "in", "is", ...) when kind is "compare"
    observed: str = ""  # what the buggy code gave (a repr), or the exception it raised
    expected: str = ""  # the value, or the exception, the check requires
    exact: bool = False  # the expected value is a string compared character for character
    match: str = ""  # the pattern an expected exception's message must match
    warns: bool = False  # the check expects a warning, not an exception
    error: str = ""  # "Type: message" of an exception that escaped the check
    error_type: str = ""  # the runner's name for what failed (AssertionError, TypeError, ...)
    message: str = ""  # the runner's failure message, cut
    phase: str = ""  # where the failure happened: "setup" or "call"
    line: int | None = None  # the failing line in the test's file
    params: dict[str, str] = field(default_factory=dict)  # the failing case's inputs (parametrized tests)
    reproduction: str = ""  # a self-contained snippet ending with the failing check
    long: bool = False  # the reproduction is too long to quote
    unbound: list[str] = field(default_factory=list)  # names the reproduction uses without defining
    function: str = ""  # the project's public callable the failing check exercises
    passed_checks: list[str] = field(default_factory=list)  # checks that ran and passed before the failing one
    then: str = ""  # the check the test makes once a raising line runs
    rest: str = ""  # what the test requires after the failing check
    loop_value: str = ""  # "name = value" of the loop variable at the failure
    source: list[str] = field(default_factory=list)  # the test's own lines up to the failing one

    # JSON keys that differ from the attribute names (the runner report's own words)
    _JSON_NAMES = {"test_id": "id", "error_type": "type", "phase": "when"}

    def to_dict(self) -> dict:
        """JSON-ready, defaults left out: the record a writer reads is as short as its evidence."""
        out = {}
        for f in fields(self):
            value = getattr(self, f.name)
            default = f.default_factory() if callable(f.default_factory) else f.default  # type: ignore[misc]
            if value != default or f.name == "test_id":
                out[self._JSON_NAMES.get(f.name, f.name)] = value
        return out

    @classmethod
    def from_dict(cls, data: dict, test_id: str | None = None) -> FailureEvidence:
        """From JSON; unknown keys (another producer's extras) are ignored, ill-typed values are dropped."""
        by_json = {cls._JSON_NAMES.get(f.name, f.name): f for f in fields(cls)}
        values: dict = {}
        for key, value in (data or {}).items():
            f = by_json.get(key)
            if f is None or value is None:
                continue
            kind = f.type if isinstance(f.type, str) else getattr(f.type, "__name__", "")
            if kind.startswith("bool"):
                value = bool(value)
            elif kind.startswith("int"):
                value = value if isinstance(value, int) and not isinstance(value, bool) else None
            elif kind.startswith("dict"):
                value = {str(k): str(v) for k, v in value.items()} if isinstance(value, dict) else None
            elif kind.startswith("list"):
                value = [str(v) for v in value] if isinstance(value, (list, tuple)) else None
            else:
                value = str(value)
            if value is not None:
                values[f.name] = value
        values["test_id"] = test_id if test_id is not None else str(values.get("test_id", ""))
        return cls(**values)

    @property
    def derived(self) -> bool:
        """True when the producer read the test and knows what was checked (not just the runner's words)."""
        return bool(self.kind)
