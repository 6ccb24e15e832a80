"""The local backend, the report plugin and check_functional on tiny git repos."""

from __future__ import annotations

import pytest

from environment import RecipeBook, detect_recipe
from sandbox import (
    Limits,
    LocalBackend,
    PatchError,
    SandboxError,
    TestRun,
    apply_patch,
    check_functional,
    export_tree,
    make_backend,
)
from sandbox.report import lacked_names, load_errors
from tests.sandbox_fixtures import CALC_TESTS, bug_task, calc_task, diff_for, git, make_repo

F2P = "tests/test_calc.py::test_add"
P2P = "tests/test_calc.py::test_sub"


@pytest.fixture
def backend(tmp_path):
    return LocalBackend(
        limits=Limits(timeout_s=60), cache_dir=tmp_path / "cache", recipe_for=detect_recipe, log=lambda m: None
    )


def test_export_tree_has_files_and_no_git_dir(tmp_path):
    repo, sha, _, _ = calc_task(tmp_path / "repo")
    dest = export_tree(repo, sha, tmp_path / "out")
    assert (dest / "calc.py").read_text().startswith("def add")
    assert (dest / "tests" / "test_calc.py").exists()
    assert not (dest / ".git").exists()


def test_apply_patch_applies_and_empty_patch_is_noop(tmp_path):
    repo, sha, bug, _ = calc_task(tmp_path / "repo")
    tree = export_tree(repo, sha, tmp_path / "out")
    apply_patch(tree, "")
    assert "a + b" in (tree / "calc.py").read_text()
    apply_patch(tree, bug)
    assert "return a - b\n\n\ndef sub" in (tree / "calc.py").read_text()


def test_patch_that_does_not_apply_raises_patch_error(tmp_path):
    repo, sha, bug, _ = calc_task(tmp_path / "repo")
    tree = export_tree(repo, sha, tmp_path / "out")
    apply_patch(tree, bug)
    with pytest.raises(PatchError, match="patch does not apply"):
        apply_patch(tree, bug)  # the same change a second time no longer matches


def test_run_tests_reports_exact_nodeids(backend, tmp_path):
    repo, sha, bug, _ = calc_task(tmp_path / "repo")
    run = backend.run_tests(repo, sha, [bug], ["tests/test_calc.py"])
    assert run.outcomes == {F2P: "failed", P2P: "passed"}
    assert run.exit_code == 1 and not run.timed_out and not run.broken
    assert run.image.startswith("venv-")


def test_a_run_says_where_its_time_went(backend, tmp_path):
    repo, sha, bug, _ = calc_task(tmp_path / "repo")
    run = backend.run_tests(repo, sha, [bug], ["tests/test_calc.py"])
    assert set(run.phases) == {"venv", "pytest", "cleanup", "checks", "pytest_cpu"}
    assert all(v >= 0 for v in run.phases.values())
    assert 0 < run.phases["pytest_cpu"] and run.phases["pytest"] <= run.duration_s


def test_whole_suite_runs_when_test_files_is_none(backend, tmp_path):
    repo, sha, _, _ = calc_task(tmp_path / "repo")
    run = backend.run_tests(repo, sha, (), None)
    assert run.outcomes == {F2P: "passed", P2P: "passed"}
    assert run.exit_code == 0


def test_check_functional_finds_fail_to_pass_and_pass_to_pass(backend, tmp_path):
    repo, sha, bug, gold = calc_task(tmp_path / "repo")
    res = check_functional(backend, repo, sha, bug, gold, ["tests/test_calc.py"], reruns=2)
    assert res.passed, res.reason
    assert res.fail_to_pass == [F2P]
    assert res.pass_to_pass == [P2P]
    assert res.flaky == []
    assert res.nop_resolved is False and res.oracle_resolved is True
    assert res.before == {F2P: "failed", P2P: "passed"}
    assert res.to_dict()["fail_to_pass"] == [F2P]


