"""Sushi Roll scoring: every worked example of the rulebook, the tables, the open-point options, and
the scoring-token payouts. Expected values are worked out by hand from sushi-roll.txt."""

import pytest

from companion.rules.sushi_roll.dice import FULL_SUPPLY, Icon, Tokens, parse_face
from companion.rules.sushi_roll.scoring import (
    appetizer_points,
    final_result,
    score_leftovers,
    score_puddings,
    score_round,
)
from companion.rules.sushi_roll.state import (
    SushiRollOptions,
    pay_points,
    place_on_tray,
    take_puddings,
    tokens_for_face,
)


def tray(*names):
    t = ()
    for name in names:
        t = place_on_tray(t, parse_face(name))
    return t


def lines_of(score, seat):
    return [l.text for l in score.lines if l.seat == seat]


# --- rulebook worked examples -------------------------------------------------------------------


def test_rulebook_example_four_tempura_and_two_sashimi_score_17():
    # sushi-roll.txt, Appetizers, Example: 10 for the first set of tempura, 1 for the second, 6 sashimi.
    score = score_round(["Chris"], [tray("tempura", "tempura", "tempura", "tempura", "sashimi", "sashimi")], 1)
    assert score.points == (17,)
    assert lines_of(score, 0) == [
        "tempura: 4 icons = 1 set of 3 (1 × 10) + a set of 1 (1) → 11",
        "sashimi: 2 icons → 6",
    ]


def test_rulebook_example_maki_ties_all_get_full_points_and_next_count_is_second():
    # sushi-roll.txt, Maki Rolls, Example: Andrew and Chris 4 icons, Karen and Meredith 3 → 6, 6, 3, 3.
    players = ["Andrew", "Chris", "Karen", "Meredith"]
    trays = [tray("maki*3", "maki"), tray("maki*2", "maki*2"), tray("maki*3"), tray("maki", "maki*2")]
    score = score_round(players, trays, 1)
    assert score.points == (6, 6, 3, 3)
    assert lines_of(score, 0) == ["maki: most with 4 icons, tied with Chris → 6"]
    assert lines_of(score, 3) == ["maki: 2nd with 3 icons, tied with Karen → 3"]


def test_rulebook_example_pudding_ties_gain_and_lose_full_points():
    # sushi-roll.txt, ENDING THE GAME, Example: Andrew and Chris 6 puddings, Karen and Meredith 0.
    players = ["Andrew", "Chris", "Karen", "Meredith"]
    points, lines = score_puddings(players, [6, 6, 0, 0], SushiRollOptions())
    assert points == (6, 6, -6, -6)
    assert lines[2].text == "pudding: fewest with 0, tied with Meredith (-6) → -6"
    assert lines[0].text == "pudding: most with 6, tied with Chris (+6) → 6"


# --- the scoring tables ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "icon, table",
    [(Icon.DUMPLING, (0, 2, 4, 8)), (Icon.TEMPURA, (0, 1, 5, 10)), (Icon.SASHIMI, (0, 0, 6, 13))],
)
def test_appetizer_tables_and_repeated_sets(icon, table):
    for n in range(4):
        assert appetizer_points(icon, n) == table[n]
    # "You may score multiple sets": 7 icons are two full sets and a set of 1.
    assert appetizer_points(icon, 7) == 2 * table[3] + table[1]


def test_maki_three_way_tie_all_most_and_next_lower_second():
    score = score_round(["A", "B", "C", "D"], [tray("maki*2"), tray("maki*2"), tray("maki*2"), tray("maki")], 1)
    assert score.points == (6, 6, 6, 3)


def test_maki_only_players_with_icons_compete_and_third_scores_nothing():
    score = score_round(["A", "B", "C", "D"], [tray("maki*3"), tray("maki*2"), tray("maki"), tray("tempura")], 1)
    assert score.points == (6, 3, 0, 1)
    assert lines_of(score, 2) == ["maki: 1 icon, neither most nor 2nd → 0"]
    assert lines_of(score, 3) == ["tempura: 1 icon → 1"]


