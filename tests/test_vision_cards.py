"""Finding and reading cards in whole table photos (our synthetic scenes and the simulator's frames)."""

from __future__ import annotations

import numpy as np
import pytest

from companion.rules.sushi_go.cards import UNKNOWN, VISION_LABELS
from companion.vision.cards import find_cards, order_quad, read_cards
from test_vision_synth import corner_error, match_truth, sim_deck, table_scene

LABELS = list(VISION_LABELS) + ["maki_1", "maki_2", "maki_3", "egg_nigiri", "squid_nigiri", "salmon_nigiri", "back"]


@pytest.mark.parametrize("kind,seed", [("plain", 1), ("dark", 2), ("felt", 3), ("blobs", 4)])
def test_reads_the_cards_on_plain_dark_and_busy_tables(kind, seed):
    img, truth = table_scene(LABELS, kind, seed=seed)
    obs = read_cards(img, sim_deck())
    pairs, extra = match_truth(obs, truth)
    # Nothing is invented: anything not on a card would have to be "unknown".
    assert all(o.label == UNKNOWN for o in extra), [(o.label, o.center) for o in extra]
    right = upright = 0
    for label, q, o in pairs:
        if o is None:
            continue
        assert o.label in (label, UNKNOWN), (label, o)  # never another card's name
        if o.label == label:
            right += 1
            # Where the card is: corners within 12 px either way round ...
            assert corner_error("back", q, o.quad) < 12.0, (label, o.quad, q)
            # ... and which way up it lies (corner 0 at the face's top-left), nearly always.
            upright += corner_error(label, q, o.quad) < 12.0
    assert right >= len(truth) - 2, f"{right}/{len(truth)} read"
    assert upright >= right - 1


def test_strong_wood_grain_finds_most_cards_and_never_mislabels():
    img, truth = table_scene(LABELS, "wood", seed=5)
    obs = read_cards(img, sim_deck())
    pairs, extra = match_truth(obs, truth)
    found = [(lb, o) for lb, _, o in pairs if o is not None]
    assert len(found) >= 0.8 * len(truth)
    assert all(o.label in (lb, UNKNOWN) for lb, o in found)
    assert all(o.label == UNKNOWN for o in extra)


def test_cards_a_few_mm_apart_stay_separate():
    img, truth = table_scene(LABELS[:12], "plain", seed=6, gap_mm=3.0)
    obs = read_cards(img, sim_deck())
    pairs, extra = match_truth(obs, truth)
    assert not extra
    assert sum(o is not None and o.label == lb for lb, _, o in pairs) >= 11


def test_an_empty_table_has_no_cards():
    img, _ = table_scene([], "wood", seed=7)
    assert read_cards(img, sim_deck()) == []
    img, _ = table_scene([], "plain", seed=7)
    assert find_cards(img) == []


def test_order_quad_is_clockwise_from_a_short_side():
    q = order_quad(np.array([[100, 0], [0, 0], [0, 63], [100, 63]], np.float32))  # landscape box
    side = np.linalg.norm(np.roll(q, -1, axis=0) - q, axis=1)
    assert side[0] < side[1]
    a, b = q[1] - q[0], q[2] - q[1]
    cross = a[0] * b[1] - a[1] * b[0]
    assert cross > 0  # clockwise on screen (y down)


def _sim_frames(n):
    from companion.sim.table import layout_tableaux, render_table
    from companion.vision.mat_layout import load_mat_layout

    labels = list(VISION_LABELS)
    for seed in range(n):
        rng = np.random.default_rng(1000 + seed)
        players = int(rng.integers(2, 6))
        layout = load_mat_layout(players)
        tableaux = [[labels[int(i)] for i in rng.integers(0, len(labels), 20 // players)] for _ in range(players)]
        yield render_table(layout, layout_tableaux(layout, tableaux, rng), rng=rng)


def test_simulator_frames_end_to_end():
    total = found = right = 0
    for frame in _sim_frames(3):
        obs = read_cards(frame.image, sim_deck())
        pairs, extra = match_truth(obs, frame.cards)
        assert all(o.label == UNKNOWN for o in extra), [(o.label, o.center) for o in extra]
        for label, q, o in pairs:
            total += 1
            if o is None:
                continue
            found += 1
            # A card that is found is never given another card's name.
            assert o.label in (label, UNKNOWN)
            if o.label == label:
                right += 1
                assert corner_error(label, q, o.quad) < 12.0
    assert right >= 0.85 * total, (right, found, total)


def test_outline_finder_shortcuts_match_opencv():
    """The finder's batch bounding boxes and row-by-row ellipse opening give OpenCV's own results
    (boundingRect; morphologyEx MORPH_OPEN with an elliptical kernel), the mask border included."""
    import cv2

    from companion.vision.cards import _boxes, _open_ellipse

    rng = np.random.default_rng(3)
    for k in (3, 9, 21, 25, 31):
        ell = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
        for _ in range(6):
            h, w = (int(v) for v in rng.integers(2, 120, 2))
            m = np.where(cv2.GaussianBlur((rng.random((h, w)) < 0.7).astype(np.uint8) * 255, (0, 0), 3) > 127,
                         255, 0).astype(np.uint8)
            assert np.array_equal(_open_ellipse(m, k), cv2.morphologyEx(m, cv2.MORPH_OPEN, ell))
            contours, _ = cv2.findContours(m, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
            boxes = _boxes(contours)
            assert boxes.shape == (len(contours), 5)
            for c, b in zip(contours, boxes):
                assert tuple(b[:4]) == cv2.boundingRect(c) and b[4] == len(c)
    assert _boxes(()).shape == (0, 5)
