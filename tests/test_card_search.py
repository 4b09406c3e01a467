"""The general finder's second stage: the deck finds the cards an outline cannot give
(companion.vision.card_search), on the illustrated style's pale cards and panel art."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

import test_vision_synth as synth
from companion.rules.sushi_go.cards import UNKNOWN
from companion.sim import faces
from companion.vision import card_search
from companion.vision.cards import classify_groups, find_card_groups, read_cards
from companion.vision.deck import Classification
from companion.vision.observations import CardObservation

LABELS = ["tempura", "sashimi", "dumpling", "maki_1", "maki_2", "maki_3", "egg_nigiri", "salmon_nigiri",
          "squid_nigiri", "pudding", "wasabi", "chopsticks"]

_DECK: list = []


def illustrated_deck():
    from companion.sim.record import enroll_sim_deck

    if not _DECK:
        _DECK.append(enroll_sim_deck(style="illustrated"))
    return _DECK[0]


@pytest.fixture
def illustrated_scene(monkeypatch):
    """table_scene with the illustrated card faces."""
    monkeypatch.setattr(synth, "draw_card_face", lambda label, width: faces.draw_card_face(label, width, style="illustrated"))

    def scene(labels, kind, seed):
        return synth.table_scene(labels, kind, seed)

    return scene


def _score(obs, truth):
    pairs, extra = synth.match_truth(obs, truth)
    right = sum(o is not None and o.label == lb for lb, _, o in pairs)
    wrong = [(lb, o.label) for lb, _, o in pairs if o is not None and o.label not in (lb, UNKNOWN)]
    invented = [o.label for o in extra if o.label != UNKNOWN]
    return right, wrong, invented


def test_pale_cards_on_a_pale_table_are_all_read(illustrated_scene):
    # Pale faces with cream panels running off their edges on a pale cloth: their outlines are too
    # faint for the edge map, so the first stage alone reads only some of them.
    labels = ["sashimi", "pudding", "salmon_nigiri", "maki_3", "maki_3", "wasabi", "sashimi", "squid_nigiri",
              "dumpling", "sashimi", "egg_nigiri", "chopsticks"]
    img, truth = illustrated_scene(labels, "plain", 42)
    deck = illustrated_deck()
    first, _ = classify_groups(img, find_card_groups(img), deck)
    right_first, _, _ = _score([CardObservation(r.label, r.confidence, tuple(map(tuple, r.quad))) for r in first], truth)
    right, wrong, invented = _score(read_cards(img, deck), truth)
    assert right_first < len(truth)  # the scene is hard for outlines alone
    assert right == len(truth) and not wrong and not invented


def test_a_card_whose_art_sits_in_a_panel_is_read_whole(illustrated_scene):
    # The egg nigiri's art is a rounded panel that the edge map takes for a too-square card.
    img, truth = illustrated_scene(["egg_nigiri"] * 4 + ["pudding", "chopsticks", "squid_nigiri", "maki_3"], "wood", 45)
    right, wrong, invented = _score(read_cards(img, illustrated_deck()), truth)
    assert right == len(truth) and not wrong and not invented


def test_patterns_that_look_like_card_art_are_not_cards(illustrated_scene):
    # Orange and red spots on the cloth resemble the sashimi's art, but have no card's outline.
    for seed in (41, 47):
        rng = np.random.default_rng(seed)
        img, truth = illustrated_scene(list(rng.choice(LABELS, 12)), "blobs", seed)
        right, wrong, invented = _score(read_cards(img, illustrated_deck()), truth)
        assert not wrong and not invented, (seed, wrong, invented)
        assert right >= len(truth) - 1


def test_a_few_pale_cards_alone_on_a_pale_table_are_read(illustrated_scene):
    # No card has an outline the first stage can name, so there is no card size to search at:
    # it is guessed from the part it found (the egg's panel) and from what differs from the table.
    img, truth = illustrated_scene(["egg_nigiri", "sashimi", "wasabi", "pudding"], "plain", 7)
    deck = illustrated_deck()
    first, _ = classify_groups(img, find_card_groups(img), deck)
    assert all(r.label == UNKNOWN for r in first)
    right, wrong, invented = _score(read_cards(img, deck), truth)
    assert right == len(truth) and not wrong and not invented


def test_an_empty_pale_table_has_no_cards():
    img, _ = synth.table_scene([], "plain", seed=3)
    assert read_cards(img, illustrated_deck()) == []


def _reading(label, quad, score=0.9):
    return Classification(label, 0.9, score, np.asarray(quad, np.float32))


def _rect(cx, cy, w, h):
    return [[cx - w / 2, cy - h / 2], [cx + w / 2, cy - h / 2], [cx + w / 2, cy + h / 2], [cx - w / 2, cy + h / 2]]


def test_card_size_is_the_median_of_named_readings_either_way_round():
    rs = [_reading("tempura", _rect(100, 100, 40, 60)), _reading("sashimi", _rect(300, 100, 62, 42)),
          _reading("wasabi", _rect(500, 100, 44, 64)), _reading(UNKNOWN, _rect(700, 100, 200, 300))]
    w, h = card_search.card_size(rs)
    assert (w, h) == (pytest.approx(42.0), pytest.approx(62.0))
    assert card_search.card_size([_reading(UNKNOWN, _rect(0, 0, 10, 10))]) is None


def test_misfits_are_readings_of_the_wrong_size_or_far_from_square():
    skewed = [[0, 0], [44, 0], [74, 63], [30, 63]]  # a parallelogram: corners ~25° off square
    rs = [_reading("tempura", _rect(100, 100, 44, 63)), _reading("sashimi", _rect(300, 100, 63, 44)),
          _reading("pudding", _rect(500, 100, 30, 63)), _reading("wasabi", skewed),
          _reading(UNKNOWN, _rect(700, 100, 10, 10))]
    assert card_search.misfits(rs, (44.0, 63.0)) == [2, 3]


def test_a_textured_table_gives_no_table_estimate_and_a_plain_one_shows_the_card():
    rng = np.random.default_rng(0)
    noise = rng.integers(0, 256, (300, 400, 3), dtype=np.uint8)  # finer than any smoothing evens out
    assert card_search.differs_from_table(noise, (4.0, 6.0)) is None
    plain = np.full((300, 400, 3), 120, np.uint8)
    plain[100:163, 150:194] = (40, 200, 230)
    d = card_search.differs_from_table(plain, (44.0, 63.0))
    assert d is not None and d[131, 172] and not d[20, 20]


def test_leftover_blobs_are_found_with_more_components_than_16_bit_labels_hold():
    # 76 800 one-pixel specks (more than 65 535 labels) and one card-sized blob: the specks are
    # noise under BLOB_MIN, the blob is a region, whichever label type OpenCV was asked for.
    differs = np.zeros((480, 640), bool)
    differs[::2, ::2] = True
    differs[100:189, 202:261] = True  # one px clear of the specks (every other row and column)
    regions = card_search.leftover_regions(np.zeros((480, 640, 3), np.uint8), [], [], (60.0, 86.0), differs)
    assert len(regions) == 1 and regions[0].source == "blob"
    pts = regions[0].points
    assert pts[:, 0].min() == 202 and pts[:, 0].max() == 260 and pts[:, 1].min() == 100 and pts[:, 1].max() == 188


def test_leftover_blobs_are_labelled_on_the_reduced_mask_as_on_the_full_size_one():
    # "Differs from the table" is enlarged from a reduced mask; its blobs are labelled on that
    # mask. Each blob's points are pixels of the full-size mask, with the hull and pixel count of
    # its component there (a 4 × 4 block per reduced px: a blob's corner px are under the 4 000
    # points a region keeps at most).
    rng = np.random.default_rng(3)
    img = np.full((960, 1280, 3), 120, np.uint8)
    img[100:190, 200:262] = (40, 200, 230)  # a card-sized patch
    img[300:340, 420:470] = (200, 60, 60)  # a smaller one
    img = np.clip(img + rng.normal(0, 2, img.shape), 0, 255).astype(np.uint8)
    differs = card_search.differs_from_table(img, (60.0, 86.0))
    assert differs is not None
    assert card_search._reduced(differs) is not None  # the reduced path is the one taken ...
    assert card_search._reduced(differs.copy()) is None  # ... and a copy carries no reduced mask
    with pytest.raises(ValueError):
        differs[0, 0] = True  # read-only: an edit in place cannot leave the reduced mask stale
    regions = sorted(card_search.leftover_regions(img, [], [], (60.0, 86.0), differs), key=lambda g: g.area)
    n, labels = cv2.connectedComponents(differs.astype(np.uint8), connectivity=8)
    comps = sorted((np.column_stack(np.nonzero(labels == b)[::-1]).astype(np.float32) for b in range(1, n)), key=len)
    assert len(regions) == len(comps) == 2
    for r, pix in zip(regions, comps):
        p = r.points.astype(int)
        assert differs[p[:, 1], p[:, 0]].all()  # pixels of the blob
        assert r.area == len(pix)
        assert np.array_equal(np.sort(cv2.convexHull(r.points).reshape(-1, 2), axis=0),
                              np.sort(cv2.convexHull(pix).reshape(-1, 2), axis=0))
    # A mask made otherwise (here a copy) is labelled at full size, as before.
    assert [g.area for g in sorted(card_search.leftover_regions(img, [], [], (60.0, 86.0), differs.copy()),
                                   key=lambda g: g.area)] == [r.area for r in regions]


def test_windows_between_the_coarse_grid_are_read_only_near_a_promising_one(monkeypatch):
    # A region's 5 × 5 grid of windows: the coarse ones (even row and column) are always read; a
    # window between them only if a read neighbour comes within COARSE_SLACK of becoming a seed,
    # or no neighbour was read. The scores are made up per window; the reader's own are not needed.
    from types import SimpleNamespace

    deck = SimpleNamespace(threshold=0.7)
    cut = deck.threshold - card_search.SEED_MARGIN - card_search.COARSE_SLACK
    cells = [(0, 0, r, c) for r in range(-2, 3) for c in range(-2, 3)]
    score = {cell: cut - 0.2 for cell in cells}  # the table's print: nowhere near a card
    score[(0, 0, 0, 2)] = cut + 0.05  # a card's window's edge, promising
    quads = np.zeros((len(cells), 4, 2))
    quads[:, 0, 0] = np.arange(len(cells))  # each window known by its index
    asked = []

    def fake_scores(image, deck, q):
        asked.extend(int(i) for i in q[:, 0, 0])
        return np.array([score[cells[int(i)]] for i in q[:, 0, 0]])

    monkeypatch.setattr(card_search, "_score_quads", fake_scores)
    got = card_search._coarse_first(np.zeros((8, 8, 3), np.uint8), deck, quads, cells)
    read = {cells[i] for i in asked}
    assert len(asked) == len(read)  # no window read twice
    assert {cell for cell in cells if cell[2] % 2 == 0 and cell[3] % 2 == 0} <= read
    # The windows next to the promising one are read, the rest between the coarse ones are not.
    assert {(0, 0, -1, 1), (0, 0, 0, 1), (0, 0, 1, 1), (0, 0, -1, 2), (0, 0, 1, 2)} <= read
    assert (0, 0, -1, -1) not in read and (0, 0, 1, -2) not in read
    assert all(np.isinf(got[i]) for i, cell in enumerate(cells) if cell not in read)
    assert got[cells.index((0, 0, 0, 2))] == cut + 0.05

    # Windows none of whose neighbours are in the grid (they left the photo) are read.
    asked.clear()
    two = quads[[cells.index((0, 0, 1, 1)), cells.index((0, 0, -1, 1))]]
    got = card_search._coarse_first(np.zeros((8, 8, 3), np.uint8), deck, two, [(0, 0, 1, 1), (0, 0, 1, 3)])
    assert len(asked) == 2 and np.isfinite(got).all()


@pytest.mark.parametrize("style", ["flat", "illustrated"])
def test_the_screen_estimates_the_quick_score_within_its_margin(monkeypatch, style):
    # The window search scores its windows by a cheap estimate of the deck's quick score in its place
    # (block means of the patch, companion.vision.window_screen). On drawn cards, windows near them
    # (moved by up to a third of a card, turned by up to 12°) and windows on the bare table, the
    # estimate is within SCREEN_MARGIN of the score itself, and every card's own window is a seed by
    # the estimate.
    import cv2

    from companion.sim.record import enroll_sim_deck
    from companion.vision.window_screen import SCREEN_MARGIN, Screen

    monkeypatch.setattr(synth, "draw_card_face", lambda label, width: faces.draw_card_face(label, width, style=style))
    img, truth = synth.table_scene(LABELS, "wood", 11)
    deck = illustrated_deck() if style == "illustrated" else enroll_sim_deck(style=style)
    rects = [cv2.minAreaRect(np.asarray(q, np.float32).reshape(-1, 1, 2)) for _, q in truth]
    cw = float(np.median([min(r[1]) for r in rects]))
    rng = np.random.default_rng(0)
    windows = [r for r in rects]
    for (x, y), wh, a in rects:
        for _ in range(6):
            dx, dy = rng.uniform(-cw / 3, cw / 3, 2)
            windows.append(((x + dx, y + dy), wh, a + rng.uniform(-12, 12)))
    h, w = img.shape[:2]
    for _ in range(60):
        windows.append(((rng.uniform(cw, w - cw), rng.uniform(cw, h - cw)), rects[0][1], rng.uniform(0, 180)))
    corners = np.stack([cv2.boxPoints(r) for r in windows]).astype(np.float32)
    full = card_search._score_quads(img, deck, corners)
    est = Screen(img, deck, cw).scores(corners)
    assert np.abs(full - est).max() <= SCREEN_MARGIN
    cut = deck.threshold - card_search.SEED_MARGIN
    assert np.all(full[est < cut - SCREEN_MARGIN] < cut)
    assert np.all(est[:len(rects)] >= cut)
    assert np.all(full[:len(rects)] >= cut)


def test_the_quick_score_is_classify_quads_score():
    # _score_quads reads the windows without a Classification each: the same scores.
    import cv2

    from companion.vision.deck import classify_quads

    deck = illustrated_deck()
    img, truth = synth.table_scene(LABELS[:6], "plain", 3)
    quads = [q for _, q in truth] + [cv2.boxPoints(((300.0, 300.0), (80.0, 114.0), 20.0))]
    want = [r.score for r in classify_quads(img, quads, deck, quick=True)]
    assert card_search._score_quads(img, deck, quads).tolist() == want


def test_the_screen_scores_more_windows_than_one_remap_can_take():
    # cv2.remap's maps hold at most SHRT_MAX rows (GRID_H per window): a real photo asked the screen
    # for ~800 windows at once and OpenCV refused. Scored in runs, each window's estimate is the one
    # it gets when scored alone.
    import cv2

    from companion.sim.record import enroll_sim_deck
    from companion.vision.window_screen import GRID_H, Screen

    img, truth = synth.table_scene(LABELS, "wood", 11)
    deck = enroll_sim_deck(style="flat")
    rects = [cv2.minAreaRect(np.asarray(q, np.float32).reshape(-1, 1, 2)) for _, q in truth]
    cw = float(np.median([min(r[1]) for r in rects]))
    rng = np.random.default_rng(3)
    h, w = img.shape[:2]
    n = 32767 // GRID_H + 40
    windows = [((rng.uniform(cw, w - cw), rng.uniform(cw, h - cw)), rects[0][1], rng.uniform(0, 180)) for _ in range(n)]
    corners = np.stack([cv2.boxPoints(r) for r in windows]).astype(np.float32)
    screen = Screen(img, deck, cw)
    est = screen.scores(corners)
    assert est.shape == (n,) and np.isfinite(est).all()
    for i in (0, n // 2, n - 1):
        assert est[i] == pytest.approx(screen.scores(corners[i:i + 1])[0], abs=1e-5)


def test_window_corners_in_one_batch_are_opencvs_box_points_bit_for_bit():
    import cv2

    rng = np.random.default_rng(11)
    rects = [((float(x), float(y)), (float(w), float(w * 1.43)), float(a))
             for x, y, w, a in zip(rng.uniform(-20, 1300, 400), rng.uniform(-20, 1000, 400),
                                   rng.uniform(30, 200, 400), rng.uniform(-30, 200, 400))]
    rects += [((640.0, 480.0), (60.0, 86.0), a) for a in (0.0, 90.0, 180.0, -45.0, 4.0, 0.6)]
    got = card_search._quads(rects)
    assert got.dtype == np.float32 and got.shape == (len(rects), 4, 2)
    for r, q in zip(rects, got):
        assert np.array_equal(q, cv2.boxPoints(r))
    assert card_search._quads([]).shape == (0, 4, 2)
    # The (N, 5) array form gives the same corners.
    arr = np.array([(x, y, w, h, a) for (x, y), (w, h), a in rects])
    assert np.array_equal(card_search._quads(arr), got)


def test_window_grid_arrays_are_the_windows_and_cells():
    # The window search lays its windows as arrays; _windows gives the same ones as tuples, and
    # each window's cell is its place on the region's grid: rows and columns one step apart.
    rng = np.random.default_rng(4)
    pts = (rng.uniform(0, 300, (200, 2)) + [400, 300]).astype(np.float32)
    region = card_search.Region(pts, 300.0 * 300.0, "blob")
    rects, cells = card_search._window_grid(region, (44.0, 63.0))
    windows, cell_tuples = card_search._windows(region, (44.0, 63.0))
    assert rects.shape == (len(windows), 5) and cells.shape == (len(windows), 3)
    assert windows == [((x, y), (w, h), a) for x, y, w, h, a in rects.tolist()]
    assert cell_tuples == [tuple(c) for c in cells.tolist()]
    assert set(cells[:, 0].tolist()) == {0, 1}  # both turns
    assert np.allclose(rects[:, 2:4], [44.0, 63.0])
    for turn in (0, 1):
        r, c = rects[cells[:, 0] == turn], cells[cells[:, 0] == turn]
        step = np.hypot(*(r[1, :2] - r[0, :2]))  # neighbours along the first row
        assert np.allclose(np.hypot(*(r[:, :2] - r[0, :2]).T) / step,
                           np.hypot(*(c[:, 1:] - c[0, 1:]).T), atol=1e-6)


def test_a_part_within_a_named_card_is_not_searched_but_a_part_showing_beside_one_is():
    # A named card 60 × 86 px at (200, 200). Its own art panel (wholly inside, one corner a px
    # out where the card's corner is rounded) is that card's print; a part half under it (a card
    # lying beside it, partly covered) and a part elsewhere are searched.
    named = [_reading("tempura", _rect(200, 200, 60, 86))]
    panel = np.float32(_rect(200, 196, 50, 66)) + np.float32([[-5, -14], [0, 0], [0, 0], [0, 0]])
    half_under = np.float32(_rect(230, 200, 44, 60))
    elsewhere = np.float32(_rect(400, 200, 44, 60))
    # A small part wholly on the named card by its edge: it may be the print of a card lying over
    # that edge, found from it alone, and is searched.
    fragment = np.float32(_rect(222, 200, 12, 30))
    regions = card_search.leftover_regions(np.zeros((400, 600, 3), np.uint8), named,
                                           [panel, half_under, elsewhere, fragment], (60.0, 86.0), None)
    kept = [r.points.mean(axis=0).round().tolist() for r in regions if r.source == "part"]
    assert kept == [[230.0, 200.0], [400.0, 200.0], [222.0, 200.0]]
    # With no card named there is nothing a part could lie within.
    assert len(card_search.leftover_regions(np.zeros((400, 600, 3), np.uint8), [_reading(UNKNOWN, _rect(200, 200, 60, 86))],
                                            [panel], (60.0, 86.0), None)) == 2


def test_a_found_window_on_a_named_card_is_turned_down_and_one_beside_it_is_not():
    taken = [np.float32(_rect(200, 200, 60, 86))]
    area = 60.0 * 86.0
    assert card_search._on_taken(np.float32(_rect(205, 203, 60, 86)), taken, area)  # the named card again
    # Beside it, 10 px over its edge: a sixth of a card, under OVERLAP_MAX (a fifth).
    assert not card_search._on_taken(np.float32(_rect(250, 200, 60, 86)), taken, area)
    assert not card_search._on_taken(np.float32(_rect(205, 203, 60, 86)), [], area)


def test_a_named_cards_own_panel_is_not_searched_and_the_cards_only_the_search_finds_still_are(
        illustrated_scene, monkeypatch):
    # The egg nigiris' panels are parts the search reads the eggs from (no outline gives them).
    # Each card the first stage names is given a part of its own too (its middle, as a card's art
    # panel is): those are left out of the search, and every egg is still found.
    import companion.vision.cards as cards

    img, truth = illustrated_scene(["egg_nigiri"] * 4 + ["pudding", "chopsticks", "squid_nigiri", "maki_3"], "wood", 45)
    deck = illustrated_deck()
    real = cards.classify_groups

    def with_panels(frame, groups, deck_, refused=None):
        readings, unread = real(frame, groups, deck_, refused)
        own = [np.float32((np.asarray(r.quad, np.float32) - r.quad.mean(axis=0)) * 0.75 + r.quad.mean(axis=0))
               for r in readings if r.label != UNKNOWN]
        return readings, list(unread) + own

    seen = []
    search = card_search.search_cards

    def spy(image, deck_, readings, regions, card_wh, differs=None, near=None):
        found = search(image, deck_, readings, regions, card_wh, differs, near=near)
        seen.append(([r for r in regions if r.source == "part"], readings, found))
        return found

    monkeypatch.setattr(cards, "classify_groups", with_panels)
    monkeypatch.setattr(card_search, "search_cards", spy)
    right, wrong, invented = _score(read_cards(img, deck), truth)
    assert right == len(truth) and not wrong and not invented
    parts, readings, found = seen[-1]
    named = [np.asarray(r.quad, np.float32) for r in readings if r.label != UNKNOWN]
    assert named and parts
    for p in parts:  # no part searched lies in a named card
        assert not any(cv2.pointPolygonTest(q.reshape(-1, 1, 2), tuple(map(float, p.points.mean(axis=0))), False) >= 0
                       for q in named)
    assert sum(f.label == "egg_nigiri" for f in found) >= 1  # cards only the search finds


def _cover_ill_17():
    """Stop 43's drawn mat scene ``cover_ill`` 17 (``bench/mat_touching.py``): the 4-player mat's
    tableaux and, by each corner marker, a card A and a card B lying over A's far part, illustrated,
    1280 × 960 (a :class:`companion.sim.table.Frame`)."""
    from companion.sim.table import Placement, layout_tableaux, render_table
    from companion.vision.mat_layout import load_mat_layout

    layout = load_mat_layout(4)
    rng = np.random.default_rng(3017)
    places = layout_tableaux(layout, [[LABELS[(s * 5 + i) % 12] for i in range(5)] for s in range(4)], rng=rng)
    extra = [("sashimi", (107.553, 45.0), 81.003), ("sashimi", (139.586, 59.924), 100.408),
             ("maki_3", (731.183, 45.0), 38.450), ("tempura", (688.701, 50.609), 152.516),
             ("maki_2", (727.889, 549.0), 70.078), ("sashimi", (691.858, 568.221), 39.864),
             ("squid_nigiri", (97.952, 549.0), 10.362), ("salmon_nigiri", (137.546, 534.317), 151.485)]
    return render_table(layout, list(places) + [Placement(lb, c, a) for lb, c, a in extra], size=(1280, 960),
                        rng=rng, style="illustrated")


def test_a_card_of_a_pile_read_on_a_window_lying_across_its_turn_is_not_named_another_card():
    # cover_ill 17 again: by marker 3 a salmon nigiri (turned 151°, about 30° off the mat's axes)
    # lies on a squid nigiri laid upright against the marker. Their pixels and the marker's make
    # one region, turned as the mat is, so the window search's windows lie upright over the
    # salmon nigiri; the best, half on its art and half on the squid's edge and the mat, read
    # "sashimi" 0.65 (the bar 0.64; "salmon_nigiri" 0.59 there). Its own window turned about 30°
    # and climbed reads "salmon_nigiri" better: no other card's name may be given there, and no
    # card on the mat may be named as another.
    frame = _cover_ill_17()
    obs = read_cards(frame.image, illustrated_deck())
    label, quad = frame.cards[-1]  # the last placed card, drawn last
    assert label == "salmon_nigiri"
    near = [o.label for o in obs if np.hypot(*(np.mean(o.quad, axis=0) - quad.mean(axis=0))) < 15]
    assert all(lb in ("salmon_nigiri", UNKNOWN) for lb in near), near  # main: ["sashimi"]
    pairs, _ = synth.match_truth(obs, frame.cards, 15.0)
    wrong = [(lb, o.label) for lb, _, o in pairs if o is not None and o.label not in (lb, UNKNOWN)]
    assert not wrong, wrong


def test_a_reading_contested_by_a_window_turned_the_other_way_over_it_is_not_named(monkeypatch):
    # Stop 43's drawn mat scene (cover_ill 17, _cover_ill_17): the window search's seed spacing (0.35 card widths,
    # blind to a window's turn) kept a window lying sideways over the tableau chopsticks and its
    # wasabi neighbour and dropped the chopsticks' own upright window; read in full, the sideways
    # one named "sashimi" (0.65-0.76). The search's best window turned the other way over it,
    # climbed and snapped, reads another label better there: nothing is named at that place.
    # Since stop 44 `_contested` also holds `_turned_rival`'s check, so this spy no longer tells the two
    # guards apart (the review switched `_turned_rival` off: the test still passes on the older guard).
    frame = _cover_ill_17()
    refused = []
    contested = card_search._contested

    def spy(image, deck, reading, quad, *rest):
        out = contested(image, deck, reading, quad, *rest)
        if out:
            refused.append((reading.label, quad.mean(axis=0)))
        return out

    monkeypatch.setattr(card_search, "_contested", spy)
    obs = read_cards(frame.image, illustrated_deck())
    (chopsticks,) = [np.mean(q, axis=0) for lb, q in frame.cards if lb == "chopsticks"]
    near = [o.label for o in obs if np.hypot(*(np.mean(o.quad, axis=0) - chopsticks)) < 15]
    assert all(lb in ("chopsticks", UNKNOWN) for lb in near), near  # main: ["sashimi"]
    assert any(lb == "sashimi" and np.hypot(*(c - chopsticks)) < 40 for lb, c in refused)


def test_the_screen_left_without_a_label_scores_the_best_of_the_others():
    # Screen.scores(without=l) leaves label l out of the best-of-labels maximum (both ways up): on
    # each window it is the full estimate where l was not the best label, never above it, and on a
    # window of an l card's own face it falls well below the full estimate (stop 48's second climb).
    from companion.vision.window_screen import Screen

    deck = illustrated_deck()
    face = faces.draw_card_face("chopsticks", 220, style="illustrated")
    h, w = face.shape[:2]
    image = np.full((h + 200, w + 200, 3), (200, 205, 210), np.uint8)
    image[100:100 + h, 100:100 + w] = face
    quad = np.float32([[100, 100], [100 + w, 100], [100 + w, 100 + h], [100, 100 + h]])
    shifted = [quad + np.float32([dx, dy]) for dx, dy in ((0, 0), (40, 0), (0, 60), (-70, -30), (90, 90))]
    screen = Screen(image, deck, float(w))
    full = screen.scores(np.stack(shifted))
    li = deck.labels.index("chopsticks")
    without = screen.scores(np.stack(shifted), without=li)
    assert np.all(without <= full + 1e-9)
    assert full[0] > 0.8 and without[0] < full[0] - 0.2  # its own label carried the full estimate
    other = deck.labels.index("sashimi")
    assert np.allclose(screen.scores(quad[None], without=other), full[0])  # not the best: unchanged


def test_a_covered_chopsticks_read_sashimi_on_a_window_across_it_is_not_named_sashimi():
    # bench/mat_touching.py --sets cover_ill --seed 6402, scene 0: by marker 0 a chopsticks (turned
    # 58°) lies partly under a second card. The window search's best window there lies 15 px off the
    # chopsticks and some 60° across it, half on the red band (which the illustrated sashimi's slab
    # resembles) and half on the mat: main names it "sashimi" 0.69. Every turn of that window
    # climbed on all labels comes back to "sashimi"; climbed on the other labels' looks from a grid
    # about it, it reaches the chopsticks' own place (read "chopsticks" 0.96): nothing is named
    # there but the chopsticks.
    from benches import load_bench

    mt = load_bench("mat_touching")
    _, image, truth = next(mt.cover_scenes("illustrated", "t", 1, seed=6402))
    obs = read_cards(image, illustrated_deck())
    (chop,) = [q.mean(axis=0) for lb, q in truth if lb == "chopsticks" and np.hypot(*(q.mean(axis=0) - (1111, 133))) < 10]
    near = [o.label for o in obs if np.hypot(*(np.mean(o.quad, axis=0) - chop)) < 30]
    assert "sashimi" not in near, near  # main: ["sashimi"]
    pairs, extra = synth.match_truth(obs, truth, 15.0)
    wrong = [(lb, o.label) for lb, _, o in pairs if o is not None and o.label not in (lb, UNKNOWN)]
    assert not wrong, wrong


def test_a_right_reading_in_a_pile_is_not_refused_by_the_card_lying_over_it():
    # pile48's review, its adversarial pile scene 13707: by marker 2 a pudding lies 2-8 mm off the
    # marker with an egg nigiri 22-40 mm off it, turned 10-40° from it and over it. Main reads the
    # pudding right (0.784). The second climb on the other labels' looks wandered 0.68 of a card onto
    # the egg nigiri (0.936, not yet named), so the pudding was refused and the egg nigiri, over the
    # refused place by more than OVERLAP_MAX, could not be named either. A rival that ends beyond the
    # grid's reach (RIVAL_REACH) is another card, not the reading's place read otherwise.
    import math

    from benches import load_bench

    from companion.sim.table import Placement
    from companion.vision.mat_layout import load_mat_layout

    mt = load_bench("mat_touching")
    groups = [["maki_1", "maki_2", "maki_3"], ["egg_nigiri", "salmon_nigiri", "squid_nigiri"],
              ["chopsticks", "sashimi"], ["tempura", "sashimi"], ["pudding", "wasabi"]]
    groups = [[g for g in grp if g in mt.CARDS] for grp in groups]
    layout = load_mat_layout(4)
    seed = 13707
    rng = np.random.default_rng(seed)
    extra = []
    for mi in range(4):
        gap, a, d = float(rng.uniform(2, 8)), float(rng.uniform(0, 180)), mt.DIRS[mi][int(rng.integers(0, 3))]
        if rng.random() < 0.7:
            grp = groups[int(rng.integers(0, len(groups)))]
            la, lb = [grp[int(k)] for k in rng.integers(0, len(grp), 2)]
        else:
            la, lb = mt.CARDS[int(rng.integers(0, 12))], mt.CARDS[int(rng.integers(0, 12))]
        card_a = mt.beside(layout, mi, la, gap, a, d)
        t, r = math.radians(d + rng.uniform(-40, 40)), rng.uniform(22, 40)
        centre = (card_a.center_mm[0] + r * math.cos(t), card_a.center_mm[1] + r * math.sin(t))
        turn = float(rng.uniform(10, 40)) * (1 if rng.random() < 0.5 else -1)
        extra += [card_a, Placement(lb, centre, a + turn)]
    frame = mt.mat_frame(extra, "illustrated", seed=(seed, 0), tableaux=mt.random_tableaux((seed, 1)))
    (pudding,) = [q.mean(axis=0) for lb, q in frame.cards
                  if lb == "pudding" and np.hypot(*(q.mean(axis=0) - (1029, 765))) < 40]
    obs = read_cards(frame.image, illustrated_deck())
    near = [o.label for o in obs if np.hypot(*(np.mean(o.quad, axis=0) - pudding)) < 15]
    assert near == ["pudding"], near  # the branch before the review's fix: [] (refused)
    pairs, _ = synth.match_truth(obs, frame.cards, 15.0)
    wrong = [(lb, o.label) for lb, _, o in pairs if o is not None and o.label not in (lb, UNKNOWN)]
    assert not wrong, wrong



def _nothing_named_near(obs, truth, xy, radius: float = 30.0):
    """No reading within ``radius`` px of ``xy`` (px) is named, and no true card is given another's name."""
    near = [o.label for o in obs if np.hypot(*(np.mean(o.quad, axis=0) - xy)) < radius]
    assert all(lb == UNKNOWN for lb in near), near
    pairs, _ = synth.match_truth(obs, truth, 15.0)
    wrong = [(lb, o.label) for lb, _, o in pairs if o is not None and o.label not in (lb, UNKNOWN)]
    assert not wrong, wrong

