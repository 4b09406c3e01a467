"""``companion doctor``: one command to run when something at the table does not work.

It checks, one line each: the pinout file, the camera (opens, frame size, frames per second), the
display (SDL's video driver and size), the button panel (pin factory; with ``--interactive`` it asks
for each button in turn), the Pico peripheral (handshake, firmware version, round-trip time), the
mat (its ArUco markers seen in a frame), the enrolled deck and dice, and the service's environment
(notify socket, watchdog, device permissions, the journal's folder).

Each check ends ``ok``, ``missing`` or ``failed`` and says what to do. Some checks are *required*
(the table cannot play without them): exit status 0 only when every required check is ``ok``.
The peripheral, deck, dice and service checks are advice: a table plays without a Pico (the light
stays as it is, the camera alone sees a roll), and from a terminal without systemd.

Off a Raspberry Pi, every device defaults to its first-class fake (a simulated mat for the camera,
SDL's dummy driver, gpiozero's MockFactory, an in-process Pico), and the first line says so.

Issue #8 §5. Sources: ``pygame.display.get_driver`` (pygame-ce docs: SDL may fall back to an
invisible driver); Raspberry Pi documentation, "Raspberry Pi hardware" (``/proc/device-tree/model``).
"""

from __future__ import annotations

import glob
import json
import os
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

#: Frames the camera check times (the first is often slow while the sensor starts).
CAMERA_FRAMES = 12
#: What the user sees on each panel button; ``--interactive`` asks for them in the panel's order.
BUTTON_LABELS = {"left": "◀", "right": "▶", "ok": "OK", "back": "BACK", "undo": "UNDO"}
#: The checks a table cannot play without: they decide the exit status.
REQUIRED = ("pinout", "camera", "display", "panel", "mat")
#: Seconds ``--interactive`` waits for each button.
PRESS_TIMEOUT_S = 15.0
#: Device nodes the service needs, with the group that owns them on Raspberry Pi OS.
DEVICE_NODES = (
    ("/dev/video*", "video", "camera"),
    ("/dev/media*", "video", "camera (libcamera)"),
    ("/dev/dma_heap/*", "video", "camera buffers"),
    ("/dev/dri/card*", "video", "display"),
    ("/dev/gpiochip*", "gpio", "buttons and LEDs"),
    ("/dev/ttyACM*", "dialout", "Pico"),
)


@dataclass
class Check:
    """One line of the report. ``status`` is ``ok``, ``missing`` or ``failed``; ``fix`` says what
    to do when it is not ok; ``required`` checks decide the exit status."""

    name: str
    status: str
    detail: str
    required: bool
    fix: str = ""


@dataclass
class Specs:
    """Which backend each device check opens (the command's options after ``auto``)."""

    camera: str
    display: str
    panel: str
    link: str


#: The forms each device option takes, as regular expressions, and how the help names them.
SPEC_FORMS = {
    # the forms companion.devices.camera.open_camera takes, and the doctor's own "sim"
    "camera": (r"pi(:.+)?|sim|fake(:.+)?|usb(:\d+)?|replay(-loop)?:.+", "pi, usb:N, replay:DIR, fake or sim"),
    "display": (r"kmsdrm|window|dummy", "kmsdrm, window or dummy"),
    "panel": (r"gpio|mock|keys|keys:pump|none|script:.+", "gpio, mock, keys, script:FILE or none"),
    "link": (r"auto|none|loop|serial:.+", "auto, serial:PATH, loop or none"),
}


def spec_problem(specs: "Specs") -> str | None:
    """None when every device spec has one of its forms, else a message naming the option and the
    forms it takes (the command exits 2: bad input, not a failed check)."""
    import re

    for field, (pattern, forms) in SPEC_FORMS.items():
        value = getattr(specs, field)
        if not re.fullmatch(pattern, value):
            return f"doctor: --{field} {value!r} is not a {field} this command can open; use {forms}"
    return None


def default_specs(on_pi: bool) -> Specs:
    """The real devices on a Pi; the fakes elsewhere."""
    if on_pi:
        return Specs(camera="pi", display="kmsdrm", panel="gpio", link="auto")
    return Specs(camera="sim", display="dummy", panel="mock", link="loop")


# --- the checks ----------------------------------------------------------------------------------


def check_pinout(ctx) -> Check:
    from companion.devices.pinout import PinoutError, load_pinout

    try:
        ctx.pinout = load_pinout(ctx.args.pinout)
    except PinoutError as exc:
        given = ctx.args.pinout
        if given and not Path(given).is_file():
            return Check("pinout", "missing", str(exc), True, "give --pinout FILE; this checkout's is hardware/pinout.toml")
        return Check("pinout", "failed", str(exc), True,
                     f"fix {given or 'hardware/pinout.toml'} (hardware/README.md lists the rules)")
    p = ctx.pinout
    return Check("pinout", "ok", f"{len(p.buttons)} buttons, {len(p.seat_leds)} seat LEDs, status LED, buzzer", True)


