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
   there; thin printed lines (the zone outlines) are removed by an opening.
4. Every blob whose area is about one card (mm²) becomes a quad (``cv2.minAreaRect``); a blob of
   about two cards is split along its long axis when its shape says two cards side by side.
5. The quads go back to image px and are classified by the deck, as in ``read_cards``.

Assumes what the mat is designed for: pale zones (printed light, with thin outlines) and cards
that differ from them in colour or darkness, lying flat, not overlapping except a nigiri laid
squarely on its wasabi.
"""

from __future__ import annotations

import cv2
import numpy as np

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

    Returns one (N, 1, 2) int32 point array per group.
    """
    pieces = sorted(
        (c for c in contours if cv2.contourArea(c) >= PIECE_MIN * card_area), key=cv2.contourArea, reverse=True
    )
    groups: list[np.ndarray] = []
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
        else:
            groups[best] = np.vstack([groups[best], piece])
    return groups


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
    mask = (dark | coloured).astype(np.uint8) * 255
    # An opening about 2.5 mm wide erases printed lines and text strokes, never a card.
    line = max(3, int(round(2.5 * px_per_mm)) | 1)
    return cv2.morphologyEx(mask, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_RECT, (line, line)))


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


def find_cards_on_mat(
    frame: np.ndarray, homography: np.ndarray, layout: MatLayout, px_per_mm: float = PX_PER_MM
) -> list[np.ndarray]:
    """Quads of the cards lying in or across the mat's zones.

    Args:
        frame: (H, W, 3) uint8 BGR.
        homography: (3, 3) image px → mat mm.
        layout: the mat (zones and card size in mm).

    Returns:
        One group per card found: a list of (4, 2) float32 quads in image px, the hypotheses of
        where exactly that card lies (see :func:`_hypotheses`); the classifier picks one.
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
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    cw, ch = (v * px_per_mm for v in layout.card_mm)
    rects = []
    for pts in _merge_pieces(contours, cw * ch):
        rect = cv2.minAreaRect(pts)
        long_, short = max(rect[1]), min(rect[1])
        if _fits(long_, ch) and _fits(short, cw):
            rects.append(rect)
        elif n := _row_count(long_, short, cw, ch, MIN_GAP_MM * px_per_mm):
            rects.extend(_split_row(rect, n))  # cards in a row whose gaps blurred shut
    if not rects:
        return []
    inv = np.linalg.inv(np.diag([px_per_mm, px_per_mm, 1.0]) @ homography)
    groups = []
    for rect in rects:
        hyps = []
        for r in _hypotheses(rect, cw, ch):
            pts = cv2.boxPoints(r).reshape(-1, 1, 2).astype(np.float64)
            hyps.append(cv2.perspectiveTransform(pts, inv).reshape(4, 2).astype(np.float32))
        groups.append(hyps)
    return groups


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


def read_cards_on_mat(frame: np.ndarray, homography: np.ndarray, layout: MatLayout, deck) -> list[CardObservation]:
    """Find the cards on the mat and name them with ``deck``.

    Returns:
        One CardObservation per card, quads in image px (clockwise from the card face's top-left).
    """
    from companion.vision.deck import classify_quads

    groups = find_cards_on_mat(frame, homography, layout)
    results = classify_quads(frame, [q for hyps in groups for q in hyps], deck)
    out, i = [], 0
    for hyps in groups:
        best = max(results[i : i + len(hyps)], key=lambda r: r.score)
        i += len(hyps)
        out.append(CardObservation(best.label, best.confidence, tuple((float(x), float(y)) for x, y in best.quad)))
    return out
