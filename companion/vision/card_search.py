"""Finding the cards an outline cannot give: the deck says where a card lies (general finder).

:func:`companion.vision.cards.find_card_groups` finds a card by its outline. Some cards have
none worth the name: a pale card on a pale table, a card whose cream text panel runs off its edge,
a card whose art sits in a rounded panel that the edge map takes for the card. What the outline
finder does give for them is a *part* (a too-square region, the panel) or nothing but a patch of
colour that differs from the table. The cards it did read tell how large a card is in this photo.
This module uses both, as the game's card tracker (:mod:`companion.vision.table_cards`) does on
the mat:

1. **Leftover regions**: every part-card the outline finder kept but could not name, every
   card-shaped find that read ``"unknown"``, and every blob that differs from the table (the
   table estimated by a median filter larger than a card, on a reduced and smoothed image, CIE
   Lab, with the cards already read painted out) not covered by a card already read. A photo whose "differs from the table" covers more than
   ``TEXTURED_MAX`` of it has a table too busy for that estimate, and gives no blobs.
2. **Windows**: card-sized rectangles (the median size of the cards already read, image px; if
   none was read, each of a few sizes guessed from the parts and blobs, :func:`guess_card_size`),
   turned as the region is (both ways round), centred on a grid ``STEP`` card widths apart over
   every place where a card would contain the region (or lie inside it, if it is larger), at
   most ``MAX_WINDOWS`` per region; windows leaving the photo or lying mostly on bare table are
   dropped before the deck sees them. Every other row and column of each grid is read first;
   the windows between are read only near one that comes close to a seed (``COARSE_SLACK``).
3. The windows are scored against the deck's label centroids (two batches: coarse, then fine),
   by a cheap estimate of the deck's quick score on 2 × 2 blocks of the patch
   (:mod:`companion.vision.window_screen`); the best become seeds (``SEED_MARGIN`` below the
   threshold at most), each refined by a compass search over place and turn on the same estimate
   (T. G. Kolda, R. M. Lewis, V. Torczon, "Optimization by direct search", SIAM Review 45(3),
   2003, §3), snapped to the card's own edges (:func:`companion.vision.cards.refine_quads`) and
   read in full, look-alike stage included. What that leaves unexplained (a blob of a card or
   more no card read covers, a part or an unknown outline no card holds, where a window away from
   the cards read made a seed's cut) is searched again so on the cards' layout: windows and
   centroids blurred by ``LAYOUT_BLUR`` (blind to a face's fine repeating print), each seed then
   put in place on the unblurred estimate.
4. A reading stands if its outline is there (``SUPPORT_MIN``), it beats the deck's threshold by
   ``WINDOW_MARGIN`` (it was the best of many tries, so it must clearly win), overlaps no card
   already read by more than ``OVERLAP_MAX``, accounts for its region (holds the part; lies on the
   blob), lies wholly inside the photo, is not mostly bare table, and is not contested: the
   search's best window turned the other way over it (``TURN_APART``), climbed, snapped and read,
   names no other label better there, nor does (for a reading near the bar) its own window turned
   by 30-150° and climbed (``TURN_TRIES``; then nothing is named there). A blob whose edges turn
   ``EDGE_TURN_APART`` or more off its box also gets a second grid at their turn (:func:`_edge_turn`,
   not over a mat marker, :func:`_holds_marker`); a reading only that grid's seeds reach is held to a
   stricter test (``EDGE_TURN_MARGIN`` higher, all four sides backed at ``EDGE_TURN_SUPPORT``,
   ``EDGE_TURN_NOT_BARE`` of it off the table), and one a first-grid seed also climbed to is left to
   the first grid (:func:`_second_only`). What the layout search's first grids are laid over is
   decided as without the second grid (its names and windows left out); a region a second-grid name
   cut gets its own grids too, its first grid's seeds picked after the others' (:func:`search_cards`).

Nothing here guesses a name: every card reported was read by the deck like any other.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import cv2
import numpy as np

from companion.rules.sushi_go.cards import UNKNOWN

#: A blob's windows are laid also at the turn of its own edges (:func:`_edge_turn`) where that lies
#: this many degrees (mod 90) or more off the blob's bounding turn (pat47: the four pattern cards
#: missed so lay 17-37° off; a card lying about square to its blob, a few degrees off, is found by
#: the climb's turns already, and a second grid there would only cost).
EDGE_TURN_APART = 15.0
#: The edges' turn is trusted where its strength (the magnitude-weighted mean of the gradients'
#: angle taken four times, 0 for no turn, 1 for all edges square to one turn) is at least this
#: (pat47: 0.30-0.38 on the blobs of the missed pattern cards 1293, 1299, 1444; a bare checker or
#: felt sliver 0.01-0.10).
EDGE_TURN_CLEAR = 0.2
#: ... and only in a blob of this much of a card's area or more (pat47: the missed cards' blobs held
#: 1.2-4.8 cards; on pattern 2210-2229, 174 of 231 blobs were slivers under half a card, where the
#: edges' turn cost 3 ms a scene and never gave a second grid).
EDGE_TURN_AREA = 0.5
#: The second grids' seeds (at the edges' turn) are picked after the first grids' and from their own
#: budget of at most this many a photo, so the second grid never takes a seed the first would have
#: had (the review of pat47: sharing MAX_SEEDS lost a tempura on a drawn touching scene and 3 cards
#: on adj_ill2 6247).
EDGE_TURN_SEEDS = 8
#: A reading that only a second-grid seed gives (:func:`_second_only`: no first-grid seed of the same
#: search climbed to within ``EDGE_TURN_REACH`` of its place) must read this much above the bar of
#: every window-search reading (``deck.threshold + WINDOW_MARGIN``) (pat48, the second review of
#: pat47: the drawn touching scenes' wrong maki_3 read 0.778 and the two spurious 0.782 and 0.661
#: against bars 0.761 / 0.660 / 0.660; the 20 second-grid readings right on the tuning scenes read
#: 0.93-0.99).
EDGE_TURN_MARGIN = 0.1
#: ... its snapped outline backed on all four sides (``refine_quads``' ``all_sides``) and this well
#: (``refine_quads`` support; the three faults 0.81-1.00, the fourth side unbacked in all three) ...
EDGE_TURN_SUPPORT = 0.9
#: ... and this much of its area differing from the table (``differs_from_table``; the spurious
#: names differed from it over 40 % and 74 % of their area, the right ones over 95-100 %).
EDGE_TURN_NOT_BARE = 0.9
#: A second-grid seed whose climb ends within this fraction of a card's short side and
#: ``EDGE_TURN_REACH_DEG`` degrees (mod 180) of a first-grid seed's is a place the first grid reached:
#: there the first grid's reading stands as on main, and the second grid's is not named (pat48:
#: 3526's wrong maki_3 lay 0.7 px and 0.6° from a first-grid seed that read "unknown" there).
EDGE_TURN_REACH = 0.15
EDGE_TURN_REACH_DEG = 10.0
#: :func:`_edge_turn` looks at most this many of a blob's points (the review of pat47: at 4 000 it
#: cost 13-18 ms a scene on tilted or striped pattern scenes).
EDGE_TURN_POINTS = 1000
#: Window centres are this many card widths apart.
STEP = 0.14
#: About this many windows per region at most (a larger region gets sparser windows).
MAX_WINDOWS = 300
#: A coarse window scoring this far (ZNCC) below the deck's threshold may still be near a card.
SEED_MARGIN = 0.25
#: A window between the first-read ones is read if a neighbour scored within this (ZNCC) of
#: becoming a seed (see ``_coarse_first``). On 226 photos (loose scenes, the mat frame, symbol
#: boards 0–29, the real deck's dev half) 0.3 left every reading as it was; at 0.2 one real card
#: (a king 100 px long, its neighbours 0.2–0.3 below it) was no longer found.
COARSE_SLACK = 0.3
#: At most this many seeds are refined per photo.
MAX_SEEDS = 24
#: A card found by trying many windows must read this much (ZNCC) above the deck's threshold.
WINDOW_MARGIN = 0.1
#: A window-search place that no name reached, but that is a card by its outline and nearly by its
#: face, is handed back as found but unnamed (``near``, :func:`search_cards`): its snapped outline
#: backed on all four sides at ``EDGE_TURN_SUPPORT`` or more, of the card size, and its best whole-card
#: score at most this (ZNCC) under the deck's threshold (the band the outline finder's near misses
#: are looked at again in, ``cards._LOOK_AGAIN_BAND``). Issue #6: the real photos'
#: IMG_2569, a jack of clubs on pale tiles, its outline joined to the grout lines and its art to its
#: outline (no closed outline for the finder), snapped with all four sides backed and read 0.66-0.69
#: under a 0.72 threshold (its suit enrolled from one blurred photo): not named by the search (the
#: bar is the threshold plus ``WINDOW_MARGIN``), and so not found at all.
NEAR_BAND = 0.08
#: A new card may overlap a card already read by at most this fraction of a card's area.
OVERLAP_MAX = 0.2
#: A found card's sides must be backed by a card's outline this well (``refine_quads`` support,
#: 0..1) after snapping: a pattern on the table can resemble a card's art, never its outline.
SUPPORT_MIN = 0.75
#: Compass-search steps: (fraction of the card width, degrees), coarse to fine. A third, finer step
#: (0.012, 0.6°: a px or two on a card 80 px wide) was dropped: the snap to the card's own edges
#: that follows (``refine_quads``, ±5 % of the card width) moves a window that far anyway. On the
#: tuning photos (loose scenes of four styles 40-59, symbol boards 0-29, the real deck's dev half,
#: the mat frame) every name stayed; window-search cards' corners moved by up to 4 px.
REFINE_STEPS = ((0.07, 4.0), (0.03, 1.5))
REFINE_ROUNDS = 3
#: The second search (:func:`_layout_search`, on what the first left unexplained) screens the
#: windows, and climbs the seeds, on the cards' layout: windows and centroids blurred by this
#: (Gaussian sigma, patch px; :class:`companion.vision.window_screen.Screen`), then each seed is
#: put in place on the unblurred screen (the finest of ``REFINE_STEPS``). A face that
#: is a fine repeating print (the fifth drawn deck's textiles: checks, scales, stripes 6-7 px a
#: period on a card 75 px wide) has a quick score that falls from 0.88 to 0.5 within 3-4 px of its
#: place and peaks again a period off: a grid of windows 0.14 card widths apart (sparser on a
#: large blob) lands none on the peak, or a seed climbs the peak a period off (read there, a maki's
#: roll marks are not where its examples have them: "unknown"). Blurred by 1.5 patch px (about
#: 3.5 px of such a card) the print is gone and the peak is as wide as a plain face's.
LAYOUT_BLUR = 1.5
#: ... climbed first with this step too (fraction of the card width, degrees): the layout's look
#: can have a shoulder a sixth of a card off (a sashimi's, 0.82-0.84 over 4 px there, 0.98 in
#: place), flat to the finer steps.
LAYOUT_STEP = (0.14, 8.0)
#: ... and at most this many moves a step: a seed's turn is the region's (a blob of several cards
#: is turned as the row is), up to 12° and more from its card's, besides its place.
LAYOUT_ROUNDS = 6
#: The layout search (:func:`_layout_search`) runs only on what the ordinary search left
#: unexplained (and saw a seed's score in, away from the cards read: not a mat's print, whose best
#: windows there were 0.34-0.46 under the threshold, the cut 0.25), and on a blob only if what no
#: card read covers of it still makes this much of a card (fraction of its area): a card missed
#: differs from the table over its whole face, where the slivers left round the cards read (their shadows, the halo of the smoothing) and most of a
#: spotted cloth's spots are smaller. On the tuning scenes the blobs the layout search found cards
#: in made 1.4-6.5 cards (pattern 1280-1299, 1330-1359), and of illustrated 40-59 none left held
#: more than 0.94 of one (a wood's grain about the cards, 2 × 3.6 cards across).
LAYOUT_AREA_MIN = 1.0
#: With no card named, a part's short side times these is a guess at the card's short side.
GUESS_STEPS = (1.0, 1.3, 1.6)
#: ... and at most this many guesses are tried.
MAX_GUESSES = 8
#: A named reading with a side this far (fraction) from the photo's card size is a misfit.
MISFIT = 0.25
#: ... or a corner whose |cos| exceeds this (about 14° from square).
MISFIT_SKEW = 0.25
#: Long side (px) of the reduced image the table is estimated on.
_BG_PX = 320
#: The table itself (cards painted out, median-filtered) is estimated on that copy reduced this
#: many times more: it is smooth over two cards, and both steps cost in proportion to the pixels
#: (about 10 of a flat scene's 17 ms went to them at full ``_BG_PX``).
_TABLE_SHRINK = 2
#: Lab distance (8-bit units, chroma counted twice) from the table above which a pixel differs.
DIFF_MIN = 16.0
#: Blobs smaller than this fraction of a card are noise.
BLOB_MIN = 0.12
#: If more than this fraction of the photo differs from the table estimate, the table is textured.
TEXTURED_MAX = 0.45
#: A part-card with this fraction of its area inside a named card is that card's print, not searched
#: (:func:`_outside_named`), if it is also at least ``INSIDE_NAMED_AREA`` of a card: a smaller part
#: near a named card's edge may be a fragment of a card lying over it, found only from that part.
INSIDE_NAMED = 0.9
INSIDE_NAMED_AREA = 0.5
#: A found card must differ from the table over at least this fraction of its area.
NOT_BARE_MIN = 0.2
#: A window whose long side lies more than this (degrees) off a reading's lies the other way round
#: over it (:func:`_contested`). The window grid lays each region's windows at two turns 90° apart,
#: and a seed's compass search turns it by a few steps of 4° and 1.5° at most, so the two turns
#: stay far either side of this halfway mark. It comes from stop 43's drawn mat scenes (`cover_ill`,
#: `adj_ill2`): 15 of 919 window-search readings named a wrong card, most a tableau chopsticks
#: read "sashimi" on a window lying 80-90° off it, sideways over the card and its neighbour; the
#: seed spacing (0.35 card widths, blind to a window's turn) had dropped the card's own upright
#: window in favour of that one.
TURN_APART = 45.0
#: ... and such a rival window is climbed only if the screen's estimate of it (the quick score's, within
#: ``window_screen.SCREEN_MARGIN`` = 0.12 of it) trails the estimate of the reading's own quad by at most
#: the first (twice that margin), and read in full only if its climbed place trails it by at most the
#: second (the margin): a rival that reads better must screen about as well. On stop 43's drawn mat
#: scenes and the loose tuning scenes (flat, illustrated 40-59), of 808 rivals the 6 that read another
#: label better trailed by at most 0.13 before the climb and led by 0.05-0.21 after it; 717 were not
#: climbed and 770 not read (the full reads were most of the guard's cost: 44 checks, 0.16 s of a loose
#: illustrated set's 1.43 s CPU). This can only make the guard refuse less.
RIVAL_SLACK = (0.24, 0.12)
#: The reading's own window is also tried turned about its centre by these (degrees) as rivals
#: (:func:`_turned_rival`): the grid's two turns (``TURN_APART``) miss a card turned 20-70° from
#: its region, as a card touching a corner marker or lying on another is (its region is the blob of
#: both, turned as that is). Stop 44's trace of `bench/mat_touching.py`'s illustrated sets: a tableau
#: or marker chopsticks (and salmon nigiri) read "sashimi" 0.65-0.73, the bar 0.64, on a window
#: lying 25-65° across it, half on the card and half on the mat or the card over it; its own turn,
#: climbed from the same centre, read "chopsticks" 0.74-0.98 ("salmon_nigiri" 0.95-0.97). Steps of
#: 30°: a climb turns a window by up to ±24° (``LAYOUT_STEP``'s 8° six times) besides the finer steps.
TURN_TRIES = (30.0, 60.0, 90.0, 120.0, 150.0)
#: ... a climbed rival within this (degrees) of the reading's own turn came back to the reading (a
#: card read at its own turn climbs back from 30° off: 14-16° was seen, still on its own art).
TURN_SAME = 20.0
#: ... and only a reading under the deck's threshold plus this (ZNCC) is tried: read across its
#: turn a card shares only part of its art with any label (0.65-0.73 above; the bar is the threshold
#: plus ``WINDOW_MARGIN``), read along it 0.85-0.98. This keeps the climbs' cost off the cards that
#: read clearly (of 755 window-search readings on the tuning sets, 55 are tried).
TURN_CHECK = 0.3
#: ... the turns are climbed a second time on every label's look but the reading's (stop 48), and a
#: rival so climbed that overlaps a card already named by more than this share of a card is that
#: card found again, not a rival (a half: a card lying on the reading's card can cover a fifth of it
#: and more, and is then named first if it reads better).
RIVAL_ON_TAKEN = 0.5
#: ... that second climb starts from the ``RIVAL_STARTS`` best (by the screen, the reading's label
#: left out) of the windows centred on this grid of offsets (fractions of the card's short side, along
#: both image axes) about the reading's centre, at each turn of ``TURN_TRIES``.
RIVAL_GRID = np.arange(-0.375, 0.376, 0.125)
RIVAL_STARTS = 3
#: ... and a rival it climbs to whose centre ends more than this many card widths (short side) from
#: the reading's is another card, not the reading's place read otherwise: the grid's reach and a
#: little (the chopsticks it is for lie 12-18 px, 0.15-0.25 card, off the "sashimi" window). pile48's
#: review: a right pudding (0.784) was refused by a climb that wandered 0.68 card onto an egg nigiri
#: lying over it (its adversarial pile scene 13707), and the egg nigiri could not be named there either.
RIVAL_REACH = 0.4
#: A search reading (window search and layout search, :func:`_search_regions`) more than this share
#: of whose window lies off the mat by a corner marker seen near it (:func:`_off_mat`) is not named
#: (its place stays taken). pile49: the wood above marker 1 read "squid_nigiri" on a layout-search
#: window 0.6 of it beyond the mat's edge (``bench/mat_touching.py`` ``cover_ill`` default scene 12)
#: and "tempura" on a window-search one 0.83 beyond (``adj_ill2 --seed 6650`` scene 25, pile49's
#: review); half: a card is on the mat when most of it is.
OFF_MAT_MAX = 0.5
#: A search reading (window and layout search) on a mat's printed title (title50, the Known limit
#: 'Spurious "sashimi" on a watercolour mat'): :func:`_on_title` refuses it when one side of its
#: window is backed (``refine_quads_sides``, 20 samples a side) on under this share (at most 2 of
#: 20 samples: no edge there) ...
TITLE_BARE_SIDE = 0.125
#: ... each of the two sides meeting that one on under this share (a title's letter strokes back a
#: long side in pieces; a card's own edges back it whole). 0.7 on the prototype; 0.6 since the fix
#: round: the title names on watercolour ``cover``/``adj`` 6600 and the review's 6800 logs had
#: both at 0.35-0.5, a right pudding laid on the title (the review's render seed (7770, 2), at
#: (464, 423) px) 0.45 and 0.65 ...
TITLE_WEAK_SIDE = 0.6
#: ... and its rim bands (``deck.RIM_BAND``, 2-6 px in on the 60 × 86 face) hold more dark ink than
#: the label's enrolled examples by more than this share in some band, rank for rank (the letters
#: cross the window's rim; a card's own rim is the paper its examples show). All three measured
#: only on the scenes they were tuned on (tri50's prototype, with the ink then taken from the
#: simulator's faces; here from the deck's examples): watercolour ``bench/mat_touching.py`` cover
#: and adj ``--seed 6600``; the spurious names there were blurred letters over cream paper,
#: 2-6 px in on a side, 0 or 1 of 20 samples backed on the fourth side.
TITLE_INK_OVER = 0.03
#: ... and only where the frame's mat is known and the window's centre lies on the title's printed
#: line (``mat_layout.title_box_mm``, the title's own text extent) padded by this many mm each
#: way (a title name's window centre lies on the letters: its long sides on their strokes, a short
#: side on the subtitle below; title50's fix round, after the review found the rule refusing a right
#: squid_nigiri by a covering card's edge at (1126, 713) px, far from the title, ``cover_ill --seed
#: 6851`` scene 18). The mat is known from the shipped mats' corner markers decoded in the frame
#: (:func:`_title_maps`); where fewer than two decode the rule does nothing.
TITLE_PAD_MM = 5.0
#: A mat layout is taken as the frame's where the image → mat homography fitted on the decoded
#: markers' corners (``cv2.findHomography``, least squares) maps every corner within this many mm
#: of its printed place (a marker is 50 mm; the 840 × 594 and 1 000 × 700 mm mats place their far
#: markers 160 mm further in x and 106 mm in y, so with three or more markers one size fits; with
#: two, the wrong size still leaves 4.6-7.6 mm at the corners (the title50 re-review's noise-free
#: fits; it never passed in 4 800 noisy ones), and two markers on one short side place the title
#: 5-16 mm off (95th percentile), beyond ``TITLE_PAD_MM``; on a blurred 5-player mat the true size
#: can fail too, and then the rule does nothing). The title names
#: refused on watercolour 6600 and 6800 mapped to 280-283 mm down, inside the 4-player title's
#: 268-298 mm.
TITLE_FIT_MM = 4.0
#: :func:`_off_mat` looks for markers this many card long sides about the window (a marker lying
#: beside it: its centre about a card's long side from the window's, pile49's traced scenes).
OFF_MAT_PAD = 2.0


@dataclass(frozen=True, eq=False)
class Region:
    """A place that may hold a card: its outline or pixels, (N, 2) float32 image px; its area, px²;
    and where it came from ("part", "unknown" or "blob")."""

    points: np.ndarray
    area: float
    source: str


def card_size(readings) -> tuple[float, float] | None:
    """The median (short, long) side in px of the named readings, or None if there are none.

    Args:
        readings: :class:`companion.vision.deck.Classification` objects.
    """
    named = [np.asarray(r.quad, np.float32).reshape(4, 2) for r in readings if r.label != UNKNOWN]
    if not named:
        return None
    # All readings at once, in the float32 operations of np.linalg.norm over each quad's sides.
    s = _sides(np.stack(named))
    a, b = (s[:, 0] + s[:, 2]) / 2.0, (s[:, 1] + s[:, 3]) / 2.0
    w, h = np.median(np.stack([np.minimum(a, b), np.maximum(a, b)], axis=1), axis=0)
    return float(w), float(h)


def _sides(q: np.ndarray) -> np.ndarray:
    """(N, 4) side lengths of (N, 4, 2) float32 quads, side i from corner i to i + 1: the values
    ``np.linalg.norm(q - np.roll(q, -1, axis=0), axis=1)`` gives for each quad."""
    d = q - q[:, [1, 2, 3, 0]]
    return np.sqrt(d[..., 0] * d[..., 0] + d[..., 1] * d[..., 1])


def guess_card_size(image: np.ndarray, deck, readings, unread: list[np.ndarray]
                    ) -> tuple[tuple[float, float], list] | None:
    """The card size in a photo in which the outline finder named no card, and the cards found at
    that size; None if no guess finds a card.

    Sizes are guessed from what was found: a part-card or an unknown outline is at most a card, so
    the card's short side is ``GUESS_STEPS`` times its short side; a blob that differs from the
    table (estimated as if a card were a third of the photo long) is about a card. Each guess is
    tried with :func:`search_cards`; the guess whose best card reads best gives the size (the
    median of what it found) and its cards. At most ``MAX_GUESSES`` are tried.

    Args:
        image: (H, W, 3) uint8 BGR.
        deck: the enrolled deck.
        readings: the outline finder's readings (all "unknown").
        unread: its part-cards (quads).
    """
    from companion.vision.cards import CARD_ASPECT

    h, w = image.shape[:2]
    shorts: list[float] = []
    outlines = [np.asarray(q, np.float32) for q in unread] + [np.asarray(r.quad, np.float32) for r in readings]
    for q in outlines:
        short = min(cv2.minAreaRect(q.reshape(-1, 1, 2))[1])
        shorts += [short * k for k in GUESS_STEPS]
    provisional = max(h, w) / 3.0
    differs = differs_from_table(image, (provisional / CARD_ASPECT, provisional))
    if differs is not None:
        for reg in leftover_regions(image, [], [], (provisional / CARD_ASPECT, provisional), differs):
            (_, _), (rw, rh), _ = cv2.minAreaRect(reg.points.reshape(-1, 1, 2))
            if min(rw, rh) >= 12:
                shorts.append(min(max(rw, rh) / CARD_ASPECT, min(rw, rh)))
    tried: list[float] = []
    best, best_score = None, -1.0
    for short in shorts:
        if short < 12 or short * CARD_ASPECT > max(h, w) or any(abs(short / t - 1) < 0.1 for t in tried):
            continue
        tried.append(short)
        if len(tried) > MAX_GUESSES:
            break
        wh = (short, short * CARD_ASPECT)
        d = differs_from_table(image, wh)
        found = search_cards(image, deck, [], leftover_regions(image, readings, unread, wh, d), wh, d)
        # The right size reads its cards best: a part of a card (an art panel) or a card with
        # table around it matches less well than the card itself.
        score = max((f.score for f in found), default=-1.0)
        if score > best_score:
            best, best_score = (card_size(found), found), score
    return best


def misfits(readings, card_wh: tuple[float, float]) -> list[int]:
    """Indices of named readings with a side more than ``MISFIT`` away from the photo's card
    size, or a corner further from square than ``MISFIT_SKEW`` allows: a square of a checked cloth
    that matches a pale card, or a card whose outline took in a neighbour's shadow or lost its
    title band. The caller searches their places again.
    """
    idx = [i for i, r in enumerate(readings) if r.label != UNKNOWN]
    if not idx:
        return []
    # All readings at once, in the same float operations as one reading at a time.
    q = np.stack([np.asarray(readings[i].quad, np.float32).reshape(4, 2) for i in idx])
    sides = _sides(q)  # (N, 4)
    short, long_ = sorted(card_wh)
    tall = (sides[:, 0] + sides[:, 2] <= sides[:, 1] + sides[:, 3])[:, None]
    want = np.where(tall, np.array([short, long_, short, long_]), np.array([long_, short, long_, short]))
    u = (q[:, [1, 2, 3, 0]] - q) / np.maximum(sides, 1e-6)[..., None]
    up = u[:, [3, 0, 1, 2]]
    skew = np.abs(u[..., 0] * up[..., 0] + u[..., 1] * up[..., 1]).max(axis=1)  # |cos| of the worst corner
    bad = (np.abs(sides / want - 1.0).max(axis=1) > MISFIT) | (skew > MISFIT_SKEW)
    return [i for i, b in zip(idx, bad.tolist()) if b]


def differs_from_table(image: np.ndarray, card_wh: tuple[float, float], readings=()) -> np.ndarray | None:
    """Where the photo differs from its table, at full resolution, or None for a textured table.

    The table is the reduced Lab image with the cards already read painted over from their
    surroundings (``cv2.inpaint``, A. Telea, "An image inpainting technique based on the fast
    marching method", J. Graphics Tools 9(1), 2004), then median-filtered with a window twice a
    card's long side, so the cards left do not shift it (``cv2.medianBlur``); both on a copy
    ``_TABLE_SHRINK`` times smaller, the table then enlarged back (bilinear) to be compared.

    Args:
        image: (H, W, 3) uint8 BGR.
        card_wh: (short, long) card side, image px.
        readings: cards already read (Classification); named ones are taken out of the table.

    Returns:
        (H, W) bool, or None when more than ``TEXTURED_MAX`` of the photo differs.
    """
    h, w = image.shape[:2]
    s = min(1.0, _BG_PX / max(h, w))
    small = cv2.resize(image, (max(1, round(w * s)), max(1, round(h * s))), interpolation=cv2.INTER_AREA)
    # Smoothed over a tenth of a card, a table's grain, weave or tiles average out; a card does not.
    small = cv2.GaussianBlur(small, (0, 0), max(0.8, 0.1 * card_wh[0] * s))
    lab = cv2.cvtColor(small, cv2.COLOR_BGR2Lab)
    # The table is estimated ``_TABLE_SHRINK`` times smaller again (not on a sliver of a photo).
    shrink = _TABLE_SHRINK if min(lab.shape[:2]) >= 16 * _TABLE_SHRINK else 1
    base = lab if shrink == 1 else cv2.resize(lab, (lab.shape[1] // shrink, lab.shape[0] // shrink),
                                              interpolation=cv2.INTER_AREA)
    t = s * base.shape[1] / lab.shape[1]  # image px → px of ``base``
    cards = np.zeros(base.shape[:2], np.uint8)
    for r in readings:
        if r.label != UNKNOWN:
            cv2.fillConvexPoly(cards, np.round(_grown(np.asarray(r.quad, np.float32), 1.1) * t).astype(np.int32), 1)
    table = cv2.inpaint(base, cards, 3, cv2.INPAINT_TELEA) if cards.any() else base
    k = int(2 * card_wh[1] * t) | 1
    k = max(5, min(k, 2 * (min(base.shape[:2]) // 2) - 1))
    table = cv2.medianBlur(table, k)
    if shrink > 1:
        table = cv2.resize(table, (lab.shape[1], lab.shape[0]), interpolation=cv2.INTER_LINEAR)
    d = np.abs(lab.astype(np.int16) - table.astype(np.int16)).astype(np.float32)
    dist = d[:, :, 0] + 2.0 * (d[:, :, 1] + d[:, :, 2])
    mask = (dist > DIFF_MIN).astype(np.uint8)
    if mask.mean() > TEXTURED_MAX:
        return None
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    # 0/1 bytes are valid booleans: viewed as such, not compared into a second full-size array.
    full = cv2.resize(mask, (w, h), interpolation=cv2.INTER_NEAREST).view(np.bool_).view(_Enlarged)
    full.reduced = mask  # for leftover_regions (see _reduced)
    full.flags.writeable = False  # an edit in place would leave ``reduced`` stale
    return full


class _Enlarged(np.ndarray):
    """A full-size (H, W) bool mask that carries the reduced uint8 0/1 mask it was enlarged from
    (nearest neighbour) as ``reduced``: :func:`leftover_regions` labels its blobs on that (a
    sixteenth of the pixels of a 1280 × 960 photo) instead of on the full-size copy. Read-only; a
    copy, view or slice of it carries no ``reduced`` (None) and is labelled at full size."""

    reduced: np.ndarray | None = None

    def __array_finalize__(self, obj) -> None:
        self.reduced = None


def _reduced(differs: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """The (h, w) uint8 0/1 mask ``differs`` was enlarged from by ``cv2.resize(...,
    cv2.INTER_NEAREST)``, and for each of its columns and rows the first and last full-size px that
    copy it: ``(mask, x_span (w, 2), y_span (h, 2))`` int64; None for a mask made otherwise."""
    mask = getattr(differs, "reduced", None)
    if mask is None:
        return None
    spans = []
    for full, small in ((differs.shape[1], mask.shape[1]), (differs.shape[0], mask.shape[0])):
        # OpenCV's nearest neighbour: source index floor(x / (full / small)), in double, clipped.
        src = np.minimum(np.floor(np.arange(full) * (1.0 / (full / small))).astype(np.int64), small - 1)
        k = np.arange(small)
        spans.append(np.column_stack([np.searchsorted(src, k, "left"), np.searchsorted(src, k, "right") - 1]))
    if (spans[0][:, 1] < spans[0][:, 0]).any() or (spans[1][:, 1] < spans[1][:, 0]).any():
        return None  # (a reduced px no full-size px copies: not an enlargement)
    return mask, spans[0], spans[1]


def leftover_regions(image: np.ndarray, readings, unread: list[np.ndarray], card_wh: tuple[float, float],
                     differs: np.ndarray | None, recheck=()) -> list[Region]:
    """Step 1 of the module doc.

    Args:
        image: (H, W, 3) uint8 BGR.
        readings: the named and unknown readings so far (Classification).
        unread: (4, 2) quads of part-cards the outline finder kept but the deck could not name.
        card_wh: (short, long) card side, px.
        differs: :func:`differs_from_table` of the photo, or None.
        recheck: named readings whose outline is in doubt (:func:`misfits`): searched as if
            they read "unknown".

    A ``differs`` that :func:`differs_from_table` just made is labelled on the reduced mask it
    was enlarged from (:func:`_reduced_blobs`); any other full-size mask as it is.
    """
    regions = [Region(np.asarray(q, np.float32), abs(cv2.contourArea(np.asarray(q, np.float32))), "part")
               for q in _outside_named(unread, readings, card_wh[0] * card_wh[1])]
    regions += [Region(np.asarray(r.quad, np.float32), abs(cv2.contourArea(np.asarray(r.quad, np.float32))), "unknown")
                for r in [r for r in readings if r.label == UNKNOWN] + list(recheck)]
    if differs is None:
        return regions
    small = _reduced(differs)
    if small is not None:
        return regions + _reduced_blobs(small, readings, card_wh)
    free = differs.astype(np.uint8)
    for r in readings:
        if r.label != UNKNOWN:
            # Grown past the halo that smoothing gave the card in ``differs``.
            cv2.fillConvexPoly(free, _grown(np.asarray(r.quad, np.float32), 1.25).astype(np.int32), 0)
    # The components are labelled within the box that holds every pixel left (often a fifth of the
    # photo), its corner at even px so OpenCV's 2 × 2 blocks fall as on the whole photo: the same
    # labels, in the same order. 16-bit labels halve the label image; OpenCV raises rather than
    # wrap when there are more than 65 535 components.
    bx, by, bw0, bh0 = cv2.boundingRect(free)
    if bw0 == 0:
        return regions  # nothing differs from the table outside the cards read
    x0, y0 = bx - bx % 2, by - by % 2
    part = free[y0:by + bh0, x0:bx + bw0]
    try:
        n, labels, stats, _ = cv2.connectedComponentsWithStats(part, connectivity=8, ltype=cv2.CV_16U)
    except cv2.error:
        n, labels, stats, _ = cv2.connectedComponentsWithStats(part, connectivity=8, ltype=cv2.CV_32S)
    card_area = card_wh[0] * card_wh[1]
    for b in range(1, n):
        if stats[b, cv2.CC_STAT_AREA] < BLOB_MIN * card_area:
            continue
        x, y, bw, bh = (int(v) for v in stats[b, :4])
        ys, xs = np.nonzero(labels[y:y + bh, x:x + bw] == b)
        x, y = x + x0, y + y0  # back to photo px
        pts = np.stack([xs + x, ys + y], axis=1).astype(np.float32)
        if len(pts) > 4000:  # the outline is enough for its rectangle
            pts = pts[np.random.default_rng(0).choice(len(pts), 4000, replace=False)]
        regions.append(Region(pts, float(stats[b, cv2.CC_STAT_AREA]), "blob"))
    return regions


def _outside_named(unread: list[np.ndarray], readings, card_area: float) -> list[np.ndarray]:
    """The part-cards of ``unread`` ((4, 2) quads, image px) not lying within a named reading's
    quad: a part of at least ``INSIDE_NAMED_AREA`` of ``card_area`` (px²) with at least
    ``INSIDE_NAMED`` of its area inside one is that card's.

    A part within a card already named is that card's own print (an art panel, a rounded frame the
    edge map closed; on the 20-card mat frame two, 99 % inside, a corner a few px out where the
    card's corner is rounded): its windows find that card again, which overlaps the named one past
    ``OVERLAP_MAX`` and is turned down, after a compass search, a snap and a read of each seed. A
    part of a card lying under a named one shows mostly outside it, and is kept. A small part may
    be a fragment of the print of a card lying over a named card's edge, wholly on that card, and
    that card may be found from it alone (a review drew it: 19 of 36 such cards found, 0 if the
    part is dropped), so only a part of half a card or more is dropped: the panels seen in
    practice are 0.55 of a card and more (the mat frame's two: 0.60 and 0.77).
    """
    from companion.vision.cards import points_in_quads

    named = [np.asarray(r.quad, np.float32).reshape(4, 2) for r in readings if r.label != UNKNOWN]
    if not unread or not named:
        return list(unread)
    parts = [np.asarray(q, np.float32).reshape(-1, 2) for q in unread]
    # Only a part whose centre is in a named card can lie within it (one test for all pairs).
    near = points_in_quads(np.stack([q.mean(axis=0) for q in parts]), np.stack(named))
    out = []
    for q, part, hits in zip(unread, parts, near):
        area = abs(cv2.contourArea(part))
        small = area < INSIDE_NAMED_AREA * card_area
        if small or not any(overlap_area(part, named[j]) >= INSIDE_NAMED * area for j in np.flatnonzero(hits)):
            out.append(q)
    return out


def _reduced_blobs(small: tuple, readings, card_wh: tuple[float, float]) -> list[Region]:
    """:func:`leftover_regions`' blobs labelled on the reduced mask the full-size one was enlarged
    from (:func:`_reduced`): the named cards, grown as there, are painted out at that size (a
    reduced px goes with its centre), and each blob's points are the corner px of the full-size
    blocks its reduced px became: pixels of the blob, with its hull, a quarter of a block's px.
    Its area is the full-size px count of those blocks."""
    mask, xs, ys = small
    free = mask.copy()
    sx = mask.shape[1] / float(xs[-1, 1] + 1)  # reduced px per full-size px
    sy = mask.shape[0] / float(ys[-1, 1] + 1)
    for r in readings:
        if r.label != UNKNOWN:
            q = _grown(np.asarray(r.quad, np.float32), 1.25) * np.float32([sx, sy])
            # Reduced px i covers [i, i + 1) of these coordinates: its centre is i + 0.5.
            cv2.fillConvexPoly(free, np.round(q - 0.5).astype(np.int32), 0)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(free, connectivity=8, ltype=cv2.CV_32S)
    bw, bh = xs[:, 1] - xs[:, 0] + 1, ys[:, 1] - ys[:, 0] + 1
    least = BLOB_MIN * card_wh[0] * card_wh[1]
    out = []
    for b in np.flatnonzero(stats[:, cv2.CC_STAT_AREA] * (bw.max() * bh.max()) >= least):
        if b == 0:
            continue  # (the background)
        x, y, w, h = (int(v) for v in stats[b, :4])
        yy, xx = np.nonzero(labels[y:y + h, x:x + w] == b)
        yy, xx = yy + y, xx + x
        area = float((bw[xx] * bh[yy]).sum())
        if area < least:
            continue
        # (Where a block is one px wide its corners coincide: each block still counts four times.)
        pts = np.empty((4 * len(xx), 2), np.float32)
        for k, (i, j) in enumerate(((0, 0), (1, 0), (0, 1), (1, 1))):
            pts[k::4, 0], pts[k::4, 1] = xs[xx, i], ys[yy, j]
        if len(pts) > 4000:  # the outline is enough for its rectangle
            pts = pts[np.random.default_rng(0).choice(len(pts), 4000, replace=False)]
        out.append(Region(pts, area, "blob"))
    return out


def _grown(quad: np.ndarray, k: float) -> np.ndarray:
    c = quad.mean(axis=0)
    return c + (quad - c) * k


def _windows(region: Region, card_wh: tuple[float, float], step_frac: float = STEP) -> tuple[list[tuple], list[tuple]]:
    """Step 2: card-sized rotated rects ``((cx, cy), (w, h), angle)`` over one region, about
    ``MAX_WINDOWS`` at most (a larger region gets sparser windows), and the grid cell of each:
    ``(turn, row, column)``, turn 0 or 1, row and column counted from the region's centre.
    (:func:`_window_grid` as Python tuples.)"""
    rects, cells = _window_grid(region, card_wh, step_frac)
    return _rects(rects), [tuple(c) for c in cells.tolist()]


def _rects(rects: np.ndarray) -> list[tuple]:
    """(N, 5) ``cx, cy, w, h, angle`` rows → rotated rects ``((cx, cy), (w, h), angle)``."""
    return [((x, y), (w, h), a) for x, y, w, h, a in rects.tolist()]


def _window_grid(region: Region, card_wh: tuple[float, float], step_frac: float = STEP,
                 edge_turn: float | None = None, box: tuple | None = None) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_windows` as arrays: (N, 5) float64 rects ``cx, cy, w, h, angle_deg`` (image px) and
    (N, 3) int64 cells ``turn, row, column``. The window search lays a few thousand windows per
    photo: a tuple per window cost more than the arithmetic.

    With ``edge_turn`` (degrees, :func:`_edge_turn`), a second grid is laid over the region at that
    turn (and at it + 90°), its cells' turn 2 and 3, each grid of its own ``MAX_WINDOWS`` at most;
    the first grid is as without it, window for window. ``box``: the region's ``cv2.minAreaRect``
    if the caller has it already."""
    if box is None:
        box = cv2.minAreaRect(region.points.reshape(-1, 1, 2))
    rects, cells = _grid_at(region, card_wh, step_frac, box)
    if edge_turn is None:
        return rects, cells
    # The region's extent along the edges' turn: its points projected on the turned axes.
    t = np.deg2rad(edge_turn)
    along = region.points @ np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])
    lo, hi = along.min(axis=0), along.max(axis=0)
    mid = 0.5 * (lo + hi)
    centre = mid[0] * np.array([np.cos(t), np.sin(t)]) + mid[1] * np.array([-np.sin(t), np.cos(t)])
    rects2, cells2 = _grid_at(region, card_wh, step_frac,
                              ((float(centre[0]), float(centre[1])), (float(hi[0] - lo[0]), float(hi[1] - lo[1])),
                               float(edge_turn)))
    cells2[:, 0] += 2
    return np.concatenate([rects, rects2]), np.concatenate([cells, cells2])


