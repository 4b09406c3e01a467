"""Real playing cards cut by a thin cover (a cable, a strap, a pen, a handle's shadow), pasted on
real tables: never a wrong or spurious name (issue #6, stop 45 ``cover45``).

    .venv/bin/python bench/real_covers.py [--draw 0] [--seeds 0-59] [--drawn | --dotted] [--keep DIR] [-v]

``bench/real_cards.py``'s photos lose cards under a cable or a handle (IMG_2589, IMG_2621,
IMG_2537); :mod:`companion.vision.covered` joins two pieces of paper across such a cover. This
bench asks whether a join can name what it must not: two pieces of two *different* cards, or
paper-like things cut by a cable.

* **Deck, cards, tables**: as ``bench/real_fans.py`` (:func:`real_fans.card_sources`): the deck
  enrolled from ``--per-rank`` one-card photos of each rank (enrolment draw ``--draw``), the
  other one-card phone photos' cards warped upright, and their own tables beside the card.
* **Scenes** (one per seed, ``numpy.random.default_rng(seed)``, cards of a long side of
  135-165 px, the photos' size), kind by ``seed % 3``:
  - ``one``: one card, a cover across it through a point within 0.25 of a card's width of its
    centre, at any angle;
  - ``two``: two cards of different ranks side by side (0.03-0.2 of a card's width apart, long
    sides or short sides facing), a cover through a point of each (any pair of points within
    0.3 of a card's width of their centres): both cards are cut, and a piece of one lies beside a
    piece of the other across the gap;
  - ``paper``: a paper-like thing (a napkin, a receipt, a tile, plain or printed with grey lines)
    of a card's size and 1.1-1.9 times as long as wide, cut by a cover, beside one card no cover
    crosses.
  Covers (``COVERS``): a cable (dark or grey, 3-9 px, across the whole photo, slightly bent), a
  strap (dark or coloured, 8-14 px), a pen (dark or blue, 5-8 px, 1.1-1.5 card lengths long) or a
  handle's shadow (the table and cards darkened to 0.35-0.6 over a 10-18 px band, soft edged).
  Then light blur, noise and JPEG (``tests/test_vision_synth.photometric``).
* **Scoring**: :func:`real_fans.score` (a card's pixels in sight are its own; the cover is not
  subtracted, a card is always more than half in sight): right / wrong / unknown / not found per
  card; a named reading on no card (on the paper-like thing, the table) is *spurious*; a reading
  that covers two cards is scored on the one it covers most, so a join of two cards' pieces named
  as either card's rank counts right only where it is that card's rank and is 0.3 of the
  reading's area; any other name there is *wrong*.

``--drawn`` (stop 46, ``cover46``): the same scenes of the drawn pip deck
(:func:`real_fans.drawn_sources`: "one", "nine", "ten" enrolled from drawn faces, twos and threes
never: any name on them is wrong) on drawn tables: stop 45's review read its cards under covers
and found a two or a three cut by a cable read "one". ``--dotted`` (stop 46): every scene a real
card beside a coloured paper (yellow, green, orange, pink, pale blue) of a card's shape with one
dark dot, cut by a cable: the review's spurious "ace"s.

Seeds (stop 45): tuned on enrolment draw 0, scene seeds 0-299; held out, run once each way:
draw 3, seeds 5000-5299. Stop 46: ``--drawn`` and ``--dotted`` on seeds 10000-10399 (draw 0),
the default scenes held out on draw 3, seeds 10300-10499.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "bench"))

KINDS = ("one", "two", "paper")
COVERS = ("cable", "strap", "pen", "shadow")


def _cover(img: np.ndarray, a: np.ndarray, b: np.ndarray, long_px: float, rng: np.random.Generator,
           kind: str | None = None) -> str:
    """Draw a thin cover on ``img`` (in place) along the line through ``a`` and ``b`` (image px);
    its kind's name (``kind``, else drawn from ``COVERS``). A cable or strap runs across the whole
    photo, slightly bent; a pen is a segment centred between ``a`` and ``b``; a shadow darkens a
    soft band."""
    h, w = img.shape[:2]
    kind = COVERS[int(rng.integers(len(COVERS)))] if kind is None else kind
    d = (b - a) / max(float(np.linalg.norm(b - a)), 1e-6)
    n = np.float32([-d[1], d[0]])
    mid = (a + b) / 2
    if kind == "pen":
        half = 0.5 * rng.uniform(1.1, 1.5) * long_px
        ts = np.linspace(-half, half, 12)
    else:
        ts = np.linspace(-1.5 * max(h, w), 1.5 * max(h, w), 40)
    bend = rng.uniform(-0.0006, 0.0006) if kind in ("cable", "strap") else 0.0
    pts = np.stack([mid + t * d + (bend * t * t) * n for t in ts]).astype(np.float32)
    line = np.round(pts * 16).astype(np.int32).reshape(-1, 1, 2)
    if kind == "shadow":
        m = np.zeros((h, w), np.uint8)
        cv2.polylines(m, [line], False, 255, int(rng.uniform(10, 18)), cv2.LINE_AA, shift=4)
        m = cv2.GaussianBlur(m, (0, 0), 2.0).astype(np.float32)[..., None] / 255.0
        dark = rng.uniform(0.35, 0.6)
        img[:] = np.clip(img * (1 - m * (1 - dark)), 0, 255).astype(np.uint8)
        return kind
    if kind == "cable":
        width = int(rng.integers(3, 10))
        g = int(rng.integers(15, 70)) if rng.random() < 0.6 else int(rng.integers(120, 175))
        colour = (g, g, g)
    elif kind == "strap":
        width = int(rng.integers(8, 15))
        colour = tuple(int(v) for v in (rng.integers(10, 60, 3) if rng.random() < 0.5 else rng.integers(30, 200, 3)))
    else:
        width = int(rng.integers(5, 9))
        colour = (int(rng.integers(90, 160)), int(rng.integers(20, 60)), int(rng.integers(10, 40))) \
            if rng.random() < 0.5 else (20, 20, 25)
    cv2.polylines(img, [line], False, colour, width, cv2.LINE_AA, shift=4)
    # A highlight along a round cable or pen: what makes it "other than the paper" on a photo.
    if kind != "strap" and width >= 5:
        hl = tuple(min(255, c + 60) for c in colour)
        cv2.polylines(img, [np.round((pts - 0.2 * width * n) * 16).astype(np.int32).reshape(-1, 1, 2)],
                      False, hl, 1, cv2.LINE_AA, shift=4)
    return kind


def _paper_face(rng: np.random.Generator, wh: tuple[int, int]) -> tuple[str, np.ndarray]:
    """(kind, (h, w, 3) uint8 BGR) a paper-like thing: a napkin (near white, soft texture, a fold),
    a receipt (white, rows of grey print) or a tile (beige or white, grout round it)."""
    w, h = wh
    kind = ("napkin", "receipt", "tile")[int(rng.integers(3))]
    base = rng.uniform(205, 250) - np.float32([rng.uniform(0, 25), rng.uniform(0, 12), 0])
    face = np.ones((h, w, 3), np.float32) * base[None, None, :]
    if kind == "napkin":
        tex = cv2.GaussianBlur(rng.normal(0, 6, (h, w)).astype(np.float32), (0, 0), 1.5)
        face += tex[..., None]
        y = int(rng.uniform(0.3, 0.7) * h)
        face[y:y + 2] *= 0.88
    elif kind == "receipt":
        y = int(0.08 * h)
        while y < 0.92 * h:
            x0 = int(rng.uniform(0.06, 0.2) * w)
            x1 = int(rng.uniform(0.5, 0.94) * w)
            g = rng.uniform(60, 140)
            for x in range(x0, x1, 7):
                if rng.random() < 0.85:
                    face[y:y + 4, x:x + 5] = g
            y += int(rng.uniform(9, 16))
    else:
        g = int(rng.uniform(3, 7))
        face[:g], face[-g:], face[:, :g], face[:, -g:] = 150, 150, 150, 150
        face += cv2.GaussianBlur(rng.normal(0, 4, (h, w)).astype(np.float32), (0, 0), 3)[..., None]
    return kind, np.clip(face, 0, 255).astype(np.uint8)


#: Colours (BGR) of the coloured papers of ``--dotted`` (stop 45's review: green or yellow
#: card-shaped papers with one dark dot, cut by a cable, read "ace"): yellow, green, orange, pink,
#: pale blue.
PAPER_COLOURS = ((60, 215, 235), (90, 190, 110), (50, 150, 240), (190, 160, 245), (235, 200, 150))


def _dotted_face(rng: np.random.Generator, wh: tuple[int, int]) -> tuple[str, np.ndarray]:
    """(kind, (h, w, 3) uint8 BGR) a coloured paper (``PAPER_COLOURS``, a little texture) with one
    dark dot where an ace's pip lies (a round or square mark 0.12-0.35 of its width across, within
    0.1 of its size of its centre): an ace's blank face and one pip, to a reader that takes any
    colour for ink."""
    w, h = wh
    colour = np.float32(PAPER_COLOURS[int(rng.integers(len(PAPER_COLOURS)))]) + rng.uniform(-15, 15, 3)
    face = np.ones((h, w, 3), np.float32) * colour[None, None, :]
    face += cv2.GaussianBlur(rng.normal(0, 5, (h, w)).astype(np.float32), (0, 0), 1.5)[..., None]
    r = max(2, int(0.5 * rng.uniform(0.12, 0.35) * w))
    cx, cy = int(rng.uniform(0.4, 0.6) * w), int(rng.uniform(0.4, 0.6) * h)
    ink = tuple(float(v) for v in rng.uniform(10, 70, 3))
    if rng.random() < 0.5:
        cv2.circle(face, (cx, cy), r, ink, -1, cv2.LINE_AA)
    else:
        cv2.rectangle(face, (cx - r, cy - r), (cx + r, cy + r), ink, -1)
    return "dotted", np.clip(face, 0, 255).astype(np.uint8)


def scene(seed: int, faces, tables, long_range=(135, 165), dotted: bool = False):
    """(kind, (H, W, 3) uint8 BGR photo, [(rank, quad (4, 2) float32)], cover kind) of one seed
    (module doc: Scenes; ``dotted``: every scene a ``paper`` one, the paper a coloured one with a
    dot, :func:`_dotted_face`, of a card's shape, 1.35-1.5 as long as wide, cut by a cable)."""
    from real_fans import _rect
    from test_vision_synth import paste, photometric

    rng = np.random.default_rng(seed)
    kind = "paper" if dotted else KINDS[seed % len(KINDS)]
    img = tables[int(rng.integers(len(tables)))].copy()
    h, w = img.shape[:2]
    long_px = rng.uniform(*long_range)
    cw = long_px * 44 / 63
    turn = rng.uniform(0, 360)
    t = np.deg2rad(turn)
    rot = np.float32([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])
    truth = []
    if kind == "two":
        i = int(rng.integers(len(faces)))
        j = int(rng.integers(len(faces)))
        while faces[j][0] == faces[i][0]:
            j = int(rng.integers(len(faces)))
        gap = rng.uniform(0.03, 0.2) * cw
        step = np.float32([cw + gap, 0]) if rng.random() < 0.5 else np.float32([0, long_px + gap])
        rel = [(-step / 2, rng.uniform(-4, 4)), (step / 2, rng.uniform(-4, 4))]
        picks = [i, j]
    else:
        rel = [(np.float32([0, 0]), 0.0)]
        picks = [int(rng.integers(len(faces)))]
        if kind == "paper":
            sep = rng.uniform(1.45, 1.9) * cw  # the card and the paper-like thing apart, centre to centre
            rel = [(np.float32([-sep / 2, 0]), 0.0)]
    quads = [_rect(*(rot @ c), long_px, a + turn) for c, a in rel]
    paper_q = None
    if kind == "paper":
        ratio = rng.uniform(1.35, 1.5) if dotted else rng.uniform(1.1, 1.9)
        pl = long_px * rng.uniform(0.85, 1.15)
        c = rot @ np.float32([sep / 2, 0])
        hw, hh = 0.5 * pl / ratio, 0.5 * pl
        pts = np.float32([[-hw, -hh], [hw, -hh], [hw, hh], [-hw, hh]])
        a = np.deg2rad(turn + rng.uniform(-20, 20))
        r2 = np.float32([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
        paper_q = pts @ r2.T + c
    allpts = np.concatenate(quads + ([paper_q] if paper_q is not None else []))
    span = allpts.max(axis=0) - allpts.min(axis=0)
    room = np.float32([w, h]) - span - 16
    shift = (-allpts.min(axis=0) + 8 + rng.uniform(0, 1, 2) * np.maximum(room, 0)).astype(np.float32)
    quads = [q + shift for q in quads]
    for q, p in zip(quads, picks):
        rank, face = faces[p]
        paste(img, face if rng.random() < 0.5 else face[::-1, ::-1].copy(), q)
        truth.append((rank, q))
    if paper_q is not None:
        paper_q = paper_q + shift
        pw = int(np.linalg.norm(paper_q[1] - paper_q[0]))
        ph = int(np.linalg.norm(paper_q[3] - paper_q[0]))
        _, pface = (_dotted_face if dotted else _paper_face)(rng, (max(pw, 8), max(ph, 8)))
        paste(img, pface, paper_q)
        centre = paper_q.mean(axis=0)
        through = [centre + rng.uniform(-0.25, 0.25, 2).astype(np.float32) * cw]
    else:
        through = [q.mean(axis=0) + rng.uniform(-0.3 if kind == "two" else -0.25, 0.3 if kind == "two" else 0.25,
                                                 2).astype(np.float32) * cw for q in quads]
    if len(through) == 1:
        ang = rng.uniform(0, np.pi)
        through.append(through[0] + np.float32([np.cos(ang), np.sin(ang)]) * 10)
    cover = _cover(img, through[0], through[1], long_px, rng, "cable" if dotted else None)
    img = photometric(img, rng, blur=0.5, noise=2.0, jpeg=90)
    return kind, img, truth, cover


def run(draw: int, seeds: list[int], per_rank: int = 10, verbose: bool = False, keep: str | None = None,
        drawn: bool = False, dotted: bool = False) -> Counter:
    """Counts over the scenes of ``seeds`` for the deck of enrolment draw ``draw`` (or the drawn pip
    deck, ``drawn``: :func:`real_fans.drawn_sources`); per scene kind too (keys ``"<kind> <count>"``).
    ``dotted``: the paper-like thing is a coloured paper with a dot (:func:`scene`)."""
    from real_fans import score, sources

    from companion.vision.cards import read_cards

    deck, faces, tables, long_range = sources(draw, per_rank, drawn)
    tot: Counter = Counter()
    notes: list[str] = []
    for seed in seeds:
        kind, img, truth, cover = scene(seed, faces, tables, long_range, dotted)
        if keep:
            cv2.imwrite(f"{keep}/cover_{draw}_{seed}.png", img)
        one: Counter = Counter()
        score(read_cards(img, deck), truth, img.shape, one, notes, f"seed {seed} ({kind}, {cover})")
        tot.update(one)
        tot.update({f"{kind} {k}": v for k, v in one.items()})
    if verbose:
        print("\n".join(notes))
    print(f"sources: {len(faces)} cards, {len(tables)} tables")
    return tot


def main(argv: list[str] | None = None) -> int:
    import real_cards
    from seedargs import seed_list

    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--draw", type=int, default=0, help="enrolment draw (0 tuning; 10-14 the reviewer's)")
    p.add_argument("--seeds", type=seed_list, default="0-59")
    p.add_argument("--per-rank", type=int, default=10)
    p.add_argument("--keep", help="write each scene as a PNG into this folder")
    p.add_argument("-v", action="store_true", help="list every card not read right")
    p.add_argument("--drawn", action="store_true",
                   help="the drawn pip deck (real_fans.drawn_sources: one, nine, ten enrolled; twos and "
                        "threes never) on drawn tables, in place of the real cards (--draw unused)")
    p.add_argument("--dotted", action="store_true",
                   help="every scene a card beside a coloured paper with one dark dot, cut by a cable")
    a = p.parse_args(argv)
    if not a.drawn and not real_cards.DATA.is_dir():
        print(f"skipped: {real_cards.DATA} is missing (the shared datasets sit beside the repo)", file=sys.stderr)
        return 0
    if a.keep and not Path(a.keep).is_dir():
        p.error(f"--keep {a.keep!r} is not a folder")
    t = run(a.draw, a.seeds, a.per_rank, a.v, a.keep, a.drawn, a.dotted)
    for k in KINDS:
        print(f"  {k}: right {t[k + ' right']}, wrong {t[k + ' wrong']}, unknown {t[k + ' unknown']}, "
              f"not found {t[k + ' not found']}, spurious {t[k + ' spurious']}")
    print(f"{'drawn' if a.drawn else f'draw {a.draw}'}{' dotted' if a.dotted else ''}, seeds {a.seeds[0]}-{a.seeds[-1]}: cards {t['cards']}: right {t['right']}, "
          f"wrong {t['wrong']}, unknown {t['unknown']}, not found {t['not found']}; spurious {t['spurious']}, "
          f"named twice {t['twice']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
