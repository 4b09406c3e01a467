"""A sixth simulated deck style, "airbrush": soft-shaded muted food on ONE pale background shared by all.

All five earlier styles ("flat", "illustrated", "noir", "watercolour", "pattern") have been tuned on
after their first measure, so none is a held-out measure of issue #6 ("read any deck a user enrols")
any more. This one is drawn to be measured once and never tuned on. It does what none of the five
does, in the way of a printed commercial deck, with our own OpenCV drawings (never a publisher's art):

* **One full-bleed background for every front** — a pale peach-to-mint vertical gradient with a soft
  mottled airbrush texture, a light glow behind the food and a fine print grain, identical on all 12
  types and running to every edge (no border at all). Every other style tints the field per type; here
  colour sits only in the food, so a card's colour histogram is mostly the same pale field.
* **Soft airbrush shading, no outlines** — every food part is a shape shaded as a dome lit from the
  top-left (a highlight, a darker far side), with soft edges and a blurred drop shadow; the palette is
  muted (low saturation) throughout.
* **A white rounded text plate touching the bottom edge** — its top corners rounded, its bottom the
  card's own edge; the name in small grey type (1.7 mm), the rule smaller under it. The plate's white
  meets the pale field and the card's edge: a weak outline on a light mat. The plate makes fronts chiral.
* **Look-alikes differing only in a small detail** — maki_1/2/3 are the same board with 1, 2 or 3
  identical rolls on it (same name, same rule); the three nigiri share the rice, the slate, the name
  ("nigiri") and the rule, and differ only in the topping's colour and shape (an egg block with a nori
  band, a tapered salmon slice with fat lines, a pale scored squid slice).
* **Point-symmetric back** — dusty teal with a soft glow and a ring of pale discs, made exactly
  symmetric by averaging with its 180° turn.
* **Deterministic** — the textures are seeded from fixed keys with ``zlib.crc32`` (``face_design.seeded``).

Faces are drawn at the shared 440 × 630 px design size (``design``: 10 px/mm), BGR uint8.
"""

from __future__ import annotations

import math
from functools import lru_cache

import cv2
import numpy as np

from companion.sim.face_design import DH, DW, LABELS, family as _family, finished, point_symmetric, seeded as _rng

__all__ = ["LABELS", "PLATE_TOP", "background", "design"]

_AA = cv2.LINE_AA

Colour = tuple[int, int, int]

PLATE_TOP = 556  # top of the white text plate (design px); it runs to the card's bottom edge (630)
_PLATE_X = (58, DW - 58)  # the plate's left and right (design px)
_PLATE_R = 22  # the plate's top corner radius (design px)
_SATURATION = 0.55  # food colours are pulled this far towards their own grey (a muted print)
_EDGE_SOFT = 1.6  # Gaussian sigma of a shape's soft edge (design px)
_SHADOW_SIGMA = 9.0  # blur of the drop shadows (design px)
_SHADOW_DARK = 0.16  # how much a drop shadow darkens what lies under it
_LIGHT = np.array([-0.55, -0.65], np.float32)  # light direction in the image (x, y): from the top-left

_GREY_TEXT: Colour = (95, 92, 98)
_PLATE: Colour = (250, 251, 252)

_YY, _XX = np.mgrid[0:DH, 0:DW].astype(np.float32)


def _muted(bgr: Colour) -> np.ndarray:
    """``bgr`` pulled ``_SATURATION`` of the way towards its own grey: (3,) float32."""
    c = np.array(bgr, np.float32)
    return c + _SATURATION * (c.mean() - c)


