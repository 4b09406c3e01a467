"""A camera that never stops: the frames an overhead camera sends while bots play Sushi Go! on a
simulated table, hands reaching in and out between reveals (``companion play --camera sim``).

Each turn is played by the bots (:func:`companion.sim.game_sim.choose_play`) and shown as the
table would show it, frame by frame:

1. the players of the first half of the seats reach in (hands moving over the table as it was),
   lay their cards, and pull back; the table then stays still for ``still_frames`` frames — a
   settle in the middle of the reveal, which the loop must not apply;
2. the other players do the same; the table is still again with the whole turn revealed;
3. at a round's end, hands clear every card but the puddings (sushi-go.txt, BEFORE STARTING A NEW
   ROUND), and the table is still again.

Still frames repeat one rendering (the settle detector sees a quiet table); hand frames draw a
forearm and hand (:class:`companion.sim.rolls.Hand`) from the mat's nearest frame edge towards
the seat's zone. The main frames are (H, W, 3) uint8 BGR; :meth:`read_lores` gives the ≈320 px
wide small stream. ``position`` is the index of the last frame read, so a journal can say where an
event was seen; the same seed always gives the same frames.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from companion.rules.sushi_go import apply, legal_plays, new_game
from companion.rules.sushi_go.state import Play, SushiGoOptions, SushiGoState
from companion.sim.film import Film
from companion.sim.game_sim import choose_play, mat_for
from companion.sim.rolls import Hand
from companion.sim.scene import TableScene
from companion.sim.table import ShotConditions, render_table


@dataclass(frozen=True)
class TurnTruth:
    """A turn the bots played: where it was and ``plays[seat]``, and the frame index at which
    the whole reveal lay still for the first time."""

    round: int
    turn: int
    plays: dict[int, Play]
    settled_frame: int


class SimTableStream(Film):
    """A :class:`companion.devices.camera.FrameSource` over a bot game.

    Args:
        players: real players' names (2–5; 2 with the dummy variant).
        seed: the deal, the bots, the camera and the light.
        options: Sushi Go! options.
        size: main frame (W, H) px.
        still_frames: frames the table stays still after each change (the settle detector needs 6).
        hand_frames: frames a hand takes to reach in (and again to pull back).
        split_reveals: show each reveal in two halves (a settle mid-reveal) when there are 2+ seats.
        max_turns: stop after this many turns (None: the whole game).

    ``truth`` lists the turns played so far; ``final`` is the bots' final state once the game is over.
    """

    def __init__(
        self,
        players: Sequence[str],
        seed: int,
        options: SushiGoOptions | None = None,
        size: tuple[int, int] = (1280, 960),
        still_frames: int = 10,
        hand_frames: int = 4,
        split_reveals: bool = True,
        max_turns: int | None = None,
    ) -> None:
        self.players = list(players)
        self.options = options or SushiGoOptions()
        self.size = size
        self.still_frames = still_frames
        self.hand_frames = hand_frames
        self.split_reveals = split_reveals
        self.max_turns = max_turns
        self.layout = mat_for(len(self.players), self.options)
        self._deal_rng = random.Random(seed)
        self._bot_rng = random.Random(seed + 1)
        self._pix_rng = np.random.default_rng(seed)
        self._state: SushiGoState = new_game(self.players, self._deal_rng, self.options)
        self._scene = TableScene(self.layout, self._pix_rng)
        self._conditions = ShotConditions.random(self._pix_rng)
        self.truth: list[TurnTruth] = []
        self.final: SushiGoState | None = None
        self._cache: np.ndarray | None = None
        self._start()

    # ---- the film ---------------------------------------------------------------------------
    def _skipping(self) -> bool:
        return self.position + 1 < self._skip_until

    def _image(self) -> np.ndarray:
        """The table as the scene is now, rendered once per change (a blank while skipping)."""
        if self._skipping():
            w, h = self.size
            return np.zeros((h, w, 3), np.uint8)
        if self._cache is None:
            self._cache = render_table(self.layout, self._scene.placements(), size=self.size, rng=self._pix_rng,
                                       conditions=self._conditions).image
        return self._cache

    def _hands_for(self, seats: Sequence[int], homography: np.ndarray) -> list[Hand]:
        """A hand per seat, from the frame edge nearest its zone to the zone's middle."""
        w, h = self.size
        hands = []
        for seat in seats:
            zone = self.layout.zones[min(seat, len(self.layout.zones) - 1)]
            x, y, zw, zh = zone.rect_mm
            p = homography @ np.array([x + zw / 2, y + zh / 2, 1.0])
            centre = p[:2] / p[2]
            edges = [(centre[0], np.array([0.0, centre[1]])), (w - centre[0], np.array([w - 1.0, centre[1]])),
                     (centre[1], np.array([centre[0], 0.0])), (h - centre[1], np.array([centre[0], h - 1.0]))]
            _, base = min(edges, key=lambda e: e[0])
            direction = centre - base
            reach = float(np.linalg.norm(direction))
            direction = direction / max(reach, 1e-6)
            skin = (110.0 + 7 * seat, 145.0 + 5 * seat, 200.0 - 4 * seat)
            hands.append(Hand(base=base, direction=direction, reach=reach, t0=0.0, t_turn=float(self.hand_frames),
                              t1=2.0 * self.hand_frames, skin=skin, scale=w / 1100.0))
        return hands

    def _change(self, before: np.ndarray, hands: list[Hand]) -> Iterator[np.ndarray]:
        """The scene has just changed: hands reach in over ``before`` and pull back over the new
        table; then the new table stays still."""
        self._cache = None
        for i in range(1, 2 * self.hand_frames):
            if self._skipping():
                yield self._image()
                continue
            yield _paint_hands(before if i <= self.hand_frames else self._image(), hands, float(i))
        for _ in range(self.still_frames):
            yield self._image()

    def _generate(self) -> Iterator[np.ndarray]:
        homography = render_table(self.layout, [], size=self.size, rng=np.random.default_rng(0),
                                  conditions=self._conditions).homography
        for _ in range(self.still_frames):
            yield self._image()
        turns = 0
        while not self._state.is_over and (self.max_turns is None or turns < self.max_turns):
            start = self._state
            plays: dict[int, Play] = {}
            state = start
            for seat in start.waiting_for():
                plays[seat] = choose_play(self._bot_rng, legal_plays(state, seat))
                state = apply(state, plays[seat])
            ended = state.is_over or state.round != start.round
            full = state.round_tableaux[-1] if ended else state.tableaux
            puddings = start.puddings if ended else state.puddings
            seats = list(range(start.seats))
            halves = [seats[: math.ceil(len(seats) / 2)], seats[math.ceil(len(seats) / 2):]]
            if not self.split_reveals or len(seats) < 2:
                halves = [seats]
            done: list[int] = []
            for half in halves:
                done += half
                before = self._image()
                self._scene.sync([full[s] if s in done else start.tableaux[s] for s in seats], puddings)
                yield from self._change(before, self._hands_for(half, homography))
            self.truth.append(TurnTruth(start.round, start.turn, plays, self.position + 1 - self.still_frames))
            self._state = state
            turns += 1
            if ended:
                before = self._image()
                self._scene.end_round()
                if not state.is_over:
                    yield from self._change(before, self._hands_for(seats, homography))
        if self._state.is_over:
            self.final = self._state


