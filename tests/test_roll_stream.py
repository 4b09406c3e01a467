"""The simulated camera over a Sushi Roll game played by bots (companion.sim.roll_stream, #10): the
truth it keeps replays through the engine, each change is followed by a settle in the order the
table shows them (turns, slide then roll, a round's tray clear), still frames repeat one
rendering, a seed gives one film whether read through or skipped, dice move as the actions move
them, and the dice reader reads its settle frames.

Whole games are played with ``skip_to`` (nothing rendered) or at 320×240; only the reading test
renders at 2028×1520, the size the reader needs (bench/roll_read.py measures accuracy at scale).
"""

from __future__ import annotations

import json
import math
import os
from collections import Counter

import numpy as np
import pytest

from companion.app.roll_table import UNKNOWN, read_roll_table
from companion.rules.sushi_roll import apply, new_game
from companion.rules.sushi_roll.state import Chopsticks, Menu, Phase, Roll, Take
from companion.sim.dice import die_face, sushi_roll_faces
from companion.sim.roll_stream import SimRollStream, action_json, write_fixture
from companion.sim.roll_table import DIE_SIZE_MM, RollScene
from companion.vision.dice_icons import enroll_dice_images
from companion.vision.mat import MatTracker
from companion.vision.mat_layout import load_mat_layout

PLAYERS = ("Ann", "Bo", "Cy")
#: A seed whose 3-player game has menus, chopsticks and merged changes (asserted below).
SEED = 7
SMALL = (320, 240)


@pytest.fixture(scope="module")
def game() -> SimRollStream:
    """A whole 3-player game, played to the end without rendering a frame."""
    stream = SimRollStream(PLAYERS, SEED, size=SMALL)
    stream.skip_to(10**9)
    return stream


def _read_all(stream: SimRollStream) -> list[np.ndarray]:
    frames = []
    while (f := stream.read()) is not None:
        frames.append(f)
    return frames


# ------------------------------------------------------------------ the truth


def test_the_truth_replays_through_the_engine_to_the_final_state(game):
    assert game.exhausted and game.final is not None and game.final.result is not None
    state = new_game(list(PLAYERS), red_seat=0)
    for step in game.truth:
        for action in step.actions:
            state = apply(state, action)  # no rng: every roll's faces are given
    assert state == game.final
    assert state.result.totals == game.final.result.totals


def test_each_change_settles_in_the_order_the_table_shows_it(game):
    truth = game.truth
    gap = 2 * game.hand_frames - 1 + game.still_frames
    assert truth[0].kind == "draw" and truth[0].settled_frame == game.still_frames + 2 * game.hand_frames - 1
    assert all(b.settled_frame - a.settled_frame == gap for a, b in zip(truth, truth[1:]))
    state = new_game(list(PLAYERS), red_seat=0)
    i = 0
    while i < len(truth):
        step = truth[i]
        if step.kind == "draw":  # a round's dice laid on the belts (any faces), then rolled
            assert state.phase is Phase.ROLL and not any(state.belts) and step.actions == ()
            assert truth[i + 1].kind == "roll"
            laid = Counter(d.kind for d in step.dice if d.zone == "belt")
            assert laid == Counter(f.kind.value for belt in truth[i + 1].actions[0].faces for f in belt)
            i += 1
            continue
        if step.kind == "roll":
            assert state.phase is Phase.ROLL and step.seat is None and step.round == state.round
            assert len(step.actions) == 1 and isinstance(step.actions[0], Roll)
            state = apply(state, step.actions[0])
            i += 1
            continue
        assert step.kind == "turn" and step.seat == state.current_player and step.round == state.round
        kinds = [type(a) for a in step.actions]
        # Menus and chopsticks, then at most one take, which comes last.
        assert Take not in kinds[:-1] and set(kinds) <= {Menu, Chopsticks, Take}
        for a in step.actions:
            state = apply(state, a)
        i += 1
        if kinds[-1] is not Take or state.phase is Phase.TURN:
            continue
        if state.is_over:
            assert i == len(truth)  # the game's last take is the last change
        elif any(state.belts):
            # The cycle's last take: the belts slide (a settle), then a separate roll.
            assert [truth[i].kind, truth[i + 1].kind] == ["slide", "roll"]
            assert truth[i].actions == () and truth[i].seat is None and truth[i].round == state.round
            i += 1
        else:
            assert truth[i].kind == "clear" and truth[i].actions == () and truth[i].round == state.round - 1
            assert [truth[i + 1].kind, truth[i + 2].kind] == ["draw", "roll"] and truth[i + 2].round == state.round
            i += 1
    kinds = Counter(s.kind for s in truth)
    # 3 players: 7 dice a belt, 6 slides a round; the trays are cleared after rounds 1 and 2.
    assert kinds["slide"] == 18 and kinds["clear"] == 2 and kinds["roll"] == 21 and kinds["draw"] == 3
    actions = Counter(type(a).__name__ for s in truth for a in s.actions)
    assert actions["Take"] == 63 and actions["Menu"] >= 3 and actions["Chopsticks"] >= 3
    merged = [s for s in truth if len(s.actions) > 1]
    assert any(isinstance(s.actions[-1], Take) for s in merged)  # a token and the take in one change
    assert any(s.actions == (a,) for s in truth for a in s.actions if isinstance(a, (Menu, Chopsticks)))


