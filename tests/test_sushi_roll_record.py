"""Sushi Roll records (``companion score --game sushi-roll``): hand-scored fixtures, the JSON shape, the
table, and MalformedGame field paths."""

import copy
import json
from pathlib import Path

import pytest

from companion.rules.errors import MalformedGame
from companion.rules.sushi_roll.record import parse_sushi_roll_record, score_sushi_roll_record
from companion.rules.sushi_roll.scoring import format_sushi_roll_table

FIXTURES = Path(__file__).parent / "fixtures" / "score"


def load(name):
    return json.loads((FIXTURES / f"sushi_roll_{name}.json").read_text())


@pytest.fixture
def record():
    return load("three_players")


def test_hand_scored_three_player_game(record):
    # Worked by hand from sushi-roll.txt (see the fixture):
    # Round 1 — maki icons Ann 2, Bo 4, Cy 3: Bo 6, Cy 3.
    #   Ann 4 tempura 10+1 + 2 sashimi 6 = 17 (the rulebook example).
    #   Bo 6 + squid on wasabi 9 + egg 1 + 1 dumpling 2 = 18.  Cy 3 + 3 dumplings 8 + salmon 2 = 13.
    # Round 2 — maki Ann 4, Bo 4, Cy 3: Ann and Bo 6 each (tied), Cy 3 (next lower count is second).
    #   Ann 6 + egg on wasabi 3 + salmon 2 = 11.  Bo 6 + 2 dumplings 4 + 3 sashimi 13 = 23.
    #   Cy 3 + squid on wasabi 9 + open wasabi 0 + 2 tempura 5 = 17.
    # Round 3 — maki Bo 1, Cy 2: Cy 6, Bo 3.
    #   Ann dumpling 2 + salmon 2 + salmon 2 + tempura 1 + egg 1 = 8.
    #   Bo 3 + sashimi 0 + squid on wasabi 9 + dumpling 2 + tempura 1 = 15.
    #   Cy salmon taken before the wasabi 2 + open wasabi 0 + 6 + 2 dumplings 4 + sashimi 0 = 12.
    # Puddings Ann 3+1=4, Bo 2, Cy 1+1+2=4: Ann and Cy +6, Bo -6.
    # Leftovers Ann 1+2=3 → 1, Bo 3+3=6 → 3, Cy 4 → 2.
    # Totals Ann 36+6+1=43, Bo 56-6+3=53, Cy 42+6+2=50.
    result = score_sushi_roll_record(record)
    d = result.to_dict()
    assert d["rounds"] == [
        {"Ann": 17, "Bo": 18, "Cy": 13},
        {"Ann": 11, "Bo": 23, "Cy": 17},
        {"Ann": 8, "Bo": 15, "Cy": 12},
    ]
    assert d["pudding"] == {"Ann": 6, "Bo": -6, "Cy": 6}
    assert d["leftover_tokens"] == {"Ann": 1, "Bo": 3, "Cy": 2}
    assert d["total"] == {"Ann": 43, "Bo": 53, "Cy": 50}
    assert d["winners"] == ["Bo"]
    assert result.puddings == (4, 2, 4)
    texts = [(l["player"], l["round"], l["text"]) for l in d["breakdown"]]
    assert ("Bo", 2, "maki: most with 4 icons, tied with Ann → 6") in texts
    assert ("Cy", 2, "maki: 2nd with 3 icons → 3") in texts
    assert ("Cy", 3, "salmon nigiri → 2") in texts
    assert ("Bo", "game end", "pudding: fewest with 2 (-6) → -6") in texts
    for seat, name in enumerate(result.players):
        assert sum(l.points for l in result.breakdown if l.player == name) == result.totals[seat]


def test_json_round_trips_and_keeps_the_shape(record):
    result = score_sushi_roll_record(record)
    assert json.loads(result.to_json()) == result.to_dict()
    line = result.to_dict()["breakdown"][0]
    assert set(line) == {"seat", "player", "round", "category", "points", "text"}


def test_tie_on_points_is_broken_by_most_pudding_tokens():
    # Maki: 6 icons each every round, tied for the most: 6 each. 3 dumplings 8 each.
    # Ann: round 1 salmon 2, rounds 2 and 3 one tempura 1; menu*2, chopsticks*2, menu*2 score 0 now:
    #   16 + 15 + 15 = 46. Bo: one tempura 1 and an open wasabi 0 each round: 15 × 3 = 45.
    # Puddings Ann 3, Bo 6: Bo +6, and with 2 players Ann loses nothing.
    # Leftovers: Ann kept every token she could have, 3 + 2 + 2 = 7 menu and 2 + 2 = 4 chopsticks,
    # 11 → 5 points; Bo 1 menu → 0. Totals 46 + 5 = 51 and 45 + 6 = 51: Bo has more pudding tokens.
    result = score_sushi_roll_record(load("two_players_tie"))
    assert result.game.round_points == ((16, 15), (15, 15), (15, 15))
    assert result.totals == (51, 51)
    assert result.pudding_points == (0, 6) and result.leftover_points == (5, 0)
    assert result.winners == ("Bo",)
    assert "Bo (tie on points broken by pudding tokens)" in format_sushi_roll_table(result)


