"""Difficulty: a clearly easy task scores and levels below a clearly hard one."""

from tasks.difficulty import LEVELS, DifficultyInput, difficulty

EASY_SOURCE = "def inc(x):\n    return x + 1\n"
EASY_PATCH = """--- a/m.py
+++ b/m.py
@@ -1,2 +1,2 @@
 def inc(x):
-    return x + 2
+    return x + 1
"""


def hard_source(name: str) -> str:
    body = "".join(
        f"    if x == {i}:\n        for y in range(x):\n            if y and x or y:\n                x += y\n"
        for i in range(6)
    )
    return f"def {name}(x):\n{body}    return x\n"


def hard_patch(files: int = 4, hunks: int = 3) -> str:
    out = []
    for f in range(files):
        out.append(f"--- a/pkg/m{f}.py\n+++ b/pkg/m{f}.py\n")
        for h in range(hunks):
            start = 1 + 20 * h
            out.append(
                f"@@ -{start},4 +{start},6 @@\n context\n-old_{h}\n-old2_{h}\n"
                f"+new_{h}\n+new2_{h}\n+new3_{h}\n+new4_{h}\n context\n"
            )
    return "".join(out)


def test_easy_task_scores_lower_and_levels_lower_than_a_hard_one():
    easy = DifficultyInput(
        patch=EASY_PATCH,
        touched_sources={"m.py": EASY_SOURCE},
        touched_functions=["inc"],
        f2p_count=1,
        statement="inc adds two instead of one.",
    )
    sources = {f"pkg/m{i}.py": hard_source(f"f{i}") for i in range(4)}
    hard = DifficultyInput(
        patch=hard_patch(),
        touched_sources=sources,
        touched_functions=[f"f{i}" for i in range(4)],
        f2p_count=6,
        statement=" ".join(["word"] * 200),
    )
    easy_score, easy_level, easy_raw = difficulty(easy)
    hard_score, hard_level, hard_raw = difficulty(hard)
    order = [name for _, name in LEVELS]
    assert easy_score < hard_score
    assert order.index(easy_level) < order.index(hard_level)
    assert (easy_level, hard_level) == ("easy", "hard")
    assert easy_raw["hunks"] == 1 and hard_raw["hunks"] == 12 and hard_raw["files"] == 4
    assert hard_raw["complexity"] > easy_raw["complexity"] == 1
