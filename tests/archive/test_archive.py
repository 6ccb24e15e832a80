"""Archive operations against the real offline embedding model (all-MiniLM-L6-v2)."""

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import logging
import sqlite3

import numpy as np
import pytest

from archive import Archive, ArchiveError, Embedder, get_embedder, task_text
from tests.archive.test_archive_support import PARAPHRASES, STATEMENTS, UNRELATED, many_statements, task


@pytest.fixture(scope="module")
def embedder() -> Embedder:
    return get_embedder()


@pytest.fixture
def arc(tmp_path, embedder):
    archive = Archive.open(tmp_path / "archive", embedder=embedder)
    yield archive
    archive.close()


def add_all(archive: Archive, generation: int = 0, **fields) -> list[int]:
    return archive.add_tasks([task(key, **fields) for key in STATEMENTS], generation)


# -- embedder ------------------------------------------------------------------------------
def test_embedder_gives_normalised_float32_rows_and_caches(embedder):
    vectors = embedder.encode(["a short sentence", "another one", "a short sentence"])
    assert vectors.dtype == np.float32 and vectors.shape == (3, embedder.dim) and embedder.dim == 384
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert np.array_equal(vectors[0], vectors[2])
    assert np.array_equal(embedder.encode(["another one"])[0], vectors[1])


def test_get_embedder_loads_once_per_model(embedder):
    assert get_embedder() is embedder


def test_unknown_model_name_is_a_clear_error():
    with pytest.raises(ArchiveError, match="neither"):
        Embedder("no-such-model-anywhere")


# -- adding --------------------------------------------------------------------------------
def test_add_tasks_stores_the_whole_record_and_is_idempotent(arc):
    record = task("dates", validation={"schema": {"passed": True, "score": 1.0}}, FAIL_TO_PASS=["t::a"])
    first = arc.add_tasks([record, task("cache")], generation=0)
    again = arc.add_tasks([task("cache"), record, record], generation=3)
    assert again == [first[1], first[0], first[0]]
    assert arc.count() == 2
    stored = arc.query(domain="general")[0]
    assert stored == {**record, "passed": True}


def test_invalid_tasks_are_rejected_with_archive_error(arc):
    with pytest.raises(ArchiveError, match="instance_id"):
        arc.add_tasks([{"problem_statement": "x"}], 0)
    with pytest.raises(ArchiveError, match="problem_statement"):
        arc.add_tasks([{"instance_id": "a", "problem_statement": "  "}], 0)
    assert arc.count() == 0


class CountingEmbedder:
    """The real embedder, counting how many texts reach it."""

    def __init__(self, inner: Embedder):
        self.inner, self.model_name, self.dim, self.texts_encoded = inner, inner.model_name, inner.dim, 0

    def encode(self, texts):
        self.texts_encoded += len(texts)
        return self.inner.encode(texts)


def test_same_text_reuses_the_stored_embedding_and_ties_order_by_id(tmp_path, embedder, arc):
    arc.add_tasks([task("csv")], 0)
    arc.close()
    counting = CountingEmbedder(embedder)
    with Archive.open(arc.folder, embedder=counting) as reopened:
        assert reopened.add_tasks([task("csv", instance_id="other"), task("cli")], 0) == [2, 3]
        assert counting.texts_encoded == 1  # only the cli text was new
        hits = reopened.nearest(STATEMENTS["csv"], k=2)
    assert [h[0]["instance_id"] for h in hits] == ["demo__csv-1", "other"]  # equal scores: by id
    assert hits[0][1] == hits[1][1]


# -- novelty -------------------------------------------------------------------------------
def test_novelty_is_one_for_an_empty_archive(arc):
    assert arc.novelty(["anything at all", "more"]) == [1.0, 1.0]


def test_paraphrase_is_less_novel_than_unrelated_text(arc):
    add_all(arc)
    for k in (1, 3, 5):
        paraphrase, unrelated = arc.novelty([PARAPHRASES["dates"], UNRELATED], k=k)
        assert paraphrase < unrelated, k
    paraphrase, unrelated = arc.novelty([PARAPHRASES["dates"], UNRELATED], k=1)
    assert paraphrase < 0.3 and unrelated > 0.8
    assert arc.novelty([STATEMENTS["dates"]], k=1)[0] == pytest.approx(0.0, abs=1e-5)


