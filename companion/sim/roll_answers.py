"""The simulated players answer the companion's questions truthfully (issue #10).

When the companion cannot tell from a frame what happened at a simulated Sushi Roll table (dice
that moved but show the faces they showed, a die it cannot name), it asks on the panel, as it
would ask real players (never guessing). In ``companion demo --game sushi-roll`` nobody sits at
the panel, so the bots answer from what they did: :func:`truthful_answer` looks up the stream's
truth (:class:`companion.sim.roll_stream.RollStep`) for the change the question is about.

Pure: no frames, no devices; the caller presses the buttons.
"""

from __future__ import annotations

import math
from typing import Sequence

from companion.rules.sushi_roll.state import Chopsticks, Menu


def step_at(truth: Sequence, frame_index: int):
    """The last step whose table had settled by frame ``frame_index`` (the change a reading of
    that frame shows), or None before the first."""
    settled = [s for s in truth if s.settled_frame <= frame_index]
    return settled[-1] if settled else None


def truthful_answer(truth: Sequence, frame_index: int, candidates: Sequence[str], *,
                    center_mm: tuple[float, float] | None = None) -> int | None:
    """The index in ``candidates`` of the true answer to the question asked about the frame at
    ``frame_index``, or None when the truth does not say (the bots then leave it unanswered).

    * A die to name (``center_mm`` given, mat mm): the face of the die that lies nearest that
      place in the truth (visible dice only), if it is within 12 mm.
    * Whether dice that moved were re-rolled (``"yes, re-rolled…"`` / ``"no, they only moved"``):
      yes when the change included a menu re-roll.
    * Which came first (``"menu re-roll first"`` / ``"chopsticks swap first"``): the kind of the
      first menu or chopsticks action of the change.
    """
    step = step_at(truth, frame_index)
    if step is None:
        return None
    if center_mm is not None:
        dice = [d for d in step.dice if d.visible]
        if not dice:
            return None
        near = min(dice, key=lambda d: math.dist(d.center_mm, center_mm))
        if math.dist(near.center_mm, center_mm) > 12.0 or near.face not in candidates:
            return None
        return list(candidates).index(near.face)
    kinds = [a for a in step.actions if isinstance(a, (Menu, Chopsticks))]
    for i, text in enumerate(candidates):
        if text.startswith("yes") and any(isinstance(a, Menu) for a in kinds):
            return i
        if text.startswith("no") and not any(isinstance(a, Menu) for a in kinds):
            return i
        if kinds and text.startswith("menu") and isinstance(kinds[0], Menu):
            return i
        if kinds and text.startswith("chopsticks") and isinstance(kinds[0], Chopsticks):
            return i
    return None
