"""Talking to systemd: ``READY=1`` when the table is up, ``WATCHDOG=1`` from the main loop.

The service unit (``systemd/companion.service``) is ``Type=notify`` with ``WatchdogSec=``. systemd
passes two things in the environment:

* ``NOTIFY_SOCKET``: a Unix *datagram* socket to send ``KEY=value`` lines to. A path, or, when it
  starts with ``@``, a name in the abstract namespace (the ``@`` stands for a leading NUL byte).
* ``WATCHDOG_USEC`` (and ``WATCHDOG_PID``): how often systemd wants ``WATCHDOG=1``, in µs, and for
  which process. sd_watchdog_enabled(3) advises sending at half that interval.

This is the whole protocol, so it is a few lines of the standard library rather than a package.
Outside systemd (no ``NOTIFY_SOCKET``) every call is a harmless no-op, so the same loop runs from a
terminal.

Sources: sd_notify(3) ("READY=1", "WATCHDOG=1", "STATUS=", "STOPPING=1", the abstract-namespace
``@``), sd_watchdog_enabled(3), systemd.service(5) ``Type=notify``, ``WatchdogSec=``.
"""

from __future__ import annotations

import os
import socket
import time


def _address(value: str) -> str | bytes:
    """The socket address named by a ``NOTIFY_SOCKET`` value (``@name`` → abstract ``\\0name``)."""
    if value.startswith("@"):
        return b"\0" + value[1:].encode()
    return value


def notify(state: str, environ: dict[str, str] | None = None) -> bool:
    """Send one sd_notify message, e.g. ``"READY=1"`` or ``"STATUS=waiting for the camera"``.

    Returns True when it was sent, False when not running under systemd (no ``NOTIFY_SOCKET``)
    or the socket is gone (a notification is advice to systemd, never a reason to stop the game).
    Never raises for a missing or dead socket. Source: sd_notify(3).
    """
    env = os.environ if environ is None else environ
    where = env.get("NOTIFY_SOCKET", "")
    if not where or where[0] not in "/@":
        return False
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC) as sock:
            sock.connect(_address(where))
            sock.sendall(state.encode())
        return True
    except OSError:
        return False


def watchdog_interval(environ: dict[str, str] | None = None) -> float | None:
    """The watchdog period systemd asked for, in seconds, or None when there is no watchdog.

    Reads ``WATCHDOG_USEC`` (µs); when ``WATCHDOG_PID`` is set it must be this process, as
    sd_watchdog_enabled(3) says. A value that is not a positive integer means no watchdog.
    """
    env = os.environ if environ is None else environ
    pid = env.get("WATCHDOG_PID")
    if pid is not None and pid.strip() != str(os.getpid()):
        return None
    try:
        usec = int(env.get("WATCHDOG_USEC", ""))
    except ValueError:
        return None
    return usec / 1e6 if usec > 0 else None


class ServiceNotifier:
    """What the main loop calls: ``ready()`` once, ``alive()`` every loop turn, ``stopping()``.

    ``alive()`` sends ``WATCHDOG=1`` at most every half watchdog period (sd_watchdog_enabled(3)),
    so calling it on every camera frame costs one clock read. ``clock`` returns seconds (monotonic);
    tests pass their own.
    """

    def __init__(self, environ: dict[str, str] | None = None, clock=time.monotonic) -> None:
        self._env = dict(os.environ if environ is None else environ)
        self._clock = clock
        period = watchdog_interval(self._env)
        self.watchdog_every_s: float | None = None if period is None else period / 2
        self._last_ping: float | None = None

    @property
    def under_systemd(self) -> bool:
        """True when a ``NOTIFY_SOCKET`` was given (the app runs as the service)."""
        return bool(self._env.get("NOTIFY_SOCKET"))

    def ready(self, status: str = "playing") -> bool:
        """Camera, display and panel are up: ``READY=1`` with a one-line status."""
        self._last_ping = self._clock()
        return notify(f"READY=1\nSTATUS={status}", self._env)

    def status(self, text: str) -> bool:
        """Show ``text`` in ``systemctl status companion`` (``STATUS=``)."""
        return notify(f"STATUS={text}", self._env)

    def alive(self) -> bool:
        """The loop made progress: ``WATCHDOG=1`` if half a watchdog period has passed.

        Returns True when a ping was sent now.
        """
        if self.watchdog_every_s is None:
            return False
        now = self._clock()
        if self._last_ping is not None and now - self._last_ping < self.watchdog_every_s:
            return False
        self._last_ping = now
        return notify("WATCHDOG=1", self._env)

    def stopping(self) -> bool:
        """The app is shutting down on purpose (SIGTERM, game over): ``STOPPING=1``."""
        return notify("STOPPING=1", self._env)
