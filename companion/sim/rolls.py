"""Simulated dice rolls seen by the overhead camera's small stream, with the true motion (issue #7 §3).

A sequence is a timeline of *actions* separated by still periods of 20 or more frames:

* **throw**: 1-4 dice enter from one edge of the frame a few frames apart, tumble (position,
  spin and top face changing, the die tilting over an edge as it rolls, motion blur), slow down
  under constant friction (speed falls linearly to 0, as for Coulomb friction) and stop;
* **hand**: a skin-coloured hand and forearm with a soft edge reach in from an edge and go back
  (a minimum-jerk reach, Flash & Hogan 1985), optionally collecting the dice under the palm;
* **push**: a resting die pushed slowly (0.4-1 px per frame at 320 px wide) for 15-30 frames.

and *nuisances* that are not motion: ±3 % light flicker (mains beating with the frame rate, plus
jitter), slow auto-exposure drift (up to ±20 % over the sequence), sensor noise (read noise plus
shot noise), a resting die rocking by under a pixel peak to peak.

Truth (:class:`RollTruth`): frame *i* is *moving* when any object the camera can see (a die or
the hand inside the frame) has a pose during frame *i*'s exposure that differs from its pose
during frame *i − 1*'s (so the first sharp frame after a blurred one still counts as moving); the
nuisances never count. Motion periods are the maximal runs of moving frames; each one's last frame
is the "last movement" that a ``settled`` event must follow within 8 frames.

Dice are drawn with :func:`companion.sim.dice.draw_die` (top face, side faces by the view
direction, shadow by :func:`companion.sim.dice.draw_die_shadow`). The table is a cloth or wood
texture with a few cards lying on it under uneven light. All randomness comes from the seed.

Sizes are in px of a 320 px wide frame and scaled with ``size`` (a 16 mm die is 9-14 px there,
a frame about 40 cm of table across); times are in frames.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import cv2
import numpy as np

from companion.sim.dice import D6_FACES, DIE_SIZE_MM, draw_die, draw_die_shadow, sushi_roll_faces

#: Scenario name → what it holds (see :func:`simulate_rolls`).
SCENARIOS: dict[str, str] = {
    "roll": "one throw of 1-4 dice",
    "rolls": "three throws, the dice staying on the table",
    "game": "throw, a hand collects the dice, throw again (twice), light noise and flicker",
    "hand": "a hand reaching in and out between two throws",
    "flicker": "two throws under ±3 % light flicker",
    "drift": "two throws under slow auto-exposure drift (±20 %)",
    "noise": "two throws with heavy sensor noise (σ ≈ 4 grey levels)",
    "rocking": "a throw, then a resting die rocking by under a pixel",
    "push": "a throw, then a die pushed slowly",
    "quiet": "resting dice, no motion: flicker, drift, noise and a rocking die only",
}
#: Frames of stillness between actions (min, max), and before the first / after the last.
GAP_FRAMES = (22, 34)
#: Shutter open for this fraction of the frame interval (motion blur length), sampled this often.
EXPOSURE = 0.5
BLUR_SAMPLES = 4


@dataclass(frozen=True)
class RollTruth:
    """What really moved, frame by frame.

    Attributes:
        moving: per frame, True when something visible moved since the previous frame
            (frame 0 is never moving).
        periods: (first, last) frame of each motion period, in order; ``last`` is the index of
            the last moving frame.
    """

    moving: tuple[bool, ...]
    periods: tuple[tuple[int, int], ...]

    @property
    def last_moving(self) -> tuple[int, ...]:
        """The last moving frame of each motion period."""
        return tuple(last for _, last in self.periods)

    @property
    def still(self) -> tuple[bool, ...]:
        """Per frame, True when nothing moved since the previous frame."""
        return tuple(not m for m in self.moving)

    @classmethod
    def from_moving(cls, moving) -> "RollTruth":
        """Periods from a per-frame moving flag (maximal runs of True)."""
        flags = tuple(bool(m) for m in moving)
        periods, start = [], None
        for i, m in enumerate(flags + (False,)):
            if m and start is None:
                start = i
            elif not m and start is not None:
                periods.append((start, i - 1))
                start = None
        return cls(flags, tuple(periods))

    def to_json(self) -> dict:
        """``{"frames": n, "periods": [[first, last], ...], "last_moving": [...], "moving": [0|1, ...]}``."""
        return {
            "frames": len(self.moving),
            "periods": [list(p) for p in self.periods],
            "last_moving": list(self.last_moving),
            "moving": [int(m) for m in self.moving],
        }

    @classmethod
    def from_json(cls, data: dict) -> "RollTruth":
        """Read :meth:`to_json`'s form back.

        Raises:
            ValueError: the moving flags are missing, not 0/1, or disagree with ``periods``.
        """
        flags = data.get("moving")
        if not isinstance(flags, list) or any(m not in (0, 1, True, False) for m in flags):
            raise ValueError("roll truth: 'moving' must be a list of 0/1 per frame")
        truth = cls.from_moving(flags)
        if "periods" in data and [list(p) for p in truth.periods] != data["periods"]:
            raise ValueError("roll truth: 'periods' disagree with the per-frame 'moving' flags")
        return truth


@dataclass
class RollSequence:
    """A simulated sequence: ``frames`` are (H, W, 3) uint8 BGR; ``truth`` what moved; ``fps``."""

    frames: list[np.ndarray]
    truth: RollTruth
    fps: float
    scenario: str
    seed: int
    actions: list[str] = field(default_factory=list)  # "throw 3 dice frames 20-41", ...


# --------------------------------------------------------------------------------------- objects

@dataclass
class _Die:
    """One die: where it is at any time (frame units, float)."""

    kind: str
    size: float  # px
    faces: list[str]  # top faces while tumbling, the last one at rest
    body: tuple[int, int, int] | None = None
    # the throw
    t_in: float = 0.0
    t_stop: float = 0.0
    entry: np.ndarray = field(default_factory=lambda: np.zeros(2))
    rest: np.ndarray = field(default_factory=lambda: np.zeros(2))
    curve: float = 0.0
    spin: float = 0.0  # deg turned while stopping
    rot_rest: float = 0.0
    tumble_until: float = 0.0  # fraction of the path rolled over edges (then it slides)
    t_gone: float = math.inf  # collected by the hand
    pushes: list[tuple[float, float, np.ndarray]] = field(default_factory=list)  # (t0, t1, displacement)
    rocks: list[tuple[float, float, float, float]] = field(default_factory=list)  # (t0, t1, amp px, period)
    nadir: tuple[float, float] = (160.0, 120.0)  # image point below the camera, px
    focal: float = 290.0  # px: the camera's perspective shows a die's sides away from the nadir

    def present(self, t: float) -> bool:
        return self.t_in <= t < self.t_gone

    def pose(self, t: float, with_rocking: bool = True) -> tuple[float, float, float, str, tuple[float, float]]:
        """(x, y, rotation deg, top face, view (dx, dy) in die heights) at time t, while present."""
        T = self.t_stop - self.t_in
        tau = min(max(t - self.t_in, 0.0), T)
        u = tau / T if T > 0 else 1.0
        s = 1.0 - (1.0 - u) ** 2  # fraction of the path: constant deceleration
        path = self.rest - self.entry
        normal = np.array([-path[1], path[0]])
        p = self.entry + path * s + normal * (self.curve * s * (1 - s))
        rot = self.rot_rest - self.spin * (1.0 - u) ** 2
        tilt = np.zeros(2)
        if s < self.tumble_until:  # rolling over edges: a new face each die length, tilted between
            rolled = s * np.linalg.norm(path) / (self.size * 1.15)
            k = int(rolled)
            face = self.faces[k % (len(self.faces) - 1)] if len(self.faces) > 1 else self.faces[0]
            tilt = path / (np.linalg.norm(path) + 1e-9) * (0.45 * math.sin(math.pi * (rolled - k)))
        else:
            face = self.faces[-1]
        for t0, t1, disp in self.pushes:
            if t >= t0:
                f = min((t - t0) / (t1 - t0), 1.0)
                # a finger push: speed ramps up and down over the first and last few frames
                f = f * f * (3 - 2 * f) if (t1 - t0) < 6 else _ramp(f, 3.0 / (t1 - t0))
                p = p + disp * f
        if with_rocking:
            for t0, t1, amp, period in self.rocks:
                if t0 <= t < t1:
                    k = math.sin(2 * math.pi * (t - t0) / period) * math.exp(-2.0 * (t - t0) / (t1 - t0))
                    p = p + np.array([0.83 * amp * k, 0.55 * amp * k])  # |offset| ≤ amp
                    rot += 0.3 * k
        # the camera's perspective shows the sides facing it (dice.py's view), plus the tumble's tilt
        view = (p - np.asarray(self.nadir)) / self.focal + tilt
        return float(p[0]), float(p[1]), float(rot), face, (float(view[0]), float(view[1]))


def _ramp(f: float, edge: float) -> float:
    """Travelled fraction at time fraction f of a trapezoid speed profile with ramps of ``edge``."""
    edge = min(max(edge, 1e-6), 0.5)
    vmax = 1.0 / (1.0 - edge)
    if f < edge:
        return 0.5 * vmax * f * f / edge
    if f > 1 - edge:
        g = 1.0 - f
        return 1.0 - 0.5 * vmax * g * g / edge
    return 0.5 * vmax * edge + vmax * (f - edge)


@dataclass
class Hand:
    """A hand and forearm reaching in from ``base`` (on the frame edge) along ``direction``."""

    base: np.ndarray
    direction: np.ndarray
    reach: float  # px the fingertips go inside the frame at the turn
    t0: float
    t_turn: float
    t1: float
    skin: tuple[float, float, float]
    scale: float  # px per mm

    def depth(self, t: float) -> float:
        """How far the fingertips are inside the frame at t, px (≤ 0: out of sight)."""
        if t <= self.t0 or t >= self.t1:
            return -1e6
        if t <= self.t_turn:
            u = (t - self.t0) / (self.t_turn - self.t0)
        else:
            u = (self.t1 - t) / (self.t1 - self.t_turn)
        mj = 10 * u**3 - 15 * u**4 + 6 * u**5  # minimum-jerk profile
        return -30.0 + (self.reach + 30.0) * mj

    def visible(self, t: float) -> bool:
        """Whether any of the hand is inside the frame at t (a fingertip's round end and soft edge)."""
        return self.depth(t) > -(10.0 * self.scale + 2.0)

    def draw_mask(self, mask: np.ndarray, t: float, ss: int = 4) -> None:
        """Draw the hand's coverage (0-255) into the uint8 ``mask`` at time t, anti-aliased."""
        tip = self.base + self.direction * self.depth(t)
        d = self.direction
        n = np.array([-d[1], d[0]])
        mm = self.scale
        palm_len, palm_w, arm_w = 100 * mm, 84 * mm, 62 * mm
        finger_len, finger_w = 75 * mm, 17 * mm
        knuckles = tip - d * finger_len
        wrist = knuckles - d * palm_len
        elbow = wrist - d * 400 * mm

        def P(p):
            return tuple(int(round(v * (1 << 2))) for v in p)

        shift = 2
        # forearm and palm as thick lines (capsules), fingers fanned slightly
        cv2.line(mask, P(elbow), P(wrist), 255, max(1, int(round(arm_w))), cv2.LINE_AA, shift)
        cv2.ellipse(mask, P((wrist + knuckles) / 2), (int(palm_len * 0.55 * 4), int(palm_w * 0.5 * 4)),
                    math.degrees(math.atan2(d[1], d[0])), 0, 360, 255, -1, cv2.LINE_AA, shift)
        for k, off in enumerate((-1.5, -0.5, 0.5, 1.5)):
            base = knuckles + n * off * finger_w * 1.05
            length = finger_len * (0.85, 1.0, 0.97, 0.8)[k]
            end = base + d * length + n * off * 4 * mm
            cv2.line(mask, P(base), P(end), 255, max(1, int(round(finger_w))), cv2.LINE_AA, shift)
        thumb0 = wrist + d * palm_len * 0.45 - n * palm_w * 0.4
        cv2.line(mask, P(thumb0), P(thumb0 + (d * 0.8 - n * 0.6) * 50 * mm), 255,
                 max(1, int(round(20 * mm))), cv2.LINE_AA, shift)


# ------------------------------------------------------------------------------------- the table

def _smooth_noise(rng: np.random.Generator, shape: tuple[int, int], cells: tuple[int, int]) -> np.ndarray:
    small = rng.normal(0.0, 1.0, (cells[1], cells[0])).astype(np.float32)
    return cv2.resize(small, (shape[1], shape[0]), interpolation=cv2.INTER_CUBIC)


def _table(rng: np.random.Generator, size: tuple[int, int], scale: float) -> np.ndarray:
    """A (H, W, 3) float32 BGR table: cloth or wood, with a few cards lying on it."""
    w, h = size
    if rng.random() < 0.5:  # a felt or cloth mat
        base = np.array(rng.choice([(70, 95, 40), (60, 60, 120), (95, 80, 60), (120, 120, 118)]), np.float32)
        tex = _smooth_noise(rng, (h, w), (32, 24)) * 4 + rng.normal(0, 3, (h, w)).astype(np.float32)
        img = base[None, None, :] + tex[..., None]
    else:  # wood: grain along x
        base = np.array(rng.choice([(60, 105, 160), (45, 80, 125), (90, 140, 185)]), np.float32)
        y = np.arange(h, dtype=np.float32)[:, None] + _smooth_noise(rng, (h, w), (6, 4)) * 6
        grain = np.sin(y / (2.5 * max(scale, 0.2)) * rng.uniform(0.6, 1.2)) * 8
        grain += _smooth_noise(rng, (h, w), (40, 6)) * 6
        img = base[None, None, :] * (1 + grain[..., None] / 100.0)
    img = np.ascontiguousarray(img, dtype=np.float32)
    for _ in range(int(rng.integers(1, 4))):  # cards: pale rectangles with a coloured band
        cw, ch = 44 * scale, 63 * scale
        c = (rng.uniform(0.05, 0.95) * w, rng.uniform(0.05, 0.95) * h)
        box = cv2.boxPoints((c, (cw, ch), float(rng.uniform(0, 180))))
        band = np.array([box[0], box[1], box[1] + (box[2] - box[1]) * 0.3, box[0] + (box[3] - box[0]) * 0.3])
        colour = tuple(float(v) for v in rng.integers(40, 220, 3))
        for poly, bgr in ((box, (225.0, 232.0, 236.0)), (band, colour)):
            m = np.zeros((h, w), np.uint8)  # anti-aliased coverage, then blend (AA needs 8-bit)
            cv2.fillConvexPoly(m, np.round(poly * 16).astype(np.int32), 255, cv2.LINE_AA, shift=4)
            a = (m.astype(np.float32) / 255.0)[..., None]
            img = img * (1 - a) + np.array(bgr, np.float32) * a
    return img


def _illumination(rng: np.random.Generator, size: tuple[int, int]) -> np.ndarray:
    """(H, W, 1) float32 light: a lamp off-centre (falling to ~75 % at the far corner)."""
    w, h = size
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    cx, cy = rng.uniform(0.2, 0.8) * w, rng.uniform(0.2, 0.8) * h
    r2 = ((xx - cx) ** 2 + (yy - cy) ** 2) / float(w * w + h * h)
    return (1.0 - 0.3 * r2)[..., None].astype(np.float32)


# ------------------------------------------------------------------------------------ the script

def _new_die(rng: np.random.Generator, kinds: str, scale: float) -> _Die:
    if kinds == "d6" or (kinds == "mixed" and rng.random() < 0.4):
        kind, faces = "d6", list(D6_FACES)
    else:
        roll_faces = sushi_roll_faces()
        kind = str(rng.choice(sorted(roll_faces)))
        faces = list(roll_faces[kind])
    size = DIE_SIZE_MM * scale * rng.uniform(0.92, 1.08)
    tumble = [str(rng.choice(faces)) for _ in range(int(rng.integers(4, 8)))]
    return _Die(kind=kind, size=size, faces=tumble)


def _free_spot(rng: np.random.Generator, size: tuple[int, int], taken: list[tuple[np.ndarray, float]],
               die: float) -> np.ndarray:
    w, h = size
    for _ in range(200):
        p = np.array([rng.uniform(0.12, 0.88) * w, rng.uniform(0.15, 0.85) * h])
        if all(np.linalg.norm(p - q) > 1.9 * max(die, r) for q, r in taken):
            return p
    raise RuntimeError("no free spot left on the simulated table")  # pragma: no cover - never with ≤ 12 dice


def _edge_point(rng: np.random.Generator, size: tuple[int, int], edge: int, margin: float) -> np.ndarray:
    w, h = size
    along = rng.uniform(0.2, 0.8)
    return [np.array([-margin, along * h]), np.array([w + margin, along * h]),
            np.array([along * w, -margin]), np.array([along * w, h + margin])][edge]


class _Script:
    """Builds the timeline of one sequence (dice, hands, nuisances)."""

    def __init__(self, rng: np.random.Generator, size: tuple[int, int], kinds: str) -> None:
        self.rng, self.size, self.kinds = rng, size, kinds
        self.scale = size[0] / 320.0 * rng.uniform(0.62, 0.82)  # px per mm at this frame width
        self.dice: list[_Die] = []
        self.hands: list[Hand] = []
        self.t = 0
        self.actions: list[str] = []

    def gap(self, lo_hi: tuple[int, int] = GAP_FRAMES) -> None:
        self.t += int(self.rng.integers(lo_hi[0], lo_hi[1] + 1))

    def resting(self, t: float) -> list[_Die]:
        return [d for d in self.dice if d.present(t) and d.t_stop <= t]

    def throw(self, n: int | None = None) -> None:
        rng = self.rng
        n = int(rng.integers(1, 5)) if n is None else n
        edge = int(rng.integers(0, 4))
        taken = [(np.array(d.pose(self.t)[:2]), d.size) for d in self.resting(self.t)]
        t0, end = self.t, self.t
        for j in range(n):
            d = _new_die(rng, self.kinds, self.scale)
            d.t_in = t0 + j * int(rng.integers(0, 3))  # the dice leave the hand together, within 2 frames
            d.rest = _free_spot(rng, self.size, taken, d.size)
            taken.append((d.rest, d.size))
            d.entry = _edge_point(rng, self.size, edge, d.size * 1.2)
            # a tumbling die loses speed fast: 0.6-2 px/frame² at 320 px wide (≈ 0.8-2.6 m/s² at
            # 0.7 px/mm and 30 fps, below sliding friction on felt, μ·g ≈ 3-5 m/s²)
            decel = float(rng.uniform(0.6, 2.0)) * self.size[0] / 320.0
            distance = float(np.linalg.norm(d.rest - d.entry))
            d.t_stop = d.t_in + max(6, round(math.sqrt(2.0 * distance / decel)))
            d.nadir = (self.size[0] / 2.0, self.size[1] / 2.0)
            d.focal = 0.9 * self.size[0]  # about 58° across, a Pi camera's standard lens
            d.curve = float(rng.uniform(-0.25, 0.25))
            d.rot_rest = float(rng.uniform(0, 360))
            d.spin = float(rng.uniform(90, 600)) * rng.choice([-1, 1])
            d.tumble_until = float(rng.uniform(0.5, 0.85))
            self.dice.append(d)
            end = max(end, int(d.t_stop))
        self.actions.append(f"throw {n} dice, frames {t0}-{end}")
        self.t = end

    def hand(self, collect: bool) -> None:
        rng = self.rng
        w, h = self.size
        resting = self.resting(self.t)
        edge = int(rng.integers(0, 4))
        base = _edge_point(rng, self.size, edge, 0.0)
        target = (np.mean([d.pose(self.t)[:2] for d in resting], axis=0) if resting and collect
                  else np.array([rng.uniform(0.3, 0.7) * w, rng.uniform(0.3, 0.7) * h]))
        direction = target - base
        reach = float(np.linalg.norm(direction))
        direction = direction / reach
        # the palm's centre (125 mm behind the fingertips) comes over the target
        hand = Hand(base=base, direction=direction, reach=reach + 125 * self.scale, t0=self.t,
                     t_turn=self.t + int(rng.integers(15, 25)), t1=0.0,
                     skin=(float(rng.uniform(95, 130)), float(rng.uniform(130, 165)), float(rng.uniform(180, 220))),
                     scale=self.scale)
        hand.t1 = hand.t_turn + int(rng.integers(15, 25))
        self.hands.append(hand)
        if collect:
            for d in resting:  # the hand closes over them at the turn and takes them away
                d.t_gone = hand.t_turn
        self.actions.append(f"hand {'collects dice' if collect else 'reaches in and out'}, frames {hand.t0}-{hand.t1}")
        self.t = int(hand.t1)

    def push(self) -> None:
        rng = self.rng
        resting = self.resting(self.t)
        if not resting:
            return
        d = resting[int(rng.integers(0, len(resting)))]
        frames = int(rng.integers(15, 31))
        speed = float(rng.uniform(0.4, 1.0)) * self.size[0] / 320.0
        a = rng.uniform(0, 2 * math.pi)
        d.pushes.append((float(self.t), float(self.t + frames), np.array([math.cos(a), math.sin(a)]) * speed * frames))
        self.actions.append(f"push a die {speed:.2f} px/frame, frames {self.t}-{self.t + frames}")
        self.t += frames

    def rock(self, frames: int) -> None:
        rng = self.rng
        resting = self.resting(self.t)
        if not resting:
            return
        d = resting[int(rng.integers(0, len(resting)))]
        amp = float(rng.uniform(0.25, 0.45)) * self.size[0] / 320.0  # peak to peak < 1 px
        d.rocks.append((float(self.t), float(self.t + frames), amp, float(rng.uniform(3.0, 8.0))))
        self.actions.append(f"a die rocks ±{amp:.2f} px, frames {self.t}-{self.t + frames}")


def _build(scenario: str, rng: np.random.Generator, size: tuple[int, int]):
    """(script, nuisances) for a scenario; nuisances: flicker, drift, noise σ (grey levels)."""
    kinds = str(rng.choice(["d6", "sushi-roll", "mixed"]))
    s = _Script(rng, size, kinds)
    flicker, drift, noise = 0.0, 0.0, float(rng.uniform(1.0, 2.5))
    s.gap((12, 20))
    if scenario == "roll":
        s.throw()
    elif scenario == "rolls":
        for k in range(3):
            s.throw(int(rng.integers(1, 3)))
            if k < 2:
                s.gap()
    elif scenario == "game":
        flicker = 0.015
        for k in range(2):
            s.throw(int(rng.integers(2, 5)))
            s.gap()
            s.hand(collect=True)
            s.gap()
        s.throw(int(rng.integers(2, 5)))
    elif scenario == "hand":
        s.throw(2)
        s.gap()
        s.hand(collect=False)
        s.gap()
        s.throw(1)
    elif scenario in ("flicker", "drift", "noise"):
        flicker = 0.03 if scenario == "flicker" else 0.0
        drift = float(rng.choice([-1, 1])) * float(rng.uniform(0.12, 0.2)) if scenario == "drift" else 0.0
        noise = float(rng.uniform(3.5, 4.5)) if scenario == "noise" else noise
        s.throw()
        s.gap()
        s.throw()
    elif scenario == "rocking":
        s.throw()
        s.gap((6, 10))
        frames = int(rng.integers(15, 30))
        s.rock(frames)
        s.t += frames
    elif scenario == "push":
        s.throw(int(rng.integers(1, 4)))
        s.gap()
        s.push()
    elif scenario == "quiet":
        # dice already lie on the table at frame 0: the throw is in the past
        s.t = -200
        s.throw(int(rng.integers(2, 5)))
        s.t = 10
        s.rock(40)
        s.t = 30
        flicker, drift, noise = 0.03, 0.15, float(rng.uniform(2.0, 4.0))
        s.t = 90
    else:
        raise ValueError(f"unknown roll scenario {scenario!r}; scenarios are: {', '.join(SCENARIOS)}")
    s.gap()
    return s, (flicker, drift, noise)


# ------------------------------------------------------------------------------------- rendering

def _visible(x: float, y: float, r: float, size: tuple[int, int]) -> bool:
    return -r < x < size[0] + r and -r < y < size[1] + r


def _appearance(script: _Script, i: int) -> tuple:
    """What decides frame i's pixels apart from the nuisances: every visible object's pose over
    the frame's exposure (start, middle, end), rocking left out."""
    times = (i - EXPOSURE, i - EXPOSURE / 2, i)
    size = script.size
    key = []
    for k, d in enumerate(script.dice):
        poses = tuple(d.pose(t, with_rocking=False) if d.present(t) else None for t in times)
        if any(p is not None and _visible(p[0], p[1], d.size, size) for p in poses):
            key.append((k, poses))
    for k, hd in enumerate(script.hands):
        if any(hd.visible(t) for t in times):
            key.append((-1 - k, tuple(hd.depth(t) for t in times)))
    return tuple(key)


def _truth(script: _Script, n: int) -> RollTruth:
    """Frame i moves when its appearance key differs from frame i − 1's (see :class:`RollTruth`)."""
    keys = [_appearance(script, i) for i in range(n)]
    return RollTruth.from_moving([False] + [keys[i] != keys[i - 1] for i in range(1, n)])


def _shadows(shape: tuple[int, int], dice: list[tuple[_Die, float]]) -> np.ndarray:
    """(H, W) float32 footprint map (0-1) of each (die, time)'s drop shadow, unblurred."""
    shadow = np.zeros(shape, np.float32)
    for d, t in dice:
        x, y, rot, _, _ = d.pose(t)
        draw_die_shadow(shadow, (x, y), d.size, rot)
    return shadow


def _draw_dice(canvas: np.ndarray, dice: list[tuple[_Die, float]]) -> None:
    """Draw each (die, time) onto ``canvas`` in place."""
    for d, t in dice:
        x, y, rot, face, view = d.pose(t)
        draw_die(canvas, d.kind, face, (x, y), d.size, rot, view=view, body_bgr=d.body)


def _shade(canvas: np.ndarray, shadow: np.ndarray, blur: float, strength: float = 0.45) -> np.ndarray:
    """The table darkened under a soft shadow (``shadow`` blurred by ``blur`` px)."""
    if not shadow.any():
        return canvas
    s = cv2.GaussianBlur(shadow, (0, 0), blur)
    return canvas * (1.0 - strength * s)[..., None]


class _Renderer:
    def __init__(self, script: _Script, rng: np.random.Generator, nuisances, n: int) -> None:
        self.s = script
        self.size = script.size
        self.table = _table(rng, self.size, script.scale)
        self.light = _illumination(rng, self.size)
        self.flicker, self.drift, self.noise = nuisances
        self.rng = rng
        self.n = n
        self._static_key = None
        self._static = None
        self.shadow_blur = 1.2 * self.size[0] / 320.0
        # per-pixel noise grows with the resolution (the small stream averages the sensor's pixels)
        self.sigma = self.noise * min(self.size[0] / 320.0, 3.0)
        w, h = self.size
        self.bank = rng.standard_normal((2 * h, 2 * w, 3), dtype=np.float32)
        phase, beat = rng.uniform(0, 2 * math.pi), rng.uniform(0.08, 0.34)  # mains flicker aliased by the frame rate
        i = np.arange(n)
        fl = 0.7 * np.sin(2 * math.pi * beat * i + phase) + 0.3 * rng.uniform(-1, 1, n)
        u = np.clip(i / max(n - 1, 1), 0, 1)
        self.gain = (1.0 + self.flicker * fl) * (1.0 + self.drift * (u * u * (3 - 2 * u)))

    def _static_layer(self, still: list[_Die], t: int) -> np.ndarray:
        """The table with the dice at rest and their shadows, cached while they stay put."""
        key = tuple((id(d), d.pose(t)) for d in still)
        if key != self._static_key:
            placed = [(d, t) for d in still]
            canvas = _shade(self.table, _shadows(self.table.shape[:2], placed), self.shadow_blur)
            _draw_dice(canvas, placed)
            self._static = canvas
            self._static_key = key
        return self._static

    def frame(self, i: int) -> np.ndarray:
        """Frame i, (H, W, 3) uint8 BGR."""
        s = self.s
        ends = (i - EXPOSURE, i)
        present = [d for d in s.dice if d.present(i)]
        still, moving, travel = [], [], 0.0
        for d in present:
            a, b = d.pose(ends[0]), d.pose(ends[1])
            if a == b == d.pose(i - EXPOSURE / 2):
                still.append(d)
            else:
                moving.append(d)
                travel = max(travel, math.hypot(a[0] - b[0], a[1] - b[1]))
        for hd in s.hands:
            if hd.visible(i) or hd.visible(i - EXPOSURE):
                travel = max(travel, abs(hd.depth(i) - hd.depth(i - EXPOSURE)))
        # enough shutter samples that the blur is a streak (≤ 1.5 px apart), not separate copies
        n = max(BLUR_SAMPLES, min(16, math.ceil(travel / 1.5) + 1))
        times = [i - EXPOSURE * k / (n - 1) for k in range(n)]
        img = self._static_layer(still, i)
        if moving:
            # motion blur: the shadows' average darkens the table, the dice are averaged over the shutter
            placed = [[(d, t) for d in moving if d.present(t)] for t in times]
            shadow = sum(_shadows(img.shape[:2], p) for p in placed) / len(times)
            base = _shade(img, shadow, self.shadow_blur)
            acc = np.zeros_like(base)
            for p in placed:
                canvas = base.copy()
                _draw_dice(canvas, p)
                acc += canvas
            img = acc / len(times)
        for hd in s.hands:
            if any(hd.visible(t) for t in times):
                img = draw_hand(img, hd, times)
        img = img * self.light * float(self.gain[i])
        # read noise plus shot noise (variance grows with the signal), from a bank of normal
        # deviates cropped at a random place each frame (drawing 230 000 new ones per frame is
        # most of the rendering time)
        h, w = img.shape[:2]
        y0, x0 = int(self.rng.integers(0, h)), int(self.rng.integers(0, w))
        sd = np.sqrt(self.sigma**2 + 0.01 * np.clip(img, 0, 255))
        img = img + self.bank[y0 : y0 + h, x0 : x0 + w] * sd
        return np.clip(img + 0.5, 0, 255).astype(np.uint8)

def draw_hand(img: np.ndarray, hd: Hand, times: list[float]) -> np.ndarray:
    """``img`` (H, W, 3) float or uint8 BGR with the hand ``hd`` drawn over it, its shadow beside it,
    blurred over the exposure ``times`` (frame units); returns (H, W, 3) float32."""
    h, w = img.shape[:2]
    acc = np.zeros((h, w), np.float32)
    for t in times:
        m = np.zeros((h, w), np.uint8)
        hd.draw_mask(m, t)
        acc += m
    cover = cv2.GaussianBlur(acc / (255.0 * len(times)), (0, 0), 0.8 * w / 320.0)
    off = np.float32([[1, 0, 9 * w / 320.0], [0, 1, 12 * w / 320.0]])
    shadow = cv2.GaussianBlur(cv2.warpAffine(cover, off, (w, h)), (0, 0), 5 * w / 320.0)
    img = img * (1.0 - 0.35 * shadow)[..., None]
    # skin, lighter along the middle of the arm (a rounded limb lit from above)
    core = cv2.GaussianBlur(cover, (0, 0), 4 * w / 320.0)
    skin = np.array(hd.skin, np.float32)[None, None, :] * (0.78 + 0.3 * core)[..., None]
    return img * (1.0 - cover[..., None]) + skin * cover[..., None]


def simulate_rolls(seed: int, scenario: str = "roll", size: tuple[int, int] = (320, 240),
                   fps: float = 30.0) -> RollSequence:
    """Render one simulated sequence with its truth.

    Args:
        seed: all randomness (table, dice, timing, noise) comes from it.
        scenario: one of :data:`SCENARIOS`.
        size: (w, h) px of the frames; 320 × 240 is the Pi's small stream. Geometry scales with w.
        fps: frames per second (only recorded in the result: the timeline is in frames).

    Returns:
        A :class:`RollSequence` of (h, w, 3) uint8 BGR frames.

    Raises:
        ValueError: an unknown scenario or a size below 64 × 48.
    """
    if scenario not in SCENARIOS:
        raise ValueError(f"unknown roll scenario {scenario!r}; scenarios are: {', '.join(SCENARIOS)}")
    w, h = int(size[0]), int(size[1])
    if w < 64 or h < 48:
        raise ValueError(f"roll frames must be at least 64 × 48 px, not {w} × {h}")
    rng = np.random.default_rng([seed, sorted(SCENARIOS).index(scenario)])
    script, nuisances = _build(scenario, rng, (w, h))
    n = max(int(script.t), 1)
    renderer = _Renderer(script, rng, nuisances, n)
    frames = [renderer.frame(i) for i in range(n)]
    return RollSequence(frames, _truth(script, n), float(fps), scenario, int(seed), list(script.actions))


def write_sequence(seq: RollSequence, folder: str | Path, quality: int = 80) -> Path:
    """Write a sequence as ``frame000.jpg`` … plus ``truth.json`` into ``folder``; returns the folder.

    ``truth.json``: ``{"scenario", "seed", "fps", "actions", "truth": RollTruth.to_json()}``.

    Raises:
        OSError: the folder or a file cannot be written.
    """
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    for i, frame in enumerate(seq.frames):
        ok, buf = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, int(quality)])
        if not ok:  # pragma: no cover - imencode of a uint8 BGR array does not fail
            raise OSError(f"cannot encode frame {i} as JPEG")
        (out / f"frame{i:03d}.jpg").write_bytes(buf.tobytes())
    meta = {"scenario": seq.scenario, "seed": seq.seed, "fps": seq.fps, "actions": seq.actions,
            "truth": seq.truth.to_json()}
    (out / "truth.json").write_text(json.dumps(meta, indent=1) + "\n")
    return out


