"""The Sushi Go! engine: turn flow, chopsticks, wasabi, passing, the dummy variant and refusals."""

import random
from collections import Counter

import pytest

from companion.rules.errors import IllegalAction, RuleError
from companion.rules.sushi_go import (
    FULL_DECK,
    SUSHI_GO,
    apply,
    apply_turn,
    legal_plays,
    new_game,
    new_game_with_deck,
    new_observed_game,
)
from companion.rules.sushi_go.cards import DECK_COUNTS, Card
from companion.rules.sushi_go.state import DUMMY_SEAT, UNSEEN, Play, SushiGoOptions, tableau_cards

C = Card
#: In ``turn(...)``, a seat playing F plays any plain card (not chopsticks, wasabi or nigiri).
F = None
PLAIN = (C.TEMPURA, C.SASHIMI, C.DUMPLING, C.MAKI_2, C.MAKI_3, C.MAKI_1, C.PUDDING)


def stacked(*hands, size=9):
    """A full deck whose top holds ``hands``, each padded to ``size`` with plain cards, the rest after."""
    rest = Counter(FULL_DECK)
    for hand in hands:
        rest.subtract(hand)
    top = []
    for hand in hands:
        pad = []
        for kind in PLAIN:
            while len(hand) + len(pad) < size and rest[kind] > 0:
                pad.append(kind)
                rest[kind] -= 1
        top += list(hand) + pad
    assert all(n >= 0 for n in rest.values())
    return top + [c for c, n in rest.items() for _ in range(n)]


def three(*hands, **options):
    return new_game_with_deck(["Ann", "Bo", "Cy"], stacked(*hands), SushiGoOptions(**options))


def plain(state, seat):
    # The last plain card: the padding, so the cards a test put first in a hand stay there.
    return next(c for c in reversed(state.hands[state.source_seat(seat)]) if c in PLAIN)


def turn(state, *plays):
    """Apply one whole turn, ``plays[seat]`` being a card, a tuple of cards, or F (any plain card)."""
    chosen = {}
    for seat, p in enumerate(plays):
        chosen[seat] = (plain(state, seat),) if p is F else p if isinstance(p, tuple) else (p,)
    return apply_turn(state, chosen)


def play_out_round(state):
    """Everybody plays their first legal single card until the round ends."""
    rnd = state.round
    while state.round == rnd and not state.is_over:
        state = apply(state, legal_plays(state, state.waiting_for()[0])[0])
    return state


# --- setup -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("players,size", [(2, 10), (3, 9), (4, 8), (5, 7)])
def test_hand_sizes(players, size):
    state = new_game([f"P{i}" for i in range(players)], random.Random(1))
    assert [len(h) for h in state.hands] == [size] * players
    assert len(state.deck) == 108 - players * size
    assert (state.round, state.turn) == (1, 1)


def test_bad_player_counts_are_refused():
    with pytest.raises(ValueError):
        new_game(["Solo"], random.Random(1))
    with pytest.raises(ValueError):
        new_game(list("ABCDEF"), random.Random(1))
    with pytest.raises(ValueError):
        new_game(["A", "A"], random.Random(1))
    with pytest.raises(ValueError):
        new_game(["A", "B", "C"], random.Random(1), SushiGoOptions(dummy=True))


def test_seeded_deal_is_reproducible():
    assert new_game(list("ABC"), random.Random(7)) == new_game(list("ABC"), random.Random(7))
    assert new_game(list("ABC"), random.Random(7)) != new_game(list("ABC"), random.Random(8))


# --- turn flow and passing -------------------------------------------------------------------------


