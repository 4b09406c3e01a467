"""Pip dice (Sushi Express): find every standard six-sided die in a photo and read its top face.

Issue #7 §1. Classical (only the last check of a reading is learnt, in step 3), so it assumes no
camera and no set of dice:

1. **Pips** (:func:`find_pips`): small blobs darker than their surround (a morphological black-hat,
   closing minus image, on a pyramid so any pip size from 4 px up costs the same) and, for coloured
   dice with light pips, lighter ones (a top-hat); each fitted with an ellipse. A blob holding two
   round, alike pips (a die's whole face, lighter or darker than the table, at a coarse octave;
   a six's column), or one round pip of the other polarity at its centre (a black die showing a
   one, ``ONE_IN_BLOB``), is no pip (:func:`_holders`, :func:`_face_blobs`). A pip on the top
   face of a die seen from above is round; a pip on a side face is squashed by the perspective, so
   only round pips (``TOP_MIN_ROUNDNESS``) make top faces.
2. **Faces** (:func:`group_pips`, :func:`_candidates`): pips of like size, shape and polarity
   within a few pip widths are grouped. A group is fitted to the standard layout of its count;
   two or three pips are placed every way on the 3 × 3 grid of pip places (they may be part of a
   face whose other pips were missed); a lone pip is a one, turned and sized by the edges round
   it and by a one's usual proportions, a pip alone in its group also as a large one's
   (``LARGE_ONE_HALF_WIDTH``; also when squashed like its face, or rounder than a side face's
   pips grouped with it); two
   bars side by side (or a bar and a row of three round pips, :func:`_pip_rows`) are a blurred
   six; a group of more pips than a face holds (touching dice) is
   split in two, and the pips a fit leaves out are tried as another die's face.
3. **Read each face** (:func:`read_faces`, every hypothesis of the photo in one batch): the nine
   pip places and four bare places of the fitted face are sampled. A face shows pips exactly where its value puts them and one plain body colour
   everywhere else (a five or a six may carry one faint mark besides: a clear die's face below
   seen through it, which no face of more pips could explain, :func:`_one_mark_only`); a face
   whose layout a larger one's holds (a four's a five's), with a pip-shaped faint spot standing
   clear of the bare body at each place the larger layout adds, may be that face with a worn pip,
   and is reported with no value (:func:`_worn_superset`); a two whose diagonal crosses a seam
   between two dice (a dark or light line, or a step in colour: one pip of each of two touching
   dice) is no die (:func:`seam_across`); a two or a three read on a line of pips with a parallel
   row of like pips (or a bar) beside it is a four's column or a six's row, and neither it nor a one
   on its pips is its group's reading (:func:`_row_of_larger`); a one must
   be ringed by its die's outline (:func:`outline_strength`) and hold no other pip. A lone light spot on a light, grey or black body is a glint or a reflection,
   unless on a grey or black body it looks painted (a black die's one: round, stark, clearly
   outlined, centred between its die's edges and on a square body, not a round one (a coin, a
   bottle cap): :func:`_painted_dark_one`). Of the faces of one
   die the one seen most square on (roundest pips) is the top.
   Each reading must also pass a learned verifier (:mod:`companion.vision.dice_verify`: a logistic
   regression over the reading's margin, pip contrast, size, roundness and fit, trained on the dev
   half of the real webcam photos by ``python -m companion.vision.train_d6_verifier``), which
   refuses readings unlike a die's top face: faint specks read as ones, glints read as threes.
4. A face that is surely a die but reads no value cleanly (three or more round pips in a layout,
   outlined) is reported with ``face`` None: never guessed.
5. **A second look** (:func:`_faint_pips`): a blurred photo's pips can be fainter than the pip
   search's threshold. On each die body where no die was read (a light blob of a die's size, as
   the light-pip search's coarser octaves see an ivory die on a darker table), dark pips are
   looked for again down to ``FAINT_PIP_CONTRAST`` and read as in steps 2 and 3, every rule and
   the verifier as before; a die found so is added where no die lies. It adds dice and never
   changes one read before it.

Speed (README, *Speed*): the work per photo is done in array batches (all blobs measured at once,
all faces read at once, all subsets of a group fitted at once, all placements and ones' faces of
a photo found at once) rather than per hypothesis, and the pip search (its octaves and
polarities), the gradients and the integral image are shared out between the calling thread and
one worker thread.

Sources: OpenCV morphology (``cv2.morphologyEx``, black-hat/top-hat), ``cv2.fitEllipse``,
``cv2.integral``; the standard die face layouts (a 3 × 3 grid of pip places: 1 = centre,
2 = a diagonal, 3 = a diagonal with the centre, 4 = the corners, 5 = corners and centre,
6 = two columns of three). Measured on real webcam photos: README, *Accuracy*.
"""

from __future__ import annotations

import itertools
import math
import os
import statistics
import threading
from concurrent.futures import ThreadPoolExecutor, wait
from dataclasses import dataclass, replace
from functools import cached_property, lru_cache

import cv2
import numpy as np

from companion.vision.imageio import to_original_px, working_copy
from companion.vision.observations import DieObservation

#: Pip places of the 3 × 3 grid in face half-widths (the face spans −1 … 1 on both axes). On a
#: 16 mm die the pip centres sit about 4 mm from the edges, i.e. ±0.5.
GRID = 0.5
_PLACES = np.array([(x, y) for y in (-GRID, 0.0, GRID) for x in (-GRID, 0.0, GRID)], np.float64)
#: Which of the nine places (row-major, as _PLACES) carry a pip, per value; 2, 3 and 6 in both
#: orientations a die can show them in.
PATTERNS: dict[int, tuple[frozenset[int], ...]] = {
    1: (frozenset({4}),),
    2: (frozenset({0, 8}), frozenset({2, 6})),
    3: (frozenset({0, 4, 8}), frozenset({2, 4, 6})),
    4: (frozenset({0, 2, 6, 8}),),
    5: (frozenset({0, 2, 4, 6, 8}),),
    6: (frozenset({0, 2, 3, 5, 6, 8}), frozenset({0, 1, 2, 6, 7, 8})),
}
#: Closing radii per octave, px: a closing of radius r removes dark blobs up to 2r + 1 px wide,
#: and pips further apart than that stay apart in the black-hat.
PIP_RADII = (5,)
#: A pip's ellipse axes ratio (minor / major) at or above which it is on a top face.
TOP_MIN_ROUNDNESS = 0.62
#: The largest working image side, px: bigger photos are shrunk first (pips stay ≥ 4 px for dice
#: filling ≥ 1/40 of the frame).
WORK_SIDE = 1280


@dataclass(frozen=True)
class Pip:
    """One pip candidate: centre (x, y) px, area px², ellipse axes (major, minor) px and angle
    (degrees, OpenCV's ``fitEllipse`` convention), contrast (0..1, how much darker — or lighter —
    than the surround, relative to it), and polarity (+1 dark pip, −1 light pip)."""

    x: float
    y: float
    area: float
    major: float
    minor: float
    angle: float
    contrast: float
    polarity: int

    @property
    def roundness(self) -> float:
        """minor / major axis, 0..1 (1 = a circle)."""
        major = self.major
        return self.minor / (1e-6 if 1e-6 > major else major)  # max(major, 1e-6): asked for often

    @property
    def diameter(self) -> float:
        """Equivalent circle diameter, px."""
        return 2.0 * math.sqrt(self.area / math.pi)


def _components(mask: np.ndarray, hat: np.ndarray, ref: np.ndarray, r: int, scale: float, polarity: int,
                first: bool = True) -> list[Pip]:
    """Pip-shaped blobs of ``mask`` found at closing radius ``r`` on an image shrunk by ``scale``
    (on a coarser octave than the ``first``, only blobs too big for the finer one)."""
    cnts, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    max_area = math.pi * (r + 0.5) ** 2 * 1.15  # a closing of radius r fills blobs up to 2r + 1 px wide
    min_area = 5.0 if first else max_area / 4 * 0.6
    H, W = mask.shape
    cnts = [c for c in cnts if len(c) >= 5]
    if not cnts:
        return []
    # The cheap tests for every contour at once; the ellipse fit only for those that pass.
    rects, areas = _rects_and_areas(cnts)
    x0, y0, ws, hs = rects.T
    whole = (x0 > 0) & (y0 > 0) & (x0 + ws < W) & (y0 + hs < H)  # else cut by the image border
    ok = np.flatnonzero(whole & (ws * hs >= min_area) & (areas >= min_area) & (areas <= max_area))
    if len(ok) == 0:
        return []
    # One row per blob: centre (x, y), the two axes and the first axis's angle (cv2.fitEllipse's order).
    fits = [cv2.fitEllipse(cnts[i]) for i in ok.tolist()]
    cx, cy, ax1, ax2, ang = np.array([(*c, *axes, angle) for c, axes, angle in fits], np.float64).reshape(-1, 5).T
    major, minor = np.maximum(ax1, ax2), np.minimum(ax1, ax2)
    a = areas[ok]
    fill = a / (math.pi * major * minor / 4 + 1e-6)
    keep = (fill >= 0.65) & (fill <= 1.45) & (minor >= 2.0)  # a few px blob's ellipse fit is rough
    # OpenCV gives the angle of the first axis: make it the major axis's.
    ang = np.where(ax1 < ax2, (ang + 90.0) % 180.0, ang)
    contrast = _blob_contrasts(mask, hat, ref, rects[ok[keep]])
    rows = zip((cx[keep] * scale).tolist(), (cy[keep] * scale).tolist(), (a[keep] * scale * scale).tolist(),
               (major[keep] * scale).tolist(), (minor[keep] * scale).tolist(), ang[keep].tolist(), contrast.tolist())
    return [Pip(*row, polarity) for row in rows]


def _rects_and_areas(cnts: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Every contour's bounding rectangle and blob area at once, as ``cv2.boundingRect`` and
    ``cv2.contourArea`` give them one by one.

    Args:
        cnts: K contours, each (n, 1, 2) int32 px (``cv2.findContours``, ``CHAIN_APPROX_NONE``).

    Returns:
        ``(rects, areas)``: (K, 4) int64 (x, y, w, h) px, and (K,) float64 areas px²: the polygon's
        (shoelace, as ``cv2.contourArea``: whole numbers summed, so exact) plus half the contour's
        length (it runs through the blob's edge pixels: half of them lie outside its polygon).
    """
    lengths = np.array([len(c) for c in cnts])
    first = np.concatenate([[0], np.cumsum(lengths)[:-1]])
    pts = np.concatenate(cnts).reshape(-1, 2).astype(np.int64)
    x, y = pts[:, 0], pts[:, 1]
    lo_x, hi_x = np.minimum.reduceat(x, first), np.maximum.reduceat(x, first)
    lo_y, hi_y = np.minimum.reduceat(y, first), np.maximum.reduceat(y, first)
    rects = np.stack([lo_x, lo_y, hi_x - lo_x + 1, hi_y - lo_y + 1], axis=1)
    # Each point's predecessor along its own closed contour.
    prev = np.arange(len(pts)) - 1
    prev[first] = first + lengths - 1
    twice = np.add.reduceat(x[prev] * y - y[prev] * x, first)
    return rects, np.abs(twice) * 0.5 + lengths / 2.0


def _blob_contrasts(mask: np.ndarray, hat: np.ndarray, ref: np.ndarray, rects: np.ndarray) -> np.ndarray:
    """Each blob's mean contrast: over the ``mask`` pixels of its bounding rectangle, each pixel's
    ``hat`` relative to its ``ref`` level (in float32, as ``cv2.divide`` and ``cv2.mean`` give it).
    All blobs at once: their rectangles' pixels gathered as one ragged run each.

    Args:
        mask, hat, ref: (H, W) uint8 (``ref`` ≥ 20, as :func:`find_pips` makes it).
        rects: (K, 4) int (x, y, w, h) px, within the image.

    Returns:
        (K,) float64 contrasts.
    """
    if len(rects) == 0:
        return np.zeros(0)
    x, y, w, h = rects.T
    size = w * h
    first = np.concatenate([[0], np.cumsum(size)[:-1]])
    owner = np.repeat(np.arange(len(rects)), size)
    k = np.arange(int(size.sum())) - first[owner]
    idx = (y[owner] + k // w[owner]) * mask.shape[1] + x[owner] + k % w[owner]
    on = mask.ravel()[idx] > 0
    ratio = hat.ravel()[idx].astype(np.float32) / ref.ravel()[idx].astype(np.float32)
    # float32 ratios (1/255 … 255/20: multiples of 2⁻³¹) summed in float64 over a rectangle of at
    # most a few thousand px: every partial sum is exact, so the order of summing cannot matter.
    total = np.add.reduceat(np.where(on, ratio, 0.0).astype(np.float64), first)
    count = np.add.reduceat(on.astype(np.int64), first)
    return total * (1.0 / count)  # as cv2.mean: the sum times the count's reciprocal


def _clamp(a: np.ndarray, lo: int, hi: int) -> np.ndarray:
    """``a`` (integer px indices) limited to lo … hi: ``np.clip``'s result, without the checks of
    its integer bounds against the dtype's range that cost more than the clipping on short arrays."""
    return np.minimum(np.maximum(a, lo), hi)


@lru_cache(maxsize=None)
def _disc(r: int) -> np.ndarray:
    """OpenCV's elliptic structuring element of radius ``r`` px, (2r + 1, 2r + 1) uint8."""
    return cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1))


#: How much darker (or, for light pips, lighter) than the local body a pip must be, as a fraction
#: of the body's grey level (of its distance from white): a black pip on an ivory die is ≈ 0.6.
PIP_MIN_CONTRAST = 0.3


def find_pips(grey: np.ndarray, *, min_contrast: float = PIP_MIN_CONTRAST, light: bool = False) -> list[Pip]:
    """Pip candidates in a grey image.

    Args:
        grey: (H, W) uint8.
        min_contrast: how much darker than the local body a pip must be, as a fraction of the
            body's grey level (a black pip on an ivory die is ≈ 0.6).
        light: look for light pips on a darker body instead (coloured translucent dice).

    Returns:
        Pips in image px, one per blob (the scale that fits it best), any order.
    """
    img = np.ascontiguousarray(grey, dtype=np.uint8)
    return _dedupe(_fine_pips(img, min_contrast=min_contrast, light=light)
                   + _coarse_pips(img, min_contrast=min_contrast, light=light))


# Each octave looks for pips 5 … 11 px wide at its own scale: 5 … 11, 10 … 22, 20 … 44 px …
# (a closing of radius r fills dark blobs up to 2r + 1 px wide). The finest octave, the image at
# its own scale, is most of the work; the coarser ones (scales 2, 4 and 8, while the image is
# at least 24 px on its shorter side) can be searched elsewhere at the same time.


def _fine_pips(img: np.ndarray, *, min_contrast: float = PIP_MIN_CONTRAST, light: bool = False) -> list[Pip]:
    """:func:`find_pips`'s candidates of the finest octave, before deduplication. ``img``: (H, W)
    uint8, contiguous."""
    return _octave_pips(img, 1.0, min_contrast, light) if min(img.shape) >= 24 else []


def _coarse_pips(img: np.ndarray, *, min_contrast: float = PIP_MIN_CONTRAST, light: bool = False) -> list[Pip]:
    """:func:`find_pips`'s candidates of the coarser octaves, coarser last, before deduplication.
    ``img``: (H, W) uint8, contiguous, at its own scale."""
    found: list[Pip] = []
    scale = 1.0
    while min(img.shape) >= 24 and scale < 8:
        img = cv2.pyrDown(img)
        scale *= 2.0
        if min(img.shape) < 24:
            break
        found += _octave_pips(img, scale, min_contrast, light)
    return found


def _octave_pips(img: np.ndarray, scale: float, min_contrast: float, light: bool) -> list[Pip]:
    """The pip candidates of one octave: ``img`` (H, W) uint8 is the grey image shrunk by ``scale``."""
    found: list[Pip] = []
    for r in PIP_RADII:
        k = _disc(r)
        if light:
            body = cv2.morphologyEx(img, cv2.MORPH_OPEN, k)
            hat = cv2.subtract(img, body)
            ref = cv2.max(cv2.bitwise_not(body), 20)  # the body's distance from white, 255 − body
        else:
            body = cv2.morphologyEx(img, cv2.MORPH_CLOSE, k)
            hat = cv2.subtract(body, img)
            ref = cv2.max(body, 20)
        mask = cv2.compare(hat, cv2.convertScaleAbs(ref, alpha=min_contrast), cv2.CMP_GT)
        found += _components(mask, hat, ref, r, scale, -1 if light else 1, first=scale == 1.0)
    return found


def _dedupe(pips: list[Pip]) -> list[Pip]:
    """One pip per place: of candidates whose centres lie within half a diameter, the largest
    (a coarser scale sees the whole pip where a finer one may see only its darkest core) — unless
    it holds two smaller ones apart from each other: then it is not one pip but what holds
    several (:func:`_holders`), and is dropped for them."""
    order = sorted(pips, key=lambda q: -q.area)
    if not order:
        return []
    x = np.array([p.x for p in order])
    y = np.array([p.y for p in order])
    d = np.array([p.diameter for p in order])
    # The pairs (i, j), j before i (larger), whose centres lie within half the larger's diameter:
    # first those within it along both axes (a distance is no shorter than either of its legs),
    # then the distance (the costlier part) for those only.
    reach = 0.5 * np.maximum(d[:, None], d[None])
    near_x, near_y = np.abs(x[:, None] - x[None]) <= reach, np.abs(y[:, None] - y[None]) <= reach
    rows, cols = np.nonzero(np.tril(near_x & near_y, -1))
    close = np.hypot(x[rows] - x[cols], y[rows] - y[cols]) <= reach[rows, cols]
    rows, cols = rows[close], cols[close]
    # Each candidate's close ones that come before it (larger): it is kept unless one is kept.
    earlier: dict[int, list[int]] = {}
    for i, j in zip(rows.tolist(), cols.tolist()):
        earlier.setdefault(i, []).append(j)
    holder = _holders(rows, cols, x, y, d, np.array([p.roundness for p in order]))
    kept = [False] * len(order)
    for i in range(len(order)):
        kept[i] = not holder[i] and not any(kept[j] for j in earlier.get(i, ()))
    return [p for p, k in zip(order, kept) if k]


def _holders(rows: np.ndarray, cols: np.ndarray, x: np.ndarray, y: np.ndarray, d: np.ndarray,
             rnd: np.ndarray) -> list[bool]:
    """Which candidates (largest first) hold two smaller ones that are pips of one face: round
    (``TOP_MIN_ROUNDNESS``), of like size (within 1.6×, as :func:`group_pips` asks) and apart,
    centres further apart than their radii together (so not one pip seen at two octaves). A die
    lighter than the table round it (a green die on dark felt) is itself a light blob at a coarse
    octave, holding its pips, and a column of a six is one bar there: those are not pips. (The
    specks a large pip shows at a fine octave are neither round nor alike.)

    Args:
        rows, cols: (M,) int, the pairs (smaller i, larger j) of candidates whose centres lie
            within half the larger's diameter.
        x, y: (N,) float64 the candidates' centres, px.
        d: (N,) float64 diameters, px.
        rnd: (N,) float64 roundness (minor / major axis).
    """
    held: dict[int, list[int]] = {}
    for i, j in zip(rows.tolist(), cols.tolist()):
        if rnd[i] >= TOP_MIN_ROUNDNESS:
            held.setdefault(j, []).append(i)
    holder = [False] * len(d)
    for j, inner in held.items():
        if len(inner) >= 2:
            k = np.array(inner)
            dist = np.hypot(x[k][:, None] - x[k][None], y[k][:, None] - y[k][None])
            holder[j] = _two_apart_alike(dist, d[k])
    return holder


def _two_apart_alike(dist: np.ndarray, d: np.ndarray) -> bool:
    """Whether two of some pips are apart (centres further apart than their radii together: not
    one pip seen at two octaves) and alike (diameters within 1.6×, as :func:`group_pips` asks).

    Args:
        dist: (n, n) float64 distances between their centres, px.
        d: (n,) float64 their diameters, px.
    """
    apart = dist > 0.5 * (d[:, None] + d[None])
    alike = np.maximum(d[:, None], d[None]) <= 1.6 * np.minimum(d[:, None], d[None])
    return bool(np.any(apart & alike))


