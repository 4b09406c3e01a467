"""Learning a physical deck from example images, and naming cards against it.

How a card is described (descriptor version 1)
-----------------------------------------------
1. The card's quad is warped (homography, ``cv2.warpPerspective``) to an upright portrait
   patch of ``PATCH_W × PATCH_H`` px, slightly inset so a quad that is off by a pixel or two, or
   a rounded corner, does not bring in table pixels. The warp is done at 2× and reduced with
   ``INTER_AREA`` plus a light Gaussian blur, so the patch is an alias-free, slightly smoothed
   view that tolerates sub-pixel quad errors and focus blur.
2. The patch is white-balanced on the card's own paper (:func:`white_balance`: the eye judges a
   card's colours against its paper, whatever the light), then goes to CIE Lab. Each channel is
   made zero-mean over the card, the chroma channels
   are weighted, the corner pixels are zeroed (rounded corners), and the whole vector is scaled to
   unit length. Brightness changes scale all three channels alike and a colour cast mostly
   shifts a/b, so the result is insensitive to both; what is left is the card's *layout* of
   lightness and colour — enough to count maki rolls or tell a salmon topping from a squid one,
   which a colour histogram cannot.
3. The dot product of two such vectors is their zero-normalised cross-correlation (ZNCC,
   J. P. Lewis, "Fast Normalized Cross-Correlation", Vision Interface 1995), in [-1, 1].
   A query is compared with every template in both upright and 180° orientations in one
   matrix product; the quad's long side already fixes portrait, so those are the only two.

Look-alike cards (second stage)
-------------------------------
Cards of one type can differ only in a small mark: how many rolls a maki shows in a corner, the
fill of one symbol. At 30 × 43 px such a mark is a few pixels and the whole-card correlation of
the look-alikes differs by less than the noise. So the deck also keeps each example at twice the
resolution (``FINE_W × FINE_H``), finds at enrolment the *look-alike pairs* (whole-card ZNCC of
their fine templates above ``LOOKALIKE_MIN``) and, for each pair, the pixels where the two differ
(the discriminative region). When a card's best labels include look-alikes within
``LOOKALIKE_BAND`` of each other, they are compared again on that region alone, at the fine
resolution, once the card's face is lined up with the best label's template (ECC, an affine warp,
then ±1 px shifts). This is what the eye does: it looks where the cards differ. A face that cannot
be lined up so is not told apart from its look-alikes (``"unknown"``): its outline is off by more
than a small shift or turn (a corner found out on the table), so the patch cuts or squeezes the
marks in that corner, and the card reads as the look-alike with fewer marks. A window of the card's
known size (the game's tracker, from the mat) that cannot be lined up holds a face ECC cannot grip
(a pale one), and is compared over small shifts instead (± ``FINE_SHIFT`` px). It takes two looks
at the region, as the eye compares both the marks (their pattern) and how much ink they hold
(their level):

* by *pattern*: the region's ZNCC with each label's examples, each made zero-mean and unit
  length on the region alone; the winner must win by ``PATTERN_MARGIN``.
* by *level*: the card and each example scaled as a whole (zero mean per Lab channel and unit
  length over the whole card, as the whole-card ZNCC does); the label whose example is nearest
  on the region (sum of squared differences, over the shifts) wins if the card's region,
  unmixed into that example's and each rival's (least squares, ``card ≈ α·winner + β·rival``),
  leads by ``LOOKALIKE_MARGIN`` (``1 − 2·β / (α + β)``: 1 on the winner, 0 halfway). A
  correlation made zero-mean on the region alone cannot see a region that is evenly lighter or
  darker than the other card's, which is just how two fills differ (a striped symbol
  photographed small is a faint tint of its ink, between the solid one and the open one); the
  unmixing judges how much of the inside is inked *relative to the card's own outline*, so a
  paler or thinner print than the examples' is judged alike.

The card is named when one look settles it and the other does not name another label; when
they name two labels, or neither settles it, the card is ``"unknown"``, never a guess between
them.

Two labels that are not look-alikes as a whole but score within ``NEAR_BAND`` of each other on
this card are compared the same way, on where their mean fine templates differ: the whole-card
scores cannot tell them apart on this photo, so it must not be the one to choose. So is a label
within ``LOOKALIKE_BAND`` that is the winner with ink taken away (an open fill to a striped one,
:meth:`Deck._paler_rival`): a thin outline correlates poorly with a tinted shape, so their
templates need not be look-alikes, yet a camera's blur and grain can tint an open card's inside
enough to put the striped label first.

A label enrolled from several different faces (a rank of a real deck, its four suits) has a
blurred mean, and two such labels may not look alike as a whole although two of their faces do
(the nine and the ten of diamonds). So the pairs of *examples* of different labels whose fine
templates correlate above ``LOOKALIKE_MIN`` are kept too, each with its own region; a card close
to two such labels is compared on the region of the example pair it is most like.

A card that was never enrolled can look like one that was (a striped oval where only the solid
one was enrolled) and beat the whole-card threshold. So a named card must also lie among its
label's examples: its look-alike patch's ``1 − ZNCC`` to the nearest example at most
``EXAMPLE_SPREAD_FACTOR`` times the farthest any example of the label lies from its own nearest
other one (:meth:`Deck.within_examples`), and, place by place, its blurred squared difference from
that example at most ``LOCAL_FACTOR`` times the most any example of the label differs there from
its own nearest other one (:meth:`Deck._locally_within`): a fill or a mark the label never shows
is a difference in one place, which a whole-card distance dilutes. (The patch's outermost
``LOCAL_EDGE`` px are left out of that: an outline a pixel off or a shadow on the card's rim shows
there, not a mark.) Else it is ``"unknown"``. A
label enrolled from one example (a flat scan) has no spread to measure and is not judged so.

And a named card must show the ink its label adds to such a paler rival within
``LOOKALIKE_BAND``, and lack the ink an inkier rival adds, as the eye looks inside a symbol for its
fill: the mean darkness where only the inkier label holds ink, over the mean darkness of the ink
both hold (the extra-ink look, ``EXTRA_INK_L``, :meth:`Deck.extra_ink_agrees`), a ratio an
exposure, blur or print weight changes little. The card is refused where that ratio lies with the
rival's examples and beyond all its own label's. Face cards (``feature_labels``), whose examples
are different art, are not judged so.

A card is also judged as the eye counts: how many marks (pips, symbols) it shows against how
many its label's examples show, where they agree on a count (:meth:`Deck.marks_agree`). A ten never
enrolled in its suit can lie nearest the nine of that suit on the whole-card and place-by-place
looks (one pip and an index apart); it still shows ten pips where every nine example shows nine.

A camera can clip a card's paper at 255, and the faint tint a fine pattern becomes at a distance
(a striped fill) goes with it: the card then looks like its paler look-alike (an open fill).
Clipping only takes ink away, so a clipped card named as the paler of two labels of one ink is
checked once more, against both labels' examples as this card's own exposure and clipping would
show them (:meth:`Deck.exposure_apart`); where they cannot be told apart so, it is ``"unknown"``.
Clipped paper also hides the light's colour from the card's white balance, and a warm or cool light
turns one ink into another (purple into red), a green or magenta one purple into green and back: a
card so clipped is checked the same way against the labels with its marks in another colour such a
light, one its clipped channels hide, reaches (``LIGHTNESS_TWIN``, ``CAST_REACH``, :func:`_unseen_casts`).

A face card (jack, queen, king: a label the mark count does not judge, or whose examples show far
more keypoints than a pip card's, ``FEATURE_ART_POINTS``) that a webcam shows
blurred or in another light can correlate under the threshold as a whole; its art's local features
still match. Such a label keeps its examples' grey faces (``faces``), and a found card read
``"unknown"`` whose best whole-card label is one of them is named by SIFT matches and a RANSAC
homography (:meth:`Deck.feature_label`, :mod:`companion.vision.face_features`; called from
``cards._named_by_features``) only where many matches agree, carry the example's outline onto the
card's, outnumber every other label's threefold, and the card is as coloured as its examples.

Enrolment makes several templates per example (small quad jitter, blur, noise, brightness,
colour cast and light gradient), then calibrates the "unknown" threshold from how well held-out
variants of each card match their own label versus the others.

DECK.npz (``numpy.savez_compressed``, loaded with ``allow_pickle=False``)
------------------------------------------------------------------------
``format``         0-d str, always ``"companion-deck"``
``version``        0-d int64, descriptor version (``DESCRIPTOR_VERSION``)
``patch_size``     (2,) int64, ``(PATCH_W, PATCH_H)`` px
``labels``         (L,) str, the label names (sub-folder names at enrolment)
``templates``      (M, D) float32, unit-length descriptors of upright cards, D = 3·PATCH_W·PATCH_H
``template_label`` (M,) int64, index into ``labels`` for each template row, non-decreasing
``threshold``      0-d float64, best-score threshold below which a card is ``"unknown"``
``examples``       (L,) int64, how many example images each label was enrolled from
``fine``           (E, 3, FINE_H, FINE_W) float32, each example's clean face at twice the patch
                   resolution, CIE Lab, zero-mean per channel (optional: a deck without it has no
                   look-alike stage)
``fine_label``     (E,) int64, index into ``labels`` for each row of ``fine``
``white_balance``  0-d bool, whether the templates were made from white-balanced patches
                   (optional: a deck without it was not, and its cards are read the same way)
``fine_mean``      (E, 3) float32, the CIE Lab mean taken out of each row of ``fine`` (optional: a
                   deck without it has no exposure look, :meth:`Deck.exposure_apart`)
``marks``          (E,) int64, each row of ``fine``'s mark count, 0..``MAX_MARKS`` (:func:`mark_count`;
                   optional: a deck without it has no mark check, :meth:`Deck.marks_agree`)
``paper``          (E, 2) float32, CIE a, b of each example's paper as photographed, not white-balanced
                   (:func:`paper_lab`; optional: a deck without it has no paper look, :meth:`Deck.paper_cast`, ``cards._without_foreign_paper``)
``faces``          (F, FACE_H, FACE_W) uint8, the grey canonical face (``_CANON_W × _CANON_H`` px) of each
                   example of a label enrolled from at least ``FEATURE_MIN_EXAMPLES`` examples
                   whose faces show art (a face card: ``FEATURE_FACE_POINTS`` SIFT keypoints where
                   the mark count does not judge it, ``FEATURE_ART_POINTS`` where it does), for the local-feature look
                   (:meth:`Deck.feature_label`; optional: a deck without it never names a card so)
``face_label``     (F,) int64, index into ``labels`` for each row of ``faces``

:meth:`Deck.load` checks this schema before it reads any array (:mod:`companion.vision.npz_schema`:
member names, dtypes, shapes and sizes from the .npy headers), then the values: labels distinct,
printable, non-empty, at most ``MAX_LABEL_CHARS``; every template finite and of unit length;
``0 < threshold < 1``; ``examples`` ≥ 1 each. The bounds are what a real deck can hold
(``MAX_LABELS``, ``MAX_EXAMPLES``): the largest deck they allow is 146 MB uncompressed (10.6 MB of it ``faces``), and
enrolment refuses to make a bigger one. Every refusal is a :class:`DeckError` naming the file and
the field (issue #14 item 8).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from pathlib import Path

import cv2
import numpy as np

from companion.rules.sushi_go.cards import UNKNOWN
from companion.vision.imageio import ImageReadError, example_folders, read_working, to_original_px, working_copy
from companion.vision.npz_schema import Field, check_finite, check_names, name_problem, read_npz

DESCRIPTOR_VERSION = 1
FORMAT_NAME = "companion-deck"

#: Canonical patch size (px): 30 × 43 keeps the 44:63 card aspect.
PATCH_W, PATCH_H = 30, 43
#: Card aspect, height / width, of a 44 × 63 mm card.
CARD_ASPECT = 63.0 / 44.0

_INSET = 0.04  # fraction of the patch width trimmed on every side
_CHROMA_WEIGHT = 0.8  # a/b channels relative to L, after Lab scaling
_CORNER = 3  # px of the patch corners zeroed (rounded card corners show the table)
_BALANCE_MAX = 1.35  # white balance: largest factor on a channel, either way
_SOFTMAX_T = 0.02  # temperature for the label confidence, in ZNCC units
_SCORE_RAMP = 0.10  # ZNCC above the threshold at which the score part of confidence saturates
_N_AUG = 12  # augmented templates per example, besides the clean one
_N_CAL = 10  # held-out variants per example used to calibrate the threshold
#: The look-alike stage's resolution (px): twice the patch.
FINE_W, FINE_H = 2 * PATCH_W, 2 * PATCH_H
#: Two labels whose fine templates correlate above this are look-alikes.
LOOKALIKE_MIN = 0.8
#: Look-alikes scoring within this (ZNCC) of the best label are compared on where they differ.
LOOKALIKE_BAND = 0.15
#: The look-alike comparison by level must be won by this (module doc: ``1 − 2·β/(α + β)`` from
#: the unmixing of the card into the winner's and each rival's example: 1 when the card is the
#: winner's, 0 halfway, below 0 nearer the rival). Tuned on the symbol bench's boards 0–129
#: (``bench/symbol_cards.py``): 3 % of the look-alike calls there lead by less than 0.3 with the
#: right label; where the wrong one won, it never led by more than 0.2.
LOOKALIKE_MARGIN = 0.3
#: The look by level also compares the card with its examples blurred by each of these (fine px,
#: Gaussian sigma), at the blur that explains the card best (:meth:`Deck._by_level`): a camera's view
#: of a small card is blurrier than the flat scans the examples are. Tuned on the fifth drawn deck's
#: tuning seeds (``bench/sim_games.py --style pattern --seeds 351-354``; loose scenes 1120–1139).
#: 2.0 added (stop 35): there the maki still undecided at (1.0, 1.5) were nearer each blurrier
#: example (the card blurrier than 1.5 px) and their maki led the one with a mark fewer by only
#: 0.16–0.28; at 2.0 most lead by 0.3 or more (seeds 351–354: 12 → 14 of 16 games, 0 wrong). At 3.0
#: the examples of two and three marks blur alike and the nearest changes: not added.
LEVEL_BLURS = (1.0, 1.5, 2.0)
#: A photo's colour is often coarser than its lightness (a JPEG, as recorded and replayed games and
#: the simulator's frames are, keeps one chroma sample per 2 × 2 px; a Bayer sensor's demosaicing
#: blurs colour more than lightness even in the Pi's RGB888 main stream): the level look also
#: compares the card with the examples whose chroma (a, b) is blurred by this much more (fine px, added in quadrature to each
#: of ``LEVEL_BLURS``), their lightness as before. Set on the pattern deck's tuning stops (seed 351,
#: 5 players, round 1 turn 3: a maki_3 whose region L alone led maki_2 by 1.5 but a alone led maki_2
#: by -0.8; nearest distance 0.0032 at blur 2 → 0.0027 at blur 1.5 with chroma 1.5 px blurrier, lead
#: over maki_2 0.23 → 0.69; 2.0 px settled it alike). Tuning 351–354 14 → 16 of 16 games, 0 wrong.
#: In fine px (about 1/60 of a card's width), so it fits cards 40–60 px wide on camera; for larger
#: cards it is more than the 2 camera px of JPEG's subsampling, which costs nothing, as the look with
#: the chroma blurred like the lightness is always taken too. (A look at (1.5, 1.5) blurs the chroma
#: by 2.1 fine px, past the last blur, and is not held to the last-blur rule: no case seen.)
CHROMA_BLUR = 1.5
#: The look-alike comparison by pattern (ZNCC on the region alone) must be won by this much.
PATTERN_MARGIN = 0.08
#: Labels that are not look-alikes but score within this (whole-card ZNCC) of the best are
#: compared on where they differ too. On the symbol bench's boards 0–129 the one wrong name came
#: from such a pair 0.012 apart; 0.03 and 0.05 settled those boards alike, and a red outline under
#: a cool light (tests/test_vision_deck.py), 0.047 ahead of the purple one, is read at 0.03 and
#: not at 0.05 (its region is unmixed only 0.26 towards red).
NEAR_BAND = 0.03
#: Margin (fine px, each way) of the look-alike patch: room for its ECC alignment (:meth:`Deck._align`)
#: and for the exposure look's shift search where that alignment fails.
FINE_SHIFT = 4
#: Fraction of a pair's largest difference above which a fine pixel belongs to its region.
_REGION_LEVEL = 0.3
#: A named card must lie as near its label's examples as they lie to one another
#: (:meth:`Deck.within_examples`): its distance to the nearest (``1 − ZNCC`` on the look-alike
#: stage's patch) at most this many times the farthest any example lies from its own nearest
#: other one. A card that was never enrolled but looks like one that was (a striped oval where
#: only the solid one was enrolled) lies farther. Tuned on the symbol bench
#: (``bench/symbol_cards.py``, true quads): with 9 of the 81 cards left out of the enrolment
#: (two sets of 9, boards 0–59), 1.25 / 1.5 / 2.0 left 3 / 6 / 8 of 41 wrong names and 5 / 5 / 7
#: of 81; with every card enrolled (boards 0–129) they cost 17 / 7 / 2 of 1573 right names. Measured
#: again with the floor below and the exposure look (left-out sets 1 and 2 of ``symbol_cards.py
#: --leave-out``, boards 0–59; every card enrolled, boards 0–129, true quads): 1.25 / 1.5 / 1.75 / 2.0
#: leave 8 / 14 / 21 / 24 of 166 left-out cards named and cost 11 / 4 / 1 / 0 of 1572 right names.
EXAMPLE_SPREAD_FACTOR = 1.5
#: The spread is taken as at least this (``1 − ZNCC``): examples that are near copies (one scan
#: enrolled twice, two photos taken alike) lie almost 0 apart, while a camera's view of a card lies
#: at least 0.015 from its own example (median 0.021 on simulated scenes). On the symbol bench
#: (spreads 0.01–0.33, median 0.08) 0.03 and 0.05 gave the same readings as no floor, but one.
SPREAD_FLOOR = 0.03
#: A name the deck cannot check must clear the whole-card threshold by this much (ZNCC): a label the
#: mark count does not judge (a face card: :meth:`Deck.judges_marks` False) on a card that cannot be
#: aligned to the label's mean (:meth:`Deck.unaligned`, so :meth:`Deck.within_examples` passes it
#: unjudged) has the whole-card threshold alone to name it; under
#: ``threshold + UNCHECKED_MARGIN`` it is "unknown" (:func:`_final_label`). Stop 45 (``margin45``),
#: from why45's trace of real draw 25 (``bench/real_cards.py --seed 25``): cam_image44's shaded ace
#: read "king" at 0.726 over the threshold 0.7205, its score from one king example of fur and rug
#: (IMG_2510, enrolled whole); offline 0.03 and 0.05 made it "unknown" and cost no right name on
#: draws 25, 0 and 1 (dev).
UNCHECKED_MARGIN = 0.03
#: The check on a label's examples looks at *where* a card differs from its nearest example too
#: (:meth:`Deck._locally_within`): the squared difference, blurred by ``LOCAL_SIGMA`` fine px (about
#: a symbol's stroke and fill), must stay within ``LOCAL_FACTOR`` times what the label's own examples
#: show at each place (the most any of them differs there from its nearest other one), plus
#: ``LOCAL_FLOOR`` times the mean squared difference of a card lying ``SPREAD_FLOOR`` from its
#: example (noise where the examples agree exactly). A card never enrolled that differs from an
#: enrolled one in a fill or one mark differs in one place by far more than the examples ever do
#: there, while a whole-card distance spreads that over the card. Tuned on the symbol bench
#: (``bench/symbol_cards.py --leave-out 8``, boards 800–839, and ``--leave-out 1``, boards 0–59, true
#: quads): the right names' peak ratio reached 3.6, the never-enrolled cards the whole-card check
#: let through 5.4–7.2.
LOCAL_SIGMA = 3.0
LOCAL_FACTOR = 4.5
LOCAL_FLOOR = 2.0
#: ... leaving out a band this wide (fine px, 5 % of the patch's width) along the patch's edges:
#: there an outline found a pixel or two off, a shadow on the card's rim or a corner of table shows,
#: which says where the outline lies, not what the card is (real photos, ``bench/real_cards.py``, dev
#: half, enrolment seeds 0 and 1: of the 4 cards named right but for this check, 3 peaked on the
#: patch's outermost rows or columns, 5.1–7.1, and at 1.0–3.9 with the band left out; the card's
#: marks, a corner index included, lie further in).
LOCAL_EDGE = 3
#: (FINE_H, FINE_W) float32: 1 inside the ``LOCAL_EDGE`` band, 0 in it (:meth:`Deck._locally_within`).
_LOCAL_INNER = np.zeros((FINE_H, FINE_W), np.float32)
_LOCAL_INNER[LOCAL_EDGE:FINE_H - LOCAL_EDGE, LOCAL_EDGE:FINE_W - LOCAL_EDGE] = 1.0
#: :meth:`Deck.aligned_quad` moves no corner of the look-alike patch further than this fraction of
#: its width (0.15 · 60 = 9 fine px, 15 % of the card's width): a correction of an outline found a
#: little off, not a different place.
ALIGN_REACH = 0.15

#: A pixel of a card's fine patch whose channel is at least this (0..255) is taken as clipped: the
#: camera's sensor or JPEG saturated there and the card's true colour lies somewhere above it.
#: (The patch is warped and lightly blurred, so a clipped paper reads 253–255, an edge next to ink
#: less.)
CLIP_LEVEL = 250.0
#: A card with at least this share of its fine patch's pixels clipped in some channel is judged
#: by the exposure look too (:meth:`Deck.exposure_apart`).
CLIP_SHARE = 0.2
#: Labels scoring within this (whole-card ZNCC) of a clipped card's label are its rivals in the
#: exposure look: clipping moves the whole-card scores (a striped fill that lost its tint scores
#: with the open one), so the look-alike stage's rivals are not enough.
EXPOSURE_BAND = 0.15
#: The exposure look must be won by this: ``(r_rival − r_label) / (r_rival + r_label)`` of the
#: two labels' rendered residuals on where they differ (1 when the label's example explains the
#: card exactly, 0 when both explain it alike). Tuned on the symbol bench's boards 0–129 and
#: 500–539 (``bench/symbol_cards.py``, 686 clipped cards): the three striped fills read as open led
#: by −0.10, 0.27 and 0.35; of the cards read right and judged so, none led by less than 0.54.
EXPOSURE_MARGIN = 0.45
#: Gains, as factors of the fitted one, at which the exposure look (:meth:`Deck.exposure_apart`)
#: also renders a label and a rival holding more of its ink (:meth:`Deck._more_ink`), each side at
#: its best, after the fitted gain's test. The gain fitted on a heavily clipped card's few unclipped
#: pixels (outlines, blurred into clipped paper) can fall short of the camera's, and a striped
#: example rendered at it keeps a faint tint the photo clipped away: the card then reads open. At a
#: gain a little brighter the striped example clips as the card did; if it explains the card as
#: well there, the two cannot be told apart. The label is seen at the same gains, each side at its
#: best (a short gain hurts the label's rendering as much: rendering the rival alone brighter made
#: every clipped open card of ``tests/test_vision_deck_clipped.py``'s deck "unknown" at ×1.3).
#: Tuned on ``bench/symbol_exposure.py`` seeds 0–1 (36 red and purple open and striped cards at ×1.3
#: and ×1.6 under three casts, 432 readings), the rival alone brighter: no brighter gain / (1.05,) /
#: (1.1,) / (1.05, 1.1) left 16 / 9 / 5 / 5 wrong names and 136 / 110 / 104 / 103 right; both
#: sides at (1.05, 1.1): 6 wrong, 109 right (none a striped card read open of its own ink: red and
#: purple swapped under a cast, which no gain undoes). Brighter still (1.2, 1.3) over-clips the
#: outlines and the rival explains the card worse again. On the symbol bench's boards 0–29, real
#: photos (``bench/real_cards.py`` dev, seed 0) and loose scenes (seeds 40–49, flat and
#: illustrated) it changed no reading.
EXPOSURE_BRIGHTER = (1.05, 1.1)
#: ... but only on a card with at least this share of its fine patch's pixels clipped (as
#: ``CLIP_SHARE`` counts them): the fitted gain falls short where it is fitted on a heavily clipped
#: card's few unclipped pixels; where half the card or more is unclipped, those pixels fix the gain,
#: and a brighter one is no guess at the camera's but a spoiled rendering of the rest of the card,
#: which can still flatter a rival on the region alone. (The fifth drawn deck's maki, roll marks on a
#: white panel the camera clips, 20-48 % of the patch clipped: rendered ×1.05-1.1, the maki with a
#: mark more explained the region of a maki_1 or maki_2 nearly as well as its own examples did, leads
#: 0.17-0.42 under ``EXPOSURE_MARGIN``, and they read "unknown"; at the fitted gain they lead by
#: 0.47-0.58. ``bench/loose_scenes.py --style pattern --seeds 1280-1299``.) The over-exposed cards of
#: ``bench/symbol_exposure.py`` (seed 0, ×1.3 and ×1.6, three casts), which this test was tuned on,
#: have 58-100 % clipped (median 90 %). The review measured the gap narrower: held-out pattern maki
#: up to 50 % clipped (seeds 1360-1399 at gains 0.92-1.25), symbol cards down to 57 % (seeds 12-13,
#: ×1.3); in the band between, the brighter test refused only right maki (about 115 symbol cards
#: drawn there, seeds 12-23 at ×0.85-1.05, read the same either way). Loosely pinned, not tuned.
BRIGHTER_SHARE = 0.53

#: A rival is judged by the exposure look only where it holds more of the label's own ink on where
#: the two differ (:meth:`Deck._more_ink`): darker there by at least ``INK_GAP`` (mean CIE L,
#: 0..100), or no lighter by as much and more saturated by as much in the label's own hue (a/b units
#: along it), and, as a colour, no more than ``arccos(INK_HUE)`` (about 45°) from the label's own
#: hue. (Darkness alone missed 10 of the symbol bench's 27 open/striped pairs, e.g. the one purple
#: wave, striped 1.0 lighter but 6.1 more saturated: a warm-cast clipped striped card was read open.)
#: Clipping takes a faint tint away, never adds one, so only a reading as the paler of two labels
#: of one ink can be clipping's doing. On the symbol bench the fill pairs (open against striped or
#: solid) lie within 0.94 of their hue, the colour pairs (red against purple) below 0.25.
INK_GAP = 2.0
INK_HUE = 0.7

#: Lightness twins (:meth:`Deck._lightness_twins`): labels whose mean fine templates' lightness
#: layouts (CIE L, zero-mean) correlate at least this; they differ in colour more than in where the
#: ink lies (on the symbol deck: one count, fill and shape in red, green and purple, 0.92-0.997).
#: A card whose paper is clipped in at least ``BLIND_CHANNELS`` channels is white-balanced against
#: nothing: the camera's cast is not seen (its paper shows white whatever the light), and a cast
#: moves one ink towards another (purple under a warm light reads red; red under a cool one,
#: purple). So such a card is judged by the exposure look against its label's lightness twins too,
#: whatever their whole-card scores (the whole-card score is what the cast misled: 0.18-0.23 above
#: the card's own label, out of ``EXPOSURE_BAND``). Set on ``bench/symbol_exposure.py`` seeds 0-3:
#: every red/purple swap there (12 of 15 wrong names) is between twins at 0.92-0.97 (a striped red
#: wave read as the open purple one: the open red wave, 0.96); at 0.8 a label has several times as
#: many, other fills and shapes among them, each one more rendering per clipped card.
LIGHTNESS_TWIN = 0.9
#: ... where a channel counts as clipped when the card's paper (its brightest tenth, as
#: :func:`white_balance` takes it) averages at least ``CLIP_LEVEL`` in it: with two such channels
#: the white balance sees no ratio between them, and a cast between those two is invisible.
BLIND_CHANNELS = 2
#: A twin is the label's rival there only if a warm or cool light (blue × t, red × 1/t, t in
#: ``CAST_RANGE``: a lamp's or a camera's white balance gone as far as the symbol exposure bench's
#: casts) brings its colour to within ``CAST_REACH`` of its neutral distance from the label's
#: (:meth:`Deck._cast_reaches`); or a green or magenta light (green × t), where the card's paper
#: clipped as that light alone clips it (:func:`_unseen_casts`: green alone clipped, or blue and
#: red without green; stop 44: at ×1.15 under a greenish light B, G, R × 0.85,
#: 1.2, 0.85 purple open cards read green, some with only the paper's green clipped). On the symbol
#: deck red and purple twins reach 0.13-0.3 by a warm or cool light (median
#: 0.27), green and red or purple ones 0.77-1.0: without this, clipped green cards on ordinary
#: boards (bench/symbol_cards.py boards 1430-1469) were refused against red or purple twins no
#: light turns them into.
CAST_RANGE = (0.75, 1.333)
CAST_REACH = 0.5
#: An example whose paper comes out at this or more (mean of its brightest tenth's channels, 0..255,
#: after its white balance) was enrolled with its paper clipped in most channels: its balance saw
#: no cast, and its thin lines are the clipped paper blurred into them, whatever their ink
#: (:meth:`Deck._seeing_examples`). On ``bench/symbol_exposure.py``'s deck (405 examples) this flags
#: 101, of which 97 had two or more channels of the enrolment photo's paper at 250 or more (the
#: rest one). Against a lightness twin with no such example, a label is judged by its other
#: examples alone (:meth:`Deck.exposure_apart`): on tuning seeds 0-7 the three red cards read as
#: their purple twin under the cool light were each explained best by one purple example enrolled
#: so (residual 21 768 against 183 647 for its best unclipped one and 85 378 for the red label).
SEEING_LEVEL = CLIP_LEVEL
#: The reader's blur after the camera's clip (:func:`_fine_lab`'s and the exposure look's 3 × 3
#: Gaussian, sigma 0.7 fine px), applied to a rendering after its clip too (:meth:`Deck._rendered`):
#: the card's thin lines carry their clipped paper blurred into them (a red outline's flank at 218
#: where the rendering, clipped only, shows 255), which an example photographed unclipped lacks.
RENDER_BLUR = 0.7
#: On a card with ``BRIGHTER_SHARE`` of it clipped, a label holding more of the named label's ink
#: (:meth:`Deck._more_ink`) is its rival within this of its whole-card score (ZNCC), wider than
#: ``EXPOSURE_BAND``: the clip takes a striped fill's stripes and its score with them (a
#: ``2-purple-striped-oval`` at ×1.6 scored 0.20 under the open one, seeds 5 and 6).
EXPOSURE_INK_BAND = 0.25

#: The extra-ink look (:meth:`Deck.extra_ink_agrees`, stop 57): where one label is another with ink
#: added (a striped fill to an open one), what tells them apart to
#: the eye is whether the added ink is there, against the ink both share: the mean darkness (paper's
#: CIE L, its 90th percentile, less L) where only the inkier label's examples hold ink, over the mean
#: darkness where both do. That ratio is much the same at any exposure, blur or print weight, where
#: the whole-card correlation is not: at their true outlines, on the symbol deck's second print
#: (``bench/symbol_cards.py --style print2``, boards 3000-3029) open cards read 0.02-0.46 (median
#: 0.09), striped ones 0.24-0.90 (median 0.69); on the first print (boards 1620-1649) 0.01-0.09 and
#: 0.36-0.71. A pixel is ink of a label where its examples' mean is ``EXTRA_INK_L`` darker than their
#: paper; the added region leaves out the other label's ink grown by a pixel. A card whose paper is
#: clipped (``CLIP_SHARE``) is not refused for lacking the added ink: clipping takes a faint fill
#: away, and the exposure look judges such a card.
EXTRA_INK_L = 8.0
#: The least fine px either region must hold, and the least mean darkness (L) of the shared ink, for
#: the ratio to mean anything.
EXTRA_INK_MIN_PX = 12
EXTRA_INK_BASE = 5.0
#: A label is another with ink taken away where at most this share of its ink lies outside the
#: other's (grown by a pixel).
PALER_OUTSIDE = 0.1

#: The mark count (:func:`mark_count`, :meth:`Deck.marks_agree`): what the eye counts on a card (the
#: pips of a nine against a ten's, the symbols of a symbol card), as connected parts of ink on the
#: card's face warped upright to ``_CANON_W × _CANON_H`` px (120 × 172). Ink is a pixel darker than
#: ``MARK_INK`` times the paper round it (the face's lightness closed, grey-level, by a disc of
#: ``MARK_PAPER_PX``: wider than a pip, so the pips are taken out and the paper is left, with any
#: shadow or light gradient across it). A mark is a part of ``MARK_AREA`` of the face (a playing
#: card's pips, not its index letters or the small pips under them; a face card's art is one large
#: part or is paper-dark) inside the ``MARK_INSET`` margin (the outline, table and a rounded
#: corner lie there). Tuned on the real deck's 210 one-card crops (``bench/real_cards.py``): nines
#: count 9 in 26 of 35, tens 10 in 25 of 33, aces 1 in 26 of 37; the rest are crops with the card
#: cut off, covered or taken whole.
MARK_INK = 0.72
#: ... or further than this from the paper's colour (CIE a, b in OpenCV's 8-bit units).
MARK_CHROMA = 40.0
MARK_PAPER_PX = 45
MARK_AREA = (0.006, 0.06)
MARK_INSET = 0.05
#: A label's count is judged only where its examples agree: at least this share of them show one
#: count (nines 9, tens 10; most face cards' examples spread over 1–6 and are not judged). The
#: counts they agree on are that one and any at least two examples show (the spread the examples
#: themselves have). A card named so that shows another count is "unknown" if that count is one a
#: rival label's examples agree on and the rival scores within ``MARK_BAND`` (whole-card ZNCC) of
#: the name, or any label where the count is not 0 (:meth:`Deck.marks_agree`): never enrolled but
#: one pip away from an enrolled card (a ten where only the nine of its suit was enrolled), it
#: shows the count its own rank's examples agree on. A count no label agrees on (a pip lost to
#: glare, a face card's art in parts) refuses nothing, unless, on a part-card stretched to a card's
#: shape only, it is more than two of the name's cards show at every ink level
#: (``Deck._most_marks``): a completion round two overlapping cards (IMG_2601 of the real photos: a
#: ten half over a queen, 10-12 marks, read "ace").
#: Tuned on the real photos' dev half (``bench/real_cards.py``, enrolment seeds 0 and 1): the tens
#: named nine scored 0.15–0.24 under the nine; a queen miscounted as an ace's one pip, 0.5–0.7.
MARK_AGREE = 0.6
MARK_BAND = 0.3
#: A card that shows no mark at any ink level is refused a label whose examples agree on this many
#: marks or more (and at most one of them shows none): IMG_2452's bare grey plate read "ten" on
#: the real photos' never-run enrolment draws 26 and 27 (stop 46). Not for one-mark labels: the
#: ace of spades' large ornate pip is over ``MARK_AREA``'s top and counts 0 at every level
#: (cam_image8 of the real photos, test half, draw 26).
BARE_MIN_MARKS = 2
#: ... and a one-mark label is refused a face bare also of faint ink (:func:`_faint_marked`): no
#: part of a mark's size darker than this times the paper or further than this from its colour
#: (an over-exposed green open oval's outline, tests/test_vision_deck_cast.py, is faint ink).
FAINT_LEVEL = 0.9
FAINT_CHROMA = 15.0
#: ... and a card whose count at every ink level is at most 1 / ``SCARCE_SHARE`` of the count a
#: label's examples agree on, where that is ``SCARCE_MIN_MARKS`` or more (the real deck's nines
#: and tens; no symbol card shows more than 3, no sushi label agrees on a count), is refused that
#: label: an embossed towel read "ten" with 0-3 marks (real draw 14, dev, IMG_2472; stop 46).
SCARCE_MIN_MARKS = 6
SCARCE_SHARE = 3
#: A label is judged by its paper (:meth:`Deck.paper_cast`) only where each of its examples' papers,
#: white-balanced (:func:`white_balance`), lies within this CIE chroma of grey: a card printed on
#: one plain stock, which the balance takes for white (a white, cream or pastel card; a full-bleed
#: coloured card is not judged). Measured (stop 47, ``paper47``, ``bench/paper_colour.py``): the
#: real deck's examples at most 7.6 on enrolment draws 0, 1 and 30 (the aces 1.4-5.4).
PAPER_GREY = 10.0
#: Two named cards of one photo whose papers' casts (each paper's CIE a, b as photographed, less
#: its label's examples' median, ``Deck.paper``) lie this far apart are not both what they were
#: named: one photo's light casts alike on every card, so the card of the larger cast is "unknown"
#: (``cards.read_cards``). Measured (stop 47, ``paper47``): real right readings of one photo
#: (``bench/real_cards.py`` dev, draws 0 and 1, 309 pairs) at most 15.2 apart as photographed; the
#: dotted coloured papers read "ace" (``bench/real_covers.py --dotted``, draws 0 and 30) 17-59
#: from the real card beside them.
PAPER_APART = 20.0
#: A label's examples' median paper (CIE chroma, as photographed) under this is white stock under
#: the enrolment's lights, taken as grey: the real deck's labels' medians lie within 5.5 of grey
#: (draws 0, 1 and 30), and taking them out moved casts of one photo's real cards up to 22.9
#: apart (IMG_2571, dev, draw 1; 15.2 as photographed). Over it, a stock may still be the
#: enrolment's lights (the symbol deck's, 5 photos a card under cast lights, reach 18.2) or a
#: coloured stock (the loose scenes' noir tempura and wasabi, 10-24): so a name is refused only
#: where the papers lie ``PAPER_APART`` apart both as photographed and less their stocks
#: (``cards._without_foreign_paper``; at 24 alone noir lost 8 right names, at 10 alone the
#: symbol boards 2152 and 2155 lost 7).
PAPER_STOCK_MIN = 10.0
#: The corner index's box (width, height), as a share of the face's, from its top-left corner: where
#: a playing card prints its rank letter and small suit (:meth:`Deck.corner_match`; set by eye on
#: the real deck's fine ace examples, enrolment draw 50, whose index it holds with a px or two to spare).
CORNER_BOX = (0.2, 0.26)
#: An example's two corners (the bottom-right turned upright) must correlate this well for them to be
#: taken as its index (:meth:`Deck.corner_indices`): a card's two indices are one print, where an
#: example enrolled with the table in its corners, or a face with no index, shows two unlike patches.
#: On the real deck 4-7 of 10 ace examples pass (enrolment draws 0, 1, 30, 50, 65, 66); the misfound ones
#: (a card with its outline off by a tenth, a face turned in its box) do not.
CORNER_SELF = 0.6
#: Fine px each way the card's corner is searched for its index (the look-alike stage's quads are
#: good to a px or two). At ``FINE_SHIFT`` (4) and without ``CORNER_CONTRAST``, draw 50's six dotted
#: papers matched 0.41-0.81 by chance; at 2 with it, -0.07-0.81 (the 0.81 a table's edge inside the
#: paper's quad).
CORNER_SHIFT = 2
#: :func:`frame_white`'s lightness percentile: the frame's brightest things, whose colour is the light's.
FRAME_WHITE_PCT = 95.0
#: Only the top share of ``CORNER_BOX``'s height is matched (:meth:`Deck.corner_match`): the rank
#: letter, not the small suit under it, so an ace of a suit no example shows well still matches
#: (review of ``ace49``: ``--dotted`` draw 60 seed 14545, an "A" over a red diamond, matched 0.45 with
#: the whole box, 0.97 with its top 0.55; the dotted papers of that draw 0.38-0.66 either way).
CORNER_LETTER = 0.55
#: A window of the card's corner is compared with an example's index only where its lightness std is
#: at least this share of the index's: the paper's faint texture is no index.
CORNER_CONTRAST = 0.3
#: A label is judged by its index only where at least this many of its examples show one
#: (``CORNER_SELF``); fewer is too few prints to call a card's corner unlike them.
CORNER_EXAMPLES_MIN = 3
#: A named card of a mostly-paper label (:meth:`Deck.mostly_paper`) whose corner matches its
#: examples' index under this (:meth:`Deck.corner_match`) *and* whose paper is cast at least
#: ``INDEX_CAST_MIN`` from its label's (:meth:`Deck.paper_cast`) is no card of it
#: (``cards._without_bare_index``). Measured (stop 49, ``ace49``, ``bench/ace_corners.py``): the
#: dotted papers read "ace" (``real_covers --dotted``, draws 0 / 30 / 50, 12 readings) at most 0.81;
#: real right aces whose paper is cast 12 or more (46 of the 303 right aces traced on those scenes
#: and ``real_cards`` dev draws 0-5) at least 0.94. Alone it is no bound: real aces with a covered, glared or cut-off
#: index reach down to 0.80 (IMG_2474, IMG_2667), real jacks (mostly paper on draw 1) 0.74.
CORNER_MATCH_MIN = 0.88
#: ... the cast (CIE a, b chroma, as photographed less the label's stock) at which a paper is coloured
#: enough to be asked for its index. Measured as above: every real ace under ``CORNER_MATCH_MIN``
#: is cast at most 10.3; 11 of the 12 dotted papers 20.4-50.5 (one, 8.2, is left). Alone it is no
#: bound either: real right aces are cast up to 22 under warm lights (stop 47: one card 23.4).
INDEX_CAST_MIN = 15.0
#: Only a label whose examples show at most this many marks (median) is refused by its paper
#: (``cards.read_cards``): a face card's lighter half is its art (real_covers --dotted, draw 0,
#: scene 12161: a king's "paper" cast 25 from the pale paper beside it, and the king was refused).
PAPER_BARE_MARKS = 1
#: ... and only if the lax level of these (the last, which takes paler ink for marks) does not give
#: the name's count: a pip split by glare or a broken outline is not one to refuse by, while a
#: strict level losing a pale mark is no reason to keep a name (stop 28's review). On the symbol
#: bench (``bench/symbol_cards.py``, boards 0–29, true quads), at ``MARK_INK`` alone and with a
#: count of 0 judged too, 20 of 387 cards counted outside their label's agreed counts (pale open
#: outlines, striped fills, symbols larger than ``MARK_AREA``) and 5 right names were lost; with
#: these levels and 0 not judged, none.
MARK_INK_LEVELS = (0.6, 0.84)
#: A refused count is pardoned where the card's pips ran together (:func:`merged_mark_count`,
#: :meth:`Deck.marks_agree`): each part of ink counts as so many pips as its area holds the card's
#: own lone pips, if within this of a whole number. Blur adds a rim of ink
#: between pips and so some area: cam_image41 of the real photos (a nine, focus blur, enrolment
#: seeds 0 and 1) has two columns of four pips merged, 4.1 and 4.0 pips.
MERGED_PIP_TOL = 0.3
#: ... and a part so counted as two pips or more is pips run together only where it lies in a row or
#: a column: its bounding box no wider across (its shorter side, on the upright face) than this many
#: lone pips (the median of their boxes' larger sides). cam_image41's columns of four: 25 px across,
#: its lone pip 25 × 32 px (0.8). ``bench/real_cards.py``, never-run draws 28 and 29, dev: a quad
#: below IMG_2472's nine (a cable across it) read "ten", was refused by its count and kept by area,
#: a part 65 × 48 px against a lone part 10 × 25 (1.9) counting 9 lone pips; on ``bench/blur_pips.py``
#: (draw 0, seeds 10000-10001) the nine blurred ran into parts 94-108 px across against lone pips'
#: 34-44 (2.5-3), counted 10-12 by area. Pips run together side by
#: side (a ten's middle pip with a column's, two columns) are wider and are not counted so: the
#: card stays refused (stop 46, ``blob46``).
MERGED_LINE = 1.5
#: ... and at least this share of k lone pips long (their boxes' median height, or width for a
#: row): cam_image41's columns of four are 134-135 px long against a lone pip 32 px high (1.05 of
#: four); a crumb or a bar bridging two pips gives a part of three pips' area but two pips' length
#: (``tests/test_vision_marks``; stop 46, ``blob46``).
MERGED_ALONG = 0.9
#: Where the marks lie (:func:`_layout_fit`, :meth:`Deck.counted_label`): a card's marks, each as
#: its centroid on the upright face (in face widths from the face's centre) and the square root of
#: its area (in face widths too), fit an example's when every mark of each lies within ``LAYOUT_TOL``
#: of one of the other's (both ways: a mark on either with none near on the other fails). A count
#: names a label its whole-card score did not only where the card's marks fit that label's examples
#: within ``LAYOUT_TOL`` and fit the refused label's examples, with any one of the card's marks
#: dropped, ``LAYOUT_MARGIN`` times worse (a nine with a crumb on it shows the nine's nine pips
#: where a nine's lie and one mark elsewhere: its nine fit the nine's examples, and its middle
#: pip fits nothing on a ten). Where the marks fit the refused label's, one dropped, within
#: ``LAYOUT_TOL`` and the named label's not, nothing is named. Measured on the real photos' dev half
#: (``bench/real_cards.py``, enrolment seed 1; branch ``ten45``): the tens the count named fit a
#: ten's example at 0.055–0.070 and a nine's, one mark dropped, at 0.235–0.261 at best (a nine's
#: middle pip lies about 0.3 face widths from a ten's nearest); ``bench/crumb_nines.py`` seeds 0–3
#: (things drawn on real nines, half on a ten's middle places): no nine named "ten". README, *Accuracy*.
LAYOUT_TOL = 0.08
#: A mark of more than this many times the median area of a card's marks is two or more pips run
#: together (a stroke, a crease or a smear in the pips' colour joining them), not one pip:
#: :meth:`Deck.marks_outweigh_exposure` names nothing by such a count (one joined mark can lie
#: where a rival's pip lies: a ten's two middle pips joined sit where a nine's middle pip does).
#: Measured at the lax ink level on the real photos' one-card nines and tens that count their
#: rank (``bench/real_cards.py``'s boxes, 40 crops): largest mark / median 1.00-1.08, one nine
#: 1.25 (IMG_2491); the cards the rule named on dev draws 2-4 and test draws 1 and 68: 1.02-1.06.
#: Joined: the review's cam_image29 with its middle pips bridged 3.6, drawn tens so bridged
#: (tests/test_exposure_marks.py) 2.3-2.9. README, *Accuracy* (real50).
JOINED_MARK_AREA = 1.5
LAYOUT_MARGIN = 2.0

# Local features (Deck.feature_label, companion.vision.face_features): a face card the whole-card
# score leaves "unknown" (a webcam's view of its art correlates 0.55-0.68 against a threshold near
# 0.72 on issue #6's real deck) is named by SIFT matches to its rank's examples, only where they say
# so beyond doubt; every rule below can only keep a card "unknown".
#: The grey canonical face kept per example (``faces``): the enrolment's canonical size, 4 × the
#: patch (120 × 172 px), the size the enrolment warps every example to; the real photos (504 × 378 px)
#: show a card about 80-250 px tall.
FACE_W, FACE_H = 4 * PATCH_W, 4 * PATCH_H
#: Lowe's ratio test (Lowe 2004 §7.1 uses 0.8; OpenCV's "Feature Matching" tutorial 0.75, the
#: stricter of the two: fewer false matches between two suits' similar art).
FEATURE_LOWE = 0.75
#: Least RANSAC inliers for a name (the best example of the label). On dev draws 0, 1 and 4 of
#: ``bench/real_cards.py`` (face cards found but read "unknown" by the whole-card path) the right
#: label's best example gave 40-304 on the cards named, 9-29 on those left "unknown"; the other
#: label's best example 4-12 on every one. The review's never-run draws 90 / 91 (480 wrong labels'
#: best fits, with every rank and with one face rank left out of the enrolment): 0-24 (24: a king
#: with the kings left out, fitted as a queen), right names down to 31: the margin is thin, and the
#: corner test does not separate wrong fits (0.009-0.14): this bar and FEATURE_RATIO do. With the
#: queens' faces kept (FEATURE_ART_POINTS, ``face53``), every example fitted on each look: wrong
#: labels' best fits at most 21 over 139 looks (test draws 0, 1, 92-94, dev draw 0, draw 91 all
#: photos), right names down to 30 (cam_image9's queen on draw 93): no wider. Its review, the
#: kings left out of draw 1: a lone king fitted as a jack at 26 and as a queen at 24 (IMG_2509;
#: not named: under this bar, and under FEATURE_RATIO of each other).
#: Also the early stop: an example with fewer ratio-test matches than this cannot reach it.
FEATURE_INLIERS = 30
#: The homography must carry the example's outline onto the found card's (:func:`_outline_off`):
#: each corner within this fraction of the card's short side, once the found outline is grown or
#: shrunk about its centre to the carried one. Matches on one fragment (an index corner, one half of a
#: two-headed face matched to the other) give a homography that carries the outline elsewhere, and a
#: found outline that is not the card (a part of it, two cards) lies apart from the carried one.
#: On the real deck the finder takes a face card at its edge or at the printed frame round its art
#: (frame / edge 0.71-0.73 across, 0.81-0.82 along), in an enrolment crop as in a scene: compared
#: as they were, right fits on dev draws 0-4 (26-318 inliers) carried the corners 0.14-0.32 away
#: (0.21-0.32 where one outline was the frame: a king with 200 inliers, IMG_2572 on draw 4, was refused
#: at 0.32 under the former bound 0.3); compared nested, 0.02-0.16. Right fits still refused: 0.51-0.79
#: (seven queens on draw 3, two jacks on draw 0, cam_image4 and 43, whose example's outline is neither the card nor
#: its frame: an enrolment crop where the finder took the crop or a part of it). The other labels' best
#: fits, 4-29 inliers (refused by FEATURE_INLIERS), land anywhere, 0.007 up: the count separates
#: them, this bound makes the fit the whole card.
FEATURE_CORNER_TOL = 0.25
#: Most the found outline is grown or shrunk along an axis to meet the carried one
#: (:func:`_outline_off`): the printed frame against the edge, 1 / 0.71 = 1.41 across on the real
#: deck (measured 1.36-1.41 and 0.72-0.73, along 1.23 and 0.81-0.82). Half a card found (2) or two
#: (0.5) is out.
FEATURE_NEST = 1.5
#: The best label's inliers must be at least this many times the best other label's: two ranks of
#: one suit share their frame, index style and pips, and a card matching two labels at once is not
#: named (a card of a rank never enrolled can draw on the ranks that were).
FEATURE_RATIO = 3.0
#: A label is named by features only when enrolled from at least this many examples: with one, the
#: mark count cannot judge it whatever it shows (``_agreed_marks`` needs two), so "not judged" would
#: not mean a face card, and one crop (a bad one: a rug, a thumb) would name cards alone.
FEATURE_MIN_EXAMPLES = 2
#: The card's chroma (mean CIE a*b* length of its white-balanced face) must be at least this share
#: of its label's examples' median: SIFT works on grey, and would name a grey print or photocopy of a
#: coloured face as the face; a grey copy has no chroma but noise. On those dev draws the face cards
#: looked at showed 0.42-1.8 of their right label's examples' (the cards named 0.58-1.8; the 0.42, a
#: webcam's jack, had 9 inliers): a dull webcam is near the bound, and may lose a card to it.
FEATURE_CHROMA = 0.5
#: Share of the card's short side of table warped round the found card for SIFT: keypoints near the
#: card's outline need room for their descriptor window.
FEATURE_MARGIN = 0.15
#: A label keeps its faces only where its examples show at least this many SIFT keypoints (median,
#: on the 120 × 172 px grey face): art, not plain shapes. The real deck's face-card examples show
#: 133-432 (draws 0 and 1); the symbol bench's solid ovals and waves, the 15 of its 81 cards the mark
#: count does not judge, 4-43 (whose cards could never reach FEATURE_INLIERS anyway).
FEATURE_FACE_POINTS = 100
#: A label the mark count judges (its examples agree on a count, :meth:`Deck.judges_marks`) keeps its
#: faces too where its examples show at least this many SIFT keypoints (median, same face): a face
#: card whose art happens to split into the same few marks on most examples. On the real deck the
#: queens' examples agree on 2 marks on enrolment draws 0 and 1 (6-7 of 10), so no queen was ever
#: looked at by features (test draw 0: three queens left "unknown"). Medians on draws 0-2: nines
#: 116-135 and tens 105-116 keypoints (pips and indices: at most 278 on one example), aces 42-50;
#: jacks 241-270, queens 320-326, kings 309-368. The rule is the deck's keypoints, not its ranks:
#: a drawn deck enrolled from several scans a card keeps faces for its detailed cards too (face53's
#: review: the pattern style's maki_1-3 and chopsticks, 3 scans each), where the look's own bar and
#: its FEATURE_RATIO lead over a look-alike are the only guard (loose scenes 2760-2771: 20 looks,
#: nothing named). A deck saved before this rule keeps no such faces until enrolled again.
FEATURE_ART_POINTS = 200
#: RANSAC's reprojection bound at the face's scale (px of the 120 px wide face).
FEATURE_REPROJ_PX = 4.0
#: SIFT runs on the faces and the card's warp enlarged this many times (px of the face below are
#: px of the 120 px wide face, whatever this is).
FEATURE_SCALE = 2
#: Most SIFT keypoints kept (the strongest, SIFT's ``nfeatures``) on each example's face and on the
#: card's warp, both at FEATURE_SCALE; 0 keeps all. The cost of a look is mostly the product of the
#: card's descriptors with every candidate face's. On the 23 looks of dev draws 0, 1 and 4 (one core
#: of a loaded 2-core machine): uncapped 477 ms a look (median), 11 named; 500 / 1000 215 ms and
#: 500 / 600 231 ms, the same 11 named (the same labels); 300 / 600 206 ms, 10; 200 / 400 88 ms, 8;
#: FEATURE_SCALE 1 uncapped 149 ms, 9.
FEATURE_KEEP_FACE = 500
FEATURE_KEEP_CARD = 1000

#: Most labels a deck may have: a 52-card deck with two jokers and its back is 55, Sushi Go Party!
#: about 45 kinds of card; twice the first leaves room for a bigger game.
MAX_LABELS = 128
#: Most example images a deck may be enrolled from, all labels together: an 81-card deck from 5
#: photos of each (405, issue #6's real deck), or a 52-card deck from 9. Each makes ``1 + _N_AUG``
#: = 13 templates of 15.5 KB, so the templates are at most 103 MB, the look-alike faces 32 MB (the
#: deck's memory once loaded, with its two orientation banks: about 0.63 MB per example, 325 MB at
#: this bound; a Sushi Go! deck enrolled from one scan per card about 8 MB).
MAX_EXAMPLES = 512
#: Most marks a count in a deck file may give (a face's whole inner area in parts of ``MARK_AREA[0]``).
MAX_MARKS = 200
#: Longest label, characters (a sub-folder name such as "salmon_nigiri" or "queen_of_hearts").
MAX_LABEL_CHARS = 64

#: DECK.npz's schema (module doc); sizes L labels, M templates, E example faces.
_DECK_FIELDS = {
    "format": Field("str", (), max_chars=64),
    "version": Field("int"),
    "patch_size": Field("int", (2,)),
    "labels": Field("str", ("L",), max_chars=MAX_LABEL_CHARS),
    "templates": Field("float", ("M", 3 * PATCH_W * PATCH_H), itemsize=4),
    "template_label": Field("int", ("M",)),
    "threshold": Field("float"),
    "examples": Field("int", ("L",)),
    "fine": Field("float", ("E", 3, FINE_H, FINE_W), required=False, itemsize=4),
    "fine_label": Field("int", ("E",), required=False),
    "white_balance": Field("bool", (), required=False),
    "fine_mean": Field("float", ("E", 3), required=False, itemsize=4),
    "marks": Field("int", ("E",), required=False),
    "paper": Field("float", ("E", 2), required=False, itemsize=4),
    "faces": Field("int", ("F", FACE_H, FACE_W), required=False, itemsize=1),
    "face_label": Field("int", ("F",), required=False),
}


class DeckError(ValueError):
    """A DECK.npz file is missing, corrupt, or not a deck this version can use. Names the file.

    Attributes:
        path: the file, as given (None when raised without one).
        field: the field (member) that broke a rule, or None for the file as a whole.
    """

    def __init__(self, message: str, path: str | None = None, field: str | None = None):
        super().__init__(message)
        self.path, self.field = path, field


class EnrollError(ValueError):
    """Enrolment input is unusable (no folder, no labels, a label without images, bad image)."""


@dataclass(frozen=True)
class Classification:
    """One card's result.

    label: an enrolled label or ``"unknown"``.
    confidence: 0..1; for ``"unknown"`` how sure we are that it matches nothing enrolled.
    score: best ZNCC against any template (−1..1), whatever the label; where the look-alike stage
        or the mark count named another label than the best, that label's ZNCC.
    quad: (4, 2) float32 image px, clockwise from the card face's top-left corner (for
        ``"unknown"``: from the top-left as found, before orientation is known).
    scores: (L,) float32 best whole-card ZNCC per enrolled label (``Deck.labels`` order), or None.
    """

    label: str
    confidence: float
    score: float
    quad: np.ndarray = field(repr=False)
    scores: np.ndarray | None = field(default=None, repr=False, compare=False)  # (L,) per-label ZNCC


def corner_mask(h: int, w: int, corner: int) -> np.ndarray:
    """(h, w) float32 weights, 0 in a triangle of ``corner`` px legs at each corner, else 1: a
    card's or a die's rounded corner shows the table there, which must not count."""
    m = np.ones((h, w), np.float32)
    for y in range(corner):
        for x in range(corner - y):
            for yy, xx in ((y, x), (y, w - 1 - x), (h - 1 - y, x), (h - 1 - y, w - 1 - x)):
                m[yy, xx] = 0.0
    return m


def _corner_mask() -> np.ndarray:
    return corner_mask(PATCH_H, PATCH_W, _CORNER)


_MASK = _corner_mask()
# :func:`describe`'s masked mean over a patch's P = PATCH_H·PATCH_W pixels, (1, P), and the weight of
# each pixel and channel, (P, 3): 0 in the corners, 1 for lightness, ``_CHROMA_WEIGHT`` for chroma.
_MASK_MEAN = (_MASK.reshape(1, -1) / _MASK.sum()).astype(np.float32)
_MASK_WEIGHT = (_MASK.reshape(-1, 1) * np.array([1.0, _CHROMA_WEIGHT, _CHROMA_WEIGHT])).astype(np.float32)
_MASK_WEIGHT_T = np.ascontiguousarray(_MASK_WEIGHT.T)  # (3, P), for channel-first descriptors


def _patch_dst(scale: int) -> np.ndarray:
    w, h = PATCH_W * scale, PATCH_H * scale
    m = _INSET * w
    return np.array([[-m, -m], [w + m, -m], [w + m, h + m], [-m, h + m]], np.float32)


_DST2 = _patch_dst(2)


def card_patch(image: np.ndarray, quad: np.ndarray) -> np.ndarray:
    """Warp one card to the canonical upright patch.

    Args:
        image: (H, W, 3) uint8 BGR.
        quad: (4, 2) float image px, clockwise from the corner that should become the patch's
            top-left (so corners 0→1 are the card's top edge).

    Returns:
        (PATCH_H, PATCH_W, 3) uint8 BGR.
    """
    return card_patches(image, [quad])[0]


def card_patches(image: np.ndarray, quads) -> np.ndarray:
    """:func:`card_patch` of many quads: each is warped on its own, then all are reduced and blurred
    as one tall image (two OpenCV calls instead of two per card; the same pixels).

    Args:
        image: (H, W, 3) uint8 BGR.
        quads: N quads, each (4, 2) float image px as for :func:`card_patch`.

    Returns:
        (N, PATCH_H, PATCH_W, 3) uint8 BGR (N = 0 for no quads).

    Raises:
        ValueError: ``image`` is not an (H, W, 3) uint8 image.
    """
    if len(quads) == 0:
        return np.zeros((0, PATCH_H, PATCH_W, 3), np.uint8)
    if image.dtype != np.uint8 or image.ndim != 3 or image.shape[2] != 3:
        # warpPerspective would write a new array, not into ``dst``: the patches would be garbage.
        raise ValueError(f"card_patches needs an (H, W, 3) uint8 BGR image, got {image.shape} {image.dtype}")
    n = len(quads)
    # Each warped straight into its place in one array (no list of patches stacked after).
    big = np.empty((n, 2 * PATCH_H, 2 * PATCH_W, 3), np.uint8)
    for i, q in enumerate(quads):
        cv2.warpPerspective(image, cv2.getPerspectiveTransform(np.asarray(q, np.float32), _DST2),
                            (2 * PATCH_W, 2 * PATCH_H), dst=big[i], flags=cv2.INTER_LINEAR,
                            borderMode=cv2.BORDER_REPLICATE)
    # A 2:1 area reduction never mixes two patches stacked one above the other.
    small = cv2.resize(big.reshape(n * 2 * PATCH_H, 2 * PATCH_W, 3), (PATCH_W, n * PATCH_H),
                       interpolation=cv2.INTER_AREA).reshape(n, PATCH_H, PATCH_W, 3)
    # A 3 × 3 blur reaches one row past a patch: each gets the row its own border would give
    # (OpenCV's default BORDER_REFLECT_101: rows 1 and H − 2) above and below, dropped after.
    padded = np.concatenate([small[:, 1:2], small, small[:, PATCH_H - 2:PATCH_H - 1]], axis=1)
    blurred = cv2.GaussianBlur(padded.reshape(n * (PATCH_H + 2), PATCH_W, 3), (3, 3), 0.6)
    return np.ascontiguousarray(blurred.reshape(n, PATCH_H + 2, PATCH_W, 3)[:, 1:PATCH_H + 1])


_DST_FINE = np.array([[FINE_SHIFT - _INSET * FINE_W, FINE_SHIFT - _INSET * FINE_W],
                      [FINE_SHIFT + FINE_W + _INSET * FINE_W, FINE_SHIFT - _INSET * FINE_W],
                      [FINE_SHIFT + FINE_W + _INSET * FINE_W, FINE_SHIFT + FINE_H + _INSET * FINE_W],
                      [FINE_SHIFT - _INSET * FINE_W, FINE_SHIFT + FINE_H + _INSET * FINE_W]], np.float32)


def fine_patch(image: np.ndarray, quad: np.ndarray, margin: bool = True) -> np.ndarray:
    """Warp one card to the look-alike stage's patch (twice the descriptor's resolution).

    Args:
        image: (H, W, 3) uint8 BGR.
        quad: (4, 2) float image px, clockwise from the card face's top-left corner.
        margin: if True, ``FINE_SHIFT`` px more on every side, for the shift search.

    Returns:
        (FINE_H [+ 2·FINE_SHIFT], FINE_W [+ 2·FINE_SHIFT], 3) uint8 BGR.
    """
    pad = FINE_SHIFT if margin else 0
    dst = _DST_FINE - (FINE_SHIFT - pad)
    h = cv2.getPerspectiveTransform(np.asarray(quad, np.float32), dst)
    return cv2.warpPerspective(image, h, (FINE_W + 2 * pad, FINE_H + 2 * pad), flags=cv2.INTER_AREA,
                               borderMode=cv2.BORDER_REPLICATE)


# The fine patch's (with its margin) corner pixels, homogeneous: (4, 3) float64.
_FINE_CORNERS = np.array([[0.0, 0.0, 1.0], [FINE_W + 2 * FINE_SHIFT - 1.0, 0.0, 1.0],
                          [FINE_W + 2 * FINE_SHIFT - 1.0, FINE_H + 2 * FINE_SHIFT - 1.0, 1.0],
                          [0.0, FINE_H + 2 * FINE_SHIFT - 1.0, 1.0]])


def _fine_patch_max(image: np.ndarray, quad: np.ndarray) -> int:
    """The largest channel value (0..255) among the pixels of ``image`` that
    ``fine_patch(image, quad)`` can read, or 255 where that cannot be bounded cheaply.

    The warp is bilinear (OpenCV warps in perspective so when asked for ``INTER_AREA``), with
    weights that add up to one (8-bit, fixed point), and the 3 × 3 blur
    after it averages, so neither gives a value above the largest one read: when this is under
    ``CLIP_LEVEL``, no pixel of the patch is clipped (:meth:`Deck.exposure_apart`). The pixels read
    lie within 1 px of where the patch's corners land in the image (the patch's grid maps onto
    the convex quad those corners span, as long as the map does not pass through infinity over it);
    2 px more are taken for the rounding of the map, and the box is clipped to the image as
    ``BORDER_REPLICATE`` reads it. A look at some 7 000 px instead of a warp and a blur.

    Args:
        image: (H, W, 3) uint8 BGR.
        quad: (4, 2) float px, as for :func:`fine_patch` (with its margin).
    """
    back = cv2.getPerspectiveTransform(_DST_FINE, np.asarray(quad, np.float32)).astype(np.float64)
    p = _FINE_CORNERS @ back.T
    # The tests and the four corners' box in Python floats: the same IEEE float64 comparisons,
    # divisions, minima, floors and clips as numpy's on the (4, 3) array, without a numpy call's
    # overhead for each (the checks ask this of every named card). A corner mapped past float64's
    # range (inf) takes numpy's path.
    (x_0, y_0, z_0), (x_1, y_1, z_1), (x_2, y_2, z_2), (x_3, y_3, z_3) = rows = p.tolist()
    if not all(math.isfinite(v) for r in rows for v in r) or not min(z_0, z_1, z_2, z_3) > 1e-9:
        return 255
    h, w = image.shape[:2]
    xs, ys = (x_0 / z_0, x_1 / z_1, x_2 / z_2, x_3 / z_3), (y_0 / z_0, y_1 / z_1, y_2 / z_2, y_3 / z_3)
    if all(map(math.isfinite, xs + ys)):
        x0 = int(min(max(math.floor(min(xs)) - 3, 0), w - 1))
        y0 = int(min(max(math.floor(min(ys)) - 3, 0), h - 1))
        x1 = int(min(max(math.ceil(max(xs)) + 4, x0 + 1), w))
        y1 = int(min(max(math.ceil(max(ys)) + 4, y0 + 1), h))
        return int(image[y0:y1, x0:x1].max())
    xy = p[:, :2] / p[:, 2:]
    x0 = int(np.clip(np.floor(xy[:, 0].min()) - 3, 0, w - 1))
    y0 = int(np.clip(np.floor(xy[:, 1].min()) - 3, 0, h - 1))
    x1 = int(np.clip(np.ceil(xy[:, 0].max()) + 4, x0 + 1, w))
    y1 = int(np.clip(np.ceil(xy[:, 1].max()) + 4, y0 + 1, h))
    return int(image[y0:y1, x0:x1].max())


def _percentile90(x: np.ndarray, whole: bool = False) -> np.ndarray:
    """``np.percentile(x, 90, axis=-1)`` (its default linear method), the same values bit for bit,
    a few times faster on many short rows.

    numpy moves the axis to the front and partitions along it, a strided pass per row; here each
    contiguous row is sorted (numpy's vectorised sort) for the two order statistics the percentile
    lies between, and they are interpolated as numpy's ``_lerp`` does (weak promotion of the Python-float weight, so
    in ``x``'s dtype; from the upper one when the weight is at least 0.5).

    Args:
        x: (..., n) float32 (or any float dtype), no NaN.
        whole: the caller's word that every value of ``x`` is a whole number in 0..65535 (a sum
            of 8-bit channels): the rows are then sorted as uint16, which numpy sorts 2.5 times
            faster than float32 here (AVX-512's 16-bit sort; measured on 951 rows of 330, the
            window screen's), and the two order statistics are the same numbers, so the result is
            the same bit for bit.

    Returns:
        (...,) of ``x``'s dtype.
    """
    n = x.shape[-1]
    if n < 2:
        return np.percentile(x, 90, axis=-1)
    vi = (n - 1) * (np.asarray(90) / 100)  # the virtual index, as numpy computes it (float64)
    lo = int(np.floor(vi))
    hi = min(lo + 1, n - 1)
    t = float(vi - lo)
    if whole:
        part = np.sort(x.astype(np.uint16), axis=-1)
        a, b = part[..., lo].astype(x.dtype), part[..., hi].astype(x.dtype)
    else:
        part = np.sort(x, axis=-1)  # numpy's vectorised sort beats a partition about two order statistics
        a, b = part[..., lo], part[..., hi]
    diff = b - a
    return b - diff * (1 - t) if t >= 0.5 else a + diff * t


def _percentile_mask(card: np.ndarray) -> np.ndarray:
    """(h·w,) bool: a card's paper as :func:`white_balance` takes it, the pixels whose channel sum
    is at least its 90th percentile. ``card``: (h, w, 3) BGR."""
    bright = card.reshape(-1, 3).astype(np.float32).sum(axis=1)
    return bright >= _percentile90(bright[None])[0]


def white_balance(patches: np.ndarray, reference: np.ndarray | None = None) -> np.ndarray:
    """Each card's colours as under neutral light: the card's own paper is taken as white.

    The eye judges a card's colours against its paper, whatever the light (colour constancy); a
    camera's white balance and a lamp's tint instead shift all three channels by different
    factors, and a thin red outline under a cool light reads as purple. So each channel is scaled
    (von Kries) so that the brightest tenth of the card, its paper, comes out grey; the factors are
    kept within ``_BALANCE_MAX`` either way (a card with no pale area, judged against its palest
    colour, is still changed by at most that much, the same way at enrolment and when read).

    Args:
        patches: (..., h, w, 3) uint8 or float32 BGR, one card per (h, w, 3).
        reference: the same cards' pixels to find the paper in, if not all of ``patches`` (a patch
            with a margin of table round the card); default ``patches``.

    Returns:
        float32, the same shape, 0..255.
    """
    x = np.asarray(patches, np.float32)
    ref = x if reference is None else np.asarray(reference, np.float32)
    flat = ref.reshape(ref.shape[:-3] + (-1, 3))
    # Sums over the pixel axis are written as an addition of channels and a matrix product: numpy
    # reduces a strided axis of an (N, P, 3) array some 20× slower, and the window search
    # (card_search) white-balances a thousand patches per photo.
    bright = flat[..., 0] + flat[..., 1] + flat[..., 2]
    # 8-bit cards' brightness is a whole number under 766 (exact in float32).
    whole = np.asarray(patches).dtype == np.uint8 and (reference is None or np.asarray(reference).dtype == np.uint8)
    level = _percentile90(bright, whole)[..., None]
    w = (bright >= level).astype(np.float32)
    paper = np.matmul(w[..., None, :], flat)[..., 0, :] / np.maximum(w.sum(axis=-1), 1.0)[..., None]  # (..., 3)
    gain = np.clip(paper.mean(axis=-1, keepdims=True) / np.maximum(paper, 1.0), 1 / _BALANCE_MAX, _BALANCE_MAX)
    # In place where ``x`` is this function's own copy (8-bit patches), else into one new array:
    # the same values as ``np.clip(x * gain, 0, 255)``, with one or two fewer arrays of the patches' size.
    own = x is not patches and np.asarray(patches).dtype != np.float32 and gain.shape[:-1] == x.shape[:-3]
    g = gain[..., None, None, :].astype(np.float32)
    v = x if own else np.empty(np.broadcast_shapes(x.shape, g.shape), np.float32)
    # One channel at a time (the same float32 products): broadcasting a gain of 3 along the last
    # axis makes numpy's inner loop 3 long, several times slower over the window search's patches.
    for c in range(3):
        np.multiply(x[..., c], g[..., c], out=v[..., c])
    return np.clip(v, 0, 255, out=v)


def _unseen_casts(paper_clipped: np.ndarray) -> tuple[bool, bool, bool]:
    """Which lights a card's white balance cannot have seen, from the channels its paper clipped.

    A clipped channel's true level is anywhere at or above ``CLIP_LEVEL``; an unclipped one's is
    seen. So the light can have raised a clipped channel against the others by any amount the balance
    never saw, and nothing else: a warm or cool light (blue against red) is unseen where
    ``BLIND_CHANNELS`` channels clipped (stop 34's rule, kept). A green or magenta light is asked
    about only where the paper clipped as that light, and no warm or cool one, clips a near-white
    paper as the exposure rises: a green light (B, G, R × 1/g, g, 1/g) clips green first and blue
    and red together, so green alone; a magenta one clips blue and red together before green, so
    those two without green. A warm light (blue × t, red × 1/t, t < 1) clips red, then red and
    green, then all three; a cool one blue, then blue and green: green clipped with one of blue or
    red is their pattern, and reading a hidden green light into it turned four right names of green
    cards at ×1.3 under a warm light "unknown" (stop 44, ``bench/symbol_exposure.py`` seeds 80-84).

    Where all three clipped, the clipping gives no sign of which way the light leans, and a green or
    magenta light is not asked about: the exposure look does not tell a clipped green outline from a
    clipped purple one (stop 44, ``bench/symbol_exposure.py`` seeds 70-71, all three channels
    clipped: its lead for the named label over the green-purple twin was -0.42 and 0.13 on the two
    purple cards read green under a greenish light, -0.28-0.44 on 14 cards read right, under
    ``EXPOSURE_MARGIN``), and asking there turned 30 of 114 right names at ×1.3 with no cast
    (seeds 70-74, all three colours) "unknown" to save 3 wrong names at ×1.15 under a green light.

    Args:
        paper_clipped: (3,) bool, B, G, R: whether the paper's mean reached ``CLIP_LEVEL`` there.

    Returns:
        (warm or cool, green, magenta): whether each light is unseen.
    """
    b, g, r = (bool(v) for v in paper_clipped)
    # Only the pattern the light alone makes of a near-white paper: green alone (a warm light clips
    # red first, a cool one blue); blue and red without green (a warm or cool light clips green
    # before its weaker channel).
    return int(np.sum(paper_clipped)) >= BLIND_CHANNELS, g and not b and not r, b and r and not g


def frame_white(image: np.ndarray) -> np.ndarray:
    """The photo's light as its brightest things show it: (2,) float32 CIE a, b, the median over
    the frame's pixels at or over its ``FRAME_WHITE_PCT`` percentile of lightness (not white-
    balanced, as :meth:`Deck.paper_cast`). A warm or cool light casts every white thing alike.

    Args:
        image: (H, W, 3) uint8 BGR, the whole photo (read at a quarter of its size, INTER_AREA).
    """
    small = cv2.resize(image, (max(1, image.shape[1] // 4), max(1, image.shape[0] // 4)), interpolation=cv2.INTER_AREA)
    lab = cv2.cvtColor(small.astype(np.float32) / 255.0, cv2.COLOR_BGR2Lab).reshape(-1, 3)
    top = lab[lab[:, 0] >= np.percentile(lab[:, 0], FRAME_WHITE_PCT)]
    return np.median(top[:, 1:], axis=0).astype(np.float32)


def _corner_best(L: np.ndarray, templates: list[np.ndarray], margin: int) -> float:
    """The best ZNCC (``Deck.corner_match``) of ``templates`` (corner indices, each (h, w)) with the
    top-left or (turned half round) bottom-right corner of ``L`` (a face's lightness with ``margin``
    px round it), each shifted up to ``CORNER_SHIFT`` px, on the whole index box and on its top
    ``CORNER_LETTER`` (the rank letter alone: an ace of a suit no example shows well); a window of
    less than ``CORNER_CONTRAST`` of the template's std is not taken. -1 where none is."""
    s, d = margin, CORNER_SHIFT
    best = -1.0
    th0, tw = templates[0].shape
    for th in (th0, int(round(CORNER_LETTER * th0))):
        cut = [np.ascontiguousarray(t[:th]) for t in templates]
        # Each corner of the card with its shift room, upright: the bottom-right corner turned
        # half round, as the examples' are.
        for x in (L, L[::-1, ::-1]):
            spot = np.ascontiguousarray(x[s - d:s + th + d, s - d:s + tw + d])
            mean = cv2.boxFilter(spot, -1, (tw, th))
            sq = cv2.boxFilter(spot * spot, -1, (tw, th))
            # Each window's std, placed as matchTemplate places its windows (boxFilter's anchor is
            # the window's centre).
            sd = np.sqrt(np.maximum(sq - mean * mean, 0))[th // 2:th // 2 + 2 * d + 1, tw // 2:tw // 2 + 2 * d + 1]
            for t in cut:
                ok = sd >= CORNER_CONTRAST * float(t.std())
                if ok.any():
                    best = max(best, float(cv2.matchTemplate(spot, t, cv2.TM_CCOEFF_NORMED)[ok].max()))
    return best


def _fine_lab(patch: np.ndarray, balance: bool = True, margin: int = 0, blur: bool = True) -> np.ndarray:
    """(h, w, 3) uint8 BGR → (3, h, w) float32 Lab, lightly blurred (sub-pixel tolerance; ``blur`` False
    for a patch blurred so already), white-balanced (:func:`white_balance`, on the card alone:
    ``margin`` px of table round it are left out) unless ``balance`` is False (a deck enrolled
    before it existed)."""
    blurred = cv2.GaussianBlur(patch, (3, 3), 0.7) if blur else patch
    card = blurred[margin:blurred.shape[0] - margin, margin:blurred.shape[1] - margin]
    rgb = white_balance(blurred, card) if balance else blurred.astype(np.float32)
    lab = cv2.cvtColor(rgb / 255.0, cv2.COLOR_BGR2Lab)
    return np.ascontiguousarray(lab.transpose(2, 0, 1))


def _clip_share(blurred: np.ndarray) -> float:
    """The share of a card's pixels at ``CLIP_LEVEL`` in some channel: ``blurred`` is its fine patch
    (with its ``FINE_SHIFT`` margin, uint8 BGR) blurred as :func:`_fine_lab` blurs."""
    s = FINE_SHIFT
    return float(np.mean(_channel_max(blurred[s:s + FINE_H, s:s + FINE_W]) >= CLIP_LEVEL))


def _clipped(raw: np.ndarray) -> bool:
    """Whether a card's fine patch (with its ``FINE_SHIFT`` margin, uint8 BGR, not yet blurred) has
    ``CLIP_SHARE`` of its pixels clipped (:func:`_clip_share`; the exposure look's test,
    :meth:`Deck.exposure_apart`)."""
    return _clip_share(cv2.GaussianBlur(raw, (3, 3), 0.7)) >= CLIP_SHARE


def _unmixed_lead(card: np.ndarray, win: np.ndarray, rival: np.ndarray) -> float:
    """How far a card's region lies on the winner's side when unmixed into two examples' regions.

    Least squares ``card ≈ α·win + β·rival`` (the 2 × 2 normal equations); the lead is
    ``1 − 2·β / (α + β)``: 1 when the card is the winner's example (whatever its contrast), 0 when it
    lies halfway, −1 on the rival's. Two examples alike on the region, or a fit whose weights do
    not add to a positive share (the card is like neither), lead by nothing (0.0).

    Args:
        card, win, rival: (R,) float32, the region's values, each scaled with its whole card.

    Returns:
        The lead, a float (unbounded; 0.0 where the fit says nothing).
    """
    aa, bb, ab = float(win @ win), float(rival @ rival), float(win @ rival)
    det = aa * bb - ab * ab
    if det <= 1e-9 * max(aa * bb, 1e-12):
        return 0.0
    qa, qb = float(win @ card), float(rival @ card)
    alpha, beta = (bb * qa - ab * qb) / det, (aa * qb - ab * qa) / det
    if alpha + beta <= 1e-6:
        return 0.0
    return 1.0 - 2.0 * beta / (alpha + beta)


def _censored_fit(x: np.ndarray, y: np.ndarray, level: float, steps: int = 5) -> np.ndarray:
    """Each row of ``y`` fitted as a gain ``a·x`` of the same row of ``x`` (exposure and white balance
    scale a camera's values, gamma-encoded or not), where a value of ``y`` at or above ``level`` is
    clipped: it only says the true value is at least ``level``. (The caller clips the fit at 255.)

    Least squares on the unclipped values plus the clipped ones the fit puts under ``level``
    (pulled up to it), repeated ``steps`` times as that set changes (censored regression, fitted by
    its active set). A row with nothing to fit keeps ``a = 1``.

    Args:
        x, y: (N, P) float32, N independent fits of P values (0..255).
        level: the clip level.

    Returns:
        (N, P) float32, the fitted values before they are clipped (``a·x``).
    """
    clipped = y >= level
    target = np.where(clipped, level, y)
    active = ~clipped
    a = np.ones((len(x), 1), np.float32)
    # The products once: with a 0/1 weight, w·x·x is x·x or a zero of the same sign whichever way
    # it is grouped (IEEE signs multiply), so the sums are the same, bit for bit.
    xx, xt = x * x, x * target
    # Only the rows whose set changed are fitted again: a row whose set stayed would get the same
    # sums, so the same gain, bit for bit (each row is summed on its own). Of the 243 rows of a
    # clipped card's 81 shifts, 190, 80, then 15 change after the first fit.
    todo = np.arange(len(x))
    for _ in range(steps):
        act = active if len(todo) == len(x) else active[todo]
        w = act.astype(np.float32)
        if len(todo) == len(x):
            sxx, sxy = (w * xx).sum(axis=1, keepdims=True), (w * xt).sum(axis=1, keepdims=True)
            a = np.where(sxx > 1e-6, sxy / np.maximum(sxx, 1e-6), a)
            now = ~clipped | (a * x < level)
        else:
            sxx, sxy = (w * xx[todo]).sum(axis=1, keepdims=True), (w * xt[todo]).sum(axis=1, keepdims=True)
            a[todo] = np.where(sxx > 1e-6, sxy / np.maximum(sxx, 1e-6), a[todo])
            now = ~clipped[todo] | (a[todo] * x[todo] < level)
        changed = (now != act).any(axis=1)
        if not changed.any():
            break
        todo = todo[changed]
        active[todo] = now[changed]
    return a * x


#: Blur (fine px) of the exposure look's comparison: a thin outline a fraction of a pixel off
#: would otherwise outweigh the tint being judged.
EXPOSURE_SIGMA = 1.5


def _smooth(x: np.ndarray) -> np.ndarray:
    """(..., h, w) float32 blurred by ``EXPOSURE_SIGMA`` over its last two axes."""
    flat = x.reshape(-1, *x.shape[-2:])
    return np.stack([cv2.GaussianBlur(np.ascontiguousarray(c, np.float32), (0, 0), EXPOSURE_SIGMA) for c in flat]).reshape(x.shape)


def _exposure_lead(mine: float, theirs: float) -> float:
    """The exposure look's lead of a label over a rival from their rendered residuals
    (:meth:`Deck._rendered`): ``(theirs − mine) / (theirs + mine)``, 1 when the label's examples
    explain the card exactly, 0 when both explain it alike, negative when the rival's do better."""
    return (theirs - mine) / max(theirs + mine, 1e-6)


def _channel_max(img: np.ndarray) -> np.ndarray:
    """(h, w) the largest of an (h, w, 3) image's three channels: ``img.max(axis=2)``, as two
    element-wise maxima (numpy reduces a last axis of 3 about ten times slower)."""
    return np.maximum(np.maximum(img[..., 0], img[..., 1]), img[..., 2])


def _zero_mean(x: np.ndarray) -> np.ndarray:
    return x - x.mean(axis=(-2, -1), keepdims=True)


def describe(patches: np.ndarray, balance: bool = True) -> np.ndarray:
    """Descriptors (version 1, see the module doc) of canonical patches.

    Args:
        patches: (N, PATCH_H, PATCH_W, 3) uint8 BGR.
        balance: white-balance each patch first (:func:`white_balance`); False for a deck enrolled
            before that step existed (``Deck.balanced``).

    Returns:
        (N, 3·PATCH_H·PATCH_W) float32, each row zero-mean per channel and of unit length
        (an all-flat patch gives a zero row, which correlates 0 with everything).
    """
    patches = np.asarray(patches)
    n = patches.shape[0]
    if n == 0:
        return np.zeros((0, 3 * PATCH_H * PATCH_W), np.float32)
    rgb = white_balance(patches) if balance else patches.astype(np.float32)
    rgb *= 1.0 / 255.0  # a new array either way: scaled in place
    flat = rgb.reshape(n * PATCH_H, PATCH_W, 3)
    lab = cv2.cvtColor(flat, cv2.COLOR_BGR2Lab).reshape(n, PATCH_H * PATCH_W, 3)
    # The masked mean as a matrix product, the mask and the chroma weight as one (P, 3) factor.
    mean = np.matmul(_MASK_MEAN, lab)  # (N, 1, 3)
    # Channel by channel, (N, 3·H·W): the channels are laid out so first (one copy), then centred
    # and weighted, the same values as weighting first and transposing after, at a third the cost.
    d = ((np.ascontiguousarray(lab.transpose(0, 2, 1)) - mean.transpose(0, 2, 1)) * _MASK_WEIGHT_T).reshape(n, -1)
    norm = np.linalg.norm(d, axis=1, keepdims=True)
    return np.ascontiguousarray(d / np.maximum(norm, 1e-6), dtype=np.float32)


def _rot180(desc: np.ndarray) -> np.ndarray:
    n = desc.shape[0]
    return np.ascontiguousarray(desc.reshape(n, 3, PATCH_H, PATCH_W)[:, :, ::-1, ::-1].reshape(n, -1))


#: The rim bands :func:`rim_ink` measures: this many px in from the face's outline to this many, on
#: an upright face warped to ``FINE_W × FINE_H`` (60 × 86 px), all four sides; and the ink in
#: them: a pixel darker than this share of the face's 90th-percentile grey (title50, from the
#: watercolour title prototype, tri50: the title's letters reach 2-6 px inside a window laid on them).
RIM_BAND = (2, 6)
RIM_DARK = 0.6


def rim_ink(grey: np.ndarray) -> np.ndarray:
    """(4,) float64: the share of dark pixels (under ``RIM_DARK`` × the face's 90th-percentile
    grey) in each rim band (``RIM_BAND`` px in, corners left out) of an upright face ``grey``,
    (FINE_H, FINE_W) float grey 0..255, in the order top, bottom, left, right."""
    p = np.asarray(grey, np.float32)
    dark = p < RIM_DARK * float(np.percentile(p, 90))
    a, b = RIM_BAND
    h, w = dark.shape
    return np.array([dark[a:b, a:w - a].mean(), dark[h - b:h - a, a:w - a].mean(),
                     dark[a:h - a, a:b].mean(), dark[a:h - a, w - b:w - a].mean()], np.float64)


@dataclass
class Deck:
    """An enrolled deck: templates per label and the "unknown" threshold.

    Build one with :func:`enroll_folder` / :func:`enroll_images`, or :meth:`load` a DECK.npz.
    """

    labels: tuple[str, ...]
    templates: np.ndarray  # (M, D) float32 unit rows, upright
    template_label: np.ndarray  # (M,) int64, sorted
    threshold: float
    examples: np.ndarray  # (L,) int64
    fine: np.ndarray | None = None  # (E, 3, FINE_H, FINE_W) float32, zero-mean Lab per example
    fine_label: np.ndarray | None = None  # (E,) int64
    balanced: bool = False  # templates made from white-balanced patches (every deck enrolled now)
    fine_mean: np.ndarray | None = None  # (E, 3) float32, the Lab mean taken out of each row of fine
    marks: np.ndarray | None = None  # (E,) int64, each example's mark count (mark_count)
    paper: np.ndarray | None = None  # (E, 2) float32, each example's paper's CIE a, b, not balanced (paper_lab)
    faces: np.ndarray | None = None  # (F, FACE_H, FACE_W) uint8 grey canonical faces (feature_label)
    face_label: np.ndarray | None = None  # (F,) int64

    def __post_init__(self) -> None:
        self._regions = self._lookalike_regions()
        self._spreads: dict[int, float | None] = {}  # label → its examples' spread, made when needed
        self._local_spreads: dict[int, np.ndarray | None] = {}  # label → (FH, FW) spread map, when needed
        self._agreed: dict[int, set[int] | None] = {}  # label → the mark counts its examples agree on
        # ... made from these arrays: a deck whose ``marks`` or ``fine_label`` is replaced forgets it
        self._agreed_of: tuple[object, object] = (self.marks, self.fine_label)
        self._stocks: dict[int, np.ndarray | None] = {}  # label → its examples' paper (paper_stock), when needed
        self._self_match: dict[int, float | None] = {}  # label → its examples' leave-one-out index match, when needed
        self._indices: dict[int, list[np.ndarray]] = {}  # label → its examples' corner indices (corner_indices), when needed
        self._layouts: dict[int, list[np.ndarray]] = {}  # label → its examples' marks (_example_layouts), when needed
        self._near: dict[tuple[int, int], np.ndarray] = {}  # NEAR_BAND pairs' regions, made when needed
        self._paler: dict[tuple[int, int], bool] = {}  # (best, k) → k is best with ink taken away (_paler_rival)
        self._inks: dict[int, np.ndarray] = {}  # label → where its examples hold ink (_ink_of)
        self._added: dict[tuple[int, int], tuple | None] = {}  # (inky, pale) → regions (_added_ink)
        self._ratios: dict[tuple[int, int, int], list[float]] = {}  # (inky, pale, label) → examples' ratios
        self._example_regions = self._lookalike_examples()
        self._fine_bgr: np.ndarray | None = None  # (E, 3, FINE_H, FINE_W) float32 0..255, made when needed
        self._seeing: np.ndarray | None = None  # (E,) bool, examples whose paper was not clipped (_seeing_examples)
        self._border_ink: dict[int, np.ndarray | None] = {}  # label → its examples' rim ink (border_ink), when needed
        # (label, sigma, chroma) → that label's fine rows blurred so (_fine_blurred), made when needed
        self._blurred: dict[tuple[int, float, float], np.ndarray] = {}
        # (label, sigma, chroma, region's bytes) → the level look's unit region rows of that label at
        # that blur and their squared lengths (_level_templates), made when first asked for
        self._level_rows: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}
        self._with_fine: tuple[object, frozenset[int]] | None = None  # (fine_label, its labels): _has_fine
        # faces' SIFT (points, descriptors) per row and each label's example chroma, made on first use
        self._face_features: list[tuple[np.ndarray, np.ndarray]] | None = None
        self._face_chroma: dict[int, float | None] = {}
        self._twins: dict[tuple, list[int]] | None = None  # (label, warm, green, magenta) → its colour twins, made when needed
        self._example_pairs = {tuple(sorted((int(self.fine_label[a]), int(self.fine_label[b]))))
                               for a, b in self._example_regions}
        order = np.argsort(self.template_label, kind="stable")
        self.template_label = np.asarray(self.template_label, np.int64)[order]
        self.templates = np.ascontiguousarray(np.asarray(self.templates, np.float32)[order])
        # Upright and 180°-turned banks side by side, so one matmul scores both orientations.
        self._bank = np.ascontiguousarray(np.concatenate([self.templates, _rot180(self.templates)]).T)
        m = len(self.template_label)
        starts = np.searchsorted(self.template_label, np.arange(len(self.labels)))
        self._starts = np.concatenate([starts, starts + m])
        # One centroid per label (its templates' mean, unit length), both ways up: a smooth, 13×
        # cheaper score for searching where a card lies (``match(..., quick=True)``).
        cent = np.stack([self.templates[self.template_label == li].mean(axis=0) for li in range(len(self.labels))])
        cent /= np.maximum(np.linalg.norm(cent, axis=1, keepdims=True), 1e-6)
        self._quick = np.ascontiguousarray(np.concatenate([cent, _rot180(cent)]).T)

    def _lookalike_regions(self) -> dict[tuple[int, int], np.ndarray]:
        """(i, j), i < j → (FINE_H, FINE_W) bool: where look-alike labels i and j differ."""
        if self.fine is None or self.fine_label is None or len(self.fine) == 0:
            return {}
        n = len(self.labels)
        means = np.zeros((n,) + self.fine.shape[1:], np.float32)
        for li in range(n):
            rows = self.fine[self.fine_label == li]
            if len(rows):
                means[li] = rows.mean(axis=0)
        flat = means.reshape(n, -1)
        unit = flat / np.maximum(np.linalg.norm(flat, axis=1, keepdims=True), 1e-6)
        sim = unit @ unit.T
        out = {}
        for i in range(n):
            for j in range(i + 1, n):
                if sim[i, j] < LOOKALIKE_MIN:
                    continue
                out[(i, j)] = self._difference(means[i], means[j])
        return out

    def _lookalike_examples(self) -> dict[tuple[int, int], np.ndarray]:
        """(a, b), a < b rows of ``fine`` of two labels that are not look-alikes as a whole →
        (FINE_H, FINE_W) bool: where examples a and b differ, for the pairs of examples that
        look alike (fine ZNCC above ``LOOKALIKE_MIN``).

        A label enrolled from several different faces (a rank of a real deck: the nine of hearts
        and the nine of spades) has a blurred mean, so its look-alikes are found example by
        example: the nine of diamonds and the ten of diamonds differ in one pip and an index.
        """
        if self.fine is None or self.fine_label is None or len(self.fine) < 2:
            return {}
        flat = self.fine.reshape(len(self.fine), -1)
        unit = flat / np.maximum(np.linalg.norm(flat, axis=1, keepdims=True), 1e-6)
        sim = unit @ unit.T
        out = {}
        for a, b in zip(*np.nonzero(np.triu(sim >= LOOKALIKE_MIN, 1))):
            la, lb = int(self.fine_label[a]), int(self.fine_label[b])
            if la == lb or (min(la, lb), max(la, lb)) in self._regions:
                continue
            out[(int(a), int(b))] = self._difference(self.fine[a], self.fine[b])
        return out

    def _has_fine(self, label: int) -> bool:
        """Whether ``label`` has look-alike (fine) templates (a deck enrolled before them has none)."""
        if self.fine is None:
            return False
        # The labels that have any, once per fine_label array (asked for every label of every card read).
        if self._with_fine is None or self._with_fine[0] is not self.fine_label:
            self._with_fine = (self.fine_label, frozenset(int(k) for k in np.unique(self.fine_label)))
        return label in self._with_fine[1]

    def _near_region(self, pair: tuple[int, int]) -> np.ndarray:
        """(FINE_H, FINE_W) bool: where the mean fine templates of two labels differ (labels that are
        not look-alikes but scored within ``NEAR_BAND`` on a card); made when first asked for."""
        if pair not in self._near:
            i, j = (self.fine[self.fine_label == k].mean(axis=0) for k in pair)
            self._near[pair] = self._difference(i, j)
        return self._near[pair]

    @staticmethod
    def _difference(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """(FINE_H, FINE_W) bool: where two (3, FINE_H, FINE_W) fine templates differ."""
        diff = cv2.GaussianBlur(np.abs(a - b).sum(axis=0), (0, 0), 1.5)
        region = diff > _REGION_LEVEL * diff.max()
        return cv2.dilate(region.astype(np.uint8), np.ones((5, 5), np.uint8)) > 0

    def _best_example(self, patch: np.ndarray, label: int) -> int:
        """The row of ``fine`` of ``label`` that best matches a (3, FINE_H, FINE_W) Lab patch."""
        rows = np.nonzero(self.fine_label == label)[0]
        q = _zero_mean(patch).reshape(-1)
        t = self.fine[rows].reshape(len(rows), -1)
        zncc = (t @ q) / np.maximum(np.linalg.norm(t, axis=1) * np.linalg.norm(q), 1e-6)
        return int(rows[int(np.argmax(zncc))])

    def _align(self, big: np.ndarray, label: int) -> np.ndarray | None:
        """The fine Lab patch ``big`` (3, FH + 2s, FW + 2s) warped onto label's mean fine template by
        ECC (G. D. Evangelidis, E. Z. Psarakis, "Parametric image alignment using enhanced
        correlation coefficient maximization", IEEE PAMI 30(10), 2008; ``cv2.findTransformECC``,
        affine motion: a quad a little off in place, turn or size), with a 1 px border kept for the
        shift search; None if the alignment fails or runs wild."""
        rows = self.fine[self.fine_label == label]
        if not len(rows):
            return None
        template = rows[:, 0].mean(axis=0).astype(np.float32)
        s = (big.shape[1] - FINE_H) // 2
        warp = np.array([[1, 0, s], [0, 1, s]], np.float32)
        try:
            _, warp = cv2.findTransformECC(template, np.ascontiguousarray(big[0]), warp, cv2.MOTION_AFFINE,
                                           (cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_COUNT, 60, 1e-4), None, 3)
        except cv2.error:
            return None
        # A quad a little too large or turned is expected; a wild warp is a failed alignment.
        if np.abs(warp[:, 2] - s).max() > 2 * FINE_SHIFT or np.abs(warp[:, :2] - np.eye(2)).max() > 0.12:
            return None
        warp = warp.copy()
        warp[:, 2] -= 1.0  # keep one pixel of border for the ±1 px shift search
        size = (FINE_W + 2, FINE_H + 2)
        return np.stack([cv2.warpAffine(np.ascontiguousarray(c), warp, size, flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                        borderMode=cv2.BORDER_REPLICATE) for c in big])

    def aligned_quad(self, image: np.ndarray, quad: np.ndarray, label: int) -> np.ndarray | None:
        """The card's outline moved to where ``label``'s nearest example says it lies.

        An outline a few pixels off (a side snapped to a shadow or a glare line, a far card's
        corners rounded off by foreshortening) warps the card's face off its templates and costs
        the whole-card score; the eye, instead, lines the face up with the card it recalls. The
        card's look-alike patch (lightness, with ``FINE_SHIFT`` px of margin) is aligned to the
        lightness of ``label``'s nearest example by ECC with a homography (Evangelidis & Psarakis
        2008, as :meth:`_align`; a homography because a slanted camera's outline errs in
        perspective), and the example's corners are carried back into the image.

        Args:
            image: (H, W, 3) uint8 BGR.
            quad: (4, 2) float px, clockwise from the face's top-left as the best match says.
            label: the label index to align to.

        Returns:
            (4, 2) float32 image px in the same corner order, or None: no look-alike examples,
            the alignment failed, or it moved a corner more than ``ALIGN_REACH`` of the patch
            width (a wild warp, not a correction).
        """
        if not self._has_fine(label):
            return None
        s = FINE_SHIFT
        big = _fine_lab(fine_patch(image, quad), self.balanced, s)  # (3, FH + 2s, FW + 2s)
        example = self.fine[self._best_example(big[:, s:s + FINE_H, s:s + FINE_W], label), 0]
        warp = np.array([[1, 0, s], [0, 1, s], [0, 0, 1]], np.float32)  # example px → patch px
        try:
            _, warp = cv2.findTransformECC(np.ascontiguousarray(example, np.float32), np.ascontiguousarray(big[0]),
                                           warp, cv2.MOTION_HOMOGRAPHY,
                                           (cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_COUNT, 80, 1e-5), None, 3)
        except cv2.error:
            return None
        corners = (_DST_FINE - s).reshape(-1, 1, 2)  # the face's corners in the example's px
        moved = cv2.perspectiveTransform(corners, warp.astype(np.float64)).reshape(4, 2)
        if not np.all(np.isfinite(moved)) or np.abs(moved - _DST_FINE).max() > ALIGN_REACH * FINE_W:
            return None
        to_patch = cv2.getPerspectiveTransform(np.asarray(quad, np.float32), _DST_FINE)
        back = cv2.perspectiveTransform(moved.reshape(-1, 1, 2), np.linalg.inv(to_patch.astype(np.float64)))
        return back.reshape(4, 2).astype(np.float32)

    def residual_peak(self, image: np.ndarray, quad: np.ndarray, label: int) -> float:
        """How much the card in ``quad`` differs from ``label``'s nearest example in one place
        rather than all over: the peak of the difference map over its mean.

        The card's look-alike patch is aligned to the label's mean (:meth:`_align`; as found if
        that fails) and, at ±1 px, compared with each example of the label, both zero-mean per Lab
        channel and of unit length; the nearest (highest ZNCC) is kept. The squared difference,
        summed over the channels, is blurred at about a pip's scale (Gaussian, σ = 3 fine px)
        and its maximum divided by its mean (taken as at least ``SPREAD_FLOOR``'s). A card seen
        under other light, or of a suit shown by other examples, differs a little everywhere
        (3–6 for the cards the second look of :func:`companion.vision.cards.read_card_results`
        named right on the real photos); a card that is not the example but one mark away from it
        (a ten against the nine of its suit: one pip and the index) differs in one place (10–12).
        Cards whose suits differ in one central pip (aces) also peak high (10–27), so the ratio
        only settles cards already near the threshold, not every named card.

        Args:
            image: (H, W, 3) uint8 BGR.
            quad: (4, 2) float px, clockwise from the face's top-left as the match says.
            label: the label index.

        Returns:
            The ratio (≥ 1), or 0.0 where the label has no look-alike examples.
        """
        if not self._has_fine(label):
            return 0.0
        s = FINE_SHIFT
        big = _fine_lab(fine_patch(image, quad), self.balanced, s)
        aligned = self._align(big, label)
        if aligned is None:
            aligned = big[:, s - 1:s + FINE_H + 1, s - 1:s + FINE_W + 1]
        crops = np.stack([_zero_mean(aligned[:, dy:dy + FINE_H, dx:dx + FINE_W]) for dy in range(3) for dx in range(3)])
        crops /= np.maximum(np.linalg.norm(crops.reshape(len(crops), -1), axis=1), 1e-6)[:, None, None, None]
        examples = self._unit_examples(label)  # (E, 3·FH·FW)
        zncc = crops.reshape(len(crops), -1) @ examples.T
        ci, ei = np.unravel_index(int(np.argmax(zncc)), zncc.shape)
        diff = ((crops[ci] - examples[ei].reshape(3, FINE_H, FINE_W)) ** 2).sum(axis=0)
        local = cv2.GaussianBlur(diff, (0, 0), 3.0)
        # The mean is taken as at least what a card lying SPREAD_FLOOR (1 − ZNCC) from its example
        # gives (the squared differences of two unit vectors sum to 2·(1 − ZNCC)): a view that
        # matches its example almost exactly differs by noise alone, and noise's peaks say nothing.
        floor = 2.0 * SPREAD_FLOOR / diff.size
        return float(local.max() / max(float(local.mean()), floor))

    def _unit_examples(self, label: int) -> np.ndarray:
        """(E_label, 3·FINE_H·FINE_W) float32: ``label``'s look-alike examples, each of unit length."""
        if self.fine is None:
            return np.zeros((0, 3 * FINE_H * FINE_W), np.float32)
        rows = self.fine[self.fine_label == label]
        rows = rows.reshape(len(rows), -1)
        return rows / np.maximum(np.linalg.norm(rows, axis=1, keepdims=True), 1e-6)

    def _spread(self, label: int) -> float | None:
        """How far apart ``label``'s examples lie: the largest, over its examples, ``1 − ZNCC`` to
        the nearest other one (None with fewer than two examples: nothing to measure)."""
        if label not in self._spreads:
            unit = self._unit_examples(label)
            if len(unit) < 2:
                self._spreads[label] = None
            else:
                sim = unit @ unit.T - 2.0 * np.eye(len(unit))
                self._spreads[label] = float(1.0 - sim.max(axis=1).min())
        return self._spreads[label]

    def within_examples(self, image: np.ndarray, quad: np.ndarray, label: int) -> bool:
        """Whether the card in ``quad`` lies among ``label``'s examples (module doc).

        Its look-alike patch, aligned to the label's mean (:meth:`_align`) and tried at ±1 px, must
        reach a ``1 − ZNCC`` to the nearest example of at most ``EXAMPLE_SPREAD_FACTOR`` times the
        examples' own spread (:meth:`_spread`, taken as at least ``SPREAD_FLOOR``), and differ from
        that example nowhere by more than the examples differ there (:meth:`_locally_within`). A label
        enrolled from one example, or a card that cannot be aligned, is not judged (True): the
        whole-card threshold is all there is. The spread is the *largest* nearest-example
        distance, so one odd example (a poor crop) widens what the label accepts: it errs
        towards naming, as if the check did not exist.

        Args:
            image: (H, W, 3) uint8 BGR.
            quad: (4, 2) float px, clockwise from the face's top-left as the match says.
            label: the label index the card was given.
        """
        spread = self._spread(label)
        if spread is None:
            return True
        raw = fine_patch(image, quad)
        aligned = self._align(_fine_lab(raw, self.balanced, FINE_SHIFT), label)
        if aligned is None:
            return True
        crops = np.stack([_zero_mean(aligned[:, dy:dy + FINE_H, dx:dx + FINE_W]).reshape(-1)
                          for dy in range(3) for dx in range(3)])
        crops /= np.maximum(np.linalg.norm(crops, axis=1, keepdims=True), 1e-6)
        zncc = crops @ self._unit_examples(label).T  # (9, E_label)
        nearest = 1.0 - float(zncc.max())
        if nearest > EXAMPLE_SPREAD_FACTOR * max(spread, SPREAD_FLOOR):
            return False
        # A card whose paper the camera clipped (CLIP_SHARE of it at CLIP_LEVEL, as the exposure look
        # finds it) is a view no example shows: its contrast moves place by place, so the examples'
        # spread says nothing there; the exposure look (exposure_apart) judges such a card.
        if _clipped(raw):
            return True
        ci, ei = np.unravel_index(int(np.argmax(zncc)), zncc.shape)
        return self._locally_within(crops[ci], self._unit_examples(label)[ei], label)

    def unaligned(self, image: np.ndarray, quad: np.ndarray, label: int) -> bool:
        """Whether the card in ``quad`` fails to align to ``label``'s mean fine template
        (:meth:`_align`), so :meth:`within_examples` passes it unjudged. False for a label without
        fine templates (nothing tried)."""
        return self._has_fine(label) and \
            self._align(_fine_lab(fine_patch(image, quad), self.balanced, FINE_SHIFT), label) is None

    def _local_spread(self, label: int) -> np.ndarray | None:
        """(FINE_H, FINE_W) float32: at each place, the most any of ``label``'s examples differs
        there from its own nearest other one (squared difference of the unit-length look-alike
        templates summed over Lab, outside the ``LOCAL_EDGE`` band, blurred by ``LOCAL_SIGMA``; each
        example tried at ±1 px, edges repeated); None with fewer than two examples. Made once per label."""
        if label not in self._local_spreads:
            rows = self.fine[self.fine_label == label] if self.fine is not None else np.zeros((0,))
            if len(rows) < 2:
                self._local_spreads[label] = None
            else:
                unit = self._unit_examples(label).reshape(len(rows), 3, FINE_H, FINE_W)
                worst = np.zeros((FINE_H, FINE_W), np.float32)
                for i, row in enumerate(rows):
                    padded = np.pad(row, ((0, 0), (1, 1), (1, 1)), mode="edge")
                    best, best_map = np.inf, None
                    for dy in range(3):
                        for dx in range(3):
                            moved = _zero_mean(padded[:, dy:dy + FINE_H, dx:dx + FINE_W])
                            moved = moved / max(float(np.linalg.norm(moved)), 1e-6)
                            for j in range(len(rows)):
                                if j == i:
                                    continue
                                diff = ((moved - unit[j]) ** 2).sum(axis=0)
                                if float(diff.sum()) < best:
                                    best, best_map = float(diff.sum()), diff
                    worst = np.maximum(worst, cv2.GaussianBlur(best_map.astype(np.float32) * _LOCAL_INNER, (0, 0),
                                                               LOCAL_SIGMA))
                self._local_spreads[label] = worst
        return self._local_spreads[label]

    def _locally_within(self, card: np.ndarray, example: np.ndarray, label: int) -> bool:
        """Whether a card differs from its nearest example of ``label`` nowhere by more than the
        label's examples differ there among themselves (``LOCAL_FACTOR``, ``LOCAL_FLOOR``).

        Args:
            card, example: (3·FINE_H·FINE_W,) float32, zero-mean per Lab channel, unit length.
            label: the label index; one with fewer than two examples is not judged (True).
        """
        spread = self._local_spread(label)
        if spread is None:
            return True
        diff = ((card - example) ** 2).reshape(3, FINE_H, FINE_W).sum(axis=0)
        local = cv2.GaussianBlur(diff.astype(np.float32) * _LOCAL_INNER, (0, 0), LOCAL_SIGMA)
        # Two unit vectors SPREAD_FLOOR (1 − ZNCC) apart have squared differences summing to 2·SPREAD_FLOOR.
        floor = LOCAL_FLOOR * 2.0 * SPREAD_FLOOR / diff.size
        return float((local / (spread + floor)).max()) <= LOCAL_FACTOR

    def _agreed_marks(self, label: int) -> set[int] | None:
        """The mark counts ``label``'s examples agree on (``MARK_AGREE``, module constants), or None
        where they do not agree (a face card), agree on none (symbols larger than ``MARK_AREA``),
        the label has fewer than two examples or the deck has no counts (enrolled before them)."""
        if self._agreed_of[0] is not self.marks or self._agreed_of[1] is not self.fine_label:
            self._agreed.clear()
            self._agreed_of = (self.marks, self.fine_label)
        if label not in self._agreed:
            agreed = None
            if self.marks is not None and self.fine_label is not None:
                counts = np.asarray(self.marks)[np.asarray(self.fine_label) == label]
                values, n = np.unique(counts, return_counts=True)
                if len(counts) >= 2 and n.max() >= MARK_AGREE * len(counts) and values[np.argmax(n)] > 0:
                    agreed = {int(v) for v, k in zip(values, n) if k >= 2} | {int(values[np.argmax(n)])}
            self._agreed[label] = agreed
        return self._agreed[label]

    def marks_agree(self, image: np.ndarray, quad: np.ndarray, scores: np.ndarray, label: int,
                    bounded: bool = False) -> bool:
        """Whether the card in ``quad`` may keep the name ``label`` by its mark count
        (:func:`mark_count`; ``MARK_AGREE``, ``MARK_BAND``): False only where ``label``'s examples
        agree on a count, the card shows another, and either another label's examples agree on the
        card's count (a rival scoring within ``MARK_BAND`` of ``label``, or any label where the
        count is the same at every ink level and not 0) or the card shows more marks at every ink
        level than two of ``label``'s cards show (:meth:`_most_marks`: a quad round two cards, or
        a card and what lies on it), where ``bounded``, or the card shows no mark at any ink
        level where ``label``'s examples agree on ``BARE_MIN_MARKS`` or more and at most one
        of them shows none (a bare paper or plate; for a one-mark label, only where the face
        shows no part of ink of a mark's size or more, faint ink included: :func:`_faint_marked`),
        or it shows at every ink level at most 1 / ``SCARCE_SHARE`` of a count of
        ``SCARCE_MIN_MARKS`` or more that ``label``'s examples agree on. A
        label whose examples do not agree, or a deck without counts, is not judged (True). It can
        only make a name "unknown".

        Args:
            image: (H, W, 3) uint8 BGR.
            quad: (4, 2) float px, the card's outline, its top-left corner first or the card turned
                half round (:func:`_layout_fit` tries the face as it lies and turned half round
                only: a quad starting a quarter turn off is refused).
            scores: (L,) float32, the card's whole-card score per label.
            label: the label index the card was given.
            bounded: apply the two cards' worth bound (off unless asked for). Asked for only
                on a part-card the outline finder stretched to a card's shape
                (:class:`companion.vision.cards.Completion`, read by
                :func:`companion.vision.cards.classify_groups`): its far end is a guess and can
                take in what lies beyond the part found (IMG_2601 of ``bench/real_cards.py``, test
                draw 5: the coarse pass's completion over a ten and the queen it half covers, read
                "ace", 10-12 marks). Elsewhere a face card's art splits into as many parts as glare
                and ink level make of it (cam_image20's queen on test draw 1, found whole, 5-7
                marks where 6 of 10 queens' examples show 2), and a card found whole, by the window
                search, from its corners or as a covered card is one card whose count bounds
                nothing.
        """
        agreed = self._agreed_marks(label)
        if agreed is None:
            return True
        counted = [k for k in range(len(self.labels)) if k != label and self._agreed_marks(k) is not None]
        rivals = [k for k in counted if scores[k] >= scores[label] - MARK_BAND]
        if not bounded and not counted:
            return True  # (nothing below can refuse it: no count taken)
        # (All levels at once: the paper, a closing by a wide disc, is the cost, found once.)
        face = _upright(image, quad)
        areas = _mark_areas(face, (MARK_INK,) + tuple(MARK_INK_LEVELS))
        count, *others = _counted(areas)
        # More marks at every ink level than two of the label's cards show, and than any of its
        # examples shows: the outline holds more than one card (IMG_2601 of the real photos: a
        # ten and the queen it half covers, 10-12 marks, read "ace", whose examples show 0-5).
        # Needs no rival: it says what the card is not, not what it is.
        if bounded and min(count, *others) > self._most_marks(label):
            return False
        # A face bare at every ink level, where the label's examples agree on BARE_MIN_MARKS or
        # more marks and at most one of them shows none, is no card of that label: never-run
        # enrolment draws 26 and 27 of bench/real_cards.py named a bare grey plate in IMG_2452
        # "ten" (score 0.84, 0 marks at all three levels); no rival agrees on 0, so the rule
        # below kept the name. A card washed out so far that no pip shows is "unknown".
        if (max(count, *others) == 0 and 0 not in agreed
                and (self._majority_mark(label) >= BARE_MIN_MARKS
                     or not (any(np.any(a >= MARK_AREA[0]) for a in areas) or _faint_marked(face)))):
            return False
        # ... and a face that shows at most a third of a many-marked label's count at every ink
        # level is no card of it either, whatever else claims the count: real draw 14 (dev) named
        # an embossed white towel beside IMG_2472's nine "ten" (0.82; 1, 0 and 3 marks), and the
        # aces' examples of that draw agree on no count, so nothing refused it.
        if (self._majority_mark(label) >= SCARCE_MIN_MARKS
                and max(count, *others) * SCARCE_SHARE <= self._majority_mark(label)
                and not any(c in agreed for c in (count, *others))):
            return False
        if not counted:
            return True
        # A count two of the label's examples show (a crop cut off, a pip lost) is the label's
        # unless it is what most of another label's examples show: two nines' examples that
        # counted 10 must not keep a ten a nine.
        def owns(c: int) -> bool:
            return c in agreed and (c == self._majority_mark(label)
                                    or not any(self._majority_mark(k) == c for k in counted))

        if owns(count):
            return True
        # A count another label's examples agree on refuses the name: that of a rival within
        # ``MARK_BAND``, or of any label where the count is not 0 (a ten of a suit no ten was
        # enrolled in can read a nine by far and show ten pips: the review's drawn ten of circles).
        if not any(count in self._agreed_marks(k) for k in (counted if count > 0 else rivals)):
            return True
        # ... unless the laxest ink level, which takes paler ink for marks, gives the label's
        # count (a pip split by glare, a pale outline broken). A pale extra mark shows at that level
        # too, so a count the strict level alone gives the label is no reason to keep it.
        if owns(others[-1]):
            return True
        # ... unless the card's pips ran together (a blurred photo: cam_image41 of the real photos,
        # a nine whose two columns of four pips each merged into one part, counted 1) and, counted
        # by area in its own lone pips (:func:`merged_mark_count`), it shows the label's count and
        # no other label's (a blurred eight, never enrolled, shows 8, not a nine's 9). Merging
        # only takes marks away, so a count above the label's is never pardoned so.
        if count >= self._majority_mark(label):
            return False
        merged = merged_mark_count(face)
        return (merged == self._majority_mark(label)
                and not any(merged in self._agreed_marks(k) for k in counted))

    def paper_stock(self, label: int) -> np.ndarray | None:
        """(2,) float32 CIE a, b: the median of ``label``'s examples' papers as photographed
        (``paper``; grey where it lies within ``PAPER_STOCK_MIN`` of grey), or None where the label is not judged by its paper: a deck without papers
        (enrolled before them) or one of its examples' balanced papers more than ``PAPER_GREY``
        from grey (a full-bleed coloured card: its lighter half is no paper)."""
        if label not in self._stocks:
            stock = None
            if self.paper is not None and self.fine is not None and self.fine_mean is not None:
                rows = np.flatnonzero(np.asarray(self.fine_label) == label)
                grey = [float(np.hypot(*paper_lab(self.fine[r] + self.fine_mean[r][:, None, None])[1:]))
                        for r in rows]
                if len(rows) and max(grey) <= PAPER_GREY:
                    stock = np.median(np.asarray(self.paper)[rows], axis=0).astype(np.float32)
                    # A white deck's examples' median is the enrolment lights' noise, not a stock:
                    # taken out, it moved two real cards' casts of one photo apart (IMG_2571).
                    if float(np.hypot(*stock)) < PAPER_STOCK_MIN:
                        stock = np.zeros(2, np.float32)
            self._stocks[label] = stock
        return self._stocks[label]

    def corner_match(self, image: np.ndarray, quad: np.ndarray, label: int) -> float | None:
        """How well the card's corner index matches ``label``'s examples' (:meth:`corner_indices`):
        the largest normalised correlation (ZNCC, -1..1; -1 where no window has the contrast) of the
        face's top-left or bottom-right ``CORNER_BOX``, the latter turned upright, shifted up to
        ``CORNER_SHIFT`` fine px each way, with any example's index, on the balanced lightness; a
        window whose own contrast (std) is under ``CORNER_CONTRAST`` of the example's is not taken
        (a paper's faint texture correlates with a blurred index by chance over so many trials,
        which ZNCC alone, blind to contrast, cannot tell). A real ace shows its rank letter and small
        suit there; a coloured paper with one dot (``bench/real_covers.py --dotted``) shows paper.

        Args:
            image: (H, W, 3) uint8 BGR.
            quad: (4, 2) float px, the card's outline, clockwise from its face's top-left corner.
            label: the label index the card was given.

        Returns:
            The match, or None where the label is not judged by its index: fewer than
            ``CORNER_EXAMPLES_MIN`` of its examples show one (a symbol card, a deck without fine
            examples).
        """
        templates = self.corner_indices(label)
        if len(templates) < 2 * CORNER_EXAMPLES_MIN:
            return None
        L = np.ascontiguousarray(_fine_lab(fine_patch(image, np.asarray(quad, np.float32)), self.balanced, FINE_SHIFT)[0])
        return _corner_best(L, templates, FINE_SHIFT)

    def corner_self_match(self, label: int) -> float | None:
        """How well ``label``'s examples' indices match one another: the median, over its examples
        that show one (:meth:`corner_indices`), of the best :func:`_corner_best` of the example's
        top-left index (in the example's own face, with ``CORNER_SHIFT`` room) against the *other*
        examples' indices (leave-one-out). A label whose own prints match under
        ``CORNER_MATCH_MIN`` (draw 1's jacks: three jacks' faces, their "J" beside their art, 0.72-0.76 to
        real jacks) cannot call a real card's corner unlike them. None where not judged."""
        if label not in self._self_match:
            templates = self.corner_indices(label)
            out = None
            if len(templates) >= 2 * CORNER_EXAMPLES_MIN:
                d = CORNER_SHIFT
                scores = []
                for i in range(0, len(templates), 2):  # an example's top-left and bottom-right index
                    others = templates[:i] + templates[i + 2:]
                    # The example's own indices, edge-padded for the shift room.
                    scores.append(max(_corner_best(np.pad(x, d, mode="edge"), others, d) for x in templates[i:i + 2]))
                out = float(np.median(scores))
            self._self_match[label] = out
        return self._self_match[label]

    def corner_indices(self, label: int) -> list[np.ndarray]:
        """``label``'s examples' corner indices: each example's top-left ``CORNER_BOX`` (balanced
        lightness, (h, w) float32) and its bottom-right one turned upright, for the examples whose
        two corners show one print (ZNCC at least ``CORNER_SELF``: a card's two indices are one
        glyph, where an example found with the table in its corners, or a face with no index,
        shows two unlike patches). Empty for a label whose examples have no index."""
        if label not in self._indices:
            out = []
            if self.fine is not None and self.fine_mean is not None and self.fine_label is not None:
                bw, bh = int(round(CORNER_BOX[0] * FINE_W)), int(round(CORNER_BOX[1] * FINE_H))
                m = 2  # px of shift room between an example's two corners
                for r in np.flatnonzero(np.asarray(self.fine_label) == label):
                    ex = (self.fine[r][0] + self.fine_mean[r][0]).astype(np.float32)
                    tl = np.ascontiguousarray(ex[:bh, :bw])
                    br = np.ascontiguousarray(ex[::-1, ::-1][:bh, :bw])
                    if float(tl.std()) < 1e-3 or float(br.std()) < 1e-3:
                        continue
                    big = np.ascontiguousarray(ex[::-1, ::-1][:bh + m, :bw + m])
                    if float(cv2.matchTemplate(big, tl[:bh - m, :bw - m], cv2.TM_CCOEFF_NORMED).max()) >= CORNER_SELF:
                        out += [tl, br]
            self._indices[label] = out
        return self._indices[label]

    def mostly_paper(self, label: int) -> bool:
        """Whether ``label``'s face is mostly bare paper: most of its examples show at most
        ``PAPER_BARE_MARKS`` marks (:func:`mark_count`; an ace's one pip), so the lighter half of
        its face is its paper and not its art. False for a deck without counts."""
        median = self.marks_median(label)
        return median is not None and median <= PAPER_BARE_MARKS

    def marks_median(self, label: int) -> float | None:
        """The median of ``label``'s examples' mark counts (:func:`mark_count`, marks), or None
        for a deck without counts or a label without examples."""
        if self.marks is None or self.fine_label is None:
            return None
        counts = np.asarray(self.marks)[np.asarray(self.fine_label) == label]
        return float(np.median(counts)) if len(counts) else None

    def paper_cast(self, image: np.ndarray, quad: np.ndarray, label: int) -> np.ndarray | None:
        """How the photo's light (and the thing's own colour) casts the paper of a card named
        ``label``: (2,) float32 CIE a, b, its face's paper as photographed (:func:`paper_lab`, not
        white-balanced) less ``label``'s examples' (:meth:`paper_stock`); None where the label is
        not judged by its paper. Two cards of one photo are lit alike, so their casts agree where
        both are what they were named; a coloured paper named "ace" beside a white card does not
        (``PAPER_APART``). Relative to the label's own examples, so a deck on cream or pink stock
        reads as its examples did.

        Args:
            image: (H, W, 3) uint8 BGR.
            quad: (4, 2) float px, the card's outline (any corner first).
            label: the label index the card was given.
        """
        stock = self.paper_stock(label)
        if stock is None:
            return None
        s = FINE_SHIFT
        lab = _fine_lab(fine_patch(image, np.asarray(quad, np.float32)), balance=False)
        return (paper_lab(lab[:, s:s + FINE_H, s:s + FINE_W])[1:] - stock).astype(np.float32)

    def counted_label(self, image: np.ndarray, quad: np.ndarray, scores: np.ndarray, label: int) -> int:
        """The label the card's mark count names where it refuses ``label`` (:meth:`marks_agree`
        False), or −1: as the eye counts ten pips on a card that looks most like a nine.

        A rank's face in a suit its examples never show (a ten of clubs where only red tens were
        enrolled) lies nearest the card of its suit one mark away (the nine of clubs), and the
        mark count refuses that name. The count names the card itself only where it is sure: it
        is more than the count most of ``label``'s examples show (fewer is what ``label`` with a
        mark lost shows too: a pip faded, in glare, covered or cut off), it is the same at
        ``MARK_INK`` and at the strictest level of ``MARK_INK_LEVELS`` (a pip split
        by glare or a shadow counted as ink changes with the level), it is a count the examples
        of exactly one label show most (never 0: a washed-out or cut-off face shows none), that
        label is the card's next-best (whole-card score within ``MARK_BAND`` of ``label``'s), and
        the card lies among none of ``label``'s examples (one of them with a crumb or a token on
        it counts one mark more, and stays "unknown"), unless where its marks lie says which
        (:meth:`_layout_verdict`, ``LAYOUT_TOL``: a count one over ``label``'s is named where the
        marks fit the named label's examples and, any one dropped, not ``label``'s; refused where,
        one dropped, they fit ``label``'s and not the named label's, whatever the examples' look
        says). Nothing else vouches for the label named
        (the card lies among none of its examples either: that is why it was not named so), so a deck whose labels
        do not agree on counts (one example each, face cards, symbols larger than ``MARK_AREA``)
        never names a card so. On the real photos' dev half (``bench/real_cards.py``, enrolment
        seeds 0 and 1) every ten read so showed 10 at both levels; no nine did (one showed 10 at
        ``MARK_INK`` and 9 at the strict level).

        Args:
            image: (H, W, 3) uint8 BGR.
            quad: (4, 2) float px, the card's outline, its top-left corner first or the card turned
                half round (:func:`_layout_fit` tries the face as it lies and turned half round
                only: a quad starting a quarter turn off is refused).
            scores: (L,) float32, the card's whole-card score per label.
            label: the label index the card was given and the count refused.
        """
        agreed = self._agreed_marks(label)
        if agreed is None:
            return -1
        face = _upright(image, quad)
        count, strict = _mark_counts(face, (MARK_INK, min(MARK_INK_LEVELS)))
        # No mark at all is what a washed-out or cut-off face shows too: it names nothing.
        if count != strict or count <= 0 or count in agreed:
            return -1
        # Fewer marks than ``label``'s own names nothing: a mark lost (a pip faded or washed out by
        # glare, covered, cut off by the outline) is what such a count shows as well, so it cannot
        # tell ``label`` with a mark gone from the label of fewer marks. Only marks the card shows
        # beyond ``label``'s (a ten read nine) name it, and a mark too many from a crumb is refused
        # below. (IMG_2622: a ten of clubs leading the nine by 0.21, one pip pale in glare, counted
        # 9 at every level up to 0.84 and was named "nine".)
        if count < self._majority_mark(label):
            return -1
        named = [k for k in range(len(self.labels)) if k != label and self._majority_mark(k) == count]
        if len(named) != 1 or scores[named[0]] < scores[label] - MARK_BAND:
            return -1
        # Only the label read next-best: a count names among the card's rivals, never past them.
        rivals = np.array(scores, np.float64).copy()
        rivals[label] = -np.inf
        if int(np.argmax(rivals)) != named[0]:
            return -1
        # Where the marks lie decides where it can: the named label's layout fitted clearly better
        # than the refused label's with any one mark dropped names it (a ten of a suit its rank's
        # examples never show can lie within the nine's examples as a whole card: stop 44's black
        # tens), and the refused label's layout with one mark dropped fitted where the named one's
        # is not refuses it (a nine with a crumb on it, wherever it lies on the card).
        fit = self._layout_verdict(_mark_layout(face), label, named[0])
        if fit != 0:
            return named[0] if fit > 0 else -1
        # Otherwise: a card within ``label``'s examples is one of them with something on it (a
        # crumb, a token counted as a mark): only a face that lies among none of them is another card.
        if self.within_examples(image, quad, label):
            return -1
        return named[0]

    def _layout_verdict(self, marks: np.ndarray, label: int, named: int) -> int:
        """Whether where a card's marks lie names ``named`` (+1), refuses it (−1) or says neither (0),
        the card having been given ``label`` and its count being ``named``'s (``LAYOUT_TOL``,
        ``LAYOUT_MARGIN``; :meth:`counted_label`).

        Args:
            marks: (N, 3) float32, the card's marks (:func:`_mark_layout`), N the named label's count.
            label: the label the card was given and the count refused (N is one more than its count
                or more; only one more is judged here).
            named: the label its count names.

        Returns:
            +1 where the marks fit ``named``'s examples within ``LAYOUT_TOL`` and ``LAYOUT_MARGIN``
            times better than ``label``'s with any one mark dropped; −1 where they fit ``label``'s
            with one dropped within ``LAYOUT_TOL`` and ``named``'s not within it; else 0 (a label
            with no example showing its own count where :func:`_mark_layout` finds its marks, or
            a count more than one over ``label``'s).
        """
        own = self._majority_mark(label)
        if own is None or len(marks) != own + 1:
            return 0
        to_named = min((_layout_fit(marks, e) for e in self._example_layouts(named)), default=np.inf)
        to_label = _fit_one_dropped(marks, self._example_layouts(label))
        if not np.isfinite(to_named) or not np.isfinite(to_label):
            return 0
        if to_named <= LAYOUT_TOL and to_label >= LAYOUT_MARGIN * to_named:
            return 1
        if to_label <= LAYOUT_TOL and to_named > LAYOUT_TOL:
            return -1
        return 0

    def _example_layouts(self, label: int) -> list[np.ndarray]:
        """The marks (:func:`_mark_layout`, (N, 3) float32 each) of ``label``'s examples that show
        the count most of them show (:meth:`_majority_mark`), found on each example's look-alike
        face (:meth:`_examples_bgr`, ``FINE_W × FINE_H``) brought back to the upright face's size;
        an example counted otherwise there (a crop cut off, a pip merged at the smaller size) is
        left out. Made once per label."""
        if label not in self._layouts:
            own = self._majority_mark(label)
            out = []
            if own is not None and self.fine is not None:
                bgr = self._examples_bgr()
                for i in np.flatnonzero(np.asarray(self.fine_label) == label):
                    face = np.clip(bgr[i].transpose(1, 2, 0), 0, 255).astype(np.uint8)
                    face = cv2.resize(face, (_CANON_W, _CANON_H), interpolation=cv2.INTER_CUBIC)
                    m = _mark_layout(face)
                    if len(m) == own:
                        out.append(m)
            self._layouts[label] = out
        return self._layouts[label]

    def rival_count_claims(self, image: np.ndarray, quad: np.ndarray, scores: np.ndarray, label: int) -> bool:
        """Whether the card in ``quad`` shows, at every ink level (``MARK_INK``,
        ``MARK_INK_LEVELS``), one count greater than 0 that the examples of a label other than
        ``label`` agree on (:meth:`_agreed_marks`), that label scoring within ``MARK_BAND`` of
        ``label`` (whole-card ZNCC, ``scores``: (L,) float32): what the eye counts names the rival.
        Asked of a name the count cannot judge (a face card's); False where no such rival scores
        near (no face is warped then)."""
        rivals = [k for k in range(len(self.labels))
                  if k != label and self._agreed_marks(k) is not None and scores[k] >= scores[label] - MARK_BAND]
        if not rivals:
            return False
        counts = set(_mark_counts(_upright(image, quad), (MARK_INK,) + tuple(MARK_INK_LEVELS)))
        if len(counts) != 1:
            return False
        (count,) = counts
        return count > 0 and any(count in self._agreed_marks(k) for k in rivals)

    def marks_outweigh_exposure(self, image: np.ndarray, quad: np.ndarray, scores: np.ndarray, label: int) -> bool:
        """Whether the card's marks tell ``label`` from every rival the exposure look could not
        (:meth:`exposure_apart` refused it): the count and places of its pips, which clipping can
        pale or take away but never add to.

        True only where all of these hold: ``label``'s examples agree on a count (a pip card:
        :meth:`judges_marks`) and the count most of them show, ``c``, is no other label's (no
        other label's examples agree on it: the symbol deck's 1-3 symbols and every sushi label are
        never so); the card shows ``c`` marks at the lax ink level (the last of
        ``MARK_INK_LEVELS``, which takes a pip the camera paled for ink: a webcam card whose paper
        clips counts 7 at ``MARK_INK``, its pale pips lost) and no more at any level; none of those
        marks is more than ``JOINED_MARK_AREA`` times their median area (pips run together: a ten's
        middle pair joined by a stroke is one mark where a nine's middle pip lies); those marks
        lie as one of ``label``'s examples' do (:func:`_layout_fit` within ``LAYOUT_TOL``); and
        every other label scoring within ``EXPOSURE_INK_BAND`` of ``label`` (the widest band the
        exposure look takes a rival from) has examples agreeing on a count one off ``c`` and is
        ruled out by where the marks lie: for one of a mark more, the card's marks fit none of its
        examples' places with one mark dropped (a ten whose middle pip was clipped away shows nine
        pips where a ten's lie, not where a nine's do: a nine's middle pip lies about 0.3 face
        widths from a ten's nearest); for one of a mark fewer, the card's marks with any one
        dropped fit none of its examples' (a nine with a crumb on it); and at least one rival is so
        ruled out (else the exposure look refused it against a rival outside the band, a colour
        twin, which nothing here speaks to). A rival whose examples agree on no count (a face
        card) or on a count further off is never ruled out. Used by
        :func:`_final_label` only where the exposure look refused a card every other check named
        (stop 50, ``real50``: webcam nines and tens whose paper the camera clips, rendered so that
        the rank a pip away explains them about as well).

        Args:
            image: (H, W, 3) uint8 BGR.
            quad: (4, 2) float px, the card's outline, its top-left corner first or the card turned
                half round (:func:`_layout_fit` tries the face as it lies and turned half round
                only: a quad starting a quarter turn off is refused).
            scores: (L,) float32, the card's whole-card score per label.
            label: the label index the card was given.
        """
        own = self._majority_mark(label) if self.judges_marks(label) else None
        if own is None or own <= 0:
            return False
        if any(own in self._agreed_marks(k) for k in range(len(self.labels))
               if k != label and self._agreed_marks(k) is not None):
            return False
        face = _upright(image, quad)
        lax = max(MARK_INK_LEVELS)
        counts = _mark_counts(face, (MARK_INK,) + tuple(MARK_INK_LEVELS))
        if counts[1 + MARK_INK_LEVELS.index(lax)] != own or max(counts) != own:
            return False
        marks = _mark_layout(face, lax)
        if len(marks) != own:
            return False
        # Pips run together count as one mark that may lie where a rival's pip does (a ten's two
        # middle pips joined by a stroke: one mark at a nine's middle place): not pips to count.
        area = marks[:, 2].astype(np.float64) ** 2
        if area.max() > JOINED_MARK_AREA * float(np.median(area)):
            return False
        if not any(_layout_fit(marks, e) <= LAYOUT_TOL for e in self._example_layouts(label)):
            return False
        ruled_out = 0
        for k in range(len(self.labels)):
            if k == label or scores[k] < scores[label] - EXPOSURE_INK_BAND:
                continue
            theirs = self._majority_mark(k) if self.judges_marks(k) else None
            if theirs is None or abs(theirs - own) != 1 or not self._example_layouts(k):
                return False  # (a face card, or a count the marks' places cannot speak to)
            if _fit_one_dropped(marks, self._example_layouts(k), from_layouts=theirs > own) <= LAYOUT_TOL:
                return False
            ruled_out += 1
        # With no rival in the band, the exposure look refused the card against one outside it (a
        # colour twin, taken whatever its score): nothing here spoke to that one.
        return ruled_out > 0

    def judges_marks(self, label: int) -> bool:
        """Whether the mark count judges ``label`` (an index into ``labels``): its examples agree on
        a count (:meth:`_agreed_marks`; a pip card on paper, not a face card's art)."""
        return self._agreed_marks(label) is not None

    def feature_labels(self) -> frozenset[int]:
        """The labels :meth:`feature_label` can name: those with rows in ``faces`` and at least
        ``FEATURE_MIN_EXAMPLES`` examples (empty for a deck without ``faces``)."""
        if self.faces is None or self.face_label is None or len(self.face_label) == 0:
            return frozenset()
        return frozenset(int(k) for k in np.unique(self.face_label)
                         if int(self.examples[int(k)]) >= FEATURE_MIN_EXAMPLES)

    def _features(self) -> list[tuple[np.ndarray, np.ndarray]]:
        """Each row of ``faces``' SIFT ``(points (N, 2) float32 px, descriptors (N, 128) float32)``,
        made once per deck (:func:`companion.vision.face_features.sift_features`)."""
        if self._face_features is None:
            from companion.vision.face_features import sift_features

            self._face_features = [sift_features(cv2.resize(f, None, fx=FEATURE_SCALE, fy=FEATURE_SCALE,
                                                            interpolation=cv2.INTER_CUBIC) if FEATURE_SCALE != 1 else f,
                                                 FEATURE_KEEP_FACE)
                                   for f in self.faces]
        return self._face_features

    def _label_chroma(self, label: int) -> float | None:
        """The median over ``label``'s examples of their mean CIE a*b* length (white-balanced
        ``fine`` with its mean put back), or None where the deck has no ``fine``/``fine_mean``."""
        if label not in self._face_chroma:
            c = None
            if self.fine is not None and self.fine_mean is not None:
                rows = np.flatnonzero(np.asarray(self.fine_label) == label)
                if len(rows):
                    ab = self.fine[rows, 1:] + self.fine_mean[rows, 1:, None, None]
                    c = float(np.median(np.hypot(ab[:, 0], ab[:, 1]).mean(axis=(1, 2))))
            self._face_chroma[label] = c
        return self._face_chroma[label]

    def feature_label(self, image: np.ndarray, quad: np.ndarray, labels=None) -> tuple[int, np.ndarray]:
        """Name a card by local features (SIFT, :mod:`companion.vision.face_features`) against the
        enrolled faces (``faces``), or −1.

        The card (``quad`` and ``FEATURE_MARGIN`` of its short side round it) is warped to the
        faces' scale, its SIFT descriptors matched to every candidate example at once with Lowe's
        ratio test (``FEATURE_LOWE``, within each example), and each example's matches fitted with a
        RANSAC homography (example face px → card patch px). A label is named only when all hold:

        * one of its examples' fits has at least ``FEATURE_INLIERS`` inliers and carries that
          example's four corners to the card's (either way up) within ``FEATURE_CORNER_TOL`` of the
          card's short side: the match is the whole card. The label's best such fit is its
          support; a fit of more inliers that is not the whole card (an example whose outline is
          not its card's: the enrolment's finder took the whole crop) neither names nor blocks it;
        * its support is at least ``FEATURE_RATIO`` times the inliers of every fit of any other
          candidate label (whole card or not);
        * it has at least ``FEATURE_MIN_EXAMPLES`` examples (:meth:`feature_labels`);
        * the card's chroma is at least ``FEATURE_CHROMA`` of its examples' (not a grey copy).

        Examples are fitted in order of their ratio-test matches, and the fitting stops where no
        example left can change the verdict (its matches, an upper bound on its inliers, are under
        ``FEATURE_INLIERS`` with no whole-card fit yet there, or at most the best whole-card fit's
        over ``FEATURE_RATIO``): the verdict is the one every example's fit would give.

        Args:
            image: (H, W, 3) uint8 BGR.
            quad: (4, 2) float px, clockwise from a top-left corner (portrait).
            labels: candidate label indices (an iterable of int), or None for all of
                :meth:`feature_labels`; others are ignored.

        Returns:
            ``(label, quad)``: the label index or −1, and ``quad`` (4, 2) float32, turned half round
            (``np.roll(quad, -2)``) where the card lies upside down against the matched example.
        """
        from companion.vision.face_features import homography_inliers, ratio_matches, sift_features

        q = np.asarray(quad, np.float32).reshape(4, 2)
        allowed = self.feature_labels()
        cands = sorted(allowed if labels is None else allowed & {int(k) for k in labels})
        if not cands:
            return -1, q
        rows = [i for i, k in enumerate(self.face_label.tolist()) if k in cands]
        feats = self._features()
        rows = [i for i in rows if len(feats[i][1]) >= FEATURE_INLIERS]
        if not rows:
            return -1, q
        fw, fh = FEATURE_SCALE * FACE_W, FEATURE_SCALE * FACE_H
        pad = FEATURE_MARGIN * fw
        card = np.array([[pad, pad], [pad + fw, pad], [pad + fw, pad + fh], [pad, pad + fh]], np.float32)
        size = (int(round(fw + 2 * pad)), int(round(fh + 2 * pad)))
        warp = cv2.warpPerspective(image, cv2.getPerspectiveTransform(q, card), size, flags=cv2.INTER_AREA,
                                   borderMode=cv2.BORDER_REPLICATE)
        pts, desc = sift_features(cv2.cvtColor(warp, cv2.COLOR_BGR2GRAY), FEATURE_KEEP_CARD)
        if len(desc) < FEATURE_INLIERS:
            return -1, q
        matches = ratio_matches(desc, [feats[i][1] for i in rows], FEATURE_LOWE)
        order = sorted(range(len(rows)), key=lambda j: -len(matches[j][0]))
        face = np.array([[0, 0], [fw, 0], [fw, fh], [0, fh]], np.float32)
        most: dict[int, int] = {}  # label → the most inliers any of its examples' fits has (the veto)
        whole: dict[int, tuple[int, bool]] = {}  # label → (inliers, upright) of its best fit that is the whole card
        for j in order:
            g = len(matches[j][0])
            top = max((v[0] for v in whole.values()), default=0)
            if g < FEATURE_INLIERS and top < FEATURE_INLIERS:
                break  # no example left can reach FEATURE_INLIERS: nothing can be named
            if top >= FEATURE_INLIERS and FEATURE_RATIO * g <= top:
                break  # no example left can veto the best nor beat it
            qi, ei = matches[j]
            h, n_in = homography_inliers(feats[rows[j]][0][ei], pts[qi], FEATURE_REPROJ_PX * FEATURE_SCALE)
            k = int(self.face_label[rows[j]])
            most[k] = max(most.get(k, 0), n_in)
            if h is None or n_in < FEATURE_INLIERS or n_in <= whole.get(k, (-1, True))[0]:
                continue
            # The corner test per fit, not only on the label's most-inliers fit: an example whose
            # outline is not the card's (an enrolment crop where the finder took the whole crop) can
            # fit a card of its own label best and carry its outline elsewhere, and must not hide
            # a fit of another example of that label that is the whole card. It still vetoes
            # other labels (``most``).
            mapped = cv2.perspectiveTransform(face.reshape(-1, 1, 2), h).reshape(4, 2)
            upright = _outline_off(mapped, card, fw)
            turned = _outline_off(mapped, np.roll(card, -2, axis=0), fw)
            if min(upright, turned) <= FEATURE_CORNER_TOL:
                whole[k] = (n_in, upright <= turned)
        if not whole:
            return -1, q
        label = max(whole, key=lambda k: whole[k][0])
        n_in, up = whole[label]
        rival = max((v for k, v in most.items() if k != label), default=0)
        if n_in < FEATURE_INLIERS or n_in < FEATURE_RATIO * rival:
            return -1, q
        own = self._label_chroma(label)
        if own is None:
            return -1, q
        lab = _fine_lab(fine_patch(image, q if up else np.roll(q, -2, axis=0), margin=False))
        if float(np.hypot(lab[1], lab[2]).mean()) < FEATURE_CHROMA * own:
            return -1, q
        return label, (q if up else np.roll(q, -2, axis=0))

    def _most_marks(self, label: int) -> int:
        """The most marks a card named ``label`` (its examples agreeing on a count,
        :meth:`_agreed_marks`) may show: as many as two of its cards (twice the count most of its
        examples show: two cards' worth is more than one card with a crumb or a token on it), or
        as any one of its examples shows, whichever is more (an example's crop may hold a thumb or
        the table's pattern; the user enrolled it as that label)."""
        counts = np.asarray(self.marks)[np.asarray(self.fine_label) == label]
        return max(2 * int(self._majority_mark(label)), int(counts.max()))

    def _majority_mark(self, label: int) -> int | None:
        """The mark count most of ``label``'s examples show, where they agree on one
        (:meth:`_agreed_marks`), else None."""
        if self._agreed_marks(label) is None:
            return None
        counts = np.asarray(self.marks)[np.asarray(self.fine_label) == label]
        values, n = np.unique(counts, return_counts=True)
        return int(values[np.argmax(n)])

    def _examples_bgr(self) -> np.ndarray:
        """(E, 3, FINE_H, FINE_W) float32 BGR 0..255: each look-alike example as its white-balanced
        photo showed it (``fine`` with its Lab mean put back), made once."""
        if self._fine_bgr is None:
            lab = (self.fine + self.fine_mean[:, :, None, None]).transpose(0, 2, 3, 1)  # (E, FH, FW, 3)
            flat = np.ascontiguousarray(lab.reshape(-1, FINE_W, 3), np.float32)
            bgr = cv2.cvtColor(flat, cv2.COLOR_Lab2BGR).reshape(lab.shape) * 255.0
            self._fine_bgr = np.ascontiguousarray(np.clip(bgr, 0, 255).transpose(0, 3, 1, 2), np.float32)
        return self._fine_bgr

    def border_ink(self, label: int) -> np.ndarray | None:
        """(4,) float64, ascending: the most dark ink any of ``label``'s enrolled examples shows in
        each of its face's rim bands (:func:`rim_ink` of each look-alike example's face,
        :meth:`_examples_bgr`, ``FINE_W × FINE_H``; sorted per example, then the largest share
        at each rank over the examples). Measured from the deck's own examples, so a deck of any
        print works; made once per label. ``None`` where the deck keeps no look-alike faces (no
        ``fine`` or no ``fine_mean``) or the label has none. Used by
        :func:`companion.vision.card_search._on_title` (title50)."""
        if label not in self._border_ink:
            out = None
            if self.fine is not None and self.fine_mean is not None and self.fine_label is not None:
                rows = np.flatnonzero(np.asarray(self.fine_label) == label)
                if len(rows):
                    bgr = self._examples_bgr()
                    out = np.max([np.sort(rim_ink(cv2.cvtColor(bgr[i].transpose(1, 2, 0), cv2.COLOR_BGR2GRAY)))
                                  for i in rows], axis=0)
            self._border_ink[label] = out
        return self._border_ink[label]

    def _seeing_examples(self) -> np.ndarray:
        """(E,) bool: the look-alike examples whose white balance could see the enrolment's light.

        An example whose paper (its brightest tenth, as :func:`white_balance` takes it) comes out
        at ``SEEING_LEVEL`` or more after balancing was photographed with its paper clipped in most
        channels: its balance saw no ratio between them, so its ink's colour is the enrolment
        light's as much as the ink's (a purple card enrolled clipped under a warm light is a red-ish
        purple). Made once."""
        if self._seeing is None:
            bgr = self._examples_bgr()
            paper = np.empty(len(bgr), np.float32)
            for i, e in enumerate(bgr):
                face = e.transpose(1, 2, 0)
                paper[i] = float(face.reshape(-1, 3)[_percentile_mask(face)].mean())
            self._seeing = paper < SEEING_LEVEL
        return self._seeing

    def _rendered(self, crops: np.ndarray, label: int, region: np.ndarray,
                  smooth_crops: np.ndarray | None = None, brighter: float = 1.0,
                  seeing: bool = False) -> float:
        """How well ``label``'s examples, seen with the card's own exposure and clipping, explain the
        card on ``region``: the least, over examples and shifts, sum of squared differences there,
        both blurred by ``EXPOSURE_SIGMA`` (:func:`_censored_fit` renders each example, its fitted
        values times ``brighter`` before they are clipped at 255).

        Args:
            crops: (S, 3, FINE_H, FINE_W) float32 BGR 0..255, the card at each shift.
            label: the label index.
            region: (FINE_H, FINE_W) bool.
            smooth_crops: ``_smooth(crops)`` if the caller has it (it is the same for every label).
            brighter: a factor on the fitted gain (1.0: as fitted; :data:`EXPOSURE_BRIGHTER`).
            seeing: only the label's examples whose paper was not clipped (:meth:`_seeing_examples`),
                where it has any.
        """
        rows = self.fine_label == label
        if seeing and (rows & self._seeing_examples()).any():
            rows = rows & self._seeing_examples()
        ex = self._examples_bgr()[rows]  # (E_k, 3, FH, FW)
        s, e = len(crops), len(ex)
        y = np.broadcast_to(crops[:, None], (s, e) + crops.shape[1:]).reshape(s * e * 3, -1)
        x = np.broadcast_to(ex[None], (s, e) + ex.shape[1:]).reshape(s * e * 3, -1)
        seen = np.minimum(_censored_fit(x, y, CLIP_LEVEL) * np.float32(brighter), 255.0).reshape(s * e, 3, FINE_H, FINE_W)
        # The card was clipped, then blurred by the reader (RENDER_BLUR): so is its rendering.
        flat = seen.reshape(-1, FINE_H, FINE_W)
        seen = np.stack([cv2.GaussianBlur(c, (3, 3), RENDER_BLUR) for c in flat]).reshape(seen.shape)
        # The card's side is the same crop for every example: blurred once per shift, not per pair.
        card = (_smooth(crops) if smooth_crops is None else smooth_crops)[:, :, region]  # (S, 3, R)
        diff = _smooth(seen)[:, :, region].reshape(s, e, 3, -1) - card[:, None]
        return float((diff ** 2).reshape(s * e, 3, -1).sum(axis=(1, 2)).min())

    def _lightness_twins(self, label: int, warm: bool = True, green: bool = False,
                         magenta: bool = False) -> list[int]:
        """The labels whose mean fine templates' lightness layouts (CIE L, zero-mean) correlate with
        ``label``'s at least ``LIGHTNESS_TWIN`` (the same marks in the same places, told apart by
        their colour: the symbol deck's red, green and purple of one card) and whose colour a warm
        or cool light brings towards ``label``'s (with ``warm``), a green one (with ``green``) or a
        magenta one (with ``magenta``) (:meth:`_cast_reaches`; which lights a card's white balance
        cannot have seen: :func:`_unseen_casts`). Made once per label and set of lights."""
        if self._twins is None:
            n = len(self.labels)
            means = np.zeros((n, FINE_H * FINE_W), np.float32)
            has = np.zeros(n, bool)
            for k in range(n):
                rows = self.fine[self.fine_label == k]
                if len(rows):
                    means[k] = rows[:, 0].mean(axis=0).reshape(-1)
                    has[k] = True
            means -= means.mean(axis=1, keepdims=True)
            unit = means / np.maximum(np.linalg.norm(means, axis=1, keepdims=True), 1e-6)
            self._twin_sim = unit @ unit.T
            self._twin_has = has
            self._twins = {}
        key = (label, warm, green, magenta)
        if key not in self._twins:
            close = np.nonzero(self._twin_has & (self._twin_sim[label] >= LIGHTNESS_TWIN))[0].tolist()
            self._twins[key] = [k for k in close
                                if k != label and self._cast_reaches(k, label, warm, green, magenta)]
        return self._twins[key]

    def _cast_reaches(self, k: int, label: int, warm: bool = True, green: bool = False,
                      magenta: bool = False) -> bool:
        """Whether one of the lights asked about brings ``k``'s colour within ``CAST_REACH`` of its
        neutral distance from ``label``'s: with ``warm`` a warm or cool light (blue × t, red × 1/t,
        t in ``CAST_RANGE``), with ``green`` a green one (green × t, t > 1), with ``magenta`` a
        magenta one (green × t, t < 1). The distance is between the mean CIE a/b of each label's
        white-balanced examples on where the two differ, ``k``'s seen through the light (clipped
        at 255). Red and purple reach each other by a warm or cool light (the symbol deck: to
        0.13-0.3 of their distance for most pairs), green and either no nearer than 0.77 so; a
        green light takes purple to green (0.03-0.39 over the deck's open and striped pairs, stop
        43's trace: 0.09-0.11), and a magenta one green to purple alike; red and green reach
        0.44-0.62 by either (some pairs within ``CAST_REACH``); solid fills 0.75 or more."""
        pair = (min(k, label), max(k, label))
        region = self._regions[pair] if pair in self._regions else self._near_region(pair)
        bgr = self._examples_bgr()

        def ab(j: int, cast: np.ndarray) -> np.ndarray:
            rows = self.fine_label == j
            x = bgr[rows][:, :, region].transpose(0, 2, 1).reshape(-1, 1, 3)  # (E·R, 1, 3)
            x = np.clip(x * cast, 0, 255) * np.float32(1 / 255)
            lab = cv2.cvtColor(np.ascontiguousarray(x, np.float32), cv2.COLOR_BGR2Lab).reshape(-1, 3)
            # The ink, not the paper the region also holds: each pixel weighted by how much darker
            # than its example's paper (lightness, neutral light) it is.
            fine = self.fine[rows][:, 0] + self.fine_mean[rows, 0, None, None]  # (E_j, FH, FW) CIE L
            paper = np.percentile(fine.reshape(len(fine), -1), 90, axis=1)[:, None]
            w = np.maximum(paper - fine[:, region], 0.0).reshape(-1)
            return (lab[:, 1:] * w[:, None]).sum(axis=0) / max(float(w.sum()), 1e-6)

        mine = ab(label, np.ones(3, np.float32))
        apart = float(np.linalg.norm(ab(k, np.ones(3, np.float32)) - mine))
        steps = np.geomspace(CAST_RANGE[0], CAST_RANGE[1], 9)
        casts = [np.float32([t, 1.0, 1.0 / t]) for t in steps] if warm else []
        casts += [np.float32([1.0, t, 1.0]) for t in steps if (green and t > 1.0) or (magenta and t < 1.0)]
        return any(float(np.linalg.norm(ab(k, cast) - mine)) <= CAST_REACH * apart for cast in casts)

    def _ink_of(self, label: int) -> np.ndarray:
        """(FINE_H, FINE_W) bool: where ``label``'s examples, each against its own paper (its 90th
        percentile of L), average ``EXTRA_INK_L`` darker. Made once per label."""
        if label not in self._inks:
            rows = np.flatnonzero(np.asarray(self.fine_label) == label)
            L = self.fine[rows, 0] + self.fine_mean[rows, 0, None, None]
            paper = np.percentile(L.reshape(len(rows), -1), 90, axis=1)
            self._inks[label] = (L - paper[:, None, None]).mean(axis=0) < -EXTRA_INK_L
        return self._inks[label]

    def _grown_ink(self, label: int) -> np.ndarray:
        """:meth:`_ink_of` ``label`` grown by a pixel (a 3 × 3 dilation): room for the examples'
        outlines to lie a pixel apart."""
        return cv2.dilate(self._ink_of(label).astype(np.uint8), np.ones((3, 3), np.uint8)) > 0

    def _added_ink(self, inky: int, pale: int) -> tuple[np.ndarray, np.ndarray] | None:
        """(added, shared): where only ``inky``'s examples hold ink (``pale``'s ink grown by a
        pixel left out), and where both do; None where either is under ``EXTRA_INK_MIN_PX``."""
        key = (inky, pale)
        if key not in self._added:
            a, b = self._ink_of(inky), self._ink_of(pale)
            added, shared = a & ~self._grown_ink(pale), a & b
            ok = added.sum() >= EXTRA_INK_MIN_PX and shared.sum() >= EXTRA_INK_MIN_PX
            self._added[key] = (added, shared) if ok else None
        return self._added[key]

    @staticmethod
    def _added_ratio(L: np.ndarray, regions: tuple[np.ndarray, np.ndarray]) -> float | None:
        """The extra-ink ratio (``EXTRA_INK_L``) of a face's lightness ``L`` ((FINE_H, FINE_W)
        float32 CIE L, lined up with the labels' templates), or None where the shared ink is
        fainter than ``EXTRA_INK_BASE``."""
        added, shared = regions
        dark = np.percentile(L, 90) - L
        base = float(dark[shared].mean())
        return float(dark[added].mean()) / base if base >= EXTRA_INK_BASE else None

    def _example_ratios(self, inky: int, pale: int, label: int) -> list[float]:
        """The extra-ink ratios of ``label``'s examples on the pair's regions (made once)."""
        key = (inky, pale, label)
        if key not in self._ratios:
            regions = self._added_ink(inky, pale)
            out = []
            if regions is not None:
                for r in np.flatnonzero(np.asarray(self.fine_label) == label):
                    v = self._added_ratio(self.fine[r, 0] + self.fine_mean[r, 0], regions)
                    if v is not None:
                        out.append(v)
            self._ratios[key] = out
        return self._ratios[key]

    def extra_ink_agrees(self, image: np.ndarray, quad: np.ndarray, scores: np.ndarray, label: int) -> bool:
        """Whether the card in ``quad``, named ``label``, shows the ink ``label`` adds to each
        paler rival and lacks the ink each inkier rival adds (the extra-ink look, ``EXTRA_INK_L``).

        A rival is a label within ``LOOKALIKE_BAND`` of ``label``'s whole-card score that is
        ``label`` with ink taken away or added (:meth:`_paler_rival` either way). The card, lined up
        with ``label``'s template (:meth:`_align`), is refused where its ratio lies as low as a
        paler rival's examples' and under every one of ``label``'s own (its added ink is not
        there), or as high as an inkier rival's examples' and over every one of ``label``'s own.
        Only ever refuses: a card that cannot be lined up, or a pair whose regions are too small,
        is not judged here, and a clipped card (:func:`_clipped`) is not refused for lacking
        ``label``'s added ink (the clip may have taken it; the exposure look judges such a card).
        A label enrolled from one picture is judged against that one picture's ratio.

        Args:
            image: (H, W, 3) uint8 BGR.
            quad: (4, 2) float px, clockwise from the face's top-left as the match says.
            scores: (L,) best whole-card ZNCC per label.
            label: the label index the card was given.
        """
        if self.fine is None or self.fine_mean is None or not self._has_fine(label):
            return True
        pairs = []
        for k in np.flatnonzero(scores >= scores[label] - LOOKALIKE_BAND).tolist():
            if k == label or not self._has_fine(k):
                continue
            if self._paler_rival(label, k):
                pairs.append((label, k, k))
            elif self._paler_rival(k, label):
                pairs.append((k, label, k))
        pairs = [(i, p, k, r) for i, p, k in pairs if (r := self._added_ink(i, p)) is not None]
        if not pairs:
            return True
        raw = fine_patch(image, quad)
        # A clipped card's added ink may be clipped away (a striped fill's faint tint): that it is
        # not there says nothing, and the exposure look has judged the card as its clipping shows it.
        if _clipped(raw):
            pairs = [p for p in pairs if p[0] != label]
        if not pairs:
            return True
        aligned = self._align(_fine_lab(raw, self.balanced, FINE_SHIFT), label)
        if aligned is None:
            return True
        L = aligned[0, 1:1 + FINE_H, 1:1 + FINE_W]
        for inky, pale, k, regions in pairs:
            v = self._added_ratio(L, regions)
            mine, theirs = self._example_ratios(inky, pale, label), self._example_ratios(inky, pale, k)
            if v is None or not mine or not theirs:
                continue
            if inky == label and v <= max(theirs) and v < min(mine):
                return False
            if inky == k and v >= min(theirs) and v > max(mine):
                return False
        return True

    def _paler_rival(self, best: int, k: int) -> bool:
        """Whether ``k`` is ``best`` with ink taken away (an open fill to a striped one): at most
        ``PALER_OUTSIDE`` of ``k``'s ink (:meth:`_ink_of`) lies outside ``best``'s grown by a pixel,
        and ``best`` adds ink of its own (:meth:`_added_ink`); neither is a face label
        (``feature_labels``: a rank's different art, whose mean ink is a blur over the portrait).
        A card of ``k`` that blur, grain or JPEG tints where ``best``'s ink would be can score
        ``best`` first, though its templates are no look-alikes of ``best``'s (a thin outline
        correlates poorly with a filled one). Such a ``k`` within ``LOOKALIKE_BAND`` is a rival in
        the look-alike stage and in the extra-ink look (:meth:`extra_ink_agrees`; stop 57: the
        symbol deck's second print, ``bench/symbol_cards.py --style print2``, read an open green
        oval and an open purple wave as their striped labels, 0.10 and 0.02 ahead, where hair-line
        stripes every 5 px made the striped fill's templates no look-alikes of the open ones').
        Made once per pair."""
        key = (best, k)
        if key not in self._paler:
            paler = False
            if self._has_fine(best) and self._has_fine(k) and self.fine_mean is not None \
                    and not {best, k} & self.feature_labels():
                # k's ink lies within best's (grown by a pixel), and best adds some of its own
                theirs = self._ink_of(k)
                outside = theirs & ~self._grown_ink(best)
                paler = (theirs.sum() >= EXTRA_INK_MIN_PX and outside.sum() <= PALER_OUTSIDE * theirs.sum()
                         and self._added_ink(best, k) is not None)
            self._paler[key] = paler
        return self._paler[key]

    def _more_ink(self, label: int, rival: int, region: np.ndarray) -> bool:
        """Whether ``rival``'s examples hold more of ``label``'s own ink on ``region`` (where the two
        differ): darker there by at least ``INK_GAP`` (mean CIE L), or no lighter by as much and more
        saturated by as much in the label's own hue (a/b units along it; the label's chroma at least
        1.0), and, where they differ in colour, towards the label's own hue (within ``INK_HUE`` as
        a cosine in the a/b plane). A striped fill is so to an open one; a red outline is not so to
        a purple one."""
        def mean_lab(k: int) -> np.ndarray:
            rows = self.fine_label == k
            lab = self.fine[rows] + self.fine_mean[rows, :, None, None]
            # Lightness against each example's own paper (its 90th percentile): the examples were
            # photographed at their own exposures, and a label enrolled brighter is not paler ink
            # (the purple striped oval's examples averaged 4.0 L lighter than the open one's).
            paper = np.percentile(lab[:, 0].reshape(len(lab), -1), 90, axis=1)
            lab[:, 0] -= paper[:, None, None] - 100.0
            return lab[:, :, region].mean(axis=(0, 2))
        mine, theirs = mean_lab(label), mean_lab(rival)
        shift, hue = theirs[1:] - mine[1:], mine[1:]
        chroma = float(np.linalg.norm(hue))
        size = float(np.linalg.norm(shift)) * chroma
        # Ink is colour as well as darkness: a striped fill of a light ink can be no darker on the
        # region than the open one (the region holds outlines a pixel apart as well as the fill, and
        # they weigh alike), yet it is more saturated in the ink's hue there (by 3.6-10.8 a/b units in
        # all 27 of the symbol bench's open/striped pairs). Only where the rival is no lighter by
        # INK_GAP, though: a rival much lighter there holds less ink by its darkness, and the colour
        # alone then took an open green wave's striped rival (12 L lighter) to the exposure look,
        # which made over-exposed open green waves "unknown" though clipping never showed them striped.
        more_colour = (chroma >= 1.0 and theirs[0] - mine[0] < INK_GAP
                       and float(shift @ hue) / chroma >= INK_GAP)
        if mine[0] - theirs[0] < INK_GAP and not more_colour:
            return False
        return size < 1.0 or float(shift @ hue) >= INK_HUE * size  # a grey ink, or the label's own hue

    def exposure_apart(self, image: np.ndarray, quad: np.ndarray, scores: np.ndarray, label: int) -> bool:
        """Whether the card in ``quad`` can be told from every rival of ``label`` as its own exposure
        and clipping let it show (the exposure look); True when the card is not clipped.

        A camera that clips a card's paper clips the faint tint a fine pattern becomes (a striped
        fill at board size) with it, and both looks of :meth:`settle_lookalikes` then see an open
        fill. So for a card with ``CLIP_SHARE`` of its pixels clipped in some channel
        (``CLIP_LEVEL``), each label within ``EXPOSURE_BAND`` of ``label``'s whole-card score that
        holds more of ``label``'s own ink where the two differ (:meth:`_more_ink`: clipping can
        only have taken such ink away) is compared as this card would show both: each example
        (BGR, white-balanced) scaled channel by channel by the gain that best fits the card, the
        clipped pixels taken as at least ``CLIP_LEVEL``, then clipped at 255
        (:func:`_censored_fit`), and compared with the card on where the two labels differ, both
        blurred by ``EXPOSURE_SIGMA`` (:meth:`_rendered`); against a rival with more of its ink,
        both also at the gains ``EXPOSURE_BRIGHTER`` times the fitted one, each side at its best (a
        fitted gain a little short leaves a striped tint the photo clipped): a second test, so it
        only adds refusals, and taken only on a card with ``BRIGHTER_SHARE`` of it clipped (where
        half the card is unclipped, those pixels fix the gain). Where the card's paper is clipped
        so that its white balance cannot have seen a light (:func:`_unseen_casts`: a warm or cool
        one where ``BLIND_CHANNELS`` channels clipped, a green one where green alone did, a magenta
        one where blue and red did and green not), ``label``'s lightness twins such a light turns it into
        (:meth:`_lightness_twins`: red and purple, purple and green) are rivals too, whatever their
        whole-card scores, judged as a rival with more ink is. ``label`` must explain the card better by
        ``EXPOSURE_MARGIN`` (:func:`_exposure_lead`); where the clipping leaves the two alike, it
        cannot, and the card is better "unknown" than named. A deck without the examples' Lab
        means (enrolled before them) is not judged so. It costs nothing on a card that is not
        clipped, and one alignment and a few renderings on one that is.

        Args:
            image: (H, W, 3) uint8 BGR.
            quad: (4, 2) float px, clockwise from the face's top-left as the match says.
            scores: (L,) best whole-card ZNCC per label.
            label: the label index the card was given.
        """
        if self.fine_mean is None or not self._has_fine(label):
            return True
        if _fine_patch_max(image, quad) < CLIP_LEVEL - 1.0:
            return True  # no pixel the patch is made of is near clipping: none of the patch's is
        raw = cv2.GaussianBlur(fine_patch(image, quad), (3, 3), 0.7)  # as _fine_lab blurs
        s = FINE_SHIFT
        card = raw[s:s + FINE_H, s:s + FINE_W]
        clipped = _clip_share(raw)
        if clipped < CLIP_SHARE:
            return True
        # Paper clipped where a light can hide (two channels or more; green alone; blue and red): the
        # card's white balance did not see that light, so its colour may be its doing
        # (LIGHTNESS_TWIN). Its label's twins are rivals whatever their whole-card scores (the score
        # is what the cast misled), judged as a rival with more of the label's ink is (the brighter
        # gains too: a fitted gain a little short leaves the rival's ink showing where the photo
        # clipped it).
        paper = card.reshape(-1, 3)[_percentile_mask(card)]
        unseen = _unseen_casts(paper.mean(axis=0) >= CLIP_LEVEL)
        twins = set(self._lightness_twins(label, *unseen)) if any(unseen) else set()
        rivals = []
        for k in range(len(self.labels)):
            if k == label or not self._has_fine(k):
                continue
            far = scores[k] < scores[label] - EXPOSURE_BAND
            if far and k not in twins and (clipped < BRIGHTER_SHARE or scores[k] < scores[label] - EXPOSURE_INK_BAND):
                continue
            pair = (min(k, label), max(k, label))
            region = self._regions[pair] if pair in self._regions else self._near_region(pair)
            more = k in twins or self._more_ink(label, k, region)
            if far and not more:
                continue  # out of EXPOSURE_BAND: only a rival with more ink (EXPOSURE_INK_BAND)
            # A paler rival too, unless it is the label's look-alike: the whole-card correlation
            # scales a washed-out card's faint remains up until they match a darker label (a clipped
            # pale nigiri read as a maki), which the rendering shows the card does not hold.
            if more or pair not in self._regions:
                rivals.append((k, region, more))
        if not rivals:
            return True
        big = np.concatenate([_fine_lab(raw, self.balanced, s, blur=False), raw.transpose(2, 0, 1).astype(np.float32)])
        aligned = self._align(big, label)
        big, reach = (aligned[3:], 1) if aligned is not None else (big[3:], FINE_SHIFT)
        pad = (big.shape[1] - FINE_H) // 2
        crops = np.stack([big[:, dy:dy + FINE_H, dx:dx + FINE_W] for dy in range(pad - reach, pad + reach + 1)
                          for dx in range(pad - reach, pad + reach + 1)])
        smooth = _smooth(crops)
        for k, region, more in rivals:
            # A twin with no example enrolled clipped has nothing to show how its lines clip: the
            # label's clipped examples (their colour the enrolment light's) are then no evidence
            # against it, and the label is judged by its other examples (SEEING_LEVEL). Only the
            # label's side loses examples: this only adds refusals.
            seeing = self._seeing_examples()
            twin = k in twins and not (~seeing & (self.fine_label == k)).any()
            if twin and not (seeing & (self.fine_label == label)).any():
                return False
            mine = self._rendered(crops, label, region, smooth, seeing=twin)
            theirs = self._rendered(crops, k, region, smooth)
            if _exposure_lead(mine, theirs) < EXPOSURE_MARGIN:
                return False
            if not more or clipped < BRIGHTER_SHARE:
                continue
            # The fitted gain may fall short of the camera's (EXPOSURE_BRIGHTER): both are seen a
            # little brighter too, each at its best. This only adds refusals to the fitted gain's.
            for g in EXPOSURE_BRIGHTER:
                mine = min(mine, self._rendered(crops, label, region, smooth, g, seeing=twin))
                theirs = min(theirs, self._rendered(crops, k, region, smooth, g))
            if _exposure_lead(mine, theirs) < EXPOSURE_MARGIN:
                return False
        return True

    def lookalikes(self) -> list[tuple[str, str]]:
        """The look-alike label pairs this deck tells apart on their differing region."""
        return [(self.labels[i], self.labels[j]) for i, j in sorted(self._regions)]

    def settle_lookalikes(self, image: np.ndarray, quad: np.ndarray, scores: np.ndarray, best: int,
                          card_sized: bool = False) -> int:
        """The look-alike stage (module doc) for one card; returns the label index, or −1 where
        the look-alikes are not told apart (the two looks disagree or neither settles it, or the
        face cannot be lined up with ``best``'s template to compare them where they differ).

        Args:
            image: (H, W, 3) uint8 BGR.
            quad: (4, 2) float px, clockwise from the face's top-left as the best match says.
            scores: (L,) best whole-card ZNCC per label.
            best: the whole-card winner's index.
            card_sized: ``quad`` is a window of the card's known size and shape (the game's
                tracker: the mat's card rectangle through the homography), not a found outline.
                A face such a window holds that cannot be lined up is one ECC cannot grip (a pale
                face), not an outline a corner off: it is compared over shifts of up to
                ``FINE_SHIFT`` px rather than left undecided, and named only where both looks agree.

        The rivals are the labels within ``LOOKALIKE_BAND`` of ``best`` that are its look-alikes
        (as a whole, or example by example), that score within ``NEAR_BAND`` of it, or that are it
        with ink taken away (:meth:`_paler_rival`), the last only where the card is not clipped
        (:func:`_clipped`: the clip takes a faint fill away, and the exposure look judges it).
        """
        def pair(k: int) -> tuple[int, int]:
            return min(k, best), max(k, best)

        band = [k for k in range(len(self.labels)) if k != best and scores[k] >= scores[best] - LOOKALIKE_BAND]
        close = [k for k in band if pair(k) in self._regions or pair(k) in self._example_pairs
                 or (scores[k] >= scores[best] - NEAR_BAND and self._has_fine(best) and self._has_fine(k))]
        paler = [k for k in band if k not in close and self._paler_rival(best, k)]
        raw = fine_patch(image, quad) if close or paler else None
        if paler and not _clipped(raw):
            # (a clipped card's paler rivals are the exposure look's: the clip takes a faint fill
            # away, and both looks here would see it open)
            close += paler
        if not close:
            return best
        big = _fine_lab(raw, self.balanced, FINE_SHIFT)  # (3, FH + 2s, FW + 2s)
        aligned = self._align(big, best)
        region = np.zeros((FINE_H, FINE_W), bool)
        rivals = []
        s0 = 1 if aligned is not None else (big.shape[1] - FINE_H) // 2
        centre = (aligned if aligned is not None else big)[:, s0:s0 + FINE_H, s0:s0 + FINE_W]
        for k in close:
            if pair(k) in self._regions:
                region |= self._regions[pair(k)]
                rivals.append(k)
            elif pair(k) not in self._example_pairs:  # within NEAR_BAND: where their means differ
                region |= self._near_region(pair(k))
                rivals.append(k)
            else:
                # Example by example: the faces of the two labels this card is most like.
                a, b = self._best_example(centre, best), self._best_example(centre, k)
                ex = self._example_regions.get((min(a, b), max(a, b)))
                if ex is not None:
                    region |= ex
                    rivals.append(k)
        if not rivals:
            return best
        if aligned is None and not card_sized:
            # The face cannot be lined up with its best label's template (ECC failed or ran wild):
            # the outline is off by more than the alignment mends, most often a corner placed out
            # on the table (a side snapped to the table's grain). The patch then shows table where
            # the card's corner marks are, or squeezes them, and both looks below see fewer marks
            # than the card holds: a maki_2 read as maki_1 (bench/loose_scenes.py, illustrated,
            # seed 615). A shift search cannot mend a turned or squeezed face, so the look-alikes
            # are not told apart: undecided. (read_cards then searches for the card at the size of
            # the others, card_search, where a window lined up with it is read afresh.)
            return -1
        cands = [best] + rivals
        # Aligned to the template only a pixel of slack is left; a card-sized window ECC could not
        # line up is compared over shifts instead.
        big, reach = (aligned, 1) if aligned is not None else (big, FINE_SHIFT)
        pad = (big.shape[1] - FINE_H) // 2
        shifts = [(dy, dx) for dy in range(pad - reach, pad + reach + 1) for dx in range(pad - reach, pad + reach + 1)]
        regions = np.stack([big[:, dy:dy + FINE_H, dx:dx + FINE_W][:, region] for dy, dx in shifts])  # (S, 3, R)
        pattern = self._by_pattern(regions, region, cands)
        level = self._by_level(regions, region, centre, cands)
        # Two looks at the region (module doc): one settles it, the other must not name another label.
        if pattern >= 0 and level >= 0:
            return pattern if pattern == level else -1
        if aligned is None:
            # A card-sized window that could not be lined up is compared over shifts alone, which
            # mend no turn: one look naming a label on its own there is too little (a watercolour
            # maki_2 in a window turned 9.8° read maki_1 by the pattern look 0.081 over its 0.08,
            # the level look undecided; bench/sim_games.py seed 272). Undecided, the tracker tries
            # the card's turn again (table_cards).
            return -1
        return max(pattern, level)

    def _by_pattern(self, regions: np.ndarray, region: np.ndarray, cands: list[int]) -> int:
        """The label (of ``cands``) whose examples' region the card's correlates best with, each made
        zero-mean and unit length on the region alone, if it leads by ``PATTERN_MARGIN``; else −1.

        Args:
            regions: (S, 3, R) float32 Lab, the card's region at each shift.
            region: (FINE_H, FINE_W) bool, where the R pixels lie.
            cands: label indices, the whole-card winner first.
        """
        crops = regions - regions.mean(axis=2, keepdims=True)
        crops = crops.reshape(len(regions), -1)
        crops /= np.maximum(np.linalg.norm(crops, axis=1, keepdims=True), 1e-6)
        result = []
        for k in cands:
            t = self.fine[self.fine_label == k][:, :, region]  # (E_k, 3, R)
            t = t - t.mean(axis=2, keepdims=True)
            t = t.reshape(len(t), -1)
            t /= np.maximum(np.linalg.norm(t, axis=1, keepdims=True), 1e-6)
            result.append(float((crops @ t.T).max()))
        order = np.argsort(result)[::-1]
        return -1 if result[order[0]] - result[order[1]] < PATTERN_MARGIN else cands[int(order[0])]

    def _fine_blurred(self, label: int, sigma: float, chroma: float = 0.0) -> np.ndarray:
        """(E_k, 3, FINE_H, FINE_W) float32: ``label``'s rows of ``fine`` blurred by ``sigma`` fine px
        (Gaussian), their chroma channels (a, b) by ``hypot(sigma, chroma)``, zero-mean again per
        channel; the rows themselves at 0, 0. Made once per (label, sigma, chroma), for the labels a
        level look meets only (look-alikes): blurring every example at every blur would cost a
        deck of 81 cards × 5 examples tens of MB per blur and a first frame twice as slow (the
        stop 35 review: 28 → 62 ms)."""
        if sigma <= 0 and chroma <= 0:
            return self.fine[self.fine_label == label]
        key = (label, sigma, chroma)
        if key not in self._blurred:
            rows = self.fine[self.fine_label == label]  # (a copy: only where it is blurred)
            sigmas = (sigma, float(np.hypot(sigma, chroma)), float(np.hypot(sigma, chroma)))
            out = np.stack([np.stack([cv2.GaussianBlur(x[c], (0, 0), sigmas[c]) if sigmas[c] > 0 else x[c]
                                      for c in range(x.shape[0])]) for x in rows])
            self._blurred[key] = out - out.mean(axis=(2, 3), keepdims=True)
        return self._blurred[key]

    def _level_looks(self, regions: np.ndarray, region: np.ndarray, centre: np.ndarray, cands: list[int]):
        """The level look's distances at each blur (:meth:`_by_level`; also ``bench/card_why.py``).

        Args: as :meth:`_by_level`.

        Returns:
            ``(crops, blurs, looks)``: crops (S, 3·R) float32, the card's region at each shift scaled
            by its whole card; blurs [(sigma, chroma sigma)] fine px, the sharp look first; looks, per
            blur, (nearest distance, [distance per candidate], [nearest example (3·R,) per
            candidate], [its shift index per candidate]).
        """
        mean = centre.mean(axis=(1, 2))  # (3,)
        length = max(float(np.linalg.norm(centre - mean[:, None, None])), 1e-6)
        crops = ((regions - mean[None, :, None]) / length).reshape(len(regions), -1)
        looks = []
        # Each blur twice: chroma as blurred as lightness, and chroma coarser (CHROMA_BLUR), as a
        # camera's is; the sharp look first, the last blur's two looks last.
        blurs = [(0.0, 0.0)] + [(s, c) for s in LEVEL_BLURS for c in (0.0, CHROMA_BLUR)]
        cc = (crops * crops).sum(axis=1)[:, None]
        key = region.tobytes()
        for sigma, chroma in blurs:
            dist, nearest, shift = [], [], []
            for k in cands:
                t, tt = self._level_templates(k, sigma, chroma, region, key)
                ssd = cc - 2.0 * (crops @ t.T) + tt[None, :]
                si, e = np.unravel_index(int(np.argmin(ssd)), ssd.shape)
                dist.append(float(ssd[si, e]))
                nearest.append(t[e])
                shift.append(int(si))
            looks.append((min(dist), dist, nearest, shift))
        return crops, blurs, looks

    def _level_templates(self, label: int, sigma: float, chroma: float, region: np.ndarray,
                         key: bytes) -> tuple[np.ndarray, np.ndarray]:
        """The level look's templates of ``label`` at one blur (:meth:`_level_looks`): (E_k, 3·R)
        float32, each example's region rows (``region``: (FINE_H, FINE_W) bool, R pixels) divided by
        its whole blurred face's length, and (E_k,) their squared lengths. They depend on the deck
        alone: made once per (label, blur, region; ``key``: the region's bytes), not per card read.
        """
        k = (label, sigma, chroma, key)
        if k not in self._level_rows:
            rows = self._fine_blurred(label, sigma, chroma)  # (E_k, 3, FH, FW), zero-mean per channel
            t = rows[:, :, region].reshape(len(rows), -1)
            t = t / np.maximum(np.linalg.norm(rows.reshape(len(rows), -1), axis=1, keepdims=True), 1e-6)
            tt = (t * t).sum(axis=1)
            t.setflags(write=False)  # (shared by every card read: the look's "nearest" rows are views of it)
            tt.setflags(write=False)
            self._level_rows[k] = (t, tt)
        return self._level_rows[k]

    def _by_level(self, regions: np.ndarray, region: np.ndarray, centre: np.ndarray, cands: list[int]) -> int:
        """The label (of ``cands``) whose example is nearest the card on the region, each scaled with
        its whole card, if the card's region, unmixed into that example's and each rival's, leads
        by ``LOOKALIKE_MARGIN`` (:func:`_unmixed_lead`); else −1.

        The examples are flat scans, sharper than a camera's view of a small card: a row of small
        marks a few camera pixels across blurs into one bar, and the sharp examples of two and of
        three marks then explain it about alike (the fifth drawn deck's maki, 3.6 mm marks 0.4 mm
        apart: leads 0.08–0.18). So the examples are also blurred by each of ``LEVEL_BLURS`` fine px,
        and the look is taken at the blur whose nearest example lies nearest the card (the card's
        own sharpness), with the same margin; a card nearest at the last blur (blurrier than every
        example) is named only if the sharp examples' nearest label is the same (else −1). Each blur
        is also taken with the chroma blurred ``CHROMA_BLUR`` px more than the lightness, as a
        camera's colour is coarser than its lightness (a maki's pink roll centres, 1 mm, otherwise
        pulled the chroma towards the maki with a mark fewer).

        Args:
            regions: (S, 3, R) float32 Lab, the card's region at each shift.
            region: (FINE_H, FINE_W) bool, where the R pixels lie.
            centre: (3, FINE_H, FINE_W) float32 Lab, the whole card (its mean and length set the scale).
            cands: label indices, the whole-card winner first.
        """
        crops, blurs, looks = self._level_looks(regions, region, centre, cands)
        # A card blurrier than the most blurred example (its nearest look is the last blur) is named
        # only where the sharp examples' nearest label agrees: beyond the examples' blurs the
        # blurred look-alikes can favour another label than the sharp ones (the review's maki_3 at
        # 32-40 px and sigma 2-2.25 px, read maki_2 at blur 1.5, undecided sharp). A sharper card
        # is not held to its blurred looks (clipped striped cards, sharp, whose blurriest look
        # prefers the open fill).
        best = min(range(len(looks)), key=lambda i: looks[i][0])
        if blurs[best][0] == LEVEL_BLURS[-1] and int(np.argmin(looks[0][1])) != int(np.argmin(looks[best][1])):
            return -1
        _, dist, nearest, shift = min(looks, key=lambda look: look[0])
        win = int(np.argmin(dist))
        card = crops[shift[win]]
        for k in range(len(cands)):
            if k != win and _unmixed_lead(card, nearest[win], nearest[k]) < LOOKALIKE_MARGIN:
                return -1
        return cands[win]

    # ----------------------------------------------------------------- files
    def save(self, path: Path | str) -> None:
        """Write the deck as DECK.npz (format in the module doc).

        Raises:
            OSError: the file cannot be written.
        """
        with open(path, "wb") as fh:  # a file object stops numpy appending ".npz" to the name
            np.savez_compressed(
                fh,
                format=np.array(FORMAT_NAME),
                version=np.array(DESCRIPTOR_VERSION, np.int64),
                patch_size=np.array([PATCH_W, PATCH_H], np.int64),
                labels=np.array(self.labels, dtype=str),
                templates=self.templates.astype(np.float32),
                template_label=self.template_label.astype(np.int64),
                threshold=np.array(float(self.threshold), np.float64),
                examples=np.asarray(self.examples, np.int64),
                white_balance=np.array(bool(self.balanced)),
                **({} if self.fine is None else {"fine": self.fine.astype(np.float32),
                                                 "fine_label": np.asarray(self.fine_label, np.int64)}),
                **({} if self.fine_mean is None else {"fine_mean": self.fine_mean.astype(np.float32)}),
                **({} if self.marks is None else {"marks": np.asarray(self.marks, np.int64)}),
                **({} if self.paper is None else {"paper": np.asarray(self.paper, np.float32)}),
                **({} if self.faces is None else {"faces": np.asarray(self.faces, np.uint8),
                                                  "face_label": np.asarray(self.face_label, np.int64)}),
            )

    @classmethod
    def load(cls, path: Path | str) -> "Deck":
        """Read a DECK.npz written by :meth:`save`, its schema checked before any array is read.

        Raises:
            DeckError: missing, not a regular file, or not an .npz; an unknown, missing or twice
                stored field; a field of the wrong dtype (text where numbers go, Python objects),
                shape or size (over ``MAX_LABELS``, ``MAX_EXAMPLES``); corrupt data; or a value
                out of its range (module doc); or a descriptor version / patch size this code does
                not use. The message names the file and the field (``exc.field``).
        """
        p = Path(path)

        def error(field: str | None, reason: str) -> DeckError:
            where = f"{p}: field {field!r}: " if field else f"{p}: "
            return DeckError(where + reason, str(p), field)

        data = read_npz(p, _DECK_FIELDS, {"L": MAX_LABELS, "M": (1 + _N_AUG) * MAX_EXAMPLES, "E": MAX_EXAMPLES,
                                          "F": MAX_EXAMPLES},
                        error, "deck", " (enrol one with 'companion enroll --deck DIR --out DECK.npz')",
                        identity=("format", FORMAT_NAME))
        version = int(data["version"])
        if version != DESCRIPTOR_VERSION:
            raise error("version", f"descriptor version {version}, this program reads version "
                                   f"{DESCRIPTOR_VERSION}; enrol the deck again")
        if data["patch_size"].tolist() != [PATCH_W, PATCH_H]:
            raise error("patch_size", f"patch size {data['patch_size'].tolist()} is not "
                                      f"{[PATCH_W, PATCH_H]}; enrol the deck again")
        labels = check_names("labels", data["labels"], MAX_LABEL_CHARS, error, reserved=UNKNOWN)
        if not labels:
            raise error("labels", "no labels")
        examples = data["examples"].astype(np.int64)
        if examples.min() < 1:
            i = int(np.argmin(examples))
            raise error("examples", f"label {labels[i]!r} has {examples[i]} example images; each has at least 1")
        if examples.sum() > MAX_EXAMPLES:
            raise error("examples", f"{int(examples.sum())} example images in all; a deck has at most {MAX_EXAMPLES}")
        templates = data["templates"].astype(np.float32, copy=False)
        tl = data["template_label"].astype(np.int64, copy=False)
        if len(templates) == 0:
            raise error("templates", "no templates")
        check_finite("templates", templates, error)
        norms = np.linalg.norm(templates, axis=1)
        if np.any(np.abs(norms - 1.0) > 1e-3):
            raise error("templates", f"{int(np.count_nonzero(np.abs(norms - 1.0) > 1e-3))} template(s) are not "
                                     "unit-length descriptors (all zero, or not made by enrolment)")
        if tl.min() < 0 or tl.max() >= len(labels):
            raise error("template_label", f"must give a label index 0..{len(labels) - 1} for every template")
        if len(np.unique(tl)) != len(labels):
            raise error("template_label", "some label has no template")
        threshold = float(data["threshold"])
        if not 0.0 < threshold < 1.0:  # NaN fails too
            raise error("threshold", f"{threshold} is not a correlation between 0 and 1 (exclusive)")
        fine = fine_label = None
        if ("fine" in data) != ("fine_label" in data):
            raise error("fine" if "fine" not in data else "fine_label", "fine and fine_label come together")
        if "fine" in data:
            fine = data["fine"].astype(np.float32, copy=False)
            fine_label = data["fine_label"].astype(np.int64, copy=False)
            check_finite("fine", fine, error)
            if fine.size and np.abs(fine).max() > 256.0:
                raise error("fine", "values beyond ±256: not zero-mean CIE Lab")
            if len(fine_label) and (fine_label.min() < 0 or fine_label.max() >= len(labels)):
                raise error("fine_label", f"must give a label index 0..{len(labels) - 1} for every row of fine")
        balanced = bool(data["white_balance"]) if "white_balance" in data else False

        def per_fine_row(name: str, what: str, space: str) -> np.ndarray | None:
            # An optional float32 member with one Lab value per row of fine (fine_mean, paper).
            if name not in data:
                return None
            values = data[name].astype(np.float32, copy=False)
            if fine is None or len(values) != len(fine):
                raise error(name, f"must give one {what} per row of fine")
            check_finite(name, values, error)
            if values.size and np.abs(values).max() > 256.0:
                raise error(name, f"values beyond ±256: not {space}")
            return values

        fine_mean = per_fine_row("fine_mean", "Lab mean", "CIE Lab")
        marks = None
        if "marks" in data:
            marks = data["marks"].astype(np.int64, copy=False)
            if fine is None or len(marks) != len(fine):
                raise error("marks", "must give one mark count per row of fine")
            if marks.size and (marks.min() < 0 or marks.max() > MAX_MARKS):
                raise error("marks", f"counts must lie in 0..{MAX_MARKS}")
        paper = per_fine_row("paper", "paper colour", "CIE a, b")
        faces = face_label = None
        if ("faces" in data) != ("face_label" in data):
            raise error("faces" if "faces" not in data else "face_label", "faces and face_label come together")
        if "faces" in data:
            if data["faces"].dtype != np.uint8:
                raise error("faces", f"holds {data['faces'].dtype}, expected uint8 grey faces")
            faces = data["faces"]
            face_label = data["face_label"].astype(np.int64, copy=False)
            if len(face_label) and (face_label.min() < 0 or face_label.max() >= len(labels)):
                raise error("face_label", f"must give a label index 0..{len(labels) - 1} for every row of faces")
            if len(face_label) and np.any(np.bincount(face_label, minlength=len(labels)) > examples):
                raise error("face_label", "gives a label more faces than it has examples")
        return cls(labels, templates, tl, threshold, examples, fine, fine_label, balanced, fine_mean, marks, paper,
                   faces, face_label)

    # ----------------------------------------------------------- classifying
    def match(self, desc: np.ndarray, quick: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """Best ZNCC per label and orientation.

        Args:
            desc: (N, D) float32 descriptors from :func:`describe`.
            quick: score against each label's centroid only (for searching where a card lies;
                its scores run a little below the full bank's).

        Returns:
            ``(scores, turned)``: (N, L) float32 best score per label over both orientations,
            and (N, L) bool, True where the best match was the 180°-turned template.
        """
        n_l = len(self.labels)
        if quick:
            per = desc @ self._quick  # (N, 2L)
            return np.maximum(per[:, :n_l], per[:, n_l:]), per[:, n_l:] > per[:, :n_l]
        s = desc @ self._bank  # (N, 2M)
        per = np.maximum.reduceat(s, self._starts, axis=1)  # (N, 2L)
        up, turned = per[:, :n_l], per[:, n_l:]
        return np.maximum(up, turned), turned > up

    def decide(self, scores: np.ndarray, threshold: float | None = None
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Label index (−1 for unknown), confidence and best score from per-label scores
        ((N, L) float32), against ``threshold`` (the deck's own where None).

        Confidence for a label is a softmax over per-label scores (temperature ``_SOFTMAX_T``,
        so it falls when a near-identical card scores almost as well) times a ramp that is 0.5 at
        the threshold and 1 at ``_SCORE_RAMP`` above it. For ``"unknown"`` it is the mirror ramp:
        0.5 at the threshold, 1 at ``_SCORE_RAMP`` below.
        """
        best = scores.argmax(axis=1)
        top = scores[np.arange(len(scores)), best]
        z = (scores - top[:, None]) / _SOFTMAX_T
        p_best = 1.0 / np.exp(z).sum(axis=1)
        threshold = self.threshold if threshold is None else threshold
        ramp = np.clip(0.5 + 0.5 * (top - threshold) / _SCORE_RAMP, 0.0, 1.0)
        known = top >= threshold
        conf = np.where(known, p_best * ramp, 1.0 - ramp)
        return np.where(known, best, -1), conf, top


def _order_portrait(quad: np.ndarray) -> np.ndarray:
    from companion.vision.cards import order_quad

    return order_quad(quad)


def classify_quads(image: np.ndarray, quads: list[np.ndarray], deck: Deck, settle: bool = True,
                   quick: bool = False, checks: bool = True, card_sized: bool = False,
                   threshold: float | None = None) -> list[Classification]:
    """Name the card inside each quad.

    Args:
        image: (H, W, 3) uint8 BGR.
        quads: each (4, 2) float image px, any corner order (they are re-ordered to portrait,
            clockwise; a quad's long side is taken as the card's height); a list, or an (N, 4, 2)
            array.
        deck: the enrolled deck.
        settle: run the look-alike stage and the check on the label's examples (module doc).
            False gives the whole-card reading alone: enough to say *where* a card lies, not
            which of two look-alikes it is.
        quick: score against label centroids only (see :meth:`Deck.match`); implies no settling.
        checks: with ``settle``, also run the check on the label's examples and the exposure look
            (they can only make a name "unknown"; they change no score). False leaves them to
            :func:`checked`, for a caller that keeps one of several readings by score and needs
            the final name of that one only.
        card_sized: the quads are windows of the card's known size and shape (the game's tracker),
            not found outlines; see :meth:`Deck.settle_lookalikes`.
        threshold: the whole-card score a card must reach to be named (ZNCC); None for the deck's
            own. Only the second look of :func:`companion.vision.cards.read_card_results` asks for
            less, on an outline already lined up with its best label's example.

    Returns:
        One :class:`Classification` per quad, in order; the quad starts at the top-left of the
        card face as the best match's orientation says.
    """
    if len(quads) == 0:
        return []
    from companion.vision.cards import order_quads

    # An (N, 4, 2) array (the tracker's windows) is taken as it is; a list is stacked first.
    stacked = (np.asarray(quads, np.float32).reshape(-1, 4, 2) if isinstance(quads, np.ndarray)
               else np.stack([np.asarray(q, np.float32).reshape(4, 2) for q in quads]))
    in_order = order_quads(stacked)
    ordered = list(in_order)
    patches = card_patches(image, ordered)
    scores, turned = deck.match(describe(patches, deck.balanced), quick=quick)
    settle = settle and not quick
    idx, conf, top = deck.decide(scores, threshold)
    if not settle:  # (the loop below is the look-alike stage's and the last checks')
        return _whole_card_readings(deck, in_order, scores, turned, idx, conf, top)
    out = []
    for i, q in enumerate(ordered):
        if idx[i] >= 0:
            if turned[i, idx[i]]:
                q = np.roll(q, -2, axis=0)
            settled = deck.settle_lookalikes(image, q, scores[i], int(idx[i]), card_sized)
            if settled != idx[i]:
                if settled >= 0 and turned[i, settled] != turned[i, idx[i]]:
                    q = np.roll(q, -2, axis=0)
                top[i] = scores[i, settled] if settled >= 0 else top[i]
                if settled < 0:
                    conf[i] = 0.5  # "unknown" between two look-alikes: undecided, not "matches nothing"
                idx[i] = settled
            if checks and idx[i] >= 0:
                final = _final_label(deck, image, q, scores[i], int(idx[i]))
                if final != idx[i]:
                    if final >= 0 and turned[i, final] != turned[i, idx[i]]:
                        q = np.roll(q, -2, axis=0)
                    top[i] = scores[i, final] if final >= 0 else top[i]
                    idx[i], conf[i] = final, 0.5  # undecided, or named by its count alone: see _final_label
            label = deck.labels[idx[i]] if idx[i] >= 0 else UNKNOWN
        else:
            label = UNKNOWN
        out.append(Classification(label, float(conf[i]), float(top[i]), q.astype(np.float32), scores[i]))
    return out


def _whole_card_readings(deck: Deck, quads: np.ndarray, scores: np.ndarray, turned: np.ndarray, idx: np.ndarray,
                         conf: np.ndarray, top: np.ndarray) -> list[Classification]:
    """:func:`classify_quads`' readings without the look-alike stage, made for all quads at once: the
    same values as its per-quad loop (a named quad turned half round, ``np.roll(q, -2)``, where its
    label's best match was the 180°-turned template), without a few numpy calls per quad (the game's
    window search reads some 150 windows a turn this way).

    Args:
        deck: the deck.
        quads: (N, 4, 2) float32, ordered as :func:`classify_quads` orders them.
        scores, turned: (N, L) from :meth:`Deck.match`.
        idx, conf, top: (N,) from :meth:`Deck.decide`.
    """
    n = len(quads)
    flip = (idx >= 0) & turned[np.arange(n), np.maximum(idx, 0)]
    q = np.where(flip[:, None, None], quads[:, [2, 3, 0, 1]], quads).astype(np.float32)
    labels = [deck.labels[k] if k >= 0 else UNKNOWN for k in idx.tolist()]
    return [Classification(label, c, t, q[i], scores[i])
            for i, (label, c, t) in enumerate(zip(labels, conf.tolist(), top.tolist()))]


def _final_label(deck: Deck, image: np.ndarray, quad: np.ndarray, scores: np.ndarray, label: int,
                 bounded: bool = False) -> int:
    """The last checks of :func:`classify_quads` on a card named ``label``: ``label`` if it lies
    within the label's examples (like an enrolled card, but not one, is undecided), clipping does
    not hide what tells it from a rival (:meth:`Deck.exposure_apart`) and it shows as many marks as
    the examples agree on (:meth:`Deck.marks_agree`) and the ink it adds to a paler rival, or
    lacks of an inkier one's (:meth:`Deck.extra_ink_agrees`); where the count is what refuses it,
    the label the count names instead (:meth:`Deck.counted_label`); else −1 (undecided).
    ``bounded``: see :meth:`Deck.marks_agree`."""
    if not deck.marks_agree(image, quad, scores, label, bounded):
        return deck.counted_label(image, quad, scores, label)
    # A name nothing after the threshold can check (a face card, not aligned) must clear it by a
    # margin (UNCHECKED_MARGIN; why45: draw 25's ace read "king" 0.005 over it). Only ever "unknown".
    if not deck.judges_marks(label) and scores[label] < deck.threshold + UNCHECKED_MARGIN \
            and deck.unaligned(image, quad, label):
        return -1
    # ... and over the margin, such a name is not kept where the card shows, at every ink level,
    # the count a rival's examples agree on and the rival scores within MARK_BAND: the card is, to
    # the eye, the rival (never-run draw 30 of bench/real_cards.py: cam_image44's ace read "king"
    # 0.726, 0.048 over the threshold, ace 0.682, one pip at every level; its score from the king
    # example IMG_2510, a whole crop of fur and rug, as on draw 25). Only ever "unknown".
    if not deck.judges_marks(label) and deck.rival_count_claims(image, quad, scores, label) \
            and deck.unaligned(image, quad, label):
        return -1
    # Where the exposure look alone refuses a pip card, its marks may still rule every rival out:
    # clipping takes pips away, it never adds one (Deck.marks_outweigh_exposure; stop 50).
    if deck.within_examples(image, quad, label) and (deck.exposure_apart(image, quad, scores, label)
                                                     or deck.marks_outweigh_exposure(image, quad, scores, label)) \
            and deck.extra_ink_agrees(image, quad, scores, label):
        return label
    return -1


def checked(image: np.ndarray, reading: Classification, deck: Deck, bounded: bool = False) -> Classification:
    """A reading of ``classify_quads(..., checks=False)`` as ``classify_quads`` would have given it:
    "unknown" (confidence 0.5, score and quad kept) if its name fails the checks it left out, or
    named by its mark count (confidence 0.5, score kept, quad turned face up for that label) where
    the count refused the name and names another (:func:`_final_label`).

    Args:
        image: (H, W, 3) uint8 BGR, the photo the reading was made on.
        reading: one :class:`Classification` of that call.
        deck: the enrolled deck.
        bounded: the reading's quad is a part-card stretched to a card's shape: its mark count
            is bounded by two of its label's cards (:meth:`Deck.marks_agree`).
    """
    if reading.label == UNKNOWN:
        return reading
    label = deck.labels.index(reading.label)
    final = _final_label(deck, image, reading.quad, reading.scores, label, bounded)
    if final == label:
        return reading
    if final < 0:
        return replace(reading, label=UNKNOWN, confidence=0.5)
    q = np.asarray(reading.quad, np.float32)
    _, turned = deck.match(describe(card_patches(image, [q]), deck.balanced))
    if turned[0, final] != turned[0, label]:
        q = np.roll(q, -2, axis=0)
    return replace(reading, label=deck.labels[final], confidence=0.5, score=float(reading.scores[final]), quad=q)


def whole_image_quad(image: np.ndarray) -> np.ndarray:
    """The image's own corners as a (4, 2) float32 quad (clockwise from top-left), px."""
    h, w = image.shape[:2]
    return np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)


#: A picture within this of a card's aspect is taken for a scan or a tight crop of the card, and
#: not searched for a card in it (a phone's 4:3 photo is 6.9 % off 63:44, a 3:2 one 4.8 %: photos).
SCAN_ASPECT_TOLERANCE = 0.03
#: ... and in a picture within 7 % of it (a phone's frame, or a crop with a margin of table round the
#: card), a card found must cover at most this share of it: the real deck's one-card crops (the
#: labelled box and 8 % round it, the card about 74 % of the crop) enrolled worse searched (one
#: card lost and a spurious ace on the dev half), and were taken as the old code took them.
PHOTO_CARD_MAX_SHARE = 0.6


def _is_card_shaped(image: np.ndarray, tolerance: float = 0.07) -> bool:
    h, w = image.shape[:2]
    return abs(max(h, w) / max(1, min(h, w)) / CARD_ASPECT - 1.0) <= tolerance


def _largest_group(image: np.ndarray):
    from companion.vision.cards import find_card_groups

    groups = find_card_groups(image, min_area_frac=0.15, max_area_frac=1.0)
    if not groups:
        return None
    # A group's size is its largest hypothesis (a part-card's completions, not the part itself,
    # which a foreshortened find now lists first).
    return max(groups, key=lambda g: max(abs(cv2.contourArea(q)) for q in g[0]))


#: A card found this far (fraction of the image's short side) inside every border of an image of a
#: card's aspect may be the card, photographed with a margin of table; nearer, it is a frame
#: printed on the card.
_CROP_MARGIN = 0.015
#: ... unless it sits square and centred (within these), as a printed frame does.
_FRAME_DEG, _FRAME_CENTRED = 0.75, 0.01


def _printed_frame(quad: np.ndarray, shape: tuple[int, ...]) -> bool:
    """Whether a quad inside an image lies as a frame printed on a scanned card does: its sides
    square to the image and its margins equal left and right, top and bottom. A card photographed
    with a margin of table is seldom so (it lies at a slight turn, off centre)."""
    h, w = shape[:2]
    v = np.roll(quad, -1, axis=0) - quad
    ang = np.degrees(np.arctan2(v[:, 1], v[:, 0])) % 90.0
    square = bool(np.all(np.minimum(ang, 90.0 - ang) < _FRAME_DEG))
    left, right = quad[:, 0].min(), w - 1 - quad[:, 0].max()
    top, bottom = quad[:, 1].min(), h - 1 - quad[:, 1].max()
    centred = max(abs(left - right), abs(top - bottom)) < _FRAME_CENTRED * min(h, w)
    return square and centred


def _found_card(image: np.ndarray):
    """The card found inside a one-card image, as ``(hypotheses, partial)`` (see
    :func:`companion.vision.cards.find_card_groups`), or None where the image is taken to be the
    card itself (see :func:`crop_quad`)."""
    group = _largest_group(image)
    if group is None or not _is_card_shaped(image):
        return group
    if group[1]:
        return None  # a part of a card inside a tight crop is printed art
    quad = group[0][0]
    h, w = image.shape[:2]
    inset = min(quad[:, 0].min(), quad[:, 1].min(), w - 1 - quad[:, 0].max(), h - 1 - quad[:, 1].max())
    if inset < _CROP_MARGIN * min(h, w) or _printed_frame(quad, image.shape):
        return None  # a frame printed on a tight crop or flat scan
    if _is_card_shaped(image, SCAN_ASPECT_TOLERANCE) and _art_across(quad, image.shape):
        return None  # a panel of the card's art, in a scan whose own edges the finder did not see
    return group


#: In a picture of a card's own shape (within ``SCAN_ASPECT_TOLERANCE``, a scan's or a tight crop's),
#: a "card" found lying across it (its long side along the picture's short side) and covering under
#: this share of it is a panel of the card's art: a dark full-bleed card scanned a little turned, its
#: edge running into the scan's border, was cropped to its maki roll (``noir``, 0.15-0.16 of the
#: scan) or a flat dumpling to its plate (0.20-0.21), so those examples matched none of their label's
#: other pictures (stop 56, found by :func:`misfiled_examples`). A card photographed and cropped with
#: a margin of table covers more of such a crop: the symbol deck's 165 enrolment photos within 3 % of
#: a card's shape, 0.58 or more (the real deck's 3 find no card); one lying across a crop of a card's
#: shape covers at most 0.49 with no margin at all. Not within the finder's 7 %: a phone's 4:3 or 3:2
#: frame is within it, and a card lying across one may cover as little as the finder's floor, 0.15
#: (stop 56's review: ``companion classify`` lost such cards).
ART_ACROSS_MAX_SHARE = 0.3


def _art_across(quad: np.ndarray, shape: tuple[int, ...]) -> bool:
    """Whether a quad found in a card-shaped picture (``shape``: (H, W, ...)) lies across it and
    covers under ``ART_ACROSS_MAX_SHARE`` of it (printed art, not the card)."""
    h, w = shape[:2]
    a, b = np.linalg.norm(quad[1] - quad[0]), np.linalg.norm(quad[2] - quad[1])
    along = (quad[1] - quad[0]) if a >= b else (quad[2] - quad[1])  # the quad's long side
    long_horizontal = abs(float(along[0])) >= abs(float(along[1]))
    across = long_horizontal != (w >= h)
    share = abs(float(cv2.contourArea(np.asarray(quad, np.float32)))) / float(h * w)
    return across and share < ART_ACROSS_MAX_SHARE


def crop_quad(image: np.ndarray) -> np.ndarray:
    """Where the single card lies in an image that shows one card (no deck needed).

    The largest whole-card quad covering at least 15 % of the image is used, if one is clearly
    present. If the image itself has a 44 × 63 card's aspect (within 7 %, either way up), it is
    taken as a tight crop or flat scan, and its own corners are used, unless the quad lies at least
    ``_CROP_MARGIN`` inside every border and not square and centred as a printed frame does: a
    57 × 89 mm card photographed with a margin of table has about the 44 × 63 shape, and must not be
    taken with its margin. Failing all that, the whole image.

    Args:
        image: (H, W, 3) uint8 BGR.

    Returns:
        (4, 2) float32 px, portrait-ordered (see :func:`companion.vision.cards.order_quad`).
    """
    return _crop_quad(image)[0]


def _crop_quad(image: np.ndarray) -> tuple[np.ndarray, bool]:
    """:func:`crop_quad`'s quad, and whether a card was found: False only where the image is not of
    a card's shape and no card was found in it, so the whole picture, table and all, stands for the
    card (an enrolment example of that kind scores any card lit like its table: stop 45's why45, a
    king crop of fur and rug that read a shaded ace "king")."""
    group = _found_card(image)
    if group is not None and not group[1]:
        return group[0][0], True
    card_shaped = _is_card_shaped(image, SCAN_ASPECT_TOLERANCE)
    if not card_shaped:
        # A photo of one card whose outline the table finder missed (wood grain, a shadow across
        # it, a close phone's slant): the one card is looked for as in a picture known to hold
        # one. (Not in a picture of a card's own shape: a flat scan's art, a drawn sushi card's
        # coloured panel, is a region of a card's shape too.)
        from companion.vision.photo_card import find_photo_card

        quad = find_photo_card(image)
        # Nearly a card's shape (a phone's 4:3 or 3:2 frame, or a crop with a margin of table):
        # only a card well inside it, not a region most of it (a crop's card or printed panel).
        if quad is not None and (not _is_card_shaped(image) or abs(cv2.contourArea(quad)) <=
                                 PHOTO_CARD_MAX_SHARE * image.shape[0] * image.shape[1]):
            return quad, True
    return _order_portrait(whole_image_quad(image)), card_shaped


#: Longest side (px) :func:`classify_image` and the enrolment read an image of one card at; a
#: larger one is reduced first (:func:`companion.vision.imageio.working_copy`). 1280 is the size
#: the card finder looks for outlines at anyway (``cards._WORK_PX``), and a card covering the 15 %
#: of a 1280 × 960 image that :func:`crop_quad` asks for is at least 460 px long, over 5× the
#: look-alike template's ``FINE_H`` = 86 px. (A 30000 × 30000 image read whole crashed
#: ``cv2.warpPerspective``, issue #14.)
CLASSIFY_MAX_SIDE = 1280


def classify_image(image: np.ndarray, deck: Deck, scale: float = 1.0) -> Classification:
    """Name the one card shown in an image (already cropped; any rotation, some perspective).

    The hypotheses are the image itself and the card (or part-card, completed both ways) that
    :func:`crop_quad` would find in it; the best-scoring one wins. An image whose long side is
    over ``CLASSIFY_MAX_SIDE`` px is read at that size.

    Args:
        image: (H, W, 3) uint8 BGR.
        deck: the enrolled deck.
        scale: ``image``'s px per px of the file the quad should be given in: 1.0 for the image
            itself, or :attr:`companion.vision.imageio.WorkingImage.scale` for a file read with
            ``read_working(path, CLASSIFY_MAX_SIDE)``.

    Returns:
        The :class:`Classification`; its quad is where the card was taken to be, px of the
        original image.

    Raises:
        ValueError: ``image`` is empty (no pixels: it shows no card).
    """
    if np.asarray(image).size == 0:
        raise ValueError(f"classify_image: an empty image (shape {np.asarray(image).shape}) shows no card")
    image, shrink = working_copy(image, CLASSIFY_MAX_SIDE)
    hyps = [_order_portrait(whole_image_quad(image))]
    group = _found_card(image)
    if group is not None:
        hyps = group[0] + hyps
    results = classify_quads(image, hyps, deck)
    best = max(results, key=lambda r: r.score)
    out = results[0] if best.label == UNKNOWN else best
    if scale * shrink != 1.0:
        out = replace(out, quad=to_original_px(out.quad, scale * shrink))
    return out


# ---------------------------------------------------------------- enrolment
_CANON_W, _CANON_H = 4 * PATCH_W, 4 * PATCH_H


def _outline_off(mapped: np.ndarray, card: np.ndarray, short: float) -> float:
    """How far an example's outline carried onto the card's patch (``mapped``) lies from the found
    card's (``card``, an upright rectangle, corners in the same order), in units of ``short`` (the
    card's short side, px), once the found outline is scaled about its centre along each axis by the
    least-squares factors: ``inf`` where a factor is outside ``1 / FEATURE_NEST .. FEATURE_NEST``.

    The scaling is the face card's printed frame: on the real deck the finder takes a face card's
    outline at its edge or at the frame round its art, in the enrolment's crop as in a scene, and
    the two nest (frame / card about 0.7 across, 0.8 along); the carried outline is then the found
    one grown or shrunk about its centre, not moved.

    Args:
        mapped, card: (4, 2) float px.
        short: the card's short side at this scale, px.
    """
    c = card.mean(axis=0)
    r = card - c
    m = mapped - c
    f = (m * r).sum(axis=0) / np.maximum((r * r).sum(axis=0), 1e-9)  # (2,) scale along x and y
    if not np.all((f >= 1.0 / FEATURE_NEST) & (f <= FEATURE_NEST)):
        return float("inf")
    return float(np.linalg.norm(m - r * f, axis=1).max()) / short


def _canonical(image: np.ndarray) -> np.ndarray:
    """The card in a one-card image (where :func:`crop_quad` finds it) warped upright to
    ``_CANON_W × _CANON_H`` px, (H, W, 3) uint8 BGR."""
    return _canonical_found(image)[0]


def _canonical_found(image: np.ndarray) -> tuple[np.ndarray, bool]:
    """:func:`_canonical`, and whether a card was found in the image (False: the whole picture was
    taken, :func:`_crop_quad`)."""
    quad, found = _crop_quad(image)
    return _upright(image, quad), found


def _upright(image: np.ndarray, quad: np.ndarray) -> np.ndarray:
    """The card in ``quad`` warped to ``_CANON_W × _CANON_H`` px, (H, W, 3) uint8 BGR, as
    :func:`_canonical` warps an example (``quad`` clockwise from the face's top-left)."""
    dst = np.array([[0, 0], [_CANON_W, 0], [_CANON_W, _CANON_H], [0, _CANON_H]], np.float32)
    h = cv2.getPerspectiveTransform(np.asarray(quad, np.float32), dst)
    return cv2.warpPerspective(image, h, (_CANON_W, _CANON_H), flags=cv2.INTER_AREA,
                               borderMode=cv2.BORDER_REPLICATE)


def mark_count(face: np.ndarray, ink_level: float = MARK_INK) -> int:
    """How many marks a card's face shows (constants ``MARK_*``): connected parts of ink of
    ``MARK_AREA`` of the face inside its ``MARK_INSET`` margin.

    Args:
        face: (_CANON_H, _CANON_W, 3) uint8 BGR, the card warped upright (:func:`_upright`).
        ink_level: a pixel darker than this times the paper round it is ink (``MARK_INK``).

    Returns:
        The count, ≥ 0.
    """
    return _mark_counts(face, (ink_level,))[0]


def merged_mark_count(face: np.ndarray) -> int | None:
    """The marks a card's face shows counting parts of ink run together (constants ``MARK_*``,
    ``MERGED_PIP_TOL``): at ``MARK_INK``, every part of at least ``MARK_AREA``'s minimum counts as
    its area in lone marks (a lone mark's area: the median area of the parts within ``MARK_AREA``;
    a part within that band may still be two pips run together). None where no part is larger
    than ``MARK_AREA``'s top (nothing clearly ran together), no part gives a pip's area, or a part
    is no whole number of pips within ``MERGED_PIP_TOL`` (a face card's frame or art, a shadow, a
    thing lying on the card: not pips run together), or a part of two pips or more is wider across
    than ``MERGED_LINE`` lone pips or shorter than ``MERGED_ALONG`` of as many lone pips in a line
    (not pips in a row or a column: a cable, a hair or a crumb over them).

    Args:
        face: (_CANON_H, _CANON_W, 3) uint8 BGR, the card warped upright (:func:`_upright`).

    Returns:
        The count, ≥ 2, or None.
    """
    (stats, _), = _ink_parts(face, (MARK_INK,))
    h, w = face.shape[:2]
    area = stats[1:, cv2.CC_STAT_AREA] / float(h * w)
    in_band = (area >= MARK_AREA[0]) & (area <= MARK_AREA[1])
    if not np.any(area > MARK_AREA[1]) or not np.any(in_band):
        return None
    # Every part is counted by its area, not only those over MARK_AREA's top: that band is 10x
    # wide, so two pips run into one small part lie within it (stop 44's review: a ten at blur 1 px,
    # parts 1, 1, 1, 1, 1, 2.0 and 3.0 lone pips, counted 9 when the 2.0 counted one).
    parts = area >= MARK_AREA[0]
    pips = area[parts] / float(np.median(area[in_band]))
    if np.any(np.abs(pips - np.rint(pips)) > MERGED_PIP_TOL):
        return None
    # ... and a part counted as several pips must be pips in a row or a column, as a card's pips
    # stand: no wider across than ``MERGED_LINE`` lone pips (the larger side of their box, median).
    # A thing lying over pips (a cable, a hair, a shadow) runs them into a part of any area, and
    # within ``MERGED_PIP_TOL`` of a whole number is 60 % of areas (stop 46, ``blob46``).
    # It must also be as long as so many pips stand in a line (``MERGED_ALONG`` of k lone pips'
    # heights, or widths for a row): a crumb bridging two pips adds area, not length, and two
    # pips and a bridge of a pip's area would count three.
    bw, bh = stats[1:, cv2.CC_STAT_WIDTH][parts], stats[1:, cv2.CC_STAT_HEIGHT][parts]
    lone_w = float(np.median(stats[1:, cv2.CC_STAT_WIDTH][in_band]))
    lone_h = float(np.median(stats[1:, cv2.CC_STAT_HEIGHT][in_band]))
    k = np.rint(pips)
    across = np.minimum(bw, bh)
    along = np.where(bh >= bw, bh / lone_h, bw / lone_w)
    if np.any((k >= 2) & ((across > MERGED_LINE * max(lone_w, lone_h)) | (along < MERGED_ALONG * k))):
        return None
    return int(k.sum())


def _mark_counts(face: np.ndarray, levels) -> list[int]:
    """:func:`mark_count` of one face at each ink level of ``levels`` (the paper found once)."""
    return _counted(_mark_areas(face, levels))


def _counted(areas: list[np.ndarray]) -> list[int]:
    """Per ink level, how many parts of ink (areas as parts of the face's area) are marks: within
    ``MARK_AREA``."""
    return [int(np.count_nonzero((a >= MARK_AREA[0]) & (a <= MARK_AREA[1]))) for a in areas]


def _mark_areas(face: np.ndarray, levels, chroma: float = MARK_CHROMA) -> list[np.ndarray]:
    """The areas of a face's parts of ink (parts of the face's area, float) at each ink level of
    ``levels`` (:func:`mark_count`; the paper found once; ``chroma``: see :func:`_ink_parts`)."""
    h, w = face.shape[:2]
    return [stats[1:, cv2.CC_STAT_AREA] / float(h * w) for stats, _ in _ink_parts(face, levels, chroma)]


def _ink_parts(face: np.ndarray, levels, chroma: float = MARK_CHROMA) -> list[tuple[np.ndarray, np.ndarray]]:
    """The connected parts of ink of a face at each ink level of ``levels`` (:func:`mark_count`;
    the paper found once): per level, OpenCV's (K+1, 5) int32 stats and (K+1, 2) float64 centroids
    (px), row 0 the background. ``chroma``: a pixel further than this from the paper's colour (CIE
    a, b, OpenCV's 8-bit units) is ink too (``MARK_CHROMA``; ``FAINT_CHROMA`` for faint ink)."""
    lab = cv2.cvtColor(face, cv2.COLOR_BGR2Lab)
    light = lab[..., 0]
    disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (MARK_PAPER_PX, MARK_PAPER_PX))
    paper = cv2.morphologyEx(light, cv2.MORPH_CLOSE, disc).astype(np.float32)
    # Ink is also what is coloured away from the paper's own colour (its lightest quarter's median
    # a, b): a webcam washes red pips out to a pink nearly as light as the paper.
    ab = lab[..., 1:].astype(np.float32)
    ref = np.median(ab[light >= np.percentile(light, 75)], axis=0)
    coloured = np.linalg.norm(ab - ref, axis=-1) > chroma
    h, w = light.shape
    mx, my = int(MARK_INSET * w), int(MARK_INSET * h)
    inner = np.zeros((h, w), bool)
    inner[my:h - my, mx:w - mx] = True
    out = []
    for level in levels:
        ink = ((light.astype(np.float32) < level * paper) | coloured) & inner
        _, _, stats, centroids = cv2.connectedComponentsWithStats(ink.astype(np.uint8), connectivity=8)
        out.append((stats, centroids))
    return out


def _faint_marked(face: np.ndarray) -> bool:
    """Whether a face shows a part of faint ink of a mark's size or more (``MARK_AREA``'s
    minimum): darker than ``FAINT_LEVEL`` times the paper round it, or further than
    ``FAINT_CHROMA`` from the paper's colour, inside the ``MARK_INSET`` margin. A washed-out
    outline (an over-exposed pale green open oval of the symbol deck) shows one where a bare paper
    or tile shows none.

    Args:
        face: (_CANON_H, _CANON_W, 3) uint8 BGR, the card warped upright (:func:`_upright`).
    """
    (areas,) = _mark_areas(face, (FAINT_LEVEL,), FAINT_CHROMA)
    return bool(np.any(areas >= MARK_AREA[0]))


def paper_lab(lab: np.ndarray) -> np.ndarray:
    """A face's paper colour: the median CIE L, a, b of its lighter half (by L), inside the
    ``MARK_INSET`` margin (the outline's table and the rounded corners left out), as
    :func:`companion.vision.covered.ink_share` takes a face's paper.

    Args:
        lab: (3, h, w) float32 CIE Lab (OpenCV's float scale: L 0..100, a, b about ±127), a face
            as :func:`_fine_lab` makes it (white-balanced on the card's own paper where the deck is).

    Returns:
        (3,) float32: L, a, b.
    """
    _, h, w = lab.shape
    dy, dx = int(round(MARK_INSET * h)), int(round(MARK_INSET * w))
    inner = lab[:, dy:h - dy, dx:w - dx].reshape(3, -1)
    light = inner[:, inner[0] >= np.median(inner[0])]
    return np.median(light, axis=1).astype(np.float32)


def _mark_layout(face: np.ndarray, level: float = MARK_INK) -> np.ndarray:
    """Where a face's marks (:func:`mark_count`) lie: (N, 3) float32, each mark's centroid x, y and
    the square root of its area, all in units of the face's width (``_CANON_W`` px), x and y from
    the face's centre (so that a card turned half round is the same points negated, in x and y).

    Args:
        face: (_CANON_H, _CANON_W, 3) uint8 BGR, the card warped upright (:func:`_upright`).
        level: the ink level (``MARK_INK``).
    """
    (stats, centroids), = _ink_parts(face, (level,))
    h, w = face.shape[:2]
    area = stats[1:, cv2.CC_STAT_AREA] / float(h * w)
    keep = (area >= MARK_AREA[0]) & (area <= MARK_AREA[1])
    xy = (centroids[1:][keep] - np.array([w / 2.0, h / 2.0])) / float(w)
    size = np.sqrt(stats[1:, cv2.CC_STAT_AREA][keep].astype(np.float64)) / float(w)
    return np.column_stack([xy, size]).astype(np.float32).reshape(-1, 3)


def _layout_fit(a: np.ndarray, b: np.ndarray) -> float:
    """How far two sets of marks (:func:`_mark_layout`) lie from one another: the larger, over both
    sets' marks, distance to the nearest mark of the other set (x, y and size; face widths), the
    least of the face as it lies and turned half round (a card upside down: x and y negated).
    ``inf`` where either set is empty."""
    if len(a) == 0 or len(b) == 0:
        return float("inf")
    best = float("inf")
    for turn in (np.float32([1, 1, 1]), np.float32([-1, -1, 1])):
        d = np.linalg.norm((a * turn)[:, None, :] - b[None, :, :], axis=-1)
        best = min(best, float(max(d.min(axis=1).max(), d.min(axis=0).max())))
    return best


def _fit_one_dropped(marks: np.ndarray, layouts: list[np.ndarray], from_layouts: bool = False) -> float:
    """The best :func:`_layout_fit` of ``marks`` ((N, 3) float32, :func:`_mark_layout`) to any of
    ``layouts`` with any one mark dropped: from ``marks`` (a mark too many: a crumb on a nine), or
    from the layout where ``from_layouts`` (a mark too few: a ten's pip clipped away). ``inf`` where
    nothing is left to fit (no layout, or no mark)."""
    if from_layouts:
        fits = (_layout_fit(marks, np.delete(e, i, axis=0)) for e in layouts for i in range(len(e)))
    else:
        fits = (_layout_fit(np.delete(marks, i, axis=0), e) for e in layouts for i in range(len(marks)))
    return min(fits, default=float("inf"))


def _variants(canon: np.ndarray, rng: np.random.Generator, n: int, strength: float) -> list[np.ndarray]:
    """``n`` patches of a canonical card as a camera might see it: the quad off by a few
    percent, focus blur, a brightness/contrast change, a colour cast, a light gradient and
    sensor noise. ``strength`` scales every perturbation."""
    base = np.array([[0, 0], [_CANON_W, 0], [_CANON_W, _CANON_H], [0, _CANON_H]], np.float32)
    yy, xx = np.mgrid[0:_CANON_H, 0:_CANON_W].astype(np.float32)
    out = []
    for _ in range(n):
        img = canon.astype(np.float32)
        sigma = rng.uniform(0.0, 3.0 * strength)
        if sigma > 0.3:
            img = cv2.GaussianBlur(img, (0, 0), sigma)
        gain = rng.uniform(1 - 0.4 * strength, 1 + 0.2 * strength)
        cast = 1.0 + rng.uniform(-0.12, 0.12, 3) * strength
        ang = rng.uniform(0, 2 * np.pi)
        grad = 1.0 + 0.25 * strength * ((xx / _CANON_W - 0.5) * np.cos(ang) + (yy / _CANON_H - 0.5) * np.sin(ang))
        img = img * (gain * cast)[None, None, :] * grad[:, :, None] + rng.uniform(-15, 15) * strength
        img += rng.normal(0, 6 * strength, img.shape)
        img = np.clip(img, 0, 255).astype(np.uint8)
        jitter = rng.normal(0, 0.02 * strength * _CANON_W, (4, 2)).astype(np.float32)
        out.append(card_patch(img, base + jitter))
    return out


#: The least grey-level spread (standard deviation) of an example image: a blank picture holds no
#: card, and its descriptor would be all zero (the dice enrolment's ``MIN_EXAMPLE_SPREAD``).
MIN_EXAMPLE_SPREAD = 4.0


def _check_counts(counts: dict[str, int]) -> None:
    """Raise EnrollError unless the labels and example counts fit what a deck file may hold
    (``MAX_LABELS``, ``MAX_EXAMPLES``, ``MAX_LABEL_CHARS``), so a deck enrolled is one that loads."""
    if not counts:
        raise EnrollError("no labels to enrol")
    if len(counts) > MAX_LABELS:
        raise EnrollError(f"{len(counts)} labels; a deck has at most {MAX_LABELS}")
    for label, n in counts.items():
        if label == UNKNOWN:
            raise EnrollError(f"{UNKNOWN!r} is reserved for cards that match nothing; rename that label")
        why = name_problem(label, MAX_LABEL_CHARS)
        if why:
            raise EnrollError(f"label {label!r}: {why}; rename it")
        if n == 0:
            raise EnrollError(f"label {label!r} has no example images")
    total = sum(counts.values())
    if total > MAX_EXAMPLES:
        raise EnrollError(f"{total} example images; a deck is enrolled from at most {MAX_EXAMPLES} "
                          "(one or two a card is enough)")


def _canonical_example(label: str, img: np.ndarray) -> tuple[np.ndarray, bool]:
    """:func:`_canonical_found` of one example, refused (EnrollError naming the label) unless it is
    an (H, W, 3) uint8 picture that is not blank."""
    img = np.asarray(img)
    if img.dtype != np.uint8 or img.ndim != 3 or img.shape[2] != 3 or min(img.shape[:2]) < 1:
        raise EnrollError(f"label {label!r}: an example is not an (H, W, 3) uint8 BGR picture "
                          f"(got {img.dtype} {img.shape})")
    if float(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY).std()) < MIN_EXAMPLE_SPREAD:
        raise EnrollError(f"label {label!r}: an example picture is blank (one flat colour): no card in it")
    return _canonical_found(img)


