"""The process that owns a test run's verdict (standard library only: its source runs in containers).

In a validation container it is PID 1 and root: it waits for one job on stdin (a JSON line,
then the tree's tar), acknowledges it, unpacks the tree, writes the report plugin and a canary
module into a root-owned folder, and runs pytest as the unprivileged sandbox user with the
report pipe as the only channel back. When pytest has exited (or the time is up) every process
of the sandbox user is killed before the pipe is drained, so nothing the tests started can add
to the report afterwards. The verdict (pytest's exit status, the report's bytes, the output's
tail) is one JSON line on the supervisor's stdout, which the tests cannot reach. EOF on stdin
means the owner went away: the run is killed and the container ends (the warm-container lease).
The local backend uses run_child() in-process with its own cleanup.
"""

import contextlib
import json
import os
import select
import signal
import subprocess
import sys
import tarfile
import threading
import time

REPORT_LIMIT = 4 * 2**20  # bytes of report read; more voids the run
MAX_REPORT_LIMIT = 64 * 2**20  # what a job may raise it to (a JS runner's report of a large suite)
LOG_TAIL = 16 * 1024  # bytes of test output kept
JOB_LINE_LIMIT = 1 << 20


def canary_source(must_fail: str, must_pass: str) -> str:
    """The canary module: two tests (one must fail, one must pass) and the plugin that puts them
    first in every session. It is loaded with `-p` from the root-owned folder, so no ini filter
    applies: its items are built by name from the module as loaded (python_files,
    python_classes, python_functions, testpaths and the import mode do not choose them, and a
    run that rewrites the file changes nothing) and added after every other implementation of
    the hook has run (no `-k`, `-m` or `--deselect` of the suite's drops them)."""
    return (
        '"""SEBGen\'s canary tests and the plugin that runs them first."""\n'
        "import sys\nfrom pathlib import Path\n\nimport pytest\n\n\n"
        f"def {must_fail}():\n    assert False, 'sebgen canary: this test must fail'\n\n\n"
        f"def {must_pass}():\n    pass\n\n\n"
        "@pytest.hookimpl(hookwrapper=True)\n"
        "def pytest_collection_modifyitems(session, config, items):\n"
        "    yield\n"
        "    from _pytest.python import Function, Module\n\n"
        "    module = Module.from_parent(session, path=Path(__file__))\n"
        "    module.obj = sys.modules[__name__]  # this module as loaded, never the file read again\n"
        "    # first: a bug that breaks the process for later tests must not take the canaries down\n"
        "    items[:0] = [\n"
        "        Function.from_parent(module, name=n, callobj=getattr(module.obj, n))\n"
        f"        for n in ({must_fail!r}, {must_pass!r})\n"
        "    ]\n"
    )


def _read_ready(fd, buf, limit, keep_tail):
    """Read what is ready on fd into buf; returns (open, overflowed)."""
    try:
        chunk = os.read(fd, 65536)
    except BlockingIOError:
        return True, False
    if not chunk:
        return False, False
    buf += chunk
    if keep_tail:
        del buf[:-limit]
        return True, False
    return True, len(buf) > limit


# The pytest process of a warm container, started before the job so that the run's time is the
# tests' own: it imports pytest (from the environment, before any tree exists), then waits for
# one line (sys.path entries, environment, cwd, pytest arguments) and runs pytest in-process.
# "policy" maps a plugin's top-level module to the arguments that neutralise its session-level
# policies (a coverage threshold); they are added when the environment (not the tree, which is
# not on the path yet) has that plugin.
ZYGOTE = """
import json, os, sys
import pytest
line = sys.stdin.readline()
if not line:
    os._exit(97)
job = json.loads(line)
try:
    from importlib.metadata import entry_points
    try:
        eps = entry_points(group="pytest11")
    except TypeError:
        eps = entry_points().get("pytest11", [])
    installed = {ep.value.split(":")[0].split(".")[0] for ep in eps}
except Exception:
    installed = set()
for module, extra in sorted((job.get("policy") or {}).items()):
    if module in installed:
        job["args"] = list(extra) + job["args"]
os.environ.update(job["env"])
sys.path[:0] = job["path"]
sys.dont_write_bytecode = True
os.chdir(job["cwd"])
sys.argv = ["pytest", *job["args"]]
sys.exit(int(pytest.main(job["args"])))
"""


