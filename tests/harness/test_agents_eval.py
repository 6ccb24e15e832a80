"""Evaluating agents on a generated panel: oracle resolves all, nop none, degraded gold in between."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from harness.agents import RandomAgent, extract_diff  # noqa: E402
from harness.inputs import PredictionsError, load_predictions  # noqa: E402
from harness.metrics import attempt_report, pass_at_k, wilson_interval  # noqa: E402
from records import read_jsonl  # noqa: E402
from tests.e2e import generated_tasks, sebgen  # noqa: E402
from tests.sandbox_fixtures import new_file_patch  # noqa: E402

LOCAL = ["--set", "sandbox.backend=local", "--set", "sandbox.reruns=1"]
# patches from a predictions file are an adversary's: the local backend refuses them as root
DOCKER = ["--set", "sandbox.backend=docker", "--set", "sandbox.reruns=1"]


def predictions_backend() -> list[str]:
    if os.geteuid() != 0:
        return LOCAL
    from tests.sandbox_fixtures import require_docker

    require_docker()
    return DOCKER


@pytest.fixture(scope="module")
def panel(tmp_path_factory) -> Path:
    """Tasks generated once per module from the bundled pyledger repo."""
    out = generated_tasks(tmp_path_factory.mktemp("panel"), 4)
    assert len(list(read_jsonl(out))) >= 2, "the panel needs at least two tasks"
    return out


def evaluate(panel: Path, tmp: Path, *args: str, backend: list[str] = LOCAL) -> dict:
    out = tmp / "results.json"
    proc = sebgen("evaluate", str(panel), *args, "--out", str(out), *backend)
    assert proc.returncode == 0, proc.stderr
    return json.loads(out.read_text())


def drop_last_hunk(patch: str) -> str:
    lines = patch.splitlines(keepends=True)
    starts = [i for i, line in enumerate(lines) if line.startswith("@@")]
    last = starts[-1]
    end = next((i for i in range(last + 1, len(lines)) if lines[i].startswith("diff --git")), len(lines))
    kept = lines[:last] + lines[end:]
    # a file header left with no hunk would be an invalid diff: remove it too
    header = max(i for i in range(last) if lines[i].startswith("diff --git") or i == 0)
    if not any(line.startswith("@@") for line in lines[header:last]):
        kept = lines[:header] + lines[end:]
    return "".join(kept)


def drop_last_added_line(patch: str) -> str:
    lines = patch.splitlines(keepends=True)
    index = max(i for i, line in enumerate(lines) if line.startswith("+") and not line.startswith("+++"))
    hunk = max(i for i in range(index) if lines[i].startswith("@@"))
    shrink = lambda m: f"+{m.group(1)},{int(m.group(2) or 1) - 1}"  # the hunk's new length, one line less
    lines[hunk] = re.sub(r"\+(\d+)(?:,(\d+))?", shrink, lines[hunk], count=1)
    del lines[index]
    return "".join(lines)


def degraded(patch: str) -> str:
    return drop_last_hunk(patch) if patch.count("\n@@") + patch.startswith("@@") >= 2 else drop_last_added_line(patch)


@pytest.mark.slow
def test_oracle_resolves_every_task(panel, tmp_path):
    result = evaluate(panel, tmp_path, "--agent", "oracle", "--attempts", "2", "--k", "2")
    overall = result["summary"]["overall"]
    assert overall["resolved_rate"] == 1.0 and overall["pass@1"] == 1.0 and overall["pass@2"] == 1.0
    for report in result["tasks"].values():
        assert report["patch_successfully_applied"] and report["tests_status"]["FAIL_TO_PASS"]["success"]
        assert not report["tests_status"]["PASS_TO_PASS"]["failure"]


@pytest.mark.slow
def test_nop_resolves_nothing_and_its_f2p_tests_fail(panel, tmp_path):
    result = evaluate(panel, tmp_path, "--agent", "nop")
    assert result["summary"]["overall"]["resolved"] == 0
    for report in result["tasks"].values():
        assert report["patch_exists"] is False and report["tests_status"]["FAIL_TO_PASS"]["failure"]


@pytest.mark.slow
def test_random_edits_resolve_nearly_nothing(panel, tmp_path):
    result = evaluate(panel, tmp_path, "--agent", "random", "--attempts", "2")
    assert result["summary"]["overall"]["pass@1"] <= 0.25
    assert all(r["patch_exists"] for r in result["tasks"].values())


@pytest.mark.slow
def test_random_agent_is_deterministic(panel):
    task = next(iter(read_jsonl(panel)))
    assert RandomAgent(3).propose(task, 0) == RandomAgent(3).propose(task, 0)
    assert RandomAgent(3).propose(task, 0).startswith("--- a/")


@pytest.mark.slow
@pytest.mark.docker  # as root, predictions run in Docker (predictions_backend)
def test_degraded_gold_lands_between_nop_and_oracle(panel, tmp_path):
    """Half the panel gets the gold patch, the rest the gold patch with a hunk (or its last added line) dropped."""
    tasks = sorted(read_jsonl(panel), key=lambda t: -t.patch.count("\n@@"))
    preds = tmp_path / "preds.jsonl"
    rows = [
        {
            "instance_id": t.instance_id,
            "model_name_or_path": "degraded",
            "model_patch": degraded(t.patch) if i < max(1, len(tasks) // 2) else t.patch,
        }
        for i, t in enumerate(tasks)
    ]
    preds.write_text("".join(json.dumps(r) + "\n" for r in rows))
    result = evaluate(panel, tmp_path, "--predictions", str(preds), backend=predictions_backend())
    rate = result["summary"]["overall"]["resolved_rate"]
    assert 0.0 < rate < 1.0, rate
    for row in rows[: max(1, len(tasks) // 2)]:
        assert result["tasks"][row["instance_id"]]["resolved"] is False


@pytest.mark.slow
@pytest.mark.docker  # as root, predictions run in Docker (predictions_backend)
def test_predictions_with_several_lines_per_task_are_attempts(panel, tmp_path):
    task = next(iter(read_jsonl(panel)))
    preds = tmp_path / "preds.jsonl"
    preds.write_text(
        "".join(
            json.dumps({"instance_id": task.instance_id, "model_name_or_path": "m", "model_patch": p}) + "\n"
            for p in ("", task.patch, "")
        )
    )
    result = evaluate(panel, tmp_path, "--predictions", str(preds), "--k", "2", backend=predictions_backend())
    report = result["tasks"][task.instance_id]
    assert (report["n"], report["correct"], report["resolved"]) == (3, 1, False)
    assert result["summary"]["by_month"][task.created_at[:7]]["pass@2"] == pytest.approx(2 / 3, abs=1e-6)


def test_pass_at_k_matches_hand_computed_values():
    assert pass_at_k(5, 2, 2) == pytest.approx(0.7)  # 1 - C(3,2)/C(5,2) = 1 - 3/10
    assert pass_at_k(5, 2, 1) == pytest.approx(0.4)
    assert pass_at_k(4, 0, 2) == 0.0
    assert pass_at_k(3, 2, 2) == 1.0  # fewer wrong attempts than k: some pick holds a success
    assert pass_at_k(10, 3, 5) == pytest.approx(1 - 21 / 252)


def test_wilson_interval_known_value():
    low, high = wilson_interval(5, 10)
    assert low == pytest.approx(0.2366, abs=1e-4) and high == pytest.approx(0.7634, abs=1e-4)
    assert wilson_interval(0, 0) == (0.0, 0.0)


def test_attempt_report_requires_every_f2p_and_p2p():
    outcomes = {"t::a": "passed", "t::b": "failed"}
    assert attempt_report(["t::a"], ["t::b"], "diff", True, outcomes)["resolved"] is False
    assert attempt_report(["t::a"], [], "diff", True, outcomes)["resolved"] is True
    assert attempt_report(["t::a"], [], None, False, None)["patch_is_None"] is True


@pytest.mark.slow  # runs the CLI in a subprocess (or builds an environment): seconds each
def test_extract_diff_and_bad_predictions(tmp_path):
    assert extract_diff("text\n```diff\n--- a/x\n+++ b/x\n```\n") == "--- a/x\n+++ b/x\n"
    assert extract_diff("no diff here") == ""
    bad = tmp_path / "p.jsonl"
    bad.write_text('{"model_patch": ""}\n')
    with pytest.raises(PredictionsError):
        load_predictions(bad)
    assert sebgen("evaluate", str(bad), "--agent", "nobody").returncode == 2


@pytest.mark.slow
def test_llm_agent_sends_statement_and_sources_and_parses_the_diff(panel):
    from harness.agents import LLMAgent
    from llm.client import LLMClient

    task = next(iter(read_jsonl(panel)))
    answer = f"Here is the fix.\n```diff\n{task.patch}```\n"
    agent = LLMAgent("offline/sebgen", llm=LLMClient("offline/sebgen", mock_response=answer))
    prompt = agent.prompt(task)
    assert task.problem_statement in prompt
    touched = task.patch.split("+++ b/")[1].split("\n")[0]
    assert f"### {touched}" in prompt
    assert agent.propose(task, 0) == task.patch


@pytest.mark.slow
@pytest.mark.parametrize(
    "row, says",
    [
        ({"instance_id": "x", "model_patch": 7}, "model_patch must be a string or null, not int"),
        ({"instance_id": "x", "model_patch": ["--- a/x"]}, "model_patch must be a string or null, not list"),
        ({"instance_id": ["x"], "model_patch": ""}, "instance_id must be a non-empty string, not list"),
        ({"instance_id": "", "model_patch": ""}, "instance_id must be a non-empty string, not str"),
        ({"model_patch": ""}, "has no instance_id"),
    ],
)
def test_malformed_predictions_end_in_one_sentence_and_exit_2(panel, tmp_path, row, says):
    preds = tmp_path / "p.jsonl"
    preds.write_text(json.dumps(row) + "\n")
    proc = sebgen("evaluate", str(panel), "--predictions", str(preds), "--out", str(tmp_path / "r.json"), *LOCAL)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    errors = [line for line in proc.stderr.splitlines() if line.startswith("sebgen:")]
    assert len(errors) == 1 and says in errors[0], proc.stderr
    assert not (tmp_path / "r.json").exists()


@pytest.mark.slow
def test_empty_predictions_and_duplicates_and_missing_patches_are_warned_about(panel, tmp_path):
    warnings: list[str] = []
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n")
    assert load_predictions(empty, warn=warnings.append) == {}
    assert any("is empty" in w for w in warnings)
    repeated = tmp_path / "dup.jsonl"
    repeated.write_text('{"instance_id": "a", "model_patch": ""}\n{"instance_id": "a"}\n')
    warnings.clear()
    assert load_predictions(repeated, warn=warnings.append) == {"a": ["", None]}
    assert any("appear more than once" in w for w in warnings) and any("no model_patch" in w for w in warnings)
    # the CLI says it too, and an empty file still gives a result (no patch resolves nothing)
    proc = sebgen("evaluate", str(panel), "--predictions", str(empty), "--out", str(tmp_path / "r.json"), *LOCAL)
    assert proc.returncode == 0 and "is empty" in proc.stderr
    assert json.loads((tmp_path / "r.json").read_text())["summary"]["overall"]["resolved"] == 0


ALL_PASS = (
    "import pytest\n\n\n@pytest.hookimpl(hookwrapper=True)\n"
    "def pytest_runtest_makereport(item, call):\n    outcome = yield\n    outcome.get_result().outcome = 'passed'\n"
)
INI_CHEAT = [("tests/pytest.ini", "[pytest]\naddopts = -p cheat_plugin\n"), ("cheat_plugin.py", ALL_PASS)]


def conftest_cheat(task) -> str:
    """The repo's root conftest.py with an all-passed hookwrapper appended (or a new one)."""
    import difflib

    shown = subprocess.run(
        ["git", "-C", task.repo_path, "show", f"{task.base_commit}:conftest.py"], capture_output=True, text=True
    )
    if shown.returncode != 0:
        return new_file_patch("conftest.py", ALL_PASS)
    before = shown.stdout
    after = before + "\n\n" + ALL_PASS
    return "".join(
        difflib.unified_diff(
            before.splitlines(keepends=True),
            after.splitlines(keepends=True),
            fromfile="a/conftest.py",
            tofile="b/conftest.py",
        )
    )


