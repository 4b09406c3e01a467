"""Faint pips (issue #7 §1): in a blurred webcam photo a die's pips can be fainter than the pip
search's contrast threshold. A second look searches die bodies where no die was read for pips
down to ``FAINT_PIP_CONTRAST``; it adds dice and never changes one already read. Drawn here with
OpenCV (8× and shrunk, then blurred as an out-of-focus webcam does)."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.vision import dice_d6
from companion.vision.dice_d6 import PIP_MIN_CONTRAST, find_pips, read_d6

ROOT = Path(__file__).resolve().parent.parent


def faint_two(angle: float, *, pip_grey: int = 140, sigma: float = 2.0, die: bool = True) -> np.ndarray:
    """(160, 160, 3) uint8 BGR: an ivory two (face half-width 18 px, pips 8 px across, grey
    ``pip_grey``) on a wooden table (or, ``die`` False, its two spots on the bare table), blurred
    by a Gaussian of ``sigma`` px and turned ``angle`` degrees."""
    s, w = 8, 160
    ivory, table = (215, 228, 235), (70, 110, 150)
    c = np.full((w * s, w * s, 3), table, np.uint8)
    cx = cy = 80.0
    hw = 18.0
    if die:
        sq = np.array([(-hw - 3, -hw - 3), (hw + 3, -hw - 3), (hw + 3, hw + 3), (-hw - 3, hw + 3)]) + (cx, cy)
        cv2.fillConvexPoly(c, np.int32(sq * s), ivory, cv2.LINE_AA)
    for u, v in ((-0.5, -0.5), (0.5, 0.5)):
        cv2.circle(c, (int((cx + u * hw) * s), int((cy + v * hw) * s)), 4 * s, (pip_grey,) * 3, -1, cv2.LINE_AA)
    img = cv2.GaussianBlur(cv2.resize(c, (w, w), interpolation=cv2.INTER_AREA).astype(np.float32), (0, 0), sigma)
    img = cv2.warpAffine(img, cv2.getRotationMatrix2D((cx, cy), angle, 1.0), (w, w), borderMode=cv2.BORDER_REPLICATE)
    return np.clip(img, 0, 255).astype(np.uint8)


@pytest.mark.parametrize("angle", [0.0, 30.0, 115.0])
def test_a_blurred_two_fainter_than_the_pip_search_is_read(angle):
    img = faint_two(angle)
    grey = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    # The first look cannot see it: no pip reaches the usual contrast.
    assert find_pips(grey, min_contrast=PIP_MIN_CONTRAST) == []
    assert [o.value for o in read_d6(img)] == [2]


@pytest.mark.parametrize("angle", [0.0, 30.0])
def test_faint_spots_on_the_bare_table_are_no_die(angle):
    assert read_d6(faint_two(angle, die=False)) == []


def test_without_a_die_body_there_is_no_second_look(monkeypatch):
    # The second look is only where a die body is: a faint two with its body not found is not read.
    monkeypatch.setattr(dice_d6, "_bodies", lambda light: [])
    assert read_d6(faint_two(30.0)) == []


def test_the_second_look_adds_dice_and_changes_none(monkeypatch):
    def readings(img):
        return {(o.value, tuple(round(float(c), 2) for c in o.center)) for o in read_d6(img)}

    for k in range(4):
        img = cv2.imread(str(ROOT / "tests" / "fixtures" / "dice" / f"d6_{k}.jpg"), cv2.IMREAD_COLOR)
        with_it = readings(img)
        with monkeypatch.context() as m:
            m.setattr(dice_d6, "_bodies", lambda light: [])
            without = readings(img)
        assert without <= with_it


def test_a_body_with_a_die_read_on_it_is_not_searched_again(monkeypatch):
    from companion.sim.dice import draw_die

    canvas = np.full((300, 300, 3), (70, 110, 150), np.float32)
    draw_die(canvas, "d6", "5", (150.0, 150.0), 60.0, 10.0, view=(0.1, -0.08))
    img = np.clip(cv2.GaussianBlur(canvas, (0, 0), 0.7), 0, 255).astype(np.uint8)
    searched = []
    real = dice_d6._faint_pips
    monkeypatch.setattr(dice_d6, "_faint_pips", lambda grey, bodies: searched.extend(bodies) or real(grey, bodies))
    assert [o.value for o in read_d6(img)] == [5]
    assert not any(abs(b.x - 150) < 40 and abs(b.y - 150) < 40 for b in searched)


def faint_one(angle: float, *, pip_grey: int = 140, sigma: float = 2.0) -> np.ndarray:
    """(160, 160, 3) uint8 BGR: an ivory one (face half-width 18 px, its pip 10 px across, grey
    ``pip_grey``) on a wooden table, blurred by a Gaussian of ``sigma`` px, turned ``angle``°."""
    s, w = 8, 160
    ivory, table = (215, 228, 235), (70, 110, 150)
    c = np.full((w * s, w * s, 3), table, np.uint8)
    cx = cy = 80.0
    hw = 18.0
    sq = np.array([(-hw - 3, -hw - 3), (hw + 3, -hw - 3), (hw + 3, hw + 3), (-hw - 3, hw + 3)]) + (cx, cy)
    cv2.fillConvexPoly(c, np.int32(sq * s), ivory, cv2.LINE_AA)
    cv2.circle(c, (int(cx * s), int(cy * s)), 5 * s, (pip_grey,) * 3, -1, cv2.LINE_AA)
    img = cv2.GaussianBlur(cv2.resize(c, (w, w), interpolation=cv2.INTER_AREA).astype(np.float32), (0, 0), sigma)
    img = cv2.warpAffine(img, cv2.getRotationMatrix2D((cx, cy), angle, 1.0), (w, w), borderMode=cv2.BORDER_REPLICATE)
    return np.clip(img, 0, 255).astype(np.uint8)


@pytest.mark.parametrize("pip_grey", [140, 150])
def test_a_faint_one_on_two_overlapping_bodies_is_read(monkeypatch, pip_grey):
    # Two die bodies whose squares overlap (a die's top face and its whole body seen apart, or
    # two touching dice) both hold the faint pip: found twice, its copy lay on its own face and
    # the one was refused as sharing its face with another pip.
    img = faint_one(30.0, pip_grey=pip_grey)
    grey = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    assert find_pips(grey, min_contrast=PIP_MIN_CONTRAST) == []  # the first look cannot see it
    assert [o.value for o in read_d6(img)] == [1]
    real = dice_d6._bodies

    def twice(light):  # every body found again, a third of its size to the right
        found = real(light)
        return found + [dice_d6.Pip(b.x + 0.3 * b.major, b.y, b.area, b.major, b.minor, b.angle, b.contrast, b.polarity)
                        for b in found]

    monkeypatch.setattr(dice_d6, "_bodies", twice)
    assert [o.value for o in read_d6(img)] == [1]
