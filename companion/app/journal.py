"""The game journal: every event of every game at the table, in SQLite, so that nothing committed is
ever lost (issue #9 §3).

Events, not snapshots: a game's state is rebuilt by replaying its events through the rules engine
(each game's adapter knows how), so the journal holds only what happened: a turn applied, a card
named on the panel, an undo. An undo is an event too; nothing is ever deleted.

Durability (SQLite documentation, "Write-Ahead Logging", "PRAGMA synchronous", "Atomic Commit In
SQLite"): the database is in WAL mode with ``synchronous=FULL``, and each event is its own
transaction, so once :meth:`Journal.append` returns, the event survives ``kill -9`` and a power cut
(the WAL is synced at every commit in FULL mode). A crash mid-append loses only that event, which
was never reported as applied.

A file that is not a journal of this version (another SQLite database, a journal with another
schema, a corrupt file, not SQLite at all) is refused with :class:`JournalError` naming the file and
what to do, and is never written to: the check opens it read-only first.

Layout (``SCHEMA_VERSION`` 1)::

    meta(key TEXT PRIMARY KEY, value TEXT)            -- "schema" = "1", "app" = "companion"
    games(id INTEGER PRIMARY KEY, game TEXT, players TEXT (JSON list), options TEXT (JSON object),
          created REAL (Unix s), ended REAL NULL, result TEXT NULL (JSON))
    events(id INTEGER PRIMARY KEY, game_id INTEGER, seq INTEGER (1.. per game), kind TEXT,
           payload TEXT (JSON object), source TEXT NULL (JSON: where the camera was), t REAL)

Standard library only (sqlite3, json): ``companion games`` starts fast.
"""

from __future__ import annotations

import json
import os
import sqlite3
import stat
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion.inputs import file_type_problem

SCHEMA_VERSION = 1
APP_ID = "companion"
#: The SQLite file header (SQLite documentation, "Database File Format", 1.3).
SQLITE_HEADER = b"SQLite format 3\x00"
#: Where the service keeps the journal (systemd's StateDirectory=companion), else this folder.
DEFAULT_NAME = "journal.sqlite3"

_SCHEMA = """
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE games(
    id INTEGER PRIMARY KEY,
    game TEXT NOT NULL,
    players TEXT NOT NULL,
    options TEXT NOT NULL,
    created REAL NOT NULL,
    ended REAL,
    result TEXT
);
CREATE TABLE events(
    id INTEGER PRIMARY KEY,
    game_id INTEGER NOT NULL REFERENCES games(id),
    seq INTEGER NOT NULL,
    kind TEXT NOT NULL,
    payload TEXT NOT NULL,
    source TEXT,
    t REAL NOT NULL,
    UNIQUE(game_id, seq)
);
"""


class JournalError(Exception):
    """The journal cannot be used: the message names the file, the problem and what to do."""


#: The columns each table must have (a journal changed outside the companion may lack some).
_COLUMNS = {"games": {"id", "game", "players", "options", "created", "ended", "result"},
            "events": {"id", "game_id", "seq", "kind", "payload", "source", "t"}}
#: The longest JSON text one journal field holds, characters (an event is a few hundred; a
#: finished game's result a few thousand).
_MAX_FIELD_CHARS = 1_000_000
#: Unix seconds a journal time may hold: from 1970 to the year 9999 (time.localtime's range).
_MAX_T = 253_402_300_799.0


@dataclass(frozen=True)
class GameEntry:
    """One game in the journal. ``players`` in seat order; ``options`` as given to the game;
    ``created``/``ended`` Unix seconds (``ended`` None while the game is unfinished); ``result``
    the final result as ``companion score --json`` prints it, once ended; ``events`` how many."""

    id: int
    game: str
    players: tuple[str, ...]
    options: dict[str, Any]
    created: float
    ended: float | None
    result: dict[str, Any] | None
    events: int

    @property
    def finished(self) -> bool:
        return self.ended is not None


@dataclass(frozen=True)
class Event:
    """One journal event: ``seq`` counts from 1 within its game; ``kind`` is the adapter's word
    (``"turn"``, ``"undo"``, ``"named"``...); ``payload`` a JSON object; ``source`` where the camera
    was when it happened (e.g. ``{"frame": 812}`` for a replay), or None; ``t`` Unix seconds."""

    seq: int
    kind: str
    payload: dict[str, Any]
    source: dict[str, Any] | None
    t: float


