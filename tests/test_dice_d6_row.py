"""A row of a larger face read as a diagonal (issue #7 §1): a four's column read as a two, a six's
row read as a three. The other column's pips, seen a little squashed, were too squashed to make a
top face (or the other row merged into one bar by blur), so the pips left made a smaller, turned
face that read cleanly: a wrong value. Such a reading, and a one on one of its pips, is no reading
of its group (a miss or the larger face's value, never the smaller one)."""

from __future__ import annotations

import numpy as np
import pytest

from companion.vision import dice_d6
from companion.vision.dice_d6 import Face, Pip

from test_dice_d6 import PHOTOS, ROOT


def _pip(x, y, d=9.0, roundness=0.9, polarity=1, angle=0.0):
    return Pip(x, y, np.pi * d * d / 4, d / np.sqrt(roundness), d * np.sqrt(roundness), angle, 0.6, polarity)


def _face(pips, half=20.0, turn=0.0):
    c, s = np.cos(np.radians(turn)), np.sin(np.radians(turn))
    centre = np.mean([(p.x, p.y) for p in pips], axis=0)
    return Face(np.array([[half * c, -half * s, centre[0]], [half * s, half * c, centre[1]]]), tuple(pips), 0.0)


def _row(f, value, others):
    every = [*f.pips, *others]
    xy = np.array([(p.x, p.y) for p in every], np.float64)
    return dice_d6._row_of_larger(f, value, every, xy, np.array([p.polarity for p in every]))


# A four's left column, 20 px long (a die of half-width 20 seen square on), read as a two's
# diagonal: the two's face is turned 45° and 0.7 as large.
COLUMN = (_pip(100, 90), _pip(100, 110))
TWO = _face(COLUMN, half=20 / np.sqrt(2), turn=45.0)


def test_a_fours_column_beside_its_other_column_is_a_row():
    # The other column one length across, its pips seen a little squashed (0.55-0.6 round: too
    # squashed for a top face's, TOP_MIN_ROUNDNESS), as on a die seen at a slant.
    other = [_pip(120, 90, roundness=0.58), _pip(120, 110, roundness=0.6)]
    assert _row(TWO, 2, other)
    assert _row(TWO, 2, [_pip(80, 91, roundness=0.58), _pip(81, 110, roundness=0.58)])  # on the left
    assert _row(TWO, 2, [_pip(117, 91), _pip(116, 111)])  # foreshortened across (0.8 of a length)


def test_a_sixs_row_beside_its_other_row_merged_into_a_bar_is_a_row():
    row = (_pip(90, 100), _pip(100, 100), _pip(110, 100))
    three = _face(row, half=20 / np.sqrt(2), turn=45.0)
    bar = _pip(100, 80, d=15.0, roundness=0.22)  # angle 0: its long axis along the row
    assert bar.minor == pytest.approx(15.0 * np.sqrt(0.22))
    assert _row(three, 3, [bar])
    assert _row(three, 3, [_pip(90, 81), _pip(100, 81), _pip(110, 80)])  # three pips
    assert not _row(three, 3, [_pip(90, 81), _pip(110, 80)])  # no middle pip: no six's row


def test_a_real_two_beside_other_things_is_no_row():
    # A side face's pips: squashed (0.35-0.46 on the dev photos).
    assert not _row(TWO, 2, [_pip(120, 90, roundness=0.4), _pip(120, 110, roundness=0.4)])
    # One pip only beside it (a touching die's).
    assert not _row(TWO, 2, [_pip(120, 90)])
    # Two pips, but two lengths across (a touching die's), or not beside the line's pips.
    assert not _row(TWO, 2, [_pip(140, 90), _pip(140, 110)])
    assert not _row(TWO, 2, [_pip(120, 70), _pip(120, 80)])
    # Not alike: much smaller specks, much larger blobs, or light spots beside dark pips.
    assert not _row(TWO, 2, [_pip(120, 90, d=4.0), _pip(120, 110, d=4.0)])
    assert not _row(TWO, 2, [_pip(120, 90, d=18.0), _pip(120, 110, d=18.0)])
    assert not _row(TWO, 2, [_pip(120, 90, polarity=-1), _pip(120, 110, polarity=-1)])
    # Not parallel: one at 0.7 of a length across, the other at 1.3.
    assert not _row(TWO, 2, [_pip(114, 90), _pip(126, 110)])


