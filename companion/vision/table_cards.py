"""Reading the cards on the mat from frame to frame: what changed is where to look.

A single photo of a card as pale as the mat, lying a few mm from its neighbour, is hard to cut
out (:mod:`companion.vision.mat_cards` finds cards by how they differ from the mat). A game is
not a single photo: between two reveals only a few cards arrive or leave, and everything else
lies exactly where it lay. :class:`CardTracker` uses that.

1. Each frame is rectified onto the mat (``CHANGE_PX_PER_MM``, blurred against sensor noise) and
   compared with the last *accepted* frame: pixels whose Lab colour moved by more than
   ``CHANGE_MIN`` (and more than ``CHANGE_NOISE`` × the frame's median change, for light that
   drifts) are *changed*, cleaned by an opening and a closing (image differencing: R. J. Radke et
   al., "Image change detection algorithms: a systematic survey", IEEE TIP 14(3), 2005, §2–3).
   Working in mat coordinates makes this independent of where the camera is.
2. A card kept from the last frame whose rectangle changed over at most ``DISTURBED_MM2`` has not
   moved: it keeps its place and its name (*stable labels*). If no pixel of it changed it is not
   even read again; if a few did, it is re-read where it lies and takes a new name only if that
   name beats the kept one by ``RELABEL_MARGIN`` (or is its look-alike, told apart where the two
   differ: one maki swapped for another in the same place changes only a corner mark).
3. Every changed blob not explained by the last frame's cards is covered by card-sized windows
   (``WINDOW_STEP_MM`` apart, the zone's way round, at the blob's own turn if it is card-shaped,
   else square to the mat, centred in a zone), and every place a card has just left gets a few
   windows of its own (so do the places of the cards a round's end cleared,
   :meth:`CardTracker.clear`, until the next accepted frame). The deck scores all of them in one
   batch against its label centroids; the best become seeds (and each card-sized blob's best window, however it reads: a card of thin
   line art reads low a few mm off; in a blob longer than a card, ``LONG_BLOB``, also the window on
   most of its change), refined side by side by a compass search (``REFINE_STEPS_MM``) that ends
   with one window at the peak of a parabola through its last scores. The refined windows are
   taken strongest first, none overlapping a kept card by more than ``OVERLAP_MAX``
   (greedy non-maximum suppression), each on changed pixels (``COVERED_MIN``, or ``COVERED_OF_CARD``
   of what in it differs from the bare mat: a card as pale as the mat changes it only where its
   art is; or holding ``BLOB_HELD`` of the blob it was found in; unless a card lay there before)
   and not on bare mat (``NOT_BARE_MIN``; ``NOT_BARE_CHANGED`` where no card lay and most of it
   changed, if some of its art shows and its outline is backed by edges, ``NOT_BARE_ART``), both
   counted over its own part (what no card already
   taken lies on: a neighbour's strip inside a window is the neighbour's, so the bare mat a card
   has just left, beside a new card, is not a card); each
   is snapped to the card's own edges and read in full, look-alike stage included (one whose
   window's turn is not the card's own and reads weakly is first read turned 15°, 30° and 45° each
   way and turned to the best where that reads better, ``TURN_WIDE_DEG``, or, where none does in
   place, turned and moved by the compass search to the best, and is then named only
   ``TURN_WIDE_MARGIN`` over the threshold, and under ``TURN_WIDE_BELOW`` only where its outline's
   sides are backed by the card's own edges; one that reads "unknown" or too weakly is moved and
   turned a little to where it reads best, ``TURN_STEPS``, and read again), and kept if it beats the deck's threshold by ``WINDOW_MARGIN`` (it was the
   best of many tries); last, the cards found are read a period of repeated art away
   (``PEAK_SHIFTS_MM``) and moved where their label reads better (the compass search stays on the
   peak it starts on). The deck's templates thus say where a new card lies, and two new cards
   side by side come out as two. A card-sized blob in which nothing reads as enrolled is one
   ``"unknown"`` card: the player put down something the deck does not know, and the game must
   say so rather than see nothing.
4. The first frame (nothing accepted yet), and a frame that changed over more than
   ``REREAD_ALL`` of the zones (the camera or the light moved), are read afresh: the mat-aware
   finder (:func:`companion.vision.mat_cards.read_cards_on_mat`), its cards refined as in 3, plus
   the window search of 3 over whatever differs from the bare mat.

The caller (the game) decides whether a frame's reading stands: :meth:`CardTracker.read` returns a
:class:`Sighting` and changes nothing; :meth:`CardTracker.accept` makes it the new reference. A
refused turn therefore leaves the tracker exactly as it was.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field, replace

import cv2
import numpy as np

from companion.rules.sushi_go.cards import UNKNOWN
from companion.vision.blas import one_blas_thread
from companion.vision.cards import pixels_in
from companion.vision.mat_layout import MatLayout
from companion.vision.observations import CardObservation

#: Resolution (px per mat mm) of the change map. A 3 mm gap is 3 px.
CHANGE_PX_PER_MM = 1.0
#: Lab distance (8-bit units, chroma counted twice) above which a pixel changed.
CHANGE_MIN = 14.0
#: ... and above this multiple of the frame's median distance (noise, a slight change of light).
CHANGE_NOISE = 4.0
#: A kept card whose rectangle changed over more than this many mm² was moved, covered, taken or
#: swapped (a look-alike swapped in its place differs only in a small mark).
DISTURBED_MM2 = 12.0
#: Changed blobs smaller than this fraction of a card are noise (a speck, a fleck of glare).
BLOB_MIN = 0.08
#: A frame changed over more than this fraction of its zones is read afresh (see the module doc).
REREAD_ALL = 0.5
#: Step (mm) between the coarse windows tried over a changed blob.
WINDOW_STEP_MM = 5.0
#: A coarse window reading this far (ZNCC) below the deck's threshold may still be near a card.
SEED_MARGIN = 0.25
#: A blob of change at least this fraction of a card has its best window refined, however it reads
#: (see ``CardTracker._search``).
BLOB_SEED_MIN = 0.5
#: A blob of change whose rectangle is longer than this many card long sides (or wider than this
#: many short sides) holds more than one card's place: besides its best window, the window holding
#: the most of its points is refined too (see ``CardTracker._search``). A new card laid next to
#: where a card has just gone joins the thin rim of change left round the old card's place; on thin
#: line art (the noir style) the best-reading coarse window lay on that rim (0.38 beside 0.36 on the
#: card itself), and the card was not found (sim_games noir seed 663, 4 players: a salmon nigiri
#: laid above a chopsticks just taken back, one blob 49 × 133 mm).
LONG_BLOB = 1.5
#: The share of such a blob held by a window is counted on at most this many of its points.
LONG_BLOB_POINTS = 600
#: At most this many coarse windows are refined per frame.
MAX_SEEDS = 60
#: A card found by trying many windows must read this much (ZNCC) above the deck's threshold: the
#: best of hundreds of tries at random places can pass a threshold set for one try per card.
WINDOW_MARGIN = 0.1
#: A card found by the window search must lie on changed pixels over this fraction of its own area
#: (the part no card already taken lies on) ...
COVERED_MIN = 0.3
#: ... or over this fraction of what in that part differs from the bare mat: a card whose paper is
#: the mat's own colour changes the mat only where its art is (a watercolour chopsticks: 22-30 % of
#: it), and that art is all of it that is not bare mat.
COVERED_OF_CARD = 0.5
#: ... or it holds at least BLOB_HELD of the blob of change it was found in, and that change is at
#: least HELD_MIN of its own part: a card whose paper is a shade lighter than the mat, about the
#: change threshold, changes the mat only where its art is, and a mat shaded darker round it makes
#: its paper "not bare" while it did not "change" (a watercolour chopsticks, held-out seed 182, 3
#: players: 26 % changed, 41 % of what is not bare). A window that merely touches a blob (a
#: neighbour's shadow, a word of the mat's print) does not hold all of it.
BLOB_HELD, HELD_MIN = 0.9, 0.15
#: ... and that part differs from the bare mat over this fraction of it (a card's paper, even a
#: shade off the mat, does: 64 % there; a coin or a die and its shadow, a blob held whole, does not).
HELD_ON_CARD = 0.4
#: ... and differ from the bare mat over this fraction of its own area ...
NOT_BARE_MIN = 0.15
#: ... unless no card lay there in the last accepted frame (none covered over half of it) and its
#: own part changed over this fraction of it: the mat there was seen bare then, so what changed is
#: the card. The test above is
#: for the mat's own pale print where a card was taken away; a pale card on a mat of its paper's
#: colour differs from the estimated bare mat only where its art is (sim_games airbrush seed 668,
#: 3 players, round 3 turn 9: a chopsticks at the end of a row of nine pale cards, 0.92, its own
#: part 60 % changed but 11 % "not bare"; it was reported "unknown" and the turn refused).
NOT_BARE_CHANGED = 0.5
#: ... and only if at least this fraction of its own part still differs from the bare mat: the
#: card's art shows (the chopsticks above: 0.11). A soft shadow or a patch of light that falls on
#: bare mat changes it just as much but differs from the bare mat nowhere (0.00-0.04), and a pale
#: template can match its smooth ramp (the stop-55 review: a squid nigiri 0.83 and a maki_1 named
#: on such shadows beside a row, watercolour and illustrated). Such a card must also show its own
#: outline once polished (its sides backed by edges, ``CardTracker._edges_backed``): the art share
#: alone still let two soft shadows of 30 through named (watercolour squid nigiri 0.81-0.82,
#: tests/test_table_cards_pale_new.py), a shadow's blurred edge backs no side.
NOT_BARE_ART = 0.06
#: The cards a search finds are also read this far (mm) each way along the mat's axes, in one batch;
#: a shift that reads over PEAK_SLACK better than the card's place is refined, and the card moved
#: there if its label then reads PEAK_GAIN better (``CardTracker._at_best_peaks``): a sashimi's
#: slices repeat about 8 mm apart, and a card found one period off its place read 0.87 there against
#: 0.97 in place (watercolour, held-out seed 201, 2 players). "Its label" there is its label or a
#: look-alike of it: the whole-card match does not tell look-alikes apart, so its label flips among
#: them from window to window (a pale watercolour maki_2 found 9 mm off its place and upside down read
#: maki_3 0.76 there and maki_2 0.95 in place, and was left there undecided: seed 221, 5 players).
PEAK_SHIFTS_MM = (6.0, 9.0)
PEAK_SLACK, PEAK_GAIN = 0.0, 0.02
#: How far (px) a found card's sides may snap to its edges, and how much (ZNCC) its reading may
#: lose by it.
POLISH_PX, POLISH_LOSS = 4.0, 0.02
#: ... and its sides may differ from the card's by this much (mm).
POLISH_SIZE_MM = 1.5
#: Each seed is refined by a compass search (a pattern search along the mat's axes: T. G. Kolda,
#: R. M. Lewis, V. Torczon, "Optimization by direct search: new perspectives on some classical and
#: modern methods", SIAM Review 45(3), 2003): its 4 neighbours at each of these steps (mm), moving
#: to the best, at most REFINE_ROUNDS moves per step; then one window at the peak of a parabola
#: through the last step's scores on each axis (at most half a step away), kept if it reads better.
REFINE_STEPS_MM = (2.5, 1.0)
REFINE_ROUNDS = 4
#: Before a found card is read in full its window is turned and moved a little too, a compass search
#: over (x, y, turn) at these steps (mm, degrees), at most REFINE_ROUNDS moves per step: the windows
#: are tried at a blob's own turn or square to the mat, and a card whose change is only its art (its
#: paper the mat's colour) gives a blob whose turn is not the card's, 10° off. The look-alike stage
#: compares marks of a few px that a few degrees of turn blur away.
TURN_STEPS = ((1.0, 2.0), (0.5, 1.0))
#: Before a found card is read in full, its window is also read turned by each of these (degrees)
#: each way, and turned to the best if that reads over TURN_WIDE_SLACK (ZNCC) better
#: (``CardTracker._turn_wide``; where none does in place, the turned windows are also moved by the
#: search's compass, ``REFINE_STEPS_MM``); TURN_STEPS then close in. A card laid far off square whose blob does
#: not give its turn (a pale card: only its art changes the mat) is otherwise read in a window square
#: to the mat, where the look-alike stage cannot see its marks.
TURN_WIDE_DEG, TURN_WIDE_SLACK = (15.0, 30.0, 45.0), 0.01
#: ... unless its window already reads this well (ZNCC): the sweep costs 6 whole-card reads a card
#: (and its move, where it runs, about 100 more: 30 ms on the bench machine).
TURN_WIDE_BELOW = 0.9
#: A card whose window the sweep turned, or that lies over SQUARE_DEG off square, is named only if
#: it reads this far (ZNCC) over the deck's threshold (twice WINDOW_MARGIN: the sweep is many more
#: tries, and a far-turned card's window is often a few mm off it), else it is "unknown".
TURN_WIDE_MARGIN = 0.2
#: A card-shaped blob is searched at its own turn (``CardTracker._own_turns``): within SQUARE_DEG
#: (degrees) of square if its sides are within a quarter of the card's, beyond it (the windows square
#: to the mat, 30° off a card turned 30°, read a maki_3 as maki_2) only if their ratio is within
#: CARD_FIT of the card's, and beyond DIAGONAL_DEG (folded into [-45°, 45°)) also a quarter round the other way,
#: as the fold cannot tell the two apart.
SQUARE_DEG, CARD_FIT, DIAGONAL_DEG = 15.0, 0.12, 35.0
#: Slack (mm) by which a window may leave a blob's bounding box on either side.
WINDOW_SLACK_MM = 5.0
#: At most this many coarse windows per blob (a larger blob gets sparser windows).
MAX_WINDOWS = 400
#: A reading overlapping a kept card by this fraction of its area is the same card.
OVERLAP_MAX = 0.25
#: A kept card takes a new name only if it scores this much (ZNCC) above the kept name.
RELABEL_MARGIN = 0.05
#: A blob at least this fraction of a card in which nothing reads as enrolled is an unknown card.
UNKNOWN_BLOB = 0.5


@dataclass(frozen=True)
class TrackedCard:
    """One card on the mat as the tracker keeps it.

    label: enrolled label or ``"unknown"``; rect_mm: ``((cx, cy), (w, h), angle)`` in mat mm
    (``cv2.minAreaRect`` convention, angle in degrees); score: the deck's ZNCC for ``label``;
    confidence: the deck's 0..1 confidence; quad: (4, 2) image px, clockwise from the face's
    top-left, as the deck oriented it.
    """

    label: str
    rect_mm: tuple[tuple[float, float], tuple[float, float], float]
    score: float
    confidence: float
    quad: tuple[tuple[float, float], ...]

    def observation(self) -> CardObservation:
        """The card as a :class:`CardObservation` (image px)."""
        return CardObservation(self.label, self.confidence, self.quad)  # type: ignore[arg-type]


@dataclass
class Sighting:
    """One frame's reading: the cards seen, and what the tracker would keep if it is accepted.

    cards: every card seen, in mat order (top to bottom, then left to right).
    rectified: (H, W, 3) uint8 Lab mat image at ``CHANGE_PX_PER_MM``, the next reference.
    fresh: True if the frame was read without comparing (first frame, or changed everywhere).
    """

    cards: list[TrackedCard]
    rectified: np.ndarray = field(repr=False)
    fresh: bool = False

    def observations(self) -> list[CardObservation]:
        """The cards as observations (image px)."""
        return [c.observation() for c in self.cards]


#: The rectified frame's blur (px, a Gaussian's sigma).
RECTIFIED_SIGMA = 0.8
_BLUR_KSIZE: list[tuple[int, int]] = []  # (the kernel size _rectified_lab blurs with, once tested)


def _same_blur(sigma: float, ksize: tuple[int, int]) -> bool:
    """Whether this OpenCV's 8-bit Gaussian blur at ``sigma`` gives the same pixels with kernel size
    ``ksize`` as with the size it picks itself ((0, 0)): tried on lines of several levels in each
    channel (each tap of a fixed-point kernel shows in their blur, at every level) and on a random
    image of the rectified mat's size (594 × 840 px)."""
    probe = np.zeros((48, 48, 3), np.uint8)
    for k, level in enumerate((255, 200, 129, 77, 31, 1)):
        probe[4 + 7 * k, :, k % 3] = level  # a row: its blur down the columns shows each tap
        probe[:, 4 + 7 * k, (k + 1) % 3] = level  # a column: across the rows
    # The random image is the rectified mat's size (840 x 594 at 4 players): an accelerated back-end
    # may choose its algorithm by image size, so the check is made at the size it is used at.
    rand = np.random.default_rng(0).integers(0, 256, (594, 840, 3), dtype=np.uint8)
    return all(np.array_equal(cv2.GaussianBlur(img, (0, 0), sigma), cv2.GaussianBlur(img, ksize, sigma))
               for img in (probe, rand))


