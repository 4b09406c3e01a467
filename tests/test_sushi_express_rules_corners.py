"""Issue #13, the Sushi Express points: options the record check and the engine must agree on (4),
"place exchange" only on the holder's own turn (5), the last guesser's exchange (6), the scoreboard's
unbroken tie (9), entry points refusing a str or a bool of the wrong shape (10), and the property
"records from the engine's own games are accepted, impossible ones refused" (Done means).

Expected values are worked out from the rulebook (../shared/rules/sushi-express.txt), never copied
from the engine's output.
"""

import copy
import json
import random
from collections import Counter
from dataclasses import fields, replace
from pathlib import Path

import pytest

from companion.rules.errors import IllegalAction, MalformedGame
from companion.rules.sushi_express import (
    FULL_CUSTOMER_DECK,
    SushiExpress,
    apply,
    legal_actions,
    new_game,
    new_game_with_decks,
    random_game,
    score_game,
    starting_supply,
    van_path,
)
from companion.rules.sushi_express.record import format_sushi_express_table, score_sushi_express_record
from companion.rules.sushi_express.state import (
    ACTION_COUNTS,
    CUSTOMER_COUNTS,
    ActionCard as A,
    Customer as C,
    Exchange,
    Guess,
    Move,
    Phase,
    Roll,
    SushiExpressOptions,
    parse_customer,
)

FIXTURES = Path(__file__).parent / "fixtures" / "score"
NAMES = ("Ann", "Bo", "Cy", "Di", "Ed", "Flo")
COLOUR_NAMES = {c.value for c in C if c is not C.TIP}


def load(name):
    return json.loads((FIXTURES / name).read_text())


def three_player_game(hands):
    """Ann, Bo, Cy with the given hands; Ann guesses first (decks in a fixed order)."""
    state = new_game_with_decks(NAMES[:3], starting_supply(3), FULL_CUSTOMER_DECK)
    return replace(state, hands=hands)


def refused(state, action, rule, section_part):
    with pytest.raises(IllegalAction) as exc:
        apply(state, action)
    assert exc.value.rule == rule, str(exc.value)
    assert section_part in exc.value.section, exc.value.section
    # Compared by type too: Python finds Move(0, True) == Move(0, 1), yet only the int is legal.
    listed = [(type(a), repr(a)) for a in legal_actions(state)]
    assert (type(action), repr(action)) not in listed
    return exc.value


# --- 4. The record check and the engine agree on every option ---------------------------------------


def test_13_4_first_player_must_be_a_seat_of_the_recorded_game():
    """PREPARATION: "The players choose a starting player" - one of the players, so in a 3-player game
    seat 5 does not exist. ``companion score`` used to accept it although ``new_game`` refuses it."""
    record = load("sushi_express_rulebook.json")
    record["options"] = {"first_player": 5}
    with pytest.raises(MalformedGame) as exc:
        score_sushi_express_record(record)
    assert exc.value.path == "options.first_player"
    assert "a 3-player game has seats 0 to 2, got 5" in exc.value.problem
    assert "PREPARATION" in exc.value.problem
    record["options"] = {"first_player": 2}  # Claus, a seat of this game
    assert score_sushi_express_record(record).winners == ("Bernd",)


CANDIDATE_VALUES = [-1, 0, 1, 2, 3, 4, 5, 6, 7, True, False, None, 1.0, "1", "yes"]


def _engine_accepts(seats, key, value):
    try:
        new_game(NAMES[:seats], random.Random(0), SushiExpressOptions(**{key: value}))
    except ValueError:
        return False
    return True


def _record_accepts(seats, key, value):
    blank = {"customers": {}, "tips": 0, "tip_actions": 0, "actions_left": 0}
    record = {"players": list(NAMES[:seats]), "cards": {n: dict(blank) for n in NAMES[:seats]}, "options": {key: value}}
    try:
        score_sushi_express_record(record)
    except MalformedGame as exc:
        assert exc.path == f"options.{key}", str(exc)
        return False
    return True


def test_13_4_record_and_engine_agree_on_every_option():
    """Every option (PREPARATION's starting player, SCORING's equal tips), every value, every player
    count: ``new_game`` accepts it exactly when ``companion score`` does."""
    verdicts = Counter()
    for seats in range(3, 7):
        for f in fields(SushiExpressOptions):
            for value in CANDIDATE_VALUES:
                engine, record = _engine_accepts(seats, f.name, value), _record_accepts(seats, f.name, value)
                assert engine == record, f"{seats} players, {f.name}={value!r}: engine {engine}, record {record}"
                verdicts[engine] += 1
    assert verdicts[True] and verdicts[False]  # both answers occur: the comparison is not vacuous
    # By hand: first_player accepts exactly the seats, equal_tips_penalty exactly the two bools.
    assert [v for v in CANDIDATE_VALUES if _engine_accepts(4, "first_player", v)] == [0, 1, 2, 3]
    assert [v for v in CANDIDATE_VALUES if _engine_accepts(3, "equal_tips_penalty", v)] == [True, False]


