"""Clear dice show the face below faintly through the top (issue #7 §1, the held-back phone photos
of translucent dice): a six's top shows the one beneath it at its centre, a bare place. A face whose
pips stand far clear reads its value despite such a ghost; a face of fewer pips, or a "ghost" as
dark as a pip, is still not read."""

from __future__ import annotations

import cv2
import numpy as np

from companion.vision import dice_d6
from companion.vision.dice_d6 import Face, Pip

BODY = 180  # grey level of the die body
HALF = 40.0  # face half-width, px
CENTRE = (100.0, 100.0)


def _face(places: list[int], ghosts: dict[int, float], pip_dark: float = 0.8):
    """A grey image of one face seen square on (pips at the 3 × 3 grid's ``places``, each
    ``pip_dark`` darker than the body as a fraction of it; ``ghosts`` place → darkness likewise),
    the fitted Face and its sampler."""
    img = np.full((200, 200), BODY, np.uint8)
    pts = dice_d6._PLACES * HALF + np.array(CENTRE)
    for k, dark in [(k, pip_dark) for k in places] + list(ghosts.items()):
        x, y = pts[k]
        cv2.circle(img, (int(x), int(y)), 6, int(round(BODY * (1 - dark))), -1)
    pips = tuple(Pip(float(pts[k][0]), float(pts[k][1]), np.pi * 36, 12.0, 12.0, 0.0, pip_dark, 1) for k in places)
    face = Face(np.array([[HALF, 0.0, CENTRE[0]], [0.0, HALF, CENTRE[1]]]), pips, 0.0)
    return face, dice_d6._sampler(img)


def _value(places, ghosts, pip_dark=0.8):
    face, sample = _face(places, ghosts, pip_dark)
    values, _, _ = dice_d6.read_faces([face], sample, np.array([1]))
    return values[0]


SIX = [0, 2, 3, 5, 6, 8]


def test_a_plain_six_reads_six():
    assert _value(SIX, {}) == 6


def test_a_six_over_the_faint_one_below_reads_six():
    # The one below at the centre, 0.35 below the body: the body's spread alone (> MAX_BODY_SPREAD)
    # made this face unread.
    assert _value(SIX, {4: 0.35}) == 6


def test_a_five_over_the_faint_two_below_reads_five():
    # The two below, shifted by the view, on the right edge's place and its bare middle.
    assert _value([0, 2, 4, 6, 8], {5: 0.35, 1: 0.3}) == 5


def test_a_mark_as_dark_as_half_the_pips_is_no_ghost():
    assert _value(SIX, {4: 0.5}) is None


def test_a_three_with_a_faint_mark_is_not_read():
    # A three fitted inside a larger face sees that face's other pips, half sampled, as faint
    # marks: a face of fewer than four pips gets no ghost allowance.
    assert _value([0, 4, 8], {2: 0.4}) is None


def test_a_six_with_the_table_showing_lighter_through_it_reads_six():
    # A lighter patch where the body should be plain (the table or the light seen through it).
    assert _value(SIX, {4: -0.35}) == 6
