"""The host link (companion/devices/link.py): against the simulated Pico (the real firmware on a
thread) and over a pseudo-terminal with pyserial; unplugs, lost acks, duplicates, noise, a
protocol mismatch and no device at all. No timing assertions: waits are generous deadlines."""

from __future__ import annotations

import os
import select
import subprocess
import sys
import threading
import time

import pytest

from companion.devices import link_codec as codec
from companion.devices.link import Link, LinkError, ThreadedLink, TrayEvent, find_port, open_link
from companion.devices.link_sim import FakeNeoPixel, FakePin, SimulatedPico, load_firmware


def wait_until(cond, timeout: float = 5.0) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if cond():
            return True
        time.sleep(0.01)
    return cond()


@pytest.fixture
def loop():
    link = open_link("loop")
    assert link.wait_connected(5.0), link.problem
    yield link
    link.close()


def shake(sim: SimulatedPico, link) -> list[TrayEvent]:
    sim.tray.level = 1
    got: list[TrayEvent] = []
    assert wait_until(lambda: got.extend(link.events()) or got)
    sim.tray.level = 0
    assert wait_until(lambda: got.extend(link.events()) or len(got) >= 2)
    return got


# ---- specs -----------------------------------------------------------------------------------

@pytest.mark.parametrize("spec", ["bogus", "serial:", "loop:x", "none:1", "", 42])
def test_bad_spec_is_a_link_error_naming_the_forms(spec):
    with pytest.raises(LinkError, match="spec") as err:
        open_link(spec)
    assert "serial:" in str(err.value)


@pytest.mark.parametrize("vid_pid", [(0x2E8A,), ("2E8A", 5), (0x2E8A, 0x10000), (True, 5)])
def test_bad_vid_pid_is_a_link_error(vid_pid):
    with pytest.raises(LinkError, match="vid_pid"):
        open_link("auto", vid_pid=vid_pid)


def test_none_is_absent_and_every_method_a_no_op():
    with open_link("none") as link:
        assert isinstance(link, Link)
        assert link.state == "absent" and link.firmware_version is None
        link.set_ring((255, 255, 255), 1.0)
        link.set_seat(2, (0, 255, 0), seats=4)
        link.set_seat(None)
        assert link.events() == [] and link.ping() is None and link.wait_connected(0.5) is False
        with pytest.raises(LinkError, match="brightness"):
            link.set_ring((255, 255, 255), 2.0)  # a caller's bug is reported even without a Pico
        with pytest.raises(LinkError, match="seat"):
            link.set_seat(6, seats=6)


def test_auto_without_a_device_is_absent_and_harmless(tmp_path, monkeypatch):
    from serial.tools import list_ports

    monkeypatch.setattr(list_ports, "comports", lambda: [])
    with open_link("auto", vid_pid=(0x2E8A, 0x0005), fallback=str(tmp_path / "ttyACM0")) as link:
        assert isinstance(link, ThreadedLink)
        link.set_ring((1, 2, 3), 0.5)
        assert not link.wait_connected(0.3)
        assert link.state == "absent" and link.events() == [] and link.ping() is None
    assert open_link("auto").state == "absent"  # nothing to look for


def test_find_port_prefers_vid_pid_then_fallback(tmp_path, monkeypatch):
    from serial.tools import list_ports

    class Port:
        def __init__(self, device, vid, pid):
            self.device, self.vid, self.pid = device, vid, pid

    ports = [Port("/dev/ttyACM3", 0x2E8A, 0x0005), Port("/dev/ttyUSB0", 0x0403, 0x6001),
             Port("/dev/ttyACM1", 0x2E8A, 0x0005)]
    monkeypatch.setattr(list_ports, "comports", lambda: ports)
    fallback = tmp_path / "tty"
    fallback.touch()
    assert find_port((0x2E8A, 0x0005), str(fallback)) == "/dev/ttyACM1"
    assert find_port((0x1234, 0x0001), str(fallback)) == str(fallback)
    assert find_port((0x1234, 0x0001), str(tmp_path / "missing")) is None


