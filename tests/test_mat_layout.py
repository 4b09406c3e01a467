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
