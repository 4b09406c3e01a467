"""A fifth simulated deck style, "pattern": kawaii food on full-bleed textile patterns, white edge.

The reader has been tuned while looking at all four earlier styles ("flat", "illustrated", "noir",
"watercolour"), so none of them is a clean held-out measure of issue #6 ("read any deck a user
enrols") any more. This style is drawn to be as unlike all four as we can and as like a printed
commercial deck in a bright "kawaii" look, with our own OpenCV drawings, never a publisher's art:

* **Full-bleed repeating textile patterns** — behind the food, every type has its own two-colour
  Japanese-style textile pattern filling the whole field: seigaiha waves (tempura, the back),
  asanoha hemp-leaf stars (sashimi), polka dots (dumpling), ichimatsu checks (maki), diagonal
  stripes (nigiri), gingham (pudding), uroko scales (wasabi) and tatewaku wavy stripes (chopsticks).
  Strong, regular, high-contrast texture everywhere: the opposite of the flat style's plain colour
  and of watercolour's bare paper, and a periodic texture that can line up with itself a period off.
* **Thick rounded dark outlines, bright saturated fills** — each food is built from flat-filled
  parts, each ringed by a 1 mm dark plum outline, the whole set inside a 0.8 mm white "sticker" halo;
  most foods have a little face (two eyes with highlights, a smile, pink cheeks).
* **A white rounded border** — 1.5 mm of white card stock all round, the pattern field inside it
  with rounded corners, so on the light mat the card's own edge is white.
* **Small type** — the name in small capitals on a white pill at the top-left and a smaller rule
  reminder on a white pill at the bottom, so fronts are chiral.
* **Small in-type differences** — maki_1/2/3 share every pixel except 1, 2 or 3 small roll marks
  (3.6 mm) on a white tag at the top-right; the three nigiri share everything except the topping's
  fill colour (yellow egg, orange salmon, pale grey-lilac squid) and the one word of their name.
* **Point-symmetric back** — indigo seigaiha with a central white-and-red emblem inside the white
  border, made exactly symmetric by averaging with its 180° turn.
* **Deterministic** — no randomness but a fine print grain seeded from the label with ``zlib.crc32``.

Faces are drawn at the shared 440 × 630 px design size (``design``: 10 px/mm), BGR uint8.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Callable

import cv2
import numpy as np

from companion.sim.face_design import DH, DW, LABELS, family as _family, finished, point_symmetric, seeded as _rng

__all__ = ["BORDER", "LABELS", "PATTERN", "design"]

_AA = cv2.LINE_AA

Colour = tuple[int, int, int]

BORDER = 15  # white card-stock border (design px): 1.5 mm on a 44 mm card
_CORNER_R = 28  # the pattern field's rounded corner radius (design px)
_OUTLINE = 10  # dark outline around every food part (design px): 1 mm
_HALO = 8  # white sticker halo outside the outline (design px)

_WHITE: Colour = (250, 250, 250)
_STOCK: Colour = (244, 246, 247)  # the white card stock of the border
_INK: Colour = (60, 30, 55)  # dark plum: outlines, eyes, text
_CHEEK: Colour = (170, 130, 250)
_RICE: Colour = (245, 248, 250)

#: Per family: the textile pattern's name and its two colours (BGR: ground, figure).
PATTERN: dict[str, tuple[str, Colour, Colour]] = {
    "tempura": ("seigaiha", (30, 135, 245), (110, 215, 255)),  # orange ground, yellow waves
    "sashimi": ("asanoha", (95, 175, 40), (200, 245, 175)),  # green ground, pale leaf lines
    "dumpling": ("polka", (235, 160, 45), (255, 235, 205)),  # sky blue ground, white dots
    "maki": ("checks", (55, 35, 210), (115, 100, 245)),  # red and light red checks
    "nigiri": ("stripes", (35, 200, 250), (150, 240, 255)),  # yellow diagonal stripes
    "pudding": ("gingham", (200, 130, 250), (245, 220, 255)),  # pink gingham
    "wasabi": ("uroko", (70, 205, 150), (35, 120, 55)),  # lime and dark green scales
    "chopsticks": ("tatewaku", (170, 70, 135), (235, 175, 220)),  # purple wavy stripes
    "back": ("seigaiha", (120, 50, 25), (215, 170, 120)),  # indigo and light blue waves
}

#: The nigiri differ only in this (and one word of the name): the topping's fill colour.
_TOPPING: dict[str, Colour] = {"egg": (40, 215, 255), "salmon": (60, 130, 250), "squid": (235, 215, 225)}

_TITLE = {
    "tempura": "TEMPURA", "sashimi": "SASHIMI", "dumpling": "DUMPLING", "maki": "MAKI ROLL",
    "egg_nigiri": "EGG NIGIRI", "salmon_nigiri": "SALMON NIGIRI", "squid_nigiri": "SQUID NIGIRI",
    "pudding": "PUDDING", "wasabi": "WASABI", "chopsticks": "CHOPSTICKS",
}
_RULE = {
    "tempura": "2 = 5", "sashimi": "3 = 10", "dumpling": "1 3 6 10 15", "maki": "most 6 / next 3",
    "nigiri": "1 / 2 / 3", "pudding": "end: +6 / -6", "wasabi": "next nigiri x3", "chopsticks": "take 2 later",
}

_YY, _XX = np.mgrid[0:DH, 0:DW].astype(np.float32)


def _pt(x: float, y: float) -> tuple[int, int]:
    return int(round(x)), int(round(y))


# --------------------------------------------------------------------------------------------
# Textile patterns: each returns a (DH, DW) float32 mask of the figure (1) over the ground (0).


def _seigaiha(period: int = 56) -> np.ndarray:
    """Overlapping fans of concentric rings, row on row (each row half a period across and a
    quarter period down from the last, drawn over it): the classic wave pattern."""
    m = np.zeros((DH, DW), np.uint8)
    r = period // 2
    for row, y in enumerate(range(-r, DH + r + 1, r // 2)):
        for x in range(-period + (row % 2) * r, DW + period, period):
            for k, rr in enumerate(range(r, 0, -r // 4)):
                cv2.circle(m, (x, y), rr, 0 if k % 2 else 255, -1, _AA)
            cv2.circle(m, (x, y), r, 0, 2, _AA)  # a thin ground line between overlapping fans
    return m.astype(np.float32) / 255.0


def _asanoha(side: int = 64, thick: int = 3) -> np.ndarray:
    """Hemp-leaf stars: a triangular lattice whose every triangle has lines from its centre to its
    three corners."""
    m = np.zeros((DH, DW), np.uint8)
    h = side * math.sqrt(3) / 2
    rows, cols = int(DH / h) + 3, int(DW / side) + 3
    for j in range(-1, rows):
        for i in range(-1, cols):
            x0 = i * side + (j % 2) * side / 2
            y0 = j * h
            a, b, c = (x0, y0), (x0 + side, y0), (x0 + side / 2, y0 + h)  # a point-down triangle
            d = (x0 + side * 1.5, y0 + h)
            for tri in ((a, b, c), (b, d, c)):
                cx = sum(p[0] for p in tri) / 3
                cy = sum(p[1] for p in tri) / 3
                for p in tri:
                    cv2.line(m, _pt(cx, cy), _pt(*p), 255, thick, _AA)
                cv2.polylines(m, [np.array([_pt(*p) for p in tri], np.int32)], True, 255, thick, _AA)
    return m.astype(np.float32) / 255.0


def _polka(period: int = 48, r: int = 11) -> np.ndarray:
    """Dots on a staggered grid."""
    m = np.zeros((DH, DW), np.uint8)
    for row, y in enumerate(range(0, DH + period, period // 2)):
        for x in range((row % 2) * period // 2, DW + period, period):
            cv2.circle(m, (x, y), r, 255, -1, _AA)
    return m.astype(np.float32) / 255.0


def _checks(cell: int = 40) -> np.ndarray:
    """Ichimatsu: a chequerboard of square cells."""
    return (((_XX // cell) + (_YY // cell)) % 2).astype(np.float32)


def _stripes(period: int = 36) -> np.ndarray:
    """Diagonal stripes (down to the right), half figure, half ground."""
    return (((_XX + _YY) % period) < period / 2).astype(np.float32)


def _gingham(period: int = 40) -> np.ndarray:
    """Gingham: horizontal and vertical bands; where they cross the figure is full, elsewhere half."""
    h = ((_YY % period) < period / 2).astype(np.float32)
    v = ((_XX % period) < period / 2).astype(np.float32)
    return 0.5 * h + 0.5 * v


def _uroko(w: int = 44, h: int = 38) -> np.ndarray:
    """Uroko scales: rows of upward triangles, each row's triangles between the last row's."""
    m = np.zeros((DH, DW), np.uint8)
    for row, y in enumerate(range(0, DH + h, h)):
        off = (row % 2) * w // 2
        for x in range(-w + off, DW + w, w):
            tri = np.array([[x, y + h], [x + w, y + h], [x + w // 2, y]], np.int32)
            cv2.fillPoly(m, [tri], 255, _AA)
    return m.astype(np.float32) / 255.0


def _tatewaku(period: int = 60, amp: float = 8.0, wave: float = 90.0) -> np.ndarray:
    """Tatewaku: vertical bands that swell and pinch, neighbours out of step (wavy vertical stripes)."""
    band = _XX // period
    x = (_XX % period) - period / 2
    half = period * 0.22 + amp * np.sin(2 * math.pi * _YY / wave + math.pi * band)
    return (np.abs(x) < half).astype(np.float32)


_PATTERNS: dict[str, Callable[[], np.ndarray]] = {
    "seigaiha": _seigaiha, "asanoha": _asanoha, "polka": _polka, "checks": _checks, "stripes": _stripes,
    "gingham": _gingham, "uroko": _uroko, "tatewaku": _tatewaku,
}


@lru_cache(maxsize=None)
def _pattern_mask(name: str) -> np.ndarray:
    m = _PATTERNS[name]()
    m.setflags(write=False)
    return m


def _field_mask() -> np.ndarray:
    """(DH, DW) float32: 1 inside the rounded pattern field, 0 on the white border."""
    m = np.zeros((DH, DW), np.uint8)
    b, r = BORDER, _CORNER_R
    x0, y0, x1, y1 = b, b, DW - 1 - b, DH - 1 - b
    cv2.rectangle(m, (x0 + r, y0), (x1 - r, y1), 255, -1)
    cv2.rectangle(m, (x0, y0 + r), (x1, y1 - r), 255, -1)
    for cx, cy in ((x0 + r, y0 + r), (x1 - r, y0 + r), (x0 + r, y1 - r), (x1 - r, y1 - r)):
        cv2.circle(m, (cx, cy), r, 255, -1, _AA)
    return m.astype(np.float32) / 255.0


def _card(fam: str) -> np.ndarray:
    """(DH, DW, 3) float32: white stock with the family's pattern in the rounded field."""
    name, ground, figure = PATTERN[fam]
    p = _pattern_mask(name)[..., None]
    art = np.asarray(ground, np.float32) * (1 - p) + np.asarray(figure, np.float32) * p
    f = _field_mask()[..., None]
    return np.asarray(_STOCK, np.float32) * (1 - f) + art * f


