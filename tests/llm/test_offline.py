"""The offline provider: a rule-based writer, judge and mutator, driven through LLMClient."""

from __future__ import annotations

import json
import os

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import pytest  # noqa: E402

from llm import leak_report  # noqa: E402
from llm.client import LLMClient  # noqa: E402
from llm.offline import (  # noqa: E402
    PHRASINGS,
    RULES,
    judge_quality,
    judge_semantic,
    leaked_share,
    parse_assertion,
    parse_directives,
    write_statement,
)

ADDED = [
    "    pages = math.ceil(len(items) / size)",
    "    if size <= 0:",
    "        raise ValueError('size must be positive')",
]
PATCH = """diff --git a/pager/core.py b/pager/core.py
--- a/pager/core.py
+++ b/pager/core.py
@@ -1,5 +1,7 @@
 def paginate(items, size):
-    pages = len(items) // size
+    pages = math.ceil(len(items) / size)
+    if size <= 0:
+        raise ValueError('size must be positive')
     return [items[i * size:(i + 1) * size] for i in range(pages)]
"""
TEST_PATCH = """diff --git a/tests/test_core.py b/tests/test_core.py
--- a/tests/test_core.py
+++ b/tests/test_core.py
@@ -1,2 +1,8 @@
+def test_last_page():
+    assert paginate([1, 2, 3], 2) == [[1, 2], [3]]
+
+def test_bad_size():
+    with pytest.raises(ValueError):
+        paginate([1], 0)
"""
F2P = ["tests/test_core.py::test_last_page", "tests/test_core.py::test_bad_size"]
FUNCTIONS = [{"file": "pager/core.py", "name": "paginate", "signature": "def paginate(items, size):"}]


def write_context(**overrides) -> dict:
    context = {
        "task": "write_statement",
        "strategy_type": "BUG_FIX",
        "repo": "acme/pager",
        "commit_subject": "Fix off-by-one in paginate for the last page",
        "commit_body": "When the item count is not a multiple of the page size the last page was dropped.",
        "touched_functions": FUNCTIONS,
        "failing_tests": [
            {"id": F2P[0], "assertion": "assert paginate([1, 2, 3], 2) == [[1, 2], [3]]"},
            {"id": F2P[1], "assertion": "with pytest.raises(ValueError): paginate([1], 0)"},
        ],
        "added_lines": ADDED,
        "examples": [],
    }
    context.update(overrides)
    return context


def ask(instructions: str, context: dict | None = None, **sampling) -> dict:
    """The writer's JSON answer through the production path (LLMClient -> litellm -> OfflineLLM)."""
    prompt = f"{instructions}\n<context>{json.dumps(context or write_context())}</context>"
    data, _ = LLMClient().complete_json(prompt, required_keys=["problem_statement", "hints_text"], **sampling)
    return data


def has_repro(statement: str) -> bool:
    return any(h in statement for h in ("Steps to reproduce:", "How to reproduce:", "Reproduction steps:"))


# ----------------------------------------------------------------- writer directives

