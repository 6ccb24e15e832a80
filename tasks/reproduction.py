"""Every reproduction a statement shows is executed on both states, and kept only if it behaves as stated.

After the writer, each fenced Python block of the statement runs in the sandbox that ran the
task's tests: on the buggy state (base_commit + bug_patch) and on the fixed state
(base_commit). The blocks travel as one generated test file (`tasks/_reproduction_probe.py`
plus a JSON spec) in a folder of their own, run alone through the backend's `run_tree` (the
task's tests are not in that run, so nothing here touches their verdicts) and report through
the normal report plugin. Each block runs in its own bounded child process.

A block behaves as stated when, on the buggy state, it raises the exception the text after it
names (else the one the task's evidence records), or fails its final assert with the value
the text states on one of its sides, or (nothing stated) fails at all; and, on the fixed state, runs without
error. A block that repeats an earlier one, or does not parse, is dropped without running. A
block that does not behave as stated is rewritten when a deterministic fix works (leaving out
one setup line that crashes, tried in order), else left out with the paragraph that
introduces it and the one that describes its outcome. A block that reads names only an
earlier block binds (the rest of a test) runs after that block.

A call in the prose that the text says the current code answers ("`f(1)` is `2`; expected
`3`", "- `g()` raises `TypeError`" in a list of failing cases) runs too, after the blocks' lines
that bind the names it reads; its line is dropped when it does not behave as stated. A call
that reads names neither a block nor the tests' own imports bind cannot run: its line is
dropped and recorded as not run. The task records every check (`Task.reproduction`).
"""

from __future__ import annotations

import ast
import builtins
import json
import re
import shutil
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from llm import (
    DEFINED_ABOVE,
    IMPORT_ONLY,
    SAME_SETUP,
    first_line,
    helper_definitions,
    import_only,
    patch_sections,
    test_inputs_given_in_full,
    unparse,
    with_first_block_led,
    with_import_only_count,
    with_more_untold,
    without_dangling_heads,
    without_snippet_talk,
)
from records import ADDRESS, FailureEvidence, ReproductionCheck, ReproductionReport, Task
from sandbox import EVIDENCE_TESTS, PatchError, SandboxError, apply_patch, prepare_tree

from .evidence.python import test_intent

PROBE = Path(__file__).with_name("_reproduction_probe.py")
PROBE_DIR = "_sebgen_reproductions"  # a folder of its own in the tree: no clash with the project's modules
PROBE_FILE = f"{PROBE_DIR}/test_sebgen_reproductions.py"
JS_PROBE = Path(__file__).with_name("_reproduction_probe.cjs")
JS_PROBE_FILE = f"{PROBE_DIR}/sebgen_reproductions.test.cjs"
JS_BUILD_TIMEOUT_S = 180  # a package whose entry files are built is built once per state
JS_RUNNER = "node-test"  # the JS probe is a node:test file, whatever runner the project's tests use
SPEC_FILE = f"{PROBE_DIR}/sebgen_reproductions.json"
# the probe's own ini, found before the project's (pytest looks from the given file upwards): the
# project's addopts (a `--hypothesis-profile` its tests' conftest registers, `-n auto`) and root
# conftest are the tests' settings, not the probe's, whose blocks run in plain child processes
PROBE_INI = f"{PROBE_DIR}/pytest.ini"
BLOCK_TIMEOUT_S = 20.0  # one block's child process
MAX_BLOCKS = 16  # as many as the writer shows snippets of failing tests (a continuation is part of one)
MAX_VARIANTS = 4  # the block as shown, then up to three with one setup line left out
_PUT_BACK = "the calls the test makes first on the checked function put back"
# calls of the prose run per statement (the rest are recorded as not run): with the blocks, as many
# as a run reports failures of, since each one's "seen" case fails to say what it did
MAX_INLINE = EVIDENCE_TESTS - MAX_BLOCKS

_FENCE = re.compile(r"```([\w+-]*)[^\n]*\n(.*?)```", re.S)
_PYTHON = ("", "python", "py", "python3", "pycon")
_JAVASCRIPT = ("js", "javascript", "mjs", "cjs", "jsx", "ts", "typescript", "tsx")
_NOW_RAISES = re.compile(r"\b(?:raises|raised|fails with|crashes with)\s+`([A-Za-z_][\w.]*)")
_WANTED = re.compile(r"\b(?:should|must|expected to|ought to|wants? it to|instead of)\b[^.;]*$", re.I)
_NO_RAISE = re.compile(r"without raising|nothing is raised|no exception is raised|does not raise anything", re.I)
_ABOUT_BLOCK = re.compile(
    r"^(?:on the current code|currently|today|right now|this (?:prints|raises|gives|fails)|"
    r"the (?:block|snippet|last line|reproduction|code above|code in the snippet))",
    re.I,
)
# a first line that speaks of the snippet above it (a request: "`X` does not exist yet; the
# snippet shows how it should work"), not a heading over the next one (it would end in ':')
_OF_THE_SNIPPET = re.compile(r"\bthe snippet\b", re.I)


def _about_block(paragraph: str) -> bool:
    first = paragraph.strip().split("\n", 1)[0]
    if _ABOUT_BLOCK.match(first):
        return True
    closing_or_list = first.startswith(("Expected behaviour:", "Actual behaviour:", "- ")) or first.rstrip().endswith(
        ":"
    )
    return bool(_OF_THE_SNIPPET.search(first)) and not closing_or_list


@dataclass
class Claim:
    """What the statement says a block does on the current code."""

    error: str = ""  # the exception type it raises
    no_raise: bool = False  # the checked call raises nothing (so the block's own check fails)
    observed: str | None = None  # the value one side of the final assert's comparison has
    bare: bool = False  # the observed value is the last line's (an inline call with no required value)
    continuation: bool = False  # the rest of an earlier block: it only has to fail there
    after: int = -1  # that earlier block's index
    said: str = ""  # the error as the text quotes it ("TypeError: x is not a function")

    def describe(self) -> str:
        if self.error:
            return f"raises {self.error}"
        if self.no_raise:
            return "the checked call raises nothing"
        if self.observed is not None:
            return f"{'gives' if self.bare else 'the final check sees'} {self.observed}"
        return "fails (no exception or value stated)"

    def to_spec(self) -> dict:
        spec = {"error": self.error, "no_raise": self.no_raise, "observed": self.observed, "bare": self.bare}
        return {**spec, "said": self.said} if self.said else spec


@dataclass
class Block:
    start: int  # the fence's span in the statement
    end: int
    code: str  # as shown
    run: str = ""  # what is executed (an earlier block first for a continuation)
    claim: Claim = field(default_factory=Claim)
    variants: list[str] = field(default_factory=list)  # code to show: as shown, then rewrites
    kind: str = "block"  # or "inline": a call in a line of prose, the line being its span
    line: str = ""  # an inline claim's line as the writer wrote it
    runs: list[str] = field(default_factory=list)  # an inline claim's ways to run (one per variant)
    note: str = ""  # why an inline claim cannot run
    seen_in: int = -1  # an inline claim: the index (among the runnable blocks) of the block that shows it


