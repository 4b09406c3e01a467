"""The pixel budget and working sizes of the image readers (issue #7 "Bad input", issue #14 item 1).

A huge image is refused from its header, before anything is decoded; an accepted large image is
read reduced, and positions still come back in the image's own px.
"""

from __future__ import annotations

import json
import struct
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.cli import main
from companion.vision import imageio
from companion.vision.imageio import (
    MAX_PIXELS,
    ImageReadError,
    ImageTooLargeError,
    check_image_file,
    read_image,
    read_working,
    shrink_note,
    to_original_px,
    working_copy,
)
from test_vision_synth import card_photo, sim_deck, table_scene

DECK = Path(__file__).parent / "fixtures" / "sim-deck.npz"


@pytest.fixture(scope="module")
def huge_png(tmp_path_factory) -> Path:
    """30000 × 30000 grey, all zero: 0.9 MB on disk, 2.7 GB decoded as BGR (issue #14's crash)."""
    p = tmp_path_factory.mktemp("huge") / "huge.png"
    assert cv2.imwrite(str(p), np.zeros((30000, 30000), np.uint8))
    assert p.stat().st_size < 1_000_000
    return p


@pytest.fixture
def no_decoding(monkeypatch):
    def refuse(*_a, **_k):
        raise AssertionError("an image that should be refused from its header was decoded")

    monkeypatch.setattr(imageio.cv2, "imdecode", refuse)
    monkeypatch.setattr(imageio.cv2, "imread", refuse)


# ------------------------------------------------------------------ the budget, from the header
def test_huge_png_is_refused_from_its_header(huge_png, no_decoding):
    with pytest.raises(ImageTooLargeError) as info:
        read_image(huge_png)
    exc = info.value
    assert (exc.width, exc.height, exc.budget) == (30000, 30000, MAX_PIXELS)
    assert isinstance(exc, ImageReadError)
    assert "huge.png" in str(exc) and "30000×30000" in str(exc) and "50 MP" in str(exc)
    with pytest.raises(ImageTooLargeError):
        read_working(huge_png, 2048)


