"""Turning what the camera sees between two settles into Sushi Roll actions (issue #10).

Pure logic (no cv2), the dice game's counterpart of :mod:`companion.app.turns`: it compares the dice
on every conveyor belt and tray now with the dice there at the last settle, and explains the change
as the active player's actions (sushi-roll.txt, EVERYBODY TAKES A TURN):

* a die gone from a belt of another seat, and one of the active player's dice arriving there, while
  that seat's die arrives on the active belt, faces unchanged → a :class:`Chopsticks` swap;
* a die gone from the active belt and arriving on the active tray, face unchanged → the
  :class:`Take` that ends the turn;
* what is left on the active belt: dice that show other faces of the same die types → a
  :class:`Menu` re-roll (one menu token, however many dice).

Dice are told apart by their faces (a belt is a multiset of faces, as the engine keeps it), so a
die that only moved along its own belt is no change. The engine then checks every action; a change
that no order of these actions explains (a die taken from another belt, a face changed on the way
to the tray, two dice taken) raises :class:`MoveReadError` naming the seat and the rule, and
changes nothing.

Sights the camera cannot separate, returned as :class:`~companion.app.turns.Ambiguous` for the
caller to ask about (never guessed):

* re-rolled dice that all landed on the faces they showed: the belt looks as before, but dice moved
  on it (alone, or beside a swap or a take). Whether a menu token was spent is asked.
* a swap and a re-roll of the same faces in either order, when both orders are legal and end
  differently (rare: the engine decides when only one is legal);
* the die taken shows another face than the one that left the belt: re-rolled with a menu token
  and then taken, or turned over on the way (a :class:`Turned`, refused if the players say so).
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from typing import Sequence

from companion.app.turns import Ambiguous
from companion.rules.errors import IllegalAction
from companion.rules.sushi_roll import apply
from companion.rules.sushi_roll.dice import Face, as_face
from companion.rules.sushi_roll.state import Chopsticks, Menu, SushiRollState, Take

TURN = "sushi-roll.txt, EVERYBODY TAKES A TURN"
#: The face name the reader gives a die it could not name.
UNKNOWN = "unknown"
#: How far (mm) a die may lie from where it lay and still be the same die, at rest. Sushi Roll dice
#: are about 16 mm a side; a nudge is less than half that.
DIE_TOLERANCE_MM = 8.0


@dataclass(frozen=True)
class SeenDie:
    """A die as read from one frame: ``face`` (``"maki*2"``, ``"tempura"``...), ``center_mm`` on
    the mat (mm)."""

    face: str
    center_mm: tuple[float, float]


@dataclass(frozen=True)
class TableDice:
    """Every zone's dice in one frame: ``belts[s]`` and ``trays[s]`` for each seat ``s``."""

    belts: tuple[tuple[SeenDie, ...], ...]
    trays: tuple[tuple[SeenDie, ...], ...]


@dataclass(frozen=True)
class Turned:
    """One way to read a sight, which the players may choose when asked: the die ``player`` took
    showed ``was`` on the belt and shows ``now`` on the tray because it turned over on the way, not
    because it was re-rolled. Choosing it refuses the take (``message``; sushi-roll.txt, EVERYBODY
    TAKES A TURN: a die is moved to the tray face unchanged)."""

    player: int
    was: Face
    now: Face
    message: str


class MoveReadError(ValueError):
    """The change on the table is not one legal sequence of the active player's actions.

    ``seat_name``: whom it concerns; ``rule``: the engine's rule id where there is one;
    ``waiting``: True when nothing changed at all (the table waits for the active player);
    ``unknown``: the die the reader could not name, when that is the problem; ``error``: the
    engine's ``IllegalAction`` when the engine refused the actions the change shows."""

    def __init__(self, seat_name: str, problem: str, rule: str = "", waiting: bool = False,
                 unknown: SeenDie | None = None, error: IllegalAction | None = None) -> None:
        self.seat_name, self.problem, self.rule, self.waiting = seat_name, problem, rule, waiting
        self.unknown = unknown  # a die the reader could not name: the players can name it
        self.error = error
        super().__init__(f"{seat_name}: {problem}")


def _faces(dice: Sequence[SeenDie]) -> Counter[Face]:
    return Counter(as_face(d.face) for d in dice)


def moved_faces(before: Sequence[SeenDie], after: Sequence[SeenDie]) -> list[Face]:
    """The faces of the dice of ``after`` that lie nowhere near a die of the same face in ``before``."""
    left, out = list(before), []
    for die in after:
        near = [b for b in left if b.face == die.face and math.dist(b.center_mm, die.center_mm) <= DIE_TOLERANCE_MM]
        if not near:
            out.append(as_face(die.face))
            continue
        left.remove(min(near, key=lambda b: math.dist(b.center_mm, die.center_mm)))
    return out


