"""A two in a row of touching clear dice of other colours is never read as a one (issue #7 §1).

The row's white pips are all alike, so they make one group, which the reader splits in two
(``dice_d6._two_means``); the split may part a two's pips, each then alone in its part and
read as a one: a two read 1, or as two ones, one on each pip (a wrong sum). A two's pips lie on
one face with no seam between them, so a face with one round pip whose like, alike-sized group
mate lies off it across no seam (``dice_d6._two_mate``) is refused ("paired"): such a two is
read 2 or not at all.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from companion.vision import dice_d6
from companion.vision.dice_d6 import read_d6
from tests.test_dice_d6_gem39 import _ONE_ROWS, _rows

#: Rows with a two beside or between dice of other colours (drawn by ``_rows``: faces 60–80 px).
_TWO_ROWS = [("3", "2", "4"), ("2", "5"), ("6", "2", "1"), ("2", "2"), ("2", "1", "2"), ("4", "2", "6")]


def _readings_on(scene, readings):
    """Each drawn die's true face and the values read with their centre on its top face; and the
    readings with a value that lie on no die."""
    per_die = [(face, [o.face for o in readings if o.face is not None
                       and cv2.pointPolygonTest(np.float32(q), o.center, False) >= 0])
               for _, face, q in scene.dice]
    stray = [o for o in readings if o.face is not None
             and not any(cv2.pointPolygonTest(np.float32(q), o.center, False) >= 0 for _, _, q in scene.dice)]
    return per_die, stray


def test_a_two_among_touching_clear_dice_is_read_two_or_not_at_all():
    # On the old reader seeds 1, 2 and 3 read the first row's two as two ones (one on each pip),
    # seed 0 the last row's two as a one.
    for seed in (0, 1, 2, 3):
        scene = _rows(seed, _TWO_ROWS)
        per_die, _ = _readings_on(scene, read_d6(scene.image))
        for face, got in per_die:
            if face == "2":
                assert got in ([], ["2"]), f"seed {seed}: a two read {got}"


def test_no_wrong_value_and_no_stray_die_in_rows_of_touching_clear_dice():
    # Every reading with a value lies on a die of that value, one per die (the old reader read
    # 8 of these 24 twos as ones).
    for seed in range(4, 8):
        scene = _rows(seed, _TWO_ROWS)
        per_die, stray = _readings_on(scene, read_d6(scene.image))
        assert not stray, f"seed {seed}: {[(o.face, o.center) for o in stray]} on no die"
        wrong = [(face, got) for face, got in per_die if got not in ([], [face])]
        assert not wrong, f"seed {seed}: {wrong}"


def test_a_one_touching_dice_of_other_colours_is_still_read():
    # The refusal asks for a mate of like size across no seam: a one's pip is larger than the
    # touching dice's (seed 3: a six's pips, 0.72 of the one's, showed almost no seam), so the
    # ones gem39 read are read still.
    scene = _rows(3, _ONE_ROWS)
    per_die, stray = _readings_on(scene, read_d6(scene.image))
    assert not stray
    ones = [got for face, got in per_die if face == "1"]
    assert sum(got == ["1"] for got in ones) >= 4, ones


def _pip(x: float, y: float, d: float = 10.0) -> dice_d6.Pip:
    return dice_d6.Pip(x, y, math.pi * d * d / 4, d, d, 0.0, 0.6, -1)


def test_group_mates_are_alike_round_pips_linked_in_one_group():
    a, b = _pip(100, 100), _pip(135, 100)  # 3.5 diameters apart: linked
    big = _pip(100, 135, 13.0)  # a one's pip, 1.3× the others: no two's partner
    far = _pip(100, 160)  # 6 diameters from a: not linked to it
    squashed = dice_d6.Pip(130, 130, math.pi * 25, 14.0, 7.0, 0.0, 0.6, -1)  # a side face's
    mates = dice_d6.group_mates([[a, b, big, far, squashed]])
    assert [id(q) for q in mates[id(a)]] == [id(b)]
    assert id(big) not in mates
    assert id(squashed) not in mates


def test_a_face_with_its_pips_partner_across_no_seam_is_refused_and_across_a_seam_kept():
    # Two white pips on one plain red body (a two) and two on bodies of unlike colours (a red
    # die touching a blue one): a face of the first pip alone leaves its partner off across no
    # seam (refused); the second pair's seam shows (kept).
    img = np.full((200, 400, 3), (40, 40, 190), np.uint8)
    img[:, 285:] = (190, 60, 30)
    for x, y in ((60, 80), (90, 110), (270, 80), (300, 110)):
        cv2.circle(img, (x, y), 6, (245, 245, 245), -1, cv2.LINE_AA)
    # 3.5 diameters apart, as a two's diagonal.
    a, b, c, d = _pip(60, 80, 12.0), _pip(90, 110, 12.0), _pip(270, 80, 12.0), _pip(300, 110, 12.0)
    mates = dice_d6.group_mates([[a, b], [c, d]])
    frame = lambda p: np.array([[24.0, 0.0, p.x], [0.0, 24.0, p.y]])  # noqa: E731
    assert dice_d6._two_mate(dice_d6.Face(frame(a), (a,), 0.0, True), mates, img, {})
    assert not dice_d6._two_mate(dice_d6.Face(frame(c), (c,), 0.0, True), mates, img, {})
    # A pair's pip tried as a one (its partner the other pip) is left to _top_faces: two touching
    # ones whose seam does not show are read as ones there (test_dice_d6_touching seed 2).
    paired = dice_d6.Face(frame(a), (a,), 0.0, True, (b,))
    assert not dice_d6._two_mate(paired, mates, img, {})
    # A two's face holding both pips leaves no partner off.
    two = dice_d6._fit([a, b], 2)
    assert not dice_d6._two_mate(two, mates, img, {})
