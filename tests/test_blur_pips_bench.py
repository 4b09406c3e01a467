"""bench/blur_pips.py: the bar it draws joins two neighbouring marks of the card and nothing else
(no data needed), and a bad argument is argparse's named error, not a traceback."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from benches import load_bench

from companion.vision.deck import _CANON_H, _CANON_W, _upright, mark_count


def _two_pip_card() -> tuple[np.ndarray, np.ndarray]:
    # A white card on grey, upright in a slightly turned quad, with two black pips 0.3 card widths
    # apart on its long axis (about image x 186, y 145 and 215).
    img = np.full((420, 420, 3), 120, np.uint8)
    quad = np.float32([[110, 70], [270, 80], [262, 310], [102, 300]])
    face = np.full((_CANON_H * 4, _CANON_W * 4, 3), 240, np.uint8)
    w = _CANON_W * 4
    for y in (-0.15, 0.15):  # card widths from the centre
        cv2.circle(face, (w // 2, int(face.shape[0] / 2 + y * w)), int(0.06 * w), (20, 20, 20), -1)
    hm = cv2.getPerspectiveTransform(np.float32([[0, 0], [w, 0], [w, face.shape[0]], [0, face.shape[0]]]), quad)
    card = cv2.warpPerspective(face, hm, (420, 420), flags=cv2.INTER_AREA)
    inside = cv2.warpPerspective(np.full(face.shape[:2], 255, np.uint8), hm, (420, 420)) > 0
    img[inside] = card[inside]
    return img, quad


def test_the_bridge_joins_two_neighbouring_marks_into_one():
    bench = load_bench("blur_pips")
    img, quad = _two_pip_card()
    assert mark_count(_upright(img, quad)) == 2
    for seed in range(4):
        out = bench._bridge(img, quad, np.random.default_rng(seed))
        assert mark_count(_upright(out, quad)) == 1  # one part: the pips and the bar between them
        changed = np.argwhere(np.abs(out.astype(int) - img.astype(int)).max(axis=2) > 30)
        assert len(changed) > 0
        y, x = changed.mean(axis=0)  # the bar lies between the pips, no further
        assert 165 < y < 195 and 175 < x < 197, (x, y)
        assert changed[:, 0].min() > 130 and changed[:, 0].max() < 230


def test_a_card_showing_under_two_marks_gets_no_bridge():
    bench = load_bench("blur_pips")
    img = np.full((420, 420, 3), 240, np.uint8)
    quad = np.float32([[110, 70], [270, 80], [262, 310], [102, 300]])
    assert bench._bridge(img, quad, np.random.default_rng(0)) is None


@pytest.mark.parametrize("args", [["--seeds", "5-2"], ["--seeds", "x"], ["--per-rank", "0"], ["--ranks", ","],
                                  ["--kind", "smudge"], ["--blur", "0.05,0.01"], ["--blur", "x"]])
def test_a_bad_argument_is_a_named_error(args, capsys):
    with pytest.raises(SystemExit) as e:
        load_bench("blur_pips").main(args)
    assert e.value.code == 2
    assert "error" in capsys.readouterr().err
