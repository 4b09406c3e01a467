"""``companion demo``: bots play a whole Sushi Go! game on a simulated table, the companion reads it
back from the rendered frames only, and the true score is printed beside the score read from pixels.

Exit status: 0 the scores agree; 1 they do not, or a turn could not be read; 2 no screen to show on.
"""

from __future__ import annotations

import sys
import time

from companion.rules.sushi_go.state import SushiGoOptions


def run(args, stdout=None) -> int:
    """Entry point for ``companion demo``; returns the exit status."""
    out = stdout or sys.stdout
    from companion.app.table_game import APPLIED, TableGame
    from companion.app.views import final_view, scoreboard_view
    from companion.sim.game_sim import NAMES, mat_for, simulate_game
    from companion.sim.record import enroll_sim_deck

    options = SushiGoOptions(dummy=args.dummy)
    players = list(NAMES[: 2 if args.dummy else args.players])
    display, pace = _open_display(args)
    if display is None:
        return 2
    variant = " (two-player dummy variant)" if args.dummy else ""
    print(f"Sushi Go! demo: {len(players)} players{variant}, seed {args.seed}", file=out)
    deck = enroll_sim_deck()
    print(f"enrolled the deck: {len(deck.labels)} labels from card scans", file=out)
    layout = mat_for(len(players), options)
    game = TableGame(players, layout, deck, options)
    mismatches = 0
    truth = None
    for st in simulate_game(players, args.seed, options):
        truth = st.truth
        outcome = game.feed(st.frame.image)
        true_plays = {s: tuple(sorted(p.cards)) for s, p in st.plays.items()}
        read_plays = {s: tuple(sorted(c)) for s, c in outcome.plays.items()}
        agree = outcome.kind == APPLIED and read_plays == true_plays
        print(f"  {'ok ' if agree else 'BAD'} {outcome.message}", file=out)
        display.show(scoreboard_view(game.state, outcome.message, "info" if agree else "error"))
        round_ended = st.truth.is_over or st.truth.round != st.round
        if args.headless and round_ended:
            _save_frame(args.screens, f"camera-r{st.round}.jpg", st.frame.image)
        time.sleep(pace)
        if outcome.kind != APPLIED:
            print(f"the companion stopped: {outcome.message}", file=out)
            return 1
        mismatches += not agree
        if round_ended:
            _print_round(out, truth, game.state)
    if game.state.is_over:
        display.show(final_view(game.state))
        time.sleep(pace * 6)
    display.close()
    return _print_final(out, truth, game.state, mismatches, args)


def _open_display(args):
    """(display, seconds per turn); None display when no window can open."""
    if args.headless:
        from companion.devices.display import PngDisplay

        return PngDisplay(args.screens, only_changes=True), 0.0
    from companion.devices.display import DisplayError, WindowDisplay

    try:
        return WindowDisplay((800, 480)), 0.4
    except DisplayError as exc:
        print(f"companion demo: {exc}\n  (no screen here? run with --headless to write PNGs instead)", file=sys.stderr)
        return None, 0.0


def _save_frame(folder: str, name: str, image) -> None:
    import cv2
    from pathlib import Path

    Path(folder).mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(Path(folder) / name), image)


def _print_round(out, truth, read) -> None:
    r = len(read.round_scores)
    true_pts = truth.round_scores[r - 1].points
    read_pts = read.round_scores[-1].points
    cells = ", ".join(f"{n} {t}/{p}" for n, t, p in zip(read.players, true_pts, read_pts))
    print(f"round {r} scored (true/read): {cells}", file=out)


def _print_final(out, truth, read, mismatches: int, args) -> int:
    t, r = truth.result, read.result
    width = max(len(n) for n in t.players + ("final score",)) + 2
    print(f"\n  {'final score':<{width}}{'true':>6}{'read':>6}", file=out)
    for seat, name in enumerate(t.players):
        flag = "" if t.totals[seat] == r.totals[seat] else "   <-- differs"
        print(f"  {name:<{width}}{t.totals[seat]:>6}{r.totals[seat]:>6}{flag}", file=out)
    print(f"winner(s): true {', '.join(t.winners)}; read {', '.join(r.winners)}", file=out)
    same = t.to_dict() == r.to_dict() and mismatches == 0
    print("the score read from the pixels equals the truth" if same else "MISMATCH between truth and read", file=out)
    if args.headless:
        print(f"screens and camera frames written to {args.screens}/", file=out)
    return 0 if same else 1
