"""Issue #14: every file a command reads goes through one input layer (:mod:`companion.inputs`),
strict JSON (:func:`companion.rules.records.parse_json_strictly`) and one player-name check
(:func:`companion.rules.core.player_names`). One test per item of the issue, named after it.

Hangs are tested in a subprocess with a timeout, so a regression fails the test instead of
hanging the run.
"""

from __future__ import annotations

import io
import json
import os
import random
import re
import subprocess
import sys
from argparse import Namespace
from pathlib import Path

import pytest

from companion.cli import main
from companion.inputs import SCORE_RECORD, InputError, InputKind, read_json, read_stdin, read_text
from companion.rules.core import MAX_NAME_CHARS, player_names
from companion.rules.errors import MalformedGame
from companion.rules.records import parse_record_json

FIXTURES = Path(__file__).parent / "fixtures"
RECORDS = {
    "sushi-go": FIXTURES / "score" / "three_players.json",
    "sushi-roll": FIXTURES / "score" / "sushi_roll_three_players.json",
    "sushi-express": FIXTURES / "score" / "sushi_express_rulebook.json",
}
REPLAY_FIXTURE = FIXTURES / "sushi-go-dummy"
HANG_TIMEOUT_S = 60  # generous for a loaded machine: a refusal takes well under a second

needs_fifo = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes need os.mkfifo (POSIX)")


def companion(*args: str, input: bytes | None = None, env=None) -> subprocess.CompletedProcess:
    """Run the real CLI in a subprocess, ``input`` on its stdin (else none); a hang raises
    subprocess.TimeoutExpired, so the test fails instead of hanging."""
    code = "from companion.cli import main; raise SystemExit(main())"
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, timeout=HANG_TIMEOUT_S,
                          input=input, stdin=subprocess.DEVNULL if input is None else None, env=env)


def one_named_error(err: bytes | str, *needles: str) -> str:
    text = err.decode("utf-8", "backslashreplace") if isinstance(err, bytes) else err
    assert "Traceback" not in text, text
    assert len(text.strip().splitlines()) == 1, text
    for needle in needles:
        assert needle in text, (needle, text)
    return text


def record_with_names(game: str, replace: dict[int, str]) -> str:
    """The game's fixture record as JSON text with player ``k`` renamed to ``replace[k]``
    everywhere (players list and every key), written with JSON escapes."""
    text = RECORDS[game].read_text()
    names = json.loads(text)["players"]
    swap = {json.dumps(names[k]): json.dumps(new) for k, new in replace.items()}
    return re.sub("|".join(map(re.escape, swap)), lambda m: swap[m.group(0)], text)  # all at once


def replay_fixture(tmp_path: Path, change=None, name: str = "fx") -> Path:
    """A copy of the dummy-variant fixture's game.json in ``tmp_path / name`` with absolute deck
    and frame paths (the frames stay where they are), changed by ``change(data)``."""
    data = json.loads((REPLAY_FIXTURE / "game.json").read_text())
    data["deck"] = str((REPLAY_FIXTURE / data["deck"]).resolve())
    for frame in data["frames"]:
        frame["file"] = str((REPLAY_FIXTURE / frame["file"]).resolve())
    if change is not None:
        change(data)
    folder = tmp_path / name
    folder.mkdir()
    (folder / "game.json").write_text(json.dumps(data))
    return folder


# --- #14 item 3: replay's ordinary mistakes ----------------------------------------------------
def _nul_in_frame(data):
    data["frames"][2]["file"] = "frames/r1-\x00t03.jpg"


REPLAY_MISTAKES = {
    "game.json given instead of its folder": (lambda fx: (fx / "game.json", None), "give the fixture folder"),
    "game.json is a folder": (lambda fx: _replace(fx, lambda p: p.mkdir()), "is a folder, not a file"),
    "symlink loop": (lambda fx: _replace(fx, lambda p: (p.symlink_to(p.with_name("loop")),
                                                        p.with_name("loop").symlink_to(p))), "loop of symbolic links"),
    "UTF-16": (lambda fx: _rewrite(fx, lambda t: t.encode("utf-16")), "UTF-16"),
    "Latin-1": (lambda fx: _rewrite(fx, lambda t: t.replace('"Ann"', '"Zo\u00eb"').encode("latin-1")), "Latin-1"),
    "5000-deep value": (lambda fx: _rewrite(fx, lambda t: (t[:-1] + ', "x": ' + "[" * 5000 + "]" * 5000 + "}").encode()),
                        "nested more than 32 deep"),
    "5000-digit integer": (lambda fx: _rewrite(fx, lambda t: (t[:-1] + ', "x": ' + "9" * 5000 + "}").encode()),
                           "a whole number of 5000 digits"),
    "--screens is a file": (lambda fx: (fx, _touch(fx.parent / "screens.png")), "--screens"),
}