def _grid_at(region: Region, card_wh: tuple[float, float], step_frac: float, box: tuple
             ) -> tuple[np.ndarray, np.ndarray]:
    """The grid of :func:`_window_grid` over the rotated box ``((cx, cy), (rw, rh), angle_deg)``
    that bounds ``region`` (its ``cv2.minAreaRect``, or its extent at another turn)."""
    cw, ch = card_wh
    (cx, cy), (rw, rh), ang = box
    # In the frame of the region turned by `ang` (+ 90°), the card lies cw wide along x, ch along y.
    reach = [(abs(rw - cw) / 2.0, abs(rh - ch) / 2.0), (abs(rh - cw) / 2.0, abs(rw - ch) / 2.0)]
    step = step_frac * cw
    count = sum((2 * np.floor(rx / step + 0.5) + 1) * (2 * np.floor(ry / step + 0.5) + 1) for rx, ry in reach)
    if count > MAX_WINDOWS:  # a larger region gets sparser windows
        step *= np.sqrt(count / MAX_WINDOWS) * 1.05
    rects, cells = [], []
    for k, (turn, (rx, ry)) in enumerate(zip((0.0, 90.0), reach)):
        a = ang + turn
        t = np.deg2rad(a)
        ux, uy = np.array([np.cos(t), np.sin(t)]), np.array([-np.sin(t), np.cos(t)])
        # Row by row (dy), then along the row (dx): the centres as one array expression.
        # (np.repeat and np.tile lay them out as np.meshgrid(..., indexing="ij") does, at less cost.)
        oy, ox = _offsets(ry + 0.5 * step, step), _offsets(rx + 0.5 * step, step)
        dy, dx = np.repeat(oy, len(ox)), np.tile(ox, len(oy))
        c = np.array([cx, cy])[None, :] + dx[:, None] * ux[None, :] + dy[:, None] * uy[None, :]
        r = np.empty((len(c), 5))
        r[:, :2], r[:, 2], r[:, 3], r[:, 4] = c, cw, ch, float(a)
        rects.append(r)
        cells.append(np.column_stack([np.full(len(c), k), np.rint(dy / step).astype(int), np.rint(dx / step).astype(int)]))
    return np.concatenate(rects), np.concatenate(cells).astype(np.int64)