# ------------------------------------------------------------------ the frames


def test_still_frames_repeat_one_rendering_and_the_stream_ends():
    stream = SimRollStream(PLAYERS, SEED, size=SMALL, still_frames=4, hand_frames=2, max_steps=5)
    frames = _read_all(stream)
    assert stream.exhausted and stream.read() is None and stream.final is None
    assert len(stream.truth) == 5 and len(frames) == stream.position + 1 == 4 + 5 * (3 + 4)
    assert all(f.shape == (240, 320, 3) and f.dtype == np.uint8 for f in frames)
    for step in stream.truth:
        still = frames[step.settled_frame: step.settled_frame + 4]
        assert all(f is still[0] for f in still)
        hand = frames[step.settled_frame - 1]  # the hand pulling back over the new table
        assert hand is not still[0] and not np.array_equal(hand, still[0])
    # Each change shows another table.
    tables = [frames[s.settled_frame] for s in stream.truth]
    assert all(not np.array_equal(a, b) for a, b in zip(tables, tables[1:]))


def test_a_seed_gives_one_film_and_skipping_lands_on_the_same_frames():
    kw = dict(size=SMALL, still_frames=3, hand_frames=2, max_steps=4)
    a, b = SimRollStream(PLAYERS, 21, **kw), SimRollStream(PLAYERS, 21, **kw)
    fa, fb = _read_all(a), _read_all(b)
    assert len(fa) == len(fb) and all(np.array_equal(x, y) for x, y in zip(fa, fb))
    assert a.truth == b.truth
    assert _truth_of(22, kw) != a.truth
    for k in (a.truth[1].settled_frame - 2, a.truth[2].settled_frame + 1):  # a hand frame, a still frame
        c = SimRollStream(PLAYERS, 21, **kw)
        c.skip_to(k)
        assert c.position == k and np.array_equal(c.last_frame, fa[k])
        rest = _read_all(c)
        assert len(rest) == len(fa) - k - 1 and all(np.array_equal(x, y) for x, y in zip(rest, fa[k + 1:]))
        assert c.truth == a.truth


def _truth_of(seed, kw):
    s = SimRollStream(PLAYERS, seed, **kw)
    s.skip_to(10**9)
    return s.truth


def test_lores_and_the_context_manager():
    with SimRollStream(PLAYERS, 3, size=(640, 480), max_steps=1) as stream:
        small = stream.read_lores()
        assert small.shape == (240, 320, 3) and stream.main_for_lores().shape == (480, 640, 3)
        assert stream.position == 0 and stream.last_frame is stream.main_for_lores()
    assert stream.read() is None and stream.exhausted


def test_bad_arguments_are_refused_naming_them():
    with pytest.raises(ValueError, match="2 to 5 players"):
        SimRollStream(["Ann"], 1)
    with pytest.raises(ValueError, match="red_seat"):
        SimRollStream(PLAYERS, 1, red_seat=3)
    with pytest.raises(ValueError, match="size"):
        SimRollStream(PLAYERS, 1, size=(0, 240))
    with pytest.raises(ValueError, match="still_frames"):
        SimRollStream(PLAYERS, 1, still_frames=0)
    with pytest.raises(ValueError, match="style"):
        SimRollStream(PLAYERS, 1, style="glossy")
    with pytest.raises(ValueError, match="seed"):
        SimRollStream(PLAYERS, "7")


