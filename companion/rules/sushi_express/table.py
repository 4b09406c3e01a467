"""Sushi Express played with real cards: what the companion knows of them, and when.

At a real table the companion does not hold the decks. The customer supply and the action supply are
shuffled face down (PREPARATION); the customer display is face up, so the players tell the companion
which cards they lay out; an action card is taken "without showing it to the other players" (2. roll
dice; 3. move delivery vans, Park) and is only seen when it is played (THE ACTION CARDS) or at the
scoring, when the tip cards count (SCORING).

The engine (:mod:`companion.rules.sushi_express.engine`) needs every card by name, so a
:class:`TableState` holds, for each card nobody has seen, a *placeholder*: a card the supply could have
held. The companion only ever relies on what was seen; a placeholder is given its true name when the
card is shown (:func:`advance` plays a card a player says they hold; :func:`reveal_tips` names the
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

__all__ = ["TableState", "advance", "can_hold", "cards_played", "name_display", "tip_range",
           "new_table_game", "pool", "reveal_tips"]


@dataclass(frozen=True)
class TableState(SushiExpressState):
    """A :class:`SushiExpressState` of a game played with real cards.

    Attributes:
        unseen: per seat, the cards in ``hands[seat]`` that were taken face down and not shown since:
            placeholders, not their true names (module doc).
        unnamed: how many of the display's last cards the players have not named yet (placeholders):
            the whole display before round 1, then the cards each refill draws (4. make deliveries),
            until the players say which they are (:func:`name_display`).

    A game whose display could not be refilled ends (GAME END); while players still hold hidden
    cards it is not over yet: ``result`` is None until they say how many are tips (:func:`reveal_tips`).
    """

    unseen: tuple[tuple[ActionCard, ...], ...] = ()
    unnamed: int = 0

    @property
    def display_known(self) -> bool:
        """Whether every card in the display has been named by the players."""
        return self.unnamed == 0

    @property
    def is_over(self) -> bool:
        """True once the game has ended and been scored: the display could not be refilled and every
        hidden hand's tips are known (SCORING)."""
        return self.phase is Phase.OVER and self.result is not None

    @property
    def tips_asked(self) -> bool:
        """The display could not be refilled, and players with hidden cards must say their tips."""
        return self.phase is Phase.OVER and self.result is None

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
    return TableState(**fields, unseen=((),) * base.seats, unnamed=base.seats)


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


def _prepared(state: TableState, action: Action) -> TableState:
    """``state`` with the hidden cards ``action`` needs named (module doc)."""
    return _keep_re_roll_open(_show_played(state, action), action)


def name_display(state: TableState, cards: Sequence[Customer]) -> TableState:
    """The display's unnamed cards (the first display, PREPARATION: "Draw as many customer cards as
    there are players and place them face up in a row"; or a refill, 4. make deliveries) are
    ``cards``, in order: their placeholders go back to the face-down deck, ``cards`` come out of it.

    Raises:
        IllegalAction: ``display-size`` for another number of cards than are unnamed, or
            ``customer-not-in-supply`` for more cards of a customer than the deck still holds.
    """
    n = state.unnamed
    if not n or len(cards) != n or not all(isinstance(c, Customer) for c in cards):
        raise IllegalAction(f"{n} customer card(s) of the display are to be named now, got {len(cards)}",
                            rule="display-size", section=CONTENTS if state.round == 1 else PHASE_4)
    kept, placeholders = state.display[: len(state.display) - n], state.display[len(state.display) - n:]
    deck = Counter(state.customer_supply) + Counter(placeholders)
    short = [c for c, k in (Counter(cards) - deck).items() if k > 0]
    if short:
        names = ", ".join(c.label for c in short)
        raise IllegalAction(f"the customer deck holds no more {names}: every such card of the box is out",
                            rule="customer-not-in-supply", section=CONTENTS)
    left = list(state.customer_supply) + list(placeholders)
    for card in cards:
        left.remove(card)
    return replace(state, display=kept + tuple(cards), customer_supply=tuple(left), unnamed=0)


