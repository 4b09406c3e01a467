"""A card a little cut by the photo's border is read from what shows (issue #6).

The outline finder drops a contour that runs along the photo's border: a card cut off there cannot
be told whole. On the real photos' IMG_2615 an ace lay at the top border, turned a little: one top
corner just inside the photo, the other about 25 px beyond it (6 % of the card cut off), and it was
not found at all. Where the other cards give the card size and little is cut
(``cards._CUT_SHOWN``), the whole card is put back from its three sides in the photo and named only
if the deck names it clearly (``cards._with_border_cut``); a card half off the photo is not.

The photos here are drawn: pip cards (``test_vision_deck._pip_card``) on a brown table, one card
wholly in the photo (it gives the card size) and one turned 10 degrees across the top border.
"""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from companion.rules.sushi_go.cards import UNKNOWN
from companion.vision import cards
from companion.vision.deck import enroll_images
from test_vision_deck import _pip_card

RED, BLUE, GREEN = (40, 40, 210), (200, 90, 30), (40, 160, 40)
W, H = 640, 480
CARD = (110.0, 157.5)  # short, long side, px (a 220 x 315 face at half size)


def _quad(cx: float, cy: float, turn_deg: float) -> np.ndarray:
    """A card's corners (4, 2) float32, clockwise from its top-left, centred at (cx, cy) px."""
    return cv2.boxPoints(((cx, cy), CARD, turn_deg)).astype(np.float32)[[1, 2, 3, 0]]


def _photo(cards_at: list[tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
    """Each face warped onto its quad of a brown table (W x H px), a little blurred and noisy; the
    parts of a quad beyond the photo are cut off, as a camera cuts them."""
    rng = np.random.default_rng(5)
    canvas = np.full((H, W, 3), (60, 90, 120), np.uint8)
    for face, quad in cards_at:
        fh, fw = face.shape[:2]
        m = cv2.getPerspectiveTransform(np.float32([[0, 0], [fw, 0], [fw, fh], [0, fh]]), quad)
        cv2.warpPerspective(cv2.GaussianBlur(face, (0, 0), 1.0), m, (W, H), dst=canvas,
                            borderMode=cv2.BORDER_TRANSPARENT)
    return np.clip(canvas.astype(np.float32) + rng.normal(0, 3, canvas.shape), 0, 255).astype(np.uint8)


@pytest.fixture(scope="module")
def deck():
    return enroll_images({"nine": [_pip_card(9, RED, "diamond")], "two": [_pip_card(2, BLUE, "circle")],
                          "six": [_pip_card(6, GREEN, "triangle")]})


def _reads(img, deck):
    return [(o.label, np.asarray(o.quad, np.float32)) for o in cards.read_cards(img, deck)]


def _at(readings, quad, tol: float = 12.0):
    """The readings whose centre lies within ``tol`` px of ``quad``'s centre (its part in the photo
    or the whole card: both centres lie within a few px for the cuts drawn here)."""
    c = quad.mean(axis=0)
    return [lb for lb, q in readings if np.hypot(*(q.mean(axis=0) - c)) < tol]


def _shown(quad: np.ndarray) -> float:
    """The share of ``quad``'s area inside the photo."""
    mask = np.zeros((H + 400, W + 400), np.uint8)
    cv2.fillConvexPoly(mask, np.round(quad + 200).astype(np.int32), 1)
    return float(mask[200:200 + H, 200:200 + W].sum()) / max(float(mask.sum()), 1.0)


def test_a_card_a_little_cut_by_the_border_is_named(deck):
    whole = _quad(420, 300, 0.0)
    # turned 10 degrees about a centre 70 px below the top: its top-left corner 2 px inside the
    # photo, its top-right one beyond it
    cut = _quad(170, 70, -10.0)
    assert 0.9 < _shown(cut) < 0.97 and cut[:, 1].min() < 0 < cut[0, 1]
    img = _photo([(_pip_card(2, BLUE, "circle"), whole), (_pip_card(9, RED, "diamond"), cut)])
    readings = _reads(img, deck)
    assert _at(readings, whole) == ["two"]
    # centre: the whole card's (the reading is the card, not the part in the photo)
    assert _at(readings, cut, tol=6.0) == ["nine"]
    named = [q for lb, q in readings if lb == "nine"]
    assert np.abs(named[0] - cut).max() < 8.0  # its cut corner put back where it is


def test_a_card_half_off_the_photo_is_not_named(deck):
    whole = _quad(420, 300, 0.0)
    half = _quad(170, 20, -10.0)  # most of it beyond the top border
    assert _shown(half) < 0.7
    img = _photo([(_pip_card(2, BLUE, "circle"), whole), (_pip_card(9, RED, "diamond"), half)])
    readings = _reads(img, deck)
    assert _at(readings, whole) == ["two"]
    assert not [lb for lb, q in readings if lb not in (UNKNOWN, "two")]


def test_with_no_card_named_there_is_no_card_size_and_nothing_is_added(deck):
    cut = _quad(170, 70, -10.0)
    img = _photo([(_pip_card(9, RED, "diamond"), cut)])
    assert cards._with_border_cut(img, deck, []) == []