# ------------------------------------------------------------------ how the dice move


def _belt(dice, seat):
    return [d for d in dice if d.seat == seat and d.zone == "belt"]


def test_a_menu_moves_the_rerolled_dice_and_nothing_else(game):
    checked = 0
    for before, step in zip(game.truth, game.truth[1:]):
        if len(step.actions) != 1 or not isinstance(step.actions[0], Menu):
            continue
        menu = step.actions[0]
        old, new = _belt(before.dice, step.seat), _belt(step.dice, step.seat)
        stayed = set(old) & set(new)  # same face, same place, same turn
        assert len(stayed) == len(old) - len(menu.reroll)
        landed = [d for d in new if d not in stayed]
        assert Counter(d.face for d in landed) == Counter(map(str, menu.result))
        # Every re-rolled die lands clear of where any die lay: the camera sees it move.
        assert all(math.dist(d.center_mm, o.center_mm) >= DIE_SIZE_MM for d in landed for o in old)
        assert set(before.dice) - set(old) == set(step.dice) - set(new)  # nothing else moved
        checked += 1
    assert checked >= 2


def test_chopsticks_trade_places_and_a_take_moves_one_die(game):
    swaps = takes = 0
    for before, step in zip(game.truth, game.truth[1:]):
        if len(step.actions) != 1 or isinstance(step.actions[0], (Roll, Menu)):
            continue
        gone, came = set(before.dice) - set(step.dice), set(step.dice) - set(before.dice)
        a = step.actions[0]
        if isinstance(a, Chopsticks):
            assert sorted(d.face for d in gone) == sorted(d.face for d in came) == sorted([str(a.mine), str(a.theirs)])
            assert {d.center_mm for d in gone} == {d.center_mm for d in came}  # each took the other's place
            swaps += 1
        else:
            assert [(d.face, d.zone) for d in gone if d.zone == "belt"] == [(str(a.face), "belt")]
            assert all(d.zone == "tray" and d.seat == step.seat for d in came) and str(a.face) in {d.face for d in came}
            for wasabi in (d for d in gone if d.zone == "tray"):  # a nigiri now stands on it
                assert wasabi.face == "wasabi" and a.face.is_nigiri
                assert any(d.center_mm == wasabi.center_mm and not d.visible for d in came)
            takes += 1
    assert swaps >= 1 and takes >= 20


def test_the_belts_slide_one_seat_on_and_the_roll_moves_every_belt_die(game):
    n = len(PLAYERS)
    layout = game.layout
    for before, slide, roll in zip(game.truth, game.truth[1:], game.truth[2:]):
        if slide.kind != "slide":
            continue
        for s in range(n):
            assert Counter(d.face for d in _belt(slide.dice, (s + 1) % n)) == Counter(d.face for d in _belt(before.dice, s))
        assert {d for d in before.dice if d.zone == "tray"} == {d for d in slide.dice if d.zone == "tray"}
        belts = [d for d in slide.dice if d.zone == "belt"]
        assert all(layout.zone_of(d.seat, "belt").contains(*d.center_mm) for d in belts)
        assert roll.kind == "roll" and not set(belts) & set(roll.dice)
        assert [Counter(d.face for d in _belt(roll.dice, s)) for s in range(n)] == \
            [Counter(map(str, faces)) for faces in roll.actions[0].faces]


def test_a_round_ends_with_every_tray_cleared(game):
    clears = [(b, s) for b, s in zip(game.truth, game.truth[1:]) if s.kind == "clear"]
    assert len(clears) == 2
    for before, clear in clears:
        assert any(d.zone == "tray" for d in before.dice) and clear.dice == ()