# (instruction, directives it must switch on, directives it must leave off). Paraphrases,
# negations with their scope, conditions, third parties and distractors.
DIRECTIVE_TABLE = [
    # no_leak: the examples, paraphrases and negated forms
    ("Never reveal the fix.", {"no_leak"}, set()),
    ("Do not leak the patch.", {"no_leak"}, set()),
    ("Keep the solution secret.", {"no_leak"}, set()),
    ("You must never, under any circumstances, reveal the fix.", {"no_leak"}, set()),
    ("Under no circumstances should the statement include the patch.", {"no_leak"}, set()),
    ("The statement must not contain the solution.", {"no_leak"}, set()),
    ("Do not paste code from the diff, but do describe the symptom.", {"no_leak"}, set()),
    ("Describe the bug without revealing the fix.", {"no_leak"}, {"reproduce"}),
    ("Make sure you do not disclose how the bug was fixed.", {"no_leak"}, set()),
    ("Don't give away the solution.", {"no_leak"}, set()),
    ("Include the patch in the statement.", set(), {"no_leak"}),
    ("Reviewers never quote the changed code only when asked.", set(), {"no_leak"}),
    ("Never quote the changed code unless asked to.", set(), {"no_leak"}),
    ("The maintainers never reveal their fixes in advance.", set(), {"no_leak"}),
    # reproduction
    ("Include reproduction steps.", {"reproduce"}, set()),
    ("Show how to trigger the problem with a short example.", {"reproduce"}, set()),
    ("Give a minimal snippet that makes the failure happen.", {"reproduce"}, set()),
    ("Do not include reproduction steps.", set(), {"reproduce"}),
    ("Include reproduction steps without mentioning the fix.", {"reproduce", "no_leak"}, set()),
    ("Skip the steps to reproduce.", set(), {"reproduce"}),
    # expected / actual
    ("State the expected behaviour and the actual behaviour.", {"expected_actual"}, set()),
    ("Explain what the user expected and what they got instead.", {"expected_actual"}, set()),
    ("Say what should happen and what happens now.", {"expected_actual"}, set()),
    # tests
    ("Name the failing tests.", {"name_tests"}, set()),
    ("List the test cases that currently fail.", {"name_tests"}, set()),
    ("Tell the reader which tests fail.", {"name_tests"}, set()),
    ("Do not list the failing tests.", set(), {"name_tests"}),
    ("Describe the behaviour the failing tests check.", {"test_behaviour"}, set()),
    ("Explain what the tests verify.", {"test_behaviour"}, set()),
    # functions
    ("Mention the affected function by name.", {"name_function"}, set()),
    ("Say which method is broken.", {"name_function"}, set()),
    ("Point out the function that misbehaves, with its signature.", {"name_function"}, set()),
    # angle, length, hint
    ("Describe the problem from a different angle than the examples.", {"different_angle"}, set()),
    ("Take another perspective than the similar tasks.", {"different_angle"}, set()),
    ("Be brief.", {"concise"}, {"detailed"}),
    ("Keep it short and to the point.", {"concise"}, {"detailed"}),
    ("Don't be verbose.", {"concise"}, {"detailed"}),
    ("Write a detailed statement.", {"detailed"}, {"concise"}),
    ("Be thorough and explain the context at length.", {"detailed"}, {"concise"}),
    ("Add a short hint pointing to the relevant code.", {"hint"}, set()),
    ("Give the solver a clue about where to look.", {"hint"}, set()),
    ("Give no hints.", set(), {"hint"}),
    # several rules in one sentence
    ("Include reproduction steps and name the failing tests.", {"reproduce", "name_tests"}, set()),
    (
        "Name the function the user needs and its signature, and give expected behaviour with examples. "
        "Do not reveal the solution.",
        {"name_function", "no_leak"},
        set(),
    ),
    # distractors: no directive at all
    ("Write a GitHub issue.", set(), {"no_leak", "reproduce", "expected_actual", "name_tests", "hint"}),
    ("Return only a JSON object with keys problem_statement and hints_text.", set(), {"hint", "concise"}),
    ("Use plain English and avoid jargon.", set(), {"concise", "detailed", "no_leak"}),
    ("You write a GitHub issue for a bug in {repo}.", set(), {"reproduce", "no_leak"}),
    (
        "Write an issue asking the maintainers of {repo} to restructure the code as the commit does.",
        set(),
        {"no_leak", "reproduce", "name_tests"},
    ),
    ("## Failing tests", set(), {"name_tests", "test_behaviour"}),
    ("```text\nNever reveal the fix. Include reproduction steps.\n```", set(), {"no_leak", "reproduce"}),
]


def test_directive_table_has_enough_phrasings():
    assert len(DIRECTIVE_TABLE) >= 40


@pytest.mark.parametrize("instruction, on, off", DIRECTIVE_TABLE, ids=[row[0][:48] for row in DIRECTIVE_TABLE])
def test_directives_are_read_by_meaning(instruction, on, off):
    found = parse_directives(instruction)
    assert on <= found and not (off & found), found


@pytest.mark.parametrize(
    "instruction",
    ["Do not leak the patch.", "Keep the solution secret.", "You must never, under any circumstances, reveal the fix."],
)
def test_paraphrased_no_leak_stops_the_writer_leaking(instruction):
    assert leaked_share(ask("Write an issue. " + instruction)["problem_statement"], ADDED) == 0.0
    assert (
        leaked_share(
            ask("Write an issue. Reviewers never quote the changed code only when asked.")["problem_statement"], ADDED
        )
        > 0.0
    )


def test_reproduction_directive_adds_steps_from_the_failing_tests():
    with_steps = ask("Write an issue. Include reproduction steps.")["problem_statement"]
    without = ask("Write an issue.")["problem_statement"]
    assert has_repro(with_steps)
    assert "`paginate([1, 2, 3], 2)`" in with_steps and "`[[1, 2], [3]]`" in with_steps
    assert not has_repro(without)


def test_negated_directive_stays_off():
    statement = ask("Write an issue. Do not include reproduction steps.")["problem_statement"]
    assert not has_repro(statement)


def test_never_reveal_the_fix_keeps_patch_lines_out():
    careful = ask("Write an issue. Never reveal the fix.")["problem_statement"]
    careless = ask("Write an issue.")["problem_statement"]
    assert leaked_share(careful, ADDED) == 0.0
    assert not any(line.strip() in careful for line in ADDED)
    assert "```" not in careful and "fix" not in careful.split("\n\n")[-1].lower()
    assert leaked_share(careless, ADDED) > 0.0
    assert any(line.strip() in careless for line in ADDED)


