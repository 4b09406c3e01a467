"""A cheap first look at the window search's card-sized windows (:mod:`companion.vision.card_search`).

The window search scores hundreds of windows per photo with the deck's quick score (ZNCC of a
window's descriptor against each label's centroid, :meth:`companion.vision.deck.Deck.match`); each
costs a warp of the window to a 60 × 86 patch and its descriptor. This module gives every window
an estimate of it instead, at about a fifth of the work per window (measured; a sixteenth of the
pixels): the descriptor on a 15 × 22 grid of 2 × 2 blocks of the 30 × 43 patch (the
block means, sampled from a copy of the photo reduced to about a patch pixel per pixel and smoothed
over about a block), against the block means of the label centroids. Both are the descriptor's
projection onto block-constant patches, so the estimate is the ZNCC of the two projections: it
leaves out the finer detail, which the centroids (means of a label's templates) hold little of.

All windows of a photo are sampled in one ``cv2.remap`` call, with no warp per window. The
estimate differs from the quick score by at most ``SCREEN_MARGIN`` on the windows of the tuning
photos (loose scenes of two card styles, the mat frame, symbol boards, real photos; nearly all
within 0.05). The window search (:func:`companion.vision.card_search.search_cards`) picks its
seeds and runs its compass search on the estimate; only where a seed's search ends is read in
full, so a card is still named by the deck's full reading alone. No slack is added to the seeds'
cuts: an estimate low by up to the margin could cost a seed, so a card (never a wrong name); on the
tuning and held-out scenes no card was lost.
With ``blur`` the windows and the centroids are both blurred first (:class:`Screen`): the ZNCC of
the cards' layouts, which the window search seeds and climbs on (``LAYOUT_BLUR`` in
:mod:`companion.vision.card_search`), since a face that is a fine repeating print has a quick score
peaked within a few px and again a print period off.
"""

from __future__ import annotations

import cv2
import numpy as np

from companion.vision.deck import _CHROMA_WEIGHT, _DST2, _MASK, PATCH_H, PATCH_W, white_balance

#: The grid: 2 × 2 blocks of the 30 × 43 patch; the last row holds the patch's row 42 alone.
GRID_W, GRID_H = (PATCH_W + 1) // 2, (PATCH_H + 1) // 2
#: The estimate is within this (ZNCC) of the deck's quick score on every window of the tuning
#: photos (largest difference seen 0.115, on a real photo's window far under the threshold; on
#: windows within 0.25 of it 0.10; 99 % of windows within 0.03).
SCREEN_MARGIN = 0.12
#: Smoothing (px of the reduced copy, about a patch pixel) before the block centres are sampled:
#: the patch's own 2:1 reduction and blur, and the 2 × 2 block.
_SIGMA = 1.0
# Windows per cv2.remap call: a map row each, under OpenCV's SHRT_MAX (32767) rows; as many as
# when a window took GRID_H rows (the batches, and so the float sums over them, stay as they were).
_REMAP_WINDOWS = 32767 // ((PATCH_H + 1) // 2)

_ROWS = [np.arange(2 * i, min(2 * i + 2, PATCH_H)) for i in range(GRID_H)]
# Block centres in patch px, and in the 2× patch the windows are warped to (px k of the patch is
# the mean of 2× px 2k and 2k + 1, centred at 2k + 0.5).
_X2 = 2.0 * (2.0 * np.arange(GRID_W) + 0.5) + 0.5
_Y2 = 2.0 * np.array([r.mean() for r in _ROWS]) + 0.5


# 2× patch px → photo px: a window is a rectangle, so the map is affine (corners 0, 1, 3); each
# block centre's fraction of the way along the window's top side and down its left side.
_ALONG = ((_X2 - _DST2[0, 0]) / (_DST2[1, 0] - _DST2[0, 0])).astype(np.float32)[None, None, :]  # (1, 1, GW)
_DOWN = ((_Y2 - _DST2[0, 1]) / (_DST2[3, 1] - _DST2[0, 1])).astype(np.float32)[None, :, None]  # (1, GH, 1)


