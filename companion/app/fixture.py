"""Recorded games: a folder of reveal frames, the enrolled deck, and the truth.

Layout of a fixture folder::

    game.json     {"game": "sushi-go", "players": [...], "options": {...}, "deck": "deck.npz",
                   "frames": [{"file": "frames/r1-t01.jpg", "round": 1, "turn": 1}, ...],
                   "record": {"rounds": [{"Ann": ["tempura", ["wasabi", "squid_nigiri"], ...]}, ...]},
                   "expected": {"rounds": [...], "pudding": {...}, "total": {...}, "winners": [...]}}
    deck.npz      the deck enrolled from the card scans (``companion enroll``)
    frames/*.jpg  one overhead frame after each reveal, in play order

``record`` is the game in ``companion score`` form (what was really played) and ``expected`` its
scores, so a replay read from the pixels can be checked against the truth, and the truth against
the rulebook by hand.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion.inputs import FIXTURE_GAME, InputError, check_regular_file, display_path, read_json
from companion.rules.core import PlayerNameError, player_names
from companion.rules.errors import MalformedGame
from companion.rules.sushi_go.state import SushiGoOptions


class FixtureError(ValueError):
    """A fixture folder that cannot be used; the message names the file and the field."""


@dataclass
class Fixture:
    """A loaded fixture: players, options, deck path, frame paths in play order, and the truth."""

    folder: Path
    players: list[str]
    options: SushiGoOptions
    deck_path: Path
    frames: list[Path]
    record: dict[str, Any] | None
    expected: dict[str, Any] | None


def _file_in(folder: Path, name: object, field: str, path: str) -> Path:
    """``folder / name`` for a file name given in game.json's ``field``.

    Raises:
        FixtureError: ``name`` is not a non-empty string, or holds a NUL or another control
            character (no file can be named so; opening it would raise ValueError).
    """
    if not isinstance(name, str) or not name:
        raise FixtureError(f"{path}: {field}: needs a file name (a non-empty string), got {name!r:.60}")
    if not name.isprintable():
        raise FixtureError(f"{path}: {field}: the file name {name!r:.60} holds a NUL or control character")
    return folder / name


def load_fixture(folder: str | Path) -> Fixture:
    """Read ``folder/game.json`` (through :mod:`companion.inputs`: a regular file, at most
    :data:`companion.inputs.FIXTURE_GAME`'s cap, strict UTF-8 JSON) and check that every file it
    names exists.

    Raises:
        FixtureError: naming the file and the field: the folder is a file (``game.json`` itself
            given) or missing; game.json is missing, a folder, a FIFO or device, a loop of
            symbolic links, too long, not UTF-8 (UTF-16...), bad JSON (too deep, a 5000-digit
            number, a duplicate key...); a missing or ill-typed field; player names that
            :func:`companion.rules.core.player_names` refuses; a frame or deck name holding a NUL.
    """
    folder = Path(folder)
    shown = display_path(folder)
    if "\0" in str(folder):
        raise FixtureError(f"{shown}: the path holds a NUL character, which no folder name can")
    if folder.is_file():
        raise FixtureError(
            f"{shown}: is a file; give the fixture folder that holds game.json, deck.npz and frames/"
            f" (here: {display_path(folder.parent)})"
        )
    path = folder / "game.json"
    where = display_path(path)
    try:
        data = read_json(path, FIXTURE_GAME)
    except InputError as exc:
        if exc.rule == "missing":
            raise FixtureError(f"{where}: not found (a fixture folder holds game.json, deck.npz and frames/)") from None
        raise FixtureError(str(exc)) from None
    if not isinstance(data, dict):
        raise FixtureError(f"{where}: must hold a JSON object")
    if data.get("game", "sushi-go") != "sushi-go":
        raise FixtureError(f"{where}: game: only 'sushi-go' can be replayed, not {data.get('game')!r:.60}")
    players = data.get("players")
    if not (isinstance(players, list) and players):
        raise FixtureError(f"{where}: players: must be a list of names")
    try:
        players = list(player_names(players))
    except PlayerNameError as exc:
        raise FixtureError(f"{where}: {exc}") from None
    try:
        options = SushiGoOptions.from_mapping(data.get("options", {}))
    except MalformedGame as exc:
        raise FixtureError(f"{where}: {exc}") from None
    deck_path = _file_in(folder, data.get("deck", "deck.npz"), "deck", where)
    try:
        check_regular_file(deck_path)  # a FIFO or device here would hang or flood Deck.load
    except InputError as exc:
        raise FixtureError(f"{where}: deck: {exc.path} {'not found' if exc.rule == 'missing' else exc.problem}") from None
    frames_field = data.get("frames")
    if not isinstance(frames_field, list) or not frames_field:
        raise FixtureError(f"{where}: frames: must be a non-empty list")
    frames = []
    for i, entry in enumerate(frames_field):
        name = entry.get("file") if isinstance(entry, dict) else entry
        # a missing frame is the replay's to report, turn by turn
        frames.append(_file_in(folder, name, f"frames[{i}]", where))
    return Fixture(folder, players, options, deck_path, frames, data.get("record"), data.get("expected"))
