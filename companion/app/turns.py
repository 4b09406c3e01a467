"""Turning what the camera sees after a reveal into each seat's Sushi Go! play.

Pure logic (no cv2): it compares the cards in a seat's zone now with the cards there after the
previous reveal, matched by label and position on the mat (mm), and infers the play:

* one new card → a normal pick (sushi-go.txt, PLAYING A ROUND);
* two new cards while a chopsticks card has left the zone → a chopsticks turn (USING CHOPSTICKS:
  "the player who used their chopsticks card puts it into their hand");
* a new nigiri lying where an open wasabi was → the nigiri was placed on top of it, hiding it
  (USING WASABI: "this nigiri must be placed on top of the wasabi"). A nigiri laid beside the
  wasabi, with the wasabi still showing, reads the same; the engine decides which wasabi it sits on.

Which of a chopsticks turn's two cards came first matters when they meet a wasabi: the engine lays
the first-listed nigiri on an open wasabi, and (with ``same_turn_wasabi_triples``) a nigiri on a
wasabi taken before it in the same turn. The frame decides it where it can: a nigiri lying on
(within :data:`MOVE_TOLERANCE_MM` of) a wasabi is the one on it. Where it cannot (both nigiri
beside the wasabi), :func:`infer_play` returns both orders as an :class:`Ambiguous` sight;
:meth:`companion.app.table_game.TableGame.feed` keeps the orders the rules allow, and if they
score differently the players are asked; nothing is scored by a guess.

The rules engine then checks the inferred plays; this module only reads the table. Cards that a
player nudged between turns are matched by label within :data:`MOVE_TOLERANCE_MM`, and a card that
moved further still pairs with a same-label card that appeared, as long as the turn still adds up.

One case no camera can tell: chopsticks used to take a new chopsticks card that is then laid exactly
where the used one lay reads as a single pick of the other card. Both readings score the same (the
tableau is identical and the hand shrinks by one card either way), so the score stays right.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass

from companion.rules.sushi_go.cards import BACK, UNKNOWN, Card

#: How far (mm) a card may drift between two frames and still count as the same card. A card is
#: 44 mm wide; half of that keeps neighbours apart while forgiving a nudge.
MOVE_TOLERANCE_MM = 22.0


@dataclass(frozen=True)
class SeenCard:
    """A card as read from one frame, in mat coordinates.

    label: a card name, ``"back"`` or ``"unknown"``; center_mm: (x, y) on the mat in mm;
    confidence: the classifier's 0..1 confidence.
    """

    label: str
    center_mm: tuple[float, float]
    confidence: float = 1.0


@dataclass(frozen=True)
class Ambiguous:
    """A sight that fits more than one play: ``plays``, each a tuple of cards in the order taken
    (the same cards, differently ordered). The caller keeps the legal ones and asks if they differ."""

    plays: tuple[tuple[Card, ...], ...]


class TurnReadError(ValueError):
    """A seat's zone does not show a readable, countable play. The message names the seat and why.

    ``waiting`` is True when the zone simply has not changed yet (the player has not revealed):
    the table is waiting for that player, nothing is wrong. ``unknown`` is the card that could
    not be named, when that is the problem."""

    def __init__(self, seat_name: str, problem: str, waiting: bool = False, unknown: SeenCard | None = None) -> None:
        self.seat_name = seat_name
        self.problem = problem
        self.waiting = waiting
        self.unknown = unknown  # a card no enrolled face matched: the player can name it
        super().__init__(f"{seat_name}: {problem}")


def _dist(a: SeenCard, b: SeenCard) -> float:
    return math.dist(a.center_mm, b.center_mm)


def _match(before: list[SeenCard], after: list[SeenCard], tolerance: float | None) -> tuple[list[SeenCard], list[SeenCard]]:
    """Pair same-label cards, nearest first; return (gone, new): the unpaired cards of each frame.

    ``tolerance`` None pairs same-label cards at any distance (a tidied-up tableau).
    """
    pairs = sorted(
        ((_dist(b, a), i, j) for i, b in enumerate(before) for j, a in enumerate(after) if a.label == b.label),
        key=lambda t: t[0],
    )
    used_b: set[int] = set()
    used_a: set[int] = set()
    for d, i, j in pairs:
        if tolerance is not None and d > tolerance:
            break
        if i not in used_b and j not in used_a:
            used_b.add(i)
            used_a.add(j)
    gone = [b for i, b in enumerate(before) if i not in used_b]
    new = [a for j, a in enumerate(after) if j not in used_a]
    return gone, new


def _drop_covered_wasabi(gone: list[SeenCard], new: list[SeenCard]) -> list[SeenCard]:
    """Remove from ``gone`` each wasabi that a new nigiri now lies on (it is hidden, not gone)."""
    nigiri = [n for n in new if n.label in {c.value for c in Card if c.is_nigiri}]
    left: list[SeenCard] = []
    for g in gone:
        near = [n for n in nigiri if _dist(g, n) <= MOVE_TOLERANCE_MM]
        if g.label == Card.WASABI.value and near:
            nigiri.remove(near[0])
            continue
        left.append(g)
    return left


def _as_play(gone: list[SeenCard], new: list[SeenCard], before: list[SeenCard]) -> tuple[Card, ...] | Ambiguous | None:
    """The play that explains (gone, new), the orders it may have been taken in, or None if they
    do not add up to one. ``before``: the zone's cards before the reveal (its wasabi)."""
    if len(new) == 1 and not gone:
        return (Card(new[0].label),)
    if len(new) == 2 and [g.label for g in gone] == [Card.CHOPSTICKS.value]:
        return _chopsticks_order(new, before)
    return None


