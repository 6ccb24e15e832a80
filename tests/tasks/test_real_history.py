"""Real histories: merged pull-request branches, merges counted once, named commits, the
reversed baseline over non-Python files, `owner/name`, and statements built from real commits."""

import json
import os
import re
import subprocess
import tempfile
from pathlib import Path

import pytest

from corpus import dev_set
from environment import make_sandbox
from llm.offline import write_statement
from sandbox import Limits, apply_patch, export_tree, repo_name
from sandbox.repo_id import name_from_url
from tasks.generate import skeleton, strategy_instructions
from tasks.mining import MiningError, classify, mine, mine_commits
from tasks.statement import statement_context
from tasks.strategy import SEED_PROMPTS, Strategy, StrategyType
from tasks.validate import Validator, check_functional_layer
from tests.e2e import sebgen

EMPTY_CODE_SPAN = re.compile(r"(?<!`)``(?!`)")  # a fence (```) is not one
REAL_REPOS = dev_set("python")
CALC = """import json
import pathlib


def rate():
    return json.loads((pathlib.Path(__file__).parent / "rates.json").read_text())["rate"]


def price(x):
    return {body}
"""


def git(repo: Path, *args: str, day: int = 1) -> str:
    stamp = f"2024-01-{day:02d}T12:00:00+00:00"
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "dev",
        "GIT_AUTHOR_EMAIL": "dev@example.com",
        "GIT_COMMITTER_NAME": "dev",
        "GIT_COMMITTER_EMAIL": "dev@example.com",
        "GIT_AUTHOR_DATE": stamp,
        "GIT_COMMITTER_DATE": stamp,
    }
    return subprocess.run(
        ["git", "-C", str(repo), *args], check=True, capture_output=True, text=True, env=env
    ).stdout.strip()


def write(repo: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text)


def commit(repo: Path, files: dict[str, str], message: str, day: int) -> str:
    write(repo, files)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message, day=day)
    return git(repo, "rev-parse", "HEAD")


@pytest.fixture(scope="module")
def pr_repo(tmp_path_factory):
    """A project that merges every pull request with a merge commit:
    PR #7 (fix on a branch: code, a data file and a test), PR #8 (a feature), PR #9 (source and
    test in separate branch commits, so only the merge as a whole changes both), and a direct
    commit on main that changes no test."""
    repo = tmp_path_factory.mktemp("hist") / "shop"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    shas = {
        "root": commit(
            repo,
            {
                "pkg/__init__.py": "",
                "pkg/rates.json": '{"rate": 1}\n',
                "pkg/calc.py": CALC.format(body="x * rate()"),
                "tests/test_calc.py": "from pkg.calc import price\n\n\ndef test_zero():\n    assert price(0) == 0\n",
            },
            "Initial version of the shop",
            1,
        )
    }
    git(repo, "checkout", "-q", "-b", "fix-rate")
    shas["fix"] = commit(
        repo,
        {
            "pkg/rates.json": '{"rate": 2}\n',
            "pkg/calc.py": CALC.format(body="round(x * rate(), 2)"),
            "tests/test_calc.py": "from pkg.calc import price\n\n\ndef test_zero():\n"
            "    assert price(0) == 0\n\n\ndef test_price_uses_current_rate():\n"
            "    assert price(3) == 6, 'price must use the current rate'\n",
        },
        "Charge the current rate",
        2,
    )
    git(repo, "checkout", "-q", "main")
    shas["readme"] = commit(repo, {"README.md": "# shop\n"}, "Describe the project in a README file", 3)
    git(
        repo,
        "merge",
        "-q",
        "--no-ff",
        "fix-rate",
        "-m",
        "Merge pull request #7 from dev/fix-rate",
        "-m",
        "Prices ignore the current rate\n\nprice() kept charging the old rate of 1, see #5.",
        day=4,
    )
    shas["merge7"] = git(repo, "rev-parse", "HEAD")
    git(repo, "checkout", "-q", "-b", "discount")
    shas["feature"] = commit(
        repo,
        {
            "pkg/calc.py": CALC.format(body="round(x * rate(), 2)")
            + "\n\ndef discount(x, share):\n    return x * (1 - share)\n",
            "tests/test_discount.py": "from pkg.calc import discount\n\n\n"
            "def test_discount():\n    assert discount(10, 0.5) == 5\n",
        },
        "Add a discount helper for sales",
        5,
    )
    git(repo, "checkout", "-q", "main")
    git(
        repo,
        "merge",
        "-q",
        "--no-ff",
        "discount",
        "-m",
        "Merge pull request #8 from dev/discount",
        "-m",
        "Add a discount helper",
        day=6,
    )
    git(repo, "checkout", "-q", "-b", "split")
    calc = (repo / "pkg/calc.py").read_text()
    shas["split_src"] = commit(
        repo, {"pkg/calc.py": calc + "\n\ndef cents(x):\n    return int(round(x * 100))\n"}, "wip", 7
    )
    shas["split_test"] = commit(
        repo,
        {"tests/test_cents.py": "from pkg.calc import cents\n\n\ndef test_cents():\n    assert cents(1.5) == 150\n"},
        "tests",
        8,
    )
    git(repo, "checkout", "-q", "main")
    git(
        repo,
        "merge",
        "-q",
        "--no-ff",
        "split",
        "-m",
        "Merge pull request #9 from dev/split",
        "-m",
        "Convert amounts to whole cents",
        day=9,
    )
    shas["merge9"] = git(repo, "rev-parse", "HEAD")
    shas["no_test"] = commit(
        repo,
        {"pkg/calc.py": (repo / "pkg/calc.py").read_text() + "\n# end of module\n"},
        "Mark the end of the calc module",
        10,
    )
    return repo, shas


