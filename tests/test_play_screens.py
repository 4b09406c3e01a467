"""The play loop's screens: every screen at 480×320 and 800×480, with and without the status bar,
text inside the screen and never overlapping, what each screen must say, and PNGs to look at."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")

from companion.app import views  # noqa: E402
from companion.app.menu import SetupMenu  # noqa: E402
from companion.app.play_screens import (  # noqa: E402
    LEVEL_COLOURS,
    drawable,
    render_play,
    render_play_boxes,
    status_bar_height,
)
from companion.app.play_views import (  # noqa: E402
    ConfirmView,
    DeviceStatus,
    MenuItem,
    PickerView,
    PlayScreen,
    RefusalView,
    RoundSummaryView,
    SetupView,
    StatusBar,
    WaitingView,
    card_title,
)
from companion.app.screens import DIM, GOLD, STATUS_BG, TEXT, font, save_png  # noqa: E402
from companion.rules.errors import IllegalAction  # noqa: E402
from companion.rules.sushi_go import apply, apply_turn, legal_actions, new_game, new_observed_game  # noqa: E402
from companion.rules.sushi_go.state import SushiGoOptions  # noqa: E402

pygame = pytest.importorskip("pygame")

SIZES = [(480, 320), (800, 480)]
LONG = "Christopher-Alexander the Magnificent"
NAMES5 = ["Ann", "Bo", "Cy", "Dee", LONG]
BAR = StatusBar.of(camera="ok", peripheral=("no answer", "warn"), panel=("unplugged", "error"), journal="ok")


def played(names, rounds=1, seed=1, options=None, turns=0):
    """A full-information game played by random legal plays until ``rounds`` rounds are scored,
    then ``turns`` more whole turns."""
    state = new_game(names, random.Random(seed), options)
    rng = random.Random(seed + 1)
    while len(state.round_scores) < rounds or (turns and state.turn <= turns and not state.is_over):
        state = apply(state, rng.choice(legal_actions(state)))
    return state


def chopsticks_error():
    return IllegalAction(
        "Bo took 2 cards without chopsticks: no chopsticks card was in front of Bo before this turn",
        rule="chopsticks-needed",
        section="sushi-go.txt, USING CHOPSTICKS",
        player="Bo",
    )


def crop_image():
    import numpy as np

    img = np.zeros((90, 64, 3), np.uint8)
    img[:] = (200, 120, 40)  # BGR: a blue-ish card back
    img[20:70, 10:54] = (255, 0, 0)  # pure blue in BGR
    return img


def setup_view(n):
    m = SetupMenu(saved_names=NAMES5)
    m.handle("ok")
    for _ in range(abs(n - 3)):  # the menu starts at 3 players
        m.handle("right" if n > 3 else "left")
    for _ in range(n + 1):  # players, then every seat: ends on the first option
        m.handle("ok")
    if n == 2:  # on to the dummy, turned on, so its own options show
        m.handle("ok")
        m.handle("ok")
        m.handle("right")
    return m.view()


def screen(kind, n):
    """The view of screen ``kind`` for ``n`` seats (the last one long-named)."""
    names = NAMES5[: n - 1] + [LONG]
    if kind == "setup":
        return setup_view(n)
    if kind == "waiting":
        state = played(names)
        return views.waiting_view(state, [1, n - 1], "2 cards still face down")
    if kind == "refusal":
        return views.refusal_view(chopsticks_error(), played(names))
    if kind == "picker":
        return views.picker_view(new_observed_game(names), n - 1, 3, crop=crop_image())
    if kind == "confirm":
        cards = ["tempura", "maki_2", "wasabi", "pudding", "sashimi"]
        plays = {s: [cards[s]] + (["squid_nigiri"] if s == 1 else []) for s in range(n)}
        return views.undo_view(names, plays, 2, 4)
    if kind == "summary":
        return views.round_summary_view(played(names), 1)
    if kind == "scoreboard":
        return views.scoreboard_view(played(names, turns=4), "Waiting for Bo")
    if kind == "final":
        return views.final_view(played(names, rounds=3))
    raise AssertionError(kind)


KINDS = ["setup", "waiting", "refusal", "picker", "confirm", "summary", "scoreboard", "final"]


def inside(rect, size):
    x, y, w, h = rect
    return x >= 0 and y >= 0 and x + w <= size[0] and y + h <= size[1]


def overlaps(a, b):
    return not (a[0] + a[2] <= b[0] or b[0] + b[2] <= a[0] or a[1] + a[3] <= b[1] or b[1] + b[3] <= a[1])


def missing_glyphs(text):
    f = font(20)
    blank = f.metrics("\uffff")[0]
    return [ch for ch, m in zip(text, f.metrics(text)) if ch != " " and m == blank]


def pixels(surface):
    return pygame.surfarray.array3d(surface)


def colour_at(surface, x, y):
    return tuple(surface.get_at((int(x), int(y))))[:3]


def has_colour(surface, rect, colour, tol=10):
    import numpy as np

    x, y, w, h = rect
    px = pixels(surface)[x : x + w, y : y + h].reshape(-1, 3).astype(int)
    return bool((np.abs(px - np.array(colour)).max(axis=1) <= tol).any())


@pytest.mark.parametrize("with_bar", [False, True], ids=["plain", "bar"])
@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("n", [2, 5])
@pytest.mark.parametrize("kind", KINDS)
def test_every_screen_fits_and_reads(tmp_path, kind, n, size, with_bar):
    view = screen(kind, n)
    status = BAR if with_bar else None
    surface, boxes = render_play_boxes(view, size, status)
    assert surface.get_size() == size
    px = pixels(surface)
    assert px.std() > 20 and len({tuple(c) for c in px[::7, ::7].reshape(-1, 3)}) > 12  # not blank
    # COMPANION_SCREENS_DIR=DIR keeps every screen for a person to look at
    out = Path(os.environ.get("COMPANION_SCREENS_DIR") or tmp_path)
    bar = "bar" if with_bar else "plain"
    path = save_png(surface, out / f"{kind}{n}_{size[0]}x{size[1]}_{bar}.png")
    assert pygame.image.load(str(path)).get_size() == size
    for b in boxes:
        assert inside(b.rect, size), b
        assert b.rect[3] >= 0.04 * size[1], ("too small to read across a table", b)
        drawn_as_shapes = b.role == "hint_key" and set(b.text) <= {"◀", "▶"}
        assert drawn_as_shapes or not missing_glyphs(b.text), b
    for i, a in enumerate(boxes):
        for b in boxes[i + 1 :]:
            assert not overlaps(a.rect, b.rect), (a, b)
    if with_bar:  # the screen keeps above the bar; the bar says every device
        top = size[1] - status_bar_height(size)
        assert all(b.rect[1] + b.rect[3] <= top for b in boxes if not b.role.startswith("status_"))
        devices = [b.text for b in boxes if b.role == "status_device"]
        assert devices == ["camera", "peripheral", "panel", "journal"]
        # what is wrong is never cut: the warn and error words show whole
        words = {b.index: b.text for b in boxes if b.role == "status_word"}
        assert words[1] == "no answer" and words[2] == "unplugged"


@pytest.mark.parametrize("size", SIZES)
def test_long_names_are_cut_inside_their_column(size):
    for kind, column in (("confirm", 0.28), ("summary", 0.22), ("scoreboard", 0.26)):
        _, boxes = render_play_boxes(screen(kind, 5), size, BAR)
        long = [b for b in boxes if b.role == "seat_name" and b.index == 4]
        assert long and long[0].text.endswith("…"), kind
        assert long[0].rect[0] + long[0].rect[2] <= size[0] * column, kind
    # the waiting screen has room for more of a name, but never runs into the seat's state
    _, boxes = render_play_boxes(screen("waiting", 5), size, BAR)
    name = next(b for b in boxes if b.role == "seat_name" and b.index == 4)
    state = next(b for b in boxes if b.role == "seat_state" and b.index == 4)
    assert name.rect[0] + name.rect[2] < state.rect[0] - 0.05 * size[0]


def test_setup_marks_the_selected_field_and_scrolls_to_it():
    items = [MenuItem(f"Field {k}", f"v{k}") for k in range(12)]
    for sel in (0, 6, 11):
        surface, boxes = render_play_boxes(SetupView("New game", items, sel, "Pick one"), (480, 320))
        shown = sorted({b.index for b in boxes if b.role == "item_label"})
        assert sel in shown and len(shown) < 12  # not all fit: the list scrolls
        if sel < 11:
            assert sel + 1 in shown  # the next field stays in sight
        value = next(b for b in boxes if b.role == "item_value" and b.index == sel)
        x, y, w, h = value.rect
        # ◀ value ▶: gold arrows either side of the selected value, none beside the others
        assert has_colour(surface, (x - h, y, h, h), GOLD) and has_colour(surface, (x + w, y, h, h), GOLD)
        other = next(b for b in boxes if b.role == "item_value" and b.index != sel)
        ox, oy, ow, oh = other.rect
        assert not has_colour(surface, (ox - oh, oy, oh, oh), GOLD)


def test_setup_hint_shows_the_buttons():
    _, boxes = render_play_boxes(setup_view(3), (480, 320))
    assert [b.text for b in boxes if b.role == "hint_key"] == ["◀▶", "OK", "BACK"]
    assert [b.text for b in boxes if b.role == "hint"] == ["change", "next", "back"]
    assert next(b for b in boxes if b.role == "prompt").text == "Round 2 passes hands to the right"


def test_waiting_names_whom_the_table_waits_for():
    state = played(NAMES5)
    surface, boxes = render_play_boxes(views.waiting_view(state, [3, 1]), (800, 480))
    assert next(b for b in boxes if b.role == "waiting_head").text == "Waiting for Bo and Dee"
    assert next(b for b in boxes if b.role == "title").text == f"Round {state.round} — turn {state.turn}"
    states = [b.text for b in boxes if b.role == "seat_state"]
    assert states == ["revealed", "waiting", "revealed", "waiting", "revealed"]
    # names still to reveal are bright, those done are dimmed
    names = [b for b in boxes if b.role == "seat_name"]
    assert has_colour(surface, names[1].rect, TEXT, 0) and not has_colour(surface, names[0].rect, TEXT, 0)
    assert has_colour(surface, names[0].rect, DIM, 0)
    _, boxes = render_play_boxes(views.waiting_view(state, []), (480, 320))
    assert next(b for b in boxes if b.role == "waiting_head").text == "Everyone has revealed"


def test_waiting_notes_who_picks_for_the_dummy():
    state = played(["Ann", "Bo"], options=SushiGoOptions(dummy=True))
    view = views.waiting_view(state, [2])
    assert view.waiting == ["Dummy"]
    assert view.seats[2].note == f"{state.players[state.controller]} picks"
    _, boxes = render_play_boxes(view, (480, 320))
    assert [b.text for b in boxes if b.role == "seat_note"] == [view.seats[2].note]
    with pytest.raises(ValueError, match="no seat 7"):
        views.waiting_view(state, [7])


def test_refusal_says_who_which_rule_and_what_to_do():
    view = views.refusal_view(chopsticks_error(), played(["Ann", "Bo", "Cy"]))
    assert view.fix == views.FIXES["chopsticks-needed"] and view.seat == 1
    for size in SIZES:
        _, boxes = render_play_boxes(view, size, BAR)
        by = lambda role: [b.text for b in boxes if b.role == role]  # noqa: E731
        assert by("player") == ["Bo"] and by("header_right") == ["chopsticks-needed"]
        assert " ".join(by("message")) == view.message
        assert " ".join(by("fix")) == view.fix
        assert by("section") == ["sushi-go.txt, USING CHOPSTICKS"]
        # the fix sits below the message
        assert max(b.rect[1] for b in boxes if b.role == "message") < min(b.rect[1] for b in boxes if b.role == "fix")
    odd = IllegalAction("something else", rule="new-rule", section="x")
    assert views.refusal_view(odd).fix == views.DEFAULT_FIX and views.refusal_view(odd).player == "The table"
    assert views.refusal_view(odd, fix="do this").fix == "do this"


def test_picker_shows_the_choice_the_camera_crop_and_wraps():
    state = new_observed_game(["Ann", "Bo", "Cy"])
    assert views.card_candidates(state) == [
        "tempura", "sashimi", "dumpling", "maki_1", "maki_2", "maki_3",
        "egg_nigiri", "salmon_nigiri", "squid_nigiri", "pudding", "wasabi", "chopsticks",
    ]  # fmt: skip
    view = views.picker_view(state, 1, 13, crop=crop_image())
    surface, boxes = render_play_boxes(view, (800, 480))
    assert next(b for b in boxes if b.role == "choice").text == "Sashimi"  # 13 wraps to the 2nd
    assert next(b for b in boxes if b.role == "position").text == "2 of 12"
    assert next(b for b in boxes if b.role == "player").text == "Bo's card"
    # the crop is drawn as RGB: BGR (255, 0, 0) shows as pure blue on the left third
    assert has_colour(surface, (0, 0, 800 // 3, 480), (0, 0, 255), 2)
    assert not has_colour(surface, (0, 0, 800 // 3, 480), (255, 0, 0), 60)
    with pytest.raises(ValueError, match=r"\(H, W, 3\) uint8"):
        render_play(PickerView("Bo", ["tempura"], crop=crop_image()[:, :, 0]))


def test_cards_all_accounted_for_are_not_offered():
    state = new_observed_game(NAMES5)
    state = apply_turn(state, {**{s: ["chopsticks"] for s in range(4)}, 4: ["sashimi"]})
    assert "chopsticks" not in views.card_candidates(state) and "sashimi" in views.card_candidates(state)
    assert views.card_candidates(played(["Ann", "Bo"])) == []  # a full-information game knows every card


def test_undo_confirmation_lists_what_goes_back():
    view = views.undo_view(["Ann", "Bo", "Cy"], {1: ["maki_2", "squid_nigiri"], 0: ["tempura"], 2: ["pudding"]}, 2, 4)
    assert view.question == "Take back round 2, turn 4?"
    surface, boxes = render_play_boxes(view, (480, 320), BAR)
    assert [b.text for b in boxes if b.role == "seat_name"] == ["Ann", "Bo", "Cy"]
    assert [b.text for b in boxes if b.role == "hint_key"] == ["OK", "BACK"]
    assert [b.text for b in boxes if b.role == "hint"] == ["undo", "keep"]
    # Bo's row shows a maki tile (red) and no other row does
    rows = {b.index: b.rect for b in boxes if b.role == "seat_name"}
    maki_red = (206, 46, 52)
    assert has_colour(surface, (100, rows[1][1] - 4, 380, rows[1][3] + 8), maki_red, 0)
    assert not has_colour(surface, (100, rows[0][1] - 4, 380, rows[0][3] + 8), maki_red, 0)
    more = views.undo_view(["Ann", "Bo"], {0: ["tempura"], 1: ["dumpling"]}, 1, 3, turns=3)
    assert more.question == "Take back 3 turns?"
    with pytest.raises(ValueError, match="at least 1"):
        views.undo_view(["Ann"], {}, 1, 1, turns=0)
    with pytest.raises(ValueError, match="no seat 5"):
        views.undo_view(["Ann", "Bo"], {5: ["tempura"]}, 1, 1)


def test_round_summary_shows_the_rules_points_and_lines():
    state = played(["Ann", "Bo"], rounds=2)
    score = state.round_scores[1]
    view = views.round_summary_view(state)
    assert view.round == 2
    assert [s.total for s in view.seats] == [state.round_scores[0].points[s] + score.points[s] for s in range(2)]
    _, boxes = render_play_boxes(view, (800, 480))
    assert [b.text for b in boxes if b.role == "points"] == [f"+{p}" if p > 0 else str(p) for p in score.points]
    for seat in range(2):
        lines = [ln for ln in score.lines if ln.seat == seat]
        # two seats at 800×480: one row per breakdown line, its points in their own column
        texts = [b.text for b in boxes if b.role == "breakdown" and b.index == seat]
        pts = [b.text for b in boxes if b.role == "breakdown_points" and b.index == seat]
        assert texts == [drawable(ln.text.rpartition("→")[0].strip()) for ln in lines]
        assert pts == [f"+{ln.points}" if ln.points > 0 else str(ln.points) for ln in lines]
    with pytest.raises(ValueError, match="rounds 1 to 2"):
        views.round_summary_view(state, 3)
    with pytest.raises(ValueError, match="no round is finished"):
        views.round_summary_view(new_observed_game(["Ann", "Bo"]))


def test_a_crowded_summary_still_names_every_scoring_line():
    state = played(NAMES5)
    score = state.round_scores[0]
    _, boxes = render_play_boxes(views.round_summary_view(state, 1), (480, 320), BAR)
    for seat in range(5):
        text = " · ".join(b.text for b in boxes if b.role == "breakdown" and b.index == seat)
        for ln in score.lines:
            if ln.seat == seat and ln.points:
                head = ln.text.rpartition("→")[0].split(":")[0].strip()
                assert f"{head} +{ln.points}" in text, (seat, ln.text, text)
    assert not any("→" in b.text for b in boxes)


def test_status_bar_colours_and_compacting():
    surface, boxes = render_play_boxes(screen("waiting", 3), (800, 480), BAR)
    words = [(b.index, b.text) for b in boxes if b.role == "status_word"]
    assert words == [(0, "ok"), (1, "no answer"), (2, "unplugged"), (3, "ok")]  # room for every word
    top = 480 - status_bar_height((800, 480))
    bar = (0, top, 800, 480 - top)
    assert has_colour(surface, bar, LEVEL_COLOURS["ok"], 0) and has_colour(surface, bar, LEVEL_COLOURS["warn"], 0)
    assert has_colour(surface, bar, STATUS_BG["error"], 0)  # the failing device stands out
    # at 480 px the ok devices drop their word; the problems keep theirs
    _, boxes = render_play_boxes(screen("waiting", 3), (480, 320), BAR)
    assert [(b.index, b.text) for b in boxes if b.role == "status_word"] == [(1, "no answer"), (2, "unplugged")]
    ok_bar = StatusBar.of(camera="ok", panel="ok")
    surface, boxes = render_play_boxes(screen("waiting", 3), (480, 320), ok_bar)
    assert not has_colour(surface, (0, 320 - status_bar_height((480, 320)), 480, 20), STATUS_BG["error"], 0)


def test_scoreboard_and_final_carry_the_bar_above_it():
    view = screen("scoreboard", 5)
    plain = render_play(view, (480, 320))
    with_bar = render_play(view, (480, 320), BAR)
    assert plain.get_size() == with_bar.get_size() == (480, 320)
    _, boxes = render_play_boxes(view, (480, 320), BAR)
    assert [b.text for b in boxes if b.role == "seat_name"][:4] == NAMES5[:4]
    assert (pixels(plain)[:, -10:] != pixels(with_bar)[:, -10:]).any()


def test_status_bar_input_is_checked():
    assert StatusBar.of(camera="warn").items == (DeviceStatus("camera", "warn", "warn"),)
    with pytest.raises(ValueError, match="camera='lost'"):
        StatusBar.of(camera="lost")
    with pytest.raises(ValueError, match="must be one of ok, warn, error"):
        DeviceStatus("panel", "gone", "bad")


def test_dispatch_display_contract_and_errors():
    from companion.devices.display import to_surface

    for view in (screen("setup", 3), screen("waiting", 3), screen("picker", 3), screen("confirm", 3)):
        assert to_surface(view, (800, 480)).get_size() == (800, 480)  # Display.show calls view.render(size)
    assert to_surface(PlayScreen(screen("summary", 3), BAR), (480, 320)).get_size() == (480, 320)
    with pytest.raises(TypeError, match="SetupView"):
        render_play("nope")
    with pytest.raises(ValueError, match="status bar"):
        render_play(screen("waiting", 2), (40, 16), BAR)
    assert isinstance(screen("refusal", 2), RefusalView) and isinstance(screen("summary", 2), RoundSummaryView)
    assert isinstance(screen("waiting", 2), WaitingView) and isinstance(screen("confirm", 2), ConfirmView)


def test_words_the_font_cannot_draw_are_replaced():
    assert drawable("maki: most → 6") == "maki: most » 6" and not missing_glyphs(drawable("a → b ✓"))
    assert missing_glyphs("→")  # the reason for drawable: the default font has no arrow
    assert card_title("maki_2") == "Maki roll ×2" and card_title("wasabi+squid_nigiri") == "Squid nigiri on wasabi"
    assert card_title("egg_nigiri") == "Egg nigiri"


def test_import_is_cheap():
    code = "import sys, companion.app.play_screens, companion.app.views; print('pygame' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_a_long_winner_name_is_cut_not_the_word_wins():
    state = played([LONG, "Ann"], rounds=3)
    view = views.final_view(state)
    view.winners = [LONG]
    for size in SIZES:
        _, boxes = render_play_boxes(view, size, BAR)
        line = next(b for b in boxes if b.role == "winners")
        assert line.text.endswith("… wins!") and line.text.startswith("Christopher")
