"""Cards whose outline the edge map does not close, found from one corner: two straight sides.

A pale card on a pale table (a white sheet, a white box), or a card whose one side runs into a
shadow, has no closed outline: the paper's region runs on into the table, and neither the outline
finder (:func:`companion.vision.cards.find_card_groups`) nor the covered-card pass
(:mod:`companion.vision.covered`) sees a card-shaped region. Two of its sides usually still show
as straight steps where they meet at a corner (against a darker stretch of table, or as the card's
own shadow). Here:

1. **Sides**: straight segments of the photo's lightness (``cv2.createLineSegmentDetector``, the
   LSD of R. Grompone von Gioi et al. 2010, at most ``WORK_PX`` px on the long side) at least
   ``SEG_MIN`` of the photo's long side.
2. **Corners**: two segments about square to each other (``SQUARE_TOL``) whose lines meet near an
   end of each (``CORNER_GAP`` of the shorter one): a card's corner, its two sides running from it.
3. **Cards**: from each corner the card runs along both sides, its long side along one or the
   other, at least as far as each side shows and at a card's aspect (63:44): the smallest card
   holding both sides, and ``GROW`` times larger (a side seen only in part).
4. **Naming**: the ``MAX_READ`` cards that best match a label's centroid are read whole by the
   deck, with its every stage and check; the best reading of each place is kept if it names a
   card ``card_search.WINDOW_MARGIN`` over the deck's threshold (the best of many tries must
   clearly win, as in :func:`companion.vision.card_search.search_cards`), and if the card lies on
   paper along all four sides (:func:`paper_all_round`: not a card built over a covered card's
   uncovered part and the table beside it).

It is run by :func:`companion.vision.cards.read_card_results` only on a photo where nothing else
named a card (a lone card on a pale table), so a photo of cards the finder reads costs nothing more.
Limits: a card with no two adjacent sides showing is not found; its place is the corner's, so a
card bent or seen at a strong slant is read off by a few px.
"""

from __future__ import annotations

import cv2
import numpy as np

#: Segments are found on a copy at most this long (px): LSD's time grows with the pixel count.
WORK_PX = 640
#: A side's visible segment is at least this fraction of the photo's long side.
SEG_MIN = 0.08
#: Two sides meet at 90° ± this (degrees): a card seen at a slant.
SQUARE_TOL = 15.0
#: ... at a point within this fraction of the shorter segment (plus 3 px) of an end of each.
CORNER_GAP = 0.15
#: A card is tried at the smallest size holding both sides and at these multiples of it.
GROW = (1.0, 1.15, 1.3)
#: At most this many cards are read in full, best centroid score first (a rank's centroid, the mean of
#: faces of four suits, scores far under its best face: 0.50 where the face read 0.86).
MAX_READ = 60
#: A card read here is at least this long (px, long side) and of this share of the photo at most.
MIN_LONG = 60.0
MAX_AREA = 0.4
#: At most this many segments (the longest) are paired, and this many cards built (from the pairs
#: of longer sides first), scored ``SCORE_CHUNK`` at a time: a tiled floor gave 5,770 cards and
#: 430 MB of patches at once.
MAX_SEGMENTS = 150
MAX_QUADS = 1500
SCORE_CHUNK = 256
#: The cards of one photo are of one size: a card named here whose scale (square root of its area)
#: is under this fraction of the largest named card's, or over its inverse, is not named. (Between
#: two right cards the ``GROW`` steps alone give up to 1.3 and a slanted camera more; the drawn ten
#: over a nine of tests/test_vision_marks.py gave a "one" at 0.36 of the ten's.)
SIZE_APART = 0.6
#: A card built from a corner lies on its own paper all round: along each of its four sides, a
#: band ``BAND`` deep (fractions of the short side, from the edge inwards) is at least
#: ``PAPER_SHARE`` paper, paper being within ``PAPER_CHROMA`` (a*, b* of OpenCV's 8-bit Lab) of
#: the bands along the two sides seen and at least ``PAPER_LIGHT`` of their lightness
#: (:func:`paper_shares`). The card is built past what its two sides show (to a card's aspect,
#: ``GROW``): where the sides are those of the uncovered part of a card under another (a drawn ten
#: over a nine moved by (70, -50)), the built card runs onto the table beside it, and the table's
#: stretch inside it with the nine's blank foot can read as a card of one mark ("one", 0.83
#: against a threshold of 0.67); its band on the table is no paper at all. On a pale table (the
#: case the finder is for) the table is paper-like and nothing is refused; a card overlapped by
#: another card's paper is supported by that paper. The share is low, the lightness strict: a
#: court card's art reaches near its edge, and a built card over-long by 5 % has table in its band
#: (stop 44's real fans: a king at 0.41 of its band), while a checkered table's pale squares are
#: 0.67 of the paper's lightness (the drawn sweep: 0.45 at a lightness of 0.6, none at 0.75).
BAND = (0.03, 0.12)
PAPER_SHARE = 0.15
PAPER_CHROMA = 18.0
PAPER_LIGHT = 0.75