def test_14_2_two_players_tie_fixture_is_a_possible_game():
    """sushi-roll.txt, SET UP ("Each player takes 2 chopsticks and 3 menu tokens") and EVERYBODY
    TAKES A TURN (tokens "by the type and number of icons"): the fixture used to claim 6 menu and 6
    chopsticks left for a player who took no menu or chopsticks die."""
    record = load("two_players_tie")
    for name in record["players"]:
        faces = [f for rnd in record["rounds"] for f in rnd[name]]
        for kind, start in (("menu", 3), ("chopsticks", 2)):
            icons = sum(int(f.partition("*")[2] or 1) for f in faces if f.partition("*")[0] == kind)
            assert record["tokens"][name].get(kind, 0) <= start + icons, (name, kind)


def test_all_equal_puddings_follow_the_option():
    record = load("two_players_tie")
    for rnd in record["rounds"]:
        rnd["Bo"][-1] = "pudding"  # both now have 3 puddings
    assert score_sushi_roll_record(record).pudding_points == (0, 0)
    record["options"] = {"pudding_all_equal": "most-and-fewest"}
    assert score_sushi_roll_record(record).pudding_points == (6, 6)


def test_table_lists_rows_winner_and_breakdown(record):
    table = format_sushi_roll_table(score_sushi_roll_record(record))
    lines = table.splitlines()
    assert lines[0].split() == ["Ann", "Bo", "Cy"]
    assert lines[1].split() == ["Round", "1", "17", "18", "13"]
    assert lines[4].split() == ["Pudding", "6", "-6", "6"]
    assert lines[5].split() == ["Leftover", "1", "3", "2"]
    assert lines[7].split() == ["Total", "43", "53", "50"]
    assert "Winner: Bo" in table and "  Game end" in table
    assert "tempura: 4 icons = 1 set of 3 (1 × 10) + a set of 1 (1) → 11" in table


def malformed(record, path, contains=""):
    with pytest.raises(MalformedGame) as exc:
        score_sushi_roll_record(record)
    assert exc.value.path == path
    assert contains in exc.value.problem
    return exc.value


@pytest.mark.parametrize(
    "change, path, contains",
    [
        (lambda r: r.pop("tokens"), "tokens", "missing"),
        (lambda r: r.update(extra=1), "extra", "unknown field"),
        (lambda r: r.update(players=["Ann"]), "players", "2 to 5 players"),
        (lambda r: r.update(players=["Ann", "Ann", "Cy"]), "players", "distinct"),
        (lambda r: r["rounds"].pop(), "rounds", "3 rounds"),
        (lambda r: r["rounds"][1].pop("Bo"), "rounds[1]", "missing player 'Bo'"),
        (lambda r: r["rounds"][1].update(Di=[]), "rounds[1]", "unknown player 'Di'"),
        (lambda r: r["rounds"][2]["Cy"].pop(), "rounds[2].Cy", "6 dice, expected 7"),
        (lambda r: r["rounds"][1]["Bo"].__setitem__(3, "sushi"), "rounds[1].Bo[3]", "unknown face 'sushi'"),
        (lambda r: r["rounds"][1]["Bo"].__setitem__(3, 7), "rounds[1].Bo[3]", "must be a face name"),
        (lambda r: r["rounds"][0]["Ann"].__setitem__(6, "maki*0"), "rounds[0].Ann[6]", "1 or more"),
        (lambda r: r["rounds"][0]["Ann"].__setitem__(6, "maki*7"), "rounds[0].Ann[6]", "no maki die shows maki*7"),
        (lambda r: r["tokens"].pop("Cy"), "tokens", "missing player 'Cy'"),
        (lambda r: r["tokens"]["Ann"].update(menu=-1), "tokens.Ann.menu", "0 or more"),
        (lambda r: r["tokens"]["Ann"].update(menu=True), "tokens.Ann.menu", "whole number"),
        (lambda r: r["tokens"]["Ann"].update(pudding=1), "tokens.Ann.pudding", "unknown token"),
        (lambda r: r["tokens"]["Bo"].update(chopsticks=12), "tokens.Bo.chopsticks", "at most 4"),
        (lambda r: r.update(options={"dummy": True}), "options.dummy", "unknown option"),
        (lambda r: r.update(options={"pudding_all_equal": "all"}), "options.pudding_all_equal", "must be"),
    ],
)
def test_malformed_records_name_the_field(record, change, path, contains):
    change(record)
    malformed(record, path, contains)


