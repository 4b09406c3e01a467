"""Seeing a roll settle: is anything on the table moving, and when has it stopped? (issue #7 §3)

Three parts, so each can be tested and replaced alone:

* :class:`FrameDifference` — pixels → a :class:`MotionScore` per frame (frame differencing on the
  small stream, grey, about 320 × 240);
* :class:`SettleLogic` — a pure state machine fed one "moving or not" per frame, plus outside
  events such as :meth:`SettleLogic.shaken` (a dice tray's accelerometer, a later peripheral); it
  emits ``moving`` and ``settled`` :class:`MotionEvent` s;
* :class:`SettleDetector` — the two together, fed ``(frame, t)`` one frame at a time (BGR or grey,
  any size), as ``companion watch`` and the live game loop use it.

**The difference** (:meth:`FrameDifference.measure`). Plain frame differencing (OpenCV tutorial
"How to Use Background Subtraction Methods"; ``cv2.absdiff``) with four changes that make it ignore
what the issue says is not motion:

1. *Light flicker and auto-exposure drift* are a change of global gain. Before comparing frame A
   with frame B, B is scaled by the gain that maps it onto A: the median, over a 16 × 12 grid of
   block means (``cv2.resize`` ``INTER_AREA``), of the ratio A/B. A median ignores the blocks a
   hand or a die changes as long as they are fewer than half. A clipped pixel (≥ 250) of B is
   never called darker than A after scaling: its true brightness is unknown.
2. *Sensor noise*: a 3 × 3 Gaussian blur first; then a pixel counts as changed only if it differs
   by more than ``k_sigma`` times a running estimate of the frame-to-frame noise (and never by
   less than ``min_level`` grey levels). The noise estimate is the robust spread of the difference
   over every 4th pixel of the frame, averaged over quiet frames.
3. *A die rocking by under a pixel*: each pixel is compared with the lightest and darkest value
   in the 3 × 3 neighbourhood of the same place in the other frame (``cv2.dilate``/``cv2.erode``),
   so an edge that shifted by at most ``tolerance_px`` (1 px) leaves no difference. This is the
   neighbourhood-tolerant change test used against camera jitter in change detection.
4. *Slow creep* (a die pushed slowly, by less than a pixel per frame): each frame is compared with
   a *reference* that is the previous frame while things move, and the first quiet frame of the
   still run once they stop. A slow push adds up against that frame and is caught once it passes
   the tolerance; a rocking die stays within it. (Comparing with the previous frame as well adds
   nothing while moving, where the two are one frame, and while still it only sees a rocking die
   twice as far from where it last was as from where it rests: on the simulated rolls it made
   the only false ``moving`` of a rocking die, so it is not used.)

A frame is *moving* when at least ``min_changed_px`` pixels changed against the reference.

**The decision** (:class:`SettleLogic`). ``still`` (nothing seen moving yet) → ``moving`` (emit
``moving``) → ``settling`` (quiet frames counted) → ``settled`` after ``settle_frames`` quiet
frames in a row (emit ``settled``, once per still period) → ``moving`` again on the next motion.
With ``settle_frames`` = 6 the ``settled`` event comes 6 frames (200 ms at 30 fps) after the
last frame seen moving, inside the issue's 8 frames. A die's last frames before it stops move it
by less than the tolerance each; they add up against the reference, so a creep that would outlast
the 6 frames is seen (bench/watch.py: no settle before the last movement on 200 simulated
sequences, latency 2-6 frames).

Parameters are in frames (of the stream fed) and in px of the working image, about 320 px wide
(:data:`WORK_WIDTH`); at that size a 16 mm die seen over a 45 cm wide table is about 11 px.

Real camera: picamera2's lores stream is YUV420, whose Y plane is already the grey image this
needs (``companion.devices.camera`` converts it to BGR for the other readers; the grey
conversion here costs about 0.1 ms).

Limits: a push slower than about 0.3 px a frame (1 cm/s at 0.7 px/mm and 30 fps) can go quiet
for ``settle_frames`` frames between the moments its total passes the tolerance: it is then seen
as a few short moves, each followed by a ``settled``; a change of light that is
not the same gain everywhere (a shadow crossing the table) is motion, as it should be for a camera
that must read the table again afterwards.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

#: Frames wider than ``WORK_WIDTH * 1.25`` px are shrunk to this width before differencing.
WORK_WIDTH = 320

MOVING = "moving"
SETTLED = "settled"


@dataclass(frozen=True)
class MotionParams:
    """The frame difference's parameters, in px of the working image (about 320 × 240).

    Attributes:
        blur_px: Gaussian blur kernel side (odd px, 1 = no blur) applied before differencing.
        tolerance_px: an edge may shift this far (px, 0 or 1) and not count as changed.
        k_sigma: a pixel changed when it differs by more than this many noise standard deviations.
        min_level: ... and never by less than this many grey levels (0-255).
        min_changed_px: a frame is moving when at least this many pixels changed (about a
            sixth of a die's top face at 320 px wide; on the simulated rolls a rocking die,
            flicker and noise change at most 3, a die moving 2 px about 20).
        noise_alpha: weight of each quiet frame in the running noise estimate (an exponential
            average over about 1 / noise_alpha frames).
        gain_grid: (columns, rows) of the block grid the global gain is measured on.
    """

    blur_px: int = 3
    tolerance_px: int = 1
    k_sigma: float = 5.0
    min_level: float = 12.0
    min_changed_px: int = 8
    noise_alpha: float = 0.05
    gain_grid: tuple[int, int] = (16, 12)

    def __post_init__(self) -> None:
        if self.blur_px < 1 or self.blur_px % 2 == 0:
            raise ValueError(f"MotionParams.blur_px must be an odd number ≥ 1, not {self.blur_px}")
        if self.tolerance_px not in (0, 1, 2):
            raise ValueError(f"MotionParams.tolerance_px must be 0, 1 or 2, not {self.tolerance_px}")
        if self.min_changed_px < 1:
            raise ValueError(f"MotionParams.min_changed_px must be ≥ 1, not {self.min_changed_px}")
        if not 0.0 < self.noise_alpha <= 1.0:
            raise ValueError(f"MotionParams.noise_alpha must be in (0, 1], not {self.noise_alpha}")


@dataclass(frozen=True)
class MotionScore:
    """What one frame's difference found.

    Attributes:
        changed: pixels changed against the reference (px of the working image).
        reference_age: frames between the reference and this frame (1: the previous frame, as
            while moving; more: the first quiet frame of the still run).
        threshold: the grey-level difference (0-255) a pixel had to exceed.
        noise: the running estimate of the frame-to-frame noise, grey levels (standard deviation).
        gain: the gain (this frame → the reference) that was divided out, 1.0 = unchanged.
        moving: ``changed >= min_changed_px``.
    """

    changed: int
    reference_age: int
    threshold: float
    noise: float
    gain: float
    moving: bool


#: Grey level from which a pixel counts as clipped (its true brightness may be higher).
CLIPPED = 250


@dataclass(frozen=True)
class _Prepared:
    """A frame ready for comparison: blurred grey, its 3 × 3 max/min, its block means."""

    grey: np.ndarray  # (h, w) uint8
    hi: np.ndarray  # (h, w) uint8, dilated
    lo: np.ndarray  # (h, w) uint8, eroded
    blocks: np.ndarray  # (rows, cols) float32
    unclipped: np.ndarray | None  # (h, w) uint8 255 where no clipped pixel reached the blur; None: none clipped


class FrameDifference:
    """Frame differencing for motion: feed grey frames one by one, get a :class:`MotionScore`.

    Args:
        params: thresholds and sizes (px of the frames fed).

    :meth:`measure` takes (h, w) uint8 grey frames, all the same size (any size, but the
    parameters assume about 320 × 240). The first frame is the reference and scores as still.
    See the module docstring for the method.
    """

    def __init__(self, params: MotionParams | None = None) -> None:
        self.params = params or MotionParams()
        k = 2 * self.params.tolerance_px + 1
        self._kernel = np.ones((k, k), np.uint8)
        self.reset()

    def reset(self) -> None:
        """Forget every frame seen: the next frame becomes the reference."""
        self._ref: _Prepared | None = None
        self._ref_moving = False  # the reference is a moving frame (it may hold motion blur)
        self._ref_index = 0
        self._count = 0  # frames measured
        self._noise: float | None = None

    @property
    def noise(self) -> float:
        """The running noise estimate, grey levels (0.0 before two frames were seen)."""
        return self._noise or 0.0

    def _prepare(self, grey: np.ndarray) -> _Prepared:
        b = self.params.blur_px
        g = cv2.GaussianBlur(grey, (b, b), 0) if b > 1 else grey
        if self.params.tolerance_px:
            hi, lo = cv2.dilate(g, self._kernel), cv2.erode(g, self._kernel)
        else:
            hi = lo = g
        blocks = cv2.resize(g, self.params.gain_grid, interpolation=cv2.INTER_AREA).astype(np.float32)
        unclipped = None
        if cv2.minMaxLoc(grey)[1] >= CLIPPED:
            clipped = cv2.compare(grey, CLIPPED, cv2.CMP_GE)
            if b > 1:
                clipped = cv2.dilate(clipped, np.ones((b, b), np.uint8))
            unclipped = cv2.bitwise_not(clipped)
        return _Prepared(g, hi, lo, blocks, unclipped)

    @staticmethod
    def _gain(ref_blocks: np.ndarray, cur_blocks: np.ndarray) -> float:
        """The gain that maps the current frame onto the reference: median of block ratios."""
        ok = (cur_blocks > 8.0) & (ref_blocks > 8.0)  # near-black blocks carry no gain information
        if not ok.any():
            return 1.0
        return float(np.median(ref_blocks[ok] / cur_blocks[ok]))

    def _changed(self, other: _Prepared, cur: _Prepared, threshold: float) -> tuple[int, float, np.ndarray]:
        """(changed px, gain, gain-corrected current grey) of ``cur`` against ``other``."""
        gain = self._gain(other.blocks, cur.blocks)
        scaled = cur.grey if abs(gain - 1.0) < 1e-3 else cv2.convertScaleAbs(cur.grey, alpha=gain)
        # brighter than every neighbour of the other frame, or darker than every one
        darker = cv2.subtract(other.lo, scaled)
        if cur.unclipped is not None:
            # a clipped pixel may truly be brighter than it reads, so after a gain below 1 it can
            # look darker than the other frame when it is not (a white card as exposure rises)
            darker = cv2.bitwise_and(darker, cur.unclipped)
        # (no such care for "brighter": a clipped neighbour in the other frame makes its max ~255)
        excess = cv2.max(cv2.subtract(scaled, other.hi), darker)
        # uint8 compare: threshold is rounded down, so ">" keeps its meaning on integer levels
        count = int(np.count_nonzero(excess > int(threshold)))
        return count, gain, scaled

    def _noise_of(self, scaled: np.ndarray, other: np.ndarray) -> float:
        """Robust standard deviation of the difference between two quiet frames, grey levels.

        The mean absolute difference of every 4th pixel, clipped so that changed pixels weigh
        no more than noise does, times sqrt(pi/2) (for a normal law E|d| = sigma·sqrt(2/pi)).
        """
        d = cv2.absdiff(scaled[::4, ::4], other[::4, ::4])
        clip = max(4.0, 4.0 * (self._noise or 0.0))
        return float(np.minimum(d, clip).mean()) * 1.2533

    def measure(self, grey: np.ndarray) -> MotionScore:
        """Score one (h, w) uint8 grey frame against the reference.

        Raises:
            ValueError: not a 2-D uint8 array, or not the size of the frames before it.
        """
        if not isinstance(grey, np.ndarray) or grey.ndim != 2 or grey.dtype != np.uint8:
            raise ValueError(
                "FrameDifference.measure needs a (h, w) uint8 grey frame, got "
                f"{getattr(grey, 'shape', type(grey).__name__)} {getattr(grey, 'dtype', '')}"
            )
        if self._ref is not None and grey.shape != self._ref.grey.shape:
            raise ValueError(
                f"frame is {grey.shape[1]}×{grey.shape[0]} px but the frames before it were "
                f"{self._ref.grey.shape[1]}×{self._ref.grey.shape[0]}: a motion stream keeps one size"
            )
        p = self.params
        cur = self._prepare(grey)
        if self._ref is None:
            self._ref, self._ref_index, self._count = cur, 0, 0
            return MotionScore(0, 0, p.min_level, 0.0, 1.0, False)
        self._count += 1
        threshold = max(p.min_level, p.k_sigma * (self._noise or 0.0))
        changed, gain, scaled = self._changed(self._ref, cur, threshold)
        moving = changed >= p.min_changed_px
        if not moving:
            sigma = self._noise_of(scaled, self._ref.grey)
            self._noise = sigma if self._noise is None else (1 - p.noise_alpha) * self._noise + p.noise_alpha * sigma
        age = self._count - self._ref_index
        if moving or self._ref_moving:
            # while moving the reference is the previous frame; the still run starts at its first
            # quiet frame (a moving frame may hold a little motion blur that would then count
            # against every frame after it)
            self._ref, self._ref_moving, self._ref_index = cur, moving, self._count
        return MotionScore(changed, age, threshold, self.noise, gain, moving)


@dataclass(frozen=True)
class MotionEvent:
    """One event: ``kind`` is ``"moving"`` or ``"settled"``; ``frame`` the 0-based index of the
    frame at which it was decided; ``t`` that frame's time in seconds."""

    kind: str
    frame: int
    t: float

    def to_json(self) -> dict:
        """``{"event": kind, "frame": i, "t": seconds}`` (issue #7 §3's JSON line)."""
        return {"event": self.kind, "frame": self.frame, "t": round(self.t, 4)}


