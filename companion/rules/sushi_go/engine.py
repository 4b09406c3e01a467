"""The Sushi Go! engine: setup, legal plays, turn resolution, and round and game flow.

Pure functions over :class:`~companion.rules.sushi_go.state.SushiGoState`. Start a game with
:func:`new_game` (full information, dealt from a seeded shuffle) or :func:`new_observed_game` (hands
secret, cards learned as they are revealed). Then :func:`apply` one :class:`Play` per seat, or
:func:`apply_turn` a whole turn at once. When every seat has chosen, the turn resolves: cards are
revealed, nigiri go on open wasabi, used chopsticks go back into the hand, hands are passed. After the
last turn of a round the round is scored and the next round dealt; after round 3 puddings are scored and
``state.result`` holds the :class:`~companion.rules.core.GameResult`.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace
from itertools import product
from typing import Mapping, Sequence

from companion.rules.core import player_names, shuffled
from companion.rules.errors import IllegalAction
from companion.rules.sushi_go.cards import DECK_COUNTS, Card, UnknownCard
from companion.rules.sushi_go.scoring import final_result, score_round
from companion.rules.sushi_go.state import (
    DUMMY_NAME,
    DUMMY_SEAT,
    HAND_SIZES,
    PLAY_SHAPE,
    ROUNDS,
    TWO_PLAYER,
    UNSEEN,
    Placed,
    Play,
    Slot,
    SushiGoOptions,
    SushiGoState,
    Tableau,
    tableau_cards,
)

#: What ``companion.rules.sushi_go`` re-exports (its names when it was one module).
__all__ = [
    "CHOPSTICKS",
    "CONTENTS",
    "DECK_COUNTS",
    "DUMMY_NAME",
    "DUMMY_SEAT",
    "ENDING_GAME",
    "FULL_DECK",
    "HAND_SIZES",
    "PLAYING",
    "ROUNDS",
    "SUSHI_GO",
    "TWO_PLAYER",
    "UNSEEN",
    "Card",
    "Placed",
    "Play",
    "Slot",
    "SushiGo",
    "SushiGoOptions",
    "SushiGoState",
    "Tableau",
    "apply",
    "apply_turn",
    "check_play",
    "final_result",
    "known_counts",
    "legal_actions",
    "legal_plays",
    "new_game",
    "new_game_with_deck",
    "new_observed_game",
    "score_round",
    "tableau_cards",
]

PLAYING = "sushi-go.txt, PLAYING A ROUND"
CHOPSTICKS = "sushi-go.txt, USING CHOPSTICKS"
CONTENTS = "sushi-go-with-variants.txt, CONTENTS"
ENDING_GAME = "sushi-go.txt, ENDING THE GAME"

#: The 108 cards in a fixed order, before shuffling.
FULL_DECK: tuple[Card, ...] = tuple(card for card, n in DECK_COUNTS.items() for _ in range(n))


def new_game(players: Sequence[str], rng: random.Random, options: SushiGoOptions | None = None) -> SushiGoState:
    """A full-information game: the 108-card deck shuffled with ``rng`` and round 1 dealt.

    ``players`` are the real players' names, seat 0 first; hands pass from seat i to seat i+1. In the
    dummy variant give 2 names; "Dummy" is added as seat 2.

    Raises:
        ValueError: ``players`` is not a list of names (a single string such as "AB" is refused, not
            split into players), for fewer than 2 or more than 5 players, duplicate or empty names, a
            dummy variant without exactly 2 players, or an ``rng`` that is not a ``random.Random``.
    """
    return _setup(players, shuffled(FULL_DECK, rng), SushiGoOptions() if options is None else options)


def new_observed_game(players: Sequence[str], options: SushiGoOptions | None = None) -> SushiGoState:
    """An observed game: every card unseen until a play reveals it (camera replay, scoring records).

    The engine still enforces every rule it can see: cards per turn, chopsticks, turns per round,
    wasabi placement and the deck's card counts. Same arguments and errors as :func:`new_game`.
    """
    return _setup(players, (UNSEEN,) * len(FULL_DECK), SushiGoOptions() if options is None else options)


def new_game_with_deck(
    players: Sequence[str], deck: Sequence[Card], options: SushiGoOptions | None = None
) -> SushiGoState:
    """A full-information game dealt from ``deck`` exactly as given, top first: seat 0 gets the first
    hand, seat 1 the next... (then the dummy pile). For tests, puzzles and re-creating a known shuffle.

    Raises:
        ValueError: unless ``deck`` holds exactly the 108 cards of DECK_COUNTS; see :func:`new_game`.
    """
    if Counter(deck) != Counter(FULL_DECK):
        raise ValueError(f"the deck must hold exactly the 108 cards of the game ({CONTENTS})")
    return _setup(players, tuple(deck), SushiGoOptions() if options is None else options)


def _setup(players: Sequence[str], deck: tuple[Slot, ...], options: SushiGoOptions) -> SushiGoState:
    names = player_names(players)
    if not isinstance(options, SushiGoOptions):
        raise ValueError(f"options must be SushiGoOptions, got {type(options).__name__} {options!r}")
    if options.dummy:
        if len(names) != 2:
            raise ValueError(f"the two-player variant needs exactly 2 players, got {len(names)} ({TWO_PLAYER})")
        if DUMMY_NAME.casefold() in (n.casefold() for n in names):  # the table could not tell them apart
            raise ValueError(f"{DUMMY_NAME!r} is the dummy's seat name in the two-player variant ({TWO_PLAYER})")
        names = names + (DUMMY_NAME,)
    elif len(names) not in HAND_SIZES:
        raise ValueError(f"Sushi Go! is for 2 to 5 players, got {len(names)} (sushi-go.txt, STARTING A ROUND)")
    seats = len(names)
    state = SushiGoState(
        players=names,
        options=options,
        round=1,
        turn=1,
        deck=deck,
        hands=((),) * seats,
        dummy_pile=(),
        pending=(None,) * seats,
        tableaux=((),) * seats,
        discard=(),
        puddings=(0,) * seats,
    )
    return _deal(state)


def _deal(state: SushiGoState) -> SushiGoState:
    """Deal the round's hands from the top of the deck (and the dummy pile), then start turn 1."""
    size = state.hand_size
    deck = state.deck
    hands: list[tuple[Slot, ...]] = []
    for _ in state.real_seats:
        hands.append(deck[:size])
        deck = deck[size:]
    pile: tuple[Slot, ...] = ()
    if state.options.dummy:
        pile, deck = deck[:size], deck[size:]
        hands.append(())
    state = replace(state, turn=1, deck=deck, hands=tuple(hands), dummy_pile=pile, tableaux=((),) * state.seats)
    return _start_turn(state)


