"""What the play loop's screens show (issue #9 §4): pure view-models, drawn by ``play_screens``.

  * ``SetupView``: the setup menu (fields with values, the current one selected, a button hint);
  * ``WaitingView``: "Round r — turn t", the seats still to reveal vs those done, a status line;
  * ``RefusalView``: who broke which rule, the rule's message, and what to put right;
  * ``PickerView``: a card the reader could not name; the player picks it with ◀ ▶ OK;
  * ``ConfirmView``: undo confirmation, what will be taken back, OK = undo, BACK = keep;
  * ``RoundSummaryView``: a finished round's points per seat with the rules' breakdown lines;
  * ``StatusBar``: the devices' states (camera, peripheral, panel, journal) under any screen;
  * ``PlayScreen``: a view plus a status bar, for ``Display.show``.

Plain dataclasses: no pygame until one is rendered (``view.render(size)``, which is what
``Display.show`` calls). Builders from a Sushi Go! state are in :mod:`companion.app.views`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pygame

    from companion.rules.core import ScoreLine

# ---------------------------------------------------------------------------------------------
# View-models

#: Device-state levels in the status bar (each has its colour in ``play_screens.LEVEL_COLOURS``).
LEVELS = ("ok", "warn", "error")

#: A hint is ``((key, action), ...)``; keys "◀", "▶", "◀▶" are drawn as triangles, others as text.
Hint = tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class DeviceStatus:
    """One device in the status bar: ``device`` (e.g. "camera"), a short ``word`` ("ok",
    "no frames", "unplugged") and its ``level``: "ok", "warn" or "error" (picks the colour).

    Raises:
        ValueError: an unknown level.
    """

    device: str
    word: str
    level: str = "ok"

    def __post_init__(self) -> None:
        if self.level not in LEVELS:
            raise ValueError(f"status level of {self.device!r} must be one of {', '.join(LEVELS)}, not {self.level!r}")


@dataclass(frozen=True)
class StatusBar:
    """The devices' strip at the bottom of every play screen, left to right."""

    items: tuple[DeviceStatus, ...]

    @classmethod
    def of(cls, **devices: str | tuple[str, str]) -> "StatusBar":
        """``StatusBar.of(camera="ok", panel=("unplugged", "error"))``: each value is ``(word, level)``,
        or a bare level (then also the word). Keyword order is the bar's order.

        Raises:
            ValueError: a bare value that is not a level, or an unknown level.
        """
        items = []
        for device, value in devices.items():
            if isinstance(value, str):
                if value not in LEVELS:
                    raise ValueError(f"{device}={value!r}: give (word, level) or one of {', '.join(LEVELS)}")
                value = (value, value)
            items.append(DeviceStatus(device, *value))
        return cls(tuple(items))


class _Renders:
    """``render(size)`` for ``Display.show``: draws the view with ``play_screens.render_play``."""

    def render(self, size: tuple[int, int] = (480, 320)) -> "pygame.Surface":
        """This screen as a Surface of ``size`` px."""
        from companion.app.play_screens import render_play

        return render_play(self, size)


@dataclass
class MenuItem:
    """One setup-menu field: ``label`` ("Players"), its current ``value`` ("3"), the ``seat`` whose
    colour it carries (None: none), and ``kind``: "choice" (◀ ▶ change it) or "button" (OK acts)."""

    label: str
    value: str = ""
    seat: int | None = None
    kind: str = "choice"


#: The setup menu's buttons while a field is being chosen.
CHANGE_HINT: Hint = (("◀▶", "change"), ("OK", "next"), ("BACK", "back"))


@dataclass
class SetupView(_Renders):
    """The setup menu. ``items`` in order, ``selected`` the current one (fields before it are done,
    after it still to come); ``prompt`` the question for the current field; ``hint`` the buttons;
    ``step_text`` e.g. "3/9" in the header."""

    title: str
    items: list[MenuItem]
    selected: int = 0
    prompt: str = ""
    hint: Hint = CHANGE_HINT
    step_text: str = ""