def test_gold_patch_that_does_not_apply_is_rejected(backend, tmp_path):
    repo, sha, bug, _ = calc_task(tmp_path / "repo")
    res = check_functional(backend, repo, sha, bug, bug, ["tests/test_calc.py"])
    assert not res.passed
    assert res.reason.startswith("gold patch does not apply")


def test_bug_that_no_test_catches_is_rejected(backend, tmp_path):
    repo, sha = make_repo(
        tmp_path / "repo",
        {
            "calc.py": "def add(a, b):\n    return a + b\n\n\nUNUSED = 1\n",
            "tests/test_calc.py": "from calc import add\n\n\ndef test_add():\n    assert add(1, 1) == 2\n",
        },
    )
    bug = diff_for(repo, {"calc.py": "def add(a, b):\n    return a + b\n\n\nUNUSED = 2\n"})
    res = check_functional(backend, repo, sha, bug, _reverse(bug), ["tests/test_calc.py"])
    assert not res.passed
    assert res.reason == (
        "no FAIL_TO_PASS test: every test of tests/test_calc.py already passes with bug_patch applied"
    )
    assert res.nop_resolved is True


def test_tests_skipped_in_both_states_are_reported_as_skipped_not_as_passing(backend, tmp_path):
    repo, sha = make_repo(
        tmp_path / "repo",
        {
            "calc.py": "def add(a, b):\n    return a + b\n",
            "tests/test_calc.py": (
                "import pytest\n\nfrom calc import add\n\n\n"
                "@pytest.mark.skip(reason='needs numpy')\ndef test_add():\n    assert add(1, 1) == 2\n\n\n"
                "def test_add_zero():\n    assert add(0, 0) == 0\n"
            ),
        },
    )
    bug = diff_for(repo, {"calc.py": "def add(a, b):\n    return a - b\n"})
    res = check_functional(backend, repo, sha, bug, _reverse(bug), ["tests/test_calc.py"])
    assert not res.passed
    assert res.reason == (
        "no FAIL_TO_PASS test: 1 test(s) of tests/test_calc.py skipped in both states (tests/test_calc.py::test_add): "
        "needs numpy; "
        "the other 1 already pass with bug_patch applied"
    )


def test_no_test_ran_quotes_the_error_that_kept_the_file_from_loading(backend, tmp_path):
    """A test module of an older Python's day: it imports a name the standard library no longer
    has, so no test runs in either state; the reason quotes the import error and says why."""
    collections = __import__("collections")
    if hasattr(collections, "MutableMapping"):
        pytest.skip("this Python still has collections.MutableMapping")
    repo, sha = make_repo(
        tmp_path / "repo",
        {
            "calc.py": "def add(a, b):\n    return a + b\n",
            "tests/test_calc.py": (
                "from collections import MutableMapping  # noqa: F401\n\nfrom calc import add\n\n\n"
                "def test_add():\n    assert add(1, 1) == 2\n"
            ),
        },
    )
    bug = diff_for(repo, {"calc.py": "def add(a, b):\n    return a - b\n"})
    res = check_functional(backend, repo, sha, bug, _reverse(bug), ["tests/test_calc.py"])
    assert not res.passed
    assert res.reason.startswith(
        "no test ran in tests/test_calc.py: tests/test_calc.py does not load: "
        "ImportError: cannot import name 'MutableMapping' from 'collections'"
    ), res.reason
    assert res.reason.endswith(
        "(collections.MutableMapping is not in this Python's standard library: the code needs an older Python)"
    )


class _NoTestLoads:
    """Runs in which the test file never loads; the environment's word on why, as its note."""

    name = "fake"

    def __init__(self, note: str):
        self.note = note

    def environment_id(self, repo, commit):
        return "img"

    def run_tests(self, repo, commit, patches=(), test_files=None):
        log = "____ ERROR collecting tests/test_a.py ____\nE   AttributeError: module 'lib' has no attribute 'old'\n"
        run = TestRun({"tests/test_a.py": "error"}, 2, False, 0.1, log, "img", note=self.note)
        run.collect_errors = ["tests/test_a.py"]
        return run


