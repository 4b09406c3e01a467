"""The card tracker's cheaper ways of doing its work give what the plain ways give.

A game turn's time was cut (bench/tracker_profile.py) by working things out only where they are
asked for, or with fewer numpy calls; each is checked here against the plain computation (the
whole-mat mask, numpy's own cross product) or against the renderer's truth (where a card's face
starts), never against its own output.
"""

from __future__ import annotations

import numpy as np
import pytest

from companion.sim.record import enroll_sim_deck
from companion.sim.table import ShotConditions, layout_tableaux, render_table
from companion.vision.cards import _cross3, _line_intersections
from companion.vision.deck import classify_quads
from companion.vision.mat_layout import load_mat_layout
from companion.vision.table_cards import _NotBare, _bare_mat, _rectified_lab, change_mask

CARDS = ["tempura", "sashimi", "dumpling", "maki_1", "maki_2", "egg_nigiri", "pudding", "wasabi"]


@pytest.fixture(scope="module")
def table():
    """A 4-player table, two cards a seat (seats face both ways), illustrated deck."""
    layout = load_mat_layout(4)
    rng = np.random.default_rng(3)
    places = layout_tableaux(layout, [CARDS[2 * s:2 * s + 2] for s in range(4)], rng=rng)
    frame = render_table(layout, places, size=(1280, 960), rng=rng, conditions=ShotConditions.random(rng),
                         style="illustrated")
    return layout, frame


def test_the_not_bare_mask_worked_out_by_region_is_the_whole_mats(table):
    layout, frame = table
    lab = _rectified_lab(frame.image, np.linalg.inv(frame.homography), layout)
    whole = change_mask(_bare_mat(lab), lab)
    h, w = whole.shape
    rng = np.random.default_rng(0)
    regions = [(0, 0, 40, 40), (w - 37, h - 52, w, h), (0, h // 2, 25, h // 2 + 70), (w // 2, 0, w // 2 + 60, 9)]
    # Regions whose edges cut through what differs from the bare mat (cards), where a region
    # worked out without the pixels round it would differ from the whole mat's mask.
    ys, xs = np.nonzero(whole)
    for k in rng.choice(len(xs), 40, replace=False):
        x0, y0 = max(0, int(xs[k]) - int(rng.integers(0, 30))), max(0, int(ys[k]) - int(rng.integers(0, 30)))
        regions.append((x0, y0, min(w, x0 + int(rng.integers(5, 80))), min(h, y0 + int(rng.integers(5, 80)))))
    mixed = 0
    for x0, y0, x1, y1 in regions:
        want = whole[y0:y1, x0:x1]
        assert np.array_equal(_NotBare(lab).at(x0, y0, x1, y1), want), (x0, y0, x1, y1)
        mixed += bool(want.any() and not want.all())
    assert mixed >= 20  # the regions do cut through cards
    # One mask asked region after region, overlapping, is the whole mask wherever it was asked.
    nb = _NotBare(lab)
    for x0, y0, x1, y1 in regions:
        nb.at(x0, y0, x1, y1)
    for x0, y0, x1, y1 in regions:
        assert np.array_equal(nb.at(x0, y0, x1, y1), whole[y0:y1, x0:x1])


def test_the_written_out_cross_product_is_numpys():
    rng = np.random.default_rng(1)
    a, b = rng.normal(0, 300, (50, 4, 3)), rng.normal(0, 300, (50, 4, 3))
    a[0, 0] = [np.inf, 1.0, 1.0]
    assert np.array_equal(_cross3(a, b), np.cross(a, b), equal_nan=True)


def test_corners_of_a_square_are_where_its_sides_meet():
    sq = np.array([[0.0, 0.0], [10.0, 0.0], [10.0, 10.0], [0.0, 10.0]])
    dirs = np.roll(sq, -1, axis=0) - sq  # side i runs from corner i to corner i + 1
    np.testing.assert_allclose(_line_intersections(sq + 0.3 * dirs, dirs), sq, atol=1e-5)


def test_a_quick_reading_starts_its_quad_at_the_face_top_left_either_way_round(table):
    _, frame = table
    deck = enroll_sim_deck(style="illustrated")
    quads = [q for _, q in frame.cards]
    for given in (quads, [np.roll(q, 2, axis=0) for q in quads], [np.roll(q, 1, axis=0) for q in quads]):
        got = classify_quads(frame.image, given, deck, settle=False, quick=True, card_sized=True)
        for (label, truth), r in zip(frame.cards, got):
            assert r.label == label or r.label.startswith("maki_") and label.startswith("maki_")
            assert float(np.abs(r.quad - truth).max()) < 1.0, (label, r.quad, truth)