def enroll_images(examples: dict[str, list[np.ndarray]], seed: int = 0) -> Deck:
    """Build a deck from example images.

    Args:
        examples: label → list of (H, W, 3) uint8 BGR images, each a flat scan of one card or a
            photo cropped to it (upright; see :func:`crop_quad`). At least one per label.
        seed: seed for the augmentation (enrolment is deterministic for a given seed).

    Returns:
        The :class:`Deck`, threshold calibrated.

    Raises:
        EnrollError: no labels, a label with no images, the reserved label ``"unknown"``, a label
            that could not be printed or is over ``MAX_LABEL_CHARS``, more than ``MAX_LABELS``
            labels or ``MAX_EXAMPLES`` images, or an image that is not (H, W, 3) uint8 or is blank.
    """
    _check_counts({label: len(imgs) for label, imgs in examples.items()})
    return _enroll_canonical({label: [_canonical_example(label, img)[0] for img in examples[label]]
                              for label in sorted(examples)}, seed)


def _enroll_canonical(canons: dict[str, list[np.ndarray]], seed: int) -> Deck:
    """:func:`enroll_images` from each example's :func:`_canonical` view (labels in sorted order)."""
    rng = np.random.default_rng(seed)
    labels = tuple(sorted(canons))
    patches, plabel, held, hlabel, fine, fmean, flabel, marks, paper = [], [], [], [], [], [], [], [], []
    whole = np.array([[0, 0], [_CANON_W, 0], [_CANON_W, _CANON_H], [0, _CANON_H]], np.float32)
    for li, label in enumerate(labels):
        for canon in canons[label]:
            raw = fine_patch(canon, whole, margin=False)
            lab = _fine_lab(raw)
            paper.append(paper_lab(_fine_lab(raw, balance=False))[1:])
            fine.append(_zero_mean(lab))
            fmean.append(lab.mean(axis=(1, 2)))
            flabel.append(li)
            marks.append(mark_count(canon))
            patches.append(card_patch(canon, whole))
            patches += _variants(canon, rng, _N_AUG, 1.0)
            plabel += [li] * (_N_AUG + 1)
            held += _variants(canon, rng, _N_CAL, 1.3)
            hlabel += [li] * _N_CAL
    templates = describe(np.stack(patches))
    counts = np.array([len(canons[lb]) for lb in labels], np.int64)
    deck = Deck(labels, templates, np.array(plabel, np.int64), 0.0, counts,
                np.stack(fine).astype(np.float32), np.array(flabel, np.int64), balanced=True,
                fine_mean=np.stack(fmean).astype(np.float32), marks=np.array(marks, np.int64),
                paper=np.stack(paper).astype(np.float32))
    deck.threshold = _calibrate(deck, describe(np.stack(held)), np.array(hlabel))
    # The faces for the local-feature look: every example of a label the mark count cannot judge
    # (a face card), enrolled from FEATURE_MIN_EXAMPLES examples or more, whose faces show art. A
    # Sushi Go! deck enrolled from one scan a card, or a symbol deck, keeps none, and never pays for
    # the look.
    # A label the count does judge keeps them too where its examples show far more keypoints than a
    # pip card's (FEATURE_ART_POINTS): a face card whose art splits into the same few marks on most
    # examples (the real deck's queens: 2 marks on 6-7 of 10 examples) is still a face card.
    keep = [li for li in range(len(labels)) if counts[li] >= FEATURE_MIN_EXAMPLES]
    if keep:
        from companion.vision.face_features import sift_features

        # ... and only labels whose examples show art (FEATURE_FACE_POINTS): a plain symbol has none
        points = {li: float(np.median([len(sift_features(cv2.cvtColor(c, cv2.COLOR_BGR2GRAY))[1])
                                       for c in canons[labels[li]]])) for li in keep}
        keep = [li for li in keep if points[li] >= FEATURE_ART_POINTS
                or (points[li] >= FEATURE_FACE_POINTS and not deck.judges_marks(li))]
    if keep:
        deck.faces = np.stack([cv2.cvtColor(c, cv2.COLOR_BGR2GRAY) for li in keep for c in canons[labels[li]]])
        deck.face_label = np.array([li for li in keep for _ in canons[labels[li]]], np.int64)
    return deck


