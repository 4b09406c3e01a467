"""A card that was never enrolled is "unknown", even when it looks like one that was (issue #6).

A deck of symbol cards is enrolled from photos, three per card, of solid and open ovals; a
striped oval (a fill between the two, never enrolled) must not take either name. The cards are
drawn here (a white card, one oval, a thin outline), photographed with a little blur, noise, light
and slant, as the symbol bench does (``bench/symbol_cards.py``).
"""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from companion.rules.sushi_go.cards import UNKNOWN
from companion.vision import deck as deck_mod
from companion.vision.deck import classify_quads, enroll_images

CARD_W, CARD_H = 176, 252
INKS = {"red": (45, 35, 215), "green": (60, 150, 30)}  # BGR


def _face(ink: str, fill: str) -> np.ndarray:
    img = np.full((CARD_H, CARD_W, 3), 250, np.uint8)
    mask = np.zeros((CARD_H, CARD_W), np.uint8)
    cv2.ellipse(mask, (CARD_W // 2, CARD_H // 2), (62, 30), 0, 0, 360, 255, -1)
    outline = cv2.morphologyEx(mask, cv2.MORPH_GRADIENT, np.ones((5, 5), np.uint8))
    if fill == "solid":
        paint = mask
    elif fill == "striped":
        stripes = np.zeros_like(mask)
        stripes[:, ::6] = 255
        stripes[:, 1::6] = 255
        paint = np.maximum(outline, stripes & mask)
    else:
        paint = outline
    img[paint > 0] = INKS[ink]
    cv2.rectangle(img, (0, 0), (CARD_W - 1, CARD_H - 1), (215, 215, 215), 1)
    return img


def _photo(face: np.ndarray, rng: np.random.Generator, size: int = 400) -> tuple[np.ndarray, np.ndarray]:
    """A photo of one card on a dark cloth (image, the card's quad px)."""
    width = rng.uniform(120, 150)
    h = width * CARD_H / CARD_W
    t = np.deg2rad(rng.uniform(-8, 8))
    rot = np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])
    quad = np.array([[-width / 2, -h / 2], [width / 2, -h / 2], [width / 2, h / 2], [-width / 2, h / 2]]) @ rot.T
    quad = (quad + size / 2 + rng.uniform(-0.02, 0.02, (4, 2)) * width).astype(np.float32)
    src = np.float32([[0, 0], [CARD_W, 0], [CARD_W, CARD_H], [0, CARD_H]])
    m = cv2.getPerspectiveTransform(src, quad)
    cloth = np.full((size, size, 3), (52, 44, 40), np.float32)
    warped = cv2.warpPerspective(face.astype(np.float32), m, (size, size), flags=cv2.INTER_AREA)
    alpha = cv2.warpPerspective(np.ones((CARD_H, CARD_W), np.float32), m, (size, size))[:, :, None]
    img = cloth * (1 - alpha) + warped * alpha
    img = img * rng.uniform(0.8, 1.0) * rng.uniform(0.92, 1.08, 3)
    img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.5, 1.0)) + rng.normal(0, 3, img.shape)
    return np.clip(img, 0, 255).astype(np.uint8), quad


def _crop(img: np.ndarray, quad: np.ndarray) -> np.ndarray:
    """The photo cropped to the card with a margin of cloth, as a user crops an enrolment photo."""
    x0, y0 = np.floor(quad.min(axis=0)).astype(int) - 12
    x1, y1 = np.ceil(quad.max(axis=0)).astype(int) + 12
    return img[max(0, y0):y1, max(0, x0):x1]


@pytest.fixture(scope="module")
def deck():
    rng = np.random.default_rng(3)
    examples = {f"{ink}-{fill}": [_crop(*_photo(_face(ink, fill), rng)) for _ in range(3)]
                for ink in INKS for fill in ("solid", "open")}
    return enroll_images(examples)


def _read(deck, ink: str, fill: str, seed: int) -> str:
    img, quad = _photo(_face(ink, fill), np.random.default_rng(seed))
    return classify_quads(img, [quad], deck)[0].label


def test_enrolled_cards_keep_their_names(deck):
    for seed in range(100, 104):
        assert _read(deck, "red", "solid", seed) == "red-solid"
        assert _read(deck, "green", "open", seed) == "green-open"


def test_a_card_never_enrolled_is_unknown_not_its_look_alike(deck):
    assert [_read(deck, "red", "striped", seed) for seed in range(200, 204)] == [UNKNOWN] * 4


def test_without_the_examples_check_the_look_alike_would_be_named(deck, monkeypatch):
    # The whole-card threshold alone passes a striped oval as a solid or open one: the check
    # on the label's examples (whole card and place by place) is what keeps it "unknown". (Since
    # stop 57 the look-alike stage compares a solid label with its open one, the same shape with ink
    # taken away, and that keeps it "unknown" too: both are left out here, so this test still shows
    # the examples check's part.)
    monkeypatch.setattr(deck_mod, "EXAMPLE_SPREAD_FACTOR", float("inf"))
    monkeypatch.setattr(deck_mod, "LOCAL_FACTOR", float("inf"))
    monkeypatch.setattr(deck_mod.Deck, "extra_ink_agrees", lambda self, *a: True)
    monkeypatch.setattr(deck_mod.Deck, "_paler_rival", lambda self, best, k: False)
    names = [_read(deck, "red", "striped", seed) for seed in range(200, 204)]
    assert any(n != UNKNOWN for n in names)


