"""Turning one candidate commit into one validated task with one strategy.

SWE-gen's reversed baseline: `base_commit` is the fixing commit (its tests pass), `patch` is
its source change (the gold fix), `bug_patch` is that change reversed (what the agent sees),
and `test_patch` is its test change (withheld until verification). Execution comes first
(compile, functional), so no LLM call is paid for a commit whose tests prove nothing; then
the strategy's prompt asks the LLM for the problem statement, and the judges look at it.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass, field
from pathlib import Path

import git

from llm import LLMClient, LLMError
from records import LayerResult, Task
from sandbox import shown_name
from tasks.difficulty import DifficultyInput, difficulty
from tasks.evidence import file_at
from tasks.hybrid import hybrid_partner, hybrid_skeleton, merge_candidates
from tasks.mining import Candidate, diff_text, instance_prefix, mine
from tasks.prompt import generation_prompt, render_instructions
from tasks.reproduction import check_reproductions, mark_held_tests
from tasks.selection import order_candidates
from tasks.skills import tag
from tasks.statement import repo_context, statement_context
from tasks.strategy import GENES, Strategy, StrategyType
from tasks.validate import Validator, check_compile, check_functional_layer, check_quality, check_schema, check_semantic

# Which mined commits each strategy takes (its contract's first clause).
KINDS_FOR: dict[StrategyType, tuple[str, ...]] = {
    StrategyType.BUG_FIX: ("bug_fix",),
    StrategyType.FEATURE_ADD: ("feature_add",),
    StrategyType.REFACTOR: ("refactor",),
    StrategyType.TEST_DRIVEN: ("bug_fix", "feature_add"),
    StrategyType.HYBRID: ("bug_fix", "feature_add", "refactor"),
    StrategyType.SYNTHETIC: (),  # procedural bugs at HEAD: no commit is a candidate
}


@dataclass
class Generator:
    llm: LLMClient
    validator: Validator
    archive: object | None = None
    layers: tuple[str, ...] = ("schema", "compile", "functional", "quality", "semantic")
    mined: dict = field(default_factory=dict, repr=False)  # repo path -> candidates, for HYBRID partners
    check_reproductions: bool = False  # run the statement's blocks on both states (config: fitness.check_reproductions)

    def generate(self, candidate: Candidate, strategy: Strategy) -> Task:
        if strategy.strategy_type == StrategyType.HYBRID:
            partner = hybrid_partner(candidate, self._candidates_of(candidate.repo_path))
            if partner is not None:
                merged = merge_candidates(candidate, partner)
                return self.complete(hybrid_skeleton(candidate, partner, merged, strategy), merged, strategy)
        # every other strategy, and HYBRID without a clean partner: one commit (its prompt
        # then asks for a statement combining a bug report and a specification)
        return self.complete(skeleton(candidate, strategy), candidate, strategy)

    def _candidates_of(self, repo_path: str) -> list[Candidate]:
        if repo_path not in self.mined:
            self.mined[repo_path] = mine(repo_path).candidates
        return self.mined[repo_path]

    def complete(self, task: Task, candidate: Candidate, strategy: Strategy) -> Task:
        """Validate a task skeleton by execution, write its statement, then judge it."""
        repo_path = Path(candidate.repo_path)
        for name, step in (
            ("schema", lambda: check_schema(task, require_f2p=False, require_statement=False)),
            ("compile", lambda: check_compile(task, repo_path)),
            ("functional", lambda: check_functional_layer(task, self.validator, repo_path)),
        ):
            if name in self.layers and not self._record(task, name, step()):
                return task
        checks = self.check_reproductions and "functional" in self.layers and bool(task.FAIL_TO_PASS)
        if checks:  # what the sandbox sees of a test that lacks only an import, before the writer counts it so
            mark_held_tests(task, self.validator.backend, repo_path)
        try:
            self.write_statement(task, candidate, strategy)
        except LLMError as exc:
            task.record("schema", LayerResult(False, 0.0, f"writer failed: {exc}", exc.category))
            return task
        if checks:
            task.reproduction = check_reproductions(task, self.validator.backend, repo_path)
        score_difficulty(task, candidate)
        steps = (
            ("schema", lambda: check_schema(task, require_f2p="functional" in self.layers)),
            ("quality", lambda: check_quality(task, self.validator)),
            ("semantic", lambda: check_semantic(task, self.validator)),
        )
        for name, step in steps:
            if name in self.layers and not self._record(task, name, step()):
                return task
        return task

    @staticmethod
    def _record(task: Task, name: str, result: LayerResult) -> bool:
        task.record(name, result)
        return result.passed

    def write_statement(self, task: Task, candidate: Candidate, strategy: Strategy) -> None:
        context, shown = writer_context(statement_context(task, candidate, strategy), strategy)
        examples = []
        if self.archive is not None:
            query = f"{candidate.subject}\n{candidate.body}"
            examples = [
                t["problem_statement"]
                for t in self.archive.similar_successes(query, k=3, strategy_type=strategy.strategy_type.value)
            ]
        context["examples"] = examples
        prompt = generation_prompt(
            instructions=strategy_instructions(strategy, candidate.repo),
            context=context,
            repo_context=repo_context(candidate),
            diff=task.patch if shown["fix"] else "",
            examples=examples,
        )
        data, completion = self.llm.complete_json(prompt, required_keys=("problem_statement",), **strategy.params)
        task.problem_statement = cap_words(str(data.get("problem_statement", "")).strip(), shown["max_words"])
        task.hints_text = str(data.get("hints_text", "") or "").strip()
        task.generation.update(
            {
                "model": completion.model,
                "prompt_hash": hashlib.sha256(prompt.encode()).hexdigest()[:16],
                "prompt_tokens": completion.prompt_tokens,
                "completion_tokens": completion.completion_tokens,
                "cost_usd": completion.cost_usd,
                "examples": len(examples),
                "evidence": shown,
            }
        )


# ---------------------------------------------------------------- the evidence genes

CODE_LEVELS = ("names", "signatures", "all")  # evidence_code below 1/3, below 2/3, from 2/3


def code_level(value: float) -> str:
    return CODE_LEVELS[0 if value < 1 / 3 else 1 if value < 2 / 3 else 2]


def writer_context(context: dict, strategy: Strategy) -> tuple[dict, dict]:
    """The statement context (`tasks.statement.statement_context`) cut to the strategy's
    evidence genes, and what was shown.

    - `evidence_tests`: the first ceil(share x n) failing tests (at least one) are shown, and
      the failure evidence of those tests only.
    - `evidence_code`: "all" shows everything; "signatures" withholds the fix (its added lines
      and the diff of the change); "names" also reduces signatures to names and drops the lines
      the change adds to the failing tests.
    - `statement_words`: below its maximum, `max_words` is in the context and the statement
      is cut to it (`cap_words`).
    Neutral genes return the context unchanged."""
    g = strategy.genes
    out = dict(context)
    failing = [t for t in out.get("failing_tests") or [] if isinstance(t, dict)]
    keep = len(failing)
    if failing and g["evidence_tests"] < 1.0:
        keep = max(1, math.ceil(g["evidence_tests"] * len(failing) - 1e-9))
        out["failing_tests"] = failing[:keep]
        shown_ids = {str(t.get("id")) for t in failing[:keep]}
        if out.get("failures"):
            out["failures"] = [f for f in out["failures"] if f.test_id in shown_ids]
    level = code_level(g["evidence_code"])
    if level != "all":
        out["added_lines"] = []
    if level == "names":
        out["touched_functions"] = [
            {k: v for k, v in f.items() if k != "signature"} if isinstance(f, dict) else f
            for f in out.get("touched_functions") or []
        ]
        out["failing_tests"] = [
            {k: v for k, v in t.items() if k != "added_lines"} if isinstance(t, dict) else t
            for t in out.get("failing_tests") or []
        ]
    max_words = int(g["statement_words"]) if g["statement_words"] < GENES["statement_words"].high else None
    if max_words:
        out["max_words"] = max_words
    shown = {"tests": keep, "of_tests": len(failing), "code": level, "fix": level == "all", "max_words": max_words}
    return out, shown


def cap_words(statement: str, max_words: int | None) -> str:
    """The statement cut to `max_words` words at a paragraph boundary (the first paragraph is
    always kept, cut by words if it alone is too long; a code fence is never left open)."""
    if not max_words or len(statement.split()) <= max_words:
        return statement
    paragraphs = statement.split("\n\n")
    kept: list[str] = []
    words = 0
    for paragraph in paragraphs:
        n = len(paragraph.split())
        if kept and words + n > max_words:
            break
        kept.append(paragraph)
        words += n
    text = "\n\n".join(kept)
    if len(text.split()) > max_words:  # the first paragraph alone is over the limit
        text = " ".join(text.split()[:max_words])
    while text.count("```") % 2 and len(kept) > 1:
        kept.pop()
        text = "\n\n".join(kept)
    return text.strip()


TEST_DRIVEN_RULE = "List the failing tests by name."


def strategy_instructions(strategy: Strategy, repo: str) -> str:
    """The strategy's prompt, plus the clause its contract needs when an evolved prompt lost it:
    a TEST_DRIVEN statement must name the failing tests (docs/strategies.md)."""
    text = render_instructions(strategy.prompt, shown_name(repo))
    if strategy.strategy_type == StrategyType.TEST_DRIVEN and "failing test" not in text.lower():
        text = text.rstrip() + " " + TEST_DRIVEN_RULE
    return text


def pick_candidates(candidates: list[Candidate], strategy: Strategy | StrategyType | str) -> list[Candidate]:
    """The candidates a strategy takes: those of its type's kinds (all commits when none is of
    those kinds), in the order its selection genes prefer when a Strategy is given (a type
    alone keeps the order given). SYNTHETIC takes no commit."""
    stype = strategy.strategy_type if isinstance(strategy, Strategy) else StrategyType(strategy)
    if stype == StrategyType.SYNTHETIC:
        return []
    kinds = KINDS_FOR[stype]
    commits = [c for c in candidates if c.kind != MODULE_KIND]
    chosen = [c for c in commits if c.kind in kinds] or commits
    return order_candidates(chosen, strategy) if isinstance(strategy, Strategy) else chosen


MODULE_KIND = "module"  # a stand-in candidate naming a module SYNTHETIC may target (experiment splits)


def skeleton(candidate: Candidate, strategy: Strategy) -> Task:
    repo = git.Repo(candidate.repo_path)
    patch = diff_text(repo, candidate.parent, candidate.sha, candidate.fix_paths)
    return Task(
        instance_id=f"{instance_prefix(candidate.repo)}__{strategy.strategy_type.value.lower()}-{candidate.sha[:8]}-{strategy.id[:6]}",
        repo=candidate.repo,
        base_commit=candidate.sha,
        patch=patch,
        test_patch=diff_text(repo, candidate.parent, candidate.sha, candidate.test_files),
        bug_patch=diff_text(repo, candidate.sha, candidate.parent, candidate.fix_paths),
        problem_statement="",
        strategy_type=strategy.strategy_type.value,
        strategy_id=strategy.id,
        created_at=candidate.created_at,
        repo_path=candidate.repo_path,
        generation={"touched_functions": candidate.touched_functions, "source_commit_subject": candidate.subject},
    )


def score_difficulty(task: Task, candidate: Candidate) -> None:
    sources = {p: file_at(candidate.repo_path, candidate.sha, p) for p in candidate.source_files}
    task.difficulty, task.difficulty_level, metrics = difficulty(
        DifficultyInput(
            patch=task.patch,
            touched_sources=sources,
            touched_functions=candidate.touched_functions,
            f2p_count=len(task.FAIL_TO_PASS),
            statement=task.problem_statement,
            p2p_count=len(task.PASS_TO_PASS),
        )
    )
    task.domain, task.skills = tag(candidate.message, task.patch, candidate.touched_functions)
    task.generation["difficulty_metrics"] = metrics