def _replace(fx: Path, make) -> tuple[Path, None]:
    (fx / "game.json").unlink()
    make(fx / "game.json")
    return fx, None


def _rewrite(fx: Path, encode) -> tuple[Path, None]:
    path = fx / "game.json"
    path.write_bytes(encode(path.read_text()))
    return fx, None


def _touch(path: Path) -> Path:
    path.write_bytes(b"")
    return path


@pytest.mark.parametrize("case", list(REPLAY_MISTAKES))
def test_14_3_replay_mistakes_are_one_named_error_exit_2(tmp_path, capsys, case):
    """game.json given instead of its folder, game.json a folder, a symlink loop, UTF-16 or
    Latin-1 text, a 5000-deep value, a 5000-digit integer, ``--screens`` naming a file."""
    from companion.app.cmd_replay import run

    make, words = REPLAY_MISTAKES[case]
    fixture, screens = make(replay_fixture(tmp_path))
    code = run(Namespace(fixture=str(fixture), json=False, screens=None if screens is None else str(screens)))
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert err.startswith("companion replay: ")
    one_named_error(err, words)


def test_14_3_a_nul_in_a_frame_name_is_named_before_any_frame_is_read(tmp_path, capsys):
    from companion.app.cmd_replay import run

    fixture = replay_fixture(tmp_path, _nul_in_frame)
    assert run(Namespace(fixture=str(fixture), json=False, screens=None)) == 2
    one_named_error(capsys.readouterr().err, "frames[2]", "NUL")


@needs_fifo
def test_14_3_a_named_pipe_as_game_json_or_as_a_frame_does_not_hang_replay(tmp_path):
    fixture = replay_fixture(tmp_path)
    (fixture / "game.json").rename(fixture / "real.json")
    os.mkfifo(fixture / "game.json")
    done = companion("replay", str(fixture))
    assert done.returncode == 2
    one_named_error(done.stderr, "game.json", "named pipe (FIFO)")

    # a FIFO among the frames: the game stops at that turn, named, exit 1
    fifo_frame = tmp_path / "frame.jpg"
    os.mkfifo(fifo_frame)
    fixture2 = replay_fixture(tmp_path, lambda d: d["frames"][0].update(file=str(fifo_frame)), name="fx2")
    done = companion("replay", str(fixture2))
    assert done.returncode == 1
    assert b"named pipe (FIFO)" in done.stderr and b"Traceback" not in done.stderr


# --- #14 item 5: numbers of more than 4 300 digits, 100 000-deep values ---------------------
@pytest.mark.parametrize("text", [
    "9" * 5000,
    '[{"t": 0, "event": "ok", "x": -' + "1" * 4301 + "}]",
    "[" * 100_000 + "]" * 100_000,
    '{"a":' * 100_000 + "1" + "}" * 100_000,
    "[" * 100_000,
    "1" * 5000 + ".5",
    "1e" + "9" * 5000,
], ids=["5000 digits", "4301 digits inside", "100 000 [", "100 000 {", "unclosed", "5000-digit float", "huge exponent"])
def test_14_5_any_bad_text_is_one_named_error_never_value_or_recursion_error(tmp_path, text):
    """Records (rules.records) and panel scripts (devices.panel) both read strict JSON: Python's
    int() refuses more than 4 300 digits with a bare ValueError, its parser recurses."""
    from companion.devices.panel import PanelError, load_script

    with pytest.raises(MalformedGame) as exc:
        parse_record_json(text)
    assert str(exc.value)
    script = tmp_path / "script.json"
    script.write_text(text)
    with pytest.raises(PanelError, match=r"panel script .*script.json: "):
        load_script(script)


def test_14_5_a_5000_digit_number_or_a_deep_array_in_the_pinout_is_named(tmp_path):
    from companion.devices.pinout import PinoutError, load_pinout

    pinout = tmp_path / "pinout.toml"
    pinout.write_text("[buttons]\nok = " + "9" * 5000 + "\n")
    with pytest.raises(PinoutError, match=r"pinout.toml: not valid TOML"):
        load_pinout(pinout)
    pinout.write_text("x = " + "[" * 5000 + "]" * 5000 + "\n")
    with pytest.raises(PinoutError, match=r"nested too deeply"):
        load_pinout(pinout)


