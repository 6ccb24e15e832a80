"""What SEBGen says: usage lines as the README writes them, each message once, no third-party
progress bars, a missing API key without retries, doctor naming its own fix, and where
`evaluate` writes."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from evo import cli  # noqa: E402
from tests.bench_modules import load_bench  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


def readme_usages() -> dict[str, str]:
    """`sebgen NAME ARGS` of every row of the README's CLI table, by command name."""
    rows = re.findall(r"^\| `sebgen (\w+)([^`]*)` \|", (ROOT / "README.md").read_text(encoding="utf-8"), re.M)
    return {name: " ".join(f"sebgen {name}{rest}".replace("\\|", "|").split()) for name, rest in rows}


def test_usage_lines_read_as_the_readme_writes_them():
    usages = readme_usages()
    assert {"run", "resume", "hof", "generate", "validate", "evaluate", "export", "report", "doctor"} <= set(usages)
    runner = CliRunner()
    for name, expected in usages.items():
        result = runner.invoke(cli.app, [name, "--help"], prog_name="sebgen")
        assert result.exit_code == 0, (name, result.output)
        lines = result.output[result.output.index("Usage:") :].splitlines()
        usage = " ".join(lines[: next((i for i, ln in enumerate(lines) if not ln.strip()), len(lines))])  # may wrap
        assert " ".join(usage.split()).removeprefix("Usage: ") == expected


def test_each_message_is_said_once_per_process(capsys):
    cli._log("sandbox: no Docker engine answers; falling back to the local backend")
    cli._log("sandbox: no Docker engine answers; falling back to the local backend")
    cli._log("cloning x into y")
    err = capsys.readouterr().err
    assert err.count("falling back to the local backend") == 1
    assert "cloning x into y" in err


@pytest.mark.slow  # runs the CLI in a subprocess (or builds an environment): seconds each
def test_loading_the_embedding_model_draws_no_progress_bar():
    proc = subprocess.run(
        [sys.executable, "-c", "from archive import get_embedder; print(get_embedder().dim)"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip() == "384"
    assert "Loading weights" not in proc.stderr and "it/s]" not in proc.stderr, proc.stderr[-500:]


def test_missing_api_key_fails_before_any_request(monkeypatch):
    import litellm

    from llm import LLMClient, LLMError

    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    calls = []
    monkeypatch.setattr(litellm, "completion", lambda **kw: calls.append(kw))
    client = LLMClient("anthropic/claude-sonnet-4-5", retries=3, backoff_s=0)
    with pytest.raises(LLMError) as info:
        client.complete("hello")
    assert str(info.value) == (
        "anthropic/claude-sonnet-4-5 needs an API key: set the environment variable ANTHROPIC_API_KEY."
    )
    assert calls == []  # no request, so nothing was retried


def test_doctor_names_its_own_command_for_a_missing_base_image(monkeypatch):
    import docker

    import sandbox
    from evo.config import load_config
    from evo.doctor import docker_checks

    class Engine:
        def version(self):
            return {"Version": "test"}

    monkeypatch.setattr(docker, "from_env", lambda timeout=5: Engine())
    monkeypatch.setattr(
        sandbox, "base_image_status", lambda *a, **k: {"available": False, "detail": "python -c ..."}, raising=False
    )
    monkeypatch.setattr(sandbox, "disk_report", lambda client: {}, raising=False)
    checks = {name: (ok, detail) for name, ok, detail in docker_checks(load_config(None), False, False, Path("runs"))}
    ok, detail = checks["base image"]
    assert not ok and "`sebgen doctor --build-base-image`" in detail and "python -c" not in detail


def test_evaluate_writes_into_the_run_folder_or_beside_the_tasks(tmp_path):
    run_dir = tmp_path / "run"
    (run_dir / "checkpoints").mkdir(parents=True)
    (run_dir / "config.yaml").write_text("seed: 0\n")
    (run_dir / "export").mkdir()
    assert (
        cli._results_path(run_dir / "export" / "tasks.jsonl", "oracle") == run_dir.resolve() / "results" / "oracle.json"
    )
    loose = tmp_path / "elsewhere" / "mine.jsonl"
    assert cli._results_path(loose, "nop") == loose.with_name("mine.nop.results.json")
    assert cli._results_path(loose, "nop").parent != Path.cwd()


HEAVY = ("litellm", "torch", "sentence_transformers", "docker", "matplotlib", "dask", "numpy", "faiss", "git")


def bench_usage_errors(scratch: Path) -> dict[str, list[str]]:
    """bench/cli_startup.py's usage error of every command (one list for the bench and this test)."""
    return load_bench("cli_startup").usage_errors(scratch)


def test_the_bench_covers_a_usage_error_of_every_command(tmp_path):
    covered = {argv[0] for argv in bench_usage_errors(tmp_path).values()}
    assert covered == {command.name or command.callback.__name__ for command in cli.app.registered_commands}


@pytest.mark.parametrize(
    "case",
    ["--help", "run", "run --set typo", "resume", "hof", "generate", "validate", "evaluate", "export", "report"]
    + ["mine", "doctor", "curriculum", "corpus", "setup", "experiment"],
)
def test_help_and_user_errors_import_no_heavy_module(case, tmp_path):
    """Speed is measured in bench/cli_startup.py; this checks its cause: nothing heavy is loaded."""
    argv = ["--help"] if case == "--help" else bench_usage_errors(tmp_path)[case]
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "evo.cli", *argv],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert proc.returncode == (0 if case == "--help" else 2), proc.stderr[-2000:]
    loaded = {
        line.split("|")[-1].strip().split(".")[0]
        for line in proc.stderr.splitlines()
        if line.startswith("import time:")
    }
    assert not loaded & set(HEAVY), sorted(loaded & set(HEAVY))