#: Margin around a hand's mask, in quarter-size px, that its softened edge can reach: the Gaussian
#: (sigma 1, a 7-tap kernel for uint8: 3 px each side) plus one px of the bilinear upscale, and spare.
_HAND_PAD = 6


def _paint_hands(img: np.ndarray, hands: Sequence[Hand], t: float) -> np.ndarray:
    """``img`` (H, W, 3) uint8 BGR with the hands at time ``t`` painted over it in their skin
    colours, edges softened: a new (H, W, 3) uint8 BGR array (``img`` is not changed). Cheaper than
    :func:`companion.sim.rolls.draw_hand` (no motion blur, no shadow).

    Each hand's coverage is drawn, shrunk to a quarter (``cv2.INTER_AREA``), blurred and brought
    back (``cv2.INTER_LINEAR``) inside the hand's bounding box only, grown by the reach of the
    softening (``_HAND_PAD``) and aligned to the quarter-size grid, so the pixels are those of doing
    it over the whole frame (outside the box the coverage is 0); a frame whose sides are not
    multiples of 4 is done whole. Where hands overlap, each is rounded to uint8 before the next
    is laid on it (at most 1 level from blending them in one float pass). About 20 ms a hand
    frame at 2028×1520 (it was 150–260 ms on the whole frame; bench figures in the #10 report)."""
    import cv2

    h, w = img.shape[:2]
    out = img.copy()
    mask = np.zeros((h, w), np.uint8)
    whole = w % 4 or h % 4
    for hand in hands:
        mask[:] = 0
        hand.draw_mask(mask, t)
        bx, by, bw, bh = cv2.boundingRect(mask)
        if bw == 0 or bh == 0:
            continue
        if whole:
            x0, y0, x1, y1 = 0, 0, w, h
        else:
            x0, y0 = max(0, (bx // 4 - _HAND_PAD) * 4), max(0, (by // 4 - _HAND_PAD) * 4)
            x1 = min(w, ((bx + bw + 3) // 4 + _HAND_PAD) * 4)
            y1 = min(h, ((by + bh + 3) // 4 + _HAND_PAD) * 4)
        rw, rh = x1 - x0, y1 - y0
        small = cv2.resize(mask[y0:y1, x0:x1], (rw // 4, rh // 4), interpolation=cv2.INTER_AREA)
        cover = cv2.resize(cv2.GaussianBlur(small, (0, 0), 1.0), (rw, rh), interpolation=cv2.INTER_LINEAR)
        c = (cover.astype(np.float32) / 255.0)[..., None]
        roi = out[y0:y1, x0:x1].astype(np.float32) * (1.0 - c) + np.array(hand.skin, np.float32) * c
        out[y0:y1, x0:x1] = np.clip(roi + 0.5, 0, 255).astype(np.uint8)
    return out


def write_fixture(folder, players: Sequence[str] = ("Ann", "Bo"), seed: int = 21, turns: int = 3,
                  size: tuple[int, int] = (1024, 768)) -> dict:
    """Record a simulated stream as a replay fixture: ``frames/frame0000.jpg`` … (a frame that
    repeats the one before is a symbolic link to it, so a still table costs no space),
    ``game.json`` (players, seed, size, and per turn its plays and the first still frame), and
    ``panel.json`` (a panel script: UNDO pressed mid-game, then BACK, which must change nothing).
    Returns the game.json dict. ``python -m companion.sim.stream DIR`` writes it there."""
    import json
    import os
    from pathlib import Path

    import cv2

    out = Path(folder)
    frames = out / "frames"
    frames.mkdir(parents=True, exist_ok=True)
    for old in frames.iterdir():
        old.unlink()
    stream = SimTableStream(list(players), seed, size=size, hand_frames=2, still_frames=8, max_turns=turns)
    previous, previous_name = None, None
    while (frame := stream.read()) is not None:
        name = f"frame{stream.position:04d}.jpg"
        if previous is not None and frame is previous:
            os.symlink(previous_name, frames / name)
        else:
            cv2.imwrite(str(frames / name), frame, [cv2.IMWRITE_JPEG_QUALITY, 82])
            previous, previous_name = frame, name
    game = {
        "players": list(players), "seed": seed, "size": list(size), "frames": stream.position + 1,
        "turns": [{"round": t.round, "turn": t.turn, "settled_frame": t.settled_frame,
                   "plays": {players[s]: [c.value for c in p.cards] for s, p in sorted(t.plays.items())}}
                  for t in stream.truth],
    }
    (out / "game.json").write_text(json.dumps(game, indent=1) + "\n", encoding="utf-8")
    (out / "panel.json").write_text(json.dumps([{"t": 0.5, "event": "undo"}, {"t": 0.6, "event": "back"}]) + "\n",
                                    encoding="utf-8")
    return game


if __name__ == "__main__":
    import sys

    write_fixture(sys.argv[1] if len(sys.argv) > 1 else "tests/fixtures/stream-2p")