def test_only_a_twos_or_threes_line_is_asked():
    other = [_pip(120, 90, roundness=0.58), _pip(120, 110, roundness=0.6)]
    assert not _row(TWO, 1, other)
    assert not _row(TWO, None, other)
    four = _face([*COLUMN, _pip(120, 90), _pip(120, 110)])
    assert not _row(four, 4, [])


def test_readings_of_a_rows_pips_are_left_out_of_the_groups_best():
    one = Face(np.array([[14.0, 0.0, 100.0], [0.0, 14.0, 90.0]]), (COLUMN[0],), 0.0)
    four = _face(COLUMN, half=20.0)
    rows = {id(p) for p in COLUMN}
    # As read on main: the two (0.75) beats the one (0.72), which beats the four (0.64).
    passed = [(0.72, 1, one), (0.64, 4, four), (0.75, 2, TWO)]
    assert dice_d6._best_reading(passed, set()) == (0.75, 2, TWO)
    assert dice_d6._best_reading(passed, rows) == (0.64, 4, four)
    assert dice_d6._best_reading(passed[::2], rows) is None
    # A reading with one pip of the row and one other is not the row's.
    mixed = _face([COLUMN[0], _pip(80, 80)], half=14.0, turn=45.0)
    assert dice_d6._best_reading([(0.8, 2, mixed), (0.64, 4, four)], rows) == (0.8, 2, mixed)


@pytest.mark.skipif(not PHOTOS.is_dir(), reason="../shared/datasets/d6-photos is missing (the shared datasets sit beside the repo)")
def test_the_dev_photos_rows_are_not_read_as_a_two_or_a_three(monkeypatch):
    # The two dev photos where main read a four's column as a 2 and a six's row as a 3 (the
    # other column squashed to 0.61 by the coarse octave; the other row merged by blur).
    monkeypatch.syspath_prepend(str(ROOT / "bench"))
    import real_dice

    from companion.vision.dice_d6 import read_d6
    from companion.vision.imageio import read_image

    for name in ("four_29", "six_42"):
        path = PHOTOS / f"{name}.jpg"
        img = read_image(path)
        labels = real_dice.load_labels(path.with_suffix(".txt"), img.shape[:2])
        readings = read_d6(img)
        m, extra = real_dice.match(readings, labels)
        assert all(readings[i].value in (labels[j][0], None) for j, i in m.items()), name
        assert not [i for i in extra if readings[i].value is not None], name


def _half_blurred_six(turn: float, half: float = 22.0, d: float = 6.5, seed: int = 0) -> np.ndarray:
    """An ivory six on a wooden table whose one column of pips is drawn as one bar (merged by
    blur, as on the dev photo six_42) and the other as three round pips."""
    import cv2

    rng = np.random.default_rng(seed)
    img = (np.full((240, 320, 3), (150, 170, 190), np.float64) + rng.normal(0, 3, (240, 320, 3))).clip(0, 255)
    img = img.astype(np.uint8)
    c = np.array([160.0, 120.0])
    a = np.radians(turn)
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])

    def px(u, v):  # face coordinates (half-widths) to 1/16 px
        p = np.array([u, v]) * half @ rot.T + c
        return int(round(p[0] * 16)), int(round(p[1] * 16))

    body = np.array([px(u, v) for u, v in ((-1.05, -1.05), (1.05, -1.05), (1.05, 1.05), (-1.05, 1.05))], np.int32)
    cv2.fillConvexPoly(img, body, (225, 235, 240), cv2.LINE_AA, 4)
    for v in (-0.5, 0.0, 0.5):
        cv2.circle(img, px(-0.5, v), int(round(d / 2 * 16)), (40, 40, 40), -1, cv2.LINE_AA, 4)
    cv2.line(img, px(0.5, -0.5), px(0.5, 0.5), (40, 40, 40), int(d * 0.9), cv2.LINE_AA, 4)
    return cv2.GaussianBlur(img, (0, 0), 0.8)


