"""Sushi Express scoring (sushi-express.txt, SCORING): the rulebook's worked example and the tip rules,
with every expected value worked out by hand from the rulebook."""

from companion.rules.core import GAME_END
from companion.rules.sushi_express.scoring import colour_points, score_game, tip_penalties
from companion.rules.sushi_express.state import Customer as C
from companion.rules.sushi_express.state import SushiExpressOptions

LB, DB, ROSE, VIOLET, TIP = C.LIGHT_BLUE, C.DARK_BLUE, C.ROSE, C.VIOLET, C.TIP


def test_colour_points_first_three_then_one_each():
    assert [colour_points(n) for n in range(6)] == [0, 3, 4, 5, 6, 7]


def test_rulebook_example_claus():
    # SCORING, Example: Claus has 3 light blue, 2 dark blue, 1 rose and 1 violet: 4 x 3 = 12 for the
    # colours, +3 for the 2 extra light blue and 1 extra dark blue. He has the fewest tips (1); Andreas and
    # Bernd tie for the most with 3, so Claus loses 3: 12 + 3 - 3 = 12.
    players = ("Andreas", "Bernd", "Claus")
    customers = [{TIP: 3}, {TIP: 3}, {LB: 3, DB: 2, ROSE: 1, VIOLET: 1, TIP: 1}]
    result = score_game(players, customers, [0, 0, 0], [0, 0, 0])
    assert result.customer_points[2] == 15
    assert result.tip_points == (0, 0, -3)
    assert result.totals[2] == 12
    claus = [(l.category, l.points, l.text) for l in result.breakdown if l.player == "Claus"]
    assert claus == [
        ("light_blue", 5, "light blue: 3 cards, first 3 + 2 more × 1 → 5"),
        ("dark_blue", 4, "dark blue: 2 cards, first 3 + 1 more × 1 → 4"),
        ("rose", 3, "rose: 1 card, first of its colour → 3"),
        ("violet", 3, "violet: 1 card, first of its colour → 3"),
        ("tips", -3, "tips: 1, fewest; the most is 3 (Andreas and Bernd) → -3"),
    ]
    assert all(l.round == GAME_END for l in result.breakdown)


def test_tied_fewest_each_lose_the_full_most():
    # "If several players tie with the fewest, each receives the full number of minus points."
    assert tip_penalties([0, 0, 4, 2], SushiExpressOptions()) == (-4, -4, 0, 0)


def test_all_equal_tips_nobody_loses_by_default_and_option_makes_everyone_lose():
    assert tip_penalties([2, 2, 2], SushiExpressOptions()) == (0, 0, 0)
    assert tip_penalties([2, 2, 2], SushiExpressOptions(equal_tips_penalty=True)) == (-2, -2, -2)
    # All zero: the most is 0, so even the option costs nothing.
    assert tip_penalties([0, 0, 0], SushiExpressOptions(equal_tips_penalty=True)) == (0, 0, 0)
    result = score_game(("A", "B", "C"), [{TIP: 2}, {TIP: 1}, {}], [0, 1, 2], [0, 0, 0])
    assert result.tips == (2, 2, 2) and result.tip_points == (0, 0, 0)
    assert result.breakdown[-1].text == (
        "tips: 0 tip cards + 2 tip action cards = 2, everyone has 2: nobody loses points → 0"
    )


def test_tip_action_cards_add_to_tips():
    # THE ACTION CARDS, Tip: "add to the player's tips, just as customer tip cards do". B has 1 card + 1
    # action = 2 and is not the fewest; C with 1 loses 2.
    result = score_game(("A", "B", "C"), [{TIP: 2}, {TIP: 1}, {TIP: 1}], [0, 1, 0], [0, 0, 0])
    assert result.tips == (2, 2, 1)
    assert result.tip_points == (0, 0, -2)


def test_tie_break_most_action_cards_left_without_tips():
    # A and B both have 3 points (one rose each). B has more action cards left (2 > 1) and wins;
    # tip action cards are not passed in actions_left, so A's 2 tip actions do not help A.
    result = score_game(("A", "B", "C"), [{ROSE: 1, TIP: 1}, {VIOLET: 1, TIP: 3}, {TIP: 3}], [2, 0, 0], [1, 2, 5])
    assert result.totals == (3, 3, 0)
    assert result.winners == ("B",)


def test_full_tie_after_tie_break_shares_the_win():
    result = score_game(("A", "B", "C"), [{ROSE: 1}, {VIOLET: 1}, {}], [0, 0, 0], [1, 1, 9])
    assert result.winners == ("A", "B")
    assert result.breakdown[-2].text == "customers: no customer cards → 0"