# --- 5. "place exchange" only in the holder's own phase-1 turn --------------------------------------


def test_13_5_place_exchange_only_in_the_holders_own_turn():
    """THE ACTION CARDS: "On a player's turn, he can play as many action cards as he has in his hand ...
    but he must play them in the appropriate phase." So "place exchange" (phase 1) is played by its
    holder in their own phase-1 turn, before or after placing the marker, and at no other moment."""
    from companion.rules.sushi_express import EndTurn

    hands = ((A.PLACE_EXCHANGE,), (A.SAME_GUESS,), (A.PLACE_EXCHANGE, A.PLACE_EXCHANGE))
    state = three_player_game(hands)
    state = apply(apply(state, Guess(0, 8)), EndTurn(0))
    state = apply(state, Guess(1, 9))
    # Bo's turn: Ann and Cy hold the card, but it is not their turn.
    refused(state, Exchange(0, 8, 9), "not-your-turn", "THE ACTION CARDS")
    refused(state, Exchange(2, 8, 9), "not-your-turn", "THE ACTION CARDS")
    state = apply(state, EndTurn(1))
    # Cy's own turn, before placing: Ann (8) and Bo (9) swap places.
    state = apply(state, Exchange(2, 8, 9))
    assert state.stack(8) == (1,) and state.stack(9) == (0,)
    # ... and after placing on 10: the marker on 9 (Ann) and Cy's swap.
    state = apply(state, Guess(2, 10))
    state = apply(state, Exchange(2, 9, 10))
    assert state.stack(9) == (2,) and state.stack(10) == (0,)
    assert state.hands[2] == () and state.played_actions.count(A.PLACE_EXCHANGE) == 2
    state = apply(state, EndTurn(2))
    # Phase 2: Ann still holds her card but phase 1 is over.
    assert state.phase is Phase.ROLL and state.order == (0, 2, 1)
    refused(state, Exchange(0, 9, 10), "wrong-phase", "Place exchange")


# --- 6. The last guesser can exchange; a turn ends when its player says so -----------------------------


def test_13_6_last_guesser_can_exchange():
    """THE ACTION CARDS: every player may play action cards on their turn, the last guesser too. The
    last Guess used to move the game straight to phase 2; now a phase-1 turn ends with the player's
    EndTurn (the panel's OK), so the last player can exchange after placing (1. place guesses)."""
    from companion.rules.sushi_express import EndTurn

    hands = ((A.SAME_GUESS,), (A.SAME_GUESS,), (A.PLACE_EXCHANGE,))
    state = three_player_game(hands)
    refused(state, EndTurn(0), "guess-first", "1. place guesses")
    for seat, number in ((0, 8), (1, 9)):
        state = apply(apply(state, Guess(seat, number)), EndTurn(seat))
    state = apply(state, Guess(2, 10))  # the last marker is placed ...
    assert state.phase is Phase.GUESS and state.current == 2  # ... and it is still Cy's turn
    assert set(legal_actions(state)) == {Exchange(2, 8, 9), Exchange(2, 9, 10), EndTurn(2)}
    state = apply(state, Exchange(2, 9, 10))  # Cy takes 9, Bo goes to 10
    assert state.phase is Phase.GUESS
    state = apply(state, EndTurn(2))
    # Phase 2: Bo (10) rolls first, then Cy (9), then Ann (8), the lowest guess.
    assert state.phase is Phase.ROLL and state.order == (1, 2, 0) and state.guesses == (8, 10, 9)


def test_13_6_random_games_give_every_seat_the_end_of_turn():
    """Bots that drive the engine end every phase-1 turn themselves: across random games every seat,
    the last guesser included, is offered EndTurn once per round, and it is the only way into phase 2."""
    from companion.rules.sushi_express import EndTurn

    for seed in range(6):
        rng = random.Random(seed)
        state = new_game(NAMES[:4], rng)
        ended = Counter()
        while not state.is_over:
            action = rng.choice(legal_actions(state))
            before = state.phase
            state = apply(state, action, rng)
            if isinstance(action, EndTurn):
                ended[action.player] += 1
            if before is Phase.GUESS and state.phase is not Phase.GUESS:
                assert isinstance(action, EndTurn)
        assert set(ended.values()) == {state.round}


# --- 9. The scoreboard says when the tie stays ---------------------------------------------------------


