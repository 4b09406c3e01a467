"""The Sushi Go! card vocabulary shared by the rules engine, vision, the simulator and the CLI.

Source: ../shared/rules/sushi-go-with-variants.txt, "CONTENTS — 108 CARDS".
Card names are the ones the score file and the vision labels use (issue #2, §3).
"""

from __future__ import annotations

from enum import Enum


class Card(str, Enum):
    """One Sushi Go! card type. The value is the name used in files and on the wire."""

    TEMPURA = "tempura"
    SASHIMI = "sashimi"
    DUMPLING = "dumpling"
    MAKI_1 = "maki_1"
    MAKI_2 = "maki_2"
    MAKI_3 = "maki_3"
    EGG_NIGIRI = "egg_nigiri"
    SALMON_NIGIRI = "salmon_nigiri"
    SQUID_NIGIRI = "squid_nigiri"
    PUDDING = "pudding"
    WASABI = "wasabi"
    CHOPSTICKS = "chopsticks"

    def __str__(self) -> str:  # so f-strings print "tempura", not "Card.TEMPURA"
        return self.value

    @property
    def is_maki(self) -> bool:
        return self in MAKI_ICONS

    @property
    def is_nigiri(self) -> bool:
        return self in NIGIRI_POINTS


#: The 108-card deck (sushi-go-with-variants.txt, "CONTENTS").
DECK_COUNTS: dict[Card, int] = {
    Card.TEMPURA: 14,
    Card.SASHIMI: 14,
    Card.DUMPLING: 14,
    Card.MAKI_2: 12,
    Card.MAKI_3: 8,
    Card.MAKI_1: 6,
    Card.SALMON_NIGIRI: 10,
    Card.SQUID_NIGIRI: 5,
    Card.EGG_NIGIRI: 5,
    Card.PUDDING: 10,
    Card.WASABI: 6,
    Card.CHOPSTICKS: 4,
}

#: Maki roll icons printed at the top of each maki card ("MAKI ROLLS").
MAKI_ICONS: dict[Card, int] = {Card.MAKI_1: 1, Card.MAKI_2: 2, Card.MAKI_3: 3}

#: Nigiri base points; ×3 on a wasabi ("NIGIRI AND WASABI").
NIGIRI_POINTS: dict[Card, int] = {Card.EGG_NIGIRI: 1, Card.SALMON_NIGIRI: 2, Card.SQUID_NIGIRI: 3}

#: The label vision gives a face-down card. It is not a Card: the rules never see it.
BACK = "back"
#: The label vision gives a card that matches nothing enrolled.
UNKNOWN = "unknown"
#: Every label a Sushi Go! deck enrolment may hold: the 12 faces and the back.
VISION_LABELS: tuple[str, ...] = tuple(c.value for c in Card) + (BACK,)


class UnknownCard(ValueError):
    """A name that is none of the 12 Sushi Go! cards (sushi-go-with-variants.txt, CONTENTS)."""


def parse_card(name: str) -> Card:
    """Return the Card called ``name`` (e.g. ``"squid_nigiri"``).

    Raises:
        UnknownCard: (a ValueError) naming the unknown card and listing the valid names.
    """
    try:
        return Card(name)
    except ValueError:
        valid = ", ".join(c.value for c in Card)
        raise UnknownCard(f"unknown card {name!r}; valid cards are: {valid}") from None
