"""The Sushi Roll engine on hand-set tables: setup, turn order, menu, chopsticks, taking dice, tokens,
sliding belts and every refusal with its rule."""

import random
from dataclasses import replace

import pytest

from companion.rules.errors import IllegalAction
from companion.rules.sushi_roll import SushiRoll, apply, legal_actions, new_game, random_game, replay
from companion.rules.sushi_roll.dice import (
    DICE_COUNTS,
    FULL_SUPPLY,
    DiceFaces,
    DieKind,
    Icon,
    Tokens,
    load_dice_faces,
    parse_face,
)
from companion.rules.sushi_roll.state import Chopsticks, Menu, Phase, Roll, Take

ANN_BELT = ["wasabi", "squid_nigiri", "pudding*3", "menu*2", "maki*3", "dumpling", "tempura", "sashimi"]
BO_BELT = ["chopsticks*2", "egg_nigiri", "pudding", "maki", "maki*2", "dumpling", "dumpling", "tempura"]


def faces(*names):
    return tuple(parse_face(n) for n in names)


@pytest.fixture
def rolled():
    """Ann (seat 0, red belt) and Bo, round 1 rolled with known faces."""
    return apply(new_game(["Ann", "Bo"], red_seat=0), Roll((ANN_BELT, BO_BELT)))


def refused(state, action, rule, rng=None):
    before = state
    with pytest.raises(IllegalAction) as exc:
        apply(state, action, rng)
    assert exc.value.rule == rule
    assert exc.value.section.startswith("sushi-roll.txt")
    assert state == before
    return exc.value


# --- components and setup ----------------------------------------------------------------------------


def test_dice_file_matches_what_is_known():
    dice = load_dice_faces()
    appetizer = [f.icon for f in dice.of(DieKind.APPETIZER)]
    counts = {i: appetizer.count(i) for i in (Icon.DUMPLING, Icon.TEMPURA, Icon.SASHIMI)}
    assert counts[Icon.SASHIMI] == min(counts.values()) and counts[Icon.DUMPLING] == max(counts.values())
    assert {f.count for f in dice.of(DieKind.MAKI)} == {1, 2, 3}
    assert {f.icon for f in dice.of(DieKind.NIGIRI)} == {Icon.EGG_NIGIRI, Icon.SALMON_NIGIRI, Icon.SQUID_NIGIRI}
    assert {f.icon for f in dice.of(DieKind.SPECIALS)} == {Icon.WASABI, Icon.CHOPSTICKS, Icon.MENU}
    assert {f.icon for f in dice.of(DieKind.PUDDING)} == {Icon.PUDDING}
    assert sum(DICE_COUNTS.values()) == 30


def test_faces_parse_and_print():
    assert str(parse_face("maki*3")) == "maki*3" and parse_face("menu") == parse_face("menu*1")
    for bad in ("sushi", "maki*", "maki*x", "pudding*0", ""):
        with pytest.raises(ValueError):
            parse_face(bad)


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda d: d.pop("maki"), "no faces for the maki die"),
        (lambda d: d.update(maki=["maki"] * 5), "exactly 6 faces"),
        (lambda d: d.update(maki=["maki"] * 5 + ["wasabi"]), "the maki die cannot show wasabi"),
        (lambda d: d.update(gold=["maki"] * 6), "unknown die type 'gold'"),
    ],
)
def test_explicit_faces_are_checked(change, message):
    data = {k.value: [str(f) for f in load_dice_faces().of(k)] for k in DieKind}
    change(data)
    with pytest.raises(ValueError, match=message):
        DiceFaces.from_mapping(data)


def test_explicit_faces_drive_the_rolls():
    data = {k.value: [str(f) for f in load_dice_faces().of(k)] for k in DieKind}
    data["pudding"] = ["pudding*3"] * 6
    dice = DiceFaces.from_mapping(data)
    state = random_game_with(dice)
    assert all(f == parse_face("pudding*3") for t in state.round_trays for tray in t for p in tray for f in p.dice
               if f.kind is DieKind.PUDDING)  # fmt: skip


