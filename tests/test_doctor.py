"""``companion doctor`` (issue #8 §5): one line per check, required checks decide the exit status,
and off a Pi it runs on the fakes and says so."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from companion.app import cmd_doctor
from companion.devices import board
from companion.cli import main

FIXTURES = Path(__file__).parent / "fixtures"


def _doctor(capsys, *argv: str) -> tuple[int, dict]:
    code = main(["doctor", "--json", *argv])
    return code, json.loads(capsys.readouterr().out)


def _by_name(report: dict) -> dict:
    return {c["name"]: c for c in report["checks"]}


@pytest.fixture(autouse=True)
def off_the_pi(monkeypatch, tmp_path):
    """Every test here runs as on a desktop, whatever machine runs the suite."""
    monkeypatch.setattr(board, "MODEL_FILE", tmp_path / "no-model")
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    monkeypatch.delenv("NOTIFY_SOCKET", raising=False)


def test_pi_model_reads_the_device_tree(tmp_path, monkeypatch):
    model = tmp_path / "model"
    model.write_bytes(b"Raspberry Pi 5 Model B Rev 1.0\0")
    assert board.pi_model(model) == "Raspberry Pi 5 Model B Rev 1.0"
    model.write_bytes(b"Some Other Board\0")
    assert board.pi_model(model) is None
    assert board.pi_model(tmp_path / "missing") is None
    monkeypatch.setattr(board, "MODEL_FILE", model)  # the default is read at call time
    model.write_bytes(b"Raspberry Pi 4 Model B Rev 1.5\0")
    assert board.pi_model() == "Raspberry Pi 4 Model B Rev 1.5"


def test_specs_are_the_real_devices_on_a_pi_and_the_fakes_elsewhere():
    assert cmd_doctor.default_specs(True) == cmd_doctor.Specs("pi", "kmsdrm", "gpio", "auto")
    assert cmd_doctor.default_specs(False) == cmd_doctor.Specs("sim", "dummy", "mock", "loop")


def test_off_the_pi_every_required_check_passes_on_the_fakes(capsys):
    code, report = _doctor(capsys)
    checks = _by_name(report)
    assert report["fakes"] is True and report["platform"] is None
    assert set(checks) == {"pinout", "camera", "display", "panel", "peripheral", "mat", "deck", "dice", "service"}
    for name in ("pinout", "camera", "display", "panel", "mat"):
        assert checks[name]["required"] and checks[name]["status"] == "ok", checks[name]
    assert "markers [0, 1, 2, 3]" in checks["mat"]["detail"]
    assert checks["peripheral"]["status"] == "ok" and "firmware" in checks["peripheral"]["detail"]
    assert report["ok"] is True and code == 0


def test_plain_output_says_it_uses_the_fakes_and_one_line_per_check(capsys):
    assert main(["doctor"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("info") and "checking with the fakes" in out[0]
    for name in ("pinout", "camera", "display", "panel", "peripheral", "mat", "service"):
        assert sum(line.split()[1:2] == [name] for line in out) == 1, name
    assert out[-1] == "all required checks passed"


def test_a_broken_pinout_fails_and_names_the_problem(capsys, tmp_path):
    bad = tmp_path / "pinout.toml"
    bad.write_text("this is [not toml")
    code, report = _doctor(capsys, "--pinout", str(bad))
    pin = _by_name(report)["pinout"]
    assert code == 1 and report["ok"] is False
    assert pin["status"] == "failed" and str(bad) in pin["detail"] and str(bad) in pin["fix"]


def test_a_pin_named_twice_fails_the_pinout_and_the_panel_is_not_opened_from_another_file(capsys, tmp_path):
    good = (Path(cmd_doctor.__file__).parents[2] / "hardware" / "pinout.toml").read_text()
    dup = tmp_path / "dup.toml"
    dup.write_text(good.replace("right = 6 ", "right = 5 ", 1))
    code, report = _doctor(capsys, "--pinout", str(dup))
    checks = _by_name(report)
    assert code == 1
    assert checks["pinout"]["status"] == "failed" and "GPIO 5" in checks["pinout"]["detail"]
    # the panel must not quietly load the repository's pinout instead and call itself ok
    assert checks["panel"]["status"] == "failed" and "pinout" in checks["panel"]["detail"]


@pytest.mark.parametrize("argv", [["--link", "bogus"], ["--panel", "gpioo"], ["--camera", "usb:x"],
                                  ["--display", "x11"], ["--panel", "script:"]])
def test_a_device_option_that_names_no_device_is_bad_input(capsys, argv):
    assert main(["doctor", *argv]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""  # nothing was checked
    assert f"--{argv[0][2:]} {argv[1]!r}" in captured.err and "use " in captured.err


def test_no_frame_fails_the_camera_and_the_mat_but_the_rest_is_still_checked(capsys, tmp_path):
    (tmp_path / "frames").mkdir()
    (tmp_path / "frames" / "broken.png").write_bytes(b"not a png")
    code, report = _doctor(capsys, "--camera", f"replay:{tmp_path / 'frames'}")
    checks = _by_name(report)
    assert code == 1
    assert checks["camera"]["status"] == "failed"
    assert checks["mat"]["status"] == "failed" and "no camera frame" in checks["mat"]["detail"]
    assert checks["panel"]["status"] == "ok" and checks["display"]["status"] == "ok"


def test_an_invisible_display_driver_is_refused_when_a_screen_is_wanted(capsys, monkeypatch):
    class FakePygameDisplay:
        def init(self): pass
        def quit(self): pass
        def get_driver(self): return "offscreen"
        def get_desktop_sizes(self): return [(480, 320)]

    class FakePygame:
        display = FakePygameDisplay()
        error = RuntimeError

    monkeypatch.setattr("companion.devices.display._pygame", lambda: FakePygame)
    code, report = _doctor(capsys, "--display", "kmsdrm")
    display = _by_name(report)["display"]
    assert code == 1 and display["status"] == "failed"
    assert "offscreen" in display["detail"] and "SDL_VIDEODRIVER=kmsdrm" in display["fix"]


def test_no_peripheral_is_only_advice(capsys):
    code, report = _doctor(capsys, "--link", "none")
    link = _by_name(report)["peripheral"]
    assert link["status"] == "missing" and link["required"] is False
    assert "camera alone" in link["fix"]
    assert code == 0


def test_the_deck_and_dice_are_loaded_and_a_bad_file_is_named(capsys, tmp_path):
    code, report = _doctor(capsys, "--deck", str(FIXTURES / "sim-deck.npz"))
    deck = _by_name(report)["deck"]
    assert deck["status"] == "ok" and "13 labels" in deck["detail"]
    junk = tmp_path / "junk.npz"
    junk.write_bytes(b"PK not really")
    code, report = _doctor(capsys, "--deck", str(junk), "--dice", str(junk))
    checks = _by_name(report)
    assert checks["deck"]["status"] == "failed" and str(junk) in checks["deck"]["detail"]
    assert checks["dice"]["status"] == "failed" and str(junk) in checks["dice"]["detail"]
    assert code == 0  # advice only: the deck is given to `companion play` when it is needed


def test_a_check_that_crashes_is_reported_and_the_others_still_run(capsys, monkeypatch):
    def check_camera(ctx):  # the doctor names a check after its function
        raise RuntimeError("the camera driver exploded")

    monkeypatch.setattr(cmd_doctor, "CHECKS", tuple(check_camera if c is cmd_doctor.check_camera else c for c in cmd_doctor.CHECKS))
    code, report = _doctor(capsys)
    checks = _by_name(report)
    assert checks["camera"]["status"] == "failed" and "exploded" in checks["camera"]["detail"]
    assert checks["camera"]["required"] is True
    assert checks["display"]["status"] == "ok" and checks["panel"]["status"] == "ok"
    assert code == 1


def _press_script(tmp_path, names) -> str:
    script = tmp_path / "presses.json"
    script.write_text(json.dumps([{"t": 0.05 * i, "event": n} for i, n in enumerate(names)]))
    return f"script:{script}"


def test_interactive_keys_pump_their_own_events(capsys, monkeypatch):
    """Nobody else pumps pygame's events in the doctor: 'keys' must open as 'keys:pump'."""
    import companion.devices.panel as panel_module

    opened = []

    def fake_open(spec, **kwargs):
        opened.append(spec)
        raise panel_module.PanelError("no window here")

    monkeypatch.setattr(panel_module, "open_panel", fake_open)
    _doctor(capsys, "--panel", "keys", "--interactive")
    _doctor(capsys, "--panel", "keys")
    assert opened == ["keys:pump", "keys"]


