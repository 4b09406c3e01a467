"""A fourth simulated deck style, "watercolour": pale washes on white card stock with a white border.

The reader has been tuned while looking at the "flat" (``companion.sim.faces``), "illustrated"
(``companion.sim.faces_illustrated``) and "noir" (``companion.sim.faces_noir``) styles, so none of
them is a clean held-out measure of issue #6 ("read any deck a user enrols") any more. This style is
drawn to be as unlike all three as we can and as like a printed commercial deck in a soft
watercolour look, with our own OpenCV drawings, never a publisher's art:

* **White card stock and a white border** — every face is warm white paper (about the mat's own
  off-white, BGR ~ (238, 242, 244), lighter than its zones only by ~12 levels) with a 2.4 mm
  unpainted border all round, so on the light mat a card's outline is hardly there: only the
  paper's grain and the card's shadow show it. Three types' background washes also run off one
  edge of the card (a "bleed"), so the edge is sometimes white, sometimes pale colour.
* **Pale, ragged washes instead of shapes** — the food and an optional background are transparent
  pastel washes glazed over the paper (multiplicative, like pigment): ragged edges from smooth noise,
  blotchy density, the darker rim a drying wash leaves, pigment granulation in the paper's grain,
  and white areas left unpainted ("reserved"), many of them reaching the border. Most of a card is
  near-white; nothing on it is darker than mid-tone except the few small accents.
* **Thin soft pencil lines** — 2 px (0.2 mm) grey-brown outlines at partial strength, which vanish at
  camera resolution; no black anywhere.
* **Tiny text** — the name in a small lower-case script at the top-left and a smaller rule reminder
  at the bottom-left (1–1.5 mm letters), so fronts are chiral (and the art's cast shadows fall to the
  lower right).
* **Small in-type differences** — maki_1/2/3 share every pixel except 1, 2 or 3 small roll marks
  (4 mm across) in a row at the bottom centre; the three nigiri share the rice, the topping's outline
  and its blotches and differ only in the topping wash's colour (pale yellow, peach, lilac-grey) and
  the one word of their name.
* **Point-symmetric back** — an indigo wash with a lattice of reserved white rings and a central
  rosette inside the white border, made exactly symmetric by averaging with its 180° turn.
* **Deterministic** — every noise is seeded from a key (the family, a wash's name) with ``zlib.crc32``.

Faces are drawn at the shared 440 × 630 px design size (``design``), BGR uint8.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Callable

import cv2
import numpy as np

from companion.sim.face_design import DH, DW, LABELS, family as _family, finished, point_symmetric, seeded as _rng

_AA = cv2.LINE_AA

Colour = tuple[int, int, int]

_PAPER: Colour = (238, 242, 244)  # warm white card stock (BGR), close to the mat's off-white
_PENCIL: Colour = (95, 105, 120)  # grey-brown pencil, drawn at partial strength
_TEXT: Colour = (100, 108, 120)
BORDER = 24  # unpainted white border (design px): 2.4 mm on a 44 mm card

_YY, _XX = np.mgrid[0:DH, 0:DW].astype(np.float32)

#: Pigments (BGR at full strength; a wash shows them at its density over the white paper).
_OCHRE: Colour = (60, 165, 225)
_PEACH: Colour = (110, 170, 245)
_CORAL: Colour = (100, 115, 235)
_SALMON: Colour = (115, 140, 240)
_SLATE: Colour = (190, 165, 150)  # blue-grey: plates, dishes, shadows
_LAVENDER: Colour = (205, 165, 185)
_BEIGE: Colour = (140, 185, 220)
_TOAST: Colour = (70, 120, 185)
_MINT: Colour = (175, 210, 160)
_NORI: Colour = (95, 120, 85)
_SKY: Colour = (225, 195, 160)
_YOLK: Colour = (95, 210, 245)
_ROSE: Colour = (185, 165, 245)
_CARAMEL: Colour = (60, 115, 175)
_CHERRY: Colour = (75, 70, 215)
_LEAF: Colour = (105, 200, 130)
_WOOD: Colour = (95, 155, 205)
_RED: Colour = (105, 105, 220)
_INDIGO: Colour = (150, 95, 60)

#: The nigiri differ only in this: the colour of the topping's wash (same outline, same blotches).
_TOPPING: dict[str, Colour] = {"egg": (80, 205, 245), "salmon": (95, 150, 245), "squid": (215, 200, 205)}

_TITLE = {
    "tempura": "tempura", "sashimi": "sashimi", "dumpling": "dumpling", "maki": "maki",
    "egg_nigiri": "egg nigiri", "salmon_nigiri": "salmon nigiri", "squid_nigiri": "squid nigiri",
    "pudding": "pudding", "wasabi": "wasabi", "chopsticks": "chopsticks",
}
_RULE = {
    "tempura": "a pair scores 5", "sashimi": "three score 10", "dumpling": "1, 3, 6, 10, 15",
    "maki": "most rolls 6, next 3", "nigiri": "egg 1, salmon 2, squid 3", "pudding": "at the end: +6 / -6",
    "wasabi": "next nigiri x3", "chopsticks": "later, take two",
}


def _pt(x: float, y: float) -> tuple[int, int]:
    return int(round(x)), int(round(y))


# --------------------------------------------------------------------------------------------
# Paper and washes (float32 BGR images over the design canvas).


def _noise(rng: np.random.Generator, sigma: float) -> np.ndarray:
    """(H, W) float32 smooth noise of unit standard deviation, features about ``sigma`` px."""
    f = max(1, int(sigma // 2))  # coarse features are drawn small and scaled up (the same look, faster)
    h, w = -(-DH // f) + 2, -(-DW // f) + 2
    n = cv2.GaussianBlur(rng.standard_normal((h, w)).astype(np.float32), (0, 0), sigma / f)
    if f > 1:
        n = cv2.resize(n, (w * f, h * f), interpolation=cv2.INTER_CUBIC)[f : f + DH, f : f + DW]
    else:
        n = n[1 : 1 + DH, 1 : 1 + DW]
    return n / (float(n.std()) + 1e-6)


@lru_cache(maxsize=None)
def _paper_grain() -> np.ndarray:
    """(H, W) float32: the card stock's cold-press texture (shared by every face, read-only)."""
    rng = _rng("watercolour:paper")
    g = 0.6 * _noise(rng, 1.6) + 0.4 * _noise(rng, 5.0)
    g.setflags(write=False)
    return g