def _start_turn(state: SushiGoState) -> SushiGoState:
    """The dummy's controller draws the top card of the dummy pile (TWO-PLAYER VARIANT)."""
    if not state.options.dummy:
        return state
    c = state.controller
    hands = list(state.hands)
    hands[c] = hands[c] + state.dummy_pile[:1]
    return replace(state, hands=tuple(hands), dummy_pile=state.dummy_pile[1:])


def _take(hand: tuple[Slot, ...], cards: Sequence[Card]) -> tuple[tuple[Slot, ...], list[Card], Card | None]:
    """Remove ``cards`` from ``hand``: a seen copy if there is one, else an unseen slot.

    Returns the remaining hand, the cards that came from unseen slots (newly revealed), and the first
    card that could not be taken (None when all could).
    """
    rest = list(hand)
    revealed: list[Card] = []
    for card in cards:
        if card in rest:
            rest.remove(card)
        elif UNSEEN in rest:
            rest.remove(UNSEEN)
            revealed.append(card)
        else:
            return hand, revealed, card
    return tuple(rest), revealed, None


def known_counts(state: SushiGoState) -> Counter[Card]:
    """How many of each card type are known to exist: seen in hands, piles, the table, the discard,
    the puddings kept, or chosen this turn. Never more than DECK_COUNTS (sushi-go-with-variants.txt,
    CONTENTS)."""
    counts: Counter[Card] = Counter(c for c in state.deck if c is not None)
    for hand in state.hands:
        counts.update(c for c in hand if c is not None)
    counts.update(c for c in state.dummy_pile if c is not None)
    for play in state.pending:
        if play is not None:
            counts.update(play.cards)
    for tableau in state.tableaux:
        counts.update(tableau_cards(tableau))
    counts.update(state.discard)
    counts[Card.PUDDING] += sum(state.puddings)
    return counts


