"""Sushi Roll icon dice: learn the user's own dice from a picture of each face, then read them.

Issue #7 §2. The faces a die type can show are data (``companion/data/sushi_roll_dice.toml``) and
a user's dice may be printed differently from any art we could draw, so, like the card reader
(:mod:`companion.vision.deck`), the reader learns the faces from the user's own pictures.

How a top face is described (descriptor version 1)
--------------------------------------------------
1. The top face's quad (found by :mod:`companion.vision.dice_find`) is warped (homography) to a
   ``PATCH × PATCH`` px square, slightly inset so a quad a pixel off, or the die's rounded edge,
   brings in no side face or table; the warp is done at 2× and reduced with ``INTER_AREA`` plus a
   light blur, an alias-free view that tolerates sub-pixel quad errors and focus blur.
2. The square goes to CIE Lab; each channel is made zero-mean, the chroma channels are weighted,
   the rounded corners are zeroed and the vector scaled to unit length, as the deck's cards
   (:func:`companion.vision.deck.describe`). Brightness and a colour cast mostly drop out; what is
   left is the face's layout of lightness and colour: where the icons are, how many, and what
   they look like.
3. A query is compared, by one matrix product, with every template in its four quarter turns:
   the top face of a die can lie at any angle, and its quad fixes the angle up to a quarter turn.
   The dot product is the zero-normalised cross-correlation (ZNCC; J. P. Lewis, "Fast Normalized
   Cross-Correlation", Vision Interface 1995).
4. The body colour (the median Lab colour of the face's outer ring, learnt at enrolment) must
   agree as well: two faces with the same layout on dice of different colours are told apart by
   it, and a die of a colour never enrolled is not read as one that was.

Unknown faces
-------------
Each face gets its own threshold, calibrated at enrolment: held-out variants of every enrolled
face (rotation, scale, quad error, resolution 36–80 px, blur, noise, JPEG, light gradient,
colour cast) are scored against every face. The threshold of a face sits between the scores its
own variants reach (the genuine scores) and the scores the *other* faces' variants reach on it
(the impostors: the nearest thing to a face the user never enrolled, a ``maki*3`` against
``maki*2``). Below it a die is ``"unknown"``, never the nearest face.

DICE.npz (``numpy.savez_compressed``, loaded with ``allow_pickle=False``)
------------------------------------------------------------------------
``format``         0-d str, always ``"companion-dice"``
``version``        0-d int64, descriptor version (``DESCRIPTOR_VERSION``)
``patch_size``     0-d int64, ``PATCH`` px
``faces``          (F,) str, the enrolled face names (``"maki*2"``), sorted
``templates``      (M, D) float32 unit-length descriptors, D = 3·PATCH², art upright
``template_face``  (M,) int64, index into ``faces`` per template row, non-decreasing
``thresholds``     (F,) float64, per-face ZNCC threshold below which a die is not that face
``body``           (F, 3) float32, each face's body colour, CIE Lab (L 0..100, a, b)
``examples``       (F,) int64, how many images each face was enrolled from
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from companion.rules.sushi_roll_dice import DICE_FILE, load_dice_faces, parse_face
from companion.vision.imageio import IMAGE_SUFFIXES, ImageReadError, read_image
from companion.vision.observations import DieObservation

DESCRIPTOR_VERSION = 1
FORMAT_NAME = "companion-dice"
UNKNOWN = "unknown"

#: Side of the canonical top-face patch, px. A 40 px face is sampled at about its own resolution.
PATCH = 24
#: Side of the canonical face the enrolment images are brought to before making variants, px.
CANON = 96

_INSET = 0.06  # fraction of the face side trimmed on every side (rounded edges, quad error)
_CHROMA_WEIGHT = 0.8  # a/b channels relative to L, after Lab scaling
_CORNER = 3  # px of the patch corners zeroed (rounded die corners)
_RING = (0.04, 0.16)  # the outer ring of a face (fractions of its side) whose colour is the body's
_GEOM = 1.0
_N_AUG = 16  # augmented templates per example image, besides the clean one
_N_CAL = 24  # held-out variants per example image for the thresholds
_SOFTMAX_T = 0.02  # temperature of the face confidence, in ZNCC units
_SCORE_RAMP = 0.08  # ZNCC above a threshold at which the score part of confidence saturates
#: Body colour: the Lab chroma distance between a die's body and a face's, over
#: ``BODY_SCALE + BODY_SCALE_REL · |face chroma|`` (a colour cast moves a saturated colour further
#: than a grey one), at or below which the body is the face's (1) and above which it is not (2);
#: in between the score is lowered linearly (see :meth:`DiceSet.match`).
BODY_OK, BODY_BAD = 1.0, 2.0
BODY_SCALE, BODY_SCALE_REL = 18.0, 0.3


class DiceError(ValueError):
    """Enrolment input or a DICE.npz file is unusable. The message names the file or folder and
    the rule broken."""


def _corner_mask() -> np.ndarray:
    m = np.ones((PATCH, PATCH), np.float32)
    for y in range(_CORNER):
        for x in range(_CORNER - y):
            for yy, xx in ((y, x), (y, PATCH - 1 - x), (PATCH - 1 - y, x), (PATCH - 1 - y, PATCH - 1 - x)):
                m[yy, xx] = 0.0
    return m


_MASK = _corner_mask()
_DST2 = (lambda s, m: np.array([[-m, -m], [s + m, -m], [s + m, s + m], [-m, s + m]], np.float32))(
    2 * PATCH, _INSET * 2 * PATCH)


def face_patch(image: np.ndarray, quad: np.ndarray) -> np.ndarray:
    """Warp one die's top face to the canonical square patch.

    Args:
        image: (H, W, 3) uint8 BGR.
        quad: (4, 2) float image px, the top face's corners clockwise, corner 0 becoming the
            patch's top-left.

    Returns:
        (PATCH, PATCH, 3) uint8 BGR, the face less ``_INSET`` of its side all round.
    """
    h = cv2.getPerspectiveTransform(np.asarray(quad, np.float32), _DST2)
    big = cv2.warpPerspective(image, h, (2 * PATCH, 2 * PATCH), flags=cv2.INTER_LINEAR,
                              borderMode=cv2.BORDER_REPLICATE)
    small = cv2.resize(big, (PATCH, PATCH), interpolation=cv2.INTER_AREA)
    return cv2.GaussianBlur(small, (3, 3), 0.6)


def _lab(patches: np.ndarray) -> np.ndarray:
    """(N, h, w, 3) uint8 BGR → (N, h, w, 3) float32 CIE Lab (L 0..100)."""
    n, h, w, _ = patches.shape
    flat = patches.reshape(n * h, w, 3).astype(np.float32) * (1.0 / 255.0)
    return cv2.cvtColor(flat, cv2.COLOR_BGR2Lab).reshape(n, h, w, 3)


def describe(patches: np.ndarray) -> np.ndarray:
    """Descriptors (version 1, module doc) of canonical top-face patches.

    Args:
        patches: (N, PATCH, PATCH, 3) uint8 BGR from :func:`face_patch`.

    Returns:
        (N, 3·PATCH²) float32, rows zero-mean per channel and of unit length (a flat patch gives a
        zero row, which correlates 0 with everything).
    """
    patches = np.asarray(patches)
    n = patches.shape[0]
    if n == 0:
        return np.zeros((0, 3 * PATCH * PATCH), np.float32)
    lab = np.ascontiguousarray(_lab(patches).transpose(0, 3, 1, 2))  # (N, 3, P, P)
    w = _MASK[None, None]
    mean = (lab * w).sum(axis=(2, 3), keepdims=True) / w.sum()
    d = (lab - mean) * w
    d[:, 1:] *= _CHROMA_WEIGHT
    d = d.reshape(n, -1)
    norm = np.linalg.norm(d, axis=1, keepdims=True)
    return np.ascontiguousarray(d / np.maximum(norm, 1e-6), dtype=np.float32)


_RING_MASK = (lambda c: (np.maximum(np.abs(c[:, None]), np.abs(c[None, :])) <= 0.5 - _RING[0])
              & (np.maximum(np.abs(c[:, None]), np.abs(c[None, :])) >= 0.5 - _RING[1]))(
    (np.arange(PATCH) + 0.5) / PATCH - 0.5)


def body_colour(patches: np.ndarray) -> np.ndarray:
    """The body colour of each die face: the median Lab colour of the patch's outer ring, where
    die art leaves the bare body (icons sit in the middle).

    Args:
        patches: (N, PATCH, PATCH, 3) uint8 BGR from :func:`face_patch`.

    Returns:
        (N, 3) float32 Lab (L 0..100, a, b).
    """
    lab = _lab(np.asarray(patches))
    return np.median(lab[:, _RING_MASK], axis=1).astype(np.float32)


def _rot_bank(desc: np.ndarray) -> np.ndarray:
    """(M, D) descriptors → (4, M, D): the face turned 0, 90, 180 and 270° (counter-clockwise)."""
    m = desc.shape[0]
    sq = desc.reshape(m, 3, PATCH, PATCH)
    return np.stack([np.rot90(sq, k, axes=(2, 3)).reshape(m, -1) for k in range(4)])


def die_of(face: str) -> str:
    """The Sushi Roll die type (``"maki"``) that shows ``face`` (``"maki*2"``); a face name that the
    rules do not know raises ValueError."""
    return parse_face(face).kind.value


@dataclass(frozen=True)
class FaceReading:
    """One top face's classification.

    face: an enrolled face name or ``"unknown"``.
    confidence: 0..1; for ``"unknown"``, how sure the reader is that no enrolled face matches.
    score: the best face's ZNCC (−1..1) after the body-colour check.
    turn: quarter turns (0..3, counter-clockwise) the query was turned from the best template.
    """

    face: str
    confidence: float
    score: float
    turn: int


@dataclass
class DiceSet:
    """The user's enrolled Sushi Roll dice faces: templates, body colours and thresholds.

    Build one with :func:`enroll_dice_folder` / :func:`enroll_dice_images`, or :meth:`load` a
    DICE.npz (format in the module doc).
    """

    faces: tuple[str, ...]
    templates: np.ndarray  # (M, D) float32 unit rows, art upright
    template_face: np.ndarray  # (M,) int64, non-decreasing
    thresholds: np.ndarray  # (F,) float64
    body: np.ndarray  # (F, 3) float32 Lab
    examples: np.ndarray  # (F,) int64

    def __post_init__(self) -> None:
        order = np.argsort(self.template_face, kind="stable")
        self.template_face = np.asarray(self.template_face, np.int64)[order]
        self.templates = np.ascontiguousarray(np.asarray(self.templates, np.float32)[order])
        self.thresholds = np.asarray(self.thresholds, np.float64)
        self.body = np.asarray(self.body, np.float32)
        self.dice = tuple(die_of(f) for f in self.faces)
        m = len(self.template_face)
        # Four quarter turns side by side, so one matmul scores every orientation.
        self._bank = np.ascontiguousarray(_rot_bank(self.templates).reshape(4 * m, -1).T)
        starts = np.searchsorted(self.template_face, np.arange(len(self.faces)))
        self._starts = np.concatenate([starts + k * m for k in range(4)])
        # One centroid per face (its templates' mean, unit length) in its four turns: a smooth,
        # cheap score for choosing among sizes of a square (``match(..., quick=True)``).
        cent = np.stack([self.templates[self.template_face == f].mean(axis=0) for f in range(len(self.faces))])
        cent /= np.maximum(np.linalg.norm(cent, axis=1, keepdims=True), 1e-6)
        self._quick = np.ascontiguousarray(_rot_bank(cent).reshape(4 * len(self.faces), -1).T)
        self._colours = None

    # ----------------------------------------------------------- classifying
    def match(self, desc: np.ndarray, body: np.ndarray | None = None,
              quick: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """Best ZNCC per face over the four quarter turns.

        Args:
            desc: (N, D) float32 from :func:`describe`.
            body: (N, 3) float32 Lab body colours of the queries (:func:`body_colour`), or None to
                skip the colour check. A query whose body chroma is more than ``BODY_CHROMA_OK``
                from a face's (``BODY_OK``, relative) loses score on that face linearly, down to −1
                at ``BODY_BAD``.
            quick: score against each face's centroid only (cheaper, a little lower).

        Returns:
            ``(scores, turn)``: (N, F) float32 best score per face, and (N, F) int64 quarter turns
            (0..3) of the enrolled art, counter-clockwise, that scored it.
        """
        n_f = len(self.faces)
        if quick:
            per = (desc @ self._quick).reshape(len(desc), 4, n_f)
        else:
            s = desc @ self._bank  # (N, 4M)
            per = np.maximum.reduceat(s, self._starts, axis=1).reshape(len(desc), 4, n_f)
        turn = per.argmax(axis=1)
        scores = per.max(axis=1)
        if body is not None:
            over = np.clip((self.body_distance(body) - BODY_OK) / (BODY_BAD - BODY_OK), 0.0, 1.0)
            scores = scores - over * (scores + 1.0)
        return scores.astype(np.float32), turn

    def body_distance(self, body: np.ndarray) -> np.ndarray:
        """(N, F) relative chroma distance of (N, 3) Lab body colours to each face's body colour
        (1 = as far as a strong colour cast moves it; see ``BODY_OK``)."""
        chroma = np.linalg.norm(body[:, None, 1:] - self.body[None, :, 1:], axis=2)
        scale = BODY_SCALE + BODY_SCALE_REL * np.linalg.norm(self.body[:, 1:], axis=1)
        return chroma / scale[None, :]

    def decide(self, scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Face index (−1 for unknown) and confidence from per-face scores (N, F).

        The best face is taken if its score reaches its own threshold. Confidence is a softmax
        over the faces' scores (temperature ``_SOFTMAX_T``: it falls when another face scores
        nearly as well) times a ramp that is 0.5 at the threshold and 1 at ``_SCORE_RAMP`` above.
        For ``"unknown"`` it is the mirror ramp of the best face.
        """
        best = scores.argmax(axis=1)
        rows = np.arange(len(scores))
        top = scores[rows, best]
        thr = self.thresholds[best]
        p_best = 1.0 / np.exp((scores - top[:, None]) / _SOFTMAX_T).sum(axis=1)
        ramp = np.clip(0.5 + 0.5 * (top - thr) / _SCORE_RAMP, 0.0, 1.0)
        known = top >= thr
        return np.where(known, best, -1), np.where(known, p_best * ramp, 1.0 - ramp)

    def classify(self, patches: np.ndarray) -> list[FaceReading]:
        """Name the top face in each canonical patch.

        Args:
            patches: (N, PATCH, PATCH, 3) uint8 BGR from :func:`face_patch`.

        Returns:
            One :class:`FaceReading` per patch.
        """
        if len(patches) == 0:
            return []
        scores, turn = self.match(describe(patches), body_colour(patches))
        idx, conf = self.decide(scores)
        best = scores.argmax(axis=1)
        return [FaceReading(self.faces[i] if i >= 0 else UNKNOWN, float(c), float(scores[r, b]), int(turn[r, b]))
                for r, (i, c, b) in enumerate(zip(idx, conf, best))]

    def die_bodies(self) -> tuple[np.ndarray, tuple[str, ...]]:
        """The body colour of each enrolled die type, for the finder: ((K, 3) float32 BGR
        0..255, the K die type names), the median over the type's faces."""
        names = tuple(sorted(set(self.dice)))
        lab = np.stack([np.median(self.body[[d == n for d in self.dice]], axis=0) for n in names])
        bgr = cv2.cvtColor(lab[None].astype(np.float32), cv2.COLOR_Lab2BGR)[0] * 255.0
        return np.clip(bgr, 0, 255).astype(np.float32), names

    def body_colours(self):
        """(:class:`companion.vision.dice_find.BodyColours` of :meth:`die_bodies`, the die type
        names), made once per dice set."""
        if getattr(self, "_colours", None) is None:
            from companion.vision.dice_find import BodyColours

            bgr, names = self.die_bodies()
            self._colours = (BodyColours(bgr), names)
        return self._colours

    # ----------------------------------------------------------------- files
    def summary(self, path: Path | str) -> str:
        """One or two lines for ``companion enroll --dice``: where, how many faces and images,
        and the thresholds."""
        per = ", ".join(f"{f} {int(n)}" for f, n in zip(self.faces, self.examples))
        return (f"enrolled {len(self.faces)} faces from {int(self.examples.sum())} images into {path} "
                f"(thresholds {self.thresholds.min():.2f}–{self.thresholds.max():.2f})\n"
                f"  images per face: {per}")

    def save(self, path: Path | str) -> None:
        """Write the dice as DICE.npz (format in the module doc).

        Raises:
            OSError: the file cannot be written.
        """
        with open(path, "wb") as fh:  # a file object stops numpy appending ".npz" to the name
            np.savez_compressed(
                fh,
                format=np.array(FORMAT_NAME),
                version=np.array(DESCRIPTOR_VERSION, np.int64),
                patch_size=np.array(PATCH, np.int64),
                faces=np.array(self.faces, dtype=str),
                templates=self.templates.astype(np.float32),
                template_face=self.template_face.astype(np.int64),
                thresholds=self.thresholds.astype(np.float64),
                body=self.body.astype(np.float32),
                examples=np.asarray(self.examples, np.int64),
            )

    @classmethod
    def load(cls, path: Path | str) -> DiceSet:
        """Read a DICE.npz written by :meth:`save` (``np.load(allow_pickle=False)``).

        Raises:
            DiceError: missing or unreadable file, not an .npz, not a dice file (a deck, say), a
                missing or malformed field, or a descriptor version / patch size this code does
                not use. Names the file.
        """
        p = Path(path)
        try:
            with np.load(p, allow_pickle=False) as z:
                data = {k: z[k] for k in z.files}
        except FileNotFoundError:
            raise DiceError(f"{p}: dice file not found") from None
        except IsADirectoryError:
            raise DiceError(f"{p}: is a directory, not a dice file") from None
        except AttributeError:  # np.load gave a plain array (a .npy file): no context manager
            raise DiceError(f"{p}: not a dice file (a single array, not an .npz archive)") from None
        except Exception as exc:  # zipfile/pickle/ValueError/EOFError: all mean "not a dice file"
            raise DiceError(f"{p}: not a readable dice file ({type(exc).__name__}: {exc})") from None
        try:
            if data["format"].shape != () or str(data["format"]) != FORMAT_NAME:
                raise DiceError(f"{p}: not a dice file (format {str(data['format'])!r}, expected "
                                f"{FORMAT_NAME!r}; enrol dice with 'companion enroll --dice DIR')")
            version = int(data["version"])
            if version != DESCRIPTOR_VERSION:
                raise DiceError(f"{p}: descriptor version {version}, this program reads version "
                                f"{DESCRIPTOR_VERSION}; enrol the dice again")
            if int(data["patch_size"]) != PATCH:
                raise DiceError(f"{p}: patch size {int(data['patch_size'])} is not {PATCH}; enrol the dice again")
            faces = tuple(str(s) for s in data["faces"].reshape(-1))
            templates, tf = data["templates"], data["template_face"]
            thresholds = data["thresholds"].astype(np.float64).reshape(-1)
            body = data["body"]
            examples = data["examples"].astype(np.int64).reshape(-1)
        except DiceError:
            raise
        except KeyError as exc:
            raise DiceError(f"{p}: dice file lacks field {exc.args[0]!r}") from None
        except (TypeError, ValueError) as exc:
            raise DiceError(f"{p}: malformed dice field: {exc}") from None
        d = 3 * PATCH * PATCH
        if (templates.dtype != np.float32 or templates.ndim != 2 or templates.shape[1] != d
                or templates.shape[0] == 0 or not np.all(np.isfinite(templates))):
            raise DiceError(f"{p}: templates must be a non-empty (M, {d}) float32 array, "
                            f"got {templates.dtype} {templates.shape}")
        if (tf.shape != (templates.shape[0],) or not np.issubdtype(tf.dtype, np.integer)
                or tf.min() < 0 or tf.max() >= len(faces)):
            raise DiceError(f"{p}: template_face must give a face index for every template")
        if not faces or len(set(faces)) != len(faces) or len(np.unique(tf)) != len(faces):
            raise DiceError(f"{p}: faces must be unique and non-empty, each with templates")
        for f in faces:
            try:
                die_of(f)
            except ValueError as exc:
                raise DiceError(f"{p}: {exc}") from None
        if (thresholds.shape != (len(faces),) or not np.all(np.abs(thresholds) <= 1.0)
                or body.shape != (len(faces), 3) or not np.all(np.isfinite(body))
                or examples.shape != (len(faces),)):
            raise DiceError(f"{p}: malformed thresholds, body or examples field (one per face)")
        return cls(faces, templates, tf, thresholds, body.astype(np.float32), examples)


