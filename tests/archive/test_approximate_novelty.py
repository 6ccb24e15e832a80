"""Novelty stays exact enough once the archive's approximate (IVF) index takes over.

The archives here hold synthetic unit vectors clustered like task embeddings (noisy copies of
a few hundred directions), enough of them that the IVF index has more cells than it scans:
the first test fails when the index scans 8 of its 64 cells instead of 32. Exact novelty is
computed with numpy (or, in the evolution run, by an exhaustive copy of the archive).
"""

import os

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import json
import logging

import numpy as np
import pytest

from archive import Archive, get_embedder

DIM = 384
K = 5
TOLERANCE = 0.01


def clustered(n: int, seed: int, centres: np.ndarray, noise: float = 0.035) -> np.ndarray:
    """n unit vectors, each a noisy copy of a random centre."""
    rng = np.random.default_rng(seed)
    vectors = centres[rng.integers(0, len(centres), n)] + noise * rng.standard_normal((n, DIM))
    return (vectors / np.linalg.norm(vectors, axis=1, keepdims=True)).astype(np.float32)


def unit(n: int, seed: int) -> np.ndarray:
    vectors = np.random.default_rng(seed).standard_normal((n, DIM))
    return (vectors / np.linalg.norm(vectors, axis=1, keepdims=True)).astype(np.float32)


def exact_novelty(queries: np.ndarray, reference: np.ndarray, k: int = K) -> np.ndarray:
    scores = queries @ reference.T
    top = -np.sort(-scores, axis=1)[:, :k]
    return np.clip(1.0 - top.mean(axis=1), 0.0, 1.0)


def records(start: int, n: int, generation_tag: str = "t") -> list[dict]:
    return [{"instance_id": f"{generation_tag}-{i}", "problem_statement": f"synthetic task {i}"}
            for i in range(start, start + n)]  # fmt: skip


@pytest.fixture(scope="module")
def centres() -> np.ndarray:
    return unit(300, seed=1)


def test_novelty_matches_exact_after_the_ivf_index_takes_over(tmp_path, centres, caplog):
    vectors = clustered(12_000, seed=2, centres=centres)
    queries = np.vstack([clustered(300, seed=3, centres=centres), unit(20, seed=4)])  # new tasks, not archived
    with caplog.at_level(logging.INFO, logger="archive"):
        arc = Archive.open(tmp_path / "a", approximate_above=8_000)
        arc.add_tasks(records(0, 6_000), generation=0, vectors=vectors[:6_000])
        assert not arc.approximate
        assert arc.novelty_vectors(queries) == pytest.approx(exact_novelty(queries, vectors[:6_000]), abs=1e-5)
        arc.add_tasks(records(6_000, 6_000), generation=1, vectors=vectors[6_000:])
    info = arc.index_info()
    assert arc.approximate and info["kind"] == "ivf"
    assert info["cells"] > info["probes"]  # it scans a part of the archive, not all of it
    assert "switched to an approximate IVF index at 12000 vectors" in caplog.text

    got = np.asarray(arc.novelty_vectors(queries))
    errors = np.abs(got - exact_novelty(queries, vectors))
    assert np.mean(errors <= TOLERANCE) >= 0.99, np.sort(errors)[-10:]
    assert arc.measure_recall(queries, k=K) >= 0.95

    # leave-one-out on archived tasks: their stored vectors, every other archived task a neighbour
    sample = np.random.default_rng(5).choice(len(vectors), size=150, replace=False)
    listed = [records(int(i), 1)[0] for i in sample]
    loo = np.asarray(arc.novelty_of_tasks(listed))
    scores = vectors[sample] @ vectors.T
    scores[np.arange(len(sample)), sample] = -np.inf  # a task is not its own neighbour
    expected = np.clip(1.0 - (-np.sort(-scores, axis=1)[:, :K]).mean(axis=1), 0.0, 1.0)
    assert np.mean(np.abs(loo - expected) <= TOLERANCE) >= 0.99

    # the index file holds the same index: reopening changes no value
    arc.close()
    with caplog.at_level(logging.INFO, logger="archive"):
        caplog.clear()
        with Archive.open(tmp_path / "a", approximate_above=8_000, read_only=True) as again:
            assert again.novelty_vectors(queries) == pytest.approx(got.tolist(), abs=1e-6)
    assert "rebuilt" not in caplog.text and "lags" not in caplog.text