#: A blob holding one round candidate of the other polarity this near its centre (in the blob's
#: diameters) and of this size (per the blob's diameter) is a die showing a one, not a pip: a
#: black die's whole body is a dark blob at a coarse octave, its one's pip 0.15 … 0.2 of it across
#: and at its centre. (No reading of the real dev photos changes. A glint at the centre of a large
#: dark pip, faces of 90 px and more, is found so: the pip is then a "face", and only
#: :func:`_painted_dark_one`'s square body refuses it as a one.)
ONE_IN_BLOB = (0.12, (0.1, 0.3))


def _face_blobs(blobs: list[Pip], pips: list[Pip]) -> set[int]:
    """The ids of the ``blobs`` that hold two of the ``pips`` (other candidates, e.g. of the
    other polarity) as :func:`_holders` asks: within half the blob's diameter, smaller, round,
    alike and apart; or one round one at its centre, a one's size (``ONE_IN_BLOB``). Such a blob
    is a die's face, not a pip (two black dice showing ones, taken for pips, read as a two as
    wide as the gap between them)."""
    held = [q for q in pips if q.roundness >= TOP_MIN_ROUNDNESS]
    if not blobs or not held:
        return set()
    bx, by, bd = np.array([(p.x, p.y, p.diameter) for p in blobs]).T
    px, py, pd = np.array([(q.x, q.y, q.diameter) for q in held]).T
    dist = np.hypot(px[:, None] - bx[None], py[:, None] - by[None])  # (held, blobs)
    near, size = ONE_IN_BLOB
    one = (dist <= near * bd[None]) & (pd[:, None] >= size[0] * bd[None]) & (pd[:, None] <= size[1] * bd[None])
    out = {id(blobs[j]) for j in np.flatnonzero(one.any(axis=0)).tolist()}
    inside = (dist <= 0.5 * bd[None]) & (pd[:, None] < bd[None])  # (held, blobs)
    for j in np.flatnonzero(inside.sum(axis=0) >= 2).tolist():
        k = np.flatnonzero(inside[:, j])
        if _two_apart_alike(np.hypot(px[k][:, None] - px[k][None], py[k][:, None] - py[k][None]), pd[k]):
            out.add(id(blobs[j]))
    return out


#: A face's corners in face coordinates.
_CORNERS = np.array([(-1, -1), (1, -1), (1, 1), (-1, 1)], np.float64)


@dataclass(frozen=True)
class Face:
    """A fitted die face: ``frame`` (2, 3) float64 maps face coordinates (−1 … 1 on both axes)
    to image px; ``pips`` the candidates it was fitted to; ``residual`` the fit's RMS error in face
    half-widths; ``large_one`` whether it is a large one's face (``LARGE_ONE_HALF_WIDTH``, asked
    of :func:`_refusal`); ``partners`` the other pips of the pairs its one pip was grouped in, when
    it is a pip of a pair tried as a one (:func:`_group_faces`; kept only with a partner's one,
    :func:`_top_faces`)."""

    frame: np.ndarray
    pips: tuple[Pip, ...]
    residual: float
    large_one: bool = False
    partners: tuple[Pip, ...] = ()

    @cached_property
    def half_width(self) -> float:
        """Face half-width, px (square root of the frame's area scale)."""
        (a, b, _), (c, d, _) = self.frame.tolist()
        return math.sqrt(abs(a * d - b * c))

    @property
    def center(self) -> tuple[float, float]:
        return float(self.frame[0, 2]), float(self.frame[1, 2])

    def to_image(self, pts: np.ndarray) -> np.ndarray:
        """(N, 2) face coordinates → (N, 2) image px."""
        return pts @ self.frame[:, :2].T + self.frame[:, 2]

    def quad(self) -> np.ndarray:
        """(4, 2) float64 corners in image px, clockwise on screen."""
        q = self.to_image(_CORNERS)
        c = q.mean(axis=0)
        order = np.argsort(np.arctan2(q[:, 1] - c[1], q[:, 0] - c[0]))  # y down: increasing angle = clockwise
        return q[order]

    @cached_property
    def squash(self) -> float:
        """Smaller / larger singular value of the frame: 1 for a face seen square on."""
        (a, b, _), (c, d, _) = self.frame.tolist()
        # The singular values of a 2 × 2 matrix in closed form: s² = (‖M‖² ± √(‖M‖⁴ − 4 det²)) / 2.
        f2 = a * a + b * b + c * c + d * d
        det = a * d - b * c
        root = math.sqrt(max(f2 * f2 - 4.0 * det * det, 0.0))
        big = math.sqrt((f2 + root) / 2.0)
        small = math.sqrt(max((f2 - root) / 2.0, 0.0))
        return small / max(big, 1e-9)


#: Face half-width per pip diameter, for a lone pip (a one): from faces with several pips.
HALF_WIDTH_PER_PIP = 2.6


def _by_angle(pts: np.ndarray, centre: np.ndarray) -> np.ndarray:
    return np.argsort(np.arctan2(pts[:, 1] - centre[1], pts[:, 0] - centre[0]))


@lru_cache(maxsize=None)
def _layout_solvers(value: int) -> tuple[str, np.ndarray, np.ndarray]:
    """For ``value``'s layout (ring of pip places by angle, then the centre if any), every cyclic
    shift and direction of the ring at once: ``(kind, pinvs, points)`` with ``pinvs`` the
    least-squares solvers (pseudo-inverses of the design matrices), stacked (S, ·, ·), and
    ``points`` (S, n, 2) the face coordinates in that order. ``kind`` is ``"sim"`` (a similarity,
    for 2 and 3, whose points are collinear) or ``"aff"`` (an affine map)."""
    places = sorted(PATTERNS[value][0])
    c = _PLACES[places]
    ring = c[np.any(c != 0, axis=1)]
    ring = ring[_by_angle(ring, np.zeros(2))]
    centre = np.zeros((1, 2)) if 4 in places else np.zeros((0, 2))
    pinvs, points = [], []
    m = len(ring)
    for flip in (False, True):
        r = ring[::-1] if flip else ring
        for shift in range(m):
            cs = np.vstack([np.roll(r, -shift, axis=0), centre])
            points.append(cs)
            if value <= 3:  # similarity: x = a·u − b·v + tx, y = b·u + a·v + ty
                rows = []
                for u, v in cs:
                    rows += [(u, -v, 1, 0), (v, u, 0, 1)]
                pinvs.append(np.linalg.pinv(np.array(rows)))
            else:
                pinvs.append(np.linalg.pinv(np.hstack([cs, np.ones((len(cs), 1))])))
    return ("sim" if value <= 3 else "aff"), np.array(pinvs), np.array(points)


def _fit(pips: list[Pip], value: int) -> Face | None:
    """The best frame placing these pips on the layout of ``value`` (2 … 6), or None.

    The pips are ordered by angle around their centroid (the centre pip, for 3 and 5, is the one
    nearest it), and every cyclic shift and direction of that ring is tried against the layout's
    (all in one batch of matrix products)."""
    x = np.array([[(p.x, p.y) for p in pips]], np.float64)
    res, frames = _fit_many(x, value)
    if not np.isfinite(res[0]):
        return None
    return Face(frames[0], tuple(pips), float(res[0]))


