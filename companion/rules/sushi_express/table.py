"""Sushi Express played with real cards: what the companion knows of them, and when.

At a real table the companion does not hold the decks. The customer supply and the action supply are
shuffled face down (PREPARATION); the customer display is face up, so the players tell the companion
which cards they lay out; an action card is taken "without showing it to the other players" (2. roll
dice; 3. move delivery vans, Park) and is only seen when it is played (THE ACTION CARDS) or at the
scoring, when the tip cards count (SCORING).

The engine (:mod:`companion.rules.sushi_express.engine`) needs every card by name, so a
:class:`TableState` holds, for each card nobody has seen, a *placeholder*: a card the supply could have
held. The companion only ever relies on what was seen; a placeholder is given its true name when the
card is shown (:func:`table_apply` plays a card a player says they hold; :func:`reveal_tips` names the
tips at the end), by swapping names with another unseen card of that kind, which changes nothing
anybody saw. So a hidden hand never limits a player: a card is refused only when every copy of it is
accounted for.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from companion.rules.errors import IllegalAction
from companion.rules.sushi_express.engine import (
    FULL_CUSTOMER_DECK,
    apply,
    end_game,
    new_game_with_decks,
    starting_supply,
)
from companion.rules.sushi_express.state import (
    ACTION_CARDS,
    CONTENTS,
    PHASE_4,
    SCORING,
    TRIES,
    Action,
    ActionCard,
    Customer,
    Exchange,
    Guess,
    Move,
    Phase,
    ReRoll,
    Roll,
    SushiExpressOptions,
    SushiExpressState,
)

__all__ = ["TableState", "advance", "can_hold", "cards_played", "display_draws", "ends_game", "lay_display",
           "new_table_game", "pool", "reveal_tips", "table_apply"]


@dataclass(frozen=True)
class TableState(SushiExpressState):
    """A :class:`SushiExpressState` of a game played with real cards.

    Attributes:
        unseen: per seat, the cards in ``hands[seat]`` that were taken face down and not shown since:
            placeholders, not their true names (module doc).
        display_known: whether the players have said which customer cards lie in the display (the
            first display is laid out before round 1; until then it holds placeholders).
    """

    unseen: tuple[tuple[ActionCard, ...], ...] = ()
    display_known: bool = False

    @property
    def turn(self) -> int:
        """Where the round is, counted in players' turns from 1: the guesses (phase 1), then each
        marker that left the board (a failed roller or a moved van, phases 2 and 3), then the
        deliveries (phase 4). Rises within a round; for messages and the journal."""
        if self.phase is Phase.GUESS:
            return self.guess_turn + 1
        if self.phase in (Phase.ROLL, Phase.MOVE):
            return self.seats + 1 + self.seats - len(self.on_board())
        return 2 * self.seats + 1

    def hidden(self, seat: int) -> int:
        """How many of ``seat``'s action cards the companion has not seen."""
        return len(self.unseen[seat])

    def shown(self, seat: int) -> Counter:
        """``seat``'s action cards the companion has seen (the two of the start, and any shown)."""
        return Counter(self.hands[seat]) - Counter(self.unseen[seat])


def new_table_game(players: Sequence[str], options: SushiExpressOptions | None = None) -> TableState:
    """A game at a real table: starting hands dealt (PREPARATION), both supplies unseen.

    Raises:
        ValueError: as :func:`~companion.rules.sushi_express.engine.new_game` for the players or options.
    """
    base = new_game_with_decks(players, starting_supply(len(players)), FULL_CUSTOMER_DECK, options)
    fields = {f: getattr(base, f) for f in base.__dataclass_fields__}
    return TableState(**fields, unseen=((),) * base.seats)


def pool(state: TableState) -> Counter:
    """The action cards nobody has seen: the supply and every hidden card in the hands."""
    out = Counter(state.action_supply)
    for cards in state.unseen:
        out.update(cards)
    return out


