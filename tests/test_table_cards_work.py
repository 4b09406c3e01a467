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


def _plain_change_mask(before: np.ndarray, after: np.ndarray) -> np.ndarray:
    """The change map as its doc defines it, in float64 throughout: the weighted Lab distance
    |ΔL| + 2|Δa| + 2|Δb|, over max(CHANGE_MIN, CHANGE_NOISE × the median of every third pixel of
    every third row), then a 3 × 3 opening and a 5 × 5 closing."""
    import cv2

    from companion.vision.table_cards import CHANGE_MIN, CHANGE_NOISE

    d = np.abs(before.astype(np.float64) - after.astype(np.float64))
    dist = d[..., 0] + 2 * d[..., 1] + 2 * d[..., 2]
    level = max(CHANGE_MIN, CHANGE_NOISE * float(np.median(dist[::3, ::3])))
    m = (dist > level).astype(np.uint8) * 255
    m = cv2.morphologyEx(m, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    return cv2.morphologyEx(m, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))


def test_the_change_map_in_8_bits_is_the_plain_one(table):
    # The distances are worked out in 8 bits, saturating at 255: the same map wherever the threshold
    # is under 255, and the float distances where it is not.
    layout, frame = table
    lab = _rectified_lab(frame.image, np.linalg.inv(frame.homography), layout)
    bare = _bare_mat(lab)
    got = change_mask(bare, lab)
    assert got.any() and np.array_equal(got, _plain_change_mask(bare, lab))
    # Light that changed everywhere: every pixel 70 apart (median 70, threshold 280) and a block
    # 350 apart, over the threshold only unsaturated (255 < 280 < 350).
    before = np.full((90, 120, 3), (100, 128, 128), np.uint8)
    after = before.copy()
    after[..., 0] += 70
    after[30:60, 40:80] = (250, 228, 128)  # ΔL 150, Δa 100: 350
    want = _plain_change_mask(before, after)
    assert want[30:60, 40:80].all() and not want[:20].any()
    assert np.array_equal(change_mask(before, after), want)
    # ... and where a card is laid on unchanged light, a few distances saturate (over 255) while
    # the threshold stays CHANGE_MIN.
    after = before.copy()
    after[10:40, 10:30] = (20, 200, 30)  # ΔL 80, Δa 72, Δb 98: 420
    after[50:80, 60:100] = (104, 130, 127)  # 4 + 4 + 2 = 10: under CHANGE_MIN
    want = _plain_change_mask(before, after)
    assert want[10:40, 10:30].all() and not want[50:80, 60:100].any()
    assert np.array_equal(change_mask(before, after), want)
    # The not-bare mask made region by region at a threshold over 255 (the float distances).
    before[:] = (100, 128, 128)
    after = before.copy()
    after[..., 0] += 70
    after[30:60, 40:80] = (250, 228, 128)
    nb = _NotBare(after)
    nb._bare, nb._level = before, 280.0
    assert np.array_equal(nb.at(0, 0, 120, 90), _plain_change_mask(before, after))


def test_the_not_bare_masks_own_threshold_is_the_whole_masks():
    # The not-bare mask works out its threshold itself (_change_level, not set by hand as above):
    # from every third pixel of every third row, as change_mask's. A frame whose every ninth pixel of
    # every ninth row changed much more than the rest tells a sample of only those from it (the review
    # of trk37: a double thinning sampled only those, so the threshold rose over the card's change).
    from companion.vision.table_cards import _change_level

    rng = np.random.default_rng(5)
    before = np.full((180, 240, 3), (120, 128, 128), np.uint8)
    after = before.copy()
    after[..., 0] += rng.integers(0, 19, after.shape[:2], dtype=np.uint8)  # noise: median 9, level 36
    after[::9, ::9, 0] = 190  # specks 70 apart (the opening takes them out of the mask)
    after[60:120, 80:130] = (200, 170, 128)  # a card: 80 + 84 apart
    want = _plain_change_mask(before, after)
    assert want[70:110, 90:120].all()  # the card is in the whole mask
    nb = _NotBare(after)
    nb._bare = before
    nb._level = _change_level(before, after)
    assert np.array_equal(nb.at(0, 0, 240, 180), want)


def test_the_level_looks_templates_made_once_are_the_plain_ones():
    # The level look's unit region rows are made once per label, blur and region; a second card's
    # look (another region too) gets what the plain formula gives.
    deck = enroll_sim_deck(style="illustrated")
    a, b = sorted(deck._regions)[0]
    region = deck._regions[(a, b)]
    for reg in (region, region, ~region):
        for sigma, chroma in ((0.0, 0.0), (1.0, 0.0), (1.0, 1.5), (1.0, 1.5)):
            rows = deck._fine_blurred(a, sigma, chroma)
            want = rows[:, :, reg].reshape(len(rows), -1).astype(np.float64)
            want /= np.sqrt((rows.reshape(len(rows), -1).astype(np.float64) ** 2).sum(axis=1))[:, None]
            t, tt = deck._level_templates(a, sigma, chroma, reg, reg.tobytes())
            assert t.shape == want.shape and np.allclose(t, want, rtol=1e-5, atol=1e-7)
            assert np.allclose(tt, (want ** 2).sum(axis=1), rtol=1e-5)
    # Which labels have look-alike templates: as the deck's own rows say.
    for k in range(-1, len(deck.labels) + 1):
        assert deck._has_fine(k) == bool(np.any(deck.fine_label == k))


def test_card_patches_refuses_an_image_it_cannot_warp_into_place():
    # Patches are warped straight into one uint8 array: any other image would leave it unwritten.
    from companion.vision.deck import card_patches

    quad = np.array([[10, 10], [70, 10], [70, 96], [10, 96]], np.float32)
    for image in (np.full((120, 90, 3), 100, np.float32), np.full((120, 90), 100, np.uint8)):
        with pytest.raises(ValueError, match="uint8"):
            card_patches(image, [quad])
    assert (card_patches(np.full((120, 90, 3), 100, np.uint8), [quad]) == 100).all()
