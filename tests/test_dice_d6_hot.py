"""A very clear two is never read as a one; touching clear ones stay ones (issue #7 §1).

On a die 0.75–0.9 translucent under harsh light (``bench/gem_hot.py``) only each pip's core is
found, so a two's pips lie further apart in pip widths than one face's pips are grouped
(``dice_d6.GROUP_REACH``), or one of them, merged with the face below's ghost, is grouped apart
for its shape; each is then read as a lone one: a two read 1, a wrong value. A lone one whose like
pip lies a two's diagonal off (``dice_d6.far_mates``), where the two's face on the pair is outlined
and crosses no seam (``dice_d6._far_two``), is refused, and the pair is read as a two or reported
with no value. Two touching ones side by side have their pips about as far apart, so the rule must
leave them ones.
"""

from __future__ import annotations

import math
from pathlib import Path

import cv2
import numpy as np
import pytest
from benches import load_bench

from companion.vision import dice_d6
from companion.vision.dice_d6 import Face, Pip, read_d6


PHOTOS = Path(__file__).resolve().parent.parent.parent / "shared" / "datasets" / "d6-photos" / "train"


@pytest.fixture(scope="module")
def gem_hot():
    return load_bench("gem_hot")


def _read_on_dice(shot, readings):
    """Per drawn die (its true face, the values read with their centre on its top face), and the
    readings that lie on no die."""
    per_die = [(face, [o.face for o in readings if cv2.pointPolygonTest(np.float32(q), o.center, False) >= 0])
               for _, face, q in shot.dice]
    off = [o for o in readings if not any(cv2.pointPolygonTest(np.float32(q), o.center, False) >= 0
                                          for _, _, q in shot.dice)]
    return per_die, off


def test_see_through_twos_are_not_read_one(gem_hot):
    # The probe's tuning photos 300-311: 96 twos at 0.75-0.9 translucency, alone on wood under
    # harsh light (the reader before far_mates read 1 on a fifth of them). A 2 or no value is
    # acceptable; a 1 is a wrong value.
    read_one = []
    for seed in range(300, 312):
        shot = gem_hot.photo("two", seed)
        per_die, _ = _read_on_dice(shot, read_d6(shot.image))
        read_one += [(seed, values) for _, values in per_die if "1" in values]
    assert read_one == []


def test_touching_clear_ones_are_read_as_ones_or_not_at_all(gem_hot):
    # Pairs of clear ones side by side or corner to corner (the probe's tuning photos 300-309):
    # their pips lie about a two's diagonal apart. No die may read 2 or no value (a pair reported
    # as one null die has its centre on one of them or on the seam), and no reading may lie off
    # the dice.
    # Seed 633 (held out, looked at by the review): two ones side by side along their dice's
    # sides, 4 diameters apart and no seam found: without the edge-direction test (_off_edges,
    # FAR_TWO_MIN_DIAGONAL) they read as one 2 between them.
    bad = []
    for seed in [*range(300, 310), 633]:
        shot = gem_hot.photo("ones-near", seed)
        per_die, off = _read_on_dice(shot, read_d6(shot.image))
        bad += [(seed, values) for _, values in per_die if any(v != "1" for v in values)]
        bad += [(seed, "off", o.face) for o in off]
    assert bad == []


def test_far_two_refuses_pairs_of_touching_ones(gem_hot):
    # Every far pair the reader would try on the ones-near photos (a lone round pip and a like pip
    # of another group 3.3-5 diameters off) joins two dice: _far_two must make none a two, or the
    # ones on it are refused and the pair read as one die.
    tried = made = 0
    for seed in range(300, 320):
        shot = gem_hot.photo("ones-near", seed)
        img, _ = dice_d6.working_copy(shot.image, dice_d6.WORK_SIDE)
        grey = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
        grad = dice_d6._gradients(grey)
        groups = dice_d6.group_pips(dice_d6.find_pips(grey)) + dice_d6.group_pips(dice_d6.find_pips(grey, light=True))
        far = dice_d6.far_mates(groups)
        lone = {id(g[0]): g[0] for g in groups if len(g) == 1}
        quads = [np.float32(q) for _, _, q in shot.dice]

        def die_of(p: Pip) -> int | None:
            return next((k for k, q in enumerate(quads) if cv2.pointPolygonTest(q, (p.x, p.y), False) >= 0), None)

        for i, mates in far.items():
            p = lone[i]
            one = Face(np.array([[10.0, 0.0, p.x], [0.0, 10.0, p.y]]), (p,), 0.0)
            for q in mates:
                if die_of(p) is None or die_of(q) is None or die_of(p) == die_of(q):
                    continue  # a pip of one die only (its own ghost, a side face): not this test's
                tried += 1
                made += len(dice_d6._far_two(one, {i: (q,)}, img, grad, {}))
    assert tried >= 5  # the photos do hold such pairs (else the test shows nothing)
    assert made == 0


def _pip(x: float, y: float, d: float = 10.0, roundness: float = 1.0, contrast: float = 0.5, polarity: int = 1) -> Pip:
    area = math.pi * (d / 2) ** 2
    major = d / math.sqrt(roundness)
    return Pip(x, y, area, major, major * roundness, 0.0, contrast, polarity)


def test_far_mates_are_like_pips_a_twos_diagonal_off():
    p = _pip(100, 100)
    mate = _pip(100 + 4.3 * 10 / math.sqrt(2), 100 + 4.3 * 10 / math.sqrt(2))  # 4.3 diameters off
    near = _pip(120, 100)  # 2 diameters: a three's, five's or six's pip, grouped on its own
    larger = _pip(143, 100, d=14.4)  # a one's pip beside a two's: 1.44x
    light = _pip(100, 143, polarity=-1)
    far = _pip(160, 100)  # 6 diameters
    groups = [[p], [mate], [near], [larger], [light], [far]]
    found = dice_d6.far_mates(groups)
    assert [q for q in found[id(p)]] == [mate]
    # A pip with a partner in its own group is no lone one: it gets none.
    assert id(p) not in dice_d6.far_mates([[p, _pip(130, 100)], [mate]])
    # Nor is a pip grouped with others a mate (a side face's pip beside a one, on a webcam photo).
    assert id(p) not in dice_d6.far_mates([[p], [mate, _pip(mate.x + 20, mate.y)]])


def test_turned_face_puts_the_pair_on_its_sides():
    p, q = _pip(100, 100), _pip(140, 130)
    two = dice_d6._fit([p, q], 2)
    turned = dice_d6._turned_face(two)
    (a, b, tx), (c, d, ty) = turned.frame.tolist()
    det = a * d - b * c
    uv = sorted(((d * (r.x - tx) - b * (r.y - ty)) / det, (-c * (r.x - tx) + a * (r.y - ty)) / det) for r in (p, q))
    assert np.allclose(uv, [(-1.0, 0.0), (1.0, 0.0)], atol=1e-6)


@pytest.mark.skipif(not PHOTOS.is_dir(), reason="../shared/datasets/d6-photos is missing (the shared datasets sit "
                    "beside the repo)")
def test_a_far_pair_whose_one_another_rule_refused_is_no_die():
    # Real webcam photo dice_46: two dark specks on a black cable's plug (about (46, 410) and
    # (62, 421), 4.3 diameters apart) make a far pair; the one on a speck is refused "crowded",
    # not for the pair, so the pair may read 2 but is never reported as a die of no value.
    img = cv2.imread(str(PHOTOS / "dice_46.jpg"))
    assert img is not None
    near = [(o.face, o.center) for o in read_d6(img) if math.dist(o.center, (54.0, 416.0)) < 30]
    assert near == []
