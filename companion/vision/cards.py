"""Finding cards in a table photo, and reading them against an enrolled deck.

Finding (:func:`find_cards`)
----------------------------
1. Work on a copy reduced to at most ``_WORK_PX`` px on its long side (speed; the corners are
   refined at full resolution later). Edges: ``cv2.Canny`` (J. Canny 1986) on lightness and on
   the two Lab chroma channels, OR-ed, so a red card on a brown table of equal lightness still
   has an outline.
2. ``cv2.findContours`` with ``RETR_CCOMP`` (OpenCV docs, "Contours Hierarchy"; Suzuki & Abe
   1985) gives two kinds of candidates in one pass:
   * outer boundaries of edge components — a card's outline plus its printed art form one
     component whose convex hull is the card, on a plain or mildly textured table;
   * hole boundaries — the edge-free region just inside a card's outline, which survives when a
     busy texture touches the outline from outside (works for cards whose printed background
     runs round the whole face, such as the back).
   Holes are also why cards a few mm apart stay separate: the gap between them is edge pixels or
   background, never part of either card's region. A hole may be ragged where printed pips or
   a face card's frame touch the outline; its hull is still the card. A hole that leaks out
   through a gap in the outline (a pale streak of wood grain as bright as the paper) is opened
   morphologically: the leak is thinner than the card, whose inside is what is left.
3. Each candidate's convex hull is reduced to 4 corners with ``cv2.approxPolyDP``
   (Douglas–Peucker) at growing tolerance, and kept if the quad is convex, explains the hull's
   area, is large enough, and has a card's side ratio (63:44, with slack for mild perspective).
   A contour that only touches the image border at a corner is kept; one that runs along it is
   a card cut by the border.
4. Every side is then located at full resolution: colour profiles are sampled across the side
   at 20 places (one ``cv2.remap`` call for all cards), the strongest step in each is taken, a
   line is fitted (``cv2.fitLine`` with the Huber loss) and neighbouring lines are intersected,
   which also puts the corners of rounded cards where the straight sides meet. A candidate whose
   sides are not mostly backed by a strong straight step is dropped (texture blobs).
5. Duplicates (the outline and the region inside it) are merged, larger first; a large quad
   that merely contains smaller cards (a printed zone box on a mat) gives way to them, but not
   to small too-square marks printed on it (diamond pips). A too-square find that may be a
   whole card foreshortened by a slanted camera is offered both as found and completed.
6. Reading (:func:`read_cards`): every find is named by the deck (if none is, the outlines are
   looked for again on a coarser edge map); a find that scores just under the deck's threshold
   is lined up with its best label's nearest example and read again (:func:`_look_again`); an
   outline that reads as no card and may be two cards touching along their long sides is cut in
   two and each part read (:func:`_split_pairs`); then the deck itself searches,
   at the size of the cards just read, what the outlines left over: part-cards, card-shaped finds
   that read ``"unknown"`` or are of the wrong size, and patches that differ from the table
   (:mod:`companion.vision.card_search`). That is how a pale card on a pale table, or a card whose
   art sits in a panel the edge map takes for the card, is read whole. A place the search snapped
   to with all four sides backed but read under its bar is read again as an outline found just
   under the threshold is (:func:`_look_again`), and reported "unknown" if that does not name it.
   Where that search has no blob to go by (a table too busy for its estimate, or nothing named), a
   card whose outline has a gap (a blurred side, a side running into a pale cable) is looked for as
   the thick core of the edge-free part of the map (:func:`_with_cores`). Last, a card partly covered
   by something else (a knife, a book's edge) is completed from its visible sides and named on the
   part that shows (:mod:`companion.vision.covered`), where no card was named. On a photo where
   nothing at all is named, a card is also looked for from a corner, two straight sides meeting
   square (:mod:`companion.vision.card_corners`): a lone card on a table as pale as it is. At the
   very end, a card found but read ``"unknown"`` whose best label is a face card the deck keeps faces
   of is named by local features where they are beyond doubt (:func:`_named_by_features`); before
   that, a card the whole-card path named near a face card whose local features name another label
   beyond doubt is made ``"unknown"`` (:func:`_crossed_by_features`: two readers disagree).

Limits: cards must not touch or overlap (a visible gap of about 2 px in the reduced image, i.e.
a few mm at table distance, is enough), except two cards touching along their long sides, whose
one outline has a card's shape; a card cut by the image border is not reported, unless at most
a quarter of it is cut off, its three other sides show, and another card named gives the card
size (:func:`_with_border_cut`; it is then named only if the deck names it clearly); on a
table whose texture is as strong as the card outlines, only cards whose face has a continuous
border region, or that the deck finds at the size of the others, are found; a card partly covered
by something else is found only when one whole side of it shows, with the paper running from it
(:mod:`companion.vision.covered`), and is named on what shows.
"""

from __future__ import annotations

import functools
import threading
import weakref
from dataclasses import replace

import cv2
import numpy as np

from companion.vision.imageio import to_original_px, working_copy
from companion.vision.observations import CardObservation

_WORK_PX = 1280  # long side of the reduced image used for finding candidates
# The coarse pass (find_card_groups(coarse=True)) finds outlines on an edge map this fraction of
# the usual size: smoothing over twice the distance erases a fine texture's small edges (carpet
# pile, wood grain) that touch a card all round, while a card's long high-contrast outline stays.
_COARSE = 0.5
#: Longest side (px) :func:`read_cards` reads a photo at; a larger one is reduced first
#: (:func:`companion.vision.imageio.working_copy`). 2048 keeps the Pi camera's frames (2028 × 1520,
#: ``companion.devices.camera.PI_MAIN_SIZE``) at full resolution, and at 2048 × 1536 the smallest
#: card the finder takes (0.15 % of the image area) is 82 px long: about the look-alike stage's
#: 86 px template (``deck.FINE_H``) and above the 60 px a card needs to be named at all. A 48 MP
#: phone photo is read at 2048 × 1536 (scale 0.256), in 0.2 GB instead of 0.5 GB.
READ_MAX_SIDE = 2048
CARD_ASPECT = 63.0 / 44.0
_ASPECT_MIN, _ASPECT_MAX = 1.28, 1.75  # long/short side ratio of a whole card, with perspective slack
# A region this square may be a card whose one short side is invisible (a dark title band on a
# dark table) or a card's face below its band; it is kept as a *partial* find and completed to
# the card's aspect by stretching it across one short side or the other (see find_card_groups).
_PARTIAL_MIN = 1.08
# Between _ASPECT_MIN and this, a find is probably a whole card seen at an angle, but may be a
# card minus its title band under perspective: both readings are offered to the classifier.
_ASPECT_DOUBT = 1.36
_PREFER_FOUND = 0.03  # ZNCC a completion must gain over the quad as found to replace it
# An outline that reads "unknown" scoring this close under the deck's threshold (ZNCC) is lined up
# with its best label's nearest example and read again (:func:`_look_again`). On the real photos'
# dev half (bench/real_cards.py) the cards that read "unknown" so scored 0.64-0.72 with a 0.717
# threshold, and their best label was right in every case, 0.07-0.12 ahead of the next.
_LOOK_AGAIN_BAND = 0.08
# ... and is named on the second look only if it differs from its label's nearest example evenly
# (:meth:`companion.vision.deck.Deck.residual_peak` at most this): a card that was never enrolled
# but is one mark away from an enrolled one (a ten where only the nine of its suit was enrolled)
# gains from the alignment too, and differs in one place. On the dev half, enrolment seeds 0-2,
# the cards the second look named right peaked at 3.2-5.9, the tens it named nine at 10.5-11.3.
_EVEN_PEAK = 8.0
# ... and on the lined-up outline it must score at least the deck's threshold less this (ZNCC):
# the threshold is calibrated on the enrolled examples' own simulated views, and a real face of a
# rank seen under other light or through another camera than its examples' (a webcam's jack, the
# examples all phone photos) stays a little under it however well lined up, while every check
# behind the threshold (the look-alike stage, the check on the label's examples, the mark count,
# the exposure look) and the even-difference test above still decide; a card its mark count names
# instead passes that count's own checks (Deck.counted_label). On the real photos' dev
# half (bench/real_cards.py, enrolment seeds 0 and 1) the faces so named right lay 0.006-0.027
# under the threshold once lined up; the tens never enrolled in their suit, nearest a nine, were
# refused by those checks at any slack up to 0.15, and no reading of a thing that is not a card
# came within 0.15 of the threshold.
_LOOK_AGAIN_SLACK = 0.03
# The most local-feature looks each pass pays for on one photo, so at most twice this a photo: a
# look fits SIFT matches against every face of the candidate labels (0.14-0.3 s each on this 2-core
# machine, about a second on a Pi), and a photo full of face cards its enrolment lacks (face53's
# review, draw 1 with the kings left out: 72 looks over 94 photos) must not take a minute. Naming
# (_named_by_features) looks at the likeliest first (highest whole-card score for a face label),
# the rest stay "unknown"; the cross-check (_crossed_by_features) at the weakest names first, the
# rest keep their names unchecked. The real photos' draws looked at most 3 times a photo.
_FEATURE_LOOKS = 6
# A too-square find down to this aspect may still be a whole card: a camera that looks at the
# table at a slant foreshortens the far cards (a webcam on a tripod: 63:44 seen as 1.25:1). Such
# a find is also offered as found, beside its two completions.
_ASPECT_TILT = 1.2
# A too-square find smaller than this fraction of a find around it is a printed mark on that card
# (a diamond pip), not a card: it does not make the larger find a container (see find_card_groups).
_MARK_MAX = 0.04
_SIDE_SAMPLES = 20
_REFINE_RUN = 32767 // (4 * _SIDE_SAMPLES)  # quads per cv2.remap call
# A card's inside (a hole of the edge map) fills at least this much of its hull: less where the
# pips or a face card's frame touch the outline (0.7 on a real nine), much less for texture.
_HOLE_FILL = 0.6
# A hole that is not a card's shape is opened by this fraction of its bounding box's short side
# (:func:`_hole_core`): a leak through a gap in a card's outline is thinner, the card's inside thicker.
_CORE_OPEN = 0.15
_CORE_PX = 160  # short side (px) of the copy a hole is opened on
_BORDER_RUN = 0.1  # a contour this far (fraction of its short side) along the border is cut by it
_EDGE_MIN = 24.0  # summed |Δ| over B, G, R across 2 px for a sample to count as "on an edge"
_SUPPORT_MIN_SIDE = 0.4
_SUPPORT_MIN_MEAN = 0.6


def order_quad(quad: np.ndarray) -> np.ndarray:
    """Put 4 corners in the order the vision code uses.

    Clockwise as seen in the image (x right, y down), starting with a corner of a *short* side
    so corners 0→1 are the card's top edge if it is portrait; of the two such starts, the one
    nearer the image's top-left (smaller x + y). Classification may turn it by 180° later.

    Args:
        quad: 4 points, any order, shape (4, 2) or (4, 1, 2), image px.

    Returns:
        (4, 2) float32.
    """
    return order_quads(np.asarray(quad, np.float32).reshape(1, 4, 2))[0]


def order_quads(quads: np.ndarray) -> np.ndarray:
    """:func:`order_quad` for many quads at once, without a Python loop.

    Args:
        quads: (N, 4, 2) image px.

    Returns:
        (N, 4, 2) float32.
    """
    q = np.asarray(quads, np.float32).reshape(-1, 4, 2)
    # Rows picked by fancy indexing and the side lengths written out: the same values as
    # np.take_along_axis, np.roll and np.linalg.norm give, without their per-call overhead (the
    # window search orders a few thousand quads per photo, classification one at a time).
    rows = np.arange(len(q))[:, None]
    c = q.mean(axis=1, keepdims=True)
    ang = np.arctan2(q[:, :, 1] - c[:, :, 1], q[:, :, 0] - c[:, :, 0])
    q = q[rows, np.argsort(ang, axis=1, kind="stable")]
    v = q - q[:, _NEXT]
    s = np.sqrt(v[..., 0] * v[..., 0] + v[..., 1] * v[..., 1])
    idx = np.arange(4)[None, :] + (s[:, 0] + s[:, 2] > s[:, 1] + s[:, 3])[:, None]
    q = q[rows, idx % 4]
    idx = np.arange(4)[None, :] + 2 * (q[:, 2].sum(axis=1) < q[:, 0].sum(axis=1))[:, None]
    return np.ascontiguousarray(q[rows, idx % 4])


def _ordered(quads: list[np.ndarray]) -> list[np.ndarray]:
    """:func:`order_quad` of each quad, in one :func:`order_quads` call."""
    return list(order_quads(np.stack(quads))) if quads else []


# A quad's next and previous corner (np.roll by −1 and 1 on axis 0, as an index: these run
# thousands of times per photo, and np.roll costs more than the arithmetic).
_NEXT, _PREV = [1, 2, 3, 0], [3, 0, 1, 2]


def _side_lengths(v: np.ndarray) -> np.ndarray:
    """(4,) lengths of a quad's (4, 2) side vectors: ``np.linalg.norm(v, axis=1)`` (the same
    float operations: the squares' sum, then its root) without its per-call overhead."""
    return np.sqrt(v[:, 0] * v[:, 0] + v[:, 1] * v[:, 1])


def _aspect(q: np.ndarray) -> float:
    s = _side_lengths(q - q[_NEXT])
    a, b = s[0] + s[2], s[1] + s[3]
    return float(max(a, b) / max(min(a, b), 1e-6))