def test_same_inputs_give_identical_output():
    instructions = "Write an issue. Include reproduction steps. Add a hint."
    assert ask(instructions, temperature=0.9, top_p=0.9) == ask(instructions, temperature=0.9, top_p=0.9)


def test_max_tokens_caps_the_statement_length():
    instructions = "Write a detailed issue. Include reproduction steps. State expected and actual behaviour."
    short = ask(instructions, max_tokens=40)["problem_statement"]
    long = ask(instructions, max_tokens=800)["problem_statement"]
    assert len(short.split()) <= 40 * 0.75
    assert len(long.split()) > 2 * len(short.split())


def test_expected_actual_function_tests_and_hint_directives():
    data = ask(
        "Write an issue. State the expected and actual behaviour. Mention the affected function. "
        "Name the failing tests. Add a hint."
    )
    statement = data["problem_statement"]
    assert "Expected behaviour:" in statement and "Actual behaviour:" in statement
    assert "`paginate`" in statement and "paginate(items, size)" in statement
    assert all(test_id in statement for test_id in F2P)
    assert data["hints_text"]
    plain = ask("Write an issue. Output keys: problem_statement, hints_text.")
    assert plain["hints_text"] == ""  # the identifier hints_text is not a request for a hint
    assert "Expected behaviour:" not in plain["problem_statement"]


def test_concise_is_shorter_than_detailed():
    base = "Write an issue. Include reproduction steps. Never reveal the fix."
    concise = ask(base + " Be concise.")["problem_statement"]
    detailed = ask(base + " Be detailed.")["problem_statement"]
    assert len(concise.split()) < len(detailed.split())


def test_high_temperature_drops_directives_and_zero_temperature_is_greedy():
    instructions = "Write an issue. Include reproduction steps."
    contexts = [write_context(repo=f"acme/repo{i}") for i in range(12)]
    kept_cool = sum(has_repro(write_statement(c, instructions, 0.7, 1.0, 800)["problem_statement"]) for c in contexts)
    kept_hot = sum(has_repro(write_statement(c, instructions, 2.0, 1.0, 800)["problem_statement"]) for c in contexts)
    assert kept_cool == len(contexts)
    assert kept_hot < len(contexts)
    greedy_titles = {
        write_statement(c, instructions, 0.0, 1.0, 800)["problem_statement"].splitlines()[0].replace(c["repo"], "")
        for c in contexts
    }
    varied_titles = {
        write_statement(c, instructions, 0.7, 1.0, 800)["problem_statement"].splitlines()[0].replace(c["repo"], "")
        for c in contexts
    }
    assert len(greedy_titles) == 1 and len(varied_titles) > 1


def test_top_p_narrows_the_phrasings():
    contexts = [write_context(repo=f"acme/repo{i}") for i in range(12)]
    narrow = {
        write_statement(c, "Write an issue.", 0.7, 0.1, 800)["problem_statement"].splitlines()[0].replace(c["repo"], "")
        for c in contexts
    }
    assert len(narrow) == 1


@pytest.mark.parametrize(
    "strategy, marker",
    [
        ("FEATURE_ADD", "does not offer"),
        ("REFACTOR", "The new API should provide:"),
        ("TEST_DRIVEN", "Tests that must pass:"),
    ],
)
def test_strategy_type_changes_the_framing(strategy, marker):
    context = write_context(strategy_type=strategy, commit_subject="Add support for negative page sizes")
    statement = write_statement(context, "Write an issue. Never reveal the fix.", 0.0, 1.0, 800)["problem_statement"]
    assert marker in statement
    if strategy == "TEST_DRIVEN":
        assert all(test_id in statement for test_id in F2P)
    if strategy == "REFACTOR":
        assert "`paginate(items, size)`" in statement


def test_examples_with_reproduction_are_imitated():
    examples = ["Bug: x\n\nSteps to reproduce:\n1. Call `f()`.", "Bug: y\n\nHow to reproduce it: call g()."]
    statement = write_statement(write_context(examples=examples), "Write an issue.", 0.7, 1.0, 800)
    assert has_repro(statement["problem_statement"])


def test_parse_assertion_understands_pytest_and_unittest_styles():
    compare = parse_assertion("t", "assert f(1) == 2")
    assert (compare.kind, compare.call, compare.expected, compare.op) == ("compare", "f(1)", "2", "==")
    raises = parse_assertion("t", "with pytest.raises(KeyError): d['x']")
    assert (raises.kind, raises.call, raises.expected) == ("raises", "d['x']", "KeyError")
    unit = parse_assertion("t", "self.assertEqual(g(), [1])")
    assert (unit.kind, unit.call, unit.expected) == ("compare", "g()", "[1]")
    assert parse_assertion("t", "AssertionError: 3 != 4").kind == "raw"


# ----------------------------------------------------------------- judges

