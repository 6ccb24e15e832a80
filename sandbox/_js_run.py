"""A JavaScript/TypeScript test run inside a container (standard library only; see sandbox/js_run.py).

Started by the supervisor as the sandbox user with the job file's path. The report pipe
($SEBGEN_REPORT_FD) stays with this process: the build steps and the runner get no copy of it
(subprocess closes inherited descriptors), so only this script answers: one JSON line,
{"exit_code": the runner's, "report": true, "why": ""}, followed by the reporter file's text as it
is (no second level of JSON escaping: a large suite's report is tens of MB); or
{"exit_code": ..., "report": null, "why": ...}; or {"build_failed": step, "exit_code": ...}.
The key pipe (when the runner's reporter signs its report) goes to the runner only, as its standard
input ($SEBGEN_KEY_FD=0): a launcher that starts the real runner as a child process (mocha's `bin/mocha`
does, always before mocha 6, for node flags since) passes its standard streams on and no other
descriptor, so the reporter in that child still finds the key; it drains the pipe when it loads
(mocha 1's launcher passes nothing on today's Node: `runner_argv` runs its real mocha instead).
"""

import json
import os
import shutil
import subprocess
import sys


def main():
    fd = int(os.environ.pop("SEBGEN_REPORT_FD"))
    # the key pipe (when the runner's reporter signs) goes to the runner alone, not to the build steps
    key_fd = os.environ.pop("SEBGEN_KEY_FD", None)
    runner_stdin, runner_env = subprocess.DEVNULL, dict(os.environ)
    if key_fd is not None:
        runner_stdin, runner_env = int(key_fd), dict(os.environ, SEBGEN_KEY_FD="0")
    with open(sys.argv[1], encoding="utf-8") as fh:
        job = json.load(fh)
    tree = job["tree"]

    def answer(obj, text=""):
        data = json.dumps(obj).encode() + b"\n" + text.encode("utf-8", errors="replace")
        while data:
            data = data[os.write(fd, data) :]
        os.close(fd)

    # the image's node_modules, whatever the tree brought at that name
    installed = os.path.join(tree, "node_modules")
    if os.path.islink(installed) or os.path.isfile(installed):
        os.unlink(installed)
    elif os.path.isdir(installed):
        shutil.rmtree(installed)
    os.symlink(job["node_modules"], installed)
    for step in job["build"]:
        print(f"sebgen: build step: {step}", flush=True)
        code = subprocess.run(["/bin/sh", "-c", step], cwd=tree, stdin=subprocess.DEVNULL).returncode
        if code != 0:
            answer({"build_failed": step, "exit_code": code})
            return 3
    argv = runner_argv(job)
    print("sebgen: " + " ".join(argv), flush=True)
    runner = subprocess.Popen(argv, cwd=tree, stdin=runner_stdin, env=runner_env)
    if key_fd is not None:  # the runner has its copy: none stays here while the tests run
        os.close(int(key_fd))
    code = runner.wait()
    try:
        with open(job["report"], encoding="utf-8", errors="replace") as fh:
            report = fh.read(job["report_limit"] + 1)
    except OSError as exc:
        answer({"exit_code": code, "report": None, "why": exc.strerror or str(exc)})
        return 0
    if len(report) > job["report_limit"]:
        answer({"exit_code": code, "report": None, "why": f"the report is over {job['report_limit'] >> 20} MiB"})
        return 0
    answer({"exit_code": code, "report": True, "why": ""}, report)
    return 0


def runner_argv(job):
    """The job's argv, fitted to the installed runner: mocha before 4 has no `--exit` (it rejects
    the run: it always exited when its tests were done); a mocha launcher that starts the real
    mocha with `customFds` (mocha 1) is skipped for that real mocha, `bin/_mocha`: today's Node
    ignores the option and gives the child pipes that the launcher neither fills nor reads, so the
    reporter there waits forever for the key on its standard input (and the output is lost)."""
    argv = list(job["argv"])
    if job.get("runner") != "mocha":
        return argv
    if "--exit" in argv and installed_major(job["node_modules"], "mocha") < 4:
        argv.remove("--exit")
    bin_dir = os.path.join(job["node_modules"], "mocha", "bin")
    if argv[0] == "node_modules/.bin/mocha" and launcher_loses_streams(bin_dir):
        argv[0] = "node_modules/mocha/bin/_mocha"
    return argv


def launcher_loses_streams(bin_dir):
    """Whether mocha's launcher in `bin_dir` hands its child the streams through `customFds`
    (an option Node dropped) while the real mocha, `_mocha`, is there to run instead."""
    try:
        with open(os.path.join(bin_dir, "mocha"), encoding="utf-8", errors="replace") as fh:
            launcher = fh.read(1 << 16)
    except OSError:
        return False
    return "customFds" in launcher and os.path.isfile(os.path.join(bin_dir, "_mocha"))


def installed_major(node_modules, package):
    """The major version of `package` in node_modules (a large number when unknown: the newest)."""
    try:
        with open(os.path.join(node_modules, package, "package.json"), encoding="utf-8") as fh:
            return int(str(json.load(fh).get("version", "")).split(".")[0])
    except (OSError, ValueError, AttributeError):
        return 1 << 30


if __name__ == "__main__":
    sys.exit(main())
