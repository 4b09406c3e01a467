"""Mat layout data files: every seat count loads, zones sit inside the mat and never overlap."""

import pytest

from companion.vision.mat_layout import MatLayoutError, load_mat_layout


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_layouts_are_consistent(players):
    mat = load_mat_layout(players)
    assert mat.players == players and len(mat.zones) == players
    for z in mat.zones:
        x, y, w, h = z.rect_mm
        assert 0 <= x and x + w <= mat.width_mm and 0 <= y and y + h <= mat.height_mm
        # a zone must hold at least one row of cards
        assert min(w, h) >= mat.card_mm[1]
    for a in mat.zones:
        for b in mat.zones:
            if a.seat < b.seat:
                ax, ay, aw, ah = a.rect_mm
                bx, by, bw, bh = b.rect_mm
                assert ax + aw <= bx or bx + bw <= ax or ay + ah <= by or by + bh <= ay, (a, b)
    # no zone covers a marker
    for m in mat.markers:
        assert mat.zone_at(*m.center_mm) is None


def test_bad_player_count_is_named():
    with pytest.raises(MatLayoutError, match="players must be 2 to 5"):
        load_mat_layout(7)


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_sushi_roll_mats_give_each_seat_a_belt_nearer_the_middle_and_a_tray(players):
    """#10: a Sushi Roll mat has a conveyor belt and a tray per seat (sushi-roll.txt, SET UP), the
    belt on the side of the middle of the table, the tray on the player's side, wide enough for the
    dice a belt holds."""
    from companion.rules.sushi_roll.state import DICE_PER_BELT

    mat = load_mat_layout(players, game="sushi-roll")
    assert mat.game == "sushi-roll" and len(mat.zones) == 2 * players
    middle = mat.height_mm / 2
    for seat in range(players):
        belt, tray = mat.zone_of(seat, "belt"), mat.zone_of(seat, "tray")
        assert belt.facing == tray.facing
        centre = lambda z: z.rect_mm[1] + z.rect_mm[3] / 2  # noqa: E731
        assert abs(centre(belt) - middle) < abs(centre(tray) - middle)
        assert belt.rect_mm[2] >= DICE_PER_BELT[players] * 25  # a die is ~16 mm; room to lay them apart
        assert min(belt.rect_mm[3], tray.rect_mm[3]) >= 40
    zones = mat.zones
    for i, a in enumerate(zones):
        x, y, w, h = a.rect_mm
        assert 0 <= x and x + w <= mat.width_mm and 0 <= y and y + h <= mat.height_mm
        for b in zones[i + 1:]:
            bx, by, bw, bh = b.rect_mm
            assert x + w <= bx or bx + bw <= x or y + h <= by or by + bh <= y, (a, b)
    for m in mat.markers:
        assert mat.zone_at(*m.center_mm) is None


def test_a_mat_for_another_game_or_with_a_seat_missing_its_tray_is_refused(tmp_path):
    with pytest.raises(MatLayoutError, match="no mats for the game 'sushi-express'"):
        load_mat_layout(3, game="sushi-express")
    text = (load_mat_layout.__globals__["mat_path"](3, "sushi-roll")).read_text()
    broken = tmp_path / "broken.toml"
    cut = text.index('[[zones]]\nseat = 2\nname = "Seat 3 tray"')
    broken.write_text(text[:cut])
    with pytest.raises(MatLayoutError, match="each with its belt and tray zone"):
        load_mat_layout(path=broken)
    with pytest.raises(KeyError):
        load_mat_layout(3).zone_of(0, "belt")
