"""A camera that never stops over a Sushi Express table (issue #11): the only thing it must read is
the two standard d6 the players throw (sushi-express.txt, 2. ROLL DICE: "The player always rolls
both dice at the same time"; the Re-roll action card: "he can immediately re-roll one of the dice").

The stream is lazy: it shows a still table until it is told to throw, by :meth:`SimExpressStream.throw`
and :meth:`SimExpressStream.reroll`, or by a ``roller`` (a bot watching the companion's screen) that it
asks once per still frame. Each throw is shown as a real one looks from above:

1. a hand (two, when the dice lie apart) reaches in from the thrower's table edge over the dice
   where they lie, closes over them and pulls back without them (``HAND_FRAMES`` frames each way);
2. the dice fly in from that edge, tumble (position, spin and top face changing, tilting over an
   edge as they roll, motion blurred) and slow down under constant friction
   (:class:`companion.sim.rolls._Die`) to stop on the thrown faces at new spots well inside the
   frame, ``MIN_APART`` die edges or more apart;
3. the table is still for ``still_frames`` frames (one ndarray repeated), and for as long after as
   nothing is queued.

A re-roll picks up and throws only one die; the other keeps its place and its pixels.

Before the first throw the two dice lie still near the middle of the frame's lower half, faces
drawn from the seed (a real table has them lying there between rounds); the film starts with
``still_frames`` still frames of that table.

The table: cloth or wood (:func:`companion.sim.table.table_background`) under uneven light
(:func:`companion.sim.table.light_gain`: a gradient, a vignette, a colour cast), a little focus blur
and a fixed sensor grain; round its edge the ring of 12 hexagon tiles (Sushi Express, the park and
ten houses, PREPARATION) and above the dice the guess board with its spaces 2–12. The clutter is
pale, each tile and the board of one grey level (their art shows in its hues), with no round dark
dots and no pip-sized light blobs, and lies far from where dice land: a d6 reader that reads
"anywhere on the table" must find exactly the two dice.

Scale: 3.8 px per mm at 1280 px wide (the frame shows about 34 × 25 cm of table; a 16 mm die's
top face is 61 px, ``PX_PER_MM``), a pinhole camera of focal length 0.9 × width (about 58° across,
the Pi camera's standard lens) straight above the frame's centre, so dice away from it show a
little of their sides (:func:`companion.sim.dice.draw_die`'s ``view``).

Frames are (H, W, 3) uint8 BGR at ``size``. A still frame is rendered once per settle (whole frame);
hand frames paint the hands over it (:func:`companion.sim.stream._paint_hands`), tumble frames
repaint only the boxes the flying dice cross. There is no per-frame noise and no JPEG: still
frames must be one array (a recorder links repeats, the settle detector sees a quiet table), and a
re-roll must leave the other die's pixels as they were. All randomness comes from the seed: the
same seed and the same calls give the same frames, whatever was skipped.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Callable, Iterator, Sequence

import cv2
import numpy as np

from companion.sim.dice import DIE_SIZE_MM, _fill, draw_die, draw_die_shadow
from companion.sim.film import Film
from companion.sim.roll_table import _noise_bank
from companion.sim.rolls import BLUR_SAMPLES, EXPOSURE, Hand, _Die, _draw_dice, _shade, _shadows
from companion.sim.stream import _paint_hands
from companion.sim.table import ShotConditions, clipped_box, light_gain, table_background

__all__ = ["HAND_FRAMES", "MIN_APART", "MIN_MOVE", "PX_PER_MM", "SimExpressStream"]

#: Table mm → frame px at 1280 px wide (scaled with the width): a 16 mm die's top face is 61 px
#: (pips 11 px). Chosen by reading settled frames with ``companion.vision.dice_d6.read_d6``: at
#: 40–48 px dice (2.5–3 px/mm) a six's neighbouring pips (2–3 px apart) merge in the reader's
#: half-size octave and the merged blob replaces both, so 10–15 % of sixes read as a three; at
#: 56–60 px (3.5–3.75) the pips' size is at the edge of the reader's first octave, found now in
#: one octave, now in the next, rounder in one than the other, and a two's pips are then not
#: grouped (94–96 % of settles read exactly); at 3.8 px/mm 98.5 % (400 settles, the #11 report).
PX_PER_MM = 3.8
#: Frames a hand takes to reach in over the dice (and again to pull back).
HAND_FRAMES = 4
#: Least distance between the centres of the two resting dice, in die edges: a turned die reaches
#: 0.71 edge from its centre, so more than one edge of table lies between them, and one die's
#: shadow (1.05 edges, moved 0.29 away from the light, blurred 4 × 0.12) stops short of the other.
MIN_APART = 3.2
#: A re-thrown die lands at least this many edges from where it lay, so a re-roll always shows as
#: movement, even when it shows the same face again.
MIN_MOVE = 2.0
#: Where dice land: an ellipse (centre, semi-axes) in fractions of (width, height), inside the ring
#: of tiles and below the guess board.
LANDING = ((0.5, 0.53), (0.24, 0.145))
#: Where the dice lie before the first throw ("near the middle-bottom"): their midpoint and its
#: jitter, in fractions of (width, height).
START = ((0.5, 0.62), (0.09, 0.03))

_EDGES = ("bottom", "left", "top", "right")
_Action = tuple  # ("throw", (a, b)) or ("reroll", die, face)


def _check_face(value, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not 1 <= int(value) <= 6:
        raise ValueError(f"{what} must be a d6 face, a whole number 1 … 6, not {value!r}")
    return int(value)


def _check_faces(faces, what: str = "faces") -> tuple[int, int]:
    if isinstance(faces, (str, bytes)) or not isinstance(faces, Sequence) or len(faces) != 2:
        raise ValueError(f"{what} must be two d6 faces (die 0's, die 1's), e.g. (3, 5), not {faces!r}")
    return _check_face(faces[0], f"{what}[0]"), _check_face(faces[1], f"{what}[1]")


def _check_die(die) -> int:
    if isinstance(die, bool) or not isinstance(die, (int, np.integer)) or int(die) not in (0, 1):
        raise ValueError(f"die must be 0 or 1 (which of the two dice), not {die!r}")
    return int(die)


def _parse_action(action) -> _Action:
    """A roller's answer as a queued action; raises ValueError naming what is wrong."""
    if isinstance(action, tuple) and len(action) == 2 and action[0] == "throw":
        return ("throw", _check_faces(action[1], "a roller's throw faces"))
    if isinstance(action, tuple) and len(action) == 3 and action[0] == "reroll":
        return ("reroll", _check_die(action[1]), _check_face(action[2], "a roller's re-roll face"))
    raise ValueError(f"a roller returns None, ('throw', (a, b)) or ('reroll', die, face), not {action!r}")


