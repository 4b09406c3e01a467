"""The games the play loop runs, each behind one small interface (issue #9 §5).

A game plugs in with a module here that defines an adapter with these members (see
:class:`GameAdapter`); the loop, the journal commands and the screens only ever talk to that.
Adding a game adds a module and a line in :data:`GAMES`; it never edits another game's module.
"""

from __future__ import annotations

import importlib
from typing import Any, Callable, Protocol, Sequence

#: game name (as on the command line) -> "module:attribute" of its adapter, imported when asked for.
GAMES = {
    "sushi-go": "companion.app.games.sushi_go:ADAPTER",
    "sushi-roll": "companion.app.games.sushi_roll:ADAPTER",
    "sushi-express": "companion.app.games.sushi_express:ADAPTER",
}


class GameAdapter(Protocol):
    """What the loop needs from a game.

    * ``name``: the command-line name (``"sushi-go"``).
    * ``parse_options(mapping)``: the game's options from a JSON object; raises the rules'
      ``MalformedGame`` naming a bad option.
    * ``new_state(players, options)``: the state before the first turn (checks both).
    * ``turn_payload(round, turn, plays)``: the journal's ``"turn"`` event for a turn read;
      ``event_plays(state, plays)``: the same plays in words per player name (the loop's
      ``applied`` event).
    * ``rebuild(players, options, events)`` / ``rebuild_turns(...)``: the state (and the turns
      that count) after a journal's events, replayed through the engine, undo events included;
      raises ``companion.app.journal.JournalError`` when an event does not replay.
    * ``record(players, options, events)``: the finished game in the ``companion score`` format.
    * ``result(state)``: the final result as ``companion score --json`` prints it, or None while
      the game goes on; ``totals(state)``: each player's points so far.
    * ``table_reader(players, options, enrolled)``: what reads the table into turns (``look(frame,
      fresh)``, ``feed(frame, named, look, first)``, ``resync(frame, state, look)``,
      ``card_crop(frame, center_mm)``, ``next_seats()``, ``state``), and ``views()``: the module
      that builds its screens (``scoreboard_view``, ``waiting_view``, ``refusal_view``,
      ``picker_view``, ``card_candidates``, ``undo_view``, ``round_summary_view``, ``final_view``).
    * ``enrolled(deck, dice, sim)``: what the table reader reads with (the enrolled cards or dice
      given on the command line, the simulator's own for ``--camera sim``); raises ValueError
      saying how to enrol them. ``sim_camera(players, options, seed, steps)``: the simulated
      camera of ``--camera sim``, bots playing the game.
    * ``players``: (fewest, most) players the game is for (the setup menu and the demo keep to it).

    Optional, for a game run on the panel (Sushi Express): the table reader's ``answer(seat, label)``
    (a panel answer, taken once), ``restore(events)`` (answers journalled before a stop),
    ``undone()`` (an UNDO was made) and ``reads_after_turn`` (read the table again after a step:
    the next question needs no change on it); the adapter's ``watch_sim(camera, table, seed)``
    (a simulated camera that acts when the table waits).
    """

    name: str
    players: tuple[int, int]

    def parse_options(self, mapping: dict[str, Any]) -> Any: ...

    def new_state(self, players: Sequence[str], options: dict[str, Any]) -> Any: ...

    def turn_payload(self, round_: int, turn: int, plays: dict[int, Sequence[Any]]) -> dict[str, Any]: ...

    def event_plays(self, state: Any, plays: dict[int, Sequence[Any]]) -> dict[str, list[str]]: ...

    def rebuild(self, players: Sequence[str], options: dict[str, Any], events: Sequence[Any]) -> Any: ...

    def rebuild_turns(self, players: Sequence[str], options: dict[str, Any], events: Sequence[Any]) -> Any: ...

    def record(self, players: Sequence[str], options: dict[str, Any], events: Sequence[Any]) -> dict[str, Any]: ...

    def result(self, state: Any) -> dict[str, Any] | None: ...

    def totals(self, state: Any) -> dict[str, int]: ...

    def table_reader(self, players: Sequence[str], options: dict[str, Any], deck: Any) -> Any: ...

    def views(self) -> Any: ...

    def enrolled(self, deck: str | None, dice: str | None = None, sim: bool = False) -> Any: ...

    def sim_camera(self, players: Sequence[str], options: dict[str, Any], seed: int, steps: int | None = None) -> Any: ...


