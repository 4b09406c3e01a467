"""Where a game turn's CPU goes in the card tracker (issue #6: <= 60 ms per 1280x960 frame, 20 cards).

    .venv/bin/python bench/tracker_profile.py [--styles illustrated,pattern] [--players 4,5] [--turns 5]
                                              [--cprofile N]

For each style and mat a table is rendered as ``bench/run.py``'s ``bench_tracker`` does (one shot's
light and noise, ``companion.sim.table.render_table`` at 1280x960): every seat's tableau with its
last card missing is read and accepted, then the turn that adds one card per seat (4 players: 16
kept + 4 new = 20 cards; 5 players: 15 kept + 5 new) is read ``--turns`` times. A third frame lays,
in the place of one kept card, its look-alike (a maki_1 where a maki_2 lay, no other change): the
case where a kept name must NOT stay ("swap" below).

Each turn is timed with ``time.process_time`` (CPU seconds of the whole process, every thread:
OpenCV and BLAS threads count) and split into stages by wrapping the tracker's and the deck's
functions (``STAGES``) with a timer that charges each call's CPU time, less that of the wrapped
calls inside it, to its call path (``_search > _refine > classify_quads > card_patches``).
Printed per style and mat: CPU ms per turn, then each path's own and inclusive ms per turn and its
calls per turn (paths under ``--min-ms`` own and inclusive are left out). The figures are for this
machine and its load (``/proc/loadavg`` is printed); run A/B comparisons in one process.

``--game SEED``: instead, one simulated game per style and player count (``bench/sim_games.py``'s
frames, through :class:`companion.app.table_game.TableGame` as ``companion replay`` does), the
stage timers on every ``feed``: CPU ms per turn for the turns read against a reference, and for the
fresh reads (the first frame, and each round's), counted apart.

``--cprofile N`` also prints cProfile's top N functions (by internal time) over the same turns.
"""

from __future__ import annotations

import argparse
import cProfile
import functools
import importlib
import pstats
import sys
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

#: The cards of the bench tableaux, as bench/run.py lays them (seat s, card i: CARDS[(5 s + i) % 12]).
CARDS = ["tempura", "sashimi", "dumpling", "maki_1", "maki_2", "maki_3", "egg_nigiri", "salmon_nigiri",
         "squid_nigiri", "pudding", "wasabi", "chopsticks"]
#: Cards per seat on the turn: 5 on the 4-player mat (20 cards), 4 on the 5-player mat (20 cards).
PER_SEAT = {2: 5, 3: 5, 4: 5, 5: 4}
#: (module, attribute) timed as a stage; "Class.method" for a method.
STAGES = [
    ("companion.vision.table_cards", "_rectified_lab"),
    ("companion.vision.table_cards", "change_mask"),
    ("companion.vision.table_cards", "_bare_mat"),
    ("companion.vision.table_cards", "CardTracker._fresh"),
    ("companion.vision.table_cards", "CardTracker._kept"),
    ("companion.vision.table_cards", "CardTracker._search"),
    ("companion.vision.table_cards", "CardTracker._refine"),
    ("companion.vision.table_cards", "CardTracker._polish"),
    ("companion.vision.table_cards", "CardTracker._turn"),
    ("companion.vision.table_cards", "CardTracker._at_best_peaks"),
    ("companion.vision.table_cards", "CardTracker._not_bare"),
    ("companion.vision.table_cards", "_NotBare.at"),
    ("companion.vision.mat_cards", "read_cards_on_mat"),
    ("companion.vision.cards", "refine_quads"),
    ("companion.vision.deck", "classify_quads"),
    ("companion.vision.deck", "card_patches"),
    ("companion.vision.deck", "describe"),
    ("companion.vision.deck", "Deck.match"),
    ("companion.vision.deck", "Deck.settle_lookalikes"),
    ("companion.vision.deck", "Deck._by_level"),
    ("companion.vision.deck", "_final_label"),
]


