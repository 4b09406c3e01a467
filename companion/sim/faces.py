"""Our own drawn Sushi Go! card faces (and a back) for the simulator and for test enrolment.

These are NOT copies of the publisher's art: each face is a flat colour scheme, a dark title
band at the top (so a card's orientation is visible even when the text is unreadable), one
large icon, and a short caption. They are designed for a camera and a classifier rather than
for beauty:

* every type has its own background hue/brightness, so most types separate on colour alone;
* the three maki share one red background and caption and differ ONLY in how many big rolls
  are drawn (1, 2, 3), like the real cards — a colour histogram is not enough to tell them apart,
  a classifier has to look at the shapes;
* the three nigiri share one yellow background and differ in the topping (and title).

Faces are drawn once at a fixed 440 × 630 px design size (2× the default) with anti-aliased
primitives and then resized, so every size looks the same.

That is the ``"flat"`` style. A second style, ``"illustrated"`` (``companion.sim.faces_illustrated``),
looks like a printed commercial deck instead (full-bleed gradients and textures, cartoon
characters, small text, pale edges, small in-type differences), so a card reader can be tuned on
one style and measured on the other. A third, ``"noir"`` (``companion.sim.faces_noir``: near-black
full-bleed faces with thin gold line-art), was drawn after both had been looked at while tuning, as a
held-out "any deck" measure; it has since been tuned on too. A fourth, ``"watercolour"``
(``companion.sim.faces_watercolour``: pale ragged washes and thin pencil lines on white card stock
with a white border, tiny text), was drawn after all three had been tuned on, as the next held-out
measure. A fifth, ``"pattern"`` (``companion.sim.faces_pattern``: kawaii food with thick dark outlines on
full-bleed repeating textile patterns, a white border, small type), was drawn after all four had been
tuned on. A sixth, ``"airbrush"`` (``companion.sim.faces_airbrush``: soft-shaded muted food on one pale
full-bleed background shared by every type, no border, a white text plate on the bottom edge), was
drawn after all five had been tuned on, to be measured once and never tuned on. ``STYLES`` lists all
six; every function here takes ``style``.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from companion.rules.sushi_go.cards import VISION_LABELS
from companion.sim import faces_airbrush, faces_illustrated, faces_noir, faces_pattern, faces_watercolour

#: The simulated deck styles: our camera-friendly "flat" faces, printed-card-like "illustrated" ones,
#: dark line-art "noir" ones and pale "watercolour" ones on white stock (drawn after the reader had
#: been tuned on the other three: a held-out "any deck" measure) and kawaii "pattern" ones on textile
#: patterns (drawn after all four had been tuned on: the next held-out measure), and soft "airbrush" ones
#: on one pale background shared by every type (drawn after all five had been tuned on: measured once).
STYLES: tuple[str, ...] = ("flat", "illustrated", "noir", "watercolour", "pattern", "airbrush")

def check_style(style: str) -> None:
    """Raise ValueError naming the valid styles unless ``style`` is one of ``STYLES``."""
    if style not in STYLES:
        raise ValueError(f"unknown card style {style!r}; valid styles are: {', '.join(STYLES)}")


#: Card aspect (height / width) of a 44 × 63 mm card.
CARD_ASPECT = 63.0 / 44.0

_DW, _DH = 440, 630  # design canvas (px); all coordinates below are in this space
_BAND_H = 100  # title band height (px, design space)
_AA = cv2.LINE_AA

#: Background colour (BGR) per label.
_BG: dict[str, tuple[int, int, int]] = {
    "tempura": (150, 60, 135),  # purple
    "sashimi": (80, 185, 95),  # green
    "dumpling": (225, 160, 70),  # sky blue
    "maki_1": (45, 40, 205),  # red
    "maki_2": (45, 40, 205),
    "maki_3": (45, 40, 205),
    "egg_nigiri": (40, 195, 240),  # yellow
    "salmon_nigiri": (40, 195, 240),
    "squid_nigiri": (40, 195, 240),
    "pudding": (190, 150, 245),  # pink
    "wasabi": (50, 75, 45),  # dark green-grey
    "chopsticks": (160, 150, 20),  # teal
    "back": (105, 45, 25),  # navy
}

_TITLE = {
    "tempura": "TEMPURA",
    "sashimi": "SASHIMI",
    "dumpling": "DUMPLING",
    "maki_1": "MAKI ROLL",
    "maki_2": "MAKI ROLL",
    "maki_3": "MAKI ROLL",
    "egg_nigiri": "EGG NIGIRI",
    "salmon_nigiri": "SALMON NIGIRI",
    "squid_nigiri": "SQUID NIGIRI",
    "pudding": "PUDDING",
    "wasabi": "WASABI",
    "chopsticks": "CHOPSTICKS",
}

# Short rule reminders in our own words; identical for the three maki on purpose.
_CAPTION = {
    "tempura": "2 = 5 pts",
    "sashimi": "3 = 10 pts",
    "dumpling": "1 3 6 10 15",
    "maki_1": "most 6 / 3",
    "maki_2": "most 6 / 3",
    "maki_3": "most 6 / 3",
    "egg_nigiri": "1 pt",
    "salmon_nigiri": "2 pts",
    "squid_nigiri": "3 pts",
    "pudding": "end +6 / -6",
    "wasabi": "next nigiri x3",
    "chopsticks": "swap for 2",
}

_WHITE = (250, 250, 250)
_BLACK = (25, 25, 25)
_RICE = (240, 245, 248)


def _darker(bgr: tuple[int, int, int], f: float) -> tuple[int, int, int]:
    return tuple(int(c * f) for c in bgr)  # type: ignore[return-value]


def _fit_text(img: np.ndarray, text: str, center: tuple[int, int], max_w: int, max_h: int,
              colour: tuple[int, int, int], font: int = cv2.FONT_HERSHEY_DUPLEX) -> None:
    """Draw ``text`` centred at ``center`` at the largest scale fitting max_w × max_h px."""
    (w1, h1), _ = cv2.getTextSize(text, font, 1.0, 2)
    scale = min(max_w / w1, max_h / h1)
    thick = max(2, int(round(scale * 2.2)))
    (w, h), _ = cv2.getTextSize(text, font, scale, thick)
    org = (int(center[0] - w / 2), int(center[1] + h / 2))
    cv2.putText(img, text, org, font, scale, colour, thick, _AA)


def _maki_roll(img: np.ndarray, c: tuple[int, int], r: int) -> None:
    cv2.circle(img, c, r, _BLACK, -1, _AA)  # nori
    cv2.circle(img, c, int(r * 0.78), _RICE, -1, _AA)  # rice
    cv2.circle(img, c, int(r * 0.36), (60, 110, 245), -1, _AA)  # salmon filling
    cv2.circle(img, (c[0] + int(r * 0.12), c[1] - int(r * 0.1)), int(r * 0.13), (60, 170, 70), -1, _AA)


def _rice_block(img: np.ndarray) -> None:
    cv2.ellipse(img, (220, 440), (160, 70), 0, 0, 360, (190, 200, 205), -1, _AA)
    cv2.ellipse(img, (220, 430), (155, 65), 0, 0, 360, _RICE, -1, _AA)


def _icon(img: np.ndarray, label: str) -> None:
    if label == "tempura":
        # A battered shrimp: thick golden arc, batter bumps, red tail fan.
        cv2.ellipse(img, (220, 330), (125, 120), 0, 160, 400, (40, 150, 235), 85, _AA)
        for a in range(165, 400, 22):
            t = np.deg2rad(a)
            p = (int(220 + 125 * np.cos(t)), int(330 + 120 * np.sin(t)))
            cv2.circle(img, p, 20, (110, 215, 250), -1, _AA)
        tail = np.array([[330, 370], [420, 330], [400, 430], [430, 480]], np.int32)
        cv2.fillPoly(img, [tail], (40, 40, 220), _AA)
    elif label == "sashimi":
        cv2.ellipse(img, (220, 340), (185, 150), 0, 0, 360, _WHITE, -1, _AA)  # plate
        for i, cx in enumerate((135, 220, 305)):
            box = cv2.boxPoints(((cx, 340 - 30 * (i == 1)), (70, 200), 12))
            cv2.fillPoly(img, [box.astype(np.int32)], (110, 130, 250), _AA)
            for k in (-50, 0, 50):
                a = (cx - 30, 340 + k + 8)
                b = (cx + 30, 340 + k - 8)
                cv2.line(img, a, b, _WHITE, 9, _AA)
    elif label == "dumpling":
        cv2.ellipse(img, (220, 440), (175, 45), 0, 0, 360, _darker(_BG["dumpling"], 0.6), -1, _AA)
        cv2.ellipse(img, (220, 420), (165, 175), 0, 180, 360, (195, 225, 245), -1, _AA)
        cv2.rectangle(img, (55, 405), (385, 440), (195, 225, 245), -1, _AA)
        for dx in (-100, -50, 0, 50, 100):
            cv2.ellipse(img, (220 + dx, 260), (18, 55), 0, 20, 160, (90, 130, 170), 8, _AA)
        cv2.ellipse(img, (220, 250), (150, 30), 0, 0, 180, (90, 130, 170), 8, _AA)
    elif label.startswith("maki_"):
        n = int(label[-1])
        r = 95
        centres = {1: [(220, 330)], 2: [(115, 330), (325, 330)], 3: [(115, 255), (325, 255), (220, 440)]}[n]
        for c in centres:
            _maki_roll(img, c, r)
    elif label == "egg_nigiri":
        _rice_block(img)
        cv2.rectangle(img, (80, 255), (360, 395), (10, 120, 185), -1, _AA)
        cv2.rectangle(img, (88, 262), (352, 388), (70, 235, 255), -1, _AA)
        cv2.rectangle(img, (195, 245), (245, 470), _BLACK, -1, _AA)  # nori strap
    elif label == "salmon_nigiri":
        _rice_block(img)
        cv2.ellipse(img, (220, 340), (180, 85), -8, 0, 360, (40, 90, 235), -1, _AA)
        for dx in (-110, -50, 10, 70, 130):
            cv2.line(img, (220 + dx - 25, 410), (220 + dx + 25, 275), _WHITE, 13, _AA)
        cv2.ellipse(img, (220, 340), (180, 85), -8, 0, 360, (20, 60, 170), 5, _AA)
    elif label == "squid_nigiri":
        _rice_block(img)
        for k, dx in enumerate((-120, -80, -40, 0, 40)):
            cv2.ellipse(img, (220 + dx, 420), (22, 110), 8 * (k - 2), 0, 180, (150, 150, 200), 16, _AA)
        cv2.ellipse(img, (220, 320), (175, 75), 4, 0, 360, (225, 225, 232), -1, _AA)
        cv2.ellipse(img, (220, 320), (175, 75), 4, 0, 360, (120, 120, 130), 6, _AA)
        for dx in (-90, -30, 30, 90):
            cv2.circle(img, (220 + dx, 320), 9, (150, 150, 200), -1, _AA)
    elif label == "pudding":
        cv2.ellipse(img, (220, 480), (190, 45), 0, 0, 360, _WHITE, -1, _AA)  # plate
        body = np.array([[110, 470], [330, 470], [290, 250], [150, 250]], np.int32)
        cv2.fillPoly(img, [body], (110, 215, 250), _AA)
        cv2.ellipse(img, (220, 250), (72, 30), 0, 0, 360, (25, 65, 125), -1, _AA)  # caramel
        for dx, ln in ((-45, 60), (0, 85), (40, 50)):
            cv2.line(img, (220 + dx, 255), (220 + dx, 255 + ln), (25, 65, 125), 18, _AA)
        cv2.circle(img, (220, 200), 28, (40, 30, 200), -1, _AA)  # cherry
    elif label == "wasabi":
        cv2.ellipse(img, (220, 440), (170, 55), 0, 0, 360, _WHITE, -1, _AA)  # dish
        for c, r in (((220, 320), 120), ((145, 390), 75), ((295, 390), 75), ((220, 220), 70)):
            cv2.circle(img, c, r, (60, 215, 110), -1, _AA)
        cv2.ellipse(img, (220, 320), (70, 60), 0, 200, 520, (30, 140, 60), 12, _AA)
    elif label == "chopsticks":
        for off in (-45, 45):
            cv2.line(img, (95 + off, 540), (330 + off, 150), (30, 70, 130), 34, _AA)
            cv2.line(img, (95 + off, 540), (330 + off, 150), (60, 120, 190), 20, _AA)
        cv2.rectangle(img, (150, 420), (290, 460), (40, 40, 200), -1, _AA)  # paper sleeve
    else:  # pragma: no cover - labels are validated before this point
        raise AssertionError(label)


def _back() -> np.ndarray:
    """A point-symmetric back: navy with a lattice of rings and a central emblem."""
    img = np.full((_DH, _DW, 3), _BG["back"], np.uint8)
    for y in range(35, _DH, 70):
        for x in range(35 + 35 * ((y // 70) % 2), _DW, 70):
            cv2.circle(img, (x, y), 24, (200, 170, 120), 5, _AA)
    cv2.circle(img, (220, 315), 150, _WHITE, -1, _AA)
    cv2.circle(img, (220, 315), 150, (40, 110, 235), 18, _AA)
    cv2.circle(img, (220, 315), 95, (40, 40, 205), -1, _AA)
    cv2.circle(img, (220, 315), 45, _WHITE, -1, _AA)
    cv2.rectangle(img, (0, 0), (_DW - 1, _DH - 1), (40, 110, 235), 14, _AA)
    return img


def _front(label: str) -> np.ndarray:
    bg = _BG[label]
    img = np.full((_DH, _DW, 3), bg, np.uint8)
    band = _darker(bg, 0.35)
    cv2.rectangle(img, (0, 0), (_DW, _BAND_H), band, -1)
    # A light corner badge at the top-left makes the face chiral, so 180° turns are visible.
    cv2.circle(img, (48, _BAND_H // 2), 30, _WHITE, -1, _AA)
    cv2.circle(img, (48, _BAND_H // 2), 15, bg, -1, _AA)
    _fit_text(img, _TITLE[label], (262, _BAND_H // 2), 320, 48, _WHITE)
    _icon(img, label)
    cv2.rectangle(img, (30, 560), (_DW - 30, 610), _darker(bg, 0.55), -1, _AA)
    _fit_text(img, _CAPTION[label], (220, 585), 340, 32, _WHITE, cv2.FONT_HERSHEY_SIMPLEX)
    # A thin dark edge gives a camera a crisp card outline on a light mat.
    cv2.rectangle(img, (0, 0), (_DW - 1, _DH - 1), _darker(bg, 0.3), 6)
    return img


@lru_cache(maxsize=None)
def _design(label: str) -> np.ndarray:
    img = _back() if label == "back" else _front(label)
    img.setflags(write=False)
    return img


def card_height_px(width_px: int) -> int:
    """Card height (px) for a card ``width_px`` wide, from the 44 × 63 mm aspect."""
    return int(round(width_px * CARD_ASPECT))


def draw_card_face(label: str, width_px: int = 220, style: str = "flat") -> np.ndarray:
    """Draw one card face (or the back), upright portrait.

    Args:
        label: one of ``VISION_LABELS`` (the 12 card names or ``"back"``).
        width_px: card width in px (≥ 8); the height is ``round(width_px * 63 / 44)``.
        style: one of ``STYLES``: ``"flat"`` (our camera-friendly faces), ``"illustrated"``
            (printed-card-like faces, see ``companion.sim.faces_illustrated``), ``"noir"`` (dark
            faces with thin gold line-art, see ``companion.sim.faces_noir``) or ``"watercolour"``
            (pale washes on white stock with a white border, see ``companion.sim.faces_watercolour``) or
            ``"pattern"`` (kawaii food on textile patterns, see ``companion.sim.faces_pattern``) or
            ``"airbrush"`` (soft-shaded food on one pale background, see ``companion.sim.faces_airbrush``).

    Returns:
        (H, W, 3) uint8 BGR, a fresh writable array; the face's top (flat: the title band;
        illustrated: the corner mark side; noir, watercolour and pattern: the name; airbrush: the side away
        from the text plate) is row 0.

    Raises:
        ValueError: unknown label (the message lists the valid labels), unknown style (the
            message lists the valid styles) or width_px < 8.
    """
    if label not in _BG:
        raise ValueError(f"unknown card label {label!r}; valid labels are: {', '.join(VISION_LABELS)}")
    check_style(style)
    if width_px < 8:
        raise ValueError(f"width_px must be at least 8, not {width_px}")
    h = card_height_px(width_px)
    src = {"flat": _design, "illustrated": faces_illustrated.design, "noir": faces_noir.design,
           "watercolour": faces_watercolour.design, "pattern": faces_pattern.design,
           "airbrush": faces_airbrush.design}[style](label)
    interp = cv2.INTER_AREA if width_px <= _DW else cv2.INTER_CUBIC
    return cv2.resize(src, (width_px, h), interpolation=interp)


def _variant(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A slightly different "scan": small tilt, brightness/contrast change and noise."""
    h, w = img.shape[:2]
    m = cv2.getRotationMatrix2D((w / 2, h / 2), float(rng.uniform(-2, 2)), float(rng.uniform(0.97, 1.0)))
    out = cv2.warpAffine(img, m, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    out = out.astype(np.float32) * rng.uniform(0.85, 1.1) + rng.uniform(-12, 12)
    out += rng.normal(0, 3, out.shape)
    return np.clip(out, 0, 255).astype(np.uint8)


def write_deck_folder(
    out_dir: Path | str, width_px: int = 220, variants: int = 1, seed: int = 0, style: str = "flat"
) -> list[Path]:
    """Write flat "scans" of every label, as a user would enrol a deck.

    Writes ``out_dir/<label>/scan_<i>.png`` for every label in ``VISION_LABELS`` and
    ``i in range(variants)``. ``scan_0`` is the clean face; later variants add a small tilt,
    brightness change and noise (deterministic for ``seed``). ``style`` is the deck style
    (``STYLES``), as for ``draw_card_face``.

    Returns:
        The written paths, label-major.

    Raises:
        ValueError: variants < 1, or an unknown style.
        OSError: the folder cannot be created or a file cannot be written.
    """
    if variants < 1:
        raise ValueError(f"variants must be at least 1, not {variants}")
    check_style(style)
    out_dir = Path(out_dir)
    rng = np.random.default_rng(seed)
    written: list[Path] = []
    for label in VISION_LABELS:
        d = out_dir / label
        d.mkdir(parents=True, exist_ok=True)
        face = draw_card_face(label, width_px, style)
        for i in range(variants):
            img = face if i == 0 else _variant(face, rng)
            path = d / f"scan_{i}.png"
            if not cv2.imwrite(str(path), img):
                raise OSError(f"could not write {path}")
            written.append(path)
    return written