def _chopsticks_order(new: list[SeenCard], before: list[SeenCard]) -> tuple[Card, ...] | Ambiguous:
    """The two cards of a chopsticks turn in the order taken, as far as the frame shows it
    (sushi-go.txt, USING WASABI: a nigiri taken after a wasabi goes on it, one per wasabi)."""
    a, b = new
    ca, cb = Card(a.label), Card(b.label)
    meets = (ca.is_nigiri and cb.is_nigiri) or (Card.WASABI in (ca, cb) and (ca.is_nigiri or cb.is_nigiri))
    if ca is cb or not meets:
        # Order changes nothing: a nigiri first, so a listing never triples by accident.
        return tuple(sorted((ca, cb), key=lambda c: not c.is_nigiri))
    if Card.WASABI in (ca, cb):  # a nigiri and a new wasabi: lying on it, the wasabi came first
        wasabi, nigiri = (a, b) if ca is Card.WASABI else (b, a)
        if _dist(nigiri, wasabi) <= MOVE_TOLERANCE_MM:
            return Card.WASABI, Card(nigiri.label)
        return Ambiguous(((Card(nigiri.label), Card.WASABI), (Card.WASABI, Card(nigiri.label))))
    # Two nigiri: the one lying where a wasabi is (hidden under it or showing beside) is on it.
    wasabi = [w for w in before if w.label == Card.WASABI.value]
    on = [n for n in (a, b) if any(_dist(n, w) <= MOVE_TOLERANCE_MM for w in wasabi)]
    if len(on) == 1:
        first = on[0]
        second = b if first is a else a
        return Card(first.label), Card(second.label)
    return Ambiguous(((ca, cb), (cb, ca)))


def infer_play(seat_name: str, before: list[SeenCard], after: list[SeenCard]) -> tuple[Card, ...] | Ambiguous:
    """The cards ``seat_name`` took this turn, from their zone before and after the reveal.

    Args:
        seat_name: the player's name, for messages.
        before: the cards in the zone after the previous reveal (at a round's first turn: only the
            puddings kept from earlier rounds).
        after: the cards in the zone now.

    Returns:
        1 card, or 2 cards for a chopsticks turn in the order taken; or, where the frame cannot
        tell that order and it may matter (a wasabi among or under them), :class:`Ambiguous`
        with both orders.

    Raises:
        TurnReadError: a card is face down or unreadable, or the change is not one play (e.g. no
            new card, three new cards, or a card vanished without chopsticks explaining it).
    """
    for card in after:
        if card.label == BACK:
            raise TurnReadError(seat_name, "a card is face down; turn it face up to reveal it")
        if card.label == UNKNOWN:
            raise TurnReadError(
                seat_name, "a card could not be read; straighten it or check the light",
                unknown=card,
            )
    gone, new = _match(before, after, MOVE_TOLERANCE_MM)
    gone = _drop_covered_wasabi(gone, new)
    play = _as_play(gone, new, before)
    if play is None:
        # A card moved further than the tolerance looks like one gone plus one new of the same label.
        gone2, new2 = _match(gone, new, None)
        play = _as_play(_drop_covered_wasabi(gone2, new2), new2, before)
        if play is None:
            raise TurnReadError(seat_name, _describe(gone, new), waiting=not gone and not new)
    return play


def _describe(gone: list[SeenCard], new: list[SeenCard]) -> str:
    def names(cards: list[SeenCard]) -> str:
        counts = Counter(c.label for c in cards)
        return ", ".join(f"{n}× {label}" if n > 1 else label for label, n in sorted(counts.items())) or "nothing"

    if not new and not gone:
        return "no new card since the last reveal (each player takes 1 card, sushi-go.txt, PLAYING A ROUND)"
    return (
        f"expected 1 new card (or 2 with chopsticks leaving), but saw new: {names(new)}; missing: {names(gone)}"
        " (sushi-go.txt, PLAYING A ROUND / USING CHOPSTICKS)"
    )
