"""hardware/README.md's generated tables are current, and what they compute is right.

The expected values here come from the Raspberry Pi pinout documentation and from working the
pinhole geometry by hand, not from the scripts' own output.
"""

from __future__ import annotations

import math
import shutil
import sys
from pathlib import Path

import pytest

HARDWARE = Path(__file__).resolve().parents[1] / "hardware"
sys.path.insert(0, str(HARDWARE))
import mount  # noqa: E402
import wiring  # noqa: E402

from companion.devices.pinout import GROUND_PINS, HEADER_PIN, load_pinout  # noqa: E402


def test_the_readme_wiring_table_is_current():
    assert wiring.main(["--check"]) == 0, "run: python hardware/wiring.py"


def test_the_readme_mount_tables_are_current():
    assert mount.main(["--check"]) == 0, "run: python hardware/mount.py"


def test_check_finds_a_stale_table_and_a_run_repairs_it(tmp_path, capsys):
    readme = tmp_path / "README.md"
    shutil.copy(HARDWARE / "README.md", readme)
    text = readme.read_text(encoding="utf-8")
    row = "| 12 | 32 | button ok |"
    assert row in text
    readme.write_text(text.replace(row, "| 14 | 32 | button ok |"), encoding="utf-8")
    assert wiring.main(["--check", "--readme", str(readme)]) == 1
    assert "stale" in capsys.readouterr().err
    assert wiring.main(["--readme", str(readme)]) == 0
    assert readme.read_text(encoding="utf-8") == text
    assert wiring.main(["--check", "--readme", str(readme)]) == 0


def test_a_readme_without_markers_is_a_named_failure(tmp_path, capsys):
    readme = tmp_path / "README.md"
    readme.write_text("# Hardware\n", encoding="utf-8")
    assert mount.main(["--check", "--readme", str(readme)]) == 2
    assert "BEGIN mount" in capsys.readouterr().err


def test_the_wiring_table_has_every_role_at_its_header_pin():
    pinout = load_pinout(HARDWARE / "pinout.toml")
    table = wiring.wiring_table(pinout)
    for gpio, role in pinout.roles().items():
        assert f"| {gpio} | {HEADER_PIN[gpio]} | {role} |" in table
    for gpio in pinout.reserved:
        assert f"| {gpio} | {HEADER_PIN[gpio]} | reserved |" in table
    assert "2E8A:0005" in table and "/dev/ttyACM0" in table


def test_header_map_matches_the_raspberry_pi_pinout():
    # Raspberry Pi documentation, "GPIO and the 40-pin header"
    assert (HEADER_PIN[2], HEADER_PIN[3], HEADER_PIN[4]) == (3, 5, 7)
    assert (HEADER_PIN[14], HEADER_PIN[15], HEADER_PIN[18]) == (8, 10, 12)
    assert (HEADER_PIN[0], HEADER_PIN[1]) == (27, 28)
    assert (HEADER_PIN[17], HEADER_PIN[26], HEADER_PIN[21]) == (11, 37, 40)
    assert sorted(HEADER_PIN) == list(range(28))
    assert len(set(HEADER_PIN.values())) == 28
    assert set(HEADER_PIN.values()).isdisjoint(GROUND_PINS)
    assert set(HEADER_PIN.values()) | set(GROUND_PINS) | {1, 2, 4, 17} == set(range(1, 41))


def test_the_mat_sizes_card_and_die_come_from_the_repository():
    sizes = {(w, h) for _, w, h, _ in mount.mats()}
    assert sizes == {(840, 594), (1000, 700)}
    assert {card for *_, card in mount.mats()} == {63}
    assert mount.die_size_mm() == 16


def _row(camera_prefix: str, mode_prefix: str, width: float) -> "mount.Mount":
    return next(
        m
        for m in mount.all_mounts()
        if m.camera.name.startswith(camera_prefix) and m.mode.startswith(mode_prefix) and m.mat.endswith(
            "5p" if width == 1000 else "4p"
        )
    )


