"""The game reader: turn inference over whole games, and frames that must change nothing."""

import random
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from companion.app.fixture import load_fixture
from companion.app.table_game import APPLIED, NO_MAT, TableGame
from companion.app.turns import SeenCard, infer_play
from companion.rules.sushi_go import apply, legal_plays, new_game
from companion.rules.sushi_go.state import SushiGoOptions
from companion.sim.game_sim import choose_play, mat_for
from companion.sim.scene import TableScene
from companion.vision.deck import Deck
from companion.vision.imageio import read_image

FIXTURES = Path(__file__).parent / "fixtures"


def _visible(scene, seat_of):
    """SeenCards per seat from the scene; a wasabi with a nigiri drawn on it is hidden."""
    placements = scene.placements()
    out = {}
    for i, p in enumerate(placements):
        if any(q.center_mm == p.center_mm for q in placements[i + 1 :]):
            continue
        out.setdefault(seat_of(p.center_mm), []).append(SeenCard(p.label, p.center_mm))
    return out


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 10_000), players=st.integers(2, 5), dummy=st.booleans())
def test_turn_inference_recovers_every_play_of_a_whole_game(seed, players, dummy):
    options = SushiGoOptions(dummy=dummy and players == 2)
    names = ["Ann", "Bo", "Cy", "Di", "Ed"][:players]
    layout = mat_for(players, options)
    seat_of = lambda c: layout.zone_at(*c).seat  # noqa: E731
    rng = random.Random(seed)
    state = new_game(names, rng, options)
    scene = TableScene(layout, np.random.default_rng(seed))
    before = {s: [] for s in range(state.seats)}
    while not state.is_over:
        start = state
        plays = {}
        for seat in start.waiting_for():
            plays[seat] = choose_play(rng, legal_plays(state, seat))
            state = apply(state, plays[seat])
        ended = state.is_over or state.round != start.round
        scene.sync(state.round_tableaux[-1] if ended else state.tableaux, start.puddings if ended else state.puddings)
        seen = _visible(scene, seat_of)
        for seat, play in plays.items():
            got = infer_play(names[seat] if seat < len(names) else "Dummy", before[seat], seen.get(seat, []))
            assert sorted(got) == sorted(play.cards), (start.round, start.turn, seat)
        if ended:
            scene.end_round()
            before = {s: [c for c in seen.get(s, []) if c.label == "pudding"] for s in range(state.seats)}
        else:
            before = {s: seen.get(s, []) for s in range(state.seats)}


@pytest.fixture(scope="module")
def deck():
    return Deck.load(FIXTURES / "sim-deck.npz")


def test_a_frame_without_the_mat_changes_nothing(deck):
    game = TableGame(["Ann", "Bo"], mat_for(2, SushiGoOptions()), deck)
    state = game.state
    blank = np.full((480, 640, 3), 120, np.uint8)
    outcome = game.feed(blank)
    assert outcome.kind == NO_MAT and "mat not found" in outcome.message
    assert game.state is state


@pytest.mark.parametrize("frame", [None, np.zeros((10, 10), np.uint8), np.zeros((48, 64, 3), np.float32)])
def test_a_corrupt_frame_changes_nothing(deck, frame):
    game = TableGame(["Ann", "Bo"], mat_for(2, SushiGoOptions()), deck)
    state = game.state
    outcome = game.feed(frame)
    assert outcome.kind == NO_MAT
    assert game.state is state


def test_a_refused_turn_keeps_the_previous_frame_as_reference(deck):
    fx = load_fixture(FIXTURES / "sushi-go-4p")
    game = TableGame(fx.players, mat_for(4, fx.options), deck)
    first = read_image(fx.frames[0])
    assert game.feed(first).kind == APPLIED
    state = game.state
    again = game.feed(first)  # the same table again: nobody took a card
    assert again.kind != APPLIED and "no new card" in again.message
    assert game.state is state
    # the real next frame still reads as turn 2
    assert game.feed(read_image(fx.frames[1])).kind == APPLIED
