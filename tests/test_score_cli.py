"""``companion score``: output shapes, one named error line with exit 2 for bad input, light imports."""

import copy
import json
import subprocess
import sys
from pathlib import Path

import pytest

from companion.cli import main

FIXTURE = Path(__file__).parent / "fixtures" / "score" / "three_players.json"
RECORD = json.loads(FIXTURE.read_text())


def run_score(capsys, record=None, *, raw=None, as_json=True, tmp_path=None, path=None):
    if path is None:
        path = tmp_path / "game.json"
        path.write_text(raw if raw is not None else json.dumps(record))
    args = ["score", "--game", "sushi-go"] + (["--json"] if as_json else []) + [str(path)]
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def test_json_output_shape_and_values(capsys):
    code, out, err = run_score(capsys, path=FIXTURE)
    assert code == 0 and err == ""
    data = json.loads(out)
    assert set(data) == {"rounds", "pudding", "total", "winners", "breakdown"}
    assert data["rounds"] == [{"Ann": 19, "Bo": 14, "Cy": 12}, {"Ann": 26, "Bo": 12, "Cy": 17}, {"Ann": 9, "Bo": 24, "Cy": 14}]
    assert data["pudding"] == {"Ann": 0, "Bo": -6, "Cy": 6}
    assert data["total"] == {"Ann": 54, "Bo": 44, "Cy": 49}
    assert data["winners"] == ["Ann"]
    line = data["breakdown"][0]
    assert set(line) == {"seat", "player", "round", "category", "points", "text"}
    assert {"player": "Cy", "round": "game end", "category": "pudding", "points": 6}.items() <= next(
        l for l in data["breakdown"] if l["round"] == "game end" and l["player"] == "Cy"
    ).items()


def test_table_output(capsys):
    code, out, _ = run_score(capsys, path=FIXTURE, as_json=False)
    assert code == 0
    assert "Winner: Ann" in out
    total_row = next(l for l in out.splitlines() if l.startswith("Total"))
    assert total_row.split() == ["Total", "54", "44", "49"]
    assert "squid nigiri on wasabi → 9" in out


def test_reads_stdin(monkeypatch, capsys):
    import io

    monkeypatch.setattr(sys, "stdin", io.StringIO(FIXTURE.read_text()))
    assert main(["score", "--game", "sushi-go", "--json", "-"]) == 0
    assert json.loads(capsys.readouterr().out)["winners"] == ["Ann"]


def test_missing_file_names_the_file(capsys, tmp_path):
    code, out, err = run_score(capsys, path=tmp_path / "nope.json")
    assert code == 2 and out == ""
    assert "nope.json" in err and "no such file" in err.lower()


def bad(record_change):
    record = copy.deepcopy(RECORD)
    record_change(record)
    return record


CASES = {
    "bad json": (None, "{not json", "invalid JSON"),
    "missing field": (bad(lambda r: r.pop("rounds")), None, "rounds: missing"),
    "unknown card": (
        bad(lambda r: r["rounds"][0]["Bo"].__setitem__(2, "tempra")),
        None,
        "rounds[0].Bo[2]: unknown card 'tempra'; valid cards are: tempura, sashimi",
    ),
    "wrong type": (bad(lambda r: r.__setitem__("players", "Ann")), None, "players: must be a list"),
    "card wrong type": (bad(lambda r: r["rounds"][1]["Cy"].__setitem__(0, 3)), None, "rounds[1].Cy[0]: must be a card name"),
    "three cards": (
        bad(lambda r: r["rounds"][0]["Ann"].__setitem__(4, ["tempura", "dumpling", "sashimi"])),
        None,
        "rounds[0].Ann[4]: a chopsticks turn is a list of exactly 2 cards, got 3",
    ),
    "rounds count": (bad(lambda r: r["rounds"].pop()), None, "rounds: a game has 3 rounds, got 2"),
    "turn count": (bad(lambda r: r["rounds"][2]["Cy"].pop()), None, "rounds[2].Cy: 8 turns, expected 9"),
    "unknown player": (
        bad(lambda r: r["rounds"][1].__setitem__("Dan", [])),
        None,
        "rounds[1]: unknown player 'Dan'; players are Ann, Bo, Cy",
    ),
    "missing player": (bad(lambda r: r["rounds"][1].pop("Bo")), None, "rounds[1]: missing player 'Bo'"),
    "unknown option": (bad(lambda r: r.__setitem__("options", {"dumy": True})), None, "options.dumy: unknown option"),
    "option type": (bad(lambda r: r.__setitem__("options", {"dummy": "yes"})), None, "options.dummy: must be true or false"),
    "illegal play": (
        bad(lambda r: r["rounds"][0]["Cy"].__setitem__(0, ["maki_3", "maki_3"])),
        None,
        "rounds[0].Cy[0]: Cy took 2 cards without chopsticks",
    ),
    "not an object": (None, "[1, 2]", "the game must be a JSON object"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_bad_input_exits_2_with_one_named_message(case, capsys, tmp_path):
    record, raw, expected = CASES[case]
    code, out, err = run_score(capsys, record, raw=raw, tmp_path=tmp_path)
    assert code == 2 and out == ""
    assert expected in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_score_imports_no_cv2_numpy_or_pygame():
    code = (
        "import sys, io, contextlib\n"
        "from companion.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    rc = main(['score', '--game', 'sushi-go', '--json', {str(FIXTURE)!r}])\n"
        "heavy = sorted(m for m in ('cv2', 'numpy', 'pygame') if m in sys.modules)\n"
        "print(rc, heavy)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "0 []"
