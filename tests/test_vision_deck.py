"""Enrolment and single-card classification against our drawn sim faces."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from companion.rules.sushi_go.cards import UNKNOWN, VISION_LABELS
from companion.sim.faces import draw_card_face
from companion.vision.deck import Deck, DeckError, EnrollError, classify_image, enroll_folder, enroll_images
from companion.vision.imageio import ImageReadError, read_image
from test_vision_synth import card_photo, sim_deck

CONDITIONS = [
    dict(angle=0.0),
    dict(angle=180.0, persp=0.08),
    dict(angle=90.0, blur=1.8),
    dict(angle=None, noise=10.0),
    dict(angle=None, gain=0.45),  # dim light
    dict(angle=270.0, persp=0.08, blur=1.2, gain=0.7),
]


@pytest.mark.parametrize("label", VISION_LABELS)
def test_every_label_is_recognised_under_rotation_perspective_blur_noise_and_dim_light(label):
    deck = sim_deck()
    for i, cond in enumerate(CONDITIONS):
        c = classify_image(card_photo(label, seed=100 + i, bg="plain", **cond), deck)
        assert c.label == label, (cond, c)
        assert c.confidence > 0.5


@pytest.mark.parametrize("family", [("maki_1", "maki_2", "maki_3"), ("egg_nigiri", "salmon_nigiri", "squid_nigiri")])
def test_near_identical_cards_are_told_apart(family):
    deck = sim_deck()
    for label in family:
        for seed in range(8):
            c = classify_image(card_photo(label, seed=seed, blur=1.0, noise=6.0), deck)
            assert c.label == label, (seed, c)


def test_a_look_alike_whose_outline_has_a_corner_out_on_the_table_is_never_read_as_another():
    # An outline found with one corner out on the table (a side snapped to a wood grain line) cuts
    # the card's top-left corner, where a maki card shows its count of rolls, out of the patch or
    # squeezes it: a maki_2 or maki_3 must then read "unknown", never maki_1 (issue #6).
    from companion.sim.faces import draw_card_face as draw_styled
    from companion.sim.record import enroll_sim_deck
    from companion.vision.deck import classify_quads
    from test_vision_synth import background, paste, photometric

    deck = enroll_sim_deck(style="illustrated")
    w, h = 80.0, 80.0 * 63 / 44  # card px, about a loose scene's
    true = np.array([[80, 60], [80 + w, 60], [80 + w, 60 + h], [80, 60 + h]], np.float32)
    for label in ("maki_2", "maki_3"):
        img = background("wood", 240, 260, np.random.default_rng(1))
        paste(img, draw_styled(label, 160, style="illustrated"), true)
        img = photometric(img, np.random.default_rng(2), blur=1.0, noise=3.0, jpeg=85)
        # A corner a pixel or three off is what a found outline usually shows: still named.
        for off in ((0, 0), (-3, 3)):
            quad = true.copy()
            quad[0] += off
            assert classify_quads(img, [quad], deck)[0].label == label, (label, off)
        # 10-20 % of the card's width off: the rolls in that corner are cut or squeezed.
        for off in ((-12, 12), (-8, 16), (-16, 8), (0, 16)):
            quad = true.copy()
            quad[0] += off
            got = classify_quads(img, [quad], deck)[0].label
            assert got in (label, UNKNOWN), (label, off, got)


def _maki_2_in_a_window():
    """(deck, image, window): an illustrated deck, and a maki_2 on wood in a card-sized window a
    pixel or two off, as a tracker's can be."""
    from companion.sim.faces import draw_card_face as draw_styled
    from companion.sim.record import enroll_sim_deck
    from test_vision_synth import background, paste, photometric

    deck = enroll_sim_deck(style="illustrated")
    w, h = 80.0, 80.0 * 63 / 44
    true = np.array([[80, 60], [80 + w, 60], [80 + w, 60 + h], [80, 60 + h]], np.float32)
    img = background("wood", 240, 260, np.random.default_rng(1))
    paste(img, draw_styled("maki_2", 160, style="illustrated"), true)
    img = photometric(img, np.random.default_rng(2), blur=1.0, noise=3.0, jpeg=85)
    return deck, img, true + np.float32([1.5, -1.0])


