"""The overhead camera simulation: tidy non-overlapping tableaux, and frames with exact ground truth."""

from __future__ import annotations

import itertools

import cv2
import numpy as np
import pytest

from companion.rules.sushi_go.cards import VISION_LABELS
from companion.sim.faces import draw_card_face
from companion.sim.table import (
    Placement,
    ShotConditions,
    card_corners_mm,
    layout_tableaux,
    render_table,
    zone_capacity,
)
from companion.vision.mat_layout import load_mat_layout

#: The biggest tableau a player can realistically have per player count (cards dealt per round).
MAX_TABLEAU = {2: 14, 3: 13, 4: 12, 5: 11}


def _tableaux(players: int, n: int | None = None) -> list[list[str]]:
    n = MAX_TABLEAU[players] if n is None else n
    return [[VISION_LABELS[(i + s) % len(VISION_LABELS)] for i in range(n)] for s in range(players)]


def _overlap_area(a: np.ndarray, b: np.ndarray) -> float:
    area, _ = cv2.intersectConvexConvex(a.astype(np.float32), b.astype(np.float32))
    return float(area)


@pytest.mark.parametrize("players", [2, 3, 4, 5])
@pytest.mark.parametrize("seed", [None, 0, 1, 2])
def test_max_tableaux_fit_inside_their_zones_without_overlap(players, seed):
    layout = load_mat_layout(players)
    for zone in layout.zones:
        assert zone_capacity(zone, layout.card_mm) >= MAX_TABLEAU[players], zone.name
    rng = None if seed is None else np.random.default_rng(seed)
    placements = layout_tableaux(layout, _tableaux(players), rng)
    assert len(placements) == players * MAX_TABLEAU[players]
    quads = [card_corners_mm(p, layout.card_mm) for p in placements]
    for k, (p, q) in enumerate(zip(placements, quads)):
        zone = layout.zones[k // MAX_TABLEAU[players]]
        x, y, w, h = zone.rect_mm
        assert (q[:, 0] >= x).all() and (q[:, 0] <= x + w).all(), (zone.name, p)
        assert (q[:, 1] >= y).all() and (q[:, 1] <= y + h).all(), (zone.name, p)
        assert abs(p.angle_deg - zone.facing) <= 4.0
    for a, b in itertools.combinations(quads, 2):
        assert _overlap_area(a, b) < 1e-6


def test_labels_and_order_are_kept_and_first_card_is_at_the_players_left():
    layout = load_mat_layout(2)
    placements = layout_tableaux(layout, [["tempura", "sashimi"], ["pudding", "wasabi"]])
    assert [p.label for p in placements] == ["tempura", "sashimi", "pudding", "wasabi"]
    # Seat 1 sits at the bottom: its left is the mat's left. Seat 2 sits at the top, facing down.
    assert placements[0].center_mm[0] < placements[1].center_mm[0]
    assert placements[2].center_mm[0] > placements[3].center_mm[0]
    assert placements[2].angle_deg == 180


def test_jitter_is_deterministic():
    layout = load_mat_layout(4)
    a = layout_tableaux(layout, _tableaux(4), np.random.default_rng(7))
    b = layout_tableaux(layout, _tableaux(4), np.random.default_rng(7))
    assert a == b
    assert a != layout_tableaux(layout, _tableaux(4))


def test_too_many_cards_names_the_seat():
    layout = load_mat_layout(4)
    too_many = [["tempura"] * 3, ["tempura"] * 40]
    with pytest.raises(ValueError, match="Seat 2.*at most 18"):
        layout_tableaux(layout, too_many)
    with pytest.raises(ValueError, match="seats"):
        layout_tableaux(layout, [[]] * 5)


def test_card_corners_follow_the_face():
    tl, tr, br, bl = card_corners_mm(Placement("tempura", (100.0, 100.0), 180.0))
    # Turned 180°: the face's top-left corner is at the bottom-right on the mat.
    assert tl == pytest.approx((122.0, 131.5))
    assert br == pytest.approx((78.0, 68.5))
    tl, tr, _, _ = card_corners_mm(Placement("tempura", (0.0, 0.0), 90.0))
    # Turned 90° counter-clockwise (seen from above), the top edge runs up the left side.
    assert tl == pytest.approx((-31.5, 22.0))
    assert tr == pytest.approx((-31.5, -22.0))


def _detect_markers(img: np.ndarray) -> dict[int, np.ndarray]:
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    det = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50), params)
    corners, ids, _ = det.detectMarkers(img)
    return {} if ids is None else {int(i): c.reshape(4, 2) for i, c in zip(ids.ravel(), corners)}