def _block_sum(a: np.ndarray) -> np.ndarray:
    """(..., PATCH_H, PATCH_W) → (..., GRID_H, GRID_W): sums over each block."""
    a = np.asarray(a, np.float64)
    rows = 2 * GRID_H - a.shape[-2]
    pad = np.concatenate([a, np.zeros(a.shape[:-2] + (rows, a.shape[-1]))], axis=-2)
    return pad.reshape(a.shape[:-2] + (GRID_H, 2, GRID_W, 2)).sum(axis=(-3, -1))


_BLOCK_PX = _block_sum(np.ones((PATCH_H, PATCH_W)))  # pixels per block (4, or 2 on the last row)
_MASK_PX = _block_sum(_MASK)  # of them, those the descriptor counts (not in a rounded corner)
_MASK_MEAN = (_MASK_PX / _MASK_PX.sum()).reshape(1, -1).astype(np.float32)
# A block's mean weight per channel (mask × chroma weight), (B, 3), as describe's _MASK_WEIGHT.
_WEIGHT = ((_MASK_PX / _BLOCK_PX).reshape(-1, 1) * np.array([1.0, _CHROMA_WEIGHT, _CHROMA_WEIGHT])).astype(np.float32)
# Each block value counts for its pixels in a descriptor-space dot product: (3·B,), channel by channel.
_PX3 = np.tile(_BLOCK_PX.ravel(), 3).astype(np.float32)


# _WEIGHT for OpenCV's 8-bit Lab, whose L runs to 255 for CIE's 100.
_WEIGHT_8BIT = (_WEIGHT * np.array([100.0 / 255.0, 1.0, 1.0])).astype(np.float32)
_WEIGHT_8BIT_T = np.ascontiguousarray(_WEIGHT_8BIT.T)  # (3, B)


def _bank(deck, blur: float = 0.0) -> np.ndarray:
    """(3·B, 2L) float32: the block means of the deck's quick-score centroids (both ways up),
    each weighted by its block's pixels, so that ``u @ bank`` is the descriptor-space dot product
    of a block-constant descriptor ``u`` with the centroids. Made once per deck (and ``blur``).

    With ``blur`` (patch px, > 0) the centroids are first blurred so (each channel, Gaussian) and
    each column is made a unit, zero-mean block descriptor again, as a window's ``u`` is: ``u @
    bank`` is then the ZNCC of the two blurred projections (see :class:`Screen`)."""
    cache = getattr(deck, "_screen_banks", None)
    if cache is None or cache[0] is not deck._quick:
        cache = (deck._quick, {})
        deck._screen_banks = cache
    if blur in cache[1]:
        return cache[1][blur]
    cent = deck._quick.T.reshape(-1, 3, PATCH_H, PATCH_W)  # (2L, 3, H, W)
    if blur > 0:
        cent = np.stack([cv2.GaussianBlur(np.ascontiguousarray(c, np.float32), (0, 0), blur)
                         for c in cent.reshape(-1, PATCH_H, PATCH_W)]).reshape(cent.shape)
    means = _block_sum(cent) / _BLOCK_PX
    if blur > 0:
        # Centred and weighted as a window's block descriptor is (Screen.scores), then of unit length.
        m = means.reshape(len(cent), 3, -1)
        d = (m - (m * _MASK_MEAN.reshape(1, 1, -1)).sum(axis=2, keepdims=True)) * _WEIGHT.T[None]
        d = d.reshape(len(cent), -1)
        means = (d / np.maximum(np.sqrt((d * d) @ _PX3), 1e-6)[:, None]).reshape(means.shape)
    bank = np.ascontiguousarray((means * _BLOCK_PX).reshape(len(cent), -1).T, dtype=np.float32)
    cache[1][blur] = bank
    return bank