SPECIFIC = ask(
    "Write an issue. Include reproduction steps. State expected and actual behaviour. "
    "Mention the affected function. Name the failing tests. Never reveal the fix.",
    max_tokens=800,
)["problem_statement"]
VAGUE = "Pagination is broken."


def judge(statement: str) -> dict:
    context = {
        "task": "judge_quality",
        "problem_statement": statement,
        "patch": PATCH,
        "test_patch": TEST_PATCH,
        "fail_to_pass": F2P,
        "touched_functions": FUNCTIONS,
    }
    data, _ = LLMClient().complete_json(
        f"Judge this task.\n<context>{json.dumps(context)}</context>",
        required_keys=["task_correctness", "test_correctness", "test_completeness", "complexity"],
    )
    return data


def test_judge_scores_specific_statement_above_vague_one():
    specific, vague = judge(SPECIFIC), judge(VAGUE)
    for criterion in specific.values():
        assert isinstance(criterion["score"], int) and 1 <= criterion["score"] <= 10
        assert 0.0 <= criterion["confidence"] <= 1.0 and criterion["reasoning"]
    assert specific["task_correctness"]["score"] >= 8
    assert vague["task_correctness"]["score"] <= 3
    assert specific["test_correctness"]["score"] > vague["test_correctness"]["score"]


def test_judge_reads_bare_function_names_as_the_validator_sends_them():
    from llm.offline.judge import judge_quality
    from records import Task
    from tasks.validate import judge_context

    task = Task(
        instance_id="t",
        repo="r",
        base_commit="c",
        patch=PATCH,
        test_patch=TEST_PATCH,
        problem_statement=SPECIFIC,
        bug_patch="",
        strategy_type="BUG_FIX",
        strategy_id="s",
        FAIL_TO_PASS=F2P,
        generation={"touched_functions": ["paginate"]},
    )
    reason = judge_quality(judge_context(task))["task_correctness"]["reasoning"]
    assert "names 1 of 1 touched functions" in reason, reason


def test_checks_through_a_suites_own_helper_count_as_checks():
    from llm.offline.judge import count_checks

    assert count_checks(["    e.update({})", "    ck({}, {})", "    ck({1: 2}, {2: 1})"]) == 2
    assert count_checks(["    e.update({})", "    x = f(1)", "    print(x)"]) == 0
    assert count_checks(["    assert f(1) == 2", "    ck(1, 2)"]) == 1  # asserts, when there are any


def test_judge_penalises_statement_quoting_the_patch():
    leaky = SPECIFIC + "\n\nSuggested fix:\n```python\n" + "\n".join(ADDED) + "\n```"
    clean_score = judge(SPECIFIC)["task_correctness"]["score"]
    leaky_result = judge(leaky)["task_correctness"]
    assert leaky_result["score"] <= clean_score - 3
    assert "leak" in leaky_result["reasoning"]


def test_judge_test_completeness_and_complexity_follow_the_evidence():
    base = {
        "problem_statement": SPECIFIC,
        "patch": PATCH,
        "test_patch": TEST_PATCH,
        "fail_to_pass": F2P,
        "touched_functions": FUNCTIONS,
    }
    one_test = judge_quality({**base, "fail_to_pass": F2P[:1]})
    two_tests = judge_quality(base)
    assert two_tests["test_completeness"]["score"] > one_test["test_completeness"]["score"]
    no_tests = judge_quality({**base, "fail_to_pass": []})
    assert no_tests["test_correctness"]["score"] == 1
    big_patch = PATCH + "".join(f"+    extra_{i} = {i}\n" for i in range(40))
    assert judge_quality({**base, "patch": big_patch})["complexity"]["score"] > two_tests["complexity"]["score"]


def test_semantic_judge_prefers_clear_solvable_statements():
    context = {"patch": PATCH, "fail_to_pass": F2P, "touched_functions": FUNCTIONS}
    good = judge_semantic({**context, "problem_statement": SPECIFIC})
    bad = judge_semantic({**context, "problem_statement": VAGUE})
    assert set(good) == {"clarity", "solvability"}
    assert good["clarity"]["score"] > bad["clarity"]["score"]
    assert good["solvability"]["score"] >= 8 > bad["solvability"]["score"]


# ----------------------------------------------------------------- mutator

BASE_PROMPT = "Write a GitHub issue for {repo} from the commit below.\n{commit}\nReturn JSON."


def mutate(prompt: str, failures: list[dict], successes: list[str] | None = None) -> dict:
    context = {
        "task": "mutate_prompt",
        "prompt": prompt,
        "strategy_type": "BUG_FIX",
        "failures": failures,
        "successes": successes or [],
    }
    data, _ = LLMClient().complete_json(
        f"Improve the prompt.\n<context>{json.dumps(context)}</context>", required_keys=["prompt", "rationale"]
    )
    return data


