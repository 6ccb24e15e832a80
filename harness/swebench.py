"""SWE-bench export: JSONL rows the 5.x harness (`swebench.harness.run_evaluation`) runs as they are,
their Docker images, and a dataset card so the folder can be pushed as a Hugging Face dataset.

Rows carry the 5.x fields: `image` (built by `build_images` from the task's mirror repository,
the buggy state at /testbed), `eval_script` (withheld tests applied, test config and conftest
files put back, files Python or pytest load by themselves removed, `pytest -rA` between the
harness's markers), `log_parser` = parse_log_pytest_v2 and `eval_type` = pass_and_fail.
A JavaScript/TypeScript row's eval script runs SEBGen's JS verifier (harness/harbor.py) from
its image instead; it prints the `PASSED id` / `FAILED id` lines that parser reads.
"""

from __future__ import annotations

import io
import json
import shlex
import shutil
import subprocess
import tarfile
import tempfile
from collections import Counter
from datetime import datetime, timezone
from pathlib import Path

from environment import detect_recipe
from records import Task, file_of_test, write_jsonl
from sandbox import AUTOLOAD_NAMES, AUTOLOAD_SUFFIXES, JsRecipe, install_commands
from tasks import test_files_of

from .export_errors import ExportError
from .harbor import PYTEST_CONFIG_NAMES, js_dockerfile, js_recipe_of, js_verifier_config, node_dists, write_js_verifier
from .harbor import dockerfile as environment_dockerfile
from .mirror import materialize, task_mirror

SWEBENCH_FIELDS = (
    "instance_id",
    "base_commit",
    "patch",
    "test_patch",
    "problem_statement",
    "hints_text",
    "created_at",
    "version",
)
LOG_PARSER = "parse_log_pytest_v2"  # keeps test ids with spaces whole (parametrize ids); parse_log_pytest cuts them
EVAL_TYPE = "pass_and_fail"
IMAGE_REPO = "sebgen-swebench"
START, END = ">>>>> Start Test Output", ">>>>> End Test Output"
CARD_MARK = "- sebgen\n"  # a tag in the card's front matter: the README is ours to rewrite


def repo_slug(task: Task) -> str:
    """`owner/name` as the harness and leaderboards expect; SEBGen's own demo repos get owner `sebgen`."""
    name = task.repo.strip().rstrip("/")
    if name.endswith(".git"):
        name = name[:-4]
    parts = [p for p in name.replace("\\", "/").split("/") if p]
    if len(parts) >= 2:
        return "/".join(parts[-2:])
    return f"sebgen/{parts[-1] if parts else task.instance_id.split('__')[0]}"


def image_name(task: Task, buggy_commit: str) -> str:
    return f"{IMAGE_REPO}.{task.instance_id.lower()}:{buggy_commit[:12]}"


def eval_script(task: Task) -> str:
    """The harness runs this in /testbed after applying the model patch."""
    test_files = sorted({file_of_test(t) for t in task.FAIL_TO_PASS + task.PASS_TO_PASS})
    patched = test_files_of(task.test_patch)
    restore = sorted(set(test_files) | set(patched))
    autoload = " ".join(
        f"-o -name {shlex.quote(n)}" for n in AUTOLOAD_NAMES + tuple(f"*{s}" for s in AUTOLOAD_SUFFIXES)
    )
    config_re = "|".join(n.replace(".", "[.]") for n in PYTEST_CONFIG_NAMES)
    quoted = " ".join(shlex.quote(f) for f in restore)
    put_back = [  # tracked ones to the buggy state's version (equal to the fixed one), the others removed
        f"git ls-files -z -- {quoted} | xargs -0 -r git checkout HEAD --",
        f"git ls-files -z --others -- {quoted} | xargs -0 -r rm -f",
    ]
    lines = [
        "#!/bin/bash",
        "set -uxo pipefail",
        "cd /testbed",
        # the agent's edits to tests, conftest.py and pytest config are undone; files the buggy
        # state does not track that pytest or Python would load by themselves are removed
        f"find . -path ./.git -prune -o \\( -false {autoload} \\) -type f -print0 | xargs -0 -r rm -f",
        f"git ls-files -z --others -- . | grep -zE '(^|/)({config_re})$' | xargs -0 -r rm -f",
        # untracked modules at the import roots would shadow pytest or the standard library
        "git ls-files -z --others --directory -- . | grep -zE '^(src/)?[^/]+(/|[.]py|[.]so)$' | xargs -0 -r rm -rf",
        f"git ls-files -z -- . | grep -zE '(^|/)({config_re})$' | xargs -0 -r git checkout HEAD --",
        *put_back,
        "git apply -v - <<'SEBGEN_TEST_PATCH'",
        task.test_patch.rstrip("\n"),
        "SEBGEN_TEST_PATCH",
        f": '{START}'",
        "env -u PYTEST_ADDOPTS -u PYTEST_PLUGINS PYTHONNOUSERSITE=1 COLUMNS=400 python3 -m pytest -rA "
        f"-p no:cacheprovider --rootdir=/testbed --color=no {' '.join(shlex.quote(f) for f in test_files)}",
        f": '{END}'",
        *put_back,
    ]
    return "\n".join(lines) + "\n"