def test_a_layout_search_window_over_the_wood_beyond_the_mat_is_not_named():
    # bench/mat_touching.py --sets cover_ill (default scenes), scene 12: above marker 1 (top right)
    # the layout search's window lies 0.6 of it over the wood beyond the mat's edge; main names it
    # "squid_nigiri" (pile49). The mat's edge lies 45 mm beyond each marker's centre: a window
    # mostly beyond it names nothing, and no card of the scene lies more than a tenth off the mat.
    from itertools import islice

    from benches import load_bench

    mt = load_bench("mat_touching")
    _, image, truth = next(islice(mt.cover_scenes("illustrated", "t", 13), 12, None))
    wood = np.array([[1086, 27], [1156, 27], [1156, 117], [1086, 117]], np.float64)
    sides = [np.linalg.norm(q - np.roll(q, -1, axis=0), axis=1) for _, q in truth]
    wh = (float(np.median([min(s[0], s[1]) for s in sides])), float(np.median([max(s[0], s[1]) for s in sides])))
    obs = read_cards(image, illustrated_deck())
    _nothing_named_near(obs, truth, (1121, 72))  # main: ["squid_nigiri"]
    assert card_search._off_mat(image, wood, wh) > card_search.OFF_MAT_MAX
    assert max(card_search._off_mat(image, np.float64(q), wh) for _, q in truth) < 0.2