def test_mutator_adds_leakage_rule_once_and_keeps_placeholders():
    leaks = [{"category": "leakage", "detail": "statement quotes 3 added lines"}] * 3
    first = mutate(BASE_PROMPT, leaks)
    assert RULES["no_leak"] in first["prompt"]
    assert "{repo}" in first["prompt"] and "{commit}" in first["prompt"]
    assert "leakage" in first["rationale"]
    second = mutate(first["prompt"], leaks)
    assert second["prompt"].count(RULES["no_leak"]) == 1
    assert second["prompt"] == first["prompt"]


def test_mutated_prompt_stops_the_writer_leaking():
    mutated = mutate("Write a GitHub issue.", [{"category": "leakage", "detail": ""}])["prompt"]
    assert leaked_share(ask("Write a GitHub issue.")["problem_statement"], ADDED) > 0
    assert leaked_share(ask(mutated)["problem_statement"], ADDED) == 0


def test_mutator_rules_follow_the_dominant_category():
    vague = mutate(
        BASE_PROMPT, [{"category": "vague_statement", "detail": ""}] * 2 + [{"category": "build_error", "detail": ""}]
    )
    assert "no_leak" not in parse_directives(vague["prompt"])
    assert {"reproduce", "expected_actual", "name_function"} <= parse_directives(vague["prompt"])
    duplicate = mutate(BASE_PROMPT, [{"category": "duplicate", "detail": ""}])
    assert "different_angle" in parse_directives(duplicate["prompt"])
    environment = mutate(BASE_PROMPT, [{"category": "build_error", "detail": ""}])
    assert environment["prompt"] == BASE_PROMPT and "not caused by the prompt" in environment["rationale"]


def test_mutator_without_failures_still_varies_deterministically():
    first = mutate(BASE_PROMPT, [])
    assert first["prompt"] != BASE_PROMPT and first == mutate(BASE_PROMPT, [])
    learned = mutate(BASE_PROMPT, [], successes=["Bug\n\nSteps to reproduce:\n1. x", "Reproduce: y"])
    assert "reproduce" in parse_directives(learned["prompt"])


def test_every_rule_wording_triggers_its_own_directive():
    for name, texts in PHRASINGS.items():
        for text in texts:
            if name != "json_only":
                assert name in parse_directives(text), (name, text)


def test_mutated_prompts_take_effect_in_every_wording():
    # the mutator picks a wording per prompt; each must reach the writer through meaning
    prompts = [f"Write a GitHub issue about module {i}." for i in range(8)]
    mutated = [mutate(p, [{"category": "leakage", "detail": ""}])["prompt"] for p in prompts]
    assert len({m.splitlines()[-1] for m in mutated}) > 1  # more than one wording in use
    for prompt in mutated:
        assert leaked_share(ask(prompt)["problem_statement"], ADDED) == 0, prompt


# ----------------------------------------------------------------- protocol edges


def test_unknown_task_and_plain_prompt():
    data, _ = LLMClient().complete_json('<context>{"task": "dance"}</context>', required_keys=["error"])
    assert "unknown task 'dance'" in data["error"]
    text = LLMClient().complete("Just say something.").text
    assert text.startswith("offline model") and "no <context> block" in text
    assert text == LLMClient().complete("Just say something.").text


def test_code_and_diffs_outside_the_context_do_not_switch_directives_on():
    diff = (
        "Here is the diff:\ndiff --git a/t.py b/t.py\n--- a/t.py\n+++ b/t.py\n@@ -1 +1,2 @@\n"
        "+expected = reproduce_hint()\n+actual = run()\n-    old = 1\n\n"
        "```python\nexpected, actual = 1, 2  # reproduce hint\n```\nWrite an issue."
    )
    assert parse_directives(diff) == set()
    assert parse_directives(diff + " Include reproduction steps.") == {"reproduce"}


# ----------------------------------------------------------------- judges against boilerplate, leaks by meaning

BOILERPLATE = (
    "Fix off-by-one in paginate for the last page\n\nThere is a bug in acme/pager: fix off-by-one in "
    "paginate for the last page.\n\nSteps to reproduce:\n1. Call ``.\n2. It should return ``.\n\n"
    "Expected behaviour: Fix off-by-one in paginate for the last page works as described.\n"
    "Actual behaviour: Fix off-by-one in paginate for the last page."
)


def test_judges_are_not_pleased_by_boilerplate():
    context = {
        "problem_statement": BOILERPLATE,
        "patch": PATCH,
        "test_patch": TEST_PATCH,
        "fail_to_pass": F2P,
        "touched_functions": FUNCTIONS,
    }
    quality, semantic = judge_quality(context), judge_semantic(context)
    assert quality["task_correctness"]["score"] <= 4
    assert semantic["clarity"]["score"] <= 4
    assert "empty code span" in quality["task_correctness"]["reasoning"]
    assert "title restated" in semantic["clarity"]["reasoning"]
    specific = judge_semantic({**context, "problem_statement": SPECIFIC})
    assert specific["clarity"]["score"] >= semantic["clarity"]["score"] + 3