def test_plays_are_hidden_until_everyone_has_chosen_then_hands_pass_left():
    s0 = three([C.SQUID_NIGIRI], [C.SASHIMI], [C.DUMPLING])
    s1 = apply(s0, Play(0, (C.SQUID_NIGIRI,)))
    assert s1.tableaux == ((), (), ()) and s1.turn == 1 and s1.waiting_for() == (1, 2)
    s2 = apply(apply(s1, Play(1, (C.SASHIMI,))), Play(2, (C.DUMPLING,)))
    assert s2.turn == 2
    assert [tableau_cards(t) for t in s2.tableaux] == [(C.SQUID_NIGIRI,), (C.SASHIMI,), (C.DUMPLING,)]
    # seat i -> seat i+1: Bo now holds Ann's 8 leftover tempura, Ann holds Cy's.
    assert Counter(s2.hands[1]) == Counter(s0.hands[0]) - Counter([C.SQUID_NIGIRI])
    assert sorted(s2.hands[0]) == sorted(s0.hands[2][1:])


def test_pass_both_ways_round_two_goes_right():
    s = three(pass_both_ways=True)
    s = play_out_round(s)
    assert s.round == 2
    before = s.hands
    after = turn(s, before[0][0], before[1][0], before[2][0]).hands
    # Right: seat i -> seat i-1, so Ann's leftover hand goes to Cy.
    assert Counter(after[2]) == Counter(before[0]) - Counter([before[0][0]])
    assert Counter(after[0]) == Counter(before[1]) - Counter([before[1][0]])
    s = play_out_round(s)
    assert s.round == 3
    before = s.hands
    after = turn(s, before[0][0], before[1][0], before[2][0]).hands
    assert Counter(after[1]) == Counter(before[0]) - Counter([before[0][0]])


def test_without_pass_both_ways_round_two_goes_left():
    s = play_out_round(three())
    before = s.hands
    after = turn(s, before[0][0], before[1][0], before[2][0]).hands
    assert Counter(after[1]) == Counter(before[0]) - Counter([before[0][0]])


def test_last_card_is_played_and_round_scores_then_next_round_is_dealt():
    s = play_out_round(three([C.PUDDING], [], []))
    assert s.round == 2 and s.turn == 1
    assert len(s.round_scores) == 1 and len(s.round_tableaux[0][0]) == 9
    assert sum(s.puddings) >= 1
    assert [len(h) for h in s.hands] == [9, 9, 9] and s.tableaux == ((), (), ())
    assert len(s.discard) == 27 - sum(s.puddings)


def test_game_ends_after_three_rounds_and_refuses_more_plays():
    s = three()
    for _ in range(3):
        s = play_out_round(s)
    assert s.is_over and SUSHI_GO.is_over(s)
    assert len(s.result.round_points) == 3
    assert SUSHI_GO.legal_actions(s) == ()
    with pytest.raises(IllegalAction) as exc:
        apply(s, Play(0, (C.TEMPURA,)))
    assert exc.value.rule == "game-over"


# --- refusals --------------------------------------------------------------------------------------


def test_card_not_in_hand_is_refused_and_state_unchanged():
    s = three([C.SQUID_NIGIRI], [], [])
    with pytest.raises(IllegalAction) as exc:
        apply(s, Play(1, (C.SQUID_NIGIRI,)))
    e = exc.value
    assert (e.player, e.rule, e.section) == ("Bo", "card-not-in-hand", "sushi-go.txt, PLAYING A ROUND")
    assert isinstance(e, RuleError)
    assert s == three([C.SQUID_NIGIRI], [], [])


def test_choosing_twice_or_zero_or_three_cards_is_refused():
    s = apply(three(), Play(0, (C.TEMPURA,)))
    with pytest.raises(IllegalAction, match="Ann has already chosen") as exc:
        apply(s, Play(0, (C.TEMPURA,)))
    assert exc.value.rule == "already-chosen"
    for cards in [(), (C.TEMPURA,) * 3]:
        with pytest.raises(IllegalAction) as exc:
            apply(s, Play(1, cards))
        assert exc.value.rule == "one-card"
    with pytest.raises(IllegalAction) as exc:
        apply(s, Play(7, (C.TEMPURA,)))
    assert exc.value.rule == "unknown-seat"