class SettleLogic:
    """The pure decision: per-frame "moving or not" in, ``moving``/``settled`` events out.

    Args:
        settle_frames: quiet frames in a row after the last motion before ``settled`` (≥ 1).
            6 frames = 200 ms at 30 fps.
        move_frames: moving frames in a row, from still, before ``moving`` (≥ 1); 1 reacts at
            once, more ignores one-frame glitches.
        shake_hold_frames: after :meth:`shaken`, quiet frames needed before ``settled`` when
            the camera has not yet seen the dice move (the tray is shaken, the dice are not on
            the table yet); the first motion the camera sees returns to ``settle_frames``.

    States: ``still`` (nothing moved since the start), ``moving``, ``settling``, ``settled``.
    ``settled`` is emitted once per still period that follows motion, and only from
    ``settling``; ``moving`` once per motion period, when it is decided.

    Raises:
        ValueError: a frame count below 1.
    """

    STILL, MOVING_STATE, SETTLING, SETTLED_STATE = "still", "moving", "settling", "settled"

    def __init__(self, settle_frames: int = 6, move_frames: int = 1, shake_hold_frames: int = 15) -> None:
        for name, v in (("settle_frames", settle_frames), ("move_frames", move_frames),
                        ("shake_hold_frames", shake_hold_frames)):
            if int(v) != v or v < 1:
                raise ValueError(f"SettleLogic.{name} must be a whole number of frames ≥ 1, not {v!r}")
        self.settle_frames = int(settle_frames)
        self.move_frames = int(move_frames)
        self.shake_hold_frames = int(shake_hold_frames)
        self.state = self.STILL
        self._quiet = 0  # quiet frames since the last motion (settling)
        self._run = 0  # moving frames in a row while still/settled
        self._need = self.settle_frames

    @property
    def frames_to_settle(self) -> int | None:
        """While ``settling``: how many more quiet frames make ``settled`` (≥ 1); otherwise None.
        A reader may start on a frame of the quiet run before it is decided (the table is as
        still in it as at the settle), and drop its reading if motion comes back."""
        return self._need - self._quiet if self.state == self.SETTLING else None

    def update(self, moving: bool, frame: int, t: float = 0.0) -> list[MotionEvent]:
        """Feed one frame's verdict; return the events decided at this frame (0 or 1)."""
        if moving:
            self._need = self.settle_frames
            if self.state in (self.STILL, self.SETTLED_STATE):
                self._run += 1
                if self._run >= self.move_frames:
                    return self._start_moving(frame, t)
                return []
            self.state, self._quiet = self.MOVING_STATE, 0
            return []
        self._run = 0
        if self.state in (self.MOVING_STATE, self.SETTLING):
            self._quiet += 1
            self.state = self.SETTLING
            if self._quiet >= self._need:
                self.state = self.SETTLED_STATE
                return [MotionEvent(SETTLED, frame, t)]
        return []

    def shaken(self, frame: int, t: float = 0.0) -> list[MotionEvent]:
        """A peripheral reports the dice tray being shaken: motion now, and a longer wait for
        the dice to land (``shake_hold_frames``). Returns ``[moving]`` if the table was still."""
        self._need = max(self.settle_frames, self.shake_hold_frames)
        if self.state in (self.STILL, self.SETTLED_STATE):
            return self._start_moving(frame, t)
        self.state, self._quiet = self.MOVING_STATE, 0
        return []

    def _start_moving(self, frame: int, t: float) -> list[MotionEvent]:
        self.state, self._quiet, self._run = self.MOVING_STATE, 0, 0
        return [MotionEvent(MOVING, frame, t)]