def start_child(cmd, cwd, env, uid=None, stdin=subprocess.DEVNULL, key=None):
    """Start cmd with a report pipe (fd in $SEBGEN_REPORT_FD) and an output pipe; -> (proc, report_r, log_r).
    A `key` (a JS run's secret for SEBGen's reporter to sign with) is the whole content of one more
    pipe, fd in $SEBGEN_KEY_FD: root made it, so the sandbox user cannot reopen it through /proc,
    and the first reader drains it."""
    report_r, report_w = os.pipe()
    log_r, log_w = os.pipe()
    env = dict(env, SEBGEN_REPORT_FD=str(report_w))
    passed = [report_w]
    if key:
        key_r, key_w = os.pipe()
        os.write(key_w, key.encode())  # 64 bytes: far under a pipe's buffer
        os.close(key_w)
        env["SEBGEN_KEY_FD"] = str(key_r)
        passed.append(key_r)
    extra = {"user": uid, "group": uid, "extra_groups": []} if uid is not None else {}
    proc = subprocess.Popen(
        cmd,
        cwd=cwd,
        env=env,
        stdin=stdin,
        stdout=log_w,
        stderr=subprocess.STDOUT,
        pass_fds=tuple(passed),
        start_new_session=True,
        **extra,
    )
    for fd in passed:
        os.close(fd)
    os.close(log_w)
    return proc, report_r, log_r


def run_child(cmd, cwd, env, timeout_s, cleanup, uid=None, stop=None, report_limit=REPORT_LIMIT, key=None):
    """Run cmd with a report pipe; returns exit_code, timed_out, report text, overflow, log tail."""
    return supervise(*start_child(cmd, cwd, env, uid, key=key), timeout_s, cleanup, stop, report_limit)


def supervise(proc, report_r, log_r, timeout_s, cleanup, stop=None, report_limit=REPORT_LIMIT):
    """Wait for a started child (deadline, stop event, report size), clean up, drain the pipes."""
    report, log = bytearray(), bytearray()
    fds = {report_r: report, log_r: log}
    deadline = time.monotonic() + timeout_s
    cpu_before = _children_cpu()
    timed_out = overflow = stopped = False
    exit_code = None
    while exit_code is None:
        exit_code = proc.poll()
        if exit_code is not None:
            break
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            timed_out = True
            break
        if stop is not None and stop.is_set():
            stopped = True
            break
        ready = select.select(list(fds), [], [], min(remaining, 0.5))[0] if fds else []
        if not fds:  # both pipes at EOF: the child is exiting, so wake as soon as it has
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=min(remaining, 0.1))
        for fd in ready:
            still_open, over = _read_ready(fd, fds[fd], LOG_TAIL if fd == log_r else report_limit, fd == log_r)
            overflow = overflow or over
            if not still_open:
                os.close(fd)
                del fds[fd]
        if overflow:
            break
    ended = time.monotonic()
    cleanup(proc)
    cleaned = time.monotonic()
    if exit_code is None:
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            pass
        exit_code = -9
    cpu = _children_cpu() - cpu_before
    for fd in list(fds):  # what is left in the pipes; writers that survived cleanup get no EOF wait
        os.set_blocking(fd, False)
        while not overflow:
            if not select.select([fd], [], [], 0)[0]:
                break
            still_open, over = _read_ready(fd, fds[fd], LOG_TAIL if fd == log_r else report_limit, fd == log_r)
            overflow = overflow or over
            if not still_open:
                break
        os.close(fd)
    return {
        "exit_code": exit_code,
        "timed_out": timed_out,
        "stopped": stopped,
        "report_overflow": overflow,
        "oom_kills": oom_kills(),
        "seconds": {
            "run": round(ended - deadline + timeout_s, 3),
            "cleanup": round(cleaned - ended, 3),
            "cpu": round(cpu, 3),  # the test process's CPU (user + system): what a busy machine cannot stretch
        },
        "report": None if overflow else bytes(report).decode("utf-8", errors="replace"),
        "log_tail": bytes(log[-LOG_TAIL:]).decode("utf-8", errors="replace"),
    }


def _children_cpu():
    """CPU seconds of this process's children that have been waited for."""
    import resource

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def kill_user(uid):
    """A cleanup that kills every process of `uid` (kill(-1) from a process running as that user)."""

    def cleanup(proc):
        for _ in range(5):
            _reap()
            _kill_as(uid)
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass
            _reap()
            if not _processes_of(uid):
                break

    return cleanup


def _kill_as(uid):
    """kill(-1, SIGKILL) from a forked child that became `uid`: every process of the user dies (the
    child itself and PID 1 are spared by the kernel). A fork, not a new interpreter: no start-up."""
    pid = os.fork()
    if pid == 0:
        try:
            os.setgroups([])
            os.setgid(uid)
            os.setuid(uid)
            os.kill(-1, signal.SIGKILL)
        finally:
            os._exit(0)
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:
        pass


def _reap():
    """As PID 1, collect the orphans that died (zombies would look like live processes)."""
    try:
        while os.waitpid(-1, os.WNOHANG)[0] > 0:
            pass
    except ChildProcessError:
        pass