@dataclass
class EventJudgement:
    """How a detector's events compare with a :class:`RollTruth` (see :func:`judge_events`).

    Attributes:
        latencies: for each settle that came in time, its frame minus the period's last moving frame.
        move_delays: for each ``moving`` event inside a motion period, its frame minus the period's first.
        missed: motion periods followed by ``within`` still frames with no ``settled`` in them.
        late: ``settled`` events that came in the right still period but after ``within`` frames.
        while_moving: ``settled`` events decided at a moving frame.
        duplicates: a second ``settled`` in one still period, or one before any motion.
        spurious_moves: ``moving`` events at a still frame.
        missed_moves: motion periods after a settle with no ``moving`` event in them.
    """

    latencies: list[int] = field(default_factory=list)
    move_delays: list[int] = field(default_factory=list)
    missed: int = 0
    late: int = 0
    while_moving: int = 0
    duplicates: int = 0
    spurious_moves: int = 0
    missed_moves: int = 0

    @property
    def ok(self) -> bool:
        """Every settle in time, none while moving, no extra events."""
        return not (self.missed or self.late or self.while_moving or self.duplicates
                    or self.spurious_moves or self.missed_moves)


def judge_events(truth: RollTruth, events, within: int = 8) -> EventJudgement:
    """Compare ``moving``/``settled`` events (objects with ``kind`` and ``frame``) with the truth.

    A ``settled`` belongs to the still run it falls in, i.e. to the motion period just before it;
    it must come within ``within`` frames of that period's last moving frame (issue #7 §3: 8). A
    period needs a settle only when the still run after it is at least ``within`` frames long. A
    ``moving`` must fall inside a motion period; a period needs one when a settle came before it.
    """
    out = EventJudgement()
    moving = truth.moving
    n = len(moving)
    period_of = [-1] * n  # frame → index of the motion period it belongs to or follows
    for k, (first, last) in enumerate(truth.periods):
        end = truth.periods[k + 1][0] if k + 1 < len(truth.periods) else n
        for i in range(first, end):
            period_of[i] = k
    settled_in: dict[int, int] = {}
    moved_in: set[int] = set()
    for e in sorted(events, key=lambda e: e.frame):
        i = e.frame
        if not 0 <= i < n:
            raise ValueError(f"event {e.kind} at frame {i}: the sequence has frames 0-{n - 1}")
        k = period_of[i]
        if e.kind == "moving":
            if moving[i]:
                moved_in.add(k)
                out.move_delays.append(i - truth.periods[k][0])
            else:
                out.spurious_moves += 1
        elif e.kind == "settled":
            if moving[i]:
                out.while_moving += 1
            elif k < 0 or k in settled_in:
                out.duplicates += 1
            elif i - truth.periods[k][1] > within:
                settled_in[k] = i
                out.late += 1
            else:
                settled_in[k] = i
                out.latencies.append(i - truth.periods[k][1])
        else:
            raise ValueError(f"unknown event kind {e.kind!r}")
    for k, (first, last) in enumerate(truth.periods):
        end = truth.periods[k + 1][0] if k + 1 < len(truth.periods) else n
        if end - last - 1 >= within and k not in settled_in:
            out.missed += 1
        if k > 0 and (k - 1) in settled_in and k not in moved_in:
            out.missed_moves += 1
        if k == 0 and k not in moved_in:
            out.missed_moves += 1
    return out


#: The recorded fixture tests/fixtures/rolls/: scenario, seed (kept apart from the tests' and
#: the bench's seeds) and the frames kept.
FIXTURE = {"scenario": "roll", "seed": 900, "max_frames": 60}


def write_fixture(folder: str | Path) -> Path:
    """Re-make ``tests/fixtures/rolls/`` (one short roll, ≤ 60 JPEG frames, ``truth.json``).

    Raises:
        OSError: the folder cannot be written.
    """
    seq = simulate_rolls(FIXTURE["seed"], FIXTURE["scenario"])
    keep = FIXTURE["max_frames"]
    seq = RollSequence(seq.frames[:keep], RollTruth.from_moving(seq.truth.moving[:keep]), seq.fps,
                       seq.scenario, seq.seed, seq.actions)
    return write_sequence(seq, folder)


if __name__ == "__main__":  # python -m companion.sim.rolls DIR: write the fixture there
    import sys

    print(write_fixture(sys.argv[1] if len(sys.argv) > 1 else "tests/fixtures/rolls"))
