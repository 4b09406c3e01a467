"""Mat tracking on synthetic camera frames: homography accuracy, zones, occlusion, moves, bad frames.

The frames are drawn here (markers from cv2.aruco.generateImageMarker on a white mat, warped
into a camera view by a known homography) so these tests do not depend on companion.sim.
"""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from companion.vision.mat import MatStatus, MatTracker, assign_to_zones, to_mat_mm
from companion.vision.mat_layout import load_mat_layout
from companion.vision.observations import CardObservation

FRAME_WH = (1280, 960)
PX_PER_MM = 2.0  # resolution of the flat mat canvas before it is warped into the camera view


def camera_homography(shift=(0.0, 0.0), layout=None):
    """A perspective mat mm → image px: the mat seen from above and a little in front, tilted."""
    layout = layout or load_mat_layout(4)
    w, h = layout.width_mm, layout.height_mm
    src = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    dx, dy = shift
    dst = np.float32([[190, 150], [1110, 120], [1220, 860], [70, 830]]) + np.float32([dx, dy])
    return cv2.getPerspectiveTransform(src, dst).astype(np.float64)


def render_frame(layout, mm_to_px, cover=(), noise=0.0, seed=0):
    """A (H, W, 3) uint8 BGR frame of the mat; ``cover`` lists marker ids hidden by a 'hand'."""
    cw, ch = int(layout.width_mm * PX_PER_MM), int(layout.height_mm * PX_PER_MM)
    canvas = np.full((ch, cw, 3), 235, np.uint8)  # off-white mat
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    for m in layout.markers:
        side = int(round(m.size_mm * PX_PER_MM))
        img = cv2.aruco.generateImageMarker(dictionary, m.id, side)
        x0 = int(round((m.center_mm[0] - m.size_mm / 2) * PX_PER_MM))
        y0 = int(round((m.center_mm[1] - m.size_mm / 2) * PX_PER_MM))
        canvas[y0 : y0 + side, x0 : x0 + side] = img[:, :, None]
    for z in layout.zones:  # zone outlines, as printed on the mat
        x, y, w, h = (int(v * PX_PER_MM) for v in z.rect_mm)
        cv2.rectangle(canvas, (x, y), (x + w, y + h), (160, 120, 90), 3)
    # canvas pixel i covers mm [i, i + 1] / PX_PER_MM, so its centre is at (i + 0.5) / PX_PER_MM
    s = 1 / PX_PER_MM
    canvas_to_px = mm_to_px @ np.array([[s, 0, 0.5 * s], [0, s, 0.5 * s], [0, 0, 1.0]])
    frame = cv2.warpPerspective(
        canvas, canvas_to_px, FRAME_WH, flags=cv2.INTER_LINEAR, borderValue=(60, 70, 80)
    )
    for marker_id in cover:
        m = next(m for m in layout.markers if m.id == marker_id)
        cx, cy = to_mat_mm(mm_to_px, m.center_mm)[0]
        cv2.circle(frame, (int(cx), int(cy)), 70, (120, 150, 190), -1)  # a hand
    if noise:
        rng = np.random.default_rng(seed)
        frame = np.clip(frame + rng.normal(0, noise, frame.shape), 0, 255).astype(np.uint8)
    return frame


@pytest.fixture(scope="module")
def layout():
    return load_mat_layout(4)


def test_homography_maps_marker_centres_within_1mm(layout):
    mm_to_px = camera_homography()
    status = MatTracker(layout).update(render_frame(layout, mm_to_px))
    assert status.found and status.reestimated
    assert status.markers_seen == (0, 1, 2, 3)
    assert status.homography.shape == (3, 3) and status.homography.dtype == np.float64
    for m in layout.markers:
        px = to_mat_mm(mm_to_px, m.center_mm)
        got = to_mat_mm(status.homography, px)[0]
        assert np.hypot(*(got - m.center_mm)) < 1.0, (m.id, got)
    # and far from the markers too: the mat's centre and the zone corners, within ~2 mm
    probes = [(layout.width_mm / 2, layout.height_mm / 2)]
    for z in layout.zones:
        x, y, w, h = z.rect_mm
        probes += [(x, y), (x + w, y + h)]
    probes = np.array(probes)
    got = to_mat_mm(status.homography, to_mat_mm(mm_to_px, probes))
    assert np.max(np.linalg.norm(got - probes, axis=1)) < 2.0


def card_at(layout, mm_to_px, x_mm, y_mm, label="tempura"):
    """A card observation whose quad (image px) is a card centred at (x_mm, y_mm) on the mat."""
    cw, ch = layout.card_mm
    mm = np.array([[x_mm - cw / 2, y_mm - ch / 2], [x_mm + cw / 2, y_mm - ch / 2],
                   [x_mm + cw / 2, y_mm + ch / 2], [x_mm - cw / 2, y_mm + ch / 2]])
    quad = tuple(tuple(map(float, p)) for p in to_mat_mm(mm_to_px, mm))
    return CardObservation(label, 0.9, quad)


