"""Sushi Roll in the play loop: journal events to engine states, records and results (issue #10).

Journal events of a Sushi Roll game (:mod:`companion.app.journal`):

* ``"turn"`` holding a roll: ``{"round": r, "turn": t, "roll": [["maki*2", ...], ...]}``, the faces
  read on every belt, in seat order, when the dice were rolled (sushi-roll.txt, SET UP and SLIDE
  AND ROLL) — the engine's ``Roll(faces=...)``;
* ``"turn"`` holding a player's actions: ``{"round": r, "turn": t, "seat": s, "actions": [...]}``,
  what one settle showed of that player's turn, in order, each one of
  ``{"menu": {"reroll": [...], "result": [...]}}``, ``{"chopsticks": {"mine": f, "other": seat,
  "theirs": f}}`` and ``{"take": f}`` (sushi-roll.txt, EVERYBODY TAKES A TURN); a turn may be
  spread over several events (a re-roll, a settle, then the take);
* ``"undo"``: ``{"turns": n}``, the last ``n`` applied events of those two kinds taken back;
* ``"named"``: a die the camera could not name, named on the panel (``{"seat", "card": face,
  "center_mm"}``), and ``"chose"``: the players' answer to an ambiguous sight (``{"seat",
  "first": answer}``); the ``"turn"`` event that follows holds the result, so replaying skips both.

Options (``--option``): ``pudding_all_equal`` (the engine's open point) and ``red_seat``: the seat
(0 = the first player named) dealt the red-bordered belt (SET UP), 0 when not given.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from companion.app.games import finished, replay_events
from companion.app.journal import JournalError
from companion.rules.errors import MalformedGame
from companion.rules.sushi_roll import apply, new_game
from companion.rules.sushi_roll.state import Chopsticks, Menu, Roll, SushiRollOptions, SushiRollState, Take

#: Event kinds that change nothing when replayed (they explain a later event).
NOTE_KINDS = ("named", "chose")
#: The option that is not an engine option: who holds the red belt at the start.
RED_SEAT = "red_seat"


@dataclass(frozen=True)
class AppliedTurn:
    """One applied event that counts (not undone): the round and turn it was read at, and
    ``plays[seat]`` the actions (for a roll, every seat's ``Roll`` of its own belt)."""

    round: int
    turn: int
    plays: dict[int, tuple[Any, ...]]


@dataclass(frozen=True)
class Rebuilt:
    """A game rebuilt from its events: the engine state now, and the events that count, in order."""

    state: SushiRollState
    turns: tuple[AppliedTurn, ...]


def encode_action(action: Menu | Chopsticks | Take) -> dict[str, Any]:
    """One action as the journal holds it (module doc)."""
    if isinstance(action, Menu):
        return {"menu": {"reroll": [str(f) for f in action.reroll], "result": [str(f) for f in action.result or ()]}}
    if isinstance(action, Chopsticks):
        return {"chopsticks": {"mine": str(action.mine), "other": action.other, "theirs": str(action.theirs)}}
    if isinstance(action, Take):
        return {"take": str(action.face)}
    raise ValueError(f"not a player's action: {action!r}")


def decode_action(seat: int, item: Any) -> Menu | Chopsticks | Take:
    """The engine action of a journal item (module doc) taken by ``seat``.

    Raises:
        ValueError: an item of another shape, naming it; the engine's IllegalAction for a bad face.
    """
    if not isinstance(item, dict) or len(item) != 1:
        raise ValueError(f"an action is an object with one key (menu, chopsticks or take), got {item!r:.80}")
    (kind, body), = item.items()
    if kind == "take" and isinstance(body, str):
        return Take(seat, body)
    if kind == "menu" and isinstance(body, dict) and set(body) == {"reroll", "result"}:
        return Menu(seat, tuple(body["reroll"]), tuple(body["result"]))
    if kind == "chopsticks" and isinstance(body, dict) and set(body) == {"mine", "other", "theirs"}:
        return Chopsticks(seat, body["mine"], body["other"], body["theirs"])
    raise ValueError(f"not a Sushi Roll action: {item!r:.80}")


def red_seat_of(options: dict[str, Any], players: int | None = None) -> int:
    """The ``red_seat`` option (0 when not given).

    Raises:
        MalformedGame: not a whole number, or (with ``players``) not a seat of the game.
    """
    seat = options.get(RED_SEAT, 0)
    if type(seat) is not int or seat < 0 or (players is not None and seat >= players):
        seats = f"0 to {players - 1}" if players else "0 or more"
        raise MalformedGame(f"options.{RED_SEAT}", f"the seat dealt the red belt is a whole number {seats} "
                                                   f"(0 is the first player named), got {seat!r:.40} "
                                                   "(sushi-roll.txt, SET UP)")
    return seat


class SushiRollAdapter:
    """The Sushi Roll adapter (see :class:`companion.app.games.GameAdapter`)."""

    name = "sushi-roll"
    players = (2, 5)  # sushi-roll.txt, SET UP
    note_kinds = NOTE_KINDS

    def parse_options(self, mapping: dict[str, Any]) -> SushiRollOptions:
        """The engine's options; ``red_seat`` is checked and set apart (:func:`red_seat_of`).

        Raises MalformedGame naming an unknown option or a bad value."""
        if not isinstance(mapping, dict):
            raise MalformedGame("options", f"must be an object of options, got {type(mapping).__name__}")
        red_seat_of(mapping)
        known = [*SushiRollOptions().to_dict(), RED_SEAT]
        for key in mapping:
            if key not in known:
                raise MalformedGame(f"options.{key}", f"unknown option; valid options are: {', '.join(known)}")
        return SushiRollOptions.from_mapping({k: v for k, v in mapping.items() if k != RED_SEAT})

    def new_state(self, players: Sequence[str], options: dict[str, Any]) -> SushiRollState:
        parsed = self.parse_options(options)
        return new_game(list(players), options=parsed, red_seat=red_seat_of(options, len(players)))

    @staticmethod
    def turn_payload(round_: int, turn: int, plays: dict[int, Sequence[Any]]) -> dict[str, Any]:
        """The ``"turn"`` event for an applied outcome's ``plays`` (module doc)."""
        first = next(iter(plays.values()))
        if first and isinstance(first[0], Roll):
            return {"round": round_, "turn": turn,
                    "roll": [[str(f) for f in plays[s][0].faces[0]] for s in sorted(plays)]}
        (seat, actions), = plays.items()
        return {"round": round_, "turn": turn, "seat": seat, "actions": [encode_action(a) for a in actions]}

    @staticmethod
    def event_plays(state: SushiRollState, plays: dict[int, Sequence[Any]]) -> dict[str, list[str]]:
        """``plays`` in words per player name, for the loop's ``applied`` event."""
        from companion.app.roll_views import describe_actions

        return {state.players[s]: describe_actions(state.players, actions) for s, actions in sorted(plays.items())}

    def rebuild_turns(self, players: Sequence[str], options: dict[str, Any], events: Sequence[Any]) -> Rebuilt:
        """Replay ``events`` (journal Events) through the engine.

        Raises:
            JournalError: an event that does not replay (an unknown kind, actions the rules
                refuse, an undo of more events than were applied), naming its seq.
        """
        try:
            start = self.new_state(players, options)
        except (MalformedGame, ValueError) as exc:
            raise JournalError(f"the game's players or options do not make a Sushi Roll game: {exc}") from None
        def replay_turn(state, payload):
            after, plays = _replay_turn(state, payload)
            return after, AppliedTurn(payload["round"], payload["turn"], plays)

        return Rebuilt(*replay_events(start, events, replay_turn, NOTE_KINDS))

    def rebuild(self, players: Sequence[str], options: dict[str, Any], events: Sequence[Any]) -> SushiRollState:
        return self.rebuild_turns(players, options, events).state

    def record(self, players: Sequence[str], options: dict[str, Any], events: Sequence[Any]) -> dict[str, Any]:
        """The game as a ``companion score --game sushi-roll`` record (each round's dice per player
        in the order taken, the tokens left, the options).

        Raises:
            JournalError: as :meth:`rebuild_turns`, or the game is not over.
        """
        from companion.rules.sushi_roll.record import record_from_state

        return record_from_state(finished(self.rebuild(players, options, events)))

    def result(self, state: SushiRollState) -> dict[str, Any] | None:
        return None if state.result is None else state.result.to_dict()

    @staticmethod
    def totals(state: SushiRollState) -> dict[str, int]:
        """Each player's points so far: finished rounds, then puddings and leftover tokens once
        the game is over (sushi-roll.txt, SCORING A ROUND, ENDING THE GAME)."""
        if state.result is not None:
            return dict(zip(state.players, state.result.totals))
        return {name: sum(rs.points[s] for rs in state.round_scores) for s, name in enumerate(state.players)}

    def table_reader(self, players: Sequence[str], options: dict[str, Any], dice):
        """A :class:`companion.app.roll_game.RollTableGame` on the Sushi Roll mat for this many players."""
        from companion.app.roll_game import RollTableGame
        from companion.vision.mat_layout import load_mat_layout

        layout = load_mat_layout(len(players), game="sushi-roll")
        return RollTableGame(list(players), layout, dice, self.parse_options(options),
                             red_seat=red_seat_of(options, len(players)))

    @staticmethod
    def enrolled(deck: str | None, dice: str | None = None, sim: bool = False):
        """What the table reader reads dice with: the enrolled dice at ``dice``, the simulator's own
        dice for a simulated camera, or the service's ``dice.npz`` beside the journal.

        Raises:
            ValueError: no dice given or found (saying how to enrol them), or a file that does not load.
        """
        from companion.app.games import load_enrolled
        from companion.sim.record import enroll_sim_dice
        from companion.vision.dice_faces import DiceError, DiceSet

        return load_enrolled(dice, sim, option="--dice", file_name="dice.npz", simulated=enroll_sim_dice,
                             missing="--dice DICE.npz: enrol your dice first (companion enroll --dice DIR --out "
                                     "DICE.npz)", load=DiceSet.load, error=DiceError)

    def sim_camera(self, players: Sequence[str], options: dict[str, Any], seed: int, steps: int | None = None):
        """The simulated camera of ``--camera sim``: bots play Sushi Roll with the red belt where
        ``options`` says (:class:`companion.sim.roll_stream.SimRollStream`)."""
        from companion.sim.roll_stream import SimRollStream

        return SimRollStream(list(players), seed, self.parse_options(options),
                             red_seat=red_seat_of(options, len(players)), max_steps=steps)

    @staticmethod
    def views():
        """The module that builds this game's screens (``companion.app.roll_views``)."""
        from companion.app import roll_views

        return roll_views


def _replay_turn(state: SushiRollState, payload: dict[str, Any]):
    """The state after one ``"turn"`` event, and its plays; raises as the engine does."""
    if not isinstance(payload, dict) or not isinstance(payload.get("round"), int) or not isinstance(payload.get("turn"), int):
        raise ValueError("a turn event has a whole-number round and turn")
    if payload["round"] != state.round:
        raise ValueError(f"it is round {payload['round']}, but the game is at round {state.round}")
    if "roll" in payload:
        faces = payload["roll"]
        if not isinstance(faces, list) or not all(isinstance(b, list) for b in faces):
            raise ValueError("a roll is one list of faces per belt")
        after = apply(state, Roll(faces=tuple(tuple(b) for b in faces)))
        return after, {s: (Roll(faces=(after.belts[s],)),) for s in range(after.seats)}
    seat, items = payload["seat"], payload["actions"]
    if type(seat) is not int or not isinstance(items, list) or not items:
        raise ValueError("a turn event names a seat and lists one or more actions")
    after = state
    actions = []
    for item in items:
        action = decode_action(seat, item)
        after = apply(after, action)
        actions.append(action)
    return after, {seat: tuple(actions)}


ADAPTER = SushiRollAdapter()
