"""LLMClient over litellm: JSON parsing and repair, retries, usage and cost accounting."""

from __future__ import annotations

import os

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import litellm  # noqa: E402
import pytest  # noqa: E402

from llm import client as llm  # noqa: E402
from llm.client import Completion, LLMClient, LLMError, Usage, parse_json_object, register_offline_provider  # noqa: E402
from llm.offline import OfflineLLM  # noqa: E402


@pytest.fixture
def counted_calls(monkeypatch):
    """Counts litellm.completion calls made by llm.client, passing them through."""
    real = litellm.completion
    calls: list[dict] = []

    def counting(**kwargs):
        calls.append(kwargs)
        return real(**kwargs)

    monkeypatch.setattr(llm.litellm, "completion", counting)
    return calls


@pytest.fixture
def sleeps(monkeypatch):
    """Records backoff sleeps instead of sleeping."""
    recorded: list[float] = []
    monkeypatch.setattr(llm.time, "sleep", recorded.append)
    return recorded


def test_garbage_answer_raises_after_one_repair_attempt(counted_calls):
    client = LLMClient(mock_response="I am not JSON at all")
    with pytest.raises(LLMError, match="unparsable JSON after one repair attempt"):
        client.complete_json("Give me JSON")
    assert len(counted_calls) == 2  # the first answer and exactly one repair
    repair_messages = counted_calls[1]["messages"]
    assert repair_messages[-1]["role"] == "user"
    assert "Your previous answer was not valid JSON" in repair_messages[-1]["content"]
    assert "I am not JSON at all" in repair_messages[-1]["content"]
    assert client.usage.calls == 2


def test_fenced_json_block_parses():
    answer = 'Sure! Here it is:\n```json\n{"problem_statement": "x breaks", "hints_text": ""}\n```\nThanks.'
    data, completion = LLMClient(mock_response=answer).complete_json("q", required_keys=["problem_statement"])
    assert data == {"problem_statement": "x breaks", "hints_text": ""}
    assert completion.text == answer


def test_first_object_in_prose_parses_and_missing_keys_are_reported():
    assert parse_json_object('The answer is {"a": {"b": 1}} and {"c": 2}.') == {"a": {"b": 1}}
    with pytest.raises(ValueError, match="missing required keys: score"):
        parse_json_object('{"a": 1}', required_keys=["a", "score"])
    with pytest.raises(ValueError, match="no JSON object"):
        parse_json_object("[1, 2, 3]")


def test_missing_required_key_fails_after_repair():
    client = LLMClient(mock_response='{"other": 1}')
    with pytest.raises(LLMError, match="missing required keys: problem_statement"):
        client.complete_json("q", required_keys=["problem_statement"])


def test_timeout_is_retried_with_exponential_backoff_then_raised(counted_calls, sleeps):
    timeout = litellm.Timeout(message="mock timeout", model="offline/sebgen", llm_provider="offline")
    client = LLMClient(timeout_s=7, retries=2, backoff_s=0.5, mock_response=timeout)
    with pytest.raises(LLMError, match=r"offline/sebgen failed after 3 attempts: timeout after 7s"):
        client.complete("hello")
    assert len(counted_calls) == 3
    assert sleeps == [0.5, 1.0]
    assert client.usage.calls == 0


def test_litellm_mock_timeout_flag_is_retried(monkeypatch, sleeps):
    real = litellm.completion
    calls = []

    def with_mock_timeout(**kwargs):
        calls.append(1)
        kwargs["timeout"] = 0.0  # mock_timeout sleeps for the timeout before raising
        return real(mock_timeout=True, **kwargs)

    monkeypatch.setattr(llm.litellm, "completion", with_mock_timeout)
    with pytest.raises(LLMError, match="timeout"):
        LLMClient(retries=1, backoff_s=0).complete("hello")
    assert len(calls) == 2


def test_rate_limit_is_retried(counted_calls, sleeps):
    with pytest.raises(LLMError, match="after 2 attempts: transient API error"):
        LLMClient(retries=1, backoff_s=0, mock_response="litellm.RateLimitError").complete("hi")
    assert len(counted_calls) == 2


