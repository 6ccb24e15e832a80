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
rules are appended, so ``{placeholders}`` are kept.
"""
from __future__ import annotations

from collections import Counter
from typing import Sequence

from .directives import _ACTUAL, _EXPECTED, parse_directives
from .text import seeded_rng

RULES: dict[str, str] = {
    "no_leak": "Never reveal the fix or quote the changed code.",
    "reproduce": "Include reproduction steps built from the failing tests.",
    "expected_actual": "State the expected behaviour and the actual behaviour.",
    "name_function": "Mention the affected function by name.",
    "different_angle": "Describe the problem from a different angle than the examples.",
    "test_behaviour": "Describe the behaviour the failing tests check.",
    "name_tests": "Name the failing tests.",
    "hint": "Add a short hint pointing to the relevant code.",
    "concise": "Keep the statement concise.",
    "detailed": "Write a detailed statement.",
    "json_only": "Return only the JSON object, with no text around it.",
}
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
    return rule in parse_directives(prompt) or RULES[rule] in prompt


def dominant_categories(failures: Sequence[dict]) -> list[tuple[str, int]]:
    """Known categories with at least half the top count, most frequent first (at most three)."""
    order = list(CATEGORY_RULES)
    counts = Counter(str(f.get("category", "")) for f in failures if isinstance(f, dict))
    known = sorted(((c, n) for c, n in counts.items() if c in CATEGORY_RULES), key=lambda cn: (-cn[1], order.index(cn[0])))
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
    if "concise" in added and RULES["detailed"] in new_prompt:
        new_prompt = new_prompt.replace(RULES["detailed"], "").rstrip()
    if "detailed" in added and RULES["concise"] in new_prompt:
        new_prompt = new_prompt.replace(RULES["concise"], "").rstrip()
    if added:
        new_prompt = new_prompt.rstrip() + "\n" + "\n".join(RULES[r] for r in added)
    skipped = [r for r in wanted if r not in added]
    rationale = "; ".join(reasons)
    rationale += f". Added: {', '.join(added) or 'nothing'}"
    if skipped:
        rationale += f". Already present: {', '.join(skipped)}"
    return {"prompt": new_prompt, "rationale": rationale + "."}


def _rules_without_failures(prompt: str, successes: list[str]) -> tuple[list[str], str]:
    if successes:
        shared = [r for r, has in _SUCCESS_FEATURES.items()
                  if sum(has(s) for s in successes) * 2 >= len(successes) and not _present(prompt, r)]
        if shared:
            return shared, "no failures; reinforcing structure shared by most successes"
    missing = [r for r in _IMPROVEMENTS if not _present(prompt, r)]
    if missing:
        pick = seeded_rng("improve", prompt).randrange(len(missing))
        return [missing[pick]], "no failures; adding one missing improvement"
    toggle = "detailed" if "concise" in parse_directives(prompt) else "concise"
    return [toggle], "no failures and every improvement present; varying the length"