def advance(state: TableState, action: Action) -> TableState:
    """The state after ``action`` at a real table: hidden cards it plays named, an action card taken
    face down kept hidden, the customer cards a refill draws left unnamed (``unnamed``) and, at the
    game's end with hidden hands, the result left until the tips are known (:func:`reveal_tips`).

    Raises:
        IllegalAction: the engine's refusal (a card nobody could hold is ``card-not-held``), or
            ``display-unnamed`` while display cards wait to be named.
    """
    if state.unnamed:
        raise IllegalAction("name the customer cards laid in the display first", rule="display-unnamed",
                            section=PHASE_4)
    if state.tips_asked:
        raise IllegalAction("the game is over: say the tips among hidden cards", rule="game-over", section=SCORING)
    state = _prepared(state, action)
    before = state
    after = apply(state, action)
    if len(after.action_supply) < len(before.action_supply):
        seat = action.player  # a failed roller or a van on the park takes the top card, face down
        unseen = list(after.unseen)
        unseen[seat] = unseen[seat] + (before.action_supply[0],)
        after = replace(after, unseen=tuple(unseen))
    drawn = len(before.customer_supply) - len(after.customer_supply)
    if drawn and after.phase is not Phase.OVER:
        after = replace(after, unnamed=drawn)
    if after.phase is Phase.OVER and any(after.unseen):
        after = replace(after, result=None)  # scored once the hidden hands' tips are known
    return after


def tip_range(state: TableState, seat: int, said: Mapping[int, int]) -> tuple[int, int]:
    """The tip cards ``seat`` may hold among their hidden cards, given what the players before them
    said (``said``: seat → tips): the two tip cards (THE ACTION CARDS) not seen are in the hidden
    hands or still in the supply, so the count is at most what is left and at least what the supply
    and the later hands cannot hold."""
    left = pool(state)[ActionCard.TIP] - sum(said.values())
    later = sum(state.hidden(s) for s in range(state.seats) if s != seat and s not in said)
    room = len(state.action_supply) + later
    return max(0, left - room), max(0, min(state.hidden(seat), left))


def reveal_tips(state: TableState, tips: Mapping[int, int]) -> TableState:
    """The game's end (``tips_asked``) with the hidden hands' tips said: ``tips[seat]`` of each hidden
    hand are tip cards, the rest other action cards (SCORING: tips count, and action cards left break
    a tie); scored. The other hidden cards stay hidden (nobody said which they are).

    Raises:
        IllegalAction: ``tips-count`` naming the player, for a seat with hidden cards not in ``tips``, or
            a count outside :func:`tip_range` (the two tip cards must be somewhere); ``game-over``
            when the game is not waiting for tips.
    """
    if not state.tips_asked:
        raise IllegalAction("tips are said once the game has ended, by the players with hidden cards",
                            rule="game-over", section=SCORING)
    said: dict[int, int] = {}
    others: dict[int, tuple[ActionCard, ...]] = {}
    asked = state  # the ranges are those the players were offered (the hands as they were)
    for seat in range(state.seats):
        n = state.hidden(seat)
        if not n:
            continue
        name = state.players[seat]
        t = tips.get(seat)
        low, high = tip_range(asked, seat, said)
        if type(t) is not int or not low <= t <= high:
            raise IllegalAction(f"{name} holds {n} hidden action card(s): {low} to {high} of them can be tip cards"
                                f" ({ACTION_CARDS}, Tip), got {t!r}", rule="tips-count", section=SCORING, player=name)
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
        # this hand is settled: its tips are true now, and no later renaming may touch it
        said[seat] = t
        others[seat] = tuple(c for c in state.unseen[seat] if c is not ActionCard.TIP)
        state = replace(state, unseen=state.unseen[:seat] + ((),) + state.unseen[seat + 1:])
    unseen = tuple(others.get(s, ()) for s in range(state.seats))
    return replace(end_game(replace(state, phase=Phase.DELIVER, result=None)), unseen=unseen)


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
