"""The card tracker's CPU cuts of branch spd40 (companion.vision.table_cards) give what the per-item
code they replace gives, value for value: corners of all windows at once against ``cv2.boxPoints``
one at a time, their boxes against ``_bbox``, the zone test of all window centres against
``MatLayout.zone_at``, the window list against the per-centre loop, the inverse homography made
once against ``np.linalg.inv`` (and made again when the homography changes, even in place), and
``classify_quads`` of an array against the same quads as a list.
"""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from companion.sim.record import enroll_sim_deck
from companion.sim.table import Placement, ShotConditions, render_table
from companion.vision import table_cards
from companion.vision.mat_layout import load_mat_layout
from companion.vision.table_cards import CardTracker


def _rects(rng, n: int) -> list[tuple]:
    """Rects as the tracker makes them: Python floats, numpy float64 and float32 turns mixed."""
    out = []
    for k in range(n):
        angle = [0.0, float(rng.uniform(-45, 45)), np.float32(rng.uniform(-90, 0)), np.float64(rng.uniform(-4, 4))][k % 4]
        out.append(((float(rng.uniform(0, 900)), float(rng.uniform(0, 600))),
                    (44.0, 63.0) if k % 2 else (63.0, 44.0), angle))
    return out


def test_window_corners_at_once_are_boxpoints_bit_for_bit():
    rng = np.random.default_rng(40)
    rects = _rects(rng, 400)
    got = table_cards._rect_corners(rects)
    want = np.stack([cv2.boxPoints(r) for r in rects]).astype(np.float32)
    assert got.dtype == np.float32 and got.shape == (400, 4, 2)
    assert got.tobytes() == want.tobytes()


def test_boxes_at_once_are_each_quads_bbox():
    rng = np.random.default_rng(41)
    quads = table_cards._rect_corners(_rects(rng, 200))
    got = table_cards._bboxes(quads)
    assert got == [table_cards._bbox(q) for q in quads]
    assert all(type(v) is float for b in got for v in b)


def test_overlap_asked_with_a_given_box_is_the_same_answer():
    rng = np.random.default_rng(42)
    quads = table_cards._rect_corners(_rects(rng, 60))
    boxes = table_cards._bboxes(quads)
    plain, given = table_cards._Quads(), table_cards._Quads()
    answers = []
    for q, b in zip(quads, boxes):
        a, g = plain.any_over(q, 300.0), given.any_over(q, 300.0, b)
        answers.append(a)
        assert a == g
        if not a:
            plain.add(q)
            given.add(q, b)
    assert any(answers) and not all(answers)  # both outcomes were asked


@pytest.mark.parametrize("players", [4, 5])
def test_zone_test_at_once_is_zone_at_edges_included(players):
    layout = load_mat_layout(players)
    rng = np.random.default_rng(players)
    xs = list(rng.uniform(-20, layout.width_mm + 20, 3000))
    ys = list(rng.uniform(-20, layout.height_mm + 20, 3000))
    for z in layout.zones:  # every corner and edge midpoint, and a hair either side
        x, y, w, h = z.rect_mm
        for px in (x, x + w / 2, x + w):
            for py in (y, y + h / 2, y + h):
                for dx, dy in ((0, 0), (-1e-9, 0), (1e-9, 0), (0, -1e-9), (0, 1e-9)):
                    xs.append(px + dx)
                    ys.append(py + dy)
    xs, ys = np.array(xs, np.float64), np.array(ys, np.float64)
    got = layout.in_zones(xs, ys)
    want = np.array([layout.zone_at(float(x), float(y)) is not None for x, y in zip(xs, ys)])
    assert np.array_equal(got, want)
    assert got.any() and not got.all()


