"""The fourth simulated card style, "watercolour" (``companion.sim.faces_watercolour``; distinct, deterministic and chiral in
tests/test_sim_faces.py): white card stock with a white border,
look-alikes that differ only in a small detail, and unlike the other three styles."""

from __future__ import annotations

import itertools

import cv2
import numpy as np
import pytest

from companion.rules.sushi_go.cards import VISION_LABELS
from companion.sim import faces_watercolour
from companion.sim.faces import draw_card_face
from companion.sim.mat_image import MAT_BG, ZONE_FILL


@pytest.fixture(scope="module")
def wc() -> dict[str, np.ndarray]:
    return {label: faces_watercolour.design(label) for label in VISION_LABELS}


def _lightness(img: np.ndarray) -> np.ndarray:
    return cv2.cvtColor(img, cv2.COLOR_BGR2LAB)[..., 0]


def test_white_stock_and_border_as_light_as_the_mat(wc):
    # The card's own edge is white paper about the mat's colour: its outline is weak on the mat.
    paper = _lightness(np.uint8([[MAT_BG, ZONE_FILL]]))[0]
    k = faces_watercolour.BORDER - 4
    for label in VISION_LABELS:
        lightness = _lightness(wc[label]).astype(int)
        ring = np.zeros(lightness.shape, bool)
        ring[:k] = ring[-k:] = True
        ring[:, :k] = ring[:, -k:] = True
        assert np.median(lightness[ring]) >= paper[1], label  # at least as light as a zone
        assert abs(np.median(lightness[ring]) - paper[0]) < 10, label
        if label != "back":
            assert (lightness > 228).mean() > 0.6, label  # mostly white paper: pale, soft art


def test_some_washes_run_off_the_edge(wc):
    # ...and on some types a pale background wash runs off one side, so the edge is not all white.
    def tinted(label):
        lightness = _lightness(wc[label]).astype(int)
        return max((side < 238).mean() for side in (lightness[0], lightness[-1], lightness[:, 0], lightness[:, -1]))

    bled = {lb for lb in VISION_LABELS if tinted(lb) > 0.2}
    assert {"tempura", "dumpling", "maki_1", "pudding", "chopsticks"} <= bled, bled
    assert "back" not in bled and "sashimi" not in bled


def test_maki_differ_only_in_the_bottom_centre_count(wc):
    m = [wc[f"maki_{n}"] for n in (1, 2, 3)]
    for a, b in itertools.combinations(m, 2):
        changed = np.abs(a.astype(int) - b.astype(int)).max(axis=2) > 8
        assert 0.002 < changed.mean() < 0.03
        ys, xs = np.nonzero(changed)
        assert ys.min() > 0.8 * a.shape[0] and ys.max() < 0.92 * a.shape[0]
        assert xs.min() > 0.3 * a.shape[1] and xs.max() < 0.7 * a.shape[1]


def test_nigiri_differ_only_in_the_topping_colour_and_name(wc):
    n = [wc[lb] for lb in ("egg_nigiri", "salmon_nigiri", "squid_nigiri")]
    for a, b in itertools.combinations(n, 2):
        assert np.array_equal(a[400:], b[400:])  # rice, shadow, reminder, border
        assert np.array_equal(a[80:250], b[80:250])  # background wash above the topping
        changed = np.abs(a.astype(int) - b.astype(int)).max(axis=2) > 8
        assert 0.01 < changed.mean() < 0.15


def test_unlike_the_other_styles(wc):
    for label in VISION_LABELS:
        face = draw_card_face(label, 220, style="watercolour").astype(np.float32)
        for other in ("flat", "illustrated", "noir"):
            assert np.abs(face - draw_card_face(label, 220, style=other)).mean() > 15, (label, other)
