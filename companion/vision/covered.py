"""Cards partly covered by something else: completed from their visible sides, named on what shows.

:func:`companion.vision.cards.find_card_groups` finds a card by its whole outline. A card that a
knife, a book, a cable or a rug's edge lies across has none: the paper that shows is a card with a
piece cut away, a convex region whose hull is no card's shape. What does show is usually one whole
side of the card with its two corners (the side away from the cover) and how far the paper runs
from it. This module completes such a region to a card and names it on the visible part only.

1. **Regions**: the holes of the outline finder's thickened edge map
   (:func:`companion.vision.cards.thick_edge_contours`, the same contours, not found again) that
   no card already named covers, nor an outline the deck judged undecided over its threshold; of
   at most 1.3 times a named card's area and at least ``VISIBLE_MIN`` of the named cards' (``REGION_MIN`` of the
   smallest card the finder takes if none is named), that fill ``REGION_FILL`` of their hull (a
   face card's paper is the strip round its printed frame). Each is taken as its convex hull.
   **Joined regions** (:func:`_joined`): a cable or a handle across a card cuts what shows in two
   pieces, neither enough to name the card by; two pieces close together (``JOIN_GAP``) whose
   joined hull is a card's size and nearly fills a card-shaped rectangle (``JOIN_RECT``) are also
   taken as one region, read first, and reported only if named (step 3). A joined region that no
   label's centroid reads near (the screen of step 3) is read in full all the same, on the quads
   that lie on a card's outline (``JOIN_UNSCREENED``, :func:`outline_share`), and named only where
   its pieces bear ink (:func:`ink_share`), and never as a label the mark count judges (a pip
   card's: stop 46, ``cover46``) nor one whose face is mostly bare paper (an ace's, however its
   examples' counts agree: stop 48, ``cover48``) nor one whose examples' median count is a pip
   card's (``JOIN_PIP_MARKS``, a nine or ten whose examples agree on no count: its review): a
   rank's centroid mixes its suits (stop 45, ``cover45``), so the pass is for face cards.
2. **Hypotheses**: for each long straight side of a region's convex hull (a run of hull edges
   that stay within ``RUN_TOL`` of one chord: the contour's pixel steps break a card's side into
   several short edges a few degrees apart), the hull is framed in that side's direction (a
   rectangle ``[u0, u1] × [v0, v1]``). A side of that frame that the hull
   runs along for most of its length (``ANCHOR_COVER``) is taken as a whole side of the card (its
   two corners show); the card then runs from it across the region, as far as the card's aspect
   says (63:44 one way or the other): a side along ``u`` gives the depth along ``v``, and the
   other way round. A hypothesis must hold the whole region and must not be the region itself
   (a card found whole is the outline finder's), except where the frame itself has a card's
   aspect (``WHOLE_SLACK``): the cover lies inside the outline (a knife across the card) and the
   frame is the card. A completed card must be of the named cards' size (0.6–1.6 × their area)
   and at least ``MIN_LONG`` px long.
3. **Naming on the visible part**: each hypothesis is warped to the deck's patch, and the part of
   the patch the region does not cover (the hull, shrunk by a pixel) is left out of the
   correlation: the patch and every template are made zero-mean per channel and of unit length
   over the visible pixels alone (masked ZNCC, J. P. Lewis 1995, restricted to a support), both
   ways up; a hypothesis is read against every template only if a label's centroid comes within
   ``QUICK_SLACK`` of the threshold. The deck's look-alike stage and checks need the whole face, so the margins here are
   stricter than a whole card's: the visible part must be at least ``VISIBLE_MIN`` of the card,
   the best label must read ``MARGIN`` over the deck's threshold and lead every other label by
   ``LEAD``, and no other hypothesis of the same region may read another label within ``LEAD``
   of it. The best hypothesis is slid along its sides to where its label reads best
   (:func:`_slid`) before it is held to ``MARGIN``. A region whose hypotheses read two labels so is
   reported ``"unknown"``; one whose hypotheses read nothing is not reported. A joined region is
   read twice: on its two pieces (the cover between them left out) and on its whole hull.

Nothing here guesses a name that the visible part does not settle; a covered card that shows
only what two labels share stays ``"unknown"``. Limits: the side a card is completed from must be
the card's own edge, so a card whose printed band or frame meets its edge (the visible paper's hole
ends at the band) is completed from the band, a band's height off, and not named; a card cut in
two by a cover (a cable across its middle) is completed from its two pieces only where the card
is whole but for the cover, else from the larger piece, and only if that shows ``VISIBLE_MIN`` of
it; a card cut in three (two cables) is joined only where two of its pieces span it (IMG_2621's jack:
its outer pieces, the middle one merged with the art); a card that was never enrolled but whose visible part looks like
an enrolled one is named as the whole-card reading would name it (the look-alike stage and the check
on the label's examples, which need the whole face, are not run).
"""

from __future__ import annotations

import cv2
import numpy as np

from companion.rules.sushi_go.cards import UNKNOWN
from companion.vision.card_search import overlap_area

#: A side of a region's frame is a whole card side when the hull runs along it for this fraction
#: of its length.
ANCHOR_COVER = 0.75
#: The hull side a frame is taken along must be at least this fraction of the hull's long extent.
SIDE_MIN = 0.3
#: The visible part must cover at least this fraction of the completed card's patch.
VISIBLE_MIN = 0.45
#: A region's frame this close (fraction) to a card's aspect is taken as the card itself.
WHOLE_SLACK = 0.08
#: The best label's masked score must exceed the deck's threshold by this (ZNCC).
MARGIN = 0.05
#: ... and lead every other label, on this hypothesis and on the region's others, by this (ZNCC).
LEAD = 0.06
#: A region smaller than this fraction of the smallest card area the finder takes is noise.
REGION_MIN = 0.5
#: A completed card shorter than this (px, long side) is not named: at 30 × 43 px and below, the
#: deck's patch holds nothing a card can be told by (a pip on a face card completed to a tiny card).
MIN_LONG = 60.0
#: At most this many regions are completed per photo (largest first).
MAX_REGIONS = 40

#: A hypothesis is read against every template only if its masked score against some label's
#: centroid (the mean of its templates) comes this close to the deck's threshold: the centroid
#: scores run a little under the best template's (``Deck.match(quick=True)``).
QUICK_SLACK = 0.12

