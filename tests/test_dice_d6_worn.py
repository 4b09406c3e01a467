"""A die with a worn, half-filled or glared pip reads "unread", never the value of the pips left
(issue #7 §1): a face whose layout lies inside a larger one's (a four's in a five's, a two's in a
three's), with a pip-shaped faint spot standing clear of the body at each place the larger one
adds, may be that larger face worn; plain dice, clear or opaque, keep their value.

The worn pips are drawn as in ``tests/test_dice_d6_one_mark.py``: a faint light mark the size of a
pip painted over clear gem dice, a share of the way from the body's colour to the pips'."""

from __future__ import annotations

import pytest

from test_dice_d6_one_mark import _dice, _faces


@pytest.mark.parametrize("strength", [0.3, 0.35])
def test_a_five_with_a_faint_centre_pip_is_never_read_as_a_four(strength):
    # A four's layout with a faint pip at the centre: a five whose centre pip is worn to a third
    # of a pip's contrast. The old reader read "4" on every die here.
    img, quads = _dice("4", 3, [(0.0, 0.0)], strength)
    got = _faces(img, quads)
    assert "4" not in got, got
    assert got.count(None) >= 6, got  # reported, with no value: a die is there


@pytest.mark.parametrize("strength", [0.3, 0.35])
def test_a_three_with_a_faint_centre_pip_is_never_read_as_a_two(strength):
    img, quads = _dice("2", 2, [(0.0, 0.0)], strength)
    got = _faces(img, quads)
    assert "2" not in got, got
    assert got.count(None) >= 6, got


@pytest.mark.parametrize("face", ["4", "2"])
def test_a_plain_clear_four_or_two_still_reads(face):
    # Through a clear die the face below shows (a four lies on a three, a two on a five): its
    # ghost at the centre is far fainter than a worn pip and must not make the die unread.
    img, quads = _dice(face, 5, [], 0.0)
    got = _faces(img, quads)
    assert got.count(face) >= 7, got


@pytest.mark.parametrize("face", ["4", "2", "1"])
def test_plain_opaque_dice_under_harsh_light_keep_their_value(face):
    # Opaque dice of their own colours under a steep light gradient, sensor noise and a coarse
    # JPEG, the camera tilted so side faces show: the bare places of the larger layout (a five's
    # centre on a four, a three's on a two, a three's corners on a one) are darkened by shading,
    # an edge or JPEG blocks, not by a pip-shaped spot, and the die must keep its value.
    import dataclasses

    import numpy as np

    from companion.sim.dice import DieSpec, render_dice
    from companion.sim.table import ShotConditions

    specs = [DieSpec("d6", face, (160.0 + 320 * (i % 4), 250.0 + 460 * (i // 4)), 11.0 * i + 3, 56.0)
             for i in range(8)]
    cond = dataclasses.replace(ShotConditions(), light_gradient=0.55, light_angle_deg=40.0, tilt=(0.12, -0.1),
                               noise_sigma=4.0, jpeg_quality=60, vignette=0.15)
    shot = render_dice(specs, size=(1280, 960), rng=np.random.default_rng(7), conditions=cond)
    got = _faces(shot.image, [q for _, _, q in shot.dice])
    assert got.count(face) >= 7, got
    assert set(got) <= {face, None, "missed"}, got


def _probe_die(monkeypatch, case: str, seed: int, near: tuple[float, float]):
    """The readings of ``bench/gem_probe.py``'s photo ``case``/``seed`` and its die whose top face
    holds ``near`` (px): ([face per reading], truth face of that die)."""
    from pathlib import Path

    import cv2
    import numpy as np

    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parent.parent / "bench"))
    import gem_probe

    from companion.vision.dice_d6 import read_d6

    shot = gem_probe.photo(case, seed)
    (truth, quad), = [(face, q) for _, face, q in shot.dice
                      if cv2.pointPolygonTest(np.float32(q), near, False) >= 0]
    got = [o.face for o in read_d6(shot.image)
           if cv2.pointPolygonTest(np.float32(quad), (float(o.center[0]), float(o.center[1])), False) >= 0]
    return got, truth


def test_a_worn_face_refused_as_its_old_value_lets_the_right_face_read(monkeypatch):
    # A five whose centre pip is worn: its four corners make a four's face, which the old reader
    # refused for another reason (a stray), and the faint centre's own face read the five. The
    # worn four must not be reported "unread" over it (the review of branch worn33).
    got, truth = _probe_die(monkeypatch, "five-centre", 50, (792.0, 704.0))
    assert truth == "5"
    assert got == ["5"], got


def test_a_worn_three_whose_pips_were_grouped_apart_is_still_reported(monkeypatch):
    # A three with faint corners: its centre pip, grouped alone, shares its face with the corners;
    # the face is read again with them and, with worn pips, reported unread, never left out.
    got, truth = _probe_die(monkeypatch, "three-corners", 45, (114.0, 705.0))
    assert truth == "3"
    assert got and set(got) <= {"3", None}, got
