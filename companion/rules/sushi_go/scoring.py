"""Sushi Go! scoring: one round's tableaux, the puddings at game end, and the final result.

Every point comes with a :class:`~companion.rules.core.ScoreLine` saying why. Sections cited are from
sushi-go.txt, SCORING (SUSHI ROLLS, TEMPURA, SASHIMI, DUMPLINGS, NIGIRI AND WASABI, CHOPSTICKS) and
ENDING THE GAME (PUDDINGS, AND THE WINNER IS...).
"""

from __future__ import annotations

from collections import Counter
from typing import Sequence

from companion.rules.core import GAME_END, GameResult, RoundScore, ScoreLine, pick_winners
from companion.rules.ranking import SUSHI_GO_TIES, Award, award_places
from companion.rules.sushi_go.cards import MAKI_ICONS, NIGIRI_POINTS, Card
from companion.rules.sushi_go.state import Tableau, tableau_cards
from companion.rules.wording import join_names as _names, plural as _plural

#: Points for 1, 2, 3, 4 and 5-or-more dumplings (sushi-go.txt, DUMPLINGS).
DUMPLING_POINTS = (0, 1, 3, 6, 10, 15)
TEMPURA_SET, TEMPURA_POINTS = 2, 5
SASHIMI_SET, SASHIMI_POINTS = 3, 10
MAKI_PRIZES = (6, 3)
PUDDING_MOST, PUDDING_FEWEST = 6, -6
WASABI_MULTIPLIER = 3
WINNER = "sushi-go.txt, AND THE WINNER IS..."


def dumpling_points(count: int) -> int:
    """Points for ``count`` dumplings: 1/3/6/10/15 for 1/2/3/4/5+ (sushi-go.txt, DUMPLINGS)."""
    return DUMPLING_POINTS[min(count, 5)]