#: A straight run of a region's hull may bend this far (fraction of the hull's span, plus 1 px)
#: from its chord: the pixel steps of a contour, not a rounded corner.
RUN_TOL = 0.01

#: Whether a joined region (:func:`_joined`) that no label's centroid reads near (``QUICK_SLACK``)
#: is read against every template all the same (cover45; main: no), and then named only where its
#: completed quad's outline shows (``JOIN_OUTLINE``): a rank's centroid mixes its suits, so a
#: card of a suit the centroid weighs little reads far under it.
JOIN_UNSCREENED = True

#: An unscreened join names no label whose examples' median mark count is this many or more: a pip
#: card's (a cover hides or halves its pips, so what shows cannot confirm the rank), even where its
#: examples agree on no count and the mark count does not judge it. cover48's review counted the
#: real deck's one-card photos over enrolment draws 0-59 and 100-399: the face cards' medians lie at
#: 1-4, the nines' at 7.5-9, the tens' at 9-10, and a nine or ten agreed on no count in 20 of 360
#: draws (draws 52 and 53 among them: nine counts 4, 6, 7, 9, 9, 9, 9, 9, 10, 12).
JOIN_PIP_MARKS = 5.0
#: An unscreened join's quad is named only where at least this share of its outline (the middle
#: 0.8 of each side) is an edge of ``OUTLINE_STEP`` (:func:`outline_share`). Measured: IMG_2621's
#: jack across two cables 0.97; a plush toy's head joined to a scrap and read "ace" 0.49
#: (bench/real_covers.py draw 0 seed 9); a whole queen under a drawn shadow's band 0.88.
JOIN_OUTLINE = 0.8
#: Grey levels (0-255, blurred by sigma 1 px) between the two sides of an outline, 4 px apart.
OUTLINE_STEP = 30.0
#: ... and only where at least this share of its pieces' paper is ink (:func:`ink_share`), measured
#: on bench/real_covers.py draw 0 seeds 0-299: the aces its unscreened joins named right 0.010-0.68,
#: a blank tile cut by a shadow band (seed 284, read "ace" 0.97 on an outline of 0.97) 0.0. Half
#: the least ace's: an ace shows little more ink than a tile, so this is a thin margin. (Measured
#: with cover45's ink, any chroma counted; stop 46 measures it against the paper's colour, and an
#: ace, a label the mark count judges, is no longer named by such a join at all.)
JOIN_INK = 0.005

#: A region's own area must fill at least this fraction of its hull: paper, not a ragged texture
#: gap. Low because a face card's paper is only the strip between its edge and its printed frame:
#: the strip round a covered face card fills 0.2-0.3 of its hull (IMG_2518 of the real photos).
REGION_FILL = 0.15
#: Pieces joined across a cover (:func:`_joined`): each at least this fraction of a card's area,
MIN_PIECE = 0.08
#: at most this far apart (fraction of the joined hull's side): a cable's or a handle's width, and
#: on a face card more, as its paper strips end at the printed frame's corners, not at the cable
#: (face cards crossed by a cable on the real photos' dev half: pieces 0.26-0.27 apart).
JOIN_GAP = 0.35
#: and their hulls fill at least this fraction of the joined hull; at most MAX_PIECES pieces.
JOIN_FILL = 0.5
MAX_PIECES = 16
#: ... and the joined hull fills at least this fraction of its least rectangle, of a long/short
#: side ratio in [_ASPECT_LO, _ASPECT_HI] (the outline finder's, cards.py, with its slack for
#: perspective): a card the cover crosses whole.
JOIN_RECT = 0.65
_ASPECT_LO, _ASPECT_HI = 1.2, 1.75
#: A completion whose best label reads this much over the deck's threshold (with the lead) is slid
#: to where it reads best (:func:`_slid`) before it is judged against ``MARGIN``: a completion a
#: few px off (a band's edge taken for the card's) reads under the margin where it is.
SLIDE_FROM = 0.0

_cache: dict[int, tuple] = {}


def _template_stats(deck):
    """Per deck, cached: (templates (M, 3, P) float32, label start rows, label centroids (L, 3, P))."""
    hit = _cache.get(id(deck))
    if hit is not None and hit[0] is deck:
        return hit[1:]
    from companion.vision.deck import PATCH_H, PATCH_W

    t = np.ascontiguousarray(deck.templates.reshape(len(deck.templates), 3, PATCH_H * PATCH_W), np.float32)
    starts = np.searchsorted(deck.template_label, np.arange(len(deck.labels)))
    cent = np.stack([t[deck.template_label == li].mean(axis=0) for li in range(len(deck.labels))])
    _cache.clear()
    _cache[id(deck)] = (deck, t, starts, cent)
    return t, starts, cent


