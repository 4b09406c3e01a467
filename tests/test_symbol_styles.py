"""``bench/symbol_cards.py --style``: the symbol deck in a second print, to measure the reader on a
symbol deck it was never tuned on (issue #6: "tune on one style and measure on the other").

The second print must differ from the first where a printer's would (paper, inks, line weights,
shapes), keep the labels' meaning (the count of symbols is the count drawn), and leave the first
print exactly as it was, since every earlier figure was measured on it."""

from __future__ import annotations

import numpy as np
import pytest

from benches import load_bench


@pytest.fixture()
def sc():
    return load_bench("symbol_cards")


def _ink(face: np.ndarray) -> np.ndarray:
    """(H, W) bool: pixels darker than the paper (the face's corner) by 40 in some channel."""
    paper = face[2, 2].astype(int)
    return (paper[None, None, :] - face.astype(int)).max(axis=2) > 40


def test_an_unknown_style_is_refused_by_name(sc):
    with pytest.raises(SystemExit, match="print2"):
        sc.use_style("glossy")


def test_the_second_print_differs_in_paper_ink_and_line(sc):
    label = "2-red-open-oval"
    classic = sc.draw_face(label)
    sc.use_style("print2")
    second = sc.draw_face(label)
    sc.use_style("classic")
    assert tuple(second[2, 2]) == sc.STYLES["print2"]["paper"] != tuple(classic[2, 2])
    # A thinner outline: fewer ink pixels for the same open symbols.
    assert _ink(second).sum() < 0.8 * _ink(classic).sum()
    # An orange-red: more green in the ink than the first print's red.
    ink2, ink1 = second[_ink(second)].mean(axis=0), classic[_ink(classic)].mean(axis=0)
    assert ink2[1] > ink1[1] + 15


@pytest.mark.parametrize("count", [1, 2, 3])
def test_the_second_print_draws_as_many_symbols_as_its_label_says(sc, count):
    import cv2

    sc.use_style("print2")
    face = sc.draw_face(f"{count}-green-solid-wave")
    sc.use_style("classic")
    n, _ = cv2.connectedComponents(_ink(face).astype(np.uint8))
    assert n - 1 == count


def test_going_back_to_the_first_print_draws_it_as_before(sc):
    before = sc.draw_face("3-purple-striped-diamond", np.random.default_rng(4))
    sc.use_style("print2")
    sc.draw_face("3-purple-striped-diamond", np.random.default_rng(4))
    sc.use_style("classic")
    assert np.array_equal(sc.draw_face("3-purple-striped-diamond", np.random.default_rng(4)), before)