def test_a_card_sized_window_ecc_cannot_line_up_is_still_told_from_its_look_alikes(monkeypatch):
    # The game's tracker reads windows of the card's known size (the mat's card rectangle through
    # the homography): one whose face ECC cannot grip (a pale watercolour maki in a held-out game)
    # is a face that will not align, not an outline a corner off, so the look-alikes are compared
    # over small shifts, as before the line-up rule. A found outline is left undecided.
    from companion.vision import deck as deck_mod
    from companion.vision.deck import classify_quads

    deck, img, quad = _maki_2_in_a_window()
    assert classify_quads(img, [quad], deck, card_sized=True)[0].label == "maki_2"
    monkeypatch.setattr(deck_mod.Deck, "_align", lambda self, big, label: None)  # ECC gives up
    assert classify_quads(img, [quad], deck, card_sized=True)[0].label == "maki_2"
    assert classify_quads(img, [quad], deck)[0].label == UNKNOWN


def test_a_card_sized_window_not_lined_up_is_named_only_where_both_looks_agree(monkeypatch):
    # Compared over shifts alone, a window that could not be lined up (a watercolour maki_2 in a
    # window turned 9.8°, bench/sim_games.py seed 272) once took the pattern look's maki_1, 0.081
    # over its 0.08, with the level look undecided. One look alone names nothing there.
    from companion.vision import deck as deck_mod
    from companion.vision.deck import classify_quads

    deck, img, quad = _maki_2_in_a_window()
    monkeypatch.setattr(deck_mod.Deck, "_align", lambda self, big, label: None)  # ECC gives up
    assert classify_quads(img, [quad], deck, card_sized=True)[0].label == "maki_2"  # both looks agree
    monkeypatch.setattr(deck_mod.Deck, "_by_level", lambda self, *a: -1)  # the level look undecided
    assert classify_quads(img, [quad], deck, card_sized=True)[0].label == UNKNOWN


@pytest.mark.parametrize("bg", ["dark", "felt"])
def test_cards_on_dark_and_textured_cloth_are_recognised(bg):
    # Dark title bands vanish against a dark table; the finder must still complete the card.
    deck = sim_deck()
    for i, label in enumerate(("maki_1", "maki_2", "maki_3", "egg_nigiri", "salmon_nigiri", "squid_nigiri", "tempura")):
        c = classify_image(card_photo(label, seed=200 + i, bg=bg, blur=1.0, noise=5.0), deck)
        assert c.label == label, (bg, c)


def test_tight_crop_upside_down_is_labelled_and_its_quad_starts_at_the_face_top_left():
    deck = sim_deck()
    face = draw_card_face("maki_3", 180)
    c = classify_image(cv2.rotate(face, cv2.ROTATE_180), deck)
    h, w = face.shape[:2]
    assert c.label == "maki_3"
    # The face's top-left corner is now the image's bottom-right.
    assert np.allclose(c.quad[0], [w, h], atol=1.0)


def test_a_card_that_was_never_enrolled_is_unknown():
    deck = sim_deck(exclude=("wasabi",))
    for seed in range(4):
        c = classify_image(card_photo("wasabi", seed=seed), deck)
        assert c.label == UNKNOWN, c
        assert 0.0 <= c.confidence <= 1.0


def test_a_random_drawing_is_unknown():
    deck = sim_deck()
    rng = np.random.default_rng(7)
    for _ in range(4):
        img = np.full((315, 220, 3), rng.integers(0, 255, 3), np.uint8)
        for _ in range(12):
            cv2.line(img, tuple(int(v) for v in rng.integers(0, 220, 2)), tuple(int(v) for v in rng.integers(0, 315, 2)),
                     tuple(int(v) for v in rng.integers(0, 255, 3)), int(rng.integers(3, 20)))
        assert classify_image(img, deck).label == UNKNOWN


def test_deck_round_trips_through_a_file(tmp_path):
    deck = sim_deck()
    path = tmp_path / "deck.npz"
    deck.save(path)
    again = Deck.load(path)
    assert again.labels == deck.labels
    assert again.threshold == pytest.approx(deck.threshold)
    assert np.array_equal(again.templates, deck.templates)
    c = classify_image(card_photo("squid_nigiri", seed=3), again)
    assert c.label == "squid_nigiri"


