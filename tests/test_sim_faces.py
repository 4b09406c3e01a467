"""The simulator's drawn card faces: distinct, well-formed, and writable as an enrolment folder."""

from __future__ import annotations

import itertools

import cv2
import numpy as np
import pytest

from companion.rules.cards import VISION_LABELS
from companion.sim.faces import draw_card_face, write_deck_folder


@pytest.fixture(scope="module")
def faces() -> dict[str, np.ndarray]:
    return {label: draw_card_face(label, 220) for label in VISION_LABELS}


def test_shape_and_dtype(faces):
    for label, img in faces.items():
        assert img.shape == (315, 220, 3), label
        assert img.dtype == np.uint8


def test_other_widths_keep_the_aspect():
    assert draw_card_face("tempura", 44).shape == (63, 44, 3)
    assert draw_card_face("back", 660).shape == (945, 660, 3)


def test_faces_are_pairwise_distinct_even_blurred(faces):
    for a, b in itertools.combinations(VISION_LABELS, 2):
        fa = cv2.GaussianBlur(faces[a], (0, 0), 3).astype(np.float32)
        fb = cv2.GaussianBlur(faces[b], (0, 0), 3).astype(np.float32)
        assert np.abs(fa - fb).mean() > 8, (a, b)


def test_maki_share_colours_but_differ_in_the_roll_region(faces):
    m = [faces[f"maki_{n}"] for n in (1, 2, 3)]
    # Same background: the title band and caption are pixel-identical.
    for img in m[1:]:
        assert np.array_equal(img[:45], m[0][:45])
        assert np.array_equal(img[-40:], m[0][-40:])
    roll = slice(55, 275)
    for a, b in itertools.combinations(m, 2):
        assert np.abs(a[roll].astype(int) - b[roll].astype(int)).mean() > 20
    # More rolls, more dark nori.
    dark = [int((img[roll].max(axis=2) < 60).sum()) for img in m]
    assert dark[0] < dark[1] < dark[2]


def test_nigiri_share_a_background(faces):
    corners = [faces[n][150, 10] for n in ("egg_nigiri", "salmon_nigiri", "squid_nigiri")]
    assert all(np.array_equal(c, corners[0]) for c in corners)


def test_orientation_is_visible(faces):
    for label in VISION_LABELS:
        if label == "back":
            continue
        img = faces[label].astype(np.float32)
        assert np.abs(img - img[::-1, ::-1]).mean() > 20, label


def test_unknown_label_names_it_and_the_valid_ones():
    with pytest.raises(ValueError, match="'eel'.*tempura.*back"):
        draw_card_face("eel")


def test_write_deck_folder(tmp_path):
    paths = write_deck_folder(tmp_path, width_px=88, variants=2)
    dirs = sorted(p.name for p in tmp_path.iterdir())
    assert dirs == sorted(VISION_LABELS) and len(dirs) == 13
    assert len(paths) == 26
    for label in VISION_LABELS:
        img = cv2.imread(str(tmp_path / label / "scan_0.png"))
        assert img.shape == (126, 88, 3)
        assert (tmp_path / label / "scan_1.png").exists()
