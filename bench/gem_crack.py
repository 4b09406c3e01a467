"""Clear dice drawn to test a two split by a dark line, and the phantoms a cure may let in (issue #7 §1).

    .venv/bin/python bench/gem_crack.py [--seeds 0:16] [--case NAME ...] [--show]

Main reads a two split by a dark line between its pips (a crack, a hair, a dark scratch along its
bare diagonal) as one or two ones: the line is a dip to ``dice_d6.seam_across``, so the two is
refused as a phantom across the seam of two touching dice. Stop 42's benches for it (``crack.py``,
``gem_gloss.py`` and its review's drawn scenes) were lost; this script draws their cases again.
Each case draws 1280 × 960 photos of eight clear gem dice (as ``bench/gem_probe.py``: gem colours
of ``bench/gem_d6.py``, 0.3–0.7 translucent, faces 40–80 px, on wood) of one kind:

* ``crack-two``: twos split by a dark line along the bare diagonal (0.02–0.05 of the edge wide,
  0.5–0.9 of the way from the body's colour to black, up to 0.08 of the edge off the centre);
* ``crack-other``: threes to sixes, a like line through the face at a random angle;
* ``gloss-two``: twos with a soft light streak (a gloss, 0.06–0.14 of the edge wide, 0.3–0.6 of the
  way to white) along the bare diagonal, which a seam check also sees as a bump;
* ``like-dark-ones``: four pairs of touching ones, both of one dark translucent colour (dark red
  (30, 25, 110) as stop 42's review drew, or dark blue or smoke): a phantom two across the seam;
* ``like-dark-twos``: the same with twos (their pips near the seam make a small phantom);
* ``spot-one``: translucent brown ones, the wood's own hue (a clear die takes the table's colour),
  each beside a light spot of a pip's size on the wood (0.6–0.95 of the edge off its centre): a
  phantom two of pip and spot;
* ``touching-low``: ones and twos, nine in ten pushed against another, of gem, black (light pips)
  and ivory (dark pips) plastic, clear or opaque.

Two cases are the review of ``gem45``'s drawn adversaries, copied from its ``adv.py`` (the same
random streams, so seed for seed the same photos; not on wood only, and not eight dice):

* ``plus``: four groups of four like-coloured dice in a plus shape, two touching ones with a like
  die (1 … 6) against their seam above and below, 0.4 opaque plastic (black, ivory, red, brown),
  else gem, on eight tables (wood, green, blue, grey, black, white cloth, red cloth, dark wood) by
  seed: the seam of every pair runs on past its phantom two onto the flanking dice;
* ``white-twos``: ten opaque white dice with black pips (six in ten twos, else threes and fives),
  nine in ten pushed against another, as ``sim_d6`` draws them, on the same eight tables.

Stop 46 (``gem46``) adds the second review of ``gem45``'s free touching pairs:

* ``free-pairs``: four pairs of touching like dice whose seam's ends are free (nothing against
  them), ones and twos (1–1, 1–2, 2–1, 2–2), the second die turned up to ±25° against the first
  and slid ±0.45 of an edge along the side they share, 40–120 px faces, gem (0.3–0.7 translucent)
  or opaque plastic (black, ivory, red, brown), on the review's eight tables by seed.

Prints per case right, wrong, unread, missed, spurious (scored as ``bench/sim_d6.py``). The lines
and streaks are drawn into the face's art (``companion.sim.dice_art.draw_pips``, patched for the
run, as ``gem_probe.py`` patches it), so they are seen through, blurred and compressed as the pips
are (every face's art is drawn so, side faces too: a side face's two or three to six carries its line);
the spots are drawn on the table before the dice. Seeds 0–15 were tuned on (stop 45, ``gem45``),
100–115 measured once; the README's Accuracy → Dice entry for ``gem45`` gives both.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from gem_d6 import GEMS  # noqa: E402
from sim_d6 import notes, score  # noqa: E402

CASES = ("crack-two", "crack-other", "gloss-two", "like-dark-ones", "like-dark-twos", "spot-one", "touching-low",
         "plus", "white-twos", "free-pairs", "gloss-other")

#: The review's tables for ``plus`` and ``white-twos`` (kind, BGR; ``None``: wood of a random red),
#: taken in turn by seed.
REVIEW_TABLES = (("wood", None), ("cloth", (40, 110, 40)), ("cloth", (120, 60, 25)), ("cloth", (85, 85, 85)),
                 ("cloth", (30, 30, 32)), ("cloth", (200, 200, 205)), ("cloth", (40, 40, 150)), ("wood", (40, 70, 110)))
#: The review's opaque plastic for ``plus`` (body, pips BGR): black, ivory, red, brown.
REVIEW_PLAIN = (((35, 35, 38), (240, 240, 240)), ((215, 230, 235), (28, 28, 30)), ((40, 40, 200), (245, 245, 245)),
                ((160, 80, 20), (245, 245, 245)))

#: Dark translucent bodies (BGR) for the like-coloured touching pairs: stop 42's review's dark red,
#: a dark blue and smoke; all with white pips.
DARK_GEMS = ((30, 25, 110), (110, 45, 25), (60, 60, 60))
#: Opaque plastic for ``touching-low``: black with white pips, ivory with black pips.
PLAIN = (((35, 35, 38), (240, 240, 240)), ((215, 230, 235), (28, 28, 30)))


class BenchError(ValueError):
    """A bad argument to this bench (named, not a traceback)."""


def parse_seeds(text: str) -> range:
    """``"A:B"`` → range(A, B), A < B, both whole numbers ≥ 0; else a BenchError naming the input."""
    parts = text.split(":")
    try:
        first, end = (int(v) for v in parts)
    except ValueError:
        raise BenchError(f"--seeds must be FIRST:END, two whole numbers, not {text!r}") from None
    if not 0 <= first < end:
        raise BenchError(f"--seeds {text!r}: need 0 <= FIRST < END")
    return range(first, end)


#: Additive glare for ``gloss-other`` (grey levels added at the streak's middle, per photo): a
#: light reflection over the face, which lightens the body and dark pips and leaves white pips white.
GLARE_ADD = (60.0, 150.0)


def _line_painter(kind: str, rng: np.random.Generator):
    """A function ``paint(img)`` drawing this photo's line on a face's square art ``img`` (in
    place, after its pips): ``kind`` "crack" (dark, thin), "gloss" (light, soft, wide: the body's
    colour mixed towards white over pips and body alike) or "glare" (as wide and soft, but
    ``GLARE_ADD`` added to every channel, clipped); along the
    bare diagonal of a two (from the art's top-right to bottom-left corner) or, with ``angle``
    given per call, through the centre at that angle."""
    import cv2

    if kind == "crack":
        width, mix, target = rng.uniform(0.02, 0.05), rng.uniform(0.5, 0.9), np.zeros(3)
    elif kind == "glare":
        width, mix, target = rng.uniform(0.06, 0.14), rng.uniform(*GLARE_ADD), np.zeros(3)
    else:
        width, mix, target = rng.uniform(0.06, 0.14), rng.uniform(0.3, 0.6), np.full(3, 255.0)
    off = rng.uniform(-0.08, 0.08)

    def paint(img: np.ndarray, angle: float | None = None) -> None:
        s = img.shape[0]
        body = img[s // 2, 2].astype(np.float64)  # the art's plain body (a pip never lies there)
        col = tuple(float(v) for v in body + mix * (target - body))
        if angle is None:  # the bare diagonal of draw_pips' two, (0.25, 0.25) … (0.75, 0.75) its pips
            a, b = np.array([1.0, 0.0]), np.array([0.0, 1.0])
            shift = off * np.array([1.0, 1.0]) / math.sqrt(2)
        else:
            d = np.array([math.cos(angle), math.sin(angle)])
            a, b = 0.5 - 0.75 * d, 0.5 + 0.75 * d
            shift = off * np.array([-d[1], d[0]])
        p, q = ((a + shift) * s).astype(int), ((b + shift) * s).astype(int)
        layer = img.copy()
        cv2.line(layer, tuple(int(v) for v in p), tuple(int(v) for v in q), col, max(1, int(round(width * s))), cv2.LINE_AA)
        if kind in ("gloss", "glare"):  # soft edges: the streak fades into the body
            mask = np.zeros(img.shape[:2], np.float32)
            cv2.line(mask, tuple(int(v) for v in p), tuple(int(v) for v in q), 1.0, max(1, int(round(width * s))), cv2.LINE_AA)
            mask = cv2.GaussianBlur(mask, (0, 0), max(1.0, 0.3 * width * s))[..., None]
            if kind == "glare":  # mix is the grey levels added at the streak's middle
                img[:] = np.clip(img + mix * mask, 0, 255).astype(np.uint8)
            else:
                img[:] = np.clip(img * (1 - mask) + np.array(col) * mask, 0, 255).astype(np.uint8)
        else:
            img[:] = layer

    return paint


def _wood(rng: np.random.Generator, cond):
    """This photo's wood colour (as ``gem_d6.scene``) and ``cond`` with it."""
    red = float(rng.uniform(130, 200))
    wood = (int(red * rng.uniform(0.3, 0.5)), int(red * rng.uniform(0.6, 0.75)), int(red))
    return wood, dataclasses.replace(cond, background="wood", background_bgr=wood)


def _grid_specs(rng: np.random.Generator, values, size_px: float):
    """Eight DieSpecs (values drawn from ``values``) on a loose 4 × 2 grid, each turned at random."""
    from companion.sim.dice import DieSpec

    return [DieSpec("d6", str(int(rng.choice(values))), (160.0 + 320 * (i % 4) + rng.uniform(-30, 30),
                                                          250.0 + 460 * (i // 4) + rng.uniform(-30, 30)),
                    float(rng.uniform(0, 360)), size_px) for i in range(8)]


def _axes(rot: float) -> tuple[np.ndarray, np.ndarray]:
    """A die turned ``rot`` degrees: its edge directions across and along (image px, unit)."""
    a = math.radians(rot)
    return np.array([math.cos(a), -math.sin(a)]), np.array([math.sin(a), math.cos(a)])


def _pairs(rng: np.random.Generator, value: int, size_px: float):
    """Four pairs of touching dice showing ``value``, each pair one turn, slid ±0.45 of an edge
    along the side they share (as ``random_dice_specs`` pushes dice together)."""
    from companion.sim.dice import DieSpec

    specs = []
    for i in range(4):
        c = np.array([250.0 + 520 * (i % 2) + rng.uniform(-30, 30), 260.0 + 440 * (i // 2) + rng.uniform(-30, 30)])
        rot = float(rng.uniform(0, 360))
        ax, ay = _axes(rot)
        d = size_px + 0.5
        slide = float(rng.uniform(-0.45, 0.45)) * size_px
        other = c + d * ax + slide * ay
        specs += [DieSpec("d6", str(value), (float(c[0]), float(c[1])), rot, size_px),
                  DieSpec("d6", str(value), (float(other[0]), float(other[1])), rot, size_px)]
    return specs


def _review_table(rng: np.random.Generator, seed: int):
    """The review's shot conditions on its table for ``seed`` (``REVIEW_TABLES``; a wood of a random
    warm colour where the table names none), drawn from ``rng`` in the review's order."""
    from companion.sim.table import ShotConditions

    cond = ShotConditions.random(rng)
    kind, col = REVIEW_TABLES[seed % len(REVIEW_TABLES)]
    if col is None:
        red = float(rng.uniform(130, 200))
        col = (int(red * rng.uniform(0.3, 0.5)), int(red * rng.uniform(0.6, 0.75)), int(red))
    return dataclasses.replace(cond, background=kind, background_bgr=col)


def _free_pairs_photo(seed: int):
    """The ``free-pairs`` photo for ``seed`` (see the module doc; the stream 78000 + 1000 · seed)."""
    from companion.sim.dice import DieSpec, render_dice

    rng = np.random.default_rng(78000 + 1000 * seed)
    size_px = float(rng.uniform(40, 120))
    cond = _review_table(rng, seed)
    specs = []
    for i in range(4):
        c = np.array([290.0 + 700 * (i % 2) + rng.uniform(-30, 30), 250.0 + 440 * (i // 2) + rng.uniform(-30, 30)])
        rot = float(rng.uniform(0, 360))
        turn = float(rng.uniform(-25, 25))
        ax, ay = _axes(rot)
        # The turned die's half-extent across the shared side: 0.5 (cos + sin) of an edge.
        t = math.radians(abs(turn))
        d = size_px * (0.5 + 0.5 * (math.cos(t) + math.sin(t))) + 0.5
        slide = float(rng.uniform(-0.45, 0.45)) * size_px
        look = _review_look(rng)
        faces = [("1", "1"), ("1", "2"), ("2", "1"), ("2", "2")][int(rng.integers(4))]
        other = c + d * ax + slide * ay
        specs += [DieSpec("d6", faces[0], (float(c[0]), float(c[1])), rot, size_px, **look),
                  DieSpec("d6", faces[1], (float(other[0]), float(other[1])), rot + turn, size_px, **look)]
    return render_dice(specs, size=(1280, 960), rng=rng, conditions=cond)


def _review_look(rng: np.random.Generator) -> dict:
    """A die's look for the review's photos, drawn from ``rng`` (one stream, in this order): opaque
    plain (``REVIEW_PLAIN``, 0.4 of dice) or clear gem (``GEMS``, translucency 0.3-0.7); the
    :class:`companion.sim.dice.DieSpec` keywords ``body_bgr``, ``pip_bgr``, ``translucency``."""
    if rng.random() < 0.4:
        body, pip = REVIEW_PLAIN[int(rng.integers(len(REVIEW_PLAIN)))]
        return dict(body_bgr=body, pip_bgr=pip, translucency=0.0)
    body, pip = GEMS[int(rng.integers(len(GEMS)))]
    return dict(body_bgr=body, pip_bgr=pip, translucency=float(rng.uniform(0.3, 0.7)))


def _review_photo(case: str, seed: int):
    """The review's ``plus`` or ``white-twos`` photo for ``seed`` (its ``adv.py`` ``photo``, seed
    for seed: the stream 77000 + 1000 · seed + 1 or + 6)."""
    from companion.sim.dice import DieSpec, random_dice_specs, render_dice

    rng = np.random.default_rng(77000 + 1000 * seed + (1 if case == "plus" else 6))
    size_px = float(rng.uniform(40, 80))
    cond = _review_table(rng, seed)
    specs = []
    if case == "plus":
        for i in range(4):
            c = np.array([260.0 + 520 * (i % 2) + rng.uniform(-30, 30), 250.0 + 440 * (i // 2) + rng.uniform(-30, 30)])
            rot = float(rng.uniform(0, 360))
            ax, ay = _axes(rot)
            d = size_px + 0.5
            look = _review_look(rng)
            pos = [c, c + d * ax, c + 0.5 * d * ax + d * ay, c + 0.5 * d * ax - d * ay]
            faces = ["1", "1", str(int(rng.choice([1, 1, 2, 3, 4, 5, 6]))), str(int(rng.choice([1, 1, 2, 3, 4, 5, 6])))]
            specs += [DieSpec("d6", f, (float(p[0]), float(p[1])), rot, size_px, **look) for p, f in zip(pos, faces)]
    else:
        specs = random_dice_specs("d6", 10, size=(1280, 960), rng=rng, face_px=(50, 85), touching=0.9)
        specs = [dataclasses.replace(s, face=str(int(rng.choice([2, 2, 2, 3, 5]))), body_bgr=(235, 238, 240),
                                     pip_bgr=(25, 25, 28), translucency=0.0) for s in specs]
    return render_dice(specs, size=(1280, 960), rng=rng, conditions=cond)


def photo(case: str, seed: int):
    """The RenderedDice of ``case`` for ``seed`` (see the module doc)."""
    import cv2

    from companion.sim import dice as sim_dice
    from companion.sim import dice_art
    from companion.sim.dice import random_dice_specs, render_dice
    from companion.sim.table import ShotConditions, table_background

    if case not in CASES:
        raise BenchError(f"unknown case {case!r}; use one of {', '.join(CASES)}")
    if case in ("plus", "white-twos"):
        return _review_photo(case, seed)
    if case == "free-pairs":
        return _free_pairs_photo(seed)
    rng = np.random.default_rng(1000 * seed + 100 + CASES.index(case))
    size_px = float(rng.uniform(40, 80))
    cond = ShotConditions.random(rng)
    wood, cond = _wood(rng, cond)
    background = None
    paint = None
    if case in ("crack-two", "gloss-two"):
        specs = _grid_specs(rng, [2], size_px)
        paint = _line_painter("crack" if case == "crack-two" else "gloss", rng)
    elif case == "gloss-other":
        specs = _grid_specs(rng, [1, 3, 3, 5, 5], size_px)
        paint = _line_painter("gloss" if rng.random() < 0.5 else "glare", rng)
    elif case == "crack-other":
        specs = _grid_specs(rng, [3, 4, 5, 6], size_px)
        paint = _line_painter("crack", rng)
    elif case in ("like-dark-ones", "like-dark-twos"):
        specs = _pairs(rng, 1 if case == "like-dark-ones" else 2, size_px)
    elif case == "spot-one":
        specs = _grid_specs(rng, [1], size_px)
    else:
        specs = random_dice_specs("d6", 8, size=(1280, 960), rng=rng, face_px=(40, 80), touching=0.9)
        specs = [dataclasses.replace(s, face=str(int(rng.choice([1, 2])))) for s in specs]

    if case in ("like-dark-ones", "like-dark-twos"):
        body = DARK_GEMS[int(rng.integers(len(DARK_GEMS)))]
        t = float(rng.uniform(0.3, 0.7))
        specs = [dataclasses.replace(s, body_bgr=body, pip_bgr=(245, 245, 245), translucency=t) for s in specs]
    elif case == "spot-one":
        # The wood's hue, a little darker: a clear brown die over wood looks like the wood.
        specs = [dataclasses.replace(s, body_bgr=tuple(int(v * rng.uniform(0.7, 0.9)) for v in wood),
                                     pip_bgr=(245, 245, 245), translucency=float(rng.uniform(0.4, 0.7)))
                 for s in specs]
        table = table_background((1280, 960), cond, rng)
        for s in specs:
            ang = rng.uniform(0, 2 * math.pi)
            r = rng.uniform(0.6, 0.95) * s.size_px
            c = (s.center[0] + r * math.cos(ang), s.center[1] + r * math.sin(ang))
            rad = rng.uniform(0.09, 0.13) * s.size_px  # a two's pip … a one's
            cv2.circle(table, (int(round(c[0] * 16)), int(round(c[1] * 16))), int(round(rad * 16)),
                       (235.0, 240.0, 245.0), -1, cv2.LINE_AA, 4)
        background = table
    elif case == "touching-low":
        looks = list(GEMS) + list(PLAIN)
        picks = [looks[int(rng.integers(len(looks)))] for _ in specs]
        specs = [dataclasses.replace(s, body_bgr=p[0], pip_bgr=p[1],
                                     translucency=0.0 if p in PLAIN else float(rng.uniform(0.3, 0.7)))
                 for s, p in zip(specs, picks)]
    else:
        gems = [GEMS[int(rng.integers(len(GEMS)))] for _ in specs]
        specs = [dataclasses.replace(s, body_bgr=g[0], pip_bgr=g[1], translucency=float(rng.uniform(0.3, 0.7)))
                 for s, g in zip(specs, gems)]

    if paint is None:
        return render_dice(specs, size=(1280, 960), rng=rng, conditions=cond, background=background)
    original = dice_art.draw_pips
    angle = float(rng.uniform(0, math.pi))

    def draw(img, v, pip):
        original(img, v, pip)
        paint(img, None if v == 2 or case == "gloss-other" else angle)

    dice_art.draw_pips = draw
    sim_dice._face_cached.cache_clear()
    try:
        return render_dice(specs, size=(1280, 960), rng=rng, conditions=cond, background=background)
    finally:
        dice_art.draw_pips = original
        sim_dice._face_cached.cache_clear()


def run(case: str, seeds: range, show: bool = False, reader=None) -> np.ndarray:
    """(dice, right, wrong, unread, spurious) summed over ``seeds`` of ``case``, read by ``reader``
    (default ``read_d6``); with ``show`` each photo's dice not read right are printed."""
    if reader is None:
        from companion.vision.dice_d6 import read_d6 as reader
    tally = np.zeros(5, int)
    for seed in seeds:
        shot = photo(case, seed)
        obs = reader(shot.image)
        r, w, u, s = score(shot.dice, obs)
        tally += (len(shot.dice), r, w, u, s)
        if show:
            for line in notes(shot.dice, obs):
                print(f"  {case} seed {seed}: {line}")
    return tally


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seeds", default="0:16", help="FIRST:END (END excluded)")
    ap.add_argument("--case", nargs="*", default=list(CASES), choices=list(CASES))
    ap.add_argument("--save", type=Path, help="write each photo here as CASE_SEED.jpg")
    ap.add_argument("--show", action="store_true", help="print every die not read right")
    a = ap.parse_args(argv)
    try:
        seeds = parse_seeds(a.seeds)
    except BenchError as e:
        ap.error(str(e))
    if a.save is not None:
        import cv2

        a.save.mkdir(parents=True, exist_ok=True)
        for case in a.case:
            for seed in seeds:
                cv2.imwrite(str(a.save / f"{case}_{seed}.jpg"), photo(case, seed).image)
    for case in a.case:
        n, r, w, u, s = run(case, seeds, a.show)
        print(f"{case:16s} {n} dice: right {r}, wrong {w}, unread {u}, missed {n - r - w - u}, spurious {s}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
