"""A face read from pips placed wrongly (issue #7 §1): two pips of a blurred six's column taken for
a two's or three's diagonal leave the six's other column, merged into one blob, lying on the face
away from any place the value puts a pip. Such a face is not read (a miss, never a wrong value)."""

from __future__ import annotations

import numpy as np

from companion.vision import dice_d6
from companion.vision.dice_d6 import Face, Pip


def _pip(x, y, d=8.0, roundness=1.0, polarity=1):
    return Pip(x, y, np.pi * d * d / 4, d / np.sqrt(roundness), d * np.sqrt(roundness), 0.0, 0.6, polarity)


# A face of half-width 20 px at (100, 100), its two pips on the diagonal (places 0 and 8).
DIAGONAL = (_pip(90, 90), _pip(110, 110))
FACE = Face(np.array([[20.0, 0.0, 100.0], [0.0, 20.0, 100.0]]), DIAGONAL, 0.0)


def test_a_blob_in_a_bare_corner_makes_the_face_misplaced():
    bar = _pip(116, 84, d=15.0, roundness=0.22)  # u, v = 0.8, −0.8: no pip of a 2 or 3 there
    for value in (2, 3):
        assert dice_d6._stray_pip_inside(FACE, value, [*DIAGONAL, bar])


def test_pips_at_the_layouts_places_are_not_stray():
    centre = _pip(100, 100)
    assert not dice_d6._stray_pip_inside(FACE, 3, [*DIAGONAL, centre])  # a three's middle pip
    assert dice_d6._stray_pip_inside(FACE, 2, [*DIAGONAL, centre])  # ... is no place of a two's
    corner = _pip(110, 90)
    assert not dice_d6._stray_pip_inside(FACE, 4, [*DIAGONAL, corner])
    assert not dice_d6._stray_pip_inside(FACE, 3, [*DIAGONAL, corner])  # a three turned the other way
    edge = _pip(100, 85)  # u, v = 0, −0.75: between two places, on no layout of a 2, 3, 4 or 5
    for value in (2, 3, 4, 5):
        assert dice_d6._stray_pip_inside(FACE, value, [*DIAGONAL, edge])


def test_small_blobs_other_polarities_and_things_off_the_face_are_not_stray():
    assert not dice_d6._stray_pip_inside(FACE, 2, [*DIAGONAL, _pip(116, 84, d=5.0, roundness=0.4)])  # a side face's pip
    assert not dice_d6._stray_pip_inside(FACE, 2, [*DIAGONAL, _pip(116, 84, d=15.0, polarity=-1)])  # a glint
    assert not dice_d6._stray_pip_inside(FACE, 2, [*DIAGONAL, _pip(100, 125, d=15.0)])  # beyond the face
    assert not dice_d6._stray_pip_inside(FACE, 2, list(DIAGONAL))
