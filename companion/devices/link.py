"""The Pico peripheral on USB serial, host side: ring light and seat glow out, tray events in.

One small contract (``Link``), a real backend on pyserial beside a first-class fake:

* ``open_link("auto", vid_pid=(0x2E8A, 0x0005), fallback="/dev/ttyACM0")``: find the Pico by
  USB VID:PID (``serial.tools.list_ports``), else the fallback path, else nothing (``absent``,
  and it keeps looking every second, so a Pico plugged in later is found);
* ``"serial:/dev/ttyACM0"``: that path (while it cannot be opened, ``problem`` says why, e.g.
  "cannot open /dev/ttyACM0: No such file or directory", and it tries again every second);
* ``"loop"``: the simulated Pico (companion.devices.link_sim), the real firmware on a thread with
  fake hardware; ``link.sim`` is the board, for tests and ``companion doctor`` off the Pi;
* ``"none"``: always absent; every method a harmless no-op.

Nothing here blocks the caller: a background thread owns the port, and ``set_ring``,
``set_seat``, ``events`` only touch shared state under a lock. The thread does the handshake,
acknowledges, re-sends, sends heartbeats, and reconnects after an unplug. Only ``ping`` and
``wait_connected`` wait (for ``companion doctor`` and tests).

States (``Link.state``): ``absent`` (no device found, never connected this session),
``retrying`` (a device was found or connected once, and the link is down or coming up now),
``connected`` (handshake done, heartbeats answered), ``incompatible`` (the Pico speaks another
protocol version; ``problem`` says which; reflash the firmware). The timing rules are in
firmware/PROTOCOL.md. The encoding is companion.devices.link_codec; ``serial`` is imported only
when a serial port is opened (pyserial docs: ``serial.Serial``, ``serial.tools.list_ports``).
"""

from __future__ import annotations

import errno
import logging
import os
import threading
import time
from collections import deque
from dataclasses import dataclass
from typing import Callable, Protocol, runtime_checkable

from companion.devices import link_codec as codec

ACK_TIMEOUT_S = 0.1       # re-send an unacknowledged message after this long
MAX_SENDS = 5             # ... this many sends in all, then the link is lost
HEARTBEAT_S = 1.0         # a HEARTBEAT when nothing else was sent for this long
LINK_LOST_S = 3.0         # no valid frame from the Pico for this long: the link is lost
VERSION_TIMEOUT_S = 1.0   # VERSION must follow the HELLO's ack within this long
RECONNECT_S = 0.5         # wait before reopening after a loss
SCAN_S = 1.0              # look for a device this often while none is found
INCOMPATIBLE_RETRY_S = 5.0  # re-handshake this often with a Pico on another protocol version
MAX_EVENTS = 1000         # tray events kept for the caller; the oldest go first

STATES = ("connected", "absent", "retrying", "incompatible")
DEFAULT_SEAT_RGB = (255, 140, 0)

log = logging.getLogger(__name__)


class LinkError(RuntimeError):
    """A bad link spec or argument. The message names the thing and the rule."""


class PortOpenError(OSError):
    """A serial port that could not be opened. ``str()`` is the whole explanation, e.g.
    "cannot open /dev/ttyACM0: No such file or directory"; ``missing`` is True when the path
    does not exist (no device there, as opposed to one that is there but refuses)."""

    def __init__(self, path: str, reason: str, missing: bool) -> None:
        super().__init__(f"cannot open {path}: {reason}")
        self.path = path
        self.missing = missing


@dataclass(frozen=True)
class TrayEvent:
    """Something the tray's vibration sensor saw: ``kind`` "roll-started" or "tray-quiet", and
    ``t`` when it happened, host ``time.monotonic()`` seconds (arrival time minus the age the
    Pico reports, so re-sends do not make it late)."""

    kind: str
    t: float