def test_13_9_tie_not_broken_says_it_stays_tied():
    """SCORING: "If players tie for most points, the player among them with the most action cards left
    is the winner." When they also hold as many action cards, the tie-break breaks nothing: the table
    must say the tie stays, not that it was broken."""
    record = load("sushi_express_tie.json")
    record["cards"]["Ann"]["actions_left"] = 3  # Ann 11 points and 3 cards, as Bo
    table = format_sushi_express_table(score_sushi_express_record(record))
    assert "Winners (tied): Ann, Bo" in table
    assert "broken by" not in table.replace("not broken by", "")
    assert (
        "Tie on 11 points not broken by action cards left, tips not counted: Ann 3, Bo 3;"
        " Ann and Bo stay tied and share the win"
    ) in table
    # When the cards do decide, the table still says the tie was broken (Ann 1, Bo 3: Bo wins).
    broken = format_sushi_express_table(score_sushi_express_record(load("sushi_express_tie.json")))
    assert "Tie on 11 points broken by action cards left, tips not counted: Ann 1, Bo 3" in broken


# --- 10. A str where a sequence is expected, a bool where an int is expected ---------------------------


SETUP_CASES = {
    "players as one string": (lambda: new_game("ABC", random.Random(0)), "players must be a list of names"),
    "two players as a string": (lambda: new_game("AB", random.Random(0)), "players must be a list of names"),
    "engine rng not a Random": (lambda: SushiExpress(42), "rng must be a random.Random"),
    "options as a dict": (
        lambda: new_game(NAMES[:3], random.Random(0), {"first_player": 1}),
        "options must be a SushiExpressOptions",
    ),
    "equal_tips_penalty as 1": (lambda: SushiExpressOptions(equal_tips_penalty=1), "must be true or false"),
    "first_player as True": (lambda: SushiExpressOptions(first_player=True), "a whole number"),
    "random_game players as a string": (lambda: random_game(0, "ABCD"), "players must be a list of names"),
    "random_game players as True": (lambda: random_game(0, True), "bool"),
    "random_game seed as True": (lambda: random_game(True, 3), "seed must be a whole number"),
    "decks as strings": (
        lambda: new_game_with_decks(NAMES[:3], "same_guess", FULL_CUSTOMER_DECK),
        "action_supply must be a list or tuple",
    ),
    "van_path steps as True": (lambda: van_path((0, 3, 5), 0, True), "steps must be a whole number"),
    "van_path vans as a string": (lambda: van_path("035", 0, 2), "vans must be a list or tuple"),
    "score_game players as a string": (
        lambda: score_game("ABC", [{}, {}, {}], [0, 0, 0], [0, 0, 0]),
        "players must be a list of names",
    ),
    "score_game a count as True": (
        lambda: score_game(NAMES[:3], [{}, {}, {}], [True, 0, 0], [0, 0, 0]),
        "tip_actions[0] must be a whole number",
    ),
    "customer named by a number": (lambda: parse_customer(5), "a customer is named by a string"),
}


@pytest.mark.parametrize("case", list(SETUP_CASES))
def test_13_10_entry_points_refuse_a_str_or_bool_of_the_wrong_shape(case):
    """Bad input gets a clear error naming the thing and its expected shape, never a silent reading
    (``new_game("AB", rng)`` as the players "A" and "B", ``True`` as one card or seat 1)."""
    call, words = SETUP_CASES[case]
    with pytest.raises(ValueError) as exc:
        call()
    assert words in str(exc.value)


def test_13_10_actions_of_the_wrong_shape_are_illegal_actions():
    """Actions: the engine's own exception (IllegalAction with a rule and a section) naming the shape."""
    state = new_game(NAMES[:3], random.Random(0))
    err = refused(state, Guess(0, 7, same_guess=1), "same-guess-flag", "Same guess")
    assert "True or False" in err.message
    err = refused(state, Guess(True, 7), "unknown-seat", "PLAYING THE GAME")
    assert "whole number (int)" in err.message
    from companion.rules.sushi_express import EndTurn

    state = apply(apply(state, Guess(0, 7)), EndTurn(0))
    state = apply(apply(state, Guess(1, 5)), EndTurn(1))
    state = apply(apply(state, Guess(2, 3)), EndTurn(2))
    err = refused(state, Roll(0, "66"), "die-faces", "2. roll dice")
    assert "pair of ints" in err.message
    state = apply(state, Roll(0, (6, 1)))  # 7: Ann moves 7 from Sushi Express, not reaching it again
    err = refused(state, Move(0, True), "further-range", "1 tile further")
    assert "whole number (int)" in err.message
    # A name that is no customer is refused by the engine, naming the customers (it used to raise a
    # bare ValueError while the action was being built).
    err = refused(state, Move(0, 0, "teal"), "customer-not-in-display", "Sushi Express")
    assert "light_blue" in err.message