def _calibrate(deck: Deck, held: np.ndarray, hlabel: np.ndarray) -> float:
    """The unknown threshold, from held-out variants.

    Genuine: each variant's score for its own label. Impostor: its best score for any label
    whose own variants it is not — the score a card that was never enrolled might reach. The
    threshold sits between the impostor scores of *unrelated* labels (the bulk) and the lowest
    genuine scores, leaning towards the genuine side by a fixed fraction, and is clamped to a
    sane range so a tiny or odd deck still gets a usable value.
    """
    scores, _ = deck.match(held)
    genuine = scores[np.arange(len(hlabel)), hlabel]
    other = scores.copy()
    other[np.arange(len(hlabel)), hlabel] = -1.0
    impostor = other.max(axis=1)
    g_lo = float(np.percentile(genuine, 1))
    i_mid = float(np.median(impostor)) if len(deck.labels) > 1 else 0.3
    thr = i_mid + 0.6 * (g_lo - i_mid)
    return float(np.clip(thr, 0.45, 0.85))


#: An enrolled example that matches an example of *another* label at least this well (whole-card
#: ZNCC, its clean template against the other's templates, either way up) may be that card filed
#: under the wrong name (:func:`misfiled_examples`). Two photos of one physical card score
#: 0.94-0.96 on the real deck (``../shared/datasets/edje-cards``: its ten of diamonds IMG_2396,
#: labelled "nine" in the dataset, against the tens' own tens of diamonds); a rank's lone suit
#: against the same suit of the next rank (a nine of clubs and a ten of clubs), at most 0.73-0.74
#: (``bench/misfiled.py``, stop 56: IMG_2396 reported on the 9 of 24 enrolment draws that enrol it,
#: nothing else on any draw, with the dataset's labels or with the erratum applied).
SAME_CARD_MIN = 0.85
#: ... and leads the best of its own label's other examples by at least this (ZNCC): a label's own
#: examples of one card lie within 0.02 of another label's on the symbol deck's look-alikes
#: (striped and open, red and purple: 81 cards × 5 photos), so a real look-alike is not reported.
MISFILED_MARGIN = 0.10


