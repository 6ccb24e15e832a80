"""The offline writer: an issue-style problem statement from commit facts and instruction directives.

Which directives it obeys is the table in :mod:`llm.offline.directives`.

Examples: when at least half of ``examples`` (similar successful statements) carry a
reproduction or an expected/actual section, the writer imitates that structure.

Sampling: ``max_tokens`` caps the whole answer at about 0.75 words per token (a tiny cap
truncates the statement to a vague title); ``temperature`` above 1.0 drops each directive with
probability ``min(0.9, 0.6 * (T - 1))``; ``top_p`` widens the set of phrasings drawn from
(``ceil(top_p * n)`` of ``n``; temperature below 0.05 is greedy). All draws come from
``random.Random(sha256(context, instructions, sampling))``.
"""

from __future__ import annotations

import ast
import builtins
import collections
import copy
import functools
import io
import pprint
import random
import re
import textwrap
import tokenize
from dataclasses import dataclass, replace

from records import MIRRORED_ORDERINGS, FailureEvidence, without_parameters

from ..leakage import leak_report, quotes_fix_expression
from ..markdown import (
    DEFINED_ABOVE,
    EVIDENCE_HEADS,
    FENCE,
    MORE_HEADS,
    SAME_SETUP,
    import_only,
    import_only_sentence,
    lacked_import,
    test_input_part,
    untold_sentence,
    without_dangling_heads,
    without_snippet_talk,
)
from ..python_source import first_line, helper_definitions, unparse
from .assertions import _OP_PHRASE, Check, _actual_sentence, _check_sentence, best_check
from .call_forms import CallForm, bare_decorator_form
from .directives import _ACTUAL, _EXPECTED, parse_directives
from .evidence import failures_of
from .subject import (
    _request,
    _symptom,
    body_sentences,
    clean_subject,
    is_vague,
    split_subject,
    tells_how,
    without_orphans,
)
from .text import (
    _cap_words,
    _capitalize,
    _fmt,
    _nontrivial,
    _Phraser,
    _strip_leaks,
    _word_count,
    and_listed,
    fitted,
    seeded_rng,
)

WORDS_PER_TOKEN = 0.75
JSON_OVERHEAD_WORDS = 6  # keys and quoting of the answer object


@dataclass
class _Facts:
    strategy: str
    repo: str
    subject: str
    kind: str
    verb: str
    rest: str
    functions: list[dict]
    checks: list[Check]
    added_lines: list[str]
    examples: list[str]
    bodies: list[str]  # the commit body, then the pull request's title (when not the subject) and body
    issues: list[str]
    test_lines: dict[str, list[str]]  # failing test id -> the lines the change adds to it
    failures: list[FailureEvidence]  # per failing test, how it fails on the buggy code (the context's "failures")
    intents: dict[str, str]  # failing test id -> its own description of what it requires (`test_intent`)
    test_inputs: list[dict]  # [{"path", "diff", "omitted"}]: files the failing tests read that change with them
    test_data: list[str]  # files the failing tests read that the solver's tree has as the tests want them
    interfaces: list[dict]  # the callables the fix adds or extends, as it defines them (`new_interfaces`)


def _facts(context: dict) -> _Facts:
    strategy = str(context.get("strategy_type") or "BUG_FIX").upper()
    subject = str(context.get("commit_subject") or "")
    pr_title = str(context.get("pr_title") or "")
    bodies = [str(context.get("commit_body") or "")]
    if pr_title and is_vague(subject) and not is_vague(pr_title):  # "Update x.py" on a well-titled PR
        subject, pr_title = pr_title, subject
    bodies += [pr_title, str(context.get("pr_body") or "")]
    if is_vague(subject):  # "Fixes issue #12": the first telling sentence of the bodies speaks instead
        telling = body_sentences("\n\n".join(bodies), False, skip=(subject,), keep_changes=True)
        # how the code fails inside (dynaconf's "`handle_metavalues` returned without recursing") is no title
        telling = [sentence for sentence in telling if not tells_how(sentence)]
        subject = telling[0].rstrip(".") if telling else subject
    subject = clean_subject(subject) or subject
    kind, verb, rest = split_subject(subject)
    functions = [f for f in (context.get("touched_functions") or []) if isinstance(f, dict) and f.get("name")]
    failing = [t for t in (context.get("failing_tests") or []) if isinstance(t, dict)]
    checks = [best_check(str(t.get("id", "")), str(t.get("assertion", ""))) for t in failing]
    test_lines = {str(t.get("id", "")): [str(x) for x in (t.get("added_lines") or [])] for t in failing}
    intents = {str(t.get("id", "")): str(t["intent"]) for t in failing if t.get("intent")}
    added = [str(x) for x in (context.get("added_lines") or [])]
    examples = [str(x) for x in (context.get("examples") or [])]
    issues = [str(x) for x in (context.get("issues") or []) if str(x).strip()]
    failures = [_readable(f) for f in failures_of(context) if f.derived]
    return _Facts(
        strategy,
        str(context.get("repo") or "the project"),
        subject,
        kind,
        verb,
        rest,
        functions,
        checks,
        added,
        examples,
        bodies,
        issues,
        test_lines,
        failures,
        intents,
        [t for t in (context.get("test_inputs") or []) if isinstance(t, dict) and t.get("path") and t.get("diff")],
        [str(p) for p in (context.get("test_data") or []) if isinstance(p, str) and p],
        [
            i
            for i in (context.get("new_interfaces") or [])
            if isinstance(i, dict) and i.get("name") and i.get("signature")
        ],
    )


_TITLES = {
    "BUG_FIX": ["{Symptom}", "Bug: {symptom}", "Unexpected behaviour: {symptom}", "{Symptom} in {repo}"],
    "FEATURE_ADD": [
        "Feature request: {request}",
        "Please add {request}",
        "Request: {request}",
        "Missing capability: {request}",
    ],
    "REFACTOR": ["Refactor request: {request}", "API change: {request}", "Restructure: {request}"],
    "TEST_DRIVEN": ["Specification: {request}", "Implement: {request}", "Make the specification pass: {request}"],
    "HYBRID": [
        "Bug and enhancement: {symptom}",
        "Fix and extend: {request}",
        "{Symptom} (needs a fix and an extension)",
    ],
    "SYNTHETIC": ["Regression: {symptom}", "Broken behaviour: {symptom}", "{Symptom} after recent changes"],
}
_OPENINGS = {
    # the title already names the symptom: openings say where and how it shows, never restate it
    "BUG_FIX": [
        "The current code of {repo} gets this wrong.",
        "This goes wrong in {repo}; a short snippet follows.",
        "Here is a small case where {repo} misbehaves.",
        "A minimal snippet against {repo} shows it.",
    ],
    "FEATURE_ADD": [
        "{Repo} does not offer {request} yet, and I would like to use it.",
        "It would be useful if {repo} provided {request}.",
        "I would like {repo} to gain {request}; the examples below show how it should behave.",
    ],
    "REFACTOR": [
        "The current structure of {repo} makes this awkward; please {request}.",
        "To keep {repo} maintainable, {request} is needed.",
        "I would like {repo} to {request}, exposing the API described below.",
    ],
    "TEST_DRIVEN": [
        "Implement the behaviour specified below so that the listed tests pass.",
        "{Repo} must meet the following specification; the tests below describe it.",
        "The following specification is not met yet by {repo}.",
    ],
    "HYBRID": [
        "In {repo}, the problem in the title needs both a fix and a small extension.",
        "Two related problems in {repo}: the current behaviour is wrong, and {request} is not available.",
    ],
    "SYNTHETIC": [
        "After a recent change, {repo} shows the problem described below.",
        "{Repo} regressed; the failing check is below.",
    ],
}
_FUNCTION_LINES = [
    "The problem is in `{name}` (`{signature}`) in `{file}`.",
    "Affected function: `{name}` in `{file}`, signature `{signature}`.",
    "It concerns `{signature}` defined in `{file}`.",
]
_REPRO_HEADS = ["Steps to reproduce:", "How to reproduce:", "Reproduction steps:"]
_HINTS = [
    "Look at `{name}` in `{file}`.",
    "The behaviour comes from `{name}` (`{file}`).",
    "Start from `{file}`, function `{name}`.",
]
_FIX_INTROS = ["Suggested fix:", "A possible fix:", "The fix is probably something like:"]


def _signature(fn: dict) -> str:
    sig = str(fn.get("signature") or fn["name"]).strip()
    sig = re.sub(r"^\s*(?:async\s+)?def\s+", "", sig).rstrip(":").strip()  # not a line of the patch
    return sig or str(fn["name"])


def _effective_directives(facts: _Facts, instructions: str, temperature: float, rng: random.Random) -> set[str]:
    directives = parse_directives(instructions)
    if facts.examples:  # imitate the structure of most similar successes
        half = len(facts.examples) / 2
        if sum("reproduc" in e.lower() for e in facts.examples) >= half:
            directives.add("reproduce")
        if sum(bool(_EXPECTED.search(e) and _ACTUAL.search(e)) for e in facts.examples) >= half:
            directives.add("expected_actual")
    drop_p = min(0.9, max(0.0, 0.6 * (temperature - 1.0)))
    for name in sorted(directives):
        if rng.random() < drop_p:  # a hot sampler forgets instructions
            directives.discard(name)
    return directives


def write_statement(
    context: dict, instructions: str, temperature: float = 0.7, top_p: float = 1.0, max_tokens: int = 1024
) -> dict:
    """An issue-style ``{"problem_statement", "hints_text"}`` following the instruction directives."""
    rng = seeded_rng("write_statement", _seeded_part(context), instructions, temperature, top_p, max_tokens)
    facts = _facts(context)
    directives = _effective_directives(facts, instructions, temperature, rng)
    angle = "different_angle" in directives
    phr = _Phraser(rng, temperature, top_p, reverse=angle)
    checks = facts.checks[::-1] if angle else facts.checks
    fn0 = facts.functions[0]["name"] if facts.functions else ""
    fallback = f"`{fn0}` does not behave as expected" if fn0 else "the behaviour is wrong"
    groups = distinct_failures(facts.failures)  # the executed failure: the values a solver can act on
    lead = _with_touched_function(groups[0][0], facts.functions) if groups else None
    # a name the change adds, where the failure only says it is absent: asked for, never a crash story
    missing = {
        f.test_id: name for g in groups for f in g if (name := missing_name(f, facts.functions, facts.added_lines))
    }
    # a test whose module lacks a name the change adds and whose own lines never use it fails
    # only through that import: counted once, beside the tests that show the name in use
    defined = _defined_by(facts.added_lines)
    only_import = _only_import(groups, missing, defined)
    groups = [kept for g in groups if (kept := [f for f in g if f.test_id not in only_import])]
    # the error names only the first name a test module lacks: the others it imports are asked for too
    also_new = _also_imported(facts.failures, set(missing.values()), defined)
    # a call form the tests use that no touched signature offers (a function as a bare decorator)
    forms = _call_forms(groups, facts.functions, missing)
    asked = missing.keys() | forms.keys()
    # the request leads the statement, unless it is only for a private helper (humanize's tests
    # call `time._rounding_by_fmt`): the public calls that go wrong say what the change is for
    private = {t for t, name in missing.items() if name.split(".")[-1].startswith("_")}
    if lead is not None and asked and lead.test_id not in asked - private:
        groups = sorted(groups, key=lambda g: (g[0].test_id in private, g[0].test_id not in asked))
        lead = _with_touched_function(groups[0][0], facts.functions)
    lead_missing = missing.get(lead.test_id, "") if lead else ""
    lead_form = forms.get(lead.test_id) if lead else None
    request = _request(facts.kind, facts.verb, facts.rest, facts.subject) or fallback
    if lead is not None and (lead_missing or lead_form or not confirmed(request, lead)):
        request = _evidence_request(lead, lead_missing, list(forms.values()) if lead_form else None)
    values = {
        "repo": facts.repo,
        "symptom": _lead_symptom(lead, _symptom(facts.kind, facts.verb, facts.rest, ""))
        if lead
        else _symptom(facts.kind, facts.verb, facts.rest, fallback),
        "request": request,
    }
    strategy = facts.strategy if facts.strategy in _TITLES else "BUG_FIX"
    if (lead_missing or lead_form) and strategy in ("BUG_FIX", "SYNTHETIC"):
        strategy = "FEATURE_ADD"  # the evidence shows a missing piece: a request, whatever the strategy
    concise, detailed = "concise" in directives, "detailed" in directives

    # a title ending in ':' (an error message's own "Code format mismatch:") reads as a heading
    sections = [_fmt(phr.pick(_TITLES[strategy]), values).rstrip(": ")]
    opening = _fmt(phr.pick(_OPENINGS[strategy]), values)
    # a developer's body often says how the fix works: whatever the prompt, a statement keeps only
    # its symptoms (no real issue tells the solver the change to make; the leak check misses prose)
    body = body_sentences("\n\n".join(facts.bodies), True, skip=(facts.subject,))
    fix = "".join(f"+{line}\n" for line in facts.added_lines)
    fix_only = _fix_only_names(facts)

    def tells_no_fix(sentence: str) -> bool:
        return (
            not leak_report(sentence, fix).score
            and not quotes_fix_expression(sentence, facts.added_lines)
            and not fix_only & set(re.findall(r"[A-Za-z_]\w*", sentence))
        )

    safe = [sentence for sentence in body if tells_no_fix(sentence)]
    # a test's docstring may quote the fix or name what only the fix has, as a body may
    facts = replace(facts, intents={t: i for t, i in facts.intents.items() if tells_no_fix(i)})
    body = without_orphans(safe, body)[
        : 0 if concise else 4 if detailed else 2
    ]  # issues and PRs are never cited: the solver cannot read them
    opening_at = len(sections)
    sections.append("")  # the opening, once it is known whether a block is shown

    functions_at = len(sections)
    if "name_function" in directives or strategy == "REFACTOR":
        sections.append(_functions_section(facts, phr, api=strategy == "REFACTOR"))
    named_functions = len(sections) > functions_at and bool(sections[functions_at])
    if strategy == "TEST_DRIVEN":
        sections.append(_evidence_spec(groups) if groups else _spec_section(facts, checks))
    evidence = inputs = interface = ""
    # the lead's own words open the statement when the prose names no call: never said twice
    opens_with_intent = lead is not None and not _subject(lead, "").startswith("`")
    intents = {t: i for t, i in facts.intents.items() if not (opens_with_intent and t == lead.test_id)}
    if groups:  # one failing check per test, always the one that fails, with its values
        limit = 1 if concise else 5 if detailed else 3
        # the failing tests past the evidence (64 of add-trailing-comma's 127) are counted too
        grouped = {f.test_id for g in groups for f in g} | only_import.keys()
        unseen = len(facts.test_lines.keys() - grouped - {""})
        # the test's own code, never the fix's: the leak filter below must not cut lines out of it
        evidence_state = phr.rng.getstate()

        def section(*fewer: int) -> str:  # `fewer`: a shorter form, when the words' budget asks for one
            reproduce = "reproduce" in directives
            more = {"intents": intents, "unseen": unseen, "only_import": only_import, "also_new": also_new}
            return evidence_section(groups, phr, reproduce, limit, missing, forms, *fewer, **more)

        evidence = section()
        sections.append(evidence)
        interface = _interface_section(facts.interfaces, missing, facts.failures, also_new, phr)
        sections.append(interface)
        if interface and named_functions:
            # the function the user needs is named with its signature there: the touched ones
            # (`Plugin`, `main`) would only point at where the fix goes
            sections[functions_at] = ""
        inputs = _test_inputs_section(facts.test_inputs, facts.test_data)
        sections.append(inputs)
        if "expected_actual" in directives:
            sections.append(evidence_expected_actual(lead, strategy, lead_missing, shown="```python" in evidence))
    else:
        inputs = _test_inputs_section(facts.test_inputs, facts.test_data)
        sections.append(inputs)
        # a bare test-local name (`rv`) means nothing without the test's lines: no step speaks of it
        told = [c for c in checks if not (_says_little(c) and c.kind != "raw" and not facts.test_lines.get(c.test_id))]
        if "reproduce" in directives and (told or not checks):
            sections.append(_repro_section(told, phr, facts, limit=1 if concise else 3))
        if "expected_actual" in directives and (told or not checks):
            sections.append(_expected_actual_section(told, strategy, values, fn0))
    if "test_behaviour" in directives and (groups or checks) and strategy != "TEST_DRIVEN":
        lines = (
            [f"- {_capitalize(_requirement(g[0]))}." for g in groups[:5]]
            if groups
            else [f"- {c.test_name}: {_check_sentence(c)}." for c in checks[:5]]
        )
        sections.append("The failing tests check that:\n" + "\n".join(lines))
    if "name_tests" in directives and checks and strategy != "TEST_DRIVEN":
        sections.append("Failing tests:\n" + "\n".join(f"- `{c.test_id}`" for c in checks[: 3 if concise else 10]))
    if detailed:
        files = sorted({str(f.get("file")) for f in facts.functions if f.get("file")})
        where = f" The code involved lives in {', '.join(f'`{f}`' for f in files)}." if files else ""
        sections.append(
            f"Additional context: this affects {facts.repo}.{where} "
            "Anyone relying on this behaviour gets wrong results until it is fixed."
        )
    if "no_leak" not in directives:
        sections.append(_suggested_fix(facts.added_lines, phr, rng))
    if "```python" not in evidence and _ANNOUNCES_BLOCK.search(opening):  # no block is shown: none is announced
        opening = _fmt(next(o for o in _OPENINGS[strategy] if not _ANNOUNCES_BLOCK.search(o)), values)
    if angle and fn0:
        opening = f"From the point of view of code calling `{fn0}`: {opening[:1].lower()}{opening[1:]}"
    # the prose names no call: the test's own words say what it requires, with or without the block
    intent = facts.intents.get(lead.test_id, "") if lead is not None and not _subject(lead, "").startswith("`") else ""
    if intent:
        body.append(f'What the failing test requires, in its own words: "{intent}"')
        # what it meets today, in a sentence that needs no block (a value the runner cut is never quoted)
        if lead.error and _short(lead.error, 120) and "…" not in lead.error:
            body.append(f"On the current code it fails with {_span(lead.error)}.")
    sections[opening_at] = " ".join([opening, *body])

    if "no_leak" in directives:
        # the test's own calls are no leak where a title or a sentence repeats them (deepdiff's
        # `DeepDiff(a, b, ignore_uuid_types=True)` shares `ignore_uuid_types = True` with the fix)
        own = [c for f in facts.failures for c in (f.call, f.check) if c]
        sections = [
            s if s and s in (evidence, inputs, interface) else _strip_leaks(s, facts.added_lines, own) for s in sections
        ]
    statement = "\n\n".join(s for s in sections if s)
    budget = max(4, int(max_tokens * WORDS_PER_TOKEN) - JSON_OVERHEAD_WORDS)
    if evidence and evidence in sections and _word_count(statement) > budget:
        # the cap would cut the evidence's end, the cases it counts with it: say less per test instead
        room = budget - (_word_count(statement) - _word_count(evidence))
        later = phr.rng.getstate()
        phr.rng.setstate(evidence_state)
        shorter = fitted(
            section,
            phr,
            room,
            lambda _: _fewer_evidence(len(groups)),
        )
        phr.rng.setstate(later)
        if ("```python" in shorter) == ("```python" in evidence):  # the opening announced a block or none
            sections[sections.index(evidence)] = shorter
            statement = "\n\n".join(s for s in sections if s)
    statement = _cap_words(statement, budget)
    if not re.search(rf"{FENCE}(?!text)\w", statement):  # no block shown: no sentence speaks of one
        statement = re.sub(r"\n{3,}", "\n\n", without_dangling_heads(without_snippet_talk(statement)))
    hints = ""
    left = budget - _word_count(statement)
    if "hint" in directives and left >= 5:
        hints = _cap_words(_hints(facts, checks, phr), min(40, left))
    return {"problem_statement": statement, "hints_text": hints}


