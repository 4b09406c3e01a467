"""Pip dice of clear dyed plastic (issue #7 §1: "any dice colour"; the held-back phone photos show
translucent coloured dice): the faint pips of the face below must not hide a one."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from companion.sim.dice import DieSpec, render_dice
from companion.sim.table import ShotConditions
from companion.vision.dice_d6 import read_d6

WOOD = (45, 80, 130)  # a dark wooden tray
GEMS = [(40, 30, 190), (170, 70, 30), (60, 150, 30), (130, 40, 110)]  # red, blue, green, purple
WHITE = (245, 245, 245)


def _ones(translucency: float, seed: int):
    """A photo of eight dice (48 px faces) showing one, two of each gem colour, far apart in a tray."""
    specs = [DieSpec("d6", "1", (160.0 + 320 * (i % 4), 250.0 + 460 * (i // 4)), 13.0 * i + 5, 48.0,
                     body_bgr=GEMS[i % 4], pip_bgr=WHITE, translucency=translucency) for i in range(8)]
    cond = dataclasses.replace(ShotConditions(), background="wood", background_bgr=WOOD, shadow=0.3)
    return render_dice(specs, size=(1280, 960), rng=np.random.default_rng(seed), conditions=cond)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_ones_of_clear_coloured_dice_are_read_despite_the_six_seen_through_them(seed):
    # The six below mottles the body round the one's pip; a blue or purple body in a shadow is dark.
    got = [o.face for o in read_d6(_ones(0.7, seed).image)]
    assert got.count("1") == 8, got
    assert set(got) <= {"1", None}, got  # never another value


def test_a_light_spot_on_a_black_or_grey_thing_is_still_not_a_one():
    # Keys and cables: a lone light spot on a body of no colour is a reflection (MIN_LIGHT_PIP_CHROMA),
    # however dark the body (CHROMA_FLOOR: the colour of near-black is noise).
    specs = [DieSpec("d6", "1", (160.0 + 320 * (i % 4), 250.0 + 460 * (i // 4)), 13.0 * i + 5, 48.0,
                     body_bgr=(v, v, v + 6), pip_bgr=WHITE) for i, v in enumerate((12, 20, 30, 45, 60, 75, 90, 105))]
    cond = dataclasses.replace(ShotConditions(), background="wood", background_bgr=WOOD, shadow=0.3)
    got = [o.face for o in read_d6(render_dice(specs, size=(1280, 960), rng=np.random.default_rng(4), conditions=cond).image)]
    assert "1" not in got, got
