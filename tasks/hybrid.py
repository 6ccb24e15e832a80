"""HYBRID tasks: two commits of one repo (a bug fix and a feature, say) merged into one task.

The pair must touch different source files and its combined reversal must apply cleanly to
the later commit; otherwise HYBRID falls back to a single commit (see generate.py).
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import git

from records import Task
from sandbox import PatchError, apply_patch, export_tree
from tasks.mining import Candidate, diff_text, instance_prefix
from tasks.strategy import Strategy

PARTNER_KIND = {"bug_fix": "feature_add", "feature_add": "bug_fix", "refactor": "bug_fix"}


def hybrid_partner(candidate: Candidate, candidates: list[Candidate]) -> Candidate | None:
    """The nearest-in-history commit of the same repo, of the complementary kind, touching
    other source files, whose combination with `candidate` applies cleanly."""
    wanted = PARTNER_KIND.get(candidate.kind)
    order = [c.sha for c in candidates]
    if candidate.sha not in order:
        return None
    here = order.index(candidate.sha)
    pool = [
        c
        for c in candidates
        if c.kind == wanted and c.sha != candidate.sha and not set(c.source_files) & set(candidate.source_files)
    ]
    for partner in sorted(pool, key=lambda c: (abs(order.index(c.sha) - here), order.index(c.sha))):
        first, later = _in_history_order(candidate, partner, order)
        if _applies(later.repo_path, later.sha, _reverse_patches(later, first)):
            return partner
    return None


def _in_history_order(a: Candidate, b: Candidate, order: list[str]) -> tuple[Candidate, Candidate]:
    return (a, b) if order.index(a.sha) < order.index(b.sha) else (b, a)


def _reverse_patches(*commits: Candidate) -> str:
    # newest first: undoing the later change before the earlier one keeps a file both touched
    # (a changelog, say) applicable
    repo = git.Repo(commits[0].repo_path)
    return "".join(diff_text(repo, c.sha, c.parent, c.fix_paths) for c in commits)


def _forward_patches(*commits: Candidate) -> str:
    repo = git.Repo(commits[0].repo_path)
    return "".join(diff_text(repo, c.parent, c.sha, c.fix_paths) for c in commits)


def _applies(repo_path: str, commit: str, patch: str) -> bool:
    with tempfile.TemporaryDirectory(prefix="sebgen-hybrid-") as tmp:
        tree = export_tree(Path(repo_path), commit, Path(tmp) / "tree")
        try:
            apply_patch(tree, patch)
        except PatchError:
            return False
    return True


def merge_candidates(a: Candidate, b: Candidate) -> Candidate:
    """One candidate standing for both commits: the later commit's state, both messages."""
    order = [a.sha, b.sha] if a.created_at <= b.created_at else [b.sha, a.sha]
    first, later = (a, b) if order[0] == a.sha else (b, a)
    return Candidate(
        repo=a.repo,
        repo_path=a.repo_path,
        sha=later.sha,
        parent=first.parent,
        subject=f"{first.subject}; {later.subject}",
        body=f"{first.body}\n\n{later.body}".strip(),
        created_at=later.created_at,
        source_files=sorted(set(a.source_files) | set(b.source_files)),
        fix_files=sorted(set(a.fix_paths) | set(b.fix_paths)),
        test_files=sorted(set(a.test_files) | set(b.test_files)),
        kind="hybrid",
        added_functions=a.added_functions + b.added_functions,
        touched_functions=list(dict.fromkeys(a.touched_functions + b.touched_functions)),
    )


def hybrid_skeleton(a: Candidate, b: Candidate, merged: Candidate, strategy: Strategy) -> Task:
    """bug_patch = both source changes reversed, patch = both forward, test_patch = the test
    changes from before the first commit to the later one (one valid diff even when both
    commits touch the same test file), base_commit = the later commit."""
    first, later = (a, b) if merged.parent == a.parent else (b, a)
    repo = git.Repo(merged.repo_path)
    return Task(
        instance_id=f"{instance_prefix(merged.repo)}__hybrid-{first.sha[:8]}-{later.sha[:8]}-{strategy.id[:6]}",
        repo=merged.repo,
        base_commit=later.sha,
        patch=_forward_patches(first, later),
        test_patch=diff_text(repo, first.parent, later.sha, merged.test_files),
        bug_patch=_reverse_patches(later, first),
        problem_statement="",
        strategy_type=strategy.strategy_type.value,
        strategy_id=strategy.id,
        created_at=later.created_at,
        repo_path=merged.repo_path,
        generation={
            "touched_functions": merged.touched_functions,
            "source_commit_subject": merged.subject,
            "combined_commits": [first.sha, later.sha],
        },
    )