def _test_inputs_section(inputs: list[dict], data: list[str] = ()) -> str:
    """The change to the files the failing tests read, as diffs: the tests are withheld, so the
    input they check (flake8-bugbear's `tests/eval_files/b902.py`) is not in the solver's tree,
    and a snippet reading it passes there. The files they read that the tree already has as the
    tests want them (mdit-py-plugins' `tests/fixtures/subscript.md`, the cases a new plugin must
    render) are named. "" when there is neither."""
    parts = []
    if data:
        named = ", ".join(_span(p) for p in data[:6])
        parts.append(
            f"The cases and results the failing tests check are in {named}, already in the tree as the tests want them."
        )
    if not inputs:
        return "\n\n".join(parts)
    names = ", ".join(_span(i["path"]) for i in inputs)
    parts.append(
        f"The failing tests read {names}, which change{'s' if len(inputs) == 1 else ''} with them; "
        "apply this to see the failure:"
    )
    parts += [test_input_part(item["path"], str(item["diff"]), item.get("omitted") or 0) for item in inputs]
    return "\n\n".join(parts)


def _seeded_part(context: dict) -> dict:
    """The context the writer's choices are seeded on: without the tests' descriptions
    (`intent`), which only add a sentence where the prose names no call, and the tests' input
    files (`test_inputs`, `test_data`), which only add their section."""
    context = {k: v for k, v in context.items() if k not in ("test_inputs", "test_data")}
    failing = context.get("failing_tests")
    if not isinstance(failing, list):
        return context
    tests = [{k: v for k, v in t.items() if k != "intent"} if isinstance(t, dict) else t for t in failing]
    return {**context, "failing_tests": tests}


_CODE_SHAPED = re.compile(r"[a-z]+[A-Z]\w*|[A-Z][a-z0-9]+[A-Z]\w*|\w*_\w+")  # fooBar, FooBar, foo_bar


def _fix_only_names(facts: _Facts) -> set[str]:
    """The code-shaped names (`fooBar`, `FooBar`, `foo_bar`) the fix's added lines use and no
    failing test's code does: a body sentence that names one speaks of the fix."""
    tests = " ".join(
        [*(f.reproduction or "" for f in facts.failures), *(ln for lines in facts.test_lines.values() for ln in lines)]
    )
    known = set(re.findall(r"[A-Za-z_]\w*", tests))
    names = {n for line in facts.added_lines for n in re.findall(r"[A-Za-z_]\w*", line)}
    return {
        n for n in names - known if _CODE_SHAPED.fullmatch(n) and not hasattr(builtins, n)
    }  # `TypeError` is a symptom


MAX_INTERFACES = 4  # signatures a request states, at most
MAX_SIGNATURE = 160  # characters of a new callable's signature stated, at most
_INTERFACE_HEADS = ["Proposed interface:", "The API this asks for:", "How it should be called:"]


def _interface_section(
    interfaces: list[dict],
    missing: dict[str, str],
    failures: list[FailureEvidence],
    also_new: dict[str, list[str]],
    phr: _Phraser | None = None,
) -> str:
    """The signatures of what the statement asks for, as the fix defines them: a new function or
    class by its name (`ParserContext(whitespace: str | None = None)`), a new keyword by the
    callable that refuses it today and the parameter it gains (`_checkFile` gains `style: str =
    'numpy'`). The tests' examples show a call; the signature settles the rest of the design
    (the parameters' order and defaults) that a solver would otherwise guess."""
    errors = {f.test_id: f.error or "" for f in failures}
    names = {name for test_id, name in missing.items() if not _UNEXPECTED_KEYWORD.match(errors.get(test_id, ""))}
    names |= {name for listed in also_new.values() for name in listed}
    # keyword -> the callables refusing it ("" when the error names none: any that gains it)
    keywords: dict[str, set[str]] = {}
    for test_id, name in missing.items():
        if _UNEXPECTED_KEYWORD.match(errors.get(test_id, "")):
            keywords.setdefault(name, set()).add(_refusing_callable(errors[test_id]).split(".")[-1])
    lines: list[str] = []
    for item in interfaces:
        name, signature = str(item["name"]), str(item["signature"])
        short = name.split(".")[-1]
        gained = item.get("new_parameters") or {}
        new = {
            p: str(text) for p, text in gained.items() if p in keywords and (keywords[p] & {short, ""})
        }  # a keyword of this callable's that the tests pass
        if short in names and not gained and len(signature) <= MAX_SIGNATURE:
            line = f"`{_declared(signature, item.get('kind') == 'class')}` in `{item.get('file', '?')}`"
        elif new:  # only what it gains: its other parameters are the buggy code's, which the solver reads
            line = f"`{short}` gains {and_listed([f'`{text}`' for text in new.values()])}"
        else:
            continue
        if line not in lines:
            lines.append(line)
    if not lines:
        return ""
    head = phr.pick(_INTERFACE_HEADS) if phr else _INTERFACE_HEADS[0]
    return head + "\n" + "\n".join(f"- {line}" for line in lines[:MAX_INTERFACES])


def _declared(signature: str, is_class: bool) -> str:
    """A signature as a declaration, never as a call a reader could run with names it lacks:
    `def iter_index(iterable, value, start=0)`; a class by its constructor when its parameters
    would read as a call (`Variable.__init__(self, name, start=0)`)."""
    if signature.startswith("class "):
        return signature
    if not is_class:
        return f"def {signature}"
    try:
        ast.parse(signature, mode="eval")
    except SyntaxError:
        return signature  # annotated parameters (`ParserContext(whitespace: str | None = None)`) read as one
    name, _, parameters = signature.partition("(")
    if not parameters.strip(") "):
        return signature  # `Plus()`: nothing a reader lacks
    return f"def {name}.__init__(self, {parameters}"


def _functions_section(facts: _Facts, phr: _Phraser, api: bool) -> str:
    """The touched functions by name and signature: those the failing tests' code calls first
    (the function the user needs), never a bare dunder (`__init__(self)` names no class)."""
    code = "\n".join(f"{f.reproduction or ''}\n{f.call or ''}\n{f.check or ''}" for f in facts.failures)
    named = [f for f in facts.functions if not re.fullmatch(r"__\w+__", str(f["name"]))]
    fns = sorted(named, key=lambda f: not re.search(rf"(?<![\w]){re.escape(str(f['name']))}\b", code))[:3]
    if not fns:
        return ""
    if api:
        return "The new API should provide:\n" + "\n".join(
            f"- `{_signature(f)}` in `{f.get('file', '?')}`" for f in fns
        )
    template = phr.pick(_FUNCTION_LINES)
    return " ".join(template.format(name=f["name"], signature=_signature(f), file=f.get("file", "?")) for f in fns)


def _spec_section(facts: _Facts, checks: list[Check]) -> str:
    if not checks:
        return ""
    spec = [f"- {_check_sentence(c)}." for c in checks[:6] if c.kind != "raw"]
    tests = [f"- `{c.test_id}`" for c in checks]
    head = ["Specification:", *spec, ""] if spec else []
    return "\n".join([*head, "Tests that must pass:", *tests])


def _says_little(check: Check) -> bool:
    """A check that names no call: a bare variable or attribute (`result`), or none at all."""
    return check.kind == "raw" or "(" not in check.call


def _repro_section(checks: list[Check], phr: _Phraser, facts: _Facts, limit: int) -> str:
    head = phr.pick(_REPRO_HEADS)
    steps: list[str] = []
    distinct = list({(c.kind, c.call, c.expected, c.op): c for c in checks[::-1]}.values())[::-1]
    first = distinct[0] if distinct else None
    if first is not None and _says_little(first) and facts.test_lines.get(first.test_id):
        # `result == 3` or a helper's check: the test's own new lines are the reproduction
        code = "\n".join(facts.test_lines[first.test_id])
        return (
            f"{head}\n1. Run these lines of `{first.test_id}`.\n2. They fail on the current code."
            f"\n\n```python\n{fence_safe(code)}\n```"
        )
    for check in distinct[:limit]:
        if check.kind == "compare":
            # "Evaluate", not "Call": a step opening with "Call" reads as an instruction to change the code
            steps += [
                f"Evaluate `{check.call}`.",
                f"It should {_OP_PHRASE.get(check.op, 'return')} `{check.expected}`.",
            ]
        elif check.kind == "raises":
            steps += [f"Evaluate `{check.call}`.", f"It should raise `{check.expected}`."]
        elif check.kind == "truthy":
            steps += [f"Evaluate `{check.call}`.", f"It should be {check.expected}."]
        elif check.call:
            steps.append(f"Run `{check.test_id}`; it checks `{check.call}`.")
        else:
            steps.append(f"Run `{check.test_id}`; it fails.")
    if not steps:
        fn = facts.functions[0]["name"] if facts.functions else facts.repo
        steps = [f"Use `{fn}` as described above.", "Observe the wrong result."]
    return head + "\n" + "\n".join(f"{i}. {s}" for i, s in enumerate(steps, 1))


def _expected_actual_section(checks: list[Check], strategy: str, values: dict[str, str], function: str = "") -> str:
    """What should happen and what happens. The commit subject speaks on one side at most:
    a fix's subject describes what goes wrong, a feature's what is wanted."""
    usable = [c for c in checks if c.kind != "raw"]
    if usable:
        c = usable[0]
        expected = _capitalize(_check_sentence(c)) + "."
        actual = _capitalize(_actual_sentence(c, strategy))
        if c.message:
            actual = actual.rstrip(".") + f"; the test reports: `{c.message.strip().rstrip('.')}`."  # verbatim: code
        return f"Expected behaviour: {expected}\nActual behaviour: {actual}"
    subject_side = (
        _capitalize(values["request"]) + " works as described."
        if strategy in ("FEATURE_ADD", "TEST_DRIVEN", "REFACTOR")
        else _capitalize(values["symptom"]) + "."
    )
    named = [c for c in checks if c.call] or checks
    if strategy in ("FEATURE_ADD", "TEST_DRIVEN", "REFACTOR"):
        test_side = (
            f"`{named[0].test_id}` fails because this is not available yet."
            if named
            else "The behaviour described above is not available yet."
        )
        return f"Expected behaviour: {subject_side}\nActual behaviour: {test_side}"
    if named and named[0].call:
        test_side = f"The check `{named[0].call}` in `{named[0].test_id}` holds."
    elif named:
        test_side = f"`{named[0].test_id}` passes."
    else:
        test_side = f"`{function}` gives the correct result." if function else "The call gives the correct result."
    return f"Expected behaviour: {test_side}\nActual behaviour: {subject_side}"


def _suggested_fix(added_lines: list[str], phr: _Phraser, rng: random.Random) -> str:
    """What a careless writer adds when nobody forbade it: a few lines of the gold patch."""
    candidates = [i for i, ln in enumerate(added_lines) if _nontrivial(ln)]
    if not candidates:
        return ""
    start = candidates[int(rng.random() * len(candidates))]
    picked = [added_lines[i] for i in candidates if i >= start][:3]
    if len(picked) < 3:
        picked = [added_lines[i] for i in candidates][-3:]
    code = textwrap.dedent("\n".join(ln.rstrip() for ln in picked))
    return f"{phr.pick(_FIX_INTROS)}\n```python\n{fence_safe(code)}\n```"


def _hints(facts: _Facts, checks: list[Check], phr: _Phraser) -> str:
    parts = []
    if facts.functions:
        f = facts.functions[0]
        parts.append(phr.pick(_HINTS).format(name=f["name"], file=f.get("file", "?")))
    if checks:
        parts.append(f"The behaviour is exercised by `{checks[0].test_id}`.")
    return " ".join(parts) or "Start from the failing tests and the code they call."


# ---------------------------------------------------------------- from the failure evidence

_PLAIN_HEADS = ["Example:", "For example:", "A minimal example:"]
_SHORT = 32


def _span(text: str) -> str:
    """`text` as an inline code span, a runner's repr of a non-finite float written the way
    Python builds it (`nonfinite_written`); backticks inside its strings spelled `\\x60` (the same
    value), any other backtick a quote (a span cannot hold one)."""
    return f"`{fence_safe(nonfinite_written(str(text)), '`').replace('`', chr(39))}`"


def fence_safe(code: str, closing: str = "```") -> str:
    """`code` with each backtick inside a string literal spelled `\\x60` when it holds `closing`
    (what ends the fence or span around it: three backticks for a block, one for a span): the
    same value, and the markdown no longer cut short by the text's own backticks (an expected
    value holding a fenced block). Code that does not tokenize, and raw strings, as given."""
    if closing not in code:
        return code
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(code).readline))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return code
    lines = code.splitlines(keepends=True)
    for token in reversed(tokens):  # from the end: earlier positions stay valid
        prefix = re.match(r"[A-Za-z]*", token.string).group(0).lower()
        if token.type != tokenize.STRING or "`" not in token.string or "r" in prefix:
            continue
        (row, col), (end_row, end_col) = token.start, token.end
        if row != end_row:
            continue  # a triple-quoted string over several lines: left as it is
        line = lines[row - 1]
        lines[row - 1] = line[:col] + token.string.replace("`", "\\x60") + line[end_col:]
    return "".join(lines)


_NONFINITE = ("inf", "nan")
_STRING_LITERAL = re.compile(r"'(?:[^'\\]|\\.)*'" r'|"(?:[^"\\]|\\.)*"')
_REPR_NODES = (ast.Expression, ast.Constant, ast.List, ast.Tuple, ast.Set, ast.Dict, ast.UnaryOp, ast.BinOp)
_REPR_NODES += (ast.USub, ast.UAdd, ast.Add, ast.Sub, ast.Load, ast.Name, ast.Module, ast.Expr, ast.Assert)
_REPR_NODES += (ast.Compare, ast.cmpop)  # pytest's `assert ('', -inf) == ('', -inf, '3')`