# --- #14 item 6: a lone surrogate in a name -----------------------------------------------------
@pytest.mark.parametrize("as_json", [False, True], ids=["table", "json"])
@pytest.mark.parametrize("game", list(RECORDS))
def test_14_6_a_lone_surrogate_name_is_refused_before_anything_is_printed(tmp_path, game, as_json):
    path = tmp_path / "game.json"
    path.write_text(record_with_names(game, {0: "\ud800"}))
    assert "\\ud800" in path.read_text()  # as JSON writes it: an escape, the file is valid UTF-8
    done = companion("score", "--game", game, *(["--json"] if as_json else []), str(path))
    assert done.returncode == 2 and done.stdout == b""
    one_named_error(done.stderr, "players[0]", "lone UTF-16 surrogate")


def test_14_6_a_lone_surrogate_name_in_a_replay_fixture_is_refused(tmp_path, capsys):
    from companion.app.cmd_replay import run

    fixture = replay_fixture(tmp_path, lambda d: d["players"].__setitem__(0, "\udfff"))
    assert run(Namespace(fixture=str(fixture), json=False, screens=None)) == 2
    one_named_error(capsys.readouterr().err, "players[0]", "surrogate")


def test_14_6_printing_never_crashes_on_a_name_the_terminal_cannot_show(tmp_path):
    """A valid name that a Latin-1 terminal cannot encode is escaped, not a UnicodeEncodeError
    half-way through the table."""
    path = tmp_path / "game.json"
    path.write_text(record_with_names("sushi-go", {0: "李"}), encoding="utf-8")
    env = dict(os.environ, PYTHONIOENCODING="latin-1")
    for flags in ([], ["--json"]):
        done = companion("score", "--game", "sushi-go", *flags, str(path), env=env)
        assert done.returncode == 0, done.stderr
        assert b"\\u674e" in done.stdout and b"Traceback" not in done.stderr
    table = companion("score", "--game", "sushi-go", str(path), env=env).stdout.decode("latin-1")
    assert "Winner: \\u674e" in table
    assert json.loads(companion("score", "--game", "sushi-go", "--json", str(path), env=env).stdout)["winners"] == ["李"]


# --- #14 item 7: endless or huge inputs, named pipes, devices -----------------------------------
@needs_fifo
def test_14_7_named_pipe_is_refused_without_hanging(tmp_path):
    fifo = tmp_path / "record.json"
    os.mkfifo(fifo)
    for game in RECORDS:
        done = companion("score", "--game", game, str(fifo))
        assert done.returncode == 2
        one_named_error(done.stderr, f"companion score: {fifo}: is a named pipe (FIFO)")
    # the panel script, the pinout and the journal a command is given
    code = (
        "import sys\n"
        "from companion.devices.panel import PanelError, load_script\n"
        "from companion.devices.pinout import PinoutError, load_pinout\n"
        "for load, err in ((load_script, PanelError), (load_pinout, PinoutError)):\n"
        "    try:\n        load(sys.argv[1])\n    except err as exc:\n        print(exc)\n"
    )
    done = subprocess.run([sys.executable, "-c", code, str(fifo)], capture_output=True, timeout=HANG_TIMEOUT_S)
    lines = done.stdout.decode().splitlines()
    assert len(lines) == 2 and all("named pipe (FIFO)" in line for line in lines), done
    done = companion("games", "--journal", str(fifo))
    assert done.returncode == 2
    one_named_error(done.stderr, "journal", "named pipe (FIFO)")


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom"])
def test_14_7_devices_are_refused_unread(device, tmp_path):
    if not os.path.exists(device):
        pytest.skip(f"{device} is not on this system")
    with pytest.raises(InputError) as exc:
        read_text(device, SCORE_RECORD)
    assert exc.value.rule == "not-a-file" and "character device" in exc.value.problem
    done = companion("score", "--game", "sushi-go", device)
    assert done.returncode == 2
    one_named_error(done.stderr, f"{device}: is a character device")
    done = companion("games", "--journal", device)
    assert done.returncode == 2
    one_named_error(done.stderr, "character device")