@runtime_checkable
class Link(Protocol):
    """What the game loop needs from the peripheral. See the module docstring."""

    @property
    def state(self) -> str: ...

    @property
    def firmware_version(self) -> str | None: ...

    def set_ring(self, rgb: tuple[int, int, int], brightness: float) -> None: ...

    def set_seat(self, seat: int | None, rgb: tuple[int, int, int] = DEFAULT_SEAT_RGB, *,
                 seats: int | None = None) -> None: ...

    def events(self) -> list[TrayEvent]: ...

    def ping(self, timeout: float = 0.5) -> float | None: ...

    def wait_connected(self, timeout: float) -> bool: ...

    def close(self) -> None: ...

    def __enter__(self) -> "Link": ...

    def __exit__(self, *exc) -> None: ...


class _Commands:
    """Argument checks and the desired light state, shared by every backend."""

    def __init__(self) -> None:
        self.seats = codec.MAX_SEATS

    def _ring_payload(self, rgb, brightness) -> bytes:
        try:
            return codec.set_ring_payload(rgb, brightness)
        except ValueError as exc:
            raise LinkError(f"set_ring: {exc}") from None

    def _seat_payload(self, seat, rgb, seats) -> bytes:
        try:
            payload = codec.set_seat_payload(seat, self.seats if seats is None else seats, rgb)
        except ValueError as exc:
            raise LinkError(f"set_seat: {exc}") from None
        self.seats = payload[1]
        return payload

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:  # pragma: no cover - overridden
        pass


class NullLink(_Commands):
    """No peripheral: state ``absent``, commands checked then dropped, no events (spec "none")."""

    state = "absent"
    firmware_version = None
    problem = None

    def set_ring(self, rgb, brightness) -> None:
        """Check the arguments (LinkError if bad), then do nothing."""
        self._ring_payload(rgb, brightness)

    def set_seat(self, seat, rgb=DEFAULT_SEAT_RGB, *, seats=None) -> None:
        """Check the arguments (LinkError if bad), then do nothing."""
        self._seat_payload(seat, rgb, seats)

    def events(self) -> list[TrayEvent]:
        return []

    def ping(self, timeout: float = 0.5) -> float | None:
        return None

    def wait_connected(self, timeout: float) -> bool:
        return False  # nothing will ever connect: do not make the caller wait

    def close(self) -> None:
        pass


class _Inflight:
    """The one message sent and not yet acknowledged (stop-and-wait)."""

    def __init__(self, msg_type: int, seq: int, frame: bytes, now: float, ping=None) -> None:
        self.type, self.seq, self.frame = msg_type, seq, frame
        self.first = self.last = now
        self.sends = 1
        self.ping = ping


class _Ping:
    def __init__(self) -> None:
        self.done = threading.Event()
        self.ms: float | None = None


