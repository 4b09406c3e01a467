"""Seeing a roll settle (issue #7 §3): speed of the motion detector and how soon it says "settled".

    .venv/bin/python bench/watch.py [--seeds N] [--first SEED]

Simulated 320 × 240 roll sequences (``companion.sim.rolls``), every scenario (throws, a hand
reaching in, a hand collecting the dice, a slow push, flicker, exposure drift, heavy noise, a
rocking die, a quiet table), seeds 1000 … 1000+N−1 (the tests use seeds below 100, the fixture
900). Each sequence is fed frame by frame to a fresh ``SettleDetector``; its events are judged
against the sequence's truth with ``judge_events``:

* ms per frame: ``SettleDetector.update`` on a 320 × 240 BGR frame (grey conversion included),
  median and 95th percentile over every frame of every sequence;
* settle latency: frames from the last moving frame of a motion period to ``settled``
  (median, max), and how many settles were missed or late (> 8 frames);
* false events: ``settled`` while something moved or twice in one still period, ``moving`` at a
  still frame (the quiet scenario has only flicker, drift, noise and a rocking die).

Targets (issue #7): ≤ 2 ms per frame on this machine, every settle within 8 frames, no false
events. Timing lives here, never in tests.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from companion.sim.rolls import SCENARIOS, judge_events, simulate_rolls  # noqa: E402
from companion.vision.motion import SettleDetector  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, default=10, help="sequences per scenario (default 10)")
    ap.add_argument("--first", type=int, default=1000, help="first seed (default 1000)")
    ap.add_argument("--verbose", action="store_true", help="one line per sequence")
    args = ap.parse_args(argv)

    times_ms: list[float] = []
    latencies: list[int] = []
    move_delays: list[int] = []
    missed = late = while_moving = duplicates = spurious = missed_moves = periods = frames = 0
    for scenario in SCENARIOS:
        for seed in range(args.first, args.first + args.seeds):
            seq = simulate_rolls(seed, scenario)
            det = SettleDetector()
            events = []
            for i, frame in enumerate(seq.frames):
                t0 = time.perf_counter()
                events += det.update(frame, i / seq.fps)
                times_ms.append((time.perf_counter() - t0) * 1000)
            j = judge_events(seq.truth, events)
            frames += len(seq.frames)
            periods += len(seq.truth.periods)
            latencies += j.latencies
            move_delays += j.move_delays
            missed += j.missed
            late += j.late
            while_moving += j.while_moving
            duplicates += j.duplicates
            spurious += j.spurious_moves
            missed_moves += j.missed_moves
            if args.verbose or not j.ok:
                ev = " ".join(f"{e.kind[0]}{e.frame}" for e in events)
                print(f"  {scenario:8s} seed {seed}: {'ok ' if j.ok else 'BAD'} periods "
                      f"{list(seq.truth.periods)} events {ev}", file=sys.stderr)
    t = np.array(times_ms)
    lat = np.array(latencies) if latencies else np.array([0])
    print(
        f"watch: {len(SCENARIOS) * args.seeds} sequences, {frames} frames 320x240, {periods} motion periods | "
        f"{statistics.median(times_ms):.2f} ms/frame median, {np.percentile(t, 95):.2f} p95 | "
        f"settled {len(latencies)}/{len(latencies) + missed + late} in time, latency median "
        f"{statistics.median(lat.tolist()):.0f} min {lat.min()} max {lat.max()} frames (mean {lat.mean():.1f}), "
        f"missed {missed}, "
        f"late {late} | false: settled while moving {while_moving}, extra settled {duplicates}, "
        f"moving at still frames {spurious}, motion without 'moving' {missed_moves} | moving decided "
        f"median {statistics.median(move_delays) if move_delays else 0:.0f} max {max(move_delays, default=0)} "
        f"frames after motion began"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
