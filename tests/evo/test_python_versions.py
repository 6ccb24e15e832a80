"""The CI smoke on the oldest and newest Python this machine keeps: install SEBGen into a fresh
venv, `sebgen doctor`, `sebgen mine`, `sebgen setup` and `sebgen generate` of one task of a
bundled repo with the local backend.

`.ci/provision_pythons.sh` installs SEBGen's dependencies once per Python into a venv of their
own (cached); the fresh venv of each test run sees them through a `.pth` file, and SEBGen itself
is installed into it from this checkout (not editable), without the network. The embedding stack
is part of it (the offline writer reads prompts with it). Without the list the test skips with a reason,
and fails when SEBGEN_REQUIRE_PYTHONS=1 (CI).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LISTING = Path(os.environ.get("SEBGEN_PYTHONS_CACHE", Path.home() / ".cache" / "sebgen" / "pythons")) / "pythons.txt"
pytestmark = pytest.mark.slow


def provisioned() -> list[tuple[str, str, str]]:
    if not LISTING.is_file():
        return []
    return [tuple(line.split()) for line in LISTING.read_text().splitlines() if line.strip()]


def _skip_or_fail(reason: str):
    if os.environ.get("SEBGEN_REQUIRE_PYTHONS") == "1":
        pytest.fail(f"SEBGEN_REQUIRE_PYTHONS=1 but {reason}")
    pytest.skip(f"{reason}; run .ci/provision_pythons.sh (set SEBGEN_REQUIRE_PYTHONS=1 to require it)")


def run(argv: list, cwd: Path, timeout: float = 900) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    env.update(LITELLM_LOCAL_MODEL_COST_MAP="True", HF_HUB_OFFLINE="1")  # SEBGen's own pip calls keep the indexes
    return subprocess.run([str(a) for a in argv], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


@pytest.mark.timeout(1800)
@pytest.mark.parametrize("which", ["oldest", "newest"])
def test_fresh_venv_install_doctor_mine_setup_and_generate(tmp_path, which):
    pythons = provisioned()
    if not pythons:
        _skip_or_fail(f"{LISTING} does not exist")
    python, deps_site = pythons[0] if which == "oldest" else pythons[-1]
    version = run([python, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"], tmp_path).stdout.strip()
    venv = tmp_path / "venv"
    assert run([python, "-m", "venv", venv], tmp_path).returncode == 0
    site = run(
        [venv / "bin" / "python", "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], tmp_path
    ).stdout.strip()
    Path(site, "sebgen-ci-dependencies.pth").write_text(deps_site + "\n")
    source = tmp_path / "source"  # a copy: building in the checkout would leave build/ and egg-info there
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(".git", "runs", "__pycache__", "build", "*.egg-info"))
    proc = run(
        [
            venv / "bin" / "python",
            "-m",
            "pip",
            "install",
            "-q",
            "--no-index",
            "--no-deps",
            "--no-build-isolation",
            source,
        ],
        tmp_path,
    )  # this checkout, not editable
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert not Path(site, "evo", "cli.py").is_symlink() and Path(site, "evo", "cli.py").is_file()
    sebgen = venv / "bin" / "sebgen"

    doctor = run([sebgen, "doctor"], tmp_path)
    assert doctor.returncode == 0, f"Python {version}: {doctor.stderr[-3000:]}"
    assert "Traceback" not in doctor.stderr
    assert "embedding model" in doctor.stdout and "llm model" in doctor.stdout

    corpus = run([sebgen, "corpus", tmp_path / "corpus"], tmp_path)
    assert corpus.returncode == 0, corpus.stderr[-3000:]
    repo = next(Path(p) for p in corpus.stdout.split() if Path(p).name == "pyledger")
    mined = run([sebgen, "mine", repo, "--json"], tmp_path)
    assert mined.returncode == 0, f"Python {version}: {mined.stderr[-3000:]}"
    assert json.loads(mined.stdout)["candidates"], mined.stdout[-2000:]
    # The environment path on this Python: recipe detection (tomllib or tomli), tree export
    # (tarfile with or without filters) and the local backend's venv, with the whole suite run.
    setup = run([sebgen, "setup", repo, "--set", "sandbox.backend=local"], tmp_path)
    assert setup.returncode == 0, f"Python {version}: {setup.stderr[-3000:]}"
    assert "passed" in setup.stdout and "Traceback" not in setup.stderr, setup.stdout[-2000:]

    out = tmp_path / "tasks.jsonl"
    generate = run(
        [sebgen, "generate", repo, "--strategy", "BUG_FIX", "--n", "1", "--out", out, "--set", "sandbox.backend=local"],
        tmp_path,
    )
    assert generate.returncode == 0, f"Python {version}: {generate.stderr[-3000:]}"
    tasks = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(tasks) == 1 and tasks[0]["FAIL_TO_PASS"], generate.stderr[-2000:]
    assert all(v["passed"] for v in tasks[0]["validation"].values())