def test_no_test_ran_gives_the_load_error_and_the_environments_word_on_it(tmp_path):
    error = "tests/test_a.py does not load: AttributeError: module 'lib' has no attribute 'old'"
    res = check_functional(_NoTestLoads(""), tmp_path, "abc", "", "", ["tests/test_a.py"])
    assert res.reason == f"no test ran in tests/test_a.py: {error}"
    res = check_functional(_NoTestLoads("lib 1.0 lacks it too"), tmp_path, "abc", "", "", ["tests/test_a.py"])
    assert res.reason == f"no test ran in tests/test_a.py: {error}; lib 1.0 lacks it too"
    # a note that quotes the error already (pytest gave up on the session) is not repeated
    quoted = "pytest exited with code 2: AttributeError: module 'lib' has no attribute 'old'"
    res = check_functional(_NoTestLoads(quoted), tmp_path, "abc", "", "", ["tests/test_a.py"])
    assert res.reason == f"no test ran in tests/test_a.py: {quoted}"


class _RepairedDuringTheGoldState:
    """The environment lacks pytest-mock until the gold state's first run repairs it: in the old
    one, the test taking `mocker` errors whatever the code; `test_own` fails on the bug's code."""

    name = "fake"

    def __init__(self):
        self.image, self.runs = "env-old", []

    def environment_id(self, repo, commit):
        return self.image

    def run_tests(self, repo, commit, patches=(), test_files=None):
        gold = len(patches) == 2
        if gold:
            self.image = "env-new"  # repaired before this run
        self.runs.append(("gold" if gold else "bug", self.image))
        mocked = "passed" if self.image == "env-new" else "error"
        own = "passed" if gold else "failed"
        return TestRun({"t.py::test_mocked": mocked, "t.py::test_own": own}, 1, False, 0.1, "", self.image)


def test_both_states_are_judged_in_the_environment_a_repair_left(tmp_path):
    """tzlocal: pytest-mock came in while the gold state ran, so five tests that took `mocker`
    errored on the bug state only and became FAIL_TO_PASS, though the change never touched them."""
    backend = _RepairedDuringTheGoldState()
    res = check_functional(backend, tmp_path, "abc", "bug", "gold", ["t.py"], reruns=2)
    assert res.passed and res.fail_to_pass == ["t.py::test_own"], res
    assert res.pass_to_pass == ["t.py::test_mocked"]
    assert backend.runs[-2:] == [("bug", "env-new"), ("bug", "env-new")]


def test_a_files_load_error_is_read_from_pytests_log():
    log = (
        "_____________ ERROR collecting tests/test_a.py _____________\n"
        "tests/test_a.py:3: in <module>\n    from compat import ChainMap\n"
        "E   ImportError: cannot import name 'Chainmap' from 'collections'\n\n"
        "During handling of the above exception, another exception occurred:\n"
        "E   ImportError: cannot import name 'MutableMapping' from 'collections'\n"
        "_____________ ERROR collecting tests/test_b.py _____________\n"
        "E   AttributeError: `np.round_` was removed in the NumPy 2.0 release.\n"
        "=========================== short test summary info ============================\n"
        "ERROR tests/test_a.py - ImportError: cannot import name 'MutableMapping' from 'coll...\n"
        "ERROR tests/test_c.py - ModuleNotFoundError: No module named 'yaml'\n"
    )
    assert load_errors(log) == {
        "tests/test_a.py": "ImportError: cannot import name 'MutableMapping' from 'collections'",  # the chain's end
        "tests/test_b.py": "AttributeError: `np.round_` was removed in the NumPy 2.0 release.",
        "tests/test_c.py": "ModuleNotFoundError: No module named 'yaml'",  # only the summary shows it
    }
    assert load_errors("1 passed in 0.01s\n") == {}
    # what each error says is missing: the module (or the package that says it removed it) and the name
    assert lacked_names(log) == [("collections", "Chainmap"), ("collections", "MutableMapping"), ("numpy", "round_")]
    text = "E   AttributeError: `np.round_` was removed in the NumPy 2.0 release.\n"
    assert lacked_names(text, marked=True) == [("numpy", "round_")]
    assert lacked_names("    raise AttributeError: module 'numpy' has no attribute 'x'\n", marked=True) == []


