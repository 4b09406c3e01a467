"""The benches' seed arguments, parsed as argparse types, so a bad ``--seeds`` is argparse's named
error ("argument --seeds: ...") and exit status 2, never a ``ValueError`` traceback.

Two spellings are in use, kept as the benches document them:

- ``seed_list``: the card benches' inclusive lists, ``"40-59"`` or ``"1-8,12"``;
- ``seed_span``: the dice benches' half-open spans, ``"300:320"`` (320 excluded), as Python's
  ``range``.

``frame_size`` parses the dice benches' ``--size WxH`` the same way.

A bench script imports this module from beside it (``bench/`` is ``sys.path[0]`` when a script
runs, and ``tests/benches.py`` puts it there while it loads one).
"""

from __future__ import annotations

import argparse


def seed_list(text: str) -> list[int]:
    """``"A"``, ``"A-B"`` (inclusive) or several of them joined by commas → the seeds in order.

    Raises:
        argparse.ArgumentTypeError: a part that is not a seed or a range A-B with 0 <= A <= B.
    """
    out: list[int] = []
    for part in text.split(","):
        lo, dash, hi = part.strip().partition("-")
        try:
            a, b = int(lo), int(hi) if dash else int(lo)
        except ValueError:
            a, b = 0, -1
        if a < 0 or b < a:
            raise argparse.ArgumentTypeError(
                f"{part.strip()!r} is not a seed or a range of seeds A-B with 0 <= A <= B (e.g. 40-59 or 1-8,12)")
        out += range(a, b + 1)
    return out


def seed_span(text: str) -> range:
    """``"A:B"`` → ``range(A, B)`` (B excluded), as the dice benches take their seeds.

    Raises:
        argparse.ArgumentTypeError: not two whole numbers with 0 <= A < B.
    """
    lo, colon, hi = text.partition(":")
    try:
        a, b = int(lo), int(hi)
    except ValueError:
        a, b = 0, 0
    if not colon or a < 0 or b <= a:
        raise argparse.ArgumentTypeError(f"{text!r} is not a span of seeds FIRST:END with 0 <= FIRST < END "
                                         "(END excluded, e.g. 300:320)")
    return range(a, b)


def frame_size(text: str) -> tuple[int, int]:
    """``"WxH"`` (px, e.g. ``"4032x3024"``) → ``(W, H)``.

    Raises:
        argparse.ArgumentTypeError: not two whole numbers ≥ 1 joined by an ``x``.
    """
    w, x, h = text.lower().partition("x")
    try:
        size = int(w), int(h)
    except ValueError:
        size = 0, 0
    if not x or min(size) < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a frame size WxH in px (e.g. 4032x3024)")
    return size
