"""Exports: SWE-bench JSONL read back by `datasets`, Harbor folders built and verified in Docker."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

import pytest

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from records import read_jsonl  # noqa: E402
from tests.e2e import ROOT, generated_tasks, sebgen  # noqa: E402

BASE_IMAGE = "sebgen-base:bookworm"  # named in exports; built only by the Docker tests


@pytest.fixture(scope="module")
def panel(tmp_path_factory) -> Path:
    """Tasks generated once per module from the bundled pyledger repo."""
    out = generated_tasks(tmp_path_factory.mktemp("panel"), 2)
    return out


@pytest.mark.slow
def test_swebench_export_round_trips_through_datasets(panel, tmp_path):
    try:
        import datasets
    except ImportError:
        pytest.fail("the `datasets` package is required for this test (pip install datasets; pyproject dev extra)")
    out = tmp_path / "swebench.jsonl"
    proc = sebgen("export", str(panel), "--format", "swebench", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    tasks = {t.instance_id: t for t in read_jsonl(panel)}
    rows = datasets.load_dataset("json", data_files=str(out), split="train", cache_dir=str(tmp_path / "hf-cache"))
    assert len(rows) == len(tasks)
    for row in rows:
        task = tasks[row["instance_id"]]
        assert isinstance(row["FAIL_TO_PASS"], str)  # SWE-bench ships the lists as JSON strings
        assert json.loads(row["FAIL_TO_PASS"]) == task.FAIL_TO_PASS
        assert json.loads(row["PASS_TO_PASS"]) == task.PASS_TO_PASS
        assert (row["patch"], row["base_commit"], row["bug_patch"]) == (task.patch, task.base_commit, task.bug_patch)
        assert row["repo"] == f"sebgen/{task.repo}"  # owner/name, never a path
        assert (row["log_parser"], row["eval_type"]) == ("parse_log_pytest_v2", "pass_and_fail")
        assert "pytest -rA" in row["eval_script"] and ">>>>> Start Test Output" in row["eval_script"]
    card = (tmp_path / "README.md").read_text()
    assert "swebench.jsonl" in card and "FAIL_TO_PASS" in card and "run_evaluation" in card
    assert f"| sebgen/{next(iter(tasks.values())).repo} | {len(tasks)} |" in card


@pytest.mark.slow
def test_dataset_card_never_overwrites_a_foreign_readme(panel, tmp_path):
    (tmp_path / "README.md").write_text("my project\n")
    proc = sebgen("export", str(panel), "--format", "swebench", "--out", str(tmp_path / "o.jsonl"))
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "README.md").read_text() == "my project\n"
    assert "not a SEBGen dataset card" in proc.stderr


@pytest.mark.slow
def test_harbor_layout_withholds_the_tests(panel, tmp_path):
    proc = sebgen("export", str(panel), "--format", "harbor", "--out", str(tmp_path / "h"), "--base-image", BASE_IMAGE)
    assert proc.returncode == 0, proc.stderr
    task = next(iter(read_jsonl(panel)))
    folder = tmp_path / "h" / task.instance_id
    for rel in (
        "task.toml",
        "instruction.md",
        "environment/Dockerfile",
        "tests/test.sh",
        "solution/solve.sh",
        "solution/fix.patch",
        "tests/expected_tests.txt",
        "tests/fixed_files.txt",
    ):
        assert (folder / rel).is_file(), rel
    config = tomllib.loads((folder / "task.toml").read_text())
    assert config["schema_version"] == "1.4" and config["artifacts"] == ["/app"]
    assert config["verifier"]["environment_mode"] == "separate"
    assert config["environment"]["network_mode"] == "no-network"  # the default: no internet for the agent
    assert config["agent"]["user"] != "root"
    dockerfile = (folder / "environment" / "Dockerfile").read_text()
    assert f"ARG BASE_IMAGE={BASE_IMAGE}" in dockerfile and "sebgen-env" not in dockerfile
    test_file = task.FAIL_TO_PASS[0].split("::")[0]
    assert not (folder / "environment" / "repo" / test_file).exists()
    assert (folder / "tests" / "fixed" / test_file).is_file()
    assert not (folder / "environment" / "repo" / ".git").exists()
    assert (folder / "instruction.md").read_text().strip() == task.problem_statement.strip()
    # the agent's tree is the buggy state: the gold patch applies to it
    check = subprocess.run(
        ["git", "apply", "--check", str(folder / "solution" / "fix.patch")],
        cwd=folder / "environment" / "repo",
        capture_output=True,
        text=True,
    )
    assert check.returncode == 0, check.stderr
    public = sebgen(
        "export",
        str(panel),
        "--format",
        "harbor",
        "--out",
        str(tmp_path / "p"),
        "--network",
        "public",
        "--base-image",
        BASE_IMAGE,
    )
    assert public.returncode == 0, public.stderr
    public_config = tomllib.loads((tmp_path / "p" / task.instance_id / "task.toml").read_text())
    assert public_config["environment"]["network_mode"] == "public"


@pytest.mark.slow
def test_no_export_holds_a_file_or_path_of_the_host(panel, tmp_path):
    """Harbor folders and SWE-bench rows/card carry no CA bundle and no path of this machine."""
    assert (
        sebgen(
            "export", str(panel), "--format", "harbor", "--out", str(tmp_path / "h"), "--base-image", BASE_IMAGE
        ).returncode
        == 0
    )
    mirror = tmp_path / "mirror"
    assert (
        sebgen(
            "export",
            str(panel),
            "--format",
            "swebench",
            "--out",
            str(tmp_path / "s" / "rows.jsonl"),
            "--mirror",
            str(mirror),
        ).returncode
        == 0
    )
    task = next(iter(read_jsonl(panel)))
    host_markers = {
        str(Path(task.repo_path).resolve()),
        str(Path(task.repo_path)),
        str(Path.home()),
        str(tmp_path),
        str(ROOT),
        "BEGIN CERTIFICATE",
    }
    files = [p for p in (tmp_path / "h").rglob("*") if p.is_file()] + [
        p for p in (tmp_path / "s").rglob("*") if p.is_file()
    ]
    assert len(files) > 10
    for path in files:
        assert path.name not in ("ca.pem", "ca.crt"), path
        text = path.read_bytes().decode(errors="replace")
        for marker in host_markers:
            assert marker not in text, f"{path} holds {marker!r}"


@pytest.mark.slow  # runs the CLI in a subprocess (or builds an environment): seconds each
def test_export_errors_are_one_sentence(tmp_path):
    proc = sebgen("export", str(tmp_path), "--format", "harbor", "--out", str(tmp_path / "x"))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    expected = f"sebgen: {tmp_path} is not a SEBGen run folder: it has no config.yaml or no checkpoint yet"
    assert proc.stderr.strip() == expected


CONFTEST_HOOK = (
    "import pytest\n\n\n@pytest.hookimpl(hookwrapper=True)\ndef pytest_runtest_makereport(item, call):\n"
    "    outcome = yield\n    outcome.get_result().outcome = 'passed'\n"
)


def _fake_pytest(expected: list[str]) -> str:
    """A `pytest` module at the import root that prints a perfect -rA report, canaries included."""
    return (
        "import sys\n"
        f"EXPECTED = {expected!r}\n"
        "for test_id in EXPECTED:\n    print('PASSED ' + test_id)\n"
        "for arg in sys.argv[1:]:\n"
        "    if arg.startswith('test_sebgen_canary_'):\n"
        "        token = arg[len('test_sebgen_canary_'):-3]\n"
        "        print(f'PASSED {arg}::test_pass_{token}')\n        print(f'FAILED {arg}::test_fail_{token} - x')\n"
        "sys.exit(1)\n"
    )


def _rewritten_tests(expected: list[str]) -> dict[str, str]:
    """The withheld test files rewritten so every listed test passes without fixing anything."""
    files: dict[str, dict[str, list[str]]] = {}
    for test_id in expected:
        path, _, name = test_id.partition("::")
        function, _, param = name.partition("[")
        files.setdefault(path, {}).setdefault(function, [])
        if param:
            files[path][function].append(param[:-1])
    out = {}
    for path, functions in files.items():
        body = ["import pytest\n"]
        for function, params in functions.items():
            if params:
                body.append(
                    f"@pytest.mark.parametrize('x', range({len(params)}), ids={params!r})\n"
                    f"def {function}(x):\n    pass\n"
                )
            else:
                body.append(f"def {function}():\n    pass\n")
        out[path] = "\n\n".join(body)
    return out


def _cheats(task) -> dict[str, dict[str, str]]:
    """Agent patches that fix nothing, as files written into /app (as root, in the verifier's container)."""
    expected = task.FAIL_TO_PASS + task.PASS_TO_PASS
    return {
        "conftest": {"conftest.py": CONFTEST_HOOK, "tests/conftest.py": CONFTEST_HOOK},
        "ini": {
            "pytest.ini": "[pytest]\naddopts = -p cheat_plugin\n",
            "tests/pytest.ini": "[pytest]\naddopts = -p cheat_plugin\n",
            "cheat_plugin.py": CONFTEST_HOOK,
        },
        "sitecustomize": {
            "sitecustomize.py": "import os\nos.environ['PYTEST_ADDOPTS'] = '-p cheat_plugin'\n",
            "cheat_plugin.py": CONFTEST_HOOK,
            "cheat.pth": "import cheat_plugin\n",
        },
        "shadow_pytest": {"pytest.py": _fake_pytest(expected)},
        "edited_tests": _rewritten_tests(expected),
    }


def _remove_env_images() -> list[str]:
    """Every sebgen-env image no container uses (the engine is shared: nothing else is touched)."""
    from sandbox import docker_client

    api = docker_client().api
    used = {c.get("ImageID") for c in api.containers(all=True)}
    removed = []
    for image in api.images():
        tags = [t for t in image.get("RepoTags") or [] if t.startswith("sebgen-env")]
        if not tags or image["Id"] in used:
            continue
        for tag in tags:
            try:
                api.remove_image(tag)
                removed.append(tag)
            except Exception:  # taken by a container started since the listing: it stays
                pass
    return removed


@pytest.mark.slow
@pytest.mark.docker
@pytest.mark.timeout(1800)  # a full image build (pip from the index) plus seven verifier runs
def test_harbor_task_builds_anywhere_and_rewards_only_a_real_fix(panel, tmp_path):
    """The folder builds with no sebgen-env image around; test.sh gives the oracle 1, nop 0 and every
    cheat 0 even when the cheat runs as root in the verifier's own container."""
    from tests.interop_fixtures import export_base_image

    base = export_base_image()
    proc = sebgen("export", str(panel), "--format", "harbor", "--out", str(tmp_path / "h"), "--base-image", base)
    assert proc.returncode == 0, proc.stderr
    task = next(iter(read_jsonl(panel)))
    folder = tmp_path / "h" / task.instance_id
    _remove_env_images()
    tag = f"sebgen-harbor-test:{uuid.uuid4().hex[:12]}"
    build = subprocess.run(
        ["docker", "build", "-q", "-t", tag, str(folder / "environment")], capture_output=True, text=True, timeout=1200
    )
    assert build.returncode == 0, build.stderr[-2000:]
    try:

        def reward(name: str, command: str, files: dict[str, str] | None = None) -> tuple[str, str]:
            logs, cheat = tmp_path / f"logs-{name}", tmp_path / f"cheat-{name}"
            logs.mkdir()
            for rel, text in (files or {}).items():
                (cheat / rel).parent.mkdir(parents=True, exist_ok=True)
                (cheat / rel).write_text(text)
            cheat.mkdir(exist_ok=True)
            subprocess.run(
                [
                    "docker",
                    "run",
                    "--rm",
                    "--network",
                    "none",
                    "-v",
                    f"{folder / 'tests'}:/tests:ro",
                    "-v",
                    f"{folder / 'solution'}:/solution:ro",
                    "-v",
                    f"{logs}:/logs/verifier",
                    "-v",
                    f"{cheat}:/cheat:ro",
                    tag,
                    "bash",
                    "-c",
                    f"{command} && bash /tests/test.sh",
                ],
                capture_output=True,
                text=True,
                timeout=600,
            )
            log = (logs / "test_output.log").read_text() if (logs / "test_output.log").exists() else ""
            return (logs / "reward.txt").read_text().strip(), log

        assert reward("nop", "true")[0] == "0"
        oracle, log = reward("oracle", "bash /solution/solve.sh")
        assert oracle == "1", log[-3000:]
        assert all(f"PASSED {t}" in log for t in task.FAIL_TO_PASS)  # a log SWE-bench's parser grades
        for name, files in _cheats(task).items():
            verdict, log = reward(name, "cp -a /cheat/. /app/", files)
            assert verdict == "0", f"cheat {name} was rewarded:\n{log[-3000:]}"
    finally:
        subprocess.run(["docker", "image", "rm", "-f", tag], capture_output=True)


# ------------------------------------------------------------ SWE-bench mirror (one repository per task)


def _git(repo: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, input=stdin)


def _pytest(worktree: Path, ids: list[str]) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1", "PYTHONDONTWRITEBYTECODE": "1"}
    env.pop("PYTHONPATH", None)  # the task's repo, not SEBGen, must be what the tests import
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *ids],
        cwd=worktree,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


