"""From the last motion to the scored turn (issue #9 §6): latency of ``companion play``'s loop.

    .venv/bin/python bench/play_latency.py [--players N] [--turns T] [--seeds S] [--read-ahead F]

A simulated camera (``companion.sim.stream.SimTableStream``, 1280×960 main frames, hands reaching
in, a settle in the middle of each reveal) feeds a :class:`companion.app.play.PlayLoop` with a
journal on disk, as ``companion play --camera sim`` does. For each applied turn the loop's own
:class:`~companion.app.play.LoopStats` give:

* wait: the quiet frames from the first still frame of the whole reveal to the settle, both
  counted (the settle detector waits for 6 quiet frames);
* read: the time reading the main frame took (``TableGame.look``: mat, cards, zones), and how many
  frames before the settle it started (``--read-ahead``, default the loop's 3; 0 reads at the
  settle);
* judge: the loop's time after the settle to check the turn with the engine and commit it to the
  journal (``synchronous=FULL``).

The simulator draws frames slower than a camera gives them, so the latency at 30 fps is worked
out, not clocked: wait × 33.3 ms + what of the read is left after the settle
(read − head start × 33.3 ms, at least 0) + judge.

Target (issue #9): latency ≤ 350 ms, of which the read ≤ 60 ms. Timing lives here, never in tests.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

FRAME_MS = 1000 / 30


def main(argv: list[str] | None = None) -> int:
    from companion.app.games import adapter
    from companion.app.journal import Journal
    from companion.app.play import READ_AHEAD_FRAMES, PlayLoop
    from companion.app.table_game import TableGame
    from companion.sim.record import enroll_sim_deck
    from companion.sim.stream import SimTableStream

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--turns", type=int, default=8)
    ap.add_argument("--seeds", type=int, default=2)
    ap.add_argument("--read-ahead", type=int, default=READ_AHEAD_FRAMES)
    args = ap.parse_args(argv)
    deck = enroll_sim_deck()
    names = ["Ann", "Bo", "Cy", "Di", "Ed"][: args.players]
    wait, reads, after, total = [], [], [], []
    heads = []
    for seed in range(args.seeds):
        with tempfile.TemporaryDirectory() as tmp:
            stream = SimTableStream(names, 100 + seed, max_turns=args.turns)
            journal = Journal(Path(tmp) / "j.sqlite3")
            game_id = journal.new_game("sushi-go", names, {})
            loop = PlayLoop(table=TableGame(names, stream.layout, deck), journal=journal, game_id=game_id,
                            camera=stream, adapter=adapter("sushi-go"), players=names, options={},
                            read_ahead=args.read_ahead)
            loop.run()
            journal.close()
            st = loop.stats
            for read_at, settled_at, read_ms, judge_ms, truth in zip(
                    st.applied_at, st.settled_at, st.read_ms, st.judge_ms, stream.truth):
                frames = settled_at - truth.settled_frame + 1  # the quiet run, its first frame too
                head = settled_at - read_at
                left = max(0.0, read_ms - head * FRAME_MS) + judge_ms
                assert head >= 0, "a turn read from a frame after its settle"
                heads.append(head)
                wait.append(frames)
                reads.append(read_ms)
                after.append(left)
                total.append(frames * FRAME_MS + left)
    print(f"{len(total)} turns, {args.players} players, {args.seeds} seeds, read ahead {args.read_ahead} frames")
    print(f"settle: {statistics.median(wait):.0f} frames median, {max(wait)} max")
    print(f"read: {statistics.median(reads):.0f} ms median, {max(reads):.0f} ms max, "
          f"started {statistics.median(heads):.0f} frames before the settle (median)")
    print(f"after the settle (rest of the read, check, journal): {statistics.median(after):.0f} ms median, "
          f"{max(after):.0f} ms max (target for the read's share <= 60 ms)")
    print(f"last motion -> scored turn at 30 fps: {statistics.median(total):.0f} ms median, "
          f"{max(total):.0f} ms max (target <= 350 ms)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
