"""A deck whose cards differ only in the count, colour, fill and shape of a symbol, photographed (issue #6).

    .venv/bin/python bench/symbol_cards.py [--boards 0-19] [--per-card 5] [--show] [--deck DECK.npz] [--style print2]

Issue #6 reports real photos of such a deck (81 cards: 1–3 symbols × 3 colours × 3 fills × 3 shapes) on a
dark cloth, each card enrolled from 5 photo crops: 71 % named right, and wrong names (a striped fill read as
solid, one shape as another). Those photos are kept back, so this bench draws a deck of that *kind* (our own
drawing: diamonds, ovals and waves; solid, striped and open; red, green and purple) and photographs it the
way a webcam over a table would: white balance and exposure that change from photo to photo, a light
falling off across the table, perspective, focus blur, sensor noise, JPEG, paper grain and print that
varies a little from card to card.

Each card is enrolled, as a user would, from ``--per-card`` photos of it alone (cropped to it with a margin
of cloth, under conditions of their own); then each board (9–15 cards, seeds ``--boards``) is read by
``read_cards``. A card is *right* when a reading within a third of a card's width of its centre names it;
*wrong* when that reading names another card (the error that must never happen); a reading that matches no
card and is not "unknown" is *spurious*.

``--leave-out SEED`` measures what a card that was never enrolled costs: 9 of the 81 cards (drawn with
that seed) are left out of the enrolment, and the boards' true quads are read (``classify_quads``: where a
card lies is not in question). A left-out card must read "unknown"; one that gets a name is counted
*named* (a wrong name); the other cards are counted as above.
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
import zlib
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

COUNTS = (1, 2, 3)
COLOURS = {"red": (45, 35, 215), "green": (60, 150, 30), "purple": (130, 40, 110)}  # BGR
FILLS = ("solid", "striped", "open")
SHAPES = ("diamond", "oval", "wave")
CARD_W, CARD_H = 230, 358  # px of a drawn face: 57 × 89 mm at about 4 px/mm

#: The drawings of the deck (``--style``). ``classic`` is the deck every figure before stop 57 was
#: measured on (and tuned on). ``print2`` (stop 57) is a second print of the same 81 cards drawn
#: as differently as the game allows, to measure on a symbol deck the reader was never tuned on:
#: cream paper; inks of other hues (an orange-red, a blue-purple, a teal green); thinner outlines
#: (3 px, not 5); a striped fill of hair lines 1 px wide every 5 px (a paler tint than classic's 2
#: every 7); symbols taller and closer together; a squiggle (a bean bent one way at both ends) for
#: the wave, a pointed lozenge for the diamond and a fuller oval.
STYLES = {
    "classic": {"colours": COLOURS, "paper": (250, 250, 250), "outline": 5, "stripe": (7, 2),
                "size": (0.62, 0.2), "gap": 0.07},
    "print2": {"colours": {"red": (40, 70, 225), "green": (110, 130, 20), "purple": (150, 35, 85)},
               "paper": (228, 240, 246), "outline": 3, "stripe": (5, 1), "size": (0.66, 0.17), "gap": 0.05},
}
_style = "classic"


def use_style(name: str) -> None:
    """Draw every face from now on in the style ``name`` (a key of ``STYLES``); raises
    ``SystemExit`` naming the styles for another name."""
    global _style
    if name not in STYLES:
        raise SystemExit(f"no symbol style {name!r}: one of {', '.join(STYLES)}")
    _style = name


def labels() -> list[str]:
    """The 81 card names, e.g. ``2-red-striped-oval``."""
    return [f"{n}-{c}-{f}-{s}" for n, c, f, s in itertools.product(COUNTS, COLOURS, FILLS, SHAPES)]


def _shape_mask(shape: str, w: int, h: int) -> np.ndarray:
    """(h, w) uint8 mask of one symbol lying across, filling its box but for a 3 px margin."""
    pad = 3
    return cv2.copyMakeBorder(_shape(shape, w - 2 * pad, h - 2 * pad), pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=0)


def _shape(shape: str, w: int, h: int) -> np.ndarray:
    m = np.zeros((h, w), np.uint8)
    if _style == "print2":
        return _shape_print2(shape, w, h)
    if shape == "diamond":
        cv2.fillConvexPoly(m, np.array([[0, h // 2], [w // 2, 0], [w - 1, h // 2], [w // 2, h - 1]], np.int32), 255)
    elif shape == "oval":
        r = h // 2
        cv2.rectangle(m, (r, 0), (w - 1 - r, h - 1), 255, -1)
        cv2.circle(m, (r, r), r, 255, -1)
        cv2.circle(m, (w - 1 - r, r), r, 255, -1)
    else:  # a wave: a band whose centre line follows one period of a sine, with rounded ends
        xs = np.arange(w)
        centre = h / 2 + 0.22 * h * np.sin(2 * np.pi * xs / w)
        half = 0.3 * h * np.sqrt(np.clip(1 - ((xs - w / 2) / (w / 2)) ** 8, 0, 1))
        yy = np.arange(h)[:, None]
        m[(np.abs(yy - centre[None, :]) <= half[None, :])] = 255
    return m


def _shape_print2(shape: str, w: int, h: int) -> np.ndarray:
    """``print2``'s symbols: a pointed lozenge, a full oval, a squiggle; (h, w) uint8 0/255."""
    m = np.zeros((h, w), np.uint8)
    if shape == "diamond":  # a lozenge whose sides bow in a little: sharper points than classic's
        t = np.linspace(0, 2 * np.pi, 200, endpoint=False)
        x = np.sign(np.cos(t)) * np.abs(np.cos(t)) ** 2.3
        y = np.sign(np.sin(t)) * np.abs(np.sin(t)) ** 2.3
        pts = np.stack([(x + 1) / 2 * (w - 1), (y + 1) / 2 * (h - 1)], axis=1)
        cv2.fillPoly(m, [np.round(pts).astype(np.int32)], 255)
    elif shape == "oval":
        cv2.ellipse(m, (w // 2, h // 2), (w // 2 - 1, h // 2 - 1), 0, 0, 360, 255, -1)
    else:  # a squiggle: a band whose centre line bends up at one end and down at the other
        xs = np.arange(w)
        u = xs / (w - 1)
        centre = h / 2 + 0.25 * h * np.sin(np.pi * (u - 0.5)) * (1 - 0.6 * np.cos(2 * np.pi * u))
        half = 0.27 * h * (1 + 0.25 * np.sin(2 * np.pi * u)) * np.sqrt(np.clip(1 - (2 * u - 1) ** 6, 0, 1))
        yy = np.arange(h)[:, None]
        m[(np.abs(yy - centre[None, :]) <= half[None, :])] = 255
    return m


def draw_face(label: str, rng: np.random.Generator | None = None) -> np.ndarray:
    """(CARD_H, CARD_W, 3) uint8 BGR face; with ``rng``, the print varies a little (ink, register)."""
    n, colour, fill, shape = label.split("-")
    n = int(n)
    st = STYLES[_style]
    ink = np.array(st["colours"][colour], np.float32)
    jitter = np.zeros(2)
    if rng is not None:
        ink = np.clip(ink * rng.uniform(0.88, 1.12, 3), 0, 255)
        jitter = rng.uniform(-3, 3, 2)
    img = np.full((CARD_H, CARD_W, 3), st["paper"], np.uint8)
    sw, sh = int(st["size"][0] * CARD_W), int(st["size"][1] * CARD_H)
    mask = _shape_mask(shape, sw, sh)
    k = st["outline"]
    outline = cv2.morphologyEx(mask, cv2.MORPH_GRADIENT, np.ones((k, k), np.uint8))
    if fill == "solid":
        paint = mask
    elif fill == "striped":
        period, width = st["stripe"]
        stripes = np.zeros_like(mask)
        for j in range(width):
            stripes[:, j::period] = 255
        paint = np.maximum(outline, stripes & mask)
    else:
        paint = outline
    gap = int(st["gap"] * CARD_H)
    total = n * sh + (n - 1) * gap
    top = (CARD_H - total) // 2 + int(jitter[1])
    left = (CARD_W - sw) // 2 + int(jitter[0])
    for i in range(n):
        y = top + i * (sh + gap)
        region = img[y:y + sh, left:left + sw]
        a = paint[:, :, None].astype(np.float32) / 255.0
        region[:] = (region * (1 - a) + ink[None, None, :] * a).astype(np.uint8)
    if _style == "classic":
        cv2.rectangle(img, (0, 0), (CARD_W - 1, CARD_H - 1), (215, 215, 215), 1)
    return img


def photograph(canvas_size: tuple[int, int], cards: list[tuple[str, np.ndarray]], rng: np.random.Generator,
               exposure: float | None = None, cast: tuple[float, float, float] | None = None) -> np.ndarray:
    """A webcam photo of ``cards`` ((label, quad (4, 2) px on the table)) on a dark cloth.

    ``exposure`` (a factor on the drawn light: the paper, 250, is at 250·exposure before the light's
    fall-off) and ``cast`` (B, G, R factors) replace the photo's drawn exposure and white balance
    where given (``bench/symbol_exposure.py``); the random draws are made all the same, so a photo
    without them is the one it always was."""
    w, h = canvas_size
    cloth = np.full((h, w, 3), (52, 44, 40), np.float32)
    cloth += cv2.GaussianBlur(rng.normal(0, 10, (h, w)).astype(np.float32), (0, 0), 1.2)[:, :, None]
    src = np.float32([[0, 0], [CARD_W, 0], [CARD_W, CARD_H], [0, CARD_H]])
    for label, quad in cards:
        face = draw_face(label, rng).astype(np.float32)
        face += rng.normal(0, 4, face.shape[:2])[:, :, None]  # paper grain
        m = cv2.getPerspectiveTransform(src, quad.astype(np.float32))
        warped = cv2.warpPerspective(face, m, (w, h), flags=cv2.INTER_AREA)
        a = cv2.warpPerspective(np.ones(face.shape[:2], np.float32), m, (w, h), flags=cv2.INTER_LINEAR)[:, :, None]
        shadow = cv2.GaussianBlur(a[:, :, 0], (0, 0), 3.0)[:, :, None]
        cloth = cloth * (1 - 0.35 * shadow * (1 - a))
        cloth = cloth * (1 - a) + warped * a
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    ang = rng.uniform(0, 2 * np.pi)
    light = 1.0 + rng.uniform(0.1, 0.35) * ((xx / w - 0.5) * np.cos(ang) + (yy / h - 0.5) * np.sin(ang))
    wb = rng.uniform(0.85, 1.15, 3).astype(np.float32)
    gain = rng.uniform(0.65, 1.15)
    if cast is not None:
        wb = np.asarray(cast, np.float32)
    if exposure is not None:
        gain = exposure
    img = cloth * light[:, :, None] * wb[None, None, :] * gain
    img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.4, 1.4))
    img += rng.normal(0, rng.uniform(2, 6), img.shape)
    img = np.clip(img, 0, 255).astype(np.uint8)
    _, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(60, 92))])
    return cv2.imdecode(buf, cv2.IMREAD_COLOR)


