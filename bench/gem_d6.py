"""Pip dice of clear dyed plastic in a wooden tray, as a phone sees them (issue #7 §1).

    .venv/bin/python bench/gem_d6.py [--seeds 400:420] [--size 4032x3024] [--save DIR]

The issue keeps back real photos from a second camera: a phone (4032×3024) over translucent
coloured dice in a wooden tray. We have none, so this bench draws the nearest thing we can
(``companion.sim.dice`` with ``translucency``): 5–12 dice per photo, faces 120–260 px (a phone
30–50 cm over a 16 mm die), each of a random "gem" colour and 0.3–0.7 translucent, so the table
shows through the body, dyed, and the pips of the face lying on the table show faintly through the
top, mirrored; on a wood floor of a random brown, with the usual light, blur, noise and JPEG.
It is a probe of how the reader generalises, not a figure for the issue's held-back photos.

Scoring as ``bench/sim_d6.py`` (a reading on a die's top face with its value is right). Prints %
right, wrong, unread, missed, spurious, and ms per photo (median). Seeds 0–59 were looked at
(their failures one by one); the default seeds 400–419 were only ever measured.

The render leaves out refraction (the face below shows where it lies, not lifted towards the
top), the side faces' pips seen through the body, and the dye's density (a dark die lets the table
through as a light one does), so it is kinder than real clear dice in those respects.
"""

from __future__ import annotations

import argparse
import dataclasses
from pathlib import Path

import numpy as np

from seedargs import frame_size, seed_span
from sim_d6 import read_all, summary

#: (body, pips) BGR of common translucent dice: red, blue, green, purple, orange, smoke (white
#: pips), yellow (black pips).
GEMS = [((40, 30, 190), (245, 245, 245)), ((170, 70, 30), (245, 245, 245)), ((60, 150, 30), (245, 245, 245)),
        ((130, 40, 110), (245, 245, 245)), ((30, 120, 240), (245, 245, 245)), ((90, 90, 90), (245, 245, 245)),
        ((40, 200, 235), (25, 25, 25))]


def scene(seed: int, size: tuple[int, int]):
    """The simulated photo of ``seed`` (a RenderedDice), at ``size`` (w, h) px."""
    from companion.sim.dice import random_dice_specs, render_dice
    from companion.sim.table import ShotConditions

    rng = np.random.default_rng(seed)
    k = size[0] / 4032  # faces scale with the frame, so a smaller --size is the same photo shrunk
    specs = random_dice_specs("d6", int(rng.integers(5, 13)), size=size, rng=rng, face_px=(120 * k, 260 * k))
    gems = [GEMS[int(rng.integers(len(GEMS)))] for _ in specs]
    specs = [dataclasses.replace(s, body_bgr=g[0], pip_bgr=g[1], translucency=float(rng.uniform(0.3, 0.7)))
             for s, g in zip(specs, gems)]
    red = float(rng.uniform(130, 200))  # wood: red over green over blue
    wood = (int(red * rng.uniform(0.3, 0.5)), int(red * rng.uniform(0.6, 0.75)), int(red))
    cond = dataclasses.replace(ShotConditions.random(rng), background="wood", background_bgr=wood)
    return render_dice(specs, size=size, rng=rng, conditions=cond)


def run(seeds: range, size: tuple[int, int], save: Path | None = None, show: bool = False) -> dict:
    """``sim_d6.read_all`` over the photos of ``seeds``, each written to ``save`` first if given."""
    import cv2

    def shots():
        for seed in seeds:
            shot = scene(seed, size)
            if save is not None:
                save.mkdir(parents=True, exist_ok=True)
                cv2.imwrite(str(save / f"gem_{seed}.jpg"), shot.image)
            yield shot

    return read_all(shots(), list(seeds) if show else None)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seeds", type=seed_span, default="400:420", help="FIRST:END (END excluded)")
    ap.add_argument("--size", type=frame_size, default="4032x3024", help="WxH px")
    ap.add_argument("--save", type=Path, help="write each photo here as gem_SEED.jpg")
    ap.add_argument("--show", action="store_true", help="print every die not read right")
    a = ap.parse_args(argv)
    w, h = a.size
    r = run(a.seeds, (w, h), a.save, a.show)
    print(f"gem dice, seeds {a.seeds.start}:{a.seeds.stop}, {w}×{h}: {r['frames']} photos, {summary(r)}, "
          f"{r['ms']:.0f} ms per photo (median)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