def test_apply_turn_is_atomic():
    s = three([C.SQUID_NIGIRI], [C.SASHIMI], [C.DUMPLING])
    with pytest.raises(IllegalAction) as exc:
        apply_turn(s, {0: [C.SQUID_NIGIRI], 1: [C.SASHIMI], 2: [C.SQUID_NIGIRI]})
    assert exc.value.player == "Cy"
    with pytest.raises(IllegalAction) as exc:
        apply_turn(s, {0: [C.SQUID_NIGIRI], 1: [C.SASHIMI]})
    assert exc.value.rule == "turn-incomplete" and exc.value.player == "Cy"
    assert s.pending == (None, None, None)


# --- chopsticks (sushi-go.txt, USING CHOPSTICKS) ---------------------------------------------------


def test_two_cards_without_chopsticks_names_player_rule_and_section():
    s = three([], [C.SASHIMI, C.DUMPLING], [])
    with pytest.raises(IllegalAction) as exc:
        apply(s, Play(1, (C.SASHIMI, C.DUMPLING)))
    assert str(exc.value) == (
        "Bo took 2 cards without chopsticks: no chopsticks card was in front of Bo before this turn"
        " (sushi-go.txt, USING CHOPSTICKS)"
    )
    assert exc.value.rule == "chopsticks-needed"


def test_chopsticks_taken_this_turn_cannot_be_used_this_turn():
    s = three([C.CHOPSTICKS, C.SASHIMI], [], [])
    with pytest.raises(IllegalAction) as exc:
        apply(s, Play(0, (C.CHOPSTICKS, C.SASHIMI)))
    assert exc.value.rule == "chopsticks-needed"


def test_chopsticks_take_two_then_go_back_into_the_passed_hand():
    s = three([C.CHOPSTICKS, C.SASHIMI, C.DUMPLING], [], [])
    s = turn(s, C.CHOPSTICKS, F, F)
    # Cy's old hand came to Ann; Ann's went to Bo. Put the sashimi/dumpling hand back to Ann.
    s = turn(s, F, F, F)
    s = turn(s, F, F, F)  # turn 4: Ann has her original hand again (3 seats)
    assert s.turn == 4 and C.SASHIMI in s.hands[0]
    s = turn(s, (C.SASHIMI, C.DUMPLING), F, F)
    assert [p.card for p in s.tableaux[0]][-2:] == [C.SASHIMI, C.DUMPLING]
    assert C.CHOPSTICKS not in tableau_cards(s.tableaux[0])
    # Ann's hand went to Bo, with the chopsticks in it; every hand still shrank by exactly one.
    assert C.CHOPSTICKS in s.hands[1]
    assert [len(h) for h in s.hands] == [5, 5, 5]
    # Bo may take the returned chopsticks and use it on a later turn.
    s = turn(s, F, C.CHOPSTICKS, F)
    assert any(p.card is C.CHOPSTICKS for p in s.tableaux[1])
    two = [p for p in legal_plays(s, 1) if len(p.cards) == 2]
    assert two, "Bo should be able to use the chopsticks he took"


def test_only_one_chopsticks_per_turn():
    s = three([C.CHOPSTICKS], [C.CHOPSTICKS], [C.CHOPSTICKS])
    s = turn(s, C.CHOPSTICKS, F, F)
    s = turn(s, C.CHOPSTICKS, F, F)  # Ann now has 2 chopsticks in front of her
    assert sum(p.card is C.CHOPSTICKS for p in s.tableaux[0]) == 2
    with pytest.raises(IllegalAction) as exc:
        apply(s, Play(0, (C.TEMPURA,) * 3))
    assert exc.value.rule == "one-card"
    assert max(len(p.cards) for p in legal_plays(s, 0)) == 2