def test_a_window_off_the_mat_is_judged_by_the_markers_seen_near_it_only():
    # A mat corner marker (the top-left one: its mat edges lie 45 mm left of and above its centre)
    # drawn upright: a window wholly left of that edge is off the mat, one beside it on the mat is
    # not; the same off-mat window with the marker beyond OFF_MAT_PAD card lengths, or with no
    # marker (a loose scene, a real photo), is judged off nothing.
    from companion.vision.mat import _aruco_dictionary
    from companion.vision.mat_layout import load_mat_layout

    layout = load_mat_layout(2)
    edges = card_search._mat_edges()
    mid = next(k for k, e in edges.items() if np.isfinite(e[0]) and np.isfinite(e[2]) and not np.isfinite(e[1]))
    card = (60.0, 85.0)
    side = int(round(card_search._marker_detector()[1] * card[0]))  # the marker's side, px
    marker = cv2.aruco.generateImageMarker(_aruco_dictionary(cv2, layout.aruco_dictionary), mid, side)
    image = np.full((700, 900, 3), 230, np.uint8)
    c = (450, 350)
    image[c[1] - side // 2:c[1] - side // 2 + side, c[0] - side // 2:c[0] - side // 2 + side] = marker[..., None]
    px_mm = side / edges[mid][4]
    edge_x = c[0] + edges[mid][0] * px_mm  # the mat's left edge, px
    off = np.array([[edge_x - 70, 300], [edge_x - 10, 300], [edge_x - 10, 385], [edge_x - 70, 385]], np.float64)
    on = off + (150.0, 60.0)
    assert card_search._off_mat(image, off, card) > 0.9
    assert card_search._off_mat(image, on, card) == 0.0
    assert card_search._off_mat(image, off - (0.0, 500.0), card) == 0.0
    blank = np.full_like(image, 230)
    assert card_search._off_mat(blank, off, card) == 0.0


def test_the_wood_beyond_the_mat_is_not_named_by_the_window_search():
    # bench/mat_touching.py --sets adj_ill2 --seed 6650 (pile49's review), scene 25: above marker 1
    # (top right) the window search's window lies 0.83 of it beyond the mat's edge, over the wood;
    # main names it "tempura" 1.000.
    from itertools import islice

    from benches import load_bench

    mt = load_bench("mat_touching")
    gaps, angles = (0, 0.5, 2, 5, 8, -1, -3), (10, 25, 40, 55, 70, 85)
    _, image, truth = next(islice(mt.adj_scenes(gaps, angles, "illustrated", "t", seed=6650), 25, None))
    obs = read_cards(image, illustrated_deck())
    _nothing_named_near(obs, truth, (1194, 44))  # main: ["tempura"]
