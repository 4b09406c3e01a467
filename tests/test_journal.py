"""The game journal (issue #9 §3): events in SQLite (WAL, synchronous=FULL, one transaction each),
nothing committed lost to kill -9, and a file that is not a journal of this version refused and left
untouched."""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import subprocess
import sys
import time

import pytest

from companion.app.journal import SCHEMA_VERSION, Journal, JournalError, default_path


def test_events_come_back_in_order_with_their_source(tmp_path):
    path = tmp_path / "sub" / "journal.sqlite3"  # the folder is made
    with Journal(path) as j:
        g = j.new_game("sushi-go", ["Ann", "Bo"], {"dummy": False})
        j.append(g, "turn", {"plays": {"0": ["tempura"], "1": ["squid_nigiri"]}}, {"frame": 41})
        j.append(g, "undo", {})
        j.append(g, "turn", {"plays": {"0": ["egg_nigiri"], "1": ["wasabi"]}})
    with Journal(path) as j:
        events = j.events(g)
        assert [(e.seq, e.kind) for e in events] == [(1, "turn"), (2, "undo"), (3, "turn")]
        assert events[0].payload == {"plays": {"0": ["tempura"], "1": ["squid_nigiri"]}}
        assert events[0].source == {"frame": 41} and events[1].source is None
        (entry,) = j.games()
        assert entry.players == ("Ann", "Bo") and entry.options == {"dummy": False} and entry.events == 3
        assert not entry.finished and j.unfinished("sushi-go") == entry and j.unfinished("sushi-roll") is None


def test_durability_settings_are_wal_and_full(tmp_path):
    path = tmp_path / "j.sqlite3"
    Journal(path).close()
    con = sqlite3.connect(path)
    assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"  # WAL persists in the file
    con.close()
    with Journal(path) as j:
        assert j._con.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL


def test_a_finished_game_takes_no_more_events_and_a_new_game_leaves_the_old_one(tmp_path):
    with Journal(tmp_path / "j.sqlite3") as j:
        first = j.new_game("sushi-go", ["A", "B"])
        j.append(first, "turn", {"n": 1})
        second = j.new_game("sushi-go", ["C", "D"])
        assert j.unfinished().id == second
        j.finish(second, {"winners": ["C"]})
        assert j.unfinished().id == first  # the older unfinished game is still there to resume
        with pytest.raises(JournalError, match="has ended"):
            j.append(second, "turn", {"n": 2})
        with pytest.raises(JournalError, match="no game 99"):
            j.append(99, "turn", {})
        assert j.game(second).result == {"winners": ["C"]} and j.game(second).events == 0


def _refused_untouched(path, match):
    before = path.read_bytes()
    with pytest.raises(JournalError, match=match) as err:
        Journal(path)
    assert path.read_bytes() == before, "a refused journal must be left exactly as it was"
    assert "left untouched" in str(err.value) and "mv " in str(err.value)


def test_a_file_that_is_not_sqlite_is_refused_untouched(tmp_path):
    path = tmp_path / "j.sqlite3"
    path.write_bytes(b"my shopping list\n" * 50)
    _refused_untouched(path, "not an SQLite database")


def test_another_sqlite_database_is_refused_untouched(tmp_path):
    path = tmp_path / "j.sqlite3"
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE recipes(name TEXT)")
    con.commit()
    con.close()
    _refused_untouched(path, "not a companion journal")


def test_a_journal_of_another_schema_is_refused_untouched(tmp_path):
    path = tmp_path / "j.sqlite3"
    Journal(path).close()
    con = sqlite3.connect(path)
    con.execute("UPDATE meta SET value = '0' WHERE key = 'schema'")
    con.commit()
    con.close()
    _refused_untouched(path, f"older version.*schema 0.*reads {SCHEMA_VERSION}")


def test_a_corrupt_journal_is_refused_untouched(tmp_path):
    path = tmp_path / "j.sqlite3"
    with Journal(path) as j:
        g = j.new_game("sushi-go", ["A", "B"])
        for i in range(200):
            j.append(g, "turn", {"i": i, "pad": "x" * 200})
    con = sqlite3.connect(path)
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.close()
    data = bytearray(path.read_bytes())
    page = 4096
    rng = random.Random(3)
    for i in range(2 * page, len(data)):  # scribble over every page but the header page
        data[i] = rng.randrange(256)
    path.write_bytes(bytes(data))
    _refused_untouched(path, "corrupt|not a companion journal")


def test_a_folder_and_an_unwritable_place_are_named(tmp_path):
    with pytest.raises(JournalError, match="is a folder"):
        Journal(tmp_path)
    if os.geteuid() != 0:  # root writes anywhere
        locked = tmp_path / "locked"
        locked.mkdir()
        locked.chmod(0o500)
        try:
            with pytest.raises(JournalError, match="cannot"):
                Journal(locked / "j.sqlite3")
        finally:
            locked.chmod(0o700)


def test_default_path_is_the_service_state_directory(monkeypatch):
    monkeypatch.setenv("STATE_DIRECTORY", "/var/lib/companion")
    assert str(default_path()) == "/var/lib/companion/journal.sqlite3"
    monkeypatch.delenv("STATE_DIRECTORY")
    assert str(default_path()) == "journal.sqlite3"


_WRITER = """
import sys
from companion.app.journal import Journal
j = Journal(sys.argv[1])
g = j.new_game("sushi-go", ["A", "B"])
i = 0
while True:
    i += 1
    e = j.append(g, "turn", {"i": i, "pad": "x" * 300})
    print(e.seq, flush=True)  # printed only after the commit returned
"""


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_kill_9_loses_no_committed_event(tmp_path, seed):
    """A writer is killed with SIGKILL at a random moment: every event it saw committed is there,
    in order, and the journal opens cleanly."""
    path = tmp_path / "j.sqlite3"
    proc = subprocess.Popen([sys.executable, "-c", _WRITER, str(path)], stdout=subprocess.PIPE, text=True)
    acked = 0
    deadline = time.monotonic() + random.Random(seed).uniform(0.4, 1.5)
    try:
        while time.monotonic() < deadline or acked < 3:
            line = proc.stdout.readline()
            assert line, "the writer died by itself"
            acked = int(line)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    for line in proc.stdout:  # acknowledgements already in the pipe count too
        acked = int(line)
    with Journal(path) as j:
        (entry,) = j.games()
        seqs = [e.seq for e in j.events(entry.id)]
    assert seqs == list(range(1, len(seqs) + 1))
    assert len(seqs) >= acked  # at most the one event being written when it died is missing
    assert len(seqs) <= acked + 1


def test_a_signal_just_after_commit_keeps_the_event_and_the_signal(tmp_path):
    """SIGTERM arrives as KeyboardInterrupt right after COMMIT returned: the event is on disk, nothing
    is rolled back, and the interrupt goes on to stop the program (it is not turned into an error)."""
    with Journal(tmp_path / "j.sqlite3") as j:
        g = j.new_game("sushi-go", ["A", "B"])

        def steps(con):
            con.execute("INSERT INTO events(game_id, seq, kind, payload, source, t) VALUES (?, 1, 'turn', '{}', NULL, 0)", (g,))
            con.execute("COMMIT")
            raise KeyboardInterrupt

        with pytest.raises(KeyboardInterrupt):
            j._write("a turn", steps)
        assert [e.seq for e in j.events(g)] == [1]
        j.append(g, "turn", {})  # and the journal goes on
        assert [e.seq for e in j.events(g)] == [1, 2]
