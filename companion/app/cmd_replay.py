"""``companion replay FIXTURE [--json] [--screens DIR]``: play back a recorded game from its frames.

Each frame is read (mat, cards, zones), turned into the turn's plays, checked and applied by the
rules engine; rounds are scored as they end. An unreadable or illegal turn is reported with the
rule and stops the game cleanly, with the scores so far.

Exit status: 0 the whole game was read; 1 the game stopped at a refused or unreadable turn;
2 the fixture itself cannot be used.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from companion.app.fixture import FixtureError, load_fixture
from companion.inputs import InputError, check_regular_file, display_path
from companion.app.table_game import APPLIED, TableGame, TurnOutcome


def replay(fixture_dir, screens_dir=None) -> tuple[TableGame, list[TurnOutcome], str | None]:
    """Replay a fixture; return the game, each frame's outcome, and why it stopped (None: it finished).

    Raises:
        FixtureError: the fixture folder or its deck cannot be used, or ``screens_dir`` is not a
            folder that can be written.
    """
    from companion.app.views import final_view, scoreboard_view
    from companion.sim.game_sim import mat_for
    from companion.vision.deck import Deck, DeckError
    from companion.vision.cards import READ_MAX_SIDE
    from companion.vision.imageio import ImageReadError, read_working

    fx = load_fixture(fixture_dir)
    if screens_dir is not None:
        _screens_folder(screens_dir)
    try:
        deck = Deck.load(fx.deck_path)
    except DeckError as exc:
        raise FixtureError(str(exc)) from None
    try:
        game = TableGame(fx.players, mat_for(len(fx.players), fx.options), deck, fx.options)
    except ValueError as exc:
        raise FixtureError(f"{fx.folder / 'game.json'}: {exc}") from None
    display = None
    if screens_dir is not None:
        from companion.devices.display import PngDisplay

        display = PngDisplay(screens_dir, only_changes=True)
    outcomes: list[TurnOutcome] = []
    stopped = None
    for path in fx.frames:
        try:
            check_regular_file(path)  # a FIFO or device among the frames would hang or flood the read
            frame = read_working(path, READ_MAX_SIDE).image  # a 50 MP frame is not held whole
        except (InputError, ImageReadError) as exc:
            outcomes.append(TurnOutcome("unreadable", str(exc), game.state.round, game.state.turn))
            stopped = str(exc)
            break
        outcome = game.feed(frame)
        outcomes.append(outcome)
        if display is not None:
            kind = "info" if outcome.kind == APPLIED else "error"
            display.show(scoreboard_view(game.state, outcome.message, kind))
        if outcome.kind != APPLIED:
            stopped = f"round {outcome.round} turn {outcome.turn} ({path.name}): {outcome.message}"
            break
        if game.state.is_over:
            break
    if stopped is None and not game.state.is_over:
        stopped = f"the frames ran out at round {game.state.round} turn {game.state.turn}"
    if display is not None and game.state.is_over:
        display.show(final_view(game.state))
    return game, outcomes, stopped


def _screens_folder(screens_dir) -> Path:
    """``--screens DIR`` made ready before the game is read: created if missing.

    Raises:
        FixtureError: DIR is a file (or another non-folder), holds a NUL, or cannot be created
            (permissions, a file where a parent folder should be).
    """
    shown = display_path(screens_dir)
    if "\0" in str(screens_dir):
        raise FixtureError(f"--screens {shown}: the path holds a NUL character, which no folder name can")
    folder = Path(screens_dir)
    if folder.exists() and not folder.is_dir():
        raise FixtureError(f"--screens {shown}: is a file, not a folder; give a folder for the screens' PNGs")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise FixtureError(f"--screens {shown}: cannot create the folder ({exc.strerror or exc})") from None
    return folder


def _report(game: TableGame, outcomes: list[TurnOutcome], stopped: str | None) -> dict[str, Any]:
    state = game.state
    out: dict[str, Any] = {}
    if state.result is not None:
        out.update(state.result.to_dict())
    else:
        out["rounds"] = [dict(zip(state.players, rs.points)) for rs in state.round_scores]
    out["turns"] = [{"round": o.round, "turn": o.turn, "kind": o.kind, "message": o.message} for o in outcomes]
    out["stopped"] = stopped
    return out


def run(args, stdout=None, stderr=None) -> int:
    """Entry point for ``companion replay``; returns the exit status."""
    stdout = stdout or sys.stdout
    stderr = stderr or sys.stderr
    try:
        game, outcomes, stopped = replay(args.fixture, args.screens)
    except FixtureError as exc:
        print(f"companion replay: {exc}", file=stderr)
        return 2
    if args.json:
        json.dump(_report(game, outcomes, stopped), stdout, indent=2)
        stdout.write("\n")
    else:
        from companion.app.cmd_score import format_table

        for o in outcomes:
            print(("  " if o.kind == APPLIED else "! ") + o.message, file=stdout)
        if game.state.result is not None:
            print(file=stdout)
            print(format_table(game.state.result), file=stdout)
        else:
            for rs in game.state.round_scores:
                print(f"round {rs.round}: " + ", ".join(f"{n} {p}" for n, p in zip(game.state.players, rs.points)), file=stdout)
    if stopped is not None:
        print(f"companion replay: stopped: {stopped}", file=stderr)
        return 1
    return 0