JS_VERIFIER_DIR = "/opt/sebgen/verifier"  # in a JS row's image: harbor.write_js_verifier's program
JS_VERIFIER_LOGS = "/tmp/sebgen-verifier"


def task_js_recipe(task: Task) -> JsRecipe | None:
    """A JS/TS task's recipe (its record's, else its snapshot's when the repository is here); None for Python."""
    setup = task.environment_setup or {}
    if setup.get("language") == "javascript" or (task.repo_path and Path(task.repo_path).is_dir()):
        return js_recipe_of(task, Path(task.repo_path or "."))
    return None


def js_eval_script(task: Task, recipe: JsRecipe) -> str:
    """The harness runs this in /testbed after applying the model patch: SEBGen's JS verifier (in
    the image) puts node_modules and the protected files back to the fixed state (the buggy
    commit's files with the withheld tests applied), plants canaries, runs the runner with
    SEBGen's reporter and prints `PASSED id` / `FAILED id` lines, which parse_log_pytest_v2 reads,
    only when the canaries came out as planted."""
    listed = sorted({file_of_test(t) for t in task.FAIL_TO_PASS + task.PASS_TO_PASS})
    config = js_verifier_config(task, recipe, test_files_of(task.test_patch), listed)
    config.update(app="/testbed", logs=JS_VERIFIER_LOGS)
    lines = [
        "#!/bin/bash",
        "set -uxo pipefail",
        "cd /testbed",
        "FIXED=$(mktemp -d)",
        'git archive HEAD | tar -x -C "$FIXED"',
        "(cd \"$FIXED\" && git apply -v - <<'SEBGEN_TEST_PATCH'",
        task.test_patch.rstrip("\n"),
        "SEBGEN_TEST_PATCH",
        ")",
        "cat > \"$FIXED.json\" <<'SEBGEN_VERIFY_CONFIG'",
        json.dumps(config, indent=1),
        "SEBGEN_VERIFY_CONFIG",
        f": '{START}'",
        "env -u NODE_OPTIONS -u PYTHONSTARTUP -u PYTHONHOME "
        f'python3 -I -S {JS_VERIFIER_DIR}/verify.py "$FIXED.json" "$FIXED"',
        f": '{END}'",
    ]
    return "\n".join(lines) + "\n"


def swebench_record(task: Task, buggy_commit: str | None = None) -> dict:
    """One SWE-bench row; with buggy_commit (a mirror) it starts from the published buggy state."""
    record = {name: getattr(task, name) for name in SWEBENCH_FIELDS}
    # SWE-bench ships the test lists as JSON-encoded strings
    record.update(
        repo=repo_slug(task),
        FAIL_TO_PASS=json.dumps(task.FAIL_TO_PASS),
        PASS_TO_PASS=json.dumps(task.PASS_TO_PASS),
        environment_setup_commit=task.base_commit,
        bug_patch=task.bug_patch,
        difficulty=task.difficulty,
        difficulty_level=task.difficulty_level,
        sebgen_fixed_commit=task.base_commit,
        log_parser=LOG_PARSER,
        eval_type=EVAL_TYPE,
        eval_script=js_eval_script(task, recipe) if (recipe := task_js_recipe(task)) else eval_script(task),
        image="",
    )
    if buggy_commit:
        # patch applies (only tests differ from base + bug) and test_patch applies since tests were reverted
        record.update(
            base_commit=buggy_commit, environment_setup_commit=buggy_commit, image=image_name(task, buggy_commit)
        )
    return record


