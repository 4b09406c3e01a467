"""The game reader: turn inference over whole games, and frames that must change nothing."""

import random
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from companion.app.fixture import load_fixture
from companion.app.table_game import AMBIGUOUS, APPLIED, NO_MAT, Look, TableGame
from companion.app.turns import Ambiguous, SeenCard, infer_play
from companion.rules.sushi_go import apply, legal_plays, new_game
from companion.rules.sushi_go.cards import Card
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
            if isinstance(got, Ambiguous):  # the true order is among those the frame allows
                assert play.cards in got.plays, (start.round, start.turn, seat)
            else:
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


class _Sighting:
    cards: list = []
    rectified = None


def _look(game, seen):
    """A frame's reading as the reader would give it: seat → (label, x mm) cards."""
    cards = {seat: [SeenCard(label, (float(x), 100.0 + 80 * seat)) for label, x in row] for seat, row in seen.items()}
    return Look(cards, "mat found", False, game._accepted, _Sighting(), np.eye(3))


def _wasabi_table(deck, **options):
    """Ann: chopsticks (turn 1), then an open wasabi (turn 2); Bo takes tempura twice."""
    game = TableGame(["Ann", "Bo"], mat_for(2, SushiGoOptions()), deck, SushiGoOptions(**options))
    frame = np.zeros((8, 8, 3), np.uint8)
    assert game.feed(frame, look=_look(game, {0: [("chopsticks", 100)], 1: [("tempura", 100)]})).ok
    assert game.feed(frame, look=_look(game, {0: [("chopsticks", 100), ("wasabi", 160)],
                                              1: [("tempura", 100), ("tempura", 160)]})).ok
    return game, frame


BESIDE = {0: [("wasabi", 160), ("egg_nigiri", 220), ("squid_nigiri", 280)],
          1: [("tempura", 100), ("tempura", 160), ("sashimi", 220)]}


def test_13_1_squid_laid_on_the_wasabi_with_an_egg_beside_scores_the_squid_tripled(deck):
    """#13 item 1 (sushi-go.txt, USING WASABI): squid ×3 + egg = 10, never egg ×3 + squid = 6, whatever
    order the reader lists the two cards in."""
    game, frame = _wasabi_table(deck)
    seen = {0: [("wasabi", 160), ("egg_nigiri", 220), ("squid_nigiri", 163)], 1: BESIDE[1]}
    outcome = game.feed(frame, look=_look(game, seen))
    assert outcome.ok and outcome.plays[0] == (Card.SQUID_NIGIRI, Card.EGG_NIGIRI)
    wasabi = next(p for p in game.state.tableaux[0] if p.card is Card.WASABI)
    assert wasabi.nigiri is Card.SQUID_NIGIRI


def test_13_1_two_nigiri_beside_the_wasabi_are_asked_not_guessed(deck):
    game, frame = _wasabi_table(deck)
    before = game.state
    outcome = game.feed(frame, look=_look(game, BESIDE))
    assert outcome.kind == AMBIGUOUS and game.state is before  # nothing scored by a guess
    q = outcome.question
    assert (q.seat, q.options) == (0, ("egg_nigiri", "squid_nigiri")) and "which nigiri is on the wasabi" in q.text
    assert "Ann" in outcome.message and "USING WASABI" in outcome.message
    answered = game.feed(frame, look=_look(game, BESIDE), first={0: "egg_nigiri"})
    assert answered.ok and answered.plays[0] == (Card.EGG_NIGIRI, Card.SQUID_NIGIRI)
    wasabi = next(p for p in game.state.tableaux[0] if p.card is Card.WASABI)
    assert wasabi.nigiri is Card.EGG_NIGIRI


def test_an_order_that_changes_nothing_is_not_asked(deck):
    """A nigiri and a new wasabi beside each other under the default rule: the nigiri goes on the
    open wasabi either way (same_turn_wasabi_triples off), so there is nothing to ask."""
    game, frame = _wasabi_table(deck)
    seen = {0: [("wasabi", 160), ("wasabi", 220), ("squid_nigiri", 280)], 1: BESIDE[1]}
    outcome = game.feed(frame, look=_look(game, seen))
    assert outcome.ok


def test_with_same_turn_wasabi_triples_a_nigiri_beside_a_new_wasabi_is_asked(deck):
    game = TableGame(["Ann", "Bo"], mat_for(2, SushiGoOptions()), deck, SushiGoOptions(same_turn_wasabi_triples=True))
    frame = np.zeros((8, 8, 3), np.uint8)
    assert game.feed(frame, look=_look(game, {0: [("chopsticks", 100)], 1: [("tempura", 100)]})).ok
    seen = {0: [("wasabi", 160), ("squid_nigiri", 220)], 1: [("tempura", 100), ("tempura", 160)]}
    outcome = game.feed(frame, look=_look(game, seen))
    assert outcome.kind == AMBIGUOUS and outcome.question.options == ("squid_nigiri", "wasabi")
    assert "which card was taken first" in outcome.question.text
    on_it = {0: [("wasabi", 160), ("squid_nigiri", 165)], 1: seen[1]}  # lying on the new wasabi: decided
    assert game.feed(frame, look=_look(game, on_it)).plays[0] == (Card.WASABI, Card.SQUID_NIGIRI)



class _TrackerSpy:
    """Stands in for the card tracker: records what the game asks of it."""

    def __init__(self):
        self.calls = []

    def accept(self, sighting):
        self.calls.append("accept")

    def clear(self, keep):
        self.calls.append(("clear", frozenset(keep)))


def test_a_rounds_end_clears_the_card_tracker_of_all_but_the_puddings(deck):
    # sushi-go.txt, BEFORE STARTING A NEW ROUND: every card but the puddings is discarded. The tracker
    # must drop the others, or a new round's card laid in the very slot of a look-alike (a maki_2
    # where a maki_1 lay) is taken for the old card (issue #6, seed 271). A look made before the
    # clear is stale.
    game = TableGame(["Ann", "Bo"], mat_for(2, SushiGoOptions()), deck)
    spy = game.cards = _TrackerSpy()
    frame = np.zeros((8, 8, 3), np.uint8)
    rows = {0: [], 1: []}
    for turn in range(10):  # a 2-player round: 10 cards each (sushi-go.txt, SETUP)
        rows[0].append(("pudding" if turn == 0 else "tempura", 100 + 50 * turn))
        rows[1].append(("sashimi", 100 + 50 * turn))
        look = _look(game, rows)
        assert game.feed(frame, look=look).kind == APPLIED
        assert (("clear", frozenset({"pudding"})) in spy.calls) == (turn == 9)
    assert game.state.round == 2
    assert spy.calls[-2:] == ["accept", ("clear", frozenset({"pudding"}))]
    assert look.accepted != game._accepted  # the last round's look is not used again