class _Shifted:
    """A die seen in a crop whose top-left corner is (ox, oy) of the frame: ``pose`` in crop px, so
    :func:`companion.sim.rolls._draw_dice` and ``_shadows`` draw it into the crop."""

    def __init__(self, die: _Die, ox: int, oy: int) -> None:
        self.die, self.ox, self.oy = die, ox, oy
        self.kind, self.size, self.body = die.kind, die.size, die.body

    def pose(self, t: float):
        x, y, rot, face, view = self.die.pose(t, with_rocking=False)
        return x - self.ox, y - self.oy, rot, face, view


class SimExpressStream(Film):
    """A :class:`companion.devices.camera.FrameSource` over a Sushi Express table where two white d6
    (black pips) are thrown when told.

    Args:
        seed: the table, the light, the starting dice, and every throw's spots, paths and hands
            (an int; any throws asked for are drawn from it in the order they are performed).
        size: main frame (W, H) px, landscape, at least 320 × 240; 1280×960 gives 61 px dice.
        still_frames: still frames shown after each throw at the least (the settle detector,
            ``companion.vision.motion.SettleDetector``, needs 6 quiet frames; the loop's read
            ahead a few more); the film also starts with this many.
        roller: None, or a callable taking no arguments, asked once after each still frame while
            nothing is queued; it returns None (nothing), ``("throw", (a, b))`` or
            ``("reroll", die, face)``, which is then performed (after the running throw's still
            frames). Settable later as ``stream.roller``.
        max_frames: the film ends after this many frames (None: when :meth:`finish` says so).

    Attributes:
        truth: one dict per throw or re-roll done (appended as the dice come to rest):
            ``{"kind": "throw" | "reroll", "faces": [a, b]`` (both dice after it, die 0's first),
            ``"die": i`` (the re-thrown die; None for a throw), ``"start": f`` (index of the first
            frame of its motion: the first hand frame), ``"settled": g}`` (index of its first still
            frame; every frame from ``start`` to ``g - 1`` moves, ``g`` on is still).
        position, exhausted: as :class:`companion.sim.film.Film` (index of the last frame read).
        conditions: the light and table (:class:`companion.sim.table.ShotConditions`; only the
            table, light, blur, grain and shadow fields are used: the camera looks straight down).
        die_px: a die's edge in frame px.

    Raises:
        ValueError: a seed that is not an int, a size that is not two ints (W ≥ 320, H ≥ 240,
            H ≤ W), ``still_frames`` below 1, a ``max_frames`` that is not None or a whole number
            ≥ 0, a roller that is not callable.
    """

    def __init__(self, seed: int, size: tuple[int, int] = (1280, 960), still_frames: int = 12,
                 roller: Callable[[], object] | None = None, max_frames: int | None = None) -> None:
        if type(seed) is not int:
            raise ValueError(f"seed must be an int, not {seed!r}")
        if (not isinstance(size, Sequence) or len(size) != 2 or any(type(v) is not int for v in size)
                or size[0] < 320 or size[1] < 240 or size[1] > size[0]):
            raise ValueError(f"size must be (width, height) px, two ints, at least 320 × 240 and not taller "
                             f"than wide, not {size!r}")
        if type(still_frames) is not int or still_frames < 1:
            raise ValueError(f"still_frames must be a whole number of frames ≥ 1, not {still_frames!r}")
        if max_frames is not None and (type(max_frames) is not int or max_frames < 0):
            raise ValueError(f"max_frames must be None or a whole number of frames ≥ 0, not {max_frames!r}")
        if roller is not None and not callable(roller):
            raise ValueError(f"roller must be None or a callable taking no arguments, not {roller!r}")
        self.seed = seed
        self.size = (int(size[0]), int(size[1]))
        self.still_frames, self.roller, self.max_frames = still_frames, roller, max_frames
        w, h = self.size
        s32 = seed % (1 << 32)
        # One generator for the table and one for the throws: a throw's draws never depend on how
        # the table was drawn, nor on rendering (skip_to renders nothing and draws the same).
        table_rng = np.random.default_rng([s32, 0])
        self._rng = np.random.default_rng([s32, 1])
        self.conditions = ShotConditions.random(table_rng)
        self.px_per_mm = PX_PER_MM * w / 1280.0
        self.die_px = DIE_SIZE_MM * self.px_per_mm
        self._focal = 0.9 * w
        self._nadir = ((w - 1) / 2.0, (h - 1) / 2.0)
        self._shadow_blur = 0.12 * self.die_px  # as sim.dice.render_dice
        self._shadow_strength = min(0.85, 1.6 * self.conditions.shadow)
        self._blur = float(self.conditions.blur_sigma)
        # OpenCV's float Gaussian reaches 4 sigma: a crop this much wider blurs its inside exactly
        # as the whole frame would.
        self._blur_pad = int(math.ceil(4 * self._blur)) + 1
        # A die's drawing and shadow stay within this of its footprint centre: its top face 0.71
        # edge plus up to 0.8 of view while tumbling, its shadow 0.74 + 0.29 away from the light
        # + 4 sigma of blur (0.48): the box a die repaints.
        self._die_pad = int(math.ceil(1.6 * self.die_px)) + 2
        self._table = self._draw_table(table_rng)
        self._light = light_gain(self.size, self.conditions)
        oy, ox = (int(v) for v in table_rng.integers(0, 64, 2))
        self._grain = _noise_bank(self.size)[oy:oy + h, ox:ox + w] * np.float32(self.conditions.noise_sigma)
        self._empty = self._finish(self._table.copy())
        # The dice at rest, die 0 and die 1 (None while in a hand or in flight).
        self._dice: list[_Die | None] = self._starting_dice()
        self._still_img: np.ndarray | None = None
        self._queue: deque[_Action] = deque()
        self._finishing = False
        self._made = 0  # frames generated: the index of the frame being made
        self._blank: np.ndarray | None = None
        self.truth: list[dict] = []
        self._start()

    # ---- what the caller asks -----------------------------------------------------------------
    def throw(self, faces: tuple[int, int]) -> None:
        """Queue a throw of both dice, to stop on ``faces`` (die 0 shows ``faces[0]``).

        Raises:
            ValueError: faces that are not two whole numbers 1 … 6, or a film that was finished.
        """
        action = ("throw", _check_faces(faces))
        self._enqueue(action)

    def reroll(self, die: int, face: int) -> None:
        """Queue a re-throw of die ``die`` (0 or 1) only, to stop on ``face``; the other stays put.

        Raises:
            ValueError: a die that is not 0 or 1, a face not 1 … 6, or a film that was finished.
        """
        action = ("reroll", _check_die(die), _check_face(face, "face"))
        self._enqueue(action)

    def finish(self) -> None:
        """End the film once what is queued has been thrown and shown still for ``still_frames``
        frames: ``read`` then returns None and ``exhausted`` is True."""
        self._finishing = True

    def resting(self) -> list[tuple[float, float, int]]:
        """The dice at rest as of the last frame made, die 0 before die 1: (x, y, face) with (x, y)
        the centre of the die's top face as the camera sees it (its footprint's centre shifted
        by the perspective, where a reader finds it), frame px (float), and the face (1 … 6). A
        die in a hand or in flight is left out (none during a throw's motion)."""
        out = []
        for d in self._dice:
            if d is not None:
                x, y, _, face, view = d.pose(d.t_stop, with_rocking=False)
                out.append((x + view[0] * d.size, y + view[1] * d.size, int(face)))
        return out

    def is_rendering(self, frame: np.ndarray) -> bool:
        """True when ``frame`` is a still frame (the table at rest), not a hand, tumble or blank frame."""
        return frame is self._still_img

    def _enqueue(self, action: _Action) -> None:
        if self._finishing or self.exhausted:
            raise ValueError(f"{action[0]} after finish() or the film's end: the film takes no more throws")
        self._queue.append(action)

    # ---- the film -----------------------------------------------------------------------------
    def _generate(self) -> Iterator[np.ndarray]:
        frames = self._film()
        while self.max_frames is None or self._made < self.max_frames:
            frame = next(frames, None)
            if frame is None:
                return
            yield frame

    def _film(self) -> Iterator[np.ndarray]:
        yield from self._stills(self.still_frames)
        while True:
            if self._queue:
                yield from self._perform(self._queue.popleft())
            elif self._finishing:
                return
            else:
                yield from self._stills(1)

    def _stills(self, n: int) -> Iterator[np.ndarray]:
        """``n`` still frames, the roller asked after each one while nothing is queued."""
        for _ in range(n):
            yield self._emit(self._still)
            if self.roller is not None and not self._queue and not self._finishing:
                action = self.roller()
                if action is not None:
                    self._queue.append(_parse_action(action))

    def _emit(self, make: Callable[[], np.ndarray]) -> np.ndarray:
        """The next frame: ``make()``, or a blank while ``skip_to`` plays on without rendering."""
        if self._made < self._skip_until:
            if self._blank is None:
                w, h = self.size
                self._blank = np.zeros((h, w, 3), np.uint8)
            frame = self._blank
        else:
            frame = make()
        self._made += 1
        return frame

    def _still(self) -> np.ndarray:
        if self._still_img is None:
            self._still_img = self._render_still([d for d in self._dice if d is not None])
        return self._still_img

    def _perform(self, action: _Action) -> Iterator[np.ndarray]:
        """One throw or re-roll: hands, flight, then the still frames; its truth as it settles."""
        rng = self._rng
        if action[0] == "throw":
            movers, faces, die = [0, 1], {0: action[1][0], 1: action[1][1]}, None
        else:
            movers, faces, die = [action[1]], {action[1]: action[2]}, action[1]
        edge = _EDGES[int(rng.integers(0, 4))]  # the thrower's side of the table
        skin = (float(rng.uniform(95, 130)), float(rng.uniform(130, 165)), float(rng.uniform(180, 220)))
        before = [d for d in self._dice if d is not None]
        staying = [d for i, d in enumerate(self._dice) if d is not None and i not in movers]
        hands = self._hands(edge, [self._dice[i] for i in movers if self._dice[i] is not None], skin)
        flying = self._fly(edge, movers, faces, staying)
        start = self._made
        # 1. The hands reach in over the dice as they lie, close over them at the turn, pull back.
        still_before = self._still_img
        without: list[np.ndarray] = []

        def over(t: float, table_now: Callable[[], np.ndarray]) -> np.ndarray:
            return _paint_hands(table_now(), hands, t)

        def before_img() -> np.ndarray:
            return still_before if still_before is not None else self._render_still(before)

        def without_img() -> np.ndarray:
            if not without:
                without.append(self._render_still(staying) if staying else self._empty)
            return without[0]

        for i in range(1, HAND_FRAMES + 1):
            yield self._emit(lambda: over(float(i), before_img))
        for i in movers:
            self._dice[i] = None
        self._still_img = None
        for i in range(HAND_FRAMES + 1, 2 * HAND_FRAMES):
            yield self._emit(lambda: over(float(i), without_img))
        # 2. The dice fly in from the thrower's edge and tumble to rest.
        layer: list[np.ndarray] = []

        def layer_now() -> np.ndarray:
            """The unlit table with the dice that stay (and their shadows), what the flight is over."""
            if not layer:
                canvas = self._table.copy() if staying else self._table
                if staying:
                    self._paint_dice(canvas, staying)
                layer.append(canvas)
            return layer[0]

        end = int(math.ceil(max(d.t_stop for d in flying.values())))
        thrown = list(flying.values())
        for tau in range(1, end + 1):
            yield self._emit(lambda: self._flight_frame(float(tau), thrown, without_img(), layer_now()))
        # 3. At rest: the truth, then the still frames.
        for i, d in flying.items():
            self._dice[i] = d
        self._still_img = None
        shown = [int(d.faces[-1]) for d in self._dice if d is not None]
        self.truth.append({"kind": action[0], "faces": shown, "die": die, "start": start, "settled": self._made})
        yield from self._stills(self.still_frames)

    # ---- where the dice go --------------------------------------------------------------------
    def _new_die(self, face: str, rest: np.ndarray, rot: float) -> _Die:
        d = _Die(kind="d6", size=self.die_px, faces=[face])
        d.entry = d.rest = np.asarray(rest, np.float64)
        d.rot_rest = rot
        d.nadir, d.focal = self._nadir, self._focal
        return d

    def _spot(self, taken: Sequence[np.ndarray], avoid: Sequence[np.ndarray] = ()) -> np.ndarray:
        """A random footprint centre inside the ``LANDING`` ellipse, at least ``MIN_APART`` edges
        from every die in ``taken`` and ``MIN_MOVE`` from every point of ``avoid``."""
        w, h = self.size
        (cx, cy), (ax, ay) = LANDING
        for _ in range(1000):
            u, v = self._rng.uniform(-1, 1, 2)
            if u * u + v * v > 1:
                continue
            p = np.array([(cx + ax * u) * w, (cy + ay * v) * h])
            if (all(np.hypot(*(p - q)) >= MIN_APART * self.die_px for q in taken)
                    and all(np.hypot(*(p - q)) >= MIN_MOVE * self.die_px for q in avoid)):
                return p
        raise RuntimeError("no free spot for a die on the simulated table")  # pragma: no cover - never at 4:3

    def _starting_dice(self) -> list[_Die | None]:
        """The two dice lying side by side near ``START``, die 0 on the left, 1.7–2.3 edges each
        side of it (so ``MIN_APART`` holds), faces and turns from the seed."""
        w, h = self.size
        (cx, cy), (jx, jy) = START
        half = float(self._rng.uniform(1.7, 2.3)) * self.die_px
        dice: list[_Die | None] = []
        for side in (-1, 1):
            p = np.array([cx * w + side * half, cy * h]) + self._rng.uniform(-1, 1, 2) * (jx * w * 0.2, jy * h)
            face = str(int(self._rng.integers(1, 7)))
            dice.append(self._new_die(face, p, float(self._rng.uniform(0, 360))))
        return dice

    def _edge_point(self, edge: str, along: float, outside: float) -> np.ndarray:
        """A point ``outside`` px beyond the frame's ``edge``, at ``along`` px along it."""
        w, h = self.size
        return {"bottom": np.array([along, h - 1 + outside]), "top": np.array([along, -outside]),
                "left": np.array([-outside, along]), "right": np.array([w - 1 + outside, along])}[edge]

    def _fly(self, edge: str, movers: Sequence[int], faces: dict[int, int], staying: Sequence[_Die]) -> dict[int, _Die]:
        """The thrown dice's flights (:class:`companion.sim.rolls._Die`): from the thrower's edge,
        together (within 2 frames), tumbling through random faces to ``faces``, resting at new spots."""
        rng = self._rng
        w, h = self.size
        taken = [d.rest for d in staying]
        avoid = [self._dice[i].rest for i in movers if self._dice[i] is not None]  # type: ignore[union-attr]
        across = h if edge in ("left", "right") else w
        release = float(rng.uniform(0.35, 0.65)) * across  # where the hand lets go, along its edge
        out: dict[int, _Die] = {}
        for k, i in enumerate(movers):
            rest = self._spot(taken, avoid if len(movers) == 1 else ())
            taken.append(rest)
            tumble = [str(int(f)) for f in rng.integers(1, 7, int(rng.integers(4, 8)))]
            d = self._new_die(str(faces[i]), rest, float(rng.uniform(0, 360)))
            d.faces = tumble + [str(faces[i])]
            d.t_in = float(k * int(rng.integers(0, 3)))
            d.entry = self._edge_point(edge, release + float(rng.uniform(-0.6, 0.6)) * self.die_px, 1.2 * self.die_px)
            # Constant deceleration 1.2–2 px/frame² at 320 px wide (rolls.py's die on felt), so a
            # throw across the frame lasts about 9–17 frames.
            decel = float(rng.uniform(1.2, 2.0)) * w / 320.0
            distance = float(np.hypot(*(d.rest - d.entry)))
            d.t_stop = d.t_in + max(6, round(math.sqrt(2.0 * distance / decel)))
            d.curve = float(rng.uniform(-0.25, 0.25))
            d.spin = float(rng.uniform(90, 600)) * float(rng.choice([-1, 1]))
            d.tumble_until = float(rng.uniform(0.5, 0.85))
            out[i] = d
        return out

    def _hands(self, edge: str, dice: Sequence[_Die], skin) -> list[Hand]:
        """The thrower's hands from ``edge``: one over both dice when they lie within a palm's width
        of each other, else one over each; the palm's centre (125 mm behind the fingertips) comes
        over the die at the turn, as in ``companion.sim.rolls``."""
        targets = [d.rest for d in dice]
        if len(targets) == 2 and np.hypot(*(targets[0] - targets[1])) < 70 * self.px_per_mm:
            targets = [(targets[0] + targets[1]) / 2]
        if not targets:  # nothing to pick up (never with two dice on the table): a reach to the middle
            targets = [np.array([self.size[0] / 2, self.size[1] / 2])]
        hands = []
        for k, p in enumerate(targets):
            base = self._edge_point(edge, float(p[0] if edge in ("top", "bottom") else p[1]), 0.0)
            direction = p - base
            reach = float(np.hypot(*direction))
            tint = (-6.0 * k, -4.0 * k, -3.0 * k)  # the other hand in a slightly other light
            hands.append(Hand(base=base, direction=direction / max(reach, 1e-6), reach=reach + 125 * self.px_per_mm,
                              t0=0.0, t_turn=float(HAND_FRAMES), t1=2.0 * HAND_FRAMES,
                              skin=tuple(s + d for s, d in zip(skin, tint)), scale=self.px_per_mm))
        return hands

    # ---- pixels -------------------------------------------------------------------------------
    def _draw_table(self, rng: np.random.Generator) -> np.ndarray:
        """(H, W, 3) float32 BGR, unlit: the table (cloth or wood), the ring of 12 hexagon tiles
        round the frame's edge and the guess board above the dice (sushi-express.txt, PREPARATION)."""
        w, h = self.size
        table = table_background(self.size, self.conditions, rng)
        # The clutter is sized by the frame, not the die scale (the tiles are drawn smaller than the
        # real ones, so that the whole ring is in view): the ring keeps to the frame's edge and the
        # board to the space above the dice whatever PX_PER_MM is.
        r = 0.052 * w  # a tile's corner radius: 115 px across its flats at 1280, wider than 88 px,
        # the largest light blob a d6 reader's openings take out whole
        # Twelve tiles evenly spaced along an ellipse by arc length, a flat side to the middle: the
        # table between neighbours is a wide band (≥ 1.2 r), never two small dark wedges where two
        # corners nearly meet (a d6 reader took such a pair for a two).
        ax, ay = w / 2 - 1.05 * r, h / 2 - 1.05 * r
        theta = np.linspace(0, 2 * math.pi, 2401)
        ring = np.stack([w / 2 + ax * np.cos(theta), h / 2 + ay * np.sin(theta)], axis=1)
        along = np.concatenate([[0.0], np.cumsum(np.hypot(*np.diff(ring, axis=0).T))])
        first = float(rng.uniform(0, along[-1] / 12))
        park = int(rng.integers(0, 12))
        # Every part of a tile and of the board has one grey level (``_at_luma``): the art shows
        # in its hues only. A d6 reader works on grey, and a light-pip die's pip need only be 30 %
        # of the way from its body to white (dice_d6.find_pips): on a pale tile a roof 12 % darker
        # left a light ring round it that the reader took for a one.
        tile_luma, board_luma = 218.0, 206.0
        cream = _at_luma((206, 226, 238), tile_luma)
        pastel = [_at_luma(c, tile_luma) for c in ((214, 200, 236), (236, 214, 196), (200, 232, 236),
                                                   (222, 236, 206), (232, 210, 226))]
        wall_bgr, roof_bgr = _at_luma((196, 214, 226), tile_luma), _at_luma((150, 170, 240), tile_luma)
        awning_bgr = _at_luma((150, 160, 245), tile_luma)
        for k in range(12):
            c = ring[int(np.searchsorted(along, first + k * along[-1] / 12))]
            inward = math.atan2(h / 2 - c[1], w / 2 - c[0])
            turn = inward - math.pi / 6 + float(rng.uniform(-0.06, 0.06))
            _fill(table, _hexagon(c, r, turn), cream, 1.0)  # the tile's printed border
            kind = "park" if k == park else "express" if k == (park + 6) % 12 else "house"
            inner = {"park": _at_luma((170, 230, 180), tile_luma),
                     "express": _at_luma((190, 196, 245), tile_luma)}.get(kind, pastel[k % len(pastel)])
            _fill(table, _hexagon(c, 0.82 * r, turn), inner, 1.0)
            if kind == "house":  # a wall and a roof
                u = r * 0.28
                _fill(table, c + np.array([[-u, -0.1 * u], [u, -0.1 * u], [u, 1.3 * u], [-u, 1.3 * u]]), wall_bgr, 1.0)
                _fill(table, c + np.array([[-1.35 * u, 0.0], [0.0, -1.2 * u], [1.35 * u, 0.0]]), roof_bgr, 1.0)
            elif kind == "express":  # a shop front: an awning over a counter
                u = r * 0.3
                _fill(table, c + np.array([[-1.6 * u, -u], [1.6 * u, -u], [1.6 * u, -0.3 * u], [-1.6 * u, -0.3 * u]]),
                      awning_bgr, 1.0)
        # The guess board: one bar with eleven spaces 2–12, the numbers printed small in a warm ink
        # of the board's grey level. No box round a space (a boxed space is die-sized and outlined
        # like a die's face) and no ticks between them: where the board's marks were darker, a d6
        # reader took a digit, or the light gaps between ticks and digits on a dark table, for pips.
        # 32 px tall at 1280: between the widths a d6 reader's openings take out (22 and 44 px at
        # its 2nd and 3rd octaves), so the bar is kept whole at one octave and taken out whole at
        # the next; at 41 px grain and uneven light cut its end into a pip-sized light blob.
        cell, tall = 0.027 * w, 0.025 * w
        x0, y0 = w / 2 - 5.5 * cell, 0.25 * h - tall / 2
        _fill(table, np.array([[x0 - 0.2 * cell, y0], [x0 + 11.2 * cell, y0], [x0 + 11.2 * cell, y0 + tall],
                               [x0 - 0.2 * cell, y0 + tall]]), _at_luma((196, 212, 222), board_luma), 1.0)
        ink = _at_luma((150, 185, 250), board_luma)
        for k in range(11):
            _print(table, str(k + 2), (x0 + (k + 0.5) * cell, y0 + tall / 2), 0.32 * tall, ink)
        return table

    def _finish(self, canvas: np.ndarray, ox: int = 0, oy: int = 0) -> np.ndarray:
        """The camera on an unlit float32 canvas lying at (ox, oy) of the frame: focus blur, the
        light's gain, the fixed grain; (h, w, 3) uint8 BGR. ``canvas`` is changed."""
        h, w = canvas.shape[:2]
        if self._blur > 0:
            canvas = cv2.GaussianBlur(canvas, (0, 0), self._blur)
        cv2.multiply(canvas, self._light[oy:oy + h, ox:ox + w], dst=canvas)
        cv2.add(canvas, self._grain[oy:oy + h, ox:ox + w], dst=canvas)
        return cv2.convertScaleAbs(canvas)  # rounds and saturates; nothing here is below 0

    def _paint_dice(self, canvas: np.ndarray, dice: Sequence[_Die], times: Sequence[float] | None = None,
                    box: tuple[int, int, int, int] | None = None) -> None:
        """Paint ``dice`` and their drop shadows into the unlit (h, w, 3) float32 ``canvas`` (the
        frame, or the crop of it whose top-left corner is ``box``'s), in place: each at rest
        (``times`` None), at one time, or averaged over the shutter ``times`` (motion blur: the
        shadows' average darkens the table, the dice's average is laid over it, :func:`_smear`)."""
        ox, oy = (box[0], box[1]) if box is not None else (0, 0)
        if times is None:  # at rest: each die in its own box, so one die never touches another's pixels
            for d in dice:
                b = self._box(d, [d.t_stop])
                if b is not None:
                    x0, y0, x1, y1 = b
                    self._paint_dice(canvas[y0 - oy:y1 - oy, x0 - ox:x1 - ox], [d], [d.t_stop], b)
            return
        if len(times) == 1:
            shifted = [_Shifted(d, ox, oy) for d in dice if d.present(times[0])]
            canvas[:] = _shade(canvas, _shadows(canvas.shape[:2], [(d, times[0]) for d in shifted]),
                               self._shadow_blur, self._shadow_strength)
            _draw_dice(canvas, [(d, times[0]) for d in shifted])
            return
        n = len(times)
        paint = np.zeros(canvas.shape[:2] + (4,), np.float32)  # premultiplied BGR and coverage, summed
        shadow = np.zeros(canvas.shape[:2], np.float32)
        for d in dice:
            _smear(paint, shadow, d, [t for t in times if d.present(t)], ox, oy)
        base = _shade(canvas, shadow / n, self._shadow_blur, self._shadow_strength)
        canvas[:] = base * (1.0 - paint[..., 3:] / n) + paint[..., :3] / n

    def _box(self, d: _Die, times: Sequence[float]) -> tuple[int, int, int, int] | None:
        """The frame px box (x0, y0, x1, y1) a die's drawing and shadow can touch over ``times``."""
        pts = np.array([d.pose(t, with_rocking=False)[:2] for t in times if d.present(t)])
        if not len(pts):
            return None
        return clipped_box(pts, (self.size[1], self.size[0]), self._die_pad, self._die_pad + 1)

    def _render_still(self, dice: Sequence[_Die]) -> np.ndarray:
        """The whole frame with ``dice`` at rest, (H, W, 3) uint8 BGR (once per settle: every pixel
        goes through one ``_finish``, so a die that did not move comes out the same)."""
        if not dice:
            return self._empty
        canvas = self._table.copy()
        self._paint_dice(canvas, dice)
        return self._finish(canvas)

    def _flight_frame(self, tau: float, flying: Sequence[_Die], table: np.ndarray, layer: np.ndarray) -> np.ndarray:
        """Tumble frame ``tau`` (frames since the throw left the hand): ``table`` (uint8, the still
        table without the flying dice) with the boxes the flying dice cross over the exposure
        repainted from ``layer`` (float32, unlit), the dice motion-blurred."""
        times = [tau - EXPOSURE * k / (BLUR_SAMPLES - 1) for k in range(BLUR_SAMPLES)]
        travel = 0.0
        for d in flying:
            if d.present(times[0]) or d.present(times[-1]):
                a, b = d.pose(max(times[-1], d.t_in)), d.pose(times[0])
                travel = max(travel, math.hypot(a[0] - b[0], a[1] - b[1]))
        # Enough shutter samples that the blur is a streak (≤ 2 px apart), not separate copies, up
        # to 12 (a die thrown hard moves ~40 px in the half-frame exposure: 3.5 px apart then).
        n = max(BLUR_SAMPLES, min(12, math.ceil(travel / 2.0) + 1))
        times = [tau - EXPOSURE * k / (n - 1) for k in range(n)]
        groups: list[tuple[list[int], list[_Die]]] = []
        for d in flying:
            b = self._box(d, times)
            if b is not None:
                groups.append((list(b), [d]))
        # Boxes that overlap are painted as one (a die's shadow may fall in the other's box).
        merged = True
        while merged:
            merged = False
            for i in range(len(groups)):
                for j in range(i + 1, len(groups)):
                    a, b = groups[i][0], groups[j][0]
                    if a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]:
                        groups[i] = ([min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3])],
                                     groups[i][1] + groups[j][1])
                        del groups[j]
                        merged = True
                        break
                if merged:
                    break
        frame = table.copy()
        w, h = self.size
        p = self._blur_pad
        for (x0, y0, x1, y1), dice in groups:
            X0, Y0, X1, Y1 = max(0, x0 - p), max(0, y0 - p), min(w, x1 + p), min(h, y1 + p)
            canvas = layer[Y0:Y1, X0:X1].copy()
            self._paint_dice(canvas, dice, times, (X0, Y0, X1, Y1))
            frame[y0:y1, x0:x1] = self._finish(canvas, X0, Y0)[y0 - Y0:y1 - Y0, x0 - X0:x1 - X0]
        return frame


