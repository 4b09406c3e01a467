"""How score breakdowns and screens put names and counts into words, the same way for every game."""

from __future__ import annotations

from typing import Sequence


def join_names(names: Sequence[str]) -> str:
    """``["Ann"]`` → "Ann"; ``["Ann", "Bo", "Cy"]`` → "Ann, Bo and Cy"."""
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def plural(n: int, word: str) -> str:
    """``plural(1, "card")`` → "1 card"; ``plural(3, "card")`` → "3 cards"."""
    return f"{n} {word}" if n == 1 else f"{n} {word}s"
