"""Property tests over random legal Sushi Express games played by seeded random bots.

Checks that vans share a tile only before their first move, that every card is always in exactly one
place, that games end, that refused actions change nothing, that a seed always gives the same game, and
that a game replays from dice given from outside (as the camera will) without any rng.
"""

import pickle
import random
from collections import Counter
from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from companion.rules.errors import IllegalAction
from companion.rules.sushi_express import apply, legal_actions, new_game, random_game
from companion.rules.sushi_express.state import (
    ACTION_COUNTS,
    CUSTOMER_COUNTS,
    SUSHI_EXPRESS,
    AcceptRoll,
    Customer,
    Deliver,
    EndTurn,
    Exchange,
    Guess,
    Move,
    Phase,
    ReRoll,
    Roll,
    SushiExpressOptions,
)

NAMES = ("Ann", "Bo", "Cy", "Di", "Ed", "Flo")
#: Far more actions than any real game takes (a few hundred at most); reaching it means a game that never ends.
MAX_ACTIONS = 5000

setups = st.tuples(st.integers(3, 6), st.integers(0, 2**32 - 1), st.booleans())


def check_vans(state):
    """Only vans that have never moved share a tile, and that tile is Sushi Express (3. move delivery
    vans, Note: "only at the start of the game will delivery vans share the same tile")."""
    tiles = Counter(state.vans)
    for seat, tile in enumerate(state.vans):
        if not state.has_moved[seat]:
            assert tile == SUSHI_EXPRESS
        elif tiles[tile] > 1:
            raise AssertionError(f"{state.players[seat]} shares tile {tile} after moving: {state.vans}")


def check_cards(state):
    actions = Counter(state.action_supply) + Counter(state.played_actions)
    for hand in state.hands:
        actions.update(hand)
    assert actions == Counter(ACTION_COUNTS)
    customers = Counter(state.customer_supply) + Counter(state.display) + Counter(state.customer_discard)
    for cards in state.collected:
        customers.update(cards)
    assert customers == Counter(CUSTOMER_COUNTS)
    assert len(state.display) <= state.seats
    if state.phase is Phase.GUESS and state.guess_turn == 0:
        assert len(state.display) == state.seats


def play(players, seed, equal_tips, each=None):
    """A whole random game; returns the final state and the log of (action, dice after it)."""
    rng = random.Random(seed)
    state = new_game(NAMES[:players], rng, SushiExpressOptions(equal_tips_penalty=equal_tips))
    log = []
    for _ in range(MAX_ACTIONS):
        if state.is_over:
            return state, log
        if each:
            each(state, rng)
        action = rng.choice(legal_actions(state))
        state = apply(state, action, rng)
        log.append((action, state.dice))
    raise AssertionError("the game did not end")


@settings(max_examples=30, deadline=None)
@given(setups)
def test_random_games_keep_vans_apart_conserve_cards_and_end(setup):
    players, seed, equal_tips = setup

    def check(state, _rng):
        check_vans(state)
        check_cards(state)

    state, _ = play(players, seed, equal_tips, check)
    check(state, None)
    result = state.result
    assert state.is_over and result is not None
    for seat, name in enumerate(state.players):
        assert sum(l.points for l in result.breakdown if l.player == name) == result.totals[seat]
        assert result.tie_break[seat] == state.actions_left(seat)
    # The game ended because the supply could not fill the display.
    assert len(state.customer_supply) < state.seats - len(state.display)


@settings(max_examples=15, deadline=None)
@given(setups)
def test_same_seed_same_game(setup):
    players, seed, equal_tips = setup
    options = SushiExpressOptions(equal_tips_penalty=equal_tips)
    assert random_game(seed, players, options) == random_game(seed, players, options)
    a, log_a = play(players, seed, equal_tips)
    b, log_b = play(players, seed, equal_tips)
    assert a == b and log_a == log_b