def python_blocks(statement: str) -> list[Block]:
    """The statement's fenced Python blocks (an untagged fence counts), in order."""
    out = []
    for m in _FENCE.finditer(statement):
        if m.group(1).lower() in _PYTHON:
            code = m.group(2)
            if m.group(1).lower() == "pycon" or code.lstrip().startswith(">>>"):
                code = "\n".join(ln[4:] for ln in code.splitlines() if ln.startswith((">>> ", "... ")))
            out.append(Block(m.start(), m.end(), code.rstrip() + "\n"))
    return out


def check_reproductions(
    task: Task, backend, repo_path: Path, *, timeout_s: float = BLOCK_TIMEOUT_S, max_blocks: int = MAX_BLOCKS
) -> ReproductionReport:
    """Execute the statement's blocks on both states, rewrite or drop those that do not behave
    as stated (the statement is changed in place), and return the record of what was done."""
    started = time.monotonic()
    statement = task.problem_statement
    blocks = python_blocks(statement)
    report = ReproductionReport()
    if not blocks and js_blocks(statement):
        return _check_js(task, backend, repo_path, timeout_s, max_blocks, started)
    if not blocks:
        report.note = "the statement shows no Python block"
        return report
    checks: dict[int, ReproductionCheck] = {}
    runnable: list[int] = []
    evidence = task.failure_evidence()
    ran: dict[str, int] = {}  # what a block runs -> the first block that runs it
    for i in _screened(blocks, checks, max_blocks, _python_syntax_problem, repeats=False):
        block = blocks[i]
        block.claim, block.run = stated_claim(statement, block, {j: blocks[j] for j in runnable}, evidence)
        # the same lines after another test's setup ("The snippet goes on") are no repeat
        key = " ".join((block.run or block.code).split())
        # the cap counts tests told, as the writer's does: a block that goes on with one is part of it
        told = sum(not blocks[j].claim.continuation for j in runnable)
        if key in ran or (told >= max_blocks and not block.claim.continuation):
            reason = _repeat_reason(ran[key]) if key in ran else f"more than {max_blocks} blocks"
            checks[i] = ReproductionCheck(block.code, "dropped", reason, claim="", buggy="", fixed="")
            continue
        ran[key] = i
        # every line of the rest a test requires is a requirement: none is left out as setup
        block.variants = [block.code] if block.claim.continuation else setup_variants(block.code)
        primed = _primed_variant(block, evidence)
        if primed:
            block.variants.append(primed)
        runnable.append(i)
    blocks_run = list(runnable)
    inline = inline_claims(statement, [blocks[i] for i in blocks_run], _evidence_imports(evidence))
    seen_in: dict[int, int] = {}
    for n, block in enumerate(inline):
        blocks.append(block)
        i = len(blocks) - 1
        if block.seen_in >= 0:
            seen_in[i] = blocks_run[block.seen_in]
            continue
        if block.run and n >= MAX_INLINE:
            block.note = f"not run: more than {MAX_INLINE} calls in the prose"
        if block.run and not block.note:
            runnable.append(i)
        else:  # a value that was not observed is not claimed: its line goes
            checks[i] = ReproductionCheck(block.code, "dropped", block.note, block.claim.describe(), kind="inline")
    probes = _import_only_probes(statement, evidence, first_id=len(blocks))
    # a test `mark_held_tests` ran before the writer is not run again: its outcome is recorded
    observed = {f.test_id: f.held for f in evidence if f.held is not None}
    unobserved = [p for p in probes if p.test_id not in observed]
    to_run = [blocks[i] for i in runnable] + [p.block for p in unobserved]
    results = (
        _execute(task, backend, repo_path, to_run, runnable + [p.index for p in unobserved], timeout_s)
        if to_run
        else {}
    )
    if isinstance(results, str) and not getattr(backend, "runs_untrusted", False):
        # this machine's backend runs no snippet at all (the local one as root): the setup, not the
        # task, is at fault, so the blocks stay, marked as not executed, as the record says
        report.note = results
        for i in runnable:
            checks[i] = ReproductionCheck(
                blocks[i].code, "kept", results, claim=blocks[i].claim.describe(), kind=blocks[i].kind
            )
    elif isinstance(results, str):  # nothing was observed: no block may claim a behaviour
        report.note = results
        for i in runnable:
            checks[i] = ReproductionCheck(
                blocks[i].code, "dropped", results, claim=blocks[i].claim.describe(), kind=blocks[i].kind
            )
    else:
        for i in runnable:
            checks[i] = _decide(blocks[i], i, results)
            after = blocks[i].claim.after
            if after < 0 or checks[i].verdict == "dropped":
                continue
            if checks[after].verdict == "dropped" and blocks[i].claim.continuation and _holds(results, after):
                # a test that never ran (its module lacked a name) fails past the lines the text
                # claimed would fail: the block is right, its outcome is not, and the rest shows the failure
                checks[after].verdict, checks[after].reason = "kept", f"{_HOLDS_UNTIL_REST} {i + 1}"
            elif checks[after].verdict == "dropped":
                checks[i].verdict, checks[i].shown = "dropped", ""
                checks[i].reason = f"continues block {after + 1}, which was dropped"
            elif checks[after].verdict == "rewritten" and not blocks[i].claim.continuation:
                # it ran on the setup as first shown, which the text no longer shows
                checks[i].verdict, checks[i].shown = "dropped", ""
                checks[i].reason = f"runs on the setup of block {after + 1}, which was rewritten"
    for i, k in seen_in.items():
        shown = checks[k]
        verdict = "dropped" if shown.verdict == "dropped" else "kept"
        reason = f"block {k + 1} runs this call with this outcome: {shown.reason}"
        claim = blocks[i].claim.describe()
        checks[i] = ReproductionCheck(blocks[i].code, verdict, reason, claim, shown.buggy, shown.fixed, kind="inline")
    report.checks = [checks[i] for i in range(len(blocks))]
    statement = _rewrite(statement, blocks, report.checks, stands_alone=_python_value_stands_alone)
    kept_unrun = isinstance(results, str) and not getattr(backend, "runs_untrusted", False)
    held = {
        p.test_id
        for p in probes
        if observed.get(p.test_id)
        or (p.test_id not in observed and (kept_unrun or (isinstance(results, dict) and _holds(results, p.index))))
    }
    task.problem_statement = _with_import_only_confirmed(statement, probes, held)
    report.held = sorted(held - ({p.test_id for p in unobserved} if kept_unrun else set()))
    report.seconds = round(time.monotonic() - started, 3)
    return report


@dataclass
class _Probe:
    """A failing test the statement counts as needing only an import (`llm.import_only`): its
    own lines run unshown, and must run without an error on both states."""

    test_id: str
    module: str
    name: str
    index: int  # its case id among the run's blocks
    block: Block