def _reverse(diff: str) -> str:
    """Swap the - and + sides of a one-hunk unified diff."""
    out = []
    for line in diff.splitlines():
        if line.startswith("--- ") or line.startswith("+++ "):
            out.append(line)
        elif line.startswith("@@"):
            head = line.split("@@")[1].split()
            out.append(f"@@ {head[1].replace('+', '-')} {head[0].replace('-', '+')} @@")
        elif line.startswith("-"):
            out.append("+" + line[1:])
        elif line.startswith("+"):
            out.append("-" + line[1:])
        else:
            out.append(line)
    return "\n".join(out) + "\n"


def test_collection_error_in_bug_state_counts_as_failure(backend, tmp_path):
    fixed = {
        "calc.py": "def add(a, b):\n    return a + b\n",
        "tests/test_calc.py": "from calc import add\n\n\ndef test_a():\n    assert add(1, 2) == 3\n\n\n"
        "def test_b():\n    assert add(0, 0) == 0\n",
    }
    repo, sha, bug, gold = bug_task(tmp_path / "repo", fixed, {"calc.py": "def plus(a, b):\n    return a + b\n"})
    run = backend.run_tests(repo, sha, [bug], ["tests/test_calc.py"])
    assert run.outcomes == {"tests/test_calc.py": "error"}
    assert run.collect_errors == ["tests/test_calc.py"]
    res = check_functional(backend, repo, sha, bug, gold, ["tests/test_calc.py"])
    assert res.passed, res.reason
    assert res.fail_to_pass == ["tests/test_calc.py::test_a", "tests/test_calc.py::test_b"]


def test_a_bug_that_breaks_pytests_capture_for_later_tests_is_still_a_task(backend, tmp_path):
    # a real case (click's echo of empty bytes): the bug closes the captured stdout, and every
    # test after it errors; the canaries run first, so the run is not taken for tampered
    fixed = {
        "out.py": "import sys\n\n\ndef emit(data):\n    if data:\n        sys.stdout.write(data)\n",
        "tests/test_out.py": "from out import emit\n\n\ndef test_empty(capfd):\n    emit('')\n"
        "    assert capfd.readouterr().out == ''\n\n\ndef test_text(capfd):\n"
        "    emit('x')\n    assert capfd.readouterr().out == 'x'\n",
    }
    buggy = {
        "out.py": "import sys\n\n\ndef emit(data):\n    if not data:\n        sys.stdout.close()\n"
        "        raise ValueError('empty')\n    sys.stdout.write(data)\n"
    }
    repo, sha, bug, gold = bug_task(tmp_path / "repo", fixed, buggy)
    run = backend.run_tests(repo, sha, [bug], ["tests/test_out.py"])
    assert not run.broken, run.note
    res = check_functional(backend, repo, sha, bug, gold, ["tests/test_out.py"])
    assert res.passed, res.reason
    assert "tests/test_out.py::test_empty" in res.fail_to_pass


def test_failing_test_that_prints_passed_is_not_counted_as_passed(backend, tmp_path):
    tests = CALC_TESTS + (
        "\n\ndef test_liar():\n    import os\n"
        "    os.write(1, b'tests/test_calc.py::test_liar PASSED\\n1 passed in 0.01s\\n')\n"
        "    print('PASSED')\n    assert False\n"
    )
    repo, sha, bug, gold = calc_task(tmp_path / "repo", tests=tests)
    run = backend.run_tests(repo, sha, [], ["tests/test_calc.py"])
    assert "test_liar PASSED" in run.log_tail  # the lie reached the log ...
    assert run.outcomes["tests/test_calc.py::test_liar"] == "failed"  # ... but not the outcome
    res = check_functional(backend, repo, sha, bug, gold, ["tests/test_calc.py"])
    assert "tests/test_calc.py::test_liar" not in res.fail_to_pass + res.pass_to_pass


