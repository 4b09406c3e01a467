"""The button panel: events from pins, keys and scripts; the lights; releasing pins.

GPIO tests follow gpiozero's own testing pattern: a ``MockFactory`` with ``MockPWMPin`` as
``Device.pin_factory`` (saved and restored by a fixture), buttons driven with ``drive_low()``
(pressed: the button pulls the pulled-up pin to GND) and ``drive_high()``. Mock pins ignore
``bounce_time``. No assertion is about speed: waits are generous deadlines for a thread (the
hold thread, a blink thread) to do something at all.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from pathlib import Path

import pytest

from companion.devices.panel import (
    EVENTS,
    Lights,
    Panel,
    PanelError,
    PanelEvent,
    ScriptPanel,
    load_script,
    open_panel,
)
from companion.devices.pinout import load_pinout

PINOUT = load_pinout(Path(__file__).resolve().parents[1] / "hardware" / "pinout.toml")
DEADLINE_S = 10.0  # how long a background thread may take to act at all on a loaded machine


@pytest.fixture
def factory():
    """gpiozero's MockFactory (PWM-capable pins) as the default pin factory, reset afterwards."""
    from gpiozero import Device
    from gpiozero.pins.mock import MockFactory, MockPWMPin

    saved = Device.pin_factory
    Device.pin_factory = MockFactory(pin_class=MockPWMPin)
    try:
        yield Device.pin_factory
    finally:
        Device.pin_factory.reset()
        Device.pin_factory = saved


def press(panel, name: str) -> None:
    pin = panel.button_pins[name]
    pin.drive_low()
    pin.drive_high()


def wait_until(predicate, what: str) -> None:
    end = time.monotonic() + DEADLINE_S
    while not predicate():
        if time.monotonic() > end:
            pytest.fail(f"never happened: {what}")
        time.sleep(0.01)


def toggled_since(pin, since: int) -> bool:
    """The pin has been both on and off in the states recorded after index ``since``."""
    values = {bool(s.state) for s in pin.states[since:]}
    return values == {True, False}


# --- gpio on mock pins -----------------------------------------------------------------------
def test_mock_panel_uses_the_test_factory_and_the_pinout_pins(factory):
    with open_panel("mock", pinout=PINOUT) as panel:
        assert isinstance(panel, Panel)
        assert (panel.backend, panel.pin_factory) == ("mock", "MockFactory")
        assert panel.factory is factory
        for name, gpio in PINOUT.buttons.items():
            assert panel.button_pins[name] is factory.pin(gpio)
        assert [p for p in panel.seat_pins] == [factory.pin(g) for g in PINOUT.seat_leds]
        # pull-ups: an idle button reads high, and nothing has been pressed
        assert all(p.state for p in panel.button_pins.values())
        assert panel.get() is None


def test_each_short_press_gives_its_event_in_order(factory):
    with open_panel("mock", pinout=PINOUT, hold_time=60) as panel:
        for name in ("left", "right", "ok", "back", "undo", "left"):
            press(panel, name)
        got = []
        while (event := panel.get()) is not None:
            got.append(event)
        assert [e.name for e in got] == ["left", "right", "ok", "back", "undo", "left"]
        assert all(isinstance(e, PanelEvent) and isinstance(e.t, float) for e in got)
        assert [e.t for e in got] == sorted(e.t for e in got)
        # a press only queues an event: the lights are untouched
        assert panel.lights == Lights(("off",) * 6, "on")


def test_ok_and_undo_fire_on_release_left_fires_on_press(factory):
    with open_panel("mock", pinout=PINOUT, hold_time=60) as panel:
        panel.button_pins["ok"].drive_low()
        assert panel.get() is None  # may still become a long press
        panel.button_pins["ok"].drive_high()
        assert panel.get().name == "ok"
        panel.button_pins["left"].drive_low()
        assert panel.get().name == "left"  # no long press to wait for
        panel.button_pins["left"].drive_high()
        assert panel.get() is None


