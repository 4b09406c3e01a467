"""The pip dice reader (issue #7 §1): simulated fixtures, drawn dice, real photos, the command."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.cli import main
from companion.sim.dice import DieSpec, draw_die, render_dice
from companion.sim.table import ShotConditions
from companion.vision.dice_d6 import find_pips, read_d6
from companion.vision.imageio import read_image

FIXTURES = Path(__file__).parent / "fixtures" / "dice"
ROOT = Path(__file__).resolve().parent.parent
PHOTOS = ROOT.parent / "shared" / "datasets" / "d6-photos" / "train"


def _truth(name: str) -> list[tuple[int, np.ndarray]]:
    data = json.loads((FIXTURES / f"{name}.json").read_text())
    dice = data["dice"] if isinstance(data, dict) else data
    return [(int(d["face"]), np.array(d["quad"], np.float64)) for d in dice]


def _inside(pt, quad) -> bool:
    return cv2.pointPolygonTest(np.float32(quad), (float(pt[0]), float(pt[1])), False) >= 0


def _score(readings, truth) -> tuple[int, int, int]:
    """(right, wrong, spurious): a reading belongs to the die whose top face holds its centre."""
    right = wrong = spurious = 0
    for r in readings:
        hits = [v for v, q in truth if _inside(r.center, q)]
        if not hits:
            spurious += 1
        elif r.value == hits[0]:
            right += 1
        else:
            wrong += 1
    return right, wrong, spurious


@pytest.mark.parametrize("name", ["d6_0", "d6_1", "d6_2", "d6_3"])
def test_fixture_scenes_never_give_a_wrong_value_or_a_spurious_die(name):
    truth = _truth(name)
    right, wrong, spurious = _score(read_d6(read_image(FIXTURES / f"{name}.jpg")), truth)
    assert wrong == 0 and spurious == 0
    # d6_2 holds light-pip coloured dice and clumps of touching dice: most are still read.
    assert right >= 0.6 * len(truth)


def _one_die(value: int, rotation: float, size: float = 60.0, body=None, pip=None) -> np.ndarray:
    canvas = np.full((300, 300, 3), (70, 110, 150), np.float32)  # a wooden-brown table
    draw_die(canvas, "d6", str(value), (150.0, 150.0), size, rotation, view=(0.1, -0.08), body_bgr=body, pip_bgr=pip)
    return np.clip(cv2.GaussianBlur(canvas, (0, 0), 0.7), 0, 255).astype(np.uint8)


@pytest.mark.parametrize("value", [1, 2, 3, 4, 5, 6])
@pytest.mark.parametrize("rotation", [0.0, 27.0, 62.0])
def test_each_value_at_any_turn(value, rotation):
    found = read_d6(_one_die(value, rotation))
    assert [o.value for o in found] == [value]
    cx, cy = found[0].center
    assert abs(cx - 150) < 25 and abs(cy - 150) < 25  # the top face, near the footprint (view shifts it)


@pytest.mark.parametrize("value", [2, 5, 6])
def test_light_pips_on_a_coloured_die(value):
    found = read_d6(_one_die(value, 15.0, body=(40, 40, 190), pip=(245, 245, 245)))
    assert [o.value for o in found] == [value]


def test_a_bare_table_has_no_dice():
    rng = np.random.default_rng(5)
    scene = render_dice([], rng=rng, conditions=ShotConditions(background="wood"))
    assert read_d6(scene.image) == []
    assert read_d6(np.full((240, 320, 3), 128, np.uint8)) == []


def test_any_resolution_gives_the_same_dice_in_the_given_px():
    spec = [DieSpec("d6", str(v), (200.0 + 150 * i, 300.0), 20.0 * i, 64.0) for i, v in enumerate((3, 5, 6))]
    scene = render_dice(spec, size=(800, 600), rng=np.random.default_rng(1), conditions=ShotConditions(background="cloth"))
    small = read_d6(scene.image)
    big = read_d6(cv2.resize(scene.image, (3200, 2400), interpolation=cv2.INTER_CUBIC))
    assert sorted(o.value for o in small) == [3, 5, 6]
    assert sorted(o.value for o in big) == [3, 5, 6]
    for a, b in zip(sorted(small, key=lambda o: o.center), sorted(big, key=lambda o: o.center)):
        assert abs(b.center[0] - 4 * a.center[0]) < 12 and abs(b.center[1] - 4 * a.center[1]) < 12


def test_side_face_pips_are_squashed_and_top_pips_round():
    img = _one_die(5, 0.0, size=80)
    pips = find_pips(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY))
    round_ = [p for p in pips if p.roundness > 0.8]
    assert len(round_) >= 5  # the five on top


@pytest.mark.skipif(not PHOTOS.is_dir(), reason="../shared/datasets/d6-photos is missing (the shared datasets sit beside the repo)")
def test_real_webcam_photos(monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT / "bench"))
    import real_dice

    # Every 10th dev photo: a small, fixed sample of what bench/real_dice.py measures in full.
    r = real_dice.evaluate(real_dice.photos("dev")[::10])
    assert r["dice"] >= 40
    assert r["right"] >= 0.88 * r["dice"]
    assert r["wrong"] <= 0.03 * r["dice"] and r["spurious"] <= 0.05 * r["dice"]


def test_cli_json_and_a_bad_image(tmp_path, capsys):
    bad = tmp_path / "bad.jpg"
    bad.write_bytes(b"not a jpeg")
    status = main(["read", "dice", "--kind", "d6", "--json", str(FIXTURES / "d6_3.jpg"), str(bad)])
    out, err = capsys.readouterr()
    assert status == 2
    assert "bad.jpg" in err
    result = json.loads(out)
    assert [r["image"] for r in result] == [str(FIXTURES / "d6_3.jpg"), str(bad)]
    dice = result[0]["dice"]
    assert dice and all(set(d) == {"value", "center", "quad", "confidence"} for d in dice)
    assert all(d["value"] in range(1, 7) and len(d["quad"]) == 4 and 0 <= d["confidence"] <= 1 for d in dice)
    assert result[1]["dice"] is None


def test_cli_says_when_it_shrinks(tmp_path, capsys):
    big = tmp_path / "big.png"
    cv2.imwrite(str(big), cv2.resize(read_image(FIXTURES / "d6_3.jpg"), (2560, 1920)))
    assert main(["read", "dice", "--kind", "d6", str(big)]) == 0
    out, err = capsys.readouterr()
    assert "2560×1920 read at 1280×960" in err


def test_cli_needs_a_kind(capsys):
    assert main(["read", "dice", str(FIXTURES / "d6_3.jpg")]) == 2
    assert "--kind" in capsys.readouterr().err


def test_grey_and_tiny_images():
    grey = cv2.cvtColor(_one_die(4, 10.0), cv2.COLOR_BGR2GRAY)
    assert [o.value for o in read_d6(grey)] == [4]
    assert read_d6(np.zeros((1, 1, 3), np.uint8)) == []
    assert read_d6(np.zeros((5, 7), np.uint8)) == []


def test_an_unread_die_has_no_value_not_the_text_none():
    from companion.vision.observations import DieObservation

    o = DieObservation(None, 0.0, ((0, 0), (1, 0), (1, 1), (0, 1)))
    assert o.value is None and o.to_json_d6()["value"] is None


def test_options_that_do_not_apply_are_refused(capsys):
    fixture = str(FIXTURES / "d6_3.jpg")
    assert main(["read", "dice", "--kind", "d6", "--dice", "x.npz", fixture]) == 2
    assert "--dice" in capsys.readouterr().err
    assert main(["read", "dice", "--kind", "d6", "--deck", "x.npz", fixture]) == 2
    assert "--deck" in capsys.readouterr().err
    assert main(["read", "cards", "--deck", "x.npz", "--kind", "d6", fixture]) == 2
    assert "--kind" in capsys.readouterr().err


def test_a_photo_must_be_uint8():
    with pytest.raises(ValueError, match="uint8"):
        read_d6(np.zeros((40, 40, 3), np.float32))
    with pytest.raises(ValueError, match="uint8"):
        read_d6(np.zeros((40, 40, 2), np.uint8))
    assert read_d6(np.zeros((0, 0, 3), np.uint8)) == []


def test_a_forked_child_reads_dice_with_its_own_light_pip_worker():
    # The light-pip search runs on a worker thread; a child forked after a read has the parent's
    # executor but not its thread, and would wait for it for ever without a worker of its own.
    import os
    import time

    image = _one_die(5, 20.0, body=(40, 40, 200), pip=(250, 250, 250))
    assert [o.value for o in read_d6(image)] == [5]
    pid = os.fork()
    if pid == 0:  # the child: exit 0 only when it reads the die
        try:
            os._exit(0 if [o.value for o in read_d6(image)] == [5] else 1)
        except BaseException:
            os._exit(2)
    deadline = time.monotonic() + 60.0
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        if time.monotonic() > deadline:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
            pytest.fail("the forked child never finished reading")
        time.sleep(0.05)
    assert os.waitstatus_to_exitcode(status) == 0


def test_a_light_spot_on_a_black_or_grey_thing_is_not_a_one():
    # Keys on a grey desk: a lone light spot on a body of no colour is a reflection
    # (MIN_LIGHT_PIP_CHROMA) unless it looks painted (a black die's one, test_dice_d6_black_one):
    # here glints on dark keycaps, streaks or specks, each at a key's centre.
    import cv2

    canvas = np.full((960, 1280, 3), 150, np.float32)
    for i, v in enumerate((12, 20, 30, 45, 60, 75, 90, 105)):
        cx, cy = 160 + 320 * (i % 4), 250 + 460 * (i // 4)
        cv2.rectangle(canvas, (cx - 26, cy - 26), (cx + 26, cy + 26), (v, v, v + 6), -1, cv2.LINE_AA)
        if i % 2:
            cv2.ellipse(canvas, (cx, cy), (11, 3), 25.0 * i, 0, 360, (245, 245, 245), -1, cv2.LINE_AA)
        else:
            cv2.circle(canvas, (cx, cy), 2, (245, 245, 245), -1, cv2.LINE_AA)
    image = np.clip(cv2.GaussianBlur(canvas, (0, 0), 0.8), 0, 255).astype(np.uint8)
    got = [o.face for o in read_d6(image)]
    assert "1" not in got, got
