"""Local features for face cards: SIFT keypoints matched between a card and enrolled examples.

A face card's art (jack, queen, king) is detailed and differs between ranks and suits, but a webcam's
view of it often correlates under the deck's whole-card threshold (issue #6: 0.55-0.68 against about
0.72), and the mark count cannot judge it (:meth:`companion.vision.deck.Deck.judges_marks`). Its
local features still match: many SIFT keypoints of the card's face find their counterpart on one
example of its rank, and the matches agree on one homography that carries the example's outline
onto the card's.

* Keypoints and descriptors: SIFT (D. G. Lowe, "Distinctive Image Features from Scale-Invariant
  Keypoints", IJCV 60(2), 2004; ``cv2.SIFT_create``, OpenCV docs "Introduction to SIFT").
* Matching: each card descriptor's two nearest neighbours (L2) *within one example*, kept when the
  nearest is under ``ratio`` times the second (Lowe 2004 §7.1, the ratio test, 0.8 there; 0.75 in
  OpenCV's tutorial "Feature Matching"). :func:`ratio_matches` does this for all examples in one
  matrix product (pooled), with the same meaning as one ``cv2.BFMatcher.knnMatch(k=2)`` per example
  (:func:`ratio_matches_reference`, kept as the reference the tests compare it with).
* Geometry: ``cv2.findHomography`` with RANSAC (OpenCV docs, "Feature Matching + Homography to find
  Objects"): the inliers are the matches that agree on one plane-to-plane mapping.

cv2 is imported where it is used, as the rest of the vision modules do for their optional paths.
"""

from __future__ import annotations

import numpy as np

#: Descriptor length of SIFT (4 × 4 cells × 8 orientations).
SIFT_DIM = 128


def sift_features(grey: np.ndarray, most: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """SIFT keypoints of one grey picture.

    Args:
        grey: (H, W) uint8.
        most: keep at most this many keypoints, the strongest (SIFT's ``nfeatures``: by their
            contrast response); 0 keeps all.

    Returns:
        ``(points, descriptors)``: (N, 2) float32 keypoint positions (x, y) px, and (N, 128) float32
        descriptors (OpenCV's SIFT, values 0..255 before its own normalisation). N may be 0.

    Raises:
        ValueError: ``grey`` is not a 2-D uint8 array.
    """
    import cv2

    grey = np.asarray(grey)
    if grey.ndim != 2 or grey.dtype != np.uint8:
        raise ValueError(f"expected an (H, W) uint8 grey picture, got {grey.dtype} {grey.shape}")
    kps, desc = _sift(int(most)).detectAndCompute(grey, None)
    if desc is None or not kps:
        return np.zeros((0, 2), np.float32), np.zeros((0, SIFT_DIM), np.float32)
    return np.array([k.pt for k in kps], np.float32).reshape(-1, 2), np.asarray(desc, np.float32)


_SIFT: dict = {}


def _sift(most: int = 0):
    if most not in _SIFT:
        import cv2

        _SIFT[most] = cv2.SIFT_create(nfeatures=most)
    return _SIFT[most]


def ratio_matches(query: np.ndarray, banks: list[np.ndarray], ratio: float) -> list[tuple[np.ndarray, np.ndarray]]:
    """Lowe's ratio test of every query descriptor against each bank, all banks in one product.

    For bank ``e`` and query descriptor ``i``, the two nearest descriptors of bank ``e`` (L2) are
    found; the match (i, nearest) is kept when ``d1 < ratio · d2``. A bank with fewer than two
    descriptors gives no match (no second neighbour to compare with). This is what one
    ``cv2.BFMatcher(cv2.NORM_L2).knnMatch(query, bank, k=2)`` per bank followed by the ratio test
    gives (:func:`ratio_matches_reference`): the squared distances to all banks come from one matrix
    product, the two nearest are picked within each bank's own columns (a neighbour is never taken
    from another bank), and the two kept are measured again exactly (a difference, not the product's
    expansion) before the test.

    Args:
        query: (N, 128) float32 descriptors of the card.
        banks: per example, (K_e, 128) float32 descriptors.
        ratio: Lowe's ratio, 0 < ratio < 1.

    Returns:
        Per bank, ``(query_idx, bank_idx)``: two (G,) int64 arrays of the kept matches.
    """
    n, e = len(query), len(banks)
    empty = (np.zeros(0, np.int64), np.zeros(0, np.int64))
    if n == 0 or e == 0:
        return [empty] * e
    q = np.asarray(query, np.float32)
    banks = [np.asarray(b, np.float32).reshape(-1, SIFT_DIM) for b in banks]
    flat = np.concatenate(banks)
    # One product for all banks: squared L2 distances, |q|² + |b|² − 2 q·b.
    d2 = (q * q).sum(axis=1)[:, None] + (flat * flat).sum(axis=1)[None, :] - 2.0 * (q @ flat.T)  # (N, T)
    out = []
    start = 0
    for b in banks:
        seg = d2[:, start:start + len(b)]
        start += len(b)
        if len(b) < 2:
            out.append(empty)
            continue
        two = np.argpartition(seg, 1, axis=1)[:, :2]  # (N, 2): the two nearest within this bank
        exact = np.sqrt(((b[two] - q[:, None, :]) ** 2).sum(axis=2))  # (N, 2), measured again exactly
        swap = exact[:, 1] < exact[:, 0]  # the product's rounding may order the two the other way
        first = np.where(swap, two[:, 1], two[:, 0])
        d1 = np.where(swap, exact[:, 1], exact[:, 0])
        dn2 = np.where(swap, exact[:, 0], exact[:, 1])
        qi = np.flatnonzero(d1 < ratio * dn2)
        out.append((qi.astype(np.int64), first[qi].astype(np.int64)))
    return out


def ratio_matches_reference(query: np.ndarray, banks: list[np.ndarray], ratio: float
                            ) -> list[tuple[np.ndarray, np.ndarray]]:
    """:func:`ratio_matches` the plain way: one ``cv2.BFMatcher(cv2.NORM_L2)`` ``knnMatch(k=2)`` per
    bank, then Lowe's ratio test (OpenCV tutorial "Feature Matching"). Same arguments and result;
    kept for the tests that check the pooled version names what this one names."""
    import cv2

    out = []
    for b in banks:
        qi, bi = [], []
        if len(query) and len(b) >= 2:
            for pair in cv2.BFMatcher(cv2.NORM_L2).knnMatch(np.asarray(query, np.float32),
                                                            np.asarray(b, np.float32), k=2):
                if len(pair) == 2 and pair[0].distance < ratio * pair[1].distance:
                    qi.append(pair[0].queryIdx)
                    bi.append(pair[0].trainIdx)
        out.append((np.array(qi, np.int64), np.array(bi, np.int64)))
    return out


def homography_inliers(src: np.ndarray, dst: np.ndarray, reproj_px: float) -> tuple[np.ndarray | None, int]:
    """``cv2.findHomography(src, dst, cv2.RANSAC, reproj_px)``: the (3, 3) float64 homography and its
    inlier count, or (None, 0) where fewer than 4 matches or no homography is found.

    Args:
        src, dst: (G, 2) float32 matched points, px.
        reproj_px: RANSAC's reprojection error bound, px.
    """
    import cv2

    if len(src) < 4:
        return None, 0
    h, mask = cv2.findHomography(np.asarray(src, np.float32).reshape(-1, 1, 2),
                                 np.asarray(dst, np.float32).reshape(-1, 1, 2), cv2.RANSAC, reproj_px)
    if h is None or mask is None:
        return None, 0
    return h, int(mask.sum())
