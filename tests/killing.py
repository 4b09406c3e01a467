"""Play in-process, kill -9 and resume, for the recorded games' tests (tests/test_roll_replay.py,
tests/test_express_play.py)."""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
from contextlib import redirect_stdout


def kill_after_applied(cmd: list[str], n: int) -> int:
    """Run ``cmd`` (a ``companion play --json``), SIGKILL it right after its ``n``-th ``applied``
    event; the events it announced as applied, counted (``n`` unless it ended first).

    Raises:
        ProcessLookupError: it had exited before the kill (the kill was not mid-game).
    """
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    applied = 0
    try:
        for line in proc.stdout:
            if json.loads(line)["event"] == "applied":
                applied += 1
                if applied == n:
                    break
        os.kill(proc.pid, 0)  # still running: the kill is mid-game
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    return applied


def resume(cmd: list[str]) -> list[dict]:
    """Run ``cmd`` again to the end (it resumes from its journal); its events. Asserts it exited 0."""
    again = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert again.returncode == 0, again.stderr[-2000:]
    return [json.loads(line) for line in again.stdout.splitlines()]


def play_in_process(args: list[str]) -> tuple[int, list[dict]]:
    """``companion play --json`` with ``args``, in this process: (exit code, events printed)."""
    from companion.cli import main

    out = io.StringIO()
    with redirect_stdout(out):
        code = main(args)
    return code, [json.loads(line) for line in out.getvalue().splitlines()]
