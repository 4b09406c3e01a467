"""Inferring each seat's play from the cards in its zone before and after a reveal."""

import pytest

from companion.app.turns import MOVE_TOLERANCE_MM, SeenCard, TurnReadError, infer_play
from companion.rules.sushi_go.cards import Card


def c(label, x, y=100.0, conf=0.95):
    return SeenCard(label, (float(x), float(y)), conf)


BEFORE = [c("tempura", 100), c("chopsticks", 150), c("wasabi", 200)]


def test_one_new_card_is_a_normal_pick():
    assert infer_play("Ann", BEFORE, BEFORE + [c("dumpling", 250)]) == (Card.DUMPLING,)


def test_nudged_cards_still_match():
    nudged = [c("tempura", 104, 103), c("chopsticks", 147), c("wasabi", 202)]
    assert infer_play("Ann", BEFORE, nudged + [c("maki_2", 250)]) == (Card.MAKI_2,)


def test_two_new_cards_with_chopsticks_leaving_is_a_chopsticks_turn():
    after = [c("tempura", 100), c("wasabi", 200), c("sashimi", 250), c("egg_nigiri", 300)]
    assert sorted(infer_play("Ann", BEFORE, after)) == sorted((Card.SASHIMI, Card.EGG_NIGIRI))


def test_taking_chopsticks_with_chopsticks_is_seen_by_position():
    # The old chopsticks leaves at x=150; a new chopsticks card lands at x=250.
    after = [c("tempura", 100), c("wasabi", 200), c("chopsticks", 250), c("squid_nigiri", 300)]
    assert sorted(infer_play("Ann", BEFORE, after)) == sorted((Card.CHOPSTICKS, Card.SQUID_NIGIRI))


def test_nigiri_covering_a_wasabi_hides_it_without_counting_it_gone():
    after = [c("tempura", 100), c("chopsticks", 150), c("squid_nigiri", 201)]
    assert infer_play("Ann", BEFORE, after) == (Card.SQUID_NIGIRI,)


def test_nigiri_beside_the_wasabi_reads_the_same():
    assert infer_play("Ann", BEFORE, BEFORE + [c("salmon_nigiri", 250)]) == (Card.SALMON_NIGIRI,)


def test_chopsticks_turn_lists_a_nigiri_before_a_new_wasabi_so_it_never_triples():
    after = [c("tempura", 100), c("wasabi", 200), c("wasabi", 250), c("squid_nigiri", 300)]
    assert infer_play("Ann", BEFORE, after) == (Card.SQUID_NIGIRI, Card.WASABI)


def test_card_moved_far_pairs_with_its_new_place():
    moved = [c("tempura", 100, 300), c("chopsticks", 150), c("wasabi", 200)]
    assert MOVE_TOLERANCE_MM < 150
    assert infer_play("Ann", BEFORE, moved + [c("pudding", 250)]) == (Card.PUDDING,)


@pytest.mark.parametrize(
    "after, problem",
    [
        (BEFORE, "no new card"),
        (BEFORE + [c("tempura", 250), c("sashimi", 300)], "expected 1 new card"),
        ([c("tempura", 100), c("wasabi", 200), c("dumpling", 250)], "missing: chopsticks"),
        (BEFORE + [c("back", 250)], "face down"),
        (BEFORE + [c("unknown", 250, conf=0.31)], "could not be read \\(best match 31%\\)"),
    ],
)
def test_unreadable_turns_name_the_seat_and_the_problem(after, problem):
    with pytest.raises(TurnReadError, match=f"^Bo: .*{problem}"):
        infer_play("Bo", BEFORE, after)
