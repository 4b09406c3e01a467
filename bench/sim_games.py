"""The in-game reader on whole simulated games, per card style (issue #6).

    .venv/bin/python bench/sim_games.py --style illustrated --seeds 1-8 [--players 2,3,4,5] [--cards]

For each seed and player count, bots play a game (``companion.sim.game_sim``) and every reveal is
rendered in the chosen card style; the deck is enrolled from that style's flat scans, as a user
enrols their own. Each frame goes through :class:`companion.app.table_game.TableGame`, exactly as
``companion replay`` does. Reported:

* **turns read**: turns applied with exactly the plays the bots made, before the first stop;
* **games right**: games read to the end whose scores equal the engine's truth;
* with ``--cards``: every visible card on every frame read by ``read_cards_on_mat`` with the true
  homography, against the renderer's truth: missed (not read with its label), wrong (read with
  another card's name: the one error that must never happen) and extra readings.

Two players means the two-player dummy variant (three seats, the 3-seat mat), as in the demo.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def _seeds(text: str) -> list[int]:
    out: list[int] = []
    for part in text.split(","):
        a, _, b = part.partition("-")
        out += list(range(int(a), int(b or a) + 1))
    return out


def card_errors(frame, layout, deck) -> tuple[int, int, int, int, list[str]]:
    """(truth cards, missed, wrong, extra, notes) for one rendered frame, true homography."""
    from companion.rules.cards import UNKNOWN
    from companion.vision.mat_cards import read_cards_on_mat

    obs = read_cards_on_mat(frame.image, np.linalg.inv(frame.homography), layout, deck)
    truth = frame.cards
    # A wasabi under its nigiri is hidden: the later card at the same place is the one seen.
    visible = [t for i, t in enumerate(truth)
               if not any(np.linalg.norm(t[1].mean(0) - u[1].mean(0)) < 3 for u in truth[i + 1:])]
    used: set[int] = set()
    missed = wrong = 0
    notes = []
    for label, quad in visible:
        c = quad.mean(axis=0)
        best, bd = None, 1e9
        for i, o in enumerate(obs):
            d = float(np.hypot(o.center[0] - c[0], o.center[1] - c[1]))
            if i not in used and d < bd:
                best, bd = i, d
        side = float(np.linalg.norm(quad[1] - quad[0]))
        if best is None or bd > 0.25 * side:
            missed += 1
            notes.append(f"{label} not found")
            continue
        used.add(best)
        if obs[best].label != label:
            missed += 1
            if obs[best].label != UNKNOWN:
                wrong += 1
            notes.append(f"{label} read {obs[best].label}")
    extra = len(obs) - len(used)
    if extra:
        notes.append(f"{extra} extra: " + ", ".join(o.label for i, o in enumerate(obs) if i not in used))
    return len(visible), missed, wrong, extra, notes


def run(style: str, seeds: list[int], players: list[int], cards: bool, verbose: bool) -> dict:
    from companion.app.table_game import TableGame
    from companion.rules.sushi_go_state import SushiGoOptions
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
                if cards:
                    c, m, w, e, notes = card_errors(st.frame, layout, deck)
                    tot["cards"] += c
                    tot["missed"] += m
                    tot["wrong"] += w
                    tot["extra"] += e
                    if verbose and notes:
                        print(f"  seed {seed} {n}p r{st.round} t{st.turn}: " + "; ".join(notes))
                if stopped:
                    continue
                t0 = time.perf_counter()
                out = game.feed(st.frame.image)
                tot["ms"].append((time.perf_counter() - t0) * 1000)
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
    p.add_argument("--seeds", default="1-8")
    p.add_argument("--players", default="2,3,4,5")
    p.add_argument("--cards", action="store_true", help="also count every card on every frame")
    p.add_argument("-v", "--verbose", action="store_true")
    a = p.parse_args(argv)
    t = run(a.style, _seeds(a.seeds), [int(v) for v in a.players.split(",")], a.cards, a.verbose)
    line = (f"{a.style}: games right {t['games_right']}/{t['games']}, turns read {t['turns_read']}/{t['turns']}, "
            f"{np.median(t['ms']):.0f} ms per frame (median)")
    if a.cards:
        line += f"; cards {t['cards']}: missed {t['missed']}, wrong {t['wrong']}, extra {t['extra']}"
    print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
