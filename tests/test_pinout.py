"""hardware/pinout.toml loads, and every rule of companion/devices/pinout.py refuses what it should."""

from __future__ import annotations

from pathlib import Path

import pytest

from companion.devices.pinout import HEADER_PIN, PinoutError, default_pinout_path, load_pinout

REPO = Path(__file__).resolve().parents[1]
SHIPPED = REPO / "hardware" / "pinout.toml"


def _variant(tmp_path: Path, old: str, new: str) -> Path:
    """The shipped pinout with one line changed (the test fails if ``old`` is not there)."""
    text = SHIPPED.read_text(encoding="utf-8")
    assert old in text, f"the shipped pinout no longer has {old!r}"
    out = tmp_path / "pinout.toml"
    out.write_text(text.replace(old, new, 1), encoding="utf-8")
    return out


def test_shipped_pinout_loads_with_every_role_on_a_distinct_free_pin():
    p = load_pinout(SHIPPED)
    assert set(p.buttons) == {"left", "right", "ok", "back", "undo"}
    assert len(p.seat_leds) == 6
    pins = [*p.buttons.values(), *p.seat_leds, p.status_led, p.buzzer]
    assert len(set(pins)) == len(pins) == 13
    # what the issue names as needed by others is reserved, and no role sits on it
    for must_be_reserved in (0, 1, 2, 3, 14, 15, 7, 8, 9, 10, 11):
        assert must_be_reserved in p.reserved
        assert must_be_reserved not in pins
    assert all(pin in HEADER_PIN for pin in pins)
    assert p.peripheral_vid_pid == (0x2E8A, 0x0005)
    assert p.peripheral_fallback == "/dev/ttyACM0"
    assert p.buzzer_kind in ("tonal", "plain")


def test_default_path_is_the_repository_file_and_env_overrides_it(monkeypatch, tmp_path):
    monkeypatch.delenv("COMPANION_PINOUT", raising=False)
    assert default_pinout_path() == SHIPPED
    other = _variant(tmp_path, "left = 5", "left = 4")
    monkeypatch.setenv("COMPANION_PINOUT", str(other))
    assert load_pinout().buttons["left"] == 4


def test_a_pin_named_twice_names_both_roles(tmp_path):
    path = _variant(tmp_path, "status = 16", "status = 17")  # 17 is seat 1's LED
    with pytest.raises(PinoutError) as err:
        load_pinout(path)
    msg = str(err.value)
    assert "GPIO 17" in msg and "named twice" in msg
    assert "leds.seats[0] (seat 1)" in msg and "leds.status" in msg


def test_a_reserved_pin_names_the_role_and_what_reserves_it(tmp_path):
    path = _variant(tmp_path, "back = 19", "back = 10")  # SPI0 MOSI
    with pytest.raises(PinoutError) as err:
        load_pinout(path)
    msg = str(err.value)
    assert "buttons.back" in msg and "GPIO 10" in msg and "SPI0" in msg and "reserved" in msg


def test_the_id_eeprom_pins_are_refused_as_reserved_not_just_out_of_range(tmp_path):
    with pytest.raises(PinoutError, match=r"buttons.ok = GPIO 0 is reserved for I2C0 ID EEPROM"):
        load_pinout(_variant(tmp_path, "ok = 12", "ok = 0"))


@pytest.mark.parametrize("value", ["28", "-1", "\"17\"", "17.0", "true"])
def test_a_pin_that_is_not_a_header_gpio_is_refused(tmp_path, value):
    with pytest.raises(PinoutError, match=r"buzzer.pin = .* is not a BCM GPIO number.*2\.\.27"):
        load_pinout(_variant(tmp_path, "pin = 13", f"pin = {value}"))


@pytest.mark.parametrize(
    ("old", "new", "role"),
    [
        ("undo = 26", "", "buttons.undo"),
        ("status = 16", "", "leds.status"),
        ("pin = 13", "", "buzzer.pin"),
    ],
)
def test_a_missing_role_is_named(tmp_path, old, new, role):
    with pytest.raises(PinoutError, match="missing") as err:
        load_pinout(_variant(tmp_path, old, new))
    assert role in str(err.value)


def test_a_missing_table_and_an_unknown_table_are_named(tmp_path):
    only = tmp_path / "only.toml"
    only.write_text("[leds]\nseats = [17]\nstatus = 16\n", encoding="utf-8")
    with pytest.raises(PinoutError, match=r"missing \[buttons\] table"):
        load_pinout(only)
    with pytest.raises(PinoutError, match=r"unknown table 'knobs'"):
        load_pinout(_variant(tmp_path, "[buttons]", "[knobs]"))


def test_an_unknown_role_is_refused_with_the_allowed_ones(tmp_path):
    with pytest.raises(PinoutError, match=r"unknown button 'menu'.*allowed: left, right, ok, back, undo"):
        load_pinout(_variant(tmp_path, "left = 5", "left = 5\nmenu = 4"))


def test_too_many_seat_leds_are_refused(tmp_path):
    with pytest.raises(PinoutError, match=r"leds.seats' must be a list of 1..6 pins"):
        load_pinout(_variant(tmp_path, "seats = [17, 27, 22, 23, 20, 21]", "seats = [17, 27, 22, 23, 20, 21, 4]"))


@pytest.mark.parametrize("bad", ["2E8A0005", "2E8A:5", "GGGG:0005", "2E8A:0005:1", ""])
def test_a_bad_vid_pid_is_refused(tmp_path, bad):
    with pytest.raises(PinoutError, match=r"usb_vid_pid' = .* is not a USB VID:PID"):
        load_pinout(_variant(tmp_path, '"2E8A:0005"', f'"{bad}"'))


def test_a_relative_fallback_path_is_refused(tmp_path):
    with pytest.raises(PinoutError, match=r"fallback' must be an absolute device path"):
        load_pinout(_variant(tmp_path, '"/dev/ttyACM0"', '"ttyACM0"'))


def test_a_bad_buzzer_kind_is_refused(tmp_path):
    with pytest.raises(PinoutError, match=r"buzzer.kind' must be one of tonal, plain"):
        load_pinout(_variant(tmp_path, 'kind = "tonal"', 'kind = "loud"'))


def test_missing_file_and_broken_toml_are_named_errors(tmp_path):
    with pytest.raises(PinoutError, match=r"no such pinout file"):
        load_pinout(tmp_path / "nope.toml")
    broken = tmp_path / "broken.toml"
    broken.write_text("[buttons\nleft = 5\n", encoding="utf-8")
    with pytest.raises(PinoutError, match=r"broken.toml: not valid TOML"):
        load_pinout(broken)


def test_free_pins_are_those_neither_used_nor_reserved():
    p = load_pinout(SHIPPED)
    free = set(p.free_pins())
    assert free.isdisjoint(p.roles()) and free.isdisjoint(p.reserved)
    assert free | set(p.roles()) | set(p.reserved) >= set(range(2, 28))
