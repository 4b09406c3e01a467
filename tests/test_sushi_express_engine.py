"""The Sushi Express engine, rule by rule (sushi-express.txt), on games set up with known decks.

Expected values are worked out by hand from the rulebook, never taken from the engine's output.
"""

import random
from collections import Counter
from dataclasses import replace

import pytest

from companion.rules.errors import IllegalAction
from companion.rules.sushi_express import (
    FULL_CUSTOMER_DECK,
    SushiExpress,
    apply,
    legal_actions,
    new_game,
    new_game_with_decks,
    random_game,
    starting_supply,
    van_path,
)
from companion.rules.sushi_express.state import (
    AcceptRoll,
    ActionCard as A,
    Customer as C,
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

NAMES = ("Ann", "Bo", "Cy")


def customer_deck(*top):
    """The 36 customer cards with ``top`` first, then the rest in a fixed order."""
    rest = Counter(FULL_CUSTOMER_DECK)
    rest.subtract(top)
    return list(top) + [c for c in C for _ in range(rest[c])]


def action_supply(players, *top):
    rest = Counter(starting_supply(players))
    rest.subtract(top)
    return list(top) + [c for c in A for _ in range(rest[c])]


def game(*, display=(C.ROSE, C.VIOLET, C.TIP), actions=(A.RE_ROLL, A.PLACE_EXCHANGE), names=NAMES, **options):
    return new_game_with_decks(
        names, action_supply(len(names), *actions), customer_deck(*display), SushiExpressOptions(**options)
    )


def refused(state, action, rule, section_part=""):
    with pytest.raises(IllegalAction) as exc:
        apply(state, action)
    assert exc.value.rule == rule, str(exc.value)
    assert section_part in exc.value.section
    assert action not in legal_actions(state)
    return exc.value


def run(state, *actions):
    for action in actions:
        state = apply(state, action)
    return state


def turns(*guesses):
    """Whole phase-1 turns: each Guess followed by its player's EndTurn (the panel's OK)."""
    return [a for g in guesses for a in (g, EndTurn(g.player))]


# --- PREPARATION ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_setup(players):
    state = new_game(("Ann", "Bo", "Cy", "Di", "Ed", "Flo")[:players], random.Random(1))
    # Each player takes "1 tile further" and "same guess"; the other 28 - 2n cards are the supply.
    assert state.hands == ((A.TILE_FURTHER, A.SAME_GUESS),) * players
    assert len(state.action_supply) == 28 - 2 * players
    assert Counter(state.action_supply)[A.TILE_FURTHER] == 6 - players
    assert Counter(state.action_supply)[A.SAME_GUESS] == 12 - players
    # As many customer cards in the display as players; vans on Sushi Express.
    assert len(state.display) == players and len(state.customer_supply) == 36 - players
    assert state.vans == (0,) * players and state.phase is Phase.GUESS and state.current == 0


def test_deck_contents():
    counts = Counter(FULL_CUSTOMER_DECK)
    assert len(FULL_CUSTOMER_DECK) == 36 and len(counts) == 9
    assert counts[C.LIGHT_BLUE] == counts[C.DARK_BLUE] == counts[C.TIP] == 8
    assert sorted(n for c, n in counts.items() if c not in (C.LIGHT_BLUE, C.DARK_BLUE, C.TIP)) == [2] * 6
    expected = {A.SAME_GUESS: 12, A.PLACE_EXCHANGE: 4, A.RE_ROLL: 4, A.TILE_FURTHER: 6, A.TIP: 2}
    assert Counter(starting_supply(0)) == expected


@pytest.mark.parametrize("players", [2, 7])
def test_player_count(players):
    with pytest.raises(ValueError):
        new_game([f"P{i}" for i in range(players)], random.Random(0))


def test_first_player_option():
    state = game(first_player=2)
    assert state.current == 2
    refused(state, Guess(0, 5), "not-your-turn")


# --- 1. place guesses --------------------------------------------------------------------------------


def test_guesses_go_clockwise_and_a_taken_number_needs_same_guess():
    state = apply(game(), Guess(0, 7))
    assert state.current == 0  # Ann's turn lasts until she ends it
    refused(state, Guess(0, 8), "already-guessed", "1. place guesses")
    state = apply(state, EndTurn(0))
    assert state.current == 1
    err = refused(state, Guess(1, 7), "number-taken", "1. place guesses")
    assert err.player == "Bo" and "Ann has already taken" in str(err)
    refused(state, Guess(1, 13), "guess-range")
    refused(state, Guess(1, 1), "guess-range")
    refused(state, Guess(1, 6, same_guess=True), "same-guess-untaken", "Same guess")
    state = apply(state, Guess(1, 7, same_guess=True))
    assert state.stack(7) == (0, 1)  # Bo on top of Ann
    assert state.hands[1] == (A.TILE_FURTHER,) and state.played_actions == (A.SAME_GUESS,)


def test_same_guess_card_not_held():
    state = replace(game(), hands=((A.TILE_FURTHER,), (A.TILE_FURTHER,), (A.TILE_FURTHER,)))
    state = run(state, *turns(Guess(0, 7)))
    refused(state, Guess(1, 7, same_guess=True), "card-not-held", "Same guess")


def test_stack_plays_top_to_bottom_and_lowest_guess_is_the_bottom():
    # Ann 4, Bo 4 on top with "same guess", Cy 9: the order is Cy, Bo, Ann; Ann is the lowest guess.
    state = run(game(), *turns(Guess(0, 4), Guess(1, 4, same_guess=True), Guess(2, 9)))
    assert state.phase is Phase.ROLL
    assert state.order == (2, 1, 0) and state.lowest == 0
    assert state.guesses == (4, 4, 9)
    assert state.current == 2


def test_place_exchange_needs_neighbouring_markers_and_phase_1():
    hands = ((A.TILE_FURTHER, A.SAME_GUESS), (A.SAME_GUESS,), (A.PLACE_EXCHANGE,))
    state = run(replace(game(), hands=hands), *turns(Guess(0, 6), Guess(1, 6, same_guess=True)))
    refused(state, Exchange(2, 6, 8), "exchange-not-neighbours", "Place exchange")
    refused(state, Exchange(2, 6, 7), "exchange-empty-space", "Place exchange")
    refused(state, Exchange(2, 6, 13), "guess-range", "Place exchange")
    refused(replace(state, hands=((),) * 3), Exchange(2, 6, 7), "card-not-held")
    state = run(state, Guess(2, 7), EndTurn(2))
    # Cy's EndTurn ended phase 1, so exchanging now is the wrong phase.
    refused(state, Exchange(2, 6, 7), "wrong-phase", "Place exchange")


def test_place_exchange_with_four_players():
    names = ("Ann", "Bo", "Cy", "Di")
    hands = ((A.SAME_GUESS,), (A.SAME_GUESS,), (A.SAME_GUESS,), (A.PLACE_EXCHANGE, A.PLACE_EXCHANGE))
    state = replace(game(names=names, display=(C.ROSE,) * 2 + (C.TIP,) * 2), hands=hands)
    state = run(state, *turns(Guess(0, 8), Guess(1, 8, same_guess=True), Guess(2, 9)))
    # The stack on 8 is Ann (bottom), Bo (top); Cy is on 9. Di swaps 8 and 9: the stack moves whole.
    state = apply(state, Exchange(3, 9, 8))
    assert state.stack(9) == (0, 1) and state.stack(8) == (2,)
    assert state.hands[3] == (A.PLACE_EXCHANGE,) and state.current == 3  # still Di's turn
    state = run(state, Guess(3, 2), EndTurn(3))
    assert state.order == (1, 0, 2, 3)
    assert state.guesses == (9, 9, 8, 2)
    refused(replace(state, phase=Phase.GUESS, guess_turn=3, hands=((),) * 4), Exchange(3, 8, 9), "card-not-held")


# --- 2. roll dice --------------------------------------------------------------------------------------


def rolling_state():
    """Ann 7, Bo 7 on top of Ann, Cy 4: Bo rolls first, then Ann, then Cy."""
    return run(game(), *turns(Guess(0, 7), Guess(1, 7, same_guess=True), Guess(2, 4)))


def test_wrong_phase_actions_are_refused():
    state = rolling_state()
    refused(state, Guess(1, 8), "wrong-phase", "1. place guesses")
    refused(state, EndTurn(1), "wrong-phase", "1. place guesses")
    refused(state, Move(1), "wrong-phase", "3. move delivery vans")
    refused(state, Deliver(1, True), "wrong-phase", "4. make deliveries")
    refused(game(), Roll(0, (1, 1)), "wrong-phase", "2. roll dice")
    refused(game(), ReRoll(0, 0), "wrong-phase", "Re-roll")
    refused(state, Roll(0, (6, 6)), "not-your-turn")


def test_two_failed_tries_take_an_action_card_and_the_next_highest_rolls():
    state = rolling_state()
    state = apply(state, Roll(1, (3, 3)))  # 6 < 7: first try failed
    assert state.phase is Phase.ROLL and state.tries == 1 and state.current == 1
    refused(state, AcceptRoll(1), "second-try")
    refused(state, ReRoll(1, 0), "card-not-held", "Re-roll")
    refused(state, Roll(1, (0, 7)), "die-faces")
    state = apply(state, Roll(1, (1, 5)))  # second try failed and Bo holds no re-roll: Bo fails
    assert state.hands[1] == (A.TILE_FURTHER, A.RE_ROLL)  # the top action card
    assert state.action_supply[0] == A.PLACE_EXCHANGE
    assert state.stack(7) == (0,) and state.current == 0 and state.tries == 0
    # Ann rolls exactly her guess on the first try: success, no second try.
    state = apply(state, Roll(0, (4, 3)))
    assert state.phase is Phase.MOVE and state.current == 0
    assert state.on_board() == (0, 2)  # Ann and Cy (not yet rolled) move; Bo does not


def test_re_roll_after_a_failed_try():
    state = rolling_state()
    state = replace(state, hands=(state.hands[0], (A.RE_ROLL, A.RE_ROLL), state.hands[2]))
    refused(state, ReRoll(1, 0), "re-roll-before-roll")
    state = run(state, Roll(1, (1, 2)), Roll(1, (2, 2)))
    # Second try failed but Bo holds re-rolls: Bo may still play one.
    assert state.tries == 2 and state.phase is Phase.ROLL
    assert set(legal_actions(state)) == {ReRoll(1, 0), ReRoll(1, 1), AcceptRoll(1)}
    refused(state, Roll(1, (6, 6)), "tries-used")
    refused(state, ReRoll(1, 2, 6), "die-index")
    state = apply(state, ReRoll(1, 0, 3))  # 3 + 2 = 5 < 7, still failed
    assert state.dice == (3, 2) and state.hands[1] == (A.RE_ROLL,)
    state = apply(state, ReRoll(1, 1, 4))  # 3 + 4 = 7: success
    assert state.phase is Phase.MOVE and state.played_actions.count(A.RE_ROLL) == 2
    assert state.on_board() == (1, 0, 2)


def test_accept_a_failed_roll_while_holding_a_re_roll():
    state = rolling_state()
    state = replace(state, hands=(state.hands[0], (A.RE_ROLL,), state.hands[2]))
    state = run(state, Roll(1, (1, 1)), Roll(1, (1, 1)), AcceptRoll(1))
    assert state.hands[1] == (A.RE_ROLL, A.RE_ROLL) and state.current == 0


def test_everyone_fails_discards_the_display_without_a_choice():
    state = rolling_state()
    display = state.display
    state = run(state, Roll(1, (1, 1)), Roll(1, (1, 1)), Roll(0, (1, 1)), Roll(0, (1, 1)), Roll(2, (1, 1)))
    state = apply(state, Roll(2, (1, 2)))
    # Nobody moved: phase 4 discards the display and refills it; the lowest guess (Cy, 4) starts.
    assert state.phase is Phase.GUESS and state.round == 2 and state.start_player == 2
    assert state.customer_discard == display and len(state.display) == 3
    assert state.vans == (0, 0, 0)
    # Three failures took the top three action cards: re-roll, place exchange, then the next.
    assert state.hands[1][-1] == A.RE_ROLL and state.hands[0][-1] == A.PLACE_EXCHANGE


def test_engine_rolls_with_the_injected_rng():
    state = rolling_state()
    with pytest.raises(ValueError):
        apply(state, Roll(1))
    a = apply(state, Roll(1), random.Random(5))
    b = SushiExpress(random.Random(5)).apply(state, Roll(1))
    assert a == b and all(1 <= f <= 6 for f in a.dice or (1, 1))


# --- 3. move delivery vans -----------------------------------------------------------------------------


def test_van_path_skips_occupied_tiles():
    # Only the other vans' tiles are skipped; passing Sushi Express counts even when it is occupied.
    assert van_path((5, 6, 7), 0, 2) == (9, False)
    assert van_path((0, 0, 0), 0, 12) == (1, True)  # tiles 1..11, then Sushi Express (occupied), then 1
    assert van_path((11, 0, 3), 0, 1) == (1, True)
    assert van_path((10, 4, 5), 0, 2) == (0, True)  # ending on Sushi Express reaches it
    assert van_path((3, 4, 5), 0, 10) == (3, True)  # 10 free tiles: once round, back to its own tile


def moving_state(vans, display=(C.ROSE, C.VIOLET, C.TIP), **kwargs):
    """Ann 7 (rolled it), Bo 5, Cy 3 all to move, vans where given."""
    state = run(game(display=display, **kwargs), *turns(Guess(0, 7), Guess(1, 5), Guess(2, 3)), Roll(0, (6, 1)))
    assert state.phase is Phase.MOVE
    return replace(state, vans=vans, has_moved=(True,) * 3)


def test_move_exactly_the_guess_skipping_vans():
    state = moving_state((0, 2, 4))
    # Ann moves 7 from tile 0: 1, (2 Bo), 3, (4 Cy), 5, 6, 7, 8, 9 → tile 9.
    state = apply(state, Move(0))
    assert state.vans == (9, 2, 4) and state.current == 1
    # Bo moves 5 from 2: 3, (4), 5, 6, 7, 8 → 8.
    state = apply(state, Move(1))
    assert state.vans == (9, 8, 4)


def test_one_tile_further_and_sushi_express():
    state = moving_state((11, 2, 4))
    supply = state.action_supply
    refused(state, Move(0, 2), "card-not-held", "1 tile further")
    refused(state, Move(0, -1), "further-range")
    refused(state, Move(0, 1), "take-customer", "Sushi Express")
    refused(state, Move(0, 1, C.LIGHT_BLUE), "customer-not-in-display")
    # Ann moves 7 + 1 from tile 11: 0 (Sushi Express: takes a card), 1, (2 Bo), 3, (4 Cy), 5, 6, 7, 8, 9.
    state = apply(state, Move(0, 1, C.VIOLET))
    assert state.vans[0] == 9 and state.collected[0] == (C.VIOLET,)
    assert state.hands[0] == (A.SAME_GUESS,) and state.played_actions[-1] == A.TILE_FURTHER
    assert state.display == (C.ROSE, C.TIP)  # not refilled now
    # Bo moves 5 from 2: 3, (4 Cy), 5, 6, 7, 8 → 8; he never reaches Sushi Express, so takes nothing.
    refused(state, Move(1, 0, C.ROSE), "no-customer-to-take")
    state = apply(state, Move(1))
    assert state.vans[1] == 8 and state.collected[1] == ()
    assert state.action_supply == supply  # nobody ended on the park


def test_ending_on_the_park_takes_an_action_card():
    # Ann moves 7 from tile 11: 0 (Sushi Express), 1, 2, 3, 4, 5, 6 → ends on the park.
    state = apply(moving_state((11, 8, 10)), Move(0, 0, C.TIP))
    assert state.vans[0] == 6 and state.collected[0] == (C.TIP,)
    assert state.hands[0] == (A.TILE_FURTHER, A.SAME_GUESS, A.RE_ROLL)  # the top action card


def test_park_with_an_empty_action_supply_gives_nothing():
    state = replace(moving_state((11, 8, 10)), action_supply=())
    state = apply(state, Move(0, 0, C.TIP))
    assert state.vans[0] == 6 and state.hands[0] == (A.TILE_FURTHER, A.SAME_GUESS)


def test_passing_sushi_express_twice_takes_one_card():
    # Ann (guess 10, + 1 further) from 11 with vans on 3 and 5: 0 (Sushi Express), 1, 2, 4, 6, 7, 8, 9,
    # 10, 11, 0 (Sushi Express again) → 11 tiles, ends on Sushi Express having passed it twice.
    state = moving_state((11, 3, 5))
    state = replace(state, guesses=(10, 5, 3))
    tile, passed = van_path(state.vans, 0, 11)
    assert (tile, passed) == (0, True)
    state = apply(state, Move(0, 1, C.ROSE))
    assert state.collected[0] == (C.ROSE,) and len(state.display) == 2


def test_display_empty_no_card_to_take():
    state = replace(moving_state((11, 3, 5)), display=())
    refused(state, Move(0, 0, C.ROSE), "no-customer-to-take")
    assert apply(state, Move(0)).collected[0] == ()


# --- 4. make deliveries and GAME END -------------------------------------------------------------------


def test_lowest_guess_keeps_or_discards_then_the_display_is_refilled():
    # Ann 7 from 11: 0 (takes the tip), (1 Cy), 2, (3 Bo), 4, 5, 6, 7, 8 → 8. Bo 5 from 3: 4, 5, 6, 7,
    # (8 Ann), 9 → 9. Cy 3 from 1: 2, 3, 4 → 4. Rose and violet are left; Cy (guess 3) is the lowest.
    state = moving_state((11, 3, 1))
    state = run(state, Move(0, 0, C.TIP), Move(1), Move(2))
    assert state.vans == (8, 9, 4)
    assert state.phase is Phase.DELIVER and state.current == 2
    refused(state, Deliver(0, True), "not-your-turn")
    kept = apply(state, Deliver(2, True))
    assert kept.display[:2] == (C.ROSE, C.VIOLET) and len(kept.display) == 3
    assert kept.round == 2 and kept.start_player == 2 and kept.phase is Phase.GUESS
    discarded = apply(state, Deliver(2, False))
    assert discarded.customer_discard == (C.ROSE, C.VIOLET) and len(discarded.display) == 3
    assert discarded.display == state.customer_supply[:3]


def test_game_ends_when_the_display_cannot_be_filled():
    state = moving_state((11, 3, 1))
    state = replace(state, customer_supply=state.customer_supply[:1])
    state = run(state, Move(0, 0, C.TIP), Move(1), Move(2))
    # Keeping 2 cards needs 1 more: the supply has 1, so the game goes on.
    assert apply(state, Deliver(2, True)).phase is Phase.GUESS
    # Discarding needs 3: the supply has 1, so the game ends and is scored.
    over = apply(state, Deliver(2, False))
    assert over.is_over and over.result is not None and legal_actions(over) == ()
    refused(over, Guess(0, 5), "game-over", "GAME END")
    # Ann holds 1 tip card: Bo and Cy have none, so they are tied for the fewest and lose 1 each.
    assert over.result.tip_points == (0, -1, -1)


def test_fuzz_rejects_nonsense():
    state = game()
    refused(state, Guess(9, 5), "unknown-seat")
    refused(state, Guess(0, "5"), "guess-range")
    with pytest.raises(IllegalAction) as exc:
        apply(state, "roll")
    assert exc.value.rule == "unknown-action"


# --- Replays and random games --------------------------------------------------------------------------


def test_same_seed_same_game_and_replay_from_the_log():
    a, b = random_game(7, 5), random_game(7, 5)
    assert a == b and a.result == b.result
    # Replay: the same seed and the log of actions (rolls carrying no faces) give the same game.
    rng = random.Random(3)
    state = new_game(NAMES, rng)
    log = []
    while not state.is_over:
        action = rng.choice(legal_actions(state))
        log.append(action)
        state = apply(state, action, rng)
    rng2 = random.Random(3)
    again = new_game(NAMES, rng2)
    for action in log:
        rng2.choice(legal_actions(again))  # the bot's own draw, to keep the rng in step
        again = apply(again, action, rng2)
    assert again == state


def test_an_exchange_named_either_way_round_is_the_listed_action():
    from companion.rules.sushi_express.state import Exchange

    assert Exchange(0, 8, 7) == Exchange(0, 7, 8)


def test_place_exchange_right_after_placing_swaps_with_the_neighbour():
    # sushi-express.txt, Place exchange: "In phase 1, the player may exchange the position of any 2 guess
    # markers if they are in neighboring spaces." Ann guesses 8; Bo guesses 9, then, still in his turn,
    # swaps 8 and 9, so Bo now rolls after Ann. Then Bo ends his turn and it is Cy's.
    hands = ((A.SAME_GUESS,), (A.PLACE_EXCHANGE,), (A.SAME_GUESS,))
    state = run(replace(game(), hands=hands), *turns(Guess(0, 8)), Guess(1, 9))
    assert set(legal_actions(state)) == {Exchange(1, 8, 9), EndTurn(1)}
    state = apply(state, Exchange(1, 8, 9))
    assert state.stack(9) == (0,) and state.stack(8) == (1,)
    assert state.current == 1 and A.PLACE_EXCHANGE not in state.hands[1]
    state = run(state, EndTurn(1), *turns(Guess(2, 3)))
    assert state.order == (0, 1, 2)


def test_roll_faces_given_as_a_list_are_the_same_roll():
    assert Roll(0, [3, 4]) == Roll(0, (3, 4))