MAX_PROBES = EVIDENCE_TESTS  # every failing test with evidence (each is one short child process)


def mark_held_tests(task: Task, backend, repo_path: Path, timeout_s: float = BLOCK_TIMEOUT_S) -> None:
    """Before the writer: each failing test that may lack only its module's import of a name the
    change adds (`llm.import_only`) has its own lines run unshown on both states, and its
    evidence records whether they held (`FailureEvidence.held`): the writer counts only those
    that did as needing nothing else, and states the others."""
    probes = _import_only_probes(None, task.failure_evidence(), first_id=0)
    functional = task.validation.get("functional")
    failures = functional.details.get("failures") if functional is not None else None
    if not probes or not isinstance(failures, dict):
        return
    results = _execute(task, backend, repo_path, [p.block for p in probes], [p.index for p in probes], timeout_s)
    if isinstance(results, str):
        return  # nothing was seen: nothing is recorded, and the check after the writer decides
    for p in probes:
        if isinstance(failures.get(p.test_id), dict):
            failures[p.test_id]["held"] = _holds(results, p.index)


def _import_only_probes(statement: str | None, evidence: list[FailureEvidence], first_id: int) -> list[_Probe]:
    """A probe per test the statement's "fail today only because `X` cannot be imported"
    sentences count (the evidence's tests `llm.import_only` picks for that name; with no
    statement, every such test), up to `MAX_PROBES`."""
    counted = {(m.group(4), m.group(3)) for m in IMPORT_ONLY.finditer(statement or "")}
    probes: list[_Probe] = []
    for f in evidence:
        hit = import_only(f.error or "", f.reproduction or "")
        wanted = hit is not None and (statement is None or hit in counted)
        if wanted and not f.unbound and len(probes) < MAX_PROBES:
            # the whole test: what it requires after the line its snippet ends on too (pydoclint
            # 3386cd2a's CLI run passed, and the baseline checks after it needed the change)
            code = "\n".join(part.rstrip() for part in (f.reproduction or "", f.rest or "") if part.strip()) + "\n"
            block = Block(-1, -1, code, run=code, variants=[code], kind="probe")
            probes.append(_Probe(f.test_id, hit[0], hit[1], first_id + len(probes), block))
    return probes


def _with_import_only_confirmed(statement: str, probes: list[_Probe], held: set[str]) -> str:
    """The statement's import-only counts cut to the probes that held; the others are counted
    among the tests not spelled out (a claim that was not observed is not made)."""
    for m in list(IMPORT_ONLY.finditer(statement)):
        module, name = m.group(4), m.group(3)
        confirmed = sum(p.test_id in held for p in probes if (p.module, p.name) == (module, name))
        statement = with_import_only_count(statement, module, name, confirmed)
        if int(m.group(1)) > confirmed:
            statement = with_more_untold(statement, int(m.group(1)) - confirmed)
    return re.sub(r"\n{3,}", "\n\n", statement).strip()


def _screened(
    blocks: list[Block], checks: dict[int, ReproductionCheck], max_blocks: int, syntax_problem, repeats: bool = True
) -> list[int]:
    """The indices of the blocks to run: a block that repeats an earlier one, is empty, does not
    parse (`syntax_problem(code)`: "" or why) or comes past `max_blocks` is dropped into `checks`.
    With `repeats` off, the caller compares what each block runs, and counts to `max_blocks`
    only the blocks that repeat none."""
    runnable: list[int] = []
    seen: dict[str, int] = {}
    for i, block in enumerate(blocks):
        key = " ".join(block.code.split())
        problem = ""
        if key in seen and repeats:
            problem = _repeat_reason(seen[key])
        elif not key:
            problem = "empty"
        else:
            problem = syntax_problem(block.code)
        if problem or (len(runnable) >= max_blocks and repeats):
            checks[i] = ReproductionCheck(
                block.code, "dropped", problem or f"more than {max_blocks} blocks", claim="", buggy="", fixed=""
            )
            continue
        seen[key] = i
        runnable.append(i)
    return runnable


_REPEATS = "repeats block"
_HOLDS_UNTIL_REST = "runs without an error on both states, so the text's claim about it went; it fails in block"


def _holds(results: dict, i: int) -> bool:
    """Block i ran without an error on both states, as shown."""
    first = results.get(f"b{i}v0", {})
    seen = (first.get("seen-buggy") or ("", ""))[1]
    return (first.get("fixed") or ("",))[0] == "passed" and seen.startswith("ran without an exception")


def _repeat_reason(earlier: int) -> str:
    return f"{_REPEATS} {earlier + 1}"


def _python_syntax_problem(code: str) -> str:
    try:
        ast.parse(code)
    except SyntaxError as exc:
        return f"does not parse: {exc.msg} (line {exc.lineno})"
    return ""


def js_blocks(statement: str) -> list[Block]:
    """The statement's fenced JavaScript/TypeScript blocks, in order."""
    return [
        Block(m.start(), m.end(), m.group(2).rstrip() + "\n")
        for m in _FENCE.finditer(statement)
        if m.group(1).lower() in _JAVASCRIPT
    ]


def _check_js(
    task: Task, backend, repo_path: Path, timeout_s: float, max_blocks: int, started: float
) -> ReproductionReport:
    """`check_reproductions` for a JS/TS statement: each block runs in its own Node process
    (the node:test probe), as shown; prose calls are not run (their values come from the
    runner's own report of the failing tests)."""
    from tasks.evidence.js import parse

    statement = task.problem_statement
    blocks = js_blocks(statement)
    report = ReproductionReport()
    checks: dict[int, ReproductionCheck] = {}
    runnable: list[int] = []
    evidence = task.failure_evidence()

    def js_syntax_problem(code: str) -> str:
        return "does not parse as JavaScript" if parse(code, "reproduction.mjs").root_node.has_error else ""

    for i in _screened(blocks, checks, max_blocks, js_syntax_problem):
        block = blocks[i]
        block.claim, block.run, block.variants = js_claim(statement, block, evidence), block.code, [block.code]
        runnable.append(i)
    results = _execute(task, backend, repo_path, [blocks[i] for i in runnable], runnable, timeout_s, js=True)
    if isinstance(results, str):
        report.note = results
        for i in runnable:
            checks[i] = ReproductionCheck(blocks[i].code, "kept", "not executed", claim=blocks[i].claim.describe())
    else:
        for i in runnable:
            checks[i] = _decide(blocks[i], i, results)
    report.checks = [checks[i] for i in range(len(blocks))]
    task.problem_statement = _rewrite(statement, blocks, report.checks, stands_alone=_js_value_stands_alone)
    report.seconds = round(time.monotonic() - started, 3)
    return report