def test_a_crash_in_the_offline_provider_is_named_and_not_retried(counted_calls, sleeps, monkeypatch):
    # litellm wraps it as an APIConnectionError; read as transient it was retried and reported as
    # "transient API error", hiding a bug in SEBGen's own writer
    def crash(self, model, messages, params):
        raise ValueError("Unable to avoid backslash in f-string expression part")

    monkeypatch.setattr(OfflineLLM, "answer", crash)
    with pytest.raises(LLMError) as raised:
        LLMClient("offline/sebgen", retries=3, backoff_s=0).complete("hi")
    message = str(raised.value)
    assert "crashed in SEBGen's in-process provider: ValueError: Unable to avoid backslash" in message
    assert "test_llm.py:" in message and "in crash" in message and "transient" not in message
    assert len(counted_calls) == 1
    assert sleeps == []


def test_auth_error_is_not_retried(counted_calls, sleeps):
    auth = litellm.AuthenticationError(message="bad key", llm_provider="openai", model="gpt-4o-mini")
    with pytest.raises(LLMError, match="API error: AuthenticationError"):
        LLMClient("gpt-4o-mini", retries=3, mock_response=auth).complete("hi")
    assert len(counted_calls) == 1
    assert sleeps == []


def test_transient_error_then_success_returns_the_answer(monkeypatch, sleeps):
    real = litellm.completion
    calls = []

    def flaky(**kwargs):
        calls.append(1)
        if len(calls) == 1:
            raise litellm.InternalServerError(message="overloaded", llm_provider="offline", model="offline/sebgen")
        return real(**kwargs)

    monkeypatch.setattr(llm.litellm, "completion", flaky)
    client = LLMClient(backoff_s=0.25)
    completion = client.complete("hello there")
    assert "offline model" in completion.text
    assert len(calls) == 2 and sleeps == [0.25]
    assert client.usage.calls == 1


def test_usage_sums_over_calls():
    client = LLMClient()
    first = client.complete("one two three " * 10)
    second = client.complete("four " * 100, max_tokens=50)
    assert first.prompt_tokens > 0 and second.prompt_tokens > first.prompt_tokens
    assert client.usage.calls == 2
    assert client.usage.prompt_tokens == first.prompt_tokens + second.prompt_tokens
    assert client.usage.completion_tokens == first.completion_tokens + second.completion_tokens
    assert client.usage.cost_usd == 0.0
    assert Usage.from_dict(client.usage.to_dict()) == client.usage


def test_usage_add_and_round_trip():
    usage = Usage()
    usage.add(Completion("a", "m", 10, 5, 0.25))
    usage.add(Completion("b", "m", 1, 2, 0.5))
    assert usage.to_dict() == {"calls": 2, "prompt_tokens": 11, "completion_tokens": 7, "cost_usd": 0.75}
    assert Usage.from_dict({}) == Usage()


def test_cost_is_priced_for_known_models_and_zero_for_unknown():
    known = LLMClient("gpt-4o-mini", mock_response='{"ok": true}').complete("price me")
    assert known.cost_usd > 0.0
    unknown = LLMClient("openai/no-such-model-xyz", mock_response='{"ok": true}').complete("price me")
    assert unknown.cost_usd == 0.0


def test_sampling_parameters_reach_litellm(counted_calls):
    LLMClient(timeout_s=12).complete("x", system="be brief", temperature=1.3, top_p=0.8, max_tokens=77)
    sent = counted_calls[0]
    assert sent["temperature"] == 1.3 and sent["top_p"] == 0.8 and sent["max_tokens"] == 77
    assert sent["timeout"] == 12 and sent["drop_params"] is True
    assert sent["messages"][0] == {"role": "system", "content": "be brief"}
    assert "mock_response" not in sent


def test_offline_provider_is_registered_once_and_keeps_other_entries(monkeypatch):
    other = {"provider": "someone-else", "custom_handler": OfflineLLM()}
    monkeypatch.setattr(litellm, "custom_provider_map", [other])
    register_offline_provider()
    register_offline_provider()
    providers = [e["provider"] for e in litellm.custom_provider_map]
    assert providers == ["someone-else", "offline"]
    assert LLMClient("offline/anything").complete("hi").text.startswith("offline model")


def test_bytes_that_were_not_utf8_reach_the_model_escaped_not_as_an_error(counted_calls):
    # a test's output read with surrogateescape holds b'\xff' as '\udcff': litellm cannot encode it,
    # and the call failed three times as "transient"; the byte is now written as its escape
    answer = LLMClient().complete("the runner printed b'\udcff' and \ud800 here")
    assert answer.text
    sent = counted_calls[0]["messages"][-1]["content"]
    assert sent == "the runner printed b'\\xff' and \\ud800 here"
    sent.encode("utf-8")
