"""Pips of one die are grouped only with pips printed alike (issue #11: a die's shadow corner, a
round dark blob next to a six, was grouped with its pips and the six read as a three)."""

from companion.vision.dice_d6 import MAX_CONTRAST_RATIO, Pip, group_pips


def _pip(x, y, contrast, d=10.5):
    return Pip(x, y, 3.14159 * (d / 2) ** 2, d, d * 0.98, 0.0, contrast, 1)


def test_a_faint_blob_beside_a_six_is_not_one_of_its_pips():
    six = [_pip(x, y, 0.68) for y in (435, 467) for x in (595, 610, 625)]
    shadow = _pip(595, 490, 0.39, d=13.0)
    groups = group_pips(six + [shadow])
    assert sorted(len(g) for g in groups) == [1, 6]
    assert [shadow] in groups


def test_pips_alike_within_the_ratio_stay_together():
    pips = [_pip(100, 100, 0.6), _pip(120, 100, 0.6 / (MAX_CONTRAST_RATIO * 0.95))]
    assert len(group_pips(pips)) == 1
