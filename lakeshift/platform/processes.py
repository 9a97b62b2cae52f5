"""Pid files and process control for the servers lakeshift starts in the background."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from pathlib import Path


def pid_alive(pid: int, marker: str) -> bool:
    """True when ``pid`` runs and its command line contains ``marker`` (guards pid reuse)."""
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        try:
            os.kill(pid, 0)
        except OSError:
            return False
        return True
    return marker in cmdline


def read_pid(pid_file: Path) -> int | None:
    try:
        return int(pid_file.read_text().strip())
    except (OSError, ValueError):
        return None


def terminate(pid: int, marker: str, grace: float = 20.0) -> bool:
    """SIGTERM the process group of ``pid``, then SIGKILL after ``grace`` seconds."""
    if not pid_alive(pid, marker):
        return False
    for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, 5.0)):
        try:
            os.killpg(pid, sig)
        except ProcessLookupError:
            return True
        except PermissionError:
            os.kill(pid, sig)
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            if not pid_alive(pid, marker):
                _reap(pid)
                return True
            _reap(pid)
            time.sleep(0.2)
    return not pid_alive(pid, marker)


def _reap(pid: int) -> None:
    """Collect an exited child so it does not linger as a zombie (when it is ours)."""
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)


def log_tail(path: Path, lines: int = 25) -> str:
    try:
        text = path.read_text(errors="replace").splitlines()
    except OSError:
        return "(no log file)"
    interesting = [line for line in text if "WARN StatusConsoleListener" not in line]
    return "\n".join(interesting[-lines:])


def spawn_detached(
    cmd: list[str], *, cwd: Path, log_file: Path, pid_file: Path, env: dict[str, str] | None = None
) -> subprocess.Popen[bytes]:
    """Start a server in its own session (it outlives this command), output to ``log_file``,
    pid recorded in ``pid_file``."""
    with log_file.open("ab") as out:
        proc = subprocess.Popen(
            cmd,
            cwd=cwd,
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
            env=env,
        )
    pid_file.write_text(str(proc.pid))
    return proc
