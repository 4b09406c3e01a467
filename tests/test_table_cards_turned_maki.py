"""The game's card tracker on a pale maki laid 30° off square (issue #6: a card is never given
another card's name).

A watercolour card's paper is the mat's colour, so its change blob is only its art (here 46 × 53 mm
turned 17°, not card-shaped) and it is searched in windows square to the mat. The best of those lay
3.8 mm off the card, where its whole-card reading was maki_1 (0.69, the three maki within 0.03), and
the wide sweep turned that window about its own centre only: at the card's 30°, 3.8 mm off, it read
worse than square (0.70 against 0.71), so the card kept maki_1 (``bench/turned_cards.py --styles
watercolour --angles 30 --seeds 2``). Checked against the renderer's truth only.
"""

from __future__ import annotations

import numpy as np
import pytest

from companion.rules.sushi_go.cards import UNKNOWN
from companion.sim.record import enroll_sim_deck
from companion.sim.table import Placement, ShotConditions, render_table
from companion.vision.mat_layout import load_mat_layout
from companion.vision.table_cards import CardTracker

#: A reading this close (mm) to a card's true centre is that card's (the game matches within 22 mm).
MATCH_MM = 22.0

# Seat 1's zone (4-player mat, facing 0) runs x 80-416, y 367-574; its first row as the simulator lays it.
FIRST = [Placement("pudding", (105.3, 401.8), 2.8), Placement("maki_2", (156.6, 402.8), 1.7),
         Placement("egg_nigiri", (209.6, 399.7), 1.0)]


@pytest.fixture(scope="module")
def deck():
    return enroll_sim_deck(style="watercolour")


def _names(deck, new: list[Placement], seed: int) -> list[tuple[str, str]]:
    """(true label, label read) for each card of a turn laying ``new`` beside ``FIRST`` (read and
    accepted before): the nearest reading within MATCH_MM ('' if none)."""
    layout = load_mat_layout(4)
    rng = np.random.default_rng(seed)
    cond = ShotConditions.random(rng)
    f0 = render_table(layout, FIRST, rng=rng, conditions=cond, style="watercolour")
    f1 = render_table(layout, FIRST + new, rng=rng, conditions=cond, style="watercolour")
    h = np.linalg.inv(f0.homography)
    tracker = CardTracker(layout, deck)
    tracker.accept(tracker.read(f0.image, h))
    cards = tracker.read(f1.image, h).cards
    out = []
    for p in FIRST + new:
        d = [(float(np.linalg.norm(np.array(p.center_mm) - np.array(c.rect_mm[0]))), c.label) for c in cards]
        dist, got = min(d) if d else (1e9, "")
        out.append((p.label, got if dist <= MATCH_MM else ""))
    return out


@pytest.mark.parametrize("seed,angle", [(2, 30.0), (2, -30.0), (4, 30.0)])
def test_a_pale_maki_3_turned_30_degrees_is_not_maki_1(deck, seed, angle):
    # Seed 2 at +30°: maki_1 before the swept windows were also moved (the change this tests).
    new = [Placement("maki_3", (137.8, 503.8), angle), Placement("egg_nigiri", (246.4, 503.3), -1.0),
           Placement("maki_2", (362.0, 506.3), 5.6)]
    names = _names(deck, new, seed)
    for true, got in names:
        assert got in (true, UNKNOWN), f"{true} read {got or 'nothing'}"
    # Its neighbours, square to the mat, are named as ever.
    assert [got for _, got in names[-2:]] == ["egg_nigiri", "maki_2"]
