"""What an evidence producer (and the statement context) reads of the repository: a file at a commit."""

from __future__ import annotations

import git


def file_at(repo_path: str, sha: str, path: str) -> str:
    try:
        return git.Repo(repo_path).git.show(f"{sha}:{path}")
    except git.GitCommandError:
        return ""
