"""Speed benchmarks (issue #2 §7). Run with ``make bench``; the figures go in the README.

Measures, on this machine:
  * reading a 1280×960 frame with 20 cards, two ways: as ``companion read cards`` does (general
    finder, no mat) and as a game does (mat tracking + mat-aware finder + classification + zones);
  * classification per card (20 quads classified in one call, divided by 20);
  * start-up of ``companion score`` (a whole process, median of 10 runs);
  * random full games per second through the rules engine, for each of the three games;
  * the Pico link's two parsers under a million damaged frames (bench/fuzz_link.py; exit 1 if any
    corrupted message is delivered or an undamaged frame lost);
  * every command that reads a file under 10 000 seeded bad inputs (bench/fuzz.py, issue #14; exit 1
    on any traceback, hang, crash, peak over 512 MB, or bad input accepted).

Targets (issue #2): ≤ 60 ms per frame, ≤ 1 ms per card, ≤ 0.3 s start-up. Timing lives here, never in
tests: a loaded CI machine must not turn a correct build red.
"""

from __future__ import annotations

import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
CARDS = ["tempura", "sashimi", "dumpling", "maki_1", "maki_2", "maki_3", "egg_nigiri", "salmon_nigiri",
         "squid_nigiri", "pudding", "wasabi", "chopsticks"]


def _median_ms(fn, repeats: int) -> float:
    fn()  # warm caches (first cv2 call, lazy tables)
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def bench_frame_and_cards(repeats: int = 20) -> dict[str, float]:
    from companion.sim.record import enroll_sim_deck
    from companion.sim.table import layout_tableaux, render_table
    from companion.vision.cards import read_cards
    from companion.vision.deck import classify_quads
    from companion.vision.mat import MatTracker, assign_to_zones
    from companion.vision.mat_layout import load_mat_layout

    deck = enroll_sim_deck()
    layout = load_mat_layout(4)
    rng = np.random.default_rng(0)
    tableaux = [[CARDS[(seat * 5 + i) % 12] for i in range(5)] for seat in range(4)]
    frame = render_table(layout, layout_tableaux(layout, tableaux, rng=rng), size=(1280, 960), rng=rng)
    found = read_cards(frame.image, deck)
    tracker = MatTracker(layout)

    from companion.vision.mat_cards import read_cards_on_mat

    def read_frame():  # what `companion read cards` does with a photo: no mat knowledge
        read_cards(frame.image, deck)

    def read_game_frame():  # what the play loop does: mat homography, mat-aware finder, zones
        status = tracker.update(frame.image)
        assign_to_zones(layout, status.homography, read_cards_on_mat(frame.image, status.homography, layout, deck))

    quads = [q for _, q in frame.cards]
    per_frame = _median_ms(read_frame, repeats)
    per_game_frame = _median_ms(read_game_frame, repeats)
    on_mat = read_cards_on_mat(frame.image, tracker.update(frame.image).homography, layout, deck)
    per_card = _median_ms(lambda: classify_quads(frame.image, quads, deck), repeats) / len(quads)
    correct = sorted(o.label for o in found) == sorted(label for label, _ in frame.cards)
    correct_on_mat = sorted(o.label for o in on_mat) == sorted(label for label, _ in frame.cards)
    return {"frame_ms": per_frame, "game_frame_ms": per_game_frame, "card_ms": per_card, "cards_in_frame": len(quads),
            "frame_read_correctly": correct, "game_frame_read_correctly": correct_on_mat}


