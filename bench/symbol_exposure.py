"""The symbol deck's red and purple open and striped cards over-exposed, with and without a colour
cast: a count of the wrong names the exposure look lets through (issue #6).

    .venv/bin/python bench/symbol_exposure.py [--seeds 0-1] [--show] [--deck DECK.npz]
        [--exposures 1.3,1.6] [--casts none,warm,cool] [--colours red,purple] [--fills striped,open]

The deck of ``bench/symbol_cards.py`` is enrolled as there (all 81 cards, 5 photos each). Then the
36 cards that over-exposure and a cast can turn into one another (red and purple, open and
striped: clipping takes a striped fill's faint tint away, a cast moves red towards purple or back)
are photographed as on the bench's boards, 12 to a photo, but at a set exposure (×1.3 and ×1.6 the
paper's 250, before the light's fall-off across the table: most of each card clips) and a set white
balance (none, B×0.75/R×1.25 warm, B×1.25/R×0.75 cool), for each seed. Each card is read at its true
quad (``classify_quads``: where it lies is not in question), and counted right, wrong or "unknown"
per condition. A wrong name is the error that must not happen; "unknown" is the price of avoiding it.

The defaults are the bench as it always was (the same photos, the same figures). The options widen
it to what stop 43's review found: ``--casts`` takes any of ``CASTS`` (``green`` B, G, R × 0.85, 1.2,
0.85 and ``magenta`` × 1.15, 0.8, 1.15 besides the three above), ``--exposures`` any factors (×1.15
clips a greenish-lit card's paper in all three channels while its ink is still much as enrolled),
``--colours`` and ``--fills`` which cards are photographed (the green cards are the ones a
green–magenta cast look can cost; 12 cards a photo whatever their number). Each condition's line
gives right / wrong / unknown per colour too.
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import symbol_cards as sc  # noqa: E402  (the bench beside this one)

EXPOSURES = (1.3, 1.6)
#: B, G, R factors of the light (a lamp's tint or the camera's white balance gone wrong). The first
#: three are the bench's defaults; green and magenta are stop 43's review's adversaries.
CASTS = {"none": (1.0, 1.0, 1.0), "warm": (0.75, 1.0, 1.25), "cool": (1.25, 1.0, 0.75),
         "green": (0.85, 1.2, 0.85), "magenta": (1.15, 0.8, 1.15)}
DEFAULT_CASTS = ("none", "warm", "cool")
DEFAULT_COLOURS = ("red", "purple")
DEFAULT_FILLS = ("striped", "open")


def stressed_labels(colours=DEFAULT_COLOURS, fills=DEFAULT_FILLS) -> list[str]:
    """The card names photographed: by default the 36 red and purple, open and striped ones."""
    return [f"{n}-{c}-{f}-{s}" for n, c, f, s in itertools.product(sc.COUNTS, colours, fills, sc.SHAPES)]


def photos(seed: int, exposure: float, cast: tuple[float, float, float], names: list[str] | None = None):
    """Yield (image, [(label, quad)]): the cards ``names`` (default :func:`stressed_labels`), 12 to a
    1280 × 960 photo, in a shuffled order (drawn with ``seed``), photographed at ``exposure`` and
    ``cast``."""
    rng = np.random.default_rng([seed, int(100 * exposure), int(100 * cast[0])])
    names = stressed_labels() if names is None else names
    names = [names[i] for i in rng.permutation(len(names))]
    for start in range(0, len(names), 12):
        width = rng.uniform(105, 135)
        cards = []
        for i, label in enumerate(names[start:start + 12]):
            r, c = divmod(i, 5)
            cx = 150 + c * (width * 1.75) + rng.uniform(-8, 8)
            cy = 150 + r * (width * 1.95) + rng.uniform(-8, 8)
            cards.append((label, sc._card_quad(cx, cy, width, rng.choice([0.0, 180.0]) + rng.uniform(-10, 10), rng)))
        yield sc.photograph((1280, 960), cards, rng, exposure=exposure, cast=cast), cards


def main(argv: list[str] | None = None) -> int:
    from companion.rules.sushi_go.cards import UNKNOWN
    from companion.vision.deck import classify_quads

    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--seeds", default="0-1")
    p.add_argument("--show", action="store_true", help="print each card not read right")
    p.add_argument("--deck", help="DECK.npz: the bench's deck (all 81 cards, 5 photos each) is read from it if it "
                                  "exists, else enrolled (about a minute) and written there")
    p.add_argument("--exposures", default=",".join(str(e) for e in EXPOSURES),
                   help="exposure factors, comma-separated (default %(default)s)")
    p.add_argument("--casts", default=",".join(DEFAULT_CASTS),
                   help=f"casts, comma-separated, of {', '.join(CASTS)} (default %(default)s)")
    p.add_argument("--colours", default=",".join(DEFAULT_COLOURS),
                   help=f"card colours, of {', '.join(sc.COLOURS)} (default %(default)s)")
    p.add_argument("--fills", default=",".join(DEFAULT_FILLS),
                   help=f"card fills, of {', '.join(sc.FILLS)} (default %(default)s)")
    a = p.parse_args(argv)
    lo, _, hi = a.seeds.partition("-")
    try:
        seeds = range(int(lo), int(hi or lo) + 1)
        exposures = [float(e) for e in a.exposures.split(",")]
    except ValueError:
        p.error(f"--seeds wants A or A-B, --exposures numbers separated by commas: got {a.seeds!r}, {a.exposures!r}")
    casts = a.casts.split(",")
    colours, fills = a.colours.split(","), a.fills.split(",")
    for given, known, what in ((casts, CASTS, "cast"), (colours, sc.COLOURS, "colour"), (fills, sc.FILLS, "fill")):
        bad = [g for g in given if g not in known]
        if bad:
            p.error(f"unknown {what} {', '.join(bad)} (known: {', '.join(known)})")
    names = stressed_labels(colours, fills)
    t0 = time.perf_counter()
    deck = sc.enrolled_deck(sc.labels(), 5, a.deck)
    print(f"deck ready in {time.perf_counter() - t0:.0f} s; {len(names)} cards a condition and seed")
    total = {"right": 0, "wrong": 0, "unknown": 0}
    for exposure, cast_name in itertools.product(exposures, casts):
        tot = {"right": 0, "wrong": 0, "unknown": 0}
        by_colour = {c: {"right": 0, "wrong": 0, "unknown": 0} for c in colours}
        for seed in seeds:
            for img, cards in photos(seed, exposure, CASTS[cast_name], names):
                for (label, _), got in zip(cards, classify_quads(img, [q for _, q in cards], deck)):
                    key = "right" if got.label == label else "unknown" if got.label == UNKNOWN else "wrong"
                    tot[key] += 1
                    by_colour[label.split("-")[1]][key] += 1
                    if a.show and key != "right":
                        print(f"  x{exposure} {cast_name} seed {seed}: {label} read {got.label}")
        per = "; ".join(f"{c} {v['right']}/{v['wrong']}/{v['unknown']}" for c, v in by_colour.items())
        print(f"x{exposure} cast {cast_name:4}: right {tot['right']}, wrong {tot['wrong']}, unknown {tot['unknown']}"
              f"  ({per})")
        for k in total:
            total[k] += tot[k]
    print(f"all: {sum(total.values())} cards, right {total['right']}, wrong {total['wrong']}, unknown {total['unknown']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
