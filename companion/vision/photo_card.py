"""Where the card lies in a photo of one card when the outline finder finds none (enrolment).

``companion enroll`` takes each example picture as a flat scan (the whole image is the card) or as
a photo of one card with table round it, where :func:`companion.vision.deck.crop_quad` finds the
card with the table photos' outline finder. That finder is strict, as it must be on a table full
of things: a card whose outline runs into wood grain or carpet, is crossed by a shadow or a cable,
or is seen at a close phone's slant (opposite sides 25 % apart) is not found. Taken whole, such a
photo is enrolled as a tilted card with table round it, and the label's examples lie far apart
(real photos, ``bench/real_cards.py``: 61 of the 210 one-card crops were so enrolled).

Here the one card is looked for as the eye would in a picture that is known to hold one: the
largest region that is a card's shape, among

* the holes of the finder's thickened edge map, at its size and at half of it (where a table's
  fine texture touching the card smooths away),
* the foreground of a GrabCut segmentation (C. Rother, V. Kolmogorov, A. Blake, "GrabCut:
  interactive foreground extraction using iterated graph cuts", SIGGRAPH 2004;
  ``cv2.grabCut``) seeded with the picture less a thin border: the card against the table by
  colour, which a shadow across the card or a cable over it does not cut in two,

each reduced to its hull's four corners and snapped to the picture's colour steps
(:func:`companion.vision.cards.refine_quads`). A region is taken only if three of its sides lie
on steps, its sides are a card's ratio (with a close camera's perspective: ``ASPECT_RANGE``,
``SIDE_RATIO``, ``CORNER_COS``), it covers ``MIN_AREA`` of the picture, and it lies inside the
picture (a card cut off by the photo's border has no true outline to find). A region that is a
frame printed on the card (a face card's) is told by paper round it on every side
(``FRAME_PAPER``) and not taken. Failing all that, the caller takes the whole picture as before.
"""

from __future__ import annotations

import cv2
import numpy as np

#: Long side (px) of the copy the regions are looked for on; the sides are snapped at full size.
WORK_PX = 320
#: Least share of the picture a card covers (the table finder's bound for one-card images).
MIN_AREA = 0.15
#: Long / short side of a card's outline, with a close camera's slant (63:44 = 1.43).
ASPECT_RANGE = (1.22, 1.8)
#: Opposite sides within this ratio, and no corner's cosine above ``CORNER_COS`` (about 90 ± 20°):
#: a phone held close over a card foreshortens its far side by up to a quarter.
SIDE_RATIO = 1.45
CORNER_COS = 0.35
#: A region this far inside the picture's border (px) or less, along a side, is cut by it.
BORDER_PX = 2.0
#: A quad whose outer ring (``FRAME_RING`` of its short side wide) is ``FRAME_PAPER`` paper-light
#: (as light as the quad's own margin) along ``FRAME_SIDES`` of its sides or more is a frame printed
#: on a card: a card's own outline has table beyond it (a table as light as the paper, along two
#: sides, leaves the card's outline in doubt anyway). On the real one-card photos the face cards'
#: frames found showed paper beyond 2–3 sides, the cards' outlines along none or one.
FRAME_RING = 0.045
FRAME_PAPER = 0.8
FRAME_SIDES = 2
_GRABCUT_ITERS = 4


