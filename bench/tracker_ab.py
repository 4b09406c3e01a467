"""A/B: a tracker turn's CPU and wall time, this tree's code against another checkout's, in one process.

    .venv/bin/python bench/tracker_ab.py --base /path/to/other/checkout [--styles illustrated,pattern]
                                         [--players 4,5] [--rounds 6] [--turns 3] [--fresh 1]

The machine this runs on is shared and loaded, so the two versions are timed alternately in one
process, round after round (A then B, then B then A, ...): a load that comes and goes hits both.
Each version's ``companion`` package is imported on its own (its modules are swapped in and out of
``sys.modules`` round each timing, as the functions look some of their imports up when called) and
enrols its own deck; the scenes are ``bench/tracker_profile.py``'s (rendered once, by this tree).

Per style and mat: the median over rounds of CPU ms (``time.process_time``, every thread) and wall ms
(``time.perf_counter``) per turn, for each version, and, with ``--fresh N``, of a fresh read of the
20-card table; and whether the two versions' readings (the turn, a look-alike swapped in place and a
fresh read) are the same (labels, and quads within ``QUAD_TOL_PX``), and to the bit.
``/proc/loadavg`` is printed before and after.
"""

from __future__ import annotations

import argparse
import importlib
import statistics
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(HERE / "bench"))
sys.path.insert(0, str(HERE))

#: Two readings are the same if their labels are and no quad corner moved more than this (image px).
QUAD_TOL_PX = 0.5


class Version:
    """One checkout's ``companion`` package, importable by swapping it into ``sys.modules``."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.modules: dict = {}

    @contextmanager
    def active(self):
        saved = {k: v for k, v in sys.modules.items() if k == "companion" or k.startswith("companion.")}
        for k in saved:
            del sys.modules[k]
        sys.modules.update(self.modules)
        sys.path.insert(0, str(self.root))
        try:
            yield
        finally:
            sys.path.remove(str(self.root))
            self.modules = {k: v for k, v in sys.modules.items() if k == "companion" or k.startswith("companion.")}
            for k in self.modules:
                del sys.modules[k]
            sys.modules.update(saved)

    def load(self, style: str):
        with self.active():
            mod = importlib.import_module("companion.sim.record")
            assert Path(mod.__file__).resolve().is_relative_to(self.root.resolve()), mod.__file__
            return mod.enroll_sim_deck(style=style)


def same(a, b) -> bool:
    """Whether two sightings read the same cards: labels in mat order, quads within QUAD_TOL_PX."""
    if [c.label for c in a.cards] != [c.label for c in b.cards]:
        return False
    return all(float(np.abs(np.array(x.quad) - np.array(y.quad)).max()) <= QUAD_TOL_PX
               for x, y in zip(a.cards, b.cards))


def identical(a, b) -> bool:
    """Whether two sightings are the same to the bit: labels, rects, scores, confidences and quads."""
    return [(c.label, c.rect_mm, c.score, c.confidence, c.quad) for c in a.cards] == \
        [(c.label, c.rect_mm, c.score, c.confidence, c.quad) for c in b.cards]


def main(argv: list[str] | None = None) -> int:
    import tracker_profile as tp

    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--base", required=True, type=Path)
    p.add_argument("--styles", default="illustrated,pattern")
    p.add_argument("--players", default="4,5")
    p.add_argument("--rounds", type=int, default=6)
    p.add_argument("--turns", type=int, default=3)
    p.add_argument("--fresh", type=int, default=0, help="also time a fresh read, this many per round")
    a = p.parse_args(argv)
    versions = {"base": Version(a.base), "this": Version(HERE)}
    print(f"load before {tp.load()}")
    for style in a.styles.split(","):
        decks = {name: v.load(style) for name, v in versions.items()}
        for players in (int(x) for x in a.players.split(",")):
            sc = tp.scene(style, players, decks["this"])
            frame, h = sc["frames"]["turn"], sc["homography"]
            trackers, got = {}, {}
            for name, v in versions.items():
                with v.active():
                    trackers[name] = tp.tracker_after(dict(sc, deck=decks[name]))
                    got[name] = [trackers[name].read(sc["frames"][f], h) for f in ("turn", "swap")]
                    # a fresh 20-card read is compared as well as timed
                    got[name].append(importlib.import_module("companion.vision.table_cards")
                                     .CardTracker(sc["layout"], decks[name]).read(frame, h))
            times = {name: {"cpu": [], "wall": [], "fresh_cpu": [], "fresh_wall": []} for name in versions}
            for r in range(a.rounds):
                for name in (list(versions) if r % 2 == 0 else list(versions)[::-1]):
                    with versions[name].active():
                        tr = trackers[name]
                        c0, w0 = time.process_time(), time.perf_counter()
                        for _ in range(a.turns):
                            tr.read(frame, h)
                        times[name]["cpu"].append((time.process_time() - c0) * 1000 / a.turns)
                        times[name]["wall"].append((time.perf_counter() - w0) * 1000 / a.turns)
                        if a.fresh:
                            table_cards = importlib.import_module("companion.vision.table_cards")
                            c0, w0 = time.process_time(), time.perf_counter()
                            for _ in range(a.fresh):
                                table_cards.CardTracker(sc["layout"], decks[name]).read(frame, h)
                            times[name]["fresh_cpu"].append((time.process_time() - c0) * 1000 / a.fresh)
                            times[name]["fresh_wall"].append((time.perf_counter() - w0) * 1000 / a.fresh)
            agree = all(same(x, y) for x, y in zip(got["base"], got["this"]))
            exact = all(identical(x, y) for x, y in zip(got["base"], got["this"]))
            right = sorted(c.label for c in got["this"][0].cards) == sc["turn_labels"]
            line = [f"{style}, {players} players: readings the same: {agree} (to the bit: {exact}; read right: {right})"]
            for name in versions:
                t = {k: statistics.median(v) for k, v in times[name].items() if v}
                s = f"  {name}: turn {t['cpu']:.1f} ms CPU, {t['wall']:.1f} ms wall"
                if a.fresh:
                    s += f"; fresh {t['fresh_cpu']:.0f} ms CPU, {t['fresh_wall']:.0f} ms wall"
                line.append(s)
            print("\n".join(line), flush=True)
    print(f"load after {tp.load()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
