"""``companion games`` and ``companion export``: what the journal holds, and a game taken out of it
(issue #9 §3).

``games`` lists every game (finished or not) with its players, when it started, where it stands
and who won. ``export GAME|latest`` writes one game as a ``companion score`` record
(``--record FILE.json``: ``companion score`` on it gives the same totals), prints its result as
``companion score --json`` does (``--json``), or draws a score sheet (``--sheet FILE.png``). Standard library only until a game is replayed.

Exit status: 0 done; 2 bad input (no such journal or game, a journal refused, an unfinished game
asked for a record).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from companion.app.cli_util import err


def _open(args):
    from companion.app.journal import Journal, default_path

    path = Path(args.journal) if args.journal else default_path()
    if not path.exists():
        raise FileNotFoundError(f"no journal at {path} (companion play writes one; --journal PATH names another)")
    return Journal(path)


def run_games(args, journal) -> int:
    from companion.app.games import adapter
    from companion.app.journal import JournalError

    rows = []
    for entry in journal.games():
        result = entry.result
        if entry.finished:
            total = (result or {}).get("total", {})
            winners = (result or {}).get("winners", [])
            points = [v for v in total.values() if isinstance(v, (int, float))] if isinstance(total, dict) else []
            if not isinstance(winners, list) or not all(isinstance(w, str) for w in winners):
                winners = []  # a result changed outside the companion: say what can be said
            where = f"finished: {' and '.join(winners) or 'nobody'} won with {max(points, default=0)}"
        else:
            try:
                state = adapter(entry.game).rebuild(entry.players, entry.options, journal.events(entry.id))
                where = f"unfinished: round {state.round}, turn {state.turn}"
            except (KeyError, JournalError) as exc:
                where = f"cannot replay: {exc.args[0] if isinstance(exc, KeyError) else exc}"
        rows.append({"id": entry.id, "game": entry.game, "players": list(entry.players),
                     "options": entry.options, "started": entry.created, "ended": entry.ended,
                     "events": entry.events, "status": where, "result": result})
    if args.json:
        json.dump(rows, sys.stdout, ensure_ascii=False, indent=2)
        print()
        return 0
    if not rows:
        print(f"no games in {journal.path}")
        return 0
    from companion.app.cli_util import table

    print(table([[str(r["id"]), r["game"], ", ".join(r["players"]),
                  time.strftime("%Y-%m-%d %H:%M", time.localtime(r["started"])), r["status"]] for r in rows],
                ["game", "kind", "players", "started", "status"]))
    return 0


def _pick(journal, which: str):
    from companion.app.journal import JournalError

    games = journal.games()
    if which == "latest":
        if not games:
            raise JournalError(f"journal {journal.path}: no games yet")
        return games[-1]
    if not which.isdigit():
        raise JournalError(f"which game: a number from `companion games`, or 'latest'; not {which!r}")
    return journal.game(int(which))


def run_export(args, journal) -> int:
    from companion.app.games import adapter
    from companion.app.journal import JournalError

    try:
        entry = _pick(journal, args.which)
        game = adapter(entry.game)
        events = journal.events(entry.id)
        if args.record:
            record = game.record(entry.players, entry.options, events)
        else:
            state = game.rebuild(entry.players, entry.options, events)
            if args.sheet and not state.is_over:
                raise JournalError(f"the game is not over (round {state.round}, turn {state.turn}): no score sheet yet")
    except (KeyError, JournalError) as exc:
        err(f"game {args.which}: {exc.args[0] if isinstance(exc, KeyError) else exc}")
        return 2
    if args.record:
        out = Path(args.record)
        try:
            out.write_text(json.dumps(record, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
        except OSError as exc:
            err(f"cannot write {out}: {exc.strerror or exc}")
            return 2
        print(f"wrote game {entry.id} to {out} (companion score --game {entry.game} {out})")
        return 0
    if args.sheet:
        try:
            path = write_sheet(state, args.sheet, game.views())
        except OSError as exc:
            err(f"cannot write {args.sheet}: {exc.strerror or exc}")
            return 2
        print(f"wrote the score sheet of game {entry.id} to {path}")
        return 0
    result = game.result(state)
    if result is None:
        err(f"game {entry.id} is not over (round {state.round}, turn {state.turn}): no result yet")
        return 2
    json.dump(result, sys.stdout, ensure_ascii=False, indent=2)
    print()
    return 0


#: The score sheet's page: one screen-sized panel per part, stacked (px).
SHEET_PANEL = (800, 480)


def write_sheet(state, path, views) -> Path:
    """A finished game as one PNG for sharing: the final ranking, then each round's points with
    every breakdown line (the play loop's screens from the game's ``views``, stacked, 800 px wide).

    Raises:
        OSError: the file cannot be written.
    """
    from companion.app.play_screens import render_play
    from companion.app.screens import _pygame, save_png

    pg = _pygame()
    parts = [views.final_view(state)] + [views.round_summary_view(state, r) for r in range(1, len(getattr(state, "round_scores", ())) + 1)]
    w, h = SHEET_PANEL
    sheet = pg.Surface((w, h * len(parts)))
    for i, view in enumerate(parts):
        sheet.blit(render_play(view, SHEET_PANEL), (0, i * h))
    out = Path(path)
    if out.parent and not out.parent.exists():
        raise FileNotFoundError(2, "no such folder", str(out.parent))
    return save_png(sheet, out)


def run(args) -> int:
    from companion.app.journal import JournalError

    try:
        journal = _open(args)
    except (FileNotFoundError, JournalError) as exc:
        err(str(exc))
        return 2
    with journal:
        try:
            return run_games(args, journal) if args.command == "games" else run_export(args, journal)
        except JournalError as exc:  # a row changed outside the companion, found while reading
            err(str(exc))
            return 2