def test_importing_the_link_does_not_import_serial():
    code = "import sys, companion.devices.link; print('serial' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# ---- against the simulated Pico -------------------------------------------------------------

def test_loop_connects_lights_the_ring_and_delivers_tray_events(loop):
    assert isinstance(loop, Link)
    assert loop.state == "connected" and loop.firmware_version == load_firmware()[1].FIRMWARE_VERSION
    loop.set_ring((40, 50, 60), 1.0)
    loop.set_seat(3, (0, 0, 200), seats=4)
    ring = loop.sim.ring
    assert wait_until(lambda: ring.leds[0] == (40, 50, 60) and ring.leds[18] == (0, 0, 200))
    assert [i for i, c in enumerate(ring.leds) if c == (0, 0, 200)] == list(range(18, 24))
    before = time.monotonic()
    events = shake(loop.sim, loop)
    assert [e.kind for e in events] == ["roll-started", "tray-quiet"]
    assert events[0].t < events[1].t and events[0].t >= before - 1.0
    rtt = loop.ping(2.0)
    assert rtt is not None and rtt > 0


def test_unplug_goes_retrying_then_reconnects_and_restores_the_lights(loop):
    sim = loop.sim
    loop.set_ring((7, 8, 9), 1.0)
    assert wait_until(lambda: sim.ring.leds[0] == (7, 8, 9))
    sim.unplug()
    assert wait_until(lambda: loop.state == "retrying")
    loop.set_ring((70, 80, 90), 1.0)  # still harmless while the cable is out
    loop.set_seat(1, seats=2)
    assert loop.events() == [] and loop.ping(0.2) is None
    sim.replug()  # a power-up: the board has its boot lights again
    assert loop.wait_connected(5.0)
    assert wait_until(lambda: sim.ring.leds[0] == (70, 80, 90) and sim.ring.leds[12] == (255, 140, 0))
    assert loop.reconnects >= 1
    assert [e.kind for e in shake(sim, loop)] == ["roll-started", "tray-quiet"]


def test_a_lost_ack_is_resent_and_carried_out_once(loop):
    sim = loop.sim
    assert wait_until(lambda: loop._inflight is None)
    applied = sim.board.applied
    sim.drop_from_pico = 1  # the Pico's ack of the next command is lost on the way
    loop.set_ring((1, 2, 3), 1.0)
    assert wait_until(lambda: sim.board.duplicates == 1 and loop._inflight is None)
    assert loop.resends >= 1
    assert sim.board.applied == applied + 1
    assert loop.state == "connected"


def test_a_lost_command_is_resent(loop):
    sim = loop.sim
    assert wait_until(lambda: loop._inflight is None)
    sim.drop_to_pico = 1  # the next frame from the host never reaches the Pico
    loop.set_ring((11, 12, 13), 1.0)
    assert wait_until(lambda: sim.ring.leds[0] == (11, 12, 13))
    assert loop.resends >= 1 and sim.board.duplicates == 0


def test_a_duplicate_event_is_delivered_once(loop):
    sim = loop.sim
    sim.tray.level = 1
    got: list[TrayEvent] = []
    assert wait_until(lambda: got.extend(loop.events()) or got)
    seq = (sim.board._tx_seq - 1) & 0xFF
    sim.inject(codec.encode(codec.TRAY, seq, bytes((codec.TRAY_ROLL_STARTED, 0, 5))))  # as if our ack was lost
    assert wait_until(lambda: loop.duplicates == 1)
    sim.tray.level = 0
    assert wait_until(lambda: got.extend(loop.events()) or len(got) >= 2)
    assert [e.kind for e in got] == ["roll-started", "tray-quiet"]


def test_noise_from_the_pico_is_dropped_and_the_link_keeps_working(loop):
    import random

    rng = random.Random(5)
    for _ in range(20):
        loop.sim.inject(bytes(rng.getrandbits(8) for _ in range(rng.randint(1, 80))))
    loop.sim.inject(b"\x00")
    assert wait_until(lambda: loop._decoder.rejected > 0)
    assert [e.kind for e in shake(loop.sim, loop)] == ["roll-started", "tray-quiet"]
    assert loop.state == "connected"


