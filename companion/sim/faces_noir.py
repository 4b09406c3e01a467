"""A third simulated deck style, "noir": dark full-bleed faces with thin gold line-art.

The reader was tuned while looking at the "flat" (``companion.sim.faces``) and "illustrated"
(``companion.sim.faces_illustrated``) styles, so neither is a clean held-out measure of issue #6
("read any deck a user enrols"). This style is drawn to be as unlike both as we can while still
looking like a plausible printed deck (a premium "dark edition"), with our own OpenCV drawings,
never a publisher's art:

* **Dark full bleed** — every face is near-black (L* below ~20) with a slight per-type tint (navy,
  plum, bottle green, oxblood, charcoal...), a soft spotlight behind the art and fine print grain.
  Both other styles are mid-to-light and colourful; here colour carries little of the type.
* **Line-art, not fills** — each food is drawn as thin (5–7 px of 440, about 0.6 mm) gold or cream
  outlines with at most a few small accent marks, so most of a card's pixels are the dark paper and
  the type lives in thin strokes that blur away at camera resolution.
* **Thin light frame** — a 3 px gold rule inset 16 px from the edge with cut corners, and a dark
  margin outside it: the card's own edge is dark, so on a dark table its outline is weak.
* **Small caps name at the TOP, centred**, with a rule under it; a small rule reminder at the
  bottom-left and a gold diamond ornament at the top-left only, so fronts are chiral.
* **Small in-type differences** — maki_1/2/3 share every pixel except 1, 2 or 3 small gold rings
  at the bottom-RIGHT (the illustrated maki put theirs at the top-left); the three nigiri share the
  rice, frame and background and differ only in the hatching inside one topping outline (egg:
  level bands and a nori strap; salmon: diagonal coral stripes; squid: a cross-hatch) and the one
  word of their name.
* **Point-symmetric back** — black with a gold rhombus lattice and a central sunburst, made
  exactly symmetric by averaging with its 180° turn.
* **Deterministic** — grain is seeded from the label's family with ``zlib.crc32``.

Faces are drawn at the shared 440 × 630 px design size (``design``), BGR uint8.
"""

from __future__ import annotations

import math
from functools import lru_cache

import cv2
import numpy as np

from companion.sim.face_design import DH, DW, LABELS, family as _family, finished, point_symmetric, seeded as _rng

_AA = cv2.LINE_AA

Colour = tuple[int, int, int]

_GOLD: Colour = (70, 170, 215)
_PALE_GOLD: Colour = (140, 205, 230)
_CREAM: Colour = (200, 228, 238)
_MUTED: Colour = (95, 115, 125)  # the small rule reminder: low contrast on purpose
_CORAL: Colour = (95, 125, 235)
_JADE: Colour = (120, 175, 95)
_LINE = 6  # main stroke width (design px): ~0.6 mm on a 44 mm card

_YY, _XX = np.mgrid[0:DH, 0:DW].astype(np.float32)


#: Paper colour (BGR) per family: all near-black, tinted so a type is not one shared black.
_PAPER: dict[str, Colour] = {
    "tempura": (22, 32, 48),  # dark umber
    "sashimi": (50, 28, 18),  # deep navy
    "dumpling": (34, 34, 36),  # charcoal
    "maki": (38, 24, 16),  # ink blue
    "nigiri": (16, 16, 20),  # near-black
    "pudding": (44, 22, 42),  # plum
    "wasabi": (26, 40, 20),  # bottle green
    "chopsticks": (22, 20, 52),  # oxblood
}

_TITLE = {
    "tempura": "TEMPURA", "sashimi": "SASHIMI", "dumpling": "DUMPLING", "maki": "MAKI",
    "egg_nigiri": "EGG NIGIRI", "salmon_nigiri": "SALMON NIGIRI", "squid_nigiri": "SQUID NIGIRI",
    "pudding": "PUDDING", "wasabi": "WASABI", "chopsticks": "CHOPSTICKS",
}
_RULE = {
    "tempura": "pair = 5", "sashimi": "three = 10", "dumpling": "1-3-6-10-15", "maki": "most rolls 6 | 3",
    "nigiri": "egg 1  salmon 2  squid 3", "pudding": "game end +6 | -6", "wasabi": "triples next nigiri",
    "chopsticks": "later: take two",
}


