"""``companion demo``: bots play a whole Sushi Go! game on a simulated table, the companion reads it
live through the same loop as ``companion play --camera sim`` (settle detector, reader, engine,
journal, screens), and the true score is printed beside the score read from pixels.

The simulated camera never stops: hands reach in between reveals and each reveal settles once
half-way (:class:`companion.sim.stream.SimTableStream`). The journal is written next to the
screens (``--headless``) or to a temporary folder.

Exit status: 0 the scores agree; 1 they do not, or the game could not be read to the end; 2 no
screen to show on.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from companion.rules.sushi_go.state import SushiGoOptions


def run(args, stdout=None) -> int:
    """Entry point for ``companion demo``; returns the exit status."""
    out = stdout or sys.stdout
    from companion.app.games import adapter

    low, high = adapter(getattr(args, "game", "sushi-go")).players
    if not low <= (2 if getattr(args, "dummy", False) else args.players) <= high:
        print(f"companion demo: {args.game} is for {low} to {high} players, got {args.players}", file=sys.stderr)
        return 2
    if getattr(args, "game", "sushi-go") == "sushi-roll":
        from companion.app import cmd_demo_roll

        return cmd_demo_roll.run(args, out)
    if getattr(args, "game", "sushi-go") == "sushi-express":
        from companion.app import cmd_demo_express

        return cmd_demo_express.run(args, out)
    from companion.app.journal import Journal
    from companion.app.play import PlayLoop
    from companion.app.table_game import TableGame
    from companion.sim.game_sim import NAMES
    from companion.sim.record import enroll_sim_deck
    from companion.sim.stream import SimTableStream

    options = SushiGoOptions(dummy=args.dummy)
    players = list(NAMES[: 2 if args.dummy else args.players])
    display = _open_display(args)
    if display is None:
        return 2
    variant = " (two-player dummy variant)" if args.dummy else ""
    print(f"Sushi Go! demo: {len(players)} players{variant}, seed {args.seed}", file=out)
    deck = enroll_sim_deck()
    print(f"enrolled the deck: {len(deck.labels)} labels from card scans", file=out)
    stream = SimTableStream(players, args.seed, options)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(args.screens) if args.headless else Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        journal_path = folder / "demo-journal.sqlite3"
        for old in folder.glob("demo-journal.sqlite3*"):
            old.unlink()  # the demo's own journal from an earlier run
        applied = []
        table = TableGame(players, stream.layout, deck, options)
        hand_size = table.state.hand_size

        def emit(event):
            if event["event"] == "applied":
                applied.append(event)
                plays = "; ".join(f"{n}: {' + '.join(c)}" for n, c in event["plays"].items())
                print(f"  round {event['round']} turn {event['turn']}: {plays}", file=out)
                if args.headless and event["turn"] == hand_size:  # the round's last turn
                    _save_frame(args.screens, f"camera-r{event['round']}.jpg", stream.last_frame)
            elif event["event"] in ("refused", "unreadable", "mismatch", "status"):
                print(f"  ! {event['message']}", file=out)

        with Journal(journal_path) as journal, stream:
            game_id = journal.new_game("sushi-go", players, options.to_dict())
            loop = PlayLoop(table=table, journal=journal, game_id=game_id, camera=stream, adapter=adapter("sushi-go"),
                            players=players, options=options.to_dict(), display=display, emit=emit)
            loop.run()
            while stream.read() is not None:  # the bots' last still frames: then their final state is known
                pass
    display.close()
    truth, read = stream.final, table.state
    if truth is None or not read.is_over:
        print(f"the companion stopped at round {read.round} turn {read.turn}: {loop.status}", file=out)
        return 1
    mismatches = 0
    for event, turn in zip(applied, stream.truth):
        true_plays = {read.players[seat]: sorted(c.value for c in p.cards) for seat, p in turn.plays.items()}
        mismatches += {n: sorted(c) for n, c in event["plays"].items()} != true_plays
    mismatches += len(applied) != len(stream.truth)
    for r in range(1, len(read.round_scores) + 1):
        print_round(out, truth, read, r)
    return print_final(out, truth, read, args, agree=mismatches == 0)


def _open_display(args):
    """PNGs (headless) or a window; None when no window can open."""
    if args.headless:
        from companion.devices.display import PngDisplay

        return PngDisplay(args.screens, only_changes=True)
    from companion.devices.display import DisplayError, WindowDisplay

    try:
        return WindowDisplay((800, 480))
    except DisplayError as exc:
        print(f"companion demo: {exc}\n  (no screen here? run with --headless to write PNGs instead)", file=sys.stderr)
        return None


def _save_frame(folder: str, name: str, image) -> None:
    import cv2
    from pathlib import Path

    Path(folder).mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(Path(folder) / name), image)


def print_round(out, truth, read, r: int) -> None:
    """Round ``r``'s points, true beside read, per player (any game whose state has ``round_scores``)."""
    true_pts = truth.round_scores[r - 1].points
    read_pts = read.round_scores[r - 1].points
    cells = ", ".join(f"{n} {t}/{p}" for n, t, p in zip(read.players, true_pts, read_pts))
    print(f"round {r} scored (true/read): {cells}", file=out)


def print_final(out, truth, read, args, agree: bool = True, note: str = "") -> int:
    """The final totals, true beside read, the winners, ``note`` (a line of the game's own checks)
    and the verdict; 0 when the results are equal and ``agree`` (the game's checks passed), else 1."""
    t, r = truth.result, read.result
    width = max(len(n) for n in t.players + ("final score",)) + 2
    print(f"\n  {'final score':<{width}}{'true':>6}{'read':>6}", file=out)
    for seat, name in enumerate(t.players):
        flag = "" if t.totals[seat] == r.totals[seat] else "   <-- differs"
        print(f"  {name:<{width}}{t.totals[seat]:>6}{r.totals[seat]:>6}{flag}", file=out)
    print(f"winner(s): true {', '.join(t.winners)}; read {', '.join(r.winners)}", file=out)
    if note:
        print(note, file=out)
    same = t.to_dict() == r.to_dict() and agree
    print("the score read from the pixels equals the truth" if same else "MISMATCH between truth and read", file=out)
    if args.headless:
        print(f"screens and camera frames written to {args.screens}/", file=out)
    return 0 if same else 1