# --- Done means: records from the engine's own games are accepted; impossible ones are refused ---------


def _played(seed, seats, equal_tips):
    """A random legal game: every choice a uniformly random legal action, seeded."""
    rng = random.Random(seed)
    state = new_game(NAMES[:seats], rng, SushiExpressOptions(equal_tips, rng.randrange(seats)))
    while not state.is_over:
        state = apply(state, rng.choice(legal_actions(state)), rng)
    return state


def _refused_naming(record, path_end, *words):
    with pytest.raises(MalformedGame) as exc:
        score_sushi_express_record(record)
    assert exc.value.path.endswith(path_end), str(exc.value)
    for word in words:
        assert word in exc.value.problem, str(exc.value)


def _set_total(record, seat_name, field, total, box_total, colour=None):
    """Change ``seat_name``'s count so that the players hold ``total`` in all (``box_total`` before)."""
    entry = record["cards"][seat_name]
    if colour is None:
        entry[field] += total - box_total
    else:
        entry["customers"][colour] = entry["customers"].get(colour, 0) + total - box_total


GAMES = [(seed, 3 + seed % 4, seed % 3 == 0) for seed in range(24)]


@pytest.mark.parametrize("seed, seats, equal_tips", GAMES)
def test_13_records_from_engine_games_are_accepted_and_impossible_ones_refused(seed, seats, equal_tips):
    """For random legal games, the record written from the engine's own final state is accepted by the
    score path with the engine's result; each record mutated to be impossible is refused, naming the
    rule: one card more than the box holds (CONTENTS; THE ACTION CARDS for action cards) and a seat
    that does not exist (PREPARATION: the starting player is one of the players)."""
    from companion.rules.sushi_express.record import record_from_state

    state = _played(seed, seats, equal_tips)
    record = json.loads(json.dumps(record_from_state(state)))  # what a file holds
    result = score_sushi_express_record(record)
    assert (result.totals, result.winners, result.tie_break) == (
        state.result.totals,
        state.result.winners,
        state.result.tie_break,
    )
    rng = random.Random(seed)
    names = list(state.players)

    def held(kind):
        if kind == "tips":
            return sum(e["tips"] for e in record["cards"].values())
        if kind == "tip_actions":
            return sum(e["tip_actions"] for e in record["cards"].values())
        if kind == "actions_left":
            return sum(e["actions_left"] for e in record["cards"].values())
        return sum(e["customers"].get(kind, 0) for e in record["cards"].values())

    boxes = {name: CUSTOMER_COUNTS[C(name)] for name in sorted(COLOUR_NAMES)}
    boxes["tips"] = CUSTOMER_COUNTS[C.TIP]
    boxes["tip_actions"] = ACTION_COUNTS[A.TIP]
    boxes["actions_left"] = sum(n for card, n in ACTION_COUNTS.items() if card is not A.TIP)
    section = {"tip_actions": "THE ACTION CARDS", "actions_left": "THE ACTION CARDS"}
    for kind, box in boxes.items():
        who = rng.choice(names)
        colour = kind if kind in COLOUR_NAMES else None
        field = None if colour else kind
        # Exactly the box: still possible, so still accepted.
        at_box = copy.deepcopy(record)
        _set_total(at_box, who, field, box, held(kind), colour)
        score_sushi_express_record(at_box)
        # One card more than the box: refused, naming the field and the rule.
        over = copy.deepcopy(record)
        _set_total(over, who, field, box + 1, held(kind), colour)
        path_end = f".customers.{colour}" if colour else f".{field}"
        _refused_naming(over, path_end, f"hold {box + 1} ", f"only {box}", section.get(kind, "CONTENTS"))
    # A seat that does not exist: a starting player beyond the seats, or cards of a player not at the table.
    for seat in range(seats, 6):
        bad = copy.deepcopy(record)
        bad["options"]["first_player"] = seat
        _refused_naming(bad, "options.first_player", f"a {seats}-player game has seats 0 to {seats - 1}",
                        "PREPARATION")
    bad = copy.deepcopy(record)
    bad["cards"]["Zed"] = bad["cards"][names[0]]
    _refused_naming(bad, "cards.Zed", "unknown player")


def test_13_a_record_from_an_engine_game_through_companion_score(tmp_path, capsys):
    """The same record through the command itself: exit 0 and the engine's totals."""
    from companion.cli import main
    from companion.rules.sushi_express.record import record_from_state

    state = _played(5, 4, False)
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record_from_state(state)))
    assert main(["score", "--game", "sushi-express", "--json", str(path)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["total"] == dict(zip(state.players, state.result.totals))