def test_hanging_test_times_out_and_is_killed(tmp_path):
    backend = LocalBackend(
        limits=Limits(timeout_s=2), cache_dir=tmp_path / "cache", recipe_for=detect_recipe, log=lambda m: None
    )
    tests = CALC_TESTS.replace("def test_add():\n", "def test_add():\n    while True:\n        pass\n")
    repo, sha, bug, gold = calc_task(tmp_path / "repo", tests=tests)
    run = backend.run_tests(repo, sha, [], ["tests/test_calc.py"])
    assert run.timed_out and run.note == "timed out after 2 s"
    res = check_functional(backend, repo, sha, bug, gold, ["tests/test_calc.py"], reruns=1)
    assert not res.passed
    assert res.reason == "the bug state timed out: timed out after 2 s"


def test_process_that_exits_zero_without_report_marks_run_broken(backend, tmp_path):
    tests = CALC_TESTS + "\n\ndef test_quit():\n    import os\n    os._exit(0)\n"
    repo, sha, bug, gold = calc_task(tmp_path / "repo", tests=tests)
    run = backend.run_tests(repo, sha, [], ["tests/test_calc.py"])
    assert run.exit_code == 0 and run.broken and run.outcomes == {}
    res = check_functional(backend, repo, sha, bug, gold, ["tests/test_calc.py"])
    assert not res.passed and "inconsistent" in res.reason


def test_crash_with_nonzero_exit_and_no_report_counts_requested_files_as_errors(backend, tmp_path):
    tests = CALC_TESTS + "\n\ndef test_crash():\n    import os\n    os._exit(3)\n"
    repo, sha, _, _ = calc_task(tmp_path / "repo", tests=tests)
    run = backend.run_tests(repo, sha, [], ["tests/test_calc.py"])
    assert run.exit_code == 3 and not run.broken
    assert run.outcomes == {"tests/test_calc.py": "error"}


def test_test_whose_outcome_alternates_is_flaky_and_never_f2p_or_p2p(backend, tmp_path):
    counter = tmp_path / "counter"  # outside the tree: survives across runs
    tests = CALC_TESTS + (
        "\n\ndef test_alternating():\n    from pathlib import Path\n"
        f"    p = Path({str(counter)!r})\n"
        "    n = int(p.read_text()) if p.exists() else 0\n    p.write_text(str(n + 1))\n"
        "    assert n % 2 == 0\n"
    )
    repo, sha, bug, gold = calc_task(tmp_path / "repo", tests=tests)
    res = check_functional(backend, repo, sha, bug, gold, ["tests/test_calc.py"], reruns=2)
    assert res.flaky == ["tests/test_calc.py::test_alternating"]
    assert res.fail_to_pass == [F2P] and res.pass_to_pass == [P2P]
    assert res.passed and "1 flaky test(s) dropped" in res.reason
    assert counter.read_text() == "4"  # two runs per state really happened


def test_environment_is_built_once_per_snapshot_and_keyed_by_dependency_files(backend, tmp_path):
    repo, sha, bug, _ = calc_task(tmp_path / "repo")
    backend.run_tests(repo, sha, [bug], None)
    backend.run_tests(repo, sha, [], None)
    assert len(backend.builds) == 1
    (repo / "requirements.txt").write_text("\n")  # empty: declares nothing but changes the key
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "add requirements")
    assert backend.environment_id(repo, "HEAD") != backend.environment_id(repo, sha)


