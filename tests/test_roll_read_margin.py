"""The Sushi Roll table reader's margin on a thin-stroke face (issue #10).

In the recorded game tests/fixtures/sushi-roll-3p (seed 808, JPEG q80) frame 966 shows a
``chopsticks`` die on Ann's belt. Its two thin sticks lose most of their colour to blur and JPEG's
halved chroma on a 33 px die, so the close look scored it just under its fine threshold and it read
``"unknown"`` or ``chopsticks`` depending on which frame the mat tracker first estimated its
homography from (sub-pixel differences in the marker corners). ``dice_faces.LONE_RELAX`` gives a
face alone in the lookalike band, near its sure level, a little more room; these tests hold the
frame's reading to the simulator's truth from the unlucky starting frames, and the rule to what it
may and may not accept.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.app.roll_table import UNKNOWN, read_roll_table
from companion.sim.roll_stream import SimRollStream
from companion.vision import dice_faces
from companion.vision.dice_faces import DiceSet
from companion.vision.mat import MatTracker
from companion.vision.mat_layout import load_mat_layout

FIXTURE = Path(__file__).parent / "fixtures" / "sushi-roll-3p"
FRAME = 966
#: Frames whose marker corners gave the homography under which the chopsticks die read "unknown".
UNLUCKY_STARTS = (21, 121, 769)


def _frame(n: int) -> np.ndarray:
    img = cv2.imread(str(FIXTURE / "frames" / f"frame{n:04d}.jpg"))
    assert img is not None, f"fixture frame {n} missing"
    return img


@pytest.fixture(scope="module")
def truth_dice():
    """The visible dice on the table in frame ``FRAME``, from the bots' game replayed without
    rendering (the stream that wrote the fixture)."""
    game = json.loads((FIXTURE / "game.json").read_text(encoding="utf-8"))
    stream = SimRollStream(game["players"], game["seed"], still_frames=game["still_frames"],
                           hand_frames=game["hand_frames"], red_seat=game["red_seat"])
    stream.skip_to(FRAME)
    step = [t for t in stream.truth if t.settled_frame <= FRAME][-1]
    return [d for d in step.dice if d.visible]


@pytest.mark.parametrize("start", UNLUCKY_STARTS)
def test_frame_966_reads_every_die_right_whatever_frame_the_homography_came_from(start, truth_dice):
    layout = load_mat_layout(3, game="sushi-roll")
    dice = DiceSet.load(FIXTURE / "dice.npz")
    tracker = MatTracker(layout)
    assert tracker.update(_frame(start)).found
    read = read_roll_table(_frame(FRAME), tracker, layout, dice)
    assert read is not None
    seen = [d for per_seat in (*read.belts, *read.trays) for d in per_seat] + list(read.loose)
    assert not read.unknown, read.unknown
    assert any(d.face == "chopsticks" for d in truth_dice)
    for die in truth_dice:
        near = min(seen, key=lambda s: math.dist(s.center_mm, die.center_mm))
        assert math.dist(near.center_mm, die.center_mm) <= 12.0, die
        assert near.face == die.face, (die, near)
    # Ann's belt holds the die the margin was short for.
    assert any(d.face == "chopsticks" and math.dist(d.center_mm, (263.0, 389.0)) < 6.0 for d in read.belts[0])


@pytest.fixture(scope="module")
def enrolled():
    return DiceSet.load(FIXTURE / "dice.npz")


def _decide(dice: DiceSet, monkeypatch, scores: dict[str, float], fine: dict[str, float]) -> str:
    """The face ``DiceSet._decide`` gives a die with these whole-face scores (others −1) and
    these close-look scores (the fine patch is not made: ``fine_score`` answers from ``fine``)."""
    row = np.full(len(dice.faces), -1.0, np.float32)
    for f, s in scores.items():
        row[dice.faces.index(f)] = s
    monkeypatch.setattr(DiceSet, "fine_score", lambda self, q, f, t: fine[self.faces[f]])
    return dice._decide(row, np.zeros(len(dice.faces), np.int64), lambda: None).face


def test_a_lone_face_near_sure_is_taken_a_little_below_its_fine_threshold(enrolled, monkeypatch):
    i = enrolled.faces.index("chopsticks")
    sure, thr = float(enrolled.sure[i]), float(enrolled.fine_thresholds[i])
    # Whole-face 0.02 under sure (the frame-966 die's case), close look 0.07 under the threshold
    # (the worst chopsticks die of bench/roll_read.py's seeds): beyond what FINE_RELAX alone allows
    # there (0.04), within LONE_RELAX's 0.096.
    below = 0.07
    assert dice_faces.FINE_RELAX * 0.8 < below < dice_faces.LONE_RELAX * 0.8
    assert _decide(enrolled, monkeypatch, {"chopsticks": sure - 0.02, "menu": sure - 0.4},
                   {"chopsticks": thr - below}) == "chopsticks"


def test_the_extra_room_is_only_for_a_face_alone_in_the_band(enrolled, monkeypatch):
    i = enrolled.faces.index("chopsticks")
    sure, thr = float(enrolled.sure[i]), float(enrolled.fine_thresholds[i])
    # Another face within LOOKALIKE_BAND: only FINE_RELAX, and the same close look is too low.
    rival = {"chopsticks": sure - 0.02, "chopsticks*2": sure - 0.02 - dice_faces.LOOKALIKE_BAND / 2}
    assert _decide(enrolled, monkeypatch, rival, {"chopsticks": thr - 0.045, "chopsticks*2": 0.2}) == UNKNOWN


def test_a_lone_face_far_from_sure_gets_no_extra_room(enrolled, monkeypatch):
    # A face never enrolled that resembles an enrolled one scores well under its sure level (the
    # icon-dice bench's left-out faces: 0.11 under at best); the close look must then reach the
    # calibrated threshold itself.
    i = enrolled.faces.index("menu*2")
    sure, thr = float(enrolled.sure[i]), float(enrolled.fine_thresholds[i])
    assert _decide(enrolled, monkeypatch, {"menu*2": sure - dice_faces.RELAX_WIDTH - 0.01},
                   {"menu*2": thr - 0.005}) == UNKNOWN
    assert _decide(enrolled, monkeypatch, {"menu*2": sure - dice_faces.RELAX_WIDTH - 0.01},
                   {"menu*2": thr + 0.005}) == "menu*2"