def test_look_alike_templates_round_trip_and_an_old_deck_without_them_still_loads(tmp_path):
    from companion.sim.record import enroll_sim_deck

    deck = enroll_sim_deck(style="illustrated")
    assert {frozenset(p) for p in deck.lookalikes()} >= {frozenset(("maki_1", "maki_2")),
                                                         frozenset(("maki_2", "maki_3"))}
    path = tmp_path / "deck.npz"
    deck.save(path)
    again = Deck.load(path)
    assert np.array_equal(again.fine, deck.fine) and np.array_equal(again.fine_label, deck.fine_label)
    assert np.array_equal(again.fine_mean, deck.fine_mean) and deck.fine_mean.shape == (len(deck.fine), 3)
    assert np.array_equal(again.paper, deck.paper) and deck.paper.shape == (len(deck.fine), 2)
    assert again.lookalikes() == deck.lookalikes()
    with np.load(path) as z:
        fields = {k: z[k] for k in z.files if k not in ("fine", "fine_label", "fine_mean", "marks", "paper")}
    old = tmp_path / "old.npz"
    np.savez(old, **fields)
    assert Deck.load(old).lookalikes() == []
    # A deck from before the examples' Lab means has no exposure look, and reads as before.
    with np.load(path) as z:
        fields = {k: z[k] for k in z.files if k != "fine_mean"}
    np.savez(old, **fields)
    assert Deck.load(old).fine_mean is None and Deck.load(old).lookalikes() == deck.lookalikes()
    # A deck from before the papers' colours judges no paper (stop 47, paper47), and loads.
    with np.load(path) as z:
        nopaper = {k: z[k] for k in z.files if k != "paper"}
    np.savez(old, **nopaper)
    assert Deck.load(old).paper is None and Deck.load(old).paper_stock(0) is None
    np.savez(old, **nopaper, paper=np.zeros((len(fields["fine"]) - 1, 2), np.float32))
    with pytest.raises(DeckError, match="paper"):
        Deck.load(old)
    # Means that do not go with the examples are refused, naming the field.
    for bad in (fields["fine"][:, :, 0, 0][:-1], np.full((len(fields["fine"]), 3), np.nan, np.float32)):
        np.savez(old, **fields, fine_mean=bad.astype(np.float32))
        with pytest.raises(DeckError, match="fine_mean"):
            Deck.load(old)


def test_malformed_look_alike_templates_give_a_named_error_and_change_nothing(tmp_path):
    from companion.sim.record import enroll_sim_deck

    good = tmp_path / "good.npz"
    enroll_sim_deck(style="illustrated").save(good)
    with np.load(good) as z:
        fields = {k: z[k] for k in z.files}
    tampered = tmp_path / "tampered.npz"
    for key, value in (("fine", fields["fine"][:, :, :10]), ("fine_label", fields["fine_label"] + 99),
                       ("fine", fields["fine"].astype(np.float64))):
        np.savez(tampered, **{**fields, key: value})
        with pytest.raises(DeckError, match="tampered.npz.*fine"):
            Deck.load(tampered)
    assert Deck.load(good).lookalikes()  # the good file is untouched


def test_corrupt_or_wrong_deck_files_give_a_named_error(tmp_path):
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"this is not a zip file")
    with pytest.raises(DeckError, match="bad.npz"):
        Deck.load(bad)
    with pytest.raises(DeckError, match="not found"):
        Deck.load(tmp_path / "missing.npz")
    other = tmp_path / "other.npz"
    np.savez(other, something=np.zeros(3))
    with pytest.raises(DeckError, match="other.npz"):
        Deck.load(other)
    # A real deck with a field tampered with.
    good = tmp_path / "good.npz"
    sim_deck().save(good)
    with np.load(good) as z:
        fields = {k: z[k] for k in z.files}
    fields["templates"] = fields["templates"][:, :10]
    tampered = tmp_path / "tampered.npz"
    np.savez(tampered, **fields)
    with pytest.raises(DeckError, match="templates"):
        Deck.load(tampered)
    fields["templates"] = sim_deck().templates
    fields["version"] = np.array(99)
    np.savez(tampered, **fields)
    with pytest.raises(DeckError, match="version"):
        Deck.load(tampered)