def test_novelty_is_one_minus_mean_cosine_of_min_k_size_neighbours(arc, embedder):
    arc.add_tasks([task("dates"), task("cache")], 0)
    query = PARAPHRASES["cache"]
    q, a, b = embedder.encode([query, STATEMENTS["dates"], STATEMENTS["cache"]])
    expected = 1 - (float(q @ a) + float(q @ b)) / 2  # k=5 but only two tasks
    assert arc.novelty([query])[0] == pytest.approx(expected, abs=1e-5)
    assert arc.novelty([query], k=1)[0] == pytest.approx(1 - float(q @ b), abs=1e-5)


def test_novelty_counts_only_successful_tasks(arc):
    arc.add_tasks([task("dates", passed=False)], 0)
    assert arc.novelty([STATEMENTS["dates"]]) == [1.0]
    arc.add_tasks([task("retry")], 0)
    assert arc.novelty([STATEMENTS["dates"]])[0] > 0.8


def test_task_novelty_embeds_patch_summary_and_ignores_the_task_itself(tmp_path, embedder, arc):
    patch = (
        "diff --git a/pkg/dates.py b/pkg/dates.py\n--- a/pkg/dates.py\n+++ b/pkg/dates.py\n"
        "@@ -1 +1 @@ def parse():\n-a\n+b\n"
    )
    dated = task("dates", patch=patch)
    arc.add_tasks([dated, task("cache"), task("retry")], 0)
    with Archive.open(tmp_path / "others", embedder=embedder) as others:
        others.add_tasks([task("cache"), task("retry")], 0)
        expected = others.novelty([task_text(dated)])[0]
        assert expected != others.novelty([STATEMENTS["dates"]])[0]  # the patch summary is embedded
    assert arc.task_novelty(dated) == pytest.approx(expected, abs=1e-5)


# -- retrieval and filters -----------------------------------------------------------------
def test_nearest_ranks_the_paraphrased_task_first_and_filters(arc):
    arc.add_tasks(
        [
            task("dates", domain="time", difficulty_level="easy"),
            task("retry", domain="net", strategy_type="feature"),
            task("cache", domain="net", difficulty_level="hard"),
            task("csv", domain="io", passed=False),
        ],
        0,
    )
    hits = arc.nearest(PARAPHRASES["dates"], k=4)
    assert hits[0][0]["instance_id"] == "demo__dates-1"
    assert [s for _, s in hits] == sorted((s for _, s in hits), reverse=True)
    assert {h[0]["domain"] for h in arc.nearest(PARAPHRASES["dates"], k=4, domain="net")} == {"net"}
    assert [h[0]["instance_id"] for h in arc.nearest(PARAPHRASES["dates"], k=4, difficulty_level="hard")] == [
        "demo__cache-1"
    ]
    assert [h[0]["instance_id"] for h in arc.nearest(PARAPHRASES["dates"], k=4, strategy_type="feature")] == [
        "demo__retry-1"
    ]
    assert [h[0]["instance_id"] for h in arc.nearest(UNRELATED, k=4, passed=False)] == ["demo__csv-1"]
    with pytest.raises(ArchiveError, match="Unknown filter"):
        arc.nearest("x", colour="red")


def test_similar_successes_skips_failed_tasks(arc):
    add_all(arc)
    arc.add_tasks([task("dates", instance_id="failed-dates", passed=False)], 0)
    top = arc.similar_successes(PARAPHRASES["dates"], k=3)
    assert len(top) == 3 and all(t["passed"] for t in top)
    assert "failed-dates" not in {t["instance_id"] for t in top}
    assert top[0]["instance_id"] == "demo__dates-1"
    assert arc.nearest(PARAPHRASES["dates"], k=1)[0][0]["instance_id"] in {"demo__dates-1", "failed-dates"}


def test_similar_successes_filters_by_strategy_type(arc):
    add_all(arc)
    arc.add_tasks([task("csv", instance_id="refactor-1", strategy_type="refactor")], 0)
    top = arc.similar_successes(PARAPHRASES["dates"], k=3, strategy_type="refactor")
    assert [t["instance_id"] for t in top] == ["refactor-1"]