@dataclass(frozen=True)
class MisfiledExample:
    """An enrolled example that looks like another label's card more than like its own label's.

    label, index: the example's label and its place among that label's examples (the order they
        were given in; ``enroll_folder``: file-name order).
    other, other_index: the other label's example it matches.
    score: whole-card ZNCC between the two (−1..1).
    own: the best ZNCC between the example and its own label's other examples.
    mutual: the other example is reported too, with this one as its match: the two show one card
        and either may be the one in the wrong folder (a rank whose other pictures are of other
        suits is no more like its own than the intruder is).
    """

    label: str
    index: int
    other: str
    other_index: int
    score: float
    own: float
    mutual: bool = False


def misfiled_examples(deck: Deck) -> list[MisfiledExample]:
    """Examples of a deck just enrolled that look filed under the wrong label.

    Each example's clean template (the first of its ``1 + _N_AUG``) is scored against every other
    example's templates, both ways up (the deck's own whole-card ZNCC, as a card is read). An
    example is reported when its best match in another label reaches ``SAME_CARD_MIN`` and leads
    the best match among its own label's other examples by ``MISFILED_MARGIN``: it is then more
    like another label's card than like its own label's. A label enrolled from one example is not
    judged (no other to compare with: a deck of flat scans, one a card). Where two examples report
    each other, they are reported once, as a ``mutual`` pair: either may be the one in the wrong
    folder (the real deck's ten of diamonds filed as a nine against the tens' own ten of diamonds,
    whose other tens are of other suits, stop 56's review).

    Whole-card scores cannot tell one card from its look-alike (a maki 2 and a maki 1 score 0.99),
    so a report says two pictures look like one card, not which folder is wrong: where a label
    holds two pictures, one a misfiled tempura, its maki 2 is reported too, as like a maki 1
    (watercolour) or a maki 3 (illustrated, airbrush): the review's decks of one scan a card. Leaving such
    labels out was tried: the misfiled picture makes its label's mean face a look-alike of the
    card it shows, so the misfiled tempura itself went unreported.

    Enrolment by a user names each folder; a photo in the wrong one teaches the deck to give that
    card the wrong name (the real deck's ten of diamonds, IMG_2396, labelled "nine" in
    ``../shared/datasets/edje-cards``, made tens of diamonds read as near ties). This says so at
    enrolment, when the user can still move the file.

    Args:
        deck: a deck from :func:`enroll_images` or :func:`enroll_folder` (or one saved from them
            and loaded: the templates keep their order).

    Returns:
        The reported examples, the one furthest from its own label first; empty for a deck whose
        templates are not laid out one block of ``1 + _N_AUG`` per example.
    """
    block = _N_AUG + 1
    counts = np.asarray(deck.examples, np.int64)
    n = int(counts.sum())
    if n < 2 or len(deck.templates) != n * block or not np.array_equal(
            np.bincount(deck.template_label, minlength=len(counts)), counts * block):
        return []  # not one block of templates per example, label by label: nothing to say
    label_of = np.repeat(np.arange(len(deck.labels)), counts)  # templates are sorted by label, blocks in order
    first = np.concatenate([[0], np.cumsum(counts)[:-1]])
    clean = deck.templates[np.arange(n) * block]  # (n, D)
    s = clean @ deck._bank  # (n, 2M): upright, then turned
    per = np.maximum(s[:, :n * block], s[:, n * block:]).reshape(n, n, block).max(axis=2)  # (n, n)
    np.fill_diagonal(per, -np.inf)
    same = label_of[:, None] == label_of[None, :]
    own = np.where(same, per, -np.inf).max(axis=1)
    others = np.where(same, -np.inf, per)
    partner = others.argmax(axis=1)
    best = others[np.arange(n), partner]
    flagged = {e for e in range(n) if counts[label_of[e]] > 1 and best[e] >= SAME_CARD_MIN
               and best[e] >= own[e] + MISFILED_MARGIN}
    out, paired = [], set()  # the partners of mutual pairs already reported
    for e in sorted(flagged, key=lambda e: own[e] - best[e]):
        if e in paired:
            continue
        f = int(partner[e])
        mutual = f in flagged and int(partner[f]) == e
        if mutual:
            paired.add(f)
        out.append(MisfiledExample(deck.labels[label_of[e]], int(e - first[label_of[e]]),
                                   deck.labels[label_of[f]], int(f - first[label_of[f]]),
                                   float(best[e]), float(own[e]), mutual))
    return out