def _blur_ksize() -> tuple[int, int]:
    """The kernel size for :func:`_rectified_lab`'s blur: (5, 5) where this OpenCV's 8-bit blur
    at ``RECTIFIED_SIGMA`` gives the same pixels with it as with the size it picks itself (7 taps at
    sigma 0.8; :func:`_same_blur`, asked once per process), else (0, 0) (its own).

    OpenCV blurs 8-bit images bit-exactly with a fixed-point kernel of 8 fractional bits: at sigma
    0.8 the 7-tap kernel's outer taps weigh 0.0004 (0.11 / 256), so they are 0 and the inner five
    are the 5-tap kernel's. The two then give the same pixels, and the shorter costs about a third
    less (3.4 → 2.4 ms on the 840 × 594 mat). A build that blurs otherwise (an approximate
    algorithm hint) fails the test and keeps the size it picks.
    """
    if not _BLUR_KSIZE:
        _BLUR_KSIZE.append((5, 5) if _same_blur(RECTIFIED_SIGMA, (5, 5)) else (0, 0))
    return _BLUR_KSIZE[0]


def _rectified_lab(frame: np.ndarray, homography: np.ndarray, layout: MatLayout) -> np.ndarray:
    """The frame warped onto the mat at ``CHANGE_PX_PER_MM``, blurred by ``RECTIFIED_SIGMA`` and in
    Lab: (H, W, 3) uint8 (OpenCV's 8-bit Lab). ``frame``: (h, w, 3) uint8 BGR; ``homography``:
    (3, 3) image px → mat mm."""
    s = CHANGE_PX_PER_MM
    size = (int(round(layout.width_mm * s)), int(round(layout.height_mm * s)))
    mat = cv2.warpPerspective(frame, np.diag([s, s, 1.0]) @ homography, size, flags=cv2.INTER_AREA)
    return cv2.cvtColor(cv2.GaussianBlur(mat, _blur_ksize(), RECTIFIED_SIGMA), cv2.COLOR_BGR2Lab)


