"""Issue #6, the fourth drawn deck ("watercolour": pale washes on white stock as light as the mat,
``companion.sim.faces_watercolour``): the faults its tuning seeds showed, which are in every style.
Checked against the renderer's truth, never against the readers' own output."""

from __future__ import annotations

import numpy as np
import pytest

from companion.rules.sushi_go.cards import UNKNOWN
from companion.sim.record import enroll_sim_deck


@pytest.fixture(scope="module")
def deck():
    return enroll_sim_deck(style="watercolour")


def test_a_card_as_pale_as_the_mat_is_found_by_its_art_and_at_its_turn(deck):
    # Tuning seed 143, 2 players, round 2: a new chopsticks' paper is the mat's colour, so only its
    # art (26 % of it) changed; the window at its true place (0.96) failed the "on changed pixels"
    # test (30 %) and a window 4.3 mm off (0.71) was taken instead. Next turn, a maki_3 laid -3.7°
    # turned was searched at its blob's turn (+6.5°), where the look-alike stage could not tell its
    # roll count: "unknown", the turn refused.
    from test_table_cards import _assert_reads_truth, _play

    from companion.rules.sushi_go.state import SushiGoOptions
    from companion.sim.game_sim import NAMES, mat_for, simulate_game
    from companion.vision.table_cards import CardTracker

    options = SushiGoOptions(dummy=True)
    frames = [st.frame for st in simulate_game(list(NAMES[:2]), 143, options, style="watercolour")
              if st.round == 2 and st.turn in (3, 4, 5)]
    layout = mat_for(2, options)
    tracker = CardTracker(layout, deck)
    for s, f in zip(_play(tracker, layout, frames), frames):
        _assert_reads_truth(s, f)


def test_a_washed_out_pale_card_is_not_named_as_a_darker_one(deck, monkeypatch):
    # Tuning loose scene 524 (green felt): a squid nigiri 72 % clipped reads maki_2 0.614, maki_3,
    # maki_1 0.575, squid 0.552 as a whole (the correlation scales its faint remains up); the
    # look-alike stage settled on maki_1, above the bar: a wrong name. The exposure look now also
    # renders the paler rivals that are not the label's look-alikes, and the maki explains the
    # card no better than the squid.
    import test_vision_synth as scenes

    from companion.sim import faces
    from companion.vision.deck import classify_quads

    monkeypatch.setattr(scenes, "draw_card_face", lambda label, width: faces.draw_card_face(label, width, style="watercolour"))
    labels = ["tempura", "sashimi", "dumpling", "maki_1", "maki_2", "maki_3", "egg_nigiri", "salmon_nigiri",
              "squid_nigiri", "pudding", "wasabi", "chopsticks"]
    rng = np.random.default_rng(524)
    image, truth = scenes.table_scene(list(rng.choice(labels, 12)), "felt", 524)
    readings = classify_quads(image, [q.astype(np.float32) for _, q in truth], deck)
    for (label, _), r in zip(truth, readings):
        assert r.label in (label, UNKNOWN), (label, r.label, r.score)
    assert sum(r.label == label for (label, _), r in zip(truth, readings)) >= 10  # not all "unknown"


def test_a_pale_card_whose_paper_is_a_shade_off_the_mat_is_found_by_the_blob_it_holds(deck):
    # Seed 182, 3 players (held out, then looked at), round 2 turn 7: a new chopsticks' paper is
    # about the change threshold lighter than the mat, so only its art and one rim changed (26 % of
    # it) while the mat, shaded darker round it, made 64 % of it "not bare"; the window at its place
    # (0.96) failed both "on changed pixels" tests, and the game waited for a card that lay there.
    # The window holds the whole blob of change it was found in.
    from test_table_cards import _assert_reads_truth, _play

    from companion.rules.sushi_go.state import SushiGoOptions
    from companion.sim.game_sim import NAMES, mat_for, simulate_game
    from companion.vision.table_cards import CardTracker

    options = SushiGoOptions(dummy=False)
    frames = [st.frame for st in simulate_game(list(NAMES[:3]), 182, options, style="watercolour")
              if st.round == 2 and st.turn in (6, 7)]
    layout = mat_for(3, options)
    tracker = CardTracker(layout, deck)
    for s, f in zip(_play(tracker, layout, frames), frames):
        _assert_reads_truth(s, f)


def test_the_share_of_a_blob_inside_a_window():
    from companion.vision.table_cards import _share_inside

    quad = np.array([[0, 0], [44, 0], [44, 63], [0, 63]], np.float32)
    pts = np.array([[1, 1], [43, 62], [22, 30], [50, 30], [-1, 10]], np.float32)
    assert _share_inside(pts, quad) == pytest.approx(3 / 5)
    assert _share_inside(pts, quad[::-1].copy()) == pytest.approx(3 / 5)  # either winding
    assert _share_inside(np.zeros((0, 2), np.float32), quad) == 0.0


def test_a_card_whose_art_repeats_is_found_at_its_place_not_a_period_off(deck):
    # Seed 201, 2 players (held out, then looked at), round 1 turn 5, as the game reads it (its
    # own mat tracking): a sashimi's slices repeat about 8 mm apart, and the window search found it
    # 8.2 mm off its place (0.87 there, 0.97 in place; halfway 0.74): the compass search climbs
    # the peak it starts on.
    import cv2

    from companion.app.table_game import TableGame
    from companion.rules.sushi_go.state import SushiGoOptions
    from companion.sim.game_sim import NAMES, mat_for, simulate_game

    options = SushiGoOptions(dummy=True)
    names = list(NAMES[:2])
    game = TableGame(names, mat_for(2, options), deck, options)
    for st in simulate_game(names, 201, options, style="watercolour"):
        assert game.feed(st.frame.image).ok
        if st.round == 1 and st.turn == 5:
            break
    seen = [np.array(c.rect_mm[0]) for c in game._sighting.cards if c.label == "sashimi"]
    for label, quad in st.frame.cards:
        if label == "sashimi":
            centre = cv2.perspectiveTransform(quad[None].astype(np.float64), game.tracker.homography)[0].mean(axis=0)
            assert min(np.linalg.norm(centre - c) for c in seen) < 2.0, (centre, seen)