def nonfinite_written(text: str) -> str:
    """A value's repr (`[None, nan, -inf, 1e+40]`, only literals besides; or pytest's comparison
    of such values) with each non-finite float as Python builds it (`[None, float('nan'),
    float('-inf'), 1e+40]`): `inf` and `nan` are no names a reader's Python knows. Any other text
    (code that calls or names something) is kept. The one spelling of the writer and the bench."""
    if not re.search(r"\b(?:inf|nan)\b", text):
        return text
    try:
        tree = ast.parse(text.strip())
    except (SyntaxError, ValueError):
        return text
    nodes = list(ast.walk(tree))
    if (
        len(tree.body) != 1
        or any(not isinstance(n, _REPR_NODES) or (isinstance(n, ast.Name) and n.id not in _NONFINITE) for n in nodes)
        or any(isinstance(n, ast.Assert) and n.msg is not None for n in nodes)
    ):
        return text
    # Python writes `inf`, never `+inf`, and ", " between items: `[-inf,+inf]` is a project's
    # own repr (an interval), whose `inf` may be its own object
    if re.search(r"\+\s*(?:inf|nan)\b|,(?![\s\]\)}])", _STRING_LITERAL.sub("''", text)):
        return text
    # a leading sign belongs to the value (`-inf` -> `float('-inf')`); after an operand it is an operator
    pattern = r"(?:(?<=^)|(?<=[\[(,{:=<>]))(\s*)(-?)\b(inf|nan)\b|\b(inf|nan)\b"
    out, last = [], 0
    for match in _tokens_outside_strings(text, pattern):
        space, sign, name = match.group(1) or "", match.group(2) or "", match.group(3) or match.group(4)
        out += [text[last : match.start()], f"{space}float('{sign}{name}')"]
        last = match.end()
    return "".join(out) + text[last:]


def _tokens_outside_strings(text: str, pattern: str):
    """The matches of `pattern` in `text` that start outside its string literals."""
    strings = [m.span() for m in _STRING_LITERAL.finditer(text)]
    for match in re.finditer(pattern, text):
        if not any(a <= match.start() < b for a, b in strings):
            yield match


# a value the runner cut ("'abc...[295 chars]...xyz'", unittest's "[N chars]", the report plugin's
# container cut "[0, 1, ...]"): no literal a solver can use
_CUT = re.compile(r"\[\d+ chars\]|\.\.\.\s*\(?(?:full )?output truncated|, \.\.\.[\]\)}]", re.I)


def _short(text: str, limit: int = _SHORT) -> bool:
    """`text` fits on one line within `limit`, and the runner did not cut it."""
    text = str(text)
    return 0 < len(text) <= limit and "\n" not in text and not _CUT.search(text)


def _readable(f: FailureEvidence) -> FailureEvidence:
    """The failure with a reproduction a solver can run: a test's `nonlocal` (its body now at
    module level, where Python rejects it) becomes `global`; a snippet that does not compile
    is not quotable (counted as unbound); an error names no scope of the test's own."""
    if "<locals>" in f"{f.error}{f.observed}{f.message}":
        f = replace(
            f,
            error=_without_test_scopes(f.error or ""),
            observed=_without_test_scopes(f.observed or ""),
            message=_without_test_scopes(f.message or ""),
        )
    code = f.reproduction or ""
    if not code or f.unbound:
        return f
    if re.search(r"^\s*nonlocal\b", code, re.M) and not _compiles(code):
        code = re.sub(r"^(\s*)nonlocal\b", r"\1global", code, flags=re.M)
    if not _compiles(code):
        return replace(f, unbound=["<does not compile>"])
    call = stated_call(f.call or "", code, f.loop_value or "")
    held = _assigned_call(call, code) if f.kind in ("compare", "truthy") else call  # `assert changed` too
    call = stated_call(held, code, f.loop_value or "") if held != call else call
    if f.kind == "compare" and call and _class_compared(f) and not re.match(r"type\(|.*\.__class__$", call):
        # a helper compared the classes (`a.__class__ == b.__class__`): the call gives an object of it
        call = f"type({call})"
    raised_by = stated_raising_call(f.raised_by, code, f.loop_value or "") if f.raised_by else f.raised_by
    expected = f.expected
    if f.kind == "compare" and (expected or "").strip() in (f.params or {}):  # a parameter: the runner's value
        expected = (f.params or {})[expected.strip()]
    if f.kind == "compare" and expected and _reads_names(expected):
        expected = stated_call(expected, code, f.loop_value or "")  # `should be omd` names nothing to a solver
    # a local that stays one (a long value, a loop's) is no API: the prose speaks of what the snippet builds;
    # a loop's variable over literal values stays, the prose names its values (`literal_loop`)
    looped = literal_loop(code)[0]
    call = "" if f.kind == "compare" and snippet_local(call, code) and not _timed(f) and call != looped else call
    if f.kind == "compare" and snippet_local(expected or "", code) and (expected or "").strip() != looped:
        expected = ""
    if (code, call, expected, raised_by) == (f.reproduction, f.call, f.expected, f.raised_by):
        return f
    return replace(f, reproduction=code, call=call, expected=expected, raised_by=raised_by)


def _class_compared(f: FailureEvidence) -> bool:
    """Both sides of the failing comparison are classes (`<class 'pkg.Raw'>`)."""
    return all(re.fullmatch(r"<class '[\w.]+'>", (side or "").strip()) for side in (f.observed, f.expected))


def _assigned_call(name: str, code: str) -> str:
    """The call a bare local of the snippet holds when one plain assignment anywhere in it binds
    it to one (`result = f0.seek(3)` inside a `with`; `args, ok = f(x)` holds `f(x)[0]`) and only
    the check reads it: what the prose names in place of `result`, though it reads the snippet's
    own names; `name` otherwise."""
    name = name.strip()
    if not re.fullmatch(r"[A-Za-z_]\w*", name):
        return name
    tree = ast.parse(code)
    named = [n for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id == name]
    assigned = []  # (call, the item it is, in `args, ok = f(x)`)
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1):
            continue
        target = node.targets[0]
        if target in named:
            assigned.append((node.value, None))
        elif isinstance(target, ast.Tuple) and not any(isinstance(e, ast.Starred) for e in target.elts):
            values = node.value.elts if isinstance(node.value, ast.Tuple) else []
            if len(values) == len(target.elts):  # `out, err = (buf.getvalue(), ...)`: the item itself
                assigned += [(values[i], "display") for i, e in enumerate(target.elts) if e in named]
            else:
                assigned += [(node.value, i) for i, e in enumerate(target.elts) if e in named]
    stores = [n for n in named if isinstance(n.ctx, ast.Store)]
    # bound again and again (isort: `out, error = ...` after each run), the check reads the last
    assigned.sort(key=lambda a: (a[0].lineno, a[0].col_offset))
    held = assigned[-1][0] if assigned else None
    root = held
    while isinstance(root, (ast.Attribute, ast.Subscript)):
        root = root.value
    # a call, or an attribute of a value the snippet has (`spec = template.module.__spec__`)
    named_value = held is not root and isinstance(root, (ast.Name, ast.Call))
    if not stores or len(stores) != len(assigned) or not (isinstance(held, ast.Call) or named_value):
        return name
    branching = (ast.If, ast.For, ast.AsyncFor, ast.While, ast.Try)
    if len(stores) > 1 and (
        any(a[1] != "display" for a in assigned)  # `r = f0.seek(3)` twice: which call is checked?
        or any(n in ast.walk(b) for b in ast.walk(tree) if isinstance(b, branching) for n in stores)
    ):
        return name  # only a capture read again after each run (`out, err = (buf.getvalue(), ...)`) is plain
    last = tree.body[-1]
    while isinstance(last, (ast.With, ast.AsyncWith, ast.For, ast.If, ast.Try)) and last.body:
        last = last.body[-1]  # the check, inside the blocks that hold it
    in_check = {id(n) for n in ast.walk(last)}
    if any(isinstance(n.ctx, ast.Load) and id(n) not in in_check for n in named):
        return name  # read before the check (`loaded.restore()`): an object built over several statements
    call, item = assigned[-1]
    text = ast.unparse(call) + (f"[{item}]" if isinstance(item, int) else "")
    return text if _short(text, 80) else name


def snippet_local(text: str, code: str) -> bool:
    """`text` is a bare name the snippet assigns (`actual`, `expected`, `omd`), not one it imports
    or defines: a reader cannot look it up."""
    if not re.fullmatch(r"[A-Za-z_]\w*", text.strip()):
        return False
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return False
    assigned = (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.For, ast.AsyncFor, ast.With, ast.AsyncWith, ast.NamedExpr)
    for node in ast.walk(tree):
        if isinstance(node, assigned):
            targets = [n for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)]
            if any(n.id == text.strip() for n in targets):
                return True
    return False


def _subject(f: FailureEvidence, fallback: str) -> str:
    """What the prose calls the checked value: the call, else (a comparison of a value the
    snippet keeps in a local) the kind of value the snippet builds, else `fallback`; for a
    check of a caught exception, the call that raised it."""
    if f.raised:
        return _raising_subject(f)
    if f.call and not f.unbound and (stream := _stream_of(f.call)):
        return f"what the snippet writes to {stream}"  # not the redirect's buffer
    if f.call and not f.unbound and _short(f.call, 120):
        return _span(f.call)
    if f.call and not f.unbound and f.reproduction and (called := _long_call_named(f.call)):
        return f"the {_span(called)} call in the snippet"
    if f.kind == "compare" and not f.call and f.reproduction and not f.unbound:
        try:
            value = ast.literal_eval(f.observed or "")
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            value = None
        kinds = {list: "list", tuple: "tuple", dict: "dict", set: "set", str: "text"}
        return f"the {kinds.get(type(value), 'value')} the snippet builds"
    return fallback


def _stream_of(call: str) -> str:
    """ "stderr" for a read of what a snippet printed there (`captured_err.getvalue().strip()`, its
    redirect's buffer), "stdout" likewise; "" for any other call."""
    stream = re.match(r"captured_(out|err)\.getvalue\(\)", call.strip())
    return ("stdout" if stream[1] == "out" else "stderr") if stream else ""


def _long_call_named(call: str) -> str:
    """`isort.check_code(...)` for a call too long for prose whose callee is a short dotted
    name; "" otherwise."""
    try:
        node = ast.parse(call.strip(), mode="eval").body
    except SyntaxError:
        return ""
    if not isinstance(node, ast.Call):
        return ""
    callee = ast.unparse(node.func)
    return f"{callee}(...)" if re.fullmatch(r"[A-Za-z_][\w.]{0,50}", callee) else ""


def _raising_subject(f: FailureEvidence) -> str:
    if f.raised_by and not f.unbound and _short(f.raised_by, 120):
        return _span(f.raised_by)
    return "the code in the snippet's `with` block"


def _exception_part(f: FailureEvidence) -> str:
    """What of the caught exception the check reads: "message" (`str(e.value)`,
    `e.value.args[0]`), "arguments" (`e.value.args`), an attribute (`` `code` ``); "" otherwise."""
    call = re.sub(r"\s+", "", f.call or "")
    # `e.value` is what `pytest.raises` caught; a bare `e` is what `except E as e:` caught
    if re.fullmatch(r"str\(\w+\.value\)|\w+(?:\.value)?\.args\[0\]|\w+\.value\.message", call):
        return "message"
    if re.fullmatch(r"\w+(?:\.value)?\.args", call):
        return "arguments"
    attribute = re.fullmatch(r"\w+\.value\.(\w+(?:\.\w+)*)", call)
    return _span(attribute.group(1)) if attribute else ""


_EXCEPTION_RELATION = {
    "==": "with the {part} {value}",
    "in": "with a {part} that contains {value}",
    "not in": "with a {part} that does not contain {value}",
    "!=": "with a {part} other than {value}",
}


_TYPE_READ = re.compile(r"\w+\.type|type\(\w+(?:\.value)?\)|\w+(?:\.value)?\.__class__")


def _raised_types(f: FailureEvidence) -> tuple[str, str]:
    """(the class the call raises today, the one it should raise) when the check compares the
    caught exception's class (`assert e.type is ValueError` after `pytest.raises(Exception)`):
    the `raises` block only says "some exception"; ("", "") otherwise."""
    call = re.sub(r"\s+", "", f.call or "")
    if f.kind != "compare" or f.op not in ("is", "==") or not _TYPE_READ.fullmatch(call):
        return "", ""
    seen = re.fullmatch(r"<class '(?:[\w.]+\.)?(\w+)'>", (f.observed or "").strip())
    wanted = (f.expected or "").strip()
    if not seen or not re.fullmatch(r"[A-Za-z_][\w.]*", wanted) or seen.group(1) == wanted.split(".")[-1]:
        return "", ""
    return seen.group(1), wanted


def _raised_want(f: FailureEvidence, where: str, snippet_shown: bool = True) -> str:
    """The requirement on the exception a check reads after the call: "it should raise `E` with
    the message `m`" ("" when only a snippet could say it and none is shown)."""
    if wanted := _raised_types(f)[1]:
        return f"it should raise a {_span(wanted)}"
    part, head = _exception_part(f), f"it should raise {_span(f.raised)}"
    relation = _EXCEPTION_RELATION.get(f.op or "") if f.kind == "compare" else None
    if not (part and relation):
        return f"{head}, and then the check at the end of the snippet should hold" if snippet_shown else ""
    value = _value(f.expected or "", f.reproduction or "", 200)
    if not value and whole_value(f):
        value = f"given in full {where}"
    if not value:
        return (
            f"{head}, and then the check of its {part} at the end of the snippet should hold" if snippet_shown else ""
        )
    return f"{head} {relation.format(part=part, value=value)}"


def _raised_seen(f: FailureEvidence) -> str:
    """What the call does today, when it raises the exception a later check reads ("gives", not
    "raises": the snippet ends at the failing check, no exception escapes it)."""
    if seen := _raised_types(f)[0]:
        # "a": no exception escapes the snippet (its `raises` block catches it), and the
        # reproduction check reads "raises `E`" as one that does
        return f"raises a {_span(seen)}"
    part, raised = _exception_part(f) or "details", _span(f.raised)
    if f.error:
        return f"gives a {raised}, but reading its {part} raises {_span(f.error.split(':')[0])}"
    shown = _value(f.observed or "", f.reproduction or "")
    if shown and f.kind == "compare":
        return f"gives a {raised} whose {part} {'are' if part.endswith('s') else 'is'} {shown}"
    return f"gives a {raised} with {'other' if part.endswith('s') else 'another'} {part}"


def _reads_names(expression: str) -> bool:
    try:
        tree = ast.parse(expression, mode="eval")
    except SyntaxError:
        return False
    return any(isinstance(n, ast.Name) for n in ast.walk(tree))


_LITERAL_NODES = (ast.Constant, ast.List, ast.Tuple, ast.Set, ast.Dict, ast.BinOp, ast.UnaryOp, ast.Load)
_LITERAL_NODES += (ast.operator, ast.unaryop)
_DISPLAYS = (ast.List, ast.Tuple, ast.Set, ast.Dict)  # of calls too: `[Binding(key='a'), Binding(key='b')]`
STATED_CALL = 120  # a call with its inputs written in, longer than this, keeps its local names


# a call that gives something new each time (a fresh folder, id or time): written into the check
# in place of its name, it would be another value than the one the snippet set up
_FRESH_EACH_CALL = re.compile(
    r"\b(?:mkdtemp|mkstemp|TemporaryDirectory|NamedTemporaryFile|uuid[1-7]|now|utcnow|monotonic|perf_counter|"
    r"token_hex|token_bytes|urandom)\(|\btime\.time\(|\brandom\.\w+\("
)


def stated_call(call: str, code: str, loop_value: str = "") -> str:
    """The failing check's call with the inputs it reads through the snippet's local names written
    in, so that prose can state the case without the snippet (`render(text)` after `text = 'ab' *
    3` is `render('ab' * 3)`; in a loop's failing pass, its variables' values): a name is written
    in when one plain assignment binds it, to a literal or to a call of names written in or
    imported, and no statement before the check but a plain assignment reads it (no object built
    over several statements). `call` unchanged when a name it reads stays local, or the result is long."""
    try:
        tree, module = ast.parse(call, mode="eval"), ast.parse(code)
    except SyntaxError:
        return call
    body, looped = _into_literal_loops(module.body)
    if not body:
        return call
    imported = {
        (a.asname or a.name).split(".")[0] for s in body if isinstance(s, (ast.Import, ast.ImportFrom)) for a in s.names
    }
    values: dict[str, ast.expr] = {}
    if looped:
        imported |= looped[0]  # stated as the loop's variable: the prose names its values (`_every_pass`)
        loop_value = loop_value if looped[1] else ""  # a pass's repr of a built value (`()`) is no input
    try:
        loop = ast.parse(loop_value).body if loop_value else []
    except SyntaxError:
        loop = []
    for stmt in loop:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and _is_literal(stmt.value):
            target = stmt.targets[0]
            if isinstance(target, ast.Name):
                values[target.id] = stmt.value
            elif isinstance(target, ast.Tuple) and isinstance(stmt.value, ast.Tuple):
                pairs = zip(target.elts, stmt.value.elts)
                values.update({t.id: v for t, v in pairs if isinstance(t, ast.Name)})
    callees = {n.func.id for n in ast.walk(module) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
    bindings: dict[str, list[ast.stmt]] = {}
    for stmt in body[:-1]:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
                bindings.setdefault(node.id, []).append(stmt)
    # a statement that reads a name and is no plain assignment may change its object (`t.add_row(...)`)
    readers = {
        name: [
            s
            for s in body[:-1]
            if not (isinstance(s, ast.Assign) and all(isinstance(t, ast.Name) for t in s.targets))
            and any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load) for n in ast.walk(s))
        ]
        for name in bindings
    }

    def written_in(name: str, depth: int = 0) -> ast.expr | None:
        if name in values:
            return values[name]
        stmts = bindings.get(name, [])
        if depth > 4 or len(stmts) != 1 or readers.get(name):
            return None
        stmt = stmts[0]
        if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)):
            return None
        value = stmt.value
        # a made class or function stays a name: `C(1).x` reads better than `make_class('C', ['x'])(1).x`
        made = isinstance(value, (ast.Call, ast.Lambda))
        if not (_is_literal(value) or isinstance(value, _DISPLAYS) or (made and name not in callees)):
            return None
        if made and _FRESH_EACH_CALL.search(unparse(value)):
            return None  # isort: `tmpdir = py.path.local(tempfile.mkdtemp())` written in names another folder
        return value if _all_written_in(value, written_in, imported, depth + 1) else None

    if not _all_written_in(tree, written_in, imported, 0):
        return call
    substituted = _Substitute(written_in).visit(tree)
    text = unparse(ast.fix_missing_locations(substituted))
    return text if len(text) <= STATED_CALL else call


