"""A pip card the exposure look refuses, named by its marks (stop 50, ``real50``;
``Deck.marks_outweigh_exposure`` in ``deck._final_label``).

A webcam that clips a nine's or a ten's paper pales its pips, and the exposure look (rendered so,
the rank a pip away explains the card about as well) refuses it. Clipping takes pips away, it never
adds one: a card that shows its label's count at the lax ink level, its marks where that label's
examples' lie and not where the rival's (one dropped) lie, is named. The drawn tests hold without
../shared; the real-photo test needs ``../shared/datasets/edje-cards`` (skipped otherwise)."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.vision import deck as dm
from test_vision_marks import BLUE, GREEN, RED, _deck, _photo
from test_vision_deck import _pip_card
from benches import load_bench

ROOT = Path(__file__).resolve().parents[1]
CARDS_DATA = ROOT.parent / "shared" / "datasets" / "edje-cards"


@pytest.fixture()
def refused(monkeypatch):
    """The drawn nine/ten deck with its exposure look refusing every card, as it refuses the webcam's
    clipped nines and tens (a drawn card is not clipped, so the look itself would pass it)."""
    deck = _deck()
    monkeypatch.setattr(deck, "exposure_apart", lambda *a, **k: False)
    return deck


def _scores(deck, **named):
    s = np.zeros(len(deck.labels), np.float32)
    for label, v in named.items():
        s[deck.labels.index(label)] = v
    return s


def test_a_nine_the_exposure_look_refuses_is_named_by_its_marks(refused):
    # Nine pips where the nines' examples show them, the ten within the exposure look's band: its
    # middle pip lies where no ten's pip lies, so no ten with a pip clipped away shows it. On main
    # the exposure look's refusal was final ("unknown").
    nine = refused.labels.index("nine")
    photo, quad = _photo(_pip_card(9, BLUE, "circle"), seed=5)
    assert dm._final_label(refused, photo, quad, _scores(refused, nine=0.90, ten=0.75), nine) == nine


def test_a_ten_the_exposure_look_refuses_is_named_by_its_marks(refused):
    ten = refused.labels.index("ten")
    photo, quad = _photo(_pip_card(10, BLUE, "circle"), seed=6)
    assert dm._final_label(refused, photo, quad, _scores(refused, ten=0.90, nine=0.78), ten) == ten


@pytest.mark.parametrize("gone", [(110, 100), (110, 220), (60, 130)])
def test_a_ten_with_a_pip_clipped_away_is_not_named_nine(refused, gone):
    # The case the exposure look guards against: a ten whose camera lost one pip (painted out to
    # the paper here) shows nine marks, and its whole card reads nine. Its marks lie where a ten's
    # do with one dropped (a middle pip, or a side one), not where a nine's lie: still "unknown".
    nine = refused.labels.index("nine")
    face = _pip_card(10, BLUE, "circle")
    cv2.circle(face, gone, 19, (245, 245, 245), -1)
    photo, quad = _photo(face, seed=7)
    assert dm.mark_count(cv2.resize(dm._upright(photo, quad), (dm._CANON_W, dm._CANON_H))) == 9
    assert dm._final_label(refused, photo, quad, _scores(refused, nine=0.90, ten=0.80), nine) == -1


@pytest.mark.parametrize("at", [(110, 100), (110, 220)])
def test_a_nine_with_a_crumb_on_a_ten_s_place_is_not_named_ten(refused, at):
    # A nine with a dark crumb the size of a pip on a ten's middle place shows ten marks; read
    # "ten" by its whole card, its marks with the crumb dropped fit a nine: "unknown".
    ten = refused.labels.index("ten")
    face = _pip_card(9, BLUE, "circle")
    cv2.circle(face, at, 14, (40, 40, 40), -1)
    photo, quad = _photo(face, seed=8)
    assert dm._final_label(refused, photo, quad, _scores(refused, ten=0.90, nine=0.80), ten) == -1


def test_a_rival_no_count_can_speak_to_keeps_the_refusal(refused, monkeypatch):
    # A rival whose examples agree on no count (a face card) within the band: the pips cannot tell
    # a clipped pip card from it, and the exposure look's refusal stands.
    nine, ten = refused.labels.index("nine"), refused.labels.index("ten")
    monkeypatch.setattr(refused, "_agreed", {nine: {9}, ten: None})
    photo, quad = _photo(_pip_card(9, BLUE, "circle"), seed=5)
    assert dm._final_label(refused, photo, quad, _scores(refused, nine=0.90, ten=0.75), nine) == -1


def test_with_no_rival_in_the_band_the_refusal_stands(refused):
    # The exposure look refused the card against a rival outside the band (a colour twin, taken
    # whatever its score): no rival was ruled out by the marks, so nothing is named.
    nine = refused.labels.index("nine")
    photo, quad = _photo(_pip_card(9, BLUE, "circle"), seed=5)
    assert dm._final_label(refused, photo, quad, _scores(refused, nine=0.90, ten=0.40), nine) == -1


def test_a_ten_whose_middle_pips_are_joined_is_not_named_nine(refused):
    # A thin stroke in the pips' own colour between a ten's two middle pips (the review's fault 1,
    # a real webcam ten so edited): the pair and the stroke are one mark whose centre lies where a
    # nine's middle pip lies, so the card shows nine marks in a nine's places at every ink level.
    # That one mark is 2.5 times the median mark's area (two pips and the stroke): joined, not a pip.
    nine = refused.labels.index("nine")
    # Diamonds and a 4 px stroke: the joined mark's size (the square root of its area) then lies
    # within LAYOUT_TOL of a nine's middle pip's (fit 0.062), so the layout alone does not refuse it.
    face = _pip_card(10, RED, "diamond")
    cv2.line(face, (110, 100), (110, 220), RED, 4)
    photo, quad = _photo(face, seed=9)
    upright = dm._upright(photo, quad)
    assert dm._mark_counts(upright, (dm.MARK_INK,) + tuple(dm.MARK_INK_LEVELS)) == [9, 9, 9]
    assert dm._final_label(refused, photo, quad, _scores(refused, nine=0.90, ten=0.80), nine) == -1


def test_a_count_another_label_agrees_on_is_not_enough(monkeypatch):
    # Two labels whose examples agree on nine marks (two nine designs enrolled apart): the count
    # cannot tell them apart, so the rule says nothing, whatever the marks' places (the symbol
    # deck's 1-3 symbols and the game's tiles are so: the rule leaves them alone).
    deck = dm.enroll_images({
        "nine": [_pip_card(9, c, s) for c, s in ((RED, "diamond"), (BLUE, "circle"), (GREEN, "triangle"))],
        "ten": [_pip_card(10, c, s) for c, s in ((RED, "diamond"), (GREEN, "triangle"), (RED, "triangle"))],
        "nine of stars": [_pip_card(9, c, s) for c, s in ((GREEN, "diamond"), (RED, "circle"), (BLUE, "triangle"))]})
    nine = deck.labels.index("nine")
    photo, quad = _photo(_pip_card(9, BLUE, "circle"), seed=5)
    scores = _scores(deck, nine=0.90, ten=0.75)  # the other nine far outside the band
    assert not deck.marks_outweigh_exposure(photo, quad, scores, nine)
    # The same card on the two-label deck is named: the other nine's count is what refused it.
    two = _deck()
    assert two.marks_outweigh_exposure(photo, quad, _scores(two, nine=0.90, ten=0.75), two.labels.index("nine"))


def test_more_marks_at_a_stricter_ink_level_refuse(refused, monkeypatch):
    # The lax level shows the nine's nine marks, a stricter one a tenth (a pale part the lax level
    # joined to a pip, or took as one part too large to be a mark): the card may hold more than
    # nine, and the count does not name it. The stricter level's extra mark is put in by hand.
    nine = refused.labels.index("nine")
    photo, quad = _photo(_pip_card(9, BLUE, "circle"), seed=5)
    scores = _scores(refused, nine=0.90, ten=0.75)
    assert refused.marks_outweigh_exposure(photo, quad, scores, nine)
    real = dm._mark_counts

    def one_more_at_the_strict_level(face, levels):
        counts = real(face, levels)
        return [c + 1 if lv == min(levels) else c for c, lv in zip(counts, levels)]

    monkeypatch.setattr(dm, "_mark_counts", one_more_at_the_strict_level)
    assert not refused.marks_outweigh_exposure(photo, quad, scores, nine)


def test_nine_marks_where_no_example_s_lie_are_not_named(refused):
    # A nine's middle pip moved to the foot of the card (between the bottom pips): nine marks, but
    # not where a nine's examples' lie (nor a ten's, one dropped): nothing is named.
    nine = refused.labels.index("nine")
    face = _pip_card(9, BLUE, "circle")
    cv2.circle(face, (110, 160), 19, (245, 245, 245), -1)
    cv2.circle(face, (110, 275), 17, BLUE, -1)
    photo, quad = _photo(face, seed=5)
    assert dm.mark_count(dm._upright(photo, quad)) == 9
    assert not refused.marks_outweigh_exposure(photo, quad, _scores(refused, nine=0.90, ten=0.75), nine)


def test_a_rival_whose_places_fit_too_keeps_the_refusal():
    # A ten, its rival a label whose examples are tens with a middle pip gone (nine marks where a
    # ten's lie, one dropped): the ten's own places fit, but so do the rival's with the card's one
    # mark dropped: the marks do not rule it out, and the exposure look's refusal stands.
    def short_ten(colour, shape):
        face = _pip_card(10, colour, shape)
        cv2.circle(face, (110, 100), 24, (245, 245, 245), -1)
        return face

    deck = dm.enroll_images({
        "ten": [_pip_card(10, c, s) for c, s in ((RED, "diamond"), (GREEN, "triangle"), (BLUE, "circle"))],
        "short ten": [short_ten(c, s) for c, s in ((RED, "diamond"), (GREEN, "triangle"), (BLUE, "circle"))]})
    ten = deck.labels.index("ten")
    photo, quad = _photo(_pip_card(10, BLUE, "circle"), seed=6)
    assert not deck.marks_outweigh_exposure(photo, quad, _scores(deck, ten=0.90, **{"short ten": 0.80}), ten)


def _real_deck(per_rank: int, seed: int):
    """``bench/real_cards.py``'s labelled boxes, the photos its enrolment draw ``seed`` holds out,
    and the deck it enrols from ``per_rank`` crops a rank."""
    real_cards = load_bench("real_cards")
    boxes = real_cards.load_boxes(CARDS_DATA)
    chosen, held = real_cards.split(boxes, per_rank, seed)
    return boxes, held, real_cards.enrol(boxes, chosen, CARDS_DATA)


def _labels_on(obs, box) -> list[str]:
    """The labels of the readings whose outline's bounding box meets ``box`` ((x0, y0, x1, y1) px)
    at IoU 0.5 or more, as ``bench/real_cards.py`` scores a labelled card."""
    iou = load_bench("real_cards").iou
    out = []
    for o in obs:
        q = np.asarray(o.quad, np.float32)
        if iou((q[:, 0].min(), q[:, 1].min(), q[:, 0].max(), q[:, 1].max()), box) >= 0.5:
            out.append(o.label)
    return out


@pytest.mark.skipif(not CARDS_DATA.is_dir(), reason="../shared/datasets/edje-cards is missing (the shared datasets "
                    "sit beside the repo); the drawn tests above cover the rule itself")
def test_a_real_webcam_nine_whose_paper_clips_is_named():
    # cam_image32's nine (bench/real_cards.py, enrolment draw 3, dev half): whole card nine 0.901,
    # ten 0.698; the exposure look refused it, and it counts 7 at MARK_INK (its pale pips lost),
    # 9 at the lax level, where a nine's lie. On main: "unknown".
    from companion.vision.cards import read_cards
    from companion.vision.imageio import read_image

    _, _, deck = _real_deck(per_rank=10, seed=3)
    box = (391, 98, 614, 388)  # its labelled box
    assert _labels_on(read_cards(read_image(CARDS_DATA / "images" / "cam_image32.jpg"), deck), box) == ["nine"]


@pytest.mark.skipif(not CARDS_DATA.is_dir(), reason="../shared/datasets/edje-cards is missing (the shared datasets "
                    "sit beside the repo); the drawn joined ten above covers the rule itself")
def test_a_real_webcam_ten_whose_middle_pips_are_joined_is_not_named_nine():
    # The review's fault 1: cam_image29's ten of diamonds (held out by enrolment draw 71, 3 crops per
    # rank), a stroke of its pips' ink colour drawn between its two middle pips (the edit the
    # review's script made, ported here). Before JOINED_MARK_AREA the rule named it "nine" (main:
    # "unknown"): nine marks at every ink level, the joined one where a nine's middle pip lies.
    from companion.vision.cards import read_cards
    from companion.vision.imageio import read_image

    boxes, held, deck = _real_deck(per_rank=3, seed=71)
    assert "cam_image29.jpg" in held
    (rank, (x0, y0, x1, y1)), = boxes["cam_image29.jpg"]
    assert rank == "ten"
    whole = read_image(CARDS_DATA / "images" / "cam_image29.jpg")
    # The photo cut round the card with 0.6 of its size each side, as the review's script read it.
    big = int(0.6 * max(x1 - x0, y1 - y0))
    ox, oy = max(0, x0 - big), max(0, y0 - big)
    img = whole[oy:y1 + big, ox:x1 + big].copy()
    box = (x0 - ox, y0 - oy, x1 - ox, y1 - oy)
    m = int(0.08 * max(x1 - x0, y1 - y0))
    cx0, cy0 = max(0, box[0] - m), max(0, box[1] - m)
    quad = dm.crop_quad(img[cy0:box[3] + m, cx0:box[2] + m]) + np.float32([cx0, cy0])
    face = dm._upright(img, quad)
    marks = dm._mark_layout(face, max(dm.MARK_INK_LEVELS))
    assert len(marks) == 10
    grey = cv2.cvtColor(face, cv2.COLOR_BGR2GRAY).ravel()
    ink = np.median(face.reshape(-1, 3)[grey <= np.percentile(grey, 8)], axis=0)
    # The stroke, drawn on the face 4x over and warped onto the photo (soft-edged, as a pen's).
    s, w, h = 4, dm._CANON_W, dm._CANON_H
    mids = marks[np.argsort(np.abs(marks[:, 0]))[:2]]
    ends = [(int(round((p[0] * w + w / 2) * s)), int(round((p[1] * w + h / 2) * s))) for p in mids]
    thick = int(float(np.median(marks[:, 2])) * w * s * 0.75 * 0.7)
    colour = np.zeros((h * s, w * s, 3), np.float32)
    alpha = np.zeros((h * s, w * s), np.float32)
    cv2.line(colour, ends[0], ends[1], tuple(float(v) for v in ink), thick)
    cv2.line(alpha, ends[0], ends[1], 1.0, thick)
    alpha = cv2.GaussianBlur(alpha, (0, 0), 1.5)
    to_photo = cv2.getPerspectiveTransform(np.float32([[0, 0], [w * s, 0], [w * s, h * s], [0, h * s]]), np.float32(quad))
    size = (img.shape[1], img.shape[0])
    c = cv2.warpPerspective(colour, to_photo, size, flags=cv2.INTER_AREA)
    a = cv2.warpPerspective(alpha, to_photo, size, flags=cv2.INTER_AREA)[..., None]
    bridged = np.clip(img.astype(np.float32) * (1 - a) + a * c, 0, 255).astype(np.uint8)
    assert len(dm._mark_layout(dm._upright(bridged, quad), max(dm.MARK_INK_LEVELS))) == 9  # the pair is one mark
    on_it = _labels_on(read_cards(bridged, deck), box)
    assert on_it and "nine" not in on_it
