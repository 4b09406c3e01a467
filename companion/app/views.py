"""Build the display's view-models (companion.app.screens, companion.app.play_screens) from a
Sushi Go! game state.

Pure: no pygame until a view is rendered.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from companion.app.play_views import (
    ConfirmSeat,
    ConfirmView,
    PickerView,
    RefusalView,
    RoundSummaryView,
    SummarySeat,
    WaitingSeat,
    WaitingView,
)
from companion.app.screens import FinalRow, FinalView, ScoreboardView, SeatView
from companion.rules.errors import RuleError
from companion.rules.sushi_go.cards import Card
from companion.rules.sushi_go.engine import DECK_COUNTS, known_counts
from companion.rules.sushi_go.state import DUMMY_SEAT, SushiGoState
from companion.rules.sushi_go.scoring import tie_break_text
from companion.rules.wording import plural


def _tableau_labels(state: SushiGoState, seat: int) -> list[str]:
    """The seat's cards this round; a wasabi carrying a nigiri shows as ``"wasabi+squid_nigiri"``."""
    tableaux = state.tableaux if not state.is_over else state.round_tableaux[-1]
    return [p.card.value if p.nigiri is None else f"{p.card.value}+{p.nigiri.value}" for p in tableaux[seat]]


def scoreboard_view(state: SushiGoState, status: str = "", status_kind: str = "info") -> ScoreboardView:
    """The in-play scoreboard: each seat's tableau, finished rounds' points, puddings and total."""
    seats = []
    for seat, name in enumerate(state.players):
        rounds = [rs.points[seat] for rs in state.round_scores]
        in_play = 0 if state.is_over else sum(p.card is Card.PUDDING for p in state.tableaux[seat])
        total = state.result.totals[seat] if state.result else sum(rounds)
        seats.append(SeatView(name, _tableau_labels(state, seat), rounds, state.puddings[seat] + in_play, total))
    if state.is_over:
        title = "Game over"
    else:
        title = f"Round {state.round} of 3 — turn {state.turn} of {state.hand_size}"
    return ScoreboardView(title, seats, status, status_kind)


def final_view(state: SushiGoState) -> FinalView:
    """The end screen of a finished game: ranking best first, the winner(s), and how a tie on
    points was broken (most puddings: sushi-go.txt, AND THE WINNER IS...).

    Raises:
        ValueError: the game is not over.
    """
    if state.result is None:
        raise ValueError("the game is not over yet: no final screen")
    result = state.result
    order = sorted(range(len(result.players)), key=lambda s: (-result.totals[s], -result.tie_break[s], s))
    rows = [
        FinalRow(
            result.players[s],
            list(r[s] for r in result.round_points),
            result.game_end_points[s],
            result.totals[s],
            result.tie_break[s],
            seat=s,
        )
        for s in order
    ]
    return FinalView(rows, list(result.winners), tie_break_text(result))


# ---------------------------------------------------------------------------------------------
# The play loop's screens (issue #9 §4)


def _check_seats(count: int, seats: Iterable[int], what: str) -> list[int]:
    """``seats`` as a list, each an index below ``count``. Raises ValueError naming ``what``."""
    out = []
    for seat in seats:
        if not isinstance(seat, int) or not 0 <= seat < count:
            raise ValueError(f"{what}: there is no seat {seat!r}; seats are 0 to {count - 1}")
        out.append(seat)
    return out


def waiting_view(
    state: SushiGoState, waiting_seats: Iterable[int], status: str = "", status_kind: str = "info"
) -> WaitingView:
    """Whom the table waits for this turn: ``waiting_seats`` (seat indices still to reveal, as the
    loop read the table) against the rest. The dummy's row notes who picks for it.

    Raises:
        ValueError: a seat index that is not a seat of ``state``.
    """
    waiting = set(_check_seats(state.seats, waiting_seats, "waiting seats"))
    seats = []
    for seat, name in enumerate(state.players):
        note = ""
        if state.options.dummy and seat == DUMMY_SEAT and state.controller is not None:
            note = f"{state.players[state.controller]} picks"
        seats.append(WaitingSeat(name, seat not in waiting, seat, note))
    title = f"Round {state.round} — turn {state.turn}"
    return WaitingView(title, seats, status, status_kind)