def test_nigiri_values_wasabi_triples_and_open_wasabi_scores_nothing():
    # Nigiri 1/2/3; a nigiri taken after a wasabi goes on it and is tripled; one nigiri per wasabi; a
    # nigiri taken before any wasabi stays plain; a wasabi alone scores 0.
    t = tray("egg_nigiri", "wasabi", "salmon_nigiri", "squid_nigiri", "wasabi")
    assert [(p.face.icon.value, p.nigiri and p.nigiri.icon.value) for p in t] == [
        ("egg_nigiri", None),
        ("wasabi", "salmon_nigiri"),
        ("squid_nigiri", None),
        ("wasabi", None),
    ]
    score = score_round(["Ann"], [t], 2)
    assert score.points == (1 + 6 + 3,)
    assert lines_of(score, 0) == [
        "egg nigiri → 1",
        "salmon nigiri on wasabi: 2 × 3 → 6",
        "squid nigiri → 3",
        "wasabi with no nigiri on it → 0",
    ]


def test_specials_and_pudding_dice_score_nothing_in_the_round():
    score = score_round(["Ann"], [tray("pudding*2", "menu", "chopsticks*2")], 1)
    assert score.points == (0,)
    assert all(l.points == 0 for l in score.lines) and len(score.lines) == 3


# --- game end ---------------------------------------------------------------------------------------


def test_two_players_fewest_pudding_loses_nothing():
    points, lines = score_puddings(["Ann", "Bo"], [1, 4], SushiRollOptions())
    assert points == (0, 6)
    assert "with 2 players the fewest loses nothing" in lines[0].text


def test_pudding_all_equal_default_nobody_gains_or_loses():
    points, lines = score_puddings(["A", "B", "C"], [3, 3, 3], SushiRollOptions())
    assert points == (0, 0, 0)
    assert "pudding_all_equal=nobody" in lines[0].text


@pytest.mark.parametrize("players, expected", [(["A", "B", "C"], (0, 0, 0)), (["A", "B"], (6, 6))])
def test_pudding_all_equal_literal_option(players, expected):
    # Everyone ties for the most (+6) and for the fewest (-6, but not with 2 players).
    points, _ = score_puddings(players, [2] * len(players), SushiRollOptions(pudding_all_equal="most-and-fewest"))
    assert points == expected


def test_unknown_pudding_option_is_refused():
    with pytest.raises(ValueError):
        SushiRollOptions(pudding_all_equal="everyone")


def test_leftover_tokens_one_point_per_two_of_any_mix():
    points, lines = score_leftovers(["A", "B", "C"], [1, 3, 0], [2, 0, 1])
    assert points == (1, 1, 0)
    assert lines[0].text == "leftover tokens: 1 menu + 2 chopsticks = 3, 1 point per 2 → 1"


def test_players_tied_on_points_and_puddings_all_win():
    score = score_round(["A", "B", "C"], [tray("tempura"), tray("tempura"), tray("egg_nigiri")], 1)
    # Round: 1 point each. Puddings 2 / 3 / 3: B and C tie for the most (+6 each), A has the fewest
    # (-6). B and C tie on 7 points and on puddings, so both win.
    result = final_result(["A", "B", "C"], [score], [2, 3, 3], [0, 0, 0], [0, 0, 0], SushiRollOptions())
    assert result.totals == (-5, 7, 7)
    assert result.winners == ("B", "C")
    # Two players: the fewest puddings loses nothing; leftover tokens count.
    result = final_result(["A", "B"], [score_round(["A", "B"], [tray("dumpling"), tray("tempura")], 1)],
                          [0, 1], [0, 2], [0, 0], SushiRollOptions())  # fmt: skip
    # A: 2 + 0 + 0 = 2; B: 1 + 6 (most) + 1 (2 menus) = 8.
    assert result.totals == (2, 8) and result.winners == ("B",)


