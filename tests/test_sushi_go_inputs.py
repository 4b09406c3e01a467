"""Issue #13 item 10: the Sushi Go! entry points refuse a value of the wrong shape by name, and take
a bare card name as the one-card play it is in the ``companion score`` record.

Each refusal here used to be a stray ``ValueError: unknown card 't'``, a ``TypeError``/
``AttributeError`` from deep inside the engine, or, worse, silent acceptance (a string of player
names split into letters, ``True`` taken as seat 1).
"""

import random
from dataclasses import fields

import pytest

from companion.rules.errors import IllegalAction
from companion.rules.sushi_go import FULL_DECK, apply, apply_turn, new_game, new_game_with_deck, new_observed_game
from companion.rules.sushi_go.cards import Card
from companion.rules.sushi_go.state import Play, SushiGoOptions, tableau_cards


def test_13_10_bare_card_name_is_a_one_card_play():
    """A record turn is a card name or a list of 2 (sushi-go.txt, PLAYING A ROUND: "choose any 1 card");
    ``apply_turn`` takes the same shape."""
    state = apply_turn(new_observed_game(["Ann", "Bo"]), {0: "tempura", 1: Card.SASHIMI})
    assert [tableau_cards(t) for t in state.tableaux] == [(Card.TEMPURA,), (Card.SASHIMI,)]
    assert state.turn == 2


def test_13_10_bare_card_name_is_a_one_card_play_in_play():
    """``Play(seat, "tempura")`` is the one-card play, not seven letters (sushi-go.txt, PLAYING A ROUND)."""
    assert Play(0, "tempura").cards == (Card.TEMPURA,)
    assert Play(0, Card.WASABI).cards == (Card.WASABI,)


@pytest.mark.parametrize(
    "value,words",
    [
        (5, "got int 5"),
        (None, "got NoneType None"),
        ({"tempura": 1}, "got dict"),
        (["tempura", 3], "3 is not a card name"),
        (b"tempura", "got bytes"),
    ],
)
def test_13_10_a_play_of_the_wrong_shape_is_an_illegal_action(value, words):
    """Anything but a card name or a list of card names is refused naming the shape a play has
    (sushi-go.txt, PLAYING A ROUND and USING CHOPSTICKS), as an IllegalAction the table loop handles."""
    state = new_observed_game(["Ann", "Bo"])
    with pytest.raises(IllegalAction) as exc:
        apply_turn(state, {0: value, 1: "tempura"})
    assert exc.value.rule == "play-shape" and exc.value.player == "Ann"
    assert "a card name, or a list of 2 card names" in str(exc.value) and words in str(exc.value)
    assert "PLAYING A ROUND" in exc.value.section


def test_13_10_an_unknown_card_name_is_an_illegal_action():
    """A name that is no card of the game is refused listing the cards (sushi-go-with-variants.txt, CONTENTS)."""
    with pytest.raises(IllegalAction) as exc:
        apply_turn(new_observed_game(["Ann", "Bo"]), {0: "tempura", 1: ["chopsticks", "tempra"]})
    assert exc.value.rule == "unknown-card" and exc.value.player == "Bo"
    assert "unknown card 'tempra'" in str(exc.value) and "CONTENTS" in exc.value.section


@pytest.mark.parametrize("plays", [[("tempura",), ("sashimi",)], "tempura", None])
def test_13_10_a_turn_that_is_not_a_mapping_is_an_illegal_action(plays):
    """A turn is ``{seat: play}``, one entry per seat (sushi-go.txt, PLAYING A ROUND)."""
    with pytest.raises(IllegalAction) as exc:
        apply_turn(new_observed_game(["Ann", "Bo"]), plays)
    assert exc.value.rule == "play-shape" and "{seat: play}" in str(exc.value)


@pytest.mark.parametrize("seat", [True, "0", 0.0])
def test_13_10_a_seat_must_be_a_seat_number(seat):
    """``True`` is not seat 1, nor "0" seat 0 (sushi-go.txt, PLAYING A ROUND: each player plays a card)."""
    state = new_observed_game(["Ann", "Bo"])
    with pytest.raises(IllegalAction) as exc:
        apply(state, Play(seat, ("tempura",)))
    assert exc.value.rule == "unknown-seat" and repr(seat) in str(exc.value)
    with pytest.raises(IllegalAction) as exc:
        apply_turn(state, {seat: "tempura", 1: "sashimi"})
    assert exc.value.rule == "unknown-seat"


def test_13_10_apply_refuses_what_is_not_a_play():
    """``apply`` takes a Play; a bare name is refused naming the Play it should be (PLAYING A ROUND)."""
    with pytest.raises(IllegalAction) as exc:
        apply(new_observed_game(["Ann", "Bo"]), "tempura")
    assert exc.value.rule == "play-shape" and "Play(seat, cards)" in str(exc.value)


def _option_values():
    """For every option, a value of the wrong type that Python would otherwise let through."""
    for f in fields(SushiGoOptions):
        if isinstance(f.default, bool):
            yield f.name, 1  # an int where true/false is meant
            yield f.name, "yes"
        else:
            yield f.name, True  # a bool where a seat number is meant (True == 1)
            yield f.name, 1.0


@pytest.mark.parametrize("name,value", list(_option_values()))
def test_13_10_options_refuse_a_value_of_the_wrong_type(name, value):
    """Every option field holds its own type only (sushi-go-with-variants.txt, TWO-PLAYER VARIANT for
    the dummy's options; sushi-go.txt, VARIANT RULE for pass_both_ways)."""
    with pytest.raises(ValueError) as exc:
        SushiGoOptions(**{name: value})
    assert name in str(exc.value) and repr(value) in str(exc.value)


def test_13_10_first_dummy_controller_true_is_refused():
    """The issue's own example: ``first_dummy_controller=True`` is not seat 1 (TWO-PLAYER VARIANT)."""
    with pytest.raises(ValueError, match=r"first_dummy_controller must be seat 0 or 1, got True"):
        SushiGoOptions(first_dummy_controller=True)
    assert SushiGoOptions(first_dummy_controller=1).first_dummy_controller == 1


@pytest.mark.parametrize(
    "start",
    [
        lambda players: new_game(players, random.Random(1)),
        lambda players: new_observed_game(players),
        lambda players: new_game_with_deck(players, FULL_DECK),
    ],
    ids=["new_game", "new_observed_game", "new_game_with_deck"],
)
@pytest.mark.parametrize("players", ["AB", "Ann", b"AB", 2, None])
def test_13_10_players_as_one_string_are_refused(start, players):
    """``new_game("AB", rng)`` used to seat "A" and "B"; players are a list of names
    (sushi-go.txt, STARTING A ROUND: 2 to 5 players)."""
    with pytest.raises(ValueError) as exc:
        start(players)
    assert "players must be a list of names" in str(exc.value) and repr(players) in str(exc.value)


def test_13_10_rng_must_be_a_random_generator():
    """A seed where the seeded ``random.Random`` is meant is refused by name, not an AttributeError."""
    with pytest.raises(ValueError, match=r"rng must be a random\.Random.*got int 42"):
        new_game(["Ann", "Bo"], 42)


@pytest.mark.parametrize("options", [{"dummy": True}, {}, "dummy"])
def test_13_10_options_must_be_sushi_go_options(options):
    """Options are a SushiGoOptions (``from_mapping`` reads a record's object); a dict is refused by
    name, even an empty one that used to fall back to the defaults silently."""
    with pytest.raises(ValueError, match=r"options must be SushiGoOptions, got"):
        new_game(["Ann", "Bo"], random.Random(1), options)