class ThreadedLink(_Commands):
    """The link over any byte transport, run by a background thread.

    Args:
        opener: called by the thread to open the device: returns a transport (``read(n)`` ->
            bytes, waiting up to ~20 ms; ``write(data)``; ``close()``; ``name``) or None when no
            device is there; may raise OSError (a device that is there but cannot be opened), or
            PortOpenError with ``missing`` (no device at that path, and the reason to show).
        name: for the thread's name and messages.

    Attributes besides the contract: ``problem`` (a sentence for people saying why the link is
    not connected: why it went down, why the port cannot be opened, e.g. "cannot open
    /dev/ttyACM0: No such file or directory", or the protocol mismatch; None once connected),
    ``port_name``, ``info`` (VersionInfo from the handshake), counters ``resends``,
    ``duplicates`` (Pico events seen twice), ``refused`` (commands the Pico did not accept),
    ``reconnects``, ``faults`` (unexpected errors in the thread, each handled as a lost link and
    logged).
    """

    def __init__(self, opener: Callable[[], object | None], name: str) -> None:
        super().__init__()
        self._opener = opener
        self.name = name
        self._lock = threading.Lock()
        self._state = "absent"
        self.problem: str | None = None
        self.port_name: str | None = None
        self.info: codec.VersionInfo | None = None
        self.resends = self.duplicates = self.refused = self.reconnects = self.faults = 0
        self._last_fault: str | None = None
        self._found_once = False
        # desired lights (None = never set: the Pico's own lights are left alone)
        self._ring: bytes | None = None
        self._seat: bytes | None = None
        self._dirty: set[int] = set()
        self._events: deque[TrayEvent] = deque(maxlen=MAX_EVENTS)
        self._pings: deque[_Ping] = deque()
        self._connected = threading.Event()
        self._stop = threading.Event()
        # owned by the thread
        self._port = None
        self._decoder = codec.FrameDecoder()
        self._seq = 0
        self._inflight: _Inflight | None = None
        self._pico_seq: int | None = None
        self._held: list[TrayEvent] = []  # TRAY events acknowledged before VERSION said the protocol
        self._handshake = "none"  # "hello" -> "acked" -> "done"
        self._hello_acked_at = 0.0
        self._last_rx = self._last_tx = 0.0
        self._reopen_at = 0.0
        self._on_close: list[Callable[[], None]] = []
        self._thread = threading.Thread(target=self._run, name=f"link {name}", daemon=True)
        self._thread.start()

    # ---- the caller's side: never blocks on I/O ----------------------------------------------
    @property
    def state(self) -> str:
        return self._state

    @property
    def firmware_version(self) -> str | None:
        return self.info.firmware if self.info else None

    def set_ring(self, rgb, brightness) -> None:
        """Light the whole ring ``rgb`` (0..255 each) at ``brightness`` 0.0..1.0. Returns at
        once; sent when connected (again after every reconnect). LinkError on bad values."""
        payload = self._ring_payload(rgb, brightness)
        with self._lock:
            self._ring = payload
            self._dirty.add(codec.SET_RING)

    def set_seat(self, seat, rgb=DEFAULT_SEAT_RGB, *, seats=None) -> None:
        """Glow seat ``seat`` (0-based) of ``seats`` (1..6; default: the last count given, at
        first 6) in ``rgb``; None = no seat glows. Returns at once. LinkError on bad values."""
        with self._lock:
            self._seat = self._seat_payload(seat, rgb, seats)
            self._dirty.add(codec.SET_SEAT)

    def events(self) -> list[TrayEvent]:
        """Every tray event received since the last call, oldest first. Never blocks."""
        out = []
        while self._events:
            out.append(self._events.popleft())
        return out

    def ping(self, timeout: float = 0.5) -> float | None:
        """Round trip of one HEARTBEAT and its ack, ms (from its first send), or None when not
        connected or no ack came within ``timeout`` s. The one call that waits."""
        if self._state != "connected":
            return None
        request = _Ping()
        self._pings.append(request)
        request.done.wait(timeout)
        return request.ms

    def wait_connected(self, timeout: float) -> bool:
        """Wait up to ``timeout`` s for state ``connected``; True if it is."""
        return self._connected.wait(timeout)

    def close(self) -> None:
        """Stop the thread and close the port; the lights stay as they are. Safe to call twice."""
        self._stop.set()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(timeout=2.0)
        for fn in self._on_close:
            fn()
        self._on_close.clear()

    # ---- the thread -----------------------------------------------------------------------
    def _run(self) -> None:
        try:
            while not self._stop.is_set():
                try:
                    self._step()
                except OSError as exc:
                    self._lose(f"{self.port_name}: {exc}", RECONNECT_S)
                except Exception as exc:  # noqa: BLE001 - a bug must cost a reconnect, not the thread
                    # the thread is the link: if it died, the state would freeze and nothing would
                    # ever be sent or received again. Log the traceback (once per distinct error,
                    # not every reconnect), treat it as a lost link.
                    reason = (f"{self.port_name or self.name}: unexpected {type(exc).__name__} in the "
                              f"link's thread: {exc}")
                    if reason != self._last_fault:
                        log.exception("link %s: %s", self.name, reason)
                        self._last_fault = reason
                    self.faults += 1
                    self._lose(reason, RECONNECT_S)
        finally:
            self._close_port()
            self._connected.clear()
            self._fail_pings()

    def _step(self) -> None:
        """One pass of the thread: (re)open when due, else read, act on each message, keep timers."""
        if self._port is None:
            wait = self._reopen_at - time.monotonic()
            if wait > 0:
                self._stop.wait(min(wait, 0.1))
            elif not self._open():
                self._reopen_at = time.monotonic() + SCAN_S
            return
        data = self._port.read(256)
        now = time.monotonic()
        for msg in self._decoder.feed(data):
            self._on_message(msg, now)
            if self._port is None:
                return  # the port was closed (a protocol mismatch): the rest of the read is moot
        self._service(now)

    def _set_state(self, state: str) -> None:
        self._state = state
        if state == "connected":
            self._connected.set()
        else:
            self._connected.clear()

    def _open(self) -> bool:
        try:
            port = self._opener()
        except OSError as exc:
            if getattr(exc, "missing", False):  # no device at that path: as if none was found
                if self._state != "incompatible":
                    self.problem = str(exc)
                    self._set_state("retrying" if self._found_once else "absent")
                return False
            self._found_once = True
            self.problem = str(exc) if isinstance(exc, PortOpenError) else f"cannot open the Pico's port: {exc}"
            self._set_state("retrying")
            return False
        if port is None:
            if self._state != "incompatible":
                self._set_state("retrying" if self._found_once else "absent")
            return False
        if self._found_once:
            self.reconnects += 1
        self._found_once = True
        self._port = port
        self.port_name = getattr(port, "name", self.name)
        self._decoder.reset()
        # self._pico_seq is kept: a Pico that stayed powered re-sends the event it was sending,
        # with the same seq, and it must not be delivered twice; a powered-up Pico's first
        # message is VERSION, which starts its numbering afresh
        self._inflight = None
        self._handshake = "hello"
        self._last_rx = time.monotonic()
        if self._state != "incompatible":
            self._set_state("retrying")
        try:
            port.write(b"\x00")  # end whatever half frame the Pico holds from a previous session
            self._send(codec.HELLO, bytes((codec.PROTOCOL_VERSION,)), self._last_rx)
        except OSError as exc:
            self._lose(f"{self.port_name}: {exc}", RECONNECT_S)
            return False
        return True

    def _send(self, msg_type: int, payload: bytes, now: float, ping: _Ping | None = None) -> None:
        frame = codec.encode(msg_type, self._seq, payload)
        self._inflight = _Inflight(msg_type, self._seq, frame, now, ping)
        self._seq = (self._seq + 1) & 0xFF
        self._last_tx = now
        self._port.write(frame)

    def _service(self, now: float) -> None:
        if now - self._last_rx > LINK_LOST_S:
            return self._lose(f"no frame from the Pico for {LINK_LOST_S:g} s", RECONNECT_S)
        sent = self._inflight
        if sent is not None:
            if now - sent.last >= ACK_TIMEOUT_S:
                if sent.sends >= MAX_SENDS:
                    name = codec.NAMES[sent.type]
                    return self._lose(f"{name} not acknowledged after {MAX_SENDS} sends", RECONNECT_S)
                self._port.write(sent.frame)
                sent.last = now
                sent.sends += 1
                self.resends += 1
            return
        if self._handshake == "acked" and now - self._hello_acked_at > VERSION_TIMEOUT_S:
            return self._lose(f"no VERSION within {VERSION_TIMEOUT_S:g} s of the HELLO's ack", RECONNECT_S)
        if self._handshake != "done":
            return
        with self._lock:  # take the payload under the lock, write outside it: set_ring never waits on I/O
            msg_type = next((t for t in (codec.SET_RING, codec.SET_SEAT) if t in self._dirty), None)
            if msg_type is not None:
                self._dirty.discard(msg_type)
                payload = self._ring if msg_type == codec.SET_RING else self._seat
        if msg_type is not None:
            return self._send(msg_type, payload, now)
        if self._pings:
            return self._send(codec.HEARTBEAT, b"", now, ping=self._pings.popleft())
        if now - self._last_tx >= HEARTBEAT_S:
            self._send(codec.HEARTBEAT, b"", now)

    def _on_message(self, msg: codec.Message, now: float) -> None:
        self._last_rx = now
        if msg.type == codec.ACK:
            sent = self._inflight
            if sent is None or msg.seq != sent.seq:
                return  # a late ack of something already settled
            self._inflight = None
            if msg.payload[0] != codec.ACK_OK:
                self.refused += 1
                self.problem = f"the Pico refused {codec.NAMES[sent.type]} (status {msg.payload[0]})"
            if sent.type == codec.HELLO and self._handshake == "hello":
                self._handshake, self._hello_acked_at = "acked", now
            if sent.ping is not None:
                sent.ping.ms = (now - sent.first) * 1000.0
                sent.ping.done.set()
            return
        accepted = msg.type in (codec.VERSION, codec.TRAY)
        self._port.write(codec.encode(codec.ACK, msg.seq, bytes((codec.ACK_OK if accepted else codec.ACK_REFUSED,))))
        if msg.type == codec.VERSION:
            self._on_version(msg, now)
        elif msg.type == codec.TRAY:
            if msg.seq == self._pico_seq:
                self.duplicates += 1  # our ack was lost and the Pico sent it again
                return
            self._pico_seq = msg.seq
            kind, age_ms = codec.parse_tray(msg.payload)
            if kind is None:
                return
            event = TrayEvent(kind, now - age_ms / 1000.0)
            if self._handshake == "done":
                self._events.append(event)
            else:
                # a Pico that stayed powered through a reconnect re-sends the event it was sending
                # before its VERSION (it queued the VERSION behind it). It is acknowledged, so the
                # Pico moves on to the VERSION; it is delivered once the VERSION shows the Pico
                # speaks our protocol (only then is the payload known to mean what we read).
                self._held.append(event)

    def _on_version(self, msg: codec.Message, now: float) -> None:
        self._pico_seq = msg.seq  # a new Pico session: its seq numbers start afresh
        self.info = codec.parse_version(msg.payload)
        if self.info.protocol != codec.PROTOCOL_VERSION:
            self.problem = (f"the Pico speaks protocol version {self.info.protocol} (firmware "
                            f"{self.info.firmware}), this companion version {codec.PROTOCOL_VERSION}: "
                            "flash the firmware from this checkout (firmware/PROTOCOL.md, 'Flashing')")
            self._held.clear()  # read with a layout that Pico may not use: not trusted
            self._close_port()
            self._set_state("incompatible")
            self._reopen_at = now + INCOMPATIBLE_RETRY_S
            return
        if self._handshake != "done":
            if self._inflight is not None and self._inflight.type == codec.HELLO:
                self._inflight = None  # VERSION means the HELLO arrived, even if its ack did not
            self._handshake = "done"
            self.problem = None
            self._events.extend(self._held)
            self._held.clear()
            with self._lock:  # the Pico may have rebooted: tell it the lights again
                self._dirty = {t for t, p in ((codec.SET_RING, self._ring), (codec.SET_SEAT, self._seat)) if p}
            self._set_state("connected")

    def _lose(self, reason: str, wait: float) -> None:
        self.problem = reason
        self._close_port()
        self._set_state("retrying")
        self._reopen_at = time.monotonic() + wait
        self._fail_pings()

    def _close_port(self) -> None:
        port, self._port = self._port, None
        self._inflight = None
        self._handshake = "none"
        if port is not None:
            try:
                port.close()
            except Exception:  # noqa: BLE001 - a port that fails to close is closed as far as we care
                pass

    def _fail_pings(self) -> None:
        while self._pings:
            self._pings.popleft().done.set()


