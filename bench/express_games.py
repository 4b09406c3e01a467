"""Whole Sushi Express games read live from the simulated camera: does the companion end with the true
score, every player's customers and every van? (issue #11)

    .venv/bin/python bench/express_games.py [--games 3:1,4:1,5:2,6:3,3:11,4:12] [--out /tmp/express-games]

Each game (``PLAYERS:SEED``) is ``companion demo --game sushi-express --headless``: bots play a whole
game with the rules engine, then act it out on the simulated table
(:class:`companion.sim.express_stream.SimExpressStream`, 1280×960 frames: hands, dice thrown,
tumbling and coming to rest); the play loop reads every throw (settle detector, pip-dice reader,
table rules, journal, screens), and the bots answer every question on the panel from what they did.
Per game: whether the result, the customers and the vans equal the truth, the throws read, the
questions answered, the moves refused, the lines reporting a problem (a die not read, so the bots
threw again; a refusal; a device's status) and the wall-clock time. Seeds used while building: 3:1
and 4:1 (the demo's); the others were run once on the final code.
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
    ap.add_argument("--games", default="3:1,4:1,5:2,6:3,3:11,4:12", help="PLAYERS:SEED,... (default: %(default)s)")
    ap.add_argument("--out", default="/tmp/express-games", help="where each game's screens and journal go")
    args = ap.parse_args(argv)
    from companion.app import cmd_demo_express

    print(f"{'game':>8} {'agree':>6} {'throws':>7} {'asked':>6} {'refused':>8} {'problems':>9} {'s':>6}")
    failures = 0
    for item in args.games.split(","):
        players, seed = (int(v) for v in item.split(":"))
        out = io.StringIO()
        t0 = time.perf_counter()
        code = cmd_demo_express.run(SimpleNamespace(players=players, seed=seed, headless=True,
                                                    screens=f"{args.out}/{players}p-{seed}", game="sushi-express"), out)
        took = time.perf_counter() - t0
        text = out.getvalue()
        found = re.search(r"(\d+) throws read from the camera; (\d+) question\(s\) answered on the panel, "
                          r"(\d+) move\(s\) refused", text)
        throws, asked, refused = (int(v) for v in found.groups()) if found else (-1, -1, -1)
        problems = text.count("\n  ! ")
        failures += code != 0
        print(f"{players}p/{seed:<4} {'yes' if code == 0 else 'NO':>6} {throws:>7} {asked:>6} {refused:>8} "
              f"{problems:>9} {took:>6.0f}")
        if code != 0:
            print(text[-2000:], file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