def _regions(small: np.ndarray) -> list[np.ndarray]:
    """Outlines (N, 1, 2) int32 px of ``small`` that may be the card: edge-map holes and GrabCut
    foreground parts."""
    from companion.vision.cards import _edges

    h, w = small.shape[:2]
    out = []
    for f in (1.0, 0.5):
        img = small if f == 1.0 else cv2.resize(small, (max(1, round(w * f)), max(1, round(h * f))),
                                                interpolation=cv2.INTER_AREA)
        fat = cv2.dilate(_edges(img), np.ones((3, 3), np.uint8))
        cs, hier = cv2.findContours(fat, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
        if hier is not None:
            out += [np.round(c / f).astype(np.int32) for c, row in zip(cs, hier[0]) if row[3] >= 0]
    m = max(2, int(0.03 * min(h, w)))
    if w > 2 * m + 4 and h > 2 * m + 4:
        mask = np.zeros((h, w), np.uint8)
        bgd, fgd = np.zeros((1, 65), np.float64), np.zeros((1, 65), np.float64)
        try:
            # GrabCut's GMM initialisation draws from OpenCV's global generator: seeded, an
            # enrolment gives the same deck every time (the generator is OpenCV's, not ours; the
            # package draws from it nowhere else).
            cv2.setRNGSeed(0)
            cv2.grabCut(small, mask, (m, m, w - 2 * m, h - 2 * m), bgd, fgd, _GRABCUT_ITERS, cv2.GC_INIT_WITH_RECT)
        except cv2.error:
            mask[:] = 0
        fg = np.where((mask == cv2.GC_FGD) | (mask == cv2.GC_PR_FGD), 255, 0).astype(np.uint8)
        k = max(3, int(0.04 * min(h, w)) | 1)
        fg = cv2.morphologyEx(fg, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
        cs, _ = cv2.findContours(fg, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        out += list(cs)
    return out


def _hull_corners(contour: np.ndarray) -> np.ndarray | None:
    """(4, 2) float32: the region's hull reduced to four corners (a card in perspective), or None.
    (Its least-area rectangle, tried too, fitted the visible part of cards half under something
    and the pips' block inside a ten as often as a card with one corner covered.)"""
    hull = cv2.convexHull(contour)
    peri = cv2.arcLength(hull, True)
    for eps in (0.02, 0.035, 0.05, 0.07):
        approx = cv2.approxPolyDP(hull, eps * peri, True)
        if len(approx) == 4 and cv2.isContourConvex(approx):
            return approx.reshape(4, 2).astype(np.float32)
    return None


def _paper_round_it(image: np.ndarray, quad: np.ndarray) -> bool:
    """Whether paper as light as the quad's own margin lies just outside it on every side (a frame
    printed on a card, not the card's outline)."""
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    c = quad.mean(axis=0)
    short = float(min(np.linalg.norm(quad[1] - quad[0]), np.linalg.norm(quad[2] - quad[1])))
    d = FRAME_RING * short
    h, w = gray.shape
    # The quad's margin just inside it sets what paper looks like here (its bright part: the
    # frame's inner art is darker).
    inner = c + (quad - c) * (1.0 - d / max(short / 2.0, 1.0))
    outer = c + (quad - c) * (1.0 + d / max(short / 2.0, 1.0))
    ring_in = np.zeros((h, w), np.uint8)
    cv2.fillConvexPoly(ring_in, np.round(quad).astype(np.int32), 255)
    cv2.fillConvexPoly(ring_in, np.round(inner).astype(np.int32), 0)
    if not ring_in.any():
        return False
    paper = float(np.percentile(gray[ring_in > 0], 75))
    papers = 0
    for i in range(4):
        a, b = quad[i], quad[(i + 1) % 4]
        oa, ob = outer[i], outer[(i + 1) % 4]
        side = np.zeros((h, w), np.uint8)
        cv2.fillConvexPoly(side, np.round(np.stack([a, b, ob, oa])).astype(np.int32), 255)
        cv2.fillConvexPoly(side, np.round(quad).astype(np.int32), 0)
        vals = gray[side > 0]
        papers += int(vals.size >= 4 and float(np.mean(vals >= 0.85 * paper)) >= FRAME_PAPER)
    return papers >= FRAME_SIDES


def find_photo_card(image: np.ndarray) -> np.ndarray | None:
    """The one card in a photo of one card, where the table finder found none (module doc).

    Args:
        image: (H, W, 3) uint8 BGR, a photo of one card with some table round it.

    Returns:
        (4, 2) float32 px of ``image``, :func:`companion.vision.cards.order_quad` order, or None
        when no region passes.
    """
    from companion.vision.cards import _aspect, _square_enough, order_quad, refine_quads
    from companion.vision.imageio import working_copy

    h, w = image.shape[:2]
    if min(h, w) < 16:
        return None
    small, f = working_copy(image, WORK_PX)
    area = float(h * w)
    quads = []
    for c in _regions(small):
        if cv2.contourArea(c) < 0.5 * MIN_AREA * small.shape[0] * small.shape[1]:
            continue
        q = _hull_corners(c)
        if q is not None:
            quads.append(order_quad(q / f))
    best, best_area = None, 0.0
    for q, support, _ in refine_quads(image, quads):
        q = order_quad(q)
        a = abs(cv2.contourArea(q))
        if (support < 1.0 or not MIN_AREA * area <= a <= 0.97 * area or a <= best_area
                or not ASPECT_RANGE[0] <= _aspect(q) <= ASPECT_RANGE[1]
                or not _square_enough(q, CORNER_COS, SIDE_RATIO)):
            continue
        if (q[:, 0].min() < BORDER_PX or q[:, 1].min() < BORDER_PX or q[:, 0].max() > w - 1 - BORDER_PX
                or q[:, 1].max() > h - 1 - BORDER_PX):
            continue  # cut by the picture's border (or reaching past it): not the card's own outline
        if _paper_round_it(image, q):
            continue
        best, best_area = q.astype(np.float32), a
    return best