@pytest.mark.parametrize("turn", [0.0, 15.0, 30.0, 60.0, 100.0])
def test_a_six_with_one_column_merged_into_a_bar_reads_six(turn, monkeypatch):
    from companion.vision.dice_d6 import read_d6

    img = _half_blurred_six(turn)
    assert [o.value for o in read_d6(img)] == [6]
    # Without the bar-and-row face, the three pips beside the bar are still no three (here the
    # pips placed as a six's column read it; on the dev photo six_42 nothing else did).
    monkeypatch.setattr(dice_d6, "_pip_rows", lambda pips, bars: [])
    assert 3 not in [o.value for o in read_d6(img)]


def test_a_row_of_pips_beside_a_bar():
    bar = _pip(120, 100, d=14.0, roundness=0.2, angle=90.0)  # a column: its long axis up and down
    row = [_pip(100, 89, d=7.0), _pip(100, 100, d=7.0), _pip(100, 111, d=7.0)]
    assert len(dice_d6._pip_rows([bar, *row], [bar])) == 1
    assert dice_d6._pip_rows([bar, *row[:2]], [bar]) == []  # two pips are no column
    bent = [row[0], _pip(106, 100, d=7.0), row[2]]
    assert dice_d6._pip_rows([bar, *bent], [bar]) == []  # not in a line
    across = [_pip(89, 78, d=7.0), _pip(100, 78, d=7.0), _pip(111, 78, d=7.0)]
    assert dice_d6._pip_rows([bar, *across], [bar]) == []  # not beside the bar, across it


def test_a_bar_across_the_line_is_no_row():
    # A seam between touching dice, or a side face's shade, is a bar at any angle; a row's pips run
    # together lie along the line (review of d6w38: two such bars beside a 2 made its "row").
    # The four's column (vertical); bars 20 px to its right, one level with each pip.
    along = [_pip(120, 100, d=14.0, roundness=0.25, angle=90.0)]
    assert _row(TWO, 2, along)  # the other column run together: a row
    assert _row(TWO, 2, [_pip(120, 100, d=14.0, roundness=0.25, angle=100.0)])  # 10° off: still
    for angle in (0.0, 45.0, 135.0):  # across the line, each bar level with one pip
        across = [_pip(120, y, d=14.0, roundness=0.25, angle=angle) for y in (90, 110)]
        assert not _row(TWO, 2, across), angle


@pytest.mark.parametrize("case", ["small", "tilted"])
def test_a_two_touching_a_five_still_reads_two(case):
    # The review's drawn cases: on the reviewed code the 2 was missed (small, an ordinary camera)
    # or read 6 (large, tilted), its neighbour's seam and side face taken for a row.
    import cv2

    from companion.sim.dice import DieSpec, render_dice
    from companion.sim.table import ShotConditions

    specs, cond = {
        "small": ([DieSpec("d6", "2", (164.79, 222.85), 75.19, 52.41), DieSpec("d6", "5", (226.09, 240.23), 79.97, 55.78)],
                  ShotConditions(background="wood", background_bgr=(40, 123, 129), tilt=(0.0234, -0.0843),
                                 light_gradient=0.058, light_angle_deg=212.2, vignette=0.064, blur_sigma=0.974,
                                 noise_sigma=1.02, jpeg_quality=81, shadow=0.31)),
        "tilted": ([DieSpec("d6", "2", (497.57, 283.85), 20.03, 108.76), DieSpec("d6", "5", (480.44, 161.94), 14.84, 105.19)],
                   ShotConditions(background="wood", background_bgr=(52, 76, 132), tilt=(-0.0692, -0.2017),
                                  light_gradient=0.285, light_angle_deg=299.7, vignette=0.128, blur_sigma=1.054,
                                  noise_sigma=1.49, jpeg_quality=84, shadow=0.395)),
    }[case]
    for seed in range(4):
        shot = render_dice(specs, rng=np.random.default_rng(seed), conditions=cond)
        on_two = [o.face for o in dice_d6.read_d6(shot.image)
                  if cv2.pointPolygonTest(np.float32(shot.dice[0][2]), o.center, False) >= 0]
        assert on_two == ["2"], f"seed {seed}: the 2 read as {on_two or 'nothing'}"
