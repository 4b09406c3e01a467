"""The close look at one die's top face: where two faces are alike, or a face is not sure.

The whole-face descriptor of :mod:`companion.vision.dice_faces` is small (24 px) and its quad may
be a pixel or two off, so faces that differ in one icon (``maki*2`` and ``maki*3``) or in a small
mark (a salmon or a squid topping) can score alike, and a face the user never enrolled can score
nearly as well as an enrolled face it resembles. So the uncertain dice are looked at again: at
``FINE`` px, the query aligned to each candidate face's own clean art by the best shift
(± ``FINE_PAD`` px, ``cv2.matchTemplate``, normalised correlation coefficient) and scale
(``FINE_SCALES``; small turns, ``FINE_ANGLES``, can be tried too: a found square's turn is
good to a degree or two), every shift and template of a face in one matrix product
(:func:`aligned_score`). Aligned, a face matches its own art closely
whatever the blur, and another face's art markedly less: the eye, too, looks closer where it is
unsure.

Source: ``cv2.matchTemplate`` ``TM_CCOEFF_NORMED`` (zero-normalised cross-correlation over every
shift; J. P. Lewis, "Fast Normalized Cross-Correlation", Vision Interface 1995).
"""

from __future__ import annotations

import cv2
import numpy as np

#: Side of the fine patch, px (about the smallest face's own resolution).
FINE = 40
#: Shift search, px each way.
FINE_PAD = 4
#: Small turns (degrees) and scales tried: a quad's size can be a little off (its turn, from the
#: found square's edges, is good to a degree or two: more turns cost time and gained nothing here).
FINE_ANGLES = (0.0,)
FINE_SCALES = (0.88, 0.94, 1.0, 1.06)

_INSET = 0.06  # as the coarse patch (dice_icons._INSET): the rim and quad errors left out
_CHROMA = 0.8  # a/b relative to L
_BLUR = 0.9  # px: both sides blurred alike, so sharp art and a soft photo compare fairly


def _dst(pad: int) -> np.ndarray:
    m = _INSET * FINE
    lo, hi = pad - m, pad + FINE + m
    return np.array([[lo, lo], [hi, lo], [hi, hi], [lo, hi]], np.float32)


def _lab(bgr: np.ndarray) -> np.ndarray:
    """(h, w, 3) uint8 BGR → float32 Lab (a, b weighted), blurred by ``_BLUR``."""
    lab = cv2.cvtColor(bgr.astype(np.float32) * (1.0 / 255.0), cv2.COLOR_BGR2Lab)
    lab[..., 1:] *= _CHROMA
    return cv2.GaussianBlur(lab, (0, 0), _BLUR)


