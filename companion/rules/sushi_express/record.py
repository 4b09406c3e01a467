"""Scoring a finished Sushi Express game from a record of the cards held (the ``companion score`` input).

A record is a JSON object::

    {"players": ["Ann", "Bo", "Cy"],
     "cards": {"Ann": {"customers": {"light_blue": 3, "rose": 1}, "tips": 1, "tip_actions": 0,
                       "actions_left": 2},
               "Bo": {...}, "Cy": {...}},
     "options": {"equal_tips_penalty": false}}

Per player: ``customers`` counts the customer cards of each colour (colour names as in
:class:`~companion.rules.sushi_express.state.Customer`; ``"light blue"`` is accepted too), ``tips`` the
tip customer cards, ``tip_actions`` the tip action cards, and ``actions_left`` the action cards left
**other than tip cards** (the tie-break counts them without the tips, SCORING; the tip action cards are
already given as ``tip_actions``). All four fields are required so that a forgotten count is never
silently scored as 0. ``options`` is optional and is checked exactly as the engine checks it
(``first_player`` must be a seat of this game). Counts are checked against the box (CONTENTS): no more
cards of a kind, over all players, than the game has.

The record holds the cards at game end, not the actions of the game, so nothing of phase 1 (guesses,
exchanges, the end of each turn) appears in it. :func:`record_from_state` writes the record of a game
the engine finished.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Mapping

from companion.rules.errors import MalformedGame
from companion.rules.records import json_type_name as _type_name, record_players
from companion.rules.score_table import format_score_table
from companion.rules.sushi_express.scoring import SushiExpressResult, score_game
from companion.rules.sushi_express.state import (
    ACTION_COUNTS,
    COLOURS,
    CUSTOMER_COUNTS,
    MAX_PLAYERS,
    MIN_PLAYERS,
    ActionCard,
    Customer,
    SushiExpressOptions,
    SushiExpressState,
    parse_customer,
)
from companion.rules.wording import join_names

PLAYER_FIELDS = ("customers", "tips", "tip_actions", "actions_left")
#: Action cards other than tips (the most ``actions_left`` can add up to).
NON_TIP_ACTIONS = sum(n for c, n in ACTION_COUNTS.items() if c is not ActionCard.TIP)


def _count(value: Any, path: str) -> int:
    if type(value) is not int or value < 0:
        raise MalformedGame(path, f"must be a whole number of cards (0 or more), got {value!r}")
    return value


def score_sushi_express_record(record: Any) -> SushiExpressResult:
    """The final result of a recorded game: customer points, tip penalties, totals, winners, breakdown.

    Raises:
        MalformedGame: naming the field path (e.g. ``cards.Bo.customers.rose``) and the problem: not an
            object, missing or unknown fields, 3–6 distinct player names, counts that are not whole
            numbers, unknown colours or options, an option the engine would refuse for this game
            (``first_player`` not one of its seats), or more cards of a kind than the game has.
    """
    if not isinstance(record, Mapping):
        raise MalformedGame("", f"the game must be a JSON object, got {_type_name(record)}")
    unknown = sorted(set(record) - {"players", "cards", "options"})
    if unknown:
        raise MalformedGame(unknown[0], "unknown field; fields are players, cards, options")
    for field in ("players", "cards"):
        if field not in record:
            raise MalformedGame(field, "missing")
    players = record["players"]
    record_players(players)  # the names every engine takes (core.player_names)
    if not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
        raise MalformedGame(
            "players", f"Sushi Express is for {MIN_PLAYERS} to {MAX_PLAYERS} players, got {len(players)}"
        )
    # After the players: the options are checked against this game's seats, as new_game checks them.
    options = SushiExpressOptions.from_mapping(record.get("options", {}), seats=len(players))
    cards = record["cards"]
    if not isinstance(cards, Mapping):
        raise MalformedGame("cards", f"must be an object with one entry per player, got {_type_name(cards)}")
    for key in cards:
        if key not in players:
            raise MalformedGame(f"cards.{key}", f"unknown player; players are {', '.join(players)}")
    customers: list[Counter[Customer]] = []
    tip_actions: list[int] = []
    actions_left: list[int] = []
    # Running totals over all players, to refuse more cards of a kind than the box holds (CONTENTS).
    seen: Counter[Customer] = Counter()
    seen_tip_actions = seen_actions = 0
    for name in players:
        path = f"cards.{name}"
        if name not in cards:
            raise MalformedGame(path, "missing")
        entry = cards[name]
        if not isinstance(entry, Mapping):
            raise MalformedGame(path, f"must be an object with {', '.join(PLAYER_FIELDS)}, got {_type_name(entry)}")
        for key in entry:
            if key not in PLAYER_FIELDS:
                raise MalformedGame(f"{path}.{key}", f"unknown field; fields are {', '.join(PLAYER_FIELDS)}")
        for key in PLAYER_FIELDS:
            if key not in entry:
                raise MalformedGame(f"{path}.{key}", "missing")
        held: Counter[Customer] = Counter()
        colours = entry["customers"]
        if not isinstance(colours, Mapping):
            raise MalformedGame(f"{path}.customers", f"must be an object of colour: count, got {_type_name(colours)}")
        for colour_name, value in colours.items():
            where = f"{path}.customers.{colour_name}"
            try:
                colour = parse_customer(colour_name)
            except ValueError as exc:
                raise MalformedGame(where, str(exc)) from None
            if colour is Customer.TIP:
                raise MalformedGame(where, "tip cards are counted in the field 'tips', not as a customer colour")
            if colour in held:
                raise MalformedGame(where, f"{colour.label} is given twice")
            held[colour] = _count(value, where)
        held[Customer.TIP] = _count(entry["tips"], f"{path}.tips")
        for colour, n in held.items():
            seen[colour] += n
            if seen[colour] > CUSTOMER_COUNTS[colour]:
                where = f"{path}.tips" if colour is Customer.TIP else f"{path}.customers.{_key_of(colours, colour)}"
                raise MalformedGame(
                    where,
                    f"the players hold {seen[colour]} {colour.label} cards in all, but the game has only"
                    f" {CUSTOMER_COUNTS[colour]} (sushi-express.txt, CONTENTS)",
                )
        tips_held = _count(entry["tip_actions"], f"{path}.tip_actions")
        seen_tip_actions += tips_held
        if seen_tip_actions > ACTION_COUNTS[ActionCard.TIP]:
            raise MalformedGame(
                f"{path}.tip_actions",
                f"the players hold {seen_tip_actions} tip action cards in all, but the game has only"
                f" {ACTION_COUNTS[ActionCard.TIP]} (sushi-express.txt, THE ACTION CARDS)",
            )
        left = _count(entry["actions_left"], f"{path}.actions_left")
        seen_actions += left
        if seen_actions > NON_TIP_ACTIONS:
            raise MalformedGame(
                f"{path}.actions_left",
                f"the players hold {seen_actions} action cards (tips not counted) in all, but the game has only"
                f" {NON_TIP_ACTIONS} (sushi-express.txt, THE ACTION CARDS)",
            )
        customers.append(held)
        tip_actions.append(tips_held)
        actions_left.append(left)
    return score_game(tuple(players), customers, tip_actions, actions_left, options)


def _key_of(colours: Mapping[str, Any], colour: Customer) -> str:
    """The key the record used for ``colour`` (it may be spelt ``"light blue"``)."""
    return next(k for k in colours if parse_customer(k) is colour)


def record_from_state(state: SushiExpressState) -> dict[str, Any]:
    """The ``companion score --game sushi-express`` record of a finished game: the cards each player
    holds at game end and the options in force, as a JSON-ready dict (the inverse of scoring it).

    Raises:
        ValueError: when ``state`` is not a SushiExpressState or the game is not over.
    """
    if not isinstance(state, SushiExpressState):
        raise ValueError(f"state must be a SushiExpressState, got {type(state).__name__}")
    if not state.is_over:
        raise ValueError("the game is not over: a record holds the cards at game end (sushi-express.txt, GAME END)")
    cards = {}
    for seat, name in enumerate(state.players):
        held = Counter(state.collected[seat])
        cards[name] = {
            "customers": {c.value: held[c] for c in COLOURS if held[c]},
            "tips": held[Customer.TIP],
            "tip_actions": state.hands[seat].count(ActionCard.TIP),
            "actions_left": state.actions_left(seat),
        }
    return {"players": list(state.players), "cards": cards, "options": state.options.to_dict()}


def format_sushi_express_table(result: SushiExpressResult) -> str:
    """A readable scoreboard: customer points, tip points and totals per player, the winners (with the
    tie-break on action cards: how it decided, or that the tie stays), then the breakdown player by
    player (SCORING: "If players tie for most points, the player among them with the most action cards
    left is the winner. The tip action cards are not counted")."""
    rows = [("Customers", result.customer_points), ("Tips", result.tip_points), ("Total", result.totals)]
    notes = []
    best = max(result.totals)
    if sum(1 for t in result.totals if t == best) > 1:
        tied = [(n, a) for n, t, a in zip(result.players, result.totals, result.tie_break) if t == best]
        counts = ", ".join(f"{n} {a}" for n, a in tied)
        if len(result.winners) == 1:
            notes.append(f"Tie on {best} points broken by action cards left, tips not counted: {counts}")
        else:
            # The tie-break did not separate the leaders: say so instead of claiming it broke the tie.
            notes.append(
                f"Tie on {best} points not broken by action cards left, tips not counted: {counts};"
                f" {join_names(list(result.winners))} stay tied and share the win"
            )
    return format_score_table(result.players, rows, result.winners, result.breakdown, notes)
