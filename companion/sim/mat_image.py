"""The printable play mat: 4 ArUco corner markers, the outlined zones of each seat (a tableau, or a
conveyor belt and a tray), labels and a title.

The same image serves the printer (``companion mat``, 300 dpi) and the simulator (drawn at
~2 px/mm, then warped into the camera view), so what the tracker sees in simulation is exactly
what the user prints.
"""

from __future__ import annotations

import cv2
import numpy as np

from companion.vision.mat_layout import TEXT_FONT, TITLE_MAX_WIDTH, MatLayout, Marker, Zone, text_size_px, title_lines_mm

MAT_BG = (236, 242, 246)  # warm off-white (BGR): light, so coloured cards stand out
ZONE_FILL = (224, 230, 233)
ZONE_EDGE = (150, 158, 165)
INK = (95, 85, 75)  # dark slate for text and arrows
#: A Sushi Roll mat is printed mid grey (mat, zone fill, zone edge, ink), not off-white: the nigiri
#: dice are white, and the icon reader (``companion.vision.dice_find``) tells a die from the table
#: by its colour and brightness, so a white die on white paper is not seen at all (issue #10: no
#: nigiri die found on the light mat). Grey is no die's colour and a white die is ~1.5x as bright;
#: the print stays dark, as light print would be taken for white dice.
ROLL_PALETTE = ((165, 165, 163), (150, 150, 148), (100, 100, 100), (60, 55, 50))


def _palette(layout: MatLayout) -> tuple:
    """(mat, zone fill, zone edge, ink) BGR for ``layout``'s game."""
    return ROLL_PALETTE if layout.game == "sushi-roll" else (MAT_BG, ZONE_FILL, ZONE_EDGE, INK)
_FONT = TEXT_FONT  # cv2.FONT_HERSHEY_DUPLEX


def mat_size_px(layout: MatLayout, px_per_mm: float) -> tuple[int, int]:
    """(width, height) in px of the mat image at ``px_per_mm``."""
    return int(round(layout.width_mm * px_per_mm)), int(round(layout.height_mm * px_per_mm))


def _aruco_dictionary(layout: MatLayout) -> cv2.aruco.Dictionary:
    name = layout.aruco_dictionary
    code = getattr(cv2.aruco, name, None)
    if not name.startswith("DICT_") or code is None:
        raise ValueError(f"mat {layout.name}: unknown ArUco dictionary {name!r}")
    return cv2.aruco.getPredefinedDictionary(code)


def _draw_marker(img: np.ndarray, marker: Marker, dictionary: cv2.aruco.Dictionary, ppm: float) -> None:
    # One image pixel per cell, then each cell filled at its exact mm boundaries, so the
    # printed marker corners land on marker.corners_mm() to within half a pixel at any dpi.
    cells = dictionary.markerSize + 2
    bits = cv2.aruco.generateImageMarker(dictionary, marker.id, cells, borderBits=1)
    cell_mm = marker.size_mm / cells
    x0, y0 = marker.corners_mm()[0]
    quiet = cell_mm  # one cell of white all round, the minimum ArUco detection needs
    cv2.rectangle(
        img,
        (int(round((x0 - quiet) * ppm)), int(round((y0 - quiet) * ppm))),
        (int(round((x0 + marker.size_mm + quiet) * ppm)) - 1, int(round((y0 + marker.size_mm + quiet) * ppm)) - 1),
        (255, 255, 255),
        -1,
    )
    edges_x = [int(round((x0 + k * cell_mm) * ppm)) for k in range(cells + 1)]
    edges_y = [int(round((y0 + k * cell_mm) * ppm)) for k in range(cells + 1)]
    for r in range(cells):
        for c in range(cells):
            v = int(bits[r, c])
            img[edges_y[r] : edges_y[r + 1], edges_x[c] : edges_x[c + 1]] = (v, v, v)


def _text_mask(text: str, height_px: int) -> np.ndarray:
    """Anti-aliased text as a float32 (h, w) coverage mask, cap height ≈ height_px."""
    w, h, scale, thick, base = text_size_px(text, height_px)  # the box the reader's title test uses
    pad = thick + 2
    m = np.zeros((h, w), np.uint8)
    cv2.putText(m, text, (pad, h - pad - base), _FONT, scale, 255, thick, cv2.LINE_AA)
    return m.astype(np.float32) / 255.0


def _up_arrow_mask(height_px: int) -> np.ndarray:
    """A filled arrow pointing up (towards row 0) as a float32 coverage mask."""
    s = max(height_px, 4)
    m = np.zeros((s, s), np.uint8)
    pts = np.array(
        [[s * 0.5, 0], [s, s * 0.45], [s * 0.68, s * 0.45], [s * 0.68, s], [s * 0.32, s], [s * 0.32, s * 0.45], [0, s * 0.45]]
    )
    cv2.fillPoly(m, [np.round(pts * 16).astype(np.int32)], 255, cv2.LINE_AA, shift=4)
    return m.astype(np.float32) / 255.0