@pytest.mark.parametrize(("button", "hold_event"), [("ok", "menu"), ("undo", "undo_turn")])
def test_a_long_press_gives_the_hold_event_and_not_the_short_one(factory, button, hold_event):
    with open_panel("mock", pinout=PINOUT, hold_time=0.05) as panel:
        pin = panel.button_pins[button]
        pin.drive_low()
        event = panel.get(timeout=DEADLINE_S)  # the hold thread fires after hold_time
        assert event is not None and event.name == hold_event
        pin.drive_high()
        assert panel.get() is None  # no 'ok' / 'undo' after the long press
        press(panel, "left")
        assert panel.get().name == "left"


def test_a_button_held_for_ever_never_blocks_get(factory):
    with open_panel("mock", pinout=PINOUT, hold_time=0.05) as panel:
        panel.button_pins["ok"].drive_low()
        panel.button_pins["left"].drive_low()
        names = {panel.get(timeout=DEADLINE_S).name, panel.get(timeout=DEADLINE_S).name}
        assert names == {"left", "menu"}
        # still held: one hold event only (no repeat), and get() keeps answering
        for _ in range(5):
            assert panel.get() is None
        assert panel.get(timeout=0.2) is None
        press(panel, "right")
        assert panel.get().name == "right"


def test_a_waiting_get_wakes_for_a_press_from_another_thread(factory):
    with open_panel("mock", pinout=PINOUT, hold_time=60) as panel:
        got = []
        reader = threading.Thread(target=lambda: got.append(panel.get(timeout=None)))
        reader.start()
        press(panel, "back")
        reader.join(DEADLINE_S)
        assert not reader.is_alive() and got[0].name == "back"


def test_show_turn_lights_one_seat_steadily(factory):
    with open_panel("mock", pinout=PINOUT) as panel:
        panel.show_turn(2)
        assert [bool(p.state) for p in panel.seat_pins] == [False, False, True, False, False, False]
        assert panel.lights.seats == ("off", "off", "on", "off", "off", "off")
        panel.show_turn(5)
        assert [bool(p.state) for p in panel.seat_pins] == [False] * 5 + [True]
        panel.show_turn(None)
        assert not any(p.state for p in panel.seat_pins)
        assert panel.lights.seats == ("off",) * 6


def test_show_waiting_blinks_those_seats_and_puts_the_others_out(factory):
    with open_panel("mock", pinout=PINOUT) as panel:
        panel.show_turn(0)
        marks = [len(p.states) for p in panel.seat_pins]
        panel.show_waiting([1, 3])
        assert panel.lights.seats == ("off", "blink", "off", "blink", "off", "off")
        pins = panel.seat_pins
        wait_until(lambda: toggled_since(pins[1], marks[1]) and toggled_since(pins[3], marks[3]), "seats 1, 3 blink")
        for i in (0, 2, 4, 5):
            assert not pins[i].state
        panel.show_waiting([])
        assert not any(p.state for p in pins)


def test_show_error_blinks_the_status_led_and_ok_is_steady_on(factory):
    with open_panel("mock", pinout=PINOUT) as panel:
        status = panel.status_pin
        assert status.state and panel.lights.status == "on"  # up and well
        mark = len(status.states)
        panel.show_error(True)
        assert panel.lights.status == "blink"
        wait_until(lambda: toggled_since(status, mark), "the status LED blinks")
        panel.show_error(False)
        assert status.state and panel.lights.status == "on"


def test_beep_refused_sounds_and_stops_by_itself(factory):
    with open_panel("mock", pinout=PINOUT) as panel:
        buzzer = panel.buzzer_pin
        mark = len(buzzer.states)
        panel.beep_refused()
        assert panel.beeps == 1
        # A6: a passive piezo is loudest near its 2-4 kHz resonance, so the top of its range
        assert buzzer.frequency == pytest.approx(1760, rel=0.01)
        wait_until(lambda: any(s.state for s in buzzer.states[mark:]), "the buzzer sounds")
        wait_until(lambda: not buzzer.state, "the buzzer stops")
        assert buzzer.frequency is None or buzzer.frequency > 0


