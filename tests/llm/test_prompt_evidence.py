"""What a real model is given: the generation prompt carries the failure evidence (the failing
check, the values of the buggy run, a self-contained reproduction), through the production
path (LLMClient -> litellm -> a hosted-model stand-in), and the answer is replayed."""

from __future__ import annotations

import json
import os

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import litellm  # noqa: E402
import pytest  # noqa: E402

from llm.client import LLMClient  # noqa: E402
from records import FailureEvidence  # noqa: E402
from tasks.prompt import evidence_block, generation_prompt  # noqa: E402

FAILURE = FailureEvidence(
    "tests/test_sizes.py::test_one_byte",
    kind="compare",
    check="assert naturalsize(1) == '1 Byte'",
    call="naturalsize(1)",
    op="==",
    observed="'1 Bytes'",
    expected="'1 Byte'",
    exact=True,
    message="assert '1 Bytes' == '1 Byte'\n  - 1 Byte\n  + 1 Bytes",
    reproduction="from pkg.sizes import naturalsize\nassert naturalsize(1) == '1 Byte'",
    unbound=[],
)
CONTEXT = {
    "task": "write_statement",
    "strategy_type": "BUG_FIX",
    "repo": "acme/sizes",
    "commit_subject": "Singular unit for one byte",
    "commit_body": "",
    "failing_tests": [{"id": FAILURE.test_id, "assertion": FAILURE.check}],
    "failures": [FAILURE],
}


class Hosted(litellm.CustomLLM):
    """A hosted model's stand-in: records what it is sent, answers one statement."""

    def __init__(self):
        super().__init__()
        self.seen: list[list[dict]] = []

    def completion(self, model, messages, api_base, custom_prompt_dict, model_response, *args, **kwargs):
        self.seen.append(messages)
        model_response.choices[0].message.content = json.dumps({"problem_statement": "s"})
        model_response.model = f"hosted/{model}"
        return model_response


@pytest.fixture
def hosted(monkeypatch):
    model = Hosted()
    monkeypatch.setattr(
        litellm, "custom_provider_map", [*litellm.custom_provider_map, {"provider": "hosted", "custom_handler": model}]
    )
    return model


def test_the_prompt_holds_the_evidence_a_model_needs():
    prompt = generation_prompt(
        instructions="Write a bug report for {repo}.", context=CONTEXT, repo_context="r", diff="d", examples=[]
    )
    block = prompt.split("## How the failing tests fail on the current code\n```text\n")[1].split("```")[0]
    assert block.splitlines() == [
        "- tests/test_sizes.py::test_one_byte",
        "  failing check: assert naturalsize(1) == '1 Byte'",
        "  pytest reports: assert '1 Bytes' == '1 Byte'",
        "  observed on the current code: naturalsize(1) -> '1 Bytes'",
        "  required: naturalsize(1) == '1 Byte' (exact string)",
        "  reproduction:",
        "    from pkg.sizes import naturalsize",
        "    assert naturalsize(1) == '1 Byte'",
    ]
    assert len(evidence_block([FAILURE] * 100)) < 2600  # bounded: a cut says where
    # the machine-readable block holds the record's JSON: its id and exactly the stated fields
    sent = json.loads(prompt.split("<context>")[1].split("</context>")[0])
    assert sent["failures"] == [FAILURE.to_dict()] and sent["failures"][0]["unbound"] == []
    assert set(sent["failures"][0]) == {
        "id", "kind", "check", "call", "op", "observed", "expected", "exact", "message", "reproduction", "unbound"
    }  # fmt: skip


def test_a_hosted_model_gets_the_evidence_and_a_resumed_run_replays_its_answer(hosted, tmp_path):
    prompt = generation_prompt(
        instructions="Write a bug report for {repo}.", context=CONTEXT, repo_context="r", diff="d", examples=[]
    )
    first = LLMClient("hosted/model", replay_dir=tmp_path / "replay")
    data, _ = first.complete_json(prompt, required_keys=("problem_statement",))
    assert data == {"problem_statement": "s"}
    [messages] = hosted.seen
    sent = messages[-1]["content"]
    assert (
        "observed on the current code: naturalsize(1) -> '1 Bytes'" in sent
        and "assert naturalsize(1) == '1 Byte'" in sent
    )
    again = LLMClient("hosted/model", replay_dir=tmp_path / "replay")
    again.complete_json(prompt, required_keys=("problem_statement",))
    assert len(hosted.seen) == 1 and again.replayed == 1  # the same prompt is never paid twice