# ---- the serial transport ---------------------------------------------------------------------

class SerialTransport:
    """A pyserial port in the shape the link's thread uses. USB CDC ignores the baud rate."""

    def __init__(self, path: str) -> None:
        import serial  # lazy: pyserial only when a port is really opened

        self.name = path
        # timeout: read() returns after 20 ms without input, so the thread keeps its timers;
        # write_timeout: a Pico that stopped reading makes write() fail instead of hang
        try:
            self._ser = serial.Serial(path, baudrate=115200, timeout=0.02, write_timeout=0.5, exclusive=True)
        except OSError as exc:  # serial.SerialException is an OSError
            raise _open_error(path, exc) from None

    def read(self, n: int) -> bytes:
        data = self._ser.read(1)
        waiting = self._ser.in_waiting if data else 0
        return data + self._ser.read(min(waiting, n - 1)) if waiting else data

    def write(self, data: bytes) -> None:
        self._ser.write(data)

    def close(self) -> None:
        self._ser.close()


def _open_error(path: str, exc: OSError) -> PortOpenError:
    """pyserial's open failure as "cannot open PATH: <OS reason>". pyserial wraps the OS error
    in its own text ("could not open port ...: [Errno 2] ..."); the errno is on the exception,
    or, for a path that is not a tty, on the termios.error it was raised from."""
    code = exc.errno
    inner = exc.__context__
    if code is None and inner is not None and inner.args and isinstance(inner.args[0], int):
        code = inner.args[0]
    if code in (errno.EAGAIN, errno.EWOULDBLOCK) and "lock" in str(exc).lower():
        reason = "in use by another program (the companion opens it exclusively; is mpremote or a second companion running?)"
    elif code == errno.ENOTTY:
        reason = "not a serial port (Inappropriate ioctl for device)"
    elif code:
        reason = os.strerror(code)
    else:
        reason = str(exc)
    return PortOpenError(path, reason, missing=code == errno.ENOENT)