def _zone_mask(layout: MatLayout, shape: tuple[int, int]) -> np.ndarray:
    """(H, W) uint8, 255 in each zone grown by half a card (where cards may lie), except within
    2 mm of a zone's printed outline (a line the mat's own print puts there, not a card)."""
    s = CHANGE_PX_PER_MM
    m = np.zeros(shape, np.uint8)
    grow = max(layout.card_mm) / 2
    for z in layout.zones:
        x, y, w, h = z.rect_mm
        cv2.rectangle(m, (int((x - grow) * s), int((y - grow) * s)), (int((x + w + grow) * s), int((y + h + grow) * s)),
                      255, -1)
    for z in layout.zones:
        x, y, w, h = z.rect_mm
        cv2.rectangle(m, (int(round(x * s)), int(round(y * s))), (int(round((x + w) * s)), int(round((y + h) * s))), 0,
                      max(3, int(round(4 * s))))
    # Nothing beyond the mat's own edge (the table there is no place for a card the camera can rely on).
    edge = max(1, int(round(3 * s)))
    m[:edge], m[-edge:], m[:, :edge], m[:, -edge:] = 0, 0, 0, 0
    return m


#: Lab distance weights (L, a, b): chroma counted twice (see ``CHANGE_MIN``).
_CHANGE_WEIGHTS = np.array([[1.0, 2.0, 2.0]], np.float32)
#: The distance saturates at this in 8 bits (:func:`_change_dist8`): a threshold under it reads the
#: 8-bit distances exactly as the float ones.
_DIST8_MAX = 255.0
#: How far (px) a pixel of :func:`change_mask` depends on the distances round it: its opening
#: (3 × 3: an erosion and a dilation, 1 px each) and closing (5 × 5: 2 px each) reach 6 px.
_MORPH_REACH = 6


def _change_dist(before: np.ndarray, after: np.ndarray) -> np.ndarray:
    """(h, w) float32 weighted Lab distance of two (h, w, 3) uint8 Lab images, pixel by pixel."""
    return cv2.transform(cv2.absdiff(before, after).astype(np.float32), _CHANGE_WEIGHTS)


def _change_dist8(before: np.ndarray, after: np.ndarray) -> np.ndarray:
    """(h, w) uint8: :func:`_change_dist` saturated at 255 (``_DIST8_MAX``). The distance of 8-bit
    images is a whole number, so below 255 the two are the same values; made in 8 bits it costs about
    half as much (no float copy of the frame)."""
    return cv2.transform(cv2.absdiff(before, after), _CHANGE_WEIGHTS)


def _dist_and_level(before: np.ndarray, after: np.ndarray) -> tuple[np.ndarray, float]:
    """The distances of two (h, w, 3) uint8 Lab images and :func:`change_mask`'s threshold for them
    (:func:`_level` of every third pixel of every third row): 8-bit distances (:func:`_change_dist8`)
    where the threshold is under ``_DIST8_MAX``, else float ones (:func:`_change_dist`).

    Exact either way: the median of saturated distances, if under 127.5, is the median of the true
    ones (saturation keeps the order and touches only values of 255 and more, so neither middle value
    was touched), and a pixel over a threshold under 255 is over it saturated too.
    """
    dist = _change_dist8(before, after)
    median = float(np.median(dist[::3, ::3]))
    level = _level_at(median)
    if level >= _DIST8_MAX or median >= _DIST8_MAX / 2:  # (the light changed everywhere): in float
        dist = _change_dist(before, after)
        level = _level(dist[::3, ::3])
    return dist, level


def _change_level(before: np.ndarray, after: np.ndarray) -> float:
    """:func:`change_mask`'s threshold for two images: ``CHANGE_MIN``, or ``CHANGE_NOISE`` × the median
    distance over every third pixel of every third row (a sample is plenty). Only the sampled pixels
    are compared: the distance is worked out pixel by pixel, so the sample's values are the same."""
    # The sample is already every third pixel: its distances in float, all of them (a small image).
    return _level(_change_dist(_every_third(before), _every_third(after)))


def _level(sample: np.ndarray) -> float:
    """The change threshold for a sample of distances (see :func:`_change_level`)."""
    return _level_at(float(np.median(sample)))


def _level_at(median: float) -> float:
    """The change threshold for a sample's median distance: ``CHANGE_MIN``, or ``CHANGE_NOISE`` × it."""
    return max(CHANGE_MIN, CHANGE_NOISE * median)


