"""Sushi Roll through ``companion play`` (#10): the simulated camera's pixels, the settle detector,
the dice reader, the engine and the journal, for the first steps of a game; and the bots' answers
to the companion's questions (companion.sim.roll_answers).

A whole game is played by ``make demo`` and replayed from its recorded stream in
tests/test_roll_replay.py; these keep to a few steps so they stay fast.
"""

from __future__ import annotations

import io
import json
from contextlib import redirect_stdout

from companion.app.journal import Journal
from companion.cli import main
from companion.rules.sushi_roll.state import Menu, Roll, Take
from companion.sim.roll_answers import step_at, truthful_answer
from companion.sim.roll_stream import SimRollStream


def test_play_reads_the_first_roll_and_turns_from_the_simulated_camera(tmp_path):
    journal = tmp_path / "j.sqlite3"
    out = io.StringIO()
    with redirect_stdout(out):
        code = main(["play", "--game", "sushi-roll", "--camera", "sim", "--players", "Ann,Bo", "--seed", "3",
                     "--sim-turns", "4", "--display", "none", "--journal", str(journal), "--json"])
    events = [json.loads(line) for line in out.getvalue().splitlines()]
    assert code == 1  # the simulated camera stopped after 4 steps; the game stays to resume
    applied = [e for e in events if e["event"] == "applied"]
    assert not [e for e in events if e["event"] in ("refused", "unreadable", "mismatch")]
    stream = SimRollStream(["Ann", "Bo"], 3, max_steps=4)
    stream.skip_to(10**6)
    truth = [s for s in stream.truth if s.kind in ("roll", "turn")]
    assert len(applied) == len(truth) >= 2
    roll = truth[0].actions[0]
    assert isinstance(roll, Roll)
    assert applied[0]["plays"]["Ann"][0].startswith("rolled") and len(applied[0]["plays"]) == 2
    with Journal(journal) as j:
        game = j.unfinished("sushi-roll")
        turns = [e.payload for e in j.events(game.id) if e.kind == "turn"]
    assert [sorted(b) for b in turns[0]["roll"]] == [sorted(str(f) for f in belt) for belt in roll.faces]
    for step, payload in zip(truth[1:], turns[1:]):
        assert payload["seat"] == step.seat
        takes = [a["take"] for a in payload["actions"] if "take" in a]
        assert takes == [str(a.face) for a in step.actions if isinstance(a, Take)]


def _stream_with(want, players=("Ann", "Bo", "Cy"), seed=7):
    stream = SimRollStream(list(players), seed)
    stream.skip_to(10**6)
    return stream, next(s for s in stream.truth if want(s))


def test_the_bots_answer_whether_dice_were_rerolled_from_what_they_did():
    candidates = ("no, they only moved", "yes, re-rolled (a menu token)")
    stream, menu = _stream_with(lambda s: any(isinstance(a, Menu) for a in s.actions))
    at = menu.settled_frame + 3
    assert step_at(stream.truth, at) is menu
    assert truthful_answer(stream.truth, at, candidates) == 1
    stream, take = _stream_with(lambda s: s.kind == "turn" and all(isinstance(a, Take) for a in s.actions))
    assert truthful_answer(stream.truth, take.settled_frame, candidates) == 0
    assert truthful_answer(stream.truth, -1, candidates) is None


def test_the_bots_name_a_die_by_where_it_lies():
    stream, step = _stream_with(lambda s: s.kind == "turn")
    die = next(d for d in step.dice if d.visible)
    faces = ["maki", "maki*2", die.face] if die.face not in ("maki", "maki*2") else ["tempura", die.face]
    near = (die.center_mm[0] + 4, die.center_mm[1] - 3)
    assert truthful_answer(stream.truth, step.settled_frame, faces, center_mm=near) == faces.index(die.face)
    assert truthful_answer(stream.truth, step.settled_frame, faces, center_mm=(-200.0, -200.0)) is None  # off the mat
