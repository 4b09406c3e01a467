"""The Sushi Roll screens (issue #10): view-models built from real engine states say what the state
holds (whose turn, the red belt, tokens, dice, payouts, the rule refused, the tie-break), and every
screen renders at 480×320 and 800×480 with its text inside, readable and not overlapping."""

from __future__ import annotations

import os
import random
import subprocess
import sys
import tomllib
from dataclasses import replace
from pathlib import Path

import pytest

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")

from companion.app import roll_views as rv  # noqa: E402
from companion.app.play_screens import render_play_boxes  # noqa: E402
from companion.app.play_views import PlayScreen, RefusalView, StatusBar  # noqa: E402
from companion.app.screens import GOLD, font, save_png  # noqa: E402
from companion.rules.core import GAME_END, RoundScore  # noqa: E402
from companion.rules.errors import IllegalAction  # noqa: E402
from companion.rules.sushi_roll.engine import apply, new_game, random_action, random_game  # noqa: E402
from companion.rules.sushi_roll.scoring import final_result  # noqa: E402
from companion.rules.sushi_roll.state import Chopsticks, Menu, Phase, Roll, Take, tray_dice  # noqa: E402

pygame = pytest.importorskip("pygame")

SIZES = [(480, 320), (800, 480)]
LONG = "Christopher-Alexander the Magnificent"
NAMES = ["Ann", "Bo", "Cy", "Dee", LONG]
BAR = StatusBar.of(camera="ok", peripheral="ok", panel=("unplugged", "error"), journal="ok")
DICE_FILE = Path(__file__).resolve().parents[1] / "companion" / "data" / "sushi_roll_dice.toml"


def names(n):
    return NAMES[: n - 1] + [LONG]


def playing(n, seed=3, min_steps=20):
    """A game of ``n`` played by random legal actions for at least ``min_steps`` actions, stopped
    on a player's turn in round 1 or 2 (so belts, trays and tokens all hold something)."""
    rng = random.Random(seed)
    state = new_game(names(n), rng)
    steps = 0
    while steps < min_steps or state.phase is not Phase.TURN:
        state = apply(state, random_action(state, rng), rng)
        steps += 1
    return state


def until_round(n, rounds, seed=3):
    rng = random.Random(seed)
    state = new_game(names(n), rng)
    while len(state.round_scores) < rounds:
        state = apply(state, random_action(state, rng), rng)
    return state


def with_stack():
    """Ann took a wasabi, then a salmon nigiri onto it; the belts have slid and wait for the roll."""
    state = new_game(["Ann", "Bo"], red_seat=0)
    state = apply(state, Roll(faces=(
        ("wasabi", "egg_nigiri", "maki", "maki*2", "dumpling", "tempura", "pudding", "menu"),
        ("salmon_nigiri", "maki*3", "dumpling", "dumpling", "sashimi", "chopsticks", "pudding*2", "maki"),
    )))  # fmt: skip
    state = apply(state, Take(0, "wasabi"))
    state = apply(state, Take(1, "maki*3"))
    state = apply(state, Roll(faces=tuple(tuple(str(f) for f in b) for b in state.belts)))
    state = apply(state, Take(1, "maki"))
    return apply(state, Take(0, "salmon_nigiri"))


def dice_in(labels):
    return sum(2 if "+" in label else 1 for label in labels)


# ---------------------------------------------------------------------------------------------
# The scoreboard


@pytest.mark.parametrize("n", [2, 3, 5])
def test_scoreboard_says_whose_turn_the_red_belt_dice_and_tokens(n):
    state = playing(n, seed=n)
    view = rv.scoreboard_view(state, "Ann: took maki×2")
    p = state.current_player
    assert view.active == p and [s.active for s in view.seats].count(True) == 1
    assert view.red == state.red_seat and [s.red for s in view.seats].count(True) == 1
    assert state.players[p] in view.title and "Round" in view.title and not view.rolling
    for s, seat in enumerate(view.seats):
        tokens = state.tokens[s]
        assert (seat.menu, seat.chopsticks, seat.puddings) == (tokens.menu, tokens.chopsticks, tokens.puddings)
        assert seat.belt == [str(f) for f in state.belts[s]]
        assert dice_in(seat.tray) == len(tray_dice(state.trays[s]))
        assert seat.total == sum(rs.points[s] for rs in state.round_scores)
        assert seat.taken == state.has_taken(s)
    assert view.status == "Ann: took maki×2"