def set_points(count: int, size: int, points: int) -> int:
    """Points for ``count`` cards scored in sets of ``size`` (tempura pairs, sashimi triples)."""
    return (count // size) * points


def maki_awards(icons: Sequence[int], has_maki: Sequence[bool]) -> dict[int, Award[int]]:
    """Maki awards per seat: most 6, second 3, ties split ignoring remainder, a tie for the most takes
    second place too, and only seats with at least one maki card compete (sushi-go.txt, SUSHI ROLLS)."""
    counts = {seat: n for seat, n in enumerate(icons) if has_maki[seat]}
    return award_places(counts, MAKI_PRIZES, SUSHI_GO_TIES)


def _set_line(category: str, count: int, size: int, points: int) -> tuple[int, str]:
    sets, left = divmod(count, size)
    pts = sets * points
    if sets == 0:
        return 0, f"{category}: {_plural(count, 'card')}, no set of {size} → 0"
    extra = f", {left} left over" if left else ""
    return pts, f"{category}: {_plural(sets, 'set')} of {size}{extra} → {pts}"


def score_round(players: Sequence[str], tableaux: Sequence[Tableau], round_no: int) -> RoundScore:
    """Score one round's tableaux, seat by seat, with a line for every kind of card in front of a player.

    Puddings score nothing now; they are kept for the end of the game (BEFORE STARTING A NEW ROUND).
    """
    counts = [Counter(tableau_cards(t)) for t in tableaux]
    icons = [sum(MAKI_ICONS[c] * n for c, n in cnt.items() if c in MAKI_ICONS) for cnt in counts]
    awards = maki_awards(icons, [any(c in MAKI_ICONS for c in cnt) for cnt in counts])
    lines: list[ScoreLine] = []
    points = []
    for seat, (name, tableau, cnt) in enumerate(zip(players, tableaux, counts)):
        seat_lines: list[tuple[str, int, str]] = []
        if any(c in MAKI_ICONS for c in cnt):
            award = awards.get(seat)
            if award is None:
                seat_lines.append(("maki", 0, f"maki: {_plural(icons[seat], 'icon')}, neither most nor 2nd → 0"))
            else:
                place = "most" if award.place == 1 else "2nd"
                tied = f", tied with {_names([players[s] for s in award.tied_with])}" if award.tied_with else ""
                text = f"maki: {place} with {_plural(icons[seat], 'icon')}{tied} → {award.points}"
                seat_lines.append(("maki", award.points, text))
        if cnt[Card.TEMPURA]:
            seat_lines.append(("tempura", *_set_line("tempura", cnt[Card.TEMPURA], TEMPURA_SET, TEMPURA_POINTS)))
        if cnt[Card.SASHIMI]:
            seat_lines.append(("sashimi", *_set_line("sashimi", cnt[Card.SASHIMI], SASHIMI_SET, SASHIMI_POINTS)))
        if cnt[Card.DUMPLING]:
            n = cnt[Card.DUMPLING]
            seat_lines.append(("dumpling", dumpling_points(n), f"dumplings: {n} → {dumpling_points(n)}"))
        for placed in tableau:
            nigiri_name = lambda c: c.value.replace("_", " ")  # noqa: E731
            if placed.card is Card.WASABI and placed.nigiri is not None:
                pts = NIGIRI_POINTS[placed.nigiri] * WASABI_MULTIPLIER
                seat_lines.append(("nigiri", pts, f"{nigiri_name(placed.nigiri)} on wasabi → {pts}"))
            elif placed.card is Card.WASABI:
                seat_lines.append(("wasabi", 0, "wasabi with no nigiri → 0"))
            elif placed.card.is_nigiri:
                pts = NIGIRI_POINTS[placed.card]
                seat_lines.append(("nigiri", pts, f"{nigiri_name(placed.card)} → {pts}"))
        if cnt[Card.CHOPSTICKS]:
            seat_lines.append(("chopsticks", 0, f"chopsticks: {_plural(cnt[Card.CHOPSTICKS], 'card')} → 0"))
        if cnt[Card.PUDDING]:
            seat_lines.append(("pudding", 0, f"pudding: {cnt[Card.PUDDING]} kept for the end of the game → 0"))
        lines += [ScoreLine(seat, name, round_no, cat, pts, text) for cat, pts, text in seat_lines]
        points.append(sum(pts for _, pts, _ in seat_lines))
    return RoundScore(round_no, tuple(points), tuple(lines))


def score_puddings(
    players: Sequence[str], puddings: Sequence[int], *, penalty: bool
) -> tuple[tuple[int, ...], tuple[ScoreLine, ...]]:
    """Pudding points per seat and their lines (sushi-go.txt, PUDDINGS).

    Most puddings +6 and fewest (including none) -6, ties split evenly ignoring any remainder (so a
    4-way tie for fewest loses 1 each); nobody scores when everyone has the same number; with
    ``penalty=False`` (a 2-player game) nobody loses points.
    """
    def line(seat: int, pts: int, text: str) -> ScoreLine:
        return ScoreLine(seat, players[seat], GAME_END, "pudding", pts, text)

    if len(set(puddings)) <= 1:
        n = puddings[0] if puddings else 0
        return (0,) * len(puddings), tuple(line(s, 0, f"pudding: everyone has {n} → 0") for s in range(len(puddings)))
    counts = dict(enumerate(puddings))
    most = award_places(counts, (PUDDING_MOST,), SUSHI_GO_TIES)
    fewest = award_places(counts, (PUDDING_FEWEST,), SUSHI_GO_TIES, highest_first=False) if penalty else {}
    points, lines = [], []
    for seat, n in enumerate(puddings):
        award, label = (most[seat], "most") if seat in most else (fewest.get(seat), "fewest")
        if award is None:
            why = "neither most nor fewest" if penalty else "not the most (no penalty with 2 players)"
            points.append(0)
            lines.append(line(seat, 0, f"pudding: {n}, {why} → 0"))
            continue
        tied = f", tied with {_names([players[s] for s in award.tied_with])}" if award.tied_with else ""
        points.append(award.points)
        lines.append(line(seat, award.points, f"pudding: {label} with {n}{tied} → {award.points}"))
    return tuple(points), tuple(lines)


def final_result(
    players: Sequence[str],
    round_scores: Sequence[RoundScore],
    puddings: Sequence[int],
    *,
    real_seats: Sequence[int],
    pudding_penalty: bool,
) -> GameResult:
    """The game result: round points, pudding points, totals and winners.

    Winners have the highest total; a tie goes to the most puddings; every real player still tied wins
    (sushi-go.txt, AND THE WINNER IS...). Only ``real_seats`` can win (never the dummy).
    """
    pudding_points, pudding_lines = score_puddings(players, puddings, penalty=pudding_penalty)
    totals = tuple(sum(r.points[s] for r in round_scores) + pudding_points[s] for s in range(len(players)))
    winners = pick_winners(totals, puddings, real_seats)
    return GameResult(
        players=tuple(players),
        round_points=tuple(r.points for r in round_scores),
        game_end_points=pudding_points,
        totals=totals,
        tie_break=tuple(puddings),
        winners=tuple(players[s] for s in winners),
        breakdown=tuple(line for r in round_scores for line in r.lines) + pudding_lines,
        eligible=tuple(real_seats),
    )


def tie_break_text(result: GameResult) -> str:
    """How a tie on points for the win was settled, or "" when the winner had the most points alone.

    "Ann and Bo tied on 64; Ann wins with more puddings (3 vs 1)", or when the puddings are equal too
    "Ann and Bo tied on 59 with 1 pudding each; they share the win" (sushi-go.txt, AND THE WINNER
    IS...). Only ``result.contenders`` count: equal points with the two-player variant's dummy, who
    never wins, is no tie.
    """
    if not result.winners:
        return ""
    seat_of = {name: s for s, name in enumerate(result.players)}
    best = result.totals[seat_of[result.winners[0]]]
    tied = [s for s in result.contenders if result.totals[s] == best]
    if len(tied) < 2:
        return ""
    names = _names([result.players[s] for s in tied])
    if len(result.winners) == 1:
        winner = seat_of[result.winners[0]]
        runner_up = max(result.tie_break[s] for s in tied if s != winner)
        return (
            f"{names} tied on {best}; {result.players[winner]} wins with more puddings"
            f" ({result.tie_break[winner]} vs {runner_up})"
        )
    each = _plural(result.tie_break[tied[0]], "pudding")
    return f"{names} tied on {best} with {each} each; they share the win"
