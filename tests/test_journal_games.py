"""A Sushi Go! game in the journal (issue #9 §3, §5): rebuilt by replaying its events through the
engine (undo included), listed by ``companion games``, and exported by ``companion export`` as a
record that ``companion score`` scores to the same totals."""

from __future__ import annotations

import json
import random

import pytest

from companion.app.games import adapter
from companion.app.journal import Journal, JournalError
from companion.cli import main
from companion.rules.sushi_go import apply, legal_plays, new_game

GO = adapter("sushi-go")


def true_game(players, seed, options=None):
    """A random legal game with known hands: [(round, turn, {seat: cards})], final state."""
    from companion.rules.sushi_go.state import SushiGoOptions

    rng = random.Random(seed)
    state = new_game(players, rng, SushiGoOptions.from_mapping(options or {}))
    turns = []
    while not state.is_over:
        where, plays = (state.round, state.turn), {}
        for seat in state.waiting_for():
            play = rng.choice(legal_plays(state, seat))
            plays[seat] = tuple(c.value for c in play.cards)
            state = apply(state, play)
        turns.append((where, plays))
    return turns, state


def write_game(journal, players, turns, options=None, finish=True):
    g = journal.new_game("sushi-go", players, options or {})
    for i, ((rnd, turn), plays) in enumerate(turns):
        journal.append(g, "turn", {"round": rnd, "turn": turn, "plays": {str(s): list(c) for s, c in plays.items()}},
                       {"frame": 10 * i})
    if finish:
        journal.finish(g, GO.result(GO.rebuild(players, options or {}, journal.events(g))))
    return g


@pytest.mark.parametrize(("players", "seed", "options"), [(["Ann", "Bo", "Cy"], 1, {}), (["A", "B", "C", "D", "E"], 2, {}),
                                                          (["Ann", "Bo"], 3, {"dummy": True})])
def test_a_journal_rebuilds_the_game_the_table_played(tmp_path, players, seed, options):
    turns, truth = true_game(players, seed, options)
    with Journal(tmp_path / "j.sqlite3") as j:
        g = write_game(j, players, turns, options, finish=False)
        state = GO.rebuild(players, options, j.events(g))
    assert state.is_over
    assert state.result.totals == truth.result.totals and state.result.winners == truth.result.winners


def test_undo_is_an_event_and_takes_back_whole_turns(tmp_path):
    players = ["Ann", "Bo", "Cy"]
    turns, _ = true_game(players, 4)
    with Journal(tmp_path / "j.sqlite3") as j:
        g = write_game(j, players, turns[:5], finish=False)
        j.append(g, "undo", {"turns": 2})
        j.append(g, "named", {"seat": 1, "card": turns[3][1][1][0]})  # a note: changes nothing
        rebuilt = GO.rebuild_turns(players, {}, j.events(g))
        assert (rebuilt.state.round, rebuilt.state.turn) == (1, 4)
        assert [t.plays for t in rebuilt.turns] == [t[1] for t in turns[:3]]
        for (rnd, turn), plays in turns[3:5]:  # the same turns played again after the undo
            j.append(g, "turn", {"round": rnd, "turn": turn, "plays": {str(s): list(c) for s, c in plays.items()}})
        again = GO.rebuild_turns(players, {}, j.events(g))
        assert [t.plays for t in again.turns] == [t[1] for t in turns[:5]]
        assert len(j.events(g)) == 9  # 5 turns, undo, a note, 2 turns: nothing was deleted
        j.append(g, "undo", {"turns": 6})
        with pytest.raises(JournalError, match="undoes 6 turns; 5 were applied"):
            GO.rebuild(players, {}, j.events(g))


def test_an_event_that_does_not_replay_is_named(tmp_path):
    with Journal(tmp_path / "j.sqlite3") as j:
        g = j.new_game("sushi-go", ["Ann", "Bo"])
        j.append(g, "turn", {"round": 1, "turn": 1, "plays": {"0": ["tempura"]}})  # Bo is missing
        with pytest.raises(JournalError, match="event 1 .*does not replay.*Bo"):
            GO.rebuild(["Ann", "Bo"], {}, j.events(g))
        h = j.new_game("sushi-go", ["Ann", "Bo"])
        j.append(h, "shrug", {})
        with pytest.raises(JournalError, match="kind this version does not know: 'shrug'"):
            GO.rebuild(["Ann", "Bo"], {}, j.events(h))