def test_chopsticks_cannot_take_two_from_a_one_card_hand():
    s = three([C.CHOPSTICKS], [], [])
    s = turn(s, C.CHOPSTICKS, F, F)
    for _ in range(7):
        s = turn(s, F, F, F)
    assert s.turn == 9 and [len(h) for h in s.hands] == [1, 1, 1]
    assert all(len(p.cards) == 1 for p in legal_plays(s, 0))


# --- wasabi (sushi-go.txt, USING WASABI) -----------------------------------------------------------


def _ann_plays(hand, *turns, **options):
    """A 2-player game where Ann plays ``turns`` from her own hand, which comes back every other
    turn; on the turns between, both play plain cards."""
    s = new_game_with_deck(["Ann", "Bo"], stacked(hand, [], size=10), SushiGoOptions(**options))
    for i, cards in enumerate(turns):
        if i:
            s = turn(s, F, F)
        s = turn(s, cards, F)
    return s


def test_nigiri_goes_on_wasabi_from_an_earlier_turn():
    s = _ann_plays([C.WASABI, C.SQUID_NIGIRI, C.SALMON_NIGIRI], C.WASABI, C.SQUID_NIGIRI, C.SALMON_NIGIRI)
    wasabi = [p for p in s.tableaux[0] if p.card is C.WASABI]
    assert [(w.nigiri, w.nigiri_turn) for w in wasabi] == [(C.SQUID_NIGIRI, 3)]
    # One nigiri per wasabi: the salmon is plain.
    assert any(p.card is C.SALMON_NIGIRI for p in s.tableaux[0])


def test_two_wasabi_two_nigiri_in_one_chopsticks_turn():
    hand = [C.WASABI, C.WASABI, C.CHOPSTICKS, C.EGG_NIGIRI, C.SQUID_NIGIRI]
    s = _ann_plays(hand, (C.WASABI,), (C.WASABI,), (C.CHOPSTICKS,), (C.EGG_NIGIRI, C.SQUID_NIGIRI))
    assert sorted(p.nigiri for p in s.tableaux[0] if p.card is C.WASABI) == [C.EGG_NIGIRI, C.SQUID_NIGIRI]


@pytest.mark.parametrize(
    "option,order,tripled",
    [
        (False, (C.WASABI, C.SQUID_NIGIRI), False),
        (True, (C.WASABI, C.SQUID_NIGIRI), True),
        (True, (C.SQUID_NIGIRI, C.WASABI), False),
    ],
)
def test_same_turn_wasabi_and_nigiri(option, order, tripled):
    hand = [C.CHOPSTICKS, C.WASABI, C.SQUID_NIGIRI, C.EGG_NIGIRI]
    s = _ann_plays(hand, C.CHOPSTICKS, order, same_turn_wasabi_triples=option)
    wasabi = [p for p in s.tableaux[0] if p.card is C.WASABI][0]
    assert (wasabi.nigiri is C.SQUID_NIGIRI) == tripled
    if not tripled:
        # The wasabi stays open for a later nigiri.
        s = _ann_plays(hand, C.CHOPSTICKS, order, C.EGG_NIGIRI, same_turn_wasabi_triples=option)
        assert [p.nigiri for p in s.tableaux[0] if p.card is C.WASABI] == [C.EGG_NIGIRI]


# --- the two-player dummy variant (sushi-go-with-variants.txt, TWO-PLAYER VARIANT) -----------------


def dummy_game(**options):
    return new_game(["Ann", "Bo"], random.Random(3), SushiGoOptions(dummy=True, **options))


def test_dummy_setup_and_first_turn():
    s = dummy_game()
    assert s.players == ("Ann", "Bo", "Dummy") and s.controller == 0
    # Ann drew the top card of the dummy pile: 9 + 1.
    assert [len(h) for h in s.hands] == [10, 9, 0] and len(s.dummy_pile) == 8
    assert s.waiting_for() == (0, 1, 2)