def default_path() -> Path:
    """``$STATE_DIRECTORY/journal.sqlite3`` under systemd (``StateDirectory=companion``), else
    ``./journal.sqlite3``."""
    state = os.environ.get("STATE_DIRECTORY", "").split(":")[0]
    return Path(state or ".") / DEFAULT_NAME


def _refuse(path: Path, problem: str) -> JournalError:
    return JournalError(
        f"journal {path}: {problem}. It was left untouched: move it aside "
        f"(mv {path} {path}.old) to start a new journal, or give --journal another file"
    )


def _check_existing(path: Path) -> None:
    """Refuse ``path`` unless it is a journal of this schema, reading it only."""
    try:
        mode = os.stat(path).st_mode
    except OSError as exc:
        raise JournalError(f"journal {path}: cannot be read ({exc.strerror or exc})") from None
    problem = file_type_problem(mode)
    if problem is not None and not stat.S_ISDIR(mode):
        # a FIFO would block the open below forever, a device would be read (or written) as a database
        raise JournalError(f"journal {path}: {problem}; give a journal file, e.g. ./{DEFAULT_NAME}")
    try:
        with open(path, "rb") as f:
            head = f.read(len(SQLITE_HEADER))
    except IsADirectoryError:
        raise JournalError(f"journal {path}: is a folder; give a file, e.g. {path / DEFAULT_NAME}") from None
    except OSError as exc:
        raise JournalError(f"journal {path}: cannot be read ({exc.strerror or exc})") from None
    if not head:
        return  # an empty file (made by touch, or a crash before the first write): nothing to lose
    if head != SQLITE_HEADER:
        raise _refuse(path, "is not a companion journal (not an SQLite database)")
    try:
        con = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    except sqlite3.Error as exc:
        raise _refuse(path, f"cannot be opened ({exc})") from None
    try:
        ok = con.execute("PRAGMA quick_check").fetchone()
        if not ok or ok[0] != "ok":
            raise _refuse(path, f"is corrupt (SQLite quick_check: {ok[0] if ok else 'no answer'})")
        tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if "meta" not in tables:
            raise _refuse(path, "is an SQLite database but not a companion journal (no meta table)")
        meta = dict(con.execute("SELECT key, value FROM meta").fetchall())
        for table, columns in _COLUMNS.items():
            have = {r[1] for r in con.execute(f"PRAGMA table_info({table})")}
            if meta.get("app") == APP_ID and meta.get("schema") == str(SCHEMA_VERSION) and not columns <= have:
                missing = ", ".join(sorted(columns - have)) if have else "the whole table"
                raise _refuse(path, f"is damaged: its {table} table lacks {missing}")
    except sqlite3.DatabaseError as exc:
        raise _refuse(path, f"is corrupt ({exc})") from None
    finally:
        con.close()
    if meta.get("app") != APP_ID:
        raise _refuse(path, "is an SQLite database but not a companion journal")
    schema = meta.get("schema")
    if schema != str(SCHEMA_VERSION):
        older = schema is not None and schema.isdigit() and int(schema) < SCHEMA_VERSION
        which = "an older" if older else "another (newer?)"
        raise _refuse(
            path, f"was written by {which} version of the companion (journal schema {schema}; this one reads "
            f"{SCHEMA_VERSION}); open it with that version"
        )


