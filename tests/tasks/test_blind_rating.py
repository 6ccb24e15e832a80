"""The blind rating's bench: rater files hide the instance ids, and the tally applies the rubric's bar."""

import json

import pytest

from tests.bench_modules import load_bench

rating = load_bench("blind_rating")


def _tasks(path, count):
    rows = [
        {
            "instance_id": f"owner__lib-{n}",
            "repo": "owner/lib",
            "problem_statement": f"statement {n}",
            "patch": "gold",
            "test_patch": "tests",
            "FAIL_TO_PASS": [f"t{n}"],
            "base_commit": "abc",
        }
        for n in range(count)
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


def test_rater_files_split_the_tasks_and_hide_their_identity(tmp_path):
    _tasks(tmp_path / "tasks.jsonl", 7)
    files = rating.make(tmp_path / "tasks.jsonl", tmp_path / "out", "x", raters=3, seed=1)
    rows = [json.loads(line) for f in files for line in f.read_text().splitlines()]
    assert [len(f.read_text().splitlines()) for f in files] == [3, 2, 2]
    assert all(set(r) == {"id", *rating.RATER_FIELDS} for r in rows)
    key = json.loads((tmp_path / "out" / "x-key.json").read_text())
    assert sorted(key.values()) == sorted(f"owner__lib-{n}" for n in range(7))
    assert all(key[r["id"]].endswith(r["problem_statement"].split()[-1]) for r in rows)


def test_tally_discards_a_two_on_either_axis_and_counts_leaks(tmp_path):
    _tasks(tmp_path / "tasks.jsonl", 3)
    rating.make(tmp_path / "tasks.jsonl", tmp_path, "x", raters=1, seed=0)
    answers = [
        {"id": "t00", "underspecified": 1, "tests_valid": 1, "leak": False},
        {"id": "t01", "underspecified": 0, "tests_valid": 2, "leak": False},
        {"id": "t02", "underspecified": 0, "tests_valid": 0, "leak": True},
    ]
    (tmp_path / "answers.jsonl").write_text("".join(json.dumps(a) + "\n" for a in answers))
    result = rating.tally([tmp_path / "answers.jsonl"], tmp_path / "x-key.json")
    key = json.loads((tmp_path / "x-key.json").read_text())
    assert [i for i, _ in result["discarded"]] == [key["t01"]]
    assert [i for i, _ in result["leaked"]] == [key["t02"]]
    assert result["rated"] == 3 and result["unanswered"] == []


def test_a_malformed_answer_line_names_its_file_and_line(tmp_path):
    _tasks(tmp_path / "tasks.jsonl", 1)
    rating.make(tmp_path / "tasks.jsonl", tmp_path, "x", raters=1, seed=0)
    (tmp_path / "answers.jsonl").write_text('{"id": "t00", "underspecified": 0}\nnot json\n')
    with pytest.raises(SystemExit, match=r"answers.jsonl:2 is not an answer line"):
        rating.tally([tmp_path / "answers.jsonl"], tmp_path / "x-key.json")
