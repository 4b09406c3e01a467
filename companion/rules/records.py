"""Checks shared by the ``companion score`` record readers of every game.

Each raises :class:`~companion.rules.errors.MalformedGame` with the field path, so every game names
a bad field the same way.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from companion.rules.errors import MalformedGame


def json_type_name(value: Any) -> str:
    """How a JSON value's type reads in a message: "an object", "a list", "a string"..."""
    return {dict: "an object", list: "a list", str: "a string", bool: "true/false", type(None): "null"}.get(
        type(value), f"a {type(value).__name__}"
    )


def round_objects(rounds: Any, names: Sequence[str], count: int) -> list[Mapping[str, Any]]:
    """Check a record's ``rounds``: a list of ``count`` objects keyed by player names.

    Raises:
        MalformedGame: ``rounds`` is not a list, has the wrong length, a round is not an object, or a
            round names a player who is not in ``names``.
    """
    if not isinstance(rounds, list):
        raise MalformedGame("rounds", f"must be a list of {count} rounds, got {json_type_name(rounds)}")
    if len(rounds) != count:
        raise MalformedGame("rounds", f"a game has {count} rounds, got {len(rounds)}")
    for r, rnd in enumerate(rounds):
        path = f"rounds[{r}]"
        if not isinstance(rnd, Mapping):
            raise MalformedGame(path, f"must be an object with one list per player, got {json_type_name(rnd)}")
        for key in rnd:
            if key not in names:
                raise MalformedGame(path, f"unknown player {key!r}; players are {', '.join(names)}")
    return rounds


def player_list(rnd: Mapping[str, Any], path: str, name: str, expected: int, noun: str, why: str) -> list[Any]:
    """A round's list for player ``name``: present, a list, and ``expected`` long.

    ``noun`` names the entries ("turns", "dice") and ``why`` says where the length comes from, with
    its rulebook section, for the message.

    Raises:
        MalformedGame: at ``path`` for a missing player, at ``path.name`` for the wrong type or length.
    """
    if name not in rnd:
        raise MalformedGame(path, f"missing player {name!r}")
    entries = rnd[name]
    if not isinstance(entries, list):
        raise MalformedGame(f"{path}.{name}", f"must be a list of {noun}, got {json_type_name(entries)}")
    if len(entries) != expected:
        raise MalformedGame(f"{path}.{name}", f"{len(entries)} {noun}, expected {expected}: {why}")
    return entries
