"""Sushi Roll icon dice: learn the user's own dice from a picture of each face, then read them.

Issue #7 §2. The faces a die type can show are data (``companion/data/sushi_roll_dice.toml``) and
a user's dice may be printed differently from any art we could draw, so, like the card reader
(:mod:`companion.vision.deck`), the reader learns the faces from the user's own pictures and knows
nothing of any art beforehand.

* :mod:`companion.vision.dice_enroll` — enrolment (``enroll --dice``) and its calibration;
* :mod:`companion.vision.dice_faces` — the enrolled faces (:class:`DiceSet`, DICE.npz), the
  whole-face descriptor and how a reading is decided;
* :mod:`companion.vision.dice_fine` — the close look at faces that are alike or not sure;
* :mod:`companion.vision.dice_find` — where the dice's top faces are in a photo;
* this module — :func:`read_icon_dice`, which puts them together.

Reading a photo: the finder gives, per die, a few hypotheses of its top face's square. A die
whose hypotheses do not already match an enrolled face surely has the best of them tried a little
larger and smaller (``SIZES``, ``SHRINKS``), and the one whose patch best matches any enrolled face
(a cheap centroid score) is kept; if even that is not sure, it is moved, scaled and turned a little
where that improves its best face's score (:func:`_refine`). Then :meth:`DiceSet.read` names it.
A die whose top face is cut by the photo's border is reported with face None (not read).

The working size is bounded (``dice_find.WORK_SIDE``): a large photo is searched shrunk, and
searched again at up to ``LARGE_WORK_SIDE`` when nothing was found (small dice in a big photo); its
dice are named from the image given, and every coordinate is in its pixels. (``companion read dice``
decodes a photo at most ``LARGE_WORK_SIDE`` px long.)
"""

from __future__ import annotations

import time

import cv2
import numpy as np

from companion.vision.blas import one_opencv_thread
from companion.vision.dice_enroll import enroll_dice_folder, enroll_dice_images
from companion.vision.dice_faces import (
    PATCH, UNKNOWN, DiceError, DiceSet, FaceReading, describe, describe_and_body, die_of,
    face_patches,
)
from companion.vision.dice_find import WORK_SIDE, quad_centre
from companion.vision.imageio import ImageReadError
from companion.vision.observations import DieObservation


#: The longest side searched again when nothing was found at ``WORK_SIDE``, px: a 40 px face in
#: a 12 MP phone photo is then 38 px, above the finder's smallest face (``SIDE_RANGE``).
LARGE_WORK_SIDE = 3 * WORK_SIDE


def read_icon_dice(image: np.ndarray, dice: DiceSet, *, timings: dict | None = None) -> list[DieObservation]:
    """Find every Sushi Roll die in a photo and name its top face (issue #7 §2).

    The top faces are found by the dice's body colours (:func:`companion.vision.dice_find.
    find_top_faces`), then each is warped square and named against the enrolled faces at its four
    quarter turns (module doc).

    Args:
        image: (H, W, 3) uint8 BGR, a photo of the table from above, any size (large photos are
            searched shrunk; coordinates are in this image's px).
        dice: the enrolled faces.
        timings: if given, filled with ``find_ms`` (finding the top faces) and ``classify_ms``
            (choosing each die's quad and naming its face), wall-clock ms, for benchmarks.

    Raises:
        ValueError: ``image`` is not a uint8 array of 1, 3 or 4 channels.

    Returns:
        One :class:`DieObservation` per die found, in reading order (top to bottom, left to
        right): ``face`` an enrolled face name, ``"unknown"`` (no enrolled face matches; ``die``
        None) or None (the top face is cut by the image border: not read); ``quad`` the top
        face's corners clockwise from the art's top-left as matched.

    OpenCV runs on one thread during the read, and numpy's BLAS too (:func:`one_opencv_thread`,
    :func:`companion.vision.blas.one_blas_thread`); both are restored after.
    """
    image = np.asarray(image)
    if image.dtype != np.uint8 or image.ndim not in (2, 3) or (image.ndim == 3 and image.shape[2] not in (1, 3, 4)):
        raise ValueError(f"read_icon_dice: a photo is an (H, W, 3) uint8 BGR array, not {image.dtype} {image.shape}")
    if image.size == 0:
        return []
    if image.ndim == 2 or image.shape[2] == 1:
        image = cv2.cvtColor(image.reshape(image.shape[:2]), cv2.COLOR_GRAY2BGR)
    elif image.shape[2] == 4:
        image = np.ascontiguousarray(image[:, :, :3])
    with one_opencv_thread():
        return _read(image, dice, timings)


