"""The game's card tracker (companion.vision.table_cards) on simulated frames of both card styles,
checked against the renderer's ground truth (labels and places), never against its own output.

Figures for whole games (bench/sim_games.py, README): the tracker is what `companion replay` and
`companion demo` read a game with.
"""

from __future__ import annotations

import numpy as np
import pytest

from companion.rules.sushi_go.cards import UNKNOWN
from companion.sim.record import enroll_sim_deck
from companion.sim.table import Placement, ShotConditions, render_table
from companion.vision.mat_layout import load_mat_layout
from companion.vision.table_cards import CardTracker

CENTRE_MM = 4.0  # a card found this close to its true centre is in the right place


@pytest.fixture(scope="module")
def decks():
    return {style: enroll_sim_deck(style=style) for style in ("flat", "illustrated")}


def _frames(players: int, scenes: list[list[Placement]], seed: int, style: str):
    """One frame per scene, same camera and light (one game), fresh sensor noise each."""
    layout = load_mat_layout(players)
    rng = np.random.default_rng(seed)
    cond = ShotConditions.random(rng)
    return layout, [render_table(layout, s, rng=rng, conditions=cond, style=style) for s in scenes]


def _truth_mm(frame):
    """[(label, centre mm)] of the visible cards (a card drawn under a later one is hidden)."""
    inv = np.linalg.inv(frame.homography)
    out = []
    for i, (label, quad) in enumerate(frame.cards):
        if any(np.linalg.norm(quad.mean(0) - q.mean(0)) < 3 for _, q in frame.cards[i + 1:]):
            continue
        p = inv @ np.r_[quad.mean(axis=0), 1.0]
        out.append((label, p[:2] / p[2]))
    return out


def _assert_reads_truth(sighting, frame) -> None:
    truth = _truth_mm(frame)
    seen = [(c.label, np.array(c.rect_mm[0])) for c in sighting.cards]
    assert len(seen) == len(truth), (sorted(s[0] for s in seen), sorted(t[0] for t in truth))
    for label, centre in truth:
        d = [np.linalg.norm(centre - c) for _, c in seen]
        i = int(np.argmin(d))
        assert d[i] < CENTRE_MM, f"{label} at {centre}: nearest reading {d[i]:.1f} mm away"
        assert seen[i][0] == label, f"{label} at {centre} read as {seen[i][0]}"


def _play(tracker, layout, frames):
    sightings = []
    for f in frames:
        s = tracker.read(f.image, np.linalg.inv(f.homography))
        tracker.accept(s)
        sightings.append(s)
    return sightings


PALE = ["dumpling", "pudding", "squid_nigiri", "sashimi", "egg_nigiri", "salmon_nigiri", "chopsticks"]


@pytest.mark.parametrize("style", ["flat", "illustrated"])
def test_a_growing_tableau_is_read_card_by_card(decks, style):
    # Cards arrive one or two at a time in a row 4 mm apart, pale ones next to each other.
    row = PALE + ["maki_2", "tempura"]
    layout = load_mat_layout(4)
    scenes = [[Placement(lab, (110 + 48 * i, 430), 0.0) for i, lab in enumerate(row[:k])] for k in range(1, len(row) + 1)]
    layout, frames = _frames(4, scenes, 5, style)
    tracker = CardTracker(layout, decks[style])
    for s, f in zip(_play(tracker, layout, frames), frames):
        _assert_reads_truth(s, f)


def test_two_pale_cards_three_mm_apart_are_two_cards(decks):
    # The case: a tempura beside a pudding came back as one card. Here both are pale in
    # the illustrated style, and only 3 mm apart, on the 5-player mat.
    cards = [Placement("dumpling", (200, 560), 0.0), Placement("pudding", (247, 560), 0.0)]
    layout, frames = _frames(5, [cards[:1], cards], 11, "illustrated")
    tracker = CardTracker(layout, decks["illustrated"])
    for s, f in zip(_play(tracker, layout, frames), frames):
        _assert_reads_truth(s, f)


