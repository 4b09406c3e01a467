"""Sushi Roll components: icons, die faces, die types and their faces, and the token supply.

Source: sushi-roll.txt, CONTENTS (30 dice: 10 appetizer, 6 maki, 5 nigiri, 5 specials, 4 pudding; the
token supply). The rulebook never lists the six faces of each die (each tray prints a guide), so the
faces are data: ``companion/data/sushi_roll_dice.toml``, marked "verify against your tray's guide".
Which icons each die type shows is known (../shared/README.md), so an icon always tells the die type;
the loader refuses a faces file that breaks that.
"""

from __future__ import annotations

import random
import tomllib
from dataclasses import dataclass
from enum import Enum
from functools import lru_cache
from importlib import resources
from typing import Any, Mapping

CONTENTS = "sushi-roll.txt, CONTENTS"
DICE_FILE = "companion/data/sushi_roll_dice.toml"


class Icon(str, Enum):
    """One icon printed on a die face. The value is the name used in files and on the wire."""

    DUMPLING = "dumpling"
    TEMPURA = "tempura"
    SASHIMI = "sashimi"
    MAKI = "maki"
    EGG_NIGIRI = "egg_nigiri"
    SALMON_NIGIRI = "salmon_nigiri"
    SQUID_NIGIRI = "squid_nigiri"
    WASABI = "wasabi"
    CHOPSTICKS = "chopsticks"
    MENU = "menu"
    PUDDING = "pudding"

    def __str__(self) -> str:
        return self.value


class DieKind(str, Enum):
    """A die type (its colour is in the faces file)."""

    APPETIZER = "appetizer"
    MAKI = "maki"
    NIGIRI = "nigiri"
    SPECIALS = "specials"
    PUDDING = "pudding"

    def __str__(self) -> str:
        return self.value


#: Dice of each type in the game (sushi-roll.txt, CONTENTS).
DICE_COUNTS: dict[DieKind, int] = {
    DieKind.APPETIZER: 10,
    DieKind.MAKI: 6,
    DieKind.NIGIRI: 5,
    DieKind.SPECIALS: 5,
    DieKind.PUDDING: 4,
}
TOTAL_DICE = sum(DICE_COUNTS.values())

#: The die type that shows each icon (../shared/README.md: what is known of the faces).
ICON_KIND: dict[Icon, DieKind] = {
    Icon.DUMPLING: DieKind.APPETIZER,
    Icon.TEMPURA: DieKind.APPETIZER,
    Icon.SASHIMI: DieKind.APPETIZER,
    Icon.MAKI: DieKind.MAKI,
    Icon.EGG_NIGIRI: DieKind.NIGIRI,
    Icon.SALMON_NIGIRI: DieKind.NIGIRI,
    Icon.SQUID_NIGIRI: DieKind.NIGIRI,
    Icon.WASABI: DieKind.SPECIALS,
    Icon.CHOPSTICKS: DieKind.SPECIALS,
    Icon.MENU: DieKind.SPECIALS,
    Icon.PUDDING: DieKind.PUDDING,
}

FACES_PER_DIE = 6


@dataclass(frozen=True, order=True)
class Face:
    """What a die shows: ``count`` icons of one kind, written ``icon`` or ``icon*n`` (``maki*3``)."""

    icon: Icon
    count: int = 1

    def __str__(self) -> str:
        return self.icon.value if self.count == 1 else f"{self.icon.value}*{self.count}"

    @property
    def kind(self) -> DieKind:
        """The die type that shows this face."""
        return ICON_KIND[self.icon]

    @property
    def is_nigiri(self) -> bool:
        return self.kind is DieKind.NIGIRI


def parse_face(name: str) -> Face:
    """The Face called ``name``: ``"wasabi"``, ``"pudding*2"``...

    Raises:
        ValueError: naming the bad face and listing the valid icons.
    """
    if not isinstance(name, str):
        raise ValueError(f"a face is a name such as 'maki*2', got {name!r}")
    icon_name, star, count_text = name.partition("*")
    try:
        icon = Icon(icon_name)
    except ValueError:
        valid = ", ".join(i.value for i in Icon)
        raise ValueError(f"unknown face {name!r}; a face is 'icon' or 'icon*n' with an icon from: {valid}") from None
    count = 1
    if star:
        if not count_text.isdigit() or int(count_text) < 1:
            raise ValueError(f"bad face {name!r}: the number after '*' must be a whole number of icons, 1 or more")
        count = int(count_text)
    return Face(icon, count)


def as_face(value: Face | str) -> Face:
    """``value`` as a Face (names are parsed). Raises ValueError for a bad name."""
    return value if isinstance(value, Face) else parse_face(value)