def test_scoreboard_while_the_dice_wait_to_be_rolled_and_a_nigiri_on_wasabi():
    state = with_stack()
    assert state.phase is Phase.ROLL
    view = rv.scoreboard_view(state)
    assert "roll the dice" in view.title and view.active is None and view.rolling
    assert view.seats[0].tray == ["wasabi+salmon_nigiri"]  # one stack, two dice
    assert view.red == state.red_seat == 0  # the red belt slid back to Ann (2 players, 2 slides)
    assert rv.face_words("wasabi+salmon_nigiri") == "salmon nigiri on wasabi"


def test_scoreboard_after_the_game_shows_the_last_trays_and_final_totals():
    state = random_game(4, names(3))
    view = rv.scoreboard_view(state)
    assert view.title == "Game over" and view.active is None
    for s, seat in enumerate(view.seats):
        assert seat.total == state.result.totals[s]
        assert dice_in(seat.tray) == len(tray_dice(state.round_trays[-1][s]))


def _row_band(boxes, index):
    """(top, bottom) y of the row of seat ``index``: halfway to its neighbours' names."""
    centres = [b.rect[1] + b.rect[3] // 2 for b in sorted((b for b in boxes if b.role == "seat_name"),
                                                          key=lambda b: b.index)]
    top = (centres[index - 1] + centres[index]) // 2 if index else 0
    bottom = (centres[index] + centres[index + 1]) // 2 if index + 1 < len(centres) else 10**6
    return top, bottom


