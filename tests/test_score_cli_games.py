"""``companion score`` for the games beside Sushi Go! (issue #3): routing, shapes and named errors."""

import json
import subprocess
import sys
from pathlib import Path

SCORE = Path(__file__).parent / "fixtures" / "score"


def _score(*args, stdin=None):
    return subprocess.run(
        [sys.executable, "-m", "companion.cli", "score", *args], capture_output=True, text=True, input=stdin
    )


def test_sushi_express_json_has_the_issue_shape():
    p = _score("--game", "sushi-express", "--json", str(SCORE / "sushi_express_rulebook.json"))
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert set(out) == {"customers", "tips", "total", "winners", "breakdown"}
    # sushi-express.txt, SCORING example: Claus 4 colours × 3 + 3 extra cards = 15 for customers
    assert out["customers"]["Claus"] == 15


def test_sushi_express_malformed_input_names_the_field():
    record = {"players": ["Ann", "Bo", "Cy"], "cards": {"Ann": {"customers": {"light_blue": "x"}}}}
    p = _score("--game", "sushi-express", "-", stdin=json.dumps(record))
    assert p.returncode == 2
    assert "cards.Ann" in p.stderr and "Traceback" not in p.stderr


def test_sushi_roll_json_has_the_issue_shape():
    files = sorted(SCORE.glob("sushi_roll_*.json"))
    assert files
    p = _score("--game", "sushi-roll", "--json", str(files[0]))
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert set(out) == {"rounds", "pudding", "leftover_tokens", "total", "winners", "breakdown"}
    assert len(out["rounds"]) == 3
    for name, total in out["total"].items():
        parts = sum(r[name] for r in out["rounds"]) + out["pudding"][name] + out["leftover_tokens"][name]
        assert total == parts


def test_sushi_roll_unknown_face_names_the_field():
    good = ["dumpling"] * 8
    record = {"players": ["Ann", "Bo"], "rounds": [{"Ann": ["maki*9"] + good[1:], "Bo": good}] + [{"Ann": good, "Bo": good}] * 2, "tokens": {}}
    p = _score("--game", "sushi-roll", "-", stdin=json.dumps(record))
    assert p.returncode == 2
    assert "rounds[0].Ann[0]" in p.stderr and "Traceback" not in p.stderr


def test_unknown_game_is_refused_by_the_parser():
    p = _score("--game", "chess", "x.json")
    assert p.returncode == 2 and "invalid choice" in p.stderr


def test_a_closed_pipe_is_not_a_traceback():
    # Close our end before the child starts writing, so its write must fail with EPIPE.
    p = subprocess.Popen(
        [sys.executable, "-m", "companion.cli", "score", "--game", "sushi-go", "--json", str(SCORE / "three_players.json")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    p.stdout.close()
    err = p.stderr.read().decode()
    assert p.wait() == 1
    assert "Traceback" not in err
