"""Trace: the paper colour of what the card reader names (issue #6, stop 47 ``paper47``).

    .venv/bin/python bench/paper_colour.py covers [--draw 0] [--seeds 10600-10759]
    .venv/bin/python bench/paper_colour.py real [--draws 0,1] [--part dev]

``bench/real_covers.py --dotted`` pastes beside a real card a coloured paper of a card's shape with
one dark dot; main names some of them "ace". A real ace is white card stock. This prints, per
reading, its paper colour as the reader's white balance leaves it (:func:`deck.paper_lab` of the
face white-balanced on its own paper, :func:`deck._fine_lab`): CIE L, a, b and chroma
hypot(a, b), with the chroma of the paper of the named label's enrolled examples (the largest).

``covers``: every reading on the dotted scenes, tagged right / wrong / unknown / spurious (its
centre on no card). ``real``: every right reading of ``bench/real_cards.py`` on the held photos,
per photo, to see how far real light (webcam, phone, warm lamps) leaves a white card's paper from grey.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "tests"))


def face_paper(deck, image: np.ndarray, quad: np.ndarray) -> np.ndarray:
    """(4,) float: L, a, b, chroma of the face in ``quad``'s paper, balanced as ``deck`` reads it."""
    from companion.vision import deck as dk

    s = dk.FINE_SHIFT
    patch = dk.fine_patch(image, np.asarray(quad, np.float32))
    lab = dk._fine_lab(patch, deck.balanced, s)
    p = dk.paper_lab(lab[:, s:s + dk.FINE_H, s:s + dk.FINE_W])
    raw = dk.paper_lab(dk._fine_lab(patch, False, s)[:, s:s + dk.FINE_H, s:s + dk.FINE_W])
    return np.array([*p, np.hypot(p[1], p[2]), np.hypot(raw[1], raw[2]), raw[1], raw[2]])


def example_chroma(deck) -> dict[str, np.ndarray]:
    """Label → (n,) chroma of its examples' papers."""
    from companion.vision import deck as dk

    out = {}
    for k, name in enumerate(deck.labels):
        rows = np.flatnonzero(np.asarray(deck.fine_label) == k)
        ch = [np.hypot(*dk.paper_lab(deck.fine[r] + deck.fine_mean[r][:, None, None])[1:]) for r in rows]
        out[name] = np.array(ch)
    return out


def covers(draw: int, seeds: list[int]) -> None:
    from real_covers import scene
    from real_fans import sources

    from companion.vision.cards import read_cards
    from companion.vision.deck import _counted, _mark_areas, _upright, MARK_INK, MARK_INK_LEVELS

    deck, faces, tables, long_range = sources(draw)
    ex = example_chroma(deck)
    print("examples' paper chroma (max, median):",
          ", ".join(f"{k} {v.max():.1f}/{np.median(v):.1f}" for k, v in ex.items()))
    for seed in seeds:
        kind, img, truth, _ = scene(seed, faces, tables, long_range, True)
        for o in read_cards(img, deck):
            c = np.float32(o.quad).mean(axis=0)
            on = [r for r, q in truth if cv2.pointPolygonTest(np.float32(q), (float(c[0]), float(c[1])), False) >= 0]
            tag = ("spurious" if o.label != "unknown" else "unknown-paper") if not on else \
                ("right" if o.label == on[0] else "unknown" if o.label == "unknown" else "wrong")
            L, a, b, ch, rc, ra, rb = face_paper(deck, img, o.quad)
            counts = _counted(_mark_areas(_upright(img, np.float32(o.quad)), (MARK_INK,) + tuple(MARK_INK_LEVELS)))
            exm = ex[o.label].max() if o.label in ex else float("nan")
            print(f"seed {seed} {tag:13s} {o.label:8s} conf {o.confidence:.3f} L {L:5.1f} a {a:6.1f} b {b:6.1f} "
                  f"chroma {ch:5.1f} raw {rc:5.1f} ({ra:5.1f},{rb:5.1f}) (label's examples max {exm:.1f}) marks {list(counts)}")


def real(draws: list[int], part: str) -> None:
    import real_cards

    from companion.vision.cards import read_cards
    from companion.vision.imageio import read_image

    boxes = real_cards.load_boxes()
    for draw in draws:
        chosen, held = real_cards.split(boxes, 10, draw)
        deck = real_cards.enrol(boxes, chosen)
        ex = example_chroma(deck)
        print(f"draw {draw} examples' paper chroma (max, median):",
              ", ".join(f"{k} {v.max():.1f}/{np.median(v):.1f}" for k, v in ex.items()))
        for name in real_cards.part_of(held, part):
            img = read_image(real_cards.DATA / "images" / name)
            for o in read_cards(img, deck):
                q = np.array(o.quad)
                ob = (q[:, 0].min(), q[:, 1].min(), q[:, 0].max(), q[:, 1].max())
                ious = [real_cards.iou(ob, b) for _, b in boxes[name]]
                j = int(np.argmax(ious)) if ious else -1
                if j < 0 or ious[j] < 0.5 or o.label != boxes[name][j][0]:
                    continue
                L, a, b, ch, rc, ra, rb = face_paper(deck, img, o.quad)
                print(f"draw {draw} {name} {o.label:8s} L {L:5.1f} a {a:6.1f} b {b:6.1f} chroma {ch:5.1f} "
                      f"raw {rc:5.1f} ({ra:5.1f},{rb:5.1f}) "
                      f"(examples max {ex[o.label].max():.1f})")


def main(argv: list[str] | None = None) -> int:
    from seedargs import seed_list

    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("mode", choices=("covers", "real"))
    p.add_argument("--draw", type=int, default=0)
    p.add_argument("--seeds", type=seed_list, default="10600-10759")
    p.add_argument("--draws", type=seed_list, default="0,1")
    p.add_argument("--part", choices=("dev", "test", "all"), default="dev")
    a = p.parse_args(argv)
    import real_cards

    if not real_cards.DATA.is_dir():
        print(f"skipped: {real_cards.DATA} is missing (the shared datasets sit beside the repo)", file=sys.stderr)
        return 0
    if a.mode == "covers":
        covers(a.draw, a.seeds)
    else:
        real(a.draws, a.part)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
