"""The dice game's table reader: a Sushi Roll game fed by overhead frames (issue #10).

The counterpart of :class:`companion.app.table_game.TableGame` for Sushi Roll, with the same face
to the play loop (:class:`companion.app.play.PlayLoop`): ``look`` reads a frame into dice per zone
and judges nothing; ``feed`` judges a reading against the game and applies what it shows;
``resync`` adopts a state (an undo, a resumed game) once the table shows it; ``card_crop`` cuts
out what the camera saw around a die for the picker. Outcomes are
:class:`~companion.app.table_game.TurnOutcome`; an applied outcome's ``plays`` is
``{seat: (engine actions, ...)}``, a roll of the belts ``{seat: (Roll(faces=(that belt,)),)}``
for every seat.

What a settled frame means depends on what the game waits for (sushi-roll.txt):

* **the dice to be rolled** (``Phase.ROLL``): at a round's start (SET UP, STARTING A NEW ROUND)
  every tray must be cleared and every belt hold its 8/7/6/5 dice, otherwise the outcome is
  ``"waiting"`` naming the belt that is short or long; the dice are laid there showing any face,
  then picked up, rolled and put back (PLAYING A ROUND), so a belt counts as rolled once its dice
  moved since the first reading of full belts; after a slide (SLIDE AND ROLL) each belt
  must hold the dice passed from the right, and a belt that still shows exactly the faces it was
  passed with, its dice where they lay when a reading last showed it passed, has not been rolled
  yet (``"waiting"`` for it; a belt rolled between two settles that lands every die on the faces
  it was passed with is asked to be rolled again, which costs nothing: the roll was not counted).
  Then the faces read are the engine's ``Roll``;
* **a player's turn** (EVERYBODY TAKES A TURN): the change since the last reading is explained
  as that player's menu re-rolls, chopsticks swaps and take
  (:func:`companion.app.roll_moves.infer_actions`), which the engine checks.

A frame that cannot be read (no mat, a die no enrolled face matches, a die off every zone, fewer
or more dice than the game has on the table) changes nothing, nor does a refused move: the table
is read against the same reference once it is put right.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Sequence

from companion.app.roll_moves import (
    TURN, UNKNOWN, MoveReadError, SeenDie, TableDice, Turned, infer_actions, moved_faces,
)
from companion.app.table_game import (
    AMBIGUOUS, APPLIED, GAME_OVER, ILLEGAL, MISMATCH, NO_MAT, SYNCED, UNREADABLE, WAITING, Question, TurnOutcome,
)
from companion.app.turns import Ambiguous
from companion.rules.errors import IllegalAction
from companion.rules.sushi_roll import apply, new_game
from companion.rules.sushi_roll.dice import Face, as_face
from companion.rules.sushi_roll.state import Menu, Phase, Roll, SushiRollOptions, SushiRollState, tray_dice

if TYPE_CHECKING:  # numpy and cv2 are only needed once frames arrive
    import numpy as np

    from companion.app.roll_table import RollTableRead
    from companion.vision.dice_faces import DiceSet
    from companion.vision.mat_layout import MatLayout

SET_UP = "sushi-roll.txt, SET UP"
PLAYING = "sushi-roll.txt, PLAYING A ROUND"
SLIDE = "sushi-roll.txt, SLIDE AND ROLL"
NEW_ROUND = "sushi-roll.txt, STARTING A NEW ROUND"
#: A die the players named on the panel is the unknown die lying within this (mm) of where it was named.
NAMED_TOLERANCE_MM = 8.0
#: The picker's answers when dice moved on the active belt but show the faces they showed.
ONLY_MOVED, REROLLED = "no, they only moved", "yes, re-rolled (a menu token)"
#: The answer when the die taken shows another face than it showed on the belt.
TURNED = "no, it turned over on the way"


@dataclass(frozen=True)
class RollLook:
    """One frame read into dice per zone, not yet judged (:meth:`RollTableGame.look`).

    read: the dice of every belt and tray (:class:`~companion.app.roll_table.RollTableRead`),
        or None when the mat is not seen in the frame (or the frame is corrupt): ``message`` says why.
    homography: (3, 3) float64 image px → mat mm of this frame, or None.
    """

    read: Any
    message: str
    fresh: bool
    accepted: int
    homography: Any = None


def _faces(dice: Sequence[SeenDie]) -> Counter[Face]:
    return Counter(as_face(d.face) for d in dice)


def _kinds(faces) -> Counter:
    return Counter(as_face(f).kind for f in faces)


def _list(faces: Counter) -> str:
    return ", ".join(str(f) for f in sorted(faces.elements(), key=str)) or "nothing"


def _kind_list(kinds: Counter) -> str:
    return ", ".join(f"{n} {k}" for k, n in sorted(kinds.items(), key=lambda kv: str(kv[0]))) or "no dice"


def tray_shows(state: SushiRollState, seat: int, dice: Sequence[SeenDie]) -> bool:
    """True when ``dice`` (read on ``seat``'s tray) are the tray the game has: one die per place,
    the nigiri on a wasabi showing (the wasabi under it may or may not be seen;
    sushi-roll.txt, Nigiri and Wasabi)."""
    seen = _faces(dice)
    tops = Counter(p.nigiri or p.face for p in state.trays[seat])
    covered = sum(p.nigiri is not None for p in state.trays[seat])
    extra = seen - tops
    hidden = sum(n for f, n in extra.items() if str(f) == "wasabi")
    return not (tops - seen) and sum(extra.values()) == hidden and hidden <= covered


def _as_illegal(exc: MoveReadError, players: Sequence[str]) -> IllegalAction:
    """The refusal to show for a change no legal actions explain: the engine's own, or one made
    of the reader's rule (its citation taken off the message: the screen shows the section apart)."""
    if exc.error is not None:
        return exc.error
    found = re.search(r"\s*\((sushi-roll\.txt[^)]*)\)\s*$", exc.problem)
    message = exc.problem[: found.start()] if found else exc.problem
    section = found.group(1) if found else TURN
    player = exc.seat_name if exc.seat_name in players else None
    return IllegalAction(message, rule=exc.rule or "table", section=section, player=player)


def _same_faces_menu(actions: tuple) -> bool:
    return any(isinstance(a, Menu) and a.reroll == a.result for a in actions)


def _options(plays: tuple[tuple, ...]) -> dict[str, tuple]:
    """The answers on the panel for the ways of reading an ambiguous change: whether the dice
    that moved were re-rolled (one reading spends a menu token on faces that did not change),
    or which came first, the swap or the re-roll."""
    if any(isinstance(a, Turned) for p in plays for a in p):
        return {TURNED if isinstance(p[0], Turned) else REROLLED: p for p in plays}
    if len(plays) == 2 and _same_faces_menu(plays[0]) != _same_faces_menu(plays[1]):
        return {REROLLED if _same_faces_menu(p) else ONLY_MOVED: p for p in plays}
    return {("menu re-roll first" if isinstance(p[0], Menu) else "chopsticks swap first"): p for p in plays}


class RollTableGame:
    """A Sushi Roll game read from overhead frames of a Sushi Roll mat.

    Args:
        players: names in seat order (seat ``i``'s belt and tray are the mat's seat ``i`` zones).
        layout: a Sushi Roll mat (``load_mat_layout(n, game="sushi-roll")``).
        dice: the enrolled dice (``companion enroll --dice``).
        options: the game's open points.
        red_seat: who holds the red-bordered belt at the start (sushi-roll.txt, SET UP).

    Raises:
        ValueError: not a Sushi Roll mat, or fewer seats on it than players; as ``new_game``.
    """

    def __init__(self, players: Sequence[str], layout: MatLayout, dice: DiceSet,
                 options: SushiRollOptions | None = None, red_seat: int = 0) -> None:
        from companion.vision.mat import MatTracker

        self.state: SushiRollState = new_game(players, options=options, red_seat=red_seat)
        if layout.game != "sushi-roll":
            raise ValueError(f"mat {layout.name} is a {layout.game} mat; Sushi Roll is played on a sushi-roll mat")
        if layout.players < self.state.seats:
            raise ValueError(f"mat {layout.name} has {layout.players} seats but the game has {self.state.seats}")
        self.layout, self.dice = layout, dice
        self.tracker = MatTracker(layout)
        self._accepted = 0
        self._homography = None
        empty = ((),) * self.state.seats
        self._before = TableDice(empty, empty)  # the table at the last reading the game took
        # while the dice wait to be rolled: the first reading that showed every belt full and not
        # yet rolled (laid from the bag, or passed on); a belt whose dice moved since was rolled
        self._placed: TableDice | None = None
        self._asked_at = -1  # the reference a question was asked against (its answer is for that sight)

    def next_seats(self) -> tuple[int, ...]:
        """The seats the table waits for next (their LEDs glow): the player whose turn it is, or
        every seat while the dice are to be rolled (sushi-roll.txt, EVERYBODY TAKES A TURN; SLIDE
        AND ROLL); none once the game is over."""
        if self.state.is_over:
            return ()
        p = self.state.current_player
        return tuple(range(self.state.seats)) if p is None else (p,)

    # ---- reading --------------------------------------------------------------------------------
    def look(self, frame: np.ndarray, fresh: bool = False) -> RollLook:
        """Read one frame into dice per zone, judging nothing (see :class:`RollLook`). Only the
        mat tracker learns the frame's homography, so it may run on a worker thread ahead of the
        settle. ``fresh`` is kept for the loop (a dice reading never depends on an earlier one).

        Args:
            frame: (H, W, 3) uint8 BGR, the camera's full frame (about 2028×1520: see
                :func:`companion.app.roll_table.read_roll_table`).
        """
        from companion.app.roll_table import read_roll_table

        report: dict[str, Any] = {}
        read = read_roll_table(frame, self.tracker, self.layout, self.dice, report=report)
        status = report.get("mat")
        message = status.message if status is not None else "the frame could not be read"
        return RollLook(read, message if read is None else "", fresh, self._accepted, report.get("homography"))

    def _accept(self, read: TableDice, placed: bool = False) -> None:
        """Make ``read`` the reference the next reading is compared with. ``placed``: it was read
        while the dice wait to be rolled, every belt full and not yet rolled (laid from the bag,
        or passed on after a slide): the first such reading is kept, and dice that move from
        there on were rolled, whatever faces they land on."""
        self._before = TableDice(tuple(read.belts[: self.state.seats]), tuple(read.trays[: self.state.seats]))
        if not placed:
            self._placed = None
        elif self._placed is None:
            self._placed = self._before
        self._accepted += 1

    def card_crop(self, frame: np.ndarray, center_mm: tuple[float, float], px_per_mm: float = 4.0) -> np.ndarray | None:
        """What the camera saw around a die: a 40 mm square centred on ``center_mm`` (mat mm),
        straightened onto the mat at ``px_per_mm``; (N, N, 3) uint8 BGR, or None before the mat
        was found. For the picker, so the players see which die is meant."""
        from companion.vision.mat import mat_square

        if self._homography is None:
            return None
        return mat_square(frame, self._homography, center_mm, 40.0, px_per_mm)

    def _where(self, state: SushiRollState) -> dict[str, int]:
        return {"round": state.round, "turn": state.turn}  # a roll is judged at the turn it comes before

    def _read_of(self, frame, look: RollLook | None) -> RollLook:
        if look is None:
            look = self.look(frame)
        if look.homography is not None and look.read is not None:
            self._homography = look.homography
        return look

    # ---- judging --------------------------------------------------------------------------------
    def feed(self, frame: np.ndarray, named: dict[tuple[float, float], str] | None = None,
             look: RollLook | None = None, first: dict[int, str] | None = None) -> TurnOutcome:
        """Judge the frame taken when the table settled, and apply what it shows (module doc).

        ``named``: dice the players named on the panel, by place on the mat (mm) → face name.
        ``look``: this frame already read (:meth:`look`). ``first``: seat → the answer the players
        gave to this change's question (``"ambiguous"``). Nothing changes unless the outcome is
        ``"applied"``, or ``"waiting"`` (whose reading becomes the reference: nothing in it moved
        that the game counts).
        """
        state = self.state
        where = self._where(state)
        if state.is_over:
            return TurnOutcome(GAME_OVER, "the game is over", **where)
        look = self._read_of(frame, look)
        read = look.read
        if read is None:
            return TurnOutcome(NO_MAT, look.message, **where)
        read = _with_names(read, named or {})
        problem = self._unreadable(state, read, where)
        if problem is not None:
            return problem
        if state.phase is Phase.ROLL:
            return self._judge_roll(state, read, where)
        return self._judge_turn(state, read, where, first or {})

    def _unreadable(self, state: SushiRollState, read, where, count: bool = True) -> TurnOutcome | None:
        """Dice the reader could not place or name, or (``count``) a count of dice the game cannot
        have on the belts and trays."""
        names = state.players
        if read.loose:
            x, y = read.loose[0].center_mm
            return TurnOutcome(UNREADABLE, f"a die lies off the belts and trays (at {x:.0f}, {y:.0f} mm on the mat): "
                                           "put it on the belt or tray it belongs to", **where)
        for kind, per_seat in (("belt", read.belts), ("tray", read.trays)):
            for seat, dice in enumerate(per_seat[: state.seats]):
                for die in dice:
                    if die.face == UNKNOWN:
                        return TurnOutcome(UNREADABLE, f"a die on {names[seat]}'s {kind} could not be read: name it "
                                                       "on the panel, or turn it face up and check the light",
                                           unknown=(seat, die), **where)
        extra = [s for s in range(state.seats, len(read.belts)) if read.belts[s] or read.trays[s]]
        if extra:
            return TurnOutcome(UNREADABLE, f"dice lie at seat {extra[0] + 1} of the mat, but {state.seats} play: "
                                           "move them to a player's belt or tray", **where)
        if count and state.phase is Phase.TURN:
            seen = sum(len(b) for b in read.belts[: state.seats]) + sum(len(t) for t in read.trays[: state.seats])
            tops = sum(len(b) for b in state.belts) + sum(len(t) for t in state.trays)
            covered = sum(p.nigiri is not None for t in state.trays for p in t)
            # a nigiri laid on the active player's open wasabi this turn hides one die; a covered
            # wasabi may peek out from under its nigiri
            active = state.current_player
            nigiri_now = sum(as_face(d.face).is_nigiri for d in read.trays[active])
            nigiri_before = sum(as_face(d.face).is_nigiri for d in self._before.trays[active])
            hides = any(p.is_open_wasabi for p in state.trays[active]) and nigiri_now > nigiri_before
            if seen < tops - hides or seen > tops + covered:
                return TurnOutcome(UNREADABLE, f"{seen} dice are seen on the belts and trays, but the game has "
                                               f"{tops} there: is a die hidden, off the mat or too many? "
                                               f"({SET_UP})", **where)
        return None

    def _judge_turn(self, state: SushiRollState, read, where, first: dict[int, str]) -> TurnOutcome:
        p = state.current_player
        name = state.players[p]
        try:
            found = infer_actions(state, self._before, read)
        except MoveReadError as exc:
            if exc.waiting:
                self._accept(read)
                return TurnOutcome(WAITING, f"{name}'s turn: re-roll (menu), swap (chopsticks) or take a die",
                                   waiting=(p,), **where)
            error = _as_illegal(exc, state.players)
            return TurnOutcome(ILLEGAL, str(error), rule=error.rule, player=error.player, error=error, **where)
        if isinstance(found, Ambiguous):
            options = _options(found.plays)
            # an answer holds for the sight it was given about: once a reading is taken, it is spent
            said = first.get(p) if self._asked_at == self._accepted else None
            if said not in options:
                if TURNED in options:
                    text = f"did {name} re-roll the die taken with a menu token?"
                elif ONLY_MOVED in options:
                    text = f"did {name} re-roll the dice that moved on the belt?"
                else:
                    text = f"what did {name} do first, the chopsticks swap or the menu re-roll?"
                unanswered = "not answered: it is read again when the table next comes to rest"
                question = Question(p, f"{text} ({TURN})", tuple(options), unanswered)
                self._asked_at = self._accepted
                return TurnOutcome(AMBIGUOUS, f"{name}: {text}", question=question, **where)
            actions = options[said]
        else:
            actions = found
        if actions and isinstance(actions[0], Turned):
            error = IllegalAction(actions[0].message.rsplit(" (", 1)[0], rule="die-faces", section=TURN, player=name)
            return TurnOutcome(ILLEGAL, str(error), rule=error.rule, player=name, error=error, **where)
        if not actions:  # the players said the dice only moved: the table is as the game has it
            self._accept(read)
            return TurnOutcome(WAITING, f"{name}'s turn: the dice only moved", waiting=(p,), **where)
        after = state
        try:
            for action in actions:
                after = apply(after, action)
        except IllegalAction as error:  # an answer that the rules refuse (no token left, say)
            return TurnOutcome(ILLEGAL, str(error), rule=error.rule, player=error.player, error=error, **where)
        self.state = after
        self._accept(read)
        return TurnOutcome(APPLIED, _describe(state, actions) + _lay_on_wasabi(state, after, p, read),
                           plays={p: tuple(actions)}, **where)

    def _judge_roll(self, state: SushiRollState, read, where) -> TurnOutcome:
        n, names = state.seats, state.players
        belts = [_faces(read.belts[s]) for s in range(n)]
        everyone = tuple(range(n))
        if not any(state.belts):  # a round starts: dice from the bag onto every belt
            full = [s for s in range(n) if read.trays[s]]
            if full:
                who = ", ".join(names[s] for s in full)
                return TurnOutcome(WAITING, f"clear the trays ({who}): every die goes back in the bag before "
                                            f"round {state.round} ({NEW_ROUND})", waiting=tuple(full), **where)
            want = state.dice_per_belt
            counts = [sum(b.values()) for b in belts]
            if not any(counts):
                slide = (f"with 3 players the belts slide once more: the red belt goes to {names[state.red_seat]} "
                         f"({NEW_ROUND}); " if n == 3 and state.round > 1 else "")
                return TurnOutcome(WAITING, f"round {state.round}: {slide}draw {want} dice from the bag for each belt "
                                            f"and roll them ({SET_UP})", waiting=everyone, **where)
            wrong = [s for s in range(n) if counts[s] != want]
            if wrong:
                said = "; ".join(f"{names[s]}'s belt has {counts[s]}" for s in wrong)
                return TurnOutcome(WAITING, f"{said}: each belt gets {want} dice with {n} players ({SET_UP})",
                                   waiting=tuple(wrong), **where)
            # The dice are laid on the belts from the bag showing any face (SET UP), then picked up,
            # rolled and put back (PLAYING A ROUND): a belt is rolled once its dice moved since the
            # first reading of full belts.
            placed = self._placed
            if placed is None:
                self._accept(read, placed=True)
                return TurnOutcome(WAITING, f"round {state.round}: everyone picks up the dice on their belt, rolls "
                                            f"them, and puts them back as they landed ({PLAYING})",
                                   waiting=everyone, **where)
            unrolled = [s for s in range(n) if belts[s] == _faces(placed.belts[s])
                        and not moved_faces(placed.belts[s], read.belts[s])]
            if unrolled:
                self._accept(read, placed=True)
                who = ", ".join(names[s] for s in unrolled)
                return TurnOutcome(WAITING, f"roll the dice on {who}'s belt ({PLAYING})", waiting=tuple(unrolled),
                                   **where)
        else:  # the belts slid (in the engine): the table must show them passed on, then rolled
            for s in range(n):
                if not tray_shows(state, s, read.trays[s]):
                    return TurnOutcome(UNREADABLE, f"{names[s]}'s tray does not show the dice taken this round: "
                                                   f"a die on a tray stays there until the round ends ({TURN})",
                                       **where)
            passed = [Counter(state.belts[s]) for s in range(n)]
            unslid = [Counter(state.belts[(s + 1) % n]) for s in range(n)]
            ref = self._before.belts
            # a belt whose dice lie where they lay before the slide, as they were, was not passed on
            # (passing a belt on moves every die on it), whatever faces the belts hold
            untouched = [s for s in range(n) if self._placed is None and read.belts[s] and belts[s] == _faces(ref[s])
                         and not moved_faces(ref[s], read.belts[s])]
            if untouched or (all(belts[s] == unslid[s] for s in range(n))
                             and any(belts[s] != passed[s] for s in range(n))):
                return TurnOutcome(WAITING, f"pass the belts: each belt and its dice go to the player on the left; "
                                            f"the red belt goes to {names[state.red_seat]} ({SLIDE})",
                                   waiting=everyone, **where)
            wrong = [s for s in range(n) if _kinds(belts[s].elements()) != _kinds(state.belts[s])]
            if wrong:
                s = wrong[0]
                return TurnOutcome(WAITING, f"{names[s]}'s belt should hold the dice passed from "
                                            f"{names[(s - 1) % n]} ({_kind_list(_kinds(state.belts[s]))}); it shows "
                                            f"{_kind_list(_kinds(belts[s].elements()))} ({SLIDE})",
                                   waiting=tuple(wrong), **where)
            # A belt showing the faces it was passed with was rolled only if its dice moved since
            # a reading that showed it passed on: a die re-rolled may well land on its face again,
            # and a belt only passed on moved too (from the zone before), with the same faces
            # where the belts held the same faces.
            placed = self._placed.belts if self._placed is not None else None
            unrolled = [s for s in range(n) if belts[s] == passed[s]
                        and not (placed and _faces(placed[s]) == passed[s] and moved_faces(placed[s], read.belts[s]))]
            if unrolled:
                self._accept(read, placed=True)
                who = ", ".join(names[s] for s in unrolled)
                return TurnOutcome(WAITING, f"roll the dice on {who}'s belt ({SLIDE}; a belt that lands on the "
                                            "same faces is rolled again)", waiting=tuple(unrolled), **where)
        faces = tuple(tuple(sorted(b.elements(), key=str)) for b in belts)
        try:
            after = apply(state, Roll(faces=faces))
        except IllegalAction as exc:
            return TurnOutcome(ILLEGAL, str(exc), rule=exc.rule, player=exc.player, error=exc, **where)
        self.state = after
        self._accept(read)
        first = after.players[after.current_player]
        return TurnOutcome(APPLIED, f"round {state.round}: the belts are rolled; {first} starts",
                           plays={s: (Roll(faces=(faces[s],)),) for s in range(n)}, **where)

    # ---- adopting a state -------------------------------------------------------------------------
    def resync(self, frame: np.ndarray, state: SushiRollState, look: RollLook | None = None) -> TurnOutcome:
        """Adopt ``state`` (a game rebuilt from the journal, or an undo) once the table shows it:
        every tray as the game has it, every belt with the faces the game has (while the dice
        wait to be rolled after a slide, the dice passed on, whether rolled yet or not, or still
        unpassed; at a round's start, empty belts or full ones). Then ``"synced"`` and this reading
        is the reference; otherwise ``"mismatch"`` naming the first zone that differs, or ``"no-mat"``.
        """
        where = self._where(state)
        look = self._read_of(frame, look)
        read = look.read
        if read is None:
            return TurnOutcome(NO_MAT, look.message, **where)
        problem = self._unreadable(state, read, where, count=False)
        if problem is not None:
            return TurnOutcome(MISMATCH, problem.message, **where)
        differs = _differs(state, read)
        if differs:
            return TurnOutcome(MISMATCH, differs, **where)
        self.state = state
        # waiting for the roll after a slide: the belts are passed on now (or rolled, then the
        # faces tell), so dice that move from here on were rolled
        self._accept(read, placed=state.phase is Phase.ROLL and all(read.belts[: state.seats]))
        return TurnOutcome(SYNCED, "the table matches the game", **where)


def _lay_on_wasabi(before: SushiRollState, after: SushiRollState, seat: int, read) -> str:
    """A reminder when the nigiri just taken went on an open wasabi in the game but lies apart from
    every wasabi on the tray: the engine scores it on the wasabi, as the rule says it must be
    (sushi-roll.txt, Nigiri and Wasabi: "you must place the nigiri die on top of that die")."""
    newly = [p for p in after.trays[seat] if p.nigiri is not None and p not in before.trays[seat]]
    if not newly:
        return ""
    tray = read.trays[seat]
    nigiri = [d for d in tray if d.face == str(newly[0].nigiri)]
    wasabi = [d for d in tray if d.face == "wasabi"]
    if any(math.dist(n.center_mm, w.center_mm) <= 16.0 for n in nigiri for w in wasabi) or not wasabi:
        return ""
    return f" — lay the {str(newly[0].nigiri).replace('_', ' ')} on your wasabi (sushi-roll.txt, Nigiri and Wasabi)"


def _differs(state: SushiRollState, read) -> str:
    """Why the table does not show ``state`` (the first zone that differs), or ``""``."""
    n, names = state.seats, state.players
    starting = state.phase is Phase.ROLL and not any(state.belts)
    for s in range(n):
        tray = read.trays[s]
        if starting and state.round > 1 and state.round_trays:
            last = state.round_trays[-1]
            # the last round's trays may still lie there: they are cleared before the roll
            if not tray or tray_shows(_with_trays(state, last), s, tray):
                continue
        if not tray_shows(state, s, tray):
            want = Counter(p.nigiri or p.face for p in state.trays[s])
            return f"{names[s]}'s tray shows {_list(_faces(tray))}; the game has {_list(want)}"
    for s in range(n):
        seen = _faces(read.belts[s])
        want = Counter(state.belts[s])
        if state.phase is Phase.TURN or state.is_over:
            ok = seen == want
        elif starting:
            ok = sum(seen.values()) in (0, state.dice_per_belt)
        else:
            ok = _kinds(seen.elements()) == _kinds(want.elements()) or seen == Counter(state.belts[(s + 1) % n])
        if not ok:
            return f"{names[s]}'s belt shows {_list(seen)}; the game has {_list(want)}"
    return ""


def _with_trays(state: SushiRollState, trays) -> SushiRollState:
    from dataclasses import replace

    return replace(state, trays=trays)


def _with_names(read, named: dict[tuple[float, float], str]):
    """``read`` with each unknown die lying where the players named one given that name."""
    if not named:
        return read

    def name(die: SeenDie) -> SeenDie:
        if die.face != UNKNOWN:
            return die
        for where, face in named.items():
            if math.dist(where, die.center_mm) <= NAMED_TOLERANCE_MM:
                return SeenDie(face, die.center_mm)
        return die

    from dataclasses import replace

    return replace(read, belts=tuple(tuple(name(d) for d in b) for b in read.belts),
                   trays=tuple(tuple(name(d) for d in t) for t in read.trays))


def _describe(state: SushiRollState, actions: Sequence[Any]) -> str:
    """One line for the status: who did what, in the screens' words (sushi-roll.txt, EVERYBODY
    TAKES A TURN)."""
    from companion.app.roll_views import describe_actions

    return f"{state.players[actions[0].player]}: " + "; ".join(describe_actions(state.players, actions))
