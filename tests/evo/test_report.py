"""The run report: a static page whose plots exist, a leaderboard, and no console errors in Chromium."""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from evo.lineage import ancestors, ancestry, family  # noqa: E402
from evo.report import (
    ReportError,
    build_report,
    funnel,
    funnel_by_reason,  # noqa: E402
    hof_best,
    novelty_vs_archive,
)
from records import Task  # noqa: E402
from tests.e2e import sebgen  # noqa: E402
from tests.marks import require_mark  # noqa: E402

PLOTS = (
    "dimensions.png",
    "novelty.png",
    "strategy_mix.png",
    "difficulty.png",
    "funnel.png",
    "usage.png",
    "lineage.png",
)


def results_doc(model: str, months: dict[str, float]) -> dict:
    def agg(rate):
        return {
            "tasks": 2,
            "resolved": int(rate * 2),
            "resolved_rate": rate,
            "resolved_rate_ci95": [0, 1],
            "pass@1": rate,
            "pass@1_ci95": [0, 1],
        }

    return {
        "model": model,
        "summary": {
            "k": 1,
            "overall": agg(sum(months.values()) / len(months)),
            "by_month": {m: agg(r) for m, r in months.items()},
        },
        "tasks": {},
    }


@pytest.fixture(scope="module")
def report(quickstart_run, tmp_path_factory) -> Path:
    """A tiny evolution run of quickstart's own three generations, two results files, and its
    report. The run is a copy of the session's two-generation run (tests/conftest.py) resumed to
    three: the same hall of fame, archive and scores as a three-generation run from scratch."""
    require_mark("slow", "runs an evolution end to end")
    run_dir = tmp_path_factory.mktemp("run") / "run"
    shutil.copytree(quickstart_run, run_dir)
    proc = sebgen("resume", str(run_dir), "--generations", "3")
    assert proc.returncode == 0, proc.stderr[-3000:]
    (run_dir / "results").mkdir()
    (run_dir / "results" / "oracle.json").write_text(
        json.dumps(results_doc("oracle", {"2025-11": 1.0, "2026-03": 1.0}))
    )
    (run_dir / "results" / "nop.json").write_text(json.dumps(results_doc("nop", {"2025-11": 0.0})))
    proc = sebgen("report", str(run_dir))
    assert proc.returncode == 0, proc.stderr
    return run_dir / "report" / "index.html"