def test_enroll_folder_errors(tmp_path):
    with pytest.raises(EnrollError, match="not found"):
        enroll_folder(tmp_path / "nope")
    with pytest.raises(EnrollError, match="no label sub-folders"):
        enroll_folder(tmp_path)
    (tmp_path / "maki_1").mkdir()
    with pytest.raises(EnrollError, match="maki_1"):
        enroll_folder(tmp_path)
    (tmp_path / "maki_1" / "scan.png").write_bytes(b"\x89PNG broken")
    with pytest.raises(ImageReadError, match="scan.png"):
        enroll_folder(tmp_path)
    with pytest.raises(EnrollError, match="reserved"):
        enroll_images({"unknown": [draw_card_face("tempura")]})


def test_enrolment_crops_a_photo_with_a_margin(tmp_path):
    # Enrol from photos of each card lying on a table (card not filling the image).
    examples = {lb: [card_photo(lb, seed=50, angle=0.0, persp=0.02)] for lb in VISION_LABELS}
    deck = enroll_images(examples)
    for lb in ("maki_1", "maki_2", "egg_nigiri", "salmon_nigiri", "back"):
        assert classify_image(card_photo(lb, seed=51), deck).label == lb


def test_a_card_of_another_aspect_photographed_with_a_margin_is_cropped_to_the_card():
    from companion.vision.deck import crop_quad

    # A 57 × 89 mm card (aspect 1.56) lying at a slight turn on dark cloth, cropped with a margin:
    # the photo itself has about the 44 × 63 aspect (1.43) of a tight crop, but the card lies well
    # inside it.
    face = cv2.resize(_pip_card(2, (40, 160, 40), "diamond"), (220, 343))
    truth = np.float32([[40, 22], [257, 36], [236, 378], [19, 364]])  # turned about 4°, off centre
    m = cv2.getPerspectiveTransform(np.float32([[0, 0], [220, 0], [220, 343], [0, 343]]), truth)
    photo = np.full((395, 275, 3), (50, 42, 38), np.uint8)
    cv2.warpPerspective(face, m, (275, 395), dst=photo, borderMode=cv2.BORDER_TRANSPARENT)
    q = crop_quad(photo)
    assert np.abs(np.sort(q, axis=0) - np.sort(truth, axis=0)).max() < 4.0, q
    assert classify_image(photo, enroll_images({"two": [face], "nine": [_pip_card(9, (40, 40, 210), "circle")]})).label == "two"


def test_a_scan_with_a_frame_printed_on_the_card_is_taken_whole():
    from companion.vision.deck import crop_quad

    # A flat scan of a card whose face is a coloured panel inside a white border: the panel is
    # square and centred, as print is, so it is the card's art and not the card.
    scan = np.full((315, 220, 3), 240, np.uint8)
    cv2.rectangle(scan, (11, 10), (208, 304), (40, 120, 200), -1)
    cv2.circle(scan, (110, 157), 40, (240, 240, 240), -1)
    assert np.abs(crop_quad(scan) - np.float32([[0, 0], [220, 0], [220, 315], [0, 315]])).max() < 1.0


def test_a_malformed_white_balance_field_is_named(tmp_path):
    deck = sim_deck()
    deck.save(tmp_path / "d.npz")
    with np.load(tmp_path / "d.npz") as z:
        fields = {k: z[k] for k in z.files}
    for bad in (np.array([True, False]), np.array(1.5)):
        fields["white_balance"] = bad
        np.savez(tmp_path / "bad.npz", **fields)
        with pytest.raises(DeckError, match="white_balance"):
            Deck.load(tmp_path / "bad.npz")


def _outline_card(colour) -> np.ndarray:
    """A white card with two open diamonds drawn in a thin line of ``colour`` (BGR)."""
    img = np.full((315, 220, 3), 245, np.uint8)
    for y in (110, 205):
        cv2.polylines(img, [np.array([[110, y - 35], [170, y], [110, y + 35], [50, y]], np.int32)], True, colour, 3)
    return img