def test_14_7_never_more_than_the_cap_plus_one_byte_is_read(tmp_path, monkeypatch):
    small = InputKind("test file", 100, "tiny")
    path = tmp_path / "big.json"
    path.write_bytes(b"[" + b"1," * 1000 + b"1]")  # 2 003 bytes, over the 400-byte cap
    with pytest.raises(InputError, match="too long: more than 100 characters"):
        read_text(path, small)  # refused by its size, before it is opened

    # a file whose size says nothing (like /proc files): the read itself stops at cap + 1
    real_stat = os.stat
    monkeypatch.setattr(os, "stat", lambda p, *a, **k: os.stat_result((*real_stat(p)[:6], 0, *real_stat(p)[7:])))
    asked: list[int] = []
    real_read = os.read
    monkeypatch.setattr(os, "read", lambda fd, n: (asked.append(n), real_read(fd, n))[1])
    with pytest.raises(InputError, match="too long"):
        read_text(path, small)
    assert sum(asked) <= small.max_bytes + 1

    class Endless(io.RawIOBase):  # standard input that never ends (`companion score - < /dev/zero`)
        given = 0

        def read(self, n=-1):
            self.given += n
            return b"\0" * n

    stream = Namespace(buffer=Endless())
    with pytest.raises(InputError, match="<stdin>: too long"):
        read_stdin(small, stream)
    assert stream.buffer.given == small.max_bytes + 1


def test_14_7_stdin_keeps_working_with_the_same_cap():
    record = RECORDS["sushi-go"].read_bytes()
    done = companion("score", "--game", "sushi-go", "--json", "-", input=record)
    assert done.returncode == 0 and json.loads(done.stdout)["winners"] == ["Ann"]
    done = companion("score", "--game", "sushi-go", "-", input=b" " * (SCORE_RECORD.max_bytes + 10))
    assert done.returncode == 2
    one_named_error(done.stderr, "<stdin>: too long: more than 1,000,000 characters")
    done = companion("score", "--game", "sushi-go", "-", input=record.decode().encode("utf-16"))
    assert done.returncode == 2
    one_named_error(done.stderr, "<stdin>: not UTF-8 text", "UTF-16")


@pytest.mark.parametrize(("data", "guess"), [
    ("{}".encode("utf-16-le"), "UTF-16 (little-endian, no byte-order mark)"),
    ("{}".encode("utf-16-be"), "UTF-16 (big-endian, no byte-order mark)"),
    ("{}".encode("utf-32"), "UTF-32"),
    ('{"a": "Zoë"}'.encode("latin-1"), "Latin-1 or Windows-1252"),
    (b"\x89PNG\r\n\x1a\n\x00\x00", "binary"),
])
def test_14_7_text_that_is_not_utf8_says_what_it_probably_is(tmp_path, data, guess):
    path = tmp_path / "x.json"
    path.write_bytes(data)
    with pytest.raises(InputError) as exc:
        read_json(path, SCORE_RECORD)
    assert exc.value.rule == "not-utf8" and str(exc.value).startswith(f"{path}: not UTF-8 text")
    assert guess in exc.value.problem


def test_14_7_a_utf8_byte_order_mark_is_ignored_as_rfc_8259_allows(tmp_path):
    path = tmp_path / "x.json"
    path.write_bytes(b"\xef\xbb\xbf" + RECORDS["sushi-go"].read_bytes())
    assert read_json(path, SCORE_RECORD)["players"] == ["Ann", "Bo", "Cy"]


# --- #14 item 10: duplicate keys and names no one can tell apart --------------------------------
@pytest.mark.parametrize("game", list(RECORDS))
def test_14_10_duplicate_json_keys_are_refused_naming_the_key_and_its_object(tmp_path, capsys, game):
    text = RECORDS[game].read_text()
    first = json.loads(text)["players"][0]
    doubled = text.replace("{", '{"players": ["X", "Y", "Z"], ', 1)  # the same key twice at the top
    path = tmp_path / "dup.json"
    path.write_text(doubled)
    assert main(["score", "--game", game, str(path)]) == 2
    one_named_error(capsys.readouterr().err, "the key 'players' appears twice")
    # deeper: the object is named by its field path
    inner = text.replace(json.dumps(first) + ":", json.dumps(first) + ": 0, " + json.dumps(first) + ":", 1)
    with pytest.raises(MalformedGame) as exc:
        parse_record_json(inner)
    assert exc.value.path in ("rounds[0]", "cards") and repr(first) in exc.value.problem


