"""Issue #14, the image and deck half of "one input layer": items 1 (images: layouts, bit depths,
what a decoder may hold), 4 (a degenerate image is one image's error, the batch goes on) and 8
(DECK.npz and DICE.npz checked against their schema before any array is read).

Each test is named after its item. Peak memory is not asserted here (it would depend on the
machine): ``bench/vision_inputs.py`` measures it on the worst cases.
"""

from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
import zipfile
import zlib
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.cli import main
from companion.sim.faces import draw_card_face
from companion.vision import imageio
from companion.vision.deck import MAX_EXAMPLES, Deck, DeckError, EnrollError, enroll_folder, enroll_images
from companion.vision.imageio import (
    DegenerateImageError, ImageReadError, ImageTooLargeError, check_image_file, read_image, read_working,
)
from test_vision_synth import card_photo

FIXTURES = Path(__file__).parent / "fixtures"
DECK = FIXTURES / "sim-deck.npz"
LOOKALIKE_DECK = FIXTURES / "sushi-go-illustrated-3p" / "deck.npz"  # has fine, fine_label
D6_PHOTO = FIXTURES / "dice" / "d6_0.jpg"


@pytest.fixture
def no_decoding(monkeypatch):
    def refuse(*_a, **_k):
        raise AssertionError("an image that should be refused from its header was decoded")

    monkeypatch.setattr(imageio.cv2, "imdecode", refuse)
    monkeypatch.setattr(imageio.cv2, "imread", refuse)


# ------------------------------------------------------------------ item 1: layouts and decoders
def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def _png(rows: np.ndarray, colour_type: int, bit_depth: int, plte: bytes = b"") -> bytes:
    """A PNG written by hand (PNG spec §11): OpenCV writes no palette or grey + alpha images.
    ``rows``: (H, W·samples) sample values."""
    h = rows.shape[0]
    w = rows.shape[1] // {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[colour_type]
    dtype = ">u2" if bit_depth == 16 else np.uint8
    raw = b"".join(b"\0" + r.astype(dtype).tobytes() for r in rows)
    out = _png_header(w, h, bit_depth, colour_type)
    if plte:
        out += _chunk(b"PLTE", plte)
    return out + _chunk(b"IDAT", zlib.compress(raw)) + _chunk(b"IEND", b"")


def _png_header(w: int, h: int, bit_depth: int, colour_type: int) -> bytes:
    """A PNG's signature and IHDR alone (no pixels)."""
    return b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, bit_depth, colour_type, 0, 0, 0))


def _tiff_header(w: int, h: int, samples: int, bits: int, sample_format: int = 1) -> bytes:
    """A little-endian TIFF whose first IFD gives size, samples, bits and sample format (no pixels)."""
    entries = [(256, 4, 1, w), (257, 4, 1, h), (258, 3, 1, bits), (277, 3, 1, samples), (339, 3, 1, sample_format)]
    body = struct.pack("<H", len(entries))
    for tag, typ, count, value in entries:
        body += struct.pack("<HHI", tag, typ, count) + struct.pack("<I" if typ == 4 else "<H", value).ljust(4, b"\0")
    return b"II*\0" + struct.pack("<I", 8) + body + b"\0\0\0\0"


def _jpeg_header(w: int, h: int, progressive: bool, sampling: tuple[int, ...]) -> bytes:
    """SOI and a frame header (SOF2 progressive or SOF0 baseline) with one component per
    ``sampling`` byte (Hᵢ·16 + Vᵢ); no scan data."""
    comps = b"".join(struct.pack(">BBB", i + 1, s, 0) for i, s in enumerate(sampling))
    sof = struct.pack(">BHHB", 8, h, w, len(sampling)) + comps
    return b"\xff\xd8" + (b"\xff\xc2" if progressive else b"\xff\xc0") + struct.pack(">H", len(sof) + 2) + sof