# ------------------------------------------------------------------ reading
def read_icon_dice(image: np.ndarray, dice: DiceSet) -> list[DieObservation]:
    """Find every Sushi Roll die in a photo and name its top face (issue #7 §2).

    The top faces are found by the dice's body colours (:func:`companion.vision.dice_find.
    find_top_faces`), then each is warped square and named against the enrolled faces at its four
    quarter turns (module doc).

    Args:
        image: (H, W, 3) uint8 BGR, a photo of the table from above, any size (large photos are
            searched shrunk; coordinates are in this image's px).
        dice: the enrolled faces.

    Returns:
        One :class:`DieObservation` per die found, in reading order (top to bottom, left to
        right): ``face`` an enrolled face name, ``"unknown"`` (no enrolled face matches; ``die``
        None) or None (the top face is cut by the image border: not read); ``quad`` the top
        face's corners clockwise from the art's top-left as matched.
    """
    from companion.vision.blas import one_blas_thread
    from companion.vision.dice_find import find_top_faces

    colours, body_die = dice.body_colours()
    tops = find_top_faces(image, colours)
    out: list[DieObservation] = []
    readable = [t for t in tops if not t.partial]
    if readable:
        with one_blas_thread():
            quads = _best_hypotheses(image, readable, dice)
            readings = dice.classify(np.stack([face_patch(image, q) for q in quads]))
        for q, r in zip(quads, readings):
            # The patch turned ``turn`` quarter turns counter-clockwise matched the art upright,
            # so the art's top-left is the quad's corner ``turn`` (corners run clockwise).
            quad = np.roll(q, -r.turn, axis=0)
            known = r.face != UNKNOWN
            out.append(DieObservation(r.face, r.confidence, _pts(quad), dice.dice[dice.faces.index(r.face)] if known else None))
    done = {t.group for t in readable}
    for t in tops:
        if t.partial and t.group not in done:
            done.add(t.group)
            out.append(DieObservation(None, 0.0, _pts(t.quad), body_die[t.body]))
    out.sort(key=lambda o: (round(o.center[1] / 40.0), o.center[0]))
    return out