def test_is_duplicate_uses_the_configured_threshold(tmp_path, embedder, arc):
    add_all(arc)
    assert arc.is_duplicate(STATEMENTS["retry"])[0]
    duplicate, similarity = arc.is_duplicate(PARAPHRASES["dates"])
    assert not duplicate and 0.6 < similarity < 0.95
    arc.close()
    with Archive.open(tmp_path / "archive", embedder=embedder, duplicate_threshold=0.6) as loose:
        assert loose.is_duplicate(PARAPHRASES["dates"])[0]
        assert not loose.is_duplicate(UNRELATED)[0]


def test_query_uses_the_strategy_difficulty_and_domain_indexes(arc):
    arc.add_tasks(
        [
            task("dates", domain="time", difficulty_level="easy"),
            task("retry", domain="net", strategy_type="feature", difficulty_level="hard"),
            task("cache", domain="net", difficulty_level="hard", passed=False),
        ],
        0,
    )
    ids = lambda rows: [r["instance_id"] for r in rows]
    assert ids(arc.query(domain="net")) == ["demo__retry-1", "demo__cache-1"]
    assert ids(arc.query(difficulty_level="hard", passed=True)) == ["demo__retry-1"]
    assert ids(arc.query(strategy_type="bug_fix")) == ["demo__dates-1", "demo__cache-1"]
    assert ids(arc.query(limit=1)) == ["demo__dates-1"]
    plan = (
        sqlite3.connect(arc.folder / "archive.sqlite")
        .execute("EXPLAIN QUERY PLAN SELECT id FROM tasks WHERE domain = 'net'")
        .fetchall()
    )
    assert "tasks_domain" in str(plan)


# -- failures, strategies, generations, truncation -----------------------------------------
def test_recent_failures_newest_first_with_categories(arc):
    arc.add_failures([{"strategy_id": "s1", "strategy_type": "bug_fix", "category": "compile", "detail": "a"}], 0)
    arc.add_failures(
        [
            {"strategy_id": "s2", "strategy_type": "feature", "category": "leakage", "detail": "b"},
            {"strategy_id": "s1", "strategy_type": "bug_fix", "category": "functional", "detail": "c"},
        ],
        1,
    )
    assert [f["detail"] for f in arc.recent_failures()] == ["c", "b", "a"]
    assert [(f["category"], f["archive_generation"]) for f in arc.recent_failures(strategy_id="s1")] == [
        ("functional", 1),
        ("compile", 0),
    ]
    assert [f["detail"] for f in arc.recent_failures(strategy_type="feature")] == ["b"]
    assert len(arc.recent_failures(n=1)) == 1
    with pytest.raises(ArchiveError, match="category"):
        arc.add_failures([{"strategy_id": "s1"}], 2)


def test_truncate_after_removes_rows_and_vectors(arc, caplog):
    arc.add_tasks([task("dates"), task("retry")], 0)
    arc.add_tasks([task("cache")], 1)
    arc.add_failures([{"strategy_id": "s", "category": "c"}], 1)
    arc.add_strategy({"id": "s", "strategy_type": "bug_fix", "prompt": "v0"}, 0)
    arc.add_strategy({"id": "s", "strategy_type": "bug_fix", "prompt": "v1"}, 1)
    arc.add_strategy({"id": "t", "prompt": "new"}, 1)
    arc.add_generation(0, {"best": 0.5})
    arc.add_generation(1, {"best": 0.6})
    assert arc.strategies()[0]["prompt"] == "v1" and len(arc.strategies()) == 2
    assert arc.truncate_after(0) == 1 + 1 + 2 + 1
    assert arc.count() == 2 and arc.index_ids() == arc.row_ids()
    assert {h[0]["instance_id"] for h in arc.nearest(PARAPHRASES["cache"], k=5)} == {"demo__dates-1", "demo__retry-1"}
    assert [s["prompt"] for s in arc.strategies()] == ["v0"]
    assert arc.generations() == [(0, {"best": 0.5})]
    assert arc.recent_failures() == []
    assert [t["instance_id"] for t in arc.tasks(max_generation=0)] == ["demo__dates-1", "demo__retry-1"]
    arc.close()
    with caplog.at_level(logging.WARNING, logger="archive"):
        reopened = Archive.open(arc.folder, embedder=arc.embedder)
    assert "diverged" not in caplog.text and reopened.count() == 2
    assert reopened.add_tasks([task("cache")], 1) == [4]  # ids are never reused
    reopened.close()


