"""A search name on a mat's printed title is refused (branch `title50`, README Known limits:
'Spurious "sashimi" on a watercolour mat'); a real card lying on the title is still named.

:func:`companion.vision.card_search._on_title`: one side of the window unbacked, both sides meeting
it weakly backed, and its rim holding more dark ink than the label's enrolled examples'
(:meth:`companion.vision.deck.Deck.border_ink`)."""

from __future__ import annotations

from itertools import islice

import numpy as np
import pytest

from companion.rules.sushi_go.cards import UNKNOWN
from companion.vision import card_search
from companion.vision.cards import read_cards

_DECK: list = []


def watercolour_deck():
    from companion.sim.record import enroll_sim_deck

    if not _DECK:
        _DECK.append(enroll_sim_deck(style="watercolour"))
    return _DECK[0]


def test_the_watercolour_mats_title_is_not_named_sashimi():
    # bench/mat_touching.py's adj scenes drawn in watercolour, --seed 6600 (the prototype's tuning
    # set), scene 6: no card lies on the mat's title ("SUSHI GO COMPANION", about (500-700, 440-490)
    # px); main names the letters at (544, 456) "sashimi" 0.866 (the window search).
    from benches import load_bench

    mt = load_bench("mat_touching")
    gaps, angles = (0, 0.5, 2, 5, 8, -1, -3), (10, 25, 40, 55, 70, 85)
    _, image, truth = next(islice(mt.adj_scenes(gaps, angles, "watercolour", "t", seed=6600), 6, None))
    assert all(np.hypot(*(np.mean(q, axis=0) - (544, 456))) > 40 for _, q in truth)
    obs = read_cards(image, watercolour_deck())
    near = [o.label for o in obs if np.hypot(*(np.mean(o.quad, axis=0) - (544, 456))) < 40]
    assert all(lb == UNKNOWN for lb in near), near  # main: ["sashimi"]


@pytest.mark.parametrize("centre_mm, turn", [((372.0, 292.0), 0.0), ((372.0, 292.0), 90.0), ((328.0, 279.0), 0.0)])
def test_a_sashimi_lying_on_the_title_is_still_named(centre_mm, turn):
    # The 4-player mat drawn in watercolour (the frame of adj seed 6600 scene 6), a sashimi laid on
    # its title: the letters cross the card's rim, but its own edges back all four sides.
    from benches import load_bench
    from companion.sim.table import Placement

    mt = load_bench("mat_touching")
    frame = mt.mat_frame([Placement("sashimi", centre_mm, turn)], "watercolour", seed=(6600, 24),
                         tableaux=mt.random_tableaux((6600, 24, 1)))
    quad = np.mean(frame.cards[-1][1], axis=0)
    assert frame.cards[-1][0] == "sashimi"
    obs = read_cards(frame.image, watercolour_deck())
    near = [o.label for o in obs if np.hypot(*(np.mean(o.quad, axis=0) - quad)) < 15]
    assert near == ["sashimi"], near


def test_border_ink_comes_from_the_decks_own_examples():
    # Measured on the enrolled look-alike faces: one value per rim band, ascending, each a share.
    deck = watercolour_deck()
    k = deck.labels.index("sashimi")
    ink = deck.border_ink(k)
    assert ink.shape == (4,) and np.all(np.diff(ink) >= 0) and 0.0 <= ink[0] and ink[-1] <= 1.0
    assert ink[-1] < card_search.TITLE_INK_OVER + 0.2  # a card's own rim is mostly paper