class Journal:
    """The SQLite journal at ``path`` (created with its folder when missing).

    Raises:
        JournalError: the file is not a journal of this version, is corrupt, or cannot be created
            or written (permissions, a full disk); the file is left as it was.

    Source: SQLite documentation (WAL, ``PRAGMA synchronous=FULL``, transactions); Python's
    ``sqlite3`` module (``isolation_level=None``: explicit ``BEGIN IMMEDIATE``/``COMMIT``).
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        existed = self.path.exists()
        if existed:
            _check_existing(self.path)
        else:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise JournalError(f"journal {self.path}: cannot make its folder ({exc.strerror or exc})") from None
        try:
            self._con = sqlite3.connect(self.path, isolation_level=None, timeout=5.0)
            self._con.execute("PRAGMA journal_mode=WAL")
            self._con.execute("PRAGMA synchronous=FULL")
            self._con.execute("PRAGMA foreign_keys=ON")
            has_meta = self._con.execute(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'"
            ).fetchone()
            if not has_meta:
                # one transaction: a crash here leaves an empty file or a whole schema, never half
                self._con.execute("BEGIN IMMEDIATE")
                for statement in _SCHEMA.split(";"):
                    if statement.strip():
                        self._con.execute(statement)
                self._con.execute("INSERT INTO meta VALUES ('app', ?), ('schema', ?)", (APP_ID, str(SCHEMA_VERSION)))
                self._con.execute("COMMIT")
        except sqlite3.Error as exc:
            raise JournalError(f"journal {self.path}: cannot be opened for writing ({exc})") from None

    # ---- context manager --------------------------------------------------------------------
    def close(self) -> None:
        """Close the database (committed events are already on disk)."""
        con, self._con = getattr(self, "_con", None), None
        if con is not None:
            con.close()

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # ---- writing ----------------------------------------------------------------------------
    def _write(self, what: str, sql_steps) -> Any:
        """Run ``sql_steps(con)`` in one transaction; a failure rolls back and names ``what``."""
        con = self._con
        if con is None:
            raise JournalError(f"journal {self.path}: closed")
        try:
            con.execute("BEGIN IMMEDIATE")
            try:
                value = sql_steps(con)
                con.execute("COMMIT")
            except BaseException:
                # A signal (SIGTERM as KeyboardInterrupt) can land just after COMMIT returned: the
                # event is on disk then, and there is nothing to roll back.
                if con.in_transaction:
                    con.execute("ROLLBACK")
                raise
        except sqlite3.Error as exc:
            hint = " (is the disk full?)" if "full" in str(exc).lower() else ""
            raise JournalError(f"journal {self.path}: could not record {what}: {exc}{hint}") from None
        return value

    def new_game(self, game: str, players: list[str] | tuple[str, ...], options: dict[str, Any] | None = None) -> int:
        """Start a game; returns its id. Earlier unfinished games are kept as they are."""
        now = time.time()
        return self._write("a new game", lambda con: con.execute(
            "INSERT INTO games(game, players, options, created) VALUES (?, ?, ?, ?)",
            (game, json.dumps(list(players)), json.dumps(options or {}, sort_keys=True), now),
        ).lastrowid)

    def append(self, game_id: int, kind: str, payload: dict[str, Any], source: dict[str, Any] | None = None) -> Event:
        """Record one event as its own transaction; when this returns it is on disk.

        Raises:
            JournalError: the game does not exist or has ended, or the write failed (nothing is
                recorded then).
        """
        now = time.time()
        body = json.dumps(payload, sort_keys=True)
        where = None if source is None else json.dumps(source, sort_keys=True)

        def steps(con):
            row = con.execute("SELECT ended FROM games WHERE id = ?", (game_id,)).fetchone()
            if row is None:
                raise JournalError(f"journal {self.path}: no game {game_id}")
            if row[0] is not None:
                raise JournalError(f"journal {self.path}: game {game_id} has ended; it takes no more events")
            seq = con.execute("SELECT COALESCE(MAX(seq), 0) + 1 FROM events WHERE game_id = ?", (game_id,)).fetchone()[0]
            con.execute("INSERT INTO events(game_id, seq, kind, payload, source, t) VALUES (?, ?, ?, ?, ?, ?)",
                        (game_id, seq, kind, body, where, now))
            return seq

        seq = self._write(f"the event {kind!r}", steps)
        return Event(seq, kind, json.loads(body), None if where is None else json.loads(where), now)

    def finish(self, game_id: int, result: dict[str, Any]) -> None:
        """Mark a game ended with its final result (``companion score --json``'s object)."""
        now = time.time()
        self._write("the end of the game", lambda con: con.execute(
            "UPDATE games SET ended = ?, result = ? WHERE id = ? AND ended IS NULL",
            (now, json.dumps(result, sort_keys=True), game_id),
        ))

    def reopen(self, game_id: int, kind: str, payload: dict[str, Any]) -> Event:
        """Take an ended game up again with one event (an ``undo`` of its last turn, pressed on the
        final screen), in one transaction: the game is unfinished again (its result cleared, to be
        written anew when it ends) and the event is recorded; nothing is deleted.

        Raises:
            JournalError: the game does not exist or has not ended, or the write failed (nothing
                changes then).
        """
        now = time.time()
        body = json.dumps(payload, sort_keys=True)

        def steps(con):
            row = con.execute("SELECT ended FROM games WHERE id = ?", (game_id,)).fetchone()
            if row is None or row[0] is None:
                raise JournalError(f"journal {self.path}: game {game_id} has not ended; nothing to reopen")
            con.execute("UPDATE games SET ended = NULL, result = NULL WHERE id = ?", (game_id,))
            seq = con.execute("SELECT COALESCE(MAX(seq), 0) + 1 FROM events WHERE game_id = ?", (game_id,)).fetchone()[0]
            con.execute("INSERT INTO events(game_id, seq, kind, payload, source, t) VALUES (?, ?, ?, ?, ?, ?)",
                        (game_id, seq, kind, body, None, now))
            return seq

        seq = self._write(f"the event {kind!r} reopening game {game_id}", steps)
        return Event(seq, kind, json.loads(body), None, now)

    # ---- reading ----------------------------------------------------------------------------
    def _damaged(self, where: str, problem: str) -> JournalError:
        return JournalError(
            f"journal {self.path}: {where} is damaged ({problem}); it was changed outside the companion. "
            f"Copy it aside (mv {self.path} {self.path}.old) to start a new journal"
        )

    def _json(self, text: Any, where: str, kind: type, nullable: bool = False) -> Any:
        """A JSON field of a row, checked: ``kind`` (dict or list), or None if ``nullable``."""
        from companion.rules.errors import MalformedGame
        from companion.rules.records import parse_json_strictly

        if text is None and nullable:
            return None
        if not isinstance(text, str):
            raise self._damaged(where, f"{type(text).__name__} where JSON text belongs")
        try:
            value = parse_json_strictly(text, what="a journal field", max_chars=_MAX_FIELD_CHARS,
                                        typical="a few hundred", deepest="a few levels")
        except MalformedGame as exc:
            raise self._damaged(where, str(exc)) from None
        if not isinstance(value, kind) and not (value is None and nullable):
            raise self._damaged(where, f"not a JSON {'object' if kind is dict else 'list'}")
        return value

    def _time(self, value: Any, where: str, nullable: bool = False) -> float | None:
        if value is None and nullable:
            return None
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= _MAX_T:
            raise self._damaged(where, f"{value!r} is not a time")
        return float(value)

    def games(self) -> list[GameEntry]:
        """Every game, oldest first.

        Raises:
            JournalError: a row that the companion cannot have written (the file was changed
                outside it), naming the game and the field.
        """
        try:
            rows = self._con.execute(
                "SELECT g.id, g.game, g.players, g.options, g.created, g.ended, g.result, "
                "(SELECT COUNT(*) FROM events e WHERE e.game_id = g.id) FROM games g ORDER BY g.id"
            ).fetchall()
        except sqlite3.Error as exc:
            raise self._damaged("the games table", str(exc)) from None
        out = []
        for r in rows:
            where = f"game {r[0]}"
            players = self._json(r[2], f"{where}'s players", list)
            if not players or not all(isinstance(n, str) for n in players):
                raise self._damaged(f"{where}'s players", "not a list of names")
            if not isinstance(r[1], str):
                raise self._damaged(f"{where}'s game", f"{r[1]!r} is not a game's name")
            out.append(GameEntry(r[0], r[1], tuple(players), self._json(r[3], f"{where}'s options", dict),
                                 self._time(r[4], f"{where}'s start"), self._time(r[5], f"{where}'s end", True),
                                 self._json(r[6], f"{where}'s result", dict, nullable=True), r[7]))
        return out

    def game(self, game_id: int) -> GameEntry:
        """One game. Raises JournalError when there is no such game."""
        for entry in self.games():
            if entry.id == game_id:
                return entry
        raise JournalError(f"journal {self.path}: no game {game_id} (companion games lists them)")

    def unfinished(self, game: str | None = None) -> GameEntry | None:
        """The latest unfinished game (of kind ``game`` if given), or None."""
        for entry in reversed(self.games()):
            if not entry.finished and (game is None or entry.game == game):
                return entry
        return None

    def events(self, game_id: int) -> list[Event]:
        """The game's events in order."""
        try:
            rows = self._con.execute(
                "SELECT seq, kind, payload, source, t FROM events WHERE game_id = ? ORDER BY seq", (game_id,)
            ).fetchall()
        except sqlite3.Error as exc:
            raise self._damaged("the events table", str(exc)) from None
        out = []
        for r in rows:
            where = f"game {game_id}'s event {r[0]}"
            if not isinstance(r[1], str):
                raise self._damaged(f"{where}'s kind", f"{r[1]!r} is not an event kind")
            out.append(Event(r[0], r[1], self._json(r[2], f"{where}'s payload", dict),
                             self._json(r[3], f"{where}'s source", dict, nullable=True),
                             self._time(r[4], f"{where}'s time")))
        return out