def test_a_plain_buzzer_pinout_beeps_too(factory, tmp_path):
    text = (Path(PINOUT.path).read_text(encoding="utf-8")).replace('kind = "tonal"', 'kind = "plain"')
    path = tmp_path / "pinout.toml"
    path.write_text(text, encoding="utf-8")
    with open_panel("mock", pinout=path) as panel:
        mark = len(panel.buzzer_pin.states)
        panel.beep_refused()
        wait_until(lambda: any(s.state for s in panel.buzzer_pin.states[mark:]), "the buzzer sounds")


def test_bad_seat_numbers_are_named(factory):
    with open_panel("mock", pinout=PINOUT) as panel:
        with pytest.raises(PanelError, match=r"seat 6: the panel has seat LEDs 0..5"):
            panel.show_turn(6)
        with pytest.raises(PanelError, match=r"seat '1'"):
            panel.show_waiting(["1"])
        with pytest.raises(PanelError, match=r"seat True"):
            panel.show_turn(True)


def test_close_releases_every_pin(factory):
    from gpiozero import LED, Button
    from gpiozero.exc import GPIOPinInUse

    panel = open_panel("mock", pinout=PINOUT)
    with pytest.raises(GPIOPinInUse):
        Button(PINOUT.buttons["ok"])
    panel.close()
    panel.close()  # twice is fine
    made = [Button(g) for g in PINOUT.buttons.values()]
    made += [LED(g) for g in (*PINOUT.seat_leds, PINOUT.status_led, PINOUT.buzzer)]
    for device in made:
        device.close()
    with pytest.raises(PanelError, match="closed"):
        panel.get()
    with pytest.raises(PanelError, match="closed"):
        panel.show_turn(0)


def test_a_pin_in_use_is_named_and_nothing_stays_claimed(factory):
    from gpiozero import LED, Button

    squatter = LED(PINOUT.status_led)
    try:
        with pytest.raises(PanelError, match=rf"status LED on GPIO {PINOUT.status_led} is already in use"):
            open_panel("mock", pinout=PINOUT)
    finally:
        squatter.close()
    Button(PINOUT.buttons["left"]).close()  # the buttons opened before the failure were released


def test_gpio_without_a_pin_factory_says_what_to_do(monkeypatch):
    from gpiozero import Device

    saved = Device.pin_factory
    Device.pin_factory = None
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "no-such-factory")
    try:
        with pytest.raises(PanelError, match=r"no GPIO pin factory could be loaded.*python3-lgpio.*'keys'"):
            open_panel("gpio", pinout=PINOUT)
    finally:
        Device.pin_factory = saved


def test_a_bad_pinout_is_a_panel_error_naming_both_roles(tmp_path):
    text = Path(PINOUT.path).read_text(encoding="utf-8").replace("status = 16", "status = 5")
    path = tmp_path / "pinout.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(PanelError, match=r"bad pinout: .*GPIO 5 is named twice: by buttons.left and by leds.status"):
        open_panel("mock", pinout=path)


@pytest.mark.parametrize("spec", ["", "gpi0", "keys:foo", "script:", "none:1", "mock:x"])
def test_an_unknown_spec_lists_the_forms(spec):
    with pytest.raises(PanelError, match=r"unknown panel spec .*gpio, mock, keys, keys:pump, script:FILE, none"):
        open_panel(spec)


# --- none ----------------------------------------------------------------------------------
def test_none_panel_never_gives_an_event_and_keeps_logical_lights():
    with open_panel("none") as panel:
        assert isinstance(panel, Panel) and (panel.backend, panel.pin_factory) == ("none", None)
        assert panel.get() is None and panel.get(timeout=0.05) is None
        panel.show_waiting([0, 4])
        panel.show_error(True)
        panel.beep_refused()
        assert panel.lights == Lights(("blink", "off", "off", "off", "blink", "off"), "blink")
        assert panel.beeps == 1