@settings(max_examples=15, deadline=None)
@given(setups)
def test_replay_with_given_dice_needs_no_rng(setup):
    players, seed, equal_tips = setup
    rng = random.Random(seed)
    state = new_game(NAMES[:players], rng, SushiExpressOptions(equal_tips_penalty=equal_tips))
    start = state
    given_log = []
    while not state.is_over:
        action = rng.choice(legal_actions(state))
        if isinstance(action, Roll):
            action = Roll(action.player, (rng.randint(1, 6), rng.randint(1, 6)))
        elif isinstance(action, ReRoll):
            action = ReRoll(action.player, action.die, rng.randint(1, 6))
        given_log.append(action)
        state = apply(state, action)  # no rng: every face is given
    again = start
    for action in given_log:
        again = apply(again, action)
    assert again == state


actions = st.one_of(
    st.builds(Guess, st.integers(-1, 6), st.integers(0, 13), st.booleans()),
    st.builds(Exchange, st.integers(-1, 6), st.integers(1, 13), st.integers(1, 13)),
    st.builds(EndTurn, st.integers(-1, 6)),
    st.builds(Roll, st.integers(-1, 6), st.none() | st.tuples(st.integers(0, 7), st.integers(0, 7))),
    st.builds(ReRoll, st.integers(-1, 6), st.integers(-1, 2), st.none() | st.integers(0, 7)),
    st.builds(AcceptRoll, st.integers(-1, 6)),
    st.builds(Move, st.integers(-1, 6), st.integers(-1, 3), st.none() | st.sampled_from(list(Customer))),
    st.builds(Deliver, st.integers(-1, 6), st.booleans()),
)


def faces_valid(action):
    """Whether the faces an action gives (if any) are die faces."""
    if isinstance(action, Roll) and action.faces is not None:
        return all(1 <= f <= 6 for f in action.faces)
    if isinstance(action, ReRoll) and action.face is not None:
        return 1 <= action.face <= 6
    return True


def as_listed(action):
    """The form legal_actions lists: rolls without their faces."""
    if isinstance(action, Roll):
        return Roll(action.player)
    if isinstance(action, ReRoll):
        return ReRoll(action.player, action.die)
    return action


def near_miss(state, rng):
    action = rng.choice(legal_actions(state))
    name = rng.choice([f for f in vars(action)])
    value = getattr(action, name)
    if isinstance(value, bool):
        new = not value
    elif isinstance(value, int):
        new = value + rng.choice((-1, 1))
    elif isinstance(value, Customer) or value is None and name == "take":
        new = rng.choice([None, *Customer])
    else:
        new = (rng.randint(0, 7), rng.randint(0, 7)) if name == "faces" else rng.randint(0, 7)
    return replace(action, **{name: new})


@settings(max_examples=25, deadline=None)
@given(setups, st.lists(actions, min_size=1, max_size=30))
def test_fuzzed_actions_are_legal_or_refused_without_change(setup, fuzz):
    players, seed, equal_tips = setup
    counts = Counter()

    def check(state, rng):
        # Half the time a fuzzed action, half the time a legal one with one field changed (near misses:
        # a taken number, a card not held, a customer not in the display, the wrong player...).
        action = fuzz[rng.randrange(len(fuzz))] if rng.random() < 0.5 else near_miss(state, rng)
        snapshot = pickle.dumps(state)
        listed = as_listed(action) in legal_actions(state)
        try:
            apply(state, action, random.Random(0))
        except IllegalAction as exc:
            counts["refused"] += 1
            assert exc.rule and exc.section
            assert pickle.loads(snapshot) == state
            faces_ok = faces_valid(action)
            assert not (listed and faces_ok), f"legal action refused: {action} ({exc})"
        else:
            counts["accepted"] += 1
            assert listed, f"unlisted action accepted: {action}"

    play(players, seed, equal_tips, check)
    assert counts["refused"] > 0 and counts["accepted"] > 0
