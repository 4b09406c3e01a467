"""Our own drawings of die faces: standard d6 pips and the eleven Sushi Roll icons, in two styles.

None of this copies the publisher's art. Every face is drawn at a design size with OpenCV's
anti-aliased primitives (sub-pixel, ``shift=4``) in coordinates relative to the face, then resized,
so every size looks alike.

Styles (``STYLES``):

* ``"ours"``: bold flat icons, filled colours with a thick dark outline; several icons of one
  face (``maki*3``) are laid on the face's diagonal, like d6 pips.
* ``"second"``: a different print on purpose: thin line art in one ink (white on dark bodies,
  near-black on light ones), other shapes and proportions (maki seen from the side, crossed
  chopsticks, a ramekin pudding...), several icons side by side or in a triangle, and a printed
  frame inset from the edge. The body colours are a slightly different dye. A reader tuned on
  one style can be measured on the other.

d6 pips use the standard layout on a 3 × 3 grid at 1/4, 1/2 and 3/4 of the edge (1 = centre,
2 = a diagonal, 3 = a diagonal and the centre, 4 = corners, 5 = corners and centre, 6 = two
columns of three).
"""

from __future__ import annotations

import math
from typing import Callable, Sequence

import cv2
import numpy as np

#: The two art styles of the Sushi Roll icons.
STYLES: tuple[str, ...] = ("ours", "second")

BGR = tuple[int, int, int]

#: Die body colour (BGR) per colour name of ``companion/data/sushi_roll_dice.toml``, per style.
BODY_BGR: dict[str, dict[str, BGR]] = {
    "ours": {
        "blue": (190, 115, 35),
        "red": (45, 40, 195),
        "white": (236, 238, 240),
        "green": (75, 165, 60),
        "pink": (185, 135, 240),
    },
    "second": {
        "blue": (175, 95, 20),
        "red": (60, 30, 170),
        "white": (220, 232, 238),
        "green": (60, 140, 40),
        "pink": (205, 120, 225),
    },
}
D6_BODY: BGR = (238, 240, 242)
D6_PIP: BGR = (28, 28, 30)

_SHIFT = 4
_ONE = 1 << _SHIFT
_AA = cv2.LINE_AA
_INK = (32, 30, 30)
_WHITE = (250, 250, 250)
_RICE = (242, 246, 248)
#: Rounded die corners: radius as a fraction of the edge.
CORNER_FRAC = 0.13


def corner_radius_px(size_px: float) -> float:
    """Radius (px) of a die's rounded corners for a face of edge ``size_px`` px."""
    return CORNER_FRAC * size_px


class _Pen:
    """Draws on ``img`` in an icon box: centre ``(cx, cy)`` px, half-size ``r`` px; u, v in −1 … 1."""

    def __init__(self, img: np.ndarray, cx: float, cy: float, r: float):
        self.img, self.cx, self.cy, self.r = img, cx, cy, r

    def p(self, u: float, v: float) -> tuple[int, int]:
        return int(round((self.cx + u * self.r) * _ONE)), int(round((self.cy + v * self.r) * _ONE))

    def t(self, w: float) -> int:
        """A line thickness of ``w`` box half-sizes, at least 1 px."""
        return max(1, int(round(w * self.r)))

    def ellipse(self, u, v, au, av, colour, width=-1.0, angle=0.0, a0=0.0, a1=360.0):
        th = -1 if width < 0 else self.t(width)
        axes = (max(1, int(round(au * self.r * _ONE))), max(1, int(round(av * self.r * _ONE))))
        cv2.ellipse(self.img, self.p(u, v), axes, angle, a0, a1, colour, th, _AA, _SHIFT)

    def circle(self, u, v, rad, colour, width=-1.0):
        self.ellipse(u, v, rad, rad, colour, width)

    def poly(self, pts: Sequence[tuple[float, float]], colour, width=-1.0, closed=True):
        arr = np.array([self.p(u, v) for u, v in pts], np.int32)
        if width < 0:
            cv2.fillPoly(self.img, [arr], colour, _AA, _SHIFT)
        else:
            cv2.polylines(self.img, [arr], closed, colour, self.t(width), _AA, _SHIFT)

    def line(self, u0, v0, u1, v1, colour, width):
        cv2.line(self.img, self.p(u0, v0), self.p(u1, v1), colour, self.t(width), _AA, _SHIFT)

    def filled(self, shape: Callable[..., None], fill, outline, width, *args, **kw):
        """Draw ``shape`` filled, then its outline."""
        shape(*args, colour=fill, **kw)
        shape(*args, colour=outline, width=width, **kw)


