"""Sushi Express scoring: customer colours, the tip penalty and the tie-break (sushi-express.txt, SCORING).

Every point comes with a :class:`~companion.rules.core.ScoreLine` saying why; all lines are scored at
:data:`~companion.rules.core.GAME_END` because Sushi Express only scores once, after the last round.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from companion.rules.core import GAME_END, ScoreLine, pick_winners, player_names
from companion.rules.sushi_express.state import COLOURS, Customer, SushiExpressOptions
from companion.rules.wording import join_names as _names

#: The first card of a colour scores 3, each further card of it 1 (SCORING).
FIRST_CARD_POINTS, FURTHER_CARD_POINTS = 3, 1


@dataclass(frozen=True)
class SushiExpressResult:
    """The final result of a Sushi Express game.

    Attributes:
        players: seat names.
        customer_points: points for customer cards, per seat.
        tip_points: the tip penalty per seat (0 or negative).
        tips: tips per seat (tip customer cards plus tip action cards).
        totals: customer plus tip points, per seat.
        tie_break: action cards left per seat, tip cards not counted (SCORING).
        winners: names of every player tied for the win after the tie-break (usually one).
        breakdown: one line per colour a player holds, then one tip line per player.
    """

    players: tuple[str, ...]
    customer_points: tuple[int, ...]
    tip_points: tuple[int, ...]
    tips: tuple[int, ...]
    totals: tuple[int, ...]
    tie_break: tuple[int, ...]
    winners: tuple[str, ...]
    breakdown: tuple[ScoreLine, ...]

    def to_dict(self) -> dict[str, Any]:
        """The ``companion score --game sushi-express --json`` shape:
        ``{"customers", "tips", "total", "winners", "breakdown"}`` (points by player name)."""
        by_name = lambda values: dict(zip(self.players, values))  # noqa: E731
        return {
            "customers": by_name(self.customer_points),
            "tips": by_name(self.tip_points),
            "total": by_name(self.totals),
            "winners": list(self.winners),
            "breakdown": [line.to_dict() for line in self.breakdown],
        }


def colour_points(count: int) -> int:
    """Points for ``count`` cards of one colour: 3 for the first, 1 for each further (SCORING)."""
    return 0 if count <= 0 else FIRST_CARD_POINTS + FURTHER_CARD_POINTS * (count - 1)


def _colour_line(colour: Customer, count: int) -> str:
    pts = colour_points(count)
    if count == 1:
        return f"{colour.label}: 1 card, first of its colour → 3"
    return f"{colour.label}: {count} cards, first 3 + {count - 1} more × 1 → {pts}"


def tip_penalties(tips: Sequence[int], options: SushiExpressOptions) -> tuple[int, ...]:
    """The tip penalty per seat (SCORING): the fewest tips lose as many points as the most tips; every
    player tied for the fewest loses the full amount. When all are equal nobody loses, unless
    ``options.equal_tips_penalty`` (then everyone loses the most)."""
    if not tips:
        return ()
    most, fewest = max(tips), min(tips)
    if most == fewest and not options.equal_tips_penalty:
        return (0,) * len(tips)
    return tuple(-most if n == fewest else 0 for n in tips)


def _tip_line(seat: int, players: Sequence[str], tips: Sequence[int], tip_cards: int, tip_actions: int,
              options: SushiExpressOptions) -> tuple[int, str]:
    n = tips[seat]
    most, fewest = max(tips), min(tips)
    parts = f"{tip_cards} tip card{'s' * (tip_cards != 1)}"
    if tip_actions:
        parts += f" + {tip_actions} tip action card{'s' * (tip_actions != 1)}"
    head = f"tips: {parts} = {n}" if tip_actions else f"tips: {n}"
    if most == fewest:
        if not options.equal_tips_penalty:
            return 0, f"{head}, everyone has {n}: nobody loses points → 0"
        return -most, f"{head}, everyone has {n}: all tied for the fewest (option equal_tips_penalty) → {-most}"
    if n != fewest:
        return 0, f"{head}, not the fewest → 0"
    leaders = [players[s] for s, t in enumerate(tips) if t == most]
    tied = [players[s] for s, t in enumerate(tips) if t == fewest and s != seat]
    tied_text = f", tied with {_names(tied)}" if tied else ""
    return -most, f"{head}, fewest{tied_text}; the most is {most} ({_names(leaders)}) → {-most}"


def _check_count(value: object, what: str) -> None:
    if type(value) is not int or value < 0:
        raise ValueError(f"{what} must be a whole number of cards (int, 0 or more), got {value!r}")


def _check_score_inputs(players: object, customers: object, tip_actions: object, actions_left: object,
                        options: object) -> None:
    """Refuse inputs of the wrong shape before they are scored as something else (``"ABC"`` as three
    players, ``True`` as one card)."""
    n = len(player_names(players))  # a string of names is refused, not split into letters
    for what, values in (("customers", customers), ("tip_actions", tip_actions), ("actions_left", actions_left)):
        if isinstance(values, (str, bytes)) or not isinstance(values, Sequence) or len(values) != n:
            raise ValueError(f"{what} must be a list or tuple with one entry per player ({n}), got {values!r}")
    for seat, held in enumerate(customers):  # type: ignore[arg-type]
        if not isinstance(held, Mapping):
            raise ValueError(f"customers[{seat}] must map Customer to a count, got {held!r}")
        for card, count in held.items():
            if not isinstance(card, Customer):
                raise ValueError(f"customers[{seat}] must be keyed by Customer, got {card!r}")
            _check_count(count, f"customers[{seat}][{card.value}]")
    for what, values in (("tip_actions", tip_actions), ("actions_left", actions_left)):
        for seat, value in enumerate(values):  # type: ignore[arg-type]
            _check_count(value, f"{what}[{seat}]")
    if options is not None and not isinstance(options, SushiExpressOptions):
        raise ValueError(f"options must be a SushiExpressOptions or None, got {options!r}")


def score_game(
    players: Sequence[str],
    customers: Sequence[Mapping[Customer, int]],
    tip_actions: Sequence[int],
    actions_left: Sequence[int],
    options: SushiExpressOptions | None = None,
) -> SushiExpressResult:
    """Score a finished game (SCORING).

    Args:
        players: seat names.
        customers: per seat, the count of each customer card held; ``Customer.TIP`` counts tip cards.
        tip_actions: per seat, tip action cards held (they add to the tips: THE ACTION CARDS, Tip).
        actions_left: per seat, action cards left other than tip cards (the tie-break).
        options: see :class:`SushiExpressOptions`.

    Winners have the most points; a tie goes to the most action cards left, tip cards not counted;
    players still tied all win.

    Raises:
        ValueError: naming the argument when one is not of its shape: ``players`` a list or tuple of
            names (a string is refused), the other three one entry per player, counts whole numbers
            (ints, 0 or more; a bool is refused), ``options`` a SushiExpressOptions or None.
    """
    _check_score_inputs(players, customers, tip_actions, actions_left, options)
    options = options or SushiExpressOptions()
    tips = tuple(customers[s].get(Customer.TIP, 0) + tip_actions[s] for s in range(len(players)))
    penalties = tip_penalties(tips, options)
    customer_points, lines = [], []
    tip_lines = []
    for seat, name in enumerate(players):
        held = customers[seat]
        total = 0
        for colour in COLOURS:
            n = held.get(colour, 0)
            if n:
                total += colour_points(n)
                lines.append(ScoreLine(seat, name, GAME_END, colour.value, colour_points(n), _colour_line(colour, n)))
        if total == 0:
            lines.append(ScoreLine(seat, name, GAME_END, "customers", 0, "customers: no customer cards → 0"))
        customer_points.append(total)
        pts, text = _tip_line(seat, players, tips, held.get(Customer.TIP, 0), tip_actions[seat], options)
        assert pts == penalties[seat]
        tip_lines.append(ScoreLine(seat, name, GAME_END, "tips", pts, text))
    # Keep each player's lines together: their colours, then their tips.
    by_seat = sorted(lines + tip_lines, key=lambda line: line.seat)
    totals = tuple(c + t for c, t in zip(customer_points, penalties))
    winners = pick_winners(totals, actions_left, range(len(players)))
    return SushiExpressResult(
        players=tuple(players),
        customer_points=tuple(customer_points),
        tip_points=penalties,
        tips=tips,
        totals=totals,
        tie_break=tuple(actions_left),
        winners=tuple(players[s] for s in winners),
        breakdown=tuple(by_seat),
    )
