"""Finding cards on the play mat, where the mat's homography and the card size are known.

A general photo of a table gives the card finder nothing to lean on (``companion.vision.cards``),
but during a game the mat tracker knows where every zone lies, in mm, and the enrolled game knows
how big a card is. This finder uses both:

1. Rectify the frame onto the mat plane at ``px_per_mm`` (``cv2.warpPerspective`` with the
   inverse of the tracker's homography), so every card is a 44×63 mm rectangle, whatever the
   camera's tilt.
2. Estimate the bare mat's brightness under this light with a grey-level closing wider than a
   card (a card is a dark-or-coloured object smaller than the kernel, so the closing replaces it
   with the mat around it; Soille, *Morphological Image Analysis*, 2003, §4.4 "top-hats").
3. A pixel is card where it is clearly coloured (HSV saturation) or clearly darker than the mat
   there. The dark part is opened ~2.5 mm (removes the mat's printed lines and text); the
   coloured part only 3 px, so a card's thin coloured margin beside a white plate survives.
4. Blobs bigger than a card are cut at a neck about one card from an end (two cards joined by
   blur; :func:`_cut_bridges`, a projection-profile cut).
5. Pieces are merged into card-sized groups, nearest group first (:func:`_merge_pieces`: a
   pudding's plate still splits its mask).
6. Each group gives a candidate with a few card-sized hypotheses: a group of one card's size
   (:func:`_hypotheses`); a tidy row of merged cards, split evenly (:func:`_split_row`); two cards
   joined end to end, one flush with each end (:func:`_end_hypotheses`); a group short or long of
   one card, the card slid to either end in either orientation (:func:`_partial_hypotheses`).
   A group of several pieces keeps its large pieces' own hypotheses as a fallback.
7. All hypotheses go back to image px and are classified by the deck in one batch
   (``deck.classify_quads``); each candidate keeps its best; candidates that read as nothing try
   their fallback; a candidate that was never card-shaped and reads as nothing is dropped; and
   readings overlapping a better one are suppressed (:func:`read_cards_on_mat`).

A card that no hypothesis reads as an enrolled card comes back ``"unknown"`` (the app refuses the
turn), never as the best wrong name: a label is only given above the deck's calibrated threshold.

Measured on simulated games (every reveal, 4 mats, 50 seeds, 95 874 visible cards; the table and
seeds are in tests/test_mat_cards.py): 1 card missed (read "unknown"), no wrong label; fresh
held-out seeds 41–50: 0 of 18 965 missed. 12–17 ms per frame (one process).

Assumes what the mat is designed for: pale zones (printed light, with thin outlines) and cards
that differ from them in colour or darkness, lying flat, not overlapping except a nigiri laid
squarely on its wasabi.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from companion.rules.sushi_go.cards import UNKNOWN
from companion.vision.mat_layout import MatLayout
from companion.vision.observations import CardObservation

#: Rectified mat resolution. 1.5 px/mm keeps a card at 66×95 px, above the classifier's 30×43 patch.
PX_PER_MM = 1.5
#: HSV saturation (0–255) above which a pixel is coloured card, not pale mat.
SATURATION_MIN = 70
#: A pixel darker than this fraction of the bare mat's brightness there is card.
DARKER_THAN = 0.62
#: How far (fraction) a found card's side may differ from the enrolled card size and still count.
SIZE_TOLERANCE = 0.18
#: The gap (mm) the simulator and a tidy player leave between cards; used to split a row of merged cards.
MIN_GAP_MM = 6.0
#: Pieces smaller than this fraction of a card are specks (noise, a printed dot), not card parts.
PIECE_MIN = 0.03
#: A blob narrower than this fraction of a card's width somewhere is two cards joined by a neck.
NECK_MAX = 0.6
#: A reading overlapping a better one by this fraction of its own area is dropped (see read_cards_on_mat).
OVERLAP_MAX = 0.25
#: A piece of at least this fraction of a card may be most of one card (see ``CardCandidate.fallback``).
BODY_MIN = 0.4
#: A group whose sides are between these fractions of a card's may be one card whose mask came out
#: short (pale art across it: the pudding's plate) or long (a strip of the next card attached).
PARTIAL_RANGE = (0.6, 1.45)


def _fits(length: float, expected: float, tolerance: float = SIZE_TOLERANCE) -> bool:
    return abs(length - expected) <= tolerance * expected


def _gap(group: np.ndarray, piece: np.ndarray) -> float:
    """Distance (px) from ``piece`` to the rectangle around ``group`` (0 if they touch or overlap)."""
    box = cv2.boxPoints(cv2.minAreaRect(group)).astype(np.float32)
    return max(0.0, min(-cv2.pointPolygonTest(box, (float(x), float(y)), True) for x, y in piece.reshape(-1, 2)))


def _merge_pieces(contours, card_area: float) -> list[np.ndarray]:
    """Group mask pieces that belong to one card.

    A card whose pale art (a white plate across it) splits its mask gives pieces whose union
    still fits in one card. Largest pieces first, each piece joins the *nearest* group it fits
    with: a strip cut off one card lies closer to its own card (a plate's width) than to the
    neighbour across the gap, and two whole cards never fit in one card's size together.

    Returns:
        One list per group of its pieces' (N, 1, 2) int32 contours, largest first.
    """
    pieces = sorted(
        (c for c in contours if cv2.contourArea(c) >= PIECE_MIN * card_area), key=cv2.contourArea, reverse=True
    )
    groups: list[np.ndarray] = []  # each group's points, stacked
    members: list[list[np.ndarray]] = []
    limit = (1 + SIZE_TOLERANCE / 2) ** 2
    for piece in pieces:
        best, best_gap = None, None
        for i, g in enumerate(groups):
            both = np.vstack([g, piece])
            (w, h) = cv2.minAreaRect(both)[1]
            if max(w, h) * min(w, h) > card_area * limit or max(w, h) / max(min(w, h), 1) > 1.9:
                continue  # the union is bigger than one card
            gap = _gap(g, piece)
            if best_gap is None or gap < best_gap:
                best, best_gap = i, gap
        if best is None:
            groups.append(piece)
            members.append([piece])
        else:
            groups[best] = np.vstack([groups[best], piece])
            members[best].append(piece)
    return members


def _cut_bridges(mask: np.ndarray, cw: float, ch: float, rounds: int = 3) -> list:
    """External contours of ``mask`` after cutting the thin bridges that join neighbouring cards.

    Two cards a few mm apart can join through a thin neck of blur or shadow. Along the long axis
    of a blob bigger than a card, the blob's width (its filled outline's pixel count per unit
    length: a projection profile, the classic cut finder of character segmentation, Casey &
    Lecolinet, "A survey of methods and strategies in character segmentation", PAMI 1996) dips
    where it is such a neck. The blob is cut at its narrowest point about one card from either end
    if that neck is under ``NECK_MAX`` of a card's width; the pieces are cut again (``rounds``
    times).
    Cutting the filled outline, not the mask, means holes inside a card (a white plate) never
    look like a neck.

    Args:
        mask: (H, W) uint8, 255 = card; cut lines are drawn into it (in place).
        cw, ch: card width and height, px.

    Returns:
        The contours (``cv2.RETR_EXTERNAL``) of the cut mask.
    """
    for _ in range(rounds):
        contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        cut = False
        for c in contours:
            if cv2.contourArea(c) < 1.25 * cw * ch:
                continue
            (cx, cy), (w, h), angle = cv2.minAreaRect(c)
            a = np.radians(angle)
            u, v = np.array([np.cos(a), np.sin(a)]), np.array([-np.sin(a), np.cos(a)])
            long_, short = w, h
            if h > w:
                u, v, long_, short = v, -u, h, w
            if long_ < 1.5 * ch:
                continue
            x, y, bw, bh = cv2.boundingRect(c)
            solid = np.zeros((bh, bw), np.uint8)
            cv2.drawContours(solid, [c - np.array([x, y], np.int32)], -1, 255, -1)
            ys, xs = np.nonzero(solid)
            t = (xs + x - cx) * u[0] + (ys + y - cy) * u[1] + long_ / 2
            at = np.clip(t, 0, long_).astype(np.int32)
            profile = np.bincount(at, minlength=int(long_) + 1).astype(np.float32)
            profile = np.convolve(profile, np.ones(3, np.float32) / 3, mode="same")
            # A neck between cards lies about one card (plus a gap) from one end of the blob, or
            # up to a pudding plate's width less when that end is the plate; a notch elsewhere is
            # pale art reaching a card's edge (a sashimi plate), not a gap.
            allowed = np.zeros(len(profile), bool)
            allowed[int(0.7 * ch) : int(1.2 * ch)] = True
            allowed[max(0, int(long_ - 1.2 * ch)) : max(0, int(long_ - 0.7 * ch))] = True
            if not allowed.any():
                continue
            m = int(np.argmin(np.where(allowed, profile, np.inf)))
            if profile[m] >= NECK_MAX * min(short, cw):
                continue
            p = np.array([cx, cy]) + u * (m - long_ / 2)
            half = v * (short / 2 + 4)
            cv2.line(mask, tuple(int(round(k)) for k in p - half), tuple(int(round(k)) for k in p + half), 0, 3)
            cut = True
        if not cut:
            return list(contours)
    return list(cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)[0])


def rectify(frame: np.ndarray, homography: np.ndarray, layout: MatLayout, px_per_mm: float = PX_PER_MM) -> np.ndarray:
    """The frame warped onto the mat plane: (round(h_mm·s), round(w_mm·s), 3) uint8 BGR, s = px_per_mm.

    ``homography`` maps image px → mat mm (``MatStatus.homography``).
    """
    scale = np.diag([px_per_mm, px_per_mm, 1.0])
    size = (int(round(layout.width_mm * px_per_mm)), int(round(layout.height_mm * px_per_mm)))
    return cv2.warpPerspective(frame, scale @ homography, size, flags=cv2.INTER_LINEAR)


def card_mask(mat_img: np.ndarray, card_mm: tuple[float, float], px_per_mm: float = PX_PER_MM) -> np.ndarray:
    """Where cards are, on a rectified mat image: (H, W) uint8, 255 = card.

    Args:
        mat_img: (H, W, 3) uint8 BGR from :func:`rectify`.
        card_mm: (width, height) of a card, mm; sets the size of the background kernel.
    """
    hsv = cv2.cvtColor(mat_img, cv2.COLOR_BGR2HSV)
    value = hsv[:, :, 2]
    # Bare-mat brightness: closing on a 4× smaller image (speed), kernel larger than a card.
    small = cv2.resize(value, None, fx=0.25, fy=0.25, interpolation=cv2.INTER_AREA)
    k = int(max(card_mm) * px_per_mm * 0.25 * 1.3) | 1
    bg_small = cv2.morphologyEx(small, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_RECT, (k, k)))
    bg = cv2.resize(bg_small, (value.shape[1], value.shape[0]), interpolation=cv2.INTER_LINEAR)
    dark = value.astype(np.float32) < DARKER_THAN * bg.astype(np.float32)
    coloured = hsv[:, :, 1] > SATURATION_MIN
    # An opening about 2.5 mm wide erases the mat's printed lines and text strokes (dark, grey),
    # never a card. The mat prints nothing coloured, so the coloured part only loses specks (a
    # 3 px opening): a card's thin coloured margin beside pale art reaching its edge (the sashimi's
    # and pudding's plates) survives and keeps the card in one piece.
    line = max(3, int(round(2.5 * px_per_mm)) | 1)

    def opened(m: np.ndarray, k: int) -> np.ndarray:
        kernel = cv2.getStructuringElement(cv2.MORPH_RECT, (k, k))
        return cv2.morphologyEx(m.astype(np.uint8) * 255, cv2.MORPH_OPEN, kernel)

    return opened(dark, line) | opened(coloured, 3)


def _split_row(rect, n: int) -> list:
    """Split the minAreaRect of ``n`` cards lying in a row (their gaps blurred shut) into ``n`` rects."""
    (cx, cy), (w, h), angle = rect
    if w >= h:
        u = np.array([np.cos(np.radians(angle)), np.sin(np.radians(angle))])
        size, step = (w / n, h), w / n
    else:
        u = np.array([-np.sin(np.radians(angle)), np.cos(np.radians(angle))])
        size, step = (w, h / n), h / n
    offsets = (np.arange(n) - (n - 1) / 2) * step
    return [((cx + u[0] * o, cy + u[1] * o), size, angle) for o in offsets]


def _row_count(long_: float, short: float, cw: float, ch: float, gap: float) -> int:
    """How many cards a blob of ``long_`` × ``short`` px is, if it is a row of cards; else 0."""
    for along, across in ((cw, ch), (ch, cw)):
        if _fits(short, across):
            n = int(round((long_ + gap) / (along + gap)))
            if n >= 2 and _fits(long_, n * along + (n - 1) * gap, 0.12):
                return n
    return 0


@dataclass
class CardCandidate:
    """Where one card may lie, from one group of mask pieces.

    hypotheses: (4, 2) float32 quads in image px; the classifier's best match picks one.
    fallback: more quads to try only if none of ``hypotheses`` reads as a known card: card-sized
        quads around each large piece of the group alone (the group may have taken a strip of the
        neighbouring card instead of its own; see :func:`_partial_hypotheses`).
    partial: True if the group's outline is not one card's size (a card whose mask came out short,
        or a card with a neighbour's strip attached). Such a group that reads as nothing enrolled
        is dropped, not reported as ``"unknown"``: it may be no card at all.
    """

    hypotheses: list[np.ndarray]
    fallback: list[np.ndarray] = field(default_factory=list)
    partial: bool = False


def find_cards_on_mat(
    frame: np.ndarray, homography: np.ndarray, layout: MatLayout, px_per_mm: float = PX_PER_MM
) -> list[CardCandidate]:
    """Where the cards lying in or across the mat's zones may be.

    Args:
        frame: (H, W, 3) uint8 BGR.
        homography: (3, 3) image px → mat mm.
        layout: the mat (zones and card size in mm).

    Returns:
        One :class:`CardCandidate` per group of mask pieces that may be a card (a row of merged
        cards gives one per card). Two candidates may turn out to be the same card;
        :func:`read_cards_on_mat` keeps the better-read one.
    """
    mat_img = rectify(frame, homography, layout, px_per_mm)
    mask = card_mask(mat_img, layout.card_mm, px_per_mm)
    # Only look where cards belong: each zone, grown by half a card for cards lying across its edge.
    keep = np.zeros_like(mask)
    grow = max(layout.card_mm) / 2
    for z in layout.zones:
        x, y, w, h = z.rect_mm
        p0 = (int((x - grow) * px_per_mm), int((y - grow) * px_per_mm))
        p1 = (int((x + w + grow) * px_per_mm), int((y + h + grow) * px_per_mm))
        cv2.rectangle(keep, p0, p1, 255, -1)
    mask &= keep
    cw, ch = (v * px_per_mm for v in layout.card_mm)
    contours = _cut_bridges(mask, cw, ch)
    inv = np.linalg.inv(np.diag([px_per_mm, px_per_mm, 1.0]) @ homography)

    def to_image(rects) -> list[np.ndarray]:
        if not rects:
            return []
        pts = np.stack([cv2.boxPoints(r) for r in rects]).reshape(-1, 1, 2).astype(np.float64)
        return list(cv2.perspectiveTransform(pts, inv).reshape(-1, 4, 2).astype(np.float32))

    out = []
    for pieces in _merge_pieces(contours, cw * ch):
        rect = cv2.minAreaRect(np.vstack(pieces))
        long_, short = max(rect[1]), min(rect[1])
        # Each large piece alone, in case the group joined a neighbour's strip (tried only if the
        # group reads as nothing). Pieces are largest first; a third of a card is "large".
        fallback = []
        if len(pieces) > 1:
            for p in pieces:
                if cv2.contourArea(p) >= BODY_MIN * cw * ch:
                    fallback += _partial_hypotheses(cv2.minAreaRect(p), cw, ch)
        if _fits(long_, ch) and _fits(short, cw):
            out.append(CardCandidate(to_image(_hypotheses(rect, cw, ch)), to_image(fallback)))
        elif n := _row_count(long_, short, cw, ch, MIN_GAP_MM * px_per_mm):
            # Cards in a row whose gaps blurred shut.
            out.extend(CardCandidate(to_image(_hypotheses(r, cw, ch))) for r in _split_row(rect, n))
        elif ends := _end_hypotheses(rect, cw, ch):
            # Two cards joined across their whole width (a short one, a pudding above its plate, and
            # a neighbour); neither a neck nor a tidy row: one candidate flush with each end.
            out.extend(CardCandidate(to_image(h), partial=True) for h in ends)
        elif hyps := _partial_hypotheses(rect, cw, ch):
            out.append(CardCandidate(to_image(hyps), to_image(fallback), partial=True))
        elif fallback:
            out.append(CardCandidate(to_image(fallback), partial=True))
    return out


def _hypotheses(rect, cw: float, ch: float) -> list:
    """Where the card may really be, given the rect its mask gave.

    The mask can stop short of a card's edge (white text across a dark title band, a plate near
    the border) or spill past it (blur, a shadow). So: the rect as found; the same centre at the
    card's exact size; and, along each axis that came out short, the exact-size card grown toward
    either end. The classifier's best match picks among them.
    """
    (cx, cy), (w, h), angle = rect
    portrait = h >= w
    along = np.array([-np.sin(np.radians(angle)), np.cos(np.radians(angle))])  # the rect's h axis
    across = np.array([np.cos(np.radians(angle)), np.sin(np.radians(angle))])  # the rect's w axis
    true_w, true_h = (cw, ch) if portrait else (ch, cw)
    out = [rect, ((cx, cy), (true_w, true_h), angle)]
    for have, want, axis in ((h, true_h, along), (w, true_w, across)):
        short = want - have
        if short > 0.03 * want:
            for sign in (-1, 1):
                c = np.array([cx, cy]) + axis * sign * short / 2
                out.append(((float(c[0]), float(c[1])), (true_w, true_h), angle))
    return out


def _end_hypotheses(rect, cw: float, ch: float) -> list[list]:
    """For a blob one card wide and 1.45–2.3 cards long: a card flush with each end.

    Such a blob is two cards joined end to end, at least one of them short in the mask (pale
    art). Each end gets its own list of rects: the card flush with that end, and slid outward by
    0.1–0.3 of a card (the end may be a plate's edge rather than the card's). Returns [] if the
    blob is not of that shape.
    """
    (cx, cy), (w, h), angle = rect
    w_axis = np.array([np.cos(np.radians(angle)), np.sin(np.radians(angle))])
    h_axis = np.array([-np.sin(np.radians(angle)), np.cos(np.radians(angle))])
    out = []
    for long_, short, axis, size in ((h, w, h_axis, (cw, ch)), (w, h, w_axis, (ch, cw))):
        if not (_fits(short, cw) and 1.45 * ch < long_ < 2.3 * ch):
            continue
        for sign in (-1.0, 1.0):
            end = []
            for slide in (0.0, 0.1, 0.2, 0.3):
                c = np.array([cx, cy]) + axis * sign * (long_ / 2 - ch / 2 + slide * ch)
                end.append(((float(c[0]), float(c[1])), size, angle))
            out.append(end)
    return out


def _partial_hypotheses(rect, cw: float, ch: float) -> list:
    """Card-sized rects that could hold a group whose outline is not one card's size.

    For each orientation (card upright or across the rect) in which both of the rect's sides are
    within ``PARTIAL_RANGE`` of the card's and at least one fits it (``SIZE_TOLERANCE``): the card
    at the rect's centre and, along each side that is off by more than 3 %, slid flush with either
    end of the rect. A short piece (a pudding above its white plate) is then covered whichever end
    the rest of its card lies at; a piece with a neighbour's strip attached has the card flush with
    its own end. Returns [] if no orientation is plausible.
    """
    (cx, cy), (w, h), angle = rect
    across = np.array([np.cos(np.radians(angle)), np.sin(np.radians(angle))])  # the rect's w axis
    along = np.array([-np.sin(np.radians(angle)), np.cos(np.radians(angle))])  # the rect's h axis
    lo, hi = PARTIAL_RANGE
    out = []
    for tw, th in ((cw, ch), (ch, cw)):
        if not (lo * tw <= w <= hi * tw and lo * th <= h <= hi * th) or not (_fits(w, tw) or _fits(h, th)):
            continue
        shifts_w = [0.0] + ([-abs(w - tw) / 2, abs(w - tw) / 2] if abs(w - tw) > 0.03 * tw else [])
        shifts_h = [0.0] + ([-abs(h - th) / 2, abs(h - th) / 2] if abs(h - th) > 0.03 * th else [])
        for sw in shifts_w:
            for sh in shifts_h:
                c = np.array([cx, cy]) + across * sw + along * sh
                out.append(((float(c[0]), float(c[1])), (tw, th), angle))
    return out


def _best_of(frame: np.ndarray, hyp_lists: list[list[np.ndarray]], deck) -> list:
    """Classify every quad (one batch) and return the best-scoring Classification per list."""
    from companion.vision.deck import classify_quads

    results = classify_quads(frame, [q for hyps in hyp_lists for q in hyps], deck, card_sized=True)
    out, i = [], 0
    for hyps in hyp_lists:
        out.append(max(results[i : i + len(hyps)], key=lambda r: r.score))
        i += len(hyps)
    return out


def read_cards_on_mat(frame: np.ndarray, homography: np.ndarray, layout: MatLayout, deck) -> list[CardObservation]:
    """Find the cards on the mat and name them with ``deck``.

    1. Each candidate (:func:`find_cards_on_mat`) is read as its best-scoring hypothesis.
    2. A candidate that reads as nothing enrolled tries its fallback quads (its large pieces
       alone) and takes their best if that reads as a known card.
    3. A partial candidate (outline not a card's size) that still reads as nothing is dropped.
    4. Cards lie side by side, not on top of each other (a nigiri on its wasabi shows one card), so
       a reading whose quad overlaps an already kept one by ``OVERLAP_MAX`` of its area (in mat
       mm) is the same card seen from two groups, or a group straddling two cards: greedy
       non-maximum suppression, known labels first, then by score, keeps the first.

    Returns:
        One CardObservation per card, quads in image px (clockwise from the card face's top-left).
    """
    cands = find_cards_on_mat(frame, homography, layout)
    if not cands:
        return []
    results = _best_of(frame, [c.hypotheses for c in cands], deck)
    retry = [i for i, (r, c) in enumerate(zip(results, cands)) if r.label == UNKNOWN and c.fallback]
    if retry:
        for i, r in zip(retry, _best_of(frame, [cands[i].fallback for i in retry], deck)):
            if r.label != UNKNOWN:
                results[i] = r
    found = [r for r, c in zip(results, cands) if not (c.partial and r.label == UNKNOWN)]
    found.sort(key=lambda r: (r.label != UNKNOWN, r.score), reverse=True)
    if not found:
        return []
    mm = cv2.perspectiveTransform(
        np.stack([r.quad for r in found]).reshape(-1, 1, 2).astype(np.float64), homography
    ).reshape(-1, 4, 2).astype(np.float32)
    kept: list[int] = []
    for i in range(len(found)):
        area = max(abs(cv2.contourArea(mm[i])), 1e-6)
        if all(cv2.intersectConvexConvex(mm[i], mm[j])[0] < OVERLAP_MAX * area for j in kept):
            kept.append(i)
    centres = mm.mean(axis=1)
    return [
        CardObservation(found[i].label, found[i].confidence, tuple((float(x), float(y)) for x, y in found[i].quad))
        for i in sorted(kept, key=lambda i: tuple(centres[i][::-1]))
    ]
