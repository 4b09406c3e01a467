"""The close look at one die's top face: where two faces are alike, or a face is not sure.

The whole-face descriptor of :mod:`companion.vision.dice_faces` is small (24 px) and its quad may
be a pixel or two off, so faces that differ in one icon (``maki*2`` and ``maki*3``) or in a small
mark (a salmon or a squid topping) can score alike, and a face the user never enrolled can score
nearly as well as an enrolled face it resembles. So the uncertain dice are looked at again: at
``FINE`` px, the query aligned to each candidate face's own clean art by the best shift
(± ``FINE_PAD`` px, ``cv2.matchTemplate``, normalised correlation coefficient) and scale
(``FINE_SCALES``; small turns, ``FINE_ANGLES``, can be tried too: a found square's turn is
good to a degree or two). Aligned, a face matches its own art closely
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


def aligned_score(query: np.ndarray, templates: np.ndarray) -> float:
    """Best normalised correlation of a padded fine query with any of ``templates`` at any shift.

    Args:
        query: (FINE + 2·FINE_PAD, FINE + 2·FINE_PAD, 3) float32 from :func:`fine_patch`.
        templates: (n, FINE, FINE, 3) float32 (one face's, one turn: :func:`turned_templates`).

    Returns:
        The best ``TM_CCOEFF_NORMED`` value, −1..1.
    """
    return max(float(cv2.matchTemplate(query, t, cv2.TM_CCOEFF_NORMED).max()) for t in templates)


__all__ = ["FINE", "FINE_ANGLES", "FINE_PAD", "FINE_SCALES", "aligned_score", "fine_patch", "turned_templates"]