def random_game_with(dice):
    rng = random.Random(5)
    state = new_game(["A", "B", "C"], rng, dice=dice)
    while not state.is_over:
        state = apply(state, legal_actions(state)[0], rng)
    return state


def test_new_game_setup():
    state = new_game(["Ann", "Bo", "Cy"], random.Random(3))
    assert state.phase is Phase.ROLL and state.round == 1 and 0 <= state.red_seat < 3
    assert all(t == Tokens(menu=3, chopsticks=2) for t in state.tokens)
    assert state.supply == Tokens(menu=9, chopsticks=6, pudding_1=14, pudding_3=6,
                                  points_1=18, points_5=7, points_10=10, points_20=5)  # fmt: skip
    assert state.bag == (10, 6, 5, 5, 4) and not any(state.belts)
    assert legal_actions(state) == (Roll(),)
    with pytest.raises(ValueError):
        new_game(["Ann"], random.Random(1))
    with pytest.raises(ValueError):
        new_game(["Ann", "Bo"])  # no red seat and no rng to deal the belts


@pytest.mark.parametrize("players, dice", [(2, 8), (3, 7), (4, 6), (5, 5)])
def test_dice_per_belt(players, dice):
    rng = random.Random(players)
    state = apply(new_game([f"P{i}" for i in range(players)], rng), Roll(), rng)
    assert [len(b) for b in state.belts] == [dice] * players
    assert sum(state.bag) == 30 - dice * players


def test_act_before_the_roll_is_refused():
    state = new_game(["Ann", "Bo"], red_seat=1)
    err = refused(state, Take(1, "maki"), "roll-first")
    assert err.player == "Bo"


# --- a turn ------------------------------------------------------------------------------------------


def test_roll_with_given_faces_then_red_belt_starts(rolled):
    assert rolled.phase is Phase.TURN and rolled.current_player == 0
    assert sorted(map(str, rolled.belts[0])) == sorted(ANN_BELT)
    assert sum(rolled.bag) == 30 - 16
    refused(rolled, Roll(), "not-rolling")
    err = refused(rolled, Take(1, "maki"), "not-your-turn")
    assert str(err) == (
        "it is Ann's turn, not Bo's: play goes left from the red belt (sushi-roll.txt, EVERYBODY TAKES A TURN)"
    )


def test_take_moves_one_die_and_ends_the_turn(rolled):
    state = apply(rolled, Take(0, "wasabi"))
    assert [str(p.face) for p in state.trays[0]] == ["wasabi"]
    assert len(state.belts[0]) == 7 and state.current_player == 1
    err = refused(state, Take(0, "squid_nigiri"), "one-die")
    assert err.player == "Ann" and "exactly 1 die" in err.message
    refused(state, Menu(0, ["tempura"]), "not-your-turn")


def test_take_only_from_your_own_belt(rolled):
    refused(rolled, Take(0, "egg_nigiri"), "own-belt")  # only on Bo's belt
    refused(rolled, Take(0, "salmon_nigiri"), "die-not-on-belt")


def test_pudding_menu_and_chopsticks_dice_give_tokens_at_once(rolled):
    state = apply(rolled, Take(0, "pudding*3"))
    assert state.tokens[0] == Tokens(menu=3, chopsticks=2, pudding_3=1)
    state = apply(state, Take(1, "chopsticks*2"))
    assert state.tokens[1].chopsticks == 4 and state.supply.chopsticks == 12 - 4 - 2
    assert state.all_tokens() == FULL_SUPPLY


def test_when_the_supply_runs_out_take_what_is_there(rolled):
    state = replace(rolled, supply=replace(rolled.supply, pudding_3=0, pudding_1=1))
    state = replace(state, tokens=(state.tokens[0], state.tokens[1] + Tokens(pudding_1=13, pudding_3=6)))
    state = apply(state, Take(0, "pudding*3"))
    assert state.tokens[0].puddings == 1 and state.supply.puddings == 0


