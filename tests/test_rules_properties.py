"""Property tests over random legal Sushi Go! games played by seeded random bots.

Checks that every card is always in exactly one place, that refused actions change nothing, that a
seed always gives the same game, and that replaying a game's reveals as an observed game (hands
secret) gives the same scores as the full-information game.
"""

import pickle
import random
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from companion.rules.errors import IllegalAction
from companion.rules.sushi_go import apply, legal_actions, legal_plays, new_game
from companion.rules.sushi_go.cards import DECK_COUNTS, Card
from companion.rules.sushi_go.record import score_game_record
from companion.rules.sushi_go.state import Play, SushiGoOptions, tableau_cards

NAMES = ["Ann", "Bo", "Cy", "Di", "Ed"]


@st.composite
def setups(draw):
    dummy = draw(st.booleans())
    options = SushiGoOptions(
        same_turn_wasabi_triples=draw(st.booleans()),
        pass_both_ways=draw(st.booleans()),
        dummy=dummy,
        dummy_uses_chopsticks=dummy and draw(st.booleans()),
        dummy_in_pudding_penalty=draw(st.booleans()),
    )
    players = 2 if dummy else draw(st.integers(2, 5))
    return NAMES[:players], options, draw(st.integers(0, 2**32 - 1))


def card_census(state):
    """Every card in the game, wherever it is (deck, hands, dummy pile, face down, table, discard, puddings)."""
    census = Counter(state.deck) + Counter(state.dummy_pile) + Counter(state.discard)
    for hand in state.hands:
        census.update(hand)
    for play in state.pending:
        if play is not None:
            census.update(play.cards)
    for tableau in state.tableaux:
        census.update(tableau_cards(tableau))
    census[Card.PUDDING] += sum(state.puddings)
    return census


def play_game(names, options, seed, check=None):
    """A whole game where each waiting seat in turn picks a random legal play; returns the final state
    and the record of what each seat revealed, round by round, in the ``companion score`` format."""
    rng = random.Random(seed)
    state = new_game(names, random.Random(seed), options)
    rounds = []
    while not state.is_over:
        if state.turn == 1 and state.pending == (None,) * state.seats:
            rounds.append({name: [] for name in state.players})
        seat = state.waiting_for()[0]
        play = rng.choice(legal_plays(state, seat))
        if check:
            check(state, rng)
        rounds[-1][state.players[seat]].append([c.value for c in play.cards] if len(play.cards) == 2 else play.cards[0].value)
        state = apply(state, play)
    record = {"players": names, "rounds": rounds, "options": options.to_dict()}
    return state, record


@settings(max_examples=25, deadline=None)
@given(setups())
def test_every_card_is_in_exactly_one_place(setup):
    names, options, seed = setup

    def check(state, _rng):
        assert card_census(state) == Counter(DECK_COUNTS)
        assert sum(card_census(state).values()) == 108

    state, _ = play_game(names, options, seed, check)
    check(state, None)
    assert len(state.result.round_points) == 3


@settings(max_examples=20, deadline=None)
@given(setups())
def test_same_seed_same_game(setup):
    names, options, seed = setup
    first, record1 = play_game(names, options, seed)
    second, record2 = play_game(names, options, seed)
    assert first == second and first.result == second.result and record1 == record2


@settings(max_examples=20, deadline=None)
@given(setups())
def test_observed_replay_scores_like_the_full_game(setup):
    names, options, seed = setup
    state, record = play_game(names, options, seed)
    observed = score_game_record(record)
    assert observed.totals == state.result.totals
    assert observed.winners == state.result.winners
    assert observed.breakdown == state.result.breakdown


plays = st.builds(
    Play,
    player=st.integers(-1, 5),
    cards=st.lists(st.sampled_from(list(Card)), min_size=0, max_size=3).map(tuple),
)


@settings(max_examples=25, deadline=None)
@given(setups(), st.lists(plays, min_size=1, max_size=40))
def test_fuzzed_plays_are_legal_or_refused_without_change(setup, fuzz):
    names, options, seed = setup
    refused = accepted = 0

    def check(state, rng):
        nonlocal refused, accepted
        play = fuzz[rng.randrange(len(fuzz))]
        snapshot = pickle.dumps(state)
        legal = play in legal_actions(state)
        try:
            apply(state, play)
        except IllegalAction as exc:
            refused += 1
            assert not legal, f"legal play refused: {play} ({exc})"
            assert exc.rule and exc.section
            assert pickle.loads(snapshot) == state
        else:
            accepted += 1
            assert legal, f"illegal play accepted: {play}"

    play_game(names, options, seed, check)
    assert refused + accepted > 0
