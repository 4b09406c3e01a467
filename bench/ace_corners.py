"""Trace: the corner index of what the card reader names "ace" (issue #6, stop 49 ``ace49``).

    .venv/bin/python bench/ace_corners.py covers --draw 50 --seeds 13500-13599 [--crops DIR]
    .venv/bin/python bench/ace_corners.py real --draws 0,1 [--part dev] [--crops DIR]
    .venv/bin/python bench/ace_corners.py cpu --draws 0 [--part test]

A real ace shows its corner index (a rank letter and a small suit, top-left and, turned, bottom-
right); a coloured paper with one dot (``bench/real_covers.py --dotted``) shows nothing there.
This prints, per reading of a mostly-paper label (``Deck.mostly_paper``), its corner match
(:meth:`Deck.corner_match`: the best normalised correlation of either corner of the face with
either corner of one of the label's examples) and tags it right / unknown / spurious (covers) or
right (real photos). ``cpu``: ``read_cards``' CPU time (``time.process_time``) on each held-out
photo with ``cards._without_bare_index`` and without it (main's path), the order alternating photo by
photo in one process; the medians and the total ratio.
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


def _unrefused(cards):
    """``cards.read_cards`` as main reads (``cards._without_bare_index`` left out), so the trace
    shows the readings the rule judges, refused or not."""
    cards._without_bare_index = lambda frame, deck, readings: readings
    return cards.read_cards


def _rel(deck, img, quad, name) -> float:
    from companion.vision.deck import frame_white
    c = deck.paper_cast(img, np.float32(quad), deck.labels.index(name))
    return float("nan") if c is None else float(np.hypot(*(c - frame_white(img))))


def _cast(deck, img, quad, name) -> float:
    c = deck.paper_cast(img, np.float32(quad), deck.labels.index(name))
    return float("nan") if c is None else float(np.hypot(*c))


DUMP: list = []  # (tag, fine patch with margin) of every reading traced, for --dump


def _patch(img, quad):
    from companion.vision import deck as dk
    return dk.fine_patch(img, np.asarray(quad, np.float32))


def _crop(img, quad, path):
    from companion.vision import deck as dk
    p = dk.fine_patch(img, np.asarray(quad, np.float32))
    cv2.imwrite(str(path), cv2.resize(p, None, fx=3, fy=3, interpolation=cv2.INTER_NEAREST))


def covers(draw: int, seeds: list[int], crops: Path | None) -> None:
    from real_covers import scene
    from real_fans import sources

    from companion.vision import cards

    read_cards = _unrefused(cards)
    deck, faces, tables, long_range = sources(draw)
    for seed in seeds:
        kind, img, truth, _ = scene(seed, faces, tables, long_range, True)
        for o in read_cards(img, deck):
            if o.label == "unknown" or not deck.mostly_paper(deck.labels.index(o.label)):
                continue
            c = np.float32(o.quad).mean(axis=0)
            on = [r for r, q in truth if cv2.pointPolygonTest(np.float32(q), (float(c[0]), float(c[1])), False) >= 0]
            tag = "spurious" if not on else ("right" if o.label == on[0] else "wrong")
            m = deck.corner_match(img, np.float32(o.quad), deck.labels.index(o.label))
            print(f"draw {draw} seed {seed} {tag:9s} {o.label:6s} conf {o.confidence:.3f} corner {-9 if m is None else m:.3f} cast {_cast(deck, img, o.quad, o.label):.1f} rel {_rel(deck, img, o.quad, o.label):.1f}")
            if crops:
                _crop(img, o.quad, crops / f"d{draw}_{seed}_{tag}_{o.label}.png")
            DUMP.append((f"covers {draw} {seed} {tag} {o.label}", _patch(img, o.quad)))


def real(draws: list[int], part: str, crops: Path | None) -> None:
    import real_cards

    from companion.vision import cards
    from companion.vision.imageio import read_image

    read_cards = _unrefused(cards)
    boxes = real_cards.load_boxes()
    for draw in draws:
        chosen, held = real_cards.split(boxes, 10, draw)
        deck = real_cards.enrol(boxes, chosen)
        for name in real_cards.part_of(held, part):
            img = read_image(real_cards.DATA / "images" / name)
            for o in read_cards(img, deck):
                if o.label == "unknown" or not deck.mostly_paper(deck.labels.index(o.label)):
                    continue
                q = np.array(o.quad)
                ob = (q[:, 0].min(), q[:, 1].min(), q[:, 0].max(), q[:, 1].max())
                ious = [real_cards.iou(ob, b) for _, b in boxes[name]]
                j = int(np.argmax(ious))
                tag = "right" if ious[j] >= 0.5 and boxes[name][j][0] == o.label else "other"
                m = deck.corner_match(img, np.float32(o.quad), deck.labels.index(o.label))
                print(f"draw {draw} {name} {tag:6s} {o.label:6s} conf {o.confidence:.3f} corner {-9 if m is None else m:.3f} cast {_cast(deck, img, o.quad, o.label):.1f} rel {_rel(deck, img, o.quad, o.label):.1f}")
                if crops:
                    _crop(img, o.quad, crops / f"real{draw}_{Path(name).stem}_{int(ob[0])}_{tag}.png")
                DUMP.append((f"real {draw} {name} {tag} {o.label}", _patch(img, o.quad)))


def cpu(draws: list[int], part: str) -> None:
    import time

    import real_cards

    from companion.vision import cards
    from companion.vision.imageio import read_image

    boxes = real_cards.load_boxes()
    rule = cards._without_bare_index
    off = lambda frame, deck, readings: readings  # noqa: E731 (main's path)
    for draw in draws:
        chosen, held = real_cards.split(boxes, 10, draw)
        deck = real_cards.enrol(boxes, chosen)
        ms = {"branch": [], "main": []}
        for k, name in enumerate(real_cards.part_of(held, part)):
            img = read_image(real_cards.DATA / "images" / name)
            for which in (("branch", "main") if k % 2 == 0 else ("main", "branch")):
                cards._without_bare_index = rule if which == "branch" else off
                t0 = time.process_time()
                cards.read_cards(img, deck)
                ms[which].append(1000 * (time.process_time() - t0))
        cards._without_bare_index = rule
        b, m = np.array(ms["branch"]), np.array(ms["main"])
        print(f"draw {draw} {part}: {len(b)} photos, CPU ms a photo median branch {np.median(b):.1f} main "
              f"{np.median(m):.1f}; mean {b.mean():.1f} / {m.mean():.1f} (x{b.sum() / m.sum():.3f})")


def main(argv: list[str] | None = None) -> int:
    from seedargs import seed_list

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("what", choices=("covers", "real", "cpu"))
    p.add_argument("--draw", type=int, default=0)
    p.add_argument("--seeds", type=seed_list, default="13500-13599")
    p.add_argument("--draws", default="0,1")
    p.add_argument("--part", default="dev", choices=("dev", "test", "all"))
    p.add_argument("--crops")
    p.add_argument("--dump", help="write every traced reading's fine patch (with margin) to this .npz")
    a = p.parse_args(argv)
    crops = Path(a.crops) if a.crops else None
    if crops and not crops.is_dir():
        p.error(f"--crops {a.crops!r} is not a folder")
    try:
        draws = [int(d) for d in a.draws.split(",")]
    except ValueError:
        p.error(f"--draws {a.draws!r}: give draws as 0,1")
    if a.what == "covers":
        covers(a.draw, a.seeds, crops)
    elif a.what == "cpu":
        cpu(draws, a.part)
    else:
        real(draws, a.part, crops)
    if a.dump:
        np.savez_compressed(a.dump, tags=np.array([t for t, _ in DUMP]), patches=np.stack([q for _, q in DUMP]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
