"""The game-independent core shared by Sushi Go!, Sushi Roll and Sushi Express.

The style follows python-chess: a state is an immutable value, an action is a value, and an engine is a
set of pure functions over them. ``apply`` never changes the state it is given; it either returns a new
state or raises :class:`~companion.rules.errors.IllegalAction`. Randomness only enters through a
``random.Random`` that the caller seeds and passes in, so a seed always gives the same game.
"""

from __future__ import annotations

import random
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


def player_names(players: Any) -> tuple[str, ...]:
    """The seat names of a new game, seat 0 first, checked the same way by every engine.

    Args:
        players: a sequence (list, tuple) of distinct, non-empty names. A single string is refused,
            not split: ``"AB"`` would otherwise seat a player "A" and a player "B".

    Returns:
        The names as a tuple. How many players a game takes is each engine's own check.

    Raises:
        ValueError: "players must be a list of names, got ..." for a string, bytes or a non-sequence;
            "player names must be distinct, non-empty strings, got [...]" otherwise.
    """
    if isinstance(players, (str, bytes, bytearray)) or not isinstance(players, SequenceABC):
        raise ValueError(f"players must be a list of names, got {type(players).__name__} {players!r}")
    names = tuple(players)
    if any(not isinstance(n, str) or not n for n in names) or len(set(names)) != len(names):
        raise ValueError(f"player names must be distinct, non-empty strings, got {list(names)}")
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
