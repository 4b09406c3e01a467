"""A camera that never stops over a Sushi Roll table: the frames an overhead camera sends while bots
play Sushi Roll on a simulated mat, hands reaching in and out between changes (issue #10; the dice
game's counterpart of :mod:`companion.sim.stream`).

The game is the rules engine's (:mod:`companion.rules.sushi_roll`); the bots
(:meth:`SimRollStream._bot_turn`) sometimes spend a menu token (re-roll some of their belt's dice,
the engine's ``random.Random`` drawing the faces) or a chopsticks token (swap one of their belt's
dice with a die showing another face on another belt), then take a die at random. What the camera
sees, each change shown as hands reaching in over the table as it was and pulling back over the
new one, then ``still_frames`` still frames (a settle):

1. round start: the dice drawn from the bag are laid on every belt, showing any face (SET UP), and
   the table settles; then, a separate change, they are rolled (engine ``Roll()``; every die lands
   anew, PLAYING A ROUND);
2. each turn in turn order: each menu or chopsticks is usually a change of its own, but one time
   in three (``MERGE_CHANCE``) the player's last one and the take are one change, with no settle
   between (the companion must explain a change of several actions); the take is a change;
3. after the last take of a cycle: the belts slide, each die in seat s's belt zone carried to
   seat (s + 1) % n's, faces unchanged (sushi-roll.txt, SLIDE AND ROLL; ``RollScene.slide_belts``),
   and the table settles; then, a separate change, every belt is re-rolled (engine ``Roll()``);
4. after the last take of a round: hands clear every tray (the dice back in the bag), the table
   settles, and the next round starts with 1. After round 3 the last take ends the game: its
   settle is the stream's last frames.

A re-rolled die lands away from where it lay, even on the face it showed, so a re-roll shows as
movement; dice a menu did not re-roll do not move (``RollScene.sync(rethrown=...)``). A nigiri
taken onto a tray with an open wasabi stands on it (``RollScene``).

Still frames repeat one rendering (the same ndarray: the settle detector sees a quiet table, and a
fixture writer links repeats); hand frames paint a forearm and hand
(:class:`companion.sim.rolls.Hand`, painted as :mod:`companion.sim.stream` paints them) from the
frame edge behind the acting seat towards the dice that move. The frames are rendered by
:func:`companion.sim.roll_table.render_roll_table` under one ``ShotConditions`` per stream (one
camera, table and light), (H, W, 3) uint8 BGR at ``size``; the default 2028×1520 is the Pi
camera's main stream, at which the dice reader reads the dice (``companion.app.roll_table``).
The same seed always gives the same frames, whatever was skipped.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np

from companion.rules.sushi_roll.engine import apply, new_game
from companion.rules.sushi_roll.state import (
    Action,
    Chopsticks,
    Menu,
    Phase,
    Roll,
    SushiRollOptions,
    SushiRollState,
    Take,
    place_on_tray,
)
from companion.sim.dice import STYLES
from companion.sim.film import Film
from companion.sim.roll_table import RollScene, SimDie, render_roll_table
from companion.sim.rolls import Hand
from companion.sim.stream import _paint_hands
from companion.sim.table import ShotConditions, _camera_homography
from companion.vision.mat_layout import MatLayout, load_mat_layout

__all__ = ["MERGE_CHANCE", "RollStep", "SimRollStream", "action_json", "write_fixture"]

#: How often a player's last menu or chopsticks and their take are one change (no settle between).
MERGE_CHANCE = 1 / 3
#: Per chance to act before taking (at most ``MAX_TOKEN_ACTIONS`` a turn): the bot spends a menu
#: token with this chance, else a chopsticks token with the next one, while it has the token.
#: Chosen so that a whole game shows several of each (the test checks a 3-player game).
MENU_CHANCE = 0.25
CHOPSTICKS_CHANCE = 0.2
MAX_TOKEN_ACTIONS = 2


@dataclass(frozen=True)
class RollStep:
    """One change the camera saw, and when the table lay still after it.

    Attributes:
        round: the round (1..3) it belongs to (a tray clear: the round it ends).
        seat: the acting seat for a turn; None for a roll, a slide or a clear.
        actions: the engine actions applied in the change, with what was rolled filled in
            (``Roll(faces=...)`` in seat order, ``Menu(..., result=...)``): applied in order from
            ``new_game`` with the stream's ``red_seat`` they replay the game. ``()`` for a slide
            (the engine slid the belts with the cycle's last take) or a clear (it ended the round).
        settled_frame: the index of the first still frame after the change.
        kind: ``"draw"`` (a round's dice laid on the belts, not yet rolled), ``"roll"``, ``"turn"``,
            ``"slide"`` or ``"clear"``.
        dice: every die on the table once the change is done (``RollScene.dice()``), the truth of
            where each lies (not compared: equal steps may lie differently).
    """

    round: int
    seat: int | None
    actions: tuple[Action, ...]
    settled_frame: int
    kind: str = "turn"
    dice: tuple[SimDie, ...] = field(default=(), compare=False, repr=False)


def _seed32(seed: int) -> int:
    return seed % (1 << 32)


class SimRollStream(Film):
    """A :class:`companion.devices.camera.FrameSource` over a Sushi Roll game played by bots.

    Args:
        players: the players' names (2–5), seat order.
        seed: the dice, the bots, the camera and the light (an int).
        options: Sushi Roll options (the engine's defaults when None).
        size: main frame (W, H) px; 2028×1520 (the Pi's main stream) is what the dice reader reads.
        still_frames: frames the table stays still after each change (the settle detector needs 6).
        hand_frames: frames a hand takes to reach in (and again to pull back).
        max_steps: stop after this many steps (None: the whole game).
        red_seat: the seat holding the red belt at the start (the companion is told the same).
        style: the dice art (``companion.sim.dice.STYLES``).

    ``truth`` lists the steps (:class:`RollStep`) whose change is done (the table lies still after
    it from then on); ``final`` is the engine's final state once the game is over, else None. ``layout`` is the mat
    (``load_mat_layout(n, game="sushi-roll")``).

    Raises:
        ValueError: bad players, options or red_seat (from the engine's ``new_game``), a seed that
            is not an int, a size that is not two positive ints, frame counts below 1, a negative
            ``max_steps``, or an unknown style.
    """

    def __init__(
        self,
        players: Sequence[str],
        seed: int,
        options: SushiRollOptions | None = None,
        size: tuple[int, int] = (2028, 1520),
        still_frames: int = 10,
        hand_frames: int = 4,
        max_steps: int | None = None,
        red_seat: int = 0,
        style: str = "ours",
    ) -> None:
        if type(seed) is not int:
            raise ValueError(f"seed must be an int, not {seed!r}")
        if (not isinstance(size, Sequence) or len(size) != 2 or any(type(v) is not int or v <= 0 for v in size)):
            raise ValueError(f"size must be (width, height) in px, two positive ints, not {size!r}")
        for name, value in (("still_frames", still_frames), ("hand_frames", hand_frames)):
            if type(value) is not int or value < 1:
                raise ValueError(f"{name} must be an int of at least 1 frame, not {value!r}")
        if max_steps is not None and (type(max_steps) is not int or max_steps < 0):
            raise ValueError(f"max_steps must be None or a whole number of steps, not {max_steps!r}")
        if style not in STYLES:
            raise ValueError(f"style must be one of {', '.join(STYLES)}, not {style!r}")
        self._engine_rng = random.Random(seed)
        self._state: SushiRollState = new_game(players, self._engine_rng, options=options, red_seat=red_seat)
        self.players = list(self._state.players)
        self.options = self._state.options
        self.seed, self.red_seat, self.style = seed, red_seat, style
        self.size = (int(size[0]), int(size[1]))
        self.still_frames, self.hand_frames, self.max_steps = still_frames, hand_frames, max_steps
        self.layout: MatLayout = load_mat_layout(len(self.players), game="sushi-roll")
        self._bot_rng = random.Random(seed + 1)
        s32 = _seed32(seed)
        self._s32 = s32
        self._scene = RollScene(self.layout, np.random.default_rng([s32, 1]))
        self._conditions = ShotConditions.random(np.random.default_rng([s32, 0]))
        self._homography = _camera_homography(self.layout, self.size, self._conditions)
        self.truth: list[RollStep] = []
        self.final: SushiRollState | None = None
        self._made = 0  # frames generated so far: the index of the frame being made
        self._table = 0  # which table the frames show: one rendering per change
        self._dice: tuple[SimDie, ...] = ()
        self._renders: dict[int, np.ndarray] = {}
        self._blank: np.ndarray | None = None
        self._start()

    # ---- the frames -------------------------------------------------------------------------
    def _skipping(self) -> bool:
        return self._made < self._skip_until

    def _render(self, table: int, dice: Sequence[SimDie]) -> np.ndarray:
        """Table number ``table`` (with these dice), rendered once. Its noise is drawn from the
        seed and the table number alone, so skipping (rendering nothing) changes no later frame."""
        img = self._renders.get(table)
        if img is None:
            rng = np.random.default_rng([self._s32, 2, table])
            img = render_roll_table(self.layout, list(dice), size=self.size, rng=rng, conditions=self._conditions,
                                    style=self.style).image
            # Hand frames paint over the table before the change and the one after: keep two.
            self._renders = {k: v for k, v in self._renders.items() if k >= table - 1}
            self._renders[table] = img
        return img

    def _emit(self, make) -> np.ndarray:
        """The next frame: ``make()``, or a blank while skipping."""
        if self._skipping():
            if self._blank is None:
                w, h = self.size
                self._blank = np.zeros((h, w, 3), np.uint8)
            frame = self._blank
        else:
            frame = make()
        self._made += 1
        return frame

    def _still(self) -> np.ndarray:
        return self._emit(lambda: self._render(self._table, self._dice))

    def _step(self, kind: str, round_no: int, seat: int | None, actions: Sequence[Action],
              hands: list[Hand]) -> Iterator[np.ndarray]:
        """The scene has just changed: hands reach in over the table as it was and pull back over
        the new one; the step goes into ``truth`` as the new table starts to lie still (a reader
        of the still frames, or a bot answering a question about them, finds it there)."""
        before_table, before_dice = self._table, self._dice
        self._table += 1
        self._dice = tuple(self._scene.dice())
        settled = self._made + 2 * self.hand_frames - 1
        for i in range(1, 2 * self.hand_frames):
            table, dice = (before_table, before_dice) if i <= self.hand_frames else (self._table, self._dice)
            yield self._emit(lambda: _paint_hands(self._render(table, dice), hands, float(i)))
        self.truth.append(RollStep(round_no, seat, tuple(actions), settled, kind, self._dice))
        for _ in range(self.still_frames):
            yield self._still()

    def _full(self) -> bool:
        return self.max_steps is not None and len(self.truth) >= self.max_steps

    # ---- the game ---------------------------------------------------------------------------
    def _generate(self) -> Iterator[np.ndarray]:
        for _ in range(self.still_frames):  # the empty mat
            yield self._still()
        while not self._state.is_over and not self._full():
            if self._state.phase is Phase.ROLL:  # a round starts (a slide's roll follows its slide)
                yield from self._roll()
            else:
                yield from self._turn()
        if self._state.is_over:
            self.final = self._state

    def _roll(self) -> Iterator[np.ndarray]:
        """Every belt's dice rolled; at a round's start first drawn from the bag and laid on the
        belts showing any face (sushi-roll.txt, SET UP: "for now it does not matter which faces
        are showing"), a change of its own, before they are picked up and rolled (PLAYING A ROUND)."""
        before = self._state
        after = apply(before, Roll(), self._engine_rng)
        n = after.seats
        if not any(before.belts):
            laid = random.Random(f"{self.seed}-laid-{before.round}")  # its own: the game's draws stay the seed's
            shown = [sorted((laid.choice(after.dice.of(f.kind)) for f in belt), key=str) for belt in after.belts]
            self._scene.sync(shown, after.trays, rerolled=range(n))
            hands = [self._hand(s, [self._zone_centre(s, "belt")]) for s in range(n)]
            yield from self._step("draw", before.round, None, (), hands)
        self._scene.sync(after.belts, after.trays, rerolled=range(n))
        hands = [self._hand(s, [self._zone_centre(s, "belt")]) for s in range(n)]
        yield from self._step("roll", before.round, None, (Roll(faces=after.belts),), hands)
        self._state = after

    def _turn(self) -> Iterator[np.ndarray]:
        """One player's turn: their menus and chopsticks, then their take, in one or more changes;
        then the slide and roll, or the tray clear, that the last take of a cycle or round brings."""
        state = self._state
        seat = state.current_player
        assert seat is not None
        plan = self._bot_turn(state, seat)
        groups = [[a] for a in plan]
        if len(plan) > 1 and self._bot_rng.random() < MERGE_CHANCE:
            groups[-2:] = [groups[-2] + groups[-1]]
        round_no = state.round
        for group in groups:
            before = self._scene.dice()
            for action in group:
                state = self._show(state, action)
            hands = self._hands_for_change(seat, before, self._scene.dice())
            yield from self._step("turn", round_no, seat, group, hands)
            self._state = state
            if self._full():
                return
        if state.is_over:
            return
        if state.phase is Phase.ROLL and any(state.belts):
            self._scene.slide_belts()
            n = state.seats
            hands = [self._hand(s, [self._zone_centre(s, "belt")]) for s in range(n)]
            yield from self._step("slide", round_no, None, (), hands)
            if not self._full():
                yield from self._roll()
        elif state.phase is Phase.ROLL:
            n = state.seats
            self._scene.sync([()] * n, [()] * n)
            hands = [self._hand(s, [self._zone_centre(s, "tray")]) for s in range(n)]
            yield from self._step("clear", round_no, None, (), hands)

    def _show(self, state: SushiRollState, action: Action) -> SushiRollState:
        """Apply ``action`` (its faces given) and move the dice on the table as it moves them;
        the state after it. A take that ends a cycle shows the die on the tray, not the slide."""
        after = apply(state, action)
        if isinstance(action, Menu):
            self._scene.sync(after.belts, after.trays, rethrown={action.player: action.reroll})
        elif isinstance(action, Take):
            belts = list(state.belts)
            mine = list(belts[action.player])
            mine.remove(action.face)
            belts[action.player] = tuple(mine)
            trays = list(state.trays)
            trays[action.player] = place_on_tray(trays[action.player], action.face)
            self._scene.sync(belts, trays)
        else:
            self._scene.sync(after.belts, after.trays)
        return after

    def _bot_turn(self, state: SushiRollState, seat: int) -> list[Action]:
        """The bot's turn: up to ``MAX_TOKEN_ACTIONS`` menus or chopsticks while its tokens last
        (a menu re-rolls 1–3 of its belt's dice, the engine's rng drawing the faces; chopsticks
        swap one of its dice with a die of another face on another belt: the same face both ways
        would show no change), then a die taken at random. Every action has its faces given."""
        r = self._bot_rng
        plan: list[Action] = []
        for _ in range(MAX_TOKEN_ACTIONS):
            belt, tokens = state.belts[seat], state.tokens[seat]
            x = r.random()
            action: Action | None = None
            if x < MENU_CHANCE and tokens.menu:
                reroll = tuple(r.sample(list(belt), k=min(len(belt), r.choice((1, 1, 2, 2, 3)))))
                result = tuple(state.dice.roll(f.kind, self._engine_rng) for f in reroll)
                action = Menu(seat, reroll, result)
            elif x < MENU_CHANCE + CHOPSTICKS_CHANCE and tokens.chopsticks:
                pairs = [(m, o, t) for m in sorted(set(belt)) for o in range(state.seats) if o != seat
                         for t in sorted(set(state.belts[o])) if t != m]
                if pairs:
                    m, o, t = r.choice(pairs)
                    action = Chopsticks(seat, m, o, t)
            if action is None:
                break
            plan.append(action)
            state = apply(state, action)
        plan.append(Take(seat, r.choice(state.belts[seat])))
        return plan

    # ---- hands ------------------------------------------------------------------------------
    def _zone_centre(self, seat: int, kind: str) -> tuple[float, float]:
        x, y, w, h = self.layout.zone_of(seat, kind).rect_mm
        return (x + w / 2, y + h / 2)

    def _hands_for_change(self, seat: int, before: Sequence[SimDie], after: Sequence[SimDie]) -> list[Hand]:
        """The acting seat's hands: one to the dice that moved in each seat's zones (its own belt
        and tray; another belt for a chopsticks swap)."""
        old, new = set(before), set(after)
        moved = [d for d in old ^ new]
        by_seat: dict[int, list[tuple[float, float]]] = {}
        for d in moved:
            by_seat.setdefault(d.seat, []).append(d.center_mm)
        if not by_seat:
            by_seat[seat] = [self._zone_centre(seat, "belt")]
        return [self._hand(seat, pts, index=k) for k, (_, pts) in enumerate(sorted(by_seat.items()))]

    def _hand(self, seat: int, points_mm: Sequence[tuple[float, float]], index: int = 0) -> Hand:
        """A hand of ``seat``'s player from the frame edge behind their tray, straight towards the
        middle of ``points_mm`` (mat mm)."""
        w, h = self.size
        hom = self._homography

        def px(p):
            q = hom @ np.array([p[0], p[1], 1.0])
            return q[:2] / q[2]

        target = np.mean([px(p) for p in points_mm], axis=0)
        home = px(self._zone_centre(seat, "tray"))
        edges = [(home[0], np.array([0.0, target[1]])), (w - home[0], np.array([w - 1.0, target[1]])),
                 (home[1], np.array([target[0], 0.0])), (h - home[1], np.array([target[0], h - 1.0]))]
        _, base = min(edges, key=lambda e: e[0])
        direction = target - base
        reach = float(np.linalg.norm(direction))
        direction = direction / max(reach, 1e-6)
        ppm = math.sqrt(abs(np.linalg.det(hom[:2, :2])))
        skin = (110.0 + 7 * seat + 3 * index, 145.0 + 5 * seat, 200.0 - 4 * seat)
        return Hand(base=base, direction=direction, reach=reach, t0=0.0, t_turn=float(self.hand_frames),
                    t1=2.0 * self.hand_frames, skin=skin, scale=ppm)

    def is_rendering(self, frame: np.ndarray) -> bool:
        """True when ``frame`` is a table as rendered (a still frame), not a hand frame or a blank."""
        return any(frame is img for img in self._renders.values())


def action_json(action: Action) -> dict:
    """One engine action as game.json spells it: ``{"roll": [[faces] per seat]}``,
    ``{"menu": {"reroll": [...], "result": [...]}}``, ``{"chopsticks": {"mine": f, "other": seat,
    "theirs": f}}`` or ``{"take": face}`` (faces as ``str(Face)``).

    Raises:
        ValueError: an action that is not a Roll, Menu, Chopsticks or Take, or a Roll or Menu
            without its faces.
    """
    if isinstance(action, Roll) and action.faces is not None:
        return {"roll": [[str(f) for f in seat] for seat in action.faces]}
    if isinstance(action, Menu) and action.result is not None:
        return {"menu": {"reroll": [str(f) for f in action.reroll], "result": [str(f) for f in action.result]}}
    if isinstance(action, Chopsticks):
        return {"chopsticks": {"mine": str(action.mine), "other": action.other, "theirs": str(action.theirs)}}
    if isinstance(action, Take):
        return {"take": str(action.face)}
    raise ValueError(f"{action!r}: game.json spells a Roll or Menu with its faces given, Chopsticks or Take")


def write_fixture(folder, players: Sequence[str] = ("Ann", "Bo", "Cy"), seed: int = 7,
                  size: tuple[int, int] = (2028, 1520), still_frames: int = 8, hand_frames: int = 2,
                  max_steps: int | None = None, red_seat: int = 0, quality: int = 85,
                  hand_quality: int = 50, hand_shrink: int = 1, dice: str | None = None) -> dict:
    """Record a simulated Sushi Roll stream as a replay fixture.

    Writes ``frames/frame0000.jpg`` … (a frame that repeats the one before is a symbolic link to
    it, so a still table costs no space; still frames at JPEG ``quality``, hand frames, which
    nothing reads dice from, at ``hand_quality``; Huffman tables optimised and progressive, which
    makes the files about 10 % smaller and changes no decoded pixel) and ``game.json``: players,
    seed, red_seat, size, frames, still_frames, hand_frames, hand_shrink, the steps (round, seat,
    kind, settled_frame, actions as :func:`action_json` spells them) and, once the game is over,
    ``final`` (totals and winners). Returns the game.json dict.

    ``hand_shrink`` k > 1 stores each hand frame at 1/k of ``size`` (``cv2.INTER_AREA``): the play
    loop looks at a frame that moves only through its small stream
    (:func:`companion.devices.camera.downscale_lores`, ≈320 px wide whatever the frame's size, the
    same aspect ratio), and reads a full frame only from the quiet run before a settle
    (``PlayLoop`` read-ahead, ``main_for_lores``), which is still frames. So a whole 3-player game
    fits in a test fixture: tests/fixtures/sushi-roll-3p (25 MB, 1133 frames) is
    ``python -m companion.sim.roll_stream tests/fixtures/sushi-roll-3p --seed 808 --quality 80
    --hand-frames 1 --hand-shrink 4 --dice dice.npz``. ``dice``: a file name in ``folder`` to save the
    simulator's enrolled dice to (:func:`companion.sim.record.enroll_sim_dice`, what
    ``companion play --dice`` loads), or None.

    Raises:
        ValueError: as :class:`SimRollStream`; a ``hand_shrink`` that is not a whole number ≥ 1
            dividing both sides of ``size`` (the small frames keep the aspect ratio exactly).
    """
    import json
    import os
    from pathlib import Path

    import cv2

    if type(hand_shrink) is not int or hand_shrink < 1 or size[0] % hand_shrink or size[1] % hand_shrink:
        raise ValueError(f"hand_shrink must be a whole number >= 1 dividing both sides of {tuple(size)}, "
                         f"not {hand_shrink!r}")
    stream = SimRollStream(list(players), seed, size=size, still_frames=still_frames, hand_frames=hand_frames,
                           max_steps=max_steps, red_seat=red_seat)
    out = Path(folder)
    frames = out / "frames"
    frames.mkdir(parents=True, exist_ok=True)
    for old in frames.iterdir():
        old.unlink()
    small = (size[0] // hand_shrink, size[1] // hand_shrink)
    lossless = [cv2.IMWRITE_JPEG_OPTIMIZE, 1, cv2.IMWRITE_JPEG_PROGRESSIVE, 1]
    previous, previous_name = None, None
    while (frame := stream.read()) is not None:
        name = f"frame{stream.position:04d}.jpg"
        if previous is not None and frame is previous:
            os.symlink(previous_name, frames / name)
            continue
        if stream.is_rendering(frame):
            cv2.imwrite(str(frames / name), frame, [cv2.IMWRITE_JPEG_QUALITY, int(quality)] + lossless)
        else:
            if hand_shrink > 1:
                frame = cv2.resize(frame, small, interpolation=cv2.INTER_AREA)
            cv2.imwrite(str(frames / name), frame, [cv2.IMWRITE_JPEG_QUALITY, int(hand_quality)] + lossless)
        previous, previous_name = frame, name
    game: dict = {
        "players": list(players), "seed": seed, "red_seat": red_seat, "size": list(size),
        "frames": stream.position + 1, "still_frames": still_frames, "hand_frames": hand_frames,
        "hand_shrink": hand_shrink,
        "steps": [{"round": s.round, "seat": s.seat, "kind": s.kind, "settled_frame": s.settled_frame,
                   "actions": [action_json(a) for a in s.actions]} for s in stream.truth],
    }
    if stream.final is not None and stream.final.result is not None:
        result = stream.final.result
        game["final"] = {"totals": dict(zip(result.players, result.totals)), "winners": list(result.winners)}
    (out / "game.json").write_text(json.dumps(game, indent=1) + "\n", encoding="utf-8")
    if dice is not None:
        from companion.sim.record import enroll_sim_dice

        enroll_sim_dice().save(out / dice)
    return game


if __name__ == "__main__":
    import argparse

    ap = argparse.ArgumentParser(description="Record a simulated Sushi Roll game as a replay fixture "
                                             "(tests/fixtures/sushi-roll-3p: --seed 808 --quality 80 "
                                             "--hand-frames 1 --hand-shrink 4 --dice dice.npz).")
    ap.add_argument("folder")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--quality", type=int, default=85)
    ap.add_argument("--hand-quality", type=int, default=50)
    ap.add_argument("--still-frames", type=int, default=8)
    ap.add_argument("--hand-frames", type=int, default=2)
    ap.add_argument("--hand-shrink", type=int, default=1, help="store hand frames at 1/N size")
    ap.add_argument("--dice", default=None, help="save the simulator's enrolled dice under this name in FOLDER")
    ap.add_argument("--max-steps", type=int, default=None)
    a = ap.parse_args()
    g = write_fixture(a.folder, seed=a.seed, quality=a.quality, hand_quality=a.hand_quality,
                      still_frames=a.still_frames, hand_frames=a.hand_frames, hand_shrink=a.hand_shrink,
                      dice=a.dice, max_steps=a.max_steps)
    print(f"{a.folder}: {g['frames']} frames, {len(g['steps'])} steps")