def _read(image: np.ndarray, dice: DiceSet, timings: dict | None) -> list[DieObservation]:
    """:func:`read_icon_dice` of a checked (H, W, 3) uint8 BGR image."""
    from companion.vision.blas import one_blas_thread
    from companion.vision.dice_find import find_top_faces

    t0 = time.perf_counter()
    colours, body_die = dice.body_colours()
    tops = find_top_faces(image, colours)
    if not tops and max(image.shape[:2]) > WORK_SIDE:
        # Nothing at the usual working size: small dice in a big photo (faces of 40 px in a
        # 4032 px phone photo are 13 px at 1280). Search again at up to 3 × the size.
        tops = find_top_faces(image, colours, work_side=min(max(image.shape[:2]), LARGE_WORK_SIDE))
    t1 = time.perf_counter()
    out: list[DieObservation] = []
    readable = [t for t in tops if not t.partial]
    if readable:
        with one_blas_thread():
            quads, scores, turn = _refine(image, *_best_hypotheses(image, readable, dice), dice)
            readings = dice.read(image, quads, matched=(scores, turn))
        for q, r in zip(quads, readings):
            # The patch shows the art turned ``turn`` quarter turns counter-clockwise, so the art's
            # top-left corner is the patch's corner 4 − turn (corners run clockwise from its top-left).
            quad = np.roll(q, -((4 - r.turn) % 4), axis=0)
            die = dice.dice[dice.faces.index(r.face)] if r.face != UNKNOWN else None
            out.append(DieObservation(r.face, r.confidence, _pts(quad), die))
    done = {t.group for t in readable}
    for t in tops:
        if t.partial and t.group not in done:
            done.add(t.group)
            out.append(DieObservation(None, 0.0, _pts(t.quad), body_die[t.body]))
    out.sort(key=lambda o: (round(o.center[1] / 40.0), o.center[0]))
    if timings is not None:
        timings["find_ms"] = (t1 - t0) * 1000.0
        timings["classify_ms"] = (time.perf_counter() - t1) * 1000.0
    return out


#: Sizes of a found square tried against the enrolled art: larger, about its centre (a face's
#: bright part can stop short of its edge, at a printed frame near it), and a little smaller
#: (``SHRINKS``), towards its corner farthest from the image centre (a side face lit nearly as
#: well as the top may have been taken in, and side faces show between a top and the camera's
#: nadir). Only a little smaller: a much smaller square could leave out an icon (three maki read
#: as two); the finder offers those only where what they leave out is darker (a side face).
SIZES = (1.0, 1.12, 1.24)
SHRINKS = (0.94, 0.88)


def _quads_tried(quad: np.ndarray, nadir: np.ndarray) -> list[np.ndarray]:
    """The quads tried for one found square (``SIZES``, ``SHRINKS``)."""
    c = quad_centre(quad)
    far = quad[int(np.argmax(np.linalg.norm(quad - nadir, axis=1)))]
    return [c + (quad - c) * s for s in SIZES] + [far + (quad - far) * s for s in SHRINKS]


