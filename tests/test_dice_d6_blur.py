"""Blurred sixes (issue #7 §1): a die that moved while the webcam exposed shows each column of its
six as one long blob (a bar); two bars side by side, on a die, are read as a six. Drawn here with
OpenCV (8× and shrunk, then blurred along the columns)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from companion.vision import dice_d6
from companion.vision.dice_d6 import find_pips, read_d6


def blurred_six(angle: float, *, blur: int = 12, pip: float = 8.0, plain: bool = False) -> np.ndarray:
    """(160, 160, 3) uint8 BGR: an ivory six (face half-width 20 px, pips ``pip`` px across) on a
    wooden table (or, ``plain``, on an ivory sheet: no die's outline), motion-blurred ``blur`` px
    along its columns and turned ``angle`` degrees."""
    s, w = 8, 160
    ivory, table = (225, 235, 240), (70, 110, 150)
    c = np.full((w * s, w * s, 3), ivory if plain else table, np.uint8)
    cx = cy = 80.0
    hw = 20.0
    sq = np.array([(-hw, -hw), (hw, -hw), (hw, hw), (-hw, hw)]) + (cx, cy)
    cv2.fillConvexPoly(c, np.int32(sq * s), ivory, cv2.LINE_AA)
    for u in (-0.5, 0.5):
        for v in (-0.5, 0.0, 0.5):
            centre = (int((cx + u * hw) * s), int((cy + v * hw) * s))
            cv2.circle(c, centre, int(pip / 2 * s), (30, 30, 30), -1, cv2.LINE_AA)
    img = cv2.resize(c, (w, w), interpolation=cv2.INTER_AREA).astype(np.float32)
    k = np.zeros((blur, blur), np.float32)
    k[:, blur // 2] = 1.0 / blur  # motion along the columns
    img = cv2.GaussianBlur(cv2.filter2D(img, -1, k), (0, 0), 0.8)
    img = cv2.warpAffine(img, cv2.getRotationMatrix2D((cx, cy), angle, 1.0), (w, w), borderMode=cv2.BORDER_REPLICATE)
    return np.clip(img, 0, 255).astype(np.uint8)


@pytest.mark.parametrize("angle", [0.0, 30.0, 115.0])
def test_a_six_whose_columns_merged_into_bars_is_read(angle):
    img = blurred_six(angle)
    pips = find_pips(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY))
    assert len(pips) == 2 and all(p.roundness <= dice_d6.BAR_MAX_ROUNDNESS for p in pips)  # the case
    found = read_d6(img)
    assert [o.value for o in found] == [6]
    assert np.hypot(found[0].center[0] - 80, found[0].center[1] - 80) < 4


def test_bars_on_a_plain_sheet_are_no_six():
    # The same two bars with no die's outline round them: strokes on a larger plain surface.
    assert read_d6(blurred_six(30.0, plain=True)) == []


def test_strokes_too_thin_for_merged_pips_make_no_six():
    img = blurred_six(30.0, pip=5.0)  # 5 px pips: bars 3 px wide
    bars = [p for p in find_pips(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)) if p.roundness <= dice_d6.BAR_MAX_ROUNDNESS]
    assert len(bars) == 2 and all(p.minor < dice_d6.BAR_MIN_WIDTH for p in bars)
    assert read_d6(img) == []