def _into_literal_loops(body: list[ast.stmt]) -> tuple[list[ast.stmt], tuple[frozenset, bool] | None]:
    """`body` with each `for` over literal values that ends it replaced by its own body, so
    that the failing check's inputs bound in the loop are written in; with (the loops'
    variables, whether all their values are plain literals), None when there is no such loop."""
    names: set[str] = set()
    plain = True
    while body and isinstance(body[-1], ast.For):
        loop = body[-1]
        if not (isinstance(loop.iter, _DISPLAYS) or _is_literal(loop.iter)):
            break
        names |= {n.id for n in ast.walk(loop.target) if isinstance(n, ast.Name)}
        plain = plain and _is_literal(loop.iter)
        body = [*body[:-1], *loop.body]
    return body, ((frozenset(names), plain) if names else None)


def stated_raising_call(call: str, code: str, loop_value: str = "") -> str:
    """`stated_call` of the call in `with pytest.raises(E) as e:` whose exception the check
    reads: the snippet up to that block, ending with the call (the block reads the names it
    is given; it changes none of them)."""
    try:
        body = ast.parse(code).body
    except SyntaxError:
        return call
    blocks = [
        i
        for i, s in enumerate(body)
        if isinstance(s, (ast.With, ast.AsyncWith)) and s.body and unparse(s.body[-1]) == call
    ]
    if not blocks:
        return call
    before = "\n".join(unparse(s) for s in body[: blocks[-1]])
    return stated_call(call, f"{before}\n{call}", loop_value)


LOOP_VALUES = 160  # a loop's literal values longer than this are left to the snippet


def literal_loop(code: str) -> tuple[str, str]:
    """(its variable, its values) of the innermost `for` over literal values (`for t in ((1, 0),
    (1,))`, `for c in b'\\x00 '`, `for k in [key(), key('a')]`) that holds the snippet's last
    statement, the failing check; ("", "") when there is none."""
    try:
        body = ast.parse(code).body
    except SyntaxError:
        return "", ""
    found = ("", "")
    while body and isinstance(body[-1], (ast.For, ast.With)):
        last = body[-1]
        if isinstance(last, ast.For) and (isinstance(last.iter, _DISPLAYS) or _is_literal(last.iter)):
            found = (unparse(last.target), unparse(last.iter))
        body = last.body
    return found


def _built_values(f: FailureEvidence) -> bool:
    """The failing check is in a `for` over a display of calls (`[key(), key('a')]`)."""
    try:
        looped = _into_literal_loops(ast.parse(f.reproduction or "").body)[1]
    except SyntaxError:
        return False
    return bool(looped) and not looped[1]


def _every_pass(f: FailureEvidence) -> str:
    """The requirement on each pass of the loop the failing check is in, with the loop's values:
    the test checks them all, and the failing pass is only the first that fails."""
    target, values = literal_loop(f.reproduction or "")
    if not target and f.loop_over:  # the snippet shows the failing first pass alone
        target, values = f.loop_over.split(" in ", 1)
    if not target or not _short(values, LOOP_VALUES):
        return ""
    return f" The check must hold for each {_span(target)} in {_span(values)}."


def _is_literal(node: ast.expr) -> bool:
    return all(isinstance(n, _LITERAL_NODES) for n in ast.walk(node))


def _all_written_in(node: ast.AST, written_in, imported: set[str], depth: int, own: frozenset = frozenset()) -> bool:
    """Every name `node` reads is a builtin, imported, written in by `written_in`, or an
    argument of a lambda around it (`lambda c: bool(c)` reads only its own `c`)."""
    if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
        name = node.id
        if name in own or name in imported or (hasattr(builtins, name) and name not in ("__file__",)):
            return True
        return written_in(name, depth) is not None
    if isinstance(node, ast.Lambda):
        defaults = [*node.args.defaults, *[d for d in node.args.kw_defaults if d is not None]]
        inner = own | _lambda_arguments(node)
        return all(_all_written_in(d, written_in, imported, depth, own) for d in defaults) and _all_written_in(
            node.body, written_in, imported, depth, inner
        )
    if isinstance(node, (ast.comprehension, ast.NamedExpr)):
        return False  # names of their own, bound over a loop: not worth following
    return all(_all_written_in(child, written_in, imported, depth, own) for child in ast.iter_child_nodes(node))


def _lambda_arguments(node: ast.Lambda) -> frozenset:
    a = node.args
    named = [*a.posonlyargs, *a.args, *a.kwonlyargs, *[x for x in (a.vararg, a.kwarg) if x is not None]]
    return frozenset(x.arg for x in named)


class _Substitute(ast.NodeTransformer):
    """The names `written_in` knows replaced by their values, except a lambda's own arguments."""

    def __init__(self, written_in, own: frozenset = frozenset()) -> None:
        self.written_in, self.own = written_in, own

    def visit_Name(self, node: ast.Name) -> ast.expr:
        if node.id in self.own or not isinstance(node.ctx, ast.Load):
            return node
        value = self.written_in(node.id)
        return _Substitute(self.written_in).visit(copy.deepcopy(value)) if value is not None else node

    def visit_Lambda(self, node: ast.Lambda) -> ast.expr:
        node.args = self.visit(node.args)
        node.body = _Substitute(self.written_in, self.own | _lambda_arguments(node)).visit(node.body)
        return node