def test_zone_assignment(layout):
    mm_to_px = camera_homography()
    status = MatTracker(layout).update(render_frame(layout, mm_to_px))
    cards = []
    for z in layout.zones:
        x, y, w, h = z.rect_mm
        cards.append(card_at(layout, mm_to_px, x + w / 2, y + h / 2, label=f"seat{z.seat}"))
    outside = card_at(layout, mm_to_px, layout.width_mm / 2, layout.height_mm / 2, label="middle")
    zones = assign_to_zones(layout, status.homography, cards + [outside])
    assert set(zones) == {0, 1, 2, 3, None}
    for z in layout.zones:
        assert [c.label for c in zones[z.seat]] == [f"seat{z.seat}"]
    assert [c.label for c in zones[None]] == ["middle"]


def test_zone_assignment_empty_and_without_homography(layout):
    assert assign_to_zones(layout, np.eye(3), []) == {0: [], 1: [], 2: [], 3: [], None: []}
    with pytest.raises(ValueError, match="not been found"):
        assign_to_zones(layout, None, [])


def test_missing_markers_say_so_and_change_nothing(layout):
    tracker = MatTracker(layout)
    blank = np.full((960, 1280, 3), 128, np.uint8)
    status = tracker.update(blank)
    assert not status.found and status.homography is None
    assert status.message == "mat not found: saw markers [] of 4"
    # two markers only: still not enough (min 3)
    status = tracker.update(render_frame(layout, camera_homography(), cover=(1, 2)))
    assert not status.found and status.homography is None
    assert status.markers_seen == (0, 3)
    assert status.message.startswith("mat not found: saw markers [0, 3] of 4")
    assert tracker.homography is None


def test_three_markers_are_enough(layout):
    mm_to_px = camera_homography()
    status = MatTracker(layout).update(render_frame(layout, mm_to_px, cover=(2,)))
    assert status.found and status.markers_seen == (0, 1, 3)
    m = layout.markers[2]  # the hidden one is extrapolated, still far below a card's size (44 mm)
    got = to_mat_mm(status.homography, to_mat_mm(mm_to_px, m.center_mm))[0]
    assert np.hypot(*(got - m.center_mm)) < 2.0


def test_keeps_homography_through_brief_occlusion_and_noise(layout):
    mm_to_px = camera_homography()
    tracker = MatTracker(layout)
    first = tracker.update(render_frame(layout, mm_to_px))
    assert first.found
    hidden = tracker.update(render_frame(layout, mm_to_px, cover=(0, 1)))
    assert not hidden.found
    assert hidden.markers_seen == (2, 3)
    assert "keeping the last mat position" in hidden.message
    np.testing.assert_array_equal(hidden.homography, first.homography)
    # back again, with sensor noise: same mat position, so the kept homography is reused exactly
    again = tracker.update(render_frame(layout, mm_to_px, noise=4.0, seed=1))
    assert again.found and not again.reestimated
    assert again.drift_px is not None and again.drift_px <= tracker.move_threshold_px
    np.testing.assert_array_equal(again.homography, first.homography)


def test_returned_homography_is_a_copy(layout):
    tracker = MatTracker(layout)
    status = tracker.update(render_frame(layout, camera_homography()))
    status.homography[:] = 0
    assert np.any(tracker.homography)


def test_reestimates_when_the_mat_moves(layout):
    tracker = MatTracker(layout)
    first = tracker.update(render_frame(layout, camera_homography()))
    moved_px = camera_homography(shift=(25.0, -15.0))
    second = tracker.update(render_frame(layout, moved_px))
    assert second.found and second.reestimated and second.drift_px > 10
    assert second.message.startswith("mat moved")
    assert not np.allclose(second.homography, first.homography)
    for m in layout.markers:
        got = to_mat_mm(second.homography, to_mat_mm(moved_px, m.center_mm))[0]
        assert np.hypot(*(got - m.center_mm)) < 1.0


def test_moved_but_mostly_hidden_keeps_old_homography_and_says_so(layout):
    tracker = MatTracker(layout)
    first = tracker.update(render_frame(layout, camera_homography()))
    status = tracker.update(render_frame(layout, camera_homography(shift=(40, 0)), cover=(0, 1)))
    assert not status.found
    assert "px from where the mat was" in status.message
    np.testing.assert_array_equal(status.homography, first.homography)


