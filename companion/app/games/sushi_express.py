"""Sushi Express in the play loop: journal events to table states, records and results (issue #11).

Journal events of a Sushi Express game (:mod:`companion.app.journal`), one ``"turn"`` per applied step
(:class:`companion.app.express_game.ExpressTableGame`)::

    {"round": r, "turn": t, "seat": s, "actions": [...]}
    {"round": r, "turn": t, "seat": s, "laid": [...], "first": bool}
    {"round": r, "turn": t, "seat": s, "tips": {...}}

* ``actions``: the step's engine actions, in order, each one of ``{"guess": n, "same_guess": bool}``,
  ``{"exchange": [a, b]}``, ``{"end_turn": true}``, ``{"roll": [a, b]}`` (faces read by the camera),
  ``{"reroll": {"die": i, "face": f}}``, ``{"accept": true}``, ``{"move": {"further": k, "take":
  customer or null}}``, ``{"deliver": "keep" | "discard"}`` (sushi-express.txt, phases 1–4);
* ``"seen"``: a throw the panel is asked about (``{"which_roll": [[words, [action, ...]], ...], "dice":
  [[face, quad], ...]}``), so a resumed game asks the same;
* ``laid``: the customer cards the players laid into the display and named, in order: with ``"first":
  true`` the display laid out before round 1 (PREPARATION), else a refill (4. make deliveries);
* ``tips``: once the game has ended, seat (a string) → tip cards among that player's hidden action
  cards (SCORING);
* ``"undo"``: ``{"turns": n}``, the last ``n`` steps taken back; ``"chose"``: a panel answer (the step
  that follows holds its result); both are skipped when replaying.

Options (``--option``): the engine's ``equal_tips_penalty`` and ``first_player`` (the seat that guesses
first in round 1, 0 = the first player named).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from companion.app.games import finished, replay_events
from companion.app.journal import JournalError
from companion.rules.errors import MalformedGame
from companion.rules.sushi_express.state import (
    AcceptRoll,
    Deliver,
    EndTurn,
    MAX_PLAYERS,
    MIN_PLAYERS,
    Exchange,
    Guess,
    Move,
    ReRoll,
    Roll,
    SushiExpressOptions,
    parse_customer,
)
from companion.rules.sushi_express.table import TableState, advance, name_display, new_table_game, reveal_tips

NOTE_KINDS = ("chose", "named", "seen")


@dataclass(frozen=True)
class AppliedTurn:
    """One applied step that counts (not undone): where it was read, and ``plays[seat]`` its engine
    actions (the cards laid and tips said are in the state)."""

    round: int
    turn: int
    plays: dict[int, tuple[Any, ...]]


@dataclass(frozen=True)
class Rebuilt:
    """A game rebuilt from its events: the state now, and the steps that count, in order."""

    state: TableState
    turns: tuple[AppliedTurn, ...]


def encode_action(action: Any) -> dict[str, Any]:
    """One engine action as the journal holds it (module doc)."""
    if isinstance(action, Guess):
        return {"guess": action.number, "same_guess": bool(action.same_guess)}
    if isinstance(action, Exchange):
        return {"exchange": [action.a, action.b]}
    if isinstance(action, EndTurn):
        return {"end_turn": True}
    if isinstance(action, Roll):
        return {"roll": list(action.faces or ())}
    if isinstance(action, ReRoll):
        return {"reroll": {"die": action.die, "face": action.face}}
    if isinstance(action, AcceptRoll):
        return {"accept": True}
    if isinstance(action, Move):
        return {"move": {"further": action.further, "take": None if action.take is None else str(action.take)}}
    if isinstance(action, Deliver):
        return {"deliver": "keep" if action.keep else "discard"}
    raise ValueError(f"not a Sushi Express action: {action!r}")


def decode_action(seat: int, item: Any) -> Any:
    """The engine action of a journal item (module doc) taken by ``seat``.

    Raises:
        ValueError: an item of another shape, naming it.
    """
    if not isinstance(item, dict) or not item:
        raise ValueError(f"an action is an object (guess, exchange, end_turn, roll, reroll, accept, move or "
                         f"deliver), got {item!r:.80}")
    if "guess" in item:
        return Guess(seat, item["guess"], item.get("same_guess", False))
    if "exchange" in item and isinstance(item["exchange"], list) and len(item["exchange"]) == 2:
        return Exchange(seat, *item["exchange"])
    if item.get("end_turn") is True:
        return EndTurn(seat)
    if "roll" in item and isinstance(item["roll"], list) and len(item["roll"]) == 2:
        return Roll(seat, tuple(item["roll"]))
    if isinstance(item.get("reroll"), dict):
        return ReRoll(seat, item["reroll"].get("die"), item["reroll"].get("face"))
    if item.get("accept") is True:
        return AcceptRoll(seat)
    if isinstance(item.get("move"), dict):
        take = item["move"].get("take")
        return Move(seat, item["move"].get("further", 0), None if take is None else parse_customer(take))
    if item.get("deliver") in ("keep", "discard"):
        return Deliver(seat, item["deliver"] == "keep")
    raise ValueError(f"not a Sushi Express action: {item!r:.80}")


class SushiExpressAdapter:
    """The Sushi Express adapter (see :class:`companion.app.games.GameAdapter`)."""

    name = "sushi-express"
    players = (MIN_PLAYERS, MAX_PLAYERS)  # sushi-express.txt, CONTENTS
    note_kinds = NOTE_KINDS

    def parse_options(self, mapping: dict[str, Any]) -> SushiExpressOptions:
        """The engine's options. Raises MalformedGame naming an unknown option or a bad value."""
        return SushiExpressOptions.from_mapping(mapping)

    def new_state(self, players: Sequence[str], options: dict[str, Any]) -> TableState:
        return new_table_game(list(players), self.parse_options(options))

    @staticmethod
    def turn_payload(round_: int, turn: int, plays: dict[int, Sequence[Any]]) -> dict[str, Any]:
        """The ``"turn"`` event of an applied step (module doc)."""
        from companion.app.express_game import Laid, Tips

        (seat, items), = plays.items()
        payload: dict[str, Any] = {"round": round_, "turn": turn, "seat": seat}
        item = items[0] if items else None
        if isinstance(item, Laid):
            payload.update(laid=[str(c) for c in item.cards], first=item.first)
        elif isinstance(item, Tips):
            payload["tips"] = {str(s): n for s, n in item.counts}
        else:
            payload["actions"] = [encode_action(a) for a in items]
        return payload

    @staticmethod
    def event_plays(state: TableState, plays: dict[int, Sequence[Any]]) -> dict[str, list[str]]:
        """``plays`` in words per player name, for the loop's ``applied`` event."""
        from companion.app.express_game import describe_step

        return {state.players[s]: describe_step(state.players, items, state) for s, items in sorted(plays.items())}

    def rebuild_turns(self, players: Sequence[str], options: dict[str, Any], events: Sequence[Any]) -> Rebuilt:
        """Replay ``events`` (journal Events) through the table rules.

        Raises:
            JournalError: an event that does not replay, naming its seq.
        """
        try:
            start = self.new_state(players, options)
        except (MalformedGame, ValueError) as exc:
            raise JournalError(f"the game's players or options do not make a Sushi Express game: {exc}") from None

        def replay_turn(state, payload):
            after, actions = _replay_step(state, payload)
            return after, AppliedTurn(payload["round"], payload["turn"], {payload["seat"]: actions})

        return Rebuilt(*replay_events(start, events, replay_turn, NOTE_KINDS))

    def rebuild(self, players: Sequence[str], options: dict[str, Any], events: Sequence[Any]) -> TableState:
        return self.rebuild_turns(players, options, events).state

    def record(self, players: Sequence[str], options: dict[str, Any], events: Sequence[Any]) -> dict[str, Any]:
        """The game as a ``companion score --game sushi-express`` record (each player's cards at the end).

        Raises:
            JournalError: as :meth:`rebuild_turns`, or the game is not over.
        """
        from companion.rules.sushi_express.record import record_from_state

        return record_from_state(finished(self.rebuild(players, options, events)))

    def result(self, state: TableState) -> dict[str, Any] | None:
        return None if state.result is None else state.result.to_dict()

    @staticmethod
    def totals(state: TableState) -> dict[str, int]:
        """Each player's points so far: the customers collected (3 for a colour's first card, 1 for
        each further, SCORING); at the end, the final totals with the tip penalty."""
        from collections import Counter

        from companion.rules.sushi_express.scoring import colour_points
        from companion.rules.sushi_express.state import Customer

        if state.result is not None:
            return dict(zip(state.players, state.result.totals))
        out = {}
        for s, name in enumerate(state.players):
            held = Counter(c for c in state.collected[s] if c is not Customer.TIP)
            out[name] = sum(colour_points(n) for n in held.values())
        return out

    def table_reader(self, players: Sequence[str], options: dict[str, Any], enrolled=None):
        """A :class:`companion.app.express_game.ExpressTableGame` (the dice need no enrolment)."""
        from companion.app.express_game import ExpressTableGame

        return ExpressTableGame(list(players), self.parse_options(options))

    @staticmethod
    def enrolled(deck: str | None, dice: str | None = None, sim: bool = False):
        """Nothing to enrol: standard pip dice are read as they are (``companion read dice --kind d6``)."""
        return None

    def sim_camera(self, players: Sequence[str], options: dict[str, Any], seed: int, steps: int | None = None):
        """The simulated camera of ``--camera sim``: two dice on a table; a bot hand throws them
        whenever the game waits for a roll (:class:`companion.sim.express_stream.SimExpressStream`,
        its ``roller`` set by :func:`companion.sim.express_bots.watch`)."""
        from companion.sim.express_stream import SimExpressStream

        return SimExpressStream(seed, max_frames=None if steps is None else steps * 200)

    @staticmethod
    def watch_sim(camera, table, seed: int) -> None:
        """``--camera sim``: the simulated hand throws both dice whenever ``table`` waits for a roll
        (:class:`companion.sim.express_bots.RandomRoller`); the players do the rest on the panel."""
        from companion.sim.express_bots import RandomRoller

        camera.roller = RandomRoller(table, seed)

    @staticmethod
    def views():
        """The module that builds this game's screens (``companion.app.express_views``)."""
        from companion.app import express_views

        return express_views


def _replay_step(state: TableState, payload: dict[str, Any]) -> tuple[TableState, tuple[Any, ...]]:
    """The state after one ``"turn"`` event, and its engine actions; raises as the rules do."""
    if not isinstance(payload, dict) or type(payload.get("round")) is not int or type(payload.get("seat")) is not int:
        raise ValueError("a step names a whole-number round and seat")
    if payload["round"] != state.round:
        raise ValueError(f"it is round {payload['round']}, but the game is at round {state.round}")
    seat = payload["seat"]
    if "laid" in payload:
        return name_display(state, [parse_customer(c) for c in payload["laid"]]), ()
    if "tips" in payload:
        tips_in = payload["tips"]
        if not isinstance(tips_in, dict):
            raise ValueError("tips are an object: seat → tip cards")
        return reveal_tips(state, {int(s): n for s, n in tips_in.items()}), ()
    items = payload.get("actions")
    if not isinstance(items, list) or not items:
        raise ValueError("a step holds one or more actions, the cards laid, or the tips")
    actions = tuple(decode_action(seat, item) for item in items)
    after = state
    for action in actions:
        after = advance(after, action)
    return after, actions


ADAPTER = SushiExpressAdapter()
