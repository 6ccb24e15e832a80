"""taskq: a thread-based job queue (concurrency + error handling)."""
from __future__ import annotations

from textwrap import indent

from corpus.repos import Append, RepoSpec, Replace, Step, Write, code, project_files

README = code('''
    # taskq

    A small job queue for scripts that need a few background threads: prioritised `Job`s,
    a thread-safe `JobQueue`, a `WorkerPool` and a `retry` helper with exponential backoff.

    Standard library only. Run the tests with `python -m pytest`.
    ''')

INIT = code('''
    """taskq: a small thread-based job queue."""
    from taskq.errors import QueueClosed, QueueEmpty, RetryError, TaskqError
    from taskq.job import Job
    from taskq.pool import WorkerPool
    from taskq.queue import JobQueue
    from taskq.retry import retry

    __all__ = ["Job", "JobQueue", "QueueClosed", "QueueEmpty", "RetryError", "TaskqError",
               "WorkerPool", "retry"]
    ''')

ERRORS = code('''
    """Exceptions raised by taskq."""


    class TaskqError(Exception):
        """Base class of every taskq error."""


    class QueueClosed(TaskqError):
        """Raised when putting to, or waiting on, a queue that has been closed."""


    class QueueEmpty(TaskqError):
        """Raised when get() times out with no job available."""


    class RetryError(TaskqError):
        """Raised when a retried call failed on every attempt."""
    ''')

JOB = code('''
    """A unit of work with a priority and a result other threads can wait for."""
    from __future__ import annotations

    import itertools
    import threading
    from typing import Any, Callable, Optional

    _ids = itertools.count(1)

    PENDING, RUNNING, DONE, FAILED = "pending", "running", "done", "failed"


    class Job:
        """Wraps a callable; lower `priority` numbers run first (0 is the most urgent)."""

        def __init__(self, fn: Callable[..., Any], *args: Any, priority: int = 5, **kwargs: Any) -> None:
            self.id = next(_ids)
            self.fn = fn
            self.args = args
            self.kwargs = kwargs
            self.priority = priority
            self.status = PENDING
            self._result: Any = None
            self._error: Optional[BaseException] = None
            self._done = threading.Event()

        def run(self) -> None:
            """Run the callable once, keeping its result or exception for result()."""
            self.status = RUNNING
            try:
                self._result = self.fn(*self.args, **self.kwargs)
                self.status = DONE
            except Exception:
                self.status = FAILED
            finally:
                self._done.set()

        def done(self) -> bool:
            return self._done.is_set()

        def result(self, timeout: Optional[float] = None) -> Any:
            """Wait for the job and return its value, or raise the exception it raised."""
            self._done.wait(timeout)
            if self._error is not None:
                raise self._error
            return self._result

        def __repr__(self) -> str:
            return f"Job(id={self.id}, priority={self.priority}, status={self.status!r})"
    ''')

