"""Sushi Express values: components, options, actions and the immutable game state.

Source: ../shared/rules/sushi-express.txt (CONTENTS, PREPARATION, PLAYING THE GAME, THE ACTION CARDS).

The ring of tiles is numbered clockwise from Sushi Express (tile 0); the park is opposite it (tile 6)
and tiles 1–5 and 7–11 are the houses (PREPARATION: "the park and Sushi Express opposite each other
and five house tiles between them on each side"). The guess board has the spaces 2 to 12; a space
holds a stack of guess markers, bottom first (THE ACTION CARDS, Same guess).
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from enum import Enum
from typing import Any, Mapping

from companion.rules.errors import MalformedGame
from companion.rules.sushi_express.customers import TIP_CARDS, load_customers

CONTENTS = "sushi-express.txt, CONTENTS"
PREPARATION = "sushi-express.txt, PREPARATION"
PLAYING = "sushi-express.txt, PLAYING THE GAME"
PHASE_1 = "sushi-express.txt, 1. place guesses"
PHASE_2 = "sushi-express.txt, 2. roll dice"
PHASE_3 = "sushi-express.txt, 3. move delivery vans"
SUSHI_EXPRESS_SECTION = "sushi-express.txt, 3. move delivery vans, Sushi Express"
PARK_SECTION = "sushi-express.txt, 3. move delivery vans, Park"
PHASE_4 = "sushi-express.txt, 4. make deliveries"
GAME_END_SECTION = "sushi-express.txt, GAME END"
SCORING = "sushi-express.txt, SCORING"
ACTION_CARDS = "sushi-express.txt, THE ACTION CARDS"
SAME_GUESS_SECTION = "sushi-express.txt, THE ACTION CARDS, Same guess"
EXCHANGE_SECTION = "sushi-express.txt, THE ACTION CARDS, Place exchange"
REROLL_SECTION = "sushi-express.txt, THE ACTION CARDS, Re-roll"
FURTHER_SECTION = "sushi-express.txt, THE ACTION CARDS, 1 tile further"

MIN_PLAYERS, MAX_PLAYERS = 3, 6
#: The ring: 12 tiles, Sushi Express at 0 and the park opposite it (PREPARATION).
TILES = 12
SUSHI_EXPRESS = 0
PARK = 6
#: The guess board's spaces (1. place guesses: "a number between 2 and 12").
LOWEST_GUESS, HIGHEST_GUESS = 2, 12
GUESS_NUMBERS = tuple(range(LOWEST_GUESS, HIGHEST_GUESS + 1))
DIE_FACES = (1, 2, 3, 4, 5, 6)
TRIES = 2


class ActionCard(str, Enum):
    """An action card (THE ACTION CARDS). The value is the name used in files and logs."""

    SAME_GUESS = "same_guess"
    PLACE_EXCHANGE = "place_exchange"
    RE_ROLL = "re_roll"
    TILE_FURTHER = "tile_further"
    TIP = "tip"

    def __str__(self) -> str:
        return self.value

    @property
    def label(self) -> str:
        """The name printed on the card, e.g. ``"1 tile further"``."""
        return _ACTION_LABELS[self]


_ACTION_LABELS = {
    ActionCard.SAME_GUESS: "same guess",
    ActionCard.PLACE_EXCHANGE: "place exchange",
    ActionCard.RE_ROLL: "re-roll",
    ActionCard.TILE_FURTHER: "1 tile further",
    ActionCard.TIP: "tip",
}

#: The 28 action cards (THE ACTION CARDS: 12 + 4 + 4 + 6 + 2; CONTENTS: "28 action cards").
ACTION_COUNTS: dict[ActionCard, int] = {
    ActionCard.SAME_GUESS: 12,
    ActionCard.PLACE_EXCHANGE: 4,
    ActionCard.RE_ROLL: 4,
    ActionCard.TILE_FURTHER: 6,
    ActionCard.TIP: 2,
}
#: Every player starts with these two (PREPARATION).
STARTING_HAND = (ActionCard.TILE_FURTHER, ActionCard.SAME_GUESS)


class _CustomerBase(str, Enum):
    """A customer card: one of the 8 customers, or a tip card (CONTENTS). The value is the name used in
    files and logs."""

    def __str__(self) -> str:
        return self.value

    @property
    def label(self) -> str:
        """The human name, e.g. ``"light blue"`` (the data file's ``label``)."""
        return _CUSTOMER_INFO[self.value].label if self.value in _CUSTOMER_INFO else self.value

    @property
    def rgb(self) -> tuple[int, int, int]:
        """The card's colour on the screen (the data file's ``colour``; tips are gold)."""
        return _CUSTOMER_INFO[self.value].rgb if self.value in _CUSTOMER_INFO else TIP_RGB


_CUSTOMER_INFO = {c.name: c for c in load_customers()}
#: Tip cards on the screen.
TIP_RGB = (212, 175, 55)

#: A customer card (CONTENTS). The customers are data, ``companion/data/sushi_express_customers.toml``,
#: marked "check against your box": the rulebook names only light blue, dark blue, rose and violet
#: (SCORING, example). Members are the names upper-cased (``Customer.LIGHT_BLUE``) plus ``Customer.TIP``.
Customer = _CustomerBase("Customer", [(c.name.upper(), c.name) for c in load_customers()] + [("TIP", "tip")])


#: The customer colours (every customer card but the tips).
COLOURS: tuple[Customer, ...] = tuple(c for c in Customer if c is not Customer.TIP)

#: The 36 customer cards (CONTENTS: "8 each of light blue and dark blue, 2 each of the others, and 8
#: tip cards").
CUSTOMER_COUNTS: dict[Customer, int] = {c: _CUSTOMER_INFO[c.value].cards for c in COLOURS} | {Customer.TIP: TIP_CARDS}


def parse_customer(name: str) -> Customer:
    """The Customer called ``name`` (``"light_blue"``; ``"light blue"`` is accepted too).

    Raises:
        ValueError: naming the unknown customer (or a name that is not a string) and listing the valid
            names.
    """
    if not isinstance(name, str):
        valid = ", ".join(c.value for c in Customer)
        raise ValueError(f"a customer is named by a string, got {name!r}; valid customers are: {valid}")
    try:
        return Customer(name.strip().lower().replace(" ", "_").replace("-", "_"))
    except ValueError:
        valid = ", ".join(c.value for c in Customer)
        raise ValueError(f"unknown customer {name!r}; valid customers are: {valid}") from None


def _option_problem(name: str, value: Any, seats: int | None) -> str | None:
    """What is wrong with ``value`` for the option ``name`` (None when nothing is), so that the engine
    (:class:`SushiExpressOptions`, :func:`~companion.rules.sushi_express.engine.new_game`) and the record
    check (:meth:`SushiExpressOptions.from_mapping`) refuse exactly the same values.

    ``seats``: the number of players when known; ``first_player`` must then be one of their seats.
    """
    if name == "first_player":
        limit = MAX_PLAYERS if seats is None else seats
        if type(value) is not int or not 0 <= value < limit:
            game = f"a {seats}-player game has seats" if seats is not None else "seats are"
            return (
                f"must be the seat that guesses first, a whole number: {game} 0 to {limit - 1}, got {value!r}"
                f" ({PREPARATION})"
            )
        return None
    if type(value) is not bool:
        return f"must be true or false, got {value!r}"
    return None


@dataclass(frozen=True)
class SushiExpressOptions:
    """The points the rulebook leaves open, each a named option with a documented default.

    Attributes:
        equal_tips_penalty: when every player has the same number of tips, each of them has "the fewest"
            and would lose the most (SCORING). Default False: nobody loses points (shared/README.md).
            The penalty exists to punish the player who collected fewer tips than the others; when
            nobody did, there is no such player, just as Sushi Go! gives no pudding points when all
            are equal.
        first_player: the seat that guesses first in round 1. The rulebook leaves the choice to the
            players ("using whatever method they prefer", PREPARATION). Default 0. It must be a seat of
            the game: :meth:`check_seats` (called by ``new_game`` and by the record check).

    Raises:
        ValueError: on construction, naming the option, for ``equal_tips_penalty`` not a bool or
            ``first_player`` not an int from 0 to 5 (a bool is not a seat).
    """

    equal_tips_penalty: bool = False
    first_player: int = 0

    def __post_init__(self) -> None:
        for f in fields(self):
            problem = _option_problem(f.name, getattr(self, f.name), None)
            if problem:
                raise ValueError(f"option {f.name} {problem}")

    def check_seats(self, seats: int) -> None:
        """Check the options against a game of ``seats`` players; return None if they fit.

        Raises:
            ValueError: when ``first_player`` is not one of the seats 0 to ``seats - 1`` (PREPARATION).
        """
        problem = _option_problem("first_player", self.first_player, seats)
        if problem:
            raise ValueError(f"option first_player {problem}")

    @classmethod
    def from_mapping(cls, data: Any, path: str = "options", seats: int | None = None) -> SushiExpressOptions:
        """Options from a JSON object such as ``{"equal_tips_penalty": true}``, checked exactly as the
        engine checks them; with ``seats`` (the number of players) also against the game's seats.

        Raises:
            MalformedGame: naming ``path.key`` for an unknown option, a value of the wrong type, or a
                ``first_player`` that is not a seat of the game.
        """
        if not isinstance(data, Mapping):
            raise MalformedGame(path, f"must be an object of options, got {type(data).__name__}")
        known = {f.name for f in fields(cls)}
        values: dict[str, Any] = {}
        for key, value in data.items():
            if key not in known:
                raise MalformedGame(f"{path}.{key}", f"unknown option; valid options are: {', '.join(sorted(known))}")
            problem = _option_problem(key, value, seats)
            if problem:
                raise MalformedGame(f"{path}.{key}", problem)
            values[key] = value
        return cls(**values)

    def to_dict(self) -> dict[str, Any]:
        """The options as a JSON object (the inverse of :meth:`from_mapping`)."""
        return {f.name: getattr(self, f.name) for f in fields(self)}


class Phase(str, Enum):
    """The four phases of a round (PLAYING THE GAME), and the end of the game."""

    GUESS = "place guesses"
    ROLL = "roll dice"
    MOVE = "move delivery vans"
    DELIVER = "make deliveries"
    OVER = "game over"

    def __str__(self) -> str:
        return self.value


# --- Actions. Every action names the seat that takes it (``player``). ---------------------------------


@dataclass(frozen=True)
class Guess:
    """Phase 1, your own turn: place your guess marker on ``number`` (an int, 2–12). With ``same_guess``
    (a bool) the "same guess" card is played and the marker goes on top of the stack already on that
    number (1. place guesses; THE ACTION CARDS, Same guess). Placing the marker does not end your turn:
    you may still play "place exchange", then :class:`EndTurn`."""

    player: int
    number: int
    same_guess: bool = False


@dataclass(frozen=True)
class Exchange:
    """Phase 1, on your own turn, before or after placing your marker: play "place exchange" to swap
    the stacks on the neighbouring spaces ``a`` and ``b`` (ints, 2–12) (THE ACTION CARDS: "On a
    player's turn, he can play as many action cards as he has in his hand ... in the appropriate
    phase"; Place exchange: "In phase 1").

    A swap is the same whichever space is named first, so the pair is stored lowest first: the
    action ``legal_actions`` lists and the one a player names are then equal values.
    """

    player: int
    a: int
    b: int

    def __post_init__(self) -> None:
        if isinstance(self.a, int) and isinstance(self.b, int) and self.a > self.b:
            a, b = self.b, self.a
            object.__setattr__(self, "a", a)
            object.__setattr__(self, "b", b)


@dataclass(frozen=True)
class EndTurn:
    """Phase 1: end your turn, after placing your marker and playing any "place exchange" cards (the
    panel's OK). The last player's EndTurn ends phase 1, so every player, the last included, can
    exchange after placing (1. place guesses; THE ACTION CARDS: "On a player's turn, he can play as
    many action cards as he has")."""

    player: int


@dataclass(frozen=True)
class Roll:
    """Phase 2: one try with both dice (2. roll dice). ``faces`` are the two faces shown (e.g. read by
    the camera); None lets the engine roll them with the injected ``random.Random``."""

    player: int
    faces: tuple[int, int] | None = None

    def __post_init__(self) -> None:
        # Faces often arrive as a JSON list or a camera's list; a roll is the same value either way.
        if isinstance(self.faces, list):
            object.__setattr__(self, "faces", tuple(self.faces))


@dataclass(frozen=True)
class ReRoll:
    """Phase 2, right after a try that failed: play "re-roll" to roll die ``die`` (0 or 1) again
    (THE ACTION CARDS, Re-roll). ``face`` is the new face, or None to roll it with the RNG."""

    player: int
    die: int
    face: int | None = None


@dataclass(frozen=True)
class AcceptRoll:
    """Phase 2: keep a failed second try without playing (another) "re-roll". Needed only while the
    roller still holds a re-roll card; without one the failure is taken at once."""

    player: int


@dataclass(frozen=True)
class Move:
    """Phase 3: move your van by your guess plus ``further`` (the number of "1 tile further" cards
    played). ``take`` is the customer card taken from the display when the van reaches or passes
    Sushi Express and the display is not empty; otherwise it must be None (3. move delivery vans)."""

    player: int
    further: int = 0
    take: Customer | None = None

    def __post_init__(self) -> None:
        # A name such as "rose" is the customer; a name that is no customer is left as given, so that
        # the engine refuses it (IllegalAction naming the valid customers) like any other illegal move.
        if isinstance(self.take, str) and not isinstance(self.take, Customer):
            try:
                object.__setattr__(self, "take", parse_customer(self.take))
            except ValueError:
                pass


@dataclass(frozen=True)
class Deliver:
    """Phase 4: the lowest guess keeps (``keep=True``) or discards every card left in the display
    (4. make deliveries). Asked only when somebody moved and the display is not empty."""

    player: int
    keep: bool


Action = Guess | Exchange | EndTurn | Roll | ReRoll | AcceptRoll | Move | Deliver


@dataclass(frozen=True)
class SushiExpressState:
    """The whole game at one moment. Build it with ``companion.rules.sushi_express.new_game``; change it
    only with the engine's ``apply``.

    Attributes:
        players: seat names; seat i+1 sits clockwise of seat i.
        options: the options in force.
        round: the round being played (1-based).
        phase: the phase being played.
        start_player: the seat that guessed first this round.
        guess_turn: phase 1: how many players have ended their phase-1 turn this round (:class:`EndTurn`);
            the current player has placed their marker when it is on the board.
        board: the guess board, ``board[n - 2]`` is the stack on number n, bottom first. Markers leave it
            after a failed roll (phase 2) or a move (phase 3).
        guesses: each seat's guess this round, fixed when phase 1 ends (None before).
        order: phases 2–4: every seat, highest guess first, a stack from top to bottom.
        tries: phase 2: the tries the current roller has used (0–2).
        dice: phase 2: the faces of the current try, or None before the roller's first try.
        anyone_moved: whether a roll succeeded this round (so some vans moved).
        vans: the tile of each seat's van.
        has_moved: whether each van has moved this game (only unmoved vans share a tile).
        hands: each seat's action cards.
        collected: each seat's customer cards, in the order taken.
        action_supply: the action card supply, top first.
        customer_supply: the customer card supply, top first.
        display: the customer card display.
        customer_discard: customer cards discarded from the display.
        played_actions: action cards played (out of the game: "discarded from the game").
        result: the final result once the game is over, else None.
    """

    players: tuple[str, ...]
    options: SushiExpressOptions
    round: int
    phase: Phase
    start_player: int
    guess_turn: int
    board: tuple[tuple[int, ...], ...]
    guesses: tuple[int | None, ...]
    order: tuple[int, ...]
    tries: int
    dice: tuple[int, int] | None
    anyone_moved: bool
    vans: tuple[int, ...]
    has_moved: tuple[bool, ...]
    hands: tuple[tuple[ActionCard, ...], ...]
    collected: tuple[tuple[Customer, ...], ...]
    action_supply: tuple[ActionCard, ...]
    customer_supply: tuple[Customer, ...]
    display: tuple[Customer, ...]
    customer_discard: tuple[Customer, ...] = ()
    played_actions: tuple[ActionCard, ...] = ()
    result: Any = None  # SushiExpressResult (kept untyped here to avoid an import cycle)

    @property
    def is_over(self) -> bool:
        """True once the game has ended and been scored."""
        return self.phase is Phase.OVER

    @property
    def seats(self) -> int:
        return len(self.players)

    def stack(self, number: int) -> tuple[int, ...]:
        """The seats whose markers are on ``number``, bottom first."""
        return self.board[number - LOWEST_GUESS]

    def marker_number(self, seat: int) -> int | None:
        """The number ``seat``'s marker is on now, or None when it is not on the board."""
        for i, stack in enumerate(self.board):
            if seat in stack:
                return i + LOWEST_GUESS
        return None

    def on_board(self) -> tuple[int, ...]:
        """Seats with a marker on the board, highest number first, a stack from top to bottom
        (Same guess: "in the sequence from top to bottom")."""
        return tuple(seat for stack in reversed(self.board) for seat in reversed(stack))

    @property
    def current(self) -> int | None:
        """The seat expected to act now, or None once the game is over."""
        if self.phase is Phase.GUESS:
            return (self.start_player + self.guess_turn) % self.seats
        if self.phase in (Phase.ROLL, Phase.MOVE):
            return self.on_board()[0]
        if self.phase is Phase.DELIVER:
            return self.lowest
        return None

    @property
    def lowest(self) -> int | None:
        """The seat with the lowest guess this round (phases 2–4): the last in ``order``, i.e. the
        bottom of the lowest stack, because a stack plays from top to bottom."""
        return self.order[-1] if self.order else None

    def tips(self, seat: int) -> int:
        """Tips of ``seat``: tip customer cards plus tip action cards (THE ACTION CARDS, Tip)."""
        return self.collected[seat].count(Customer.TIP) + self.hands[seat].count(ActionCard.TIP)

    def actions_left(self, seat: int) -> int:
        """Action cards in ``seat``'s hand, tip cards not counted (the tie-break, SCORING)."""
        return sum(1 for c in self.hands[seat] if c is not ActionCard.TIP)