def _best_hypotheses(image: np.ndarray, tops: list,
                     dice: DiceSet) -> tuple[list[np.ndarray], np.ndarray, np.ndarray, list]:
    """One quad per die (group of :class:`~companion.vision.dice_find.TopFace` hypotheses): of
    every hypothesis, and the variants (:func:`_quads_tried`) of the best of them, the one whose
    patch best matches any enrolled face (centroid scores, :meth:`DiceSet.match` ``quick``). The
    variants are tried only for a die whose hypotheses as found do not already come within
    ``_QUICK_SLACK`` of their best face's sure level (whole-bank scores; centroid scores run about
    that much lower).

    Returns:
        (the quads, their (N, D) descriptors, their (N, 3) body colours, and per quad its
        whole-bank ``(scores, turn)`` rows of :meth:`DiceSet.match` where they were made here, else
        None: a quad chosen on centroid scores).
    """
    nadir = np.array([image.shape[1] - 1, image.shape[0] - 1], np.float64) / 2
    chosen: dict[int, tuple] = {}

    def score(cands: list[tuple[int, np.ndarray]], quick: bool = True) -> None:
        if not cands:
            return
        desc, body = describe_and_body(face_patches(image, [q for _, q in cands]))
        scores, turn = dice.match(desc, body, quick=quick)
        best = scores.argmax(axis=1)
        # How far from sure (float64, as float(row[f]) − sure[f]): comparable across faces.
        keys = (scores[np.arange(len(best)), best].astype(np.float64) - dice.sure[best]).tolist()
        for (g, q), row, tr, d, b, key in zip(cands, scores, turn, desc, body, keys):
            if g not in chosen or key > chosen[g][0]:
                chosen[g] = (key, q, d, b, None if quick else (row, tr))

    score([(t.group, t.quad) for t in tops], quick=False)
    unsure = {g for g, (key, *_) in chosen.items() if key < -_QUICK_SLACK}
    for g in unsure:
        chosen[g] = (chosen[g][0] - _QUICK_SLACK,) + chosen[g][1:]  # on the centroids' lower scale
    # The variants of each unsure die's best hypothesis only: the others' cost a warp each (a third
    # of the variants in the second art), and without them the bench's tuning seeds read one die more right.
    score([(g, q) for g in unsure for q in _quads_tried(chosen[g][1], nadir)[1:]])
    kept = list(chosen.values())
    quads = [q.astype(np.float32) for _, q, *_ in kept]
    return quads, np.stack([k[2] for k in kept]), np.stack([k[3] for k in kept]), [k[4] for k in kept]


_QUICK_SLACK = 0.05


#: Refinement steps (fractions of the side) of a quad that is not sure (:func:`_refine`).
REFINE_STEPS = (0.04, 0.02)
#: Moves per step. One changed no reading on bench/icon_dice.py's tuning seeds and saved a warp per
#: move and die, but left 5 more second-art dice (2 more of ours) unknown on a Sushi Roll table read
#: at 40 px a die (bench/roll_read.py, seeds 11000-11039); no move at all loses 9 of the 1400
#: second-art dice of the tuning seeds.
_REFINE_ITERATIONS = 2
_REFINE_SLACK = 0.02  # a quad scoring within this of its face's sure level is left as it is
_MOVES = 8  # shifts along x and y, scalings and turns, each way


