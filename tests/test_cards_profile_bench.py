"""``bench/cards_profile.py`` leaves out exactly the stage it names and puts it back after, charges an
OpenCV call to the function that made it and restores OpenCV's functions, and refuses bad arguments
with exit status 2 (no traceback)."""

from __future__ import annotations

import cv2
import numpy as np

import companion.vision.card_search as card_search
import companion.vision.cards as cards
from benches import load_bench


def _mods():
    return {"companion.vision.cards": cards, "companion.vision.card_search": card_search}


def test_a_skip_leaves_out_only_its_stage_and_is_undone():
    cp = load_bench("cards_profile")
    covered, regions = cards._with_covered, card_search.leftover_regions
    readings = [object()]
    restore = cp._skipped(_mods(), "covered")
    try:
        assert cards._with_covered(None, None, readings) is readings
        assert card_search.leftover_regions is regions  # the search untouched
    finally:
        restore()
    assert cards._with_covered is covered
    restore = cp._skipped(_mods(), "both")
    try:
        assert card_search.leftover_regions(None, [], [], (10.0, 14.0), None) == []
        assert cards._with_covered is not covered
    finally:
        restore()
    assert cards._with_covered is covered and card_search.leftover_regions is regions


def test_opencv_calls_are_charged_to_their_caller_and_opencv_restored():
    cp = load_bench("cards_profile")
    canny = cv2.Canny
    timer = cp.OpenCVTimer()
    timer.install()

    def edges_of_a_square():
        img = np.zeros((40, 40), np.uint8)
        img[10:30, 10:30] = 255
        return cv2.Canny(img, 50, 100)

    try:
        e = edges_of_a_square()
    finally:
        timer.uninstall()
    assert cv2.Canny is canny
    assert e.any()  # the wrapped call still did its work
    assert timer.calls == {("Canny", "edges_of_a_square"): 1}


def test_bad_arguments_are_refused_with_status_2(capsys):
    cp = load_bench("cards_profile")
    assert cp.main(["--sets", "mat,nothing"]) == 2
    assert cp.main(["--skip", "table"]) == 2
    assert cp.main(["--frames", "0"]) == 2
    assert "cards_profile:" in capsys.readouterr().err
