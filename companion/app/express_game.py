"""Sushi Express at the table (issue #11): the panel runs the game, the camera reads the two dice.

One :class:`ExpressTableGame` holds a game played with real cards
(:class:`~companion.rules.sushi_express.table.TableState`) behind the same loop as the other games
(:class:`companion.app.play.PlayLoop`): ``look``/``feed``/``resync``/``next_seats``/``state``.

* **The panel** answers :class:`~companion.app.express_prompts.Prompt` questions, asked one at a time
  as ``"ambiguous"`` outcomes whose ``question.detail`` is the prompt; the loop hands each answer to
  :meth:`ExpressTableGame.answer` and reads the table again. Answers gather in a draft until they make
  one whole step (a guess, a move with its "1 tile further" cards and customer, keep or discard, with
  the customer cards then drawn into the display and, at the game's end, the tip cards among hidden
  hands); only a whole step is applied and journalled, so a refused or unanswered step changes nothing.
* **The camera** reads the dice in phase 2 (2. roll dice). The dice at rest when a roll is due are the
  reference; a settle that shows two readable dice, both moved, is a try (``Roll``); one moved after a
  failed try is a "re-roll" of that die (THE ACTION CARDS, Re-roll). No dice, one die, a third die, or a
  die whose top face cannot be read (cocked, on its edge) is a status asking to roll again, never a
  reading.
* Steps that need nobody's answer are applied at once: a guess by a player who cannot hold "place
  exchange" ends their turn; a van moves by its guess when its player cannot hold "1 tile further"; a
  van takes the only customer kind left.

The companion moves no van itself: the screen shows where each van goes, and the players move them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

from companion.app.express_prompts import (
    ACCEPT_ITEM,
    BACK,
    DONE_ITEM,
    EXCHANGE_ITEM,
    SAME_GUESS_ITEM,
    Prompt,
    accept_prompt,
    customer_prompt,
    deliver_prompt,
    display_prompt,
    end_turn_prompt,
    exchange_pairs,
    exchange_prompt,
    further_prompt,
    guess_prompt,
    may_play_further,
    same_guess_prompt,
    tips_prompt,
    which_roll_prompt,
)
from companion.app.table_game import (
    AMBIGUOUS, APPLIED, GAME_OVER, ILLEGAL, SYNCED, UNREADABLE, WAITING, Question, TurnOutcome,
)
from companion.rules.errors import IllegalAction
from companion.rules.sushi_express.engine import van_path
from companion.rules.sushi_express.state import (
    PHASE_2,
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
    SushiExpressOptions,
)
from companion.rules.sushi_express.table import (
    TableState, advance, can_hold, display_draws, lay_display, new_table_game, table_apply,
)

#: A die counts as moved when its centre is more than this many die sides from where it lay (or it
#: shows another face): a die nudged by a hand is not a roll.
MOVED_SIDES = 0.6


@dataclass(frozen=True)
class Laid:
    """Customer cards laid into the display in one step, in order (PREPARATION; 4. make deliveries).
    Part of an applied step's plays, beside the engine actions."""

    cards: tuple[Customer, ...]
    first: bool = False  # the display laid out before round 1


@dataclass(frozen=True)
class Tips:
    """At the game's end: seat → tip cards among that player's hidden action cards (SCORING)."""

    counts: tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class ExpressLook:
    """One frame read, not yet judged: ``dice`` the pip dice found (DieObservation, left to right), or
    None when the frame was not read for dice (outside phase 2); ``message`` why not, if anything."""

    dice: tuple[Any, ...] | None
    message: str = ""
    fresh: bool = False


@dataclass
class _Draft:
    """The answers of the step being put together (module doc)."""

    actions: list = field(default_factory=list)
    drawn: list = field(default_factory=list)
    tips: dict = field(default_factory=dict)
    menu: str | None = None  # an open sub-menu (SAME_GUESS_ITEM, EXCHANGE_ITEM) or "customer"
    move: Move | None = None  # the move whose customer is asked
    dice: Any = None  # the dice reading of a drafted try, the reference once applied
    choice: tuple = ()  # WHICH_ROLL: the re-roll and the try the sight fits


