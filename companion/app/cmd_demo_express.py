"""``companion demo --game sushi-express``: bots play a whole Sushi Express game with the rules engine,
then act it out on a simulated table while the companion runs it through the same loop as ``companion
play --camera sim`` (settle detector, dice reader, table rules, journal, screens): the bots throw the two
dice when the screen asks for a roll (:class:`companion.sim.express_stream.SimExpressStream`), and answer
every question on the panel with what they did (:func:`truthful_answer`) by pressing ◀ ▶ OK. The true score is printed beside the score the companion kept (issue #11).

Exit status: 0 the scores, every player's customers and every van agree; 1 they do not, or the game
could not be run to the end; 2 no screen to show on, or a player count Sushi Express is not for.
"""

from __future__ import annotations

import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from companion.app.cmd_demo import _open_display, _save_frame, print_final
from companion.app.cmd_demo_roll import _BotPanel

#: Player names of the demo (Sushi Express seats up to 6).
NAMES = ("Ann", "Bo", "Cy", "Di", "Ed", "Flo")


@dataclass
class BotsGame:
    """A bots' game run through the loop: the bots (their truth), the companion's table reader and
    loop, the simulated camera, and how many questions were answered and moves refused."""

    bots: Any
    table: Any
    loop: Any
    stream: Any
    asked: int
    refused: int


def truthful_answer(bots, prompt, state) -> str | None:
    """The option the bots pick for ``prompt`` (an :class:`~companion.app.express_prompts.Prompt`)
    asked at the companion's ``state``: what they did in their game (``bots``:
    :class:`companion.sim.express_bots.ExpressBots`). None when they would not answer it (a re-roll is
    thrown on the table instead, or the moment is not in their game)."""
    from companion.app.express_prompts import (
        ACCEPT, ACCEPT_ITEM, CUSTOMER, DELIVER, DISPLAY, DONE_ITEM, END_TURN, EXCHANGE, EXCHANGE_ITEM, FURTHER,
        GUESS, SAME_GUESS, SAME_GUESS_ITEM, TIPS, WHICH_ROLL,
    )
    from companion.rules.sushi_express.state import ActionCard, Deliver, Exchange, Guess, Move, ReRoll, Roll

    if prompt.kind == DISPLAY:
        # the deck is laid out and drawn from the top in order: the companion's counts say how far
        order = bots.start.display + bots.start.customer_supply
        named = len(order) - len(state.customer_supply) - state.unnamed
        return order[named + prompt.step[0] - 1].label
    if prompt.kind == TIPS:
        return str(bots.final.hands[prompt.seat].count(ActionCard.TIP))
    step = bots.step_at(state)
    if prompt.kind == ACCEPT:
        if step is not None and isinstance(step.action, ReRoll):
            return None  # the bot re-rolls a die on the table instead
        return ACCEPT_ITEM
    if step is None:
        return None
    action = step.action
    if prompt.kind == GUESS:
        if isinstance(action, Guess):
            return SAME_GUESS_ITEM if action.same_guess else str(action.number)
        if isinstance(action, Exchange):
            return EXCHANGE_ITEM
    if prompt.kind == SAME_GUESS and isinstance(action, Guess):
        return next(o for o, v in zip(prompt.options, prompt.values) if v == action)
    if prompt.kind == EXCHANGE and isinstance(action, Exchange):
        return next(o for o, v in zip(prompt.options, prompt.values) if v == action)
    if prompt.kind == END_TURN:
        return EXCHANGE_ITEM if isinstance(action, Exchange) else DONE_ITEM
    if prompt.kind == FURTHER and isinstance(action, Move):
        return next(o for o, v in zip(prompt.options, prompt.values) if v.further == action.further)
    if prompt.kind == CUSTOMER and isinstance(action, Move):
        return action.take.label if action.take is not None else None
    if prompt.kind == WHICH_ROLL:
        kind = ReRoll if isinstance(action, ReRoll) else Roll
        return next(o for o, v in zip(prompt.options, prompt.values) if isinstance(v[0], kind))
    if prompt.kind == DELIVER and isinstance(action, Deliver):
        return prompt.options[0 if action.keep else 1]
    return None