def _fit_many(x: np.ndarray, value: int) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_fit` for C sets of ``value`` pips at once: ``x`` (C, n, 2) float64 pip centres, px.
    Returns ``(residual, frame)``: (C,) RMS errors in face half-widths (inf where no layout
    fits) and (C, 2, 3) the best frames."""
    kind, pinvs, cs = _layout_solvers(value)
    c_n, n = x.shape[:2]
    rows = np.arange(c_n)[:, None]
    centroid = x.mean(axis=1)  # (C, 2)
    if 4 in PATTERNS[value][0]:
        k = np.argmin(np.sum((x - centroid[:, None]) ** 2, axis=2), axis=1)
        # The centre pip last, the ring's pips before it in their given order.
        order = np.argsort(np.arange(n)[None] == k[:, None], axis=1, kind="stable")
        x = x[rows, order]
        m = n - 1
    else:
        m = n
    ring = x[:, :m]
    turn = np.argsort(np.arctan2(ring[..., 1] - centroid[:, 1:], ring[..., 0] - centroid[:, :1]), axis=1)
    xs = np.concatenate([ring[rows, turn], x[:, m:]], axis=1)  # (C, n, 2)
    if kind == "sim":
        sol = np.einsum("sij,cj->csi", pinvs, xs.reshape(c_n, -1))  # (C, S, 4): a, b, tx, ty
        a, b = sol[..., 0], sol[..., 1]
        lin = np.stack([np.stack([a, -b], -1), np.stack([b, a], -1)], -2)  # (C, S, 2, 2)
        off = sol[..., 2:]
    else:
        sol = np.einsum("sij,cjk->csik", pinvs, xs)  # (C, S, 3, 2): rows u, v, 1
        lin = np.swapaxes(sol[..., :2, :], -1, -2)
        off = sol[..., 2, :]
    pred = np.einsum("snk,csjk->csnj", cs, lin) + off[:, :, None, :]
    h = np.sqrt(np.abs(lin[..., 0, 0] * lin[..., 1, 1] - lin[..., 0, 1] * lin[..., 1, 0]))
    res = np.sqrt(np.mean(np.sum((pred - xs[:, None]) ** 2, axis=3), axis=2)) / np.maximum(h, 1e-9)
    res[h < 1.0] = np.inf
    best = np.argmin(res, axis=1)
    frames = np.concatenate([lin[rows[:, 0], best], off[rows[:, 0], best][:, :, None]], axis=2)
    return res[rows[:, 0], best], frames


def _half_widths(frames: np.ndarray) -> np.ndarray:
    """:attr:`Face.half_width` of many frames at once (the same operations, so the same values):
    (K, 2, 3) float64 → (K,) float64 px."""
    return np.sqrt(np.abs(frames[:, 0, 0] * frames[:, 1, 1] - frames[:, 0, 1] * frames[:, 1, 0]))


def _squashes(frames: np.ndarray) -> np.ndarray:
    """:attr:`Face.squash` of many frames at once (the same operations, so the same values):
    (K, 2, 3) float64 → (K,) float64."""
    m = frames[:, :, :2]
    f2 = np.sum(m * m, axis=(1, 2))
    det = m[:, 0, 0] * m[:, 1, 1] - m[:, 0, 1] * m[:, 1, 0]
    root = np.sqrt(np.maximum(f2 * f2 - 4.0 * det * det, 0.0))
    big = np.sqrt((f2 + root) / 2.0)
    small = np.sqrt(np.maximum((f2 - root) / 2.0, 0.0))
    return small / np.maximum(big, 1e-9)


#: The least squash (smaller / larger singular value) of a face fitted to pips that are not
#: round: a top face in a blurred photo is square, a side face foreshortened.
BLURRED_FACE_MIN_SQUASH = 0.75
#: A one's face half-width per pip diameter, (min, max): a one's pip is large, about a third of
#: the half-width (2.8 … 3.7 on the dev photos, 10th to 90th percentile), on some dice a half
#: (1.8 on the simulated ones). Beyond the max, a pip alone in its group still gets a one's usual
#: proportions (:func:`_lone_faces_many`): a clear die's top edge is faint, its base and shadow
#: the strongest edges, out to 5 diameters (``gem_d6`` 2501's one, 1.8 diameters to its edge).
LONE_HALF_WIDTH = (1.6, 4.6)
#: ... but only out to this (per pip diameter): a die's base and shadow lie within about 5
#: diameters of its one (``gem_d6`` 2501: 4.96). Farther, the strongest edges are no die's (a dark
#: dot on bare paper, its strongest step noise anywhere round it): no faces, as below the min
#: (stop 54's review: 6 more dots of 192 read "1" on plain paper without this bound).
LONE_FAR_MAX = 5.5
#: A large one's face half-width per pip diameter, tried besides the usual proportions for a pip
#: alone in its group: on many dice the one's pip is larger than the others' (on the dev photos
#: about 1.2× their pips, so a half-width of about 1.9 of its diameter, from the other dice read
#: in the same photo; the edge found round a one is often the die's base, farther out), and the
#: simulator draws it so (1.8). Faces of 2.6 … 3.4 diameters then reach over the side faces'
#: pips and are refused as sharing their face. Such a face reads a one or nothing, is refused
#: when a like pip is near (:func:`_crowded`), and not for the unlike ones on it (side faces'
#: squashed pips, a clear die's faint pips of the face below): :func:`_refusal`.
LARGE_ONE_HALF_WIDTH = 2.0
#: (reach in the large one's half-widths, max-norm; least diameter per the one's pip) of a round
#: pip that makes a large one's face crowded (:func:`_crowded`).
LARGE_ONE_CLEAR = (1.4, 0.7)
#: Two round pips grouped as a pair (:func:`_group_faces`) are each also tried as a one (a large
#: one's face) when this many of its half-widths (``LARGE_ONE_HALF_WIDTH``) or more apart: two
#: touching dice's ones lie two of their own half-widths apart (1.8 … 2 of the large one's face
#: on the simulated dice), a two's pips 1.5 … 1.6 on the dev photos (its face's turn may be found
#: 45° wrong, its other pip then out of reach of :func:`_crowded`).
PAIRED_ONE_MIN_APART = 1.7
#: ... and only when centred between its die's edges (:func:`_edge_ratio` at most this): 1.0 …
#: 1.1 for the simulated touching ones, 1.8 for a simulated two's pip (its die's far edges beyond
#: the search, a side face's nearer).
PAIRED_ONE_MAX_EDGE_RATIO = 1.4
#: ... and clearly outlined (:func:`outline_strength`): 4.8 … 27 for the simulated touching ones,
#: 2.5 … 3.7 for the simulated twos' pips that the rules above let through.
PAIRED_ONE_MIN_OUTLINE = 4.2


def _lone_faces(p: Pip, grad) -> list[Face]:
    """Faces around a pip with no neighbours (a one): :func:`_lone_faces_many` for one pip."""
    return _lone_faces_many([p], grad)[0]


def _lone_faces_many(pips: list[Pip], grad, alone: list[bool] | None = None) -> list[list[Face]]:
    """Faces around each pip with no neighbours (a one), turned like the strongest edges nearby:
    one as wide as the distance to its outline, and a few of a one's usual proportions (the
    outline found may be the die's base rather than its top face's edge). None at all for a pip
    with no outline at a face's distance (``LONE_HALF_WIDTH``): a dark spot on the table or on
    clutter. An outline nearer than that (a pip by an edge) gives none whatever the pip; one
    farther out is no face, but a pip alone in its group (``alone``) still gets the usual
    proportions and the large one's face, out to ``LONE_FAR_MAX``: a clear die's faint top edge is
    weaker than its base or its shadow, and the faces' own checks (their outline,
    :func:`_refusal`) tell a die from a spot.

    The turn is the dominant edge direction (modulo 90°) in a disc round the pip: the face's
    outline and the side faces' edges run along the face's axes, and averaging angles ×4 folds the
    four edge directions of a square onto one. The distance is the median, over the four axis
    directions, of the distance to the strongest edge across it. All pips are done at once: their
    samples gathered in one go, their edge searches one array.

    Args:
        pips: N pips.
        grad: (gx, gy), each (H, W) int16 or float32, the image's x and y gradients.
        alone: N flags (None: all False), whether the pip is alone in its group: such a pip also
            gets a large one's face (``LARGE_ONE_HALF_WIDTH``).

    Returns:
        N lists of faces, in the pips' order.
    """
    if not pips:
        return []
    gx, gy = grad
    h_img, w_img = gx.shape
    n = len(pips)
    guess = [HALF_WIDTH_PER_PIP * p.diameter for p in pips]
    # The turn: each pip's window of samples (about 25 × 25 are plenty for one direction).
    flat, bounds = [], []
    start = 0
    for p, gs in zip(pips, guess):
        radius = 1.5 * gs
        x0, x1 = max(0, int(p.x - radius)), min(w_img, int(p.x + radius) + 1)
        y0, y1 = max(0, int(p.y - radius)), min(h_img, int(p.y + radius) + 1)
        if x1 - x0 < 3 or y1 - y0 < 3:
            bounds.append(None)
            continue
        step = max(1, int(radius // 12))
        idx = (np.arange(y0, y1, step)[:, None] * w_img + np.arange(x0, x1, step)[None]).ravel()
        flat.append(idx)
        bounds.append((start, start + len(idx)))
        start += len(idx)
    theta = np.zeros(n)
    if flat:
        idx = np.concatenate(flat)
        # The samples as complex64 gx + i·gy, squared twice over |g²|: |g|² e^{4iθ}. In place,
        # these arrays being long (a small pip's window is every pixel of it).
        g2 = np.empty(len(idx), np.complex64)
        g2.real = gx.ravel()[idx]
        g2.imag = gy.ravel()[idx]
        np.multiply(g2, g2, out=g2)
        size = np.maximum(np.abs(g2), np.float32(1e-6))
        terms = np.multiply(g2, g2, out=g2)
        np.divide(terms, size, out=terms)
        # Each pip's sum over its own samples, all at once (its samples are one run of terms).
        has = [k for k, b in enumerate(bounds) if b is not None]
        sums = np.add.reduceat(terms, [bounds[k][0] for k in has])
        theta[has] = np.angle(sums) / 4.0
    best = np.sort(_strongest_edge_distances(pips, guess, theta, gx, gy), axis=1)  # (N, 4)
    half = ((best[:, 1] + best[:, 2]) / 2).tolist()  # the median of four
    out = []
    large = [False] * n if alone is None else alone
    for p, t, h, big in zip(pips, theta.tolist(), half, large):
        reach = h / p.diameter
        far = reach > LONE_HALF_WIDTH[1]
        if reach < LONE_HALF_WIDTH[0] or reach > LONE_FAR_MAX or (far and not big):
            out.append([])
            continue
        c, s_ = math.cos(t), math.sin(t)
        out.append([Face(np.array([[w * c, -w * s_, p.x], [w * s_, w * c, p.y]]), (p,), 0.0, large)
                    for w, large in (*(() if far else ((h, False),)),
                                     *(((LARGE_ONE_HALF_WIDTH * p.diameter, True),) if big else ()),
                                     (2.6 * p.diameter, False), (3.0 * p.diameter, False), (3.4 * p.diameter, False))])
    return out


#: More than any sample index: where a run's sample is not its greatest.
_NO_INDEX = np.iinfo(np.int64).max


def _strongest_edge_distances(pips: list[Pip], guess: list[float], theta: np.ndarray,
                              gx: np.ndarray, gy: np.ndarray) -> np.ndarray:
    """For :func:`_lone_faces_many`: per pip and per axis direction ``theta + k · 90°`` (k = 0 … 3),
    the distance from the pip's centre (from 0.9 pip diameters to 2.2 ``guess`` px, every 0.5 px)
    of the strongest grey-level step across that direction; the nearest of equal steps.

    The samples are kept ragged (one run per pip, as long as its own search), not padded to the
    longest: a coarse octave's blob a whole die wide would make every pip's search as long as its.

    Args:
        pips: N pips; guess: their N face half-width guesses, px; theta: (N,) float64 turns, rad.
        gx, gy: (H, W) the image's x and y gradients.

    Returns:
        (N, 4) float64 distances, px.
    """
    h_img, w_img = gx.shape
    start = np.array([max(1.0, 0.9 * p.diameter) for p in pips])
    stop = np.array([2.2 * gs for gs in guess])
    # At least one sample: an empty search would give its start, as the one sample at it does.
    count = np.maximum(np.ceil((stop - start) / 0.5), 1).astype(np.int64)
    first = np.concatenate([[0], np.cumsum(count)[:-1]])  # each pip's run in the flat samples
    owner = np.repeat(np.arange(len(pips)), count)
    i = np.arange(int(count.sum())) - first[owner]  # each sample's index in its run
    # As np.arange makes them: start + i · ((start + 0.5) − start), the step as it rounds at start.
    step = (start + 0.5) - start
    r = start[owner] + i * step[owner]
    a = theta[:, None] + np.arange(4) * (math.pi / 2)
    ux, uy = np.cos(a)[owner], np.sin(a)[owner]  # (S, 4)
    cx = np.array([p.x for p in pips])[owner, None]
    cy = np.array([p.y for p in pips])[owner, None]
    xs = _clamp(np.round(cx + r[:, None] * ux).astype(int), 0, w_img - 1)
    ys = _clamp(np.round(cy + r[:, None] * uy).astype(int), 0, h_img - 1)
    along = np.abs(gx[ys, xs] * ux + gy[ys, xs] * uy)  # (S, 4)
    # The first sample of each run where it reaches the run's greatest step.
    top = np.maximum.reduceat(along, first, axis=0)  # (N, 4)
    at = np.minimum.reduceat(np.where(along == top[owner], i[:, None], _NO_INDEX), first, axis=0)
    return start[:, None] + at * step[:, None]


#: The least roundness of a lone pip read as a one on a face seen obliquely
#: (:func:`_squashed_one_faces`): the small dice far off in the dev photos show their ones at
#: 0.58 … 0.6; below, a blob's shape says little (a 4 px speck, a stroke of print).
SQUASHED_ONE_MIN_ROUNDNESS = 0.5
#: ... and its least minor axis, px: the ellipse of a blob a few px across says little about its
#: shape (the ones read so on the dev photos are 5.4 … 5.5 px across the minor axis; specks of print
#: and side-face pips 2 … 3.5).
SQUASHED_ONE_MIN_MINOR = 4.5
#: ... and no round pip (of its polarity) lies within this many of its face half-widths: the top
#: face is the die's face seen most squarely, so a squashed pip beside a round one is on a side face.
SQUASHED_ONE_CLEAR = 2.0


def _squashed_one_faces(p: Pip, grad, round_pips: list[Pip]) -> list[Face]:
    """Faces round a lone pip that is not round (a one seen obliquely): a pip is a disc on its face,
    so its ellipse is the face's own squash (an affine view of the face's plane). The edges round
    the pip are unsquashed by that ellipse (the gradients resampled on the disc's plane), the
    one's faces found there as for a round pip (:func:`_lone_faces`), and squashed back. None
    for a pip less round than ``SQUASHED_ONE_MIN_ROUNDNESS``."""
    rho = p.roundness
    if not SQUASHED_ONE_MIN_ROUNDNESS <= rho < TOP_MIN_ROUNDNESS or p.minor < SQUASHED_ONE_MIN_MINOR:
        return []
    reach = SQUASHED_ONE_CLEAR * HALF_WIDTH_PER_PIP * p.major
    if any(q.polarity == p.polarity and math.hypot(q.x - p.x, q.y - p.y) <= reach for q in round_pips):
        return []  # a face of this die is seen more squarely: this pip is on a side face
    a = math.radians(p.angle)
    u = np.array([math.cos(a), math.sin(a)])  # major axis (unsquashed)
    n = np.array([-u[1], u[0]])  # minor axis (squashed by rho)
    sq = np.outer(u, u) + rho * np.outer(n, n)  # plane → image, symmetric
    d = p.major  # the pip's true diameter, px
    r = int(math.ceil(2.6 * HALF_WIDTH_PER_PIP * d))
    # Destination (plane) px q ↦ image px sq @ (q − r) + pip: warpAffine's inverse map.
    m = np.hstack([sq, (np.array([p.x, p.y]) - sq @ np.array([r, r]))[:, None]])
    size = (2 * r + 1, 2 * r + 1)
    flags = cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP
    # Resampled in float32 (the gradients are int16) from the image square the plane's square
    # maps into (sq shrinks lengths, so within r√2 of the pip), its origin moved into the map.
    h, w = grad[0].shape
    reach_px = int(math.ceil(1.5 * r)) + 2
    x0, y0 = max(0, int(p.x) - reach_px), max(0, int(p.y) - reach_px)
    x1, y1 = min(w, int(p.x) + reach_px + 1), min(h, int(p.y) + reach_px + 1)
    m[:, 2] -= (x0, y0)
    gx = cv2.warpAffine(grad[0][y0:y1, x0:x1].astype(np.float32), m, size, flags=flags, borderMode=cv2.BORDER_REPLICATE)
    gy = cv2.warpAffine(grad[1][y0:y1, x0:x1].astype(np.float32), m, size, flags=flags, borderMode=cv2.BORDER_REPLICATE)
    # A grey level's gradient on the plane is sqᵀ times its gradient in the image.
    plane_grad = (sq[0, 0] * gx + sq[1, 0] * gy, sq[0, 1] * gx + sq[1, 1] * gy)
    disc = Pip(float(r), float(r), math.pi * d * d / 4, d, d, 0.0, p.contrast, p.polarity)
    out = []
    for f in _lone_faces(disc, plane_grad):
        lin = sq @ f.frame[:, :2]
        off = sq @ (f.frame[:, 2] - r) + np.array([p.x, p.y])
        out.append(Face(np.hstack([lin, off[:, None]]), (p,), 0.0))
    return out


#: Pips of one group differ in contrast by at most this factor (the pips of one die are printed
#: alike; a shadow's dark corner next to a die reads far fainter).
MAX_CONTRAST_RATIO = 1.6


#: Pips of one face lie at most this many mean diameters apart (:func:`group_pips`)...
GROUP_REACH = 4.2
#: ... and, on a die body where no die was read (the second look, :func:`_faint_pips`), this
#: many: a faint pip is found by its darkest core only, narrower than the pip.
FAINT_GROUP_REACH = 5.5


def group_pips(pips: list[Pip], reach: float = GROUP_REACH) -> list[list[Pip]]:
    """Connected groups of neighbouring pips: like polarity, size (diameters within 1.6×) and
    shape (roundness within 0.2, and squashed the same way), at most ``reach`` mean diameters
    apart."""
    n = len(pips)
    if n == 0:
        return []
    x, y, area, major, minor, ang, con, pol = np.array(
        [(p.x, p.y, p.area, p.major, p.minor, p.angle, p.contrast, p.polarity) for p in pips], np.float64).T
    d = 2.0 * np.sqrt(area / math.pi)  # Pip.diameter
    rnd = minor / np.maximum(major, 1e-6)  # Pip.roundness
    con = np.maximum(con, 1e-3)
    # Pairs near enough first (most pairs are not), then the other tests on those pairs only:
    # near along both axes (a distance is no shorter than either of its legs), then the distance.
    reach = reach * (d[:, None] + d[None]) / 2
    near_x, near_y = np.abs(x[:, None] - x[None]) <= reach, np.abs(y[:, None] - y[None]) <= reach
    i, j = np.nonzero(np.triu(near_x & near_y, 1))
    near = np.hypot(x[i] - x[j], y[i] - y[j]) <= reach[i, j]
    i, j = i[near], j[near]
    turn = np.abs(ang[i] - ang[j]) % 180.0
    turn = np.minimum(turn, 180.0 - turn)
    like = (
        (pol[i] == pol[j])
        & (np.maximum(d[i], d[j]) <= 1.6 * np.minimum(d[i], d[j]))
        # a top face's round pips and its side faces' squashed ones
        & (np.abs(rnd[i] - rnd[j]) <= 0.2)
        # squashed along different directions: two side faces
        & ((np.maximum(rnd[i], rnd[j]) >= 0.8) | (turn <= 30.0))
        # one die's pips are printed alike: a shadow's dark corner is a fainter blob than its pips
        & (np.maximum(con[i], con[j]) <= MAX_CONTRAST_RATIO * np.minimum(con[i], con[j]))
    )
    labels = _components_of(n, i[like], j[like])
    groups: dict[int, list[Pip]] = {}
    for i, k in enumerate(labels):
        groups.setdefault(int(k), []).append(pips[i])
    return list(groups.values())


def _components_of(n: int, i: np.ndarray, j: np.ndarray) -> list[int]:
    """Connected component label per node of a graph of ``n`` nodes and edges (i[k], j[k]): each
    node's label is the smallest index in its component (labels spread along the edges until
    nothing changes)."""
    labels = np.arange(n)
    while True:
        spread = labels.copy()
        np.minimum.at(spread, i, labels[j])
        np.minimum.at(spread, j, labels[i])
        if np.array_equal(spread, labels):
            return spread.tolist()
        labels = spread


def _sampler(grey: np.ndarray):
    """Mean grey level round sub-pixel points: over a square of half-side ``sigma`` px (at least
    1), from one integral image, so any window size costs the same. ``sample(pts, sigma)`` takes
    (..., 2) points and a ``sigma`` that broadcasts against ``pts[..., 0]`` (one per point, per
    face or one for all) and gives (...) float64 means."""
    integral = cv2.integral(grey, sdepth=cv2.CV_64F)
    h, w = grey.shape

    def sample(pts: np.ndarray, sigma) -> np.ndarray:
        r = np.maximum(1, np.round(sigma).astype(np.int64))
        xs = np.round(pts[..., 0]).astype(np.int64)
        ys = np.round(pts[..., 1]).astype(np.int64)
        x0, x1 = _clamp(xs - r, 0, w - 1), _clamp(xs + r + 1, 1, w)
        y0, y1 = _clamp(ys - r, 0, h - 1), _clamp(ys + r + 1, 1, h)
        total = integral[y1, x1] - integral[y0, x1] - integral[y1, x0] + integral[y0, x0]
        return total / np.maximum((x1 - x0) * (y1 - y0), 1)

    return sample


#: Places on a face that never carry a pip: the middles of the four edges, just inside.
_BARE = np.array([(0.0, -0.8), (0.8, 0.0), (0.0, 0.8), (-0.8, 0.0)])


#: Every layout variant as a (V, 9) mask of the places with a pip, and its value.
_LAYOUTS = np.array([[k in on for k in range(9)] for v, variants in PATTERNS.items() for on in variants])
_LAYOUT_VALUES = [v for v, variants in PATTERNS.items() for _ in variants]
_BARE_AND_PLACES = np.vstack([_BARE, _PLACES])

#: The most the die body may vary between its bare places (standard deviation, as a fraction of
#: its grey level): 0.05 or less on 90 % of the dev photos' faces, 0.07 … 1.2 on clutter.
MAX_BODY_SPREAD = 0.1


def read_faces(faces: list[Face], sample, polarity: np.ndarray) -> tuple[list[int | None], np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Which layout the nine pip places show on each face, for many faces at once (one batch of
    array operations, not one per face). A face's margin (0..1) is how much darker its faintest
    pip place is than its darkest bare place, relative to the bare body; a value with a margin
    below 0.12, or on a body that is not one plain colour, is None (but a five or a six on a body
    plain but for one faint mark: :func:`_one_mark_only`); a value whose layout a larger one's
    holds, with a pip-shaped faint spot standing clear of the body at each place that one adds (a
    worn pip: :func:`_worn_superset`), is None too.

    Args:
        faces: N fitted faces.
        sample: a :func:`_sampler` of the grey image.
        polarity: (N,) +1 for dark pips, −1 for light ones.

    Returns:
        ``(values, margins, body, let_off, worn)``: N values (None where no layout reads cleanly),
        (N,) float64 margins, (N,) float64 body grey levels (the median of the four bare places),
        (N,) bool: read only because one faint mark was let off the body (None without it), and
        (N,) int64: the value a face left None for a worn pip of a larger layout would have read
        (0 for every other face).
    """
    n = len(faces)
    if n == 0:
        return [], np.zeros(0), np.zeros(0), np.zeros(0, bool), np.zeros(0, np.int64)
    frames = np.array([f.frame for f in faces])  # (N, 2, 3)
    half = _half_widths(frames)
    sigma = np.maximum(0.7, 0.12 * half)
    pts = _BARE_AND_PLACES @ frames[:, :, :2].transpose(0, 2, 1) + frames[:, None, :, 2]  # (N, 13, 2)
    both = sample(pts, sigma[:, None])  # (N, 13)
    ref = np.median(both[:, :4], axis=1)
    dark = np.where((polarity > 0)[:, None],
                    (ref[:, None] - both) / np.maximum(ref, 20.0)[:, None],
                    (both - ref[:, None]) / np.maximum(255.0 - ref, 20.0)[:, None])
    bare_dark, dark = dark[:, :4], dark[:, 4:]
    on_min = np.where(_LAYOUTS[None], dark[:, None, :], np.inf).min(axis=2)  # (N, V)
    off_max = np.maximum(np.where(_LAYOUTS[None], -np.inf, dark[:, None, :]).max(axis=2),
                         bare_dark.max(axis=1)[:, None])
    margins = on_min - off_max
    k = np.argmax(margins, axis=1)
    best_m = margins[np.arange(n), k]
    # A die face is one plain colour between its pips: a patch of texture, print or clutter that
    # happens to have dark spots in a layout is not. The spread of the bare places (the four edge
    # middles and the grid places without a pip), each face over its own count of places.
    bare = np.concatenate([~_LAYOUTS[k], np.ones((n, 4), bool)], axis=1)
    vals = np.concatenate([dark, bare_dark], axis=1)
    count = bare.sum(axis=1)
    mean = np.where(bare, vals, 0.0).sum(axis=1) / count
    spread = np.sqrt(np.where(bare, (vals - mean[:, None]) ** 2, 0.0).sum(axis=1) / count)
    # A five's or a six's body may carry one faint mark (:func:`_one_mark_only`).
    let_off = np.zeros(n, bool)
    for i in np.flatnonzero(_NO_SUPERSET[k] & (spread > MAX_BODY_SPREAD) & (best_m >= 0.12)):
        pd = dark[i, _LAYOUTS[k[i]]]
        let_off[i] = (len(faces[i].pips) >= ONE_MARK_MIN_PIPS and pd.min() >= ONE_MARK_EVEN * np.median(pd)
                      and _one_mark_only(vals[i], bare[i], pd.min()))
    values = [None if (spread[i] > MAX_BODY_SPREAD and not let_off[i]) or best_m[i] < 0.12 else _LAYOUT_VALUES[k[i]]
              for i in range(n)]
    # A face whose layout lies inside a larger one's may be that larger face with worn pips
    # (:func:`_worn_superset`).
    worn = np.zeros(n, np.int64)
    cand = np.array([i for i in range(n) if values[i] is not None and _SUPERSETS[k[i]]], np.int64)
    if len(cand):
        shape = _pip_shapes(frames[cand], sample, ref[cand], polarity[cand])
        for i, sh in zip(cand.tolist(), shape):
            if _worn_superset(vals[i], sh, k[i]):
                worn[i], values[i] = values[i], None
    return values, best_m, ref, let_off, worn


#: Per layout variant, the places each larger layout variant adds to it ((9,) bool masks): a one's
#: centre lies in a three's and a five's, a two's diagonal in a three's, a four's, a five's and
#: both sixes', a three's in a five's, a four's corners in a five's and both sixes'.
_SUPERSETS = [[w & ~v for w in _LAYOUTS if (w & v).sum() == v.sum() and w.sum() > v.sum()] for v in _LAYOUTS]
#: Eight points round a pip place, face half-widths off it: outside a pip (whose radius is about
#: 0.18) and short of the next place (0.5 away along the grid, 0.39 from the centre's diagonal
#: ring point to a corner place). The axis points lie 0.18 from the next place, on a six's middle
#: pip's rim: the median of eight, not the darkest, so one or two such points do not count, but
#: a thin dark line through the place (a scratch, a hair) darkens only two and can pass as a pip.
_RING = 0.32 * np.stack([np.cos(np.arange(8) * np.pi / 4), np.sin(np.arange(8) * np.pi / 4)], axis=1)
#: A face is left unread when, at every place a larger layout adds, a spot stands out of its own
#: surroundings (the place's core darker than the median of a ring round it) by at least this
#: share of the face's faintest pip's darkness: a worn, half-filled or glared pip of that larger
#: face is a disc, where a plain body's shading, a side face's edge or a dark corner darkens the
#: ring as much as the core. On the tuning sets (bench/gem_probe.py seeds 0–19 with its plain
#: opaque dice, gem 0–59, simulated 0–99, real dev) right readings score 0.16 at most, the probe's
#: worn fives, sixes and threes (0.3–0.7 of a pip's contrast) mostly 0.25–0.6.
WORN_PIP_SHAPE = 0.2
#: And the added places must be darker than every other bare place of the face by this share of
#: the faintest pip's darkness (a gap, not a mere order: a plain die's bare places spread a little):
#: right readings score 0.12 at most (gem 0–59; real dev and simulated 0.01), worn pips mostly
#: 0.2–0.45; no right reading comes within 0.77 of both bounds at once.
WORN_PIP_GAP = 0.1


def _pip_shapes(frames: np.ndarray, sample, ref: np.ndarray, polarity: np.ndarray) -> np.ndarray:
    """How pip-like each of the nine places of M faces is: the darkness of a small core at the
    place less the median darkness of eight points round it (``_RING``), as :func:`read_faces`'
    darkness (relative to the body's grey level ``ref``; > 0 towards the pips' shade).

    Args:
        frames: (M, 2, 3) float64 face frames (face coordinates to working-image px).
        sample: a :func:`_sampler` of the grey image.
        ref: (M,) float64 body grey levels (0..255).
        polarity: (M,) +1 for dark pips, −1 for light ones.

    Returns:
        (M, 9) float64, places in ``_PLACES``' order.
    """
    half = _half_widths(frames)
    lin, off = frames[:, :, :2].transpose(0, 2, 1), frames[:, None, :, 2]
    core = sample(_PLACES @ lin + off, np.maximum(0.7, 0.08 * half)[:, None])  # (M, 9)
    ring_pts = ((_PLACES[:, None, :] + _RING[None]).reshape(-1, 2) @ lin + off).reshape(len(frames), 9, 8, 2)
    ring = np.median(sample(ring_pts, np.maximum(0.7, 0.06 * half)[:, None, None]), axis=2)
    scale = np.where(polarity > 0, np.maximum(ref, 20.0), np.maximum(255.0 - ref, 20.0))
    return np.where((polarity > 0)[:, None], ring - core, core - ring) / scale[:, None]


def _worn_superset(vals: np.ndarray, shape: np.ndarray, k: int) -> bool:
    """Whether a face read as layout variant ``k`` may be a larger layout (``_SUPERSETS[k]``)
    with worn pips: at each place that layout adds, a pip-shaped spot (``shape`` at least
    ``WORN_PIP_SHAPE`` of the face's faintest pip's darkness) darker than all the face's other
    bare places by a gap (``WORN_PIP_GAP`` of it).

    Args:
        vals: (13,) darkness of the nine places then the four edge middles, as :func:`read_faces`'
            ``vals`` (relative to the body; > 0 towards the pips' shade).
        shape: (9,) the places' pip shape (:func:`_pip_shapes`), same units.
        k: the face's layout variant (an index of ``_LAYOUTS``).
    """
    on = _LAYOUTS[k]
    faintest = max(vals[:9][on].min(), 1e-6)
    for extra in _SUPERSETS[k]:
        rest = np.concatenate([vals[:9][~on & ~extra], vals[9:]])
        if (shape[extra].min() >= WORN_PIP_SHAPE * faintest
                and vals[:9][extra].min() - rest.max() >= WORN_PIP_GAP * faintest):
            return True
    return False


#: The layout variants whose pips no other face's pips include: a five's and a six's (a one's
#: centre lies in a three's and a five's, a two's diagonal in a three's, a three's in a five's, a
#: four's corners in a five's and a six's). Only they may carry one faint mark besides their pips
#: (:func:`_one_mark_only`): with any other value a faint mark may be a worn, half-filled or glared
#: pip of a face of more pips (a five's faint centre pip on a four), so the face is left unread.
#: The mark is most often a clear die's face lying on the table seen through its body (opposite
#: faces sum to 7: a six shows a one, off the centre as the camera's slant moves it, a five a
#: two's corner), or the table's grain through the plastic.
_NO_SUPERSET = np.array([v in (5, 6) for v in _LAYOUT_VALUES])
#: Pips of the face found at least (of its five or six): the rest read from the places.
ONE_MARK_MIN_PIPS = 4
#: The mark may fill one place or two this far apart at most (face half-widths: a pip place and
#: the nearest edge middle are 0.3 apart, the centre and an edge middle 0.8): one blob.
ONE_MARK_REACH = 0.85
#: And the face's pips must be even: its faintest at least this share of their median darkness. A
#: four with a doubtful centre pip (0.75 of the others) and a faint mark on a bare place otherwise
#: fits a five's layout with the mark let off (a review's probe: 8 of 8 drawn clear dice read 5);
#: on the simulator's let-off fives and sixes the faintest pip is ≥ 0.96 of the median.
ONE_MARK_EVEN = 0.9
#: And stand off the body by this much of the faintest pip's darkness at most: the face below
#: shows through at well under a painted pip's contrast (the simulator's clear dice: 0.14 … 0.32).
ONE_MARK_MAX = 0.6
_BARE_PLACES_XY = np.vstack([_PLACES, _BARE])  # in the order of read_faces' ``vals``


def _one_mark_only(vals: np.ndarray, bare: np.ndarray, faintest_pip: float) -> bool:
    """Whether a face's body is one plain colour but for one faint mark: with the place farthest
    off the body's median, or the two farthest (off the same way, at most ``ONE_MARK_REACH``
    apart), left out, the other bare places spread at most ``MAX_BODY_SPREAD``, the mark lies
    beyond all of them, and it is at most ``ONE_MARK_MAX`` of the faintest pip's darkness off.

    Args:
        vals: (13,) darkness of the nine places then the four edge middles, as :func:`read_faces`'
            ``vals`` (relative to the body; > 0 towards the pips' shade, < 0 away from it).
        bare: (13,) bool, the places that carry no pip of the face's layout.
        faintest_pip: its faintest pip place's darkness (> 0).
    """
    idx = np.flatnonzero(bare)
    off = vals - np.median(vals[idx])  # (13,): each place off the body's median
    order = idx[np.argsort(-np.abs(off[idx]))]
    for drop in (order[:1], order[:2]):
        if len(drop) == 2 and (np.hypot(*(_BARE_PLACES_XY[drop[0]] - _BARE_PLACES_XY[drop[1]])) > ONE_MARK_REACH
                               or off[drop[0]] * off[drop[1]] <= 0):
            break
        rest = vals[np.setdiff1d(idx, drop)]
        mark = vals[drop]
        beyond = mark.min() > rest.max() or mark.max() < rest.min()
        if rest.std() <= MAX_BODY_SPREAD and beyond and np.abs(mark - np.median(rest)).max() <= ONE_MARK_MAX * faintest_pip:
            return True
    return False


#: Orbit representatives of the 3 × 3 places under the square's 8 symmetries (a corner, an
#: edge middle, the centre): the first pip of a hypothesis sits on one of them, which leaves one
#: hypothesis per distinct face layout.
_ORBITS = (0, 1, 4)
#: A face's half-width per pip diameter on a face of several pips, (min, max).
HALF_WIDTH_PER_PIP_RANGE = (1.8, 5.5)


@lru_cache(maxsize=None)
def _assignments(n: int) -> np.ndarray:
    """(K, n, 2) face coordinates of every way of putting n pips on distinct grid places, the
    first on an orbit representative (the others follow by the square's symmetry)."""
    out = [_PLACES[[first, *rest]] for first in _ORBITS
           for rest in itertools.permutations([k for k in range(9) if k != first], n - 1)]
    return np.array(out)


@lru_cache(maxsize=None)
def _assignment_terms(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For :func:`_placements`, per assignment of :func:`_assignments` (n): the places as complex
    numbers (K, n), their centred conjugates over their spread (K, n) (a pip set's least-squares
    similarity scale is that dotted with its centred centres) and their means (K,)."""
    c = _assignments(n)
    cz = c[..., 0] + 1j * c[..., 1]
    cc = cz - cz.mean(axis=1, keepdims=True)
    return cz, np.conj(cc) / np.maximum(np.sum(np.abs(cc) ** 2, axis=1), 1e-12)[:, None], cz.mean(axis=1)


def _placements(g: list[Pip]) -> list[Face]:
    """Every way of putting two or three pips on distinct places of the 3 × 3 grid that a
    similarity fits well: the pips found may be only part of the face (blur merges pips, glare
    hides some), so which places they are is left to :func:`read_faces` to decide."""
    return _placements_many([g])[0]


def _placements_many(sets: list[list[Pip]]) -> list[list[Face]]:
    """:func:`_placements` of many sets of pips at once, a batch of arrays per set size (each set's
    faces as it alone would give them: the same operations, element by element)."""
    out: list[list[Face]] = [[] for _ in sets]
    by_size: dict[int, list[int]] = {}
    for i, g in enumerate(sets):
        by_size.setdefault(len(g), []).append(i)
    for n, members in by_size.items():
        x = np.array([[p.x + 1j * p.y for p in sets[i]] for i in members])  # (C, n)
        cz, cc_conj, cz_mean = _assignment_terms(n)
        centre = x.mean(axis=1)
        a = np.einsum("kj,cj->ck", cc_conj, x - centre[:, None])  # (C, K): each set's similarities
        b = centre[:, None] - a * cz_mean
        h = np.abs(a)  # the similarity's scale: face half-width, px
        rms = np.sqrt(np.mean(np.abs(x[:, None] - (a[..., None] * cz + b[..., None])) ** 2, axis=2))
        mean_d = np.array([[p.diameter for p in sets[i]] for i in members]).mean(axis=1)[:, None]
        ok = ((h >= HALF_WIDTH_PER_PIP_RANGE[0] * mean_d) & (h <= HALF_WIDTH_PER_PIP_RANGE[1] * mean_d)
              & (rms < 0.12 * h))
        c, k = np.nonzero(ok)  # set by set, each set's assignments in order
        if len(c) == 0:
            continue
        a, b, h, rms = a[c, k], b[c, k], h[c, k], rms[c, k]
        # Symmetric assignments give the same face: keep one per (centre, half-width, turn mod 90°).
        keys = np.stack([np.round(b.real), np.round(b.imag), np.round(h),
                         np.round(np.degrees(np.angle(a)) % 90.0 / 3)], axis=1).tolist()
        frames = np.stack([np.stack([a.real, -a.imag, b.real], axis=1),
                           np.stack([a.imag, a.real, b.imag], axis=1)], axis=1)
        residual = (rms / h).tolist()
        seen: set[tuple[int, tuple[float, ...]]] = set()
        for j, (ci, key) in enumerate(zip(c.tolist(), map(tuple, keys))):
            if (ci, key) in seen:
                continue
            seen.add((ci, key))
            i = members[ci]
            out[i].append(Face(frames[j], tuple(sets[i]), residual[j]))
    return out


def _candidates(groups: list[list[Pip]], grad) -> list[list[Face]]:
    """Face hypotheses, a list per group of pips (the group's face is the best of them); a blurred
    six's two bars (:func:`_bar_sixes`) are looked for apart, over all the photo's pips.

    Only round pips can be on a top face. Two or three round pips: every placement on the grid
    (:func:`_placements`). More: fitted to their count's layout, else the best fit of them less
    one or two (a stray pip of a neighbouring die or a side face that joined them). A round pip
    alone in its group is a one; so is a round pip clearly larger, or clearly rounder
    (:func:`_rounder_one_pip`), than the squashed side-face pips it was grouped with."""
    out: list[list[Face]] = []
    round_pips = [p for group in groups for p in group if p.roundness >= TOP_MIN_ROUNDNESS]
    # Every group's first fit (all its round pips on their count's layout), a batch per count.
    first: dict[int, tuple[np.ndarray, np.ndarray]] = {}
    by_count: dict[int, list[tuple[int, list[Pip]]]] = {}
    for k, group in enumerate(groups):
        g = [p for p in group if p.roundness >= TOP_MIN_ROUNDNESS]
        if len(group) > 1 and 2 <= len(g) <= 6:
            by_count.setdefault(len(g), []).append((k, g))
    for n, members in by_count.items():
        res, frames = _fit_many(np.array([[(p.x, p.y) for p in g] for _, g in members], np.float64), n)
        for i, (k, _) in enumerate(members):
            first[k] = (res[i : i + 1], frames[i : i + 1])
    # Every one's faces and placements of the photo are found in one batch, after the groups
    # are walked.
    batch = _HypothesisBatch()
    for k, group in enumerate(groups):
        if len(group) == 1 and group[0].roundness >= TOP_MIN_ROUNDNESS:
            out.append(batch.faces_of(group[0], alone=True))  # a round pip alone: a one (as _group_faces would say)
        elif len(group) == 1 and group[0].roundness < TOP_MIN_ROUNDNESS:
            out.append(_squashed_one_faces(group[0], grad, round_pips))
        else:
            out += _group_faces(group, grad, first_fit=first.get(k), batch=batch)
    batch.resolve(grad)
    return out


class _HypothesisBatch:
    """Face hypotheses asked for while a photo's groups are walked, found for all at once when
    the walk is done: one's faces (:func:`_lone_faces_many`: one batch costs about what one pip
    alone does) and placements (:func:`_placements_many`)."""

    def __init__(self) -> None:
        # (pip, into, alone, the pip's partners when it is a pair's pip tried as a one)
        self._ones: list[tuple[Pip, list[Face], bool, tuple[Pip, ...]]] = []
        self._placements: list[tuple[list[Pip], list, object]] = []

    def faces_of(self, p: Pip, into: list[Face] | None = None, alone: bool = False,
                 large_only: tuple[Pip, ...] = ()) -> list[Face]:
        """The list ``into`` (a new one if None), to have ``p``'s one's faces put at its front
        by :meth:`resolve` (``alone``: the pip is alone in its group, see :func:`_lone_faces_many`;
        ``large_only``: the pip's partners in the pairs it was grouped in; if any, only its large
        one's face, ``LARGE_ONE_HALF_WIDTH``, and only if centred between its die's edges and
        clearly outlined, ``PAIRED_ONE_*``, its ``partners`` set)."""
        into = [] if into is None else into
        self._ones.append((p, into, alone or bool(large_only), large_only))
        return into

    def placements_of(self, g: list[Pip], into: list[Face] | None = None) -> list[Face]:
        """The list ``into`` (a new one if None), to have ``g``'s placements put by :meth:`resolve`
        where they would be had they been added now (a stand-in holds their place)."""
        into = [] if into is None else into
        stand_in = object()
        into.append(stand_in)
        self._placements.append((g, into, stand_in))
        return into

    def resolve(self, grad) -> None:
        """Finds the faces asked for: each set's placements in its stand-in's place, then each
        pip's one's faces at the front of its list."""
        found = _placements_many([g for g, _, _ in self._placements])
        for (_, into, stand_in), faces in zip(self._placements, found):
            k = next(i for i, f in enumerate(into) if f is stand_in)
            into[k : k + 1] = faces
        found = _lone_faces_many([p for p, _, _, _ in self._ones], grad, [a for _, _, a, _ in self._ones])
        for (_, into, _, partners), faces in zip(self._ones, found):
            if partners:
                # A pip of a pair tried as a one: only at its die's centre (a two's pip is at a
                # corner of its die).
                faces = [replace(f, partners=partners) for f in faces
                         if f.large_one and _edge_ratio(f, grad) <= PAIRED_ONE_MAX_EDGE_RATIO
                         and outline_strength(f, grad) >= PAIRED_ONE_MIN_OUTLINE]
            into[0:0] = faces
        self._ones, self._placements = [], []


#: The most roundness of a bar: a six's column of three pips merged into one blob by blur
#: (0.14 … 0.23 on the dev photos' blurred sixes; a pip drawn out by motion blur alone is rounder).
BAR_MAX_ROUNDNESS = 0.3
#: A bar's length per distance between the two columns of a six, (min, max): the column spans one
#: face half-width between its outer pips' centres plus a pip (0.4 half-widths), i.e. about 1.4;
#: 1.5 … 1.6 on the dev photos (blur lengthens it).
BAR_LENGTH_PER_SPACING = (1.1, 2.0)
#: The least width (minor axis) of a bar, px: blur that merges pips widens them; a stroke 2 or 3
#: px wide is a side face's pip squashed edge-on (simulated black dice) or print, and pips narrower
#: than 4 px are below what the reader is built for (``WORK_SIDE``). 5 … 6 px on the dev photos.
BAR_MIN_WIDTH = 4.0
#: The outline of a face of bars is looked for round the face grown by this factor (0.92 … 1.5
#: half-widths out, not 0.8 … 1.3): the bars' own blurred ends reach 0.8 and, on a plain sheet,
#: read as an outline of 3 … 15 grey levels per px; grown, 0.6 (a die's: 7 … 20).
BAR_OUTLINE_GROWTH = 1.15


#: A row of three round pips that stands in for a bar (:func:`_pip_rows`): how far off the line
#: through its end pips the middle pip may lie, and how far from their midpoint along it, per
#: the row's length; and how much the three pips' diameters may differ (largest / smallest).
ROW_STRAIGHT = 0.12
ROW_EVEN = 1.3
#: The least |cos| between a row of pips and the bar beside it, or between a row's bar and the
#: line of a two or three (:func:`_row_of_larger`): within 15°, as a six's columns lie.
ROW_BAR_ALONG = math.cos(math.radians(15.0))


def _pip_rows(pips: list[Pip], bars: list[Pip]) -> list[tuple[Pip, Pip, Pip]]:
    """Rows of three round pips (``TOP_MIN_ROUNDNESS``) of like size (``ROW_EVEN``), evenly
    spaced on a line (``ROW_STRAIGHT``), that lie beside a bar of ``bars`` as a six's columns lie
    (the middle pip within ``BAR_LENGTH_PER_SPACING`` of the bar's length away, across it): a
    blurred six whose one column merged into a bar and the other not. (end, middle, end)."""
    out: list[tuple[Pip, Pip, Pip]] = []
    round_pips = [p for p in pips if p.roundness >= TOP_MIN_ROUNDNESS]
    if not bars or len(round_pips) < 3:
        return out
    xy = np.array([(p.x, p.y) for p in round_pips], np.float64)
    pol = np.array([p.polarity for p in round_pips])
    for bar in bars:
        ax, ay = math.cos(math.radians(bar.angle)), math.sin(math.radians(bar.angle))
        lo, hi = bar.major / BAR_LENGTH_PER_SPACING[1], bar.major / BAR_LENGTH_PER_SPACING[0]
        dx, dy = xy[:, 0] - bar.x, xy[:, 1] - bar.y
        spacing = np.hypot(dx, dy)
        middles = np.nonzero((pol == bar.polarity) & (spacing >= lo) & (spacing <= hi)
                             & (np.abs(dx * ax + dy * ay) <= 0.25 * spacing))[0]
        for i in middles.tolist():
            m = round_pips[i]
            near = np.nonzero((pol == m.polarity) & (np.hypot(xy[:, 0] - m.x, xy[:, 1] - m.y) < 0.5 * bar.major))[0]
            ends = [round_pips[k] for k in near.tolist() if k != i]
            for a, b in itertools.combinations(ends, 2):
                sizes = (a.diameter, m.diameter, b.diameter)
                length = math.hypot(b.x - a.x, b.y - a.y)
                if max(sizes) > ROW_EVEN * min(sizes) or length < 1e-6:
                    continue
                tx, ty = (b.x - a.x) / length, (b.y - a.y) / length
                ox, oy = m.x - (a.x + b.x) / 2, m.y - (a.y + b.y) / 2
                if (abs(ox * tx + oy * ty) > ROW_STRAIGHT * length or abs(oy * tx - ox * ty) > ROW_STRAIGHT * length
                        or abs(tx * ax + ty * ay) < ROW_BAR_ALONG):
                    continue  # not evenly in a line, or not parallel to the bar
                out.append((a, m, b))
    return out


def _bar_sixes(pips: list[Pip], grad) -> list[list[Face]]:
    """Six hypotheses from pairs of bars (:data:`BAR_MAX_ROUNDNESS`): a blurred six whose two
    columns of pips each merged into one elongated blob. Two bars of like length, width and
    direction, side by side (one face half-width apart across, little along), make a face whose
    columns they are; :func:`read_faces` decides whether its nine places show a six, and the face
    must be outlined like a die (:func:`outline_strength`, beyond the bars' blurred ends), as a
    one is: a pair of parallel strokes on a larger plain surface is not a die."""
    bars = [p for p in pips if p.roundness <= BAR_MAX_ROUNDNESS and p.minor >= BAR_MIN_WIDTH]
    out: list[list[Face]] = []
    # A column whose pips stayed apart (blur merged only the other): three round pips in a line,
    # stood in for by the bar they would make (their axis, their length end to end plus a pip).
    own: dict[int, tuple[Pip, ...]] = {}
    for row in _pip_rows(pips, bars):
        (a, m, b), q = row, row[1]
        d = float(np.mean([p.diameter for p in row]))
        length = math.hypot(b.x - a.x, b.y - a.y)
        bar = Pip(m.x, m.y, q.area, length + d, d, math.degrees(math.atan2(b.y - a.y, b.x - a.x)), q.contrast, q.polarity)
        own[id(bar)] = row
        bars.append(bar)
    for b1, b2 in itertools.combinations(bars, 2):
        if b1.polarity != b2.polarity or (id(b1) in own and id(b2) in own):
            continue  # (two rows of round pips are a six's columns, fitted as such)
        if max(b1.major, b2.major) > 1.3 * min(b1.major, b2.major) or max(b1.minor, b2.minor) > 1.5 * min(b1.minor, b2.minor):
            continue
        turn = abs(b1.angle - b2.angle) % 180.0
        if min(turn, 180.0 - turn) > 15.0:
            continue
        a1, a2 = math.radians(b1.angle), math.radians(b2.angle)
        axis = np.array([math.cos(a1) + math.cos(a2) * np.sign(math.cos(a1 - a2)),
                         math.sin(a1) + math.sin(a2) * np.sign(math.cos(a1 - a2))])
        axis /= max(np.linalg.norm(axis), 1e-9)
        sep = np.array([b2.x - b1.x, b2.y - b1.y])
        spacing = float(np.linalg.norm(sep))
        if spacing < 1e-6 or abs(float(sep @ axis)) > 0.25 * spacing:
            continue  # not side by side
        length = (b1.major + b2.major) / 2
        if not BAR_LENGTH_PER_SPACING[0] <= length / spacing <= BAR_LENGTH_PER_SPACING[1]:
            continue
        # Columns at u = ±0.5: the face's u axis is the bars' separation, its v axis along them.
        frame = np.column_stack([sep, axis * spacing, [(b1.x + b2.x) / 2, (b1.y + b2.y) / 2]])
        f = Face(frame, own.get(id(b1), (b1,)) + own.get(id(b2), (b2,)), 0.0)
        # Blur draws the bars out to about 0.8 half-widths, where the outline is looked for: look
        # beyond them, round a face grown by BAR_OUTLINE_GROWTH.
        grown = Face(np.column_stack([frame[:, :2] * BAR_OUTLINE_GROWTH, frame[:, 2]]), f.pips, 0.0)
        if outline_strength(grown, grad) >= MIN_ONE_OUTLINE:
            out.append([f])
    return out


def _two_means(g: list[Pip]) -> tuple[list[Pip], list[Pip]]:
    """Split pips in two by 2-means on their centres, started from the farthest pair."""
    x = np.array([(p.x, p.y) for p in g])
    d2 = np.sum((x[:, None] - x[None]) ** 2, axis=2)  # squared distances: the same nearest and farthest
    i, j = np.unravel_index(int(np.argmax(d2)), d2.shape)
    c = x[[i, j]].astype(np.float64)
    lab = None
    for _ in range(10):
        new = np.argmin(np.sum((x[:, None] - c[None]) ** 2, axis=2), axis=1)
        if new.min() == new.max() or (lab is not None and np.array_equal(new, lab)):
            lab = new
            break  # one side empty, or settled: further rounds change nothing
        lab = new
        c = np.array([x[lab == k].mean(axis=0) for k in (0, 1)])
    return [p for p, k in zip(g, lab) if k == 0], [p for p, k in zip(g, lab) if k == 1]


#: How much rounder (minor / major axis) than every other pip of its group a pip must be to be
#: tried as a one by itself: a die seen obliquely shows its top face's one beside a side face's
#: pips, squashed more (0.10 … 0.12 rounder on the dev photos' such dice), and the two faces' pips
#: are alike enough to be grouped; pips of one face differ by less (ellipse fits of 8 px blobs
#: scatter by ±0.05).
ONE_ROUNDER_BY = 0.09
#: ... and at least this fraction of the largest other pip's diameter: a one's pip is no smaller
#: than a side face's (0.90 … 0.96 on those dice, the side faces being nearer the camera); a
#: speck of a few px, whose ellipse fit says little about its shape, is (0.76 on a clutter case).
ONE_MIN_SIZE_RATIO = 0.85


def _rounder_one_pip(group: list[Pip], g: list[Pip]) -> Pip | None:
    """The roundest pip of ``group`` if it is clearly rounder (``ONE_ROUNDER_BY``) than all the
    others and not smaller (``ONE_MIN_SIZE_RATIO``), else None: the top face's one among the
    squashed pips of the die's side faces, to be tried as a one (:func:`_lone_faces`). ``g`` is
    the group's round pips. None too when another of ``g`` is as round as a top face's pip
    (``PAIR_MIN_ROUNDNESS``): then the two are a two's or a three's pips, whose ellipse fits
    scatter, and the rounder one's one-face, centred on a corner of the die, could outread them.
    Whether it is a one is left to :func:`read_faces` and the checks after it (outline, no other
    pip on the face)."""
    top = max(g, key=lambda p: p.roundness)
    others = [p.roundness for p in group if p is not top]
    if not others or top.roundness < max(others) + ONE_ROUNDER_BY:
        return None
    if top.diameter < ONE_MIN_SIZE_RATIO * max(p.diameter for p in group if p is not top):
        return None
    if any(p is not top and p.roundness >= PAIR_MIN_ROUNDNESS for p in g):
        return None  # another pip as round as a top face's: a two's or three's, not a side face's
    return top


#: The least roundness of both pips of a pair taken apart from the rest of its group
#: (:func:`_group_faces`): top-face pips seen squarely are round (0.85 … 1 on the simulated dice);
#: a side face's, foreshortened, are less so, though some pass ``TOP_MIN_ROUNDNESS``. Also
#: what keeps the rounder of two such pips from being tried as a one (:func:`_rounder_one_pip`).
PAIR_MIN_ROUNDNESS = 0.8


def _group_faces(group: list[Pip], grad, depth: int = 0,
                 first_fit: tuple[np.ndarray, np.ndarray] | None = None,
                 batch: _HypothesisBatch | None = None, left_over: bool = False) -> list[list[Face]]:
    """Hypotheses for one group (see :func:`_candidates`); a group of more round pips than one
    face holds, or that fits no layout, is two touching dice: it is split in two and each part
    is tried again. ``first_fit``: :func:`_fit_many`'s result for all the group's round pips,
    when already found (with other groups' in one batch). ``batch``: where a one's faces and
    placements are asked for, to be found later with others' (None: found at once).
    ``left_over``: the pips a fit of a larger group left out (a touching die's face), whose round
    pips are not tried as a one among the others (the larger or rounder pip of a two is no one)."""
    if batch is None:
        batch = _HypothesisBatch()
        out = _group_faces(group, grad, depth, first_fit, batch, left_over)
        batch.resolve(grad)
        return out
    g = [p for p in group if p.roundness >= TOP_MIN_ROUNDNESS]
    if len(group) == 1 and len(g) == 1:
        return [batch.faces_of(g[0], alone=True)]
    faces: list[Face] = []
    if g and not (left_over and len(g) >= 2):
        big = max(g, key=lambda p: p.diameter)
        rest = [p.diameter for p in group if p is not big]
        if big.diameter >= 1.15 * statistics.median(rest) and big.roundness >= max(p.roundness for p in group):
            batch.faces_of(big, faces)
        else:
            top = _rounder_one_pip(group, g)
            if top is not None:
                batch.faces_of(top, faces)
    if len(g) < len(group) and 4 <= len(group) <= 6:
        # Pips drawn out by motion blur are not round, but their centres still lie on a square
        # face's layout; a side face's layout is foreshortened (its fit is squashed).
        f = _fit(group, len(group))
        if f is not None and f.residual < 0.1 and f.squash >= BLURRED_FACE_MIN_SQUASH:
            faces.append(f)
            # All the group's pips are one face: a subset of them (a six's column) is no face.
            return [faces]
    if 2 <= len(g) <= 3:
        batch.placements_of(g, faces)
    fitted = False
    xy = np.array([(p.x, p.y) for p in g], np.float64).reshape(-1, 2)
    for drop in range(0, min(3, len(g) - 1)):
        if len(g) - drop > 6:
            continue
        if len(g) - drop == 2:
            # Any two pips fit a two exactly, so the fit cannot choose between the pairs: each
            # pair of clearly round pips (a top face's, seen squarely) gets its placements as a
            # die's face hypotheses of its own (touching dice's pips, or a top face's and its
            # side faces' grouped together).
            pairs = [(a, b) for a, b in itertools.combinations(g, 2)
                     if min(a.roundness, b.roundness) >= PAIR_MIN_ROUNDNESS]
            if pairs:
                # Each of them may also be a one of its own (two touching dice showing ones,
                # their pips grouped as a two's): its large one's face, a group of its own, which
                # a two's other pip refuses as crowded (_crowded); a two read on two such ones
                # is dropped (_top_faces).
                apart: dict[int, tuple[Pip, tuple[Pip, ...]]] = {}  # id(pip) -> (pip, its partners)
                for a, b in pairs:
                    for p, q in ((a, b), (b, a)):
                        if math.hypot(p.x - q.x, p.y - q.y) >= PAIRED_ONE_MIN_APART * LARGE_ONE_HALF_WIDTH * p.diameter:
                            apart[id(p)] = (p, apart.get(id(p), (p, ()))[1] + (q,))
                return ([faces] + [batch.placements_of([a, b]) for a, b in pairs]
                        + [batch.faces_of(p, large_only=qs) for p, qs in apart.values()])
        keeps = np.array(list(itertools.combinations(range(len(g)), len(g) - drop)))
        res, frames = first_fit if drop == 0 and first_fit is not None else _fit_many(xy[keeps], len(g) - drop)
        # A fit squashed more than a top face can be (pips of two touching dice) is no fit: it
        # would keep the right subset from being tried.
        res = np.where(_squashes(frames) < MIN_FACE_SQUASH, np.inf, res)
        j = int(np.argmin(res))  # the first of equal fits, as the combinations come
        if res[j] < 0.15:
            faces.append(Face(frames[j], tuple(g[i] for i in keeps[j]), float(res[j])))
            fitted = True
            break
    if (len(g) > 6 or (not fitted and len(g) >= 4)) and depth < 3:
        a, b = _two_means(g)
        if a and b:
            return ([faces] + _group_faces(a, grad, depth + 1, batch=batch)
                    + _group_faces(b, grad, depth + 1, batch=batch))
    if fitted and drop > 0 and depth < 3:
        # The pips left out of the fit may be a touching die's (their pips grouped as alike):
        # they are tried as a group of their own.
        used = {id(p) for p in faces[-1].pips}
        rest = [p for p in group if id(p) not in used]
        return [faces] + _group_faces(rest, grad, depth + 1, batch=batch, left_over=True)
    return [faces]


#: The lightest body (grey level) on which a lone light spot may be a one's pip: light pips are
#: painted on dark or coloured dice; on an ivory die a light spot is a glint.
MAX_LIGHT_PIP_BODY = 150.0

#: The least chroma ((max − min) / 255 of B, G, R) of a die body round a lone light pip: light
#: pips are painted on coloured dice (a red or blue die ≈ 0.4 … 0.6 in light and shade); a black die's
#: one is given up rather than every reflection on a black cable or key read as a one.
MIN_LIGHT_PIP_CHROMA = 0.25


#: A lone light pip on a grey or black body (chroma under ``MIN_LIGHT_PIP_CHROMA``) is still read
#: as a black die's one when it looks painted, not reflected: as round as a top face's pip seen
#: squarely (a glint on a cable or a key is a streak), ...
DARK_ONE_MIN_ROUNDNESS = 0.8
#: ... as contrasted as paint (a white pip on a black die is the starkest blob on the photo: 0.6 …
#: 0.8 on the simulated ones; a reflection on a grey key or a lit fleck fainter), ...
DARK_ONE_MIN_CONTRAST = 0.5
#: ... ringed by a clear outline (:func:`outline_strength`, twice ``MIN_ONE_OUTLINE``: a black
#: die's edge on a lighter table is a stark step; a two's pip taken for a one, its face centred on
#: a corner of the die, has the die's edge on two sides only: 2.2 … 2.4 on the simulated twos), ...
DARK_ONE_MIN_OUTLINE = 3.0
#: ... and lying at its die's centre: along each of the face's axes the strongest edges on either
#: side (:func:`_strongest_edge_distances`, out to 1.6 half-widths) lie at most this many times as
#: far on one side as on the other (a one's side faces and perspective: up to 1.7 on the simulated
#: black dice; a two's or three's corner pip has its die's far edge three times as far as the near).
DARK_ONE_MAX_EDGE_RATIO = 1.8
#: ... and on a square body, not a round one (a dark coin, a bottle cap, a round button with a
#: light dot at its centre all passed the rules above, and the verifier, as ones):
#: :func:`_squareness` at least this. On the simulated black dice's ones mostly 0.2 … 0.6 (3 of
#: 164 below), on dark coins and bottle caps mostly under it (11 of 165 at or above it).
DARK_ONE_MIN_SQUARENESS = 0.2
#: The circles round the pip that :func:`_squareness` samples, in face half-widths: just outside
#: a square face's sides, which its corners (√2 out, less their rounding) still reach.
SQUARENESS_RADII = (1.05, 1.15, 1.3)
#: ... and a circle counts only where its lightest tenth is this much lighter than the body (grey
#: levels): one that never leaves the body sees no square.
SQUARENESS_MIN_STEP = 12.0
_SQUARENESS_TURNS = np.arange(32) * (2 * math.pi / 32)


def _painted_dark_one(f: Face, value: int | None, grad, sample) -> bool:
    """Whether a lone light pip's face on a grey or black body is a black die's one
    (``DARK_ONE_*``: a round, stark pip at the centre of a clearly outlined, square face) rather
    than a reflection on a black or grey thing or a dot on a round one. ``grad``: the image's
    (gx, gy) gradients; ``sample``: its :func:`_sampler`."""
    p = f.pips[0]
    if value != 1 or p.roundness < DARK_ONE_MIN_ROUNDNESS or p.contrast < DARK_ONE_MIN_CONTRAST:
        return False
    if outline_strength(f, grad) < DARK_ONE_MIN_OUTLINE:
        return False
    return _edge_ratio(f, grad) <= DARK_ONE_MAX_EDGE_RATIO and _squareness(f, sample) >= DARK_ONE_MIN_SQUARENESS


def _edge_ratio(f: Face, grad) -> float:
    """How far off its die's centre a one's face ``f`` lies: along each of the face's axes the
    strongest edges on either side of its pip (:func:`_strongest_edge_distances`, out to 1.6
    half-widths), the larger of the two distances per the smaller; the largest of the two axes'
    (1 for a pip at the centre of a square; about 3 for a two's or three's corner pip)."""
    turn = math.atan2(f.frame[1, 0], f.frame[0, 0])
    # The search runs out to 2.2 guesses: a guess of 1.6 / 2.2 half-widths reaches 1.6 of them.
    d = _strongest_edge_distances([f.pips[0]], [1.6 / 2.2 * f.half_width], np.array([turn]), *grad)[0]  # (4,) px
    return float(max(d[0] / d[2], d[2] / d[0], d[1] / d[3], d[3] / d[1]))


def _squareness(f: Face, sample) -> float:
    """How square the dark body round a lone light pip is: on circles round the pip
    (``SQUARENESS_RADII`` half-widths of ``f``, 32 points each, grey levels from ``sample``, a
    :func:`_sampler`) a square body's corners are body and the middles of its sides lie beyond it,
    so the grey level swings four times round the circle; a round body's circle is all body or all
    beyond. The swing is the circle's fourth Fourier harmonic (its amplitude, grey levels: it does
    not depend on the square's turn, which the face's own turn may have wrong) per the step from
    the body (the median grey 1.4 pip diameters from the pip's centre, on the face) to the
    lightest tenth of the circle (a circle whose step is under ``SQUARENESS_MIN_STEP`` scores 0);
    the largest over the circles, ≥ 0 (about 0.6 for a square's sharp swing, near 0 for a disc;
    a touching die or a side face's pips lower a die's, a coin's rim raises a disc's)."""
    p = f.pips[0]
    unit = np.stack([np.cos(_SQUARENESS_TURNS), np.sin(_SQUARENESS_TURNS)], axis=1)  # (32, 2)
    centre = np.array([p.x, p.y])
    body = float(np.median(sample(centre + 1.4 * p.diameter * unit, 1.0)))
    radii = np.array(SQUARENESS_RADII) * f.half_width
    grey = sample(centre + radii[:, None, None] * unit[None], 1.0)  # (R, 32)
    swing = np.abs(grey @ np.exp(-4j * _SQUARENESS_TURNS)) * (2 / len(_SQUARENESS_TURNS))  # (R,)
    step = np.percentile(grey, 90, axis=1) - body
    # A circle that never leaves the body (a glint in a large dark pip, its face guessed smaller
    # than the pip) sees no square, only the body's noise: it scores 0 (the review found such
    # glints in an ivory five's pips read as a one).
    return float(np.max(np.where(step >= SQUARENESS_MIN_STEP, swing / np.maximum(step, 1.0), 0.0)))


def _chromas(img: np.ndarray, frames: np.ndarray) -> np.ndarray:
    """Median chroma (0..1) of the BGR image at each face's bare places: ``frames`` (N, 2, 3)
    float64 → (N,) float64."""
    h, w = img.shape[:2]
    pts = np.round(_BARE @ frames[:, :, :2].transpose(0, 2, 1) + frames[:, None, :, 2]).astype(int)  # (N, 4, 2)
    px = img[_clamp(pts[..., 1], 0, h - 1), _clamp(pts[..., 0], 0, w - 1)].astype(np.float64)  # (N, 4, 3)
    return np.median((px.max(axis=2) - px.min(axis=2)) / 255.0, axis=1)


#: A seam between two touching dice across a two's diagonal (:func:`seam_across`): a two read on
#: one pip of each of two touching dice (their pips grouped together) is a phantom die, a wrong
#: sum. Its diagonal crosses both dice's edges: a line darker or lighter than the bodies (the gap,
#: a side face, a rim) and, where the dice differ, a step in colour; a true two's diagonal crosses
#: plain body, its grey level falling from one pip and rising to the other (a clear die's face
#: below shows through it as a spot, off the outer lines). The most a bump or dip on the body
#: between the pips may be, in pip contrasts (0 the body, 1 the pips), the least over the lines.
#: Set on the two readings of every group of the tuning sets (rules passed, verifier aside): right
#: twos reach 0.089 (gem 0–59, 82 dice), 0.038 (simulated 0–99, 282), 0.014 (real dev, blurred
#: small dice included); twos read across two dice's seam were caught 12 of 13 (gem) and 34 of 46
#: (simulated), every one kept on main but two on black dice (a black die's seam, black on black,
#: shows nothing: 0.02) and one on blue ones (0.095).
SEAM_MAX_SHAPE = 0.11
#: ... and the largest step in chroma (CIE Lab a, b: the means of 0.25 half-widths of the line
#: either side of a point), per the pip–body contrast in L: right twos reach 0.042 (gem), 0.035
#: (simulated), 0.028 (real dev); gem twos across dice of unlike colours 0.15–0.68.
SEAM_MAX_COLOUR = 0.12
#: The lines along the diagonal (face half-widths off the pips' segment, across it): a seam
#: crosses every one; a spot (a worn centre pip, the face below seen through a clear die) lies on
#: the inner ones only, so the least over the lines is taken. With the inner three alone, 7 of 100
#: worn threes' diagonals on gem_probe three-centre 0–19 passed for seams (with ±0.4: 2).
SEAM_OFFSETS = (-0.4, -0.2, 0.0, 0.2, 0.4)
#: The body between a two's pips, on the segment joining them: where the grey level is nearer the
#: body's than this fraction of the pip–body contrast (the pips' flanks, however blurred, are not).
SEAM_BODY = 0.25


def seam_across(f: Face, img: np.ndarray) -> tuple[float, float]:
    """How much the segment between a two's two pips looks like it crosses a seam between two
    dice: ``(shape, colour)``, compared with ``SEAM_MAX_SHAPE`` and ``SEAM_MAX_COLOUR``. On each
    of ``SEAM_OFFSETS`` lines along the segment, over the body between the pips (where the centre
    line's grey level is nearer the body's than ``SEAM_BODY`` of the pips' contrast, from the first
    such point past one pip to the last before the other, so that a blurred pip's flank is left
    out however wide it is and a seam within is kept), in pip contrasts (0 the body's median grey
    level, 1 the pips'): ``shape`` the highest bump (above the lowest point both before and after
    it) or deepest dip (below the highest point both before and after it), and ``colour`` the
    largest step in chroma (Lab a, b) between the means of 0.25 half-widths either side of a point,
    per the pips' contrast in L; each the least over the lines. ``img`` is the (H, W, 3) uint8 BGR
    working image; the lines are sampled every 0.5 px (bilinear, after a 3 × 3 box blur of the
    segment's crop). (0, 0) for a segment too short to measure."""
    p, q = f.pips[0], f.pips[1]
    a = np.array([p.x, p.y])
    length = math.hypot(q.x - p.x, q.y - p.y)
    if length < 4.0:
        return 0.0, 0.0
    ts = np.arange(0.0, length + 0.01, 0.5)
    u = (np.array([q.x, q.y]) - a) / length
    n = np.array([-u[1], u[0]])
    # The segment itself first (where the pips and the body between them are measured), then the
    # lines a seam is looked for on.
    offsets = np.array((0.0,) + tuple(SEAM_OFFSETS))
    lines = a + ts[None, :, None] * u + offsets[:, None, None] * f.half_width * n  # (1 + L, T, 2)
    h, w = img.shape[:2]
    x0, y0 = (max(0, int(math.floor(v)) - 3) for v in lines.reshape(-1, 2).min(axis=0))
    x1, y1 = int(math.ceil(lines[..., 0].max())) + 4, int(math.ceil(lines[..., 1].max())) + 4
    crop = img[y0:min(h, y1), x0:min(w, x1)]
    if crop.shape[0] < 3 or crop.shape[1] < 3:
        return 0.0, 0.0
    lab = cv2.cvtColor(cv2.blur(crop, (3, 3)), cv2.COLOR_BGR2LAB).astype(np.float32)
    xs = np.clip(lines[..., 0] - x0, 0, crop.shape[1] - 1.001).astype(np.float32)
    ys = np.clip(lines[..., 1] - y0, 0, crop.shape[0] - 1.001).astype(np.float32)
    col = cv2.remap(lab, xs, ys, cv2.INTER_LINEAR).astype(np.float64)  # (1 + L, T, 3)
    grey = col[..., 0]
    t_n = len(ts)
    body = np.median(col[0, t_n // 3 : max(t_n // 3 + 1, 2 * t_n // 3)], axis=0)
    pip = 0.5 * (col[0, 0] + col[0, -1])
    contrast = pip[0] - body[0] if abs(pip[0] - body[0]) > 1.0 else 1.0
    ink = (grey[0] - body[0]) / contrast
    low = np.flatnonzero(ink < SEAM_BODY)
    if len(low) < 4:
        return 0.0, 0.0
    inner = np.zeros(t_n, bool)
    inner[low[0] : low[-1] + 1] = True
    if inner.sum() < 4:
        return 0.0, 0.0
    # In ink units (0 the body, 1 the pips), each line: a bump (a rise of the floor between the
    # pips, higher than the lowest point both before and after it) or a dip (below the body's
    # highest point both before and after it, within the body).
    v = (grey[1:, inner] - body[0]) / contrast  # (L, I)
    pre_min = np.minimum.accumulate(v, axis=1)
    suf_min = np.minimum.accumulate(v[:, ::-1], axis=1)[:, ::-1]
    pre_max = np.maximum.accumulate(v, axis=1)
    suf_max = np.maximum.accumulate(v[:, ::-1], axis=1)[:, ::-1]
    bump = (v - np.maximum(pre_min, suf_min)).max(axis=1)
    dip = (np.minimum(pre_max, suf_max) - v).max(axis=1)
    shape = float(np.maximum(bump, dip).min())
    # The colour step at each inner point: the means of the window before it and after it, in
    # chroma (a, b) only.
    col = col[1:, :, 1:]
    pip, body = pip[1:], body[1:]
    k = max(2, int(0.25 * f.half_width / 0.5))
    idx = np.flatnonzero(inner)
    cum = np.concatenate([np.zeros((len(SEAM_OFFSETS), 1, 2)), np.cumsum(col, axis=1)], axis=1)
    lo = np.maximum(idx[0], idx - k)
    hi = np.minimum(idx[-1] + 1, idx + k)
    ok = (idx - lo >= 2) & (hi - idx >= 2)
    if not ok.any():
        return shape, 0.0
    lo, mid, hi = lo[ok], idx[ok], hi[ok]
    before = (cum[:, mid] - cum[:, lo]) / (mid - lo)[None, :, None]
    after = (cum[:, hi] - cum[:, mid]) / (hi - mid)[None, :, None]
    colour_step = np.linalg.norm(before - after, axis=2).max(axis=1).min()
    return shape, float(colour_step) / abs(contrast)


def _seam_between(f: Face, img: np.ndarray) -> bool:
    """Whether a two's diagonal crosses a seam between two dice (:func:`seam_across`,
    ``SEAM_MAX_SHAPE``, ``SEAM_MAX_COLOUR``)."""
    shape, colour = seam_across(f, img)
    return shape > SEAM_MAX_SHAPE or colour > SEAM_MAX_COLOUR


#: The least outline (grey levels per px, :func:`outline_strength`) round a one: 98 % of the ones
#: on the dev photos have more; most dark spots read as ones on cables and tables have less.
MIN_ONE_OUTLINE = 1.5


#: Where :func:`outline_strength` looks, in face coordinates: per side (right, down, left, up: its
#: outward normal), 6 distances out along the normal times 3 places along the side.
_OUTLINE_NORMALS = np.array([(1.0, 0.0), (0.0, 1.0), (-1.0, 0.0), (0.0, -1.0)])
_OUTLINE_RHO = np.linspace(0.8, 1.3, 6)
_OUTLINE_POINTS = np.array([rho * n + t * np.array([-n[1], n[0]])
                            for n in _OUTLINE_NORMALS for rho in _OUTLINE_RHO for t in (-0.5, 0.0, 0.5)])


def outline_strength(face: Face, grad) -> float:
    """How clearly the face is outlined: on each of its four sides the strongest grey-level step
    across the side between 0.8 and 1.3 half-widths out (the fitted size is only approximate),
    the median of three points along the side; the third strongest of the four sides, in grey
    levels per px. A die's top face meets its side faces or the table on every side; a layout of
    spots on a larger plain surface (reflections on a cable) has no outline there."""
    gx, gy = grad
    h, w = gx.shape
    img_pts = face.to_image(_OUTLINE_POINTS)  # (4 · 6 · 3, 2)
    nd = _OUTLINE_NORMALS @ face.frame[:, :2].T  # (4, 2): each side's normal in image px
    nd = nd / np.maximum(np.linalg.norm(nd, axis=1, keepdims=True), 1e-9)
    xs = _clamp(np.round(img_pts[:, 0]).astype(int), 0, w - 1)
    ys = _clamp(np.round(img_pts[:, 1]).astype(int), 0, h - 1)
    step = np.abs(gx[ys, xs].reshape(4, -1) * nd[:, :1] + gy[ys, xs].reshape(4, -1) * nd[:, 1:])
    # The median of three is the middle one.
    sides = np.sort(step.reshape(4, len(_OUTLINE_RHO), 3).max(axis=1), axis=1)[:, 1]
    return float(np.sort(sides)[1]) / 8.0  # Sobel 3×3 gives 8× the grey step per px


def _pips_inside(f: Face, pips: list[Pip], xy: np.ndarray | None = None, polarity: np.ndarray | None = None) -> list[Pip]:
    """The pips of the face's polarity, other than its own, that lie on the face (``xy`` (N, 2)
    float64 px and ``polarity`` (N,) are the pips' centres and polarities, in order: given when
    many faces are tested against the same pips)."""
    if xy is None or polarity is None:
        xy = np.array([(p.x, p.y) for p in pips], np.float64).reshape(-1, 2)
        polarity = np.array([p.polarity for p in pips])
    (a, b, tx), (c, d, ty) = f.frame.tolist()
    det = a * d - b * c
    if det == 0.0 or len(pips) == 0:
        return []
    # Face coordinates of every pip: the inverse of the frame's linear part, in closed form.
    u = (d * (xy[:, 0] - tx) - b * (xy[:, 1] - ty)) / det
    v = (-c * (xy[:, 0] - tx) + a * (xy[:, 1] - ty)) / det
    on = (np.maximum(np.abs(u), np.abs(v)) < 0.9) & (polarity == f.pips[0].polarity)
    own = {id(p) for p in f.pips}
    return [pips[i] for i in np.nonzero(on)[0] if id(pips[i]) not in own]


#: Values whose faces are checked for stray pips (:func:`_stray_pip_inside`); a one has its own,
#: stricter check (no other pip on it at all).
STRAY_CHECK_VALUES = (2, 3, 4, 5, 6)
#: How far (face half-widths) from a place of its layout a pip on the face is stray.
STRAY_FROM_PLACE = 0.25
#: The least diameter of a stray pip per the face's pips' mean: a pip printed on the same face is
#: as large (or, merged with its neighbours by blur, larger); a smaller blob within the face's
#: square is a side face's pip, squashed, that a face fitted square-on to an oblique die overlaps.
STRAY_MIN_SIZE = 0.8


def _stray_pip_inside(f: Face, value: int, pips: list[Pip], xy: np.ndarray | None = None,
                      polarity: np.ndarray | None = None) -> bool:
    """Whether a pip of the face's polarity, other than its own, lies on the face
    (:func:`_pips_inside`) but away from every place ``value``'s layouts (either turn) put a pip:
    the face was placed wrongly (two pips of a six's column taken for a diagonal, the other
    column's merged pips lying in its corner). Blobs smaller than ``STRAY_MIN_SIZE`` of the face's
    pips are not counted. ``xy`` and ``polarity`` are as for :func:`_pips_inside`."""
    if value not in STRAY_CHECK_VALUES:
        return False
    size = float(np.mean([p.diameter for p in f.pips]))
    inside = [p for p in _pips_inside(f, pips, xy, polarity) if p.diameter >= STRAY_MIN_SIZE * size]
    if not inside:
        return False
    xy = np.array([(p.x, p.y) for p in inside]) - f.frame[:, 2]
    uv = np.linalg.solve(f.frame[:, :2], xy.T).T
    places = _PLACES[sorted(set().union(*PATTERNS[value]))]
    near = np.min(np.linalg.norm(uv[:, None] - places[None], axis=2), axis=1)
    return bool(np.any(near > STRAY_FROM_PLACE))


#: A row of a larger face (:func:`_row_of_larger`): how far across from a two's or three's line of
#: pips, per its length, the parallel row must lie (a four's columns and a six's rows lie one
#: length apart seen square on; 0.8 … 1.0 on the dev photos' such dice, foreshortened).
ROW_ACROSS = (0.65, 1.35)
#: ... how far along the line (per its length) from each pip of it the row's blob may lie, and
#: how much the row's offsets across may differ (it runs parallel to the line).
ROW_ALONG = 0.25
ROW_PARALLEL = 0.3
#: ... the least roundness of a pip of the row (a side face's pips, squashed, are 0.35 … 0.46
#: on the dev photos; a top face's pip seen by a coarse octave 0.6 and more) and its diameter
#: per the line's pips' mean, (min, max).
ROW_MIN_ROUNDNESS = 0.5
ROW_PIP_SIZE = (0.7, 1.5)
#: ... a bar of the row must lie along the line (|cos| ≥ ``ROW_BAR_ALONG``): a row's pips run
#: together do; a seam between touching dice or a side face's shade lies at any angle.


def _row_of_larger(f: Face, value: int | None, pips: list[Pip], xy: np.ndarray, polarity: np.ndarray) -> bool:
    """Whether a two or a three read on all its own pips (``f.pips``, one line of pips: a
    diagonal) is one row of a larger face: a parallel row of like pips, one line's length across
    on one side, lies beside it (a four's column read as a diagonal two when the other column's
    pips were found too squashed to be a top face's; a six's row read as a three when the other
    row's pips merged into one bar by blur). Such a reading is the right layout turned 45° on a
    face 0.7 as large: a wrong value, so it is refused and the group's other readings (the four
    placed on the column) compete. A pip of the row is round enough (``ROW_MIN_ROUNDNESS``) and
    of like size (``ROW_PIP_SIZE``); a bar (:data:`BAR_MAX_ROUNDNESS`, as wide as a pip) covers
    the places its long axis passes. ``xy`` (N, 2) float64 px and ``polarity`` (N,) are the
    pips' centres and polarities, in order."""
    if value not in (2, 3) or len(f.pips) != value or len(pips) == 0:
        return False
    own = np.array([(p.x, p.y) for p in f.pips], np.float64)
    d2 = np.sum((own[:, None] - own[None]) ** 2, axis=2)
    i, j = np.unravel_index(int(np.argmax(d2)), d2.shape)
    a, b = own[i], own[j]
    length = float(np.hypot(*(b - a)))
    if length < 1e-6:
        return False
    t = (b - a) / length
    n = np.array([-t[1], t[0]])
    size = float(np.mean([p.diameter for p in f.pips]))
    ids = {id(p) for p in f.pips}
    near = np.nonzero((polarity == f.pips[0].polarity)
                      & (np.hypot(xy[:, 0] - (a[0] + b[0]) / 2, xy[:, 1] - (a[1] + b[1]) / 2) < 2.5 * length))[0]
    points = []  # (along, across) per length of each like blob's points: a pip's centre, a bar's axis
    for k in near.tolist():
        q = pips[k]
        if id(q) in ids:
            continue
        axis = np.array([math.cos(math.radians(q.angle)), math.sin(math.radians(q.angle))])
        if q.roundness >= ROW_MIN_ROUNDNESS and ROW_PIP_SIZE[0] * size <= q.diameter <= ROW_PIP_SIZE[1] * size:
            ends = [0.0]
        # A bar is a row's pips run together, so it lies along the line: a seam between touching
        # dice or a shaded side face lies across it at any angle (review of d6w38: a 2 touching a 5
        # lost to a 6 fitted on its own two pips).
        elif (q.roundness <= BAR_MAX_ROUNDNESS and ROW_PIP_SIZE[0] * size <= q.minor <= ROW_PIP_SIZE[1] * size
              and q.major <= 1.6 * length and abs(float(axis @ t)) >= ROW_BAR_ALONG):
            ends = np.linspace(-0.5, 0.5, 5) * (q.major - q.minor)  # along the bar's axis, px
        else:
            continue
        for e in ends:
            pt = np.array([q.x, q.y]) + e * axis - a
            points.append((float(pt @ t) / length, float(pt @ n) / length))
    if not points:
        return False
    uv = np.array(points)
    places = [0.0, 1.0] if value == 2 else [0.0, 0.5, 1.0]
    for side in (1.0, -1.0):
        across = side * uv[:, 1]
        offsets = []
        for s in places:
            hit = (np.abs(uv[:, 0] - s) <= ROW_ALONG) & (across >= ROW_ACROSS[0]) & (across <= ROW_ACROSS[1])
            if not hit.any():
                break
            offsets.append(across[hit])
        else:
            if _parallel(offsets):  # one offset per place, all alike: the row runs parallel to the line
                return True
    return False


def _parallel(offsets: list[np.ndarray]) -> bool:
    """Whether one offset across can be picked at each place so that all lie within
    ``ROW_PARALLEL`` of each other (each place's candidates ``offsets[k]``, per line length)."""
    for o0 in offsets[0].tolist():
        if all(np.any(np.abs(o - o0) <= ROW_PARALLEL) for o in offsets[1:]):
            return True
    return False


def _best_reading(passed: list[tuple[float, int, Face]], rows: set[int]) -> tuple[float, int, Face] | None:
    """Of a group's readings ``(margin, value, face)`` that every check let through (in the order
    tried), the first of the largest margin, leaving out those of one to three pips that all lie
    in ``rows`` (ids of pips of a row of a larger face, :func:`_row_of_larger`): a four's column
    read as a two, its pip as a one. None when none is left."""
    best = None
    for t in passed:
        if t[1] <= 3 and all(id(p) in rows for p in t[2].pips):
            continue
        if best is None or t[0] > best[0]:
            best = t
    return best


def _crowded(f: Face, pips: list[Pip], xy: np.ndarray, polarity: np.ndarray) -> bool:
    """Whether a pip as round as a top face's and of like size (``LARGE_ONE_CLEAR``) lies within
    ``LARGE_ONE_CLEAR[0]`` half-widths (max-norm) of a large one's face ``f`` (``xy`` (N, 2) px and
    ``polarity`` (N,) of ``pips``, in order). A two's pip, its face fitted as a large one's, has
    its partner one half-width of the two's face away on both axes: 1.25 of the smaller one's face;
    a large one's own die holds no other pip, its side faces' pips are squashed, and a touching
    die's nearest pip lies about 1.5 away."""
    p = f.pips[0]
    (a, b, tx), (c, d, ty) = f.frame.tolist()
    det = a * d - b * c
    u = (d * (xy[:, 0] - tx) - b * (xy[:, 1] - ty)) / det
    v = (-c * (xy[:, 0] - tx) + a * (xy[:, 1] - ty)) / det
    near = np.nonzero((np.maximum(np.abs(u), np.abs(v)) < LARGE_ONE_CLEAR[0]) & (polarity == p.polarity))[0]
    return any(pips[i] is not p and pips[i].roundness >= TOP_MIN_ROUNDNESS
               and pips[i].diameter >= LARGE_ONE_CLEAR[1] * p.diameter for i in near.tolist())


#: Two pips are a two's pair (:func:`group_mates`) only when the smaller is at least this
#: fraction of the larger's diameter: one die's pips are printed alike, while a one's pip is
#: larger than other dice's (about 1.2× on the dev photos, 1.4× on the drawn clear rows, where a
#: touching six's pip showed too faint a seam, 0.10 shape and 0.09 chroma, to tell it apart).
TWO_MATE_SIZE = 0.85


def group_mates(groups: list[list[Pip]]) -> dict[int, tuple[Pip, ...]]:
    """For each round pip (``TOP_MIN_ROUNDNESS``) of a group of several (:func:`group_pips`), the
    other round pips of its group that lie within ``GROUP_REACH`` times the pair's mean diameter
    (px) of it and are of like size (``TWO_MATE_SIZE``): the pips it was linked with that may be
    its two's partner. Keyed by ``id(pip)``; a pip with none is left out. A two's pips are always
    so linked, even when the group (a row of touching dice's pips) is later split and they land
    apart (:func:`_two_mate`)."""
    out: dict[int, tuple[Pip, ...]] = {}
    for group in groups:
        g = [p for p in group if p.roundness >= TOP_MIN_ROUNDNESS]
        if len(g) < 2:
            continue
        for p in g:
            mates = tuple(q for q in g if q is not p
                          and min(p.diameter, q.diameter) >= TWO_MATE_SIZE * max(p.diameter, q.diameter)
                          and math.hypot(q.x - p.x, q.y - p.y) <= GROUP_REACH * (p.diameter + q.diameter) / 2)
            if mates:
                out[id(p)] = mates
    return out


def _two_mate(f: Face, mates: dict[int, tuple[Pip, ...]], img: np.ndarray, seams: dict) -> bool:
    """Whether a face ``f`` with one round pip (``TOP_MIN_ROUNDNESS``; others may be side faces'
    squashed pips it was read again with) has, for that pip, a mate (:func:`group_mates`), neither
    on the face nor its pair partner (``Face.partners``), with no seam between them
    (:func:`seam_across` within ``SEAM_MAX_SHAPE`` and ``SEAM_MAX_COLOUR``, as a right two's
    diagonal): the two pips lie on one die's face, so it is a two's pip (or a three's), and the
    face, which leaves its partner out, is no die's.

    In a row of touching dice the pips of all of them are one group, and its split
    (:func:`_two_means`) may part a two's pips, each then alone in its part and read as a one (a
    wrong sum). A touching die's pip lies across a seam, so a one beside another die is kept
    unless that seam does not show. ``mates`` as :func:`group_mates` gives; ``img`` the (H, W, 3)
    uint8 BGR working image; ``seams`` caches each pair's answer (keyed by the pips' ids)."""
    round_pips = [p for p in f.pips if p.roundness >= TOP_MIN_ROUNDNESS]
    if len(round_pips) != 1:
        return False
    p = round_pips[0]
    for q in mates.get(id(p), ()):
        # A mate on the face is its own; a partner (``Face.partners``: the pair was also tried as
        # a two, and each pip as a one) is :func:`_top_faces`' to judge: two touching ones whose
        # seam does not show are read as ones there, and the two on them dropped.
        if any(q is k for k in f.pips) or any(q is k for k in f.partners):
            continue
        key = (id(p), id(q)) if id(p) < id(q) else (id(q), id(p))
        if key not in seams:
            two = _fit([p, q], 2)
            seams[key] = two is not None and not _seam_between(two, img)
        if seams[key]:
            return True
    return False


#: A lone one's pip and a like pip not grouped with it (:func:`far_mates`) may be a two's pair
#: from this many to this many mean diameters apart: a two's pips are drawn 3.9 diameters apart, but
#: on a very clear die (translucency 0.75-0.9) only each pip's core is found, smaller, and the pairs
#: measured 3.5-4.9 apart on the probe's tuning photos (``bench/gem_hot.py`` 300-319), past
#: ``GROUP_REACH`` or grouped apart for their shapes. Nearer like pips not grouped with a lone
#: pip (1.5-2.2 there) are a three's, five's or six's, whose face is read from its own group.
FAR_MATE_REACH = (3.3, 5.0)
#: ... of like size: the smaller at least this fraction of the larger's diameter. A one's pip is
#: drawn 1.44x a two's (0.69), so a one and a two's pip beside it are not mates; a see-through two's
#: pips, one merged with the face below's ghost, measured down to 0.78 on the tuning photos.
FAR_MATE_SIZE = 0.75
#: ... and the mate about round, below ``TOP_MIN_ROUNDNESS``: a clear two's pip merged with the
#: face below's ghost at its edge measured 0.52-0.62 on the tuning photos (so grouped apart from
#: its round partner for its shape; 0.55 left 4 more twos of 320 read 1 there). A side face's
#: squashed pip beside a one lies across its die's edge: a seam, refused by :func:`_far_two`.
FAR_MATE_MIN_ROUNDNESS = 0.5
#: A far pair is a two's when the two's face fitted on it (the pips on its diagonal) is outlined
#: (``MIN_ONE_OUTLINE``) at least this many times as clearly as the face turned 45 degrees about
#: the pair's middle with the pips on its sides' middles (:func:`_turned_face`): two touching dice's
#: ones, side by side, are outlined so (their dice's long sides and their pips' rims), a two's
#: face has its edges round its diagonal. Tuning photos (300-319, no seam between the pips):
#: twos 0.72-5.4 (4 of 70 below 1.1), touching ones 0.45-0.92; but on 340-399 five pairs of touching
#: ones measured 1.13-1.59, so this alone does not tell them (``FAR_TWO_MIN_DIAGONAL``).
FAR_TWO_OUTLINE_RATIO = 1.1
#: ... and the pair lies across its die's edges as a two's diagonal does: at least this many
#: degrees (of 45) off the edges' direction round it (:func:`_off_edges`). Touching ones side by
#: side lie along it (0); corner to corner they too lie on a diagonal, but then the outline ratio
#: stayed under ``FAR_TWO_OUTLINE_RATIO`` (for all but one such pair, probe 341). On the
#: probe's photos 300-399 (340-399 looked at after a first held-out run, where five pairs of
#: touching ones, outlined 1.13-1.59 times as clearly as side by side and with no seam found, were
#: read as one die): twos' pairs 275 of 288 at 30 or more, four of those five pairs under it.
FAR_TWO_MIN_DIAGONAL = 30.0


def far_mates(groups: list[list[Pip]]) -> dict[int, tuple[Pip, ...]]:
    """For each round pip alone in its group (:func:`group_pips`: a pip read as a lone one), the
    pips alone in other groups, of its polarity, that may be its two's partner: ``FAR_MATE_REACH`` mean
    diameters apart, of like size (``FAR_MATE_SIZE``), contrast (``MAX_CONTRAST_RATIO``) and round
    (``FAR_MATE_MIN_ROUNDNESS``). Keyed by ``id(pip)``; a pip with none is left out.

    On a very clear die a two's pips are found small (their cores), or one merged with the face
    below's ghost, so they are grouped apart and each is read as a one (a wrong value): such a one
    is refused where the pair looks like a two's (:func:`_far_two`), and the pair read as a two or
    reported with no value."""
    # The mate alone in its group too: a clear two's other pip was, in all 110 far pairs of the
    # tuning twos (300-319); a pip of an oblique webcam photo's side face beside a one (roundness
    # 0.55-0.62, in a group of 2-5 with its face's other pips) made six real ones of the dev half
    # read 2 or no value when any pip could be a mate. So only lone pips are compared, all pairs
    # of them at once.
    lone = [g[0] for g in groups if len(g) == 1 and g[0].roundness >= FAR_MATE_MIN_ROUNDNESS]
    if len(lone) < 2:
        return {}
    x, y, dia, con, pol, rnd = np.array([(q.x, q.y, q.diameter, max(q.contrast, 1e-3), q.polarity, q.roundness)
                                         for q in lone], np.float64).T
    lo, hi = FAR_MATE_REACH
    d = np.hypot(x[:, None] - x[None], y[:, None] - y[None]) / ((dia[:, None] + dia[None]) / 2)
    ok = ((rnd[:, None] >= TOP_MIN_ROUNDNESS) & (pol[:, None] == pol[None]) & (d >= lo) & (d <= hi)
          & (np.minimum(dia[:, None], dia[None]) >= FAR_MATE_SIZE * np.maximum(dia[:, None], dia[None]))
          & (np.maximum(con[:, None], con[None]) <= MAX_CONTRAST_RATIO * np.minimum(con[:, None], con[None])))
    return {id(lone[i]): tuple(lone[j] for j in np.nonzero(ok[i])[0].tolist()) for i in np.nonzero(ok.any(axis=1))[0].tolist()}


_TURN_45 = np.array([[1.0, -1.0], [1.0, 1.0]]) / 2.0  # a 45 degree turn, scaled by 1 / sqrt(2)


def _turned_face(two: Face) -> Face:
    """The face of a two's pair turned 45 degrees about its centre and shrunk by sqrt(2), so its two
    pips lie on its sides' middles (face coordinates (-1, 0) and (1, 0)): where two touching dice
    side by side, each with a one on the pair, have their long sides and their pips' rims."""
    frame = two.frame.copy()
    frame[:, :2] = two.frame[:, :2] @ _TURN_45
    return Face(frame, two.pips, two.residual)


#: Where :func:`_off_edges` samples the gradients, in a two's face coordinates: a 14 x 14 grid
#: over its face and a little beyond (its edges, wherever the fit's size puts them).
_EDGE_GRID = np.array([(x, y) for y in np.linspace(-1.3, 1.3, 14) for x in np.linspace(-1.3, 1.3, 14)])


def _off_edges(two: Face, grad) -> float:
    """How many degrees (0 … 45) the line through a two's two pips lies off the direction of the
    edges round it: the gradients over its face (``_EDGE_GRID``), each direction taken four times
    over so that a square's four sides add up (a round pip's rim, every way at once, adds to
    nothing), weighted by their strength. A two's diagonal lies 45 off its die's sides; the line
    through the pips of two touching ones side by side lies along their dice's sides, 0."""
    gx, gy = grad
    h, w = gx.shape
    pts = two.to_image(_EDGE_GRID)
    xs = _clamp(np.round(pts[:, 0]).astype(int), 0, w - 1)
    ys = _clamp(np.round(pts[:, 1]).astype(int), 0, h - 1)
    ax, ay = gx[ys, xs], gy[ys, xs]
    z = np.sum(np.hypot(ax, ay) * np.exp(4j * np.arctan2(ay, ax)))
    p, q = two.pips[0], two.pips[1]
    off = math.degrees(math.atan2(q.y - p.y, q.x - p.x) - float(np.angle(z)) / 4.0) % 90.0
    return 45.0 - abs(off - 45.0)


def _far_two(f: Face, far: dict[int, tuple[Pip, ...]], img: np.ndarray, grad, cache: dict) -> list[Pip]:
    """The far mates (:func:`far_mates`) of the pip of a one's face ``f`` (a single pip) that make
    a two with it: the two fitted on the pair crosses no seam (:func:`_seam_between`, as a right
    two's diagonal), is outlined (``MIN_ONE_OUTLINE``), ``FAR_TWO_OUTLINE_RATIO`` times as clearly
    as the pair's side-by-side face (:func:`_turned_face`), and lies across the edges round it as a
    diagonal does (:func:`_off_edges`, ``FAR_TWO_MIN_DIAGONAL``). The face is then no one.
    ``cache`` holds each pair's answer (keyed by ``("far", id, id)``, the pips' ids in order)."""
    if len(f.pips) != 1:
        return []
    p = f.pips[0]
    out = []
    for q in far.get(id(p), ()):
        key = ("far", id(p), id(q)) if id(p) < id(q) else ("far", id(q), id(p))
        if key not in cache:
            two = _fit([p, q], 2)
            ok = two is not None and not _seam_between(two, img)
            if ok:
                strength = outline_strength(two, grad)
                ok = (strength >= MIN_ONE_OUTLINE
                      and strength >= FAR_TWO_OUTLINE_RATIO * outline_strength(_turned_face(two), grad)
                      and _off_edges(two, grad) >= FAR_TWO_MIN_DIAGONAL)
            cache[key] = ok
        if cache[key]:
            out.append(q)
    return out


def _unreadable_die(f: Face, margin: float, grad) -> bool:
    """Whether a face that reads as no value cleanly is still surely a die's top face: three or
    more round pips in a layout (fitted closely), nearly read (margin above 0), and outlined.
    Such a die is reported with no value (glare or a shadow hides a pip), never guessed."""
    return (len(f.pips) >= 3 and f.residual < 0.08 and margin > 0.0
            and outline_strength(f, grad) >= MIN_ONE_OUTLINE)


#: The least squash (:attr:`Face.squash`) of a face read as a top face: a side face seen from
#: above is foreshortened more.
MIN_FACE_SQUASH = 0.6


def least_squash(f: Face) -> float:
    """The least :attr:`Face.squash` a face hypothesis may have: ``MIN_FACE_SQUASH``, but a one
    fitted to a squashed pip (:func:`_squashed_one_faces`) is squashed like its pip, down to
    ``SQUASHED_ONE_MIN_ROUNDNESS`` (with room for the fit's scatter)."""
    if len(f.pips) == 1 and f.pips[0].roundness < TOP_MIN_ROUNDNESS:
        return min(MIN_FACE_SQUASH, 0.9 * SQUASHED_ONE_MIN_ROUNDNESS)
    return MIN_FACE_SQUASH


def _roundness(f: Face) -> float:
    return float(np.mean([p.roundness for p in f.pips]))


_WORKER: dict[int, ThreadPoolExecutor] = {}
_WORKER_LOCK = threading.Lock()


def _search_worker() -> ThreadPoolExecutor:
    """One worker thread for a share of the pip search (and the gradients and integral image),
    made on first use and kept (idle, it costs nothing; a new thread per photo would cost more
    than it saves on a small photo). Keyed by process id: a forked child has the parent's
    executor but not its thread."""
    pid = os.getpid()
    with _WORKER_LOCK:  # two threads reading their first photos at once make one worker
        if pid not in _WORKER:
            _WORKER.clear()
            _WORKER[pid] = ThreadPoolExecutor(max_workers=1, thread_name_prefix="d6-search")
    return _WORKER[pid]


def _gradients(grey: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The x and y gradients of an (H, W) uint8 image: 3 × 3 Sobel, each (H, W) int16 (a uint8
    image's steps are whole numbers of at most ±1020: int16 holds them exactly).
    ``cv2.spatialGradient`` gives both in one pass, as two ``cv2.Sobel`` calls would."""
    gx, gy = cv2.spatialGradient(grey)
    return gx, gy


def _refusal(f: Face, value: int | None, margin: float, body: float, cut: bool, squash: float,
             chroma: dict[int, float], pips: list[Pip], pip_xy: np.ndarray, pip_pol: np.ndarray, grad,
             sample, verifier, img: np.ndarray | None = None, mates: dict[int, tuple[Pip, ...]] | None = None,
             seams: dict | None = None, far: dict[int, tuple[Pip, ...]] | None = None) -> str | None:
    """Why a read face hypothesis is not a top face (a short name), or None when nothing refuses it.
    ``"shares"``: a one whose face holds other pips of its polarity (read again with them);
    ``"seam"``: a two whose diagonal crosses a seam between two dice (:func:`_seam_between`: one
    pip of each of two touching dice, a phantom die; asked last, so only of a two nothing else
    refuses); ``"paired"``: a face with one round pip whose alike group mate lies off it across
    no seam (:func:`_two_mate`: a two's pip whose partner a group's split put apart, read as a
    one; asked after the verifier, so the verifier's examples are as before); ``"doubt"``: the
    learned verifier (:mod:`companion.vision.dice_verify`, or None for none) finds the reading
    unlike a die's top face of that value. ``grad`` and ``sample`` are the image's gradients
    (:func:`_gradients`) and :func:`_sampler`; ``img`` the (H, W, 3) BGR working image (None: no seam check, as for the
    value a face left unread for a worn pip would have read, so that it is reported unread as
    before)."""
    if squash < least_squash(f):
        return "squash"
    if f.pips[0].polarity < 0 and len(f.pips) == 1:
        if body > MAX_LIGHT_PIP_BODY:
            return "glint"  # a lone light spot on a light die is a glint, not a one
        if chroma[id(f)] < MIN_LIGHT_PIP_CHROMA and not _painted_dark_one(f, value, grad, sample):
            return "grey"  # on black or grey things (cables, keys) light spots are reflections
    if f.large_one:
        if value not in (1, None):
            return "large"  # a large one's face reads a one or nothing (on a six it reads a three)
        if _crowded(f, pips, pip_xy, pip_pol):
            return "crowded"  # a like pip near: a two's or three's pip, not a large one
    if cut:
        return "cut"  # cut by the photo's border: its top face cannot all be seen
    if value is not None and _stray_pip_inside(f, value, pips, pip_xy, pip_pol):
        return "stray"  # a pip of another layout lies on the face: it is misplaced
    if value == 1 and outline_strength(f, grad) < MIN_ONE_OUTLINE:
        return "outline"  # a dark spot on a plain surface: a one has its die's edges round it
    # (A large one's face: its like pips are _crowded's; the others on it are side faces' or specks.)
    if value == 1 and not f.large_one and _pips_inside(f, pips, pip_xy, pip_pol):
        return "shares"
    if value is not None and verifier is not None and not verifier.keeps(f, value, margin):
        return "doubt"
    # After the verifier, so that the verifier's training examples (readings no rule refused or
    # only "outline"/"shares", train_d6_verifier) and the readings it is asked about are as before
    # wherever no such mate is found.
    if value is not None and img is not None and mates and _two_mate(f, mates, img, {} if seams is None else seams):
        return "paired"  # a two's pip whose partner was grouped apart: no one (nor its side faces' 2 or 3)
    if value == 1 and img is not None and far and _far_two(f, far, img, grad, {} if seams is None else seams):
        return "far"  # a very clear two's pip whose like partner lies past the group's reach: no one
    # Last, so that "seam" names a two every other check (the verifier's too) lets through: such a
    # phantom still hides what it hid before (_choose_faces), it only is not reported.
    if value == 2 and len(f.pips) == 2 and img is not None and _seam_between(f, img):
        return "seam"  # one pip of each of two touching dice: a phantom die
    return None


#: A face with a value that a face of no value hides (:func:`_top_faces`) counts as another
#: die's top face only when seen at least this square on (smaller / larger side): a die's side
#: faces, round its top face, are foreshortened. Only a face of 4 or more pips has a squash to
#: tell: one, two and three pips are fitted as a similarity (:func:`_fit`), always 1.0, so two small
#: twos on a die's two side faces would pass it (the review of gem37): those never count.
SPANNED_MIN_SQUASH = 0.85
SPANNED_MIN_PIPS = 4


def _top_faces(scored: list[tuple[float, int | None, Face]], least_value: int = 0) -> list[tuple[float, int | None, Face]]:
    """Of each die's read faces ``(margin, value, face)`` (one per pip group), its top face: a
    die's side faces lie within 1.6 half-widths of its top face's centre, a touching die's top face
    2 or more away, and the top face is the one seen most square on (its pips are the roundest).
    Dark pips first: light "pips" on a light die are glints. A pip of a pair read as a one
    (``Face.partners``) is kept only when a partner of it reads as a one too: two touching ones
    come in twos, while a two's corner pip may pass every paired-one check alone (a translucent
    die's). A two whose two pips are each read as a large one's face (:func:`_crowded` found no
    like pip near either: two touching dice's ones) is no die. A face of no value is no die either
    when it alone hides faces of 4 to 6 pips of two dice (``SPANNED_MIN_SQUASH``). With
    ``least_value``, only faces read that value or more are kept (the others still count for the
    checks above). Faces overlap as :func:`_overlap` says."""
    ones = {id(f.pips[0]) for _, value, f in scored if value == 1 and f.large_one}
    scored = [t for t in scored if not (t[1] == 1 and t[2].partners and not any(id(q) in ones for q in t[2].partners))]
    ones = {id(f.pips[0]) for _, value, f in scored if value == 1 and f.large_one}
    if ones:
        scored = [t for t in scored if not (t[1] == 2 and all(id(p) in ones for p in t[2].pips))]
    if least_value:  # (after the checks above, which ask of the ones)
        scored = [t for t in scored if t[1] is not None and t[1] >= least_value]
    order = sorted(scored, key=lambda t: (-_roundness(t[2]) - (0.1 if t[2].pips[0].polarity > 0 else 0.0), -t[0]))
    kept = _greedy(order)
    # A face of no value that alone hides faces of 4-6 pips on two dice (apart as two top faces
    # are, each seen square on as a top face is: a die's side faces are foreshortened) spans
    # those dice' pips: it is no die, and must not cost them their readings.
    for t in [t for t in kept if t[1] is None]:
        hidden = [u for u in order if u[1] is not None and len(u[2].pips) >= SPANNED_MIN_PIPS
                  and u[2].squash >= SPANNED_MIN_SQUASH and _overlap(u[2], t[2])
                  and not any(_overlap(u[2], k, u[1], v) for _, v, k in kept if k is not t[2])]
        if any(not _overlap(a[2], b[2]) for i, a in enumerate(hidden) for b in hidden[i + 1:]):
            order = [u for u in order if u is not t]
            kept = _greedy(order)
    return kept


#: A face read as a one counts, for :func:`_overlap`, at most this many of its pip's diameters
#: wide (half-width): a one's face is a guess (2.6 … 3.4 diameters, or out to the strongest edge
#: round the pip, on a clear die often its base), and the group keeps the guess of the largest
#: margin, all its guesses reading 1 about as well (0.77 … 0.79). Its die is smaller: 1.8 … 2.0
#: diameters on the simulated and the dev photos' dice (``LARGE_ONE_HALF_WIDTH``). Counted at its
#: guess, a one touching a die read as a two or a five overlapped it (centres 2.0 … 2.2 of the
#: one's true half-widths apart, under 1.6 of a 3.0 … 3.4-diameter guess) and lost to its rounder
#: pips (``gem_d6`` 2509, 2524).
ONE_OVERLAP_HALF_WIDTH = LARGE_ONE_HALF_WIDTH
#: ... but only against a face at least this many of the one's pip diameters wide (half-width):
#: a die beside it, as large as the one's (1.7 … 1.9 of its pip's diameters on ``gem_d6``'s clear
#: dice, by their true quads, and read so: 1.7 … 1.8 on 2501, 2509, 2524). A smaller reading is of
#: fewer pips of a larger face (two of a six's pips read as a three, 1.3 on never-run 2648, its
#: centre 3.4 diameters from a one's where no die the one's size could lie): the one, counted at
#: its guess, still hides it, as before.
ONE_OVERLAP_MIN_OTHER = 1.5


def _overlap_half_width(f: Face, value: int | None, other: Face) -> float:
    """``f``'s half-width as :func:`_overlap` counts it beside ``other``, px: a one's no more than
    ``ONE_OVERLAP_HALF_WIDTH`` of its pip's diameters when ``other`` is as large as its die can be
    (``ONE_OVERLAP_MIN_OTHER``)."""
    if value == 1 and len(f.pips) == 1:
        d = f.pips[0].diameter
        if other.half_width >= ONE_OVERLAP_MIN_OTHER * d:
            return min(f.half_width, ONE_OVERLAP_HALF_WIDTH * d)
    return f.half_width


def _overlap(f: Face, k: Face, f_value: int | None = None, k_value: int | None = None) -> bool:
    """Whether two read faces lie too near to be two dice's top faces: centres within 1.6 of the
    larger half-width (a die's side faces lie within that of its top face's centre, a touching
    die's top face 2 or more away); a face read as a one (``f_value``, ``k_value``) counted no
    wider than its die can be beside a face as large as that die (:func:`_overlap_half_width`)."""
    return (math.hypot(f.center[0] - k.center[0], f.center[1] - k.center[1])
            < 1.6 * max(_overlap_half_width(f, f_value, k), _overlap_half_width(k, k_value, f)))


def _greedy(order: list[tuple[float, int | None, Face]]) -> list[tuple[float, int | None, Face]]:
    """Of read faces ``(margin, value, face)`` in order of preference, each kept unless it
    overlaps one kept before it (:func:`_overlap`)."""
    kept: list[tuple[float, int | None, Face]] = []
    for t in order:
        if not any(_overlap(t[2], k, t[1], v) for _, v, k in kept):
            kept.append(t)
    return kept


#: A face a phantom two hid is added back (:func:`_choose_faces`) only when at least this
#: fraction of the median half-width of the faces of two or more pips kept: a four's two
#: side-by-side pips read as a two make a face 0.7 of its die's (gem_probe touching seed 189).
READMITTED_MIN_SIZE = 0.85


def _choose_faces(scored: list[tuple[float, int | None, Face]], alt: list[tuple[float, int | None, Face]],
                  ghosts: set[int]) -> list[tuple[float, int | None, Face]]:
    """The top faces ``(margin, value, face)`` of a photo when some groups' best readings are
    phantom twos (``ghosts``: ids of faces refused only as ``"seam"``, :func:`_seam_between`).
    ``scored`` holds each group's reading with the phantoms taken as readings (as if the seam
    were not looked at), ``alt`` with them refused (a group's next best reading instead). The
    dice are :func:`_top_faces` of ``scored`` less the phantoms: a phantom still hides the faces
    near it, since what it hid may be a pip of it read as a one (a two's pip whose partner was
    paired across the seam: a two read 1, a wrong value). Then :func:`_top_faces` of ``alt``'s
    readings of values 2 … 6 adds its faces that overlap no die kept (:func:`_overlap`) and are
    not much smaller than the dice kept (``READMITTED_MIN_SIZE``): a die the phantom hid, read
    with its own pips."""
    first = _top_faces(scored)
    kept = [t for t in first if id(t[2]) not in ghosts]
    if len(kept) == len(first):
        return kept
    held = {id(t[2]) for t in first}
    # A die's size: the median half-width of the faces of two or more pips kept (a one's is a guess).
    sizes = [f.half_width for _, _, f in kept if len(f.pips) >= 2]
    least = READMITTED_MIN_SIZE * float(np.median(sizes)) if len(sizes) >= 3 else 0.0
    # Ones and faces of no value are left out of the second pass: a one a phantom hid may be a
    # two's pip (see above), and either would hide the faces near it that the phantom had hidden.
    for margin, value, f in _top_faces(alt, least_value=2):
        if id(f) in held or f.half_width < least:
            continue  # (smaller than the dice round it: two side-by-side pips of a four read as a two)
        if not any(_overlap(f, k, value, v) for _, v, k in kept):
            kept.append((margin, value, f))
    return kept


#: The second look (:func:`_faint_pips`): a blurred or dim photo's pips can be fainter than
#: ``PIP_MIN_CONTRAST``; looked for at this contrast, but only on die bodies where no die was read.
FAINT_PIP_CONTRAST = 0.2
#: A die body: a light blob (the light-pip search's coarse octaves see an ivory die on a darker
#: table as one) this many px across, working image (a 640 px webcam's dice are 30 … 70).
BODY_DIAMETER = (16.0, 240.0)
#: ... and at least this round (a die's top and side faces together).
BODY_MIN_ROUNDNESS = 0.5


def _bodies(light: list[Pip]) -> list[Pip]:
    """The light blobs that may be a die's body: as large as a die, roughly round; of those
    whose centres lie within half the larger's diameter (one die seen at two octaves), the
    larger. ``light``: the light-pip search's candidates of every octave, before
    :func:`_dedupe` (which drops a blob holding two light specks: a die's face between its
    dark pips may show as such)."""
    out: list[Pip] = []
    for b in sorted(light, key=lambda q: -q.area):
        if (BODY_DIAMETER[0] <= b.diameter <= BODY_DIAMETER[1] and b.roundness >= BODY_MIN_ROUNDNESS
                and not any(math.hypot(b.x - k.x, b.y - k.y) <= 0.5 * k.diameter for k in out)):
            out.append(b)
    return out


def _on_body(f: Face, body: tuple[float, float, float]) -> bool:
    """Whether a face's centre lies on a body ``(x, y, major axis)`` px: within half its major axis."""
    return math.hypot(f.center[0] - body[0], f.center[1] - body[1]) <= 0.5 * body[2]


def _holds_a_face(body: tuple[float, float, float], kept: list[tuple[float, int | None, Face]]) -> bool:
    """Whether a die already kept ``(margin, value, face)`` lies on the body ``(x, y, major axis)``."""
    return any(_on_body(f, body) for _, _, f in kept)


def _faint_pips(grey: np.ndarray, bodies: list[Pip]) -> list[list[Pip]]:
    """Dark pips down to ``FAINT_PIP_CONTRAST`` on each body (:func:`find_pips` on the body's
    square, grown by a quarter and the closing's reach so that the morphology sees round each
    pip), in image px: a list per body. Bodies' squares overlap (two touching dice, or a die's
    top face and its body seen apart), and a pip found again in a later one (centres within half
    the larger diameter, as :func:`_dedupe` asks) is the same ``Pip`` object as where it was first
    found: otherwise a faint one's face would hold its own pip's copy, a second pip, and be
    refused as sharing its face.

    Args:
        grey: (H, W) uint8 working image.
        bodies: light blobs (:func:`_bodies`).
    """
    h, w = grey.shape
    out: list[list[Pip]] = []
    seen: list[Pip] = []
    for b in bodies:
        r = int(0.625 * b.major) + 12
        x0, y0 = max(0, int(b.x) - r), max(0, int(b.y) - r)
        x1, y1 = min(w, int(b.x) + r + 1), min(h, int(b.y) + r + 1)
        found = [Pip(p.x + x0, p.y + y0, p.area, p.major, p.minor, p.angle, p.contrast, p.polarity)
                 for p in find_pips(grey[y0:y1, x0:x1], min_contrast=FAINT_PIP_CONTRAST)]
        if seen and found:
            sx = np.array([(q.x, q.y, q.diameter) for q in seen])  # (S, 3)
            fx = np.array([(q.x, q.y, q.diameter) for q in found])  # (F, 3)
            dist = np.hypot(fx[:, None, 0] - sx[None, :, 0], fx[:, None, 1] - sx[None, :, 1])
            same = dist <= 0.5 * np.maximum(fx[:, None, 2], sx[None, :, 2])  # (F, S)
            first = np.where(same.any(axis=1), same.argmax(axis=1), -1)
            # (Two pips of this square may both be one found before: it is listed once.)
            found = list({id(q): q for q in (seen[j] if j >= 0 else q for q, j in zip(found, first.tolist()))}.values())
        known = {id(q) for q in seen}
        seen += [q for q in found if id(q) not in known]
        out.append(found)
    return out


def _more_faces(more: list[tuple[float, int | None, Face]],
                kept: list[tuple[float, int | None, Face]]) -> list[tuple[float, int | None, Face]]:
    """Of the second look's readings ``more``, each die's top face (:func:`_top_faces`), and only
    where no die of ``kept`` lies (within 1.6 half-widths, as :func:`_top_faces` asks)."""
    out = []
    for margin, value, f in _top_faces(more):
        cx, cy = f.center
        if not any(math.hypot(cx - k.center[0], cy - k.center[1]) < 1.6 * max(f.half_width, k.half_width)
                   for _, _, k in kept):
            out.append((margin, value, f))
    return out


def asks_verifier(kind: str, value: int | None, why: str | None) -> bool:
    """Whether a ``trace`` entry of :func:`_read_d6` (``(kind, face, value, margin, why)``) is a
    reading the verifier is asked about: a face hypothesis with a value that no rule refused, or
    that only the seam check refused (a phantom two still hides what it hid, :func:`_choose_faces`).
    :func:`select_readings` and the training script (``train_d6_verifier``) both ask this, so the
    trainer measures every reading the replay asks about."""
    return kind in ("hypothesis", "faint", "large") and why in (None, "seam") and value is not None


def select_readings(trace: list, keeps) -> list[tuple[int | None, Face]]:
    """The dice :func:`_read_d6` would keep, replayed from its ``trace`` (read with no verifier)
    with ``keeps(face, value, margin) -> bool`` as the verifier: ``[(value or None, face)]``,
    working-image px, in the reader's order (before it sorts them left to right).

    The verifier is the reader's last check, so what it refuses changes only which of a group's
    readings is best and which faces are kept; the training script so scores many verifiers on
    one reading of each photo. A test checks the replay against the reader."""
    scored: list = []
    alt: list = []  # the groups' readings with phantom twos refused (_choose_faces)
    ghosts: set[int] = set()
    bodies: list = []  # the second look's: [((x, y, major), [reading of each group])]
    unread = ghost = None
    passed: list = []  # the group's readings kept, in order, and its rows' pips (_best_reading)
    rows: set[int] = set()

    def close() -> None:
        best = _best_reading(passed, rows)
        main = ghost if ghost is not None and (best is None or ghost[0] > best[0]) else best
        if bodies:  # a body's group: a reading with a value on the body, or nothing
            if main is not None and main is not ghost and _on_body(main[2], bodies[-1][0]):
                bodies[-1][1].append(main)
        else:
            if main is ghost and ghost is not None:
                ghosts.add(id(ghost[2]))
            for out, first in ((scored, main), (alt, best)):
                if first is not None:
                    out.append(first)
                elif unread is not None:
                    out.append(unread)

    for kind, f, value, margin, why in trace[1:]:  # after the ("scale", s) entry
        if kind in ("group", "body"):
            close()
            unread = ghost = None
            passed, rows = [], set()
            if kind == "body":
                bodies.append((why, []))
        elif kind == "unread":
            unread = (0.0, None, f)
        elif kind == "row":
            rows.update(id(p) for p in f.pips)
        elif asks_verifier(kind, value, why) and keeps(f, value, margin):
            if why is None:
                passed.append((margin, value, f))
            elif why == "seam" and (ghost is None or margin > ghost[0]):
                ghost = (margin, value, f)
    close()
    first = _top_faces(scored)
    kept = _choose_faces(scored, alt, ghosts)
    kept += _more_faces([r for at, found in bodies if not _holds_a_face(at, first) for r in found], kept)
    return [(value, f) for _, value, f in kept]


def read_d6(image: np.ndarray) -> list[DieObservation]:
    """Every standard pip die in a table photo, by its top face.

    Args:
        image: (H, W, 3) uint8 BGR (or (H, W) grey), any size (photos larger than ``WORK_SIDE``
            are read shrunk; coordinates are always in the given image's px).

    Returns:
        One DieObservation per die: ``face`` "1" … "6" (or None when pips are there but do not
        form a clean layout), ``quad`` the top face, ``confidence`` 0..1. Ordered left to right.

    Raises:
        ValueError: ``image`` is not a uint8 array of 1, 3 or 4 channels; or the package's verifier
            file (``companion/data/d6_verifier.json``) is damaged (the message names it).
    """
    from companion.vision.dice_verify import shipped

    return _read_d6(image, shipped(), None)


def _read_d6(image: np.ndarray, verifier, trace: list | None) -> list[DieObservation]:
    """:func:`read_d6` with a given ``verifier`` (a :class:`companion.vision.dice_verify.Verifier`,
    or None to keep every reading the rules let through). With ``trace`` a list, the working
    image's scale is appended to it as ``("scale", scale)``, every face hypothesis read as
    ``("hypothesis", face, value, margin, refusal)`` (:func:`_refusal`'s name, or None), each
    group's hypotheses after a ``("group", None, None, 0.0, None)``, the face a group would report
    unread when no reading of it is kept as ``("unread", face, None, 0.0, None)``, each die body
    of the second look (faint pips) as ``("body", None, None, 0.0, (x, y, major axis))`` before
    its groups (their hypotheses traced as ``("faint", ...)``: mostly the same pips found again,
    so not examples of their own for the verifier's training), a large one's face
    (``LARGE_ONE_HALF_WIDTH``) of the first pass as ``("large", ...)`` (not an example either: the
    verifier was trained before such faces were tried), and every die kept as
    ``("kept", face, value, margin, None)``, faces in working-image px: what
    ``companion.vision.train_d6_verifier`` learns from and replays (:func:`select_readings`)."""
    image = np.asarray(image)
    if image.dtype != np.uint8 or image.ndim not in (2, 3) or (image.ndim == 3 and image.shape[2] not in (1, 3, 4)):
        raise ValueError(f"read_d6: a photo is an (H, W, 3) uint8 BGR array (or (H, W) grey), "
                         f"not {image.dtype} {image.shape}")
    if image.size == 0:
        return []
    if image.ndim == 3 and image.shape[2] == 4:
        image = image[:, :, :3]
    if image.ndim == 2 or image.shape[2] == 1:  # a grey photo: read as such
        image = cv2.cvtColor(image.reshape(image.shape[:2]), cv2.COLOR_GRAY2BGR)
    img, scale = working_copy(image, WORK_SIDE)
    if trace is not None:
        trace.append(("scale", scale))
    grey = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    h_img, w_img = grey.shape
    # The pip search is shared out between this thread and a worker thread (OpenCV releases the
    # GIL, so the two overlap): this thread takes the dark pips' finest octave and the light
    # pips' coarser ones, the worker the dark pips' coarser octaves, the image's gradients, the
    # light pips' finest octave and the integral image, in the order they are needed. This
    # thread then makes the dark pips' face hypotheses (mostly Python) while the worker finishes.
    # Pips of unlike polarity never share a group, a bar pair or a squashed one's check, so the
    # dark pips' hypotheses need no light pip; dark first, as one batch of all the pips would
    # order them.
    worker = _search_worker()
    jobs = [worker.submit(_coarse_pips, grey), worker.submit(_gradients, grey),
            worker.submit(_fine_pips, grey, light=True), worker.submit(_sampler, grey)]
    try:
        dark_fine = _fine_pips(grey)
        light_coarse = _coarse_pips(grey, light=True)
        dark = _dedupe(dark_fine + jobs[0].result())  # find_pips(grey), its octaves shared out
        dark_groups = group_pips(dark)
        grad = jobs[1].result()
        dark_faces = _candidates(dark_groups, grad)
    finally:
        # Every job ends before this call does, whatever happens here or in one of them: a job
        # left queued would hold up the next photo's.
        wait(jobs)
    _, grad, light_fine, sample = [job.result() for job in jobs]
    light_pips = _dedupe(light_fine + light_coarse)  # find_pips(grey, light=True)
    light_groups = group_pips(light_pips)
    pips = dark + light_pips
    pip_xy = np.array([(p.x, p.y) for p in pips], np.float64).reshape(-1, 2)
    pip_pol = np.array([p.polarity for p in pips])
    per_group = (dark_faces + _candidates(light_groups, grad)
                 + _bar_sixes([p for group in dark_groups + light_groups for p in group], grad))
    # A dark die on a light table is a dark blob holding its light pips (and a light die on a
    # dark one the reverse): no pip. Two such dice read as a two as large as the photo.
    faces_not_pips = _face_blobs(dark, light_pips) | _face_blobs(light_pips, dark)
    if faces_not_pips:
        per_group = [[f for f in faces if not any(id(p) in faces_not_pips for p in f.pips)] for faces in per_group]
    # Each round pip's like neighbours in its group (a two's pips, wherever its group's split
    # puts them): a one-pip face with one across no seam is refused (_two_mate).
    mates = group_mates(dark_groups + light_groups)
    seams: dict = {}
    # A lone one's far mates (a very clear two's other pip, grouped apart): each pair is tried as a
    # two, a group of its own walked after all others, only where a one-pip face on its pip passes
    # _far_two (on the one's diagonal, no seam between; whatever rule refused that face): then it
    # reads 2, and is reported with no value when outlined only where that one was refused "far"
    # (far_refused; no other rule refused it). (Both sets are filled whatever the verifier says, so
    # a replay of the trace with another verifier walks the same groups, select_readings.)
    far = far_mates(dark_groups + light_groups)
    pair_of: dict[int, tuple[int, int]] = {}  # id of a far pair's two face: the pair's key
    far_hits: set[tuple[int, int]] = set()
    far_refused: set[tuple[int, int]] = set()  # of far_hits, the pairs a one was refused "far" for
    if far:
        by_id = {id(p): p for p in pips}
        pairs: dict[tuple[int, int], Face] = {}
        for i, qs in far.items():
            for q in qs:
                key = (i, id(q)) if i < id(q) else (id(q), i)
                if key not in pairs:
                    two = _fit([by_id[i], q], 2)
                    if two is not None and not (faces_not_pips and {i, id(q)} & faces_not_pips):
                        pairs[key] = two
        pair_of = {id(two): key for key, two in pairs.items()}
        per_group = per_group + [[two] for two in pairs.values()]
    # value, margin, body, cut, squash
    read: dict[int, tuple[int | None, float, float, bool, float]] = {}

    def read_all(faces: list[Face]) -> None:
        if not faces:
            return
        values, margins, bodies, let_off, worn_of = read_faces(faces, sample, np.array([f.pips[0].polarity for f in faces]))
        marked.update(id(f) for f, off in zip(faces, let_off.tolist()) if off)
        worn.update((id(f), v) for f, v in zip(faces, worn_of.tolist()) if v)
        # A face cut by the photo's border (by more than a fifth of its half-width): its top
        # face cannot all be seen.
        frames = np.array([f.frame for f in faces])
        corners = _CORNERS @ frames[:, :, :2].transpose(0, 2, 1) + frames[:, None, :, 2]  # (N, 4, 2)
        slack = 0.2 * _half_widths(frames)
        cut = ((corners.min(axis=(1, 2)) < -slack)
               | np.any(corners.max(axis=1) > np.array([w_img, h_img]) + slack[:, None], axis=1))
        read.update(zip(map(id, faces), zip(values, margins.tolist(), bodies.tolist(), cut.tolist(),
                                            _squashes(frames).tolist())))
        # The chroma round each lone light pip's face (read below), all at once.
        light_ones = [k for k, f in enumerate(faces) if f.pips[0].polarity < 0 and len(f.pips) == 1]
        if light_ones:
            chroma.update(zip((id(faces[k]) for k in light_ones), _chromas(img, frames[light_ones]).tolist()))

    chroma: dict[int, float] = {}
    marked: set[int] = set()  # faces read only as a mark was let off their body (read_faces)
    worn: dict[int, int] = {}  # faces left unread for a worn pip (read_faces): the value they read

    def best_of(hypotheses: list[Face], pips: list[Pip], pip_xy: np.ndarray, pip_pol: np.ndarray,
                kind: str = "hypothesis"):
        """The group's best reading ``(margin, value, face)`` its rules and the verifier let
        through, else the face it reports unread, else None (traced as the walk goes, each
        hypothesis as ``kind``): twice, ``(as read, with phantoms refused)``; the first is a
        phantom two (refused only as ``"seam"``, its id added to ``ghosts``) where one beats the
        group's best reading, else the same as the second (:func:`_choose_faces`). A reading
        of one to three pips all of a row of a larger face (:func:`_row_of_larger`, traced as
        ``("row", face, value, margin, None)``) is no reading of the group: it is that face's."""
        best = unread = ghost = None
        if hypotheses and id(hypotheses[0]) in pair_of and pair_of[id(hypotheses[0])] not in far_hits:
            return None, None  # a far pair no one on its pips was refused for: not asked
        passed: list[tuple[float, int, Face]] = []  # readings let through, in order
        rows: set[int] = set()  # ids of the pips of rows of larger faces
        if trace is not None:
            trace.append(("group", None, None, 0.0, None))
        # The list may grow while it is walked: a lone pip found to share its face with pips
        # grouped apart adds the placements of them all (below).
        k = 0
        while k < len(hypotheses):
            f = hypotheses[k]
            k += 1
            value, margin, body, cut, squash = read[id(f)]
            why = _refusal(f, value, margin, body, cut, squash, chroma, pips, pip_xy, pip_pol, grad, sample, verifier,
                           img, mates, seams, far if kind == "hypothesis" else None)
            if value == 1 and far and kind == "hypothesis":
                hits = [(id(p), id(q)) if id(p) < id(q) else (id(q), id(p))
                        for p in f.pips for q in _far_two(f, far, img, grad, seams)]
                far_hits.update(hits)
                # The pair may be reported with no value only where the one was refused for it:
                # no earlier rule refused the one (a "crowded" speck on a cable's plug is no
                # die's pip, real test dice_46). The verifier is asked before "far", so a
                # doubted one is asked again without it: the same whatever the verifier says.
                if hits and (why == "far" or (why == "doubt" and _refusal(
                        f, value, margin, body, cut, squash, chroma, pips, pip_xy, pip_pol, grad, sample, None,
                        img, mates, seams, far) == "far")):
                    far_refused.update(hits)
            old_why = why if id(f) not in worn else _refusal(f, worn[id(f)], margin, body, cut, squash, chroma, pips,
                                                             pip_xy, pip_pol, grad, sample, None)
            if old_why == "shares":
                # One pip of a face whose other pips were grouped apart (perspective or blur
                # made them look unlike): not a one; the face is read again with them.
                inside = _pips_inside(f, pips, pip_xy, pip_pol)
                if len(inside) <= 2:
                    more = _placements(list(f.pips) + inside)
                    read_all(more)
                    hypotheses.extend(more)
            if trace is not None:
                trace.append(("large" if f.large_one and kind == "hypothesis" else kind, f, value, margin, why))
            # (Asked only of readings no rule but the verifier's refused: the same whether read
            # with a verifier or replayed from a trace read with none, select_readings.)
            if why in (None, "doubt", "seam") and _row_of_larger(f, value, pips, pip_xy, pip_pol):
                rows.update(id(p) for p in f.pips)
                if trace is not None:
                    trace.append(("row", f, value, margin, None))
            # A face of no value may be reported unread. So may a face read only as one mark was
            # let off its body (read_faces): refused, it is what it was before, a face of no
            # value. Its fallback is taken whether or not it is refused here (a value still beats
            # it), so that a trace read with no verifier holds it for a replay whose verifier
            # refuses the face (select_readings). And a face left unread for a worn pip of a larger
            # layout is surely a die: it is reported unread where the old reader reported its
            # smaller value (its checks as that value, but the verifier's, which a replay may change).
            if id(f) in marked:
                no_value = _refusal(f, None, margin, body, cut, squash, chroma, pips, pip_xy, pip_pol, grad,
                                    sample, verifier) is None
            else:
                no_value = value is None and why is None and id(f) not in worn
            if unread is None and ((no_value and _unreadable_die(f, margin, grad))
                                   or (id(f) in pair_of and pair_of[id(f)] in far_refused
                                       and outline_strength(f, grad) >= MIN_ONE_OUTLINE)
                                   or (id(f) in worn and why is None and old_why is None
                                       and outline_strength(f, grad) >= MIN_ONE_OUTLINE)):
                unread = (0.0, None, f)
                if trace is not None:
                    trace.append(("unread", f, None, 0.0, None))
            if why is None and value is not None:
                passed.append((margin, value, f))
            if why == "seam" and (ghost is None or margin > ghost[0]):
                ghost = (margin, value, f)
        best = _best_reading(passed, rows)
        alt = best if best is not None else unread
        if ghost is not None and (best is None or ghost[0] > best[0]):
            ghosts.add(id(ghost[2]))
            return ghost, alt  # the phantom two (_choose_faces), as main read it
        return alt, alt

    ghosts: set[int] = set()  # phantom twos (best_of, _choose_faces)
    read_all([f for hypotheses in per_group for f in hypotheses])
    both = [best_of(h, pips, pip_xy, pip_pol) for h in per_group]
    scored = [b for b, _ in both if b is not None]
    first = _top_faces(scored)  # as if no seam were looked at: where the second look may look
    kept = _choose_faces(scored, [a for _, a in both if a is not None], ghosts)
    # A second look for faint pips (a blurred photo's), only on die bodies where no die was read:
    # it adds dice, never changes one read above. (Traced for every body, so that a replay with
    # another verifier, which may keep other dice, finds what it needs.)
    bodies = [b for b in _bodies(light_fine + light_coarse)
              if trace is not None or not _holds_a_face((b.x, b.y, b.major), first)]
    if bodies:
        faint = _faint_pips(grey, bodies)
        all_pips = pips + list({id(q): q for on_body in faint for q in on_body}.values())  # each pip once
        all_xy = np.array([(p.x, p.y) for p in all_pips], np.float64).reshape(-1, 2)
        all_pol = np.array([p.polarity for p in all_pips])
        per_body = [_candidates(group_pips(on_body, FAINT_GROUP_REACH), grad) for on_body in faint]
        read_all([f for groups in per_body for faces in groups for f in faces])
        more = []
        for b, groups in zip(bodies, per_body):
            at = (b.x, b.y, b.major)
            if trace is not None:
                trace.append(("body", None, None, 0.0, at))
            found = [r for r, _ in (best_of(h, all_pips, all_xy, all_pol, "faint") for h in groups)
                     if r is not None and r[1] is not None and id(r[2]) not in ghosts and _on_body(r[2], at)]
            if not _holds_a_face(at, first):
                more += found
        kept += _more_faces(more, kept)
    if trace is not None:
        trace.extend(("kept", f, value, margin, None) for margin, value, f in kept)
    out = []
    for margin, value, f in kept:
        q = to_original_px(f.quad(), scale)
        conf = float(np.clip(margin / 0.4, 0.0, 1.0))
        out.append(DieObservation(None if value is None else str(value), conf, tuple((float(x), float(y)) for x, y in q)))
    return sorted(out, key=lambda o: o.center)