#: What the table does to put a refused turn right, by the rule id of the refusal
#: (the ids of ``companion.rules.sushi_go.engine.check_play``).
FIXES = {
    "chopsticks-needed": "take the second card back: 2 cards need chopsticks already on the table",
    "one-card": "keep 1 card on the table (2 only with chopsticks) and take the rest back",
    "dummy-chopsticks": "take the dummy's second card back",
    "hand-size": "take the extra card back",
    "card-not-in-hand": "take that card back and play one from the hand",
    "leave-a-card": "take one card back: the hand must keep a card for the dummy",
    "deck-count": "check that card: if it was misread, lay it flat in view again",
    "already-chosen": "take the extra card back",
    "turn-incomplete": "wait until every seat has revealed",
    "game-over": "the game is over: start a new one from the menu",
}
DEFAULT_FIX = "put the table back as it was before this turn"


def refusal_view(error: RuleError, state: SushiGoState | None = None, fix: str | None = None) -> RefusalView:
    """The refusal screen for a rules error: its player, rule id, message and rulebook section,
    and what to do (``fix``, else :data:`FIXES` for the rule, else :data:`DEFAULT_FIX`). With
    ``state``, the player's seat colour is used."""
    player = error.player or "The table"
    seat = state.players.index(error.player) if state is not None and error.player in state.players else None
    what = fix if fix is not None else FIXES.get(error.rule, DEFAULT_FIX)
    return RefusalView(player, error.rule, error.message, what, error.section, seat)


def card_candidates(state: SushiGoState) -> list[str]:
    """Card names that can still turn up: every card type the deck still holds one of (those not all
    accounted for already, sushi-go-with-variants.txt, CONTENTS), in the rules' card order."""
    counts = known_counts(state)
    return [c.value for c in Card if counts[c] < DECK_COUNTS[c]]


def picker_view(
    state: SushiGoState, seat: int, selected: int = 0, candidates: Sequence[str] | None = None, crop=None,
    question: str | None = None,
) -> PickerView:
    """Ask which card ``seat`` showed. ``candidates`` default to :func:`card_candidates`; ``crop``
    is the camera's (H, W, 3) uint8 BGR view of the card, or None. ``question``: another question
    with cards for answers (default "Which card is this?"), e.g. which nigiri is on the wasabi.

    Raises:
        ValueError: ``seat`` is not a seat of ``state``.
    """
    _check_seats(state.seats, [seat], "picker")
    labels = list(candidates) if candidates is not None else card_candidates(state)
    if question is None:
        return PickerView(state.players[seat], labels, selected, seat=seat, crop=crop)
    return PickerView(state.players[seat], labels, selected, question=question, seat=seat, crop=crop)


def undo_view(
    players: Sequence[str], plays: Mapping[int, Sequence[str]], round: int, turn: int, turns: int = 1
) -> ConfirmView:
    """Confirm taking back the last ``turns`` turns; ``plays`` (seat -> card names, Card or str) is
    the last one, shown per seat, and (``round``, ``turn``) its place.

    Raises:
        ValueError: ``turns`` below 1, or a seat in ``plays`` that ``players`` has not.
    """
    if turns < 1:
        raise ValueError(f"undo takes back at least 1 turn, not {turns}")
    seats = [ConfirmSeat(players[seat], [getattr(c, "value", c) for c in plays[seat]], seat)
             for seat in _check_seats(len(players), sorted(plays), "undo")]
    if turns == 1:
        question = f"Take back round {round}, turn {turn}?"
        detail = "These cards go back into the hands:"
    else:
        question = f"Take back {plural(turns, 'turn')}?"
        detail = f"Back to before the last {turns}; the last one was round {round}, turn {turn}:"
    return ConfirmView(question, seats, detail)


def round_summary_view(state: SushiGoState, round_number: int | None = None) -> RoundSummaryView:
    """A finished round's points per seat, the running totals after it, and the breakdown lines
    (sushi-go.txt, ENDING A ROUND and SCORING). ``round_number`` is 1-based; None: the last finished round.

    Raises:
        ValueError: no round finished yet, or ``round_number`` is not a finished round.
    """
    done = len(state.round_scores)
    if round_number is None:
        round_number = done
    if not 1 <= round_number <= done:
        finished = f"rounds 1 to {done} are finished" if done else "no round is finished yet"
        raise ValueError(f"no summary for round {round_number!r}: {finished}")
    score = state.round_scores[round_number - 1]
    seats = []
    for seat, name in enumerate(state.players):
        total = sum(rs.points[seat] for rs in state.round_scores[:round_number])
        lines = [ln for ln in score.lines if ln.seat == seat]
        seats.append(SummarySeat(name, score.points[seat], total, lines, seat))
    return RoundSummaryView(round_number, seats)