@pytest.mark.parametrize(
    "statement",
    [
        "paginate drops the last page: pages should be math.ceil(len(items) / size)",
        "The last page is lost. Replace `len(items) // size` with a ceiling division.",
        "Compute the page count with math.ceil instead of floor division.",
        "Fix:\n```python\npages = math.ceil(len(items)/size)\n```",
    ],
)
def test_paraphrased_and_partial_leaks_are_caught(statement):
    report = leak_report(statement, PATCH, TEST_PATCH)
    assert report.leaks(), report
    assert leaked_share(statement, ADDED) < 0.5  # the verbatim check alone would not see most of them


def test_describing_the_bug_and_the_tests_is_no_leak():
    statement = (
        "`paginate([1, 2, 3], 2)` returns `[[1, 2]]` instead of `[[1, 2], [3]]`: the page count "
        "`len(items) // size` rounds down. `paginate([1], 0)` should raise `ValueError`."
    )
    assert not leak_report(statement, PATCH, TEST_PATCH).leaks()


def test_a_new_methods_docstring_and_a_name_the_tests_call_are_no_prescription():
    """boltons' writelines: "`writelines` does not exist yet ... it should run" was a leak, by
    the stem of the fix's `write` inside the quoted name and the docstring's word "does"."""
    patch = (
        "--- a/pkg/io.py\n+++ b/pkg/io.py\n@@ -10,3 +10,9 @@ class Flo:\n"
        "     def close(self):\n         pass\n+\n+    def writelines(self, lines):\n"
        '+        """Write each line; it does not add separators."""\n+        for line in lines:\n'
        "+            self.write(line)\n"
    )
    test_patch = "--- a/t.py\n+++ b/t.py\n@@ -1,1 +1,2 @@\n x = 1\n+    flo.writelines([b'1'])\n"
    statement = "`writelines` does not exist yet; the snippet shows how it should work, and it should run."
    assert not leak_report(statement, patch, test_patch).leaks()
    # the fix's own code named in the prose still is one
    assert leak_report("It should call write on each line.", patch, test_patch).leaks()


def test_a_word_of_the_tests_code_in_a_fenced_block_is_no_prescription():
    """A test's own line shown in a block (`replacement = url.replace(rooted=True)`) holds
    "replace" and the stem of the fix's new `_rooted`: code, not a sentence telling how to change
    the code; the same words in prose still prescribe."""
    patch = (
        "--- a/pkg/url.py\n+++ b/pkg/url.py\n@@ -1,2 +1,4 @@ class URL:\n"
        "     def __init__(self, path, rooted=False):\n         self.path = path\n"
        "+        if self.path and self.path[0] == '':\n+            self._rooted = True\n"
    )
    test_patch = (
        "--- a/t.py\n+++ b/t.py\n@@ -1,1 +1,3 @@\n x = 1\n"
        "+    replacement = url.replace(rooted=True)\n+    assert url == replacement\n"
    )
    statement = (
        "`URL(path=['', 'foo']).rooted` is `False`; it should be `True`. The test also checks:\n\n"
        "```python\nreplacement = url.replace(rooted=True)\nassert url == replacement\n```\n"
    )
    assert not leak_report(statement, patch, test_patch).leaks()
    assert leak_report("Replace the flag: set it when the path is rooted.", patch, test_patch).leaks()


def _bench(name: str):
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "bench" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"bench_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_labelled_sets_are_large_enough_and_meet_the_targets(capsys):
    leakage, calibration = _bench("leakage"), _bench("judge_calibration")
    leakage.main()
    calibration.main()
    lines = capsys.readouterr().out.splitlines()
    pairs = next(ln for ln in lines if ln.startswith("all") and "pairs" in ln)
    statements = next(ln for ln in lines if ln.startswith("all") and "statements" in ln)
    assert int(pairs.split(":")[1].split()[0]) >= 60 and int(statements.split(":")[1].split()[0]) >= 60
    precision, recall = map(
        float, lines[[i for i, ln in enumerate(lines) if ln.startswith("leakage")][0]].split(":")[1].split("/")
    )
    assert precision >= 0.9 and recall >= 0.9
    assert float(lines[-1].split(":")[1]) >= 0.9


def test_the_tests_own_code_in_a_snippet_is_no_leak_even_when_it_resembles_a_fix_line():
    """A test helper written into a snippet (`assert retry_state.seconds_since_start == delay`) is close
    to a fix line (`secs = retry_state.seconds_since_start`): the tests' code is known, like the test
    patch; the same line that no test holds is still a leak."""
    patch = (
        "--- a/pkg/after.py\n+++ b/pkg/after.py\n@@ -1,2 +1,3 @@ def log(state):\n"
        "     name = state.fn\n+    secs = retry_state.seconds_since_start\n     return name\n"
    )
    statement = "```python\ndef make(retry_state, delay):\n    assert retry_state.seconds_since_start == delay\n```"
    helper = "def make(retry_state, delay):\n    assert retry_state.seconds_since_start == delay"
    assert leak_report(statement, patch).leaks()
    assert not leak_report(statement, patch, "", tests_code=[helper]).leaks()


