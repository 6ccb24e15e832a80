"""Agents that attempt tasks, and running their attempts in the sandbox.

An agent sees the task's agent state (base_commit + bug_patch, tests withheld) and returns a
unified diff, or None when it has nothing. Built-ins: nop, oracle, random, llm:<model>.
"""

from __future__ import annotations

import difflib
import hashlib
import random
import re
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Protocol

from harness.metrics import TaskResult, attempt_report
from records import Task, UserError


class AgentError(UserError):
    pass


class Agent(Protocol):
    name: str

    def propose(self, task: Task, attempt: int) -> str | None: ...


def buggy_sources(task: Task, paths: Iterable[str]) -> dict[str, str]:
    """The given files as the agent sees them: base_commit with the bug patch applied."""
    from sandbox import prepare_tree

    with tempfile.TemporaryDirectory(prefix="sebgen-agent-") as tmp:
        tree = prepare_tree(Path(task.repo_path), task.base_commit, [task.bug_patch], Path(tmp) / "tree")
        return {p: (tree / p).read_text(encoding="utf-8") for p in paths if (tree / p).is_file()}


def unified_diff(path: str, before: str, after: str) -> str:
    lines = difflib.unified_diff(
        before.splitlines(keepends=True), after.splitlines(keepends=True), fromfile=f"a/{path}", tofile=f"b/{path}"
    )
    return "".join(lines)


class NopAgent:
    name = "nop"
    trusted = True  # SEBGen's own: its patches need no protection from the host

    def propose(self, task: Task, attempt: int) -> str | None:
        return ""


class OracleAgent:
    name = "oracle"
    trusted = True

    def propose(self, task: Task, attempt: int) -> str | None:
        return task.patch


class RandomAgent:
    """Replaces or deletes one seeded random line of a file the gold patch touches."""

    name = "random"
    trusted = True

    def __init__(self, seed: int = 0):
        self.seed = seed

    def propose(self, task: Task, attempt: int) -> str | None:
        from tasks import changed_python_files

        rng = random.Random(int(hashlib.sha256(f"{self.seed}:{task.instance_id}:{attempt}".encode()).hexdigest(), 16))
        sources = buggy_sources(task, changed_python_files(task.patch))
        if not sources:
            return ""
        path = rng.choice(sorted(sources))
        lines = sources[path].splitlines(keepends=True)
        candidates = [i for i, line in enumerate(lines) if line.strip() and not line.lstrip().startswith("#")]
        if not candidates:
            return ""
        index = rng.choice(candidates)
        if rng.random() < 0.5:
            indent = lines[index][: len(lines[index]) - len(lines[index].lstrip())]
            lines[index] = f"{indent}_ = None  # line replaced by the random agent\n"
        else:
            del lines[index]
        return unified_diff(path, sources[path], "".join(lines))


DIFF_BLOCK = re.compile(r"```(?:diff|patch)?\s*\n(.*?)```", re.S)


def extract_diff(text: str) -> str:
    """The first ```diff block of a model answer, or the raw text when it already is a diff."""
    match = DIFF_BLOCK.search(text or "")
    if match:
        return match.group(1)
    return text if (text or "").lstrip().startswith(("diff --git", "--- ")) else ""


class LLMAgent:
    """One shot: statement and the touched source files in, a unified diff out."""

    def __init__(self, model: str, temperature: float = 0.0, max_tokens: int = 2048, llm=None):
        from llm import LLMClient

        self.name = f"llm:{model}"
        self.llm = llm or LLMClient(model)
        self.temperature = temperature
        self.max_tokens = max_tokens

    def prompt(self, task: Task) -> str:
        from tasks import changed_python_files

        files = buggy_sources(task, changed_python_files(task.patch))
        shown = "\n\n".join(f"### {path}\n```python\n{text}```" for path, text in sorted(files.items()))
        return (
            f"Fix the issue below in this repository.\n\n## Issue\n{task.problem_statement}\n\n"
            f"## Source files\n{shown}\n\nAnswer with one unified diff (paths a/... b/...) "
            f"inside a ```diff block and nothing else."
        )

    def propose(self, task: Task, attempt: int) -> str | None:
        # attempts after the first sample, so pass@k can differ from pass@1
        temperature = self.temperature if attempt == 0 else max(self.temperature, 0.7)
        answer = self.llm.complete(self.prompt(task), temperature=temperature, max_tokens=self.max_tokens)
        return extract_diff(answer.text)


def make_agent(name: str, seed: int = 0) -> Agent:
    if name == "nop":
        return NopAgent()
    if name == "oracle":
        return OracleAgent()
    if name == "random":
        return RandomAgent(seed)
    if name.startswith("llm:") and len(name) > 4:
        return LLMAgent(name[4:])
    raise AgentError(f"unknown agent {name!r}; choose nop, oracle, random or llm:<model>")


def agent_predictions(agent: Agent, tasks: list[Task], attempts: int) -> dict[str, list[str | None]]:
    return {t.instance_id: [agent.propose(t, a) for a in range(attempts)] for t in tasks}


def run_attempt(backend, task: Task, patch: str | None, untrusted: bool = True) -> dict:
    """Verify one patch the way every attempt is verified (sandbox.run_attempt): the agent state,
    the patch, tests and test configuration put back, the supervised run."""
    from sandbox import PatchError
    from sandbox import run_attempt as sandbox_attempt
    from tasks import test_files_of

    if not patch or not patch.strip():  # nothing to verify: no patch never resolves
        return attempt_report(task.FAIL_TO_PASS, task.PASS_TO_PASS, patch, False, None)
    try:
        run = sandbox_attempt(
            backend,
            Path(task.repo_path),
            task.base_commit,
            task.bug_patch,
            task.test_patch,
            patch or "",
            test_files_of(task.test_patch) or None,
            untrusted=untrusted,
        )
    except PatchError as exc:
        return attempt_report(task.FAIL_TO_PASS, task.PASS_TO_PASS, patch, False, None, apply_error=str(exc))
    return attempt_report(task.FAIL_TO_PASS, task.PASS_TO_PASS, patch, bool(patch), run.outcomes, run=run)


def evaluate_predictions(
    tasks: list[Task],
    predictions: dict[str, list[str | None]],
    backend,
    progress: Callable[[Task, dict], None] | None = None,
    untrusted: bool = True,
) -> list[TaskResult]:
    """Every attempt of every task in the sandbox; a task without predictions gets one None attempt.
    `untrusted=False` only for SEBGen's own agents (nop, oracle, random)."""
    results = []
    for task in tasks:
        if not task.repo_path or not Path(task.repo_path).is_dir():
            raise AgentError(f"task {task.instance_id}: its repo_path {task.repo_path!r} is not on this machine")
        result = TaskResult(task.instance_id, task.created_at[:7], task.difficulty, task.difficulty_level)
        for patch in predictions.get(task.instance_id) or [None]:
            report = run_attempt(backend, task, patch, untrusted=untrusted)
            result.attempts.append(report)
            if progress:
                progress(task, report)
        results.append(result)
    return results