def test_a_thin_coloured_mark_keeps_its_colour_under_a_tinted_light(tmp_path, monkeypatch):
    # Two cards that differ only in the colour of a thin outline, enrolled under neutral light,
    # photographed under a cool light: red ink then looks purple, unless the colours are judged
    # against the card's own paper.
    import companion.vision.deck as deck_module

    red, purple = (45, 35, 215), (130, 40, 110)
    examples = {"red": [_outline_card(red)], "purple": [_outline_card(purple)]}
    deck = enroll_images(examples)
    cool = np.float32([1.5, 1.05, 0.65])  # B, G, R gains of a cool white balance
    seen = np.clip(cv2.GaussianBlur(_outline_card(red), (0, 0), 1.0) * cool, 0, 255).astype(np.uint8)
    assert classify_image(seen, deck).label == "red"
    # The deck records it, and a deck file without the field (enrolled before) reads as before.
    deck.save(tmp_path / "d.npz")
    assert Deck.load(tmp_path / "d.npz").balanced is True
    with np.load(tmp_path / "d.npz") as z:
        fields = {k: z[k] for k in z.files if k != "white_balance"}
    np.savez(tmp_path / "old.npz", **fields)
    assert Deck.load(tmp_path / "old.npz").balanced is False
    # Judged on raw colours, enrolment and reading alike, the same photo is not read as red (the
    # whole card calls it purple; the look-alike stage, comparing the two near-tied labels where
    # they differ, makes that "unknown").
    monkeypatch.setattr(deck_module, "white_balance", lambda p, reference=None: np.asarray(p, np.float32))
    assert classify_image(seen, enroll_images(examples)).label in ("purple", UNKNOWN)


def test_read_image_errors_name_the_file(tmp_path):
    with pytest.raises(ImageReadError, match="missing.png"):
        read_image(tmp_path / "missing.png")
    (tmp_path / "empty.jpg").write_bytes(b"")
    with pytest.raises(ImageReadError, match="empty.jpg"):
        read_image(tmp_path / "empty.jpg")
    (tmp_path / "junk.png").write_bytes(b"not an image at all")
    with pytest.raises(ImageReadError, match="junk.png"):
        read_image(tmp_path / "junk.png")
    with pytest.raises(ImageReadError, match="directory"):
        read_image(tmp_path)
    grey = tmp_path / "grey.png"
    cv2.imwrite(str(grey), np.zeros((20, 28), np.uint8))
    assert read_image(grey).shape == (20, 28, 3)


def _pip_card(count: int, colour: tuple[int, int, int], shape: str) -> np.ndarray:
    """A plain white card with ``count`` pips in two columns and the middle, like a number card of a
    real deck, and its count in the top-left corner (220 × 315 px, BGR)."""
    img = np.full((315, 220, 3), 245, np.uint8)
    cols = [(60, y) for y in (70, 130, 190, 250)] + [(160, y) for y in (70, 130, 190, 250)]
    middle = [(110, 160)] if count == 9 else [(110, 100), (110, 220)]
    for x, y in (cols + middle)[:count]:
        if shape == "diamond":
            pts = np.array([[x, y - 22], [x + 16, y], [x, y + 22], [x - 16, y]], np.int32)
            cv2.fillConvexPoly(img, pts, colour)
        elif shape == "circle":
            cv2.circle(img, (x, y), 17, colour, -1)
        else:
            cv2.fillConvexPoly(img, np.array([[x, y - 20], [x + 18, y + 16], [x - 18, y + 16]], np.int32), colour)
    cv2.putText(img, str(count), (8, 32), cv2.FONT_HERSHEY_SIMPLEX, 0.9, colour, 2)
    return img


