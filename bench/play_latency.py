"""From the last motion to the scored turn (issue #9 §6): latency of ``companion play``'s loop.

    .venv/bin/python bench/play_latency.py [--players N] [--turns T] [--seeds S] [--first-seed K]
                                           [--read-ahead F]

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

A wall time on a busy machine is mostly waiting, so the read is also given in CPU time
(``LoopStats.read_cpu_ms``: the reading thread's ``time.thread_time``), and, over every read of the
game (the mid-reveal ones too), split into its parts and set beside what else ran in the process:

* by part, on the reading thread: the mat tracker (ArUco markers over the whole frame), the card
  tracker (``companion.vision.table_cards``, what ``bench/run.py``'s tracker figure times alone),
  and the rest (zones, mat mm);
* the read's CPU on all threads (the reading thread and any OpenCV pool thread: the process's CPU
  time over the read less the loop's thread's);
* the loop's thread meanwhile: the simulated camera (drawing and shrinking frames, which a real
  camera does in its own hardware) and the settle detector, the only other work in the process;
* the simulated camera's own CPU per frame, over the whole run, on the loop's thread.

The last line gives the latency again with each read's wall time replaced by its CPU time: what
it would be with a core free for the read, as the same figure would be on a machine doing nothing
else.

Target (issue #9): latency ≤ 350 ms, of which the read ≤ 60 ms. Timing lives here, never in tests.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

FRAME_MS = 1000 / 30


class _Clocks:
    """CPU time of the read's parts and of what else ran, gathered by wrapping one game's table,
    mat tracker, card tracker and camera (instance attributes, but the card tracker's class: a fresh
    read and a resync make a new tracker, whose reads count too; this bench's process only)."""

    def __init__(self, table, camera) -> None:
        self.reads: list[dict[str, float]] = []
        self.camera_cpu_ms: list[float] = []
        self._part: dict[str, float] = {}
        loop_thread = threading.get_ident()
        getclock = getattr(time, "pthread_getcpuclockid", None)
        self._loop_clock = getclock(loop_thread) if getclock is not None else None
        table.look = self._look(table.look)
        table.tracker.update = self._timed("mat", table.tracker.update)
        cls = type(table.cards)
        cls._unclocked_read = getattr(cls, "_unclocked_read", cls.read)  # one game after another: not nested
        cls.read = self._timed("cards", cls._unclocked_read)
        camera.read = self._camera(camera.read)

    def _loop_cpu(self) -> float:
        return time.clock_gettime(self._loop_clock) * 1000 if self._loop_clock is not None else float("nan")

    def _timed(self, name, fn):
        def timed(*args, **kw):
            c0 = time.thread_time()
            try:
                return fn(*args, **kw)
            finally:
                self._part[name] = (time.thread_time() - c0) * 1000
        return timed

    def _look(self, fn):
        def look(*args, **kw):
            self._part = {}
            w0, c0, p0, l0 = time.perf_counter(), time.thread_time(), time.process_time(), self._loop_cpu()
            try:
                return fn(*args, **kw)
            finally:
                cpu, loop = (time.thread_time() - c0) * 1000, self._loop_cpu() - l0
                on_loop = threading.get_ident() == threading.main_thread().ident
                self.reads.append(dict(self._part, wall=(time.perf_counter() - w0) * 1000, cpu=cpu,
                                       all_cpu=(time.process_time() - p0) * 1000 - (0.0 if on_loop else loop),
                                       loop=float("nan") if on_loop else loop))
        return look

    def _camera(self, fn):
        def read(*args, **kw):
            c0 = time.thread_time()
            try:
                return fn(*args, **kw)
            finally:
                self.camera_cpu_ms.append((time.thread_time() - c0) * 1000)
        return read


def _median(values) -> float:
    values = [v for v in values if v == v]  # not NaN
    return statistics.median(values) if values else float("nan")


def _max(values) -> float:
    values = [v for v in values if v == v]
    return max(values) if values else float("nan")


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
    ap.add_argument("--first-seed", type=int, default=0, help="simulator seeds 100+K, 100+K+1, ...")
    ap.add_argument("--read-ahead", type=int, default=READ_AHEAD_FRAMES)
    args = ap.parse_args(argv)
    deck = enroll_sim_deck()
    names = ["Ann", "Bo", "Cy", "Di", "Ed"][: args.players]
    wait, reads, reads_cpu, after, total, total_cpu = [], [], [], [], [], []
    heads = []
    parts: list[dict[str, float]] = []
    camera_cpu: list[float] = []
    load0 = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    for seed in range(args.first_seed, args.first_seed + args.seeds):
        with tempfile.TemporaryDirectory() as tmp:
            stream = SimTableStream(names, 100 + seed, max_turns=args.turns)
            journal = Journal(Path(tmp) / "j.sqlite3")
            game_id = journal.new_game("sushi-go", names, {})
            table = TableGame(names, stream.layout, deck)
            clocks = _Clocks(table, stream)
            loop = PlayLoop(table=table, journal=journal, game_id=game_id,
                            camera=stream, adapter=adapter("sushi-go"), players=names, options={},
                            read_ahead=args.read_ahead)
            loop.run()
            journal.close()
            parts += clocks.reads
            camera_cpu += clocks.camera_cpu_ms
            st = loop.stats
            cpus = getattr(st, "read_cpu_ms", None) or [float("nan")] * len(st.read_ms)  # (older loops)
            for read_at, settled_at, read_ms, read_cpu, judge_ms, truth in zip(
                    st.applied_at, st.settled_at, st.read_ms, cpus, st.judge_ms, stream.truth):
                frames = settled_at - truth.settled_frame + 1  # the quiet run, its first frame too
                head = settled_at - read_at
                left = max(0.0, read_ms - head * FRAME_MS) + judge_ms
                assert head >= 0, "a turn read from a frame after its settle"
                heads.append(head)
                wait.append(frames)
                reads.append(read_ms)
                reads_cpu.append(read_cpu)
                after.append(left)
                total.append(frames * FRAME_MS + left)
                total_cpu.append(frames * FRAME_MS + max(0.0, read_cpu - head * FRAME_MS) + judge_ms
                                 if read_cpu == read_cpu else float("nan"))
    load1 = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"{len(total)} turns, {args.players} players, seeds {100 + args.first_seed}-"
          f"{100 + args.first_seed + args.seeds - 1}, read ahead {args.read_ahead} frames; "
          f"load average {load0:.1f} -> {load1:.1f} on {os.cpu_count()} cores")
    print(f"settle: {statistics.median(wait):.0f} frames median, {max(wait)} max")
    print(f"read: {statistics.median(reads):.0f} ms median, {max(reads):.0f} ms max (wall), "
          f"started {statistics.median(heads):.0f} frames before the settle (median)")
    print(f"read, CPU of the reading thread: {_median(reads_cpu):.0f} ms median, {_max(reads_cpu):.0f} ms max; "
          f"wall - CPU {_median([w - c for w, c in zip(reads, reads_cpu)]):.0f} ms median (waiting for a core, the GIL "
          f"or OpenCV's pool threads)")
    print(f"every read of the game ({len(parts)}, mid-reveal ones too), medians: "
          f"wall {_median(p['wall'] for p in parts):.0f} ms, "
          f"CPU {_median(p['cpu'] for p in parts):.0f} ms on the reading thread = mat tracker "
          f"{_median(p.get('mat', float('nan')) for p in parts):.0f} + card tracker "
          f"{_median(p.get('cards', float('nan')) for p in parts):.0f} + zones and the rest "
          f"{_median(p['cpu'] - p.get('mat', 0.0) - p.get('cards', 0.0) for p in parts):.1f}; "
          f"{_median(p['all_cpu'] for p in parts):.0f} ms on all threads (OpenCV's pool too)")
    print(f"the loop's thread meanwhile (simulated camera + settle detector): "
          f"{_median(p['loop'] for p in parts):.1f} ms CPU median per read, {_max(p['loop'] for p in parts):.1f} max; "
          f"the simulated camera alone: {statistics.mean(camera_cpu):.1f} ms CPU per frame on average "
          f"({len(camera_cpu)} frames, {sum(camera_cpu) / 1000:.1f} s)")
    print(f"after the settle (rest of the read, check, journal): {statistics.median(after):.0f} ms median, "
          f"{max(after):.0f} ms max (target for the read's share <= 60 ms)")
    print(f"last motion -> scored turn at 30 fps: {statistics.median(total):.0f} ms median, "
          f"{max(total):.0f} ms max (target <= 350 ms)")
    print(f"... the same with each read's wall time replaced by its CPU time (a core free for it): "
          f"{_median(total_cpu):.0f} ms median, {_max(total_cpu):.0f} ms max")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