@dataclass
class WaitingSeat:
    """A seat in the waiting screen: ``name``, ``done`` (its card is revealed), the ``seat`` index
    for its colour, and a short ``note`` (e.g. "Ann picks" for the dummy)."""

    name: str
    done: bool
    seat: int | None = None
    note: str = ""


@dataclass
class WaitingView(_Renders):
    """Whom the table waits for: ``title`` ("Round 1 — turn 3"), every seat in seat order with
    done or not, and a status line (wraps to 3 lines; ``status_kind`` info/warn/error)."""

    title: str
    seats: list[WaitingSeat]
    status: str = ""
    status_kind: str = "info"

    @property
    def waiting(self) -> list[str]:
        """Names still to reveal, in seat order."""
        return [s.name for s in self.seats if not s.done]


@dataclass
class RefusalView(_Renders):
    """A refused turn: the ``player`` who broke the rule, the rule id (``"chopsticks-needed"``),
    the rule's ``message``, what to ``fix`` ("take the second card back"), the rulebook
    ``section``, and the player's ``seat`` for its colour."""

    player: str
    rule: str
    message: str
    fix: str
    section: str = ""
    seat: int | None = None
    title: str = "Not allowed"


@dataclass
class PickerView(_Renders):
    """Name a card the reader could not: ``player`` (whose card), ``candidates`` (card labels as in
    ``screens.draw_card_icon``), ``selected`` index, and optionally ``crop``, the camera's view of
    the card, an (H, W, 3) uint8 BGR array."""

    player: str
    candidates: list[str]
    selected: int = 0
    question: str = "Which card is this?"
    seat: int | None = None
    crop: Any = None
    hint: Hint = (("◀▶", "choose"), ("OK", "this one"))


@dataclass
class ConfirmSeat:
    """One seat's cards that an undo takes back (card labels), ``seat`` for its colour."""

    name: str
    cards: list[str]
    seat: int | None = None


@dataclass
class ConfirmView(_Renders):
    """Undo confirmation: the ``question`` ("Take back round 2, turn 4?"), what goes back per seat,
    a ``detail`` line, and the hint (OK = undo, BACK = keep)."""

    question: str
    seats: list[ConfirmSeat] = field(default_factory=list)
    detail: str = ""
    title: str = "Undo?"
    hint: Hint = (("OK", "undo"), ("BACK", "keep"))


@dataclass
class SummarySeat:
    """One seat's round: ``points`` this round, running ``total`` after it, and the rules'
    breakdown ``lines`` (ScoreLine: category, points, text ending in "→ n")."""

    name: str
    points: int
    total: int
    lines: list["ScoreLine"] = field(default_factory=list)
    seat: int | None = None


@dataclass
class RoundSummaryView(_Renders):
    """A finished round: ``round`` (1-based) of ``rounds``, one SummarySeat per seat."""

    round: int
    seats: list[SummarySeat]
    rounds: int = 3
    title: str = ""


@dataclass
class PlayScreen:
    """A view with a status bar, for ``Display.show`` (which calls ``render(size)``)."""

    view: Any
    status: StatusBar | None = None

    def render(self, size: tuple[int, int] = (480, 320)) -> "pygame.Surface":
        """The view and its status bar as a Surface of ``size`` px."""
        from companion.app.play_screens import render_play

        return render_play(self.view, size, self.status)


def card_title(label: str) -> str:
    """A card label as a reader says it: ``"maki_2"`` → "Maki roll ×2", ``"egg_nigiri"`` →
    "Egg nigiri", ``"wasabi+squid_nigiri"`` → "Squid nigiri on wasabi"."""
    base, _, on = label.partition("+")
    if on:
        return f"{card_title(on)} on wasabi"
    if base.startswith("maki_"):
        return f"Maki roll ×{base[5:]}"
    return base.replace("_", " ").capitalize()
