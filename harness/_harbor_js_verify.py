"""SEBGen's verifier of a JavaScript/TypeScript Harbor task (standard library and the SEBGen
modules shipped beside it only; see harness/harbor.py). Run as root by tests/test.sh:

    python3 -I -S verify.py CONFIG.json [FIXED_TREE]

(the SWE-bench export's eval script runs it too, from its image, with the whole fixed tree it
unpacked, on /testbed; its log parser reads the `PASSED id` / `FAILED id` lines this prints)

1. every `node_modules` in /app goes and the image's installed one is linked in its place;
2. the test files and whatever decides how tests are installed, collected or run are put back to
   the fixed state (`sandbox.integrity.restore_for_verification`, with the protected files of the
   fixed tree beside this script);
3. two canary tests with random names are planted next to the first listed test file, in the
   runner's own syntax: one passes, one fails;
4. the recipe's build steps, then the runner straight from node_modules with SEBGen's reporter;
5. reward 1 only when the report (`sandbox.js_report.parse_report`) shows every listed test
   passed, the canaries came out as planted and the runner's exit code says something failed.
Anything else leaves reward 0, which test.sh writes before it starts this script.
"""

import importlib
import json
import os
import secrets
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

# the copies of SEBGen's modules beside this script (never imported in SEBGen's own process)
restore_for_verification = importlib.import_module("sandbox.integrity").restore_for_verification
js_report = importlib.import_module("sandbox.js_report")
RunnerReportError, js_test_id = js_report.RunnerReportError, js_report.js_test_id
parse_report, runner_command = js_report.parse_report, js_report.runner_command
# the sandbox's own fitting of the argv to the installed runner (an old mocha's flags and launcher)
runner_argv = importlib.import_module("sandbox._js_run").runner_argv

STATUS = {"passed": "PASSED", "failed": "FAILED", "skipped": "SKIPPED", "error": "ERROR"}

# one passing and one failing test, by runner; {p} and {f} are the titles
CANARIES = {
    "node-test": 'const {{ test }} = require("node:test");\n'
    'test("{p}", () => {{}});\ntest("{f}", () => {{ throw new Error("sebgen canary"); }});\n',
    "mocha": 'it("{p}", function () {{}});\nit("{f}", function () {{ throw new Error("sebgen canary"); }});\n',
    "jest": 'test("{p}", () => {{}});\ntest("{f}", () => {{ throw new Error("sebgen canary"); }});\n',
    "vitest": 'import {{ test }} from "vitest";\n'
    'test("{p}", () => {{}});\ntest("{f}", () => {{ throw new Error("sebgen canary"); }});\n',
}


def say(log, line):
    print(line, flush=True)
    log.write(line + "\n")
    log.flush()


def canary_path(runner, first_test, token):
    """Next to the first listed test (the runner's config finds it there); node:test and mocha
    get CommonJS whatever the package's module type, jest and vitest the listed file's extension
    (what their include patterns and transforms take)."""
    folder = os.path.dirname(first_test)
    if runner in ("node-test", "mocha"):
        ext = ".cjs"
    else:
        name = os.path.basename(first_test)
        ext = name[name.index(".test.") + 5 :] if ".test." in name else os.path.splitext(name)[1]
        ext = "." + ext.lstrip(".")
    return os.path.join(folder, f"sebgen-canary-{token}.test{ext}")


def remove_node_modules(app):
    for dirpath, dirnames, _ in os.walk(app):
        for name in list(dirnames):
            if name == "node_modules":
                path = os.path.join(dirpath, name)
                if os.path.islink(path):
                    os.unlink(path)
                else:
                    shutil.rmtree(path, ignore_errors=True)
                dirnames.remove(name)
    path = os.path.join(app, "node_modules")
    if os.path.lexists(path):  # a file the agent put there
        os.unlink(path)


