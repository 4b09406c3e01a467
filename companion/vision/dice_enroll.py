"""Enrolling the user's Sushi Roll dice: a picture of each face → a :class:`DiceSet` (issue #7 §2).

Each picture (a flat scan, or a photo cropped to the top face) is brought to a square and, like
the deck's cards (:mod:`companion.vision.deck`), turned into several templates of how a camera
over the table might see it (:func:`_variants`: 36–80 px a side, the quad a little off, blur,
noise, JPEG, light gradient, colour cast).

The levels of :meth:`DiceSet.read` are calibrated per face from held-out variants of every face:

* *sure*: the whole-face score at which a face is taken without a close look. It is the median
  score the face's own variants reach, and above the best the other faces' variants reach on it
  (``_SURE_GAP``): a face never enrolled that resembles this one (``maki*3`` against ``maki*2``)
  is never taken at a glance.
* *fine threshold*: the aligned correlation (:mod:`companion.vision.dice_fine`) a die must reach
  to be the face after a close look: a little below what nearly all its own variants reach
  (``_FINE_PERCENTILE``, ``_FINE_SLACK``).
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from companion.rules.sushi_roll.dice import DICE_FILE, load_dice_faces
from companion.vision.dice_faces import (
    MAX_EXAMPLES, TEMPLATES_PER_EXAMPLE, UNKNOWN, DiceError, DiceSet, body_colour, describe, describe_and_body,
    die_of, face_patch,
)
from companion.vision.dice_fine import fine_patch
from companion.vision.imageio import example_folders, read_working

#: Side of the canonical face the enrolment images are brought to before making variants, px.
CANON = 96
_SQUARE = np.array([[0, 0], [CANON, 0], [CANON, CANON], [0, CANON]], np.float32)
_N_AUG = TEMPLATES_PER_EXAMPLE - 1  # augmented templates per example image, besides the clean one (16)
_N_CAL = 24  # held-out variants per example image for the levels
_SURE_PERCENTILE = 25  # of the genuine whole-face scores, the sure level...
_SURE_GAP = 0.05  # ... or this over the best impostor score, whichever is higher
_SURE_RANGE = (0.5, 0.97)
_FINE_PERCENTILE = 2  # of the genuine aligned scores ...
_FINE_SLACK = 0.015  # ... less this, is the fine threshold
_FINE_RANGE = (0.4, 0.9)


def _canonical(image: np.ndarray) -> np.ndarray:
    """An enrolment image (the face, scanned flat or cropped to the die) as a ``CANON`` px square."""
    return cv2.resize(image, (CANON, CANON), interpolation=cv2.INTER_AREA)


def _variants(canon: np.ndarray, rng: np.random.Generator, n: int,
              strength: float) -> list[tuple[np.ndarray, np.ndarray]]:
    """``n`` views of a canonical face as the camera might see it on the table: 36–80 px a side,
    focus blur, brightness, colour cast, a light gradient, sensor noise and a JPEG round trip,
    each with the quad the finder might give (turned, scaled, shifted, corners a little off).
    ``strength`` scales the errors. Returns (image (h, w, 3) uint8 BGR, quad (4, 2) float32)."""
    out = []
    for _ in range(n):
        side = float(rng.uniform(36, 82))
        pad = int(side * 0.3)
        size = int(round(side)) + 2 * pad
        # The face pasted at ``side`` px into a frame of its own rim (the die's rounded edge), so
        # a quad that spills over brings in what a real one would.
        small = cv2.resize(canon, (int(round(side)),) * 2, interpolation=cv2.INTER_AREA)
        img = cv2.copyMakeBorder(small, pad, pad, pad, pad, cv2.BORDER_REPLICATE).astype(np.float32)
        yy, xx = np.mgrid[0:size, 0:size].astype(np.float32) / size - 0.5
        gain = rng.uniform(1 - 0.35 * strength, 1 + 0.15 * strength)
        cast = 1.0 + rng.uniform(-0.08, 0.08, 3) * strength
        ang = rng.uniform(0, 2 * np.pi)
        grad = 1.0 + 0.25 * strength * (xx * np.cos(ang) + yy * np.sin(ang))
        img = img * (gain * cast)[None, None, :] * grad[:, :, None] + rng.uniform(-10, 10) * strength
        sigma = rng.uniform(0.0, 1.4 * strength)
        if sigma > 0.3:
            img = cv2.GaussianBlur(img, (0, 0), sigma)
        img += rng.normal(0, rng.uniform(0.5, 5.0) * strength, img.shape)
        img8 = np.clip(img, 0, 255).astype(np.uint8)
        ok, buf = cv2.imencode(".jpg", img8, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(65, 95))])
        img8 = cv2.imdecode(buf, cv2.IMREAD_COLOR)
        t = np.radians(rng.normal(0, 2.0 * strength))
        s = side * (1 + rng.normal(0, 0.025 * strength))
        c = np.array([pad + side / 2, pad + side / 2]) + rng.normal(0, 0.02 * strength * side, 2)
        rot = np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])
        quad = (np.array([[-.5, -.5], [.5, -.5], [.5, .5], [-.5, .5]]) * s) @ rot.T + c
        quad += rng.normal(0, 0.012 * strength * side, (4, 2))
        out.append((img8, quad.astype(np.float32)))
    return out


def _calibrate(dice: DiceSet, held: list[tuple[np.ndarray, np.ndarray]], label: np.ndarray) -> None:
    """Set ``dice.sure`` and ``dice.fine_thresholds`` from held-out variants (module doc)."""
    patches = np.stack([face_patch(img, q) for img, q in held])
    scores, turn = dice.match(*describe_and_body(patches))
    n_f = len(dice.faces)
    sure = np.empty(n_f)
    for f in range(n_f):
        genuine = scores[label == f, f]
        impostor = scores[label != f, f]
        i_max = float(impostor.max()) if len(impostor) else -1.0
        sure[f] = max(float(np.percentile(genuine, _SURE_PERCENTILE)), i_max + _SURE_GAP)
    dice.sure = np.clip(sure, *_SURE_RANGE)
    fine_thr = np.empty(n_f)
    for f in range(n_f):
        rows = np.nonzero(label == f)[0]
        genuine = [dice.fine_score(fine_patch(*held[r]), f, int(turn[r, f])) for r in rows]
        fine_thr[f] = np.percentile(genuine, _FINE_PERCENTILE) - _FINE_SLACK
    dice.fine_thresholds = np.clip(fine_thr, *_FINE_RANGE)


def _check_counts(counts: dict[str, int]) -> None:
    """Raise DiceError unless every face is one of the faces file's, each has a picture, and there
    are no more than ``MAX_EXAMPLES`` (so the dice enrolled are dice that load)."""
    if not counts:
        raise DiceError("no faces to enrol")
    known = _toml_faces()
    for name, n in counts.items():
        if name == UNKNOWN or name not in known:
            raise DiceError(f"{name!r} is not a face in {DICE_FILE} (faces: {', '.join(sorted(known))})")
        if not n:
            raise DiceError(f"face {name!r} has no images")
    if sum(counts.values()) > MAX_EXAMPLES:
        raise DiceError(f"{sum(counts.values())} pictures; dice are enrolled from at most {MAX_EXAMPLES} "
                        "(one or two a face is enough)")


def _toml_faces() -> set[str]:
    faces = load_dice_faces()
    return {str(f) for per_die in faces.faces for f in per_die}


def enroll_dice_images(examples: dict[str, list[np.ndarray]], seed: int = 0) -> DiceSet:
    """Build the dice from pictures of each face.

    Args:
        examples: face name (``"maki*2"``, a face of ``companion/data/sushi_roll_dice.toml``) →
            list of (H, W, 3) uint8 BGR images, each the face seen square on (a flat scan, or a
            photo cropped to the top face), any size from 8 px (40 px or more is best). At least
            one per face.
        seed: seed of the augmentation (enrolment is deterministic for a given seed).

    Returns:
        The :class:`DiceSet`, its levels calibrated.

    Raises:
        DiceError: no faces, a face not in the faces file, a face without images, more than
            ``MAX_EXAMPLES`` images in all (a DICE.npz could not hold them), or an image that is
            not (H, W, 3) uint8.
    """
    _check_counts({name: len(imgs) for name, imgs in examples.items()})
    rng = np.random.default_rng(seed)
    faces = tuple(sorted(examples))
    patches, plabel, held, hlabel, body, fine, ffine = [], [], [], [], [], [], []
    for fi, name in enumerate(faces):
        for img in examples[name]:
            img = np.asarray(img)
            if img.ndim != 3 or img.shape[2] != 3 or img.dtype != np.uint8 or min(img.shape[:2]) < 8:
                raise DiceError(f"face {name!r}: an image is not an (H, W, 3) uint8 BGR picture of "
                                f"at least 8 px a side (got {img.dtype} {img.shape})")
            canon = _canonical(img)
            clean = face_patch(canon, _SQUARE)
            body.append((fi, body_colour(clean[None])[0]))
            fine.append(fine_patch(canon, _SQUARE, pad=0))
            ffine.append(fi)
            patches += [clean] + [face_patch(v, q) for v, q in _variants(canon, rng, _N_AUG, 1.0)]
            plabel += [fi] * (_N_AUG + 1)
            held += _variants(canon, rng, _N_CAL, 1.0)
            hlabel += [fi] * _N_CAL
    colours = np.stack([np.median(np.stack([c for f, c in body if f == fi]), axis=0) for fi in range(len(faces))])
    _check_body_colours(faces, colours)
    counts = np.array([len(examples[f]) for f in faces], np.int64)
    n = len(faces)
    dice = DiceSet(faces, describe(np.stack(patches)), np.array(plabel, np.int64), np.ones(n),
                   np.stack(fine), np.array(ffine, np.int64), np.zeros(n), colours.astype(np.float32), counts)
    _calibrate(dice, held, np.array(hlabel))
    return dice


#: The largest difference (CIE Lab distance) between the body colour of one face and the median of
#: all faces of its die (three or more enrolled): every face of a die is printed on the same body, so a face far off
#: is a picture of another die, or a grey scan, and would pull the die's colour off for the finder.
MAX_BODY_DIFFERENCE = 30.0


def _check_body_colours(faces: tuple[str, ...], colours: np.ndarray) -> None:
    """Raise DiceError naming a face whose body colour (Lab, (F, 3)) is far from its die's others."""
    dies = [die_of(f) for f in faces]
    for die in sorted(set(dies)):
        idx = [i for i, d in enumerate(dies) if d == die]
        if len(idx) < 3:
            continue  # with two faces there is no telling which one is off
        typical = np.median(colours[idx], axis=0)  # the die's colour, whatever one face says
        diffs = [float(np.linalg.norm(colours[i] - typical)) for i in idx]
        i, diff = idx[int(np.argmax(diffs))], max(diffs)
        if diff > MAX_BODY_DIFFERENCE:
            raise DiceError(f"face {faces[i]!r}: its body colour is far from the other {die} faces' "
                            f"(Lab distance {diff:.0f}, at most {MAX_BODY_DIFFERENCE:.0f}): a picture of "
                            f"another die, or a grey scan? Every face of a die has the same body colour")


