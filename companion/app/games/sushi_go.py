"""Sushi Go! in the play loop: journal events to engine states, records and results.

Journal events of a Sushi Go! game (:mod:`companion.app.journal`):

* ``"turn"``: ``{"round": r, "turn": t, "plays": {"<seat>": ["card", ...]}}``, one whole turn as
  the table showed it (two cards for a chopsticks turn, in the order taken) — applied with the
  engine's ``apply_turn`` (sushi-go.txt, PLAYING A ROUND);
* ``"undo"``: ``{"turns": n}``, the last ``n`` applied turns taken back (an event, never a deletion);
* ``"named"``: ``{"seat": s, "card": "..."}``, a card the camera could not name, named on the panel;
  the turn event that follows holds the name, so replaying skips it;
* ``"chose"``: ``{"seat": s, "first": "..."}``, which of a chopsticks turn's cards the players said
  was taken first where the frame could not show it (which nigiri is on the wasabi); the turn
  event that follows lists its cards in that order, so replaying skips it too.

Events are replayed from the start on every resume; the state must come out as it was.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from companion.app.games import finished, replay_events
from companion.app.journal import JournalError
from companion.rules.errors import MalformedGame
from companion.rules.sushi_go import apply_turn, new_observed_game
from companion.rules.sushi_go.state import DUMMY_NAME, SushiGoOptions, SushiGoState

#: Event kinds that change nothing when replayed (they explain a later event).
NOTE_KINDS = ("named", "chose")


@dataclass(frozen=True)
class AppliedTurn:
    """One turn that counts (not undone): the round and turn it was, and ``plays[seat]`` the card
    names taken, in the order taken."""

    round: int
    turn: int
    plays: dict[int, tuple[str, ...]]


@dataclass(frozen=True)
class Rebuilt:
    """A game rebuilt from its events: the engine state now, and the turns that count, in order."""

    state: SushiGoState
    turns: tuple[AppliedTurn, ...]


class SushiGoAdapter:
    """The Sushi Go! adapter (see :class:`companion.app.games.GameAdapter`)."""

    name = "sushi-go"
    players = (2, 5)  # sushi-go.txt, STARTING A ROUND

    def parse_options(self, mapping: dict[str, Any]) -> SushiGoOptions:
        """Raises MalformedGame naming an unknown option or a bad value."""
        return SushiGoOptions.from_mapping(mapping)

    def new_state(self, players: Sequence[str], options: dict[str, Any]) -> SushiGoState:
        return new_observed_game(list(players), self.parse_options(options))

    @staticmethod
    def turn_payload(round_: int, turn: int, plays: dict[int, Sequence[Any]]) -> dict[str, Any]:
        """The ``"turn"`` event for ``plays`` (seat -> cards, Card or name) at round ``round_``, turn ``turn``."""
        return {
            "round": round_,
            "turn": turn,
            "plays": {str(seat): [getattr(c, "value", c) for c in cards] for seat, cards in sorted(plays.items())},
        }

    @staticmethod
    def event_plays(state: SushiGoState, plays: dict[int, Sequence[Any]]) -> dict[str, list[str]]:
        """``plays`` (seat -> cards) as the loop's ``applied`` event gives them: card names per player."""
        return {state.players[s]: [getattr(c, "value", c) for c in cards] for s, cards in sorted(plays.items())}

    def rebuild_turns(self, players: Sequence[str], options: dict[str, Any], events: Sequence[Any]) -> Rebuilt:
        """Replay ``events`` (journal Events) through the engine.

        Raises:
            JournalError: an event that does not replay (an unknown kind, a turn the rules refuse,
                an undo of more turns than were applied), naming its seq.
        """
        try:
            start = self.new_state(players, options)
        except (MalformedGame, ValueError) as exc:
            raise JournalError(f"the game's players or options do not make a Sushi Go! game: {exc}") from None
        def replay_turn(state, payload):
            where = (payload["round"], payload["turn"])
            if where != (state.round, state.turn):
                raise ValueError(f"it is round {where[0]} turn {where[1]}, but the game is at "
                                 f"round {state.round} turn {state.turn}")
            plays = {int(seat): tuple(cards) for seat, cards in payload["plays"].items()}
            return apply_turn(state, plays), AppliedTurn(state.round, state.turn, plays)

        return Rebuilt(*replay_events(start, events, replay_turn, NOTE_KINDS))

    def rebuild(self, players: Sequence[str], options: dict[str, Any], events: Sequence[Any]) -> SushiGoState:
        return self.rebuild_turns(players, options, events).state

    def record(self, players: Sequence[str], options: dict[str, Any], events: Sequence[Any]) -> dict[str, Any]:
        """The game as a ``companion score --game sushi-go`` record: ``companion score`` on it gives
        the totals the table saw.

        Raises:
            JournalError: as :meth:`rebuild_turns`, or the game is not over (a record holds whole
                rounds only).
        """
        rebuilt = self.rebuild_turns(players, options, events)
        state = finished(rebuilt.state)
        seats = state.players
        rounds: list[dict[str, list[Any]]] = [{name: [] for name in seats} for _ in range(3)]
        for turn in rebuilt.turns:
            for seat, cards in turn.plays.items():
                rounds[turn.round - 1][seats[seat]].append(cards[0] if len(cards) == 1 else list(cards))
        real = [p for p in seats if not (state.options.dummy and p == DUMMY_NAME)]
        return {"players": real, "rounds": rounds, "options": dict(options)}

    def result(self, state: SushiGoState) -> dict[str, Any] | None:
        return None if state.result is None else state.result.to_dict()

    @staticmethod
    def totals(state: SushiGoState) -> dict[str, int]:
        """Each player's points so far: finished rounds, and puddings once the game is over
        (sushi-go.txt, END OF THE GAME)."""
        if state.result is not None:
            return dict(zip(state.players, state.result.totals))
        return {name: sum(rs.points[s] for rs in state.round_scores) for s, name in enumerate(state.players)}

    def table_reader(self, players: Sequence[str], options: dict[str, Any], deck):
        """What reads the table into turns: a :class:`companion.app.table_game.TableGame` on the
        game's mat (the dummy variant uses the 3-seat mat)."""
        from companion.app.table_game import TableGame
        from companion.sim.game_sim import mat_for

        parsed = self.parse_options(options)
        return TableGame(list(players), mat_for(len(players), parsed), deck, parsed)

    @staticmethod
    def enrolled(deck: str | None, dice: str | None = None, sim: bool = False):
        """What the table reader reads cards with: the enrolled deck at ``deck``, the simulator's
        own deck for a simulated camera, or the service's ``deck.npz`` beside the journal.

        Raises:
            ValueError: no deck given or found (saying how to enrol one), or one that does not load.
        """
        from companion.app.games import load_enrolled
        from companion.sim.record import enroll_sim_deck
        from companion.vision.deck import Deck, DeckError

        return load_enrolled(deck, sim, option="--deck", file_name="deck.npz", simulated=enroll_sim_deck,
                             missing="--deck DECK.npz: enrol your cards first (companion enroll --deck DIR --out "
                                     "DECK.npz)", load=Deck.load, error=DeckError)

    def sim_camera(self, players: Sequence[str], options: dict[str, Any], seed: int, steps: int | None = None):
        """The simulated camera of ``--camera sim``: bots play the game (:class:`companion.sim.stream.SimTableStream`)."""
        from companion.sim.stream import SimTableStream

        return SimTableStream(list(players), seed, self.parse_options(options), max_turns=steps)

    @staticmethod
    def views():
        """The module that builds this game's screens from its state (``companion.app.views``)."""
        from companion.app import views

        return views


ADAPTER = SushiGoAdapter()
