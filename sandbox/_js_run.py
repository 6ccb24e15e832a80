"""A JavaScript/TypeScript test run inside a container (standard library only; see sandbox/js_run.py).

Started by the supervisor as the sandbox user with the job file's path. The report pipe
($SEBGEN_REPORT_FD) stays with this process: the build steps and the runner get no copy of it
(subprocess closes inherited descriptors), so only this script answers, with one JSON object:
{"exit_code": the runner's, "report": the reporter file's text or null, "why": ...} or
{"build_failed": step, "exit_code": ...}.
"""

import json
import os
import shutil
import subprocess
import sys

REPORT_LIMIT = 4 * 2**20 - 4096  # the supervisor's limit, less this script's envelope


def main():
    fd = int(os.environ.pop("SEBGEN_REPORT_FD"))
    with open(sys.argv[1], encoding="utf-8") as fh:
        job = json.load(fh)
    tree = job["tree"]

    def answer(obj):
        data = json.dumps(obj).encode()
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
    print("sebgen: " + " ".join(job["argv"]), flush=True)
    code = subprocess.run(job["argv"], cwd=tree, stdin=subprocess.DEVNULL).returncode
    try:
        with open(job["report"], encoding="utf-8", errors="replace") as fh:
            report, why = fh.read(REPORT_LIMIT + 1), ""
        if len(report) > REPORT_LIMIT:
            report, why = None, "the report is over the size limit"
    except OSError as exc:
        report, why = None, exc.strerror or str(exc)
    answer({"exit_code": code, "report": report, "why": why})
    return 0


if __name__ == "__main__":
    sys.exit(main())