def test_two_faces_alike_under_labels_unlike_are_told_apart_where_they_differ(monkeypatch):
    # Labels enrolled from several different faces, as the ranks of a real deck are: "nine" and
    # "ten" are unlike as a whole (their other faces differ in colour and shape), but their
    # red-diamond faces differ only in the middle pips and the index.
    red, blue, green = (40, 40, 210), (200, 90, 30), (40, 160, 40)
    examples = {"nine": [_pip_card(9, red, "diamond"), _pip_card(9, blue, "circle")],
                "ten": [_pip_card(10, red, "diamond"), _pip_card(10, green, "triangle")]}
    deck = enroll_images(examples)
    assert deck.lookalikes() == []  # not look-alikes label by label ...
    (pair, region), = deck._example_regions.items()  # ... but one pair of their faces is
    assert sorted(deck.fine_label[list(pair)]) == [0, 1]
    k = region.shape[1] / 220.0  # fine px per card px
    assert region[int(160 * k), int(110 * k)] and region[int(100 * k), int(110 * k)]  # the middle pips
    assert not region[int(250 * k), int(60 * k)]  # a corner pip both faces share

    def photo(count, seed):
        rng = np.random.default_rng(seed)
        face = cv2.GaussianBlur(_pip_card(count, red, "diamond"), (0, 0), 1.0)
        canvas = np.full((420, 340, 3), (60, 90, 120), np.uint8)
        q = np.float32([[60, 50], [280, 50], [280, 365], [60, 365]]) + rng.uniform(-8, 8, (4, 2)).astype(np.float32)
        m = cv2.getPerspectiveTransform(np.float32([[0, 0], [220, 0], [220, 315], [0, 315]]), q)
        cv2.warpPerspective(face, m, (340, 420), dst=canvas, borderMode=cv2.BORDER_TRANSPARENT)
        noisy = canvas.astype(np.float32) * rng.uniform(0.8, 1.1) + rng.normal(0, 5, canvas.shape)
        return np.clip(noisy, 0, 255).astype(np.uint8), q

    tie = np.array([0.9, 0.9], np.float32)  # the whole card cannot decide: the region must
    nine, ten = deck.labels.index("nine"), deck.labels.index("ten")
    for seed in range(3):
        img, q = photo(10, seed)
        assert deck.settle_lookalikes(img, q, tie, nine) == ten
        img, q = photo(9, seed)
        assert deck.settle_lookalikes(img, q, tie, ten) == nine
    # Without the pairs of faces, two labels that tie on the whole card are still compared where
    # their means differ (NEAR_BAND) ...
    monkeypatch.setattr(Deck, "_lookalike_examples", lambda self: {})
    img, q = photo(10, 0)
    assert enroll_images(examples).settle_lookalikes(img, q, tie, nine) == ten
    # ... and without that too there is nothing to compare: the whole-card winner stands.
    import companion.vision.deck as deck_module

    monkeypatch.setattr(deck_module, "NEAR_BAND", -1.0)
    assert enroll_images(examples).settle_lookalikes(img, q, tie, nine) == nine


def _panel_card(tint: float) -> np.ndarray:
    """A white card with a large framed panel, its inside ``tint`` of the way from paper to the
    frame's green ink (0: open), 220 × 315 px BGR."""
    img = np.full((315, 220, 3), 245, np.float32)
    ink = np.float32((60, 150, 30))
    img[60:255, 30:190] = 245 * (1 - tint) + ink * tint
    cv2.rectangle(img, (30, 60), (189, 254), ink.tolist(), 3)
    return img.astype(np.uint8)


def test_look_alikes_that_differ_by_an_even_tint_are_told_apart():
    # Two fills of one symbol, photographed small, differ by an even tint inside the same outline
    # (a striped fill whose stripes blur away). Compared zero-mean on the region alone, the tint
    # is invisible and both photos read "unknown"; judged against the whole card, each is named.
    examples = {"open": [_panel_card(0.0)], "tinted": [_panel_card(0.12)]}
    deck = enroll_images(examples)
    assert deck.lookalikes() == [("open", "tinted")]

    def photo(tint, seed):
        rng = np.random.default_rng(seed)
        face = cv2.GaussianBlur(_panel_card(tint), (0, 0), 1.0).astype(np.float32)
        canvas = np.full((420, 340, 3), (60, 50, 45), np.float32)
        q = np.float32([[60, 50], [280, 50], [280, 365], [60, 365]]) + rng.uniform(-6, 6, (4, 2)).astype(np.float32)
        m = cv2.getPerspectiveTransform(np.float32([[0, 0], [220, 0], [220, 315], [0, 315]]), q)
        cv2.warpPerspective(face, m, (340, 420), dst=canvas, borderMode=cv2.BORDER_TRANSPARENT)
        noisy = canvas * rng.uniform(0.8, 1.1) + rng.normal(0, 4, canvas.shape)
        return np.clip(noisy, 0, 255).astype(np.uint8), q

    tie = np.array([0.9, 0.9], np.float32)  # the whole card cannot decide: the region must
    for truth, tint in ((0, 0.0), (1, 0.12)):
        for seed in range(4):
            img, q = photo(tint, seed)
            for best in (0, 1):  # whichever the whole card put first
                assert deck.settle_lookalikes(img, q, tie, best) == truth, (truth, seed, best)