def test_the_scene_slides_a_belt_keeping_its_places_and_refuses_a_rethrow_of_a_missing_die():
    layout = load_mat_layout(3, game="sushi-roll")
    scene = RollScene(layout, np.random.default_rng(5))
    scene.sync([["maki"], ["tempura", "wasabi"], ["pudding"]], [[], [], []])
    seat1 = {d.face: d for d in _belt(scene.dice(), 1)}
    scene.slide_belts()
    # Seats 2 and 3 have belts of one size and facing, side by side: the dice keep their places
    # on the belt, 344 mm to the right.
    dx = layout.zone_of(2, "belt").rect_mm[0] - layout.zone_of(1, "belt").rect_mm[0]
    for d in _belt(scene.dice(), 2):
        assert d.center_mm == pytest.approx((seat1[d.face].center_mm[0] + dx, seat1[d.face].center_mm[1]))
        assert d.angle_deg == pytest.approx(seat1[d.face].angle_deg)
    assert [d.face for d in _belt(scene.dice(), 0)] == ["pudding"] and [d.face for d in _belt(scene.dice(), 1)] == ["maki"]
    with pytest.raises(ValueError, match=r"rethrown\[0\]\[0\]: no tempura lies on seat 0's belt"):
        scene.sync([["tempura"], [], []], [[], [], []], rethrown={0: ["tempura"]})
    with pytest.raises(ValueError, match="seats 0 to 2"):
        scene.sync([[], [], []], [[], [], []], rethrown={5: ["maki"]})


# ------------------------------------------------------------------ the reader reads it


def test_the_reader_reads_a_settle_frame_as_the_truth():
    """One settle frame at 2028×1520 late in round 1 (belts and trays holding dice), read by the
    Sushi Roll table reader with the dice enrolled from the sim's own faces: every die is found in
    its zone with its face ("unknown" at most once, never another face)."""
    probe = SimRollStream(PLAYERS, SEED)
    probe.skip_to(10**9)
    step = next(s for s in probe.truth if s.kind == "turn" and s.round == 1
                and sum(d.zone == "tray" for d in s.dice) >= 9)
    stream = SimRollStream(PLAYERS, SEED)
    stream.skip_to(step.settled_frame)
    dice = enroll_dice_images({f: [die_face(k, f, 128)] for k, faces in sushi_roll_faces().items() for f in faces})
    read = read_roll_table(stream.last_frame, MatTracker(stream.layout), stream.layout, dice)
    assert read is not None and read.loose == ()
    unknown = 0
    for seat in range(len(PLAYERS)):
        for kind, zones in (("belt", read.belts), ("tray", read.trays)):
            got = Counter(d.face for d in zones[seat])
            want = Counter(d.face for d in step.dice if d.visible and d.seat == seat and d.zone == kind)
            unknown += got[UNKNOWN]
            assert sum(got.values()) == sum(want.values()) and not (got - want) - Counter({UNKNOWN: got[UNKNOWN]})
    assert unknown <= 1


# ------------------------------------------------------------------ the fixture writer


def test_write_fixture_links_repeats_and_spells_the_truth(tmp_path):
    game = write_fixture(tmp_path, seed=SEED, size=SMALL, still_frames=3, hand_frames=2, max_steps=3)
    frames = sorted((tmp_path / "frames").iterdir())
    assert len(frames) == game["frames"] == 3 + 3 * (3 + 3)
    links = [f for f in frames if f.is_symlink()]
    # Each settle's repeats (and the empty mat's) link to the frame before: 2 per settle.
    assert len(links) == 2 * 4
    assert all((f.parent / os.readlink(f)).exists() and not os.readlink(f).startswith("/") for f in links)
    saved = json.loads((tmp_path / "game.json").read_text())
    assert saved == game and saved["players"] == list(PLAYERS) and saved["red_seat"] == 0
    assert saved["steps"][0]["kind"] == "draw" and saved["steps"][0]["actions"] == []
    first = saved["steps"][1]
    assert first["kind"] == "roll" and len(first["actions"][0]["roll"]) == 3
    assert all(len(belt) == 7 for belt in first["actions"][0]["roll"])
    assert "final" not in saved  # three steps are not a whole game
    assert action_json(Menu(0, ("maki",), ("maki*3",))) == {"menu": {"reroll": ["maki"], "result": ["maki*3"]}}
    assert action_json(Chopsticks(1, "tempura", 2, "wasabi")) == {
        "chopsticks": {"mine": "tempura", "other": 2, "theirs": "wasabi"}}
    with pytest.raises(ValueError, match="with its faces"):
        action_json(Roll())