BAD_NAMES = {
    "blank": ("   ", "blank"),
    "empty": ("", "empty"),
    "control character": ("A\x07nn", "control character (U+0007)"),
    "newline": ("Ann\nBo", "control character (U+000A)"),
    "ANSI escape": ("\x1b[31mAnn", "control character (U+001B)"),
    "bidi override": ("\u202eAnn", "bidirectional control"),
    "zero-width space only": ("\u200b", "format character"),
    "100 000 characters": ("x" * 100_000, f"at most {MAX_NAME_CHARS}"),
    "one over the limit": ("x" * (MAX_NAME_CHARS + 1), f"at most {MAX_NAME_CHARS}"),
    "space at the end": ("Ann ", "starts or ends with a space"),
}


@pytest.mark.parametrize("game", list(RECORDS))
@pytest.mark.parametrize("case", list(BAD_NAMES))
def test_14_10_bad_player_names_are_refused_naming_the_field(tmp_path, capsys, game, case):
    name, words = BAD_NAMES[case]
    path = tmp_path / "game.json"
    path.write_text(record_with_names(game, {1: name}))
    assert main(["score", "--game", game, str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    one_named_error(err, "players[1]: ", words)


@pytest.mark.parametrize("game", list(RECORDS))
@pytest.mark.parametrize("pair", [("Ann", "ann"), ("Bo", "BO"), ("Zoë", "Zoe\u0308"), ("Straße", "STRASSE")])
def test_14_10_names_that_differ_only_by_case_are_refused(tmp_path, capsys, game, pair):
    path = tmp_path / "game.json"
    path.write_text(record_with_names(game, {0: pair[0], 1: pair[1]}))
    assert main(["score", "--game", game, str(path)]) == 2
    one_named_error(capsys.readouterr().err, "players: player names must be distinct", "seat 1", "seat 2")
    # names that only look alike on a long screen, or use any script, are still taken
    names = {0: "x" * MAX_NAME_CHARS, 1: pair[0], 2: "Zoë-李 👩\u200d🚀"}
    path.write_text(record_with_names(game, names))
    assert main(["score", "--game", game, "--json", str(path)]) == 0, capsys.readouterr().err
    assert set(json.loads(capsys.readouterr().out)["total"]) == set(names.values())


def _engines():
    from companion.rules.sushi_express.engine import new_game as express
    from companion.rules.sushi_go.engine import new_game as go
    from companion.rules.sushi_roll.engine import new_game as roll

    return {
        "sushi-go": lambda names: go(names, random.Random(1)),
        "sushi-roll": lambda names: roll(names, random.Random(1)),
        "sushi-express": lambda names: express(names, random.Random(1)),
    }


@pytest.mark.parametrize("game", list(RECORDS))
@pytest.mark.parametrize("names", [["Ann", "ann", "Cy"], ["Ann", "\ud800", "Cy"], ["Ann", " ", "Cy"],
                                   ["Ann", "Bo\x00", "Cy"], ["Ann", "B" * 100_000, "Cy"]],
                         ids=["case", "surrogate", "blank", "NUL", "huge"])
def test_14_10_every_engine_refuses_the_same_names_as_the_records(game, names):
    with pytest.raises(ValueError) as by_engine:
        _engines()[game](names)
    with pytest.raises(ValueError) as by_core:
        player_names(names)
    assert str(by_core.value) in str(by_engine.value)
    # and the engines still take what the records take
    _engines()[game](["x" * MAX_NAME_CHARS, "Zoë", "李"])


@pytest.mark.parametrize(("players", "words"), [
    ("Ann,ann", "the same name once case is ignored"),
    ("Ann," + "B" * (MAX_NAME_CHARS + 1), f"at most {MAX_NAME_CHARS}"),
    ("Ann,B\x1bo", "control character"),
])
def test_14_10_play_players_and_the_setup_menu_refuse_the_same_names(tmp_path, capsys, players, words):
    from companion.app.cmd_play import PlayError, parse_players
    from companion.app.menu import SetupMenu

    with pytest.raises(PlayError, match=words):
        parse_players(players)
    code = main(["play", "--camera", "sim", "--display", "none", "--journal", str(tmp_path / "j.sqlite3"),
                 "--players", players])
    assert code == 2
    one_named_error(capsys.readouterr().err, "--players", words)
    names = players.split(",")
    if names[0].casefold() == names[1].casefold():
        # the menu offers a name once, whatever its case: no two seats can get "Ann" and "ann"
        assert [n.casefold() for n in SetupMenu(saved_names=names).pool].count("ann") == 1
    else:
        with pytest.raises(ValueError, match=words):
            SetupMenu(saved_names=names)