def _has_chopsticks(tableau: Tableau) -> bool:
    # Everything already in the tableau was revealed on an earlier turn: this turn's cards are still
    # face down in ``pending``, so a chopsticks taken now cannot be used now.
    return any(p.card is Card.CHOPSTICKS for p in tableau)


def check_play(state: SushiGoState, play: Play) -> None:
    """Check that ``play`` is legal now; return None if so.

    Raises:
        IllegalAction: with the player, the rule id and the rulebook section. Rule ids: ``play-shape``
            (``play`` is not a Play), ``game-over``, ``unknown-seat`` (also a bool or non-int seat),
            ``already-chosen``, ``one-card``, ``chopsticks-needed``, ``dummy-chopsticks``,
            ``hand-size``, ``card-not-in-hand``, ``leave-a-card``, ``deck-count``.
    """
    seats = state.seats
    if not isinstance(play, Play):
        raise IllegalAction(
            f"a play is Play(seat, cards), got {type(play).__name__} {play!r}", rule="play-shape", section=PLAYING
        )
    if state.is_over:
        raise IllegalAction("the game is over: no more cards can be played", rule="game-over", section=ENDING_GAME)
    if not _is_seat_number(play.player) or not 0 <= play.player < seats:
        raise IllegalAction(
            f"there is no seat {play.player!r}: seats are 0 to {seats - 1}", rule="unknown-seat", section=PLAYING
        )
    seat = play.player
    name = state.players[seat]
    if state.pending[seat] is not None:
        raise IllegalAction(
            f"{name} has already chosen a card this turn", player=name, rule="already-chosen", section=PLAYING
        )
    n = len(play.cards)
    if n == 0 or n > 2:
        raise IllegalAction(
            f"{name} took {n} cards: each turn a player takes 1 card, or 2 with chopsticks",
            player=name,
            rule="one-card",
            section=PLAYING if n == 0 else CHOPSTICKS,
        )
    is_dummy = state.options.dummy and seat == DUMMY_SEAT
    if n == 2:
        if is_dummy and not state.options.dummy_uses_chopsticks:
            raise IllegalAction(
                f"{name} took 2 cards: the controller chooses 1 card for the dummy"
                " (option dummy_uses_chopsticks is off)",
                player=name,
                rule="dummy-chopsticks",
                section=TWO_PLAYER,
            )
        if not _has_chopsticks(state.tableaux[seat]):
            raise IllegalAction(
                f"{name} took 2 cards without chopsticks: no chopsticks card was in front of {name}"
                " before this turn",
                player=name,
                rule="chopsticks-needed",
                section=CHOPSTICKS,
            )
    src = state.source_seat(seat)
    whose = "their" if src == seat else f"{state.players[src]}'s"
    hand = state.hands[src]
    rest, revealed, missing = _take(hand, play.cards)
    if missing is not None:
        if len(hand) < n:
            raise IllegalAction(
                f"{name} took {n} cards but {whose} hand holds only {len(hand)}",
                player=name,
                rule="hand-size",
                section=PLAYING,
            )
        raise IllegalAction(
            f"{name} cannot take {missing}: there is no {missing} in {whose} hand",
            player=name,
            rule="card-not-in-hand",
            section=PLAYING,
        )
    others = [s for s in state.waiting_for() if s != seat and state.source_seat(s) == src]
    if len(rest) < len(others):
        raise IllegalAction(
            f"{name} must leave a card in {whose} hand for {state.players[others[0]]}",
            player=name,
            rule="leave-a-card",
            section=TWO_PLAYER,
        )
    if revealed:
        counts = known_counts(state)
        counts.update(revealed)
        for card in revealed:
            if counts[card] > DECK_COUNTS[card]:
                raise IllegalAction(
                    f"{name} cannot take {card}: the deck has only {DECK_COUNTS[card]} {card} cards"
                    " and all of them are already accounted for this game",
                    player=name,
                    rule="deck-count",
                    section=CONTENTS,
                )


