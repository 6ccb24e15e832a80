"""The genes that reach task making: each one changes what a strategy makes.

Selection genes order the candidate commits of a tiny repository built here (three commits
with known features); synthesis genes change the bugs synthesized in a tiny repository;
evidence genes change what the writer is told and how long the statement is (the real
offline writer through the generator). Plus the genome: ranges, hash, round trip.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import pytest

from records import FailureEvidence
from tasks import Strategy, StrategyType, mine
from tasks.difficulty import DifficultyInput, difficulty
from tasks.generate import cap_words, pick_candidates, writer_context
from tasks.selection import commit_features, feature_vectors, order_candidates
from tasks.strategy import GENE_DEFAULTS, GENE_GROUPS, GENES, seed_strategies
from tasks.synthesis import mutation_sites, order_sites, synthesize

PROMPT = "Write a bug report. Never reveal the fix."


def git(repo: Path, *args: str, date: str = "2024-01-01T00:00:00") -> None:
    env = {**os.environ, "GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date}
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, env=env)


def commit(repo: Path, files: dict[str, str], message: str, date: str) -> None:
    for path, text in files.items():
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        (repo / path).write_text(text)
    git(repo, "add", "-A", date=date)
    git(repo, "commit", "-q", "-m", message, date=date)


LIB = """def add(a, b):
    return a + b + 1


def mul(a, b):
    return a * b


def big(x):
    return x
"""
TESTS = """from lib import mul


def test_mul():
    assert mul(2, 3) == 6


def test_misc():
    x = 1
    assert x
