"""A card laid next to where a card has just gone (companion.vision.table_cards, ``LONG_BLOB``).

A player who uses chopsticks takes the chopsticks card back into the hand (sushi-go.txt, USING
CHOPSTICKS), and may lay a new card just beside the place it left. The change left by the card
taken away (a thin rim round its place: its shadow, a turn of a degree or two) joins the new card's
change in one blob two cards long. On thin line art (the noir style) a coarse window reads well
only on the card itself (0.85 in place, under 0.4 a few mm off), and the blob's best-reading coarse
window lay on the rim: the new card was not found (bench/sim_games.py, noir seed 663, 4 players,
round 1 turn 6). Checked against the renderer's truth.
"""

from __future__ import annotations

import numpy as np
import pytest

from companion.sim.record import enroll_sim_deck
from companion.sim.table import Placement, ShotConditions, render_table
from companion.vision.mat_layout import load_mat_layout
from companion.vision.table_cards import CardTracker

ROW = ["tempura", "sashimi", "maki_2", "sashimi", "dumpling"]
SLOT = (733.0, 192.5)  # the chopsticks' place, mm on the 4-player mat (as in the game above)


@pytest.fixture(scope="module")
def noir():
    return enroll_sim_deck(style="noir")


def _turn(seed: int):
    """(layout, frame with the chopsticks, frame after: chopsticks gone, a salmon nigiri laid above
    its place 2-6 mm off, the row unchanged), one camera and light."""
    rng = np.random.default_rng(seed)
    tilt, gap = float(rng.uniform(-4, 4)), float(rng.uniform(2, 6))
    row = [Placement(label, (475 + 52 * i, 192.5), float(rng.uniform(-3, 3))) for i, label in enumerate(ROW)]
    chopsticks = Placement("chopsticks", SLOT, tilt)
    salmon = Placement("salmon_nigiri", (SLOT[0] + float(rng.uniform(-3, 3)), SLOT[1] - 63 - gap),
                       float(rng.uniform(-3, 3)))
    layout = load_mat_layout(4)
    cond = ShotConditions.random(rng)
    before = render_table(layout, row + [chopsticks], rng=rng, conditions=cond, style="noir")
    after = render_table(layout, row + [salmon], rng=rng, conditions=cond, style="noir")
    return layout, before, after, row + [salmon]


# Seeds 5 and 8: the salmon nigiri was not found before LONG_BLOB (10 of 12 found on seeds 0-11).
@pytest.mark.parametrize("seed", [5, 8])
def test_a_card_laid_beside_the_place_a_card_left_is_found_and_named(noir, seed):
    layout, before, after, truth = _turn(seed)
    tracker = CardTracker(layout, noir)
    tracker.accept(tracker.read(before.image, np.linalg.inv(before.homography)))
    seen = tracker.read(after.image, np.linalg.inv(after.homography)).cards
    assert len(seen) == len(truth), sorted(c.label for c in seen)
    for p in truth:
        d = [np.hypot(c.rect_mm[0][0] - p.center_mm[0], c.rect_mm[0][1] - p.center_mm[1]) for c in seen]
        k = int(np.argmin(d))
        assert d[k] < 4.0, f"{p.label} at {p.center_mm}: nearest reading {d[k]:.1f} mm away"
        assert seen[k].label == p.label, f"{p.label} read {seen[k].label}"
