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

from companion.rules.errors import MalformedGame
from companion.rules.records import parse_record_json
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


def load_fixture(folder: str | Path) -> Fixture:
    """Read ``folder/game.json`` and check that every file it names exists.

    Raises:
        FixtureError: a missing folder or file, bad JSON, or a missing or ill-typed field.
    """
    folder = Path(folder)
    path = folder / "game.json"
    try:
        data = parse_record_json(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise FixtureError(f"{path}: not found (a fixture folder holds game.json, deck.npz and frames/)") from None
    except UnicodeDecodeError:
        raise FixtureError(f"{path}: not valid JSON: not UTF-8 text") from None
    except OSError as exc:
        raise FixtureError(f"{path}: cannot be read: {exc.strerror or exc}") from None
    except MalformedGame as exc:  # bad JSON, nested too deep, too long, NaN (rules.records)
        raise FixtureError(f"{path}: {exc.problem}") from None
    if not isinstance(data, dict):
        raise FixtureError(f"{path}: must hold a JSON object")
    if data.get("game", "sushi-go") != "sushi-go":
        raise FixtureError(f"{path}: game: only 'sushi-go' can be replayed, not {data.get('game')!r}")
    players = data.get("players")
    if not (isinstance(players, list) and players and all(isinstance(p, str) for p in players)):
        raise FixtureError(f"{path}: players: must be a list of names")
    try:
        options = SushiGoOptions.from_mapping(data.get("options", {}))
    except MalformedGame as exc:
        raise FixtureError(f"{path}: {exc}") from None
    deck_path = folder / str(data.get("deck", "deck.npz"))
    if not deck_path.is_file():
        raise FixtureError(f"{path}: deck: {deck_path} not found")
    frames_field = data.get("frames")
    if not isinstance(frames_field, list) or not frames_field:
        raise FixtureError(f"{path}: frames: must be a non-empty list")
    frames = []
    for i, entry in enumerate(frames_field):
        name = entry.get("file") if isinstance(entry, dict) else entry
        if not isinstance(name, str):
            raise FixtureError(f"{path}: frames[{i}]: needs a file name")
        frames.append(folder / name)  # a missing frame is the replay's to report, turn by turn
    return Fixture(folder, players, options, deck_path, frames, data.get("record"), data.get("expected"))
