"""Paid answers are replayed within a run and after a resume, never paid twice."""

import json

from llm.client import LLMClient


def client(tmp_path, answer='{"problem_statement": "x"}'):
    return LLMClient("openai/gpt-4o-mini", mock_response=answer, replay_dir=tmp_path / "replay")


def test_identical_request_is_answered_once(tmp_path):
    first = client(tmp_path)
    a = first.complete("same prompt", temperature=0.3)
    b = first.complete("same prompt", temperature=0.3)
    c = first.complete("same prompt", temperature=0.9)  # other sampling: another request
    assert a == b and first.replayed == 1
    assert c.text == a.text and first.replayed == 1
    assert first.usage.calls == 3  # what the run consumed, paid or replayed


def test_a_new_process_replays_what_an_earlier_one_paid_for(tmp_path):
    client(tmp_path, answer='{"v": 1}').complete("prompt")
    later = client(tmp_path, answer='{"v": 2}')  # a different live answer would now come back
    assert json.loads(later.complete("prompt").text) == {"v": 1}
    assert later.replayed == 1


def test_a_torn_line_is_skipped(tmp_path):
    client(tmp_path).complete("prompt")
    log = next((tmp_path / "replay").glob("*.jsonl"))
    log.write_text(log.read_text() + '{"key": "abc", "completion": {"te')
    later = client(tmp_path)
    later.complete("prompt")
    assert later.replayed == 1