def test_tests_that_require_the_fixs_own_text_make_any_statement_of_them_a_leak():
    """sqlite-utils: a tracer test compares the executed SQL with the new query text; the
    statement quoted the value the test requires, and with it the fix. One shared line is not
    enough (a constant both may hold)."""
    patch = (
        "--- a/pkg/db.py\n+++ b/pkg/db.py\n@@ -1,4 +1,5 @@ def detect(self):\n"
        "     sql = '''\n     SELECT name FROM master\n-    WHERE sql LIKE 'x'\n"
        "+    WHERE sql LIKE :like\n+    OR tbl_name = :table\n     '''\n"
    )
    test_patch = (
        "--- a/tests/test_t.py\n+++ b/tests/test_t.py\n@@ -1,1 +1,5 @@\n+def test_sql():\n"
        '+    assert traced() == """SELECT name FROM master\n+    WHERE sql LIKE :like\n+    OR tbl_name = :table"""\n'
    )
    statement = (
        "The traced SQL is wrong.\n\nIt should be exactly:\n\n```text\n"
        "'SELECT name FROM master\\n    WHERE sql LIKE :like\\n    OR tbl_name = :table'\n```\n"
    )
    report = leak_report(statement, patch, test_patch)
    assert report.leaks() and "pinned_text" in report.kinds, report
    one_line = statement.replace("\\n    OR tbl_name = :table", "")
    assert "pinned_text" not in leak_report(one_line, patch, test_patch).kinds


def test_a_hunk_starting_inside_a_docstring_reads_its_prose_as_prose():
    """confuse 01b11c26: a hunk began in the middle of `Filename`'s docstring; its line "Paths
    from sources without a file are relative ..." was read as code, `without` as a name only
    the fix has, and "it should run without an error" in the statement as a prescription."""
    patch = (
        "--- a/pkg/t.py\n+++ b/pkg/t.py\n@@ -10,5 +10,6 @@ class Filename(Template):\n"
        "     Relative paths are relative to the template's cwd argument\n"
        "-    when it is specified.\n"
        "+    when it is specified. Paths from sources without a file are\n"
        "+    relative to the current working directory.\n"
        '     """\n'
        "     def __init__(self, base=False):\n"
        "+        self.base = base\n"
    )
    test_patch = "--- a/t.py\n+++ b/t.py\n@@ -1,1 +1,2 @@\n x = 1\n+Source(base=True)\n"
    statement = "`base` does not exist yet; the snippet shows how it should work, and it should run without an error."
    assert not leak_report(statement, patch, test_patch).leaks()
    # prose-shaped lines and trailing comments name no code, wherever the hunk starts; code does
    commented = patch.replace(
        "+        self.base = base\n", "+        self.base = base  # should run without an error\n"
    )
    assert not leak_report(statement, commented, test_patch).leaks()
    code = patch.replace("+        self.base = base\n", "+        self.base = resolve_base(base)\n")
    assert leak_report("The constructor should call resolve_base on the value.", code, test_patch).leaks()


def test_a_template_string_passed_to_a_call_is_code_not_a_docstring():
    """sqlite-utils b8af3b96: the SQL template opens its own line under `dedent(`; read as a
    docstring (prose), its lines were left out, and the statement quoting the SQL the tests
    require passed. A docstring right under its `def` stays prose."""
    template = (
        "--- a/pkg/db.py\n+++ b/pkg/db.py\n@@ -1,5 +1,7 @@ class Table:\n"
        "     def detect(self):\n"
        '+        sql = textwrap.dedent(\n+            """\n'
        "             SELECT name FROM master\n+                WHERE sql LIKE :like\n"
        "+                OR tbl_name = :table\n"
        '         """\n+        ).strip()\n'
    )
    test_patch = (
        "--- a/tests/test_t.py\n+++ b/tests/test_t.py\n@@ -1,1 +1,5 @@\n+def test_sql():\n"
        '+    assert traced() == """SELECT name FROM master\n+    WHERE sql LIKE :like\n+    OR tbl_name = :table"""\n'
    )
    statement = (
        "The traced SQL should be:\n\n```text\n"
        "SELECT name FROM master\n    WHERE sql LIKE :like\n    OR tbl_name = :table\n```\n"
    )
    assert "pinned_text" in leak_report(statement, template, test_patch).kinds
    docstring = template.replace("sql = textwrap.dedent(", "def query(self):").replace("+        ).strip()\n", "")
    assert "pinned_text" not in leak_report(statement, docstring, test_patch).kinds


