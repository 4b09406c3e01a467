"""Finding the top faces of coloured dice on a table (Sushi Roll icon dice, issue #7 §2).

A resting die seen from above shows its top face, lit like the table (both are level), and,
away from the camera's nadir, one or two side faces turned towards the camera: darker (they face
sideways) and printed with *other* faces' art. Only the top face is read; a side face must never
be taken for a die. The finder knows the dice's body colours (learnt at enrolment) and nothing of
their art. It gives, per die, one or more hypotheses of its top face's square (:class:`TopFace`,
one ``group`` per die); the reader keeps the one that best matches the enrolled art.

1. **Body colour.** On a quarter-size copy of the frame, each pixel's rg-chromaticity
   ((R, G) / (R + G + B): unchanged by brightness, moved only slightly by a colour cast) is
   compared with each die type's body colour through a lookup table (:class:`BodyColours`). Blur
   and JPEG's coarse chroma mix a body with its white or black icons, which keeps the hue and
   lowers the saturation, so a pixel matches a body when it lies near the line from grey to that
   body's colour. The table's own colour is a large median filter of the frame (the dice cover a
   small part of any window); a pixel of the table's chromaticity that is not brighter than it is
   table, in a die's shadow or not.
2. **Blobs.** Each body colour's pixels that are not table form blobs: one die's top and side
   faces, or a few touching dice of one colour.
3. **Top face.** Within a blob (full working size), the top face is the brightest part of the
   body colour: side faces are turned from the light. The bright level is taken from pixels of
   the body's full saturation only (a blend with a white icon is brighter). A watershed floods
   the blob from seeds: the body bright enough to be surely top, against the table round the
   blob and the body dark enough to be a side face. It stops at the strongest edges between
   them: the seam between a top and its side faces, or between two touching dice. The top's
   parts that icons cut apart are joined, and their holes (the icons) filled. Which brightness
   splits a top from its sides depends on the art and the light, so a second seed level
   (``SEED_LEVELS``) is tried where the first leaves a lit top unexplained. Where the table has
   a die's colour (red wood and a red die), what looks like the table and is not the die's full
   colour is not top.
4. **Squares.** A region whose convex hull is a square of plausible size is a top face
   (``cv2.minAreaRect``); pieces whose joint hull is a square are joined; a rectangle about n
   times as long as wide (touching dice whose tops merged) is cut into n squares; any other
   region gives a square at each of its cores (distance-transform peaks: touching tops not in a
   row, or a top with a bit of a side face flooded onto it) and, with one core, its rectangle
   cut square (step 5). A square inside a larger one of
   another colour (a white icon on a green die) is an icon, not a die.
5. **Side faces taken in.** A side face lit nearly as well as the top can be taken in; side faces
   show between a top and the nadir (a pinhole camera sees a die's top displaced away from it).
   A found rectangle that is not quite square is also offered cut square at its end away from
   the nadir, and at its mean side (:func:`_squared`); smaller squares in the far corner are
   offered too (``TRIMS``), but only where what they leave out is darker, a side face
   (:func:`_darker_beyond`): cutting off much of a top could cut off an icon (three maki read as
   two).
6. **Cut by the frame.** A bright part running into the image border is a die partly outside the
   photo: reported (``partial``), not read.

Sources: OpenCV ``medianBlur``, ``connectedComponentsWithStats``, ``watershed`` (F. Meyer, "Color
image segmentation", ICIP 1992), ``distanceTransform``, ``findContours`` (Suzuki & Abe 1985),
``convexHull``, ``minAreaRect``; rg-chromaticity, the brightness-free part of a colour (R. C.
Gonzalez, R. E. Woods, *Digital Image Processing*, §6.1).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

#: The largest working image side, px: bigger photos are shrunk first (a 40–80 px face at 1280).
WORK_SIDE = 1280
#: A pixel has a die type's body colour when its rg-chromaticity lies within ``CHROMA_TOL`` of
#: the line from grey to the body colour, between ``DESATURATION`` and ``OVERSATURATION`` of the
#: way; it has the body's *full* colour from ``PURE`` of the way.
CHROMA_TOL = 0.05
DESATURATION, OVERSATURATION, PURE = 0.4, 1.5, 0.8
#: A pixel is table where its rg-chromaticity is within this of the table's there...
TABLE_CHROMA = 0.04
#: ... and it is not brighter than the table's by this factor (log; darker is the table in shadow).
TABLE_BRIGHT = 0.18
#: The watershed's seeds, one hypothesis each ``(percentile, top, side)``: the blob's bright level
#: is that percentile of its full-colour body brightness; surely top is body at ``top`` of the
#: level or more, surely not (side faces, turned from the light) body below ``side`` of it. Which
#: level splits a top from its sides depends on the art and the light, so each gives its squares
#: and the reader keeps, where they overlap, the one that best matches the enrolled art.
SEED_LEVELS = ((75, 0.93, 0.75), (92, 0.90, 0.72))
#: The body counted as lit (a top's) when deciding whether the next hypothesis is needed.
TOP_SEED_MIN = 0.9
#: A part of a region beyond a top face's square is a side face if its body colour is at most
#: this bright relative to the square's (side faces are turned from the light).
SIDE_RATIO = 0.88
#: Smaller squares tried in a square's corner farthest from the image centre, as fractions of its
#: side: a side face lit nearly as well as the top may have been taken in, and side faces show
#: between a top and the camera's nadir (a pinhole camera sees a die's top displaced away from
#: the nadir). Kept only if what they leave out is a side face (:func:`_darker_beyond`).
TRIMS = (0.76,)
#: Grow the found square by this fraction of its side on each side (the rounded, darker rim).
EDGE_GROW = 0.015
#: Top face side range, working px; the issue's faces are 40–80 px (a photo larger than
#: ``WORK_SIDE`` is shrunk first, and its dice with it).
SIDE_RANGE = (28.0, 160.0)
#: A region is a square when its hull's minAreaRect's sides differ by at most this ratio...
SQUARE_ASPECT = 1.3
#: ... and the hull fills at least this fraction of the rectangle, and the region itself (icons
#: cut into its outline) ``SOLID_MIN`` of it.
SQUARE_FILL = 0.78
SOLID_MIN = 0.5
#: The smallest face the reader is made for, working px (issue #7: 40 px, less a margin);
#: quarter-size blobs smaller than ``_MIN_BLOB`` of it are noise.
FACE_MIN = 36.0
_MIN_BLOB = 0.5
_MIN_PART = 30.0  # px²: smaller bright bits are noise
_K3 = np.ones((3, 3), np.uint8)
_DILATE = np.ones((9, 9), np.uint8)  # a blob at quarter size grown by one of its pixels (4 px)
_SUM = np.ones((1, 3), np.float32)  # cv2.transform: B + G + R


def _components(mask: np.ndarray) -> tuple[int, np.ndarray, np.ndarray, np.ndarray]:
    """``cv2.connectedComponentsWithStats`` (8-connected) of a (h, w) uint8 mask by the block-based
    algorithm (BBDT: C. Grana, D. Borghesani, R. Cucchiara, "Optimized block-based connected
    components labeling with decision trees", IEEE TIP 2010): the same labels as OpenCV's default,
    whose statistics pass in OpenCV 5 takes three times as long on a frame's quarter-size masks."""
    return cv2.connectedComponentsWithStatsWithAlgorithm(mask, 8, cv2.CV_32S, cv2.CCL_GRANA)


@dataclass(frozen=True)
class TopFace:
    """One top face found.

    quad: (4, 2) float32 image px (of the image given), clockwise on screen, from an arbitrary
        corner (the art's orientation is the classifier's business).
    body: index of the body colour (the ``bodies`` row) it was found with.
    partial: True when the face touches the image border (cut off): it cannot be read.
    group: faces with one group number are hypotheses of one die (module doc, 3): the reader
        keeps one of them.
    """

    quad: np.ndarray
    body: int
    partial: bool = False
    group: int = 0


def chromaticity(bgr: np.ndarray) -> np.ndarray:
    """(..., 3) BGR (any scale) → (..., 2) float32 rg-chromaticity (R, G) / (B + G + R), with a
    small offset so black pixels come out grey rather than undefined."""
    x = np.asarray(bgr, np.float32)
    s = x.sum(axis=-1, keepdims=True) + 6.0
    return (x[..., 2:0:-1] + 2.0) / s


class BodyColours:
    """Which pixels have which die type's body colour (module doc, 1), by a lookup table on the
    colour (6 bits a channel): bit 2k of an entry is "body colour k", bit 2k + 1 "its full colour".

    Args:
        bodies: (K, 3) float BGR body colours 0..255, K ≤ 16.

    Raises:
        ValueError: more than 16 body colours, or not (K, 3).
    """

    def __init__(self, bodies: np.ndarray):
        bodies = np.asarray(bodies, np.float32)
        if bodies.ndim != 2 or bodies.shape[1] != 3 or not 0 < len(bodies) <= 16:
            raise ValueError(f"bodies must be (K, 3) BGR colours with 1 ≤ K ≤ 16, got {bodies.shape}")
        self.rg = chromaticity(bodies)
        levels = np.arange(64, dtype=np.float32) * 4 + 1.5  # each 6-bit bin's centre
        bgr = np.stack(np.meshgrid(levels, levels, levels, indexing="ij"), axis=-1).reshape(-1, 3)
        rg = chromaticity(bgr)
        lut = np.zeros(len(bgr), np.uint32)
        for k, c in enumerate(self.rg):
            lut |= _matches(rg, c, DESATURATION).astype(np.uint32) << (2 * k)
            lut |= _matches(rg, c, PURE).astype(np.uint32) << (2 * k + 1)
        self.lut = lut
        self._one = [((lut >> (2 * k)) & 3).astype(np.uint8) for k in range(len(self.rg))]

    @staticmethod
    def _index(bgr: np.ndarray) -> np.ndarray:
        """(h, w) int32 table index, B·4096 + G·64 + R of the 6-bit channels. One ``cv2.transform``
        (exact: every partial sum is an integer below 2²⁴) in place of three shifts and two ors."""
        x = (np.ascontiguousarray(bgr, np.uint8) >> 2).astype(np.float32)
        return cv2.transform(x, _INDEX_WEIGHTS).astype(np.int32)

    def codes(self, bgr: np.ndarray) -> np.ndarray:
        """(h, w) uint32 lookup-table entries of an (h, w, 3) uint8 BGR image."""
        return np.take(self.lut, self._index(bgr))

    def of(self, bgr: np.ndarray, k: int) -> np.ndarray:
        """(h, w) uint8 for body colour ``k`` alone: 0 not its colour, 1 its colour, 3 its full colour."""
        return np.take(self._one[k], self._index(bgr))


_INDEX_WEIGHTS = np.array([[4096.0, 64.0, 1.0]], np.float32)  # cv2.transform: BodyColours._index


_GREY = np.array([1 / 3, 1 / 3], np.float32)


def _matches(rg: np.ndarray, body_rg: np.ndarray, lowest: float) -> np.ndarray:
    """(...) bool: rg-chromaticities (..., 2) near the line from grey to ``body_rg``, from
    ``lowest`` of the way to ``OVERSATURATION``; for a grey body (white dice), near grey."""
    v = np.asarray(body_rg, np.float32) - _GREY
    d = rg - _GREY
    vv = float(v @ v)
    if vv < (2 * CHROMA_TOL) ** 2:
        return np.linalg.norm(rg - np.asarray(body_rg, np.float32), axis=-1) < CHROMA_TOL
    t = (d @ v) / vv
    perp = np.abs(d[..., 0] * v[1] - d[..., 1] * v[0]) / np.sqrt(vv)
    return (perp < CHROMA_TOL) & (t >= lowest) & (t <= OVERSATURATION)


def _percentile(values: np.ndarray, q: float) -> float:
    """The ``q``-th percentile (nearest rank below) of a 1-D array: ``np.partition``, a few times
    faster than ``np.percentile`` on the small arrays of one blob."""
    k = int(q / 100.0 * (len(values) - 1))
    return float(np.partition(values, k)[k])


def _odd(n: float) -> int:
    k = max(3, int(round(n)))
    return k if k % 2 else k + 1


_COARSE = 4  # the coarse stage's reduction (module doc, 1)


def _quarter(img: np.ndarray) -> np.ndarray:
    """(h, w, 3) uint8 → (h // 4, w // 4, 3) uint8 (at least 8 × 8): the coarse stage's copy, area
    means. Where both sides are multiples of 4, two halvings (``cv2.resize`` ``INTER_AREA``, whose
    2× reduction is vectorised and its 4× not: 0.9 ms against 1.8–3 ms for a 1280 × 960 frame);
    a value is then at most 1 off the 4 × 4 mean (two roundings), far below what the body-colour
    and table tests resolve."""
    h, w = img.shape[:2]
    if h % _COARSE or w % _COARSE or min(h, w) < 8 * _COARSE:
        return cv2.resize(img, (max(8, w // _COARSE), max(8, h // _COARSE)), interpolation=cv2.INTER_AREA)
    half = cv2.resize(img, (w // 2, h // 2), interpolation=cv2.INTER_AREA)
    return cv2.resize(half, (w // _COARSE, h // _COARSE), interpolation=cv2.INTER_AREA)


def _table(small: np.ndarray) -> np.ndarray:
    """(h, w, 3) float32: the table's colour at each pixel of a shrunk frame (module doc, 1): a
    median over windows about a fifth of the frame wide."""
    h, w = small.shape[:2]
    tiny = cv2.resize(small, (max(8, w // 4), max(8, h // 4)), interpolation=cv2.INTER_AREA)
    k = min(_odd(max(tiny.shape[:2]) * 0.2), _odd(min(tiny.shape[:2]) - 2))
    med = cv2.medianBlur(tiny, k)
    return cv2.resize(med, (w, h), interpolation=cv2.INTER_LINEAR).astype(np.float32)


def _not_table(frame: np.ndarray, table: np.ndarray) -> np.ndarray:
    """(h, w) bool: where a shrunk frame (h, w, 3) float32 differs from the table's colour there
    (module doc, 1): in rg-chromaticity by ``TABLE_CHROMA``, or brighter by ``TABLE_BRIGHT``. Only
    darker, it is the table in a die's shadow."""
    s = cv2.transform(frame, _SUM) + 6.0
    t = cv2.transform(table, _SUM) + 6.0
    differs = s > t * np.exp(TABLE_BRIGHT)
    for ch in (1, 2):  # g, then r: (G + 2) / sum and (R + 2) / sum, as chromaticity()
        d = cv2.absdiff((frame[..., ch] + 2.0) / s, (table[..., ch] + 2.0) / t)
        differs |= d >= TABLE_CHROMA
    return differs


def quad_centre(quad: np.ndarray) -> np.ndarray:
    """The mean of a (4, 2) quad's corners, of its dtype: bitwise ``quad.mean(axis=0)`` (numpy adds
    the rows in turn; the division by 4 is exact) at half the cost, for the many small quads of
    a frame."""
    return (quad[0] + quad[1] + quad[2] + quad[3]) / 4


def _order_clockwise_many(pts: np.ndarray) -> np.ndarray:
    """(S, 4, 2) float32 quads, each as :func:`_order_clockwise`."""
    c = pts.mean(axis=1, keepdims=True)
    ang = np.arctan2(pts[..., 1] - c[..., 1], pts[..., 0] - c[..., 0])
    p = np.take_along_axis(pts, np.argsort(ang, axis=1)[..., None], axis=1)
    start = np.argmin(p[..., 0] + p[..., 1], axis=1)
    turn = (start[:, None] + np.arange(4)) % 4
    return np.take_along_axis(p, turn[..., None], axis=1).astype(np.float32)


def _order_clockwise(pts: np.ndarray) -> np.ndarray:
    """(4, 2) corners in clockwise order on screen (y down), from the top-most-left one."""
    c = pts.mean(axis=0)
    ang = np.arctan2(pts[:, 1] - c[1], pts[:, 0] - c[0])
    p = pts[np.argsort(ang)]  # increasing angle = clockwise on screen with y down
    start = int(np.argmin(p[:, 0] + p[:, 1]))
    return np.roll(p, -start, axis=0).astype(np.float32)


def _square_of(pts: np.ndarray, side_range: tuple[float, float]) -> tuple | None:
    """``cv2.minAreaRect`` of a point set's convex hull if it is a top face's square (sides within
    ``SQUARE_ASPECT`` of each other, filling ``SQUARE_FILL`` of the rectangle, side in range)."""
    hull = cv2.convexHull(pts)
    rect = cv2.minAreaRect(hull)
    rw, rh = rect[1]
    lo, hi = min(rw, rh), max(rw, rh)
    if lo < side_range[0] or hi > side_range[1] or hi / max(lo, 1e-6) > SQUARE_ASPECT:
        return None
    if cv2.contourArea(hull) < SQUARE_FILL * rw * rh:
        return None
    return rect


def _row_of_squares(cnt: np.ndarray, side_range: tuple[float, float]) -> list[np.ndarray]:
    """A region that is n ≥ 2 squares in a row (touching dice whose tops merged), cut into its
    squares: each n-th of the region along its rectangle's long side, refitted. [] if it is not."""
    rect = cv2.minAreaRect(cnt)
    (cx, cy), (rw, rh), ang = rect
    lo, hi = min(rw, rh), max(rw, rh)
    n = int(round(hi / max(lo, 1e-6)))
    if n < 2 or abs(hi / lo - n) > 0.3 or lo < side_range[0] or lo > side_range[1]:
        return []
    box = cv2.boxPoints(rect)
    u = (box[1] - box[0]) if rw >= rh else (box[2] - box[1])
    u = u / np.linalg.norm(u)
    t = (cnt.reshape(-1, 2) - [cx, cy]) @ u / hi + 0.5  # 0..1 along the long side
    out = []
    for i in range(n):
        part = cnt.reshape(-1, 2)[(t >= i / n - 0.02) & (t <= (i + 1) / n + 0.02)]
        # The cut itself is a side of each square: add its ends so the part is closed.
        if len(part) < 4:
            return []
        r = _square_of(part.astype(np.float32), side_range)
        if r is None:
            return []
        out.append(cv2.boxPoints(r).astype(np.float32))
    return out


def _squares(parts: list[np.ndarray], side_range: tuple[float, float]) -> list[tuple[np.ndarray, np.ndarray | None]]:
    """Top-face squares from the filled parts (contours) of one blob's bright body colour.

    Icons can cut a face's bright body in two (three maki on the diagonal), so parts whose
    joint convex hull is a square are joined, nearest first; a part that is a row of squares
    (touching dice whose tops merged) is cut up (:func:`_row_of_squares`); a part that is neither
    gives its core squares (:func:`_core_squares`) and, with one core, its rectangle. Returns
    ((4, 2) float32 corners, crop px; for a core square the part's contour, for the rectangle
    ``_RECT``, else None)."""
    area = [float(cv2.contourArea(p)) for p in parts]
    groups = [[i] for i in range(len(parts))]
    pts = [p.reshape(-1, 2).astype(np.float32) for p in parts]
    near = 0.25 * side_range[1]
    gaps = _Gaps(pts, near)

    def joint(g: list[int]) -> np.ndarray:
        return np.vstack([pts[i] for i in g])

    squared: dict[tuple[int, ...], tuple | None] = {}

    def square(g: list[int]) -> tuple | None:
        # The final pass asks again for the groups the joining left alone.
        key = tuple(g)
        if key not in squared:
            squared[key] = _square_of(joint(g), side_range)
        return squared[key]

    def complete(g: list[int]) -> bool:
        rect = square(g)
        return rect is not None and sum(area[k] for k in g) >= SOLID_MIN * rect[1][0] * rect[1][1]

    done = [complete(g) for g in groups]
    while len(groups) > 1:
        best = None
        for i in range(len(groups)):
            for j in range(i + 1, len(groups)):
                if done[i] or done[j]:
                    continue  # a whole face already: a bit beside it is not part of it
                # The box distance first: a lower bound that already rules most pairs out.
                lower = gaps.bound(groups[i], groups[j])
                if lower > near or (best is not None and lower >= best[0]):
                    continue
                gap = gaps.between(groups[i], groups[j])
                if gap > near or (best is not None and gap >= best[0]):
                    continue
                rect = square(groups[i] + groups[j])
                if rect is None or sum(area[k] for k in groups[i] + groups[j]) < 0.45 * rect[1][0] * rect[1][1]:
                    continue
                best = (gap, i, j)
        if best is None:
            break
        _, i, j = best
        groups[i] = groups[i] + groups[j]
        del groups[j], done[j]
        done[i] = complete(groups[i])
    out = []
    for g in groups:
        rect = square(g)
        if rect is not None and sum(area[k] for k in g) >= SOLID_MIN * rect[1][0] * rect[1][1]:
            out.append((cv2.boxPoints(rect).astype(np.float32), None))
        elif len(g) == 1:
            row = _row_of_squares(parts[g[0]], side_range)
            cores = _core_squares(parts[g[0]], side_range) if not row else []
            # One core: the rest is a side face's (checked by the caller); several: other dice.
            out += [(sq, None) for sq in row] + [(c, parts[g[0]] if len(cores) == 1 else None) for c in cores]
            if len(cores) == 1:
                # A top with a lit side face flooded onto it along one side: its rectangle, which
                # the caller only offers cut square (:func:`_squared`).
                rect = cv2.minAreaRect(cv2.convexHull(pts[g[0]]))
                lo, hi = min(rect[1]), max(rect[1])
                if side_range[0] <= lo and hi <= _LONG_RECT * lo:
                    out.append((cv2.boxPoints(rect).astype(np.float32), _RECT))
    return out


#: A region up to this long for its width may be a top and a side face (:func:`_squares`).
_LONG_RECT = 1.8
_RECT = np.zeros((0, 1, 2), np.int32)  # marks a rectangle offered only cut square


def _squared(sq: np.ndarray, nadir: np.ndarray) -> list[np.ndarray]:
    """Squares for a found rectangle ``sq`` (4, 2) that is not quite square (sides more than
    ``_SQUARE_TOL`` apart; a top face is square): cut to its short side at the end away from the
    camera's ``nadir`` (side faces show between a die's top and the nadir, so a top that took in
    a side face lies there), and as wide as it is on average, about its centre. [] for a square."""
    c = quad_centre(sq)
    e1, e2 = sq[1] - sq[0], sq[2] - sq[1]
    l1, l2 = float(np.linalg.norm(e1)), float(np.linalg.norm(e2))
    if max(l1, l2) <= _SQUARE_TOL * min(l1, l2):
        return []
    u, long_, short = (e1 / l1, l1, l2) if l1 > l2 else (e2 / l2, l2, l1)
    v = np.array([-u[1], u[0]])
    sign = 1.0 if float((c - nadir) @ u) >= 0 else -1.0
    cut = c + sign * u * (long_ - short) / 2
    mean = (long_ + short) / 2
    # The four corners at once: the same float32 arithmetic, element by element, as one corner at a time.
    offsets = _CORNER_A * u + _CORNER_B * v  # (4, 2)
    return [(cut + offsets * short / 2).astype(np.float32), (c + offsets * mean / 2).astype(np.float32)]


_SQUARE_TOL = 1.04
# A square's corners about its centre, clockwise from (−u, −v), as multiples of its axes u and v.
_CORNER_A = np.array([[-1.0], [1.0], [1.0], [-1.0]], np.float32)
_CORNER_B = np.array([[-1.0], [-1.0], [1.0], [1.0]], np.float32)


def _trimmed(sq: np.ndarray, nadir: np.ndarray) -> list[np.ndarray]:
    """Smaller squares inside a found square ``sq`` (4, 2), shrunk (``TRIMS``) towards its corner
    farthest from the camera's ``nadir``: where a top that took in side faces on two sides is."""
    far = sq[int(np.argmax(np.linalg.norm(sq - nadir, axis=1)))]
    return [(far + (sq - far) * t).astype(np.float32) for t in TRIMS]


def _darker_beyond(b: np.ndarray, body: np.ndarray, inner: np.ndarray, outer: np.ndarray) -> bool:
    """Whether the body colour in ``outer`` (a polygon, crop px) beyond the square ``inner`` is a
    side face's: on average darker than the body inside ``inner`` (``SIDE_RATIO``). A part cut
    off a top face that is as bright as the rest of it is top face, and cutting it off might cut
    an icon off too (three maki read as two).

    Args:
        b: (h, w) float32 brightness (B + G + R) of the crop.
        body: (h, w) bool, the die's body colour.
        inner: (4, 2) float square, crop px.
        outer: (n, 2) or (n, 1, 2) polygon, crop px.
    """
    outer = np.asarray(outer, np.float64).reshape(-1, 2)
    x0, y0 = np.maximum(np.floor(outer.min(axis=0)).astype(int), 0)
    x1, y1 = np.minimum(np.ceil(outer.max(axis=0)).astype(int) + 1, [b.shape[1], b.shape[0]])
    if x1 <= x0 or y1 <= y0:
        return False
    shape = (y1 - y0, x1 - x0)
    m_in = np.zeros(shape, np.uint8)
    m_out = np.zeros(shape, np.uint8)
    cv2.fillPoly(m_out, [np.round(outer - [x0, y0]).astype(np.int32)], 1)
    inner_px = np.round(np.asarray(inner) - [x0, y0]).astype(np.int32)
    cv2.fillConvexPoly(m_in, inner_px, 1)
    cv2.fillConvexPoly(m_out, inner_px, 0)  # the same pixels cleared: outer less inner, in place
    bd = body[y0:y1, x0:x1].view(np.uint8)
    beyond = m_out & bd
    within = m_in & bd
    if cv2.countNonZero(beyond) < _MIN_PART or cv2.countNonZero(within) < _MIN_PART:
        return False
    bb = b[y0:y1, x0:x1]
    return cv2.mean(bb, beyond)[0] < SIDE_RATIO * cv2.mean(bb, within)[0]


def _core_squares(cnt: np.ndarray, side_range: tuple[float, float]) -> list[np.ndarray]:
    """The squares at the cores of a region that is not a square: a top with a bit of a side face
    flooded onto it (one core), or two touching dice's tops that merged, not in a row (a core
    each). A core is where the region is deepest (a peak of its distance transform, at least
    ``_CORE_DEPTH`` of the deepest); its square is centred there, as wide as it is deep, turned as
    the region's outline mostly runs (its edge directions modulo 90°). [] if the region is too
    thin for a face."""
    pts = cnt.reshape(-1, 2)
    x0, y0 = pts.min(axis=0) - 2
    w, h = pts.max(axis=0) - [x0, y0] + 3
    mask = np.zeros((int(h), int(w)), np.uint8)
    cv2.drawContours(mask, [cnt - np.array([x0, y0], np.int32).reshape(1, 1, 2)], -1, 1, cv2.FILLED)
    dist = cv2.distanceTransform(mask, cv2.DIST_L2, 5)
    depth = float(dist.max())
    if 2 * depth < side_range[0]:
        return []
    d = np.roll(pts, -3, axis=0) - pts
    ang = np.arctan2(d[:, 1], d[:, 0]).astype(np.float64)
    theta = np.angle(np.sum(np.hypot(d[:, 0], d[:, 1]) * np.exp(4j * ang))) / 4
    u = np.array([np.cos(theta), np.sin(theta)])
    v = np.array([-u[1], u[0]])
    # Peaks: deep points that are the deepest within a face's half-width.
    k = _odd(depth)
    peak = (dist >= _CORE_DEPTH * depth) & (dist >= cv2.dilate(dist, np.ones((k, k), np.uint8)) - 0.5)
    n, lab, _, cents = _components(peak.astype(np.uint8))
    cores: list[tuple[float, np.ndarray]] = []
    for i in sorted(range(1, n), key=lambda i: -float(dist[lab == i].max())):
        c = cents[i] + [x0, y0]
        r = float(dist[lab == i].max())
        if all(np.hypot(*(c - o)) >= 1.5 * max(r, ro) for ro, o in cores):
            cores.append((r, c))
    return [np.array([c + r * (a * u + b * v) for a, b in ((-1, -1), (1, -1), (1, 1), (-1, 1))], np.float32)
            for r, c in cores if 2 * r >= side_range[0]]


_CORE_DEPTH = 0.8


class _Gaps:
    """Smallest distances, px, between a blob's parts (contours), made only where asked for.

    A pair whose bounding boxes are further apart than ``near`` gets that box distance (a lower
    bound: such parts are never joined); the others their outlines' smallest point distance, the
    costly part (two outlines of a few hundred points), made the first time it is asked for and
    kept. The joining asks only about parts that are not yet whole faces, and first compares the
    box distance (:meth:`bound`) with what it already has, so most pairs are never measured. Each
    distance is the one a whole (n, n) matrix made at once would hold.

    Args:
        pts: the parts' outline points, (n_i, 2) float32 each.
        near: px, the distance beyond which the box distance stands for the gap.
    """

    def __init__(self, pts: list[np.ndarray], near: float):
        self.pts, self.near = pts, near
        self._box: np.ndarray | None = None  # (n, n) float32 box distances, made on first use
        self._exact: dict[tuple[int, int], float] = {}

    @property
    def box(self) -> np.ndarray:
        """(n, n) float32 distances between the parts' bounding boxes (0 where they overlap)."""
        if self._box is None:
            lo = np.array([p.min(axis=0) for p in self.pts])
            hi = np.array([p.max(axis=0) for p in self.pts])
            # Every pair's box gap at once (the pairs' loop in numpy calls cost more than the arithmetic).
            box = np.maximum(0.0, np.maximum(lo[:, None] - hi[None, :], lo[None, :] - hi[:, None]))  # (n, n, 2)
            self._box = np.hypot(box[..., 0], box[..., 1]).astype(np.float32)
        return self._box

    def bound(self, a: list[int], b: list[int]) -> float:
        """A lower bound of :meth:`between` ``a`` and ``b``: their parts' smallest box distance."""
        return float(self.box[np.ix_(a, b)].min())

    def between(self, a: list[int], b: list[int]) -> float:
        """The smallest gap between any part of ``a`` and any of ``b`` (part indices)."""
        return min(self._pair(i, j) for i in a for j in b)

    def _pair(self, i: int, j: int) -> float:
        box = float(self.box[i, j])
        if box > self.near:
            return box
        key = (min(i, j), max(i, j))
        if key not in self._exact:
            p, q = self.pts[key[0]][::2], self.pts[key[1]][::2]  # every other outline point: a pixel is plenty
            self._exact[key] = float(np.float32(np.sqrt(((p[:, None, :] - q[None, :, :]) ** 2).sum(axis=2).min())))
        return self._exact[key]


def top_parts(crop: np.ndarray, b: np.ndarray, inside: np.ndarray, body: np.ndarray, pure: np.ndarray,
              levels: tuple[float, float, float] = SEED_LEVELS[0], table: np.ndarray | None = None,
              level: float | None = None) -> list[np.ndarray]:
    """The top faces' parts within one blob (module doc, 3), for one seed hypothesis.

    Args:
        crop: (h, w, 3) uint8 BGR, the blob's part of the working image.
        b: (h, w) float32 brightness (B + G + R) of the crop.
        inside: (h, w) bool, the blob.
        body: (h, w) bool, the blob's body colour (``inside`` and of the colour).
        pure: (h, w) bool, its full body colour (non-empty).
        levels: the seeds' ``(percentile, top, side)`` (one of ``SEED_LEVELS``).
        table: (h, w) bool, where the crop looks like the table there (None: nowhere); what is
            also not of the full body colour is surely not top.
        level: the bright level (``levels``' percentile of ``b[pure]``) if already known.

    Returns:
        The outer contours ((n, 1, 2) int32 crop px) of the top parts, holes (icons) filled.
    """
    percentile, top_at, side_below = levels
    if level is None:
        level = _percentile(b[pure], percentile)
    seeds = cv2.morphologyEx((pure & (b >= top_at * level)).astype(np.uint8), cv2.MORPH_OPEN, _K3)
    _, markers = cv2.connectedComponents(seeds, connectivity=4)
    markers += markers > 0  # seeds 2, 3, ...; 1 is the background's
    surely_not = ~inside | (body & (b < side_below * level))
    if table is not None:
        surely_not |= table & ~pure
    np.putmask(markers, surely_not, 1)
    cv2.watershed(crop, markers)
    # Flood lines between two parts of a top belong to it; lines against the background do not.
    near_bg = cv2.dilate((markers == 1).astype(np.uint8), _K3) > 0
    top = ((markers >= 2) | ((markers == -1) & ~near_bg)).astype(np.uint8)
    cnts, _ = cv2.findContours(top, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    return [c for c in cnts if cv2.contourArea(c) >= _MIN_PART]


def find_top_faces(image: np.ndarray, bodies: np.ndarray | BodyColours, *,
                   work_side: int = WORK_SIDE) -> list[TopFace]:
    """Find the top faces of dice whose body colours are ``bodies`` (module doc).

    Args:
        image: (H, W, 3) uint8 BGR, any size (photos larger than ``work_side`` are searched
            shrunk; quads are in this image's px).
        bodies: (K, 3) float BGR body colours (0..255) of the die types to look for, or their
            :class:`BodyColours` (made once per dice set).
        work_side: the longest side searched, px; faces from ``SIDE_RANGE[0]`` px at that size.

    Returns:
        The top faces found, each with its quad (image px) and body colour index.
    """
    colours = bodies if isinstance(bodies, BodyColours) else BodyColours(bodies)
    h0, w0 = image.shape[:2]
    scale = min(1.0, work_side / max(h0, w0))
    img = image if scale == 1.0 else cv2.resize(image, (round(w0 * scale), round(h0 * scale)),
                                                 interpolation=cv2.INTER_AREA)
    h, w = img.shape[:2]
    q = _COARSE  # the coarse stage's reduction
    small = _quarter(img)
    not_table = _not_table(small.astype(np.float32), _table(small))
    codes = colours.codes(small)
    side_range = SIDE_RANGE
    min_blob = _MIN_BLOB * (FACE_MIN / q) ** 2
    squares: list[tuple[np.ndarray, int]] = []
    cut: list[tuple[np.ndarray, int]] = []  # tops cut by the image border
    centre = np.array([w - 1, h - 1], np.float64) / 2  # the camera's nadir, near enough
    for k in range(len(colours.rg)):
        mask = (((codes >> (2 * k)) & 1).astype(bool) & not_table).astype(np.uint8)
        # Closed, so icons that cut a face's body in two at this size do not split its blob.
        mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, _K3)
        n, lab, stats, _ = _components(mask)
        for ci in np.nonzero(stats[1:, cv2.CC_STAT_AREA] >= min_blob)[0] + 1:
            x, y, bw, bh, _ = (int(v) for v in stats[ci])
            m = 2 * q  # the blob at working size, with a margin
            x0, y0 = max(0, q * x - m), max(0, q * y - m)
            x1, y1 = min(w, q * (x + bw) + m), min(h, q * (y + bh) + m)
            crop = np.ascontiguousarray(img[y0:y1, x0:x1])
            # The blob and where the frame is not table, up to working size (nearest: two bits each).
            # Where the table has the die's colour, a paler version of it (wood as red as a maki die),
            # what looks like the table there and is not the die's full colour is table.
            qx0, qy0, qx1, qy1 = x0 // q, y0 // q, -(-x1 // q), -(-y1 // q)
            both = (lab[qy0:qy1, qx0:qx1] == ci).astype(np.uint8) | (not_table[qy0:qy1, qx0:qx1].view(np.uint8) << 1)
            up = cv2.resize(both, None, fx=q, fy=q, interpolation=cv2.INTER_NEAREST)
            up = up[y0 - qy0 * q:y1 - qy0 * q, x0 - qx0 * q:x1 - qx0 * q]
            if up.shape != crop.shape[:2]:
                # The quarter-size maps end at the last whole quarter: an image whose sides are not
                # multiples of q leaves the crop's last rows (columns) without a map; repeat its edge.
                up = cv2.copyMakeBorder(up, 0, crop.shape[0] - up.shape[0], 0, crop.shape[1] - up.shape[1],
                                        cv2.BORDER_REPLICATE)
            blob = cv2.dilate(up & 1, _DILATE)
            nt = up >> 1
            v = colours.of(crop, k)
            inside = blob > 0
            body = inside & (v > 0)
            pure = inside & (v == 3)
            if np.count_nonzero(pure) < 0.5 * min_blob * q * q:
                continue
            b = cv2.transform(crop.astype(np.float32), _SUM)
            nadir = centre - [x0, y0]
            covered = np.zeros(b.shape, np.uint8)
            bright = _percentile(b[pure], SEED_LEVELS[0][0])
            table = nt == 0
            for levels in SEED_LEVELS:
                parts = top_parts(crop, b, inside, body, pure, levels, table=table,
                                  level=bright if levels[0] == SEED_LEVELS[0][0] else None)
                if levels is SEED_LEVELS[0]:
                    cut += [(box + [x0, y0], k) for box in _cut_tops(parts, (x0, y0), (w, h), side_range)]
                for sq, parent in _squares(parts, side_range):
                    if parent is _RECT:
                        squares += [((c + [x0, y0]).astype(np.float32), k) for c in _squared(sq, nadir)]
                        continue
                    if parent is not None and not _darker_beyond(b, body, sq, parent):
                        continue
                    cands = [sq] + _squared(sq, nadir) + [
                        t for t in _trimmed(sq, nadir) if _side(t) >= side_range[0] and _darker_beyond(b, body, t, sq)]
                    squares += [((c + [x0, y0]).astype(np.float32), k) for c in cands]
                    c = quad_centre(sq)
                    cv2.fillConvexPoly(covered, np.round(c + (sq - c) * 1.6).astype(np.int32), 1)
                # The next hypothesis only where this one left a face's worth of bright body colour
                # unexplained (a top it did not find, or found no square for).
                lit = pure & (b >= TOP_SEED_MIN * bright)
                if np.count_nonzero(lit & (covered == 0)) < (0.5 * side_range[0]) ** 2:
                    break
    squares = _outermost(squares)
    sqs = np.stack([sq for sq, _ in squares]) if squares else np.zeros((0, 4, 2), np.float32)  # (S, 4, 2)
    cs = sqs.mean(axis=1)
    group = _groups(cs, _sides(sqs), [k for _, k in squares])
    found: list[TopFace] = []
    for box, k in cut:
        c = tuple(float(v) for v in box.mean(axis=0))
        if not any(kk == k and cv2.pointPolygonTest(sq, c, False) >= 0 for sq, kk in squares):
            found.append(TopFace(_order_clockwise(box) / scale, k, True, -1 - len(found)))
    by_group: dict[int, list[np.ndarray]] = {}
    c = cs[:, None, :]
    quads = _order_clockwise_many(c + (sqs - c) * (1.0 + 2 * EDGE_GROW)) / scale
    partials = (quads < 1).any(axis=(1, 2)) | (quads[:, :, 0] > w0 - 2).any(axis=1) | (quads[:, :, 1] > h0 - 2).any(axis=1)
    for (_, k), g, quad, partial in zip(squares, group, quads, partials.tolist()):
        if any(np.abs(other - quad).max() < 1.5 for other in by_group.get(g, [])):
            continue  # the same square from another hypothesis
        by_group.setdefault(g, []).append(quad)
        found.append(TopFace(quad.astype(np.float32), k, partial, g))
    return found


def _cut_tops(parts: list[np.ndarray], origin: tuple[int, int], size: tuple[int, int],
              side_range: tuple[float, float]) -> list[np.ndarray]:
    """The parts (crop contours) that run into the image border and are big enough for part of a
    top face: a die cut off by the frame, reported but not read. Their ``minAreaRect`` boxes,
    (4, 2) float32 crop px."""
    out = []
    w, h = size
    for cnt in parts:
        # The outline's extent, px of the image (boundingRect: one call for four numpy reductions).
        x, y, bw, bh = cv2.boundingRect(cnt)
        x, y = x + origin[0], y + origin[1]
        if not (x <= 1 or y <= 1 or x + bw - 1 >= w - 2 or y + bh - 1 >= h - 2):
            continue
        rect = cv2.minAreaRect(cnt)
        if min(rect[1]) >= 0.45 * side_range[0] and max(rect[1]) >= 0.8 * side_range[0]:
            out.append(cv2.boxPoints(rect).astype(np.float32))
    return out


def _groups(cs: np.ndarray, sides: np.ndarray, bodies: list[int]) -> list[int]:
    """A group number per square (centres ``cs`` (S, 2), mean sides ``sides`` (S,), body colour
    indices): squares of one body colour whose centres lie within half a side of each other are
    hypotheses of one die (connected components of that relation)."""
    n = len(cs)
    if n == 0:
        return []
    body = np.array(bodies)
    near = ((np.hypot(cs[:, None, 0] - cs[None, :, 0], cs[:, None, 1] - cs[None, :, 1])
             < 0.5 * np.minimum(sides[:, None], sides[None, :])) & (body[:, None] == body[None, :]))
    group = -np.ones(n, int)
    g = 0
    for i in range(n):
        if group[i] >= 0:
            continue
        stack = [i]
        group[i] = g
        while stack:
            j = stack.pop()
            for k in np.nonzero(near[j] & (group < 0))[0]:
                group[k] = g
                stack.append(int(k))
        g += 1
    return group.tolist()


def _side(sq: np.ndarray) -> float:
    """Mean side length, px, of a (4, 2) square."""
    d = sq[[1, 2, 3, 0]] - sq
    return float(np.hypot(d[:, 0], d[:, 1]).mean())


def _sides(sqs: np.ndarray) -> np.ndarray:
    """(S,) mean side lengths, px, of (S, 4, 2) squares (as :func:`_side` of each)."""
    d = sqs[:, [1, 2, 3, 0]] - sqs
    return np.hypot(d[..., 0], d[..., 1]).mean(axis=1)


def _outermost(squares: list[tuple[np.ndarray, int]]) -> list[tuple[np.ndarray, int]]:
    """The (square, body) pairs less any square that lies inside a larger one of another body
    colour: an icon on a die's top face (a white menu card on a green die) can have the body
    colour of another die type."""
    if not squares:
        return []
    area = np.array([abs(cv2.contourArea(sq)) for sq, _ in squares])
    cs = np.stack([sq for sq, _ in squares]).mean(axis=1)
    body = np.array([k for _, k in squares])
    reach = np.sqrt(area) * 0.75  # a centre further than this from a square's centre is outside it
    near = ((np.hypot(cs[:, None, 0] - cs[None, :, 0], cs[:, None, 1] - cs[None, :, 1]) < reach[None, :])
            & (body[:, None] != body[None, :]) & (area[None, :] > 1.3 * area[:, None]))
    keep = []
    for i, (sq, k) in enumerate(squares):
        c = (float(cs[i, 0]), float(cs[i, 1]))
        if not any(cv2.pointPolygonTest(squares[j][0], c, False) > 0 for j in np.nonzero(near[i])[0]):
            keep.append((sq, k))
    return keep


__all__ = ["BodyColours", "TopFace", "WORK_SIDE", "chromaticity", "find_top_faces", "quad_centre", "top_parts"]
