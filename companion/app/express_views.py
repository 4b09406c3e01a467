"""Build the display's view-models from a Sushi Express game state (issue #11): the play loop calls
these through the game's adapter with the same names and signatures as :mod:`companion.app.roll_views`
(Sushi Roll), plus ``prompt=`` on :func:`picker_view` for the questions of
:mod:`companion.app.express_prompts`.

Screens (drawn by :mod:`companion.app.express_screens`, dispatched by ``play_screens.render_play``):

* :class:`ExpressBoardView`: the scoreboard and the waiting screen: the ring of 12 tiles with every
  van, the guess board 2–12 with its marker stacks, the customer display, per seat the customers
  collected, tips and action cards (seen ones by kind, the rest as "N hidden"), whose turn, the
  phase, the round, and in phase 2 the dice of the last try;
* :class:`ExpressPickerView`: a question on the panel (an :class:`~companion.app.express_prompts.Prompt`),
  drawn over what it is about: the guess board, the ring with the van's path, the customer cards;
* :class:`ExpressRoundView`: a round just ended: the vans, each seat's collection, the new display;
* :class:`ExpressFinalView`: the ranking with the breakdown, the tip penalty and the tie-break.

A refusal is the shared :class:`~companion.app.play_views.RefusalView`, the undo confirmation the Sushi
Roll :class:`~companion.app.roll_views.RollUndoView` (its seats in words, no dice).

At a real table (:class:`~companion.rules.sushi_express.table.TableState`) the views show only what the
companion has seen: action cards taken face down are "hidden" (``state.unseen``), and the display is
unknown until the players have laid it out (``display_known``). An engine state shows every card.

Pure: no pygame until a view is rendered (``view.render(size)``). Source: ../shared/rules/sushi-express.txt.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from companion.app import express_prompts as ep
from companion.app.play_views import Hint, RefusalView
from companion.app.roll_views import RollUndoView, UndoSeat, _check_seats
from companion.app.roll_views import _Renders as _RollRenders
from companion.app.roll_views import refusal_view as _refusal_view
from companion.rules.core import ScoreLine
from companion.rules.errors import RuleError
from companion.rules.sushi_express.engine import van_path
from companion.rules.sushi_express.scoring import colour_points
from companion.rules.sushi_express.state import (
    COLOURS,
    GUESS_NUMBERS,
    SCORING,
    TILES,
    TRIES,
    AcceptRoll,
    ActionCard,
    Customer,
    Deliver,
    EndTurn,
    Exchange,
    Guess,
    Move,
    Phase,
    ReRoll,
    Roll,
    SushiExpressState,
)
from companion.rules.sushi_express.table import TableState
from companion.rules.wording import join_names, plural

#: The number of each phase, as the rulebook counts them (PLAYING THE GAME: "1. place guesses - 2. roll
#: dice - 3. move delivery vans - 4. make deliveries").
PHASE_NUMBERS = {Phase.GUESS: 1, Phase.ROLL: 2, Phase.MOVE: 3, Phase.DELIVER: 4}
#: The action cards in the order a seat's row lists them (tips are counted with the tip customers).
ACTION_ORDER = (ActionCard.SAME_GUESS, ActionCard.PLACE_EXCHANGE, ActionCard.RE_ROLL, ActionCard.TILE_FURTHER)
#: The hint under every question.
PICKER_HINT: Hint = (("◀▶", "choose"), ("OK", "answer"), ("BACK", "not now"))
#: Said on the undo screen for a step that only laid out the display (``plays`` is ``{seat: ()}``).
DISPLAY_STEP = "the display laid out"


class _Renders(_RollRenders):
    """``render(size)`` for ``Display.show`` (as the Sushi Roll views), and the drawer
    ``play_screens.render_play`` asks for (:data:`companion.app.express_screens.DRAW`), imported only then."""

    @classmethod
    def play_drawer(cls):
        """The function that draws this view (``draw(painter, view)``)."""
        from companion.app.express_screens import DRAW

        return DRAW[cls]


# ---------------------------------------------------------------------------------------------
# What the companion has seen


def seen_hand(state: SushiExpressState, seat: int) -> tuple[Counter, int]:
    """(the action cards of ``seat`` the companion has seen, by kind; how many it has not seen). At a
    real table a card taken face down stays unseen until it is played (TableState.unseen); an engine
    state has no hidden cards."""
    if isinstance(state, TableState) and len(state.unseen) == state.seats:
        return state.shown(seat), state.hidden(seat)
    return Counter(state.hands[seat]), 0


def known_display(state: SushiExpressState) -> list[Customer] | None:
    """The customer display, or None while a real table has not said which cards were laid out (its
    cards are then placeholders: TableState.display_known)."""
    if isinstance(state, TableState) and not state.display_known:
        return None
    return list(state.display)


def phase_words(phase: Phase) -> str:
    """``Phase.ROLL`` → "2 roll dice"; "game over" for the end."""
    n = PHASE_NUMBERS.get(phase)
    return f"{n} {phase.value}" if n else phase.value


# ---------------------------------------------------------------------------------------------
# Actions in words


def _dice_words(faces: Sequence[int]) -> str:
    return f"{'+'.join(str(f) for f in faces)} = {sum(faces)}"


def describe_actions(players: Sequence[str], actions: Iterable[Any], state: SushiExpressState | None = None
                     ) -> list[str]:
    """Each engine action in words, one string per action (the loop's event lines, the undo screen):
    ``Guess`` → "guesses 7" ("guesses 7 with same guess"), ``Exchange`` → "swaps the markers on 5 and 6
    (place exchange)", ``EndTurn`` → "ends the turn", ``Roll`` → "rolls 3+4 = 7", ``ReRoll`` →
    "re-rolls a die: 5", ``AcceptRoll`` → "takes an action card (failed)", ``Move`` → "moves 8 tiles to
    house 8 (1 tile further ×1), takes rose", ``Deliver`` → "keeps the display" / "discards the display"
    (sushi-express.txt, PLAYING THE GAME; THE ACTION CARDS).

    ``state``: the state these actions led to, optional. A move names its end tile only with it (the
    van's tile then) and its tiles counted while the round's guesses are still known; without it a
    move reads "moves the van".

    Raises:
        ValueError: an action that is no Sushi Express action, or a player ``players`` has not.
    """
    out = []
    for a in actions:
        seat = getattr(a, "player", None)
        if not isinstance(a, (Guess, Exchange, EndTurn, Roll, ReRoll, AcceptRoll, Move, Deliver)):
            raise ValueError(f"not a Sushi Express action: {a!r:.80}")
        if type(seat) is not int or not 0 <= seat < len(players):
            raise ValueError(f"no seat {seat!r} among {len(players)} players")
        if isinstance(a, Guess):
            out.append(f"guesses {a.number}" + (" with same guess" if a.same_guess else ""))
        elif isinstance(a, Exchange):
            out.append(f"swaps the markers on {a.a} and {a.b} (place exchange)")
        elif isinstance(a, EndTurn):
            out.append("ends the turn")
        elif isinstance(a, Roll):
            out.append(f"rolls {_dice_words(a.faces)}" if a.faces is not None else "rolls the dice")
        elif isinstance(a, ReRoll):
            out.append(f"re-rolls a die: {a.face}" if a.face is not None else "re-rolls a die")
        elif isinstance(a, AcceptRoll):
            out.append("takes an action card (failed)")
        elif isinstance(a, Move):
            out.append(_move_words(a, state))
        else:
            out.append("keeps the display" if a.keep else "discards the display")
    return out


def _move_words(move: Move, state: SushiExpressState | None) -> str:
    words = "moves the van"
    if state is not None and 0 <= move.player < state.seats:
        guess = state.guesses[move.player]
        tiles = f" {plural(guess + move.further, 'tile')}" if guess is not None else ""
        words = f"moves{tiles} to {ep.tile_name(state.vans[move.player])}"
    if move.further:
        words += f" (1 tile further ×{move.further})"
    if move.take is not None:
        words += f", takes {getattr(move.take, 'label', move.take)}"
    return words


# ---------------------------------------------------------------------------------------------
# The scoreboard (and the waiting screen)


@dataclass
class ExpressSeat:
    """One seat on the Sushi Express screens.

    tile: the tile (0–11) of the seat's van. marker: the guess-board number the marker is on now, or
    None; guess: this round's guess once phase 1 is over (the marker may have left the board since:
    a failed roll or a move). customers: the customer cards collected, (customer, count) in the data
    file's order, tips not included; tips: tip customer cards plus the tip action cards seen.
    actions: the action cards seen in the hand, (card, count), tips not included; hidden: action
    cards taken face down and not seen since. active: the seat acts now (``state.current``);
    waiting: the table waits for this seat.
    """

    name: str
    seat: int
    tile: int = 0
    marker: int | None = None
    guess: int | None = None
    customers: list[tuple[Customer, int]] = field(default_factory=list)
    tips: int = 0
    actions: list[tuple[ActionCard, int]] = field(default_factory=list)
    hidden: int = 0
    active: bool = False
    waiting: bool = False

    @property
    def action_count(self) -> int:
        """Action cards in the hand, tips not counted (seen and hidden; the tie-break at the end)."""
        return sum(n for _, n in self.actions) + self.hidden


@dataclass
class ExpressBoardView(_Renders):
    """The Sushi Express table at a glance.

    title: "Round 3 · 2 roll dice"; note: whose turn ("Bo's turn"). board: the guess board, (number,
    stack of seats bottom first) for 2 to 12. display: the customer display (None: not laid out yet).
    centre: short lines in the middle of the ring (who does what now). Phase 2: ``dice`` of the last
    try (None before the first), ``roller``, ``tries`` used of ``TRIES``, ``need`` (the roller's
    guess). status: one message (``status_kind`` info/warn/error); ``big_status``: the waiting
    screen's larger status.
    """

    title: str
    seats: list[ExpressSeat]
    board: list[tuple[int, tuple[int, ...]]]
    display: list[Customer] | None
    round: int = 1
    phase: Phase = Phase.GUESS
    note: str = ""
    centre: list[str] = field(default_factory=list)
    dice: tuple[int, int] | None = None
    roller: int | None = None
    tries: int = 0
    need: int | None = None
    status: str = ""
    status_kind: str = "info"
    big_status: bool = False

    @property
    def active(self) -> int | None:
        """The seat that acts now, or None."""
        return next((s.seat for s in self.seats if s.active), None)

    @property
    def vans(self) -> tuple[int, ...]:
        """Each seat's van tile."""
        return tuple(s.tile for s in self.seats)


def _seats(state: SushiExpressState, waiting: Iterable[int] = ()) -> list[ExpressSeat]:
    waiting = set(waiting)
    out = []
    for s, name in enumerate(state.players):
        held = Counter(state.collected[s])
        seen, hidden = seen_hand(state, s)
        out.append(ExpressSeat(
            name, s, state.vans[s], state.marker_number(s), state.guesses[s],
            [(c, held[c]) for c in COLOURS if held[c]], held[Customer.TIP] + seen[ActionCard.TIP],
            [(c, seen[c]) for c in ACTION_ORDER if seen[c]], hidden,
            active=state.current == s, waiting=s in waiting,
        ))  # fmt: skip
    return out


def _board(state: SushiExpressState) -> list[tuple[int, tuple[int, ...]]]:
    return [(n, tuple(state.stack(n))) for n in GUESS_NUMBERS]


def _title(state: SushiExpressState) -> tuple[str, str]:
    if state.is_over:
        return "Game over", f"after {plural(state.round, 'round')}"
    who = state.players[state.current] if state.current is not None else ""
    return f"Round {state.round} · {phase_words(state.phase)}", f"{who}'s turn" if who else ""


def _centre(state: SushiExpressState) -> list[str]:
    """What happens now, in the middle of the ring (phase 2 adds the dice: the tries used and the
    roller's guess, whose name is in the header)."""
    seat = state.current
    if seat is None:
        return ["game over"]
    name = state.players[seat]
    if state.phase is Phase.GUESS:
        return [name, "places a guess"]
    if state.phase is Phase.ROLL:
        return [f"tries: {state.tries} of {TRIES}", f"needs {state.guesses[seat]}+"]
    if state.phase is Phase.MOVE:
        return [name, f"moves {state.guesses[seat]}"]
    return [name, "keep or discard?"]


def scoreboard_view(state: SushiExpressState, status: str = "", status_kind: str = "info") -> ExpressBoardView:
    """The in-play screen: the ring with every van, the guess board with the markers, the display,
    each seat's customers, tips and action cards (seen by kind, "N hidden"), whose turn it is
    (``state.current``), the phase and the round; in phase 2 the dice of the last try, the tries used
    and the roller's guess. ``status``: the last action or the problem."""
    title, note = _title(state)
    roller = state.current if state.phase is Phase.ROLL else None
    return ExpressBoardView(
        title, _seats(state), _board(state), known_display(state), state.round, state.phase, note,
        _centre(state), state.dice if roller is not None else None, roller, state.tries,
        state.guesses[roller] if roller is not None else None, status, status_kind,
    )  # fmt: skip


def _waiting_words(state: SushiExpressState, seats: list[int]) -> str:
    if not seats:
        return "Everyone is ready"
    names = join_names([state.players[s] for s in seats])
    seat = state.current
    if seats != [seat] or seat is None:
        return f"Waiting for {names}"
    guess = state.guesses[seat]
    if state.phase is Phase.GUESS:
        return f"{names}: place your guess marker on the board (2–12)"
    if state.phase is Phase.ROLL and state.tries < TRIES:
        return f"{names} rolls: try {state.tries + 1} of {TRIES}, needs {guess} or more"
    if state.phase is Phase.ROLL:
        return f"{names}: both tries failed: re-roll a die with a card, or take an action card"
    if state.phase is Phase.MOVE:
        return f"{names}: move your van {plural(guess, 'tile')} clockwise" if guess else f"Waiting for {names}"
    return f"{names}: keep or discard the display"


def waiting_view(
    state: SushiExpressState, waiting: Iterable[int], status: str = "", status_kind: str = "info"
) -> ExpressBoardView:
    """Whom the table waits for: the scoreboard with the ``waiting`` seats (indices) lit and the status
    large: ``status`` (e.g. "Bo rolls: try 1 of 2, needs 8 or more"), or when empty words for what the
    seat does in this phase.

    Raises:
        ValueError: a seat index that is not a seat of ``state``.
    """
    seats = _check_seats(state.seats, waiting, "waiting seats")
    view = scoreboard_view(state, status or _waiting_words(state, seats), status_kind)
    view.seats = _seats(state, seats)
    view.big_status = True
    return view


# ---------------------------------------------------------------------------------------------
# Refusal

#: What the table does to put a refused action right, by rule id: the engine's
#: (``companion.rules.sushi_express.engine.check_action``) and the real table's
#: (``companion.rules.sushi_express.table``).
FIXES = {
    "not-your-turn": "wait for your turn: the screen says whose it is",
    "wrong-phase": "wait for the phase the action belongs to",
    "already-guessed": 'your marker is placed: play "place exchange" or end your turn',
    "guess-first": "place your guess marker first",
    "guess-range": "choose a number from 2 to 12",
    "number-taken": 'choose a free number, or play "same guess" to stack on it',
    "same-guess-untaken": '"same guess" stacks on a number that holds a marker: choose one',
    "card-not-held": "play only the action cards you hold",
    "exchange-not-neighbours": "swap two neighbouring spaces only",
    "exchange-empty-space": "swap two spaces that both hold markers",
    "die-faces": "lay both dice flat where the camera sees them",
    "die-index": "re-roll one of the two dice",
    "tries-used": 'both tries are used: re-roll a die with a card, or take an action card',
    "re-roll-before-roll": "roll both dice first",
    "second-try": "roll the dice a second time",
    "further-range": 'say how many "1 tile further" cards you play',
    "take-customer": "take a customer card from the display",
    "customer-not-in-display": "take a customer card that lies in the display",
    "no-customer-to-take": "put the customer card back in the display",
    "keep-or-discard": "keep the whole display or discard it all",
    "display-laid": "the display is laid out once, before the first guess",
    "display-size": "lay out one customer card per player",
    "display-draw": "draw as many cards as the display lacks",
    "customer-not-in-supply": "check the card: every card of that customer is already out",
    "tips-count": "count the tip cards among your hidden action cards again",
    "game-over": "the game is over: start a new one from the menu",
}
DEFAULT_FIX = "put the table back as it was before this action"


def refusal_view(error: RuleError, state: SushiExpressState | None = None, fix: str | None = None) -> RefusalView:
    """The refusal screen: who broke which rule (``error.rule``), the rule's message and rulebook
    section, and what to do (``fix``, else :data:`FIXES` for the rule, else :data:`DEFAULT_FIX`). With
    ``state``, the player's seat colour is used.

    Raises:
        TypeError: ``error`` is not a RuleError (an IllegalAction is one).
    """
    if not isinstance(error, RuleError):
        raise TypeError(f"a refusal shows a RuleError (IllegalAction), got {type(error).__name__}")
    return _refusal_view(error, state, fix if fix is not None else FIXES.get(error.rule, DEFAULT_FIX))


# ---------------------------------------------------------------------------------------------
# Picker


def card_candidates(state: SushiExpressState) -> list[str]:
    """No card is named by picking it from a list in Sushi Express: the questions are prompts
    (:mod:`companion.app.express_prompts`). Always ``[]``."""
    return []


#: Prompt kinds drawn over the guess board, over the customer cards, and over the ring.
BOARD_KINDS = (ep.GUESS, ep.SAME_GUESS, ep.EXCHANGE, ep.END_TURN)
CARD_KINDS = (ep.CUSTOMER, ep.DISPLAY)


@dataclass
class ExpressPickerView(_Renders):
    """A question on the panel: ``question`` asked of ``player`` (``seat``), ``options`` leafed through
    with ◀ ▶, ``selected`` the one OK picks; ``kind`` the prompt's kind (None: a plain list).

    Context per kind, one entry per option where it is per option:

    * board kinds: ``board`` ((number, stack) for 2–12) and ``numbers``: the spaces each option picks
      (one for a guess, two for an exchange, none for a menu item such as "same guess…");
    * FURTHER: ``vans`` (every seat's tile), ``paths``: the tiles the van passes, (tile, counted), a
      tile with another van not counted (3. move delivery vans), and ``ends``: where it stops;
    * CUSTOMER / DISPLAY: ``cards``: the customer each option names (None for "◀ back");
    * DELIVER: ``display``; ACCEPT: ``dice`` and ``need``; TIPS: ``hidden`` (the hidden action cards).

    step: (i, n) for a question asked n times in a row; crop: a camera view, (N, M, 3) uint8 BGR, or None.
    """

    player: str
    seat: int
    question: str
    options: list[str]
    selected: int = 0
    kind: str | None = None
    step: tuple[int, int] | None = None
    board: list[tuple[int, tuple[int, ...]]] = field(default_factory=list)
    numbers: list[tuple[int, ...]] = field(default_factory=list)
    vans: tuple[int, ...] = ()
    paths: list[list[tuple[int, bool]]] = field(default_factory=list)
    ends: list[int | None] = field(default_factory=list)
    cards: list[Customer | None] = field(default_factory=list)
    display: list[Customer] | None = None
    dice: tuple[int, int] | None = None
    need: int | None = None
    hidden: int = 0
    crop: Any = None
    hint: Hint = PICKER_HINT

    @property
    def current(self) -> int:
        """The index of the selected option (``selected`` wrapped round the options)."""
        return self.selected % len(self.options) if self.options else 0

    @property
    def taken(self) -> tuple[int, ...]:
        """The guess-board numbers that hold a marker (greyed on the board)."""
        return tuple(n for n, stack in self.board if stack)

    def is_item(self, i: int) -> bool:
        """Whether option ``i`` is a menu item (a word in a list), not a space, a card or a move."""
        if self.kind in BOARD_KINDS:
            return not self.numbers[i]
        if self.kind in CARD_KINDS:
            return self.cards[i] is None
        return self.kind != ep.FURTHER or self.ends[i] is None


def walk(vans: Sequence[int], seat: int, steps: int) -> list[tuple[int, bool]]:
    """The tiles ``seat``'s van passes when it counts ``steps`` tiles clockwise: (tile, counted), a tile
    holding another van passed but not counted (3. move delivery vans: "spaces with other delivery vans
    are not counted"); the last is where it stops, as
    :func:`~companion.rules.sushi_express.engine.van_path` says.

    Raises:
        ValueError: as ``van_path`` for vans, seat or steps of the wrong shape.
    """
    end, _ = van_path(vans, seat, steps)
    others = {t for s, t in enumerate(vans) if s != seat}
    out: list[tuple[int, bool]] = []
    pos, counted = vans[seat], 0
    while counted < steps:
        pos = (pos + 1) % TILES
        out.append((pos, pos not in others))
        counted += pos not in others
    assert not out or out[-1][0] == end
    return out


def picker_view(
    state: SushiExpressState, seat: int, selected: int = 0, candidates: Sequence[str] | None = None, crop=None,
    question: str | None = None, prompt: ep.Prompt | None = None,
) -> ExpressPickerView:
    """Ask ``seat``'s player: with ``prompt`` (an :class:`~companion.app.express_prompts.Prompt`) its
    question and options drawn over what they are about (the guess board, the ring with the van's path
    and end tile for each "1 tile further" option, the customer cards, the display or the dice);
    without, ``question`` (default "Which one?") over the ``candidates`` as a plain list.

    Raises:
        ValueError: ``seat`` is not a seat of ``state``, or ``prompt`` is not a Prompt.
    """
    _check_seats(state.seats, [seat], "picker")
    name = state.players[seat]
    if prompt is None:
        options = list(candidates) if candidates is not None else card_candidates(state)
        return ExpressPickerView(name, seat, question or "Which one?", options, selected, crop=crop)
    if not isinstance(prompt, ep.Prompt):
        raise ValueError(f"prompt must be an express_prompts.Prompt, got {type(prompt).__name__}")
    view = ExpressPickerView(name, seat, prompt.text, list(prompt.options), selected, prompt.kind, prompt.step,
                             crop=crop)
    values = prompt.values
    if prompt.kind in BOARD_KINDS:
        view.board = _board(state)
        view.numbers = [(v.number,) if isinstance(v, Guess) else (v.a, v.b) if isinstance(v, Exchange) else ()
                        for v in values]
    elif prompt.kind == ep.FURTHER:
        view.vans = tuple(state.vans)
        guess = state.guesses[prompt.seat]
        for v in values:
            ok = isinstance(v, Move) and guess is not None
            path = walk(state.vans, v.player, guess + v.further) if ok else []
            view.paths.append(path)
            view.ends.append(path[-1][0] if path else None)
    elif prompt.kind in CARD_KINDS:
        view.cards = [v if isinstance(v, Customer) else v.take if isinstance(v, Move) else None for v in values]
        view.display = known_display(state)
    elif prompt.kind == ep.DELIVER:
        view.display = known_display(state)
    elif prompt.kind == ep.ACCEPT:
        view.dice, view.need = state.dice, state.guesses[prompt.seat]
    elif prompt.kind == ep.TIPS:
        view.hidden = seen_hand(state, prompt.seat)[1]
    return view


# ---------------------------------------------------------------------------------------------
# Undo


def undo_view(
    players: Sequence[str], plays: Mapping[int, Sequence[Any]], round: int, turn: int, turns: int = 1
) -> RollUndoView:
    """Confirm taking back the last ``turns`` journal steps; ``plays`` (seat → engine actions) is the
    last one, in words per seat (:func:`describe_actions`), and (``round``, ``turn``) its place. A step
    that only laid out the display (``{seat: ()}``) reads "the display laid out".

    Raises:
        ValueError: ``turns`` below 1, a seat in ``plays`` that ``players`` has not, or an action that
            is no Sushi Express action.
    """
    if type(turns) is not int or turns < 1:
        raise ValueError(f"undo takes back at least 1 step, not {turns!r}")
    order = _check_seats(len(players), sorted(plays), "undo")
    seats = [UndoSeat(players[s], describe_actions(players, plays[s]) or [DISPLAY_STEP], s) for s in order]
    where = f"round {round}, turn {turn}"
    if turns > 1:
        return RollUndoView(f"Take back {plural(turns, 'step')}?", seats, f"The last of them, {where}:")
    if all(not tuple(plays[s]) for s in order):
        what = DISPLAY_STEP
    else:
        what = f"{players[order[0]]}'s turn" if len(order) == 1 else "this step"
    return RollUndoView(f"Take back {what} ({where})?", seats, "Put the table back as it was before it:")


# ---------------------------------------------------------------------------------------------
# Round summary


@dataclass
class ExpressRoundView(_Renders):
    """A round just ended: the ring with every van (``seats[i].tile``), each seat's collection so far
    (customers by colour, tips, action cards) and the new ``display`` (None: not laid out yet)."""

    title: str
    seats: list[ExpressSeat]
    display: list[Customer] | None
    round: int = 1

    @property
    def vans(self) -> tuple[int, ...]:
        """Each seat's van tile."""
        return tuple(s.tile for s in self.seats)


def round_summary_view(state: SushiExpressState, round_number: int | str | None = None) -> ExpressRoundView:
    """The table after a round: every van on the ring, each seat's customers by colour, tips and action
    cards, and the display laid out for the next round.

    Sushi Express scores only at the end (SCORING), so there are no round points to show:
    ``round_number`` (None, an int, or :data:`~companion.rules.core.GAME_END`) changes only the title;
    every value shows the state as it is now (the collections so far).
    """
    done = state.round if state.is_over else state.round - 1
    if state.is_over:
        title = "Game over: the collections"
    elif done >= 1:
        title = f"Round {done} done: collections so far"
    else:
        title = "Before round 1: the table"
    seats = _seats(state)
    for seat in seats:  # a summary: nobody's turn on it
        seat.active = False
    return ExpressRoundView(title, seats, known_display(state), max(done, 0))


# ---------------------------------------------------------------------------------------------
# Final screen


@dataclass
class ExpressFinalRow:
    """One line of the final ranking: customer points, the tip penalty (0 or negative), the tips held,
    the total, action cards left (tips not counted: the tie-break), ``colours``: (customer, cards,
    points) for each colour held (3 for the first card, 1 for each further: SCORING), the rules'
    breakdown ``lines``, the seat, and the ``rank`` (1-based; rows equal on points and action cards
    left share one)."""

    name: str
    customer_points: int
    tip_points: int
    tips: int
    total: int
    actions_left: int
    colours: list[tuple[Customer, int, int]] = field(default_factory=list)
    lines: list[ScoreLine] = field(default_factory=list)
    seat: int | None = None
    rank: int = 1


@dataclass
class ExpressFinalView(_Renders):
    """The end of a Sushi Express game: ``rows`` best first (ties on points in tie-break order), the
    ``winners``, and ``tie_break``: how a tie on points was settled, or "" (citing ``section``)."""

    rows: list[ExpressFinalRow]
    winners: list[str]
    tie_break: str = ""
    section: str = SCORING
    title: str = "Game over"


def tie_break_words(state: SushiExpressState) -> str:
    """How a tie on points for the win was settled, or "" when one player had the most points: "Ann and
    Bo tied on 14; Ann wins with more action cards left (3 vs 1)", or "... with 2 action cards left
    each: they share the win" (SCORING: "the player among them with the most action cards left is the
    winner. The tip action cards are not counted").

    Raises:
        ValueError: the game is not over.
    """
    if state.result is None:
        raise ValueError("the game is not over yet: no winner")
    r = state.result
    best = max(r.totals)
    tied = [s for s, t in enumerate(r.totals) if t == best]
    if len(tied) < 2:
        return ""
    names = join_names([r.players[s] for s in tied])
    winners = [s for s in tied if r.players[s] in r.winners]
    left = r.tie_break[winners[0]]
    if len(winners) == 1:
        runner_up = max(r.tie_break[s] for s in tied if s != winners[0])
        return f"{names} tied on {best}; {r.winners[0]} wins with more action cards left ({left} vs {runner_up})"
    cards = plural(left, "action card")
    if len(winners) == len(tied):
        return f"{names} tied on {best} with {cards} left each: they share the win"
    return f"{names} tied on {best}; {join_names(list(r.winners))} share the win with {cards} left each"


def final_view(state: SushiExpressState) -> ExpressFinalView:
    """The end screen: the ranking best first (total, then action cards left), per player the
    breakdown (3 for the first card of a colour, 1 for each further, the tip penalty), the winner(s)
    and how a tie was broken (SCORING).

    Raises:
        ValueError: the game is not over.
    """
    if state.result is None:
        raise ValueError("the game is not over yet: no final screen")
    r = state.result
    order = sorted(range(len(r.players)), key=lambda s: (-r.totals[s], -r.tie_break[s], s))
    rows = []
    for s in order:
        held = Counter(state.collected[s])
        colours = [(c, held[c], colour_points(held[c])) for c in COLOURS if held[c]]
        better = sum((r.totals[o], r.tie_break[o]) > (r.totals[s], r.tie_break[s]) for o in order)
        rows.append(ExpressFinalRow(r.players[s], r.customer_points[s], r.tip_points[s], r.tips[s], r.totals[s],
                                    r.tie_break[s], colours, [ln for ln in r.breakdown if ln.seat == s], s,
                                    better + 1))
    return ExpressFinalView(rows, list(r.winners), tie_break_words(state))