#: The longest side at which an enrolment picture is kept, px: far above the face templates' sizes.
ENROL_MAX_SIDE = 512
#: The least grey-level spread (standard deviation) of an enrolment picture: a blank or flat
#: picture holds no face.
MIN_EXAMPLE_SPREAD = 4.0


def _checked_example(f: Path) -> np.ndarray:
    """The enrolment picture ``f``, (h, w, 3) uint8 BGR with its long side ≤ ``ENROL_MAX_SIDE``.

    Raises:
        ImageReadError: unreadable, or over the pixel budget.
        DiceError: the picture is blank (no face can be in it).
    """
    img = read_working(f, ENROL_MAX_SIDE, min_side=8).image  # enroll_dice_images takes 8 px and up
    if float(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY).std()) < MIN_EXAMPLE_SPREAD:
        raise DiceError(f"{f}: the picture is blank (one flat colour): no die face in it")
    return img


def enroll_dice_folder(folder: Path | str, seed: int = 0) -> DiceSet:
    """Enrol the dice from ``folder/<face>/<image>`` (the sub-folder name is the face name).

    Files whose suffix is not an image type (``IMAGE_SUFFIXES``) and hidden entries are ignored;
    every image file must be readable.

    Raises:
        DiceError: the folder is missing or not a folder, has no face sub-folders, a sub-folder
            is not named after a face of ``companion/data/sushi_roll_dice.toml`` (named in the
            message), a face folder has no images, or there are more than ``MAX_EXAMPLES``
            pictures (counted before any is read).
        ImageReadError: an image file cannot be read (the message names it).
    """
    known = _toml_faces()

    def check_name(d: Path) -> None:
        if d.name not in known:
            raise DiceError(f"{d}: {d.name!r} is not a face in {DICE_FILE}; name each sub-folder after a "
                            f"face: {', '.join(sorted(known))}")

    folders = example_folders(folder, DiceError, "face", example="maki*2", check_name=check_name)
    _check_counts({name: len(files) for name, files in folders})  # before any picture is read
    # Held at a bounded size (a phone photo of a die is 12–48 MP; a Pi may have 1 GB).
    examples = {name: [_checked_example(f) for f in files] for name, files in folders}
    return enroll_dice_images(examples, seed=seed)


__all__ = ["CANON", "enroll_dice_folder", "enroll_dice_images"]
