"""Where evaluations run: in this process, a local process pool, or a Dask cluster.

Jobs are plain data (config, run folder, generation, strategy); results are `Evaluation`
records (they pickle across processes). Each worker process rebuilds
its workbench once and reopens the archive read-only for each generation, so every backend
evaluates against the same frozen archive and gives the same answer.
"""

from __future__ import annotations

import json
import signal
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from pathlib import Path

from evo.config import Config
from fitness import evaluate_strategy
from records import Evaluation
from tasks import Strategy

_WORKER: dict = {}


def evaluate_job(job: dict) -> Evaluation:
    """Evaluate one strategy in a worker process (pool or Dask)."""
    from evo.runtime import Workbench, eval_settings, open_archive

    key = (json.dumps(job["config"], sort_keys=True), job["run_dir"])
    if _WORKER.get("key") != key:
        import torch

        torch.set_num_threads(1)  # one evaluation per core: torch must not take the other cores too
        config = Config.model_validate(job["config"])
        bench = Workbench.build(config, Path(job["run_dir"]), log=lambda *_: None)
        _WORKER.update(key=key, config=config, bench=bench, generation=None)
    bench, config = _WORKER["bench"], _WORKER["config"]
    if _WORKER["generation"] != job["generation"]:
        if bench.archive is not None:
            bench.archive.close()
        bench.use_archive(open_archive(config, Path(job["run_dir"]), read_only=True))
        _WORKER["generation"] = job["generation"]
    return evaluate_strategy(
        Strategy.from_dict(job["strategy"]),
        bench.candidates,
        bench.generator,
        eval_settings(config),
        sample=job["generation"],
    )


def _ignore_sigint() -> None:
    # The controller decides how to stop; workers finish the evaluation in hand.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def local_cluster(workers: int):
    """A Dask LocalCluster whose worker processes ignore SIGINT. A terminal's Ctrl-C reaches the
    whole process group: the workers died with KeyboardInterrupt, their units were lost, and the
    controller waited for them forever. The processes inherit the ignored signal (Python keeps
    it ignored at start-up); the controller's own handler is put back at once."""
    from dask.distributed import LocalCluster

    def start() -> LocalCluster:
        return LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None)

    try:
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    except ValueError:  # not the main thread: no handler to change, the caller owns the signals
        return start()
    try:
        return start()
    finally:
        signal.signal(signal.SIGINT, previous)


class SerialRunner:
    def __init__(self, evaluate: Callable[[dict], Evaluation]):
        self.evaluate = evaluate

    def run(self, jobs: list[dict], should_stop: Callable[[], bool]) -> Iterator[tuple[int, Evaluation]]:
        for index, job in enumerate(jobs):
            if should_stop():
                return
            yield index, self.evaluate(job)

    def close(self, now: bool = False) -> None:
        pass


class PoolRunner:
    """A local process pool (spawn) or a Dask client; both give concurrent.futures-like futures."""

    def __init__(self, backend: str, workers: int, address: str | None = None, log=print):
        self.backend, self.workers, self.log = backend, workers, log
        self.client = self.cluster = self.pool = None
        if backend == "dask":
            from dask.distributed import Client

            if address:
                self.client = Client(address)
                log(f"parallel: Dask scheduler at {address}")
            else:
                self.cluster = local_cluster(workers)
                self.client = Client(self.cluster)
                log(f"parallel: local Dask cluster with {workers} workers")
        else:
            import multiprocessing

            self.pool = ProcessPoolExecutor(
                workers, mp_context=multiprocessing.get_context("spawn"), initializer=_ignore_sigint
            )
            log(f"parallel: process pool with {workers} workers")

    def _submit(self, job: dict):
        if self.client is not None:
            return self.client.submit(evaluate_job, job, pure=False)
        return self.pool.submit(evaluate_job, job)

    def run(self, jobs: list[dict], should_stop: Callable[[], bool]) -> Iterator[tuple[int, Evaluation]]:
        pending: dict = {}
        queue = list(enumerate(jobs))
        while queue or pending:
            while queue and len(pending) < self.workers and not should_stop():
                index, job = queue.pop(0)
                pending[self._submit(job)] = index
            if not pending:
                return
            done = self._wait(list(pending))
            for future in done:
                index = pending.pop(future)
                yield index, future.result()
            if should_stop():
                queue.clear()

    def _wait(self, futures: list) -> Iterable:
        if self.client is not None:
            from dask.distributed import wait as dask_wait

            return dask_wait(futures, return_when="FIRST_COMPLETED").done
        return wait(futures, return_when=FIRST_COMPLETED).done

    def close(self, now: bool = False) -> None:
        """Wait for the workers; with `now` (a second Ctrl-C), end them: each removes its
        sandbox containers on SIGTERM."""
        if self.pool is not None:
            if now:
                for process in list(getattr(self.pool, "_processes", {}).values()):
                    process.terminate()
            self.pool.shutdown(wait=True, cancel_futures=True)
        if self.client is not None:
            self.client.close()
        if self.cluster is not None:
            self.cluster.close()


def make_runner(config: Config, evaluate_local: Callable[[dict], Evaluation], log=print):
    p = config.parallel
    if p.backend == "serial":
        return SerialRunner(evaluate_local)
    return PoolRunner(p.backend, p.workers, p.address, log=log)


__all__ = ["evaluate_job", "make_runner", "SerialRunner", "PoolRunner", "Future"]
