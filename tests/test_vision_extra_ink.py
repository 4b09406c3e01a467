"""The extra-ink look: a card is not named as a label with ink it does not show, nor as one without
ink it does show (issue #6: real photos of a symbol deck read "a striped fill as solid").

On the symbol deck's second print (``bench/symbol_cards.py --style print2``: hair-line stripes, thin
outlines) the whole-card correlation put striped labels first on open cards (0.02-0.10 ahead), and
their templates are no look-alikes (a thin outline correlates poorly with a tinted shape), so the
look-alike stage never compared them: 10 wrong names on 725 cards of never-run boards. Here those
labels are enrolled from the bench's own photos, and cards photographed as on its boards are asked
about."""

from __future__ import annotations

import numpy as np
import pytest

from benches import load_bench
from companion.rules.sushi_go.cards import UNKNOWN
from companion.vision.cards import order_quad
from companion.vision.deck import classify_quads, enroll_images

LABELS = [f"{n}-{c}-{f}-{s}" for n, c, s in ((1, "green", "oval"), (3, "purple", "wave"), (1, "green", "wave"),
                                            (1, "purple", "wave"))
          for f in ("open", "striped", "solid")]


@pytest.fixture(scope="module")
def bench():
    sc = load_bench("symbol_cards")
    sc.use_style("print2")
    return sc


@pytest.fixture(scope="module")
def deck(bench):
    return enroll_images({lb: bench.enrolment_photos(lb, 5, 0) for lb in LABELS})


def _photo(bench, card: str, seed: int, exposure: float | None = None):
    """(image, quad): ``card`` photographed alone as on the bench's boards."""
    rng = np.random.default_rng([seed, 57])
    quad = bench._card_quad(160, 200, rng.uniform(105, 135), rng.uniform(-10, 10), rng)
    return bench.photograph((320, 400), [(card, quad)], rng, exposure=exposure), order_quad(quad.astype(np.float32))


def _scores(deck, named: str, rival: str) -> np.ndarray:
    """Whole-card scores with ``named`` first and ``rival`` 0.05 behind (within the look-alike band)."""
    s = np.full(len(deck.labels), 0.2, np.float32)
    s[deck.labels.index(named)] = 0.8
    s[deck.labels.index(rival)] = 0.75
    return s


def test_a_striped_label_holds_an_open_one_with_ink_added(deck):
    i = {lb: deck.labels.index(lb) for lb in LABELS}
    assert deck._paler_rival(i["1-green-striped-oval"], i["1-green-open-oval"])
    assert deck._paler_rival(i["3-purple-solid-wave"], i["3-purple-open-wave"])
    assert not deck._paler_rival(i["1-green-open-oval"], i["1-green-striped-oval"])
    # other marks in other places are no such pair
    assert not deck._paler_rival(i["3-purple-striped-wave"], i["1-green-open-oval"])


@pytest.mark.parametrize("shape", ["1-green-{}-oval", "3-purple-{}-wave"])
def test_an_open_card_is_not_named_striped(bench, deck, shape):
    op, st = shape.format("open"), shape.format("striped")
    refused_open = 0
    for seed in range(6):
        # exposed so that no paper clips (a clipped card is the exposure look's: the next test)
        img, quad = _photo(bench, op, seed, exposure=0.85)
        assert deck.extra_ink_agrees(img, quad, _scores(deck, op, st), deck.labels.index(op))
        refused_open += not deck.extra_ink_agrees(img, quad, _scores(deck, st, op), deck.labels.index(st))
        img, quad = _photo(bench, st, seed, exposure=0.85)
        assert deck.extra_ink_agrees(img, quad, _scores(deck, st, op), deck.labels.index(st))
    # An open card named striped is refused on (nearly) every photo: the stripes are not there. (A
    # striped card named open seldom is, 0-3 of 6: the open label's own examples reach high ratios
    # where their outline's blur spills inside, and the look only refuses beyond all of them.)
    assert refused_open >= 5


def test_a_clipped_card_is_not_refused_for_a_fill_the_clip_took(bench, deck):
    # Over-exposed, a striped card's hair lines clip with its paper: it shows no fill, yet is not
    # refused its striped name for that (the exposure look judges it, knowing what clipping hides).
    # (Judged as an unclipped card, 4 of these 5 photos were refused.)
    op, st = "3-purple-open-wave", "3-purple-striped-wave"
    for seed in (1, 3, 4, 9, 0):
        img, quad = _photo(bench, st, seed, exposure=1.45)
        assert deck.extra_ink_agrees(img, quad, _scores(deck, st, op), deck.labels.index(st))


def test_a_rival_far_behind_is_not_asked(bench, deck):
    op, st = "1-green-open-oval", "1-green-striped-oval"
    img, quad = _photo(bench, op, 0)
    s = _scores(deck, st, op)
    s[deck.labels.index(op)] = 0.5  # 0.3 behind: out of the look-alike band
    assert deck.extra_ink_agrees(img, quad, s, deck.labels.index(st))


def test_open_cards_are_never_read_striped(bench, deck):
    # Before the look, 6 of these 80 photos read striped (green seeds 23, 32, 36, 38; purple 25, 29).
    wrong, right = [], 0
    for card in ("1-green-open-wave", "1-purple-open-wave"):
        for seed in range(20, 40):
            img, quad = _photo(bench, card, seed)
            got = classify_quads(img, [quad], deck)[0].label
            right += got == card
            if got not in (card, UNKNOWN):
                wrong.append((card, seed, got))
    assert not wrong
    assert right >= 25  # named, most of them (28 of 40): the look refuses the rival's name, not the card's own
