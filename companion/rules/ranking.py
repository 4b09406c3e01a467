""""Most / second most" awards with ties, shared by maki rolls and puddings in the Sushi Go! family.

The games differ only in how ties are paid:

* Sushi Go! (sushi-go.txt, SUSHI ROLLS and PUDDINGS): tied players split the points evenly, ignoring
  any remainder, and a tie for the most takes up the second place too ("no second place points are
  awarded") — :data:`SUSHI_GO_TIES`.
* Sushi Roll (sushi-roll.txt, Maki Rolls): "if multiple players tie for any place, they all receive the
  full points", and the next count down is still second — :data:`SUSHI_ROLL_TIES`.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Generic, Hashable, Mapping, Sequence, TypeVar

K = TypeVar("K", bound=Hashable)


class TieShare(Enum):
    """How the points of one place are shared between tied players."""

    SPLIT = "split"  # divide evenly, ignoring any remainder
    FULL = "full"  # every tied player gets the full points


@dataclass(frozen=True)
class TiePolicy:
    """How ties are paid: ``share`` the points, and whether a tied group uses up the places below it."""

    share: TieShare
    tie_uses_next_places: bool


SUSHI_GO_TIES = TiePolicy(TieShare.SPLIT, tie_uses_next_places=True)
SUSHI_ROLL_TIES = TiePolicy(TieShare.FULL, tie_uses_next_places=False)


@dataclass(frozen=True)
class Award(Generic[K]):
    """One player's share of a place.

    Attributes:
        place: 1 for the most (or fewest, when ranking lowest first), 2 for second...
        count: the count that earned the place (icons, puddings...).
        tied_with: the other players sharing this place, in the order given to :func:`award_places`.
        points: the points this player gets (negative prizes stay negative).
    """

    place: int
    count: int
    tied_with: tuple[K, ...]
    points: int


def share(prize: int, players: int, policy: TiePolicy) -> int:
    """One player's points when ``players`` tie for ``prize``.

    Splitting ignores the remainder toward zero, so -6 split 4 ways is -1 each (not -2).
    """
    if policy.share is TieShare.FULL or players == 1:
        return prize
    sign = -1 if prize < 0 else 1
    return sign * (abs(prize) // players)


def award_places(
    counts: Mapping[K, int],
    prizes: Sequence[int],
    policy: TiePolicy,
    *,
    highest_first: bool = True,
) -> dict[K, Award[K]]:
    """Give ``prizes[0]`` to the most, ``prizes[1]`` to the second most... with ``policy`` for ties.

    ``counts`` holds only the players who compete (e.g. those with at least one maki card). Players
    who win nothing are absent from the result. With ``highest_first=False`` the places go to the
    lowest counts (the pudding penalty).
    """
    groups: dict[int, list[K]] = {}
    for key, count in counts.items():
        groups.setdefault(count, []).append(key)
    awards: dict[K, Award[K]] = {}
    position = 0
    for count in sorted(groups, reverse=highest_first):
        if position >= len(prizes):
            break
        group = groups[count]
        points = share(prizes[position], len(group), policy)
        for key in group:
            others = tuple(k for k in group if k != key)
            awards[key] = Award(place=position + 1, count=count, tied_with=others, points=points)
        position += len(group) if policy.tie_uses_next_places else 1
    return awards