@dataclass
class SettleDetector:
    """Feed camera frames one at a time; get ``moving``/``settled`` events (issue #7 §3).

    Args:
        settle_frames, move_frames, shake_hold_frames: see :class:`SettleLogic` (frames).
        params: see :class:`MotionParams` (px of the working image).

    :meth:`update` takes (H, W, 3) uint8 BGR or (H, W) uint8 grey frames (a picamera2 lores Y
    plane as it is), any size; frames wider than 1.25 × :data:`WORK_WIDTH` are shrunk to
    :data:`WORK_WIDTH` px wide (``cv2.INTER_AREA``). All frames of one stream must have one size.
    """

    settle_frames: int = 6
    move_frames: int = 1
    shake_hold_frames: int = 15
    params: MotionParams = field(default_factory=MotionParams)

    def __post_init__(self) -> None:
        self.logic = SettleLogic(self.settle_frames, self.move_frames, self.shake_hold_frames)
        self.difference = FrameDifference(self.params)
        self.frames_seen = 0
        self.last_score: MotionScore | None = None
        self._last_index = -1
        self._last_t = 0.0

    @property
    def state(self) -> str:
        """``still``, ``moving``, ``settling`` or ``settled`` (see :class:`SettleLogic`)."""
        return self.logic.state

    @property
    def frames_to_settle(self) -> int | None:
        """See :attr:`SettleLogic.frames_to_settle`."""
        return self.logic.frames_to_settle

    @staticmethod
    def to_work_grey(frame: np.ndarray) -> np.ndarray:
        """A frame as the (h, ≤ 400) uint8 grey image the difference works on.

        Raises:
            ValueError: not a uint8 (H, W), (H, W, 1), (H, W, 3) or (H, W, 4) array.
        """
        if not isinstance(frame, np.ndarray) or frame.dtype != np.uint8 or frame.ndim not in (2, 3) \
                or (frame.ndim == 3 and frame.shape[2] not in (1, 3, 4)) or min(frame.shape[:2]) < 8:
            raise ValueError(
                "a motion frame must be a uint8 (H, W) grey or (H, W, 3) BGR array at least 8 px a "
                f"side, got {getattr(frame, 'shape', type(frame).__name__)} {getattr(frame, 'dtype', '')}"
            )
        if frame.ndim == 3:
            code = {1: None, 3: cv2.COLOR_BGR2GRAY, 4: cv2.COLOR_BGRA2GRAY}[frame.shape[2]]
            frame = frame[:, :, 0] if code is None else cv2.cvtColor(frame, code)
        h, w = frame.shape
        if w > WORK_WIDTH * 1.25:
            size = (WORK_WIDTH, max(8, round(h * WORK_WIDTH / w)))
            frame = cv2.resize(frame, size, interpolation=cv2.INTER_AREA)
        return np.ascontiguousarray(frame)

    def update(self, frame: np.ndarray, t: float, index: int | None = None) -> list[MotionEvent]:
        """Feed one frame taken at ``t`` seconds; return the events decided at it.

        Args:
            frame: see the class docstring.
            t: the frame's time, s (passed through to the events).
            index: the frame's index in its source (events report it); default: one more than
                the last index fed, from 0. A skipped (unreadable) frame is simply not fed.

        Raises:
            ValueError: a frame of the wrong type or a different size from the ones before.
        """
        score = self.difference.measure(self.to_work_grey(frame))
        i = self._last_index + 1 if index is None else int(index)
        self._last_index, self._last_t = i, float(t)
        self.frames_seen += 1
        self.last_score = score
        return self.logic.update(score.moving, i, float(t))

    def shaken(self, t: float | None = None) -> list[MotionEvent]:
        """The dice tray is being shaken (a peripheral's report): see :meth:`SettleLogic.shaken`.

        The event carries the index of the last frame fed (0 before any) and ``t`` (default that
        frame's time).
        """
        i = max(self._last_index, 0)
        return self.logic.shaken(i, self._last_t if t is None else float(t))