def _smear(paint: np.ndarray, shadow: np.ndarray, d: _Die, times: Sequence[float], ox: int, oy: int) -> None:
    """Add die ``d`` at each of ``times`` to ``paint`` ((h, w, 4) float32: premultiplied BGR and
    coverage) and its drop shadow's footprint to ``shadow`` ((h, w) float32), both the crop at
    (ox, oy) of the frame, in place: the shutter's samples of a motion blur, to be averaged.

    The die is drawn once (:func:`companion.sim.dice.draw_die`, at the middle sample's face and
    view) into a sprite, its shadow (:func:`companion.sim.dice.draw_die_shadow`) into another, and
    the sprites are moved and turned to each sample's pose (``cv2.warpAffine``): drawing the die
    at every sample (up to 12 a frame) cost ~1.6 ms each, most of a frame's 30 ms. Within one
    exposure (half a frame) a tumbling die's face and tilt are taken as the middle sample's."""
    if not times:
        return
    x, y, rot, face, view = d.pose(times[len(times) // 2], with_rocking=False)
    r = int(math.ceil(1.6 * d.size))  # the die's top, sides and tilt stay this close to its centre
    k = 2 * r + 1
    # Coverage from drawing on black and on a bright canvas: each layer blends linearly, so
    # bright − black = K × (1 − coverage).
    black = np.zeros((k, k, 3), np.float32)
    bright = np.full((k, k, 3), 1000.0, np.float32)
    for canvas in (black, bright):
        draw_die(canvas, d.kind, face, (float(r), float(r)), d.size, rot, view=view, body_bgr=d.body)
    sprite = np.dstack([black, 1.0 - (bright[..., 0] - black[..., 0]) / 1000.0])
    rs = int(math.ceil(0.75 * d.size)) + 2  # the shadow's footprint (1.05 edges) about its own centre
    foot = np.zeros((2 * rs + 1, 2 * rs + 1), np.float32)
    draw_die_shadow(foot, (float(rs), float(rs)), d.size, rot, offset_px=(0.0, 0.0))
    off = np.array([0.15, 0.25]) * d.size  # draw_die_shadow's own offset: away from the light
    for t in times:
        xt, yt, rt, _, _ = d.pose(t, with_rocking=False)
        _add_turned(paint, sprite, r, xt - ox, yt - oy, rt - rot)
        _add_turned(shadow, foot, rs, xt - ox + off[0], yt - oy + off[1], rt - rot)


def _add_turned(acc: np.ndarray, sprite: np.ndarray, r: int, px: float, py: float, turn: float) -> None:
    """Add ``sprite`` ((2r + 1) px square, any channels) to ``acc`` in place, turned by ``turn``
    degrees about its centre and its centre put at (px, py) of ``acc`` (px)."""
    h, w = acc.shape[:2]
    x0, y0 = max(0, int(math.floor(px)) - r - 1), max(0, int(math.floor(py)) - r - 1)
    x1, y1 = min(w, int(math.floor(px)) + r + 3), min(h, int(math.floor(py)) + r + 3)
    if x0 >= x1 or y0 >= y1:
        return
    # Both draw_die and OpenCV turn counter-clockwise on screen for a positive angle.
    m = cv2.getRotationMatrix2D((float(r), float(r)), turn, 1.0)
    m[0, 2] += px - x0 - r
    m[1, 2] += py - y0 - r
    acc[y0:y1, x0:x1] += cv2.warpAffine(sprite, m, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR,
                                        borderMode=cv2.BORDER_CONSTANT, borderValue=0)


#: Weights of B, G, R in a grey level (ITU-R BT.601 luma, as ``cv2.COLOR_BGR2GRAY``).
_LUMA = np.array([0.114, 0.587, 0.299], np.float32)


def _at_luma(bgr, luma: float) -> np.ndarray:
    """``bgr`` brought to grey level ``luma`` (0–255), as float32 BGR: scaled, then, where a channel
    would pass 255, moved towards that grey (which keeps the grey level): the hue kept."""
    c = np.asarray(bgr, np.float32)
    c = c * np.float32(luma / float(c @ _LUMA))
    if c.max() > 255.0:
        c = luma + (c - luma) * np.float32((255.0 - luma) / (float(c.max()) - luma))
    return c


def _hexagon(centre: np.ndarray, radius: float, turn: float) -> np.ndarray:
    """(6, 2) corners of a regular hexagon, ``radius`` px from ``centre`` to a corner, turned by
    ``turn`` radians."""
    a = turn + np.arange(6) * (math.pi / 3)
    return np.asarray(centre, np.float64) + radius * np.stack([np.cos(a), np.sin(a)], axis=1)


def _print(canvas: np.ndarray, text: str, centre: tuple[float, float], height: float, bgr) -> None:
    """Print ``text`` (Hershey simplex, anti-aliased) ``height`` px tall, centred on ``centre``,
    onto the float32 ``canvas`` in place."""
    font = cv2.FONT_HERSHEY_SIMPLEX
    scale = height / 22.0  # Hershey simplex digits are about 22 px tall at scale 1
    thick = max(1, int(round(height / 9)))
    (tw, th), _ = cv2.getTextSize(text, font, scale, thick)
    x0, y0 = int(round(centre[0] - tw / 2)) - 4, int(round(centre[1] - th / 2)) - 4
    m = np.zeros((th + 8, tw + 8), np.uint8)
    cv2.putText(m, text, (4, th + 4), font, scale, 255, thick, cv2.LINE_AA)
    roi = canvas[y0:y0 + m.shape[0], x0:x0 + m.shape[1]]
    a = (m[:roi.shape[0], :roi.shape[1]].astype(np.float32) / 255.0)[..., None]
    roi[:] = roi * (1 - a) + np.float32(bgr) * a
