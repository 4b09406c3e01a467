"""CPU time of ``read_cards`` (``companion read cards``) per frame, optionally against another tree, A/B.

    .venv/bin/python bench/cards_cpu.py [--base DIR] [--rounds 3] [--sets flat,illustrated,mat]

Frames: the 20-card mat frame of ``bench/run.py`` (1280 × 960), and the loose scenes of
``bench/loose_scenes.py``, flat and illustrated, seeds 40–59 (the tuning seeds). Time is CPU time
of the process (``time.process_time``), not wall time: on a shared machine only CPU time says
what a frame costs. Each frame's figure is the least of its reads (3 per round on the mat frame,
1 on a loose scene, over ``--rounds`` rounds); a set's figure is the median over its frames.

``--base DIR``: a tree holding another version's ``companion`` package (and its ``calibration``
directory), e.g. ``git archive COMMIT companion calibration | tar -x -C DIR``. Both versions are
loaded into this process (each module set swapped into ``sys.modules`` before its calls, since the
package imports lazily) and read the same frames in turn, the order alternating frame by frame, so
the load of the machine falls on both alike; the per-frame ratio (this tree / base) is reported.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "bench")]

_MODULES = ("companion.vision.cards", "companion.sim.record", "companion.sim.faces", "companion.sim.table",
            "companion.vision.mat_layout", "companion.vision.covered", "companion.vision.card_search",
            "companion.vision.window_screen", "companion.vision.deck")


def _load(path: Path) -> dict:
    """The ``companion`` modules of the tree at ``path``, imported afresh."""
    import importlib

    for k in [k for k in sys.modules if k == "companion" or k.startswith("companion.")]:
        del sys.modules[k]
    sys.path.insert(0, str(path))
    try:
        for m in _MODULES:
            importlib.import_module(m)
    finally:
        sys.path.remove(str(path))
    return {k: v for k, v in sys.modules.items() if k == "companion" or k.startswith("companion.")}


def _frames(mods: dict) -> dict[str, list]:
    """Set name → [(frame, deck)], built with the given version's simulator and enrolment."""
    import loose_scenes
    import run as benchrun
    import test_vision_synth as scenes

    rec, faces, table = mods["companion.sim.record"], mods["companion.sim.faces"], mods["companion.sim.table"]
    deck = rec.enroll_sim_deck()
    layout = mods["companion.vision.mat_layout"].load_mat_layout(4)
    rng = np.random.default_rng(0)
    tab = [[benchrun.CARDS[(s * 5 + i) % 12] for i in range(5)] for s in range(4)]
    frame = table.render_table(layout, table.layout_tableaux(layout, tab, rng=rng), size=(1280, 960), rng=rng)
    out = {"mat": [(frame.image, deck)]}
    for style in ("flat", "illustrated"):
        scenes.draw_card_face = lambda label, width, style=style: faces.draw_card_face(label, width, style=style)
        d = rec.enroll_sim_deck(style=style)
        out[style] = []
        for seed in range(40, 60):
            r = np.random.default_rng(seed)
            img, _ = scenes.table_scene(list(r.choice(loose_scenes.LABELS, 12)),
                                        loose_scenes.KINDS[seed % len(loose_scenes.KINDS)], seed)
            out[style].append((img, d))
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--base", type=Path, help="a tree with another version's companion package, read in turn")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--sets", default="flat,illustrated,mat", help="which of flat, illustrated, mat")
    a = p.parse_args(argv)
    names = ["new"] + (["base"] if a.base else [])
    mods = {"new": _load(ROOT)}
    if a.base:
        mods["base"] = _load(a.base.resolve())
    sets = {}
    for v in names:
        sys.modules.update(mods[v])
        sets[v] = _frames(mods[v])
    print(f"load average before: {os.getloadavg()[0]:.1f}")
    for name in a.sets.split(","):
        times = {v: [[] for _ in sets[v][name]] for v in names}
        reps = 3 if name == "mat" else 1
        for rd in range(a.rounds):
            for i in range(len(sets["new"][name])):
                order = names if (rd + i) % 2 == 0 else names[::-1]
                for v in order:
                    sys.modules.update(mods[v])
                    read = mods[v]["companion.vision.cards"].read_cards
                    img, deck = sets[v][name][i]
                    if rd == 0:
                        read(img, deck)  # first read: caches (the deck's banks) filled
                    for _ in range(reps):
                        t0 = time.process_time()
                        read(img, deck)
                        times[v][i].append(1000 * (time.process_time() - t0))
        least = {v: [min(t) for t in times[v]] for v in names}
        line = f"{name}: this tree median {statistics.median(least['new']):.1f} ms, max {max(least['new']):.1f}"
        if a.base:
            ratio = statistics.median([n / b for n, b in zip(least["new"], least["base"])])
            line += (f"; base median {statistics.median(least['base']):.1f} ms, max {max(least['base']):.1f}; "
                     f"per-frame ratio median {ratio:.3f}")
        print(line)
    print(f"load average after: {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
