"""Dice seen obliquely (issue #7 §1): a small die far from the camera shows its top face squashed
by the perspective, and its one's pip with it, beside a side face squashed more. Drawn here with
OpenCV (8× and shrunk, so the edges are anti-aliased like a webcam's)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from companion.vision import dice_d6
from companion.vision.dice_d6 import find_pips, group_pips, read_d6

TABLE = (70, 110, 150)  # wooden brown, BGR


def oblique_one(squash_top: float, squash_side: float, *, pip: float = 9.0, hw: float = 22.0,
                up: bool = True) -> np.ndarray:
    """(180, 200, 3) uint8 BGR: an ivory die whose top face (a one, half-width ``hw`` px, pip
    ``pip`` px across) is squashed to ``squash_top`` of its height, with the side face nearer the
    camera (a four) squashed to ``squash_side`` below it (``up``: the camera looks from below the
    picture, the die leans away)."""
    s = 8
    w, h = 200, 180
    c = np.full((h * s, w * s, 3), TABLE, np.uint8)
    cx, cy = 100.0, 70.0
    top = np.array([(cx - hw, cy - hw * squash_top), (cx + hw, cy - hw * squash_top),
                    (cx + hw, cy + hw * squash_top), (cx - hw, cy + hw * squash_top)])
    depth = 2 * hw * squash_side
    side = np.array([top[3], top[2], top[2] + (0, depth), top[3] + (0, depth)])
    cv2.fillConvexPoly(c, np.int32(side * s), (170, 185, 195), cv2.LINE_AA)
    cv2.fillConvexPoly(c, np.int32(top * s), (225, 235, 240), cv2.LINE_AA)

    def ellipse(x, y, squash):
        axes = (int(pip / 2 * s), int(pip / 2 * squash * s))
        cv2.ellipse(c, (int(x * s), int(y * s)), axes, 0, 0, 360, (30, 30, 30), -1, cv2.LINE_AA)

    ellipse(cx, cy, squash_top)
    for u in (-0.5, 0.5):
        for v in (-0.5, 0.5):
            ellipse(cx + u * hw, top[3][1] + (1 + v) * depth / 2, squash_side)
    img = cv2.GaussianBlur(cv2.resize(c, (w, h), interpolation=cv2.INTER_AREA), (0, 0), 0.6)
    return img if up else np.ascontiguousarray(img[::-1])


def test_a_one_grouped_with_the_squashed_pips_of_its_side_face_is_read():
    img = oblique_one(0.74, 0.6)
    pips = find_pips(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY))
    one = min(pips, key=lambda p: np.hypot(p.x - 100, p.y - 70))
    # The case: the one's pip is rounder than the side face's but all five are grouped, and too
    # few are round to fit any layout.
    assert one.roundness >= dice_d6.TOP_MIN_ROUNDNESS
    assert sum(p.roundness >= dice_d6.TOP_MIN_ROUNDNESS for p in pips) == 1
    assert any(len(g) == 5 for g in group_pips(pips))
    found = read_d6(img)
    assert [o.value for o in found] == [1]
    assert abs(found[0].center[0] - 100) < 4 and abs(found[0].center[1] - 70) < 4


def test_only_a_pip_clearly_rounder_and_not_smaller_than_its_group_is_tried_as_a_one():
    side = [dice_d6.Pip(100, 100 + 12 * k, 50.0, 9.0, 5.2, 0.0, 0.6, 1) for k in range(3)]  # 0.58 round

    def pip(d, roundness):
        return dice_d6.Pip(112, 90, np.pi * d * d / 4, d / np.sqrt(roundness), d * np.sqrt(roundness), 0.0, 0.6, 1)

    one = pip(7.8, 0.70)
    assert dice_d6._rounder_one_pip(side + [one], [one]) is one
    barely = pip(7.8, 0.64)  # within the scatter of one face's pips
    assert dice_d6._rounder_one_pip(side + [barely], [barely]) is None
    speck = pip(6.0, 0.70)  # a speck of a few px: its ellipse fit says little
    assert dice_d6._rounder_one_pip(side + [speck], [speck]) is None


def test_the_rounder_pip_of_a_two_seen_squarely_is_not_tried_as_a_one():
    # A two's pips, both round as a top face's: the ellipse fits scatter (0.99 and 0.88 on a gem die
    # read as a one before), but neither is a side face's squashed pip.
    def pip(x, y, roundness):
        d = 11.7
        return dice_d6.Pip(x, y, np.pi * d * d / 4, d / np.sqrt(roundness), d * np.sqrt(roundness), 0.0, 0.7, -1)

    a, b = pip(100, 100, 0.99), pip(119, 60, 0.88)
    assert dice_d6._rounder_one_pip([a, b], [a, b]) is None
    squashed = pip(119, 60, 0.7)  # the same with a side face's pip beside it: still a one's chance
    assert dice_d6._rounder_one_pip([a, squashed], [a, squashed]) is a


def _grad(img: np.ndarray):
    g = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY).astype(np.float32)
    return cv2.Sobel(g, cv2.CV_32F, 1, 0, ksize=3), cv2.Sobel(g, cv2.CV_32F, 0, 1, ksize=3)


@pytest.mark.parametrize("turn", [0, 1, 2, 3])
def test_a_lone_one_squashed_with_its_face_is_read_whichever_way_the_die_leans(turn):
    img = np.ascontiguousarray(np.rot90(oblique_one(0.56, 0.3), turn))
    pips = find_pips(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY))
    one = max(pips, key=lambda p: p.diameter)
    assert one.roundness < dice_d6.TOP_MIN_ROUNDNESS  # too squashed for a top face's pip ...
    assert [len(g) for g in group_pips(pips) if one in g] == [1]  # ... and alone in its group
    found = read_d6(img)
    assert [o.value for o in found] == [1]
    assert np.hypot(found[0].center[0] - one.x, found[0].center[1] - one.y) < 3
    # The face read is squashed like its pip, along the same axis.
    q = np.array(found[0].quad)
    extent = q.max(axis=0) - q.min(axis=0)
    short, long_ = sorted(extent)
    assert short < 0.8 * long_
    assert (np.argmin(extent) == 1) == (turn % 2 == 0)  # squashed vertically unless turned a quarter


def test_a_squashed_pip_beside_a_round_one_or_a_speck_is_not_tried_as_a_one():
    img = oblique_one(0.56, 0.3)
    grad = _grad(img)
    one = max(find_pips(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)), key=lambda p: p.diameter)
    assert dice_d6._squashed_one_faces(one, grad, []) != []
    near = dice_d6.Pip(one.x + 30, one.y, 60.0, 9.0, 8.5, 0.0, one.contrast, 1)
    assert dice_d6._squashed_one_faces(one, grad, [near]) == []  # a face of its die is seen squarer
    far = dice_d6.Pip(one.x + 150, one.y, 60.0, 9.0, 8.5, 0.0, one.contrast, 1)
    assert dice_d6._squashed_one_faces(one, grad, [far]) != []
    light = dice_d6.Pip(one.x + 30, one.y, 60.0, 9.0, 8.5, 0.0, one.contrast, -1)
    assert dice_d6._squashed_one_faces(one, grad, [light]) != []  # a glint is no pip of its die
    speck = dice_d6.Pip(one.x, one.y, 25.0, 7.5, 4.2, one.angle, one.contrast, 1)  # 4 px across
    assert dice_d6._squashed_one_faces(speck, grad, []) == []