@pytest.mark.parametrize(
    "frame, words",
    [
        (None, "None"),
        ("not an image", "numpy array"),
        (np.zeros((480, 640, 3), np.float32), "uint8"),
        (np.zeros((480, 640, 4), np.uint8), "shape"),
        (np.zeros((0, 0, 3), np.uint8), "too small"),
        (np.zeros((480,), np.uint8), "shape"),
    ],
)
def test_bad_frame_gives_a_status_and_changes_nothing(layout, frame, words):
    tracker = MatTracker(layout)
    good = tracker.update(render_frame(layout, camera_homography()))
    status = tracker.update(frame)
    assert isinstance(status, MatStatus)
    assert not status.found and status.message.startswith("bad frame") and words in status.message
    np.testing.assert_array_equal(status.homography, good.homography)
    np.testing.assert_array_equal(tracker.homography, good.homography)


def test_frame_size_change_drops_the_kept_homography(layout):
    tracker = MatTracker(layout)
    tracker.update(render_frame(layout, camera_homography()))
    status = tracker.update(np.full((480, 640, 3), 128, np.uint8))
    assert not status.found and status.homography is None


def test_grey_frames_work(layout):
    frame = cv2.cvtColor(render_frame(layout, camera_homography()), cv2.COLOR_BGR2GRAY)
    assert MatTracker(layout).update(frame).found


def test_to_mat_mm_shapes():
    assert to_mat_mm(np.eye(3), [3, 4]).shape == (1, 2)
    assert to_mat_mm(np.eye(3), np.zeros((0, 2))).shape == (0, 2)
    np.testing.assert_allclose(to_mat_mm(np.diag([2.0, 2.0, 1.0]), [[1, 2], [3, 4]]), [[2, 4], [6, 8]])
    with pytest.raises(ValueError):
        to_mat_mm(np.eye(2), [[1, 2]])
    with pytest.raises(ValueError):
        to_mat_mm(np.eye(3), [[1, 2, 3]])


def test_constructor_rejects_bad_settings(layout):
    with pytest.raises(ValueError, match="min_markers"):
        MatTracker(layout, min_markers=5)


@pytest.mark.parametrize("players", [2, 5])
def test_with_the_sim_renderer_if_present(players):
    """Cross-check against companion.sim's mat renderer when that module exists."""
    mat_image = pytest.importorskip("companion.sim.mat_image")
    layout = load_mat_layout(players)
    render = getattr(mat_image, "render_mat", None)
    if render is None:
        pytest.skip("companion.sim.mat_image has no render_mat")
    try:
        image = render(layout, px_per_mm=PX_PER_MM)
    except TypeError:
        pytest.skip("companion.sim.mat_image.render_mat has a different signature")
    image = np.asarray(image)
    if image.ndim == 2:
        image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    k = layout.width_mm / image.shape[1]  # mm per mat pixel; pixel i's centre is at (i + 0.5) * k
    mm_to_px = camera_homography(layout=layout)
    canvas_to_mm = np.array([[k, 0, 0.5 * k], [0, k, 0.5 * k], [0, 0, 1.0]])
    frame = cv2.warpPerspective(image[:, :, :3], mm_to_px @ canvas_to_mm, FRAME_WH)
    status = MatTracker(layout).update(frame)
    assert status.found, status.message
    for m in layout.markers:
        got = to_mat_mm(status.homography, to_mat_mm(mm_to_px, m.center_mm))[0]
        assert np.hypot(*(got - m.center_mm)) < 1.0


@pytest.mark.parametrize("players, seed", [(2, 1), (3, 2), (4, 3), (5, 4), (5, 5)])
def test_with_the_sim_table_if_present(players, seed):
    """Full simulated frames (cards, light, noise, JPEG): mat found, cards land in their seat."""
    table = pytest.importorskip("companion.sim.table")
    layout = load_mat_layout(players)
    rng = np.random.default_rng(seed)
    tableaux = [["tempura", "maki_2", "squid_nigiri", "pudding"][: 1 + (s % 4)] for s in range(players)]
    placements = table.layout_tableaux(layout, tableaux, rng)
    shot = table.render_table(layout, placements, size=(1280, 960), rng=rng)
    status = MatTracker(layout).update(shot.image)
    assert status.found, status.message
    for m in layout.markers:
        got = to_mat_mm(status.homography, to_mat_mm(shot.homography, m.center_mm))[0]
        assert np.hypot(*(got - m.center_mm)) < 1.5, (m.id, got)
    observations = [CardObservation(label, 1.0, tuple(map(tuple, quad.tolist()))) for label, quad in shot.cards]
    zones = assign_to_zones(layout, status.homography, observations)
    assert zones[None] == []
    for seat, labels in enumerate(tableaux):
        assert sorted(c.label for c in zones[seat]) == sorted(labels)