QUEUE = code('''
    """A thread-safe priority queue of jobs."""
    from __future__ import annotations

    import heapq
    import itertools
    import threading
    from typing import Iterable, Optional

    from taskq.errors import QueueClosed, QueueEmpty
    from taskq.job import Job


    class JobQueue:
        """Jobs come out lowest priority number first, first in first out within a priority."""

        def __init__(self, history_limit: int = 100) -> None:
            self.history_limit = history_limit
            self._lock = threading.Lock()
            self._not_empty = threading.Condition(self._lock)
            self._heap: list[tuple[int, int, Job]] = []
            self._order = itertools.count()
            self._closed = False
            self._finished: list[Job] = []
            self.waiting = 0

        def __len__(self) -> int:
            with self._lock:
                return len(self._heap)

        @property
        def closed(self) -> bool:
            return self._closed

        def put(self, job: Job) -> None:
            """Add a job; raises QueueClosed after close()."""
            with self._lock:
                if self._closed:
                    raise QueueClosed("cannot put a job on a closed queue")
                heapq.heappush(self._heap, (job.priority, next(self._order), job))
                self._not_empty.notify()

        def put_many(self, jobs: Iterable[Job]) -> None:
            """Add several jobs at once, so consumers see all of them or none."""
            with self._lock:
                for job in jobs:
                    self.put(job)

        def get(self, timeout: Optional[float] = None) -> Job:
            """Take the most urgent job, waiting up to `timeout` seconds for one."""
            with self._not_empty:
                self.waiting += 1
                try:
                    while not self._heap:
                        if self._closed:
                            raise QueueClosed("queue closed while waiting for a job")
                        if not self._not_empty.wait(timeout):
                            raise QueueEmpty(f"no job arrived within {timeout} s")
                    return heapq.heappop(self._heap)[2]
                finally:
                    self.waiting -= 1

        def close(self) -> None:
            """Refuse new jobs and wake the consumers waiting on an empty queue."""
            with self._lock:
                self._closed = True
                self._not_empty.notify()

        def record_finished(self, job: Job) -> None:
            """Remember a finished job for history()."""
            with self._lock:
                self._finished.append(job)

        def history(self) -> list[Job]:
            """Finished jobs, oldest first (at most `history_limit` of them)."""
            with self._lock:
                return list(self._finished)
    ''')

RETRY = code('''
    """Retrying calls that fail with transient errors."""
    from __future__ import annotations

    import time
    from typing import Any, Callable

    from taskq.errors import RetryError


    def retry(
        fn: Callable[[], Any],
        *,
        attempts: int = 3,
        retry_on: tuple[type[BaseException], ...] = (Exception,),
        backoff: float = 0.0,
        sleep: Callable[[float], None] = time.sleep,
    ) -> Any:
        """Call `fn` until it succeeds, retrying only when it raises one of `retry_on`.

        Waits backoff, 2 * backoff, 4 * backoff ... seconds between attempts and raises
        RetryError once `attempts` calls have failed.
        """
        last_error = None
        for attempt in range(attempts):
            try:
                return fn()
            except Exception as exc:
                last_error = exc
                if attempt + 1 < attempts:
                    sleep(backoff * 2 ** attempt)
        raise RetryError(f"gave up after {attempts} attempts: {last_error!r}")
    ''')

POOL = code('''
    """A fixed set of worker threads running jobs from a JobQueue."""
    from __future__ import annotations

    import threading
    from typing import Any, Callable, Iterable

    from taskq.errors import QueueClosed, QueueEmpty
    from taskq.job import Job
    from taskq.queue import JobQueue


    class WorkerPool:
        """Runs submitted callables on `workers` daemon threads."""

        def __init__(self, workers: int = 2, history_limit: int = 100) -> None:
            self.queue = JobQueue(history_limit=history_limit)
            self._threads = [
                threading.Thread(target=self._work, name=f"taskq-worker-{i}", daemon=True)
                for i in range(workers)
            ]
            for thread in self._threads:
                thread.start()

        def __enter__(self) -> "WorkerPool":
            return self

        def __exit__(self, *exc_info: object) -> None:
            self.shutdown()

        def submit(self, fn: Callable[..., Any], *args: Any, priority: int = 5, **kwargs: Any) -> Job:
            """Queue fn(*args, **kwargs) and return its Job."""
            job = Job(fn, *args, priority=priority, **kwargs)
            self.queue.put(job)
            return job

        def map(self, fn: Callable[[Any], Any], items: Iterable[Any]) -> list[Any]:
            """Run fn on every item in parallel and return the results in input order."""
            results: list[Any] = []
            lock = threading.Lock()

            def run_one(item: Any) -> None:
                value = fn(item)
                with lock:
                    results.append(value)

            jobs = [self.submit(run_one, item) for item in items]
            for job in jobs:
                job.result()
            return results

        def shutdown(self, wait: bool = True) -> None:
            """Stop accepting jobs; with wait=True, run the queued ones first."""
            self.queue.close()
            if wait:
                for thread in self._threads:
                    thread.join()

        def _work(self) -> None:
            # Poll with a short timeout so every worker notices a shutdown promptly.
            while True:
                try:
                    job = self.queue.get(timeout=0.05)
                except QueueEmpty:
                    if self.queue.closed:
                        return
                    continue
                except QueueClosed:
                    return
                job.run()
                self.queue.record_finished(job)
    ''')

