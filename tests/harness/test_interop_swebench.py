"""The SWE-bench harness itself (swebench 5.x, its own venv) on SEBGen's SWE-bench export:
`python -m swebench.harness.run_evaluation` resolves every task with the gold patch and none with an
empty patch or a patch that fixes nothing (a bundled-corpus and a real-repository task), using the images
`sebgen export --build-images` built."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from records import read_jsonl, write_jsonl
from tests.e2e import sebgen
from tests.interop_fixtures import bundled_task, export_base_image, real_repo_task, swebench_python

pytestmark = [
    pytest.mark.interop,
    pytest.mark.docker,
    pytest.mark.slow,
    pytest.mark.timeout(2400),
]  # generation, image builds and the client runs: minutes each on 2 cores

NOTHING_FIXED = (
    "diff --git a/SEBGEN_NOTHING_FIXED.md b/SEBGEN_NOTHING_FIXED.md\nnew file mode 100644\n"
    "--- /dev/null\n+++ b/SEBGEN_NOTHING_FIXED.md\n"
    "@@ -0,0 +1 @@\n+nothing fixed here\n"
)


@pytest.fixture(scope="module")
def dataset(tmp_path_factory) -> tuple[Path, list[str], list[str]]:
    """(rows JSONL, instance ids, image names): a bundled-corpus and a real-repository task, with images."""
    swebench_python()
    base = export_base_image()
    work = tmp_path_factory.mktemp("swebench")
    tasks = work / "tasks.jsonl"
    write_jsonl([next(iter(read_jsonl(bundled_task()))), next(iter(read_jsonl(real_repo_task())))], tasks)
    out = work / "dataset" / "tasks.jsonl"
    proc = sebgen("export", tasks, "--format", "swebench", "--out", out, "--build-images", "--base-image", base)
    assert proc.returncode == 0, proc.stderr
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    images = [r["image"] for r in rows]
    yield out, [t.instance_id for t in read_jsonl(tasks)], images
    subprocess.run(["docker", "image", "rm", "-f", *images], capture_output=True)


def _evaluate(dataset_file: Path, predictions: str, run_id: str, cwd: Path) -> dict:
    proc = subprocess.run(
        [
            swebench_python(),
            "-m",
            "swebench.harness.run_evaluation",
            "--dataset_name",
            str(dataset_file),
            "--predictions_path",
            predictions,
            "--run_id",
            run_id,
            "--max_workers",
            "2",
            "--report_dir",
            str(cwd),
        ],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=1800,
    )
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-3000:]
    reports = list(cwd.glob(f"*.{run_id}.json"))
    assert len(reports) == 1, proc.stdout[-3000:]
    return json.loads(reports[0].read_text())


def _predictions(path: Path, ids: list[str], patch: str, model: str) -> str:
    path.write_text(
        "".join(json.dumps({"instance_id": i, "model_name_or_path": model, "model_patch": patch}) + "\n" for i in ids)
    )
    return str(path)


def test_rows_carry_the_harness_fields(dataset):
    out, ids, images = dataset
    for row in map(json.loads, out.read_text().splitlines()):
        assert row["repo"].count("/") == 1 and not row["repo"].startswith("/")
        assert row["log_parser"] == "parse_log_pytest_v2" and row["eval_type"] == "pass_and_fail"
        image = subprocess.run(["docker", "image", "inspect", row["image"]], capture_output=True)
        assert image.returncode == 0, f"{row['image']} was not built"


def test_gold_resolves_everything(dataset, tmp_path):
    out, ids, _ = dataset
    report = _evaluate(out, "gold", "gold", tmp_path)
    assert sorted(report["resolved_ids"]) == sorted(ids)


def test_empty_and_nothing_fixed_resolve_nothing(dataset, tmp_path):
    out, ids, _ = dataset
    empty = _evaluate(out, _predictions(tmp_path / "empty.jsonl", ids, "", "empty"), "empty", tmp_path)
    assert empty["resolved_instances"] == 0 and sorted(empty["empty_patch_ids"]) == sorted(ids)
    nop = _evaluate(out, _predictions(tmp_path / "nop.jsonl", ids, NOTHING_FIXED, "nop"), "nop", tmp_path)
    assert nop["resolved_instances"] == 0 and sorted(nop["unresolved_ids"]) == sorted(ids)
