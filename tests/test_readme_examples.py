"""The README's ``companion score`` examples run as written (issue 13, item 3).

Every JSON block of README.md that is a game record (an object with ``players``) is scored through the
console script's entry point, ``companion.cli.main``, for the game its fields name: ``tokens`` is a
Sushi Roll record, ``cards`` a Sushi Express one, ``rounds`` alone Sushi Go!. Each must be accepted
(exit status 0), and together they must cover every game ``companion score`` knows.
"""

import json
import re
from pathlib import Path

import pytest

from companion.cli import SCORE_GAMES, main

README = Path(__file__).resolve().parent.parent / "README.md"
JSON_BLOCK = re.compile(r"^```json\n(.*?)^```", re.MULTILINE | re.DOTALL)


def _game_of(record):
    if "cards" in record:
        return "sushi-express"
    if "tokens" in record:
        return "sushi-roll"
    return "sushi-go"


def _score_examples():
    """(line number, game, text) of every record block in README.md."""
    text = README.read_text(encoding="utf-8")
    examples = []
    for match in JSON_BLOCK.finditer(text):
        line = text.count("\n", 0, match.start()) + 1
        value = json.loads(match.group(1))  # a block that is not JSON fails here, naming its line
        if isinstance(value, dict) and "players" in value:
            examples.append((line, _game_of(value), match.group(1)))
    return examples


EXAMPLES = _score_examples()


def test_13_3_the_readme_has_a_score_example_for_every_game():
    assert sorted({game for _, game, _ in EXAMPLES}) == sorted(SCORE_GAMES)


@pytest.mark.parametrize("line, game, text", EXAMPLES, ids=[f"README.md:{line}-{game}" for line, game, _ in EXAMPLES])
def test_13_3_readme_score_examples_run_as_written(line, game, text, tmp_path, capsys):
    """sushi-roll.txt, SET UP (every player has tokens beside their tray): a Sushi Roll record names
    every player's leftover tokens, ``{}`` for none; the README's example used to list only Ann's and
    was refused. The Sushi Go! and Sushi Express examples held "..." placeholders and were refused too."""
    path = tmp_path / "example.json"
    path.write_text(text, encoding="utf-8")
    status = main(["score", "--game", game, "--json", str(path)])
    out, err = capsys.readouterr()
    assert status == 0, f"README.md line {line} ({game}) is refused: {err}"
    result = json.loads(out)
    record = json.loads(text)
    assert set(result["total"]) == set(record["players"]) and result["winners"]