def _uncover_wasabi(before: TableDice, after: TableDice, seat: int) -> TableDice:
    """``after`` with each wasabi on ``seat``'s tray that a newly placed nigiri die now stands on
    (hiding it) put back where it lay: it is covered, not gone (sushi-roll.txt, Nigiri and Wasabi:
    "you must place the nigiri die on top of that die")."""
    tray = list(after.trays[seat])
    new = [d for d in tray if as_face(d.face).is_nigiri and not any(
        b.face == d.face and math.dist(b.center_mm, d.center_mm) <= DIE_TOLERANCE_MM for b in before.trays[seat])]
    for w in before.trays[seat]:
        if w.face != "wasabi" or any(a.face == "wasabi" and math.dist(a.center_mm, w.center_mm) <= DIE_TOLERANCE_MM
                                     for a in tray):
            continue
        on = [n for n in new if math.dist(n.center_mm, w.center_mm) <= 2 * DIE_TOLERANCE_MM]
        if on:
            new.remove(on[0])
            tray.append(w)
    trays = tuple(tuple(tray) if s == seat else t for s, t in enumerate(after.trays))
    return TableDice(after.belts, trays)


def _hide_covered(state: SushiRollState, table: TableDice) -> TableDice:
    """``table`` without the wasabi dice seen peeking out from under the nigiri the game has on
    them: a covered wasabi may show beside its nigiri at one settle and not at the next, and it
    is neither a die gone nor a die arrived (sushi-roll.txt, Nigiri and Wasabi)."""
    trays = []
    for seat, tray in enumerate(table.trays):
        covered = sum(p.nigiri is not None for p in state.trays[seat]) if seat < state.seats else 0
        dice = list(tray)
        for top in [d for d in tray if as_face(d.face).is_nigiri]:
            if covered <= 0:
                break
            under = [d for d in dice if d.face == "wasabi" and math.dist(d.center_mm, top.center_mm) <= 2 * DIE_TOLERANCE_MM]
            if under:
                dice.remove(min(under, key=lambda d: math.dist(d.center_mm, top.center_mm)))
                covered -= 1
        trays.append(tuple(dice))
    return TableDice(table.belts, tuple(trays))


def _names(faces: Counter[Face]) -> str:
    return ", ".join(str(f) for f in sorted(faces.elements(), key=str)) or "nothing"


