"""The game-independent core shared by Sushi Go!, Sushi Roll and Sushi Express.

The style follows python-chess: a state is an immutable value, an action is a value, and an engine is a
set of pure functions over them. ``apply`` never changes the state it is given; it either returns a new
state or raises :class:`~companion.rules.errors.IllegalAction`. Randomness only enters through a
``random.Random`` that the caller seeds and passes in, so a seed always gives the same game.
"""

from __future__ import annotations

import random
import unicodedata
from collections.abc import Sequence as SequenceABC
from dataclasses import dataclass
from typing import Any, Protocol, Sequence, TypeVar

StateT = TypeVar("StateT")
ActionT = TypeVar("ActionT")

#: The ``round`` of a breakdown line scored after the last round (e.g. puddings).
GAME_END = "game end"


class Game(Protocol[StateT, ActionT]):
    """What every rules engine offers. States and actions are immutable values."""

    def legal_actions(self, state: StateT) -> tuple[ActionT, ...]:
        """Every action that ``apply`` would accept now (empty once the game is over)."""
        ...

    def apply(self, state: StateT, action: ActionT) -> StateT:
        """The state after ``action``.

        Raises:
            IllegalAction: naming the player, rule and rulebook section; ``state`` is unchanged.
        """
        ...

    def is_over(self, state: StateT) -> bool:
        """True once the final scoring has been done."""
        ...


