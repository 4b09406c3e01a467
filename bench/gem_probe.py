"""Clear dice drawn to trip a reader that lets faint marks off a face's body (issue #7 §1).

    .venv/bin/python bench/gem_probe.py [--seeds 0:20] [--case NAME ...]

A faint mark on a die's face may be the face lying on the table seen through a clear die, or a
pip of the top face that is worn, half filled or under glare. A reader that lets such marks off
the body's plain colour may so read a worn five as a four (README, "Clear dice: a face's faint
marks ... reverted after review"). Each case draws photos of eight clear gem dice (as
``bench/gem_d6.py``: 0.3–0.7 translucent, gem colours, on wood; 1280×960, faces 40–80 px, the
working size of a phone photo) all of one kind, some pips drawn at a fraction (0.3–0.7, per
photo) of a pip's contrast, or dice pushed against each other:

* ``five-centre``: fives whose centre pip is faint (a four over a three looks so);
* ``five-diagonal``, ``five-corner``: fives with two diagonal corner pips faint, or one;
* ``six-middles``: sixes with both middle pips faint (a four with its ghost);
* ``six-one``: sixes with one pip faint;
* ``three-centre``, ``three-corners``: threes with the centre or both corner pips faint;
* ``four-over-three``: plain fours (their three below shows through at the centre);
* ``one``: plain ones (their six below shows through round the pip);
* ``touching``: random faces, nine in ten dice pushed against another;
* ``opaque-plain``: plain opaque dice (default colours, as real ones) showing 1, 2, 3 or 4, the
  faces whose layout a larger face's holds, under harsh light (a 0.3–0.6 light gradient, a tilted
  camera showing side faces, 2–6 grey levels of noise, JPEG 55–80): a reader that takes shading,
  a side face's edge or JPEG for a worn pip leaves these unread.

Prints per case right, wrong, unread, missed, spurious (scored as ``bench/sim_d6.py``). The
faint pips are drawn by painting the pip at the fraction's mix of pip and body colour
(``companion.sim.dice_art.draw_pips``, patched for the run); the face below is drawn as usual.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from gem_d6 import GEMS  # noqa: E402
from seedargs import seed_span  # noqa: E402
from sim_d6 import score  # noqa: E402

#: case: (top value, indices of its pips drawn faint in ``draw_pips``' order, or "touching").
CASES = {
    "five-centre": (5, (2,)),
    "five-diagonal": (5, (0, 4)),
    "five-corner": (5, (1,)),
    "six-middles": (6, (1, 4)),
    "six-one": (6, (2,)),
    "three-centre": (3, (1,)),
    "three-corners": (3, (0, 2)),
    "four-over-three": (4, ()),
    "one": (1, ()),
    "touching": (None, ()),
    "opaque-plain": ("opaque", ()),
}


def _patched_pips(value: int, faint: tuple[int, ...], frac: float):
    """``dice_art.draw_pips`` drawing the pips ``faint`` of a ``value`` face at ``frac`` of the
    pip colour's contrast to the body (read off the art's corner, still plain when called)."""
    from companion.sim import dice_art

    original = dice_art.draw_pips

    def draw(img, v, pip):
        if v != value or not faint:
            return original(img, v, pip)
        body = img[0, 0].astype(np.float64)
        layer = img.copy()
        original(layer, v, pip)
        # A clear die's painted pip is drawn over the see-through body in proportion to how far
        # its colour is off the body's (dice._see_through), so a pip of colour fraction f shows
        # at about f² of a pip's contrast: f = √frac.
        weak = img.copy()
        f = frac ** 0.5
        original(weak, v, tuple(int(round(b + f * (p - b))) for b, p in zip(body, pip)))
        # Which pip each px belongs to: the nearest of the value's pip centres (draw_pips' order).
        s = img.shape[0]
        lo, mid, hi = 0.25, 0.5, 0.75
        centres = {5: [(lo, lo), (hi, lo), (mid, mid), (lo, hi), (hi, hi)],
                   6: [(lo, lo), (lo, mid), (lo, hi), (hi, lo), (hi, mid), (hi, hi)],
                   3: [(lo, lo), (mid, mid), (hi, hi)]}[v]
        yy, xx = np.mgrid[0:s, 0:s] / s
        near = np.argmin([(xx - cx) ** 2 + (yy - cy) ** 2 for cx, cy in centres], axis=0)
        pick = np.isin(near, faint)[..., None]
        img[:] = np.where(pick, weak, layer)

    return original, draw


def photo(case: str, seed: int):
    """The RenderedDice of ``case`` for ``seed`` (see the module doc)."""
    from companion.sim import dice as sim_dice
    from companion.sim import dice_art
    from companion.sim.dice import DieSpec, random_dice_specs, render_dice
    from companion.sim.table import ShotConditions

    value, faint = CASES[case]
    rng = np.random.default_rng(1000 * seed + list(CASES).index(case))
    frac = float(rng.uniform(0.3, 0.7))
    if value == "opaque":
        specs = random_dice_specs("d6", 8, size=(1280, 960), rng=rng, face_px=(40, 80), touching=0.25)
        specs = [dataclasses.replace(s, face=str(int(rng.choice([1, 2, 3, 4])))) for s in specs]
        cond = dataclasses.replace(ShotConditions.random(rng), light_gradient=float(rng.uniform(0.3, 0.6)),
                                   tilt=(float(rng.uniform(-0.15, 0.15)), float(rng.uniform(-0.15, 0.15))),
                                   noise_sigma=float(rng.uniform(2.0, 6.0)), jpeg_quality=int(rng.integers(55, 81)))
        return render_dice(specs, size=(1280, 960), rng=rng, conditions=cond)
    if value is None:
        specs = random_dice_specs("d6", 8, size=(1280, 960), rng=rng, face_px=(40, 80), touching=0.9)
    else:
        specs = [DieSpec("d6", str(value), (160.0 + 320 * (i % 4) + rng.uniform(-30, 30),
                                            250.0 + 460 * (i // 4) + rng.uniform(-30, 30)),
                         float(rng.uniform(0, 90)), float(rng.uniform(40, 80))) for i in range(8)]
    gems = [GEMS[int(rng.integers(len(GEMS)))] for _ in specs]
    specs = [dataclasses.replace(s, body_bgr=g[0], pip_bgr=g[1], translucency=float(rng.uniform(0.3, 0.7)))
             for s, g in zip(specs, gems)]
    red = float(rng.uniform(130, 200))
    wood = (int(red * rng.uniform(0.3, 0.5)), int(red * rng.uniform(0.6, 0.75)), int(red))
    cond = dataclasses.replace(ShotConditions.random(rng), background="wood", background_bgr=wood)
    original, draw = _patched_pips(value or 0, faint, frac)
    dice_art.draw_pips = draw
    sim_dice._face_cached.cache_clear()
    try:
        return render_dice(specs, size=(1280, 960), rng=rng, conditions=cond)
    finally:
        dice_art.draw_pips = original
        sim_dice._face_cached.cache_clear()


def main(argv: list[str] | None = None) -> int:
    from companion.vision.dice_d6 import read_d6

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seeds", type=seed_span, default="0:20", help="FIRST:END (END excluded)")
    ap.add_argument("--case", nargs="*", default=list(CASES), choices=list(CASES))
    ap.add_argument("--show", action="store_true", help="print every die not read right")
    a = ap.parse_args(argv)
    for case in a.case:
        tally = np.zeros(5, int)  # dice, right, wrong, unread, spurious
        for seed in a.seeds:
            shot = photo(case, seed)
            obs = read_d6(shot.image)
            r, w, u, s = score(shot.dice, obs)
            tally += (len(shot.dice), r, w, u, s)
            if a.show and (w or s):
                print(f"  {case} seed {seed}: wrong {w}, spurious {s}: "
                      f"{sorted(((o.face, round(o.confidence, 2)) for o in obs), key=str)}")
        n, r, w, u, s = tally
        print(f"{case:16s} {n} dice: right {r}, wrong {w}, unread {u}, missed {n - r - w - u}, spurious {s}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
