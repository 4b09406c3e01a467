"""The Sushi Express screens (issue #11): view-models built from real engine and table states say what
the state holds (whose turn, the phase, the dice, the markers, hidden cards, the rule refused, the
tie-break), the "1 tile further" question draws the van where the rule moves it, and every screen
renders at 480×320 and 800×480 with its text inside, readable and not overlapping.

Expected values are worked out by hand from sushi-express.txt, not copied from the code's output.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")

from companion.app import express_prompts as ep  # noqa: E402
from companion.app import express_views as xv  # noqa: E402
from companion.app.play_screens import render_play_boxes  # noqa: E402
from companion.app.play_views import PlayScreen, RefusalView, StatusBar  # noqa: E402
from companion.app.roll_views import RollUndoView  # noqa: E402
from companion.app.screens import SEAT_COLOURS, font, save_png  # noqa: E402
from companion.rules.core import GAME_END  # noqa: E402
from companion.rules.errors import IllegalAction  # noqa: E402
from companion.rules.sushi_express import table as T  # noqa: E402
from companion.rules.sushi_express.engine import (  # noqa: E402
    FULL_CUSTOMER_DECK,
    apply,
    end_game,
    legal_actions,
    new_game,
    new_game_with_decks,
    starting_supply,
    van_path,
)
from companion.rules.sushi_express.state import (  # noqa: E402
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
)

pygame = pytest.importorskip("pygame")
from companion.app import express_screens as xs  # noqa: E402

SIZES = [(480, 320), (800, 480)]
LONG = "Christopher-Alexander the Magnificent"
NAMES = ["Ann", "Bo", "Cy", "Dee", "Ed", LONG]
BAR = StatusBar.of(camera="ok", peripheral="ok", panel=("unplugged", "error"), journal="ok")


def names(n):
    return NAMES[: n - 1] + [LONG]


# ---------------------------------------------------------------------------------------------
# Games


def engine_game(n, seed):
    """Every state of a whole engine game of ``n`` played by random legal actions."""
    rng = random.Random(seed)
    state = new_game(names(n), rng)
    out = [state]
    while not state.is_over:
        state = apply(state, rng.choice(legal_actions(state)), rng)
        out.append(state)
    return out


def table_game(n, seed):
    """Every state of a whole game at a real table (TableState): hidden action cards, the display laid
    out by the players, dice read as faces; at the end the hidden hands hold the tips their placeholders
    say (any count the box allows would do)."""
    rng = random.Random(seed)
    state = T.new_table_game(names(n))
    deck = list(state.customer_supply + state.display)
    rng.shuffle(deck)
    state = T.name_display(state, deck[:n])
    out = [state]
    while not state.is_over:
        if state.unnamed:  # a refill: the players name the cards drawn
            state = T.name_display(state, rng.sample(list(state.customer_supply + state.display[-state.unnamed:]),
                                                     state.unnamed))
        elif state.tips_asked:  # the end: the hidden hands hold the tips their placeholders say
            state = T.reveal_tips(state, {s: Counter(state.unseen[s])[A.TIP] for s in range(n) if state.unseen[s]})
        else:
            action = rng.choice(legal_actions(state))
            if isinstance(action, Roll):
                action = Roll(action.player, (rng.randint(1, 6), rng.randint(1, 6)))
            elif isinstance(action, ReRoll):
                action = ReRoll(action.player, action.die, rng.randint(1, 6))
            state = T.advance(state, action)
        out.append(state)
    return out


def sampled(states):
    """A state of each phase (phase 2 before and after a try), in round 1 and in a later round, and
    the end."""
    seen, out = set(), []
    for s in states:
        key = (s.phase, s.round == 1, s.dice is None)
        if key not in seen:
            seen.add(key)
            out.append(s)
    return out


def first_guesses(numbers, n=4):
    """A table game whose first seats have placed ``numbers`` (ints, or ("same", k) for "same guess" on
    k), each ending their turn; the next seat is to guess."""
    state = T.new_table_game(names(n))
    state = T.name_display(state, [C.ROSE, C.LIGHT_BLUE, C.TIP, C.DARK_BLUE, C.RED, C.GREEN][:n])
    for seat, number in enumerate(numbers):
        guess = Guess(seat, number[1], same_guess=True) if isinstance(number, tuple) else Guess(seat, number)
        state = T.advance(state, guess)
        state = T.advance(state, EndTurn(seat))
    return state


def moving(vans=(1, 2, 4, 9)):
    """4 players: Ann guesses 5, Bo 4, Cy 3, Dee 2; Ann rolls 3+3 = 6 (5 or more: phase 3, Ann moves
    first); then the vans stand on ``vans`` (as after earlier rounds)."""
    state = first_guesses([5, 4, 3, 2])
    state = T.advance(state, Roll(0, (3, 3)))
    assert state.phase is Phase.MOVE and state.current == 0
    return replace(state, vans=tuple(vans), has_moved=(True,) * 4)


# ---------------------------------------------------------------------------------------------
# The scoreboard and the waiting screen


def test_scoreboard_in_phase_2_shows_the_dice_tries_and_the_rollers_guess():
    state = first_guesses([8, 4, 3, 2])
    assert state.phase is Phase.ROLL and state.current == 0  # the highest guess rolls (2. roll dice)
    state = T.advance(state, Roll(0, (3, 4)))  # 7 < 8: the first try failed
    view = xv.scoreboard_view(state, "Ann: rolls 3+4 = 7")
    assert (view.phase, view.round, view.dice, view.roller, view.tries, view.need) == (Phase.ROLL, 1, (3, 4), 0, 1, 8)
    assert view.title == "Round 1 · 2 roll dice" and view.note == "Ann's turn" and view.active == 0
    assert [s.marker for s in view.seats] == [8, 4, 3, 2] and view.status == "Ann: rolls 3+4 = 7"
    _, boxes = render_play_boxes(view, (480, 320), BAR)
    assert [b.text for b in boxes if b.role == "dice_sum"] == ["= 7"]
    assert [b.text for b in boxes if b.role == "ring_centre"] == ["tries: 1 of 2", "needs 8+"]
    # before the first try there are no dice; once a van moves, no dice and no roller
    assert xv.scoreboard_view(first_guesses([8, 4, 3, 2])).dice is None
    moved = T.advance(state, Roll(0, (6, 6)))
    assert xv.scoreboard_view(moved).roller is None and xv.scoreboard_view(moved).dice is None


def test_scoreboard_shows_what_each_seat_collected_and_only_the_action_cards_seen():
    state = moving()
    state = replace(state, collected=((C.ROSE, C.ROSE, C.TIP), (C.LIGHT_BLUE,), (), ()),
                    hands=((A.TILE_FURTHER, A.SAME_GUESS, A.RE_ROLL, A.TIP), *state.hands[1:]),
                    unseen=((A.RE_ROLL, A.TIP), (), (), ()))
    view = xv.scoreboard_view(state)
    ann = view.seats[0]
    # the re-roll and the tip were taken face down: the companion counts them hidden, not by kind
    assert ann.customers == [(C.ROSE, 2)] and ann.tips == 1 and ann.hidden == 2
    assert ann.actions == [(A.SAME_GUESS, 1), (A.TILE_FURTHER, 1)] and ann.action_count == 4
    assert view.seats[1].customers == [(C.LIGHT_BLUE, 1)] and view.seats[1].tips == 0
    _, boxes = render_play_boxes(view, (800, 480), BAR)
    assert "2 hidden" in [b.text for b in boxes if b.role == "hidden_cards" and b.index == 0]
    assert [b.text for b in boxes if b.role == "customer_count" and b.index == 0] == ["2"]
    # an engine state hides nothing
    engine = replace(new_game(names(3), random.Random(1)), hands=((A.TIP, A.RE_ROLL),) * 3)
    seat = xv.scoreboard_view(engine).seats[0]
    assert seat.hidden == 0 and seat.tips == 1 and seat.actions == [(A.RE_ROLL, 1)]


def test_the_display_is_unknown_until_laid_out():
    fresh = T.new_table_game(names(3))
    assert xv.scoreboard_view(fresh).display is None
    laid = T.name_display(fresh, [C.ROSE, C.TIP, C.ROSE])
    assert Counter(xv.scoreboard_view(laid).display) == Counter({C.ROSE: 2, C.TIP: 1})
    _, boxes = render_play_boxes(xv.scoreboard_view(laid), (480, 320))
    assert sorted(b.text for b in boxes if b.role == "display_card") == ["rose ×2", "tip"]


def test_the_board_draws_each_stack_in_seat_colours_bottom_first():
    import numpy as np

    # Ann 7, Bo "same guess" on 7 (on top of Ann), Cy 3 (THE ACTION CARDS, Same guess)
    state = first_guesses([7, ("same", 7), 3])
    assert state.stack(7) == (0, 1)
    surface, boxes = render_play_boxes(xv.scoreboard_view(state), (800, 480))
    px = pygame.surfarray.array3d(surface).astype(int)  # (W, H, 3)
    for number in range(2, 13):
        box = next(b for b in boxes if b.role == "guess_number" and b.index == number)
        x = box.rect[0] + box.rect[2] // 2
        column = px[x, box.rect[1] + box.rect[3]: box.rect[1] + box.rect[3] + int(480 * 0.1)]
        found = {s: [y for y, c in enumerate(column) if (np.abs(c - xs.seat_colour(s)) <= 2).all()] for s in range(4)}
        seats = sorted(s for s, ys in found.items() if ys)
        assert seats == {7: [0, 1], 3: [2]}.get(number, []), number
        if number == 7:  # Ann's marker is under Bo's: drawn lower
            assert min(found[0]) > max(found[1])


def test_waiting_lights_the_seats_and_says_what_they_do():
    state = T.advance(first_guesses([8, 4, 3, 2]), Roll(0, (3, 4)))
    view = xv.waiting_view(state, [0])
    assert [s.waiting for s in view.seats] == [True, False, False, False] and view.big_status
    assert view.status == "Ann rolls: try 2 of 2, needs 8 or more"
    assert xv.waiting_view(first_guesses([8, 4, 3, 2]), [0]).status == "Ann rolls: try 1 of 2, needs 8 or more"
    assert xv.waiting_view(state, [0], "Ann: roll again").status == "Ann: roll again"
    assert xv.waiting_view(state, [1, 2]).status == "Waiting for Bo and Cy"
    _, boxes = render_play_boxes(view, (480, 320), BAR)
    assert any(b.role == "seat_name" and b.index == 0 for b in boxes)
    with pytest.raises(ValueError, match="no seat 4"):
        xv.waiting_view(state, [4])


def test_six_seats_have_six_colours():
    assert xs.seat_colour(5) == SEAT_COLOURS[5]
    assert len(set(xs.EXPRESS_SEAT_COLOURS)) == 6 and xs.EXPRESS_SEAT_COLOURS == SEAT_COLOURS


# ---------------------------------------------------------------------------------------------
# Pickers


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_further_draws_the_van_where_the_rule_moves_it(size):
    # Ann (seat 0) on tile 1 moves 5; vans on 2, 4 and 9 are not counted (3. move delivery vans):
    # 2 skipped, 3 (1), 4 skipped, 5 (2), 6 (3), 7 (4), 8 (5): house 8. With "1 tile further": 9 is
    # skipped, house 10.
    state = moving()
    prompt = ep.further_prompt(state, 0)
    assert len(prompt.options) == 2  # Ann holds one "1 tile further" (PREPARATION)
    expected = {0: (8, [(2, False), (3, True), (4, False), (5, True), (6, True), (7, True), (8, True)]),
                1: (10, [(2, False), (3, True), (4, False), (5, True), (6, True), (7, True), (8, True), (9, False),
                         (10, True)])}
    for k, (end, path) in expected.items():
        view = xv.picker_view(state, 0, k, prompt=prompt)
        assert view.ends[k] == end == van_path(state.vans, 0, 5 + k)[0] and view.paths[k] == path
        surface, boxes = render_play_boxes(view, size)
        g = xs.further_ring(view, size)
        colour = xs.seat_colour(0)
        at = {t: tuple(surface.get_at(g.van_spot(t)))[:3] for t in range(12)}
        assert at[end] == colour, (k, end)
        # nowhere else in Ann's colour: where she stands her van is dimmed, the tiles between are empty
        assert [t for t in range(12) if at[t] == colour] == [end]
        assert at[2] == xs.seat_colour(1) and at[4] == xs.seat_colour(2) and at[9] == xs.seat_colour(3)
        assert f"to house {end}" in [b.text for b in boxes if b.role == "ring_centre"]


def test_the_guess_prompt_greys_exactly_the_taken_numbers():
    state = first_guesses([7, ("same", 7), 3])  # Dee (seat 3) guesses now
    prompt = ep.guess_prompt(state, 3)
    view = xv.picker_view(state, 3, 0, prompt=prompt)
    assert view.taken == (3, 7)
    _, boxes = render_play_boxes(view, (480, 320), BAR)
    assert sorted(int(b.text) for b in boxes if b.role == "guess_taken") == [3, 7]
    assert sorted(int(b.text) for b in boxes if b.role == "guess_free") == [2, 4, 5, 6, 8, 9, 10, 11, 12]
    # the first option is the free 2, highlighted; "same guess…" is a menu item, not a space
    assert view.numbers[0] == (2,) and view.is_item(prompt.options.index(ep.SAME_GUESS_ITEM))
    assert [b.text for b in boxes if b.role == "selected"] == ["2"]
    same = xv.picker_view(state, 3, 1, prompt=ep.same_guess_prompt(state, 3))
    assert same.numbers == [(3,), (7,), ()] and same.taken == (3, 7)
    _, boxes = render_play_boxes(same, (800, 480))
    assert [b.text for b in boxes if b.role == "selected"] == ["7 (on Ann, Bo)"]
    # a menu item selected: the list item is the choice
    item = prompt.options.index(ep.SAME_GUESS_ITEM)
    _, boxes = render_play_boxes(xv.picker_view(state, 3, item, prompt=prompt), (480, 320))
    assert [b.text for b in boxes if b.role == "choice"] == ["same guess…"]


def test_exchange_and_customer_prompts_point_at_what_they_pick():
    state = first_guesses([7, 8])  # Cy may hold "place exchange" among no hidden cards: none yet
    prompt = ep.exchange_prompt(state, 2)
    view = xv.picker_view(state, 2, 0, prompt=prompt)
    assert view.numbers == [(7, 8), ()]
    _, boxes = render_play_boxes(view, (480, 320))
    assert [b.text for b in boxes if b.role == "selected"] == ["7 <-> 8"]
    moving_state = moving((11, 2, 4, 9))  # Ann on 11 moves 5: she passes Sushi Express
    customers = ep.customer_prompt(moving_state, Move(0, 0))
    view = xv.picker_view(moving_state, 0, 1, prompt=customers)
    assert view.cards[:-1] == sorted(set(moving_state.display), key=list(C).index) and view.cards[-1] is None
    _, boxes = render_play_boxes(view, (800, 480))
    assert [b.text for b in boxes if b.role == "selected"] == [view.cards[1].label]


def test_plain_questions_and_card_candidates():
    state = moving()
    assert xv.card_candidates(state) == []
    view = xv.picker_view(state, 1, 1, ["yes", "no"], question="did Bo re-roll?")
    assert view.kind is None and view.options == ["yes", "no"] and view.question == "did Bo re-roll?"
    _, boxes = render_play_boxes(view, (480, 320))
    assert [b.text for b in boxes if b.role == "choice"] == ["no"]
    with pytest.raises(ValueError, match="no seat 4"):
        xv.picker_view(state, 4)


# ---------------------------------------------------------------------------------------------
# Words, refusal, undo


def test_actions_in_words():
    players = ["Ann", "Bo", "Cy"]
    words = xv.describe_actions(players, [
        Guess(0, 7), Guess(1, 7, same_guess=True), Exchange(2, 6, 5), EndTurn(2), Roll(0, (3, 4)),
        ReRoll(0, 1, 5), AcceptRoll(0), Deliver(1, True), Deliver(1, False), Move(2, 0),
    ])  # fmt: skip
    assert words == [
        "guesses 7", "guesses 7 with same guess", "swaps the markers on 5 and 6 (place exchange)", "ends the turn",
        "rolls 3+4 = 7", "re-rolls a die: 5", "takes an action card (failed)", "keeps the display",
        "discards the display", "moves the van",
    ]
    # with the state the move led to: Ann guessed 7, played one "1 tile further", stands on house 8
    after = replace(new_game(players, random.Random(1)), vans=(8, 0, 0), guesses=(7, 5, 3))
    move = Move(0, 1, C.ROSE)
    assert xv.describe_actions(players, [move], after) == ["moves 8 tiles to house 8 (1 tile further ×1), takes rose"]
    assert xv.describe_actions(players, [Move(0, 0)], replace(after, vans=(6, 0, 0))) == ["moves 7 tiles to the park"]
    assert xv.describe_actions(players, [move]) == ["moves the van (1 tile further ×1), takes rose"]
    with pytest.raises(ValueError, match="no seat 5"):
        xv.describe_actions(players, [Guess(5, 7)])
    with pytest.raises(ValueError, match="not a Sushi Express action"):
        xv.describe_actions(players, ["guesses 7"])


def test_refusal_names_the_rule_its_section_and_what_to_do():
    state = first_guesses([7])
    with pytest.raises(IllegalAction) as caught:
        T.advance(state, Guess(1, 7))  # taken, without "same guess" (1. place guesses)
    error = caught.value
    view = xv.refusal_view(error, state)
    assert isinstance(view, RefusalView) and view.rule == "number-taken" and view.seat == 1
    assert view.player == "Bo" and view.section == "sushi-express.txt, 1. place guesses"
    assert view.fix == xv.FIXES["number-taken"] and "same guess" in view.fix
    _, boxes = render_play_boxes(view, (480, 320), BAR)
    assert any(b.role == "header_right" and b.text == "number-taken" for b in boxes)
    assert xv.refusal_view(error, state, "ask Bo again").fix == "ask Bo again"
    odd = IllegalAction("odd", rule="no-such-rule", section="s")
    assert xv.refusal_view(odd).fix == xv.DEFAULT_FIX and xv.refusal_view(odd).player == "The table"
    with pytest.raises(TypeError, match="RuleError"):
        xv.refusal_view(ValueError("x"), state)


def test_undo_says_the_step_in_words():
    players = ["Ann", "Bo", "Cy"]
    view = xv.undo_view(players, {1: (Guess(1, 7), EndTurn(1))}, 2, 3)
    assert isinstance(view, RollUndoView) and view.question == "Take back Bo's turn (round 2, turn 3)?"
    assert view.seats[0].lines == ["guesses 7", "ends the turn"] and view.seats[0].rolled is None
    laid = xv.undo_view(players, {0: ()}, 1, 1)
    assert laid.question == "Take back the display laid out (round 1, turn 1)?"
    assert laid.seats[0].lines == ["the display laid out"]
    assert "2 steps" in xv.undo_view(players, {1: (EndTurn(1),)}, 2, 3, 2).question
    with pytest.raises(ValueError, match="at least 1"):
        xv.undo_view(players, {1: ()}, 1, 1, 0)
    with pytest.raises(ValueError, match="no seat 7"):
        xv.undo_view(players, {7: ()}, 1, 1)


# ---------------------------------------------------------------------------------------------
# Round summary and the final screen


def ended(collected, hands, names_=("Ann", "Bo", "Cy")):
    """A 3-player game scored with these collections and hands (end_game: SCORING)."""
    base = new_game_with_decks(list(names_), starting_supply(3), FULL_CUSTOMER_DECK)
    return end_game(replace(base, collected=tuple(tuple(c) for c in collected), hands=tuple(tuple(h) for h in hands)))


def test_final_view_names_the_winner_and_the_tie_break_that_decided():
    # Ann: light blue + rose = 3 + 3 = 6; Bo: dark blue ×4 = 3 + 1 + 1 + 1 = 6; Cy: violet = 3. No tips
    # anywhere: nobody loses points. Ann holds 3 action cards, Bo 1: Ann wins the tie (SCORING).
    state = ended([(C.LIGHT_BLUE, C.ROSE), (C.DARK_BLUE,) * 4, (C.VIOLET,)],
                  [(A.TILE_FURTHER, A.SAME_GUESS, A.RE_ROLL), (A.SAME_GUESS,), (A.RE_ROLL, A.SAME_GUESS)])
    view = xv.final_view(state)
    assert view.winners == ["Ann"] and [(r.name, r.rank) for r in view.rows] == [("Ann", 1), ("Bo", 2), ("Cy", 3)]
    assert view.tie_break == "Ann and Bo tied on 6; Ann wins with more action cards left (3 vs 1)"
    bo = view.rows[1]
    assert (bo.total, bo.customer_points, bo.tip_points, bo.actions_left) == (6, 6, 0, 1)
    assert bo.colours == [(C.DARK_BLUE, 4, 6)]
    surface, boxes = render_play_boxes(view, (480, 320), BAR)
    assert [b.text for b in boxes if b.role == "winners"] == ["Ann wins!"]
    assert any("SCORING" in b.text for b in boxes if b.role == "status")
    # a tip card: Bo has 1, Ann and Cy the fewest (0) lose 1 each: Bo wins alone, no tie-break
    tipped = ended([(C.LIGHT_BLUE, C.ROSE), (C.DARK_BLUE,) * 4 + (C.TIP,), (C.VIOLET,)],
                   [(A.TILE_FURTHER,), (A.SAME_GUESS,), ()])
    view = xv.final_view(tipped)
    assert view.winners == ["Bo"] and view.tie_break == ""
    assert [(r.name, r.tip_points, r.total) for r in view.rows] == [("Bo", 0, 6), ("Ann", -1, 5), ("Cy", -1, 2)]
    # equal action cards: they share the win
    shared = ended([(C.LIGHT_BLUE, C.ROSE), (C.DARK_BLUE,) * 4, (C.VIOLET,)], [(A.RE_ROLL,), (A.SAME_GUESS,), ()])
    assert xv.final_view(shared).winners == ["Ann", "Bo"] and [r.rank for r in xv.final_view(shared).rows] == [1, 1, 3]
    assert xv.final_view(shared).tie_break == "Ann and Bo tied on 6 with 1 action card left each: they share the win"
    _, boxes = render_play_boxes(xv.final_view(shared), (800, 480))
    assert [b.text for b in boxes if b.role == "winners"] == ["Ann and Bo share the win!"]
    with pytest.raises(ValueError, match="not over"):
        xv.final_view(moving())


def test_round_summary_shows_the_state_for_any_round_number():
    states = engine_game(4, 11)
    after = next(s for s in states if s.round == 3)
    views = [xv.round_summary_view(after, r) for r in (None, 2, GAME_END)]
    assert all(v.title == "Round 2 done: collections so far" and v.round == 2 for v in views)
    assert views[0].vans == after.vans and views[0].display == list(after.display)
    assert [s.customers for s in views[0].seats] == [s.customers for s in xv.scoreboard_view(after).seats]
    assert xv.round_summary_view(states[-1]).title == "Game over: the collections"


# ---------------------------------------------------------------------------------------------
# Every screen renders, readable


def screens():
    """Every screen kind, from whole games of 3 to 6 players (engine and table) and every prompt kind."""
    out = []
    for n in (3, 4, 5, 6):
        states = engine_game(n, 100 + n)
        for k, s in enumerate(sampled(states)):
            out.append((f"board{n}-{s.phase.name}-r{s.round}", xv.scoreboard_view(s, "Ann: guesses 7")))
            if s.current is not None and k % 2:
                out.append((f"waiting{n}-{s.phase.name}", xv.waiting_view(s, [s.current])))
        out.append((f"summary{n}", xv.round_summary_view(states[len(states) // 2])))
        out.append((f"summary{n}-end", xv.round_summary_view(states[-1], GAME_END)))
        out.append((f"final{n}", xv.final_view(states[-1])))
        table = table_game(n, 200 + n)
        for s in sampled(table)[::2]:
            out.append((f"table{n}-{s.phase.name}", xv.scoreboard_view(s)))
        out += [(f"{kind}{n}", view) for kind, view in prompts(table)]
    error = IllegalAction("Bo guessed 7, which Ann has already taken", rule="number-taken",
                          section="sushi-express.txt, 1. place guesses", player="Bo")
    out.append(("refusal", xv.refusal_view(error, moving())))
    out.append(("undo", xv.undo_view(NAMES, {0: (Guess(0, 7), Exchange(0, 6, 7), EndTurn(0)), 5: (Move(5, 2, C.ROSE),)},
                                     2, 3)))
    out.append(("plain", xv.picker_view(moving(), 1, 0, ["yes", "no"], question="did Bo re-roll?")))
    return out


def prompts(states):
    """One question of every prompt kind asked during ``states`` (a table game)."""
    out = []
    n = states[0].seats
    out.append(("display", xv.picker_view(states[0], 0, 3, prompt=ep.display_prompt(states[0], 0, 2, n, "refill"))))
    guess = next(s for s in states if s.phase is Phase.GUESS and s.marker_number(s.current) is None and any(s.board))
    for make in (ep.guess_prompt, ep.same_guess_prompt):
        out.append((make.__name__, xv.picker_view(guess, guess.current, 1, prompt=make(guess, guess.current))))
    pair = next((s for s in states if s.phase is Phase.GUESS and ep.exchange_pairs(s)), None)
    if pair is not None:
        out.append(("exchange", xv.picker_view(pair, pair.current, 0, prompt=ep.exchange_prompt(pair, pair.current))))
    placed = next(s for s in states if s.phase is Phase.GUESS and s.marker_number(s.current) is not None)
    out.append(("end_turn", xv.picker_view(placed, placed.current, 1, prompt=ep.end_turn_prompt(placed,
                                                                                             placed.current))))
    rolled = next((s for s in states if s.phase is Phase.ROLL and s.dice is not None), None)
    if rolled is not None:
        out.append(("accept", xv.picker_view(rolled, rolled.current, 0, prompt=ep.accept_prompt(rolled,
                                                                                             rolled.current))))
    for s in [s for s in states if s.phase is Phase.MOVE][::15]:
        prompt = ep.further_prompt(s, s.current)
        out.append(("further", xv.picker_view(s, s.current, len(prompt.options) - 1, prompt=prompt)))
    move = next(s for s in states if s.phase is Phase.MOVE and s.display)
    out.append(("customer", xv.picker_view(move, move.current, 0, prompt=ep.customer_prompt(move,
                                                                                         Move(move.current, 0)))))
    deliver = next((s for s in states if s.phase is Phase.DELIVER), None)
    if deliver is not None:
        out.append(("deliver", xv.picker_view(deliver, deliver.current, 1,
                                              prompt=ep.deliver_prompt(deliver, deliver.current))))
    last = states[-2]
    hidden = max(range(n), key=last.hidden)
    out.append(("tips", xv.picker_view(last, hidden, 0, prompt=ep.tips_prompt(last, hidden, 1, n))))
    return out


def inside(rect, size):
    x, y, w, h = rect
    return x >= 0 and y >= 0 and x + w <= size[0] and y + h <= size[1]


def overlaps(a, b):
    return not (a[0] + a[2] <= b[0] or b[0] + b[2] <= a[0] or a[1] + a[3] <= b[1] or b[1] + b[3] <= a[1])


def missing_glyphs(text):
    f = font(20)
    blank = f.metrics("\uffff")[0]
    return [ch for ch, m in zip(text, f.metrics(text)) if ch != " " and m == blank]


@pytest.fixture(scope="module")
def all_screens():
    return screens()


def test_every_prompt_kind_is_among_the_screens(all_screens):
    kinds = {getattr(v, "kind", None) for _, v in all_screens}
    assert {ep.DISPLAY, ep.GUESS, ep.SAME_GUESS, ep.EXCHANGE, ep.END_TURN, ep.ACCEPT, ep.FURTHER, ep.CUSTOMER,
            ep.DELIVER, ep.TIPS, None} <= kinds
    phases = {v.phase for _, v in all_screens if isinstance(v, xv.ExpressBoardView)}
    assert phases == {Phase.GUESS, Phase.ROLL, Phase.MOVE, Phase.DELIVER, Phase.OVER}


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_every_screen_renders_inside_readable_and_apart(all_screens, tmp_path, size):
    out = Path(os.environ.get("COMPANION_SCREENS_DIR") or tmp_path)
    keep = "COMPANION_SCREENS_DIR" in os.environ
    for kind, view in all_screens:
        for status in (BAR, None):
            surface, boxes = render_play_boxes(view, size, status)
            assert surface.get_size() == size
            assert pygame.surfarray.array3d(surface).std() > 20, kind  # not blank
            if keep and status is BAR:  # COMPANION_SCREENS_DIR=DIR keeps them for a person to look at
                save_png(surface, out / f"express-{kind}_{size[0]}x{size[1]}.png")
            for b in boxes:
                assert inside(b.rect, size), (kind, b)
                assert b.rect[3] >= 0.04 * size[1], ("too small to read across a table", kind, b)
                shapes = b.role == "hint_key" and set(b.text) <= {"◀", "▶"}
                assert shapes or not missing_glyphs(b.text), (kind, b)
            for i, a in enumerate(boxes):
                for b in boxes[i + 1:]:
                    assert not overlaps(a.rect, b.rect), (kind, a, b)
    assert PlayScreen(xv.final_view(engine_game(3, 1)[-1]), BAR).render(size).get_size() == size


def test_long_names_stay_in_their_row():
    state = engine_game(6, 7)[40]
    _, boxes = render_play_boxes(xv.scoreboard_view(state), (480, 320), BAR)
    long = next(b for b in boxes if b.role == "seat_name" and b.index == 5)
    assert long.text.endswith("…")
    marker = [b for b in boxes if b.role == "seat_marker" and b.index == 5]
    assert all(long.rect[0] + long.rect[2] <= m.rect[0] for m in marker)


def test_import_is_cheap():
    code = "import sys, companion.app.express_views; print('pygame' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
