"""Reading a Sushi Roll table from simulated frames: accuracy and speed (issue #10).

    .venv/bin/python bench/roll_read.py [--seeds 5000:5040] [--size 2028x1520] [--style ours]

Each seed plays a random Sushi Roll game (2–5 players, drawn from the seed) to a random turn,
lays its belts and trays on the Sushi Roll mat (``companion.sim.roll_table.layout_dice``: any
turn, random places, a nigiri taken onto a wasabi stands on it), renders one frame with random
camera, table and light (``ShotConditions.random``: tilt, roll, blur, noise, JPEG, shadows) and
reads it with ``companion.app.roll_table.read_roll_table``, the dice enrolled from the style's
flat faces (``die_face``, 128 px, one image per face).

A reading *matches* a die the camera can see (not under another die) when its centre lies within
8 mm (half a die) of where that die's top face centre lands on the mat; one reading per die. A die
is *right* when the matching reading has its face and lies in its zone (seat and belt/tray),
*misplaced* when it has its face in another zone or loose, *wrong* when another face,
*unknown* when ``"unknown"``, *missed* when nothing matches; a reading that matches no die is
*spurious*. Percentages are of the dice the camera can see.

Speed (median ms over the seeds): rendering a frame (``render_roll_table`` with the conditions of
a stream: the first frame of new conditions builds the table, the light and the noise once, and
is timed separately), and reading it (``read_roll_table``: mat, warping the tiles, icon reader).
Seeds used while building the reader: 0–99 (``--seeds 0:100``); the figures reported come from
seeds never looked at while building (5000 and up). Timing lives here, never in tests.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import time
from collections import Counter

import numpy as np

FACE_PX = 128
MATCH_MM = 8.0


def enrol(style: str):
    """The dice enrolled from ``style``'s flat faces, one 128 px image per face."""
    from companion.sim.dice import die_face, sushi_roll_faces
    from companion.vision.dice_icons import enroll_dice_images

    return enroll_dice_images({f: [die_face(k, f, FACE_PX, style=style)]
                               for k, faces in sushi_roll_faces().items() for f in faces})


def game_state(seed: int):
    """A random game at a random turn of a random round: (state, players)."""
    from companion.rules.sushi_roll import apply, new_game, random_action
    from companion.rules.sushi_roll.state import Phase

    r = random.Random(seed)
    players = r.randint(2, 5)
    state = new_game([f"P{i + 1}" for i in range(players)], r)
    steps = r.randint(1, 60)
    for _ in range(steps):
        nxt = apply(state, random_action(state, r), r)
        if nxt.phase is Phase.OVER:
            break
        state = nxt
    if state.phase is not Phase.TURN:
        state = apply(state, random_action(state, r), r)
    return state, players


def scene(seed: int, size: tuple[int, int], style: str):
    """(layout, the rendered frame) for one seed (module doc)."""
    from companion.sim.roll_table import layout_dice, render_roll_table
    from companion.vision.mat_layout import load_mat_layout

    state, players = game_state(seed)
    layout = load_mat_layout(players, game="sushi-roll")
    rng = np.random.default_rng(seed)
    dice = layout_dice(layout, state.belts, state.trays, rng)
    return layout, render_roll_table(layout, dice, size=size, rng=rng, style=style)


def seen_centres(shot) -> list[tuple[float, float]]:
    """Where each die's top face centre lands on the mat (mm), as the reader reports it."""
    from companion.vision.mat import to_mat_mm

    inv = np.linalg.inv(shot.homography)
    return [tuple(to_mat_mm(inv, q.mean(axis=0))[0]) for q in shot.quads]


def score(read, shot) -> Counter:
    """Counts of right / misplaced / wrong / unknown / missed dice and spurious readings."""
    c: Counter = Counter()
    readings = [(d, "belt", s) for s, ds in enumerate(read.belts) for d in ds]
    readings += [(d, "tray", s) for s, ds in enumerate(read.trays) for d in ds]
    readings += [(d, "loose", None) for d in read.loose]
    used: set[int] = set()
    for die, centre in zip(shot.dice, seen_centres(shot)):
        if not die.visible:
            continue
        c["dice"] += 1
        near = [(math.dist(r[0].center_mm, centre), i) for i, r in enumerate(readings) if i not in used]
        near = [(d, i) for d, i in near if d <= MATCH_MM]
        if not near:
            c["missed"] += 1
            continue
        _, i = min(near)
        used.add(i)
        got, kind, seat = readings[i]
        if got.face == die.face:
            c["right" if (kind, seat) == (die.zone, die.seat) else "misplaced"] += 1
        else:
            c["unknown" if got.face == "unknown" else "wrong"] += 1
    c["spurious"] = len(readings) - len(used)
    return c


