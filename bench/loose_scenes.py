"""`companion read cards` (the general finder, no mat) on loose simulated table scenes, per card style.

    .venv/bin/python bench/loose_scenes.py [--style flat|illustrated|noir|watercolour|pattern|airbrush] [--seeds 40-59] [-v]

Each seed lays 12 random cards of the style at random turns on one of six table textures (plain,
dark, felt, wood, checker, blobs), seen through a mild perspective with blur, noise and JPEG (the
scene builder of tests/test_vision_synth.py). The deck is enrolled from the style's flat scans.
A card is *right* when a reading lies within 15 px of its centre with its name; *wrong* when that
reading names another card; *"unknown"* when it is read "unknown" (a card not found is neither); a
reading matching no card and not "unknown" is *spurious*. ``-v`` names every card not read right;
``--why`` also gives, for each, the deck's stages on the reported quad and on the true one
(``bench/card_why.py``: whole-card scores, the look-alike looks and their leads, the final checks).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "bench"))

from seedargs import seed_list  # noqa: E402

LABELS = ["tempura", "sashimi", "dumpling", "maki_1", "maki_2", "maki_3", "egg_nigiri", "salmon_nigiri",
          "squid_nigiri", "pudding", "wasabi", "chopsticks"]
KINDS = ["plain", "dark", "felt", "wood", "checker", "blobs"]


def run(style: str, seeds: list[int], verbose: bool = False, why: bool = False) -> dict[str, int]:
    import test_vision_synth as scenes

    from companion.rules.sushi_go.cards import UNKNOWN
    from companion.sim import faces
    from companion.sim.record import enroll_sim_deck
    from companion.vision.cards import read_cards

    scenes.draw_card_face = lambda label, width: faces.draw_card_face(label, width, style=style)
    deck = enroll_sim_deck(style=style)
    tot = {"cards": 0, "right": 0, "wrong": 0, "unknown": 0, "spurious": 0}
    ms = []
    for seed in seeds:
        rng = np.random.default_rng(seed)
        image, truth = scenes.table_scene(list(rng.choice(LABELS, 12)), KINDS[seed % len(KINDS)], seed)
        t0 = time.perf_counter()
        obs = read_cards(image, deck)
        ms.append(1000 * (time.perf_counter() - t0))
        pairs, extra = scenes.match_truth(obs, truth)
        for label, true_quad, obs in pairs:
            tot["cards"] += 1
            tot["right"] += obs is not None and obs.label == label
            tot["wrong"] += obs is not None and obs.label not in (label, UNKNOWN)
            tot["unknown"] += obs is not None and obs.label == UNKNOWN
            if verbose and (obs is None or obs.label != label):
                print(f"  seed {seed}: {label} " + ("not found" if obs is None else f"read {obs.label}"))
                if why:
                    from card_why import why as explain

                    if obs is not None:
                        print("      found: " + explain(image, np.float32(obs.quad), deck))
                    print("      true:  " + explain(image, true_quad, deck))
        tot["spurious"] += sum(o.label != UNKNOWN for o in extra)
        if verbose and extra:
            print(f"  seed {seed}: {len(extra)} extra: " + ", ".join(o.label for o in extra))
    tot["ms_median"] = float(np.median(ms))
    return tot


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--style", default="illustrated")
    p.add_argument("--seeds", type=seed_list, default="40-59", help="A-B (inclusive) or A,B-C")
    p.add_argument("-v", "--verbose", action="store_true", help="name every card not read right")
    p.add_argument("--why", action="store_true", help="with -v: the deck's stages for each (bench/card_why.py)")
    a = p.parse_args(argv)
    t = run(a.style, a.seeds, a.verbose or a.why, a.why)
    print(f"{a.style}: {t['cards']} cards, right {100 * t['right'] / max(t['cards'], 1):.1f} %, "
          f"wrong {t['wrong']}, \"unknown\" {t['unknown']}, spurious {t['spurious']}, "
          f"{t['ms_median']:.0f} ms per scene (median)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