def _pt(x: float, y: float) -> tuple[int, int]:
    return int(round(x)), int(round(y))


# --------------------------------------------------------------------------------------------
# Paper, frame, text.


def _paper(fam: str) -> np.ndarray:
    """(H, W, 3) uint8 dark paper: the family tint, a soft spotlight above centre, a dark vignette.

    Why the spotlight sits above centre: it is one more cue that is not 180°-symmetric.
    """
    base = np.asarray(_PAPER[fam], np.float32)
    d = np.hypot((_XX - 220) / DW, (_YY - 260) / DH)
    light = 1.0 + 0.55 * np.exp(-(d / 0.32) ** 2) - 0.25 * np.clip(d - 0.35, 0, None)
    return np.clip(base * light[..., None], 0, 255).astype(np.uint8)


def _frame(img: np.ndarray) -> None:
    """The thin gold rule inset from the edge, with cut (chamfered) corners."""
    m, c = 16, 18
    pts = np.array([[m + c, m], [DW - 1 - m - c, m], [DW - 1 - m, m + c], [DW - 1 - m, DH - 1 - m - c],
                    [DW - 1 - m - c, DH - 1 - m], [m + c, DH - 1 - m], [m, DH - 1 - m - c], [m, m + c]], np.int32)
    cv2.polylines(img, [pts], True, _GOLD, 3, _AA)


def _text_centred(img: np.ndarray, text: str, y: int, scale: float, colour: Colour, thick: int,
                  font: int = cv2.FONT_HERSHEY_COMPLEX) -> None:
    (w, _), _ = cv2.getTextSize(text, font, scale, thick)
    cv2.putText(img, text, (int((DW - w) / 2), y), font, scale, colour, thick, _AA)


def _heading(img: np.ndarray, label: str) -> None:
    """Small caps name centred at the top with a rule under it; a diamond ornament at the top-left."""
    title = _TITLE.get(label, _TITLE.get(_family(label), ""))
    _text_centred(img, title, 74, 0.95, _PALE_GOLD, 2)
    cv2.line(img, (120, 94), (320, 94), _GOLD, 2, _AA)
    cv2.circle(img, (220, 94), 5, _GOLD, -1, _AA)
    diamond = np.array([[46, 34], [58, 50], [46, 66], [34, 50]], np.int32)
    cv2.fillPoly(img, [diamond], _GOLD, _AA)


def _footer(img: np.ndarray, fam: str) -> None:
    """The rule reminder, small and muted, at the bottom-left only."""
    cv2.putText(img, _RULE[fam], (44, DH - 44), cv2.FONT_HERSHEY_SIMPLEX, 0.55, _MUTED, 1, _AA)


def _finish(img: np.ndarray, key: str) -> np.ndarray:
    """Print look: a slight softening and fine grain (seeded), which shows on dark ink."""
    rng = _rng(key + ":grain")
    f = cv2.GaussianBlur(img.astype(np.float32), (0, 0), 0.7)
    grain = cv2.GaussianBlur(rng.standard_normal((DH, DW)).astype(np.float32), (0, 0), 0.8)
    f += 2.5 * grain[..., None]
    return np.clip(f + 0.5, 0, 255).astype(np.uint8)


# --------------------------------------------------------------------------------------------
# Line-art of the foods (outlines in gold/cream, a few small accents).


