"""Reading and replaying a Sushi Go! game record (the ``companion score`` input).

A record is a JSON object::

    {"players": ["Ann", "Bo", "Cy"],
     "rounds": [{"Ann": ["tempura", "wasabi", ["squid_nigiri", "dumpling"], ...], "Bo": [...], ...}, ...],
     "options": {}}

Each player's list holds one entry per turn in the order played: a card name, or a list of two card
names for a chopsticks turn (in the order taken). With ``"options": {"dummy": true}`` there are 2
players and every round also has a ``"Dummy"`` list. The record is replayed through the observed-game
engine, so a record that breaks a rule is refused with that rule.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from companion.rules.core import GameResult
from companion.rules.errors import IllegalAction, MalformedGame
from companion.rules.records import json_type_name as _type_name, player_list, record_players, round_objects
from companion.rules.score_table import format_score_table
from companion.rules.sushi_go.cards import Card, parse_card
from companion.rules.sushi_go.engine import apply_turn, new_observed_game
from companion.rules.sushi_go.scoring import WINNER, tie_break_text
from companion.rules.sushi_go.state import (
    DUMMY_HAND_SIZE,
    DUMMY_NAME,
    HAND_SIZES,
    ROUNDS,
    TWO_PLAYER,
    SushiGoOptions,
    SushiGoState,
)

STARTING = "sushi-go.txt, STARTING A ROUND"

#: One turn of one player: 1 card, or 2 cards taken with chopsticks.
Turn = tuple[Card, ...]


@dataclass(frozen=True)
class GameRecord:
    """A checked record: seat names (with "Dummy" last in the dummy variant), options, and
    ``rounds[r][seat][t]``, the cards each seat took on each turn."""

    players: tuple[str, ...]
    options: SushiGoOptions
    rounds: tuple[tuple[tuple[Turn, ...], ...], ...]


def _parse_card(value: Any, path: str) -> Card:
    if not isinstance(value, str):
        raise MalformedGame(path, f"must be a card name, got {_type_name(value)}")
    try:
        return parse_card(value)
    except ValueError as exc:
        raise MalformedGame(path, str(exc)) from None


def _parse_turn(value: Any, path: str) -> Turn:
    if isinstance(value, list):
        if len(value) != 2:
            raise MalformedGame(path, f"a chopsticks turn is a list of exactly 2 cards, got {len(value)}")
        return tuple(_parse_card(v, f"{path}[{i}]") for i, v in enumerate(value))
    return (_parse_card(value, path),)


def parse_record(record: Any) -> GameRecord:
    """Check the shape of a record and convert its card names.

    Raises:
        MalformedGame: naming the field path (e.g. ``rounds[0].Bo[2]``) and the problem: missing or
            unknown fields, wrong types, unknown cards or options, wrong numbers of rounds or turns.
    """
    if not isinstance(record, Mapping):
        raise MalformedGame("", f"the game must be a JSON object, got {_type_name(record)}")
    unknown = sorted(set(record) - {"players", "rounds", "options"})
    if unknown:
        raise MalformedGame(unknown[0], "unknown field; fields are players, rounds, options")
    for field in ("players", "rounds"):
        if field not in record:
            raise MalformedGame(field, "missing")
    options = SushiGoOptions.from_mapping(record.get("options", {}))
    players = record["players"]
    record_players(players)  # the names every engine takes (core.player_names)
    if options.dummy:
        if len(players) != 2:
            raise MalformedGame("players", f"the dummy variant needs exactly 2 players, got {len(players)} ({TWO_PLAYER})")
        if DUMMY_NAME.casefold() in (n.casefold() for n in players):  # the table could not tell them apart
            raise MalformedGame("players", f"{DUMMY_NAME!r} is the dummy's name in the dummy variant ({TWO_PLAYER})")
        seats = tuple(players) + (DUMMY_NAME,)
        hand_size = DUMMY_HAND_SIZE
    else:
        if len(players) not in HAND_SIZES:
            raise MalformedGame("players", f"Sushi Go! is for 2 to 5 players, got {len(players)} ({STARTING})")
        seats = tuple(players)
        hand_size = HAND_SIZES[len(players)]
    if isinstance(record["rounds"], list) and len(record["rounds"]) != ROUNDS:
        raise MalformedGame("rounds", f"a game has {ROUNDS} rounds, got {len(record['rounds'])} ({STARTING})")
    rounds = round_objects(record["rounds"], seats, ROUNDS)
    parsed = []
    for r, rnd in enumerate(rounds):
        path = f"rounds[{r}]"
        seat_turns = []
        for name in seats:
            turns = player_list(
                rnd, path, name, hand_size, "turns",
                f"each round has as many turns as cards in a hand ({STARTING})",
            )
            seat_turns.append(tuple(_parse_turn(t, f"{path}.{name}[{i}]") for i, t in enumerate(turns)))
        parsed.append(tuple(seat_turns))
    return GameRecord(seats, options, tuple(parsed))


def replay_record(record: Any) -> SushiGoState:
    """Replay a record through the observed-game engine and return the final state.

    Raises:
        MalformedGame: for a bad shape (see :func:`parse_record`), or an illegal play, with the path of
            that play (``rounds[1].Bo[3]``), the rule error's message and ``rule_error`` set.
    """
    game = parse_record(record)
    real = game.players[:2] if game.options.dummy else game.players
    state = new_observed_game(real, game.options)
    for r, rnd in enumerate(game.rounds):
        for t in range(len(rnd[0])):
            try:
                state = apply_turn(state, {seat: rnd[seat][t] for seat in range(len(game.players))})
            except IllegalAction as exc:
                name = exc.player if exc.player is not None else game.players[0]
                raise MalformedGame(f"rounds[{r}].{name}[{t}]", str(exc), rule_error=exc) from None
    assert state.result is not None
    return state


def score_game_record(record: Any) -> GameResult:
    """The final result of a recorded game (round points, puddings, totals, winners, breakdown).

    Raises:
        MalformedGame: see :func:`replay_record`.
    """
    result = replay_record(record).result
    assert result is not None
    return result


def format_sushi_go_table(result: GameResult) -> str:
    """The ``companion score`` text scoreboard: points per round, puddings and totals per player, the
    winners, how a tie on points was settled (sushi-go.txt, AND THE WINNER IS...), then the breakdown
    grouped by round and player.

    A tie broken by puddings reads ``Winner: Ann (tie on points broken by puddings)`` followed by
    ``Ann and Bo tied on 64; Ann wins with more puddings (1 vs 0) (sushi-go.txt, AND THE WINNER IS...)``,
    as the Sushi Roll table and the final screen say it.
    """
    rows = [(f"Round {i}", r) for i, r in enumerate(result.round_points, 1)]
    rows += [("Pudding", result.game_end_points), ("Total", result.totals)]
    why = tie_break_text(result)
    note = " (tie on points broken by puddings)" if why and len(result.winners) == 1 else ""
    notes = [f"{why} ({WINNER})"] if why else []
    return format_score_table(result.players, rows, result.winners, result.breakdown, notes, winner_note=note)