def test_interactive_asks_for_every_button(capsys, tmp_path):
    spec = _press_script(tmp_path, ["left", "right", "ok", "back", "undo"])
    code, report = _doctor(capsys, "--panel", spec, "--interactive")
    assert _by_name(report)["panel"]["status"] == "ok" and code == 0


def test_interactive_names_a_button_that_never_answers(capsys, tmp_path, monkeypatch):
    monkeypatch.setattr(cmd_doctor, "PRESS_TIMEOUT_S", 0.6)
    spec = _press_script(tmp_path, ["left", "right", "ok", "back"])
    code, report = _doctor(capsys, "--panel", spec, "--interactive")
    panel = _by_name(report)["panel"]
    assert panel["status"] == "failed" and panel["detail"].endswith("no press seen from UNDO")
    assert code == 1


def test_sigterm_while_waiting_for_a_button_ends_cleanly(tmp_path):
    """systemd and Ctrl-C stop the doctor mid-question: exit 130, a message, no traceback."""
    import os
    import signal
    import subprocess
    import sys

    script = tmp_path / "late.json"
    script.write_text(json.dumps([{"t": 600, "event": "left"}]))
    env = dict(os.environ, SDL_VIDEODRIVER="dummy")
    env.pop("NOTIFY_SOCKET", None)
    proc = subprocess.Popen(
        [sys.executable, "-c", "from companion.cli import main; raise SystemExit(main())",
         "doctor", "--panel", f"script:{script}", "--interactive", "--link", "none"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        line = ""
        while "press" not in line:
            line = proc.stderr.readline()
            assert line, "the doctor ended before asking for a button"
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert proc.returncode == 130
    assert "interrupted" in err and "Traceback" not in err


def test_a_serial_path_that_does_not_exist_is_named(capsys, tmp_path):
    code, report = _doctor(capsys, "--link", f"serial:{tmp_path / 'ttyACM9'}")
    link = _by_name(report)["peripheral"]
    assert link["status"] == "missing" and "No such file" in link["detail"] and "ttyACM9" in link["detail"]
    assert code == 0  # the Pico is optional