def test_candidates_come_from_merged_branches_and_a_merge_counts_once(pr_repo):
    repo, shas = pr_repo
    result = mine(repo)
    by_sha = {c.sha: c for c in result.candidates}
    assert set(by_sha) == {shas["fix"], shas["feature"], shas["merge9"]}
    # 9 commits after the root; merges #7 and #8 are already counted through their branch commits
    assert result.funnel["commits"] == 9
    assert result.funnel["distinct_changes"] == 7
    fix = by_sha[shas["fix"]]
    assert not fix.first_parent and fix.merge == shas["merge7"]
    assert (fix.pr_number, fix.pr_title) == ("7", "Prices ignore the current rate")
    assert "old rate" in fix.pr_body and fix.issues == ["#5"]
    merged = by_sha[shas["merge9"]]  # its branch split source and tests: the pull request is the change
    assert merged.subject == "Convert amounts to whole cents" and merged.parent == git(repo, "rev-parse", "HEAD~1^1")
    assert not any(c.subject.startswith("Merge") for c in result.candidates)
    assert by_sha[shas["feature"]].kind == "feature_add" and fix.kind == "bug_fix"


def test_classify_does_not_call_a_merge_or_an_add_commit_a_fix():
    assert classify("Merge pull request #3 from a/b", [], "behaviour") == "other"
    assert classify("Add support for pathlib.Path to edit", [], "behaviour") == "feature_add"
    assert classify("Add a missing guard to fix a crash on empty input", [], "behaviour") == "bug_fix"


def test_named_commit_on_a_merged_branch_becomes_a_candidate_with_its_pull_request(pr_repo):
    repo, shas = pr_repo
    [candidate] = mine_commits(repo, [shas["fix"][:10]]).candidates
    assert candidate.sha == shas["fix"] and candidate.pr_title == "Prices ignore the current rate"
    with pytest.raises(MiningError, match=r"commit 0123abcd is not in the repository"):
        mine_commits(repo, ["0123abcd"])
    with pytest.raises(MiningError, match="changes no test file"):
        mine_commits(repo, [shas["no_test"]])
    with pytest.raises(MiningError, match="too large"):
        mine_commits(repo, [shas["fix"]], max_source_files=1)


