"""The symbol deck's red and purple open and striped cards over-exposed, with and without a colour
cast: a count of the wrong names the exposure look lets through (issue #6).

    .venv/bin/python bench/symbol_exposure.py [--seeds 0-1] [--show]

The deck of ``bench/symbol_cards.py`` is enrolled as there (all 81 cards, 5 photos each). Then the
36 cards that over-exposure and a cast can turn into one another (red and purple, open and
striped: clipping takes a striped fill's faint tint away, a cast moves red towards purple or back)
are photographed as on the bench's boards, 12 to a photo, but at a set exposure (×1.3 and ×1.6 the
paper's 250, before the light's fall-off across the table: most of each card clips) and a set white
balance (none, B×0.75/R×1.25 warm, B×1.25/R×0.75 cool), for each seed. Each card is read at its true
quad (``classify_quads``: where it lies is not in question), and counted right, wrong or "unknown"
per condition. A wrong name is the error that must not happen; "unknown" is the price of avoiding it.
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
CASTS = {"none": (1.0, 1.0, 1.0), "warm": (0.75, 1.0, 1.25), "cool": (1.25, 1.0, 0.75)}  # B, G, R factors


def stressed_labels() -> list[str]:
    """The 36 red and purple, open and striped card names."""
    return [f"{n}-{c}-{f}-{s}" for n, c, f, s in itertools.product(sc.COUNTS, ("red", "purple"), ("striped", "open"),
                                                                       sc.SHAPES)]


def photos(seed: int, exposure: float, cast: tuple[float, float, float]):
    """Yield (image, [(label, quad)]): the 36 cards, 12 to a 1280 × 960 photo, in a shuffled order
    (drawn with ``seed``), photographed at ``exposure`` and ``cast``."""
    rng = np.random.default_rng([seed, int(100 * exposure), int(100 * cast[0])])
    names = [stressed_labels()[i] for i in rng.permutation(36)]
    for start in range(0, 36, 12):
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
    from companion.vision.deck import Deck, classify_quads, enroll_images

    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--seeds", default="0-1")
    p.add_argument("--show", action="store_true", help="print each card not read right")
    p.add_argument("--deck", help="an enrolled DECK.npz to use (else the bench's deck is enrolled, about a minute)")
    a = p.parse_args(argv)
    lo, _, hi = a.seeds.partition("-")
    t0 = time.perf_counter()
    deck = Deck.load(a.deck) if a.deck else enroll_images({lb: sc.enrolment_photos(lb, 5, 0) for lb in sc.labels()})
    print(f"deck ready in {time.perf_counter() - t0:.0f} s")
    total = {"right": 0, "wrong": 0, "unknown": 0}
    for exposure, (cast_name, cast) in itertools.product(EXPOSURES, CASTS.items()):
        tot = {"right": 0, "wrong": 0, "unknown": 0}
        for seed in range(int(lo), int(hi or lo) + 1):
            for img, cards in photos(seed, exposure, cast):
                for (label, _), got in zip(cards, classify_quads(img, [q for _, q in cards], deck)):
                    key = "right" if got.label == label else "unknown" if got.label == UNKNOWN else "wrong"
                    tot[key] += 1
                    if a.show and key != "right":
                        print(f"  x{exposure} {cast_name} seed {seed}: {label} read {got.label}")
        print(f"x{exposure} cast {cast_name:4}: right {tot['right']}, wrong {tot['wrong']}, unknown {tot['unknown']}")
        for k in total:
            total[k] += tot[k]
    print(f"all: {sum(total.values())} cards, right {total['right']}, wrong {total['wrong']}, unknown {total['unknown']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