#: Sizes of a found square tried against the enrolled art, about its centre (module doc of
#: dice_find: a face's bright part can stop short of its edge, at a printed frame near it)...
SIZES = (1.0, 1.12, 1.24)
#: ... and smaller, in its corner farthest from the image centre: a side face lit nearly as well
#: as the top may have been taken in, and side faces show between a top and the camera's nadir
#: (a pinhole camera sees a die's top displaced away from the nadir).
TRIMS = (0.86, 0.76)


def _quads_tried(quad: np.ndarray, centre: np.ndarray) -> list[np.ndarray]:
    """The quads tried for one found square (``SIZES``, ``TRIMS``)."""
    c = quad.mean(axis=0)
    out = [c + (quad - c) * s for s in SIZES]
    far = quad[int(np.argmax(np.linalg.norm(quad - centre, axis=1)))]
    return out + [far + (quad - far) * t for t in TRIMS]


def _best_hypotheses(image: np.ndarray, tops: list, dice: DiceSet) -> list[np.ndarray]:
    """One quad per die (group of :class:`~companion.vision.dice_find.TopFace` hypotheses): of
    every hypothesis in every variant (:func:`_quads_tried`), the one whose patch best matches any
    enrolled face (centroid scores, :meth:`DiceSet.match` ``quick``)."""
    centre = np.array([image.shape[1] - 1, image.shape[0] - 1], np.float64) / 2
    cands = [(t.group, q) for t in tops for q in _quads_tried(t.quad, centre)]
    patches = np.stack([face_patch(image, q) for _, q in cands])
    scores, _ = dice.match(describe(patches), body_colour(patches), quick=True)
    best = scores.max(axis=1)
    chosen: dict[int, int] = {}
    for i, (g, _) in enumerate(cands):
        if g not in chosen or best[i] > best[chosen[g]]:
            chosen[g] = i
    return [cands[i][1].astype(np.float32) for i in chosen.values()]