def _windows_one_by_one(tracker: CardTracker, pts_mm: np.ndarray, rect: tuple) -> list[tuple]:
    """The window list as the per-centre loop made it (the reference)."""
    cw, ch = tracker.layout.card_mm
    angles = tracker._own_turns(rect) or {0.0}
    out = []
    for landscape in sorted({z.facing % 180 == 90 for z in tracker.layout.zones}):
        w, h = (ch, cw) if landscape else (cw, ch)
        for angle in sorted(angles):
            c, si = np.cos(np.radians(angle)), np.sin(np.radians(angle))
            u = pts_mm[:, 0] * c + pts_mm[:, 1] * si
            v = -pts_mm[:, 0] * si + pts_mm[:, 1] * c
            step = table_cards.WINDOW_STEP_MM
            us = table_cards._centres(float(u.min()), float(u.max()), w, step)
            vs = table_cards._centres(float(v.min()), float(v.max()), h, step)
            while len(us) * len(vs) > table_cards.MAX_WINDOWS:
                step *= 1.25
                us = table_cards._centres(float(u.min()), float(u.max()), w, step)
                vs = table_cards._centres(float(v.min()), float(v.max()), h, step)
            for cu in us:
                for cv_ in vs:
                    x, y = cu * c - cv_ * si, cu * si + cv_ * c
                    if tracker.layout.zone_at(float(x), float(y)) is not None:
                        out.append(((float(x), float(y)), (w, h), angle))
    return out


@pytest.mark.parametrize("players", [4, 5])
def test_windows_of_a_blob_are_the_per_centre_loops(players):
    layout = load_mat_layout(players)
    tracker = CardTracker(layout, deck=None)
    rng = np.random.default_rng(100 + players)
    cw, ch = layout.card_mm
    kinds = 0
    for k in range(60):
        z = layout.zones[k % len(layout.zones)]
        x, y, w, h = z.rect_mm
        centre = np.array([rng.uniform(x, x + w), rng.uniform(y, y + h)])
        if k % 3 == 0:  # card-shaped, turned: searched at its own turn(s)
            size, turn = (cw, ch), rng.uniform(-40, 40)
        elif k % 3 == 1:  # a small blob: square to the mat
            size, turn = (0.5 * cw, 0.4 * ch), rng.uniform(-10, 10)
        else:  # a big blob (a whole new tableau): sparser windows
            size, turn = (5 * cw, 1.5 * ch), 0.0
        # Points filling the turned rectangle (a blob of change, mm).
        uv = rng.uniform(-0.5, 0.5, (800, 2)) * np.array(size)
        t = np.radians(turn)
        rot = np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])
        pts = (uv @ rot.T + centre).astype(np.float32)
        rect = cv2.minAreaRect(pts)
        got = tracker._windows(pts, rect)
        want = _windows_one_by_one(tracker, pts, rect)
        assert got == want
        assert all(type(v) is float for (c, _, _) in got for v in c)
        kinds += bool(got)
    assert kinds > 30


def test_the_inverse_homography_is_made_again_when_the_homography_changes():
    tracker = CardTracker(load_mat_layout(4), deck=None)
    rng = np.random.default_rng(7)
    h = np.eye(3) + rng.normal(0, 0.01, (3, 3))
    first = tracker._inverse(h)
    assert first.tobytes() == np.linalg.inv(h).tobytes()
    assert tracker._inverse(h.copy()) is first  # the same homography: made once
    other = h + rng.normal(0, 0.01, (3, 3))
    assert tracker._inverse(other).tobytes() == np.linalg.inv(other).tobytes()
    # The same array changed in place (a tracker's homography updated where it lies) is a new one.
    h[0, 2] += 5.0
    assert tracker._inverse(h).tobytes() == np.linalg.inv(h).tobytes()
    assert tracker._inverse(h).tobytes() != first.tobytes()


def test_a_singular_homography_is_refused_every_time_and_leaves_no_stale_inverse():
    # The review's case: a failed inversion must not leave the new homography beside the old inverse.
    tracker = CardTracker(load_mat_layout(4), deck=None)
    good = np.eye(3)
    good[0, 2] = 12.0
    tracker._inverse(good)
    singular = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [0.0, 0.0, 1.0]])
    for _ in range(2):
        with pytest.raises(np.linalg.LinAlgError):
            tracker._inverse(singular)
    assert tracker._inverse(good).tobytes() == np.linalg.inv(good).tobytes()