@pytest.mark.slow
@pytest.mark.docker  # as root, predictions run in Docker (predictions_backend)
def test_cheating_predictions_resolve_nothing_through_the_cli(panel, tmp_path):
    """The issue's conftest and ini cheats as a predictions file for `sebgen evaluate` on
    bundled-corpus tasks: nothing resolves, each report says what was removed."""
    tasks = list(read_jsonl(panel))
    preds = tmp_path / "cheats.jsonl"
    rows = [
        {
            "instance_id": t.instance_id,
            "model_name_or_path": "cheat",
            "model_patch": conftest_cheat(t) if i % 2 == 0 else "".join(new_file_patch(*f) for f in INI_CHEAT),
        }
        for i, t in enumerate(tasks)
    ]
    preds.write_text("".join(json.dumps(r) + "\n" for r in rows))
    result = evaluate(panel, tmp_path, "--predictions", str(preds), backend=predictions_backend())
    assert result["summary"]["overall"]["resolved"] == 0
    for i, task in enumerate(tasks):
        report = result["tasks"][task.instance_id]
        assert report["patch_successfully_applied"] and not report["resolved"]
        changed = report["reverted"] + report["removed"]
        assert changed == (["conftest.py"] if i % 2 == 0 else ["tests/pytest.ini"]), changed


@pytest.mark.slow
@pytest.mark.docker  # as root, predictions run in Docker (predictions_backend)
def test_apply_failure_reason_is_kept_in_the_report(panel, tmp_path):
    task = next(iter(read_jsonl(panel)))
    preds = tmp_path / "p.jsonl"
    preds.write_text(
        json.dumps(
            {
                "instance_id": task.instance_id,
                "model_patch": "--- a/nowhere.py\n+++ b/nowhere.py\n@@ -1 +1 @@\n-a\n+b\n",
            }
        )
        + "\n"
    )
    result = evaluate(panel, tmp_path, "--predictions", str(preds), backend=predictions_backend())
    report = result["tasks"][task.instance_id]
    assert not report["patch_successfully_applied"] and "nowhere.py" in report["apply_error"]
