"""Checks shared by the ``companion score`` record readers of every game.

Each raises :class:`~companion.rules.errors.MalformedGame` with the field path, so every game names
a bad field the same way.
"""

from __future__ import annotations

import json
import math
from typing import Any, Mapping, Sequence

from companion.rules.errors import MalformedGame

#: Longest record text ``companion score`` reads, characters. A finished 5-player Sushi Go! game
#: is about 4 000; a million leaves room for any spacing while keeping a runaway file (or stdin)
#: from filling memory.
MAX_RECORD_CHARS = 1_000_000
#: Deepest nesting of lists and objects a record may have. The deepest record nests 5 (Sushi Go!:
#: record → rounds → round → a player's turns → a chopsticks pair); Python's parser itself gives
#: up near 1 000 with a RecursionError.
MAX_RECORD_DEPTH = 32
#: Most digits a whole number in a record may have (counts of cards are 1 or 2 digits; Python
#: refuses to convert more than 4 300 anyway, with a ValueError).
_MAX_DIGITS = 30


class _Refused(ValueError):
    """A JSON value the record reader will not take (raised from the json module's hooks)."""


def _refuse_constant(name: str) -> Any:
    raise _Refused(f"{name} is not a JSON number (RFC 8259 §6 allows only finite numbers)")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _Refused(f"the number {text[:40]} is out of range")
    return value


def _short_int(text: str) -> int:
    if len(text.lstrip("-")) > _MAX_DIGITS:
        raise _Refused(f"a whole number of {len(text.lstrip('-'))} digits (at most {_MAX_DIGITS})")
    return int(text)


def _depth(value: Any) -> int:
    """How deep lists and objects nest in a parsed JSON value (a scalar is 0); iterative, so a deep
    value cannot exhaust the stack."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        v, d = stack.pop()
        children = v.values() if isinstance(v, dict) else v if isinstance(v, list) else None
        if children is None:
            continue
        deepest = max(deepest, d)
        stack.extend((c, d + 1) for c in children if isinstance(c, (dict, list)))
    return deepest


def parse_record_json(text: str) -> Any:
    """Parse a game record's JSON text, refusing what no record holds and what could exhaust
    memory or the stack.

    Args:
        text: the record, at most :data:`MAX_RECORD_CHARS` characters.

    Returns:
        The parsed value (not yet checked as a record: see each game's ``*_record`` module).

    Raises:
        MalformedGame: (path "") "invalid JSON: ..." for a syntax error (with line and column), text
            longer than ``MAX_RECORD_CHARS``, lists/objects nested deeper than ``MAX_RECORD_DEPTH``,
            ``NaN``/``Infinity`` (not JSON, RFC 8259 §6, though Python's parser takes them), a
            number out of float range (``1e999``), or a whole number of more than 30 digits.
    """
    if len(text) > MAX_RECORD_CHARS:
        raise MalformedGame("", f"too long: more than {MAX_RECORD_CHARS:,} characters (a game record is a few thousand)")
    too_deep = f"invalid JSON: lists and objects nested more than {MAX_RECORD_DEPTH} deep (a game record nests at most 5)"
    try:
        value = json.loads(text, parse_constant=_refuse_constant, parse_float=_finite_float, parse_int=_short_int)
    except json.JSONDecodeError as exc:
        raise MalformedGame("", f"invalid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    except _Refused as exc:
        raise MalformedGame("", f"invalid JSON: {exc}") from None
    except RecursionError:
        raise MalformedGame("", too_deep) from None
    if _depth(value) > MAX_RECORD_DEPTH:
        raise MalformedGame("", too_deep)
    return value


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
