"""A second simulated deck style, "illustrated": card faces that look like printed commercial cards.

The "flat" style (``companion.sim.faces``) is drawn for a camera: a strong uniform background per
type, a dark title band and one big icon. A card reader tuned on it can lean on shortcuts that
real printed cards do not offer. This style is drawn to be as UNLIKE the flat one and as LIKE a
commercial illustrated deck as we can with OpenCV primitives (our own drawings, never the
publisher's art), so a reader can be tuned on one style and measured on the other:

* **Full-bleed illustration** — every face is a 2–3 hue linear or radial gradient with smooth
  noise, paper grain and a low-contrast pattern (waves, dots, stripes), so a type is no longer
  one colour and a colour histogram is a weak cue.
* **No title band, small text** — the name is a short lower-case word at the bottom-left (with a
  tiny rule reminder at the bottom-right), about 4 % of the card height, so there is no big dark
  block to find the top by.
* **Light edges** — several types have pale backgrounds (cream, light pink, pale blue) and/or a
  cream text panel that runs off the card's left, right and bottom edges, and most faces have no
  border line (a few have a 1–2 px one). On the pale off-white mat (BGR ~ (236, 242, 246)) such a
  card's outline is weak along part of its edge, as with real cards.
* **Cartoon characters** — each food is a cute character (a body with two eyes, a mouth, cheeks)
  drawn with dark outlines, like the commercial art, so edge/texture features see busy detail.
* **Small in-type differences** — maki_1/2/3 share background, character and text and differ only
  in 1, 2 or 3 small roll icons (~12 % of the card width each) at the top-left; the three nigiri
  share background, rice character and text and differ only in the topping (egg: yellow block
  with a nori strap; salmon: orange with white stripes; squid: pale grey-white, scored) and a small
  corner badge. A classifier must look at small details, not the overall look.
* **Chiral fronts** — the corner mark is only at the top-left, the text only at the bottom and the
  gradients/light run one way, so a 180° turn looks different and orientation can be read.
* **Point-symmetric back** — a crimson/plum radial design that is exactly the same after a 180°
  turn (like the flat back) but otherwise unlike it.
* **Deterministic** — all noise is seeded from the label's family name with ``zlib.crc32`` ("maki"
  for the three maki, "nigiri" for the three nigiri, so their shared parts are pixel-identical).

Faces are drawn at the same 440 × 630 px design size as the flat style (``design``), BGR uint8.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Callable, Sequence

import cv2
import numpy as np

from companion.sim.face_design import DH, DW, LABELS, family as _family, finished, point_symmetric, seeded as _rng

_AA = cv2.LINE_AA

Colour = tuple[int, int, int]

_INK: Colour = (45, 40, 60)  # dark warm outline / eye colour of the cartoon characters
_WHITE: Colour = (252, 252, 252)
_CREAM: Colour = (226, 242, 251)  # text panels: close to the mat's off-white on purpose
_CHEEK: Colour = (165, 150, 250)
_MOUTH: Colour = (70, 60, 175)
_RICE: Colour = (238, 244, 247)
_PANEL_TOP = 522  # top of the cream text panel (design px)

_YY, _XX = np.mgrid[0:DH, 0:DW].astype(np.float32)


_TITLE = {
    "tempura": "tempura", "sashimi": "sashimi", "dumpling": "dumpling", "maki": "maki roll",
    "nigiri": "nigiri", "pudding": "pudding", "wasabi": "wasabi", "chopsticks": "chopsticks",
}
_RULE = {
    "tempura": "x2 = 5", "sashimi": "x3 = 10", "dumpling": "1 3 6 10 15", "maki": "most: 6 / 3",
    "nigiri": "1 / 2 / 3", "pudding": "end: +6 / -6", "wasabi": "nigiri x3", "chopsticks": "swap 2",
}


# --------------------------------------------------------------------------------------------
# Textures: gradients, noise, patterns. All return float32 arrays over the design canvas.


def _ramp(stops: Sequence[Colour], t: np.ndarray) -> np.ndarray:
    """(H, W, 3) float32: ``t`` in [0, 1] mapped through evenly spaced colour stops."""
    pos = np.linspace(0.0, 1.0, len(stops))
    cols = np.asarray(stops, np.float32)
    t = np.clip(t, 0.0, 1.0)
    return np.stack([np.interp(t, pos, cols[:, k]).astype(np.float32) for k in range(3)], axis=-1)


def _linear(stops: Sequence[Colour], angle_deg: float) -> np.ndarray:
    """A linear gradient across the canvas; 90° runs top → bottom, 0° left → right."""
    a = math.radians(angle_deg)
    p = _XX * math.cos(a) + _YY * math.sin(a)
    return _ramp(stops, (p - p.min()) / (p.max() - p.min()))


def _radial(stops: Sequence[Colour], centre: tuple[float, float], radius: float) -> np.ndarray:
    """A radial gradient: ``stops[0]`` at ``centre``, ``stops[-1]`` from ``radius`` px outwards."""
    d = np.hypot(_XX - centre[0], _YY - centre[1])
    return _ramp(stops, d / radius)


def _smooth_noise(rng: np.random.Generator, cells: int) -> np.ndarray:
    """(H, W) float32 smooth noise in about [-1, 1], ``cells`` blobs across the card's width."""
    cw = max(2, cells)
    ch = max(2, int(round(cells * DH / DW)))
    small = rng.standard_normal((ch + 3, cw + 3)).astype(np.float32)
    big = cv2.resize(small, (DW + DW * 3 // cw, DH + DH * 3 // ch), interpolation=cv2.INTER_CUBIC)
    big = big[DH // ch : DH // ch + DH, DW // cw : DW // cw + DW]  # skip the resize's edge ramp
    return big / (float(np.abs(big).max()) + 1e-6)


def _waves(period: float = 46.0, amp: float = 9.0, wavelength: float = 70.0) -> np.ndarray:
    """(H, W) float32 in [0, 1]: thin wavy horizontal lines (sea waves), 1 on the lines."""
    y = _YY + amp * np.sin(_XX * (2 * math.pi / wavelength))
    return (0.5 + 0.5 * np.cos(y * (2 * math.pi / period))) ** 12


def _stripes(period: float = 28.0, angle_deg: float = 35.0) -> np.ndarray:
    """(H, W) float32 in [0, 1]: soft diagonal stripes."""
    a = math.radians(angle_deg)
    p = _XX * math.cos(a) + _YY * math.sin(a)
    return (0.5 + 0.5 * np.cos(p * (2 * math.pi / period))) ** 3


def _dots(pitch: int = 40, r: int = 6) -> np.ndarray:
    """(H, W) float32 in [0, 1]: a staggered polka-dot grid."""
    m = np.zeros((DH, DW), np.uint8)
    for row, y in enumerate(range(pitch // 2, DH + pitch, pitch)):
        for x in range(pitch // 2 * (row % 2), DW + pitch, pitch):
            cv2.circle(m, (x, y), r, 255, -1, _AA)
    return m.astype(np.float32) / 255.0


def _tint(img: np.ndarray, mask: np.ndarray, colour: Colour, strength: float) -> np.ndarray:
    """Blend ``colour`` into float ``img`` where ``mask`` (0..1) is high, at low ``strength``."""
    a = (mask * strength)[..., None]
    return img * (1 - a) + np.asarray(colour, np.float32) * a


def _background(label: str, stops: Sequence[Colour], kind: str, pattern: np.ndarray, pattern_colour: Colour,
                pattern_strength: float, **kw) -> np.ndarray:
    """(H, W, 3) uint8: gradient + smooth mottling + a low-contrast pattern, seeded by family."""
    rng = _rng(_family(label) + ":bg")
    img = _linear(stops, kw.get("angle", 90.0)) if kind == "linear" else _radial(stops, kw["centre"], kw["radius"])
    mottle = 0.6 * _smooth_noise(rng, 4) + 0.4 * _smooth_noise(rng, 11)
    img = img * (1 + 0.05 * mottle)[..., None]
    img = _tint(img, pattern, pattern_colour, pattern_strength)
    return np.clip(img, 0, 255).astype(np.uint8)


def _finish(img: np.ndarray, label: str) -> np.ndarray:
    """Print look: a slight softening and paper grain (fine noise + faint fibres), seeded by family."""
    rng = _rng(_family(label) + ":grain")
    f = cv2.GaussianBlur(img.astype(np.float32), (0, 0), 0.6)
    fine = cv2.GaussianBlur(rng.standard_normal((DH, DW)).astype(np.float32), (0, 0), 0.7)
    fibres = cv2.resize(rng.standard_normal((DH // 3, DW // 12)).astype(np.float32), (DW, DH),
                        interpolation=cv2.INTER_CUBIC)
    f *= (1 + 0.03 * fine + 0.012 * fibres)[..., None]
    return np.clip(f + 0.5, 0, 255).astype(np.uint8)


# --------------------------------------------------------------------------------------------
# Drawing helpers: characters, panel, text, marks.


def _pt(x: float, y: float) -> tuple[int, int]:
    return int(round(x)), int(round(y))


def _overlay(img: np.ndarray, alpha: float, draw: Callable[[np.ndarray], None]) -> None:
    """Draw with ``draw`` on a copy and blend it in at ``alpha`` (soft cheeks, shadows, steam)."""
    layer = img.copy()
    draw(layer)
    cv2.addWeighted(layer, alpha, img, 1 - alpha, 0, dst=img)


def _outlined(img: np.ndarray, draw: Callable[[np.ndarray, Colour, int], None], fill: Colour, line: int = 4) -> None:
    """Cartoon style: the shape in ink grown by ``line`` px, then the shape itself in ``fill``.

    ``draw(img, colour, grow)`` draws the filled shape grown by ``grow`` px.
    """
    draw(img, _INK, line)
    draw(img, fill, 0)


def _face(img: np.ndarray, c: tuple[float, float], s: float, mouth: str = "smile", cheeks: bool = True) -> None:
    """A cute face centred at ``c``, ``s`` px wide: two shiny eyes, cheeks and a mouth."""
    cx, cy = c
    for sx in (-1, 1):
        ex, ey = cx + sx * 0.3 * s, cy
        cv2.ellipse(img, _pt(ex, ey), _pt(0.075 * s, 0.1 * s), 0, 0, 360, _INK, -1, _AA)
        cv2.circle(img, _pt(ex - 0.025 * s, ey - 0.035 * s), max(2, int(0.03 * s)), _WHITE, -1, _AA)
    if cheeks:
        _overlay(img, 0.55, lambda im: [cv2.ellipse(im, _pt(cx + sx * 0.44 * s, cy + 0.13 * s),
                                                    _pt(0.08 * s, 0.05 * s), 0, 0, 360, _CHEEK, -1, _AA)
                                        for sx in (-1, 1)])
    t = max(2, int(round(0.025 * s)))
    if mouth == "open":
        cv2.ellipse(img, _pt(cx, cy + 0.1 * s), _pt(0.09 * s, 0.08 * s), 0, 0, 180, _MOUTH, -1, _AA)
        cv2.ellipse(img, _pt(cx, cy + 0.1 * s), _pt(0.09 * s, 0.08 * s), 0, 0, 180, _INK, t, _AA)
        cv2.line(img, _pt(cx - 0.09 * s, cy + 0.1 * s), _pt(cx + 0.09 * s, cy + 0.1 * s), _INK, t, _AA)
    elif mouth == "cat":
        for sx in (-1, 1):
            cv2.ellipse(img, _pt(cx + sx * 0.05 * s, cy + 0.08 * s), _pt(0.05 * s, 0.04 * s), 0, 0, 180, _INK, t, _AA)
    else:
        cv2.ellipse(img, _pt(cx, cy + 0.06 * s), _pt(0.08 * s, 0.06 * s), 0, 15, 165, _INK, t, _AA)


def _panel(img: np.ndarray, colour: Colour = _CREAM, top: int = _PANEL_TOP) -> None:
    """A cream text panel with a gently wavy top edge, running off the left, right and bottom edges.

    Why: printed cards put their text on a pale plate that reaches the card edge, which makes the
    card's outline against a pale mat weak there.
    """
    xs = np.arange(0, DW + 1, 8)
    ys = top + 7 * np.sin(xs * (2 * math.pi / 220.0) + 0.8)
    poly = np.concatenate([np.stack([xs, ys], 1), [[DW + 5, DH + 5], [-5, DH + 5]]]).astype(np.int32)
    cv2.fillPoly(img, [poly + [0, 3]], (200, 215, 222), _AA)  # a faint shadow line under the edge
    cv2.fillPoly(img, [poly], colour, _AA)


def _text(img: np.ndarray, family: str, colour: Colour = _INK, rule_colour: Colour = (110, 110, 125)) -> None:
    """Small text at the bottom only: the name at the bottom-left, a rule reminder at the bottom-right."""
    font = cv2.FONT_HERSHEY_TRIPLEX
    cv2.putText(img, _TITLE[family], (22, DH - 30), font, 0.85, colour, 1, _AA)
    rule = _RULE[family]
    (w, _), _ = cv2.getTextSize(rule, cv2.FONT_HERSHEY_SIMPLEX, 0.5, 1)
    cv2.putText(img, rule, (DW - 22 - w, DH - 31), cv2.FONT_HERSHEY_SIMPLEX, 0.5, rule_colour, 1, _AA)


def _border(img: np.ndarray, colour: Colour, px: int = 2) -> None:
    """A thin border (1–2 px) — real cards have at most a hairline, not our 6 px dark frame."""
    cv2.rectangle(img, (0, 0), (DW - 1, DH - 1), colour, px)


def _leaf(img: np.ndarray, c: tuple[float, float], length: float, angle: float, colour: Colour) -> None:
    """A small garnish leaf (decoration that adds busy detail like the commercial art)."""
    cv2.ellipse(img, _pt(*c), _pt(length / 2, length / 5), angle, 0, 360, _INK, -1, _AA)
    cv2.ellipse(img, _pt(*c), _pt(length / 2 - 3, length / 5 - 3), angle, 0, 360, colour, -1, _AA)
    a = math.radians(angle)
    d = (math.cos(a) * length * 0.4, math.sin(a) * length * 0.4)
    cv2.line(img, _pt(c[0] - d[0], c[1] - d[1]), _pt(c[0] + d[0], c[1] + d[1]), _INK, 2, _AA)


# --------------------------------------------------------------------------------------------
# The food characters.


def _tempura(img: np.ndarray) -> None:
    """A battered shrimp curled into a "C" (thick head end at the bottom with the face, tapering
    round the left to a red tail fan at the top-right), with batter bumps along its back."""
    cx, cy, rad = 205, 300, 125
    angs = np.radians(np.linspace(70, 300, 47))
    wid = np.linspace(100, 44, angs.size)
    d = np.stack([np.cos(angs), np.sin(angs)], 1)
    outer = np.array([cx, cy]) + d * (rad + wid / 2)[:, None]
    inner = np.array([cx, cy]) + d * (rad - wid / 2)[:, None]
    body = np.concatenate([outer, inner[::-1]]).astype(np.int32)
    end = np.array([cx, cy]) + d[-1] * rad
    tan = np.array([-math.sin(angs[-1]), math.cos(angs[-1])])
    nrm = np.array([-tan[1], tan[0]])
    fan = np.array([end - nrm * 10, end + tan * 70 - nrm * 45, end + tan * 85, end + tan * 70 + nrm * 45,
                    end + nrm * 10]).astype(np.int32)
    head = _pt(*(np.array([cx, cy]) + d[0] * rad))
    cv2.polylines(img, [fan], True, _INK, 8, _AA)
    cv2.fillPoly(img, [fan], (50, 60, 220), _AA)
    for k in (-1, 0, 1):
        cv2.line(img, _pt(*end), _pt(*(end + tan * 70 + nrm * 30 * k)), (40, 40, 160), 3, _AA)
    bumps = [(np.array([cx, cy]) + d[i] * (rad + wid[i] / 2 - 6), 17 - 6 * i / angs.size)
             for i in range(2, angs.size - 3, 4)]
    for c, r in bumps:
        cv2.circle(img, _pt(*c), int(r) + 4, _INK, -1, _AA)
    cv2.polylines(img, [body], True, _INK, 8, _AA)
    cv2.circle(img, head, int(wid[0] / 2) + 4, _INK, -1, _AA)
    for c, r in bumps:
        cv2.circle(img, _pt(*c), int(r), (95, 205, 250), -1, _AA)
    cv2.fillPoly(img, [body], (70, 175, 245), _AA)
    cv2.circle(img, head, int(wid[0] / 2), (70, 175, 245), -1, _AA)
    shine = (np.array([cx, cy]) + d[20:34] * (rad + 12)).astype(np.int32)
    cv2.polylines(img, [shine], False, (150, 225, 252), 9, _AA)
    _face(img, (head[0] - 30, head[1] - 8), 120, mouth="open")


def _sashimi(img: np.ndarray) -> None:
    """Three fish slices on a white plate; the middle (tuna) slice is the character, with a leaf."""
    cv2.ellipse(img, (220, 390), (200, 120), 0, 0, 360, (205, 200, 210), -1, _AA)  # plate shadow
    cv2.ellipse(img, (220, 380), (196, 116), 0, 0, 360, _INK, -1, _AA)
    cv2.ellipse(img, (220, 380), (192, 112), 0, 0, 360, _WHITE, -1, _AA)
    cv2.ellipse(img, (220, 380), (150, 80), 0, 0, 360, (225, 232, 240), 3, _AA)
    _leaf(img, (110, 300), 120, -60, (90, 170, 80))
    for cx, ang, col in ((120, -12, (110, 150, 250)), (320, 12, (150, 175, 245)), (220, 0, (70, 60, 205))):
        box = cv2.boxPoints(((cx, 330 if cx == 220 else 350), (110, 190), ang)).astype(np.int32)
        cv2.polylines(img, [box], True, _INK, 8, _AA)
        cv2.fillPoly(img, [box], col, _AA)
        for k in (-50, 0, 50):  # fat lines of the fish
            c = (cx + int(k * math.sin(math.radians(ang))), (330 if cx == 220 else 350) + k)
            cv2.ellipse(img, c, (40, 10), ang - 15, 200, 340, (235, 235, 250), 4, _AA)
    _face(img, (220, 345), 100)


def _dumpling(img: np.ndarray) -> None:
    """A pleated gyoza with a round belly, rosy cheeks and two wisps of steam."""
    def body(im, col, g):
        cv2.ellipse(im, (220, 380), (165 + g, 150 + g), 0, 180, 360, col, -1, _AA)
        cv2.ellipse(im, (220, 380), (165 + g, 45 + g), 0, 0, 180, col, -1, _AA)
    _overlay(img, 0.35, lambda im: cv2.ellipse(im, (225, 435), (175, 30), 0, 0, 360, (120, 110, 140), -1, _AA))
    _outlined(img, body, (190, 225, 245))
    cv2.ellipse(img, (225, 410), (130, 20), 0, 0, 180, (150, 195, 225), -1, _AA)  # browned bottom
    for dx in (-90, -45, 0, 45, 90):  # pleats
        cv2.ellipse(img, (220 + dx, 255), (16, 40), 0, 30, 150, (120, 160, 200), 4, _AA)
    for x0 in (150, 290):  # steam
        pts = np.array([[x0 + 12 * math.sin(y / 14.0), y] for y in range(110, 200, 4)], np.int32)
        _overlay(img, 0.7, lambda im, p=pts: cv2.polylines(im, [p], False, _WHITE, 9, _AA))
    _face(img, (220, 340), 150)


def _maki_icon(img: np.ndarray, c: tuple[int, int], r: int) -> None:
    """A small maki roll seen from the top: nori ring, rice, salmon and cucumber filling."""
    cv2.circle(img, c, r + 2, _INK, -1, _AA)
    cv2.circle(img, c, r, (55, 70, 40), -1, _AA)
    cv2.circle(img, c, int(r * 0.78), _RICE, -1, _AA)
    cv2.circle(img, (c[0] - int(r * 0.15), c[1]), int(r * 0.3), (70, 120, 245), -1, _AA)
    cv2.circle(img, (c[0] + int(r * 0.2), c[1] + int(r * 0.12)), int(r * 0.2), (80, 190, 110), -1, _AA)


def _maki(img: np.ndarray) -> None:
    """A big maki roll standing upright (a nori cylinder) with a face on its side and a full top."""
    cx, top, bot, rx, ry = 220, 250, 440, 130, 48
    def body(im, col, g):
        cv2.rectangle(im, (cx - rx - g, top), (cx + rx + g, bot), col, -1, _AA)
        cv2.ellipse(im, (cx, bot), (rx + g, ry + g), 0, 0, 180, col, -1, _AA)
        cv2.ellipse(im, (cx, top), (rx + g, ry + g), 0, 0, 360, col, -1, _AA)
    _overlay(img, 0.35,
             lambda im: cv2.ellipse(im, (cx + 15, bot + 35), (rx + 30, 30), 0, 0, 360, (40, 20, 30), -1, _AA))
    _outlined(img, body, (60, 75, 45))
    cv2.rectangle(img, (cx - 95, top + 40), (cx - 75, bot + 30), (80, 100, 65), -1, _AA)  # nori sheen
    cv2.ellipse(img, (cx, top), (rx - 14, ry - 8), 0, 0, 360, _RICE, -1, _AA)
    for dx, dy in ((-60, 0), (-30, -15), (0, 10), (30, -12), (60, 4), (-10, -25), (45, 18), (-45, 18)):
        cv2.ellipse(img, (cx + dx, top + dy), (7, 4), dx, 0, 360, (215, 222, 228), -1, _AA)  # grains
    cv2.ellipse(img, (cx - 20, top), (40, 16), 0, 0, 360, (70, 120, 245), -1, _AA)
    cv2.ellipse(img, (cx + 35, top + 4), (22, 10), 0, 0, 360, (80, 190, 110), -1, _AA)
    cv2.ellipse(img, (cx, top), (rx - 14, ry - 8), 0, 0, 360, _INK, 2, _AA)
    _face(img, (cx, 360), 170, mouth="cat")


def _nigiri(img: np.ndarray, topping: str) -> None:
    """A rice-ball character; only the topping on its head (and nothing else) depends on the type."""
    _overlay(img, 0.3, lambda im: cv2.ellipse(im, (228, 470), (175, 32), 0, 0, 360, (110, 100, 90), -1, _AA))
    def rice(im, col, g):
        cv2.ellipse(im, (220, 390), (160 + g, 90 + g), 0, 0, 360, col, -1, _AA)
        cv2.rectangle(im, (60 - g, 330), (380 + g, 400), col, -1, _AA)
        cv2.ellipse(im, (220, 330), (160 + g, 60 + g), 0, 180, 360, col, -1, _AA)
    _outlined(img, rice, _RICE)
    for dx, dy in ((-120, 20), (-80, 60), (90, 50), (130, 10), (-30, 95), (50, 100), (-140, -20), (140, -25)):
        cv2.ellipse(img, (220 + dx, 380 + dy), (9, 5), dx // 3, 0, 360, (205, 215, 222), -1, _AA)  # grains
    _face(img, (190, 410), 130)
    if topping == "egg":
        def egg(im, col, g):
            cv2.rectangle(im, (75 - g, 235 - g), (365 + g, 325 + g), col, -1, _AA)
        _outlined(img, egg, (70, 215, 250))
        for y in (262, 290):  # layers of the rolled omelette
            cv2.line(img, (85, y), (355, y), (40, 175, 225), 3, _AA)
        cv2.rectangle(img, (290, 230), (330, 375), _INK, -1, _AA)  # nori strap
        cv2.rectangle(img, (294, 230), (326, 371), (50, 60, 40), -1, _AA)
    elif topping == "salmon":
        def fish(im, col, g):
            cv2.ellipse(im, (220, 300), (180 + g, 62 + g), -6, 0, 360, col, -1, _AA)
        _outlined(img, fish, (70, 125, 250))
        for dx in (-120, -65, -10, 45, 100):
            cv2.line(img, (220 + dx - 10, 352), (220 + dx + 30, 250), (225, 235, 252), 9, _AA)
        cv2.ellipse(img, (220, 300), (180, 62), -6, 0, 360, _INK, 4, _AA)
    else:  # squid
        def squid(im, col, g):
            cv2.ellipse(im, (220, 300), (178 + g, 58 + g), 4, 0, 360, col, -1, _AA)
        _outlined(img, squid, (232, 234, 238))
        for dx in (-110, -70, -30, 10, 50, 90, 130):  # scoring
            cv2.line(img, (220 + dx, 262), (220 + dx - 20, 338), (200, 198, 212), 3, _AA)
        cv2.ellipse(img, (170, 282), (50, 12), 4, 0, 360, _WHITE, -1, _AA)


def _nigiri_badge(img: np.ndarray, topping: str) -> None:
    """The small top-left corner mark of a nigiri: a round badge in the topping colour with 1–3 pips."""
    col, pips = {"egg": ((70, 215, 250), 1), "salmon": ((70, 125, 250), 2), "squid": ((232, 234, 238), 3)}[topping]
    cv2.circle(img, (38, 38), 24, _INK, -1, _AA)
    cv2.circle(img, (38, 38), 21, col, -1, _AA)
    for k in range(pips):
        cv2.circle(img, _pt(38 + (k - (pips - 1) / 2) * 12, 38), 4, _INK, -1, _AA)


def _pudding(img: np.ndarray) -> None:
    """A wobbly custard pudding with caramel on top, on a plate, with a cherry."""
    _overlay(img, 0.3, lambda im: cv2.ellipse(im, (230, 460), (190, 40), 0, 0, 360, (120, 90, 120), -1, _AA))
    cv2.ellipse(img, (220, 450), (190, 42), 0, 0, 360, _INK, -1, _AA)
    cv2.ellipse(img, (220, 450), (186, 38), 0, 0, 360, _WHITE, -1, _AA)
    def body(im, col, g):
        pts = np.array([[95 - g, 445 + g], [345 + g, 445 + g], [300 + g, 235 - g], [140 - g, 235 - g]], np.int32)
        cv2.fillPoly(im, [pts], col, _AA)
        cv2.ellipse(im, (220, 445), (125 + g, 22 + g), 0, 0, 180, col, -1, _AA)
        cv2.ellipse(im, (220, 235), (80 + g, 22 + g), 0, 0, 360, col, -1, _AA)
    _outlined(img, body, (120, 215, 250))
    caramel = np.array([[140, 235], [300, 235], [305, 262], [280, 290], [262, 262], [230, 300], [205, 265],
                        [170, 285], [150, 262]], np.int32)
    cv2.fillPoly(img, [caramel], (30, 80, 150), _AA)
    cv2.ellipse(img, (220, 235), (80, 22), 0, 0, 360, (30, 70, 135), -1, _AA)
    cv2.ellipse(img, (180, 330), (14, 50), 5, 0, 360, (175, 240, 252), -1, _AA)  # shine
    cv2.line(img, (228, 200), (245, 160), _INK, 4, _AA)  # cherry stalk
    cv2.circle(img, (222, 210), 24, _INK, -1, _AA)
    cv2.circle(img, (222, 210), 21, (50, 40, 215), -1, _AA)
    cv2.circle(img, (214, 202), 6, (200, 200, 255), -1, _AA)
    _face(img, (222, 360), 140)


def _wasabi(img: np.ndarray) -> None:
    """A lumpy green wasabi blob with a pointed tip, sitting in a small leaf-shaped dish."""
    cv2.ellipse(img, (220, 440), (175, 55), 0, 0, 360, _INK, -1, _AA)
    cv2.ellipse(img, (220, 440), (171, 51), 0, 0, 360, (235, 240, 236), -1, _AA)
    blobs = (((220, 350), 110), ((140, 400), 70), ((300, 400), 70), ((220, 265), 72), ((225, 205), 38))
    for c, r in blobs:
        cv2.circle(img, c, r + 4, _INK, -1, _AA)
    tip = np.array([[200, 200], [250, 200], [240, 150]], np.int32)
    cv2.fillPoly(img, [tip + [[-4, 2], [4, 2], [0, -5]]], _INK, _AA)
    for c, r in blobs:
        cv2.circle(img, c, r, (95, 205, 125), -1, _AA)
    cv2.fillPoly(img, [tip], (95, 205, 125), _AA)
    cv2.ellipse(img, (180, 300), (35, 18), -40, 0, 360, (165, 235, 185), -1, _AA)  # shine
    for x, y in ((150, 430), (290, 380), (250, 440), (180, 250)):
        cv2.circle(img, (x, y), 5, (70, 170, 95), -1, _AA)
    _face(img, (225, 350), 150, mouth="open")


def _chopsticks(img: np.ndarray) -> None:
    """Two chunky chopstick characters leaning together, each with a face, in a red paper sleeve."""
    for (x0, y0), (x1, y1), fc in (((120, 500), (175, 110), (165, 200)), ((300, 500), (250, 110), (270, 200))):
        cv2.line(img, (x0, y0), (x1, y1), _INK, 50, _AA)
        cv2.line(img, (x0, y0), (x1, y1), (90, 150, 205), 42, _AA)
        cv2.line(img, _pt(x1 + (x0 - x1) * 0.02, y1 + 10), _pt(x1 + (x0 - x1) * 0.12, y1 + 45), (60, 110, 170), 42, _AA)
        _face(img, fc, 80, cheeks=True)
    def sleeve(im, col, g):
        pts = np.array([[95 - g, 380 - g], [345 + g, 380 - g], [330 + g, 470 + g], [110 - g, 470 + g]], np.int32)
        cv2.fillPoly(im, [pts], col, _AA)
    _outlined(img, sleeve, (60, 55, 205))
    cv2.line(img, (110, 400), (330, 400), (230, 235, 245), 4, _AA)
    cv2.line(img, (115, 450), (325, 450), (230, 235, 245), 4, _AA)
    cv2.circle(img, (220, 425), 16, (230, 235, 245), 3, _AA)


# --------------------------------------------------------------------------------------------
# Faces.


def _front(label: str) -> np.ndarray:
    fam = _family(label)
    if fam == "tempura":  # warm peach radial, sea waves; cream panel
        img = _background(label, [(185, 225, 252), (120, 180, 250), (110, 140, 235)], "radial", _waves(), _WHITE,
                          0.22, centre=(120, 120), radius=650)
        _tempura(img)
        _panel(img)
    elif fam == "sashimi":  # pale lilac → pale blue linear, stripes; no panel, pale edges
        img = _background(label, [(245, 228, 240), (250, 236, 222), (245, 225, 205)], "linear", _stripes(), _WHITE,
                          0.35, angle=75)
        _sashimi(img)
    elif fam == "dumpling":  # light pink radial with dots; cream panel
        img = _background(label, [(235, 232, 252), (215, 205, 250), (200, 185, 240)], "radial", _dots(), _WHITE,
                          0.45, centre=(300, 200), radius=520)
        _dumpling(img)
        _panel(img)
    elif fam == "maki":  # deep indigo → violet, waves; cream panel; a hairline border
        img = _background(label, [(120, 55, 40), (150, 70, 95), (170, 110, 150)], "linear", _waves(38, 7, 55),
                          (210, 170, 150), 0.25, angle=100)
        _maki(img)
        _panel(img)
        _border(img, (90, 40, 30), 2)
        n = int(label[-1])
        for k in range(n):  # the ONLY difference between maki_1/2/3: 1-3 small rolls, top-left
            _maki_icon(img, (40 + 60 * k, 42), 26)
    elif fam == "nigiri":  # pale sky blue → cream linear with dots; no panel, pale edges
        img = _background(label, [(248, 232, 208), (240, 240, 228), (215, 238, 250)], "linear", _dots(34, 5),
                          (255, 255, 255), 0.55, angle=110)
        _nigiri(img, label.split("_")[0])
        _nigiri_badge(img, label.split("_")[0])
    elif fam == "pudding":  # light pink → lavender, dots; cream panel
        img = _background(label, [(215, 200, 252), (230, 200, 245), (235, 215, 230)], "linear", _dots(46, 8),
                          (245, 235, 255), 0.4, angle=60)
        _pudding(img)
        _panel(img)
    elif fam == "wasabi":  # mint → pale yellow radial, stripes; cream panel; a hairline border
        img = _background(label, [(200, 240, 235), (170, 230, 215), (140, 215, 200)], "radial", _stripes(22, -30),
                          _WHITE, 0.3, centre=(220, 330), radius=430)
        _wasabi(img)
        _panel(img, (215, 238, 246))
        _border(img, (120, 160, 140), 1)
    elif fam == "chopsticks":  # cream → pale tan linear, diagonal waves; pale edges
        img = _background(label, [(225, 245, 250), (200, 228, 242), (185, 215, 235)], "linear", _waves(52, 12, 90),
                          (170, 200, 220), 0.3, angle=80)
        _chopsticks(img)
    else:  # pragma: no cover - design() validates labels
        raise AssertionError(label)
    if fam in ("tempura", "dumpling", "maki"):
        _leaf(img, (395, 60), 60, 30, (100, 185, 110))  # top-right garnish: more busy detail, still chiral
    _text(img, fam)
    return _finish(img, label)


def _back() -> np.ndarray:
    """The back: crimson/plum radial gradient, a centred dot lattice, rings, an 8-petal emblem and a
    hairline gold border — all point-symmetric, and then made exactly so by averaging with its
    180° turn (so a face-down card has no readable orientation, like a real back)."""
    c = ((DW - 1) / 2, (DH - 1) / 2)
    img = _radial([(60, 50, 200), (70, 35, 160), (80, 30, 105)], c, 380).astype(np.float32)
    n = _smooth_noise(_rng("back:bg"), 6)
    img *= (1 + 0.05 * n)[..., None]
    img = np.clip(img, 0, 255).astype(np.uint8)
    cx, cy = DW // 2, DH // 2
    for j in range(-6, 7):
        for i in range(-5, 6):
            x, y = cx + i * 44 + 22 * (j % 2), cy + j * 52
            if 0 <= x < DW and 0 <= y < DH:
                cv2.circle(img, (x, y), 5, (90, 120, 220), -1, _AA)
    for r, col, t in ((175, (110, 190, 240), 3), (160, (70, 40, 130), 22), (145, (110, 190, 240), 2)):
        cv2.circle(img, (cx, cy), r, col, t, _AA)
    for k in range(8):
        cv2.ellipse(img, (cx, cy), (120, 38), k * 22.5 * 2, 0, 360, (215, 225, 250), -1, _AA)
    for k in range(8):
        cv2.ellipse(img, (cx, cy), (120, 38), k * 45, 0, 360, (90, 140, 230), 2, _AA)
    cv2.circle(img, (cx, cy), 46, (60, 50, 190), -1, _AA)
    cv2.circle(img, (cx, cy), 46, (110, 190, 240), 4, _AA)
    cv2.circle(img, (cx, cy), 16, (215, 225, 250), -1, _AA)
    cv2.rectangle(img, (12, 12), (DW - 13, DH - 13), (110, 190, 240), 2, _AA)
    img = _finish(img, "back")
    return point_symmetric(img)


@lru_cache(maxsize=None)
def design(label: str) -> np.ndarray:
    """The illustrated face (or back) of ``label``: (630, 440, 3) uint8 BGR, cached and read-only
    (:func:`companion.sim.face_design.finished`; ValueError for an unknown label)."""
    return finished(label, _front, _back)
