"""Real playing cards cut by a thin cover (issue #6, stop 45 ``cover45``, redone in stop 46
``cover46``): a card a cable cuts in pieces is joined and named; two different cards' pieces
joined across a cover are not named as one; a drawn pip card never enrolled, cut by a cover, is
not named "one"; a coloured paper with a dot cut by a cable is not named, nor (stop 48, ``cover48``)
a blank tile or a dotted paper where the enrolled aces agree on no count. The real-photo tests need
``../shared/datasets/edje-cards`` beside the repo (skipped otherwise)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
CARDS_DATA = ROOT.parent / "shared" / "datasets" / "edje-cards"

needs_data = pytest.mark.skipif(not CARDS_DATA.is_dir(), reason="../shared/datasets/edje-cards is missing "
                                "(the shared datasets sit beside the repo)")


def _bench(name):
    sys.path.insert(0, str(ROOT / "bench"))
    sys.path.insert(0, str(ROOT / "tests"))
    spec = importlib.util.spec_from_file_location(name, ROOT / "bench" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def draw0():
    """(deck, boxes, faces, tables) of enrolment draw 0 (bench/real_cards.py's tuning draw)."""
    return _draw(0)


def _draw(draw: int):
    """(deck, boxes, faces, tables) of enrolment draw ``draw``, as bench/real_cards.py enrols it
    (10 photos a rank) and bench/real_fans.py cuts the faces and tables from its photos."""
    real_cards = _bench("real_cards")
    real_fans = _bench("real_fans")
    boxes = real_cards.load_boxes()
    chosen, _ = real_cards.split(boxes, 10, draw)
    deck = real_cards.enrol(boxes, chosen)
    faces, tables = real_fans.card_sources(boxes, {n for ns in chosen.values() for n in ns}, real_cards.DATA)
    return deck, boxes, faces, tables


def _iou(a, b) -> float:
    from companion.vision.card_search import overlap_area

    inter = overlap_area(np.float32(a), np.float32(b))
    union = abs(cv2.contourArea(np.float32(a))) + abs(cv2.contourArea(np.float32(b))) - inter
    return inter / max(union, 1e-6)


@needs_data
def test_a_real_jack_cut_in_three_by_two_cables_is_named(draw0):
    # IMG_2621 (a dev photo): a jack of spades two black cables cross. The outline finder finds no
    # outline, and the jacks' centroid (of draw 0's suits) reads its pieces 0.46 against a bar of
    # 0.72 - 0.12, so main's covered pass screened the join out: "not found".
    from companion.vision.cards import read_cards
    from companion.vision.imageio import read_image

    deck, boxes, _, _ = draw0
    img = read_image(CARDS_DATA / "images" / "IMG_2621.JPG")
    x0, y0, x1, y1 = next(b for r, b in boxes["IMG_2621.JPG"] if r == "jack")
    box = [[x0, y0], [x1, y0], [x1, y1], [x0, y1]]
    on_it = [o.label for o in read_cards(img, deck) if _iou(o.quad, box) >= 0.5]
    assert on_it == ["jack"]


@needs_data
def test_a_real_jack_cut_by_a_drawn_cable_is_named(draw0):
    # bench/real_covers.py draw 0, scene 147: one jack a drawn cable crosses, on a real table.
    from companion.vision.cards import read_cards

    deck, _, faces, tables = draw0
    kind, img, truth, cover = _bench("real_covers").scene(147, faces, tables)
    assert (kind, cover, [r for r, _ in truth]) == ("one", "cable", ["jack"])
    on_it = [o.label for o in read_cards(img, deck) if _iou(o.quad, truth[0][1]) >= 0.5]
    assert on_it == ["jack"]


@needs_data
def test_two_halves_of_different_cards_joined_across_a_cable_are_not_named(draw0):
    # A card-shaped thing made of the top half of one rank's card and the bottom half of
    # another's, the seam under a dark cable: the join's two pieces read as two labels, so it must
    # not be named (as either, or as a third).
    from companion.vision.cards import read_cards
    from test_vision_synth import paste, photometric

    from companion.rules.sushi_go.cards import UNKNOWN

    real_fans = _bench("real_fans")
    deck, _, faces, tables = draw0
    ranks = sorted({r for r, _ in faces})
    named = []
    for k in range(8):
        rng = np.random.default_rng(4500 + k)
        a, b = rng.choice(len(ranks), 2, replace=False)
        fa = next(f for r, f in faces[k:] + faces[:k] if r == ranks[a])
        fb = next(f for r, f in faces[k:] + faces[:k] if r == ranks[b])
        h = fa.shape[0]
        face = np.concatenate([fa[: h // 2], fb[h // 2:]])
        img = tables[(7 * k) % len(tables)].copy()
        quad = real_fans._rect(190, 250, 150, rng.uniform(0, 360))
        paste(img, face, quad)
        # The cable along the seam, across the whole photo.
        mid_l, mid_r = (quad[0] + quad[3]) / 2, (quad[1] + quad[2]) / 2
        d = (mid_r - mid_l) / np.linalg.norm(mid_r - mid_l)
        p0, p1 = mid_l - 600 * d, mid_r + 600 * d
        cv2.line(img, tuple(int(v) for v in p0), tuple(int(v) for v in p1), (30, 30, 30), 7, cv2.LINE_AA)
        img = photometric(img, rng, blur=0.5, noise=2.0, jpeg=90)
        named += [(k, o.label) for o in read_cards(img, deck) if o.label != UNKNOWN and _iou(o.quad, quad) >= 0.3]
    assert named == []


def _on_a_table(face: np.ndarray):
    """(photo, quad): ``face`` pasted upright, 160 x 229 px (44:63), on a brown table."""
    from test_vision_synth import paste

    img = np.full((400, 500, 3), (60, 90, 120), np.uint8)
    quad = np.float32([[150, 80], [310, 80], [310, 309], [150, 309]])
    paste(img, face, quad)
    return img, quad


@pytest.mark.parametrize("colour", [(60, 215, 235), (50, 150, 240), (90, 190, 110)])  # yellow, orange, green
def test_a_plain_coloured_paper_bears_no_ink_and_a_card_s_one_pip_does(colour):
    # Stop 45's review: cover45's ink guard counted any pixel of chroma over 35 as ink, so a blank
    # yellow or orange paper scored 1.0 and passed it. Ink is now what differs from the paper's
    # own colour: a plain coloured paper bears none, whatever its colour.
    from companion.vision.covered import JOIN_INK, ink_share
    from test_vision_deck import _pip_card

    paper, quad = _on_a_table(np.full((315, 220, 3), colour, np.uint8))
    assert ink_share(paper, quad, quad) < JOIN_INK
    # ... while a white card with one coloured pip (an ace's face) bears some, as on white paper.
    card, quad = _on_a_table(_pip_card(1, (40, 40, 210), "circle"))
    assert ink_share(card, quad, quad) >= JOIN_INK


def test_the_outline_is_measured_on_the_quad_s_neighbourhood_as_on_the_whole_frame():
    # outline_share greys and blurs only the quad's neighbourhood (stop 45's review: the whole
    # frame on each call cost CPU x1.12 on covered photos); near the frame's border and inside it,
    # it must see the outline the whole frame's blur shows.
    from companion.vision.covered import OUTLINE_STEP, outline_share
    from test_vision_synth import paste

    img = np.full((300, 400, 3), 70, np.uint8)
    inner = np.float32([[150, 40], [262, 40], [262, 200], [150, 200]])
    edge = np.float32([[2, 120], [114, 120], [114, 280], [2, 280]])  # a side 2 px from the border
    for q in (inner, edge):
        paste(img, np.full((160, 112, 3), 70 + int(OUTLINE_STEP) + 40, np.uint8), q)
    assert outline_share(img, inner) == 1.0
    assert outline_share(img, edge) >= 0.7  # the side along the border has nothing beyond it
    assert outline_share(img, inner + np.float32([40, 40])) < 0.5  # off the card: no outline


@pytest.mark.parametrize("seed", [10066, 10080, 10279, 10347])
def test_a_drawn_pip_card_never_enrolled_cut_by_a_cover_is_not_named_one(seed):
    # Stop 45's review: the drawn pip deck (bench/real_fans.drawn_sources: "one", "nine", "ten"
    # enrolled, twos and threes never) under covers. bench/real_covers.py --drawn scenes 10066
    # (a two under a pen), 10080 (a two under a shadow's band), 10279 (a two beside a one, a
    # shadow across both) and 10347 (a three under a shadow): cover45's unscreened join read the
    # two or three "one" (the "one"'s centroid screened it out on main; one of its examples reads
    # the join over the bar). The mark count judges "one", so an unscreened join is not named so.
    from companion.vision.cards import read_cards

    real_covers = _bench("real_covers")
    deck, faces, tables = _bench("real_fans").drawn_sources()
    _, img, truth, _ = real_covers.scene(seed, faces, tables, (200, 240))
    readings = read_cards(img, deck)
    for rank, quad in truth:
        on_it = [o.label for o in readings if _iou(o.quad, quad) >= 0.3]
        assert all(label in (rank, "unknown") for label in on_it), (rank, on_it)


@needs_data
def test_a_coloured_paper_with_one_dot_cut_by_a_cable_is_not_named(draw0):
    # Stop 45's review: card-shaped yellow or green papers with one dark dot, cut by a cable, read
    # "ace" through cover45's unscreened join (its ink guard took the paper's colour for ink).
    # bench/real_covers.py --dotted scene 10662: a coloured paper, a dot where an ace's pip lies, a
    # cable across it, beside a real card: cover45 named the paper "ace", main does not.
    from companion.vision.cards import read_cards

    from companion.rules.sushi_go.cards import UNKNOWN

    deck, _, faces, tables = draw0
    _, img, truth, cover = _bench("real_covers").scene(10662, faces, tables, dotted=True)
    assert cover == "cable" and len(truth) == 1
    off_the_card = [o.label for o in read_cards(img, deck) if o.label != UNKNOWN and _iou(o.quad, truth[0][1]) < 0.3]
    assert off_the_card == []



@pytest.fixture(scope="module")
def draw32():
    """(deck, faces, tables) of enrolment draw 32: cover46's review's draw, whose ten aces agree on
    no mark count (the deck's 37 one-card ace photos count 0: 5, 1: 26, 2: 4, 4: 1, 5: 1)."""
    deck, _, faces, tables = _draw(32)
    return deck, faces, tables


@needs_data
@pytest.mark.parametrize("seed, dotted, cover", [(11183, False, "shadow"), (11423, True, "cable")])
def test_a_blank_tile_or_a_dotted_paper_is_no_ace_where_the_aces_agree_on_no_count(draw32, seed, dotted, cover):
    # cover46's review: where the enrolled aces agree on no count, judges_marks(ace) is False, so
    # cover46's refusal of a pip label did not hold and its unscreened join named "ace" on a blank
    # tile cut by a shadow (bench/real_covers.py, draw 32, scene 11183: ink 0.17, outline 0.84)
    # and on a pale-blue paper with one dot cut by a cable (--dotted scene 11423: ink 0.026,
    # outline 0.96), beside a real card. An ace's face is mostly bare paper (Deck.mostly_paper)
    # whatever the examples agree on: no unscreened join names it (stop 48, cover48).
    from companion.rules.sushi_go.cards import UNKNOWN
    from companion.vision.cards import read_cards

    deck, faces, tables = draw32
    ace = deck.labels.index("ace")
    assert not deck.judges_marks(ace) and deck.mostly_paper(ace)  # the case the review found
    _, img, truth, drawn = _bench("real_covers").scene(seed, faces, tables, dotted=dotted)
    assert drawn == cover and len(truth) == 1
    obs = read_cards(img, deck)
    assert [o.label for o in obs if o.label != UNKNOWN and _iou(o.quad, truth[0][1]) < 0.3] == []
    # ... while the real card beside it keeps what main reads there (11183's jack is named).
    if seed == 11183:
        assert truth[0][0] == "jack"
        assert [o.label for o in obs if _iou(o.quad, truth[0][1]) >= 0.5] == ["jack"]

@needs_data
@pytest.mark.parametrize("seed", [10600, 10742, 10751])
def test_a_coloured_paper_with_a_dot_beside_a_white_card_is_no_ace(draw0, seed):
    # bench/real_covers.py --dotted, draw 0: a green (10600, 10751) or pink (10742) card-shaped
    # paper with one dark dot, cut by a cable, beside a real card; main named each paper "ace"
    # through its ordinary finder. Its paper is cast otherwise than the white card's beside it
    # under one light (stop 47, paper47: deck.PAPER_APART), so it is no ace. The real card keeps
    # its name: 10742's is a white ace of clubs, still "ace".
    from companion.rules.sushi_go.cards import UNKNOWN
    from companion.vision.cards import read_cards

    deck, _, faces, tables = draw0
    _, img, truth, cover = _bench("real_covers").scene(seed, faces, tables, dotted=True)
    assert cover == "cable" and len(truth) == 1
    obs = read_cards(img, deck)
    assert [o.label for o in obs if o.label != UNKNOWN and _iou(o.quad, truth[0][1]) < 0.3] == []
    assert [o.label for o in obs if _iou(o.quad, truth[0][1]) >= 0.5] == [truth[0][0]]
    if seed == 10742:
        assert truth[0][0] == "ace"


@needs_data
def test_a_deck_enrolled_on_pink_stock_keeps_its_names_beside_a_white_card(draw0):
    # A deck whose aces are printed on pink stock (the enrolment's ace photos tinted so, B 0.85,
    # G 0.72, R 1.0 of the paper): a pink ace beside a white ten is what the deck's own aces look
    # like, so the paper look (judged against each label's own examples' paper) must keep both
    # names, where judged against white it would take the ace.
    from companion.vision.cards import read_cards
    from companion.vision.deck import enroll_images
    from companion.vision.imageio import read_image
    from test_vision_synth import paste, photometric

    real_cards = _bench("real_cards")
    real_fans = _bench("real_fans")
    _, boxes, faces, tables = draw0
    chosen, _ = real_cards.split(boxes, 10, 0)  # draw 0's photos, the aces tinted
    pink = np.float32([0.85, 0.72, 1.0])
    examples = {}
    for rank, names in chosen.items():
        crops = []
        for n in names:
            im = read_image(real_cards.DATA / "images" / n)
            x0, y0, x1, y1 = boxes[n][0][1]
            m = int(0.08 * max(x1 - x0, y1 - y0))
            crop = im[max(0, y0 - m):y1 + m, max(0, x0 - m):x1 + m]
            crops.append(np.clip(crop * pink, 0, 255).astype(np.uint8) if rank == "ace" else crop)
        examples[rank] = crops
    deck = enroll_images(examples)
    # The aces' stock is taken out (over deck.PAPER_STOCK_MIN), the other labels' taken as white.
    stock = deck.paper_stock(deck.labels.index("ace"))
    assert stock is not None and np.hypot(*stock) > 0 and not deck.paper_stock(deck.labels.index("ten")).any()
    ace = next(f for r, f in faces if r == "ace")
    ten = next(f for r, f in faces if r == "ten")
    rng = np.random.default_rng(4701)
    img = cv2.resize(tables[0], (378, 504)).copy()
    quads = [real_fans._rect(110, 250, 150, 3), real_fans._rect(270, 250, 150, -4)]
    paste(img, np.clip(ace * pink, 0, 255).astype(np.uint8), quads[0])
    paste(img, ten, quads[1])
    img = photometric(img, rng, blur=0.5, noise=2.0, jpeg=90)
    obs = read_cards(img, deck)
    got = [next((o.label for o in obs if _iou(o.quad, q) >= 0.5), None) for q in quads]
    assert got == ["ace", "ten"]
    # ... and the same pink ace beside the white ten, read with the white deck, is refused "ace".
    white, *_ = draw0
    got_white = [next((o.label for o in read_cards(img, white) if _iou(o.quad, q) >= 0.5), None) for q in quads]
    assert got_white[0] != "ace"


@needs_data
def test_an_unscreened_join_names_no_pip_heavy_label_whose_counts_disagree(draw32):
    # cover48's review: where a nine's or ten's examples agree on no count (enrolment draws 52 and
    # 53: a nine's ten examples count 4, 6, 7, 9, 9, 9, 9, 9, 10, 12), neither the mark count nor
    # the bare-paper screen refuses it, and a join whose cover hides some of its pips could be
    # named by what is left. The median count (a pip card's 7.5-10, a face card's 1-4) refuses it.
    from dataclasses import replace

    from companion.vision.covered import _join_may_name

    deck, _, _ = draw32
    nine, jack = deck.labels.index("nine"), deck.labels.index("jack")
    marks = np.asarray(deck.marks).copy()
    rows = np.flatnonzero(np.asarray(deck.fine_label) == nine)
    assert len(rows) == 10
    marks[rows] = [4, 6, 7, 9, 9, 9, 9, 9, 10, 12]
    disagreeing = replace(deck, marks=marks)
    assert not disagreeing.judges_marks(nine) and not disagreeing.mostly_paper(nine)  # the review's case
    assert not _join_may_name(disagreeing, nine)
    # A face card whose examples agree on no count stays open to the joins (the jacks they are for) ...
    assert not deck.judges_marks(jack) and _join_may_name(deck, jack)
    # ... and a deck without counts (an old enrolment) names nothing through them.
    assert not _join_may_name(replace(deck, marks=None), jack)


@pytest.fixture(scope="module")
def draw50():
    """(deck, boxes, faces, tables) of enrolment draw 50 (stop 49's tuning draw: main's six "ace"s
    on the dotted papers of bench/real_covers.py --dotted, seeds 13500-13599)."""
    return _draw(50)


def _dotted_alone(seed: int, tables):
    """(photo, quad) of one coloured paper with a dot (bench/real_covers._dotted_face), a card's size
    and shape, alone on a real table and cut by a cable: no real card beside it to compare with."""
    from test_vision_synth import paste, photometric

    real_covers = _bench("real_covers")
    real_fans = _bench("real_fans")
    rng = np.random.default_rng(seed)
    img = cv2.resize(tables[int(rng.integers(len(tables)))], (378, 504)).copy()
    quad = real_fans._rect(190, 250, 150 * rng.uniform(0.9, 1.1), rng.uniform(0, 360))
    _, face = real_covers._dotted_face(rng, (105, 150))
    paste(img, face, quad)
    centre = quad.mean(axis=0)
    real_covers._cover(img, centre + rng.uniform(-20, 20, 2).astype(np.float32),
                       centre + np.float32([rng.uniform(-1, 1), 1]) * 10, 150, rng, "cable")
    return photometric(img, rng, blur=0.5, noise=2.0, jpeg=90), quad


@needs_data
@pytest.mark.parametrize("seed", [14412, 14422])
def test_a_dotted_paper_alone_is_no_ace(draw50, seed, monkeypatch):
    # A coloured paper with one dark dot where an ace's pip lies, alone on the table: to the mark
    # count and the whole-card template an ace, and with no named card beside it stop 47's paper
    # look (cards._without_foreign_paper) judges nothing. Its paper is coloured and its corners
    # show no "A" and small suit like the enrolled aces' (stop 49, ace49: cards._without_bare_index),
    # so it is named nothing.
    from companion.rules.sushi_go.cards import UNKNOWN
    from companion.vision import cards

    deck, _, _, tables = draw50
    img, quad = _dotted_alone(seed, tables)
    got = [o.label for o in cards.read_cards(img, deck) if o.label != UNKNOWN]
    assert got == []
    # ... where, without that look, the paper is read "ace" (as main reads it).
    monkeypatch.setattr(cards, "_without_bare_index", lambda frame, deck, readings: readings)
    assert [o.label for o in cards.read_cards(img, deck) if _iou(o.quad, quad) >= 0.5] == ["ace"]


@needs_data
@pytest.mark.xfail(strict=True, reason="open (stop 49, ace49): a paper alone on a dark table is itself "
                   "the frame's brightest thing, so its cast from the frame's white is small and it is "
                   "not judged: still read 'ace', as on main")
def test_a_dotted_paper_that_is_the_frames_brightest_thing_is_no_ace(draw50):
    # The known limit of the review fix: a paper alone on a dark table is itself the frame's
    # brightest thing, so its cast from the frame's white (deck.frame_white) is small and it is
    # not judged. What a user expects (no name) is asserted; strict, so a fix shows as XPASS.
    from companion.rules.sushi_go.cards import UNKNOWN
    from companion.vision import cards

    deck, _, _, tables = draw50
    img, quad = _dotted_alone(14434, tables)
    assert [o.label for o in cards.read_cards(img, deck)
            if _iou(o.quad, quad) >= 0.5 and o.label != UNKNOWN] == []


def _warm_ace(face, k: int, tables, glare: bool):
    """(photo, quad) of a real ace ``face`` on table ``k`` under a warm lamp's cast (B 0.62, G 0.86,
    R 1.0 of the photo), its top-left index under a white glare spot where ``glare``."""
    from test_vision_synth import paste, photometric

    real_fans = _bench("real_fans")
    face = face.copy()
    if glare:
        h, w = face.shape[:2]
        cv2.circle(face, (int(0.08 * w), int(0.1 * h)), int(0.22 * w), (255, 255, 255), -1)
    rng = np.random.default_rng(14440 + k)
    img = cv2.resize(tables[k % len(tables)], (378, 504)).copy()
    quad = real_fans._rect(190, 250, 150, 8.0 * k - 8)
    paste(img, face, quad)
    warm = np.float32([0.62, 0.86, 1.0])
    return np.clip(photometric(img, rng, blur=0.5, noise=2.0, jpeg=90) * warm, 0, 255).astype(np.uint8), quad


@needs_data
def test_a_real_ace_under_a_warm_light_keeps_its_name(draw50, monkeypatch):
    # Every real ace face of draw 50's photos under a warm lamp, its paper cast as much as a
    # coloured paper's (over deck.INDEX_CAST_MIN, so its corners are looked at): its index is an
    # ace's, so every reading is what it is without that look (main's). Most are named "ace".
    from companion.vision import cards
    from companion.vision import deck as dk

    deck, _, faces, tables = draw50
    ace = deck.labels.index("ace")
    shots = [_warm_ace(f, k, tables, False) for k, f in enumerate(f for r, f in faces if r == "ace")]
    assert len(shots) >= 10
    assert all(float(np.hypot(*deck.paper_cast(img, q, ace))) >= dk.INDEX_CAST_MIN for img, q in shots)
    got = [[o.label for o in cards.read_cards(img, deck)] for img, _ in shots]
    monkeypatch.setattr(cards, "_without_bare_index", lambda frame, deck, readings: readings)
    assert got == [[o.label for o in cards.read_cards(img, deck)] for img, _ in shots]
    assert sum(g == ["ace"] for g in got) >= len(shots) // 2


@needs_data
def test_a_warm_real_ace_with_one_index_in_glare_keeps_its_name(draw50, monkeypatch):
    # Every real ace face of draw 50 (19), warm-lit, its top-left index under a glare spot: the
    # whole frame is lit alike, so its paper is cast no more than the frame's brightest things
    # (deck.frame_white) and the rule refuses none: every reading is main's, whatever its
    # corner match (face 16's other index matched 0.78 and was refused before the review).
    from companion.vision import cards

    deck, _, faces, tables = draw50
    shots = [_warm_ace(f, k, tables, True) for k, f in enumerate(f for r, f in faces if r == "ace")]
    assert len(shots) >= 19
    got = [[o.label for o in cards.read_cards(img, deck) if _iou(o.quad, q) >= 0.5] for img, q in shots]
    monkeypatch.setattr(cards, "_without_bare_index", lambda frame, deck, readings: readings)
    assert got == [[o.label for o in cards.read_cards(img, deck) if _iou(o.quad, q) >= 0.5] for img, q in shots]
    # main names 11 of them "ace" (README, ace49), and so does the branch.
    assert sum(g == ["ace"] for g in got) >= 11


@needs_data
def test_the_dotted_draw_60_scene_14545s_real_ace_keeps_its_name():
    # Review of ace49: in bench/real_covers.py --dotted, draw 60, seed 14545, a real ace of
    # diamonds, its "A" plainly visible, matched the enrolled aces' whole index box only 0.45 (their
    # small suits are others) and, its paper cast 15.1, was refused. Its rank letter matches
    # (deck.CORNER_LETTER) and its paper is cast no more than the frame's light: kept.
    from companion.vision import cards

    real_covers = _bench("real_covers")
    real_fans = _bench("real_fans")
    deck, faces, tables, long_range = real_fans.sources(60)
    _, img, truth, _ = real_covers.scene(14545, faces, tables, long_range, True)
    aces = [q for r, q in truth if r == "ace"]
    assert aces
    got = [o.label for o in cards.read_cards(img, deck) if any(_iou(o.quad, q) >= 0.5 for q in aces)]
    assert got == ["ace"] * len(aces)


@needs_data
def test_a_real_jack_under_a_warm_light_keeps_its_name():
    # Review of ace49: on enrolment draw 1 jacks count as mostly paper, and the jack examples'
    # (black) indices match a real red jack's only 0.72-0.76, so every jack under a warm light was
    # refused (held-out IMG_2403 at B 0.78, G 0.92, R 1.0: cast 16). The whole photo is lit alike,
    # so its paper is cast no more than the frame's brightest things: kept.
    from companion.vision import cards
    from companion.vision.imageio import read_image

    real_cards = _bench("real_cards")
    deck, boxes, _, _ = _draw(1)
    jack = deck.labels.index("jack")
    assert deck.mostly_paper(jack)
    img = read_image(real_cards.DATA / "images" / "IMG_2403.JPG")
    img = np.clip(img.astype(np.float32) * np.float32([0.78, 0.92, 1.0]), 0, 255).astype(np.uint8)
    got = [o.label for o in cards.read_cards(img, deck)]
    assert "jack" in got