def test_a_growing_archive_adds_without_rebuilding_and_retrains_only_when_it_outgrew_its_cells(
    tmp_path, centres, caplog
):
    vectors = clustered(9_000, seed=6, centres=centres)
    queries = clustered(200, seed=7, centres=centres)
    arc = Archive.open(tmp_path / "a", approximate_above=1_000)
    arc.add_tasks(records(0, 1_500), generation=0, vectors=vectors[:1_500])
    cells = arc.index_info()["cells"]
    assert arc.approximate and cells >= 2
    size, retrains = 1_500, []
    while size < len(vectors):
        with caplog.at_level(logging.INFO, logger="archive"):
            caplog.clear()
            arc.add_tasks(records(size, 500), generation=size // 500, vectors=vectors[size : size + 500])
        size += 500
        now = arc.index_info()["cells"]
        if now != cells:
            assert "outgrew" in caplog.text and "built an IVF index" in caplog.text
            retrains.append((size, cells, now))
            cells = now
        else:
            assert "built" not in caplog.text and "trained" not in caplog.text  # added to the cells it has
    assert retrains and all(new > old for _, old, new in retrains)
    assert all(at >= 512 * old for at, old, _ in retrains)  # only once the cells averaged 4x their 128
    assert len(retrains) == 1  # 15 generations added, one rebuild
    errors = np.abs(np.asarray(arc.novelty_vectors(queries)) - exact_novelty(queries, vectors))
    assert np.mean(errors <= TOLERANCE) >= 0.99
    assert arc.index_ids() == arc.row_ids()
    arc.close()


def test_a_reader_of_an_unsaved_index_adds_the_missing_vectors_and_truncation_removes_them(tmp_path, centres, caplog):
    vectors = clustered(10_200, seed=8, centres=centres)
    queries = clustered(100, seed=9, centres=centres)
    folder = tmp_path / "a"
    writer = Archive.open(folder, approximate_above=5_000)
    writer.add_tasks(records(0, 10_000), generation=0, vectors=vectors[:10_000])  # built and saved
    cells = writer.index_info()["cells"]
    saved = (folder / "index.faiss").stat().st_mtime_ns
    writer.add_tasks(records(10_000, 200), generation=1, vectors=vectors[10_000:])  # 2%: not written yet
    assert (folder / "index.faiss").stat().st_mtime_ns == saved

    with caplog.at_level(logging.INFO, logger="archive"):
        with Archive.open(folder, approximate_above=5_000, read_only=True) as reader:
            assert reader.index_ids() == reader.row_ids() and len(reader.row_ids()) == 10_200
            assert reader.index_info()["cells"] == cells  # repaired, not rebuilt
            assert reader.novelty_vectors(queries) == pytest.approx(writer.novelty_vectors(queries), abs=1e-6)
    assert "adding 200 missing vectors, removing 0" in caplog.text and "rebuilt" not in caplog.text

    caplog.clear()
    with caplog.at_level(logging.INFO, logger="archive"):
        assert writer.truncate_after(0) == 200
    assert writer.index_ids() == writer.row_ids() and len(writer.row_ids()) == 10_000
    assert writer.index_info()["cells"] == cells and "built" not in caplog.text
    errors = np.abs(np.asarray(writer.novelty_vectors(queries)) - exact_novelty(queries, vectors[:10_000]))
    assert np.mean(errors <= TOLERANCE) >= 0.99
    writer.close()
    with Archive.open(folder, approximate_above=5_000, read_only=True) as reader:
        assert reader.index_ids() == reader.row_ids()  # close() wrote what was left unsaved


# -- an evolution run across the switch ----------------------------------------------------
TOPICS = ["the page count of a paginated list", "the total of an invoice with discounts",
          "parsing an ISO date with a timezone", "retrying a failed HTTP request", "sorting records by two keys",
          "escaping HTML in a template", "rounding currency amounts", "merging two configuration files"]  # fmt: skip
SEEDED = 20_000  # synthetic archived tasks near the run's topics, so the IVF index has 128 cells


def statement(topic: str, case: str) -> str:
    return (f"Wrong result for {topic}: the function returns a value that is off by one when the input is at "
            f"its boundary (case {case}).")  # fmt: skip


def canned_task(strategy, n: int):
    """A kept task (every layer passed) of `strategy`, on one of the topics."""
    from records import LayerResult, Task

    criteria = {c: {"score": 8.0, "confidence": 0.9, "reasoning": ""}
                for c in ("task_correctness", "test_correctness", "test_completeness", "complexity")}  # fmt: skip
    validation = {
        "schema": {"passed": True, "score": 1.0, "reason": "", "category": None, "details": {}},
        "quality": {"passed": True, "score": 0.8, "reason": "", "category": None,
                    "details": {"criteria": criteria, "mean": 8.0}},
        "semantic": {"passed": True, "score": 0.8, "reason": "", "category": None, "details": {}},
    }  # fmt: skip
    key = strategy.genome_hash()[:8]
    topic = TOPICS[(int(key, 16) + n) % len(TOPICS)]
    return Task(instance_id=f"demo__{key}-{n}", repo="demo/lib", base_commit=f"{n:040d}", patch="", test_patch="",
                problem_statement=statement(topic, f"{key}-{n}"), bug_patch="",
                strategy_type=strategy.strategy_type.value, strategy_id=strategy.id, difficulty=0.1 + 0.2 * (n % 4),
                domain="math", skills=[f"skill-{n % 3}"],
                validation={k: LayerResult.from_dict(v) for k, v in validation.items()})  # fmt: skip


def canned_evaluation(strategy, sample: int):
    from records import Evaluation

    return Evaluation(strategy.id, strategy.genome_hash(), sample, attempts=3, passed=3, failure_categories=[],
                      tasks=[canned_task(strategy, n) for n in range(3)],
                      usage={"calls": 3, "prompt_tokens": 0, "completion_tokens": 0, "cost_usd": 0.0})  # fmt: skip


@pytest.mark.slow  # an evolution run with the real embedding model: about 25 s on its own
def test_evolution_across_the_switch_scores_every_task_within_tolerance_of_exact(tmp_path, monkeypatch):
    """Generation 1 is scored under the exact index, 2 and 3 under the IVF index it switched to
    while archiving generation 2 (after a resume with a lower `archive.approximate_above`).

    Every novelty the run scored is compared with the same call on an exhaustive copy of the
    archive's rows. Task embeddings around a few topics are easy for IVF (its tuning is what
    the first test checks); this one checks the switch inside a run: the resume repairing a
    deferred-saved index, the leave-one-out of archived rows, the generation's own peers.
    """
    from evo import loop as loop_module
    from evo.config import Config
    from tests.loop_fixtures import use_canned_execution

    embedder = get_embedder()
    run_dir = tmp_path / "run"
    # the archive a long run would have: many tasks near the run's own topics
    rng = np.random.default_rng(10)
    topic_vectors = embedder.encode([statement(t, "seed") for t in TOPICS])
    centres = np.vstack([topic_vectors, unit(40, seed=11)])
    owner = rng.integers(0, len(centres), SEEDED)
    noise = rng.uniform(0.005, 0.05, (SEEDED, 1))  # some archived tasks nearly repeat a topic, most do not
    seeded = centres[owner] + noise * rng.standard_normal((SEEDED, DIM))
    seeded /= np.linalg.norm(seeded, axis=1, keepdims=True)
    from records import Task

    old = [
        Task(f"old-{i}", "demo/lib", "", "", "", f"archived task {i}", "", "BUG_FIX", "old").to_dict()
        for i in range(SEEDED)
    ]  # task records: the loop reads the judged scores of the run's archive back
    with Archive.open(run_dir / "archive", embedder=embedder) as arc:
        arc.add_tasks(old, generation=0, vectors=seeded)  # fmt: skip

    scored, references = [], {}
    real = Archive.novelty_of_tasks

    def spy(self, tasks, peers=False, k=None):
        got = real(self, tasks, peers=peers, k=k)
        if not self.read_only:  # the run's archive: compare with an exhaustive copy of its rows
            size = self.count()
            if size not in references:
                references[size] = Archive.open(self.folder, read_only=True, approximate_above=10**9,
                                                embedder=self.embedder)  # fmt: skip
            exact = real(references[size], tasks, peers=peers, k=k)
            scored.append((self.approximate, size, got, exact))
        return got

    monkeypatch.setattr(Archive, "novelty_of_tasks", spy)
    use_canned_execution(monkeypatch, lambda strategy, candidates, generator, settings, progress=None, sample=1:
                         canned_evaluation(strategy, sample))  # fmt: skip
    monkeypatch.setattr(loop_module, "vary", lambda toolbox, config, rng, population, generation, **_: [
        ind.strategy.child(operator="prompt_mutation", parents=(ind.strategy.id,), generation=generation,
                           prompt=f"{ind.strategy.prompt} Variant {generation}.") for ind in population])  # fmt: skip

    def config(approximate_above: int):
        return Config.model_validate(
            {
                "seed": 3,
                "archive": {"approximate_above": approximate_above},
                "evolution": {"population": 3, "generations": 3, "elitism": 1, "hof_size": 5},
            }
        )

    try:
        # generation 1 under an exact index; then resumed with the switch just above the archive's size
        loop_module.Evolution(config(SEEDED + 1_000), run_dir, log=lambda *_: None).run(1)
        after_first = max(size for _, size, _, _ in scored)
        outcome = loop_module.Evolution(config(after_first), run_dir, log=lambda *_: None).run(3)
    finally:
        for reference in references.values():
            reference.close()
    assert outcome.finished
    assert {approximate for approximate, *_ in scored} == {False, True}  # scored on both sides of the switch
    with Archive.open(run_dir / "archive", read_only=True, approximate_above=after_first) as arc:
        info = arc.index_info()
    assert info["kind"] == "ivf" and info["cells"] > info["probes"]
    values = [(g, e) for _, _, got, exact in scored for g, e in zip(got, exact)]
    assert len(values) >= 9
    worst = max(abs(g - e) for g, e in values)
    assert worst <= TOLERANCE, worst
    # what the run recorded is what was checked
    recorded = {round(v, 6) for path in (run_dir / "generations").glob("gen-*.scores.json")
                for entry in json.loads(path.read_text()).values() for v in entry["novelties"].values()}  # fmt: skip
    assert recorded and recorded <= {round(g, 6) for g, _ in values}