@lru_cache(maxsize=None)
def _smooth_noise(key: str, cell: int, shape: tuple[int, int] = (DH, DW)) -> np.ndarray:
    """Low-frequency noise in [-1, 1]: a coarse random grid (``cell`` px) smoothly enlarged. (H, W) float32,
    cached (do not write to it)."""
    g = _rng(key).uniform(-1, 1, (shape[0] // cell + 3, shape[1] // cell + 3)).astype(np.float32)
    big = cv2.resize(g, ((shape[1] // cell + 3) * cell, (shape[0] // cell + 3) * cell), interpolation=cv2.INTER_CUBIC)
    big = cv2.GaussianBlur(big, (0, 0), cell / 3)
    return big[cell:cell + shape[0], cell:cell + shape[1]] / max(float(np.abs(big).max()), 1e-6)


@lru_cache(maxsize=1)
def _background_f() -> np.ndarray:
    top, bottom = np.array((222, 230, 248), np.float32), np.array((226, 240, 228), np.float32)  # peach, mint
    t = (_YY / (DH - 1))[..., None]
    img = top * (1 - t) + bottom * t
    # The soft airbrush mottling (two scales) and a light glow behind where the food sits.
    img += (5.0 * _smooth_noise("airbrush-mottle-big", 90) + 2.5 * _smooth_noise("airbrush-mottle", 30))[..., None]
    glow = np.exp(-(((_XX - 220) / 190) ** 2 + ((_YY - 300) / 230) ** 2))
    img += 14.0 * glow[..., None]
    img += _rng("airbrush-grain").normal(0, 1.6, img.shape).astype(np.float32)
    return img


def background() -> np.ndarray:
    """The pale background every front shares (before the food and plate): (630, 440, 3) uint8 BGR."""
    return np.clip(_background_f(), 0, 255).astype(np.uint8)


# --------------------------------------------------------------------------------------------
# Soft shaded shapes. A shape is a (DH, DW) uint8 mask drawn with OpenCV; it is painted as a dome.


def _mask() -> np.ndarray:
    return np.zeros((DH, DW), np.uint8)


def _box(mask: np.ndarray, margin: int) -> tuple[slice, slice]:
    """The rows and columns of ``mask``'s bounding box grown by ``margin`` px (clipped to the canvas):
    shading and blurring only there gives the same pixels as the whole canvas, faster."""
    x, y, w, h = cv2.boundingRect(mask)
    return slice(max(y - margin, 0), min(y + h + margin, mask.shape[0])), \
        slice(max(x - margin, 0), min(x + w + margin, mask.shape[1]))


def _shadow(img: np.ndarray, mask: np.ndarray, dx: int = 8, dy: int = 12) -> None:
    """Darken ``img`` (float32, in place) under a blurred copy of ``mask`` moved by (dx, dy) px."""
    m = np.roll(np.roll(mask, dy, axis=0), dx, axis=1)
    ys, xs = _box(m, int(4 * _SHADOW_SIGMA))
    a = cv2.GaussianBlur(m[ys, xs].astype(np.float32) / 255.0, (0, 0), _SHADOW_SIGMA)
    img[ys, xs] *= (1.0 - _SHADOW_DARK * a)[..., None]


def _dome(img: np.ndarray, mask: np.ndarray, colour: Colour, gloss: float = 0.5, flat: float = 0.0,
          grain: str | None = None) -> None:
    """Paint ``mask`` on ``img`` (float32, in place) in ``colour`` (muted), shaded like a soft dome.

    The height is the distance to the mask's edge (rounded off), the light comes from ``_LIGHT``:
    the lit side is lighter, the far side darker, and ``gloss`` adds an airbrushed highlight.
    ``flat`` (0–1) flattens the relief (a plate, a board); ``grain`` keys a fine mottling (rice, batter).
    """
    if not mask.any():
        return
    by, bx = _box(mask, 12)  # beyond the blurs' reach (3 and 1.6 px): the rest of the canvas is untouched
    sub = np.ascontiguousarray(mask[by, bx])
    dist = cv2.distanceTransform(sub, cv2.DIST_L2, 5)
    depth = max(float(dist.max()), 1.0)
    h = np.sqrt(np.clip(dist / depth, 0, 1) * (2 - np.clip(dist / depth, 0, 1)))  # a rounded profile
    h = cv2.GaussianBlur(h, (0, 0), 3)
    gy, gx = np.gradient(h * depth * (1 - flat) * 0.6)
    nz = 1.0 / np.sqrt(gx * gx + gy * gy + 1.0)
    lam = (-gx * _LIGHT[0] - gy * _LIGHT[1]) * nz + 0.45 * nz  # Lambert-like, from the top-left
    shade = 0.72 + 0.38 * np.clip(lam, -0.6, 1.2)
    base = _muted(colour)
    out = base[None, None, :] * shade[..., None]
    if gloss > 0:
        # An airbrushed highlight: a soft bright spot up and left of the shape's centre.
        ys, xs = np.nonzero(mask)
        cx, cy = xs.mean(), ys.mean()
        rx, ry = max(int(np.ptp(xs)), 8) / 2, max(int(np.ptp(ys)), 8) / 2
        spot = np.exp(-(((_XX[by, bx] - cx + 0.35 * rx) / (0.35 * rx)) ** 2
                        + ((_YY[by, bx] - cy + 0.4 * ry) / (0.3 * ry)) ** 2))
        out += (gloss * 70.0 * spot)[..., None]
    if grain is not None:
        out += (9.0 * _smooth_noise(grain, 6)[by, bx])[..., None]
    alpha = cv2.GaussianBlur(sub.astype(np.float32) / 255.0, (0, 0), _EDGE_SOFT)[..., None]
    img[by, bx] = img[by, bx] * (1 - alpha) + out * alpha


def _soft_line(img: np.ndarray, pts: list[tuple[int, int]], colour: Colour, thick: int, strength: float = 1.0,
               blur: float = 2.0) -> None:
    """An airbrushed stroke through ``pts`` on ``img`` (float32, in place)."""
    m = _mask()
    cv2.polylines(m, [np.array(pts, np.int32)], False, 255, thick, _AA)
    ys, xs = _box(m, int(4 * blur) + 2)
    a = strength * cv2.GaussianBlur(m[ys, xs].astype(np.float32) / 255.0, (0, 0), blur)[..., None]
    img[ys, xs] = img[ys, xs] * (1 - a) + _muted(colour)[None, None, :] * a


def _ellipse(c: tuple[int, int], axes: tuple[int, int], angle: float = 0) -> np.ndarray:
    m = _mask()
    cv2.ellipse(m, c, axes, angle, 0, 360, 255, -1, _AA)
    return m


def _poly(pts: list[tuple[float, float]]) -> np.ndarray:
    m = _mask()
    cv2.fillPoly(m, [np.round(np.array(pts)).astype(np.int32)], 255, _AA)
    return m


# --------------------------------------------------------------------------------------------
# The food.

_RICE: Colour = (236, 242, 246)
_NORI: Colour = (60, 75, 55)
_SALMON: Colour = (95, 140, 235)
_EGG: Colour = (80, 205, 245)
_SQUID: Colour = (228, 226, 236)
_SLATE: Colour = (120, 112, 105)
_WOOD: Colour = (110, 160, 200)
_DISH: Colour = (235, 232, 225)


def _darker(c: Colour, f: float) -> Colour:
    return tuple(int(v * f) for v in c)  # type: ignore[return-value]


def _maki(img: np.ndarray, n: int) -> None:
    """A wooden board with ``n`` identical rolls (side view, top face up) standing on it."""
    board = _poly([(70, 420), (370, 420), (388, 470), (52, 470)])
    _shadow(img, board)
    _dome(img, board, _WOOD, gloss=0.15, flat=0.8, grain="airbrush-board")
    for x in (80, 360):  # the board's feet
        _dome(img, _poly([(x - 14, 470), (x + 14, 470), (x + 14, 492), (x - 14, 492)]), _darker(_WOOD, 0.7), 0, 0.8)
    xs = {1: (220,), 2: (152, 288), 3: (110, 220, 330)}[n]
    r = 52
    for x in xs:
        side = _mask()
        cv2.rectangle(side, (x - r, 330), (x + r, 415), 255, -1)
        cv2.ellipse(side, (x, 415), (r, 20), 0, 0, 180, 255, -1, _AA)
        _shadow(img, side, 6, 6)
        _dome(img, side, _NORI, gloss=0.25, flat=0.3)
        _dome(img, _ellipse((x, 330), (r, 20)), _RICE, gloss=0.1, flat=0.7, grain=f"airbrush-rice-{x}")
        _dome(img, _ellipse((x - 4, 331), (16, 8)), _SALMON, gloss=0.3, flat=0.5)
        _dome(img, _ellipse((x + 13, 328), (7, 5)), (90, 170, 95), gloss=0.3, flat=0.5)


def _nigiri_base(img: np.ndarray) -> None:
    """The slate and rice every nigiri shares."""
    slate = _poly([(60, 440), (380, 440), (380, 470), (60, 470)])
    _shadow(img, slate)
    _dome(img, slate, _SLATE, gloss=0.1, flat=0.9, grain="airbrush-slate")
    rice = _ellipse((220, 395), (130, 55))
    _shadow(img, rice, 4, 6)
    _dome(img, rice, _RICE, gloss=0.3, grain="airbrush-nigiri-rice")


def _topping(img: np.ndarray, kind: str) -> None:
    """The one part that tells the three nigiri apart: the topping's colour and shape."""
    if kind == "egg":
        m = _mask()
        cv2.rectangle(m, (95, 300), (345, 372), 255, -1)
        m = cv2.dilate(cv2.erode(m, np.ones((19, 19), np.uint8)), np.ones((19, 19), np.uint8))  # rounded
        _shadow(img, m, 4, 8)
        _dome(img, m, _EGG, gloss=0.45, flat=0.4)
        band = _poly([(198, 292), (242, 292), (242, 402), (198, 402)])
        _dome(img, band, _NORI, gloss=0.2, flat=0.6)
    elif kind == "salmon":
        pts = [(80, 352), (150, 318), (260, 304), (365, 312), (375, 346), (280, 370), (150, 380), (90, 378)]
        m = _poly(pts)
        _shadow(img, m, 4, 8)
        _dome(img, m, _SALMON, gloss=0.5)
        for k in range(5):
            x = 120 + 55 * k
            _soft_line(img, [(x, 378), (x + 32, 310)], (225, 232, 246), 7, 0.75, 2.5)
    elif kind == "squid":
        pts = [(90, 340), (170, 312), (300, 310), (360, 322), (346, 340), (362, 360), (300, 372), (160, 374)]
        m = _poly(pts)
        _shadow(img, m, 4, 8)
        _dome(img, m, _SQUID, gloss=0.6)
        for k in range(6):  # the scoring cut into the squid
            x = 130 + 36 * k
            _soft_line(img, [(x, 322), (x + 30, 366)], (185, 180, 200), 3, 0.7, 1.2)
            _soft_line(img, [(x + 30, 322), (x, 366)], (185, 180, 200), 3, 0.7, 1.2)
    else:  # pragma: no cover - labels are validated before this point
        raise AssertionError(kind)


def _food(img: np.ndarray, label: str) -> None:
    fam = _family(label)
    if fam == "maki":
        _maki(img, int(label[-1]))
    elif fam == "nigiri":
        _nigiri_base(img)
        _topping(img, label.split("_")[0])
    elif label == "tempura":
        body = _mask()
        cv2.ellipse(body, (220, 300), (120, 130), 0, 150, 390, 255, 78, _AA)  # the curled shrimp
        rng = _rng("airbrush-tempura")
        for a in np.linspace(150, 390, 15):  # batter bumps on its edge
            t = math.radians(a)
            p = (int(220 + (120 + rng.uniform(28, 42)) * math.cos(t)),
                 int(300 + (130 + rng.uniform(28, 42)) * math.sin(t)))
            cv2.circle(body, p, int(rng.uniform(12, 20)), 255, -1, _AA)
        _shadow(img, body)
        _dome(img, body, (70, 175, 230), gloss=0.45, grain="airbrush-batter")
        tail = _poly([(318, 372), (392, 318), (404, 372), (396, 426), (330, 400)])
        _dome(img, tail, (80, 95, 215), gloss=0.4)
    elif label == "sashimi":
        plate = _poly([(50, 330), (390, 330), (405, 450), (35, 450)])
        _shadow(img, plate)
        _dome(img, plate, (215, 205, 190), gloss=0.2, flat=0.85)
        for i, cx in enumerate((130, 220, 310)):
            box = cv2.boxPoints(((cx, 365 - 18 * (i == 1)), (74, 170), 14))
            m = _poly([tuple(p) for p in box])
            _shadow(img, m, 4, 6)
            _dome(img, m, (80, 110, 225), gloss=0.45)
            for k in (-45, 0, 45):
                _soft_line(img, [(cx - 28, 365 + k + 12), (cx + 28, 365 + k - 12)], (215, 220, 245), 6, 0.7, 2)
    elif label == "dumpling":
        m = _mask()
        cv2.ellipse(m, (220, 410), (165, 150), 0, 180, 360, 255, -1, _AA)
        cv2.ellipse(m, (220, 410), (165, 32), 0, 0, 180, 255, -1, _AA)
        _shadow(img, m)
        _dome(img, m, (175, 215, 235), gloss=0.4, grain="airbrush-dumpling")
        for dx in (-90, -45, 0, 45, 90):  # the pleats, airbrushed folds
            _soft_line(img, [(220 + dx, 275 + abs(dx) // 4), (220 + int(dx * 1.15), 350)], (120, 160, 190), 8, 0.6, 4)
        _soft_line(img, [(190, 230), (205, 205), (190, 180), (205, 155)], (250, 250, 250), 6, 0.5, 4)  # steam
        _soft_line(img, [(245, 230), (260, 205), (245, 180), (260, 155)], (250, 250, 250), 6, 0.5, 4)
    elif label == "pudding":
        saucer = _ellipse((220, 462), (175, 34))
        _shadow(img, saucer)
        _dome(img, saucer, _DISH, gloss=0.3, flat=0.8)
        body = _poly([(110, 455), (330, 455), (290, 265), (150, 265)])
        _shadow(img, body, 6, 6)
        _dome(img, body, (110, 200, 240), gloss=0.5)
        top = _ellipse((220, 268), (72, 24))
        _dome(img, top, (45, 85, 140), gloss=0.5, flat=0.5)
        for dx, ln in ((-50, 55), (-10, 80), (35, 45)):  # caramel running down
            _soft_line(img, [(220 + dx, 272), (220 + dx, 272 + ln)], (45, 85, 140), 16, 0.9, 2)
        _dome(img, _ellipse((220, 228), (24, 24)), (60, 60, 200), gloss=0.8)  # a cherry
        _soft_line(img, [(222, 206), (232, 180), (248, 168)], (70, 110, 90), 4, 0.9, 1)
    elif label == "wasabi":
        dish = _ellipse((220, 450), (160, 42))
        _shadow(img, dish)
        _dome(img, dish, _DISH, gloss=0.3, flat=0.8)
        m = _mask()
        for c, r in (((220, 390), 110), ((150, 420), 62), ((290, 420), 62), ((220, 300), 78), ((232, 236), 46)):
            cv2.circle(m, c, r, 255, -1, _AA)
        m[440:] = 0  # it sits in the dish: nothing of it below the dish's middle
        _shadow(img, m, 6, 6)
        _dome(img, m, (95, 200, 130), gloss=0.4, grain="airbrush-wasabi")
    elif label == "chopsticks":
        rest = _ellipse((220, 445), (70, 24))
        for off in (-40, 40):
            s = _poly([(105 + off, 520), (125 + off, 524), (338 + off, 152), (330 + off, 148)])
            _shadow(img, s, 10, 10)
            _dome(img, s, _WOOD, gloss=0.5, grain=f"airbrush-chop{off}")
        _shadow(img, rest, 4, 6)
        _dome(img, rest, (150, 150, 200), gloss=0.6)
    else:  # pragma: no cover - labels are validated before this point
        raise AssertionError(label)


_NAME = {"maki": "maki roll", "nigiri": "nigiri"}
_RULE = {
    "tempura": "a pair scores 5", "sashimi": "three score 10", "dumpling": "1  3  6  10  15",
    "maki": "most rolls 6  /  next 3", "nigiri": "egg 1  salmon 2  squid 3", "pudding": "at the end +6 / -6",
    "wasabi": "next nigiri x3", "chopsticks": "later: take two",
}


def _text(img: np.ndarray, text: str, cy: int, height: float, colour: Colour, thick: int) -> None:
    """``text`` centred on x = DW/2 at baseline-centre ``cy``, ``height`` px tall (on a uint8 image)."""
    font = cv2.FONT_HERSHEY_SIMPLEX
    (_, h1), _ = cv2.getTextSize("Hg", font, 1.0, thick)
    scale = height / h1
    (w, h), _ = cv2.getTextSize(text, font, scale, thick)
    cv2.putText(img, text, (int(DW / 2 - w / 2), int(cy + h / 2)), font, scale, colour, thick, _AA)


def _plate(img: np.ndarray, label: str) -> np.ndarray:
    """The white rounded text plate on the bottom edge, with the name and rule: uint8 in, uint8 out."""
    m = _mask()
    x0, x1 = _PLATE_X
    cv2.rectangle(m, (x0, PLATE_TOP + _PLATE_R), (x1, DH), 255, -1)
    cv2.rectangle(m, (x0 + _PLATE_R, PLATE_TOP), (x1 - _PLATE_R, DH), 255, -1)
    for x in (x0 + _PLATE_R, x1 - _PLATE_R):
        cv2.circle(m, (x, PLATE_TOP + _PLATE_R), _PLATE_R, 255, -1, _AA)
    f = img.astype(np.float32)
    _shadow(f, m, 0, -3)  # a faint shadow just above the plate
    a = cv2.GaussianBlur(m.astype(np.float32) / 255.0, (0, 0), 0.8)[..., None]
    f = f * (1 - a) + np.array(_PLATE, np.float32) * a
    out = np.clip(f, 0, 255).astype(np.uint8)
    fam = _family(label)
    _text(out, _NAME.get(fam, label), PLATE_TOP + 26, 17, _GREY_TEXT, 2)
    _text(out, _RULE[fam], PLATE_TOP + 52, 11, (150, 146, 150), 1)
    return out


def _front(label: str) -> np.ndarray:
    img = _background_f().copy()
    _food(img, label)
    return _plate(np.clip(img, 0, 255).astype(np.uint8), label)


def _back() -> np.ndarray:
    """Dusty teal, a soft glow and a ring of pale discs round a soft emblem, point-symmetric."""
    t = (_YY / (DH - 1))[..., None]
    img = np.array((150, 140, 95), np.float32) * (1 - t) + np.array((130, 125, 85), np.float32) * t
    img += (6.0 * _smooth_noise("airbrush-back", 70))[..., None]
    glow = np.exp(-(((_XX - 220) / 170) ** 2 + ((_YY - 315) / 200) ** 2))
    img += 40.0 * glow[..., None]
    for k in range(12):
        a = 2 * math.pi * k / 12
        _dome(img, _ellipse((int(220 + 135 * math.cos(a)), int(315 + 165 * math.sin(a))), (20, 20)),
              (215, 225, 225), gloss=0.5)
    _dome(img, _ellipse((220, 315), (70, 70)), (235, 240, 240), gloss=0.4)
    _dome(img, _ellipse((220, 315), (34, 34)), (110, 120, 200), gloss=0.6)
    return point_symmetric(np.clip(img, 0, 255).astype(np.uint8))


@lru_cache(maxsize=None)
def design(label: str) -> np.ndarray:
    """The airbrush face (or back) of ``label`` at the design size.

    Args:
        label: one of :data:`LABELS` (the 12 card types and "back").

    Returns:
        (630, 440, 3) uint8 BGR, read-only (cached: copy or resize before drawing on it). Row 0 is the
        face's top (the text plate is at the bottom).

    Raises:
        ValueError: unknown label, naming the valid ones.
    """
    return finished(label, _front, _back)