"""


def big_body(n: int) -> str:
    lines = ["def big(x):"]
    for i in range(n):
        lines += [f"    if x == {i}:", "        for y in range(x):", "            x += y"]
    return "\n".join(lines + ["    return x", ""])


@pytest.fixture(scope="module")
def three_commits(tmp_path_factory) -> list:
    """A: a fix whose new test calls the fixed function (link, tests, fix cue; oldest).
    B: a docs/typing change whose test edit calls nothing it touches (quiet cue).
    C: a large change over three files, an edited test (biggest, newest)."""
    repo = tmp_path_factory.mktemp("genes") / "lib"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "user.email", "t@example.com")
    git(repo, "config", "user.name", "t")
    commit(repo, {"lib.py": LIB, "tests/test_lib.py": TESTS}, "Initial version of the library", "2024-01-01T00:00:00")
    fixed = LIB.replace("a + b + 1", "a + b")
    tests_a = TESTS.replace("from lib import mul", "from lib import add, mul") + (
        "\n\ndef test_add():\n    assert add(1, 2) == 3\n    assert add(0, 0) == 0\n    assert add(-1, 1) == 0\n"
    )
    commit(
        repo, {"lib.py": fixed, "tests/test_lib.py": tests_a}, "Fix add returning one too many", "2024-02-01T00:00:00"
    )
    documented = fixed.replace("def mul(a, b):\n", 'def mul(a: int, b: int) -> int:\n    """Product."""\n')
    tests_b = tests_a.replace("    x = 1\n", "    x = 2\n")
    commit(
        repo,
        {"lib.py": documented, "tests/test_lib.py": tests_b},
        "Document mul and add typing annotations",
        "2024-03-01T00:00:00",
    )
    reworked = documented.replace("def big(x):\n    return x\n", big_body(6))
    tests_c = tests_b.replace("    x = 2\n", "    x = 3\n")
    commit(
        repo,
        {
            "lib.py": reworked,
            "util.py": big_body(4).replace("big", "helper"),
            "other.py": big_body(3).replace("big", "other"),
            "tests/test_lib.py": tests_c,
        },
        "Rework the big helper across modules",
        "2024-04-01T00:00:00",
    )
    candidates = sorted(mine(repo).candidates, key=lambda c: c.created_at)
    assert [c.subject for c in candidates] == [
        "Fix add returning one too many",
        "Document mul and add typing annotations",
        "Rework the big helper across modules",
    ]
    return candidates


def strategy(**genes) -> Strategy:
    return Strategy(StrategyType.BUG_FIX, PROMPT, genes=genes)


def first(candidates, **genes) -> str:
    return order_candidates(list(candidates), strategy(**genes))[0].subject.split()[0]


# ---------------------------------------------------------------- the genome


def test_every_gene_has_a_range_a_default_inside_it_and_a_group():
    assert len(GENES) == 17 and sum(len(v) for v in GENE_GROUPS.values()) == 12  # twelve genes, 17 numbers
    for name, g in GENES.items():
        assert g.low < g.high and g.low <= g.default <= g.high, name
        assert g.group in GENE_GROUPS


def test_genes_clamp_round_order_their_bands_and_enter_the_hash():
    seed = Strategy(StrategyType.BUG_FIX, PROMPT)
    assert seed.genes == GENE_DEFAULTS and "genes" not in seed.genome()  # a seed hashes as before genes
    wild = Strategy(
        StrategyType.BUG_FIX, PROMPT, genes={"sel_link": 7, "band_low": 0.8, "band_high": 0.2, "mutations": 2.6}
    )
    assert wild.genes["sel_link"] == 1.0 and wild.genes["mutations"] == 3.0
    assert (wild.genes["band_low"], wild.genes["band_high"]) == (0.2, 0.8)
    ids = {seed.id}
    for name, g in GENES.items():
        moved = g.low if g.default != g.low else g.high
        changed = Strategy(StrategyType.BUG_FIX, PROMPT, genes={name: moved})
        assert changed.genome()["genes"] == {name: moved}, name
        ids.add(changed.id)
    assert len(ids) == len(GENES) + 1  # every gene changes the genome hash
    assert Strategy.from_dict(wild.to_dict()) == wild and Strategy.from_dict(wild.to_dict()).id == wild.id
    old_record = {k: v for k, v in seed.to_dict().items() if k != "genes"}  # a record from before genes
    assert Strategy.from_dict(old_record).id == seed.id


def test_synthetic_is_a_strategy_type_with_seeds():
    seeds = seed_strategies([StrategyType.SYNTHETIC, StrategyType.BUG_FIX], 4)
    assert {s.strategy_type for s in seeds} == {StrategyType.SYNTHETIC, StrategyType.BUG_FIX}


# ---------------------------------------------------------------- selection genes


def test_commit_features_are_what_the_commits_show(three_commits):
    a, b, c = (commit_features(x) for x in three_commits)
    assert a.link == 1.0 and b.link == 0.0 and c.link == 0.0
    assert a.raw["new_tests"] == 1 and a.raw["asserts_added"] == 3 and b.raw["modified_tests"] == 1
    assert a.tests > b.tests
    assert (a.cue, b.cue, c.cue) == (1.0, -1.0, 0.0)
    assert c.size > max(a.size, b.size) and c.raw["files"] == 3
    assert c.predicted_difficulty > max(a.predicted_difficulty, b.predicted_difficulty)
    ages = [v["age"] for v in feature_vectors(three_commits)]
    assert ages == [0.0, pytest.approx(29 / 60, abs=1e-3), 1.0]  # Feb 1, Mar 1, Apr 1


def test_neutral_selection_keeps_the_order_given(three_commits):
    given = list(reversed(three_commits))
    assert order_candidates(given, strategy()) == given
    assert pick_candidates(given, strategy()) == pick_candidates(given, StrategyType.BUG_FIX)


@pytest.mark.parametrize(
    "genes, expected_first",
    [
        ({"sel_link": 1.0}, "Fix"),
        ({"sel_link": -1.0}, "Document"),  # ties keep the order given: B before C
        ({"sel_tests": 1.0}, "Fix"),
        ({"sel_tests": -1.0}, "Document"),
        ({"sel_cue": 1.0}, "Fix"),
        ({"sel_cue": -1.0}, "Document"),
        ({"sel_size": 1.0}, "Rework"),
        ({"sel_size": -1.0}, "Fix"),
        ({"sel_age": 1.0}, "Rework"),
        ({"sel_age": -1.0}, "Fix"),
        ({"band_low": 0.45, "band_high": 1.0}, "Rework"),  # only the big change is predicted that hard
    ],
)
def test_each_selection_gene_changes_which_commit_is_tried_first(three_commits, genes, expected_first):
    assert first(three_commits, **genes) == expected_first


def test_a_band_below_every_commit_keeps_the_nearest_first(three_commits):
    predicted = [commit_features(c).predicted_difficulty for c in three_commits]
    nearest = three_commits[predicted.index(min(predicted))].subject.split()[0]
    assert first(three_commits, band_low=0.0, band_high=0.01) == nearest
    assert first(three_commits, band_low=0.0, band_high=0.01) != first(three_commits, band_low=0.45, band_high=1.0)


# ---------------------------------------------------------------- synthesis genes

SYN = """def simple(a, b):
    return a < b