def test_dummy_card_comes_from_the_controllers_hand():
    deck = stacked([], [C.SQUID_NIGIRI], [C.EGG_NIGIRI])  # Ann, Bo, then the dummy pile
    s = new_game_with_deck(["Ann", "Bo"], deck, SushiGoOptions(dummy=True))
    assert C.EGG_NIGIRI in s.hands[0] and s.hands[0][-1] is C.EGG_NIGIRI  # drawn from the pile
    with pytest.raises(IllegalAction) as exc:
        apply(s, Play(DUMMY_SEAT, (C.SQUID_NIGIRI,)))
    assert exc.value.player == "Dummy" and "Ann's hand" in str(exc.value)
    s = apply(s, Play(DUMMY_SEAT, (C.EGG_NIGIRI,)))
    # Ann cannot also take the egg the dummy took.
    with pytest.raises(IllegalAction) as exc:
        apply(s, Play(0, (C.EGG_NIGIRI,)))
    assert exc.value.rule == "card-not-in-hand"


def test_dummy_turn_flow_switches_hands_and_control():
    s = dummy_game()
    ann_hand, bo_hand = s.hands[0], s.hands[1]
    a, d = ann_hand[0], ann_hand[1]
    b = bo_hand[0]
    s2 = apply_turn(s, {0: [a], 1: [b], 2: [d]})
    assert s2.controller == 1 and s2.turn == 2
    # Hands switched; Bo, now in control, drew the next dummy card; the pile stayed in place.
    assert Counter(s2.hands[0]) == Counter(bo_hand) - Counter([b])
    assert Counter(s2.hands[1]) == Counter(ann_hand) - Counter([a, d]) + Counter([s.dummy_pile[0]])
    assert len(s2.dummy_pile) == 7
    assert tableau_cards(s2.tableaux[2]) == (d,)


def test_dummy_takes_one_card_unless_option():
    s = new_observed_game(["Ann", "Bo"], SushiGoOptions(dummy=True))
    s = apply_turn(s, {0: [C.TEMPURA], 1: [C.SASHIMI], 2: [C.CHOPSTICKS]})
    s = apply_turn(s, {0: [C.TEMPURA], 1: [C.SASHIMI], 2: [C.DUMPLING]})
    with pytest.raises(IllegalAction) as exc:
        apply(s, Play(DUMMY_SEAT, (C.DUMPLING, C.DUMPLING)))
    assert exc.value.rule == "dummy-chopsticks"
    assert exc.value.section == "sushi-go-with-variants.txt, TWO-PLAYER VARIANT"
    s = new_observed_game(["Ann", "Bo"], SushiGoOptions(dummy=True, dummy_uses_chopsticks=True))
    s = apply_turn(s, {0: [C.TEMPURA], 1: [C.SASHIMI], 2: [C.CHOPSTICKS]})
    s = apply_turn(s, {0: [C.TEMPURA], 1: [C.SASHIMI], 2: [C.DUMPLING, C.DUMPLING]})
    # The dummy's chopsticks went into the controller's (Bo's) hand, now passed to Ann.
    assert C.CHOPSTICKS in s.hands[0]


def test_controller_must_leave_a_card_for_the_dummy():
    s = new_observed_game(["Ann", "Bo"], SushiGoOptions(dummy=True))
    s = apply_turn(s, {0: [C.CHOPSTICKS], 1: [C.SASHIMI], 2: [C.TEMPURA]})
    for kind in [C.DUMPLING, C.MAKI_2, C.MAKI_3, C.SASHIMI, C.DUMPLING, C.MAKI_2, C.MAKI_3]:
        s = apply_turn(s, {0: [kind], 1: [kind], 2: [kind]})
    # Turn 9: Ann controls again and holds 1 + the last dummy card.
    assert s.turn == 9 and s.controller == 0 and len(s.hands[0]) == 2
    with pytest.raises(IllegalAction) as exc:
        apply(s, Play(0, (C.EGG_NIGIRI, C.EGG_NIGIRI)))
    assert exc.value.rule == "leave-a-card" and "for Dummy" in str(exc.value)