def image_dockerfile(task: Task, base_image: str, pytest_spec: str) -> str:
    """The harness image: the agent's environment, with the buggy state as a git checkout at /testbed."""
    recipe = detect_recipe(Path(task.repo_path), task.base_commit)
    return environment_dockerfile(
        base_image,
        install_commands(recipe, "/opt/venv/bin/pip"),
        pytest_spec,
        source="testbed",
        workdir="/testbed",
        agent_user=None,
    )


def js_image(task: Task, recipe: JsRecipe, base_image: str) -> tuple[str, dict[str, Path]]:
    """A JS row's image (the Harbor environment's steps at /testbed, with SEBGen's JS verifier in
    JS_VERIFIER_DIR) and the build context's other files: node.tgz, npm.tgz, the verifier."""
    node, npm = node_dists(task, recipe)
    text = js_dockerfile(
        base_image, recipe, node.version, npm.version, source="testbed", workdir="/testbed", agent_user=None
    )
    text += f"COPY sebgen-verifier/ {JS_VERIFIER_DIR}/\n"
    verifier = Path(tempfile.mkdtemp(prefix="sebgen-verifier-"))
    write_js_verifier(verifier)
    return text, {"node.tgz": node.path, "npm.tgz": npm.path, "sebgen-verifier": verifier}


def _context(mirror: Path, docker_text: str, extra: dict[str, Path] | None = None) -> bytes:
    """Build context: the Dockerfile, a clone of the task's mirror repository (its only commit)
    and `extra` files or folders by their name in the context."""
    with tempfile.TemporaryDirectory(prefix="sebgen-swe-") as tmp:
        testbed = Path(tmp) / "testbed"
        proc = subprocess.run(
            ["git", "clone", "-q", "--no-local", str(mirror), str(testbed)], capture_output=True, text=True
        )
        if proc.returncode != 0:
            raise ExportError(f"cannot clone {mirror}: {proc.stderr.strip()}")
        # no trace of this machine in the image: the remote and the clone's reflog name the mirror's path
        subprocess.run(["git", "-C", str(testbed), "remote", "remove", "origin"], capture_output=True)
        subprocess.run(["git", "-C", str(testbed), "reflog", "expire", "--expire=now", "--all"], capture_output=True)
        buf = io.BytesIO()
        with tarfile.open(fileobj=buf, mode="w") as tar:
            data = docker_text.encode()
            info = tarfile.TarInfo("Dockerfile")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
            tar.add(testbed, arcname="testbed")
            for name, path in sorted((extra or {}).items()):
                tar.add(str(path), arcname=name)
        return buf.getvalue()


def build_images(
    tasks: list[Task], rows: list[dict], mirror_dir: Path, base_image: str, pytest_spec: str, log=print
) -> list[str]:
    """docker build each row's `image` (network for the install steps only); returns the names."""
    from sandbox import docker_client

    client = docker_client()
    built = []
    by_id = {row["instance_id"]: row for row in rows}
    for task in tasks:
        tag = by_id[task.instance_id]["image"]
        recipe = task_js_recipe(task)
        extra: dict[str, Path] = {}
        if recipe is not None:
            text, extra = js_image(task, recipe, base_image)
        else:
            text = image_dockerfile(task, base_image, pytest_spec)
        try:
            context = _context(task_mirror(task, mirror_dir), text, extra)
        finally:
            if "sebgen-verifier" in extra:
                shutil.rmtree(extra["sebgen-verifier"], ignore_errors=True)
        log(f"sebgen: building {tag}")
        error, tail = "", []
        for chunk in client.api.build(
            fileobj=io.BytesIO(context),
            custom_context=True,
            tag=tag,
            network_mode="host",
            rm=True,
            forcerm=True,
            decode=True,
            pull=False,
            labels={"sebgen": "1", "sebgen.kind": "swebench"},
        ):
            if "stream" in chunk:
                tail = (tail + chunk["stream"].splitlines())[-20:]
            if "error" in chunk:
                error = str(chunk["error"]).strip()
        if error:
            raise ExportError(f"building {tag} failed: {error}; last lines:\n" + "\n".join(tail))
        built.append(tag)
    return built


