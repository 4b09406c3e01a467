"""The companion's pinout: ``hardware/pinout.toml`` loaded and checked (stdlib ``tomllib`` only).

That file is the single source of truth for every GPIO the table uses; no other code writes a
pin number. :func:`load_pinout` reads it (default: the repository's ``hardware/pinout.toml``,
or ``$COMPANION_PINOUT``) and refuses, with a :class:`PinoutError` naming the thing and the
rule: a pin given two roles (both named), a pin another function reserves (the role and what
reserves it named), a number that is not a header GPIO 2..27, a missing or unknown role, and a
malformed USB VID:PID.

Pin numbers are BCM (Broadcom SoC GPIO) numbers, as gpiozero takes them. :data:`HEADER_PIN`
maps them to physical pins of the 40-pin header, the same on a Raspberry Pi 4 and 5.

Sources: Raspberry Pi documentation, "Raspberry Pi hardware: GPIO and the 40-pin header"
(pin numbering, ID EEPROM on GPIO 0/1); gpiozero documentation, "Pin Numbering".
"""

from __future__ import annotations

import os
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from companion.inputs import PINOUT, InputError, read_text

#: The panel's buttons, in the order they sit on the panel.
BUTTON_ROLES = ("left", "right", "ok", "back", "undo")
#: Most seats a game on the table has (Sushi Go! party size), so most seat LEDs.
MAX_SEATS = 6
#: The user GPIOs of the 40-pin header that a role may take (0 and 1 carry the ID EEPROM).
GPIO_RANGE = range(2, 28)
BUZZER_KINDS = ("tonal", "plain")

#: BCM GPIO number -> physical pin of the 40-pin header (Pi 1 B+ onwards, Pi 4 and Pi 5 alike).
HEADER_PIN: dict[int, int] = {
    2: 3, 3: 5, 4: 7, 14: 8, 15: 10, 17: 11, 18: 12, 27: 13, 22: 15, 23: 16, 24: 18, 10: 19,
    9: 21, 25: 22, 11: 23, 8: 24, 7: 26, 0: 27, 1: 28, 5: 29, 6: 31, 12: 32, 13: 33, 19: 35,
    16: 36, 26: 37, 20: 38, 21: 40,
}
#: Physical header pins wired to ground.
GROUND_PINS = (6, 9, 14, 20, 25, 30, 34, 39)

_VID_PID = re.compile(r"([0-9A-Fa-f]{4}):([0-9A-Fa-f]{4})")
_TOP_KEYS = {"reserved", "buttons", "leds", "buzzer", "peripheral"}


class PinoutError(ValueError):
    """``pinout.toml`` is missing, unreadable or breaks a rule; the message names the file, the
    role(s) or pin, and the rule broken."""


@dataclass(frozen=True)
class Pinout:
    """Every GPIO of the table, by role (BCM numbers).

    Attributes:
        buttons: role -> GPIO for ``left``, ``right``, ``ok``, ``back``, ``undo``.
        seat_leds: the seat LEDs' GPIOs in seat order (index 0 = seat 1), 1..6 of them.
        status_led: GPIO of the status LED.
        buzzer: GPIO of the buzzer; ``buzzer_kind`` is ``"tonal"`` (passive piezo,
            gpiozero ``TonalBuzzer``) or ``"plain"`` (active buzzer, gpiozero ``Buzzer``).
        peripheral_vid_pid: the peripheral's USB (vendor id, product id), e.g. (0x2E8A, 0x0005).
        peripheral_fallback: the serial device tried when no port has that VID:PID.
        reserved: GPIO -> what reserves it (I2C, UART, SPI display...).
        path: the file it was loaded from.
    """

    buttons: dict[str, int]
    seat_leds: tuple[int, ...]
    status_led: int
    buzzer: int
    buzzer_kind: str
    peripheral_vid_pid: tuple[int, int]
    peripheral_fallback: str
    reserved: dict[int, str] = field(default_factory=dict)
    path: Path | None = None

    def roles(self) -> dict[int, str]:
        """GPIO -> role name (``"button ok"``, ``"seat 1 LED"``, ``"status LED"``, ``"buzzer"``)."""
        out = {pin: f"button {name}" for name, pin in self.buttons.items()}
        out.update({pin: f"seat {i + 1} LED" for i, pin in enumerate(self.seat_leds)})
        out[self.status_led] = "status LED"
        out[self.buzzer] = "buzzer"
        return out

    def free_pins(self) -> tuple[int, ...]:
        """User GPIOs (2..27) that neither a role nor a reservation takes, ascending."""
        taken = set(self.roles()) | set(self.reserved)
        return tuple(p for p in GPIO_RANGE if p not in taken)