class StageTimer:
    """CPU time (``time.process_time``) per call path of the wrapped functions: each call's time less
    that of the wrapped calls inside it (``own``), and with them (``incl``, outermost call of a
    path only), and the number of calls."""

    def __init__(self) -> None:
        self.stack: list[str] = []
        self.child: list[float] = []
        self.own: dict[tuple, float] = defaultdict(float)
        self.incl: dict[tuple, float] = defaultdict(float)
        self.calls: dict[tuple, int] = defaultdict(int)
        self._undo: list = []

    def wrap(self, fn, name: str):
        @functools.wraps(fn)
        def timed(*a, **k):
            self.stack.append(name)
            self.child.append(0.0)
            path = tuple(self.stack)
            t0 = time.process_time()
            try:
                return fn(*a, **k)
            finally:
                dt = time.process_time() - t0
                inner = self.child.pop()
                self.stack.pop()
                self.own[path] += dt - inner
                self.incl[path] += dt
                self.calls[path] += 1
                if self.child:
                    self.child[-1] += dt
        return timed

    def install(self, stages=STAGES) -> None:
        for mod_name, attr in stages:
            owner = importlib.import_module(mod_name)
            *cls, name = attr.split(".")
            if cls:
                owner = getattr(owner, cls[0], None)
            if owner is None or name not in owner.__dict__:
                continue  # (another version of the code, without that stage)
            fn = owner.__dict__[name]
            self._undo.append((owner, name, fn))
            setattr(owner, name, self.wrap(fn, attr.split(".")[-1]))

    def uninstall(self) -> None:
        for owner, name, fn in reversed(self._undo):
            setattr(owner, name, fn)
        self._undo.clear()

    def reset(self) -> None:
        self.own.clear()
        self.incl.clear()
        self.calls.clear()

    def report(self, turns: int, min_ms: float = 0.3) -> list[str]:
        lines = [f"    {'own ms':>7} {'incl ms':>7} {'calls':>6}  path (per turn)"]
        for path in sorted(self.incl):
            own, incl = self.own[path] * 1000 / turns, self.incl[path] * 1000 / turns
            if max(own, incl) < min_ms:
                continue
            lines.append(f"    {own:7.1f} {incl:7.1f} {self.calls[path] / turns:6.1f}  "
                         f"{'  ' * (len(path) - 1)}{path[-1]}")
        return lines


def scene(style: str, players: int, deck=None):
    """The bench table for ``style`` on the ``players`` mat.

    Returns:
        dict: deck, layout, homography (3, 3) image px -> mat mm, and BGR frames "before" (each
        seat's tableau less its last card), "turn" (every card), "swap" ("turn" with one maki
        replaced by its look-alike in the same place), with "turn_labels" and "swap_labels".
    """
    from companion.sim.record import enroll_sim_deck
    from companion.sim.table import Placement, ShotConditions, layout_tableaux, render_table
    from companion.vision.mat import MatTracker
    from companion.vision.mat_layout import load_mat_layout

    deck = deck if deck is not None else enroll_sim_deck(style=style)
    layout = load_mat_layout(players)
    per = PER_SEAT[players]
    rng = np.random.default_rng(0)
    cond = ShotConditions.random(rng)
    tableaux = [[CARDS[(seat * 5 + i) % 12] for i in range(per)] for seat in range(players)]
    places = layout_tableaux(layout, tableaux, rng=np.random.default_rng(1))
    before = [p for i, p in enumerate(places) if i % per != per - 1]
    # A kept maki swapped for a look-alike at the very same place and turn.
    swap_at = next(i for i, p in enumerate(places) if p.label.startswith("maki_") and i % per != per - 1)
    other = {"maki_1": "maki_2", "maki_2": "maki_1", "maki_3": "maki_2"}[places[swap_at].label]
    swapped = list(places)
    swapped[swap_at] = Placement(other, places[swap_at].center_mm, places[swap_at].angle_deg)
    frames = {name: render_table(layout, ps, size=(1280, 960), rng=np.random.default_rng(7), conditions=cond,
                                 style=style).image
              for name, ps in (("before", before), ("turn", places), ("swap", swapped))}
    homography = MatTracker(layout).update(frames["before"]).homography
    return dict(deck=deck, layout=layout, homography=homography, frames=frames,
                turn_labels=sorted(p.label for p in places), swap_labels=sorted(p.label for p in swapped))


def tracker_after(sc: dict, frame: str = "before"):
    """A :class:`CardTracker` that has read and accepted ``sc``'s ``frame``."""
    from companion.vision.table_cards import CardTracker

    tr = CardTracker(sc["layout"], sc["deck"])
    tr.accept(tr.read(sc["frames"][frame], sc["homography"]))
    return tr