def find_port(vid_pid: tuple[int, int] | None, fallback: str | None) -> str | None:
    """The device path of the first USB port with ``vid_pid`` (by device name), else
    ``fallback`` if that path exists, else None."""
    if vid_pid is not None:
        from serial.tools import list_ports  # lazy

        found = sorted(p.device for p in list_ports.comports() if (p.vid, p.pid) == tuple(vid_pid))
        if found:
            return found[0]
    if fallback and os.path.exists(fallback):
        return fallback
    return None


def _serial_opener(vid_pid, fallback):
    def open_port():
        path = find_port(vid_pid, fallback)
        return None if path is None else SerialTransport(path)

    return open_port


# ---- opening ----------------------------------------------------------------------------------

SPEC_FORMS = "'auto', 'none', 'serial:/dev/ttyACM0' (a path) or 'loop' (the simulated Pico)"


def _check_vid_pid(vid_pid) -> tuple[int, int] | None:
    if vid_pid is None:
        return None
    ok = (isinstance(vid_pid, (tuple, list)) and len(vid_pid) == 2
          and all(isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= 0xFFFF for v in vid_pid))
    if not ok:
        raise LinkError(f"vid_pid must be (vendor, product) with each 0..0xFFFF, e.g. (0x2E8A, 0x0005), "
                        f"not {vid_pid!r}")
    return int(vid_pid[0]), int(vid_pid[1])