def _compiles(code: str) -> bool:
    try:
        compile(code, "<reproduction>", "exec", dont_inherit=True, flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
    except (SyntaxError, ValueError):
        return False
    return True


def _usable(f: FailureEvidence) -> bool:
    return bool(f.reproduction) and not f.unbound and not f.long


def _only_import(
    groups: list[list[FailureEvidence]], missing: dict[str, str], defined: set[str]
) -> dict[str, tuple[str, str]]:
    """Test id -> (module, name) for each test that fails only because its module cannot import
    a name the change adds (`import_only`; not one whose own lines the sandbox saw fail,
    `FailureEvidence.held`, nor one that imports another name the change adds), when other tests
    use that name and ask for it: those show what the name must do. {} when no other test is
    left to state. `defined`: the names the change's lines define (`_defined_by`)."""
    hits = {
        f.test_id: hit
        for g in groups
        for f in g
        if f.held is not False
        and not any(_new_names_imported(f, defined).values())
        and (hit := import_only(f.error or "", f.reproduction or ""))
    }
    asked = {name for test_id, name in missing.items() if test_id not in hits}
    hits = {test_id: hit for test_id, hit in hits.items() if hit[1] in asked}
    return hits if len(hits) < sum(map(len, groups)) else {}


# what the change's own lines define or export at a module's top level (`class IsFloatInfPos(...)`,
# `IsFloatNan = ...`, `from .numeric import IsFloatInfPos`), and the names of an import list or
# `__all__` it extends, one to a line
_TOP_DEFINITION = re.compile(r"^(?:(?:async\s+)?def|class)\s+(\w+)|^(\w+)\s*(?::[^=]+)?=(?!=)")
_LISTED_NAME = re.compile(r"^\s+['\"]?(\w+)['\"]?,?\s*\)?$")


def _also_imported(failures: list[FailureEvidence], asked: set[str], defined: set[str]) -> dict[str, list[str]]:
    """Module -> the names, besides those `asked` for, that failing tests import from it while
    its import fails for a name the change adds (dirty-equals' tests need `IsFloatInfPos` and
    `IsFloatNan` beside the `IsFloatInf` the error names), when the change's lines define them
    (`defined`)."""
    out: dict[str, set[str]] = {}
    for f in failures:
        for module, names in _new_names_imported(f, defined).items():
            out.setdefault(module, set()).update(names - asked)
    return {module: sorted(names) for module, names in out.items() if names}


def _defined_by(added_lines: list[str]) -> set[str]:
    """The names the change's lines define or export at a module's top level."""
    defined: set[str] = set()
    for line in added_lines:
        m = _TOP_DEFINITION.match(line)
        if m:
            defined.add(m.group(1) or m.group(2))
        elif line.lstrip().startswith("from ") and " import " in line:
            defined |= set(re.findall(r"\w+", line.split(" import ", 1)[1].split(" as ")[0]))
        elif (listed := _LISTED_NAME.match(line)) is not None:
            defined.add(listed.group(1))
    return defined


def _new_names_imported(f: FailureEvidence, defined: set[str]) -> dict[str, set[str]]:
    """Module -> the `defined` names `f`'s snippet imports from the module whose import failed."""
    lacked = lacked_import(f.error or "")
    tree = _parse_or_none(f.reproduction or "") if lacked else None
    out: dict[str, set[str]] = {}
    for node in ast.walk(tree) if tree is not None else ():
        if isinstance(node, ast.ImportFrom) and node.module == lacked[0]:
            out.setdefault(node.module, set()).update(a.name for a in node.names if a.name in defined)
    return out


def distinct_failures(failures: list[FailureEvidence]) -> list[list[FailureEvidence]]:
    """Failures grouped by test function (parametrized cases together); the groups with a
    reproduction that can be quoted first, and within a group the cases with one first. A group
    whose lead fails at the same call with the same error as an earlier group's goes after the
    groups that fail otherwise: when a short statement shows fewer snippets, each it keeps shows
    another failure (a sync and an async variant of one test say one thing twice)."""
    groups: dict[str, list[FailureEvidence]] = {}
    for f in failures:
        groups.setdefault(without_parameters(f.test_id), []).append(f)
    ordered = [sorted(g, key=lambda f: not _usable(f)) for g in groups.values()]
    seen: set[tuple[str, str]] = set()
    repeats: set[int] = set()
    for group in ordered:
        failure = (_flat(group[0].call or group[0].check or ""), group[0].error or "")
        if failure in seen and failure[0]:
            repeats.add(id(group))
        seen.add(failure)
    return sorted(ordered, key=lambda g: (not _usable(g[0]), id(g) in repeats))


_CANNOT_IMPORT = re.compile(r"ImportError: cannot import name '(\w+)'")
_NO_MODULE = re.compile(r"ModuleNotFoundError: No module named '(\w+(?:\.\w+)+)'")  # a module added to a package
_UNEXPECTED_KEYWORD = re.compile(r"TypeError: .*got an unexpected keyword argument '(\w+)'")
_NO_ATTRIBUTE = re.compile(r"AttributeError: (?!'NoneType')(.+?) has no attribute '(\w+)'")


def missing_name(f: FailureEvidence, functions: list[dict], added_lines: list[str]) -> str:
    """The name the change adds, when the failure only says it is absent: an import of it (a
    name, or a module of the package), a keyword argument of that name, or an attribute of that
    name the change defines (a new function or class among the touched ones, or a definition in
    the fix's lines). "" when the failure is a plain bug."""
    error = (f.error or "").strip()
    for pattern in (_CANNOT_IMPORT, _NO_MODULE, _UNEXPECTED_KEYWORD, _NO_ATTRIBUTE):
        m = pattern.match(error)
        if not m:
            continue
        name = m.group(m.lastindex or 1)
        if pattern is _UNEXPECTED_KEYWORD and _rejected_by_the_tests_own(f, error):
            continue  # a dict key spread into a class the test defines: no argument the change adds
        if pattern is _UNEXPECTED_KEYWORD and not _passed_by_the_test(f, name):
            continue  # the project passed it to its own function (`filter_module(parent=...)`): a plain bug
        if pattern is not _UNEXPECTED_KEYWORD and not _named_by_the_test(f, name):
            continue  # the project's own code reaches for it (cattrs' `working_set`): a crash, not a request
        if pattern is not _NO_ATTRIBUTE:
            return name
        touched = {str(fn.get("name")) for fn in functions}
        defines = re.compile(rf"\b(?:def|class)\s+{re.escape(name)}\b|(?:^|\.)\s*{re.escape(name)}\s*(?::|=(?!=))")
        if name in touched or any(defines.search(line.strip()) for line in added_lines):
            return name
    return ""


def _named_by_the_test(f: FailureEvidence, name: str) -> bool:
    """The test's own code names `name` (imports it, reads it as an attribute); True when its
    code is not known."""
    code = "\n".join([f.reproduction or "", f.check or "", f.call or "", *(f.source or [])])
    return not code.strip() or bool(re.search(rf"(?<![\w]){re.escape(name)}\b", code))


def _passed_by_the_test(f: FailureEvidence, keyword: str) -> bool:
    """The test's own code passes `keyword` (`f(parent=x)`, or a dict key it spreads), so the
    argument it is refused is one the test asks for, not one the project passes internally."""
    code = "\n".join([f.reproduction or "", f.check or "", *(f.source or [])])
    return bool(re.search(rf"\b{re.escape(keyword)}\s*=(?!=)|['\"]{re.escape(keyword)}['\"]\s*:", code))


def _rejected_by_the_tests_own(f: FailureEvidence, error: str) -> bool:
    """The callable that rejects the keyword is one the test defines (pytest's qualname
    `test_x.<locals>.Cls.__init__`, or a class the reproduction defines): no fix adds to it."""
    qualname = _refusing_qualname(error)
    parts = [re.escape(p) for p in qualname.split(".") if p not in ("__init__", "__new__", "__call__")]
    # a bare `__init__()` (older Pythons): any class the snippet defines
    owner = rf"(?:class|def)\s+{parts[-1]}" if parts else r"class\s+\w+"
    defined = re.search(rf"^\s*{owner}\b", f.reproduction or "", re.M)
    return "<locals>" in qualname or bool(defined)


def _refusing_qualname(error: str) -> str:
    """The qualname of the callable a keyword-argument TypeError names (`Gen.__init__`)."""
    return re.sub(r"^\w+:\s*", "", error.split("got an unexpected keyword argument", 1)[0]).strip().rstrip("()")


def _refusing_callable(error: str) -> str:
    """The function or class that refuses the keyword (`Gen` for `Gen.__init__() got an
    unexpected keyword argument`), as code calls it; "" when the error names none."""
    parts = [p for p in _refusing_qualname(error).split(".") if p not in ("__init__", "__new__", "__call__")]
    name = ".".join(parts)
    return name if parts and "<" not in name and all(p.isidentifier() for p in parts) else ""


def _call_forms(
    groups: list[list[FailureEvidence]], functions: list[dict], missing: dict[str, str]
) -> dict[str, CallForm]:
    """Failing test id -> the call form it uses that the touched functions do not offer yet (a
    test whose error names an absent name is asked for that name instead)."""
    return {
        f.test_id: form
        for g in groups
        for f in g
        if f.test_id not in missing and (form := bare_decorator_form(f, functions))
    }


_ANNOUNCES_BLOCK = re.compile(r"snippet|examples below")


def _evidence_request(f: FailureEvidence, missing: str, forms: list[CallForm] | None = None) -> str:
    """What a request asks for, from the failing check: the new call form (for every function
    the tests use it with), else the absent name (with the function it belongs to), else the
    checked behaviour of the function."""
    if forms:
        names = list(dict.fromkeys(_span("@" + form.function) for form in forms))
        return f"support for {and_listed(names)} without parentheses"
    fn = f.function or ""
    if missing and "keyword argument" in (f.error or ""):
        fn = _refusing_callable(f.error or "") or fn  # the error names whom the argument is for
        article = "an" if re.match(r"[aeio]|un", missing, re.I) else "a"  # "a `use_x`" is said "a you..."
        return f"{article} `{missing}` argument" + (f" for `{fn}`" if fn and fn != missing else "")
    if missing and f.raised == missing and fn and not _uses(missing, fn):
        # an exception class: a request says who raises it, not only that it exists
        return f"an exception `{missing}` for `{fn}` to raise"
    if missing and _NO_MODULE.match((f.error or "").strip()):
        return f"a module `{missing}`" + (f" with `{fn}`" if fn and not _uses(missing, fn) else "")
    if missing and _missing_named(f, missing) != missing:
        return _span(_missing_named(f, missing))
    if missing:
        related = fn and not _uses(missing, fn) and not _uses(fn, missing)
        return f"`{missing}`" + (f" (used with `{fn}`)" if related else "")
    return f"support for the case below in {_named(f)}"


def _missing_named(f: FailureEvidence, missing: str) -> str:
    """The absent name as code reaches it: `Path.home` when the failing call is that attribute of
    the project's class (a bare `home` reads as the snippet's own `home = Path.home()`)."""
    fn = f.function or ""
    return fn if fn.endswith(f".{missing}") and fn.replace(".", "").isidentifier() else missing


def _named(f: FailureEvidence) -> str:
    """What a title calls the code: the failing call when it is the project's function called
    with literal arguments, else the function's name when the checked expression uses it, else
    the call itself when short."""
    fn = _public_name(f.function or "", f.reproduction or "")
    call = f.call or ""
    if fn and call.startswith(fn + "(") and _short(call, 48) and not f.unbound:
        return _span(call)
    checked = f"{call}\n{f.check or ''}" if call else (f.reproduction or "")  # no call: what the snippet runs
    if fn and _uses(checked, fn):
        return _span(fn)
    if fn and _made_locally(f):
        return _span(fn)  # `fun = after_log(...)`, then `fun(state)`: the project's function made it
    return _span(call) if _short(call, 60) and not f.unbound else "the call"


def _public_name(fn: str, code: str) -> str:
    """`fn` without a prefix that is only the snippet's import alias (`tasyncio.AsyncRetrying`
    after `import ... as tasyncio`: the repository has no `tasyncio`); "" when `fn` is no entry
    point of the project: a method of a builtin type the check ends with (`strip`), or a helper
    the snippet defines or takes from the tests."""
    head, _, rest = fn.partition(".")
    if rest and re.search(rf"\bas\s+{re.escape(head)}\b", code):
        fn = rest
    last = fn.split(".")[-1]
    builtin_method = any(hasattr(t, last) for t in (str, bytes, list, dict, set, tuple, int))
    local_head = re.search(rf"^\s*{re.escape(fn.split('.')[0])}\s*=(?!=)", code, re.M) if "." in fn else None
    if last and builtin_method and ("." not in fn or local_head):
        return ""
    inner = re.search(rf"\.(\w+)\([^()]*\)\s*\.{re.escape(last)}\s*\(", code) if builtin_method and "." in fn else None
    if inner:  # `table.get_string().strip()` named `PrettyTable.strip`: the project's method is the inner one
        return f"{fn.rsplit('.', 1)[0]}.{inner.group(1)}"
    if last and re.search(rf"^\s*(?:async\s+)?def {re.escape(last)}\b", code, re.M):
        return ""
    if last and re.search(rf"^\s*from (?:tests?|testing)\b[\w.]* import [^\n]*\b{re.escape(last)}\b", code, re.M):
        return ""
    return fn


def _made_locally(f: FailureEvidence) -> bool:
    """The checked call starts at a name the snippet binds (`fun = after_log(...)`) or at a
    builtin, and the snippet uses the project's function."""
    callee = re.match(r"\s*(?:await\s+)?([A-Za-z_]\w*)", f.call or "")
    code = f.reproduction or ""
    if not (callee and f.function and _uses(code, f.function)):
        return False
    if hasattr(builtins, callee.group(1)):
        return True  # `isinstance(rv.exception, E)`: the builtin is no entry point of the project
    return bool(re.search(rf"^\s*{callee.group(1)}\s*=(?!=)|\b(?:def|class) {callee.group(1)}\b", code, re.M))


def _uses(code: str, name: str) -> bool:
    """`code` uses `name` (a dotted name: its last part)."""
    last = name.split(".")[-1]
    return bool(last) and bool(re.search(rf"(?<![\w]){re.escape(last)}\b", code))


def _with_touched_function(f: FailureEvidence, functions: list[dict]) -> FailureEvidence:
    """The failure, named after a public function the fix touches when its checked expression
    uses it (`Option` rather than the test runner that drove it), or when the failure is named
    after the project's test harness (imported from a `testing` module) and its setup uses it."""
    code = f"{f.call or ''}\n{f.check or ''}"  # the checked expression, not the setup before it
    names = [str(fn.get("name")) for fn in functions if fn.get("name")]
    used = [n for n in names if not n.startswith("_") and re.search(rf"(?<![\w]){re.escape(n)}\b", code)]
    used = [n for n in used if n != f.raised]  # the exception the check expects is not what it exercises
    current = f.function or ""
    if used and not any(n in current.split(".") for n in used):
        return replace(f, function=used[0])
    head = re.escape(current.split(".")[0])
    harness = current and re.search(
        rf"^\s*from\s+[\w.]*\btesting\b[\w.]*\s+import\s+[^\n]*\b{head}\b", f.reproduction or "", re.M
    )
    if harness:  # the project's test runner (`CliRunner.invoke`) only drives the code at fault
        setup = [
            n for n in names if not n.startswith("_") and re.search(rf"(?<![\w]){re.escape(n)}\b", f.reproduction or "")
        ]
        if setup:
            return replace(f, function=setup[0])
    return f


_VAGUE_TITLE = re.compile(r"(?:gives a wrong result|returns a wrong value|fails)$")


def confirmed(subject: str, f: FailureEvidence) -> bool:
    """The commit's words fit the failing check: they name its function, a name its checked
    expression uses, or one of its values."""
    names = [f.function or ""] + re.findall(r"[A-Za-z_]\w{2,}", f"{f.call or ''} {f.check or ''}")
    names = [n for n in names if n and not hasattr(builtins, n.split(".")[-1]) and n not in ("assert", "self")]
    values = [v.strip("'\"") for v in (f.expected, f.observed) if v and len(v.strip("'\"")) >= 2]
    return any(_uses(subject, n) for n in names) or any(v in subject for v in values if _short(v, 40))


TITLE_WORDS = 18


def _one_short_sentence(text: str) -> bool:
    """A commit subject that can stand as a title: one sentence, not a changelog of several
    (faker 58f49e09: "Extension in `file_path` to take a list ... . Remove dot from ...")."""
    return len(text.split()) <= TITLE_WORDS and not re.search(r"[.;!?]\s+[A-Z]", text)


def _lead_symptom(f: FailureEvidence, fallback: str) -> str:
    """The evidence's symptom; the change's own words when the evidence can only say "wrong"
    and those words fit the failing check."""
    fallback = fallback if fallback and confirmed(fallback, f) and _one_short_sentence(fallback) else ""
    title = evidence_symptom(f, fallback)
    if fallback and _VAGUE_TITLE.search(title):
        name = _named(f)
        return f"{_capitalize(fallback)} ({name})" if name != "the call" else fallback
    return title


def evidence_symptom(f: FailureEvidence, fallback: str = "") -> str:
    """A title: the public function and what goes wrong, in the failing run's own values;
    `fallback` (the change's own symptom) when the evidence names no project function."""
    call_usable = _short(f.call or "", 60) and not f.unbound and bool(re.search(r"[(=]", f.call))
    if not f.function and fallback and not call_usable:
        return fallback
    name, kind, op = _named(f), f.kind, f.op or ""
    call, fn = f.call or "", _public_name(f.function or "", f.reproduction or "")
    observed, expected, error = f.observed or "", f.expected or "", f.error or ""
    etype = error.split(":")[0]
    if kind == "compare" and op == "==" and not f.unbound and (stream := _stream_of(call)):
        who = _span(fn) if fn else "The snippet"
        if _short(observed, 60) and _short(expected, 60):
            return f"{who} writes {_span(observed)} to {stream} where {_span(expected)} is expected"
        return f"{who} writes the wrong text to {stream}"
    if fn and call and _made_locally(f) and not _uses(call, fn) and _short(call, 40):
        name = f"With {_span(fn)}, {_span(call)}"  # the function made the object; the call goes wrong
    if _timed(f):
        limit = f", the limit is {_span(expected)}" if _short(expected) and _short(observed) else ""
        measured = f" ({_span(call)} reaches {_span(observed)}{limit})" if limit and _short(call, 40) else ""
        who = _span(fn) if fn else "The snippet"
        return f"{who} is too slow{measured}"
    if f.raised and not error:  # the right exception, checked after the call: its message is wrong
        who = _span(fn) if fn else "The code"
        who = _span(f.raised_by) if _short(f.raised_by or "", 60) and not f.unbound else who
        seen, wanted = _raised_types(f)
        if seen:
            return f"{who} raises {_span(seen)} instead of {_span(wanted)}"
        return f"{who} raises {_span(f.raised)} with the wrong {_exception_part(f) or 'details'}"
    if kind == "raises":
        wanted = f.expected or "an exception"
        message = _message_seen(f)
        if message is not None:
            return f"{name} raises {_span(wanted)} with the wrong message" + (f" ({_span(message)})" if message else "")
        if observed == "no exception" or not error:
            return f"{name} does not {'warn with' if f.warns else 'raise'} {_span(wanted)}"
        return f"{name} raises {_span(etype)} where {_span(wanted)} is expected"
    if error:
        compared = _raising_comparison(f)  # the comparison raised, not its call alone
        return f"{compared if compared and _short(compared, 70) else name} raises {_span(etype)}"
    if kind == "compare":
        if op in ("in", "not in") and _element_checked(f):
            if not (_short(observed) and _short(expected, 60)):
                return f"{name} gives a wrong result"
            return f"{name} gives {_span(observed)}, which is {'not ' if op == 'in' else ''}in {_span(expected)}"
        if op in ("in", "not in"):
            if not _short(expected):
                return f"{name} gives a wrong result"
            of = "" if name.startswith("With ") else "The result of "  # "With `f`, `x` lacks ..." reads as is
            symptom = f"lacks {_span(expected)}" if op == "in" else f"contains {_span(expected)}, which it should not"
            return f"{of}{name} {symptom}"
        if (
            fn
            and call
            and not call.startswith(fn)
            and (_uses(call, fn) or _made_locally(f))
            and _short(call, 40)
            and _short(observed)
            and _short(expected)
        ):
            wanted = f"{_BOUND.get(op, '')}{_span(expected)}"
            return f"With {_span(fn)}, {_span(call)} is {_span(observed)} where {wanted} is expected"
        if _short(observed) and _short(expected):
            return f"{name} returns {_span(observed)} where {_BOUND.get(op, '')}{_span(expected)} is expected"
        return f"{name} returns a wrong value"
    if kind == "truthy":
        return f"{name} gives a wrong result"
    if kind in ("helper", "fail") and _short(observed, 60) and _reads_as_words(observed):
        return f"{name}: {observed.rstrip('.')}" if name != "the call" else _capitalize(observed.rstrip("."))
    return f"{name} fails"


# what a title's "where X is expected" asks for under each comparison (tenacity's `>=` read as `== 5`)
_BOUND = {
    ">=": "at least ",
    ">": "more than ",
    "<=": "at most ",
    "<": "less than ",
    "!=": "anything but ",
    "is not": "anything but ",
}


def _reads_as_words(message: str) -> bool:
    """A check's message that says something ("False is not true", "no route for /a"), not a value
    the helper printed (marko's `assert_case` fails with the HTML it rendered, "<p>hello ~google~</p>",
    which as a title reads as the bug)."""
    if re.search(r"</?[A-Za-z][^<>]*>|^[\[({'\"<]|^assert ", message.strip()):
        return False  # markup, a literal, or pytest's own `assert x == y` (no words of the helper's)
    return len(re.findall(r"\b[A-Za-z]{2,}\b", message)) >= 3


def _outcome_sentence(
    f: FailureEvidence, phr: _Phraser | None = None, missing: str = "", form: CallForm | None = None
) -> str:
    """What the failing check observes on the current code and what it requires (and, for a
    line that raises before its check, the check that follows it). `missing`: the name the
    change adds, when the error only says it does not exist yet; `form`: the call form the test
    uses that is not offered yet (each a request, not a crash)."""
    if form is not None:
        text = _call_form_core(f, form, phr)
    elif missing:
        text = _request_core(f, missing, phr)
    else:
        text = _type_core(f) or _outcome_core(f, phr)
    if f.loop_value and _short(f.loop_value, 160) and _compiles(f.loop_value) and not _built_values(f):
        # a cut value is no input; nor is the repr of a value the loop builds (`k = ()` for a key object)
        text += f" It fails in the pass of the loop where {_span(f.loop_value)}."
    text += _every_pass(f)
    # the same check already passed earlier in the test: quoted, it reads as one that holds already
    passed = {_flat(c) for c in f.passed_checks or []}
    if (
        f.then
        and f.kind == "error"
        and not f.rest
        and not _placeholder(f.then, f.reproduction or "")
        and _flat(f.then) not in passed
    ):
        text += f" Once it runs, {_span(f.then)} should hold."
    return text


_REST_HEADS = [
    "After that, the same code should also pass these checks:",
    "These should hold as well, once the above works:",
    "The snippet goes on; the following must also hold:",
]


def _rest_section(f: FailureEvidence, phr: _Phraser | None = None) -> str:
    """What the test requires after the failing check (it never ran on the current code)."""
    rest = (f.rest or "").strip()
    if not rest or _has_dead_block(rest):
        return ""
    head = phr.pick(_REST_HEADS) if phr else _REST_HEADS[0]
    return f"{head}\n\n```python\n{fence_safe(rest)}\n```"


def _has_dead_block(code: str) -> bool:
    return bool(re.search(r"^\s*if (?:False|0|None)\s*:", code, flags=re.M))


_PLACEHOLDER = re.compile(r"[a-z_]\w*")


def _placeholder(value: str, code: str) -> bool:
    """A bare lower-case name (`expected`, `ref`) that the shown code never binds: the test's
    local variable, which tells a reader nothing."""
    value = str(value or "").strip()
    if not _PLACEHOLDER.fullmatch(value) or value in ("true", "false") or hasattr(builtins, value):
        return False
    name = re.escape(value)
    binding = rf"(?<![\w.]){name}\s*(?:=(?!=)|\bin\b)|\b(?:def|class|as|for|import)\s+{name}\b"
    return not re.search(binding, code)


def _value(text: str, code: str = "", limit: int = 120) -> str:
    """`text` as a span when a reader can use it: short, on one line, not a test-local name."""
    text = str(text or "")
    if not _short(text, limit) or _placeholder(text, code):
        return ""
    return _span(text)


def _message_seen(f: FailureEvidence) -> str | None:
    """The message the expected exception came with, when it was raised but its message did not
    match (pytest's "Regex pattern did not match"): "" when the run did not say it; None when
    the failure is another one."""
    if f.kind != "raises" or not (f.observed or "").startswith("Regex pattern did not match"):
        return None
    actual = re.search(r"Actual message: (.+)", f.message or "")
    return actual.group(1).strip() if actual and _short(actual.group(1).strip(), 80) else ""


_EXPLAINED = re.compile(r"(\S+) \(where \1 = .*\)")
_CALL_EXPLAINED = re.compile(
    r"(\S+) \(where (\S+) = <(?:function|built-in function|bound method) ([\w.]+)[^>]*>\((.*)\)\)"
)


def _seen_clause(f: FailureEvidence) -> str:
    """What the current code does at the failing check, as a verb phrase."""
    if f.raised:
        return _raised_seen(f)
    observed, error = f.observed or "", f.error or ""
    message = _message_seen(f)
    if message is not None:  # it raises the right exception, with another message: never "does not raise"
        shown = f"is {_span(message)}" if message else "does not match"
        raised = f.expected or "exception"
        return f"ends with {_article(raised)} {_span(raised)} whose message {shown}"
    if f.kind == "raises" and (observed == "no exception" or not error):
        return "does not warn" if f.warns else "does not raise"
    if error:
        return f"raises {_span(error if _short(error, 120) else error.split(':')[0])}"
    if f.kind == "truthy" and observed.startswith("not "):  # pytest's `assert not 'Fixing ...'`: the value is after it
        observed = observed[4:]
    explained = _CALL_EXPLAINED.fullmatch(observed) if f.kind == "truthy" else None
    if explained and explained[1] == explained[2] and _short(explained[4], 100):
        # pytest's `None (where None = <function search at …>('\\w+$', 'past.'))`: the call, with its values
        return f"gives {_span(explained[1])} (it runs {_span(f'{explained[3]}({explained[4]})')})"
    if f.kind == "truthy" and (bare := _EXPLAINED.fullmatch(observed)):
        observed = bare[1]  # `False (where False = <built-in method startswith of str object at …>(...))`
    shown = _value(observed, f.reproduction or "")
    if shown:
        return f"gives {shown}"
    difference = _text_difference(observed, f.expected or "") if f.kind == "compare" and f.op == "==" else ""
    if difference:
        return difference
    checked_left = _checked_side_is_left(f)
    difference = _sequence_difference(f.message or "", checked_left) if checked_left is not None else ""
    if difference:
        return difference
    if f.kind == "compare" and f.op in ("in", "not in") and observed and not _element_checked(f):
        # the container is too long to quote; the fact is not
        return "does not contain it" if f.op == "in" else "contains it"
    if f.kind == "truthy":  # `assert not x` / assertFalse fail on a true value
        return "is true" if f.expected == "false" else "is false"
    return _VAGUE_SEEN


def _without_test_scopes(error: str) -> str:
    """An error without the test's own scopes in a qualname (`TestX.test_y.<locals>.Cls.__init__()`
    is `Cls.__init__()`): a solver cannot find the test's names in the repository."""
    return re.sub(r"\b(?:\w+\.)*<locals>\.", "", error)


def _text_difference(observed: str, expected: str) -> str:
    """Where a text too long to quote inline first differs from the required one, as a verb
    phrase ("gives text whose line 3 is ... where ... is expected"); "" when either is no
    whole string literal, or the runner cut it (its lines are not the value's: python-hcl2's
    "line 7 is `'  scientific_po ...     euler = 2.71828'`")."""
    if " ... " in observed or " ... " in expected:
        return ""
    try:
        got, want = ast.literal_eval(observed), ast.literal_eval(expected)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return ""
    if not (isinstance(got, str) and isinstance(want, str)) or got == want:
        return ""
    lines, wanted = got.split("\n"), want.split("\n")
    for n, (line, wanted_line) in enumerate(zip(lines, wanted), 1):
        if line != wanted_line:
            if not (_short(repr(line), 120) and _short(repr(wanted_line), 120)):
                return ""
            return f"gives text whose line {n} is {_span(repr(line))} where {_span(repr(wanted_line))} is expected"
    n = min(len(lines), len(wanted))
    if len(lines) < len(wanted) and _short(repr(wanted[n]), 120):
        return f"gives text that ends after line {n}, where line {n + 1} should be {_span(repr(wanted[n]))}"
    if len(lines) > len(wanted) and _short(repr(lines[n]), 120):
        return f"gives text with a line {n + 1} too many, {_span(repr(lines[n]))}"
    return ""


_INDEX_DIFF = re.compile(r"^\s*At index (\d+) diff: (.+)$", re.M)
_MORE_ITEMS = re.compile(r"^\s*(Left|Right) contains (one|\d+) more items?(?:, first extra item)?: (.+)$", re.M)


def _checked_side_is_left(f: FailureEvidence) -> bool | None:
    """Whether the checked value is the left side of the failing `==` (pytest's diff speaks of
    "Left" and "Right"), as the producer decided it; None when it did not say."""
    if f.kind != "compare" or f.op != "==" or f.checked_side not in ("left", "right"):
        return None
    return f.checked_side == "left"


def _sequence_difference(message: str, checked_left: bool = True) -> str:
    """What pytest's diff of two sequences too long to print says the checked value gives, as a
    verb phrase ("gives a sequence whose item 0 is `a` where `b` is expected, and lacks the
    item `c`"): the run printed these values, the statement quotes them. "" when it said none.
    `checked_left`: the checked value is the left side of the `==` pytest diffed."""
    parts = []
    at = _INDEX_DIFF.search(message)
    if at:
        sides = at.group(2).split(" != ")
        if len(sides) == 2 and all(_short(side.strip(), 120) for side in sides):
            got, want = (side.strip() for side in (sides if checked_left else reversed(sides)))
            parts.append(f"whose item {at.group(1)} is {_span(got)} where {_span(want)} is expected")
    more = _MORE_ITEMS.search(message)
    if more and _short(more.group(3).strip(), 120):
        item, many = _span(more.group(3).strip()), more.group(2) != "one"
        if (more.group(1) == "Right") == checked_left:  # the required value has items the checked one lacks
            parts.append(f"lacks {'items, the first' if many else 'the item'} {item}")
        else:
            parts.append(f"has {'extra items, the first' if many else 'an extra item'} {item}")
    if not parts:
        return ""
    return "gives a sequence " + ", and ".join(parts) if at else "gives a sequence that " + parts[0]


_RELATION = {
    "==": "be",
    "is": "be",
    "!=": "differ from",
    "is not": "not be",
    "in": "contain",
    "not in": "not contain",
    "<": "stay below",
    "<=": "be at most",
    ">": "exceed",
    ">=": "be at least",
}
_CLOCK = re.compile(
    r"\b(?:time\.(?:time|perf_counter|monotonic|process_time)(?:_ns)?|perf_counter|process_time|timeit)\b"
)


def _timed(f: FailureEvidence) -> bool:
    """The check bounds a duration the snippet measures (`assert elapsed < 0.5`): the problem
    is slowness, not a wrong value."""
    return f.kind == "compare" and f.op in ("<", "<=") and bool(_CLOCK.search(f.reproduction or ""))


def _want_clause(f: FailureEvidence, where: str = "below", snippet_shown: bool = True) -> str:
    """What the failing check requires, as "it should ..." (`where`: the whole value's block is
    given below or above); "" when only the snippet could say it and none is shown (a test
    stated in one line)."""
    if f.raised:
        return _raised_want(f, where, snippet_shown)
    at_the_end = "the comparison at the end of the snippet should hold" if snippet_shown else ""
    expected, code = f.expected or "", f.reproduction or ""
    if f.kind == "raises":
        match = f" with a message matching {_span(f.match)}" if f.match else ""
        return f"it should {'warn with' if f.warns else 'raise'} {_span(expected or 'an exception')}{match}"
    if f.kind == "compare" and expected:
        shown = _value(expected, code, 200)
        relation = _RELATION.get(f.op or "==")
        if _element_checked(f):
            relation = "be one of" if f.op == "in" else "not be one of"
        if shown and relation:
            exact = " exactly" if f.exact and relation == "be" else ""
            return f"it should {relation}{exact} {shown}"
        if shown and f.call and not f.unbound:
            return f"{_span(_comparison(f))} should hold"
        if whole_value(f):
            return f"it should {relation} the {'text' if _is_text(expected) else 'value'} given in full {where}"
        return at_the_end
    if f.kind == "error":
        return "it should not raise"
    if f.kind == "compare":  # the required value is the snippet's own local: the snippet states it
        return at_the_end
    return f"it should be {expected or 'true'}"


def _element_checked(f: FailureEvidence) -> bool:
    """A membership check of a computed element in a fixed container (`surname in
    RuProvider.last_names`): the call is the element, the expected value the container."""
    return f.kind == "compare" and f.op in ("in", "not in") and f.checked_side == "left"


def _comparison(f: FailureEvidence) -> str:
    """The failing comparison as the test wrote it: for `in`, the call is the container, so
    the expected element comes first (`'a' in lines[0]`, never `lines[0] in 'a'`); an ordering
    the evidence read from its right side is written back (`cab <= complement('a')` runs
    `cab.__le__`, and `complement('a') >= cab` another method, which may not fail)."""
    if f.op in ("in", "not in") and not _element_checked(f):
        return f"{f.expected} {f.op} {f.call}"
    if f.checked_side == "right" and f.op in MIRRORED_ORDERINGS:
        return f"{f.expected} {MIRRORED_ORDERINGS[f.op]} {f.call}"
    return f"{f.call} {f.op} {f.expected}"


WHOLE_LINES = 60  # a required value longer than this is not given in full


def _is_text(value: str) -> bool:
    try:
        return isinstance(ast.literal_eval(value), str)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return False


def whole_value(f: FailureEvidence) -> str:
    """The value a comparison requires, when it is too long to quote inline, as a block to show
    whole: a text by its own lines, a literal structure pretty-printed. "" when it is short,
    no literal (a name, a call), or too long even for a block. Computed once per value: the
    clauses, the cases and the blocks of a failure all ask for it."""
    return _whole_block(f.expected or "", f.kind, f.op or "==")


@functools.lru_cache(maxsize=256)
def _whole_block(expected: str, kind: str, op: str) -> str:
    if kind != "compare" or op not in ("==", "in", "not in") or _short(expected, 200):
        return ""
    if " ... " in expected or _CUT.search(expected):  # the runner's cut: given "in full" it would be wrong
        return ""
    try:
        value = ast.literal_eval(expected)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return ""
    text = value if isinstance(value, str) else pprint.pformat(value, width=88, sort_dicts=False)
    if not isinstance(value, str) and _flat(text) != _flat(repr(value)):  # pprint cut a string in pieces
        text = repr(value)
    if not text.strip() or text.count("\n") >= WHOLE_LINES or "```" in text:
        return ""
    return f"```text\n{text.rstrip(chr(10))}\n```"


def _whole_part(f: FailureEvidence) -> str:
    """The value `f`'s call must give, too long to quote inline, as a paragraph and its block;
    "" when it is short enough to quote or cannot be shown whole."""
    block = whole_value(f)
    if not block:
        return ""
    noun = "text" if _is_text(f.expected) else "value"
    if f.raised:  # the caught exception's message: the call raises it
        part = _exception_part(f) or noun
        wanted = f"raise {_span(f.raised)} with exactly this {part}" if f.op == "==" else f"raise {_span(f.raised)}"
        return f"{_capitalize(_raising_subject(f))} should {wanted}:\n\n{block}"
    subject = _span(f.call) if f.call and not f.unbound and _short(f.call, 120) else "The snippet's last check"
    relation = {"in": "contain", "not in": "not contain"}.get(f.op or "==", "give exactly")
    if _element_checked(f):
        relation, noun = ("be one of" if f.op == "in" else "not be one of"), "these values"
        return f"{subject} should {relation} {noun}:\n\n{block}"
    return f"{subject} should {relation} this {noun}:\n\n{block}"


def _whole_values(failures: list[FailureEvidence], shown: set[str] = frozenset()) -> str:
    """The blocks of the required values too long to quote inline that no snippet of theirs
    gave already (`shown`), each under the call that must give it (a snippet's one-line literal
    is no text a reader can compare with)."""
    parts, seen, lines, left = [], set(shown), 0, 0
    for f in failures:
        block = whole_value(f)
        if not block or block in seen:
            continue
        seen.add(block)
        if lines + block.count("\n") > WHOLE_LINES * 2:
            left += 1
            continue
        lines += block.count("\n")
        parts.append(_whole_part(f))
    if left:
        parts.append(f"The full values {left} more of these calls require are too long to give here.")
    return "\n\n".join(parts)


def _outcome_core(f: FailureEvidence, phr: _Phraser | None = None) -> str:
    subject = _subject(f, "the last line")
    if _timed(f):
        seen = f", {subject} reaches {_span(f.observed)}" if f.observed else ""
        return f"The snippet is too slow on the current code{seen}; {_want_clause(f)}."
    if f.kind == "error":
        return f"Right now the last line raises {_span(f.error)}; it should not raise."
    if _gives_up(f):
        return f"Right now the snippet fails with {_message(f.observed)}; it should run to its end."
    if f.kind in ("fail", "helper"):
        # a long call is the snippet's last line: quoted again, it would repeat the block
        shown = f.kind == "helper" and f.call and _short(f.call, 120)
        what = (
            f"the check inside {_span(f.call)}"
            if shown
            else "the check the last line runs"
            if f.call
            else "the snippet"
        )
        return f"Right now {what} fails with {_message(f.observed)}." if f.observed else f"Right now {what} fails."
    forms = [
        "Currently {subject} {seen}; {want}.",
        "On the current code {subject} {seen}, but {want}.",
        "{Subject} {seen} at the moment; {want}.",
    ]
    form = phr.pick(forms) if phr else forms[0]
    if f.kind == "raises":
        subject = "the snippet"
    elif _raising_comparison(f):
        return _fmt(form, {"subject": _raising_comparison(f), "seen": _seen_clause(f), "want": "it should hold"})
    seen = _seen_of(f, subject)
    if ", but " in seen and ", but {want}" in form:  # one "but" to a sentence
        form = forms[0]
    return _fmt(form, {"subject": subject, "seen": seen, "want": _want_clause(f)})


def _gives_up(f: FailureEvidence) -> bool:
    """The test gives up (`pytest.fail(...)`, an `AssertionError` it raises) where the behaviour it
    waits for does not come: no value of a call is checked, the snippet must run to its end."""
    return bool(re.match(r"raise\s+AssertionError\b", f.call or "") and f.observed)


def _message(observed: str) -> str:
    """A failed check's own message, quoted as prose: `False is not true` is no code a reader runs."""
    return 'the message "' + " ".join(str(observed).split()) + '"'


def _raising_comparison(f: FailureEvidence) -> str:
    """The failing comparison as a span when evaluating it raised (`v < t` raises `TypeError`):
    the comparison raised, not its left side. "" otherwise."""
    if f.error and f.kind == "compare" and f.op not in ("==", "is") and _short(_comparison(f), 120) and not f.raised:
        return _span(_comparison(f))
    return ""


def _seen_of(f: FailureEvidence, subject: str) -> str:
    """`_seen_clause` after `subject`: a value described in words is "wrong", never "gives a different value"."""
    seen = _seen_clause(f)
    return "is wrong" if seen == _VAGUE_SEEN and not subject.startswith("`") else seen


def _request_core(f: FailureEvidence, missing: str, phr: _Phraser | None = None) -> str:
    forms = [
        "{name} does not exist yet; the snippet shows how it should work, and {want}.",
        "There is no {name} yet. With it, the snippet above should run, and {want}.",
        "The snippet needs {name}, which is not there yet; once it is, {want}.",
    ]
    form = phr.pick(forms) if phr else forms[0]
    want = _want_clause(f) if f.kind in ("compare", "raises", "truthy") else "it should run without an error"
    if f.kind in ("compare", "truthy") and want.startswith(
        "it "
    ):  # "it" would be the missing name: say what is checked
        call = _checked_call(f)
        short = bool(call) and _short(call, 80) and not f.unbound
        want = f"{_span(call)} {want[3:]}" if short else "the comparison at the end of the snippet should hold"
    if want == "it should run without an error" and "should run, and" in form:  # said once
        form = form.replace("should run, and {want}", "should run without an error")
    return _fmt(form, {"name": _span(_missing_named(f, missing)), "want": want})


def _call_form_core(f: FailureEvidence, form: CallForm, phr: _Phraser | None = None) -> str:
    """The call form asked for: the function applied directly to the function it wraps (the
    test's own example), the default it should then use when the tests state it, what the
    check needs with it, and what the current code does instead (the observed run)."""
    fn, decorator = _span(form.function), _span("@" + form.function)
    example = "" if form.example.startswith("@") else f"{_span(form.example)} and "
    default = f", using the default {_span(form.parameter)} of {_span(form.default)}" if form.default else ""
    forms = [
        "{fn} should also accept the function to wrap directly, as in {example}{decorator} "
        "with no parentheses{default}.",
        "Used as a bare decorator ({example}{decorator} without parentheses), {fn} should wrap the function{default}.",
        "It should be possible to apply {fn} without calling it first: {example}{decorator} "
        "should wrap the function{default}.",
    ]
    form_text = phr.pick(forms) if phr else forms[0]
    text = form_text.format(fn=fn, example=example, decorator=decorator, default=default)
    subject = _subject(f, "the check")
    want = _want_clause(f)
    want = f"{subject} {want[3:]}" if want.startswith("it ") else want
    text += f" Then {want}."
    seen = _seen_clause(f)
    if seen != _VAGUE_SEEN:  # what happens today, in the run's own words
        text += f" Today the function is taken as {_span(form.parameter)}, and {subject} {seen}."
    return text


_BUILTIN_TYPES = ("int", "float", "str", "bytes", "bool", "list", "dict", "tuple", "set", "frozenset")


def _type_core(f: FailureEvidence) -> str:
    """A check of a value's builtin type (`isinstance(v.major, int)`, `type(r.code) is int`,
    also when the failing line only says `type(r.code) is not ...` and a later one `is int`):
    what the value should be, and what type the run saw instead. "" for any other check."""
    subject = _subject(f, "")
    try:
        call = ast.parse(subject.strip("`"), mode="eval").body if subject.startswith("`") else None
    except SyntaxError:
        return ""
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.args):
        return ""
    value = unparse(call.args[0])
    first = next((ln.strip() for ln in (f.message or "").splitlines() if ln.strip()), "")
    if call.func.id == "isinstance" and len(call.args) == 2 and f.kind == "truthy":
        wanted = unparse(call.args[1])
        seen = re.search(r"where False = isinstance\((.+), \w+\)\)?$", f.observed or "")
        try:
            seen_type = type(ast.literal_eval(seen.group(1))).__name__ if seen else ""
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            seen_type = ""
        exact = False
    elif call.func.id == "type" and f.kind == "compare" and f.op in ("is", "is not", "==", "!="):
        code = f"{f.check or ''}\n{f.rest or ''}"
        checked = re.escape(_checked_text(f) or (f.call or "").strip())
        wanted_m = re.search(rf"(?<![\w.]){checked}\s*(?:is|==)\s*(\w+)\s*$", code, re.M)
        wanted = wanted_m.group(1) if wanted_m else ""
        seen = re.match(r"assert <(?:class|enum) '([\w.]+)'>", first)
        seen_type = seen.group(1).split(".")[-1] if seen else ""
        exact = True
    else:
        return ""
    if wanted not in _BUILTIN_TYPES or not _short(value, 80):
        return ""
    if exact:
        text = f"{_span(value)} should be of type {_span(wanted)} itself, not of a subclass"
    else:
        text = f"{_span(value)} should be {_article(wanted)} {_span(wanted)}"
    if seen_type and seen_type != wanted:
        text += f"; on the current code it is {_article(seen_type)} {_span(seen_type)}"
    return text + "."