def can_hold(state: TableState, seat: int, card: ActionCard, n: int = 1) -> bool:
    """Whether ``seat`` may hold ``n`` copies of ``card``: seen in their hand, or hidden there and not
    every copy accounted for (THE ACTION CARDS)."""
    hidden = min(state.hidden(seat), pool(state)[card])
    return state.shown(seat)[card] + hidden >= n


def cards_played(action: Action) -> tuple[ActionCard, int] | None:
    """The action card ``action`` plays and how many (None when it plays none)."""
    if isinstance(action, Guess) and action.same_guess is True:
        return ActionCard.SAME_GUESS, 1
    if isinstance(action, Exchange):
        return ActionCard.PLACE_EXCHANGE, 1
    if isinstance(action, ReRoll):
        return ActionCard.RE_ROLL, 1
    if isinstance(action, Move) and type(action.further) is int and action.further > 0:
        return ActionCard.TILE_FURTHER, action.further
    return None


def _swap_in(state: TableState, seat: int, card: ActionCard, reveal: bool) -> TableState | None:
    """One of ``seat``'s hidden placeholders (not ``card``) renamed ``card``, the name swapped with a
    hidden ``card`` elsewhere (the supply first, then another hand); ``reveal``: the card is shown now.
    None when no such swap exists."""
    mine = [c for c in state.unseen[seat] if c is not card]
    if not mine:
        return None
    other = mine[0]
    hands, unseen = list(state.hands), list(state.unseen)

    def rename(cards: tuple, old: ActionCard, new: ActionCard) -> tuple:
        out = list(cards)
        out[out.index(old)] = new
        return tuple(out)

    if card in state.action_supply:
        supply = rename(state.action_supply, card, other)
    else:
        holder = next((t for t, cs in enumerate(state.unseen) if t != seat and card in cs), None)
        if holder is None:
            return None
        supply = state.action_supply
        hands[holder] = rename(hands[holder], card, other)
        unseen[holder] = rename(unseen[holder], card, other)
    hands[seat] = rename(hands[seat], other, card)
    unseen[seat] = rename(unseen[seat], other, card)
    state = replace(state, hands=tuple(hands), unseen=tuple(unseen), action_supply=supply)
    return _reveal(state, seat, card, 1) if reveal else state


def _reveal(state: TableState, seat: int, card: ActionCard, n: int) -> TableState:
    unseen = Counter(state.unseen[seat])
    unseen[card] -= n
    kept = tuple(unseen.elements())
    return replace(state, unseen=state.unseen[:seat] + (kept,) + state.unseen[seat + 1:])


def _show_played(state: TableState, action: Action) -> TableState:
    """Name the hidden cards ``action`` plays (module doc); unchanged when it plays none, or when the
    player cannot hold them (the engine then refuses: ``card-not-held``)."""
    played = cards_played(action)
    if played is None or type(action.player) is not int or not 0 <= action.player < state.seats:
        return state
    card, n = played
    seat = action.player
    if not can_hold(state, seat, card, n):
        return state
    short = max(0, n - state.shown(seat)[card])
    from_hidden = min(short, Counter(state.unseen[seat])[card])
    state = _reveal(state, seat, card, from_hidden)
    for _ in range(short - from_hidden):
        state = _swap_in(state, seat, card, reveal=True) or state
    return state


def _keep_re_roll_open(state: TableState, action: Action) -> TableState:
    """Before a roll that fails a second try: a roller who may hold a hidden "re-roll" keeps the chance
    to play it, so the engine waits (THE ACTION CARDS, Re-roll: "on either the first try or the
    second") instead of taking the failure at once."""
    if not isinstance(action, (Roll, ReRoll)) or state.phase is not Phase.ROLL or state.current != action.player:
        return state
    seat = action.player
    need = 2 if isinstance(action, ReRoll) else 1  # a re-roll being played must leave one more
    if state.hands[seat].count(ActionCard.RE_ROLL) >= need or not can_hold(state, seat, ActionCard.RE_ROLL, need):
        return state
    tries = state.tries + (1 if isinstance(action, Roll) else 0)
    if tries < TRIES:
        return state
    return _swap_in(state, seat, ActionCard.RE_ROLL, reveal=False) or state


