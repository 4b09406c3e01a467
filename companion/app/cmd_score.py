"""``companion score``: score a finished game from a JSON record.

Exit status 0 on success, 2 for any bad input (a missing file, a folder, FIFO or device, a file
over a million characters or not UTF-8, see :mod:`companion.inputs`; bad JSON — including JSON
nested too deep, NaN, out-of-range numbers, duplicate keys or lone surrogates, see
:func:`companion.rules.records.parse_record_json` — malformed record, illegal play), with one message
on stderr naming the file, the field and the problem. Imports only the pure
rules engine, so it starts fast and never loads cv2, numpy or pygame.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TextIO

from companion.inputs import SCORE_RECORD, InputError, display_path, read_stdin, read_text
from companion.rules.core import GameResult
from companion.rules.errors import MalformedGame
from companion.rules.records import parse_record_json
from companion.rules.sushi_go.record import format_sushi_go_table, score_game_record


def _read(file: str) -> str:
    """The record's text ('-': stdin) through the input layer: a regular file only (a folder, a
    FIFO, /dev/zero are refused unread), at most a record's cap, strict UTF-8."""
    if file == "-":
        return read_stdin(SCORE_RECORD)
    return read_text(file, SCORE_RECORD)


def format_table(result: GameResult) -> str:
    """The Sushi Go! scoreboard (``replay`` prints it too): see
    :func:`companion.rules.sushi_go.record.format_sushi_go_table`."""
    return format_sushi_go_table(result)


def _scorer(game: str):
    """(score a record, format the result as a table) for ``game``; each game's module loads only
    when that game is scored."""
    if game == "sushi-express":
        from companion.rules.sushi_express.record import format_sushi_express_table, score_sushi_express_record

        return score_sushi_express_record, format_sushi_express_table
    if game == "sushi-roll":
        from companion.rules.sushi_roll.record import score_sushi_roll_record
        from companion.rules.sushi_roll.scoring import format_sushi_roll_table

        return score_sushi_roll_record, format_sushi_roll_table
    return score_game_record, format_table


def run(args: argparse.Namespace, stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    """Score ``args.file`` ('-' for stdin) for ``args.game``; print JSON if ``args.json`` else a table.

    Returns 0, or 2 after printing one error line to stderr.
    """
    stdout = stdout or sys.stdout
    stderr = stderr or sys.stderr
    where = "<stdin>" if args.file == "-" else display_path(args.file)
    try:
        text = _read(args.file)
    except InputError as exc:
        print(f"companion score: {exc}", file=stderr)
        return 2
    score, table = _scorer(args.game)
    try:
        result = score(parse_record_json(text))
    except MalformedGame as exc:
        print(f"companion score: {where}: {exc}", file=stderr)
        return 2
    if args.json:
        json.dump(result.to_dict(), stdout, ensure_ascii=False, indent=2)
        stdout.write("\n")
    else:
        stdout.write(table(result))
    return 0