def branchy(x, y):
    if x > 0:
        for i in range(3):
            if i == y:
                return max(i, y)
    if y:
        return min(x, y)
    return x + 1
"""


@pytest.fixture(scope="module")
def synthetic_repo(tmp_path_factory) -> Path:
    repo = tmp_path_factory.mktemp("syn") / "synlib"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "user.email", "t@example.com")
    git(repo, "config", "user.name", "t")
    commit(
        repo,
        {
            "synlib/__init__.py": "",
            "synlib/core.py": SYN,
            "tests/test_core.py": (
                "from synlib.core import simple\n\n\ndef test_simple():\n    assert simple(1, 2)\n"
                "    assert not simple(2, 2)\n"
            ),
        },
        "Initial version with tests",
        "2024-01-01T00:00:00",
    )
    return repo


def syn(**genes) -> Strategy:
    return Strategy(StrategyType.SYNTHETIC, PROMPT, genes=genes)


def test_operator_weights_change_the_operator_mix(synthetic_repo):
    sites = mutation_sites("synlib/core.py", SYN)
    assert {m.operator for m in sites} == {"flip_comparison", "off_by_one", "drop_guard", "swap_arguments"}
    only_flips = order_sites(sites, syn(op_off_by_one=0, op_drop_guard=0, op_swap_arguments=0), seed=3)
    assert only_flips and {m.operator for m in only_flips} == {"flip_comparison"}
    tilted = order_sites(sites, syn(op_flip_comparison=0.05, op_drop_guard=0.05, op_swap_arguments=0.05), seed=3)
    uniform = order_sites(sites, syn(), seed=3)
    top = len([m for m in sites if m.operator == "off_by_one"])
    share = lambda ordered: sum(m.operator == "off_by_one" for m in ordered[:top]) / top  # noqa: E731
    assert share(tilted) > share(uniform)
    tasks = synthesize(synthetic_repo, 3, 3, strategy=syn(op_off_by_one=0, op_drop_guard=0, op_swap_arguments=0))
    assert tasks and {t.generation["mutation"] for t in tasks} == {"flip_comparison"}


def test_the_complexity_band_puts_its_functions_first():
    sites = mutation_sites("synlib/core.py", SYN)
    complexities = {m.function: m.complexity for m in sites}
    assert complexities["simple"] == 1 and complexities["branchy"] >= 5
    assert order_sites(sites, syn(complexity_low=1, complexity_high=1), seed=0)[0].function == "simple"
    assert order_sites(sites, syn(complexity_low=5, complexity_high=30), seed=0)[0].function == "branchy"


def test_mutations_per_task_joins_sites_of_one_file(synthetic_repo):
    one = synthesize(synthetic_repo, 2, 1, strategy=syn(mutations=1))
    three = synthesize(synthetic_repo, 2, 1, strategy=syn(mutations=3))
    assert all(len(t.generation["mutations"]) == 1 for t in one)
    assert all(len(t.generation["mutations"]) == 3 for t in three)
    assert three[0].bug_patch.count("\n-") > one[0].bug_patch.count("\n-")


def test_only_executed_functions_are_targets(synthetic_repo):
    sites = mutation_sites("synlib/core.py", SYN)
    simple_line = next(m for m in sites if m.function == "simple").def_lines[0]
    tasks = synthesize(synthetic_repo, 5, 0, strategy=syn(), executed={("synlib/core.py", simple_line)})
    assert tasks and {f for t in tasks for f in t.generation["touched_functions"]} == {"simple"}


# ---------------------------------------------------------------- evidence genes

CONTEXT = {
    "failing_tests": [
        {"id": f"tests/t.py::test_{i}", "assertion": f"assert f({i})", "added_lines": ["x"]} for i in range(4)
    ],
    "failures": [
        FailureEvidence(f"tests/t.py::test_{i}", kind="truthy", message="boom", reproduction="f()") for i in range(4)
    ],
    "touched_functions": [{"file": "m.py", "name": "f", "signature": "def f(x, y=2)"}],
    "added_lines": ["return x + 1"],
}


def test_evidence_tests_is_the_share_of_failing_tests_shown():
    shown, info = writer_context(CONTEXT, strategy(evidence_tests=0.5))
    assert [t["id"] for t in shown["failing_tests"]] == ["tests/t.py::test_0", "tests/t.py::test_1"]
    assert [f.test_id for f in shown["failures"]] == ["tests/t.py::test_0", "tests/t.py::test_1"]  # evidence follows
    assert info["tests"] == 2 and info["of_tests"] == 4
    assert len(writer_context(CONTEXT, strategy(evidence_tests=0.0))[0]["failing_tests"]) == 1  # never none
    assert writer_context(CONTEXT, strategy())[0] == CONTEXT  # neutral genes: unchanged


def test_evidence_code_levels_withhold_the_fix_then_the_signatures_and_test_source():
    middle, info = writer_context(CONTEXT, strategy(evidence_code=0.5))
    assert middle["added_lines"] == [] and not info["fix"]
    assert middle["touched_functions"][0]["signature"] == "def f(x, y=2)"
    assert middle["failing_tests"][0]["added_lines"] == ["x"]
    names, info = writer_context(CONTEXT, strategy(evidence_code=0.1))
    assert info["code"] == "names" and "signature" not in names["touched_functions"][0]
    assert "added_lines" not in names["failing_tests"][0]
    assert names["failures"] == CONTEXT["failures"]  # the evidence of the run stays


def test_statement_words_caps_at_a_paragraph_boundary():
    text = "Title here\n\n" + " ".join(["word"] * 30) + "\n\n```python\nx = 1\n\ny = 2\n```\n\nLast words here."
    capped = cap_words(text, 35)
    assert len(capped.split()) <= 35 and capped.startswith("Title here") and capped.count("```") % 2 == 0
    assert cap_words(text, 1000) == text
    assert writer_context(CONTEXT, strategy(statement_words=80))[1]["max_words"] == 80
    assert writer_context(CONTEXT, strategy())[1]["max_words"] is None


def test_evidence_genes_change_what_the_offline_writer_writes(three_commits):
    """Through the generator and the real offline writer: a prompt that does not forbid
    quoting the fix leaks it when the writer sees the fix, not when the gene withholds it; the
    length gene reaches the writer."""
    from records import Task
    from tasks import Validator
    from tasks.generate import Generator, skeleton
    from tests.evo.test_archive_in_evolution import RecordingClient

    leaky = (
        "Write a bug report for {repo}. Include reproduction steps, state the expected and actual behaviour, "
        "name the affected function and its signature, and list the failing tests by name."
    )
    fix = three_commits[0]
    outcomes = {}
    for label, genes in (("all", {}), ("withheld", {"evidence_code": 0.5}), ("short", {"statement_words": 40})):
        llm = RecordingClient()
        generator = Generator(llm=llm, validator=Validator(llm=llm))
        s = Strategy(StrategyType.BUG_FIX, leaky, genes=genes)
        task: Task = skeleton(fix, s)
        task.FAIL_TO_PASS = ["tests/test_lib.py::test_add"]
        generator.write_statement(task, fix, s)
        outcomes[label] = (task.problem_statement, llm.prompts[-1], task.generation["evidence"])
    assert "return a + b" in outcomes["all"][0]  # the careless writer quotes the fix
    assert "return a + b" not in outcomes["withheld"][0] and "return a + b" not in outcomes["withheld"][1]
    assert outcomes["withheld"][2]["fix"] is False
    # the length gene reaches the writer and caps what it wrote (this fixture's whole statement is
    # already under the gene's floor of 40 words, so the cut itself is `cap_words`' test above)
    assert outcomes["short"][2]["max_words"] == 40 and outcomes["all"][2]["max_words"] is None
    assert len(outcomes["short"][0].split()) <= 40


# ---------------------------------------------------------------- difficulty's execution signal


def test_difficulty_counts_how_much_of_the_suite_the_bug_breaks():
    base = dict(patch="", touched_sources={}, touched_functions=[], statement="")
    narrow = difficulty(DifficultyInput(**base, f2p_count=1, p2p_count=99))
    broad = difficulty(DifficultyInput(**base, f2p_count=1, p2p_count=0))
    more = difficulty(DifficultyInput(**base, f2p_count=6, p2p_count=0))
    assert narrow[2]["broken_share"] == 0.01 and broad[2]["broken_share"] == 1.0
    assert narrow[0] < broad[0] < more[0]
    unknown = difficulty(DifficultyInput(**base, f2p_count=1))  # a prediction before any run
    assert "broken_share" not in unknown[2]