def test_nigiri_goes_on_an_open_wasabi(rolled):
    state = apply(rolled, Take(0, "wasabi"))
    state = apply(state, Take(1, "egg_nigiri"))  # no wasabi on Bo's tray: plain
    state = apply(state, Roll((BO_BELT[:1] + BO_BELT[2:], ANN_BELT[1:])))  # belts slid: re-rolled same faces
    assert state.current_player == 1  # Bo now holds the red belt
    state = apply(state, Take(1, "squid_nigiri"))
    state = apply(state, Take(0, "maki*2"))
    # Bo's squid is plain; Ann's wasabi is still open.
    assert state.trays[1][-1].nigiri is None and state.trays[0][0].is_open_wasabi


def test_menu_rerolls_own_dice_given_or_drawn(rolled):
    state = apply(rolled, Menu(0, ["maki*3", "tempura"], ["maki", "sashimi"]))
    assert state.tokens[0].menu == 2 and state.supply.menu == 18 - 6 + 1
    assert sorted(map(str, state.belts[0])) == sorted(ANN_BELT[:4] + ["maki", "dumpling", "sashimi", "sashimi"])
    rng = random.Random(1)
    drawn = apply(state, Menu(0, ["wasabi"]), rng)
    assert len(drawn.belts[0]) == 8 and drawn.tokens[0].menu == 1
    assert state.current_player == 0  # step 1 does not end the turn


def test_menu_refusals(rolled):
    refused(rolled, Menu(0, []), "reroll-none")
    refused(rolled, Menu(0, ["egg_nigiri"]), "own-belt")
    refused(rolled, Menu(0, ["sashimi", "sashimi"]), "die-not-on-belt")
    refused(rolled, Menu(0, ["tempura"], ["maki"]), "roll-faces")
    refused(rolled, Menu(0, ["maki*3"], ["maki*7"]), "die-faces")
    broke = replace(rolled, tokens=(Tokens(chopsticks=2), rolled.tokens[1]))
    err = refused(broke, Menu(0, ["tempura"]), "menu-token-needed")
    assert str(err) == "Ann has no menu token to return (sushi-roll.txt, EVERYBODY TAKES A TURN, Menu)"
    with pytest.raises(ValueError):
        apply(rolled, Menu(0, ["tempura"]))  # faces neither given nor drawable


def test_chopsticks_swap_faces_unchanged(rolled):
    state = apply(rolled, Chopsticks(0, "squid_nigiri", 1, "egg_nigiri"))
    assert parse_face("egg_nigiri") in state.belts[0] and parse_face("squid_nigiri") in state.belts[1]
    assert state.tokens[0].chopsticks == 1 and state.current_player == 0


def test_chopsticks_refusals(rolled):
    state = apply(apply(rolled, Take(0, "wasabi")), Take(1, "egg_nigiri"))
    state = apply(state, Roll((BO_BELT[:1] + BO_BELT[2:], ANN_BELT[1:])))
    # Bo's turn (red belt); Ann's wasabi is on her tray.
    err = refused(state, Chopsticks(1, "maki*3", 0, "wasabi"), "never-tray")
    assert "dice on a tray can never be swapped" in err.message
    refused(state, Chopsticks(1, "egg_nigiri", 0, "tempura"), "never-tray")  # Bo's own tray
    refused(state, Chopsticks(1, "tempura", 1, "maki"), "chopsticks-other-belt")
    refused(state, Chopsticks(1, "tempura", 5, "maki"), "unknown-seat")
    refused(state, Chopsticks(1, "tempura", 0, "squid_nigiri*2"), "die-not-on-belt")
    broke = replace(state, tokens=(state.tokens[0], Tokens(menu=3)))
    refused(broke, Chopsticks(1, "tempura", 0, "maki"), "chopsticks-token-needed")


def test_unknown_seat_and_game_over():
    refused(new_game(["Ann", "Bo"], red_seat=0), Take(7, "maki"), "unknown-seat")
    over = random_game(3, 2)
    assert over.is_over and legal_actions(over) == ()
    refused(over, Take(0, "maki"), "game-over")


