"""``companion score`` on pathological JSON: one named error line, exit 2, never a traceback
(issue #7 "Bad input")."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

from companion.cli import main
from companion.rules.errors import MalformedGame
from companion.rules.records import MAX_RECORD_CHARS, MAX_RECORD_DEPTH, parse_record_json

FIXTURE = Path(__file__).parent / "fixtures" / "score" / "three_players.json"

CASES = {
    "100 000 [": ("[" * 100_000 + "]" * 100_000, "nested more than 32 deep"),
    "100 000 {": ('{"a":' * 100_000 + "1" + "}" * 100_000, "nested more than 32 deep"),
    "unclosed [": ("[" * 100_000, "nested more than 32 deep"),
    "NaN": ('{"players": NaN}', "NaN is not a JSON number"),
    "Infinity": ('{"players": [-Infinity]}', "-Infinity is not a JSON number"),
    "1e999": ('{"players": 1e999}', "the number 1e999 is out of range"),
    "5000 digits": ('{"players": ' + "9" * 5000 + "}", "a whole number of 5000 digits"),
    "too long": ('{"players": "' + "x" * MAX_RECORD_CHARS + '"}', "too long: more than 1,000,000 characters"),
}


@pytest.mark.parametrize("game", ["sushi-go", "sushi-roll", "sushi-express"])
@pytest.mark.parametrize("case", list(CASES))
def test_pathological_json_is_one_named_error_exit_2(case, game, tmp_path, capsys):
    text, expected = CASES[case]
    path = tmp_path / "game.json"
    path.write_text(text)
    assert main(["score", "--game", game, str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith(f"companion score: {path}: ") and expected in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_deep_json_on_stdin(monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.StringIO("[" * 100_000 + "]" * 100_000))
    assert main(["score", "--game", "sushi-go", "-"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("companion score: <stdin>: invalid JSON: lists and objects nested")


def test_depth_limit_is_exact():
    assert parse_record_json("[" * MAX_RECORD_DEPTH + "]" * MAX_RECORD_DEPTH) is not None
    with pytest.raises(MalformedGame, match="nested more than"):
        parse_record_json("[" * (MAX_RECORD_DEPTH + 1) + "]" * (MAX_RECORD_DEPTH + 1))
    # depth counts nesting, not how many lists there are side by side
    assert parse_record_json(json.dumps([[[1]]] * 1000))[999] == [[1]]


def test_ordinary_numbers_and_real_records_still_parse():
    assert parse_record_json('{"a": [1.5, -2, 1e300, 0]}') == {"a": [1.5, -2, 1e300, 0]}
    record = parse_record_json(FIXTURE.read_text())
    assert record == json.loads(FIXTURE.read_text())