# Lightness and two opponent-colour axes (red–green, blue–yellow) with a 128 offset, as one
# cv2.transform pass: much cheaper than a Lab conversion and enough to see a colour-only edge.
_OPPONENT = np.array([[0.114, 0.587, 0.299, 0.0],
                      [0.0, -0.5, 0.5, 128.0],
                      [0.5, -0.25, -0.25, 128.0]], np.float32)


#: A card's corners: |cos| of each corner angle under this (90° ± 16°); its opposite sides: within
#: this ratio of each other (``_square_enough``, ``_card_shaped``).
_SQUARE_COS, _SIDE_RATIO = 0.28, 1.25


def _square_enough(q: np.ndarray, max_cos: float = _SQUARE_COS, side_ratio: float = _SIDE_RATIO) -> bool:
    """Corner angles within 90° ± 16° (|cos| under ``max_cos``) and opposite sides within 25 % of
    each other (``side_ratio``): what a rectangle looks like under the mild perspective of an
    overhead camera."""
    v = q[_NEXT] - q
    ln = _side_lengths(v)
    if ln.min() < 1e-3:
        return False
    u = v / ln[:, None]
    up = u[_PREV]
    cos = np.abs(u[:, 0] * up[:, 0] + u[:, 1] * up[:, 1])
    return bool(cos.max() < max_cos and max(ln[0], ln[2]) < side_ratio * min(ln[0], ln[2])
                and max(ln[1], ln[3]) < side_ratio * min(ln[1], ln[3]))


def _card_shaped(quads: list[np.ndarray]) -> np.ndarray:
    """``_PARTIAL_MIN <= _aspect(q) <= _ASPECT_MAX and _square_enough(q)`` for many quads at once,
    the same answer for each: the same float32 operations on (N, 4) arrays (the finder asks it
    of 50–120 quads per photo, and the per-quad numpy calls cost more than their arithmetic).

    Args:
        quads: (4, 2) float32 px each.

    Returns:
        (N,) bool.
    """
    aspect, square = _shape_stats(quads)
    return (_PARTIAL_MIN <= aspect) & (aspect <= _ASPECT_MAX) & square


