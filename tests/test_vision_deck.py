"""Enrolment and single-card classification against our drawn sim faces."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from companion.rules.cards import UNKNOWN, VISION_LABELS
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
    assert again.lookalikes() == deck.lookalikes()
    with np.load(path) as z:
        fields = {k: z[k] for k in z.files if k not in ("fine", "fine_label")}
    old = tmp_path / "old.npz"
    np.savez(old, **fields)
    assert Deck.load(old).lookalikes() == []


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
    cv2.imwrite(str(grey), np.zeros((5, 7), np.uint8))
    assert read_image(grey).shape == (5, 7, 3)