def play_bots_game(players, seed: int, journal_path: Path, display=None, say: Callable[[str], None] = lambda s: None,
                   on_applied: Callable[..., None] = lambda e, table, stream: None, on_press=None,
                   on_stream=None) -> BotsGame:
    """Run the bots' game ``seed`` through a :class:`~companion.app.play.PlayLoop` journalled at
    ``journal_path``. ``say`` gets a line per event worth printing; ``on_applied(event, table, stream)``
    every applied step; ``on_press(name, frame)`` every button the bots press; ``on_stream(stream)``
    the simulated camera before play starts (a recorder wraps its ``read``)."""
    from companion.app.games import adapter
    from companion.app.journal import Journal
    from companion.app.play import PlayLoop
    from companion.sim.express_bots import ExpressBots
    from companion.sim.express_stream import SimExpressStream

    game = adapter("sushi-express")
    bots = ExpressBots(players, seed)
    table = game.table_reader(players, {})
    # the film ends if the game stalls: far more frames than a whole game's throws and answers take
    stream = SimExpressStream(seed, max_frames=300 * len(bots.steps))
    stream.roller = lambda: bots.roll(table, stream.resting())
    if on_stream is not None:
        on_stream(stream)
    panel = _BotPanel()
    asked = [0]
    loop_box: list = []

    def press(name: str) -> None:
        if on_press is not None:
            on_press(name, stream.position)
        panel.press(name)

    def emit(event):
        kind = event["event"]
        if kind == "applied":
            words = "; ".join(f"{n}: {', '.join(w)}" for n, w in event["plays"].items())
            say(f"  round {event['round']}: {words}")
            on_applied(event, table, stream)
        elif kind == "ask":
            asked[0] += 1
            p = loop_box[0].picking
            label = truthful_answer(bots, p["detail"], table.state) if p is not None and p.get("detail") else None
            if label is None:
                return  # a re-roll is thrown on the table instead
            for _ in range(p["candidates"].index(label)):
                press("right")
            press("ok")
        elif kind in ("refused", "unreadable", "mismatch", "status"):
            say(f"  ! {event['message']}")
        elif kind == "game-over":
            stream.finish()

    with Journal(journal_path) as journal, stream:
        game_id = journal.new_game(game.name, players, {})
        loop = PlayLoop(table=table, journal=journal, game_id=game_id, camera=stream, adapter=game,
                        players=players, options={}, display=display, emit=emit, panel=panel)
        loop_box.append(loop)
        loop.run()
    return BotsGame(bots, table, loop, stream, asked[0], panel.refused)


def run(args, stdout=None) -> int:
    """Entry point for ``companion demo --game sushi-express``; returns the exit status."""
    out = stdout or sys.stdout
    players = list(NAMES[: args.players])
    display = _open_display(args)
    if display is None:
        return 2
    print(f"Sushi Express demo: {len(players)} players, seed {args.seed}", file=out)

    def on_applied(event, table, stream) -> None:
        if args.headless and table.state.round != event["round"]:  # a round ended: what the camera saw
            _save_frame(args.screens, f"camera-r{event['round']}.jpg", stream.last_frame)

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(args.screens) if args.headless else Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        journal_path = folder / "demo-journal.sqlite3"
        for old in folder.glob("demo-journal.sqlite3*"):
            old.unlink()
        done = play_bots_game(players, args.seed, journal_path, display, say=lambda s: print(s, file=out),
                              on_applied=on_applied)
    display.close()
    truth, read = done.bots.final, done.table.state
    if not read.is_over:
        print(f"the companion stopped at round {read.round} ({read.phase}): {done.loop.status}", file=out)
        return 1
    same_cards = truth.collected == read.collected and truth.vans == read.vans
    note = (f"customers and vans {'equal' if same_cards else 'DIFFER'}; {len(done.stream.truth)} throws read from "
            f"the camera; {done.asked} question(s) answered on the panel, {done.refused} move(s) refused")
    return print_final(out, truth, read, args, agree=same_cards, note=note)