def test_a_bad_frame_is_flagged_as_such_not_by_its_message():
    from companion.vision.mat import MatTracker
    from companion.vision.mat_layout import load_mat_layout

    tracker = MatTracker(load_mat_layout(4))
    assert tracker.update(None).bad_frame
    assert not tracker.update(np.full((48, 64, 3), 128, np.uint8)).bad_frame  # a real frame, just no mat


def test_mat_square_straightens_a_square_of_the_mat_around_a_point():
    from companion.vision.mat import mat_square

    frame = np.zeros((200, 300, 3), np.uint8)
    frame[100:120, 160:180] = (0, 0, 255)  # a red patch at image px (160..180, 100..120)
    to_mm = np.array([[0.5, 0, 0], [0, 0.5, 0], [0, 0, 1.0]])  # 2 px per mat mm
    crop = mat_square(frame, to_mm, (85.0, 55.0), 20.0, 3.0)  # the patch is mat mm (80..90, 50..60)
    assert crop.shape == (60, 60, 3)
    assert (crop[30, 30] == (0, 0, 255)).all() and (crop[2, 2] == 0).all()
    red = np.argwhere(crop[..., 2] > 128)
    assert red.min(0).tolist() == [15, 15] and red.max(0).tolist() == [44, 44]  # 10 mm at 3 px/mm


def _count_full_searches(tracker):
    """Wrap ``tracker.detect`` (the full-frame search) to count its calls."""
    calls = []
    full = tracker.detect

    def counting(frame):
        calls.append(1)
        return full(frame)

    tracker.detect = counting
    return calls


def test_still_camera_second_frame_searches_only_near_the_markers_and_agrees_with_a_full_search(layout):
    first = render_frame(layout, camera_homography(), noise=2.0, seed=0)
    second = render_frame(layout, camera_homography(), noise=2.0, seed=1)  # same view, new sensor noise
    tracker = MatTracker(layout)
    tracker.update(first)
    full_searches = _count_full_searches(tracker)
    status = tracker.update(second)
    assert full_searches == []  # the crops around the markers were enough
    assert status.found and not status.reestimated and status.markers_seen == (0, 1, 2, 3)
    # same homography as a tracker that searched the whole of both frames
    reference = MatTracker(layout)
    reference.update(first)
    reference._detect_near = lambda frame: None  # force the full-frame search
    full = reference.update(second)
    assert np.array_equal(status.homography, full.homography)
    assert status.markers_seen == full.markers_seen
    # the crops' corners are the full search's: the drift they report agrees to well under 0.05 px
    assert abs(status.drift_px - full.drift_px) < 0.05
    # and the second frame alone, searched whole by a fresh tracker, maps the mat to the same place
    fresh = MatTracker(layout).update(second).homography
    for m in layout.markers:
        px = to_mat_mm(camera_homography(), m.center_mm)
        assert np.hypot(*(to_mat_mm(status.homography, px)[0] - to_mat_mm(fresh, px)[0])) < 0.5


@pytest.mark.parametrize("shift", [(-60.0, -100.0), (12.0, -9.0)])
def test_a_mat_moved_past_the_crops_or_the_threshold_falls_back_to_the_full_search(layout, shift):
    """(-60, -100) px is more than a marker side (51-72 px here): the markers leave their crops.
    (12, -9) px keeps them inside the crops but is past the 3 px move threshold."""
    tracker = MatTracker(layout)
    tracker.update(render_frame(layout, camera_homography()))
    mm_to_px = camera_homography(shift=shift)
    moved = render_frame(layout, mm_to_px)
    full_searches = _count_full_searches(tracker)
    status = tracker.update(moved)
    assert full_searches == [1]
    assert status.found and status.reestimated and status.markers_seen == (0, 1, 2, 3)
    assert np.array_equal(status.homography, MatTracker(layout).update(moved).homography)
    for m in layout.markers:
        got = to_mat_mm(status.homography, to_mat_mm(mm_to_px, m.center_mm))[0]
        assert np.hypot(*(got - m.center_mm)) < 1.0, (m.id, got)


def test_a_marker_uncovered_again_is_found_in_its_crop(layout):
    """The crop of a marker hidden last frame is placed by the kept homography, so it is seen
    again as soon as the hand leaves, without a full search."""
    mm_to_px = camera_homography()
    tracker = MatTracker(layout)
    tracker.update(render_frame(layout, mm_to_px))
    assert tracker.update(render_frame(layout, mm_to_px, cover=[2])).markers_seen == (0, 1, 3)
    full_searches = _count_full_searches(tracker)
    status = tracker.update(render_frame(layout, mm_to_px))
    assert status.markers_seen == (0, 1, 2, 3) and status.found
    assert full_searches == []