@pytest.fixture(scope="module")
def mirrored(panel, tmp_path_factory) -> tuple[Path, Path]:
    """The panel exported through the CLI with --mirror: (records JSONL, mirror folder)."""
    folder = tmp_path_factory.mktemp("mirrored")
    out, mirror = folder / "swebench.jsonl", folder / "mirror"
    proc = sebgen("export", str(panel), "--format", "swebench", "--out", str(out), "--mirror", str(mirror))
    assert proc.returncode == 0, proc.stderr
    assert "warning" not in proc.stderr
    return out, mirror


def _clone(mirror_repo: Path, dest: Path, *options: str) -> Path:
    proc = subprocess.run(["git", "clone", "-q", *options, str(mirror_repo), str(dest)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return dest


@pytest.mark.slow
def test_mirror_records_follow_the_swebench_harness_sequence(panel, mirrored, tmp_path):
    """Clone, apply test_patch: F2P fail; apply patch: F2P and P2P pass (SWE-bench's order), and the
    result is exactly the fixed commit's tree."""
    out, mirror = mirrored
    tasks = {t.instance_id: t for t in read_jsonl(panel)}
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert sorted(r["instance_id"] for r in rows) == sorted(tasks)
    for row in rows:
        task = tasks[row["instance_id"]]
        assert row["repo"] == f"sebgen/{task.repo}"
        assert row["base_commit"] != task.base_commit
        assert row["environment_setup_commit"] == row["base_commit"]
        assert row["sebgen_fixed_commit"] == task.base_commit and row["bug_patch"] == task.bug_patch
        assert (row["patch"], row["test_patch"]) == (task.patch, task.test_patch)
        assert json.loads(row["FAIL_TO_PASS"]) == task.FAIL_TO_PASS
        # a plain single-branch clone of the task's repository checks out the buggy state
        worktree = _clone(mirror / f"{task.instance_id}.git", tmp_path / task.instance_id, "--single-branch")
        assert _git(worktree, "rev-parse", "HEAD").stdout.strip() == row["base_commit"]
        test_files = sorted({t.split("::")[0] for t in task.FAIL_TO_PASS})
        for rel in test_files:  # withheld tests at their pre-fix versions (or absent)
            fixed = _git(Path(task.repo_path), "show", f"{task.base_commit}:{rel}").stdout
            assert not (worktree / rel).exists() or (worktree / rel).read_text() != fixed
        applied = _git(worktree, "apply", "-", stdin=row["test_patch"])
        assert applied.returncode == 0, applied.stderr
        failing = _pytest(worktree, task.FAIL_TO_PASS)
        assert failing.returncode == 1, failing.stdout[-2000:]
        applied = _git(worktree, "apply", "-", stdin=row["patch"])
        assert applied.returncode == 0, applied.stderr
        passing = _pytest(worktree, task.FAIL_TO_PASS + task.PASS_TO_PASS)
        assert passing.returncode == 0, passing.stdout[-2000:]
        # buggy state + test_patch + patch is exactly the fixed commit (same tree id)
        _git(worktree, "add", "-A")
        fixed_tree = _git(Path(task.repo_path), "rev-parse", f"{task.base_commit}^{{tree}}").stdout.strip()
        assert _git(worktree, "write-tree").stdout.strip() == fixed_tree


@pytest.mark.slow
def test_no_git_command_in_a_mirror_checkout_recovers_the_fix(panel, mirrored, tmp_path):
    """#15 acceptance 4: log --all, diff HEAD HEAD^, reflog and the (packed) object store of a clone
    and of the mirror repository itself hold only the buggy state."""
    _, mirror = mirrored
    for task in read_jsonl(panel):
        source = Path(task.repo_path)
        # blobs the fix brings: the fixed versions of the files the gold patch changes, and the fixed commit
        fixed_objects = {task.base_commit}
        for rel in {line[6:] for line in task.patch.splitlines() if line.startswith("+++ b/")}:
            fixed_objects.add(_git(source, "rev-parse", f"{task.base_commit}:{rel}").stdout.strip())
        fixed_objects.discard("")
        assert len(fixed_objects) >= 2
        repo = mirror / f"{task.instance_id}.git"
        checkout = _clone(repo, tmp_path / task.instance_id)
        for where in (checkout, repo):
            assert _git(where, "log", "--all", "--format=%H").stdout.split() == [
                _git(where, "rev-parse", "HEAD").stdout.strip()
            ]
            assert _git(where, "rev-parse", "--verify", "-q", "HEAD^").returncode != 0  # no parent
            diff = _git(where, "diff", "HEAD", "HEAD^")
            assert diff.returncode != 0 and not diff.stdout
            assert all(task.base_commit not in line for line in _git(where, "reflog", "--all").stdout.splitlines())
            _git(where, "gc", "-q")  # pack everything, then read the whole object store
            listed = _git(where, "cat-file", "--batch-all-objects", "--batch-check=%(objectname) %(objecttype)").stdout
            names = {line.split()[0] for line in listed.splitlines()}
            assert not names & fixed_objects
            assert sum(kind == "commit" for kind in (line.split()[1] for line in listed.splitlines())) == 1
            # and nothing else: exactly HEAD's commit, its trees and blobs
            head_tree = _git(where, "ls-tree", "-r", "-t", "--format=%(objectname)", "HEAD").stdout.split()
            head = {
                _git(where, "rev-parse", "HEAD").stdout.strip(),
                _git(where, "rev-parse", "HEAD^{tree}").stdout.strip(),
            }
            assert names == set(head_tree) | head


@pytest.mark.slow
def test_materialize_is_idempotent_and_deterministic(panel, mirrored, tmp_path):
    from harness import materialize

    tasks = list(read_jsonl(panel))
    _, mirror = mirrored
    published = {
        json.loads(line)["instance_id"]: json.loads(line)["base_commit"]
        for line in mirrored[0].read_text().splitlines()
    }
    again = materialize(tasks, mirror)
    assert again == published  # re-running over the same mirror changes nothing
    fresh = materialize(tasks, tmp_path / "other-mirror")
    assert fresh == published  # same SHAs in an unrelated mirror: identity and date are fixed
    assert sorted(p.name for p in mirror.iterdir()) == sorted(f"{t.instance_id}.git" for t in tasks)


@pytest.mark.slow
def test_swebench_without_mirror_warns_on_one_line(panel, tmp_path):
    proc = sebgen("export", str(panel), "--format", "swebench", "--out", str(tmp_path / "o.jsonl"))
    assert proc.returncode == 0, proc.stderr
    warnings = [line for line in proc.stderr.splitlines() if "warning" in line]
    assert len(warnings) == 1 and "--mirror" in warnings[0]


@pytest.mark.slow
def test_export_option_mistakes_are_user_errors(panel, tmp_path):
    for args, word in (
        (["--format", "harbor", "--network", "sometimes"], "--network"),
        (["--format", "harbor", "--build-images"], "--build-images"),
    ):
        proc = sebgen("export", str(panel), "--out", str(tmp_path / "x"), *args)
        assert proc.returncode == 2 and word in proc.stderr and "Traceback" not in proc.stderr, proc.stderr


@pytest.mark.slow
def test_mirror_with_harbor_is_a_user_error(panel, tmp_path):
    proc = sebgen(
        "export", str(panel), "--format", "harbor", "--out", str(tmp_path / "h"), "--mirror", str(tmp_path / "m")
    )
    assert proc.returncode == 2 and "--mirror" in proc.stderr and "Traceback" not in proc.stderr
