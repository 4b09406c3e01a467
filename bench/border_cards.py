"""Cards and card-shaped papers cut by the photo's border, on the real photos' own tables: a card a
little cut off is named right or not at all, and a paper is never named (issue #6, stop 54
``find55``: ``cards._with_border_cut`` puts such a card back whole; stop 50's ``find50`` named
papers at the border).

    .venv/bin/python bench/border_cards.py [--draw 0] [--seeds 96400-96599] [--keep DIR] [-v]

* **Deck, cards, tables**: ``bench/real_fans.py``'s :func:`real_fans.sources` (the real deck of
  enrolment draw ``--draw``, the other one-card photos' cards, their tables).
* **Scenes** (one per seed, ``numpy.random.default_rng(seed)``, cards of a long side of 135-165 px):
  one real card inside the photo (it gives the card size), and at one border, chosen at random, a
  thing cut 2-12 % of its extent off the photo, turned up to 12 degrees off upright or sideways,
  kind by ``seed % 3``: ``dotted`` a coloured paper of a card's shape with one dark dot
  (``real_covers._dotted_face``), ``paper`` a napkin, receipt or tile (``real_covers._paper_face``),
  ``card`` a real card. A seed whose border thing would lie within 1.3 card lengths of the inner
  card is skipped. Then light blur, noise and JPEG.
* **Scoring**: a reading whose quad lies over 0.3 of its area on the border thing is scored there
  (``unknown``; on a card ``right`` or ``WRONG``; on a paper ``SPURIOUS``), else on the inner card,
  else any name elsewhere is ``SPURIOUS``.

Stop 54, draw 0, main before and after ``find55``: seeds 96400-96599 border cards right 3 -> 4 of 30,
96600-96799 2 -> 4 of 32; 0 wrong, 0 spurious on the border things on both; one spurious "ace" on
both (seed 96428, a small quad beside a border ace's corner index at a seam of the pasted table):
gone since ``cards._readable`` (an outline narrower than the deck's patch needs the search's bar).
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

KINDS = ("dotted", "paper", "card")


def scene(seed: int, faces, tables, long_range=(135, 165)):
    """(kind, (H, W, 3) uint8 BGR photo, (rank, quad) of the inner card, (rank or None, quad) of the
    border thing) of one seed, or None where the two would lie too close (module doc: Scenes)."""
    from real_covers import _dotted_face, _paper_face
    from real_fans import _rect
    from test_vision_synth import paste, photometric

    rng = np.random.default_rng(seed)
    img = tables[int(rng.integers(len(tables)))].copy()
    h, w = img.shape[:2]
    long_px = rng.uniform(*long_range)
    cw = long_px * 44 / 63
    c0 = np.float32([w * rng.uniform(0.35, 0.65), h * rng.uniform(0.4, 0.6)])
    q0 = _rect(*c0, long_px, rng.uniform(0, 360))
    r0, f0 = faces[int(rng.integers(len(faces)))]
    paste(img, f0, q0)
    kind = KINDS[seed % len(KINDS)]
    side = int(rng.integers(4))
    cut = rng.uniform(0.02, 0.12)  # of the thing's extent across the border, off the photo
    sideways = rng.random() < 0.5
    ang = rng.uniform(-12, 12) + (90 if sideways else 0)
    ext_x, ext_y = (long_px, cw) if sideways else (cw, long_px)
    # Along its border the thing stays clear of the photo's corners (turned up to 12 degrees, its
    # box is up to 0.2 of its long side wider than upright): cut by one border only.
    pad = 0.6 * long_px
    along_x = rng.uniform(min(pad, w / 2), max(w - pad, w / 2))
    along_y = rng.uniform(min(pad, h / 2), max(h - pad, h / 2))
    if side == 0:
        c = np.float32([along_x, ext_y / 2 - cut * ext_y])
    elif side == 1:
        c = np.float32([along_x, h - ext_y / 2 + cut * ext_y])
    elif side == 2:
        c = np.float32([ext_x / 2 - cut * ext_x, along_y])
    else:
        c = np.float32([w - ext_x / 2 + cut * ext_x, along_y])
    if np.linalg.norm(c - c0) < 1.3 * long_px:
        return None
    if kind == "card":
        q = _rect(*c, long_px, ang)
        r, f = faces[int(rng.integers(len(faces)))]
    else:
        q = _rect(*c, long_px * rng.uniform(0.9, 1.1), ang)
        pw, ph = int(np.linalg.norm(q[1] - q[0])), int(np.linalg.norm(q[3] - q[0]))
        _, f = (_dotted_face if kind == "dotted" else _paper_face)(rng, (max(pw, 8), max(ph, 8)))
        r = None
    paste(img, f, q)
    img = photometric(img, rng, blur=0.5, noise=2.0, jpeg=90)
    return kind, img, (r0, q0), (r, q)


def run(draw: int, seeds: list[int], per_rank: int = 10, verbose: bool = False, keep: str | None = None) -> Counter:
    """Counts over ``seeds`` (keys ``"<kind> scenes"``, ``"<kind> right|WRONG|unknown|SPURIOUS"``,
    ``"inner right|WRONG|unknown"``, ``"elsewhere SPURIOUS"``) for the deck of enrolment draw ``draw``."""
    from real_fans import _mask, sources

    from companion.vision.cards import read_cards

    deck, faces, tables, long_range = sources(draw, per_rank)
    tot: Counter = Counter()
    for seed in seeds:
        made = scene(seed, faces, tables, long_range)
        if made is None:
            continue
        kind, img, (r0, q0), (r, q) = made
        if keep:
            cv2.imwrite(f"{keep}/border_{draw}_{seed}_{kind}.png", img)
        m, m0 = _mask(q, img.shape), _mask(q0, img.shape)
        for o in read_cards(img, deck):
            om = _mask(o.quad, img.shape)
            area = om.sum() + 1
            if (om & m).sum() > 0.3 * area:
                key = ("unknown" if o.label == "unknown" else "SPURIOUS" if r is None
                       else "right" if o.label == r else "WRONG")
                tot[f"{kind} {key}"] += 1
            elif (om & m0).sum() > 0.3 * area:
                key = "right" if o.label == r0 else "unknown" if o.label == "unknown" else "WRONG"
                tot[f"inner {key}"] += 1
            elif o.label != "unknown":
                key = "elsewhere SPURIOUS"
                tot[key] += 1
            else:
                continue
            if verbose and key in ("SPURIOUS", "WRONG", "elsewhere SPURIOUS"):
                print(f"seed {seed} ({kind}): {key} {o.label}")
        tot[f"{kind} scenes"] += 1
    return tot


def main(argv: list[str] | None = None) -> int:
    import real_cards
    from seedargs import seed_list

    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--draw", type=int, default=0, help="enrolment draw (bench/real_cards.py)")
    p.add_argument("--seeds", type=seed_list, default="96400-96599")
    p.add_argument("--per-rank", type=int, default=10)
    p.add_argument("--keep", help="write each scene as a PNG into this folder")
    p.add_argument("-v", action="store_true", help="list every wrong or spurious name")
    a = p.parse_args(argv)
    if not real_cards.DATA.is_dir():
        print(f"skipped: {real_cards.DATA} is missing (the shared datasets sit beside the repo)", file=sys.stderr)
        return 0
    if a.keep and not Path(a.keep).is_dir():
        p.error(f"--keep {a.keep!r} is not a folder")
    t = run(a.draw, a.seeds, a.per_rank, a.v, a.keep)
    for k in KINDS:
        print(f"  {k}: scenes {t[k + ' scenes']}, right {t[k + ' right']}, wrong {t[k + ' WRONG']}, "
              f"unknown {t[k + ' unknown']}, spurious {t[k + ' SPURIOUS']}")
    print(f"draw {a.draw}, seeds {a.seeds[0]}-{a.seeds[-1]}: inner cards right {t['inner right']}, "
          f"wrong {t['inner WRONG']}, unknown {t['inner unknown']}; spurious elsewhere {t['elsewhere SPURIOUS']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