# --------------------------------------------------------------------------------------------
# Outlined parts: a food is a list of (mask, fill) parts painted in order, each inside its own
# dark outline, the whole inside a white halo.

Part = tuple[np.ndarray, Colour]


def _mask(draw: Callable[[np.ndarray], object]) -> np.ndarray:
    """(DH, DW) uint8 0/255: a shape drawn with ``draw`` (255 on a blank canvas)."""
    m = np.zeros((DH, DW), np.uint8)
    draw(m)
    return m


def _grow(m: np.ndarray, px: int) -> np.ndarray:
    k = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * px + 1, 2 * px + 1))
    return cv2.dilate(m, k)


def _paint(img: np.ndarray, m: np.ndarray, colour: Colour) -> None:
    """Paint ``colour`` into float ``img`` where uint8 mask ``m`` is set (its anti-aliased edge blended)."""
    a = (m.astype(np.float32) / 255.0)[..., None]
    img *= 1 - a
    img += a * np.asarray(colour, np.float32)


def _sticker(img: np.ndarray, parts: list[Part]) -> None:
    """Paint ``parts`` as one sticker: a white halo round their union, then each part's dark
    outline and flat fill in order (a later part overlaps the earlier ones, outline and all)."""
    union = np.zeros((DH, DW), np.uint8)
    for m, _ in parts:
        union = np.maximum(union, m)
    _paint(img, cv2.GaussianBlur(_grow(union, _OUTLINE + _HALO), (0, 0), 1.0), _WHITE)
    for m, fill in parts:
        _paint(img, cv2.GaussianBlur(_grow(m, _OUTLINE), (0, 0), 1.0), _INK)
        _paint(img, m, fill)