def test_protocol_mismatch_is_state_incompatible_with_both_versions_named():
    sim = SimulatedPico(protocol_version=9)
    link = ThreadedLink(sim.connect, "loop")
    try:
        assert wait_until(lambda: link.state == "incompatible")
        assert "9" in link.problem and str(codec.PROTOCOL_VERSION) in link.problem and "flash" in link.problem
        assert not link.wait_connected(0.2)
        link.set_ring((255, 0, 0), 1.0)  # no-op: nothing is sent to a Pico that speaks another protocol
        assert link.ping(0.2) is None
        assert sim.ring.leds[0] != (255, 0, 0)
    finally:
        link.close()
        sim.close()


def test_close_is_clean_and_idempotent():
    link = open_link("loop")
    link.wait_connected(5.0)
    link.close()
    link.close()
    assert not link._thread.is_alive() and not link.sim._thread.is_alive()


# ---- over a pseudo-terminal, with pyserial ---------------------------------------------------

class PtyBoard:
    """The firmware's Peripheral on a thread, reading the master side of a pty byte by byte."""

    def __init__(self) -> None:
        _, main = load_firmware()
        self.master, slave = os.openpty()
        self.path = os.ttyname(slave)
        self._slave = slave  # kept open so the pty exists until the host opens it
        self.ring, self.tray = FakeNeoPixel(), FakePin()
        self.board = main.Peripheral(self, self.ring, self.tray)
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def read_byte(self):
        if not select.select([self.master], [], [], 0)[0]:
            return None
        try:
            data = os.read(self.master, 1)
        except OSError:
            return None
        return data[0] if data else None

    def write(self, data):
        try:
            os.write(self.master, data)
        except OSError:
            pass

    def wait(self, ms):
        self.stop.wait(ms / 1000)

    def _run(self):
        while not self.stop.is_set():
            self.board.step()
            self.wait(2)

    def pull_cable(self, half_frame: bytes = b"") -> None:
        """Stop mid-frame: write half a frame, then close the pty."""
        if self.stop.is_set():
            return
        self.write(half_frame)
        self.stop.set()
        self.thread.join(2.0)
        os.close(self.master)
        os.close(self._slave)


def test_serial_link_over_a_pty_survives_a_cable_pulled_mid_frame(tmp_path):
    link_path = tmp_path / "ttyACM-companion"  # like a udev /dev/serial/by-id link
    pty = PtyBoard()
    os.symlink(pty.path, link_path)
    link = open_link(f"serial:{link_path}")
    try:
        assert link.wait_connected(5.0), link.problem
        link.set_ring((20, 30, 40), 1.0)
        assert wait_until(lambda: pty.ring.leds[0] == (20, 30, 40))
        pty.tray.level = 1
        assert wait_until(lambda: [e.kind for e in link.events()] == ["roll-started"])
        pty.tray.level = 0
        half = codec.encode(codec.TRAY, 200, bytes((codec.TRAY_QUIET, 0, 0)))[:4]
        pty.pull_cable(half)
        assert wait_until(lambda: link.state == "retrying")
        assert link.events() == []  # nothing made of the half frame
        pty = PtyBoard()  # plugged in again: a new tty, the same by-id link
        os.remove(link_path)
        os.symlink(pty.path, link_path)
        assert link.wait_connected(10.0), link.problem
        assert wait_until(lambda: pty.ring.leds[0] == (20, 30, 40))  # lights told again
        pty.tray.level = 1
        assert wait_until(lambda: [e.kind for e in link.events()] == ["roll-started"])
    finally:
        link.close()
        pty.pull_cable()


# ---- the review's findings: a tray event across a reconnect, a thread that must not die, a port
# ---- that cannot be opened ---------------------------------------------------------------------