def test_a_seats_single_pale_first_card_is_found_on_the_5_player_mat(decks):
    # The other case from the issue: a lone first card was not found at all.
    cards = [Placement("squid_nigiri", (150, 560), 0.0), Placement("sashimi", (560, 120), 180.0)]
    layout, frames = _frames(5, [cards], 3, "illustrated")
    tracker = CardTracker(layout, decks["illustrated"])
    s = tracker.read(frames[0].image, np.linalg.inv(frames[0].homography))
    assert s.fresh
    _assert_reads_truth(s, frames[0])


def test_labels_stay_put_on_a_table_that_does_not_change(decks):
    # The same cards, frame after frame, with fresh noise: every card keeps its name (no card may
    # flip between two names), and nothing appears or vanishes.
    cards = [Placement(lab, (110 + 50 * i, 430), 0.0) for i, lab in enumerate(["maki_1", "maki_2", "maki_3"])]
    cards += [Placement(lab, (110 + 50 * i, 500), 0.0) for i, lab in enumerate(["egg_nigiri", "salmon_nigiri",
                                                                                "squid_nigiri"])]
    layout, frames = _frames(4, [cards] * 5, 17, "illustrated")
    tracker = CardTracker(layout, decks["illustrated"])
    sightings = _play(tracker, layout, frames)
    for s, f in zip(sightings, frames):
        _assert_reads_truth(s, f)
    # Not just the same names: the same cards, where they were (kept, not found afresh).
    first = {c.rect_mm[0]: c.label for c in sightings[0].cards}
    for s in sightings[1:]:
        assert {c.rect_mm[0]: c.label for c in s.cards} == first


def test_a_look_alike_swapped_in_place_is_noticed(decks):
    # A new round's maki laid exactly where last round's maki lay differs only in its corner mark.
    a = [Placement("maki_2", (300, 430), 0.0), Placement("tempura", (350, 430), 0.0)]
    b = [Placement("maki_3", (300, 430), 0.0), Placement("tempura", (350, 430), 0.0)]
    layout, frames = _frames(4, [a, b], 23, "illustrated")
    tracker = CardTracker(layout, decks["illustrated"])
    for s, f in zip(_play(tracker, layout, frames), frames):
        _assert_reads_truth(s, f)


def test_reading_changes_nothing_until_the_reading_is_accepted(decks):
    a = [Placement("tempura", (150, 430), 0.0)]
    b = a + [Placement("wasabi", (200, 430), 0.0)]
    layout, frames = _frames(4, [a, b, b], 29, "flat")
    tracker = CardTracker(layout, decks["flat"])
    first = tracker.read(frames[0].image, np.linalg.inv(frames[0].homography))
    tracker.accept(first)
    kept = list(tracker.cards)
    tracker.read(frames[1].image, np.linalg.inv(frames[1].homography))  # the game refused this turn
    assert tracker.cards == kept
    again = tracker.read(frames[2].image, np.linalg.inv(frames[2].homography))
    _assert_reads_truth(again, frames[2])  # compared with the accepted frame: the wasabi is new


def test_a_card_the_deck_does_not_know_is_unknown_never_another_name(decks):
    import shutil
    import tempfile
    from pathlib import Path

    from companion.sim.faces import write_deck_folder
    from companion.vision.deck import enroll_folder

    with tempfile.TemporaryDirectory() as tmp:
        write_deck_folder(Path(tmp), style="illustrated")
        shutil.rmtree(Path(tmp) / "pudding")
        partial = enroll_folder(Path(tmp))
    a = [Placement("tempura", (150, 430), 0.0)]
    b = a + [Placement("pudding", (200, 430), 0.0)]
    layout, frames = _frames(4, [a, b], 31, "illustrated")
    tracker = CardTracker(layout, partial)
    s = _play(tracker, layout, frames)[-1]
    labels = sorted(c.label for c in s.cards)
    assert labels == sorted(["tempura", UNKNOWN]), labels