def _processes_of(uid):
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as fh:
                    state = fh.read().rsplit(")", 1)[1].split()[0]
                if state != "Z" and os.stat(f"/proc/{entry}").st_uid == uid:
                    found.append(int(entry))
            except OSError:
                pass
    return found


def oom_kills():
    """Processes the kernel killed for memory in this cgroup so far (-1 when unknown)."""
    for path, key in (
        ("/sys/fs/cgroup/memory.events", "oom_kill"),
        ("/sys/fs/cgroup/memory/memory.oom_control", "oom_kill"),
    ):
        try:
            with open(path, encoding="ascii") as fh:
                for line in fh:
                    name, _, value = line.partition(" ")
                    if name == key:
                        return int(value)
        except (OSError, ValueError):
            continue
    return -1


def _emit(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def _read_exact(stream, size):
    data = bytearray()
    while len(data) < size:
        chunk = stream.read(size - len(data))
        if not chunk:
            return None
        data += chunk
    return bytes(data)


def _extract(data, dest, uid):
    """Unpack the tree as root (members may not leave dest), then hand it to the sandbox user."""
    import io

    root = os.path.realpath(dest)
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        for member in tar.getmembers():
            target = os.path.realpath(os.path.join(root, member.name.lstrip("/")))
            if os.path.commonpath([root, target]) != root:
                raise ValueError(f"tar member {member.name!r} escapes {dest}")
            if not (member.isfile() or member.isdir() or member.issym()):
                continue
            member.mode &= 0o755
            member.uid = member.gid = 0  # root's while unpacking (root has no DAC override here)
            member.uname = member.gname = "root"
            tar.extract(member, root, set_attrs=not member.issym())
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            os.lchown(os.path.join(dirpath, name), uid, uid)


def main():
    uid = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    base_env = {
        "HOME": "/tmp",
        "LANG": "C.UTF-8",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
    }
    zygote = start_child(["python", "-c", ZYGOTE], "/", base_env, uid=uid, stdin=subprocess.PIPE)
    stdin = sys.stdin.buffer
    line = stdin.readline(JOB_LINE_LIMIT)
    job = json.loads(line) if line.endswith(b"\n") else None
    data = _read_exact(stdin, job["tar_size"]) if job else None
    if data is None:  # the owner went away before sending a whole job: the lease ends here
        sys.exit(97)  # PID 1 leaving takes every process of the container with it
    _emit({"ack": job["nonce"]})
    stop = threading.Event()

    def watch_owner():  # EOF on stdin: the owner's attach connection closed (it died or gave up)
        while stdin.read(65536):
            pass
        stop.set()

    threading.Thread(target=watch_owner, daemon=True).start()
    unpacking = time.monotonic()
    os.makedirs(job["work"], exist_ok=True)
    _extract(data, job["work"], uid)
    del data
    private = job["private"]  # root-owned: the plugin and the canary module, readable only
    os.makedirs(private, mode=0o755, exist_ok=True)
    for name, text in job["files"].items():
        with open(os.path.join(private, name), "w", encoding="utf-8") as fh:
            fh.write(text)
        os.chmod(os.path.join(private, name), 0o644)
    extract_s = round(time.monotonic() - unpacking, 3)
    env = dict(job["env"])
    timeout_s, cleanup = float(job["timeout_s"]), kill_user(uid)
    if job.get("cmd"):  # a custom test command: started now, the zygote is not needed
        zygote[0].stdin.close()  # it ends on EOF (root may not signal it: no CAP_KILL)
        limit = min(int(job.get("report_limit") or REPORT_LIMIT), MAX_REPORT_LIMIT)
        result = run_child(
            job["cmd"],
            job["cwd"],
            dict(base_env, **env),
            timeout_s,
            cleanup,
            uid=uid,
            stop=stop,
            report_limit=limit,
            key=job.get("key"),
        )
    else:
        proc = zygote[0]
        go = {"env": env, "path": job["path"], "cwd": job["cwd"], "args": job["args"], "policy": job.get("policy")}
        try:
            proc.stdin.write((json.dumps(go) + "\n").encode())
            proc.stdin.close()
        except OSError:
            pass  # the zygote died: supervise() reports its exit
        result = supervise(proc, zygote[1], zygote[2], timeout_s, cleanup, stop)
    result["full"] = [path for path in (job["work"], "/tmp") if _nearly_full(path)]
    result["seconds"]["extract"] = extract_s
    _emit({"result": job["nonce"], **result})


def _nearly_full(path):
    try:
        st = os.statvfs(path)
    except OSError:
        return False
    return st.f_bavail * st.f_frsize < 2**20


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, lambda *a: sys.exit(143))
    main()