def test_the_word_cap_cuts_where_a_paragraph_or_a_case_ends_never_inside_a_block():
    from llm.offline.text import _cap_words

    text = (
        "Title of it\n\nWhat goes wrong here.\n\nTo reproduce:\n\n```python\nx = 1\n\nassert f(x) == 2\n```\n\n"
        "All the cases:\n- `f(1)` gives 2\n- `f(2)` gives 3\n- `f(3)` gives 4"
    )
    assert _cap_words(text, 100) == text
    # the block does not fit: it goes whole, with the heading that introduced it
    assert _cap_words(text, 10) == "Title of it\n\nWhat goes wrong here."
    # a list keeps the whole cases that fit
    assert _cap_words(text, 29).endswith("```\n\nAll the cases:\n- `f(1)` gives 2\n- `f(2)` gives 3")
    # a first paragraph longer than the cap is cut at a word
    assert _cap_words("one two three four", 2) == "one two"


@pytest.mark.parametrize(
    "sentence",
    [
        "The last page goes missing because the count is not taken with ceil.",
        "Pages now come from math.ceil, so the last one is kept.",
        "This happens since the count skips the ceiling so that short pages vanish.",
    ],
)
def test_a_sentence_giving_the_cause_or_the_fix_by_a_name_only_the_fix_has_is_a_leak(sentence):
    report = leak_report(f"The last page is lost. {sentence}", PATCH, TEST_PATCH)
    assert report.leaks() and "explanation" in report.kinds, report


def test_a_cause_or_symptom_sentence_without_the_fixs_names_is_no_leak():
    for statement in (
        "The last page goes missing because the page count rounds down.",
        "Right now `paginate([1, 2, 3], 2)` gives `[[1, 2]]`; it should give `[[1, 2], [3]]`.",
    ):
        assert not leak_report(statement, PATCH, TEST_PATCH).leaks(), statement


def test_a_builtin_exception_the_buggy_state_raises_is_no_code_of_the_fix():
    """The fix catches `AttributeError` to raise another error; the statement names the
    `AttributeError` the current code raises. A builtin's name is no line of the fix; the
    fix's own line is still one."""
    patch = (
        "--- a/pkg/load.py\n+++ b/pkg/load.py\n@@ -1,2 +1,5 @@\n def load(fp):\n"
        "-    return fp.read().decode()\n+    try:\n+        return fp.read().decode()\n"
        "+    except AttributeError:\n+        raise TypeError('binary mode')\n"
    )
    statement = "`load(f)` raises `AttributeError` where `TypeError` is expected."
    assert not leak_report(statement, patch).leaks()
    assert leak_report(statement + " Wrap it: `except AttributeError:`.", patch).leaks()


def test_a_repository_name_opening_a_sentence_keeps_its_case():
    context = write_context(
        repo="acme/widgets", strategy_type="FEATURE_ADD", commit_subject="Add support for negative page sizes"
    )
    statement = write_statement(context, "Write an issue.", 0.0, 1.0, 800)["problem_statement"]
    assert "acme/widgets does not offer" in statement
    assert "Acme/widgets" not in statement


def test_a_byte_that_was_not_utf8_inside_the_context_reaches_the_statement_escaped():
    # the context travels as JSON with ASCII escapes, so '\udcff' (a runner's b'\xff' read with
    # surrogateescape) came back as a lone surrogate after json.loads and failed every farm call
    failing = [
        {"id": F2P[0], "assertion": "assert paginate([1, 2, 3], 2) == [[1, 2], [3]]", "message": "got b'\udcff'"}
    ]
    data = ask("Write an issue.", write_context(commit_body="The page holds b'\udcff' bytes.", failing_tests=failing))
    data["problem_statement"].encode("utf-8")
    assert "\udcff" not in json.dumps(data, ensure_ascii=False)


def test_a_file_path_the_fix_also_names_is_no_leak():
    """mdit-py-plugins: the fix's port.yaml says "See `tests/fixtures/subscript_strikethrough.md`
    for examples"; a statement pointing the solver at that fixture (in its tree) was rejected as a
    leak. Code around a path still is one."""
    from llm.leakage import leak_report

    patch = (
        "diff --git a/pkg/port.yaml b/pkg/port.yaml\n--- a/pkg/port.yaml\n+++ b/pkg/port.yaml\n@@ -1 +1,3 @@\n"
        " x: 1\n+      See `tests/fixtures/subscript_strikethrough.md` for examples.\n"
        "+      render(open('tests/fixtures/subscript_strikethrough.md').read(), strict=True)\n"
    )
    pointing = "The cases are in `tests/fixtures/subscript_strikethrough.md`, already in the tree."
    assert leak_report(pointing, patch).score == 0
    quoting = "Call `render(open('tests/fixtures/subscript_strikethrough.md').read(), strict=True)`."
    assert leak_report(quoting, patch).score > 0
