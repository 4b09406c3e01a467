"""Build the display's view-models from a Sushi Roll game state (issue #10): the play loop calls
these through the game's adapter with the same names and signatures as :mod:`companion.app.views`
(Sushi Go!).

Screens (drawn by :mod:`companion.app.roll_screens`, dispatched by ``play_screens.render_play``):

* :class:`RollScoreboardView`: each seat's conveyor belt and tray as dice icons, its tokens (menu,
  chopsticks, pudding), finished rounds' points and the running total; whose turn it is, who holds
  the red-bordered belt, whom the table waits for, and a status line. Both the in-play scoreboard
  and the waiting screen (tokens stay in view at all times);
* :class:`RollRoundSummaryView`: a round's points with the breakdown lines and the scoring tokens
  each player takes or gives back (the engine's payouts);
* :class:`RollFinalView`: the ranking with rounds, puddings, leftover tokens, totals and the pudding
  tie-break;
* :class:`RollPickerView`: name a die (◀ ▶ OK over die faces) or answer a question (◀ ▶ OK over
  answer texts);
* :class:`RollUndoView`: what UNDO would take back, in words per seat.

A refusal is the shared :class:`~companion.app.play_views.RefusalView`.

Pure: no pygame until a view is rendered (``view.render(size)``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from companion.app.play_views import Hint, RefusalView
from companion.rules.core import GAME_END, ScoreLine
from companion.rules.errors import RuleError
from companion.rules.sushi_roll.dice import Face, Tokens, as_face
from companion.rules.sushi_roll.state import (
    ROUNDS,
    Chopsticks,
    Menu,
    Phase,
    Roll,
    SushiRollState,
    Take,
    TrayDie,
    tray_dice,
)
from companion.rules.wording import join_names, plural

if TYPE_CHECKING:
    import pygame

ENDING = "sushi-roll.txt, ENDING THE GAME"

#: The die body colour (RGB) of each die type, as ``companion/data/sushi_roll_dice.toml`` names them
#: (appetizer blue, maki red, nigiri white, specials green, pudding pink).
DIE_COLOURS = {
    "appetizer": (38, 112, 196),
    "maki": (200, 42, 48),
    "nigiri": (242, 240, 236),
    "specials": (58, 160, 72),
    "pudding": (238, 132, 184),
}
#: The colour's name of each die type, for words on screen ("the red maki die").
DIE_COLOUR_NAMES = {"appetizer": "blue", "maki": "red", "nigiri": "white", "specials": "green", "pudding": "pink"}


class _Renders:
    """``render(size)`` for ``Display.show`` (through ``play_screens.render_play``), and the drawer
    ``render_play`` asks for (:data:`companion.app.roll_screens.DRAW`), imported only then."""

    def render(self, size: tuple[int, int] = (480, 320)) -> "pygame.Surface":
        """This screen as a Surface of ``size`` px."""
        from companion.app.play_screens import render_play

        return render_play(self, size)

    @classmethod
    def play_drawer(cls):
        """The function that draws this view (``draw(painter, view)``)."""
        from companion.app.roll_screens import DRAW

        return DRAW[cls]


# ---------------------------------------------------------------------------------------------
# Words


def face_words(face: Face | str) -> str:
    """A face as players say it: ``maki*2`` → "maki×2", ``egg_nigiri`` → "egg nigiri",
    ``"wasabi+squid_nigiri"`` (a stack on a tray) → "squid nigiri on wasabi".

    Raises:
        ValueError: a name that is no face (see ``companion.rules.sushi_roll.dice.parse_face``).
    """
    if isinstance(face, str) and "+" in face:
        under, _, on = face.partition("+")
        return f"{face_words(on)} on {face_words(under)}"
    f = as_face(face)
    word = f.icon.value.replace("_", " ")
    return word if f.count == 1 else f"{word}×{f.count}"


def face_title(label: str) -> str:
    """A face with its die, for the picker: ``maki*2`` → "Maki×2 (red maki die)"."""
    f = as_face(label)
    kind = f.kind.value
    return f"{face_words(f).capitalize()} ({DIE_COLOUR_NAMES[kind]} {kind} die)"


def tray_label(placed: TrayDie) -> str:
    """A tray die as a label: its face, or ``"wasabi+<nigiri>"`` for a nigiri on a wasabi."""
    return str(placed.face) if placed.nigiri is None else f"{placed.face}+{placed.nigiri}"


def _faces_words(faces: Iterable[Face | str]) -> str:
    return ", ".join(face_words(f) for f in faces) or "no dice"


def describe_actions(players: Sequence[str], actions: Iterable[Any]) -> list[str]:
    """Each engine action in words, one string per action (for the loop's event lines, the undo
    screen and the journal): ``Take`` → "took maki×2"; ``Menu`` → "re-rolled maki, tempura →
    maki×3, sashimi (menu)"; ``Chopsticks`` → "swapped tempura for Bo's egg nigiri (chopsticks)";
    ``Roll`` of one belt → "rolled maki×2, tempura, …", of every belt → "rolled the belts: Ann …;
    Bo …" (sushi-roll.txt, EVERYBODY TAKES A TURN; PLAYING A ROUND).

    Raises:
        ValueError: an action that is no Sushi Roll action, or a seat ``players`` has not.
    """

    def name(seat: int) -> str:
        if not isinstance(seat, int) or not 0 <= seat < len(players):
            raise ValueError(f"no seat {seat!r} among {len(players)} players")
        return players[seat]

    out = []
    for a in actions:
        if isinstance(a, Take):
            out.append(f"took {face_words(a.face)}")
        elif isinstance(a, Menu):
            result = f" → {_faces_words(a.result)}" if a.result is not None else ""
            out.append(f"re-rolled {_faces_words(a.reroll)}{result} (menu)")
        elif isinstance(a, Chopsticks):
            out.append(f"swapped {face_words(a.mine)} for {name(a.other)}'s {face_words(a.theirs)} (chopsticks)")
        elif isinstance(a, Roll):
            if a.faces is None:
                out.append("rolled the belts")
            elif len(a.faces) == 1:
                out.append(f"rolled {_faces_words(a.faces[0])}")
            else:
                out.append("rolled the belts: " + "; ".join(f"{name(s)} {_faces_words(b)}"
                                                             for s, b in enumerate(a.faces)))
        else:
            raise ValueError(f"not a Sushi Roll action: {a!r:.80}")
    return out


# ---------------------------------------------------------------------------------------------
# The scoreboard (and the waiting screen)


@dataclass
class RollSeat:
    """One seat on the Sushi Roll scoreboard.

    belt: face labels of the dice on the seat's conveyor belt (``"maki*2"``), in the state's order.
    tray: the dice on the seat's tray in the order taken; a nigiri on a wasabi is one stack,
        ``"wasabi+egg_nigiri"``.
    menu, chopsticks, puddings: the tokens the player holds (puddings counted in icons: a 3-token is 3).
    round_points: points of each finished round; total: the points so far (rounds, and once the game
        is over puddings and leftover tokens).
    active: it is this seat's turn; red: the seat holds the red-bordered belt; waiting: the table
        waits for this seat; taken: the seat took its die in this cycle of turns.
    """

    name: str
    seat: int
    belt: list[str] = field(default_factory=list)
    tray: list[str] = field(default_factory=list)
    menu: int = 0
    chopsticks: int = 0
    puddings: int = 0
    round_points: list[int] = field(default_factory=list)
    total: int = 0
    active: bool = False
    red: bool = False
    waiting: bool = False
    taken: bool = False


@dataclass
class RollScoreboardView(_Renders):
    """The Sushi Roll table at a glance.

    title: e.g. "Round 2 of 3 — Ann's turn" or "Round 1 of 3 — roll the dice"; note: a short
    right-aligned header note ("turn 4 of 21"); rolling: the belts wait to be rolled (their dice
    are drawn dimmed: the faces will change); status: one message (wraps to 3 lines, ``status_kind``
    info/warn/error picks its colour).
    """

    title: str
    seats: list[RollSeat]
    status: str = ""
    status_kind: str = "info"
    note: str = ""
    rolling: bool = False

    @property
    def active(self) -> int | None:
        """The seat whose turn it is, or None."""
        return next((s.seat for s in self.seats if s.active), None)

    @property
    def red(self) -> int | None:
        """The seat holding the red-bordered belt."""
        return next((s.seat for s in self.seats if s.red), None)


def turn_of(state: SushiRollState) -> tuple[int, int]:
    """(turn, turns): the turn of the round now (dice on the trays + 1, a nigiri on a wasabi counted
    as its two dice) and the turns a round has (players × dice per belt, sushi-roll.txt, SET UP)."""
    taken = sum(len(tray_dice(t)) for t in state.trays)
    return taken + 1, state.seats * state.dice_per_belt


def _phase_title(state: SushiRollState) -> tuple[str, str]:
    if state.is_over:
        return "Game over", ""
    turn, turns = turn_of(state)
    head = f"Round {state.round} of {ROUNDS}"
    if state.current_player is None:
        return f"{head} — roll the dice", f"turn {min(turn, turns)} of {turns}"
    return f"{head} — {state.players[state.current_player]}'s turn", f"turn {turn} of {turns}"


def _seats(state: SushiRollState, waiting: Iterable[int] = ()) -> list[RollSeat]:
    waiting = set(waiting)
    trays = state.round_trays[-1] if state.is_over and state.round_trays else state.trays
    seats = []
    for s, name in enumerate(state.players):
        tokens = state.tokens[s]
        rounds = [rs.points[s] for rs in state.round_scores]
        total = state.result.totals[s] if state.result is not None else sum(rounds)
        seats.append(RollSeat(
            name, s, [str(f) for f in state.belts[s]], [tray_label(p) for p in trays[s]],
            tokens.menu, tokens.chopsticks, tokens.puddings, rounds, total,
            active=state.current_player == s, red=state.red_seat == s, waiting=s in waiting,
            taken=state.has_taken(s),
        ))  # fmt: skip
    return seats


def scoreboard_view(state: SushiRollState, status: str = "", status_kind: str = "info") -> RollScoreboardView:
    """The in-play screen: every seat's belt and tray as dice, its tokens, rounds and total; whose
    turn it is (``state.current_player``; while the dice wait to be rolled, "roll the dice"), who
    holds the red belt (``state.red_seat``), and ``status`` (the last action or the problem).
    Once the game is over the trays of the last round are shown with the final totals."""
    title, note = _phase_title(state)
    rolling = state.phase is Phase.ROLL
    return RollScoreboardView(title, _seats(state), status, status_kind, note, rolling)


def _check_seats(count: int, seats: Iterable[int], what: str) -> list[int]:
    """``seats`` as a list, each an index below ``count``. Raises ValueError naming ``what``."""
    out = []
    for seat in seats:
        if type(seat) is not int or not 0 <= seat < count:
            raise ValueError(f"{what}: there is no seat {seat!r}; seats are 0 to {count - 1}")
        out.append(seat)
    return out


def waiting_view(
    state: SushiRollState, waiting: Iterable[int], status: str = "", status_kind: str = "info"
) -> RollScoreboardView:
    """Whom the table waits for: the scoreboard (tokens stay in view) with ``waiting`` (seat indices)
    marked, and a status line naming them (``status`` instead, when given: the loop's message says
    which belt is short or long).

    Raises:
        ValueError: a seat index that is not a seat of ``state``.
    """
    seats = _check_seats(state.seats, waiting, "waiting seats")
    title, note = _phase_title(state)
    if not status:
        everyone = len(set(seats)) == state.seats > 1
        names = "everyone" if everyone else join_names([state.players[s] for s in seats]) if seats else ""
        if not seats:
            status = "Everyone is ready"
        elif state.phase is Phase.ROLL and not any(state.belts):  # SET UP, STARTING A NEW ROUND
            status = f"Waiting for {names}: {state.dice_per_belt} dice from the bag on each belt, then roll them"
        elif state.phase is Phase.ROLL:  # SLIDE AND ROLL
            status = f"Waiting for {names}: roll the dice passed on the belt"
        elif seats == [state.current_player]:
            status = f"Waiting for {names}: re-roll (menu), swap (chopsticks) or take a die"
        else:
            status = f"Waiting for {names}"
    view = RollScoreboardView(title, _seats(state, seats), status, status_kind, note, state.phase is Phase.ROLL)
    return view


# ---------------------------------------------------------------------------------------------
# Refusal

#: What the table does to put a refused move right, by rule id: the engine's
#: (``companion.rules.sushi_roll.engine.check``) and the move reader's
#: (``companion.app.roll_moves.infer_actions``, ``companion.app.roll_game``).
FIXES = {
    "not-your-turn": "put the die back where it was: wait for your turn",
    "own-belt": "put the die back on its belt: take a die from your own belt",
    "never-tray": "put the tray's dice back: a die on a tray stays there until the round ends",
    "one-die": "put the extra dice back on the belt: keep 1 die per turn",
    "menu-token-needed": "put the re-rolled dice back as they were: a re-roll costs a menu token",
    "chopsticks-token-needed": "swap the dice back: a swap costs a chopsticks token",
    "chopsticks-other-belt": "put the dice back: a swap trades 1 of your belt's dice for 1 on another belt",
    "die-not-on-belt": "put the dice back as they were before this move",
    "die-faces": "turn each die back to the face it showed: only a re-roll changes faces",
    "roll-first": "roll the dice on the belts first",
    "not-rolling": "leave the belts as they are: it is a player's turn, not a roll",
    "roll-faces": "check each belt's dice: the right number of dice, rolled, all in view",
    "dice-count": "check the dice: a die may be misread; lay it flat in view again",
    "reroll-none": "re-roll at least 1 die, or take a die",
    "game-over": "the game is over: start a new one from the menu",
    "table": "put the table back as it was before this move",
}
DEFAULT_FIX = "put the table back as it was before this move"


def refusal_view(error: RuleError, state: SushiRollState | None = None, fix: str | None = None) -> RefusalView:
    """The refusal screen: who broke which rule (``error.rule``), the rule's message and rulebook
    section, and what to put back (``fix``, else :data:`FIXES` for the rule, else :data:`DEFAULT_FIX`).
    With ``state``, the player's seat colour is used.

    Raises:
        TypeError: ``error`` is not a RuleError (an IllegalAction is one).
    """
    if not isinstance(error, RuleError):
        raise TypeError(f"a refusal shows a RuleError (IllegalAction), got {type(error).__name__}")
    player = error.player or "The table"
    seat = state.players.index(error.player) if state is not None and error.player in state.players else None
    what = fix if fix is not None else FIXES.get(error.rule, DEFAULT_FIX)
    return RefusalView(player, error.rule, error.message, what, error.section, seat)


# ---------------------------------------------------------------------------------------------
# Picker


def card_candidates(state: SushiRollState) -> list[str]:
    """Every face the game's dice show (``state.dice``), each once: die type by die type in the
    faces file's order (appetizer, maki, nigiri, specials, pudding; within a die as listed, so
    maki, maki*2, maki*3), so ◀ ▶ walks the dice colour by colour."""
    return list(dict.fromkeys(str(f) for faces in state.dice.faces for f in faces))


@dataclass
class RollPickerView(_Renders):
    """A choice on the panel: which face a die shows (``answers`` False: ``candidates`` are face
    labels, drawn as dice), or the answer to ``question`` (``answers`` True: candidates are texts).

    player: whose die or turn; seat: for the colour; crop: the camera's view of the die, an
    (N, N, 3) uint8 BGR array, or None.
    """

    player: str
    candidates: list[str]
    selected: int = 0
    question: str = "Which face is this die?"
    seat: int | None = None
    crop: Any = None
    answers: bool = False
    hint: Hint = (("◀▶", "choose"), ("OK", "this one"), ("BACK", "not now"))


def _is_face(label: str) -> bool:
    try:
        as_face(label)
    except ValueError:
        return False
    return True


def picker_view(
    state: SushiRollState, seat: int, selected: int = 0, candidates: Sequence[str] | None = None, crop=None,
    question: str | None = None,
) -> RollPickerView:
    """Ask ``seat``'s player which face a die shows (``candidates`` default to :func:`card_candidates`),
    or, with ``question``, a question whose candidates are answer texts (e.g. "did Ann re-roll?"
    with "no, they only moved" / "yes, re-rolled (a menu token)"). Candidates that are all faces
    are drawn as dice, others as texts. ``crop``: (N, N, 3) uint8 BGR, or None.

    Raises:
        ValueError: ``seat`` is not a seat of ``state``.
    """
    _check_seats(state.seats, [seat], "picker")
    labels = list(candidates) if candidates is not None else card_candidates(state)
    answers = not all(_is_face(c) for c in labels)
    name = state.players[seat]
    if question is None:
        return RollPickerView(name, labels, selected, seat=seat, crop=crop, answers=answers)
    hint = (("◀▶", "choose"), ("OK", "answer"), ("BACK", "not now"))
    return RollPickerView(name, labels, selected, question, seat, crop, answers, hint)


# ---------------------------------------------------------------------------------------------
# Undo


@dataclass
class UndoSeat:
    """One seat's part of what an undo takes back: its actions in words (``lines``), and for a
    roll of its belt the faces rolled (``rolled``, drawn as dice), else None."""

    name: str
    lines: list[str]
    seat: int | None = None
    rolled: list[str] | None = None


@dataclass
class RollUndoView(_Renders):
    """Undo confirmation: the ``question``, what is taken back per seat in words, a ``detail``
    line, and the hint (OK = undo, BACK = keep)."""

    question: str
    seats: list[UndoSeat] = field(default_factory=list)
    detail: str = ""
    title: str = "Undo?"
    hint: Hint = (("◀▶", "how many"), ("OK", "undo"), ("BACK", "keep"))


def undo_view(
    players: Sequence[str], plays: Mapping[int, Sequence[Any]], round: int, turn: int, turns: int = 1
) -> RollUndoView:
    """Confirm taking back the last ``turns`` journal turns; ``plays`` (seat → engine actions) is the
    last one, in words per seat (:func:`describe_actions`), and (``round``, ``turn``) its place. A
    roll of the belts (``{seat: (Roll(faces=(belt,)),)}`` for every seat) reads "the roll of the belts".

    Raises:
        ValueError: ``turns`` below 1, a seat in ``plays`` that ``players`` has not, or an action
            that is no Sushi Roll action.
    """
    if type(turns) is not int or turns < 1:
        raise ValueError(f"undo takes back at least 1 turn, not {turns!r}")
    order = _check_seats(len(players), sorted(plays), "undo")
    seats = []
    for s in order:
        actions = tuple(plays[s])
        one_belt = len(actions) == 1 and isinstance(actions[0], Roll) and actions[0].faces is not None \
            and len(actions[0].faces) == 1
        rolled = [str(f) for f in actions[0].faces[0]] if one_belt else None
        seats.append(UndoSeat(players[s], describe_actions(players, actions), s, rolled))
    is_roll = any(isinstance(a, Roll) for s in order for a in plays[s])
    what = "the roll of the belts" if is_roll else f"{players[order[0]]}'s turn" if len(order) == 1 else "this turn"
    if turns == 1:
        question = f"Take back {what} (round {round}, turn {turn})?"
        detail = "Put the dice back as they were before it:"
    else:
        question = f"Take back {plural(turns, 'turn')}?"
        detail = f"The last of them, round {round}, turn {turn}:"
    return RollUndoView(question, seats, detail)


# ---------------------------------------------------------------------------------------------
# Round summary with the payout


@dataclass
class RollSummarySeat:
    """One seat's round: ``points`` scored, the running ``total`` after it, the rules' breakdown
    ``lines`` (ScoreLine), and the payout: the scoring tokens ``taken`` from the supply and
    ``returned`` to it (change, or the pudding penalty), ``short`` points no token could pay."""

    name: str
    points: int
    total: int
    lines: list[ScoreLine] = field(default_factory=list)
    seat: int | None = None
    taken: Tokens = Tokens()
    returned: Tokens = Tokens()
    short: int = 0


@dataclass
class RollRoundSummaryView(_Renders):
    """A finished round (``round`` 1-based, or ``GAME_END`` for the puddings and leftover tokens)
    with one RollSummarySeat per seat, for tables that pay with the physical scoring tokens."""

    round: int | str
    seats: list[RollSummarySeat]
    rounds: int = ROUNDS
    title: str = ""


def round_summary_view(state: SushiRollState, round_number: int | str | None = None) -> RollRoundSummaryView:
    """A finished round's points per seat with the breakdown lines (sushi-roll.txt, SCORING A ROUND)
    and the scoring tokens each player takes or gives back (``state.payouts``: the fewest tokens the
    supply can give). ``round_number`` is 1-based (None: the last finished round), or
    :data:`~companion.rules.core.GAME_END` once the game is over: the pudding and leftover-token
    points and their tokens (ENDING THE GAME: "Take or return the corresponding points tokens").

    Raises:
        ValueError: no round finished yet, or ``round_number`` is not a finished round (or the game
            end of a game not over).
    """
    done = len(state.round_scores)
    if round_number is None:
        if not done:
            raise ValueError("no round summary: no round is finished yet")
        round_number = done
    if round_number == GAME_END:
        if state.result is None:
            raise ValueError("no game-end summary: the game is not over yet")
        lines = [ln for ln in state.result.breakdown if ln.round == GAME_END]
        points = state.result.game.game_end_points
    elif type(round_number) is int and 1 <= round_number <= done:
        score = state.round_scores[round_number - 1]
        lines, points = list(score.lines), score.points
    else:
        finished = f"rounds 1 to {done} are finished" if done else "no round is finished yet"
        raise ValueError(f"no summary for round {round_number!r}: {finished}")
    paid = {p.seat: p for p in state.payouts if p.round == round_number}
    seats = []
    for s, name in enumerate(state.players):
        if round_number == GAME_END:
            total = state.result.totals[s]  # type: ignore[union-attr]
        else:
            total = sum(rs.points[s] for rs in state.round_scores[:round_number])
        p = paid.get(s)
        seats.append(RollSummarySeat(
            name, points[s], total, [ln for ln in lines if ln.seat == s], s,
            p.taken if p else Tokens(), p.returned if p else Tokens(), p.short if p else 0,
        ))  # fmt: skip
    title = "Game end — puddings and leftover tokens" if round_number == GAME_END else ""
    return RollRoundSummaryView(round_number, seats, ROUNDS, title)


# ---------------------------------------------------------------------------------------------
# Final screen


@dataclass
class RollFinalRow:
    """One line of the final ranking: each round's points, the pudding points (may be -6), the
    leftover-token points, the total, the pudding tokens held (the tie-break) and the seat."""

    name: str
    round_points: list[int]
    pudding_points: int
    leftover_points: int
    total: int
    puddings: int
    seat: int | None = None


@dataclass
class RollFinalView(_Renders):
    """The end of a Sushi Roll game: ``rows`` best first (ties on points in pudding order), the
    ``winners``, and ``tie_break``: how a tie on points was settled, or "" (the rulebook section
    ``section`` cited with it)."""

    rows: list[RollFinalRow]
    winners: list[str]
    tie_break: str = ""
    section: str = ENDING
    title: str = "Game over"


def tie_break_words(state: SushiRollState) -> str:
    """How a tie on points for the win was settled, or "" when one player had the most points:
    "Ann and Bo tied on 42; Ann wins with more pudding tokens (5 vs 3)", or "Ann and Bo tied on 42
    with 3 pudding tokens each: they share the win" (sushi-roll.txt, ENDING THE GAME: "In case of a
    tie, the player with the most pudding tokens wins").

    Raises:
        ValueError: the game is not over.
    """
    if state.result is None:
        raise ValueError("the game is not over yet: no winner")
    result = state.result
    best = max(result.totals)
    tied = [s for s, t in enumerate(result.totals) if t == best]
    if len(tied) < 2:
        return ""
    names = join_names([result.players[s] for s in tied])
    if len(result.winners) == 1:
        winner = result.players.index(result.winners[0])
        runner_up = max(result.puddings[s] for s in tied if s != winner)
        return (f"{names} tied on {best}; {result.winners[0]} wins with more pudding tokens "
                f"({result.puddings[winner]} vs {runner_up})")
    each = plural(result.puddings[tied[0]], "pudding token")
    return f"{names} tied on {best} with {each} each: they share the win"


def final_view(state: SushiRollState) -> RollFinalView:
    """The end screen: ranking best first (total, then pudding tokens: the tie-break), every
    round's points, puddings (+6 most, -6 fewest but not with 2 players) and leftover tokens (1 point
    per 2), the winner(s) and how a tie was broken (sushi-roll.txt, ENDING THE GAME).

    Raises:
        ValueError: the game is not over.
    """
    if state.result is None:
        raise ValueError("the game is not over yet: no final screen")
    r = state.result
    order = sorted(range(len(r.players)), key=lambda s: (-r.totals[s], -r.puddings[s], s))
    rows = [
        RollFinalRow(r.players[s], [rp[s] for rp in r.game.round_points], r.pudding_points[s],
                     r.leftover_points[s], r.totals[s], r.puddings[s], s)
        for s in order
    ]
    return RollFinalView(rows, list(r.winners), tie_break_words(state))