def _tempura(img: np.ndarray) -> None:
    """A battered shrimp curled into a "C", drawn as two outlines with segment ticks, and a tail fan."""
    c, r_out, r_in = (215, 330), 150, 85
    cv2.ellipse(img, c, (r_out, r_out - 10), 0, 60, 300, _GOLD, _LINE, _AA)
    cv2.ellipse(img, c, (r_in, r_in - 6), 0, 70, 290, _GOLD, _LINE, _AA)
    for a in range(80, 300, 22):  # segments across the body
        t = math.radians(a)
        cv2.line(img, _pt(c[0] + (r_in + 8) * math.cos(t), c[1] + (r_in + 2) * math.sin(t)),
                 _pt(c[0] + (r_out - 12) * math.cos(t), c[1] + (r_out - 22) * math.sin(t)), _CREAM, 3, _AA)
    # The head end (bottom right) is closed with a round cap; the tail (top right) fans out.
    cv2.ellipse(img, _pt(c[0] + 60, c[1] + 100), (52, 40), 20, 300, 480, _GOLD, _LINE, _AA)
    fan = np.array([[285, 215], [375, 150], [365, 200], [400, 235], [300, 250]], np.int32)
    cv2.polylines(img, [fan], True, _CORAL, _LINE - 1, _AA)
    cv2.line(img, (295, 232), (385, 205), _CORAL, 3, _AA)


def _sashimi(img: np.ndarray) -> None:
    """Three slices of fish on an oval plate, as outlines with fat-line arcs."""
    cv2.ellipse(img, (220, 350), (180, 120), 0, 0, 360, _CREAM, 4, _AA)
    cv2.ellipse(img, (220, 350), (150, 95), 0, 0, 360, _GOLD, 2, _AA)
    for cx, ang, cy in ((140, -14, 355), (220, 0, 330), (300, 14, 355)):
        box = cv2.boxPoints(((cx, cy), (66, 170), ang)).astype(np.int32)
        cv2.polylines(img, [box], True, _GOLD, _LINE, _AA)
        for k in (-45, 0, 45):
            cv2.ellipse(img, (cx + int(k * math.sin(math.radians(ang))), cy + k), (22, 9), ang - 15, 200, 340,
                        _CORAL, 3, _AA)


