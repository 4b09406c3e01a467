"""The button panel and its lights: one small contract, real pins beside first-class fakes.

The panel is five buttons, ◀ ▶ OK BACK UNDO, one LED per seat, a status LED and a buzzer; the
pins come from ``hardware/pinout.toml`` (:mod:`companion.devices.pinout`), never from here.
Every backend gives:

  * ``get(timeout=0)`` → the next :class:`PanelEvent` or None. ``0`` never blocks, a number
    waits up to that many seconds, ``None`` waits until an event comes (or the panel closes);
  * ``show_turn(seat)``, ``show_waiting(seats)``, ``show_error(on)``: the lights;
  * ``beep_refused()``: a short sound, never blocking; ``close()``, and use as a context manager.

Events are named after what they mean (:data:`EVENTS`): ``left``, ``right``, ``ok``, ``back``,
``undo``, and two long presses, ``menu`` (hold OK) and ``undo_turn`` (hold UNDO, undo the whole
turn). ◀ ▶ BACK have no long press, so they fire at once on press. OK and UNDO fire on
*release*, and only if the press did not last :data:`HOLD_TIME_S`: a long press gives its hold
event when the time is reached (while still held) and never also the short one. A button held
for ever gives at most its one hold event and never stops ``get()``.

gpiozero runs its callbacks on its own threads, so a callback does nothing but note the press
and put an event on a :class:`queue.Queue`; the game loop reads that queue with ``get()``. The
lights are only ever changed by the loop's own calls.

Seats are numbered from 0, as the mat layouts' zones are (seat 0 = "Seat 1" = the first LED).
``lights`` gives the logical light state of every backend ("on", "off", "blink" per seat and for
the status LED), so a screen can mirror the LEDs when there are none (keys, script).

Backends (:func:`open_panel`): ``gpio`` (real pins, gpiozero's default pin factory: lgpio on a
Pi 5), ``mock`` (gpiozero ``MockFactory`` with ``MockPWMPin``: tests drive button pins with
``drive_low()``/``drive_high()`` and read LED pins' ``state``), ``keys``/``keys:pump`` (a
developer's keyboard through pygame), ``script:FILE`` (a recorded JSON list) and ``none``.

Sources: gpiozero documentation (2.0), "API - Input Devices" (``Button``: ``pull_up``,
``bounce_time``, ``hold_time``, ``when_pressed``/``when_released``/``when_held``), "API -
Boards and Accessories" (``LEDBoard``), "API - Output Devices" (``LED``, ``Buzzer``,
``TonalBuzzer``), "API - Pins" (pin factories, ``LGPIOFactory`` on the Pi 5, ``MockFactory``,
``MockPWMPin``, ``drive_low``/``drive_high``); pygame documentation, ``pygame.event`` and
``pygame.key`` (``KEYDOWN``/``KEYUP``, key constants).
"""

from __future__ import annotations

import math
import queue
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Protocol, runtime_checkable

from companion.devices.pinout import BUTTON_ROLES, MAX_SEATS, Pinout, PinoutError, load_pinout
from companion.inputs import PANEL_SCRIPT, InputError, display_path, read_json

#: Every event a panel can give, named after its meaning.
EVENTS = ("left", "right", "ok", "back", "undo", "menu", "undo_turn")
#: The five buttons, in panel order.
BUTTONS = BUTTON_ROLES  # the panel has a button for every role the pinout names
#: Button -> the event its long press gives. Only these buttons wait for release.
HOLD_EVENTS = {"ok": "menu", "undo": "undo_turn"}
#: Seconds a button must stay down to count as a long press (gpiozero ``hold_time``).
HOLD_TIME_S = 1.0
#: Seconds of contact bounce ignored after an edge (gpiozero ``bounce_time``; typical tactile
#: switches settle within 5-20 ms). Mock pins ignore it.
BOUNCE_TIME_S = 0.03
#: Blink half-period, s: a seat still awaited, or the status LED during an error.
BLINK_S = 0.3
#: Length of the refusal sound, s.
BEEP_S = 0.15
#: The forms :func:`open_panel` accepts, for messages.
SPEC_FORMS = ("gpio", "mock", "keys", "keys:pump", "script:FILE", "none")

ON, OFF, BLINK = "on", "off", "blink"
_WAKE = object()  # wakes a blocked get() to look at time-driven events again
_CLOSED = object()  # wakes a blocked get() when the panel closes


