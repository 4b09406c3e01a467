"""Three right cards pat48 lost (issue #6, branch ``lost49``): drawn touching cards
(``bench/touching_pairs.py``) that the window search before pat48 (2b5e750) read right and pat48's
second grid lost as "not found" (its review's ``repro_lost.sh``). In all three a name only the second
grid gave changed what the layout search was given: on flat 13502 and watercolour tilt 13680 it left
no window outside a named card, so no layout search ran; on pattern 13507 it cut the region the
layout search got, whose first-grid seed then read "unknown" beside the right maki_3. Each test
fails on 6407db0 (pat48 merged)."""

from __future__ import annotations

import numpy as np
import pytest

import test_vision_synth as synth
from benches import load_bench
from companion.rules.sushi_go.cards import UNKNOWN

#: pat48's review drew its tilted look-alike scenes (13680-13699) from these labels only.
MAKI_NIGIRI = ["maki_1", "maki_2", "maki_3", "egg_nigiri", "salmon_nigiri", "squid_nigiri"]


@pytest.fixture(scope="module")
def pairs_bench():
    return load_bench("touching_pairs")


def _read(bench, kind: str, style: str, seed: int, labels: list[str] | None = None):
    from companion.sim.record import enroll_sim_deck
    from companion.vision.cards import read_cards

    saved = list(bench.LABELS)
    if labels is not None:
        bench.LABELS[:] = labels  # the scene draws from the module's list, as the review's script did
    try:
        img, truth, _ = bench.scene(kind, style, seed)
    finally:
        bench.LABELS[:] = saved
    return synth.match_truth(read_cards(img, enroll_sim_deck(style=style)), truth)


def _card_at(pairs, x: float, y: float):
    """The (truth label, reading or None) of the drawn card whose centre lies within 10 px of (x, y)."""
    hits = [(lb, o) for lb, q, o in pairs if np.hypot(*(q.mean(axis=0) - (x, y))) < 10]
    assert len(hits) == 1, "the scene is not the one the test was written for"
    return hits[0]


def _read_right(pairs, x: float, y: float, label: str):
    """The drawn card centred within 10 px of (x, y) is a ``label`` and is read so."""
    truth, reading = _card_at(pairs, x, y)
    assert truth == label
    assert reading is not None and reading.label == label, reading


def _no_wrong_or_spurious(pairs, extra):
    assert all(o is None or o.label in (lb, UNKNOWN) for lb, _, o in pairs)
    assert [o.label for o in extra if o.label != UNKNOWN] == []


def test_pattern_13507_maki_3_beside_a_second_grid_wasabi_is_found(pairs_bench):
    pairs, extra = _read(pairs_bench, "touch", "pattern", 13507)
    _read_right(pairs, 238, 253, "maki_3")
    _read_right(pairs, 318, 216, "wasabi")
    _no_wrong_or_spurious(pairs, extra)


def test_flat_13502_chopsticks_beside_a_second_grid_dumpling_is_found(pairs_bench):
    pairs, extra = _read(pairs_bench, "touch", "flat", 13502)
    _read_right(pairs, 236, 668, "chopsticks")
    _read_right(pairs, 154, 619, "dumpling")
    _no_wrong_or_spurious(pairs, extra)


def test_watercolour_tilt_13680_squid_nigiri_beside_a_second_grid_maki_is_found(pairs_bench):
    pairs, extra = _read(pairs_bench, "tilt", "watercolour", 13680, MAKI_NIGIRI)
    label, reading = _card_at(pairs, 1092, 792)
    assert label == "squid_nigiri"
    assert reading is not None and reading.label == "squid_nigiri"
    _no_wrong_or_spurious(pairs, extra)


def test_the_layout_search_is_given_what_the_first_grids_leave(monkeypatch, pairs_bench):
    # The mechanism behind the three: _unexplained is given no reading only a second grid reached.
    # On flat 13502 the dumpling is such a reading; it must not be among those _unexplained sees,
    # and the layout search must still be given (and so take) its place.
    from companion.vision import card_search

    seen_named, layout_readings = [], []
    unexplained, layout = card_search._unexplained, card_search._layout_search

    def spy_unexplained(regions, named, *a, **k):
        seen_named.append([r.label for r in named])
        return unexplained(regions, named, *a, **k)

    def spy_layout(image, deck, readings, *a, **k):
        layout_readings.append([r.label for r in readings])
        return layout(image, deck, readings, *a, **k)

    monkeypatch.setattr(card_search, "_unexplained", spy_unexplained)
    monkeypatch.setattr(card_search, "_layout_search", spy_layout)
    pairs, _ = _read(pairs_bench, "touch", "flat", 13502)
    assert any("maki_3" in n and "dumpling" not in n for n in seen_named)
    assert any("dumpling" in n for n in layout_readings)


@pytest.mark.parametrize("style, seed, cards", [("watercolour", 13521, [("chopsticks", 233, 256), ("chopsticks", 633, 261)]),
                                                ("watercolour", 13522, [("wasabi", 1027, 254)]),
                                                ("flat", 14032, [("maki_3", 225, 253)])])
def test_pat48s_touching_gains_are_kept(pairs_bench, style, seed, cards):
    # Cards pat48 found and the search before it did not, which a layout search laid only over what
    # the first grids left would lose: on 13521 the second grid over the region a second-grid name
    # cut finds the two chopsticks, on 13522 that region's own first grid finds the wasabi; on 14032
    # that first grid's seed lies beside a better one of the uncut region's grid, which climbs to
    # nothing (its seeds are picked as pat48 picked them, apart from the other set's).
    pairs, extra = _read(pairs_bench, "touch", style, seed)
    for want, x, y in cards:
        label, reading = _card_at(pairs, x, y)
        assert label == want
        assert reading is not None and reading.label == want
    _no_wrong_or_spurious(pairs, extra)


def test_a_window_across_two_second_grid_names_is_not_named(pairs_bench):
    # Held-out watercolour 14134: the layout's first seed set (its grid laid as if the second grid's
    # squid nigiri and egg nigiri were not named) read "squid_nigiri" 0.667 on a window lying on both
    # (0.17 and 0.12 of a card), where no card lies; the search before pat48 named it, pat48 did not.
    pairs, extra = _read(pairs_bench, "touch", "watercolour", 14134)
    _no_wrong_or_spurious(pairs, extra)
