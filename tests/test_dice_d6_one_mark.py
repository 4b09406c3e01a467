"""A clear die's five or six with one faint mark on its body still reads (issue #7 §1), while a
face that a faint mark could turn into another value (a four with a faint centre: a worn five)
stays unread.

Through a clear die the face lying on the table shows faintly (opposite faces sum to 7): a six
shows a one, moved off the centre by the camera's slant. No face has more pips than a five's or a
six's, so one faint mark cannot make either another value; a four's faint centre may be a worn
five's pip, a one's faint corners a worn three's or five's (README, "Clear dice: a face's faint
marks ... reverted after review")."""

from __future__ import annotations

import dataclasses

import cv2
import numpy as np
import pytest

from companion.sim.dice import DieSpec, render_dice
from companion.sim.table import ShotConditions
from companion.vision.dice_d6 import read_d6

WOOD = (45, 80, 130)  # a dark wooden tray
GEMS = [(40, 30, 190), (170, 70, 30), (60, 150, 30), (130, 40, 110)]  # red, blue, green, purple
WHITE = (245, 245, 245)


def _dice(face: str, seed: int, marks: list[tuple[float, float]], strength: float | list[float],
          translucency: float = 0.5):
    """A photo of eight clear gem dice (64 px faces, 0.5 translucent) showing ``face``, each with a
    faint light mark the size of a pip painted at each of ``marks`` (face half-widths, x right and y
    down from the face centre), ``strength`` of the way from the body's colour to the pips'.
    Returns (image, the dice' top quads)."""
    specs = [DieSpec("d6", face, (160.0 + 320 * (i % 4), 250.0 + 460 * (i // 4)), 13.0 * i + 5, 64.0,
                     body_bgr=GEMS[i % 4], pip_bgr=WHITE, translucency=translucency) for i in range(8)]
    cond = dataclasses.replace(ShotConditions(), background="wood", background_bgr=WOOD, shadow=0.3)
    shot = render_dice(specs, size=(1280, 960), rng=np.random.default_rng(seed), conditions=cond)
    img = shot.image.astype(np.float32)
    strengths = [strength] * len(marks) if np.isscalar(strength) else list(strength)
    for (u, v), s in zip(marks, strengths):
        mask = np.zeros(img.shape[:2], np.float32)
        for _, _, q in shot.dice:
            q = np.float32(q)  # corners clockwise from the art's top-left
            centre = q.mean(axis=0)
            right, down = (q[1] + q[2] - q[0] - q[3]) / 4, (q[3] + q[2] - q[0] - q[1]) / 4  # half-widths
            x, y = centre + u * right + v * down
            cv2.circle(mask, (int(round(x)), int(round(y))), int(round(0.18 * np.hypot(*right))), 1.0, -1, cv2.LINE_AA)
        mask = cv2.GaussianBlur(mask, (0, 0), 1.5)[..., None] * s
        img = img * (1 - mask) + np.float32(WHITE) * mask
    return np.clip(img, 0, 255).astype(np.uint8), [q for _, _, q in shot.dice]


def _faces(img: np.ndarray, quads) -> list[str | None]:
    """Per die (quads' order), the reading whose centre lies on its top face, or "missed"."""
    out = []
    readings = read_d6(img)
    for q in quads:
        on = [o.face for o in readings
              if cv2.pointPolygonTest(np.float32(q), (float(o.center[0]), float(o.center[1])), False) >= 0]
        out.append(on[0] if on else "missed")
    return out


@pytest.mark.parametrize("face,mark", [("6", (0.0, 0.45)), ("6", (0.75, 0.0)), ("5", (0.0, 0.6))])
def test_a_five_or_six_with_one_faint_mark_on_its_body_reads(face, mark):
    # The mark lies off every pip place of the face (on the six's middle column or by its edge,
    # below the five's centre), under half a pip's contrast: the one (or a two's corner) below,
    # seen through the body where the camera's slant puts it. The old reader left most unread.
    img, quads = _dice(face, 1, [mark], 0.45)
    got = _faces(img, quads)
    assert set(got) <= {face, None, "missed"}, got
    assert got.count(face) >= 6, got


@pytest.mark.parametrize("strength", [0.5, 0.6])
def test_a_worn_five_is_never_read_as_a_four(strength):
    # A four with a faint pip at its centre: a worn five (its centre pip at half a pip's contrast
    # and more), or a four with the three below showing there. Either way not "4".
    img, quads = _dice("4", 2, [(0.0, 0.0)], strength)
    got = _faces(img, quads)
    assert set(got) <= {"5", None, "missed"}, got


@pytest.mark.parametrize("strength", [0.4, 0.6])
def test_a_worn_six_is_never_read_as_a_four(strength):
    # A four with faint pips at both middles of one axis: a six whose middle pips are worn.
    img, quads = _dice("4", 4, [(-0.5, 0.0), (0.5, 0.0)], strength)
    got = _faces(img, quads)
    assert set(got) <= {"6", None, "missed"}, got


def test_a_four_with_a_doubtful_centre_and_a_mark_is_not_read_as_a_five():
    # A review's probe: a four (opaque dice) with a blob at its centre at 0.75 of a pip's contrast
    # (a worn five, or a three below) and a faint mark on a bare place of the five's layout. Let off the mark,
    # the face fits a five whose faintest pip is the doubtful one; the pips must be even for a
    # mark to be let off (ONE_MARK_EVEN), so it stays what the old reader said: not a five by a mark.
    from companion.vision import dice_d6

    # (Without the mark the reader takes the blob for a five's centre pip; with it, the body is
    # not plain and the old reader left the die unread, as it must stay.)
    for mark in ((0.5, 0.0), (0.0, -0.8), (0.8, 0.0)):  # bare places of a five's layout
        img, quads = _dice("4", 6, [(0.0, 0.0), mark], [0.75, 0.4], translucency=0.0)
        got = _faces(img, quads)
        assert "5" not in got and "4" not in got, (mark, got)
    assert dice_d6.ONE_MARK_EVEN > 0.8


def test_a_replay_of_a_marked_face_refused_by_its_verifier_reads_as_the_reader_does():
    # A five read only as its mark was let off, then refused by a verifier, falls back to
    # "unread"; the training script's replay (select_readings) of a trace read with no verifier
    # must keep that fallback too, or the die vanishes from the replay.
    from companion.vision.dice_d6 import _read_d6, select_readings
    from companion.vision.dice_verify import Verifier, shipped
    from companion.vision.imageio import to_original_px

    img, quads = _dice("6", 1, [(0.0, 0.45)], 0.45)
    v = shipped()
    refuse_all = Verifier(v.mean, v.scale, v.weights, -1000.0, 0.5)  # refuses every reading
    trace: list = []
    _read_d6(img, None, trace)
    want = sorted((o.value, tuple(round(float(c), 1) for c in o.center)) for o in _read_d6(img, refuse_all, None))
    got = sorted((None if value is None else str(value),
                  tuple(round(float(c), 1) for c in np.mean(to_original_px(f.quad(), trace[0][1]), axis=0)))
                 for value, f in select_readings(trace, refuse_all.keeps))
    assert [v for v, _ in want] == [None] * len(want) and len(want) >= 6  # every die refused: unread
    assert got == want
