"""Companion peripheral firmware for a Raspberry Pi Pico (MicroPython; also runs under CPython
for the tests and the simulated Pico, with the hardware injected).

What it does for the table: drives a WS2812 (NeoPixel) ring over the mat (one colour and
brightness for the whole ring, plus one glowing segment for the seat whose turn it is, up to 6
seats) and watches a vibration sensor under the dice tray (TRAY events: roll started, tray
quiet). It talks to the Raspberry Pi over the USB serial (CDC) stream with the frames of
firmware/PROTOCOL.md.

Board pins (Pico GPIO numbers; the Raspberry Pi's own pins are in hardware/pinout.toml):
RING_PIN drives the ring's DIN (through a 3.3 -> 5 V level shifter), TRAY_PIN reads the
vibration module's digital output, SAFE_PIN held to GND at power-up skips the program and leaves
the REPL usable for mpremote (Ctrl-C is disabled while the program runs).

The loop is the ``Peripheral`` class; the board-only parts (``machine``, ``neopixel``,
``micropython``, ``select``) are imported in ``build()``/``run()`` only, so tests can import this
file under CPython and drive ``Peripheral.step()`` with fakes. Sources: MicroPython docs,
``micropython.kbd_intr``, ``select.poll``, ``machine.WDT`` (rp2: timeout up to 8388 ms, cannot
be stopped once started), ``machine.Pin``, ``neopixel.NeoPixel``, ``time.ticks_ms/ticks_diff``.
"""

import time

import protocol

FIRMWARE_VERSION = "0.1.0"

RING_PIN = 2
RING_LEDS = 24
TRAY_PIN = 15
TRAY_ACTIVE = 1            # the level the vibration module outputs while shaken
SAFE_PIN = 22
WDT_TIMEOUT_MS = 2000      # a hung loop resets the board after 2 s

# colour, brightness 0..255: the mat is lit before the host talks. 96 keeps a 24-LED ring at
# about 0.54 A (60 mA per LED at full white), under the 0.6 A a Pi 5 on a 3 A supply gives its USB
# ports (hardware/README.md, "Power"); the host may ask for more when the ring has its own supply.
BOOT_RING = ((255, 255, 255), 96)
SEAT_COLOUR_OFF = (0, 0, 0)

RETRY_MS = 100             # re-send an unacknowledged event after this long
MAX_SENDS = 30             # ... at most this many times (3 s), then drop it
HOST_LOST_MS = 3000        # no frame from the host for this long: the host is gone
QUIET_MS = 600             # no vibration for this long after a roll: the tray is quiet
MAX_PENDING = 8            # events waiting for an ack; the oldest goes first when full
READ_BUDGET = 64           # bytes read per loop pass, so the watchdog and tray keep being served

_TICKS_PERIOD = 1 << 30    # MicroPython's ticks wrap (rp2: TICKS_MAX + 1 = 2**30)


def _cpython_ticks_ms():
    return int(time.monotonic() * 1000) & (_TICKS_PERIOD - 1)


def _cpython_ticks_diff(a, b):
    half = _TICKS_PERIOD >> 1
    return ((a - b + half) & (_TICKS_PERIOD - 1)) - half


