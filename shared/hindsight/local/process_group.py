"""Stopping a helper process the local stack started in a session of its own (``start_new_session=True``,
so that Ctrl-C in the terminal leaves it to the stack's stop): the SQS emulator (``sqs_emulator``) and
LocalStack (``localstack``) are stopped so, with every process they started."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess


def stop_group(process: subprocess.Popen[bytes], grace_s: float) -> None:
    """SIGTERM to the process group ``process`` leads; SIGKILL when it has not ended ``grace_s`` seconds
    later; then wait for it. Nothing when it has ended already. Raises ``subprocess.TimeoutExpired`` when
    it still runs 5 s after the SIGKILL."""
    if process.poll() is not None:
        return
    signal_group(process, signal.SIGTERM)
    try:
        process.wait(grace_s)
    except subprocess.TimeoutExpired:
        signal_group(process, signal.SIGKILL)
        process.wait(5)


def signal_group(process: subprocess.Popen[bytes], sig: int) -> None:
    """``sig`` to the process group ``process`` leads, else (no such group) to the process itself; nothing
    when both are gone."""
    try:
        os.killpg(process.pid, sig)
    except OSError:
        with contextlib.suppress(OSError):  # already gone
            process.send_signal(sig)
