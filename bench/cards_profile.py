"""Where ``read_cards`` (``companion read cards``) spends its CPU, stage by stage, and what leaving a
stage out would save and change (issue #6: <= 60 ms per 1280 x 960 frame with 20 cards).

    .venv/bin/python bench/cards_profile.py [--sets mat,illustrated] [--reads 10] [--frames 3]
                                            [--skip covered,search] [--opencv] [--min-ms 0.3]

Frames: ``bench/cards_cpu.py``'s (the 20-card mat frame of ``bench/run.py``; loose scenes 40-59,
flat and illustrated, of which the first ``--frames``). Each frame is read once to fill the caches,
then ``--reads`` times (the mat frame) or once (a loose scene) with the stage timers of
``bench/tracker_profile.py`` (:class:`StageTimer`: each call path's CPU time, ``time.process_time``,
less that of the timed calls inside it; ``STAGES`` below), and as often again without them (the plain figure: the least
read of each frame, the median over frames). ``--opencv`` also charges every call of the frame-sized
OpenCV functions (``OPENCV``) to the function that made it: the floor any reading of the same
frame pays however its Python is arranged.

``--skip``: for each named stage, the reads again with that stage replaced by a no-op, and how many
readings then differ (label, confidence or quad) from the full read of the same frame: the prize of
a shortcut, and whether it could be exact on these frames. ``covered``: the covered-card pass
(``cards._with_covered`` returns the readings as they are); ``search``: the window search
(``card_search.leftover_regions`` returns no region, so no window is screened; the table estimate
is still made); ``both``.

CPU time of the process, on a shared machine: compare figures of one run, not of two.
"""

from __future__ import annotations

import argparse
import functools
import os
import statistics
import sys
import time
import traceback
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "bench")]

#: Stages timed: (module, function), as ``tracker_profile.StageTimer.install`` takes them.
STAGES = [
    ("companion.vision.cards", "read_card_results"),
    ("companion.vision.cards", "find_card_groups"),
    ("companion.vision.cards", "_candidates"),
    ("companion.vision.cards", "_edges"),
    ("companion.vision.cards", "_hole_core"),
    ("companion.vision.cards", "refine_quads"),
    ("companion.vision.cards", "classify_groups"),
    ("companion.vision.cards", "_look_again"),
    ("companion.vision.cards", "_split_pairs"),
    ("companion.vision.cards", "_with_cores"),
    ("companion.vision.cards", "_with_covered"),
    ("companion.vision.cards", "_with_refused"),
    ("companion.vision.cards", "_without_foreign_paper"),
    ("companion.vision.card_search", "differs_from_table"),
    ("companion.vision.card_search", "leftover_regions"),
    ("companion.vision.card_search", "search_cards"),
    ("companion.vision.card_search", "_edge_turn"),
    ("companion.vision.card_search", "_holds_marker"),
    ("companion.vision.card_search", "_plausible"),
    ("companion.vision.card_search", "_coarse_first"),
    ("companion.vision.card_search", "_refine"),
    ("companion.vision.covered", "_joined"),
    ("companion.vision.covered", "_regions"),
    ("companion.vision.covered", "hypotheses"),
    ("companion.vision.covered", "masked_scores"),
    ("companion.vision.deck", "classify_quads"),
    ("companion.vision.deck", "card_patches"),
    ("companion.vision.deck", "describe"),
    ("companion.vision.deck", "Deck.match"),
]
#: OpenCV functions charged to their caller under ``--opencv`` (those that run on whole frames or on
#: many patches at once in a read).
OPENCV = ("Canny", "findContours", "GaussianBlur", "cvtColor", "resize", "remap", "warpPerspective",
          "inpaint", "medianBlur", "minAreaRect", "dilate", "erode", "morphologyEx", "transform",
          "connectedComponentsWithStats", "distanceTransform")
SKIPS = ("covered", "search", "both")


class BadArgs(ValueError):
    """An argument the bench cannot run with."""


def _key(obs) -> list:
    return [(o.label, o.confidence, o.quad) for o in obs]


def _skipped(mods: dict, which: str):
    """Patch ``which`` stage(s) out of the loaded modules; returns the undo function."""
    cards, search = mods["companion.vision.cards"], mods["companion.vision.card_search"]
    undo = []
    if which in ("covered", "both"):
        undo.append((cards, "_with_covered", cards._with_covered))
        cards._with_covered = lambda frame, deck, readings: readings
    if which in ("search", "both"):
        undo.append((search, "leftover_regions", search.leftover_regions))
        search.leftover_regions = lambda *a, **k: []

    def restore():
        for owner, name, fn in reversed(undo):
            setattr(owner, name, fn)
    return restore


