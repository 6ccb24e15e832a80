"""The SWE-bench harness itself (swebench 5.x, .ci/provision_interop.sh) on SEBGen's SWE-bench
export of two JavaScript tasks (tests/harness/js_tasks.py): with the images `sebgen export
--build-images` built, `run_evaluation` resolves both with the gold patches and neither with
empty patches or a patch that fixes nothing; the rows' eval script runs SEBGen's JS verifier."""

from __future__ import annotations

import json
import subprocess

import pytest

from records import write_jsonl
from tests.e2e import sebgen
from tests.harness.js_tasks import fix_history, js_task
from tests.harness.test_interop_swebench import NOTHING_FIXED, _evaluate, _predictions
from tests.interop_fixtures import export_base_image, swebench_python

pytestmark = [pytest.mark.interop, pytest.mark.docker, pytest.mark.slow, pytest.mark.timeout(2400)]


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    swebench_python()
    base = export_base_image()
    work = tmp_path_factory.mktemp("swebench-js")
    repo = fix_history(work / "repo")
    tasks = [js_task(repo, 0), js_task(repo, 1)]
    write_jsonl(tasks, work / "tasks.jsonl")
    out = work / "dataset" / "tasks.jsonl"
    proc = sebgen(
        "export", work / "tasks.jsonl", "--format", "swebench", "--out", out, "--build-images", "--base-image", base
    )
    assert proc.returncode == 0, proc.stderr
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    yield out, [t.instance_id for t in tasks], rows
    subprocess.run(["docker", "image", "rm", "-f", *(r["image"] for r in rows)], capture_output=True)


def test_js_rows_run_sebgens_verifier(dataset):
    _, _, rows = dataset
    for row in rows:
        assert "/opt/sebgen/verifier/verify.py" in row["eval_script"] and "pytest" not in row["eval_script"]
        assert row["log_parser"] == "parse_log_pytest_v2"


def test_gold_resolves_both_js_tasks(dataset, tmp_path):
    out, ids, _ = dataset
    assert sorted(_evaluate(out, "gold", "gold", tmp_path)["resolved_ids"]) == sorted(ids)


def test_empty_and_nothing_fixed_resolve_no_js_task(dataset, tmp_path):
    out, ids, _ = dataset
    empty = _evaluate(out, _predictions(tmp_path / "empty.jsonl", ids, "", "empty"), "empty", tmp_path)
    assert empty["resolved_instances"] == 0
    nop = _evaluate(out, _predictions(tmp_path / "nop.jsonl", ids, NOTHING_FIXED, "nop"), "nop", tmp_path)
    assert nop["resolved_instances"] == 0 and sorted(nop["unresolved_ids"]) == sorted(ids)