def test_close_wakes_a_get_that_waits_for_ever():
    panel = open_panel("none")
    got = []
    reader = threading.Thread(target=lambda: got.append(panel.get(timeout=None)))
    reader.start()
    time.sleep(0.05)
    panel.close()
    reader.join(DEADLINE_S)
    assert not reader.is_alive() and got == [None]


# --- script --------------------------------------------------------------------------------
class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def write_script(tmp_path: Path, entries, name: str = "panel.json") -> Path:
    path = tmp_path / name
    path.write_text(entries if isinstance(entries, str) else json.dumps(entries), encoding="utf-8")
    return path


def test_script_events_come_out_when_their_time_has_come(tmp_path):
    path = write_script(tmp_path, [{"t": 0, "event": "ok"}, {"t": 1.5, "event": "menu"}, {"t": 1.5, "event": "left"}])
    clock = FakeClock()
    panel = ScriptPanel(path, clock=clock)
    assert panel.get() == PanelEvent("ok", 0.0)
    assert panel.get() is None
    clock.now += 1.49
    assert panel.get() is None and not panel.exhausted
    clock.now += 0.01
    assert panel.get() == PanelEvent("menu", 1.5)
    assert panel.get() == PanelEvent("left", 1.5)
    assert panel.get() is None and panel.exhausted
    panel.close()


def test_script_spec_opens_and_a_due_event_comes_within_a_wait(tmp_path):
    path = write_script(tmp_path, [{"t": 0.01, "event": "undo_turn"}])
    with open_panel(f"script:{path}") as panel:
        assert (panel.backend, panel.pin_factory) == ("script", None)
        event = panel.get(timeout=DEADLINE_S)
        assert event == PanelEvent("undo_turn", 0.01)


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("[{\"t\": 0, \"event\": \"ok\"", r"not valid JSON"),
        ("{\"t\": 0, \"event\": \"ok\"}", r"must be a JSON list .* not a dict"),
        ([["ok", 0]], r"entry 0 must be an object"),
        ([{"t": 0, "event": "ok", "seat": 1}], r"entry 0 has unknown key\(s\) 'seat'"),
        ([{"t": 0, "event": "ok"}, {"t": -1, "event": "ok"}], r"entry 1: 't' must be a finite number of seconds ≥ 0"),
        ("[{\"t\": NaN, \"event\": \"ok\"}]", r"NaN is not a JSON number"),  # strict JSON (RFC 8259 §6)
        ([{"t": True, "event": "ok"}], r"entry 0: 't' must be a finite number"),
        ([{"t": "1", "event": "ok"}], r"entry 0: 't' must be a finite number"),
        ([{"event": "ok"}], r"entry 0: 't' must be a finite number"),
        ([{"t": 0, "event": "jump"}], r"entry 0: 'event' must be one of left, right, ok, back, undo, menu, undo_turn"),
        ([{"t": 2, "event": "ok"}, {"t": 1, "event": "ok"}], r"entry 1: t = 1 comes before the previous entry's t = 2"),
        ("[" * 100_000, r"not valid JSON|nested too deeply"),
    ],
)
def test_a_bad_script_names_the_file_the_entry_and_the_rule(tmp_path, content, expected):
    path = write_script(tmp_path, content, "bad.json")
    with pytest.raises(PanelError, match=rf"panel script .*bad.json: .*{expected}"):
        load_script(path)
    with pytest.raises(PanelError, match=expected):
        open_panel(f"script:{path}")


def test_a_missing_folder_or_binary_script_is_named(tmp_path):
    with pytest.raises(PanelError, match=r"nope.json: no such file"):
        open_panel(f"script:{tmp_path / 'nope.json'}")
    with pytest.raises(PanelError, match=r"is a folder"):
        load_script(tmp_path)
    binary = tmp_path / "b.json"
    binary.write_bytes(b"\xff\xfe[")
    with pytest.raises(PanelError, match=r"b.json: not UTF-8"):
        load_script(binary)