def _sim_camera():
    """A camera that sees the 4-player mat, empty, under mild light: the fake for off-Pi runs."""
    import numpy as np

    from companion.devices.camera import FakeSource
    from companion.sim.table import render_table
    from companion.vision.mat_layout import load_mat_layout

    frame = render_table(load_mat_layout(4), [], size=(1280, 960), rng=np.random.default_rng(8)).image
    return FakeSource([frame], repeat_last=True)


def check_camera(ctx) -> Check:
    from companion.devices.camera import CameraError, open_camera

    spec = ctx.specs.camera
    try:
        from companion.app.cmd_play import read_frame

        cam = _sim_camera() if spec == "sim" else open_camera(spec, decode=read_frame)
    except (CameraError, ValueError, OSError) as exc:
        return Check("camera", "failed", f"{spec}: {exc}", True, _camera_fix(spec))
    with cam:
        start, frames, frame = time.monotonic(), 0, None
        try:
            for _ in range(CAMERA_FRAMES):
                got = cam.read()
                if got is None:
                    break
                frame, frames = got, frames + 1
        except CameraError as exc:
            return Check("camera", "failed", f"{spec}: {exc}", True, "try `companion doctor` again; then reboot")
        elapsed = time.monotonic() - start
    if frame is None:
        return Check("camera", "failed", f"{spec}: opened, but gave no frame", True,
                     "is another program using the camera? (`sudo systemctl stop companion` first)")
    ctx.frame = frame
    h, w = frame.shape[:2]
    if spec == "sim":
        return Check("camera", "ok", f"simulated mat: {w}×{h} px (a fake: no frame rate to measure)", True)
    fps = frames / elapsed if elapsed > 0 else float("inf")
    return Check("camera", "ok", f"{spec}: {w}×{h} px, {fps:.1f} frames/s over {frames} frames", True)


def _camera_fix(spec: str) -> str:
    """What to try when the camera ``spec`` does not open."""
    if spec.startswith("usb:"):
        n = spec.partition(":")[2]
        return f"is the webcam plugged in, and is it /dev/video{n}? (`v4l2-ctl --list-devices` lists them)"
    if spec.startswith("replay:"):
        return "give a folder of frames (PNG/JPEG, read in name order) or a video file"
    return "is the ribbon cable seated, and does `rpicam-hello --list-cameras` list it?"


def check_display(ctx) -> Check:
    from companion.devices.display import INVISIBLE_DRIVERS, _pygame

    wanted = ctx.specs.display  # one of SPEC_FORMS["display"]: run() refused any other
    before = os.environ.get("SDL_VIDEODRIVER")
    if wanted != "window":
        os.environ["SDL_VIDEODRIVER"] = wanted
    pg = _pygame()
    try:
        pg.display.init()
        driver = pg.display.get_driver()
        sizes = pg.display.get_desktop_sizes()
    except pg.error as exc:
        return Check("display", "failed", f"SDL could not open {wanted}: {exc}", True,
                     "is the user in the video and render groups, and no desktop holding the screen?")
    finally:
        pg.display.quit()
        # The check must not change which driver the rest of the process gets.
        if before is None:
            os.environ.pop("SDL_VIDEODRIVER", None)
        else:
            os.environ["SDL_VIDEODRIVER"] = before
    size = f"{sizes[0][0]}×{sizes[0][1]} px" if sizes else "size unknown"
    if driver in INVISIBLE_DRIVERS and wanted != "dummy":
        return Check("display", "failed", f"SDL fell back to the invisible {driver!r} driver", True,
                     "set SDL_VIDEODRIVER=kmsdrm on a console-only Pi; SDL_KMSDRM_DEVICE_INDEX=N for an SPI panel")
    note = " (fake: nothing is shown)" if driver in INVISIBLE_DRIVERS else ""
    return Check("display", "ok", f"SDL driver {driver}, {size}{note}", True)