class PanelError(RuntimeError):
    """The panel cannot be opened or used: a bad spec, script or pinout, pins unavailable or in
    use, a bad seat number, use after close. The message names the thing and what to do."""


@dataclass(frozen=True)
class PanelEvent:
    """One panel event: ``name`` in :data:`EVENTS`; ``t`` the host's ``time.monotonic()`` in s
    when it happened (for ``script:`` panels, the script's own ``t``, s from open)."""

    name: str
    t: float


@dataclass(frozen=True)
class Lights:
    """What the lights show: ``seats[i]`` and ``status`` are each ``"on"``, ``"off"`` or ``"blink"``."""

    seats: tuple[str, ...]
    status: str


@runtime_checkable
class Panel(Protocol):
    """What the app needs from a panel. See the module docstring for the event rules."""

    backend: str
    pin_factory: str | None

    def get(self, timeout: float | None = 0) -> PanelEvent | None: ...

    def show_turn(self, seat: int | None) -> None: ...

    def show_waiting(self, seats: Iterable[int]) -> None: ...

    def show_error(self, on: bool) -> None: ...

    def beep_refused(self) -> None: ...

    @property
    def lights(self) -> Lights: ...

    def close(self) -> None: ...

    def __enter__(self) -> "Panel": ...

    def __exit__(self, *exc) -> None: ...


class _PanelBase:
    """The queue, the ``get()`` loop, the logical lights and close: shared by every backend.

    On its own it is the ``none`` panel: no event ever comes, the lights are only logical.
    Subclasses put events with :meth:`_emit`, may produce time-driven ones in :meth:`_poll`
    (called by ``get()``), say when to look again with :meth:`_wake_after`, and drive real
    lights in :meth:`_apply_seats`, :meth:`_apply_status` and :meth:`_beep`.
    """

    backend = "none"
    pin_factory: str | None = None

    def __init__(self, seats: int = MAX_SEATS, clock: Callable[[], float] = time.monotonic) -> None:
        self._events: queue.Queue = queue.Queue()
        self._clock = clock
        self._seats = [OFF] * seats
        self._status = ON  # steady on: the panel is up and no error stands
        self.beeps = 0  # refusal sounds asked for (every backend counts them)
        self._closed = False

    # --- events -------------------------------------------------------------------------
    def _emit(self, name: str, t: float | None = None) -> None:
        self._events.put(PanelEvent(name, self._clock() if t is None else t))

    def _poll(self) -> None:
        """Queue events that are due now (time-driven backends)."""

    def _wake_after(self, now: float) -> float | None:
        """Seconds until :meth:`_poll` may have something new, or None if only the queue can."""
        return None

    def get(self, timeout: float | None = 0) -> PanelEvent | None:
        """The next event, or None if none came in ``timeout`` s (0: never blocks; None: wait
        until an event comes or the panel is closed from another thread).

        Raises:
            PanelError: the panel is closed (a ``get()`` already waiting returns None instead).
        """
        self._check_open()
        deadline = None if timeout is None else self._clock() + max(0.0, float(timeout))
        while True:
            self._poll()
            try:
                item = self._events.get_nowait()
            except queue.Empty:
                now = self._clock()
                if deadline is not None and now >= deadline:
                    return None
                wait = self._wake_after(now)
                if deadline is not None:
                    wait = deadline - now if wait is None else min(wait, deadline - now)
                try:
                    item = self._events.get(timeout=None if wait is None else max(wait, 0.0))
                except queue.Empty:
                    continue
            if item is _WAKE:
                continue
            if item is _CLOSED:
                return None
            return item

    # --- lights -------------------------------------------------------------------------
    @property
    def lights(self) -> Lights:
        """The logical state of every light (also for backends without LEDs)."""
        return Lights(tuple(self._seats), self._status)

    def _seat_index(self, seat) -> int:
        n = len(self._seats)
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n:
            raise PanelError(f"seat {seat!r}: the panel has seat LEDs 0..{n - 1} (seat 0 is 'Seat 1')")
        return seat

    def show_turn(self, seat: int | None) -> None:
        """Light ``seat``'s LED steadily and put the other seats' LEDs out (None: all out).

        Raises:
            PanelError: ``seat`` is not an int in 0..seats-1.
        """
        self._check_open()
        index = None if seat is None else self._seat_index(seat)
        self._set_seats([ON if i == index else OFF for i in range(len(self._seats))])

    def show_waiting(self, seats: Iterable[int]) -> None:
        """Blink the LEDs of ``seats`` (the camera still waits for them); the others go out.

        Raises:
            PanelError: a seat is not an int in 0..seats-1.
        """
        self._check_open()
        waiting = {self._seat_index(s) for s in seats}
        self._set_seats([BLINK if i in waiting else OFF for i in range(len(self._seats))])

    def show_error(self, on: bool) -> None:
        """Blink the status LED while an error stands (``on=True``); steady on when all is well."""
        self._check_open()
        status = BLINK if on else ON
        if status != self._status:
            self._status = status
            self._apply_status(status)

    def beep_refused(self) -> None:
        """A short sound for a refused move (about :data:`BEEP_S` s); returns at once."""
        self._check_open()
        self.beeps += 1
        self._beep()

    def _set_seats(self, states: list[str]) -> None:
        if states != self._seats:
            self._seats = states
            self._apply_seats(tuple(states))

    def _apply_seats(self, states: tuple[str, ...]) -> None:
        """Drive the seat LEDs (backends with LEDs)."""

    def _apply_status(self, state: str) -> None:
        """Drive the status LED (backends with LEDs)."""

    def _beep(self) -> None:
        """Sound the buzzer (backends with one)."""

    # --- life cycle ---------------------------------------------------------------------
    @property
    def closed(self) -> bool:
        return self._closed

    def _check_open(self) -> None:
        if self._closed:
            raise PanelError(f"the {self.backend} panel is closed; open a new one with open_panel()")

    def close(self) -> None:
        """Release every pin or window the panel holds. Safe to call twice."""
        if not self._closed:
            self._closed = True
            try:
                self._release()
            finally:
                self._events.put(_CLOSED)

    def _release(self) -> None:
        """Free what the backend holds."""

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class NonePanel(_PanelBase):
    """A panel with no buttons at all: ``get()`` never gives an event (a table run by a script
    or by the camera alone). Lights are logical only."""