class ScriptedPort:
    """A transport on which the test plays the Pico: every frame the host writes goes to
    ``answer(msg)``, and whatever bytes it returns come back on the next read, all at once (so
    several frames can arrive in one read). ``explode`` makes the next read raise it."""

    def __init__(self, answer) -> None:
        self.name = "scripted"
        self.answer = answer
        self.inbox = bytearray()
        self.written: list[codec.Message] = []
        self.explode: BaseException | None = None
        self.closed = False
        self._decoder = codec.FrameDecoder()

    def read(self, n: int) -> bytes:
        time.sleep(0.005)
        if self.explode is not None:
            exc, self.explode = self.explode, None
            raise exc
        data = bytes(self.inbox[:n])
        del self.inbox[:n]
        return data

    def write(self, data: bytes) -> None:
        for msg in self._decoder.feed(data):
            self.written.append(msg)
            self.inbox += self.answer(msg)

    def close(self) -> None:
        self.closed = True


def version(seq: int, protocol: int = codec.PROTOCOL_VERSION) -> bytes:
    return codec.encode(codec.VERSION, seq, bytes((protocol, 24, 6)) + b"0.1.0")


def ack(seq: int) -> bytes:
    return codec.encode(codec.ACK, seq, bytes((codec.ACK_OK,)))


def tray(seq: int, kind: int = codec.TRAY_ROLL_STARTED, age_ms: int = 300) -> bytes:
    return codec.encode(codec.TRAY, seq, bytes((kind,)) + age_ms.to_bytes(2, "big"))


def pico_answering(on_hello, on_ack=lambda msg: b""):
    """An ``answer`` for ScriptedPort: HELLO -> ``on_hello(msg)``, commands -> ACK OK, the
    host's ACKs -> ``on_ack(msg)``."""
    def answer(msg: codec.Message) -> bytes:
        if msg.type == codec.HELLO:
            return on_hello(msg)
        if msg.type == codec.ACK:
            return on_ack(msg)
        return ack(msg.seq)
    return answer


def scripted_link(*ports: ScriptedPort) -> tuple[ThreadedLink, list[ScriptedPort]]:
    """A ThreadedLink whose opener hands out ``ports`` in turn (then nothing: absent)."""
    queue, opened = list(ports), []

    def opener():
        if not queue:
            return None
        opened.append(queue.pop(0))
        return opened[-1]

    return ThreadedLink(opener, "scripted"), opened


def test_a_tray_event_resent_during_the_handshake_is_delivered_once_the_version_matches():
    # the Pico stayed powered: it is still sending TRAY seq 7 when the host reopens, and it
    # queued the VERSION (seq 8) behind it
    port = ScriptedPort(pico_answering(lambda hello: tray(7, age_ms=300) + ack(hello.seq) + version(8)))
    link, _ = scripted_link(port)
    try:
        assert link.wait_connected(5.0), link.problem
        got: list[TrayEvent] = []
        assert wait_until(lambda: got.extend(link.events()) or got)
        assert [e.kind for e in got] == ["roll-started"]
        assert got[0].t <= time.monotonic() - 0.3  # dated by its age, not by the handshake
        acked = [m.seq for m in port.written if m.type == codec.ACK]
        assert acked[:2] == [7, 8]  # acknowledged, so the Pico moves on to its VERSION
    finally:
        link.close()


def test_an_event_already_delivered_is_not_delivered_again_after_a_reconnect():
    # session 1: the Pico sends TRAY seq 7, the host delivers and acks it, then the cable
    # hiccups (the ack never arrives). Session 2: the same powered Pico re-sends seq 7 first.
    first = ScriptedPort(pico_answering(lambda hello: ack(hello.seq) + version(6),
                                        on_ack=lambda msg: tray(7) if msg.seq == 6 else b""))
    second = ScriptedPort(pico_answering(lambda hello: tray(7) + ack(hello.seq) + version(8)))
    link, opened = scripted_link(first, second)
    try:
        got: list[TrayEvent] = []
        assert wait_until(lambda: got.extend(link.events()) or got)
        first.explode = OSError("cable hiccup")
        assert wait_until(lambda: len(opened) == 2 and link.state == "connected")
        assert wait_until(lambda: link.duplicates == 1)
        got.extend(link.events())
        assert [e.kind for e in got] == ["roll-started"]
    finally:
        link.close()