def test_bug_patch_reverts_the_data_file_of_the_fix_and_its_test_fails_in_the_buggy_state(pr_repo, tmp_path):
    repo, shas = pr_repo
    [candidate] = mine_commits(repo, [shas["fix"]]).candidates
    task = skeleton(candidate, Strategy(StrategyType.BUG_FIX, SEED_PROMPTS[StrategyType.BUG_FIX][0]))
    assert "pkg/rates.json" in task.bug_patch and "pkg/rates.json" in task.patch
    tree = export_tree(repo, task.base_commit, tmp_path / "buggy")
    apply_patch(tree, task.bug_patch)
    assert json.loads((tree / "pkg/rates.json").read_text()) == {"rate": 1}
    # reverting only calc.py would leave the rate at 2 and the new test passing: no task
    validator = Validator(backend=make_sandbox("local", limits=Limits(timeout_s=60)), reruns=1)
    result = check_functional_layer(task, validator, repo)
    assert result.passed, result.reason
    assert task.FAIL_TO_PASS == ["tests/test_calc.py::test_price_uses_current_rate"]


def test_binary_file_of_a_fix_travels_as_a_git_binary_patch(tmp_path):
    repo = tmp_path / "bin"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    commit(repo, {"lib.py": "X = 1\n", "tests/test_lib.py": "def test_x():\n    assert True\n"}, "Initial", 1)
    (repo / "blob.bin").write_bytes(b"\x00\x01old")
    fix = commit(
        repo,
        {
            "lib.py": "X = 2\n",
            "tests/test_lib.py": "def test_x():\n    assert 1\n",
            "CHANGES.rst": "Ship the lookup table with the library\n",
        },
        "Ship the lookup table with the library",
        2,
    )
    [candidate] = mine_commits(repo, [fix]).candidates
    task = skeleton(candidate, Strategy(StrategyType.BUG_FIX, SEED_PROMPTS[StrategyType.BUG_FIX][0]))
    assert "GIT binary patch" in task.bug_patch
    assert "CHANGES.rst" not in task.patch  # the changelog restates the subject: not part of the fix
    tree = export_tree(repo, fix, tmp_path / "buggy")
    apply_patch(tree, task.bug_patch)
    assert not (tree / "blob.bin").exists() and (tree / "lib.py").read_text() == "X = 1\n"


@pytest.mark.parametrize(
    "url, name",
    [
        ("https://github.com/python-attrs/attrs.git", "python-attrs/attrs"),
        ("git@github.com:pallets/click.git", "pallets/click"),
        ("ssh://git@github.com/jd/tenacity", "jd/tenacity"),
        ("https://github.com/owner/name/", "owner/name"),
        ("/srv/mirrors/mahmoud__boltons.bundle", "mahmoud/boltons"),
        ("file:///srv/git/widgets.git", "widgets"),
    ],
)
def test_owner_and_name_come_from_the_remote_url(url, name):
    assert name_from_url(url) == name


def test_repo_is_owner_name_with_a_remote_and_the_folder_name_without(pr_repo, tmp_path):
    repo, shas = pr_repo
    root = git(repo, "rev-list", "--max-parents=0", "HEAD")
    assert repo_name(repo) == f"shop-{root[:12]}"  # no remote: the folder name with the root commit
    clone = tmp_path / "checkout"
    subprocess.run(["git", "clone", "-q", str(repo), str(clone)], check=True)
    git(clone, "remote", "set-url", "origin", "git@github.com:acme/shop.git")
    [candidate] = mine_commits(clone, [shas["fix"]]).candidates
    assert candidate.repo == "acme/shop"
    task = skeleton(candidate, Strategy(StrategyType.BUG_FIX, SEED_PROMPTS[StrategyType.BUG_FIX][0]))
    assert task.repo == "acme/shop" and task.instance_id.startswith("acme__shop__bug_fix-")