class Screen:
    """The cheap estimate of the deck's quick score for windows of one photo.

    Args:
        image: (H, W, 3) uint8 BGR, the photo.
        deck: the enrolled deck.
        card_w: the card's short side in this photo, px (sets how far the photo is reduced).
        blur: 0 for the estimate of the quick score; else a Gaussian sigma (patch px) by which
            both the windows and the centroids are blurred first: the ZNCC of the cards' layouts,
            blind to print finer than that (see ``LAYOUT_BLUR`` in
            :mod:`companion.vision.card_search`).
    """

    def __init__(self, image: np.ndarray, deck, card_w: float, blur: float = 0.0) -> None:
        self.deck = deck
        self.bank = _bank(deck, blur)
        # Image px per patch px: the card's width spans the patch plus its inset (see _patch_dst).
        per_px = float(card_w) / abs(float(_DST2[1, 0] - _DST2[0, 0])) * 2.0
        self.f = max(1, int(round(per_px)))
        h, w = image.shape[:2]
        small = image if self.f == 1 else cv2.resize(image, (max(1, w // self.f), max(1, h // self.f)),
                                                     interpolation=cv2.INTER_AREA)
        # (patch px → px of ``small``: ``per_px / f``; blurs add in quadrature)
        sigma = _SIGMA if blur <= 0 else float(np.hypot(_SIGMA, blur * per_px / self.f))
        self.small = cv2.GaussianBlur(small, (0, 0), sigma)

    def scores(self, quads: np.ndarray, without: int | None = None) -> np.ndarray:
        """(N,) float: the estimated quick score of each window.

        Args:
            quads: (N, 4, 2) corners of rectangular windows, any order (ordered as
                :func:`companion.vision.deck.classify_quads` orders them).
            without: a label index (``deck.labels``) left out of the best-of-labels maximum (both
                ways up), so a climb on these scores looks for any *other* card there (stop 48,
                ``card_search._turned_rival``); None: every label.
        """
        from companion.vision.cards import order_quads

        q = order_quads(np.asarray(quads, np.float32).reshape(-1, 4, 2))
        n = len(q)
        if n == 0:
            return np.zeros(0)
        if n > _REMAP_WINDOWS:
            # cv2.remap takes maps of at most SHRT_MAX rows: a photo with many windows (a big
            # card guess over a cluttered scene) is scored in runs of windows.
            return np.concatenate([self.scores(q[i:i + _REMAP_WINDOWS], without) for i in range(0, n, _REMAP_WINDOWS)])
        a, b = _ALONG, _DOWN
        # Straight into the reduced copy's px: p → (p + 0.5) / f − 0.5.
        k = np.float32(1.0 / self.f)
        o, along, down = (q[:, 0] + 0.5) * k - 0.5, (q[:, 1] - q[:, 0]) * k, (q[:, 3] - q[:, 0]) * k  # (N, 2)
        # One map row per window: remap reads each output pixel at its own map entry, so the
        # layout changes no pixel, and OpenCV's row blocks cost less on rows 22 times as long.
        maps = [(o[:, i, None, None] + along[:, i, None, None] * a + down[:, i, None, None] * b).reshape(n, GRID_H * GRID_W)
                for i in (0, 1)]
        px = cv2.remap(self.small, maps[0], maps[1], cv2.INTER_LINEAR,
                       borderMode=cv2.BORDER_REPLICATE).reshape(n, GRID_H, GRID_W, 3)
        rgb = px
        if self.deck.balanced:
            # White-balanced and rounded back to 8 bits (in place: the balanced copy is this call's own).
            rgb = white_balance(px)
            rgb = np.round(rgb, out=rgb).astype(np.uint8)
        # 8-bit Lab (a table look-up; the float conversion costs five times more): L × 255/100 and
        # a, b + 128. The offsets cancel in the zero mean, the scale is in _WEIGHT_8BIT.
        lab = cv2.cvtColor(rgb.reshape(n * GRID_H, GRID_W, 3), cv2.COLOR_BGR2Lab)
        lab = lab.reshape(n, GRID_H * GRID_W, 3).astype(np.float32)
        # (N, 3·B) channel by channel; the channels laid out first, as deck.describe does (same values).
        mean = np.matmul(_MASK_MEAN, lab).transpose(0, 2, 1)  # (N, 3, 1)
        d = ((np.ascontiguousarray(lab.transpose(0, 2, 1)) - mean) * _WEIGHT_8BIT_T).reshape(n, -1)
        norm = np.sqrt((d * d) @ _PX3)
        u = d / np.maximum(norm, 1e-6)[:, None]
        per = u @ self.bank  # (N, 2L): label l upright at column l, turned at L + l
        if without is not None:
            half = per.shape[1] // 2
            per[:, [without, half + without]] = -np.inf
        return per.max(axis=1).astype(np.float64)