def fine_patch(image: np.ndarray, quad: np.ndarray, pad: int = FINE_PAD) -> np.ndarray:
    """The top face in ``quad`` at ``FINE`` px, with ``pad`` px more all round for the shift search.

    Args:
        image: (H, W, 3) uint8 BGR.
        quad: (4, 2) float px, clockwise, corner 0 becoming the patch's top-left.
        pad: extra px on every side.

    Returns:
        (FINE + 2·pad, FINE + 2·pad, 3) float32 Lab (a, b weighted), lightly blurred.
    """
    n = FINE + 2 * pad
    h = cv2.getPerspectiveTransform(np.asarray(quad, np.float32), 2 * _dst(pad))
    big = cv2.warpPerspective(image, h, (2 * n, 2 * n), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return _lab(cv2.resize(big, (n, n), interpolation=cv2.INTER_AREA))


def turned_templates(template: np.ndarray) -> list[np.ndarray]:
    """One face's clean fine template in its four quarter turns (counter-clockwise, as
    :func:`numpy.rot90`), each at the ``FINE_ANGLES`` small turns and ``FINE_SCALES``: 4 arrays
    of (len(FINE_ANGLES) · len(FINE_SCALES), FINE, FINE, 3) float32."""
    out = []
    c = ((FINE - 1) / 2.0, (FINE - 1) / 2.0)
    for k in range(4):
        t = np.ascontiguousarray(np.rot90(template, k, axes=(0, 1)))
        out.append(np.stack([t if a == 0 and s == 1.0 else
                             cv2.warpAffine(t, cv2.getRotationMatrix2D(c, a, s), (FINE, FINE), flags=cv2.INTER_LINEAR,
                                            borderMode=cv2.BORDER_REPLICATE)
                             for a in FINE_ANGLES for s in FINE_SCALES]))
    return out


class FineQuery:
    """A padded fine query (:func:`fine_patch`) made ready for the close look at several faces:
    its window at every shift as a row, and each window's spread, made once. The close look at a
    face is then one matrix product with that face's :func:`template_bank` (a query is looked at
    against one to three faces of four scales each: ``cv2.matchTemplate`` would slide over the
    query once per template).

    Args:
        patch: (FINE + 2·p, FINE + 2·p, 3) float32 from :func:`fine_patch` (p ≥ 0).

    Raises:
        ValueError: ``patch`` is not such an array.
    """

    def __init__(self, patch: np.ndarray):
        patch = np.asarray(patch, np.float32)
        if patch.ndim != 3 or patch.shape[2] != 3 or patch.shape[0] != patch.shape[1] or patch.shape[0] < FINE:
            raise ValueError(f"a fine query is a (FINE + 2·pad)² × 3 patch, FINE = {FINE}; got {patch.shape}")
        n = patch.shape[0] - FINE + 1
        # (n, n, 3, FINE, FINE) windows, channel-major as the bank's columns, copied into (n², 3·FINE²) rows.
        win = np.lib.stride_tricks.sliding_window_view(patch, (FINE, FINE), axis=(0, 1))
        self.rows = win.reshape(n * n, 3 * FINE * FINE)
        # Each window's spread about its own channel means, from sums over the window (integral
        # images in float64, as OpenCV's TM_CCOEFF_NORMED normalises).
        s, sq = cv2.integral2(patch, sdepth=cv2.CV_64F, sqdepth=cv2.CV_64F)
        total, squares = _window_sums(s), _window_sums(sq)  # (n, n, 3)
        spread = (squares - total * total / (FINE * FINE)).sum(axis=2).reshape(-1)
        self.norm = np.sqrt(np.maximum(spread, 0.0))


def _window_sums(integral: np.ndarray) -> np.ndarray:
    """(n, n, C) sums over every FINE × FINE window, from an (n + FINE, n + FINE, C) integral image."""
    return integral[FINE:, FINE:] - integral[:-FINE, FINE:] - integral[FINE:, :-FINE] + integral[:-FINE, :-FINE]


def template_bank(templates: np.ndarray) -> np.ndarray:
    """(n, FINE, FINE, 3) float32 templates (one face's, one turn: :func:`turned_templates`) →
    (3·FINE², n) float32 columns, channel-major, each made zero-mean per channel and of unit length
    (a flat template gives a zero column, which correlates 0 with everything)."""
    t = np.ascontiguousarray(np.asarray(templates, np.float32).transpose(0, 3, 1, 2)).reshape(len(templates), 3, -1)
    t = (t - t.mean(axis=2, keepdims=True)).reshape(len(templates), -1)
    t /= np.maximum(np.linalg.norm(t, axis=1, keepdims=True), 1e-6)
    return np.ascontiguousarray(t.T)


def aligned_score(query: np.ndarray | FineQuery, bank: np.ndarray) -> float:
    """Best normalised correlation of a padded fine query with any of a face's templates at any shift.

    The zero-normalised cross-correlation over every shift, as ``cv2.matchTemplate``
    ``TM_CCOEFF_NORMED`` gives for 3-channel images (each channel's mean taken out of template and
    window, the sums over all three): the product of a window with a zero-mean template is that of
    the zero-mean window, so the windows need only their spread (:class:`FineQuery`). Equal to
    OpenCV's to float rounding (about 1e-6).

    Args:
        query: (FINE + 2·FINE_PAD, FINE + 2·FINE_PAD, 3) float32 from :func:`fine_patch`, or its
            :class:`FineQuery` (made once for several faces).
        bank: (3·FINE², n) float32 from :func:`template_bank`.

    Returns:
        The best correlation, −1..1 (0 for a flat window, as OpenCV).
    """
    q = query if isinstance(query, FineQuery) else FineQuery(query)
    num = q.rows @ bank  # (shifts, n)
    den = q.norm[:, None]
    r = np.divide(num, den, out=np.zeros(num.shape, np.float64), where=den > 1e-6)
    return float(np.clip(r.max(), -1.0, 1.0))


__all__ = [
    "FINE", "FINE_ANGLES", "FINE_PAD", "FINE_SCALES", "FineQuery", "aligned_score", "fine_patch", "template_bank",
    "turned_templates",
]
