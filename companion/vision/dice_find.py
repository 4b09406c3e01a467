"""Finding the top faces of coloured dice on a table (Sushi Roll icon dice, issue #7 §2).

A resting die seen from above shows its top face, lit like the table (both are level), and,
away from the camera's nadir, one or two side faces turned towards the camera, darker (they
face sideways) and printed with *other* faces' art. Only the top face is read; a side face must
never be taken for a die. The finder knows the dice's body colours (learnt at enrolment) and
nothing of their art:

1. **Light.** The table's own colour is estimated everywhere by a large median filter on a
   small copy of the frame (the dice cover a small part of any window), and the frame's
   brightness is divided by the table's, so a light gradient or vignette does not change a
   face's brightness from one side of the frame to the other.
2. **Body colour.** Each pixel's rg-chromaticity ((R, G) / (R + G + B): unchanged by
   brightness, shifted only slightly by a colour cast) is compared with each die type's body colour; pixels
   of that chromaticity that are not the table there (other chromaticity or brightness than the
   table's median) form blobs: a die's top and side faces together, or a few touching dice.
3. **Top face.** Within a blob, the top face is the brightest part of the body colour: side faces
   are turned from the light. Body pixels at least ``TOP_LEVEL`` of the blob's bright level are
   kept, the icons inside are filled (holes of the top face's outline), and each part that is a
   square of a plausible size becomes a top face; two touching dice whose tops merged are cut
   apart along the long side of their rectangle.
4. **Quad.** The square's corners (``cv2.minAreaRect``), grown by ``EDGE_GROW`` of the side to make
   up for the darker rounded edge the threshold leaves out.

Sources: OpenCV ``medianBlur``, ``connectedComponentsWithStats``, ``findContours`` (Suzuki &
Abe 1985), ``minAreaRect``; rg-chromaticity, the brightness-free part of a colour (R. C. Gonzalez,
R. E. Woods, *Digital Image Processing*, §6.1 chromaticity).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

#: The largest working image side, px: bigger photos are shrunk first (a 40–80 px face at 1280).
WORK_SIDE = 1280
#: A pixel has a die type's body colour when its rg-chromaticity lies within ``CHROMA_TOL`` of
#: the line from grey to the body colour, between ``DESATURATION`` and ``OVERSATURATION`` of the
#: way (blur and JPEG's coarse chroma mix a body with its white or black icons: greyer, same hue).
CHROMA_TOL = 0.05
DESATURATION, OVERSATURATION, PURE = 0.4, 1.5, 0.8
#: A pixel differs from the table where its rg-chromaticity is this far from the table's...
TABLE_CHROMA = 0.04
#: ... or its brightness differs from the table's by this factor (log).
TABLE_BRIGHT = 0.18
#: Surely top face: body colour at least this fraction of the blob's bright level; surely not:
#: body colour below ``SIDE_LEVEL`` of it (side faces, turned from the light, are darker).
TOP_SEED, SIDE_LEVEL = 0.9, 0.72
TOP_LEVEL = 0.85
#: The percentile of a blob's body-colour brightness taken as its bright level (the top face).
TOP_PERCENTILE = 92
#: Grow the found square by this fraction of its side on each side (the rounded, darker edge).
EDGE_GROW = 0.03
#: A face whose bright part is less than this fraction of the frame's common face size gets the
#: common size (module doc, 4).
SMALL_FACE = 0.9
#: Top face side range, working px (at ``WORK_SIDE``); the issue's faces are 40–80 px.
SIDE_RANGE = (26.0, 160.0)
#: A region is a square when its minAreaRect's sides differ by at most this ratio...
SQUARE_ASPECT = 1.3
#: ... and it fills at least this fraction of the rectangle.
SQUARE_FILL = 0.86


@dataclass(frozen=True)
class TopFace:
    """One top face found.

    quad: (4, 2) float32 image px (of the image given), clockwise on screen, from an arbitrary
        corner (the art's orientation is the classifier's business).
    body: index of the body colour (the ``bodies`` row) it was found with.
    partial: True when the face touches the image border (cut off): it cannot be read.
    """

    quad: np.ndarray
    body: int
    partial: bool = False


def chromaticity(bgr: np.ndarray) -> np.ndarray:
    """(..., 3) BGR (any scale) → (..., 2) float32 rg-chromaticity (R, G) / (B + G + R), with a
    small offset so black pixels come out grey rather than undefined."""
    x = np.asarray(bgr, np.float32)
    s = x.sum(axis=-1, keepdims=True) + 6.0
    return (x[..., 2:0:-1] + 2.0) / s


_GREY = np.array([1 / 3, 1 / 3], np.float32)


def body_match(rg: np.ndarray, body_rg: np.ndarray, pure: bool = False) -> np.ndarray:
    """(...) bool: which rg-chromaticities (..., 2) are of the body colour ``body_rg`` (2,)
    (``CHROMA_TOL``, ``DESATURATION``): near the grey-to-body line, not too grey; a grey body
    (white dice) within ``CHROMA_TOL`` of grey. ``pure``: only colours at least ``PURE`` of the
    body's saturation (no blend with a white or black icon, which is brighter or darker)."""
    v = np.asarray(body_rg, np.float32) - _GREY
    d = rg - _GREY
    vv = float(v @ v)
    if vv < (2 * CHROMA_TOL) ** 2:
        return np.linalg.norm(rg - np.asarray(body_rg, np.float32), axis=-1) < CHROMA_TOL
    t = (d @ v) / vv
    perp = d - t[..., None] * v
    return ((np.linalg.norm(perp, axis=-1) < CHROMA_TOL) & (t >= (PURE if pure else DESATURATION))
            & (t <= OVERSATURATION))