def test_export_record_scores_to_the_same_totals(tmp_path, capsys):
    players = ["Ann", "Bo", "Cy", "Dee"]
    turns, truth = true_game(players, 5)
    path = tmp_path / "j.sqlite3"
    with Journal(path) as j:
        write_game(j, players, turns)
    out = tmp_path / "game.json"
    assert main(["export", "latest", "--journal", str(path), "--record", str(out)]) == 0
    capsys.readouterr()
    assert main(["score", "--game", "sushi-go", "--json", str(out)]) == 0
    scored = json.loads(capsys.readouterr().out)
    assert scored["total"] == dict(zip(players, truth.result.totals))
    assert main(["export", "1", "--journal", str(path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["total"] == scored["total"]


def test_export_of_a_dummy_game_scores_too(tmp_path, capsys):
    turns, truth = true_game(["Ann", "Bo"], 6, {"dummy": True})
    path = tmp_path / "j.sqlite3"
    with Journal(path) as j:
        write_game(j, ["Ann", "Bo"], turns, {"dummy": True})
    out = tmp_path / "game.json"
    assert main(["export", "latest", "--journal", str(path), "--record", str(out)]) == 0
    capsys.readouterr()
    assert main(["score", "--game", "sushi-go", "--json", str(out)]) == 0
    assert list(json.loads(capsys.readouterr().out)["total"].values()) == list(truth.result.totals)


def test_games_lists_finished_and_unfinished_games(tmp_path, capsys):
    players = ["Ann", "Bo", "Cy"]
    turns, truth = true_game(players, 7)
    path = tmp_path / "j.sqlite3"
    with Journal(path) as j:
        write_game(j, players, turns)
        write_game(j, ["X", "Y"], true_game(["X", "Y"], 8)[0][:4], finish=False)
    assert main(["games", "--journal", str(path), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["id"] for r in rows] == [1, 2]
    best = max(truth.result.totals)
    assert rows[0]["status"].startswith("finished:") and f"won with {best}" in rows[0]["status"]
    assert rows[1]["status"] == "unfinished: round 1, turn 5" and rows[1]["events"] == 4
    assert main(["games", "--journal", str(path)]) == 0
    text = capsys.readouterr().out
    assert "Ann, Bo, Cy" in text and "unfinished: round 1, turn 5" in text


def test_bad_requests_are_named_and_exit_2(tmp_path, capsys):
    path = tmp_path / "j.sqlite3"
    assert main(["games", "--journal", str(path)]) == 2
    assert "no journal at" in capsys.readouterr().err
    with Journal(path) as j:
        write_game(j, ["X", "Y"], true_game(["X", "Y"], 9)[0][:3], finish=False)
    assert main(["export", "latest", "--journal", str(path), "--record", str(tmp_path / "r.json")]) == 2
    assert "not over (round 1, turn 4)" in capsys.readouterr().err
    assert not (tmp_path / "r.json").exists()
    assert main(["export", "7", "--journal", str(path), "--json"]) == 2
    assert "no game 7" in capsys.readouterr().err
    assert main(["export", "first", "--journal", str(path), "--json"]) == 2
    assert "'latest'" in capsys.readouterr().err
    junk = tmp_path / "junk.sqlite3"
    junk.write_bytes(b"hello")
    assert main(["games", "--journal", str(junk)]) == 2
    assert "not an SQLite database" in capsys.readouterr().err and junk.read_bytes() == b"hello"


def test_export_sheet_draws_the_final_ranking_and_every_round(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    import pygame

    players = ["Ann", "Bo", "Cy"]
    turns, truth = true_game(players, 10)
    path = tmp_path / "j.sqlite3"
    with Journal(path) as j:
        write_game(j, players, turns)
        write_game(j, ["X", "Y"], true_game(["X", "Y"], 11)[0][:2], finish=False)
    sheet = tmp_path / "sheet.png"
    assert main(["export", "1", "--journal", str(path), "--sheet", str(sheet)]) == 0
    image = pygame.image.load(str(sheet))
    assert image.get_size() == (800, 480 * 4)  # the final ranking and the 3 rounds
    assert main(["export", "2", "--journal", str(path), "--sheet", str(tmp_path / "no.png")]) == 2
    assert "not over" in capsys.readouterr().err and not (tmp_path / "no.png").exists()
    assert main(["export", "1", "--journal", str(path), "--sheet", str(tmp_path / "missing" / "s.png")]) == 2


def test_a_turn_out_of_order_does_not_replay(tmp_path):
    players = ["Ann", "Bo"]
    turns, _ = true_game(players, 12)
    with Journal(tmp_path / "j.sqlite3") as j:
        g = write_game(j, players, [turns[0], turns[0]], finish=False)  # the same turn twice
        with pytest.raises(JournalError, match="event 2 .*round 1 turn 1, but the game is at round 1 turn 2"):
            GO.rebuild(players, {}, j.events(g))


def test_play_finishes_a_game_whose_last_turn_was_written_but_not_its_end(tmp_path, capsys):
    players = ["Ann", "Bo"]
    turns, truth = true_game(players, 13)
    path = tmp_path / "j.sqlite3"
    with Journal(path) as j:
        write_game(j, players, turns, finish=False)  # died between the last turn and finish()
    code = main(["play", "--players", "Ann,Bo", "--camera", "sim", "--journal", str(path), "--display", "none", "--json"])
    events = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert code == 0 and events[0]["event"] == "game-over"
    assert events[0]["result"]["total"] == dict(zip(players, truth.result.totals))
    with Journal(path) as j:
        assert j.games()[0].finished


def test_two_plays_cannot_share_a_journal(tmp_path, capsys):
    import fcntl
    import os

    path = tmp_path / "j.sqlite3"
    fd = os.open(f"{path}.lock", os.O_RDWR | os.O_CREAT)
    fcntl.flock(fd, fcntl.LOCK_EX)  # another companion play holds it
    try:
        code = main(["play", "--players", "Ann,Bo", "--camera", "sim", "--journal", str(path), "--display", "none"])
    finally:
        os.close(fd)
    assert code == 2 and "another companion play is using" in capsys.readouterr().err