def corner_cards(frame: np.ndarray) -> list[np.ndarray]:
    """Card quads built from corners of straight segments (steps 1-3 of the module doc).

    Args:
        frame: (H, W, 3) uint8 BGR.

    Returns:
        (4, 2) float32 quads, image px, clockwise (a corner, then along one side), inside the
        photo; unsorted, possibly overlapping.
    """
    from companion.vision.cards import CARD_ASPECT
    from companion.vision.imageio import working_copy

    h, w = frame.shape[:2]
    small, scale = working_copy(frame, WORK_PX)
    grey = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
    found = cv2.createLineSegmentDetector().detect(grey)[0]
    if found is None:
        return []
    seg = found.reshape(-1, 4).astype(np.float64) / scale
    a, b = seg[:, :2], seg[:, 2:]
    ln = np.linalg.norm(b - a, axis=1)
    keep = ln >= SEG_MIN * max(h, w)
    a, b, ln = a[keep], b[keep], ln[keep]
    # A tiled or striped surface gives thousands of segments and millions of square pairs: the
    # longest segments are a card's sides if any are (memory and time stay bounded on a Pi).
    longest = np.argsort(-ln, kind="stable")[:MAX_SEGMENTS]
    a, b, ln = a[longest], b[longest], ln[longest]
    n = len(a)
    if n < 2:
        return []
    d = (b - a) / ln[:, None]
    cos = np.abs(d @ d.T)
    out = []
    lim = np.cos(np.deg2rad(90.0 - SQUARE_TOL))
    ii, jj = np.nonzero(np.triu(cos <= lim, 1))
    by_length = np.argsort(-np.minimum(ln[ii], ln[jj]), kind="stable")  # longer sides first
    for i, j in zip(ii[by_length], jj[by_length]):
        if len(out) >= MAX_QUADS:
            break
        # Where the two lines meet.
        m = np.array([d[i], -d[j]]).T
        if abs(np.linalg.det(m)) < 1e-6:
            continue
        along, _ = np.linalg.solve(m, a[j] - a[i])
        c = a[i] + along * d[i]
        gap = CORNER_GAP * min(ln[i], ln[j]) + 3.0
        # The corner lies near one end of each segment, and each side runs away from it:
        # directions ui, uj, visible lengths vi, vj.
        ui, vi = _away(c, a[i], b[i], gap)
        uj, vj = _away(c, a[j], b[j], gap)
        if ui is None or uj is None:
            continue
        for long_u in (True, False):
            # The smallest card holding both visible sides at a card's aspect, its long side
            # along one side or the other: (extent along ui, extent along uj).
            if long_u:
                long0 = max(vi, vj * CARD_ASPECT)
                sides = (long0, long0 / CARD_ASPECT)
            else:
                long0 = max(vj, vi * CARD_ASPECT)
                sides = (long0 / CARD_ASPECT, long0)
            for g in GROW:
                su, sv = sides[0] * g, sides[1] * g
                q = np.array([c, c + ui * su, c + ui * su + uj * sv, c + uj * sv], np.float32)
                if max(su, sv) < MIN_LONG or su * sv > MAX_AREA * h * w:
                    continue
                if q[:, 0].min() < 0 or q[:, 1].min() < 0 or q[:, 0].max() >= w or q[:, 1].max() >= h:
                    continue
                if ui[0] * uj[1] - ui[1] * uj[0] < 0:
                    q = q[[0, 3, 2, 1]]  # clockwise in image (y-down) coordinates
                out.append(q)
    return out


def _away(c: np.ndarray, p: np.ndarray, q: np.ndarray, gap: float) -> tuple[np.ndarray | None, float]:
    """The unit direction from corner ``c`` along segment ``p``–``q`` and how far the segment
    reaches from ``c``, if one of its ends lies within ``gap`` px of ``c``; else ``(None, 0)``."""
    dp, dq = np.linalg.norm(p - c), np.linalg.norm(q - c)
    far = q if dp < dq else p
    if min(dp, dq) > gap:
        return None, 0.0
    v = far - c
    reach = float(np.linalg.norm(v))
    return (v / max(reach, 1e-9), reach) if reach > 0 else (None, 0.0)


def paper_all_round(frame: np.ndarray, quad: np.ndarray) -> bool:
    """Whether a card built from a corner lies on paper along all four sides: the least of
    :func:`paper_shares` is at least ``PAPER_SHARE``.

    Args:
        frame: (H, W, 3) uint8 BGR.
        quad: (4, 2) float32 image px as :func:`corner_cards` gives it: ``quad[0]`` the corner
            found, ``quad[1]`` and ``quad[3]`` along the two sides seen from it.
    """
    return min(paper_shares(frame, quad)) >= PAPER_SHARE