@pytest.mark.parametrize("nigiri", ["salmon_nigiri", "egg_nigiri", "squid_nigiri"])
def test_the_bare_mat_a_card_left_beside_a_new_card_is_not_a_card(decks, nigiri):
    # A new round in seat 3: the tempura and the sashimi below it are cleared, and a pale nigiri is
    # laid where the sashimi lay. A window on the bare mat the tempura left, shifted down so that it
    # takes in a strip of the new nigiri (less than the overlap a card may have with its neighbour),
    # matched a maki in the whole-card match; the strip made it look "not bare", and it was read as an
    # "unknown" card (which refuses the turn). The strip is the nigiri's: the window itself is bare.
    a = [Placement("pudding", (680.5, 123.4), 177.5), Placement("tempura", (729.6, 121.9), -177.3),
         Placement("maki_1", (681.5, 193.5), -177.1), Placement("sashimi", (732.7, 192.9), 179.5)]
    b = [Placement("pudding", (680.5, 123.4), 177.5), Placement(nigiri, (732.7, 192.9), 179.5)]
    layout, frames = _frames(4, [a, b], 14, "illustrated")
    tracker = CardTracker(layout, decks["illustrated"])
    for s, f in zip(_play(tracker, layout, frames), frames):
        _assert_reads_truth(s, f)


@pytest.fixture(scope="module")
def noir_deck():
    return enroll_sim_deck(style="noir")


@pytest.mark.parametrize("label", ["wasabi", "tempura"])
def test_a_new_thin_line_art_card_between_the_coarse_windows_is_found(noir_deck, label):
    # Issue #6, the noir deck (near-black faces, thin gold line-art): seed 93's 2-player game stopped
    # on a wasabi laid here, read "unknown". Its change blob takes in a strip of shadow, so the coarse
    # windows (5 mm apart) all lie 2 mm or more off the card, where thin line art reads under 0.42:
    # no window reached the seed cut, though the card reads 0.9 in place. Here the card lies where the
    # coarse grid straddles it (with the blob's best window not refined, both read "unknown").
    base = [Placement("maki_2", (286, 193), 180.0), Placement("sashimi", (210, 402), 0.0)]
    scenes = [base, base + [Placement(label, (630.5, 194), 180.0)]]
    layout, frames = _frames(3, scenes, 7, "noir")
    tracker = CardTracker(layout, noir_deck)
    for s, f in zip(_play(tracker, layout, frames), frames):
        _assert_reads_truth(s, f)


def test_an_untouched_card_is_kept_when_a_neighbour_is_read_again(decks):
    # Issue #6: when one kept card had a few changed pixels (re-read in place), the kept cards with
    # none were dropped and searched for afresh; a noir wasabi kept at 0.778 then read 0.775 and
    # vanished under the window search's bar (0.775). Every untouched card must stay as it was.
    cards = [Placement(lab, (110 + 50 * i, 430), 0.0) for i, lab in enumerate(["maki_1", "wasabi", "tempura"])]
    layout, frames = _frames(4, [cards], 19, "flat")
    tracker = CardTracker(layout, decks["flat"])
    first = _play(tracker, layout, frames)[0]
    _assert_reads_truth(first, frames[0])
    changed = np.zeros(first.rectified.shape[:2], np.uint8)
    (x, y), _, _ = tracker.cards[0].rect_mm
    changed[int(y) - 1:int(y) + 2, int(x) - 1:int(x) + 2] = 255  # 9 mm² inside the first card only
    kept = tracker._kept(frames[0].image, np.linalg.inv(frames[0].homography), changed)
    assert len(kept) == len(tracker.cards)
    for card in tracker.cards[1:]:
        assert card in kept  # the very same card: not read again, not moved


def test_a_new_card_turned_a_few_degrees_is_searched_at_its_own_turn(noir_deck):
    # Issue #6: a new noir tempura lay 3.3° turned; cv2.minAreaRect gave its blob as -86.7°, which
    # the window search took for "not near square" and searched at 0°, where its thin lines read
    # 0.04 lower, under the bar. Turned the other way (-3.3°) it was found at its turn.
    import cv2

    base = [Placement("maki_2", (286, 193), 180.0), Placement("sashimi", (210, 402), 0.0)]
    scenes = [base, base + [Placement("tempura", (630.5, 194), 176.7)]]
    layout, frames = _frames(3, scenes, 7, "noir")
    tracker = CardTracker(layout, noir_deck)
    s = _play(tracker, layout, frames)[-1]
    _assert_reads_truth(s, frames[-1])

    def fold(a: float) -> float:
        return (a + 45.0) % 90.0 - 45.0

    quad = np.array([q for label, q in frames[-1].cards if label == "tempura"][0], np.float64)
    true_mm = cv2.perspectiveTransform(quad[None], np.linalg.inv(frames[-1].homography))[0].astype(np.float32)
    want = fold(cv2.minAreaRect(true_mm)[2])
    got = [fold(c.rect_mm[2]) for c in s.cards if c.label == "tempura"][0]
    assert abs(got - want) < 2.0, (got, want)


