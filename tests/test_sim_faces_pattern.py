"""The fifth simulated card style, "pattern" (``companion.sim.faces_pattern``; deterministic, distinct and chiral in
tests/test_sim_faces.py): every label drawn apart (the look-alikes too, at a camera-like size), a white border, a
full-bleed textile pattern, look-alikes that differ only in a small detail, and unlike the other four styles."""

from __future__ import annotations

import itertools

import cv2
import numpy as np
import pytest

from companion.rules.sushi_go.cards import VISION_LABELS
from companion.sim import faces_pattern
from companion.sim.faces import draw_card_face

LOOK_ALIKES = [("maki_1", "maki_2"), ("maki_1", "maki_3"), ("maki_2", "maki_3"),
               ("egg_nigiri", "salmon_nigiri"), ("egg_nigiri", "squid_nigiri"), ("salmon_nigiri", "squid_nigiri")]


@pytest.fixture(scope="module")
def pat() -> dict[str, np.ndarray]:
    return {label: faces_pattern.design(label) for label in VISION_LABELS}


def _changed(a: np.ndarray, b: np.ndarray, level: int = 40) -> np.ndarray:
    """Where two faces differ by more than ``level`` (of 255) in some channel."""
    return np.abs(a.astype(int) - b.astype(int)).max(axis=2) > level


def test_every_label_is_drawn_apart_even_small(pat):
    # Every two labels differ somewhere, and the look-alikes' ART (the name pill left out) still
    # differs clearly at 88 px wide (2 px/mm, about what the camera sees): a style that drew two
    # labels the same, or two look-alikes apart only by their name, fails here.
    for a, b in itertools.combinations(VISION_LABELS, 2):
        assert _changed(pat[a], pat[b]).sum() > 300, (a, b)  # > 3 mm² of the 44 × 63 mm card
    name_pill = (slice(0, 18), slice(0, 49))  # rows, columns at 88 px: the top-left name (design 90 × 245 px)
    for a, b in LOOK_ALIKES:
        changed = _changed(draw_card_face(a, 88, style="pattern"), draw_card_face(b, 88, style="pattern"))
        changed[name_pill] = False
        assert changed.sum() >= 12, (a, b)


def test_maki_differ_only_in_the_top_right_count(pat):
    m = [pat[f"maki_{n}"] for n in (1, 2, 3)]
    for a, b in itertools.combinations(m, 2):
        changed = _changed(a, b, 8)
        assert 0.002 < changed.mean() < 0.03
        ys, xs = np.nonzero(changed)
        assert ys.max() < 0.15 * a.shape[0] and xs.min() > 0.5 * a.shape[1]
    # More roll marks on the tag, more dark ink there.
    dark = [int((cv2.cvtColor(img[25:90, 250:420], cv2.COLOR_BGR2LAB)[..., 0] < 60).sum()) for img in m]
    assert dark[0] < dark[1] < dark[2]


def test_nigiri_differ_only_in_the_topping_colour_and_name(pat):
    n = [pat[lb] for lb in ("egg_nigiri", "salmon_nigiri", "squid_nigiri")]
    for a, b in itertools.combinations(n, 2):
        assert np.array_equal(a[425:], b[425:])  # rice, rule pill, border
        assert np.array_equal(a[100:240], b[100:240])  # the pattern above the topping
        changed = _changed(a, b, 8)
        assert 0.02 < changed.mean() < 0.2


def test_white_border_and_full_bleed_pattern(pat):
    k = faces_pattern.BORDER - 3
    for label, img in pat.items():
        lightness = cv2.cvtColor(img, cv2.COLOR_BGR2LAB)[..., 0].astype(int)
        ring = np.zeros(lightness.shape, bool)
        ring[:k] = ring[-k:] = True
        ring[:, :k] = ring[:, -k:] = True
        assert np.median(lightness[ring]) > 235, label  # white card stock at the edge
        # Inside the border, a strip down each side is the textile pattern: strong texture, not a plain fill.
        for strip in (img[120:500, 20:60], img[120:500, -60:-20]):
            assert strip.reshape(-1, 3).astype(float).std(axis=0).max() > 25, label


def test_unlike_the_other_styles():
    for label in VISION_LABELS:
        face = draw_card_face(label, 220, style="pattern").astype(np.float32)
        for other in ("flat", "illustrated", "noir", "watercolour"):
            assert np.abs(face - draw_card_face(label, 220, style=other)).mean() > 15, (label, other)