@dataclass(frozen=True)
class ScoreLine:
    """One reason for some points, e.g. ``maki: 2nd with 5 icons, tied with Jo → 1``.

    Attributes:
        seat: the player's seat (0-based).
        player: the player's name.
        round: the round number (1-based), or :data:`GAME_END` for end-of-game scoring.
        category: what was scored (``"maki"``, ``"tempura"``, ``"pudding"`` ...).
        points: the points this line adds (negative for penalties).
        text: the full human explanation, ending in ``→ points``.
    """

    seat: int
    player: str
    round: int | str
    category: str
    points: int
    text: str

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict with the same keys as the attributes."""
        return {
            "seat": self.seat,
            "player": self.player,
            "round": self.round,
            "category": self.category,
            "points": self.points,
            "text": self.text,
        }


@dataclass(frozen=True)
class RoundScore:
    """The points of one round: ``points[seat]`` and the lines explaining them."""

    round: int
    points: tuple[int, ...]
    lines: tuple[ScoreLine, ...]


@dataclass(frozen=True)
class GameResult:
    """The final result of a game.

    Attributes:
        players: seat names (in the two-player dummy variant this includes the dummy).
        round_points: ``round_points[r][seat]``, one tuple per round.
        game_end_points: points scored after the last round, per seat (puddings in Sushi Go!).
        totals: the sum of every round and the game-end points, per seat.
        tie_break: the per-seat count that breaks ties on the total (puddings in Sushi Go!).
        winners: names of every player tied for the win after the tie-break (usually one).
        breakdown: every ScoreLine, round by round, then the game-end lines.
        eligible: the seats that could win (never the Sushi Go! two-player variant's dummy), so a
            scoreboard can tell a tie broken between contenders from a tie with the dummy; None
            means every seat. Not part of :meth:`to_dict`.
    """

    players: tuple[str, ...]
    round_points: tuple[tuple[int, ...], ...]
    game_end_points: tuple[int, ...]
    totals: tuple[int, ...]
    tie_break: tuple[int, ...]
    winners: tuple[str, ...]
    breakdown: tuple[ScoreLine, ...]
    eligible: tuple[int, ...] | None = None

    @property
    def contenders(self) -> tuple[int, ...]:
        """The seats that could win: :attr:`eligible`, or every seat when it is None."""
        return tuple(range(len(self.players))) if self.eligible is None else self.eligible

    def to_dict(self, game_end_key: str = "pudding") -> dict[str, Any]:
        """The ``companion score --json`` shape: rounds, game-end points, total, winners, breakdown."""
        by_name = lambda values: dict(zip(self.players, values))  # noqa: E731
        return {
            "rounds": [by_name(r) for r in self.round_points],
            game_end_key: by_name(self.game_end_points),
            "total": by_name(self.totals),
            "winners": list(self.winners),
            "breakdown": [line.to_dict() for line in self.breakdown],
        }


def pick_winners(totals: Sequence[int], tie_break: Sequence[int], eligible: Sequence[int]) -> tuple[int, ...]:
    """Seats with the highest total; a tie goes to the highest ``tie_break``; still-tied seats all win.

    Only the seats in ``eligible`` can win (e.g. never the Sushi Go! dummy).
    Source: sushi-go.txt, AND THE WINNER IS...
    """
    if not eligible:
        return ()
    best = max((totals[s], tie_break[s]) for s in eligible)
    return tuple(s for s in eligible if (totals[s], tie_break[s]) == best)


#: Longest player name, characters (code points). The 480 × 320 screen shows 10 to 13 characters of
#: a name in full (scoreboard and final ranking, 2 to 5 players; longer ones are shrunk, then cut
#: with "…"), so no limit keeps every name whole there; 40 lets a full name with middle names
#: through (the screen tests cut a 37-character one) and keeps the score table of 5 players
#: within about 200 columns, while a 100 000-character "name" is refused.
MAX_NAME_CHARS = 40

# Bidirectional embeddings, overrides and isolates (Unicode TR9 §2): they reorder the text after
# them, so a name could make a score line read as another's (the "Trojan Source" trick).
_BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c")
# Format characters a name may hold: zero-width joiner and non-joiner shape Indic, Persian and
# emoji sequences (Unicode §23.2).
_JOINERS = frozenset("\u200c\u200d")


class PlayerNameError(ValueError):
    """Player names that cannot be used; ``field`` is the record's field path (``players`` or
    ``players[2]``) and ``problem`` says what is wrong there, naming the name."""

    def __init__(self, field: str, problem: str) -> None:
        self.field = field
        self.problem = problem
        super().__init__(f"{field}: {problem}")


def _shown(name: str) -> str:
    """A name as a message shows it: ``repr``, so controls and surrogates are escaped, and cut."""
    text = repr(name)
    return text if len(text) <= 40 else text[:39] + "…"


def name_problem(name: object) -> str | None:
    """Why ``name`` cannot be a player name, or None if it can.

    A name is what the screen, the score table and the journal show, so it must be a string of 1 to
    :data:`MAX_NAME_CHARS` characters with something visible in it, without spaces at either end,
    without control characters (Unicode category Cc: tab, newline, NUL, ESC...), line or paragraph
    separators (Zl, Zp), bidirectional controls, other invisible format characters (Cf, except the
    zero-width joiner and non-joiner) or lone surrogates (Cs: ``"\\ud800"`` from JSON, which
    cannot be printed as UTF-8).
    """
    if not isinstance(name, str):
        return f"must be a name (a string), got {type(name).__name__} {name!r:.40}"
    if not name:
        return "is empty; a player needs a name"
    if len(name) > MAX_NAME_CHARS:
        return f"{_shown(name)} is {len(name):,} characters; a name has at most {MAX_NAME_CHARS} (the screen shows it)"
    for i, ch in enumerate(name):
        cat = unicodedata.category(ch)
        if cat == "Cs":
            return f"{_shown(name)} holds a lone surrogate (U+{ord(ch):04X}) at character {i + 1}, which cannot be printed"
        if cat in ("Cc", "Zl", "Zp") or ch in _BIDI_CONTROLS or (cat == "Cf" and ch not in _JOINERS):
            what = (
                "a bidirectional control" if ch in _BIDI_CONTROLS
                else "a control character" if cat == "Cc"
                else "a line break" if cat in ("Zl", "Zp")
                else "an invisible format character"
            )
            return f"{_shown(name)} holds {what} (U+{ord(ch):04X}) at character {i + 1}; a name is printable text"
    if all(ch.isspace() or unicodedata.category(ch) in ("Cf", "Mn", "Me") for ch in name):
        return f"{_shown(name)} is blank; a name needs a visible character"
    if name != name.strip():
        return f"{_shown(name)} starts or ends with a space; write it without"
    return None


def same_name_key(name: str) -> str:
    """What two names must not share: NFKC-normalised and case-folded, so "Ann"/"ANN" and
    "Zoë" typed with a combining diaeresis count as the same name (Unicode §3.13, §5.18)."""
    return unicodedata.normalize("NFKC", name).casefold()


def player_names(players: Any) -> tuple[str, ...]:
    """The seat names of a new game, seat 0 first, checked the same way by every engine, every
    record reader, ``companion play --players`` and the setup menu.

    Args:
        players: a sequence (list, tuple) of names, each passing :func:`name_problem`, no two the
            same once case is ignored (:func:`same_name_key`). A single string is refused, not
            split: ``"AB"`` would otherwise seat a player "A" and a player "B".

    Returns:
        The names as a tuple. How many players a game takes is each engine's own check.

    Raises:
        PlayerNameError (a ValueError): "players: players must be a list of names, got ..." for a
            string, bytes or a non-sequence; ``players[i]: ...`` for a name that
            :func:`name_problem` refuses; ``players: ... the same name`` for two names that are
            equal or differ only by case, naming both seats.
    """
    if isinstance(players, (str, bytes, bytearray)) or not isinstance(players, SequenceABC):
        raise PlayerNameError("players", f"players must be a list of names, got {type(players).__name__} {players!r:.60}")
    names = tuple(players)
    for i, name in enumerate(names):
        problem = name_problem(name)
        if problem is not None:
            raise PlayerNameError(f"players[{i}]", problem)
    seen: dict[str, int] = {}
    for i, name in enumerate(names):
        key = same_name_key(name)
        if key in seen:
            j = seen[key]
            first, this = _shown(names[j]), _shown(name)
            if names[j] == name:
                how = "the same name"
            elif names[j].casefold() == name.casefold():
                how = "the same name once case is ignored"
            else:  # equal only after NFKC: the two spellings look alike, so show their code points
                first, this = ascii(names[j]), ascii(name)
                how = "the same name written two ways (Unicode NFKC, case ignored)"
            raise PlayerNameError(
                "players", f"player names must be distinct: {first} (seat {j + 1}) and {this} (seat {i + 1}) "
                f"are {how}; the table could not tell them apart"
            )
        seen[key] = i
    return names


def shuffled(items: Sequence[Any], rng: random.Random) -> tuple[Any, ...]:
    """A shuffled copy of ``items`` drawn from ``rng`` only (the same seed gives the same order).

    Raises:
        ValueError: ``rng`` is not a ``random.Random`` (e.g. the seed itself was passed).
    """
    if not isinstance(rng, random.Random):
        raise ValueError(
            f"rng must be a random.Random (seed one: random.Random(seed)), got {type(rng).__name__} {rng!r}"
        )
    out = list(items)
    rng.shuffle(out)
    return tuple(out)