@pytest.fixture(scope="module")
def watercolour_deck():
    return enroll_sim_deck(style="watercolour")


@pytest.mark.parametrize("label", ["maki_1", "maki_2", "maki_3"])
def test_a_look_alike_found_a_period_off_its_place_is_moved_and_named(watercolour_deck, label):
    # Issue #6, held-out seed 221 (5 players, watercolour): a pale maki_2 turned 180° was found 9 mm
    # off its place, upside down (the cylinder's art, turned, reads 0.75-0.80 there against 0.95+ in
    # place), and left there "unknown": the look-alike stage cannot count rolls on a face it sees
    # upside down (here a maki_2 or maki_3 even reads maki_1 there: no rolls where they should be).
    # The shifts that look for a better place were taken only where the whole-card label stayed the
    # same and the card's name was kept, and a maki's whole-card label flips among its look-alikes
    # from window to window. Here the search's find is given 9 mm off, as read there; it must end in
    # place, named right.
    import cv2

    from companion.vision.table_cards import TrackedCard

    layout = load_mat_layout(5)
    rng = np.random.default_rng(3)
    frame = render_table(layout, [Placement(label, (400, 300), 180.0)], rng=rng,
                         conditions=ShotConditions.random(rng), style="watercolour")
    tracker = CardTracker(layout, watercolour_deck)
    to_mm = np.linalg.inv(frame.homography)
    rect = ((400.0, 291.0), (44.0, 63.0), 0.0)
    found = tracker._classify(frame.image, to_mm, [rect], quick=False)[0]
    assert found.label != label  # not read right where it was found (the case to mend)
    start = TrackedCard(found.label, rect, found.score, found.confidence, tuple(map(tuple, found.quad)))
    card, = tracker._at_best_peaks(frame.image, to_mm, [start], [])
    true_mm = cv2.perspectiveTransform(frame.cards[0][1][None].astype(np.float64), to_mm)[0].mean(axis=0)
    assert np.linalg.norm(np.array(card.rect_mm[0]) - true_mm) < CENTRE_MM
    assert card.label == label


@pytest.mark.parametrize("old,new", [("maki_1", "maki_2"), ("maki_3", "maki_1")])
def test_a_new_rounds_card_in_the_very_slot_of_a_cleared_look_alike_is_read_afresh(watercolour_deck, old, new):
    # Issue #6, never-run seed 271 (4 players, watercolour): round 2's first card lay in the very
    # slot, at the very pose, of round 1's last maki_1, with no frame in between. Against the old
    # reference only its corner rolls changed, specks the change map's opening removes, so the old
    # card was kept untouched and the maki_2 read maki_1. At a round's end the game clears the
    # tracker (sushi-go.txt, BEFORE STARTING A NEW ROUND): every card but the puddings is dropped, and
    # its place is where a card lay, tried directly by the window search.
    slot = ((250.0, 430.0), 3.0)
    a = [Placement("pudding", (150, 430), -2.0), Placement("tempura", (200, 430), 1.0), Placement(old, *slot)]
    b = [Placement("pudding", (150, 430), -2.0), Placement(new, *slot)]
    # Seed 43: here, as in seed 271, the old code kept the maki_1 untouched.
    layout, frames = _frames(4, [a, b], 43, "watercolour")
    tracker = CardTracker(layout, watercolour_deck)
    _assert_reads_truth(_play(tracker, layout, frames[:1])[0], frames[0])
    pudding = next(c for c in tracker.cards if c.label == "pudding")
    tracker.clear({"pudding"})
    assert [c.label for c in tracker.cards] == ["pudding"]
    s = tracker.read(frames[1].image, np.linalg.inv(frames[1].homography))
    _assert_reads_truth(s, frames[1])  # the new card named right; the tempura's bare slot is no card
    assert pudding in s.cards  # the pudding kept where it lay, not found afresh
