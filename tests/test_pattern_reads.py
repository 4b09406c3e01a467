"""Issue #6, the fifth drawn deck ("pattern": kawaii food on textile patterns, ``companion.sim.faces_pattern``):
the fault its tuning seeds showed, which is in every style. Checked against the renderer's truth, never
against the readers' own output."""

from __future__ import annotations

import pytest

from companion.sim.record import enroll_sim_deck


@pytest.fixture(scope="module")
def deck():
    return enroll_sim_deck(style="pattern")


def _reads_round_one(deck, seed: int, players: int, turns: tuple[int, ...], must_show: str | None = None):
    """Play ``turns`` of round 1 of the simulated pattern game (``seed``, ``players``) through the
    game's card tracker and assert every frame reads as the renderer's truth; with ``must_show``, the
    last frame must show that card (so the test keeps testing it if the simulator changes)."""
    from test_table_cards import _assert_reads_truth, _play

    from companion.rules.sushi_go.state import SushiGoOptions
    from companion.sim.game_sim import NAMES, mat_for, simulate_game
    from companion.vision.table_cards import CardTracker

    options = SushiGoOptions(dummy=players == 2)
    frames = [st.frame for st in simulate_game(list(NAMES[:players]), seed, options, style="pattern")
              if st.round == 1 and st.turn in turns]
    if must_show is not None:
        assert any(label == must_show for label, _ in frames[-1].cards)
    layout = mat_for(players, options)
    tracker = CardTracker(layout, deck)
    for s, f in zip(_play(tracker, layout, frames), frames):
        _assert_reads_truth(s, f)


@pytest.mark.parametrize("seed, players, turns", [(351, 2, (1,)), (353, 2, (1, 2, 3, 4))])
def test_a_row_of_small_marks_blurred_by_the_camera_is_counted(deck, seed, players, turns):
    # Tuning seeds 351 and 353 (2 players, round 1): a maki_3 (seed 351, turn 1) and a maki_2
    # (seed 353, turn 4) whose 3.6 mm roll marks, 0.4 mm apart, blur into one bar at 1.3 px/mm.
    # Against the sharp flat-scan examples neither look told the maki apart (the level look's
    # lead 0.08-0.18, under 0.3): "unknown", the turn refused. The level look now also compares
    # the examples blurred as the camera blurs the card.
    _reads_round_one(deck, seed, players, turns)


@pytest.mark.parametrize("seed, players, turns", [(353, 4, (1, 2, 3, 4, 5, 6)), (353, 5, (1, 2)),
                                                  (354, 4, (1, 2, 3, 4, 5, 6, 7))])
def test_a_row_blurred_past_the_examples_is_counted(deck, seed, players, turns):
    # Tuning seeds 353-354 (round 1): a maki_3 (seed 353, 4 players, turn 6) and two maki_2 (seed 353,
    # 5 players, turn 2; seed 354, 4 players, turn 7) the camera blurs more than the examples blurred
    # by 1.5 fine px: the maki's example stays the nearest at every blur, but its lead over the maki
    # with one mark fewer (0.16-0.28) stays under 0.3 until the examples are blurred by 2 fine px.
    _reads_round_one(deck, seed, players, turns)


def test_a_row_whose_colour_the_camera_blurs_more_is_counted(deck):
    # Tuning seed 351, 5 players, round 1 (turns 1-3): a maki_3 whose region's lightness alone leads
    # maki_2 by 1.5 but whose chroma (the roll marks' 1 mm pink centres, blurred more than the
    # lightness by the camera's coarse colour) pulls towards maki_2: with examples blurred alike in
    # every channel the level look's lead stays 0.23 (under 0.3) at every blur, "unknown", the turn
    # refused. The level look now also compares examples whose chroma is blurred more.
    _reads_round_one(deck, 351, 5, (1, 2, 3), must_show="maki_3")


# Loose scenes (bench/loose_scenes.py --style pattern): the scenes of tuning seeds 1296 and 1297, as the
# bench draws it (12 cards of LOOSE_LABELS drawn with the seed, on the seed's table texture).
LOOSE_LABELS = ["tempura", "sashimi", "dumpling", "maki_1", "maki_2", "maki_3", "egg_nigiri", "salmon_nigiri",
                "squid_nigiri", "pudding", "wasabi", "chopsticks"]
LOOSE_KINDS = ["plain", "dark", "felt", "wood", "checker", "blobs"]


@pytest.mark.parametrize("seed", [1296, 1297])
def test_a_maki_on_clipped_white_is_named(deck, monkeypatch, seed):
    # Tuning seeds 1296-1297 of the loose bench: maki_1 and maki_2 whose roll marks sit on a white
    # panel the camera clips (20-48 % of the card clipped). Both looks of the look-alike stage named
    # them right, but the exposure look, also rendering the examples at gains brighter than the one
    # fitted to the card's many unclipped pixels, let the maki with a mark more explain the region
    # nearly as well (leads 0.17-0.42 < 0.45): "unknown". Each maki is read at its true quad; the
    # name must be the renderer's.
    import numpy as np
    import test_vision_synth as synth

    from companion.sim import faces
    from companion.vision.deck import classify_quads

    monkeypatch.setattr(synth, "draw_card_face",
                        lambda label, width: faces.draw_card_face(label, width, style="pattern"))
    rng = np.random.default_rng(seed)
    image, truth = synth.table_scene(list(rng.choice(LOOSE_LABELS, 12)), LOOSE_KINDS[seed % 6], seed)
    makis = [(label, quad) for label, quad in truth if label.startswith("maki")]
    assert len(makis) >= 3  # the scene still holds the cards this test is about
    got = [c.label for c in classify_quads(image, [q for _, q in makis], deck)]
    assert got == [label for label, _ in makis]
