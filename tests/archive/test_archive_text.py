from archive.text import patch_summary, task_text, text_hash

DIFF = """diff --git a/pkg/dates.py b/pkg/dates.py
--- a/pkg/dates.py
+++ b/pkg/dates.py
@@ -10,7 +10,8 @@ def parse_iso(text):
-    return datetime.strptime(text, FMT)
+    text = text.replace("Z", "+00:00")
+    return datetime.fromisoformat(text)
diff --git a/pkg/util.py b/pkg/util.py
--- a/pkg/util.py
+++ b/pkg/util.py
@@ -1,3 +1,4 @@ class Clock:
+import time
"""


def test_patch_summary_names_files_counts_and_functions():
    summary = patch_summary(DIFF)
    assert "pkg/dates.py (+2 -1)" in summary
    assert "pkg/util.py (+1 -0)" in summary
    assert "Functions: parse_iso, Clock" in summary


def test_patch_summary_of_nothing_is_empty():
    assert patch_summary("") == ""
    assert patch_summary("   \n") == ""


def test_task_text_joins_statement_and_patch_summary():
    text = task_text({"problem_statement": "  Dates break.  ", "patch": DIFF})
    assert text.startswith("Dates break.\n\nFiles: pkg/dates.py")


def test_task_text_falls_back_to_bug_patch_and_to_statement_alone():
    assert "pkg/dates.py" in task_text({"problem_statement": "x", "bug_patch": DIFF})
    assert task_text({"problem_statement": "Only words."}) == "Only words."


def test_text_hash_is_sha256_hex():
    assert text_hash("a") == "ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb"