# a description that asks for something ("... should not be split"), not a label ("Tokenizer().tokenize()")
# or a remark about the code ("The pagination id is passed from outside to this.")
_REQUIRES = re.compile(
    r"\b(?:should|must|shall|needs?|cannot|can't|never|always|only|still|not|no|expects?|returns?|raises?|fails?|"
    r"works?|allows?|rejects?|accepts?|keeps?|preserves?|ignores?|handles?|supports?|gives?|yields?|makes?|ensures?)\b",
    re.I,
)


def unstated_after_drops(task: Task) -> str:
    """Why the statement leaves a solver nothing to check against, or "": it shows no block (none
    was written, or the reproduction check dropped them all), and no failing case is stated in
    the text (its call or check, with the value it requires when it compares one or expects an
    error; or the test's own description of what it requires, `test_intent`). A task without
    failure evidence is not judged here: nothing says what a stated case would be."""
    report = task.reproduction
    blocks = [c for c in (report.checks if report is not None else []) if c.kind == "block"]
    if any(c.verdict != "dropped" for c in blocks) or _FENCE.search(task.problem_statement):
        return ""
    evidence = [f for f in task.failure_evidence() if f.call or f.check or f.source]
    if not evidence:
        return ""
    text = _flat(task.problem_statement)

    def said(value: str | None) -> bool:
        value = _flat(value or "")
        return bool(value) and (value in text or value.strip("'") in text)

    for f in evidence:
        intent = test_intent(f.source or [])
        if said(intent) and _REQUIRES.search(intent):  # what the test requires, in its own words
            return ""
        # a check of a caught exception's message is stated by the call that raised it; a bare
        # local (`actual`) says nothing without the snippet that binds it
        called = (f.raised_by if f.raised else f.call) or f.check
        if not said(called) or re.fullmatch(r"\s*[A-Za-z_]\w*\s*", called or ""):
            continue
        if _reads_test_value(f.reproduction or "", called):
            continue  # `main([str(srcfile2)])`: what the test made `srcfile2` is not told
        if f.kind not in ("compare", "raises") or not f.expected or said(f.expected):
            return ""
    dropped = len(blocks)
    shown = (
        f"the reproduction check dropped every example ({dropped} block{'s' if dropped > 1 else ''})"
        if dropped
        else "the statement shows no example"
    )
    return f"{shown}, and it states no failing case (its call with the value it requires)"


_SPAN = re.compile(r"`([^`\n]+)`")


def _python_value_stands_alone(paragraph: str, block: Block) -> bool:
    """A dropped Python block's outcome paragraph is kept when its first span is a call that reads
    no name the block's own lines make (only what its imports bind: the project), and a value
    follows it ("On the current code `render('b')` gives `'b'`, but it should be `'B'`."): the
    case stays stated without the block. Its claim is an inline claim of its own, run apart."""
    spans = _SPAN.findall(paragraph)
    if len(spans) < 2:
        return False
    try:
        call, body = ast.parse(spans[0].strip(), mode="eval"), ast.parse(block.code).body
    except SyntaxError:
        return False
    if not any(isinstance(n, ast.Call) for n in ast.walk(call)):
        return False
    made = set().union(set(), *(_binds_top(n) for n in body if not isinstance(n, (ast.Import, ast.ImportFrom))))
    return not (_free(call) & made)


_JS_CALL_VALUE = re.compile(r"^On the current code `(?P<call>[A-Za-z_$][\w$.]*\([^`]*\))` is `[^`]+`")


def _js_value_stands_alone(paragraph: str, block: Block) -> bool:
    """A dropped JS block's outcome paragraph is kept when it names a call of the package and
    the value the test run saw it give ("On the current code `f(1)` is `2`; it should be `3`."):
    a solver can read it without the block, as long as the call uses no name the block binds."""
    m = _JS_CALL_VALUE.match(paragraph)
    if not m:
        return False
    root = re.escape(re.match(r"[A-Za-z_$][\w$]*", m["call"]).group(0))
    binding = re.compile(rf"\b(?:const|let|var)\s+(?:\{{[^}}]*)?\b{root}\b")
    # what the package's import binds is the package; anything else the block sets up is not
    return all("require(" in line for line in block.code.splitlines() if binding.search(line))


_JS_THROWS = re.compile(r"\b(?:throws|threw|fails with)\s+`(?:new\s+)?(([A-Za-z_$][\w$.]*)[^`]*)`")
_JS_NO_THROW = re.compile(r"nothing is thrown|does not throw|no error is thrown|without throwing", re.I)
# a final check that compares the computed value with a stated one (node:assert, chai)
_JS_COMPARE = re.compile(
    r"(?:assert\.(?:strictEqual|equal|deepEqual|deepStrictEqual)\s*\(|\.should\.(?:\w+\.)*(?:equal|eql)\s*\(|"
    r"expect\(.*\)\.to\.(?:\w+\.)*(?:equal|eql)\s*\()",
    re.S,
)


def js_claim(statement: str, block: Block, evidence: list[FailureEvidence]) -> Claim:
    """What the text after a JS block says it does on the current code: throws a named error,
    throws nothing (its assert.throws fails), or fails its final comparison with the value the
    runner recorded on one side; else only that it fails."""
    after = _paragraph_after(statement, block.end)
    claim = Claim()
    for m in _JS_THROWS.finditer(after):
        if not _WANTED.search(after[max(0, m.start() - 80) : m.start()].split(".")[-1]):
            claim.error, claim.said = m.group(2).split(".")[-1], m.group(1)
            return claim
    if _JS_NO_THROW.search(after):
        claim.no_raise = True
        return claim
    found = _evidence_of(block, evidence)
    lines = [ln for ln in block.code.strip().splitlines() if ln.strip()]
    last = "\n".join(lines[-8:])
    # only an equality's observed value is a side of the final assert (an instanceof check
    # observes the received value's type, and its assert.ok sees `false`)
    equality = found is not None and found.op in (None, "", "==", "!=")
    if equality and found.observed and _flat(found.observed) in _flat(after.replace('"', "'")):
        if _JS_COMPARE.search(last[last.rfind("assert.") if "assert." in last else 0 :]):
            claim.observed = found.observed
    return claim


# ---------------------------------------------------------------- what the text claims