def display_draws(state: TableState, action: Action) -> int:
    """How many customer cards ``action`` makes the players draw into the display (phase 4 refill, or
    none); the game's end draws none (GAME END).

    Raises:
        IllegalAction: as the engine, for an action it refuses.
    """
    ready = _prepared(state, action)
    after = apply(ready, action)
    return 0 if after.is_over else len(ready.customer_supply) - len(after.customer_supply)


def ends_game(state: TableState, action: Action) -> bool:
    """Whether ``action`` ends the game (the display cannot be filled, GAME END).

    Raises:
        IllegalAction: as the engine, for an action it refuses.
    """
    return apply(_prepared(state, action), action).is_over


def _prepared(state: TableState, action: Action) -> TableState:
    """``state`` with the hidden cards ``action`` needs named (module doc)."""
    return _keep_re_roll_open(_show_played(state, action), action)


def _arrange_customers(state: TableState, drawn: Sequence[Customer]) -> TableState:
    """The customer supply with ``drawn`` on top, in that order (its true order is unknown)."""
    rest = Counter(state.customer_supply)
    rest.subtract(drawn)
    short = [c for c, n in rest.items() if n < 0]
    if short:
        seen = ", ".join(c.label for c in short)
        raise IllegalAction(f"the customer deck holds no more {seen}: every such card of the box is already out",
                            rule="customer-not-in-supply", section=CONTENTS)
    left = list(state.customer_supply)
    for card in drawn:
        left.remove(card)
    return replace(state, customer_supply=tuple(drawn) + tuple(left))


def lay_display(state: TableState, cards: Sequence[Customer]) -> TableState:
    """The first display, as laid out from the shuffled customer cards before round 1 (PREPARATION:
    "Draw as many customer cards as there are players and place them face up in a row").

    Raises:
        IllegalAction: not one card per player, a display already laid, or more cards of a customer
            than the box holds.
    """
    if state.display_known or state.round != 1 or state.phase is not Phase.GUESS or state.guess_turn:
        raise IllegalAction("the display is laid out once, before the first guess", rule="display-laid",
                            section=CONTENTS)
    if len(cards) != state.seats or not all(isinstance(c, Customer) for c in cards):
        raise IllegalAction(f"the display holds one customer card per player: {state.seats}, got {len(cards)}",
                            rule="display-size", section=CONTENTS)
    full = state.customer_supply + state.display
    arranged = _arrange_customers(replace(state, customer_supply=full), cards)
    n = len(cards)
    return replace(arranged, display=arranged.customer_supply[:n], customer_supply=arranged.customer_supply[n:],
                   display_known=True)


def advance(state: TableState, action: Action, drawn: Sequence[Customer] = ()) -> TableState:
    """The state after ``action`` at a real table, with hidden cards still hidden: at the game's end its
    result counts placeholders, so use this only to look ahead (what to ask before the last action:
    the hidden hands at the end), and :func:`table_apply` to play.

    Raises:
        IllegalAction: as :func:`table_apply`, but for ``tips-count``.
    """
    state = _prepared(state, action)
    need = display_draws(state, action)
    drawn = tuple(drawn)
    if len(drawn) != need or not all(isinstance(c, Customer) for c in drawn):
        raise IllegalAction(f"{need} customer card(s) are drawn into the display now, got {len(drawn)}",
                            rule="display-draw", section=PHASE_4)
    if drawn:
        state = _arrange_customers(state, drawn)
    before = state
    after = apply(state, action)
    if len(after.action_supply) < len(before.action_supply):
        seat = action.player  # a failed roller or a van on the park takes the top card, face down
        unseen = list(after.unseen)
        unseen[seat] = unseen[seat] + (before.action_supply[0],)
        after = replace(after, unseen=tuple(unseen))
    return after