def _refine(image: np.ndarray, quads: list[np.ndarray], desc: np.ndarray, body: np.ndarray, matched: list,
            dice: DiceSet) -> tuple[list[np.ndarray], np.ndarray, np.ndarray]:
    """Quads whose best face does not score its sure level, moved to where it scores best.

    The finder's square can be a few percent off in place and size (a printed frame near the
    edge, a side face lit nearly as well as the top), and at 40 px that is enough to blur the
    difference between two faces. So each such quad is moved (coordinate ascent of the
    whole-face score of its best face, :meth:`DiceSet.match`): shifted along each image axis,
    scaled about its centre and turned, by each of ``REFINE_STEPS`` of its side in turn, the best
    of those moves taken where it improves the score (up to ``_REFINE_ITERATIONS`` times a step).

    Args:
        image: (H, W, 3) uint8 BGR.
        quads: (4, 2) px each; ``desc``, ``body``: their (N, D) descriptors and (N, 3) body
            colours (:func:`~companion.vision.dice_faces.describe_and_body`); ``matched``: per
            quad its ``(scores, turn)`` rows of :meth:`DiceSet.match` if already made, else None.

    Returns:
        (the quads, and their (N, F) scores and turns of :meth:`DiceSet.match`), moved ones
        described and matched anew. Each whole-bank match reads the whole template bank (a few
        MB), so rows already matched are not matched again.
    """
    quads = [np.asarray(q, np.float64) for q in quads]
    scores, turn = _matched(desc, body, matched, dice)
    best = scores.argmax(axis=1)
    current = scores[np.arange(len(quads)), best]
    active = [i for i in range(len(quads)) if current[i] < dice.sure[best[i]] - _REFINE_SLACK]
    start = {i: quads[i] for i in active}
    patch: dict[int, np.ndarray] = {}  # a moved quad's patch, kept from when it was a candidate
    for step in REFINE_STEPS:
        moving = list(active)
        turns = [np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])
                 for t in (1.41 * step, -1.41 * step)]  # turns that move the corners by the step
        for _ in range(_REFINE_ITERATIONS):
            if not moving:
                break
            cands = []
            for i in moving:
                q = quads[i]
                c = quad_centre(q)
                d = step * float(np.linalg.norm(q[1] - q[0]))
                cands += [(i, q + [dx, dy]) for dx, dy in ((d, 0), (-d, 0), (0, d), (0, -d))]
                cands += [(i, c + (q - c) * (1 + s)) for s in (step, -step)]
                cands += [(i, c + (q - c) @ r.T) for r in turns]
            rows = [i for i, _ in cands]  # a small move leaves the body colour as it was
            patches = face_patches(image, [q for _, q in cands])
            sc = dice.face_score(describe(patches), body[rows], best[rows])
            still = []
            for j, i in enumerate(moving):
                k = _MOVES * j + int(np.argmax(sc[_MOVES * j:_MOVES * (j + 1)]))
                if sc[k] > current[i] + 1e-3:
                    current[i] = sc[k]
                    quads[i] = cands[k][1]
                    patch[i] = patches[k]
                    still.append(i)
            moving = still
    moved = [i for i in active if np.abs(quads[i] - start[i]).max() > 0]
    if moved:
        # The moved quads' patches were warped as candidates: the same bytes a new warp would give.
        scores, turn = scores.copy(), turn.copy()
        scores[moved], turn[moved] = dice.match(*describe_and_body(np.stack([patch[i] for i in moved])))
    return [q.astype(np.float32) for q in quads], scores, turn


def _matched(desc: np.ndarray, body: np.ndarray, matched: list,
             dice: DiceSet) -> tuple[np.ndarray, np.ndarray]:
    """(N, F) scores and turns of :meth:`DiceSet.match` for every row, matching only the rows
    whose ``matched`` entry is None."""
    todo = [i for i, m in enumerate(matched) if m is None]
    n, n_f = len(matched), len(dice.faces)
    scores, turn = np.empty((n, n_f), np.float32), np.empty((n, n_f), np.int64)
    for i, m in enumerate(matched):
        if m is not None:
            scores[i], turn[i] = m
    if todo:
        scores[todo], turn[todo] = dice.match(desc[todo], body[todo])
    return scores, turn


def _pts(quad: np.ndarray) -> tuple:
    return tuple((float(x), float(y)) for x, y in np.asarray(quad, np.float64))


__all__ = [
    "PATCH", "UNKNOWN", "DiceError", "DiceSet", "FaceReading", "ImageReadError", "die_of",
    "enroll_dice_folder", "enroll_dice_images", "read_icon_dice",
]