def _card_quad(cx: float, cy: float, width: float, angle: float, rng: np.random.Generator) -> np.ndarray:
    h = width * CARD_H / CARD_W
    t = np.deg2rad(angle)
    rot = np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])
    q = np.array([[-width / 2, -h / 2], [width / 2, -h / 2], [width / 2, h / 2], [-width / 2, h / 2]]) @ rot.T + [cx, cy]
    return q + rng.uniform(-0.03, 0.03, (4, 2)) * width  # the camera's slant


def board(seed: int, names: list[str]) -> tuple[np.ndarray, list[tuple[str, np.ndarray]]]:
    """One photo of 9–15 cards on a grid (1280 × 960), turned a little, and its truth."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(9, 16))
    chosen = [names[i] for i in rng.choice(len(names), n, replace=False)]
    width = rng.uniform(105, 135)
    cols = 5
    cards = []
    for i, label in enumerate(chosen):
        r, c = divmod(i, cols)
        cx = 150 + c * (width * 1.75) + rng.uniform(-8, 8)
        cy = 150 + r * (width * 1.95) + rng.uniform(-8, 8)
        ang = rng.choice([0.0, 180.0]) + rng.uniform(-10, 10)
        cards.append((label, _card_quad(cx, cy, width, ang, rng)))
    return photograph((1280, 960), cards, rng), cards


def enrolment_photos(label: str, k: int, seed: int) -> list[np.ndarray]:
    """``k`` photos of one card alone, cropped to it by hand with a margin of cloth (4–12 % of the
    card's width on each side)."""
    out = []
    for j in range(k):
        rng = np.random.default_rng([seed, j, zlib.crc32(label.encode())])
        width = rng.uniform(110, 150)
        q = _card_quad(200, 200, width, rng.uniform(-8, 8) + rng.choice([0.0, 180.0]), rng)
        img = photograph((400, 400), [(label, q)], rng)
        m = (rng.uniform(0.04, 0.12, 4) * width).astype(int)  # cropped by hand: margins differ
        x0, y0 = np.floor(q.min(axis=0)).astype(int) - m[:2]
        x1, y1 = np.ceil(q.max(axis=0)).astype(int) + m[2:]
        out.append(img[max(0, y0):y1, max(0, x0):x1])
    return out


def enrolled_deck(names: list[str], per_card: int, path: str | None = None):
    """The bench's deck: ``names`` each enrolled from ``per_card`` photos (:func:`enrolment_photos`,
    seed 0). With ``path`` (an .npz), read from it if it exists (about two minutes saved a run),
    else enrolled and written there. Raises ``SystemExit`` naming the file if it holds other labels
    than ``names`` (another ``--leave-out``) or was enrolled from another number of photos."""
    from companion.vision.deck import Deck, enroll_images

    if path and Path(path).exists():
        deck = Deck.load(path)
        if sorted(deck.labels) != sorted(names):
            raise SystemExit(f"{path} holds other labels than this run enrols (another --leave-out?)")
        if deck.fine_label is not None and len(deck.fine_label) != per_card * len(names):
            raise SystemExit(f"{path} was enrolled from another number of photos a card than {per_card}")
        return deck
    deck = enroll_images({lb: enrolment_photos(lb, per_card, 0) for lb in names})
    if path:
        deck.save(path)
    return deck


def left_out(seed: int, k: int = 9) -> list[str]:
    """The ``k`` card names left out of the enrolment by ``--leave-out seed``."""
    names = labels()
    return [names[i] for i in sorted(np.random.default_rng(seed).choice(len(names), k, replace=False))]


def read_true_quads(deck, boards: range, leave: list[str], show: bool) -> dict[str, int]:
    """Each board's cards read at their true quads; counts of left-out cards named, and of the
    enrolled ones right, wrong and "unknown"."""
    from companion.rules.sushi_go.cards import UNKNOWN
    from companion.vision.deck import classify_quads

    tot = {"left out": 0, "named": 0, "cards": 0, "right": 0, "wrong": 0, "unknown": 0}
    for seed in boards:
        img, truth = board(seed, labels())
        for (label, _), got in zip(truth, classify_quads(img, [q for _, q in truth], deck)):
            if label in leave:
                tot["left out"] += 1
                tot["named"] += got.label != UNKNOWN
                if show and got.label != UNKNOWN:
                    print(f"board {seed}: {label} (left out) read {got.label}")
                continue
            key = "right" if got.label == label else "unknown" if got.label == UNKNOWN else "wrong"
            tot["cards"] += 1
            tot[key] += 1
            if show and key != "right":
                print(f"board {seed}: {label} read {got.label}")
    return tot


def main(argv: list[str] | None = None) -> int:
    from companion.rules.sushi_go.cards import UNKNOWN
    from companion.vision.cards import read_cards
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--boards", default="0-19")
    p.add_argument("--per-card", type=int, default=5)
    p.add_argument("--show", action="store_true")
    p.add_argument("--deck", help="DECK.npz: read if it exists, else the enrolment is written there (as "
                                  "bench/symbol_why.py's; about two minutes saved on each later run)")
    p.add_argument("--style", default="classic", choices=sorted(STYLES),
                   help="the deck's drawing (STYLES); give each style its own --deck file")
    p.add_argument("--leave-out", type=int, default=None, metavar="SEED",
                   help="leave 9 cards (drawn with SEED) out of the enrolment; read true quads")
    a = p.parse_args(argv)
    use_style(a.style)
    lo, _, hi = a.boards.partition("-")
    leave = left_out(a.leave_out) if a.leave_out is not None else []
    names = [lb for lb in labels() if lb not in leave]
    t0 = time.perf_counter()
    deck = enrolled_deck(names, a.per_card, a.deck)
    print(f"enrolled {len(names)} cards from {a.per_card} photos each in {time.perf_counter() - t0:.0f} s; "
          f"threshold {deck.threshold:.3f}, look-alike pairs {len(deck.lookalikes())}")
    if leave:
        print("left out:", ", ".join(leave))
        t = read_true_quads(deck, range(int(lo), int(hi or lo) + 1), leave, a.show)
        print(f"boards {a.boards}, true quads: left-out cards named {t['named']} of {t['left out']}; enrolled "
              f"cards {t['cards']}, right {t['right']}, wrong {t['wrong']}, unknown {t['unknown']}")
        return 0
    tot = {"cards": 0, "right": 0, "wrong": 0, "unknown": 0, "missed": 0, "spurious": 0}
    ms = []
    for seed in range(int(lo), int(hi or lo) + 1):
        img, truth = board(seed, names)
        t0 = time.perf_counter()
        obs = read_cards(img, deck)
        ms.append(1000 * (time.perf_counter() - t0))
        used = set()
        for label, q in truth:
            c, tol = q.mean(axis=0), np.linalg.norm(q[1] - q[0]) / 3
            d = [np.hypot(o.center[0] - c[0], o.center[1] - c[1]) if i not in used else np.inf for i, o in enumerate(obs)]
            tot["cards"] += 1
            if not d or min(d) > tol:
                tot["missed"] += 1
                if a.show:
                    print(f"board {seed}: {label} not found")
                continue
            i = int(np.argmin(d))
            used.add(i)
            got = obs[i].label
            key = "right" if got == label else "unknown" if got == UNKNOWN else "wrong"
            tot[key] += 1
            if a.show and key != "right":
                print(f"board {seed}: {label} read {got}")
        extra = [o for i, o in enumerate(obs) if i not in used and o.label != UNKNOWN]
        tot["spurious"] += len(extra)
    n = max(tot["cards"], 1)
    print(f"boards {a.boards}: {tot['cards']} cards, right {100 * tot['right'] / n:.1f} %, wrong {tot['wrong']}, "
          f"unknown {tot['unknown']}, not found {tot['missed']}, spurious {tot['spurious']}, "
          f"{np.median(ms):.0f} ms per photo (median)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
