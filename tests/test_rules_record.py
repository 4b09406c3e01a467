"""Observed games: replaying hand-written records, with scores computed by hand from the rulebook."""

import json
from pathlib import Path

import pytest

from companion.rules.errors import MalformedGame
from companion.rules.sushi_go.record import replay_record, score_game_record

FIXTURE = Path(__file__).parent / "fixtures" / "score" / "three_players.json"


@pytest.fixture
def record():
    return json.loads(FIXTURE.read_text())


def test_hand_scored_three_player_game(record):
    # Worked by hand (see the fixture): round 1 Ann 5+9+1+1+2+1=19, Bo 1+10+3=14, Cy 6+3+2+1=12;
    # round 2 Ann 20+6=26, Bo 6+5+1=12, Cy 3+2+3+6+3=17; round 3 Ann 5+3+1=9, Bo 18+2+3+1=24,
    # Cy 6+2+1+5=14; puddings Ann 3, Bo 1, Cy 4 -> 0/-6/+6.
    result = score_game_record(record)
    assert result.round_points == ((19, 14, 12), (26, 12, 17), (9, 24, 14))
    assert result.game_end_points == (0, -6, 6)
    assert result.totals == (54, 44, 49)
    assert result.winners == ("Ann",)
    texts = [(l.player, l.round, l.text) for l in result.breakdown]
    assert ("Ann", 1, "maki: 2nd with 3 icons, tied with Bo → 1") in texts
    assert ("Bo", 3, "squid nigiri on wasabi → 9") in texts
    assert ("Cy", "game end", "pudding: most with 4 → 6") in texts
    for seat, name in enumerate(result.players):
        assert sum(l.points for l in result.breakdown if l.player == name) == result.totals[seat]


def test_replay_state_shows_wasabi_and_puddings(record):
    state = replay_record(record)
    assert state.is_over and state.puddings == (3, 1, 4)
    bo_round3 = state.round_tableaux[2][1]
    assert [p.nigiri for p in bo_round3 if p.nigiri] == ["squid_nigiri", "squid_nigiri"]


def refused(record, path, rule):
    with pytest.raises(MalformedGame) as exc:
        score_game_record(record)
    assert exc.value.path == path
    assert exc.value.rule_error is not None and exc.value.rule_error.rule == rule
    return str(exc.value)


def test_two_cards_without_chopsticks_is_refused(record):
    record["rounds"][0]["Ann"][1] = ["wasabi", "chopsticks"]
    message = refused(record, "rounds[0].Ann[1]", "chopsticks-needed")
    assert message == (
        "rounds[0].Ann[1]: Ann took 2 cards without chopsticks: no chopsticks card was in front of Ann"
        " before this turn (sushi-go.txt, USING CHOPSTICKS)"
    )


def test_returned_chopsticks_must_be_played_by_whoever_ends_up_with_it(record):
    # Cy used chopsticks on turn 4 of round 2; that hand reaches Bo with only the chopsticks on turn 9.
    record["rounds"][1]["Bo"][8] = "wasabi"
    assert "no wasabi in their hand" in refused(record, "rounds[1].Bo[8]", "card-not-in-hand")


def test_a_sixth_egg_is_refused(record):
    record["rounds"][2]["Ann"][6] = "egg_nigiri"
    assert "only 5 egg_nigiri" in refused(record, "rounds[2].Ann[6]", "deck-count")


def test_an_eleventh_pudding_across_rounds_is_refused(record):
    record["rounds"][1]["Ann"][6:9] = ["pudding", "pudding", "pudding"]
    # 3 + 2 in round 1-2 plus these 3 = 8 before round 3; Ann's 2 make 10; Cy's turn-3 pudding is the 11th.
    refused(record, "rounds[2].Cy[2]", "deck-count")


def test_chopsticks_on_the_last_turn_is_refused(record):
    record["rounds"][0]["Bo"][8] = ["tempura", "dumpling"]
    refused(record, "rounds[0].Bo[8]", "hand-size")


def test_dummy_may_not_use_chopsticks_by_default():
    rounds = []
    for _ in range(3):
        rounds.append({
            "Ann": ["tempura", "sashimi", "dumpling", "maki_1", "maki_2", "tempura", "sashimi", "dumpling", "maki_3"],
            "Bo": ["sashimi", "tempura", "dumpling", "maki_2", "maki_1", "sashimi", "tempura", "maki_3", "maki_2"],
            "Dummy": ["chopsticks", "tempura", ["sashimi", "dumpling"], "maki_3", "pudding", "pudding", "tempura", "sashimi", "dumpling"],
        })
    record = {"players": ["Ann", "Bo"], "rounds": rounds, "options": {"dummy": True}}
    assert "controller chooses 1 card" in refused(record, "rounds[0].Dummy[2]", "dummy-chopsticks")


def dummy_record(penalty):
    """The same three rounds; within the deck's counts over the whole game (e.g. 6 wasabi, 12 sashimi)."""
    ann = ["tempura"] * 4 + ["sashimi"] * 3 + ["dumpling"] * 2
    bo = ["maki_3", "maki_3", "salmon_nigiri", "salmon_nigiri", "squid_nigiri", "dumpling", "dumpling", "maki_1", "egg_nigiri"]
    dummy = ["pudding", "wasabi", "salmon_nigiri", "chopsticks", "wasabi", "maki_2", "maki_2", "sashimi", "pudding"]
    rounds = [{"Ann": list(ann), "Bo": list(bo), "Dummy": list(dummy)} for _ in range(3)]
    return {"players": ["Ann", "Bo"], "rounds": rounds, "options": {"dummy": True, "dummy_in_pudding_penalty": penalty}}


@pytest.mark.parametrize("penalty", [True, False])
def test_dummy_game_scoring(penalty):
    # Each round: Ann tempura 2 sets 10 + sashimi 10 + dumplings(2) 3 = 23.
    # Bo maki 3+3+1 = 7 icons, most -> 6; salmon 2+2; squid 3; egg 1; dumplings(2) 3 = 17.
    # Dummy maki 4 icons, 2nd -> 3; salmon on the turn-2 wasabi 6; open wasabi, chopsticks, 1 sashimi 0 = 9.
    # Puddings: Dummy 6, most -> +6; Ann and Bo 0 tie for fewest: -3 each when the dummy counts as a player.
    result = score_game_record(dummy_record(penalty))
    assert result.players == ("Ann", "Bo", "Dummy")
    assert result.round_points == ((23, 17, 9),) * 3
    assert result.game_end_points == ((-3, -3, 6) if penalty else (0, 0, 6))
    assert result.totals == ((66, 48, 33) if penalty else (69, 51, 33))
    assert result.winners == ("Ann",)