def paper_shares(frame: np.ndarray, quad: np.ndarray) -> list[float]:
    """The share of paper in the band (``BAND``) along each side of a quad, paper being within
    ``PAPER_CHROMA`` of the median colour of the bands along the sides ``quad[0]``-``quad[1]``
    and ``quad[0]``-``quad[3]`` and at least ``PAPER_LIGHT`` of its lightness (8-bit OpenCV Lab).

    Args:
        frame: (H, W, 3) uint8 BGR.
        quad: (4, 2) float32 image px; its sides from ``quad[0]`` are taken for the card's own
            (a card built from a corner: the two sides seen).

    Returns:
        Four shares in 0..1, along the sides quad[0]-quad[1], quad[0]-quad[3], quad[3]-quad[2]
        and quad[1]-quad[2].

    Two consequences (stop 44's review): a side built past the photo's edge warps to black and
    never counts as paper, so such a card is refused; and where the part seen is under about a
    sixth of the card, the long band is mostly what lies beyond it, the "paper" is that, and every
    side passes (the check then names what main named: it can only fall back, never add a name).
    """
    q = np.asarray(quad, np.float32)
    su, sv = float(np.linalg.norm(q[1] - q[0])), float(np.linalg.norm(q[3] - q[0]))
    k = 64.0 / max(su, sv, 1.0)  # the card warped to 64 px on its long side
    wu, wv = max(int(round(su * k)), 8), max(int(round(sv * k)), 8)
    dst = np.float32([[0, 0], [wu - 1, 0], [wu - 1, wv - 1], [0, wv - 1]])
    patch = cv2.warpPerspective(frame, cv2.getPerspectiveTransform(q, dst), (wu, wv), flags=cv2.INTER_AREA)
    lab = cv2.cvtColor(patch, cv2.COLOR_BGR2LAB).astype(np.float32)
    b0, b1 = (int(round(f * min(wu, wv))) for f in BAND)
    b1 = max(b1, b0 + 1)
    bands = [lab[b0:b1, :], lab[:, b0:b1], lab[wv - b1:wv - b0, :], lab[:, wu - b1:wu - b0]]
    paper = np.median(np.concatenate([bands[0].reshape(-1, 3), bands[1].reshape(-1, 3)]), axis=0)
    shares = []
    for band in bands:
        px = band.reshape(-1, 3)
        like = (np.hypot(px[:, 1] - paper[1], px[:, 2] - paper[2]) <= PAPER_CHROMA) & (px[:, 0] >= PAPER_LIGHT * paper[0])
        shares.append(float(like.mean()))
    return shares


def read_corner_cards(frame: np.ndarray, deck) -> list:
    """Cards named from their corners (module doc), as
    :class:`companion.vision.deck.Classification` objects; none if none reads clearly.

    Args:
        frame: (H, W, 3) uint8 BGR.
        deck: the enrolled deck.

    Returns:
        Named readings, best first, none overlapping another by over 0.3 of its area, none of
        another size than the largest of them (``SIZE_APART``). The largest, not the best-read:
        a card built from two sides that is a part of one (a corner of a card's print, or where a
        card lies on another) is smaller than a card, never larger, and a small card can read
        best (a mini card beside full-size ones); taking its size would drop the whole cards.
    """
    from companion.rules.sushi_go.cards import UNKNOWN
    from companion.vision.card_search import WINDOW_MARGIN, overlap_area
    from companion.vision.deck import card_patches, classify_quads, describe

    quads = corner_cards(frame)
    if not quads:
        return []
    best = np.concatenate([deck.match(describe(card_patches(frame, quads[k:k + SCORE_CHUNK]), deck.balanced),
                                      quick=True)[0].max(axis=1) for k in range(0, len(quads), SCORE_CHUNK)])
    order = [int(k) for k in np.argsort(-best, kind="stable")[:MAX_READ]]
    rs = classify_quads(frame, [quads[k] for k in order], deck)
    named = sorted((r for r, k in zip(rs, order) if r.label != UNKNOWN and r.score >= deck.threshold + WINDOW_MARGIN
                    and paper_all_round(frame, quads[k])), key=lambda r: -r.score)
    areas = [abs(cv2.contourArea(np.asarray(r.quad, np.float32))) for r in named]

    def apart(ref: float | None) -> list[int]:
        kept: list[int] = []  # indices into named
        for i, (r, area) in enumerate(zip(named, areas)):
            if any(overlap_area(r.quad, named[k].quad) > 0.3 * area for k in kept):
                continue
            # A card built from two sides can be a part of one: a corner of a card's print, or of
            # where a card lies on another (a ten over a nine: a quad an eighth of a card's area at
            # the nine's corner, running onto the table, read "one"). The largest card kept sets
            # the size, as the named cards do for the outline finder's readings
            # (card_search.misfits).
            if ref is not None and not SIZE_APART <= np.sqrt(area / ref) <= 1.0 / SIZE_APART:
                continue
            kept.append(i)
        return kept

    # The largest of the cards kept by overlap alone (a larger reading that overlaps a better one
    # sets no size); the second pass keeps a subset of those, so that card among them.
    first = apart(None)
    if not first:
        return []
    return [named[i] for i in apart(max(areas[i] for i in first))]

