"""The general finder's second look (issue #6): an outline found a little off reads just under the
deck's threshold; lined up with its best label's nearest example it is read again, and named
only if it then differs from that example evenly, not in one place (a card never enrolled that is
one mark away from an enrolled one)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from companion.rules.sushi_go.cards import UNKNOWN
from companion.vision import cards
from companion.vision.deck import Classification, classify_quads, enroll_images
from test_vision_deck import _pip_card

RED, BLUE, GREEN = (40, 40, 210), (200, 90, 30), (40, 160, 40)
TRUE_QUAD = np.float32([[70, 60], [290, 60], [290, 375], [70, 375]])


def _photo(face: np.ndarray, seed: int) -> np.ndarray:
    """The face laid at ``TRUE_QUAD`` on a brown table, blurred, dimmed and noisy (440 × 360 px)."""
    rng = np.random.default_rng(seed)
    canvas = np.full((440, 360, 3), (60, 90, 120), np.uint8)
    m = cv2.getPerspectiveTransform(np.float32([[0, 0], [220, 0], [220, 315], [0, 315]]), TRUE_QUAD)
    cv2.warpPerspective(cv2.GaussianBlur(face, (0, 0), 1.0), m, (360, 440), dst=canvas, borderMode=cv2.BORDER_TRANSPARENT)
    noisy = canvas.astype(np.float32) * rng.uniform(0.85, 1.0) + rng.normal(0, 4, canvas.shape)
    return np.clip(noisy, 0, 255).astype(np.uint8)


# An outline found a little off, as on a real photo: one side on a shadow 9 px out, the far side
# 6 px in, a corner rounded off.
OFF_QUAD = TRUE_QUAD + np.float32([[-2, -9], [6, -9], [6, 4], [-2, 0]])


@pytest.fixture(scope="module")
def deck():
    # "nine" from two faces, "ten" from one: the red-diamond ten was never enrolled, and it is
    # one middle pip and an index away from the red-diamond nine.
    return enroll_images({"nine": [_pip_card(9, RED, "diamond"), _pip_card(9, BLUE, "circle")],
                          "ten": [_pip_card(10, GREEN, "triangle")]})


def test_an_outline_a_little_off_is_lined_up_with_the_nearest_example(deck):
    img = _photo(_pip_card(9, RED, "diamond"), 0)
    nine = deck.labels.index("nine")
    aligned = deck.aligned_quad(img, OFF_QUAD, nine)
    assert aligned is not None
    assert np.abs(aligned - TRUE_QUAD).max() < 0.4 * np.abs(OFF_QUAD - TRUE_QUAD).max()
    before, after = classify_quads(img, [OFF_QUAD, aligned], deck, settle=False)
    assert after.score > before.score + 0.02


def test_a_card_one_mark_away_from_its_nearest_example_differs_in_one_place(deck):
    nine = deck.labels.index("nine")
    for seed in range(3):
        same = deck.residual_peak(_photo(_pip_card(9, RED, "diamond"), seed), TRUE_QUAD, nine)
        one_more = deck.residual_peak(_photo(_pip_card(10, RED, "diamond"), seed), TRUE_QUAD, nine)
        assert same <= cards._EVEN_PEAK < one_more


def _just_under(deck, img, monkeypatch) -> Classification:
    """The off outline's reading, with the deck's threshold set just over its score (as a real
    photo's far card scores 0.70 against 0.717) and under the aligned outline's."""
    r = classify_quads(img, [OFF_QUAD], deck, settle=False)[0]
    monkeypatch.setattr(deck, "threshold", r.score + 0.01)
    return Classification(UNKNOWN, 0.55, r.score, cards.order_quad(OFF_QUAD), r.scores)


def test_a_card_just_under_the_threshold_is_named_on_the_second_look(deck, monkeypatch):
    img = _photo(_pip_card(9, RED, "diamond"), 1)
    reading = _just_under(deck, img, monkeypatch)
    assert classify_quads(img, [OFF_QUAD], deck)[0].label == UNKNOWN  # the first look
    (again,) = cards._look_again(img, [reading], deck)
    assert again.label == "nine"
    assert np.abs(cards.order_quad(again.quad) - TRUE_QUAD).max() < 4.0
    # Far under the threshold it is not looked at again: it is not a card of the deck.
    monkeypatch.setattr(deck, "threshold", reading.score + cards._LOOK_AGAIN_BAND + 0.01)
    assert cards._look_again(img, [reading], deck)[0] is reading


def test_a_never_enrolled_card_one_mark_away_stays_unknown_on_the_second_look(deck, monkeypatch):
    img = _photo(_pip_card(10, RED, "diamond"), 1)
    reading = _just_under(deck, img, monkeypatch)
    assert deck.labels[int(np.argmax(reading.scores))] == "nine"  # its nearest enrolled face
    nine = deck.labels.index("nine")
    aligned = deck.aligned_quad(img, cards._face_up(img, OFF_QUAD, deck, nine), nine)
    on_aligned = classify_quads(img, [aligned], deck)[0]
    # aligned, it scores over the threshold as the nine ...
    assert deck.labels[int(np.argmax(on_aligned.scores))] == "nine" and on_aligned.score >= deck.threshold
    # ... but it differs from the nine's examples in one place: not named (the deck's place-by-place
    # check on the label's examples, and the second look's residual peak, each say so)
    assert on_aligned.label == UNKNOWN
    assert cards._look_again(img, [reading], deck)[0].label == UNKNOWN
    # The second look's own residual-peak check says so too, without the deck's place-by-place one.
    import companion.vision.deck as deck_mod

    monkeypatch.setattr(deck_mod, "LOCAL_FACTOR", float("inf"))
    assert classify_quads(img, [aligned], deck)[0].label == "nine"
    assert cards._look_again(img, [reading], deck)[0].label == UNKNOWN


def test_the_second_look_names_a_lined_up_card_a_little_under_the_threshold_only(deck, monkeypatch):
    # A real face seen through another camera than its examples' stays a little under the
    # threshold however well lined up (cards._LOOK_AGAIN_SLACK): named within the slack, not beyond.
    img = _photo(_pip_card(9, RED, "diamond"), 1)
    reading = _just_under(deck, img, monkeypatch)
    nine = deck.labels.index("nine")
    aligned = deck.aligned_quad(img, cards._face_up(img, OFF_QUAD, deck, nine), nine)
    lined_up = classify_quads(img, [aligned], deck, settle=False)[0].score
    # (the first look's band is widened so the reading is looked at again wherever the threshold
    # is set here: the band has its own test above)
    monkeypatch.setattr(cards, "_LOOK_AGAIN_BAND", 0.2)
    monkeypatch.setattr(deck, "threshold", lined_up + 0.5 * cards._LOOK_AGAIN_SLACK)
    assert classify_quads(img, [aligned], deck)[0].label == UNKNOWN  # under the deck's threshold ...
    assert cards._look_again(img, [reading], deck)[0].label == "nine"  # ... named on the second look
    monkeypatch.setattr(deck, "threshold", lined_up + 1.5 * cards._LOOK_AGAIN_SLACK)
    assert cards._look_again(img, [reading], deck)[0].label == UNKNOWN