def _balanced_on(patches: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """Each patch white-balanced on its visible pixels: ``white_balance(p, p[k][None])`` for each
    patch ``p`` and mask ``k`` (``p.astype(np.float32)`` where ``k`` shows nothing), the same values
    bit for bit, for all patches at once.

    The per-patch steps are done row by row over the stack: the 90th percentile of each patch's
    visible brightness (B + G + R) from its sorted row (hidden pixels sorted last), numpy's
    interpolation in float32 (:func:`companion.vision.deck._percentile90`); the paper's colour as a
    product with the hidden pixels weighted 0, exact because its terms are integers (8-bit sums
    under 2**24) whatever their order.

    Args:
        patches: (N, h, w, 3) uint8 BGR.
        masks: (N, h, w) bool, the pixels to balance each patch on.

    Returns:
        (N, h, w, 3) float32, 0..255.
    """
    from companion.vision.deck import _BALANCE_MAX

    n = len(patches)
    x = patches.astype(np.float32)
    flat = x.reshape(n, -1, 3)
    k = masks.reshape(n, -1)
    count = k.sum(axis=1)
    bright = flat[..., 0] + flat[..., 1] + flat[..., 2]
    part = np.where(k, bright, np.float32(1024.0))  # hidden last: B + G + R <= 765
    # 8-bit patches' sums are whole numbers: sorted as uint16, the same order statistics (numpy's
    # 16-bit sort is about twice as fast: see deck._percentile90's ``whole``).
    part = np.sort(part.astype(np.uint16) if patches.dtype == np.uint8 else part, axis=1)
    # The virtual index as numpy's percentile computes it (float64), per row.
    vi = (count - 1) * (np.asarray(90) / 100)
    lo = np.floor(vi).astype(np.intp)
    hi = np.minimum(lo + 1, count - 1)
    t = vi - lo
    rows = np.arange(n)
    a = part[rows, np.maximum(lo, 0)].astype(np.float32)
    b = part[rows, np.maximum(hi, 0)].astype(np.float32)
    diff = b - a
    # The weight a Python float in numpy's lerp, so rounded to float32 (weak promotion).
    level = np.where(t >= 0.5, b - diff * (1 - t).astype(np.float32), a + diff * t.astype(np.float32))
    w = (k & (bright >= level[:, None])).astype(np.float32)
    paper = np.matmul(w[:, None, :], flat)[:, 0, :] / np.maximum(w.sum(axis=-1), 1.0)[:, None]
    gain = np.clip(paper.mean(axis=-1, keepdims=True) / np.maximum(paper, 1.0), 1 / _BALANCE_MAX, _BALANCE_MAX)
    gain = np.where((count > 0)[:, None], gain, 1.0).astype(np.float32)
    for c in range(3):
        np.multiply(x[..., c], gain[:, None, None, c], out=x[..., c])
    return np.clip(x, 0, 255, out=x)


def _masked_descriptors(deck, patches: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(N, 3, P) float32 descriptors made zero-mean and of unit length over the visible pixels only
    (0 elsewhere), white-balanced on the visible paper, and the (N, P) float32 masks (rounded
    corners left out too)."""
    from companion.vision.deck import _MASK, _MASK_WEIGHT

    n = len(patches)
    m = masks & (_MASK > 0)[None]
    if deck.balanced:
        rgb = _balanced_on(patches, m)
    else:
        rgb = patches.astype(np.float32)
    h, w = patches.shape[1:3]
    lab = cv2.cvtColor(np.ascontiguousarray(rgb, np.float32).reshape(n * h, w, 3) / 255.0,
                       cv2.COLOR_BGR2Lab).reshape(n, h * w, 3)
    mf = m.reshape(n, -1).astype(np.float32)
    k = np.maximum(mf.sum(axis=1), 1.0)
    mean = np.matmul(mf[:, None, :], lab)[:, 0] / k[:, None]  # (N, 3)
    d = ((lab - mean[:, None, :]) * mf[:, :, None] * _MASK_WEIGHT[None]).transpose(0, 2, 1)  # (N, 3, P)
    d /= np.maximum(np.linalg.norm(d.reshape(n, -1), axis=1), 1e-6)[:, None, None]
    return np.ascontiguousarray(d, np.float32), mf


def _zncc(d: np.ndarray, mf: np.ndarray, t: np.ndarray) -> np.ndarray:
    """(N, M): masked ZNCC of N masked descriptors ``d`` (N, 3, P) with masks ``mf`` (N, P) against M
    templates ``t`` (M, 3, P): each template made zero-mean per channel and of unit length over
    each mask (the descriptor already is, so the numerator is a plain product)."""
    n, m = len(d), len(t)
    num = d.reshape(n, -1) @ t.reshape(m, -1).T
    k = np.maximum(mf.sum(axis=1), 1.0)[:, None]
    var = np.zeros((n, m), np.float32)
    for c in range(3):
        tc = t[:, c, :]
        s1 = mf @ tc.T
        var += mf @ (tc * tc).T - s1 * s1 / k
    return num / np.sqrt(np.maximum(var, 1e-12))


def masked_scores(deck, patches: np.ndarray, masks: np.ndarray, quick: bool = False
                  ) -> tuple[np.ndarray, np.ndarray]:
    """Best masked ZNCC per label of each patch, both ways up.

    Args:
        deck: the enrolled deck (:class:`companion.vision.deck.Deck`).
        patches: (N, PATCH_H, PATCH_W, 3) uint8 BGR, as :func:`companion.vision.deck.card_patches`.
        masks: (N, PATCH_H, PATCH_W) bool, the pixels that show the card.
        quick: against each label's centroid only (a screen: its scores run a little low).

    Returns:
        ``(scores, turned)``: (N, L) float32, each label's best score over its templates and the
        two orientations (what :meth:`Deck.match` gives where the mask is all True), and (N, L)
        bool, True where the patch matched that label turned by 180°.
    """
    t, starts, cent = _template_stats(deck)
    n = len(patches)
    if n == 0:
        return np.zeros((0, len(deck.labels)), np.float32), np.zeros((0, len(deck.labels)), bool)
    both = np.concatenate([patches, patches[:, ::-1, ::-1]])
    bm = np.concatenate([masks, masks[:, ::-1, ::-1]])
    d, mf = _masked_descriptors(deck, both, bm)
    if quick:
        per = _zncc(d, mf, cent)
    else:
        per = np.maximum.reduceat(_zncc(d, mf, t), starts, axis=1)
    per = np.where(mf.sum(axis=1, keepdims=True) >= 20, per, -1.0)
    return np.maximum(per[:n], per[n:]).astype(np.float32), per[n:] > per[:n]


def _edge_holes(frame: np.ndarray) -> tuple:
    """The outline finder's thickened edge map's contours (:func:`companion.vision.cards.
    thick_edge_contours`) with each one's box and point count (:func:`companion.vision.cards._boxes`):
    ``(scale, contours, hierarchy, boxes)``, told once per photo for both of :func:`_paper_holes`'
    callers (the boxes of 1 000-2 000 contours cost a few ms)."""
    from companion.vision.cards import _boxes, thick_edge_contours

    scale, contours, hier = thick_edge_contours(frame)
    return scale, contours, hier, (None if hier is None else _boxes(contours))


def _paper_holes(frame: np.ndarray, lo: float, hi: float, own_min: float = 0.0, edge_holes: tuple | None = None
                 ) -> list[tuple[float, np.ndarray]]:
    """The holes of the outline finder's thickened edge map (:func:`companion.vision.cards.
    thick_edge_contours`: thickened edges close the one-pixel gaps where a cover's edge meets the
    card's outline, so the paper that shows is a hole of its own) that may be paper: of 5 points
    or more, a hull area in [lo, hi] px² (image px), their own area at least ``own_min`` px² and
    ``REGION_FILL`` of their hull. Each as ``(hull area px², hull (K, 2) float32 image px)``.
    ``edge_holes``: :func:`_edge_holes` of ``frame`` if already told.
    """
    scale, contours, hier, boxes = _edge_holes(frame) if edge_holes is None else edge_holes
    if hier is None:
        return []
    lo_s, hi_s, own_s = lo * scale * scale, hi * scale * scale, own_min * scale * scale
    # Holes whose bounding box is of a region's size, told for all contours at once (as
    # cv2.boundingRect gives each box); only those are looked at one by one.
    box_area = boxes[:, 2] * boxes[:, 3]
    maybe = (hier[0][:, 3] >= 0) & (boxes[:, 4] >= 5) & ~(box_area < lo_s) & ~(box_area > 2.5 * hi_s)
    out = []
    for i in np.flatnonzero(maybe):
        c = contours[i]
        own = cv2.contourArea(c)
        if own < own_s:
            continue
        hull = cv2.convexHull(c)
        area = cv2.contourArea(hull)
        if not lo_s <= area <= hi_s or own < REGION_FILL * area:
            continue  # too small or large, or a ragged region rather than paper
        out.append((area / scale / scale, hull.reshape(-1, 2).astype(np.float32) / scale))
    return out


def _centred_in(holes: list[tuple[float, np.ndarray]], taken: list[np.ndarray]) -> np.ndarray:
    """(N,) bool: which of ``holes`` (``(area, (K, 2) hull)`` each, image px) have their hull's mean
    corner inside (or on) a quad of ``taken``: every pair in one :func:`~companion.vision.cards.points_in_quads`
    call, not one OpenCV call per pair."""
    from companion.vision.cards import points_in_quads

    if not holes or not taken:
        return np.zeros(len(holes), bool)
    return points_in_quads(np.stack([hl.mean(axis=0) for _, hl in holes]), taken).any(axis=1)


def _regions(frame: np.ndarray, lo: float, hi: float, taken: list[np.ndarray], edge_holes: tuple | None = None
             ) -> list[np.ndarray]:
    """Hulls ((K, 2) float32 image px) of the edge map's holes that may be covered cards (step 1):
    of a hull area in [``REGION_MIN``·lo, hi] px², not centred in a quad of ``taken``
    (``edge_holes`` as for :func:`_paper_holes`)."""
    # The paper that shows is a hole of its own in the outline finder's thickened edge map.
    out = _paper_holes(frame, REGION_MIN * lo, hi, own_min=0.3 * REGION_MIN * lo, edge_holes=edge_holes)
    out.sort(key=lambda ah: -ah[0])
    in_taken = _centred_in(out, taken)
    # Nested holes can give one region twice: keep one. A region inside a card already named is
    # that card's (a pip, its art).
    kept: list[np.ndarray] = []
    cs = np.zeros((len(out), 2), np.float32)
    areas = np.zeros(len(out), np.float32)
    for j, (a, hl) in enumerate(out):
        c = hl.mean(axis=0)
        n = len(kept)
        if n and np.any((np.abs(cs[:n] - c).max(axis=1) < 0.05 * np.sqrt(a)) & (areas[:n] < 1.15 * a)):
            continue
        if in_taken[j]:
            continue
        cs[n], areas[n] = c, a
        kept.append(hl)
    return kept[:MAX_REGIONS]


def _joined(frame: np.ndarray, lo: float, hi: float, piece_lo: float, taken: list[np.ndarray],
            edge_holes: tuple | None = None) -> list[tuple[np.ndarray, tuple[np.ndarray, np.ndarray]]]:
    """Two pieces of paper joined across a thin cover: a cable across a card cuts what shows of it
    in two, neither piece a card's share (step 1b). Each as ``(hull of both, (piece, piece))``,
    (K, 2) float32 image px each.

    Pieces are holes of the thickened edge map of a hull area of at least ``piece_lo`` px² that
    fill ``REGION_FILL`` of their hull (a face card's paper is the strip between its edge and its
    printed frame), not centred in a quad of ``taken``. Two are joined when they do not overlap,
    lie at most ``JOIN_GAP`` of the joined hull's side apart, fill ``JOIN_FILL`` of it between
    them, and the joined hull's area is in [lo, hi] px² (``edge_holes`` as for :func:`_paper_holes`).
    """
    from companion.vision.card_search import overlap_area

    holes = _paper_holes(frame, piece_lo, hi, edge_holes=edge_holes)
    pieces = [ah for ah, t in zip(holes, _centred_in(holes, taken)) if not t]
    pieces.sort(key=lambda ah: -ah[0])
    pieces = pieces[:MAX_PIECES]
    boxes = np.array([[*hl.min(axis=0), *hl.max(axis=0)] for _, hl in pieces], np.float32).reshape(-1, 4)
    # A pair is joined only if its hull's area ua is at most hi and (ai + aj) / JOIN_FILL, and its
    # boxes lie at most JOIN_GAP·√ua apart: pairs whose boxes lie further apart than that bound
    # allows are left before their hull is made (told for all pairs at once).
    areas = np.array([a for a, _ in pieces], np.float64)
    b = boxes.astype(np.float64)
    box_gap = np.maximum(np.maximum(b[:, None, 0] - b[None, :, 2], b[None, :, 0] - b[:, None, 2]),
                         np.maximum(b[:, None, 1] - b[None, :, 3], b[None, :, 1] - b[:, None, 3]))
    most = JOIN_GAP * np.sqrt(np.minimum(hi, (areas[:, None] + areas[None, :]) / JOIN_FILL))
    near_enough = box_gap <= most * 1.001 + 1e-3  # (slack: never leave a pair the test below keeps)
    out = []
    for i in range(len(pieces)):
        for j in range(i + 1, len(pieces)):
            if not near_enough[i, j]:
                continue
            (ai, hi_), (aj, hj) = pieces[i], pieces[j]
            bi, bj = boxes[i], boxes[j]
            ux0, uy0 = min(bi[0], bj[0]), min(bi[1], bj[1])
            ux1, uy1 = max(bi[2], bj[2]), max(bi[3], bj[3])
            if (ux1 - ux0) * (uy1 - uy0) < lo:
                continue
            union = cv2.convexHull(np.concatenate([hi_, hj]).reshape(-1, 1, 2))
            ua = cv2.contourArea(union)
            if not lo <= ua <= hi or ai + aj < JOIN_FILL * ua:
                continue
            # Only a card the cover crosses whole is joined: both pieces together span a card's
            # shape (its rectangle, at a card's aspect).
            (_, _), (rw, rh), _ = cv2.minAreaRect(union)
            if ua < JOIN_RECT * rw * rh or not _ASPECT_LO <= max(rw, rh) / max(min(rw, rh), 1e-6) <= _ASPECT_HI:
                continue
            gap = JOIN_GAP * np.sqrt(ua)
            # Box gap first (cheap), then the pieces' true distance: two convex polygons apart are
            # nearest at a corner of one of them.
            if max(bi[0] - bj[2], bj[0] - bi[2], bi[1] - bj[3], bj[1] - bi[3]) > gap:
                continue
            if overlap_area(hi_, hj) > 0.1 * min(ai, aj):
                continue
            near = min(min(-cv2.pointPolygonTest(q.reshape(-1, 1, 2), (float(x), float(y)), True) for x, y in p)
                       for p, q in ((hi_, hj), (hj, hi_)))
            if near > gap:
                continue
            out.append((union.reshape(-1, 2).astype(np.float32), (hi_, hj)))
    return out


def hypotheses(hull: np.ndarray) -> list[np.ndarray]:
    """Whole-card quads a covered card showing ``hull`` may have (step 2 of the module doc).

    Args:
        hull: (N, 1, 2) or (N, 2) convex hull of the visible part, image px, as
            ``cv2.convexHull`` gives it.

    Returns:
        (4, 2) float32 quads in image px, clockwise; none for a hull of fewer than three distinct
        points (no side to complete a card from).
    """
    from companion.vision.cards import CARD_ASPECT

    pts = hull.reshape(-1, 2).astype(np.float64)
    if len(set(map(tuple, pts.tolist()))) < 3:  # fewer than 3 distinct points (np.unique costs more)
        return []
    span = float(np.sqrt(((pts[:, None] - pts[None]) ** 2).sum(-1)).max())
    # A card's side is one straight run of the hull, but often several hull edges a few degrees
    # apart (the contour's pixel steps, a slightly bent card): each is measured as the longest
    # chord the hull's points stay within ``RUN_TOL`` of.
    start, end = _straight_runs(pts, RUN_TOL * span + 1.0)
    lens = np.linalg.norm(end - start, axis=1)
    dirs: list[np.ndarray] = []
    for i in np.argsort(-lens, kind="stable"):
        if lens[i] < SIDE_MIN * span:
            break
        u = (end[i] - start[i]) / lens[i]
        # One frame per direction modulo 90° (a side and the one across or beside it frame alike).
        if any(abs(abs(u @ d) - 1.0) < 0.003 or abs(u @ d) < 0.05 for d in dirs):
            continue
        dirs.append(u)
        if len(dirs) == 3:
            break  # the three longest directions frame the card if any does
    out = []
    for u in dirs:
        v = np.array([-u[1], u[0]])
        pu, pv = pts @ u, pts @ v
        u0, u1, v0, v1 = pu.min(), pu.max(), pv.min(), pv.max()
        lu, lv = u1 - u0, v1 - v0
        tol = 0.03 * max(lu, lv) + 1.0
        if abs(max(lu, lv) / max(min(lu, lv), 1e-6) / CARD_ASPECT - 1.0) <= WHOLE_SLACK:
            # The frame is a card's shape: the cover lies inside the card's outline (a knife
            # across it), or cuts off no more than a corner.
            corners = [(u0, v0), (u1, v0), (u1, v1), (u0, v1)]
            out.append(np.array([a * u + c * v for a, c in corners], np.float32))
            continue
        for along, across, lo_a, hi_a, lo_c, hi_c, ln_a, ln_c in (
                (pu, pv, u0, u1, v0, v1, lu, lv), (pv, pu, v0, v1, u0, u1, lv, lu)):
            for anchor, sign in ((lo_c, 1.0), (hi_c, -1.0)):
                on = np.abs(across - anchor) <= tol
                if not on.any() or (along[on].max() - along[on].min()) < ANCHOR_COVER * ln_a:
                    continue
                for depth in (ln_a * CARD_ASPECT, ln_a / CARD_ASPECT):
                    if depth < 0.97 * ln_c or depth > 3.0 * ln_c or depth < 1.06 * ln_c:
                        continue
                    far = anchor + sign * depth
                    corners = [(lo_a, anchor), (hi_a, anchor), (hi_a, far), (lo_a, far)]
                    if along is pu:
                        q = np.array([a * u + c * v for a, c in corners])
                    else:
                        q = np.array([c * u + a * v for a, c in corners])
                    out.append(q.astype(np.float32))
    return out


def _straight_runs(pts: np.ndarray, tol: float) -> tuple[np.ndarray, np.ndarray]:
    """For each point of a closed convex polygon, the longest chord forward from it that the
    points in between stay within ``tol`` px of.

    Args:
        pts: (N, 2) float64 polygon corners, image px, in order.
        tol: px.

    Returns:
        ``(start, end)``: (N, 2) float64 each; the chord from ``pts[i]`` covers at least its own
        edge to ``pts[i + 1]``.
    """
    n = len(pts)
    if n < 3:
        return pts, np.roll(pts, -1, axis=0)
    # The chord from i to i + j passes the points i + m, 0 < m < j; their distance from it is
    # |c × r_m| / |c| with c = pts[i + j] − pts[i], r_m = pts[i + m] − pts[i]. Chords are grown
    # one point at a time, only for the points whose run has not ended: a round hull (a plate,
    # 200–400 points) ends its runs within a few points, and no (N, N, N) array is made (at
    # N = 400 that was about 1 GB).
    idx = np.arange(n)
    j_end = np.full(n, n - 1)
    active = idx
    for j in range(2, n):
        if active.size == 0:
            break
        c = (pts[(active + j) % n] - pts[active]).astype(np.float32)  # (A, 2)
        r = (pts[(active[:, None] + np.arange(1, j)[None, :]) % n] - pts[active][:, None, :]).astype(np.float32)
        far = np.abs(c[:, None, 0] * r[:, :, 1] - c[:, None, 1] * r[:, :, 0]).max(axis=1)  # (A,)
        ln = np.linalg.norm(c, axis=1)
        bad = (far > tol * ln) | (ln < 1e-9)
        j_end[active[bad]] = j - 1  # a run ends before the first chord that strays
        active = active[~bad]
    ends = pts[(idx + j_end) % n]
    return pts, ends


def _visible_masks(hull, quads: list[np.ndarray]) -> np.ndarray:
    """(N, PATCH_H, PATCH_W) bool: where each quad's patch shows the region ``hull`` (shrunk by
    a patch pixel, so the cover's edge is left out). ``hull``: (K, 2) image px, or a tuple of
    such convex parts (the pieces :func:`_joined` joins: the cover between them is left out)."""
    from companion.vision.deck import PATCH_H, PATCH_W, _DST2

    parts = hull if isinstance(hull, tuple) else (hull,)
    out = []
    for q in quads:
        hm = cv2.getPerspectiveTransform(np.asarray(q, np.float32), _DST2)
        m = np.zeros((PATCH_H, PATCH_W), np.uint8)
        for part in parts:
            ph = cv2.perspectiveTransform(part.reshape(-1, 1, 2).astype(np.float32), hm).reshape(-1, 2) / 2.0
            cv2.fillConvexPoly(m, np.round(ph * 16).astype(np.int32), 1, lineType=cv2.LINE_8, shift=4)
        out.append(cv2.erode(m, np.ones((3, 3), np.uint8)) > 0)
    return np.stack(out) if out else np.zeros((0, PATCH_H, PATCH_W), bool)


def read_covered(frame: np.ndarray, deck, readings, min_area_frac: float = 0.0015,
                 max_area_frac: float = 0.4, regions: list[np.ndarray] | None = None, under=()) -> list:
    """Covered cards the outline finder left (module doc), as
    :class:`companion.vision.deck.Classification` objects with the completed quad.

    Args:
        frame: (H, W, 3) uint8 BGR.
        deck: the enrolled deck.
        readings: the cards already read (Classification); regions inside a named one are skipped.
        min_area_frac, max_area_frac: card area bounds as fractions of the image area (as
            :func:`companion.vision.cards.find_card_groups`).
        regions: the visible parts to complete ((K, 2) float32 image px, convex) in place of the
            edge map's holes (step 1): what shows of a card beside the one an outline of two
            touching cards was cut to (:func:`companion.vision.cards._split_pairs`).
        under: readings of ``readings`` a completion may run under (that card, lying on it).

    Returns:
        New readings, named or ``"unknown"`` (confidence 0.5: undecided), one per region kept.
    """
    from companion.vision.card_search import card_size
    from companion.vision.cards import order_quads
    from companion.vision.deck import Classification, card_patches

    h, w = frame.shape[:2]
    lo, hi = min_area_frac * h * w, max_area_frac * h * w
    named = [np.asarray(r.quad, np.float32) for r in readings if r.label != UNKNOWN]
    lo_card, hi_card = lo, hi
    size = card_size(readings)
    if size is not None:
        # The cards named tell how large a card is here: what shows of one is a part of that, and
        # the card completed from it is of that size.
        area = size[0] * size[1]
        lo, hi = max(lo, VISIBLE_MIN * area / REGION_MIN), min(hi, 1.3 * area)
        lo_card, hi_card = max(lo_card, 0.6 * area), min(hi_card, 1.6 * area)
    # An outline the deck read over its threshold but left "unknown" (two look-alikes, a face
    # outside its label's examples) was judged on its whole face: what shows of it is no better.
    undecided = [np.asarray(r.quad, np.float32) for r in readings if r.label == UNKNOWN and r.score >= deck.threshold]
    found = []
    taken = named + undecided
    over = [np.asarray(r.quad, np.float32) for r in readings if r.label != UNKNOWN and not any(r is u for u in under)]
    edge_holes = None if regions is not None else _edge_holes(frame)
    joined = [] if regions is not None else \
        _joined(frame, lo_card, hi_card, MIN_PIECE * (area if size is not None else lo_card), taken, edge_holes)
    holes = regions if regions is not None else _regions(frame, lo, hi, taken, edge_holes)
    # A joined region is read with the cover between its pieces left out, and with the whole hull
    # shown: a face card's pieces are the strips round its printed frame, whose hulls leave out
    # most of the art that shows (IMG_2530 of the real photos: a handle across a queen).
    completions: dict[int, list[np.ndarray]] = {}  # a joined hull's, read twice
    pieces = {id(hl): parts for hl, parts in joined}
    for joint, hull, shown in ([(True, hl, v) for hl, parts in joined for v in (parts, hl)]
                               + [(False, hl, hl) for hl in holes]):
        if id(hull) not in completions:
            hyps = hypotheses(hull)
            completions[id(hull)] = list(order_quads(np.stack(hyps))) if hyps else []
        quads = [q for q in completions[id(hull)] if lo_card <= abs(cv2.contourArea(q)) <= hi_card and _long_side(q) >= MIN_LONG
                 and q[:, 0].min() >= 0 and q[:, 1].min() >= 0 and q[:, 0].max() < w and q[:, 1].max() < h]
        if not quads:
            continue
        masks = _visible_masks(shown, quads)
        share = masks.mean(axis=(1, 2))
        keep = share >= VISIBLE_MIN
        if not keep.any():
            continue
        quads = [q for q, k in zip(quads, keep) if k]
        masks = masks[keep]
        patches = card_patches(frame, quads)
        near = masked_scores(deck, patches, masks, quick=True)[0].max(axis=1) >= deck.threshold - QUICK_SLACK
        # A joined region is read against every template even where no label's centroid comes
        # near: a rank enrolled from cards of several suits has a centroid that a card of a suit
        # it weighs little reads far under (IMG_2621's jack of spades across two cables: centroid
        # 0.46, its own templates 0.98), and joins are few per photo. Such a join is named only
        # where the card's outline shows all round (:func:`outline_share`) and its paper bears
        # ink (:func:`ink_share`): unscreened, a pale blob joined to a scrap of paper, or a blank
        # tile cut by a shadow, reads as an ace's blank face (bench/real_covers.py).
        unscreened = np.zeros(len(quads), bool)
        if joint and JOIN_UNSCREENED and not near.all():
            # Read in full only the quads that lie on a card's outline already (checked again
            # where the read slides them): most joins are not on one, and a full read costs
            # some 5 ms a quad on this machine.
            unscreened = ~near & np.array([outline_share(frame, q) >= JOIN_OUTLINE for q in quads])
            near = near | unscreened
        if not near.any():
            continue
        quads = [q for q, k in zip(quads, near) if k]
        unscreened = unscreened[near]
        scores, turned = masked_scores(deck, patches[near], masks[near])
        best_l = scores.argmax(axis=1)
        top = scores.max(axis=1)
        i = int(np.argmax(top))
        label = int(best_l[i])
        rivals = np.delete(scores, label, axis=1).max(axis=1) if scores.shape[1] > 1 else np.full(len(quads), -1.0)
        if top[i] < deck.threshold:
            continue  # nothing a card reads here
        settled = top[i] >= deck.threshold + SLIDE_FROM and float(rivals.max()) <= top[i] - LEAD
        q, score, row = quads[i], float(top[i]), scores[i]
        if settled:
            q2, row2, turn = _slid(frame, deck, shown, q, label)
            # The slide must not end where the label reads under the bar it passed before it.
            settled = (int(np.argmax(row2)) == label and float(row2[label]) >= deck.threshold + MARGIN
                       and float(np.delete(row2, label).max(initial=-1.0)) <= row2[label] - LEAD)
            if settled or top[i] >= deck.threshold + MARGIN:
                q, row, score = q2, row2, float(row2[label])
            # Clockwise from the face's top-left as the match says (an "unknown" one as found).
            q = np.roll(q, -2, axis=0) if settled and turn else q
        if joint and not settled:
            continue  # two pieces joined are a card only if they read as one
        if unscreened[i] and (not _join_may_name(deck, label)
                              or outline_share(frame, q) < JOIN_OUTLINE
                              or ink_share(frame, q, pieces[id(hull)]) < JOIN_INK):
            # An unscreened join is named only on a card's outline, with ink on it, and never as a
            # label the mark count judges (a pip card's: stop 45's review, the drawn pip deck under
            # covers: a never-enrolled two or three read "one", whose centroid screened it out on
            # main). A cover hides or halves pips, so the count of what shows cannot confirm such a
            # name (a two with a pip under the cable counts the one's 1); a face card's rank (the
            # jacks this pass is for: IMG_2621, IMG_2584) is not judged by its count. Nor as a
            # label whose face is mostly bare paper (``Deck.mostly_paper``: most of its examples
            # show at most one mark, an ace), whatever the enrolment's counts agree on (stop 48,
            # ``cover48``): such a face has nothing but its paper and one mark to tell it by, and
            # a cover hides its corners' index, so a blank tile cut by a shadow and a coloured
            # paper with one dot cut by a cable read as an ace's (cover46's review, enrolment draw
            # 32, whose aces agree on no count: real_covers scenes 11183 and --dotted 11423). A deck
            # without counts (an old enrolment) cannot tell a face card from an ace: no such join.
            # Nor as a pip-heavy label whose examples disagree on their count (:func:`_join_may_name`).
            continue
        # Nor may it reach over another reading: an "unknown" outline as well as a named card (a
        # completion runs on under the cover, and may run onto a neighbour there).
        others = [np.asarray(r.quad, np.float32) for r in readings if r.label == UNKNOWN]
        if any(overlap_area(q, f.quad) > 0.3 * abs(cv2.contourArea(q)) for f in found) \
                or any(overlap_area(q, r) > 0.3 * abs(cv2.contourArea(q)) for r in over):
            continue
        if any(overlap_area(q, r) > 0.3 * min(abs(cv2.contourArea(q)), abs(cv2.contourArea(r)))
               and overlap_area(q, r) <= 0.5 * abs(cv2.contourArea(r)) for r in others):
            continue
        found.append(Classification(deck.labels[label] if settled else UNKNOWN,
                                    0.5 + 0.5 * min(1.0, (score - deck.threshold) / 0.1) if settled else 0.5,
                                    score, q.astype(np.float32), row))
    return found


def _join_may_name(deck, label: int) -> bool:
    """Whether an unscreened join (``JOIN_UNSCREENED``) may be named ``label`` (an index into
    ``deck.labels``): only a face card's rank, as far as the enrolment's mark counts tell. Not a
    label the mark count judges (its examples agree on a count: a pip card, stop 46 ``cover46``),
    nor one whose face is mostly bare paper (an ace, stop 48 ``cover48``), nor one whose examples'
    median count is ``JOIN_PIP_MARKS`` or more (a nine or ten whose examples agree on no count: the
    review of ``cover48``); a deck without counts cannot tell them apart: False.

    Args:
        deck: a :class:`companion.vision.deck.Deck`.
        label: the label index.
    """
    median = deck.marks_median(label)
    return (median is not None and not deck.judges_marks(label) and not deck.mostly_paper(label)
            and median < JOIN_PIP_MARKS)


#: A named completion is slid along its two sides by up to this many steps of ``SLIDE_STEP`` of its
#: long side each way, to where its label reads best (:func:`_slid`).
SLIDE_STEPS = 4
SLIDE_STEP = 0.03


def _slid(frame: np.ndarray, deck, hull, quad: np.ndarray, label: int
          ) -> tuple[np.ndarray, np.ndarray, bool]:
    """The completed ``quad`` moved to where ``label`` reads best on the visible part, and its
    per-label masked scores there and whether it matched turned by 180°.

    A side taken as the card's own may be a printed band's or frame's edge a few px inside it (the
    paper's hole ends there): the card then lies a band's height further out. The quad is slid
    along each of its two side directions (``SLIDE_STEPS`` × ``SLIDE_STEP`` of its long side each
    way; the best of each direction by the label's centroid score, then both together; the three
    read against every template), the mask following the region.
    """
    from companion.vision.deck import card_patches

    d1 = quad[1] - quad[0]
    d2 = quad[3] - quad[0]
    step = SLIDE_STEP * max(np.linalg.norm(d1), np.linalg.norm(d2))
    d1, d2 = d1 / max(np.linalg.norm(d1), 1e-6) * step, d2 / max(np.linalg.norm(d2), 1e-6) * step
    ks = np.arange(-SLIDE_STEPS, SLIDE_STEPS + 1)
    cands = [quad + k * d1 for k in ks] + [quad + k * d2 for k in ks]
    # Slid by the label's centroid score (smooth, and some 100 times cheaper than the full bank's);
    # the three best places are then read in full.
    quick, _ = masked_scores(deck, card_patches(frame, cands), _visible_masks(hull, cands), quick=True)
    n = len(ks)
    b1, b2 = int(np.argmax(quick[:n, label])), n + int(np.argmax(quick[n:, label]))
    options = [cands[b1], cands[b2], quad + ks[b1] * d1 + ks[b2 - n] * d2]
    scores, turned = masked_scores(deck, card_patches(frame, options), _visible_masks(hull, options))
    j = int(np.argmax(scores[:, label]))
    return options[j].astype(np.float32), scores[j], bool(turned[j, label])


def ink_share(frame: np.ndarray, quad: np.ndarray, shown) -> float:
    """Share of the visible part of ``quad``'s patch (``shown``: as :func:`_visible_masks`) that is
    ink, measured against the paper's own colour: the median Lab of the lighter half of what shows
    (by lightness: a card's paper, not its print). A pixel is ink where it is darker than that paper
    by ``INK_DROP`` or lies further than ``INK_CHROMA`` from its colour (Lab a, b; 8-bit): a red
    pip on white paper is ink, a yellow paper's own yellow is not (cover45 counted any chroma over
    35 as ink, so a blank yellow or orange paper scored 1.0: stop 45's review). A card's face holds
    its index and pips; a blank tile or a plain coloured paper none.

    Args:
        frame: (H, W, 3) uint8 BGR.
        quad: (4, 2) image px.
        shown: (K, 2) image px hull or a tuple of them.

    Returns:
        0..1.
    """
    from companion.vision.deck import card_patches

    patch = card_patches(frame, [np.asarray(quad, np.float32)])[0]
    m = _visible_masks(shown, [np.asarray(quad, np.float32)])[0]
    if not m.any():
        return 0.0
    lab = cv2.cvtColor(patch, cv2.COLOR_BGR2LAB).astype(np.float32)[m]
    paper = np.median(lab[lab[:, 0] >= np.median(lab[:, 0])], axis=0)
    ink = (lab[:, 0] < paper[0] - INK_DROP) | (np.hypot(lab[:, 1] - paper[1], lab[:, 2] - paper[2]) > INK_CHROMA)
    return float(ink.mean())


#: Lightness (Lab L, 8-bit) under the paper's that is ink, and distance in colour (Lab a, b) from
#: the paper's over which a pixel is ink (a red pip, a face card's colours) whatever its lightness.
INK_DROP = 70.0
INK_CHROMA = 35.0


#: Px round a quad's bounding box that :func:`outline_share` greys and blurs: its samples reach
#: ``reach`` + 2 px off a side, bilinear 1 px more, and the blur's kernel (sigma 1: 9 taps) 4 px,
#: so the values it samples are those of the whole frame blurred, bit for bit.
_OUTLINE_PAD = 16


def outline_share(frame: np.ndarray, quad: np.ndarray, per_side: int = 40, reach: int = 3) -> float:
    """Share of a card quad's outline that is an edge in ``frame``: its four sides sampled at
    ``per_side`` points each over their middle 0.8 (a card's corners are round), and a point is
    an edge where the grey level (blurred by sigma 1 px) 2 px outside and 2 px inside the side
    differ by ``OUTLINE_STEP`` or more at some offset within ``reach`` px of it along the side's
    normal (a quad a few px off). Only the quad's neighbourhood (``_OUTLINE_PAD``) is greyed and
    blurred: cover45 blurred the whole frame on each call, some 12 ms a 1280 x 960 photo, ~4.6
    calls a covered photo (its review: CPU x1.12).

    Args:
        frame: (H, W, 3) uint8 BGR.
        quad: (4, 2) image px, in order round the quad.

    Returns:
        0..1.
    """
    q = np.asarray(quad, np.float32)
    fh, fw = frame.shape[:2]
    x0 = max(int(np.floor(q[:, 0].min())) - _OUTLINE_PAD, 0)
    y0 = max(int(np.floor(q[:, 1].min())) - _OUTLINE_PAD, 0)
    x1 = min(int(np.ceil(q[:, 0].max())) + _OUTLINE_PAD + 1, fw)
    y1 = min(int(np.ceil(q[:, 1].max())) + _OUTLINE_PAD + 1, fh)
    if x1 <= x0 or y1 <= y0:
        return 0.0
    g = cv2.GaussianBlur(cv2.cvtColor(frame[y0:y1, x0:x1], cv2.COLOR_BGR2GRAY).astype(np.float32), (0, 0), 1.0)
    q = q - np.float32([x0, y0])
    centre = q.mean(axis=0)
    ts = np.linspace(0.1, 0.9, per_side, dtype=np.float32)[:, None]
    ks = np.arange(-reach, reach + 1, dtype=np.float32)[:, None, None]  # (R, 1, 1) offsets
    pts = []
    for i in range(4):
        a, b = q[i], q[(i + 1) % 4]
        d = (b - a) / max(float(np.linalg.norm(b - a)), 1e-6)
        n = np.float32([-d[1], d[0]])
        if float(np.dot(centre - (a + b) / 2, n)) > 0:
            n = -n  # outward
        p = (a[None] + ts * (b - a)[None])[None] + ks * n  # (R, per_side, 2)
        pts.append(np.stack([p + 2 * n, p - 2 * n]))  # (2, R, per_side, 2): outside, inside
    pts = np.stack(pts).astype(np.float32)  # (4, 2, R, per_side, 2)
    # Every side, offset and point in one remap (some 28 calls of one row each cost ~1 ms a quad).
    v = cv2.remap(g, pts[..., 0].reshape(1, -1), pts[..., 1].reshape(1, -1), cv2.INTER_LINEAR,
                  borderMode=cv2.BORDER_REPLICATE).reshape(pts.shape[:4])
    best = np.abs(v[:, 0] - v[:, 1]).max(axis=1)  # (4, per_side): the best offset of each point
    return float((best >= OUTLINE_STEP).mean())


def _long_side(q: np.ndarray) -> float:
    s = np.linalg.norm(q - np.roll(q, -1, axis=0), axis=1)
    return float(max(s[0] + s[2], s[1] + s[3]) / 2.0)