def stated_claim(
    statement: str, block: Block, earlier: dict[int, Block], evidence: list[FailureEvidence]
) -> tuple[Claim, str]:
    tree = ast.parse(block.code)
    free = _reads(tree) - _binds(tree) - set(dir(builtins))
    setup, run = _shared_setup(statement, block, earlier)
    if setup < 0:
        setup, run = _helpers_above(statement, block, earlier, free)
    for j in sorted(earlier, reverse=True) if setup < 0 else ():
        # a block on an earlier one's setup binds what that setup binds (argh a620f2ba: the rest of
        # the `always_flush=True` case went on from the `False` case's block, which binds `out_io`)
        on_setup = earlier[j].claim.after >= 0 and not earlier[j].claim.continuation
        if free & _binds(ast.parse(earlier[j].run if on_setup else earlier[j].code)):
            return Claim(continuation=True, after=j), earlier[j].run.rstrip() + "\n" + block.code
    after = _paragraph_after(statement, block.end)
    found = _evidence_of(block, evidence, after_setup=setup >= 0, run=run)
    claim = Claim(after=setup)
    for m in _NOW_RAISES.finditer(after):
        if not _WANTED.search(after[max(0, m.start() - 80) : m.start()].split(".")[-1]):
            claim.error = m.group(1).split(".")[-1]
            break
    if not claim.error and _NO_RAISE.search(after):
        claim.no_raise = True
    if not claim.error and not claim.no_raise and found is not None:
        if found.error:
            claim.error = found.error.split(":")[0].strip().split(".")[-1]
        elif found.kind == "compare" and found.observed and _flat(found.observed) in _flat(after.replace('"', "'")):
            if _final_compare(tree):
                claim.observed = found.observed
        elif found.kind == "raises":
            claim.no_raise = True
    return claim, run


_THROUGH = re.compile(r"every line through `([^`]+)`")


def _shared_setup(statement: str, block: Block, earlier: dict[int, Block]) -> tuple[int, str]:
    """(j, what runs) for a block whose heading says it runs on the same setup as the block
    above: the nearest earlier block j that is no continuation, its lines but the last (its
    failing check) first, or through the line the heading names ("every line through `X`");
    (-1, the block's code) for any other block."""
    heading = _paragraph_before(statement, block.start)
    shown = [j for j in sorted(earlier, reverse=True) if not earlier[j].claim.continuation]
    if SAME_SETUP not in heading.lower() or not shown:
        return -1, block.code
    j = shown[0]
    above = earlier[j].run
    body = ast.parse(above).body[:-1]
    lines = above.splitlines()
    texts = [" ".join("\n".join(lines[first_line(node) - 1 : node.end_lineno]).split()) for node in body]
    through = _THROUGH.search(" ".join(heading.split()))
    if through and " ".join(through.group(1).split()) in texts:
        # "every line through `X`": the setup ends there, the lines after it are the other test's
        # own (pydantic-settings' second secrets file, which the check had also written)
        body = body[: texts.index(" ".join(through.group(1).split())) + 1]
    setup = "".join("\n".join(lines[first_line(node) - 1 : node.end_lineno]) + "\n" for node in body)
    return j, setup + block.code


def _helpers_above(statement: str, block: Block, earlier: dict[int, Block], free: set[str]) -> tuple[int, str]:
    """(j, what runs) for a block whose heading says it uses helpers defined above: the nearest
    earlier block j that is no continuation and defines one of the names the block reads, the
    definitions of j it needs (those read by what it reads too) after the imports of j they read
    and the block's own imports (a class's base is read as it is defined), then the block;
    (-1, the block's code) for any other block."""
    if DEFINED_ABOVE not in _paragraph_before(statement, block.start).lower():
        return -1, block.code
    for j in sorted(earlier, reverse=True):
        defined = helper_definitions(earlier[j].code) if not earlier[j].claim.continuation else {}
        if not free & defined.keys():
            continue
        needed, reads = set(), set(free)
        while new := (reads & defined.keys()) - needed:
            needed |= new
            for name in new:
                tree = ast.parse(defined[name])
                reads |= _reads(tree) - _binds(tree)
        imports, _ = _leading_imports(block.code)
        own = _binds(ast.parse(block.code))
        code = earlier[j].code
        lacked = [  # what the helpers read that block j imports and this block does not
            "\n".join(code.splitlines()[first_line(node) - 1 : node.end_lineno])
            for node in ast.parse(code).body
            if isinstance(node, ast.Import | ast.ImportFrom) and (_binds(node) & reads) - own
        ]
        helpers = [text for name, text in defined.items() if name in needed]
        return j, "\n".join([*lacked, *imports, *helpers, block.code])
    return -1, block.code


def _evidence_of(
    block: Block, evidence: list[FailureEvidence], after_setup: bool = False, run: str = ""
) -> FailureEvidence | None:
    """The failure whose reproduction the block shows (whole, or its end after a shared setup),
    or runs (its statements, helpers defined above included)."""
    code = _flat(block.code)
    for f in evidence:
        if f.reproduction and _flat(f.reproduction) == code:
            return f
    statements = _statement_set(run) if run and run != block.code else None
    for f in evidence if statements else ():
        if f.reproduction and _statement_set(f.reproduction) == statements:
            return f
    for f in evidence if after_setup else ():  # its own imports first, then the end of the reproduction
        imports, tail = _leading_imports(block.code)
        flat = _flat(f.reproduction or "")
        if flat.endswith(" " + _flat(tail)) and all(_flat(line) in flat for line in imports):
            return f
    for f in evidence:
        if f.call and _flat(f.call) in code:
            return f
    return None


def _statement_set(code: str) -> frozenset[str]:
    try:
        return frozenset(_flat(unparse(node)) for node in ast.parse(code).body)
    except SyntaxError:
        return frozenset()


def _leading_imports(code: str) -> tuple[list[str], str]:
    """The import lines `code` starts with, and the code after them."""
    lines = code.strip().splitlines()
    k = 0
    while (
        k < len(lines) and re.match(r"(?:import|from)\s+\S+", lines[k]) and not lines[k].rstrip().endswith(("(", "\\"))
    ):
        k += 1
    return lines[:k], "\n".join(lines[k:])


def _paragraph_before(statement: str, start: int) -> str:
    before = statement[:start]
    fence = before.rfind("```")
    before = before if fence < 0 else before[fence + 3 :]
    paragraphs = [p for p in re.split(r"\n\s*\n", before) if p.strip()]
    return paragraphs[-1].strip() if paragraphs else ""


def _paragraph_after(statement: str, end: int) -> str:
    rest = statement[end:]
    nxt = rest.find("```")
    rest = rest if nxt < 0 else rest[:nxt]
    paragraphs = [p for p in re.split(r"\n\s*\n", rest) if p.strip()]
    return paragraphs[0].strip() if paragraphs else ""


def _final_compare(tree: ast.Module) -> bool:
    last = tree.body[-1] if tree.body else None
    return isinstance(last, ast.Assert) and isinstance(last.test, ast.Compare) and len(last.test.ops) == 1


def _flat(text: str) -> str:
    return " ".join(str(text).replace('"', "'").split())


def _binds(tree: ast.AST) -> set[str]:
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            out.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            out |= {(a.asname or a.name).split(".")[0] for a in node.names}
        elif isinstance(node, ast.arg):
            out.add(node.arg)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            out.add(node.name)
    return out


def _reads_test_value(code: str, expression: str) -> bool:
    """`expression` reads a name the snippet `code` binds itself, not by an import: a value the test made."""
    try:
        tree, read = ast.parse(code), _free(ast.parse(expression))
    except SyntaxError:
        return False
    imported = {
        name for node in ast.walk(tree) if isinstance(node, (ast.Import, ast.ImportFrom)) for name in _binds_top(node)
    }
    return bool((_binds(tree) - imported) & read)


