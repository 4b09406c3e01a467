"""Issue #13 item 8: the Sushi Go! text scoreboard says why the winner won a tie on points
(sushi-go.txt, AND THE WINNER IS...: "In case of a tie, whoever has the most pudding cards wins!").

It used to print only "Winner: Ann", as if Ann had the most points alone.
"""

import copy
import json

from companion.cli import main
from companion.rules.core import GAME_END, GameResult, ScoreLine
from companion.rules.sushi_go.record import format_sushi_go_table, score_game_record
from companion.rules.sushi_go.scoring import tie_break_text

PLAIN_8 = ["tempura", "tempura", "sashimi", "sashimi", "sashimi", "dumpling", "dumpling", "dumpling"]
# A 2-player game worked by hand (no maki, so nothing is shared between the players):
#   round 1  Ann: pudding, 2 tempura 5, 3 sashimi 10, 3 dumplings 6, egg 1           = 22
#            Bo:  2 tempura 5, 3 sashimi 10, 4 dumplings 10, squid 3                 = 28
#   round 2  both: 2 tempura 5, 3 sashimi 10, 2 salmon 4, 3 dumplings 6              = 25
#   round 3  both: 2 tempura 5, 2 salmon 4, 2 egg 2, 2 chopsticks 0, 2 bare wasabi 0 = 11
#   puddings Ann 1 (most: +6), Bo 0 (2 players: no penalty)
#   totals   Ann 22+25+11+6 = 64, Bo 28+25+11 = 64: tied, Ann has more puddings.
ROUND_3 = ["tempura", "tempura", "salmon_nigiri", "salmon_nigiri", "egg_nigiri", "egg_nigiri",
           "chopsticks", "chopsticks", "wasabi", "wasabi"]
ROUND_2 = ["tempura", "tempura", "sashimi", "sashimi", "sashimi", "salmon_nigiri", "salmon_nigiri",
           "dumpling", "dumpling", "dumpling"]
TIE_BROKEN = {
    "players": ["Ann", "Bo"],
    "rounds": [
        {"Ann": ["pudding"] + PLAIN_8 + ["egg_nigiri"],
         "Bo": PLAIN_8 + ["dumpling", "squid_nigiri"]},
        {"Ann": ROUND_2, "Bo": ROUND_2},
        {"Ann": ROUND_3, "Bo": ROUND_3},
    ],
}


def _shared_win():
    """Both players take the same cards every round: round 1 is pudding, 2 tempura 5, 3 sashimi 10,
    3 dumplings 6, salmon 2 = 23 each (salmon, not egg: the box has only 5 eggs and round 3 takes 4);
    puddings 1 each, so nobody scores them (sushi-go.txt, PUDDINGS); totals 23+25+11 = 59 each."""
    record = copy.deepcopy(TIE_BROKEN)
    same = ["pudding"] + PLAIN_8 + ["salmon_nigiri"]
    record["rounds"][0] = {"Ann": same, "Bo": same}
    return record


def score_text(capsys, tmp_path, record):
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record))
    assert main(["score", "--game", "sushi-go", str(path)]) == 0
    return capsys.readouterr().out


def test_13_8_tie_broken_by_puddings_says_why(capsys, tmp_path):
    """``companion score`` text: the winner line says the tie on points was broken by puddings and a
    note names who tied, on what, and the pudding counts (sushi-go.txt, AND THE WINNER IS...)."""
    result = score_game_record(TIE_BROKEN)
    assert result.totals == (64, 64) and result.winners == ("Ann",)  # the hand-worked game above
    out = score_text(capsys, tmp_path, TIE_BROKEN)
    lines = out.splitlines()
    assert "Winner: Ann (tie on points broken by puddings)" in lines
    assert "Ann and Bo tied on 64; Ann wins with more puddings (1 vs 0) (sushi-go.txt, AND THE WINNER IS...)" in lines


def test_13_8_tie_broken_by_puddings_says_why_from_the_rules_side():
    """The same words come from the rules package, for any caller (``replay`` prints this table too)."""
    text = format_sushi_go_table(score_game_record(TIE_BROKEN))
    assert "Winner: Ann (tie on points broken by puddings)" in text
    assert tie_break_text(score_game_record(TIE_BROKEN)) == "Ann and Bo tied on 64; Ann wins with more puddings (1 vs 0)"


def test_13_8_a_tie_puddings_do_not_break_is_a_shared_win(capsys, tmp_path):
    """Equal points and equal puddings: every tied player wins (AND THE WINNER IS...), and the table
    says the puddings did not break it."""
    record = _shared_win()
    result = score_game_record(record)
    assert result.totals == (59, 59) and result.winners == ("Ann", "Bo")
    lines = score_text(capsys, tmp_path, record).splitlines()
    assert "Winners (tied): Ann, Bo" in lines
    assert "Ann and Bo tied on 59 with 1 pudding each; they share the win (sushi-go.txt, AND THE WINNER IS...)" in lines


def test_13_8_a_clear_winner_gets_no_tie_note(capsys, tmp_path):
    record = copy.deepcopy(TIE_BROKEN)
    record["rounds"][0]["Bo"][-1] = "salmon_nigiri"  # squid 3 -> salmon 2: Ann 64, Bo 63
    lines = score_text(capsys, tmp_path, record).splitlines()
    assert "Winner: Ann" in lines and not any("tied" in line for line in lines)


def _result(players, totals, puddings, winners, eligible):
    lines = tuple(ScoreLine(s, p, GAME_END, "pudding", 0, "pudding: 0") for s, p in enumerate(players))
    return GameResult(
        players=tuple(players),
        round_points=(tuple(totals),),
        game_end_points=(0,) * len(players),
        totals=tuple(totals),
        tie_break=tuple(puddings),
        winners=tuple(winners),
        breakdown=lines,
        eligible=eligible,
    )


def test_13_8_a_tie_with_the_dummy_is_no_tie():
    """The dummy never wins (sushi-go-with-variants.txt, TWO-PLAYER VARIANT), so equal points with it
    break nothing: Ann wins alone among the players who can win."""
    result = _result(["Ann", "Bo", "Dummy"], (40, 31, 40), (0, 1, 3), ["Ann"], eligible=(0, 1))
    assert tie_break_text(result) == ""
    assert "Winner: Ann\n" in format_sushi_go_table(result)


def test_13_8_three_way_tie_names_the_runner_up_count():
    """Three tied, one with the most puddings: the note gives the winner's count against the best of
    the others (AND THE WINNER IS...)."""
    result = _result(["Ann", "Bo", "Cy"], (40, 40, 40), (1, 4, 2), ["Bo"], eligible=None)
    assert tie_break_text(result) == "Ann, Bo and Cy tied on 40; Bo wins with more puddings (4 vs 2)"
