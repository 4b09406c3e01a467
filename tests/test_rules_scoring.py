"""Sushi Go! scoring against the rulebooks' worked examples and tables (expected values by hand)."""

import pytest

from companion.rules.core import GAME_END, RoundScore, pick_winners
from companion.rules.ranking import SUSHI_GO_TIES, SUSHI_ROLL_TIES, award_places
from companion.rules.sushi_go.cards import Card
from companion.rules.sushi_go.scoring import (
    dumpling_points,
    final_result,
    maki_awards,
    score_puddings,
    score_round,
)
from companion.rules.sushi_go.state import Placed

C = Card


def tableau(*cards, wasabi_with=()):
    """A tableau of plain cards, plus wasabi piles carrying the given nigiri."""
    out = tuple(Placed(c, turn=1) for c in cards)
    return out + tuple(Placed(C.WASABI, 1, nigiri=n, nigiri_turn=2) for n in wasabi_with)


def points_of(score, seat, category):
    return sum(l.points for l in score.lines if l.seat == seat and l.category == category)


# --- sushi-go.txt, SUSHI ROLLS -------------------------------------------------------------------


def test_maki_worked_example_chris_jo_kerryn_meredith():
    # Chris 5, Jo 3, Kerryn 3, Meredith 2 -> 6 / 1 / 1 / 0.
    awards = maki_awards([5, 3, 3, 2], [True] * 4)
    assert {s: a.points for s, a in awards.items()} == {0: 6, 1: 1, 2: 1}
    assert awards[1].place == 2 and awards[1].tied_with == (2,)


def test_maki_tie_for_most_splits_and_removes_second_place():
    awards = maki_awards([4, 4, 3], [True] * 3)
    assert {s: a.points for s, a in awards.items()} == {0: 3, 1: 3}


def test_maki_three_way_tie_for_most_ignores_remainder():
    assert {s: a.points for s, a in maki_awards([2, 2, 2, 1], [True] * 4).items()} == {0: 2, 1: 2, 2: 2}


def test_maki_needs_at_least_one_maki_card():
    # Nobody else has maki: the only maki player is most; nobody is "second" with zero cards.
    awards = maki_awards([2, 0, 0], [True, False, False])
    assert {s: a.points for s, a in awards.items()} == {0: 6}


def test_maki_round_lines_explain_the_tie():
    names = ["Chris", "Jo", "Kerryn", "Meredith"]
    tabs = [
        tableau(C.MAKI_3, C.MAKI_2),
        tableau(C.MAKI_3),
        tableau(C.MAKI_2, C.MAKI_1),
        tableau(C.MAKI_2),
    ]
    score = score_round(names, tabs, 1)
    assert score.points == (6, 1, 1, 0)
    jo = [l for l in score.lines if l.player == "Jo" and l.category == "maki"][0]
    assert jo.text == "maki: 2nd with 3 icons, tied with Kerryn → 1"
    assert jo.round == 1


def test_sushi_roll_ties_get_full_points():
    # sushi-roll.txt, Maki Rolls: Andrew 4, Chris 4, Karen 3, Meredith 3 -> 6, 6, 3, 3.
    awards = award_places({"A": 4, "C": 4, "K": 3, "M": 3}, (6, 3), SUSHI_ROLL_TIES)
    assert {k: a.points for k, a in awards.items()} == {"A": 6, "C": 6, "K": 3, "M": 3}


def test_split_ignores_remainder_toward_zero_for_penalties():
    awards = award_places({"a": 0, "b": 0, "c": 0, "d": 0, "e": 2}, (-6,), SUSHI_GO_TIES, highest_first=False)
    assert {k: a.points for k, a in awards.items()} == {"a": -1, "b": -1, "c": -1, "d": -1}


# --- TEMPURA, SASHIMI, DUMPLINGS, NIGIRI AND WASABI, CHOPSTICKS ---------------------------------


@pytest.mark.parametrize("count,points", [(0, 0), (1, 1), (2, 3), (3, 6), (4, 10), (5, 15), (6, 15), (9, 15)])
def test_dumpling_table(count, points):
    assert dumpling_points(count) == points
    assert score_round(["A", "B"], [tableau(*[C.DUMPLING] * count), ()], 1).points[0] == points


@pytest.mark.parametrize("count,points", [(1, 0), (2, 5), (3, 5), (4, 10), (5, 10)])
def test_tempura_pairs(count, points):
    assert score_round(["A", "B"], [tableau(*[C.TEMPURA] * count), ()], 1).points[0] == points


@pytest.mark.parametrize("count,points", [(1, 0), (2, 0), (3, 10), (5, 10), (6, 20)])
def test_sashimi_triples(count, points):
    assert score_round(["A", "B"], [tableau(*[C.SASHIMI] * count), ()], 1).points[0] == points


