"""bench/gem_triage.py: it lists the dice sim_d6's notes list, counts only the hypotheses on a
die's face (in photo px, the trace's scale undone), and a bad argument is a named error."""

from __future__ import annotations

import numpy as np
import pytest
from benches import load_bench

from companion.vision.dice_d6 import Face, Pip


def _face(cx: float, cy: float, value_pips: int = 1) -> Face:
    pip = Pip(cx, cy, 20.0, 5.0, 5.0, 0.0, 0.5, 1)
    return Face(np.array([[10.0, 0.0, cx], [0.0, 10.0, cy]]), (pip,) * value_pips, 0.0)


def test_hypotheses_on_counts_only_faces_centred_on_the_die_in_working_px():
    tri = load_bench("gem_triage")
    quad = np.float32([[100, 100], [200, 100], [200, 200], [100, 200]])  # photo px
    # The working image is half the photo: the die's face spans 50..100 there.
    trace = [("scale", 0.5), ("group", None, None, 0.0, None),
             ("hypothesis", _face(75, 75), None, 0.4, None),
             ("hypothesis", _face(76, 70), None, 0.3, None),
             ("faint", _face(80, 80, 2), 2, 0.5, "seam"),
             ("hypothesis", _face(150, 150), 1, 0.6, None),  # inside only if the scale were ignored
             ("kept", _face(75, 75), 3, 0.6, None)]
    got = tri.hypotheses_on(quad, trace)
    assert got == {(None, 1, None): 2, (2, 2, "seam"): 1}


def test_triage_lists_every_die_sim_d6_notes_lists():
    tri = load_bench("gem_triage")
    sim = load_bench("sim_d6")
    from companion.vision.dice_d6 import read_d6

    shown = 0
    for seed in (1900, 1910):  # at this size: two unread, one wrong
        shot = tri.scene(seed, (1344, 1008))
        score, lines = tri.triage(shot, seed)
        obs = read_d6(shot.image)
        assert score == sim.score(shot.dice, obs)
        assert len(lines) == len(sim.notes(shot.dice, obs))
        shown += len(lines)
    assert shown > 0  # the check above compared something: these photos have dice not read right


def test_a_bad_size_is_a_named_error(capsys):
    tri = load_bench("gem_triage")
    with pytest.raises(SystemExit) as e:
        tri.main(["--seeds", "0:1", "--size", "big"])
    assert e.value.code == 2
    assert "--size" in capsys.readouterr().err