def _side(die) -> float:
    (x0, y0), (x1, y1) = die.quad[0], die.quad[1]
    return max(1.0, ((x1 - x0) ** 2 + (y1 - y0) ** 2) ** 0.5)


def _moved(now, before: Sequence[Any]) -> list[int]:
    """Indices of the dice in ``now`` that are not where a die of ``before`` lay with the same face."""
    out = []
    for i, d in enumerate(now):
        side = _side(d)
        still = any(b.face == d.face and ((b.center[0] - d.center[0]) ** 2 + (b.center[1] - d.center[1]) ** 2) ** 0.5
                    <= MOVED_SIDES * side for b in before)
        if not still:
            out.append(i)
    return out


class ExpressTableGame:
    """A Sushi Express game run from the panel, its dice read from overhead frames (module doc).

    Args:
        players: names in seat order (seat i+1 sits clockwise of seat i).
        options: the game's open points.

    Raises:
        ValueError: as :func:`~companion.rules.sushi_express.table.new_table_game`.
    """

    reads_after_turn = True  # the next question needs no change on the table: read again at once

    def __init__(self, players: Sequence[str], options: SushiExpressOptions | None = None) -> None:
        self.state: TableState = new_table_game(list(players), options)
        self._draft = _Draft()
        self._ref: tuple[Any, ...] | None = None  # the dice at rest before the roll due now
        self._answers: list[tuple[int, str]] = []
        self._restored: list[tuple[int, str]] = []

    # ---- what the loop asks -------------------------------------------------------------------
    def next_seats(self) -> tuple[int, ...]:
        """The seat the table waits for (its LED glows): who answers or rolls now; none at the end."""
        if self.state.is_over:
            return ()
        prompt = self.prompt()
        if prompt is not None:
            return (prompt.seat,)
        return () if self.state.current is None else (self.state.current,)

    def card_crop(self, frame, center_mm, px_per_mm: float = 4.0):
        """No card is named from the camera in this game: None."""
        return None

    def restore(self, answers: Sequence[tuple[int, str]]) -> None:
        """Answers journalled before a stop for a step not yet applied (seat, label), in order: they
        are taken again once the table is synced (a resumed game asks only what was not answered)."""
        self._restored = list(answers)

    def answer(self, seat: int, label: str) -> None:
        """The panel's answer ``label`` to the question asked of ``seat``; used at the next
        :meth:`feed` (an answer that fits no question then is dropped)."""
        self._answers.append((seat, label))

    # ---- reading ------------------------------------------------------------------------------
    def look(self, frame, fresh: bool = False) -> ExpressLook:
        """Read the dice in ``frame`` ((H, W, 3) uint8 BGR) while they matter (phase 2, or ``fresh``
        for a resumed game); other frames are not read (nothing else on the table is the camera's)."""
        if not fresh and self.state.phase is not Phase.ROLL:
            return ExpressLook(None, "", fresh)
        from companion.vision.dice_d6 import read_d6

        if frame is None:
            return ExpressLook((), "no picture", fresh)
        return ExpressLook(tuple(read_d6(frame)), "", fresh)

    def _where(self) -> dict[str, int]:
        return {"round": self.state.round, "turn": self.state.turn}

    def resync(self, frame, state: TableState, look: ExpressLook | None = None) -> TurnOutcome:
        """Adopt ``state`` (rebuilt from the journal: a resumed game or an undo). The camera checks
        nothing but the dice, and those only become the reference for the next roll; the screen shows
        where every van and marker belongs."""
        self.state = state
        self._draft = _Draft()
        self._answers, self._restored = self._restored, []
        look = look if look is not None and look.dice is not None else self.look(frame, fresh=True)
        self._ref = look.dice
        return TurnOutcome(SYNCED, "check the vans, markers and cards against the screen", **self._where())

    def feed(self, frame, named=None, look: ExpressLook | None = None, first=None) -> TurnOutcome:
        """Judge a settled frame and the panel's answers; apply a whole step when there is one
        (module doc). Nothing changes unless the outcome is ``"applied"``."""
        if self.state.is_over:
            return TurnOutcome(GAME_OVER, "the game is over", **self._where())
        answers, self._answers = self._answers, []
        for seat, label in answers:
            outcome = self._take_answer(seat, label)
            if outcome is not None:
                return outcome
        if self.state.phase is Phase.ROLL and not self._draft.actions and self._draft.menu is None:
            look = look if look is not None and look.dice is not None else self.look(frame, fresh=True)
            outcome = self._judge_dice(look.dice or ())
            if outcome is not None:
                return outcome
        return self._next()

    # ---- the step being put together ----------------------------------------------------------
    def prompt(self) -> Prompt | None:
        """The question to ask now, or None (a roll is awaited, or a step is ready to apply)."""
        s, d = self.state, self._draft
        if not s.display_known:
            return display_prompt(s, s.current, len(d.drawn) + 1, s.seats, "lay out the display", d.drawn)
        if d.actions:
            return self._finishing_prompt()
        seat = s.current
        if s.phase is Phase.GUESS:
            if d.menu == SAME_GUESS_ITEM:
                return same_guess_prompt(s, seat)
            if d.menu == EXCHANGE_ITEM:
                return exchange_prompt(s, seat)
            if s.marker_number(seat) is None:
                return guess_prompt(s, seat)
            return end_turn_prompt(s, seat) if self._may_exchange(seat) else None
        if s.phase is Phase.ROLL:
            if d.menu == "which_roll":
                return which_roll_prompt(s, seat, *d.choice)
            if s.tries >= TRIES and s.dice is not None:
                return accept_prompt(s, seat)
            return None
        if s.phase is Phase.MOVE:
            if d.menu == "customer" and d.move is not None:
                return customer_prompt(s, d.move)
            return further_prompt(s, seat) if may_play_further(s, seat) else None
        if s.phase is Phase.DELIVER:
            return deliver_prompt(s, seat)
        return None

    def _may_exchange(self, seat: int) -> bool:
        return bool(exchange_pairs(self.state)) and can_hold(self.state, seat, ActionCard.PLACE_EXCHANGE)

    def _finishing_prompt(self) -> Prompt | None:
        """After the step's actions: the customer cards drawn into the display, then the tips."""
        s, d = self.state, self._draft
        try:
            need = self._draws()
        except IllegalAction:
            return None
        refiller = s.lowest if s.lowest is not None else s.current
        if len(d.drawn) < need:
            return display_prompt(s, refiller, len(d.drawn) + 1, need, "refill the display", d.drawn)
        hidden = self._hidden_at_end()
        for i, seat in enumerate(hidden):
            if seat not in d.tips:
                return tips_prompt(self._end_state(), seat, i + 1, len(hidden))
        return None

    def _draws(self) -> int:
        """Customer cards the drafted actions draw into the display (the last action draws them)."""
        state = self.state
        for action in self._draft.actions[:-1]:
            state = advance(state, action)
        return display_draws(state, self._draft.actions[-1])

    def _end_state(self) -> TableState:
        state = self.state
        for i, action in enumerate(self._draft.actions):
            last = i == len(self._draft.actions) - 1
            state = advance(state, action, tuple(self._draft.drawn) if last else ())
        return state

    def _hidden_at_end(self) -> list[int]:
        """Seats with hidden action cards when the drafted step ends the game (else none)."""
        need = self._draws()
        if len(self._draft.drawn) < need:
            return []
        end = self._end_state()
        return [s for s in range(end.seats) if end.is_over and end.hidden(s)]

    def _take_answer(self, seat: int, label: str) -> TurnOutcome | None:
        prompt = self.prompt()
        if prompt is None or prompt.seat != seat or label not in prompt.options:
            return None  # an answer to a question no longer asked
        value = prompt.value(label)
        d = self._draft
        if prompt.kind == "display":
            d.drawn.append(value)
            if not self.state.display_known and len(d.drawn) == self.state.seats:
                return self._lay_first()
            return None
        if prompt.kind == "tips":
            d.tips[seat] = value
            return None
        if value == BACK:
            d.menu, d.move = None, None
            return None
        if value in (SAME_GUESS_ITEM, EXCHANGE_ITEM):
            d.menu = value
            return None
        if value == DONE_ITEM:
            d.actions = [EndTurn(seat)]
        elif value == ACCEPT_ITEM:
            d.actions = [AcceptRoll(seat)]
        elif prompt.kind == "deliver":
            d.actions = [Deliver(seat, bool(value))]
        elif isinstance(value, Guess):
            d.actions = [value] + ([] if self._may_exchange_after(value) else [EndTurn(seat)])
        elif isinstance(value, Exchange):
            d.actions = [value]
        elif isinstance(value, Move):
            return self._choose_move(value)
        elif isinstance(value, (Roll, ReRoll)):
            d.actions = [value]
        d.menu = None
        return None

    def _may_exchange_after(self, guess: Guess) -> bool:
        try:
            after = advance(self.state, guess)
        except IllegalAction:
            return False
        return bool(exchange_pairs(after)) and can_hold(after, guess.player, ActionCard.PLACE_EXCHANGE)

    def _choose_move(self, move: Move) -> TurnOutcome | None:
        """A move's distance is chosen: ask for the customer when it reaches Sushi Express (unless
        one kind is left), else the move is the step."""
        s, d = self.state, self._draft
        if move.take is None:
            guess = s.guesses[move.player] or 0
            further = move.further if type(move.further) is int else 0
            _, passed = van_path(s.vans, move.player, guess + further)
            kinds = {c for c in s.display}
            if passed and len(kinds) > 1:
                d.menu, d.move = "customer", move
                return None
            if passed and kinds:
                move = Move(move.player, move.further, next(iter(kinds)))
        d.menu, d.move = None, None
        d.actions = [move]
        return None

    def _lay_first(self) -> TurnOutcome:
        cards = tuple(self._draft.drawn)
        where = self._where()
        seat = self.state.current
        try:
            after = lay_display(self.state, cards)
        except IllegalAction as exc:
            self._draft = _Draft()
            return self._illegal(exc, where)
        self.state = after
        self._draft = _Draft()
        return TurnOutcome(APPLIED, f"display: {', '.join(c.label for c in cards)}", plays={seat: (Laid(cards, True),)},
                           **where)

    def _next(self) -> TurnOutcome:
        """Ask the next question, wait for the roll, or apply the step that is complete."""
        where = self._where()
        s = self.state
        if not self._draft.actions and s.phase is Phase.MOVE and not may_play_further(s, s.current) \
                and self._draft.menu is None:
            self._choose_move(Move(s.current, 0))  # no card to play: the van goes by its guess
        prompt = self.prompt()
        if prompt is not None:
            return TurnOutcome(AMBIGUOUS, prompt.text, question=Question(prompt.seat, prompt.text, prompt.options,
                                                                          unanswered="press OK to answer",
                                                                          detail=prompt), **where)
        if self._draft.actions:
            return self._apply_draft()
        if s.phase is Phase.GUESS:  # placed, and no exchange to offer: the turn ends
            self._draft.actions = [EndTurn(s.current)]
            return self._apply_draft()
        return self._roll_waiting(where)

    def _roll_waiting(self, where, why: str = "") -> TurnOutcome:
        s = self.state
        seat = s.current
        guess = s.guesses[seat]
        if s.dice is None:
            text = f"{s.players[seat]} rolls both dice: try {s.tries + 1} of {TRIES}, needs {guess} or more"
        else:
            a, b = s.dice
            text = (f"{s.players[seat]} rolled {a}+{b} = {a + b}, needs {guess}: roll both dice again "
                    f"(try {s.tries + 1} of {TRIES}), or re-roll one die with a re-roll card")
        return TurnOutcome(WAITING, f"{why}{text}", waiting=(seat,), **where)

    def _apply_draft(self) -> TurnOutcome:
        d = self._draft
        where = self._where()
        before = self.state
        seat = d.actions[0].player
        state = before
        try:
            for i, action in enumerate(d.actions):
                last = i == len(d.actions) - 1
                drawn = tuple(d.drawn) if last else ()
                state = table_apply(state, action, drawn, d.tips) if last else advance(state, action)
        except IllegalAction as exc:
            self._draft = _Draft()
            return self._illegal(exc, where)
        plays: tuple[Any, ...] = tuple(d.actions)
        if d.drawn:
            plays += (Laid(tuple(d.drawn)),)
        if d.tips:
            plays += (Tips(tuple(sorted(d.tips.items()))),)
        if d.dice is not None:
            self._ref = d.dice
        self.state = state
        self._draft = _Draft()
        if state.phase is Phase.ROLL and before.phase is not Phase.ROLL:
            self._ref = None  # read the dice at rest as the first sight of phase 2
        return TurnOutcome(APPLIED, "", plays={seat: plays}, **where)

    def _illegal(self, exc: IllegalAction, where) -> TurnOutcome:
        return TurnOutcome(ILLEGAL, str(exc), rule=getattr(exc, "rule", ""), player=getattr(exc, "player", None),
                           error=exc, **where)

    # ---- the dice -----------------------------------------------------------------------------
    def _judge_dice(self, dice: Sequence[Any]) -> TurnOutcome | None:
        """A settled sight in phase 2 (module doc); None when it shows nothing new."""
        s = self.state
        where = self._where()
        seat = s.current
        if self._ref is None:  # the first sight of this roll: the dice at rest before it
            self._ref = tuple(dice)
            return None
        if not dice:
            return self._roll_waiting(where)
        unread = [d for d in dice if d.value is None]
        if unread or len(dice) != 2:
            if unread:
                why = "a die is cocked or on its edge"
            elif len(dice) == 1:
                why = "one die is seen"
            else:
                why = f"{len(dice)} dice are seen: Sushi Express is rolled with two"
            return TurnOutcome(UNREADABLE, f"{why}: roll both dice again ({PHASE_2})", waiting=(seat,), **where)
        moved = _moved(dice, self._ref if len(self._ref) == 2 else ())
        if not moved:
            return None
        values = tuple(d.value for d in dice)
        if len(moved) == 2:
            action: Any = Roll(seat, values)  # type: ignore[arg-type]
        elif s.dice is not None:
            still = values[1 - moved[0]]
            die = 1 if s.dice[0] == still else 0
            action = ReRoll(seat, die, values[moved[0]])
            if s.tries < TRIES and can_hold(s, seat, ActionCard.RE_ROLL):
                # a second try whose die landed where one lay looks the same: asked, never guessed
                self._draft = _Draft(menu="which_roll", dice=tuple(dice), choice=(action, Roll(seat, values)))
                return None
            if s.tries < TRIES:
                action = Roll(seat, values)  # no re-roll card to play: both dice were thrown
        else:
            return TurnOutcome(UNREADABLE, f"only one die moved: roll both dice ({PHASE_2})", waiting=(seat,),
                               **where)
        self._draft = _Draft(actions=[action], dice=tuple(dice))
        try:
            self._draws()
        except IllegalAction as exc:
            self._draft = _Draft()
            self._ref = tuple(dice)  # the refused throw is void: the next one is judged from here
            return self._illegal(exc, where)
        return None


def describe_step(players: Sequence[str], items: Sequence[Any], state: Any = None) -> list[str]:
    """An applied step's plays in words: the engine actions (``express_views.describe_actions``; with
    ``state``, the state the step led to, a move names the tile it ends on), the cards laid in the
    display and the tips said at the end."""
    from companion.app.express_views import describe_actions

    actions = [a for a in items if not isinstance(a, (Laid, Tips))]
    words = describe_actions(players, actions, state) if actions else []
    for item in items:
        if isinstance(item, Laid):
            what = "lays out the display" if item.first else "refills the display"
            words.append(f"{what}: {', '.join(c.label for c in item.cards)}")
        elif isinstance(item, Tips):
            words.append("tips among hidden cards: " + ", ".join(f"{players[s]} {n}" for s, n in item.counts))
    return words


def strip_extras(items: Sequence[Any]) -> tuple[Any, ...]:
    """The engine actions of a step (without the cards laid and the tips)."""
    return tuple(a for a in items if not isinstance(a, (Laid, Tips)))


