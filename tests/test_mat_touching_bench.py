"""``bench/mat_touching.py``'s generator lays each marker's card where it says: at the asked gap from
the marker's black square (or over it), along the asked direction, and drawn last in its frame."""

from __future__ import annotations

import math

import numpy as np

from benches import load_bench
from companion.sim.table import card_corners_mm
from companion.vision.mat_layout import load_mat_layout


def test_a_card_beside_a_marker_lies_at_its_gap_and_is_drawn_where_placed():
    mt = load_bench("mat_touching")
    layout = load_mat_layout(4)
    for marker, gap, angle, direction in ((0, 2.0, 30.0, 45), (2, 0.0, 70.0, 180), (3, -3.0, 10.0, 270)):
        card = mt.beside(layout, marker, "tempura", gap, angle, direction)
        square = layout.markers[marker].corners_mm()
        dist = mt.poly_dist(card_corners_mm(card, layout.card_mm), square)
        if gap >= 0:
            assert abs(dist - gap) < 0.01, (marker, gap, dist)
        else:
            assert dist < 0, (marker, gap, dist)  # pushed over the square
        off = np.float64(card.center_mm) - np.float64(layout.markers[marker].center_mm)
        assert abs(math.degrees(math.atan2(off[1], off[0])) % 360 - direction) < 0.01
    name, image, truth = next(mt.adj_scenes((1,), (20,), "flat", "t"))
    assert image.shape == (960, 1280, 3) and len(truth) == 20 + 3 and name.startswith("t0:m0g1a20d0")
    # The three placed cards are drawn last, labelled as the walk of CARDS says.
    assert [label for label, _ in truth[-3:]] == [mt.CARDS[0], mt.CARDS[5], mt.CARDS[10]]