def test_tempura_line_text():
    score = score_round(["A", "B"], [tableau(*[C.TEMPURA] * 4), ()], 2)
    assert [l.text for l in score.lines if l.category == "tempura"] == ["tempura: 2 sets of 2 → 10"]


@pytest.mark.parametrize(
    "nigiri,plain,on_wasabi", [(C.SQUID_NIGIRI, 3, 9), (C.SALMON_NIGIRI, 2, 6), (C.EGG_NIGIRI, 1, 3)]
)
def test_nigiri_and_wasabi(nigiri, plain, on_wasabi):
    assert score_round(["A", "B"], [tableau(nigiri), ()], 1).points[0] == plain
    score = score_round(["A", "B"], [tableau(wasabi_with=(nigiri,)), ()], 1)
    assert score.points[0] == on_wasabi
    if nigiri is C.SQUID_NIGIRI:
        assert [l.text for l in score.lines if l.category == "nigiri"] == ["squid nigiri on wasabi → 9"]


def test_wasabi_alone_and_chopsticks_score_nothing():
    score = score_round(["A", "B"], [tableau(C.WASABI, C.CHOPSTICKS, C.CHOPSTICKS), ()], 1)
    assert score.points == (0, 0)
    assert {l.category for l in score.lines if l.seat == 0} == {"wasabi", "chopsticks"}


def test_a_full_round_adds_up():
    # Hand sum: maki most 6 + tempura 5 + sashimi 10 + dumplings(3) 6 + squid on wasabi 9 + egg 1 = 37.
    t0 = tableau(C.MAKI_3, C.TEMPURA, C.TEMPURA, C.SASHIMI, C.SASHIMI, C.SASHIMI,
                 C.DUMPLING, C.DUMPLING, C.DUMPLING, C.EGG_NIGIRI, wasabi_with=(C.SQUID_NIGIRI,))
    t1 = tableau(C.MAKI_1, C.PUDDING, C.WASABI)  # maki 2nd: 3; pudding and open wasabi 0
    score = score_round(["A", "B"], [t0, t1], 1)
    assert score.points == (37, 3)
    assert sum(l.points for l in score.lines if l.seat == 0) == 37


# --- PUDDINGS ---------------------------------------------------------------------------------------


def test_pudding_worked_example():
    # Chris 4, Jo 3, Kerry 0, Meredith 0 -> +6 / 0 / -3 / -3.
    points, lines = score_puddings(["Chris", "Jo", "Kerry", "Meredith"], [4, 3, 0, 0], penalty=True)
    assert points == (6, 0, -3, -3)
    assert lines[0].text == "pudding: most with 4 → 6"
    assert all(l.round == GAME_END and l.category == "pudding" for l in lines)


def test_pudding_four_way_tie_for_fewest_loses_one_each():
    points, _ = score_puddings(list("ABCDE"), [3, 1, 1, 1, 1], penalty=True)
    assert points == (6, -1, -1, -1, -1)


def test_pudding_all_equal_scores_nothing():
    points, lines = score_puddings(list("ABCD"), [2, 2, 2, 2], penalty=True)
    assert points == (0, 0, 0, 0)
    assert len(lines) == 4


def test_pudding_two_players_no_penalty():
    points, _ = score_puddings(["A", "B"], [1, 0], penalty=False)
    assert points == (6, 0)


def test_pudding_tie_for_most_splits():
    points, _ = score_puddings(list("ABC"), [3, 3, 1], penalty=True)
    assert points == (3, 3, -6)


# --- AND THE WINNER IS... ---------------------------------------------------------------------------


def _rounds(*totals):
    return [RoundScore(1, tuple(totals), ())]


def test_tie_on_points_goes_to_most_puddings():
    # Totals before puddings 30/32/20; puddings 2/1/0 -> pudding points 6/0/-6 -> 36/32/14.
    result = final_result(["A", "B", "C"], _rounds(30, 32, 20), [2, 1, 0], real_seats=(0, 1, 2), pudding_penalty=True)
    assert result.totals == (36, 32, 14)
    assert result.winners == ("A",)
    # Equal totals, A has more puddings (both tie for most: +3 each, C -6).
    result = final_result(["A", "B", "C"], _rounds(10, 10, 0), [2, 2, 0], real_seats=(0, 1, 2), pudding_penalty=True)
    assert result.totals == (13, 13, -6) and result.winners == ("A", "B")
    assert pick_winners([13, 13, 1], [3, 2, 0], [0, 1, 2]) == (0,)


def test_dummy_never_wins():
    result = final_result(["A", "B", "Dummy"], _rounds(10, 12, 40), [1, 1, 1], real_seats=(0, 1), pudding_penalty=True)
    assert result.totals == (10, 12, 40)
    assert result.winners == ("B",)
