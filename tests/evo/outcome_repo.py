"""A tiny project with named commits of every outcome, for the `sebgen generate` outcome tests:
three well-tested fixes, one fix whose test checks a single value, a feature ("Add
__contains__ ..."), and a commit that changes only tests."""

from __future__ import annotations

import subprocess
from pathlib import Path

BASE = {
    "shelf/__init__.py": "",
    "shelf/calc.py": '''"""Small numeric and text helpers."""


def clamp(x, lo, hi):
    """x limited to the range lo..hi."""
    return max(lo, x)


def mean(values):
    """The arithmetic mean of values (0.0 for no values)."""
    return sum(values) / len(values)


def slug(text):
    """A URL slug: lower case words joined by dashes."""
    return text.lower().replace(" ", "-")


def percent(part, whole):
    """part as a percentage of whole."""
    return part / whole * 10
''',
    "shelf/bag.py": '''"""A multiset."""


class Bag:
    def __init__(self, items=()):
        self._counts = {}
        for item in items:
            self.add(item)

    def add(self, item, n=1):
        self._counts[item] = self._counts.get(item, 0) + n

    def count(self, item):
        return self._counts.get(item, 0)
''',
    "tests/__init__.py": "",
    "tests/test_calc.py": """from shelf.calc import clamp, mean, percent, slug


def test_clamp_inside():
    assert clamp(1, 0, 3) == 1


def test_mean_of_values():
    assert mean([1, 2, 3]) == 2


def test_slug_of_one_word():
    assert slug("Hello") == "hello"


def test_percent_of_zero():
    assert percent(0, 5) == 0
""",
    "tests/test_bag.py": """from shelf.bag import Bag


def test_count():
    bag = Bag(["a", "a", "b"])
    assert bag.count("a") == 2
    assert bag.count("z") == 0
""",
}

# (file, old, new) source edits and the tests each fix adds
FIXES = [
    (
        "Fix clamp ignoring the upper bound",
        ("shelf/calc.py", "    return max(lo, x)\n", "    return max(lo, min(x, hi))\n"),
        """

def test_clamp_caps_at_the_upper_bound():
    assert clamp(1, 0, 3) == 1
    assert clamp(0, 0, 3) == 0
    assert clamp(5, 0, 3) == 3


def test_clamp_caps_negative_ranges():
    assert clamp(-3, -5, -1) == -3
    assert clamp(-5, -5, -1) == -5
    assert clamp(0, -5, -1) == -1
""",
    ),
    (
        "Fix mean of an empty list raising ZeroDivisionError",
        (
            "shelf/calc.py",
            "    return sum(values) / len(values)\n",
            "    return sum(values) / len(values) if values else 0.0\n",
        ),
        """

def test_mean_of_no_values_is_zero():
    assert mean([2]) == 2
    assert mean([1, 3]) == 2
    assert mean([]) == 0.0


def test_mean_of_an_empty_tuple_is_zero():
    assert mean((4,)) == 4
    assert mean((2, 4)) == 3
    assert mean(()) == 0.0
""",
    ),
    (
        "Fix slug keeping surrounding and repeated spaces",
        ("shelf/calc.py", '    return text.lower().replace(" ", "-")\n', '    return "-".join(text.lower().split())\n'),
        """

def test_slug_drops_surrounding_spaces():
    assert slug("a") == "a"
    assert slug("A b") == "a-b"
    assert slug(" a b ") == "a-b"


def test_slug_collapses_repeated_spaces():
    assert slug("x") == "x"
    assert slug("X y") == "x-y"
    assert slug("x   y") == "x-y"
""",
    ),
    (
        "Fix percent scale",
        ("shelf/calc.py", "    return part / whole * 10\n", "    return part / whole * 100\n"),
        """

def test_percent_scale():
    assert percent(1, 4) == 25
""",
    ),
]

FEATURE = (
    "Add __contains__ to Bag so that `in` works",
    (
        "shelf/bag.py",
        "    def count(self, item):\n",
        "    def __contains__(self, item):\n        return item in self._counts\n\n    def count(self, item):\n",
    ),
    (
        "tests/test_bag.py",
        """

def test_contains():
    bag = Bag(["a"])
    assert "a" in bag
    assert "b" not in bag
""",
    ),
)


def git(repo: Path, *args: str, day: int = 1) -> str:
    stamp = f"2024-02-{day:02d}T12:00:00+00:00"
    env = {
        "GIT_AUTHOR_DATE": stamp,
        "GIT_COMMITTER_DATE": stamp,
        "GIT_AUTHOR_NAME": "Dev",
        "GIT_AUTHOR_EMAIL": "dev@example.com",
        "GIT_COMMITTER_NAME": "Dev",
        "GIT_COMMITTER_EMAIL": "dev@example.com",
        "PATH": "/usr/bin:/bin:/usr/local/bin",
        "HOME": str(repo),
    }
    return subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True, text=True).stdout.strip()


def _commit(repo: Path, message: str, day: int) -> str:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message, day=day)
    return git(repo, "rev-parse", "HEAD")


def build(repo: Path) -> dict[str, str]:
    """Create the project at `repo`; returns {label: sha} for fix1..fix3, weak, feature, tests_only."""
    repo.mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main")
    for name, text in BASE.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text)
    shas = {"root": _commit(repo, "Initial version of shelf with its helpers and tests", 1)}
    for i, (subject, (path, old, new), tests) in enumerate(FIXES, start=1):
        source = (repo / path).read_text()
        assert old in source, subject
        (repo / path).write_text(source.replace(old, new))
        with open(repo / "tests" / "test_calc.py", "a") as fh:
            fh.write(tests)
        shas["weak" if i == len(FIXES) else f"fix{i}"] = _commit(repo, subject, 1 + i)
    subject, (path, old, new), (test_path, tests) = FEATURE
    (repo / path).write_text((repo / path).read_text().replace(old, new))
    with open(repo / test_path, "a") as fh:
        fh.write(tests)
    shas["feature"] = _commit(repo, subject, 10)
    with open(repo / "tests" / "test_calc.py", "a") as fh:
        fh.write("\n\ndef test_clamp_at_equal_bounds():\n    assert clamp(7, 2, 2) == 2\n")
    shas["tests_only"] = _commit(repo, "Test clamp with equal bounds as well", 11)
    return shas
