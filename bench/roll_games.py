"""Whole Sushi Roll games read live from the simulated camera: does the companion end with the
true score, trays and tokens? (issue #10)

    .venv/bin/python bench/roll_games.py [--games 3:1,5:2,2:12,4:14] [--out /tmp/roll-games]

Each game (``PLAYERS:SEED``) is ``companion demo --game sushi-roll --headless``: bots play a whole
game on the simulated table (:class:`companion.sim.roll_stream.SimRollStream`, 2028×1520 frames,
hands reaching in), the play loop reads it (settle detector, dice reader, engine, journal,
screens), and the bots answer the companion's questions on the panel from what they did. Per game:
whether the final result, every round's trays and the tokens at the end equal the truth, the
settles applied, the questions asked, the moves refused and the lines reporting a problem
(refused, unreadable, mismatch, a device's status: there should be none, the bots play legally),
and the wall-clock time. Seeds used while building: 3:1 and 5:2
(the demo's); the other default games were run once on the final code.
"""

from __future__ import annotations

import argparse
import io
import re
import sys
import time
from types import SimpleNamespace


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", default="3:1,5:2,2:12,4:14", help="PLAYERS:SEED,... (default: %(default)s)")
    ap.add_argument("--out", default="/tmp/roll-games", help="where each game's screens and journal go")
    args = ap.parse_args(argv)
    from companion.app import cmd_demo_roll

    print(f"{'game':>8} {'agree':>6} {'applied':>8} {'asked':>6} {'refused':>8} {'problems':>9} {'s':>6}")
    failures = 0
    for item in args.games.split(","):
        players, seed = (int(v) for v in item.split(":"))
        out = io.StringIO()
        t0 = time.perf_counter()
        code = cmd_demo_roll.run(SimpleNamespace(players=players, seed=seed, headless=True,
                                                 screens=f"{args.out}/{players}p-{seed}", game="sushi-roll"), out)
        took = time.perf_counter() - t0
        text = out.getvalue()
        applied = len(re.findall(r"^  round \d+ turn \d+:", text, re.M))
        asked = text.count("\n  ? ")
        found = re.search(r"(\d+) move\(s\) refused", text)
        refused = int(found.group(1)) if found else -1
        problems = text.count("\n  ! ")  # refused, unreadable, mismatch or status lines
        failures += code != 0
        print(f"{players}p/{seed:<4} {'yes' if code == 0 else 'NO':>6} {applied:>8} {asked:>6} {refused:>8} "
              f"{problems:>9} {took:>6.0f}")
        if code != 0:
            print(text[-2000:], file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
