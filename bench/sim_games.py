"""The in-game reader on whole simulated games, per card style (issue #6).

    .venv/bin/python bench/sim_games.py --style illustrated --seeds 1-8 [--players 2,3,4,5] [--cards]

For each seed and player count, bots play a game (``companion.sim.game_sim``) and every reveal is
rendered in the chosen card style; the deck is enrolled from that style's flat scans, as a user
enrols their own. Each frame goes through :class:`companion.app.table_game.TableGame`, exactly as
``companion replay`` does. Reported:

* **turns read**: turns applied with exactly the plays the bots made, before the first stop;
* **games right**: games read to the end whose scores equal the engine's truth;
* with ``--cards``: every visible card on every frame the game read (until it stopped), as the
  game's card tracker saw it, against the renderer's truth: missed (not read with its label),
  wrong (read with another card's name: the one error that must never happen) and extra readings.

Two players means the two-player dummy variant (three seats, the 3-seat mat), as in the demo.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from seedargs import seed_list  # noqa: E402


def card_errors(sighting, frame, homography) -> tuple[int, int, int, int, list[str]]:
    """(truth cards, missed, wrong, extra, notes) for what the game's card tracker saw in one frame.

    Matching is by centre on the mat (within 4 mm); a wasabi under its nigiri is hidden. "wrong"
    counts a card read with another card's name (an "unknown" is missed, not wrong).
    """
    import cv2

    from companion.rules.sushi_go.cards import UNKNOWN

    truth = [(label, cv2.perspectiveTransform(q[None].astype(np.float64), homography)[0].mean(axis=0))
             for label, q in frame.cards]
    visible = [t for i, t in enumerate(truth) if not any(np.hypot(*(t[1] - u[1])) < 3 for u in truth[i + 1:])]
    seen = sighting.cards if sighting is not None else []
    used: set[int] = set()
    missed = wrong = 0
    notes = []
    for label, c in visible:
        d = [(float(np.hypot(c[0] - k.rect_mm[0][0], c[1] - k.rect_mm[0][1])), i) for i, k in enumerate(seen)
             if i not in used]
        dist, i = min(d) if d else (1e9, -1)
        if dist > 4.0:
            missed += 1
            notes.append(f"{label} not found")
            continue
        used.add(i)
        if seen[i].label != label:
            missed += 1
            if seen[i].label != UNKNOWN:
                wrong += 1
            notes.append(f"{label} read {seen[i].label}")
    extra = len(seen) - len(used)
    if extra:
        notes.append(f"{extra} extra: " + ", ".join(k.label for i, k in enumerate(seen) if i not in used))
    return len(visible), missed, wrong, extra, notes


def run(style: str, seeds: list[int], players: list[int], cards: bool, verbose: bool) -> dict:
    from companion.app.table_game import TableGame
    from companion.rules.sushi_go.state import SushiGoOptions
    from companion.sim.game_sim import NAMES, mat_for, simulate_game
    from companion.sim.record import enroll_sim_deck

    deck = enroll_sim_deck(style=style)
    tot = dict(games=0, games_right=0, turns=0, turns_read=0, cards=0, missed=0, wrong=0, extra=0, ms=[])
    for seed in seeds:
        for n in players:
            options = SushiGoOptions(dummy=(n == 2))
            names = list(NAMES[:n])
            layout = mat_for(n, options)
            game = TableGame(names, layout, deck, options)
            stopped = False
            last = None
            for st in simulate_game(names, seed, options, style=style):
                tot["turns"] += 1
                last = st.truth
                if stopped:
                    continue
                t0 = time.perf_counter()
                out = game.feed(st.frame.image)
                tot["ms"].append((time.perf_counter() - t0) * 1000)
                if cards and game.tracker.homography is not None:
                    c, m, w, e, notes = card_errors(game._sighting, st.frame, game.tracker.homography)
                    tot["cards"] += c
                    tot["missed"] += m
                    tot["wrong"] += w
                    tot["extra"] += e
                    if verbose and notes:
                        print(f"  seed {seed} {n}p r{st.round} t{st.turn}: " + "; ".join(notes))
                # A camera cannot see the order of a chopsticks turn's two cards (app/turns.py).
                truth = {s: sorted(c.value for c in p.cards) for s, p in st.plays.items()}
                if out.ok and {s: sorted(c.value for c in cs) for s, cs in out.plays.items()} == truth:
                    tot["turns_read"] += 1
                else:
                    stopped = True
                    if verbose:
                        print(f"  seed {seed} {n}p: stopped at round {st.round} turn {st.turn}: {out.kind}: "
                              f"{out.message}")
            tot["games"] += 1
            right = not stopped and game.state.is_over and game.state.result.to_dict()["total"] == \
                last.result.to_dict()["total"]
            tot["games_right"] += right
            if verbose:
                print(f"seed {seed} {n}p: {'right' if right else 'WRONG'}")
    return tot


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--style", default="illustrated")
    p.add_argument("--seeds", type=seed_list, default="1-8")
    p.add_argument("--players", default="2,3,4,5")
    p.add_argument("--cards", action="store_true", help="also count every card on every frame")
    p.add_argument("-v", "--verbose", action="store_true")
    a = p.parse_args(argv)
    t = run(a.style, a.seeds, [int(v) for v in a.players.split(",")], a.cards, a.verbose)
    line = (f"{a.style}: games right {t['games_right']}/{t['games']}, turns read {t['turns_read']}/{t['turns']}, "
            f"{np.median(t['ms']):.0f} ms per frame (median)")
    if a.cards:
        line += f"; cards {t['cards']}: missed {t['missed']}, wrong {t['wrong']}, extra {t['extra']}"
    print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