# --- gpio and mock ---------------------------------------------------------------------------
class GPIOPanel(_PanelBase):
    """The real panel on gpiozero devices (also the ``mock`` backend, on a ``MockFactory``).

    Args:
        pinout: the checked :class:`~companion.devices.pinout.Pinout`.
        factory: a gpiozero pin factory, or None for gpiozero's default (``Device.pin_factory``,
            else the first that loads: lgpio on a Pi 5, ``GPIOZERO_PIN_FACTORY`` overrides).
        backend: ``"gpio"`` or ``"mock"`` (only reported).
        hold_time: s a press must last to be a long press.
        bounce_time: s of contact bounce ignored.

    Buttons are wired GPIO → switch → GND with the internal pull-up (``pull_up=True``), LEDs
    GPIO → resistor → LED → GND (active high). ``button_pins``, ``seat_pins``, ``status_pin``
    and ``buzzer_pin`` are the gpiozero pin objects (``MockPin`` under ``mock``); ``factory``
    is the pin factory.

    Raises:
        PanelError: no pin factory can be loaded (off a Pi), or a pin is in use or invalid
            (the role and GPIO named). Pins opened before the failure are released.
    """

    def __init__(
        self,
        pinout: Pinout,
        factory=None,
        backend: str = "gpio",
        hold_time: float = HOLD_TIME_S,
        bounce_time: float | None = BOUNCE_TIME_S,
    ) -> None:
        super().__init__(len(pinout.seat_leds))
        from gpiozero import LED, Button, Buzzer, LEDBoard, TonalBuzzer
        from gpiozero.tones import Tone

        self.backend = backend
        self.hold_time = float(hold_time)
        self._lock = threading.Lock()
        self._button_state = {name: "up" for name in BUTTONS}  # up | down | held
        self._beep_timer: threading.Timer | None = None
        self._devices: list = []
        self._buttons: dict[str, object] = {}
        try:
            for name in BUTTONS:
                button = self._open(
                    f"button {name}",
                    pinout.buttons[name],
                    lambda pin: Button(
                        pin, pull_up=True, bounce_time=bounce_time, hold_time=self.hold_time, pin_factory=factory
                    ),
                )
                button.when_pressed = partial(self._pressed, name)
                button.when_released = partial(self._released, name)
                if name in HOLD_EVENTS:
                    button.when_held = partial(self._held, name)
                self._buttons[name] = button
            self._seat_board = self._open(
                "seat LEDs", pinout.seat_leds, lambda pins: LEDBoard(*pins, pwm=False, pin_factory=factory)
            )
            self._status_led = self._open("status LED", pinout.status_led, lambda pin: LED(pin, pin_factory=factory))
            if pinout.buzzer_kind == "tonal":
                # a passive piezo is loudest near its resonance (2-4 kHz); A4..A6 is the usable span
                self._buzzer = self._open(
                    "buzzer",
                    pinout.buzzer,
                    lambda pin: TonalBuzzer(pin, mid_tone=Tone("A5"), octaves=1, pin_factory=factory),
                )
            else:
                self._buzzer = self._open("buzzer", pinout.buzzer, lambda pin: Buzzer(pin, pin_factory=factory))
        except BaseException:
            self._release()
            raise
        self.factory = self._status_led.pin_factory
        self.pin_factory = type(self.factory).__name__
        self.button_pins = {name: b.pin for name, b in self._buttons.items()}
        self.seat_pins = tuple(led.pin for led in self._seat_board.leds)
        self.status_pin = self._status_led.pin
        self.buzzer_pin = self._buzzer.pwm_device.pin if pinout.buzzer_kind == "tonal" else self._buzzer.pin
        self._status_led.on()

    def _open(self, role: str, pin, make):
        """Make one gpiozero device, turning its errors into a PanelError naming the role."""
        import warnings

        from gpiozero.exc import BadPinFactory, GPIOPinInUse, PinFactoryFallback

        try:
            # gpiozero warns once per factory it tries on the way to one that loads; off the Pi that
            # is four warnings before a clear error, so they are kept for the error instead
            with warnings.catch_warnings(record=True) as tried:
                warnings.simplefilter("always", PinFactoryFallback)
                device = make(pin)
        except BadPinFactory as exc:
            reasons = "; ".join(str(w.message) for w in tried if issubclass(w.category, PinFactoryFallback))
            raise PanelError(
                f"no GPIO pin factory could be loaded ({exc}{'; ' + reasons if reasons else ''}). "
                "On a Raspberry Pi install lgpio "
                "('sudo apt install python3-lgpio'; a Pi 5 needs it) and make the venv with "
                "'python3 -m venv --system-site-packages'. Off the Pi use 'keys', 'script:FILE', "
                "'mock' or 'none' instead of 'gpio'."
            ) from exc
        except GPIOPinInUse as exc:
            raise PanelError(
                f"{role} on GPIO {pin} is already in use ({exc}); another device or program holds "
                "it: stop it, or change hardware/pinout.toml"
            ) from exc
        except Exception as exc:  # lgpio/native factories raise their own types for a busy or bad pin
            raise PanelError(f"cannot open {role} on GPIO {pin}: {type(exc).__name__}: {exc}") from exc
        self._devices.append(device)
        return device

    # gpiozero threads call these: bookkeeping under a lock, then only a queue put
    def _pressed(self, name: str) -> None:
        with self._lock:
            self._button_state[name] = "down"
        if name not in HOLD_EVENTS:
            self._emit(name)

    def _held(self, name: str) -> None:
        with self._lock:
            if self._button_state[name] != "down":
                return  # released just before the hold thread fired: the short event won
            self._button_state[name] = "held"
        self._emit(HOLD_EVENTS[name])

    def _released(self, name: str) -> None:
        with self._lock:
            was = self._button_state[name]
            self._button_state[name] = "up"
        if name in HOLD_EVENTS and was == "down":
            self._emit(name)

    def _apply_seats(self, states: tuple[str, ...]) -> None:
        leds = self._seat_board.leds
        for led, state in zip(leds, states):
            if state != BLINK:
                led.on() if state == ON else led.off()
        # blinking LEDs are (re)started together so they blink in step
        for led, state in zip(leds, states):
            if state == BLINK:
                led.blink(on_time=BLINK_S, off_time=BLINK_S, background=True)

    def _apply_status(self, state: str) -> None:
        if state == BLINK:
            self._status_led.blink(on_time=BLINK_S, off_time=BLINK_S, background=True)
        else:
            self._status_led.on()

    def _beep(self) -> None:
        from gpiozero import Buzzer

        with self._lock:
            if isinstance(self._buzzer, Buzzer):
                self._buzzer.beep(on_time=BEEP_S, off_time=BEEP_S, n=1, background=True)
                return
            if self._beep_timer is not None:
                self._beep_timer.cancel()
            self._buzzer.play(self._buzzer.max_tone)  # A6, 1760 Hz: nearest the piezo's resonance
            self._beep_timer = threading.Timer(BEEP_S, self._beep_end)
            self._beep_timer.daemon = True
            self._beep_timer.start()

    def _beep_end(self) -> None:
        with self._lock:
            if not self._closed:
                self._buzzer.stop()

    def _release(self) -> None:
        with self._lock:
            if self._beep_timer is not None:
                self._beep_timer.cancel()
        for device in reversed(self._devices):
            device.close()
        self._devices.clear()


