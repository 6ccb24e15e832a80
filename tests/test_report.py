"""The run report: a static page whose plots exist, a leaderboard, and no console errors in Chromium."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from evo.report import ReportError, build_report, funnel, novelty_vs_archive  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True", "HF_HUB_OFFLINE": "1"}
PLOTS = ("dimensions.png", "novelty.png", "strategy_mix.png", "difficulty.png", "funnel.png", "usage.png")


def sebgen(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "evo.cli", *args], cwd=ROOT, env=ENV, capture_output=True, text=True)


def results_doc(model: str, months: dict[str, float]) -> dict:
    def agg(rate):
        return {"tasks": 2, "resolved": int(rate * 2), "resolved_rate": rate, "resolved_rate_ci95": [0, 1],
                "pass@1": rate, "pass@1_ci95": [0, 1]}
    return {"model": model, "summary": {"k": 1, "overall": agg(sum(months.values()) / len(months)),
                                        "by_month": {m: agg(r) for m, r in months.items()}}, "tasks": {}}


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> Path:
    """A tiny evolution run (about a minute), two results files, and its report."""
    run_dir = tmp_path_factory.mktemp("run") / "run"
    proc = sebgen("run", "configs/quickstart.yaml", "--run-dir", str(run_dir), "--set", "sandbox.backend=local",
                  "--set", "sandbox.reruns=1", "--set", "fitness.tasks_per_strategy=1",
                  "--set", "fitness.oversample=2", "--set", "evolution.population=3")
    assert proc.returncode == 0, proc.stderr[-3000:]
    (run_dir / "results").mkdir()
    (run_dir / "results" / "oracle.json").write_text(json.dumps(results_doc("oracle", {"2025-11": 1.0, "2026-03": 1.0})))
    (run_dir / "results" / "nop.json").write_text(json.dumps(results_doc("nop", {"2025-11": 0.0})))
    proc = sebgen("report", str(run_dir))
    assert proc.returncode == 0, proc.stderr
    return run_dir / "report" / "index.html"


def test_page_references_every_plot_and_they_exist(report):
    page = report.read_text()
    for name in PLOTS:
        assert f'src="{name}"' in page, name
        assert (report.parent / name).stat().st_size > 1000, name
        assert (report.parent / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    referenced = set(re.findall(r'src="([^"]+)"', page))
    assert referenced == set(PLOTS)  # nothing else: no CDN script, no remote image
    assert "http://" not in page and "https://" not in page


def test_page_holds_hall_of_fame_leaderboard_and_funnel(report):
    page = report.read_text()
    assert "Hall of fame" in page and "<details>" in page and "<pre>" in page  # prompts with their lineage
    assert 'data-month="2026-03"' in page and 'data-month="all"' in page
    assert page.count('<option value="') == 3  # all + two months
    assert "stopped at" in page and "kept" in page


def test_report_of_a_folder_without_checkpoint_is_an_error(tmp_path):
    with pytest.raises(ReportError):
        build_report(tmp_path)
    proc = sebgen("report", str(tmp_path))
    assert proc.returncode == 2 and "no checkpoint" in proc.stderr


def test_funnel_and_novelty_helpers():
    ok = {"validation": {"schema": {"passed": True}, "compile": {"passed": True}}, "generation": {"novelty": 0.5}}
    bad = {"validation": {"schema": {"passed": True}, "compile": {"passed": False}}}
    counts = funnel([ok, bad, bad])
    assert counts["compile"] == 2 and counts["kept"] == 1 and counts["schema"] == 0
    rows = novelty_vs_archive([{"generation": 1, "tasks": [ok, ok]}, {"generation": 2, "tasks": [ok, bad]}])
    assert rows == [(1, 0, 0.5), (2, 2, 0.5)]


def _chromium() -> str | None:
    return next((shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome") if shutil.which(n)), None)


def test_page_loads_in_headless_chromium_without_console_errors(report, tmp_path):
    browser = _chromium()
    if browser is None:
        if os.environ.get("SEBGEN_REQUIRE_CHROMIUM") == "1":
            pytest.fail("SEBGEN_REQUIRE_CHROMIUM=1 but no chromium is installed (apt-get install -y chromium)")
        pytest.skip("chromium is not installed (apt-get install -y chromium); set SEBGEN_REQUIRE_CHROMIUM=1 to require it")
    proc = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                           "--disable-component-update", "--disable-sync", "--no-first-run",
                           f"--user-data-dir={tmp_path / 'profile'}", "--enable-logging=stderr", "--v=0",
                           "--dump-dom", report.as_uri()], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    console = [line for line in proc.stderr.splitlines() if "CONSOLE" in line]
    assert console == [], console
    assert "Leaderboard" in proc.stdout and 'id="month"' in proc.stdout  # the page rendered
