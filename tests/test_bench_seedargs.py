"""bench/seedargs.py: the benches' --seeds are argparse types, so a bad one is a named error
(exit status 2, "argument --seeds: ..."), never a ValueError traceback."""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import pytest
from benches import load_bench

ROOT = Path(__file__).resolve().parent.parent
seedargs = load_bench("seedargs")


def test_seed_list_reads_ranges_and_lists_inclusively():
    assert seedargs.seed_list("40-43") == [40, 41, 42, 43]
    assert seedargs.seed_list("1-2,7, 9-10") == [1, 2, 7, 9, 10]
    assert seedargs.seed_list("5") == [5]


@pytest.mark.parametrize("text", ["x", "3-1", "1-", "-4", "1-2,,3", "", "1:3"])
def test_seed_list_names_a_bad_part(text):
    with pytest.raises(argparse.ArgumentTypeError, match="not a seed or a range"):
        seedargs.seed_list(text)


def test_seed_span_is_half_open():
    assert seedargs.seed_span("300:303") == range(300, 303)


@pytest.mark.parametrize("text", ["300", "5:5", "6:5", "a:b", "1:2:3", "-1:4", ""])
def test_seed_span_names_a_bad_span(text):
    with pytest.raises(argparse.ArgumentTypeError, match="not a span of seeds"):
        seedargs.seed_span(text)


@pytest.mark.parametrize("bench, bad", [
    ("loose_scenes", "40-x"), ("sim_games", "8-1"), ("turned_cards", "a"), ("real_fans", "1:4"),
    ("icon_dice", "8000"), ("roll_read", "x:y"), ("sim_d6", "320:300"),
    ("real_covers", "9-2"), ("crumb_nines", "x"), ("gem_crack", "7"), ("blur_pips", "3-1"),
    ("gem_d6", "20:10"), ("gem_probe", "0-20"), ("touching_pairs", "13000-x"), ("ace_corners", "9-2"),
    ("border_cards", "9-2"),
])
def test_a_bench_given_bad_seeds_exits_2_naming_the_argument(bench, bad):
    r = subprocess.run([sys.executable, str(ROOT / "bench" / f"{bench}.py"), "--seeds", bad],
                       capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert r.returncode == 2, r.stderr
    assert "--seeds" in r.stderr and "Traceback" not in r.stderr


def test_frame_size_is_width_by_height():
    assert seedargs.frame_size("4032x3024") == (4032, 3024)
    assert seedargs.frame_size("640X480") == (640, 480)


@pytest.mark.parametrize("text", ["4032", "0x480", "640x", "x480", "axb", "640x480x3", "-640x480", ""])
def test_frame_size_names_a_bad_size(text):
    with pytest.raises(argparse.ArgumentTypeError, match="not a frame size"):
        seedargs.frame_size(text)


@pytest.mark.parametrize("bench", ["gem_d6", "roll_read"])
def test_a_dice_bench_given_a_bad_size_exits_2_naming_the_argument(bench):
    r = subprocess.run([sys.executable, str(ROOT / "bench" / f"{bench}.py"), "--size", "640by480"],
                       capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert r.returncode == 2, r.stderr
    assert "--size" in r.stderr and "Traceback" not in r.stderr