def _mock_factory():
    """``Device.pin_factory`` if it is already a PWM-capable ``MockFactory`` (a test's fixture),
    else a new ``MockFactory(pin_class=MockPWMPin)`` for this panel alone."""
    from gpiozero import Device
    from gpiozero.pins.mock import MockFactory, MockPWMPin

    current = Device.pin_factory
    if isinstance(current, MockFactory) and issubclass(current.pin_class, MockPWMPin):
        return current
    return MockFactory(pin_class=MockPWMPin)


# --- keys ------------------------------------------------------------------------------------
class KeysPanel(_PanelBase):
    """A developer's keyboard as the panel, through pygame key events.

    Keys: ← ``left``, → ``right``, Enter (or keypad Enter) ``ok``, Backspace ``back``, U
    ``undo``; Enter or U held ``hold_time`` s gives ``menu`` / ``undo_turn`` instead.

    Whoever pumps pygame's event queue (the live loop owns the window) hands each event to
    :meth:`feed`; other events are ignored. With ``pump=True`` the panel pumps pygame's
    ``KEYDOWN``/``KEYUP`` events itself in ``get()`` and opens a small window if none exists
    (keyboard events need a focused window). There is no terminal mode: a terminal reports
    no key releases, so a long press could not be told from key repeat.

    Raises:
        PanelError: pygame cannot be imported, or (pump) no window can be opened.
    """

    backend = "keys"

    def __init__(
        self,
        seats: int = MAX_SEATS,
        hold_time: float = HOLD_TIME_S,
        pump: bool = False,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__(seats, clock)
        try:
            import pygame
        except ImportError as exc:
            raise PanelError(f"the keys panel needs pygame ({exc}); pip install pygame-ce") from exc
        self._pg = pygame
        self.hold_time = float(hold_time)
        self._keymap = {
            pygame.K_LEFT: "left",
            pygame.K_RIGHT: "right",
            pygame.K_RETURN: "ok",
            pygame.K_KP_ENTER: "ok",
            pygame.K_BACKSPACE: "back",
            pygame.K_u: "undo",
        }
        self._lock = threading.Lock()
        self._down: dict[str, float] = {}  # hold-capable key -> press time, until held or released
        self._held: set[str] = set()
        self._pump = pump
        self._own_window = False
        if pump:
            try:
                pygame.display.init()
                if pygame.display.get_surface() is None:
                    self._own_window = True
                    pygame.display.set_mode((420, 60))
                    pygame.display.set_caption("companion panel: ← → Enter Backspace U (hold Enter/U)")
            except pygame.error as exc:
                raise PanelError(f"keys:pump cannot open a pygame window ({exc}); use 'keys' with feed()") from exc

    def feed(self, event, t: float | None = None) -> bool:
        """Take one pygame event; True if it was a panel key (the caller may skip it then).

        Args:
            event: a ``pygame.event.Event``; only ``KEYDOWN``/``KEYUP`` of the panel keys count.
            t: when it happened (``time.monotonic()`` s); default now.
        """
        pg = self._pg
        if event.type not in (pg.KEYDOWN, pg.KEYUP):
            return False
        name = self._keymap.get(getattr(event, "key", None))
        if name is None:
            return False
        now = self._clock() if t is None else t
        hold = HOLD_EVENTS.get(name)
        with self._lock:
            if event.type == pg.KEYDOWN:
                if hold is None:
                    self._emit(name, now)  # key repeat, if the owner enabled it, repeats ◀ ▶
                elif name not in self._down and name not in self._held:
                    self._down[name] = now
                    self._events.put(_WAKE)  # a get() waiting with no deadline must time the hold
            elif hold is not None:
                if name in self._down:
                    t0 = self._down.pop(name)
                    self._emit(hold if now - t0 >= self.hold_time else name, now)
                self._held.discard(name)
        return True

    def _release(self) -> None:
        if self._own_window:
            self._pg.display.quit()

    def _poll(self) -> None:
        if self._pump:
            pg = self._pg
            for event in pg.event.get((pg.KEYDOWN, pg.KEYUP)):
                self.feed(event)
        now = self._clock()
        with self._lock:
            for name, t0 in list(self._down.items()):
                if now - t0 >= self.hold_time:
                    del self._down[name]
                    self._held.add(name)
                    self._emit(HOLD_EVENTS[name], t0 + self.hold_time)

    def _wake_after(self, now: float) -> float | None:
        with self._lock:
            waits = [t0 + self.hold_time - now for t0 in self._down.values()]
        if self._pump:
            waits.append(0.02)  # nobody else puts key events on the queue: look again soon
        return max(0.0, min(waits)) if waits else None


# --- script ----------------------------------------------------------------------------------
def load_script(path: str | Path) -> list[PanelEvent]:
    """The entries of a recorded panel script (:func:`read_script`)."""
    return read_script(path)[1]


def read_script(path: str | Path) -> tuple[str, list[PanelEvent]]:
    """Read a recorded panel script: a JSON list of ``{"t": seconds, "event": name}``, or of
    ``{"frame": index, "event": name}`` (pressed when the camera had sent that frame: a game
    recorded with its frames replays the same, however fast the frames are read).

    ``t`` is s from the panel's open, a finite number ≥ 0, never less than the entry before;
    ``frame`` a whole number ≥ 0, never less than the entry before; one script uses one of them;
    ``event`` is one of :data:`EVENTS`; no other keys.

    Returns:
        ``"t"`` or ``"frame"`` (what the script is kept by), and the entries as :class:`PanelEvent`
        (``t`` = the script's t, or its frame), in order.

    Raises:
        PanelError: the file is missing, unreadable, not a regular file (a folder, FIFO, device),
            over :data:`companion.inputs.PANEL_SCRIPT`'s cap, not UTF-8, not strict JSON (a
            duplicate key, nested too deep, a huge number: :mod:`companion.inputs`), or an entry
            breaks a rule (the file, the entry number and the rule named).
    """
    path = Path(path)
    where = f"panel script {display_path(path)}"
    try:
        data = read_json(path, PANEL_SCRIPT)
    except InputError as exc:
        if exc.rule == "json":  # the panel's words: "not valid JSON (why)", at the field if there is one
            why = exc.problem.removeprefix("invalid JSON: ")
            at = f"{exc.field}: " if exc.field else ""
            raise PanelError(f"panel script {exc.path}: {at}not valid JSON ({why})") from None
        raise PanelError(f"panel script {exc}") from None
    if not isinstance(data, list):
        raise PanelError(f'{where}: must be a JSON list of {{"t": seconds, "event": name}}, not a {type(data).__name__}')
    events: list[PanelEvent] = []
    last = 0.0
    clock = "frame" if data and isinstance(data[0], dict) and "frame" in data[0] else "t"
    for i, entry in enumerate(data):
        name = f"{where}: entry {i}"
        if not isinstance(entry, dict):
            raise PanelError(f'{name} must be an object {{"{clock}": ..., "event": name}}, not {entry!r:.60}')
        extra = sorted(set(entry) - {clock, "event"})
        if extra:
            raise PanelError(f"{name} has unknown key(s) {', '.join(map(repr, extra))}; only '{clock}' and 'event'"
                             " (one script uses 't' or 'frame', not both)")
        t, event = entry.get(clock), entry.get("event")
        if clock == "frame" and (type(t) is not int or t < 0):
            raise PanelError(f"{name}: 'frame' must be a whole number ≥ 0 (a camera frame's index), not {t!r}")
        if isinstance(t, bool) or not isinstance(t, (int, float)) or not math.isfinite(t) or t < 0:
            raise PanelError(f"{name}: 't' must be a finite number of seconds ≥ 0, not {t!r}")
        if event not in EVENTS:
            raise PanelError(f"{name}: 'event' must be one of {', '.join(EVENTS)}, not {event!r}")
        if t < last:
            raise PanelError(f"{name}: {clock} = {t} comes before the previous entry's {clock} = {last}; keep entries "
                             "in order")
        last = float(t)
        events.append(PanelEvent(event, float(t)))
    return clock, events



class ScriptPanel(_PanelBase):
    """Replays a recorded script (:func:`load_script`): each event comes out of ``get()`` once
    its ``t`` (s since open) has come. For replays and CI. Lights are logical only.

    ``clock`` is the time source (s, monotonic); tests pass a fake one to step time by hand.
    """

    backend = "script"

    def __init__(
        self, path: str | Path, seats: int = MAX_SEATS, clock: Callable[[], float] = time.monotonic
    ) -> None:
        super().__init__(seats, clock)
        self.path = Path(path)
        clock_kind, self.script = read_script(self.path)
        self.by_frame = clock_kind == "frame"
        self._next = 0
        self._start = clock()

    def at_frame(self, index: int) -> None:
        """The camera has sent frame ``index``: a script kept by frame hands out what was pressed by
        then (the play loop calls this before it polls; a script kept by time ignores it)."""
        if not self.by_frame:
            return
        while self._next < len(self.script) and self.script[self._next].t <= index:
            self._events.put(self.script[self._next])
            self._next += 1

    def skip_frames(self, index: int) -> None:
        """Drop what a script kept by frame pressed up to frame ``index`` (a resumed game: those
        presses are in the journal already)."""
        while self.by_frame and self._next < len(self.script) and self.script[self._next].t <= index:
            self._next += 1

    @property
    def exhausted(self) -> bool:
        """True once every scripted event has been handed out."""
        return self._next >= len(self.script) and self._events.empty()

    def _poll(self) -> None:
        if self.by_frame:
            return  # handed out by at_frame
        elapsed = self._clock() - self._start
        while self._next < len(self.script) and self.script[self._next].t <= elapsed:
            self._events.put(self.script[self._next])
            self._next += 1

    def _wake_after(self, now: float) -> float | None:
        if self._next >= len(self.script) or self.by_frame:
            return None
        return self.script[self._next].t - (now - self._start)


# --- opening ---------------------------------------------------------------------------------
def open_panel(
    spec: str,
    *,
    pinout: Pinout | str | Path | None = None,
    hold_time: float = HOLD_TIME_S,
    bounce_time: float | None = BOUNCE_TIME_S,
):
    """Open a panel from a spec string (for the command line).

    Specs:
        ``gpio``: the real panel on the Pi's pins (gpiozero's default pin factory).
        ``mock``: the same on a gpiozero ``MockFactory`` (``Device.pin_factory`` if a test set
        a PWM-capable one, else a private one); drive ``panel.button_pins[name]``.
        ``keys``: the keyboard, events handed in with ``panel.feed(event)``; ``keys:pump``:
        the panel reads pygame's event queue itself.
        ``script:FILE``: a recorded JSON list of ``{"t": s, "event": name}``.
        ``none``: never any event.

    Args:
        pinout: a :class:`Pinout`, or a pinout file; default :func:`load_pinout()`'s file.
            Only ``gpio`` and ``mock`` read it; the others have 6 seats unless one is given.
        hold_time: s for a long press. bounce_time: s of contact bounce ignored (gpio).

    Raises:
        PanelError: an unknown spec (the message lists the forms), a bad pinout, a bad script,
            pins unavailable, pygame missing.
    """
    kind, sep, arg = spec.strip().partition(":")
    kind = kind.lower()
    if kind in ("gpio", "mock") and not sep:
        checked = _pinout(pinout)
        factory = _mock_factory() if kind == "mock" else None
        return GPIOPanel(checked, factory, backend=kind, hold_time=hold_time, bounce_time=bounce_time)
    seats = len(_pinout(pinout).seat_leds) if pinout is not None else MAX_SEATS
    if kind == "none" and not sep:
        return NonePanel(seats)
    if kind == "keys" and (not sep or arg.lower() == "pump"):
        return KeysPanel(seats, hold_time=hold_time, pump=bool(sep))
    if kind == "script" and arg:
        return ScriptPanel(arg, seats)
    raise PanelError(f"unknown panel spec {spec!r}; use one of: {', '.join(SPEC_FORMS)}")


def _pinout(pinout: Pinout | str | Path | None) -> Pinout:
    if isinstance(pinout, Pinout):
        return pinout
    try:
        return load_pinout(pinout)
    except PinoutError as exc:
        raise PanelError(f"bad pinout: {exc}") from exc