def _statement(candidate, tests: list[str], prompt: int = 1) -> str:
    strategy = Strategy(StrategyType.BUG_FIX, SEED_PROMPTS[StrategyType.BUG_FIX][prompt])
    task = skeleton(candidate, strategy)
    task.FAIL_TO_PASS = tests
    context = statement_context(task, candidate, strategy)
    return write_statement(context, strategy_instructions(strategy, candidate.repo))["problem_statement"]


def test_statement_of_a_merged_branch_commit_uses_the_pull_request_and_the_failing_assertion(pr_repo):
    repo, shas = pr_repo
    [candidate] = mine_commits(repo, [shas["fix"]]).candidates
    text = _statement(candidate, ["tests/test_calc.py::test_price_uses_current_rate"])
    assert "Prices ignore the current rate" in text  # the title of the pull request that merged it
    assert "`price(3)`" in text and "price must use the current rate" in text  # the assertion and its message
    assert not EMPTY_CODE_SPAN.search(text) and "Merge pull request" not in text


def test_statement_never_has_an_empty_code_span_nor_the_subject_on_both_sides():
    context = {
        "strategy_type": "BUG_FIX",
        "repo": "acme/shop",
        "commit_subject": "Respect the rounding mode",
        "commit_body": "",
        "touched_functions": [],
        "added_lines": [],
        "failing_tests": [{"id": "tests/test_calc.py::test_rounding", "assertion": ""}],
    }
    instructions = strategy_instructions(
        Strategy(StrategyType.BUG_FIX, SEED_PROMPTS[StrategyType.BUG_FIX][1]), "acme/shop"
    )
    text = write_statement(context, instructions)["problem_statement"]
    assert not EMPTY_CODE_SPAN.search(text)
    expected = re.search(r"Expected behaviour: (.*)", text).group(1)
    actual = re.search(r"Actual behaviour: (.*)", text).group(1)
    assert ("rounding mode" in expected) + ("rounding mode" in actual) == 1, text


def test_the_writer_keeps_the_bodys_symptoms_and_drops_its_account_of_the_fix():
    body = (
        "_init_rel_seek normalized negative rel_seek with 1.0 - rel_seek, so the target seek landed past EOF. "
        "The correct normalization is 1.0 + rel_seek now.\n\nIterating the tail of a file never ends."
    )
    context = {
        "strategy_type": "BUG_FIX",
        "repo": "acme/jsonl",
        "commit_subject": "Fix JSONLIterator at EOF",
        "commit_body": body,
        "touched_functions": [],
        "added_lines": ["            rel_seek = 1.0 + rel_seek"],
        "failing_tests": [{"id": "tests/test_j.py::test_tail", "assertion": "assert list(it) == [1]"}],
    }
    instructions = strategy_instructions(
        Strategy(StrategyType.BUG_FIX, SEED_PROMPTS[StrategyType.BUG_FIX][-1]), "acme/jsonl"
    )
    text = write_statement(context, instructions)["problem_statement"]
    assert "1.0 + rel_seek" not in text, text
    assert "never ends" in text, text


def test_a_test_that_checks_through_a_helper_is_reproduced_by_its_new_lines():
    from tasks.statement import added_test_lines, assertions

    source = (
        "def test_one_to_one():\n    def ck(val, inv):\n        assert (e, e.inv) == (val, inv)\n"
        "    e = OneToOne()\n    e.update({})\n    ck({}, {})\n"
    )
    assert assertions(source, "test_one_to_one") == []  # the helper's assert speaks of its parameters
    lines = added_test_lines(source, "test_one_to_one", {5, 6})
    assert lines == ["e.update({})", "ck({}, {})"]
    context = {
        "strategy_type": "BUG_FIX",
        "repo": "acme/dicts",
        "commit_subject": "Fix update with empty iterables",
        "commit_body": "",
        "touched_functions": [],
        "added_lines": [],
        "failing_tests": [{"id": "tests/test_d.py::test_one_to_one", "assertion": "", "added_lines": lines}],
    }
    instructions = strategy_instructions(
        Strategy(StrategyType.BUG_FIX, SEED_PROMPTS[StrategyType.BUG_FIX][-1]), "acme/dicts"
    )
    text = write_statement(context, instructions)["problem_statement"]
    assert "```python\ne.update({})\nck({}, {})\n```" in text, text