def _paper() -> np.ndarray:
    """(H, W, 3) float32 white card stock with its grain."""
    return np.asarray(_PAPER, np.float32) * (1 + 0.012 * _paper_grain())[..., None]


def _mask(draw: Callable[[np.ndarray], None]) -> np.ndarray:
    """(H, W) float32 0..1: a shape drawn with ``draw`` (255 on a uint8 canvas)."""
    m = np.zeros((DH, DW), np.uint8)
    draw(m)
    return m.astype(np.float32) / 255.0


def _wash(img: np.ndarray, shape: np.ndarray, pigment: Colour, density: float, key: str, rag: float = 6.0,
          rim: float = 0.6, bloom: float = 0.25, keep: np.ndarray | None = None) -> None:
    """Glaze a transparent wash of ``pigment`` over float ``img`` inside ``shape`` (0..1), in place.

    The shape's edge is roughened by smooth noise (``rag`` px), the density varies in blotches
    (``bloom``), pools into a darker rim where the wash dried (``rim``) and granulates in the
    paper's grain; the paper shows through as a multiplicative glaze. ``keep`` (0..1) masks the
    result (the white border). Seeded by ``key``.
    """
    rng = _rng("watercolour:" + key)
    soft = cv2.GaussianBlur(shape, (0, 0), max(rag, 1.0))
    near = np.clip(soft * 8.0, 0, 1)  # the roughening stays at the shape's edge: no stray specks
    edge = soft - 0.5 + near * ((rag / 40.0) * _noise(rng, 7.0) + (rag / 90.0) * _noise(rng, 2.0))
    m = cv2.GaussianBlur(np.clip(edge * 6.0, 0, 1), (0, 0), 0.9)
    if keep is not None:
        m *= keep
    inner = cv2.GaussianBlur(m, (0, 0), 7.0)
    d = density * (1 + bloom * _noise(rng, 22.0)) * (1 + rim * np.clip(m - inner, 0, 1) * 2.2)
    d *= 1 + 0.18 * _paper_grain()
    d = np.clip(d * m, 0, 1)[..., None]
    tint = np.asarray(pigment, np.float32) / 255.0
    img *= 1 - d * (1 - tint)