def _reads(tree: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


_INLINE = re.compile(r"`([^`\n]+)`\s+(is|gives|returns|raises)\s+(?:exactly\s+)?`([^`\n]+)`")
_NOW = re.compile(r"\b(?:current(?:ly)?|today|actual(?:ly)?|now|at the moment)\b", re.I)
_REQUIRED = re.compile(
    r"^\W*(?:expected|where (?:it|the check) (?:requires|needs)|the check needs|it should (?:be|return|give))"
    r"\s+(?:exactly\s+)?`([^`\n]+)`",
    re.I,
)


def _evidence_imports(evidence: list[FailureEvidence]) -> str:
    """The import lines of the evidence's reproductions, once each: what a call in the prose
    about a case no block shows may read (`issubclass(frozenbidict, ...)` beside a block that
    imports only the names of another case)."""
    lines: dict[str, None] = {}
    for f in evidence:
        try:
            body = ast.parse(f.reproduction or "").body
        except SyntaxError:
            continue
        for node in body:
            if isinstance(node, (ast.Import, ast.ImportFrom)) and not (isinstance(node, ast.ImportFrom) and node.level):
                lines[unparse(node)] = None
    return "".join(f"{line}\n" for line in lines)


def inline_claims(statement: str, blocks: list[Block], imports: str = "") -> list[Block]:
    """The calls of the prose that the text says the current code answers in some way: "`call` is /
    gives / returns / raises `value`" in a line that speaks of the current code, or in a list
    under a head about failing ("... fails for other inputs:"), or followed by the value
    required ("; expected `5`"). Each runs after the lines of the `blocks` before it that bind
    the names it reads, the nearest binding winning, or else after the lines of the tests' own
    `imports` that bind them (neither: `run` stays empty, the claim cannot run). Requirements
    ("should", a specification list) are no claim about the current code and are left to the
    tests."""
    out: list[Block] = []
    offset = 0
    in_fence = False
    head = ""
    for line in statement.splitlines(keepends=True):
        start, offset = offset, offset + len(line)
        if line.lstrip().startswith("```"):
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        if not line.strip():
            head = ""
            continue
        if not head:
            head = line
        for m in _INLINE.finditer(line):
            call, verb, value = m.group(1), m.group(2), m.group(3)
            before, after = line[: m.start()], line[m.end() :]
            required = _REQUIRED.match(after)
            listed = line.lstrip().startswith(("- ", "* ")) and "fail" in head.lower() and head is not line
            clause = re.split(r"[.;:]\s", before)[-1]
            if _WANTED.search(clause) or not (_NOW.search(before) or listed or required):
                continue
            try:
                tree = ast.parse(call.strip(), mode="eval")
            except SyntaxError:
                continue
            if not any(isinstance(n, ast.Call) for n in ast.walk(tree)):
                continue
            claim, expected = Claim(), ""
            if verb == "raises":
                name = re.match(r"([A-Za-z_][\w.]*)", value)
                if not name:
                    continue
                claim.error = name.group(1).split(".")[-1]
                last = f"{call.strip()}\n"
            else:
                claim.observed = value
                expected = required.group(1) if required else ""
                if expected and _parses(expected):
                    last = f"assert ({call.strip()}) == ({expected})\n"
                else:
                    claim.bare, last = True, f"{call.strip()}\n"
            earlier = [b for b in blocks if b.start < start]
            setup = setup_lines(tree, earlier)
            if setup is None and imports:  # names of the tests' own imports, the blocks' bindings first
                setup = binding_lines(tree, [Block(0, 0, imports), *earlier])
            if setup and listed:
                setup = _with_listed_values(before, setup)
            if not claim.bare and not claim.error and expected and setup:
                last = f"assert ({call.strip()}) == ({_as_repr_reads(expected, setup)})\n"
            block = Block(start, offset, call.strip(), kind="inline", claim=claim, line=line)
            block.seen_in = _seen_in(call, claim, blocks)
            seen_in_a_block = block.seen_in >= 0  # then the block that runs this call decides for it
            if not seen_in_a_block and setup is None:
                block.note = f"not run: it reads names no block binds ({', '.join(sorted(_free(tree)))})"
            elif not seen_in_a_block:
                block.run = setup + last
                # a block line that crashes (a broken setup line) must not sink a true claim:
                # the lines that bind what the call reads, alone, are the second way to run it
                bare_setup = binding_lines(tree, [b for b in blocks if b.start < start])
                block.runs = [block.run] + ([bare_setup + last] if bare_setup not in (None, setup) else [])
                block.variants = [call.strip()] * len(block.runs)
            out.append(block)
            break  # one claim per line: a dropped claim takes its line
    return out


_IN_PLACE_OF = re.compile(r"`([^`\n]+)` in place of `([^`\n]+)`")


def _with_listed_values(line: str, setup: str) -> str:
    """The setup a listed case runs on: its line's "`new` in place of `old`" applied to the lead's
    lines (bigtree's `A([['test', ['test1', 'test11']], 'test2'])` in place of the lead's data)."""
    for new, old in _IN_PLACE_OF.findall(line):
        setup = setup.replace(old, new) if old in setup else setup.replace(old.replace('"', "'"), new)
    return setup


def _as_repr_reads(value: str, setup: str) -> str:
    """A required value as the runner's repr writes it (`datetime.datetime(2020, 1, 2)`), to
    evaluate after `setup`: where the setup binds a root name of it to something other than the
    module of that name (`from datetime import datetime`), the value is evaluated with the modules
    it names instead, as its repr means them."""
    try:
        read = {n.id for n in ast.walk(ast.parse(value, mode="eval")) if isinstance(n, ast.Name)}
        bound = ast.parse(setup)
    except SyntaxError:
        return value
    imports = [a for n in ast.walk(bound) if isinstance(n, ast.Import) for a in n.names]
    as_module = {a.asname or a.name.split(".")[0] for a in imports}
    other = {n for n in read & _binds(bound) if n not in as_module}
    if not other:
        return value
    modules = ", ".join(f"{name!r}: __import__({name!r})" for name in sorted(other))
    return f"eval({value!r}, {{**globals(), {modules}}})"  # the snippet's other names stay as bound


def _free(tree: ast.AST) -> set[str]:
    """The names `tree` reads that it does not bind itself (a comprehension's target) and no builtin."""
    return _reads(tree) - _binds(tree) - set(dir(builtins))


def _seen_in(call: str, claim: Claim, blocks: list[Block]) -> int:
    """The index in `blocks` of the block whose code runs `call` and whose stated outcome is the
    same as `claim`'s (the prose repeats what the block shows), else -1."""
    flat = _flat(call)
    for k, block in enumerate(blocks):
        if flat not in _flat(block.code) or block.claim.continuation:
            continue
        if claim.error and claim.error == block.claim.error:
            return k
        if claim.observed is not None and block.claim.observed is not None:
            if _flat(claim.observed) == _flat(block.claim.observed):
                return k
    return -1


def _parses(expression: str) -> bool:
    try:
        ast.parse(expression.strip(), mode="eval")
    except SyntaxError:
        return False
    return True


def setup_lines(tree: ast.AST, blocks: list[Block]) -> str | None:
    """The nearest of `blocks` that binds every name `tree` reads, as it runs (a continuation
    with its earlier block), without its last line unless that line binds one of those names
    (the last line is the block's own failing check); None when no block binds them all."""
    needed = _free(tree)
    for block in reversed(blocks):
        code = block.run or block.code
        body = ast.parse(code).body
        if body and not (_binds_top(body[-1]) & needed):
            body = body[:-1]
        if needed <= set().union(*(_binds_top(node) for node in body)):
            lines = code.splitlines()
            return "".join("\n".join(lines[first_line(node) - 1 : node.end_lineno]) + "\n" for node in body)
    return None


def binding_lines(tree: ast.AST, blocks: list[Block]) -> str | None:
    """Only the top-level lines of `blocks` that bind what `tree` reads (and what those lines
    read), the nearest binding winning, in order; None when a name stays unbound."""
    statements = [(node, (b.run or b.code).splitlines()) for b in blocks for node in ast.parse(b.run or b.code).body]
    needed = _free(tree)
    chosen = []
    for node, lines in reversed(statements):
        if _binds_top(node) & needed:
            chosen.append((node, lines))
            needed = (needed - _binds_top(node)) | (_reads(node) - set(dir(builtins)) - _binds(node))
    if needed:
        return None
    return "".join("\n".join(lines[first_line(node) - 1 : node.end_lineno]) + "\n" for node, lines in reversed(chosen))


def _binds_top(node: ast.stmt) -> set[str]:
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return {(a.asname or a.name).split(".")[0] for a in node.names}
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {node.name}
    if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.With, ast.For)):
        return _binds(node)
    return set()