def _dumpling(img: np.ndarray) -> None:
    """A gyoza seen from the side: a half-moon outline, a crimped top edge and a steam curl."""
    cv2.ellipse(img, (220, 420), (170, 150), 0, 180, 360, _GOLD, _LINE, _AA)
    cv2.line(img, (50, 420), (390, 420), _GOLD, _LINE, _AA)
    cv2.ellipse(img, (220, 420), (170, 32), 0, 0, 180, _GOLD, _LINE, _AA)
    for dx in (-110, -55, 0, 55, 110):  # pleats fanning from the crimped top
        cv2.line(img, (220 + dx // 2, 285), (220 + dx, 350), _CREAM, 3, _AA)
    pts = np.array([[300 + 14 * math.sin(y / 12.0), y] for y in range(150, 240, 3)], np.int32)
    cv2.polylines(img, [pts], False, _CREAM, 3, _AA)


def _maki(img: np.ndarray) -> None:
    """One large maki roll standing upright: a cylinder outline, the cut top with rice and filling."""
    cx, top, bot, rx, ry = 220, 240, 430, 125, 45
    cv2.line(img, (cx - rx, top), (cx - rx, bot), _GOLD, _LINE, _AA)
    cv2.line(img, (cx + rx, top), (cx + rx, bot), _GOLD, _LINE, _AA)
    cv2.ellipse(img, (cx, bot), (rx, ry), 0, 0, 180, _GOLD, _LINE, _AA)
    cv2.ellipse(img, (cx, top), (rx, ry), 0, 0, 360, _GOLD, _LINE, _AA)
    cv2.ellipse(img, (cx, top), (rx - 22, ry - 12), 0, 0, 360, _CREAM, 3, _AA)  # rice
    cv2.ellipse(img, (cx - 10, top), (32, 13), 0, 0, 360, _CORAL, -1, _AA)  # filling
    cv2.ellipse(img, (cx + 40, top + 3), (16, 8), 0, 0, 360, _JADE, -1, _AA)
    for dx in (-80, -40, 0, 40, 80):  # the nori wrap's texture: short vertical ticks
        cv2.line(img, (cx + dx, top + 80), (cx + dx, top + 130), _GOLD, 2, _AA)


def _maki_count(img: np.ndarray, n: int) -> None:
    """The ONLY difference between maki_1/2/3: 1–3 small gold rings at the bottom-right."""
    for k in range(n):
        c = (DW - 66 - 50 * k, DH - 92)
        cv2.circle(img, c, 19, _GOLD, 5, _AA)
        cv2.circle(img, c, 7, _CORAL, -1, _AA)


def _nigiri(img: np.ndarray, topping: str) -> None:
    """A rice mound and one topping outline; only the hatching inside the topping depends on the type."""
    cv2.ellipse(img, (220, 400), (160, 80), 0, 0, 360, _CREAM, _LINE, _AA)
    for dx, dy in ((-90, 20), (-30, 45), (40, 30), (100, 10), (0, -5)):  # a few rice grains
        cv2.ellipse(img, (220 + dx, 400 + dy), (10, 5), dx // 3, 0, 360, _CREAM, 2, _AA)
    top = np.zeros((DH, DW), np.uint8)
    cv2.ellipse(top, (220, 320), (175, 62), -4, 0, 360, 255, -1, _AA)
    # The topping hides the rice behind it: its inside is fresh paper, hatched, kept only inside the outline.
    hatch = _paper("nigiri")
    if topping == "egg":
        for y in (300, 330):
            cv2.line(hatch, (30, y), (410, y + 4), _PALE_GOLD, 4, _AA)
        cv2.rectangle(hatch, (280, 240), (316, 400), _JADE, 4, _AA)  # nori strap
    elif topping == "salmon":
        for x in range(40, 420, 42):
            cv2.line(hatch, (x - 30, 390), (x + 30, 250), _CORAL, 6, _AA)
    else:  # squid: a scored cross-hatch
        for x in range(20, 440, 36):
            cv2.line(hatch, (x - 40, 390), (x + 40, 250), _CREAM, 2, _AA)
            cv2.line(hatch, (x + 40, 390), (x - 40, 250), _CREAM, 2, _AA)
    a = (top.astype(np.float32) / 255.0)[..., None]
    img[:] = np.clip(img * (1 - a) + hatch * a + 0.5, 0, 255).astype(np.uint8)
    cv2.ellipse(img, (220, 320), (175, 62), -4, 0, 360, _GOLD, _LINE, _AA)


def _pudding(img: np.ndarray) -> None:
    """A custard pudding on a plate: a trapezoid outline, caramel drips and a cherry."""
    cv2.ellipse(img, (220, 460), (185, 38), 0, 0, 360, _CREAM, 4, _AA)
    body = np.array([[100, 445], [340, 445], [298, 240], [142, 240]], np.int32)
    cv2.polylines(img, [body], True, _GOLD, _LINE, _AA)
    drips = np.array([[142, 240], [160, 280], [185, 262], [215, 300], [245, 265], [275, 290], [298, 240]],
                     np.int32)
    cv2.polylines(img, [drips], False, _PALE_GOLD, 4, _AA)
    cv2.circle(img, (228, 210), 22, _CORAL, _LINE - 1, _AA)
    cv2.line(img, (236, 190), (258, 150), _JADE, 3, _AA)


def _wasabi(img: np.ndarray) -> None:
    """A lumpy wasabi mound: the outline of a union of circles, on a leaf-shaped dish."""
    cv2.ellipse(img, (220, 450), (175, 48), 0, 0, 360, _CREAM, 4, _AA)
    m = np.zeros((DH, DW), np.uint8)
    for c, r in (((220, 360), 105), ((140, 405), 62), ((300, 405), 62), ((220, 270), 66), ((232, 212), 34)):
        cv2.circle(m, c, r, 255, -1)
    m[440:] = 0  # the mound sits in the dish: its bottom is hidden
    contours, _ = cv2.findContours(m, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    cv2.polylines(img, contours, True, _JADE, _LINE, _AA)
    cv2.ellipse(img, (185, 310), (30, 14), -40, 0, 360, _PALE_GOLD, 3, _AA)  # a highlight


def _chopsticks(img: np.ndarray) -> None:
    """Two long chopsticks leaning together, as outlines, through a paper sleeve band."""
    for (x0, y0), (x1, y1) in (((130, 520), (190, 150)), ((310, 520), (240, 150))):
        d = np.array([x1 - x0, y1 - y0], np.float32)
        n = np.array([-d[1], d[0]]) / np.linalg.norm(d)
        w0, w1 = 16, 8  # tapering towards the tips
        poly = np.array([[x0 + n[0] * w0, y0 + n[1] * w0], [x1 + n[0] * w1, y1 + n[1] * w1],
                         [x1 - n[0] * w1, y1 - n[1] * w1], [x0 - n[0] * w0, y0 - n[1] * w0]], np.int32)
        cv2.polylines(img, [poly], True, _GOLD, 5, _AA)
    band = np.array([[105, 385], [335, 385], [325, 455], [115, 455]], np.int32)
    cv2.fillPoly(img, [band], tuple(int(v * 0.4) for v in _CORAL), _AA)
    cv2.polylines(img, [band], True, _CORAL, 4, _AA)
    cv2.circle(img, (220, 420), 15, _CREAM, 3, _AA)


_ART = {"tempura": _tempura, "sashimi": _sashimi, "dumpling": _dumpling, "maki": _maki, "pudding": _pudding,
        "wasabi": _wasabi, "chopsticks": _chopsticks}


# --------------------------------------------------------------------------------------------
# Faces.


def _front(label: str) -> np.ndarray:
    fam = _family(label)
    img = _paper(fam)
    if fam == "nigiri":
        _nigiri(img, label.split("_")[0])
    else:
        _ART[fam](img)
    if fam == "maki":
        _maki_count(img, int(label[-1]))
    _frame(img)
    _heading(img, label)
    _footer(img, fam)
    return _finish(img, fam)


def _back() -> np.ndarray:
    """Black with a gold rhombus lattice, a ringed sunburst and the inset frame, made exactly
    point-symmetric by averaging with its 180° turn (a face-down card has no orientation)."""
    img = np.full((DH, DW, 3), (14, 14, 16), np.uint8)
    cx, cy = (DW - 1) / 2, (DH - 1) / 2
    step = 44
    for k in range(-20, 21):  # two families of diagonals through the centre: a rhombus lattice
        for s in (1, -1):
            x0 = cx + k * step
            cv2.line(img, _pt(x0 - s * 700, cy - 700 * 1.3), _pt(x0 + s * 700, cy + 700 * 1.3), (30, 60, 80), 2, _AA)
    c = _pt(cx, cy)
    cv2.circle(img, c, 150, (14, 14, 16), -1, _AA)
    for a in range(0, 360, 15):
        t = math.radians(a)
        cv2.line(img, _pt(cx + 40 * math.cos(t), cy + 40 * math.sin(t)),
                 _pt(cx + 130 * math.cos(t), cy + 130 * math.sin(t)), _GOLD, 3, _AA)
    for r, t in ((150, 4), (138, 2), (40, 4)):
        cv2.circle(img, c, r, _GOLD, t, _AA)
    cv2.circle(img, c, 18, _PALE_GOLD, -1, _AA)
    _frame(img)
    img = _finish(img, "back")
    return point_symmetric(img)


@lru_cache(maxsize=None)
def design(label: str) -> np.ndarray:
    """The noir face (or back) of ``label``: (630, 440, 3) uint8 BGR, cached and read-only
    (:func:`companion.sim.face_design.finished`; ValueError for an unknown label)."""
    return finished(label, _front, _back)
