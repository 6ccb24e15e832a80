"""The evolution loop on canned execution: a workbench without corpus or sandbox, and the test's
own `evaluate_strategy` in place of the real one."""

from evo import loop as loop_module
from llm import LLMClient


class StubBench:
    """The workbench without corpus or sandbox: execution comes from the canned evaluation."""

    def __init__(self):
        self.llm, self.archive, self.candidates, self.generator = LLMClient(), None, [], None

    @classmethod
    def build(cls, *args, **kwargs):
        return cls()

    def use_archive(self, archive):
        self.archive = archive

    def close(self):
        pass


def use_canned_execution(monkeypatch, evaluate) -> None:
    """The loop builds a StubBench and evaluates each strategy with `evaluate` (same signature
    as `fitness.evaluate_strategy`)."""
    monkeypatch.setattr(loop_module, "Workbench", StubBench)
    monkeypatch.setattr(loop_module, "evaluate_strategy", evaluate)