@pytest.mark.slow
def test_page_references_every_plot_and_they_exist(report):
    page = report.read_text()
    for name in PLOTS:
        assert f'src="{name}"' in page, name
        assert (report.parent / name).stat().st_size > 1000, name
        assert (report.parent / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    referenced = set(re.findall(r'src="([^"]+)"', page))
    assert referenced == set(PLOTS)  # nothing else: no CDN script, no remote image
    assert "http://" not in page and "https://" not in page


@pytest.mark.slow
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


def kept_records(run_dir: Path) -> dict[str, dict]:
    """The run's dataset, read straight from the archive's SQLite rows (not through the report's reader)."""
    import sqlite3

    db = sqlite3.connect(run_dir / "archive" / "archive.sqlite")
    try:
        rows = db.execute("SELECT record FROM tasks WHERE passed = 1 ORDER BY id").fetchall()
    finally:
        db.close()
    return {json.loads(r)["instance_id"]: json.loads(r) for (r,) in rows}


@pytest.mark.slow
def test_header_counts_the_archive_and_the_novelty_plot_reads_the_scores(report):
    page = report.read_text()
    run_dir = report.parent.parent
    kept = kept_records(run_dir)
    assert f"{len(kept)} kept</a>" in page
    scores = {int(p.name[4:8]): json.loads(p.read_text()) for p in (run_dir / "generations").glob("gen-*.scores.json")}
    assert scores
    for gen, data in scores.items():  # one row per scores file: archive size and the mean of its novelties
        values = [n for s in data.values() for n in s["novelties"].values()]
        if values:
            size = max(s["archive_tasks"] for s in data.values())
            assert f"<td>{gen}</td><td>{size}</td><td>{sum(values) / len(values):.3f}</td>" in page


@pytest.mark.slow
def test_every_kept_task_has_a_page_linked_from_the_report(report):
    page = report.read_text()
    kept = kept_records(report.parent.parent)
    assert kept, "the fixture run kept no task"
    links = re.findall(r'<a href="(tasks/[^"]+\.html)">([^<]+)</a>', page)
    assert {name for _, name in links} == set(kept)
    for href, instance_id in links:
        task_page = (report.parent / href).read_text()
        task = kept[instance_id]
        assert f"<h1>{instance_id}</h1>" in task_page
        assert html.escape(task["problem_statement"].splitlines()[0]) in task_page
        for test in task["FAIL_TO_PASS"] + task["PASS_TO_PASS"]:
            assert f"<code>{html.escape(test)}</code>" in task_page
        for layer, verdict in task["validation"].items():  # each layer's verdict and its reason
            assert f"<td>{layer}</td><td>passed</td>" in task_page
            assert html.escape(verdict["reason"]) in task_page
        for patch in ("bug_patch", "patch", "test_patch"):
            changed = next(ln for ln in task[patch].splitlines() if ln[:1] in "+-" and ln[:3] not in ("+++", "---"))
            assert html.escape(changed) in task_page
        assert 'href="../index.html#tasks"' in task_page


@pytest.mark.slow
def test_funnel_shows_rejection_reasons_including_leakage(report):
    page = report.read_text()
    assert "<th>reason</th>" in page
    assert re.search(r"<tr><td>(quality|semantic)</td><td>leakage</td><td>\d+</td></tr>", page), (
        "the quickstart's seed prompt leaks the fix: leakage must show as a reason"
    )


@pytest.mark.slow
def test_hall_of_fame_lineage_reaches_the_seeds(report):
    run_dir = report.parent.parent
    nodes = family(run_dir)
    hof = json.loads(sebgen("hof", str(run_dir), "--json").stdout)
    page = report.read_text()
    proc = sebgen("hof", str(run_dir), "--lineage", hof[-1]["id"][:6])  # an id prefix is enough
    assert proc.returncode == 0, proc.stderr
    for entry in hof:
        family_line = ancestors(nodes, entry["id"])
        for sid in family_line:  # every parent of every ancestor is in the walk: it ends only at seeds
            assert set(nodes[sid]["parents"]) <= family_line
        assert any(not nodes[sid]["parents"] for sid in family_line), f"{entry['id']} reaches no seed"
        for sid in family_line:  # every ancestor is named, not only hall-of-fame members
            assert f"<code>{sid}</code>" in page
    for sid in ancestors(nodes, hof[-1]["id"]):
        assert sid in proc.stdout


@pytest.mark.slow
def test_hof_lineage_of_an_unknown_id_suggests_one(report):
    run_dir = report.parent.parent
    some = next(iter(family(run_dir)))
    proc = sebgen("hof", str(run_dir), "--lineage", some[:-1] + ("x" if some[-1] != "x" else "y") + "zz")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "no strategy" in proc.stderr and f"did you mean '{some}'" in proc.stderr


def test_lineage_follows_every_ancestor_through_crossover_and_unchanged_copies(tmp_path):
    gens = tmp_path / "generations"
    gens.mkdir()

    def strategy(sid, gen, op, parents):
        return {"id": sid, "generation": gen, "operator": op, "parents": parents, "strategy_type": "BUG_FIX"}

    offspring = {
        1: [strategy("a", 1, "seed", []), strategy("b", 1, "seed", []), strategy("c", 1, "seed", [])],
        2: [strategy("d", 2, "crossover", ["a", "b"]), strategy("a", 2, "prompt_mutation", ["a"])],
        3: [strategy("e", 3, "param_mutation", ["d"]), strategy("f", 3, "crossover", ["d", "a"])],
    }
    for gen, items in offspring.items():
        (gens / f"gen-{gen:04d}.offspring.json").write_text(json.dumps({"offspring": items}))
    (tmp_path / "evaluations.jsonl").write_text(json.dumps({"strategy_id": "f", "exploration_value": 0.5}) + "\n")
    nodes = family(tmp_path)
    assert nodes["a"]["operator"] == "seed" and nodes["a"]["parents"] == []  # first record wins; no self-loop
    assert ancestors(nodes, "f") == {"f", "d", "a", "b"}
    walk = [(depth, node["id"], seen) for depth, node, seen in ancestry(nodes, "f")]
    assert walk == [(0, "f", False), (1, "d", False), (2, "a", False), (2, "b", False), (1, "a", True)]
    assert nodes["f"]["exploration_value"] == 0.5


def attempted(instance_id: str = "t", **validation: dict) -> Task:
    """A task record as the journal holds it, with only its layer results filled in."""
    return Task.from_dict(
        {
            **dict.fromkeys(("repo", "base_commit", "patch", "test_patch", "problem_statement", "bug_patch"), ""),
            **dict.fromkeys(("strategy_type", "strategy_id"), ""),
            "instance_id": instance_id,
            "validation": validation,
        }
    )


def test_funnel_by_reason_and_hof_best():
    leak = attempted(schema={"passed": True}, quality={"passed": False, "category": "leakage"})
    flaky = attempted(schema={"passed": True}, functional={"passed": False, "category": "flaky"})
    vague = attempted(semantic={"passed": False, "category": None})
    assert funnel_by_reason([leak, flaky, leak, vague]) == [
        ("functional", "flaky", 1),
        ("quality", "leakage", 2),
        ("semantic", "other", 1),
    ]
    by_generation = {"10": [{"exploration_value": 0.3}], "2": [{"exploration_value": 0.4}, {"exploration_value": 0.6}]}
    assert hof_best(by_generation) == [(2, 0.6), (10, 0.3)]  # per generation, not a running maximum


def test_funnel_and_novelty_helpers():
    ok = attempted("a", schema={"passed": True}, compile={"passed": True})
    dropped = attempted("b", schema={"passed": True}, compile={"passed": True})  # then the batch filter dropped it
    bad = attempted("c", schema={"passed": True}, compile={"passed": False})
    counts = funnel([ok, dropped, bad, bad], kept_ids={"a"})
    assert counts["compile"] == 2 and counts["kept"] == 1 and counts["batch filter"] == 1 and counts["schema"] == 0
    # the shape `Evolution._rescore` writes to generations/gen-N.scores.json
    scores = {
        1: {
            "h1": {"novelties": {"t1": 0.4, "t2": 0.6}, "archive_tasks": 0},
            "h2": {"novelties": {}, "archive_tasks": 0},
        },
        2: {"h1": {"novelties": {"t3": 0.2}, "archive_tasks": 3}},
    }
    assert novelty_vs_archive(scores) == [(1, 0, 0.5), (2, 3, 0.2)]


def _chromium() -> str | None:
    return next((shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome") if shutil.which(n)), None)


@pytest.mark.slow
@pytest.mark.parametrize("page", ["index.html", "first task page"])
def test_page_loads_in_headless_chromium_without_console_errors(report, tmp_path, page):
    browser = _chromium()
    if browser is None:
        if os.environ.get("SEBGEN_REQUIRE_CHROMIUM") == "1":
            pytest.fail("SEBGEN_REQUIRE_CHROMIUM=1 but no chromium is installed (apt-get install -y chromium)")
        pytest.skip(
            "chromium is not installed (apt-get install -y chromium); set SEBGEN_REQUIRE_CHROMIUM=1 to require it"
        )
    target = report if page == "index.html" else sorted((report.parent / "tasks").glob("*.html"))[0]
    proc = subprocess.run(
        [
            browser,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            f"--user-data-dir={tmp_path / 'profile'}",
            "--enable-logging=stderr",
            "--v=0",
            "--dump-dom",
            target.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    console = [line for line in proc.stderr.splitlines() if "CONSOLE" in line]
    assert console == [], console
    if page == "index.html":  # the page rendered, lineage view included
        assert "Leaderboard" in proc.stdout and 'id="month"' in proc.stdout
        assert 'src="lineage.png"' in proc.stdout and 'class="lineage"' in proc.stdout
    else:
        assert "FAIL_TO_PASS" in proc.stdout and "Gold patch" in proc.stdout
