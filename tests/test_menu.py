"""The setup menu's state machine: steps, BACK, names used once, options offered by player count."""

from __future__ import annotations

import random
import subprocess
import sys

import pytest

from companion.app.menu import SetupChoice, SetupMenu
from companion.rules.sushi_go import new_game
from companion.rules.sushi_go.state import SushiGoOptions

SAVED = ["Ann", "Bo", "Cy", "Dee", "Eli", "Fay"]


def feed(menu, *events):
    out = None
    for e in events:
        out = menu.handle(e)
    return out


def current(menu):
    v = menu.view()
    return v.items[v.selected]


def test_ok_all_the_way_takes_the_defaults():
    m = SetupMenu(saved_names=SAVED)
    labels = [i.label for i in m.view().items]
    assert labels == ["Game", "Players", "Seat 1", "Seat 2", "Seat 3", "Pass both ways", "Same-turn wasabi", "Start"]
    results = [m.handle("ok") for _ in labels]
    assert results[:-1] == [None] * (len(labels) - 1)
    choice = results[-1]
    defaults = {"pass_both_ways": False, "same_turn_wasabi_triples": False}
    assert choice == SetupChoice("sushi-go", ("Ann", "Bo", "Cy"), defaults)
    assert SushiGoOptions.from_mapping(choice.options) == SushiGoOptions()


def test_player_count_stops_at_its_ends():
    m = SetupMenu(saved_names=SAVED, min_players=2, max_players=5)
    feed(m, "ok")
    feed(m, *["right"] * 6)
    assert current(m).value == "5"
    feed(m, *["left"] * 9)
    assert current(m).value == "2"
    feed(m, "right", "ok")
    assert current(m).label == "Seat 1"
    assert [i.label for i in m.view().items if i.label.startswith("Seat")] == ["Seat 1", "Seat 2", "Seat 3"]


def test_a_name_cannot_be_used_twice():
    m = SetupMenu(saved_names=SAVED)
    feed(m, "ok", "ok", "ok")  # game, 3 players, seat 1 = Ann
    assert current(m).label == "Seat 2" and current(m).value == "Bo"
    seen = []
    for _ in range(10):
        feed(m, "right")
        seen.append(current(m).value)
    # every saved name but Ann's, cycling round
    free = ["Cy", "Dee", "Eli", "Fay", "Bo"]
    assert seen[:5] == free and seen[5:10] == free
    feed(m, "left")
    assert current(m).value == "Fay"


def test_going_back_to_take_a_later_seats_name_moves_that_seat_on():
    m = SetupMenu(saved_names=SAVED)
    feed(m, "ok", "ok", "ok", "ok")  # Ann, Bo confirmed; on seat 3 (Cy)
    feed(m, "back", "back")  # seat 1
    assert current(m).label == "Seat 1" and current(m).value == "Ann"
    feed(m, "right")  # seat 1 takes Bo
    assert current(m).value == "Bo"
    names = m.players()
    assert names[0] == "Bo" and len(set(names)) == 3
    choice = feed(m, "ok", "ok", "ok", "ok", "ok", "ok")
    assert choice is not None and len(set(choice.players)) == 3 and choice.players[0] == "Bo"


def test_back_keeps_values_and_stops_at_the_first_step():
    m = SetupMenu(games=("sushi-go", "sushi-roll"), saved_names=SAVED)
    feed(m, "right", "ok", "right", "ok")  # sushi-roll, 4 players
    feed(m, "back")
    assert current(m).label == "Players" and current(m).value == "4"
    feed(m, "back")
    assert current(m).label == "Game" and current(m).value == "Sushi Roll"
    feed(m, "back", "back")
    assert m.view().selected == 0


def test_menu_event_returns_to_the_first_step_keeping_choices():
    m = SetupMenu(saved_names=SAVED)
    feed(m, "ok", "right", "ok", "ok")
    assert current(m).label == "Seat 2"
    feed(m, "menu")
    assert m.view().selected == 0
    assert m.view().items[1].value == "4"