def _pts(quad: np.ndarray) -> tuple:
    return tuple((float(x), float(y)) for x, y in np.asarray(quad, np.float64))


# ---------------------------------------------------------------- enrolment
_SQUARE = np.array([[0, 0], [CANON, 0], [CANON, CANON], [0, CANON]], np.float32)


def _canonical(image: np.ndarray) -> np.ndarray:
    """An enrolment image (the face, scanned flat or cropped to the die) as a ``CANON`` px square."""
    return cv2.resize(image, (CANON, CANON), interpolation=cv2.INTER_AREA)


def _variants(canon: np.ndarray, rng: np.random.Generator, n: int, strength: float) -> list[np.ndarray]:
    """``n`` patches of a canonical face as the camera might see it on the table: 36–80 px a
    side, the quad a little off (turn, scale, shift, corners), focus blur, brightness, colour
    cast, a light gradient, sensor noise and a JPEG round trip. ``strength`` scales the errors."""
    out = []
    for _ in range(n):
        side = float(rng.uniform(36, 82))
        pad = int(side * 0.3)
        size = int(round(side)) + 2 * pad
        # The face pasted at ``side`` px into a frame of its own body colour (the die's rounded
        # edge), so a quad that spills over brings in what a real one would.
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
        # The quad the finder might give: turned, scaled, shifted, its corners each a little off.
        g = strength * _GEOM
        t = np.radians(rng.normal(0, 2.5 * g))
        s = side * (1 + rng.normal(0, 0.03 * g))
        c = np.array([pad + side / 2, pad + side / 2]) + rng.normal(0, 0.025 * g * side, 2)
        rot = np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])
        quad = (np.array([[-.5, -.5], [.5, -.5], [.5, .5], [-.5, .5]]) * s) @ rot.T + c
        quad += rng.normal(0, 0.015 * g * side, (4, 2))
        out.append(face_patch(img8, quad.astype(np.float32)))
    return out


