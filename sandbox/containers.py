"""Every SEBGen container carries the label sebgen=1 and is removed on every path.

A process-wide registry tracks live containers so that atexit (normal exit, SystemExit,
KeyboardInterrupt unwinding) and SIGTERM remove them even when a worker thread is mid-run.
"""

from __future__ import annotations

import atexit
import os
import signal
import socket
import threading
from typing import Any

LABEL = "sebgen"
_live: dict[str, Any] = {}  # container id -> docker client that created it
_lock = threading.Lock()
_hooks_installed = False
_engine: Any = None  # a client of the engine this process creates containers on (for the exit sweep)


def run_labels(**info: str) -> dict[str, str]:
    """Labels of one validation container: the marker plus who started it (host, pid, the pid's
    start time, so a reused pid is not mistaken for the owner) and for what."""
    return {
        LABEL: "1",
        "sebgen.pid": str(os.getpid()),
        "sebgen.host": _host(),
        "sebgen.started": _start_time(os.getpid()),
        **{f"sebgen.{k}": str(v) for k, v in info.items()},
    }


def _host() -> str:
    return socket.gethostname()


def _start_time(pid: int) -> str:
    """The process's start time in clock ticks since boot ('' when unknown)."""
    try:
        stat = open(f"/proc/{pid}/stat", encoding="ascii", errors="replace").read()
        return stat.rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return ""


def owner_alive(labels: dict) -> bool:
    """Whether the process that started a container still runs (containers of other hosts: yes)."""
    pid = labels.get("sebgen.pid", "")
    host = labels.get("sebgen.host")
    if host != _host():  # another machine's (or an older SEBGen's, unlabelled): not ours to judge
        return True
    if not pid.isdigit():
        return True
    if not _pid_alive(int(pid)):
        return False
    started = labels.get("sebgen.started")
    return not started or _start_time(int(pid)) in ("", started)


def reap_dead_owners(client: Any) -> int:
    """Remove SEBGen containers whose owning process is gone (run at every backend start)."""
    return clean_stragglers(client, only_dead_owners=True)


def creating(client: Any) -> None:
    """Say before asking the engine for a container: one whose id never reached us (an interrupt
    during the create call) is then still removed at exit, found by this process's labels."""
    global _engine
    _install_hooks()
    _engine = client


def register(container_id: str, client: Any) -> None:
    _install_hooks()
    with _lock:
        _live[container_id] = client


def remove(container_id: str) -> None:
    """Force-remove a container and its anonymous volumes; never raises."""
    with _lock:
        client = _live.pop(container_id, None)
    if client is None:
        return
    try:
        client.api.remove_container(container_id, force=True, v=True)
    except Exception:  # already gone, or the engine went away: nothing left to do
        pass


def remove_all() -> int:
    """Remove every container of this process: the registered ones, then any other carrying this
    process's labels (created while an interrupt cut the create call short)."""
    with _lock:
        ids = list(_live)
    for cid in ids:
        remove(cid)
    if _engine is not None:
        try:
            mine = {"sebgen.pid": str(os.getpid()), "sebgen.host": _host()}
            labels = [f"{k}={v}" for k, v in mine.items()]
            for info in _engine.api.containers(all=True, filters={"label": [f"{LABEL}=1", *labels]}):
                if (info.get("Labels") or {}).get("sebgen.started") == _start_time(os.getpid()):
                    _engine.api.remove_container(info["Id"], force=True, v=True)
                    ids.append(info["Id"])
        except Exception:  # the engine went away: nothing left to do
            pass
    return len(ids)


def _on_sigterm(signum, frame):  # turn SIGTERM into an unwinding exit so finally blocks run
    remove_all()
    raise SystemExit(128 + signum)


def _install_hooks() -> None:
    global _hooks_installed
    if _hooks_installed:
        return
    _hooks_installed = True
    atexit.register(remove_all)
    if threading.current_thread() is threading.main_thread():
        try:
            if signal.getsignal(signal.SIGTERM) in (signal.SIG_DFL, None):
                signal.signal(signal.SIGTERM, _on_sigterm)
        except ValueError:  # not in the main interpreter thread
            pass


def clean_stragglers(client: Any, only_dead_owners: bool = False) -> int:
    """Remove SEBGen-labelled containers left by crashed runs; returns how many were removed.

    With only_dead_owners, containers whose owning process (label sebgen.pid) still runs on
    this host are kept, so a concurrent run is not disturbed.
    """
    removed = 0
    for info in client.api.containers(all=True, filters={"label": f"{LABEL}=1"}):
        if only_dead_owners and owner_alive(info.get("Labels") or {}):
            continue
        try:
            client.api.remove_container(info["Id"], force=True, v=True)
            removed += 1
        except Exception:
            pass
    return removed


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
        return True
    except ProcessLookupError:
        return False
    except PermissionError:
        return True


# `Limits.cgroup_parent` value that asks the engine which parent gives containers a fair CPU share
AUTO_CGROUP_PARENT = "auto"


def fair_cgroup_parent(wanted: str, engine_info: dict) -> str:
    """The cgroup parent validation containers get ("": the engine's own), given the configured
    value and the engine's `docker info`.

    Only "auto" is decided here; any other value is the user's. The cgroupfs driver puts every
    container under one `/docker` group, which the CPU scheduler weighs as one process among the
    host's: on a busy machine all containers together get one process's share, and a validation
    runs several times slower than the same tests natively. Parent "/" makes each container a
    group of its own at the top, weighed like one host process, as the native run is (its CPU
    stays bounded by `cpus`, its memory and pids by their limits). The systemd driver already
    gives each container a scope of its own beside the services and user sessions, and a rootless
    engine may not create groups outside its delegated subtree: both keep the engine's own."""
    if wanted != AUTO_CGROUP_PARENT:
        return wanted
    rootless = any("name=rootless" in opt for opt in engine_info.get("SecurityOptions") or [])
    if engine_info.get("CgroupDriver") == "cgroupfs" and not rootless:
        return "/"
    return ""