def legal_plays(state: SushiGoState, seat: int) -> tuple[Play, ...]:
    """Every legal Play for ``seat`` now (empty if it has chosen, or the game is over).

    Single cards come first, then chopsticks pairs in the order taken (order matters for wasabi).
    In an observed game an unseen slot may hold any card the deck still has.
    """
    if state.is_over or not 0 <= seat < state.seats or state.pending[seat] is not None:
        return ()
    hand = state.hands[state.source_seat(seat)]
    kinds = set(c for c in hand if c is not None)
    if UNSEEN in hand:
        kinds.update(Card)
    ordered = [c for c in Card if c in kinds]
    candidates = [Play(seat, (c,)) for c in ordered]
    candidates += [Play(seat, pair) for pair in product(ordered, repeat=2)]
    legal = []
    for play in candidates:
        try:
            check_play(state, play)
        except IllegalAction:
            continue
        legal.append(play)
    return tuple(legal)


def legal_actions(state: SushiGoState) -> tuple[Play, ...]:
    """Every legal Play of every seat that has not chosen yet this turn, seat by seat."""
    return tuple(play for seat in state.waiting_for() for play in legal_plays(state, seat))


def apply(state: SushiGoState, play: Play) -> SushiGoState:
    """The state after ``play`` is chosen face down; the turn resolves once every seat has chosen.

    Raises:
        IllegalAction: see :func:`check_play`; ``state`` is unchanged.
    """
    check_play(state, play)
    src = state.source_seat(play.player)
    hands = list(state.hands)
    hands[src] = _take(hands[src], play.cards)[0]
    pending = list(state.pending)
    pending[play.player] = play
    state = replace(state, hands=tuple(hands), pending=tuple(pending))
    if all(p is not None for p in pending):
        state = _resolve_turn(state)
    return state


def _is_seat_number(seat: object) -> bool:
    # bool is an int in Python, but True is no seat: a caller passing it has mixed up two values.
    return isinstance(seat, int) and not isinstance(seat, bool)


def _turn_plays(state: SushiGoState, plays: object) -> dict[int, Play]:
    """``plays`` checked as ``{seat: play}`` and converted to Plays, before any is applied."""
    if not isinstance(plays, Mapping):
        raise IllegalAction(
            f"a turn is {{seat: play}}, one entry per seat, each play {PLAY_SHAPE};"
            f" got {type(plays).__name__} {plays!r}",
            rule="play-shape",
            section=PLAYING,
        )
    out = {}
    for seat, value in plays.items():
        if not _is_seat_number(seat) or not 0 <= seat < state.seats:
            raise IllegalAction(
                f"there is no seat {seat!r}: a turn is keyed by seat number, 0 to {state.seats - 1}",
                rule="unknown-seat",
                section=PLAYING,
            )
        name = state.players[seat]
        try:
            out[seat] = Play(seat, value)
        except UnknownCard as exc:
            raise IllegalAction(f"{name}'s play: {exc}", player=name, rule="unknown-card", section=CONTENTS) from None
        except ValueError as exc:
            raise IllegalAction(f"{name}'s play: {exc}", player=name, rule="play-shape", section=PLAYING) from None
    return out


def apply_turn(state: SushiGoState, plays: Mapping[int, Sequence[Card | str] | Card | str]) -> SushiGoState:
    """Apply a whole turn ``{seat: play}`` atomically: if any play is illegal nothing changes.

    A play is a card name (or Card), or a sequence of 1 or 2 of them in the order taken, as in the
    ``companion score`` record: ``{0: "tempura", 1: ["squid_nigiri", "wasabi"]}``. ``plays`` must name
    every seat that has not chosen yet (the dummy too). Plays are applied in seat order, so in the dummy
    variant the controller's own choice is checked before the dummy's.

    Raises:
        IllegalAction: ``play-shape`` for a turn that is not a mapping or a play that is not a card
            name or a sequence of names, ``unknown-seat`` for a key that is not a seat number,
            ``unknown-card`` for a name that is no card, ``turn-incomplete`` if a waiting seat is
            missing, else the first illegal play (see :func:`check_play`).
    """
    checked = _turn_plays(state, plays)
    missing = [s for s in state.waiting_for() if s not in plays]
    if missing and not state.is_over:
        name = state.players[missing[0]]
        raise IllegalAction(
            f"{name} has not chosen a card this turn", player=name, rule="turn-incomplete", section=PLAYING
        )
    for seat in sorted(checked):
        state = apply(state, checked[seat])
    return state


