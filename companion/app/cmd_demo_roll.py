"""``companion demo --game sushi-roll``: bots play a whole Sushi Roll game on a simulated table, the
companion reads it live through the same loop as ``companion play --camera sim`` (settle detector,
dice reader, engine, journal, screens), and the true score is printed beside the score read from
the pixels (issue #10).

The simulated camera (:class:`companion.sim.roll_stream.SimRollStream`) never stops: hands reach
in for every roll, re-roll, swap, take, slide and tray clear, and the table settles after each.
When the companion asks on the panel (dice that moved but show the faces they showed, a die it
cannot name), the bots answer what they did (:func:`companion.sim.roll_answers.truthful_answer`)
by pressing ◀ ▶ OK, so the demo goes through the same questions a table would.

Exit status: 0 the scores and tokens agree; 1 they do not, or the game could not be read to the
end; 2 no screen to show on.
"""

from __future__ import annotations

import sys
import tempfile
import time
from collections import deque
from pathlib import Path

from companion.app.cmd_demo import _open_display, _save_frame, print_final, print_round


class _BotPanel:
    """A panel the bots press (:class:`companion.devices.panel.Panel`'s methods): ``press(name)``
    queues an event; the lights are kept for the screens, nothing else."""

    def __init__(self) -> None:
        self._events: deque = deque()
        self.refused = 0

    def press(self, name: str) -> None:
        from companion.devices.panel import PanelEvent

        self._events.append(PanelEvent(name, time.monotonic()))

    def get(self, timeout: float | None = 0):
        return self._events.popleft() if self._events else None

    def show_turn(self, seat) -> None:
        pass

    def show_waiting(self, seats) -> None:
        pass

    def show_error(self, on: bool) -> None:
        pass

    def beep_refused(self) -> None:
        self.refused += 1

    def close(self) -> None:
        pass


def run(args, stdout=None) -> int:
    """Entry point for ``companion demo --game sushi-roll``; returns the exit status."""
    out = stdout or sys.stdout
    from companion.app.games import adapter
    from companion.app.journal import Journal
    from companion.app.play import PlayLoop
    from companion.sim.game_sim import NAMES
    from companion.sim.record import enroll_sim_dice
    from companion.sim.roll_answers import truthful_answer
    from companion.sim.roll_stream import SimRollStream

    game = adapter("sushi-roll")
    players = list(NAMES[: args.players])
    display = _open_display(args)
    if display is None:
        return 2
    print(f"Sushi Roll demo: {len(players)} players, seed {args.seed}", file=out)
    dice = enroll_sim_dice()
    print(f"enrolled the dice: {len(dice.faces)} faces from one flat image each", file=out)
    stream = SimRollStream(players, args.seed)
    panel = _BotPanel()
    table = game.table_reader(players, {}, dice)
    applied: list[dict] = []
    asked = [0]
    loop_box: list = []

    def emit(event):
        kind = event["event"]
        if kind == "applied":
            applied.append(event)
            plays = "; ".join(f"{n}: {', '.join(words)}" for n, words in event["plays"].items())
            print(f"  round {event['round']} turn {event['turn']}: {plays}", file=out)
            state = table.state
            if args.headless and (state.is_over or (event["round"] != state.round)):
                _save_frame(args.screens, f"camera-r{event['round']}.jpg", stream.last_frame)
        elif kind == "ask":
            asked[0] += 1
            loop = loop_box[0]
            p = loop.picking
            card = p.get("card")
            frame_index = loop._last_frame[1] if loop._last_frame is not None else stream.position
            answer = truthful_answer(stream.truth, frame_index, p["candidates"],
                                     center_mm=None if card is None else card.center_mm)
            print(f"  ? {event['seat']}: {event['question']} → "
                  f"{'(not answered)' if answer is None else p['candidates'][answer]}", file=out)
            if answer is None:
                panel.press("back")
            else:
                for _ in range(answer):
                    panel.press("right")
                panel.press("ok")
        elif kind in ("refused", "unreadable", "mismatch", "status"):
            print(f"  ! {event['message']}", file=out)

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(args.screens) if args.headless else Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        journal_path = folder / "demo-journal.sqlite3"
        for old in folder.glob("demo-journal.sqlite3*"):
            old.unlink()  # the demo's own journal from an earlier run
        with Journal(journal_path) as journal, stream:
            game_id = journal.new_game(game.name, players, {})
            loop = PlayLoop(table=table, journal=journal, game_id=game_id, camera=stream, adapter=game,
                            players=players, options={}, display=display, emit=emit, panel=panel)
            loop_box.append(loop)
            loop.run()
            while stream.read() is not None:  # the bots' last still frames: then their final state is known
                pass
    display.close()
    truth, read = stream.final, table.state
    if truth is None or not read.is_over:
        print(f"the companion stopped at round {read.round} turn {read.turn}: {loop.status}", file=out)
        return 1
    for r in range(1, len(read.round_scores) + 1):
        print_round(out, truth, read, r)
    same_trays = truth.round_trays == read.round_trays
    same_tokens = truth.tokens == read.tokens and truth.supply == read.supply
    note = (f"trays of every round {'equal' if same_trays else 'DIFFER'}; tokens at the end "
            f"{'equal' if same_tokens else 'DIFFER'}; {asked[0]} question(s) answered on the panel, "
            f"{panel.refused} move(s) refused")
    return print_final(out, truth, read, args, agree=same_trays and same_tokens, note=note)