def _article(word: str) -> str:
    return "an" if word[:1].lower() in "aeiou" else "a"


def _checked_text(f: FailureEvidence) -> str:
    """The checked side of an assert's comparison in the test's own words (`type(r.code)` in
    `assert type(r.code) is not X`, before any inlining); "" when it is none."""
    compare = _asserted_comparison(f.check or "")
    if compare is None:
        return ""
    return unparse(compare.comparators[0] if f.checked_side == "right" else compare.left)


def _asserted_comparison(check: str) -> ast.Compare | None:
    """The comparison an `assert` line makes, as the test wrote it; None for any other check."""
    try:
        node = ast.parse(check.strip()).body[0]
    except (SyntaxError, IndexError):
        return None
    test = node.test if isinstance(node, ast.Assert) else None
    return test if isinstance(test, ast.Compare) else None


def _reported(f: FailureEvidence) -> str:
    """pytest's own line for the failed assert ("assert '1 Bytes' == '1 Byte'"), when short."""
    first = next((ln.strip() for ln in (f.message or "").splitlines() if ln.strip()), "")
    if f.kind == "compare" and first.startswith("assert ") and len(first) <= 160 and "..." not in first and not f.error:
        if _placeholder(f.expected or "", f.reproduction or "") or re.search(r"\bat 0x[0-9a-f]+|fd=\d+", first):
            return ""
        if not _reads_only_bound(first, f.reproduction or ""):
            return ""  # `assert tzutc() == tzfile('/usr/share/zoneinfo/UTC')`: reprs, no code a reader can run
        return f"pytest reports {_span(first)}."
    return ""