def test_item1_a_layout_whose_decoder_needs_more_memory_gets_fewer_pixels(tmp_path, no_decoding):
    """OpenCV's TIFF and GIF decoders and libjpeg's progressive mode hold more than the 8-bit BGR
    result: 48 MP of them would take a command past 512 MB (bench/vision_inputs.py). A 48 MP
    phone photo as baseline JPEG or 16-bit PNG still fits."""
    w, h = 8000, 6000
    too_costly = {
        "rgba16.tif": _tiff_header(w, h, 4, 16),
        "prog444.jpg": _jpeg_header(w, h, True, (0x11, 0x11, 0x11)),
        "screen.gif": b"GIF89a" + struct.pack("<HH", w, h) + b"\0" * 3,
    }
    for name, data in too_costly.items():
        (tmp_path / name).write_bytes(data)
        with pytest.raises(ImageTooLargeError) as info:
            check_image_file(tmp_path / name)
        assert (info.value.width, info.value.height) == (w, h) and info.value.budget < 48_000_000
        assert name in str(info.value) and "save it as PNG or JPEG" in str(info.value)
    fits = {
        "phone.jpg": _jpeg_header(w, h, False, (0x22, 0x11, 0x11)),
        "phone420.jpg": _jpeg_header(w, h, True, (0x22, 0x11, 0x11)),  # progressive 4:2:0: 1.5 coefficients/px
        "deep.png": _png_header(w, h, 16, 6),  # 16-bit RGBA
        "rgb8.tif": _tiff_header(w, h, 3, 8),
    }
    for name, data in fits.items():
        (tmp_path / name).write_bytes(data)
    assert check_image_file(tmp_path / "phone.jpg")[1:] == (w, h)
    assert check_image_file(tmp_path / "phone420.jpg")[1:] == (w, h)
    assert check_image_file(tmp_path / "rgb8.tif")[1:] == (w, h)
    assert check_image_file(tmp_path / "deep.png") == ("PNG", w, h)


def test_item1_floating_point_images_are_refused_by_name(tmp_path, no_decoding):
    """A PFM is decoded by OpenCV into 8 bits by saturation: radiances of 0..1 become a black
    picture that was then read as a table with nothing on it."""
    pfm = tmp_path / "radiance.pfm"
    pfm.write_bytes(b"PF\n40 30\n-1.0\n" + np.full((30, 40, 3), 0.5, "<f4").tobytes())
    tif = tmp_path / "float.tif"
    tif.write_bytes(_tiff_header(40, 30, 3, 32, sample_format=3))
    for p in (pfm, tif):
        with pytest.raises(ImageReadError, match="floating-point") as info:
            read_working(p, 1280)
        assert str(p) in str(info.value)


