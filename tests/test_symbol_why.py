"""``bench/symbol_why.py`` takes a card through ``classify_quads``' stages one by one: it must agree
with ``classify_quads`` on which cards are named, and leave the deck module as it found it."""

from __future__ import annotations

import numpy as np
import pytest

from benches import load_bench
from companion.rules.sushi_go.cards import UNKNOWN
from companion.vision import deck as deck_mod
from companion.vision.deck import classify_quads, enroll_images


@pytest.fixture(scope="module")
def bench():
    sc, why = load_bench("symbol_cards"), load_bench("symbol_why")
    # Red and purple, open and striped ovals: look-alikes by fill and rivals by ink, as on the bench.
    labels = [f"2-{c}-{f}-oval" for c in ("red", "purple") for f in ("open", "striped")]
    return sc, why, labels, enroll_images({lb: sc.enrolment_photos(lb, 5, 0) for lb in labels})


def test_the_diagnosis_names_a_card_exactly_where_classify_quads_does(bench):
    sc, why, labels, deck = bench
    outcomes = set()
    for seed in range(8):
        rng = np.random.default_rng(seed)
        # Ordinary light, and over-exposed (the paper clipped: the exposure look judges the card).
        exposure = (None, 1.3)[seed % 2]
        cards = [(lb, sc._card_quad(150 + 250 * i, 200, rng.uniform(105, 135), rng.uniform(-10, 10), rng))
                 for i, lb in enumerate(labels)]
        img = sc.photograph((1000, 400), cards, rng, exposure=exposure)
        for (label, quad), got in zip(cards, classify_quads(img, [q for _, q in cards], deck)):
            cause, _ = why.diagnose(deck, img, quad, label)
            outcomes.add(cause)
            assert (cause == "passes here") == (got.label != UNKNOWN), (seed, label, got.label, cause)
    # Both kinds were seen: cards named, and cards some stage refused.
    assert "passes here" in outcomes and len(outcomes) > 1, outcomes


def test_the_recording_leaves_the_deck_module_as_it_was(bench):
    _, why, _, _ = bench
    before = (deck_mod._unmixed_lead, deck_mod._exposure_lead, deck_mod.Deck._by_pattern, deck_mod.Deck._by_level)
    with why.recording(deck_mod) as rec:
        assert deck_mod._exposure_lead is not before[1]
        deck_mod._exposure_lead(1.0, 3.0)
    assert rec["leads"] == [0.5]
    assert (deck_mod._unmixed_lead, deck_mod._exposure_lead, deck_mod.Deck._by_pattern,
            deck_mod.Deck._by_level) == before
