"""The eight Sushi Express customers, read from package data (``companion/data/sushi_express_customers.toml``).

Source: sushi-express.txt, CONTENTS ("8 different customers: 8 each of light blue and dark blue, 2
each of the others, and 8 tip cards") and SCORING (which names light blue, dark blue, rose and violet).
The rulebook does not name the other four customers, so the customers are data marked "check against
your box", read once like an import (as the Sushi Roll die faces are).
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

CUSTOMERS_FILE = "companion/data/sushi_express_customers.toml"
CONTENTS = "sushi-express.txt, CONTENTS"
#: The rulebook's customers with 8 cards each; every other customer has 2 (CONTENTS).
EIGHT_CARD_CUSTOMERS = ("light_blue", "dark_blue")
CUSTOMER_KINDS, OTHER_CARDS, TIP_CARDS = 8, 2, 8
_NAME = re.compile(r"[a-z][a-z0-9_]*\Z")
_COLOUR = re.compile(r"#[0-9a-fA-F]{6}\Z")


@dataclass(frozen=True)
class CustomerInfo:
    """One customer: ``name`` (files, journals, the panel), ``label`` (the screen), ``rgb`` (the card's
    colour on the screen, three ints 0–255) and ``cards`` (how many the box holds)."""

    name: str
    label: str
    rgb: tuple[int, int, int]
    cards: int


def customers_from_mapping(data: Any) -> tuple[CustomerInfo, ...]:
    """The customers of a parsed customers file (see the file's header).

    Raises:
        ValueError: naming the entry and the rule it breaks: not 8 customers, a name that is not a
            lower-case word or repeats, no light_blue or dark_blue, a colour that is not ``#rrggbb``,
            or a card count other than the rulebook's (8 for light and dark blue, 2 for the others).
    """
    entries = data.get("customer") if isinstance(data, dict) else None
    if not isinstance(entries, list) or len(entries) != CUSTOMER_KINDS:
        got = len(entries) if isinstance(entries, list) else "none"
        raise ValueError(f"needs exactly {CUSTOMER_KINDS} [[customer]] entries ({CONTENTS}), got {got}")
    out: list[CustomerInfo] = []
    for i, entry in enumerate(entries):
        where = f"customer {i + 1}"
        if not isinstance(entry, dict) or set(entry) != {"name", "label", "colour", "cards"}:
            raise ValueError(f"{where}: needs exactly the keys name, label, colour, cards")
        name, label, colour, cards = entry["name"], entry["label"], entry["colour"], entry["cards"]
        if not isinstance(name, str) or not _NAME.match(name) or name == "tip":
            raise ValueError(f"{where}: name {name!r} must be a lower-case word (letters, digits, _), not 'tip'")
        if any(c.name == name for c in out):
            raise ValueError(f"{where}: the name {name!r} is used twice")
        if not isinstance(label, str) or not label.strip():
            raise ValueError(f"{where} ({name}): label must be a non-empty string")
        if not isinstance(colour, str) or not _COLOUR.match(colour):
            raise ValueError(f"{where} ({name}): colour {colour!r} must be '#rrggbb'")
        want = 8 if name in EIGHT_CARD_CUSTOMERS else OTHER_CARDS
        if type(cards) is not int or cards != want:
            raise ValueError(f"{where} ({name}): the box holds {want} cards of it ({CONTENTS}), got {cards!r}")
        rgb = tuple(int(colour[k:k + 2], 16) for k in (1, 3, 5))
        out.append(CustomerInfo(name, label.strip(), rgb, cards))  # type: ignore[arg-type]
    missing = [n for n in EIGHT_CARD_CUSTOMERS if not any(c.name == n for c in out)]
    if missing:
        raise ValueError(f"the rulebook's customers {', '.join(missing)} must be listed ({CONTENTS})")
    return tuple(out)


@lru_cache(maxsize=1)
def load_customers() -> tuple[CustomerInfo, ...]:
    """The customers shipped in ``companion/data/sushi_express_customers.toml`` (read once; static
    package data).

    Raises:
        ValueError: the file is malformed, naming it (see :func:`customers_from_mapping`).
    """
    text = resources.files("companion").joinpath("data", "sushi_express_customers.toml").read_text(encoding="utf-8")
    try:
        return customers_from_mapping(tomllib.loads(text))
    except (ValueError, tomllib.TOMLDecodeError) as exc:
        raise ValueError(f"{CUSTOMERS_FILE}: {exc}") from None