def setup_variants(code: str) -> list[str]:
    """The block as shown, then the block without one setup line (a top-level expression, or
    an assignment whose names nothing after it reads), first lines first: a setup line that
    crashes on both states is the one deterministic fix."""
    tree = ast.parse(code)
    lines = code.splitlines()
    out = [code]
    body = tree.body
    # a call of a function the block defines is the test's check helper (nameparser's
    # `m(hn.initials(), 'J. A. K.', hn)`): a requirement, never setup
    helpers = {n.name for n in body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    for k, node in enumerate(body[:-1]):
        if len(out) >= MAX_VARIANTS:
            break
        later = _reads(ast.Module(body=body[k + 1 :], type_ignores=[]))
        called = node.value.func if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) else None
        if isinstance(called, ast.Name) and called.id in helpers:
            continue
        if isinstance(node, ast.Expr) and not isinstance(node.value, ast.Constant):
            pass
        elif isinstance(node, (ast.Assign, ast.AnnAssign)) and not (_binds(node) & later):
            pass
        else:
            continue
        kept = lines[: node.lineno - 1] + lines[(node.end_lineno or node.lineno) :]
        out.append("\n".join(kept).rstrip() + "\n")
    return out


def _primed_variant(block: Block, evidence: list[FailureEvidence]) -> str:
    """The block with the calls the test makes first on the function it checks (the evidence's
    `primed` snippet), when the block shows its test's whole snippet: the state those calls
    leave (a cache) may be what fails. "" otherwise."""
    if block.claim.continuation or block.run not in ("", block.code):
        return ""
    code = _flat(block.code)
    found = next((f for f in evidence if f.primed and f.reproduction and _flat(f.reproduction) == code), None)
    return found.primed.rstrip() + "\n" if found else ""


# ---------------------------------------------------------------- running them


def _execute(
    task: Task, backend, repo_path: Path, blocks: list[Block], indices: list[int], timeout_s: float, js: bool = False
) -> dict[str, dict[str, tuple[str, str]]] | str:
    """{case id: {state: (outcome, ""), "seen-" + state: (outcome, what the run did)}} for
    both states, or why nothing ran. `js`: JS blocks, run by the node:test probe."""
    if backend is None or not hasattr(backend, "run_tree"):
        return "not executed: no sandbox backend"
    cases = []
    for i, block in zip(indices, blocks):
        for j, variant in enumerate(block.variants):
            # a continuation, or a block on an earlier one's setup, runs after that block's lines
            code = block.runs[j] if block.kind == "inline" else (block.run or block.code).replace(block.code, variant)
            code = code if js else future_imports_first(code)
            seen = j == 0 or block.kind == "inline"  # what happened is recorded from the way that is kept
            case = {"id": f"b{i}v{j}", "code": code, "claim": block.claim.to_spec(), "seen": seen}
            if js:  # a module when it imports or exports (else CommonJS, where `require` works)
                case["module"] = bool(re.search(r"^\s*(?:import\s*[\w{*'\"]|export\s)", code, re.M))
            cases.append(case)
    spec = {"timeout_s": timeout_s, "cases": cases, "build_timeout_s": JS_BUILD_TIMEOUT_S, "address": ADDRESS}
    probe, probe_file = (JS_PROBE, JS_PROBE_FILE) if js else (PROBE, PROBE_FILE)
    extra = {"runner": JS_RUNNER} if js else {}
    out: dict[str, dict[str, tuple[str, str]]] = {c["id"]: {} for c in cases}
    withheld = withheld_tests(task)
    for state, patches in (("buggy", [task.bug_patch]), ("fixed", [])):
        with tempfile.TemporaryDirectory(prefix="sebgen-repro-") as tmp:
            tree = Path(tmp) / "tree"
            try:
                prepare_tree(repo_path, task.base_commit, patches, tree)
                apply_patch(tree, withheld, reverse=True)  # the solver's tree: no hidden test to lean on
                (tree / PROBE_DIR).mkdir(exist_ok=True)
                shutil.copy(probe, tree / probe_file)
                (tree / SPEC_FILE).write_text(json.dumps({**spec, "state": state}, sort_keys=True), encoding="utf-8")
                if not js:
                    (tree / PROBE_INI).write_text("[pytest]\n", encoding="utf-8")
                run = backend.run_tree(repo_path, task.base_commit, tree, [probe_file], untrusted=True, **extra)
            except (SandboxError, PatchError) as exc:
                return f"not executed: {exc}"
        if run.timed_out or run.broken:
            return f"not executed: the {state} state's run {run.note or 'gave no verdict'}"
        if not any(re.search(rf"-{state}\]$", nodeid) for nodeid in run.outcomes):
            # the project's pytest settings did not collect the probe: nothing was seen either way
            return f"not executed: the {state} state's run reported no reproduction" + (
                f" ({run.note})" if run.note else ""
            )
        for nodeid, outcome in run.outcomes.items():
            m = re.search(r"\[(b\d+v\d+)-(buggy|fixed|seen)\]$", nodeid)
            if not m or m.group(1) not in out:
                continue
            if m.group(2) == "seen":
                message = str((run.failures.get(nodeid) or {}).get("message", ""))
                out[m.group(1)][f"seen-{state}"] = (outcome, message.strip()[:300])
            elif m.group(2) == state:
                out[m.group(1)][state] = (outcome, "")
    return out