@pytest.mark.slow  # builds an environment and runs the tests twice
def test_install_override_runs_in_the_venv(tmp_path):
    repo, sha, _, _ = calc_task(tmp_path / "repo")
    install = {"repo": {"install": "python -c \"import sys; open(sys.prefix + '/installed', 'w').write('yes')\""}}
    book = RecipeBook(install, tmp_path / "cache", log=lambda m: None)
    backend = LocalBackend(cache_dir=tmp_path / "cache", recipe_for=book.recipe_for, log=lambda m: None)
    run = backend.run_tests(repo, sha, [], None)
    assert run.exit_code == 0
    assert (tmp_path / "cache" / "envs" / run.image / "installed").read_text() == "yes"


def test_make_backend_local_warns_and_rejects_unknown_kind(tmp_path):
    logs: list[str] = []
    backend = make_backend("local", cache_dir=tmp_path, log=logs.append)
    assert backend.name == "local"
    assert any("WARNING" in m and "unisolated" in m for m in logs)
    with pytest.raises(SandboxError, match="unknown sandbox backend"):
        make_backend("vm", log=logs.append)


def test_run_temp_dirs_are_removed(backend, tmp_path, monkeypatch):
    monkeypatch.setenv("TMPDIR", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", None)
    repo, sha, bug, _ = calc_task(tmp_path / "repo")
    backend.run_tests(repo, sha, [bug], None)
    assert list((tmp_path / "tmp").iterdir()) == []


# -- what the local backend enforces (issue 15 item 4, issue 16: the venv sees SEBGen's packages) --
def test_venv_sees_sebgens_own_site_folders_not_the_base_interpreters(backend, tmp_path):
    from sandbox.local import host_site_dirs

    repo, sha, _, _ = calc_task(tmp_path / "repo")
    venv = backend.cache_dir / "envs" / backend.prepare(repo, sha)
    assert "include-system-site-packages = false" in (venv / "pyvenv.cfg").read_text()
    pth = next(venv.glob("lib/python*/site-packages/_sebgen_host.pth"))
    assert pth.read_text().split() == host_site_dirs()
    import pytest as host_pytest

    assert str(__import__("pathlib").Path(host_pytest.__file__).parents[1]) in host_site_dirs()


def test_a_run_that_modifies_its_venv_is_void_and_the_venv_rebuilt(backend, tmp_path):
    tests = CALC_TESTS + (
        "\n\ndef test_poison():\n    import os, site, sys\n"
        "    folder = next(p for p in sys.path if p.endswith('site-packages') and p.startswith(sys.prefix))\n"
        "    os.chmod(folder, 0o755)\n"
        "    open(os.path.join(folder, 'poison.pth'), 'w').write('import os\\n')\n"
    )
    repo, sha, _, _ = calc_task(tmp_path / "repo", tests=tests)
    run = backend.run_tests(repo, sha, [], ["tests/test_calc.py"])
    assert run.broken and "modified its environment" in run.note
    again = backend.run_tests(repo, sha, [], ["tests/test_calc.py::test_add"])
    assert len(backend.builds) == 2 and not again.broken  # rebuilt, and the later run is clean
    venv = backend.cache_dir / "envs" / again.image
    assert not list(venv.glob("lib/python*/site-packages/poison.pth"))


def test_a_daemon_that_leaves_the_session_is_killed_after_the_run(backend, tmp_path):
    import os
    import signal

    pid_file = tmp_path / "daemon.pid"
    tests = CALC_TESTS + (
        "\n\ndef test_daemon():\n    import os, time\n"
        "    if os.fork() == 0:\n        os.setsid()\n        if os.fork() == 0:\n"
        f"            open({str(pid_file)!r}, 'w').write(str(os.getpid()))\n"
        "            time.sleep(600)\n        os._exit(0)\n"
    )
    repo, sha, _, _ = calc_task(tmp_path / "repo", tests=tests)
    backend.run_tests(repo, sha, [], ["tests/test_calc.py"])
    pid = int(pid_file.read_text())
    try:
        os.kill(pid, 0)
        state = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0]
        assert state == "Z", f"the daemon {pid} still runs"
    except ProcessLookupError:
        pass
    finally:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def test_extraction_without_tarfile_filters_is_still_safe(tmp_path, monkeypatch):
    import io
    import tarfile

    from sandbox import safe_extract

    monkeypatch.delattr(tarfile, "tar_filter", raising=False)  # Debian's 3.11.2 has no filters
    repo, sha, _, _ = calc_task(tmp_path / "repo")
    dest = export_tree(repo, sha, tmp_path / "out")
    assert (dest / "tests" / "test_calc.py").exists()
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        info = tarfile.TarInfo("../escaped.txt")
        info.size = 1
        tar.addfile(info, io.BytesIO(b"x"))
    with tarfile.open(fileobj=io.BytesIO(buf.getvalue())) as tar, pytest.raises(SandboxError, match="outside"):
        safe_extract(tar, tmp_path / "safe")
    assert not (tmp_path / "escaped.txt").exists()