def check_panel(ctx) -> Check:
    from companion.devices.panel import PanelError, open_panel

    spec = ctx.specs.panel
    if ctx.pinout is None and spec in ("gpio", "mock"):
        return Check("panel", "failed", f"{spec}: no usable pinout to open the pins by (see the pinout line)", True,
                     "fix the pinout first")
    if spec == "keys" and ctx.args.interactive:
        spec = "keys:pump"  # nobody else pumps pygame's events here: the panel opens its own window
    try:
        panel = open_panel(spec, pinout=ctx.pinout)
    except PanelError as exc:
        return Check("panel", "failed", str(exc), True, "see hardware/README.md, wiring table")
    with panel:
        factory = panel.pin_factory or "no pins"
        if not ctx.args.interactive:
            return Check("panel", "ok", f"{panel.backend} ({factory}); --interactive tests each button", True)
        if panel.backend in ("mock", "none"):
            return Check("panel", "ok", f"{panel.backend} ({factory}): nothing to press, skipped --interactive", True)
        dead = []
        from companion.devices.panel import BUTTONS

        for name in BUTTONS:
            label = BUTTON_LABELS[name]
            # The prompt goes to stderr, so --json output stays one object.
            print(f"  press {label} …", file=sys.stderr, flush=True)
            if not _wait_for(panel, name, PRESS_TIMEOUT_S):
                dead.append(label)
        if dead:
            return Check("panel", "failed", f"{panel.backend}: no press seen from {', '.join(dead)}", True,
                         "check those buttons' wires against the wiring table (button to GND)")
        return Check("panel", "ok", f"{panel.backend} ({factory}): all 5 buttons answer", True)


def _wait_for(panel, name: str, timeout_s: float) -> bool:
    """Wait until ``panel`` gives the event ``name`` (other events are ignored)."""
    end = time.monotonic() + timeout_s
    while (left := end - time.monotonic()) > 0:
        event = panel.get(timeout=min(left, 0.5))
        if event is not None and event.name == name:
            return True
    return False


def check_peripheral(ctx) -> Check:
    from companion.devices.link import LinkError, open_link

    spec = ctx.specs.link
    p = ctx.pinout
    kwargs = {}
    if p is not None:
        kwargs = {"vid_pid": p.peripheral_vid_pid, "fallback": p.peripheral_fallback}
    elif spec == "auto":
        return Check("peripheral", "failed", "no usable pinout to find the Pico by (its USB VID:PID)", False,
                     "fix the pinout first")
    try:
        link = open_link(spec, **kwargs)
    except LinkError as exc:
        return Check("peripheral", "failed", str(exc), False)
    with link:
        if not link.wait_connected(3.0):
            why = f": {link.problem}" if getattr(link, "problem", None) else ""
            return Check("peripheral", "missing", f"{spec}: no Pico answered (state {link.state}){why}", False,
                         "optional: without it the ring light stays as it is and the camera alone sees rolls; "
                         "plug the Pico in by USB and flash firmware/ (firmware/PROTOCOL.md)")
        rtt = link.ping(1.0)
        version = link.firmware_version or "unknown"
    where = "in-process fake Pico" if spec == "loop" else spec
    if rtt is None:
        return Check("peripheral", "failed", f"{where}: handshake ok (firmware {version}) but no answer to a ping",
                     False, "unplug and replug the Pico")
    return Check("peripheral", "ok", f"{where}: firmware {version}, round trip {rtt:.1f} ms", False)


def check_mat(ctx) -> Check:
    if ctx.frame is None:
        return Check("mat", "failed", "no camera frame to look in", True, "fix the camera first")
    from companion.vision.mat import MatTracker
    from companion.vision.mat_layout import load_mat_layout

    status = MatTracker(load_mat_layout(ctx.args.players)).update(ctx.frame)
    if not status.found:
        return Check("mat", "failed", status.message, True,
                     "is the whole mat under the camera, its 4 corner markers in view and not in glare?")
    return Check("mat", "ok", status.message, True)


def _check_enrolled(name: str, path, why_optional: str, load, error, count: str, enrol: str) -> Check:
    """An enrolled file: missing (not given), failed (the loader's named error) or ok with its count."""
    if not path:
        return Check(name, "missing", f"no --{name} given{why_optional}", False, f"enrol your {enrol}")
    try:
        loaded = load(path)
    except error as exc:
        return Check(name, "failed", str(exc), False, f"enrol again: {enrol.split(': ', 1)[1]}")
    return Check(name, "ok", f"{path}: {count(loaded)}", False)


def check_deck(ctx) -> Check:
    """The deck loads; and no two of its pictures filed under two labels look like one card
    (:func:`companion.vision.deck.misfiled_examples`, as ``companion enroll`` says when it enrols:
    a deck enrolled before that check, or whose enrolment note was missed, is told here)."""
    from companion.vision.deck import Deck, DeckError, misfiled_examples

    loaded: list = []  # the deck, loaded once (an 81-card deck is about 100 MB)

    def load(path):
        loaded.append(Deck.load(path))
        return loaded[-1]

    check = _check_enrolled("deck", ctx.args.deck, "", load, DeckError, lambda d: f"{len(d.labels)} labels",
                            "cards: companion enroll --deck DIR --out DECK.npz")
    if check.status != "ok":
        return check
    found = misfiled_examples(loaded[-1])
    if not found:
        return check
    pairs = "; ".join(f"{m.label!r} picture {m.index + 1} and {m.other!r} picture {m.other_index + 1} "
                      f"(similarity {m.score:.2f})" for m in found)
    return Check("deck", "failed", f"{check.detail}, but pictures filed under two labels look like one card: {pairs}",
                 False, "in the enrolment folder (pictures in file-name order), move the one in the wrong "
                 "folder and enrol again: companion enroll --deck DIR --out DECK.npz")