def replay_events(start: Any, events: Sequence[Any], replay_turn: Callable[[Any, dict], tuple[Any, Any]],
                  note_kinds: Sequence[str]) -> tuple[Any, tuple[Any, ...]]:
    """Replay a game's journal events from ``start``: each ``"turn"`` through ``replay_turn(state,
    payload) -> (state after, the applied turn)``, each ``"undo"`` (``{"turns": n}``) taking the
    last ``n`` back, ``note_kinds`` skipped (they explain a later event). Returns the state now
    and the applied turns that count, in order.

    Raises:
        JournalError: a turn ``replay_turn`` refuses (KeyError, TypeError, ValueError or the
            rules' IllegalAction), an undo of more turns than were applied, an unknown kind;
            each naming the event's seq.
    """
    from companion.app.journal import JournalError
    from companion.rules.errors import IllegalAction

    states, turns = [start], []
    for event in events:
        if event.kind == "turn":
            try:
                after, turn = replay_turn(states[-1], event.payload)
            except (KeyError, TypeError, ValueError, IllegalAction) as exc:
                raise JournalError(f"event {event.seq} (a turn) does not replay: {exc}") from None
            turns.append(turn)
            states.append(after)
        elif event.kind == "undo":
            n = event.payload.get("turns", 1)
            if not isinstance(n, int) or not 1 <= n <= len(turns):
                raise JournalError(f"event {event.seq} undoes {n!r} turns; {len(turns)} were applied")
            del turns[-n:]
            del states[-n:]
        elif event.kind not in note_kinds:
            raise JournalError(f"event {event.seq} is of a kind this version does not know: {event.kind!r}")
    return states[-1], tuple(turns)


def finished(state: Any) -> Any:
    """``state``, checked to be a finished game (a ``companion score`` record holds finished games only).

    Raises:
        JournalError: the game is not over, saying where it stands.
    """
    from companion.app.journal import JournalError

    if not state.is_over:
        where = f"round {state.round}, turn {state.turn}" if hasattr(state, "turn") else f"round {state.round}"
        raise JournalError(f"the game is not over ({where}); a score record holds finished games only")
    return state


def load_enrolled(path: str | None, sim: bool, *, option: str, file_name: str, missing: str,
                  simulated: Callable[[], Any], load: Callable[[str], Any], error: type) -> Any:
    """What a table reader reads with (an enrolled deck or dice): ``load(path)``; with no path,
    ``simulated()`` for a simulated camera, else the service's ``file_name`` beside the journal
    (``/var/lib/companion/``).

    Raises:
        ValueError: no file given or found (``missing``: how to enrol one), or ``load`` raised
            ``error`` (its message after ``option``).
    """
    if path is None:
        if sim:
            return simulated()
        from companion.app.journal import default_path

        beside = default_path().parent / file_name
        if not beside.is_file():
            raise ValueError(f"{missing}, then give it here or put it at {beside}")
        path = str(beside)
    try:
        return load(path)
    except error as exc:
        raise ValueError(f"{option}: {exc}") from None


def adapter(name: str) -> GameAdapter:
    """The adapter of the game called ``name``.

    Raises:
        KeyError: no such game; the message lists the games there are.
    """
    try:
        target = GAMES[name]
    except KeyError:
        raise KeyError(f"no game {name!r} in the play loop; games: {', '.join(GAMES)}") from None
    module, _, attr = target.partition(":")
    return getattr(importlib.import_module(module), attr)