def enroll_folder(folder: Path | str, seed: int = 0, uncropped: list[Path] | None = None,
                  misfiled: list[tuple[Path, Path, MisfiledExample]] | None = None) -> Deck:
    """Enrol a deck from ``folder/<label>/<image>`` (the sub-folder name is the label).

    Files whose suffix is not an image type (``IMAGE_SUFFIXES``) and hidden entries are ignored;
    every image file must be readable. Each is read at ``CLASSIFY_MAX_SIDE`` (all are held until
    the deck is made), as the cards will be classified. ``uncropped``, if given, gets the path of
    every image in which no card was found, so the whole picture (table and all) was enrolled as
    the card: not of a card's shape and no outline in it (:func:`crop_quad`). Such an example is
    still enrolled (it may be a close crop the finder missed), but it scores any card lit like its
    table, so the command warns about it. ``misfiled``, if given, gets ``(path, other path,
    finding)`` for every example that looks like another label's card more than like its own
    label's (:func:`misfiled_examples`); the deck is made all the same, and the command warns.

    Raises:
        EnrollError: the folder is missing or not a folder, has no label sub-folders, a label
            folder has no images, a folder's name cannot be a label, there are too many labels or
            images (``MAX_LABELS``, ``MAX_EXAMPLES``: all counted before any image is read), or a
            picture is blank.
        ImageReadError: an image file cannot be read, is over the pixel budget
            (``ImageTooLargeError``) or too small (``DegenerateImageError``); the message names it.
    """
    def check_name(d: Path) -> None:
        why = name_problem(d.name, MAX_LABEL_CHARS)
        if why:
            raise EnrollError(f"{d}: {why}; a label is its folder's name, so rename the folder")

    folders = example_folders(folder, EnrollError, "label", check_name=check_name)
    _check_counts({name: len(files) for name, files in folders})
    # Each example is read at the size classify reads at and only its canonical view is kept
    # (120 × 172 px): a folder of phone photos is never held all at once.
    canons = {}
    for name, files in folders:
        canons[name] = []
        for f in files:
            img = read_working(f, CLASSIFY_MAX_SIDE).image
            try:
                canon, found = _canonical_example(name, img)
            except EnrollError as exc:
                raise EnrollError(f"{f}: {exc}") from None
            canons[name].append(canon)
            if uncropped is not None and not found:
                uncropped.append(Path(f))
    deck = _enroll_canonical(canons, seed)
    if misfiled is not None:
        files = dict(folders)
        misfiled += [(Path(files[m.label][m.index]), Path(files[m.other][m.other_index]), m)
                     for m in misfiled_examples(deck)]
    return deck


__all__ = [
    "CARD_ASPECT", "CLASSIFY_MAX_SIDE", "DESCRIPTOR_VERSION", "PATCH_H", "PATCH_W", "Classification", "Deck", "DeckError",
    "EnrollError", "ImageReadError", "MisfiledExample", "card_patch", "classify_image", "classify_quads", "crop_quad",
    "card_patches", "describe", "enroll_folder", "enroll_images", "misfiled_examples", "whole_image_quad",
]
