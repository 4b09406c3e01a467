"""The ``companion`` command line.

Every subcommand imports its implementation only when it runs, so ``companion score`` never
pays for cv2 or pygame (issue #2 §3: start-up ≤ 0.3 s). Exit status: 0 ok, 2 bad input.
"""

from __future__ import annotations

import argparse
import importlib
import sys

#: Games the camera, demo and replay handle.
GAMES = ("sushi-go",)
#: The games ``companion play`` runs (companion.app.games.GAMES, without importing it here).
PLAY_GAMES = ("sushi-go", "sushi-roll", "sushi-express")
#: Games ``companion score`` scores from a file.
SCORE_GAMES = ("sushi-go", "sushi-roll", "sushi-express")

#: subcommand → module under companion.app that holds ``run(args) -> int``.
_HANDLERS = {
    "score": "companion.app.cmd_score",
    "enroll": "companion.app.cmd_vision",
    "classify": "companion.app.cmd_vision",
    "read": "companion.app.cmd_vision",
    "mat": "companion.app.cmd_mat",
    "replay": "companion.app.cmd_replay",
    "demo": "companion.app.cmd_demo",
    "watch": "companion.app.cmd_watch",
    "doctor": "companion.app.cmd_doctor",
    "play": "companion.app.cmd_play",
    "games": "companion.app.cmd_journal",
    "export": "companion.app.cmd_journal",
}


