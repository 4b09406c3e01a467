"""The plain-text scoreboard that ``companion score`` prints for every game.

Pure formatting of values the scorers already computed, shared so the three games read alike.
"""

from __future__ import annotations

from typing import Sequence

from companion.rules.core import GAME_END, ScoreLine


def format_score_table(
    names: Sequence[str],
    rows: Sequence[tuple[str, Sequence[int]]],
    winners: Sequence[str],
    breakdown: Sequence[ScoreLine],
    notes: Sequence[str] = (),
    winner_note: str = "",
) -> str:
    """A table of ``rows`` (label, one value per player; a "Total" row gets a rule above it), the
    winner line (ending in ``winner_note``), any ``notes`` (e.g. how a tie was broken), then the
    breakdown grouped by round.

    Example::

                     Ann       Bo
        Round 1       19       14
        -------------------------
        Total         19       14

        Winner: Ann
    """
    width = max(7, *(len(n) for n in names)) + 2
    label_w = max(len(label) for label, _ in rows) + 2
    out = [" " * label_w + "".join(f"{n:>{width}}" for n in names)]
    for label, values in rows:
        if label == "Total":
            out.append("-" * len(out[0]))
        out.append(f"{label:<{label_w}}" + "".join(f"{v:>{width}}" for v in values))
    heading = "Winner" if len(winners) == 1 else "Winners (tied)"
    out += ["", f"{heading}: {', '.join(winners)}{winner_note}", *notes, "", "Breakdown"]
    section = None
    for line in breakdown:
        title = "Game end" if line.round == GAME_END else f"Round {line.round}"
        if title != section:
            section = title
            out.append(f"  {title}")
        out.append(f"    {line.player:<{width - 2}}  {line.text}")
    return "\n".join(out) + "\n"