def _calibrate(scores: np.ndarray, label: np.ndarray) -> np.ndarray:
    """Per-face thresholds from held-out variants' scores (V, F) and their faces (V,).

    Genuine scores of face f: its own variants on f. Impostor scores on f: the other faces'
    variants on f, the score a face never enrolled might reach on f. The threshold lies 40 % of
    the way from the impostors' top (99th percentile) to the genuine bottom (1st percentile): a
    die must look more like f than any other face ever looks like f. Where the two overlap
    (a user's faces too alike to tell), the genuine bottom wins, so enrolled faces still read.
    """
    n_f = scores.shape[1]
    thr = np.empty(n_f)
    for f in range(n_f):
        genuine = scores[label == f, f]
        impostor = scores[label != f, f]
        g_lo = float(np.percentile(genuine, 1))
        i_hi = float(np.percentile(impostor, 99)) if len(impostor) else 0.3
        thr[f] = min(i_hi + 0.4 * (g_lo - i_hi), g_lo) if g_lo > i_hi else g_lo
    return np.clip(thr, 0.3, 0.9)


def enroll_dice_images(examples: dict[str, list[np.ndarray]], seed: int = 0) -> DiceSet:
    """Build the dice from pictures of each face.

    Args:
        examples: face name (``"maki*2"``, a face of ``companion/data/sushi_roll_dice.toml``) →
            list of (H, W, 3) uint8 BGR images, each the face seen square on (a flat scan, or a
            photo cropped to the top face), at any size from about 24 px. At least one per face.
        seed: seed of the augmentation (enrolment is deterministic for a given seed).

    Returns:
        The :class:`DiceSet`, thresholds calibrated.

    Raises:
        DiceError: no faces, a face not in the faces file, or a face without images.
    """
    if not examples:
        raise DiceError("no faces to enrol")
    known = _toml_faces()
    for name in examples:
        if name not in known:
            raise DiceError(f"{name!r} is not a face in {DICE_FILE} (faces: {', '.join(sorted(known))})")
        if not examples[name]:
            raise DiceError(f"face {name!r} has no images")
    rng = np.random.default_rng(seed)
    faces = tuple(sorted(examples))
    patches, plabel, held, hlabel, body = [], [], [], [], []
    for fi, name in enumerate(faces):
        for img in examples[name]:
            img = np.asarray(img)
            if img.ndim != 3 or img.shape[2] != 3 or img.dtype != np.uint8 or min(img.shape[:2]) < 8:
                raise DiceError(f"face {name!r}: an image is not an (H, W, 3) uint8 BGR picture of "
                                f"at least 8 px a side (got {img.dtype} {img.shape})")
            canon = _canonical(img)
            clean = face_patch(canon, _SQUARE)
            body.append((fi, body_colour(clean[None])[0]))
            patches += [clean] + _variants(canon, rng, _N_AUG, 1.0)
            plabel += [fi] * (_N_AUG + 1)
            held += _variants(canon, rng, _N_CAL, 1.2)
            hlabel += [fi] * _N_CAL
    colours = np.stack([np.median(np.stack([c for f, c in body if f == fi]), axis=0) for fi in range(len(faces))])
    counts = np.array([len(examples[f]) for f in faces], np.int64)
    dice = DiceSet(faces, describe(np.stack(patches)), np.array(plabel, np.int64),
                   np.zeros(len(faces)), colours.astype(np.float32), counts)
    held_patches = np.stack(held)
    scores, _ = dice.match(describe(held_patches), body_colour(held_patches))
    dice.thresholds = _calibrate(scores, np.array(hlabel))
    return dice