@pytest.mark.parametrize("command", [["classify"], ["read", "cards"]])
def test_cli_refuses_huge_image_exit_2_and_reads_the_others(command, huge_png, tmp_path, capsys):
    good = tmp_path / "good.png"
    cv2.imwrite(str(good), card_photo("maki_2", seed=3, bg="plain"))
    capsys.readouterr()
    rc = main([*command, "--deck", str(DECK), "--json", str(huge_png), str(good)])
    cap = capsys.readouterr()
    assert rc == 2
    assert cap.err.startswith("companion: error: ") and "huge.png" in cap.err and "30000×30000" in cap.err
    assert "Traceback" not in cap.err
    bad_row, good_row = json.loads(cap.out)
    assert bad_row["image"] == str(huge_png) and "50 MP" in bad_row["error"]
    assert "error" not in good_row


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="peak memory is read from Linux's /proc")
@pytest.mark.parametrize("command", [["classify"], ["read", "cards"]])
def test_cli_on_huge_png_stays_small_in_memory(command, huge_png):
    """Before: classify died with SIGSEGV at 5.2 GB, read cards took 8.7 GB (issue #14)."""
    # VmHWM is this process's own peak: getrusage's ru_maxrss would carry over the peak of the
    # pytest process it was forked from (Linux keeps it across exec).
    code = (
        "import re, sys\n"
        "from companion.cli import main\n"
        f"rc = main({[*command, '--deck', str(DECK), str(huge_png)]!r})\n"
        "hwm = re.search(r'VmHWM:\\s+(\\d+)', open('/proc/self/status').read()).group(1)\n"
        "print(rc, hwm)\n"
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert res.returncode == 0, res.stderr
    rc, peak_kb = map(int, res.stdout.split()[-2:])
    assert rc == 2
    assert peak_kb < 400_000  # the decoded image alone would be 2.7 GB
    assert "30000×30000" in res.stderr and "Traceback" not in res.stderr


def _png(w: int, h: int) -> bytes:
    return b"\x89PNG\r\n\x1a\n" + struct.pack(">I4sIIBBBBB", 13, b"IHDR", w, h, 8, 2, 0, 0, 0) + b"\0" * 4


def _jpeg(w: int, h: int) -> bytes:
    exif = b"Exif\0\0" + b"\0" * 64  # an APP1 segment before the frame header must be skipped
    return (b"\xff\xd8" + b"\xff\xe1" + struct.pack(">H", len(exif) + 2) + exif
            + b"\xff\xc2" + struct.pack(">HBHHB", 17, 8, h, w, 3) + b"\0" * 9)


def _tiff(w: int, h: int, order: str) -> bytes:
    e = "<" if order == "II" else ">"
    entries = [(256, 4, 1, w), (257, 3, 1, h)]
    body = struct.pack(e + "H", len(entries))
    for tag, typ, count, value in entries:
        raw = struct.pack(e + ("I" if typ == 4 else "H"), value).ljust(4, b"\0")
        body += struct.pack(e + "HHI", tag, typ, count) + raw
    return order.encode() + struct.pack(e + "HI", 42, 8) + body + b"\0\0\0\0"


HEADERS = {
    "png": lambda w, h: _png(w, h),
    "jpeg": lambda w, h: _jpeg(w, h),
    "bmp": lambda w, h: b"BM" + b"\0" * 12 + struct.pack("<Iii", 40, w, -h) + b"\0" * 28,
    "tiff-le": lambda w, h: _tiff(w, h, "II"),
    "tiff-be": lambda w, h: _tiff(w, h, "MM"),
    "webp": lambda w, h: b"RIFF\0\0\0\0WEBPVP8X" + struct.pack("<I", 10) + b"\0" * 4
    + (w - 1).to_bytes(3, "little") + (h - 1).to_bytes(3, "little"),
    "pnm": lambda w, h: f"P6\n# a comment\n{w} {h}\n255\n".encode(),
    "gif": lambda w, h: b"GIF89a" + struct.pack("<HH", w, h) + b"\0" * 3,
}


@pytest.mark.parametrize("fmt", list(HEADERS))
def test_every_format_is_sized_from_its_header(fmt, tmp_path, no_decoding):
    """Header-only files: a size over budget is refused, one under it is measured (no pixels at all
    follow, so nothing could have been decoded)."""
    big = tmp_path / f"big.{fmt}"
    big.write_bytes(HEADERS[fmt](30000, 20000))
    with pytest.raises(ImageTooLargeError) as info:
        check_image_file(big)
    assert (info.value.width, info.value.height) == (30000, 20000)
    # A 48 MP phone photo; a GIF (never a camera's) at most 25 MP: its decoder needs 12 B/px.
    size = (5000, 5000) if fmt == "gif" else (8000, 6000)
    phone = tmp_path / f"phone.{fmt}"
    phone.write_bytes(HEADERS[fmt](*size))
    assert check_image_file(phone)[1:] == size


def test_a_50_megapixel_sensor_fits_and_one_pixel_more_does_not(tmp_path):
    ok = tmp_path / "ok.png"
    ok.write_bytes(_png(8160, 6120))  # 49.9 MP
    assert check_image_file(ok)[1:] == (8160, 6120)
    over = tmp_path / "over.png"
    over.write_bytes(_png(MAX_PIXELS + 1, 1))
    with pytest.raises(ImageTooLargeError):
        check_image_file(over)


def test_unknown_format_and_truncated_header_are_refused_before_decoding(tmp_path, no_decoding):
    (tmp_path / "a.hdr").write_bytes(b"#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y 30000 +X 30000\n")
    with pytest.raises(ImageReadError, match="unknown or unsupported format"):
        read_image(tmp_path / "a.hdr")
    (tmp_path / "cut.png").write_bytes(_png(10, 10)[:18])
    with pytest.raises(ImageReadError, match="truncated header"):
        read_image(tmp_path / "cut.png")
    (tmp_path / "dnl.jpg").write_bytes(_jpeg(640, 0))  # height left to a DNL marker
    with pytest.raises(ImageReadError, match="no width and height"):
        read_image(tmp_path / "dnl.jpg")


def test_file_much_bigger_than_its_image_is_refused(tmp_path, no_decoding):
    p = tmp_path / "padded.png"
    p.write_bytes(_png(10, 10) + b"\0" * (17 << 20))
    with pytest.raises(ImageReadError, match="more than a 10×10 image can need"):
        read_image(p)


# ------------------------------------------------------------------ working size
def test_working_copy_maps_points_back_to_original_px():
    img = np.zeros((3000, 4000), np.uint8)
    img[1200:1260, 2500:2540] = 255  # centre (2519.5, 1229.5)
    small, scale = working_copy(img, 1000)
    assert small.shape == (750, 1000) and scale == pytest.approx(0.25)
    m = cv2.moments(small.astype(np.float32))
    centre = to_original_px(np.array([m["m10"] / m["m00"], m["m01"] / m["m00"]]), scale)
    assert np.allclose(centre, [2519.5, 1229.5], atol=0.5)
    same, one = working_copy(img[:800, :900], 1000)
    assert one == 1.0 and same.shape == (800, 900)


def test_jpeg_is_decoded_reduced(tmp_path, monkeypatch):
    p = tmp_path / "big.jpg"
    cv2.imwrite(str(p), np.full((3000, 4000, 3), 128, np.uint8))
    flags = []
    real = cv2.imread
    monkeypatch.setattr(imageio.cv2, "imread", lambda path, f: flags.append(f) or real(path, f))
    work = read_working(p, 1000)
    # 1/2 leaves 2000 ≥ 1000, 1/4 leaves exactly 1000: the smaller decode is taken.
    assert flags == [cv2.IMREAD_REDUCED_COLOR_4]
    assert work.image.shape == (750, 1000, 3) and work.original_size == (4000, 3000) and work.shrunk


def test_exif_rotated_jpeg_keeps_the_turned_layout(tmp_path):
    img = np.zeros((3000, 4000, 3), np.uint8)
    img[:, :400] = 255  # a white band down the left side, as stored
    data = cv2.imencode(".jpg", img)[1].tobytes()
    tiff = b"II*\0" + struct.pack("<IHHHIHHI", 8, 1, 0x0112, 3, 1, 6, 0, 0)  # Orientation 6: turn 90° clockwise
    app1 = b"Exif\0\0" + tiff
    p = tmp_path / "turned.jpg"
    p.write_bytes(data[:2] + b"\xff\xe1" + struct.pack(">H", len(app1) + 2) + app1 + data[2:])
    work = read_working(p, 1000)
    assert work.original_size == (3000, 4000) and work.image.shape == (1000, 750, 3)
    assert work.image[:50].mean() > 250 and work.image[-50:].mean() < 5  # the band is now on top
    assert work.note("turned.jpg") == "turned.jpg: 3000×4000 read at 750×1000"


def test_shrink_note():
    assert shrink_note("big.png", (9000, 12000, 3), (1536, 2048, 3)) == "big.png: 12000×9000 read at 2048×1536"


def test_read_cards_on_a_4000_by_3000_photo_reports_original_px(tmp_path, capsys):
    labels = ["maki_1", "salmon_nigiri", "wasabi", "back"]
    img, truth = table_scene(labels, "plain", seed=11)
    k = 4000 / 1280
    big = cv2.resize(img, (4000, 3000), interpolation=cv2.INTER_CUBIC)
    p = tmp_path / "big.png"
    cv2.imwrite(str(p), big)
    capsys.readouterr()
    assert main(["read", "cards", "--deck", str(DECK), "--json", str(p)]) == 0
    cap = capsys.readouterr()
    assert f"companion: note: {p}: 4000×3000 read at 2048×1536" in cap.err
    (row,) = json.loads(cap.out)
    found = {c["label"]: np.array(c["quad"]) for c in row["cards"]}
    assert sorted(found) == sorted(labels)
    for label, q in truth:
        expected = (q + 0.5) * k - 0.5  # the truth's corners in the enlarged photo
        assert np.abs(found[label] - expected).max() < 12.0  # a card is ~250 px wide here


def test_classify_image_reads_a_large_image_and_gives_its_quad_in_its_own_px():
    from companion.vision.deck import CLASSIFY_MAX_SIDE, classify_image

    img = card_photo("tempura", seed=2, size=1100, bg="plain")
    assert max(img.shape[:2]) > CLASSIFY_MAX_SIDE
    c = classify_image(img, sim_deck())
    assert c.label == "tempura"
    side = img.shape[0]
    assert np.allclose(c.quad.mean(axis=0), side / 2, atol=0.06 * 1100)
    long_side = max(np.linalg.norm(c.quad[i] - c.quad[(i + 1) % 4]) for i in range(4))
    assert long_side == pytest.approx(1100 * 63 / 44, rel=0.08)


def test_classify_cli_notes_the_shrink(tmp_path, capsys):
    p = tmp_path / "card.jpg"
    cv2.imwrite(str(p), card_photo("egg_nigiri", seed=4, size=1100, bg="plain"))
    h, w = cv2.imread(str(p)).shape[:2]
    capsys.readouterr()
    assert main(["classify", "--deck", str(DECK), "--json", str(p)]) == 0
    cap = capsys.readouterr()
    assert json.loads(cap.out)[0]["label"] == "egg_nigiri"
    s = 1280 / max(h, w)
    assert f"companion: note: {p}: {w}×{h} read at {round(w * s)}×{round(h * s)}" in cap.err
