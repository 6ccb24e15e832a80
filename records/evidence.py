"""How one FAIL_TO_PASS test fails on the buggy state: the record the statement writer, the
judges and the benches read, whatever the language and the test runner.

A language's evidence producer fills it from its runner's structured report and the test's own
source. What only one runner knows (pytest's frames and locals, parametrize indices) stays in
that producer; this record holds what any runner can say: the check, its values, the error, a
reproduction, the checks that passed before, the test's source.

Every field but the test id is None until the producer states it. A stated empty value is
evidence too ("" error: nothing escaped the check; [] passed_checks: none passed before it), so
the JSON holds exactly the stated fields and a record read back writes the same JSON: the
offline writer seeds its choices on the JSON of its context, which holds these records."""

from __future__ import annotations

from dataclasses import dataclass, fields

KINDS = ("compare", "truthy", "raises", "error", "fail", "helper")
# an ordering read from its other side: the producer states `cab <= f('a')` as the call `f('a')`
# with op `>=` (checked_side "right"); the writer turns it back, as the test wrote it
MIRRORED_ORDERINGS = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}
# an object's address in its repr (`<Future at 0x7f...>`, packaging's `<cp311-none-any @ 1396...>`):
# it differs on every run, so evidence leaves it out and the reproduction check ignores it
ADDRESS = r" at 0x[0-9a-fA-F]+| @ (?:0x[0-9a-fA-F]+|\d{9,})(?=\)?>)"


@dataclass
class FailureEvidence:
    test_id: str
    kind: str | None = None  # one of KINDS; None when only the runner's own words are known
    check: str | None = None  # the failing check as the test writes it (one line)
    call: str | None = None  # the computed side of the check, case values substituted
    op: str | None = None  # the comparison ("==", "in", "is", ...) when kind is "compare"
    checked_side: str | None = None  # "left" or "right": the side of the written comparison that is the call
    expected: str | None = None  # the value, or the exception, the check requires
    observed: str | None = None  # what the buggy code gave (a repr), or the exception it raised
    error: str | None = None  # "Type: message" of an exception that escaped the check
    exact: bool | None = None  # the expected value is a string compared character for character
    passed_checks: list[str] | None = None  # checks that ran and passed before the failing one
    match: str | None = None  # the pattern an expected exception's message must match
    warns: bool | None = None  # the check expects a warning, not an exception
    error_type: str | None = None  # the runner's name for what failed (AssertionError, TypeError, ...)
    message: str | None = None  # the runner's failure message, cut
    phase: str | None = None  # where the failure happened: "setup" or "call"
    line: int | None = None  # the failing line in the test's file
    params: dict[str, str] | None = None  # the failing case's inputs (parametrized tests)
    reproduction: str | None = None  # a self-contained snippet ending with the failing check
    # the snippet with the calls of the earlier checks on the failing call's function in their
    # places: the state they leave (a cache) may be what fails; set only when there are such calls
    primed: str | None = None
    long: bool | None = None  # the reproduction is too long to quote
    unbound: list[str] | None = None  # names the reproduction uses without defining
    function: str | None = None  # the project's public callable the failing check exercises
    entry_point: str | None = None  # the project's name the reproduction calls first (`commander.Command`)
    then: str | None = None  # the check the test makes once a raising line runs
    rest: str | None = None  # what the test requires after the failing check
    loop_value: str | None = None  # "name = value" of the loop variable at the failure
    loop_over: str | None = None  # "name in <iterable>" of a loop the reproduction shows only the failing pass of
    raised: str | None = None  # the exception whose message (args, ...) the check reads, caught before it
    raised_by: str | None = None  # the one-line call that raised it, in `with pytest.raises(raised) as e:`
    source: list[str] | None = None  # the test's own lines up to the failing one
    # a test whose module could not import a name the change adds: whether its own lines ran
    # without an error on both states (then that import is all it lacks), as the sandbox saw it
    held: bool | None = None

    # The order above is the JSON's: a judge's prompt shows the failing check's fields first.
    # JSON keys that differ from the attribute names (the runner report's own words)
    _JSON_NAMES = {"test_id": "id", "error_type": "type", "phase": "when"}

    def to_dict(self) -> dict:
        """JSON-ready: the test id and every stated field, nothing unstated."""
        return {
            self._JSON_NAMES.get(f.name, f.name): getattr(self, f.name)
            for f in fields(self)
            if getattr(self, f.name) is not None
        }

    @classmethod
    def from_dict(cls, data: dict, test_id: str | None = None) -> FailureEvidence:
        """From JSON; unknown keys (another producer's extras, a runner's own report) are
        ignored, ill-typed values are dropped."""
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

    def rest_shape(self) -> str:
        """The checks after the failing one, whitespace collapsed, with the case's own values as
        `{}`: two cases of a test whose shapes differ check different things after it (argh's
        `always_flush=True` case counts the flushes; the `False` case asserts none), where cases
        that read their own values in the same checks share one (DataProperty's dequote cases)."""
        rest = " ".join((self.rest or "").split())
        for value in sorted((self.params or {}).values(), key=len, reverse=True):
            flat = " ".join(value.split())
            rest = rest.replace(flat, "{}") if flat else rest
        return rest

    @property
    def derived(self) -> bool:
        """True when the producer read the test and knows what was checked (not just the runner's words)."""
        return bool(self.kind)
