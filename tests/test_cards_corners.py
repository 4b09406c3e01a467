"""A lone card on a pale table has no closed outline (issue #6: a nine half on a white sheet, an
ace on a white box): it is found from a corner, two straight sides, and named only if it reads
clearly."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from companion.rules.sushi_go.cards import UNKNOWN
from companion.vision import card_corners
from companion.vision.cards import find_card_groups, read_cards
from companion.vision.deck import enroll_images
from test_cards_covered import FACES, H, RED, W, _near
from test_vision_deck import _pip_card
from test_vision_synth import background, paste, photometric


@pytest.fixture(scope="module")
def deck():
    return enroll_images({label: [_pip_card(*face)] for label, face in FACES.items()})


def _on_a_sheet(face: np.ndarray | None, seed: int, angle: float = 6.0):
    """A card on wood whose lower half lies on a white sheet as white as its paper (no edge there).
    Returns (photo (480, 420, 3) uint8 BGR, the card's true quad (4, 2) TL, TR, BR, BL)."""
    rng = np.random.default_rng(seed)
    img = background("wood", 420, 480, rng)
    cv2.fillConvexPoly(img, np.array([[0, 250], [420, 235], [420, 480], [0, 480]], np.int32), (245, 245, 245))
    t = np.deg2rad(angle)
    rot = np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])
    corners = np.array([[-W / 2, -H / 2], [W / 2, -H / 2], [W / 2, H / 2], [-W / 2, H / 2]]) @ rot.T + [210, 250]
    if face is not None:
        paste(img, face, corners)
    return photometric(img, rng, blur=0.8, noise=3.0), corners.astype(np.float32)


@pytest.mark.parametrize("label,seed", [("nine", 1), ("seven", 2), ("five", 3), ("eight", 4)])
def test_a_card_on_a_sheet_as_white_as_it_is_found_from_its_corners(deck, label, seed):
    img, truth = _on_a_sheet(_pip_card(*FACES[label]), seed)
    assert find_card_groups(img) == []  # no outline: its paper runs on into the sheet
    # Its top corners are among the corner finder's cards.
    assert min(_near(q, truth) for q in card_corners.corner_cards(img)) < 8.0
    obs = read_cards(img, deck)
    assert [o.label for o in obs] == [label]
    assert _near(obs[0].quad, truth) < 8.0


def test_a_sheet_with_no_card_or_a_card_never_enrolled_names_nothing(deck):
    img, _ = _on_a_sheet(None, 5)
    assert all(o.label == UNKNOWN for o in read_cards(img, deck))
    # The corner finder does build cards there (the sheet's edge meets nothing square, but a
    # never-enrolled card's corners do), and the deck names none of them.
    img, truth = _on_a_sheet(_pip_card(4, RED, "triangle"), 6)
    assert min(_near(q, truth) for q in card_corners.corner_cards(img)) < 8.0
    assert all(o.label == UNKNOWN for o in read_cards(img, deck))


def test_corners_are_two_square_segments_meeting_near_their_ends():
    # Two sides of a dark card on a white table meeting at its top-left corner: the cards built
    # there start at that corner and run along both sides; a lone segment builds none.
    img = np.full((400, 400, 3), 235, np.uint8)
    cv2.rectangle(img, (100, 80), (250, 295), (60, 60, 60), -1)
    quads = card_corners.corner_cards(img)
    assert quads and any(np.abs(q - np.float32([100, 80])).max(axis=1).min() < 3.0 for q in quads)
    for q in quads:
        v = q[1] - q[0], q[3] - q[0]
        assert abs(float(np.dot(v[0], v[1]))) < 0.3 * np.linalg.norm(v[0]) * np.linalg.norm(v[1])
        long_, short = sorted((np.linalg.norm(v[0]), np.linalg.norm(v[1])))[::-1]
        assert long_ / short == pytest.approx(63 / 44, rel=0.01)
    line = np.full((400, 400, 3), 235, np.uint8)
    cv2.line(line, (50, 200), (350, 200), (40, 40, 40), 3)
    assert card_corners.corner_cards(line) == []


def test_a_tiled_floor_builds_a_bounded_number_of_cards():
    # The review's photo: a 2048 px floor of dark square tiles on light grout has hundreds of
    # straight sides meeting square; unbounded it built 5,770 cards and 430 MB of patches.
    img = np.full((1536, 2048, 3), 220, np.uint8)
    for y in range(10, 1536 - 170, 190):
        for x in range(10, 2048 - 170, 190):
            cv2.rectangle(img, (x, y), (x + 170, y + 170), (40, 40, 40), -1)
    quads = card_corners.corner_cards(img)
    assert 0 < len(quads) <= card_corners.MAX_QUADS