class Peripheral:
    """The firmware's loop, hardware injected.

    Args:
        port: the byte stream: ``read_byte()`` -> int or None (never blocks), ``write(bytes)``,
            ``wait(ms)`` (return when input is ready or after ``ms``).
        ring: a ``neopixel.NeoPixel``-like object: ``ring[i] = (r, g, b)``, ``ring.write()``,
            ``len(ring)``.
        tray_pin: a ``machine.Pin``-like input with ``value()`` -> 0/1.
        wdt: a ``machine.WDT``-like object with ``feed()``, or None.
        ticks_ms, ticks_diff: the clock (ms); default ``time.ticks_ms``/``ticks_diff`` on the
            board, a monotonic equivalent under CPython.
        protocol_version: what VERSION announces (tests use another to check the host refuses).

    Counters for tests and the status screen: ``applied`` (host commands carried out),
    ``duplicates`` (host messages seen twice), ``dropped_events`` (events never acknowledged).
    """

    def __init__(self, port, ring, tray_pin, wdt=None, ticks_ms=None, ticks_diff=None,
                 protocol_version=protocol.PROTOCOL_VERSION, firmware_version=FIRMWARE_VERSION,
                 tray_active=TRAY_ACTIVE):
        self.port = port
        self.ring = ring
        self.tray_pin = tray_pin
        self.wdt = wdt
        self.ticks_ms = ticks_ms or getattr(time, "ticks_ms", _cpython_ticks_ms)
        self.ticks_diff = ticks_diff or getattr(time, "ticks_diff", _cpython_ticks_diff)
        self.protocol_version = protocol_version
        self.firmware_version = firmware_version
        self.tray_active = tray_active
        self.parser = protocol.Parser()
        # lights
        self.ring_rgb, self.ring_brightness = BOOT_RING
        self.seat = None
        self.seats = protocol.MAX_SEATS
        self.seat_rgb = SEAT_COLOUR_OFF
        self._dirty = True
        # link
        self.host_present = False
        self._last_host_ms = 0
        self._last_host_seq = None
        self._last_status = protocol.ACK_OK
        self._tx_seq = 0
        self._pending = []   # [type, seq, payload_fn(now, made), sent_at, sends, made], oldest first
        # tray
        self.rolling = False
        self._prev_sample = 0
        self._last_activity_ms = 0
        # counters
        self.applied = 0
        self.duplicates = 0
        self.dropped_events = 0

    # ---- the loop ----------------------------------------------------------------------
    def step(self):
        """One pass: feed the watchdog, read input, sample the tray, re-send, update the LEDs."""
        if self.wdt is not None:
            self.wdt.feed()
        now = self.ticks_ms()
        for _ in range(READ_BUDGET):
            b = self.port.read_byte()
            if b is None:
                break
            msg = self.parser.feed(b)
            if msg is not None:
                self._handle(msg, now)
        self._sample_tray(now)
        self._check_host(now)
        self._send_pending(now)
        if self._dirty:
            self._render()

    def run_forever(self):
        """Step, then wait up to 1 ms for input (the wait paces the loop)."""
        while True:
            self.step()
            self.port.wait(1)

    # ---- host messages -----------------------------------------------------------------
    def _ack(self, seq, status):
        self.port.write(protocol.encode(protocol.ACK, seq, bytes((status,))))

    def _handle(self, msg, now):
        msg_type, seq, payload = msg
        self.host_present = True
        self._last_host_ms = now
        if msg_type == protocol.ACK:
            if self._pending and self._pending[0][1] == seq:
                self._pending.pop(0)
            return
        if msg_type == protocol.HELLO:
            # a new host session: its HELLO's seq becomes the last one seen, so the host's next seq is
            # new and an older session's seq cannot make a command look like a duplicate
            self._last_host_seq = seq
            self._last_status = protocol.ACK_OK
            self._ack(seq, protocol.ACK_OK)
            for item in self._pending:
                if item[0] == protocol.VERSION:
                    return
            self._queue(protocol.VERSION, self._version_payload, now)
            return
        if seq == self._last_host_seq:
            # the host missed our ack and sent it again: acknowledge, do not carry it out twice
            self.duplicates += 1
            self._ack(seq, self._last_status)
            return
        self._last_host_seq = seq
        status = self._apply(msg_type, payload)
        self._last_status = status
        self._ack(seq, status)

    def _apply(self, msg_type, payload):
        if msg_type == protocol.HEARTBEAT:
            return protocol.ACK_OK
        if msg_type == protocol.SET_RING:
            self.ring_rgb, self.ring_brightness = protocol.parse_set_ring(payload)
        elif msg_type == protocol.SET_SEAT:
            seat = protocol.parse_set_seat(payload)
            if seat is None:
                return protocol.ACK_BAD_PAYLOAD
            self.seat, self.seats, self.seat_rgb = seat
        else:
            return protocol.ACK_REFUSED  # VERSION/TRAY go the other way
        self.applied += 1
        self._dirty = True
        return protocol.ACK_OK

    def _check_host(self, now):
        if self.host_present and self.ticks_diff(now, self._last_host_ms) > HOST_LOST_MS:
            # nobody is listening: stop sending; the lights stay as they are
            self.host_present = False
            self.dropped_events += len(self._pending)
            self._pending = []

    # ---- events to the host ------------------------------------------------------------
    def _version_payload(self, now, made):
        return protocol.version_payload(len(self.ring), self.firmware_version, self.protocol_version)

    def _queue(self, msg_type, payload_fn, now):
        if len(self._pending) >= MAX_PENDING:
            self._pending.pop(0)
            self.dropped_events += 1
        self._pending.append([msg_type, self._tx_seq, payload_fn, now, 0, now])
        self._tx_seq = (self._tx_seq + 1) & 0xFF

    def _send_pending(self, now):
        if not self._pending:
            return
        item = self._pending[0]
        msg_type, seq, payload_fn, sent_at, sends, made = item
        if sends and self.ticks_diff(now, sent_at) < RETRY_MS:
            return
        if sends >= MAX_SENDS:
            self._pending.pop(0)
            self.dropped_events += 1
            return
        # the payload is made at each send: a TRAY event's age grows with every re-send
        self.port.write(protocol.encode(msg_type, seq, payload_fn(now, made)))
        item[3] = now
        item[4] = sends + 1

    def _tray_event(self, kind, now):
        if not self.host_present:
            return  # an event nobody hears is stale by the time anyone listens

        def payload(at, made):
            return protocol.tray_payload(kind, self.ticks_diff(at, made))

        self._queue(protocol.TRAY, payload, now)

    # ---- tray --------------------------------------------------------------------------
    def _sample_tray(self, now):
        sample = 1 if self.tray_pin.value() == self.tray_active else 0
        # debounce: activity needs the active level on two passes in a row (about 1 ms apart),
        # so a single glitch on the wire is not a roll
        active = sample and self._prev_sample
        self._prev_sample = sample
        if active:
            self._last_activity_ms = now
            if not self.rolling:
                self.rolling = True
                self._tray_event(protocol.TRAY_ROLL_STARTED, now)
        elif self.rolling and self.ticks_diff(now, self._last_activity_ms) >= QUIET_MS:
            self.rolling = False
            self._tray_event(protocol.TRAY_QUIET, now)

    # ---- lights ------------------------------------------------------------------------
    def colours(self):
        """Each LED's (r, g, b) as the ring should show it: the ring colour scaled by its
        brightness, and the glowing seat's segment (LEDs seat*n//seats .. (seat+1)*n//seats - 1)
        in the seat colour as sent."""
        n = len(self.ring)
        k = self.ring_brightness
        r, g, b = self.ring_rgb
        base = (r * k // 255, g * k // 255, b * k // 255)
        out = [base] * n
        if self.seat is not None:
            for i in range(self.seat * n // self.seats, (self.seat + 1) * n // self.seats):
                out[i] = self.seat_rgb
        return out

    def _render(self):
        for i, rgb in enumerate(self.colours()):
            self.ring[i] = rgb
        self.ring.write()
        self._dirty = False


class UsbPort:
    """The USB serial stream on the board: ``select.poll`` on stdin, then one byte at a time.

    ``stdin``/``stdout`` are binary streams (``sys.stdin.buffer``/``sys.stdout.buffer``);
    ``poller`` is ``select.poll()``.
    """

    def __init__(self, stdin, stdout, poller, pollin):
        self.stdin = stdin
        self.stdout = stdout
        self.poller = poller
        self.poller.register(stdin, pollin)

    def read_byte(self):
        if not self.poller.poll(0):
            return None
        data = self.stdin.read(1)
        return data[0] if data else None

    def write(self, data):
        self.stdout.write(data)

    def wait(self, ms):
        self.poller.poll(ms)


def build(stdin=None, stdout=None):
    """Make the board's Peripheral from the real hardware modules; None in safe mode.

    Disables Ctrl-C on the stream first (a 0x03 byte inside a frame must not stop the program),
    then checks SAFE_PIN, then starts the watchdog (it cannot be stopped, so safe mode must come
    before it).
    """
    import micropython

    micropython.kbd_intr(-1)
    import machine
    import neopixel
    import select
    import sys

    if machine.Pin(SAFE_PIN, machine.Pin.IN, machine.Pin.PULL_UP).value() == 0:
        micropython.kbd_intr(3)
        print("companion firmware: safe mode (GP%d held low), REPL left free" % SAFE_PIN)
        return None
    wdt = machine.WDT(timeout=WDT_TIMEOUT_MS)
    ring = neopixel.NeoPixel(machine.Pin(RING_PIN, machine.Pin.OUT), RING_LEDS)
    tray = machine.Pin(TRAY_PIN, machine.Pin.IN, machine.Pin.PULL_DOWN)
    if stdin is None:
        stdin = getattr(sys.stdin, "buffer", sys.stdin)
    if stdout is None:
        stdout = getattr(sys.stdout, "buffer", sys.stdout)
    port = UsbPort(stdin, stdout, select.poll(), select.POLLIN)
    return Peripheral(port, ring, tray, wdt)


def run():
    """The board's entry point: build, then loop forever."""
    board = build()
    if board is not None:
        board.run_forever()


if __name__ == "__main__":
    run()