def dataset_card(rows: list[dict], jsonl_name: str) -> str:
    """README.md for the folder: fields, counts, date range, how to evaluate (Hugging Face card front matter)."""
    repos = Counter(r["repo"] for r in rows)
    levels = Counter(r.get("difficulty_level") or "unknown" for r in rows)
    dates = sorted(r["created_at"] for r in rows if r.get("created_at"))
    span = f"{dates[0]} to {dates[-1]}" if dates else "unknown"
    has_images = all(r.get("image") for r in rows)
    fields = [
        ("instance_id", "unique id of the task"),
        ("repo", "source repository as owner/name"),
        (
            "base_commit",
            "commit holding the buggy state the agent starts from"
            if has_images
            else "the fixed commit (export with --mirror for the buggy state)",
        ),
        ("environment_setup_commit", "commit the environment is built from"),
        ("patch", "gold fix (diff)"),
        ("test_patch", "withheld tests (diff)"),
        ("problem_statement", "the task as given to the agent"),
        ("hints_text", "hints (may be empty)"),
        ("created_at", "date of the source commit"),
        ("version", "task format version"),
        ("FAIL_TO_PASS", "JSON list of tests the fix must make pass"),
        ("PASS_TO_PASS", "JSON list of tests that must keep passing"),
        ("image", "Docker image with the buggy state at /testbed (sebgen export --build-images)"),
        ("eval_script", "script the SWE-bench harness runs after applying the model patch"),
        ("log_parser", f"{LOG_PARSER}"),
        ("eval_type", f"{EVAL_TYPE}"),
        ("bug_patch", "SEBGen: diff from the fixed commit to the buggy state"),
        ("sebgen_fixed_commit", "SEBGen: the fixed commit in the source repository"),
        ("difficulty", "SEBGen: 0..1 from code metrics and execution; the levels cut it"),
        ("difficulty_level", "SEBGen: easy, medium or hard"),
    ]
    lines = [
        "---",
        "license: other",
        "task_categories:",
        "- text-generation",
        "tags:",
        "- swe-bench",
        "- sebgen",
        "configs:",
        "- config_name: default",
        "  data_files:",
        "  - split: test",
        f"    path: {jsonl_name}",
        "---",
        "",
        "# SEBGen tasks",
        "",
        f"{len(rows)} SWE-bench-style tasks generated and verified in Docker by SEBGen, "
        f"created {datetime.now(timezone.utc).date().isoformat()}.",
        "",
        "## Counts",
        "",
        "| repo | tasks |",
        "|---|---|",
        *[f"| {repo} | {count} |" for repo, count in sorted(repos.items())],
        "",
        "| difficulty | tasks |",
        "|---|---|",
        *[f"| {level} | {count} |" for level, count in sorted(levels.items())],
        "",
        f"Source commits dated {span}.",
        "",
        "## Fields",
        "",
        "| field | meaning |",
        "|---|---|",
        *[f"| `{name}` | {meaning} |" for name, meaning in fields],
        "",
        "## How to evaluate",
        "",
        "With the SWE-bench harness (5.x), once the images exist (`sebgen export --format swebench "
        "--build-images` builds them):",
        "",
        "```",
        f"python -m swebench.harness.run_evaluation --dataset_name {jsonl_name} --predictions_path PREDS.jsonl "
        "--run_id my-run --max_workers 1",
        "```",
        "",
        "`--predictions_path gold` runs the gold patches. With SEBGen itself: "
        f"`sebgen evaluate {jsonl_name} --predictions PREDS.jsonl`.",
        "",
    ]
    return "\n".join(lines)


def export_swebench(
    tasks: list[Task],
    out: Path,
    mirror_dir: Path | None = None,
    build: bool = False,
    base_image: str | None = None,
    pytest_spec: str | None = None,
    log=print,
) -> int:
    """SWE-bench JSONL plus README.md beside it; with mirror_dir the rows start from the published
    buggy commits, and with build their images are built."""
    out = Path(out)
    if build and mirror_dir is None:
        mirror_dir = out.parent / "mirror"
    commits = materialize(tasks, mirror_dir) if mirror_dir is not None else {}
    rows = [swebench_record(t, commits.get(t.instance_id)) for t in tasks]
    if build:
        from .harbor import default_base_image, host_pytest_spec

        build_images(
            tasks, rows, mirror_dir, base_image or default_base_image(), pytest_spec or host_pytest_spec(), log=log
        )
    count = write_jsonl(rows, out)
    card = out.parent / "README.md"
    if card.exists() and CARD_MARK not in card.read_text(errors="replace"):
        log(f"sebgen: warning: {card} exists and is not a SEBGen dataset card; left as it is")
    else:
        card.write_text(dataset_card(rows, out.name))
    return count
