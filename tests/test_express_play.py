"""A recorded 4-player Sushi Express game replayed through ``companion play`` (issue #11): the
continuous stream in tests/fixtures/sushi-express-4p (hands reaching in, dice thrown, tumbling and
coming to rest) read by the settle detector and the pip-dice reader, the players' answers from the
recorded panel script (kept by camera frame), judged by the table rules and journalled, to the true
scores; kill -9 and resume; the export scored by ``companion score``.

The fixture is written by ``python -m companion.app.express_record tests/fixtures/sushi-express-4p
--players 4 --seed 7`` (its game.json holds the bots' truth). The game ends in a three-way tie on 9
points that the action cards left break, so the tie-break is read too.
"""

from __future__ import annotations

import io
import json
import sys
from contextlib import redirect_stdout
from pathlib import Path

import pytest
from killing import kill_after_applied, play_in_process, resume

from companion.app.journal import Journal
from companion.cli import main

FIXTURE = Path(__file__).parent / "fixtures" / "sushi-express-4p"
TRUTH = json.loads((FIXTURE / "game.json").read_text(encoding="utf-8"))
PLAYERS = TRUTH["players"]
#: What the replay may say: anything else (a refusal, a die it cannot read, a status) is a sight the
#: companion did not take as the bots played it.
QUIET_EVENTS = {"applied", "waiting", "ask", "chose", "game-over"}


def _play_args(journal: Path) -> list[str]:
    return ["play", "--game", "sushi-express", "--camera", f"replay:{FIXTURE / 'frames'}",
            "--panel", f"script:{FIXTURE / 'panel.json'}", "--players", ",".join(PLAYERS),
            "--journal", str(journal), "--display", "none", "--json"]


def _play_cmd(journal: Path) -> list[str]:
    return [sys.executable, "-c", "from companion.cli import main; raise SystemExit(main())", *_play_args(journal)]


def _steps(journal: Path) -> list[dict]:
    with Journal(journal) as j:
        (entry,) = j.games()
        return [e.payload for e in j.events(entry.id) if e.kind == "turn"]


@pytest.fixture(scope="module")
def replayed(tmp_path_factory):
    """The whole fixture played once, in-process: (exit code, events printed, journal path)."""
    journal = tmp_path_factory.mktemp("express-replay") / "j.sqlite3"
    return (*play_in_process(_play_args(journal)), journal)


def test_the_replay_reads_every_throw_and_ends_with_the_true_score(replayed):
    code, events, journal = replayed
    assert code == 0
    assert {e["event"] for e in events} <= QUIET_EVENTS, [e for e in events if e["event"] not in QUIET_EVENTS][:3]
    over = events[-1]
    assert over["event"] == "game-over"
    assert over["result"]["total"] == dict(zip(PLAYERS, TRUTH["final"]["totals"]))
    assert over["result"]["winners"] == TRUTH["final"]["result"]["winners"]
    steps = _steps(journal)
    throws = [a for s in steps for a in s.get("actions", ()) if "roll" in a or "reroll" in a]
    assert len(throws) == len(TRUTH["throws"])  # every throw filmed was read from the camera, once
    # what the game holds: a try re-rolled with a card, a van sent further, a same guess, the tips
    actions = [a for s in steps for a in s.get("actions", ())]
    assert {"reroll", "roll", "accept", "move", "deliver", "guess", "end_turn"} <= {k for a in actions for k in a}
    assert any(a.get("same_guess") for a in actions)
    assert any(a.get("move", {}).get("further") for a in actions)
    assert steps[0]["first"] and len(steps[0]["laid"]) == 4  # the display laid out first
    assert sum(1 for s in steps if "laid" in s) > 5  # and named at every refill
    assert steps[-1].get("tips") is not None  # the game ends with the tips among hidden cards


def test_the_export_scores_the_same_with_companion_score(replayed, tmp_path):
    _, _, journal = replayed
    record = tmp_path / "game.json"
    with redirect_stdout(io.StringIO()):
        assert main(["export", "latest", "--journal", str(journal), "--record", str(record)]) == 0
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["score", "--game", "sushi-express", "--json", str(record)]) == 0
    assert json.loads(out.getvalue())["total"] == dict(zip(PLAYERS, TRUTH["final"]["totals"]))


#: The kill comes right after this many applied steps: a failed first try, whose second try is the
#: next thing to happen (a throw, about 30 frames later), so no answer is half given.
def _kill_after(steps: list[dict]) -> int:
    for i, (step, nxt) in enumerate(zip(steps, steps[1:])):
        first, then = step.get("actions", [{}])[0], nxt.get("actions", [{}])[0]
        if i > len(steps) // 3 and "roll" in first and "roll" in then:
            return i + 1
    raise AssertionError("no failed first try followed by a second one in the fixture")


def test_kill_9_mid_game_and_resume_finishes_with_no_step_lost_or_doubled(replayed, tmp_path):
    """A real ``companion play`` on the fixture is killed with SIGKILL after some applied steps; the
    next ``companion play`` with the same journal resumes and ends with the true totals and the same
    steps as the uninterrupted replay."""
    _, _, whole = replayed
    kill_after = _kill_after(_steps(whole))
    path = tmp_path / "j.sqlite3"
    assert kill_after_applied(_play_cmd(path), kill_after) == kill_after
    assert len(_steps(path)) >= kill_after  # every step announced as applied was committed first
    lines = resume(_play_cmd(path))
    assert lines and lines[0]["event"] == "resumed"
    assert lines[-1]["event"] == "game-over"
    assert lines[-1]["result"]["total"] == dict(zip(PLAYERS, TRUTH["final"]["totals"]))
    assert _steps(path) == _steps(whole)


def test_play_on_the_simulated_table_with_a_panel_that_always_takes_the_first_answer(tmp_path):
    """``companion play --game sushi-express --camera sim``: the simulated hand throws whenever the
    table waits for a roll, and a panel script presses OK every other frame, so every question takes
    its first answer (customers laid out, refills, guesses, moves, keep). Whatever the players pick,
    the game runs to its end with nothing refused (a refill once offered a customer the deck no longer
    held, and the first answer looped on its refusal)."""
    script = tmp_path / "panel.json"
    script.write_text(json.dumps([{"frame": i, "event": "ok"} for i in range(0, 8000, 2)]), encoding="utf-8")
    out = io.StringIO()
    with redirect_stdout(out):
        code = main(["play", "--game", "sushi-express", "--players", "Ann,Bo,Cy", "--camera", "sim", "--seed", "3",
                     "--panel", f"script:{script}", "--display", "none", "--journal", str(tmp_path / "j.sqlite3"),
                     "--json"])
    events = [json.loads(line) for line in out.getvalue().splitlines()]
    assert code == 0
    assert not [e for e in events if e["event"] == "refused"]
    assert events[-1]["event"] == "game-over" and len(events[-1]["result"]["total"]) == 3