@pytest.mark.parametrize("players,seed", [(2, 1), (3, 2), (4, 3), (5, 4), (4, 5), (4, 6)])
def test_rendered_frame_has_markers_and_truth_inside(players, seed):
    layout = load_mat_layout(players)
    rng = np.random.default_rng(seed)
    placements = layout_tableaux(layout, _tableaux(players), rng)
    frame = render_table(layout, placements, rng=rng)
    assert frame.image.shape == (960, 1280, 3) and frame.image.dtype == np.uint8
    assert frame.homography.shape == (3, 3) and frame.homography.dtype == np.float64
    assert len(frame.cards) == len(placements)
    for (label, quad), p in zip(frame.cards, placements):
        assert label == p.label
        assert quad.shape == (4, 2) and quad.dtype == np.float32
        assert (quad >= 0).all() and (quad[:, 0] < 1280).all() and (quad[:, 1] < 960).all()
    found = _detect_markers(frame.image)
    assert sorted(found) == [0, 1, 2, 3]
    for m in layout.markers:
        expected = cv2.perspectiveTransform(np.float64([m.corners_mm()]), frame.homography)[0]
        assert np.abs(found[m.id] - expected).max() < 1.5, m.id


def test_truth_quads_show_the_right_face_the_right_way_up():
    layout = load_mat_layout(2)
    labels = ["maki_3", "tempura", "back", "squid_nigiri"]
    placements = layout_tableaux(layout, [labels[:2], labels[2:]], np.random.default_rng(0))
    cond = ShotConditions(rotation_deg=3.0, tilt=(0.05, -0.05), noise_sigma=1.0)
    frame = render_table(layout, placements, rng=np.random.default_rng(0), conditions=cond)
    w, h = 88, 126
    canon = np.float32([[0, 0], [w, 0], [w, h], [0, h]]) - 0.5
    for label, quad in frame.cards:
        m = cv2.getPerspectiveTransform(quad, canon)
        crop = cv2.warpPerspective(frame.image, m, (w, h)).astype(np.float32)
        face = cv2.GaussianBlur(draw_card_face(label, w), (0, 0), 1.0).astype(np.float32)
        inner = (slice(6, h - 6), slice(6, w - 6))  # skip the anti-aliased rounded edge
        right = np.abs(crop[inner] - face[inner]).mean()
        if label != "back":
            assert right < np.abs(crop[inner] - face[::-1, ::-1][inner]).mean() - 10, label
        for other in set(VISION_LABELS) - {label}:
            wrong = cv2.GaussianBlur(draw_card_face(other, w), (0, 0), 1.0).astype(np.float32)
            assert right < np.abs(crop[inner] - wrong[inner]).mean(), (label, other)


def test_render_is_deterministic_for_a_seed():
    layout = load_mat_layout(3)
    placements = layout_tableaux(layout, _tableaux(3, 5), np.random.default_rng(1))
    a = render_table(layout, placements, size=(640, 480), rng=np.random.default_rng(9))
    b = render_table(layout, placements, size=(640, 480), rng=np.random.default_rng(9))
    assert np.array_equal(a.image, b.image)
    assert a.conditions == b.conditions
    c = render_table(layout, placements, size=(640, 480), rng=np.random.default_rng(10))
    assert not np.array_equal(a.image, c.image)


def test_random_conditions_keep_the_mat_in_frame():
    layout = load_mat_layout(5)
    rng = np.random.default_rng(123)
    for _ in range(30):
        cond = ShotConditions.random(rng)
        assert 70 <= cond.jpeg_quality <= 90
        frame = render_table(layout, [], size=(320, 240), rng=rng, conditions=cond)
        corners = cv2.perspectiveTransform(
            np.float64([[[0, 0], [layout.width_mm, 0], [layout.width_mm, layout.height_mm], [0, layout.height_mm]]]),
            frame.homography,
        )[0]
        assert (corners >= 0).all() and (corners[:, 0] < 320).all() and (corners[:, 1] < 240).all()


def test_unknown_label_raises():
    layout = load_mat_layout(2)
    with pytest.raises(ValueError, match="eel"):
        render_table(layout, [Placement("eel", (200.0, 500.0), 0.0)], rng=np.random.default_rng(0))