def _pencil(img: np.ndarray, draw: Callable[[np.ndarray], None], strength: float = 0.55) -> None:
    """Soft pencil lines drawn with ``draw`` (255 on a uint8 mask), blended at ``strength``."""
    a = _mask(draw)[..., None] * strength
    img *= 1 - a * (1 - np.asarray(_PENCIL, np.float32) / 255.0)


def _text(img: np.ndarray, text: str, org: tuple[int, int], scale: float, font: int, thick: int = 1) -> None:
    _pencil(img, lambda m: cv2.putText(m, text, org, font, scale, 255, thick, _AA), 0.8)


def _inside_border(shape: np.ndarray, bleed: str = "") -> np.ndarray:
    """``shape`` kept off the white border, except on the sides in ``bleed`` ("l", "r", "t", "b")."""
    out = shape.copy()
    b = BORDER
    if "l" not in bleed:
        out[:, :b] = 0
    if "r" not in bleed:
        out[:, DW - b:] = 0
    if "t" not in bleed:
        out[:b] = 0
    if "b" not in bleed:
        out[DH - b:] = 0
    return out


def _background(img: np.ndarray, fam: str, pigment: Colour, density: float, box: tuple[int, int, int, int],
                bleed: str = "") -> None:
    """A loose background wash over ``box`` (x0, y0, x1, y1), ragged, with white bays; it may run
    off the card on the ``bleed`` sides (the border stays white elsewhere)."""
    x0, y0, x1, y1 = box
    shape = _mask(lambda m: cv2.rectangle(m, (x0, y0), (x1, y1), 255, -1))
    # White bays: the wash was laid loosely, so the paper shows through in a few ragged holes.
    rng = _rng(f"watercolour:{fam}:bays")
    bays = _noise(rng, 30.0) > 1.25
    shape[bays] = 0
    keep = cv2.GaussianBlur(_inside_border(np.ones((DH, DW), np.float32), bleed), (0, 0), 1.0)
    _wash(img, shape, pigment, density, fam + ":bg", rag=14.0, rim=0.35, bloom=0.4, keep=keep)


def _shadow(img: np.ndarray, fam: str, centre: tuple[int, int], axes: tuple[int, int]) -> None:
    """A soft blue-grey cast shadow, offset down and to the right of the subject (light from top-left)."""
    _wash(img, _mask(lambda m: cv2.ellipse(m, centre, axes, 0, 0, 360, 255, -1)), _SLATE, 0.22,
          fam + ":shadow", rag=9.0, rim=0.2)


# --------------------------------------------------------------------------------------------
# The foods.


def _tempura(img: np.ndarray) -> None:
    """A battered shrimp curled into a "C": an ochre wash with bumpy batter, a coral tail fan."""
    _background(img, "tempura", _PEACH, 0.16, (40, 110, 400, DH + 40), bleed="b")
    _shadow(img, "tempura", (245, 470), (150, 26))
    c, ax = (210, 320), (118, 112)
    body = _mask(lambda m: cv2.ellipse(m, c, ax, 0, 70, 300, 255, 72))
    for a in range(75, 300, 24):  # batter bumps along the outside of the curl
        t = math.radians(a)
        p = _pt(c[0] + (ax[0] + 30) * math.cos(t), c[1] + (ax[1] + 30) * math.sin(t))
        cv2.circle(body, p, 16, 1.0, -1)
    _wash(img, body, _OCHRE, 0.5, "tempura:body", rag=5.0)
    tail = np.array([[300, 215], [385, 150], [372, 205], [405, 240], [305, 255]], np.int32)
    _wash(img, _mask(lambda m: cv2.fillPoly(m, [tail], 255)), _CORAL, 0.45, "tempura:tail", rag=3.0)

    def lines(m: np.ndarray) -> None:
        cv2.ellipse(m, c, (ax[0] + 38, ax[1] + 38), 0, 75, 295, 255, 2, _AA)
        cv2.ellipse(m, c, (ax[0] - 36, ax[1] - 36), 0, 80, 290, 255, 2, _AA)
        cv2.polylines(m, [tail], True, 255, 2, _AA)

    _pencil(img, lines)