def _every_third(img: np.ndarray) -> np.ndarray:
    """``img[::3, ::3]`` of an (H, W, 3) uint8 image, contiguous: the rows taken whole and their
    pixels' bytes picked by index (numpy copies a 3-byte pixel stride one byte at a time, 5× slower)."""
    h, w = img.shape[:2]
    cols = (np.arange(0, w, 3)[:, None] * 3 + np.arange(3)).ravel()
    return img.reshape(h, w * 3)[::3].take(cols, axis=1).reshape(-1, len(cols) // 3, 3)


def _changed(dist: np.ndarray, level: float) -> np.ndarray:
    """(h, w) uint8, 255 where ``dist`` is over ``level``, cleaned by an opening and a closing.
    ``dist``: (h, w) float32, or uint8 (:func:`_change_dist8`) if ``level`` is under ``_DIST8_MAX``."""
    if dist.dtype == np.uint8:
        # OpenCV compares 8-bit pixels with the threshold's floor: the same test for whole numbers.
        changed = cv2.threshold(dist, level, 255, cv2.THRESH_BINARY)[1]
    else:
        changed = (dist > level).astype(np.uint8) * 255
    changed = cv2.morphologyEx(changed, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    return cv2.morphologyEx(changed, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))


def change_mask(before: np.ndarray, after: np.ndarray) -> np.ndarray:
    """Where the mat changed between two rectified Lab images: (H, W) uint8, 255 = changed.

    Args:
        before, after: (H, W, 3) uint8 Lab (OpenCV 8-bit scaling), same mat and resolution.
    """
    return _changed(*_dist_and_level(before, after))  # the threshold from a sample: plenty


class _NotBare:
    """Where one rectified frame differs from the bare mat (``change_mask(_bare_mat(lab), lab)``),
    worked out only over the regions asked for (:meth:`at`).

    The window search asks it of the few card-sized windows it tests (some 5 % of the mat), and the
    whole mat's mask cost 3.6 ms a turn. A region is worked out with ``_MORPH_REACH`` px round it
    (clipped to the image, where the whole mask's morphology meets the image's border too) at the
    whole frame's threshold (:func:`_change_level`), so its pixels are the whole mask's.

    Args:
        lab: (H, W, 3) uint8 Lab, the rectified frame.
        full: the whole mask if already made, (H, W) uint8.
    """

    def __init__(self, lab: np.ndarray, full: np.ndarray | None = None) -> None:
        self.lab = lab
        self.mask = full if full is not None else np.zeros(lab.shape[:2], np.uint8)  # (not written where done)
        self.done = np.full(lab.shape[:2], full is not None)
        self._bare: np.ndarray | None = None
        self._level = 0.0

    def at(self, x0: int, y0: int, x1: int, y1: int) -> np.ndarray:
        """The mask over rows y0:y1, columns x0:x1 (clipped px), worked out there if not yet:
        (y1 − y0, x1 − x0) uint8, a view of :attr:`mask`."""
        if not self.done[y0:y1, x0:x1].all():
            if self._bare is None:
                self._bare = _bare_mat(self.lab)
                self._level = _change_level(self._bare, self.lab)
            h, w = self.mask.shape
            r = _MORPH_REACH
            a0, b0, a1, b1 = max(0, x0 - r), max(0, y0 - r), min(w, x1 + r), min(h, y1 + r)
            dist = _change_dist8 if self._level < _DIST8_MAX else _change_dist
            got = _changed(dist(self._bare[b0:b1, a0:a1], self.lab[b0:b1, a0:a1]), self._level)
            self.mask[y0:y1, x0:x1] = got[y0 - b0:y1 - b0, x0 - a0:x1 - a0]
            self.done[y0:y1, x0:x1] = True
        return self.mask[y0:y1, x0:x1]


def _bare_mat(lab: np.ndarray) -> np.ndarray:
    """The bare mat's colour at every pixel of a rectified Lab image, (H, W, 3) uint8: a median
    over windows wider than a card on an 8× reduced image (cards cover less than half of any
    window), scaled back up."""
    small = cv2.resize(lab, None, fx=0.125, fy=0.125, interpolation=cv2.INTER_AREA)
    k = max(3, int(round(80 * CHANGE_PX_PER_MM * 0.125)) | 1)
    bg = cv2.medianBlur(small, k)
    return cv2.resize(bg, (lab.shape[1], lab.shape[0]), interpolation=cv2.INTER_LINEAR)


def _bbox(q: np.ndarray) -> tuple[float, float, float, float]:
    """(x0, y0, x1, y1): the bounding box of a quad (4, 2) as Python floats.

    Taken over the corners as Python floats (each float32 widened exactly, so the same values as
    ``q.min(axis=0)`` and ``q.max(axis=0)``): two numpy reductions cost several times more for 4
    points, and the search's suppression loops ask a few hundred times per turn."""
    (ax, ay), (bx, by), (cx, cy), (dx, dy) = q.tolist()
    return min(ax, bx, cx, dx), min(ay, by, cy, dy), max(ax, bx, cx, dx), max(ay, by, cy, dy)


def _bboxes(quads: np.ndarray) -> list[tuple[float, float, float, float]]:
    """:func:`_bbox` of each quad of an (N, 4, 2) float32 array at once: the same Python floats (the
    least and greatest float32 corner values, widened exactly)."""
    return [tuple(b) for b in np.concatenate([quads.min(axis=1), quads.max(axis=1)], axis=1).tolist()]


class _Quads:
    """Convex quads (mat mm) with their bounding boxes, asked many times whether a quad overlaps
    one of them: the searches' suppression loops ask hundreds of times per frame, and most pairs
    are apart (only their boxes are compared, in plain Python)."""

    def __init__(self, quads=()) -> None:
        self.quads: list[np.ndarray] = []
        self.boxes: list[tuple[float, float, float, float]] = []
        for q in quads:
            self.add(q)

    def add(self, q: np.ndarray, bbox: tuple | None = None) -> None:
        self.quads.append(q)
        self.boxes.append(_bbox(q) if bbox is None else bbox)

    def any_over(self, q: np.ndarray, area: float, bbox: tuple | None = None) -> bool:
        """Whether ``q`` overlaps one of the quads by more than ``area`` (mm²). ``bbox``: ``_bbox(q)``
        if already known (:func:`_bboxes`)."""
        x0, y0, x1, y1 = _bbox(q) if bbox is None else bbox
        for (a0, b0, a1, b1), p in zip(self.boxes, self.quads):
            if x1 <= a0 or a1 <= x0 or y1 <= b0 or b1 <= y0:
                continue
            if float(cv2.intersectConvexConvex(q, p)[0]) > area:
                return True
        return False


class CardTracker:
    """Keeps the cards on one mat from accepted frame to accepted frame (see the module doc).

    Args:
        layout: the mat.
        deck: the enrolled :class:`companion.vision.deck.Deck`.
    """

    def __init__(self, layout: MatLayout, deck) -> None:
        self.layout = layout
        self.deck = deck
        self.cards: list[TrackedCard] = []
        self._reference: np.ndarray | None = None
        self._zones: np.ndarray | None = None
        self._not_bare_for: np.ndarray | None = None
        self._not_bare_mask: np.ndarray | None = None
        self._inv_of: np.ndarray | None = None  # the homography _inverse last inverted, and its inverse
        self._inv: np.ndarray | None = None
        # The cards a round's end cleared (clear): until the next accepted frame they are places
        # where a card lay, as a card that has gone is.
        self._cleared: list[TrackedCard] = []

    def accept(self, sighting: Sighting) -> None:
        """Make a reading the reference for the next frame (the game accepted it)."""
        self.cards = list(sighting.cards)
        self._reference = sighting.rectified
        self._cleared = []

    def clear(self, keep: Collection[str]) -> None:
        """A round's end: the cards whose label is not in ``keep`` leave the table (sushi-go.txt,
        BEFORE STARTING A NEW ROUND: every card but the puddings is discarded).

        They are dropped: none is kept untouched by the next frame, where a new round's first card
        may lie in the very slot and pose of a look-alike just cleared (a maki_2 where a maki_1 lay
        changes only its corner rolls, which the change map does not see, and the old name would
        stay). Until the next accepted frame their places are places where a card lay, as those of
        cards that have gone: tried directly by the window search, a card there not held to cover
        the change (it may change little), and a blob there not an unknown card.

        Args:
            keep: the labels that stay on the table.
        """
        self._cleared += [c for c in self.cards if c.label not in keep]
        self.cards = [c for c in self.cards if c.label in keep]

    # ------------------------------------------------------------------ reading
    def read(self, frame: np.ndarray, homography: np.ndarray) -> Sighting:
        """Read the cards in ``frame``; changes nothing until :meth:`accept`.

        Args:
            frame: (H, W, 3) uint8 BGR.
            homography: (3, 3) image px → mat mm.

        Returns:
            The :class:`Sighting`.
        """
        with one_blas_thread():
            return self._read(frame, homography)

    def _read(self, frame: np.ndarray, homography: np.ndarray) -> Sighting:
        lab = _rectified_lab(frame, homography, self.layout)
        if self._zones is None or self._zones.shape != lab.shape[:2]:
            self._zones = _zone_mask(self.layout, lab.shape[:2])
        if self._reference is None or self._reference.shape != lab.shape:
            return Sighting(self._fresh(frame, homography, lab), lab, fresh=True)
        changed = change_mask(self._reference, lab) & self._zones
        if np.count_nonzero(changed) > REREAD_ALL * np.count_nonzero(self._zones):
            return Sighting(self._fresh(frame, homography, lab), lab, fresh=True)
        kept = self._kept(frame, homography, changed)
        found = self._search(frame, homography, lab, changed, kept)
        return Sighting(_in_mat_order(kept + found), lab)

    def _fresh(self, frame: np.ndarray, homography: np.ndarray, lab: np.ndarray) -> list[TrackedCard]:
        """Read a frame with nothing to compare it with: the mat-aware finder, and the window search
        over whatever differs from the bare mat (its colour estimated where no card lies: a median
        over windows wider than a card), which finds a card too pale for the finder's mask by its
        art. Where both find a card, the better reading wins."""
        from companion.vision.mat_cards import read_cards_on_mat

        obs = read_cards_on_mat(frame, homography, self.layout, self.deck)
        static = []
        if obs:
            seeds = [self._card_rect(cv2.perspectiveTransform(np.array([o.quad], np.float64), homography)[0]
                                     .astype(np.float32)) for o in obs]
            rects, results, who = self._refine(frame, homography, seeds)
            for k, o in enumerate(obs):
                js = [j for j, w in enumerate(who) if w == k]
                best = max(js, key=lambda j: results[j].score)
                if o.label == UNKNOWN and results[best].score < self.deck.threshold:
                    quad_mm = cv2.perspectiveTransform(np.array([o.quad], np.float64), homography)[0]
                    static.append(TrackedCard(UNKNOWN, cv2.minAreaRect(quad_mm.astype(np.float32)),
                                              results[best].score, o.confidence, o.quad))
                else:
                    static.append(self._polish(frame, homography, rects[best], results[best], turn_known=True))
        changed = self._not_bare(lab) & self._zones
        searched = self._search(frame, homography, lab, changed, [], previous=[])
        cw, ch = self.layout.card_mm
        out: list[TrackedCard] = []
        placed = _Quads()
        for c in sorted(static + searched, key=lambda c: (c.label != UNKNOWN, c.score), reverse=True):
            box = cv2.boxPoints(c.rect_mm).astype(np.float32)
            if not placed.any_over(box, OVERLAP_MAX * cw * ch):
                out.append(c)
                placed.add(box)
        return _in_mat_order(out)

    def _kept(self, frame: np.ndarray, homography: np.ndarray, changed: np.ndarray) -> list[TrackedCard]:
        """The previous cards that did not move, re-read where they lie (stable labels)."""
        s = CHANGE_PX_PER_MM
        still, untouched = [], []
        for card in self.cards:
            inside, moved = pixels_in(cv2.boxPoints(card.rect_mm) * s, changed)
            if not inside or moved > DISTURBED_MM2 * s * s:
                continue
            # Not a pixel changed: nothing to read again. A few did: read it again where it lies.
            (untouched if moved == 0 else still).append(card)
        if not still:
            return untouched
        from companion.vision.deck import classify_quads

        corners = np.stack([cv2.boxPoints(c.rect_mm) for c in still]).reshape(-1, 1, 2).astype(np.float64)
        quads = cv2.perspectiveTransform(corners, self._inverse(homography)).reshape(-1, 4, 2).astype(np.float32)
        now = classify_quads(frame, quads, self.deck, card_sized=True)
        lookalikes = {frozenset(p) for p in self.deck.lookalikes()}
        # The untouched cards stay as they were: dropped here, they were searched for afresh as if
        # gone, and one read near the bar (a noir wasabi kept at 0.778) could vanish under it.
        out = list(untouched)
        for i, card in enumerate(still):
            r = now[i]
            own = float(r.scores[self.deck.labels.index(card.label)]) if card.label in self.deck.labels else -1.0
            if r.label == card.label:
                out.append(TrackedCard(card.label, card.rect_mm, r.score, r.confidence, _as_tuple(r.quad)))
            elif r.label != UNKNOWN and (r.score >= own + RELABEL_MARGIN
                                         or (frozenset((r.label, card.label)) in lookalikes and r.score > own)):
                # Clearly another card now (or a look-alike told apart where the two differ: one
                # look-alike swapped for another in the same place changes only a few pixels).
                out.append(TrackedCard(r.label, card.rect_mm, r.score, r.confidence, _as_tuple(r.quad)))
            else:
                out.append(card)
        return out

    def _search(self, frame: np.ndarray, homography: np.ndarray, lab: np.ndarray, changed: np.ndarray,
                kept: list[TrackedCard], previous: list[TrackedCard] | None = None) -> list[TrackedCard]:
        """New cards in the changed blobs (see the module doc, step 3).

        ``previous``: the cards of the last accepted frame (default: the tracker's); their places
        are tried directly where they have gone, and a blob where one lay is not an unknown card.
        With ``previous=[]`` (a fresh read) no blob is reported as an unknown card either: the
        mat-aware finder reports those.
        """
        fresh = previous is not None and not previous
        previous = self.cards + self._cleared if previous is None else previous
        s = CHANGE_PX_PER_MM
        cw, ch = self.layout.card_mm
        card_area = cw * ch
        kept_mm = [cv2.boxPoints(c.rect_mm).astype(np.float32) for c in kept]
        gone = [c for c in previous if not any(k.rect_mm == c.rect_mm for k in kept)]
        # The change not explained by the cards of the last frame: a new card's shadow reaching
        # under a kept neighbour, or a card laid where none was. Where a card has gone, a new one
        # may lie in its place (a new round's first card in the same slot): those places are
        # tried directly, a few mm either way, rather than tiled.
        free = changed.copy()
        for c in previous:
            cv2.fillConvexPoly(free, np.round(cv2.boxPoints(c.rect_mm) * s).astype(np.int32), 0)
        # Labelled within the change's bounding box only (the rest of the mat is mostly unchanged).
        ox, oy, ow, oh = cv2.boundingRect(free)
        n, labels, stats = 1, None, None
        if ow and oh:
            n, labels, stats, _ = cv2.connectedComponentsWithStats(free[oy:oy + oh, ox:ox + ow], connectivity=8)
        windows: list[tuple] = []
        owner: list[int] = []
        blobs = []
        blob_pts: list[np.ndarray] = []
        blob_turns: list[set[float]] = []
        for c in gone:
            (x, y), size, angle = c.rect_mm
            for dx, dy in ((0, 0), (-WINDOW_STEP_MM / 2, 0), (WINDOW_STEP_MM / 2, 0), (0, -WINDOW_STEP_MM / 2),
                           (0, WINDOW_STEP_MM / 2)):
                windows.append(((x + dx, y + dy), size, angle))
                owner.append(-1)
        for b in range(1, n):
            if stats[b, cv2.CC_STAT_AREA] < BLOB_MIN * card_area * s * s:
                continue
            x, y, w, h = (int(v) for v in stats[b, :4])
            ys, xs = np.nonzero(labels[y:y + h, x:x + w] == b)
            pts = np.stack([xs + (x + ox), ys + (y + oy)], axis=1).astype(np.float32) / s
            blob_rect = cv2.minAreaRect(pts)
            rects = self._windows(pts, blob_rect)
            if not rects:
                continue
            blobs.append((len(windows), len(rects), float(len(pts)) / (s * s), blob_rect))
            blob_pts.append(pts)
            # The turns at which its windows were at the blob's own (not square to the mat, which a
            # far-turned blob is searched at too).
            turns = self._own_turns(blob_rect) or set()
            blob_turns.append(turns if len(turns) == 1 else {t for t in turns if t != 0.0})
            windows += rects
            owner += [len(blobs) - 1] * len(rects)
        if not windows:
            return []
        # Every window's corners (mm) and their boxes made once, for the reading and the seed loops.
        boxes = _rect_corners(windows)
        bbs = _bboxes(boxes)
        results = self._classify(frame, homography, windows, boxes)
        scores = [r.score for r in results]
        # Coarse windows that may be near a card: read as enrolled, not far below the threshold.
        seeds: list[int] = []
        seed_boxes = _Quads()
        for i in sorted(range(len(windows)), key=scores.__getitem__, reverse=True):
            r = results[i]
            if r.label == UNKNOWN and r.score < self.deck.threshold - SEED_MARGIN:
                break
            if seed_boxes.any_over(boxes[i], 0.5 * cw * ch, bbs[i]):
                continue
            seeds.append(i)
            seed_boxes.add(boxes[i], bbs[i])
            if len(seeds) >= MAX_SEEDS:
                break
        # A card-sized blob of change is most likely a card just laid: its best window is refined
        # even below the seed cut (one per blob, where no seed lies yet). A card of thin line art
        # (the noir style) reads 0.85 in place but under 0.4 two or three mm off, so the coarse grid
        # (WINDOW_STEP_MM) can miss the cut beside it; the compass search closes in from there, and
        # what it finds must still pass every test below, so no name is given more easily.
        for bi, (start, count, area_mm, blob_rect) in enumerate(blobs):
            if area_mm < BLOB_SEED_MIN * card_area or len(seeds) >= MAX_SEEDS:
                continue
            for i in sorted(range(start, start + count), key=scores.__getitem__, reverse=True):
                if not seed_boxes.any_over(boxes[i], 0.5 * cw * ch, bbs[i]):
                    seeds.append(i)
                    seed_boxes.add(boxes[i], bbs[i])
                    break
            # A blob of more than one card's place (LONG_BLOB): the window on most of its change too.
            # Not on a fresh read, where a row of cards is one blob and no card has just gone. The
            # share is counted on at most LONG_BLOB_POINTS of the blob's points (every k-th): on all
            # of them it cost ~4 ms a window on a 30 000-point blob (the stop-55 review).
            if not fresh and (max(blob_rect[1]) > LONG_BLOB * ch or min(blob_rect[1]) > LONG_BLOB * cw):
                sample = blob_pts[bi][::max(1, len(blob_pts[bi]) // LONG_BLOB_POINTS)]
                i = max(range(start, start + count), key=lambda i: (_share_inside(sample, boxes[i]), scores[i]))
                if len(seeds) < MAX_SEEDS and not seed_boxes.any_over(boxes[i], 0.5 * cw * ch, bbs[i]):
                    seeds.append(i)
                    seed_boxes.add(boxes[i], bbs[i])
        fine, fine_results, who = self._refine(frame, homography, [windows[i] for i in seeds],
                                               [results[i] for i in seeds])
        fine_owner = [owner[seeds[k]] for k in who]
        # Where the cards are is decided by the whole-card match (a look-alike left undecided at one
        # window still marks a card's place); what they are, at the polished place (_polish).
        order = sorted(range(len(fine)), key=lambda i: fine_results[i].score, reverse=True)
        before = _Quads(cv2.boxPoints(c.rect_mm).astype(np.float32) for c in previous)
        taken_mm = _Quads()
        # What a window must account for is its own part: the pixels no card already taken (kept, or
        # found before it) lies on. A window may overlap a neighbour by up to OVERLAP_MAX, and the
        # neighbour's strip inside it is change and "not bare mat" that the neighbour explains: a
        # window over the bare mat a card has just left, next to a new card, is not a card, however
        # well its strip of the neighbour helps it match a template.
        own = np.full(changed.shape, 255, np.uint8)
        own_change = changed.copy()
        # What in a window's own part differs from the bare mat (own_card) is worked out only over
        # the windows tested (_NotBare): its part is "own", so it is the not-bare mask there and
        # "own", whenever it is worked out.
        not_bare = _NotBare(lab, self._not_bare_mask if self._not_bare_for is lab else None)
        own_card = np.zeros(changed.shape, np.uint8)
        card_done = np.zeros(changed.shape, bool)

        def take(quad_mm: np.ndarray) -> None:
            taken_mm.add(quad_mm)
            pts = np.round(quad_mm * s).astype(np.int32)
            for m in (own, own_change, own_card):
                cv2.fillConvexPoly(m, pts, 0)

        def own_card_at(quad_px: np.ndarray) -> None:
            """own_card worked out over a quad's bounding box (px, as pixels_in rounds and clips it)."""
            pts = np.round(quad_px).astype(np.int32)
            hgt, wid = own_card.shape
            x0, y0 = max(0, int(pts[:, 0].min())), max(0, int(pts[:, 1].min()))
            x1, y1 = min(wid, int(pts[:, 0].max()) + 1), min(hgt, int(pts[:, 1].max()) + 1)
            if x1 > x0 and y1 > y0 and not card_done[y0:y1, x0:x1].all():
                own_card[y0:y1, x0:x1] = not_bare.at(x0, y0, x1, y1) & own[y0:y1, x0:x1]
                card_done[y0:y1, x0:x1] = True

        for q in kept_mm:
            take(q)
        out: list[TrackedCard] = []
        found_in = set()
        for i in order:
            r = fine_results[i]
            if r.score < self.deck.threshold:
                break
            box = cv2.boxPoints(fine[i]).astype(np.float32)
            if taken_mm.any_over(box, OVERLAP_MAX * cw * ch):
                continue
            # The card must account for the change it was found in: a window that merely touches a
            # blob (a printed word, a neighbour's shadow) and happens to match is not a card.
            own_card_at(box * s)
            _, inside, on_change, on_card = pixels_in(box * s, own, own_change, own_card)
            if not inside:
                continue
            # (Not where a card lay before: a look-alike, or a card of the same kind, laid in its place
            # changes little.)
            where_one_lay = fine_owner[i] < 0 or before.any_over(box, 0.5 * cw * ch)
            if not where_one_lay and on_change < min(COVERED_MIN * inside, COVERED_OF_CARD * on_card) and not (
                    on_change >= HELD_MIN * inside and on_card >= HELD_ON_CARD * inside
                    and _share_inside(blob_pts[fine_owner[i]], box) >= BLOB_HELD):
                continue
            # ... and must not look like bare mat: where a card was taken away, the mat's own pale
            # print can match a pale card's template.
            pale = on_card < NOT_BARE_MIN * inside
            if pale and (where_one_lay or on_change < NOT_BARE_CHANGED * inside or on_card < NOT_BARE_ART * inside):
                continue
            card = self._polish(frame, homography, fine[i], r,
                                turn_known=fine_owner[i] >= 0 and fine[i][2] in blob_turns[fine_owner[i]])
            if card.score < self.deck.threshold + WINDOW_MARGIN:
                continue
            if pale and not self._edges_backed(frame, card):
                continue  # (NOT_BARE_CHANGED) a card's own outline, not a shadow's soft edge
            take(box)
            found_in.add(fine_owner[i])
            out.append(card)
        if out:
            out = self._at_best_peaks(frame, homography, out, kept_mm)
        # A card-sized blob in which nothing reads as enrolled: an unknown card, unless it is where a
        # card lay before (a card taken away leaves a card-sized change too).
        for bi, (start, count, area_mm, rect) in enumerate(blobs):
            if fresh or bi in found_in or area_mm < UNKNOWN_BLOB * card_area:
                continue
            if before.any_over(cv2.boxPoints(rect).astype(np.float32), 0.5 * card_area):
                continue
            (w, h) = rect[1]
            if max(w, h) > (1.45 * ch) or min(w, h) < 0.5 * cw:
                continue
            box = cv2.boxPoints(rect).astype(np.float32)
            if taken_mm.any_over(box, OVERLAP_MAX * max(w * h, 1.0)):
                continue
            best = max(range(start, start + count), key=lambda i: results[i].score)
            r = results[best]
            out.append(TrackedCard(UNKNOWN, windows[best], r.score, r.confidence, _as_tuple(r.quad)))
        return out

    def _refine(self, frame: np.ndarray, homography: np.ndarray, seeds: list[tuple],
                readings: list | None = None) -> tuple[list, list, list]:
        """Every seed rect refined by a compass search over its place (``REFINE_STEPS_MM``), then
        one window at the peak of a parabola through the last step's scores; the searches of all
        seeds run side by side, one batch of windows per move. A place a search has already read
        is not read again (after a move, one of the new neighbours is the old place), and a place
        two searches reach is read once. ``readings``: the seeds' own readings, if already made.

        Returns:
            (rects tried, their readings, the index of the seed each came from).
        """
        fine: list[tuple] = list(seeds)
        if readings is None:
            readings = self._classify(frame, homography, seeds) if seeds else []
        fine_results: list = list(readings)
        fine_seed: list[int] = list(range(len(seeds)))
        read = {_place(r): j for j, r in enumerate(seeds)}  # place → index in fine of its reading
        tried = {(k, _place(r)) for k, r in enumerate(seeds)}
        best = {k: k for k in range(len(seeds))}  # seed → index of its best rect so far

        def run(moves: dict[int, list[tuple[float, float]]]) -> set[int]:
            """Read the given moves (seed → offsets mm from its best); the seeds that moved."""
            batch, who, new = [], [], []
            for k, offsets in moves.items():
                (x, y), size, angle = fine[best[k]]
                for dx, dy in offsets:
                    rect = ((x + dx, y + dy), size, angle)
                    key = _place(rect)
                    if (k, key) in tried:  # read for this seed already: it did not beat its best
                        continue
                    tried.add((k, key))
                    batch.append(rect)
                    who.append(k)
                    if key not in read:
                        read[key] = -1 - len(new)  # read in this batch
                        new.append(rect)
            if not batch:
                return set()
            res_new = self._classify(frame, homography, new) if new else []
            base = len(fine)
            res = []
            for m, rect in enumerate(batch):
                key = _place(rect)
                j = read[key]
                if j < 0:  # read in this batch: the first rect at this place keeps the reading
                    read[key] = base + m
                    res.append(res_new[-1 - j])
                else:
                    res.append(fine_results[j] if j < base else res[j - base])
            fine.extend(batch)
            fine_results.extend(res)
            fine_seed.extend(who)
            moved = set()
            for m, k in enumerate(who):
                if res[m].score > fine_results[best[k]].score:
                    best[k] = base + m
                    moved.add(k)
            return moved

        for step in REFINE_STEPS_MM:
            compass = [(step, 0.0), (-step, 0.0), (0.0, step), (0.0, -step)]
            active = set(best)
            for _ in range(REFINE_ROUNDS):
                active = run({k: compass for k in active})  # moved: look around its new place again
                if not active:
                    break
        # The peak between the last step's samples: a parabola through the best place and its two
        # neighbours on each axis (where both were read), at most half a step away (and not tried
        # if it is less than 0.1 mm from the best place).
        step = REFINE_STEPS_MM[-1]
        peaks = {}
        for k, j in best.items():
            (x, y), size, angle = fine[j]
            centre = fine_results[j].score
            off = []
            for ax in ((step, 0.0), (0.0, step)):
                lo = read.get(_place(((x - ax[0], y - ax[1]), size, angle)))
                hi = read.get(_place(((x + ax[0], y + ax[1]), size, angle)))
                t = 0.0
                if lo is not None and hi is not None:
                    a, b = fine_results[lo].score, fine_results[hi].score
                    curv = a - 2 * centre + b
                    if curv < 0:
                        t = float(np.clip(0.5 * (a - b) / curv, -0.5, 0.5))
                off.append(t * step)
            if abs(off[0]) + abs(off[1]) >= 0.1:
                peaks[k] = [(off[0], off[1])]
        if peaks:
            run(peaks)
        return fine, fine_results, fine_seed

    def _at_best_peaks(self, frame: np.ndarray, homography: np.ndarray, cards: list[TrackedCard],
                       kept_mm: list[np.ndarray]) -> list[TrackedCard]:
        """The cards just found, each moved to a better place for its label a period of its art
        away where there is one (``PEAK_SHIFTS_MM``): art that repeats (a sashimi's slices) reads
        well one period off its place too, and the compass search, which climbs from where it
        starts, stays on that second peak. All the cards' shifted windows are read in one batch; a
        shift that reads better than the card's place is refined and the card polished there, kept
        if it still has its label or a look-alike of it (:meth:`_kin`: the whole-card match does not
        tell look-alikes apart, and the look-alike stage's name where the card reads better stands,
        as does a name where the card's own place was "unknown"), reads no worse and overlaps no
        other card by over ``OVERLAP_MAX``."""
        rects: list[tuple] = []
        for c in cards:
            (x, y), size, angle = c.rect_mm
            rects.append(c.rect_mm)
            rects += [((x + dx, y + dy), size, angle) for d in PEAK_SHIFTS_MM
                      for dx, dy in ((d, 0.0), (-d, 0.0), (0.0, d), (0.0, -d))]
        res = self._classify(frame, homography, rects)
        per = 1 + 4 * len(PEAK_SHIFTS_MM)
        cw, ch = self.layout.card_mm
        kin = self._kin()
        out = list(cards)
        for n, c in enumerate(cards):
            own = res[n * per]
            alike = kin.get(own.label, {own.label})  # its label, as the whole-card match can tell it
            j = max(range(n * per + 1, (n + 1) * per), key=lambda j: res[j].score)
            if res[j].label not in alike or res[j].score <= own.score + PEAK_SLACK:
                continue
            fine, fine_results, _ = self._refine(frame, homography, [rects[j]], [res[j]])
            b = max(range(len(fine)), key=lambda i: fine_results[i].score)
            if fine_results[b].label not in alike or fine_results[b].score <= own.score + PEAK_GAIN:
                continue
            others = _Quads(kept_mm + [cv2.boxPoints(o.rect_mm).astype(np.float32)
                                       for m, o in enumerate(out) if m != n])
            if others.any_over(cv2.boxPoints(fine[b]).astype(np.float32), OVERLAP_MAX * cw * ch):
                continue
            card = self._polish(frame, homography, fine[b], fine_results[b], turn_known=True)
            # The name the look-alike stage gives where the card reads better stands (a look-alike of
            # the one it had, or one where it was undecided); "unknown" there replaces no name.
            if card.score >= c.score and (card.label == c.label or (
                    card.label in alike and (c.label == UNKNOWN or c.label in alike))):
                out[n] = card
        return out

    def _kin(self) -> dict[str, set[str]]:
        """Each label of a look-alike pair → itself and its look-alikes (``Deck.lookalikes``): the
        labels a whole-card reading does not tell it from. A label not in the map has only itself."""
        kin: dict[str, set[str]] = {}
        for a, b in self.deck.lookalikes():
            kin.setdefault(a, {a}).add(b)
            kin.setdefault(b, {b}).add(a)
        return kin

    def _card_rect(self, quad_mm: np.ndarray) -> tuple:
        """A card-sized rect (mat mm) centred and turned like a found quad (a finder's quad can be a
        shadow's width too large)."""
        (cx, cy), (w, h), angle = cv2.minAreaRect(quad_mm)
        cw, ch = self.layout.card_mm
        return ((cx, cy), (cw, ch) if h >= w else (ch, cw), angle)

    def _polish(self, frame: np.ndarray, homography: np.ndarray, rect: tuple, r,
                turn_known: bool = False) -> TrackedCard:
        """The card found in window ``rect`` (reading ``r``), its sides snapped to the card's own
        edges (:func:`companion.vision.cards.refine_quads`, a few px either way) and read again
        there: a window is placed only as finely as the search's steps, at the turn it was tried
        at, and the look-alike stage compares small marks that a degree or a mm of misplacement
        blurs. The snapped quad is
        used only if its sides are well backed and it reads at least as well.

        A window that may be far off the card's turn is turned to it first (:meth:`_turn_wide`):
        the windows are tried square to the mat where a blob's turn is not the card's (a pale card
        changes the mat only where its art is), and a card laid 30-45° off square, read there, can
        score over the bar as its look-alike (a watercolour maki_2 turned 45° read maki_1 in a
        window 38° off). Not a window whose turn is the card's own (``turn_known``: a card-shaped
        blob's, the finder's outline's), nor one that reads ``TURN_WIDE_BELOW`` or better (windows
        15° and more off their card read 0.85 at most on the drawn decks)."""
        if not turn_known and r.score < TURN_WIDE_BELOW:
            wide, r_wide = self._turn_wide(frame, homography, rect, r)
            if wide is not rect:
                # The window was off the card's turn: what it read there does not count, and what
                # the sweep finds is the best of many more tries, so it must read TURN_WIDE_MARGIN
                # over the bar to be named (a window 7 mm off a watercolour salmon_nigiri turned
                # 45°, read sashimi 0.64 square to the mat, read dumpling 0.68 turned 36°; turned
                # far cards found so read 0.95+).
                rect, r = self._turn(frame, homography, wide, r_wide)
                card = self._named_turned(self._polished(frame, homography, rect, r), swept=True)
                # ... and, unless it reads TURN_WIDE_BELOW or better, be backed by the card's own
                # edges: a swept window that reads well only a few mm off its card is a part of its
                # art matched to another card's (a watercolour dumpling turned 26°, its window 9 mm
                # off and 5° off its turn, read sashimi 0.775, its sides backed 0.75; in place it
                # reads dumpling 0.955, backed 1.0). Cards swept right read 0.95+, some of them not
                # so backed (an illustrated salmon_nigiri turned 30°: 0.961, backed 0.625).
                if card.label != UNKNOWN and card.score < TURN_WIDE_BELOW \
                        and not self._edges_backed(frame, card):
                    return replace(card, label=UNKNOWN, confidence=0.5)
                return card
        return self._named_turned(self._polished(frame, homography, rect, r))

    def _edges_backed(self, frame: np.ndarray, card: TrackedCard) -> bool:
        """Whether a card's outline (its read quad, px) is a card's own: its sides well backed by
        edges within ``POLISH_PX`` (:func:`companion.vision.cards.refine_quads`), as
        :meth:`_polish_at` asks of a snapped outline."""
        from companion.vision.cards import order_quad, refine_quads

        quad = order_quad(np.array(card.quad, np.float32))
        (_, support, _), = refine_quads(frame, [quad], search_px=POLISH_PX)
        return support >= 1.0

    def _named_turned(self, card: TrackedCard, swept: bool = False) -> TrackedCard:
        """``card``, "unknown" (confidence 0.5) where it is named but reads under the deck's
        threshold + ``TURN_WIDE_MARGIN`` and its window was turned by the wide sweep (``swept``) or
        lies over ``SQUARE_DEG`` off square. Where cards lie square to their seat (the simulator's
        ±4°), no window is so turned; a card laid further off is read in a window that is often a
        few mm off it too (a pattern maki_3 turned 45°, its window at its own turn 5.7 mm off, read
        maki_1 0.81: such cards read 0.95+ in place)."""
        a = (card.rect_mm[2] + 45.0) % 90.0 - 45.0
        if card.label != UNKNOWN and (swept or abs(a) > SQUARE_DEG) \
                and card.score < self.deck.threshold + TURN_WIDE_MARGIN:
            return replace(card, label=UNKNOWN, confidence=0.5)
        return card

    def _polished(self, frame: np.ndarray, homography: np.ndarray, rect: tuple, r) -> TrackedCard:
        """:meth:`_polish` after the wide turn: snapped and read in full, and turned a little and read
        again where that reads "unknown" or too weakly."""
        card = self._polish_at(frame, homography, rect, r)
        if card.label != UNKNOWN and card.score >= self.deck.threshold + WINDOW_MARGIN:
            return card
        # Only a card that reads "unknown", or too weakly to be kept, where it was found is turned
        # and read again: the turn search costs up to 48 whole-card reads, half again a turn's time
        # if every card took it.
        turned, r2 = self._turn(frame, homography, rect, r)
        if turned is rect:
            return card
        again = self._polish_at(frame, homography, turned, r2)
        # The turn climbs the best score over all labels: kept only if it names a card and reads at
        # least as well as where the card was found (never a weak name swapped for a weaker one).
        return again if again.label != UNKNOWN and again.score >= card.score else card

    def _polish_at(self, frame: np.ndarray, homography: np.ndarray, rect: tuple, r) -> TrackedCard:
        """:meth:`_polish` for one window, as found (no turn search)."""
        from companion.vision.cards import order_quad, refine_quads
        from companion.vision.deck import classify_quads

        r = classify_quads(frame, [np.array(r.quad, np.float32)], self.deck, card_sized=True)[0]  # with the look-alike stage
        quad = order_quad(np.array(r.quad, np.float32))
        (snapped, support, _), = refine_quads(frame, [quad], search_px=POLISH_PX)
        mm = cv2.perspectiveTransform(np.array([snapped], np.float64), homography)[0].astype(np.float32)
        snapped_rect = cv2.minAreaRect(mm)
        sides = sorted(snapped_rect[1])
        # The outermost step can be a card's shadow: a snapped outline not of the card's size is not it.
        fits = all(abs(a - b) <= POLISH_SIZE_MM for a, b in zip(sides, sorted(self.layout.card_mm)))
        if support >= 1.0 and fits and float(np.abs(snapped - quad).max()) <= 2 * POLISH_PX:
            again = classify_quads(frame, [snapped], self.deck, card_sized=True)[0]
            if again.score >= r.score - POLISH_LOSS:
                return TrackedCard(again.label, snapped_rect, again.score, again.confidence, _as_tuple(again.quad))
        return TrackedCard(r.label, rect, r.score, r.confidence, _as_tuple(r.quad))

    def _turn_wide(self, frame: np.ndarray, homography: np.ndarray, rect: tuple, r) -> tuple:
        """Window ``rect`` (reading ``r``, against label centroids) turned to the best of
        ``TURN_WIDE_DEG`` each way (one batch), if that reads over ``TURN_WIDE_SLACK`` better. A
        window at the card's turn, or within a few degrees of it, reads worse turned 15° or more
        either way (the card's own pixels leave the window), so it stays as it is (returned as the
        same object). A whole sweep, not a climb: a card turned 45° in a window square to the mat
        reads about as well turned 15° either way (0.73 against 0.73), and only near its own
        turn much better.

        Where no turn reads better in place, the turned windows are also moved (:meth:`_refine`, the
        search's compass, all six side by side) and the best taken if it reads over
        ``TURN_WIDE_SLACK`` better and over ``TURN_WIDE_BELOW`` (as a card in its own place reads):
        the window was placed where the card read best square to the mat, and that is not the card's
        centre once it lies far turned (a pale watercolour maki_3 turned 30°, its blob only its art:
        its window 3.8 mm off read maki_1 0.71 square and 0.70 at the card's turn, while the card's
        own place reads maki_3 0.98). Returns (rect, reading)."""
        (x, y), size, angle = rect
        tries = [((x, y), size, angle + d * sign) for d in TURN_WIDE_DEG for sign in (1.0, -1.0)]
        res = self._classify(frame, homography, tries)
        k = max(range(len(tries)), key=lambda k: res[k].score)
        if res[k].score > r.score + TURN_WIDE_SLACK:
            return tries[k], res[k]
        # Only then moved (the sweep's cards that read better in place keep that place): at the
        # card's turn a few mm off, its marks fall beside the window's, and it reads no better than
        # square.
        fine, fine_res, _ = self._refine(frame, homography, tries, res)
        k = max(range(len(fine)), key=lambda k: fine_res[k].score)
        # ... and only to a window that reads over TURN_WIDE_BELOW, as a card in its own place
        # does (the maki_3: 0.985): a move that finds less is not at the card's own place, and leaves
        # the window as it was, where the card may still be named in the usual way. (Taken at the
        # swept card's bar, 0.76, a sashimi turned 44.5° named right 8 mm off, square, was moved to its
        # art's next peak, 9 mm off, read 0.81 there and was made "unknown"; so was a chopsticks.)
        if fine_res[k].score <= max(r.score + TURN_WIDE_SLACK, TURN_WIDE_BELOW):
            return rect, r
        return fine[k], fine_res[k]

    def _turn(self, frame: np.ndarray, homography: np.ndarray, rect: tuple, r) -> tuple:
        """Window ``rect`` (reading ``r``, against label centroids) moved and turned to where it reads
        best: a compass search over (x, y, turn) at ``TURN_STEPS``, its neighbours in one batch per
        move. Returns (rect, reading)."""
        for mm, deg in TURN_STEPS:
            for _ in range(REFINE_ROUNDS):
                (x, y), size, angle = rect
                tries = [((x + mm, y), size, angle), ((x - mm, y), size, angle), ((x, y + mm), size, angle),
                         ((x, y - mm), size, angle), ((x, y), size, angle + deg), ((x, y), size, angle - deg)]
                res = self._classify(frame, homography, tries)
                k = max(range(len(tries)), key=lambda k: res[k].score)
                if res[k].score <= r.score:
                    break
                rect, r = tries[k], res[k]
        return rect, r

    def _not_bare(self, lab: np.ndarray) -> np.ndarray:
        """(H, W) uint8, 255 where the rectified frame differs from the bare mat (cached per frame)."""
        if self._not_bare_for is not lab:
            self._not_bare_for = lab
            self._not_bare_mask = change_mask(_bare_mat(lab), lab)
        return self._not_bare_mask

    def _classify(self, frame: np.ndarray, homography: np.ndarray, rects: list[tuple], boxes: np.ndarray | None = None,
                  quick: bool = True) -> list:
        """The deck's reading of each rect (mat mm), in one batch: against label centroids unless
        ``quick`` is False (the search asks where cards lie; :meth:`_polish` asks what they are).
        ``boxes``: the rects' corners, ``_rect_corners(rects)``, if already made."""
        from companion.vision.deck import classify_quads

        corners = (_rect_corners(rects) if boxes is None else boxes).reshape(-1, 1, 2).astype(np.float64)
        quads = cv2.perspectiveTransform(corners, self._inverse(homography)).reshape(-1, 4, 2).astype(np.float32)
        return classify_quads(frame, quads, self.deck, settle=not quick, quick=quick, card_sized=True)

    def _inverse(self, homography: np.ndarray) -> np.ndarray:
        """``np.linalg.inv(homography)``, made once per homography (a turn asks for it a dozen times,
        and the mat's homography stays the same from frame to frame while the mat does not move).
        Kept with a copy of the homography it was made from, and made again when that differs.

        Returns (3, 3) float64 (a float32 homography is inverted in float64). Raises
        ``numpy.linalg.LinAlgError`` for a singular homography, every time it is asked: the cache
        is set only after the inversion succeeds, so a failed one never leaves a stale inverse."""
        h = np.asarray(homography, np.float64)
        if self._inv_of is None or self._inv_of.shape != h.shape or not np.array_equal(self._inv_of, h):
            inv = np.linalg.inv(h)
            self._inv_of, self._inv = h.copy(), inv
        return self._inv

    def _own_turns(self, rect: tuple) -> set[float] | None:
        """The turns (degrees) at which a blob of change is searched as the card it looks like, from
        its ``cv2.minAreaRect``; None where it is not card-shaped (it is then searched square to the
        mat, and its windows' turn says nothing of the card's).

        A blob of about a card's size and shape is searched at its own turn folded into [-45, 45):
        within ``SQUARE_DEG`` of square whatever its shape within a quarter of the card's sides;
        beyond that only a blob whose sides' ratio is within ``CARD_FIT`` of the card's (a whole card
        turned, its shadow with it: 49 × 69 mm, 1.40; not two pieces of art that happen to span a
        card, 37 × 78 mm at -51° on an ordinary watercolour turn, 2.05, nor a pale card's art alone,
        46 × 53 mm, 1.15, turned 13° off its card's 30°), and beyond ``DIAGONAL_DEG`` a quarter
        round the other way too."""
        cw, ch = self.layout.card_mm
        (bw, bh), ang = rect[1], rect[2]
        # Folded modulo 90 because minAreaRect's range depends on the OpenCV version ((0, 90] in
        # 4.5+, [-90, 0) here): a card turned 3° came as -87° and was searched at 0°, where a noir
        # card's thin lines read 0.04 lower (under the bar).
        a = (ang + 45.0) % 90.0 - 45.0
        short, long_ = min(bw, bh), max(bw, bh)
        if not (0.75 * cw <= short <= 1.25 * cw and 0.75 * ch <= long_ <= 1.25 * ch):
            return None
        if abs(a) <= SQUARE_DEG:
            return {float(round(a, 1))}
        if abs((long_ / short) / (ch / cw) - 1.0) > CARD_FIT:
            return None
        # Square to the mat too, as a blob that is not card-shaped is searched: a pale card's art
        # can span a card's shape at a turn that is not the card's (a watercolour wasabi lying
        # square, its blob turned 22°, read 0.76 there), and the better window wins.
        angles = {float(round(a, 1)), 0.0}
        if abs(a) > DIAGONAL_DEG:
            # Near 45° the fold cannot tell a card turned one way from one turned the other way a
            # quarter round (and laid the other way up): both are tried.
            angles.add(float(round(a - 90.0 * np.sign(a), 1)))
        return angles

    def _windows(self, pts_mm: np.ndarray, rect: tuple) -> list[tuple]:
        """Card-sized rects (mat mm) covering a blob given as its points (N, 2) mm and their
        ``cv2.minAreaRect``, centred in a zone: at the blob's own turn where it is card-shaped
        (:meth:`_own_turns`), else square to the mat."""
        cw, ch = self.layout.card_mm
        angles = self._own_turns(rect) or {0.0}
        out = []
        across = {z.facing % 180 == 90 for z in self.layout.zones}
        for landscape in sorted(across):
            w, h = (ch, cw) if landscape else (cw, ch)
            for angle in sorted(angles):
                c, si = np.cos(np.radians(angle)), np.sin(np.radians(angle))
                # The blob's extent along the window's own axes.
                u = pts_mm[:, 0] * c + pts_mm[:, 1] * si
                v = -pts_mm[:, 0] * si + pts_mm[:, 1] * c
                step = WINDOW_STEP_MM
                us = _centres(float(u.min()), float(u.max()), w, step)
                vs = _centres(float(v.min()), float(v.max()), h, step)
                while len(us) * len(vs) > MAX_WINDOWS:  # a big blob (a whole new table): sparser windows
                    step *= 1.25
                    us = _centres(float(u.min()), float(u.max()), w, step)
                    vs = _centres(float(v.min()), float(v.max()), h, step)
                # Every centre at once, in the loop order (along u, then v): the same float64
                # products and sums as one pair at a time.
                xs = (us[:, None] * c - vs[None, :] * si).ravel()
                ys = (us[:, None] * si + vs[None, :] * c).ravel()
                # A card centred outside every zone is no seat's: the game would only report it.
                keep = self.layout.in_zones(xs, ys)
                out.extend(((x, y), (w, h), angle) for x, y in zip(xs[keep].tolist(), ys[keep].tolist()))
        return out


def _rect_corners(rects: list[tuple]) -> np.ndarray:
    """``cv2.boxPoints`` of each rect ``((cx, cy), (w, h), angle)`` (mat mm), all at once: (N, 4, 2)
    float32, the same values bit for bit (:func:`companion.vision.card_search._quads`). A turn turns
    some 400 rects into corners; one OpenCV call each cost more than the arithmetic."""
    from companion.vision.card_search import _quads

    return _quads(rects)


def _share_inside(pts: np.ndarray, quad: np.ndarray) -> float:
    """The fraction of points (N, 2) that lie inside a convex quad (4, 2), both in mat mm."""
    if not len(pts):
        return 0.0
    q = quad.astype(np.float64)
    edge = np.roll(q, -1, axis=0) - q
    rel = pts[:, None, :].astype(np.float64) - q[None]
    cross = edge[None, :, 0] * rel[:, :, 1] - edge[None, :, 1] * rel[:, :, 0]
    inside = np.all(cross >= 0, axis=1) | np.all(cross <= 0, axis=1)
    return float(np.count_nonzero(inside)) / len(pts)


def _centres(lo: float, hi: float, size: float, step: float = WINDOW_STEP_MM) -> np.ndarray:
    """Window centres along one axis: every place (± ``WINDOW_SLACK_MM``) where a window of
    ``size`` covers the blob's extent [lo, hi], or lies within it (a blob longer than a card, or
    one that took in a neighbour's shadow)."""
    a = min(hi - size / 2, lo + size / 2) - WINDOW_SLACK_MM
    b = max(hi - size / 2, lo + size / 2) + WINDOW_SLACK_MM
    n = max(1, int(np.ceil((b - a) / step - 1e-9)) + 1)
    return np.linspace(a, b, n) if n > 1 else np.array([(a + b) / 2])


def _place(rect: tuple) -> tuple:
    """A rect's place (mm, to a µm), size and turn: the key under which a reading is kept."""
    (x, y), size, angle = rect
    return round(x, 3), round(y, 3), tuple(size), angle


def _as_tuple(quad) -> tuple[tuple[float, float], ...]:
    return tuple((float(x), float(y)) for x, y in np.asarray(quad).reshape(4, 2))


def _in_mat_order(cards: list[TrackedCard]) -> list[TrackedCard]:
    return sorted(cards, key=lambda c: (c.rect_mm[0][1], c.rect_mm[0][0]))