def _rounded_rect(u0, v0, u1, v1, rad, n=6) -> list[tuple[float, float]]:
    pts = []
    for cu, cv_, a0 in ((u1 - rad, v0 + rad, -90), (u1 - rad, v1 - rad, 0), (u0 + rad, v1 - rad, 90), (u0 + rad, v0 + rad, 180)):
        for k in range(n + 1):
            a = math.radians(a0 + 90 * k / n)
            pts.append((cu + rad * math.cos(a), cv_ + rad * math.sin(a)))
    return pts


# --------------------------------------------------------------------------- style "ours": bold, filled


def _ours(pen: _Pen, icon: str) -> None:
    ow = 0.09  # outline width (box half-sizes): bold
    if icon == "dumpling":
        pen.filled(pen.ellipse, (185, 222, 245), _INK, ow, 0, 0.35, 0.92, 0.8, a0=180, a1=360)
        pen.line(-0.92, 0.35, 0.92, 0.35, _INK, ow)
        for u in (-0.45, 0.0, 0.45):  # pleats along the rim
            pen.line(u, -0.42 + abs(u) * 0.35, u * 0.8, -0.05, _INK, 0.07)
    elif icon == "tempura":
        pen.filled(pen.ellipse, (60, 170, 240), _INK, ow, -0.1, 0.1, 0.78, 0.36, angle=-35)
        pen.filled(pen.poly, (50, 80, 225), _INK, ow, [(0.45, -0.4), (0.95, -0.85), (0.95, -0.2)])
        for k in range(4):  # batter bumps
            a = math.radians(-35)
            s = -0.55 + 0.35 * k
            pen.circle(-0.1 + s * math.cos(a), 0.1 + s * math.sin(a), 0.08, (150, 225, 255))
    elif icon == "sashimi":
        for k, u in enumerate((-0.55, 0.0, 0.55)):
            pts = [(u - 0.35, 0.75), (u - 0.05, -0.75), (u + 0.35, -0.75), (u + 0.05, 0.75)]
            pen.filled(pen.poly, (95, 135, 250), _INK, 0.07, pts)
            pen.line(u - 0.12, 0.35, u + 0.08, -0.35, _WHITE, 0.08)
    elif icon == "maki":
        pen.filled(pen.circle, (35, 45, 30), _INK, ow, 0, 0, 0.9)
        pen.circle(0, 0, 0.66, _RICE)
        pen.circle(0, 0, 0.3, (60, 130, 250))
        pen.circle(0.08, -0.08, 0.12, (80, 190, 90))
    elif icon in ("egg_nigiri", "salmon_nigiri", "squid_nigiri"):
        pen.filled(pen.ellipse, _RICE, _INK, ow, 0, 0.4, 0.85, 0.42)
        slab = _rounded_rect(-0.92, -0.62, 0.92, 0.25, 0.3)
        if icon == "egg_nigiri":
            pen.filled(pen.poly, (60, 215, 250), _INK, ow, slab)
            pen.poly([(-0.2, -0.66), (0.2, -0.66), (0.2, 0.75), (-0.2, 0.75)], (45, 50, 35))
        elif icon == "salmon_nigiri":
            pen.filled(pen.poly, (80, 130, 250), _INK, ow, slab)
            for u in (-0.5, 0.0, 0.5):
                pen.line(u - 0.15, 0.1, u + 0.15, -0.5, _WHITE, 0.1)
        else:
            pen.filled(pen.poly, (215, 205, 200), _INK, ow, slab)
            for u in (-0.5, -0.1, 0.3, 0.7):  # scored cuts, both ways
                pen.line(u - 0.2, 0.15, u + 0.1, -0.5, (140, 130, 125), 0.06)
                pen.line(u + 0.1, 0.15, u - 0.2, -0.5, (140, 130, 125), 0.06)
    elif icon == "wasabi":
        pen.filled(pen.ellipse, _WHITE, _INK, ow, 0, 0.55, 0.95, 0.3)
        pen.filled(pen.poly, (120, 235, 160), _INK, ow,
                   [(-0.7, 0.55), (-0.45, -0.1), (-0.1, -0.75), (0.1, -0.85), (0.45, -0.1), (0.7, 0.55)])  # fmt: skip
        pen.ellipse(0, 0.0, 0.3, 0.25, _INK, 0.07, a0=200, a1=340)
    elif icon == "chopsticks":
        for du in (-0.2, 0.2):
            pts = [(du * 0.5 - 0.06, -0.95), (du * 0.5 + 0.06, -0.95), (du * 2 + 0.1, 0.95), (du * 2 - 0.1, 0.95)]
            pen.filled(pen.poly, (120, 190, 230), _INK, 0.07, pts)
    elif icon == "menu":
        pen.filled(pen.poly, _WHITE, _INK, ow, _rounded_rect(-0.62, -0.9, 0.62, 0.9, 0.12))
        pen.poly(_rounded_rect(-0.52, -0.8, 0.52, -0.4, 0.06), (50, 50, 200))
        for v in (-0.15, 0.15, 0.45):
            pen.line(-0.38, v, 0.38, v, _INK, 0.09)
    elif icon == "pudding":
        pen.filled(pen.ellipse, _WHITE, _INK, ow, 0, 0.62, 0.98, 0.28)
        body = [(-0.62, 0.6), (-0.42, -0.55), (0.42, -0.55), (0.62, 0.6)]
        pen.filled(pen.poly, (90, 210, 250), _INK, ow, body)
        pen.filled(pen.poly, (35, 75, 140), _INK, ow, [(-0.42, -0.55), (0.42, -0.55), (0.47, -0.22), (-0.47, -0.22)])
    else:  # pragma: no cover - guarded by the caller
        raise ValueError(f"unknown icon {icon!r}")