@pytest.mark.parametrize("size", SIZES)
def test_scoreboard_marks_the_red_belt_and_the_active_row_in_the_picture(size):
    import numpy as np

    from companion.app.roll_screens import RED_EDGE

    state = playing(5, seed=7)
    surface, boxes = render_play_boxes(rv.scoreboard_view(state), size, BAR)
    px = pygame.surfarray.array3d(surface).astype(int)  # (W, H, 3)
    red = (np.abs(px - np.array(RED_EDGE)).max(axis=2) <= 6)
    red_rows = sorted({int(y) for y in np.nonzero(red.any(axis=0))[0]})
    top, bottom = _row_band(boxes, state.red_seat)
    assert red_rows and all(top <= y < bottom for y in red_rows)  # the red border is on that seat's belt only
    for s in range(5):  # the gold frame at the right edge marks the active seat's row only
        band = _row_band(boxes, s)
        cy = next(b.rect[1] + b.rect[3] // 2 for b in boxes if b.role == "seat_name" and b.index == s)
        assert (tuple(surface.get_at((size[0] - 1, cy)))[:3] == GOLD) == (s == state.current_player), (s, band)
    # the counts drawn are the state's tokens
    for s in range(5):
        drawn = {b.role: b.text for b in boxes if b.index == s and b.role.startswith("tokens_")}
        t = state.tokens[s]
        assert drawn == {"tokens_menu": str(t.menu), "tokens_chopsticks": str(t.chopsticks),
                         "tokens_pudding": str(t.puddings)}


def test_waiting_marks_the_seats_and_names_them():
    state = playing(3, seed=2)
    p = state.current_player
    view = rv.waiting_view(state, [p])
    assert [s.waiting for s in view.seats] == [s == p for s in range(3)]
    assert state.players[p] in view.status and "take a die" in view.status
    assert "roll the dice passed" in rv.waiting_view(with_stack(), [1]).status  # after a slide
    view = rv.waiting_view(until_round(3, 1), [0, 1, 2])
    assert view.status.startswith("Waiting for everyone: 7 dice from the bag on each belt")
    assert all(s.waiting for s in view.seats) and view.rolling and view.active is None
    assert rv.waiting_view(state, [0], "Bo's belt has 6: each belt gets 7 dice").status.startswith("Bo's belt")
    with pytest.raises(ValueError, match="no seat 3"):
        rv.waiting_view(state, [3])


# ---------------------------------------------------------------------------------------------
# Refusal, picker, undo


def test_refusal_names_the_rule_its_section_and_what_to_put_back():
    state = new_game(names(3), red_seat=1)
    state = apply(state, Roll(), random.Random(4))
    other = 2  # seat 1 holds the red belt and plays first; seat 2 has not played yet
    with pytest.raises(IllegalAction) as caught:
        apply(state, Take(other, state.belts[other][0]))
    error = caught.value
    view = rv.refusal_view(error, state)
    assert isinstance(view, RefusalView)
    assert view.rule == error.rule == "not-your-turn" and view.seat == other
    assert view.player == state.players[other] and view.section.startswith("sushi-roll.txt")
    assert view.fix == rv.FIXES["not-your-turn"]
    _, boxes = render_play_boxes(view, (480, 320), BAR)
    assert any(b.role == "header_right" and b.text == "not-your-turn" for b in boxes)
    # a rule of the move reader, and one nobody listed: a fix is always said
    table = IllegalAction("2 dice arrived on Ann's tray", rule="one-die", section="sushi-roll.txt, x", player="Ann")
    assert "1 die per turn" in rv.refusal_view(table, state).fix
    odd = IllegalAction("odd", rule="no-such-rule", section="s")
    assert rv.refusal_view(odd).fix == rv.DEFAULT_FIX and rv.refusal_view(odd).player == "The table"
    with pytest.raises(TypeError, match="RuleError"):
        rv.refusal_view(ValueError("x"), state)


def test_candidates_are_every_face_of_the_dice_file_once():
    faces = tomllib.loads(DICE_FILE.read_text(encoding="utf-8"))
    in_file = {f for kind in faces.values() for f in kind["faces"]}
    offered = rv.card_candidates(new_game(["Ann", "Bo"], red_seat=0))
    assert set(offered) == in_file and len(offered) == len(in_file)
    assert offered.index("maki") < offered.index("maki*2") < offered.index("maki*3")


def test_picker_offers_dice_or_answers():
    state = playing(3, seed=5)
    view = rv.picker_view(state, 2, 4)
    assert not view.answers and view.player == state.players[2] and view.candidates == rv.card_candidates(state)
    answers = ["no, they only moved", "yes, re-rolled (a menu token)"]
    question = rv.picker_view(state, 0, 1, answers, None, "did Ann re-roll the dice that moved on the belt?")
    assert question.answers and question.question.startswith("did Ann") and question.candidates == answers
    _, boxes = render_play_boxes(question, (480, 320), BAR)
    assert [b.text for b in boxes if b.role == "choice"] == [answers[1]]  # the selected answer
    crop = __import__("numpy").zeros((40, 40, 3), "uint8")
    _, boxes = render_play_boxes(rv.picker_view(state, 1, 3, crop=crop), (800, 480))
    assert next(b.text for b in boxes if b.role == "choice") == rv.face_title(view.candidates[3])
    with pytest.raises(ValueError, match="no seat 3"):
        rv.picker_view(state, 3)


def test_actions_in_words():
    players = ["Ann", "Bo"]
    words = rv.describe_actions(players, [
        Menu(0, ("maki", "tempura"), ("maki*3", "sashimi")), Chopsticks(0, "tempura", 1, "egg_nigiri"),
        Take(0, "maki*2"), Roll(faces=(("maki*2", "wasabi"),)), Menu(1, ("pudding",)),
    ])  # fmt: skip
    assert words == [
        "re-rolled maki, tempura → maki×3, sashimi (menu)",
        "swapped tempura for Bo's egg nigiri (chopsticks)",
        "took maki×2",
        "rolled maki×2, wasabi",
        "re-rolled pudding (menu)",
    ]
    both = rv.describe_actions(players, [Roll(faces=(("maki",), ("tempura",)))])
    assert both == ["rolled the belts: Ann maki; Bo tempura"]
    with pytest.raises(ValueError, match="no seat 5"):
        rv.describe_actions(players, [Chopsticks(0, "maki", 5, "tempura")])
    with pytest.raises(ValueError, match="not a Sushi Roll action"):
        rv.describe_actions(players, ["took maki"])


def test_undo_names_every_action_of_a_real_turn_and_every_rolled_die():
    rng = random.Random(11)
    state = new_game(names(3), rng)
    state = apply(state, Roll(), rng)
    rolled = {s: (Roll(faces=(state.belts[s],)),) for s in range(3)}
    view = rv.undo_view(state.players, rolled, 1, 1)
    assert "roll of the belts" in view.question
    assert [s.rolled for s in view.seats] == [[str(f) for f in state.belts[s]] for s in range(3)]
    # a turn with a menu, a chopsticks swap and the take, as the engine accepts them
    p = state.current_player
    other = (p + 1) % 3
    reroll = state.belts[p][:2]
    menu = Menu(p, reroll, tuple(state.dice.roll(f.kind, rng) for f in reroll))
    state = apply(state, menu, rng)
    swap = Chopsticks(p, state.belts[p][0], other, state.belts[other][-1])
    state = apply(state, swap, rng)
    take = Take(p, state.belts[p][-1])
    state = apply(state, take, rng)
    view = rv.undo_view(state.players, {p: (menu, swap, take)}, 1, 1)
    assert view.seats[0].name == state.players[p] and view.seats[0].rolled is None
    lines = view.seats[0].lines
    assert len(lines) == 3 and "(menu)" in lines[0] and "(chopsticks)" in lines[1]
    assert state.players[other] in lines[1] and lines[2] == f"took {rv.face_words(take.face)}"
    many = rv.undo_view(state.players, {p: (take,)}, 1, 3, 2)
    assert "2 turns" in many.question and "turn 3" in many.detail
    with pytest.raises(ValueError, match="at least 1"):
        rv.undo_view(state.players, {p: (take,)}, 1, 1, 0)
    with pytest.raises(ValueError, match="no seat 7"):
        rv.undo_view(state.players, {7: (take,)}, 1, 1)


# ---------------------------------------------------------------------------------------------
# Round summary, game end, final


@pytest.mark.parametrize("n", [2, 3, 5])
def test_round_summary_pays_the_engines_tokens(n):
    state = random_game(n + 20, names(n))
    for r in (1, 2, 3, GAME_END):
        view = rv.round_summary_view(state, r)
        paid = {p.seat: p for p in state.payouts if p.round == r}
        assert len(paid) == n
        for s, seat in enumerate(view.seats):
            assert (seat.taken, seat.returned, seat.short) == (paid[s].taken, paid[s].returned, paid[s].short)
            assert seat.points == paid[s].points
            assert all(ln.seat == s for ln in seat.lines)
        if r == GAME_END:
            assert [s.total for s in view.seats] == list(state.result.totals)
            assert {ln.category for s in view.seats for ln in s.lines} == {"pudding", "leftover_tokens"}
        else:
            assert [s.points for s in view.seats] == list(state.round_scores[r - 1].points)
    assert rv.round_summary_view(state).round == 3


def test_the_payout_drawn_is_the_payout():
    state = random_game(8, names(5))
    view = rv.round_summary_view(state, 1)
    _, boxes = render_play_boxes(view, (800, 480), BAR)
    for s, seat in enumerate(view.seats):
        chips = [int(b.text) for b in boxes if b.role == "payout_chip" and b.index == s]
        counts = [b.text for b in boxes if b.role == "payout_count" and b.index == s]
        want = [(v, n) for tokens in (seat.taken, seat.returned)
                for v, n in ((20, tokens.points_20), (10, tokens.points_10), (5, tokens.points_5), (1, tokens.points_1))
                if n]  # fmt: skip
        assert chips == [v for v, _ in want]
        assert counts == [f"×{n}" for _, n in want if n > 1]


def test_round_summary_refuses_rounds_not_finished():
    state = playing(3)
    with pytest.raises(ValueError, match="no round summary: no round is finished yet"):
        rv.round_summary_view(state)
    with pytest.raises(ValueError, match="not over"):
        rv.round_summary_view(until_round(3, 1), GAME_END)
    with pytest.raises(ValueError, match="rounds 1 to 1 are finished"):
        rv.round_summary_view(until_round(3, 1), 2)


def _tied(state, totals_round, puddings):
    """``state`` with a result whose round points and pudding tokens are given (no leftovers)."""
    n = state.seats
    score = RoundScore(1, tuple(totals_round), ())
    result = final_result(state.players, [score], puddings, [0] * n, [0] * n, state.options)
    return replace(state, result=result)


def test_final_ranks_by_points_then_pudding_tokens_and_says_the_tie_break():
    state = random_game(9, names(5))
    view = rv.final_view(state)
    r = state.result
    keys = [(row.total, row.puddings) for row in view.rows]
    assert keys == sorted(keys, reverse=True) and view.winners == list(r.winners)
    for row in view.rows:
        s = row.seat
        assert (row.total, row.puddings, row.pudding_points, row.leftover_points) == (
            r.totals[s], r.puddings[s], r.pudding_points[s], r.leftover_points[s])
        assert row.total == sum(row.round_points) + row.pudding_points + row.leftover_points
    # Ann and Bo tie on points; Bo has more pudding tokens and wins (sushi-roll.txt, ENDING THE GAME)
    base = random_game(1, ["Ann", "Bo", "Cy"])
    tied = _tied(base, (30, 24, 20), (2, 5, 0))  # +6 to Bo, -6 to Cy: Ann 30, Bo 30
    view = rv.final_view(tied)
    assert view.winners == ["Bo"] and [row.name for row in view.rows] == ["Bo", "Ann", "Cy"]
    assert view.tie_break == "Ann and Bo tied on 30; Bo wins with more pudding tokens (5 vs 2)"
    assert view.section == "sushi-roll.txt, ENDING THE GAME"
    _, boxes = render_play_boxes(view, (800, 480))
    assert any("ENDING THE GAME" in b.text for b in boxes if b.role == "status")
    shared = _tied(base, (30, 30, 20), (3, 3, 0))
    assert rv.final_view(shared).tie_break == "Ann and Bo tied on 36 with 3 pudding tokens each: they share the win"
    alone = _tied(base, (40, 30, 20), (3, 3, 0))
    assert rv.final_view(alone).tie_break == ""
    with pytest.raises(ValueError, match="not over"):
        rv.final_view(playing(3))


# ---------------------------------------------------------------------------------------------
# Every screen renders, readable


def screens(n):
    state = playing(n, seed=n + 1)
    over = random_game(n, names(n))
    error = IllegalAction("Bo has no menu token to return", rule="menu-token-needed",
                          section="sushi-roll.txt, EVERYBODY TAKES A TURN, Menu", player="Bo")
    p = state.current_player
    return {
        "scoreboard": rv.scoreboard_view(state, f"{state.players[p]}: took maki×2"),
        "waiting": rv.waiting_view(state, [p]),
        "rolling": rv.waiting_view(until_round(n, 1), range(n)),
        "refusal": rv.refusal_view(error, state),
        "picker": rv.picker_view(state, n - 1, 4, crop=__import__("numpy").full((30, 30, 3), 90, "uint8")),
        "question": rv.picker_view(state, p, 0, ["no, they only moved", "yes, re-rolled (a menu token)"],
                                   question=f"did {state.players[p]} re-roll the dice that moved?"),
        "undo-roll": rv.undo_view(state.players, {s: (Roll(faces=(state.belts[s],)),) for s in range(n)}, 1, 4),
        "undo-turn": rv.undo_view(state.players, {p: (Menu(p, ("maki", "tempura"), ("maki*3", "sashimi")),
                                                      Chopsticks(p, "tempura", (p + 1) % n, "egg_nigiri"),
                                                      Take(p, "maki*3"))}, 1, 4),
        "summary": rv.round_summary_view(over, 2),
        "game-end": rv.round_summary_view(over, GAME_END),
        "final": rv.final_view(over),
        "over": rv.scoreboard_view(over),
    }


def inside(rect, size):
    x, y, w, h = rect
    return x >= 0 and y >= 0 and x + w <= size[0] and y + h <= size[1]


def overlaps(a, b):
    return not (a[0] + a[2] <= b[0] or b[0] + b[2] <= a[0] or a[1] + a[3] <= b[1] or b[1] + b[3] <= a[1])


def missing_glyphs(text):
    f = font(20)
    blank = f.metrics("\uffff")[0]
    return [ch for ch, m in zip(text, f.metrics(text)) if ch != " " and m == blank]


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("n", [2, 5])
def test_every_screen_renders_inside_readable_and_apart(tmp_path, n, size):
    out = Path(os.environ.get("COMPANION_SCREENS_DIR") or tmp_path)
    for kind, view in screens(n).items():
        for status in (BAR, None):
            surface, boxes = render_play_boxes(view, size, status)
            assert surface.get_size() == size
            px = pygame.surfarray.array3d(surface)
            assert px.std() > 20, kind  # not blank
            if status is BAR:  # COMPANION_SCREENS_DIR=DIR keeps them for a person to look at
                save_png(surface, out / f"roll-{kind}{n}_{size[0]}x{size[1]}.png")
            for b in boxes:
                assert inside(b.rect, size), (kind, b)
                assert b.rect[3] >= 0.04 * size[1], ("too small to read across a table", kind, b)
                shapes = b.role == "hint_key" and set(b.text) <= {"◀", "▶"}
                assert shapes or not missing_glyphs(b.text), (kind, b)
            for i, a in enumerate(boxes):
                for b in boxes[i + 1 :]:
                    assert not overlaps(a.rect, b.rect), (kind, a, b)
    # Display.show renders a PlayScreen or the view itself
    assert PlayScreen(rv.final_view(random_game(1, names(n))), BAR).render(size).get_size() == size
    assert rv.scoreboard_view(playing(n)).render(size).get_size() == size


def test_long_names_stay_in_their_column():
    for kind, column in (("scoreboard", 0.22), ("summary", 0.2), ("undo-roll", 0.22)):
        _, boxes = render_play_boxes(screens(5)[kind], (480, 320), BAR)
        long = next(b for b in boxes if b.role == "seat_name" and b.index == 4)
        assert long.text.endswith("…") and long.rect[0] + long.rect[2] <= 480 * column, kind


def test_import_is_cheap():
    code = "import sys, companion.app.roll_views; print('pygame' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
