"""The printable mat: markers exactly where the layout says, detectable by ArUco."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from companion.sim.mat_image import mat_size_px, render_mat
from companion.vision.mat_layout import load_mat_layout


def _detect(img: np.ndarray) -> dict[int, np.ndarray]:
    det = cv2.aruco.ArucoDetector(
        cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50), cv2.aruco.DetectorParameters()
    )
    corners, ids, _ = det.detectMarkers(img)
    assert ids is not None
    return {int(i): c.reshape(4, 2) for i, c in zip(ids.ravel(), corners)}


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_markers_detected_at_their_mm_positions(players):
    layout = load_mat_layout(players)
    ppm = 2.0
    img = render_mat(layout, ppm)
    assert img.shape == (mat_size_px(layout, ppm)[1], mat_size_px(layout, ppm)[0], 3)
    assert img.dtype == np.uint8
    found = _detect(img)
    assert sorted(found) == [0, 1, 2, 3]
    for m in layout.markers:
        expected = np.array(m.corners_mm()) * ppm
        assert np.abs(found[m.id] - expected).max() < 2.0, m.id


def test_fractional_resolution_keeps_markers_exact():
    layout = load_mat_layout(4)
    ppm = 150 / 25.4  # 150 dpi: cells are not whole pixels
    found = _detect(render_mat(layout, ppm))
    for m in layout.markers:
        assert np.abs(found[m.id] - np.array(m.corners_mm()) * ppm).max() < 2.0


def test_zones_are_outlined_and_background_is_light():
    layout = load_mat_layout(2)
    img = render_mat(layout, 2.0)
    assert img[int(300 * 2), int(20 * 2)].min() > 200  # plain mat between markers
    x, y, w, h = layout.zones[0].rect_mm
    edge = img[int((y + h / 2) * 2), int(x * 2)]
    inside = img[int((y + h / 2) * 2), int((x + w / 2) * 2)]
    assert int(inside.mean()) - int(edge.mean()) > 30


def test_bad_resolution_raises():
    with pytest.raises(ValueError, match="px_per_mm"):
        render_mat(load_mat_layout(2), 0)