def _shape_stats(quads: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """``_aspect(q)`` and ``_square_enough(q)`` of many quads at once, the same values for each.

    Args:
        quads: (4, 2) float32 px each.

    Returns:
        ``(aspect, square)``: (N,) float64 and (N,) bool.
    """
    if not quads:
        return np.zeros(0), np.zeros(0, bool)
    q = np.stack(quads).astype(np.float32, copy=False)
    v = q[:, _NEXT] - q  # (N, 4, 2): side i from corner i to corner i + 1
    ln = np.sqrt(v[..., 0] * v[..., 0] + v[..., 1] * v[..., 1])
    # _aspect: its sides are those of q - q[_NEXT], of the same lengths.
    a, b = ln[:, 0] + ln[:, 2], ln[:, 1] + ln[:, 3]
    aspect = (np.maximum(a, b) / np.maximum(np.minimum(a, b), np.float32(1e-6))).astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        u = v / ln[..., None]
    up = u[:, _PREV]
    cos = np.abs(u[..., 0] * up[..., 0] + u[..., 1] * up[..., 1])
    square = ((ln.min(axis=1) >= 1e-3) & (cos.max(axis=1) < _SQUARE_COS)
              & (np.maximum(ln[:, 0], ln[:, 2]) < _SIDE_RATIO * np.minimum(ln[:, 0], ln[:, 2]))
              & (np.maximum(ln[:, 1], ln[:, 3]) < _SIDE_RATIO * np.minimum(ln[:, 1], ln[:, 3])))
    return aspect, square


def _edges(small: np.ndarray) -> np.ndarray:
    # The opponent transform in place of the blur, and one edge map reused for the two chroma
    # channels: a frame's worth of fresh memory is several hundred page faults per photo.
    buf = cv2.GaussianBlur(small, (5, 5), 1.0)
    cv2.transform(buf, _OPPONENT, dst=buf)
    # The three planes in one pass (cv2.split): a third of the cost of three cv2.extractChannel
    # calls, each of which reads the whole frame.
    planes = cv2.split(buf)
    e = cv2.Canny(planes[0], 30, 80, L2gradient=True)
    more = np.empty_like(e)
    for plane in planes[1:]:
        # Chroma swings are smaller than lightness ones, hence the lower thresholds.
        cv2.Canny(plane, 12, 32, edges=more, L2gradient=True)
        cv2.bitwise_or(e, more, dst=e)
    return e


def _hull_quad(hull: np.ndarray, area: float) -> tuple[np.ndarray, float] | None:
    """A contour's convex ``hull`` (``cv2.convexHull``) of ``area`` px² reduced to a convex quad
    that explains that area, and the area; None if it is no quad."""
    if area <= 0:
        return None
    peri = cv2.arcLength(hull, True)
    for eps in (0.02, 0.035, 0.05, 0.07):
        approx = cv2.approxPolyDP(hull, eps * peri, True)
        if len(approx) == 4:
            break
    else:
        return None
    if not cv2.isContourConvex(approx):
        return None
    qa = cv2.contourArea(approx)
    if not 0.85 * area <= qa <= 1.1 * area:
        return None
    return approx.reshape(4, 2).astype(np.float32), area


def _runs_along_border(contour: np.ndarray, w: int, h: int, size: float) -> bool:
    """Whether a contour follows the image border over more than ``_BORDER_RUN`` of ``size`` (px):
    a card cut by the border does; one whose corner merely reaches it (blur spreads an edge a
    pixel or two) does not, and its shape can still be told."""
    p = contour.reshape(-1, 2)
    for on, along in ((p[:, 0] <= 1, p[:, 1]), (p[:, 1] <= 1, p[:, 0]),
                      (p[:, 0] >= w - 2, p[:, 1]), (p[:, 1] >= h - 2, p[:, 0])):
        if on.any() and np.ptp(along[on]) > _BORDER_RUN * size:
            return True
    return False


def _candidates(frame: np.ndarray, min_area: float, max_area: float, reduce: float = 1.0) -> list[np.ndarray]:
    """Rough quads (full-res px) from contours of the reduced image's edge map (reduced ``reduce``
    times further for the coarse pass)."""
    h, w = frame.shape[:2]
    scale = min(1.0, _WORK_PX / max(h, w)) * reduce
    # At least 1 px each way: a 1 × 3000 strip would otherwise round to 0 rows (cv2.error, issue #14).
    small = cv2.resize(frame, (max(1, round(w * scale)), max(1, round(h * scale))), interpolation=cv2.INTER_AREA) \
        if scale < 1.0 else frame
    sh, sw = small.shape[:2]
    edges = _edges(small)
    contours, hier = cv2.findContours(edges, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    # Thickened edges close the one-pixel gaps a low-contrast stretch of outline leaves, which
    # would let a card's inner region leak into a textured table; only their holes are used.
    fat = cv2.dilate(edges, np.ones((3, 3), np.uint8))
    c2, h2 = cv2.findContours(fat, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    if reduce == 1.0:
        _remember_holes(frame, scale, c2, h2, fat)
    if hier is None and h2 is None:
        return []
    contours = list(contours) + [c2[i] for i in np.flatnonzero(h2[0][:, 3] >= 0)] if h2 is not None else list(contours)
    hier = np.concatenate([hier[0] if hier is not None else np.zeros((0, 4), np.int32),
                           np.ones((len(contours) - (0 if hier is None else len(hier[0])), 4), np.int32)])
    lo, hi = min_area * scale * scale, max_area * scale * scale
    min_side = max(8.0, np.sqrt(lo / 2.0))
    # Most of the 700–2,000 contours are specks of texture: their size is told for all at once
    # (_boxes), and only the few that may be a card are looked at one by one.
    boxes = _boxes(contours)
    bw, bh = boxes[:, 2], boxes[:, 3]
    box_area = bw * bh
    # A contour's hull lies inside its box's (bw - 1) × (bh - 1) px span, and a contour's own area
    # is at most its hull's: under ``lo`` neither _card_quad nor the hole's core below can pass.
    maybe = ((boxes[:, 4] >= 4) & (np.maximum(bw, bh) >= min_side) & (box_area >= 0.5 * lo)
             & (box_area <= 2.5 * hi) & ((bw - 1) * (bh - 1) >= lo))
    # Each contour's hull reduced to a quad first (_card_quad's steps up to its shape test), then
    # that shape test for all quads in one _card_shaped call; a hole that gives no card-shaped quad
    # has its core looked at, as _card_quad's None would have it.
    looked, quads = [], []
    for i in np.flatnonzero(maybe):
        c = contours[i]
        x, y, bw, bh = (int(v) for v in boxes[i, :4])
        if (x <= 1 or y <= 1 or x + bw >= sw - 1 or y + bh >= sh - 1) and _runs_along_border(c, sw, sh, min(bw, bh)):
            continue  # cut by the image border: cannot tell its true shape
        looked.append(i)
        quads.append(_hull_quad_of(c, hier[i][3] >= 0, lo, hi))
    shaped = iter(_card_shaped([q for q in quads if q is not None]).tolist())
    out = []
    for i, quad in zip(looked, quads):
        if quad is not None and not next(shaped):
            quad = None
        c, is_hole = contours[i], hier[i][3] >= 0
        if quad is None and is_hole and lo <= cv2.contourArea(c) <= hi:
            core = _hole_core(c, tuple(int(v) for v in boxes[i, :4]))
            quad = None if core is None else _card_quad(core, True, lo, hi)
        if quad is not None:
            out.append(quad / scale)
    return _dedupe(out)


def _boxes(contours) -> np.ndarray:
    """Each contour's bounding rectangle (as ``cv2.boundingRect`` gives it for integer points:
    ``w = max x - min x + 1``) and point count, for all contours at once.

    Args:
        contours: sequence of (N_i, 1, 2) int32 px arrays (``cv2.findContours``), N_i >= 1.

    Returns:
        (n, 5) int64 ``x, y, w, h, N_i`` per contour; (0, 5) when there are none.
    """
    if len(contours) == 0:
        return np.zeros((0, 5), np.int64)
    counts = np.fromiter(map(len, contours), np.int64, len(contours))
    pts = np.concatenate(contours).reshape(-1, 2)
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    lo = np.minimum.reduceat(pts, starts, axis=0).astype(np.int64)
    hi = np.maximum.reduceat(pts, starts, axis=0).astype(np.int64)
    return np.column_stack([lo, hi - lo + 1, counts])


# The usual pass's thickened edge map's contours, kept for the frame they came from (a weak
# reference: nothing is held once the caller lets the frame go), so that the covered-card pass
# (:mod:`companion.vision.covered`) reads the same holes without finding them again. Per thread
# (two readers may run at once), and forgotten when :func:`read_cards` ends: a camera buffer
# refilled in place is the same object with other pixels.
_holes = threading.local()


def _remember_holes(frame: np.ndarray | None, scale: float = 1.0, contours=None, hierarchy=None,
                    fat: np.ndarray | None = None) -> None:
    _holes.last = None if frame is None else (weakref.ref(frame), frame.shape, scale, contours, hierarchy, fat)


def _remembered(frame: np.ndarray) -> tuple | None:
    """What :func:`_candidates` remembered of this very frame (:func:`_remember_holes`), or None."""
    last = getattr(_holes, "last", None)
    return last if last is not None and last[0]() is frame and last[1] == frame.shape else None


def _thick_edges(frame: np.ndarray) -> tuple[float, np.ndarray]:
    """``frame``'s thickened edge map made now: ``(scale, fat)``, fat (h, w) uint8 (255 on an edge)
    at the finder's working size, scale its working px per image px (as :func:`_candidates`)."""
    h, w = frame.shape[:2]
    scale = min(1.0, _WORK_PX / max(h, w))
    small = cv2.resize(frame, (max(1, round(w * scale)), max(1, round(h * scale))), interpolation=cv2.INTER_AREA) \
        if scale < 1.0 else frame
    return scale, cv2.dilate(_edges(small), np.ones((3, 3), np.uint8))


def thick_edge_contours(frame: np.ndarray) -> tuple[float, tuple, np.ndarray | None]:
    """The contours (``cv2.RETR_CCOMP``, with their hierarchy) of ``frame``'s thickened edge map
    at the finder's working size, and that size's scale (working px per image px): those
    :func:`find_card_groups` found last if it was asked about this very frame, else found now.

    Args:
        frame: (H, W, 3) uint8 BGR.

    Returns:
        ``(scale, contours, hierarchy)``: each contour (N, 1, 2) int32 working px; hierarchy
        (1, N, 4) int32 or None when there are none.
    """
    last = _remembered(frame)
    if last is not None:
        return last[2], last[3], last[4]
    scale, fat = _thick_edges(frame)
    contours, hier = cv2.findContours(fat, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    return scale, contours, hier


def _card_quad(contour: np.ndarray, is_hole: bool, lo: float, hi: float) -> np.ndarray | None:
    """The (4, 2) float32 quad (px of the edge map) of a contour that may be a card's outline or
    inside: its hull reduced to 4 corners, of an area in [lo, hi] px², a card's side ratio (or a
    part-card's, ``_PARTIAL_MIN``) and square enough; a hole must also fill its hull
    (``_HOLE_FILL``). None otherwise."""
    quad = _hull_quad_of(contour, is_hole, lo, hi)
    if quad is None or not _PARTIAL_MIN <= _aspect(quad) <= _ASPECT_MAX or not _square_enough(quad):
        return None
    return quad


def _hull_quad_of(contour: np.ndarray, is_hole: bool, lo: float, hi: float) -> np.ndarray | None:
    """:func:`_card_quad` short of its shape test (aspect and corners, :func:`_card_shaped`): the
    (4, 2) float32 quad of the contour's hull, or None."""
    # The hull's area and a hole's fill first: they rule out about a third of the contours asked
    # about before the corner fits (the same tests as after them, so the same quads pass).
    hull = cv2.convexHull(contour)
    area = cv2.contourArea(hull)
    if not lo <= area <= hi:
        return None
    if is_hole and cv2.contourArea(contour) < _HOLE_FILL * area:
        return None  # a ragged region, not a card's inside
    res = _hull_quad(hull, area)
    return None if res is None else res[0]


def _hole_core(contour: np.ndarray, box: tuple[int, int, int, int]) -> np.ndarray | None:
    """The thick core of a hole of the edge map: the region opened (eroded, then dilated) by
    ``_CORE_OPEN`` of its bounding box's short side, its largest part's outer contour. Asked only
    of a hole whose own area is a card's but whose shape is not.

    Where a pale streak of wood or a glare line meets a white card, the card's outline has a gap a
    few px wide, and the card's inside leaks out through it into the table's pale grain: the hole
    is then no card's shape. The leak is a thin strand; the card's inside is thick, and survives
    the opening whole (its pips lie inside the filled contour). None if nothing is left.

    Args:
        contour: (N, 1, 2) int32 px of the edge map.
        box: its bounding rectangle ``(x, y, w, h)`` px.
    """
    x, y, bw, bh = box
    # Opened on a copy whose short side is about _CORE_PX: a rough outline is enough (the sides are
    # snapped to the photo later, refine_quads), and a large kernel at full size is slow.
    f = min(1.0, _CORE_PX / max(min(bw, bh), 1))
    w, h = max(1, round(bw * f)) + 2, max(1, round(bh * f)) + 2
    mask = np.zeros((h, w), np.uint8)
    pts = np.round((contour - np.array([x, y], np.int32)) * f).astype(np.int32) + 1
    cv2.drawContours(mask, [pts], 0, 255, -1)
    k = max(3, int(round(_CORE_OPEN * min(bw, bh) * f)) | 1)
    opened = _open_ellipse(mask, k)
    parts, _ = cv2.findContours(opened, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not parts:
        return None
    core = (max(parts, key=cv2.contourArea).astype(np.float32) - 1.0) / f + np.array([x, y], np.float32)
    return np.round(core).astype(np.int32)


_ELLIPSE_ROWS: dict[int, tuple[list[int], dict[int, np.ndarray]]] = {}


def _open_ellipse(mask: np.ndarray, k: int) -> np.ndarray:
    """``cv2.morphologyEx(mask, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE,
    (k, k)))``, the same pixels, faster for a large kernel.

    OpenCV visits each of the ellipse's ~0.8 k² points per pixel; from k = 21 it is cheaper to take
    the ellipse row by row: a 1 × (2a + 1) erosion (dilation) per distinct half-width a, then the
    minimum (maximum) of those rows shifted by each row's offset. Outside the mask counts as
    neither (OpenCV's default border for morphology), hence the clipped row ranges.

    Args:
        mask: (H, W) uint8.
        k: odd kernel size >= 3.

    Returns:
        (H, W) uint8.
    """
    if k < 21:
        return cv2.morphologyEx(mask, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    if k not in _ELLIPSE_ROWS:
        ell = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
        half = [k // 2 - int(np.flatnonzero(row)[0]) for row in ell]  # rows are centred spans
        _ELLIPSE_ROWS[k] = (half, {a: np.ones((1, 2 * a + 1), np.uint8) for a in set(half)})
    half, kernels = _ELLIPSE_ROWS[k]
    c, h = k // 2, mask.shape[0]

    def by_rows(src, op, pick):
        rows = {a: op(src, kern) for a, kern in kernels.items()}
        out = rows[half[c]].copy()
        for r in range(k):
            dy = r - c
            y0, y1 = max(0, -dy), min(h, h - dy)
            if dy and y1 > y0:
                pick(out[y0:y1], rows[half[r]][y0 + dy:y1 + dy], out=out[y0:y1])
        return out

    return by_rows(by_rows(mask, cv2.erode, np.minimum), cv2.dilate, np.maximum)


def _dedupe(quads: list[np.ndarray]) -> list[np.ndarray]:
    """Drop near-copies (same centre within 3 % of the size, area within 7 %), larger first;
    the outline and the inside of a card, and the two edge passes, give many."""
    if not quads:
        return []
    areas = np.array([abs(cv2.contourArea(q)) for q in quads])
    centres = np.stack(quads).mean(axis=1)  # each quad's mean corner, as q.mean(axis=0) gives it
    # Only finds near enough by a cheap squared distance (with slack) are tested as before: most
    # quads of a photo are far from each other. The cheap test for all pairs at once (near[i, k]:
    # k may drop i), so that the loop below only picks the kept ones out of a row.
    d2 = ((centres[:, None] - centres[None]) ** 2).sum(axis=2)
    size = np.sqrt(areas)
    near = (d2 <= ((0.03 * size) ** 2 * 1.001 + 1e-9)[:, None]) & (areas[:, None] > 0.93 * areas[None])
    kept: list[int] = []
    is_kept = np.zeros(len(quads), bool)
    for i in np.argsort(-areas):
        if any(np.linalg.norm(centres[i] - centres[k]) < 0.03 * size[i] and areas[i] > 0.93 * areas[k]
               for k in np.flatnonzero(near[i] & is_kept)):
            continue
        kept.append(int(i))
        is_kept[i] = True
    return [quads[i] for i in kept]


#: Where along a side (fraction of its length) refine_quads samples it.
_SIDE_T = np.linspace(0.1, 0.9, _SIDE_SAMPLES, dtype=np.float32)


@functools.lru_cache(maxsize=64)
def _offsets(k: int) -> np.ndarray:
    """(k,) float32 ``np.linspace(-1, 1, k)``: refine_quads' sample offsets across a side (× its
    reach), made once per k (read-only)."""
    offs = np.linspace(-1.0, 1.0, k, dtype=np.float32)
    offs.flags.writeable = False
    return offs


def _lengths(v: np.ndarray) -> np.ndarray:
    """(...,) lengths of (..., 2) vectors: ``np.linalg.norm(v, axis=-1)``, the same float operations
    (the squares' sum, then its root) without its per-call overhead."""
    return np.sqrt(v[..., 0] * v[..., 0] + v[..., 1] * v[..., 1])


def _pick(x: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """``np.take_along_axis(x, idx[..., None], -1)[..., 0]``: one value of each last-axis row of ``x``
    (..., K) at ``idx`` (...,), picked from the flat rows (the same values, a few numpy calls fewer)."""
    rows = x.reshape(-1, x.shape[-1])
    return rows[np.arange(len(rows)), idx.reshape(-1)].reshape(idx.shape)


def _line_intersections(points: np.ndarray, dirs: np.ndarray) -> np.ndarray:
    """Corner i = side (i-1) ∩ side i, for lines through points (..., 4, 2) along dirs (..., 4, 2);
    (..., 4, 2) float32 (inf or nan where two sides are parallel)."""
    one = np.ones(points.shape[:-1] + (1,))
    la = _cross3(np.concatenate([points, one], -1), np.concatenate([points + dirs, one], -1))  # homogeneous lines
    corners = _cross3(la[..., _PREV, :], la)
    with np.errstate(divide="ignore", invalid="ignore"):
        return (corners[..., :2] / corners[..., 2:3]).astype(np.float32)


def _cross3(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``np.cross(a, b)`` of (..., 3) float64 arrays, written out: the same products and differences
    (numpy's own, ``a1·b2 − a2·b1`` ...), without its axis moves (half of a one-card
    :func:`refine_quads`, which the game's tracker runs for every card it finds)."""
    a0, a1, a2 = a[..., 0], a[..., 1], a[..., 2]
    b0, b1, b2 = b[..., 0], b[..., 1], b[..., 2]
    return np.stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], axis=-1)


def refine_quads(frame: np.ndarray, quads: list[np.ndarray], search_px: float | None = None
                 ) -> list[tuple[np.ndarray, float]]:
    """See :func:`refine_quads_sides`, without each side's own support."""
    return [r[:3] for r in refine_quads_sides(frame, quads, search_px)]


def refine_quads_sides(frame: np.ndarray, quads: list[np.ndarray], search_px: float | None = None
                       ) -> list[tuple[np.ndarray, float, bool, np.ndarray]]:
    """Snap each quad's sides to the strongest straight colour step near them, at full res.

    Args:
        frame: (H, W, 3) uint8 BGR.
        quads: (4, 2) float32 px each, in :func:`order_quad` order.
        search_px: how far (px) either side of the current side to look; default 5 % of the
            side's length, at least 5 px.

    Returns:
        For each quad, ``(refined quad (4, 2) float32 px, support, all_sides)``. ``support``
        (0..1, 1 = good) rates the three best-backed sides by the fraction of their samples lying
        on a strong step within 2 px of the fitted line (see ``_SUPPORT_MIN_*``) and is 0 when
        the fit fails; ``all_sides`` says whether the fourth side is backed as well.
        :func:`refine_quads_sides` adds each side's own share so backed, (4,) float32 in quad
        side order (side i runs from corner i to corner i+1; zeros where the fit failed).
    """
    if not quads:
        return []
    if len(quads) > _REFINE_RUN:
        # cv2.remap takes maps of at most SHRT_MAX rows (4 sides × _SIDE_SAMPLES per quad).
        return [r for i in range(0, len(quads), _REFINE_RUN)
                for r in refine_quads_sides(frame, quads[i:i + _REFINE_RUN], search_px)]
    t = _SIDE_T
    q = np.stack(quads).astype(np.float32)  # (N, 4, 2)
    a, b = q, q[:, _NEXT]
    length = _lengths(b - a)  # (N, 4)
    e = (b - a) / np.maximum(length, 1e-6)[..., None]
    normal = np.stack([e[..., 1], -e[..., 0]], axis=-1)  # outward for clockwise (y-down) order
    r = np.maximum(5.0, 0.05 * length) if search_px is None else np.full_like(length, search_px)
    k = 2 * int(np.ceil(r.max())) + 1
    offs = _offsets(k)  # × r per side
    base = a[:, :, None, :] + (b - a)[:, :, None, :] * t[None, None, :, None]  # (N, 4, S, 2)
    d = offs[None, None, None, :] * r[:, :, None, None]  # (N, 4, 1, K)
    n = len(quads)
    # The sample points (N, 4, S, K), x and y each on its own: the same float32 operations as on
    # (N, 4, S, K, 2) points, without numpy's slow inner loop of 2. One map row per side: remap
    # reads each output pixel at its own map entry, so the layout changes no pixel, and OpenCV's
    # row blocks cost less on longer rows (under SHRT_MAX, as cv2.remap requires).
    rows = n * 4 if _SIDE_SAMPLES * k < 32767 else n * 4 * _SIDE_SAMPLES
    mapx, mapy = ((base[:, :, :, None, i] + normal[:, :, None, None, i] * d).reshape(rows, -1) for i in (0, 1))
    prof = cv2.remap(frame, mapx, mapy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    prof = prof.reshape(n, 4, _SIDE_SAMPLES, k, 3).astype(np.int16)
    # Summed over B, G, R as three planes (numpy reduces a last axis of 3 several times slower);
    # small integers, so exact in int16 and in the float32 they become.
    diff = np.abs(prof[:, :, :, 2:] - prof[:, :, :, :-2])
    step = (diff[..., 0] + diff[..., 1] + diff[..., 2]).astype(np.float32)  # (N, 4, S, K-2)
    # The card's own edge is the *outermost* strong step: inside it lie printed frames and art
    # that can be stronger (an orange rim on a navy back), outside only the table. So take the
    # outermost local peak reaching half the profile's maximum.
    peak = step >= 0.5 * step.max(axis=-1, keepdims=True)
    peak[..., 1:] &= step[..., 1:] >= step[..., :-1]
    peak[..., :-1] &= step[..., :-1] >= step[..., 1:]
    best = (step.shape[-1] - 1) - peak[..., ::-1].argmax(axis=-1)
    strength = _pick(step, best)
    # Step per sample spacing varies with r; express it per 2 px so one threshold fits all.
    spacing = (2.0 * r / (k - 1))[:, :, None]
    strength = strength * (2.0 / np.maximum(2.0 * spacing, 1e-6))
    # Parabolic peak interpolation for sub-sample positions.
    i = np.clip(best, 1, k - 4)
    s0, s1, s2 = _pick(step, i - 1), _pick(step, i), _pick(step, i + 1)
    den = s0 - 2 * s1 + s2
    frac = np.where(np.abs(den) > 1e-6, 0.5 * (s0 - s2) / np.where(np.abs(den) > 1e-6, den, 1), 0.0)
    pos = (i + 1 + np.clip(frac, -0.5, 0.5)) * spacing - r[:, :, None]  # offset along normal, px
    edge_pts = base + normal[:, :, None, :] * pos[..., None]  # (N, 4, S, 2)
    good = strength >= _EDGE_MIN

    # Weighted total-least-squares line per side (closed-form 2×2 PCA), twice: the second pass
    # keeps only samples within 2 px of the first line, which discards steps on printed art or
    # table texture that a window happened to catch (an M-estimator in two rounds, cf. Huber).
    w = good.astype(np.float32)
    w = np.where(w.sum(axis=-1, keepdims=True) >= 4, w, 1.0)
    for _ in range(2):
        ws = np.maximum(w.sum(axis=-1), 1e-6)
        mu = (edge_pts * w[..., None]).sum(axis=2) / ws[..., None]  # (N, 4, 2)
        dpt = edge_pts - mu[:, :, None, :]
        sxx = (w * dpt[..., 0] ** 2).sum(-1)
        syy = (w * dpt[..., 1] ** 2).sum(-1)
        sxy = (w * dpt[..., 0] * dpt[..., 1]).sum(-1)
        theta = 0.5 * np.arctan2(2 * sxy, sxx - syy)
        direc = np.stack([np.cos(theta), np.sin(theta)], axis=-1)  # (N, 4, 2)
        nrm = np.stack([direc[..., 1], -direc[..., 0]], axis=-1)
        resid = np.abs((dpt * nrm[:, :, None, :]).sum(-1))  # (N, 4, S)
        inl = good & (resid <= 2.0)
        w = np.where(inl.sum(axis=-1, keepdims=True) >= 4, inl.astype(np.float32), w)
    sup = inl.mean(axis=-1)  # (N, 4)

    every = _line_intersections(mu.astype(np.float64), direc.astype(np.float64))  # (N, 4, 2), all at once
    # Corner i = side(i-1) ∩ side(i) is quad corner i (side i runs from corner i); a fit whose
    # corners are not finite or ran far from the quad failed. All quads at once.
    with np.errstate(invalid="ignore"):
        failed = ~np.isfinite(every).all(axis=(1, 2)) | (np.abs(every - q).max(axis=(1, 2)) > 3 * r.max(axis=1) + 2)
    # Three sides must be clearly there; the fourth may be invisible (a dark title band on a
    # dark table) — such finds are flagged so the caller also tries completing them.
    best3 = np.sort(sup, axis=1)[:, 1:]
    support = np.minimum(best3[:, 0] / _SUPPORT_MIN_SIDE, best3.mean(axis=1) / _SUPPORT_MIN_MEAN)
    support = np.minimum(1.0, support).tolist()
    all_sides = (sup.min(axis=1) >= _SUPPORT_MIN_SIDE).tolist()
    return [(q[ci], 0.0, False, np.zeros(4, np.float32)) if failed[ci]
            else (every[ci], support[ci], all_sides[ci], sup[ci].astype(np.float32)) for ci in range(n)]


def pixels_in(quad_px: np.ndarray, *masks: np.ndarray) -> tuple[int, ...]:
    """Pixels inside a convex quad, then how many of them are set in each mask.

    Args:
        quad_px: (4, 2) px, rounded as :func:`cv2.fillConvexPoly` fills it, clipped to the image.
        masks: (H, W) uint8 or bool, all of one shape.

    Returns:
        ``(inside, set in masks[0], set in masks[1], ...)``, worked out within the quad's
        bounding box.
    """
    pts = np.round(quad_px).astype(np.int32)
    hgt, wid = masks[0].shape
    x0, y0 = max(0, int(pts[:, 0].min())), max(0, int(pts[:, 1].min()))
    x1, y1 = min(wid, int(pts[:, 0].max()) + 1), min(hgt, int(pts[:, 1].max()) + 1)
    if x1 <= x0 or y1 <= y0:
        return (0,) * (len(masks) + 1)
    m = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillConvexPoly(m, pts - np.array([x0, y0], np.int32), 255)
    return (np.count_nonzero(m),) + tuple(np.count_nonzero(m & k[y0:y1, x0:x1]) for k in masks)


def _inside(pt: np.ndarray, quad: np.ndarray) -> bool:
    return cv2.pointPolygonTest(quad.reshape(-1, 1, 2), (float(pt[0]), float(pt[1])), False) >= 0


def points_in_quads(points, quads) -> np.ndarray:
    """Which points lie inside (or on the outline of) which polygons: ``_inside(p, q)`` for every
    pair at once, the same answer as ``cv2.pointPolygonTest(q, p, False) >= 0`` bit for bit.

    The finder, the one-per-place pass and the covered-card pass test a few hundred to two thousand
    centres against quads per photo, one OpenCV call (a few µs of overhead) each. This is OpenCV's
    own crossing-number test (``pointPolygonTest``, its float branch) in numpy: the point rounded to
    float32 as OpenCV's ``Point2f`` takes it, coordinate differences in float32, their products in
    float64 (exact: a float32 times a float32 fits a float64), so that each edge's sign, and a point
    on an edge or a corner (counted inside), come out as OpenCV's do.

    Args:
        points: (P, 2) px (any float or integer dtype; rounded to float32 as OpenCV does).
        quads: (Q, K, 2) px, or a sequence of Q (K, 2) arrays of one K: float32 or int32 polygons
            (the dtypes ``cv2.pointPolygonTest`` takes; int32 corners are exact in float32).

    Returns:
        (P, Q) bool.
    """
    pt = np.asarray(points, np.float64).reshape(-1, 2).astype(np.float32)
    if not isinstance(quads, np.ndarray):
        quads = [np.asarray(q).reshape(-1, 2) for q in quads]
        if len({len(q) for q in quads}) > 1:  # polygons of different corner counts: one at a time
            return np.column_stack([points_in_quads(pt, q[None]) for q in quads])
    v = np.asarray(quads).reshape(len(quads), -1, 2).astype(np.float32) if len(quads) else np.zeros((0, 4, 2), np.float32)
    if not len(pt) or not len(v):
        return np.zeros((len(pt), len(v)), bool)
    px, py = pt[:, 0, None, None], pt[:, 1, None, None]  # (P, 1, 1)
    vx, vy = v[None, :, :, 0], v[None, :, :, 1]  # (1, Q, K): edge i runs from corner i − 1 to corner i
    v0x, v0y = np.roll(vx, 1, axis=2), np.roll(vy, 1, axis=2)
    skip = ((v0y <= py) & (vy <= py)) | ((v0y > py) & (vy > py)) | ((v0x < px) & (vx < px))
    # A skipped edge still ends the test (as "on the outline") if the point is its end corner, or
    # lies on it when it is horizontal.
    on = skip & (py == vy) & ((px == vx) | ((py == v0y) & (((v0x <= px) & (px <= vx)) | ((vx <= px) & (px <= v0x)))))
    dist = ((py - v0y).astype(np.float64) * (vx - v0x).astype(np.float64)
            - (px - v0x).astype(np.float64) * (vy - v0y).astype(np.float64))
    on |= ~skip & (dist == 0)
    dist = np.where(vy < v0y, -dist, dist)
    crossings = (~skip & (dist > 0)).sum(axis=2)
    return on.any(axis=2) | (crossings % 2 == 1)


class Completion(np.ndarray):
    """A (4, 2) float32 quad that :func:`find_card_groups` made by stretching a too-square find to
    a card's shape (:func:`_completions`), not an outline it found: its far end is a guess and can
    take in what lies beyond the part found. :func:`classify_groups` bounds such a quad's mark count
    by two of its label's cards (:meth:`companion.vision.deck.Deck.marks_agree`, ``bounded``).
    A view of the array; anything that copies it into a plain array (``np.asarray``) drops the tag."""


def _completions(q: np.ndarray, aspect: float | None = None) -> list[np.ndarray]:
    """Whole-card hypotheses for a too-square quad: stretched to the card's aspect past its top
    side, or past its bottom side (``aspect``: ``_aspect(q)``, if known); each a
    :class:`Completion`."""
    k = CARD_ASPECT / (_aspect(q) if aspect is None else aspect)
    top, bottom = np.array(q), np.array(q)
    top[0], top[1] = q[3] + (q[0] - q[3]) * k, q[2] + (q[1] - q[2]) * k
    bottom[3], bottom[2] = q[0] + (q[3] - q[0]) * k, q[1] + (q[2] - q[1]) * k
    return [top.view(Completion), bottom.view(Completion)]


def find_card_groups(frame: np.ndarray, min_area_frac: float = 0.0015, max_area_frac: float = 0.4,
                     coarse: bool = False, rough: list[np.ndarray] | None = None
                     ) -> list[tuple[list[np.ndarray], bool]]:
    """Find cards, keeping alternative outlines where the geometry alone cannot decide.

    Args:
        frame: (H, W, 3) uint8 BGR, any size.
        min_area_frac, max_area_frac: card area bounds as fractions of the image area.
        coarse: find the outlines on an edge map at ``_COARSE`` of the usual working size, where
            a fine texture touching a card all round (carpet pile, wood grain) is smoothed away;
            :func:`read_card_results` looks again so when the usual pass named no card.

    Returns:
        One ``(hypotheses, partial)`` per object found, sorted top to bottom then left to right.
        ``hypotheses`` are (4, 2) float32 quads in image px, :func:`order_quad` order. For a
        card-shaped find it is that quad (plus its two completions if it is on the square side
        of a card, ``_ASPECT_DOUBT``) and ``partial`` is False. For a too-square find
        (``partial`` True) it is the two ways of completing the quad as found to a card (see
        ``_completions``: past its top side, past its bottom side, each a :class:`Completion`;
        ``_part_of`` recovers the quad), preceded by the quad itself if it is no squarer than
        ``_ASPECT_TILT`` (a whole card foreshortened by a slanted camera); the caller picks one by
        classifying them, and should drop a partial find that matches no enrolled card.

    Raises:
        ValueError: ``frame`` is not (H, W, 3).
    """
    if frame.ndim != 3 or frame.shape[2] != 3:
        raise ValueError(f"expected an (H, W, 3) BGR image, got shape {frame.shape}")
    if frame.size == 0:
        return []  # an empty image shows no card
    h, w = frame.shape[:2]
    area = float(h * w)
    lo, hi = min_area_frac * area, max_area_frac * area
    rough = _ordered(_candidates(frame, lo, hi, _COARSE if coarse else 1.0) if rough is None else rough)
    first, weak = [], []
    snapped = refine_quads(frame, rough)
    ordered = _ordered([q for q, _, _ in snapped])
    for q, shaped, (_, support, all_sides) in zip(ordered, _card_shaped(ordered).tolist(), snapped):
        if support >= 1.0 and shaped:
            first.append(q)
            weak.append(not all_sides)
    # A second, narrow pass: the wide first window may have caught a neighbouring edge; now each
    # side is within a pixel or so of its true place.
    narrow = [(q, wk) for (q, s, _), wk in zip(refine_quads(frame, first, search_px=3.0), weak) if s > 0]
    second = _ordered([q for q, _ in narrow])
    # Each quad's area, aspect and corner test once, the last two for all at once (_shape_stats).
    aspects, square = (v.tolist() for v in _shape_stats(second))
    second = [(q, wk, ar, asp) for q, (_, wk), ar, asp, sq
              in zip(second, narrow, [abs(cv2.contourArea(q)) for q in second], aspects, square)
              if 0.6 * lo <= ar <= hi and sq]
    second.sort(key=lambda s: -s[2])
    doubtful = {id(q) for q, wk, _, _ in second if wk}
    refined = [q for q, _, _, _ in second]
    # Which quad's centre lies in which quad, for all pairs at once (the loop below asks of up to
    # all pairs, one OpenCV call each).
    cents = [q.mean(axis=0) for q in refined]
    within = points_in_quads(np.stack(cents), refined) if refined else np.zeros((0, 0), bool)
    kept: list[int] = []  # indices into refined
    kept_area: list[float] = []
    container = set()
    for i, (q, _, area, aspect) in enumerate(second):
        dup = False
        # The first kept quad (in order kept) holding this one's centre or centred in this one.
        hits = np.flatnonzero(within[i, kept] | within[kept, i]) if kept else ()
        if len(hits):
            ki = int(hits[0])
            if area > 0.5 * kept_area[ki]:
                dup = True  # the same card found twice (outline and inner region)
            elif aspect < _ASPECT_MIN and area < _MARK_MAX * kept_area[ki]:
                # A mark printed on the card (a pip): the card stays, and so does the mark. (A
                # part-card that small inside a large printed box leaves the box too; the reader
                # keeps whichever of the two the deck names.)
                pass
            else:
                container.add(ki)
        if not dup:
            kept.append(i)
            kept_area.append(area)
    kept = [j for ki, j in enumerate(kept) if ki not in container]
    kept.sort(key=lambda j: (round(float(refined[j][:, 1].mean()) / 20.0), float(refined[j][:, 0].mean())))
    groups = []
    for j in kept:
        q, a = refined[j], second[j][3]
        if a < _ASPECT_MIN:
            groups.append((([q] if a >= _ASPECT_TILT else []) + _completions(q, a), True))
        elif a < _ASPECT_DOUBT or id(q) in doubtful:
            groups.append(([q] + _completions(q, a), False))
        else:
            groups.append(([q], False))
    return groups


def find_cards(frame: np.ndarray, min_area_frac: float = 0.0015, max_area_frac: float = 0.4
               ) -> list[np.ndarray]:
    """Find card-shaped quads in a photo of a table (geometry only, no deck).

    Algorithm: see the module doc. Nothing here knows what cards look like beyond their
    outline, so a card-shaped box printed on the table is returned too (it classifies as
    ``"unknown"`` unless it holds cards, in which case it gives way to them). Too-square finds
    (possibly part of a card) are left out; :func:`read_cards` completes them with the deck.

    Args:
        frame: (H, W, 3) uint8 BGR, any size.
        min_area_frac, max_area_frac: card area bounds as fractions of the image area.

    Returns:
        List of (4, 2) float32 quads, image px, in :func:`order_quad` order, sorted top to
        bottom then left to right by centre.

    Raises:
        ValueError: ``frame`` is not (H, W, 3).
    """
    return [hyps[0] for hyps, partial in find_card_groups(frame, min_area_frac, max_area_frac) if not partial]


def classify_groups(frame: np.ndarray, groups: list[tuple[list[np.ndarray], bool]], deck,
                    refused: list | None = None) -> tuple[list, list[np.ndarray]]:
    """Classify every hypothesis of every group in one batch and keep the best per group.

    Args:
        refused: if given, a list this appends to: for each partial group dropped (into
            ``unread``) whose quad as found (a too-square find offered as itself, down to
            ``_ASPECT_TILT``) reads nearly as a card on the whole-card score (at most
            ``_LOOK_AGAIN_BAND`` under the deck's threshold) but was not named, that reading as "unknown"
            (:class:`companion.vision.deck.Classification`, the quad as found). :func:`read_cards`
            reports it where nothing else was (:func:`_with_refused`).

    Returns:
        ``(readings, unread)``: one :class:`companion.vision.deck.Classification` per group kept,
        and the quads (as found) of the partial groups dropped because no hypothesis of theirs
        read as enrolled: a part of a card, or of something else, that
        :mod:`companion.vision.card_search` may complete.
    """
    from companion.rules.sushi_go.cards import UNKNOWN
    from companion.vision.deck import checked, classify_quads

    flat = [q for hyps, _ in groups for q in hyps]
    # The check on the label's examples and the exposure look (a clipped card's look costs up to
    # 100 ms) change no score, only a name: they are run on the hypotheses whose name is used, the
    # best-scoring one and the outline as found, and the choice below comes out as if all had them.
    results = classify_quads(frame, flat, deck, checks=False)
    out, unread, i = [], [], 0
    for hyps, partial in groups:
        rs = results[i:i + len(hyps)]
        i += len(hyps)
        b = max(range(len(rs)), key=lambda k: rs[k].score)  # the first best, as max(rs, ...) picks
        # A part-card stretched to a card's shape (find_card_groups tags it a Completion) can run
        # past the part found onto what lies beyond: its mark count is bounded by two of its
        # label's cards (Deck.marks_agree); an outline found is not.
        bounded = [isinstance(q, Completion) for q in hyps]
        best = checked(frame, rs[b], deck, bounded[b])
        # ... and, where its label is one the mark count judges (its examples agree on a count: a
        # pip card on paper), it must end on paper, not on the table (_stretched_onto_paper).
        if bounded[b] and best.label != UNKNOWN and deck.judges_marks(deck.labels.index(best.label)) \
                and not _stretched_onto_paper(frame, hyps, b):
            best = replace(best, label=UNKNOWN, confidence=0.5)
        first = best if b == 0 else None  # rs[0] checked, once it is needed
        if not partial and b != 0 and best.score < rs[0].score + _PREFER_FOUND:
            first = checked(frame, rs[0], deck, bounded[0])
            if first.label != UNKNOWN:
                best = first  # a measured outline beats an extrapolated one unless clearly worse
        if best.label == UNKNOWN:
            if partial:
                unread.append(_part_of(hyps))
                if refused is not None and not isinstance(hyps[0], Completion) \
                        and rs[0].score >= deck.threshold - _LOOK_AGAIN_BAND:
                    # A card by its whole face (at most _LOOK_AGAIN_BAND under the threshold, as
                    # _look_again takes a near miss for a card), not named (a queen's art counted
                    # as too many marks; a king at 0.68 under 0.72): found, so reported "unknown"
                    # if nothing else is named there. (A lower floor, threshold - 0.15, found no
                    # more card on the real photos' dev half, draws 0 and 1.)
                    refused.append(replace(rs[0], label=UNKNOWN, confidence=0.5))
                continue
            # Nothing matched: report the outline as found, not a guess.
            best = first if first is not None else checked(frame, rs[0], deck, bounded[0])
        out.append((partial, best))
    return _one_per_place(out), unread


def _stretched_onto_paper(frame: np.ndarray, hyps: list[np.ndarray], k: int) -> bool:
    """Whether the completion ``hyps[k]`` (one of the last two, :func:`_completions`) ends on
    paper: the band along its new far side is paper like the part found's, as a card built from a
    corner must be all round (:func:`companion.vision.card_corners.paper_shares`, its ``BAND``,
    ``PAPER_*``: at least ``PAPER_SHARE`` of the band within ``PAPER_CHROMA`` of the paper and
    ``PAPER_LIGHT`` of its lightness). A part-card stretched past its found side runs under what
    lies there (another card's paper: kept) or onto the table (stop 44's drawn fan, a two over a
    three on felt: the completion past the two's found top took in the felt and read "one",
    its mark count 1-2 where the two cards show 5). Asked only for a label whose examples agree
    on a mark count (a pip card on white paper, as the ``bounded`` mark count): an illustrated
    card's coloured rim is no paper to compare (on stop 43's ``cover_ill`` mat scenes, asked of
    every completion it turned 2 wrong names "unknown" but lost 3 right ones).

    Args:
        frame: (H, W, 3) uint8 BGR.
        hyps: a partial group's hypotheses, its two completions last.
        k: the index of the completion read.
    """
    from companion.vision.card_corners import PAPER_SHARE, paper_shares

    q = np.asarray(hyps[k], np.float32)
    # paper_shares takes the paper from the sides q[0]-q[1] and q[0]-q[3]: the part's found side
    # opposite the stretch and one long side; its third share is the band along q[3]-q[2].
    if k == len(hyps) - 2:  # stretched past its top: q[0], q[1] new
        q = q[[3, 2, 1, 0]]
    return paper_shares(frame, q)[2] >= PAPER_SHARE


def _part_of(completions: list[np.ndarray]) -> np.ndarray:
    """The part-card a partial group was completed from: where its two completions overlap."""
    top, bottom = completions[-2], completions[-1]
    return np.stack([bottom[0], bottom[1], top[2], top[3]]).astype(np.float32)


def _one_per_place(out: list) -> list:
    """A completed part-card can land on a card that was also found whole: keep one per place,
    whole finds first, named before "unknown", then the better match; sorted top to bottom, then
    left to right."""
    from companion.rules.sushi_go.cards import UNKNOWN

    out = sorted(out, key=lambda pb: (pb[0], pb[1].label == UNKNOWN, -pb[1].score))
    # Which reading's centre lies in which reading's quad, all pairs at once.
    within = points_in_quads(np.stack([r.quad.mean(axis=0) for _, r in out]), [r.quad for _, r in out]) \
        if out else np.zeros((0, 0), bool)
    kept: list[int] = []
    for i in range(len(out)):
        if not kept or not (within[i, kept] | within[kept, i]).any():
            kept.append(i)
    readings = [out[i][1] for i in kept]
    readings.sort(key=_reading_order)
    return readings


def _reading_order(r) -> tuple:
    """Sort key of a reading: top to bottom (in rows 20 px high), then left to right."""
    return round(float(r.quad[:, 1].mean()) / 20.0), float(r.quad[:, 0].mean())


def _face_up(frame: np.ndarray, quad: np.ndarray, deck, label: int) -> np.ndarray:
    """(4, 2) float32 ``quad`` in :func:`order_quad` order, turned by 180° if ``label`` matches it
    best that way up (an "unknown" reading keeps its quad as found, not face up)."""
    from companion.vision.deck import card_patches, describe

    q = order_quad(quad)
    _, turned = deck.match(describe(card_patches(frame, [q]), deck.balanced))
    return np.roll(q, -2, axis=0) if turned[0, label] else q


def _look_again(frame: np.ndarray, readings: list, deck) -> list:
    """Readings that fell just under the deck's threshold, read again on an aligned outline.

    A card whose outline was found a little off (a side on a shadow, a far card's corners) scores
    under the threshold although its face is clearly its best label's. Such a reading (whole-card
    score within ``_LOOK_AGAIN_BAND`` under the threshold) has its outline lined up with that
    label's nearest example (:meth:`companion.vision.deck.Deck.aligned_quad`) and is classified
    again, whole: the threshold (less ``_LOOK_AGAIN_SLACK``), look-alike stage and check on the
    label's examples decide, so a card is only named when the aligned outline reads about as well
    as a card found right does, and then only if it differs from the example evenly, not in one
    place (``_EVEN_PEAK``).
    Readings the deck judged undecided (at or over the threshold) are left as they are.

    Args:
        frame: (H, W, 3) uint8 BGR.
        readings: :class:`companion.vision.deck.Classification` objects.
        deck: the enrolled deck.

    Returns:
        ``readings`` with each reading that reads named after the alignment replaced.
    """
    from companion.rules.sushi_go.cards import UNKNOWN
    from companion.vision.deck import classify_quads

    out = list(readings)
    for i, r in enumerate(readings):
        if r.label != UNKNOWN or r.scores is None or not deck.threshold - _LOOK_AGAIN_BAND <= r.score < deck.threshold:
            continue
        best = int(np.argmax(r.scores))
        quad = deck.aligned_quad(frame, _face_up(frame, r.quad, deck, best), best)
        if quad is None:
            continue
        again = classify_quads(frame, [quad], deck, threshold=deck.threshold - _LOOK_AGAIN_SLACK)[0]
        if again.label == deck.labels[best] and deck.residual_peak(frame, again.quad, best) <= _EVEN_PEAK:
            out[i] = again
        elif again.label != UNKNOWN and again.label == _counted(deck, frame, again, best):
            out[i] = again  # named by its mark count, which refused its best label (Deck.counted_label)
    return out


def _counted(deck, frame: np.ndarray, reading, label: int) -> str | None:
    """The name :meth:`companion.vision.deck.Deck.counted_label` gives ``reading``'s card where its
    count refuses ``label``, or None."""
    k = deck.counted_label(frame, reading.quad, reading.scores, label)
    return deck.labels[k] if k >= 0 else None


def _halves(quad: np.ndarray, fracs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The two parts of ``quad`` cut across its long sides at each fraction of ``fracs``.

    Args:
        quad: (4, 2) float32 px, :func:`order_quad` order.
        fracs: (F,) float, where along the long sides (from the first corner's end) the cut lies.

    Returns:
        ``(first, second)``: (F, 4, 2) float32 each, clockwise; ``first`` holds the corner the long
        sides start from, ``second`` the rest.
    """
    q = np.asarray(quad, np.float32)
    s = _side_lengths(q[_NEXT] - q)
    if s[0] + s[2] < s[1] + s[3]:
        q = np.roll(q, -1, axis=0)  # sides 0 (q0 → q1) and 2 (q2 → q3) are the long ones
    f = np.asarray(fracs, np.float32)[:, None]
    top = q[0] + f * (q[1] - q[0])  # (F, 2) on side 0
    bottom = q[3] + f * (q[2] - q[3])  # (F, 2) on side 2, the same way along
    n = len(f)
    first = np.stack([np.broadcast_to(q[0], (n, 2)), top, bottom, np.broadcast_to(q[3], (n, 2))], axis=1)
    second = np.stack([top, np.broadcast_to(q[1], (n, 2)), np.broadcast_to(q[2], (n, 2)), bottom], axis=1)
    return first.astype(np.float32), second.astype(np.float32)


def _split_pairs(frame: np.ndarray, readings: list, unread: list[np.ndarray], deck,
                 near: list | None = None) -> tuple[list, list]:
    """Two cards that touch along their long sides, found as one outline, read as two.

    With no gap between them, two cards side by side have one outline, and it has a card's shape:
    two short sides (44 mm each) by one long side (63 mm) is 88:63, about a card's 63:44. The deck
    names no card there. Such an outline (read "unknown" under the deck's threshold, or a too-square
    find that read as nothing: ``unread``) is cut across its long sides at ``_SPLIT_FRACS`` of their
    length (one card may lie partly under the other: the cut is where it meets the top card's
    edge), and each part is read as a card, whole, with the deck's every stage and check. The part
    on either side of the cut that reads best is reported if named ``card_search.WINDOW_MARGIN``
    over the threshold (the best of many tries must clearly win: a white envelope's part read 0.01
    over it); the outline gives way to what is named there. If one side only is named, the rest of
    the outline is what shows of a card lying partly under it, read as a covered card
    (:func:`companion.vision.covered.read_covered`). Only where the photo's card size is known (cards
    named elsewhere, by their outlines or, where those named none, by the window search at a guessed
    size: with none, a pair and a lone card have the same shape), and the outline must
    be about two cards' area (``_PAIR_AREA``): a card read "unknown" is not cut in two, and a part
    must be of a card's size, so half a card is not named as a card (a symbol card's half is a
    card of half as many symbols) where the photo's cards are of one size (perspective may make a
    near card look twice a far one's area: see ``near``).

    Args:
        frame: (H, W, 3) uint8 BGR.
        readings: :class:`companion.vision.deck.Classification` objects, as read so far.
        unread: (4, 2) float32 quads of too-square finds no hypothesis of which read as a card.
        deck: the enrolled deck.
        near: if given, (4, 2) quads: only an outline overlapping one of them is cut. Where the
            card size was only guessed by the window search from the cards it found, it holds for
            those cards' own place alone: cards nearer the camera look bigger, and an unknown card
            there of twice a far card's area would be cut into two halves named as cards.

    Returns:
        ``(readings, unread)`` with each outline cut so replaced by the cards named in it.
    """
    from companion.rules.sushi_go.cards import UNKNOWN
    from companion.vision import card_search
    from companion.vision.card_search import overlap_area
    from companion.vision.covered import read_covered
    from companion.vision.deck import classify_quads

    size = card_search.card_size(readings)
    if size is None:
        # Two cards side by side (88:63) have about one card's shape (63:44): with no card named,
        # nothing tells a pair from a lone card read "unknown", whose halves (44:31.5) are card-
        # shaped too and may read as cards.
        return readings, unread
    card_area = size[0] * size[1]
    outlines = [(i, np.asarray(r.quad, np.float32)) for i, r in enumerate(readings)
                if r.label == UNKNOWN and r.score < deck.threshold] + [(-1 - j, q) for j, q in enumerate(unread)]
    gone, new = set(), []
    for key, q in outlines:
        area = abs(cv2.contourArea(q))
        if _aspect(q) < _PARTIAL_MIN or not _PAIR_AREA[0] * card_area <= area <= _PAIR_AREA[1] * card_area:
            continue
        if near is not None and not any(overlap_area(q, n) > 0 for n in near):
            continue
        first, second = _halves(order_quad(q), _SPLIT_FRACS)
        cand = [(k, j) for k, side in enumerate((first, second)) for j, p in enumerate(side)
                if _ASPECT_TILT <= _aspect(p) <= _ASPECT_MAX and _square_enough(p)
                and _PART_AREA[0] * card_area <= abs(cv2.contourArea(p)) <= _PART_AREA[1] * card_area]
        if not cand:
            continue
        rs = classify_quads(frame, [(first, second)[k][j] for k, j in cand], deck)
        named = {}
        for (k, j), r in zip(cand, rs):
            if r.label != UNKNOWN and r.score >= deck.threshold + card_search.WINDOW_MARGIN \
                    and (k not in named or r.score > named[k][1].score):
                named[k] = (j, r)
        if not named:
            continue
        gone.add(key)
        new += [r for _, r in named.values()]
        if len(named) == 1:
            # The other card may lie partly under the one named: what shows of it, the rest of
            # the outline, is read as a covered card (that card may run under the named one).
            (k, (j, r)), = named.items()
            rest = (second, first)[k][j]
            # A card read there already, over half of the named card's area, is taken for the same
            # card (the window search found it before the outline was cut, read_card_results): the
            # covered card may run under it as well.
            area_r = abs(cv2.contourArea(np.asarray(r.quad, np.float32)))
            same = [x for x in readings if x.label != UNKNOWN and overlap_area(x.quad, r.quad) > 0.5 * area_r]
            new += [c for c in read_covered(frame, deck, readings + [r], regions=[rest], under=[r] + same)
                    if c.label != UNKNOWN]
    if not gone:
        return readings, unread
    readings = [r for i, r in enumerate(readings) if i not in gone] + new
    # (In the order read_cards promises, as _one_per_place leaves it: top to bottom, left to right.)
    readings.sort(key=_reading_order)
    return readings, [q for j, q in enumerate(unread) if -1 - j not in gone]


#: Where :func:`_split_pairs` cuts an outline, as fractions of its long sides: a card partly under
#: the other shows as a narrower part.
_SPLIT_FRACS = np.arange(0.3, 0.701, 0.05)
#: An outline cut in two is 1.5-2.5 named cards' area where the card size is known, and each part
#: 0.6-1.4 of a card.
_PAIR_AREA = (1.5, 2.5)
_PART_AREA = (0.6, 1.4)


def read_card_results(frame: np.ndarray, deck, refused: list | None = None) -> list:
    """:func:`read_cards` as :class:`companion.vision.deck.Classification` objects (scores kept).

    ``refused``, if given, is passed to the outline passes' :func:`classify_groups` (the cards
    found whole but dropped as parts, for :func:`_with_refused`); it changes no reading returned.

    The outline finder's cards are read first (if it names none, again on a coarser edge map);
    then, at the size of the cards it read, the deck searches what is left over
    (:mod:`companion.vision.card_search`): part-cards, card-shaped finds that read ``"unknown"``,
    and patches that differ from the table. Where the outlines named no card, the search guesses
    the size, and an outline of two touching cards that overlaps a card the search named is cut in
    two (:func:`_split_pairs`). A place the search outlined whole (``card_search.NEAR_BAND``) but
    did not name is read again (:func:`_look_again`); if still unnamed it goes to ``refused``.
    """
    from companion.rules.sushi_go.cards import UNKNOWN
    from companion.vision import card_search

    readings, unread = classify_groups(frame, find_card_groups(frame), deck, refused)
    readings = _readable(_look_again(frame, readings, deck), deck)
    size = card_search.card_size(readings)
    if size is None:
        # No card named: the table's texture may touch every outline; look again, coarser.
        coarse, coarse_unread = classify_groups(frame, find_card_groups(frame, coarse=True), deck, refused)
        coarse = _readable(_look_again(frame, coarse, deck), deck)
        if card_search.card_size(coarse) is not None:
            readings, unread = coarse, coarse_unread
    readings, unread = _split_pairs(frame, readings, unread, deck)
    # After the pairs' split, not before: a core's card would give the split a card size it has not
    # had (one found card's size across the whole photo), and the split would name again a card the
    # core holds (the review: IMG_2648's ace and IMG_2680's nine named twice).
    if card_search.card_size(readings) is None:
        readings = _with_cores(frame, readings, deck)
    size = card_search.card_size(readings)
    if size is None:
        guess = card_search.guess_card_size(frame, deck, readings, unread)
        if guess is None:
            # Nothing named at all: a lone card on a pale table has no closed outline; look for
            # one from its corners (two straight sides).
            from companion.vision.card_corners import read_corner_cards

            found = read_corner_cards(frame, deck)
        else:
            _, found = guess
        kept = [r for r in readings if not any(_inside(r.quad.mean(axis=0), f.quad) for f in found)]
        readings = kept + found
        if found:
            # Now that the search has named cards, the card size is known: an outline of two cards
            # touching, read as nothing, can be cut in two as above (issue #6, IMG_2667 of the real
            # photos: a ten over an ace on a rug, no other card; the search finds the ten only).
            # Only outlines over the search's finds: the size it guessed holds there (near=).
            readings, _ = _split_pairs(frame, readings, unread, deck, near=[f.quad for f in found])
        return _one_per_place([(False, r) for r in readings])
    # A reading of the wrong size is looked at again as a part of something: a card the deck finds
    # there replaces it; if none is found, a weak one is reported as "unknown", a strong one stays.
    bad = card_search.misfits(readings, size)
    weak = {i for i in bad if readings[i].score < deck.threshold + card_search.WINDOW_MARGIN}
    recheck = [r for i, r in enumerate(readings) if i in bad and i not in weak]
    # (confidence 0.5: undecided, as for a look-alike the deck cannot settle, not "matches nothing")
    readings = [replace(r, label=UNKNOWN, confidence=0.5) if i in weak else r for i, r in enumerate(readings)]
    settled = [r for r in readings if not any(r is b for b in recheck)]
    size = card_search.card_size(settled) or size
    differs = card_search.differs_from_table(frame, size, settled)
    regions = card_search.leftover_regions(frame, settled, unread, size, differs, recheck)
    # Gapped outlines (_with_cores) are looked for only where the window search below has no blob to
    # go by: a table too busy for the table estimate (differs None). (Round a blob of a card or more
    # that no card named explains as well, they cost the 20-card mat frame 1.5x its CPU: not kept.)
    if differs is None:
        cored = _with_cores(frame, readings, deck)
        if cored is not readings:  # (readings itself where no core was named)
            readings = cored
            settled = [r for r in readings if not any(r is b for b in recheck)]
    if not regions:
        return readings
    # The search's places that are a card by their outline (four sides backed) but read under its bar
    # are read again as an outline found just under the threshold is (_look_again); one named so
    # joins the search's cards, the rest go to ``refused``: reported "unknown" where nothing else is
    # (_with_refused), found if not named.
    near: list = []
    found = card_search.search_cards(frame, deck, settled, regions, size, differs, near=near)
    for r in _look_again(frame, near, deck):
        if r.label == UNKNOWN:
            if refused is not None:
                refused.append(r)
        elif not any(card_search.overlap_area(r.quad, o.quad) > card_search.OVERLAP_MAX * size[0] * size[1]
                     for o in settled + found if o.label != UNKNOWN):
            found.append(r)
    if not found:
        return readings
    # An "unknown" outline, or a doubtful one, that a card found now covers was part of that card.
    kept = [r for r in readings if (r.label != UNKNOWN and not any(r is b for b in recheck))
            or not any(_inside(r.quad.mean(axis=0), f.quad) for f in found)]
    return _one_per_place([(False, r) for r in kept + found])


def _readable(readings: list, deck) -> list:
    """``readings`` without the outlines too small to be read: a short side under the deck's patch
    width (``deck.PATCH_W``, 30 px). The deck compares a 30 × 43 px patch of each card; a smaller
    outline is read from fewer pixels than the template holds, stretched to it, and its name would
    also set the card size every later path looks for (:func:`card_search.card_size`). Found with
    ``bench/border_cards.py`` seed 96428: an 18 × 31 px white patch with a red mark beside a card's
    corner, on a pasted table's seam, named "ace" (0.76 over a 0.72 threshold), and the photo's jack
    not found at all at that size. The real photos' cards are 135–165 px long.

    Args:
        readings: :class:`companion.vision.deck.Classification` objects, quads (4, 2) px.

    Returns:
        ``readings`` itself if every one is large enough, else a new list without the small ones.
    """
    from companion.rules.sushi_go.cards import UNKNOWN
    from companion.vision import card_search
    from companion.vision.deck import PATCH_W

    def short(r) -> float:
        q = np.asarray(r.quad, np.float32).reshape(4, 2)
        s = _side_lengths(q - q[_NEXT])
        return float(min(s[0] + s[2], s[1] + s[3]) / 2.0)

    bar = deck.threshold + card_search.WINDOW_MARGIN
    kept = [r for r in readings if short(r) >= PATCH_W or (r.label != UNKNOWN and r.score >= bar)]
    return readings if len(kept) == len(readings) else kept


#: A gapped outline's core (:func:`_core_quads`) where no card is named, so no card size to go by: the
#: core is opened at each of these guesses of the card's short side (fraction of the square root of the
#: photo's area at the finder's working size; the finder takes cards from 0.0015 of the area up, about
#: 0.03 of that root for the short side).
_CORE_GUESS = (0.05, 0.08, 0.12)


def _fat_edges(frame: np.ndarray) -> tuple[float, np.ndarray]:
    """The usual pass's thickened edge map of ``frame`` and its scale (working px per image px):
    the one :func:`_candidates` made last if it was of this very frame, else made now.

    Returns:
        ``(scale, fat)``: fat (h, w) uint8, 255 on an edge, at the finder's working size.
    """
    last = _remembered(frame)
    return (last[2], last[5]) if last is not None else _thick_edges(frame)


def _core_quads(frame: np.ndarray, size: tuple[float, float] | None) -> list[np.ndarray]:
    """Card-shaped thick cores of the edge-free part of the thickened edge map: where a card's
    outline has a gap (a blurred side, a side running into a book's edge or a shadow, a corner at
    the photo's border), its inside is no hole of the edge map but runs out through the gap into the
    table, and neither outlines nor holes give it. Opened (eroded, then dilated, by a disc whose
    radius is ``_CORE_OPEN / 2`` of the card's short side, by two distance transforms), a leak
    thinner than ``_CORE_OPEN`` of the short side is cut and the card's inside stands alone: as
    :func:`_hole_core` does for a leaking hole of a card's own area.

    Args:
        frame: (H, W, 3) uint8 BGR.
        size: (short, long) card side, image px, of the cards named; None: ``_CORE_GUESS`` sizes.

    Returns:
        (4, 2) float32 quads, image px (rough: the caller snaps them to the photo's steps).
    """
    scale, fat = _fat_edges(frame)
    fh, fw = fat.shape
    area = float(fh * fw)
    lo, hi = 0.0015 * area, 0.4 * area  # find_card_groups' default bounds
    shorts = [size[0] * scale] if size is not None else [f * np.sqrt(area) for f in _CORE_GUESS]
    out = []
    free = (fat == 0).astype(np.uint8)
    dt = cv2.distanceTransform(free, cv2.DIST_L2, 3)
    for short in shorts:
        r = 0.5 * _CORE_OPEN * short
        eroded = (dt > r).astype(np.uint8)
        if not eroded.any():
            continue
        opened = ((cv2.distanceTransform(1 - eroded, cv2.DIST_L2, 3) <= r) & (free > 0)).astype(np.uint8)
        parts, _ = cv2.findContours(opened, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        for c in parts:
            x, y, bw, bh = cv2.boundingRect(c)
            if (x <= 1 or y <= 1 or x + bw >= fw - 1 or y + bh >= fh - 1) \
                    and _runs_along_border(c, fw, fh, min(bw, bh)):
                continue  # cut by the photo's border, as in _candidates: its shape cannot be told
            q = _card_quad(c, False, lo, hi)
            if q is not None:
                # The edge-free part ends where the thickened edge begins, about 2 px inside
                # the card's side: moved out by that, each side lies within the snap's reach.
                m = q.mean(axis=0)
                grow = 1.0 + 4.0 / max(1.0, float(_side_lengths(q[_NEXT] - q).min()))
                out.append((m + (q - m) * grow) / scale)
    return _dedupe(out)


def _with_cores(frame: np.ndarray, readings: list, deck) -> list:
    """``readings`` plus the cards named on gapped outlines' cores (:func:`_core_quads`).

    Each core is snapped and judged as the outline finder's own finds are (:func:`find_card_groups`
    with the cores as its rough quads: sides backed by the photo's steps, a card's shape) and read
    with every stage and check of the deck (:func:`classify_groups`). A core is kept only if it is
    named ``card_search.WINDOW_MARGIN`` over the deck's threshold (every edge-free card-shaped patch
    is a core: a tile, a plain stretch of table; an "unknown" core adds nothing, the window search and
    the covered pass have their own regions), its centre lies in no named card, and it overlaps none
    by more than ``card_search.OVERLAP_MAX`` of itself. A core cut by the photo's border is not
    taken. An "unknown" reading whose centre a kept core holds gives way to it.

    Args:
        frame: (H, W, 3) uint8 BGR.
        readings: :class:`companion.vision.deck.Classification` objects so far.
        deck: the enrolled deck.

    Returns:
        The readings, in :func:`_one_per_place` order if any was added, else ``readings`` itself.
    """
    from companion.rules.sushi_go.cards import UNKNOWN
    from companion.vision import card_search
    from companion.vision.card_search import overlap_area

    size = card_search.card_size(readings)
    named = [np.asarray(r.quad, np.float32) for r in readings if r.label != UNKNOWN]
    quads = [q for q in _core_quads(frame, size) if not any(_inside(q.mean(axis=0), n) for n in named)]
    if quads:
        # Screened first by the deck's quick score (one batch), as the window search picks its seeds
        # (SEED_MARGIN): a core that far under the threshold is not read in full (a plain stretch of
        # table, a printed box), and a name needs WINDOW_MARGIN over it below.
        quick = card_search._score_quads(frame, deck, quads)
        quads = [q for q, v in zip(quads, quick.tolist()) if v >= deck.threshold - card_search.SEED_MARGIN]
    if not quads:
        return readings
    new, _ = classify_groups(frame, find_card_groups(frame, rough=quads), deck)
    # Every card-shaped part of the photo free of edges is a core (a tile, a plain stretch of table,
    # a shaded patch): so many tries must clearly win, as the window search's (WINDOW_MARGIN).
    new = [r for r in new if r.label != UNKNOWN and r.score >= deck.threshold + card_search.WINDOW_MARGIN]
    add: list = []
    for r in new:
        q = np.asarray(r.quad, np.float32)
        limit = card_search.OVERLAP_MAX * abs(cv2.contourArea(q))
        if not any(overlap_area(q, n) > limit for n in named + [x.quad for x in add]):
            add.append(r)
    if not add:
        return readings
    kept = [r for r in readings if r.label != UNKNOWN or not any(_inside(r.quad.mean(axis=0), x.quad) for x in add)]
    return _one_per_place([(False, r) for r in kept + add])


def _with_covered(frame: np.ndarray, deck, readings: list) -> list:
    """``readings`` plus the covered cards :func:`companion.vision.covered.read_covered` completes
    where no card was named; an "unknown" reading that lies on a covered card found there (over
    half of it inside the completed card: its visible part, or the cover) gives way to it."""
    from companion.rules.sushi_go.cards import UNKNOWN
    from companion.vision.card_search import overlap_area
    from companion.vision.covered import read_covered

    new = read_covered(frame, deck, readings)
    if not new:
        return readings
    # Not a mere centre test: a completion runs on under the cover and may reach a neighbour's
    # centre, and that neighbour, "unknown" or not, is still there.
    kept = [r for r in readings if r.label != UNKNOWN
            or not any(overlap_area(r.quad, c.quad) > 0.5 * abs(cv2.contourArea(np.asarray(r.quad, np.float32)))
                       for c in new)]
    return _one_per_place([(False, r) for r in kept] + [(True, c) for c in new])


#: A card cut by the photo's border (:func:`_with_border_cut`): the side of its outline lying on the
#: border must be within this share of the card's short or long side as read elsewhere in the photo ...
_CUT_SIDE = 0.2
#: ... the longer of the two sides running from the border within this share of the other of the
#: card's sides (a card of the photo's size, give or take perspective) ...
_CUT_FULL = 0.2
#: ... and the shorter at least this share of the longer: at most a quarter of the card runs off the
#: photo (beyond that too little of it shows to be named as a whole card).
_CUT_SHOWN = 0.75
#: ... and its three sides in the photo each backed (``refine_quads_sides``) at least this well.
_CUT_SUPPORT = 0.6


def _border_cut_quads(frame: np.ndarray, size: tuple[float, float], readings: list) -> list[np.ndarray]:
    """Whole-card quads of the cards a little cut by the photo's border, for :func:`_with_border_cut`.

    The outline finder drops a contour that runs along the border (:func:`_runs_along_border`): its
    true shape cannot be told from what shows. With the card size known from the cards read, it
    can, where little is cut: the contour's hull is a quad one side of which lies on the border
    (both its ends within 3 px of one edge), the side between the two sides that run from the
    border. The longer of those two is taken as the card's whole side (a card turned a little has
    one corner near the border in the photo and the other off it), the shorter is extended to it
    along its own line: the corner cut off is put back. Kept if the border side is about the card's
    other side (``_CUT_SIDE``), the longer side about a card's (``_CUT_FULL``), the shorter at
    least ``_CUT_SHOWN`` of it, the result card-shaped, and it overlaps no reading by more than
    ``card_search.OVERLAP_MAX`` of a card.

    Args:
        frame: (H, W, 3) uint8 BGR (the working image).
        size: (short, long) card side, px (:func:`companion.vision.card_search.card_size`).
        readings: the readings so far (Classification), quads (4, 2) float32 px.

    Returns:
        (4, 2) float32 quads, px of ``frame``, :func:`order_quad` order; corners may lie outside
        the photo (the part cut off).
    """
    from companion.vision.card_search import OVERLAP_MAX, overlap_area

    cw, ch = size
    h, w = frame.shape[:2]
    scale, contours, hier = thick_edge_contours(frame)
    if hier is None or not len(contours):
        return []
    sw, sh = round(w * scale), round(h * scale)
    lo, hi = 0.4 * cw * ch * scale * scale, 1.3 * cw * ch * scale * scale
    boxes = _boxes(contours)
    near = ((boxes[:, 0] <= 1) | (boxes[:, 1] <= 1) | (boxes[:, 0] + boxes[:, 2] >= sw - 1)
            | (boxes[:, 1] + boxes[:, 3] >= sh - 1)) & (boxes[:, 2] * boxes[:, 3] >= lo)
    taken = [np.asarray(r.quad, np.float32) for r in readings]
    out: list[np.ndarray] = []
    for i in np.flatnonzero(near):
        c = contours[i]
        if not _runs_along_border(c, sw, sh, float(min(boxes[i, 2], boxes[i, 3]))):
            continue
        hull = cv2.convexHull(c)
        res = _hull_quad(hull, cv2.contourArea(hull))
        if res is None or not lo <= res[1] <= hi:
            continue
        q = order_quad(res[0] / scale)
        if not _square_enough(q, side_ratio=1.6):  # (one pair of sides is cut short)
            continue
        on = [k for k in range(4) for ax, lim in ((0, 0.0), (1, 0.0), (0, w - 1.0), (1, h - 1.0))
              if abs(q[k, ax] - lim) <= 3 and abs(q[_NEXT[k], ax] - lim) <= 3]
        if len(on) != 1:
            continue  # on two edges (a photo's corner) or on none: not a card cut at one side
        k = on[0]
        cut = float(np.linalg.norm(q[_NEXT[k]] - q[k]))
        across, along = (cw, ch) if abs(cut - cw) <= abs(cut - ch) else (ch, cw)
        if abs(cut - across) > _CUT_SIDE * across:
            continue
        runs = ((k, _PREV[k]), (_NEXT[k], _NEXT[_NEXT[k]]))  # (corner on the border, its far end)
        lens = [float(np.linalg.norm(q[a] - q[b])) for a, b in runs]
        full = max(lens)
        if abs(full - along) > _CUT_FULL * along or min(lens) < _CUT_SHOWN * full:
            continue
        e = q.copy()
        for (a, b), ln in zip(runs, lens):
            e[a] = q[b] + (q[a] - q[b]) * np.float32(full / max(ln, 1e-6))
        if not _ASPECT_MIN <= _aspect(e) <= _ASPECT_MAX:
            continue
        if any(overlap_area(e, t) > OVERLAP_MAX * cw * ch for t in taken + out):
            continue
        out.append(e.astype(np.float32))
    return out


def _with_border_cut(frame: np.ndarray, deck, readings: list) -> list:
    """``readings`` plus the cards a little cut by the photo's border that the deck names clearly.

    Issue #6: on the real photos' IMG_2615 an ace lies at the top border on
    dark knit, turned about 11 degrees: its top-left corner 2 px inside the photo, its top-right
    one about 25 px beyond it (some 6 % of the card cut off). The outline finder drops its contour
    (it runs along the border), the table is too busy for the window search's blobs, and the ace was
    not found. Its three sides in the photo and the card size the other cards give place the whole
    card (:func:`_border_cut_quads`); the cut corner is read as the border's pixels repeated
    (``deck.card_patches``, ``BORDER_REPLICATE``). Only a name that clears the window search's bar
    (the deck's threshold plus ``card_search.WINDOW_MARGIN``: a quad built, not found whole) and the
    deck's checks, on a place that overlaps no reading by more than ``card_search.OVERLAP_MAX`` of a
    card, is added: nothing is made "unknown" and no reading is changed or dropped. Where the cut
    runs nearly along a card's edge, both its corners are off the photo and the card is put back
    only as long as its longer side shows (up to ``_CUT_FULL`` short of a card): read, not rebuilt
    to the card size. Run only where a card was named (the card size is known).

    Args:
        frame: (H, W, 3) uint8 BGR, the working image the readings' quads are in.
        deck: the enrolled deck.
        readings: :class:`companion.vision.deck.Classification` objects.

    Returns:
        ``readings`` itself if nothing is added, else a new list sorted as :func:`_one_per_place`
        sorts. A card added has corners outside the photo (the part cut off).
    """
    from companion.rules.sushi_go.cards import UNKNOWN
    from companion.vision import card_search
    from companion.vision.deck import checked, classify_quads

    size = card_search.card_size(readings)
    if size is None:
        return readings
    quads = _border_cut_quads(frame, size, readings)
    if not quads:
        return readings
    out = list(readings)
    bar = deck.threshold + card_search.WINDOW_MARGIN
    for q, r, (_, _, _, sides) in zip(quads, classify_quads(frame, quads, deck, checks=False),
                                      refine_quads_sides(frame, quads)):
        # (sides: each side's share backed; the one side cut off by the border has none)
        if r.label == UNKNOWN or r.score < bar or np.sort(sides)[1] < _CUT_SUPPORT:
            continue
        r = checked(frame, r, deck)
        if r.label == UNKNOWN or any(card_search.overlap_area(np.asarray(r.quad, np.float32), np.asarray(
                o.quad, np.float32)) > card_search.OVERLAP_MAX * size[0] * size[1] for o in out):
            continue
        out.append(r)
    return readings if len(out) == len(readings) else sorted(out, key=_reading_order)


#: A refused card (:func:`_with_refused`) is reported only where no reading covers more than this
#: share of it (or it of the reading): the place is free, so no reading there is doubled. (A quarter,
#: not set by a measure: the two cards it adds on the real photos' dev half, draws 0 and 1, IMG_2570's
#: queen and cam_image3's king, share nothing with a reading.)
_REFUSED_FREE = 0.25
#: ... and, where the photo has named cards, only if its area is at least this share of theirs (the
#: median named short side times long side): a too-square find is a whole card foreshortened (IMG_2570's
#: queen and cam_image3's king: 0.75 and 0.76 of the named cards' area), not a patch of a tenth of it
#: (test draws 38 and 39, run as held out without this bound: a glass table top beside a tin on
#: IMG_2460, 0.06 of it, read within the look-again band, an "unknown" on no card).
_REFUSED_AREA = 0.4


def _without_foreign_paper(frame: np.ndarray, deck, readings: list) -> list:
    """``readings`` with a name made "unknown" (confidence 0.5, quad and score kept) where its
    face's paper is cast otherwise than another named card's of the photo (:meth:`Deck.paper_cast`,
    ``deck.PAPER_APART``) and more so: one photo's light casts alike on every card, so a yellow,
    green, pink or pale-blue paper with one dark dot, read "ace" beside a white card
    (``bench/real_covers.py --dotted``), is no ace. Only labels printed on one plain stock are
    judged (``deck.PAPER_GREY``), each against its own examples' paper, so a deck on cream or
    coloured stock keeps its names; a photo with one named card judges nothing. Only ever "unknown".

    Args:
        frame: (H, W, 3) uint8 BGR, the image the readings' quads are in.
        deck: the enrolled deck (a deck enrolled before ``paper`` judges nothing).
        readings: :class:`companion.vision.deck.Classification` list.
    """
    from companion.rules.sushi_go.cards import UNKNOWN
    from companion.vision.deck import PAPER_APART

    named = {i: deck.labels.index(r.label) for i, r in enumerate(readings) if r.label != UNKNOWN}
    if len(named) < 2 or getattr(deck, "paper", None) is None:
        return readings
    casts = {}
    for i, label in named.items():
        c = deck.paper_cast(frame, readings[i].quad, label)
        if c is not None:
            casts[i] = c
    # Each paper as photographed (its cast plus its label's stock).
    seen = {j: d + deck.paper_stock(named[j]) for j, d in casts.items()}
    out = list(readings)
    for i, c in casts.items():
        # Only a face that is mostly paper is refused by its paper: a face card's lighter half holds
        # its art, whose colour moved a real king's "paper" 25 from a pale paper's beside it
        # (real_covers --dotted, draw 0, scene 12161: the king, not the paper, was refused).
        if not deck.mostly_paper(named[i]):
            continue
        # Apart as photographed and apart less their labels' stocks: a stock taken out that was the
        # enrolment's light (the symbol deck) moves casts apart that the photo shows alike, and a
        # coloured stock kept (noir's tempura) shows papers apart that the stocks explain.
        if any(float(np.hypot(*(c - d))) >= PAPER_APART and float(np.hypot(*c)) > float(np.hypot(*d))
               and float(np.hypot(*(seen[i] - seen[j]))) >= PAPER_APART
               and float(np.hypot(*seen[i])) > float(np.hypot(*seen[j]))
               for j, d in casts.items() if j != i):
            out[i] = replace(readings[i], label=UNKNOWN, confidence=0.5)
    return out


def _without_bare_index(frame: np.ndarray, deck, readings: list) -> list:
    """``readings`` with a name made "unknown" (confidence 0.5, quad and score kept) where its label's
    face is mostly paper (:meth:`Deck.mostly_paper`: an ace), its paper is coloured against its
    label's (:meth:`Deck.paper_cast` at least ``deck.INDEX_CAST_MIN``) and against the frame's light
    (the cast less :func:`deck.frame_white`'s, the frame's brightest pixels: a lamp casts a real
    card and the whole photo alike, ace49's review), its label's examples show an index that
    matches itself (:meth:`Deck.corner_self_match` at least ``deck.CORNER_MATCH_MIN``), and its
    corners show no index like its examples' (:meth:`Deck.corner_match`, the whole index box or its
    rank letter, under ``deck.CORNER_MATCH_MIN``): a coloured paper
    with one dark dot where an ace's pip lies is an ace to the mark count and the whole-card
    template, but the eye looks for the "A" in its corner (``bench/real_covers.py --dotted``, stop 49,
    ``ace49``). Unlike :func:`_without_foreign_paper` it needs no other card beside it. Each cue
    alone would refuse real cards (a warm light casts a real ace's paper; glare, a cover or the
    photo's border hides an index): both are asked. Only ever "unknown"; a label whose examples
    show no index (a symbol card) or a deck without papers judges nothing.

    Args:
        frame: (H, W, 3) uint8 BGR, the image the readings' quads are in.
        deck: the enrolled deck.
        readings: :class:`companion.vision.deck.Classification` list.
    """
    from companion.rules.sushi_go.cards import UNKNOWN
    from companion.vision.deck import CORNER_MATCH_MIN, INDEX_CAST_MIN, frame_white

    if getattr(deck, "paper", None) is None:
        return readings
    out = None
    white = None
    for i, r in enumerate(readings):
        if r.label == UNKNOWN:
            continue
        label = deck.labels.index(r.label)
        if not deck.mostly_paper(label):
            continue
        cast = deck.paper_cast(frame, r.quad, label)
        if cast is None or float(np.hypot(*cast)) < INDEX_CAST_MIN:
            continue
        if white is None:
            white = frame_white(frame)
        if float(np.hypot(*(cast - white))) < INDEX_CAST_MIN:
            continue
        own = deck.corner_self_match(label)
        if own is None or own < CORNER_MATCH_MIN:
            continue
        match = deck.corner_match(frame, r.quad, label)
        if match is not None and match < CORNER_MATCH_MIN:
            out = list(readings) if out is None else out
            out[i] = replace(r, label=UNKNOWN, confidence=0.5)
    return readings if out is None else out


def _with_refused(readings: list, refused: list) -> list:
    """``readings`` plus each of ``refused`` (unknown readings of :func:`classify_groups`: a partial
    find whose face reads as a card but that no check let be named) on a place no reading, nor an
    earlier refused card, covers by over ``_REFUSED_FREE`` of either's area, and whose area is at
    least ``_REFUSED_AREA`` of the named cards' (where any is named). Only "unknown"s are
    added and no reading is changed or dropped: a card found but not named is counted found, never
    named (issue #6, branch ``miss47``: IMG_2570's queen on a tiled floor, too square as found,
    read queen 0.92 but refused by its mark count, was reported as nothing).

    Args:
        readings: :class:`companion.vision.deck.Classification` objects, quads (4, 2) float32
            working-image px (as :func:`read_card_results` and :func:`_with_covered` give them).
        refused: the unknown readings :func:`classify_groups` collected, quads in the same px.

    Returns:
        ``readings`` itself if nothing is added, else a new list sorted as :func:`_one_per_place`
        sorts (top to bottom, then left to right; a stable sort, so ``readings`` keep their order).
    """
    from companion.vision.card_search import card_size, overlap_area

    size = card_size(readings)
    least = 0.0 if size is None else _REFUSED_AREA * size[0] * size[1]
    out = list(readings)
    for r in refused:
        a = abs(cv2.contourArea(np.asarray(r.quad, np.float32)))
        if a >= least and all(overlap_area(r.quad, o.quad) <= _REFUSED_FREE
               * min(a, abs(cv2.contourArea(np.asarray(o.quad, np.float32)))) for o in out):
            out.append(r)
    if len(out) == len(readings):
        return readings
    return sorted(out, key=_reading_order)


#: The cross-check (:func:`_crossed_by_features`) looks only at a named reading whose whole-card
#: score is under this (ZNCC; None: every such reading). The wrong face names seen on the real photos
#: were weak: draw 93's queen read "king" at 0.663, draw 25's ace read "king" at 0.726 (``why45``).
#: Checking every name near a face label cost 117-141 looks a draw, 53-59 % of the reading time (dev
#: and test draws 0 / 1, a loaded 2-core machine, 0.6-0.9 s a look), and turned nothing "unknown";
#: under 0.80: 6-15 looks, 2-9 %; under 0.85: 16-28, 8-12 %; under 0.90: 33-39, 15-18 %. With
#: 0.80 on never-run draws 97-99 (test and dev): 9-18 looks a draw, 8-16 % of the reading time.
CROSS_SCORE: float | None = 0.80


def _crossed_by_features(frame: np.ndarray, deck, readings: list) -> tuple[list, frozenset[int]]:
    """``readings`` with each one the whole-card path named, where the local features name another
    label beyond doubt, turned "unknown"; and the indices so turned.

    Issue #6, ``cross53``: on enrolment draw 93 a real queen (IMG_2586) was named "king" by the
    whole-card path (score 0.663) while its features said queen (39 inliers on a whole-card fit
    against 9 for king). Two readers that disagree are not settled by either (the project's rule: a
    sight that fits two readings is not guessed), so the card is not renamed: it becomes "unknown",
    which is always better than a wrong name.

    Only a named reading whose label, or whose best other whole-card label, is one
    :meth:`Deck.feature_labels` holds (a face card enrolled from several examples) is looked at, and
    only under ``CROSS_SCORE``: a deck without faces (a drawn deck enrolled from one example a
    card, a symbol deck) or a pip card whose rivals are pip cards costs a set lookup. The features
    overrule only by the bar that names a card (:meth:`Deck.feature_label`: ``FEATURE_INLIERS``
    inliers on a whole-card fit, ``FEATURE_RATIO`` times every other label's, chroma): a look that
    names nothing, or names the reading's own label, keeps the name. At most ``_FEATURE_LOOKS``
    readings a photo are looked at, the weakest names first (the rest keep their names unchecked).

    Args:
        frame: (H, W, 3) uint8 BGR, the working image the readings' quads are in.
        deck: the :class:`companion.vision.deck.Deck`.
        readings: :class:`companion.vision.deck.Classification` objects.

    Returns:
        ``(readings, frozenset())`` where nothing changes, else a new list in the same order (each
        turned reading "unknown", confidence 0.5: undecided, as every name made "unknown" here)
        and the turned indices, for :func:`_named_by_features` to leave alone (it would name them
        the features' label).
    """
    from companion.rules.sushi_go.cards import UNKNOWN

    faces = deck.feature_labels()
    if not faces:
        return readings, frozenset()
    out, turned, asked = list(readings), set(), []
    for i, r in enumerate(readings):
        if r.label == UNKNOWN or r.scores is None or r.label not in deck.labels:
            continue
        if CROSS_SCORE is not None and r.score >= CROSS_SCORE:
            continue
        own = deck.labels.index(r.label)
        others = np.asarray(r.scores, np.float64).copy()
        others[own] = -np.inf
        rival = int(np.argmax(others)) if len(others) > 1 else own
        if own in faces or rival in faces:
            asked.append((i, own))
    # a bounded look per photo (_FEATURE_LOOKS), the weakest names first
    for i, own in sorted(sorted(asked, key=lambda a: float(readings[a[0]].score))[:_FEATURE_LOOKS]):
        r = readings[i]
        label, _ = deck.feature_label(frame, order_quad(np.asarray(r.quad, np.float32)), faces)
        if label >= 0 and label != own:
            out[i] = replace(r, label=UNKNOWN, confidence=0.5)
            turned.add(i)
    return (out, frozenset(turned)) if turned else (readings, frozenset())


def _named_by_features(frame: np.ndarray, deck, readings: list, skip: frozenset[int] = frozenset()) -> list:
    """``readings`` with each "unknown" one that the whole-card path could not settle named by local
    features where they name it beyond doubt (:meth:`companion.vision.deck.Deck.feature_label`;
    issue #6: a webcam's face card scores under the threshold; a queen's art the mark count reads
    as too many marks).

    Only a reading whose best whole-card label is one :meth:`Deck.feature_labels` holds (a face card
    enrolled from several examples) is looked at, against those labels alone: a deck without faces
    (a symbol deck, Sushi Go! enrolled from one scan a card), a named reading, or an "unknown" nearest
    a pip card costs one set lookup. A reading so named gets confidence 0.5 (named by another look,
    as a name from the mark count) and its label's whole-card score. At most ``_FEATURE_LOOKS``
    readings a photo are looked at, the highest whole-card scores first; the rest stay "unknown".

    Args:
        frame: (H, W, 3) uint8 BGR, the working image the readings' quads are in.
        deck: the :class:`companion.vision.deck.Deck`.
        readings: :class:`companion.vision.deck.Classification` objects.
        skip: indices of readings left alone: those :func:`_crossed_by_features` turned "unknown"
            (the features named another label than the whole-card path: not guessed).

    Returns:
        ``readings`` itself where nothing is named, else a new list in the same order.
    """
    from companion.rules.sushi_go.cards import UNKNOWN

    faces = deck.feature_labels()
    if not faces:
        return readings
    out, changed = list(readings), False
    asked = [i for i, r in enumerate(readings) if i not in skip
             and r.label == UNKNOWN and r.scores is not None and int(np.argmax(r.scores)) in faces]
    # a bounded look per photo (_FEATURE_LOOKS), the likeliest face cards first
    asked = sorted(asked, key=lambda i: -float(np.max(readings[i].scores)))[:_FEATURE_LOOKS]
    for i in sorted(asked):
        r = readings[i]
        label, quad = deck.feature_label(frame, order_quad(np.asarray(r.quad, np.float32)), faces)
        if label >= 0:
            out[i] = replace(r, label=deck.labels[label], confidence=0.5, score=float(r.scores[label]),
                             quad=np.asarray(quad, np.float32))
            changed = True
    return out if changed else readings


def read_cards(frame: np.ndarray, deck, scale: float = 1.0) -> list[CardObservation]:
    """Find and name every face-up card (or back) in a table photo.

    A frame whose long side is over ``READ_MAX_SIDE`` px is read at that size (memory and time
    stay bounded whatever the photo); quads are still reported in the frame's px.

    Args:
        frame: (H, W, 3) uint8 BGR.
        deck: a :class:`companion.vision.deck.Deck`.
        scale: ``frame``'s px per px of the photo the quads should be given in: 1.0 for the photo
            itself, or :attr:`companion.vision.imageio.WorkingImage.scale` for a photo read with
            ``read_working(path, READ_MAX_SIDE)``.

    Returns:
        One :class:`CardObservation` per card found, quads in photo px, clockwise from the
        card face's top-left corner (for ``"unknown"``: as found), sorted top to bottom then
        left to right.

    Raises:
        ValueError: ``frame`` is not (H, W, 3).
    """
    from companion.vision.blas import one_blas_thread, one_opencv_thread

    if frame.ndim != 3 or frame.shape[2] != 3:
        raise ValueError(f"expected an (H, W, 3) BGR image, got shape {frame.shape}")
    if frame.size == 0:
        return []  # an empty image shows no card
    work, shrink = working_copy(frame, READ_MAX_SIDE)
    # One thread for BLAS and for OpenCV: reading is a thousand small warps and products, which
    # the thread pools split at a loss (see one_opencv_thread; the dice readers do the same).
    try:
        with one_blas_thread(), one_opencv_thread():
            refused: list = []
            results = _with_border_cut(work, deck, read_card_results(work, deck, refused))
            results = _with_refused(_with_covered(work, deck, results), refused)
            results = _without_foreign_paper(work, deck, results)
            results = _without_bare_index(work, deck, results)
            # The cross-check first, on the names the whole-card path gave; the cards it turns
            # "unknown" are not then named by the features it disagreed with.
            results, crossed = _crossed_by_features(work, deck, results)
            results = _named_by_features(work, deck, results, crossed)
    finally:
        _remember_holes(None)
    return [CardObservation(c.label, c.confidence,
                            tuple((float(x), float(y)) for x, y in to_original_px(c.quad, scale * shrink)))
            for c in results]