WAIT_UNTIL = code('''
    def wait_until(condition, timeout=5.0):
        """Poll `condition` until it holds; False if it still does not after `timeout` seconds."""
        deadline = time.monotonic() + timeout
        while not condition():
            if time.monotonic() > deadline:
                return False
            time.sleep(0.001)
        return True
    ''')

TEST_JOB = code('''
    import pytest

    from taskq.job import Job


    def add(a, b):
        return a + b


    def test_run_keeps_the_result():
        job = Job(add, 2, 3)
        job.run()
        assert job.done() and job.status == "done"
        assert job.result(timeout=1) == 5


    def test_kwargs_are_passed_through():
        job = Job(add, 2, b=40)
        job.run()
        assert job.result(timeout=1) == 42


    def test_ids_increase():
        first, second = Job(add, 1, 1), Job(add, 1, 1)
        assert second.id > first.id


    def test_failed_job_is_marked_failed():
        job = Job(add, 1, "x")
        job.run()
        assert job.done() and job.status == "failed"


    def test_repr_names_id_and_status():
        job = Job(add, 1, 1, priority=2)
        assert repr(job) == f"Job(id={job.id}, priority=2, status='pending')"
    ''')

TEST_QUEUE = code('''
    import threading
    import time

    import pytest

    from taskq.errors import QueueClosed, QueueEmpty
    from taskq.job import Job
    from taskq.queue import JobQueue


    def noop():
        return None


    ''') + WAIT_UNTIL + code('''


    def test_lower_priority_number_comes_out_first():
        q = JobQueue()
        low, high = Job(noop, priority=7), Job(noop, priority=1)
        q.put(low)
        q.put(high)
        assert q.get(timeout=1) is high
        assert q.get(timeout=1) is low


    def test_get_times_out_on_an_empty_queue():
        with pytest.raises(QueueEmpty):
            JobQueue().get(timeout=0.01)


    def test_put_after_close_is_refused():
        q = JobQueue()
        q.close()
        with pytest.raises(QueueClosed):
            q.put(Job(noop))


    def test_close_wakes_a_waiting_consumer():
        q = JobQueue()
        seen = []

        def consume():
            try:
                q.get(timeout=5)
            except QueueClosed:
                seen.append("closed")

        thread = threading.Thread(target=consume)
        thread.start()
        assert wait_until(lambda: q.waiting == 1)
        q.close()
        thread.join(5)
        assert seen == ["closed"]


    def test_history_records_finished_jobs():
        q = JobQueue()
        job = Job(noop)
        q.record_finished(job)
        assert q.history() == [job]
    ''')

TEST_RETRY = code('''
    import pytest

    from taskq.errors import RetryError
    from taskq.retry import retry


    def test_returns_the_first_success():
        calls = []

        def flaky():
            calls.append(1)
            if len(calls) < 3:
                raise ConnectionError("down")
            return "ok"

        assert retry(flaky, attempts=3) == "ok"
        assert len(calls) == 3


    def test_gives_up_after_the_last_attempt():
        def broken():
            raise ConnectionError("down")

        with pytest.raises(RetryError, match="gave up after 2 attempts"):
            retry(broken, attempts=2)


    def test_backoff_doubles_between_attempts():
        waits = []

        def broken():
            raise ConnectionError("down")

        with pytest.raises(RetryError):
            retry(broken, attempts=4, backoff=0.5, sleep=waits.append)
        assert waits == [0.5, 1.0, 2.0]
    ''')

