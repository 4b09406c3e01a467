"""The simulated Pico: the real firmware (firmware/main.py + firmware/protocol.py) running under
CPython on a thread, with fake hardware (NeoPixel ring, vibration pin, watchdog) and an in-process
byte pipe instead of USB. It is the first-class fake behind ``open_link("loop")``: the tests and
``companion doctor`` off the Pi talk to the very code that runs on the board.

The firmware modules are loaded from the repository's ``firmware/`` folder under private module
names, so nothing called ``protocol`` or ``main`` is left in ``sys.modules``.
"""

from __future__ import annotations

import importlib.util
import sys
import threading
import time
from pathlib import Path
from types import ModuleType

FIRMWARE_DIR = Path(__file__).resolve().parents[2] / "firmware"


def _load(name: str, path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_cache: dict[str, tuple[ModuleType, ModuleType]] = {}


def load_firmware(folder: str | Path = FIRMWARE_DIR) -> tuple[ModuleType, ModuleType]:
    """Load (protocol, main) from ``folder`` as CPython modules (cached per folder).

    ``main.py`` does ``import protocol`` as it does on the board; while it loads, ``protocol``
    is aliased in ``sys.modules`` to the loaded module and the previous entry is put back.

    Raises:
        FileNotFoundError: ``folder`` has no protocol.py or main.py (a wheel install without the
            repository: the simulated Pico needs the firmware sources).
    """
    folder = Path(folder)
    key = str(folder)
    if key in _cache:
        return _cache[key]
    for name in ("protocol.py", "main.py"):
        if not (folder / name).is_file():
            raise FileNotFoundError(f"{folder / name}: the simulated Pico needs the firmware sources")
    protocol = _load("companion_firmware_protocol", folder / "protocol.py")
    saved = sys.modules.get("protocol")
    sys.modules["protocol"] = protocol
    try:
        main = _load("companion_firmware_main", folder / "main.py")
    finally:
        if saved is None:
            del sys.modules["protocol"]
        else:
            sys.modules["protocol"] = saved
    _cache[key] = (protocol, main)
    return protocol, main


# ---- fake hardware ----------------------------------------------------------------------------

class FakeNeoPixel:
    """A ``neopixel.NeoPixel`` stand-in: ``leds`` holds each LED's (r, g, b) as last written
    with ``write()``; ``writes`` counts the writes."""

    def __init__(self, n: int = 24) -> None:
        self._staged = [(0, 0, 0)] * n
        self.leds = list(self._staged)
        self.writes = 0

    def __len__(self) -> int:
        return len(self._staged)

    def __setitem__(self, i: int, rgb: tuple[int, int, int]) -> None:
        self._staged[i] = tuple(rgb)

    def write(self) -> None:
        self.leds = list(self._staged)
        self.writes += 1


class FakePin:
    """A ``machine.Pin`` input: set ``level`` (0/1) to shake or still the tray."""

    def __init__(self, level: int = 0) -> None:
        self.level = level

    def value(self) -> int:
        return self.level


class FakeWDT:
    """A ``machine.WDT``: counts ``feeds``."""

    def __init__(self) -> None:
        self.feeds = 0

    def feed(self) -> None:
        self.feeds += 1


class _Pipe:
    """One direction of the simulated USB cable: a thread-safe byte buffer."""

    def __init__(self) -> None:
        self._buf = bytearray()
        self._cond = threading.Condition()
        self.closed = False

    def write(self, data: bytes) -> None:
        with self._cond:
            if self.closed:
                raise OSError("simulated Pico: cable unplugged")
            self._buf += data
            self._cond.notify_all()

    def read(self, n: int, timeout: float) -> bytes:
        with self._cond:
            if not self._buf and not self.closed:
                self._cond.wait(timeout)
            if self.closed:
                raise OSError("simulated Pico: cable unplugged")
            data = bytes(self._buf[:n])
            del self._buf[:n]
            return data

    def read_byte(self) -> int | None:
        with self._cond:
            if not self._buf:
                return None
            b = self._buf[0]
            del self._buf[0]
            return b

    def wait(self, timeout: float) -> None:
        with self._cond:
            if not self._buf and not self.closed:
                self._cond.wait(timeout)

    def close(self) -> None:
        with self._cond:
            self.closed = True
            self._cond.notify_all()


class _BoardPort:
    """The Pico's side of the cable (the firmware's ``port``): what it writes while unplugged or
    while ``sim.drop_from_pico`` > 0 is lost, as on a real cable."""

    def __init__(self, sim: "SimulatedPico") -> None:
        self.sim = sim

    def read_byte(self) -> int | None:
        cable = self.sim._cable
        return None if cable is None or cable[0].closed else cable[0].read_byte()

    def write(self, data: bytes) -> None:
        cable = self.sim._cable
        if cable is None or cable[1].closed:
            return
        if self.sim.drop_from_pico > 0:
            self.sim.drop_from_pico -= 1
            return
        try:
            cable[1].write(data)
        except OSError:
            pass

    def wait(self, ms: int) -> None:
        cable = self.sim._cable
        if cable is None:
            time.sleep(ms / 1000)
        else:
            cable[0].wait(ms / 1000)


class LoopTransport:
    """The host's side of the simulated cable, shaped like the serial transport: ``read(n)``
    (waits up to 20 ms), ``write(data)``, ``close()``; both raise OSError once unplugged."""

    def __init__(self, sim: "SimulatedPico", to_pico: _Pipe, to_host: _Pipe) -> None:
        self.sim = sim
        self.name = "loop"
        self._to_pico = to_pico
        self._to_host = to_host

    def read(self, n: int) -> bytes:
        return self._to_host.read(n, 0.02)

    def write(self, data: bytes) -> None:
        if self.sim.drop_to_pico > 0 and not self._to_pico.closed:
            self.sim.drop_to_pico -= 1
            return
        self._to_pico.write(data)

    def close(self) -> None:
        self._to_pico.close()
        self._to_host.close()


class SimulatedPico:
    """The firmware's ``Peripheral`` on a thread, with a FakeNeoPixel ring, a FakePin tray sensor
    and a FakeWDT, behind an in-process cable.

    Args:
        leds: ring size.
        protocol_version: what the firmware announces (default: the firmware's own).
        step_ms: the loop's wait for input per pass (ms); the board's is 1 ms.

    Test hooks: ``ring.leds``, ``tray.level``, ``board`` (the Peripheral: ``applied``,
    ``duplicates``...), ``unplug()``/``replug()`` (a replug is a power-up: a fresh board),
    ``drop_from_pico``/``drop_to_pico`` (the next N frames in that direction are lost),
    ``inject(data)`` (bytes to the host as if from the Pico: noise).
    """

    def __init__(self, leds: int = 24, protocol_version: int | None = None, step_ms: int = 5) -> None:
        self._protocol, self._main = load_firmware()
        self._leds = leds
        self._protocol_version = protocol_version or self._protocol.PROTOCOL_VERSION
        self.step_ms = step_ms
        self.plugged = True
        self.drop_from_pico = 0
        self.drop_to_pico = 0
        self.power_ups = 0
        self._cable: tuple[_Pipe, _Pipe] | None = None
        self._lock = threading.Lock()
        self._power_up()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="simulated Pico", daemon=True)
        self._thread.start()

    def _power_up(self) -> None:
        self.ring = FakeNeoPixel(self._leds)
        self.tray = FakePin()
        self.wdt = FakeWDT()
        self.board = self._main.Peripheral(_BoardPort(self), self.ring, self.tray, self.wdt,
                                           protocol_version=self._protocol_version)
        self.power_ups += 1

    def _run(self) -> None:
        while not self._stop.is_set():
            with self._lock:
                board = self.board
                if self.plugged:
                    board.step()
            board.port.wait(self.step_ms)

    def connect(self) -> LoopTransport | None:
        """Open the cable from the host (a new session, like opening /dev/ttyACM0); None while
        unplugged. Any previous session's pipes are closed."""
        with self._lock:
            if not self.plugged:
                return None
            if self._cable is not None:
                for pipe in self._cable:
                    pipe.close()
            self._cable = (_Pipe(), _Pipe())
            return LoopTransport(self, *self._cable)

    def inject(self, data: bytes) -> None:
        """Put ``data`` on the wire towards the host (noise, half frames)."""
        cable = self._cable
        if cable is not None and not cable[1].closed:
            cable[1].write(data)

    def unplug(self) -> None:
        """Pull the cable: the host's reads and writes fail from now on; the board loses power."""
        with self._lock:
            self.plugged = False
            if self._cable is not None:
                for pipe in self._cable:
                    pipe.close()
                self._cable = None

    def replug(self) -> None:
        """Plug it back: the board powers up afresh (boot lights, no memory of the host)."""
        with self._lock:
            self._power_up()
            self.plugged = True

    def close(self) -> None:
        self._stop.set()
        self.unplug()
        self._thread.join(timeout=2.0)
