"""The archive feeds evolution: top-3 similar successes in generation prompts, novelty in fitness."""

import os

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("HF_HUB_OFFLINE", "1")


import pytest

from archive import Archive
from corpus.builder import ensure_corpus
from environment import make_sandbox
from llm.client import LLMClient
from sandbox import Limits
from tasks.generate import Generator
from tasks.mining import mine
from tasks.strategy import SEED_PROMPTS, Strategy, StrategyType
from tasks.validate import Validator


class RecordingClient(LLMClient):
    """The real offline client, keeping the prompts it was sent."""

    def __init__(self):
        super().__init__()
        self.prompts: list[str] = []

    def _complete_messages(self, messages, **kwargs):
        self.prompts.append(messages[-1]["content"])
        return super()._complete_messages(messages, **kwargs)


@pytest.fixture(scope="module")
def setting(tmp_path_factory):
    repos = ensure_corpus(tmp_path_factory.mktemp("corpus") / "c")
    candidates = [c for r in repos for c in mine(r).candidates if c.kind == "bug_fix"]
    archive = Archive.open(tmp_path_factory.mktemp("arc") / "archive")
    return candidates, archive


def archived(i: int, statement: str, passed: bool) -> dict:
    return {
        "instance_id": f"old-{i}",
        "problem_statement": statement,
        "patch": "",
        "strategy_type": "BUG_FIX",
        "strategy_id": "s",
        "difficulty": 0.3,
        "difficulty_level": "easy",
        "domain": "math",
        "skills": [],
        "passed": passed,
    }


def test_generation_prompt_holds_the_top3_similar_successes(setting):
    candidates, archive = setting
    candidate = candidates[0]
    successes = [f"Report {i}: {candidate.subject} misbehaves when called with edge values" for i in range(4)]
    failure = f"FAILED TASK: {candidate.subject} is broken"
    archive.add_tasks([archived(i, s, True) for i, s in enumerate(successes)] + [archived(9, failure, False)], 1)
    llm = RecordingClient()
    generator = Generator(
        llm=llm,
        validator=Validator(
            backend=make_sandbox("local", limits=Limits(timeout_s=60)), llm=llm, archive=archive, reruns=1
        ),
        archive=archive,
    )
    task = generator.generate(candidate, Strategy(StrategyType.BUG_FIX, SEED_PROMPTS[StrategyType.BUG_FIX][-1]))
    writer_prompts = [p for p in llm.prompts if '"task": "write_statement"' in p]
    assert writer_prompts, task.validation
    prompt = writer_prompts[0]
    section = prompt.split("## Similar successful tasks from the archive", 1)[1].split("## Failing tests")[0]
    assert sum(s in section for s in successes) == 3  # top 3, not all 4
    assert failure not in section  # successes only
    assert task.generation["examples"] == 3


def test_novelty_of_kept_tasks_comes_from_the_archive(setting):
    candidates, archive = setting
    statement = archive.query(passed=True, limit=1)[0]["problem_statement"]
    paraphrase = statement.replace("misbehaves", "goes wrong")
    unrelated = "The HTML renderer draws tables with the wrong border colour in dark mode."
    near, far = archive.novelty([paraphrase, unrelated])
    assert near < far
