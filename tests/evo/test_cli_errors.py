"""Bad input: one clear sentence on stderr, no traceback, non-zero exit, no half-written run."""

from pathlib import Path

import git
import pytest

from tests.e2e import ROOT, sebgen

QUICKSTART = ROOT / "configs" / "quickstart.yaml"


def assert_clean_failure(proc, phrase: str, run_dir: Path | None = None):
    assert proc.returncode != 0
    assert "Traceback" not in proc.stderr
    lines = [ln for ln in proc.stderr.strip().splitlines() if ln.startswith("sebgen:")]
    assert len(lines) == 1, proc.stderr
    assert phrase in lines[0]
    if run_dir is not None:
        assert not (run_dir / "config.yaml").exists() and not (run_dir / "checkpoints").exists()


def test_unknown_config_key(tmp_path):
    proc = sebgen("run", QUICKSTART, "--run-dir", tmp_path / "r", "--set", "evolution.mutation_rate=0.5")
    assert_clean_failure(proc, "config key 'evolution.mutation_rate' is not a known setting", tmp_path / "r")


def test_wrong_value_type(tmp_path):
    cfg = tmp_path / "c.yaml"
    cfg.write_text("evolution:\n  population: many\n")
    proc = sebgen("run", cfg, "--run-dir", tmp_path / "r")
    assert_clean_failure(proc, "config key 'evolution.population' must be an integer", tmp_path / "r")


def test_missing_config_file(tmp_path):
    proc = sebgen("run", tmp_path / "absent.yaml", "--run-dir", tmp_path / "r")
    assert_clean_failure(proc, "does not exist", tmp_path / "r")


@pytest.mark.slow  # runs the CLI in a subprocess (or builds an environment): seconds each
def test_path_that_is_not_a_git_repo(tmp_path):
    (tmp_path / "plain").mkdir()
    proc = sebgen("mine", tmp_path / "plain")
    assert_clean_failure(proc, "is not a git repository")
    proc = sebgen("run", QUICKSTART, "--run-dir", tmp_path / "r", "--set", f"repos=[{tmp_path / 'plain'}]")
    assert_clean_failure(proc, "is not a git repository", tmp_path / "r")


@pytest.mark.slow  # runs the CLI in a subprocess (or builds an environment): seconds each
def test_repo_without_tests(tmp_path):
    repo = git.Repo.init(tmp_path / "notests")
    for i in range(3):
        (tmp_path / "notests" / "lib.py").write_text(f"VALUE = {i}\n")
        repo.index.add(["lib.py"])
        repo.index.commit(f"change the value to {i} for the next release")
    proc = sebgen("generate", tmp_path / "notests", "--n", "1", "--out", tmp_path / "t.jsonl")
    assert_clean_failure(proc, "has no tests")
    assert not (tmp_path / "t.jsonl").exists()


@pytest.mark.slow  # runs the CLI in a subprocess (or builds an environment): seconds each
def test_model_returning_unparsable_json(tmp_path):
    proc = sebgen(
        "run",
        QUICKSTART,
        "--run-dir",
        tmp_path / "r",
        "--set",
        "sandbox.backend=local",
        "--set",
        "llm.mock_response=this is not json {",
        "--set",
        "llm.retries=0",
    )
    assert_clean_failure(proc, "unparsable JSON", tmp_path / "r")


def test_resume_of_a_folder_that_is_not_a_run(tmp_path):
    proc = sebgen("resume", tmp_path)
    assert_clean_failure(proc, "is not a SEBGen run folder")


def test_hof_of_a_missing_generation(tmp_path):
    proc = sebgen("hof", tmp_path)
    assert_clean_failure(proc, "has no checkpoint")


@pytest.mark.parametrize(
    "command",
    [
        ["hof"],
        ["report"],
        ["resume"],
        ["export", "--format", "swebench", "--out", "x"],
        ["evaluate", "--agent", "nop"],
        ["mine"],
    ],
)
@pytest.mark.slow  # runs the CLI in a subprocess (or builds an environment): seconds each
def test_a_path_that_does_not_exist_says_so(tmp_path, command):
    proc = sebgen(command[0], tmp_path / "nonexistent", *command[1:])
    assert_clean_failure(proc, f"{tmp_path / 'nonexistent'} does not exist")
    assert proc.returncode == 2


def test_set_key_typo_gets_did_you_mean(tmp_path):
    proc = sebgen("run", QUICKSTART, "--run-dir", tmp_path / "r", "--set", "evolution.populaton=3")
    assert_clean_failure(proc, "did you mean 'evolution.population'?", tmp_path / "r")