# --- rolls given from outside -------------------------------------------------------------------------


def test_round_start_roll_checks_the_dice():
    state = new_game(["Ann", "Bo"], red_seat=0)
    refused(state, Roll((ANN_BELT,)), "roll-faces")
    refused(state, Roll((ANN_BELT[:7], BO_BELT)), "roll-faces")
    refused(state, Roll((ANN_BELT[:7] + ["maki*7"], BO_BELT)), "die-faces")
    too_many = ["pudding"] * 5 + ["maki"] * 3
    err = refused(state, Roll((too_many, BO_BELT)), "dice-count")
    assert "only 4" in err.message


def test_slide_roll_must_keep_the_same_dice(rolled):
    state = apply(apply(rolled, Take(0, "wasabi")), Take(1, "egg_nigiri"))
    assert state.phase is Phase.ROLL and state.red_seat == 1
    assert sorted(map(str, state.belts[0])) == sorted(BO_BELT[:1] + BO_BELT[2:])  # Bo's belt slid to Ann
    refused(state, Take(0, "maki"), "roll-first")
    refused(state, Roll((ANN_BELT[1:], BO_BELT[:7])), "roll-faces")


# --- rounds and seeds ----------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_start_player_changes_every_round(players):
    # 3 players: 6 slides bring the red belt back, so the belts slide once more at round end
    # (STARTING A NEW ROUND); with other counts the slides within the round already move it.
    rng = random.Random(players)
    state = new_game([f"P{i}" for i in range(players)], rng)
    starts = []
    while not state.is_over:
        if state.phase is Phase.ROLL and not any(state.belts):
            starts.append(state.red_seat)
        state = apply(state, Take(state.current_player, state.belts[state.current_player][0])
                      if state.phase is Phase.TURN else Roll(), rng)  # fmt: skip
    per_belt = {2: 8, 3: 7, 4: 6, 5: 5}[players]
    shift = (per_belt - 1 + (players == 3)) % players
    assert starts == [(starts[0] + r * shift) % players for r in range(3)]
    assert starts[0] != starts[1] != starts[2]


def test_same_seed_same_game_and_replay_from_the_log():
    assert random_game(11, 4) == random_game(11, 4)
    assert random_game(11, 4) != random_game(12, 4)
    rng = random.Random(99)
    game = SushiRoll(rng)
    state = new_game(["A", "B", "C"], rng)
    log = []
    pick = random.Random(0)
    while not game.is_over(state):
        action = pick.choice(game.legal_actions(state))
        log.append(action)
        state = game.apply(state, action)
    assert replay(["A", "B", "C"], 99, log) == state
    assert state.result.totals == tuple(
        sum(l.points for l in state.result.breakdown if l.seat == s) for s in range(3)
    )


# --- issue 13: payouts make change (7) and arguments of the wrong shape (10) ------------------------------


def test_13_7_round_payouts_trade_when_the_supply_lacks_the_exact_tokens():
    """sushi-roll.txt, SCORING A ROUND: each player takes scoring tokens equal to their points. With
    every 5 and 1 out of the supply, A and B holding a 5 and four 1s, C the other 5s and 1s: any
    amount is a number of 10s and 20s less 0 to 9 given back from one's own 5 and 1s, so every payout
    of round 1 is exact, and any amount that is not a multiple of 10 needs a trade."""
    rng = random.Random(7)
    state = new_game(["A", "B", "C"], rng)
    change = Tokens(points_5=1, points_1=4)
    rest = Tokens(points_5=5, points_1=10)
    state = replace(
        state,
        tokens=(state.tokens[0] + change, state.tokens[1] + change, state.tokens[2] + rest),
        supply=state.supply - change - change - rest,
    )
    assert state.supply.points_5 == state.supply.points_1 == 0 and state.all_tokens() == FULL_SUPPLY
    while not state.round_scores:
        seat = state.current_player
        state = apply(state, Roll() if seat is None else Take(seat, state.belts[seat][0]), rng)
    paid = [p for p in state.payouts if p.round == 1]
    assert len(paid) == 3
    for p in paid:
        assert p.short == 0 and p.taken.points - p.returned.points == p.points
    # The first payout (turn order from the red belt) meets the supply without 5s and 1s: it is paid
    # in 10s and 20s with change given back. (Change given back is in the supply for the next ones.)
    first = paid[0]
    assert first.points % 10 and first.taken.points_5 == first.taken.points_1 == 0
    assert first.returned.points == first.taken.points - first.points > 0
    assert state.all_tokens() == FULL_SUPPLY