def test_more_dice_of_a_type_than_the_game_has_is_refused(record):
    # Round 1 has 4 maki dice; turning Cy's last 3 dice into maki makes a 7th maki die at Cy[6].
    bad = copy.deepcopy(record)
    bad["rounds"][0]["Cy"][4:7] = ["maki", "maki", "maki"]
    err = malformed(bad, "rounds[0].Cy[6]", "7th maki die")
    assert "sushi-roll.txt, CONTENTS" in str(err)


def test_not_an_object_is_refused_at_the_root():
    err = malformed([], "")
    assert str(err).startswith("the game must be a JSON object")


def test_missing_token_kind_counts_as_zero(record):
    game = parse_sushi_roll_record(record)
    assert game.unused == ((1, 2), (3, 3), (4, 0))


def test_a_broken_faces_file_is_reported_as_malformed(record, monkeypatch):
    import companion.rules.sushi_roll.record as rec

    def broken():
        raise ValueError("companion/data/sushi_roll_dice.toml: the maki die needs a list of exactly 6 faces")

    monkeypatch.setattr(rec, "load_dice_faces", broken)
    err = malformed(record, "", "cannot read the die faces")
    assert "sushi_roll_dice.toml" in str(err)


# --- issue 13, item 2: leftover tokens must be possible ----------------------------------------------------


def _two_player_record(ann_faces, bo_faces, tokens):
    return {"players": ["Ann", "Bo"], "rounds": [{"Ann": a, "Bo": b} for a, b in zip(ann_faces, bo_faces)],
            "tokens": tokens}  # fmt: skip


PLAIN = ["maki", "dumpling", "dumpling", "tempura", "sashimi", "egg_nigiri", "pudding", "maki*2"]


def test_13_2_leftover_tokens_above_start_refused():
    """sushi-roll.txt, SET UP: "Each player takes 2 chopsticks and 3 menu tokens"; EVERYBODY TAKES A
    TURN: tokens are taken only with a menu or chopsticks die, "by the type and number of icons". The
    issue's record: Ann took no menu die and one chopsticks die, yet claims 16 menu and 10 chopsticks
    left (within the box's 18 and 12). Ann can have at most 3 menu and 2 + 1 = 3 chopsticks."""
    ann = [PLAIN[:7] + ["chopsticks"], PLAIN, PLAIN]
    record = _two_player_record(ann, [PLAIN] * 3, {"Ann": {"menu": 16, "chopsticks": 10}, "Bo": {}})
    err = malformed(record, "tokens.Ann.menu", "Ann has 16 menu tokens left, but can have at most 3")
    assert "3 at the start plus 0 menu icons on the dice Ann took" in err.problem
    assert "sushi-roll.txt, SET UP" in err.problem
    record["tokens"]["Ann"]["menu"] = 3
    err = malformed(record, "tokens.Ann.chopsticks", "Ann has 10 chopsticks tokens left, but can have at most 3")
    assert "2 at the start plus 1 chopsticks icon on the dice Ann took" in err.problem


def test_13_2_leftover_tokens_count_every_icon_and_the_bound_itself_is_accepted():
    # Ann takes menu*2 in round 1 and menu in round 3, chopsticks*2 in round 2: at most 3 + 3 = 6 menu
    # and 2 + 2 = 4 chopsticks.
    ann = [PLAIN[:7] + ["menu*2"], PLAIN[:7] + ["chopsticks*2"], PLAIN[:7] + ["menu"]]
    record = _two_player_record(ann, [PLAIN] * 3, {"Ann": {"menu": 6, "chopsticks": 4}, "Bo": {"menu": 3, "chopsticks": 2}})
    assert score_sushi_roll_record(record).leftover_points == (5, 2)
    record["tokens"]["Ann"]["menu"] = 7
    malformed(record, "tokens.Ann.menu", "at most 6")
    record["tokens"]["Ann"]["menu"] = 6
    record["tokens"]["Bo"]["chopsticks"] = 3
    malformed(record, "tokens.Bo.chopsticks", "Bo has 3 chopsticks tokens left, but can have at most 2")


def test_more_tokens_in_all_than_the_box_holds_is_refused():
    # sushi-roll.txt, CONTENTS: 18 menu tokens. Ann takes 3 menu*2 dice a round (bound 3 + 18 = 21),
    # Bo 2 (bound 3 + 12 = 15): each claim is within its bound, but 16 + 3 = 19 menu in all.
    ann = [PLAIN[:5] + ["menu*2"] * 3] * 3
    bo = [PLAIN[:6] + ["menu*2"] * 2] * 3
    record = _two_player_record(ann, bo, {"Ann": {"menu": 16}, "Bo": {"menu": 3}})
    err = malformed(record, "tokens", "19 menu tokens in all, but the game has only 18")
    assert "sushi-roll.txt, CONTENTS" in str(err)
    record["tokens"]["Ann"]["menu"] = 15
    assert score_sushi_roll_record(record).leftover_points == (7, 1)