def _odd(n: float) -> int:
    k = max(3, int(round(n)))
    return k if k % 2 else k + 1


def _table(half: np.ndarray) -> np.ndarray:
    """(h, w, 3) float32: the table's colour at each pixel of the half-size frame (module doc, 1)."""
    h, w = half.shape[:2]
    tiny = cv2.resize(half, (max(8, w // 4), max(8, h // 4)), interpolation=cv2.INTER_AREA)
    k = _odd(max(tiny.shape[:2]) * 0.2)
    k = min(k, _odd(min(tiny.shape[:2]) - 2) if min(tiny.shape[:2]) > 4 else 3)
    med = cv2.medianBlur(tiny, k)
    return cv2.resize(med, (w, h), interpolation=cv2.INTER_LINEAR).astype(np.float32)


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


def _squares(parts: list[np.ndarray], side_range: tuple[float, float]) -> list[np.ndarray]:
    """Top-face squares from the filled parts (contours) of one blob's bright body colour.

    Icons can cut a face's bright body in two (three maki on the diagonal), so parts whose
    joint convex hull is a square are joined, nearest first; a part that is a row of squares
    (touching dice whose tops merged) is cut up (:func:`_row_of_squares`). Returns (4, 2)
    float32 corners, crop px."""
    area = [float(cv2.contourArea(p)) for p in parts]
    groups = [[i] for i in range(len(parts))]
    pts = [p.reshape(-1, 2).astype(np.float32) for p in parts]

    def joint(g: list[int]) -> np.ndarray:
        return np.vstack([pts[i] for i in g])

    def complete(g: list[int]) -> bool:
        rect = _square_of(joint(g), side_range)
        return rect is not None and sum(area[k] for k in g) >= 0.6 * rect[1][0] * rect[1][1]

    while len(groups) > 1:
        best = None
        done = [complete(g) for g in groups]
        for i in range(len(groups)):
            for j in range(i + 1, len(groups)):
                if done[i] or done[j]:
                    continue  # a whole face already: a bit beside it is not part of it
                gap = _gap(joint(groups[i]), joint(groups[j]))
                if gap > 0.25 * side_range[1]:
                    continue
                rect = _square_of(joint(groups[i] + groups[j]), side_range)
                if rect is None or sum(area[k] for k in groups[i] + groups[j]) < 0.45 * rect[1][0] * rect[1][1]:
                    continue
                if best is None or gap < best[0]:
                    best = (gap, i, j)
        if best is None:
            break
        _, i, j = best
        groups[i] = groups[i] + groups[j]
        del groups[j]
    out = []
    for g in groups:
        rect = _square_of(joint(g), side_range)
        if rect is not None and sum(area[k] for k in g) >= 0.6 * rect[1][0] * rect[1][1]:
            out.append(cv2.boxPoints(rect).astype(np.float32))
        elif len(g) == 1:
            out += _row_of_squares(parts[g[0]], side_range)
    return out


def _gap(a: np.ndarray, b: np.ndarray) -> float:
    """Smallest distance, px, between two point sets (contours)."""
    a = a.reshape(-1, 2).astype(np.float32)
    b = b.reshape(-1, 2).astype(np.float32)
    d = ((a[:, None, :] - b[None, :, :]) ** 2).sum(axis=2)
    return float(np.sqrt(d.min()))


def top_region(crop: np.ndarray, blob: np.ndarray, gain: np.ndarray, body_rg: np.ndarray,
               min_area: float) -> list[np.ndarray]:
    """The top faces within one blob (module doc, 3), as a filled uint8 mask of the crop.

    Args:
        crop: (h, w, 3) float32 BGR, the blob's part of the working image.
        blob: (h, w) uint8, non-zero where the blob is.
        gain: (h, w) float32, the light-flattening factor (mean table brightness / table's here).
        body_rg: (2,) the die type's body rg-chromaticity.
        min_area: fewest body pixels, px, for a blob to be looked at.

    Returns:
        The outer contours of the bright parts (each (n, 1, 2) int32 crop px) with their holes
        (icons) filled; [] when the blob has too little of the body colour.
    """
    b = crop.sum(axis=2) * gain
    rg = chromaticity(crop)
    body = (blob > 0) & body_match(rg, body_rg)
    pure = body & body_match(rg, body_rg, pure=True)
    if pure.sum() < min_area:
        return []
    # The bright level from the body's own colour only: a blend with a white icon is brighter.
    level = float(np.percentile(b[pure], TOP_PERCENTILE))
    # Watershed (Meyer's flooding, ``cv2.watershed``) from seeds: the surely-top bright body
    # against the surely-not-top (the table round the blob, and body colour in shade: side faces).
    # The flood stops at the strongest edges between them: the dark seam between two touching
    # dice's tops, a top's edge against its side faces; icons and printed lines between two seeds
    # of one top are flooded from both and joined again below.
    seeds = cv2.morphologyEx((pure & (b >= TOP_SEED * level)).astype(np.uint8), cv2.MORPH_OPEN, _K3)
    _, markers = cv2.connectedComponents(seeds, connectivity=4)
    markers = markers.astype(np.int32)
    markers[markers > 0] += 1
    markers[(blob == 0) | (body & (b < SIDE_LEVEL * level))] = 1
    cv2.watershed(np.clip(crop, 0, 255).astype(np.uint8), markers)
    # Flood lines between two parts of a top belong to it; lines against the background do not.
    near_bg = cv2.dilate((markers == 1).astype(np.uint8), _K3) > 0
    top = ((markers >= 2) | ((markers == -1) & ~near_bg)).astype(np.uint8)
    # Outer contours only: the icons inside a part are its holes, filled.
    cnts, _ = cv2.findContours(top, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    return [c for c in cnts if cv2.contourArea(c) >= _MIN_PART]


_K3 = np.ones((3, 3), np.uint8)
_MIN_PART = 12.0  # px²: smaller bright bits are noise
_DISK5 = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5))


def find_top_faces(image: np.ndarray, bodies: np.ndarray) -> list[TopFace]:
    """Find the top faces of dice whose body colours are ``bodies`` (module doc).

    Args:
        image: (H, W, 3) uint8 BGR, any size (photos larger than ``WORK_SIDE`` are searched
            shrunk; quads are in this image's px).
        bodies: (K, 3) float BGR body colours (0..255) of the die types to look for.

    Returns:
        The top faces found, each with its quad (image px) and body colour index.
    """
    h0, w0 = image.shape[:2]
    scale = min(1.0, WORK_SIDE / max(h0, w0))
    img = image if scale == 1.0 else cv2.resize(image, (round(w0 * scale), round(h0 * scale)),
                                                 interpolation=cv2.INTER_AREA)
    h, w = img.shape[:2]
    half = cv2.resize(img, (w // 2, h // 2), interpolation=cv2.INTER_AREA)
    table = _table(half)
    f_half = half.astype(np.float32)
    chroma = chromaticity(f_half)
    t_chroma = chromaticity(table)
    bright = f_half.sum(axis=2) + 6.0
    t_bright = table.sum(axis=2) + 6.0
    not_table = ((np.linalg.norm(chroma - t_chroma, axis=2) > TABLE_CHROMA)
                 | (np.abs(np.log(bright / t_bright)) > TABLE_BRIGHT))
    body_chroma = chromaticity(np.asarray(bodies, np.float32).reshape(-1, 3))
    # Light flattened by the table's brightness (module doc, 1): brightness relative to the mean table.
    gain_half = float(t_bright.mean()) / t_bright
    side_range = (SIDE_RANGE[0] * min(1.0, max(h, w) / WORK_SIDE), SIDE_RANGE[1])
    min_blob = (side_range[0] / 2) ** 2 * 0.5
    squares: list[tuple[np.ndarray, int]] = []
    k3 = np.ones((3, 3), np.uint8)
    for bi, bc in enumerate(body_chroma):
        mask = (body_match(chroma, bc) & not_table).astype(np.uint8)
        # Closed, so icons that cut a face's body in two at half size do not split its blob.
        mask = cv2.morphologyEx(cv2.morphologyEx(mask, cv2.MORPH_OPEN, k3), cv2.MORPH_CLOSE, _DISK5)
        n, lab, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
        for ci in range(1, n):
            x, y, bw, bh, area = stats[ci]
            if area < min_blob:
                continue
            # The blob at working resolution, with a margin.
            m = 3
            x0, y0 = max(0, 2 * x - m), max(0, 2 * y - m)
            x1, y1 = min(w, 2 * (x + bw) + m), min(h, 2 * (y + bh) + m)
            crop = img[y0:y1, x0:x1].astype(np.float32)
            blob = cv2.resize((lab[y:y + bh, x:x + bw] == ci).astype(np.uint8), (2 * bw, 2 * bh),
                              interpolation=cv2.INTER_NEAREST)
            blob = cv2.copyMakeBorder(blob, 2 * y - y0, y1 - 2 * (y + bh), 2 * x - x0, x1 - 2 * (x + bw),
                                      cv2.BORDER_CONSTANT, value=0)
            blob = cv2.dilate(blob, k3, iterations=2)
            g = cv2.resize(gain_half[y0 // 2:(y1 + 1) // 2, x0 // 2:(x1 + 1) // 2], (x1 - x0, y1 - y0),
                           interpolation=cv2.INTER_LINEAR)
            parts = top_region(crop, blob, g, bc, min_blob)
            squares += [((sq + [x0, y0]).astype(np.float32), bi) for sq in _squares(parts, side_range)]
    squares = _outermost(squares)
    if not squares:
        return []
    # One size for the frame's dice (module doc, 4): a face whose bright part is much smaller lost
    # its rim (a printed frame near the edge, blurred into it) and is given the common size.
    sides = np.array([_side(sq) for sq, _ in squares])
    common = float(np.percentile(sides, 60))
    found: list[TopFace] = []
    for (sq, bi), side in zip(squares, sides):
        c = sq.mean(axis=0)
        grow = (common / side if side < SMALL_FACE * common else 1.0) * (1.0 + 2 * EDGE_GROW)
        quad = (_order_clockwise(c + (sq - c) * grow)) / scale
        partial = bool((quad < 1).any() or (quad[:, 0] > w0 - 2).any() or (quad[:, 1] > h0 - 2).any())
        found.append(TopFace(quad.astype(np.float32), bi, partial))
    return found


def _side(sq: np.ndarray) -> float:
    """Mean side length, px, of a (4, 2) square."""
    return float(np.linalg.norm(sq - np.roll(sq, -1, axis=0), axis=1).mean())


def _outermost(squares: list[tuple[np.ndarray, int]]) -> list[tuple[np.ndarray, int]]:
    """The (square, body) pairs less any square that lies inside a larger one: an icon on a die's
    top face (a white menu card on a green die) can have the body colour of another die type."""
    area = [abs(cv2.contourArea(sq)) for sq, _ in squares]
    keep = []
    for i, (sq, bi) in enumerate(squares):
        c = tuple(float(v) for v in sq.mean(axis=0))
        if not any(j != i and area[j] > 1.3 * area[i] and cv2.pointPolygonTest(other, c, False) > 0
                   for j, (other, _) in enumerate(squares)):
            keep.append((sq, bi))
    return keep


__all__ = ["TopFace", "find_top_faces", "chromaticity", "WORK_SIDE"]
