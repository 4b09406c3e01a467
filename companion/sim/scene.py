"""Where each physical card lies on the simulated mat, kept from turn to turn.

On a real table a card stays where it was put: when a chopsticks card goes back into a hand,
its neighbours do not shuffle along, and a nigiri is laid on top of its wasabi. ``TableScene``
gives the renderer that behaviour: every card keeps its slot of the zone's grid
(:func:`companion.sim.table.layout_tableaux`) until it leaves the table.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from companion.rules.sushi_go.cards import Card
from companion.rules.sushi_go.state import Placed
from companion.sim.table import Placement, layout_tableaux, zone_capacity
from companion.vision.mat_layout import MatLayout

# A slot holds (key, card, nigiri on top); key tells two identical cards apart across syncs.
_Slot = tuple[tuple, Card, Card | None] | None


class TableScene:
    """The cards face up in every seat's zone, each at a fixed slot.

    Args:
        layout: the mat.
        rng: draws each slot's small jitter once, so a card does not twitch between frames.
    """

    def __init__(self, layout: MatLayout, rng: np.random.Generator) -> None:
        self.layout = layout
        caps = [zone_capacity(z, layout.card_mm) for z in layout.zones]
        spots = layout_tableaux(layout, [["back"] * n for n in caps], rng=rng)
        self._spots: list[list[Placement]] = []
        start = 0
        for n in caps:
            self._spots.append(spots[start : start + n])
            start += n
        self._slots: list[list[_Slot]] = [[None] * n for n in caps]

    def sync(self, tableaux: Sequence[Sequence[Placed]], kept_puddings: Sequence[int]) -> None:
        """Make the table show these tableaux, moving nothing that stays.

        Args:
            tableaux: per seat, the cards revealed this round (``SushiGoState.tableaux``).
            kept_puddings: per seat, puddings kept from earlier rounds (``SushiGoState.puddings``).

        Raises:
            ValueError: a seat's cards do not fit its zone (names the seat).
        """
        for seat, tableau in enumerate(tableaux):
            wanted: dict[tuple, tuple[Card, Card | None]] = {}
            seen: dict[tuple, int] = {}
            for placed in tableau:
                base = ("round", placed.card, placed.turn)
                n = seen.get(base, 0)
                seen[base] = n + 1
                wanted[base + (n,)] = (placed.card, placed.nigiri)
            for i in range(kept_puddings[seat]):
                wanted[("kept", i)] = (Card.PUDDING, None)
            slots = self._slots[seat]
            freed = set()
            for i, slot in enumerate(slots):
                if slot is not None and slot[0] not in wanted:
                    slots[i] = None
                    freed.add(i)
            for key, (card, nigiri) in wanted.items():
                where = next((i for i, s in enumerate(slots) if s is not None and s[0] == key), None)
                if where is None:
                    # A card leaving this turn (chopsticks back into the hand) leaves its place empty
                    # until the next turn: new cards go beside the others, as players lay them.
                    where = next((i for i, s in enumerate(slots) if s is None and i not in freed), None)
                    if where is None:
                        where = next((i for i, s in enumerate(slots) if s is None), None)
                    if where is None:
                        raise ValueError(f"{self.layout.zones[seat].name}: more cards than its zone holds")
                slots[where] = (key, card, nigiri)

    def end_round(self) -> None:
        """Discard everything but the puddings, which stay where they lie (BEFORE STARTING A NEW ROUND)."""
        for slots in self._slots:
            kept = 0
            for i, slot in enumerate(slots):
                if slot is not None and slot[1] is Card.PUDDING:
                    slots[i] = (("kept", kept), Card.PUDDING, None)
                    kept += 1
                else:
                    slots[i] = None

    def placements(self) -> list[Placement]:
        """Every card to draw, a nigiri after (so on top of) its wasabi."""
        out: list[Placement] = []
        for spots, slots in zip(self._spots, self._slots):
            for spot, slot in zip(spots, slots):
                if slot is None:
                    continue
                _, card, nigiri = slot
                out.append(Placement(card.value, spot.center_mm, spot.angle_deg))
                if nigiri is not None:
                    out.append(Placement(nigiri.value, spot.center_mm, spot.angle_deg))
        return out
