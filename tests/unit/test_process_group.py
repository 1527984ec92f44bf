"""Stopping a helper process the local stack started in its own session (``local.process_group``, the SQS
emulator's and LocalStack's stop): SIGTERM to its group, SIGKILL after the grace period, and a process
that leads no group still signalled."""

from __future__ import annotations

import signal
import subprocess

from hindsight.local.process_group import stop_group


def test_a_group_leader_is_stopped_with_sigterm() -> None:
    process = subprocess.Popen(["sh", "-c", "sleep 60 & wait"], start_new_session=True)
    stop_group(process, 10)
    assert process.returncode == -signal.SIGTERM


def test_a_group_that_ignores_sigterm_gets_sigkill_after_the_grace_period() -> None:
    process = subprocess.Popen(
        ["sh", "-c", "trap '' TERM; echo ready; exec sleep 60"],
        start_new_session=True,
        stdout=subprocess.PIPE,
    )
    assert process.stdout is not None
    assert process.stdout.readline() == b"ready\n"  # the trap is set
    stop_group(process, 0.2)
    process.stdout.close()
    assert process.returncode == -signal.SIGKILL


def test_a_process_that_leads_no_group_is_signalled_itself() -> None:
    process = subprocess.Popen(["sleep", "60"])
    stop_group(process, 10)
    assert process.returncode == -signal.SIGTERM


def test_a_process_that_ended_is_left_as_it_is() -> None:
    process = subprocess.Popen(["true"])
    process.wait()
    stop_group(process, 10)
    assert process.returncode == 0