def build_parser() -> argparse.ArgumentParser:
    """The argument parser for every subcommand (no heavy imports here)."""
    p = argparse.ArgumentParser(prog="companion", description="Tabletop companion for the Sushi Go! family.")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    s = sub.add_parser("score", help="score a finished game from a JSON file")
    s.add_argument("--game", required=True, choices=SCORE_GAMES)
    s.add_argument("--json", action="store_true", help="print JSON instead of a table")
    s.add_argument("file", metavar="FILE", help="the game file ('-' for standard input)")

    s = sub.add_parser("enroll", help="learn a physical deck (or a set of Sushi Roll dice) from example images")
    what = s.add_mutually_exclusive_group(required=True)
    what.add_argument("--deck", metavar="DIR", help="one sub-folder per card label, each with images")
    what.add_argument("--dice", metavar="DIR", help="one sub-folder per Sushi Roll face (e.g. maki*2), each with images")
    s.add_argument("--out", required=True, metavar="DECK.npz|DICE.npz")

    s = sub.add_parser("classify", help="label images of single, cropped cards")
    s.add_argument("--deck", required=True, metavar="DECK.npz")
    s.add_argument("--json", action="store_true")
    s.add_argument("images", nargs="+", metavar="IMAGE")

    s = sub.add_parser("read", help="find and label things in table photos")
    s.add_argument("what", choices=("cards", "dice"))
    s.add_argument("--deck", metavar="DECK.npz", help="the enrolled deck (read cards)")
    s.add_argument("--kind", choices=("d6", "sushi-roll"), help="which dice (read dice)")
    s.add_argument("--dice", metavar="DICE.npz", help="the enrolled Sushi Roll dice (read dice --kind sushi-roll)")
    s.add_argument("--json", action="store_true")
    s.add_argument("images", nargs="+", metavar="IMAGE")

    s = sub.add_parser("mat", help="render the printable play mat")
    s.add_argument("--players", type=int, required=True, choices=range(2, 6), metavar="N")
    s.add_argument("--game", default="sushi-go", choices=("sushi-go", "sushi-roll"),
                   help="which game's mat: card zones (sushi-go) or a conveyor belt and a tray per seat (sushi-roll)")
    s.add_argument("--out", required=True, metavar="mat.png")
    s.add_argument("--dpi", type=int, default=300)

    s = sub.add_parser("replay", help="play back a recorded game fixture")
    s.add_argument("fixture", metavar="FIXTURE", help="a fixture folder (game.json + frames)")
    s.add_argument("--json", action="store_true")
    s.add_argument("--screens", metavar="DIR", help="write the display's screens as PNGs here")

    s = sub.add_parser("watch", help="watch a camera or video and report when the table moves and settles")
    s.add_argument("source", metavar="SOURCE", help="a video file, a folder of frames, or a camera (pi, usb:N)")
    s.add_argument("--fps", type=float, default=None, help="frames per second (default: the video's, else 30)")
    s.add_argument("--json", action="store_true", help="one JSON object per line per event")

    s = sub.add_parser("doctor", help="check the camera, display, panel, Pico, mat, deck and service; say what to fix")
    s.add_argument("--camera", default="auto", help="pi, usb:N, replay:DIR, sim (default: pi on a Pi, else sim)")
    s.add_argument("--display", default="auto", help="kmsdrm, window or dummy (default: kmsdrm on a Pi, else dummy)")
    s.add_argument("--panel", default="auto", help="gpio, mock, keys, script:FILE, none (default: gpio on a Pi, else mock)")
    s.add_argument("--link", default="auto", help="the Pico: auto, serial:PATH, loop, none (default: auto on a Pi, else loop)")
    s.add_argument("--pinout", metavar="FILE", help="the pinout file (default: hardware/pinout.toml)")
    s.add_argument("--players", type=int, default=4, choices=range(2, 6), metavar="N", help="which mat to look for")
    s.add_argument("--deck", metavar="DECK.npz", help="check this enrolled deck")
    s.add_argument("--dice", metavar="DICE.npz", help="check these enrolled Sushi Roll dice")
    s.add_argument("--interactive", action="store_true", help="ask to press each panel button in turn")
    s.add_argument("--json", action="store_true", help="one JSON object instead of lines")

    s = sub.add_parser("play", help="play a whole game at the table: camera, panel, screen, journal")
    s.add_argument("--game", default="sushi-go", choices=PLAY_GAMES)
    s.add_argument("--players", metavar="Ann,Bo,...", help="the players in seat order (2-5 names)")
    s.add_argument("--option", action="append", metavar="NAME=VALUE", help="a variant option, e.g. dummy=true")
    s.add_argument("--deck", metavar="DECK.npz", help="your enrolled deck (not needed with --camera sim)")
    s.add_argument("--dice", metavar="DICE.npz", help="your enrolled Sushi Roll dice (not needed with --camera sim)")
    s.add_argument("--camera", default="pi", help="pi, usb:N, replay:DIR or sim (default: pi)")
    s.add_argument("--panel", default="none", help="gpio, keys, mock, script:FILE or none (default: none)")
    s.add_argument("--display", default="auto",
                   help="auto, kmsdrm, window, png:DIR or none (default auto: a window on a desktop, "
                        "the screen on a Pi, else none)")
    s.add_argument("--link", default="none", help="the Pico: auto, serial:PATH, loop or none (default: none)")
    s.add_argument("--journal", metavar="PATH", help="the journal (default: the service's, else ./journal.sqlite3)")
    s.add_argument("--new", action="store_true", help="start a new game even if one is unfinished")
    s.add_argument("--seed", type=int, default=1, help="the simulated game's seed (--camera sim)")
    s.add_argument("--sim-turns", type=int, metavar="N", help="end the simulated camera after N turns (tests, benches)")
    s.add_argument("--json", action="store_true", help="one JSON object per line as things happen")

    s = sub.add_parser("games", help="list the games in the journal")
    s.add_argument("--journal", metavar="PATH", help="the journal (default: the service's, else ./journal.sqlite3)")
    s.add_argument("--json", action="store_true")

    s = sub.add_parser("export", help="take one game out of the journal: a score record or its result")
    s.add_argument("which", metavar="GAME|latest", help="a game number from `companion games`, or 'latest'")
    s.add_argument("--journal", metavar="PATH", help="the journal (default: the service's, else ./journal.sqlite3)")
    how = s.add_mutually_exclusive_group(required=True)
    how.add_argument("--record", metavar="FILE.json", help="write the game in the `companion score` format")
    how.add_argument("--json", action="store_true", help="print the result as `companion score --json` does")
    how.add_argument("--sheet", metavar="FILE.png", help="write a score sheet picture with every breakdown line")

    s = sub.add_parser("demo", help="simulate a whole game, read it from rendered frames, and score it")
    s.add_argument("--game", default="sushi-go", choices=PLAY_GAMES)
    s.add_argument("--players", type=int, default=4, choices=range(2, 7), metavar="N")
    s.add_argument("--seed", type=int, default=1)
    s.add_argument("--headless", action="store_true", help="write PNGs instead of opening a window")
    s.add_argument("--screens", metavar="DIR", default="demo-screens", help="where --headless writes PNGs")
    s.add_argument("--dummy", action="store_true", help="2 players with the dummy variant")
    return p


def _printable_stdout() -> None:
    """Let stdout write any text: a character its encoding cannot hold (a name on a Latin-1
    terminal, a lone surrogate that got through) is written as a backslash escape instead of
    raising UnicodeEncodeError half-way through a table (stderr does this already, Python's
    default). Streams that cannot be reconfigured (a test's StringIO) are left as they are."""
    reconfigure = getattr(sys.stdout, "reconfigure", None)
    if reconfigure is not None:
        try:
            reconfigure(errors="backslashreplace")
        except (ValueError, OSError):  # io.UnsupportedOperation is both
            pass


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``companion`` console script; returns the exit status."""
    args = build_parser().parse_args(argv)
    _printable_stdout()
    module = importlib.import_module(_HANDLERS[args.command])
    try:
        return int(module.run(args) or 0)
    except BrokenPipeError:
        # The reader went away (`companion score ... | head`): stop quietly, like other Unix tools.
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1


if __name__ == "__main__":
    sys.exit(main())
