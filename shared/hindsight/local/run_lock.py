"""One ``hindsight run`` per data folder.

A second stack on the same folder would share its Postgres and Redis but start an SQS emulator of its
own and rewrite ``hindsight.env`` to point at it; once it stopped, the CLI of the first stack would talk
to a dead emulator. So ``hindsight run`` takes ``run.lock`` in the data folder first and refuses to start
while another process holds it, naming that process (pid, MCP URL) and how to stop it.

The lock is an ``flock`` held for the life of the process: the kernel releases it when the process ends,
however it ends, so a stack killed with SIGKILL leaves no lock that blocks the next one (nothing to clean
up, no pid to trust). The file's JSON (pid, URL) is only there to say who holds it. Its descriptor is not
inherited by the services the stack starts (Python opens files non-inheritable), so a Postgres or Redis
that outlives a killed stack does not keep the folder locked.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import time
from pathlib import Path
from typing import Any

LOCK_FILE = "run.lock"


class StackAlreadyRunning(RuntimeError):
    """Another process runs a stack on this data folder. ``holder``: what it wrote (pid, url, started);
    empty when it has not written it yet."""

    def __init__(self, data_dir: Path, holder: dict[str, Any]) -> None:
        self.data_dir = data_dir
        self.holder = holder
        pid = holder.get("pid")
        who = f"pid {pid}" if pid else "a process that is still starting"
        url = holder.get("url")
        where = f", MCP URL {url}" if url else ""
        stop = f"`kill {pid}` (SIGTERM stops it cleanly)" if pid else "stopping that process"
        super().__init__(
            f"a Hindsight stack already runs on {data_dir} ({who}{where}). Its CLI settings "
            f"({data_dir}/hindsight.env) are left alone: `hindsight` commands reach that stack. Stop it with "
            f"Ctrl-C in its terminal or {stop}, or start another stack on its own data folder: "
            "`hindsight run --data-dir DIR` (make run: HINDSIGHT_DATA_DIR=DIR make run)."
        )


class RunLock:
    """``acquire()`` when the stack starts, ``update(url=…)`` once it serves, ``release()`` when it stops
    (also released by the kernel if the process dies)."""

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = data_dir
        self.path = data_dir / LOCK_FILE
        self._fd: int | None = None
        self._info: dict[str, Any] = {}

    def acquire(self) -> RunLock:
        """Take the lock and write this process's pid into it.

        Raises:
            StackAlreadyRunning: another live process holds it.
        """
        self.data_dir.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _read(fd)
            os.close(fd)
            raise StackAlreadyRunning(self.data_dir, holder) from None
        self._fd = fd
        self.update(pid=os.getpid(), started_at=time.time())
        return self

    def update(self, **info: Any) -> None:
        """Add ``info`` (JSON values: ``url``, …) to what the lock file says about this stack."""
        if self._fd is None:
            raise RuntimeError("the run lock is not held")
        self._info.update(info)
        data = json.dumps(self._info).encode()
        os.ftruncate(self._fd, 0)
        os.pwrite(self._fd, data, 0)

    def release(self) -> None:
        """Empty the file and let go of the lock (idempotent). The file stays: removing it would let a
        process that opened it just before take a lock on a file nobody else sees."""
        fd, self._fd = self._fd, None
        if fd is None:
            return
        with contextlib.suppress(OSError):
            os.ftruncate(fd, 0)
        os.close(fd)  # closing the last descriptor releases the flock


def _read(fd: int) -> dict[str, Any]:
    """What the holder wrote, or {} (not written yet, unreadable)."""
    try:
        raw = os.pread(fd, 4096, 0)
        data = json.loads(raw) if raw else {}
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}
