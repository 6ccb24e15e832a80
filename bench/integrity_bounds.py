"""Resource attacks against the Docker sandbox: what they cost the host and the evaluator.

Runs, through sandbox.run_attempt (evaluate's path), an agent patch that writes 5 GiB into the
work folder, one that prints 2 GiB, one that floods the report pipe, and one that allocates
4 GiB; prints for each the verdict's reason, the peak growth of the engine's disk
(/var/lib/docker, sampled) and of this process's resident memory. Last line: the largest
evaluator memory growth in MiB, `integrity_evaluator_rss_growth_mib: X`.
"""

from __future__ import annotations

import os
import resource
import shutil
import sys
import tempfile
import threading
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from environment import make_sandbox  # noqa: E402
from sandbox import Limits, attempt_verdict, run_attempt  # noqa: E402
from tests.sandbox_fixtures import CALC_TESTS, calc_edit_patch, calc_task, new_file_patch, pipe_flood  # noqa: E402

DOCKER_ROOT = "/var/lib/docker"


edit_calc, new_file = calc_edit_patch, new_file_patch


ATTACKS = {
    "write 5 GiB into the tree": edit_calc("""
import os as _os
with open(_os.path.join(_os.path.dirname(__file__), 'fill.bin'), 'wb') as _fh:
    for _ in range(5 * 1024):
        _fh.write(b'x' * 2 ** 20)
"""),
    "print 2 GiB": edit_calc("import os as _os\nfor _ in range(2048):\n    _os.write(1, b'y' * 2 ** 20)\n"),
    "flood the report pipe with 1 GiB": edit_calc(pipe_flood(1024)),
    "allocate 4 GiB": edit_calc("_blob = b'x' * (4 * 1024 ** 3)\n"),
}


class DiskPeak(threading.Thread):
    """Samples the engine's disk use until stopped; keeps the peak growth."""

    def __init__(self):
        super().__init__(daemon=True)
        self.base = shutil.disk_usage(DOCKER_ROOT if os.path.isdir(DOCKER_ROOT) else "/").used
        self.peak = 0
        self.done = threading.Event()

    def run(self):
        while not self.done.wait(0.2):
            used = shutil.disk_usage(DOCKER_ROOT if os.path.isdir(DOCKER_ROOT) else "/").used
            self.peak = max(self.peak, used - self.base)


def main() -> None:
    tmp = Path(tempfile.mkdtemp(prefix="sebgen-bench-"))
    repo, sha, bug, gold = calc_task(tmp / "repo")
    test_patch = new_file("tests/test_calc.py", CALC_TESTS)
    limits = Limits(timeout_s=120)
    print(
        f"limits: memory {limits.memory_mb} MB, work {limits.work_mb} MiB, /tmp {limits.tmp_mb} MiB, "
        f"timeout {limits.timeout_s:g} s"
    )
    backend = make_sandbox("docker", limits=limits, cache_dir=tmp / "cache", log=lambda m: None)
    worst_rss = 0.0
    try:
        run_attempt(backend, repo, sha, bug, test_patch, gold, ["tests/test_calc.py"])  # warm up
        for name, patch in ATTACKS.items():
            rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
            disk = DiskPeak()
            disk.start()
            run = run_attempt(backend, repo, sha, bug, test_patch, patch, ["tests/test_calc.py"])
            disk.done.set()
            disk.join()
            rss_growth = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024 - rss_before
            worst_rss = max(worst_rss, rss_growth)
            resolved, why = attempt_verdict(run, ["tests/test_calc.py::test_add"], ["tests/test_calc.py::test_sub"])
            print(
                f"{name}: resolved={resolved} ({why}); note: {run.note or '-'}; "
                f"engine disk peak +{disk.peak / 2**20:.0f} MiB (shared disk: other users' writes included); "
                f"evaluator peak RSS +{rss_growth:.0f} MiB (peak {rss_before + rss_growth:.0f} MiB); "
                f"{run.duration_s:.1f} s"
            )
    finally:
        backend.close()
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"integrity_evaluator_rss_growth_mib: {worst_rss:.0f}")


if __name__ == "__main__":
    main()
