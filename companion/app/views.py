"""Build the display's view-models (companion.app.screens) from a Sushi Go! game state.

Pure: no pygame until a view is rendered.
"""

from __future__ import annotations

from companion.app.screens import FinalRow, FinalView, ScoreboardView, SeatView
from companion.rules.core import GameResult
from companion.rules.sushi_go.cards import Card
from companion.rules.sushi_go.state import SushiGoState
from companion.rules.wording import join_names


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
    return FinalView(rows, list(result.winners), tie_break_text(result, state.real_seats))


def tie_break_text(result: GameResult, eligible: tuple[int, ...]) -> str:
    """How a tie on points was settled, or "" when the winner had the most points alone.

    ``eligible``: the seats that can win (every seat but the two-player variant's dummy).
    """
    if not result.winners:
        return ""
    best = result.totals[result.players.index(result.winners[0])]
    tied = [result.players[s] for s in eligible if result.totals[s] == best]
    if len(tied) < 2:
        return ""
    names = join_names(tied)
    if len(result.winners) == 1:
        w = result.winners[0]
        others = [result.tie_break[result.players.index(n)] for n in tied if n != w]
        mine = result.tie_break[result.players.index(w)]
        return f"{names} tied on {best}; {w} wins with more puddings ({mine} vs {max(others)})"
    return f"{names} tied on {best} with {result.tie_break[result.players.index(result.winners[0])]} puddings each; they share the win"
