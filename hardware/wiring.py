"""Write the wiring table of hardware/README.md from hardware/pinout.toml.

    python hardware/wiring.py            # rewrite the table between the README's markers
    python hardware/wiring.py --check    # exit 1 if the README's table is not what pinout.toml gives

The table lists every GPIO the pinout uses or reserves, with its physical header pin and what
to wire to it, so a builder never copies a pin number by hand. ``replace_block`` is the
marker machinery shared with hardware/mount.py.

Sources: Raspberry Pi documentation, "GPIO and the 40-pin header" (pin map, 3.3 V logic, about
16 mA per pin); gpiozero documentation, "Basic Recipes" (button to GND with the internal
pull-up; LED through a resistor to GND).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
README = HERE / "README.md"

try:  # run as a script from a checkout: the package is the folder above
    from companion.devices.pinout import GROUND_PINS, HEADER_PIN, Pinout, PinoutError, load_pinout
except ImportError:  # pragma: no cover - only without an installed package
    sys.path.insert(0, str(HERE.parent))
    from companion.devices.pinout import GROUND_PINS, HEADER_PIN, Pinout, PinoutError, load_pinout

#: GPIO → resistor → LED: 330 Ω gives about 4 mA from 3.3 V through a red/green LED (Vf ≈ 2 V),
#: well under the GPIO's 16 mA.
LED_RESISTOR = "330 Ω"


class ReadmeError(RuntimeError):
    """The README lacks a block's markers (or has them twice)."""


def markers(name: str) -> tuple[str, str]:
    """The begin/end comment lines of a generated block."""
    return (
        f"<!-- BEGIN {name} (generated: python hardware/{name}.py; do not edit by hand) -->",
        f"<!-- END {name} -->",
    )


def replace_block(text: str, name: str, body: str) -> str:
    """``text`` with the lines between ``name``'s markers replaced by ``body``.

    Raises:
        ReadmeError: the markers are missing, doubled or out of order.
    """
    begin, end = markers(name)
    if text.count(begin) != 1 or text.count(end) != 1 or text.index(begin) > text.index(end):
        raise ReadmeError(f"the README must hold exactly one pair of markers:\n{begin}\n{end}")
    head, rest = text.split(begin, 1)
    _, tail = rest.split(end, 1)
    return f"{head}{begin}\n{body.rstrip()}\n{end}{tail}"


def run(name: str, body: str, readme: Path, check: bool) -> int:
    """Write ``body`` into ``readme``'s block ``name``, or with ``check`` say if it is stale.

    Returns the exit status: 0 written or current, 1 stale (``check``), 2 markers missing.
    """
    try:
        text = readme.read_text(encoding="utf-8")
        new = replace_block(text, name, body)
    except (OSError, ReadmeError) as exc:
        print(f"{readme}: {exc}", file=sys.stderr)
        return 2
    if check:
        if new != text:
            print(f"{readme}: the {name} block is stale; run python hardware/{name}.py", file=sys.stderr)
            return 1
        return 0
    if new != text:
        readme.write_text(new, encoding="utf-8")
        print(f"{readme}: {name} block written")
    return 0


def _wire(role: str, pinout: Pinout) -> str:
    if role.startswith("button"):
        return "push button to GND; internal pull-up, no resistor"
    if role.endswith("LED"):
        return f"{LED_RESISTOR} resistor to the LED's anode (long leg), cathode to GND"
    if pinout.buzzer_kind == "tonal":
        return "passive piezo buzzer (+) through 100 Ω, (−) to GND"
    return "signal pin of an active buzzer module (module VCC to 3V3, GND to GND)"


def wiring_table(pinout: Pinout) -> str:
    """The wiring section as Markdown: used pins by header position, then reserved and free ones."""
    lines = [
        "| BCM GPIO | header pin | role | wire it |",
        "| ---: | ---: | --- | --- |",
    ]
    roles = pinout.roles()
    for gpio in sorted(roles, key=HEADER_PIN.__getitem__):
        role = roles[gpio]
        lines.append(f"| {gpio} | {HEADER_PIN[gpio]} | {role} | {_wire(role, pinout)} |")
    for gpio in sorted(pinout.reserved, key=HEADER_PIN.__getitem__):
        lines.append(f"| {gpio} | {HEADER_PIN[gpio]} | reserved | leave free: {pinout.reserved[gpio]} |")
    for gpio in pinout.free_pins():
        lines.append(f"| {gpio} | {HEADER_PIN[gpio]} | free | spare |")
    vid, pid = pinout.peripheral_vid_pid
    lines += [
        "",
        f"Ground: header pins {', '.join(map(str, GROUND_PINS))}. Every button and LED returns to one of them.",
        f"The peripheral (Pico) is not on the header: USB cable, found by VID:PID {vid:04X}:{pid:04X}, "
        f"else `{pinout.peripheral_fallback}`.",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Command line: see the module docstring. Returns the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the README's table is stale")
    parser.add_argument("--pinout", type=Path, default=HERE / "pinout.toml", help="pinout file")
    parser.add_argument("--readme", type=Path, default=README, help="README to update")
    args = parser.parse_args(argv)
    try:
        pinout = load_pinout(args.pinout)
    except PinoutError as exc:
        print(exc, file=sys.stderr)
        return 2
    return run("wiring", wiring_table(pinout), args.readme, args.check)


if __name__ == "__main__":
    sys.exit(main())