def _reads_only_bound(line: str, code: str) -> bool:
    """`line` parses, and every name it reads is a builtin or one `code` binds."""
    try:
        read = {n.id for n in ast.walk(ast.parse(line)) if isinstance(n, ast.Name)}
        tree = ast.parse(code)
    except SyntaxError:
        return False
    bound = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    bound |= {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)}
    imports = [a for n in ast.walk(tree) if isinstance(n, ast.Import | ast.ImportFrom) for a in n.names]
    bound |= {(a.asname or a.name).split(".")[0] for a in imports}
    return read <= bound | set(dir(builtins))


def _changed_inputs(f: FailureEvidence, lead: FailureEvidence) -> list[tuple[str, str]]:
    """(the lead case's value, this case's value) of each input the two cases differ in."""
    mine, theirs = f.params or {}, lead.params or {}
    # a value either case must give is what it requires, no input (a long one is given in full)
    wanted = {_flat(x.expected or "") for x in (f, lead) if whole_value(x)}
    return [(theirs.get(k, ""), v) for k, v in mine.items() if theirs.get(k) != v and _flat(v) not in wanted]


def _own_snippet_case(f: FailureEvidence, lead: FailureEvidence) -> bool:
    """A case of the lead's test that fails at another check, or goes on with other checks
    (argh a620f2ba: the `always_flush=True` case counts the flushes where the lead's asserts
    none): a line would state only its outcome, so its own snippet states it."""
    return _flat(f.check or "") != _flat(lead.check or "") or f.rest_shape() != lead.rest_shape()


def _defined_by_case(value: str, f: FailureEvidence, lead: FailureEvidence) -> bool:
    """The case's value names a function or class its own snippet defines otherwise than the
    lead's (pyee 349f91b0: `EventedFixture`, a class of the test module, "in place of"
    `CustomEmitterFixture`): a line cannot say what it is."""
    mine, theirs = helper_definitions(f.reproduction or ""), helper_definitions(lead.reproduction or "")
    return any(mine[name] != theirs.get(name) for name in re.findall(r"[A-Za-z_]\w*", value) if name in mine)


def _test_object(value: str) -> bool:
    """A repr of an object the tests define, or one with an address: no input a reader can type."""
    return bool(re.search(r"<(?:class|function|module) '?(?:tests?|testing)[._]|<[\w.]+ (?:object )?at |at …>", value))


def _replaced_line(cases: list[FailureEvidence], lead: FailureEvidence) -> str:
    """The one line of the lead's snippet that every case replaces by its own (`case = Case(...)`),
    when each case differs from the lead in that input alone: said once above the list, each
    case's line then gives only its own value (a long setup line repeated per case buries the
    values that differ). "" otherwise."""
    code = lead.reproduction or ""
    olds = set()
    for f in cases:
        changed = _changed_inputs(f, lead)
        if len(changed) != 1 or _test_object(changed[0][1]):
            return ""
        old, _ = _as_bindings(*changed[0], code, f.reproduction or "")
        olds.add(old)
    old = next(iter(olds)) if len(olds) == 1 and len(cases) > 1 else ""
    return old if old and " = " in old and _flat(old) in _flat(code) else ""


def _case_line(f: FailureEvidence, lead: FailureEvidence, shared: bool = False, replaced: str = "") -> str:
    """One other failing case of the lead's test: its input (its own call when that differs
    from the lead's, else its values in place of the lead's) and what it gives and needs
    (`shared`: what it needs is said once for all the cases; `replaced`: the lead's line that
    each case's own stands in for, said once above the list)."""
    outcome = _line_outcome(f, shared)
    call = _checked_call(f)
    changed = _changed_inputs(f, lead)
    if any(_defined_by_case(new, f, lead) for _, new in changed):
        return ""  # its own snippet shows what the value is
    usable_call = bool(call) and call != _checked_call(lead) and not f.unbound and _short(call, 160)
    # a value the line already says the call should give (the case's `expected`) is no input of it
    required = _flat(_want_clause(f)) if usable_call and not shared and f.kind == "compare" else ""
    unshown = [
        (old, new)
        for old, new in changed
        if not usable_call or (_flat(new) not in _flat(call) and _flat(_span(new)) not in required)
    ]
    if usable_call and _differs_only_in_its_call(f, lead):
        # every input the case changes is in the call it writes, whatever its repr looks like
        # (`<function <lambda> at …>`, `datetime.timedelta(days=32)` for `dt.timedelta(days=32)`)
        unshown = []
    if usable_call and not unshown:
        return f"- {_span(call)} {outcome}".rstrip()
    if not changed or any(_test_object(new) for _, new in changed):
        return ""  # no input, or one that is the tests' own object (`<class 'tests.test_x.C'>`)
    code, later = lead.reproduction or "", _flat(lead.rest or "")
    if usable_call:
        # a value its own call shows is not said again, unless the snippet's setup (all but its
        # failing line) holds the lead's (boltons' `url = URL('https://host')`); nor the value it requires
        setup = _flat("\n".join(code.splitlines()[:-1]))
        changed = [
            (old, new)
            for old, new in changed
            if (old, new) in unshown or (_flat(old) in setup and _flat(_span(new)) not in required)
        ]
    changed = [_as_bindings(old, new, code, f.reproduction or "") for old, new in changed]
    placed = [
        _span(new) if old == replaced else f"{_span(new)} in place of {_span(old)}"
        for old, new in changed
        if old and _flat(old) in _flat(code)
    ]
    # a value the lead's later checks hold (`assert text == '<h3></h3>'`) is what the case must give,
    # not an input: named in the order those checks read them, the place they go said once
    in_later = sorted(
        ((old, new) for old, new in changed if old and _flat(old) not in _flat(code) and _flat(old) in later),
        key=lambda pair: later.index(_flat(pair[0])),
    )
    wanted = [f"{_span(new)} in place of {_span(old)}" for old, new in in_later]
    if wanted:
        wanted = [
            " and ".join(wanted) + (" in the checks that follow" if len(wanted) > 1 else " in the check that follows")
        ]
    loose = [_span(new) for old, new in changed if not (old and (_flat(old) in _flat(code) or _flat(old) in later))]
    inputs = ", ".join([*placed, *([f"input {', '.join(loose)}"] if loose else []), *wanted])
    subject = _span(call) if usable_call else "the snippet"
    lead_in = "- " if replaced and inputs.startswith("`") and not usable_call else "- with "
    if not outcome:
        return f"{lead_in}{inputs}" + (f": {subject}" if usable_call else "")
    return f"{lead_in}{inputs}: {subject} {outcome}"


def _differs_only_in_its_call(f: FailureEvidence, lead: FailureEvidence) -> bool:
    """The case's snippet is the lead's but for its checked call and the value it requires (and
    the imports, which the lead's snippet gains for the listed calls)."""

    def masked(x: FailureEvidence) -> str:
        code = "\n".join(ln for ln in (x.reproduction or "").splitlines() if not re.match(r"\s*(?:import|from)\s", ln))
        for part in sorted({_checked_call(x), x.expected or ""} - {""}, key=len, reverse=True):
            code = code.replace(part, "\0")
        return _flat(code)

    return bool(f.reproduction and lead.reproduction) and masked(f) == masked(lead)


