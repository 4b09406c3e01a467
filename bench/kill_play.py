"""kill -9 at random moments (issue #9 §3): a real ``companion play`` on the simulated camera is
killed with SIGKILL after a random number of applied turns and a random delay, then started
again; the resumed game must end identical to an uninterrupted one, with no committed turn lost.

    .venv/bin/python bench/kill_play.py [--kills 100] [--turns 6] [--seed 0]

Each kill: run until turn k (1..turns-1) is announced, wait 0–400 ms, SIGKILL, run again to the
end of the simulated camera. Counts: kills, turns announced but missing from the journal (target
0), resumed games that differ from the uninterrupted one (target 0), resumes that failed.
The tests run two of these; this runs as many as asked.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def _cmd(journal: Path, turns: int) -> list[str]:
    return [sys.executable, "-c", "from companion.cli import main; raise SystemExit(main())", "play",
            "--players", "Ann,Bo", "--camera", "sim", "--seed", "4", "--sim-turns", str(turns),
            "--journal", str(journal), "--display", "none", "--json"]


def _turns(path: Path) -> list[dict]:
    from companion.app.journal import Journal

    with Journal(path) as j:
        (entry,) = j.games()
        return [e.payload for e in j.events(entry.id) if e.kind == "turn"]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kills", type=int, default=100)
    ap.add_argument("--turns", type=int, default=6)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    rng = random.Random(args.seed)
    lost = differ = failed = 0
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        whole = Path(tmp) / "whole.sqlite3"
        subprocess.run(_cmd(whole, args.turns), capture_output=True, timeout=900)
        reference = _turns(whole)
        for k in range(args.kills):
            path = Path(tmp) / f"kill{k}.sqlite3"
            target = rng.randint(1, args.turns - 1)
            proc = subprocess.Popen(_cmd(path, args.turns), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
            announced = 0
            for line in proc.stdout:
                if json.loads(line)["event"] == "applied":
                    announced += 1
                    if announced == target:
                        break
            time.sleep(rng.uniform(0.0, 0.4))
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait()
            lost += max(0, announced - len(_turns(path)))
            again = subprocess.run(_cmd(path, args.turns), capture_output=True, text=True, timeout=900)
            if not again.stdout.startswith('{"event": "resumed"'):
                failed += 1
            differ += _turns(path) != reference
    print(f"{args.kills} kills in {time.monotonic() - t0:.0f} s ({args.turns}-turn games, 2 players): "
          f"{lost} announced turns lost, {differ} resumed games differ, {failed} resumes failed")
    return 1 if lost or differ or failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