def main(argv=None) -> int:
    from companion.app.roll_table import read_roll_table
    from companion.sim.roll_table import render_roll_table
    from companion.sim.table import ShotConditions
    from companion.vision.mat import MatTracker

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", default="5000:5040", help="first:last (exclusive), default 5000:5040")
    ap.add_argument("--size", default="2028x1520", help="frame WxH, default 2028x1520 (the Pi's main stream)")
    ap.add_argument("--style", default="ours", choices=("ours", "second"))
    ap.add_argument("--ppm", type=float, default=None, help="tile scale, px/mm (default the reader's)")
    ap.add_argument("--show", action="store_true", help="print each seed's failures")
    args = ap.parse_args(argv)
    a, b = (int(v) for v in args.seeds.split(":"))
    size = tuple(int(v) for v in args.size.lower().split("x"))
    dice = enrol(args.style)
    total: Counter = Counter()
    read_ms, parts = [], {"mat_ms": [], "warp_ms": [], "read_ms": []}
    for seed in range(a, b):
        layout, shot = scene(seed, size, args.style)
        timings: dict = {}
        t0 = time.perf_counter()
        kw = {} if args.ppm is None else {"px_per_mm": args.ppm}
        read = read_roll_table(shot.image, MatTracker(layout), layout, dice, timings=timings, **kw)
        read_ms.append((time.perf_counter() - t0) * 1000)
        for k in parts:
            parts[k].append(timings.get(k, 0.0))
        if read is None:
            print(f"seed {seed}: mat not found")
            total["no_mat"] += 1
            continue
        c = score(read, shot)
        total += c
        if args.show and (c["dice"] != c["right"] or c["spurious"]):
            print(f"seed {seed} ({layout.name}): {dict(c)}")
    n = total["dice"]
    pct = lambda k: 100.0 * total[k] / max(n, 1)  # noqa: E731
    print(f"seeds {a}:{b}, {args.size}, style {args.style}: {n} dice the camera sees")
    for k in ("right", "misplaced", "wrong", "unknown", "missed", "spurious"):
        print(f"  {k:10s} {total[k]:5d}  {pct(k):6.2f} %")
    print(f"  read: median {statistics.median(read_ms):.0f} ms per frame "
          + ", ".join(f"{k[:-3]} {statistics.median(v):.0f} ms" for k, v in parts.items()))

    # Rendering speed, as a stream renders it: one camera and light, a new table each frame.
    layout, _ = scene(a, size, args.style)
    from companion.sim.roll_table import layout_dice

    state, _ = game_state(a)
    rng = np.random.default_rng(a)
    cond = ShotConditions.random(rng)
    sim = layout_dice(layout, state.belts, state.trays, rng)
    t0 = time.perf_counter()
    render_roll_table(layout, sim, size=size, rng=rng, conditions=cond)
    first = (time.perf_counter() - t0) * 1000
    times = []
    for _ in range(20):
        t0 = time.perf_counter()
        render_roll_table(layout, sim, size=size, rng=rng, conditions=cond)
        times.append((time.perf_counter() - t0) * 1000)
    print(f"  render {size[0]}x{size[1]} with {len(sim)} dice: median {statistics.median(times):.0f} ms per frame "
          f"(first frame of new conditions {first:.0f} ms)")
    for w, h in ((1280, 960),) if size != (1280, 960) else ():
        render_roll_table(layout, sim, size=(w, h), rng=rng, conditions=cond)
        times = []
        for _ in range(20):
            t0 = time.perf_counter()
            render_roll_table(layout, sim, size=(w, h), rng=rng, conditions=cond)
            times.append((time.perf_counter() - t0) * 1000)
        print(f"  render {w}x{h}: median {statistics.median(times):.0f} ms per frame")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
