"""The Pico firmware's loop (firmware/main.py) under CPython: fake clock, byte stream, NeoPixel ring,
vibration pin and watchdog injected; ``build()`` checked with fake ``machine``, ``neopixel``,
``micropython`` and ``select`` modules in ``sys.modules``."""

from __future__ import annotations

import io
import types

import pytest

from companion.devices import link_codec as host
from companion.devices.link_sim import load_firmware

proto, fw = load_firmware()


class Clock:
    def __init__(self):
        self.ms = 1000

    def ticks_ms(self):
        return self.ms

    @staticmethod
    def ticks_diff(a, b):
        return a - b


class Port:
    def __init__(self):
        self.inbox = bytearray()
        self.sent = bytearray()
        self.decoder = host.FrameDecoder()

    def read_byte(self):
        if not self.inbox:
            return None
        b = self.inbox[0]
        del self.inbox[0]
        return b

    def write(self, data):
        self.sent += data

    def wait(self, ms):
        pass

    def take(self):
        """Messages the firmware wrote since the last take()."""
        msgs = self.decoder.feed(bytes(self.sent))
        self.sent.clear()
        return msgs


class Ring:
    def __init__(self, n=24):
        self.leds = [(0, 0, 0)] * n
        self.writes = 0

    def __len__(self):
        return len(self.leds)

    def __setitem__(self, i, rgb):
        self.leds[i] = rgb

    def write(self):
        self.writes += 1


class Pin:
    def __init__(self):
        self.level = 0

    def value(self):
        return self.level


class Wdt:
    feeds = 0

    def feed(self):
        self.feeds += 1


@pytest.fixture
def board():
    clock, port, ring, pin, wdt = Clock(), Port(), Ring(), Pin(), Wdt()
    b = fw.Peripheral(port, ring, pin, wdt, ticks_ms=clock.ticks_ms, ticks_diff=clock.ticks_diff)
    b.clock, b.test_port, b.test_ring, b.test_pin, b.test_wdt = clock, port, ring, pin, wdt
    return b


def send(board, msg_type, seq, payload=b"", steps=1):
    board.test_port.inbox += host.encode(msg_type, seq, payload)
    for _ in range(steps):
        board.step()
    return board.test_port.take()