def test_a_label_enrolled_from_one_picture_twice_still_names_its_cards():
    # Two copies of one picture lie 0 apart: the examples' spread says nothing about how far a
    # camera's view of the card may lie, and must not make every card "unknown".
    rng = np.random.default_rng(5)
    examples = {}
    for ink in INKS:
        for fill in ("solid", "open"):
            crop = _crop(*_photo(_face(ink, fill), rng))
            examples[f"{ink}-{fill}"] = [crop, crop.copy()]
    twice = enroll_images(examples)
    for seed in range(100, 104):
        assert _read(twice, "red", "solid", seed) == "red-solid"
        assert _read(twice, "green", "open", seed) == "green-open"


def test_the_place_by_place_check_alone_keeps_a_look_alike_unknown(deck, monkeypatch):
    # With the whole-card distance let through, the striped oval still differs from its nearest
    # example inside the oval by far more than the label's own examples ever differ there.
    monkeypatch.setattr(deck_mod, "EXAMPLE_SPREAD_FACTOR", float("inf"))
    assert [_read(deck, "red", "striped", seed) for seed in range(200, 204)] == [UNKNOWN] * 4


@pytest.fixture(scope="module")
def inked_deck():
    """Striped and solid ovals enrolled, the open ones not (a paler fill than any enrolled)."""
    rng = np.random.default_rng(7)
    return enroll_images({f"{ink}-{fill}": [_crop(*_photo(_face(ink, fill), rng)) for _ in range(3)]
                          for ink in INKS for fill in ("solid", "striped")})


def test_a_paler_fill_never_enrolled_does_not_take_the_striped_name(inked_deck):
    # The goal of issue #6 from the other side (an open oval where only striped and solid ones were
    # enrolled); on these drawn cards the look-alike stage refuses it already, with or without
    # the examples' checks.
    for seed in range(300, 304):
        assert _read(inked_deck, "red", "open", seed) == UNKNOWN
        assert _read(inked_deck, "green", "open", seed) == UNKNOWN


def test_enrolled_fills_keep_their_names_beside_the_place_by_place_check(inked_deck):
    for seed in range(100, 104):
        assert _read(inked_deck, "red", "striped", seed) == "red-striped"
        assert _read(inked_deck, "green", "solid", seed) == "green-solid"


def _marked(example: np.ndarray, rows: slice, cols: slice) -> np.ndarray:
    """A (3·FINE_H·FINE_W,) unit-length copy of a look-alike example with a dark mark in ``rows`` ×
    ``cols`` of its lightness (zero-mean per channel again, as a card's patch is)."""
    x = example.reshape(3, deck_mod.FINE_H, deck_mod.FINE_W).copy()
    x[0, rows, cols] -= 0.05
    x -= x.mean(axis=(1, 2), keepdims=True)
    return (x / np.linalg.norm(x)).reshape(-1)


def test_the_place_by_place_check_leaves_the_patch_edges_to_the_outline(deck):
    # A strip of table along one side (an outline found a pixel or two wide) is not a mark the
    # label never shows; the same strip of ink inside the card is.
    label = deck.labels.index("red-solid")
    example = deck._unit_examples(label)[0]
    h, w = deck_mod.FINE_H, deck_mod.FINE_W
    edge = slice(0, deck_mod.LOCAL_EDGE)
    assert deck._locally_within(_marked(example, slice(10, h - 10), edge), example, label)
    assert deck._locally_within(_marked(example, edge, slice(8, w - 8)), example, label)
    inside = slice(deck_mod.LOCAL_EDGE + 6, 2 * deck_mod.LOCAL_EDGE + 6)
    assert not deck._locally_within(_marked(example, slice(10, h - 10), inside), example, label)


def test_without_the_edge_band_a_strip_along_the_edge_is_refused(deck, monkeypatch):
    # The band is what lets the edge strip through (the check above would otherwise pass it anyway).
    label = deck.labels.index("red-solid")
    example = deck._unit_examples(label)[0]
    monkeypatch.setattr(deck_mod, "_LOCAL_INNER", np.ones((deck_mod.FINE_H, deck_mod.FINE_W), np.float32))
    monkeypatch.setattr(deck, "_local_spreads", {})
    strip = _marked(example, slice(10, deck_mod.FINE_H - 10), slice(0, deck_mod.LOCAL_EDGE))
    assert not deck._locally_within(strip, example, label)


def test_the_paler_rival_alone_keeps_a_never_enrolled_fill_unknown(deck, monkeypatch):
    # With the examples check let through, the look-alike stage still compares the solid label with
    # its paler rival, the open one (Deck._paler_rival): the striped oval is neither, and the two
    # looks leave it undecided. (Without that rival it reads "red-solid".)
    monkeypatch.setattr(deck_mod, "EXAMPLE_SPREAD_FACTOR", float("inf"))
    monkeypatch.setattr(deck_mod, "LOCAL_FACTOR", float("inf"))
    assert [_read(deck, "red", "striped", seed) for seed in range(200, 204)] == [UNKNOWN] * 4
