"""``companion demo --game sushi-express``: bots play a whole Sushi Express game with the rules engine,
then act it out on a simulated table while the companion runs it through the same loop as ``companion
play --camera sim`` (settle detector, dice reader, table rules, journal, screens): the bots throw the two
dice when the screen asks for a roll (:class:`companion.sim.express_stream.SimExpressStream`), and answer
every question on the panel with what they did (:class:`companion.sim.express_bots.ExpressBots`) by
pressing ◀ ▶ OK. The true score is printed beside the score the companion kept (issue #11).

Exit status: 0 the scores, every player's customers and every van agree; 1 they do not, or the game
could not be run to the end; 2 no screen to show on, or a player count Sushi Express is not for.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from companion.app.cmd_demo import _open_display, _save_frame, print_final
from companion.app.cmd_demo_roll import _BotPanel


def run(args, stdout=None) -> int:
    """Entry point for ``companion demo --game sushi-express``; returns the exit status."""
    out = stdout or sys.stdout
    from companion.app.games import adapter
    from companion.app.journal import Journal
    from companion.app.play import PlayLoop
    from companion.rules.sushi_express.state import MAX_PLAYERS, MIN_PLAYERS
    from companion.sim.express_bots import ExpressBots
    from companion.sim.express_stream import SimExpressStream
    from companion.sim.game_sim import NAMES

    if not MIN_PLAYERS <= args.players <= MAX_PLAYERS:
        print(f"companion demo: Sushi Express is for {MIN_PLAYERS} to {MAX_PLAYERS} players, got {args.players}",
              file=sys.stderr)
        return 2
    game = adapter("sushi-express")
    names = list(NAMES) + ["Flo"]
    players = names[: args.players]
    display = _open_display(args)
    if display is None:
        return 2
    print(f"Sushi Express demo: {len(players)} players, seed {args.seed}", file=out)
    bots = ExpressBots(players, args.seed)
    table = game.table_reader(players, {})
    stream = SimExpressStream(args.seed)
    stream.roller = lambda: bots.roll(table, stream.resting())
    panel = _BotPanel()
    asked = [0]
    loop_box: list = []

    def emit(event):
        kind = event["event"]
        if kind == "applied":
            words = "; ".join(f"{n}: {', '.join(w)}" for n, w in event["plays"].items())
            print(f"  round {event['round']}: {words}", file=out)
            if args.headless and table.state.round != event["round"]:
                _save_frame(args.screens, f"camera-r{event['round']}.jpg", stream.last_frame)
        elif kind == "ask":
            asked[0] += 1
            p = loop_box[0].picking
            label = bots.answer(p["detail"], table.state) if p is not None and p.get("detail") else None
            if label is None:
                return  # a re-roll is thrown on the table instead
            for _ in range(p["candidates"].index(label)):
                panel.press("right")
            panel.press("ok")
        elif kind in ("refused", "unreadable", "mismatch", "status"):
            print(f"  ! {event['message']}", file=out)
        elif kind == "game-over":
            stream.finish()

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(args.screens) if args.headless else Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        journal_path = folder / "demo-journal.sqlite3"
        for old in folder.glob("demo-journal.sqlite3*"):
            old.unlink()
        with Journal(journal_path) as journal, stream:
            game_id = journal.new_game(game.name, players, {})
            loop = PlayLoop(table=table, journal=journal, game_id=game_id, camera=stream, adapter=game,
                            players=players, options={}, display=display, emit=emit, panel=panel)
            loop_box.append(loop)
            loop.run()
    display.close()
    truth, read = bots.final, table.state
    if not read.is_over:
        print(f"the companion stopped at round {read.round} ({read.phase}): {loop.status}", file=out)
        return 1
    rolls = sum(1 for t in stream.truth)
    same_cards = truth.collected == read.collected and truth.vans == read.vans
    note = (f"customers and vans {'equal' if same_cards else 'DIFFER'}; {rolls} throws read from the camera; "
            f"{asked[0]} question(s) answered on the panel, {panel.refused} move(s) refused")
    return print_final(out, truth, read, args, agree=same_cards, note=note)