def infer_actions(state: SushiRollState, before: TableDice, after: TableDice) -> tuple | Ambiguous:
    """The actions the active player took between two readings of the table, in the order taken.

    Args:
        state: the game as the engine has it at ``before`` (``state.current_player`` is acting).
        before, after: the table at the last settle and now.

    Returns:
        A tuple of :class:`Chopsticks`, :class:`Menu` and at most one :class:`Take` (last), each
        legal in turn; or :class:`~companion.app.turns.Ambiguous` whose ``plays`` are such
        tuples, when the frames fit more than one and they end differently.

    Raises:
        MoveReadError: nothing changed (``waiting``), a change outside the active player's reach,
            or a change no legal order of actions explains; the message names the seat and the
            rule (sushi-roll.txt, EVERYBODY TAKES A TURN).
    """
    p = state.current_player
    if p is None:
        raise MoveReadError("the table", "no one's turn: the dice on the belts are to be rolled first", "roll-first")
    names = state.players
    for s, zones in enumerate(zip(after.belts, after.trays)):
        for zone, dice in zip(("belt", "tray"), zones):
            for die in dice:
                if die.face == UNKNOWN:
                    raise MoveReadError(names[s], f"a die on {names[s]}'s {zone} could not be read; straighten it "
                                                  "or check the light", unknown=die)
    before, after = _hide_covered(state, before), _hide_covered(state, after)
    after = _uncover_wasabi(before, after, p)
    belt_gone = [_faces(before.belts[s]) - _faces(after.belts[s]) for s in range(state.seats)]
    belt_new = [_faces(after.belts[s]) - _faces(before.belts[s]) for s in range(state.seats)]
    for s in range(state.seats):
        tray_gone = _faces(before.trays[s]) - _faces(after.trays[s])
        if tray_gone:
            raise MoveReadError(names[s], f"{_names(tray_gone)} left {names[s]}'s tray: a die on a tray stays "
                                          f"there until the round ends ({TURN})", "never-tray")
        if s != p and _faces(after.trays[s]) != _faces(before.trays[s]):
            raise MoveReadError(names[s], f"a die arrived on {names[s]}'s tray, but it is {names[p]}'s turn ({TURN})",
                                "not-your-turn")
    # Swaps: every other belt that changed traded dice with the active belt, faces unchanged.
    swaps: list[Chopsticks] = []
    given: Counter[Face] = Counter()
    received: Counter[Face] = Counter()
    for o in range(state.seats):
        if o == p or not (belt_gone[o] or belt_new[o]):
            continue
        theirs, mine = list(belt_gone[o].elements()), list(belt_new[o].elements())
        active_gone = _faces(before.belts[p]) - _faces(after.belts[p])
        if mine and not (belt_new[o] & active_gone) and len(theirs) == len(mine):
            # what arrived there did not come from the active belt: that player changed their own belt
            raise MoveReadError(names[o], f"{names[o]}'s belt changed ({_names(belt_gone[o])} became "
                                          f"{_names(belt_new[o])}), but it is {names[p]}'s turn: put it back "
                                          f"({TURN})", "not-your-turn")
        taken_here = belt_gone[o] & (_faces(after.trays[p]) - _faces(before.trays[p]))
        if len(theirs) > len(mine) and taken_here:
            raise MoveReadError(names[p], f"{names[p]} took {_names(taken_here)} from {names[o]}'s belt: a player "
                                          f"takes a die from their own belt ({TURN})", "own-belt")
        if len(theirs) != len(mine):
            raise MoveReadError(names[o], f"{names[o]}'s belt lost {_names(belt_gone[o])} and gained "
                                          f"{_names(belt_new[o])}: only a chopsticks swap (one die for one) "
                                          f"changes another player's belt ({TURN})", "chopsticks-other-belt")
        for a, b in zip(sorted(mine, key=str), sorted(theirs, key=str)):
            swaps.append(Chopsticks(p, a, o, b))
        given += belt_new[o]
        received += belt_gone[o]
    tray_new = _faces(after.trays[p]) - _faces(before.trays[p])
    if sum(tray_new.values()) > 1:
        raise MoveReadError(names[p], f"{_names(tray_new)} arrived on {names[p]}'s tray: one die per turn ({TURN})",
                            "one-die")
    takes = [Take(p, f) for f in tray_new.elements()]
    # The active belt after the swaps, against what is on that belt or was taken from it now: what
    # differs was re-rolled (a die re-rolled and then taken or swapped is a menu and a take or a
    # swap). Signed counts: a die swapped away may have been re-rolled into the face it left with.
    base = Counter(_faces(before.belts[p]))
    base.update(received)
    base.subtract(given)
    now = _faces(after.belts[p]) + tray_new
    delta = Counter(now)
    delta.subtract(base)
    rerolled = Counter({f: -n for f, n in delta.items() if n < 0})
    result = Counter({f: n for f, n in delta.items() if n > 0})
    menus: list[Menu] = []
    if rerolled or result:
        if Counter(f.kind for f in rerolled.elements()) != Counter(f.kind for f in result.elements()):
            raise MoveReadError(names[p], f"{names[p]}'s belt and tray show {_names(result)} where "
                                          f"{_names(rerolled)} should be: a re-roll keeps each die's type, and a "
                                          f"die keeps its face when taken or swapped ({TURN})", "die-faces")
        old = sorted(rerolled.elements(), key=lambda f: (f.kind.value, str(f)))
        new = sorted(result.elements(), key=lambda f: (f.kind.value, str(f)))
        menus.append(Menu(p, tuple(old), tuple(new)))
        if len(old) == 1 and takes and takes[0].face == new[0]:
            # One die shows another face, and it is the die taken: re-rolled with a menu and then
            # taken, or turned over on the way to the tray (refused: a die keeps its face).
            turned = (f"{names[p]}'s {old[0]} shows {new[0]} on the tray: a die keeps its face when taken; "
                      f"put it back on the belt as it was ({TURN})")
            if not state.tokens[p].menu:
                raise MoveReadError(names[p], turned, "die-faces")
            return Ambiguous((tuple(swaps) + tuple(menus) + tuple(takes), (Turned(p, old[0], new[0], turned),)))
    elif not swaps and not takes:
        moved = moved_faces(before.belts[p], after.belts[p]) if state.tokens[p].menu else []
        if moved:
            # Dice moved but show the same faces: re-rolled and landed the same, or only nudged.
            same = tuple(sorted(moved, key=str))
            return Ambiguous(((), (Menu(p, same, same),)))
        raise MoveReadError(names[p], f"no change on {names[p]}'s belt or tray yet ({TURN})", waiting=True)
    orders = [tuple(swaps) + tuple(menus) + tuple(takes)]
    if swaps and menus:
        orders.append(tuple(menus) + tuple(swaps) + tuple(takes))
    elif not menus and state.tokens[p].menu:
        # Dice that stayed on the active belt but lie elsewhere, faces unchanged, beside a swap or
        # a take: re-rolled onto the same faces, or only nudged by the hand. Asked, never guessed.
        stayed = Counter(moved_faces(before.belts[p], after.belts[p])) - received
        if stayed:
            same = tuple(sorted(stayed.elements(), key=str))
            orders.append((Menu(p, same, same),) + orders[0])
    legal, refusal = [], None
    for order in orders:
        s = state
        try:
            for action in order:
                s = apply(s, action)
        except IllegalAction as exc:
            refusal = refusal or exc
            continue
        legal.append((order, s))
    if not legal:
        raise MoveReadError(names[p], str(refusal), refusal.rule or "", error=refusal)
    if len(legal) > 1 and legal[0][1] != legal[1][1]:
        return Ambiguous(tuple(order for order, _ in legal))
    return legal[0][0]