@pytest.mark.parametrize(
    "call, expected",
    [
        (lambda: new_game("AB", random.Random(1)), "players must be a sequence of player names"),
        (lambda: new_game(("Ann", "Bo"), random.Random(1), red_seat=True), "red_seat must be a seat number (an int)"),
        (lambda: new_game(["Ann", "Bo"], 5), "rng must be a random.Random"),
        (lambda: new_game(["Ann", "Bo"], random.Random(1), options={"pudding_all_equal": "nobody"}),
         "options must be a SushiRollOptions"),
        (lambda: random_game(1, "ABC"), "players must be a sequence of player names"),
        (lambda: random_game(1, True), "players must be a number of players"),
        (lambda: random_game(True, 3), "seed must be an int"),
        (lambda: replay("AB", 1, []), "players must be a sequence of player names"),
        (lambda: replay(["A", "B"], 1, "RR"), "actions must be a sequence of Sushi Roll actions"),
    ],
)
def test_13_10_setup_refuses_a_string_for_a_sequence_or_a_bool_for_an_int(call, expected):
    """sushi-roll.txt, SET UP: a game has 2 to 5 named players. A string is a sequence of letters and a
    bool is an int in Python, so both used to pass silently ("AB" made players "A" and "B", True made
    seat 1); now the engine's setup error (ValueError) names the shape it expects."""
    with pytest.raises(ValueError) as exc:
        call()
    assert expected in str(exc.value)


@pytest.mark.parametrize(
    "make, expected",
    [
        (lambda: Menu(0, "tempura"), "Menu.reroll must be a sequence of faces"),
        (lambda: Menu(0, ("tempura",), "maki"), "Menu.result must be a sequence of faces"),
        (lambda: Roll(("maki", "tempura")), "Roll.faces[0] must be a sequence of faces"),
        (lambda: Roll("maki"), "Roll.faces must be one sequence of faces per seat"),
        (lambda: Take(True, "tempura"), "Take.player must be a seat number"),
        (lambda: Chopsticks(0, "tempura", False, "maki"), "Chopsticks.other must be a seat number"),
        (lambda: Chopsticks(0, ["tempura"], 1, "maki"), "Chopsticks.mine must be one face"),
        (lambda: Take(0, "sushi"), "Take.face: unknown face 'sushi'"),
    ],
)
def test_13_10_actions_refuse_a_string_for_a_sequence_or_a_bool_for_a_seat(make, expected):
    """sushi-roll.txt, EVERYBODY TAKES A TURN: a menu re-rolls *dice* (a sequence of faces), a seat is
    a number. ``Menu(0, "tempura")`` used to fail as "unknown face 't'"; ``Take(True, ...)`` compared
    equal to ``Take(1, ...)``. Now the engine's IllegalAction (rule ``action-shape``) names the shape."""
    with pytest.raises(IllegalAction) as exc:
        make()
    assert exc.value.rule == "action-shape"
    assert expected in exc.value.message
    assert exc.value.section.startswith("sushi-roll.txt, ")


def test_13_10_sequences_of_the_right_shape_still_work(rolled):
    # Lists and tuples of names, and seat 0 (an int, not False), are the shapes asked for.
    assert apply(rolled, Menu(0, ["tempura"], ("sashimi",))).tokens[0].menu == 2
    assert new_game(("Ann", "Bo"), red_seat=0).players == ("Ann", "Bo")
    assert random_game(1, ["X", "Y"]).players == ("X", "Y")