def _edge_turn(image: np.ndarray, region: Region, card_wh: tuple[float, float], box: tuple | None = None
               ) -> float | None:
    """The turn (degrees, mod 90) at which a blob's own print and edges lie, where it is
    ``EDGE_TURN_APART`` or more off the blob's bounding turn (``cv2.minAreaRect``); None otherwise:
    for a part or an unknown outline (their outline is a card's, and gives its turn), a blob under
    ``EDGE_TURN_AREA`` of a card, where the gradients have no clear turn (``EDGE_TURN_CLEAR``), or a
    blob that holds one of the mat's ArUco markers (:func:`_holds_marker`).

    Why (issue #6, branch ``pat47``): a blob is what is left of the table's differing pixels once
    the named cards are painted out; where an unnamed card touched its named neighbours, the blob
    keeps slivers of them and its bounding box lies 30-40° off the card (loose ``pattern`` scenes
    1293, 1299, 1444: chopsticks and a wasabi, each read 0.94-0.98 on its own quad, not found: every
    window at the blob's turn screened 0.20-0.37, under a seed's cut). A card's outline and a full-
    bleed print's rows lie along the card's sides, so the image's gradients at the blob's pixels
    (up to ``EDGE_TURN_POINTS`` of the points the blob keeps, evenly along their list),
    their angle taken four times (a card's sides are 90° apart; a 90° turn is the grid's second
    turn) and averaged by magnitude, give the card's turn within about 5°. It is the interior's
    turn, not the outline's: on a mat it is the mat's print (the marker's squares), which is why a
    blob holding a marker is left out (the review of pat47: a corner marker's blob read 2-3° there,
    24-30° off its box, on every mat frame, and its second grid named a half-covered card 29 px
    off, the mat's ``coverI12`` seed 6248).

    Args:
        image: (H, W, 3) uint8 BGR.
        region: a :class:`Region`, points (N, 2) float32 image px.
        card_wh: (short, long) card side, px.
        box: the region's ``cv2.minAreaRect`` if the caller has it already (0.1-0.6 ms a blob).

    Returns:
        The turn in degrees in (-45, 45], or None.
    """
    if region.source != "blob" or len(region.points) < 3 or region.area < EDGE_TURN_AREA * card_wh[0] * card_wh[1]:
        return None
    pts = region.points
    if len(pts) > EDGE_TURN_POINTS:
        pts = pts[np.arange(EDGE_TURN_POINTS) * (len(pts) - 1) // (EDGE_TURN_POINTS - 1)]  # evenly, ends kept
    h, w = image.shape[:2]
    bx, by, bw, bh = cv2.boundingRect(pts.reshape(-1, 1, 2))  # numpy's min and max took 0.2 ms a blob
    x0, y0 = max(0, bx - 4), max(0, by - 4)
    x1, y1 = min(w, bx + bw + 4), min(h, by + bh + 4)
    if x1 - x0 < 3 or y1 - y0 < 3:
        return None
    # The 3 x 3 Sobel at the points only (not over the crop: a blob's crop is most of its cost).
    grey = cv2.cvtColor(image[y0:y1, x0:x1], cv2.COLOR_BGR2GRAY).astype(np.float32)
    xi = np.clip(np.round(pts[:, 0]).astype(int) - x0, 1, x1 - x0 - 2)
    yi = np.clip(np.round(pts[:, 1]).astype(int) - y0, 1, y1 - y0 - 2)
    nb = grey[yi[:, None] + np.array([-1, -1, -1, 0, 0, 1, 1, 1]), xi[:, None] + np.array([-1, 0, 1, -1, 1, -1, 0, 1])]
    ax = (nb[:, [2, 4, 7]] @ np.float32([1, 2, 1]) - nb[:, [0, 3, 5]] @ np.float32([1, 2, 1])).astype(np.float64)
    ay = (nb[:, [5, 6, 7]] @ np.float32([1, 2, 1]) - nb[:, [0, 1, 2]] @ np.float32([1, 2, 1])).astype(np.float64)
    mag = np.hypot(ax, ay)
    if mag.sum() <= 0:
        return None
    quad_angle = 4.0 * np.arctan2(ay, ax)
    v = complex((mag * np.cos(quad_angle)).sum(), (mag * np.sin(quad_angle)).sum()) / mag.sum()
    if abs(v) < EDGE_TURN_CLEAR:
        return None
    turn = float(np.degrees(np.angle(v)) / 4.0)
    ang = (box if box is not None else cv2.minAreaRect(region.points.reshape(-1, 1, 2)))[2]
    if abs((turn - ang + 45.0) % 90.0 - 45.0) < EDGE_TURN_APART:
        return None
    if _holds_marker(image, region, card_wh):
        return None
    return turn


_MARKER = None  # (ArucoDetector, the marker's side over a card's short side), made on first use
#: :func:`_holds_marker` scales a blob's crop so that a card's short side is this many px: the mat's
#: 50 mm marker (6 modules with its border) on a 44 mm card is then about 55 px, modules about 9 px,
#: whatever the frame's size (pat48: pat47's fixed halving of crops over 120 px left modules of
#: 2-3 px on a 640 x 480 frame and missed 1-3 of the mat frame's marker blobs there, more when
#: tilted or blurred).
MARKER_CARD_PX = 48.0
#: An undecoded candidate counts as a marker when its sides differ by less than this ratio and
#: their mean lies in this band of the marker's expected side (pat48: the 640 x 480 mat frame
#: blurred by 2 px, the two marker blobs missed, candidates 0.8-1.0 of it; a card is 1.43:1).
MARKER_SQUARE = 1.2
MARKER_SIDE = (0.7, 1.3)
#: ... and looks this far around the blob's bounding box, in card widths (a marker lying partly
#: outside its blob on a tilted frame; pat47's fixed 8 px was a tenth of a card at 1280 x 960).
MARKER_PAD = 0.25


def _marker_detector():
    """(ArucoDetector of the shipped mats' dictionary, the marker's side over a card's short side),
    made on first use and kept."""
    global _MARKER
    if _MARKER is None:
        from companion.vision.mat import _aruco_dictionary
        from companion.vision.mat_layout import load_mat_layout

        # Every shipped mat (2-5 players) has the same dictionary, marker and card size.
        layout = load_mat_layout(2)
        params = cv2.aruco.DetectorParameters()
        params.adaptiveThreshWinSizeMin, params.adaptiveThreshWinSizeMax = 5, 13
        params.adaptiveThreshWinSizeStep = 8
        _MARKER = (cv2.aruco.ArucoDetector(_aruco_dictionary(cv2, layout.aruco_dictionary), params),
                   layout.markers[0].size_mm / layout.card_mm[0])  # 50 mm over 44 mm
    return _MARKER


_MAT_EDGES = None  # marker id → (lo_x, hi_x, lo_y, hi_y) mm about its centre, made on first use


def _mat_edges() -> dict:
    """Marker id → the mat's near edges about that marker's centre, mm, mat axes (x along the
    printed marker's top side, y down it): ``(lo_x, hi_x, lo_y, hi_y)``, ±inf where the mat's edge on
    that side is far (over ``2`` marker sides away), and the marker's side, mm, as a fifth. The same
    on every shipped mat (2-5 players): each marker's centre lies 45 mm from the two edges of its
    corner (``load_mat_layout``)."""
    global _MAT_EDGES
    if _MAT_EDGES is None:
        from companion.vision.mat_layout import load_mat_layout

        edges: dict = {}
        for players in (2, 3, 4, 5):
            layout = load_mat_layout(players)
            for m in layout.markers:
                x, y = m.center_mm
                near = 2.0 * m.size_mm
                e = (-x if x < near else -np.inf, layout.width_mm - x if layout.width_mm - x < near else np.inf,
                     -y if y < near else -np.inf, layout.height_mm - y if layout.height_mm - y < near else np.inf)
                e += (m.size_mm,)
                if edges.setdefault(m.id, e) != e:
                    edges[m.id] = None  # the mats disagree about this marker: not used
        _MAT_EDGES = {k: v for k, v in edges.items() if v is not None}
    return _MAT_EDGES


def _detect_in_box(image: np.ndarray, box, card_wh: tuple[float, float]):
    """ArUco's ``detectMarkers`` (the mat's dictionary, :func:`_marker_detector`) on the grey crop
    ``box`` (x0, y0, x1, y1 image px, inclusive, clipped to the image), scaled to ``MARKER_CARD_PX``
    px a card's short side (``card_wh`` (short, long) image px) so the test is the same at any frame
    size: ``(corners, ids, rejected, f, (x0, y0))``, the crop's scale ``f`` (1.0 where within 10 %)
    and origin, image px; None where the crop is under 8 px a side."""
    detector, _ = _marker_detector()
    h, w = image.shape[:2]
    x0, y0 = int(max(0, box[0])), int(max(0, box[1]))
    x1, y1 = int(min(w, box[2] + 1)), int(min(h, box[3] + 1))
    if x1 - x0 < 8 or y1 - y0 < 8:
        return None
    grey = cv2.cvtColor(image[y0:y1, x0:x1], cv2.COLOR_BGR2GRAY)
    f = MARKER_CARD_PX / max(card_wh[0], 1.0)
    if abs(f - 1.0) > 0.1:
        grey = cv2.resize(grey, None, fx=f, fy=f, interpolation=cv2.INTER_AREA if f < 1 else cv2.INTER_LINEAR)
    else:
        f = 1.0
    corners, ids, rejected = detector.detectMarkers(grey)
    return corners, ids, rejected, f, (x0, y0)


def _mat_markers(image: np.ndarray, box, card_wh: tuple[float, float]) -> list:
    """The shipped mats' corner markers decoded in ``box`` (x0, y0, x1, y1 image px, clipped to the
    image): ``[(id, (4, 2) corners, image px, ArUco's order)]``, [] where none decodes. The crop is
    scaled as :func:`_holds_marker` scales a blob's (:func:`_detect_in_box`)."""
    found = _detect_in_box(image, box, card_wh)
    if found is None or found[1] is None or len(found[1]) == 0:
        return []
    corners, ids, _, f, origin = found
    return [(mid, np.asarray(c, np.float64).reshape(4, 2) / f + origin)
            for mid, c in zip(np.asarray(ids).reshape(-1).tolist(), corners)]


def _near_box(quad: np.ndarray, card_wh: tuple[float, float]) -> tuple[float, float, float, float]:
    """``quad``'s bounding box, ``OFF_MAT_PAD`` card long sides about it (x0, y0, x1, y1 px)."""
    q = np.asarray(quad, np.float64).reshape(-1, 2)
    pad = OFF_MAT_PAD * card_wh[1]
    return q[:, 0].min() - pad, q[:, 1].min() - pad, q[:, 0].max() + pad, q[:, 1].max() + pad


_TITLE_LAYOUTS = None  # [(marker id → (4, 2) printed corners mm, title box mm)] per distinct shipped mat


def _title_maps(image: np.ndarray, card_wh: tuple[float, float]) -> list:
    """The image px → mat mm maps of the frame's mat and where its title is printed: ``[(H, (x0,
    y0, x1, y1))]``, H (3, 3) float64 the homography fitted (``cv2.findHomography``, least squares,
    no outlier rejection) from the shipped mats' corner markers decoded in the whole frame
    (:func:`_mat_markers`, ids 0-3; at least two distinct) to their printed corners on each
    distinct shipped layout (Sushi Go! and Sushi Roll, 2-4 players 840 × 594 mm and 5 players
    1 000 × 700 mm: ``load_mat_layout``), kept where every corner maps within ``TITLE_FIT_MM`` mm;
    the box the layout's title line is printed in (``mat_layout.title_box_mm``, mm). [] where
    under two markers decode (the markers covered, no mat): then :func:`_on_title` refuses nothing.
    Decoding the whole frame costs about 8 ms process time on a 1 280 × 960 px frame (the title
    test's tuning frame, ``adj`` watercolour 6600 scene 6, on a shared 2-core machine); it is called
    only for a window already past the side and ink tests, at most once per :func:`search_cards`."""
    from companion.vision.mat import to_mat_mm
    from companion.vision.mat_layout import load_mat_layout, title_box_mm

    h, w = image.shape[:2]
    seen: dict = {}
    for mid, c in _mat_markers(image, (0, 0, w - 1, h - 1), card_wh):
        seen.setdefault(mid, c)  # a second decode of an id (a printed copy?) is not used
    global _TITLE_LAYOUTS
    if _TITLE_LAYOUTS is None:
        layouts: dict = {}
        for game in ("sushi-go", "sushi-roll"):
            for players in (2, 3, 4, 5):
                lay = load_mat_layout(players, game=game)
                box = title_box_mm(lay)
                layouts.setdefault((lay.width_mm, lay.height_mm, box),
                                   ({m.id: np.asarray(m.corners_mm(), np.float64) for m in lay.markers}, box))
        _TITLE_LAYOUTS = list(layouts.values())
    out = []
    for printed, box in _TITLE_LAYOUTS:
        ids = [k for k in seen if k in printed]
        if len(ids) < 2:
            continue
        src = np.concatenate([seen[k] for k in ids]).astype(np.float64)
        dst = np.concatenate([printed[k] for k in ids])
        H, _ = cv2.findHomography(src, dst, 0)
        if H is None:
            continue
        if np.linalg.norm(to_mat_mm(H, src) - dst, axis=1).max() <= TITLE_FIT_MM:
            out.append((H, box))
    return out


def _on_title_place(quad: np.ndarray, maps: list) -> bool:
    """Whether ``quad``'s centre (image px) maps, under any of ``maps`` (:func:`_title_maps`), into
    its title box padded by ``TITLE_PAD_MM`` mm (a centre beyond the horizon maps nowhere)."""
    from companion.vision.mat import to_mat_mm

    c = np.asarray(quad, np.float64).reshape(4, 2).mean(axis=0)
    for H, (x0, y0, x1, y1) in maps:
        x, y = to_mat_mm(H, c)[0]
        if x0 - TITLE_PAD_MM <= x <= x1 + TITLE_PAD_MM and y0 - TITLE_PAD_MM <= y <= y1 + TITLE_PAD_MM:
            return True
    return False


def _on_title(image: np.ndarray, deck, quad: np.ndarray, sides: np.ndarray, label: int,
              maps=None) -> bool:
    """Whether a search reading's window is a mat's printed title read as a card, not a card
    (title50; README Known limits, 'Spurious "sashimi" on a watercolour mat').

    A card-sized window on the watercolour mat's title is refit with its long sides on the
    letters' vertical strokes and a short side on the subtitle line, its fourth side on no edge;
    blurred dark letters over cream paper score as watercolour "sashimi". True when all hold:
    some side's own support (``sides``) is under ``TITLE_BARE_SIDE``; both sides meeting it are
    under ``TITLE_WEAK_SIDE``; and the window's rim ink (:func:`companion.vision.deck.rim_ink` of
    the window warped upright to 60 × 86 px, grey) exceeds the label's enrolled examples'
    (:meth:`Deck.border_ink`) by more than ``TITLE_INK_OVER`` at some rank; and the window's
    centre lies on the mat's printed title (:func:`_on_title_place`, ``TITLE_PAD_MM``). False
    where the deck keeps no example faces, and where the frame's mat is not known (under two of
    its corner markers decoded, :func:`_title_maps`): then a title name can come back.

    Args:
        image: (H, W, 3) uint8 BGR.
        deck: the Deck.
        quad: (4, 2) float px, the reading's window as snapped to its edges (the quad ``sides`` were
            measured on).
        sides: (4,) float, each side's backed share (``refine_quads_sides``), side i from corner i.
        label: the label index the window was named.
        maps: a callable giving :func:`_title_maps` of the frame (called only once the side and
            ink tests pass, so the markers are decoded only then); None: no mat known, False.
    """
    from companion.vision.deck import FINE_H, FINE_W, rim_ink

    sides = np.asarray(sides, np.float64)
    bare = int(np.argmin(sides))
    if sides[bare] >= TITLE_BARE_SIDE or max(sides[(bare - 1) % 4], sides[(bare + 1) % 4]) >= TITLE_WEAK_SIDE:
        return False
    own = deck.border_ink(label)
    if own is None:
        return False
    q = np.asarray(quad, np.float32)
    upright = np.linalg.norm(q[1] - q[0]) < np.linalg.norm(q[2] - q[1])  # the short side first
    w, h = (FINE_W, FINE_H) if upright else (FINE_H, FINE_W)
    dst = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    face = cv2.warpPerspective(grey, cv2.getPerspectiveTransform(q, dst), (w, h)).astype(np.float32)
    if not upright:
        face = face.T  # the bands are sorted below: a quarter turn either way measures the same
    if not (np.sort(rim_ink(face)) - own).max() > TITLE_INK_OVER:
        return False
    return maps is not None and _on_title_place(q, maps())


def _off_mat(image: np.ndarray, quad: np.ndarray, card_wh: tuple[float, float], markers=None) -> float:
    """The share of a window's area that lies beyond the mat's outline by a mat corner marker seen
    near it, 0 where none is (issue #6, pile49: the layout search named the wood above the mat's
    marker 1 "squid_nigiri", ``bench/mat_touching.py`` ``cover_ill`` scene 12; the window search the
    wood above marker 1 "tempura", ``adj_ill2 --seed 6650`` scene 25).

    The search knows no mat; the markers say where it ends. The shipped mats' markers lying within
    ``OFF_MAT_PAD`` card long sides about the window are used (decoded only: the id says which
    corner); each marker's four corners give an affine map px → mm about its centre (least squares;
    the mat's axes are the printed marker's), and the window's corners, mapped so, are clipped to
    the mat's near edges there (:func:`_mat_edges`: 45 mm beyond the marker's centre on its corner's
    two sides).

    Args:
        image: (H, W, 3) uint8 BGR.
        quad: (4, 2) window corners, image px.
        card_wh: (short, long) card side, image px.
        markers: :func:`_mat_markers` of a box holding the window's (decoded once for a search's
            region, :func:`_search_regions`); ``None``: decoded here, in a crop about the window.

    Returns:
        The largest share (0..1) of the window's area off the mat by any marker seen.
    """
    edges = _mat_edges()
    q = np.asarray(quad, np.float64).reshape(4, 2)
    near = _near_box(q, card_wh)
    if markers is None:
        markers = _mat_markers(image, near, card_wh)
    if not markers:
        return 0.0
    h, w = image.shape[:2]
    x0, y0, x1, y1 = max(0.0, near[0]), max(0.0, near[1]), min(w, near[2] + 1), min(h, near[3] + 1)
    side = _marker_detector()[1] * card_wh[0]  # a marker's side, px (in the image)
    worst = 0.0
    for mid, px in markers:
        if mid not in edges:
            continue
        if not (px[:, 0].min() >= x0 and px[:, 0].max() <= x1 and px[:, 1].min() >= y0 and px[:, 1].max() <= y1):
            continue  # not near the window (as a crop about it would not hold it)
        s = 0.5 * edges[mid][4]
        mm = np.array([[-s, -s], [s, -s], [s, s], [-s, s]])  # ArUco's order: TL, TR, BR, BL as printed
        a, *_ = np.linalg.lstsq(np.column_stack([px, np.ones(4)]), mm, rcond=None)
        sides = np.linalg.norm(px - np.roll(px, -1, axis=0), axis=1)
        if not 0.5 * side < sides.mean() < 2.0 * side:
            continue  # a marker of another size (a printed sheet of them): not the mat's
        wq = (np.column_stack([q, np.ones(4)]) @ a).astype(np.float32)
        area = abs(cv2.contourArea(wq))
        if area <= 0:
            continue
        lo_x, hi_x, lo_y, hi_y = (float(np.clip(v, -1e4, 1e4)) for v in edges[mid][:4])
        box = np.array([[lo_x, lo_y], [hi_x, lo_y], [hi_x, hi_y], [lo_x, hi_y]], np.float32)
        if cv2.contourArea(wq, oriented=True) < 0:
            wq = wq[::-1].copy()
        inter, _ = cv2.intersectConvexConvex(wq, box)
        worst = max(worst, 1.0 - float(inter) / area)
    return float(np.clip(worst, 0.0, 1.0))


def _holds_marker(image: np.ndarray, region: Region, card_wh: tuple[float, float]) -> bool:
    """Whether an ArUco marker of the mat's dictionary (the shipped mats' ``aruco_dictionary``,
    ``DICT_4X4_50``, as :class:`companion.vision.mat.MatTracker` reads it) lies in ``region``'s bounding box (``MARKER_PAD`` card widths around it): the search knows no
    mat, so a blob a second grid would be laid over is looked at for one (only those: 0-4 blobs a
    frame). The crop is scaled to the card's size (``MARKER_CARD_PX`` px a card's short side,
    ``card_wh`` (short, long) image px), so the test is the same at any frame size; two threshold
    passes (windows 5 and 13 px on the scaled crop) keep a blurred marker's squares apart."""
    _, marker_per_card = _marker_detector()
    x, y, bw, bh = cv2.boundingRect(region.points.reshape(-1, 1, 2))
    pad = int(round(MARKER_PAD * card_wh[0]))
    found = _detect_in_box(image, (x - pad, y - pad, x + bw + pad - 1, y + bh + pad - 1), card_wh)
    if found is None:
        return False
    _, ids, rejected, _, _ = found
    if ids is not None and len(ids) > 0:
        return True
    # A marker too blurred to decode (a 640 x 480 frame, modules of 3 px, out of focus) is still a
    # dark square of the marker's size in a white border: ArUco's rejected candidates of that size.
    side = marker_per_card * MARKER_CARD_PX
    for q in rejected:
        s = np.linalg.norm(q.reshape(4, 2) - np.roll(q.reshape(4, 2), -1, axis=0), axis=1)
        if s.max() < MARKER_SQUARE * s.min() and MARKER_SIDE[0] * side < s.mean() < MARKER_SIDE[1] * side:
            return True
    return False


def _coarse_first(image: np.ndarray, deck, quads: np.ndarray, cells: list[tuple], score=None) -> np.ndarray:
    """Each window's score (the deck's quick score, or ``score``'s estimate of it), −inf for those
    not worth reading (step 2 of the module doc, coarse to fine).

    The windows of every other row and column (each region's and turn's own grid: ``cells``, as
    :func:`_windows` gives them, prefixed by the region's index) are read first; a window between
    them is read only if one of its nearest read neighbours scores within ``COARSE_SLACK`` of
    becoming a seed, or none of them was read at all (they left the photo or lay on bare table).
    A card's quick score falls off smoothly over a step or two, so the seeds stay where they were;
    a photo's many windows over the table's own print or texture are mostly read at a quarter of
    the cost.

    ``score`` (window corners (N, 4, 2) → scores) replaces the quick score: the search uses the
    cheap estimate of it (:class:`companion.vision.window_screen.Screen`).
    """
    n = len(quads)
    if score is None:
        def score(q):
            return _score_quads(image, deck, q)
    scores = np.full(n, -np.inf)
    cell = np.asarray(cells, np.int64).reshape(-1, 4)  # (region, turn, row, column) per window
    is_coarse = (cell[:, 2] % 2 == 0) & (cell[:, 3] % 2 == 0)
    coarse = np.flatnonzero(is_coarse)
    if len(coarse):
        scores[coarse] = score(quads[coarse])
    cut = deck.threshold - SEED_MARGIN - COARSE_SLACK
    between = np.flatnonzero(~is_coarse)
    if len(between) == 0:
        return scores

    def key(g, k, r, c):  # one integer per cell (rows and columns are a few hundred at most;
        # turns 0-3: a region's second grid, at its edges' turn, is turns 2 and 3)
        return ((g * 4 + k) << 42) + ((r + (1 << 20)) << 21) + (c + (1 << 20))

    # Each window between is read if none of its nearest coarse neighbours (the grid corners
    # around it, rows r ± r mod 2 and columns c ± c mod 2, as Python's mod) was read, or the best
    # of those read comes within COARSE_SLACK of a seed. Looked up for all windows at once.
    read_keys = key(*cell[coarse].T)
    order = np.argsort(read_keys)
    read_keys, read_scores = read_keys[order], scores[coarse][order]
    g, k, r, c = cell[between].T
    best = np.full(len(between), -np.inf)
    seen = np.zeros(len(between), bool)
    if len(read_keys):
        for rr in (r - r % 2, r + r % 2):
            for cc in (c - c % 2, c + c % 2):
                want = key(g, k, rr, cc)
                at = np.minimum(np.searchsorted(read_keys, want), len(read_keys) - 1)
                hit = read_keys[at] == want
                seen |= hit
                best = np.where(hit, np.maximum(best, read_scores[at]), best)
    fine = between[~seen | (best >= cut)]
    if len(fine):
        scores[fine] = score(quads[fine])
    return scores


def _plausible(quads: np.ndarray, image_shape: tuple[int, ...], differs: np.ndarray | None) -> np.ndarray:
    """(N,) bool: which windows, (N, 4, 2) corners, could be accepted at all: wholly inside the
    photo and, where the table is known, not mostly bare table (tested at 5 × 7 points of each)."""
    h, w = image_shape[:2]
    ok = (quads.min(axis=(1, 2)) >= 0) & (quads[:, :, 0].max(axis=1) <= w - 1) & (quads[:, :, 1].max(axis=1) <= h - 1)
    if differs is None or not ok.any():
        return ok
    u, v = np.meshgrid(np.linspace(0.1, 0.9, 5), np.linspace(0.1, 0.9, 7))
    u, v = u.ravel()[None, :], v.ravel()[None, :]
    # (N, 35) x and y, a parallelogram is close enough; each coordinate on its own (the same
    # float operations as on (N, 35, 2) points, without numpy's slow inner loop of 2).
    x, y = (quads[:, None, 0, i] + u * (quads[:, None, 1, i] - quads[:, None, 0, i])
            + v * (quads[:, None, 3, i] - quads[:, None, 0, i]) for i in (0, 1))
    xi = np.clip(np.round(x).astype(int), 0, w - 1)
    yi = np.clip(np.round(y).astype(int), 0, h - 1)
    return ok & (differs.reshape(-1)[yi * w + xi].mean(axis=1) >= NOT_BARE_MIN)


def _offsets(reach: float, step: float) -> np.ndarray:
    n = int(np.floor(reach / step))
    return np.arange(-n, n + 1, dtype=np.float64) * step


def _quad(rect: tuple) -> np.ndarray:
    return cv2.boxPoints(rect).astype(np.float32)


def _quads(rects: list[tuple]) -> np.ndarray:
    """:func:`_quad` of many rotated rects ``((cx, cy), (w, h), angle_deg)`` at once (or of an
    (N, 5) float64 array of ``cx, cy, w, h, angle_deg`` rows): (N, 4, 2) float32 image px, the same
    values bit for bit.

    ``cv2.boxPoints`` (``cv::RotatedRect::points``) in numpy: the rect in float32, the angle's
    cosine and sine in double rounded to float32 and halved, each corner the centre plus or minus
    the two half-sides, in the same float32 operations and order. The window search turns a few
    thousand rects into corners per photo; one OpenCV call each cost more than the arithmetic.
    """
    if len(rects) == 0:
        return np.zeros((0, 4, 2), np.float32)
    v = (rects if isinstance(rects, np.ndarray) else
         np.array([(x, y, w, h, a) for (x, y), (w, h), a in rects], np.float64)).astype(np.float32)
    cx, cy, w, h = v[:, 0], v[:, 1], v[:, 2], v[:, 3]
    rad = v[:, 4].astype(np.float64) * np.pi / 180.0
    b = np.cos(rad).astype(np.float32) * np.float32(0.5)
    a = np.sin(rad).astype(np.float32) * np.float32(0.5)
    out = np.empty((len(v), 4, 2), np.float32)
    out[:, 0, 0], out[:, 0, 1] = cx - a * h - b * w, cy + b * h - a * w
    out[:, 1, 0], out[:, 1, 1] = cx + a * h - b * w, cy - b * h - a * w
    out[:, 2, 0], out[:, 2, 1] = cx + a * h + b * w, cy - b * h + a * w
    out[:, 3, 0], out[:, 3, 1] = cx - a * h + b * w, cy + b * h + a * w
    return out


def _score(image: np.ndarray, deck, rects: list[tuple]) -> np.ndarray:
    return _score_quads(image, deck, [_quad(r) for r in rects])


def _score_quads(image: np.ndarray, deck, quads) -> np.ndarray:
    """The deck's quick score (ZNCC against its label centroids) of each window's corners: the
    score of ``classify_quads(..., quick=True)``, without a Classification per window."""
    from companion.vision.cards import order_quads
    from companion.vision.deck import card_patches, describe

    quads = list(quads)
    if not quads:
        return np.zeros(0)
    ordered = order_quads(np.stack([np.asarray(q, np.float32).reshape(4, 2) for q in quads]))
    scores, _ = deck.match(describe(card_patches(image, list(ordered)), deck.balanced), quick=True)
    return scores.max(axis=1).astype(np.float64)


def _refine(image: np.ndarray, deck, seeds: list[tuple], scores: np.ndarray, cw: float, score=None,
            steps=REFINE_STEPS, rounds: int = REFINE_ROUNDS) -> list[tuple]:
    """Step 3: each seed moved to the best place and turn nearby, all seeds side by side, by the
    quick score (``scores``, the seeds') or by ``score`` (window corners (N, 4, 2) → scores), with
    ``steps`` ((fraction of the card width, degrees), coarse to fine), at most ``rounds`` moves a step."""
    best = list(seeds)
    best_score = list(scores)
    for frac, deg in steps:
        d = frac * cw
        moves = [(d, 0, 0), (-d, 0, 0), (0, d, 0), (0, -d, 0), (0, 0, deg), (0, 0, -deg)]
        active = set(range(len(best)))
        came_by: dict[int, int] = {}  # seed → the move that brought it to its best place
        for _ in range(rounds):
            if not active:
                break
            tries, who, how = [], [], []
            for k in sorted(active):
                (x, y), wh, a = best[k]
                for m, (mx, my, ma) in enumerate(moves):
                    if k in came_by and m == came_by[k] ^ 1:
                        continue  # back where it came from: read already, and beaten
                    tries.append(((x + mx, y + my), wh, a + ma))
                    who.append(k)
                    how.append(m)
            s = _score(image, deck, tries) if score is None else score(_quads(tries))
            moved = set()
            for i, k in enumerate(who):
                if s[i] > best_score[k]:
                    best[k], best_score[k] = tries[i], float(s[i])
                    came_by[k] = how[i]
                    moved.add(k)
            active = moved
    return best


def search_cards(image: np.ndarray, deck, readings, regions: list[Region], card_wh: tuple[float, float],
                 differs: np.ndarray | None = None, near: list | None = None) -> list:
    """Steps 2–4 of the module doc: cards the deck finds in the leftover regions.

    The windows are first screened and climbed on the quick score's estimate (the ordinary
    search); only the regions it leaves unexplained (:func:`_unexplained`: a part or an unknown
    outline no card found holds, the part of a blob no card read covers, in which a window away
    from the cards read made a seed's cut) are searched again on the cards' layout
    (``LAYOUT_BLUR``, :func:`_layout_search`), with the cards found so far taken. Its first grids
    go over what the first grids left (decided without the readings only a second grid reached,
    :func:`_second_only`, and without the second grids' windows: as before pat48), its second grids
    over what every reading and window left (as pat48), and a region only the latter gives (cut by
    a second-grid name) gets a first grid too, whose seeds come after the others'.

    Args:
        image: (H, W, 3) uint8 BGR.
        deck: a :class:`companion.vision.deck.Deck`.
        readings: the named cards so far (Classification); new cards must not overlap them.
        regions: from :func:`leftover_regions`.
        card_wh: (short, long) card side, image px.
        differs: :func:`differs_from_table`, or None (then the bare-table test is skipped).
        near: if given, a list this appends to: the places the searches climbed to and snapped that
            are a card by their outline (all four sides backed, ``EDGE_TURN_SUPPORT``; of the card
            size) and read within ``NEAR_BAND`` under the deck's threshold, but were not named (under
            the search's bar, or "unknown"), each as an "unknown" reading (confidence 0.5, its quad
            the snapped outline, its per-label scores kept), where every test a named reading passes
            but the name's holds (inside the photo, off the cards taken, on its region, not bare
            table, not only a second grid's). :func:`companion.vision.cards.read_cards` reports one
            where nothing else was (``cards._with_refused``), so that a card found but not named
            counts as found, and its local features may still name it (``cards._named_by_features``).
            It changes no reading returned.

    Returns:
        New :class:`companion.vision.deck.Classification` readings, each named (never
        ``"unknown"``), at most one per place.
    """
    seen: dict = {}
    title_maps: list = []  # _title_maps of the frame, decoded at most once, when first asked (_on_title)

    def maps() -> list:
        if not title_maps:
            title_maps.append(_title_maps(image, card_wh))
        return title_maps[0]

    refused: list = []  # contested readings (_contested): not named, their places taken as if they were
    second: list = []  # of found and refused, those only a second grid reached (_second_only)
    found = _search_regions(image, deck, readings, regions, card_wh, differs, layout=False, seen=seen,
                            refused=refused, second=second, maps=maps, near=near)
    named = [r for r in readings if r.label != UNKNOWN] + found + refused
    # The layout search's first grids are laid over what the first grids left unexplained, decided as
    # without a second grid (from the first grids' windows and readings), and its second grids over
    # what every window and reading left, as pat48 did (lost49: pat48's second-grid names left no
    # window outside a named card on drawn touching flat 13502 and watercolour tilt 13680, so no
    # layout search ran where main's found a right card; on pattern 13507 they cut the region the
    # layout search got, whose first-grid seed then read "unknown" beside the right maki_3; but on
    # watercolour 13521 the second grid found two chopsticks only over the cut region). The layout
    # search takes every place named so far, the second grid's too.
    from_second = {id(r) for r in second}
    first_seen = {k: seen[k][seen["first_grid"]] for k in ("centres", "owner", "scores")} if seen else seen
    cut = deck.threshold - SEED_MARGIN
    left = _unexplained(regions, [r for r in named if id(r) not in from_second], card_wh, first_seen, cut)
    left_second = _unexplained(regions, named, card_wh, seen, cut)
    if not left and not left_second:
        return found
    return found + _layout_search(image, deck, named, left, card_wh, differs, second_regions=left_second,
                                  maps=maps, near=near)


def _layout_search(image: np.ndarray, deck, readings, regions: list[Region], card_wh: tuple[float, float],
                   differs: np.ndarray | None, second_regions: list[Region] | None = None, maps=None,
                   near: list | None = None) -> list:
    """The search of :func:`search_cards` again on ``regions`` (those the ordinary search left
    unexplained), screened and climbed on the cards' layout (``LAYOUT_BLUR``); ``readings`` are
    all named cards so far, the ordinary search's included; ``second_regions``, if given, get the
    second grids, and a first grid of their own where not among ``regions`` (:func:`_search_regions`);
    ``near`` as :func:`search_cards`'. Returns its new readings."""
    return _search_regions(image, deck, readings, regions, card_wh, differs, layout=True,
                           second_regions=second_regions, maps=maps, near=near)


def _unexplained(regions: list[Region], named, card_wh: tuple[float, float], seen: dict | None = None,
                 cut: float = -np.inf) -> list[Region]:
    """The regions, or the parts of them, that no named reading explains: a part or an unknown
    outline whose centre lies in no named card; the points of a blob outside every named card
    (grown by 1.25, as :func:`leftover_regions` paints them out), if they still make
    ``LAYOUT_AREA_MIN`` of a card (a new Region of those points, its area in proportion).
    With ``seen`` (the ordinary search's windows, :func:`_search_regions`), only a region in
    which a window whose centre lies in no named card scored ``cut`` or more: where that search
    saw nothing a seed could start from (a mat's print, a cloth's pattern), it is not searched
    again.

    Args:
        regions: from :func:`leftover_regions`.
        named: named Classification readings (those the regions were made without, and those
            the search found in them).
        card_wh: (short, long) card side, px.
        seen: {"centres": (N, 2) px, "owner": (N,) region index, "scores": (N,) ZNCC estimate,
            -inf for a window not scored}, or None (every region may be kept).
        cut: the score (ZNCC) a window of ``seen`` must reach.

    Returns:
        The unexplained regions (the given Region objects, or new ones for a blob's free part), in
        the order given; never a blob under ``LAYOUT_AREA_MIN`` of a card, whether or not any card
        is named.
    """
    from companion.vision.cards import points_in_quads

    quads = [np.asarray(r.quad, np.float32).reshape(4, 2) for r in named]
    if seen is not None and len(seen.get("scores", ())):
        hit = seen["scores"] >= cut
        if quads and hit.any():
            hit[hit] = ~points_in_quads(seen["centres"][hit], np.stack(quads)).any(axis=1)
        promising = set(seen["owner"][hit].tolist())
        regions = [reg for i, reg in enumerate(regions) if i in promising]
    elif seen is not None:
        return []  # no window was scored: nothing a seed could start from
    least = LAYOUT_AREA_MIN * card_wh[0] * card_wh[1]
    if not quads:
        # Nothing named: every part is unexplained, and a blob only if it makes a card (the review:
        # without this, an empty checker table's 100 slivers of 0.12-0.39 card were searched again).
        return [reg for reg in regions if reg.source != "blob" or reg.area >= least]
    grown = [_grown(q, 1.25) for q in quads]
    out = []
    for reg in regions:
        if reg.source != "blob":
            c = reg.points.mean(axis=0)
            if not any(cv2.pointPolygonTest(q.reshape(-1, 1, 2), (float(c[0]), float(c[1])), False) >= 0
                       for q in quads):
                out.append(reg)
            continue
        if reg.area < least:
            continue
        free = np.ones(len(reg.points), bool)
        for g in grown:
            free &= ~_inside_convex(g, reg.points)
        if free.all():
            out.append(reg)
        elif reg.area * free.mean() >= least:
            out.append(Region(reg.points[free], float(reg.area * free.mean()), "blob"))
    return out


def _inside_convex(quad: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """(N,) bool: which of ``pts`` (N, 2) lie inside the convex ``quad`` (4, 2), edges included."""
    v = np.roll(quad, -1, axis=0) - quad  # (4, 2) side vectors
    rel = pts[:, None, :] - quad[None, :, :]
    cross = v[None, :, 0] * rel[:, :, 1] - v[None, :, 1] * rel[:, :, 0]
    return np.all(cross >= 0, axis=1) | np.all(cross <= 0, axis=1)


def _search_regions(image: np.ndarray, deck, readings, regions: list[Region], card_wh: tuple[float, float],
                    differs: np.ndarray | None, layout: bool, seen: dict | None = None,
                    refused: list | None = None, second: list | None = None,
                    second_regions: list[Region] | None = None, maps=None, near: list | None = None) -> list:
    """One search of :func:`search_cards` over ``regions``: on the quick score's estimate
    (``layout`` False), or on the cards' layout (``layout`` True: screened and climbed with the
    windows and centroids blurred by ``LAYOUT_BLUR``, a coarser first step ``LAYOUT_STEP`` and up
    to ``LAYOUT_ROUNDS`` moves a step, then each seed put in place on the unblurred estimate).
    ``seen``, a dict, is given the windows screened (see :func:`_unexplained`), and ``first_grid``,
    (N,) bool, which of them are a first grid's; ``refused``, a list,
    the readings :func:`_contested` kept from being named (their places stay taken).
    ``second``, a list, is given the second-grid-only readings (:func:`_second_only`) that passed
    every test, whether named or refused (they are in the list returned or in ``refused`` too).
    With ``second_regions`` (a list, maybe empty), ``regions`` get only first grids, and
    ``second_regions`` second grids (where :func:`_edge_turn` gives a turn) and, where not among
    ``regions``, first grids whose seeds are picked after those of ``regions``, from their own
    ``MAX_SEEDS``, and whose readings are held to the first grids' tests. ``maps``: the frame's mat
    maps, called when needed (:func:`_on_title`); None: no mat known. ``near``, a list, is given the
    unnamed places that are a card by their outline (see :func:`search_cards`)."""
    from companion.vision.cards import order_quad, order_quads, pixels_in, refine_quads_sides
    from companion.vision.deck import checked, classify_quads
    from companion.vision.window_screen import Screen

    boxes = [cv2.minAreaRect(reg.points.reshape(-1, 1, 2)) for reg in regions]
    if second_regions is None:
        grids = [_window_grid(reg, card_wh, edge_turn=_edge_turn(image, reg, card_wh, box), box=box)
                 for reg, box in zip(regions, boxes)]
        # Which regions' first grids make the first seed set (all here) and the second (none).
        set0, set1 = np.ones(len(regions), bool), np.zeros(len(regions), bool)
    else:
        # First grids over ``regions`` (the first seed set) and over ``second_regions`` (the second),
        # one grid for a region in both; second grids (at the edges' turn) over ``second_regions``.
        grids = [_window_grid(reg, card_wh, box=box) for reg, box in zip(regions, boxes)]
        set0, set1 = [True] * len(regions), [False] * len(regions)
        for reg in second_regions:
            box = cv2.minAreaRect(reg.points.reshape(-1, 1, 2))
            rects, cells = _window_grid(reg, card_wh, edge_turn=_edge_turn(image, reg, card_wh, box), box=box)
            same = next((j for j, r in enumerate(regions) if reg is r or (
                len(reg.points) == len(r.points) and np.array_equal(reg.points, r.points))), None)
            if same is not None:
                set1[same] = True
                keep = cells[:, 0] >= 2
                rects, cells = rects[keep], cells[keep]
            grids.append((rects, cells))
            set0.append(False)
            set1.append(same is None)
        set0, set1 = np.array(set0, bool), np.array(set1, bool)
        regions = list(regions) + list(second_regions)
    # (N, 5) rects, the region of each, and its (region, turn, row, column) cell.
    windows = np.concatenate([r for r, _ in grids]) if grids else np.zeros((0, 5))
    owner = np.concatenate([np.full(len(r), i) for i, (r, _) in enumerate(grids)]) if grids else np.zeros(0, int)
    cells = np.concatenate([np.column_stack([np.full(len(c), i), c]) for i, (_, c) in enumerate(grids)]) \
        if grids else np.zeros((0, 4), np.int64)
    if not len(windows):
        return []
    corners = _quads(windows)  # (N, 4, 2), each window's corners once
    keep = _plausible(corners, image.shape, differs)
    corners, windows, owner, cells = corners[keep], windows[keep], owner[keep], cells[keep]
    if not len(windows):
        return []
    cw, ch = card_wh
    # Windows are scored by the screen's estimate of the quick score in its place (about a fifth of
    # the work; within SCREEN_MARGIN of it on the tuning photos, with no slack added here: a window
    # the estimate puts under a seed's cut is not a seed, so an estimate low by up to the margin can
    # cost a card, never give a name), and the compass search climbs it too: only where a seed's
    # search ends is read in full (snapped and classified below). On the cards' layout
    # (``layout``) it is no longer that estimate, but it still only picks seeds, never a name.
    screen = Screen(image, deck, cw, blur=LAYOUT_BLUR if layout else 0.0)
    scores = _coarse_first(image, deck, corners, cells, score=screen.scores)
    if seen is not None:
        seen.update(centres=windows[:, :2], owner=owner, scores=scores, first_grid=cells[:, 1] < 2)
    seeds, seed_owner, seed_index = [], [], []
    seed_c = np.zeros((0, 2))  # the seeds' centres, px: a new seed is tested against all at once
    # The first grids' seeds are picked as if no second grid were laid (their own MAX_SEEDS, in the
    # same order: argsort of the same scores), then the second grids' (turns 2 and 3, at a blob's
    # edges' turn) from their own EDGE_TURN_SEEDS, none within a seed's reach of one taken that
    # screened as well or better (a first-grid seed screening worse does not keep it out: on loose
    # pattern 1444 the wasabi's second-grid seed lies beside a weaker first-grid one).
    # (lost49) On the layout, two first-grid seed sets, each picked as its own search would pick it:
    # over what the first grids left (``regions``: the search before pat48's seeds) and over what
    # every reading left (``second_regions``: pat48's), a seed in both taken once; the second grids'
    # seeds are kept from pat48's (the second set's) and their own.
    on_second = cells[:, 1] >= 2
    parts = [(np.flatnonzero(~on_second & set0[owner]), MAX_SEEDS),
             (np.flatnonzero(~on_second & set1[owner]), MAX_SEEDS),
             (np.flatnonzero(on_second), EDGE_TURN_SEEDS)]
    spaced_by = 1 if second_regions is not None else 0
    seed_s = np.zeros(0)
    member = np.zeros((0, 3), bool)  # which part (first set, second set, second grids) picked each seed
    for n_part, (part, budget) in enumerate(parts):
        # A part's seeds are kept apart from its own set's: the first set's from the first set's, the
        # second's from the second's, the second grids' from their own and the set before them.
        rivals = member[:, n_part] | (member[:, spaced_by] if n_part == 2 else False)
        taken_here = 0
        for i in part[np.argsort(-scores[part])]:
            if scores[i] < deck.threshold - SEED_MARGIN or taken_here >= budget:
                break
            c = windows[i, :2]
            if rivals.any() and ((np.hypot(*(c - seed_c).T) < 0.35 * cw) & (seed_s >= scores[i]) & rivals).any():
                continue
            taken_here += 1
            if i in seed_index:  # picked by the first set too: climbed once
                member[seed_index.index(i), n_part] = True
                rivals[seed_index.index(i)] = True
                continue
            seed_c = np.vstack([seed_c, c])
            seed_s = np.append(seed_s, scores[i])
            member = np.vstack([member, np.eye(3, dtype=bool)[n_part]])
            rivals = np.append(rivals, True)
            seeds += _rects(windows[i:i + 1])
            seed_owner.append(int(owner[i]))
            seed_index.append(int(i))
    if not seeds:
        return []
    sharp = None  # the unblurred screen, on the cards' layout (``screen`` is, otherwise)
    if not layout:
        refined = _refine(image, deck, seeds, screen.scores(corners[seed_index]), cw, score=screen.scores)
    else:
        refined = _refine(image, deck, seeds, screen.scores(corners[seed_index]), cw, score=screen.scores,
                          steps=(LAYOUT_STEP,) + REFINE_STEPS, rounds=LAYOUT_ROUNDS)
        # The layout's peak found, the card's own print puts it exactly (the screen unblurred, the
        # finest step): a period off is a valley of the layout's look, not a peak of it.
        sharp = Screen(image, deck, cw)
        refined = _refine(image, deck, refined, sharp.scores(_quads(refined)), cw, score=sharp.scores,
                          steps=REFINE_STEPS[-1:])
    # Only a window whose sides snap to a card's outline can be a card (``SUPPORT_MIN``): a pattern
    # on the table can resemble a card's art, never its edges. It is read where it was found and
    # where it snapped, and the better reading is kept (the snap unless it reads clearly worse).
    quads = list(order_quads(_quads(refined)))
    taken = [np.asarray(r.quad, np.float32) for r in readings if r.label != UNKNOWN]
    second_only, reached = _second_only(refined, cells[seed_index, 1] >= 2, cw)
    first_set_only = member[:, 0] & ~member[:, 1] & (second_regions is not None)
    kept, snapped, backed, side_support = [], [], [], []
    for k, (q, (sq, support, all_sides, sides)) in enumerate(zip(quads, refine_quads_sides(
            image, quads, search_px=max(3.0, 0.05 * cw)))):
        sq = order_quad(sq)
        s = np.linalg.norm(sq - np.roll(sq, -1, axis=0), axis=1)
        card_sized = abs(0.5 * (s[0] + s[2]) - cw) < 0.08 * cw and abs(0.5 * (s[1] + s[3]) - ch) < 0.08 * ch
        if (support >= SUPPORT_MIN and card_sized
                and not (_on_taken(q, taken, cw * ch) and _on_taken(sq, taken, cw * ch))):
            kept.append(k)
            snapped.append(sq)
            backed.append(support >= EDGE_TURN_SUPPORT and all_sides)
            side_support.append(sides)
    if not kept:
        return []
    # The checks that can only make a name "unknown" (deck.checked) are left for the reading kept.
    results = classify_quads(image, [quads[k] for k in kept] + snapped, deck, checks=False)
    n = len(kept)
    out = []
    mat_markers: dict = {}  # region → the mat markers decoded about it (_off_mat), on first need
    for i in sorted(range(n), key=lambda i: -max(results[i].score, results[n + i].score)):
        r = results[n + i] if results[n + i].score >= results[i].score - 0.02 else results[i]
        if r.label == UNKNOWN or r.score < deck.threshold + WINDOW_MARGIN:
            if near is not None and backed[i] and results[n + i].score >= deck.threshold - NEAR_BAND:
                _keep_near(image, results[n + i], near, taken, regions[seed_owner[kept[i]]], card_wh, differs,
                           reached[kept[i]], second_only[kept[i]])
            continue
        if reached[kept[i]]:
            continue  # the first grid's seed climbed here too: its reading stands (as on main)
        strict = second_only[kept[i]]
        if strict and (r.score < deck.threshold + WINDOW_MARGIN + EDGE_TURN_MARGIN or not backed[i]):
            continue
        q = np.asarray(r.quad, np.float32)
        if q.min() < 0 or q[:, 0].max() > image.shape[1] - 1 or q[:, 1].max() > image.shape[0] - 1:
            continue  # a card cut by the photo's border cannot be checked whole
        if any(overlap_area(q, t) > OVERLAP_MAX * cw * ch for t in taken):
            continue
        if first_set_only[kept[i]] and sum(overlap_area(q, t) for t in taken) > OVERLAP_MAX * cw * ch:
            # (lost49) A place only the layout's first seed set reached (the grid laid as if no
            # second-grid name were there) may overlap the cards named around it by OVERLAP_MAX in
            # all, not each: on held-out watercolour 14134 the search before pat48's "squid_nigiri"
            # 0.667 lay on two second-grid names, 0.17 and 0.12 of a card (the right cards this set
            # gives back overlap 0.00-0.04 in all).
            continue
        if not _accounts_for(q, regions[seed_owner[kept[i]]], cw * ch):
            continue
        if differs is not None:
            inside, differing = pixels_in(q, differs)
            if differing < (EDGE_TURN_NOT_BARE if strict else NOT_BARE_MIN) * max(inside, 1):
                continue
        o = seed_owner[kept[i]]
        if o not in mat_markers:  # decoded once a region, about its box (what a window's crop would hold)
            mat_markers[o] = _mat_markers(image, _near_box(regions[o].points, card_wh), card_wh)
        if _off_mat(image, q, card_wh, mat_markers[o]) > OFF_MAT_MAX:
            # The wood beyond the mat (pile49; window and layout search): not named, the place stays
            # taken (names only taken away).
            taken.append(q)
            continue
        r = checked(image, r, deck)  # the dearest test but one, and one no other depends on
        if r.label == UNKNOWN:
            continue
        if strict and second is not None:
            second.append(r)  # named or refused below, a second-grid-only reading (lost49)
        if _contested(image, deck, r, q, windows, corners, scores, sharp if sharp is not None else screen, cw, ch,
                      taken):
            # Not named, but the place stays taken, as if it were: no later seed, and no layout
            # search, reads anything else there (this only ever takes a name away).
            taken.append(q)
            if refused is not None:
                refused.append(r)
            continue
        if _on_title(image, deck, snapped[i], side_support[i], deck.labels.index(r.label), maps):
            # A mat's printed title (title50): not named, the place stays taken (as _off_mat).
            taken.append(q)
            continue
        taken.append(q)
        out.append(r)
    return out


def _keep_near(image: np.ndarray, reading, near: list, taken: list[np.ndarray], region: Region,
               card_wh: tuple[float, float], differs: np.ndarray | None, reached: bool, strict: bool) -> None:
    """Append ``reading`` (a snapped, fully backed window read under the search's bar) to ``near``
    as "unknown" (confidence 0.5: a card by its outline, undecided by its face) if it passes the
    tests a named search reading passes but the name's: wholly inside the photo, over no card
    ``taken`` (quads, image px) by more than ``OVERLAP_MAX`` of a card, on its ``region``
    (:func:`_accounts_for`), not mostly bare table (``NOT_BARE_MIN`` of ``differs``; a place only a
    second grid reached, ``strict``, ``EDGE_TURN_NOT_BARE``, as for a name), and not a second-grid
    place a first grid's seed reached too (``reached``: the first grid's reading is the one there).
    Nothing else is changed: the place is not taken, no name is given or taken away.

    Args:
        reading: :class:`companion.vision.deck.Classification`, quad (4, 2) float32 image px.
        card_wh: (short, long) card side, image px.
    """
    from companion.vision.cards import pixels_in

    if reached:
        return
    cw, ch = card_wh
    q = np.asarray(reading.quad, np.float32)
    if q.min() < 0 or q[:, 0].max() > image.shape[1] - 1 or q[:, 1].max() > image.shape[0] - 1:
        return
    if any(overlap_area(q, t) > OVERLAP_MAX * cw * ch for t in taken):
        return
    if not _accounts_for(q, region, cw * ch):
        return
    if differs is not None:
        inside, differing = pixels_in(q, differs)
        if differing < (EDGE_TURN_NOT_BARE if strict else NOT_BARE_MIN) * max(inside, 1):
            return
    near.append(replace(reading, label=UNKNOWN, confidence=0.5))


def _second_only(refined: list[tuple], from_second: np.ndarray, cw: float) -> tuple[np.ndarray, np.ndarray]:
    """Which climbed seeds of one search came from a second grid (at a blob's edges' turn,
    :func:`_edge_turn`), split by whether a first-grid seed's climb ended at the same place.

    Args:
        refined: the climbed seeds, ``((cx, cy), (w, h), angle_deg)`` image px (``_refine``).
        from_second: (N,) bool, the seed came from a second grid (its cell's turn 2 or 3).
        cw: the card's short side, px.

    Returns:
        ``(second_only, reached)``, (N,) bool each: a second-grid seed no first-grid seed's climb
        ended within ``EDGE_TURN_REACH`` card widths and ``EDGE_TURN_REACH_DEG`` (mod 180) of (its
        reading is held to the stricter test), and one a first-grid seed's did (its reading is not
        named: the first grid's there is main's).

    Why (pat48, the second review of pat47): the second grid's wrong maki_3 on drawn touching
    pattern 3526 lay where a first-grid seed also climbed and read "unknown", and its two spurious
    names (watercolour 3505, 3519) were second-grid-only readings half on bare table."""
    n = len(refined)
    from_second = np.asarray(from_second, bool)
    if n == 0 or not from_second.any():
        return np.zeros(n, bool), np.zeros(n, bool)
    c = np.array([[x, y] for (x, y), _, _ in refined], np.float64)
    a = np.array([ang for _, _, ang in refined], np.float64)
    first = np.flatnonzero(~from_second)
    reached = np.zeros(n, bool)
    for k in np.flatnonzero(from_second):
        if len(first):
            near = np.hypot(*(c[first] - c[k]).T) < EDGE_TURN_REACH * cw
            turned = np.abs((a[first] - a[k] + 90.0) % 180.0 - 90.0) < EDGE_TURN_REACH_DEG
            reached[k] = bool((near & turned).any())
    return from_second & ~reached, reached


def _contested(image: np.ndarray, deck, reading, quad: np.ndarray, windows: np.ndarray, corners: np.ndarray,
               scores: np.ndarray, screen, cw: float, ch: float, taken: list | None = None) -> bool:
    """Whether a window-search ``reading`` (its quad ``quad``, (4, 2) px) about to be named is
    contested by the same search's windows turned the other way over it: the best screened window
    (of ``windows`` (N, 5), ``corners`` (N, 4, 2) and ``scores``, −inf for one not screened) whose
    long side lies more than ``TURN_APART`` off the reading's, its centre within 0.9 of a card's long
    side of the reading's and overlapping it by more than ``OVERLAP_MAX`` of a card, is climbed
    (``REFINE_STEPS`` on ``screen``, the search's unblurred screen), snapped to its edges and read
    where it lies and where it snapped, the better of the two kept (a seed keeps the snap unless
    it reads 0.02 worse; the rival is only compared, never named); if it names **another** label with a **higher** score and still overlaps the reading by
    more than ``OVERLAP_MAX``, the place holds two rival readings turned apart and neither is named
    here (the rival is not named either: this takes the reading's name away, though the later
    stages then see a taken place, not a name, and may read otherwise around it). So too where the
    reading's own window turned by 30-150° about its centre and climbed reads another label better
    (:func:`_turned_rival`, for a reading near the bar only; ``taken``, the quads of the places
    already taken, is passed to its second climb).

    Why: the seed spacing (0.35 card widths) ignores a window's turn, so where a card's own upright
    window and a window lying sideways over it and its neighbour are close, the better-screened of the
    two can take the place; on stop 43's drawn mat scenes the sideways one, read in full, named a
    tableau chopsticks "sashimi" (``TURN_APART``)."""
    limit = OVERLAP_MAX * cw * ch
    (x, y), (w, h), ang = cv2.minAreaRect(np.asarray(quad, np.float32).reshape(-1, 1, 2))
    long_dir = ang if w > h else ang + 90.0
    # The reading's own window at other turns first (stop 44): a card lying across the grid's turns.
    if _turned_rival(image, deck, reading, quad, (x, y), long_dir, screen, cw, ch, taken):
        return True
    if not len(windows):
        return False
    w_long = np.where(windows[:, 2] > windows[:, 3], windows[:, 4], windows[:, 4] + 90.0)
    off = np.abs(((w_long - long_dir) + 90.0) % 180.0 - 90.0)
    near = np.flatnonzero((off > TURN_APART) & np.isfinite(scores)
                          & (np.hypot(windows[:, 0] - x, windows[:, 1] - y) < 0.9 * ch))
    j = next((j for j in near[np.argsort(-scores[near], kind="stable")] if overlap_area(quad, corners[j]) > limit), None)
    if j is None:
        return False
    # Cheap first (RIVAL_SLACK): the screen's estimate of the rival window, then of its climbed place,
    # against the estimate of the reading's own quad; only a rival near or above it is read in full.
    own = float(screen.scores(np.asarray(quad, np.float32)[None])[0])
    start = screen.scores(corners[j:j + 1])
    if start[0] < own - RIVAL_SLACK[0]:
        return False
    rect = _refine(image, deck, _rects(windows[j:j + 1]), start, cw, score=screen.scores)
    if screen.scores(_quads(rect))[0] < own - RIVAL_SLACK[1]:
        return False
    return _rival_reads_better(image, deck, reading, quad, rect, cw, limit)


def _rival_reads_better(image: np.ndarray, deck, reading, quad: np.ndarray, rect, cw: float, limit: float) -> bool:
    """Whether the rival window ``rect`` (one ``_refine`` rect, px), snapped to its edges and read
    where it lies and where it snapped (the better kept, checks off: it is only compared, never
    named), names **another** label than ``reading`` with a **higher** score and overlaps ``quad``
    ((4, 2) px) by more than ``limit`` px² (:func:`_contested`, :func:`_turned_rival`)."""
    from companion.vision.cards import order_quad, order_quads, refine_quads
    from companion.vision.deck import classify_quads

    rq = order_quads(_quads(rect))[0]
    sq, _, _ = refine_quads(image, [rq], search_px=max(3.0, 0.05 * cw))[0]
    rival = max(classify_quads(image, [rq, order_quad(sq)], deck, checks=False), key=lambda z: z.score)
    return (rival.label not in (UNKNOWN, reading.label) and rival.score > reading.score
            and overlap_area(quad, np.asarray(rival.quad, np.float32)) > limit)


def _turned_rival(image: np.ndarray, deck, reading, quad: np.ndarray, centre: tuple[float, float], long_dir: float,
                  screen, cw: float, ch: float, taken: list | None = None) -> bool:
    """Whether the reading's own window, turned about its centre by each of ``TURN_TRIES`` and
    climbed, reads **another** label **better** at a turn more than ``TURN_SAME`` off the reading's,
    still overlapping it by more than ``OVERLAP_MAX`` of a card (part of :func:`_contested`).

    Only a reading under ``deck.threshold + TURN_CHECK`` is tried. Each turned window (``cw`` ×
    ``ch`` px, centred on ``centre``, px) is climbed on ``screen`` as the layout search climbs its
    seeds (``LAYOUT_STEP``, then ``REFINE_STEPS``, ``LAYOUT_ROUNDS`` moves a step: the card's own
    place can be a fifth of a card from the reading's centre); those that came back within
    ``TURN_SAME`` of the reading's turn are dropped, and the best of the rest by the screen's
    estimate is read in full (where it lies and snapped, the better kept) only if that estimate
    trails the estimate of the reading's own quad by at most ``RIVAL_SLACK[1]``. Where that finds
    no rival, the turns are climbed a second time on every label's look but the reading's, from a
    grid about it (stop 48, :func:`_turned_climb` with ``taken``).

    Args:
        image: (H, W, 3) uint8 BGR.
        deck: the enrolled deck.
        reading: the Classification about to be named; ``quad`` its (4, 2) float32 corners, px.
        centre: its centre (px); long_dir: its long side's direction (degrees, image axes).
        screen: the search's unblurred :class:`companion.vision.window_screen.Screen`.
        cw, ch: the photo's card size (short, long side), px.
        taken: (4, 2) px quads of the places already taken (named cards and refused readings).
    """
    if reading.score >= deck.threshold + TURN_CHECK:
        return False
    own = float(screen.scores(np.asarray(quad, np.float32)[None])[0])
    if _turned_climb(image, deck, reading, quad, centre, long_dir, screen.scores, own, cw, ch):
        return True
    # Stop 48: the same turns climbed on every label's look but the reading's, for a rival that the
    # reading's own look drew back (a chopsticks under a "sashimi" window: every turn of it, climbed
    # on all labels, came back to "sashimi" on the chopsticks' red band). The rival is still read in
    # full on every label; one lying on a card already named (``taken``) is that card, not a rival.
    li = deck.labels.index(reading.label)
    return _turned_climb(image, deck, reading, quad, centre, long_dir,
                         lambda q: screen.scores(q, without=li), own, cw, ch, taken)


def _turned_climb(image: np.ndarray, deck, reading, quad: np.ndarray, centre: tuple[float, float], long_dir: float,
                  score, own: float, cw: float, ch: float, taken: list | None = None) -> bool:
    """One climb of :func:`_turned_rival`: the reading's window turned by ``TURN_TRIES`` about
    ``centre`` and climbed on ``score`` (window corners (N, 4, 2) → (N,) estimates); the best by
    ``score`` that did not come back within ``TURN_SAME`` of the reading's turn is read in full if
    it trails ``own`` (the screen's estimate of the reading's quad) by at most ``RIVAL_SLACK[1]``.
    With ``taken`` (the second climb: (4, 2) px quads of the places already taken, named cards and
    refused readings alike), the climb starts from the best ``RIVAL_STARTS`` of a grid about the
    reading (``RIVAL_GRID``), and a climbed rival overlapping a taken place by over
    ``RIVAL_ON_TAKEN`` of a card, or ending more than ``RIVAL_REACH`` card widths from ``centre``,
    is dropped first. Returns True where the rival read in full names another label better."""
    a0 = long_dir - 90.0  # a window (cw, ch) at angle a has its long side along a + 90
    rects = np.array([[centre[0], centre[1], cw, ch, a0 + t] for t in TURN_TRIES], np.float64)
    if taken is not None:
        # Stop 48: from the best few of a grid of centres about the reading's, not from its centre
        # alone: the covered card's own window lies up to a quarter of a card off it, in a basin too
        # narrow for the climb's first steps to find (a chopsticks 15 px off, read 0.975 in place).
        off = RIVAL_GRID * cw
        dx, dy, t = np.meshgrid(off, off, np.asarray(TURN_TRIES, np.float64), indexing="ij")
        grid = np.column_stack([centre[0] + dx.ravel(), centre[1] + dy.ravel(), np.full(dx.size, cw),
                                np.full(dx.size, ch), a0 + t.ravel()])
        first = score(_quads(grid))
        rects = grid[np.argsort(-first, kind="stable")[:RIVAL_STARTS]]
    climbed = _refine(image, deck, _rects(rects), score(_quads(rects)), cw, score=score,
                      steps=(LAYOUT_STEP,) + REFINE_STEPS, rounds=LAYOUT_ROUNDS)
    est = score(_quads(climbed))
    turn = np.array([a for _, _, a in climbed], np.float64) - a0
    est[np.abs((turn + 90.0) % 180.0 - 90.0) <= TURN_SAME] = -np.inf  # back at the reading's own turn
    if taken is not None:
        qs = _quads(climbed)
        ends = qs.mean(axis=1)
        est[np.hypot(ends[:, 0] - centre[0], ends[:, 1] - centre[1]) > RIVAL_REACH * cw] = -np.inf
        for k in range(len(climbed)):
            if any(overlap_area(qs[k], t) > RIVAL_ON_TAKEN * cw * ch for t in taken):
                est[k] = -np.inf
    j = int(np.argmax(est))
    if est[j] < own - RIVAL_SLACK[1]:
        return False
    return _rival_reads_better(image, deck, reading, quad, climbed[j:j + 1], cw, OVERLAP_MAX * cw * ch)


def _on_taken(quad: np.ndarray, taken: list[np.ndarray], card_area: float) -> bool:
    """Whether ``quad`` (4, 2) px overlaps a card of ``taken`` (named readings' quads) clearly more
    than ``OVERLAP_MAX`` allows, so that a reading there is turned down whatever it reads.

    A seed of the search found again the card an outline already named (a part-card or a printed
    panel inside it: the card around it reads well) ends here; both its quads (as refined and as
    snapped) failing this, it is not read at all. The reading's quad is the same corners in another
    order (``classify_quads`` orders and may turn them), whose overlap may differ in the last bits:
    hence the 2 % and 1 px² of slack, so this never turns down a quad the final test would keep."""
    limit = OVERLAP_MAX * card_area * 1.02 + 1.0
    return any(overlap_area(quad, t) > limit for t in taken)


def _accounts_for(quad: np.ndarray, region: Region, card_area: float) -> bool:
    """Whether a card found from ``region`` explains it: a part or an unknown outline lies
    within the card (its centre does); a blob lies mostly within it, or fills much of it (a blob
    of several cards run together)."""
    if region.source != "blob":
        c = region.points.mean(axis=0)
        return cv2.pointPolygonTest(quad.reshape(-1, 1, 2), (float(c[0]), float(c[1])), False) >= 0
    inside = _points_in(quad, region.points)
    return inside >= 0.5 or inside * region.area >= 0.3 * card_area


def _points_in(quad: np.ndarray, pts: np.ndarray) -> float:
    """Fraction of ``pts`` (N, 2) inside the convex ``quad`` (4, 2) (:func:`_inside_convex`)."""
    return float(np.mean(_inside_convex(quad, pts)))


def overlap_area(a: np.ndarray, b: np.ndarray) -> float:
    """Area (px²) two convex quads share: ``a`` and ``b`` are (4, 2) corners in image px
    (``cv2.intersectConvexConvex``)."""
    area, _ = cv2.intersectConvexConvex(np.asarray(a, np.float32).reshape(-1, 1, 2),
                                        np.asarray(b, np.float32).reshape(-1, 1, 2))
    return float(area)
