"""From the last motion to the scored turn (issue #9 §6): latency of ``companion play``'s loop.

    .venv/bin/python bench/play_latency.py [--players N] [--turns T] [--seeds S]

A simulated camera (``companion.sim.stream.SimTableStream``, 1280×960 main frames, hands reaching
in, a settle in the middle of each reveal) feeds a :class:`companion.app.play.PlayLoop` with a
journal on disk, as ``companion play --camera sim`` does. For each applied turn:

* settle frames: frames from the first still frame of the whole reveal to the frame the loop
  read it at (the settle detector waits for 6 quiet frames);
* latency at 30 fps: settle frames × 33.3 ms + the time the loop took to read that frame, check
  the turn with the engine and commit it to the journal (``synchronous=FULL``);
* read: that last part alone.

Target (issue #9): latency ≤ 350 ms, of which the read ≤ 60 ms. Timing lives here, never in tests.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

FRAME_MS = 1000 / 30


def main(argv: list[str] | None = None) -> int:
    from companion.app.games import adapter
    from companion.app.journal import Journal
    from companion.app.play import PlayLoop
    from companion.app.table_game import TableGame
    from companion.sim.record import enroll_sim_deck
    from companion.sim.stream import SimTableStream

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--turns", type=int, default=8)
    ap.add_argument("--seeds", type=int, default=2)
    args = ap.parse_args(argv)
    deck = enroll_sim_deck()
    names = ["Ann", "Bo", "Cy", "Di", "Ed"][: args.players]
    settle, reads, total = [], [], []
    for seed in range(args.seeds):
        with tempfile.TemporaryDirectory() as tmp:
            stream = SimTableStream(names, 100 + seed, max_turns=args.turns)
            journal = Journal(Path(tmp) / "j.sqlite3")
            game_id = journal.new_game("sushi-go", names, {})
            loop = PlayLoop(table=TableGame(names, stream.layout, deck), journal=journal, game_id=game_id,
                            camera=stream, adapter=adapter("sushi-go"), players=names, options={})
            read_at: dict[int, float] = {}
            original = loop._read

            def timed(frame, index, original=original, read_at=read_at):
                t0 = time.perf_counter()
                original(frame, index)
                read_at[index] = (time.perf_counter() - t0) * 1000

            loop._read = timed
            loop.run()
            journal.close()
            for frame, truth in zip(loop.stats.applied_at, stream.truth):
                frames = frame - truth.settled_frame
                settle.append(frames)
                reads.append(read_at[frame])
                total.append(frames * FRAME_MS + read_at[frame])
    print(f"{len(total)} turns, {args.players} players, {args.seeds} seeds")
    print(f"settle: {statistics.median(settle):.0f} frames median, {max(settle)} max")
    print(f"read + check + journal: {statistics.median(reads):.0f} ms median, {max(reads):.0f} ms max (target <= 60 ms)")
    print(f"last motion -> scored turn at 30 fps: {statistics.median(total):.0f} ms median, "
          f"{max(total):.0f} ms max (target <= 350 ms)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
