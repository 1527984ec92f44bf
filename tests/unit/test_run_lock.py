"""One ``hindsight run`` per data folder (``hindsight.local.run_lock``): a second one is refused naming the
first (pid, URL, how to stop it); a lock left by a process killed with SIGKILL does not block."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from hindsight.local.run_lock import RunLock, StackAlreadyRunning

HOLD = """
import sys, time
from pathlib import Path
from hindsight.local.run_lock import RunLock
lock = RunLock(Path(sys.argv[1])).acquire()
lock.update(url="http://127.0.0.1:9/mcp")
print("held", flush=True)
time.sleep(600)
"""


def test_a_second_lock_on_the_folder_is_refused_naming_the_holder_until_released(tmp_path: Path) -> None:
    first = RunLock(tmp_path).acquire()
    first.update(url="http://127.0.0.1:8080/mcp")
    with pytest.raises(StackAlreadyRunning) as refused:
        RunLock(tmp_path).acquire()
    message = str(refused.value)
    assert f"pid {os.getpid()}" in message
    assert "http://127.0.0.1:8080/mcp" in message
    assert f"kill {os.getpid()}" in message
    assert "--data-dir" in message
    first.release()
    first.release()  # idempotent
    RunLock(tmp_path).acquire().release()  # free again


def test_the_lock_of_a_process_killed_with_sigkill_does_not_block_the_next_stack(tmp_path: Path) -> None:
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(tmp_path)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline().strip() == "held"
        with pytest.raises(StackAlreadyRunning) as refused:
            RunLock(tmp_path).acquire()
        assert f"pid {holder.pid}" in str(refused.value)
        assert refused.value.holder["url"] == "http://127.0.0.1:9/mcp"
        holder.send_signal(signal.SIGKILL)  # no cleanup runs; the lock file stays with its pid in it
        holder.wait(30)
    finally:
        if holder.poll() is None:
            holder.kill()
            holder.wait(30)
    assert (tmp_path / "run.lock").read_text()  # the dead holder's record is still there …
    lock = RunLock(tmp_path).acquire()  # … and does not block
    lock.release()
