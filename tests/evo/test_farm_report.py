"""The farm bench's per-repository table (`bench/farm_dataset.py`): what it counts as kept."""

from types import SimpleNamespace

from evo.dataset import DatasetFolder
from tests.bench_modules import load_bench

bench = load_bench("farm_dataset")


def row(unit: str, outcome: str, kind: str = "commit") -> dict:
    task = {"difficulty_level": "easy"} if outcome == "kept" else None
    return {"unit": f"o/r@{unit}:{kind}", "repo": "o/r", "kind": kind, "outcome": outcome, "version": 1,
            "layer": "" if outcome == "kept" else "functional", "category": outcome, "validations": 1,
            "seconds": 36.0, "task": task}  # fmt: skip


def test_a_unit_kept_and_then_found_a_duplicate_is_no_task(tmp_path, capsys):
    """A PR and its squash commit give the same task: the second is kept, then deduplicated. The
    table had counted it as kept (click: 158 where the dataset released 114)."""
    folder = DatasetFolder(tmp_path / "ds")
    folder.write_versions([{"version": 1}])
    for r in (row("a", "kept"), row("b", "kept", "pr"), row("b", "duplicate", "pr"), row("c", "rejected")):
        folder.append_row(r)
    bench.report(folder, None, SimpleNamespace(workers=1))
    lines = capsys.readouterr().out.splitlines()
    table = next(line for line in lines if line.startswith("| o/r |"))
    cells = [c.strip() for c in table.strip("|").split("|")]
    assert cells[1:4] == ["3", "1", "0.33"] and cells[-2] == "1", table  # tried, kept, kept/attempt; duplicates
    assert "farm_kept_per_attempt: 0.333" in lines


def test_a_folder_with_no_dataset_says_so_instead_of_an_index_error(tmp_path):
    """A farm that wrote nothing (no dev-set bundle found, a CLI error) left the report with an
    IndexError on `versions()[-1]`."""
    import pytest

    with pytest.raises(SystemExit, match="holds no dataset version yet"):
        bench.report(DatasetFolder(tmp_path / "empty"), None, SimpleNamespace(workers=1))
