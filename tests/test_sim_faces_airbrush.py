"""The sixth simulated card style, "airbrush" (``companion.sim.faces_airbrush``): one pale full-bleed field
shared by every front, no border, soft muted food, a white text plate on the bottom edge, and look-alikes
that differ only in a small detail. (Size, dtype, determinism, distinctness, chirality and the
point-symmetric back are tested for every drawn style in test_sim_faces.py.)"""

from __future__ import annotations

import itertools

import cv2
import numpy as np
import pytest

from companion.rules.sushi_go.cards import VISION_LABELS
from companion.sim import faces_airbrush
from companion.sim.faces import draw_card_face

FRONTS = [label for label in VISION_LABELS if label != "back"]


@pytest.fixture(scope="module")
def air() -> dict[str, np.ndarray]:
    return {label: faces_airbrush.design(label).astype(np.int16) for label in VISION_LABELS}


def _off_field(img: np.ndarray) -> np.ndarray:
    """(H, W) bool: where a front differs from the shared field by more than print grain (3 levels)."""
    return np.abs(img - faces_airbrush.background().astype(np.int16)).max(axis=2) > 3


def test_every_front_shares_one_full_bleed_field(air):
    above_plate = faces_airbrush.PLATE_TOP - 10
    for label in FRONTS:
        off = _off_field(air[label])
        # The top of the card and both side strips down to the plate are the shared field itself...
        assert not off[:90].any(), label
        assert not off[:above_plate, :12].any() and not off[:above_plate, -12:].any(), label
        # ...and the food covers a real part of the rest (the only thing that tells the types apart).
        assert off[:above_plate].mean() > 0.15, label
    # The field is not a plain fill: a vertical gradient with mottling (a print, not a colour swatch).
    field = faces_airbrush.background().astype(np.float32)
    assert np.abs(field[:40].mean(axis=(0, 1)) - field[-40:].mean(axis=(0, 1))).max() > 8
    assert cv2.GaussianBlur(field, (0, 0), 4)[:, :, 1].std() > 2


def test_light_field_and_no_border_at_every_edge(air):
    for label in FRONTS:
        lightness = cv2.cvtColor(air[label].astype(np.uint8), cv2.COLOR_BGR2LAB)[..., 0]
        ring = np.concatenate([lightness[:3].ravel(), lightness[-3:].ravel(),
                               lightness[:, :3].ravel(), lightness[:, -3:].ravel()])
        assert ring.min() > 200, label  # pale to the very edge: no dark frame, no border


def test_white_text_plate_touches_the_bottom_edge(air):
    top = faces_airbrush.PLATE_TOP
    for label in FRONTS:
        img = air[label]
        assert img[-3:, 70:370].min() >= 245, label  # white plate down to the edge
        assert img[top + 4:top + 8, 100:120].min() >= 245, label  # a blank part of the plate
        assert img[top - 12, 90:350].mean() < img[top + 4, 90:350].mean() - 8, label  # the field above is darker
        assert img[-3:, :20].max() < 245, label  # the plate does not span the width: the field beside it


def test_muted_palette(air):
    for label in FRONTS:
        sat = cv2.cvtColor(air[label].astype(np.uint8), cv2.COLOR_BGR2HSV)[..., 1]
        assert np.percentile(sat, 99) < 110, label  # no pure colour anywhere
    # ...unlike the kawaii pattern faces, whose fills are saturated.
    pattern = cv2.cvtColor(draw_card_face("maki_1", 220, style="pattern"), cv2.COLOR_BGR2HSV)[..., 1]
    assert np.percentile(pattern, 99) > 150


def test_maki_differ_only_in_how_many_rolls(air):
    maki = [air[f"maki_{n}"] for n in (1, 2, 3)]
    for a, b in itertools.combinations(maki, 2):
        changed = np.abs(a - b).max(axis=2) > 3
        ys, _ = np.nonzero(changed)
        assert 280 < ys.min() and ys.max() < 500  # only round the board: field, plate and text the same
        assert np.array_equal(a[faces_airbrush.PLATE_TOP:], b[faces_airbrush.PLATE_TOP:])
    # More rolls, more dark nori, in proportion.
    dark = [int((img[300:430].max(axis=2) < 90).sum()) for img in maki]
    assert dark[0] > 2000 and abs(dark[1] - 2 * dark[0]) < 0.1 * dark[0] and abs(dark[2] - 3 * dark[0]) < 0.15 * dark[0]


def test_nigiri_differ_only_in_the_topping(air):
    nigiri = {k: air[f"{k}_nigiri"] for k in ("egg", "salmon", "squid")}
    for a, b in itertools.combinations(nigiri.values(), 2):
        changed = np.abs(a - b).max(axis=2) > 3
        ys, _ = np.nonzero(changed)
        assert 260 < ys.min() and ys.max() < 430  # the topping's band: rice below it, name and rule the same
        assert np.array_equal(a[faces_airbrush.PLATE_TOP:], b[faces_airbrush.PLATE_TOP:])
    apart = np.ones(nigiri["egg"].shape[:2], bool)
    for a, b in itertools.combinations(nigiri.values(), 2):
        apart &= np.abs(a - b).max(axis=2) > 8
    mean = {k: v[apart].mean(axis=0) for k, v in nigiri.items()}  # (B, G, R) where all three differ
    assert mean["egg"][1] - mean["egg"][0] > mean["salmon"][1] - mean["salmon"][0] + 15  # egg: yellower
    assert mean["salmon"][2] - mean["salmon"][1] > mean["egg"][2] - mean["egg"][1] + 10  # salmon: redder
    assert np.ptp(mean["squid"]) < 10 and mean["squid"].mean() > 180  # squid: pale, almost grey
    # The shapes differ too: the egg block's top is level, the salmon slice's rises to the right.
    def top(img: np.ndarray, x: int) -> int:
        return int(np.argmax(_off_field(img)[:, x]))

    assert abs(top(nigiri["egg"], 120) - top(nigiri["egg"], 320)) <= 4
    assert top(nigiri["salmon"], 120) - top(nigiri["salmon"], 320) > 15