def test_an_empty_script_is_a_panel_with_no_events(tmp_path):
    with open_panel(f"script:{write_script(tmp_path, [])}") as panel:
        assert panel.get() is None and panel.exhausted


# --- keys ----------------------------------------------------------------------------------
@pytest.fixture
def pygame(monkeypatch):
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    import pygame

    return pygame


def key(pygame, down: bool, k: int):
    return pygame.event.Event(pygame.KEYDOWN if down else pygame.KEYUP, key=k)


def test_keys_map_to_the_panel_events(pygame):
    from companion.devices.panel import KeysPanel

    with open_panel("keys") as opened:
        assert isinstance(opened, KeysPanel) and opened.hold_time == 1.0
    clock = FakeClock()
    panel = KeysPanel(clock=clock)
    assert isinstance(panel, Panel) and (panel.backend, panel.pin_factory) == ("keys", None)
    taps = [
        (pygame.K_LEFT, "left"),
        (pygame.K_RIGHT, "right"),
        (pygame.K_RETURN, "ok"),
        (pygame.K_KP_ENTER, "ok"),
        (pygame.K_BACKSPACE, "back"),
        (pygame.K_u, "undo"),
    ]
    for k, _ in taps:
        assert panel.feed(key(pygame, True, k)) is True
        clock.now += 0.1
        assert panel.feed(key(pygame, False, k)) is True
    got = []
    while (event := panel.get()) is not None:
        got.append(event.name)
    assert got == [name for _, name in taps]
    # other keys and other events are not the panel's
    assert panel.feed(key(pygame, True, pygame.K_a)) is False
    assert panel.feed(pygame.event.Event(pygame.MOUSEMOTION, pos=(1, 2))) is False
    assert panel.get() is None
    panel.close()


@pytest.mark.parametrize(("k", "hold_event"), [("K_RETURN", "menu"), ("K_u", "undo_turn")])
def test_a_key_held_gives_the_hold_event_once_and_not_the_short_one(pygame, k, hold_event):
    from companion.devices.panel import KeysPanel

    clock = FakeClock()
    panel = KeysPanel(hold_time=1.0, clock=clock)
    code = getattr(pygame, k)
    panel.feed(key(pygame, True, code))
    clock.now += 0.99
    assert panel.get() is None
    clock.now += 0.01
    event = panel.get()
    assert event.name == hold_event and event.t == pytest.approx(101.0)  # pressed at 100.0, held 1 s
    clock.now += 5  # held for ever: nothing more
    assert panel.get() is None
    panel.feed(key(pygame, False, code))
    assert panel.get() is None
    panel.close()


def test_a_key_released_after_the_hold_time_before_get_ran_is_still_a_hold(pygame):
    from companion.devices.panel import KeysPanel

    panel = KeysPanel(hold_time=1.0)
    panel.feed(key(pygame, True, pygame.K_RETURN), t=10.0)
    panel.feed(key(pygame, False, pygame.K_RETURN), t=11.5)
    assert panel.get().name == "menu"
    assert panel.get() is None


def test_keys_pump_reads_pygames_queue_itself(pygame):
    with open_panel("keys:pump") as panel:
        pygame.event.post(key(pygame, True, pygame.K_RIGHT))
        pygame.event.post(key(pygame, False, pygame.K_RIGHT))
        event = panel.get(timeout=DEADLINE_S)
        assert event is not None and event.name == "right"


def test_importing_the_panel_module_loads_neither_gpiozero_nor_pygame():
    import subprocess

    code = (
        "import sys, companion.devices.panel; "
        "print(sorted(m for m in ('gpiozero', 'pygame', 'serial', 'cv2') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_events_list_is_the_contract():
    assert EVENTS == ("left", "right", "ok", "back", "undo", "menu", "undo_turn")