def _toml_faces() -> set[str]:
    faces = load_dice_faces()
    return {str(f) for per_die in faces.faces for f in per_die}


def enroll_dice_folder(folder: Path | str, seed: int = 0) -> DiceSet:
    """Enrol the dice from ``folder/<face>/<image>`` (the sub-folder name is the face name).

    Files whose suffix is not an image type (``IMAGE_SUFFIXES``) and hidden entries are ignored;
    every image file must be readable.

    Raises:
        DiceError: the folder is missing or not a folder, has no face sub-folders, a sub-folder
            is not named after a face of ``companion/data/sushi_roll_dice.toml`` (named in the
            message), or a face folder has no images.
        ImageReadError: an image file cannot be read (the message names it).
    """
    root = Path(folder)
    if not root.exists():
        raise DiceError(f"{root}: dice folder not found")
    if not root.is_dir():
        raise DiceError(f"{root}: not a folder (expected one sub-folder per face, e.g. {root}/maki*2/)")
    subdirs = sorted(d for d in root.iterdir() if d.is_dir() and not d.name.startswith("."))
    if not subdirs:
        raise DiceError(f"{root}: no face sub-folders (expected {root}/<face>/<image>.png, e.g. {root}/maki*2/a.png)")
    known = _toml_faces()
    for d in subdirs:
        if d.name not in known:
            raise DiceError(f"{d}: {d.name!r} is not a face in {DICE_FILE}; name each sub-folder after a "
                            f"face: {', '.join(sorted(known))}")
    examples: dict[str, list[np.ndarray]] = {}
    for d in subdirs:
        files = sorted(f for f in d.iterdir() if not f.name.startswith(".") and f.suffix.lower() in IMAGE_SUFFIXES)
        if not files:
            raise DiceError(f"{d}: no images for face {d.name!r} "
                            f"(expected files ending in {', '.join(sorted(IMAGE_SUFFIXES))})")
        examples[d.name] = [read_image(f) for f in files]
    return enroll_dice_images(examples, seed=seed)


__all__ = [
    "DESCRIPTOR_VERSION", "PATCH", "DiceError", "DiceSet", "FaceReading", "ImageReadError", "UNKNOWN",
    "body_colour", "describe", "die_of", "enroll_dice_folder", "enroll_dice_images", "face_patch",
    "read_icon_dice",
]