@pytest.mark.slow  # runs the CLI in a subprocess (or builds an environment): seconds each
def test_strategy_type_typo_gets_did_you_mean(tmp_path):
    proc = sebgen("generate", tmp_path, "--strategy", "bugfix", "--out", tmp_path / "t.jsonl")
    assert_clean_failure(proc, "unknown strategy 'bugfix' (did you mean 'BUG_FIX'?)")
    assert not (tmp_path / "t.jsonl").exists()


@pytest.mark.slow  # runs the CLI in a subprocess (or builds an environment): seconds each
def test_agent_typo_gets_did_you_mean(tmp_path):
    proc = sebgen("evaluate", tmp_path / "tasks.jsonl", "--agent", "orcle")
    assert_clean_failure(proc, "unknown agent 'orcle'")
    assert "(did you mean 'oracle'?)" in proc.stderr


@pytest.mark.slow  # runs the CLI in a subprocess (or builds an environment): seconds each
def test_missing_api_key_is_one_sentence_naming_the_variable(tmp_path, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    proc = sebgen(
        "run",
        QUICKSTART,
        "--run-dir",
        tmp_path / "r",
        "--set",
        "sandbox.backend=local",
        "--set",
        "llm.model=openai/gpt-4o-mini",
        "--set",
        "llm.retries=2",
    )
    assert_clean_failure(
        proc, "openai/gpt-4o-mini needs an API key: set the environment variable OPENAI_API_KEY", tmp_path / "r"
    )
    assert "attempts" not in proc.stderr and "transient" not in proc.stderr


# One error class of every package that reports user mistakes (module, class): the CLI knows
# none of them by name, only their base, records.UserError.
USER_ERRORS = [
    ("archive", "ArchiveError"),
    ("corpus", "CorpusError"),
    ("environment.setup", "SetupError"),
    ("evo.checkpoint", "CheckpointError"),
    ("evo.config", "ConfigError"),
    ("evo.lineage", "LineageError"),
    ("evo.loop", "RunError"),
    ("evo.report", "ReportError"),
    ("evo.runfolder", "RunFolderError"),
    ("harness", "ExportError"),
    ("harness", "PredictionsError"),
    ("llm", "LLMError"),
    ("llm", "LocalModelError"),
    ("records", "TaskFileError"),
    ("sandbox", "PatchError"),
    ("tasks", "MiningError"),
]


@pytest.mark.parametrize(("module", "name"), USER_ERRORS)
def test_the_cli_reports_each_packages_user_error_as_one_sentence(monkeypatch, module, name):
    import importlib

    from typer.testing import CliRunner

    from evo import cli

    error = getattr(importlib.import_module(module), name)

    def fail(*_args):
        raise error(f"the {name} sentence\nand a second line nobody needs")

    monkeypatch.setattr(cli, "_config", fail)
    result = CliRunner().invoke(cli.app, ["run", str(QUICKSTART)], prog_name="sebgen")
    assert result.exit_code == 2, result.output
    assert result.stderr == f"sebgen: the {name} sentence\n"
    assert result.stdout == ""


def test_an_internal_failure_is_not_dressed_as_a_user_error(monkeypatch):
    from typer.testing import CliRunner

    from evo import cli

    def fail(*_args):
        raise KeyError("a bug")

    monkeypatch.setattr(cli, "_config", fail)
    result = CliRunner().invoke(cli.app, ["run", str(QUICKSTART)], prog_name="sebgen")
    assert isinstance(result.exception, KeyError) and result.exit_code == 1


def error_classes() -> list[tuple[str, str]]:
    """(module, class) of every class named *Error defined in SEBGen's packages."""
    import ast

    from tests.test_layering import PACKAGES, package_files

    found = []
    for package in PACKAGES:
        for path in package_files(package):
            module = ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
            tree = ast.parse(path.read_text(encoding="utf-8"))
            found += [(module, node.name) for node in ast.walk(tree) if isinstance(node, ast.ClassDef)]
    return [(module, name) for module, name in found if name.endswith("Error")]


def test_every_error_class_of_the_packages_is_a_user_error():
    import importlib

    from records import UserError

    classes = error_classes()
    assert {name for _, name in USER_ERRORS} <= {name for _, name in classes}
    not_user_errors = [
        f"{module}.{name}"
        for module, name in classes
        if not issubclass(getattr(importlib.import_module(module), name), UserError)
    ]
    assert not_user_errors == []
