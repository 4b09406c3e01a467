"""The enrolled Sushi Roll dice faces (:class:`DiceSet`), how a top face is described, and DICE.npz.

How a top face is described (descriptor version 1)
--------------------------------------------------
1. The top face's quad is warped (homography) to a ``PATCH × PATCH`` px square, slightly inset
   so a quad a pixel off, or the die's rounded rim, brings in no side face or table; the warp is
   done at 2× and reduced with ``INTER_AREA`` plus a light blur, an alias-free view that
   tolerates sub-pixel quad errors and focus blur.
2. The square goes to CIE Lab; each channel is made zero-mean, the chroma channels are weighted,
   the rounded corners are zeroed and the vector scaled to unit length, as the deck's cards
   (:func:`companion.vision.deck.describe`). Brightness and a colour cast mostly drop out; what is
   left is the face's layout of lightness and colour: where the icons are, how many, what they
   look like.
3. A query is compared, by one matrix product, with every template in its four quarter turns (a
   die's top can lie at any angle, and its quad fixes the angle up to a quarter turn). The dot
   product is the zero-normalised cross-correlation (ZNCC; J. P. Lewis, "Fast Normalized
   Cross-Correlation", Vision Interface 1995).
4. The body colour (the median Lab colour of the face's outer ring) must agree as well: a die of
   a colour never enrolled is not read as one that was.

Deciding (:meth:`DiceSet.read`)
-------------------------------
A face is taken at once when its score reaches its *sure* level and no other face scores within
``LOOKALIKE_BAND`` of it. Otherwise the candidates within the band are looked at closely
(:mod:`companion.vision.dice_fine`: aligned to each candidate's own art at ``FINE`` px); the best
must reach its own *fine threshold* (a little lower when its whole-face score was nearly sure:
``FINE_RELAX``, or ``LONE_RELAX`` when no other face is within the band) and beat the next by
``FINE_MARGIN``, else the die is ``"unknown"``: never the nearest face. Both levels are
calibrated per face at enrolment (:mod:`companion.vision.dice_enroll`).

DICE.npz (``numpy.savez_compressed``, loaded with ``allow_pickle=False``)
------------------------------------------------------------------------
``format``           0-d str, always ``"companion-dice"``
``version``          0-d int64, descriptor version (``DESCRIPTOR_VERSION``)
``patch_size``       (2,) int64, ``(PATCH, FINE)`` px
``faces``            (F,) str, the enrolled face names (``"maki*2"``), sorted
``templates``        (M, D) float32 unit-length descriptors, D = 3·PATCH², art upright
``template_face``    (M,) int64, index into ``faces`` per template row, non-decreasing
``sure``             (F,) float64, per-face ZNCC at which a face is taken without a close look
``fine``             (E, FINE, FINE, 3) float32, each enrolment image's clean face, fine Lab
``fine_face``        (E,) int64, index into ``faces`` per row of ``fine``
``fine_thresholds``  (F,) float64, per-face aligned correlation a die must reach to be that face
``body``             (F, 3) float32, each face's body colour, CIE Lab (L 0..100, a, b)
``examples``         (F,) int64, how many images each face was enrolled from

:meth:`DiceSet.load` checks this schema before it reads any array (:mod:`companion.vision.npz_schema`,
as the deck's: member names, dtypes, shapes, sizes within ``MAX_FACES`` and ``MAX_EXAMPLES``), then
the values (finite, in range, every face a face of the faces file). Every refusal is a
:class:`DiceError` naming the file and the field (issue #14 item 8).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from companion.rules.sushi_roll.dice import parse_face
from companion.vision.deck import corner_mask
from companion.vision.dice_fine import FINE, FineQuery, aligned_score, fine_patch, template_bank, turned_templates
from companion.vision.npz_schema import Field, check_finite, check_names, read_npz

DESCRIPTOR_VERSION = 1
FORMAT_NAME = "companion-dice"
UNKNOWN = "unknown"

#: Side of the canonical top-face patch, px. A 40 px face is sampled at about its own resolution.
PATCH = 24
#: A die is "unknown" without a close look when no face scores this much (ZNCC).
COARSE_FLOOR = 0.3
#: Faces scoring within this of the best are looked at closely (ZNCC).
LOOKALIKE_BAND = 0.15
#: The close look must be won by this much (aligned correlation), else "unknown".
FINE_MARGIN = 0.03
#: A face whose whole-face score is within ``RELAX_WIDTH`` of its sure level needs up to
#: ``FINE_RELAX`` less in the close look (linearly: all of it at the sure level).
FINE_RELAX, RELAX_WIDTH = 0.05, 0.1
#: ... and up to ``LONE_RELAX`` less when no other face scores within ``LOOKALIKE_BAND`` of it
#: (nothing alike to confuse it with). A face drawn in thin strokes loses most in the close look
#: to blur and JPEG's halved chroma: ``chopsticks`` (two thin sticks) on a 33 px die in a
#: 2028×1520 frame scores 0.81–0.87 against its own art, up to 0.08 under a fine threshold
#: calibrated on sharper enrolment views, while its whole-face score is within 0.04 of sure and no
#: other face comes within 0.33 (issue #10). A face never enrolled that an enrolled one scores that
#: near sure is the danger: of the icon-dice bench's left-out faces none came within 0.11.
LONE_RELAX = 0.12
#: Body colour: the Lab chroma distance between a die's body and a face's, over
#: ``BODY_SCALE + BODY_SCALE_REL · |face chroma|`` (a colour cast moves a saturated colour further
#: than a grey one), at or below which the body is the face's (1) and above which it is not (2);
#: in between the score is lowered linearly (see :meth:`DiceSet.match`).
BODY_OK, BODY_BAD = 1.0, 2.0
BODY_SCALE, BODY_SCALE_REL = 18.0, 0.3

_INSET = 0.06  # fraction of the face side trimmed on every side (rounded rim, quad error)
_CHROMA_WEIGHT = 0.8  # a/b channels relative to L, after Lab scaling
_CORNER = 3  # px of the patch corners zeroed (rounded die corners)
_RING = (0.04, 0.16)  # the outer ring of a face (fractions of its side) whose colour is the body's
_SOFTMAX_T = 0.02  # temperature of the confidence softmax, in correlation units
_RAMP = 0.08  # correlation over a level at which the score part of confidence saturates


def _clip01(x: float) -> float:
    """``x`` clipped to 0..1, as a float (``np.clip`` costs microseconds on one number)."""
    return min(max(float(x), 0.0), 1.0)


class DiceError(ValueError):
    """Enrolment input or a DICE.npz file is unusable. The message names the file or folder and
    the rule broken.

    Attributes:
        path: the DICE.npz file (None for an enrolment error).
        field: the field (member) of the file that broke a rule, or None.
    """

    def __init__(self, message: str, path: str | None = None, field: str | None = None):
        super().__init__(message)
        self.path, self.field = path, field


#: Most faces a DICE.npz may hold: the faces file names 17; the names are checked against it.
MAX_FACES = 64
#: Most enrolment pictures, all faces together: seven of each of the 17 faces and more. Each makes
#: 17 templates (``dice_enroll``: the clean one and 16 variants) of 6.9 KB: at most 15 MB, 60 MB
#: as the four-turn bank once loaded.
MAX_EXAMPLES = 128
#: Templates each enrolment picture makes (``dice_enroll``: the clean one and ``_N_AUG`` = 16).
TEMPLATES_PER_EXAMPLE = 17
_MAX_FACE_CHARS = 32

#: DICE.npz's schema (module doc); sizes F faces, M templates, E pictures.
_DICE_FIELDS = {
    "format": Field("str", (), max_chars=64),
    "version": Field("int"),
    "patch_size": Field("int", (2,)),
    "faces": Field("str", ("F",), max_chars=_MAX_FACE_CHARS),
    "templates": Field("float", ("M", 3 * PATCH * PATCH), itemsize=4),
    "template_face": Field("int", ("M",)),
    "sure": Field("float", ("F",)),
    "fine": Field("float", ("E", FINE, FINE, 3), itemsize=4),
    "fine_face": Field("int", ("E",)),
    "fine_thresholds": Field("float", ("F",)),
    "body": Field("float", ("F", 3)),
    "examples": Field("int", ("F",)),
}


def _corner_mask() -> np.ndarray:
    return corner_mask(PATCH, PATCH, _CORNER)


_MASK = _corner_mask()
_MASK_FLAT = _MASK.reshape(-1)
_MASK_SUM = float(_MASK.sum())
_MASK_W = (_MASK.reshape(-1, 1) * np.array([1.0, _CHROMA_WEIGHT, _CHROMA_WEIGHT], np.float32)).astype(np.float32)
_MASK_W_T = np.ascontiguousarray(_MASK_W.T)  # (3, P²)
_M2 = _INSET * 2 * PATCH
_DST2 = np.array([[-_M2, -_M2], [2 * PATCH + _M2, -_M2], [2 * PATCH + _M2, 2 * PATCH + _M2],
                  [-_M2, 2 * PATCH + _M2]], np.float32)
_C = (np.arange(PATCH) + 0.5) / PATCH - 0.5
_CHEB = np.maximum(np.abs(_C[:, None]), np.abs(_C[None, :]))  # distance from the centre, square norm
_RING_MASK = (_CHEB <= 0.5 - _RING[0]) & (_CHEB >= 0.5 - _RING[1])
_RING_IDX = np.flatnonzero(_RING_MASK)


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


def face_patches(image: np.ndarray, quads) -> np.ndarray:
    """:func:`face_patch` of each quad, (N, PATCH, PATCH, 3) uint8 BGR, the same bytes. The 2×
    reduction and the blur are done once on the warps stacked: a 2 × 2 area mean never crosses
    from one warp into the next (each is 2·PATCH rows), and each patch is padded by reflection
    (OpenCV's default blur border, ``BORDER_REFLECT_101``) so the blur does not either."""
    quads = list(quads)
    n = len(quads)
    if n == 0:
        return np.zeros((0, PATCH, PATCH, 3), np.uint8)
    big = np.empty((n, 2 * PATCH, 2 * PATCH, 3), np.uint8)
    for i, q in enumerate(quads):
        h = cv2.getPerspectiveTransform(np.asarray(q, np.float32), _DST2)
        cv2.warpPerspective(image, h, (2 * PATCH, 2 * PATCH), dst=big[i], flags=cv2.INTER_LINEAR,
                            borderMode=cv2.BORDER_REPLICATE)
    small = cv2.resize(big.reshape(n * 2 * PATCH, 2 * PATCH, 3), (PATCH, n * PATCH), interpolation=cv2.INTER_AREA)
    padded = _reflect_pad1(small.reshape(n, PATCH, PATCH, 3))
    blurred = cv2.GaussianBlur(padded.reshape(n * (PATCH + 2), PATCH + 2, 3), (3, 3), 0.6)
    return np.ascontiguousarray(blurred.reshape(n, PATCH + 2, PATCH + 2, 3)[:, 1:-1, 1:-1])


def _reflect_pad1(patches: np.ndarray) -> np.ndarray:
    """(N, h, w, C) → (N, h + 2, w + 2, C): each image padded by one px, mirrored about its edge
    pixels (``np.pad`` mode ``"reflect"``, OpenCV's ``BORDER_REFLECT_101``), the same bytes. Five
    slice copies: ``np.pad``'s own bookkeeping costs about 0.2 ms a call, several times the copy."""
    n, h, w, c = patches.shape
    out = np.empty((n, h + 2, w + 2, c), patches.dtype)
    out[:, 1:-1, 1:-1] = patches
    out[:, 0, 1:-1] = patches[:, 1]
    out[:, -1, 1:-1] = patches[:, -2]
    out[:, :, 0] = out[:, :, 2]  # the corners too, from the rows just padded (as np.pad: axis by axis)
    out[:, :, -1] = out[:, :, -3]
    return out


def _lab8(patches: np.ndarray) -> np.ndarray:
    """(N, h, w, 3) uint8 BGR → (N, h, w, 3) OpenCV 8-bit CIE Lab (L·255/100, a + 128, b + 128):
    a fraction of the float conversion's cost; its rounding is far below the noise."""
    n, h, w, _ = patches.shape
    return cv2.cvtColor(np.ascontiguousarray(patches).reshape(n * h, w, 3), cv2.COLOR_BGR2Lab).reshape(n, h, w, 3)


def _lab_of8(lab8: np.ndarray) -> np.ndarray:
    """(..., 3) OpenCV 8-bit Lab → float32 CIE Lab (L 0..100, a, b) (``_LAB8``)."""
    return cv2.transform(lab8.reshape(-1, 1, 3).astype(np.float32), _LAB8).reshape(lab8.shape)


def _ring_median(lab8: np.ndarray) -> np.ndarray:
    """(N, PATCH, PATCH, 3) 8-bit Lab → (N, 3) float32 CIE Lab: the median of each patch's outer
    ring (``_RING_MASK``), as ``np.median`` of the float Lab. The 8-bit to float map is increasing
    per channel, so the middle values are found among the bytes (a partition of a byte array is
    several times cheaper than of the float one) and only they are converted."""
    n = lab8.shape[0]
    ring = np.ascontiguousarray(lab8.reshape(n, PATCH * PATCH, 3).transpose(0, 2, 1))[:, :, _RING_IDX]  # (N, 3, R)
    k = len(_RING_IDX) // 2
    if len(_RING_IDX) % 2:
        return _lab_of8(np.partition(ring, k, axis=2)[:, :, k])
    mid = np.partition(ring, (k - 1, k), axis=2)[:, :, k - 1:k + 1]  # (N, 3, 2)
    lo, hi = _lab_of8(np.ascontiguousarray(mid.transpose(2, 0, 1)))  # (2, N, 3) → each (N, 3)
    return (lo + hi) / np.float32(2.0)  # as np.median: the float32 sum of the two, halved


# 8-bit Lab → L 0..100, a and b about 0 (OpenCV stores L·255/100 and a, b + 128).
_LAB8 = np.array([[100 / 255, 0, 0, 0], [0, 1, 0, -128], [0, 0, 1, -128]], np.float32)


def describe(patches: np.ndarray) -> np.ndarray:
    """Descriptors (version 1, module doc) of canonical top-face patches.

    Args:
        patches: (N, PATCH, PATCH, 3) uint8 BGR from :func:`face_patch`.

    Returns:
        (N, 3·PATCH²) float32, rows zero-mean per channel and of unit length (a flat patch gives a
        zero row, which correlates 0 with everything).
    """
    return describe_and_body(patches, body=False)[0]


def describe_and_body(patches: np.ndarray, body: bool = True) -> tuple[np.ndarray, np.ndarray | None]:
    """:func:`describe` and :func:`body_colour` of the same patches, converting them to Lab once
    (``body`` False: the descriptors alone, and None)."""
    patches = np.asarray(patches)
    n = patches.shape[0]
    if n == 0:
        return np.zeros((0, 3 * PATCH * PATCH), np.float32), np.zeros((0, 3), np.float32)
    lab8 = _lab8(patches)
    colour = _ring_median(lab8) if body else None
    flat = _lab_of8(lab8).reshape(n, PATCH * PATCH, 3)
    mean = _MASK_FLAT @ flat / _MASK_SUM  # (N, 3) masked channel means
    # Channel-major first (N, 3, P²): the arithmetic then runs along rows, not across 3 channels.
    d = (np.ascontiguousarray(flat.transpose(0, 2, 1)) - mean[:, :, None]) * _MASK_W_T  # masked, chroma weighted
    d = d.reshape(n, -1)  # (N, 3·P²)
    norm = np.sqrt(np.einsum("ij,ij->i", d, d))[:, None]
    return d / np.maximum(norm, 1e-6), colour


def body_colour(patches: np.ndarray) -> np.ndarray:
    """The body colour of each die face: the median Lab colour of the patch's outer ring, where
    die art leaves the bare body (icons sit in the middle).

    Args:
        patches: (N, PATCH, PATCH, 3) uint8 BGR from :func:`face_patch`.

    Returns:
        (N, 3) float32 Lab (L 0..100, a, b).
    """
    return describe_and_body(patches)[1]


def _rot_bank(desc: np.ndarray) -> np.ndarray:
    """(M, D) descriptors → (4, M, D): the face turned 0, 90, 180 and 270° (counter-clockwise)."""
    m = desc.shape[0]
    sq = desc.reshape(m, 3, PATCH, PATCH)
    return np.stack([np.rot90(sq, k, axes=(2, 3)).reshape(m, -1) for k in range(4)])


def _unturn(desc: np.ndarray) -> np.ndarray:
    """(N, D) descriptors → (4N, D): each turned 0, 90, 180 and 270° clockwise, turn-major (the
    rows ``k·N … k·N + N − 1`` turned back by ``k`` quarter turns)."""
    n = desc.shape[0]
    sq = desc.reshape(n, 3, PATCH, PATCH)
    return np.concatenate([np.rot90(sq, -k, axes=(2, 3)).reshape(n, -1) for k in range(4)])


def die_of(face: str) -> str:
    """The Sushi Roll die type (``"maki"``) that shows ``face`` (``"maki*2"``).

    Raises:
        ValueError: a face name the rules do not know (``companion.rules.sushi_roll.dice``).
    """
    return parse_face(face).kind.value


@dataclass(frozen=True)
class FaceReading:
    """One top face's reading.

    face: an enrolled face name or ``"unknown"``.
    confidence: 0..1; for ``"unknown"``, how sure the reader is that no enrolled face matches.
    score: the deciding correlation (whole-face ZNCC, or the close look's aligned one).
    turn: quarter turns (0..3): the matched art turned this many times counter-clockwise
        (:func:`numpy.rot90`) is what the query patch shows.
    """

    face: str
    confidence: float
    score: float
    turn: int


@dataclass
class DiceSet:
    """The user's enrolled Sushi Roll dice faces (module doc).

    Build one with :func:`companion.vision.dice_enroll.enroll_dice_folder` /
    ``enroll_dice_images``, or :meth:`load` a DICE.npz.
    """

    faces: tuple[str, ...]
    templates: np.ndarray  # (M, D) float32 unit rows, art upright
    template_face: np.ndarray  # (M,) int64, non-decreasing
    sure: np.ndarray  # (F,) float64
    fine: np.ndarray  # (E, FINE, FINE, 3) float32
    fine_face: np.ndarray  # (E,) int64
    fine_thresholds: np.ndarray  # (F,) float64
    body: np.ndarray  # (F, 3) float32 Lab
    examples: np.ndarray  # (F,) int64

    def __post_init__(self) -> None:
        order = np.argsort(self.template_face, kind="stable")
        self.template_face = np.asarray(self.template_face, np.int64)[order]
        self.templates = np.ascontiguousarray(np.asarray(self.templates, np.float32)[order])
        self.sure = np.asarray(self.sure, np.float64)
        self.fine_thresholds = np.asarray(self.fine_thresholds, np.float64)
        self.fine = np.asarray(self.fine, np.float32)
        self.fine_face = np.asarray(self.fine_face, np.int64)
        self.body = np.asarray(self.body, np.float32)
        self.dice = tuple(die_of(f) for f in self.faces)
        # The templates as columns, upright: a query is turned instead of the bank (its four quarter
        # turns are four rows of one matmul), so the bank a reading multiplies by is a quarter of
        # the four-turn bank's size and cheaper to read for the few queries of a frame.
        self._bank = np.ascontiguousarray(self.templates.T)
        self._starts = np.searchsorted(self.template_face, np.arange(len(self.faces)))
        # One centroid per face (its templates' mean, unit length) in its four turns: a smooth,
        # cheap score for choosing among hypotheses of where a face lies (``match(quick=True)``).
        cent = np.stack([self.templates[self.template_face == f].mean(axis=0) for f in range(len(self.faces))])
        cent /= np.maximum(np.linalg.norm(cent, axis=1, keepdims=True), 1e-6)
        self._quick = np.ascontiguousarray(_rot_bank(cent).reshape(4 * len(self.faces), -1).T)
        self._turned: dict[int, list[np.ndarray]] = {}
        self._face_banks: dict[int, np.ndarray] = {}
        self._colours = None

    # ----------------------------------------------------------- classifying
    def match(self, desc: np.ndarray, body: np.ndarray | None = None,
              quick: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """Best ZNCC per face over the four quarter turns.

        Args:
            desc: (N, D) float32 from :func:`describe`.
            body: (N, 3) float32 Lab body colours of the queries (:func:`body_colour`), or None to
                skip the colour check. A query whose body chroma is further than ``BODY_OK``
                (relative) from a face's loses score on that face linearly, down to −1 at
                ``BODY_BAD``.
            quick: score against each face's centroid only (cheaper, a little lower).

        Returns:
            ``(scores, turn)``: (N, F) float32 best score per face, and (N, F) int64 quarter turns
            (0..3, counter-clockwise) of the face's art that scored it.
        """
        n_f = len(self.faces)
        if quick:
            per = (desc @ self._quick).reshape(len(desc), 4, n_f)
        else:
            # The art turned k quarter turns against the query is the query turned −k against the art.
            s = _unturn(desc) @ self._bank  # (4N, M), turn-major
            per = np.maximum.reduceat(s, self._starts, axis=1).reshape(4, len(desc), n_f).transpose(1, 0, 2)
        turn = per.argmax(axis=1)
        scores = per.max(axis=1)
        if body is not None:
            over = np.clip((self.body_distance(body) - BODY_OK) / (BODY_BAD - BODY_OK), 0.0, 1.0)
            scores = scores - over * (scores + 1.0)
        return scores.astype(np.float32), turn

    def face_score(self, desc: np.ndarray, body: np.ndarray, face: np.ndarray) -> np.ndarray:
        """Each query's score (as :meth:`match`) on one face of its own.

        Args:
            desc: (N, D) float32 from :func:`describe`.
            body: (N, 3) float32 Lab body colours (:func:`body_colour`).
            face: (N,) int face index per query.

        Returns:
            (N,) float32.
        """
        out = np.empty(len(desc), np.float32)
        face = np.asarray(face)
        # Each row's body distance to its own face (the distance is per row and face: no batch effect).
        dist = self.body_distance(body)[np.arange(len(face)), face]
        over_all = np.clip((dist - BODY_OK) / (BODY_BAD - BODY_OK), 0.0, 1.0)
        for f in np.unique(face):
            rows = np.nonzero(face == f)[0]
            if f not in self._face_banks:
                mine = self.templates[self.template_face == f]
                self._face_banks[f] = np.ascontiguousarray(_rot_bank(mine).reshape(4 * len(mine), -1).T)
            s = (desc[rows] @ self._face_banks[f]).max(axis=1)
            over = over_all[rows]
            out[rows] = s - over * (s + 1.0)
        return out

    def body_distance(self, body: np.ndarray) -> np.ndarray:
        """(N, F) relative chroma distance of (N, 3) Lab body colours to each face's body colour
        (1 = as far as a strong colour cast moves it; see ``BODY_OK``)."""
        chroma = np.linalg.norm(body[:, None, 1:] - self.body[None, :, 1:], axis=2)
        scale = BODY_SCALE + BODY_SCALE_REL * np.linalg.norm(self.body[:, 1:], axis=1)
        return chroma / scale[None, :]

    def fine_score(self, query: np.ndarray | FineQuery, face: int, turn: int) -> float:
        """The close look (:mod:`companion.vision.dice_fine`): the best aligned correlation of a
        padded fine query (its :func:`fine_patch`, or the :class:`FineQuery` of it, made once for
        several faces) with ``face``'s clean art turned by ``turn`` quarter turns."""
        if face not in self._turned:
            per = [turned_templates(t) for t in self.fine[self.fine_face == face]]
            self._turned[face] = [template_bank(np.concatenate([p[k] for p in per])) for k in range(4)]
        # ``turn``: the art turned that many quarter turns counter-clockwise is what the query shows.
        return aligned_score(query, self._turned[face][turn])

    def read(self, image: np.ndarray, quads: list[np.ndarray],
             described: tuple[np.ndarray, np.ndarray] | None = None,
             matched: tuple[np.ndarray, np.ndarray] | None = None) -> list[FaceReading]:
        """Name the top face in each quad (module doc, "Deciding").

        Args:
            image: (H, W, 3) uint8 BGR.
            quads: (4, 2) float px each, clockwise.
            described: the quads' (N, D) descriptors and (N, 3) body colours
                (:func:`describe_and_body` of their :func:`face_patch`), if already made.
            matched: the quads' (N, F) scores and turns (:meth:`match` of ``described``), if
                already made (then ``described`` is not needed).

        Returns:
            One :class:`FaceReading` per quad.
        """
        if not quads:
            return []
        if matched is None:
            if described is None:
                described = describe_and_body(face_patches(image, quads))
            matched = self.match(*described)
        scores, turn = matched
        # A die's fine query is made once for all the faces it is looked at closely against.
        return [self._decide(scores[i], turn[i], lambda q=q: FineQuery(fine_patch(image, q))) for i, q in enumerate(quads)]

    def _decide(self, scores: np.ndarray, turn: np.ndarray, query) -> FaceReading:
        """One die's reading from its (F,) scores and turns; ``query()`` makes its fine patch."""
        best = int(scores.argmax())
        top = float(scores[best])
        if top < COARSE_FLOOR:
            return FaceReading(UNKNOWN, _clip01(0.5 + 0.5 * (COARSE_FLOOR - top) / _RAMP), top, 0)
        order = np.argsort(-scores)
        close = order[scores[order] >= max(top - LOOKALIKE_BAND, COARSE_FLOOR)].tolist()
        if top >= self.sure[best] and len(close) == 1:
            p = 1.0 / np.exp((scores - top) / _SOFTMAX_T).sum()
            ramp = _clip01(0.5 + 0.5 * (top - self.sure[best] + _RAMP) / _RAMP)
            return FaceReading(self.faces[best], float(p * ramp), top, int(turn[best]))
        q = query()
        fine = np.array([self.fine_score(q, int(f), int(turn[f])) for f in close])
        order = np.argsort(-fine)
        win = int(close[order[0]])
        f_top = float(fine[order[0]])
        second = float(fine[order[1]]) if len(order) > 1 else -1.0
        # Both looks are evidence: a whole-face score near the face's sure level lowers the close
        # look's threshold a little (by up to ``FINE_RELAX``, from ``RELAX_WIDTH`` below sure); a
        # face alone in the band, with nothing alike to mistake it for, a little more.
        near_sure = _clip01((scores[win] - self.sure[win] + RELAX_WIDTH) / RELAX_WIDTH)
        thr = self.fine_thresholds[win] - (LONE_RELAX if len(close) == 1 else FINE_RELAX) * near_sure
        if f_top >= thr and f_top - second >= FINE_MARGIN:
            p = 1.0 / np.exp((fine - f_top) / _SOFTMAX_T).sum()
            ramp = _clip01(0.5 + 0.5 * (f_top - thr) / _RAMP)
            return FaceReading(self.faces[win], float(p * ramp), f_top, int(turn[win]))
        if f_top >= thr:
            return FaceReading(UNKNOWN, 0.5, f_top, 0)  # two alike faces, undecided: not "matches nothing"
        return FaceReading(UNKNOWN, _clip01(0.5 + 0.5 * (thr - f_top) / _RAMP), f_top, 0)

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
        if self._colours is None:
            from companion.vision.dice_find import BodyColours

            bgr, names = self.die_bodies()
            self._colours = (BodyColours(bgr), names)
        return self._colours

    # ----------------------------------------------------------------- files
    def summary(self, path: Path | str) -> str:
        """Two lines for ``companion enroll --dice``: where, how many faces and images, the
        levels, and the images per face."""
        per = ", ".join(f"{f} {int(n)}" for f, n in zip(self.faces, self.examples))
        return (f"enrolled {len(self.faces)} faces from {int(self.examples.sum())} images into {path} "
                f"(sure at {self.sure.min():.2f}–{self.sure.max():.2f}, close look needs "
                f"{self.fine_thresholds.min():.2f}–{self.fine_thresholds.max():.2f})\n"
                f"  images per face: {per}")

    def save(self, path: Path | str) -> None:
        """Write the dice as DICE.npz (format in the module doc).

        Written to ``PATH.part`` first and then renamed over ``path``, so a failed write never
        leaves a broken DICE.npz where a good one was.

        Raises:
            OSError: the file cannot be written.
        """
        part = Path(f"{path}.part")
        try:
            self._write(part)
            os.replace(part, path)
        finally:
            part.unlink(missing_ok=True)

    def _write(self, path: Path) -> None:
        with open(path, "wb") as fh:  # a file object stops numpy appending ".npz" to the name
            np.savez_compressed(
                fh,
                format=np.array(FORMAT_NAME),
                version=np.array(DESCRIPTOR_VERSION, np.int64),
                patch_size=np.array([PATCH, FINE], np.int64),
                faces=np.array(self.faces, dtype=str),
                templates=self.templates.astype(np.float32),
                template_face=self.template_face.astype(np.int64),
                sure=self.sure.astype(np.float64),
                fine=self.fine.astype(np.float32),
                fine_face=self.fine_face.astype(np.int64),
                fine_thresholds=self.fine_thresholds.astype(np.float64),
                body=self.body.astype(np.float32),
                examples=np.asarray(self.examples, np.int64),
            )

    @classmethod
    def load(cls, path: Path | str) -> DiceSet:
        """Read a DICE.npz written by :meth:`save`, its schema checked before any array is read
        (:func:`companion.vision.npz_schema.read_npz`; ``allow_pickle=False``).

        Raises:
            DiceError: missing or unreadable file, not a regular file, not an .npz, not a dice
                file (a deck, say); an unknown, missing or twice stored field; a field of the wrong
                dtype, shape or size (over ``MAX_FACES``, ``MAX_EXAMPLES``); corrupt data; a value
                out of range; or a descriptor version / patch size this code does not use. Names
                the file and the field (``exc.field``).
        """
        p = Path(path)

        def error(field: str | None, reason: str) -> DiceError:
            return DiceError((f"{p}: field {field!r}: " if field else f"{p}: ") + reason, str(p), field)

        data = read_npz(p, _DICE_FIELDS,
                        {"F": MAX_FACES, "M": TEMPLATES_PER_EXAMPLE * MAX_EXAMPLES, "E": MAX_EXAMPLES},
                        error, "dice", " (enrol dice with 'companion enroll --dice DIR')",
                        identity=("format", FORMAT_NAME))
        version = int(data["version"])
        if version != DESCRIPTOR_VERSION:
            raise error("version", f"descriptor version {version}, this program reads version "
                                   f"{DESCRIPTOR_VERSION}; enrol the dice again")
        if data["patch_size"].tolist() != [PATCH, FINE]:
            raise error("patch_size", f"patch sizes {data['patch_size'].tolist()} are not {[PATCH, FINE]}; "
                                      "enrol the dice again")
        faces = check_names("faces", data["faces"], _MAX_FACE_CHARS, error, reserved=UNKNOWN)
        for name in ("templates", "sure", "fine", "fine_thresholds", "body"):
            check_finite(name, data[name], error)
        _check(p, faces, data["templates"], data["template_face"], data["fine"], data["fine_face"],
               data["sure"].astype(np.float64), data["fine_thresholds"].astype(np.float64),
               data["body"].astype(np.float32), data["examples"].astype(np.int64), error)
        return cls(faces, data["templates"], data["template_face"], data["sure"], data["fine"], data["fine_face"],
                   data["fine_thresholds"], data["body"].astype(np.float32), data["examples"].astype(np.int64))


def _check(p: Path, faces, templates, tf, fine, ff, sure, fine_thr, body, examples, error) -> None:
    """Raise ``error(field, reason)`` (a DiceError naming ``p``) unless the loaded fields, of the
    schema's kinds and shapes already, fit together and hold values in range (module doc)."""
    n = len(faces)
    if n == 0 or len(templates) == 0:
        raise error("faces" if n == 0 else "templates", "no faces enrolled")
    norms = np.linalg.norm(templates, axis=1)
    if np.any(np.abs(norms - 1.0) > 1e-3):
        raise error("templates", f"{int(np.count_nonzero(np.abs(norms - 1.0) > 1e-3))} template(s) are not "
                                 "unit-length descriptors (all zero, or not made by enrolment)")
    if tf.min() < 0 or tf.max() >= n or len(np.unique(tf)) != n:
        raise error("template_face", f"must give a face index 0..{n - 1} for every template, each face with some")
    for f in faces:
        try:
            die_of(f)
        except ValueError as exc:
            raise error("faces", str(exc)) from None
    if len(ff) == 0 or ff.min() < 0 or ff.max() >= n or len(np.unique(ff)) != n:
        raise error("fine_face", f"every face needs its art: a face index 0..{n - 1} for every row of fine")
    if np.abs(fine).max() > 256.0:
        raise error("fine", "values beyond ±256: not CIE Lab")
    for name, v in (("sure", sure), ("fine_thresholds", fine_thr)):
        if not np.all((v > 0.0) & (v < 1.0)):
            raise error(name, "each face's level must be a correlation between 0 and 1 (exclusive)")
    if not np.all((body[:, 0] >= 0.0) & (body[:, 0] <= 100.0)) or np.abs(body[:, 1:]).max() > 128.0:
        raise error("body", "not CIE Lab colours (L 0..100, a and b within ±128)")
    if examples.min() < 1 or examples.sum() > MAX_EXAMPLES:
        raise error("examples", f"each face needs at least 1 picture and the dice at most {MAX_EXAMPLES} in all")


__all__ = [
    "COARSE_FLOOR", "DESCRIPTOR_VERSION", "FINE_MARGIN", "LOOKALIKE_BAND", "MAX_EXAMPLES", "MAX_FACES", "PATCH",
    "UNKNOWN", "DiceError",
    "DiceSet", "FaceReading", "body_colour", "describe", "die_of", "face_patch", "face_patches",
]
