"""Sushi Roll values: options, actions, trays, token payouts and the immutable game state.

The state is a full description of the table: the dice bag (counts per die type), the die faces on each
conveyor belt, each tray, each player's tokens and the supply. Every one of the 30 dice is always in
exactly one of the bag, a belt or a tray, and every token is with a player or in the supply.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from enum import Enum
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from companion.rules.core import RoundScore
from companion.rules.errors import IllegalAction, MalformedGame
from companion.rules.sushi_roll.change import make_change
from companion.rules.sushi_roll.dice import DiceFaces, DieKind, Face, Icon, Tokens, as_face

if TYPE_CHECKING:  # the scoring module imports this one
    from companion.rules.sushi_roll.scoring import SushiRollResult

ROUNDS = 3
#: Dice on each conveyor belt by number of players (sushi-roll.txt, SET UP).
DICE_PER_BELT = {2: 8, 3: 7, 4: 6, 5: 5}
#: The pudding all-equal defaults (see SushiRollOptions.pudding_all_equal).
PUDDING_ALL_EQUAL_CHOICES = ("nobody", "most-and-fewest")


@dataclass(frozen=True)
class SushiRollOptions:
    """The points the rulebook leaves open, each a named option with a documented default.

    Attributes:
        pudding_all_equal: what happens when every player has the same number of pudding tokens.
            ``"nobody"`` (default): nobody gains or loses. The rulebook (sushi-roll.txt, ENDING THE GAME)
            does not say; Sushi Go! scores nothing in this case (sushi-go.txt, PUDDINGS) and
            ../shared/README.md asks for the same default, since a prize for "the most" is meaningless
            when nobody has more. ``"most-and-fewest"``: the literal reading — everyone ties for the most
            (+6) and for the fewest (-6, unless 2 players), so everyone nets 0, or +6 with 2 players.
    """

    pudding_all_equal: str = "nobody"

    def __post_init__(self) -> None:
        if self.pudding_all_equal not in PUDDING_ALL_EQUAL_CHOICES:
            raise ValueError(f"pudding_all_equal must be one of {', '.join(PUDDING_ALL_EQUAL_CHOICES)}")

    @classmethod
    def from_mapping(cls, data: Any, path: str = "options") -> SushiRollOptions:
        """Options from a JSON object such as ``{"pudding_all_equal": "nobody"}``.

        Raises:
            MalformedGame: naming ``path.key`` for an unknown option or a bad value.
        """
        if not isinstance(data, Mapping):
            raise MalformedGame(path, f"must be an object of options, got {type(data).__name__}")
        known = [f.name for f in fields(cls)]
        for key, value in data.items():
            if key not in known:
                raise MalformedGame(f"{path}.{key}", f"unknown option; valid options are: {', '.join(known)}")
            if value not in PUDDING_ALL_EQUAL_CHOICES:
                choices = " or ".join(repr(c) for c in PUDDING_ALL_EQUAL_CHOICES)
                raise MalformedGame(f"{path}.{key}", f"must be {choices}, got {value!r}")
        return cls(**dict(data))

    def to_dict(self) -> dict[str, Any]:
        """The options as a JSON object (the inverse of :meth:`from_mapping`)."""
        return {f.name: getattr(self, f.name) for f in fields(self)}


#: Rulebook sections of the actions (the engine cites the same ones).
PLAYING = "sushi-roll.txt, PLAYING A ROUND"
MENU = "sushi-roll.txt, EVERYBODY TAKES A TURN, Menu"
CHOPSTICKS = "sushi-roll.txt, EVERYBODY TAKES A TURN, Chopsticks"
KEEP = "sushi-roll.txt, EVERYBODY TAKES A TURN, 2 Choose 1 die to keep"


def shape_of(value: Any) -> str:
    """How an argument of the wrong shape reads in a message: ``the string 'AB'``, ``True (a bool)``,
    ``dict {'a': 1}`` (at most 80 characters)."""
    if isinstance(value, str):
        return f"the string {value[:40]!r}"
    if isinstance(value, bool):
        return f"{value} (a bool)"
    return f"{type(value).__name__} {value!r}"[:80]


def _refuse_shape(field: str, expected: str, value: Any, section: str) -> None:
    raise IllegalAction(f"{field} must be {expected}, got {shape_of(value)}", rule="action-shape", section=section)


def _seat(value: Any, field: str, section: str) -> int:
    # bool is an int in Python; True as a seat is a mistake, never seat 1.
    if type(value) is not int:
        _refuse_shape(field, "a seat number (an int, 0 for the first seat)", value, section)
    return value


def _face(value: Any, field: str, section: str) -> Face:
    if not isinstance(value, (Face, str)):
        _refuse_shape(field, "one face, such as 'maki*2'", value, section)
    try:
        return as_face(value)
    except ValueError as exc:
        raise IllegalAction(f"{field}: {exc}", rule="action-shape", section=section) from None


def _faces(values: Any, field: str, section: str) -> tuple[Face, ...]:
    # A str is a sequence too: "maki*2" would otherwise be read as the faces 'm', 'a', 'k'...
    if isinstance(values, str) or not isinstance(values, Sequence):
        _refuse_shape(field, "a sequence of faces, such as ('maki*2', 'tempura')", values, section)
    return tuple(_face(v, f"{field}[{i}]", section) for i, v in enumerate(values))


@dataclass(frozen=True)
class Roll:
    """Roll the dice on every belt: at the start of a round (drawing them from the bag first) or after
    the belts slide (sushi-roll.txt, PLAYING A ROUND and SLIDE AND ROLL). Nobody's turn: a chance action.

    ``faces`` gives what was rolled, one sequence of faces per seat (e.g. read by the camera), such as
    ``(("maki*2", "tempura", ...), ("wasabi", ...))``; the die types follow from the faces. ``None``
    draws the dice and their faces from the engine's ``random.Random``.

    Raises:
        IllegalAction: (rule ``action-shape``) ``faces`` is not a sequence of sequences of face names,
            e.g. one flat list or a string.
    """

    faces: tuple[tuple[Face, ...], ...] | None = None

    def __post_init__(self) -> None:
        if self.faces is not None:
            if isinstance(self.faces, str) or not isinstance(self.faces, Sequence):
                _refuse_shape("Roll.faces", "one sequence of faces per seat", self.faces, PLAYING)
            seats = tuple(_faces(seat, f"Roll.faces[{i}]", PLAYING) for i, seat in enumerate(self.faces))
            object.__setattr__(self, "faces", seats)


@dataclass(frozen=True)
class Menu:
    """Step 1, menu: return 1 menu token, then re-roll ``reroll`` (faces on your own belt).

    ``result`` optionally gives the new faces, position by position (same die types); ``None`` rolls
    them with the engine's ``random.Random``. Source: sushi-roll.txt, EVERYBODY TAKES A TURN.

    Raises:
        IllegalAction: (rule ``action-shape``) ``player`` is not an int (a bool is refused), or
            ``reroll``/``result`` is not a sequence of face names (a single string is refused:
            write ``("tempura",)``).
    """

    player: int
    reroll: tuple[Face, ...]
    result: tuple[Face, ...] | None = None

    def __post_init__(self) -> None:
        _seat(self.player, "Menu.player", MENU)
        object.__setattr__(self, "reroll", _faces(self.reroll, "Menu.reroll", MENU))
        if self.result is not None:
            object.__setattr__(self, "result", _faces(self.result, "Menu.result", MENU))


@dataclass(frozen=True)
class Chopsticks:
    """Step 1, chopsticks: return 1 chopsticks token, then swap ``mine`` (a face on your own belt) with
    ``theirs`` (a face on seat ``other``'s belt), faces unchanged. Never a die on a tray.
    Source: sushi-roll.txt, EVERYBODY TAKES A TURN.

    Raises:
        IllegalAction: (rule ``action-shape``) ``player`` or ``other`` is not an int, or ``mine`` or
            ``theirs`` is not one face name.
    """

    player: int
    mine: Face
    other: int
    theirs: Face

    def __post_init__(self) -> None:
        _seat(self.player, "Chopsticks.player", CHOPSTICKS)
        _seat(self.other, "Chopsticks.other", CHOPSTICKS)
        object.__setattr__(self, "mine", _face(self.mine, "Chopsticks.mine", CHOPSTICKS))
        object.__setattr__(self, "theirs", _face(self.theirs, "Chopsticks.theirs", CHOPSTICKS))


@dataclass(frozen=True)
class Take:
    """Step 2: move the die showing ``face`` from your own belt to your tray, face unchanged; this ends
    your turn. Source: sushi-roll.txt, EVERYBODY TAKES A TURN (2 Choose 1 die to keep).

    Raises:
        IllegalAction: (rule ``action-shape``) ``player`` is not an int, or ``face`` is not one face
            name.
    """

    player: int
    face: Face

    def __post_init__(self) -> None:
        _seat(self.player, "Take.player", KEEP)
        object.__setattr__(self, "face", _face(self.face, "Take.face", KEEP))


Action = Roll | Menu | Chopsticks | Take


@dataclass(frozen=True)
class TrayDie:
    """A die on a tray: its face, and for a wasabi die the nigiri die placed on top of it (or None)."""

    face: Face
    nigiri: Face | None = None

    @property
    def dice(self) -> tuple[Face, ...]:
        """The physical dice in this stack (a wasabi and its nigiri are two dice)."""
        return (self.face,) if self.nigiri is None else (self.face, self.nigiri)

    @property
    def is_open_wasabi(self) -> bool:
        return self.face.icon is Icon.WASABI and self.nigiri is None


#: One player's tray, dice in the order taken.
Tray = tuple[TrayDie, ...]


def place_on_tray(tray: Tray, face: Face) -> Tray:
    """``tray`` after taking ``face``: a nigiri must go on an open wasabi, one nigiri per wasabi die; it
    does not matter which (sushi-roll.txt, Nigiri and Wasabi), so the first one taken is used."""
    if face.is_nigiri:
        for i, placed in enumerate(tray):
            if placed.is_open_wasabi:
                return tray[:i] + (TrayDie(placed.face, face),) + tray[i + 1 :]
    return tray + (TrayDie(face),)


def tray_dice(tray: Tray) -> tuple[Face, ...]:
    """Every die on ``tray`` (a wasabi with a nigiri on it counts as two dice)."""
    return tuple(face for placed in tray for face in placed.dice)


class Phase(str, Enum):
    """What the game waits for: a ``Roll`` (chance), a player's turn, or nothing (the game is over)."""

    ROLL = "roll"
    TURN = "turn"
    OVER = "over"


@dataclass(frozen=True)
class Payout:
    """Scoring tokens moved for one line of points (the companion says which tokens to take).

    Attributes:
        seat: the player.
        round: the round (1-based), or GAME_END.
        points: the points scored (negative for the pudding penalty).
        taken: tokens the player takes from the supply.
        returned: tokens the player returns to the supply (change given back, or the penalty).
        short: points no trade could pay (the supply holds 253 points in all). The score keeps the
            points; only the tokens on the table fall short.
    """

    seat: int
    round: int | str
    points: int
    taken: Tokens
    returned: Tokens = Tokens()
    short: int = 0


POINT_VALUES = (20, 10, 5, 1)
PUDDING_VALUES = (3, 1)


def _point_counts(pile: Tokens) -> tuple[int, int, int, int]:
    return (pile.points_20, pile.points_10, pile.points_5, pile.points_1)


def _points(counts: Sequence[int]) -> Tokens:
    c20, c10, c5, c1 = counts
    return Tokens(points_20=c20, points_10=c10, points_5=c5, points_1=c1)


def pay_points(supply: Tokens, amount: int, held: Tokens = Tokens()) -> tuple[Tokens, Tokens]:
    """The scoring tokens a player takes and returns for scoring ``amount`` points (negative: losing
    them, the pudding penalty), moving the fewest tokens.

    When the supply lacks the exact tokens the player trades, as at the table: owed 5 with no 5-token
    left, they take a 10 and give back a 5 of their own (:func:`~companion.rules.sushi_roll.change.make_change`,
    the routine pudding tokens use too). Only when no trade pays ``amount`` exactly is the player paid
    the closest worth short of it; ``amount - (taken - returned)`` is then the shortfall.

    Args:
        supply: the tokens in the middle of the table.
        amount: the points scored (negative for a penalty).
        held: the player's own tokens (their change).

    Returns:
        ``(taken, returned)``: scoring tokens taken from the supply, and given back to it.

    Source: sushi-roll.txt, SCORING A ROUND ("takes scoring tokens equal to the points they scored")
    and ENDING THE GAME ("Take or return the corresponding points tokens").
    """
    take, give = make_change(amount, POINT_VALUES, _point_counts(supply), _point_counts(held))
    return _points(take), _points(give)


def take_puddings(supply: Tokens, puddings: int, held: Tokens = Tokens()) -> Tokens:
    """The pudding tokens a player gains (net) for ``puddings`` icons, moving the fewest tokens
    (sushi-roll.txt, EVERYBODY TAKES A TURN, Pudding).

    When the 1-tokens run out while a 3-token is left, the player takes the 3-token and gives back
    1-tokens of their own as change, as players do with any token money, so the count stays exact
    (the same routine as scoring tokens, :func:`~companion.rules.sushi_roll.change.make_change`).
    A player with no change still takes the 3-token: "In the rare case that the tokens run out, take
    what's available" (Note), and a 3-token is what is available. That is one or two puddings more
    than the icons, never the whole award lost.

    Returns:
        The net change to the player's tokens: a negative count is change given back.
    """
    counts = lambda pile: (pile.pudding_3, pile.pudding_1)  # noqa: E731
    take, give = make_change(puddings, PUDDING_VALUES, counts(supply), counts(held), over=True)
    return Tokens(pudding_3=take[0] - give[0], pudding_1=take[1] - give[1])


def tokens_for_face(supply: Tokens, face: Face, held: Tokens = Tokens()) -> Tokens:
    """The tokens taken at once with a die showing ``face``: pudding, menu or chopsticks tokens by the
    number of icons, or what the supply has left (sushi-roll.txt, EVERYBODY TAKES A TURN)."""
    if face.icon is Icon.PUDDING:
        return take_puddings(supply, face.count, held)
    if face.icon is Icon.MENU:
        return Tokens(menu=min(supply.menu, face.count))
    if face.icon is Icon.CHOPSTICKS:
        return Tokens(chopsticks=min(supply.chopsticks, face.count))
    return Tokens()


@dataclass(frozen=True)
class SushiRollState:
    """The whole Sushi Roll game at one moment. Build it with ``companion.rules.sushi_roll.new_game``;
    change it only with the engine's ``apply``.

    Attributes:
        players: seat names; a belt slides from seat i to seat i+1 ("to the left").
        options: the open points in force.
        dice: the faces of each die type.
        round: the round being played, 1..3 (3 once the game is over).
        phase: ROLL (waiting for the dice on the belts to be rolled), TURN or OVER.
        red_seat: the seat holding the red-bordered belt, who starts each cycle of turns.
        turns_taken: players who have taken their die in this cycle (turn order starts at red_seat).
        bag: dice of each DieKind in the bag, in DieKind order.
        belts: the die faces on the belt in front of each seat, sorted. Between a slide and the Roll
            they still show the faces they were passed with.
        trays: each seat's tray this round.
        tokens: each seat's tokens.
        supply: the tokens in the middle of the table.
        round_scores: one RoundScore per finished round.
        round_trays: the final trays of each finished round.
        payouts: every scoring-token payout so far, in order.
        result: the final result once the game is over, else None.
    """

    players: tuple[str, ...]
    options: SushiRollOptions
    dice: DiceFaces
    round: int
    phase: Phase
    red_seat: int
    turns_taken: int
    bag: tuple[int, ...]
    belts: tuple[tuple[Face, ...], ...]
    trays: tuple[Tray, ...]
    tokens: tuple[Tokens, ...]
    supply: Tokens
    round_scores: tuple[RoundScore, ...] = ()
    round_trays: tuple[tuple[Tray, ...], ...] = ()
    payouts: tuple[Payout, ...] = ()
    result: SushiRollResult | None = None

    @property
    def seats(self) -> int:
        return len(self.players)

    @property
    def dice_per_belt(self) -> int:
        """Dice drawn onto each belt at the start of a round (sushi-roll.txt, SET UP)."""
        return DICE_PER_BELT[self.seats]

    @property
    def is_over(self) -> bool:
        return self.phase is Phase.OVER

    @property
    def current_player(self) -> int | None:
        """The seat whose turn it is, or None while the dice wait to be rolled or the game is over."""
        if self.phase is not Phase.TURN:
            return None
        return (self.red_seat + self.turns_taken) % self.seats

    @property
    def turn(self) -> int:
        """The turn of the round (1-based): the dice taken this round so far, plus one; a round
        of 3 players with 7 dice each has turns 1 to 21 (the trays are cleared when it is scored,
        so a new round, or a finished game, is at turn 1)."""
        return sum(len(tray_dice(t)) for t in self.trays) + 1

    def has_taken(self, seat: int) -> bool:
        """True if ``seat`` has already taken its die in this cycle of turns."""
        return self.phase is Phase.TURN and (seat - self.red_seat) % self.seats < self.turns_taken

    def dice_count(self) -> dict[DieKind, int]:
        """Dice of each type in the bag, on the belts and on the trays together (always DICE_COUNTS)."""
        counts = dict(zip(DieKind, self.bag))
        for belt in self.belts:
            for face in belt:
                counts[face.kind] += 1
        for tray in self.trays:
            for face in tray_dice(tray):
                counts[face.kind] += 1
        return counts

    def all_tokens(self) -> Tokens:
        """Every token: the players' and the supply's (always FULL_SUPPLY)."""
        total = self.supply
        for pile in self.tokens:
            total = total + pile
        return total