def advance(board, ms, step_ms=1):
    for _ in range(ms // step_ms):
        board.clock.ms += step_ms
        board.step()


def hello(board, seq=0):
    msgs = send(board, host.HELLO, seq, bytes((host.PROTOCOL_VERSION,)))
    version = [m for m in msgs if m.type == host.VERSION][0]
    send(board, host.ACK, version.seq, b"\x00")
    return msgs


def test_every_pass_feeds_the_watchdog_and_the_ring_lights_at_boot(board):
    for _ in range(5):
        board.step()
    assert board.test_wdt.feeds == 5
    (r, g, b), k = fw.BOOT_RING
    assert board.test_ring.writes == 1  # rendered once, not on every pass
    assert board.test_ring.leds == [(r * k // 255, g * k // 255, b * k // 255)] * 24


def test_the_boot_light_stays_within_what_a_pi_usb_port_gives():
    """hardware/README.md, Power: a WS2812 draws up to 20 mA per colour at 255 (60 mA white); a Pi 5
    on a 3 A supply gives its USB ports 0.6 A in all. The ring lit at boot must stay under that."""
    (r, g, b), k = fw.BOOT_RING
    amps = fw.RING_LEDS * sum(c * k // 255 for c in (r, g, b)) / 255 * 0.020
    assert 0.2 < amps <= 0.6, f"boot ring draws {amps:.2f} A"


def test_hello_is_acked_and_answered_with_version_until_acked(board):
    msgs = send(board, host.HELLO, 7, b"\x01")
    assert msgs[0] == (host.ACK, 7, b"\x00")
    assert msgs[1].type == host.VERSION
    info = host.parse_version(msgs[1].payload)
    assert info == (host.PROTOCOL_VERSION, 24, 6, fw.FIRMWARE_VERSION)
    advance(board, fw.RETRY_MS)
    again = board.test_port.take()
    assert again == [msgs[1]]  # the same VERSION (same seq) re-sent after 100 ms
    send(board, host.ACK, msgs[1].seq, b"\x00")
    advance(board, 5 * fw.RETRY_MS, step_ms=10)
    assert board.test_port.take() == []


def test_ring_and_seat_commands_light_the_ring(board):
    hello(board)
    assert send(board, host.SET_RING, 1, host.set_ring_payload((200, 100, 50), 1.0)) == [(host.ACK, 1, b"\x00")]
    assert board.test_ring.leds == [(200, 100, 50)] * 24
    send(board, host.SET_RING, 2, host.set_ring_payload((200, 100, 0), 0.5))
    assert board.test_ring.leds[0] == (200 * 128 // 255, 100 * 128 // 255, 0)
    assert send(board, host.SET_SEAT, 3, host.set_seat_payload(1, 4, (0, 0, 255))) == [(host.ACK, 3, b"\x00")]
    lit = [i for i, rgb in enumerate(board.test_ring.leds) if rgb == (0, 0, 255)]
    assert lit == list(range(6, 12))  # seat 1 of 4 on 24 LEDs
    send(board, host.SET_SEAT, 4, host.set_seat_payload(None, 4, (0, 0, 255)))
    assert (0, 0, 255) not in board.test_ring.leds


def test_seat_out_of_range_is_refused_and_changes_nothing(board):
    hello(board)
    send(board, host.SET_SEAT, 1, host.set_seat_payload(0, 2, (9, 9, 9)))
    before = list(board.test_ring.leds)
    assert send(board, host.SET_SEAT, 2, bytes((5, 3, 1, 1, 1))) == [(host.ACK, 2, bytes((host.ACK_BAD_PAYLOAD,)))]
    assert send(board, host.TRAY, 3, bytes((1, 0, 0))) == [(host.ACK, 3, bytes((host.ACK_REFUSED,)))]
    assert board.test_ring.leds == before


def test_duplicate_command_is_acked_again_but_carried_out_once(board):
    hello(board)
    payload = host.set_ring_payload((10, 20, 30), 1.0)
    send(board, host.SET_RING, 5, payload)
    applied, writes = board.applied, board.test_ring.writes
    assert send(board, host.SET_RING, 5, payload) == [(host.ACK, 5, b"\x00")]  # our ack was lost: re-sent
    assert board.applied == applied and board.test_ring.writes == writes
    assert board.duplicates == 1
    send(board, host.SET_RING, 6, payload)
    assert board.applied == applied + 1


def test_a_new_hello_forgets_the_last_seq(board):
    hello(board, seq=0)
    send(board, host.SET_RING, 1, host.set_ring_payload((1, 1, 1), 1.0))
    hello(board, seq=0)  # the host restarted and counts from 0 again
    send(board, host.SET_RING, 1, host.set_ring_payload((2, 2, 2), 1.0))
    assert board.test_ring.leds[0] == (2, 2, 2)


def test_tray_vibration_sends_roll_started_then_tray_quiet(board):
    hello(board)
    board.test_pin.level = 1
    advance(board, 2)
    (started,) = board.test_port.take()
    assert started.type == host.TRAY and host.parse_tray(started.payload)[0] == "roll-started"
    send(board, host.ACK, started.seq, b"\x00")
    advance(board, 200)  # shaking goes on: no second roll-started
    board.test_pin.level = 0
    advance(board, fw.QUIET_MS - 10, step_ms=10)
    assert board.test_port.take() == []
    advance(board, 20)
    (quiet,) = board.test_port.take()
    assert host.parse_tray(quiet.payload)[0] == "tray-quiet"
    assert quiet.seq == (started.seq + 1) & 0xFF


def test_a_single_glitch_is_not_a_roll(board):
    hello(board)
    for _ in range(20):
        board.test_pin.level = 1
        advance(board, 1)
        board.test_pin.level = 0
        advance(board, 1)
    assert board.test_port.take() == [] and not board.rolling


def test_unacked_event_is_resent_with_its_age_then_dropped(board):
    hello(board)
    board.test_pin.level = 1
    advance(board, 2)
    first = board.test_port.take()[0]
    seen = []
    for i in range(fw.MAX_SENDS + 5):  # the host stays alive (heartbeats) but never acks the event
        advance(board, fw.RETRY_MS, step_ms=fw.RETRY_MS)
        seen += send(board, host.HEARTBEAT, (10 + i) & 0xFF)
    resent = [m for m in seen if m.type == host.TRAY]
    assert [m.seq for m in resent] == [first.seq] * (fw.MAX_SENDS - 1)  # 30 sends in all, then it is dropped
    ages = [host.parse_tray(m.payload)[1] for m in resent]
    assert ages == sorted(ages) and ages[-1] >= (fw.MAX_SENDS - 1) * fw.RETRY_MS  # the host can still date it
    assert board.dropped_events == 1


def test_no_events_without_a_host_and_lights_kept_when_it_goes(board):
    board.test_pin.level = 1
    advance(board, 5)
    assert board.test_port.take() == []  # nobody said HELLO: nothing sent
    board.test_pin.level = 0
    advance(board, 700, step_ms=10)
    hello(board)
    send(board, host.SET_RING, 1, host.set_ring_payload((50, 60, 70), 1.0))
    board.test_pin.level = 1
    advance(board, 2)
    assert board.test_port.take()[0].type == host.TRAY
    advance(board, fw.HOST_LOST_MS + 100, step_ms=50)  # host silent
    assert not board.host_present and board._pending == []
    assert board.test_ring.leds[0] == (50, 60, 70)


def test_garbage_on_the_stream_is_survived(board):
    import random

    rng = random.Random(3)
    board.test_port.inbox += bytes(rng.getrandbits(8) for _ in range(5000)) + b"\x00"
    for _ in range(200):
        board.step()
    assert not board.test_port.inbox and board.parser.rejected > 0
    assert hello(board)[0] == (host.ACK, 0, b"\x00")


# ---- the board wiring, with fake MicroPython modules -----------------------------------------

def fake_modules(calls: list, safe_level: int = 1):
    class FPin:
        IN, OUT, PULL_UP, PULL_DOWN = 0, 1, 2, 3

        def __init__(self, n, mode=None, pull=None):
            self.n = n
            calls.append(("Pin", n, mode, pull))

        def value(self):
            return safe_level if self.n == fw.SAFE_PIN else 0

    class FWDT:
        def __init__(self, timeout):
            calls.append(("WDT", timeout))

        def feed(self):
            calls.append(("feed",))

    class FNeoPixel(Ring):
        def __init__(self, pin, n):
            calls.append(("NeoPixel", pin.n, n))
            super().__init__(n)

    class Poller:
        def register(self, stream, mask):
            calls.append(("register", mask))

        def poll(self, timeout):
            calls.append(("poll", timeout))
            return [1]

    machine = types.ModuleType("machine")
    machine.Pin, machine.WDT = FPin, FWDT
    neopixel = types.ModuleType("neopixel")
    neopixel.NeoPixel = FNeoPixel
    micropython = types.ModuleType("micropython")
    micropython.kbd_intr = lambda c: calls.append(("kbd_intr", c))
    select = types.ModuleType("select")
    select.poll, select.POLLIN = Poller, 1
    return {"machine": machine, "neopixel": neopixel, "micropython": micropython, "select": select}


class Stream(io.BytesIO):
    reads: list

    def read(self, n=-1):
        self.reads.append(n)
        return super().read(n)


def test_build_disables_ctrl_c_first_then_starts_watchdog_ring_and_tray(monkeypatch):
    calls: list = []
    for name, module in fake_modules(calls).items():
        monkeypatch.setitem(__import__("sys").modules, name, module)
    stdin, stdout = Stream(host.encode(host.HELLO, 0, b"\x01")), io.BytesIO()
    stdin.reads = []
    board = fw.build(stdin, stdout)
    assert calls[0] == ("kbd_intr", -1)
    assert ("WDT", fw.WDT_TIMEOUT_MS) in calls
    assert ("NeoPixel", fw.RING_PIN, fw.RING_LEDS) in calls
    assert any(c[0] == "Pin" and c[1] == fw.TRAY_PIN for c in calls)
    board.step()
    assert set(stdin.reads) == {1}  # one byte at a time ...
    assert ("poll", 0) in calls  # ... each after a poll that does not wait
    assert ("feed",) in calls
    assert host.FrameDecoder().feed(stdout.getvalue())[0] == (host.ACK, 0, b"\x00")


def test_safe_pin_leaves_the_repl_free_and_no_watchdog(monkeypatch):
    calls: list = []
    for name, module in fake_modules(calls, safe_level=0).items():
        monkeypatch.setitem(__import__("sys").modules, name, module)
    assert fw.build(io.BytesIO(), io.BytesIO()) is None
    assert calls[0] == ("kbd_intr", -1) and ("kbd_intr", 3) in calls
    assert not any(c[0] == "WDT" for c in calls)