def check_dice(ctx) -> Check:
    from companion.vision.dice_faces import DiceError, DiceSet

    return _check_enrolled("dice", ctx.args.dice, "; only Sushi Roll needs them", DiceSet.load, DiceError,
                           lambda d: f"{len(d.faces)} faces", "dice: companion enroll --dice DIR --out DICE.npz")


def check_service(ctx) -> Check:
    from companion.app.service import watchdog_interval

    env = os.environ
    parts = []
    if env.get("NOTIFY_SOCKET"):
        period = watchdog_interval()
        parts.append("under systemd" + (f", watchdog {period:g} s" if period else ", no watchdog"))
    else:
        parts.append("not under systemd (run from a terminal)")
    blocked = []
    for pattern, group, what in DEVICE_NODES:
        nodes = sorted(glob.glob(pattern))
        if nodes and not all(os.access(n, os.R_OK | os.W_OK) for n in nodes):
            blocked.append(f"{pattern} ({what}: group {group})")
    journal_dir = Path(env.get("STATE_DIRECTORY", ".").split(":")[0])
    if not os.access(journal_dir, os.W_OK):
        blocked.append(f"{journal_dir} (the game journal) is not writable")
    if blocked:
        return Check("service", "failed", "; ".join(parts) + "; no access to " + ", ".join(blocked), False,
                     "run as the service (systemd/companion.service grants these) or add the user to those groups")
    return Check("service", "ok", "; ".join(parts) + "; device nodes and journal folder accessible", False)


CHECKS = (check_pinout, check_camera, check_display, check_panel, check_peripheral,
          check_mat, check_deck, check_dice, check_service)


class _Context:
    def __init__(self, args, specs: Specs) -> None:
        self.args, self.specs = args, specs
        self.pinout = None
        self.frame = None


def run_checks(args, specs: Specs, say=lambda line: None) -> list[Check]:
    """Run every check in order; a check that raises becomes ``failed`` with the error, so one
    broken device never hides the report on the others."""
    ctx = _Context(args, specs)
    results = []
    for check in CHECKS:
        name = check.__name__.removeprefix("check_")
        try:
            result = check(ctx)
        except Exception as exc:  # noqa: BLE001 - the doctor reports every failure, it never dies of one
            result = Check(name, "failed", f"{type(exc).__name__}: {exc}", name in REQUIRED)
        results.append(result)
        say(_line(result))
    return results


def _line(c: Check) -> str:
    text = f"{c.status:<8} {c.name:<11} {c.detail}"
    if c.status != "ok" and not c.required:
        text += " (optional)"
    if c.status != "ok" and c.fix:
        text += f"\n{'':<20} → {c.fix}"
    return text


def run(args) -> int:
    """The command: 0 when every required check passed, 1 when one did not, 2 for a device option
    that names no device, 130 when interrupted (Ctrl-C or SIGTERM; what was open is closed)."""
    from companion.app.cli_util import err, sigterm_as_interrupt

    from companion.devices.board import pi_model

    model = pi_model()
    specs = default_specs(model is not None)
    for field in ("camera", "display", "panel", "link"):
        value = getattr(args, field)
        if value and value != "auto":
            setattr(specs, field, value)
    problem = spec_problem(specs)
    if problem:
        err(problem)
        return 2
    fakes = model is None
    say = (lambda line: None) if args.json else print
    if not args.json:
        print(f"{'info':<8} {'platform':<11} " + (model or "not a Raspberry Pi: checking with the fakes"))
    restore = sigterm_as_interrupt()
    try:
        results = run_checks(args, specs, say)
    except KeyboardInterrupt:
        err("doctor: interrupted; the checks above are all that ran")
        return 130
    finally:
        restore()
    healthy = all(c.status == "ok" for c in results if c.required)
    if args.json:
        print(json.dumps({"platform": model, "fakes": fakes, "specs": asdict(specs), "ok": healthy,
                          "checks": [asdict(c) for c in results]}))
    else:
        bad = [c.name for c in results if c.required and c.status != "ok"]
        print("all required checks passed" if healthy else f"not ready: {', '.join(bad)}")
    return 0 if healthy else 1
