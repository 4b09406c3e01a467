"""Property tests over random legal Sushi Roll games: dice and tokens are conserved, no die leaves a
tray, refused actions change nothing, legal_actions agrees with apply, and a seed replays a game."""

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from companion.rules.errors import IllegalAction
from companion.rules.sushi_roll import apply, legal_actions, new_game, random_game
from companion.rules.sushi_roll.dice import DICE_COUNTS, FULL_SUPPLY, DieKind, Face, Icon, Tokens
from companion.rules.sushi_roll.state import Chopsticks, Menu, Phase, Roll, Take

SEEDS = st.integers(0, 2**32 - 1)
PLAYERS = st.integers(2, 5)
ALL_FACES = [Face(icon, n) for icon in Icon for n in (1, 2, 3)]


def check_invariants(before, after):
    # 30 dice, always: bag + belts + trays (sushi-roll.txt, CONTENTS).
    assert after.dice_count() == DICE_COUNTS
    # Every token is with a player or in the supply, and no pile goes negative.
    assert after.all_tokens() == FULL_SUPPLY
    for pile in after.tokens + (after.supply,):
        assert min(pile._values()) >= 0
    # No die ever leaves a tray: within a round trays only grow (a wasabi may gain a nigiri); at the
    # round's end the whole tray is kept in round_trays.
    for seat in range(before.seats):
        old = before.trays[seat]
        new = after.trays[seat] if after.round_scores == before.round_scores else after.round_trays[-1][seat]
        assert len(new) >= len(old)
        for was, now in zip(old, new):
            assert was.face == now.face and (was.nigiri is None or was.nigiri == now.nigiri)
    # Belts shrink together: at most one die apart.
    sizes = [len(b) for b in after.belts]
    assert max(sizes) - min(sizes) <= 1


def check_result(state):
    result = state.result
    for seat in range(state.seats):
        assert sum(l.points for l in result.breakdown if l.seat == seat) == result.totals[seat]
        # The scoring tokens a player holds are every payout, less what the supply could not give.
        net = 0
        for p in state.payouts:
            if p.seat == seat:
                paid = p.taken.points - p.returned.points
                assert abs(p.points) - abs(paid) == p.short >= 0
                net += paid
        assert state.tokens[seat].points == net


def fuzz_action(state, rng):
    """A random action, often illegal: any kind, any seat (even a bad one), any face."""
    seat = rng.randrange(-1, state.seats + 1)
    face = rng.choice(ALL_FACES)
    kind = rng.randrange(4)
    if kind == 0:
        return Roll()
    if kind == 1:
        return Take(seat, face)
    if kind == 2:
        return Menu(seat, tuple(sorted(rng.sample(ALL_FACES, rng.randrange(0, 3)))))
    return Chopsticks(seat, face, rng.randrange(-1, state.seats + 1), rng.choice(ALL_FACES))


@settings(max_examples=20, deadline=None)
@given(SEEDS, PLAYERS)
def test_random_legal_games_conserve_dice_and_tokens(seed, players):
    rng = random.Random(seed)
    pick = random.Random(seed ^ 0x5EED)
    state = new_game([f"P{i}" for i in range(players)], rng)
    steps = 0
    while not state.is_over:
        actions = legal_actions(state)
        assert actions
        # Favour taking a die so that games stay short; still use every kind of action.
        takes = [a for a in actions if isinstance(a, Take)]
        action = pick.choice(takes if takes and pick.random() < 0.7 else actions)
        after = apply(state, action, rng)
        check_invariants(state, after)
        state = after
        steps += 1
    assert state.round == 3 and state.phase is Phase.OVER and sum(state.bag) == 30
    check_result(state)


@settings(max_examples=20, deadline=None)
@given(SEEDS, PLAYERS)
def test_fuzzed_actions_are_refused_without_change_or_accepted_iff_legal(seed, players):
    rng = random.Random(seed)
    fuzz = random.Random(seed + 1)
    state = new_game([f"P{i}" for i in range(players)], rng)
    while not state.is_over:
        legal = set(legal_actions(state))
        for _ in range(5):
            action = fuzz_action(state, fuzz)
            before, rng_before = state, rng.getstate()
            try:
                after = apply(state, action, rng)
            except IllegalAction as exc:
                # Refused: the state and the random stream are untouched, and the rule is named.
                assert state == before and rng.getstate() == rng_before
                assert exc.rule and exc.section.startswith("sushi-roll.txt")
                assert action not in legal
                continue
            assert action in legal
            check_invariants(state, after)
            state = after
            if state.is_over:
                break
            legal = set(legal_actions(state))
        if not state.is_over:
            seat = state.current_player
            action = Roll() if seat is None else Take(seat, fuzz.choice(state.belts[seat]))
            after = apply(state, action, rng)
            check_invariants(state, after)
            state = after
    check_result(state)


@settings(max_examples=10, deadline=None)
@given(SEEDS, PLAYERS)
def test_same_seed_same_game(seed, players):
    first = random_game(seed, players)
    assert first == random_game(seed, players)
    assert first.is_over
    check_result(first)


def test_random_game_kinds_of_dice_reach_the_trays():
    state = random_game(2024, 5)
    kinds = {f.kind for rnd in state.round_trays for tray in rnd for p in tray for f in p.dice}
    assert kinds == set(DieKind)
    assert state.all_tokens() == FULL_SUPPLY and isinstance(state.supply, Tokens)