def _stamp(img: np.ndarray, mask: np.ndarray, center: tuple[float, float], colour, rotate180: bool) -> None:
    """Blend ``colour`` into ``img`` through ``mask`` centred at ``center`` (px), clipped to the image."""
    if rotate180:
        mask = mask[::-1, ::-1]
    h, w = mask.shape
    x0, y0 = int(round(center[0] - w / 2)), int(round(center[1] - h / 2))
    H, W = img.shape[:2]
    xa, ya, xb, yb = max(x0, 0), max(y0, 0), min(x0 + w, W), min(y0 + h, H)
    if xa >= xb or ya >= yb:
        return
    m = mask[ya - y0 : yb - y0, xa - x0 : xb - x0, None]
    roi = img[ya:yb, xa:xb]
    roi[:] = (roi * (1.0 - m) + np.asarray(colour, np.float32) * m).astype(np.uint8)


def _hstack_masks(parts: list[np.ndarray], gap: int) -> np.ndarray:
    h = max(p.shape[0] for p in parts)
    out = []
    for i, p in enumerate(parts):
        top = (h - p.shape[0]) // 2
        out.append(np.pad(p, ((top, h - p.shape[0] - top), (gap if i else 0, 0))))
    return np.hstack(out)


def _draw_zone(img: np.ndarray, zone: Zone, layout: MatLayout, ppm: float) -> None:
    x, y, w, h = zone.rect_mm
    p0 = (int(round(x * ppm)), int(round(y * ppm)))
    p1 = (int(round((x + w) * ppm)) - 1, int(round((y + h) * ppm)) - 1)
    _, fill, edge, ink = _palette(layout)
    cv2.rectangle(img, p0, p1, fill, -1)
    cv2.rectangle(img, p0, p1, edge, max(1, int(round(1.2 * ppm))), cv2.LINE_AA)
    facing_180 = zone.facing % 360 == 180
    if zone.kind == "belt":
        # A conveyor belt lies between its tray and the middle: its label goes inside it, along the
        # player's side, small enough to leave the dice room (sushi-roll.txt, SET UP).
        text_px = max(6, int(round(min(7.0, h * 0.18) * ppm)))
        label = _text_mask(zone.name.upper() + "  -  ROLL THE DICE HERE", text_px)
        cy = (y + text_px / ppm) if facing_180 else (y + h - text_px / ppm)
        _stamp(img, label, ((x + w / 2) * ppm, cy * ppm), ink, facing_180)
        return
    # The label sits in the strip between the zone and the player's mat edge, reading upright
    # for that player; the arrow shows which way card tops point (away from the player).
    strip_mm = y if facing_180 else layout.height_mm - (y + h)
    text_mm = max(3.0, min(9.0, strip_mm * 0.5))
    text_px = max(6, int(round(text_mm * ppm)))
    label = _text_mask(zone.name.upper(), text_px)
    if zone.kind == "tableau":
        hint = _text_mask("card tops this way", max(5, int(round(text_px * 0.55))))
        arrow = _up_arrow_mask(int(round(text_px * 1.3)))
        mask = _hstack_masks([label, arrow, hint], gap=int(round(text_px * 0.8)))
    else:  # a Sushi Roll tray: the dice a player keeps
        hint = _text_mask("the dice you keep", max(5, int(round(text_px * 0.55))))
        mask = _hstack_masks([label, hint], gap=int(round(text_px * 0.8)))
    cy = (y - strip_mm / 2) if facing_180 else (y + h + strip_mm / 2)
    _stamp(img, mask, ((x + w / 2) * ppm, cy * ppm), ink, facing_180)


def render_mat(layout: MatLayout, px_per_mm: float) -> np.ndarray:
    """Draw the printable mat for ``layout``.

    Args:
        layout: the mat geometry (mm).
        px_per_mm: resolution; 300 dpi is ``300 / 25.4`` ≈ 11.81 (an 840 × 594 mm mat is then
            9921 × 7016 px, ~210 MB: everything is drawn in place in one uint8 buffer).

    Returns:
        (H, W, 3) uint8 BGR with ``W = round(width_mm * px_per_mm)``, ``H = round(height_mm *
        px_per_mm)``. Mat mm ``(x, y)`` lies at pixel ``(x * px_per_mm, y * px_per_mm)`` (pixel
        edges), so marker ``m``'s outer black corners sit at ``m.corners_mm() * px_per_mm``.

    Raises:
        ValueError: px_per_mm ≤ 0, or the layout names an unknown ArUco dictionary.
    """
    if not px_per_mm > 0:
        raise ValueError(f"px_per_mm must be positive, not {px_per_mm}")
    ppm = float(px_per_mm)
    dictionary = _aruco_dictionary(layout)
    w, h = mat_size_px(layout, ppm)
    img = np.empty((h, w, 3), np.uint8)
    img[:] = _palette(layout)[0]
    for zone in layout.zones:
        _draw_zone(img, zone, layout, ppm)
    for marker in layout.markers:
        _draw_marker(img, marker, dictionary, ppm)

    # Title in the free band between the top and bottom zones (mat_layout.title_lines_mm: the
    # reader's title test finds it by the same lines).
    max_w = TITLE_MAX_WIDTH * layout.width_mm * ppm
    for k, (text, (cx, cy), cap_mm) in enumerate(title_lines_mm(layout)):
        mask = _text_mask(text, max(8 if k == 0 else 6, int(round(cap_mm * ppm))))
        if mask.shape[1] > max_w:  # very small mats: shrink rather than spill into the zones
            f = max_w / mask.shape[1]
            mask = cv2.resize(mask, None, fx=f, fy=f, interpolation=cv2.INTER_AREA)
        _stamp(img, mask, (cx * ppm, cy * ppm), _palette(layout)[3], False)
    return img
