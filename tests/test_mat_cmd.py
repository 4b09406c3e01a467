"""``companion mat``: writes a PNG of the right size with DPI metadata; bad paths exit 2."""

from __future__ import annotations

import struct

import cv2

from companion.cli import main


def test_writes_png_of_the_right_size(tmp_path, capsys):
    out = tmp_path / "mat.png"
    assert main(["mat", "--players", "3", "--out", str(out), "--dpi", "50"]) == 0
    img = cv2.imread(str(out))
    # 840 x 594 mm at 50 dpi
    assert img.shape == (round(594 / 25.4 * 50), round(840 / 25.4 * 50), 3)
    text = capsys.readouterr().out
    assert "840 x 594 mm" in text and f"{img.shape[1]} x {img.shape[0]} px" in text
    data = out.read_bytes()
    i = data.index(b"pHYs")
    x, y, unit = struct.unpack(">IIB", data[i + 4 : i + 13])
    assert unit == 1 and x == y == round(50 / 25.4 * 1000)


def test_missing_folder_exits_2(tmp_path, capsys):
    assert main(["mat", "--players", "2", "--out", str(tmp_path / "nope" / "mat.png"), "--dpi", "50"]) == 2
    assert "does not exist" in capsys.readouterr().err


def test_not_png_exits_2(tmp_path, capsys):
    assert main(["mat", "--players", "2", "--out", str(tmp_path / "mat.jpg"), "--dpi", "50"]) == 2
    assert ".png" in capsys.readouterr().err


def test_bad_dpi_exits_2(tmp_path, capsys):
    assert main(["mat", "--players", "2", "--out", str(tmp_path / "mat.png"), "--dpi", "0"]) == 2
    assert "--dpi" in capsys.readouterr().err


def test_the_sushi_roll_mat_prints_with_markers_the_tracker_finds(tmp_path, capsys):
    """#10: ``companion mat --game sushi-roll`` — the same markers, found on the printed image."""
    from companion.vision.mat import MatTracker
    from companion.vision.mat_layout import load_mat_layout

    out = tmp_path / "roll.png"
    assert main(["mat", "--game", "sushi-roll", "--players", "4", "--out", str(out), "--dpi", "60"]) == 0
    assert "sushi-roll-4p" in capsys.readouterr().out
    img = cv2.imread(str(out))
    status = MatTracker(load_mat_layout(4, game="sushi-roll")).update(img)
    assert status.found and status.homography is not None