TEST_POOL = code('''
    import time

    from taskq.pool import WorkerPool


    def square(n):
        return n * n


    ''') + WAIT_UNTIL + code('''


    def test_submit_runs_the_job():
        with WorkerPool(workers=2) as pool:
            job = pool.submit(square, 7)
            assert job.result(timeout=5) == 49


    def test_map_collects_every_result():
        with WorkerPool(workers=2) as pool:
            assert sorted(pool.map(square, range(6))) == [0, 1, 4, 9, 16, 25]


    def test_shutdown_runs_the_queued_jobs_first():
        pool = WorkerPool(workers=1)
        jobs = [pool.submit(square, n) for n in range(5)]
        pool.shutdown(wait=True)
        assert [job.result(timeout=1) for job in jobs] == [0, 1, 4, 9, 16]
        assert len(pool.queue.history()) == 5
    ''')

FILES = {
    **project_files("taskq", "A small thread-based job queue.", README),
    "taskq/__init__.py": INIT,
    "taskq/errors.py": ERRORS,
    "taskq/job.py": JOB,
    "taskq/queue.py": QUEUE,
    "taskq/retry.py": RETRY,
    "taskq/pool.py": POOL,
    "tests/test_job.py": TEST_JOB,
    "tests/test_queue.py": TEST_QUEUE,
    "tests/test_retry.py": TEST_RETRY,
    "tests/test_pool.py": TEST_POOL,
}

RETRY_WITH_POLICY = code('''
    """Retrying calls that fail with transient errors."""
    from __future__ import annotations

    import logging
    import time
    from dataclasses import dataclass
    from typing import Any, Callable, Optional

    from taskq.errors import RetryError

    log = logging.getLogger(__name__)


    @dataclass(frozen=True)
    class RetryPolicy:
        """How many attempts to make, on which errors, and how long to wait in between."""

        attempts: int = 3
        retry_on: tuple[type[BaseException], ...] = (Exception,)
        backoff: float = 0.0

        def delay(self, attempt: int) -> float:
            """Seconds to wait after failed attempt number `attempt` (counting from 0)."""
            return self.backoff * 2 ** attempt


    def retry(
        fn: Callable[[], Any],
        policy: Optional[RetryPolicy] = None,
        *,
        sleep: Callable[[float], None] = time.sleep,
    ) -> Any:
        """Call `fn` until it succeeds, retrying only when it raises one of `policy.retry_on`.

        Waits policy.delay(0), policy.delay(1) ... seconds between attempts and raises
        RetryError, chained to the last failure, once `policy.attempts` calls have failed.
        """
        policy = policy or RetryPolicy()
        last_error = None
        for attempt in range(policy.attempts):
            try:
                return fn()
            except policy.retry_on as exc:
                last_error = exc
                log.debug("attempt %d of %d failed: %r", attempt + 1, policy.attempts, exc)
                if attempt + 1 < policy.attempts:
                    sleep(policy.delay(attempt))
        raise RetryError(f"gave up after {policy.attempts} attempts: {last_error!r}") from last_error
    ''')

TEST_RETRY_WITH_POLICY = code('''
    import pytest

    import taskq
    from taskq.errors import RetryError
    from taskq.retry import retry


    def test_returns_the_first_success():
        calls = []

        def flaky():
            calls.append(1)
            if len(calls) < 3:
                raise ConnectionError("down")
            return "ok"

        assert retry(flaky, taskq.RetryPolicy(attempts=3)) == "ok"
        assert len(calls) == 3


    def test_default_policy_makes_three_attempts():
        calls = []

        def broken():
            calls.append(1)
            raise ConnectionError("down")

        with pytest.raises(RetryError, match="gave up after 3 attempts"):
            retry(broken)
        assert len(calls) == 3


    def test_gives_up_after_the_last_attempt():
        def broken():
            raise ConnectionError("down")

        with pytest.raises(RetryError, match="gave up after 2 attempts"):
            retry(broken, taskq.RetryPolicy(attempts=2))


    def test_backoff_doubles_between_attempts():
        waits = []

        def broken():
            raise ConnectionError("down")

        with pytest.raises(RetryError):
            retry(broken, taskq.RetryPolicy(attempts=4, backoff=0.5), sleep=waits.append)
        assert waits == [0.5, 1.0, 2.0]


    def test_policy_delay_is_exponential():
        assert [taskq.RetryPolicy(backoff=0.25).delay(n) for n in range(4)] == [0.25, 0.5, 1.0, 2.0]


    def test_errors_outside_retry_on_propagate_at_once():
        calls = []

        def bad_input():
            calls.append(1)
            raise ValueError("bad input")

        with pytest.raises(ValueError):
            retry(bad_input, taskq.RetryPolicy(attempts=3, retry_on=(ConnectionError,)))
        assert len(calls) == 1, f"expected 1 call for a non-retryable error, got {len(calls)}"


    def test_retry_error_is_chained_to_the_last_failure():
        failures = []

        def broken():
            failures.append(ConnectionError(f"down #{len(failures) + 1}"))
            raise failures[-1]

        with pytest.raises(RetryError) as caught:
            retry(broken, taskq.RetryPolicy(attempts=2))
        assert caught.value.__cause__ is failures[-1], f"__cause__ was {caught.value.__cause__!r}"
    ''')