def test_camera_module_3_over_the_4_player_mat_by_hand():
    # 16:9 sensor 6.4512 x 3.6288 mm, f 4.74 mm; the mat plus 25 mm each side is 890 x 644 mm,
    # and 644/890 > 9/16, so the short side limits: h = 644 mm * f / sensor height
    m = _row("Camera Module 3 (", "4608", 840)
    assert m.height_mm == pytest.approx(644 * 4.74 / 3.6288, rel=1e-3)
    assert m.px_per_mm == pytest.approx(2592 / 644, rel=1e-3)
    assert m.die_px == pytest.approx(16 * 2592 / 644, rel=1e-3) and m.ok
    binned = _row("Camera Module 3 (", "2304", 840)
    assert binned.die_px == pytest.approx(16 * 1296 / 644, rel=1e-3) and not binned.ok
    wide = _row("Camera Module 3 Wide", "4608", 840)
    assert wide.height_mm == pytest.approx(644 * 2.75 / 3.6288, rel=1e-3)


def test_hq_camera_with_6mm_lens_by_hand():
    # 4:3 sensor 6.2868 x 4.712 mm; 890/644 > 4/3, so the long side limits: h = 890 * 6 / 6.2868
    m = _row("HQ", "2028", 840)
    assert m.height_mm == pytest.approx(890 * 6 / 6.2868, rel=1e-3)
    assert m.px_per_mm == pytest.approx(2028 / 890, rel=1e-3)
    assert m.card_px == pytest.approx(63 * 2028 / 890, rel=1e-3)
    assert m.die_px < 40  # the binned stream the app uses today falls short for dice


def test_webcam_fov_from_its_diagonal_and_its_limit():
    cam = next(c for c in mount.CAMERAS if "webcam" in c.name)
    h, v, d = cam.fov_deg()
    assert d == pytest.approx(78, abs=0.01)
    assert (h, v) == (pytest.approx(70.4, abs=0.1), pytest.approx(43.3, abs=0.1))  # Logitech's published figures
    m = _row("1080p", "1920", 1000)
    assert m.px_per_mm == pytest.approx(1080 / 750, rel=1e-3) and not m.ok


@pytest.mark.parametrize(("prefix", "documented_h"), [("Camera Module 3 (", 66), ("Camera Module 3 Wide", 102)])
def test_computed_fields_of_view_agree_with_the_datasheet(prefix, documented_h):
    cam = next(c for c in mount.CAMERAS if c.name.startswith(prefix))
    assert cam.fov_deg()[0] == pytest.approx(documented_h, abs=3)


def test_glare_distance_is_the_specular_geometry():
    # a lamp level with the lens mirrors at half its distance: it must be twice the half-extent away
    assert mount.glare_distance_mm(300, 800, 800) == pytest.approx(600)
    # a lamp on the table top mirrors where it stands
    assert mount.glare_distance_mm(300, 800, 0) == pytest.approx(300)
    # mirror point x = d h / (h + H) lands exactly on the edge
    d = mount.glare_distance_mm(322, 841, 300)
    assert d * 841 / (841 + 300) == pytest.approx(322)
    assert math.isclose(d, 322 * 1141 / 841)


def test_glare_rows_cover_every_camera_and_an_hq_row_by_hand():
    rows = [line for line in mount.tables().splitlines() if line.startswith("| 840×594 | ")]
    for cam in mount.CAMERAS:
        assert sum(f"| {cam.name} (" in r for r in rows) == len(mount.LAMP_HEIGHTS_MM), cam.name
    # HQ + 6 mm over the 4-player mat: h = 890 * 6 / 6.2868 = 849.40 mm (the 4:3 sensor's long
    # side limits, as above). A lamp 300 mm up, beside the long side, must mirror beyond the
    # short axis' half extent 594/2 + 25 = 322 mm: d = 322 * (849.40 + 300) / 849.40 = 435.7 mm;
    # at the ends, half extent 840/2 + 25 = 445 mm: d = 445 * 1149.40 / 849.40 = 602.2 mm.
    hq = next(r for r in rows if "| HQ Camera + 6 mm lens (849 mm) | 300 |" in r)
    across, along = (float(x) for x in hq.strip("|").split("|")[3:5])
    assert across == pytest.approx(435.7, abs=0.5)
    assert along == pytest.approx(602.2, abs=0.5)