def open_link(spec: str, *, vid_pid: tuple[int, int] | None = None, fallback: str | None = None) -> Link:
    """Open the peripheral link from a spec string (see the module docstring). Never waits for
    the device: the returned link connects in the background (``wait_connected`` to wait).

    Args:
        spec: "auto", "none", "serial:PATH" or "loop".
        vid_pid: the Pico's USB (vendor, product) ids for "auto" (MicroPython: 0x2E8A, 0x0005;
            the caller takes them from hardware/pinout.toml).
        fallback: the path "auto" tries when no port has that VID:PID (e.g. /dev/ttyACM0).

    Raises:
        LinkError: an unknown or malformed spec, or a malformed vid_pid (the message names the
            accepted forms).
    """
    if not isinstance(spec, str):
        raise LinkError(f"link spec must be a string, one of {SPEC_FORMS}; not {spec!r}")
    vid_pid = _check_vid_pid(vid_pid)
    kind, sep, arg = spec.strip().partition(":")
    kind = kind.lower()
    if kind == "none" and not sep:
        return NullLink()
    if kind == "auto" and not sep:
        if vid_pid is None and not fallback:
            return NullLink()  # nothing to look for
        return ThreadedLink(_serial_opener(vid_pid, fallback), "auto")
    if kind == "serial":
        if not arg:
            raise LinkError(f"link spec {spec!r}: say which port, e.g. 'serial:/dev/ttyACM0'")
        # opened as given, even when missing: the OS's reason becomes ``problem``
        return ThreadedLink(lambda: SerialTransport(arg), arg)
    if kind == "loop" and not sep:
        from companion.devices.link_sim import SimulatedPico

        try:
            sim = SimulatedPico()
        except FileNotFoundError as exc:
            raise LinkError(f"link spec 'loop': {exc}") from None
        link = ThreadedLink(sim.connect, "loop")
        link.sim = sim
        link._on_close.append(sim.close)
        return link
    raise LinkError(f"unknown link spec {spec!r}; use {SPEC_FORMS}")
