"""Clear pip dice more see-through than ``bench/gem_d6.py`` draws, under harsh light (issue #7 §1).

    .venv/bin/python bench/gem_hot.py [--seeds 300:340] [--case NAME ...] [--show]

A very clear die (0.75–0.9 translucent) lets so much table through that its pips are found by
their cores only: a two's two pips then lie further apart, in pip widths, than one face's pips
are grouped (``dice_d6.GROUP_REACH``), are grouped apart, and one of them is read as a lone one
(a one's face fitted round it): a two read **1**, the worst outcome (README, *Known limits*,
"see-through twos"). Each case draws photos of eight clear gem dice (``bench/gem_d6.py``'s
colours, on wood; 1280×960, faces 40–80 px) at translucency 0.75–0.9, under harsh light (as
``bench/gem_probe.py``'s ``opaque-plain``: a 0.3–0.6 light gradient, a tilted camera showing side
faces, 2–6 grey levels of noise, JPEG 55–80):

* ``two``: twos, each alone (the fault);
* ``ones-near``: four pairs of ones, each pair side by side (same turn, 0–0.15 face sides
  apart, side to side or corner to corner): two ones' pips lie about a two's diagonal apart in pip
  widths; a fix that reads them as one two or one null die is wrong;
* ``mixed``: random faces, half the dice pushed against another;
* ``opaque``: the ``two`` and ``ones-near`` layouts with opaque dice of the usual colours (what
  the fix must leave as it was).

Scored as ``bench/sim_d6.py``; prints per case right, wrong, unread, missed, spurious, and the
wrong readings as "true→read" counts. Seeds 300–339 were used to tune the fix (``dice_d6.far_mates``),
340–399 were looked at after a first held-out run, 400–459 were read once by a version before the
last change; 460–519 were first run on the final code (README, *Known limits*).
"""

from __future__ import annotations

import argparse
import collections
import dataclasses
import math
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from gem_d6 import GEMS  # noqa: E402
from seedargs import seed_span  # noqa: E402
from sim_d6 import notes, score  # noqa: E402

CASES = ("two", "ones-near", "mixed", "opaque")


def _harsh(rng: np.random.Generator):
    """Harsh light on a wood floor (as ``gem_probe``'s ``opaque-plain``, on ``gem_d6``'s wood)."""
    from companion.sim.table import ShotConditions

    red = float(rng.uniform(130, 200))
    wood = (int(red * rng.uniform(0.3, 0.5)), int(red * rng.uniform(0.6, 0.75)), int(red))
    return dataclasses.replace(ShotConditions.random(rng), background="wood", background_bgr=wood,
                               light_gradient=float(rng.uniform(0.3, 0.6)),
                               tilt=(float(rng.uniform(-0.15, 0.15)), float(rng.uniform(-0.15, 0.15))),
                               noise_sigma=float(rng.uniform(2.0, 6.0)), jpeg_quality=int(rng.integers(55, 81)))


def _pairs(rng: np.random.Generator, face: str) -> list:
    """Four pairs of dice showing ``face``, each pair side by side (same turn, 0–0.15 sides
    apart; side to side, or every other pair corner to corner)."""
    from companion.sim.dice import DieSpec

    out = []
    for i in range(4):
        s = float(rng.uniform(40, 80))
        rot = float(rng.uniform(0, 90))
        gap = float(rng.uniform(0.0, 0.15)) * s
        a = math.radians(rot)
        ux, uy = math.cos(a), -math.sin(a)  # the die's own x axis in the image (turned counter-clockwise)
        vx, vy = -uy, ux
        if rng.random() < 0.5:
            dx, dy = (s + gap) * ux, (s + gap) * uy  # side to side
        else:
            dx, dy = (s + gap) * (ux + vx), (s + gap) * (uy + vy)  # corner to corner
        cx = 260.0 + 520 * (i % 2) + rng.uniform(-30, 30)
        cy = 250.0 + 460 * (i // 2) + rng.uniform(-30, 30)
        out += [DieSpec("d6", face, (cx - dx / 2, cy - dy / 2), rot, s),
                DieSpec("d6", face, (cx + dx / 2, cy + dy / 2), rot, s)]
    return out


def photo(case: str, seed: int):
    """The RenderedDice of ``case`` for ``seed`` (see the module doc)."""
    from companion.sim.dice import DieSpec, random_dice_specs, render_dice

    rng = np.random.default_rng(7000 * seed + CASES.index(case))
    if case == "two":
        specs = [DieSpec("d6", "2", (160.0 + 320 * (i % 4) + rng.uniform(-30, 30),
                                     250.0 + 460 * (i // 4) + rng.uniform(-30, 30)),
                         float(rng.uniform(0, 90)), float(rng.uniform(40, 80))) for i in range(8)]
    elif case == "ones-near":
        specs = _pairs(rng, "1")
    elif case == "mixed":
        specs = random_dice_specs("d6", 8, size=(1280, 960), rng=rng, face_px=(40, 80), touching=0.5)
    else:  # opaque: twos apart and pairs of ones side by side, the usual colours
        specs = _pairs(rng, "1")[:4] + [DieSpec("d6", "2", (160.0 + 320 * i + rng.uniform(-30, 30), 710.0),
                                                float(rng.uniform(0, 90)), float(rng.uniform(40, 80)))
                                        for i in range(4)]
        return render_dice(specs, size=(1280, 960), rng=rng, conditions=_harsh(rng))
    gems = [GEMS[int(rng.integers(len(GEMS)))] for _ in specs]
    specs = [dataclasses.replace(s, body_bgr=g[0], pip_bgr=g[1], translucency=float(rng.uniform(0.75, 0.9)))
             for s, g in zip(specs, gems)]
    return render_dice(specs, size=(1280, 960), rng=rng, conditions=_harsh(rng))


def run(case: str, seeds: range, show: bool = False) -> tuple[np.ndarray, collections.Counter]:
    """(dice, right, wrong, unread, spurious) over ``seeds`` of ``case``, and the wrong readings
    counted as "true→read"."""
    import cv2

    from companion.vision.dice_d6 import read_d6

    tally = np.zeros(5, int)
    wrongs: collections.Counter = collections.Counter()
    for seed in seeds:
        shot = photo(case, seed)
        obs = read_d6(shot.image)
        r, w, u, s = score(shot.dice, obs)
        tally += (len(shot.dice), r, w, u, s)
        used: set[int] = set()
        for o in obs:  # matched as score does
            hit = [k for k, (_, _, q) in enumerate(shot.dice) if k not in used
                   and cv2.pointPolygonTest(np.float32(q), (float(o.center[0]), float(o.center[1])), False) >= 0]
            if hit:
                used.add(hit[0])
                truth = shot.dice[hit[0]][1]
                if o.face is not None and o.face != truth:
                    wrongs[f"{truth}→{o.face}"] += 1
        if show:
            for line in notes(shot.dice, obs):
                print(f"  {case} seed {seed}: {line}")
    return tally, wrongs


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seeds", type=seed_span, default="300:340", help="FIRST:END (END excluded)")
    ap.add_argument("--case", nargs="*", default=list(CASES), choices=list(CASES))
    ap.add_argument("--show", action="store_true", help="print every die not read right")
    a = ap.parse_args(argv)
    for case in a.case:
        (n, r, w, u, s), wrongs = run(case, a.seeds, a.show)
        print(f"{case:10s} {n} dice: right {r}, wrong {w}, unread {u}, missed {n - r - w - u}, spurious {s}"
              + (f"  ({', '.join(f'{k} {v}' for k, v in sorted(wrongs.items()))})" if wrongs else ""))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
