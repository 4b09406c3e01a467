"""Making change with token money: the one routine behind every Sushi Roll payout.

Scoring tokens (1, 5, 10, 20 points) and pudding tokens (1, 3 puddings) are money on the table. When
the supply no longer holds the exact tokens, a person at the table trades: "take a 10, give back a 5"
pays 5. :func:`make_change` finds such a trade with the fewest tokens moved, for any denominations,
in both directions (a payment to the player or a charge, e.g. the pudding penalty).

Source: sushi-roll.txt, SCORING A ROUND ("takes scoring tokens equal to the points they scored"),
EVERYBODY TAKES A TURN (Pudding; Note: "In the rare case that the tokens run out, take what's
available") and ENDING THE GAME ("Take or return the corresponding points tokens").
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from functools import lru_cache
from typing import Sequence

Counts = tuple[int, ...]
#: One way to make a sum: (tokens moved, the count of each denomination).
_Way = tuple[int, Counts]


@lru_cache(maxsize=4096)
def _fewest_tokens(values: tuple[int, ...], pile: tuple[int, ...], most: int) -> dict[int, _Way]:
    """Every sum up to ``most`` that ``pile`` can make, each with the fewest tokens that make it
    (bounded change-making, dynamic programming over the sum; ties keep the way found first, i.e.
    more of the earlier denominations). Cached: piles repeat from payout to payout; callers must not
    change the dict."""
    best: dict[int, _Way] = {0: (0, (0,) * len(values))}
    for i, (value, limit) in enumerate(zip(values, pile)):
        grown = dict(best)
        for total, (moved, counts) in best.items():
            for k in range(1, min(limit, (most - total) // value) + 1):
                target = total + k * value
                way = grown.get(target)
                if way is None or moved + k < way[0]:
                    grown[target] = (moved + k, counts[:i] + (counts[i] + k,) + counts[i + 1 :])
        best = grown
    return best


def make_change(
    amount: int,
    values: Sequence[int],
    supply: Sequence[int],
    held: Sequence[int],
    *,
    over: bool = False,
) -> tuple[Counts, Counts]:
    """The tokens a player takes from the supply and gives back from their own pile so that their
    pile's worth changes by ``amount``, moving the fewest tokens (as a person at the table would: a
    trade such as take a 10, give back a 5 only when the supply lacks the exact tokens).

    Args:
        amount: the change in worth, in points or puddings; negative for a charge (the player pays:
            gives tokens back, taking change from the supply).
        values: the denominations, e.g. ``(20, 10, 5, 1)``; positive whole numbers, distinct.
        supply: how many tokens of each denomination the supply holds (same order as ``values``).
        held: how many the player holds.
        over: what to do when no trade makes ``amount`` exactly. False: the worth closest to
            ``amount`` without passing it (the rest is a shortfall). True: the smallest worth past
            ``amount`` when there is one ("take what's available": a 3-pudding token when the
            1-tokens are gone), else as with False.

    Returns:
        ``(take, give)``: counts per denomination taken from the supply and given back from
        ``held``, never both for one denomination. Among trades moving the same number of tokens,
        the one giving back fewer wins. ``(0, ...), (0, ...)`` when nothing can be moved.

    Raises:
        ValueError: if the three sequences differ in length, or a count or value is negative.
    """
    if not len(values) == len(supply) == len(held):
        raise ValueError("values, supply and held must list the same denominations")
    if min((*values, *supply, *held), default=0) < 0:
        raise ValueError("denominations and token counts must be 0 or more")
    if amount < 0:
        give, take = make_change(-amount, values, held, supply, over=over)
        return take, give
    values, supply, held = tuple(values), tuple(supply), tuple(held)
    worth = lambda pile: sum(v * n for v, n in zip(values, pile))  # noqa: E731
    # A trade never takes more than ``amount`` plus all the player could give back (plus one token
    # for ``over``: the nearest worth past ``amount`` drops below it without any one token taken),
    # and never gives back more than it takes (the player's worth never goes down for a payment).
    most_taken = amount + worth(held) + (max(values, default=0) if over else 0)
    takes = _fewest_tokens(values, supply, min(worth(supply), most_taken))
    none = (0,) * len(values)
    if amount in takes and takes[amount][0] <= 2:
        # Any trade that gives back moves at least 2 tokens, and a tie goes to giving back fewer.
        return takes[amount][1], none
    gives = _fewest_tokens(values, held, min(worth(held), max(takes)))
    given_sums = sorted(gives)

    def trade(total_taken: int, total_given: int) -> tuple[int, int, Counts, Counts]:
        (moved_t, take), (moved_g, give) = takes[total_taken], gives[total_given]
        # Taking and giving back the same denomination cancels out; the fewest-token trade never does.
        return moved_t + moved_g, moved_g, take, give

    # Exact: a sum taken minus a sum given back equal to ``amount``.
    exact = min((trade(amount + g, g) for g in given_sums if amount + g in takes), default=None, key=lambda t: t[:2])
    if exact is not None:
        return exact[2], exact[3]
    # No exact trade: for each sum the supply can give, the sum given back that lands nearest.
    candidates: list[tuple[int, tuple[int, int, Counts, Counts]]] = []
    for t in takes:
        if over:
            # The smallest worth past ``amount``: give back as much as keeps it past.
            j = bisect_right(given_sums, t - amount - 1) - 1
            if j >= 0 and t - given_sums[j] > amount:
                candidates.append((t - given_sums[j] - amount, trade(t, given_sums[j])))
        else:
            # The closest worth up to ``amount``: give back the least that keeps it within.
            j = bisect_left(given_sums, t - amount)
            if j < len(given_sums) and t - given_sums[j] >= 0:
                candidates.append((amount - (t - given_sums[j]), trade(t, given_sums[j])))
    if not candidates and over:
        return make_change(amount, values, supply, held, over=False)
    _, (_, _, take, give) = min(candidates, key=lambda c: (c[0], c[1][:2]))
    return take, give