@pytest.mark.parametrize("quick", [True, False])
def test_classify_quads_of_an_array_is_of_the_same_quads_as_a_list(quick):
    from companion.vision.deck import classify_quads

    deck = enroll_sim_deck(style="flat")
    layout = load_mat_layout(4)
    rng = np.random.default_rng(5)
    frame = render_table(layout, [Placement("maki_2", (300, 250), 3.0), Placement("sashimi", (520, 330), -2.0)],
                         rng=rng, conditions=ShotConditions.random(rng))
    quads = np.stack([q for _, q in frame.cards] + [q + 3.5 for _, q in frame.cards]).astype(np.float32)
    as_list = classify_quads(frame.image, list(quads), deck, settle=not quick, quick=quick, card_sized=True)
    as_array = classify_quads(frame.image, quads, deck, settle=not quick, quick=quick, card_sized=True)
    assert [(r.label, r.confidence, r.score, r.quad.tobytes(), r.scores.tobytes()) for r in as_list] == \
        [(r.label, r.confidence, r.score, r.quad.tobytes(), r.scores.tobytes()) for r in as_array]
    assert {r.label for r in as_list[:2]} == {"maki_2", "sashimi"}  # read right (not a vacuous equality)
    assert classify_quads(frame.image, quads[:0], deck) == []


def test_the_rectified_frames_shorter_blur_gives_the_same_pixels():
    # The size _rectified_lab blurs with gives what OpenCV's own size gives, on a whole rendered mat
    # and on a large random image.
    if table_cards._blur_ksize() != (5, 5):
        pytest.skip("this OpenCV's 5-tap blur differs from its own: the tracker keeps OpenCV's size")
    layout = load_mat_layout(4)
    rng = np.random.default_rng(11)
    frame = render_table(layout, [Placement("tempura", (300, 250), 2.0)], rng=rng, conditions=ShotConditions.random(rng))
    to_mm = np.linalg.inv(frame.homography)  # (the renderer's homography is mat mm → image px)
    size = (int(round(layout.width_mm)), int(round(layout.height_mm)))
    mat = cv2.warpPerspective(frame.image, to_mm, size, flags=cv2.INTER_AREA)
    rand = rng.integers(0, 256, (300, 400, 3), dtype=np.uint8)
    for img in (mat, rand):
        assert np.array_equal(cv2.GaussianBlur(img, table_cards._blur_ksize(), table_cards.RECTIFIED_SIGMA),
                              cv2.GaussianBlur(img, (0, 0), table_cards.RECTIFIED_SIGMA))
    lab = table_cards._rectified_lab(frame.image, to_mm, layout)
    want = cv2.cvtColor(cv2.GaussianBlur(mat, (0, 0), 0.8), cv2.COLOR_BGR2Lab)
    assert lab.tobytes() == want.tobytes()


@pytest.mark.parametrize("sigma", [0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 1.0, 1.2])
@pytest.mark.parametrize("ksize", [(3, 3), (5, 5)])
def test_the_blur_probe_tells_a_kernel_that_differs(sigma, ksize):
    # The probe says "the same" exactly where a large random image's blur is the same: it is not
    # fooled by a shorter kernel whose taps differ (sigma 1.0 and up, or 3 taps).
    rand = np.random.default_rng(int(sigma * 100)).integers(0, 256, (400, 400, 3), dtype=np.uint8)
    same = np.array_equal(cv2.GaussianBlur(rand, (0, 0), sigma), cv2.GaussianBlur(rand, ksize, sigma))
    assert table_cards._same_blur(sigma, ksize) == same
    if (sigma, ksize) in (((1.0, (5, 5))), (0.8, (3, 3))):
        assert not same  # (cases where the kernels do differ are among those asked)