def test_a_statement_may_echo_the_fixs_changelog_but_not_its_code():
    from llm.leakage import leak_report

    patch = (
        "diff --git a/releasenotes/notes/fix-loop.yaml b/releasenotes/notes/fix-loop.yaml\n"
        "--- /dev/null\n+++ b/releasenotes/notes/fix-loop.yaml\n@@ -0,0 +1,2 @@\n+fixes:\n"
        "+  - Fix async loop with retrying code block when result is available.\n"
        "diff --git a/pkg/loop.py b/pkg/loop.py\n--- a/pkg/loop.py\n+++ b/pkg/loop.py\n@@ -1,2 +1,2 @@\n"
        " def step(do):\n-    return do\n+    raise StopAsyncIteration(do.retry_state.outcome)\n"
    )
    echo = "The async loop with a retrying code block misbehaves when the result is available."
    assert leak_report(echo, patch).score == 0
    guard = (
        "diff --git a/pkg/after.py b/pkg/after.py\n--- a/pkg/after.py\n+++ b/pkg/after.py\n@@ -1,3 +1,4 @@\n"
        " def log_it(retry_state, sec_format):\n+    secs = retry_state.seconds_since_start\n"
        '-    return f"after {sec_format % retry_state.seconds_since_start}(s), retrying"\n'
        "+    return f\"after {sec_format % secs if secs is not None else '?'}(s), retrying\"\n"
    )
    buggy_code = "Expected behaviour: `retry_state.seconds_since_start` should be `None`."  # the buggy code has it
    assert leak_report(buggy_code, guard).score == 0
    assert leak_report("It should do `secs = retry_state.seconds_since_start` first.", guard).score > 0
    quote = echo + " It should `raise StopAsyncIteration(do.retry_state.outcome)`."
    assert leak_report(quote, patch).score > 0


def test_signatures_in_the_writers_context_are_those_of_the_buggy_state(tmp_path):
    from tasks.statement import touched_signatures

    repo = tmp_path / "sig"
    repo.mkdir()
    git(repo, "init", "-q")
    commit(
        repo,
        {
            "pkg/loop.py": "async def step(x) -> object:\n    return x\n",
            "tests/test_loop.py": "def test_a():\n    assert True\n",
        },
        "start",
        1,
    )
    sha = commit(
        repo,
        {
            "pkg/loop.py": "async def step(x) -> int:\n    return int(x)\n\n\ndef helper():\n    return 1\n",
            "tests/test_loop.py": "def test_a():\n    assert 1\n",
        },
        "Step returns an int",
        2,
    )
    [candidate] = mine_commits(repo, [sha]).candidates
    found = {f["name"]: f["signature"] for f in touched_signatures(candidate)}
    assert found["step"] == "async def step(x) -> object"  # the fixed line would give the fix away
    assert found["helper"] == "def helper()"  # new: only the fixed state has it


@pytest.mark.parametrize(
    "path,prose",
    [
        ("releasenotes/notes/fix-a.yaml", True),
        ("docs/index.rst", True),
        ("CHANGES.rst", True),
        ("changelog.d/12.bugfix", True),
        ("pkg/words.txt", False),
        ("pkg/core.py", False),
        ("setup.cfg", False),
    ],
)
def test_prose_files_are_left_out_of_the_fix_and_data_files_are_not(path, prose):
    from llm import is_prose_file

    assert is_prose_file(path) is prose