_FUTURE_IMPORT = re.compile(r"^from __future__ import [^\n]+\n?", re.M)


def future_imports_first(code: str) -> str:
    """`code` with its `from __future__` imports moved to its top: a block run after an earlier
    one's lines (its setup, or the helpers it defines) would have them mid-file, a SyntaxError
    on both states (h2 0d72e342: two blocks were dropped for it)."""
    futures = list(dict.fromkeys(m.group(0).rstrip("\n") for m in _FUTURE_IMPORT.finditer(code)))
    if not futures or code.startswith(futures[0]) and len(futures) == len(_FUTURE_IMPORT.findall(code)) == 1:
        return code
    return "\n".join(futures) + "\n" + _FUTURE_IMPORT.sub("", code)


def withheld_tests(task: Task) -> str:
    """The part of `test_patch` a solver's tree lacks: every file's change but those the
    statement gives in full. A snippet that leans on a hidden test module (an `ext://` name in
    it, a new asset it reads) fails in the solver's tree, so it runs without them, on both states."""
    given = test_inputs_given_in_full(task.problem_statement)
    return patch_sections(task.test_patch or "", lambda path: path not in given)


def _decide(block: Block, i: int, results: dict) -> ReproductionCheck:
    check = _verdict(block, i, results)
    check.kind = block.kind
    return check


def _verdict(block: Block, i: int, results: dict) -> ReproductionCheck:
    claim = block.claim.describe() if not block.claim.continuation else "the rest of an earlier block"
    first = results.get(f"b{i}v0", {})
    buggy, fixed = ((first.get(f"seen-{s}") or ("", ""))[1] for s in ("buggy", "fixed"))
    for j, variant in enumerate(block.variants):
        got = results.get(f"b{i}v{j}", {})
        if all((got.get(s) or ("",))[0] == "passed" for s in ("buggy", "fixed")):
            if j == 0 or block.kind == "inline":  # an inline claim's text is the same whichever way it ran
                buggy, fixed = ((got.get(f"seen-{s}") or ("", ""))[1] for s in ("buggy", "fixed"))
                return ReproductionCheck(block.code, "kept", "behaves as stated on both states", claim, buggy, fixed)
            longer = len(variant.splitlines()) > len(block.code.splitlines())
            return ReproductionCheck(
                block.code,
                "rewritten",
                f"{_PUT_BACK if longer else 'a setup line left out'}: the block as shown did not behave as stated",
                claim,
                buggy,
                fixed,
                shown=variant,
            )
    if not first:
        return ReproductionCheck(block.code, "dropped", "no outcome reported", claim, buggy, fixed)
    wrong = []
    if (first.get("buggy") or ("",))[0] != "passed":
        wrong.append(f"on the buggy state it {buggy or 'gave no outcome'}, not as stated ({claim})")
    if (first.get("fixed") or ("",))[0] != "passed":
        wrong.append(f"on the fixed state it {fixed or 'gave no outcome'}")
    return ReproductionCheck(block.code, "dropped", "; ".join(wrong), claim, buggy, fixed)


# ---------------------------------------------------------------- the statement after the check


def _rewrite(statement: str, blocks: list[Block], checks: list[ReproductionCheck], stands_alone=None) -> str:
    """The statement with rewritten blocks replaced and dropped ones left out, together with
    the paragraph that introduces a dropped block (ending in ':') and the one right after it
    that describes its outcome, unless `stands_alone(paragraph, block)` says that paragraph
    needs no block (it names the call and the value the runner saw)."""
    text = statement
    untold = 0  # failing cases whose block went with nothing said in its place
    for block, check in sorted(zip(blocks, checks), key=lambda bc: bc[0].start, reverse=True):
        if block.kind == "inline":
            if check.verdict == "dropped" and text[block.start : block.end] == block.line:  # not gone with a block
                text = text[: block.start] + text[block.end :]
            continue
        if check.verdict == "kept" and check.reason.startswith(_HOLDS_UNTIL_REST):
            # the paragraph right under it told what it does: gone, unless it introduces the rest
            m = re.match(r"\s*\n\s*\n([^\n]+(?:\n[^\n]+)*)", text[block.end :])
            if m and "```" not in m.group(1) and not m.group(1).rstrip().endswith(":"):
                text = text[: block.end] + "\n\n" + text[block.end + m.end() :].lstrip()
        elif check.verdict == "rewritten":
            fence = text[block.start : block.end]
            head = fence.split("\n", 1)[0]
            text = text[: block.start] + f"{head}\n{check.shown}```" + text[block.end :]
        elif check.verdict == "dropped":
            start, end = block.start, block.end
            before = text[:start]
            intro = re.search(r"(?:^|\n\s*\n)([^\n`][^\n]*:)\s*$", before)
            if intro and "```" not in intro.group(1) and intro.start(1) > 0:  # never the title
                start = intro.start(1)
            after = text[end:]
            m = re.match(r"\s*\n\s*\n([^\n]+(?:\n[^\n]+)*)", after)
            kept = ""
            if m and _about_block(m.group(1)) and "```" not in m.group(1):
                lines = m.group(1).strip().split("\n")
                # the outcome without the list of checks after it (they may read the block's names)
                cut = next((k for k, ln in enumerate(lines) if ln.startswith("- ")), len(lines))
                cut -= 1 if 0 < cut < len(lines) and lines[cut - 1].rstrip().endswith(":") else 0
                first = "\n".join(lines[:cut])
                if first and stands_alone is not None and stands_alone(first, block):
                    kept = first + "\n\n"
                end += m.end()
            if not kept:  # the value the block's check needs in full, given right under it, goes too
                whole = _WHOLE_PART.match(text[end:])
                end += whole.end() if whole else 0
                # a repeat runs what an earlier block shows: its case is told there
                untold += not block.claim.continuation and not check.reason.startswith(_REPEATS)
            text = text[:start].rstrip() + "\n\n" + kept + text[end:].lstrip()
    if untold:
        text = with_more_untold(text, untold)
    if any(c.verdict == "dropped" for c in checks):
        if not python_blocks(text) and not js_blocks(text):
            text = without_snippet_talk(text)
        text = without_dangling_heads(text)  # after the snippet talk: a list of it may have gone
        text = with_first_block_led(text)
    return re.sub(r"\n{3,}", "\n\n", text).strip()


# a paragraph ending in ':' over a ```text block: the whole value a snippet's check requires
_WHOLE_PART = re.compile(r"\s*\n\s*\n[^\n`][^\n]*:\n\s*\n```text\n.*?\n```", re.S)
