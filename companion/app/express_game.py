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
    confirm_prompt,
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
    TableState, advance, can_hold, name_display, new_table_game, reveal_tips,
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
    auto: bool = False  # the actions need nobody's answer (the rules leave no choice)


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
        self._restored: list[Any] = []
        self._hold = False  # after an undo: a step nobody is asked about waits for OK

    # ---- what the loop asks -------------------------------------------------------------------
    def next_seats(self) -> tuple[int, ...]:
        """The seat the table waits for (its LED glows): who answers or rolls now; none at the end."""
        if self.state.is_over:
            return ()
        prompt = self.prompt()
        if prompt is not None:
            return (prompt.seat,)
        return () if self.state.current is None else (self.state.current,)

    @property
    def awaiting_throw(self) -> bool:
        """Whether the table waits for the dice (phase 2, no throw being asked about): a throw now is
        judged. A simulated hand throws only then (``companion.sim.express_bots``)."""
        s = self.state
        if s.is_over or s.phase is not Phase.ROLL or s.unnamed or self._draft.actions or self._draft.menu:
            return False
        return True

    def card_crop(self, frame, center_mm, px_per_mm: float = 4.0):
        """No card is named from the camera in this game: None."""
        return None

    def restore(self, events: Sequence[Any]) -> None:
        """Journal events written before a stop for a step not yet applied, in order: ``"seen"`` (a
        throw asked about) and ``"chose"`` (an answer). They are taken again once the table is synced,
        so a resumed game asks only what was not answered."""
        self._restored = list(events)

    def undone(self) -> None:
        """The players took a step back (UNDO): the next step that needs nobody's answer is shown and
        waits for OK instead of being applied again at once (a second UNDO can then go further)."""
        self._hold = True

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
        self._answers = []
        for event in self._restored:
            if event.kind == "chose":
                self._answers.append((event.payload.get("seat"), event.payload.get("first")))
            elif event.kind == "seen":
                self._draft = _draft_of_note(state, event.payload)
        self._restored = []
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
        if s.unnamed:  # the display's new cards are named before anything else
            who = s.current if s.current is not None else (s.lowest if s.lowest is not None else s.start_player)
            why = "lay out the display" if s.round == 1 and s.phase is Phase.GUESS and not s.guess_turn \
                else "refill the display"
            return display_prompt(s, who, len(d.drawn) + 1, s.unnamed, why, d.drawn)
        if s.tips_asked:
            hidden = [seat for seat in range(s.seats) if s.hidden(seat)]
            seat = next(seat for seat in hidden if seat not in d.tips)
            return tips_prompt(s, seat, hidden.index(seat) + 1, len(hidden), d.tips)
        if d.actions:
            if self._hold and d.auto:
                words = "; ".join(describe_step(s.players, d.actions))
                return confirm_prompt(s, d.actions[0].player, words)
            return None
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
                return which_roll_prompt(s, seat, d.choice)
            if s.tries >= TRIES and s.dice is not None:
                return accept_prompt(s, seat)
            return None
        if s.phase is Phase.MOVE:
            if d.menu == "customer" and d.move is not None:
                return customer_prompt(s, d.move, back=may_play_further(s, seat))
            return further_prompt(s, seat) if may_play_further(s, seat) else None
        if s.phase is Phase.DELIVER:
            return deliver_prompt(s, seat)
        return None

    def _may_exchange(self, seat: int) -> bool:
        return bool(exchange_pairs(self.state)) and can_hold(self.state, seat, ActionCard.PLACE_EXCHANGE)

    def _take_answer(self, seat: int, label: str) -> TurnOutcome | None:
        prompt = self.prompt()
        if prompt is None or prompt.seat != seat or label not in prompt.options:
            return None  # an answer to a question no longer asked
        value = prompt.value(label)
        d = self._draft
        if prompt.kind == "display":
            d.drawn.append(value)
            return self._name_display() if len(d.drawn) == self.state.unnamed else None
        if prompt.kind == "confirm":
            self._hold = False
            return None
        if prompt.kind == "tips":
            d.tips[seat] = value
            if all(d.tips.get(s) is not None for s in range(self.state.seats) if self.state.hidden(s)):
                return self._say_tips()
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
        elif prompt.kind == "which_roll":
            d.actions = list(value)
        elif isinstance(value, Guess):
            d.actions = [value] + ([] if self._may_exchange_after(value) else [EndTurn(seat)])
        elif isinstance(value, Exchange):
            d.actions = [value]
        elif isinstance(value, Move):
            return self._choose_move(value)
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

    def _name_display(self) -> TurnOutcome:
        """The display's new cards are named: a step of its own (PREPARATION; 4. make deliveries)."""
        cards = tuple(self._draft.drawn)
        where = self._where()
        first = self.state.round == 1 and self.state.phase is Phase.GUESS and not self.state.guess_turn
        seat = self.prompt().seat  # type: ignore[union-attr]
        try:
            after = name_display(self.state, cards)
        except IllegalAction as exc:
            self._draft = _Draft()
            return self._illegal(exc, where)
        self.state, self._draft = after, _Draft()
        return TurnOutcome(APPLIED, f"display: {', '.join(c.label for c in cards)}",
                           plays={seat: (Laid(cards, first),)}, **where)

    def _say_tips(self) -> TurnOutcome:
        """Every hidden hand's tips are said: the game is scored (SCORING)."""
        tips = dict(self._draft.tips)
        where = self._where()
        seat = min(tips)
        try:
            after = reveal_tips(self.state, tips)
        except IllegalAction as exc:
            self._draft = _Draft()
            return self._illegal(exc, where)
        self.state, self._draft = after, _Draft()
        return TurnOutcome(APPLIED, "the tips are counted", plays={seat: (Tips(tuple(sorted(tips.items()))),)},
                           **where)

    def _next(self) -> TurnOutcome:
        """Ask the next question, wait for the roll, or apply the step that is complete."""
        where = self._where()
        s = self.state
        if not self._draft.actions and s.phase is Phase.MOVE and not may_play_further(s, s.current) \
                and self._draft.menu is None:
            self._choose_move(Move(s.current, 0))  # no card to play: the van goes by its guess
            self._draft.auto = bool(self._draft.actions)
        if not self._draft.actions and s.phase is Phase.GUESS and s.marker_number(s.current) is not None \
                and self._draft.menu is None and not self._may_exchange(s.current):
            self._draft.actions, self._draft.auto = [EndTurn(s.current)], True  # placed, nothing left to play
        prompt = self.prompt()
        if prompt is not None:
            note = _note_of(self._draft) if prompt.kind == "which_roll" else None
            return TurnOutcome(AMBIGUOUS, prompt.text, question=Question(prompt.seat, prompt.text, prompt.options,
                                                                          unanswered="press OK to answer",
                                                                          detail=prompt, note=note), **where)
        if self._draft.actions:
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
            card = ", or re-roll one die with a re-roll card" if can_hold(s, seat, ActionCard.RE_ROLL) else ""
            text = (f"{s.players[seat]} rolled {a}+{b} = {a + b}, needs {guess}: roll both dice again "
                    f"(try {s.tries + 1} of {TRIES}){card}")
        return TurnOutcome(WAITING, f"{why}{text}", waiting=(seat,), **where)

    def _apply_draft(self) -> TurnOutcome:
        d = self._draft
        where = self._where()
        before = self.state
        seat = d.actions[0].player
        state = before
        try:
            for action in d.actions:
                state = advance(state, action)
        except IllegalAction as exc:
            self._draft = _Draft()
            return self._illegal(exc, where)
        plays: tuple[Any, ...] = tuple(d.actions)
        if d.dice is not None:
            self._ref = d.dice
        self.state = state
        self._draft = _Draft()
        self._hold = False
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
        if not dice:  # picked up to be thrown (or to re-roll after the last try: still asked)
            return None if s.tries >= TRIES else self._roll_waiting(where)
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
        values: tuple[int, int] = (dice[0].value, dice[1].value)  # type: ignore[assignment]
        choices = self._throws(values, moved)
        if isinstance(choices, TurnOutcome):
            self._ref = tuple(dice)  # that sight is no throw to judge again
            return choices
        if len(choices) > 1:  # the sight fits two legal plays: asked, never guessed
            self._draft = _Draft(menu="which_roll", dice=tuple(dice), choice=tuple(choices))
            return None
        self._draft = _Draft(actions=list(choices[0][1]), dice=tuple(dice))
        return None

    def _throws(self, values: tuple[int, int], moved: list[int]):
        """What a throw showing ``values`` with the dice ``moved`` (indices) can be, as (words,
        actions) choices (2. roll dice; THE ACTION CARDS, Re-roll): a try with both dice; after a failed
        try, "re-roll" cards, one die each, the die left lying showing what the try showed. A
        TurnOutcome when it can be none of them."""
        s = self.state
        seat = s.current
        where = self._where()
        out: list[tuple[str, tuple]] = []
        if s.tries < TRIES and len(moved) == 2:
            out.append((f"rolled both dice: {values[0]}+{values[1]} (try {s.tries + 1})", (Roll(seat, values),)))
        if s.dice is not None:
            if len(moved) == 1:
                still = values[1 - moved[0]]
                if still in s.dice and can_hold(s, seat, ActionCard.RE_ROLL):
                    die = 0 if s.dice[1] == still else 1
                    out.append((f"re-rolled the {s.dice[die]}: now {values[moved[0]]} (a re-roll card)",
                                (ReRoll(seat, die, values[moved[0]]),)))
                if s.tries < TRIES:  # or the next try, one die landing where it lay
                    out.append((f"rolled both dice: {values[0]}+{values[1]} (try {s.tries + 1})",
                                (Roll(seat, values),)))
                if not out and still not in s.dice:
                    a, b = s.dice
                    return TurnOutcome(UNREADABLE, f"the die left lying shows {still}, but the last try was {a}+{b}:"
                                       f" lay the dice as the screen shows, then re-roll one ({PHASE_2})",
                                       waiting=(seat,), **where)
            elif can_hold(s, seat, ActionCard.RE_ROLL, 2):
                # one card after the other: the first die alone must still fall short, or the second
                # card would not be played (Re-roll: "If the player rolls lower than his guess")
                guess = s.guesses[seat] or 0
                for first, second in ((0, 1), (1, 0)):
                    kept = s.dice[second]
                    if values[first] + kept < guess:
                        out.append((f"two re-roll cards: {values[0]}+{values[1]}",
                                    (ReRoll(seat, first, values[first]), ReRoll(seat, second, values[second]))))
                        break
        if out:
            return out
        if s.dice is None:
            return TurnOutcome(UNREADABLE, f"only one die moved: roll both dice ({PHASE_2})", waiting=(seat,), **where)
        a, b = s.dice
        return self._illegal(IllegalAction(
            f"{s.players[seat]} has used both tries ({a}+{b}): only a re-roll card re-rolls a die now, one die "
            f"each ({PHASE_2}; THE ACTION CARDS, Re-roll)", rule="tries-used", section=PHASE_2,
            player=s.players[seat]), where)


def _note_of(draft: _Draft) -> dict:
    """A drafted throw the panel is asked about, as the journal's ``"seen"`` event holds it."""
    from companion.app.games.sushi_express import encode_action

    return {"which_roll": [[words, [encode_action(a) for a in actions]] for words, actions in draft.choice],
            "dice": [[d.face, [list(p) for p in d.quad]] for d in draft.dice]}


def _draft_of_note(state: TableState, note: Any) -> _Draft:
    """The draft a ``"seen"`` note describes (a resumed game asks the same question); an empty draft
    for a note that does not fit the game now."""
    from companion.app.games.sushi_express import decode_action
    from companion.vision.observations import DieObservation

    try:
        seat = state.current
        choice = tuple((str(words), tuple(decode_action(seat, a) for a in acts)) for words, acts in note["which_roll"])
        dice = tuple(DieObservation(str(face), 1.0, tuple(tuple(p) for p in quad)) for face, quad in note["dice"])
    except (KeyError, TypeError, ValueError):
        return _Draft()
    if state.phase is not Phase.ROLL or len(choice) < 2 or len(dice) != 2:
        return _Draft()
    return _Draft(menu="which_roll", dice=dice, choice=choice)


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
