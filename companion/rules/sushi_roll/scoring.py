"""Sushi Roll scoring: one round's trays, puddings and leftover tokens at game end, and the result.

Every point comes with a :class:`~companion.rules.core.ScoreLine` saying why. Sections cited are from
sushi-roll.txt, SCORING A ROUND (Maki Rolls, Nigiri, Appetizers, Specials) and ENDING THE GAME.
The same functions score the engine's games and ``companion score`` records.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from typing import Any, Sequence

from companion.rules.core import GAME_END, GameResult, RoundScore, ScoreLine, pick_winners
from companion.rules.ranking import SUSHI_ROLL_TIES, award_places
from companion.rules.score_table import format_score_table
from companion.rules.sushi_roll.dice import Icon
from companion.rules.sushi_roll.state import SushiRollOptions, Tray
from companion.rules.wording import join_names as _names, plural as _plural

SCORING = "sushi-roll.txt, SCORING A ROUND"
ENDING = "sushi-roll.txt, ENDING THE GAME"

MAKI_PRIZES = (6, 3)
#: Points for 0, 1, 2 and 3 icons of an appetizer; a full set of 3 starts a new set (Appetizers, Note).
APPETIZER_POINTS: dict[Icon, tuple[int, int, int, int]] = {
    Icon.DUMPLING: (0, 2, 4, 8),
    Icon.TEMPURA: (0, 1, 5, 10),
    Icon.SASHIMI: (0, 0, 6, 13),
}
SET_SIZE = 3
NIGIRI_POINTS: dict[Icon, int] = {Icon.EGG_NIGIRI: 1, Icon.SALMON_NIGIRI: 2, Icon.SQUID_NIGIRI: 3}
WASABI_MULTIPLIER = 3
PUDDING_MOST, PUDDING_FEWEST = 6, -6
#: One point per this many unused menu and/or chopsticks tokens (ENDING THE GAME).
LEFTOVER_TOKENS_PER_POINT = 2


def _label(icon: Icon) -> str:
    return icon.value.replace("_", " ")


def appetizer_points(icon: Icon, count: int) -> int:
    """Points for ``count`` icons of one appetizer, scored in sets of up to 3: dumpling 2/4/8, tempura
    1/5/10, sashimi 0/6/13 (sushi-roll.txt, Appetizers). 4 tempura = 10 + 1."""
    table = APPETIZER_POINTS[icon]
    full, rest = divmod(count, SET_SIZE)
    return full * table[SET_SIZE] + table[rest]


def icon_counts(tray: Tray) -> Counter[Icon]:
    """Icons showing on every die of ``tray`` (a face ``maki*3`` counts 3)."""
    counts: Counter[Icon] = Counter()
    for placed in tray:
        for face in placed.dice:
            counts[face.icon] += face.count
    return counts


def _appetizer_line(icon: Icon, count: int) -> tuple[int, str]:
    table = APPETIZER_POINTS[icon]
    full, rest = divmod(count, SET_SIZE)
    pts = appetizer_points(icon, count)
    if full == 0 or (full == 1 and rest == 0):
        return pts, f"{icon.value}: {_plural(count, 'icon')} → {pts}"
    parts = [f"{_plural(full, 'set')} of 3 ({full} × {table[SET_SIZE]})"]
    if rest:
        parts.append(f"a set of {rest} ({table[rest]})")
    return pts, f"{icon.value}: {_plural(count, 'icon')} = {' + '.join(parts)} → {pts}"


def score_round(players: Sequence[str], trays: Sequence[Tray], round_no: int) -> RoundScore:
    """Score one round's trays, seat by seat, with a line for every kind of die on a tray.

    Maki: the most icons 6, second 3; tied players all get the full points and the next lower count is
    still second; only players with at least one maki icon compete (Maki Rolls). Appetizers in sets of
    up to 3 (Appetizers). Nigiri 1/2/3 per icon, tripled on a wasabi die (Nigiri). An open wasabi, and
    pudding, menu and chopsticks dice score nothing now (Specials).
    """
    counts = [icon_counts(t) for t in trays]
    makis = {seat: c[Icon.MAKI] for seat, c in enumerate(counts) if c[Icon.MAKI]}
    awards = award_places(makis, MAKI_PRIZES, SUSHI_ROLL_TIES)
    lines: list[ScoreLine] = []
    points = []
    for seat, (name, tray, cnt) in enumerate(zip(players, trays, counts)):
        seat_lines: list[tuple[str, int, str]] = []
        if cnt[Icon.MAKI]:
            award = awards.get(seat)
            icons = _plural(cnt[Icon.MAKI], "icon")
            if award is None:
                seat_lines.append(("maki", 0, f"maki: {icons}, neither most nor 2nd → 0"))
            else:
                place = "most" if award.place == 1 else "2nd"
                tied = f", tied with {_names([players[s] for s in award.tied_with])}" if award.tied_with else ""
                seat_lines.append(("maki", award.points, f"maki: {place} with {icons}{tied} → {award.points}"))
        for icon in APPETIZER_POINTS:
            if cnt[icon]:
                seat_lines.append((icon.value, *_appetizer_line(icon, cnt[icon])))
        for placed in tray:
            face = placed.face
            if face.icon is Icon.WASABI and placed.nigiri is not None:
                nigiri = placed.nigiri
                base = NIGIRI_POINTS[nigiri.icon] * nigiri.count
                pts = base * WASABI_MULTIPLIER
                seat_lines.append(("nigiri", pts, f"{_label(nigiri.icon)} on wasabi: {base} × 3 → {pts}"))
            elif face.icon is Icon.WASABI:
                seat_lines.append(("wasabi", 0, "wasabi with no nigiri on it → 0"))
            elif face.is_nigiri:
                pts = NIGIRI_POINTS[face.icon] * face.count
                times = f" × {face.count}" if face.count > 1 else ""
                seat_lines.append(("nigiri", pts, f"{_label(face.icon)}{times} → {pts}"))
        for icon in (Icon.PUDDING, Icon.MENU, Icon.CHOPSTICKS):
            if cnt[icon]:
                text = f"{icon.value}: {_plural(cnt[icon], 'icon')}, tokens taken when chosen, scored at game end → 0"
                seat_lines.append((icon.value, 0, text))
        lines += [ScoreLine(seat, name, round_no, cat, pts, text) for cat, pts, text in seat_lines]
        points.append(sum(pts for _, pts, _ in seat_lines))
    return RoundScore(round_no, tuple(points), tuple(lines))


def score_puddings(
    players: Sequence[str], puddings: Sequence[int], options: SushiRollOptions
) -> tuple[tuple[int, ...], tuple[ScoreLine, ...]]:
    """Pudding points per seat and their lines (sushi-roll.txt, ENDING THE GAME).

    The most pudding tokens +6 and the fewest (including 0) -6; every tied player gets or loses the
    full 6; with 2 players nobody loses. When everyone has the same number, see
    ``SushiRollOptions.pudding_all_equal`` (default: nobody gains or loses).
    """
    penalty = len(players) > 2

    def line(seat: int, pts: int, text: str) -> ScoreLine:
        return ScoreLine(seat, players[seat], GAME_END, "pudding", pts, text)

    if len(set(puddings)) == 1 and options.pudding_all_equal == "nobody":
        n = puddings[0]
        text = f"pudding: everyone has {n}, nobody gains or loses (option pudding_all_equal=nobody) → 0"
        return (0,) * len(puddings), tuple(line(s, 0, text) for s in range(len(puddings)))
    counts = dict(enumerate(puddings))
    most = award_places(counts, (PUDDING_MOST,), SUSHI_ROLL_TIES)
    fewest = award_places(counts, (PUDDING_FEWEST,), SUSHI_ROLL_TIES, highest_first=False) if penalty else {}
    points, lines = [], []
    for seat, n in enumerate(puddings):
        parts, pts = [], 0
        for label, awards in (("most", most), ("fewest", fewest)):
            award = awards.get(seat)
            if award is not None:
                tied = f", tied with {_names([players[s] for s in award.tied_with])}" if award.tied_with else ""
                parts.append(f"{label} with {n}{tied} ({award.points:+d})")
                pts += award.points
        if not parts:
            why = "neither most nor fewest" if penalty else "not the most; with 2 players the fewest loses nothing"
            parts.append(f"{n}, {why}")
        points.append(pts)
        lines.append(line(seat, pts, f"pudding: {'; '.join(parts)} → {pts}"))
    return tuple(points), tuple(lines)


def score_leftovers(
    players: Sequence[str], menus: Sequence[int], chopsticks: Sequence[int]
) -> tuple[tuple[int, ...], tuple[ScoreLine, ...]]:
    """1 point per 2 unused menu and/or chopsticks tokens, any mix (sushi-roll.txt, ENDING THE GAME)."""
    points, lines = [], []
    for seat, (name, m, c) in enumerate(zip(players, menus, chopsticks)):
        pts = (m + c) // LEFTOVER_TOKENS_PER_POINT
        text = f"leftover tokens: {m} menu + {c} chopsticks = {m + c}, 1 point per 2 → {pts}"
        points.append(pts)
        lines.append(ScoreLine(seat, name, GAME_END, "leftover_tokens", pts, text))
    return tuple(points), tuple(lines)


@dataclass(frozen=True)
class SushiRollResult:
    """The final result of a Sushi Roll game.

    Attributes:
        game: the shared GameResult; ``game_end_points`` is puddings plus leftover tokens, ``tie_break``
            the pudding tokens (sushi-roll.txt, ENDING THE GAME: "the player with the most pudding
            tokens wins").
        puddings: pudding tokens per seat.
        pudding_points: pudding points per seat.
        leftover_points: leftover-token points per seat.
    """

    game: GameResult
    puddings: tuple[int, ...]
    pudding_points: tuple[int, ...]
    leftover_points: tuple[int, ...]

    @property
    def players(self) -> tuple[str, ...]:
        return self.game.players

    @property
    def totals(self) -> tuple[int, ...]:
        return self.game.totals

    @property
    def winners(self) -> tuple[str, ...]:
        return self.game.winners

    @property
    def breakdown(self) -> tuple[ScoreLine, ...]:
        return self.game.breakdown

    def to_dict(self) -> dict[str, Any]:
        """The ``companion score --game sushi-roll --json`` shape: rounds, pudding, leftover_tokens,
        total, winners, breakdown."""
        by_name = lambda values: dict(zip(self.players, values))  # noqa: E731
        return {
            "rounds": [by_name(r) for r in self.game.round_points],
            "pudding": by_name(self.pudding_points),
            "leftover_tokens": by_name(self.leftover_points),
            "total": by_name(self.totals),
            "winners": list(self.winners),
            "breakdown": [line.to_dict() for line in self.breakdown],
        }

    def to_json(self) -> str:
        """:meth:`to_dict` as indented JSON (UTF-8 text, arrows kept)."""
        return json.dumps(self.to_dict(), ensure_ascii=False, indent=2)


def final_result(
    players: Sequence[str],
    round_scores: Sequence[RoundScore],
    puddings: Sequence[int],
    menus: Sequence[int],
    chopsticks: Sequence[int],
    options: SushiRollOptions,
) -> SushiRollResult:
    """Puddings, leftover tokens, totals and winners: the highest total wins, a tie goes to the most
    pudding tokens, and players still tied all win (sushi-roll.txt, ENDING THE GAME)."""
    pudding_points, pudding_lines = score_puddings(players, puddings, options)
    leftover_points, leftover_lines = score_leftovers(players, menus, chopsticks)
    seats = range(len(players))
    end_points = tuple(pudding_points[s] + leftover_points[s] for s in seats)
    totals = tuple(sum(r.points[s] for r in round_scores) + end_points[s] for s in seats)
    winners = pick_winners(totals, puddings, list(seats))
    # Game-end lines player by player, pudding then leftovers, so each player's lines sit together.
    end_lines = tuple(line for s in seats for line in (pudding_lines[s], leftover_lines[s]))
    game = GameResult(
        players=tuple(players),
        round_points=tuple(r.points for r in round_scores),
        game_end_points=end_points,
        totals=totals,
        tie_break=tuple(puddings),
        winners=tuple(players[s] for s in winners),
        breakdown=tuple(line for r in round_scores for line in r.lines) + end_lines,
    )
    return SushiRollResult(game, tuple(puddings), pudding_points, leftover_points)


def format_sushi_roll_table(result: SushiRollResult) -> str:
    """A readable scoreboard: points per round, puddings, leftover tokens and totals per player, the
    winners, then the breakdown grouped by round and player."""
    rows = [(f"Round {i}", r) for i, r in enumerate(result.game.round_points, 1)]
    rows += [("Pudding", result.pudding_points), ("Leftover", result.leftover_points), ("Total", result.totals)]
    top = [s for s, t in enumerate(result.totals) if t == max(result.totals)]
    note = " (tie on points broken by pudding tokens)" if len(result.winners) < len(top) else ""
    return format_score_table(result.players, rows, result.winners, result.breakdown, winner_note=note)