def test_dummy_round_flow_and_scoring():
    s = dummy_game()
    rng = random.Random(5)
    while s.round == 1:
        s = apply(s, rng.choice(legal_plays(s, s.waiting_for()[0])))
    assert [len(t) for t in s.round_tableaux[0]][2] == 9
    assert len(s.round_scores[0].points) == 3
    s2 = dummy_game()
    while not s2.is_over:
        s2 = apply(s2, rng.choice(SUSHI_GO.legal_actions(s2)))
    assert "Dummy" not in s2.result.winners and len(s2.result.totals) == 3
    assert sum(s2.result.round_points[r][2] for r in range(3)) + s2.result.game_end_points[2] == s2.result.totals[2]


# --- observed games ----------------------------------------------------------------------------------


def test_observed_game_starts_unseen_and_counts_cards():
    s = new_observed_game(["Ann", "Bo", "Cy"])
    assert s.observed and s.hands[0] == (UNSEEN,) * 9
    for _ in range(5):
        s = apply_turn(s, {0: [C.CHOPSTICKS if s.turn == 1 else C.EGG_NIGIRI], 1: [C.EGG_NIGIRI], 2: [C.SASHIMI]})
        if s.turn == 3:
            break
    # 3 eggs revealed so far; Ann and Bo take the 4th and 5th, a 6th is one more than the deck holds.
    s = apply(apply(s, Play(0, (C.EGG_NIGIRI,))), Play(1, (C.EGG_NIGIRI,)))
    with pytest.raises(IllegalAction) as exc:
        apply(s, Play(2, (C.EGG_NIGIRI,)))
    assert exc.value.rule == "deck-count" and "only 5 egg_nigiri" in str(exc.value)
    assert exc.value.section == "sushi-go-with-variants.txt, CONTENTS"


def test_observed_returned_chopsticks_is_the_last_card_of_its_hand():
    s = new_observed_game(["Ann", "Bo"])  # hands of 10; hands swap each turn
    s = apply_turn(s, {0: [C.CHOPSTICKS], 1: [C.TEMPURA]})
    s = apply_turn(s, {0: [C.TEMPURA], 1: [C.TEMPURA]})
    s = apply_turn(s, {0: [C.SASHIMI, C.SASHIMI], 1: [C.DUMPLING]})  # Ann used it: it went to Bo
    assert s.hands[1].count(C.CHOPSTICKS) == 1
    for _ in range(6):
        s = apply_turn(s, {0: [C.MAKI_1 if s.turn % 2 else C.MAKI_2], 1: [C.DUMPLING if s.turn % 2 else C.MAKI_3]})
    assert s.turn == 10 and s.hands[1] == (C.CHOPSTICKS,)
    with pytest.raises(IllegalAction) as exc:
        apply(s, Play(1, (C.SQUID_NIGIRI,)))
    assert exc.value.rule == "card-not-in-hand"
    assert [p.cards for p in legal_plays(s, 1)] == [(C.CHOPSTICKS,)]


def test_puddings_and_counts_persist_across_rounds_in_observed_games():
    s = new_observed_game(["Ann", "Bo"])
    for _ in range(10):
        s = apply_turn(s, {0: [C.PUDDING if s.turn <= 5 else C.TEMPURA], 1: [C.PUDDING if s.turn <= 5 else C.SASHIMI]})
    assert s.round == 2 and s.puddings == (5, 5)
    with pytest.raises(IllegalAction) as exc:
        apply(s, Play(0, (C.PUDDING,)))
    assert exc.value.rule == "deck-count" and exc.value.player == "Ann"
    assert DECK_COUNTS[C.PUDDING] == 10