# --------------------------------------------------------------------------- style "second": thin line art


def _second(pen: _Pen, icon: str, ink: BGR) -> None:
    w = 0.075  # line width (box half-sizes): thin
    if icon == "dumpling":  # a round bun seen from above, pleats twisting to the centre
        pen.circle(0, 0.05, 0.85, ink, w)
        for k in range(5):
            a = math.radians(90 + 72 * k)
            pen.ellipse(0.42 * math.cos(a), 0.05 + 0.42 * math.sin(a), 0.42, 0.22, ink, w, angle=72 * k + 90, a0=0, a1=180)
    elif icon == "tempura":  # a curled shrimp: an open C and a fanned tail
        pen.ellipse(0, 0.1, 0.7, 0.7, ink, w * 2.2, a0=40, a1=300)
        pen.poly([(0.55, -0.4), (0.95, -0.95), (0.75, -0.3), (0.98, -0.15)], ink, w, closed=True)
        for a in (100, 160, 220):
            r = math.radians(a)
            pen.line(0.55 * math.cos(r), 0.1 + 0.55 * math.sin(r), 0.85 * math.cos(r), 0.1 + 0.85 * math.sin(r), ink, w)
    elif icon == "sashimi":  # two slices fanned on a leaf
        pen.ellipse(0, 0, 0.95, 0.5, ink, w, angle=-20)
        pen.line(-0.85, 0.3, 0.85, -0.3, ink, w)
        for u in (-0.35, 0.25):
            pen.poly([(u - 0.25, 0.35), (u, -0.45), (u + 0.3, -0.4), (u + 0.05, 0.4)], ink, w)
    elif icon == "maki":  # the roll seen from the side: a short cylinder
        pen.ellipse(0, -0.45, 0.7, 0.32, ink, w)
        pen.ellipse(0, -0.45, 0.42, 0.18, ink, w)
        pen.circle(0, -0.45, 0.08, ink)
        pen.line(-0.7, -0.45, -0.7, 0.5, ink, w)
        pen.line(0.7, -0.45, 0.7, 0.5, ink, w)
        pen.ellipse(0, 0.5, 0.7, 0.32, ink, w, a0=0, a1=180)
    elif icon in ("egg_nigiri", "salmon_nigiri", "squid_nigiri"):
        pen.ellipse(0, 0.45, 0.9, 0.32, ink, w)  # rice
        if icon == "egg_nigiri":  # a block, tied with a band
            pen.poly([(-0.8, -0.5), (0.8, -0.5), (0.8, 0.2), (-0.8, 0.2)], ink, w)
            pen.line(-0.12, -0.55, -0.12, 0.7, ink, w)
            pen.line(0.12, -0.55, 0.12, 0.7, ink, w)
        elif icon == "salmon_nigiri":  # a draped slice with stripes
            pen.ellipse(0, 0.25, 0.95, 0.85, ink, w, a0=180, a1=360)
            for u in (-0.45, 0.0, 0.45):
                pen.line(u - 0.2, 0.15, u + 0.15, -0.45, ink, w)
        else:  # squid: a wavy lower edge, tentacle tips
            pen.ellipse(0, 0.1, 0.9, 0.75, ink, w, a0=180, a1=360)
            for k in range(4):
                u = -0.7 + 0.47 * k
                pen.ellipse(u + 0.12, 0.1, 0.12, 0.12, ink, w, a0=0, a1=180)
            for u in (-0.3, 0.3):
                pen.circle(u, -0.3, 0.1, ink)
    elif icon == "wasabi":  # a root with two leaves
        pen.poly([(-0.3, -0.3), (0.3, -0.3), (0.12, 0.95), (-0.12, 0.95)], ink, w)
        for k in (0.2, 0.45, 0.7):
            pen.line(-0.2 + k * 0.1, k, 0.2 - k * 0.1, k, ink, w)
        pen.ellipse(-0.4, -0.6, 0.35, 0.2, ink, w, angle=30)
        pen.ellipse(0.4, -0.6, 0.35, 0.2, ink, w, angle=-30)
    elif icon == "chopsticks":  # crossed, on a rest
        pen.line(-0.8, -0.85, 0.75, 0.8, ink, w * 1.8)
        pen.line(0.8, -0.85, -0.75, 0.8, ink, w * 1.8)
        pen.ellipse(0, 0.78, 0.35, 0.15, ink, w)
    elif icon == "menu":  # an open book
        pen.poly([(-0.95, -0.6), (0.0, -0.45), (0.0, 0.75), (-0.95, 0.6)], ink, w)
        pen.poly([(0.95, -0.6), (0.0, -0.45), (0.0, 0.75), (0.95, 0.6)], ink, w)
        for v in (-0.2, 0.1, 0.4):
            pen.line(-0.75, v - 0.05, -0.2, v + 0.03, ink, w)
            pen.line(0.2, v + 0.03, 0.75, v - 0.05, ink, w)
    elif icon == "pudding":  # a ramekin with a cherry
        pen.poly([(-0.75, -0.25), (0.75, -0.25), (0.55, 0.8), (-0.55, 0.8)], ink, w)
        pen.ellipse(0, -0.25, 0.75, 0.22, ink, w)
        pen.circle(0, -0.7, 0.2, ink)
    else:  # pragma: no cover - guarded by the caller
        raise ValueError(f"unknown icon {icon!r}")