def _face(img: np.ndarray, c: tuple[int, int], s: float = 1.0) -> None:
    """A kawaii face centred at ``c``, ``s`` times the default size: eyes with highlights, smile, cheeks."""
    img8 = img  # drawn straight onto the float image with cv2 (colours as floats)
    ex, ey, er = int(32 * s), int(10 * s), max(3, int(10 * s))
    for sx in (-1, 1):
        cv2.circle(img8, (c[0] + sx * ex, c[1] - ey), er, _INK, -1, _AA)
        cv2.circle(img8, (c[0] + sx * ex - er // 3, c[1] - ey - er // 3), max(1, er // 3), _WHITE, -1, _AA)
        cv2.ellipse(img8, (c[0] + sx * int(52 * s), c[1] + int(10 * s)), (int(12 * s), int(7 * s)), 0, 0, 360,
                    _CHEEK, -1, _AA)
    cv2.ellipse(img8, (c[0], c[1] + int(4 * s)), (int(12 * s), int(9 * s)), 0, 20, 160, _INK, max(2, int(4 * s)),
                _AA)


# --------------------------------------------------------------------------------------------
# The foods (centred about x = 220, between the name pill and the rule pill).


def _tempura(img: np.ndarray) -> None:
    """A battered shrimp curled into a "C", bumpy golden batter, a red tail fan, a face."""
    c, ax = (205, 330), (115, 110)
    body = _mask(lambda m: cv2.ellipse(m, c, ax, 0, 70, 300, 255, 80, _AA))
    for a in range(80, 300, 25):  # batter bumps along the outside of the curl
        t = math.radians(a)
        cv2.circle(body, _pt(c[0] + (ax[0] + 36) * math.cos(t), c[1] + (ax[1] + 36) * math.sin(t)), 17, 255, -1, _AA)
    tail = _mask(lambda m: cv2.fillPoly(m, [np.array([[300, 222], [380, 150], [372, 205], [410, 240],
                                                      [305, 262]], np.int32)], 255, _AA))
    _sticker(img, [(tail, (60, 60, 235)), (body, (60, 180, 250))])
    _face(img, (130, 330), 0.8)


def _sashimi(img: np.ndarray) -> None:
    """Three salmon slices with white fat lines on a white oval plate."""
    plate = _mask(lambda m: cv2.ellipse(m, (220, 380), (180, 100), 0, 0, 360, 255, -1, _AA))
    parts: list[Part] = [(plate, _WHITE)]
    for cx, ang, cy in ((140, -14, 340), (300, 14, 340), (220, 0, 320)):
        box = cv2.boxPoints(((cx, cy), (78, 190), ang)).astype(np.int32)
        parts.append((_mask(lambda m, box=box: cv2.fillPoly(m, [box], 255, _AA)), (80, 120, 250)))
    _sticker(img, parts)
    for cx, ang, cy in ((140, -14, 340), (300, 14, 340), (220, 0, 320)):  # fat lines across the slices
        t = math.radians(ang)
        for k in (-55, 0, 55):
            px, py = cx - k * math.sin(t), cy + k * math.cos(t)
            dx, dy = 26 * math.cos(t), 26 * math.sin(t)
            cv2.line(img, _pt(px - dx, py - dy + 8), _pt(px + dx, py + dy - 8), (200, 215, 255), 9, _AA)
    _face(img, (220, 300), 0.6)


def _dumpling(img: np.ndarray) -> None:
    """A gyoza: a cream half-moon with pleats on top and a toasted base, a face."""
    body = _mask(lambda m: (cv2.ellipse(m, (220, 420), (170, 170), 0, 180, 360, 255, -1, _AA),
                            cv2.ellipse(m, (220, 420), (170, 40), 0, 0, 180, 255, -1, _AA)))
    base = _mask(lambda m: cv2.ellipse(m, (220, 430), (150, 30), 0, 0, 180, 255, -1, _AA))
    _sticker(img, [(body, (175, 225, 250)), (base, (60, 140, 215))])
    for dx in (-100, -50, 0, 50, 100):
        cv2.ellipse(img, (220 + dx, 268 + abs(dx) // 4), (14, 40), 0, 200, 340, _INK, 6, _AA)
    _face(img, (220, 370), 1.0)


def _maki(img: np.ndarray) -> None:
    """One maki roll seen from above: a dark nori ring, white rice, a pink and green filling, a face."""
    c = (220, 345)
    nori = _mask(lambda m: cv2.circle(m, c, 150, 255, -1, _AA))
    rice = _mask(lambda m: cv2.circle(m, c, 118, 255, -1, _AA))
    fill = _mask(lambda m: cv2.ellipse(m, (c[0] - 30, c[1] + 40), (42, 30), 0, 0, 360, 255, -1, _AA))
    cuc = _mask(lambda m: cv2.ellipse(m, (c[0] + 38, c[1] + 44), (22, 26), 0, 0, 360, 255, -1, _AA))
    img_parts: list[Part] = [(nori, (70, 80, 45)), (rice, _RICE)]
    _sticker(img, img_parts)
    _paint(img, fill, (110, 90, 250))
    _paint(img, cuc, (80, 200, 90))
    _face(img, (c[0], c[1] - 40), 0.8)


def _maki_tag(img: np.ndarray) -> None:
    """The white tag at the top-right every maki has (the count marks sit on it)."""
    cv2.rectangle(img, (DW - 166, 32), (DW - 56, 80), _WHITE, -1, _AA)
    cv2.circle(img, (DW - 166, 56), 24, _WHITE, -1, _AA)
    cv2.circle(img, (DW - 56, 56), 24, _WHITE, -1, _AA)


def _maki_count(img: np.ndarray, n: int) -> None:
    """The ONLY difference between maki_1/2/3: 1–3 small roll marks (3.6 mm) on the top-right tag."""
    for k in range(n):
        c = _pt(DW - 111 + 40 * (k - (n - 1) / 2), 56)
        cv2.circle(img, c, 18, _INK, -1, _AA)
        cv2.circle(img, c, 11, _RICE, -1, _AA)
        cv2.circle(img, c, 5, (110, 90, 250), -1, _AA)


def _nigiri(img: np.ndarray, topping: str) -> None:
    """A rice block under a topping; only the topping's fill colour depends on the type."""
    rice = _mask(lambda m: cv2.ellipse(m, (220, 410), (150, 75), 0, 0, 360, 255, -1, _AA))
    top = _mask(lambda m: cv2.ellipse(m, (220, 330), (175, 70), -5, 0, 360, 255, -1, _AA))
    _sticker(img, [(rice, _RICE), (top, _TOPPING[topping])])
    for dx, dy in ((-90, 445), (-25, 465), (45, 455), (105, 432)):  # rice grains
        cv2.ellipse(img, (220 + dx, dy), (12, 6), dx // 4, 0, 360, (215, 220, 225), -1, _AA)
    _face(img, (220, 330), 0.8)


def _pudding(img: np.ndarray) -> None:
    """A custard pudding on a plate: yellow body, caramel top with drips, a cherry, a face."""
    plate = _mask(lambda m: cv2.ellipse(m, (220, 462), (185, 42), 0, 0, 360, 255, -1, _AA))
    body = _mask(lambda m: cv2.fillPoly(m, [np.array([[110, 450], [330, 450], [292, 255], [148, 255]],
                                                     np.int32)], 255, _AA))
    caramel = _mask(lambda m: cv2.fillPoly(m, [np.array([[148, 255], [292, 255], [286, 305], [262, 282],
                                                         [240, 318], [212, 284], [182, 310], [160, 280]],
                                                        np.int32)], 255, _AA))
    cherry = _mask(lambda m: cv2.circle(m, (228, 222), 26, 255, -1, _AA))
    _sticker(img, [(plate, _WHITE), (body, (80, 220, 255)), (caramel, (30, 95, 170)), (cherry, (60, 40, 225))])
    cv2.line(img, (238, 198), (262, 150), _INK, 6, _AA)
    _face(img, (220, 385), 0.9)


def _wasabi(img: np.ndarray) -> None:
    """A lumpy bright-green mound in a small white dish, a face."""
    dish = _mask(lambda m: cv2.ellipse(m, (220, 452), (175, 48), 0, 0, 360, 255, -1, _AA))
    mound = _mask(lambda m: [cv2.circle(m, cc, r, 255, -1, _AA) for cc, r in
                             (((220, 365), 100), ((140, 405), 60), ((300, 405), 60), ((220, 278), 66),
                              ((234, 220), 34))])
    mound[450:] = 0
    _sticker(img, [(dish, _WHITE), (mound, (70, 225, 120))])
    cv2.ellipse(img, (180, 300), (24, 12), -40, 0, 360, (190, 250, 205), -1, _AA)  # a highlight
    _face(img, (220, 370), 1.0)


def _chopsticks(img: np.ndarray) -> None:
    """Two long chopsticks leaning together through a red paper sleeve with a white dot."""
    parts: list[Part] = []
    for (x0, y0), (x1, y1) in (((130, 520), (190, 140)), ((310, 520), (240, 140))):
        d = np.array([x1 - x0, y1 - y0], np.float32)
        nrm = np.array([-d[1], d[0]]) / np.linalg.norm(d)
        w0, w1 = 18, 9
        poly = np.array([[x0 + nrm[0] * w0, y0 + nrm[1] * w0], [x1 + nrm[0] * w1, y1 + nrm[1] * w1],
                         [x1 - nrm[0] * w1, y1 - nrm[1] * w1], [x0 - nrm[0] * w0, y0 - nrm[1] * w0]], np.int32)
        parts.append((_mask(lambda m, poly=poly: cv2.fillPoly(m, [poly], 255, _AA)), (80, 165, 225)))
    sleeve = np.array([[108, 380], [332, 380], [322, 452], [118, 452]], np.int32)
    parts.append((_mask(lambda m: cv2.fillPoly(m, [sleeve], 255, _AA)), (50, 50, 225)))
    _sticker(img, parts)
    cv2.circle(img, (220, 416), 16, _WHITE, -1, _AA)


_ART = {"tempura": _tempura, "sashimi": _sashimi, "dumpling": _dumpling, "maki": _maki, "pudding": _pudding,
        "wasabi": _wasabi, "chopsticks": _chopsticks}


# --------------------------------------------------------------------------------------------
# Faces.


def _pill(img: np.ndarray, text: str, left: int, cy: int, scale: float, thick: int) -> None:
    """``text`` in small dark capitals on a white rounded pill whose left end is at ``left``."""
    font = cv2.FONT_HERSHEY_SIMPLEX
    (w, h), _ = cv2.getTextSize(text, font, scale, thick)
    r = h // 2 + 8
    cv2.rectangle(img, (left + r, cy - r), (left + r + w, cy + r), _WHITE, -1, _AA)
    cv2.circle(img, (left + r, cy), r, _WHITE, -1, _AA)
    cv2.circle(img, (left + r + w, cy), r, _WHITE, -1, _AA)
    # putText draws only on uint8: the letters go through a mask.
    _paint(img, _mask(lambda m: cv2.putText(m, text, (left + r, cy + h // 2), font, scale, 255, thick, _AA)), _INK)


def _finish(img: np.ndarray, key: str) -> np.ndarray:
    """Print look: fine grain, a slight softening, then uint8."""
    grain = _rng("pattern:" + key).normal(0, 2.0, (DH, DW, 1)).astype(np.float32)
    return np.clip(cv2.GaussianBlur(img + grain, (0, 0), 0.6) + 0.5, 0, 255).astype(np.uint8)


def _front(label: str) -> np.ndarray:
    fam = _family(label)
    img = _card(fam)
    if fam == "nigiri":
        _nigiri(img, label.split("_")[0])
    else:
        _ART[fam](img)
    if fam == "maki":
        _maki_tag(img)
        _maki_count(img, int(label[-1]))
    _pill(img, _TITLE.get(label, _TITLE.get(fam, "")), 30, 56, 0.62, 2)
    _pill(img, _RULE[fam], 30, DH - 52, 0.5, 1)
    return _finish(img, fam)


def _back() -> np.ndarray:
    """Indigo seigaiha with a central white-and-red emblem inside the white border, exactly
    point-symmetric (averaged with its 180° turn: a face-down card has no orientation)."""
    img = _card("back")
    cx, cy = (DW - 1) / 2, (DH - 1) / 2
    cv2.circle(img, _pt(cx, cy), 128, _INK, -1, _AA)
    cv2.circle(img, _pt(cx, cy), 118, _WHITE, -1, _AA)
    cv2.circle(img, _pt(cx, cy), 80, (50, 40, 220), -1, _AA)
    for a in range(0, 360, 45):
        t = math.radians(a)
        cv2.circle(img, _pt(cx + 99 * math.cos(t), cy + 99 * math.sin(t)), 9, (50, 40, 220), -1, _AA)
    cv2.circle(img, _pt(cx, cy), 34, _WHITE, -1, _AA)
    img = _finish(img, "back")
    return point_symmetric(img)


@lru_cache(maxsize=None)
def design(label: str) -> np.ndarray:
    """The pattern face (or back) of ``label``: (630, 440, 3) uint8 BGR, cached and read-only
    (:func:`companion.sim.face_design.finished`; ValueError for an unknown label)."""
    return finished(label, _front, _back)