def _imports_for_call(call: str, own_code: str, lead_code: str) -> list[str]:
    """The import lines of a case's own snippet that bind a name its call reads and the lead's
    snippet leaves unbound (`import datetime as dt` for `dt.timedelta(days=32)`)."""
    try:
        read = {n.id for n in ast.walk(ast.parse(call)) if isinstance(n, ast.Name)}
        lead = ast.parse(lead_code)
    except SyntaxError:
        return []
    bound = {
        (a.asname or a.name).split(".")[0]
        for n in ast.walk(lead)
        if isinstance(n, (ast.Import, ast.ImportFrom))
        for a in n.names
    }
    bound |= {n.id for n in ast.walk(lead) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    out = []
    for line in own_code.splitlines():
        if re.match(r"(?:import|from) \w", line):
            try:
                names = {(a.asname or a.name).split(".")[0] for a in ast.parse(line).body[0].names}
            except (SyntaxError, IndexError, AttributeError):
                continue
            if names & (read - bound):
                out.append(line)
    return out


def _as_bindings(old: str, new: str, lead_code: str, code: str) -> tuple[str, str]:
    """The two values as the lines of the snippets that bind them (`flag = True` in place of
    `flag = False`) when each snippet binds its value on one line of its own: a bare `True` in
    place of `False` leaves the reader to find which `False` is meant; else the values."""

    def binding(value: str, text: str) -> str:
        lines = [ln for ln in text.splitlines() if re.fullmatch(rf"[A-Za-z_]\w* = {re.escape(value)}", ln)]
        return lines[0] if len(lines) == 1 else ""

    was, now = binding(old, lead_code), binding(new, code)
    if was and now and was.split(" = ")[0] == now.split(" = ")[0]:
        return was, now
    return old, new


def _same_run(f: FailureEvidence, lead: FailureEvidence) -> bool:
    """The case runs the lead's very snippet and fails the same way, though it differs in plain
    parameter values: the producer writes a value the test reads into the snippet, so the test
    takes these and never reads them (a fixture's setting). Listed as "with input `True`", the
    case would name nothing. (A value that is the tests' own object may just not be written in.)"""
    same = (_flat(f.reproduction or ""), f.kind, f.observed, f.expected, f.error, " ".join((f.rest or "").split()))
    if not f.reproduction or same != (
        _flat(lead.reproduction or ""),
        lead.kind,
        lead.observed,
        lead.expected,
        lead.error,
        # the checks after it read the case's values, quotes and all (DataProperty's dequote cases)
        " ".join((lead.rest or "").split()),
    ):
        return False
    changed = [v for k, v in (f.params or {}).items() if (lead.params or {}).get(k) != v]
    return bool(changed) and not any(_test_object(v) for v in changed)


def _flat(text: str) -> str:
    return " ".join(str(text).replace('"', "'").split())


CASES = 40  # parametrized cases of one test listed; the rest are counted
TESTS = 16  # failing tests shown with their snippet: each needs its own setup to be stated
LISTED = 32  # failing tests beyond those, one line each; the rest are counted (the words' budget permitting)
_CASE_HEADS = [
    "The same check fails for other inputs:",
    "Other inputs fail the same way:",
    "It is not only this input:",
]
# a snippet that starts with the lines the one above sets up shows only what follows them
_SAME_SETUP_HEADS = [
    f"Also, with {SAME_SETUP}{{through}}:",
    f"It also fails with {SAME_SETUP}{{through}}:",
    f"Another failing case, on {SAME_SETUP}{{through}}:",
]
SHARED_SETUP_LINES = 5  # fewer shared lines are shown again: a snippet reads best whole
_LISTED_HEADS = ["These calls fail as well:", "More calls that go wrong:", "The same problem shows in these calls:"]


def evidence_section(
    groups: list[list[FailureEvidence]],
    phr: _Phraser,
    reproduce: bool,
    limit: int,
    missing: dict[str, str] | None = None,
    forms: dict[str, CallForm] | None = None,
    tests_at_most: int = TESTS,
    listed_at_most: int = LISTED,
    cases_at_most: int = CASES,
    *,
    intents: dict[str, str] | None = None,
    unseen: int = 0,
    only_import: dict[str, tuple[str, str]] | None = None,
    also_new: dict[str, list[str]] | None = None,
) -> str:
    """A self-contained reproduction per failing test (what the test requires after the failing
    check included): the first `limit` with pytest's own line, the others up to `tests_at_most`
    with their outcome only, then up to `listed_at_most` more as one line each (call, outcome,
    requirement), the rest counted; each parametrized test's other cases listed (up to
    `cases_at_most`, then counted),
    a case whose input is the tests' own object by its own snippet when it has one. A snippet
    already shown is not repeated. `missing`: test id -> the name the change adds that the
    test's error says is absent; `forms`: test id -> the call form it uses that is not offered
    yet (each stated as a request); `intents`: test id -> the test's own description of what it
    requires, which states a failing test left out (up to `OWN_WORDS_AT_MOST`); `unseen`: the
    failing tests past the evidence (none was reported for them), counted with the rest;
    `only_import`: test id -> (module, name) of the tests that fail only because the module
    lacks the name (`_only_import`), counted per name; `also_new`: module -> the other names
    the change adds that the failing tests import from it (`_also_imported`)."""
    missing, forms = missing or {}, forms or {}
    parts: list[str] = []
    shown_code: set[str] = set()
    listed: list[str] = []
    untold: list[FailureEvidence] = []  # counted, not stated
    unquoted: list[FailureEvidence] = []  # of those, tests within the caps whose snippet cannot be quoted
    shown_whole: set[str] = set()  # the whole values given under their own snippet

    above: list[str] = []  # the last snippet's whole code, while no other block follows it
    shown_as: dict[str, str] = {}  # a snippet's code -> the code its block shows

    def snippet(f: FailureEvidence, with_pytest_line: bool) -> str:
        code = (f.reproduction or "").strip()
        shown_code.add(_flat(code))
        shown, through = _after_shared_setup(code, above[-1]) if above else (code, "")
        if shown != code and _flat(shown) not in shown_code:
            shown_code.add(_flat(shown))
            through = f" (every line through {_span(through)})" if through else ""
            head = phr.pick(_SAME_SETUP_HEADS).format(through=through)
        else:
            head = phr.pick(EVIDENCE_HEADS if reproduce else _PLAIN_HEADS) if not parts else phr.pick(MORE_HEADS)
            shown, defined = _without_helpers_above(code, list(shown_as.values()))
            if defined:
                head = f"{head[:-1]}, with {and_listed([_span(n) for n in defined])} {DEFINED_ABOVE}:"
        shown_as[code] = shown
        above[:] = [code]
        outcome = _outcome_sentence(f, phr, missing.get(f.test_id, ""), forms.get(f.test_id))
        text = f"{head}\n\n```python\n{fence_safe(shown)}\n```\n\n{outcome}"
        reported = _reported(f) if with_pytest_line else ""
        if reported:
            text += f" {reported}"
        whole = _whole_part(f) if whole_value(f) not in shown_whole else ""
        if whole:  # right under its snippet, where "given in full below" points
            shown_whole.add(whole_value(f))
            text += f"\n\n{whole}"
        if f.rest:  # what the test requires after the failing check is part of the requirement
            rest = _rest_section(f, phr)
            text += f"\n\n{rest}" if rest else ""  # "above" stays this snippet: the rest's block goes on from it
        return text

    for index, group in enumerate(groups):
        f = group[0]
        code = (f.reproduction or "").strip()
        if index >= tests_at_most:
            for other in group:
                line = _listed_line(other)
                if line and len(listed) < listed_at_most:
                    listed.append(line)
                else:
                    untold.append(other)
            continue
        if _quotable(f) and _flat(code) in shown_code:
            text = ""
        elif _quotable(f):
            text = snippet(f, index < limit)
        elif (
            f.call
            and not f.unbound
            and _short(f.call, 160)
            and not _reprs_alike(f)
            and _want_clause(f, snippet_shown=False)
        ):
            text = f"{_capitalize(_span(f.call))} {_seen_clause(f)}; {_want_clause(f, snippet_shown=False)}."
        else:
            text = ""
            untold.append(f)
            unquoted.append(f)
        lead_part = len(parts) if text and f"```python\n{fence_safe(shown_as.get(code, code))}\n```" in text else -1
        if text:
            parts.append(text)
            text = ""
        wants = {_want_clause(other) for other in group[1:cases_at_most]}
        shared = len(group) > 3 and len(wants) == 1  # the rule the cases share, said once
        listed_cases = [
            other
            for other in group[1:cases_at_most]
            if not _same_run(other, f) and not (_own_snippet_case(other, f) and _quotable(other))
        ]
        replaced = _replaced_line(listed_cases, f) if text or _quotable(f) else ""
        cases: list[str] = []
        case_imports: list[str] = []  # what the listed calls read that the lead's snippet does not import
        for other in group[1:cases_at_most]:
            if _same_run(other, f):
                continue  # its parameter never reaches the code the snippet shows: the lead states it
            line = "" if _own_snippet_case(other, f) and _quotable(other) else _case_line(other, f, shared, replaced)
            if line:
                cases.append(line)
                # what its call or its own values read (charset_normalizer's `BytesIO(...)` in place of a bytes value)
                for read in (_checked_call(other), *(new for _, new in _changed_inputs(other, f))):
                    case_imports += _imports_for_call(read, other.reproduction or "", code)
            elif _quotable(other) and _flat(other.reproduction or "") not in shown_code:
                parts.append(snippet(other, False))  # its input is the tests' own object: its snippet shows it
            else:
                untold.append(other)
        untold += group[cases_at_most:]
        if cases:
            head = f"For each of these inputs, too, {next(iter(wants))}:" if shared else phr.pick(_CASE_HEADS)
            target = replaced.partition(" = ")[0]
            if replaced and any(line.startswith(f"- `{target} = ") for line in cases):
                instead = f"with each of these lines in place of {_span(replaced)} in the snippet"
                head = f"{_capitalize(instead)}, too, {next(iter(wants))}:" if shared else f"{head[:-1]}, {instead}:"
            if case_imports and lead_part >= 0:  # `dt.timedelta(days=32)` in a listed call: the snippet imports `dt`
                lead_code = fence_safe(shown_as.get(code, code))
                imports = "\n".join(dict.fromkeys(case_imports))
                parts[lead_part] = parts[lead_part].replace(
                    f"```python\n{lead_code}\n```", f"```python\n{imports}\n{lead_code}\n```", 1
                )
            parts.append(head + "\n" + "\n".join(cases))
    if listed:
        parts.append(phr.pick(_LISTED_HEADS) + "\n" + "\n".join(listed))
    # the values the stated failures need in full ("given in full below"), never a counted one's
    whole = _whole_values([f for group in groups for f in group if not any(f is u for u in untold)], shown_whole)
    if whole:
        parts.append(whole)
    if untold or unseen:
        stated = [f for g in groups for f in g if not any(f is u for u in untold)]
        described = _described_in_own_words(untold, stated, intents or {})
        parts += [f'{phr.pick(_OWN_WORDS_HEADS)} "{(intents or {})[f.test_id]}"' for f in described]
        untold = [u for u in untold if not any(u is d for d in described)]
        # a test whose setup cannot be quoted (lark's factory-made classes read `_Lark`, `LEXER`)
        # still says what it runs and what it wants
        on_own_setup = _on_own_setup([u for u in untold if any(u is q for q in unquoted)], [*stated, *described])
        parts += [sentence for _, sentence in on_own_setup]
        untold = [u for u in untold if not any(u is f for f, _ in on_own_setup)]
        if untold or unseen:
            parts.append(_untold_sentence(untold, [*stated, *described, *(f for f, _ in on_own_setup)], unseen))
    for module, names in (also_new or {}).items():
        spans = and_listed([_span(n) for n in names])
        lack = "does not have it yet" if len(names) == 1 else "has none of them yet"
        parts.append(f"The failing tests also import {spans} from {_span(module)}, which {lack}.")
    for (module, name), n in collections.Counter((only_import or {}).values()).items():
        parts.append(import_only_sentence(n, module, name, more=True))
    return "\n\n".join(parts)


OWN_SETUP_AT_MOST = 6  # failing tests beyond the snippets stated by their call alone
_OWN_SETUP_FORMS = [
    "Another failing test runs {call} on a setup of its own, where it {outcome}.",
    "One more failing test builds its own setup and then runs {call}: it {outcome}.",
]


def _on_own_setup(untold: list[FailureEvidence], stated: list[FailureEvidence]) -> list[tuple[FailureEvidence, str]]:
    """The failures left out that a sentence can still state by their call and its outcome (the
    setup is the test's own, and cannot be quoted), one per test and none of a test already
    stated, up to `OWN_SETUP_AT_MOST`."""
    seen = {without_parameters(f.test_id) for f in stated}
    said = {_flat(_checked_call(f)) for f in stated}  # a call already stated fails "like these"
    out: list[tuple[FailureEvidence, str]] = []
    for f in untold:
        call, test = _checked_call(f), without_parameters(f.test_id)
        # a call of the code (not `e.value.args`, which reads what the setup made) checked for a value or an exception
        calls = (
            call and _short(call, 120) and f.kind in ("compare", "raises") and "(" in call and _flat(call) not in said
        )
        outcome = _line_outcome(f, snippet_shown=False) if calls and not _reprs_alike(f) else ""
        if not outcome or test in seen or len(out) >= OWN_SETUP_AT_MOST or ";" not in outcome:
            continue  # `;`: both what it does today and what it should do
        seen.add(test)
        form = _OWN_SETUP_FORMS[len(out) % len(_OWN_SETUP_FORMS)]
        out.append((f, form.format(call=_span(call), outcome=outcome)))
    return out


_OWN_WORDS_HEADS = [
    "Another failing test requires, in its own words:",
    "One more failing test, in its own words:",
    "A further failing test describes what it needs:",
]
OWN_WORDS_AT_MOST = 3  # failing tests beyond the snippets that their own description states


def _described_in_own_words(
    untold: list[FailureEvidence], stated: list[FailureEvidence], intents: dict[str, str]
) -> list[FailureEvidence]:
    """The failures left out whose test describes what it requires (its docstring or leading
    comment), one per test and none of a test already stated, up to `OWN_WORDS_AT_MOST`."""
    seen = {without_parameters(f.test_id) for f in stated}
    said: set[str] = set()  # a test inherited by two test classes describes itself twice alike
    out: list[FailureEvidence] = []
    for f in untold:
        test, intent = without_parameters(f.test_id), intents.get(f.test_id, "")
        if intent and test not in seen and intent not in said and len(out) < OWN_WORDS_AT_MOST:
            seen.add(test)
            said.add(intent)
            out.append(f)
    return out


def _without_helpers_above(code: str, earlier: list[str]) -> tuple[str, list[str]]:
    """`code` without the helpers it defines (a test module's check functions, bigtree's
    `assert_tree_structure_node_root` in each of its tests' snippets) that the nearest earlier
    snippet defining any of them shows word for word, and their names: a long test module's
    failing tests fit the statement when each helper is shown once. `(code, [])` when fewer than
    `SHARED_SETUP_LINES` lines would go, or none is left to run."""
    own = helper_definitions(code)
    prior = next((d for d in map(helper_definitions, reversed(earlier)) if own.keys() & d.keys()), {})
    # only those among the snippet's leading imports and definitions: the check runs them right
    # after the imports, and a later one's decorator or base may read what a line before it sets
    leading = _leading_definitions(code)
    same = [name for name, text in own.items() if prior.get(name) == text and name in leading]
    if sum(own[name].count("\n") + 1 for name in same) < SHARED_SETUP_LINES:
        return code, []
    shown = code
    for name in same:
        shown = shown.replace(own[name] + "\n", "", 1)
    tree = _parse_or_none(shown)
    if tree is None or not tree.body or all(isinstance(n, ast.Import | ast.ImportFrom) for n in tree.body):
        return code, []
    return shown, same


def _leading_definitions(code: str) -> set[str]:
    """The functions and classes `code` defines before its first statement that is neither an
    import nor a definition."""
    names: set[str] = set()
    for node in getattr(_parse_or_none(code), "body", []):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif not isinstance(node, ast.Import | ast.ImportFrom):
            break
    return names


def _parse_or_none(code: str) -> ast.Module | None:
    try:
        return ast.parse(code)
    except SyntaxError:
        return None


def _after_shared_setup(code: str, above: str) -> tuple[str, str]:
    """`code` without its first statements when they are `above`'s setup lines (all its statements
    but the last, its failing check), and the last of those statements when it is one short line
    (to name where the shown code picks up); `(code, "")` when fewer than `SHARED_SETUP_LINES`
    lines are shared. The shared lines are `above`'s in order, though `above` may have setup
    lines between them that `code` lacks (an import or a mock only it uses), and `code` may have
    imports of its own among them, shown first. Nothing is shared when a setup line of `above`
    that `code` lacks binds a name the rest of `code` reads, or an import of `code`'s own rebinds
    a name the shared lines read (the shared run would give it another value)."""
    try:
        new, old = ast.parse(code).body, ast.parse(above).body
    except SyntaxError:
        return code, ""
    setup = [_statement_text(above, node) for node in old[:-1]]
    shared: list[ast.stmt] = []
    own_imports: list[ast.stmt] = []
    matched: set[int] = set()
    k = 0  # the statements of `code` taken so far
    last_matched = -1  # statements other than imports are shared in `above`'s order
    for node in new[:-1]:
        text = _statement_text(code, node)
        importing = isinstance(node, ast.Import | ast.ImportFrom)
        after = 0 if importing else last_matched + 1
        at = next((i for i in range(after, len(setup)) if i not in matched and setup[i] == text), None)
        if at is not None:
            matched.add(at)
            shared.append(node)
            last_matched = at if not importing else last_matched
        elif importing and text not in setup:
            own_imports.append(node)
        else:
            break
        k += 1
    if sum(node.end_lineno - first_line(node) + 1 for node in shared) < SHARED_SETUP_LINES:
        return code, ""
    rest = new[k:]
    lacked = {name for i, node in enumerate(old[:-1]) if i not in matched for name in _set_by(node)}
    own = {name for node in own_imports for name in _names_in(node)}
    if _read_before_bound(rest) & lacked or own & {name for node in (*shared, *old[:-1]) for name in _names_in(node)}:
        return code, ""
    lines = code.splitlines()
    shown = [_statement_text(code, node) for node in own_imports] + lines[first_line(rest[0]) - 1 :]
    last = _statement_text(code, shared[-1])
    return "\n".join(shown), (last if "\n" not in last and len(last) <= 60 else "")


def _set_by(node: ast.stmt) -> set[str]:
    """The names a setup statement may give a value: an import's, a definition's or a plain
    assignment's own names; any name any other statement mentions (it may change that object)."""
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return {node.name}
    if isinstance(node, ast.Import | ast.ImportFrom):
        return _names_in(node)
    if isinstance(node, ast.Assign) and all(isinstance(t, ast.Name) for t in node.targets):
        return {t.id for t in node.targets if isinstance(t, ast.Name)}
    return _names_in(node)


def _read_before_bound(statements: list[ast.stmt]) -> set[str]:
    """The names `statements` read that none of them bound before (in order): what they take
    from the code run before them."""
    bound: set[str] = set()
    free: set[str] = set()
    for node in statements:
        free |= {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)} - bound
        bound |= {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            bound.add(node.name)
    return free


def _names_in(node: ast.stmt) -> set[str]:
    """Every name a statement mentions or defines (what it may bind, over-counted)."""
    names = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
    names |= {n.name for n in ast.walk(node) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)}
    imports = [a for n in ast.walk(node) if isinstance(n, ast.Import | ast.ImportFrom) for a in n.names]
    return names | {(a.asname or a.name).split(".")[0] for a in imports}


def _statement_text(code: str, node: ast.stmt) -> str:
    return "\n".join(code.splitlines()[first_line(node) - 1 : node.end_lineno])


def _untold_sentence(untold: list[FailureEvidence], stated: list[FailureEvidence], unseen: int = 0) -> str:
    """The count of the failures left out: "like these" only for cases of a stated test or
    failures of the same kind on the same function (the same exception, when one is required);
    the others are other failing tests (a deprecation warning is not "like" a ValueError), and
    so are the `unseen` ones, of which nothing is known."""

    def kind(f: FailureEvidence) -> tuple:
        return (f.function or _flat(f.call or ""), f.kind, f.expected if f.kind == "raises" else "", bool(f.warns))

    tests = {without_parameters(f.test_id) for f in stated}
    kinds = {kind(f) for f in stated}
    alike = [u for u in untold if without_parameters(u.test_id) in tests or kind(u) in kinds]
    n, others = len(alike), len(untold) - len(alike) + unseen
    said = []
    if n:
        said.append(
            f"{n} more input{'s' * (n > 1)} like these fail{'s' * (n == 1)} the same way"
            f" and {'are' if n > 1 else 'is'} not spelled out here."
        )
    if others:
        said.append(untold_sentence(others, more=bool(n or stated)))
    return " ".join(said)


def _fewer_evidence(tests: int) -> list[tuple[int, int, int]]:
    """`evidence_section`'s shorter forms (tests with a snippet, tests listed in a line, cases
    listed), each saying less: fewer snippets (the tests after them listed), then fewer listed
    tests, then fewer listed cases; what is left out is counted."""
    shown = min(tests, TESTS)
    return [
        *((n, LISTED, CASES) for n in range(shown - 1, 0, -1)),
        *((1, n, CASES) for n in range(LISTED - 1, -1, -1)),
        *((1, 0, n) for n in (20, 10, 5, 2, 1)),
    ]


def _quotable(f: FailureEvidence) -> bool:
    code = (f.reproduction or "").strip()
    return bool(code) and not f.unbound and not f.long and not _has_dead_block(code)


def _listed_line(f: FailureEvidence) -> str:
    """A failing test beyond the snippets in one line: its call, what it gives, what it needs."""
    outcome, call = _line_outcome(f, snippet_shown=False), _checked_call(f)
    if not call or f.unbound or not _short(call, 160) or not outcome or _needs_its_setup(f) or _reprs_alike(f):
        return ""
    return f"- {_span(call)} {outcome}"


def _reprs_alike(f: FailureEvidence) -> bool:
    """The two sides of the failing comparison print alike (bytecode's `<ControlFlowGraph
    block#=8>` on both): "gives X; it should be X" in prose tells nothing, only the snippet can."""
    return f.kind == "compare" and bool(f.observed) and _flat(f.observed or "") == _flat(f.expected or "")


def _checked_call(f: FailureEvidence) -> str:
    """The call a line of prose names: the failing check's, or the one that raised the exception it reads."""
    return (f.raised_by if f.raised else f.call) or ""


def _needs_its_setup(f: FailureEvidence) -> bool:
    """The call reads a name its snippet's own lines make (`e.value.args` after `with
    pytest.raises(...) as e`): alone, it states no input."""
    try:
        call, code = ast.parse(_checked_call(f), mode="eval"), ast.parse(f.reproduction or "")
    except SyntaxError:
        return True
    reads = {n.id for n in ast.walk(call) if isinstance(n, ast.Name)}
    made = {
        n.id
        for stmt in code.body
        if not isinstance(stmt, (ast.Import, ast.ImportFrom))
        for n in ast.walk(stmt)
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
    }
    # a test helper the snippet defines (`def istrue(expr): ...`): no reader has it without the snippet
    made |= {stmt.name for stmt in code.body if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
    return bool(reads & made)


_VAGUE_SEEN = "gives a different value"


def _line_outcome(f: FailureEvidence, shared: bool = False, snippet_shown: bool = True) -> str:
    """A listed call's outcome: what it gives, then what it needs (`shared`: said once for the
    list; `snippet_shown`: whether a snippet of its test is shown); a value the run could not
    show is not mentioned (the line would state nothing)."""
    seen, want = _seen_clause(f), _want_clause(f, snippet_shown=snippet_shown)
    if not want and not shared:
        return ""
    if seen == _VAGUE_SEEN:  # "it should be `x`" still says something; "the comparison ... should hold" does not
        return want.removeprefix("it ") if want.startswith("it ") and not shared else ""
    return seen if shared else f"{seen}; {want}"


def evidence_expected_actual(f: FailureEvidence, strategy: str, missing: str = "", shown: bool = True) -> str:
    """The lead failure as an expected/actual pair (the same clauses as its outcome sentence);
    "" when it could only speak of a snippet the statement does not show (`shown`)."""
    subject = _subject(f, "the snippet")
    if not shown and (not subject.startswith("`") or f.kind in ("helper", "fail")):
        return ""
    want = _want_clause(f, where="above")
    want = f"{subject} {want[3:]}" if want.startswith("it ") else want
    if missing:
        expected_text = f"{_span(_missing_named(f, missing))} exists, and {want}"
        actual = f"{_span(_missing_named(f, missing))} is not available yet"
    elif f.kind in ("helper", "fail") or _gives_up(f):
        expected_text = "the snippet runs to its end"
        actual = f"it fails with {_message(f.observed)}" if f.observed else "it fails"
    elif _raising_comparison(f):
        expected_text = f"{_raising_comparison(f)} holds"
        actual = f"{_raising_comparison(f)} {_seen_clause(f)}"
    else:
        expected_text = want
        actual = f"{subject} {_seen_of(f, subject)}"
    return f"Expected behaviour: {_capitalize(expected_text)}.\nActual behaviour: {_capitalize(actual)}."


def _requirement(f: FailureEvidence) -> str:
    """One clause: what the failing check requires."""
    call = _span(f.call) if f.call and not f.unbound else "the checked value"
    expected = f.expected or ""
    if f.kind == "raises":
        return f"{call} raises {_span(expected or 'an exception')}"
    if f.kind == "compare" and expected:
        relation = {"==": "is", "!=": "differs from", "in": "contains", "not in": "does not contain"}.get(
            f.op or "==", str(f.op)
        )
        return f"{call} {relation}{' exactly' if f.exact else ''} {_span(expected)}"
    if f.kind == "error":
        return f"{call} does not raise"
    return f"{call} is {expected or 'true'}"


def _evidence_spec(groups: list[list[FailureEvidence]]) -> str:
    spec = [f"- {_capitalize(_requirement(g[0]))}." for g in groups[:6]]
    tests = [f"- `{f.test_id}`" for g in groups for f in g]
    return "\n".join(["Specification:", *spec, "", "Tests that must pass:", *tests])