def bench_tracker(repeats: int = 10) -> dict[str, float]:
    """The game's card tracker (companion.vision.table_cards), illustrated style, 4-player mat: a
    turn (16 cards kept, 4 new, one per seat) and a fresh read of the 20-card table."""
    from companion.sim.record import enroll_sim_deck
    from companion.sim.table import ShotConditions, layout_tableaux, render_table
    from companion.vision.mat import MatTracker
    from companion.vision.mat_layout import load_mat_layout
    from companion.vision.table_cards import CardTracker

    deck = enroll_sim_deck(style="illustrated")
    layout = load_mat_layout(4)
    rng = np.random.default_rng(0)
    cond = ShotConditions.random(rng)
    tableaux = [[CARDS[(seat * 5 + i) % 12] for i in range(5)] for seat in range(4)]
    places = layout_tableaux(layout, tableaux, rng=np.random.default_rng(1))
    before = [p for i, p in enumerate(places) if i % 5 != 4]
    frames = [render_table(layout, ps, size=(1280, 960), rng=rng, conditions=cond, style="illustrated")
              for ps in (before, places)]
    homography = MatTracker(layout).update(frames[0].image).homography
    tracker = CardTracker(layout, deck)
    tracker.accept(tracker.read(frames[0].image, homography))
    turn = _median_ms(lambda: tracker.read(frames[1].image, homography), repeats)
    seen = sorted(c.label for c in tracker.read(frames[1].image, homography).cards)
    fresh = _median_ms(lambda: CardTracker(layout, deck).read(frames[1].image, homography), max(3, repeats // 3))
    return {"turn_ms": turn, "fresh_ms": fresh, "turn_read_correctly": seen == sorted(p.label for p in places)}


def bench_score_startup(repeats: int = 10) -> float:
    exe = Path(sys.executable).with_name("companion")
    cmd = [str(exe), "score", "--game", "sushi-go", "--json", str(ROOT / "tests/fixtures/score/three_players.json")]
    return _median_ms(lambda: subprocess.run(cmd, check=True, capture_output=True), repeats) / 1000


def bench_games(seconds: float = 3.0) -> float:
    from companion.rules.sushi_go import apply, legal_plays, new_game

    rng = random.Random(0)
    games, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        state = new_game(["A", "B", "C", "D"], rng)
        while not state.is_over:
            for seat in state.waiting_for():
                state = apply(state, rng.choice(legal_plays(state, seat)))
        games += 1
    return games / (time.perf_counter() - t0)


def bench_random_games(game: str, seconds: float = 3.0) -> float:
    """Random full games per second of Sushi Roll or Sushi Express (4 players, seeds 0, 1, 2 ...)."""
    if game == "sushi-roll":
        from companion.rules.sushi_roll import random_game
    else:
        from companion.rules.sushi_express import random_game
    games, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        random_game(games, 4)
        games += 1
    return games / (time.perf_counter() - t0)


def main() -> int:
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores")
    vision = bench_frame_and_cards()
    print(f"read a 1280x960 frame with {vision['cards_in_frame']} cards: {vision['frame_ms']:.1f} ms "
          f"(target <= 60 ms; read correctly: {vision['frame_read_correctly']})")
    print(f"read the same frame in a game (mat tracking + mat-aware finder + zones): {vision['game_frame_ms']:.1f} ms "
          f"(read correctly: {vision['game_frame_read_correctly']})")
    print(f"classify one card: {vision['card_ms']:.3f} ms (target <= 1 ms)")
    tracker = bench_tracker()
    print(f"card tracker, illustrated deck, 4-player mat: a turn (16 cards kept, 4 new) {tracker['turn_ms']:.0f} ms "
          f"(read correctly: {tracker['turn_read_correctly']}); a fresh 20-card table {tracker['fresh_ms']:.0f} ms")
    print(f"companion score start-up: {bench_score_startup():.3f} s (target <= 0.3 s)")
    print(f"random 4-player Sushi Go! games: {bench_games():.0f} per second")
    print(f"random 4-player Sushi Roll games: {bench_random_games('sushi-roll'):.0f} per second")
    print(f"random 4-player Sushi Express games: {bench_random_games('sushi-express'):.0f} per second")
    sys.path.insert(0, str(ROOT / "bench"))
    import fuzz  # every command that reads a file, under seeded bad input (issue #14)
    import fuzz_link  # the Pico link's parsers under a million damaged frames (issue #8)

    link = fuzz_link.main([])
    files = fuzz.main(["--cases", "10000", "--jobs", str(min(2, os.cpu_count() or 1))])
    return link or files


if __name__ == "__main__":
    raise SystemExit(main())
