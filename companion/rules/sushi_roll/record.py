"""Reading and scoring a Sushi Roll game record (the ``companion score --game sushi-roll`` input).

A record is a JSON object::

    {"players": ["Ann", "Bo"],
     "rounds": [{"Ann": ["maki*2", "wasabi", "squid_nigiri", "pudding*2", ...], "Bo": [...]}, ...],
     "tokens": {"Ann": {"menu": 2, "chopsticks": 1}, "Bo": {"menu": 0}},
     "options": {"pudding_all_equal": "nobody"}}

Each round lists, per player, the faces of the dice they took, in the order taken: one die per turn, so
as many as there are dice on a belt (8/7/6/5 for 2/3/4/5 players, sushi-roll.txt, SET UP). A nigiri
taken after a wasabi goes on it. ``tokens`` gives each player's unused menu and chopsticks tokens at
the end (a missing kind is 0; every player must be listed, ``{}`` for none left), each at most the
3 menu and 2 chopsticks every player starts with plus the icons of the menu and chopsticks dice they
took (SET UP; EVERYBODY TAKES A TURN). ``options`` is optional.

Pudding tokens are counted from the pudding faces: a record does not say in which order players took
dice across the table, so it cannot tell who would have found the pudding supply empty (32 puddings).
The record cannot be replayed through the engine either (the belts are not recorded), but it is
scored by the same scoring functions and held to the same dice: each face must be one a die shows
(companion/data/sushi_roll_dice.toml) and no round may use more dice of a type than the game has.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any, Mapping

from companion.rules.errors import MalformedGame
from companion.rules.records import json_type_name as _type_name, player_list, record_players, round_objects
from companion.rules.sushi_roll.dice import (
    CONTENTS,
    DICE_COUNTS,
    DICE_FILE,
    FULL_SUPPLY,
    START_TOKENS,
    DiceFaces,
    Face,
    Icon,
    load_dice_faces,
    parse_face,
)
from companion.rules.sushi_roll.scoring import SushiRollResult, final_result, score_round
from companion.rules.sushi_roll.state import (
    DICE_PER_BELT,
    ROUNDS,
    SushiRollOptions,
    SushiRollState,
    Tray,
    place_on_tray,
)

TOKEN_KINDS = ("menu", "chopsticks")
#: Where the rulebook says how many menu and chopsticks tokens a player can hold.
TOKEN_SOURCES = "sushi-roll.txt, SET UP and EVERYBODY TAKES A TURN, Menus or Chopsticks"


@dataclass(frozen=True)
class SushiRollRecord:
    """A checked record: ``rounds[r][seat]`` the faces taken in order, ``unused[seat]`` the (menu,
    chopsticks) tokens left at the end."""

    players: tuple[str, ...]
    options: SushiRollOptions
    rounds: tuple[tuple[tuple[Face, ...], ...], ...]
    unused: tuple[tuple[int, int], ...]


def _parse_face(value: Any, path: str, dice: DiceFaces) -> Face:
    if not isinstance(value, str):
        raise MalformedGame(path, f"must be a face name such as 'maki*2', got {_type_name(value)}")
    try:
        face = parse_face(value)
    except ValueError as exc:
        raise MalformedGame(path, str(exc)) from None
    if not dice.shows(face):
        shown = ", ".join(sorted(set(map(str, dice.of(face.kind)))))
        raise MalformedGame(
            path, f"no {face.kind} die shows {face}: its faces are {shown} ({DICE_FILE}; verify against your tray)"
        )
    return face


def _parse_tokens(value: Any, players: tuple[str, ...]) -> tuple[tuple[int, int], ...]:
    if not isinstance(value, Mapping):
        raise MalformedGame("tokens", f"must be an object with each player's unused tokens, got {_type_name(value)}")
    for key in value:
        if key not in players:
            raise MalformedGame("tokens", f"unknown player {key!r}; players are {', '.join(players)}")
    unused = []
    for name in players:
        if name not in value:
            raise MalformedGame("tokens", f"missing player {name!r} (give {{}} for no tokens left)")
        entry = value[name]
        path = f"tokens.{name}"
        if not isinstance(entry, Mapping):
            example = '{"menu": 1, "chopsticks": 0}'
            raise MalformedGame(path, f"must be an object such as {example}, got {_type_name(entry)}")
        for key in entry:
            if key not in TOKEN_KINDS:
                raise MalformedGame(f"{path}.{key}", "unknown token; unused tokens are menu and chopsticks")
        counts = []
        for kind in TOKEN_KINDS:
            n = entry.get(kind, 0)
            if type(n) is not int or n < 0:
                raise MalformedGame(f"{path}.{kind}", f"must be a whole number, 0 or more, got {n!r}")
            counts.append(n)
        unused.append((counts[0], counts[1]))
    return tuple(unused)


def parse_sushi_roll_record(record: Any, dice: DiceFaces | None = None) -> SushiRollRecord:
    """Check the shape of a record and convert its face names.

    ``dice`` defaults to the faces in companion/data/sushi_roll_dice.toml.

    Raises:
        MalformedGame: naming the field path (e.g. ``rounds[1].Bo[3]``, ``tokens.Ann.menu``) and the
            problem: missing or unknown fields, wrong types, unknown faces, faces no die shows, the wrong
            number of rounds or dice, more dice of a type than the game has, impossible token counts
            (more in all than the game has, or a player's above their start plus the icons they took);
            also (path "") when the shipped die-faces file cannot be read.
    """
    if dice is None:
        try:
            dice = load_dice_faces()
        except ValueError as exc:
            # A broken faces file is not the record's fault, but the score command reports bad input
            # only as MalformedGame: say plainly that the data file is the problem.
            raise MalformedGame("", f"cannot read the die faces: {exc}") from None
    if not isinstance(record, Mapping):
        raise MalformedGame("", f"the game must be a JSON object, got {_type_name(record)}")
    unknown = sorted(set(record) - {"players", "rounds", "tokens", "options"})
    if unknown:
        raise MalformedGame(unknown[0], "unknown field; fields are players, rounds, tokens, options")
    for field in ("players", "rounds", "tokens"):
        if field not in record:
            raise MalformedGame(field, "missing")
    options = SushiRollOptions.from_mapping(record.get("options", {}))
    players = record["players"]
    record_players(players)  # the names every engine takes (core.player_names)
    if len(players) not in DICE_PER_BELT:
        raise MalformedGame("players", f"Sushi Roll is for 2 to 5 players, got {len(players)}")
    names = tuple(players)
    per_belt = DICE_PER_BELT[len(names)]
    rounds = round_objects(record["rounds"], names, ROUNDS)
    parsed = []
    for r, rnd in enumerate(rounds):
        path = f"rounds[{r}]"
        used: Counter = Counter()
        seat_faces = []
        for name in names:
            taken = player_list(
                rnd, path, name, per_belt, "dice",
                f"with {len(names)} players each belt holds {per_belt} dice and every player takes one per turn"
                " (sushi-roll.txt, SET UP)",
            )
            faces = []
            for i, value in enumerate(taken):
                face = _parse_face(value, f"{path}.{name}[{i}]", dice)
                used[face.kind] += 1
                if used[face.kind] > DICE_COUNTS[face.kind]:
                    raise MalformedGame(
                        f"{path}.{name}[{i}]",
                        f"a {used[face.kind]}th {face.kind} die this round: the game has only"
                        f" {DICE_COUNTS[face.kind]} ({CONTENTS})",
                    )
                faces.append(face)
            seat_faces.append(tuple(faces))
        parsed.append(tuple(seat_faces))
    unused = _parse_tokens(record["tokens"], names)
    _check_tokens_possible(names, tuple(parsed), unused)
    return SushiRollRecord(names, options, tuple(parsed), unused)


def _check_tokens_possible(
    names: tuple[str, ...], rounds: tuple[tuple[tuple[Face, ...], ...], ...], unused: tuple[tuple[int, int], ...]
) -> None:
    """Refuse a player's leftover menu or chopsticks tokens above what they could have: the tokens
    they started with (3 menu, 2 chopsticks; sushi-roll.txt, SET UP) plus one per icon on the menu or
    chopsticks dice they took ("take tokens corresponding to the type and number of icons on the
    die", EVERYBODY TAKES A TURN). Tokens are only ever spent or kept, so nothing else adds to them.
    Then the table's total against the box (18 menu, 12 chopsticks; CONTENTS).

    Raises:
        MalformedGame: at ``tokens.<player>.<kind>``, naming the player, the token and the bound; at
            ``tokens`` for more of a kind in all than the game has.
    """
    start = {"menu": START_TOKENS.menu, "chopsticks": START_TOKENS.chopsticks}
    icon_of = {"menu": Icon.MENU, "chopsticks": Icon.CHOPSTICKS}
    for seat, name in enumerate(names):
        for i, kind in enumerate(TOKEN_KINDS):
            taken = sum(f.count for rnd in rounds for f in rnd[seat] if f.icon is icon_of[kind])
            bound, left = start[kind] + taken, unused[seat][i]
            if left > bound:
                dice = f"{taken} {kind} icon{'s' if taken != 1 else ''} on the dice {name} took"
                raise MalformedGame(
                    f"tokens.{name}.{kind}",
                    f"{name} has {left} {kind} tokens left, but can have at most {bound}: {start[kind]} at the"
                    f" start plus {dice} ({TOKEN_SOURCES})",
                )
    for i, kind in enumerate(TOKEN_KINDS):
        total, supply = sum(u[i] for u in unused), getattr(FULL_SUPPLY, kind)
        if total > supply:
            raise MalformedGame("tokens", f"{total} {kind} tokens in all, but the game has only {supply} ({CONTENTS})")


def record_from_state(state: SushiRollState) -> dict[str, Any]:
    """The ``companion score`` record of a finished engine game: each round's dice per player, the
    menu and chopsticks tokens left, and the options. Scoring it gives the engine's result, except
    when the pudding supply ran out during play (the record counts pudding icons, the engine tokens).

    Each tray is listed in the order its dice were taken, a nigiri right after the wasabi it lies on:
    :func:`record_trays` then rebuilds the same tray, because the engine lays a nigiri on the first
    open wasabi, so every wasabi before it already had its nigiri (sushi-roll.txt, Nigiri and Wasabi).

    Raises:
        ValueError: the game is not over yet (a record holds all 3 rounds).
    """
    if not state.is_over:
        raise ValueError("only a finished game has a record: the game is not over yet")
    rounds = [
        {name: [str(face) for placed in tray for face in placed.dice] for name, tray in zip(state.players, trays)}
        for trays in state.round_trays
    ]
    tokens = {name: {"menu": t.menu, "chopsticks": t.chopsticks} for name, t in zip(state.players, state.tokens)}
    return {"players": list(state.players), "rounds": rounds, "tokens": tokens, "options": state.options.to_dict()}


def record_trays(faces: tuple[Face, ...]) -> Tray:
    """A tray built from faces in the order taken (a nigiri goes on an earlier open wasabi)."""
    tray: Tray = ()
    for face in faces:
        tray = place_on_tray(tray, face)
    return tray


def score_sushi_roll_record(record: Any, dice: DiceFaces | None = None) -> SushiRollResult:
    """The final result of a recorded Sushi Roll game: round points, puddings, leftover tokens,
    totals, winners and the breakdown. ``result.to_dict()`` is the ``--json`` output.

    Raises:
        MalformedGame: see :func:`parse_sushi_roll_record`.
    """
    game = parse_sushi_roll_record(record, dice)
    scores = [
        score_round(game.players, [record_trays(faces) for faces in rnd], r)
        for r, rnd in enumerate(game.rounds, 1)
    ]
    puddings = [
        sum(f.count for rnd in game.rounds for f in rnd[seat] if f.icon is Icon.PUDDING)
        for seat in range(len(game.players))
    ]
    return final_result(
        game.players,
        scores,
        puddings,
        [u[0] for u in game.unused],
        [u[1] for u in game.unused],
        game.options,
    )
