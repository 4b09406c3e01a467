"""A one whose pip is large (issue #7 §1: "any dice colour"): on many dice the one's pip is
larger than the other values' pips, about half the face's half-width across."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from companion.sim.dice import DieSpec, render_dice
from companion.sim.table import ShotConditions
from companion.vision import dice_d6
from companion.vision.dice_d6 import Face, Pip, read_d6

WOOD = (60, 100, 150)  # BGR
COLOURS = [(40, 40, 200), (160, 90, 30), (30, 160, 60)]  # red, blue, green


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_ones_of_coloured_dice_with_a_large_pip_are_read(seed):
    # The simulator draws a one's pip about half the half-width across (as on many real dice:
    # larger than the other values' pips); a face of 2.6 … 3.4 pip diameters reaches over the
    # side faces' pips and is refused. 15 ones of 60 px faces, far apart, on wood.
    specs = [DieSpec("d6", "1", (120.0 + 260 * (i % 5), 160.0 + 300 * (i // 5)), 17.0 * i + 5, 60.0,
                     body_bgr=COLOURS[i % 3], pip_bgr=(250, 250, 250)) for i in range(15)]
    cond = dataclasses.replace(ShotConditions(), background="wood", background_bgr=WOOD)
    shot = render_dice(specs, size=(1280, 960), rng=np.random.default_rng(seed), conditions=cond)
    got = [o.face for o in read_d6(shot.image)]
    assert set(got) <= {"1", None}, got
    assert got.count("1") >= 14, got


def _pip(x: float, y: float, d: float, roundness: float = 1.0) -> Pip:
    return Pip(x, y, math.pi * d * d * roundness / 4, d, d * roundness, 0.0, 0.7, -1)


def _large_face(p: Pip) -> Face:
    w = dice_d6.LARGE_ONE_HALF_WIDTH * p.diameter
    return Face(np.array([[w, 0.0, p.x], [0.0, w, p.y]]), (p,), 0.0, True)


def _crowded(f: Face, pips: list[Pip]) -> bool:
    return dice_d6._crowded(f, pips, np.array([(q.x, q.y) for q in pips]), np.array([q.polarity for q in pips]))


def test_a_twos_pip_is_not_taken_for_a_large_one():
    # A two of 30 px half-width, pips 12 px: its pips are one half-width apart on both axes, just
    # outside a large one's face (24 px) fitted to either of them.
    a, b = _pip(100, 100, 12), _pip(130, 130, 12)
    assert _crowded(_large_face(a), [a, b])
    assert _crowded(_large_face(b), [a, b])


def test_side_face_pips_specks_and_far_pips_do_not_crowd_a_large_one():
    one = _pip(100, 100, 16)  # face half-width 32
    side = _pip(100, 136, 10, roundness=0.35)  # a side face's pip, squashed, just past the edge
    speck = _pip(120, 90, 5)  # much smaller than the pip
    far = _pip(150, 100, 12)  # a touching die's pip, 1.6 half-widths away
    dark = Pip(110, 110, 100.0, 12, 12, 0.0, 0.7, 1)  # the other polarity
    assert not _crowded(_large_face(one), [one, side, speck, far, dark])


def _refusal(f: Face, pips: list[Pip]) -> str | None:
    """:func:`dice_d6._refusal` of ``f`` read as a one on a coloured body (chroma 0.5) ringed by a
    clear outline (a square of ``f``'s size, lighter than the table)."""
    img = np.zeros((200, 200), np.uint8)
    (x, y), w = f.center, f.half_width
    img[int(y - w):int(y + w), int(x - w):int(x + w)] = 120
    grad = dice_d6._gradients(img)
    xy = np.array([(q.x, q.y) for q in pips])
    pol = np.array([q.polarity for q in pips])
    return dice_d6._refusal(f, 1, 0.5, 100.0, False, 1.0, {id(f): 0.5}, pips, xy, pol, grad,
                            dice_d6._sampler(img), None)


def test_a_large_one_is_not_refused_for_a_side_faces_pip_on_its_face_but_for_a_like_pip():
    one = _pip(100, 100, 16)  # face half-width 32
    side = _pip(125, 75, 6, roundness=0.25)  # a side face's pip, squashed, inside the face's corner
    large = _large_face(one)
    usual = Face(large.frame, large.pips, 0.0, False)  # the same face, not a large one's
    assert _refusal(usual, [one, side]) == "shares"
    assert _refusal(large, [one, side]) is None
    like = _pip(125, 125, 14)  # a two's other pip
    assert _refusal(large, [one, like]) == "crowded"