def test_a_card_unmixed_into_two_examples_leads_by_its_share():
    from companion.vision.deck import _unmixed_lead

    rng = np.random.default_rng(0)
    outline, tint = rng.normal(0, 1, 50).astype(np.float32), np.zeros(50, np.float32)
    tint[20:40] = -0.5
    a, b = outline, outline + tint  # open, and the same outline with an inked inside
    assert _unmixed_lead(0.4 * a, a, b) == pytest.approx(1.0, abs=1e-5)  # paler, but a's: all a
    assert _unmixed_lead(0.4 * b, a, b) == pytest.approx(-1.0, abs=1e-5)
    assert _unmixed_lead(0.5 * a + 0.5 * b, a, b) == pytest.approx(0.0, abs=1e-5)
    assert _unmixed_lead(a, a, a) == 0.0  # examples alike on the region: no lead
    assert _unmixed_lead(-a, a, b) == 0.0  # like neither (a negative share): no lead


def test_card_patches_are_each_quads_own_patch_and_none_for_no_quads():
    from companion.vision.deck import PATCH_H, PATCH_W, card_patch, card_patches

    rng = np.random.default_rng(3)
    image = cv2.GaussianBlur(rng.integers(0, 256, (300, 400, 3), dtype=np.uint8), (0, 0), 2.0)
    quads = [np.float32([[40, 30], [130, 35], [125, 160], [35, 150]]),
             np.float32([[390, 10], [395, 140], [300, 150], [290, 5]]),  # turned, reaching the border
             np.float32([[200, 200], [260, 190], [270, 290], [205, 295]])]
    together = card_patches(image, quads)
    assert together.shape == (3, PATCH_H, PATCH_W, 3) and together.dtype == np.uint8
    for q, patch in zip(quads, together):
        assert np.array_equal(patch, card_patch(image, q))  # the stacked blur leaks no row between patches
    assert card_patches(image, []).shape == (0, PATCH_H, PATCH_W, 3)


@pytest.mark.parametrize("shape", [(7, 2), (3, 330), (2, 2580), (5, 1), (4, 5, 43)])
def test_the_white_balance_paper_level_is_numpys_90th_percentile_bit_for_bit(shape):
    from companion.vision.deck import _percentile90

    rng = np.random.default_rng(sum(shape))
    # Sums of three 8-bit channels (many ties, as the patches give) and continuous values.
    for x in (rng.integers(0, 256, shape + (3,)).astype(np.float32).sum(axis=-1),
              (rng.random(shape) * 765).astype(np.float32)):
        want = np.percentile(x, 90, axis=-1)
        got = _percentile90(x)
        assert got.dtype == want.dtype and got.shape == want.shape
        assert np.array_equal(got, want)
    # Whole numbers (8-bit sums) sorted as uint16 (spd48): still numpy's percentile, bit for bit.
    whole = rng.integers(0, 766, shape).astype(np.float32)
    got = _percentile90(whole, whole=True)
    assert got.dtype == np.float32 and np.array_equal(got, np.percentile(whole, 90, axis=-1))


def test_8_bit_patches_are_balanced_as_the_same_values_in_float():
    # white_balance sorts an 8-bit card's brightness as uint16 (spd48), a float card's as float32:
    # the two must give the same paper level, so the same pixels, bit for bit (ties at the level,
    # a clipped half, a reference of other pixels).
    from companion.vision.deck import white_balance

    rng = np.random.default_rng(7)
    for trial in range(60):
        p = rng.integers(0, 256, (int(rng.integers(1, 9)), int(rng.integers(1, 45)), int(rng.integers(1, 32)), 3))
        p = p.astype(np.uint8)
        if trial % 3 == 0:
            p = (p // 50 * 50).astype(np.uint8)  # many equal brightnesses
        if trial % 4 == 0:
            p[:, : p.shape[1] // 2] = 255
        p[..., 0] //= 2  # a tint, so the gains are not all 1
        ref = p[:, ::2] if trial % 2 else None
        got = white_balance(p, ref)
        want = white_balance(p.astype(np.float32), None if ref is None else ref.astype(np.float32))
        assert got.dtype == np.float32 and np.array_equal(got, want)


def test_the_channel_maximum_is_the_largest_channel_per_pixel():
    from companion.vision.deck import _channel_max

    img = np.random.default_rng(3).integers(0, 256, (9, 7, 3), dtype=np.uint8)
    assert np.array_equal(_channel_max(img), img.max(axis=2))
    assert np.array_equal(_channel_max(img[2:8, 1:5]), img[2:8, 1:5].max(axis=2))  # a view, as a crop is
