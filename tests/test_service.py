"""systemd notification (sd_notify(3)) and the service unit's hardening (issue #8 §4)."""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
from pathlib import Path

import pytest

from companion.app.service import ServiceNotifier, notify, watchdog_interval

UNIT = Path(__file__).resolve().parents[1] / "systemd" / "companion.service"


@pytest.fixture
def listener(tmp_path):
    """A datagram socket standing in for systemd's notify socket; yields (env, receive)."""
    path = tmp_path / "notify"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(str(path))
    sock.settimeout(2.0)

    def receive() -> str:
        return sock.recv(4096).decode()

    yield {"NOTIFY_SOCKET": str(path)}, receive, sock
    sock.close()


def _nothing_waiting(sock) -> bool:
    sock.setblocking(False)
    try:
        sock.recv(4096)
    except BlockingIOError:
        return True
    finally:
        sock.settimeout(2.0)
    return False


def test_ready_reaches_the_socket(listener):
    env, receive, _ = listener
    assert ServiceNotifier(env).ready("waiting for players")
    assert receive() == "READY=1\nSTATUS=waiting for players"


def test_abstract_socket_name(tmp_path):
    name = f"companion-test-{os.getpid()}"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.bind(b"\0" + name.encode())
        sock.settimeout(2.0)
        assert notify("READY=1", {"NOTIFY_SOCKET": "@" + name})
        assert sock.recv(100) == b"READY=1"


def test_outside_systemd_every_call_is_a_no_op():
    n = ServiceNotifier({})
    assert not n.under_systemd
    assert n.ready() is False and n.alive() is False and n.stopping() is False


def test_a_dead_socket_never_raises(tmp_path):
    assert notify("WATCHDOG=1", {"NOTIFY_SOCKET": str(tmp_path / "gone")}) is False
    assert notify("READY=1", {"NOTIFY_SOCKET": "relative/path"}) is False


def test_watchdog_interval_from_the_environment():
    assert watchdog_interval({"WATCHDOG_USEC": "20000000"}) == 20.0
    assert watchdog_interval({"WATCHDOG_USEC": "20000000", "WATCHDOG_PID": str(os.getpid())}) == 20.0
    # Meant for another process (sd_watchdog_enabled(3)): not ours to feed.
    assert watchdog_interval({"WATCHDOG_USEC": "20000000", "WATCHDOG_PID": "1"}) is None
    assert watchdog_interval({"WATCHDOG_USEC": "soon"}) is None
    assert watchdog_interval({"WATCHDOG_USEC": "0"}) is None
    assert watchdog_interval({}) is None


def test_alive_pings_at_half_the_watchdog_period(listener):
    env, receive, sock = listener
    now = [100.0]
    n = ServiceNotifier({**env, "WATCHDOG_USEC": "4000000"}, clock=lambda: now[0])
    assert n.watchdog_every_s == 2.0
    n.ready()
    receive()
    now[0] += 1.0
    assert n.alive() is False  # too soon after READY
    assert _nothing_waiting(sock)
    now[0] += 1.5
    assert n.alive() is True
    assert receive() == "WATCHDOG=1"
    now[0] += 0.5
    assert n.alive() is False
    now[0] += 2.0
    assert n.alive() is True
    assert receive() == "WATCHDOG=1"


def test_no_watchdog_means_no_pings(listener):
    env, _, sock = listener
    n = ServiceNotifier(env, clock=lambda: 0.0)
    assert n.alive() is False
    assert _nothing_waiting(sock)


# --- the unit file ---------------------------------------------------------------------------


def _unit_entries() -> list[tuple[str, str, str]]:
    """(section, key, value) for every line; keys repeat (DeviceAllow=), so no configparser."""
    out, section = [], ""
    for raw in UNIT.read_text().splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("["):
            section = line.strip("[]")
            continue
        key, _, value = line.partition("=")
        out.append((section, key.strip(), value.strip()))
    return out


def _values(key: str) -> list[str]:
    return [v for _, k, v in _unit_entries() if k == key]


def test_unit_is_notify_with_a_watchdog_and_restarts_on_failure():
    assert _values("Type") == ["notify"]
    assert _values("Restart") == ["on-failure"]
    watchdog = _values("WatchdogSec")
    assert len(watchdog) == 1 and re.fullmatch(r"\d+s", watchdog[0]) and int(watchdog[0][:-1]) > 0
    assert _values("StateDirectory") == ["companion"]


def test_unit_grants_only_the_devices_the_table_needs():
    allowed = {v.split()[0] for v in _values("DeviceAllow")}
    for needed in ("video4linux", "media", "dma_heap", "gpiochip", "ttyACM", "drm"):
        assert f"char-{needed}" in allowed, needed
    assert _values("DevicePolicy") == ["closed"]
    assert "PrivateDevices" not in {k for _, k, _ in _unit_entries()}  # it would hide /dev/video0


def test_unit_has_no_network_address_families():
    families = " ".join(_values("RestrictAddressFamilies")).split()
    assert families and not any(f in ("AF_INET", "AF_INET6", "AF_PACKET") for f in families)
    assert _values("PrivateNetwork") == ["yes"]


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze is not installed here")
def test_security_exposure_is_at_most_2():
    run = subprocess.run(
        ["systemd-analyze", "security", "--offline=true", "--no-pager", str(UNIT)],
        capture_output=True, text=True, timeout=60,
    )
    found = re.search(r"Overall exposure level for \S+: (\d+\.\d+)", run.stdout + run.stderr)
    assert found, run.stdout[-500:] + run.stderr[-500:]
    assert float(found.group(1)) <= 2.0