def test_breakdown_sums_to_totals_and_dict_shape():
    score = score_round(["A", "B"], [tray("maki*3", "sashimi", "sashimi"), tray("maki", "wasabi", "squid_nigiri")], 1)
    result = final_result(["A", "B"], [score], [1, 0], [3, 0], [1, 1], SushiRollOptions())
    for seat, name in enumerate(result.players):
        assert sum(l.points for l in result.breakdown if l.player == name) == result.totals[seat]
    d = result.to_dict()
    assert list(d) == ["rounds", "pudding", "leftover_tokens", "total", "winners", "breakdown"]
    # A: maki 6 + sashimi 6 = 12, pudding +6, leftovers 4 → 2: 20. B: maki 3 + squid on wasabi 9 = 12,
    # pudding 0 (2 players), leftover 1 → 0: 12.
    assert d["rounds"] == [{"A": 12, "B": 12}]
    assert d["pudding"] == {"A": 6, "B": 0} and d["leftover_tokens"] == {"A": 2, "B": 0}
    assert d["total"] == {"A": 20, "B": 12} and d["winners"] == ["A"]


# --- tokens -----------------------------------------------------------------------------------------


def test_pay_points_uses_the_fewest_tokens():
    assert pay_points(FULL_SUPPLY, 37) == (Tokens(points_20=1, points_10=1, points_5=1, points_1=2), Tokens())
    assert pay_points(FULL_SUPPLY, 0) == (Tokens(), Tokens())


def test_pay_points_works_around_missing_denominations():
    supply = Tokens(points_20=0, points_10=0, points_5=7, points_1=18)
    assert pay_points(supply, 23) == (Tokens(points_5=4, points_1=3), Tokens())
    # No 1-point tokens anywhere: 8 cannot be paid exactly, the most the supply can give is 5.
    assert pay_points(Tokens(points_5=3), 8) == (Tokens(points_5=1), Tokens())


def test_a_penalty_is_returned_exactly_when_possible_else_with_change():
    # sushi-roll.txt, ENDING THE GAME: "Take or return the corresponding points tokens".
    held = Tokens(points_5=1, points_1=3, points_10=1)
    assert pay_points(FULL_SUPPLY, -6, held) == (Tokens(), Tokens(points_5=1, points_1=1))
    # Holding only a 10: return it and take 4 back, in 1s (a 5 back would make the loss 5, not 6).
    assert pay_points(FULL_SUPPLY, -6, Tokens(points_10=1)) == (Tokens(points_1=4), Tokens(points_10=1))
    # Fewer points than the penalty: everything goes back.
    assert pay_points(FULL_SUPPLY, -6, Tokens(points_1=2)) == (Tokens(), Tokens(points_1=2))


def test_13_7_payout_makes_change_by_a_trade():
    """sushi-roll.txt, SCORING A ROUND: a player "takes scoring tokens equal to the points they
    scored" (tokens 1, 5, 10, 20; CONTENTS). When the supply lacks the exact tokens the player trades,
    as a person at the table would, moving the fewest tokens. Worked by hand:"""
    # The 5s and 1s are gone from the supply; only 10s and 20s are left.
    supply = Tokens(points_20=5, points_10=10)
    held = Tokens(points_5=1, points_1=4)
    # Owed 5: take a 10, give back the 5 (2 tokens).
    assert pay_points(supply, 5, held) == (Tokens(points_10=1), Tokens(points_5=1))
    # Owed 7: take a 10, give back three 1s (4 tokens); 10 - 5 = 5 and 10 - 5 - 1 = 4 miss.
    assert pay_points(supply, 7, held) == (Tokens(points_10=1), Tokens(points_1=3))
    # Owed 16: a 20 back 4 (5 tokens) beats a 10 and a 10 back 4 (6 tokens).
    assert pay_points(supply, 16, held) == (Tokens(points_20=1), Tokens(points_1=4))
    # Owed 1: a 10 back 5+1+1+1+1 = 9 is the only trade (6 tokens).
    assert pay_points(supply, 1, held) == (Tokens(points_10=1), Tokens(points_5=1, points_1=4))
    # Fewest tokens moved, even with 1s in the supply: 5 ones (5 tokens) lose to a 10 back a 5 (2).
    assert pay_points(Tokens(points_10=1, points_1=18), 5, held) == (Tokens(points_10=1), Tokens(points_5=1))
    # The exact tokens in the supply are no trade at all.
    assert pay_points(Tokens(points_10=1, points_5=1), 5, held) == (Tokens(points_5=1), Tokens())