def test_a_reconnect_during_a_roll_loses_no_tray_event():
    # the review's reproduction, end to end with the real firmware: nothing from the Pico reaches
    # the host for a while (the Pico stays powered), the host gives up and reopens while the
    # Pico is still re-sending roll-started
    link = open_link("loop")
    try:
        assert link.wait_connected(5.0), link.problem
        sim = link.sim
        sim.drop_from_pico = 10**6
        link.set_ring((1, 2, 3), 0.5)  # not acknowledged: lost after 5 sends, reopened 0.5 s later
        assert wait_until(lambda: link.state == "retrying")
        sim.tray.level = 1  # the Pico still hears the host: it makes the event and keeps re-sending it
        assert wait_until(lambda: any(p[0] == codec.TRAY for p in sim.board._pending))
        sim.tray.level = 0
        sim.drop_from_pico = 0
        assert link.wait_connected(5.0), link.problem
        got: list[TrayEvent] = []
        assert wait_until(lambda: got.extend(link.events()) or len(got) >= 2)
        assert [e.kind for e in got] == ["roll-started", "tray-quiet"]
        assert sim.board.dropped_events == 0
    finally:
        link.close()


def test_a_frame_after_a_wrong_version_in_the_same_read_does_not_kill_the_thread(monkeypatch):
    from companion.devices import link as link_module

    monkeypatch.setattr(link_module, "INCOMPATIBLE_RETRY_S", 0.2)

    def hello(msg):  # TRAY before and after a VERSION of protocol 9, all in one read
        return tray(3) + ack(msg.seq) + version(4, protocol=9) + tray(5)

    ports = [ScriptedPort(pico_answering(hello)) for _ in range(3)]
    link, opened = scripted_link(*ports)
    try:
        assert wait_until(lambda: len(opened) >= 2)  # it tried the handshake again
        assert link._thread.is_alive()
        assert link.state == "incompatible" and "9" in link.problem
        assert link.events() == []  # read with our layout from a Pico that speaks another
        assert link.faults == 0
    finally:
        link.close()


def test_an_unexpected_error_in_the_thread_is_a_lost_link_not_a_dead_thread(caplog):
    ports = [ScriptedPort(pico_answering(lambda hello: ack(hello.seq) + version(0))) for _ in range(2)]
    link, opened = scripted_link(*ports)
    try:
        assert link.wait_connected(5.0), link.problem
        with caplog.at_level("ERROR", logger="companion.devices.link"):
            ports[0].explode = RuntimeError("a bug")
            assert wait_until(lambda: ports[0].closed)
            assert link._thread.is_alive()
            assert "RuntimeError" in link.problem and "a bug" in link.problem
            assert link.faults == 1
            assert wait_until(lambda: len(opened) == 2 and link.state == "connected")
        assert link.problem is None
        assert any(r.exc_info and "a bug" in str(r.exc_info[1]) for r in caplog.records)
    finally:
        link.close()


def test_a_port_that_cannot_be_opened_says_why_in_problem_until_it_connects(tmp_path):
    import serial

    path = tmp_path / "ttyACM-companion"
    link = open_link(f"serial:{path}")
    pty = blocker = None
    try:
        assert wait_until(lambda: link.problem is not None)
        assert link.problem == f"cannot open {path}: No such file or directory"
        assert link.state == "absent"
        pty = PtyBoard()
        blocker = serial.Serial(pty.path, exclusive=True)  # say, mpremote holding the port
        os.symlink(pty.path, path)
        assert wait_until(lambda: "in use" in (link.problem or ""))
        assert link.problem.startswith(f"cannot open {path}: in use by another program")
        assert link.state == "retrying"
        blocker.close()
        assert link.wait_connected(5.0), link.problem
        assert link.problem is None
    finally:
        link.close()
        if blocker is not None:
            blocker.close()
        if pty is not None:
            pty.pull_cable()