def test_tasks_by_max_generation(arc):
    arc.add_tasks([task("dates")], 0)
    arc.add_tasks([task("cache")], 2)
    assert [t["instance_id"] for t in arc.tasks(max_generation=1)] == ["demo__dates-1"]
    assert len(arc.tasks()) == 2


# -- persistence, read-only, locking -------------------------------------------------------
def test_reopen_keeps_rows_and_vectors_without_rebuilding(arc, embedder, caplog):
    add_all(arc)
    before = arc.nearest(PARAPHRASES["cache"], k=3)
    arc.close()
    with caplog.at_level(logging.WARNING, logger="archive"):
        with Archive.open(arc.folder, embedder=embedder) as reopened:
            assert reopened.nearest(PARAPHRASES["cache"], k=3) == before
    assert caplog.text == ""


def test_read_only_reads_but_refuses_writes(arc, embedder, tmp_path):
    add_all(arc)
    with Archive.open(arc.folder, embedder=embedder, read_only=True) as reader:  # writer still open
        assert reader.count() == len(STATEMENTS)
        assert reader.similar_successes(PARAPHRASES["dates"], k=1)[0]["instance_id"] == "demo__dates-1"
        with pytest.raises(ArchiveError, match="read-only"):
            reader.add_tasks([task("dates", instance_id="new")], 1)
        with pytest.raises(ArchiveError, match="read-only"):
            reader.truncate_after(0)
    with pytest.raises(ArchiveError, match="No archive"):
        Archive.open(tmp_path / "missing", read_only=True)
    assert not (tmp_path / "missing").exists()


def test_second_writer_is_refused_until_the_first_closes(arc, embedder):
    with pytest.raises(ArchiveError, match="already open for writing"):
        Archive.open(arc.folder, embedder=embedder)
    arc.close()
    Archive.open(arc.folder, embedder=embedder).close()


def test_reopening_with_another_model_is_refused(arc, tmp_path):
    arc.add_tasks([task("dates")], 0)
    arc.close()
    from archive.embedder import bundled_model_path

    Archive.open(arc.folder, model=str(bundled_model_path())).close()  # same model by path is fine
    other_model = tmp_path / "other-model"
    other_model.mkdir()
    with pytest.raises(ArchiveError, match="all-MiniLM-L6-v2"):
        Archive.open(arc.folder, model=str(other_model))


# -- approximate index ---------------------------------------------------------------------
def test_large_archive_switches_to_the_approximate_index_with_measured_recall(tmp_path, embedder, caplog):
    texts = many_statements(60)
    tasks = [{"instance_id": f"gen-{i}", "problem_statement": t} for i, t in enumerate(texts)]
    with caplog.at_level(logging.INFO, logger="archive"):
        approx = Archive.open(tmp_path / "approx", embedder=embedder, approximate_above=40)
        approx.add_tasks(tasks[:30], 0)
        assert not approx.approximate
        approx.add_tasks(tasks[30:], 1)
    assert approx.approximate and "switched to an approximate IVF index at 60 vectors" in caplog.text
    assert approx.measure_recall(k=10) >= 0.9
    queries = embedder.encode([PARAPHRASES["cache"], UNRELATED, "The CSV reader crashes with KeyError on empty input."])
    assert approx.measure_recall(queries, k=5) >= 0.9
    with Archive.open(tmp_path / "exact", embedder=embedder) as exact:
        exact.add_tasks(tasks, 0)
        assert np.allclose(approx.novelty_vectors(queries), exact.novelty_vectors(queries), atol=0.02)
    assert (
        approx.nearest("The CSV reader raises KeyError on empty input", k=1)[0][0]["problem_statement"]
        == "The CSV reader raises KeyError on empty input."
    )
    assert approx.truncate_after(0) == 30 and not approx.approximate
    approx.close()
