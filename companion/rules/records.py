"""Checks shared by the ``companion score`` record readers of every game.

Each raises :class:`~companion.rules.errors.MalformedGame` with the field path, so every game names
a bad field the same way.
"""

from __future__ import annotations

import json
import math
from typing import Any, Mapping, Sequence

from companion.rules.core import PlayerNameError, player_names
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


def _has_lone_surrogate(text: str) -> bool:
    """True if ``text`` holds a UTF-16 surrogate code point. JSON's ``\\uD800`` escapes decode to
    one when they are not a high-low pair (a pair becomes one character), and such a string cannot
    be written as UTF-8: printing it later raises UnicodeEncodeError (RFC 8259 §8.2)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _short(text: str, limit: int = 40) -> str:
    """``repr(text)``, cut to about ``limit`` characters with "…" (a message must stay one line)."""
    shown = repr(text)
    return shown if len(shown) <= limit else shown[: limit - 1] + "…"


def _field_path(parts: list[str | int]) -> str:
    """``["rounds", 1, "Bo", 3]`` → ``rounds[1].Bo[3]`` (the field paths MalformedGame names)."""
    out = ""
    for part in parts:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else part
    return out


def _check_tree(value: Any, duplicates: dict[int, tuple[dict, str]], max_depth: int, too_deep: str) -> None:
    """Walk a parsed JSON value (iteratively, so no depth exhausts the stack) and refuse the first
    object with a duplicate key, string or key with a lone surrogate, or nesting deeper than
    ``max_depth``, naming its field path.

    Raises:
        MalformedGame: at the field's path.
    """
    # entries: (value, depth, parent entry, key in parent); the path is rebuilt only for a refusal
    stack: list[tuple[Any, int, Any, Any]] = [(value, 0, None, None)]

    def path_of(entry) -> str:
        parts: list[str | int] = []
        while entry is not None and entry[2] is not None:
            parts.append(entry[3])
            entry = entry[2]
        return _field_path(parts[::-1])

    while stack:
        entry = stack.pop()
        v, depth = entry[0], entry[1]
        if isinstance(v, str):
            if _has_lone_surrogate(v):
                raise MalformedGame(path_of(entry), f"invalid JSON: the string {_short(v)} holds a lone UTF-16 "
                                    "surrogate (a \\uD800-\\uDFFF escape without its pair; RFC 8259 §8.2)")
            continue
        if isinstance(v, dict):
            if depth + 1 > max_depth:
                raise MalformedGame("", too_deep)
            if id(v) in duplicates:
                key = duplicates[id(v)][1]
                raise MalformedGame(path_of(entry), f"invalid JSON: the key {_short(key)} appears twice in one object "
                                    "(RFC 8259 §4: names should be unique; which one was meant cannot be told)")
            for key in v:
                if _has_lone_surrogate(key):
                    raise MalformedGame(path_of(entry), f"invalid JSON: the key {_short(key)} holds a lone UTF-16 "
                                        "surrogate (a \\uD800-\\uDFFF escape without its pair; RFC 8259 §8.2)")
            stack.extend((child, depth + 1, entry, key) for key, child in reversed(list(v.items())))
        elif isinstance(v, list):
            if depth + 1 > max_depth:
                raise MalformedGame("", too_deep)
            stack.extend((child, depth + 1, entry, i) for i, child in reversed(list(enumerate(v))))


def parse_json_strictly(
    text: str,
    *,
    what: str = "a game record",
    max_chars: int = MAX_RECORD_CHARS,
    max_depth: int = MAX_RECORD_DEPTH,
    typical: str = "a few thousand",
    deepest: str = "at most 5",
) -> Any:
    """Parse JSON text as RFC 8259 says it is interoperable, refusing what could exhaust memory or
    the stack and what Python's parser takes silently. Pure: text in, value out.

    Args:
        text: the JSON text (already decoded; see :mod:`companion.inputs` for reading files).
        what: what the text is, for messages ("a game record", "a panel script").
        max_chars: the longest text taken, characters.
        max_depth: the deepest nesting of lists and objects taken.
        typical, deepest: how long such a text usually is and how deep it nests, for messages.

    Returns:
        The parsed value (dicts, lists, str, int, float, bool, None).

    Raises:
        MalformedGame: with the field path (``rounds[0].Ann``; "" for the whole text) and a problem
            starting "invalid JSON:" (or "too long:"): a syntax error (line and column), text over
            ``max_chars``, nesting deeper than ``max_depth``, ``NaN``/``Infinity`` (RFC 8259 §6),
            a number out of float range (``1e999``), a whole number of more than 30 digits, a key
            twice in one object (RFC 8259 §4), a string or key with a lone surrogate
            (``"\\ud800"``, RFC 8259 §8.2). Never ValueError, RecursionError or MemoryError.
    """
    if len(text) > max_chars:
        raise MalformedGame("", f"too long: more than {max_chars:,} characters ({what} is {typical})")
    too_deep = f"invalid JSON: lists and objects nested more than {max_depth} deep ({what} nests {deepest})"
    duplicates: dict[int, tuple[dict, str]] = {}

    def unique_keys(pairs: list[tuple[str, Any]]) -> dict:
        obj = dict(pairs)
        if len(obj) != len(pairs):
            seen: set[str] = set()
            for key, _ in pairs:
                if key in seen:
                    duplicates[id(obj)] = (obj, key)  # the object is kept alive, so its id is not reused
                    break
                seen.add(key)
        return obj

    try:
        value = json.loads(
            text,
            object_pairs_hook=unique_keys,
            parse_constant=_refuse_constant,
            parse_float=_finite_float,
            parse_int=_short_int,
        )
    except json.JSONDecodeError as exc:
        raise MalformedGame("", f"invalid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    except _Refused as exc:
        raise MalformedGame("", f"invalid JSON: {exc}") from None
    except RecursionError:
        raise MalformedGame("", too_deep) from None
    except (ValueError, MemoryError) as exc:  # any other refusal of the parser: still one named error
        raise MalformedGame("", f"invalid JSON: {exc}") from None
    _check_tree(value, duplicates, max_depth, too_deep)
    return value


def parse_record_json(text: str) -> Any:
    """Parse a game record's JSON text, refusing what no record holds and what could exhaust
    memory or the stack (:func:`parse_json_strictly` with the record's limits).

    Args:
        text: the record, at most :data:`MAX_RECORD_CHARS` characters.

    Returns:
        The parsed value (not yet checked as a record: see each game's ``*_record`` module).

    Raises:
        MalformedGame: "invalid JSON: ..." for a syntax error (with line and column), text
            longer than ``MAX_RECORD_CHARS`` ("too long: ..."), lists/objects nested deeper than
            ``MAX_RECORD_DEPTH``, ``NaN``/``Infinity`` (not JSON, RFC 8259 §6, though Python's
            parser takes them), a number out of float range (``1e999``), a whole number of more
            than 30 digits, a key twice in one object, or a lone surrogate in a string; the path
            names the field for the last two.
    """
    return parse_json_strictly(text)


def record_players(players: Any) -> tuple[str, ...]:
    """A record's ``players`` field checked as every engine checks names
    (:func:`companion.rules.core.player_names`): a list of distinct printable names.

    Raises:
        MalformedGame: at ``players`` for a value that is not a list or two names the same (also
            once case is ignored); at ``players[i]`` for a blank name, one with a control
            character or lone surrogate, or one longer than ``core.MAX_NAME_CHARS``.
    """
    if not isinstance(players, list):
        raise MalformedGame("players", f"must be a list of player names, got {json_type_name(players)}")
    try:
        return player_names(players)
    except PlayerNameError as exc:
        raise MalformedGame(exc.field, exc.problem) from None


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