def _place(tableau: list[Placed], card: Card, turn: int, same_turn_wasabi: bool) -> None:
    """Reveal ``card`` into ``tableau``; a nigiri must go on an open wasabi (sushi-go.txt, USING WASABI)."""
    if card.is_nigiri:
        for i, placed in enumerate(tableau):
            open_wasabi = placed.card is Card.WASABI and placed.nigiri is None
            if open_wasabi and (placed.turn < turn or (same_turn_wasabi and placed.turn == turn)):
                tableau[i] = replace(placed, nigiri=card, nigiri_turn=turn)
                return
    tableau.append(Placed(card, turn))


def _resolve_turn(state: SushiGoState) -> SushiGoState:
    """Reveal every pending play, return used chopsticks to the hands, then pass or end the round."""
    hands = [list(h) for h in state.hands]
    tableaux = []
    for seat, play in enumerate(state.pending):
        assert play is not None
        tableau = list(state.tableaux[seat])
        if len(play.cards) == 2:
            # The chopsticks used must be one played on an earlier turn (USING CHOPSTICKS); it goes into
            # the hand being passed on, where another player may take it again.
            used = next(i for i, p in enumerate(tableau) if p.card is Card.CHOPSTICKS and p.turn < state.turn)
            del tableau[used]
            hands[state.source_seat(seat)].append(Card.CHOPSTICKS)
        for card in play.cards:
            _place(tableau, card, state.turn, state.options.same_turn_wasabi_triples)
        tableaux.append(tuple(tableau))
    state = replace(
        state,
        hands=tuple(tuple(h) for h in hands),
        pending=(None,) * state.seats,
        tableaux=tuple(tableaux),
    )
    if state.turn < state.hand_size:
        return _start_turn(replace(state, turn=state.turn + 1, hands=_passed(state)))
    return _end_round(state)


def _passed(state: SushiGoState) -> tuple[tuple[Slot, ...], ...]:
    """Hands after passing: left is seat i to seat i+1; round 2 goes right with pass_both_ways
    (sushi-go.txt, VARIANT RULE). The dummy pile stays in place (TWO-PLAYER VARIANT)."""
    real = state.real_seats
    step = -1 if state.options.pass_both_ways and state.round == 2 else 1
    hands = list(state.hands)
    for i, seat in enumerate(real):
        hands[real[(i + step) % len(real)]] = state.hands[seat]
    return tuple(hands)


def _end_round(state: SushiGoState) -> SushiGoState:
    """Score the round, keep the puddings, discard the rest, then deal the next round or end the game.

    Source: sushi-go.txt, ENDING A ROUND and BEFORE STARTING A NEW ROUND.
    """
    # Every hand is empty after the last turn: the final card of each hand is always played.
    assert all(not h for h in state.hands) and not state.dummy_pile
    score = score_round(state.players, state.tableaux, state.round)
    discard = list(state.discard)
    puddings = list(state.puddings)
    for seat, tableau in enumerate(state.tableaux):
        for card in tableau_cards(tableau):
            if card is Card.PUDDING:
                puddings[seat] += 1
            else:
                discard.append(card)
    state = replace(
        state,
        discard=tuple(discard),
        puddings=tuple(puddings),
        round_scores=state.round_scores + (score,),
        round_tableaux=state.round_tableaux + (state.tableaux,),
    )
    if state.round < ROUNDS:
        return _deal(replace(state, round=state.round + 1))
    penalty = state.options.dummy_in_pudding_penalty if state.options.dummy else state.seats > 2
    result = final_result(
        state.players, state.round_scores, state.puddings, real_seats=state.real_seats, pudding_penalty=penalty
    )
    return replace(state, tableaux=((),) * state.seats, result=result)


class SushiGo:
    """The Sushi Go! engine as a :class:`~companion.rules.core.Game` (for bots and the simulator)."""

    name = "sushi-go"

    def legal_actions(self, state: SushiGoState) -> tuple[Play, ...]:
        """See :func:`legal_actions`."""
        return legal_actions(state)

    def apply(self, state: SushiGoState, action: Play) -> SushiGoState:
        """See :func:`apply`."""
        return apply(state, action)

    def is_over(self, state: SushiGoState) -> bool:
        """True once the game has been scored."""
        return state.is_over


SUSHI_GO = SushiGo()
