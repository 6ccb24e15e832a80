"""Reading a repository's history in one pass: every commit, its parents, message and changed
files, and the pull request (merge commit) that brought each commit into the branch.

Real projects merge pull requests: the commits that carry a fix sit on the merged branch, and
only the merge commit's message names the pull request. One `git log` call lists the whole
window (merges with their change against the first parent), and ancestor sets held as integer
bitsets tell, for every merge, which commits it brought in: ancestors of its second parent
that are not ancestors of its first.
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass, field

import git

MERGE_PR = re.compile(r"^Merge pull request #(\d+) from \S+")
MERGE_LINE = re.compile(r"^Merge\b")
TRAILING_NUMBER = re.compile(r"\s*\((?:#|!)(\d+)\)\s*$")
ISSUE_REF = re.compile(r"(?:(?<![\w/#&])#|/issues/|/pull/)(\d+)\b")
MERGE_REQUEST_TRAILER = re.compile(r"^See merge request \S+$", re.M)


@dataclass
class CommitRecord:
    sha: str
    parents: list[str]
    committed: int  # unix time
    message: str
    files: list[str] = field(default_factory=list)  # for a merge: changed against its first parent

    @property
    def is_merge(self) -> bool:
        return len(self.parents) > 1

    @property
    def subject(self) -> str:
        return self.message.strip().partition("\n")[0].strip()

    @property
    def body(self) -> str:
        return self.message.strip().partition("\n")[2].strip()


@dataclass(frozen=True)
class PullRequest:
    """What a merge commit says about the change it merged."""

    merge: str  # sha of the merge commit
    number: str
    title: str
    body: str


def walk(repo: git.Repo, *revisions: str, max_count: int | None = None) -> list[CommitRecord]:
    """Commits of `revisions` (default HEAD), oldest first, parents before children."""
    # A commit message may hold any byte, control characters too: separators carry a token drawn
    # per call, so that no message can split a record.
    token = secrets.token_hex(8)
    record_mark, field_mark, end_mark = (f"{c}{token}{c}" for c in ("\x01", "\x02", "\x03"))
    log_format = f"{record_mark}%H %P{field_mark}%ct{field_mark}%B{end_mark}"
    args = ["--date-order", "--name-only", "--no-renames", "--diff-merges=first-parent", f"--format={log_format}"]
    if max_count:
        args.append(f"--max-count={max_count}")
    text = repo.git.execute(
        ["git", "-c", "core.quotePath=false", "log", *args, *(revisions or ("HEAD",)), "--"],
        strip_newline_in_stdout=False,
    )
    records = []
    for chunk in text.split(record_mark)[1:]:
        head, _, rest = chunk.partition(end_mark)
        ids, committed, message = head.split(field_mark, 2)
        sha, *parents = ids.split()
        files = [line for line in rest.splitlines() if line.strip()]
        records.append(CommitRecord(sha, parents, int(committed), message, files))
    return records[::-1]


def first_parent_chain(repo: git.Repo, revision: str = "HEAD") -> set[str]:
    return set(repo.git.rev_list("--first-parent", revision).split())


def pull_request_of(record: CommitRecord) -> PullRequest | None:
    """The pull request a merge commit's message describes, or None for a bare
    "Merge branch 'x'" whose message says nothing about the change.

    GitHub's merge button writes "Merge pull request #N from owner/branch" and the title and
    description below it; GitLab writes "Merge branch 'x' into 'y'" with the title below; merge
    queues and custom tools write the title itself, often ending in "(#N)"."""
    subject, body = record.subject, record.body
    body = MERGE_REQUEST_TRAILER.sub("", body).strip()
    numbered = MERGE_PR.match(subject)
    if MERGE_LINE.match(subject):
        if not body:
            return None
        title, _, rest = body.partition("\n")
        number = numbered.group(1) if numbered else trailing_number(title)
        return PullRequest(record.sha, number, TRAILING_NUMBER.sub("", title).strip(), rest.strip())
    return PullRequest(record.sha, trailing_number(subject), TRAILING_NUMBER.sub("", subject).strip(), body)


def trailing_number(text: str) -> str:
    found = TRAILING_NUMBER.search(text)
    return found.group(1) if found else ""


class History:
    """The commits of a window and their ancestor sets (bit i = the window's i-th commit)."""

    def __init__(self, records: list[CommitRecord]):
        self.records = records
        self.index = {r.sha: i for i, r in enumerate(records)}
        self.ancestors: list[int] = []
        for i, record in enumerate(records):  # parents come first
            bits = 1 << i
            for parent in record.parents:
                if parent in self.index:
                    bits |= self.ancestors[self.index[parent]]
            self.ancestors.append(bits)

    def brought_in(self, merge: str) -> list[str]:
        """The commits a merge brought into its first parent's line, oldest first."""
        first, second = (self.index.get(p) for p in self.records[self.index[merge]].parents[:2])
        if second is None:
            return []
        brought = self.ancestors[second] & ~(self.ancestors[first] if first is not None else 0)
        return [self.records[i].sha for i in _set_bits(brought)]

    def merged_by(self) -> dict[str, PullRequest]:
        """For every commit that came in through a merge describing a pull request: the
        innermost such merge (a pull request merged into a maintenance branch that was merged
        later still reads as that pull request)."""
        owners: dict[str, tuple[int, PullRequest]] = {}
        for record in self.records:
            pull = pull_request_of(record) if record.is_merge else None
            if pull is None:
                continue
            shas = self.brought_in(record.sha)
            for sha in shas:
                if sha not in owners or len(shas) < owners[sha][0]:
                    owners[sha] = (len(shas), pull)
        return {sha: pull for sha, (_, pull) in owners.items()}


def _set_bits(value: int):
    while value:
        low = value & -value
        yield low.bit_length() - 1
        value ^= low


def referenced_issues(*texts: str, exclude: str = "") -> list[str]:
    """Issue and pull-request numbers a text refers to ("#12", ".../issues/12"), in order."""
    found = []
    for text in texts:
        for number in ISSUE_REF.findall(text or ""):
            ref = f"#{number}"
            if number != exclude and ref not in found:
                found.append(ref)
    return found
