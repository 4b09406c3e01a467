"""What the companion asks on the panel during a Sushi Express game (issue #11), one :class:`Prompt` at a
time: the options the player leafs through with ◀ ▶ and picks with OK.

Sushi Express is mostly played on the panel: the guesses (phase 1), the "1 tile further" cards and the
customer taken (phase 3), keep or discard (phase 4), the customer cards laid out in the display, and the
tip cards among the hidden action cards at the end. Only the dice are read by the camera (phase 2).
The table reader (:class:`companion.app.express_game.ExpressTableGame`) builds the prompts from the
game's :class:`~companion.rules.sushi_express.table.TableState`; the screens draw them
(:mod:`companion.app.express_views`), with the guess board, the display or the ring of tiles behind.

Source: ../shared/rules/sushi-express.txt (sections named per kind below).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from companion.rules.sushi_express.engine import van_path
from companion.rules.sushi_express.state import (
    GUESS_NUMBERS,
    PARK,
    SUSHI_EXPRESS,
    ActionCard,
    Customer,
    Exchange,
    Guess,
    Move,
)
from companion.rules.sushi_express.table import TableState, can_hold, tip_range

#: Prompt kinds (``Prompt.kind``) and the rulebook section each one asks about.
DISPLAY = "display"  # which customer card was laid in the display (PREPARATION; 4. make deliveries)
GUESS = "guess"  # a free number, or "same guess…" / "place exchange…" (1. place guesses)
SAME_GUESS = "same_guess"  # which taken number to stack on (THE ACTION CARDS, Same guess)
EXCHANGE = "exchange"  # which two neighbouring stacks to swap (THE ACTION CARDS, Place exchange)
END_TURN = "end_turn"  # after placing: done, or "place exchange…" (THE ACTION CARDS)
WHICH_ROLL = "which_roll"  # one die moved after a failed first try: re-roll card or second try (Re-roll)
ACCEPT = "accept"  # a failed second try: take an action card, or re-roll one die (2. roll dice; Re-roll)
FURTHER = "further"  # how many "1 tile further" cards (THE ACTION CARDS, 1 tile further)
CUSTOMER = "customer"  # which customer to take at Sushi Express (3. move delivery vans, Sushi Express)
DELIVER = "deliver"  # keep or discard the display (4. make deliveries)
TIPS = "tips"  # how many tip cards among a player's hidden action cards (SCORING)
CONFIRM = "confirm"  # after an undo: a step nobody is asked about, shown before it is applied again

#: The option that goes back to the menu before (sub-menus only).
BACK = "◀ back"
#: Menu items that open a sub-menu.
SAME_GUESS_ITEM = "same guess…"
EXCHANGE_ITEM = "place exchange…"
DONE_ITEM = "done"
ACCEPT_ITEM = "take an action card"
KEEP_ITEM, DISCARD_ITEM = "keep the display", "discard the display"


@dataclass(frozen=True)
class Prompt:
    """One question on the panel.

    Attributes:
        kind: one of the kinds above (DISPLAY, GUESS, ...).
        seat: who answers (the screen lights that seat).
        text: the question, one line, naming the player.
        options: the labels ◀ ▶ leaf through.
        values: per option, what picking it means: an engine action (``Guess``, ``Exchange``, ``Move``),
            a :class:`Customer`, an int (a tip count), True/False (keep/discard), or a label string
            for a menu item (``SAME_GUESS_ITEM``, ``EXCHANGE_ITEM``, ``DONE_ITEM``, ``ACCEPT_ITEM``,
            ``BACK``).
        step: (i, n) for a question asked n times in a row (the i-th card laid out, 1-based), else None.
        move: FURTHER / CUSTOMER: the move being decided (its ``further``; ``take`` None), else None.
    """

    kind: str
    seat: int
    text: str
    options: tuple[str, ...]
    values: tuple[Any, ...]
    step: tuple[int, int] | None = None
    move: Move | None = None

    def value(self, label: str) -> Any:
        """What the option ``label`` means; KeyError when it is not one of the options."""
        try:
            return self.values[self.options.index(label)]
        except ValueError:
            raise KeyError(label) from None


def tile_name(tile: int) -> str:
    """A tile of the ring in words: ``"Sushi Express"``, ``"the park"`` or ``"house 3"`` (houses 1–5
    clockwise after Sushi Express, 7–11 after the park, numbered by their place on the ring)."""
    if tile == SUSHI_EXPRESS:
        return "Sushi Express"
    if tile == PARK:
        return "the park"
    return f"house {tile}"


def display_prompt(state: TableState, seat: int, i: int, n: int, why: str, taken: Sequence[Customer] = ()) -> Prompt:
    """Which customer card lies ``i``-th of the ``n`` laid out now (``why``: "lay out the display",
    "refill the display"); the options are the customers the deck still holds besides ``taken``
    (the cards named before this one)."""
    deck = Counter(state.customer_supply)
    if state.unnamed:  # the unnamed cards are placeholders: what they are comes out of the deck
        deck.update(state.display[len(state.display) - state.unnamed:])
    deck.subtract(taken)
    left = [c for c in Customer if deck[c] > 0]
    text = f"{why}: which customer is card {i} of {n}?"
    return Prompt(DISPLAY, seat, text, tuple(c.label for c in left), tuple(left), step=(i, n))


def guess_prompt(state: TableState, seat: int) -> Prompt:
    """Phase 1: ``seat`` places their marker on a free number, or opens "same guess…" (a taken number)
    or "place exchange…" when they may hold that card."""
    name = state.players[seat]
    free = [n for n in GUESS_NUMBERS if not state.stack(n)]
    labels: list[str] = [str(n) for n in free]
    values: list[Any] = [Guess(seat, n) for n in free]
    if len(free) < len(GUESS_NUMBERS) and can_hold(state, seat, ActionCard.SAME_GUESS):
        labels.append(SAME_GUESS_ITEM)
        values.append(SAME_GUESS_ITEM)
    if exchange_pairs(state) and can_hold(state, seat, ActionCard.PLACE_EXCHANGE):
        labels.append(EXCHANGE_ITEM)
        values.append(EXCHANGE_ITEM)
    return Prompt(GUESS, seat, f"{name}: your guess (2–12)", tuple(labels), tuple(values))


def same_guess_prompt(state: TableState, seat: int) -> Prompt:
    """``seat`` plays "same guess": which taken number to stack on."""
    taken = [n for n in GUESS_NUMBERS if state.stack(n)]
    labels = [f"{n} (on {', '.join(state.players[s] for s in state.stack(n))})" for n in taken]
    values: list[Any] = [Guess(seat, n, same_guess=True) for n in taken]
    return Prompt(SAME_GUESS, seat, f'{state.players[seat]}: "same guess" on which number?',
                  (*labels, BACK), (*values, BACK))


def exchange_pairs(state: TableState) -> list[tuple[int, int]]:
    """The neighbouring spaces that both hold markers (THE ACTION CARDS, Place exchange)."""
    return [(n, n + 1) for n in GUESS_NUMBERS[:-1] if state.stack(n) and state.stack(n + 1)]


def exchange_prompt(state: TableState, seat: int) -> Prompt:
    """``seat`` plays "place exchange": which two neighbouring stacks swap."""
    pairs = exchange_pairs(state)
    labels = [f"{a} ↔ {b}" for a, b in pairs]
    values: list[Any] = [Exchange(seat, a, b) for a, b in pairs]
    return Prompt(EXCHANGE, seat, f'{state.players[seat]}: "place exchange": swap which two?',
                  (*labels, BACK), (*values, BACK))


def end_turn_prompt(state: TableState, seat: int) -> Prompt:
    """After placing: ``seat`` is done, or plays "place exchange" first (asked only when they may)."""
    return Prompt(END_TURN, seat, f"{state.players[seat]}: marker on {state.marker_number(seat)}. Done?",
                  (DONE_ITEM, EXCHANGE_ITEM), (DONE_ITEM, EXCHANGE_ITEM))


def accept_prompt(state: TableState, seat: int) -> Prompt:
    """A failed second try while ``seat`` may hold "re-roll": re-roll one die on the table, or take an
    action card (2. roll dice; THE ACTION CARDS, Re-roll)."""
    a, b = state.dice or (0, 0)
    guess = state.guesses[seat]
    text = (f"{state.players[seat]}: {a}+{b} = {a + b}, needs {guess}. Re-roll one die with a re-roll card, "
            "or take an action card")
    return Prompt(ACCEPT, seat, text, (ACCEPT_ITEM,), (ACCEPT_ITEM,))


def which_roll_prompt(state: TableState, seat: int, choices: Sequence[tuple[str, tuple]]) -> Prompt:
    """After a failed try the dice moved in a way two plays explain (one die moved: a "re-roll" card,
    or the next try with one die landing where it lay; both moved: the next try, or two "re-roll"
    cards): the player says which (THE ACTION CARDS, Re-roll; 2. roll dice). ``choices``: (words, the
    engine actions) per play; picking one gives its actions."""
    return Prompt(WHICH_ROLL, seat, f"{state.players[seat]}: re-roll card(s), or your next try?",
                  tuple(w for w, _ in choices), tuple(a for _, a in choices))


def further_prompt(state: TableState, seat: int) -> Prompt:
    """Phase 3: how far ``seat``'s van goes: the guess, or further with "1 tile further" cards (one
    option per card they may hold); each option names where the van ends."""
    guess = state.guesses[seat]
    assert guess is not None
    labels, values = [], []
    k = 0
    while k == 0 or can_hold(state, seat, ActionCard.TILE_FURTHER, k):
        tile, passed = van_path(state.vans, seat, guess + k)
        via = " via Sushi Express" if passed and tile != SUSHI_EXPRESS else ""
        words = f"{guess + k} tiles → {tile_name(tile)}{via}"
        labels.append(words if k == 0 else f"+{k} tile further: {words}")
        values.append(Move(seat, k))
        k += 1
    return Prompt(FURTHER, seat, f"{state.players[seat]} moves {guess}: play \"1 tile further\"?",
                  tuple(labels), tuple(values), move=values[0])


def may_play_further(state: TableState, seat: int) -> bool:
    """Whether ``seat`` may hold a "1 tile further" card (else their van just moves by the guess)."""
    return can_hold(state, seat, ActionCard.TILE_FURTHER)


def customer_prompt(state: TableState, move: Move, back: bool = True) -> Prompt:
    """The van reaches or passes Sushi Express: which customer card to take from the display.
    ``back``: offer going back to how far the van goes (only when that was asked)."""
    seat = move.player
    kinds = [c for c in Customer if c in state.display]
    labels: list[str] = [c.label for c in kinds]
    values: list[Any] = [Move(seat, move.further, c) for c in kinds]
    if back:
        labels.append(BACK)
        values.append(BACK)
    text = f"{state.players[seat]} passes Sushi Express: take which customer?"
    return Prompt(CUSTOMER, seat, text, tuple(labels), tuple(values), move=move)


def deliver_prompt(state: TableState, seat: int) -> Prompt:
    """Phase 4: the lowest guess keeps or discards the cards left in the display."""
    left = ", ".join(c.label for c in state.display)
    return Prompt(DELIVER, seat, f"{state.players[seat]}: keep the display ({left}) or discard it?",
                  (KEEP_ITEM, DISCARD_ITEM), (True, False))


def confirm_prompt(state: TableState, seat: int, words: str) -> Prompt:
    """After an undo, the step the rules leave no choice in (an end of turn, a van moved by its
    guess) is shown before it is applied again, so a second UNDO can go further back."""
    return Prompt(CONFIRM, seat, f"{state.players[seat]}: {words}", (f"OK: {words}",), ("ok",))


def tips_prompt(state: TableState, seat: int, i: int, n: int, said: Mapping[int, int] | None = None) -> Prompt:
    """The game has ended: how many of ``seat``'s hidden action cards are tip cards (SCORING). Only the
    counts possible after what the players before said (``said``) are offered (:func:`tip_range`)."""
    hidden = state.hidden(seat)
    low, high = tip_range(state, seat, said or {})
    text = f"game over: {state.players[seat]}, how many of your {hidden} hidden action cards are tips?"
    counts = range(low, high + 1)
    return Prompt(TIPS, seat, text, tuple(str(t) for t in counts), tuple(counts), step=(i, n))