def test_dummy_is_offered_only_for_two_players_and_its_options_only_with_it():
    m = SetupMenu(saved_names=SAVED)
    feed(m, "ok", "left", "ok", "ok", "ok")  # 2 players: Ann, Bo
    labels = [i.label for i in m.view().items]
    assert "Dummy player" in labels and "Dummy chopsticks" not in labels
    feed(m, "ok", "ok")  # pass both ways, same-turn wasabi
    assert current(m).label == "Dummy player" and current(m).value == "no"
    feed(m, "right")
    labels = [i.label for i in m.view().items]
    assert labels[-4:] == ["Dummy chopsticks", "Dummy in puddings", "Dummy first run by", "Start"]
    feed(m, "ok", "ok", "ok")
    assert current(m).label == "Dummy first run by" and current(m).value == "Ann"
    feed(m, "right")
    assert current(m).value == "Bo"
    choice = feed(m, "ok", "ok")
    assert choice.players == ("Ann", "Bo")
    assert choice.options == {
        "pass_both_ways": False,
        "same_turn_wasabi_triples": False,
        "dummy": True,
        "dummy_uses_chopsticks": False,
        "dummy_in_pudding_penalty": True,  # the rules' default (SushiGoOptions)
        "first_dummy_controller": 1,
    }
    state = new_game(list(choice.players), random.Random(0), SushiGoOptions.from_mapping(choice.options))
    assert state.players == ("Ann", "Bo", "Dummy") and state.controller == 1


def test_dummy_options_vanish_when_the_table_grows():
    m = SetupMenu(saved_names=SAVED)
    feed(m, "ok", "left", "ok", "ok", "ok", "ok", "ok", "right")  # 2 players, dummy on
    assert "Dummy chopsticks" in [i.label for i in m.view().items]
    while current(m).label != "Players":
        feed(m, "back")
    feed(m, "right")  # 3 players
    labels = [i.label for i in m.view().items]
    assert not any(label.startswith("Dummy") for label in labels)
    choice = feed(m, *["ok"] * len(labels))
    assert choice is not None and "dummy" not in choice.options and len(choice.players) == 3


def test_a_player_called_dummy_gets_no_dummy_variant():
    m = SetupMenu(saved_names=["Dummy", "Bo"])
    feed(m, "ok", "left", "ok", "ok", "ok")
    assert "Dummy player" not in [i.label for i in m.view().items]


def test_option_toggles_and_wraps():
    m = SetupMenu(saved_names=SAVED)
    feed(m, "ok", "ok", "ok", "ok", "ok")
    assert current(m).label == "Pass both ways"
    feed(m, "right")
    assert current(m).value == "yes"
    feed(m, "right")
    assert current(m).value == "no"
    feed(m, "left")
    choice = feed(m, "ok", "ok", "ok")
    assert choice.options["pass_both_ways"] is True


def test_panel_undo_is_ignored_and_unknown_events_refused():
    m = SetupMenu(saved_names=SAVED)
    assert m.handle("undo") is None and m.handle("undo_turn") is None
    assert m.view().selected == 0
    with pytest.raises(ValueError, match="left, right, ok, back, menu.*'jump'"):
        m.handle("jump")


def test_names_are_filled_when_too_few_are_saved():
    m = SetupMenu(saved_names=[" Player 2 ", "Ann", "Ann"], max_players=5)
    feed(m, "ok", *["right"] * 3)
    assert m.players() == ("Player 2", "Ann", "Player 1", "Player 3", "Player 4")
    m = SetupMenu()
    assert m.players() == ("Player 1", "Player 2", "Player 3")


@pytest.mark.parametrize(
    "kwargs, words",
    [
        (dict(games=()), "at least one game"),
        (dict(saved_names=["Ann", ""]), "non-empty"),
        (dict(saved_names=["Ann", 3]), "non-empty"),
        (dict(min_players=4, max_players=3), "min 4, max 3"),
        (dict(min_players=0), "min 0"),
    ],
)
def test_bad_setup_is_refused(kwargs, words):
    with pytest.raises(ValueError, match=words):
        SetupMenu(**kwargs)


