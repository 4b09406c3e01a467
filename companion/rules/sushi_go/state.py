"""Sushi Go! values: options, actions, tableaux and the immutable game state.

A card slot is a :class:`Card` or :data:`UNSEEN` (``None``). A full-information game (simulator, bots)
knows every slot; an observed game (camera replay, ``companion score``) starts with every slot unseen
and learns a card when it is revealed on the table. The same engine runs both, so both are held to the
same rules and the same card accounting (108 slots, always).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields
from typing import Any, Mapping

from companion.rules.core import GameResult, RoundScore
from companion.rules.errors import MalformedGame
from companion.rules.sushi_go.cards import Card, parse_card

TWO_PLAYER = "sushi-go-with-variants.txt, TWO-PLAYER VARIANT"
#: The shape of one player's play, for messages (the ``companion score`` record's own shape).
PLAY_SHAPE = "a card name, or a list of 2 card names in the order taken (a chopsticks turn)"

#: A card nobody has seen yet (observed games).
UNSEEN = None
Slot = Card | None

ROUNDS = 3
#: Hand size by number of players (sushi-go.txt, STARTING A ROUND).
HAND_SIZES = {2: 10, 3: 9, 4: 8, 5: 7}
#: The two-player variant deals 3 hands of 9 (sushi-go-with-variants.txt, TWO-PLAYER VARIANT).
DUMMY_HAND_SIZE = 9
DUMMY_NAME = "Dummy"
#: The dummy's seat in the two-player variant.
DUMMY_SEAT = 2


@dataclass(frozen=True)
class SushiGoOptions:
    """The variants and the points the rulebooks leave open, each with a documented default.

    Attributes:
        same_turn_wasabi_triples: a nigiri taken with chopsticks in the same turn as a wasabi, after it,
            goes on that wasabi. Default False: the rule says the nigiri goes on a wasabi the player
            "already has" in front of them (sushi-go.txt, USING WASABI), and a card taken this turn is
            not in front of them until the reveal, so the wasabi stays open for a later nigiri.
        pass_both_ways: round 2 passes hands to the right (sushi-go.txt, VARIANT RULE, PASS BOTH WAYS).
            Default False: the base game always passes left.
        dummy: the two-player variant with a third "dummy" player (sushi-go-with-variants.txt,
            TWO-PLAYER VARIANT). Default False. Needs exactly 2 players; the dummy sits at seat 2 and
            is named "Dummy". It scores as a third player but can never be a winner: winners are among
            the real players, because the dummy is a device, not a participant.
        dummy_uses_chopsticks: the controller may take 2 cards for the dummy with a chopsticks card the
            dummy played earlier (that chopsticks then goes into the controller's hand). Default False:
            the variant only says the controller chooses "1 for the dummy player", so the dummy's
            chopsticks are dead cards (worth nothing, as any chopsticks).
        dummy_in_pudding_penalty: the dummy counts as a third player for puddings, so the fewest-puddings
            penalty applies ("scoring as per normal rules" with three players). Default True. When
            False the game is scored as a 2-player game: nobody loses points for puddings
            (sushi-go.txt, PUDDINGS, NOTE), though the dummy can still have the most.
        first_dummy_controller: the seat (0 or 1) controlling the dummy on the first turn of the game.
            Control then alternates every turn through all three rounds ("take turns controlling the
            dummy pile"; the rulebook does not restart it per round). Default 0.
    """

    same_turn_wasabi_triples: bool = False
    pass_both_ways: bool = False
    dummy: bool = False
    dummy_uses_chopsticks: bool = False
    dummy_in_pudding_penalty: bool = True
    first_dummy_controller: int = 0

    def __post_init__(self) -> None:
        """Raises ValueError naming the option and the value, for a value of another type than the
        option's default (``True`` is not seat 1, nor ``1`` true) or a controller seat other than 0 or 1."""
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name == "first_dummy_controller":
                if type(value) is not int or value not in (0, 1):
                    raise ValueError(f"first_dummy_controller must be seat 0 or 1, got {value!r} ({TWO_PLAYER})")
            elif type(value) is not bool:
                raise ValueError(f"option {f.name} must be True or False, got {value!r}")

    @classmethod
    def from_mapping(cls, data: Any, path: str = "options") -> SushiGoOptions:
        """Options from a JSON object such as ``{"dummy": true}``.

        Raises:
            MalformedGame: naming ``path.key`` for an unknown option or a value of the wrong type.
        """
        if not isinstance(data, Mapping):
            raise MalformedGame(path, f"must be an object of options, got {type(data).__name__}")
        known = {f.name: f for f in fields(cls)}
        values: dict[str, Any] = {}
        for key, value in data.items():
            if key not in known:
                raise MalformedGame(f"{path}.{key}", f"unknown option; valid options are: {', '.join(known)}")
            want = int if key == "first_dummy_controller" else bool
            if type(value) is not want or (want is int and value not in (0, 1)):
                expected = "0 or 1" if want is int else "true or false"
                raise MalformedGame(f"{path}.{key}", f"must be {expected}, got {value!r}")
            values[key] = value
        return cls(**values)

    def to_dict(self) -> dict[str, Any]:
        """The options as a JSON object (the inverse of :meth:`from_mapping`)."""
        return {f.name: getattr(self, f.name) for f in fields(self)}


@dataclass(frozen=True)
class Play:
    """One player's choice for a turn: 1 card, or 2 cards (a chopsticks turn) in the order taken.

    ``player`` is the seat. In the dummy variant the dummy's card is ``Play(DUMMY_SEAT, ...)``, chosen by
    the controller from the controller's hand. Card names (strings) are accepted and converted, and a
    single card or name is the one-card play (``Play(0, "tempura")``, the record's own shape). How many
    cards a turn may take is the engine's check (``check_play``), not this one.

    Raises:
        ValueError: ``cards`` is not a card, a name or a sequence of them (naming :data:`PLAY_SHAPE`);
            UnknownCard (a ValueError) for a name that is not a card.
    """

    player: int
    cards: tuple[Card, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "cards", play_cards(self.cards))


def play_cards(value: Any) -> tuple[Card, ...]:
    """The cards of one play: a Card or card name is one card; a sequence holds the cards in order.

    Raises:
        ValueError: naming :data:`PLAY_SHAPE` for anything else (a number, None, bytes, a mapping, a
            sequence holding a non-name); UnknownCard (a ValueError) for a name that is not a card.
    """
    if isinstance(value, str):  # a Card is a str too
        items: tuple[Any, ...] = (value,)
    elif isinstance(value, Sequence) and not isinstance(value, (bytes, bytearray)):
        items = tuple(value)
    else:
        raise ValueError(f"a play is {PLAY_SHAPE}, got {type(value).__name__} {value!r}")
    for item in items:
        if not isinstance(item, str):
            raise ValueError(f"a play is {PLAY_SHAPE}; {item!r} is not a card name")
    return tuple(c if isinstance(c, Card) else parse_card(c) for c in items)


@dataclass(frozen=True)
class Placed:
    """A card face up in front of a player.

    Attributes:
        card: the card.
        turn: the turn of the round (1-based) on which it was revealed.
        nigiri: for a wasabi, the nigiri placed on it (None while the wasabi is open).
        nigiri_turn: the turn that nigiri was revealed.
    """

    card: Card
    turn: int
    nigiri: Card | None = None
    nigiri_turn: int | None = None

    @property
    def cards(self) -> tuple[Card, ...]:
        """The physical cards in this pile: the card, plus a nigiri on a wasabi."""
        return (self.card,) if self.nigiri is None else (self.card, self.nigiri)


#: One player's cards in front of them this round, in the order revealed.
Tableau = tuple[Placed, ...]


def tableau_cards(tableau: Tableau) -> tuple[Card, ...]:
    """Every physical card in ``tableau`` (a wasabi and its nigiri are two cards)."""
    return tuple(card for placed in tableau for card in placed.cards)


@dataclass(frozen=True)
class SushiGoState:
    """The whole Sushi Go! game at one moment. Build it with ``companion.rules.sushi_go.new_game`` or
    ``new_observed_game``; change it only with the engine's ``apply``.

    Attributes:
        players: seat names; in the dummy variant seat 2 is "Dummy".
        options: the variants in force.
        round: the round being played, 1..3 (3 once the game is over).
        turn: the turn being played in this round, 1..hand_size (the last turn once the game is over).
        deck: the draw pile, top first.
        hands: the hand each seat holds now; the dummy's entry is always empty (it has a pile instead).
        dummy_pile: the dummy's face-down pile, top first (empty outside the dummy variant).
        pending: the play each seat has chosen this turn, face down, or None. Chosen cards have already
            left the hand; they are revealed into the tableaux when every seat has chosen.
        tableaux: the cards in front of each seat this round.
        discard: cards discarded at the end of earlier rounds (everything but puddings).
        puddings: pudding cards each seat has kept from earlier rounds.
        round_scores: one RoundScore per finished round.
        round_tableaux: the final tableaux of each finished round (for displays and replays).
        result: the final result once the game is over, else None.
    """

    players: tuple[str, ...]
    options: SushiGoOptions
    round: int
    turn: int
    deck: tuple[Slot, ...]
    hands: tuple[tuple[Slot, ...], ...]
    dummy_pile: tuple[Slot, ...]
    pending: tuple[Play | None, ...]
    tableaux: tuple[Tableau, ...]
    discard: tuple[Card, ...]
    puddings: tuple[int, ...]
    round_scores: tuple[RoundScore, ...] = ()
    round_tableaux: tuple[tuple[Tableau, ...], ...] = ()
    result: GameResult | None = None

    @property
    def is_over(self) -> bool:
        """True once the third round and the puddings have been scored."""
        return self.result is not None

    @property
    def seats(self) -> int:
        """Number of seats that play each turn, the dummy included."""
        return len(self.players)

    @property
    def real_seats(self) -> tuple[int, ...]:
        """The seats of real players (every seat but the dummy)."""
        return tuple(s for s in range(self.seats) if not (self.options.dummy and s == DUMMY_SEAT))

    @property
    def hand_size(self) -> int:
        """Cards dealt per hand, which is also the number of turns per round."""
        return DUMMY_HAND_SIZE if self.options.dummy else HAND_SIZES[self.seats]

    @property
    def controller(self) -> int | None:
        """The seat controlling the dummy this turn (dummy variant), else None."""
        if not self.options.dummy:
            return None
        turns_before = (self.round - 1) * self.hand_size + (self.turn - 1)
        return (self.options.first_dummy_controller + turns_before) % 2

    @property
    def observed(self) -> bool:
        """True when some card in the game has not been seen (an observed game)."""
        return UNSEEN in self.deck or any(UNSEEN in h for h in self.hands) or UNSEEN in self.dummy_pile

    def waiting_for(self) -> tuple[int, ...]:
        """Seats that have not chosen yet this turn (empty once the game is over)."""
        if self.is_over:
            return ()
        return tuple(s for s, p in enumerate(self.pending) if p is None)

    def source_seat(self, seat: int) -> int:
        """The seat whose hand ``seat`` takes its cards from: its own, or the controller's for the dummy."""
        if self.options.dummy and seat == DUMMY_SEAT:
            return self.controller  # type: ignore[return-value]
        return seat