@pytest.mark.parametrize("line", ["self.assertEqual(3, result)", "assert 3 == result", "assert result == 3"])
def test_an_equality_with_the_literal_first_still_expects_the_literal(line):
    from llm.offline.assertions import parse_assertion

    check = parse_assertion("tests/test_a.py::test_x", line)
    assert (check.call, check.expected) == ("result", "3")


def assert_one_sentence_exit_2(proc, phrase: str):
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    lines = [line for line in proc.stderr.strip().splitlines() if line.startswith("sebgen:")]
    assert len(lines) == 1 and phrase in lines[0], proc.stderr


@pytest.mark.slow  # runs the CLI in a subprocess (or builds an environment): seconds each
def test_generate_with_a_commit_not_in_the_repo_or_without_test_change_says_why(pr_repo, tmp_path):
    repo, shas = pr_repo
    out = tmp_path / "t.jsonl"
    assert_one_sentence_exit_2(
        sebgen("generate", repo, "--commit", "deadbeef", "--out", out), "is not in the repository"
    )
    assert_one_sentence_exit_2(
        sebgen("generate", repo, "--commit", shas["no_test"][:12], "--out", out), "changes no test file"
    )
    assert not out.exists()


def test_a_verified_commit_from_a_merged_pull_request_of_a_real_repo_is_a_candidate(tmp_path):
    record = _verified_pr_branch_commit("mahmoud/boltons")
    bundle = REAL_REPOS / (record["repo"].replace("/", "__") + ".bundle")
    clone = Path(tempfile.mkdtemp(dir=tmp_path)) / "boltons"
    subprocess.run(["git", "clone", "-q", str(bundle), str(clone)], check=True)
    [candidate] = mine_commits(clone, [record["commit"]]).candidates
    assert candidate.repo == "mahmoud/boltons" and not candidate.first_parent
    assert candidate.kind == "bug_fix"
    text = _statement(candidate, record["tests"], prompt=0)
    assert not text.startswith("Merge") and not EMPTY_CODE_SPAN.search(text)


def _verified_pr_branch_commit(repo: str) -> dict:
    verified = REAL_REPOS / "commits.json"
    if not verified.is_file():
        if os.environ.get("SEBGEN_REQUIRE_DOCKER") == "1":  # CI: the bundles sit beside the clone
            pytest.fail(f"the real-repository bundles are not at {REAL_REPOS}")
        pytest.skip(f"no real repositories at {REAL_REPOS}")
    return next(r for r in json.loads(verified.read_text()) if not r["first_parent"] and r["repo"] == repo)


@pytest.mark.docker
@pytest.mark.slow
def test_generate_turns_a_merged_pull_request_commit_of_a_real_repo_into_a_task_in_docker(tmp_path):
    from tests.sandbox_fixtures import require_docker

    require_docker()
    record = _verified_pr_branch_commit("mahmoud/boltons")
    clone = tmp_path / "boltons"
    subprocess.run(["git", "clone", "-q", str(REAL_REPOS / "mahmoud__boltons.bundle"), str(clone)], check=True)
    out = tmp_path / "t.jsonl"
    sebgen(
        "generate",
        clone,
        "--commit",
        record["commit"][:10],
        "--n",
        "1",
        "--out",
        out,
        "--set",
        "sandbox.backend=docker",
        "--set",
        "sandbox.reruns=1",
        "--set",
        "fitness.layers=[schema,compile,functional]",
        check=True,
    )  # execution decides here, not the judges
    [task] = [json.loads(line) for line in out.read_text().splitlines()]
    assert task["repo"] == "mahmoud/boltons" and task["base_commit"] == record["commit"]
    assert set(record["tests"]) <= set(task["FAIL_TO_PASS"])
    assert not task["problem_statement"].startswith("Merge")