def table_apply(state: TableState, action: Action, drawn: Sequence[Customer] = (),
                tips: Mapping[int, int] | None = None) -> TableState:
    """The state after ``action`` at a real table.

    Args:
        drawn: the customer cards drawn into the display by this action, in order (exactly
            :func:`display_draws` of them; 4. make deliveries).
        tips: when the action ends the game, each seat holding hidden cards → how many of them are tip
            cards (SCORING); the others are then counted as action cards left.

    Raises:
        IllegalAction: the engine's refusal (a card nobody could hold is ``card-not-held``); the wrong
            number of drawn cards (``display-draw``); a customer the deck no longer holds
            (``customer-not-in-supply``); tips missing or impossible (``tips-count``).
    """
    after = advance(state, action, drawn)
    if after.is_over:
        after = reveal_tips(after, tips or {})
    return after


def reveal_tips(state: TableState, tips: Mapping[int, int]) -> TableState:
    """The game's end with the hidden cards shown: ``tips[seat]`` of each hidden hand are tip cards,
    the rest other action cards (SCORING: tips count, and action cards left break a tie); rescored.

    Raises:
        IllegalAction: ``tips-count`` naming the player, for a seat with hidden cards not in ``tips``,
            a count above their hidden cards, or more tips than the box has left unaccounted for.
    """
    for seat in range(state.seats):
        n = state.hidden(seat)
        if not n:
            continue
        name = state.players[seat]
        t = tips.get(seat)
        if type(t) is not int or not 0 <= t <= n:
            raise IllegalAction(f"{name} holds {n} hidden action card(s): say how many are tip cards (0 to {n})",
                                rule="tips-count", section=SCORING, player=name)
        have = Counter(state.unseen[seat])[ActionCard.TIP]
        while have != t:
            if have < t:
                renamed = _swap_in(state, seat, ActionCard.TIP, reveal=False)
            else:
                renamed = _swap_out_tip(state, seat)
            if renamed is None:
                raise IllegalAction(f"{name} cannot hold {t} tip card(s): the box has "
                                    f"{pool(state)[ActionCard.TIP]} more unaccounted for ({ACTION_CARDS}, Tip)",
                                    rule="tips-count", section=SCORING, player=name)
            state = renamed
            have = Counter(state.unseen[seat])[ActionCard.TIP]
        # this hand is settled: its names are true now
        state = replace(state, unseen=state.unseen[:seat] + ((),) + state.unseen[seat + 1:])
    return end_game(replace(state, phase=Phase.DELIVER, result=None))


def _swap_out_tip(state: TableState, seat: int) -> TableState | None:
    """A hidden tip placeholder of ``seat`` renamed to a hidden non-tip card found elsewhere."""
    for card in ActionCard:
        if card is ActionCard.TIP:
            continue
        if card in state.action_supply or any(card in cs for t, cs in enumerate(state.unseen) if t != seat):
            # rename one of seat's tips as ``card`` by swapping in ``card`` over a tip placeholder
            hands, unseen = list(state.hands), list(state.unseen)
            if card in state.action_supply:
                supply = list(state.action_supply)
                supply[supply.index(card)] = ActionCard.TIP
                supply = tuple(supply)
            else:
                holder = next(t for t, cs in enumerate(state.unseen) if t != seat and card in cs)
                h, u = list(hands[holder]), list(unseen[holder])
                h[h.index(card)], u[u.index(card)] = ActionCard.TIP, ActionCard.TIP
                hands[holder], unseen[holder] = tuple(h), tuple(u)
                supply = state.action_supply
            h, u = list(hands[seat]), list(unseen[seat])
            h[h.index(ActionCard.TIP)], u[u.index(ActionCard.TIP)] = card, card
            hands[seat], unseen[seat] = tuple(h), tuple(u)
            return replace(state, hands=tuple(hands), unseen=tuple(unseen), action_supply=supply)
    return None