def test_13_7_a_shortfall_only_when_no_trade_pays():
    """sushi-roll.txt, EVERYBODY TAKES A TURN, Note: "take what's available" - only when no trade
    pays exactly is the player paid short, and then the most that can be paid without passing the
    points."""
    supply = Tokens(points_10=3)
    held = Tokens(points_5=1, points_1=1)
    # Owed 4: 10 - 5 - 1 = 4, a trade.
    assert pay_points(supply, 4, held) == (Tokens(points_10=1), Tokens(points_5=1, points_1=1))
    # Owed 3: 10 back 5, 1 or 6 gives 5, 9 or 4; nothing makes 3 and nothing above 0 stays within it.
    assert pay_points(supply, 3, held) == (Tokens(), Tokens())
    # Owed 13: 10 (short 3) is the most that stays within 13.
    assert pay_points(supply, 13, held) == (Tokens(points_10=1), Tokens())


def test_make_change_finds_the_fewest_token_trade_of_a_brute_force_search():
    """The routine against an independent brute force over every take and give-back, on small piles."""
    import itertools
    import random

    from companion.rules.sushi_roll.change import make_change

    values = (20, 10, 5, 1)
    rng = random.Random(13)
    for _ in range(40):
        supply = tuple(rng.randrange(3) for _ in values)
        held = tuple(rng.randrange(3) for _ in values)
        amount = rng.randrange(1, 45)
        worth = lambda counts: sum(v * c for v, c in zip(values, counts))  # noqa: E731
        best = None
        for take in itertools.product(*(range(n + 1) for n in supply)):
            for give in itertools.product(*(range(n + 1) for n in held)):
                if worth(take) - worth(give) == amount:
                    moved = sum(take) + sum(give)
                    best = moved if best is None else min(best, moved)
        take, give = make_change(amount, values, supply, held)
        assert all(t <= s for t, s in zip(take, supply)) and all(g <= h for g, h in zip(give, held))
        if best is None:
            assert worth(take) - worth(give) < amount
        else:
            assert worth(take) - worth(give) == amount and sum(take) + sum(give) == best


def test_13_7_pudding_change_and_points_change_are_one_routine(monkeypatch):
    """The pudding tokens (sushi-roll.txt, Pudding) and the scoring tokens make change through the
    same routine: replacing it changes both."""
    import companion.rules.sushi_roll.state as state

    calls = []

    def spy(amount, values, supply, held, **kw):
        calls.append(values)
        return (0,) * len(values), (0,) * len(values)

    monkeypatch.setattr(state, "make_change", spy)
    assert state.pay_points(FULL_SUPPLY, 5) == (Tokens(), Tokens())
    assert state.take_puddings(FULL_SUPPLY, 2) == Tokens()
    assert calls == [(20, 10, 5, 1), (3, 1)]


def test_pudding_tokens_prefer_threes_and_take_what_is_left():
    assert take_puddings(FULL_SUPPLY, 3) == Tokens(pudding_3=1)
    assert take_puddings(FULL_SUPPLY, 2) == Tokens(pudding_1=2)
    assert take_puddings(Tokens(pudding_1=1), 3) == Tokens(pudding_1=1)
    assert tokens_for_face(Tokens(menu=1), parse_face("menu*2")) == Tokens(menu=1)
    assert tokens_for_face(FULL_SUPPLY, parse_face("chopsticks*2")) == Tokens(chopsticks=2)
    assert tokens_for_face(FULL_SUPPLY, parse_face("wasabi")) == Tokens()


def test_pudding_change_is_made_when_the_one_tokens_run_out():
    # sushi-roll.txt, Note: "take what's available". With no 1-tokens left but 3-tokens in the supply, a
    # player owed 2 takes a 3-token and gives 1 of their own 1-tokens back: exactly 2 gained.
    supply = Tokens(pudding_1=0, pudding_3=6)
    gained = take_puddings(supply, 2, held=Tokens(pudding_1=1))
    assert gained.puddings == 2
    assert gained == Tokens(pudding_1=-1, pudding_3=1)
    # Without change of their own they still take what is available, a 3-token, never nothing.
    assert take_puddings(supply, 2, held=Tokens()) == Tokens(pudding_3=1)
    # Owed 4 with one 1-token left in the supply: a 3-token and that 1-token.
    assert take_puddings(Tokens(pudding_1=1, pudding_3=6), 4).puddings == 4