def default_pinout_path() -> Path:
    """``$COMPANION_PINOUT`` if set, else the repository's ``hardware/pinout.toml``."""
    env = os.environ.get("COMPANION_PINOUT")
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[2] / "hardware" / "pinout.toml"


def _table(data: dict, key: str, where: str) -> dict:
    value = data.get(key)
    if value is None:
        raise PinoutError(f"{where}: missing [{key}] table (every role must be given a pin)")
    if not isinstance(value, dict):
        raise PinoutError(f"{where}: [{key}] must be a table, not {type(value).__name__}")
    return value


def _unknown(table: dict, allowed, what: str, where: str) -> None:
    extra = sorted(set(table) - set(allowed))
    if extra:
        raise PinoutError(
            f"{where}: unknown {what} {', '.join(map(repr, extra))}; allowed: {', '.join(allowed)}"
        )


def load_pinout(path: str | Path | None = None) -> Pinout:
    """Load and check a pinout file.

    Args:
        path: the TOML file; default :func:`default_pinout_path` (``$COMPANION_PINOUT`` or the
            repository's ``hardware/pinout.toml``).

    Returns:
        The checked :class:`Pinout` (BCM numbers).

    Raises:
        PinoutError: the file is missing, not a regular file (a folder, FIFO, device: read
            through :mod:`companion.inputs`), over 100 000 characters, not UTF-8 or not TOML; a
            role is missing or unknown; a pin is not an integer GPIO 2..27; a pin has two roles
            (both named); a role takes a reserved pin (the role and the reservation named); the
            buzzer kind is not ``tonal``/``plain``; ``usb_vid_pid`` is not ``VVVV:PPPP`` hex;
            the fallback is not an absolute path.
    """
    path = Path(path) if path is not None else default_pinout_path()
    where = str(path)
    try:
        data = tomllib.loads(read_text(path, PINOUT))  # a regular file, capped, strict UTF-8
    except InputError as exc:
        if exc.rule == "missing":
            raise PinoutError(f"{where}: no such pinout file (set COMPANION_PINOUT or pass a path)") from None
        raise PinoutError(f"pinout file {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise PinoutError(f"{where}: not valid TOML ({exc})") from None
    except RecursionError:  # tomllib parses nested arrays and inline tables recursively
        raise PinoutError(f"{where}: not valid TOML (arrays or tables nested too deeply)") from None
    except ValueError as exc:  # e.g. int() refusing a number of more than 4 300 digits
        raise PinoutError(f"{where}: not valid TOML ({exc})") from None
    _unknown(data, sorted(_TOP_KEYS), "table", where)

    reserved = _load_reserved(data.get("reserved", []), where)

    # every role with its pin, in file order, checked one by one
    claims: list[tuple[str, object]] = []
    buttons_t = _table(data, "buttons", where)
    _unknown(buttons_t, BUTTON_ROLES, "button", where)
    for name in BUTTON_ROLES:
        if name not in buttons_t:
            raise PinoutError(f"{where}: missing role 'buttons.{name}' (the panel needs all of {', '.join(BUTTON_ROLES)})")
        claims.append((f"buttons.{name}", buttons_t[name]))

    leds_t = _table(data, "leds", where)
    _unknown(leds_t, ("seats", "status"), "LED role", where)
    seats = leds_t.get("seats")
    if seats is None:
        raise PinoutError(f"{where}: missing role 'leds.seats' (a list of 1..{MAX_SEATS} pins, seat 1 first)")
    if not isinstance(seats, list) or not 1 <= len(seats) <= MAX_SEATS:
        raise PinoutError(f"{where}: 'leds.seats' must be a list of 1..{MAX_SEATS} pins, not {seats!r}")
    claims += [(f"leds.seats[{i}] (seat {i + 1})", p) for i, p in enumerate(seats)]
    if "status" not in leds_t:
        raise PinoutError(f"{where}: missing role 'leds.status'")
    claims.append(("leds.status", leds_t["status"]))

    buzzer_t = _table(data, "buzzer", where)
    _unknown(buzzer_t, ("kind", "pin"), "buzzer key", where)
    if "pin" not in buzzer_t:
        raise PinoutError(f"{where}: missing role 'buzzer.pin'")
    claims.append(("buzzer.pin", buzzer_t["pin"]))
    kind = buzzer_t.get("kind", "tonal")
    if kind not in BUZZER_KINDS:
        raise PinoutError(f"{where}: 'buzzer.kind' must be one of {', '.join(BUZZER_KINDS)}, not {kind!r}")

    owner: dict[int, str] = {}
    for role, pin in claims:
        if isinstance(pin, bool) or not isinstance(pin, int):
            raise PinoutError(f"{where}: {role} = {pin!r} is not a BCM GPIO number (an integer 2..27)")
        if pin in reserved:
            raise PinoutError(f"{where}: {role} = GPIO {pin} is reserved for {reserved[pin]}; pick a free pin")
        if pin not in GPIO_RANGE:
            raise PinoutError(f"{where}: {role} = {pin} is not a BCM GPIO number of the 40-pin header (2..27)")
        if pin in owner:
            raise PinoutError(f"{where}: GPIO {pin} is named twice: by {owner[pin]} and by {role}; each pin has one role")
        owner[pin] = role

    vid_pid, fallback = _load_peripheral(_table(data, "peripheral", where), where)
    return Pinout(
        buttons={name: buttons_t[name] for name in BUTTON_ROLES},
        seat_leds=tuple(seats),
        status_led=leds_t["status"],
        buzzer=buzzer_t["pin"],
        buzzer_kind=kind,
        peripheral_vid_pid=vid_pid,
        peripheral_fallback=fallback,
        reserved=reserved,
        path=path,
    )


def _load_reserved(entries, where: str) -> dict[int, str]:
    """The ``[[reserved]]`` tables as GPIO -> reason."""
    if not isinstance(entries, list):
        raise PinoutError(f"{where}: 'reserved' must be an array of tables ([[reserved]]), not {type(entries).__name__}")
    reserved: dict[int, str] = {}
    for i, entry in enumerate(entries):
        name = f"[[reserved]] #{i + 1}"
        if not isinstance(entry, dict):
            raise PinoutError(f"{where}: {name} must be a table with 'pins' and 'by'")
        _unknown(entry, ("by", "pins"), f"key in {name}", where)
        pins, by = entry.get("pins"), entry.get("by")
        if not isinstance(by, str) or not by.strip():
            raise PinoutError(f"{where}: {name} needs 'by', a text saying what reserves the pins")
        if not isinstance(pins, list) or not pins:
            raise PinoutError(f"{where}: {name} needs 'pins', a non-empty list of GPIO numbers")
        for p in pins:
            if isinstance(p, bool) or not isinstance(p, int) or not 0 <= p <= 27:
                raise PinoutError(f"{where}: {name}: {p!r} is not a BCM GPIO number of the header (0..27)")
            reserved[p] = by.strip()
    return reserved


def _load_peripheral(table: dict, where: str) -> tuple[tuple[int, int], str]:
    _unknown(table, ("fallback", "usb_vid_pid"), "peripheral key", where)
    text = table.get("usb_vid_pid")
    if text is None:
        raise PinoutError(f"{where}: missing 'peripheral.usb_vid_pid' (e.g. \"2E8A:0005\", the Pico's MicroPython IDs)")
    m = _VID_PID.fullmatch(text) if isinstance(text, str) else None
    if not m:
        raise PinoutError(
            f"{where}: 'peripheral.usb_vid_pid' = {text!r} is not a USB VID:PID "
            "(two 4-digit hex numbers, e.g. \"2E8A:0005\")"
        )
    fallback = table.get("fallback")
    if not isinstance(fallback, str) or not fallback.startswith("/"):
        raise PinoutError(
            f"{where}: 'peripheral.fallback' must be an absolute device path such as "
            f"\"/dev/ttyACM0\", not {fallback!r}"
        )
    return (int(m.group(1), 16), int(m.group(2), 16)), fallback