# --------------------------------------------------------------------------- faces

#: Icon box centres (fractions of the edge) and half-size for n icons, per style.
_LAYOUT: dict[str, dict[int, tuple[list[tuple[float, float]], float]]] = {
    "ours": {
        1: ([(0.5, 0.5)], 0.34),
        2: ([(0.3, 0.3), (0.7, 0.7)], 0.19),
        3: ([(0.23, 0.23), (0.5, 0.5), (0.77, 0.77)], 0.15),
    },
    "second": {
        1: ([(0.5, 0.5)], 0.3),
        2: ([(0.29, 0.5), (0.71, 0.5)], 0.18),
        3: ([(0.5, 0.3), (0.29, 0.69), (0.71, 0.69)], 0.16),
    },
}

_DESIGN = 256  # design edge (px) of a face before resizing


def _layout(style: str, n: int) -> tuple[list[tuple[float, float]], float]:
    if n in _LAYOUT[style]:
        return _LAYOUT[style][n]
    # More icons than any known die shows: a grid, so the art still draws (and counts).
    cols = math.ceil(math.sqrt(n))
    rows = math.ceil(n / cols)
    step = 0.8 / cols
    return [((0.1 + step * ((i % cols) + 0.5)), (0.5 + (i // cols - (rows - 1) / 2) * step)) for i in range(n)], 0.4 * step


def _ink_for(body: BGR) -> BGR:
    """The line-art ink that shows on ``body``: white on dark dye, near-black on light."""
    luma = 0.114 * body[0] + 0.587 * body[1] + 0.299 * body[2]
    return _WHITE if luma < 150 else _INK


def rounded_mask(size_px: int) -> np.ndarray:
    """(size_px, size_px) float32 coverage 0 … 1 of a die face with rounded corners, anti-aliased."""
    s = size_px
    big = np.zeros((s * 4, s * 4), np.uint8)
    r = corner_radius_px(s * 4)
    pts = np.array(_rounded_rect(0, 0, s * 4 - 1, s * 4 - 1, r, 8), np.float64)
    cv2.fillPoly(big, [np.round(pts * _ONE).astype(np.int32)], 255, _AA, _SHIFT)
    return cv2.resize(big, (s, s), interpolation=cv2.INTER_AREA).astype(np.float32) / 255.0


def _bevel(img: np.ndarray, body: BGR) -> np.ndarray:
    """Darken the face towards its rounded edges; fill outside the rounded square with dark body."""
    s = img.shape[0]
    mask = rounded_mask(s)
    dist = cv2.distanceTransform((mask > 0.5).astype(np.uint8), cv2.DIST_L2, 3)
    edge = np.clip(dist / (0.06 * s), 0, 1)
    shade = 0.78 + 0.22 * np.sqrt(edge)
    out = img.astype(np.float32) * shade[..., None]
    dark = np.asarray(body, np.float32) * 0.5
    out = out * mask[..., None] + dark * (1 - mask[..., None])
    return np.clip(out + 0.5, 0, 255).astype(np.uint8)


def draw_pips(img: np.ndarray, value: int, pip: BGR) -> None:
    """Draw the standard pip layout of ``value`` (1 … 6) onto the square ``img`` in place."""
    s = img.shape[0]
    lo, mid, hi = 0.25, 0.5, 0.75
    places = {
        1: [(mid, mid)],
        2: [(lo, lo), (hi, hi)],
        3: [(lo, lo), (mid, mid), (hi, hi)],
        4: [(lo, lo), (hi, lo), (lo, hi), (hi, hi)],
        5: [(lo, lo), (hi, lo), (mid, mid), (lo, hi), (hi, hi)],
        6: [(lo, lo), (lo, mid), (lo, hi), (hi, lo), (hi, mid), (hi, hi)],
    }[value]
    rad = (0.13 if value == 1 else 0.09) * s
    for x, y in places:
        c = (int(round(x * s * _ONE)), int(round(y * s * _ONE)))
        cv2.circle(img, c, int(round(rad * _ONE)), pip, -1, _AA, _SHIFT)


def d6_art(value: int, size_px: int, body: BGR, pip: BGR) -> np.ndarray:
    """(size_px, size_px, 3) uint8 BGR: a d6 face showing ``value`` pips (see the module doc)."""
    d = max(_DESIGN, size_px)
    img = np.empty((d, d, 3), np.uint8)
    img[:] = body
    draw_pips(img, value, pip)
    img = _bevel(img, body)
    return cv2.resize(img, (size_px, size_px), interpolation=cv2.INTER_AREA) if d != size_px else img


def icon_art(icon: str, count: int, size_px: int, style: str, body: BGR) -> np.ndarray:
    """(size_px, size_px, 3) uint8 BGR: a Sushi Roll face with ``count`` ``icon``s in ``style``."""
    d = max(_DESIGN, size_px)
    img = np.empty((d, d, 3), np.uint8)
    img[:] = body
    centres, half = _layout(style, count)
    if style == "second":
        ink = _ink_for(body)
        m = 0.075 * d  # the printed frame
        frame = np.array(_rounded_rect(m, m, d - 1 - m, d - 1 - m, 0.08 * d, 6))
        cv2.polylines(img, [np.round(frame * _ONE).astype(np.int32)], True, ink, max(1, round(0.012 * d)), _AA, _SHIFT)
        for cx, cy in centres:
            _second(_Pen(img, cx * d, cy * d, half * d), icon, ink)
    else:
        for cx, cy in centres:
            _ours(_Pen(img, cx * d, cy * d, half * d), icon)
    img = _bevel(img, body)
    return cv2.resize(img, (size_px, size_px), interpolation=cv2.INTER_AREA) if d != size_px else img
