"""The offline prompt mutator: a strategy prompt rewritten by rules for its dominant failures.

Prompt mutation rules (``mutate_prompt``)
-----------------------------------------
Dominant failure categories (count >= half the top count, at most three) add rules:
leakage -> no_leak; vague_statement / judge_reject -> reproduce, expected_actual,
name_function; duplicate -> different_angle; no_f2p / flaky -> test_behaviour, name_tests;
schema / llm_error / bad_json -> "Return only the JSON object"; timeout, build_error, patch_error,
compile_error -> nothing (not caused by the prompt). Without failures, structure shared by
most successes is reinforced, else the next missing improvement is added, else the length
rule is toggled. A rule whose directive the prompt already triggers is never added again;
rules are appended (in one of several wordings, ``PHRASINGS``, picked by a seed from the
prompt: the writer reads them by meaning), so ``{placeholders}`` are kept.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from .directives import _ACTUAL, _EXPECTED, parse_directives
from .text import seeded_rng

# Each rule in several wordings: the mutator picks one per prompt (seeded), and the writer reads
# them by meaning, so no wording is special. The first wording is the rule's canonical text.
PHRASINGS: dict[str, tuple[str, ...]] = {
    "no_leak": (
        "Never reveal the fix or quote the changed code.",
        "Keep the solution secret: do not show any of the changed code.",
        "Do not give the fix away.",
    ),
    "reproduce": (
        "Include reproduction steps built from the failing tests.",
        "Show how to reproduce the problem, step by step.",
        "Give a minimal example that triggers the failure.",
    ),
    "expected_actual": (
        "State the expected behaviour and the actual behaviour.",
        "Say what should happen and what happens instead.",
    ),
    "name_function": ("Mention the affected function by name.", "Say which function is affected."),
    "different_angle": (
        "Describe the problem from a different angle than the examples.",
        "Take a different perspective than the similar tasks.",
    ),
    "test_behaviour": ("Describe the behaviour the failing tests check.", "Explain what the failing tests verify."),
    "name_tests": ("Name the failing tests.", "List the tests that fail."),
    "hint": ("Add a short hint pointing to the relevant code.", "Give a hint about where to look."),
    "concise": ("Keep the statement concise.", "Be brief."),
    "detailed": ("Write a detailed statement.", "Be thorough and give plenty of detail."),
    "json_only": ("Return only the JSON object, with no text around it.",),
}
RULES: dict[str, str] = {name: texts[0] for name, texts in PHRASINGS.items()}
CATEGORY_RULES: dict[str, tuple[str, ...]] = {
    "leakage": ("no_leak",),
    "vague_statement": ("reproduce", "expected_actual", "name_function"),
    "judge_reject": ("reproduce", "expected_actual", "name_function"),
    "duplicate": ("different_angle",),
    "no_f2p": ("test_behaviour", "name_tests"),
    "flaky": ("test_behaviour", "name_tests"),
    "schema": ("json_only",),
    "llm_error": ("json_only",),
    "bad_json": ("json_only",),
    "timeout": (),
    "build_error": (),
    "patch_error": (),
    "compile_error": (),
}
_IMPROVEMENTS = ("name_function", "reproduce", "expected_actual", "hint", "name_tests", "test_behaviour")
_SUCCESS_FEATURES = {
    "reproduce": lambda s: "reproduc" in s.lower(),
    "expected_actual": lambda s: bool(_EXPECTED.search(s) and _ACTUAL.search(s)),
    "name_tests": lambda s: "failing tests:" in s.lower(),
}


def _present(prompt: str, rule: str) -> bool:
    if rule == "json_only":
        return "return only the json" in prompt.lower()
    return rule in parse_directives(prompt) or any(text in prompt for text in PHRASINGS[rule])


def _wording(prompt: str, rule: str) -> str:
    options = PHRASINGS[rule]
    return options[seeded_rng("wording", prompt, rule).randrange(len(options))]


def _without(prompt: str, rule: str) -> str:
    for text in PHRASINGS[rule]:
        prompt = prompt.replace(text, "")
    return re.sub(r"\n{2,}", "\n", prompt).rstrip()


def dominant_categories(failures: Sequence[dict]) -> list[tuple[str, int]]:
    """Known categories with at least half the top count, most frequent first (at most three)."""
    order = list(CATEGORY_RULES)
    counts = Counter(str(f.get("category", "")) for f in failures if isinstance(f, dict))
    known = sorted(
        ((c, n) for c, n in counts.items() if c in CATEGORY_RULES), key=lambda cn: (-cn[1], order.index(cn[0]))
    )
    if not known:
        return []
    top = known[0][1]
    return [(c, n) for c, n in known if n * 2 >= top][:3]


def mutate_prompt(context: dict) -> dict:
    """Rewrite a strategy prompt by the rules for its dominant failure categories."""
    prompt = str(context.get("prompt") or "")
    failures = [f for f in (context.get("failures") or []) if isinstance(f, dict)]
    successes = [str(s) for s in (context.get("successes") or [])]
    dominant = dominant_categories(failures)
    wanted: list[str] = []
    reasons: list[str] = []
    for category, count in dominant:
        rules = CATEGORY_RULES[category]
        reasons.append(f"{category} x{count}" + ("" if rules else " (not caused by the prompt; no rule)"))
        wanted += [r for r in rules if r not in wanted]
    if not dominant:
        wanted, reason = _rules_without_failures(prompt, successes)
        reasons.append(reason)
    added = [r for r in wanted if not _present(prompt, r)]
    new_prompt = prompt
    if "concise" in added:
        new_prompt = _without(new_prompt, "detailed")
    if "detailed" in added:
        new_prompt = _without(new_prompt, "concise")
    if added:
        new_prompt = new_prompt.rstrip() + "\n" + "\n".join(_wording(prompt, r) for r in added)
    skipped = [r for r in wanted if r not in added]
    rationale = "; ".join(reasons)
    rationale += f". Added: {', '.join(added) or 'nothing'}"
    if skipped:
        rationale += f". Already present: {', '.join(skipped)}"
    return {"prompt": new_prompt, "rationale": rationale + "."}


def _rules_without_failures(prompt: str, successes: list[str]) -> tuple[list[str], str]:
    if successes:
        shared = [
            r
            for r, has in _SUCCESS_FEATURES.items()
            if sum(has(s) for s in successes) * 2 >= len(successes) and not _present(prompt, r)
        ]
        if shared:
            return shared, "no failures; reinforcing structure shared by most successes"
    missing = [r for r in _IMPROVEMENTS if not _present(prompt, r)]
    if missing:
        pick = seeded_rng("improve", prompt).randrange(len(missing))
        return [missing[pick]], "no failures; adding one missing improvement"
    toggle = "detailed" if "concise" in parse_directives(prompt) else "concise"
    return [toggle], "no failures and every improvement present; varying the length"
