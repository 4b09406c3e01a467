"""Inferring each seat's play from the cards in its zone before and after a reveal."""

import pytest

from companion.app.turns import MOVE_TOLERANCE_MM, Ambiguous, SeenCard, TurnReadError, infer_play
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


def test_a_nigiri_beside_a_new_wasabi_may_have_come_before_or_after_it():
    """#13 A: with same_turn_wasabi_triples the order decides a triple; the frame does not show it."""
    after = [c("tempura", 100), c("wasabi", 200), c("wasabi", 250), c("squid_nigiri", 300)]
    assert infer_play("Ann", BEFORE, after) == Ambiguous(
        ((Card.SQUID_NIGIRI, Card.WASABI), (Card.WASABI, Card.SQUID_NIGIRI)))


def test_a_nigiri_lying_on_a_new_wasabi_came_after_it():
    after = [c("tempura", 100), c("wasabi", 200), c("wasabi", 250), c("squid_nigiri", 256, 104)]
    assert infer_play("Ann", BEFORE, after) == (Card.WASABI, Card.SQUID_NIGIRI)


def test_13_1_the_nigiri_lying_on_the_wasabi_is_the_one_on_it():
    """#13 item 1 (sushi-go.txt, USING WASABI): a squid laid on the open wasabi and an egg beside
    it: the squid is listed first, so the engine lays it on the wasabi (10 points, not 6)."""
    before = [c("chopsticks", 150), c("wasabi", 200)]
    covering = [c("wasabi", 200), c("egg_nigiri", 300), c("squid_nigiri", 204, 103)]
    assert infer_play("Ann", before, covering) == (Card.SQUID_NIGIRI, Card.EGG_NIGIRI)
    hidden = [c("egg_nigiri", 300), c("squid_nigiri", 201)]  # the wasabi is out of sight under it
    assert infer_play("Ann", before, hidden) == (Card.SQUID_NIGIRI, Card.EGG_NIGIRI)
    # listed the other way round in detection order: the frame still decides
    assert infer_play("Ann", before, [c("wasabi", 200), c("squid_nigiri", 204, 103), c("egg_nigiri", 300)]) \
        == (Card.SQUID_NIGIRI, Card.EGG_NIGIRI)


def test_13_1_two_nigiri_beside_the_wasabi_are_ambiguous():
    before = [c("chopsticks", 150), c("wasabi", 200)]
    after = [c("wasabi", 200), c("egg_nigiri", 300), c("squid_nigiri", 350)]
    assert infer_play("Ann", before, after) == Ambiguous(
        ((Card.EGG_NIGIRI, Card.SQUID_NIGIRI), (Card.SQUID_NIGIRI, Card.EGG_NIGIRI)))


def test_chopsticks_cards_that_do_not_meet_a_wasabi_have_one_order():
    before = [c("chopsticks", 150), c("wasabi", 200)]
    after = [c("wasabi", 200), c("tempura", 300), c("squid_nigiri", 350)]
    assert infer_play("Ann", before, after) == (Card.SQUID_NIGIRI, Card.TEMPURA)
    twins = [c("wasabi", 200), c("egg_nigiri", 300), c("egg_nigiri", 350)]
    assert infer_play("Ann", before, twins) == (Card.EGG_NIGIRI, Card.EGG_NIGIRI)


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
        (BEFORE + [c("unknown", 250, conf=0.31)], "a card could not be read; straighten it or check the light"),
    ],
)
def test_unreadable_turns_name_the_seat_and_the_problem(after, problem):
    with pytest.raises(TurnReadError, match=f"^Bo: .*{problem}"):
        infer_play("Bo", BEFORE, after)


@pytest.mark.parametrize("conf", [0.31, 0.5, 1.0])
def test_an_unread_card_is_not_reported_with_a_match_figure(conf):
    # An "unknown" card's confidence means different things by where it came from (the deck's
    # "how sure it matches nothing", 0.5 for an undecided look-alike, the tracker's coarse window's
    # confidence in a name it then refused): stop 55's airbrush game 668 said "best match 100%" of
    # a card it could not read. The message names the seat and what to do, with no figure.
    with pytest.raises(TurnReadError) as err:
        infer_play("Bo", BEFORE, BEFORE + [c("unknown", 250, conf=conf)])
    assert "%" not in str(err.value) and "best match" not in str(err.value)
