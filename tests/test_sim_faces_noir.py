"""The third simulated card style, "noir" (``companion.sim.faces_noir``; distinct, deterministic and chiral in
tests/test_sim_faces.py): look-alikes that differ only in a small detail, and
unlike the other two styles."""

from __future__ import annotations

import itertools

import cv2
import numpy as np
import pytest

from companion.rules.sushi_go.cards import VISION_LABELS
from companion.sim import faces_noir
from companion.sim.faces import draw_card_face


@pytest.fixture(scope="module")
def noir() -> dict[str, np.ndarray]:
    return {label: faces_noir.design(label) for label in VISION_LABELS}


def test_maki_differ_only_in_the_bottom_right_count(noir):
    m = [noir[f"maki_{n}"] for n in (1, 2, 3)]
    for a, b in itertools.combinations(m, 2):
        changed = np.abs(a.astype(int) - b.astype(int)).max(axis=2) > 8
        assert 0.002 < changed.mean() < 0.03
        ys, xs = np.nonzero(changed)
        assert ys.min() > 0.75 * a.shape[0] and xs.min() > 0.4 * a.shape[1]


def test_nigiri_differ_only_in_the_topping_and_name(noir):
    n = [noir[lb] for lb in ("egg_nigiri", "salmon_nigiri", "squid_nigiri")]
    for a, b in itertools.combinations(n, 2):
        assert np.array_equal(a[400:], b[400:])  # rice (below the topping), footer, frame
        changed = np.abs(a.astype(int) - b.astype(int)).max(axis=2) > 8
        assert 0.01 < changed.mean() < 0.15


def test_dark_and_unlike_the_other_styles(noir):
    for label in VISION_LABELS:
        lightness = cv2.cvtColor(noir[label], cv2.COLOR_BGR2LAB)[..., 0]
        assert np.median(lightness) < 70, label  # near-black paper under thin line-art
        face = draw_card_face(label, 220, style="noir").astype(np.float32)
        for other in ("flat", "illustrated"):
            assert np.abs(face - draw_card_face(label, 220, style=other)).mean() > 30, (label, other)