def test_view_hints_and_prompts_follow_the_step():
    m = SetupMenu(saved_names=SAVED)
    v = m.view()
    assert v.prompt == "Which game?" and [k for k, _ in v.hint] == ["◀▶", "OK"] and v.step_text == "1/8"
    feed(m, "ok", "ok", "ok")
    v = m.view()
    assert v.prompt == "Who sits at seat 2?" and [k for k, _ in v.hint] == ["◀▶", "OK", "BACK"]
    assert v.items[v.selected].seat == 1
    feed(m, *["ok"] * 4)
    v = m.view()
    assert v.items[v.selected].kind == "button" and dict(v.hint)["OK"] == "start"


def test_random_presses_only_ever_give_a_playable_setup():
    """Whatever the panel sends, a returned choice starts a legal Sushi Go! game."""
    rng = random.Random(7)
    events = ["left", "right", "ok", "ok", "ok", "back", "menu", "undo"]
    choices = 0
    for _ in range(300):
        m = SetupMenu(saved_names=SAVED[: rng.randint(0, 6)])
        for _ in range(rng.randint(1, 80)):
            choice = m.handle(rng.choice(events))
            v = m.view()
            assert 0 <= v.selected < len(v.items)
            if choice is not None:
                choices += 1
                assert 2 <= len(choice.players) <= 5 and len(set(choice.players)) == len(choice.players)
                options = SushiGoOptions.from_mapping(choice.options)
                new_game(list(choice.players), random.Random(0), options)
                break
    assert choices > 20  # the walk does reach Start often enough to mean something


def test_import_stays_light():
    code = "import sys, companion.app.menu; print('pygame' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_sushi_roll_asks_who_has_the_red_belt_among_the_seats_in_play():
    menu = SetupMenu(games=("sushi-go", "sushi-roll"), saved_names=SAVED)
    feed(menu, "right", "ok")  # Sushi Roll
    feed(menu, "left", "ok")  # 2 players
    feed(menu, "ok", "ok")  # the two names
    assert current(menu).label == "Red belt" and current(menu).value == "Ann"
    feed(menu, "right")
    assert current(menu).value == "Bo"
    feed(menu, "right")  # only 2 seats: back to the first
    assert current(menu).value == "Ann"
    feed(menu, "left", "ok")
    assert current(menu).label == "Equal puddings" and current(menu).value == "nobody"
    choice = feed(menu, "ok", "ok")
    assert choice == SetupChoice("sushi-roll", ("Ann", "Bo"), {"red_seat": 1, "pudding_all_equal": "nobody"})
    from companion.app.games import adapter

    assert adapter("sushi-roll").new_state(choice.players, choice.options).red_seat == 1


def test_each_game_keeps_the_players_in_its_own_range():
    from companion.app.menu import SetupMenu

    menu = SetupMenu(games=("sushi-go", "sushi-express"))
    menu.handle("ok")  # on to players, Sushi Go! chosen
    for _ in range(5):
        menu.handle("right")
    assert menu.n_players == 5  # Sushi Go! is for 2 to 5
    menu.handle("back")
    menu.handle("right")  # Sushi Express
    menu.handle("ok")
    menu.handle("right")
    assert menu.n_players == 6  # Sushi Express is for 3 to 6
    for _ in range(5):
        menu.handle("left")
    assert menu.n_players == 3
    menu.handle("back")
    menu.handle("left")  # back to Sushi Go!: 3 stays
    assert menu.game == "sushi-go" and menu.n_players == 3
    menu.handle("right")  # Sushi Express again, then 6, then Sushi Go!: clamped to 5
    menu.handle("ok")
    for _ in range(3):
        menu.handle("right")
    menu.handle("back")
    menu.handle("left")
    assert menu.n_players == 5