def _sashimi(img: np.ndarray) -> None:
    """Three slices of fish with reserved white fat lines, on a pale blue-grey oval plate."""
    _shadow(img, "sashimi", (240, 470), (175, 30))
    plate = _mask(lambda m: cv2.ellipse(m, (220, 360), (178, 112), 0, 0, 360, 255, -1))
    _wash(img, plate, _SLATE, 0.3, "sashimi:plate", rag=4.0, rim=0.9)
    slices = np.zeros((DH, DW), np.float32)
    boxes = []
    for cx, ang, cy in ((140, -14, 355), (220, 0, 335), (300, 14, 355)):
        box = cv2.boxPoints(((cx, cy), (70, 180), ang)).astype(np.int32)
        boxes.append(box)
        cv2.fillPoly(slices, [box], 1.0)
    for k in range(-5, 7):  # the fat: diagonal white lines left unpainted
        y = 250 + 30 * k
        cv2.line(slices, (40, y + 60), (400, y - 30), 0.0, 7)
    _wash(img, slices, _SALMON, 0.55, "sashimi:fish", rag=3.0)
    _pencil(img, lambda m: cv2.polylines(m, boxes, True, 255, 2, _AA))


def _dumpling(img: np.ndarray) -> None:
    """A gyoza: a beige half-moon with a toasted base, pencil pleats and a curl of steam."""
    _background(img, "dumpling", _LAVENDER, 0.18, (45, 120, DW + 40, 560), bleed="r")
    _shadow(img, "dumpling", (250, 450), (170, 26))
    body = _mask(lambda m: (cv2.ellipse(m, (220, 420), (168, 150), 0, 180, 360, 255, -1),
                            cv2.ellipse(m, (220, 420), (168, 30), 0, 0, 180, 255, -1)))
    _wash(img, body, _BEIGE, 0.45, "dumpling:body", rag=4.0)
    base = _mask(lambda m: cv2.ellipse(m, (220, 425), (160, 26), 0, 0, 180, 255, -1))
    _wash(img, base, _TOAST, 0.4, "dumpling:base", rag=3.0)

    def lines(m: np.ndarray) -> None:
        cv2.ellipse(m, (220, 420), (168, 150), 0, 180, 360, 255, 2, _AA)
        for dx in (-110, -55, 0, 55, 110):
            cv2.line(m, (220 + dx // 2, 280), (220 + dx, 345), 255, 2, _AA)
        pts = np.array([[300 + 14 * math.sin(y / 12.0), y] for y in range(150, 240, 3)], np.int32)
        cv2.polylines(m, [pts], False, 255, 2, _AA)

    _pencil(img, lines)


def _maki(img: np.ndarray) -> None:
    """One maki roll standing: a sage nori wash around a reserved rice top with a pink filling."""
    _background(img, "maki", _MINT, 0.2, (-40, 130, 390, 520), bleed="l")
    _shadow(img, "maki", (245, 445), (140, 28))
    cx, top, bot, rx, ry = 220, 240, 420, 120, 44
    side = _mask(lambda m: (cv2.rectangle(m, (cx - rx, top), (cx + rx, bot), 255, -1),
                            cv2.ellipse(m, (cx, bot), (rx, ry), 0, 0, 180, 255, -1)))
    cv2.ellipse(side, (cx, top), (rx, ry), 0, 0, 360, 0.0, -1)
    _wash(img, side, _NORI, 0.42, "maki:nori", rag=3.0, rim=0.8)
    rim = _mask(lambda m: cv2.ellipse(m, (cx, top), (rx, ry), 0, 0, 360, 255, 14))
    _wash(img, rim, _NORI, 0.45, "maki:rim", rag=1.5)
    _wash(img, _mask(lambda m: cv2.ellipse(m, (cx - 8, top), (34, 14), 0, 0, 360, 255, -1)), _CORAL, 0.6,
          "maki:filling", rag=2.0)
    _wash(img, _mask(lambda m: cv2.ellipse(m, (cx + 38, top + 2), (15, 8), 0, 0, 360, 255, -1)), _LEAF, 0.6,
          "maki:cucumber", rag=1.5)
    _pencil(img, lambda m: (cv2.ellipse(m, (cx, top), (rx - 20, ry - 10), 0, 0, 360, 255, 2, _AA),
                            cv2.line(m, (cx - rx, top), (cx - rx, bot), 255, 2, _AA),
                            cv2.line(m, (cx + rx, top), (cx + rx, bot), 255, 2, _AA)))


def _maki_count(img: np.ndarray, n: int) -> None:
    """The ONLY difference between maki_1/2/3: 1–3 small roll marks (4 mm) in a row at the bottom centre."""
    for k in range(n):
        c = _pt(220 + 46 * (k - (n - 1) / 2), 540)
        _wash(img, _mask(lambda m: cv2.circle(m, c, 20, 255, 7)), _NORI, 0.7, f"maki:count{k}", rag=1.0)
        _wash(img, _mask(lambda m: cv2.circle(m, c, 7, 255, -1)), _CORAL, 0.65, f"maki:dot{k}", rag=1.0)


def _nigiri(img: np.ndarray, topping: str) -> None:
    """A reserved-white rice mound and one topping; only the topping wash's colour depends on the type."""
    _background(img, "nigiri", _SKY, 0.18, (50, 150, 390, 540))
    _shadow(img, "nigiri", (245, 470), (160, 26))
    rice = _mask(lambda m: cv2.ellipse(m, (220, 400), (150, 70), 0, 0, 360, 255, -1))
    _wash(img, rice * (_YY > 400), _SLATE, 0.18, "nigiri:rice", rag=3.0)  # paper-white rice, grey below
    top = _mask(lambda m: cv2.ellipse(m, (220, 322), (165, 58), -4, 0, 360, 255, -1))
    _wash(img, top, _TOPPING[topping], 0.55, "nigiri:topping", rag=3.0, rim=0.8)
    _pencil(img, lambda m: (cv2.ellipse(m, (220, 400), (150, 70), 0, 0, 180, 255, 2, _AA),
                            cv2.ellipse(m, (220, 322), (165, 58), -4, 0, 360, 255, 2, _AA),
                            [cv2.ellipse(m, (220 + dx, 420 + dy), (9, 4), dx // 3, 0, 360, 255, 1, _AA)
                             for dx, dy in ((-90, 10), (-30, 30), (40, 20), (100, 0))]))


def _pudding(img: np.ndarray) -> None:
    """A custard pudding on a plate: pale yellow body, a caramel top with drips and a cherry."""
    _background(img, "pudding", _ROSE, 0.17, (50, 140, 400, DH + 40), bleed="b")
    plate = _mask(lambda m: cv2.ellipse(m, (220, 458), (180, 36), 0, 0, 360, 255, -1))
    _wash(img, plate, _SLATE, 0.28, "pudding:plate", rag=3.0, rim=0.9)
    body = np.array([[105, 448], [335, 448], [295, 245], [145, 245]], np.int32)
    _wash(img, _mask(lambda m: cv2.fillPoly(m, [body], 255)), _YOLK, 0.5, "pudding:body", rag=3.0)
    drips = np.array([[145, 245], [295, 245], [285, 300], [262, 270], [240, 310], [210, 272], [180, 298], [158, 268]],
                     np.int32)
    _wash(img, _mask(lambda m: cv2.fillPoly(m, [drips], 255)), _CARAMEL, 0.55, "pudding:caramel", rag=2.5)
    _wash(img, _mask(lambda m: cv2.circle(m, (228, 218), 22, 255, -1)), _CHERRY, 0.6, "pudding:cherry", rag=1.5)
    _pencil(img, lambda m: (cv2.polylines(m, [body], True, 255, 2, _AA),
                            cv2.line(m, (236, 198), (258, 155), 255, 2, _AA)))


def _wasabi(img: np.ndarray) -> None:
    """A lumpy pale-green mound in a small blue-grey dish, on bare paper."""
    _shadow(img, "wasabi", (245, 475), (170, 26))
    dish = _mask(lambda m: cv2.ellipse(m, (220, 448), (172, 46), 0, 0, 360, 255, -1))
    _wash(img, dish, _SLATE, 0.3, "wasabi:dish", rag=3.0, rim=0.9)
    mound = _mask(lambda m: [cv2.circle(m, c, r, 255, -1) for c, r in
                             (((220, 360), 100), ((142, 402), 60), ((298, 402), 60), ((220, 272), 64),
                              ((232, 215), 32))])
    mound[445:] = 0
    _wash(img, mound, _LEAF, 0.5, "wasabi:mound", rag=4.0, rim=1.0)
    hi = _mask(lambda m: cv2.ellipse(m, (185, 310), (30, 14), -40, 0, 360, 255, -1))
    img[:] = img * (1 - 0.6 * hi[..., None]) + _paper() * 0.6 * hi[..., None]  # a lifted-out highlight


def _chopsticks(img: np.ndarray) -> None:
    """Two long chopsticks leaning together through a pale red paper sleeve."""
    _background(img, "chopsticks", _BEIGE, 0.16, (60, 100, DW + 40, DH + 40), bleed="rb")
    sticks = np.zeros((DH, DW), np.float32)
    polys = []
    for (x0, y0), (x1, y1) in (((130, 520), (190, 150)), ((310, 520), (240, 150))):
        d = np.array([x1 - x0, y1 - y0], np.float32)
        n = np.array([-d[1], d[0]]) / np.linalg.norm(d)
        w0, w1 = 15, 7
        poly = np.array([[x0 + n[0] * w0, y0 + n[1] * w0], [x1 + n[0] * w1, y1 + n[1] * w1],
                         [x1 - n[0] * w1, y1 - n[1] * w1], [x0 - n[0] * w0, y0 - n[1] * w0]], np.int32)
        polys.append(poly)
        cv2.fillPoly(sticks, [poly], 1.0)
    _wash(img, sticks, _WOOD, 0.55, "chopsticks:wood", rag=2.0)
    band = np.array([[108, 385], [332, 385], [322, 452], [118, 452]], np.int32)
    sleeve = _mask(lambda m: cv2.fillPoly(m, [band], 255))
    cv2.circle(sleeve, (220, 418), 14, 0.0, -1)  # a reserved white dot on the sleeve
    _wash(img, sleeve, _RED, 0.45, "chopsticks:sleeve", rag=2.5)
    _pencil(img, lambda m: cv2.polylines(m, polys + [band], True, 255, 2, _AA))


_ART = {"tempura": _tempura, "sashimi": _sashimi, "dumpling": _dumpling, "maki": _maki, "pudding": _pudding,
        "wasabi": _wasabi, "chopsticks": _chopsticks}


# --------------------------------------------------------------------------------------------
# Faces.


def _finish(img: np.ndarray) -> np.ndarray:
    """Print look: a slight softening, then uint8."""
    return np.clip(cv2.GaussianBlur(img, (0, 0), 0.6) + 0.5, 0, 255).astype(np.uint8)


def _front(label: str) -> np.ndarray:
    fam = _family(label)
    img = _paper()
    if fam == "nigiri":
        _nigiri(img, label.split("_")[0])
    else:
        _ART[fam](img)
    if fam == "maki":
        _maki_count(img, int(label[-1]))
    title = _TITLE.get(label, _TITLE.get(fam, ""))
    _text(img, title, (38, 62), 0.75, cv2.FONT_HERSHEY_SCRIPT_SIMPLEX)
    _text(img, _RULE[fam], (38, DH - 40), 0.42, cv2.FONT_HERSHEY_SIMPLEX)
    return _finish(img)


def _back() -> np.ndarray:
    """An indigo wash with a lattice of reserved white rings and a rosette, inside the white border,
    made exactly point-symmetric by averaging with its 180° turn (a face-down card has no orientation)."""
    img = _paper()
    field = _mask(lambda m: cv2.rectangle(m, (BORDER + 6, BORDER + 6), (DW - 1 - BORDER - 6, DH - 1 - BORDER - 6),
                                          255, -1))
    cx, cy = (DW - 1) / 2, (DH - 1) / 2
    for row, y in enumerate(np.arange(cy - 6 * 52, cy + 6 * 52 + 1, 52)):
        for x in np.arange(cx - 5 * 60 + 30 * (row % 2), cx + 5 * 60 + 1, 60):
            cv2.circle(field, _pt(x, y), 16, 0.0, 4)
    cv2.circle(field, _pt(cx, cy), 120, 0.0, -1)
    _wash(img, field, _INDIGO, 0.5, "back:field", rag=3.0, rim=0.5, keep=_inside_border(np.ones((DH, DW), np.float32)))
    rosette = np.zeros((DH, DW), np.float32)
    for a in range(0, 360, 30):
        t = math.radians(a)
        cv2.ellipse(rosette, _pt(cx + 55 * math.cos(t), cy + 55 * math.sin(t)), (45, 16), a, 0, 360, 1.0, -1)
    _wash(img, rosette, _INDIGO, 0.4, "back:rosette", rag=2.0)
    img = _finish(img)
    return point_symmetric(img)


@lru_cache(maxsize=None)
def design(label: str) -> np.ndarray:
    """The watercolour face (or back) of ``label``: (630, 440, 3) uint8 BGR, cached and read-only
    (:func:`companion.sim.face_design.finished`; ValueError for an unknown label)."""
    return finished(label, _front, _back)