STEPS = (
    Step(
        kind="bug_fix", domain="error_handling",
        message="Keep the exception of a failed job for result()\n\n"
                "Job.run marked a failing job as failed but threw its exception away, so "
                "result() returned None and callers could not tell a failure from a job that "
                "returned nothing.",
        edits=(
            Replace("taskq/job.py",
                    "        except Exception:\n            self.status = FAILED\n",
                    "        except Exception as exc:\n"
                    "            self._error = exc\n"
                    "            self.status = FAILED\n"),
            Append("tests/test_job.py", code('''
                def test_result_reraises_the_jobs_exception():
                    def boom():
                        raise ValueError("boom")

                    job = Job(boom)
                    job.run()
                    with pytest.raises(ValueError, match="boom"):
                        job.result(timeout=1)
                ''')),
        ),
        fail_to_pass=("tests/test_job.py::test_result_reraises_the_jobs_exception",),
        functions=("Job.run",),
    ),
    Step(
        kind="bug_fix", domain="validation",
        message="Validate job priorities\n\n"
                "Job accepted priorities such as 10, -1 or 'high'; strings then crashed the "
                "heap comparison deep inside the queue, far away from the caller's mistake.",
        edits=(
            Replace("taskq/job.py",
                    "        self.id = next(_ids)\n",
                    "        if isinstance(priority, bool) or not isinstance(priority, int) or not 0 <= priority <= 9:\n"
                    "            raise ValueError(f\"priority must be an integer from 0 to 9, got {priority!r}\")\n"
                    "        self.id = next(_ids)\n"),
            Append("tests/test_job.py", code('''
                @pytest.mark.parametrize("priority", [10, -1, "high"], ids=["too-big", "negative", "text"])
                def test_priority_must_be_between_0_and_9(priority):
                    with pytest.raises(ValueError, match="priority must be an integer from 0 to 9"):
                        Job(add, 1, 2, priority=priority)
                ''')),
        ),
        fail_to_pass=tuple(f"tests/test_job.py::test_priority_must_be_between_0_and_9[{i}]"
                           for i in ("too-big", "negative", "text")),
        functions=("Job.__init__",),
    ),
    Step(
        kind="bug_fix", domain="concurrency",
        message="Raise a timeout from Job.result instead of returning None\n\n"
                "result(timeout=...) ignored whether the wait ended because the job finished or "
                "because time ran out, so a slow job looked like one that returned None.",
        edits=(
            Append("taskq/errors.py", code('''
                class JobTimeout(TaskqError, TimeoutError):
                    """Raised when a job does not finish within the time a caller waits for it."""
                ''')),
            Replace("taskq/job.py", "from typing import Any, Callable, Optional\n",
                    "from typing import Any, Callable, Optional\n\nfrom taskq.errors import JobTimeout\n"),
            Replace("taskq/job.py", "        self._done.wait(timeout)\n",
                    "        if not self._done.wait(timeout):\n"
                    "            raise JobTimeout(f\"job {self.id} did not finish within {timeout} s\")\n"),
            Append("tests/test_job.py", code('''
                def test_result_times_out_when_the_job_never_runs():
                    job = Job(add, 1, 2)
                    with pytest.raises(TimeoutError, match="did not finish"):
                        job.result(timeout=0.01)
                ''')),
        ),
        fail_to_pass=("tests/test_job.py::test_result_times_out_when_the_job_never_runs",),
        functions=("Job.result",),
    ),
    Step(
        kind="tests_only",
        message="Test first-in first-out order within a priority\n\n"
                "The heap breaks ties on an insertion counter; pin that behaviour and len().",
        edits=(
            Append("tests/test_queue.py", code('''
                def test_jobs_of_equal_priority_come_out_in_insertion_order():
                    q = JobQueue()
                    jobs = [Job(noop, priority=3) for _ in range(5)]
                    for job in jobs:
                        q.put(job)
                    assert len(q) == 5
                    assert [q.get(timeout=1) for _ in jobs] == jobs
                    assert len(q) == 0
                ''')),
        ),
    ),
    Step(
        kind="bug_fix", domain="error_handling",
        message="Only retry on the exceptions listed in retry_on\n\n"
                "retry caught every Exception regardless of retry_on, so a ValueError from bad "
                "input was retried with backoff and finally hidden inside a RetryError.",
        edits=(
            Replace("taskq/retry.py", "        except Exception as exc:\n",
                    "        except retry_on as exc:\n"),
            Append("tests/test_retry.py", code('''
                def test_errors_outside_retry_on_propagate_at_once():
                    calls = []

                    def bad_input():
                        calls.append(1)
                        raise ValueError("bad input")

                    with pytest.raises(ValueError):
                        retry(bad_input, attempts=3, retry_on=(ConnectionError,))
                    assert len(calls) == 1, f"expected 1 call for a non-retryable error, got {len(calls)}"
                ''')),
        ),
        fail_to_pass=("tests/test_retry.py::test_errors_outside_retry_on_propagate_at_once",),
        functions=("retry",),
    ),
    Step(
        kind="bug_fix", domain="concurrency",
        message="Wake every waiting consumer when the queue closes\n\n"
                "close() notified a single waiter, so with several consumers blocked in get() "
                "only one saw QueueClosed and the others slept until their timeout.",
        edits=(
            Replace("taskq/queue.py",
                    "            self._closed = True\n            self._not_empty.notify()\n",
                    "            self._closed = True\n            self._not_empty.notify_all()\n"),
            Append("tests/test_queue.py", code('''
                def test_close_wakes_every_waiting_consumer():
                    q = JobQueue()
                    outcomes = []

                    def consume():
                        try:
                            q.get(timeout=1)
                        except QueueClosed:
                            outcomes.append("closed")
                        except QueueEmpty:
                            outcomes.append("timed out")

                    threads = [threading.Thread(target=consume) for _ in range(2)]
                    for thread in threads:
                        thread.start()
                    assert wait_until(lambda: q.waiting == 2)
                    q.close()
                    for thread in threads:
                        thread.join(5)
                    assert outcomes == ["closed", "closed"], f"expected both consumers closed, got {outcomes}"
                ''')),
        ),
        fail_to_pass=("tests/test_queue.py::test_close_wakes_every_waiting_consumer",),
        functions=("JobQueue.close",),
    ),
    Step(
        kind="source_only",
        message="Log failed attempts in retry at debug level\n\n"
                "Makes flaky dependencies visible in logs without changing behaviour.",
        edits=(
            Replace("taskq/retry.py", "import time\n", "import logging\nimport time\n"),
            Replace("taskq/retry.py", "from taskq.errors import RetryError\n",
                    "from taskq.errors import RetryError\n\nlog = logging.getLogger(__name__)\n"),
            Replace("taskq/retry.py", "            last_error = exc\n",
                    "            last_error = exc\n"
                    "            log.debug(\"attempt %d of %d failed: %r\", attempt + 1, attempts, exc)\n"),
        ),
        functions=("retry",),
    ),
    Step(
        kind="bug_fix", domain="memory",
        message="Cap the finished-job history at history_limit\n\n"
                "JobQueue kept every finished job forever although history_limit was "
                "documented, so a long-running worker pool grew without bound.",
        edits=(
            Replace("taskq/queue.py", "import heapq\n", "import heapq\nfrom collections import deque\n"),
            Replace("taskq/queue.py", "        self._finished: list[Job] = []\n",
                    "        self._finished: deque[Job] = deque(maxlen=history_limit)\n"),
            Append("tests/test_queue.py", code('''
                def test_history_keeps_only_the_most_recent_jobs():
                    q = JobQueue(history_limit=3)
                    jobs = [Job(noop) for _ in range(10)]
                    for job in jobs:
                        q.record_finished(job)
                    kept = q.history()
                    assert len(kept) == 3, f"expected the history capped at 3 jobs, it holds {len(kept)}"
                    assert kept == jobs[-3:]
                ''')),
        ),
        fail_to_pass=("tests/test_queue.py::test_history_keeps_only_the_most_recent_jobs",),
        functions=("JobQueue.__init__",),
    ),
    Step(
        kind="feature_add",
        message="Add JobQueue.drain to take every pending job at once\n\n"
                "Shutting down gracefully needs the jobs that never ran, to persist or report "
                "them; drain() removes and returns them in the order they would have run.",
        edits=(
            Append("taskq/queue.py", indent(code('''
                def drain(self) -> list[Job]:
                    """Remove and return every pending job, most urgent first."""
                    with self._lock:
                        jobs = [entry[2] for entry in sorted(self._heap)]
                        self._heap.clear()
                        return jobs
                '''), "    "), gap=1),
            Append("tests/test_queue.py", code('''
                def test_drain_empties_the_queue_most_urgent_first():
                    q = JobQueue()
                    a, b, c = Job(noop, priority=5), Job(noop, priority=0), Job(noop, priority=5)
                    for job in (a, b, c):
                        q.put(job)
                    assert q.drain() == [b, a, c]
                    assert len(q) == 0
                ''')),
        ),
        fail_to_pass=("tests/test_queue.py::test_drain_empties_the_queue_most_urgent_first",),
        functions=("JobQueue.drain",),
    ),
    Step(
        kind="bug_fix", domain="concurrency",
        message="Fix deadlock in JobQueue.put_many\n\n"
                "put_many held the queue lock and then called put(), which tried to take the "
                "same non-reentrant lock again, so the first call to put_many hung forever.",
        edits=(
            Replace("taskq/queue.py", indent(code('''
                with self._lock:
                    if self._closed:
                        raise QueueClosed("cannot put a job on a closed queue")
                    heapq.heappush(self._heap, (job.priority, next(self._order), job))
                    self._not_empty.notify()
                '''), " " * 8), "        with self._lock:\n            self._push_locked(job)\n"),
            Replace("taskq/queue.py",
                    "            for job in jobs:\n                self.put(job)\n",
                    "            for job in jobs:\n                self._push_locked(job)\n\n"
                    "    def _push_locked(self, job: Job) -> None:\n"
                    "        # The caller holds self._lock.\n"
                    "        if self._closed:\n"
                    "            raise QueueClosed(\"cannot put a job on a closed queue\")\n"
                    "        heapq.heappush(self._heap, (job.priority, next(self._order), job))\n"
                    "        self._not_empty.notify()\n"),
            Append("tests/test_queue.py", code('''
                def test_put_many_adds_every_job_without_deadlock():
                    q = JobQueue()
                    jobs = [Job(noop) for _ in range(3)]
                    thread = threading.Thread(target=q.put_many, args=(jobs,), daemon=True)
                    thread.start()
                    thread.join(3)
                    assert not thread.is_alive(), "put_many() never returned: it deadlocked on the queue lock"
                    assert [q.get(timeout=1) for _ in jobs] == jobs
                ''')),
        ),
        fail_to_pass=("tests/test_queue.py::test_put_many_adds_every_job_without_deadlock",),
        functions=("JobQueue.put", "JobQueue.put_many", "JobQueue._push_locked"),
    ),
    Step(
        kind="bug_fix", domain="error_handling",
        message="Chain RetryError to the last failure\n\n"
                "The RetryError raised after the final attempt dropped the original exception, "
                "so tracebacks showed only 'gave up' and never why the calls failed.",
        edits=(
            Replace("taskq/retry.py",
                    "    raise RetryError(f\"gave up after {attempts} attempts: {last_error!r}\")\n",
                    "    raise RetryError(f\"gave up after {attempts} attempts: {last_error!r}\") from last_error\n"),
            Append("tests/test_retry.py", code('''
                def test_retry_error_is_chained_to_the_last_failure():
                    failures = []

                    def broken():
                        failures.append(ConnectionError(f"down #{len(failures) + 1}"))
                        raise failures[-1]

                    with pytest.raises(RetryError) as caught:
                        retry(broken, attempts=2)
                    assert caught.value.__cause__ is failures[-1], f"__cause__ was {caught.value.__cause__!r}"
                ''')),
        ),
        fail_to_pass=("tests/test_retry.py::test_retry_error_is_chained_to_the_last_failure",),
        functions=("retry",),
    ),
    Step(
        kind="bug_fix", domain="concurrency",
        message="Return WorkerPool.map results in input order\n\n"
                "map() appended each result when its job finished, so with several workers the "
                "results came back in completion order and no longer lined up with the inputs.",
        edits=(
            Replace("taskq/pool.py", indent(code('''
                results: list[Any] = []
                lock = threading.Lock()

                def run_one(item: Any) -> None:
                    value = fn(item)
                    with lock:
                        results.append(value)

                jobs = [self.submit(run_one, item) for item in items]
                for job in jobs:
                    job.result()
                return results
                '''), " " * 8), indent(code('''
                jobs = [self.submit(fn, item) for item in items]
                return [job.result() for job in jobs]
                '''), " " * 8)),
            Append("tests/test_pool.py", code('''
                def test_map_returns_results_in_input_order():
                    with WorkerPool(workers=2) as pool:
                        def finish_first_item_last(n):
                            if n == 0:  # wait until the other item's job has finished
                                wait_until(lambda: len(pool.queue.history()) >= 1)
                            return n * 10

                        got = pool.map(finish_first_item_last, [0, 1])
                    assert got == [0, 10], f"expected results in input order [0, 10], got {got}"
                ''')),
        ),
        fail_to_pass=("tests/test_pool.py::test_map_returns_results_in_input_order",),
        functions=("WorkerPool.map",),
    ),
    Step(
        kind="refactor",
        message="Introduce RetryPolicy in place of retry's keyword arguments\n\n"
                "attempts, retry_on and backoff travelled together through every caller; they "
                "are now one frozen RetryPolicy that can be shared and that owns the delay rule.",
        edits=(
            Write("taskq/retry.py", RETRY_WITH_POLICY),
            Replace("taskq/__init__.py", "from taskq.retry import retry\n",
                    "from taskq.retry import RetryPolicy, retry\n"),
            Replace("taskq/__init__.py", '"RetryError",', '"RetryError", "RetryPolicy",'),
            Write("tests/test_retry.py", TEST_RETRY_WITH_POLICY),
        ),
        fail_to_pass=tuple(f"tests/test_retry.py::{name}" for name in (
            "test_returns_the_first_success",
            "test_gives_up_after_the_last_attempt", "test_backoff_doubles_between_attempts",
            "test_policy_delay_is_exponential", "test_errors_outside_retry_on_propagate_at_once",
            "test_retry_error_is_chained_to_the_last_failure")),
        functions=("retry", "RetryPolicy", "RetryPolicy.delay"),
    ),
)

REPO = RepoSpec(
    name="taskq",
    description="A small thread-based job queue.",
    initial_message="Initial import of taskq\n\n"
                    "Prioritised jobs, a thread-safe queue, a worker pool and a retry helper, "
                    "with a pytest suite.",
    files=FILES,
    steps=STEPS,
)