def _dist(site, name: str, plugin: str) -> None:
    info = site / f"{name.replace('-', '_')}-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[pytest11]\n{name} = {plugin}\n")


def test_the_venvs_plugins_are_what_its_install_asked_for_wherever_pip_found_them(tmp_path):
    # the Docker image installs and autoloads every plugin the install asks for; natively, a
    # requirement pip found in SEBGen's own site folders must load its plugin too, while the
    # host's other plugins stay out
    from sandbox.local import _venv_pytest_plugins

    venv, host = tmp_path / "venv", tmp_path / "host"
    _dist(venv / "lib" / "python3.11" / "site-packages", "pytest-xdist", "xdist.plugin")
    _dist(host, "hypothesis", "_hypothesis_pytestplugin")
    _dist(host, "pytest-benchmark", "pytest_benchmark.plugin")  # on the host, not asked for
    log = (
        "Requirement already satisfied: Hypothesis>=6 in /host (from attrs==23.1.0) (6.155.2)\n"
        "Requirement already satisfied: pytest>=4.3.0 in /host (from attrs==23.1.0) (9.0.3)\n"
        "Collecting pytest-xdist[psutil]\n"
    )
    assert _venv_pytest_plugins(venv, log, [str(host)]) == ["_hypothesis_pytestplugin", "xdist.plugin"]
    assert _venv_pytest_plugins(venv, "", [str(host)]) == ["xdist.plugin"]


def test_a_venv_manifest_names_paths_from_its_root_and_sees_a_change(tmp_path, monkeypatch):
    """The manifest (sandbox.local.tree_manifest) is kept on disk beside each cached venv: the same
    tree must hash the same wherever it lies and however its root is spelled, and a change must show."""
    import hashlib
    import os
    import shutil

    from sandbox.local import tree_manifest

    first = tmp_path / "a"
    (first / "lib" / "pkg").mkdir(parents=True)
    (first / "lib" / "pkg" / "mod.py").write_text("x = 1\n")
    (first / "pyvenv.cfg").write_text("home = /usr\n")
    (first / "bin").symlink_to("lib", target_is_directory=True)  # a linked folder counts as an entry
    second = tmp_path / "b"
    shutil.copytree(first, second, symlinks=True)  # copy2: the same sizes, mtimes and modes
    monkeypatch.chdir(tmp_path)
    assert tree_manifest(first) == tree_manifest(second) == tree_manifest("b/") == tree_manifest("./a")
    # the format of the manifests already on disk: one line per entry, relative path first
    lines = ""
    for relative in ("bin", "pyvenv.cfg", "lib/pkg/mod.py"):
        st = os.lstat(first / relative)
        lines += f"{relative}\0{st.st_size}\0{st.st_mtime_ns}\0{st.st_mode}\n"
    assert tree_manifest(first) == hashlib.sha256(lines.encode()).hexdigest()
    (second / "lib" / "pkg" / "mod.py").write_text("x = 22\n")
    assert tree_manifest(second) != tree_manifest(first)
    before = tree_manifest(first)
    (first / "pyvenv.cfg").rename(first / "pyvenv.cfg.bak")  # same size and mtime, another name
    assert tree_manifest(first) != before