def test_item1_every_layout_and_bit_depth_comes_back_as_8_bit_bgr(tmp_path):
    """Grey, grey + alpha, palette, RGBA and 16-bit files all give (H, W, 3) uint8 BGR with the
    colour the file holds (a regression guard: the readers rely on this one layout)."""
    h, w = 24, 32
    red16 = np.tile(np.array([65535, 0, 0], np.uint16), (h, w))  # RGB
    files = {
        "grey8.png": (_png(np.full((h, w), 200), 0, 8), (200, 200, 200)),
        "grey16.png": (_png(np.full((h, w), 0x8000), 0, 16), (128, 128, 128)),
        "grey_alpha16.png": (_png(np.tile(np.array([0x4000, 0xFFFF]), (h, w)), 4, 16), (64, 64, 64)),
        "palette.png": (_png(np.ones((h, w)), 3, 8, plte=bytes([0, 0, 0, 10, 200, 30])), (30, 200, 10)),
        "red16.png": (_png(red16, 2, 16), (0, 0, 255)),
        "rgba.png": (_png(np.tile(np.array([0, 0, 255, 0]), (h, w)), 6, 8), (255, 0, 0)),  # blue, fully transparent
    }
    for name, (data, bgr) in files.items():
        (tmp_path / name).write_bytes(data)
        for img in (read_image(tmp_path / name), read_working(tmp_path / name, 1280).image):
            assert img.shape == (h, w, 3) and img.dtype == np.uint8, name
            assert tuple(int(v) for v in img[h // 2, w // 2]) == bgr, name
    tiff = tmp_path / "rgba16.tif"
    cv2.imwrite(str(tiff), np.tile(np.array([0, 65535, 0, 65535], np.uint16), (h, w, 1)))  # BGRA: green
    assert tuple(int(v) for v in read_image(tiff)[0, 0]) == (0, 255, 0)


def _blocked(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are a POSIX thing")
@pytest.mark.parametrize("command", [["classify"], ["read", "cards"], ["read", "dice", "--kind", "d6"]])
def test_item1_a_named_pipe_given_as_an_image_is_refused_not_waited_on(tmp_path, command):
    """open() on a named pipe waits for a writer: the command hung. Now only regular files are
    read; the pipe is named and the other image still read. (A subprocess, so a hang fails the
    test by its timeout instead of stopping the run.)"""
    fifo = tmp_path / "frame.png"
    os.mkfifo(fifo)
    good = tmp_path / "good.png"
    cv2.imwrite(str(good), card_photo("tempura", seed=5, bg="plain"))
    deck = [] if "dice" in command else ["--deck", str(DECK)]
    args = [*command, *deck, "--json", str(fifo), str(good)]
    res = _blocked(f"from companion.cli import main; raise SystemExit(main({args!r}))")
    assert res.returncode == 2, res.stderr
    assert f"{fifo}: not a regular file" in res.stderr and "Traceback" not in res.stderr
    bad_row, good_row = json.loads(res.stdout)
    assert bad_row["error"].startswith("not a regular file") and "error" not in good_row


# ------------------------------------------------------------------ item 4: degenerate images
@pytest.mark.parametrize("command", [["classify"], ["read", "cards"], ["read", "dice", "--kind", "d6"]])
def test_item4_a_thin_image_is_its_own_error_and_the_batch_goes_on(tmp_path, capsys, command):
    """[good, 1 × 100000 strip, good, one pixel]: both good images are read, the others are named
    errors (too thin, too small) and the exit status says some failed. Before: the strip and the
    pixel were read as pictures of nothing, exit 0."""
    if "dice" in command:
        good1 = good2 = D6_PHOTO
    else:
        good1, good2 = tmp_path / "good1.png", tmp_path / "good2.png"
        cv2.imwrite(str(good1), card_photo("maki_2", seed=3, bg="plain"))
        cv2.imwrite(str(good2), card_photo("tempura", seed=4, bg="plain"))
    thin, pixel = tmp_path / "thin.png", tmp_path / "pixel.png"
    cv2.imwrite(str(thin), np.full((1, 100_000, 3), 128, np.uint8))
    cv2.imwrite(str(pixel), np.zeros((1, 1, 3), np.uint8))
    deck = [] if "dice" in command else ["--deck", str(DECK)]
    capsys.readouterr()
    rc = main([*command, *deck, "--json", str(good1), str(thin), str(good2), str(pixel)])
    cap = capsys.readouterr()
    assert rc == 2
    rows = json.loads(cap.out)
    assert [r["image"] for r in rows] == [str(good1), str(thin), str(good2), str(pixel)]
    assert "too thin" in rows[1]["error"] and "100000×1" in rows[1]["error"]
    assert "too small" in rows[3]["error"]
    for good in (rows[0], rows[2]):
        assert "error" not in good
    if command == ["classify"]:
        assert (rows[0]["label"], rows[2]["label"]) == ("maki_2", "tempura")
    elif "dice" in command:
        assert rows[0]["dice"] and rows[0]["dice"] == rows[2]["dice"]
    assert f"companion: error: {thin}: image is 100000×1 px, too thin" in cap.err
    assert "Traceback" not in cap.err


def test_item4_a_strip_that_is_thin_only_at_the_working_size_is_refused_before_decoding(tmp_path, no_decoding):
    """200 × 100000 px is 4 px high once brought to a 2048 px working size."""
    strip = tmp_path / "strip.png"
    strip.write_bytes(_png_header(100_000, 200, 8, 0))
    with pytest.raises(DegenerateImageError) as info:
        read_working(strip, 2048)
    exc = info.value
    assert (exc.width, exc.height, exc.short_side, exc.min_side) == (100_000, 200, 4, 16)
    assert "strip.png" in str(exc) and "too thin" in str(exc)


def test_item4_the_card_finder_takes_a_strip_as_an_image_with_no_card():
    """A 1 × 3000 frame handed to the finder directly (not through a file) rounded to 0 rows in
    ``cards._candidates`` and raised cv2.error."""
    from companion.vision.cards import find_card_groups, read_cards

    deck = Deck.load(DECK)
    for shape in ((1, 3000, 3), (3000, 1, 3), (2, 9000, 3), (0, 5, 3)):
        strip = np.zeros(shape, np.uint8)
        assert find_card_groups(strip) == [] and read_cards(strip, deck) == []


# ------------------------------------------------------------------ item 8: decks
def _fields(path: Path = LOOKALIKE_DECK) -> dict[str, np.ndarray]:
    with np.load(path, allow_pickle=False) as z:
        return {k: z[k] for k in z.files}


@pytest.fixture
def deck_fields() -> dict[str, np.ndarray]:
    """A good deck's fields (with look-alike faces), read before :func:`no_array_read` is armed."""
    return _fields()


@pytest.fixture
def no_array_read(monkeypatch, deck_fields):
    """Fail if any array's data is read but the 0-d ``format`` string that says what kind of file
    it is (headers may be read)."""
    from companion.vision import npz_schema

    real = npz_schema.npy.read_array

    def only_the_format(*a, **k):
        arr = real(*a, **k)
        assert arr.ndim == 0 and arr.dtype.kind == "U", f"a {arr.dtype} {arr.shape} array was read"
        return arr

    monkeypatch.setattr(npz_schema.npy, "read_array", only_the_format)


def test_item8_an_unknown_member_is_refused_before_any_array_is_read(tmp_path, deck_fields, no_array_read):
    """Before: every member was read, also unknown ones (a deck plus a 2 GiB zero array, 2 MB on
    disk, took 2.1 GB)."""
    path = tmp_path / "deck.npz"
    np.savez_compressed(path, **deck_fields, junk=np.zeros(1000, np.uint8))
    with pytest.raises(DeckError) as info:
        Deck.load(path)
    assert info.value.field == "junk"
    assert str(info.value).startswith(f"{path}: field 'junk': unknown member 'junk.npy'")


def test_item8_more_templates_than_a_deck_can_hold_are_refused_from_the_header(tmp_path, deck_fields, no_array_read):
    """Before: any number of templates was read (1 GiB of them: 32 s at 6.2 GB)."""
    fields = deck_fields
    rows = 13 * MAX_EXAMPLES + 1
    fields["templates"] = np.tile(fields["templates"][:1], (rows, 1))
    fields["template_label"] = np.sort(np.arange(rows) % len(fields["labels"]))  # every label has some
    path = tmp_path / "big.npz"
    np.savez_compressed(path, **fields)
    with pytest.raises(DeckError, match=f"big.npz: field 'templates': has shape \\({rows}, 3870\\)") as info:
        Deck.load(path)
    assert info.value.field == "templates"


def test_item8_a_member_larger_than_its_header_says_is_refused(tmp_path, deck_fields, no_array_read):
    """A member whose archive entry holds more bytes than its .npy header describes (numpy read
    the header's share and ignored the rest, unchecked)."""
    path = tmp_path / "padded.npz"
    with zipfile.ZipFile(path, "w") as zf:
        for name, arr in deck_fields.items():
            with zf.open(name + ".npy", "w") as fh:
                np.lib.format.write_array(fh, arr)
                if name == "labels":
                    fh.write(b"\0" * 4096)
    with pytest.raises(DeckError, match="field 'labels': the archive declares") as info:
        Deck.load(path)
    assert info.value.field == "labels"


BROKEN = {  # issue #14 item 8's list: field → (what to store, the field the error must name)
    "empty label": ("labels", lambda f: np.array([""] + list(f["labels"][1:]))),
    "all-zero templates": ("templates", lambda f: np.zeros_like(f["templates"])),
    "NaN examples": ("examples", lambda f: np.full(f["examples"].shape, np.nan)),
    "labels stored as numbers": ("labels", lambda f: np.arange(len(f["labels"]))),
    "version as a string": ("version", lambda f: np.array("1")),
    "threshold as a string": ("threshold", lambda f: np.array(str(float(f["threshold"])))),
    "fractional patch_size": ("patch_size", lambda f: np.array([30.0, 43.5])),
    "threshold NaN": ("threshold", lambda f: np.array(np.nan)),
    "label with a control character": ("labels", lambda f: np.array(["maki\x1b[2J"] + list(f["labels"][1:]))),
    "label with a lone surrogate": ("labels", lambda f: np.array(["\ud800"] + list(f["labels"][1:]))),
    "two labels alike": ("labels", lambda f: np.array([f["labels"][1]] + list(f["labels"][1:]))),
    "NaN look-alike faces": ("fine", lambda f: np.full_like(f["fine"], np.nan)),
    "an example count of 0": ("examples", lambda f: np.zeros_like(f["examples"])),
}


@pytest.mark.parametrize("case", list(BROKEN))
def test_item8_a_broken_deck_is_refused_naming_the_file_and_the_field(tmp_path, case):
    field, make = BROKEN[case]
    fields = _fields()
    fields[field] = make(fields)
    path = tmp_path / "broken.npz"
    np.savez(path, **fields)
    with pytest.raises(DeckError) as info:
        Deck.load(path)
    assert info.value.field == field
    assert str(info.value).startswith(f"{path}: field '{field}': ")


def test_item8_the_dice_file_gets_the_same_schema(tmp_path, no_array_read):
    from companion.vision.dice_faces import DiceError, DiceSet

    path = tmp_path / "DICE.npz"
    np.savez(path, format=np.array("companion-dice"), version=np.array(1), extra=np.zeros(3))
    with pytest.raises(DiceError) as info:
        DiceSet.load(path)
    assert info.value.field == "extra" and "unknown member 'extra.npy'" in str(info.value)
    np.savez(path, format=np.array("companion-dice"), version=np.array(1),
             templates=np.zeros((17 * 128 + 1, 3 * 24 * 24), np.float32))
    with pytest.raises(DiceError, match="field 'templates': has shape"):
        DiceSet.load(path)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are a POSIX thing")
def test_item8_a_named_pipe_given_as_a_deck_is_refused_not_waited_on(tmp_path):
    fifo = tmp_path / "deck.npz"
    os.mkfifo(fifo)
    res = _blocked(f"from companion.cli import main; raise SystemExit(main(['classify', '--deck', {str(fifo)!r}, "
                   f"{str(D6_PHOTO)!r}]))")
    assert res.returncode == 2 and f"{fifo}: not a regular file" in res.stderr and "Traceback" not in res.stderr


def test_item8_enrolment_makes_only_decks_that_load(tmp_path):
    """Before: a blank picture enrolled as an all-zero template, and a folder of any number of
    pictures or a label that cannot be printed was enrolled into a deck the loader must refuse."""
    face = draw_card_face("tempura", 220)
    with pytest.raises(EnrollError, match="'blank': an example picture is blank"):
        enroll_images({"blank": [np.full((315, 220, 3), 200, np.uint8)], "tempura": [face]})
    with pytest.raises(EnrollError, match="control character"):
        enroll_images({"tempura\x07": [face], "maki": [face]})
    many = tmp_path / "many"
    for i in range(MAX_EXAMPLES + 1):  # counted before any is read: these are not even images
        (many / f"label{i % 3}").mkdir(parents=True, exist_ok=True)
        (many / f"label{i % 3}" / f"{i}.png").write_bytes(b"not read")
    with pytest.raises(EnrollError, match=f"{MAX_EXAMPLES + 1} example images; a deck is enrolled from at most"):
        enroll_folder(many)


def test_item8_a_deck_of_81_cards_from_5_photos_each_passes_the_count(tmp_path):
    """Issue #6's real deck: 81 cards, each enrolled from 5 photo crops (405 pictures). The bound
    on example pictures (first 128) refused it before a picture was read; now the count passes
    and the first picture is read (these are not images, so that is where it stops)."""
    deck = tmp_path / "symbols"
    for card in range(81):
        (deck / f"card{card:02d}").mkdir(parents=True)
        for shot in range(5):
            (deck / f"card{card:02d}" / f"{shot}.png").write_bytes(b"not an image")
    with pytest.raises(ImageReadError, match="card00/0.png: not a readable image"):
        enroll_folder(deck)