def fixed_tree():
    """The fixed state's file set: its protected files as they are (beside this script) and an
    empty stand-in for each other file, which restoring never copies but which tells files the
    agent added from files the fixed state has."""
    tree = tempfile.mkdtemp(prefix="sebgen-fixed-")
    shutil.copytree(os.path.join(HERE, "fixed"), tree, symlinks=True, dirs_exist_ok=True)
    with open(os.path.join(HERE, "tree_files.txt"), encoding="utf-8") as fh:
        for rel in filter(None, fh.read().split("\n")):
            path = os.path.join(tree, rel)
            if not os.path.lexists(path):
                os.makedirs(os.path.dirname(path), exist_ok=True)
                open(path, "w").close()
    return tree


def main():
    with open(sys.argv[1], encoding="utf-8") as fh:
        config = json.load(fh)
    app, logs = config.get("app", "/app"), config.get("logs", "/logs/verifier")
    os.makedirs(logs, exist_ok=True)
    log = open(os.path.join(logs, "test_output.log"), "w", encoding="utf-8")
    remove_node_modules(app)
    fixed = sys.argv[2] if len(sys.argv) > 2 else fixed_tree()
    restoration = restore_for_verification(app, fixed, set(config["withheld"]))
    if restoration.void:
        say(log, f"sebgen: verdict void: {restoration.void}")
        return 0
    if restoration.reverted or restoration.removed:
        say(log, f"sebgen: put back to the fixed state: {restoration.summary()}")
    os.symlink(config["node_modules"], os.path.join(app, "node_modules"))
    runner, tests = config["runner"], config["test_files"]
    token = secrets.token_hex(8)
    canary = canary_path(runner, tests[0], token)
    passing, failing = f"sebgen canary passes {token}", f"sebgen canary fails {token}"
    with open(os.path.join(app, canary), "w", encoding="utf-8") as fh:
        fh.write(CANARIES[runner].format(p=passing, f=failing))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NODE_", "npm_", "NPM_"))}
    env.update(config["env"])
    env["PATH"] = f"{app}/node_modules/.bin:" + env.get("PATH", "/usr/bin:/bin")
    for step in config["build"]:
        say(log, f"sebgen: build step: {step}")
        done = subprocess.run(["/bin/sh", "-c", step], cwd=app, env=env, stdout=log, stderr=subprocess.STDOUT)
        if done.returncode != 0:
            say(log, f"sebgen: the build step failed with exit code {done.returncode}")
            return 0
    report_dir = tempfile.mkdtemp(prefix="sebgen-report-")
    report = os.path.join(report_dir, "report.json")
    argv = runner_command(
        runner, [*tests, canary], report, options=config["options"], reporters_dir=os.path.join(HERE, "reporters")
    )
    argv = runner_argv({"argv": argv, "runner": runner, "node_modules": config["node_modules"]})
    if runner == "mocha":  # where the reporter writes under a mocha without --reporter-options (before 2.2)
        env["SEBGEN_MOCHA_REPORT"] = report
    say(log, "sebgen: " + " ".join(argv))
    done = subprocess.run(argv, cwd=app, env=env, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)
    if os.path.lexists(os.path.join(app, canary)):
        os.unlink(os.path.join(app, canary))
    try:
        with open(report, encoding="utf-8", errors="replace") as fh:
            outcomes = parse_report(runner, fh.read(), app).outcomes
    except (OSError, RunnerReportError) as exc:
        say(log, f"sebgen: no readable report (exit code {done.returncode}): {exc}")
        return 0
    canaries = (outcomes.pop(js_test_id(canary, [passing]), None), outcomes.pop(js_test_id(canary, [failing]), None))
    if canaries != ("passed", "failed") or done.returncode == 0:
        say(log, f"sebgen: verdict void: the canaries ({canaries}) or the exit code ({done.returncode}) show tampering")
        return 0
    for test_id, outcome in sorted(outcomes.items()):
        say(log, f"{STATUS[outcome]} {test_id}")
    missing = [t for t in config["expected"] if outcomes.get(t) != "passed"]
    for test_id in missing:
        say(log, f"sebgen: not passed: {test_id} ({outcomes.get(test_id, 'not reported')})")
    if not missing:
        with open(os.path.join(logs, "reward.txt"), "w") as fh:
            fh.write("1\n")
        say(log, "sebgen: every listed test passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