@dataclass(frozen=True)
class DiceFaces:
    """The six faces of each die type, in the order listed (repeats make a face commoner).

    Build it with :func:`load_dice_faces` (the shipped file) or :meth:`from_mapping` (explicit faces,
    e.g. in tests or for a differently printed set).
    """

    faces: tuple[tuple[Face, ...], ...]  # in DieKind order

    def of(self, kind: DieKind) -> tuple[Face, ...]:
        """The six faces of ``kind``."""
        return self.faces[list(DieKind).index(kind)]

    def shows(self, face: Face) -> bool:
        """True if some die of ``face.kind`` has this face."""
        return face in self.of(face.kind)

    def roll(self, kind: DieKind, rng: random.Random) -> Face:
        """One roll of a die of ``kind``, drawn from ``rng`` only."""
        return rng.choice(self.of(kind))

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> DiceFaces:
        """Faces from ``{"appetizer": [...6 names...], ...}`` or the TOML tables ``{"appetizer":
        {"faces": [...]}}``; every die type must be present with exactly 6 faces of its own icons.

        Raises:
            ValueError: naming the die type and the problem.
        """
        per_kind = []
        unknown = sorted(set(data) - {k.value for k in DieKind})
        if unknown:
            raise ValueError(f"unknown die type {unknown[0]!r}; die types are {', '.join(k.value for k in DieKind)}")
        for kind in DieKind:
            entry = data.get(kind.value)
            if entry is None:
                raise ValueError(f"no faces for the {kind} die")
            names = entry.get("faces") if isinstance(entry, Mapping) else entry
            if not isinstance(names, (list, tuple)) or len(names) != FACES_PER_DIE:
                raise ValueError(f"the {kind} die needs a list of exactly {FACES_PER_DIE} faces")
            faces = tuple(as_face(n) for n in names)
            for face in faces:
                if face.kind is not kind:
                    raise ValueError(f"the {kind} die cannot show {face}: {face.icon} is on the {face.kind} die")
            per_kind.append(faces)
        return cls(tuple(per_kind))


@lru_cache(maxsize=1)
def load_dice_faces() -> DiceFaces:
    """The faces shipped in ``companion/data/sushi_roll_dice.toml`` (read once; static package data).

    Raises:
        ValueError: if the file is malformed (see :meth:`DiceFaces.from_mapping`).
    """
    text = resources.files("companion").joinpath("data", "sushi_roll_dice.toml").read_text(encoding="utf-8")
    try:
        return DiceFaces.from_mapping(tomllib.loads(text))
    except (ValueError, tomllib.TOMLDecodeError) as exc:
        raise ValueError(f"{DICE_FILE}: {exc}") from None


@dataclass(frozen=True)
class Tokens:
    """A pile of tokens: one player's, or the supply. Piles add and subtract field by field.

    Pudding and scoring tokens are kept by denomination (pudding 1 and 3; points 1, 5, 10 and 20), as
    on the table (sushi-roll.txt, CONTENTS).
    """

    menu: int = 0
    chopsticks: int = 0
    pudding_1: int = 0
    pudding_3: int = 0
    points_1: int = 0
    points_5: int = 0
    points_10: int = 0
    points_20: int = 0

    def __add__(self, other: Tokens) -> Tokens:
        return Tokens(*(a + b for a, b in zip(self._values(), other._values())))

    def __sub__(self, other: Tokens) -> Tokens:
        return Tokens(*(a - b for a, b in zip(self._values(), other._values())))

    def _values(self) -> tuple[int, ...]:
        return (self.menu, self.chopsticks, self.pudding_1, self.pudding_3,
                self.points_1, self.points_5, self.points_10, self.points_20)  # fmt: skip

    @property
    def puddings(self) -> int:
        """Puddings shown by the pudding tokens (a 3-token counts 3)."""
        return self.pudding_1 + 3 * self.pudding_3

    @property
    def points(self) -> int:
        """Points shown by the scoring tokens."""
        return self.points_1 + 5 * self.points_5 + 10 * self.points_10 + 20 * self.points_20

    @property
    def count(self) -> int:
        """How many tokens are in the pile."""
        return sum(self._values())

    def is_empty(self) -> bool:
        return not any(self._values())

    def describe(self) -> str:
        """A short human list such as ``1×10, 1×5`` (points) or ``2 menu`` ('nothing' when empty)."""
        parts = [f"{self.points_20}×20", f"{self.points_10}×10", f"{self.points_5}×5", f"{self.points_1}×1",
                 f"{self.pudding_3}×3 pudding", f"{self.pudding_1}×1 pudding",
                 f"{self.menu} menu", f"{self.chopsticks} chopsticks"]  # fmt: skip
        shown = [p for p in parts if not p.startswith("0")]
        return ", ".join(shown) if shown else "nothing"


#: The whole token supply at the start (sushi-roll.txt, CONTENTS).
FULL_SUPPLY = Tokens(menu=18, chopsticks=12, pudding_1=14, pudding_3=6,
                     points_1=18, points_5=7, points_10=10, points_20=5)  # fmt: skip
#: What each player takes at setup (sushi-roll.txt, SET UP).
START_TOKENS = Tokens(menu=3, chopsticks=2)