def load() -> str:
    try:
        return Path("/proc/loadavg").read_text().split(" ")[0:3].__str__()
    except OSError:
        return "?"


def profile_game(style: str, players: int, seed: int, min_ms: float) -> None:
    """Stage timers over every turn of one simulated game (see the module doc, ``--game``)."""
    from companion.app.table_game import TableGame
    from companion.rules.sushi_go.state import SushiGoOptions
    from companion.sim.game_sim import NAMES, mat_for, simulate_game
    from companion.sim.record import enroll_sim_deck

    deck = enroll_sim_deck(style=style)
    options = SushiGoOptions(dummy=(players == 2))
    names = list(NAMES[:players])
    game = TableGame(names, mat_for(players, options), deck, options)
    timer = StageTimer()
    timer.install()
    fresh_cpu, turn_cpu = [], []
    try:
        for st in simulate_game(names, seed, options, style=style):
            before = dict(timer.incl)
            t0 = time.process_time()
            out = game.feed(st.frame.image)
            dt = time.process_time() - t0
            fresh = any(path[-1] == "_fresh" and timer.incl[path] != before.get(path, 0.0) for path in timer.incl)
            (fresh_cpu if fresh else turn_cpu).append(dt * 1000)
            if not out.ok:
                print(f"  stopped at round {st.round} turn {st.turn}: {out.kind}")
                break
        lines = timer.report(max(1, len(turn_cpu) + len(fresh_cpu)), min_ms)
    finally:
        timer.uninstall()
    print(f"{style}, {players} players, seed {seed}: {len(turn_cpu)} turns read against a reference, "
          f"median {np.median(turn_cpu):.1f} ms CPU (mean {np.mean(turn_cpu):.1f}); {len(fresh_cpu)} fresh reads, "
          f"median {np.median(fresh_cpu) if fresh_cpu else float('nan'):.1f} ms; stages per feed (all feeds):")
    print("\n".join(lines))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--styles", default="illustrated,pattern")
    p.add_argument("--players", default="4,5")
    p.add_argument("--turns", type=int, default=5)
    p.add_argument("--min-ms", type=float, default=0.3)
    p.add_argument("--cprofile", type=int, default=0)
    p.add_argument("--game", type=int, default=None, help="profile one simulated game of this seed instead")
    a = p.parse_args(argv)
    from companion.sim.record import enroll_sim_deck

    print(f"load {load()}")
    if a.game is not None:
        for style in a.styles.split(","):
            for players in (int(v) for v in a.players.split(",")):
                profile_game(style, players, a.game, a.min_ms)
        return 0
    for style in a.styles.split(","):
        deck = enroll_sim_deck(style=style)
        for players in (int(v) for v in a.players.split(",")):
            sc = scene(style, players, deck)
            tr = tracker_after(sc)
            frame, h = sc["frames"]["turn"], sc["homography"]
            got = tr.read(frame, h)  # warm (lazy tables, first OpenCV calls)
            swap_got = tr.read(sc["frames"]["swap"], h)
            timer = StageTimer()
            timer.install()
            try:
                t0 = time.process_time()
                for _ in range(a.turns):
                    tr.read(frame, h)
                cpu = (time.process_time() - t0) * 1000 / a.turns
                lines = timer.report(a.turns, a.min_ms)
            finally:
                timer.uninstall()
            kept = sum(1 for c in got.cards if any(c.rect_mm == k.rect_mm for k in tr.cards))
            print(f"{style}, {players} players: turn {cpu:.1f} ms CPU (stage timers on), {len(got.cards)} cards "
                  f"({kept} kept as they were), read right: {sorted(c.label for c in got.cards) == sc['turn_labels']}; "
                  f"look-alike swapped in place read right: "
                  f"{sorted(c.label for c in swap_got.cards) == sc['swap_labels']}")
            print("\n".join(lines))
            if a.cprofile:
                pr = cProfile.Profile()
                pr.enable()
                for _ in range(a.turns):
                    tr.read(frame, h)
                pr.disable()
                pstats.Stats(pr).sort_stats("tottime").print_stats(a.cprofile)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