class OpenCVTimer:
    """CPU time of each ``OPENCV`` function's calls, by (function, calling function)."""

    def __init__(self) -> None:
        self.ms: dict[tuple, float] = defaultdict(float)
        self.calls: dict[tuple, int] = defaultdict(int)
        self._undo: list = []

    def install(self) -> None:
        import cv2

        for name in OPENCV:
            fn = getattr(cv2, name)
            self._undo.append((name, fn))

            def timed(*a, _fn=fn, _name=name, **k):
                t0 = time.process_time()
                try:
                    return _fn(*a, **k)
                finally:
                    key = (_name, traceback.extract_stack(limit=2)[0].name)
                    self.ms[key] += 1000 * (time.process_time() - t0)
                    self.calls[key] += 1
            setattr(cv2, name, functools.wraps(fn)(timed) if hasattr(fn, "__name__") else timed)

    def uninstall(self) -> None:
        import cv2

        for name, fn in self._undo:
            setattr(cv2, name, fn)
        self._undo.clear()

    def report(self, reads: int, min_ms: float) -> list[str]:
        rows = sorted(self.ms.items(), key=lambda kv: -kv[1])
        total = sum(self.ms.values()) / reads
        out = [f"    OpenCV {total:.1f} ms a read; by function and caller (ms a read, calls a read):"]
        out += [f"    {ms / reads:7.2f} {self.calls[k] / reads:6.1f}  {k[0]} in {k[1]}"
                for k, ms in rows if ms / reads >= min_ms]
        return out


def _plain(read, frames: list, reads: int) -> tuple[float, list]:
    """The median over frames of each frame's least read (ms CPU), and each frame's readings."""
    least, obs = [], []
    for img, deck in frames:
        ts = []
        for _ in range(reads):
            t0 = time.process_time()
            got = read(img, deck)
            ts.append(1000 * (time.process_time() - t0))
        least.append(min(ts))
        obs.append(_key(got))
    return statistics.median(least), obs


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--sets", default="mat,illustrated", help="which of mat, flat, illustrated")
    p.add_argument("--reads", type=int, default=10, help="reads of the mat frame per measure (loose scenes: 1)")
    p.add_argument("--frames", type=int, default=3, help="loose scenes per set (the first of seeds 40-59)")
    p.add_argument("--skip", default="", help=f"comma-separated, of {', '.join(SKIPS)}")
    p.add_argument("--opencv", action="store_true", help="also charge frame-sized OpenCV calls to their callers")
    p.add_argument("--min-ms", type=float, default=0.3, help="leave out stages under this (ms a read)")
    a = p.parse_args(argv)
    try:
        sets = [s for s in a.sets.split(",") if s]
        skips = [s for s in a.skip.split(",") if s]
        if not sets or any(s not in ("mat", "flat", "illustrated") for s in sets):
            raise BadArgs(f"--sets must name some of mat, flat, illustrated, got {a.sets!r}")
        if any(s not in SKIPS for s in skips):
            raise BadArgs(f"--skip must name some of {', '.join(SKIPS)}, got {a.skip!r}")
        if a.reads < 1 or not 1 <= a.frames <= 20:
            raise BadArgs("--reads must be >= 1 and --frames 1-20")
    except BadArgs as e:
        print(f"cards_profile: {e}", file=sys.stderr)
        return 2
    import cards_cpu
    from tracker_profile import StageTimer

    mods = cards_cpu._load(ROOT)
    sys.modules.update(mods)
    frames = cards_cpu._frames(mods)
    read = mods["companion.vision.cards"].read_cards
    print(f"load average before: {os.getloadavg()[0]:.1f}")
    for name in sets:
        chosen = frames[name] if name == "mat" else frames[name][:a.frames]
        reads = a.reads if name == "mat" else 1
        for img, deck in chosen:
            read(img, deck)  # caches filled (the deck's banks)
        full_ms, full = _plain(read, chosen, reads)
        timer, cvt = StageTimer(), OpenCVTimer()
        timer.install(STAGES)
        if a.opencv:
            cvt.install()
        try:
            t0 = time.process_time()
            for img, deck in chosen:
                for _ in range(reads):
                    read(img, deck)
            timed = 1000 * (time.process_time() - t0) / (reads * len(chosen))
        finally:
            cvt.uninstall()
            timer.uninstall()
        n = reads * len(chosen)
        print(f"{name} ({len(chosen)} frame{'s' * (len(chosen) > 1)}): {full_ms:.1f} ms CPU a read "
              f"(least of {reads}, median over frames); {timed:.1f} with the timers on")
        print("\n".join(timer.report(n, a.min_ms)).replace("(per turn)", "(per read)"))
        if a.opencv:
            print("\n".join(cvt.report(n, a.min_ms)))
        for which in skips:
            restore = _skipped(mods, which)
            try:
                ms, obs = _plain(read, chosen, reads)
            finally:
                restore()
            changed = [i for i, (x, y) in enumerate(zip(obs, full)) if x != y]
            print(f"  without {which}: {ms:.1f} ms (x{ms / full_ms:.3f}); readings changed on "
                  f"{len(changed)} of {len(chosen)} frame(s)")
    print(f"load average after: {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
