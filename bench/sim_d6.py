"""Pip dice on simulated table photos: accuracy and speed (issue #7 §1, §5).

    .venv/bin/python bench/sim_d6.py [--seeds 300:320]

Each seed renders a 1280×960 photo of 20 dice (``companion.sim.dice``: faces 40–80 px, some
touching, a camera a little off vertical, light, blur, noise, JPEG); every fifth scene has the
usual ivory dice with black pips, the others coloured dice with light pips (red, blue, green,
black). A reading is right when its centre lies on a die's top face (one reading per die; a second on
the same die is spurious) and it has that face's value,
*unread* when it reports the die with no value. Prints % right, wrong, unread, missed, spurious, and ms per frame and per die (median over the seeds).
Seeds 300 and up were never looked at while building the reader (0–9 were).
"""

from __future__ import annotations

import argparse
import dataclasses
import time

import cv2
import numpy as np
from seedargs import seed_span

COLOURS = [None, ((40, 40, 200), (250, 250, 250)), ((160, 90, 30), (255, 255, 255)),
           ((30, 160, 60), (240, 240, 240)), ((20, 20, 20), (255, 255, 255))]


def score(truth, obs) -> tuple[int, int, int, int]:
    """(right, wrong, unread, spurious) for the readings ``obs`` of one photo whose dice are
    ``truth`` (RenderedDice.dice: (kind, face, top quad)). A reading counts for the first die not
    yet counted whose top face holds its centre; a second reading on a die is spurious."""
    right = wrong = unread = spurious = 0
    used: set[int] = set()
    for o in obs:
        hit = [(k, f) for k, (_, f, q) in enumerate(truth) if k not in used
               and cv2.pointPolygonTest(np.float32(q), (float(o.center[0]), float(o.center[1])), False) >= 0]
        if not hit:
            spurious += 1
            continue
        used.add(hit[0][0])
        if o.face == hit[0][1]:
            right += 1
        elif o.face is None:
            unread += 1
        else:
            wrong += 1
    return right, wrong, unread, spurious


def notes(truth, obs) -> list[str]:
    """One line per die of ``truth`` not read right by ``obs`` and per spurious reading, matched
    as :func:`score`: "a 2 at (x, y) px missed | unread | read 3, touching k dice", "spurious 4 at
    (x, y)". A die touches another when their top faces' centres are at most 1.5 face sides apart
    (px of the photo), which is where pips of two dice can be grouped as one face's."""
    used: dict[int, object] = {}
    out = []
    for o in obs:
        hit = [k for k, (_, _, q) in enumerate(truth) if k not in used
               and cv2.pointPolygonTest(np.float32(q), (float(o.center[0]), float(o.center[1])), False) >= 0]
        if hit:
            used[hit[0]] = o
        else:
            out.append(f"spurious {o.face} at ({o.center[0]:.0f}, {o.center[1]:.0f})")
    centres = [np.float32(q).mean(axis=0) for _, _, q in truth]
    sides = [float(np.linalg.norm(np.float32(q)[1] - np.float32(q)[0])) for _, _, q in truth]
    for k, (_, f, _) in enumerate(truth):
        o = used.get(k)
        if o is not None and o.face == f:
            continue
        near = sum(1 for j in range(len(truth)) if j != k
                   and np.linalg.norm(centres[j] - centres[k]) <= 1.5 * max(sides[j], sides[k]))
        what = "missed" if o is None else "unread" if o.face is None else f"read {o.face}"
        out.append(f"a {f} at ({centres[k][0]:.0f}, {centres[k][1]:.0f}) side {sides[k]:.0f} px {what}, "
                   f"touching {near}")
    return out


def read_all(shots, show: list | None = None) -> dict:
    """Read each simulated photo (an iterable of RenderedDice) with ``read_d6`` and tally
    :func:`score` over them (``show``: the photos' seeds, to print :func:`notes` of each): counts of dice, right, wrong, unread, missed, spurious; the median ms
    per photo and the number of photos."""
    from companion.vision.dice_d6 import read_d6

    n = right = wrong = unread = spurious = 0
    ms = []
    for shot in shots:
        t0 = time.perf_counter()
        obs = read_d6(shot.image)
        ms.append((time.perf_counter() - t0) * 1000)
        n += len(shot.dice)
        r, w, u, s = score(shot.dice, obs)
        if show is not None:  # the photos' labels (seeds), in order: list every die not read right
            for line in notes(shot.dice, obs):
                print(f"  seed {show[len(ms) - 1]}: {line}")
        right, wrong, unread, spurious = right + r, wrong + w, unread + u, spurious + s
    return {"dice": n, "right": right, "wrong": wrong, "unread": unread, "missed": n - right - wrong - unread,
            "spurious": spurious, "ms": float(np.median(ms)), "frames": len(ms)}


def summary(r: dict) -> str:
    """One line of :func:`read_all`'s tally: percentages of the dice rendered."""
    pct = lambda k: 100.0 * r[k] / max(r["dice"], 1)  # noqa: E731
    return (f"{r['dice']} dice: right {pct('right'):.1f} %, wrong {r['wrong']}, unread {r['unread']}, "
            f"missed {r['missed']}, spurious {pct('spurious'):.1f} %")


def scene(seed: int):
    """The simulated photo of ``seed`` (a RenderedDice): 20 dice, coloured per ``COLOURS``."""
    from companion.sim.dice import random_dice_specs, render_dice

    rng = np.random.default_rng(seed)
    specs = random_dice_specs("d6", 20, size=(1280, 960), rng=rng)
    col = COLOURS[seed % len(COLOURS)]
    if col:
        specs = [dataclasses.replace(s, body_bgr=col[0], pip_bgr=col[1]) for s in specs]
    return render_dice(specs, rng=rng)


def run(seeds: range, show: bool = False) -> dict:
    return read_all((scene(seed) for seed in seeds), list(seeds) if show else None)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seeds", type=seed_span, default="300:320", help="FIRST:END (END excluded)")
    ap.add_argument("--show", action="store_true", help="print every die not read right")
    a = ap.parse_args(argv)
    r = run(a.seeds, a.show)
    print(f"seeds {a.seeds.start}:{a.seeds.stop}: {r['frames']} frames, {summary(r)}, {r['ms']:.0f} ms per 1280×960 frame "
          f"({r['ms'] / 20:.1f} ms per die)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
